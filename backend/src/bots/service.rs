//! Bot storage and rules: adapter config validation, secrets, routes. Every query takes the
//! caller's `WorkspaceCtx`.

use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder,
};
use serde_json::{json, Value};
use uuid::Uuid;

use super::adapters::{self, Adapter};
use super::dto::{Bot, CreateBotBody, UpdateBotBody};
use super::routes::{self, Route, RouteInput, TargetType};
use crate::access::{Permission, WorkspaceCtx};
use serde::Deserialize;

use crate::catalog::{PageInfo, PageQuery};
use crate::entities::bot;
use crate::error::{ApiError, ApiResult};
use crate::forms;
use crate::pipelines::dto::RoutingBot;

fn adapter(name: &str) -> ApiResult<&'static Adapter> {
    adapters::find(name).ok_or_else(|| {
        ApiError::invalid(format!("Unknown adapter: {name}"))
            .field("adapter", "is not an adapter this server implements")
    })
}

/// Validates an adapter config (restoring `***` secrets from `stored`). Its required fields
/// may stay unset while the bot is disabled: LangBot's bot form creates the bot disabled with
/// an empty config, to be filled in on the bot's page.
fn check_config(adapter: &Adapter, submitted: &Value, stored: Option<&Value>) -> ApiResult<Value> {
    let restored =
        forms::restore_secrets(&adapter.spec.config, submitted, stored, "adapter_config")?;
    forms::validate_draft(&adapter.spec.config, &restored, "adapter_config")
}

/// An enabled bot's config must be complete: a bot cannot run without its required settings.
fn check_runnable(adapter: &Adapter, config: &Value, enabled: bool) -> ApiResult<()> {
    match forms::missing_required(&adapter.spec.config, config) {
        Some(field) if enabled => {
            let path = format!("adapter_config.{}", field.name);
            Err(
                ApiError::invalid(format!("Invalid {path}: is required to enable the bot"))
                    .field(path, "is required to enable the bot"),
            )
        }
        _ => Ok(()),
    }
}

pub fn webhook_path(uuid: &str) -> String {
    format!("/bots/{uuid}")
}

/// The `web_page_bot` snippet that puts the chat widget on a page.
pub fn embed_code(public_url: &str, uuid: &str) -> String {
    format!("<script src=\"{public_url}/bots/{uuid}/widget.js\" async></script>")
}

/// Enabled bots of any Workspace using one of `adapters` (the runtime's supervisor).
/// What the adapter reports at run time (LangBot's `adapter_runtime_values`), for the
/// bot API and for plugins' `get_bot_info` alike.
pub async fn runtime_values(
    state: &crate::state::AppState,
    row: &bot::Model,
) -> super::dto::RuntimeValues {
    let public = state.settings.public_url();
    let path = webhook_path(&row.uuid);
    let store = state.store.as_ref();
    let status = super::status::get(store, &row.uuid).await;
    super::dto::RuntimeValues {
        webhook_full_url: format!("{public}{path}"),
        webhook_url: path,
        // An http_bot has no platform account: LangBot's account id for it is `http_bot`
        // (an `At` with it, or with the uuid, mentions the bot).
        bot_account_id: status
            .as_ref()
            .and_then(|s| s.bot_account_id.clone())
            .or_else(|| {
                (row.adapter == adapters::HTTP_BOT).then(|| adapters::HTTP_BOT.to_string())
            }),
        state: status,
        logs: super::status::logs(store, &row.uuid).await,
        embed_code: (row.adapter == adapters::WEB_PAGE_BOT).then(|| embed_code(&public, &row.uuid)),
    }
}

pub async fn enabled_with_adapters(
    db: &impl ConnectionTrait,
    adapters: &[&str],
) -> ApiResult<Vec<bot::Model>> {
    Ok(bot::Entity::find()
        .filter(bot::Column::Enable.eq(true))
        .filter(bot::Column::Adapter.is_in(adapters.iter().copied()))
        .all(db)
        .await?)
}

