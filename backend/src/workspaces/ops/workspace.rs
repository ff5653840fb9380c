//! List, create, read and rename Workspaces.

use sea_orm::TransactionTrait;

use super::{require_selected, WorkspacePath};
use crate::access::{Access, Permission, RequestCtx};
use crate::catalog::{Input, NoBody, NoParams, OpMeta, Operation, PageQuery};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;
use crate::workspaces::dto::{
    BootstrapEntry, CreatedWorkspace, CurrentWorkspace, WorkspaceBootstrap, WorkspaceEnvelope,
    WorkspaceList, WorkspaceName,
};
use crate::workspaces::service;

/// `GET /workspaces`: the caller's Workspaces.
pub struct ListWorkspaces;

impl Operation for ListWorkspaces {
    const META: OpMeta = OpMeta::get("list_workspaces", "/workspaces")
        .tag("workspaces")
        .summary("The Workspaces the logged-in account belongs to")
        .access(Access::Account);
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

/// `GET /workspaces/bootstrap`: what LangBot's UI reads right after login to pick a Workspace.
pub struct BootstrapWorkspaces;

impl Operation for BootstrapWorkspaces {
    const META: OpMeta = OpMeta::get("bootstrap_workspaces", "/workspaces/bootstrap")
        .tag("workspaces")
        .summary("Every Workspace the account may enter, with its membership and permissions")
        .description("LangBot's shape; `X-Workspace-Id` is ignored.")
        .access(Access::Account);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = WorkspaceBootstrap;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<WorkspaceBootstrap> {
        let account = ctx.account()?;
        let mut workspaces = Vec::new();
        for (workspace, role) in service::active_memberships(&state.db, &account).await? {
            let uuid = uuid::Uuid::parse_str(&workspace.uuid).map_err(ApiError::internal)?;
            let permissions = role.permissions();
            let scope = crate::access::WorkspaceCtx {
                uuid,
                permissions,
                role: Some(role),
                language: Default::default(),
            };
            let member = service::member(&state.db, &scope, &account).await?;
            workspaces.push(BootstrapEntry {
                workspace: workspace.into(),
                membership: member.into(),
                permissions: permissions.to_vec(),
                placement_generation: 0,
                plan_name: None,
            });
        }
        Ok(WorkspaceBootstrap { workspaces })
    }
}

/// `POST /workspaces`: only when the instance allows several Workspaces.
pub struct CreateWorkspace;

impl Operation for CreateWorkspace {
    const META: OpMeta = OpMeta::post("create_workspace", "/workspaces")
        .tag("workspaces")
        .summary("Create a Workspace owned by the caller (multi-Workspace instances only)")
        .description("Answers 403 `edition_limit` unless `LANGBOT_MULTI_WORKSPACE` is enabled.")
        .access(Access::Account)
        .errors(&[ErrorCode::EditionLimit]);
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
        let name = input.body.name.as_str();
        let account = ctx.account()?;
        let txn = state.db.begin().await?;
        let ws = service::create_with_owner(&txn, name, &account.to_string()).await?;
        txn.commit().await?;
        state.identity.invalidate().await;
        Ok(CreatedWorkspace {
            uuid: ws.uuid.clone(),
            workspace: ws.into(),
        })
    }
}

/// `GET /workspaces/current`.
pub struct GetCurrentWorkspace;

impl Operation for GetCurrentWorkspace {
    const META: OpMeta = OpMeta::get("get_current_workspace", "/workspaces/current")
        .tag("workspaces")
        .summary("The selected Workspace with the caller's membership and permissions")
        .description("The Workspace is chosen by `X-Workspace-Id`, else the caller's first.")
        .access(Access::SessionWorkspace)
        .permission(Permission::WorkspaceView);
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
    const META: OpMeta = OpMeta::get("get_workspace", "/workspaces/{workspace_uuid}")
        .tag("workspaces")
        .summary("A Workspace the caller belongs to")
        .access(Access::SessionWorkspace)
        .permission(Permission::WorkspaceView);
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
    const META: OpMeta = OpMeta::put("rename_workspace", "/workspaces/{workspace_uuid}")
        .tag("workspaces")
        .summary("Rename a Workspace")
        .access(Access::SessionWorkspace)
        .permission(Permission::WorkspaceUpdate);
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
        let name = input.body.name.as_str();
        Ok(WorkspaceEnvelope {
            workspace: service::rename(&state.db, ws, name).await?.into(),
        })
    }
}
