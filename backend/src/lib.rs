//! LangBot Core: the LangBot Application API, its MCP server and the bot runtime.
//!
//! Layers (see `docs/ARCHITECTURE.md`): transports (`catalog::http`, later MCP) → the operation
//! catalog (`catalog`) → resource modules (`system`, …) → storage (`entities`, `db`,
//! `session_store`).

pub mod access;
pub mod accounts;
pub mod apikeys;
pub mod bots;
pub mod catalog;
pub mod cli;
pub mod config;
pub mod db;
pub mod entities;
pub mod error;
pub mod forms;
pub mod http;
pub mod i18n;
pub mod identity;
pub mod llm;
pub mod mcp;
pub mod monitoring;
pub mod pipelines;
pub mod providers;
pub mod runtime;
pub mod session_store;
pub mod startup;
pub mod state;
pub mod system;
pub mod telemetry;
pub mod workspaces;
