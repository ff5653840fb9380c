//! Members: list, change role, remove.

use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use super::{require_selected, WorkspacePath};
use crate::access::{Access, Permission, RequestCtx};
use crate::catalog::{Input, NoBody, NoParams, OpMeta, Operation, PageQuery};
use crate::error::{ApiResult, ErrorCode};
use crate::state::AppState;
use crate::workspaces::dto::{MemberEnvelope, MemberList, RemovedMember, RoleChange};
use crate::workspaces::service;

/// `{workspace_uuid}/members/{account_uuid}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct MemberPath {
    pub workspace_uuid: Uuid,
    pub account_uuid: Uuid,
}

/// `GET /workspaces/{workspace_uuid}/members`.
pub struct ListMembers;

impl Operation for ListMembers {
    const META: OpMeta = OpMeta::get("list_members", "/workspaces/{workspace_uuid}/members")
        .tag("workspaces")
        .summary("The Workspace's active members")
        .access(Access::SessionWorkspace)
        .permission(Permission::MemberView);
    type Path = WorkspacePath;
    type Query = PageQuery;
    type Body = NoBody;
    type Output = MemberList;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<WorkspacePath, PageQuery, NoBody>,
    ) -> ApiResult<MemberList> {
        let ws = ctx.workspace()?;
        require_selected(ws, &input.path.workspace_uuid)?;
        let (page, info) = input.query.slice(service::members(&state.db, ws).await?);
        Ok(MemberList {
            members: page.into_iter().map(Into::into).collect(),
            page: info,
        })
    }
}

/// `PATCH /workspaces/{workspace_uuid}/members/{account_uuid}`.
pub struct UpdateMemberRole;

impl Operation for UpdateMemberRole {
    const META: OpMeta = OpMeta::patch("update_member_role", "/workspaces/{workspace_uuid}/members/{account_uuid}")
        .tag("workspaces")
        .summary("Change a member's role")
        .description("`owner` cannot be given (403) and the owner's role cannot change (400 `last_owner_required`).")
        .access(Access::SessionWorkspace)
        .permission(Permission::MemberUpdateRole)
        .errors(&[ErrorCode::LastOwnerRequired]);
    type Path = MemberPath;
    type Query = NoParams;
    type Body = RoleChange;
    type Output = MemberEnvelope;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<MemberPath, NoParams, RoleChange>,
    ) -> ApiResult<MemberEnvelope> {
        let ws = ctx.workspace()?;
        require_selected(ws, &input.path.workspace_uuid)?;
        let member =
            service::change_role(&state.db, ws, &input.path.account_uuid, input.body.role).await?;
        // The member's API keys lose or gain effective permissions at once.
        state.identity.invalidate().await;
        Ok(MemberEnvelope {
            member: member.into(),
        })
    }
}

/// `DELETE /workspaces/{workspace_uuid}/members/{account_uuid}`.
pub struct RemoveMember;

impl Operation for RemoveMember {
    const META: OpMeta = OpMeta::delete(
        "remove_member",
        "/workspaces/{workspace_uuid}/members/{account_uuid}",
    )
    .tag("workspaces")
    .summary("Remove a member")
    .description("The owner cannot be removed (400 `last_owner_required`).")
    .access(Access::SessionWorkspace)
    .permission(Permission::MemberRemove)
    .errors(&[ErrorCode::LastOwnerRequired]);
    type Path = MemberPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = RemovedMember;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<MemberPath, NoParams, NoBody>,
    ) -> ApiResult<RemovedMember> {
        let ws = ctx.workspace()?;
        require_selected(ws, &input.path.workspace_uuid)?;
        service::remove_member(&state.db, ws, &input.path.account_uuid).await?;
        state.identity.invalidate().await;
        Ok(RemovedMember {
            account_uuid: input.path.account_uuid.to_string(),
        })
    }
}