pub fn stored_routes(row: &bot::Model) -> Vec<Route> {
    // Read in place: cloning the stored JSON first cost as much again.
    Vec::<Route>::deserialize(&row.event_bindings).unwrap_or_default()
}

pub fn to_dto(row: bot::Model, ws: &WorkspaceCtx, public_url: &str) -> Bot {
    let config = match adapters::find(&row.adapter) {
        Some(a) => forms::mask_secrets(&a.spec.config, &row.adapter_config),
        None => crate::forms::secrets::mask_value(&row.adapter_config),
    };
    let config = if ws.permissions.contains(Permission::ResourceManage) {
        config
    } else {
        crate::forms::secrets::mask_value(&config)
    };
    let event_bindings = stored_routes(&row);
    Bot {
        webhook_url: format!("{public_url}{}", webhook_path(&row.uuid)),
        uuid: row.uuid,
        workspace_uuid: row.workspace_uuid,
        name: row.name,
        description: row.description,
        adapter: row.adapter,
        adapter_config: config,
        enable: row.enable,
        event_bindings,
        created_at: row.created_at,
        updated_at: row.updated_at,
    }
}

/// One page of the Workspace's bots, first created first, with the Workspace's total.
pub async fn page(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    page: &PageQuery,
) -> ApiResult<(Vec<bot::Model>, PageInfo)> {
    let select = bot::Entity::find()
        .filter(bot::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .order_by_asc(bot::Column::CreatedAt)
        .order_by_asc(bot::Column::Uuid);
    page.fetch(db, select).await
}

pub async fn list(db: &impl ConnectionTrait, ws: &WorkspaceCtx) -> ApiResult<Vec<bot::Model>> {
    Ok(bot::Entity::find()
        .filter(bot::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .order_by_asc(bot::Column::CreatedAt)
        .order_by_asc(bot::Column::Uuid)
        .all(db)
        .await?)
}

/// A bot of this Workspace, else 404.
pub async fn get(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    uuid: &Uuid,
) -> ApiResult<bot::Model> {
    bot::Entity::find_by_id(uuid.to_string())
        .filter(bot::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .one(db)
        .await?
        .ok_or_else(ApiError::not_found)
}

/// A bot by uuid alone, for its public webhook: the bot determines the Workspace.
pub async fn find_for_ingress(
    db: &impl ConnectionTrait,
    uuid: &Uuid,
) -> ApiResult<Option<bot::Model>> {
    Ok(bot::Entity::find_by_id(uuid.to_string()).one(db).await?)
}

/// Normalizes routes and checks that every pipeline target exists in this Workspace.
async fn check_routes(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    inputs: Vec<RouteInput>,
) -> ApiResult<Vec<Route>> {
    let routes = routes::normalize(inputs, "event_bindings")?;
    for (i, r) in routes
        .iter()
        .enumerate()
        .filter(|(_, r)| r.target_type == TargetType::Pipeline)
    {
        let uuid = Uuid::parse_str(&r.target_uuid).unwrap_or_default();
        if crate::pipelines::service::get(db, ws, &uuid).await.is_err() {
            let path = format!("event_bindings[{i}].target_uuid");
            return Err(ApiError::invalid(format!(
                "Invalid route: {path} is not a pipeline of this Workspace"
            ))
            .field(path, "is not a pipeline of this Workspace"));
        }
    }
    Ok(routes)
}

fn routes_json(routes: &[Route]) -> ApiResult<Value> {
    serde_json::to_value(routes).map_err(ApiError::internal)
}

pub async fn create(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    input: CreateBotBody,
) -> ApiResult<bot::Model> {
    let name = input.name.as_str();
    let adapter = adapter(input.adapter.trim())?;
    let config = check_config(adapter, &input.adapter_config, None)?;
    check_runnable(adapter, &config, input.enable)?;
    let mut routes = check_routes(db, ws, input.event_bindings.unwrap_or_default()).await?;
    if routes.is_empty() {
        let pipeline = crate::pipelines::service::pipeline_for_default_routes(db, ws).await?;
        routes = routes::default_routes(&pipeline.uuid);
    }
    let now = crate::db::now();
    let row = bot::ActiveModel {
        uuid: Set(Uuid::new_v4().to_string()),
        workspace_uuid: Set(ws.uuid.to_string()),
        name: Set(name.to_string()),
        description: Set(input.description.unwrap_or_default().trim().to_string()),
        adapter: Set(adapter.name.to_string()),
        adapter_config: Set(config),
        enable: Set(input.enable),
        event_bindings: Set(routes_json(&routes)?),
        created_at: Set(now),
        updated_at: Set(now),
    };
    Ok(row.insert(db).await?)
}

pub async fn update(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    uuid: &Uuid,
    input: UpdateBotBody,
) -> ApiResult<bot::Model> {
    let stored = get(db, ws, uuid).await?;
    let mut row: bot::ActiveModel = stored.clone().into();
    if let Some(name) = input.name {
        let name = name.into_inner();
        row.name = Set(name);
    }
    if let Some(d) = input.description {
        row.description = Set(d.trim().to_string());
    }
    let adapter_changed = input
        .adapter
        .as_deref()
        .is_some_and(|a| a.trim() != stored.adapter);
    let adapter = adapter(
        input
            .adapter
            .as_deref()
            .map(str::trim)
            .unwrap_or(&stored.adapter),
    )?;
    let config = match input.adapter_config {
        Some(config) => {
            let previous = (!adapter_changed).then_some(&stored.adapter_config);
            check_config(adapter, &config, previous)?
        }
        None if adapter_changed => {
            return Err(ApiError::invalid("A new adapter needs its adapter_config")
                .field("adapter_config", "is required when the adapter changes"));
        }
        None => stored.adapter_config.clone(),
    };
    let enable = input.enable.unwrap_or(stored.enable);
    check_runnable(adapter, &config, enable)?;
    row.adapter_config = Set(config);
    row.adapter = Set(adapter.name.to_string());
    row.enable = Set(enable);
    if let Some(inputs) = input.event_bindings {
        row.event_bindings = Set(routes_json(&check_routes(db, ws, inputs).await?)?);
    }
    row.updated_at = Set(crate::db::now());
    Ok(row.update(db).await?)
}

pub async fn delete(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    uuid: &Uuid,
) -> ApiResult<bot::Model> {
    let row = get(db, ws, uuid).await?;
    bot::Entity::delete_by_id(row.uuid.clone()).exec(db).await?;
    Ok(row)
}

/// Bots whose routes target `pipeline`, with those route ids.
pub async fn routes_targeting(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    pipeline: &str,
) -> ApiResult<Vec<RoutingBot>> {
    Ok(list(db, ws)
        .await?
        .into_iter()
        .filter_map(|b| {
            let ids: Vec<String> = stored_routes(&b)
                .into_iter()
                .filter(|r| r.target_type == TargetType::Pipeline && r.target_uuid == pipeline)
                .map(|r| r.id)
                .collect();
            (!ids.is_empty()).then_some(RoutingBot {
                bot_uuid: b.uuid,
                bot_name: b.name,
                route_ids: ids,
            })
        })
        .collect())
}

/// Removes every route that targets `pipeline` (renumbering `order`).
pub async fn remove_routes_targeting(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    pipeline: &str,
) -> ApiResult<()> {
    for b in list(db, ws).await? {
        let routes = stored_routes(&b);
        let kept: Vec<Route> = routes
            .iter()
            .filter(|r| !(r.target_type == TargetType::Pipeline && r.target_uuid == pipeline))
            .cloned()
            .enumerate()
            .map(|(i, r)| Route {
                order: i as i64,
                ..r
            })
            .collect();
        if kept.len() != routes.len() {
            let mut row: bot::ActiveModel = b.into();
            row.event_bindings = Set(json!(kept));
            row.updated_at = Set(crate::db::now());
            row.update(db).await?;
        }
    }
    Ok(())
}
