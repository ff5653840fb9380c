//! SeaORM entities, one per table (hand-written to match `migration/`). Never exposed in the
//! API: resources map them to DTOs.

pub mod api_key;
pub mod bot;
pub mod execution;
pub mod instance_metadata;
pub mod llm_call;
pub mod mcp_server;
pub mod membership;
pub mod model;
pub mod monitoring_error;
pub mod monitoring_message;
pub mod monitoring_rollup;
pub mod monitoring_session;
pub mod pipeline;
pub mod plugin_setting;
pub mod plugin_storage;
pub mod provider;
pub mod route_trace;
pub mod tool_call;
pub mod user;
pub mod workspace;
pub mod workspace_invitation;
pub mod workspace_metadata;
