//! Model storage and rules (LLM, embedding, rerank), the starred model, and model tests.

use std::collections::HashMap;
use std::time::Instant;

use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder, TransactionTrait,
};
use serde_json::{json, Map, Value};
use uuid::Uuid;

use super::dto::{ModelDto, ModelInput, PipelineRef, Provider, ReasoningCapabilities};
use super::requesters::{self, ModelKind};
use super::service;
use crate::access::WorkspaceCtx;
use crate::catalog::Name;
use crate::entities::{model, provider};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::forms::secrets;
use crate::llm::{self, ChatMessage, ChatRequest};

pub const STARRED_KEY: &str = "starred_llm_model";
const ABILITIES: &[&str] = &["func_call", "vision", "reasoning"];
use crate::llm::reasoning::LEVELS;

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn capabilities(abilities: &[String]) -> ReasoningCapabilities {
    let supported = abilities.iter().any(|a| a == "reasoning");
    ReasoningCapabilities {
        supported,
        levels: llm::reasoning::levels_for(supported),
        source: "manual",
    }
}

pub fn to_dto(row: model::Model, provider: Option<Provider>, reveal: bool) -> ModelDto {
    let llm = row.kind == ModelKind::Llm;
    let abilities = strings(&row.abilities);
    ModelDto {
        uuid: row.uuid,
        workspace_uuid: row.workspace_uuid,
        name: row.name,
        provider_uuid: row.provider_uuid,
        reasoning_capabilities: llm.then(|| capabilities(&abilities)),
        abilities: llm.then_some(abilities),
        context_length: if llm { row.context_length } else { None },
        reasoning_config: llm.then_some(row.reasoning_config),
        extra_args: if reveal {
            row.extra_args
        } else {
            secrets::redact(&row.extra_args)
        },
        prefered_ranking: row.prefered_ranking,
        created_at: row.created_at,
        updated_at: row.updated_at,
        provider: provider.map(Box::new),
    }
}

pub async fn list(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    kind: ModelKind,
    provider: Option<&Uuid>,
) -> ApiResult<Vec<model::Model>> {
    let mut query = model::Entity::find()
        .filter(model::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .filter(model::Column::Kind.eq(kind));
    if let Some(p) = provider {
        query = query.filter(model::Column::ProviderUuid.eq(p.to_string()));
    }
    Ok(query
        .order_by_asc(model::Column::CreatedAt)
        .order_by_asc(model::Column::Uuid)
        .all(db)
        .await?)
}

/// A model of this kind in this Workspace, else 404.
pub async fn get(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    kind: ModelKind,
    uuid: &Uuid,
) -> ApiResult<model::Model> {
    model::Entity::find_by_id(uuid.to_string())
        .filter(model::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .filter(model::Column::Kind.eq(kind))
        .one(db)
        .await?
        .ok_or_else(ApiError::not_found)
}

/// Providers of this Workspace by uuid, for embedding into model responses.
pub async fn providers_by_uuid(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
) -> ApiResult<HashMap<String, provider::Model>> {
    Ok(service::list(db, ws)
        .await?
        .into_iter()
        .map(|p| (p.uuid.clone(), p))
        .collect())
}

fn check_abilities(abilities: &[String]) -> ApiResult<()> {
    if let Some(bad) = abilities.iter().find(|a| !ABILITIES.contains(&a.as_str())) {
        return Err(ApiError::invalid(format!("Unknown ability: {bad}"))
            .field("abilities", "must be func_call, vision or reasoning"));
    }
    Ok(())
}

/// Normalizes `{"level": L}` / `{"budget_tokens": N}` and checks it against the abilities.
fn check_reasoning(config: &Value, abilities: &[String]) -> ApiResult<Value> {
    let invalid = |why: String| ApiError::invalid(why.clone()).field("reasoning_config", why);
    let Some(map) = config.as_object() else {
        return Err(invalid("reasoning_config must be an object".into()));
    };
    if let Some(extra) = map.keys().find(|k| *k != "level" && *k != "budget_tokens") {
        return Err(invalid(format!(
            "Unsupported reasoning_config field: {extra}"
        )));
    }
    let budget = match map.get("budget_tokens") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .filter(|n| *n > 0 && !v.is_boolean())
                .ok_or_else(|| invalid("budget_tokens must be a positive integer".into()))?,
        ),
    };
    let level = match map.get("level") {
        None | Some(Value::Null) => {
            if budget.is_some() {
                "enabled"
            } else {
                "provider_default"
            }
        }
        Some(Value::String(l)) if LEVELS.contains(&l.as_str()) => l.as_str(),
        Some(other) => return Err(invalid(format!("Unsupported reasoning level: {other}"))),
    };
    if budget.is_some() && level != "enabled" {
        return Err(invalid("budget_tokens requires level enabled".into()));
    }
    if level != "provider_default" && !abilities.iter().any(|a| a == "reasoning") {
        return Err(invalid(
            "The reasoning ability must be enabled before selecting a reasoning level".into(),
        ));
    }
    Ok(match budget {
        Some(n) => json!({ "level": level, "budget_tokens": n }),
        None => json!({ "level": level }),
    })
}

