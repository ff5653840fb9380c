//! The `http_bot` adapter (contract `langbot-http-bot.openapi.json`): signed inbound messages
//! at `POST /bots/{bot_uuid}` (202, replies to the callback URL), `/sync` (waits for the
//! replies) and `/reset`. Errors use the contract's envelope `{code, msg, data}`.

use std::time::Duration;

use actix_web::{web, HttpRequest, HttpResponse};
use backon::{ExponentialBuilder, Retryable};
use serde::Deserialize;
use serde_json::{json, Value};
use uuid::Uuid;

use super::conversation::{self, ConversationKey};
use super::dispatch::{self, Routed};
use super::message::Inbound;
use super::message::{plain_text, session_id, Segment, SessionType};
use super::recorder;
use super::signing;
use crate::access::WorkspaceCtx;
use crate::bots::adapters::HTTP_BOT;
use crate::entities::bot;
use crate::entities::execution::ExecutionMode;
use crate::state::AppState;

const SYNC_WAIT: Duration = Duration::from_secs(120);
const IDEMPOTENCY_WINDOW: Duration = Duration::from_secs(24 * 3600);

/// The adapter config as stored (validated on save).
#[derive(Debug, Clone, Deserialize)]
pub struct HttpBotConfig {
    pub inbound_secret: String,
    pub callback_url: String,
    #[serde(default)]
    pub outbound_secret: Option<String>,
    #[serde(default)]
    pub default_session_type: SessionType,
    #[serde(default = "yes")]
    pub signature_required: bool,
    #[serde(default = "fifteen")]
    pub callback_timeout: u64,
    #[serde(default = "three")]
    pub callback_max_retries: u32,
}

