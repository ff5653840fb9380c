//! State shared between replicas (SPEC §14): key/value with expiry, counters, publish/subscribe
//! and locks. Redis when `LANGBOT_REDIS_URL` is set; an in-process store otherwise.

mod memory;
mod redis_store;

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures_util::Stream;

pub use memory::MemoryStore;
pub use redis_store::RedisStore;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("session store: {0}")]
    Redis(#[from] redis::RedisError),
    #[error("session store timed out")]
    Timeout,
}

pub type StoreResult<T> = Result<T, StoreError>;

/// Messages of one subscription; ends when the connection is lost (subscribe again).
pub type Subscription = Pin<Box<dyn Stream<Item = Vec<u8>> + Send>>;

/// Takes the lock `key` (held for `ttl`), retrying with a growing pause (10 ms to 200 ms)
/// while another holder has it; `None` once `wait` has passed without it.
pub async fn lock_within(
    store: &dyn SessionStore,
    key: &str,
    ttl: Duration,
    wait: Duration,
) -> StoreResult<Option<LockToken>> {
    let started = std::time::Instant::now();
    let mut pause = Duration::from_millis(10);
    loop {
        if let Some(token) = store.try_lock(key, ttl).await? {
            return Ok(Some(token));
        }
        if started.elapsed() > wait {
            return Ok(None);
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_millis(200));
    }
}

/// A held lock; pass it back to release or extend it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockToken(pub String);

#[async_trait]
pub trait SessionStore: Send + Sync + 'static {
    /// `redis` or `in-process`.
    fn kind(&self) -> &'static str;
    async fn ping(&self) -> StoreResult<()>;

    async fn get(&self, key: &str) -> StoreResult<Option<Vec<u8>>>;
    /// Sets a value; `ttl` `None` keeps it until deleted.
    async fn set(&self, key: &str, value: &[u8], ttl: Option<Duration>) -> StoreResult<()>;
    /// Sets only when absent; true when set.
    async fn set_if_absent(&self, key: &str, value: &[u8], ttl: Duration) -> StoreResult<bool>;
    /// True when the key existed.
    async fn delete(&self, key: &str) -> StoreResult<bool>;
    /// Resets the expiry of an existing key; false when absent.
    async fn expire(&self, key: &str, ttl: Duration) -> StoreResult<bool>;
    /// Remaining time to live; `None` when absent or without expiry.
    async fn ttl(&self, key: &str) -> StoreResult<Option<Duration>>;

    /// Adds `by` to a counter and returns the new value. A new counter expires after
    /// `window` (fixed-window rate limits).
    async fn incr(&self, key: &str, by: i64, window: Duration) -> StoreResult<i64>;

    async fn publish(&self, channel: &str, message: &[u8]) -> StoreResult<()>;
    async fn subscribe(&self, channel: &str) -> StoreResult<Subscription>;

    /// Takes the lock `key` for `ttl` unless someone holds it.
    async fn try_lock(&self, key: &str, ttl: Duration) -> StoreResult<Option<LockToken>>;
    /// Releases the lock if `token` still holds it.
    async fn unlock(&self, key: &str, token: &LockToken) -> StoreResult<bool>;
    /// Extends the lock if `token` still holds it.
    async fn extend_lock(&self, key: &str, token: &LockToken, ttl: Duration) -> StoreResult<bool>;
}

pub type SharedStore = Arc<dyn SessionStore>;

/// Connects the configured store.
pub async fn connect(redis_url: Option<&str>, prefix: &str) -> anyhow::Result<SharedStore> {
    Ok(match redis_url {
        Some(url) => Arc::new(RedisStore::connect(url, prefix).await?),
        None => Arc::new(MemoryStore::new()),
    })
}

fn new_token() -> LockToken {
    LockToken(uuid::Uuid::new_v4().simple().to_string())
}
