//! In-process caches for identity facts, kept coherent across replicas by publish/subscribe.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures_util::StreamExt;
use moka::sync::Cache;
use uuid::Uuid;

use super::secrets;
use crate::access::PermissionSet;
use crate::error::{ApiError, ApiResult};
use crate::i18n::Language;
use crate::session_store::SharedStore;
use crate::state::AppState;

/// Channel on which replicas announce identity changes; any message clears the caches.
pub const INVALIDATION_CHANNEL: &str = "identity:invalidate";
const TTL: Duration = Duration::from_secs(5);
const LAST_USED_INTERVAL: Duration = Duration::from_secs(60);

/// An API key as authentication needs it.
#[derive(Debug)]
pub struct CachedKey {
    pub id: i32,
    pub uuid: String,
    pub workspace_uuid: Uuid,
    pub created_by: Option<Uuid>,
    pub scopes: PermissionSet,
    /// Scopes ∩ the creator's current permissions.
    pub effective: PermissionSet,
    pub expires_at: Option<DateTime<Utc>>,
    pub language: Language,
}

pub struct IdentityCache {
    keys: Cache<String, Arc<CachedKey>>,
    languages: Cache<Uuid, Language>,
    sole_workspace: Cache<(), Option<Uuid>>,
    /// Keys whose `last_used_at` this replica wrote within the last minute.
    last_used: Cache<i32, ()>,
}

impl Default for IdentityCache {
    fn default() -> Self {
        Self {
            keys: Cache::builder()
                .max_capacity(100_000)
                .time_to_live(TTL)
                .build(),
            languages: Cache::builder()
                .max_capacity(100_000)
                .time_to_live(TTL)
                .build(),
            sole_workspace: Cache::builder().time_to_live(TTL).build(),
            last_used: Cache::builder()
                .max_capacity(100_000)
                .time_to_live(LAST_USED_INTERVAL)
                .build(),
        }
    }
}

impl IdentityCache {
    /// Forgets everything cached here.
    pub fn clear(&self) {
        self.keys.invalidate_all();
        self.languages.invalidate_all();
        self.sole_workspace.invalidate_all();
    }

    /// Clears this replica's caches and tells the others to do the same.
    pub async fn invalidate(&self, store: &SharedStore) {
        self.clear();
        if let Err(e) = store.publish(INVALIDATION_CHANNEL, b"*").await {
            // The other replicas fall back on the cache TTL.
            tracing::warn!(error = %e, "could not publish an identity invalidation");
        }
    }

    /// Keeps this replica's caches coherent with the others until the process ends.
    pub fn spawn_listener(self: &Arc<Self>, store: SharedStore) {
        let cache = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                match store.subscribe(INVALIDATION_CHANNEL).await {
                    Ok(mut messages) => {
                        while messages.next().await.is_some() {
                            let Some(cache) = cache.upgrade() else { return };
                            cache.clear();
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "identity invalidation feed unavailable; retrying")
                    }
                }
                // Messages may have been missed while disconnected.
                let Some(strong) = cache.upgrade() else {
                    return;
                };
                strong.clear();
                drop(strong);
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
    }

    /// Resolves an API key secret; 401 for unknown, revoked or expired keys.
    pub async fn api_key(&self, state: &AppState, token: &str) -> ApiResult<Arc<CachedKey>> {
        if !secrets::well_formed(token, secrets::API_KEY_PREFIX) {
            return Err(ApiError::unauthenticated());
        }
        let hash = secrets::hash(token);
        let key = match self.keys.get(&hash) {
            Some(key) => key,
            None => {
                let loaded = Arc::new(
                    load_key(state, &hash)
                        .await?
                        .ok_or_else(ApiError::unauthenticated)?,
                );
                self.keys.insert(hash, loaded.clone());
                loaded
            }
        };
        if key.expires_at.is_some_and(|at| at <= Utc::now()) {
            return Err(ApiError::unauthenticated().msg("The API key has expired"));
        }
        self.touch(state, key.id);
        Ok(key)
    }

    /// Writes `last_used_at` at most once a minute per key (and per replica; the SQL guard
    /// keeps replicas from repeating each other).
    fn touch(&self, state: &AppState, key_id: i32) {
        if self.last_used.contains_key(&key_id) {
            return;
        }
        self.last_used.insert(key_id, ());
        let db = state.db.clone();
        tokio::spawn(async move {
            if let Err(e) =
                crate::apikeys::service::touch_last_used(&db, key_id, LAST_USED_INTERVAL).await
            {
                tracing::warn!(error = %e, api_key.id = key_id, "could not record API key use");
            }
        });
    }

    /// The Workspace's message language.
    pub async fn language(&self, state: &AppState, workspace: Uuid) -> ApiResult<Language> {
        if let Some(lang) = self.languages.get(&workspace) {
            return Ok(lang);
        }
        let lang = crate::workspaces::service::language(&state.db, &workspace).await?;
        self.languages.insert(workspace, lang);
        Ok(lang)
    }

    /// The only Workspace, for the global key; 401 unless exactly one exists.
    pub async fn sole_workspace(&self, state: &AppState) -> ApiResult<Uuid> {
        let sole = match self.sole_workspace.get(&()) {
            Some(sole) => sole,
            None => {
                let sole = crate::workspaces::service::sole_workspace(&state.db).await?;
                self.sole_workspace.insert((), sole);
                sole
            }
        };
        sole.ok_or_else(|| {
            ApiError::unauthenticated()
                .msg("The global API key works only while one Workspace exists")
        })
    }
}

async fn load_key(state: &AppState, hash: &str) -> ApiResult<Option<CachedKey>> {
    let Some(row) = crate::apikeys::service::find_active_by_hash(&state.db, hash).await? else {
        return Ok(None);
    };
    let workspace_uuid = Uuid::from_str(&row.workspace_uuid).map_err(ApiError::internal)?;
    let created_by = row
        .created_by_account_uuid
        .as_deref()
        .and_then(|s| Uuid::from_str(s).ok());
    let creator = match created_by {
        Some(account) => crate::workspaces::service::role_of(&state.db, &workspace_uuid, &account)
            .await?
            .map(|r| r.permissions())
            .unwrap_or(PermissionSet::EMPTY),
        None => PermissionSet::EMPTY,
    };
    let scopes = crate::apikeys::service::scopes_of(&row);
    Ok(Some(CachedKey {
        id: row.id,
        uuid: row.uuid.clone(),
        workspace_uuid,
        created_by,
        scopes,
        effective: scopes.intersect(creator),
        expires_at: row.expires_at,
        language: state.identity.language(state, workspace_uuid).await?,
    }))
}