fn check_extra_args(value: &Value) -> ApiResult<()> {
    if !value.is_object() {
        return Err(ApiError::invalid("extra_args must be an object")
            .field("extra_args", "must be an object"));
    }
    if value.to_string().len() > 64 * 1024 {
        return Err(ApiError::invalid("extra_args is too large")
            .field("extra_args", "must be at most 64 KiB"));
    }
    Ok(())
}

fn llm_only(kind: ModelKind, input: &ModelInput) -> ApiResult<()> {
    if kind != ModelKind::Llm {
        for (field, present) in [
            ("abilities", input.abilities.is_some()),
            ("context_length", input.context_length.is_some()),
            ("reasoning_config", input.reasoning_config.is_some()),
        ] {
            if present {
                return Err(
                    ApiError::invalid(format!("{field} applies to LLM models only"))
                        .field(field, "applies to LLM models only"),
                );
            }
        }
    }
    Ok(())
}

async fn provider_for(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    kind: ModelKind,
    uuid: &Uuid,
) -> ApiResult<provider::Model> {
    let provider = service::get(db, ws, uuid).await.map_err(|_| {
        ApiError::invalid("The provider does not exist in this Workspace")
            .field("provider_uuid", "no such provider")
    })?;
    let requester = requesters::require(&provider.requester)?;
    if !requester.supports(kind) {
        return Err(ApiError::invalid(format!(
            "Provider {} does not support {} models",
            provider.requester,
            kind.as_str()
        ))
        .field(
            "provider_uuid",
            format!("does not support {} models", kind.as_str()),
        ));
    }
    Ok(provider)
}

pub async fn create(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    kind: ModelKind,
    input: ModelInput,
) -> ApiResult<model::Model> {
    llm_only(kind, &input)?;
    let name = input
        .name
        .as_ref()
        .map(Name::as_str)
        .ok_or_else(|| ApiError::invalid("name is required").field("name", "is required"))?;
    let provider_uuid = input.provider_uuid.ok_or_else(|| {
        ApiError::invalid("provider_uuid is required").field("provider_uuid", "is required")
    })?;
    let provider = provider_for(db, ws, kind, &provider_uuid).await?;
    let abilities = input.abilities.unwrap_or_default();
    check_abilities(&abilities)?;
    let reasoning = check_reasoning(
        &input.reasoning_config.unwrap_or_else(|| json!({})),
        &abilities,
    )?;
    let extra_args = secrets::restore_sensitive(
        &input.extra_args.unwrap_or_else(|| json!({})),
        None,
        "extra_args",
    )?;
    check_extra_args(&extra_args)?;
    let now = crate::db::now();
    let row = model::Model {
        uuid: Uuid::new_v4().to_string(),
        workspace_uuid: ws.uuid.to_string(),
        provider_uuid: provider.uuid,
        kind,
        name: name.to_string(),
        abilities: json!(abilities),
        context_length: input.context_length,
        reasoning_config: reasoning,
        extra_args,
        prefered_ranking: input.prefered_ranking.unwrap_or(0),
        created_at: now,
        updated_at: now,
    };
    // Without reading back: a concurrent provider delete must not turn into a 500.
    model::Entity::insert(model::ActiveModel::from(row.clone()))
        .exec_without_returning(db)
        .await
        .map_err(|e| match ApiError::from(e) {
            e if e.code == ErrorCode::Conflict => {
                ApiError::invalid("The provider does not exist in this Workspace")
                    .field("provider_uuid", "no such provider")
            }
            e => e,
        })?;
    Ok(row)
}

pub async fn update(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    kind: ModelKind,
    uuid: &Uuid,
    input: ModelInput,
) -> ApiResult<()> {
    llm_only(kind, &input)?;
    let stored = get(db, ws, kind, uuid).await?;
    let mut row: model::ActiveModel = stored.clone().into();
    if let Some(name) = &input.name {
        row.name = Set(name.to_string());
    }
    if let Some(p) = &input.provider_uuid {
        row.provider_uuid = Set(provider_for(db, ws, kind, p).await?.uuid);
    }
    let abilities = match input.abilities {
        Some(a) => {
            check_abilities(&a)?;
            row.abilities = Set(json!(a));
            a
        }
        None => strings(&stored.abilities),
    };
    let reasoning = input
        .reasoning_config
        .unwrap_or(stored.reasoning_config.clone());
    row.reasoning_config = Set(if kind == ModelKind::Llm {
        check_reasoning(&reasoning, &abilities)?
    } else {
        reasoning
    });
    if input.context_length.is_some() {
        row.context_length = Set(input.context_length);
    }
    if let Some(extra) = input.extra_args {
        let restored = secrets::restore_sensitive(&extra, Some(&stored.extra_args), "extra_args")?;
        check_extra_args(&restored)?;
        row.extra_args = Set(restored);
    }
    if let Some(rank) = input.prefered_ranking {
        row.prefered_ranking = Set(rank);
    }
    row.updated_at = Set(crate::db::now());
    row.update(db).await?;
    Ok(())
}

