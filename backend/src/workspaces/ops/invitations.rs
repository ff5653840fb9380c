//! Invitations: create (token shown once), list, revoke, inspect and accept.

use sea_orm::TransactionTrait;
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use super::{require_selected, WorkspacePath};
use crate::access::password;
use crate::access::{Access, Permission, RequestCtx, Role};
use crate::accounts::service as accounts;
use crate::catalog::{Input, NoBody, NoParams, OpMeta, Operation, PageQuery};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;
use crate::workspaces::dto::{
    AcceptInvitationBody, AcceptedInvitation, CreatedInvitation, InspectedInvitation,
    InvitationEnvelope, InvitationList, InvitationRequest, InvitationToken,
};
use crate::workspaces::{invitations, service};

/// `{workspace_uuid}/invitations/{invitation_uuid}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct InvitationPath {
    pub workspace_uuid: Uuid,
    pub invitation_uuid: Uuid,
}

/// `GET /workspaces/{workspace_uuid}/invitations`.
pub struct ListInvitations;

impl Operation for ListInvitations {
    const META: OpMeta = OpMeta::get(
        "list_invitations",
        "/workspaces/{workspace_uuid}/invitations",
    )
    .tag("workspaces")
    .summary("Pending invitations")
    .access(Access::SessionWorkspace)
    .permission(Permission::MemberInvite);
    type Path = WorkspacePath;
    type Query = PageQuery;
    type Body = NoBody;
    type Output = InvitationList;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<WorkspacePath, PageQuery, NoBody>,
    ) -> ApiResult<InvitationList> {
        let ws = ctx.workspace()?;
        require_selected(ws, &input.path.workspace_uuid)?;
        let (page, info) = input
            .query
            .slice(invitations::list_pending(&state.db, ws).await?);
        Ok(InvitationList {
            invitations: page.into_iter().map(Into::into).collect(),
            page: info,
        })
    }
}

/// `POST /workspaces/{workspace_uuid}/invitations`.
pub struct CreateInvitation;

impl Operation for CreateInvitation {
    const META: OpMeta = OpMeta::post(
        "create_invitation",
        "/workspaces/{workspace_uuid}/invitations",
    )
    .tag("workspaces")
    .summary("Invite someone by email; answers the one-time `lbi_` token")
    .description(
        "A pending invitation for the same email is replaced. Invitations expire after 7 days.",
    )
    .access(Access::SessionWorkspace)
    .permission(Permission::MemberInvite)
    .errors(&[ErrorCode::Conflict]);
    type Path = WorkspacePath;
    type Query = NoParams;
    type Body = InvitationRequest;
    type Output = CreatedInvitation;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<WorkspacePath, NoParams, InvitationRequest>,
    ) -> ApiResult<CreatedInvitation> {
        let ws = ctx.workspace()?;
        require_selected(ws, &input.path.workspace_uuid)?;
        let email = accounts::normalize_email(&input.body.email);
        if let Some(existing) = accounts::find_by_email(&state.db, &email).await? {
            let account = Uuid::parse_str(&existing.uuid).map_err(ApiError::internal)?;
            if service::role_of(&state.db, &ws.uuid, &account)
                .await?
                .is_some()
            {
                return Err(ApiError::conflict("The account is already a member"));
            }
        }
        let txn = state.db.begin().await?;
        let (row, token) =
            invitations::create(&txn, ws, &email, input.body.role.role(), &ctx.account()?).await?;
        txn.commit().await?;
        let link = format!(
            "{}/invitations/accept#token={token}",
            state.settings.public_url()
        );
        Ok(CreatedInvitation {
            invitation: row.into(),
            token,
            link,
        })
    }
}

/// `DELETE /workspaces/{workspace_uuid}/invitations/{invitation_uuid}`.
pub struct RevokeInvitation;

impl Operation for RevokeInvitation {
    const META: OpMeta = OpMeta::delete(
        "revoke_invitation",
        "/workspaces/{workspace_uuid}/invitations/{invitation_uuid}",
    )
    .tag("workspaces")
    .summary("Revoke an invitation")
    .access(Access::SessionWorkspace)
    .permission(Permission::MemberInvite)
    .errors(&[ErrorCode::Conflict]);
    type Path = InvitationPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = InvitationEnvelope;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<InvitationPath, NoParams, NoBody>,
    ) -> ApiResult<InvitationEnvelope> {
        let ws = ctx.workspace()?;
        require_selected(ws, &input.path.workspace_uuid)?;
        let row = invitations::revoke(&state.db, ws, &input.path.invitation_uuid).await?;
        Ok(InvitationEnvelope {
            invitation: row.into(),
        })
    }
}

