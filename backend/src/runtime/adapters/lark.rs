//! Lark (Feishu): event callbacks at `/bots/{uuid}` — the URL-verification challenge, the
//! verification token, the encrypt key (AES-256-CBC bodies, `X-Lark-Signature`) —,
//! `im.message.receive_v1` for private and group messages (the bot addressed by a mention),
//! replies through `im/v1` (text, uploaded images) with a tenant access token kept fresh
//! per replica.
//!
//! Events come in as webhooks, so there is no connection to drop: what "the platform drops
//! the connection" means here is the Open API becoming unreachable while a reply is due. A
//! reply that cannot reach Lark is retried with back-off (0.5 s doubling to 8 s, about 15 s
//! in all) under one request `uuid`, which Lark uses to deduplicate a message sent twice (one
//! whose answer was lost); meanwhile the bot's state shows `error` with the reason, and
//! `running` again once a reply gets through.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::{HttpRequest, HttpResponse};
use aes::cipher::{block_padding::Pkcs7, BlockDecryptMut, KeyIvInit};
use async_trait::async_trait;
use base64::Engine as _;
use serde::Deserialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use super::supervisor::{self, Ended};
use super::{Image, Outbox, PartOptions, SendResult};
use crate::bots::adapters::LARK;
use crate::bots::status::{self, LogLevel};
use crate::entities::bot;
use crate::error::{ApiError, ApiResult};
use crate::runtime::message::{Inbound, Segment, SessionType};
use crate::state::AppState;

const TEXT_LIMIT: usize = 4000;
const TIMEOUT: Duration = Duration::from_secs(30);
const MAX_IMAGE: usize = 10 * 1024 * 1024;
/// The first pause before a reply that could not reach Lark is sent again (then doubled).
const RETRY_FIRST: Duration = Duration::from_millis(500);
/// Attempts at a reply while Lark is unreachable.
const RETRY_ATTEMPTS: u32 = 6;

/// Why an Open API call failed.
#[derive(Debug)]
enum Failure {
    /// No answer from Lark (refused, reset, timed out): worth trying again.
    Unreachable(String),
    /// Lark answered with an error.
    Refused(String),
}

impl From<Failure> for String {
    fn from(f: Failure) -> String {
        match f {
            Failure::Unreachable(why) | Failure::Refused(why) => why,
        }
    }
}

impl From<String> for Failure {
    fn from(why: String) -> Failure {
        Failure::Refused(why)
    }
}

