//! Black-box tests: the app spawned in-process on port 0, one fresh database per test.
//! The back ends come from the environment (see `helpers::backend`).

mod helpers;

mod apikeys;
mod basics;
mod bots;
mod debug_ws;
mod identity;
mod llm_client;
mod mcp;
mod monitoring;
mod monitoring_filters;
mod monitoring_live;
mod monitoring_rollups;
mod negative_inputs;
mod openapi;
mod permission_matrix;
mod pipelines;
mod providers;
mod readiness;
mod runtime;
mod runtime_edges;
mod session_store;
mod tenant_isolation;
mod web_ui;
mod workspaces;
