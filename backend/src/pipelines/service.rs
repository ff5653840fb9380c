//! Pipeline storage and rules. Every query takes the caller's `WorkspaceCtx`.

use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder, TransactionTrait,
};
use serde_json::{json, Value};
use uuid::Uuid;

use super::config::{PipelineConfig, PipelineConfigInput};
use super::dto::{
    CreatePipelineBody, ExtensionsPreferences, RoutingBot, SortBy, SortOrder, UpdatePipelineBody,
};
use super::metadata;
use crate::access::WorkspaceCtx;
use crate::entities::{model, pipeline};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::providers::dto::PipelineRef;
use crate::providers::requesters::ModelKind;

/// The stage order every pipeline runs (reported for LangBot compatibility).
pub const STAGES: &[&str] = &[
    "GroupRespondRuleCheckStage",
    "BanSessionCheckStage",
    "PreContentFilterStage",
    "PreProcessor",
    "RequireRateLimitOccupancy",
    "MessageProcessor",
    "ReleaseRateLimitOccupancy",
    "PostContentFilterStage",
    "ResponseWrapper",
    "LongTextProcessStage",
    "SendResponseBackStage",
];

fn version() -> String {
    format!("v{}", env!("CARGO_PKG_VERSION"))
}

/// The template, with its model preset to the Workspace's starred model.
pub async fn template(db: &impl ConnectionTrait, ws: &WorkspaceCtx) -> ApiResult<PipelineConfig> {
    let mut config = PipelineConfig::default();
    if let Some(starred) = crate::providers::models::starred(db, ws).await? {
        config.ai.agent_mut().model.primary = starred;
    }
    Ok(config)
}

/// Validates a typed config against the metadata and this Workspace's models; the stored JSON.
pub async fn normalize(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    config: &PipelineConfig,
) -> ApiResult<Value> {
    let value = serde_json::to_value(config).map_err(ApiError::internal)?;
    metadata::check_ranges(&value)?;
    let agent = config.ai.agent();
    let selection = &agent.model;
    let base = format!("{}.model", config.ai.agent_path());
    let mut wanted: Vec<(String, &str)> = Vec::new();
    if !selection.primary.is_empty() {
        wanted.push((format!("{base}.primary"), &selection.primary));
    }
    for (i, f) in selection.fallbacks.iter().enumerate() {
        wanted.push((format!("{base}.fallbacks[{i}]"), f));
    }
    for (path, uuid) in wanted {
        let exists = match Uuid::parse_str(uuid) {
            Ok(u) => crate::providers::models::get(db, ws, ModelKind::Llm, &u)
                .await
                .is_ok(),
            Err(_) => false,
        };
        if !exists {
            return Err(ApiError::invalid(format!(
                "Invalid pipeline config: {path} is not an LLM model of this Workspace"
            ))
            .field(path, "is not an LLM model of this Workspace"));
        }
    }
    Ok(value)
}

/// Parses a supplied config; errors name the config path (`trigger.access-control.mode`).
fn parse_config(value: Value) -> ApiResult<PipelineConfigInput> {
    if !value.is_object() {
        return Err(
            ApiError::invalid("The pipeline config must be a JSON object")
                .field("config", "must be a JSON object"),
        );
    }
    crate::catalog::input::from_value(value, "")
}

fn check_extensions(ext: &ExtensionsPreferences) -> ApiResult<Value> {
    let bad = |path: String, why: &str| {
        ApiError::invalid(format!("Invalid {path}: {why}")).field(path, why.to_string())
    };
    for (i, p) in ext.plugins.iter().enumerate() {
        if p.author.trim().is_empty() || p.name.trim().is_empty() {
            return Err(bad(
                format!("extensions_preferences.plugins[{i}]"),
                "needs a non-empty author and name",
            ));
        }
    }
    for (name, list) in [("mcp_servers", &ext.mcp_servers), ("skills", &ext.skills)] {
        if let Some(i) = list.iter().position(|s| s.trim().is_empty()) {
            return Err(bad(
                format!("extensions_preferences.{name}[{i}]"),
                "must be a non-empty string",
            ));
        }
    }
    for (i, r) in ext.mcp_resources.iter().enumerate() {
        if r.get("enabled").is_some_and(|v| !v.is_boolean()) {
            return Err(bad(
                format!("extensions_preferences.mcp_resources[{i}].enabled"),
                "must be a boolean",
            ));
        }
    }
    serde_json::to_value(ext).map_err(ApiError::internal)
}

pub async fn list(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    by: SortBy,
    order: SortOrder,
) -> ApiResult<Vec<pipeline::Model>> {
    let column = match by {
        SortBy::CreatedAt => pipeline::Column::CreatedAt,
        SortBy::UpdatedAt => pipeline::Column::UpdatedAt,
    };
    let query =
        pipeline::Entity::find().filter(pipeline::Column::WorkspaceUuid.eq(ws.uuid.to_string()));
    let query = match order {
        SortOrder::Desc => query
            .order_by_desc(column)
            .order_by_desc(pipeline::Column::Uuid),
        SortOrder::Asc => query
            .order_by_asc(column)
            .order_by_asc(pipeline::Column::Uuid),
    };
    Ok(query.all(db).await?)
}

