//! Members: list, change role, remove.

use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use super::{require_selected, WorkspacePath};
use crate::access::{Permission, RequestCtx};
use crate::catalog::{Access, Input, Method, NoBody, NoParams, OpMeta, Operation, PageQuery};
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
    const META: OpMeta = OpMeta {
        id: "list_members",
        method: Method::Get,
        path: "/workspaces/{workspace_uuid}/members",
        summary: "The Workspace's active members",
        description: "",
        tag: "workspaces",
        access: Access::SessionWorkspace,
        permission: Some(Permission::MemberView),
        errors: &[],
        mcp: None,
    };
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
pub struct ChangeMemberRole;

impl Operation for ChangeMemberRole {
    const META: OpMeta = OpMeta {
        id: "update_member_role",
        method: Method::Patch,
        path: "/workspaces/{workspace_uuid}/members/{account_uuid}",
        summary: "Change a member's role",
        description: "`owner` cannot be given (403) and the owner's role cannot change (400 `last_owner_required`).",
        tag: "workspaces",
        access: Access::SessionWorkspace,
        permission: Some(Permission::MemberUpdateRole),
        errors: &[ErrorCode::LastOwnerRequired],
        mcp: None,
    };
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
        state.identity.invalidate(&state.store).await;
        Ok(MemberEnvelope {
            member: member.into(),
        })
    }
}

/// `DELETE /workspaces/{workspace_uuid}/members/{account_uuid}`.
pub struct RemoveMember;

impl Operation for RemoveMember {
    const META: OpMeta = OpMeta {
        id: "remove_member",
        method: Method::Delete,
        path: "/workspaces/{workspace_uuid}/members/{account_uuid}",
        summary: "Remove a member",
        description: "The owner cannot be removed (400 `last_owner_required`).",
        tag: "workspaces",
        access: Access::SessionWorkspace,
        permission: Some(Permission::MemberRemove),
        errors: &[ErrorCode::LastOwnerRequired],
        mcp: None,
    };
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
        state.identity.invalidate(&state.store).await;
        Ok(RemovedMember {
            account_uuid: input.path.account_uuid.to_string(),
        })
    }
}
