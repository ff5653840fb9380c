//! Conversation state in the session store, keyed by Workspace, bot and session id
//! (`person_<id>` / `group_<id>`): the history window, the reset generation, and the lock that
//! keeps two replicas from running the same session's turns at once.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::llm::ChatMessage;
use crate::session_store::{LockToken, SessionStore};

/// Messages kept per conversation (user and assistant).
pub const HISTORY_WINDOW: usize = 40;
const LOCK_WAIT: Duration = Duration::from_secs(120);
const DEFAULT_TTL: Duration = Duration::from_secs(30 * 24 * 3600);

/// Identifies one conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationKey {
    pub workspace: String,
    pub bot: String,
    pub session: String,
}

impl ConversationKey {
    fn state(&self) -> String {
        format!("conv:{}:{}:{}", self.workspace, self.bot, self.session)
    }

    fn lock(&self) -> String {
        format!("conv-lock:{}:{}:{}", self.workspace, self.bot, self.session)
    }

    fn pending(&self) -> String {
        format!(
            "conv-pending:{}:{}:{}",
            self.workspace, self.bot, self.session
        )
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Conversation {
    /// Changes on every reset; history from before it never reaches the model.
    pub generation: String,
    pub history: Vec<ChatMessage>,
}

pub async fn load(
    store: &dyn SessionStore,
    key: &ConversationKey,
) -> ApiResult<Option<Conversation>> {
    let raw = store.get(&key.state()).await?;
    Ok(raw.and_then(|r| serde_json::from_slice(&r).ok()))
}

/// Stores the conversation; `expire` (seconds, 0 = default) bounds an idle conversation.
pub async fn save(
    store: &dyn SessionStore,
    key: &ConversationKey,
    conv: &Conversation,
    expire: u64,
) -> ApiResult<()> {
    let ttl = if expire == 0 {
        DEFAULT_TTL
    } else {
        Duration::from_secs(expire)
    };
    let bytes = serde_json::to_vec(conv).map_err(ApiError::internal)?;
    store.set(&key.state(), &bytes, Some(ttl)).await?;
    Ok(())
}

/// Appends a turn and trims the window.
pub fn remember(conv: &mut Conversation, user: ChatMessage, assistant: ChatMessage) {
    conv.history.push(user);
    conv.history.push(assistant);
    let excess = conv.history.len().saturating_sub(HISTORY_WINDOW);
    conv.history.drain(..excess);
}

/// Starts a new generation: earlier history is gone for the model.
pub async fn reset(store: &dyn SessionStore, key: &ConversationKey) -> ApiResult<()> {
    let fresh = Conversation {
        generation: uuid::Uuid::new_v4().to_string(),
        history: Vec::new(),
    };
    save(store, key, &fresh, 0).await
}

pub async fn exists(store: &dyn SessionStore, key: &ConversationKey) -> ApiResult<bool> {
    Ok(store.get(&key.state()).await?.is_some())
}

/// Whether a turn holds the conversation now, or a message waits for one (in the aggregation
/// window, or for the lock).
pub async fn busy(store: &dyn SessionStore, key: &ConversationKey) -> ApiResult<bool> {
    if store.get(&key.lock()).await?.is_some() {
        return Ok(true);
    }
    let waiting = store.get(&key.pending()).await?;
    Ok(waiting
        .and_then(|v| String::from_utf8(v).ok())
        .and_then(|v| v.parse::<i64>().ok())
        .is_some_and(|n| n > 0))
}

/// A message accepted for the conversation whose turn has not finished, counted in the store
/// so that every replica sees the session busy. The count expires with the lock's margin
/// after the last message, should a replica die holding it.
pub struct Waiting<'a> {
    store: &'a dyn SessionStore,
    key: String,
}

impl<'a> Waiting<'a> {
    pub async fn start(
        store: &'a dyn SessionStore,
        key: &ConversationKey,
        window: Duration,
    ) -> Self {
        let key = key.pending();
        let ttl = window + LOCK_WAIT;
        if let Err(e) = store.incr(&key, 1, ttl).await {
            tracing::warn!(error = %e, "could not mark a session busy");
        }
        if let Err(e) = store.expire(&key, ttl).await {
            tracing::debug!(error = %e, "could not extend a session's busy mark");
        }
        Self { store, key }
    }

    /// The turn finished (or never started).
    pub async fn done(self) {
        if let Err(e) = self.store.incr(&self.key, -1, LOCK_WAIT).await {
            tracing::warn!(error = %e, "could not clear a session's busy mark");
        }
    }
}

/// The session's turn lock, held while a turn runs.
pub struct TurnLock {
    key: String,
    token: LockToken,
    ttl: Duration,
}

/// Waits (bounded) for the conversation to be free and takes it.
/// The session's turn lock, held for `ttl` from each extension: the execution lease, so the
/// session of a replica that died is free again when its execution is reaped.
pub async fn acquire(
    store: &dyn SessionStore,
    key: &ConversationKey,
    ttl: Duration,
) -> ApiResult<TurnLock> {
    match crate::session_store::lock_within(store, &key.lock(), ttl, LOCK_WAIT).await? {
        Some(token) => Ok(TurnLock {
            key: key.lock(),
            token,
            ttl,
        }),
        None => Err(ApiError::new(ErrorCode::SessionBusy)),
    }
}

impl TurnLock {
    /// A second handle on the same lock (to extend it from another task).
    pub fn clone_handle(&self) -> TurnLock {
        TurnLock {
            key: self.key.clone(),
            token: self.token.clone(),
            ttl: self.ttl,
        }
    }

    /// Keeps the lock alive during a long turn.
    pub async fn extend(&self, store: &dyn SessionStore) -> ApiResult<()> {
        store.extend_lock(&self.key, &self.token, self.ttl).await?;
        Ok(())
    }

    /// How often to extend it: three times per TTL.
    pub fn renewal(&self) -> Duration {
        (self.ttl / 3).max(Duration::from_secs(1))
    }

    pub async fn release(self, store: &dyn SessionStore) {
        if let Err(e) = store.unlock(&self.key, &self.token).await {
            tracing::warn!(error = %e, "could not release a conversation lock; it expires by itself");
        }
    }
}
