//! The chat history the dashboard shows, per Workspace, pipeline and session type, in the
//! session store (so every replica serves the same history): the last [`MAX_MESSAGES`]
//! messages, with the counter that numbers them. Updated under a short store lock, since
//! two replicas may append to the same group chat at once.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::Scope;
use crate::error::ApiResult;
use crate::runtime::message::SessionType;
use crate::session_store::SessionStore;

/// Messages kept per pipeline and session type (the oldest go first).
pub const MAX_MESSAGES: usize = 200;
/// A history nobody wrote to for this long is dropped (LangBot keeps idle chats a day).
const IDLE_TTL: Duration = Duration::from_secs(24 * 3600);

/// One chat message, as LangBot's dashboard renders it (`WebSocketMessage`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct WsMessage {
    /// Numbers the messages of one history; a streamed reply keeps its id while it grows.
    pub id: i64,
    /// `user` or `assistant`.
    pub role: String,
    pub content: String,
    /// LangBot message chain components (`{"type":"Plain","text":…}`, …).
    #[schema(value_type = Vec<Object>)]
    pub message_chain: Vec<serde_json::Value>,
    /// RFC 3339.
    pub timestamp: String,
    /// False while a streamed reply is still growing.
    pub is_final: bool,
    /// The connection that sent a user message; empty for replies.
    pub connection_id: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    last_id: i64,
    messages: Vec<WsMessage>,
}

fn key(scope: &Scope, kind: SessionType) -> String {
    format!(
        "lbws-history:{}:{}:{}",
        scope.workspace,
        scope.pipeline,
        kind.as_str()
    )
}

/// The messages, oldest first.
pub async fn list(
    store: &dyn SessionStore,
    scope: &Scope,
    kind: SessionType,
) -> ApiResult<Vec<WsMessage>> {
    Ok(load(store, &key(scope, kind)).await?.messages)
}

/// Forgets the history (its numbering starts again).
pub async fn reset(store: &dyn SessionStore, scope: &Scope, kind: SessionType) -> ApiResult<()> {
    store.delete(&key(scope, kind)).await?;
    Ok(())
}

/// Appends `message` with the next id, which it answers with.
pub async fn append(
    store: &dyn SessionStore,
    scope: &Scope,
    kind: SessionType,
    mut message: WsMessage,
) -> ApiResult<WsMessage> {
    update(store, &key(scope, kind), |stored| {
        stored.last_id += 1;
        message.id = stored.last_id;
        stored.messages.push(message.clone());
        let excess = stored.messages.len().saturating_sub(MAX_MESSAGES);
        stored.messages.drain(..excess);
        message
    })
    .await
}

/// Replaces the message with `message.id`, if still kept (a streamed reply growing).
pub async fn replace(
    store: &dyn SessionStore,
    scope: &Scope,
    kind: SessionType,
    message: WsMessage,
) -> ApiResult<()> {
    update(store, &key(scope, kind), |stored| {
        if let Some(slot) = stored.messages.iter_mut().find(|m| m.id == message.id) {
            *slot = message;
        }
    })
    .await
}

async fn load(store: &dyn SessionStore, key: &str) -> ApiResult<Stored> {
    super::load(store, key).await
}

async fn update<T>(
    store: &dyn SessionStore,
    key: &str,
    change: impl FnOnce(&mut Stored) -> T,
) -> ApiResult<T> {
    super::update(store, key, IDLE_TTL, change).await
}
