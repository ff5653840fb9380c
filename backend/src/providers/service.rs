//! Provider storage and rules: validation against the requester, secrets, cascade delete.
//! Every query takes the caller's `WorkspaceCtx`.

use std::collections::HashMap;
use std::time::Duration;

use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect, TransactionTrait,
};
use serde_json::{json, Value};
use uuid::Uuid;

use super::dto::{CreateProvider, DeleteReport, DeletedModels, Provider, UpdateProvider};
use super::requesters::{self, ModelKind, DEFAULT_TIMEOUT_SECS};
use crate::access::{Permission, WorkspaceCtx};
use crate::entities::{model, provider};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::forms::secrets::{self, MASK};
use crate::llm::Endpoint;

/// Whether this caller sees secrets: `provider_secret.manage`, unless `include_secret=false`
/// or the transport never shows secrets (MCP).
pub fn reveal(ctx: &crate::access::RequestCtx, include_secret: Option<bool>) -> bool {
    !ctx.conceal_secrets
        && include_secret != Some(false)
        && ctx
            .workspace
            .as_ref()
            .is_some_and(|ws| ws.permissions.contains(Permission::ProviderSecretManage))
}

fn keys_of(row: &provider::Model) -> Vec<String> {
    row.api_keys
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Model counts per kind for the given providers.
pub async fn counts(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
) -> ApiResult<HashMap<String, [u64; 3]>> {
    let rows: Vec<(String, String, i64)> = model::Entity::find()
        .select_only()
        .column(model::Column::ProviderUuid)
        .column(model::Column::Kind)
        .column_as(model::Column::Uuid.count(), "n")
        .filter(model::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .group_by(model::Column::ProviderUuid)
        .group_by(model::Column::Kind)
        .into_tuple()
        .all(db)
        .await?;
    let mut out: HashMap<String, [u64; 3]> = HashMap::new();
    for (provider, kind, n) in rows {
        let slot = match ModelKind::parse(&kind) {
            Some(ModelKind::Llm) => 0,
            Some(ModelKind::Embedding) => 1,
            Some(ModelKind::Rerank) => 2,
            None => continue,
        };
        out.entry(provider).or_default()[slot] = u64::try_from(n).unwrap_or(0);
    }
    Ok(out)
}

pub fn to_dto(row: provider::Model, counts: Option<[u64; 3]>, reveal: bool) -> Provider {
    let keys = keys_of(&row);
    let mut config = row.config;
    if !reveal {
        if let Some(requester) = requesters::find(&row.requester) {
            for field in requester.secret_fields() {
                if let Some(v) = config.get_mut(field) {
                    *v = secrets::mask_value(v);
                }
            }
        }
    }
    Provider {
        uuid: row.uuid,
        workspace_uuid: row.workspace_uuid,
        name: row.name,
        requester: row.requester,
        base_url: if reveal {
            row.base_url
        } else {
            secrets::redact_url(&row.base_url)
        },
        api_keys: if reveal {
            keys
        } else {
            keys.iter().map(|_| MASK.to_string()).collect()
        },
        config,
        created_at: row.created_at,
        updated_at: row.updated_at,
        llm_count: counts.map(|c| c[0]),
        embedding_count: counts.map(|c| c[1]),
        rerank_count: counts.map(|c| c[2]),
    }
}

pub async fn list(db: &impl ConnectionTrait, ws: &WorkspaceCtx) -> ApiResult<Vec<provider::Model>> {
    Ok(provider::Entity::find()
        .filter(provider::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .order_by_asc(provider::Column::CreatedAt)
        .order_by_asc(provider::Column::Uuid)
        .all(db)
        .await?)
}

/// A provider of this Workspace, else 404.
pub async fn get(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    uuid: &Uuid,
) -> ApiResult<provider::Model> {
    provider::Entity::find_by_id(uuid.to_string())
        .filter(provider::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .one(db)
        .await?
        .ok_or_else(ApiError::not_found)
}

/// Trimmed, non-empty, de-duplicated keys; `***` needs a stored key at the same position.
fn normalize_keys(submitted: &[String], stored: &[String]) -> ApiResult<Vec<String>> {
    let restored = secrets::restore_secret(&json!(submitted), Some(&json!(stored)), "api_keys")?;
    let mut out: Vec<String> = Vec::new();
    for key in restored
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let key = key.trim();
        if key.len() > 1024 {
            return Err(ApiError::invalid("An API key is too long")
                .field("api_keys", "each key must be at most 1024 characters"));
        }
        if !key.is_empty() && !out.iter().any(|k| k == key) {
            out.push(key.to_string());
        }
    }
    Ok(out)
}

fn restore_config(
    requester: &requesters::Requester,
    submitted: &Value,
    stored: Option<&Value>,
) -> ApiResult<Value> {
    let Some(map) = submitted.as_object() else {
        return Err(
            ApiError::invalid("config must be an object").field("config", "must be an object")
        );
    };
    let mut out = map.clone();
    for field in requester.secret_fields() {
        if let Some(v) = map.get(field) {
            let path = format!("config.{field}");
            out.insert(
                field.into(),
                secrets::restore_secret(v, stored.and_then(|s| s.get(field)), &path)?,
            );
        }
    }
    Ok(Value::Object(out))
}

pub async fn create(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    input: CreateProvider,
) -> ApiResult<provider::Model> {
    let requester = requesters::require(&input.requester)?;
    let base_url = requesters::validate_base_url(&input.base_url)?;
    let config = restore_config(&requester, &input.config.unwrap_or_else(|| json!({})), None)?;
    let config = requester.validate_config(&config)?;
    let name = input.name.as_str();
    let now = crate::db::now();
    let row = provider::ActiveModel {
        uuid: Set(Uuid::new_v4().to_string()),
        workspace_uuid: Set(ws.uuid.to_string()),
        name: Set(name.to_string()),
        requester: Set(requester.name.to_string()),
        base_url: Set(base_url),
        api_keys: Set(json!(normalize_keys(&input.api_keys, &[])?)),
        config: Set(config),
        created_at: Set(now),
        updated_at: Set(now),
    };
    Ok(row.insert(db).await?)
}

pub async fn update(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    uuid: &Uuid,
    input: UpdateProvider,
) -> ApiResult<()> {
    let stored = get(db, ws, uuid).await?;
    let requester = requesters::require(input.requester.as_deref().unwrap_or(&stored.requester))?;
    let stored_keys = keys_of(&stored);
    let mut row: provider::ActiveModel = stored.clone().into();
    if let Some(name) = input.name {
        let name = name.into_inner();
        row.name = Set(name);
    }
    if input.requester.is_some() {
        let models = model::Entity::find()
            .filter(model::Column::ProviderUuid.eq(stored.uuid.clone()))
            .all(db)
            .await?;
        if let Some(m) = models.iter().find(|m| !requester.supports(m.kind)) {
            return Err(ApiError::invalid(format!(
                "Requester {} does not support the provider's {} models",
                requester.name,
                m.kind.as_str()
            ))
            .field("requester", "does not support the provider's models"));
        }
        row.requester = Set(requester.name.to_string());
    }
    if let Some(base_url) = input.base_url {
        row.base_url = Set(requesters::validate_base_url(&base_url)?);
    }
    if let Some(keys) = input.api_keys {
        row.api_keys = Set(json!(normalize_keys(&keys, &stored_keys)?));
    }
    match input.config {
        Some(config) => {
            let restored = restore_config(&requester, &config, Some(&stored.config))?;
            row.config = Set(requester.validate_config(&restored)?);
        }
        None => {
            row.config = Set(requester.validate_config(&strip_unknown(&requester, &stored.config))?)
        }
    }
    row.updated_at = Set(crate::db::now());
    row.update(db).await?;
    Ok(())
}

/// Keeps only the fields the (possibly new) requester knows.
fn strip_unknown(requester: &requesters::Requester, config: &Value) -> Value {
    let known: Vec<&str> = requester.spec.config.iter().map(|f| f.name).collect();
    Value::Object(
        config
            .as_object()
            .map(|m| {
                m.iter()
                    .filter(|(k, _)| known.contains(&k.as_str()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default(),
    )
}

/// Deletes a provider. Without `cascade` it refuses while models exist (409 with the counts);
/// with it, the models go too, in the same transaction, and a star on one of them is cleared.
pub async fn delete(
    db: &(impl ConnectionTrait + TransactionTrait),
    ws: &WorkspaceCtx,
    uuid: &Uuid,
    cascade: bool,
) -> ApiResult<DeleteReport> {
    let txn = db.begin().await?;
    // Take the provider first so concurrent model creations wait (PostgreSQL: row lock;
    // SQLite: the write lock, taken by a first write).
    let row = match txn.get_database_backend() {
        sea_orm::DatabaseBackend::Postgres => provider::Entity::find_by_id(uuid.to_string())
            .filter(provider::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
            .lock_exclusive()
            .one(&txn)
            .await?
            .ok_or_else(ApiError::not_found)?,
        _ => {
            provider::Entity::update_many()
                .col_expr(
                    provider::Column::UpdatedAt,
                    sea_orm::sea_query::Expr::col(provider::Column::UpdatedAt).into(),
                )
                .filter(provider::Column::Uuid.eq(uuid.to_string()))
                .filter(provider::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
                .exec(&txn)
                .await?;
            get(&txn, ws, uuid).await?
        }
    };
    let models = model::Entity::find()
        .filter(model::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .filter(model::Column::ProviderUuid.eq(row.uuid.clone()))
        .order_by_asc(model::Column::CreatedAt)
        .order_by_asc(model::Column::Uuid)
        .all(&txn)
        .await?;
    let of_kind = |kind: ModelKind| -> Vec<String> {
        models
            .iter()
            .filter(|m| m.kind == kind)
            .map(|m| m.uuid.clone())
            .collect()
    };
    let (llm, embedding, rerank) = (
        of_kind(ModelKind::Llm),
        of_kind(ModelKind::Embedding),
        of_kind(ModelKind::Rerank),
    );
    if !cascade && !models.is_empty() {
        return Err(ApiError::new(ErrorCode::ProviderHasModels)
            .msg(format!(
                "The provider still has {} LLM, {} embedding and {} rerank models; delete them or use cascade=true",
                llm.len(),
                embedding.len(),
                rerank.len()
            ))
            .details(json!({ "llm": llm.len(), "embedding": embedding.len(), "rerank": rerank.len() })));
    }
    model::Entity::delete_many()
        .filter(model::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .filter(model::Column::ProviderUuid.eq(row.uuid.clone()))
        .exec(&txn)
        .await?;
    let starred_cleared = super::models::clear_star_if(&txn, ws, &llm).await?;
    let referencing_pipelines = super::models::referencing_pipelines(&txn, ws, &models).await?;
    provider::Entity::delete_by_id(row.uuid.clone())
        .exec(&txn)
        .await?;
    txn.commit().await?;
    Ok(DeleteReport {
        deleted: DeletedModels {
            provider: row.uuid,
            llm,
            embedding,
            rerank,
        },
        starred_cleared,
        referencing_pipelines,
    })
}

/// How to call a provider: base URL, its first key, its timeout, its requester's protocol.
pub fn endpoint(row: &provider::Model) -> Endpoint {
    let timeout = row.config["timeout"]
        .as_u64()
        .unwrap_or(DEFAULT_TIMEOUT_SECS);
    Endpoint {
        base_url: row.base_url.clone(),
        api_key: keys_of(row).into_iter().next(),
        timeout: Duration::from_secs(timeout),
        protocol: crate::llm::Protocol::of_requester(&row.requester),
    }
}

/// The provider's secrets, to scrub from upstream messages.
pub fn secrets_of(row: &provider::Model) -> Vec<String> {
    keys_of(row)
}
