//! API key storage. Every query over a Workspace's keys takes its `WorkspaceCtx`.

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder,
};
use uuid::Uuid;

pub use crate::access::lookup::scopes_of;
use crate::access::secrets;
use crate::access::{Permission, PermissionSet, WorkspaceCtx};
use crate::entities::api_key;
use crate::error::{ApiError, ApiResult};

pub async fn list(db: &impl ConnectionTrait, ws: &WorkspaceCtx) -> ApiResult<Vec<api_key::Model>> {
    Ok(api_key::Entity::find()
        .filter(api_key::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .order_by_asc(api_key::Column::CreatedAt)
        .order_by_asc(api_key::Column::Id)
        .all(db)
        .await?)
}

/// A key of this Workspace, else 404.
pub async fn get(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    id: i64,
) -> ApiResult<api_key::Model> {
    let id = i32::try_from(id).map_err(|_| ApiError::not_found())?;
    api_key::Entity::find_by_id(id)
        .filter(api_key::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .one(db)
        .await?
        .ok_or_else(ApiError::not_found)
}

/// What a new key is made of.
pub struct NewKey {
    pub name: String,
    pub description: String,
    pub scopes: PermissionSet,
    pub expires_at: Option<DateTime<Utc>>,
}

/// Stores a key; returns the row and the secret (the only time it exists in clear).
pub async fn create(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    created_by: &Uuid,
    new: NewKey,
) -> ApiResult<(api_key::Model, String)> {
    let secret = secrets::generate(secrets::API_KEY_PREFIX);
    let now = crate::db::now();
    let scopes: Vec<&str> = new
        .scopes
        .to_vec()
        .into_iter()
        .map(Permission::as_str)
        .collect();
    let row = api_key::ActiveModel {
        uuid: Set(Uuid::new_v4().to_string()),
        workspace_uuid: Set(ws.uuid.to_string()),
        created_by_account_uuid: Set(Some(created_by.to_string())),
        name: Set(new.name),
        description: Set(new.description),
        key_hash: Set(secrets::hash(&secret)),
        scopes: Set(serde_json::json!(scopes)),
        status: Set("active".into()),
        expires_at: Set(new.expires_at),
        last_used_at: Set(None),
        revoked_at: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    }
    .insert(db)
    .await?;
    Ok((row, secret))
}

pub async fn update(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    id: i64,
    name: Option<String>,
    description: Option<String>,
) -> ApiResult<()> {
    let row = get(db, ws, id).await?;
    if name.is_none() && description.is_none() {
        return Ok(());
    }
    let mut model: api_key::ActiveModel = row.into();
    if let Some(name) = name {
        model.name = Set(name);
    }
    if let Some(description) = description {
        model.description = Set(description);
    }
    model.updated_at = Set(crate::db::now());
    model.update(db).await?;
    Ok(())
}

/// Revokes a key (idempotent); it stays listed as revoked.
pub async fn revoke(db: &impl ConnectionTrait, ws: &WorkspaceCtx, id: i64) -> ApiResult<()> {
    let row = get(db, ws, id).await?;
    if row.status == "revoked" {
        return Ok(());
    }
    let mut model: api_key::ActiveModel = row.into();
    model.status = Set("revoked".into());
    model.revoked_at = Set(Some(crate::db::now()));
    model.updated_at = Set(crate::db::now());
    model.update(db).await?;
    Ok(())
}