/// A pipeline of this Workspace, else 404.
pub async fn get(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    uuid: &Uuid,
) -> ApiResult<pipeline::Model> {
    pipeline::Entity::find_by_id(uuid.to_string())
        .filter(pipeline::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .one(db)
        .await?
        .ok_or_else(ApiError::not_found)
}

fn default_exists() -> ApiError {
    ApiError::new(ErrorCode::DefaultPipelineExists)
        .msg("The Workspace already has a default pipeline")
}

/// A pipeline about to be stored.
struct NewPipeline<'a> {
    name: &'a str,
    description: &'a str,
    emoji: &'a str,
    config: Value,
    extensions: Value,
    is_default: bool,
}

/// Inserts a pipeline; a second default loses on the unique index and answers 409.
async fn insert(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    new: NewPipeline<'_>,
) -> ApiResult<pipeline::Model> {
    let now = crate::db::now();
    let is_default = new.is_default;
    let row = pipeline::ActiveModel {
        uuid: Set(Uuid::new_v4().to_string()),
        workspace_uuid: Set(ws.uuid.to_string()),
        name: Set(new.name.to_string()),
        description: Set(new.description.to_string()),
        emoji: Set(new.emoji.to_string()),
        for_version: Set(version()),
        is_default: Set(is_default),
        stages: Set(json!(STAGES)),
        config: Set(new.config),
        extensions_preferences: Set(new.extensions),
        created_at: Set(now),
        updated_at: Set(now),
    };
    row.insert(db).await.map_err(|e| match ApiError::from(e) {
        e if e.code == ErrorCode::Conflict && is_default => default_exists(),
        e => e,
    })
}

pub async fn create(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    input: CreatePipelineBody,
) -> ApiResult<pipeline::Model> {
    let name = input.name.as_str();
    let config = match input.config {
        Some(supplied) => parse_config(supplied)?.merge_into(PipelineConfig::default()),
        None => template(db, ws).await?,
    };
    let config = normalize(db, ws, &config).await?;
    let ext = check_extensions(&input.extensions_preferences.unwrap_or_default())?;
    if input.is_default && default_pipeline(db, ws).await?.is_some() {
        return Err(default_exists());
    }
    let new = NewPipeline {
        name,
        description: input.description.as_deref().unwrap_or_default().trim(),
        emoji: input.emoji.as_deref().unwrap_or("⚙️"),
        config,
        extensions: ext,
        is_default: input.is_default,
    };
    insert(db, ws, new).await
}

/// Applies an update: supplied config sections replace the stored ones in full.
pub async fn update(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    uuid: &Uuid,
    input: UpdatePipelineBody,
) -> ApiResult<()> {
    let stored = get(db, ws, uuid).await?;
    let mut row: pipeline::ActiveModel = stored.clone().into();
    if let Some(name) = input.name {
        let name = name.into_inner();
        row.name = Set(name);
    }
    if let Some(d) = input.description {
        row.description = Set(d.trim().to_string());
    }
    if let Some(e) = input.emoji {
        row.emoji = Set(e);
    }
    if let Some(supplied) = input.config {
        let current: PipelineConfig =
            serde_json::from_value(stored.config.clone()).unwrap_or_default();
        row.config = Set(normalize(db, ws, &parse_config(supplied)?.merge_into(current)).await?);
    }
    if let Some(ext) = input.extensions_preferences {
        row.extensions_preferences = Set(check_extensions(&ext)?);
    }
    row.updated_at = Set(crate::db::now());
    row.update(db).await?;
    Ok(())
}

