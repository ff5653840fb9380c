//! OneBot v11 (`onebot-v11`, and the legacy `aiocqhttp`): the protocol NapCat, Lagrange and
//! go-cqhttp speak. Events (`post_type: message`, private or group, segments text/at/image/
//! reply) arrive over a WebSocket; replies are `send_msg` actions on the same socket,
//! answered by `echo`. Three ways to connect:
//! - reverse WebSocket (`onebot-v11`, `reverse_ws`): the implementation connects to
//!   `/bots/{uuid}` on any replica, with the access token ([`reverse`]);
//! - forward WebSocket (`onebot-v11`, `forward_ws`): we connect to `ws_url` (under the lease);
//! - `aiocqhttp`: a reverse WebSocket served on its own host and port (under the lease).

pub mod reverse;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use base64::Engine as _;
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;
use tokio_util::sync::CancellationToken;

use super::supervisor::{self, Ended};
use super::{Image, Outbox, PartOptions, SendResult};
use crate::bots::status::{self, LogLevel};
use crate::entities::bot;
use crate::error::{ApiError, ApiResult};
use crate::runtime::message::{Inbound, Segment, SessionType};
use crate::state::AppState;

/// QQ's practical text limit per message.
const TEXT_LIMIT: usize = 3000;
const CALL_TIMEOUT: Duration = Duration::from_secs(15);

#[derive(Debug, Clone, Deserialize)]
pub struct Config {
    #[serde(default)]
    pub connection_mode: Option<String>,
    #[serde(default)]
    pub ws_url: Option<String>,
    #[serde(default, rename = "access-token")]
    pub access_token: Option<String>,
    #[serde(default)]
    pub self_id: Option<String>,
    #[serde(default)]
    pub host: Option<String>,
    #[serde(default)]
    pub port: Option<u16>,
}

impl Config {
    pub fn of(bot: &bot::Model) -> Result<Self, String> {
        super::config_of(bot, "OneBot")
    }

    fn token(&self) -> Option<&str> {
        self.access_token.as_deref().filter(|t| !t.is_empty())
    }

    /// Whether a connecting implementation presented the access token (`Authorization:
    /// Bearer …` / `Token …`, or `?access_token=`). No token configured: anyone may.
    pub fn admits(&self, authorization: Option<&str>, query: &str) -> bool {
        let Some(expected) = self.token() else {
            return true;
        };
        let header = authorization.map(|h| {
            h.trim_start_matches("Bearer ")
                .trim_start_matches("Token ")
                .trim()
        });
        let query = url::form_urlencoded::parse(query.as_bytes())
            .find(|(k, _)| k == "access_token")
            .map(|(_, v)| v.into_owned());
        [header.map(str::to_string), query]
            .into_iter()
            .flatten()
            .any(|given| crate::access::secrets::equal(&given, expected))
    }
}

/// One live connection: actions out, their answers matched by `echo`.
pub struct Link {
    out: mpsc::UnboundedSender<String>,
    pending: Mutex<HashMap<String, oneshot::Sender<Value>>>,
}

impl Link {
    pub fn new() -> (Arc<Self>, mpsc::UnboundedReceiver<String>) {
        let (out, rx) = mpsc::unbounded_channel();
        (
            Arc::new(Self {
                out,
                pending: Mutex::new(HashMap::new()),
            }),
            rx,
        )
    }

    /// Calls an action and waits for its answer's `data`.
    pub async fn call(&self, action: &str, params: Value) -> Result<Value, String> {
        let echo = uuid::Uuid::new_v4().simple().to_string();
        let (tx, rx) = oneshot::channel();
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(echo.clone(), tx);
        let frame = json!({ "action": action, "params": params, "echo": echo }).to_string();
        if self.out.send(frame).is_err() {
            return Err(format!("{action}: the connection is closed"));
        }
        let answer = tokio::time::timeout(CALL_TIMEOUT, rx).await;
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&echo);
        let answer = match answer {
            Ok(Ok(a)) => a,
            Ok(Err(_)) => return Err(format!("{action}: the connection closed")),
            Err(_) => return Err(format!("{action}: no answer")),
        };
        if answer["status"] == "ok" || answer["retcode"] == 0 {
            Ok(answer["data"].clone())
        } else {
            Err(format!(
                "{action}: retcode {} {}",
                answer["retcode"],
                answer["message"]
                    .as_str()
                    .or(answer["wording"].as_str())
                    .unwrap_or_default()
            ))
        }
    }

    fn answered(&self, frame: &Value) -> bool {
        let Some(echo) = frame.get("echo").map(|e| match e {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }) else {
            return false;
        };
        if frame.get("post_type").is_some() {
            return false;
        }
        if let Some(tx) = self
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&echo)
        {
            let _ = tx.send(frame.clone());
        }
        true
    }
}

