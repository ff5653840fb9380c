//! Installed plugins and their storage, always within one Workspace (`WorkspaceCtx`).

use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect,
};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::package::Package;
use crate::access::WorkspaceCtx;
use crate::entities::{plugin_setting, plugin_storage};
use crate::error::{ApiError, ApiResult};

pub fn not_found() -> ApiError {
    ApiError::not_found().msg("plugin not found")
}

/// The installed set a runtime must run: enabled plugins, their packages and config
/// revisions. Empty when nothing is enabled.
pub fn fingerprint<'a>(items: impl Iterator<Item = (&'a str, &'a str, i32)>) -> String {
    let mut parts: Vec<String> = items.map(|(id, d, r)| format!("{id}@{d}#{r}")).collect();
    if parts.is_empty() {
        return String::new();
    }
    parts.sort();
    hex::encode(Sha256::digest(parts.join("\n").as_bytes()))
}

/// What the database wants this Workspace's runtime to run (no package bytes read).
pub async fn wanted(db: &impl ConnectionTrait, ws: &WorkspaceCtx) -> ApiResult<String> {
    let rows: Vec<(String, String, String, i32)> = plugin_setting::Entity::find()
        .select_only()
        .column(plugin_setting::Column::PluginAuthor)
        .column(plugin_setting::Column::PluginName)
        .column(plugin_setting::Column::ArtifactDigest)
        .column(plugin_setting::Column::RuntimeRevision)
        .filter(plugin_setting::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .filter(plugin_setting::Column::Enabled.eq(true))
        .into_tuple()
        .all(db)
        .await?;
    let ids: Vec<(String, &str, i32)> = rows
        .iter()
        .map(|(a, n, d, r)| (format!("{a}/{n}"), d.as_str(), *r))
        .collect();
    Ok(fingerprint(
        ids.iter().map(|(i, d, r)| (i.as_str(), *d, *r)),
    ))
}

/// The enabled plugins with their packages: `(author/name, digest, package)`, and their
/// fingerprint.
pub async fn deployable(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
) -> ApiResult<(Vec<(String, String, Vec<u8>)>, String)> {
    let rows = list(db, ws)
        .await?
        .into_iter()
        .filter(|r| r.enabled)
        .collect::<Vec<_>>();
    let ids: Vec<String> = rows
        .iter()
        .map(|r| format!("{}/{}", r.plugin_author, r.plugin_name))
        .collect();
    let fingerprint = fingerprint(
        rows.iter()
            .zip(&ids)
            .map(|(r, id)| (id.as_str(), r.artifact_digest.as_str(), r.runtime_revision)),
    );
    let items = rows
        .into_iter()
        .zip(ids)
        .map(|(r, id)| (id, r.artifact_digest, r.package))
        .collect();
    Ok((items, fingerprint))
}

pub async fn list(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
) -> ApiResult<Vec<plugin_setting::Model>> {
    Ok(plugin_setting::Entity::find()
        .filter(plugin_setting::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .order_by_desc(plugin_setting::Column::CreatedAt)
        .order_by_asc(plugin_setting::Column::PluginAuthor)
        .order_by_asc(plugin_setting::Column::PluginName)
        .all(db)
        .await?)
}

pub async fn get(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    author: &str,
    name: &str,
) -> ApiResult<plugin_setting::Model> {
    plugin_setting::Entity::find_by_id((ws.uuid.to_string(), author.to_string(), name.to_string()))
        .one(db)
        .await?
        .ok_or_else(not_found)
}

pub async fn by_installation(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    installation: &str,
) -> ApiResult<Option<plugin_setting::Model>> {
    Ok(plugin_setting::Entity::find()
        .filter(plugin_setting::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .filter(plugin_setting::Column::InstallationUuid.eq(installation))
        .one(db)
        .await?)
}

/// The config defaults of a manifest's `spec.config` form.
pub fn defaults(manifest: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for field in manifest["spec"]["config"].as_array().into_iter().flatten() {
        if let Some(name) = field["name"].as_str() {
            out.insert(
                name.into(),
                field.get("default").cloned().unwrap_or(Value::Null),
            );
        }
    }
    Value::Object(out)
}

/// Installs (or replaces) a package; a reinstall keeps the config, the installation id and
/// the stored data, and enables the plugin, as LangBot does.
pub async fn install(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    pkg: Package,
    bytes: Vec<u8>,
    source: &str,
    info: Value,
) -> ApiResult<plugin_setting::Model> {
    let now = crate::db::now();
    let stored = json!({"manifest": pkg.manifest, "components": pkg.components});
    let existing = get(db, ws, &pkg.author, &pkg.name).await.ok();
    match existing {
        Some(row) => {
            let mut a: plugin_setting::ActiveModel = row.into();
            a.enabled = Set(true);
            a.install_source = Set(source.into());
            a.install_info = Set(info);
            a.manifest = Set(stored);
            a.artifact_digest = Set(pkg.digest);
            a.package = Set(bytes);
            a.updated_at = Set(now);
            Ok(a.update(db).await?)
        }
        None => {
            let config = defaults(&pkg.manifest);
            let a = plugin_setting::ActiveModel {
                workspace_uuid: Set(ws.uuid.to_string()),
                plugin_author: Set(pkg.author),
                plugin_name: Set(pkg.name),
                installation_uuid: Set(Uuid::new_v4().to_string()),
                enabled: Set(true),
                priority: Set(0),
                config: Set(config),
                install_source: Set(source.into()),
                install_info: Set(info),
                manifest: Set(stored),
                artifact_digest: Set(pkg.digest),
                runtime_revision: Set(1),
                package: Set(bytes),
                created_at: Set(now),
                updated_at: Set(now),
            };
            Ok(a.insert(db).await?)
        }
    }
}

pub async fn set_enabled(
    db: &impl ConnectionTrait,
    row: plugin_setting::Model,
    enabled: bool,
) -> ApiResult<()> {
    let mut a: plugin_setting::ActiveModel = row.into();
    a.enabled = Set(enabled);
    a.updated_at = Set(crate::db::now());
    a.update(db).await?;
    Ok(())
}

/// Stores a config; the revision moves on, so every replica's runtime restarts the plugin.
pub async fn set_config(
    db: &impl ConnectionTrait,
    row: plugin_setting::Model,
    config: Value,
) -> ApiResult<()> {
    let revision = row.runtime_revision.saturating_add(1);
    let mut a: plugin_setting::ActiveModel = row.into();
    a.config = Set(config);
    a.runtime_revision = Set(revision);
    a.updated_at = Set(crate::db::now());
    a.update(db).await?;
    Ok(())
}

/// Removes a plugin; with `delete_data` also its plugin storage (Workspace storage stays).
pub async fn uninstall(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    row: plugin_setting::Model,
    delete_data: bool,
) -> ApiResult<()> {
    let owner = format!("{}/{}", row.plugin_author, row.plugin_name);
    plugin_setting::Entity::delete_by_id((
        row.workspace_uuid.clone(),
        row.plugin_author.clone(),
        row.plugin_name.clone(),
    ))
    .exec(db)
    .await?;
    if delete_data {
        plugin_storage::Entity::delete_many()
            .filter(plugin_storage::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
            .filter(plugin_storage::Column::OwnerType.eq("plugin"))
            .filter(plugin_storage::Column::Owner.eq(owner))
            .exec(db)
            .await?;
    }
    Ok(())
}

/// Plugin and Workspace storage: `(owner_type, owner)` is decided by the host.
pub mod storage {
    use super::*;

    fn key_filter(
        ws: &WorkspaceCtx,
        owner_type: &str,
        owner: &str,
    ) -> sea_orm::Select<plugin_storage::Entity> {
        plugin_storage::Entity::find()
            .filter(plugin_storage::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
            .filter(plugin_storage::Column::OwnerType.eq(owner_type))
            .filter(plugin_storage::Column::Owner.eq(owner))
    }

    pub async fn set(
        db: &impl ConnectionTrait,
        ws: &WorkspaceCtx,
        owner_type: &str,
        owner: &str,
        key: &str,
        value: Vec<u8>,
    ) -> ApiResult<()> {
        let now = crate::db::now();
        let row = plugin_storage::ActiveModel {
            workspace_uuid: Set(ws.uuid.to_string()),
            owner_type: Set(owner_type.into()),
            owner: Set(owner.into()),
            key: Set(key.into()),
            value: Set(value),
            created_at: Set(now),
            updated_at: Set(now),
        };
        plugin_storage::Entity::insert(row)
            .on_conflict(
                OnConflict::columns([
                    plugin_storage::Column::WorkspaceUuid,
                    plugin_storage::Column::OwnerType,
                    plugin_storage::Column::Owner,
                    plugin_storage::Column::Key,
                ])
                .update_columns([
                    plugin_storage::Column::Value,
                    plugin_storage::Column::UpdatedAt,
                ])
                .to_owned(),
            )
            .exec(db)
            .await?;
        Ok(())
    }

    pub async fn get(
        db: &impl ConnectionTrait,
        ws: &WorkspaceCtx,
        owner_type: &str,
        owner: &str,
        key: &str,
    ) -> ApiResult<Option<Vec<u8>>> {
        Ok(key_filter(ws, owner_type, owner)
            .filter(plugin_storage::Column::Key.eq(key))
            .one(db)
            .await?
            .map(|r| r.value))
    }

    pub async fn keys(
        db: &impl ConnectionTrait,
        ws: &WorkspaceCtx,
        owner_type: &str,
        owner: &str,
    ) -> ApiResult<Vec<String>> {
        Ok(key_filter(ws, owner_type, owner)
            .select_only()
            .column(plugin_storage::Column::Key)
            .order_by_asc(plugin_storage::Column::Key)
            .into_tuple()
            .all(db)
            .await?)
    }

    pub async fn delete(
        db: &impl ConnectionTrait,
        ws: &WorkspaceCtx,
        owner_type: &str,
        owner: &str,
        key: &str,
    ) -> ApiResult<()> {
        plugin_storage::Entity::delete_many()
            .filter(plugin_storage::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
            .filter(plugin_storage::Column::OwnerType.eq(owner_type))
            .filter(plugin_storage::Column::Owner.eq(owner))
            .filter(plugin_storage::Column::Key.eq(key))
            .exec(db)
            .await?;
        Ok(())
    }
}