pub async fn default_pipeline(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
) -> ApiResult<Option<pipeline::Model>> {
    Ok(pipeline::Entity::find()
        .filter(pipeline::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .filter(pipeline::Column::IsDefault.eq(true))
        .one(db)
        .await?)
}

/// Makes `uuid` the default, atomically taking the flag from the previous one.
pub async fn set_default(
    db: &(impl ConnectionTrait + TransactionTrait),
    ws: &WorkspaceCtx,
    uuid: &Uuid,
) -> ApiResult<pipeline::Model> {
    let txn = db.begin().await?;
    let row = get(&txn, ws, uuid).await?;
    pipeline::Entity::update_many()
        .col_expr(pipeline::Column::IsDefault, Expr::value(false))
        .filter(pipeline::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .filter(pipeline::Column::IsDefault.eq(true))
        .exec(&txn)
        .await?;
    let mut active: pipeline::ActiveModel = row.into();
    active.is_default = Set(true);
    active.updated_at = Set(crate::db::now());
    let row = active.update(&txn).await?;
    txn.commit().await?;
    Ok(row)
}

/// Copies a pipeline (never the default flag).
pub async fn copy(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    uuid: &Uuid,
) -> ApiResult<pipeline::Model> {
    let src = get(db, ws, uuid).await?;
    let name: String = format!("{} (Copy)", src.name).chars().take(255).collect();
    let new = NewPipeline {
        name: &name,
        description: &src.description,
        emoji: &src.emoji,
        config: src.config,
        extensions: src.extensions_preferences,
        is_default: false,
    };
    insert(db, ws, new).await
}

/// The pipeline bot routes should target by default: the default one, else the oldest, else a
/// new default pipeline (concurrent callers all end up with the same one).
pub async fn pipeline_for_default_routes(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
) -> ApiResult<pipeline::Model> {
    for _ in 0..3 {
        if let Some(p) = default_pipeline(db, ws).await? {
            return Ok(p);
        }
        let oldest = pipeline::Entity::find()
            .filter(pipeline::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
            .order_by_asc(pipeline::Column::CreatedAt)
            .order_by_asc(pipeline::Column::Uuid)
            .one(db)
            .await?;
        if let Some(p) = oldest {
            return Ok(p);
        }
        let config = normalize(db, ws, &template(db, ws).await?).await?;
        let ext =
            serde_json::to_value(ExtensionsPreferences::default()).map_err(ApiError::internal)?;
        let new = NewPipeline {
            name: "New Pipeline",
            description: "",
            emoji: "⚙️",
            config,
            extensions: ext,
            is_default: true,
        };
        match insert(db, ws, new).await {
            Ok(p) => return Ok(p),
            // Another request created the default first: use theirs.
            Err(e) if e.code == ErrorCode::DefaultPipelineExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(ApiError::conflict(
        "Could not settle the default pipeline; retry",
    ))
}

/// Deletes a pipeline. While routes target it: 409, or with `cascade` those routes go too, in
/// the same transaction.
pub async fn delete(
    db: &(impl ConnectionTrait + TransactionTrait),
    ws: &WorkspaceCtx,
    uuid: &Uuid,
    cascade: bool,
) -> ApiResult<(Vec<RoutingBot>, Option<PipelineRef>)> {
    let txn = db.begin().await?;
    let row = get(&txn, ws, uuid).await?;
    let routing = crate::bots::service::routes_targeting(&txn, ws, &row.uuid).await?;
    if !routing.is_empty() && !cascade {
        let details = json!({ "bots": routing.iter().map(|b| json!({ "bot_uuid": b.bot_uuid, "bot_name": b.bot_name, "route_ids": b.route_ids })).collect::<Vec<_>>() });
        return Err(ApiError::new(ErrorCode::PipelineInUse)
            .msg(format!("The pipeline is the target of routes of {} bot(s); remove them or use cascade=true", routing.len()))
            .details(details));
    }
    if !routing.is_empty() {
        crate::bots::service::remove_routes_targeting(&txn, ws, &row.uuid).await?;
    }
    pipeline::Entity::delete_by_id(row.uuid.clone())
        .exec(&txn)
        .await?;
    // The default moves to the oldest remaining pipeline, in the same transaction, so the
    // Workspace never keeps a dangling default (SPEC §16).
    let mut new_default = None;
    if row.is_default {
        let oldest = pipeline::Entity::find()
            .filter(pipeline::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
            .order_by_asc(pipeline::Column::CreatedAt)
            .order_by_asc(pipeline::Column::Uuid)
            .one(&txn)
            .await?;
        if let Some(oldest) = oldest {
            let mut active: pipeline::ActiveModel = oldest.into();
            active.is_default = Set(true);
            active.updated_at = Set(crate::db::now());
            let promoted = active.update(&txn).await?;
            new_default = Some(PipelineRef {
                uuid: promoted.uuid,
                name: promoted.name,
            });
        }
    }
    txn.commit().await?;
    Ok((routing, new_default))
}

/// Pipelines whose model selection names one of `models`.
pub async fn referencing_models(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    models: &[model::Model],
) -> ApiResult<Vec<PipelineRef>> {
    if models.is_empty() {
        return Ok(Vec::new());
    }
    let uuids: Vec<&str> = models.iter().map(|m| m.uuid.as_str()).collect();
    let rows = pipeline::Entity::find()
        .filter(pipeline::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .order_by_asc(pipeline::Column::CreatedAt)
        .all(db)
        .await?;
    Ok(rows
        .into_iter()
        .filter(|p| {
            let config: PipelineConfig =
                serde_json::from_value(p.config.clone()).unwrap_or_default();
            let c = &config.ai.runner_config;
            let uses = [&c.local_agent, &c.langbot_local_agent]
                .into_iter()
                .flatten()
                .any(|agent| {
                    let sel = &agent.model;
                    uuids.contains(&sel.primary.as_str())
                        || sel.fallbacks.iter().any(|f| uuids.contains(&f.as_str()))
                });
            uses
        })
        .map(|p| PipelineRef {
            uuid: p.uuid,
            name: p.name,
        })
        .collect())
}