impl From<&str> for Failure {
    fn from(why: &str) -> Failure {
        Failure::Refused(why.to_string())
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct Config {
    pub app_id: String,
    pub app_secret: String,
    #[serde(default)]
    pub bot_name: String,
    #[serde(default, rename = "verification-token")]
    pub verification_token: Option<String>,
    #[serde(default, rename = "encrypt-key")]
    pub encrypt_key: Option<String>,
    #[serde(default = "official")]
    pub api_base_url: String,
}

fn official() -> String {
    "https://open.feishu.cn/open-apis".into()
}

impl Config {
    pub fn of(bot: &bot::Model) -> Result<Self, String> {
        super::config_of(bot, "Lark")
    }

    fn base(&self) -> String {
        self.api_base_url.trim_end_matches('/').to_string()
    }
}

/// Tenant access tokens of this process, per app, refreshed before they expire.
#[derive(Default)]
pub struct Tokens(Mutex<HashMap<String, (String, Instant)>>);

/// A tenant access token for the app (cached until five minutes before its expiry).
async fn token(state: &AppState, config: &Config, fresh: bool) -> Result<String, Failure> {
    let tokens = state.parts.get::<Tokens>();
    let key = format!(
        "{}|{}|{}",
        config.base(),
        config.app_id,
        crate::access::secrets::hash(&config.app_secret)
    );
    if !fresh {
        let cached = tokens
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
            .cloned();
        if let Some((token, until)) = cached.filter(|(_, until)| *until > Instant::now()) {
            let _ = until;
            return Ok(token);
        }
    }
    let resp = state
        .http
        .post(format!(
            "{}/auth/v3/tenant_access_token/internal",
            config.base()
        ))
        .timeout(TIMEOUT)
        .json(&json!({ "app_id": config.app_id, "app_secret": config.app_secret }))
        .send()
        .await
        .map_err(|e| Failure::Unreachable(format!("tenant_access_token: {}", e.without_url())))?;
    let body: Value = resp
        .json()
        .await
        .map_err(|_| Failure::Unreachable("tenant_access_token: unreadable answer".into()))?;
    if body["code"] != 0 {
        return Err(Failure::Refused(format!(
            "tenant_access_token: code {} {}",
            body["code"],
            body["msg"].as_str().unwrap_or_default()
        )));
    }
    let token = body["tenant_access_token"]
        .as_str()
        .ok_or("tenant_access_token: none given")?
        .to_string();
    let expire = body["expire"]
        .as_u64()
        .unwrap_or(7200)
        .saturating_sub(300)
        .max(30);
    tokens.0.lock().unwrap_or_else(|p| p.into_inner()).insert(
        key,
        (token.clone(), Instant::now() + Duration::from_secs(expire)),
    );
    Ok(token)
}

/// Token errors after which a fresh token is fetched and the call retried once.
fn token_expired(body: &Value) -> bool {
    matches!(body["code"].as_i64(), Some(99991663 | 99991661 | 99991668))
}

#[derive(Clone)]
struct Api {
    state: AppState,
    config: Config,
}

impl Api {
    /// An authorized `im/v1` (or other) call, retried once with a fresh token.
    async fn call(
        &self,
        build: impl Fn(&str) -> reqwest::RequestBuilder,
        what: &str,
    ) -> Result<Value, String> {
        Ok(self.attempt(build, what).await?)
    }

    /// [`Api::call`], telling an unreachable Lark from a refusal.
    async fn attempt(
        &self,
        build: impl Fn(&str) -> reqwest::RequestBuilder,
        what: &str,
    ) -> Result<Value, Failure> {
        let mut fresh = false;
        loop {
            let token = token(&self.state, &self.config, fresh).await?;
            let resp = build(&token)
                .timeout(TIMEOUT)
                .send()
                .await
                .map_err(|e| Failure::Unreachable(format!("{what}: {}", e.without_url())))?;
            let status = resp.status();
            let body: Value = match resp.json().await {
                Ok(body) => body,
                Err(_) if status.is_server_error() => {
                    return Err(Failure::Unreachable(format!(
                        "{what}: HTTP {}",
                        status.as_u16()
                    )))
                }
                Err(_) => Value::Null,
            };
            if body["code"] == 0 {
                return Ok(body);
            }
            if token_expired(&body) && !fresh {
                fresh = true;
                continue;
            }
            return Err(Failure::Refused(format!(
                "{what}: code {} {}",
                body["code"],
                body["msg"].as_str().unwrap_or_default()
            )));
        }
    }

    /// Runs `call` until it reaches Lark: an unreachable Lark is retried with back-off
    /// ([`RETRY_ATTEMPTS`] in all) while the bot's state shows it; a refusal is final.
    async fn retrying<F, Fut>(&self, bot: &str, mut call: F) -> Result<Value, String>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<Value, Failure>>,
    {
        let store = self.state.store.as_ref();
        let mut pause = RETRY_FIRST;
        let mut failed = false;
        let mut attempt = 0;
        loop {
            attempt += 1;
            match call().await {
                Ok(body) => {
                    if failed {
                        mark(&self.state, bot, None).await;
                        status::log(store, bot, LogLevel::Info, "Lark is reachable again").await;
                    }
                    return Ok(body);
                }
                Err(Failure::Unreachable(why)) if attempt < RETRY_ATTEMPTS => {
                    failed = true;
                    mark(
                        &self.state,
                        bot,
                        Some(format!("Lark is unreachable: {why}")),
                    )
                    .await;
                    status::log(
                        store,
                        bot,
                        LogLevel::Warning,
                        format!(
                            "Lark is unreachable ({why}); retrying in {} ms",
                            pause.as_millis()
                        ),
                    )
                    .await;
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(Duration::from_secs(8));
                }
                Err(failure) => return Err(failure.into()),
            }
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.config.base())
    }

    async fn bytes(&self, path: &str) -> Result<Vec<u8>, String> {
        let token = token(&self.state, &self.config, false).await?;
        let request = self.state.http.get(self.url(path)).bearer_auth(token);
        super::download(request.timeout(TIMEOUT), "resource", MAX_IMAGE).await
    }
}

/// Shows in the bot's state that Lark is unreachable (`error`), or reachable again
/// (`running`), keeping the replica that holds the bot's lease.
async fn mark(state: &AppState, bot: &str, error: Option<String>) {
    let store = state.store.as_ref();
    let replica = status::get(store, bot).await.and_then(|s| s.replica);
    let now = if error.is_some() {
        status::AdapterState::Error
    } else {
        status::AdapterState::Running
    };
    status::set(store, bot, now, error, replica.as_deref()).await;
}

/// The bot's `open_id` (`/bot/v3/info`), remembered in its state.
async fn account(api: &Api, bot: &str) -> Option<String> {
    let store = api.state.store.as_ref();
    if let Some(id) = status::get(store, bot).await.and_then(|s| s.bot_account_id) {
        return Some(id);
    }
    let http = api.state.http.clone();
    let url = api.url("/bot/v3/info");
    match api
        .call(|t| http.get(&url).bearer_auth(t), "bot info")
        .await
    {
        Ok(info) => {
            let id = info["bot"]["open_id"].as_str()?.to_string();
            status::set_account(store, bot, &id, info["bot"]["app_name"].as_str()).await;
            Some(id)
        }
        Err(why) => {
            status::log(
                store,
                bot,
                LogLevel::Error,
                format!("could not read the bot's info: {why}"),
            )
            .await;
            None
        }
    }
}

/// Checks the app's credentials (a tenant access token, then `/bot/v3/info`) under the
/// lease, so a wrong app secret shows in the bot's state before the first event, and
/// records the bot's `open_id`. Events arrive at [`events`] on any replica.
pub async fn run_probe(state: AppState, bot: Arc<bot::Model>, stop: CancellationToken) {
    supervisor::reconnecting(&state, &bot.uuid, &stop, || async {
        let config = Config::of(&bot)?;
        let api = Api {
            state: state.clone(),
            config,
        };
        let http = state.http.clone();
        let url = api.url("/bot/v3/info");
        let info = api
            .call(|t| http.get(&url).bearer_auth(t), "bot info")
            .await?;
        let id = info["bot"]["open_id"]
            .as_str()
            .ok_or("bot info: no open_id")?;
        status::set_account(
            state.store.as_ref(),
            &bot.uuid,
            id,
            info["bot"]["app_name"].as_str(),
        )
        .await;
        supervisor::running(&state, &bot.uuid).await;
        stop.cancelled().await;
        Ok(Ended::Stopped)
    })
    .await;
}

/// Decrypts an `{"encrypt": …}` body: AES-256-CBC, key SHA-256(encrypt key), the IV the
/// first 16 bytes.
pub fn decrypt(key: &str, encrypted: &str) -> Option<Vec<u8>> {
    let data = base64::engine::general_purpose::STANDARD
        .decode(encrypted)
        .ok()?;
    if data.len() < 32 {
        return None;
    }
    let key = Sha256::digest(key.as_bytes());
    let (iv, body) = data.split_at(16);
    cbc::Decryptor::<aes::Aes256>::new_from_slices(&key, iv)
        .ok()?
        .decrypt_padded_vec_mut::<Pkcs7>(body)
        .ok()
}

/// `POST /bots/{uuid}` for a Lark bot.
pub async fn events(
    state: &AppState,
    req: &HttpRequest,
    bot: bot::Model,
    body: &[u8],
) -> HttpResponse {
    let Ok(config) = Config::of(&bot) else {
        return HttpResponse::ServiceUnavailable()
            .json(json!({ "msg": "bot configuration is incomplete" }));
    };
    let uuid = bot.uuid.clone();
    let refuse = |why: &'static str| async move {
        status::log(
            state.store.as_ref(),
            &uuid,
            LogLevel::Warning,
            format!("refused an event callback: {why}"),
        )
        .await;
        HttpResponse::Unauthorized().json(json!({ "msg": why }))
    };
    let Ok(outer) = serde_json::from_slice::<Value>(body) else {
        return HttpResponse::BadRequest().json(json!({ "msg": "invalid JSON" }));
    };
    let key = config.encrypt_key.as_deref().filter(|k| !k.is_empty());
    let payload = match (key, outer["encrypt"].as_str()) {
        (Some(key), Some(encrypted)) => {
            let header = |n: &str| {
                req.headers()
                    .get(n)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_string()
            };
            let signature = header("x-lark-signature");
            if !signature.is_empty() {
                let mut digest = Sha256::new();
                digest.update(header("x-lark-request-timestamp").as_bytes());
                digest.update(header("x-lark-request-nonce").as_bytes());
                digest.update(key.as_bytes());
                digest.update(body);
                if !crate::access::secrets::equal(&hex::encode(digest.finalize()), &signature) {
                    return refuse("the signature does not match").await;
                }
            }
            match decrypt(key, encrypted)
                .and_then(|plain| serde_json::from_slice::<Value>(&plain).ok())
            {
                Some(p) => p,
                None => return refuse("the body does not decrypt with the encrypt key").await,
            }
        }
        (Some(_), None) => {
            return refuse("the body is not encrypted though an encrypt key is set").await
        }
        (None, _) => outer,
    };
    if let Some(expected) = config
        .verification_token
        .as_deref()
        .filter(|t| !t.is_empty())
    {
        let given = payload["header"]["token"]
            .as_str()
            .or(payload["token"].as_str())
            .unwrap_or_default();
        if !crate::access::secrets::equal(given, expected) {
            return refuse("the verification token does not match").await;
        }
    }
    if payload["type"] == "url_verification" {
        return HttpResponse::Ok().json(json!({ "challenge": payload["challenge"] }));
    }
    if payload["header"]["event_type"] == "im.message.receive_v1" {
        let event_id = payload["header"]["event_id"]
            .as_str()
            .map(|id| format!("lark:{id}"));
        message(state, &bot, &config, &payload["event"], event_id).await;
    }
    HttpResponse::Ok().json(json!({ "msg": "ok" }))
}

async fn message(
    state: &AppState,
    bot: &bot::Model,
    config: &Config,
    event: &Value,
    event_id: Option<String>,
) {
    let m = &event["message"];
    let (Some(message_id), Some(chat)) = (m["message_id"].as_str(), m["chat_id"].as_str()) else {
        return;
    };
    if event["sender"]["sender_type"] == "app" {
        return;
    }
    let sender = event["sender"]["sender_id"]["open_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let api = Api {
        state: state.clone(),
        config: config.clone(),
    };
    let account = account(&api, &bot.uuid).await;
    let group = m["chat_type"] == "group";
    let (kind, chat_id) = if group {
        (SessionType::Group, chat.to_string())
    } else {
        (SessionType::Person, sender.clone())
    };
    let mut msg = Inbound::new(LARK, kind, chat_id, sender);
    msg.account_id = account.clone();
    msg.message_id = format!("lark_{message_id}");
    let content: Value = m["content"]
        .as_str()
        .and_then(|c| serde_json::from_str(c).ok())
        .unwrap_or(Value::Null);
    let mentions = m["mentions"].as_array().cloned().unwrap_or_default();
    match m["message_type"].as_str() {
        Some("text") => {
            let mut text = content["text"].as_str().unwrap_or_default().to_string();
            for mention in &mentions {
                let key = mention["key"].as_str().unwrap_or_default();
                let id = mention["id"]["open_id"].as_str().unwrap_or_default();
                let is_bot = account.as_deref() == Some(id)
                    || (!config.bot_name.is_empty() && mention["name"] == config.bot_name.as_str());
                if !key.is_empty() {
                    text = text.replace(key, "");
                }
                if is_bot {
                    msg.addressed = true;
                }
                if !id.is_empty() {
                    msg.segments.push(Segment::at(id));
                }
            }
            let text = text.trim();
            if !text.is_empty() {
                msg.segments.push(Segment::plain(text));
            }
        }
        Some("image") => {
            if let Some(key) = content["image_key"].as_str() {
                match api
                    .bytes(&format!(
                        "/im/v1/messages/{message_id}/resources/{key}?type=image"
                    ))
                    .await
                {
                    Ok(bytes) => msg.segments.push(Segment::image_base64(
                        base64::engine::general_purpose::STANDARD.encode(bytes),
                    )),
                    Err(why) => {
                        status::log(
                            state.store.as_ref(),
                            &bot.uuid,
                            LogLevel::Warning,
                            format!("could not fetch an image: {why}"),
                        )
                        .await
                    }
                }
            }
        }
        _ => {}
    }
    if msg.segments.is_empty() {
        return;
    }
    let outbox = LarkOutbox {
        api,
        bot: bot.uuid.clone(),
        chat: chat.to_string(),
        receive_id_type: "chat_id",
        reply_to: Some(message_id.to_string()),
    };
    super::accept(state, bot.clone(), msg, Box::new(outbox), event_id).await;
}

/// Replies into a chat (as a reply to the message).
pub struct LarkOutbox {
    api: Api,
    /// The bot's uuid (its state and log).
    bot: String,
    /// A chat id, or (`send_message` to a person) the user's `open_id`.
    chat: String,
    receive_id_type: &'static str,
    reply_to: Option<String>,
}

impl LarkOutbox {
    async fn send(&self, msg_type: &str, content: Value, quote: bool) -> SendResult {
        let http = self.api.state.http.clone();
        // One uuid for every attempt: Lark sends a message once per uuid (within an hour).
        let body = json!({ "msg_type": msg_type, "content": content.to_string(), "receive_id": self.chat,
                           "uuid": uuid::Uuid::new_v4().to_string() });
        let url = match (&self.reply_to, quote) {
            (Some(id), true) => self.api.url(&format!("/im/v1/messages/{id}/reply")),
            _ => self.api.url(&format!(
                "/im/v1/messages?receive_id_type={}",
                self.receive_id_type
            )),
        };
        let sent = self
            .api
            .retrying(&self.bot, || {
                self.api.attempt(
                    |t| http.post(&url).bearer_auth(t).json(&body),
                    "send message",
                )
            })
            .await?;
        Ok(sent["data"]["message_id"].as_str().map(str::to_string))
    }
}

#[async_trait]
impl Outbox for LarkOutbox {
    fn text_limit(&self) -> usize {
        TEXT_LIMIT
    }

