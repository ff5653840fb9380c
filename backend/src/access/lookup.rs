//! The database reads authentication needs: memberships, roles, API keys, the Workspace
//! language. Resources reuse them; they are here because the access layer sits below
//! every resource.

use std::collections::HashMap;
use std::str::FromStr;
use std::time::Duration;

use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
};
use uuid::Uuid;

use super::{Permission, PermissionSet, Role};
use crate::entities::{api_key, membership, workspace, workspace_metadata};
use crate::error::{ApiError, ApiResult};
use crate::i18n::Language;

/// The Workspace setting holding its message language.
pub const LANGUAGE_KEY: &str = "message_language";

/// The account's active memberships in active Workspaces, first created first.
pub async fn active_memberships(
    db: &impl ConnectionTrait,
    account: &Uuid,
) -> ApiResult<Vec<(workspace::Model, Role)>> {
    let rows = membership::Entity::find()
        .filter(membership::Column::AccountUuid.eq(account.to_string()))
        .filter(membership::Column::Status.eq("active"))
        .all(db)
        .await?;
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let roles: HashMap<String, Role> = rows
        .into_iter()
        .filter_map(|m| Role::parse(&m.role).map(|r| (m.workspace_uuid, r)))
        .collect();
    let workspaces = workspace::Entity::find()
        .filter(workspace::Column::Uuid.is_in(roles.keys().cloned()))
        .filter(workspace::Column::Status.eq("active"))
        .order_by_asc(workspace::Column::CreatedAt)
        .order_by_asc(workspace::Column::Uuid)
        .all(db)
        .await?;
    Ok(workspaces
        .into_iter()
        .filter_map(|w| roles.get(&w.uuid).map(|r| (w.clone(), *r)))
        .collect())
}

/// The account's active role in the Workspace, if any.
pub async fn role_of(
    db: &impl ConnectionTrait,
    ws: &Uuid,
    account: &Uuid,
) -> ApiResult<Option<Role>> {
    let row = membership::Entity::find()
        .filter(membership::Column::WorkspaceUuid.eq(ws.to_string()))
        .filter(membership::Column::AccountUuid.eq(account.to_string()))
        .filter(membership::Column::Status.eq("active"))
        .one(db)
        .await?;
    Ok(row.and_then(|m| Role::parse(&m.role)))
}

/// The one Workspace of the instance, or `None` when there are none or several.
pub async fn sole_workspace(db: &impl ConnectionTrait) -> ApiResult<Option<Uuid>> {
    let rows = workspace::Entity::find()
        .filter(workspace::Column::Status.eq("active"))
        .paginate(db, 2)
        .fetch_page(0)
        .await?;
    match rows.as_slice() {
        [only] => Ok(Uuid::from_str(&only.uuid).ok()),
        _ => Ok(None),
    }
}

/// A Workspace setting.
pub async fn setting(db: &impl ConnectionTrait, ws: &Uuid, key: &str) -> ApiResult<Option<String>> {
    Ok(
        workspace_metadata::Entity::find_by_id((ws.to_string(), key.to_string()))
            .one(db)
            .await?
            .and_then(|r| r.value),
    )
}

/// The Workspace's message language (English when unset).
pub async fn language(db: &impl ConnectionTrait, ws: &Uuid) -> ApiResult<Language> {
    Ok(setting(db, ws, LANGUAGE_KEY)
        .await?
        .and_then(|v| Language::parse(&v))
        .unwrap_or_default())
}

/// The scopes stored on a key (`*` means all).
pub fn scopes_of(row: &api_key::Model) -> PermissionSet {
    let names = row.scopes.as_array().cloned().unwrap_or_default();
    if names.iter().any(|n| n == "*") {
        return PermissionSet::all();
    }
    names
        .iter()
        .filter_map(|n| n.as_str().and_then(Permission::parse))
        .collect()
}

/// An active key by the hash of its secret (authentication; no Workspace context yet).
pub async fn active_key_by_hash(
    db: &impl ConnectionTrait,
    hash: &str,
) -> ApiResult<Option<api_key::Model>> {
    Ok(api_key::Entity::find()
        .filter(api_key::Column::KeyHash.eq(hash))
        .filter(api_key::Column::Status.eq("active"))
        .one(db)
        .await?)
}

/// Records a use unless one was recorded within `interval` (by any replica).
pub async fn touch_last_used(
    db: &impl ConnectionTrait,
    key_id: i32,
    interval: Duration,
) -> ApiResult<()> {
    let now = crate::db::now();
    let cutoff = now - chrono::Duration::from_std(interval).map_err(ApiError::internal)?;
    api_key::Entity::update_many()
        .col_expr(api_key::Column::LastUsedAt, Expr::value(now))
        .filter(api_key::Column::Id.eq(key_id))
        .filter(
            Condition::any()
                .add(api_key::Column::LastUsedAt.is_null())
                .add(api_key::Column::LastUsedAt.lt(cutoff)),
        )
        .exec(db)
        .await?;
    Ok(())
}