/// Deletes a model and, in the same transaction, a star on it.
pub async fn delete(
    db: &(impl ConnectionTrait + TransactionTrait),
    ws: &WorkspaceCtx,
    kind: ModelKind,
    uuid: &Uuid,
) -> ApiResult<()> {
    let txn = db.begin().await?;
    let row = get(&txn, ws, kind, uuid).await?;
    model::Entity::delete_by_id(row.uuid.clone())
        .exec(&txn)
        .await?;
    clear_star_if(&txn, ws, &[row.uuid]).await?;
    txn.commit().await?;
    Ok(())
}

/// Clears the starred model when it is one of `deleted`; true when it was.
pub async fn clear_star_if(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    deleted: &[String],
) -> ApiResult<bool> {
    let starred = crate::workspaces::service::setting(db, &ws.uuid, STARRED_KEY).await?;
    match starred {
        Some(s) if deleted.contains(&s) => {
            crate::workspaces::service::set_setting(db, &ws.uuid, STARRED_KEY, None).await?;
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// Pipelines whose configuration names one of `models`.
pub async fn referencing_pipelines(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    models: &[model::Model],
) -> ApiResult<Vec<PipelineRef>> {
    crate::pipelines::service::referencing_models(db, ws, models).await
}

/// The starred LLM model, if it still exists in this Workspace.
pub async fn starred(db: &impl ConnectionTrait, ws: &WorkspaceCtx) -> ApiResult<Option<String>> {
    let Some(value) = crate::workspaces::service::setting(db, &ws.uuid, STARRED_KEY).await? else {
        return Ok(None);
    };
    let Ok(uuid) = Uuid::parse_str(&value) else {
        return Ok(None);
    };
    Ok(get(db, ws, ModelKind::Llm, &uuid)
        .await
        .ok()
        .map(|m| m.uuid))
}

/// Stars an LLM model of this Workspace (`None` clears); anything else is a 400.
pub async fn set_starred(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    uuid: Option<&str>,
) -> ApiResult<Option<String>> {
    let Some(raw) = uuid.map(str::trim).filter(|s| !s.is_empty()) else {
        crate::workspaces::service::set_setting(db, &ws.uuid, STARRED_KEY, None).await?;
        return Ok(None);
    };
    let not_found = || {
        ApiError::invalid("Model not found in this Workspace")
            .field("uuid", "is not an LLM model of this Workspace")
    };
    let parsed = Uuid::parse_str(raw).map_err(|_| not_found())?;
    let model = get(db, ws, ModelKind::Llm, &parsed)
        .await
        .map_err(|_| not_found())?;
    crate::workspaces::service::set_setting(db, &ws.uuid, STARRED_KEY, Some(&model.uuid)).await?;
    Ok(Some(model.uuid))
}

/// Calls the model once through its provider; the latency on success, 502 otherwise.
pub async fn test(
    http: &reqwest::Client,
    provider: &provider::Model,
    row: &model::Model,
    extra: Option<Map<String, Value>>,
) -> ApiResult<u64> {
    let ep = service::endpoint(provider);
    let mut args: Map<String, Value> = row.extra_args.as_object().cloned().unwrap_or_default();
    args.extend(extra.unwrap_or_default());
    let started = Instant::now();
    let result = match row.kind {
        ModelKind::Embedding => {
            llm::embed(http, &ep, &row.name, &["Hello, world!".to_string()], &args)
                .await
                .map(|_| ())
        }
        ModelKind::Rerank => {
            let docs = [
                "Artificial intelligence is the simulation of human intelligence by machines."
                    .to_string(),
                "The weather is sunny today.".to_string(),
            ];
            llm::rerank(
                http,
                &ep,
                &row.name,
                "What is artificial intelligence?",
                &docs,
                &args,
            )
            .await
            .map(|_| ())
        }
        ModelKind::Llm => {
            let req = ChatRequest {
                model: row.name.clone(),
                messages: vec![ChatMessage::text(
                    "user",
                    "Hello, world! Please just reply a \"Hello\".",
                )],
                tools: Vec::new(),
                extra: args,
            };
            llm::chat(http, &ep, &req).await.map(|_| ())
        }
    };
    match result {
        Ok(()) => Ok(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)),
        Err(e) => {
            let message = secrets::scrub(&e.message, &service::secrets_of(provider));
            Err(ApiError::new(ErrorCode::ModelTestFailed)
                .msg(format!("Model request failed: {message}"))
                .details(json!({ "upstream_status": e.status, "upstream_code": e.code.as_str(), "message": message })))
        }
    }
}
