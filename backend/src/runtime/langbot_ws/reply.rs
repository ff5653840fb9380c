//! One dashboard message through the pipeline: recorded and shown as a `user_message`, run
//! as a debug turn (`runtime::turn`), its reply shown as `response` frames — while streaming,
//! one growing message (same id, the whole text so far, `is_final: false`), since LangBot's
//! dashboard replaces a message by id; then each reply final.

use serde_json::json;

use super::chain::Parsed;
use super::history::{self, WsMessage};
use super::{hub, Scope};
use crate::access::WorkspaceCtx;
use crate::entities::execution::ExecutionMode;
use crate::entities::pipeline;
use crate::runtime::message::{plain_text, Segment, SessionType};
use crate::runtime::ops::DEBUG_BOT;
use crate::runtime::turn::{self, TurnInput};
use crate::state::AppState;

/// The chat a message belongs to.
#[derive(Clone)]
pub struct Chat {
    pub ws: WorkspaceCtx,
    pub pipeline: pipeline::Model,
    pub scope: Scope,
    pub kind: SessionType,
    pub connection: String,
}

impl Chat {
    /// LangBot's launcher ids: a person chat per connection, one group chat for all.
    fn chat_id(&self) -> String {
        match self.kind {
            SessionType::Person => format!("websocket_{}", self.connection),
            SessionType::Group => "websocketgroup".into(),
        }
    }

    /// Adds `message` to the history and shows it to the chat's connections.
    async fn show(&self, state: &AppState, frame_type: &str, message: WsMessage) -> WsMessage {
        let store = state.store.as_ref();
        let message = match history::append(store, &self.scope, self.kind, message.clone()).await {
            Ok(stored) => stored,
            Err(e) => {
                tracing::warn!(error = %e, "debug chat: could not keep a message in the history");
                message
            }
        };
        self.send(state, frame_type, &message).await;
        message
    }

    /// Shows `message` (already in the history) to the chat's connections.
    async fn send(&self, state: &AppState, frame_type: &str, message: &WsMessage) {
        let frame = json!({ "type": frame_type, "session_type": self.kind, "data": message });
        if let Err(e) =
            hub::publish(state.store.as_ref(), &self.scope, Some(self.kind), &frame).await
        {
            tracing::warn!(error = %e, "debug chat: could not deliver a frame");
        }
    }
}

fn assistant(content: String, chain: Vec<serde_json::Value>, is_final: bool) -> WsMessage {
    WsMessage {
        id: 0,
        role: "assistant".into(),
        content,
        message_chain: chain,
        timestamp: super::now(),
        is_final,
        connection_id: String::new(),
    }
}

fn plain_chain(text: &str) -> Vec<serde_json::Value> {
    vec![json!({ "type": "Plain", "text": text })]
}

/// Runs the message's turn to the end (never fails: failures are the turn's outcome).
pub async fn answer(state: AppState, chat: Chat, parsed: Parsed, stream: bool) {
    let user = WsMessage {
        id: 0,
        role: "user".into(),
        content: parsed.content,
        message_chain: parsed.history,
        timestamp: super::now(),
        is_final: true,
        connection_id: chat.connection.clone(),
    };
    chat.show(&state, "user_message", user).await;
    // The pipeline as it is now: an edit made while the chat is open applies to the next message.
    let Ok(pipeline) =
        crate::runtime::debug_ws::reload(&state, &chat.ws, &chat.pipeline.uuid).await
    else {
        let gone = "Pipeline not found".to_string();
        chat.show(
            &state,
            "response",
            assistant(gone.clone(), plain_chain(&gone), true),
        )
        .await;
        return;
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let input = TurnInput {
        ws: chat.ws.clone(),
        bot_id: DEBUG_BOT.into(),
        bot_name: "Debug".into(),
        pipeline,
        kind: chat.kind,
        chat_id: chat.chat_id(),
        sender_id: format!("websocket_{}", chat.connection),
        sender_name: Some("User".into()),
        segments: parsed.segments,
        is_at_bot: parsed.at_bot,
        // Monitoring's message ids hold 36 characters.
        message_id: format!("in_{}", uuid::Uuid::new_v4().simple()),
        event_id: None,
        mode: ExecutionMode::Debug,
        queued: None,
        deltas: stream.then_some(tx),
    };
    let turn = turn::run(&state, input);
    tokio::pin!(turn);
    // The streamed reply so far: its message (id, first timestamp) and text.
    let mut streamed: Option<WsMessage> = None;
    let mut text = String::new();
    let output = loop {
        tokio::select! {
            out = &mut turn => break out,
            Some(delta) = rx.recv() => {
                text.push_str(&delta);
                streamed = Some(grow(&state, &chat, streamed, &text).await);
            }
        }
    };
    while let Ok(delta) = rx.try_recv() {
        text.push_str(&delta);
        streamed = Some(grow(&state, &chat, streamed, &text).await);
    }
    let mut replies = output.replies.into_iter();
    if let Some(mut message) = streamed {
        // The first reply completes the streamed message; without one, what streamed stands.
        let first: Vec<Segment> = replies
            .next()
            .unwrap_or_else(|| vec![Segment::plain(&text)]);
        message.content = plain_text(&first);
        message.message_chain = chain_of(&first);
        message.is_final = true;
        if let Err(e) = history::replace(
            state.store.as_ref(),
            &chat.scope,
            chat.kind,
            message.clone(),
        )
        .await
        {
            tracing::warn!(error = %e, "debug chat: could not keep a reply in the history");
        }
        chat.send(&state, "response", &message).await;
    }
    for reply in replies {
        let message = assistant(plain_text(&reply), chain_of(&reply), true);
        chat.show(&state, "response", message).await;
    }
}

/// The streamed message with `text` so far: started (and kept in the history) on the first
/// delta, then only shown as it grows; the history gets the final text.
async fn grow(state: &AppState, chat: &Chat, streamed: Option<WsMessage>, text: &str) -> WsMessage {
    match streamed {
        None => {
            chat.show(
                state,
                "response",
                assistant(text.into(), plain_chain(text), false),
            )
            .await
        }
        Some(mut message) => {
            message.content = text.into();
            message.message_chain = plain_chain(text);
            chat.send(state, "response", &message).await;
            message
        }
    }
}

fn chain_of(segments: &[Segment]) -> Vec<serde_json::Value> {
    segments
        .iter()
        .filter_map(|s| serde_json::to_value(s).ok())
        .collect()
}