/// This process's live connections per bot (for `send_message`).
#[derive(Default)]
pub struct Links(Mutex<HashMap<String, Arc<Link>>>);

impl Links {
    pub fn put(&self, bot: &str, link: &Arc<Link>) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(bot.to_string(), link.clone());
    }

    pub fn remove(&self, bot: &str, link: &Arc<Link>) {
        let mut links = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if links.get(bot).is_some_and(|l| Arc::ptr_eq(l, link)) {
            links.remove(bot);
        }
    }

    fn get(&self, bot: &str) -> Option<Arc<Link>> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(bot)
            .cloned()
    }
}

fn id_of(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// A number where the id is one (OneBot ids are integers), else the string.
fn id_value(id: &str) -> Value {
    id.parse::<i64>()
        .map(Value::from)
        .unwrap_or_else(|_| json!(id))
}

/// The segments of a message: the array form, or the string form with CQ codes.
fn segments_of(message: &Value) -> Vec<Value> {
    match message {
        Value::Array(items) => items.clone(),
        Value::String(s) => cq_segments(s),
        _ => Vec::new(),
    }
}

fn cq_unescape(s: &str) -> String {
    s.replace("&#44;", ",")
        .replace("&#91;", "[")
        .replace("&#93;", "]")
        .replace("&amp;", "&")
}

/// `text[CQ:at,qq=1]more` → text, at, text segments.
fn cq_segments(s: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find("[CQ:") {
        if start > 0 {
            out.push(json!({ "type": "text", "data": { "text": cq_unescape(&rest[..start]) } }));
        }
        let Some(len) = rest[start..].find(']') else {
            break;
        };
        let code = &rest[start + 4..start + len];
        let mut fields = code.split(',');
        let kind = fields.next().unwrap_or_default();
        let data: serde_json::Map<String, Value> = fields
            .filter_map(|f| f.split_once('='))
            .map(|(k, v)| (k.to_string(), json!(cq_unescape(v))))
            .collect();
        out.push(json!({ "type": kind, "data": data }));
        rest = &rest[start + len + 1..];
    }
    if !rest.is_empty() {
        out.push(json!({ "type": "text", "data": { "text": cq_unescape(rest) } }));
    }
    out
}

/// Handles one frame from the implementation: an action's answer, a message event, or a
/// meta event (lifecycle, heartbeat) naming the bot's account.
pub async fn on_frame(
    state: &AppState,
    bot: &bot::Model,
    link: &Arc<Link>,
    adapter: &'static str,
    text: &str,
) {
    let Ok(frame) = serde_json::from_str::<Value>(text) else {
        return;
    };
    if link.answered(&frame) {
        return;
    }
    let self_id = id_of(&frame["self_id"]);
    match frame["post_type"].as_str() {
        Some("meta_event") => {
            if let Some(id) = self_id {
                let known = status::get(state.store.as_ref(), &bot.uuid).await;
                if known.and_then(|s| s.bot_account_id).as_deref() != Some(id.as_str()) {
                    status::set_account(state.store.as_ref(), &bot.uuid, &id, None).await;
                }
            }
        }
        Some("message") => message(state, bot, link, adapter, &frame, self_id).await,
        _ => {}
    }
}

async fn message(
    state: &AppState,
    bot: &bot::Model,
    link: &Arc<Link>,
    adapter: &'static str,
    frame: &Value,
    self_id: Option<String>,
) {
    let Some(user) = id_of(&frame["user_id"]) else {
        return;
    };
    let group = id_of(&frame["group_id"]).filter(|_| frame["message_type"] == "group");
    let (kind, chat) = match &group {
        Some(g) => (SessionType::Group, g.clone()),
        None => (SessionType::Person, user.clone()),
    };
    let account = self_id.or_else(|| {
        Config::of(bot)
            .ok()
            .and_then(|c| c.self_id)
            .filter(|s| !s.is_empty())
    });
    if account.as_deref() == Some(user.as_str()) {
        return; // the bot's own message
    }
    let mut msg = Inbound::new(adapter, kind, chat.clone(), user.clone());
    msg.account_id = account.clone();
    msg.sender_name = frame["sender"]["card"]
        .as_str()
        .filter(|c| !c.is_empty())
        .or(frame["sender"]["nickname"].as_str())
        .map(str::to_string);
    let message_id = id_of(&frame["message_id"]);
    msg.message_id = format!(
        "ob_{}",
        message_id
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().simple().to_string())
    );
    for seg in segments_of(&frame["message"]) {
        let data = &seg["data"];
        match seg["type"].as_str() {
            Some("text") => {
                let text = data["text"].as_str().unwrap_or_default();
                if !text.trim().is_empty() {
                    msg.segments.push(Segment::plain(text.trim()));
                }
            }
            Some("at") => {
                if let Some(qq) = id_of(&data["qq"]).filter(|q| q != "all") {
                    msg.segments.push(Segment::at(qq));
                }
            }
            Some("image") => {
                let url = data["url"]
                    .as_str()
                    .or(data["file"].as_str())
                    .unwrap_or_default();
                if url.starts_with("http://") || url.starts_with("https://") {
                    msg.segments.push(Segment::image_url(url));
                } else if let Some(b64) = url.strip_prefix("base64://") {
                    msg.segments.push(Segment::image_base64(b64));
                }
            }
            Some("reply") => {
                if let Some(id) = id_of(&data["id"]) {
                    msg.segments.push(Segment::quote(id));
                }
            }
            _ => {}
        }
    }
    if msg.segments.is_empty() {
        return;
    }
    let outbox = OneBotOutbox {
        link: link.clone(),
        kind,
        target: chat.clone(),
        reply_to: message_id.clone(),
    };
    let key = message_id.map(|id| format!("ob:{kind:?}:{chat}:{id}"));
    super::accept(state, bot.clone(), msg, Box::new(outbox), key).await;
}

