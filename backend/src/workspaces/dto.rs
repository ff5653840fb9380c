//! Workspace, membership and invitation shapes.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use validator::Validate;

use crate::access::{Permission, Role};
use crate::catalog::{Name, PageInfo};
use crate::entities::{workspace, workspace_invitation};
use crate::i18n::Language;

use super::service::Member;

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Workspace {
    pub uuid: String,
    pub name: String,
    pub status: String,
    pub created_by_account_uuid: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<workspace::Model> for Workspace {
    fn from(m: workspace::Model) -> Self {
        Self {
            uuid: m.uuid,
            name: m.name,
            status: m.status,
            created_by_account_uuid: m.created_by_account_uuid,
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Membership {
    pub uuid: String,
    pub workspace_uuid: String,
    pub account_uuid: String,
    pub display_name: String,
    pub email: String,
    pub role: String,
    pub status: String,
    pub joined_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

impl From<Member> for Membership {
    fn from(m: Member) -> Self {
        Self {
            uuid: m.membership.uuid,
            workspace_uuid: m.membership.workspace_uuid,
            account_uuid: m.membership.account_uuid,
            display_name: m.account.user,
            email: m.account.normalized_email,
            role: m.membership.role,
            status: m.membership.status,
            joined_at: m.membership.joined_at,
            created_at: m.membership.created_at,
        }
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Invitation {
    pub uuid: String,
    pub workspace_uuid: String,
    pub normalized_email: String,
    pub role: String,
    pub status: String,
    pub expires_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
}

impl From<workspace_invitation::Model> for Invitation {
    fn from(m: workspace_invitation::Model) -> Self {
        Self {
            uuid: m.uuid,
            workspace_uuid: m.workspace_uuid,
            normalized_email: m.normalized_email,
            role: m.role,
            status: m.status,
            expires_at: m.expires_at,
            created_at: m.created_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct WorkspaceList {
    pub workspaces: Vec<Workspace>,
    #[serde(flatten)]
    pub page: PageInfo,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct WorkspaceEnvelope {
    pub workspace: Workspace,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedWorkspace {
    pub uuid: String,
    pub workspace: Workspace,
}

/// The selected Workspace with the caller's membership and effective permissions.
#[derive(Debug, Serialize, ToSchema)]
pub struct CurrentWorkspace {
    pub workspace: Workspace,
    pub membership: Membership,
    pub permissions: Vec<Permission>,
}

/// One Workspace the account may enter (`GET /workspaces/bootstrap`, LangBot's shape).
#[derive(Debug, Serialize, ToSchema)]
pub struct BootstrapEntry {
    pub workspace: Workspace,
    pub membership: Membership,
    pub permissions: Vec<Permission>,
    /// Always 0: this server has no placement across instances.
    pub placement_generation: i64,
    /// Always `null`: there are no plans.
    pub plan_name: Option<String>,
}

/// The Workspaces a freshly logged-in account may enter, oldest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct WorkspaceBootstrap {
    pub workspaces: Vec<BootstrapEntry>,
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceName {
    #[schema(value_type = String)]
    pub name: Name,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LanguageSetting {
    pub language: Language,
    pub supported_languages: Vec<Language>,
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct LanguageUpdate {
    /// One of `en_US, zh_Hans, zh_Hant, ja_JP, es_ES, ru_RU, th_TH, vi_VN`.
    pub language: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LanguageValue {
    pub language: Language,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MemberList {
    pub members: Vec<Membership>,
    #[serde(flatten)]
    pub page: PageInfo,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MemberEnvelope {
    pub member: Membership,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RemovedMember {
    pub account_uuid: String,
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct RoleChange {
    pub role: Role,
}

/// Roles an invitation may grant (never `owner`).
#[derive(Debug, Clone, Copy, Default, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum InvitableRole {
    Admin,
    Developer,
    Operator,
    #[default]
    Viewer,
}

impl InvitableRole {
    pub fn role(self) -> Role {
        match self {
            Self::Admin => Role::Admin,
            Self::Developer => Role::Developer,
            Self::Operator => Role::Operator,
            Self::Viewer => Role::Viewer,
        }
    }
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct InvitationRequest {
    #[validate(length(min = 3, max = 320), email)]
    pub email: String,
    #[serde(default)]
    pub role: InvitableRole,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedInvitation {
    pub invitation: Invitation,
    /// The one-time `lbi_…` token; shown only here.
    pub token: String,
    /// Where the invitee accepts it.
    pub link: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct InvitationList {
    pub invitations: Vec<Invitation>,
    #[serde(flatten)]
    pub page: PageInfo,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct InvitationEnvelope {
    pub invitation: Invitation,
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct InvitationToken {
    #[validate(length(min = 1, max = 128))]
    pub token: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct InspectedInvitation {
    pub invitation: Invitation,
    pub workspace: Workspace,
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct Registration {
    #[validate(length(min = 3, max = 320), email)]
    pub email: String,
    #[validate(length(min = 1, max = 1024))]
    pub password: String,
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
#[schema(as = AcceptInvitation)]
pub struct AcceptInvitationBody {
    #[validate(length(min = 1, max = 128))]
    pub token: String,
    /// A new account for the invitee; omit when logged in.
    #[validate(nested)]
    pub registration: Option<Registration>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AcceptedInvitation {
    pub workspace_uuid: String,
    /// True when a new account was created: log in with it next.
    pub login_required: bool,
}