fn yes() -> bool {
    true
}
fn fifteen() -> u64 {
    15
}
fn three() -> u32 {
    3
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Sender {
    id: Option<String>,
    name: Option<String>,
    group_name: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InboundMessage {
    session_id: String,
    session_type: Option<SessionType>,
    #[serde(default)]
    sender: Sender,
    message: Vec<Segment>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ResetRequest {
    session_id: String,
    session_type: Option<SessionType>,
}

/// A refused request, answered with the contract's error envelope `{code, msg, data}`.
struct Refused {
    status: StatusCode,
    code: i64,
    msg: String,
}

fn refuse(status: StatusCode, code: i64, msg: impl Into<String>) -> Refused {
    Refused {
        status,
        code,
        msg: msg.into(),
    }
}

impl From<Refused> for HttpResponse {
    fn from(r: Refused) -> Self {
        HttpResponse::build(r.status)
            .json(json!({ "code": r.code, "msg": r.msg, "data": Value::Null }))
    }
}

use actix_web::http::StatusCode;

/// A verified request: the bot, its config, its Workspace, the raw body.
struct Verified {
    bot: bot::Model,
    config: HttpBotConfig,
    ws: WorkspaceCtx,
    body: web::BytesMut,
}

fn not_found() -> Refused {
    refuse(StatusCode::NOT_FOUND, 40401, "bot not found")
}

async fn find(state: &AppState, raw_uuid: &str) -> Result<bot::Model, Refused> {
    let uuid = Uuid::parse_str(raw_uuid).map_err(|_| not_found())?;
    crate::bots::service::find_for_ingress(&state.db, &uuid)
        .await
        .map_err(|e| {
            if e.code == crate::error::ErrorCode::Unavailable {
                state.parts.get::<crate::db_health::DbHealth>().suspect();
            }
            refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                50301,
                "storage unavailable",
            )
        })?
        .ok_or_else(not_found)
}

/// The bot a public `/bots/{uuid}` request names (any adapter); 404 in the contract's
/// envelope when there is none.
pub async fn load(state: &AppState, raw_uuid: &str) -> Result<bot::Model, HttpResponse> {
    find(state, raw_uuid).await.map_err(HttpResponse::from)
}

/// The contract's 404 for a bot that is not there (or not of this adapter).
pub fn bot_not_found() -> HttpResponse {
    not_found().into()
}

async fn verify(
    req: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
    raw_uuid: &str,
) -> Result<Verified, Refused> {
    let bot = find(state, raw_uuid).await?;
    if bot.adapter != HTTP_BOT {
        return Err(not_found());
    }
    verify_loaded(req, payload, state, bot).await
}

async fn verify_loaded(
    req: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
    bot: bot::Model,
) -> Result<Verified, Refused> {
    if !bot.enable {
        return Err(refuse(StatusCode::FORBIDDEN, 40301, "bot is disabled"));
    }
    let body = crate::http::read_body(req, payload, state.settings.api.body_limit)
        .await
        .map_err(|e| match e.code {
            crate::error::ErrorCode::PayloadTooLarge => {
                refuse(StatusCode::PAYLOAD_TOO_LARGE, 41301, "payload too large")
            }
            _ => refuse(StatusCode::BAD_REQUEST, 40001, "could not read the body"),
        })?;
    let config: HttpBotConfig =
        serde_json::from_value(bot.adapter_config.clone()).map_err(|_| {
            refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                50302,
                "bot configuration is incomplete",
            )
        })?;
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let signature = header("x-lb-signature");
    if config.signature_required || signature.is_some() {
        let now = chrono::Utc::now().timestamp();
        if let Err(refusal) = signing::verify(
            &config.inbound_secret,
            header("x-lb-timestamp").as_deref(),
            signature.as_deref(),
            &body,
            now,
        ) {
            let code = match refusal {
                signing::Refusal::TimestampMissing | signing::Refusal::TimestampOutOfWindow => {
                    40102
                }
                _ => 40101,
            };
            crate::bots::status::log(
                state.store.as_ref(),
                &bot.uuid,
                crate::bots::status::LogLevel::Warning,
                format!("refused an inbound request: {}", refusal.reason()),
            )
            .await;
            return Err(refuse(StatusCode::UNAUTHORIZED, code, refusal.reason()));
        }
    }
    let ws = super::adapters::workspace_of(state, &bot).await;
    Ok(Verified {
        bot,
        config,
        ws,
        body,
    })
}

fn parse<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, Refused> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| refuse(StatusCode::BAD_REQUEST, 40001, format!("invalid json: {e}")))?;
    serde_json::from_value(value).map_err(|e| {
        refuse(
            StatusCode::BAD_REQUEST,
            40002,
            format!("invalid message: {e}"),
        )
    })
}

/// The trimmed session id, 1 to 255 characters.
fn checked_session(raw: &str) -> Result<String, Refused> {
    let session = raw.trim();
    if session.is_empty() || session.len() > 255 {
        return Err(refuse(
            StatusCode::BAD_REQUEST,
            40002,
            "invalid message: session_id must be 1 to 255 characters",
        ));
    }
    Ok(session.to_string())
}

fn normalize(v: &Verified, msg: InboundMessage) -> Result<Inbound, Refused> {
    let session = checked_session(&msg.session_id)?;
    if msg.message.is_empty() || msg.message.len() > 100 {
        return Err(refuse(
            StatusCode::BAD_REQUEST,
            40002,
            "invalid message: message must have 1 to 100 segments",
        ));
    }
    let kind = msg.session_type.unwrap_or(v.config.default_session_type);
    let sender = msg
        .sender
        .id
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| session.clone());
    let mut inbound = Inbound::new(HTTP_BOT, kind, session, sender);
    inbound.sender_name = msg.sender.name;
    inbound.group_name = msg.sender.group_name;
    inbound.segments = msg.message;
    inbound.message_id = format!("in_{}", Uuid::new_v4().simple());
    Ok(inbound)
}