/// Replies to one chat over a connection.
pub struct OneBotOutbox {
    link: Arc<Link>,
    kind: SessionType,
    target: String,
    reply_to: Option<String>,
}

impl OneBotOutbox {
    async fn send(&self, mut segments: Vec<Value>, opts: &PartOptions) -> SendResult {
        if let Some(user) = opts
            .mention
            .as_deref()
            .filter(|_| self.kind == SessionType::Group)
        {
            segments.insert(0, json!({ "type": "at", "data": { "qq": user } }));
        }
        if let (true, Some(id)) = (
            opts.quote && self.kind == SessionType::Group,
            &self.reply_to,
        ) {
            segments.insert(0, json!({ "type": "reply", "data": { "id": id } }));
        }
        let mut params = json!({ "message_type": match self.kind { SessionType::Group => "group", SessionType::Person => "private" }, "message": segments });
        let key = if self.kind == SessionType::Group {
            "group_id"
        } else {
            "user_id"
        };
        params[key] = id_value(&self.target);
        let data = self.link.call("send_msg", params).await?;
        Ok(id_of(&data["message_id"]))
    }
}

#[async_trait]
impl Outbox for OneBotOutbox {
    fn text_limit(&self) -> usize {
        TEXT_LIMIT
    }

    async fn text(&self, _: &AppState, text: &str, opts: &PartOptions) -> SendResult {
        self.send(
            vec![json!({ "type": "text", "data": { "text": text } })],
            opts,
        )
        .await
    }

    async fn image(&self, _: &AppState, image: &Image, opts: &PartOptions) -> SendResult {
        let file = match image {
            Image::Url(url) => url.clone(),
            Image::Bytes(b) => format!(
                "base64://{}",
                base64::engine::general_purpose::STANDARD.encode(b)
            ),
        };
        self.send(
            vec![json!({ "type": "image", "data": { "file": file } })],
            opts,
        )
        .await
    }
}

/// `send_message` through the bot's connection on this replica.
pub fn outbox_for(
    state: &AppState,
    bot: &bot::Model,
    kind: SessionType,
    target: &str,
) -> ApiResult<Box<dyn Outbox>> {
    let link = state.parts.get::<Links>().get(&bot.uuid).ok_or_else(|| {
        ApiError::unavailable("The bot has no live OneBot connection on this replica")
    })?;
    Ok(Box::new(OneBotOutbox {
        link,
        kind,
        target: target.to_string(),
        reply_to: None,
    }))
}

/// Serves one WebSocket connection until it closes or `stop`.
async fn serve<S>(
    state: &AppState,
    bot: &bot::Model,
    adapter: &'static str,
    ws: WebSocketStream<S>,
    stop: &CancellationToken,
) -> Ended
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let (link, mut out) = Link::new();
    let links = state.parts.get::<Links>();
    links.put(&bot.uuid, &link);
    let (mut sink, mut stream) = ws.split();
    let ended = loop {
        tokio::select! {
            _ = stop.cancelled() => {
                let _ = sink.send(Message::Close(None)).await;
                break Ended::Stopped;
            }
            Some(frame) = out.recv() => {
                if let Err(e) = sink.send(Message::text(frame)).await {
                    break Ended::Closed(e.to_string());
                }
            }
            incoming = stream.next() => match incoming {
                Some(Ok(Message::Text(text))) => on_frame(state, bot, &link, adapter, text.as_str()).await,
                Some(Ok(Message::Ping(p))) => { let _ = sink.send(Message::Pong(p)).await; }
                Some(Ok(Message::Close(_))) | None => break Ended::Closed("closed by the peer".into()),
                Some(Err(e)) => break Ended::Closed(e.to_string()),
                Some(Ok(_)) => {}
            }
        }
    };
    links.remove(&bot.uuid, &link);
    ended
}