    async fn text(&self, _: &AppState, text: &str, opts: &PartOptions) -> SendResult {
        let text = match &opts.mention {
            Some(user) => format!("<at user_id=\"{user}\"></at> {text}"),
            None => text.to_string(),
        };
        self.send("text", json!({ "text": text }), opts.quote).await
    }

    async fn image(&self, state: &AppState, image: &Image, opts: &PartOptions) -> SendResult {
        let bytes = match image {
            Image::Bytes(b) => b.clone(),
            Image::Url(url) => {
                super::download(state.http.get(url).timeout(TIMEOUT), "image", MAX_IMAGE).await?
            }
        };
        let http = state.http.clone();
        let url = self.api.url("/im/v1/images");
        let uploaded = self
            .api
            .retrying(&self.bot, || {
                self.api.attempt(
                    |t| {
                        let form = reqwest::multipart::Form::new()
                            .text("image_type", "message")
                            .part(
                                "image",
                                reqwest::multipart::Part::bytes(bytes.clone())
                                    .file_name("image.png"),
                            );
                        http.post(&url).bearer_auth(t).multipart(form)
                    },
                    "image upload",
                )
            })
            .await?;
        let key = uploaded["data"]["image_key"]
            .as_str()
            .ok_or("image upload: no image_key")?;
        self.send("image", json!({ "image_key": key }), opts.quote)
            .await
    }
}

/// `send_message` to a group chat (`chat_id`) or a person (`open_id`).
pub fn outbox_for(
    state: &AppState,
    bot: &bot::Model,
    kind: SessionType,
    target: &str,
) -> ApiResult<Box<dyn Outbox>> {
    let config = Config::of(bot).map_err(ApiError::unavailable)?;
    Ok(Box::new(LarkOutbox {
        api: Api {
            state: state.clone(),
            config,
        },
        bot: bot.uuid.clone(),
        chat: target.to_string(),
        receive_id_type: match kind {
            SessionType::Group => "chat_id",
            SessionType::Person => "open_id",
        },
        reply_to: None,
    }))
}
