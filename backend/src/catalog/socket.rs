//! The WebSocket face: upgrade, authorize like any operation (browsers cannot set headers
//! on a WebSocket, so the session token may also come as `?token=` or in a first
//! `{"type":"authenticate","token":…,"workspace_uuid":…}` frame), run the operation, then
//! hand the socket to the session it returned. Refusals are an `error` frame, then close.

use std::time::Duration;

use actix_web::{web, FromRequest, HttpRequest, HttpResponse, ResponseError};
use actix_ws::Message;
use futures_util::StreamExt;
use serde_json::{json, Value};

use super::output::WebSocket;
use super::router::Handler;
use super::{authorize, input, request, Input, OpMeta, Operation, QueryInput};
use crate::access::{Credentials, RequestCtx};
use crate::error::ApiError;
use crate::state::AppState;

const AUTH_TIMEOUT: Duration = Duration::from_secs(10);

/// An upgraded connection carrying JSON text frames.
pub struct Socket {
    session: actix_ws::Session,
    frames: actix_ws::MessageStream,
    /// What authorized the connection, kept so a session can check it again later.
    grant: Option<Grant>,
}

/// The credentials a socket was authorized with, against its operation's declaration.
struct Grant {
    state: std::sync::Arc<AppState>,
    meta: OpMeta,
    creds: Credentials,
    base: RequestCtx,
    workspace: Option<uuid::Uuid>,
}

impl Socket {
    /// Authorizes the connection's credentials again (a long-lived socket outlives a logout,
    /// a removal from the Workspace or a role change): the fresh context, or `None` when
    /// they no longer grant the operation in the same Workspace.
    pub async fn reauthorize(&self) -> Option<RequestCtx> {
        let grant = self.grant.as_ref()?;
        let ctx = authorize(&grant.state, &grant.meta, &grant.creds, grant.base.clone())
            .await
            .ok()?;
        let workspace = ctx.workspace.as_ref().map(|w| w.uuid);
        (workspace == grant.workspace).then_some(ctx)
    }

    /// Sends one JSON frame; false once the peer has gone.
    pub async fn send(&mut self, frame: &Value) -> bool {
        self.session.text(frame.to_string()).await.is_ok()
    }

    /// The next text frame, answering pings on the way; `None` once the peer closed.
    pub async fn next_text(&mut self) -> Option<String> {
        while let Some(Ok(message)) = self.frames.next().await {
            match message {
                Message::Text(text) => return Some(text.to_string()),
                Message::Ping(bytes) if self.session.pong(&bytes).await.is_err() => return None,
                Message::Close(_) => return None,
                _ => {}
            }
        }
        None
    }

    /// Sends an `error` frame and closes.
    pub async fn refuse(mut self, message: &str) {
        self.send(&json!({ "type": "error", "message": message }))
            .await;
        self.close().await;
    }

    pub async fn close(self) {
        let _ = self.session.close(None).await;
    }
}

pub(super) fn handler<O: Operation<Output = WebSocket>>() -> Handler {
    |req, mut payload, state| {
        Box::pin(async move {
            let connected = match web::Payload::from_request(&req, &mut payload).await {
                Ok(payload) => connect::<O>(req, payload, state).await,
                Err(e) => Err(e),
            };
            connected.unwrap_or_else(HttpResponse::from_error)
        })
    }
}

fn is_upgrade(req: &HttpRequest) -> bool {
    req.headers()
        .get(actix_web::http::header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

/// The query without `token` (a credential, not an input of the operation).
fn query_without_token(req: &HttpRequest) -> (Option<String>, String) {
    let mut token = None;
    let mut rest = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in url::form_urlencoded::parse(req.query_string().as_bytes()) {
        if k == "token" {
            token = Some(v.into_owned());
        } else {
            rest.append_pair(&k, &v);
        }
    }
    (token, rest.finish())
}

async fn connect<O: Operation<Output = WebSocket>>(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> actix_web::Result<HttpResponse> {
    let mut creds = request::credentials(&req);
    let (token, query) = query_without_token(&req);
    if token.is_some() {
        creds.bearer = token;
    }
    let base = request::anonymous_ctx(&req, &state);
    let path = req
        .match_info()
        .load::<O::Path>()
        .map_err(|e| ApiError::invalid(format!("Invalid path parameter: {e}")));
    let query = O::Query::from_query(&query);
    if !is_upgrade(&req) {
        // A plain request is authorized and checked like any operation, so its refusal is
        // the usual JSON error; only then does it learn it must upgrade.
        return Ok(
            match refuse_plain::<O>(&state, &creds, base, path, query).await {
                Err(e) => e.error_response(),
                Ok(()) => {
                    ApiError::invalid("This operation needs a WebSocket upgrade").error_response()
                }
            },
        );
    }
    let (response, session, frames) = actix_ws::handle(&req, payload)?;
    let mut socket = Socket {
        session,
        frames,
        grant: None,
    };
    let state = state.into_inner();
    actix_web::rt::spawn(async move {
        // Without a token so far, the first frame must authenticate.
        if creds.bearer.is_none() && creds.api_key.is_none() {
            let first = tokio::time::timeout(AUTH_TIMEOUT, socket.next_text()).await;
            let Ok(Some(text)) = first else {
                return socket.refuse("Unauthorized").await;
            };
            let frame: Value = serde_json::from_str(&text).unwrap_or_default();
            creds.bearer = frame["token"].as_str().map(str::to_string);
            creds.workspace_id = frame["workspace_uuid"].as_str().map(str::to_string);
        }
        let Ok(ctx) = authorize(&state, &O::META, &creds, base.clone()).await else {
            return socket.refuse("Unauthorized").await;
        };
        socket.grant = Some(Grant {
            state: state.clone(),
            meta: O::META,
            workspace: ctx.workspace.as_ref().map(|w| w.uuid),
            creds,
            base,
        });
        let input = match (path, query) {
            (Ok(path), Ok(query)) => Input {
                path,
                query,
                body: match input::from_value::<O::Body>(Value::Null, "") {
                    Ok(body) => body,
                    Err(e) => return socket.refuse(e.english()).await,
                },
            },
            (Err(e), _) | (_, Err(e)) => return socket.refuse(e.english()).await,
        };
        match O::run(&state, &ctx, input).await {
            Ok(WebSocket { session }) => session(socket).await,
            Err(e) => socket.refuse(e.english()).await,
        }
    });
    Ok(response)
}

async fn refuse_plain<O: Operation<Output = WebSocket>>(
    state: &AppState,
    creds: &crate::access::Credentials,
    base: crate::access::RequestCtx,
    path: Result<O::Path, ApiError>,
    query: Result<O::Query, ApiError>,
) -> Result<(), ApiError> {
    let ctx = authorize(state, &O::META, creds, base).await?;
    let input = Input {
        path: path?,
        query: query?,
        body: input::from_value::<O::Body>(Value::Null, "")?,
    };
    O::run(state, &ctx, input).await.map(drop)
}