/// `POST /invitations/inspect`.
pub struct InspectInvitation;

impl Operation for InspectInvitation {
    const META: OpMeta = OpMeta::post("inspect_invitation", "/invitations/inspect")
        .tag("invitations")
        .summary("What an invitation token grants")
        .access(Access::Public)
        .errors(&[ErrorCode::InvitationInvalid]);
    type Path = NoParams;
    type Query = NoParams;
    type Body = InvitationToken;
    type Output = InspectedInvitation;

    async fn run(
        state: &AppState,
        _: &RequestCtx,
        input: Input<NoParams, NoParams, InvitationToken>,
    ) -> ApiResult<InspectedInvitation> {
        let row = invitations::find_pending(&state.db, input.body.token.trim()).await?;
        let ws = Uuid::parse_str(&row.workspace_uuid).map_err(ApiError::internal)?;
        let workspace = service::get(&state.db, &ws).await?;
        Ok(InspectedInvitation {
            invitation: row.into(),
            workspace: workspace.into(),
        })
    }
}

/// `POST /invitations/accept`: by the logged-in account, or by registering a new one.
pub struct AcceptInvitation;

impl Operation for AcceptInvitation {
    const META: OpMeta = OpMeta::post("accept_invitation", "/invitations/accept")
        .tag("invitations")
        .summary("Accept an invitation (logged in, or with `registration` for a new account)")
        .description("The invitee's email must be the invited one.")
        .access(Access::OptionalSession)
        .errors(&[
            ErrorCode::InvitationInvalid,
            ErrorCode::Conflict,
            ErrorCode::RateLimited,
        ]);
    type Path = NoParams;
    type Query = NoParams;
    type Body = AcceptInvitationBody;
    type Output = AcceptedInvitation;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, AcceptInvitationBody>,
    ) -> ApiResult<AcceptedInvitation> {
        let body = input.body;
        let row = invitations::find_pending(&state.db, body.token.trim()).await?;
        let ws = Uuid::parse_str(&row.workspace_uuid).map_err(ApiError::internal)?;
        let role = Role::parse(&row.role)
            .ok_or_else(|| ApiError::internal(anyhow::anyhow!("stored role")))?;
        let mismatch = || {
            ApiError::new(ErrorCode::InvitationInvalid)
                .msg("The invitation is for another email address")
                .details(serde_json::json!({ "status": "email_mismatch" }))
        };
        let (account_uuid, login_required, password_hash) =
            match (ctx.account().ok(), &body.registration) {
                (Some(account), _) => {
                    let account = accounts::find(&state.db, &account).await?;
                    if account.normalized_email != row.normalized_email {
                        return Err(mismatch());
                    }
                    (Some(account.uuid), false, None)
                }
                (None, Some(reg)) => {
                    if accounts::normalize_email(&reg.email) != row.normalized_email {
                        return Err(mismatch());
                    }
                    password::check_policy("registration.password", &reg.password)?;
                    if accounts::find_by_email(&state.db, &reg.email)
                        .await?
                        .is_some()
                    {
                        return Err(ApiError::conflict(
                            "An account exists for this email: log in to accept",
                        ));
                    }
                    (
                        None,
                        true,
                        Some(state.passwords.hash(reg.password.clone()).await?),
                    )
                }
                (None, None) => {
                    return Err(ApiError::unauthenticated()
                        .msg("Log in, or register with `registration`, to accept"))
                }
            };
        let txn = state.db.begin().await?;
        let account_uuid = match (account_uuid, password_hash) {
            (Some(uuid), _) => uuid,
            (None, Some(hash)) => {
                accounts::insert(&txn, &row.normalized_email, hash)
                    .await?
                    .uuid
            }
            (None, None) => return Err(ApiError::internal(anyhow::anyhow!("no account to add"))),
        };
        let invited_by = Some(row.created_by_account_uuid.clone());
        service::add_member(&txn, &ws, &account_uuid, role, invited_by).await?;
        invitations::mark_accepted(&txn, row).await?;
        txn.commit().await?;
        // A new membership can change the Workspace a cached session works in.
        state.identity.invalidate().await;
        Ok(AcceptedInvitation {
            workspace_uuid: ws.to_string(),
            login_required,
        })
    }
}
