//! The embedded store: one process, nothing to run.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::sync::broadcast;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::StreamExt;

use super::{new_token, LockToken, SessionStore, StoreResult, Subscription};

struct Entry {
    value: Vec<u8>,
    expires_at: Option<Instant>,
}

impl Entry {
    fn live(&self, now: Instant) -> bool {
        self.expires_at.is_none_or(|t| t > now)
    }
}

#[derive(Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    channels: HashMap<String, broadcast::Sender<Vec<u8>>>,
    writes: u64,
}

impl Inner {
    fn live(&mut self, key: &str) -> Option<&mut Entry> {
        let now = Instant::now();
        if self.entries.get(key).is_some_and(|e| !e.live(now)) {
            self.entries.remove(key);
        }
        self.entries.get_mut(key)
    }

    /// Drops expired entries now and then, so keys never read again do not pile up.
    fn note_write(&mut self) {
        self.writes += 1;
        if self.writes.is_multiple_of(1024) {
            let now = Instant::now();
            self.entries.retain(|_, e| e.live(now));
            self.channels.retain(|_, tx| tx.receiver_count() > 0);
        }
    }
}

/// In-process [`SessionStore`].
#[derive(Clone, Default)]
pub struct MemoryStore {
    inner: Arc<Mutex<Inner>>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave an entry half-written; keep serving.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn deadline(ttl: Option<Duration>) -> Option<Instant> {
    ttl.map(|t| Instant::now() + t)
}

#[async_trait]
impl SessionStore for MemoryStore {
    fn kind(&self) -> &'static str {
        "in-process"
    }

    async fn ping(&self) -> StoreResult<()> {
        Ok(())
    }

    async fn get(&self, key: &str) -> StoreResult<Option<Vec<u8>>> {
        Ok(self.lock().live(key).map(|e| e.value.clone()))
    }

    async fn set(&self, key: &str, value: &[u8], ttl: Option<Duration>) -> StoreResult<()> {
        let mut inner = self.lock();
        inner.note_write();
        inner.entries.insert(
            key.to_string(),
            Entry {
                value: value.to_vec(),
                expires_at: deadline(ttl),
            },
        );
        Ok(())
    }

    async fn set_if_absent(&self, key: &str, value: &[u8], ttl: Duration) -> StoreResult<bool> {
        let mut inner = self.lock();
        if inner.live(key).is_some() {
            return Ok(false);
        }
        inner.note_write();
        inner.entries.insert(
            key.to_string(),
            Entry {
                value: value.to_vec(),
                expires_at: deadline(Some(ttl)),
            },
        );
        Ok(true)
    }

    async fn delete(&self, key: &str) -> StoreResult<bool> {
        let mut inner = self.lock();
        let existed = inner.live(key).is_some();
        inner.entries.remove(key);
        Ok(existed)
    }

    async fn expire(&self, key: &str, ttl: Duration) -> StoreResult<bool> {
        Ok(match self.lock().live(key) {
            Some(entry) => {
                entry.expires_at = deadline(Some(ttl));
                true
            }
            None => false,
        })
    }

    async fn ttl(&self, key: &str) -> StoreResult<Option<Duration>> {
        let now = Instant::now();
        Ok(self
            .lock()
            .live(key)
            .and_then(|e| e.expires_at)
            .map(|t| t.saturating_duration_since(now)))
    }

    async fn incr(&self, key: &str, by: i64, window: Duration) -> StoreResult<i64> {
        let mut inner = self.lock();
        inner.note_write();
        let value = match inner.live(key) {
            Some(entry) => {
                let current: i64 = std::str::from_utf8(&entry.value)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0);
                let next = current.saturating_add(by);
                entry.value = next.to_string().into_bytes();
                next
            }
            None => {
                inner.entries.insert(
                    key.to_string(),
                    Entry {
                        value: by.to_string().into_bytes(),
                        expires_at: deadline(Some(window)),
                    },
                );
                by
            }
        };
        Ok(value)
    }

    async fn publish(&self, channel: &str, message: &[u8]) -> StoreResult<()> {
        if let Some(tx) = self.lock().channels.get(channel) {
            // No receivers is not an error: nobody is listening.
            let _ = tx.send(message.to_vec());
        }
        Ok(())
    }

    async fn subscribe(&self, channel: &str) -> StoreResult<Subscription> {
        let rx = self
            .lock()
            .channels
            .entry(channel.to_string())
            .or_insert_with(|| broadcast::channel(1024).0)
            .subscribe();
        // A lagging subscriber skips what it missed rather than ending the stream.
        Ok(Box::pin(BroadcastStream::new(rx).filter_map(|m| m.ok())))
    }

    async fn try_lock(&self, key: &str, ttl: Duration) -> StoreResult<Option<LockToken>> {
        let token = new_token();
        let acquired = self.set_if_absent(key, token.0.as_bytes(), ttl).await?;
        Ok(acquired.then_some(token))
    }

    async fn unlock(&self, key: &str, token: &LockToken) -> StoreResult<bool> {
        let mut inner = self.lock();
        if inner
            .live(key)
            .is_some_and(|e| e.value == token.0.as_bytes())
        {
            inner.entries.remove(key);
            return Ok(true);
        }
        Ok(false)
    }

    async fn extend_lock(&self, key: &str, token: &LockToken, ttl: Duration) -> StoreResult<bool> {
        Ok(match self.lock().live(key) {
            Some(entry) if entry.value == token.0.as_bytes() => {
                entry.expires_at = deadline(Some(ttl));
                true
            }
            _ => false,
        })
    }
}