/// `POST /bots/{bot_uuid}` of an http_bot: accept, answer 202, reply through the callback URL.
pub async fn inbound(
    req: HttpRequest,
    bot: bot::Model,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let v = match verify_loaded(&req, payload, &state, bot).await {
        Ok(v) => v,
        Err(refused) => return refused.into(),
    };
    let msg = match parse::<InboundMessage>(&v.body).and_then(|m| normalize(&v, m)) {
        Ok(m) => m,
        Err(refused) => return refused.into(),
    };
    let mut idempotency_key = None;
    if let Some(key) = req
        .headers()
        .get("x-lb-idempotency-key")
        .and_then(|h| h.to_str().ok())
    {
        let key = format!("idem:{}:{}", v.bot.uuid, crate::access::secrets::hash(key));
        match state
            .store
            .set_if_absent(&key, b"1", IDEMPOTENCY_WINDOW)
            .await
        {
            Ok(true) => idempotency_key = Some(key),
            Ok(false) => {
                return refuse(StatusCode::CONFLICT, 40901, "duplicate idempotency key").into()
            }
            Err(_) => {
                return refuse(
                    StatusCode::SERVICE_UNAVAILABLE,
                    50301,
                    "storage unavailable",
                )
                .into()
            }
        }
    }
    // The message is durable before it is acknowledged: when a pipeline takes it, its
    // execution is on record (`queued`) before the 202, so a replica that dies after
    // answering leaves an execution the others' reaper fails, never a message without one.
    let target = match super::adapters::routed_pipeline(&state, &v.ws, &v.bot, &msg).await {
        Ok(target) => target,
        Err(_) => return unavailable(&state, idempotency_key.as_deref()).await,
    };
    let aggregate = target.as_ref().and_then(super::adapters::aggregation_of);
    let mut msg = msg;
    let queued = match target {
        Some(pipeline) => {
            let scope = recorder::Scope {
                workspace: v.ws.uuid.to_string(),
                execution_id: Uuid::new_v4().to_string(),
                bot_id: v.bot.uuid.clone(),
                bot_name: v.bot.name.clone(),
                pipeline_id: pipeline.uuid.clone(),
                pipeline_name: pipeline.name.clone(),
                session_id: session_id(msg.kind, &msg.chat_id),
                mode: ExecutionMode::Real,
                lease: state.settings.monitoring.execution_lease,
                incomplete: Default::default(),
            };
            let preview = crate::monitoring::service::preview_of(&json!(msg.segments), 160);
            if let Err(e) = recorder::queue_execution(
                &state.db,
                &scope,
                &msg.message_id,
                Some(preview),
                &state.replica,
            )
            .await
            {
                tracing::warn!(error = %e, "could not record an accepted message's execution");
                return unavailable(&state, idempotency_key.as_deref()).await;
            }
            msg.queued = Some(scope.execution_id.clone());
            Some(scope)
        }
        None => None,
    };
    let data = json!({ "session_id": msg.chat_id, "accepted_message_id": msg.message_id, "aggregating": aggregate.is_some() });
    let state = state.into_inner();
    // Tracked, so a graceful shutdown lets the accepted message's turn finish.
    state.tasks.clone().spawn(async move {
        // The queued execution's lease is renewed while the message waits (aggregation,
        // routing); the turn renews its own from then on.
        let _renewal = queued.map(|scope| recorder::Renewal::start(state.db.clone(), scope));
        let outbox = Callbacks {
            config: v.config.clone(),
            session: msg.chat_id.clone(),
            reply_to: msg.message_id.clone(),
        };
        super::adapters::process(&state, &v.ws, &v.bot, msg, &outbox, aggregate).await;
    });
    HttpResponse::Accepted().json(json!({ "code": 0, "msg": "accepted", "data": data }))
}

/// The 503 of a message that could not be made durable; its idempotency key is forgotten, so
/// the sender's retry with the same key is accepted.
async fn unavailable(state: &AppState, idempotency_key: Option<&str>) -> HttpResponse {
    if let Some(key) = idempotency_key {
        if let Err(e) = state.store.delete(key).await {
            tracing::warn!(error = %e, "could not forget the idempotency key of a refused message");
        }
    }
    refuse(
        StatusCode::SERVICE_UNAVAILABLE,
        50301,
        "storage unavailable",
    )
    .into()
}

