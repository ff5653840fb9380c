//! Conversation state in the session store, keyed by Workspace, bot and session id
//! (`person_<id>` / `group_<id>`): the history window, the reset generation, and the lock that
//! keeps two replicas from running the same session's turns at once.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::llm::ChatMessage;
use crate::session_store::{LockToken, SessionStore};

/// Messages kept per conversation (user and assistant).
pub const HISTORY_WINDOW: usize = 40;
const LOCK_TTL: Duration = Duration::from_secs(60);
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

/// Whether a turn holds the conversation now.
pub async fn busy(store: &dyn SessionStore, key: &ConversationKey) -> ApiResult<bool> {
    Ok(store.get(&key.lock()).await?.is_some())
}

/// The session's turn lock, held while a turn runs.
pub struct TurnLock {
    key: String,
    token: LockToken,
}

/// Waits (bounded) for the conversation to be free and takes it.
pub async fn acquire(store: &dyn SessionStore, key: &ConversationKey) -> ApiResult<TurnLock> {
    let started = Instant::now();
    let mut pause = Duration::from_millis(10);
    loop {
        if let Some(token) = store.try_lock(&key.lock(), LOCK_TTL).await? {
            return Ok(TurnLock {
                key: key.lock(),
                token,
            });
        }
        if started.elapsed() > LOCK_WAIT {
            return Err(ApiError::new(ErrorCode::SessionBusy));
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_millis(200));
    }
}

impl TurnLock {
    /// A second handle on the same lock (to extend it from another task).
    pub fn clone_handle(&self) -> TurnLock {
        TurnLock {
            key: self.key.clone(),
            token: self.token.clone(),
        }
    }

    /// Keeps the lock alive during a long turn.
    pub async fn extend(&self, store: &dyn SessionStore) -> ApiResult<()> {
        store.extend_lock(&self.key, &self.token, LOCK_TTL).await?;
        Ok(())
    }

    pub async fn release(self, store: &dyn SessionStore) {
        if let Err(e) = store.unlock(&self.key, &self.token).await {
            tracing::warn!(error = %e, "could not release a conversation lock; it expires by itself");
        }
    }
}
