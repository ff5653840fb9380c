//! Debug chat over WebSocket: `GET /api/v1/pipelines/{pipeline_uuid}/ws`, a catalog
//! operation (the catalog's socket face authorizes: `runtime.operate`, with the session
//! token in `Authorization`, `?token=` or a first `authenticate` frame). Each
//! `{"type":"message","message":"…"}` runs a debug turn whose reply streams as `chunk`
//! frames, then a final `response` frame.

use serde::Deserialize;
use serde_json::{json, Value};
use utoipa::IntoParams;
use uuid::Uuid;

use super::message::{plain_text, Segment, SessionType};
use super::ops::DEBUG_BOT;
use super::turn::{self, TurnInput};
use crate::access::{Access, Permission, RequestCtx, WorkspaceCtx};
use crate::catalog::{Input, NoBody, NoParams, OpMeta, Operation, Socket, WebSocket};
use crate::entities::execution::ExecutionMode;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// `{pipeline_uuid}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct PipelinePath {
    pub pipeline_uuid: Uuid,
}

pub struct PipelineDebugChat;

impl Operation for PipelineDebugChat {
    const META: OpMeta = OpMeta::get("pipeline_debug_chat", "/pipelines/{pipeline_uuid}/ws")
        .tag("pipelines")
        .summary("Debug chat with a pipeline over a WebSocket")
        .description(
            "Text frames: send `{\"type\":\"message\",\"message\":\"…\"}` (or a message chain), \
             `ping` or `disconnect`; receive `connected`, then per message `chunk` frames as the \
             reply streams and a final `response` frame with the execution id.",
        )
        .access(Access::SessionWorkspace)
        .permission(Permission::RuntimeOperate);
    type Path = PipelinePath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = WebSocket;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PipelinePath, NoParams, NoBody>,
    ) -> ApiResult<WebSocket> {
        let not_found = || ApiError::not_found().msg("Pipeline not found");
        let ws = ctx.workspace()?.clone();
        let pipeline = crate::pipelines::service::get(&state.db, &ws, &input.path.pipeline_uuid)
            .await
            .map_err(|_| not_found())?;
        let state = state.clone();
        Ok(WebSocket::new(move |socket| {
            converse(state, ws, pipeline, socket)
        }))
    }
}

/// The socket's life: one debug turn per `message` frame.
async fn converse(
    state: AppState,
    ws: WorkspaceCtx,
    pipeline: crate::entities::pipeline::Model,
    mut socket: Socket,
) {
    let connection = Uuid::new_v4().simple().to_string();
    socket
        .send(&json!({ "type": "connected", "connection_id": connection, "pipeline_uuid": pipeline.uuid }))
        .await;
    while let Some(text) = socket.next_text().await {
        let v: Value = serde_json::from_str(&text).unwrap_or_default();
        match v["type"].as_str() {
            Some("ping") => {
                socket.send(&json!({ "type": "pong" })).await;
            }
            Some("message") => {
                let segments = match &v["message"] {
                    Value::String(s) => vec![Segment::plain(s.clone())],
                    other => serde_json::from_value(other.clone()).unwrap_or_default(),
                };
                if plain_text(&segments).is_empty() {
                    socket
                        .send(&json!({ "type": "error", "message": "message must contain text" }))
                        .await;
                    continue;
                }
                // Each message runs the pipeline as it is now: an edit made while the chat
                // is open applies to the next message.
                let Ok(current) = reload(&state, &ws, &pipeline.uuid).await else {
                    socket
                        .send(&json!({ "type": "error", "message": "Pipeline not found" }))
                        .await;
                    break;
                };
                chat(&state, &ws, &current, &connection, segments, &mut socket).await;
            }
            Some("disconnect") => break,
            _ => {
                socket
                    .send(&json!({ "type": "error", "message": "unknown frame type" }))
                    .await;
            }
        }
    }
    socket.close().await;
}

/// The pipeline as stored now.
pub(super) async fn reload(
    state: &AppState,
    ws: &WorkspaceCtx,
    uuid: &str,
) -> ApiResult<crate::entities::pipeline::Model> {
    let uuid = Uuid::parse_str(uuid).map_err(|_| ApiError::not_found())?;
    crate::pipelines::service::get(&state.db, ws, &uuid).await
}

/// Runs one debug turn, streaming its text as it comes.
async fn chat(
    state: &AppState,
    ws: &WorkspaceCtx,
    pipeline: &crate::entities::pipeline::Model,
    connection: &str,
    segments: Vec<Segment>,
    socket: &mut Socket,
) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let input = TurnInput {
        ws: ws.clone(),
        bot_id: DEBUG_BOT.into(),
        bot_name: "Debug".into(),
        pipeline: pipeline.clone(),
        kind: SessionType::Person,
        chat_id: format!("websocket_{connection}"),
        sender_id: format!("websocket_{connection}"),
        sender_name: Some("Debug".into()),
        segments,
        is_at_bot: false,
        message_id: format!("in_{}", Uuid::new_v4().simple()),
        event_id: None,
        mode: ExecutionMode::Debug,
        queued: None,
        deltas: Some(tx),
    };
    let turn = turn::run(state, input);
    tokio::pin!(turn);
    let output = loop {
        tokio::select! {
            out = &mut turn => break out,
            Some(delta) = rx.recv() => {
                socket.send(&json!({ "type": "chunk", "content": delta })).await;
            }
        }
    };
    while let Ok(delta) = rx.try_recv() {
        socket
            .send(&json!({ "type": "chunk", "content": delta }))
            .await;
    }
    let total = output.replies.len();
    for (i, reply) in output.replies.iter().enumerate() {
        let frame = json!({ "type": "response", "data": {
            "role": "assistant", "content": plain_text(reply), "message_chain": reply, "is_final": i + 1 == total,
            "execution_id": output.execution_id } });
        socket.send(&frame).await;
    }
    if total == 0 {
        socket
            .send(&json!({ "type": "response", "data": { "role": "assistant", "content": "", "message_chain": [], "is_final": true,
                "status": output.status, "execution_id": output.execution_id } }))
            .await;
    }
}
