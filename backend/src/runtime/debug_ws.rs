//! Debug chat over WebSocket: `GET /api/v1/pipelines/{pipeline_uuid}/ws`. The session token
//! comes as `?token=` or in a first `{"type":"authenticate","token":…}` frame; the caller
//! needs `runtime.operate`. Each `{"type":"message","message":"…"}` runs a debug turn whose
//! reply streams as `chunk` frames, then a final `response` frame.

use std::time::Duration;

use actix_web::{web, HttpRequest, HttpResponse};
use actix_ws::Message;
use futures_util::StreamExt;
use serde_json::{json, Value};
use uuid::Uuid;

use super::message::{plain_text, Segment, SessionType};
use super::ops::DEBUG_BOT;
use super::turn::{self, TurnInput};
use crate::access::{Credentials, Permission, RequestCtx, WorkspaceCtx};
use crate::catalog::{Access, Method, OpMeta};
use crate::http::{client_ip, RequestId};
use crate::state::AppState;

const AUTH_TIMEOUT: Duration = Duration::from_secs(10);

/// The access rule the socket enforces (like a catalog operation).
const WS_ACCESS: OpMeta = OpMeta {
    id: "pipeline_debug_chat",
    method: Method::Get,
    path: "/pipelines/{pipeline_uuid}/ws",
    summary: "",
    description: "",
    tag: "pipelines",
    access: Access::SessionWorkspace,
    permission: Some(Permission::RuntimeOperate),
    errors: &[],
    mcp: None,
};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route(
        "/api/v1/pipelines/{pipeline_uuid}/ws",
        web::get().to(connect),
    );
}

async fn connect(
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Payload,
    state: web::Data<AppState>,
) -> actix_web::Result<HttpResponse> {
    let (response, mut session, mut frames) = actix_ws::handle(&req, body)?;
    let query: Value =
        serde_urlencoded::from_str::<std::collections::HashMap<String, String>>(req.query_string())
            .map(|m| json!(m))
            .unwrap_or_default();
    let mut creds = crate::catalog::http::credentials(&req);
    if let Some(token) = query["token"].as_str() {
        creds.bearer = Some(token.to_string());
    }
    let base = RequestCtx::anonymous(RequestId::of(&req), client_ip(&req, &state.trusted_proxies));
    let state = state.into_inner();
    let pipeline_id = path.into_inner();
    actix_web::rt::spawn(async move {
        // Without a token in the URL, the first frame must authenticate.
        if creds.bearer.is_none() {
            match tokio::time::timeout(AUTH_TIMEOUT, frames.next()).await {
                Ok(Some(Ok(Message::Text(text)))) => {
                    let v: Value = serde_json::from_str(&text).unwrap_or_default();
                    creds.bearer = v["token"].as_str().map(str::to_string);
                    creds.workspace_id = v["workspace_uuid"].as_str().map(str::to_string);
                }
                _ => {
                    let _ = session
                        .text(json!({ "type": "error", "message": "Unauthorized" }).to_string())
                        .await;
                    let _ = session.close(None).await;
                    return;
                }
            }
        }
        let ctx = match authorize(&state, &creds, base).await {
            Some(ctx) => ctx,
            None => {
                let _ = session
                    .text(json!({ "type": "error", "message": "Unauthorized" }).to_string())
                    .await;
                let _ = session.close(None).await;
                return;
            }
        };
        let Some(ws) = ctx.workspace.clone() else {
            return;
        };
        let pipeline = match Uuid::parse_str(&pipeline_id) {
            Ok(u) => crate::pipelines::service::get(&state.db, &ws, &u)
                .await
                .ok(),
            Err(_) => None,
        };
        let Some(pipeline) = pipeline else {
            let _ = session
                .text(json!({ "type": "error", "message": "Pipeline not found" }).to_string())
                .await;
            let _ = session.close(None).await;
            return;
        };
        let connection = Uuid::new_v4().simple().to_string();
        let _ = session
            .text(json!({ "type": "connected", "connection_id": connection, "pipeline_uuid": pipeline.uuid }).to_string())
            .await;
        while let Some(Ok(frame)) = frames.next().await {
            match frame {
                Message::Text(text) => {
                    let v: Value = serde_json::from_str(&text).unwrap_or_default();
                    match v["type"].as_str() {
                        Some("ping") => {
                            let _ = session.text(json!({ "type": "pong" }).to_string()).await;
                        }
                        Some("message") => {
                            let segments = match &v["message"] {
                                Value::String(s) => vec![Segment::plain(s.clone())],
                                other => serde_json::from_value(other.clone()).unwrap_or_default(),
                            };
                            if plain_text(&segments).is_empty() {
                                let _ = session.text(json!({ "type": "error", "message": "message must contain text" }).to_string()).await;
                                continue;
                            }
                            chat(&state, &ws, &pipeline, &connection, segments, &mut session).await;
                        }
                        Some("disconnect") => break,
                        _ => {
                            let _ = session
                                .text(
                                    json!({ "type": "error", "message": "unknown frame type" })
                                        .to_string(),
                                )
                                .await;
                        }
                    }
                }
                Message::Ping(bytes) => {
                    let _ = session.pong(&bytes).await;
                }
                Message::Close(_) => break,
                _ => {}
            }
        }
        let _ = session.close(None).await;
    });
    Ok(response)
}

async fn authorize(state: &AppState, creds: &Credentials, base: RequestCtx) -> Option<RequestCtx> {
    crate::catalog::authorize(state, &WS_ACCESS, creds, base)
        .await
        .ok()
}

/// Runs one debug turn, streaming its text as it comes.
async fn chat(
    state: &AppState,
    ws: &WorkspaceCtx,
    pipeline: &crate::entities::pipeline::Model,
    connection: &str,
    segments: Vec<Segment>,
    session: &mut actix_ws::Session,
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
        mode: "debug",
        deltas: Some(tx),
    };
    let turn = turn::run(state, input);
    tokio::pin!(turn);
    let output = loop {
        tokio::select! {
            out = &mut turn => break out,
            Some(delta) = rx.recv() => {
                let _ = session.text(json!({ "type": "chunk", "content": delta }).to_string()).await;
            }
        }
    };
    while let Ok(delta) = rx.try_recv() {
        let _ = session
            .text(json!({ "type": "chunk", "content": delta }).to_string())
            .await;
    }
    let total = output.replies.len();
    for (i, reply) in output.replies.iter().enumerate() {
        let frame = json!({ "type": "response", "data": {
            "role": "assistant", "content": plain_text(reply), "message_chain": reply, "is_final": i + 1 == total,
            "execution_id": output.execution_id } });
        let _ = session.text(frame.to_string()).await;
    }
    if total == 0 {
        let _ = session
            .text(json!({ "type": "response", "data": { "role": "assistant", "content": "", "message_chain": [], "is_final": true,
                "status": output.status, "execution_id": output.execution_id } }).to_string())
            .await;
    }
}
