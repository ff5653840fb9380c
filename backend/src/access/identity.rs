//! Identity: turning credentials into a principal and a Workspace context (SPEC §5.2).
//!
//! API keys, sessions and the Workspace a session works in resolve from in-process caches
//! (see `key_cache`), so an authenticated request costs no database round trip: only a read
//! of the shared identity generation, which every change that affects a principal bumps.

use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use futures_util::StreamExt;
use sea_orm::DatabaseConnection;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::key_cache::{
    current, CachedKey, CachedSession, KeyCache, Stamped, GENERATION_KEY, INVALIDATION_CHANNEL,
    LAST_USED_INTERVAL,
};
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
        let presented = self.classify(credentials)?;
        let generation = self.generation().await?;
        match presented {
            Presented::Session(token) => {
                let (account_uuid, session_hash) =
                    self.session_principal(token, generation).await?;
                if access.has_workspace() {
                    ctx.workspace = Some(
                        self.session_workspace(
                            &account_uuid,
                            credentials.workspace_id.as_deref(),
                            generation,
                        )
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
                let key = self.api_key(token, generation).await?;
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
                let workspace = self.sole_workspace(generation).await?;
                ctx.workspace = Some(WorkspaceCtx {
                    uuid: workspace,
                    permissions: PermissionSet::all(),
                    role: None,
                    language: self.language_in(workspace, generation).await?,
                });
                ctx.principal = Principal::GlobalKey;
            }
        }
        Ok(ctx)
    }

    /// The shared identity generation (0 before the first change).
    async fn generation(&self) -> ApiResult<i64> {
        let raw = self.store.get(GENERATION_KEY).await?;
        Ok(raw
            .and_then(|v| std::str::from_utf8(&v).ok()?.parse().ok())
            .unwrap_or(0))
    }

    /// The account behind a session token, or 401.
    async fn session_principal(&self, token: &str, generation: i64) -> ApiResult<(Uuid, String)> {
        if !secrets::well_formed(token, secrets::SESSION_PREFIX) {
            return Err(ApiError::unauthenticated());
        }
        let hash = secrets::hash(token);
        if let Some(session) = current(&self.cache.sessions, &hash, generation) {
            if session.expires > Instant::now() {
                return Ok((session.account, hash));
            }
        }
        let store = self.store.as_ref();
        let record = sessions::find(store, &hash)
            .await?
            .ok_or_else(ApiError::unauthenticated)?;
        let account =
            Uuid::from_str(&record.account_uuid).map_err(|_| ApiError::unauthenticated())?;
        // Cached no longer than the store keeps the session (expiry is not an invalidation).
        if let Some(left) = sessions::ttl(store, &hash).await? {
            let value = CachedSession {
                account,
                expires: Instant::now() + left,
            };
            self.cache
                .sessions
                .insert(hash.clone(), Stamped { generation, value });
        }
        Ok((account, hash))
    }

    /// The Workspace a session user works in: the `X-Workspace-Id` one (an active membership,
    /// else 404), or their first by creation.
    async fn session_workspace(
        &self,
        account: &Uuid,
        selector: Option<&str>,
        generation: i64,
    ) -> ApiResult<WorkspaceCtx> {
        let key = (*account, selector.map(str::to_string));
        if let Some(ws) = current(&self.cache.session_workspaces, &key, generation) {
            return Ok(ws);
        }
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
        let ws = WorkspaceCtx {
            uuid,
            permissions: role.permissions(),
            role: Some(role),
            language: self.language_in(uuid, generation).await?,
        };
        let value = ws.clone();
        self.cache
            .session_workspaces
            .insert(key, Stamped { generation, value });
        Ok(ws)
    }

    /// Resolves an API key secret; 401 for unknown, revoked or expired keys.
    async fn api_key(&self, token: &str, generation: i64) -> ApiResult<Arc<CachedKey>> {
        if !secrets::well_formed(token, secrets::API_KEY_PREFIX) {
            return Err(ApiError::unauthenticated());
        }
        let hash = secrets::hash(token);
        let key = match current(&self.cache.keys, &hash, generation) {
            Some(key) => key,
            None => {
                let loaded = Arc::new(
                    self.load_key(&hash, generation)
                        .await?
                        .ok_or_else(ApiError::unauthenticated)?,
                );
                let value = loaded.clone();
                self.cache.keys.insert(hash, Stamped { generation, value });
                loaded
            }
        };
        if key.expires_at.is_some_and(|at| at <= Utc::now()) {
            return Err(ApiError::unauthenticated().msg("The API key has expired"));
        }
        self.touch(key.id);
        Ok(key)
    }

    async fn load_key(&self, hash: &str, generation: i64) -> ApiResult<Option<CachedKey>> {
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
            language: self.language_in(workspace_uuid, generation).await?,
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
        let generation = self.generation().await?;
        self.language_in(workspace, generation).await
    }

    async fn language_in(&self, workspace: Uuid, generation: i64) -> ApiResult<Language> {
        if let Some(lang) = current(&self.cache.languages, &workspace, generation) {
            return Ok(lang);
        }
        let value = lookup::language(&self.db, &workspace).await?;
        self.cache
            .languages
            .insert(workspace, Stamped { generation, value });
        Ok(value)
    }

    /// The only Workspace, for the global key; 401 unless exactly one exists.
    async fn sole_workspace(&self, generation: i64) -> ApiResult<Uuid> {
        let sole = match current(&self.cache.sole_workspace, &(), generation) {
            Some(sole) => sole,
            None => {
                let value = lookup::sole_workspace(&self.db).await?;
                self.cache
                    .sole_workspace
                    .insert((), Stamped { generation, value });
                value
            }
        };
        sole.ok_or_else(|| {
            ApiError::unauthenticated()
                .msg("The global API key works only while one Workspace exists")
        })
    }

    /// Makes every replica's cached identity facts stale: bumps the shared generation (call
    /// it after the change is stored, before answering), clears this replica's caches and
    /// lets the others free theirs.
    pub async fn invalidate(&self) {
        // The generation must outlive every cache entry; ten years is "forever" here.
        let forever = Duration::from_secs(3650 * 24 * 3600);
        if let Err(e) = self.store.incr(GENERATION_KEY, 1, forever).await {
            // Other replicas then see the change within the cache TTL only.
            tracing::error!(error = %e, "could not bump the identity generation");
        }
        self.cache.clear();
        if let Err(e) = self.store.publish(INVALIDATION_CHANNEL, b"*").await {
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
