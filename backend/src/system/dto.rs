use serde::Serialize;
use utoipa::ToSchema;

/// Public facts about this instance.
#[derive(Debug, Serialize, ToSchema)]
pub struct SystemInfo {
    /// Server version.
    pub version: String,
    /// `community` unless several Workspaces are enabled (`multi_workspace`).
    pub edition: String,
    /// Whether the first account exists (`POST /api/v1/user/init` done).
    pub initialized: bool,
    /// Whether more than one Workspace may be created.
    pub multi_workspace: bool,
    /// Whether stdio MCP servers may be added (`mcp.stdio.enabled`).
    pub mcp_stdio_enabled: bool,
}

/// Who is calling and with what rights (`GET /api/v1/system/context`).
#[derive(Debug, Serialize, ToSchema)]
pub struct SystemContext {
    /// `account`, `api_key` or `global_key`.
    pub principal_kind: String,
    pub instance_uuid: String,
    pub workspace_uuid: String,
    /// Effective permissions in the Workspace.
    pub permissions: Vec<crate::access::Permission>,
    /// The API key's uuid (`global-api-key` for the instance key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key_id: Option<String>,
    /// The key's stored scopes (before intersecting with its creator's permissions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scopes: Option<Vec<crate::access::Permission>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<chrono::DateTime<chrono::Utc>>,
}
