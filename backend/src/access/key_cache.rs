//! In-process caches of identity facts (API keys, sessions, the Workspace a session works
//! in, Workspace languages, the sole Workspace), kept coherent across replicas by a shared
//! generation counter.
//!
//! Every change that affects identity (revoking a key, logout, password change, a member
//! removed or given another role, a new membership or Workspace, a language change) bumps
//! the counter in the session store *before* its request answers. Each authenticated request
//! reads the counter (an atomic read in the embedded store, one `GET` with Redis) and uses
//! only entries filled under that same generation, so the change takes effect on the next
//! request on every replica. The TTL only bounds memory and what a lost counter could hide.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use moka::sync::Cache;
use uuid::Uuid;

use super::{PermissionSet, WorkspaceCtx};
use crate::i18n::Language;

/// Channel on which replicas announce identity changes; any message clears the caches
/// (memory only: correctness comes from the generation).
pub const INVALIDATION_CHANNEL: &str = "identity:invalidate";
/// The session-store key of the shared generation counter.
pub const GENERATION_KEY: &str = "identity:generation";
const TTL: Duration = Duration::from_secs(5);
/// `last_used_at` is written at most this often per key.
pub const LAST_USED_INTERVAL: Duration = Duration::from_secs(60);

/// A cached value with the generation it was read under.
#[derive(Debug, Clone)]
pub struct Stamped<T> {
    pub generation: i64,
    pub value: T,
}

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

/// A live session: its account, and until when the store still keeps it.
#[derive(Debug, Clone)]
pub struct CachedSession {
    pub account: Uuid,
    /// The store's expiry when the session was read; renewals only move it later.
    pub expires: Instant,
}

pub struct KeyCache {
    pub(super) keys: Cache<String, Stamped<Arc<CachedKey>>>,
    pub(super) sessions: Cache<String, Stamped<CachedSession>>,
    /// (account, `X-Workspace-Id` as sent) → the Workspace context.
    pub(super) session_workspaces: Cache<(Uuid, Option<String>), Stamped<WorkspaceCtx>>,
    pub(super) languages: Cache<Uuid, Stamped<Language>>,
    pub(super) sole_workspace: Cache<(), Stamped<Option<Uuid>>>,
    /// Keys whose `last_used_at` this replica wrote within the last minute.
    pub(super) last_used: Cache<i32, ()>,
}

fn cache<K, V>() -> Cache<K, V>
where
    K: std::hash::Hash + Eq + Send + Sync + 'static,
    V: Clone + Send + Sync + 'static,
{
    Cache::builder()
        .max_capacity(100_000)
        .time_to_live(TTL)
        .build()
}

impl Default for KeyCache {
    fn default() -> Self {
        Self {
            keys: cache(),
            sessions: cache(),
            session_workspaces: cache(),
            languages: cache(),
            sole_workspace: cache(),
            last_used: Cache::builder()
                .max_capacity(100_000)
                .time_to_live(LAST_USED_INTERVAL)
                .build(),
        }
    }
}

impl KeyCache {
    /// Forgets everything cached here.
    pub fn clear(&self) {
        self.keys.invalidate_all();
        self.sessions.invalidate_all();
        self.session_workspaces.invalidate_all();
        self.languages.invalidate_all();
        self.sole_workspace.invalidate_all();
    }
}

/// The entry of `cache` under `key` if it was filled in `generation`.
pub fn current<K, V>(cache: &Cache<K, Stamped<V>>, key: &K, generation: i64) -> Option<V>
where
    K: std::hash::Hash + Eq + Send + Sync + 'static,
    V: Clone + Send + Sync + 'static,
{
    cache
        .get(key)
        .filter(|entry| entry.generation == generation)
        .map(|entry| entry.value)
}
