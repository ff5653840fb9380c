//! `GET /api/v1/pipelines/{pipeline_uuid}/ws/connect?session_type=person|group`: LangBot's
//! dashboard debug chat socket. The catalog authorizes it (LangBot's dashboard sends a first
//! `{"type":"authenticate","token","workspace_uuid"}` frame); then `connected`, and per client
//! frame: `message` (authorization checked again) → `user_message` and `response` frames to
//! every connection of the pipeline and session type, `ping` → `pong`, `disconnect`.

use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::{json, Value};
use utoipa::IntoParams;
use validator::Validate;

use super::reply::{self, Chat};
use super::{chain, hub, Scope};
use crate::access::{Access, Permission, RequestCtx};
use crate::catalog::{Input, NoBody, OpMeta, Operation, Socket, WebSocket};
use crate::error::{ApiError, ApiResult};
use crate::pipelines::ops::PipelinePath;
use crate::runtime::message::SessionType;
use crate::state::AppState;

/// Messages of one connection being answered at once; more are refused until one ends.
const MAX_IN_FLIGHT: usize = 4;
/// A connection's `last_active` is written at most this often.
const TOUCH_EVERY: Duration = Duration::from_secs(15);

#[derive(Debug, Default, Deserialize, IntoParams, Validate)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ConnectQuery {
    /// `person` (default: a chat of this connection) or `group` (one chat shared by all).
    #[param(value_type = Option<SessionType>)]
    pub session_type: Option<String>,
}

pub struct ConnectPipelineWsChat;

impl Operation for ConnectPipelineWsChat {
    const META: OpMeta = OpMeta::get(
        "connect_pipeline_ws_chat",
        "/pipelines/{pipeline_uuid}/ws/connect",
    )
    .tag("pipelines")
    .summary("Debug chat with a pipeline over LangBot's dashboard WebSocket protocol")
    .description(
        "LangBot 4.11.2's dashboard protocol. Receive `connected`; send \
         `{\"type\":\"message\",\"message\":[chain],\"stream\":true}`, `ping` or `disconnect`; \
         receive `user_message` and `response` frames `{type, session_type, data: \
         WebSocketMessage}` (a streamed reply repeats its id with the text so far and \
         `is_final: false`), `pong`, `broadcast` and `error`.",
    )
    .access(Access::SessionWorkspace)
    .permission(Permission::RuntimeOperate);
    type Path = PipelinePath;
    type Query = ConnectQuery;
    type Body = NoBody;
    type Output = WebSocket;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PipelinePath, ConnectQuery, NoBody>,
    ) -> ApiResult<WebSocket> {
        let ws = ctx.workspace()?.clone();
        let kind = super::session_type(input.query.session_type.as_deref().unwrap_or("person"))?;
        let pipeline = crate::pipelines::service::get(&state.db, &ws, &input.path.pipeline_uuid)
            .await
            .map_err(|_| ApiError::not_found().msg("Pipeline not found"))?;
        let chat = Chat {
            scope: Scope {
                workspace: ws.uuid.to_string(),
                pipeline: pipeline.uuid.clone(),
            },
            ws,
            pipeline,
            kind,
            connection: uuid::Uuid::new_v4().simple().to_string(),
        };
        let state = state.clone();
        Ok(WebSocket::new(move |socket| converse(state, chat, socket)))
    }
}

