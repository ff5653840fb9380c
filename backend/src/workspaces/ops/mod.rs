//! Workspace operations.

mod invitations;
mod language;
mod members;
mod workspace;

pub use invitations::{
    AcceptInvitation, CreateInvitation, InspectInvitation, ListInvitations, RevokeInvitation,
};
pub use language::{GetWorkspaceMessageLanguage, SetWorkspaceMessageLanguage};
pub use members::{ListMembers, RemoveMember, UpdateMemberRole};
pub use workspace::{
    BootstrapWorkspaces, CreateWorkspace, GetCurrentWorkspace, GetWorkspace, ListWorkspaces,
    RenameWorkspace,
};

use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use crate::access::WorkspaceCtx;
use crate::error::{ApiError, ApiResult};

/// `{workspace_uuid}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct WorkspacePath {
    pub workspace_uuid: Uuid,
}

/// A path naming another Workspace than the selected one is indistinguishable from a missing one.
fn require_selected(ws: &WorkspaceCtx, path: &Uuid) -> ApiResult<()> {
    if ws.uuid == *path {
        Ok(())
    } else {
        Err(ApiError::not_found())
    }
}
