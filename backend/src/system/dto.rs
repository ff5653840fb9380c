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
    /// The fields below are LangBot's (its web UI reads them at start-up).
    /// Always `false`: no debug mode.
    pub debug: bool,
    /// Always `oss`: a self-hosted instance.
    pub deployment_mode: String,
    /// Always `false`: this server has no plugin marketplace.
    pub enable_marketplace: bool,
    /// Always `""`: no LangBot Space service.
    pub cloud_service_url: String,
    /// Always `true`: the account's password may be changed.
    pub allow_modify_login_info: bool,
    /// Always `true`: no Space model service.
    pub disable_models_service: bool,
    /// No limits: every maximum is `-1`.
    pub limitation: Limitation,
    pub outbound_ips: Vec<String>,
    pub invitation_delivery: InvitationDelivery,
    /// The quick-start wizard in the caller's Workspace (`none`, `skipped` or `completed`);
    /// `none` without a session.
    pub wizard_status: String,
    /// Where an unfinished wizard stopped, as last saved; `null` without a session.
    #[schema(value_type = Option<Object>)]
    pub wizard_progress: Option<serde_json::Value>,
}

/// Resource limits (LangBot's `system.limitation`); `-1` is unlimited.
#[derive(Debug, Serialize, ToSchema)]
pub struct Limitation {
    pub max_bots: i64,
    pub max_pipelines: i64,
    pub max_extensions: i64,
    pub max_knowledge_bases: i64,
}

/// Invitations are links to share; no e-mail is sent.
#[derive(Debug, Serialize, ToSchema)]
pub struct InvitationDelivery {
    pub enabled: bool,
    pub provider: Option<String>,
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