/// Replies to one message, POSTed to the callback URL.
struct Callbacks {
    config: HttpBotConfig,
    session: String,
    reply_to: String,
}

#[async_trait::async_trait]
impl super::adapters::Outbox for Callbacks {
    fn text_limit(&self) -> usize {
        usize::MAX
    }

    async fn text(
        &self,
        state: &AppState,
        text: &str,
        _: &super::adapters::PartOptions,
    ) -> super::adapters::SendResult {
        deliver(
            state,
            &self.config,
            &self.session,
            &self.reply_to,
            &[vec![Segment::plain(text)]],
        )
        .await;
        Ok(None)
    }

    async fn image(
        &self,
        state: &AppState,
        image: &super::adapters::Image,
        _: &super::adapters::PartOptions,
    ) -> super::adapters::SendResult {
        let segment = match image {
            super::adapters::Image::Url(url) => Segment::image_url(url.clone()),
            super::adapters::Image::Bytes(b) => {
                use base64::Engine as _;
                Segment::image_base64(base64::engine::general_purpose::STANDARD.encode(b))
            }
        };
        deliver(
            state,
            &self.config,
            &self.session,
            &self.reply_to,
            &[vec![segment]],
        )
        .await;
        Ok(None)
    }

    /// The contract's callbacks: one per reply, numbered, the last marked final.
    async fn deliver(&self, state: &AppState, _bot: &str, replies: &[Vec<Segment>]) {
        deliver(state, &self.config, &self.session, &self.reply_to, replies).await;
    }
}

/// A proactive message (a plugin's `send_message`): one callback to `session`, signed and
/// retried as replies are; `Err` says why it cannot be sent.
pub async fn send_proactive(
    state: &AppState,
    bot: &bot::Model,
    session: &str,
    message: Vec<Segment>,
) -> Result<(), String> {
    let config: HttpBotConfig = serde_json::from_value(bot.adapter_config.clone())
        .map_err(|e| format!("the bot's adapter config is unusable: {e}"))?;
    if deliver(state, &config, session, "", &[message]).await {
        Ok(())
    } else {
        Err("the bot's callback URL did not accept the message".into())
    }
}

/// POSTs each reply to the callback URL, signed, with retries and back-off.
async fn deliver(
    state: &AppState,
    config: &HttpBotConfig,
    session: &str,
    reply_to: &str,
    replies: &[Vec<Segment>],
) -> bool {
    let mut all = true;
    let total = replies.len();
    for (i, message) in replies.iter().enumerate() {
        let body = json!({
            "session_id": session,
            "reply_to": reply_to,
            "sequence": i + 1,
            "is_final": i + 1 == total,
            "stream": false,
            "message": message,
            "timestamp": chrono::Utc::now().to_rfc3339(),
        });
        let bytes = serde_json::to_vec(&body).unwrap_or_default();
        // 250 ms doubling up to 8 s between attempts; `callback_max_retries` after the first.
        let backoff = ExponentialBuilder::default()
            .with_min_delay(Duration::from_millis(250))
            .with_max_delay(Duration::from_secs(8))
            .with_max_times(usize::try_from(config.callback_max_retries).unwrap_or(usize::MAX));
        let post = || async {
            let ts = chrono::Utc::now().timestamp().to_string();
            let mut request = state
                .http
                .post(&config.callback_url)
                .timeout(Duration::from_secs(config.callback_timeout.max(1)))
                .header("content-type", "application/json")
                .header("x-lb-timestamp", &ts)
                .body(bytes.clone());
            if let Some(secret) = config.outbound_secret.as_deref().filter(|s| !s.is_empty()) {
                request = request.header("x-lb-signature", signing::sign(secret, &ts, &bytes));
            }
            match request.send().await {
                Ok(resp) if resp.status().is_success() => Ok(()),
                Ok(resp) => Err(format!(
                    "callback refused with HTTP {}",
                    resp.status().as_u16()
                )),
                Err(e) => Err(format!("callback failed: {}", e.without_url())),
            }
        };
        let delivered = post
            .retry(backoff)
            .notify(|why, wait| tracing::warn!(error = %why, retry_in_ms = wait.as_millis() as u64, "callback not delivered; retrying"))
            .await
            .is_ok();
        all &= delivered;
        if !delivered {
            tracing::error!(
                session,
                reply_to,
                sequence = i + 1,
                "callback not delivered after retries"
            );
        }
    }
    all
}

