//! System operations.

use std::sync::atomic::{AtomicBool, Ordering};

use sea_orm::{EntityTrait, PaginatorTrait};

use crate::access::{Access, RequestCtx};
use crate::catalog::{Input, McpTool, NoBody, NoParams, OpMeta, Operation};
use crate::entities::user;
use crate::error::ApiResult;
use crate::state::AppState;

use super::{SystemContext, SystemInfo};
use crate::access::Principal;

/// Whether the instance has its first account, as this process last saw it.
#[derive(Default)]
struct Initialized(AtomicBool);

/// Accounts are never deleted, so once initialized an instance stays so: the database is
/// asked only until then (another replica may initialize it meanwhile).
async fn is_initialized(state: &AppState) -> ApiResult<bool> {
    let seen = state.parts.get::<Initialized>();
    if seen.0.load(Ordering::Relaxed) {
        return Ok(true);
    }
    let initialized = user::Entity::find().count(&state.db).await? > 0;
    if initialized {
        seen.0.store(true, Ordering::Relaxed);
    }
    Ok(initialized)
}

/// `GET /api/v1/system/info`.
pub struct GetSystemInfo;

impl Operation for GetSystemInfo {
    const META: OpMeta = OpMeta::get("get_system_info", "/system/info")
        .tag("system")
        .summary("Instance version, edition and initialization state")
        .access(Access::Public)
        .mcp(McpTool::FLAT);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = SystemInfo;

    async fn run(
        state: &AppState,
        _: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<SystemInfo> {
        let initialized = is_initialized(state).await?;
        let multi = state.settings.workspaces.multi;
        Ok(SystemInfo {
            version: env!("CARGO_PKG_VERSION").into(),
            edition: if multi {
                "multi-workspace"
            } else {
                "community"
            }
            .into(),
            initialized,
            multi_workspace: multi,
            mcp_stdio_enabled: state.settings.mcp.stdio.enabled,
        })
    }
}

/// `GET /api/v1/system/context`.
pub struct GetSystemContext;

impl Operation for GetSystemContext {
    const META: OpMeta = OpMeta::get("get_system_context", "/system/context")
        .tag("system")
        .summary(
            "The caller: principal kind, Workspace, effective permissions, key scopes and expiry",
        );
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = SystemContext;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<SystemContext> {
        let ws = ctx.workspace()?;
        let mut out = SystemContext {
            principal_kind: ctx.principal.kind().into(),
            instance_uuid: state.instance_uuid.to_string(),
            workspace_uuid: ws.uuid.to_string(),
            permissions: ws.permissions.to_vec(),
            api_key_id: None,
            scopes: None,
            expires_at: None,
        };
        match &ctx.principal {
            Principal::ApiKey {
                key_uuid,
                scopes,
                expires_at,
                ..
            } => {
                out.api_key_id = Some(key_uuid.clone());
                out.scopes = Some(scopes.to_vec());
                out.expires_at = *expires_at;
            }
            Principal::GlobalKey => out.api_key_id = Some("global-api-key".into()),
            _ => {}
        }
        Ok(out)
    }
}
