//! In-process caches of identity facts (API keys, Workspace languages, the sole Workspace),
//! kept coherent across replicas by the invalidation channel.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use moka::sync::Cache;
use uuid::Uuid;

use super::PermissionSet;
use crate::i18n::Language;

/// Channel on which replicas announce identity changes; any message clears the caches.
pub const INVALIDATION_CHANNEL: &str = "identity:invalidate";
const TTL: Duration = Duration::from_secs(5);
/// `last_used_at` is written at most this often per key.
pub const LAST_USED_INTERVAL: Duration = Duration::from_secs(60);

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

pub struct KeyCache {
    pub(super) keys: Cache<String, Arc<CachedKey>>,
    pub(super) languages: Cache<Uuid, Language>,
    pub(super) sole_workspace: Cache<(), Option<Uuid>>,
    /// Keys whose `last_used_at` this replica wrote within the last minute.
    pub(super) last_used: Cache<i32, ()>,
}

impl Default for KeyCache {
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

impl KeyCache {
    /// Forgets everything cached here.
    pub fn clear(&self) {
        self.keys.invalidate_all();
        self.languages.invalidate_all();
        self.sole_workspace.invalidate_all();
    }
}