/// `POST /bots/{bot_uuid}/sync`: run the turn and answer its replies, collapsed.
pub async fn sync(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let v = match verify(&req, payload, &state, &path).await {
        Ok(v) => v,
        Err(refused) => return refused.into(),
    };
    let msg = match parse::<InboundMessage>(&v.body).and_then(|m| normalize(&v, m)) {
        Ok(m) => m,
        Err(refused) => return refused.into(),
    };
    let lock_key = format!("sync:{}:{}", v.bot.uuid, session_id(msg.kind, &msg.chat_id));
    let lock = match state
        .store
        .try_lock(&lock_key, SYNC_WAIT + Duration::from_secs(10))
        .await
    {
        Ok(Some(lock)) => lock,
        Ok(None) => {
            return refuse(
                StatusCode::CONFLICT,
                40902,
                "a sync request for this session is already in flight",
            )
            .into()
        }
        Err(_) => {
            return refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                50301,
                "storage unavailable",
            )
            .into()
        }
    };
    let (chat, reply_to) = (msg.chat_id.clone(), msg.message_id.clone());
    let work = async {
        match dispatch::route(&state, &v.ws, &v.bot, &msg).await {
            Routed::Pipeline {
                pipeline,
                is_at_bot,
                event_id,
            } => {
                dispatch::run(
                    &state,
                    v.ws.clone(),
                    &v.bot,
                    msg,
                    *pipeline,
                    is_at_bot,
                    event_id,
                )
                .await
                .replies
            }
            Routed::Stopped => Vec::new(),
        }
    };
    let result = tokio::time::timeout(SYNC_WAIT, work).await;
    let _ = state.store.unlock(&lock_key, &lock).await;
    match result {
        Ok(replies) => {
            let message: Vec<Segment> = replies.into_iter().flatten().collect();
            HttpResponse::Ok().json(json!({ "code": 0, "msg": "ok", "data": { "session_id": chat, "reply_to": reply_to, "message": message, "text": plain_text(&message) } }))
        }
        Err(_) => refuse(
            StatusCode::GATEWAY_TIMEOUT,
            50401,
            "timed out waiting for the reply",
        )
        .into(),
    }
}

/// `POST /bots/{bot_uuid}/reset`: the session's next turn starts without history.
pub async fn reset(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let v = match verify(&req, payload, &state, &path).await {
        Ok(v) => v,
        Err(refused) => return refused.into(),
    };
    let body: ResetRequest = match parse(&v.body) {
        Ok(b) => b,
        Err(refused) => return refused.into(),
    };
    let session = match checked_session(&body.session_id) {
        Ok(s) => s,
        Err(refused) => return refused.into(),
    };
    let kind = body.session_type.unwrap_or(v.config.default_session_type);
    let key = ConversationKey {
        workspace: v.ws.uuid.to_string(),
        bot: v.bot.uuid.clone(),
        session: session_id(kind, &session),
    };
    let store = state.store.as_ref();
    match conversation::busy(store, &key).await {
        Ok(true) => {
            return refuse(
                StatusCode::CONFLICT,
                40903,
                "the session is busy with a running turn",
            )
            .into()
        }
        Ok(false) => {}
        Err(_) => {
            return refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                50301,
                "storage unavailable",
            )
            .into()
        }
    }
    match conversation::reset(store, &key).await {
        Ok(()) => HttpResponse::Ok().json(json!({ "code": 0, "msg": "ok", "data": { "session_id": body.session_id, "reset": true } })),
        Err(_) => refuse(StatusCode::SERVICE_UNAVAILABLE, 50301, "storage unavailable").into(),
    }
}