/// `onebot-v11` in `forward_ws` mode: connects to the implementation's `ws_url`.
pub async fn run_forward(state: AppState, bot: Arc<bot::Model>, stop: CancellationToken) {
    supervisor::reconnecting(&state, &bot.uuid, &stop, || async {
        let config = Config::of(&bot)?;
        let url = config
            .ws_url
            .clone()
            .filter(|u| !u.is_empty())
            .ok_or("ws_url is not set")?;
        let mut request = url
            .as_str()
            .into_client_request()
            .map_err(|e| format!("ws_url is not a WebSocket URL: {e}"))?;
        if let Some(token) = config.token() {
            let value = format!("Bearer {token}")
                .parse()
                .map_err(|_| "the access token is not a valid header value")?;
            request.headers_mut().insert("authorization", value);
        }
        let connect = tokio_tungstenite::connect_async(request);
        let (ws, _) = tokio::time::timeout(Duration::from_secs(15), connect)
            .await
            .map_err(|_| {
                format!(
                    "timed out connecting to {}",
                    crate::forms::secrets::redact_url(&url)
                )
            })?
            .map_err(|e| {
                format!(
                    "could not connect to {}: {e}",
                    crate::forms::secrets::redact_url(&url)
                )
            })?;
        supervisor::running(&state, &bot.uuid).await;
        Ok(serve(&state, &bot, crate::bots::adapters::ONEBOT_V11, ws, &stop).await)
    })
    .await;
}

/// `aiocqhttp`: serves the reverse WebSocket on the configured host and port.
pub async fn run_listener(state: AppState, bot: Arc<bot::Model>, stop: CancellationToken) {
    supervisor::reconnecting(&state, &bot.uuid, &stop, || async {
        let config = Config::of(&bot)?;
        let host = config.host.clone().unwrap_or_else(|| "0.0.0.0".into());
        let port = config.port.unwrap_or(2280);
        let listener = tokio::net::TcpListener::bind((host.as_str(), port))
            .await
            .map_err(|e| format!("could not listen on {host}:{port}: {e}"))?;
        supervisor::running(&state, &bot.uuid).await;
        let conns = tokio_util::task::TaskTracker::new();
        let ended = loop {
            let (socket, _) = tokio::select! {
                _ = stop.cancelled() => break Ok(Ended::Stopped),
                accepted = listener.accept() => match accepted {
                    Ok(a) => a,
                    Err(e) => break Err(format!("accept failed: {e}")),
                },
            };
            let (state, bot, stop, config) =
                (state.clone(), bot.clone(), stop.clone(), config.clone());
            conns.spawn(async move {
                match handshake(socket, &config).await {
                    Ok(ws) => {
                        let connected = "a OneBot implementation connected";
                        status::log(state.store.as_ref(), &bot.uuid, LogLevel::Info, connected)
                            .await;
                        let ended =
                            serve(&state, &bot, crate::bots::adapters::AIOCQHTTP, ws, &stop).await;
                        if let Ended::Closed(why) = ended {
                            let text = format!(
                                "the OneBot implementation disconnected ({why}); waiting for it to connect again"
                            );
                            status::log(state.store.as_ref(), &bot.uuid, LogLevel::Warning, text)
                                .await;
                        }
                    }
                    Err(true) => {
                        let refused = "refused a OneBot connection: wrong or missing access token";
                        status::log(state.store.as_ref(), &bot.uuid, LogLevel::Warning, refused)
                            .await;
                    }
                    Err(false) => {}
                }
            });
        };
        conns.close();
        conns.wait().await;
        ended
    })
    .await;
}

/// The server side of a WebSocket handshake checking the access token; `Err(true)` when
/// the token was wrong or missing.
async fn handshake(
    socket: tokio::net::TcpStream,
    config: &Config,
) -> Result<tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>, bool> {
    use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
    let mut admitted = true;
    // The callback's error type is tungstenite's, as its trait demands.
    #[expect(clippy::result_large_err, reason = "tungstenite's callback signature")]
    let check = |req: &Request, resp: Response| -> Result<Response, ErrorResponse> {
        let auth = req
            .headers()
            .get("authorization")
            .and_then(|v| v.to_str().ok());
        if config.admits(auth, req.uri().query().unwrap_or_default()) {
            Ok(resp)
        } else {
            admitted = false;
            let mut refusal = ErrorResponse::new(Some("wrong access token".into()));
            *refusal.status_mut() = tokio_tungstenite::tungstenite::http::StatusCode::UNAUTHORIZED;
            Err(refusal)
        }
    };
    let accepted = tokio_tungstenite::accept_hdr_async(socket, check).await;
    accepted.map_err(|_| !admitted)
}
