//! Black-box tests: the app spawned in-process on port 0, one fresh database per test.
//! The back ends come from the environment (see `helpers::backend`).
//!
//! The suites follow the URL tree; the cross-cutting ones come after.

mod helpers;

// By resource.
mod adapters; // /bots/{bot_uuid}/…: the messaging platforms' adapters, against local fakes
mod apikeys; // /api/v1/apikeys
mod http_bot; // /bots/{bot_uuid}: the http_bot adapter
mod mcp; // /mcp
mod mcp_servers; // /api/v1/mcp/servers
mod monitoring; // /api/v1/monitoring/*
mod pipelines; // /api/v1/pipelines
mod platform; // /api/v1/platform/{adapters,bots}
mod plugins; // /api/v1/plugins, the plugin runtime, plugin tools and the LangBot API for plugins
mod provider; // /api/v1/provider/{requesters,providers,models}
mod requesters; // LangBot's native-protocol requesters against fakes of each protocol
mod system; // /healthz, /readyz, /api/v1/system/*, /api/docs
mod tools; // /api/v1/tools, the function-calling loop, tool-call records
mod unavailable; // LangBot features not here (knowledge bases, skills, Box …): "none" in its shapes
mod user; // /api/v1/user/*
mod workspaces; // /api/v1/workspaces/*, /api/v1/invitations/*

// Cross-cutting.
mod negative_inputs;
mod openapi;
mod permission_matrix;
mod session_store;
mod tenant_isolation;
mod web_ui; // /, /assets/*: the built web UI
