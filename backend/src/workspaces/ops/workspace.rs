//! List, create, read and rename Workspaces.

use sea_orm::TransactionTrait;

use super::{require_selected, WorkspacePath};
use crate::access::{Permission, RequestCtx};
use crate::catalog::{Access, Input, Method, NoBody, NoParams, OpMeta, Operation, PageQuery};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;
use crate::workspaces::dto::{
    CreatedWorkspace, CurrentWorkspace, WorkspaceEnvelope, WorkspaceList, WorkspaceName,
};
use crate::workspaces::service;

/// `GET /workspaces`: the caller's Workspaces.
pub struct ListWorkspaces;

impl Operation for ListWorkspaces {
    const META: OpMeta = OpMeta {
        id: "list_workspaces",
        method: Method::Get,
        path: "/workspaces",
        summary: "The Workspaces the logged-in account belongs to",
        description: "",
        tag: "workspaces",
        access: Access::Account,
        permission: None,
        errors: &[],
        mcp: None,
    };
    type Path = NoParams;
    type Query = PageQuery;
    type Body = NoBody;
    type Output = WorkspaceList;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, PageQuery, NoBody>,
    ) -> ApiResult<WorkspaceList> {
        let all = service::active_memberships(&state.db, &ctx.account()?).await?;
        let (page, info) = input.query.slice(all);
        Ok(WorkspaceList {
            workspaces: page.into_iter().map(|(w, _)| w.into()).collect(),
            page: info,
        })
    }
}

/// `POST /workspaces`: only when the instance allows several Workspaces.
pub struct CreateWorkspace;

impl Operation for CreateWorkspace {
    const META: OpMeta = OpMeta {
        id: "create_workspace",
        method: Method::Post,
        path: "/workspaces",
        summary: "Create a Workspace owned by the caller (multi-Workspace instances only)",
        description: "Answers 403 `edition_limit` unless `LANGBOT_MULTI_WORKSPACE` is enabled.",
        tag: "workspaces",
        access: Access::Account,
        permission: None,
        errors: &[ErrorCode::EditionLimit],
        mcp: None,
    };
    type Path = NoParams;
    type Query = NoParams;
    type Body = WorkspaceName;
    type Output = CreatedWorkspace;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, WorkspaceName>,
    ) -> ApiResult<CreatedWorkspace> {
        if !state.settings.workspaces.multi {
            return Err(ApiError::new(ErrorCode::EditionLimit)
                .msg("This edition supports one Workspace per instance"));
        }
        let name = input.body.name.trim();
        if name.is_empty() {
            return Err(
                ApiError::invalid("The name must not be blank").field("name", "must not be blank")
            );
        }
        let account = ctx.account()?;
        let txn = state.db.begin().await?;
        let ws = service::create_with_owner(&txn, name, &account.to_string()).await?;
        txn.commit().await?;
        state.identity.invalidate(&state.store).await;
        Ok(CreatedWorkspace {
            uuid: ws.uuid.clone(),
            workspace: ws.into(),
        })
    }
}

/// `GET /workspaces/current`.
pub struct GetCurrentWorkspace;

impl Operation for GetCurrentWorkspace {
    const META: OpMeta = OpMeta {
        id: "get_current_workspace",
        method: Method::Get,
        path: "/workspaces/current",
        summary: "The selected Workspace with the caller's membership and permissions",
        description: "The Workspace is chosen by `X-Workspace-Id`, else the caller's first.",
        tag: "workspaces",
        access: Access::SessionWorkspace,
        permission: Some(Permission::WorkspaceView),
        errors: &[],
        mcp: None,
    };
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = CurrentWorkspace;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<CurrentWorkspace> {
        let ws = ctx.workspace()?;
        let workspace = service::get(&state.db, &ws.uuid).await?;
        let member = service::member(&state.db, ws, &ctx.account()?).await?;
        Ok(CurrentWorkspace {
            workspace: workspace.into(),
            membership: member.into(),
            permissions: ws.permissions.to_vec(),
        })
    }
}

/// `GET /workspaces/{workspace_uuid}`.
pub struct GetWorkspace;

impl Operation for GetWorkspace {
    const META: OpMeta = OpMeta {
        id: "get_workspace",
        method: Method::Get,
        path: "/workspaces/{workspace_uuid}",
        summary: "A Workspace the caller belongs to",
        description: "",
        tag: "workspaces",
        access: Access::SessionWorkspace,
        permission: Some(Permission::WorkspaceView),
        errors: &[],
        mcp: None,
    };
    type Path = WorkspacePath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = WorkspaceEnvelope;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<WorkspacePath, NoParams, NoBody>,
    ) -> ApiResult<WorkspaceEnvelope> {
        let ws = ctx.workspace()?;
        require_selected(ws, &input.path.workspace_uuid)?;
        Ok(WorkspaceEnvelope {
            workspace: service::get(&state.db, &ws.uuid).await?.into(),
        })
    }
}

/// `PUT /workspaces/{workspace_uuid}`.
pub struct RenameWorkspace;

impl Operation for RenameWorkspace {
    const META: OpMeta = OpMeta {
        id: "rename_workspace",
        method: Method::Put,
        path: "/workspaces/{workspace_uuid}",
        summary: "Rename a Workspace",
        description: "",
        tag: "workspaces",
        access: Access::SessionWorkspace,
        permission: Some(Permission::WorkspaceUpdate),
        errors: &[],
        mcp: None,
    };
    type Path = WorkspacePath;
    type Query = NoParams;
    type Body = WorkspaceName;
    type Output = WorkspaceEnvelope;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<WorkspacePath, NoParams, WorkspaceName>,
    ) -> ApiResult<WorkspaceEnvelope> {
        let ws = ctx.workspace()?;
        require_selected(ws, &input.path.workspace_uuid)?;
        let name = input.body.name.trim();
        if name.is_empty() {
            return Err(
                ApiError::invalid("The name must not be blank").field("name", "must not be blank")
            );
        }
        Ok(WorkspaceEnvelope {
            workspace: service::rename(&state.db, ws, name).await?.into(),
        })
    }
}
