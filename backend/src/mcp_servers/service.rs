//! MCP servers of a Workspace: storage, validation, secret masking, and this replica's
//! sessions kept in step with the rows.

use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder,
};
use serde_json::{json, Value};

use super::dto::{CreateMcpServerBody, McpServer, UpdateMcpServerBody};
use crate::access::WorkspaceCtx;
use crate::config::McpStdioSettings;
use crate::entities::mcp_server;
use crate::error::{ApiError, ApiResult};
use crate::forms::secrets;
use crate::mcp_client::{check_stdio, Env, McpHub, Mode, RuntimeInfo, ServerConfig};
use crate::state::AppState;

fn not_found() -> ApiError {
    ApiError::not_found().msg("MCP server not found")
}

/// The hub of this process and how it reaches out.
pub fn hub(state: &AppState) -> (std::sync::Arc<McpHub>, Env) {
    (
        state.parts.get::<McpHub>(),
        Env {
            clients: crate::mcp_client::session::Clients {
                sse: state.http.clone(),
            },
            runtime: state.tasks.handle().clone(),
        },
    )
}

pub async fn list(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
) -> ApiResult<Vec<mcp_server::Model>> {
    Ok(mcp_server::Entity::find()
        .filter(mcp_server::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .order_by_asc(mcp_server::Column::Name)
        .all(db)
        .await?)
}

pub async fn by_name(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    name: &str,
) -> ApiResult<mcp_server::Model> {
    mcp_server::Entity::find()
        .filter(mcp_server::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .filter(mcp_server::Column::Name.eq(name))
        .one(db)
        .await?
        .ok_or_else(not_found)
}

fn check_name(name: &str) -> ApiResult<()> {
    if name.contains('/') || name.chars().count() > 255 {
        return Err(ApiError::invalid("Invalid MCP server name")
            .field("name", "must be at most 255 characters without `/`"));
    }
    Ok(())
}

/// Checks the settings (and the stdio policy for an enabled stdio server) as they will be stored.
pub fn check(
    policy: &McpStdioSettings,
    name: &str,
    mode: &str,
    extra: &Value,
) -> ApiResult<ServerConfig> {
    check_name(name)?;
    let cfg = ServerConfig::parse("", name, mode, extra)?;
    if let crate::mcp_client::config::Endpoint::Stdio { command, .. } = &cfg.endpoint {
        // Even a disabled row: enabling it later must not slip a command past the policy.
        check_stdio(policy, command)?;
    }
    Ok(cfg)
}

async fn name_taken(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    name: &str,
    except: Option<&str>,
) -> ApiResult<()> {
    let found = mcp_server::Entity::find()
        .filter(mcp_server::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .filter(mcp_server::Column::Name.eq(name))
        .one(db)
        .await?;
    match found {
        Some(row) if Some(row.uuid.as_str()) != except => Err(ApiError::conflict(format!(
            "MCP server already exists: {name}"
        ))
        .field("name", "is already used in this Workspace")),
        _ => Ok(()),
    }
}

pub async fn create(
    state: &AppState,
    ws: &WorkspaceCtx,
    body: CreateMcpServerBody,
) -> ApiResult<mcp_server::Model> {
    let name = body.name.into_inner();
    let extra = body.extra_args.unwrap_or_else(|| json!({}));
    check(&state.settings.mcp.stdio, &name, &body.mode, &extra)?;
    name_taken(&state.db, ws, &name, None).await?;
    let now = crate::db::now();
    let row = mcp_server::ActiveModel {
        uuid: Set(uuid::Uuid::new_v4().to_string()),
        workspace_uuid: Set(ws.uuid.to_string()),
        name: Set(name),
        enable: Set(body.enable),
        mode: Set(body.mode),
        extra_args: Set(extra),
        readme: Set(body.readme.unwrap_or_default()),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&state.db)
    .await
    .map_err(|e| unique_or(e, "name"))?;
    sync(state, &row);
    Ok(row)
}

/// A unique-index race (two creates at once) is the same conflict as the check above.
fn unique_or(e: sea_orm::DbErr, field: &str) -> ApiError {
    let text = e.to_string().to_ascii_lowercase();
    if text.contains("unique") || text.contains("duplicate") {
        ApiError::conflict("MCP server already exists")
            .field(field, "is already used in this Workspace")
    } else {
        ApiError::from(e)
    }
}

/// `***` leaves and a masked URL keep what is stored.
fn restore(submitted: &Value, stored: &Value) -> ApiResult<Value> {
    let mut restored = secrets::restore_sensitive(submitted, Some(stored), "extra_args")?;
    if let (Some(url), Some(old)) = (restored["url"].as_str(), stored["url"].as_str()) {
        if url != old && url == secrets::redact_url(old) {
            restored["url"] = json!(old);
        }
    }
    Ok(restored)
}

pub async fn update(
    state: &AppState,
    ws: &WorkspaceCtx,
    name: &str,
    body: UpdateMcpServerBody,
) -> ApiResult<mcp_server::Model> {
    let row = by_name(&state.db, ws, name).await?;
    let new_name = body
        .name
        .map(|n| n.into_inner())
        .unwrap_or_else(|| row.name.clone());
    let mode = body.mode.unwrap_or_else(|| row.mode.clone());
    let enable = body.enable.unwrap_or(row.enable);
    let extra = match &body.extra_args {
        Some(extra) => restore(extra, &row.extra_args)?,
        None => row.extra_args.clone(),
    };
    check(&state.settings.mcp.stdio, &new_name, &mode, &extra)?;
    if new_name != row.name {
        name_taken(&state.db, ws, &new_name, Some(&row.uuid)).await?;
    }
    let mut active: mcp_server::ActiveModel = row.into();
    active.name = Set(new_name);
    active.mode = Set(mode);
    active.enable = Set(enable);
    active.extra_args = Set(extra);
    if let Some(readme) = body.readme {
        active.readme = Set(readme);
    }
    active.updated_at = Set(crate::db::now());
    let row = active
        .update(&state.db)
        .await
        .map_err(|e| unique_or(e, "name"))?;
    sync(state, &row);
    Ok(row)
}

pub async fn delete(state: &AppState, ws: &WorkspaceCtx, name: &str) -> ApiResult<()> {
    let row = by_name(&state.db, ws, name).await?;
    mcp_server::Entity::delete_many()
        .filter(mcp_server::Column::Uuid.eq(row.uuid.clone()))
        .filter(mcp_server::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .exec(&state.db)
        .await?;
    let (hub, env) = hub(state);
    hub.remove(&env, &row.uuid);
    // Pipelines that named it keep working with the servers that remain.
    Ok(())
}

/// Opens, reopens or closes this replica's session to match the row; the status after.
pub fn sync(state: &AppState, row: &mcp_server::Model) -> Option<RuntimeInfo> {
    let (hub, env) = hub(state);
    if !row.enable {
        hub.remove(&env, &row.uuid);
        return None;
    }
    let cfg = match ServerConfig::of_row(row) {
        Ok(cfg) => cfg,
        Err(e) => {
            hub.remove(&env, &row.uuid);
            return Some(RuntimeInfo::of(
                &crate::mcp_client::SlotState::Failed(crate::mcp_client::session::Failure {
                    code: "runtime_error".into(),
                    message: e.english().to_string(),
                }),
                0,
                &[],
            ));
        }
    };
    // A stdio row saved before the operator turned stdio off does not run.
    if cfg.mode == Mode::Stdio {
        if let crate::mcp_client::config::Endpoint::Stdio { command, .. } = &cfg.endpoint {
            if let Err(e) = check_stdio(&state.settings.mcp.stdio, command) {
                hub.remove(&env, &row.uuid);
                return Some(RuntimeInfo::of(
                    &crate::mcp_client::SlotState::Failed(crate::mcp_client::session::Failure {
                        code: "stdio_refused".into(),
                        message: e.english().to_string(),
                    }),
                    0,
                    &[],
                ));
            }
        }
    }
    let cfg = ServerConfig {
        uuid: row.uuid.clone(),
        ..cfg
    };
    Some(hub.ensure(&env, cfg, &row.updated_at.to_rfc3339()).info())
}

/// The row as the API shows it: secrets masked, this replica's status.
pub fn view(state: &AppState, row: mcp_server::Model) -> McpServer {
    let runtime_info = sync(state, &row);
    McpServer {
        extra_args: masked(&row.extra_args),
        runtime_info,
        uuid: row.uuid,
        workspace_uuid: row.workspace_uuid,
        name: row.name,
        enable: row.enable,
        mode: row.mode,
        readme: row.readme,
        created_at: row.created_at,
        updated_at: row.updated_at,
    }
}

/// Secrets as `***` at any depth (headers, env), credentials out of the URL; `args` as is.
pub fn masked(extra: &Value) -> Value {
    let mut out = secrets::redact(extra);
    if let Some(url) = extra["url"].as_str() {
        out["url"] = json!(secrets::redact_url(url));
    }
    if let Some(args) = extra.get("args") {
        out["args"] = args.clone();
    }
    out
}