/// The connection's life: relays the pipeline's frames and answers the client's.
async fn converse(state: AppState, chat: Chat, mut socket: Socket) {
    let store = state.store.clone();
    let Ok(mut frames) = hub::subscribe(store.as_ref(), &chat.scope).await else {
        return socket.refuse("Internal server error").await;
    };
    let created_at = super::now();
    let listed = |at: &str| {
        let (store, chat, at) = (store.clone(), chat.clone(), at.to_string());
        async move {
            let result = hub::touch(
                store.as_ref(),
                &chat.scope,
                &chat.connection,
                chat.kind,
                &at,
            );
            if let Err(e) = result.await {
                tracing::warn!(error = %e, "debug chat: could not list a connection");
            }
        }
    };
    listed(&created_at).await;
    let connected = json!({
        "type": "connected", "connection_id": chat.connection, "pipeline_uuid": chat.scope.pipeline,
        "session_type": chat.kind, "timestamp": created_at,
    });
    let mut open = socket.send(&connected).await;
    let mut refresh = tokio::time::interval(hub::REFRESH);
    refresh.tick().await;
    let mut touched = Instant::now();
    let in_flight = Rc::new(Cell::new(0usize));
    while open {
        tokio::select! {
            text = socket.next_text() => {
                let Some(text) = text else { break };
                if touched.elapsed() > TOUCH_EVERY {
                    touched = Instant::now();
                    listed(&created_at).await;
                }
                open = on_client_frame(&state, &chat, &mut socket, &text, &in_flight).await;
            }
            envelope = frames.next() => match envelope {
                Some(envelope) => {
                    if let Some(frame) = hub::frame_for(&envelope, chat.kind) {
                        open = socket.send(&frame).await;
                    }
                }
                // The store's subscription was lost: subscribe again, or let the client
                // reconnect (LangBot's dashboard does).
                None => match hub::subscribe(store.as_ref(), &chat.scope).await {
                    Ok(again) => frames = again,
                    Err(_) => break,
                },
            },
            _ = refresh.tick() => listed(&created_at).await,
        }
    }
    if let Err(e) = hub::remove(store.as_ref(), &chat.scope.workspace, &chat.connection).await {
        tracing::warn!(error = %e, "debug chat: could not unlist a connection; it goes stale");
    }
    socket.close().await;
}

/// Handles one client frame; false when the connection must end.
async fn on_client_frame(
    state: &AppState,
    chat: &Chat,
    socket: &mut Socket,
    text: &str,
    in_flight: &Rc<Cell<usize>>,
) -> bool {
    let Ok(frame) = serde_json::from_str::<Value>(text) else {
        return socket
            .send(&json!({ "type": "error", "message": "Invalid JSON format" }))
            .await;
    };
    // LangBot takes a frame without a type for a message.
    match frame["type"].as_str().unwrap_or("message") {
        "ping" => {
            socket
                .send(&json!({ "type": "pong", "timestamp": super::now() }))
                .await
        }
        "disconnect" => false,
        "message" => {
            let Some(ctx) = socket.reauthorize().await else {
                socket
                    .send(&json!({ "type": "error", "message": "Unauthorized" }))
                    .await;
                return false;
            };
            let parsed = chain::parse(&frame["message"]);
            if !chain::is_usable(&parsed) {
                let error = "message must contain text or an image";
                return socket
                    .send(&json!({ "type": "error", "message": error }))
                    .await;
            }
            if in_flight.get() >= MAX_IN_FLIGHT {
                let error = "Too many messages in progress; wait for a reply";
                return socket
                    .send(&json!({ "type": "error", "message": error }))
                    .await;
            }
            let mut chat = chat.clone();
            if let Some(ws) = ctx.workspace {
                // The caller's current permissions and language.
                chat.ws = ws;
            }
            let stream = frame["stream"].as_bool().unwrap_or(true);
            in_flight.set(in_flight.get() + 1);
            let (state, in_flight) = (state.clone(), in_flight.clone());
            // The turn runs beside the socket, which keeps relaying frames (its own
            // streamed reply among them) and answering pings meanwhile.
            actix_web::rt::spawn(async move {
                reply::answer(state, chat, parsed, stream).await;
                in_flight.set(in_flight.get() - 1);
            });
            true
        }
        other => {
            // LangBot ignores unknown frame types.
            tracing::debug!(frame_type = other, "debug chat: unknown frame type ignored");
            true
        }
    }
}
