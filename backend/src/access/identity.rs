//! Identity: turning credentials into a principal and a Workspace context (SPEC §5.2).
//!
//! API keys resolve from an in-process cache (≤5 s) so an authenticated request costs no
//! database round trip; any change that affects a key (revoke, role change, member removal,
//! language) publishes an invalidation through the session store, which every replica obeys.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use futures_util::StreamExt;
use sea_orm::DatabaseConnection;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::key_cache::{CachedKey, KeyCache, INVALIDATION_CHANNEL, LAST_USED_INTERVAL};
use super::{
    lookup, secrets, sessions, Access, Credentials, PermissionSet, Principal, RequestCtx,
    SessionToken, WorkspaceCtx,
};
use crate::error::{ApiError, ApiResult};
use crate::i18n::Language;
use crate::session_store::SharedStore;

/// Everything authentication needs, as one cheap-to-clone handle.
#[derive(Clone)]
pub struct Identity {
    db: DatabaseConnection,
    store: SharedStore,
    /// `LANGBOT_GLOBAL_API_KEY`, when set.
    global_key: Option<Arc<str>>,
    cache: Arc<KeyCache>,
}

/// The kind of credential a request presents.
enum Presented<'a> {
    Session(&'a str),
    ApiKey(&'a str),
    GlobalKey,
}

impl Identity {
    pub fn new(db: DatabaseConnection, store: SharedStore, global_key: Option<&str>) -> Self {
        Self {
            db,
            store,
            global_key: global_key.filter(|k| !k.is_empty()).map(Arc::from),
            cache: Arc::default(),
        }
    }

    /// Applies the resolution order: `X-API-Key` wins; then `Authorization: Bearer` by prefix.
    fn classify<'a>(&self, credentials: &'a Credentials) -> ApiResult<Presented<'a>> {
        let is_global = |value: &str| {
            self.global_key
                .as_deref()
                .is_some_and(|g| secrets::equal(value, g))
        };
        if let Some(key) = credentials.api_key.as_deref() {
            if key.starts_with(secrets::API_KEY_PREFIX) {
                return Ok(Presented::ApiKey(key));
            }
            return if is_global(key) {
                Ok(Presented::GlobalKey)
            } else {
                Err(ApiError::unauthenticated())
            };
        }
        let Some(bearer) = credentials.bearer.as_deref() else {
            return Err(ApiError::unauthenticated().msg("Authentication required"));
        };
        if bearer.starts_with(secrets::API_KEY_PREFIX) {
            Ok(Presented::ApiKey(bearer))
        } else if bearer.starts_with(secrets::SESSION_PREFIX) {
            Ok(Presented::Session(bearer))
        } else if is_global(bearer) {
            Ok(Presented::GlobalKey)
        } else {
            Err(ApiError::unauthenticated())
        }
    }

    /// Authenticates `credentials` for an operation with the given access rule.
    pub async fn authenticate(
        &self,
        access: Access,
        credentials: &Credentials,
        mut ctx: RequestCtx,
    ) -> ApiResult<RequestCtx> {
        if access == Access::Public
            || (access == Access::OptionalSession
                && credentials.api_key.is_none()
                && credentials.bearer.is_none())
        {
            return Ok(ctx);
        }
        match self.classify(credentials)? {
            Presented::Session(token) => {
                let (account_uuid, session_hash) = self.session_principal(token).await?;
                if access.has_workspace() {
                    ctx.workspace = Some(
                        self.session_workspace(&account_uuid, credentials.workspace_id.as_deref())
                            .await?,
                    );
                }
                ctx.principal = Principal::Account {
                    account_uuid,
                    session_hash,
                    token: SessionToken(token.to_string()),
                };
            }
            // Keys never reach account or member operations.
            Presented::ApiKey(_) | Presented::GlobalKey if access != Access::Workspace => {
                return Err(ApiError::unauthenticated().msg("This operation needs a session token"));
            }
            Presented::ApiKey(token) => {
                let key = self.api_key(token).await?;
                ctx.workspace = Some(WorkspaceCtx {
                    uuid: key.workspace_uuid,
                    permissions: key.effective,
                    role: None,
                    language: key.language,
                });
                ctx.principal = Principal::ApiKey {
                    key_id: key.id,
                    key_uuid: key.uuid.clone(),
                    created_by: key.created_by,
                    scopes: key.scopes,
                    expires_at: key.expires_at,
                };
            }
            Presented::GlobalKey => {
                let workspace = self.sole_workspace().await?;
                ctx.workspace = Some(WorkspaceCtx {
                    uuid: workspace,
                    permissions: PermissionSet::all(),
                    role: None,
                    language: self.language(workspace).await?,
                });
                ctx.principal = Principal::GlobalKey;
            }
        }
        Ok(ctx)
    }

    /// The account behind a session token, or 401.
    async fn session_principal(&self, token: &str) -> ApiResult<(Uuid, String)> {
        if !secrets::well_formed(token, secrets::SESSION_PREFIX) {
            return Err(ApiError::unauthenticated());
        }
        let hash = secrets::hash(token);
        let record = sessions::find(self.store.as_ref(), &hash)
            .await?
            .ok_or_else(ApiError::unauthenticated)?;
        let account =
            Uuid::from_str(&record.account_uuid).map_err(|_| ApiError::unauthenticated())?;
        Ok((account, hash))
    }

    /// The Workspace a session user works in: the `X-Workspace-Id` one (an active membership,
    /// else 404), or their first by creation.
    async fn session_workspace(
        &self,
        account: &Uuid,
        selector: Option<&str>,
    ) -> ApiResult<WorkspaceCtx> {
        let memberships = lookup::active_memberships(&self.db, account).await?;
        let chosen = match selector {
            Some(raw) => {
                let wanted = Uuid::from_str(raw.trim()).map_err(|_| ApiError::not_found())?;
                memberships
                    .into_iter()
                    .find(|(ws, _)| ws.uuid == wanted.to_string())
            }
            None => memberships.into_iter().next(),
        };
        let (workspace, role) = chosen.ok_or_else(ApiError::not_found)?;
        let uuid = Uuid::from_str(&workspace.uuid).map_err(ApiError::internal)?;
        Ok(WorkspaceCtx {
            uuid,
            permissions: role.permissions(),
            role: Some(role),
            language: self.language(uuid).await?,
        })
    }

    /// Resolves an API key secret; 401 for unknown, revoked or expired keys.
    async fn api_key(&self, token: &str) -> ApiResult<Arc<CachedKey>> {
        if !secrets::well_formed(token, secrets::API_KEY_PREFIX) {
            return Err(ApiError::unauthenticated());
        }
        let hash = secrets::hash(token);
        let key = match self.cache.keys.get(&hash) {
            Some(key) => key,
            None => {
                let loaded = Arc::new(
                    self.load_key(&hash)
                        .await?
                        .ok_or_else(ApiError::unauthenticated)?,
                );
                self.cache.keys.insert(hash, loaded.clone());
                loaded
            }
        };
        if key.expires_at.is_some_and(|at| at <= Utc::now()) {
            return Err(ApiError::unauthenticated().msg("The API key has expired"));
        }
        self.touch(key.id);
        Ok(key)
    }

    async fn load_key(&self, hash: &str) -> ApiResult<Option<CachedKey>> {
        let Some(row) = lookup::active_key_by_hash(&self.db, hash).await? else {
            return Ok(None);
        };
        let workspace_uuid = Uuid::from_str(&row.workspace_uuid).map_err(ApiError::internal)?;
        let created_by = row
            .created_by_account_uuid
            .as_deref()
            .and_then(|s| Uuid::from_str(s).ok());
        let creator = match created_by {
            Some(account) => lookup::role_of(&self.db, &workspace_uuid, &account)
                .await?
                .map(|r| r.permissions())
                .unwrap_or(PermissionSet::EMPTY),
            None => PermissionSet::EMPTY,
        };
        let scopes = lookup::scopes_of(&row);
        Ok(Some(CachedKey {
            id: row.id,
            uuid: row.uuid.clone(),
            workspace_uuid,
            created_by,
            scopes,
            effective: scopes.intersect(creator),
            expires_at: row.expires_at,
            language: self.language(workspace_uuid).await?,
        }))
    }

    /// Writes `last_used_at` at most once a minute per key (and per replica; the SQL guard
    /// keeps replicas from repeating each other).
    fn touch(&self, key_id: i32) {
        if self.cache.last_used.contains_key(&key_id) {
            return;
        }
        self.cache.last_used.insert(key_id, ());
        let db = self.db.clone();
        tokio::spawn(async move {
            if let Err(e) = lookup::touch_last_used(&db, key_id, LAST_USED_INTERVAL).await {
                tracing::warn!(error = %e, api_key.id = key_id, "could not record API key use");
            }
        });
    }

    /// The Workspace's message language.
    pub async fn language(&self, workspace: Uuid) -> ApiResult<Language> {
        if let Some(lang) = self.cache.languages.get(&workspace) {
            return Ok(lang);
        }
        let lang = lookup::language(&self.db, &workspace).await?;
        self.cache.languages.insert(workspace, lang);
        Ok(lang)
    }

    /// The only Workspace, for the global key; 401 unless exactly one exists.
    async fn sole_workspace(&self) -> ApiResult<Uuid> {
        let sole = match self.cache.sole_workspace.get(&()) {
            Some(sole) => sole,
            None => {
                let sole = lookup::sole_workspace(&self.db).await?;
                self.cache.sole_workspace.insert((), sole);
                sole
            }
        };
        sole.ok_or_else(|| {
            ApiError::unauthenticated()
                .msg("The global API key works only while one Workspace exists")
        })
    }

    /// Clears this replica's caches and tells the others to do the same.
    pub async fn invalidate(&self) {
        self.cache.clear();
        if let Err(e) = self.store.publish(INVALIDATION_CHANNEL, b"*").await {
            // The other replicas fall back on the cache TTL.
            tracing::warn!(error = %e, "could not publish an identity invalidation");
        }
    }

    /// The worker that keeps this replica's caches coherent with the others' changes,
    /// until `stop` is cancelled.
    pub async fn follow_invalidations(self, stop: CancellationToken) {
        loop {
            match self.store.subscribe(INVALIDATION_CHANNEL).await {
                Ok(mut messages) => loop {
                    tokio::select! {
                        _ = stop.cancelled() => return,
                        message = messages.next() => match message {
                            Some(_) => self.cache.clear(),
                            None => break,
                        },
                    }
                },
                Err(e) => {
                    tracing::warn!(error = %e, "identity invalidation feed unavailable; retrying")
                }
            }
            // Messages may have been missed while disconnected.
            self.cache.clear();
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tokio::time::sleep(Duration::from_secs(1)) => {}
            }
        }
    }
}
