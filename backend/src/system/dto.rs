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
}
