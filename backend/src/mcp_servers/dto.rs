//! MCP server shapes (LangBot's `/api/v1/mcp/servers` fields).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use crate::catalog::Name;
use crate::mcp_client::RuntimeInfo;

/// `{server_name}` (`_` in `test` is a draft given in the body).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct McpServerPath {
    pub server_name: String,
}

#[derive(Debug, Deserialize, ToSchema, validator::Validate)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateMcpServer)]
pub struct CreateMcpServerBody {
    /// Unique in the Workspace; no `/`.
    #[schema(value_type = String)]
    pub name: Name,
    /// `remote` (streamable HTTP, falling back to SSE), `sse`, `http` or `stdio`.
    pub mode: String,
    /// Default false.
    #[serde(default)]
    pub enable: bool,
    /// remote/sse/http: `{url, headers, timeout, tool_call_timeout_sec}`; stdio: `{command, args,
    /// env, tool_call_timeout_sec}`.
    #[schema(value_type = Option<Object>)]
    pub extra_args: Option<Value>,
    pub readme: Option<String>,
}

/// Only the fields given change; `extra_args` is replaced whole (`***` keeps a stored secret).
#[derive(Debug, Deserialize, ToSchema, validator::Validate)]
#[serde(deny_unknown_fields)]
#[schema(as = UpdateMcpServer)]
pub struct UpdateMcpServerBody {
    #[schema(value_type = Option<String>)]
    pub name: Option<Name>,
    pub mode: Option<String>,
    pub enable: Option<bool>,
    #[schema(value_type = Option<Object>)]
    pub extra_args: Option<Value>,
    pub readme: Option<String>,
}

/// A draft to test (server name `_`); ignored for a saved server.
#[derive(Debug, Default, Deserialize, ToSchema, validator::Validate)]
#[serde(deny_unknown_fields)]
#[schema(as = TestMcpServer)]
pub struct TestMcpServerBody {
    #[schema(value_type = Option<String>)]
    pub name: Option<Name>,
    pub mode: Option<String>,
    pub enable: Option<bool>,
    #[schema(value_type = Option<Object>)]
    pub extra_args: Option<Value>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct McpServer {
    pub uuid: String,
    pub workspace_uuid: String,
    pub name: String,
    pub enable: bool,
    pub mode: String,
    /// Header and env secrets as `***`.
    #[schema(value_type = Object)]
    pub extra_args: Value,
    pub readme: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// This replica's session; `null` while the server is disabled.
    pub runtime_info: Option<RuntimeInfo>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct McpServerList {
    pub servers: Vec<McpServer>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct McpServerEnvelope {
    pub server: McpServer,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct McpServerTestResult {
    /// `connected` with the tools found, or `error` with why.
    pub runtime_info: RuntimeInfo,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct McpServerResources {
    #[schema(value_type = Vec<Object>)]
    pub resources: Vec<Value>,
    #[schema(value_type = Vec<Object>)]
    pub resource_templates: Vec<Value>,
    #[schema(value_type = Object)]
    pub resource_capabilities: Value,
}
