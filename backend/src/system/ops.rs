//! System operations.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use sea_orm::{EntityTrait, PaginatorTrait};

use crate::access::{Access, RequestCtx};
use crate::catalog::{Input, McpTool, NoBody, NoParams, OpMeta, Operation, Prepared};
use crate::entities::user;
use crate::error::ApiResult;
use crate::state::AppState;

use super::wizard::{self, Empty, WizardOutcome, WizardProgress};
use super::{InvitationDelivery, Limitation, SystemContext, SystemInfo};
use crate::access::Permission;
use crate::access::Principal;

/// What this process knows of system/info for every caller.
#[derive(Default)]
struct SystemInfoSeen {
    /// Whether the instance has its first account, as this process last saw it.
    initialized: AtomicBool,
    /// The answer without credentials, once initialized: it is then the same for every such
    /// caller until the process stops (everything else in it is configuration).
    anonymous: OnceLock<Prepared<SystemInfo>>,
}

/// Accounts are never deleted, so once initialized an instance stays so: the database is
/// asked only until then (another replica may initialize it meanwhile).
async fn is_initialized(state: &AppState, seen: &SystemInfoSeen) -> ApiResult<bool> {
    if seen.initialized.load(Ordering::Relaxed) {
        return Ok(true);
    }
    let initialized = user::Entity::find().count(&state.db).await? > 0;
    if initialized {
        seen.initialized.store(true, Ordering::Relaxed);
    }
    Ok(initialized)
}

/// `GET /api/v1/system/info`.
pub struct GetSystemInfo;

impl Operation for GetSystemInfo {
    const META: OpMeta = OpMeta::get("get_system_info", "/system/info")
        .tag("system")
        .summary("Instance version, edition and initialization state")
        .description(
            "With a session token (and `X-Workspace-Id`) or an API key, `wizard_status` and \
             `wizard_progress` are the Workspace's; otherwise `none` and `null`.",
        )
        .access(Access::OptionalWorkspace)
        .mcp(McpTool::FLAT);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = Prepared<SystemInfo>;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<Prepared<SystemInfo>> {
        let seen = state.parts.get::<SystemInfoSeen>();
        let anonymous = ctx.workspace.is_none();
        if let Some(prepared) = seen.anonymous.get().filter(|_| anonymous) {
            return Ok(prepared.clone());
        }
        // Boxed: the answer above is the common one, and with the reads below inline this
        // future (which the catalog boxes) would be kilobytes for it too.
        Box::pin(build_info(state, ctx, &seen)).await
    }
}

/// The system/info answer, read afresh.
async fn build_info(
    state: &AppState,
    ctx: &RequestCtx,
    seen: &SystemInfoSeen,
) -> ApiResult<Prepared<SystemInfo>> {
    let initialized = is_initialized(state, seen).await?;
    let multi = state.settings.workspaces.multi;
    let (wizard_status, wizard_progress) = match &ctx.workspace {
        Some(ws) => (
            wizard::status(&state.db, &ws.uuid).await?,
            wizard::progress(&state.db, &ws.uuid).await?,
        ),
        None => ("none".into(), None),
    };
    let prepared = Prepared::new(&SystemInfo {
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
        debug: false,
        deployment_mode: "oss".into(),
        enable_marketplace: false,
        cloud_service_url: String::new(),
        allow_modify_login_info: true,
        disable_models_service: true,
        limitation: Limitation {
            max_bots: -1,
            max_pipelines: -1,
            max_extensions: -1,
            max_knowledge_bases: -1,
        },
        outbound_ips: Vec::new(),
        invitation_delivery: InvitationDelivery {
            enabled: false,
            provider: None,
        },
        wizard_status,
        wizard_progress,
    })?;
    if ctx.workspace.is_none() && initialized {
        let _ = seen.anonymous.set(prepared.clone());
    }
    Ok(prepared)
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

/// `PUT /system/wizard/progress`.
pub struct SaveWizardProgress;

impl Operation for SaveWizardProgress {
    const META: OpMeta = OpMeta::put("save_wizard_progress", "/system/wizard/progress")
        .tag("system")
        .summary("Where the quick-start wizard stopped (any JSON object, stored as sent)")
        .description("Read back as `wizard_progress` in `GET /system/info`.")
        .access(Access::SessionWorkspace)
        .permission(Permission::WorkspaceUpdate);
    type Path = NoParams;
    type Query = NoParams;
    type Body = WizardProgress;
    type Output = Empty;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, WizardProgress>,
    ) -> ApiResult<Empty> {
        let ws = ctx.workspace()?;
        wizard::save_progress(&state.db, &ws.uuid, &input.body.0).await?;
        Ok(Empty {})
    }
}

/// `POST /system/wizard/completed`.
pub struct FinishWizard;

impl Operation for FinishWizard {
    const META: OpMeta = OpMeta::post("finish_wizard", "/system/wizard/completed")
        .tag("system")
        .summary("Mark the quick-start wizard `completed` (default) or `skipped`")
        .description("Forgets the saved progress. Any other status is 400 `invalid_request`.")
        .access(Access::SessionWorkspace)
        .permission(Permission::WorkspaceUpdate);
    type Path = NoParams;
    type Query = NoParams;
    type Body = WizardOutcome;
    type Output = Empty;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, WizardOutcome>,
    ) -> ApiResult<Empty> {
        let ws = ctx.workspace()?;
        wizard::finish(&state.db, &ws.uuid, input.body.status.as_deref()).await?;
        Ok(Empty {})
    }
}
