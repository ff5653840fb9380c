//! LangBot Core: the LangBot Application API, its MCP server and the bot runtime.
//!
//! Layers (see `docs/ARCHITECTURE.md`), each importing only those below it:
//! - the composition root: `cli`, `startup` (state, workers, server, shutdown) and `api`
//!   (the list of operations);
//! - the catalog (`catalog`): the operation framework and its faces (HTTP, OpenAPI, MCP);
//! - resources (`system`, `accounts`, `workspaces`, `apikeys`, `providers`, `pipelines`,
//!   `bots`, `monitoring`) and the bot `runtime`, with the model clients in `llm`;
//! - access (`access`): credentials, identity, permissions, the request context;
//! - the shared base: `state`, `error`, `i18n`, `forms`, `http`, `config`, `telemetry`,
//!   and storage (`db`, `entities`, `session_store`).

pub mod access;
pub mod accounts;
pub mod api;
pub mod apikeys;
pub mod bots;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod db;
pub mod db_health;
pub mod entities;
pub mod error;
pub mod forms;
pub mod http;
pub mod i18n;
pub mod icons;
pub mod llm;
pub mod mcp_client;
pub mod mcp_servers;
pub mod monitoring;
pub mod pipelines;
pub mod plugins;
pub mod providers;
pub mod runtime;
pub mod session_store;
pub mod startup;
pub mod state;
pub mod system;
pub mod telemetry;
pub mod tools;
pub mod unavailable;
pub mod workspaces;
