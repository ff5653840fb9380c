//! Telegram (Bot API): long polling (`getUpdates`) or a webhook (`setWebhook` with a secret
//! token); text, photos and replies; in groups the bot is addressed by `@botname` or by a
//! reply to one of its messages; Markdown rendered as Telegram HTML; streamed replies by
//! editing the message (`enable-stream-reply`).

mod api;
mod markdown;

use std::sync::Arc;
use std::time::Duration;

use actix_web::{HttpRequest, HttpResponse};
use async_trait::async_trait;
use base64::Engine as _;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

pub use api::Api;

use super::supervisor::{self, Ended};
use super::{Image, Outbox, PartOptions, SendResult};
use crate::bots::adapters::TELEGRAM;
use crate::bots::status::{self, LogLevel};
use crate::entities::bot;
use crate::error::{ApiError, ApiResult};
use crate::runtime::message::{Inbound, Segment, SessionType};
use crate::state::AppState;

/// Telegram's message text limit.
const TEXT_LIMIT: usize = 4096;
/// Long-poll wait per `getUpdates`.
const POLL_SECONDS: u64 = 25;
/// Largest photo downloaded into the message.
const MAX_PHOTO: usize = 10 * 1024 * 1024;

#[derive(Debug, Clone, Deserialize)]
pub struct Config {
    pub token: String,
    #[serde(default = "yes")]
    pub markdown_card: bool,
    #[serde(default, rename = "enable-stream-reply")]
    pub stream: bool,
    #[serde(default, rename = "enable-webhook")]
    pub webhook: bool,
    #[serde(default)]
    pub webhook_secret: Option<String>,
    #[serde(default = "official")]
    pub api_base_url: String,
}

fn yes() -> bool {
    true
}

fn official() -> String {
    "https://api.telegram.org".into()
}

impl Config {
    pub fn of(bot: &bot::Model) -> Result<Self, String> {
        super::config_of(bot, "Telegram")
    }

    /// The webhook's secret token: configured, or derived from the bot token and uuid (so
    /// every replica can check it).
    pub fn secret(&self, bot: &str) -> String {
        match self.webhook_secret.as_deref().filter(|s| !s.is_empty()) {
            Some(s) => s.to_string(),
            None => {
                let digest =
                    crate::access::secrets::hash(&format!("telegram:{}:{bot}", self.token));
                digest
                    .chars()
                    .filter(char::is_ascii_alphanumeric)
                    .take(48)
                    .collect()
            }
        }
    }

    fn api(&self, state: &AppState) -> Api {
        Api::new(state.http.clone(), &self.api_base_url, &self.token)
    }
}

/// Runs the bot (under its lease): `getMe`, then either `setWebhook` and wait, or long
/// polling until `stop`.
pub async fn run(state: AppState, bot: Arc<bot::Model>, stop: CancellationToken) {
    let config = match Config::of(&bot) {
        Ok(c) => c,
        Err(why) => {
            supervisor::reconnecting(&state, &bot.uuid, &stop, || async { Err(why.clone()) }).await;
            return;
        }
    };
    supervisor::reconnecting(&state, &bot.uuid, &stop, || {
        session(&state, &bot, &config, &stop)
    })
    .await;
}

async fn session(
    state: &AppState,
    bot: &bot::Model,
    config: &Config,
    stop: &CancellationToken,
) -> Result<Ended, String> {
    let api = config.api(state);
    let me = api
        .call("getMe", json!({}))
        .await
        .map_err(|e| format!("getMe failed: {e}"))?;
    let (id, username) = account_of(&me);
    status::set_account(state.store.as_ref(), &bot.uuid, &id, username.as_deref()).await;
    if config.webhook {
        let url = format!("{}/bots/{}", state.settings.public_url(), bot.uuid);
        api.call(
            "setWebhook",
            json!({ "url": url, "secret_token": config.secret(&bot.uuid), "allowed_updates": ["message"] }),
        )
        .await
        .map_err(|e| format!("setWebhook failed: {e}"))?;
        supervisor::running(state, &bot.uuid).await;
        stop.cancelled().await;
        return Ok(Ended::Stopped);
    }
    api.call("deleteWebhook", json!({}))
        .await
        .map_err(|e| format!("deleteWebhook failed: {e}"))?;
    supervisor::running(state, &bot.uuid).await;
    let offset_key = format!("tg-offset:{}", bot.uuid);
    let mut offset: i64 = state
        .store
        .get(&offset_key)
        .await
        .ok()
        .flatten()
        .and_then(|v| String::from_utf8(v).ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    loop {
        let body =
            json!({ "offset": offset, "timeout": POLL_SECONDS, "allowed_updates": ["message"] });
        let polled = tokio::select! {
            _ = stop.cancelled() => return Ok(Ended::Stopped),
            polled = api.poll(body, Duration::from_secs(POLL_SECONDS + 15)) => polled,
        };
        let updates = match polled {
            Ok(Value::Array(updates)) => updates,
            Ok(_) => Vec::new(),
            Err(api::Failure::Transport(why)) => return Ok(Ended::Closed(why)),
            Err(api::Failure::Refused(why)) => return Err(format!("getUpdates failed: {why}")),
        };
        for update in &updates {
            if let Some(id) = update["update_id"].as_i64() {
                offset = offset.max(id + 1);
            }
            handle_update(state, bot, config, &api, update, &id, username.as_deref()).await;
        }
        if !updates.is_empty() {
            let ttl = Some(Duration::from_secs(7 * 24 * 3600));
            let _ = state
                .store
                .set(&offset_key, offset.to_string().as_bytes(), ttl)
                .await;
        }
    }
}

fn account_of(me: &Value) -> (String, Option<String>) {
    let id = match &me["id"] {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        _ => String::new(),
    };
    (id, me["username"].as_str().map(str::to_string))
}

fn id_str(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// Turns an update into a message and accepts it (once per update id).
async fn handle_update(
    state: &AppState,
    bot: &bot::Model,
    config: &Config,
    api: &Api,
    update: &Value,
    account: &str,
    username: Option<&str>,
) {
    let Some(message) = update.get("message").filter(|m| m.is_object()) else {
        return;
    };
    let (Some(chat), Some(from)) = (
        id_str(&message["chat"]["id"]),
        id_str(&message["from"]["id"]),
    ) else {
        return;
    };
    if message["from"]["is_bot"] == json!(true) {
        return;
    }
    let group = matches!(
        message["chat"]["type"].as_str(),
        Some("group" | "supergroup")
    );
    let kind = if group {
        SessionType::Group
    } else {
        SessionType::Person
    };
    let mut msg = Inbound::new(TELEGRAM, kind, chat.clone(), from);
    msg.account_id = Some(account.to_string());
    msg.sender_name = message["from"]["username"]
        .as_str()
        .or(message["from"]["first_name"].as_str())
        .map(str::to_string);
    msg.group_name = message["chat"]["title"].as_str().map(str::to_string);
    let message_id = message["message_id"].as_i64();
    msg.message_id = format!("tg_{chat}_{}", message_id.unwrap_or_default());
    let mut text = message["text"]
        .as_str()
        .or(message["caption"].as_str())
        .unwrap_or_default()
        .to_string();
    if let Some(name) = username.filter(|n| !n.is_empty()) {
        let mention = format!("@{name}");
        if let Some(at) = text.to_lowercase().find(&mention.to_lowercase()) {
            text.replace_range(at..at + mention.len(), "");
            msg.segments.push(Segment::at(account));
        }
    }
    if let Some(replied) = message.get("reply_to_message").filter(|r| r.is_object()) {
        if let Some(id) = id_str(&replied["message_id"]) {
            msg.segments.push(Segment::quote(id));
        }
        if id_str(&replied["from"]["id"]).as_deref() == Some(account) {
            msg.addressed = true;
        }
    }
    let text = text.trim();
    if !text.is_empty() {
        msg.segments.push(Segment::plain(text));
    }
    if let Some(photo) = message["photo"].as_array().and_then(|p| p.last()) {
        match download_photo(api, photo).await {
            Ok(bytes) => msg.segments.push(Segment::image_base64(
                base64::engine::general_purpose::STANDARD.encode(bytes),
            )),
            Err(why) => {
                status::log(
                    state.store.as_ref(),
                    &bot.uuid,
                    LogLevel::Warning,
                    format!("could not fetch a photo: {why}"),
                )
                .await;
            }
        }
    }
    if msg.segments.is_empty() {
        return;
    }
    let outbox = TelegramOutbox {
        api: api.clone(),
        chat,
        reply_to: message_id,
        thread: message["message_thread_id"].as_i64(),
        markdown: config.markdown_card,
        stream: config.stream,
    };
    let key = format!("tg:{}", update["update_id"]);
    super::accept(state, bot.clone(), msg, Box::new(outbox), Some(key)).await;
}

async fn download_photo(api: &Api, photo: &Value) -> Result<Vec<u8>, String> {
    let file_id = photo["file_id"].as_str().ok_or("no file_id")?;
    let file = api.call("getFile", json!({ "file_id": file_id })).await?;
    let path = file["file_path"].as_str().ok_or("no file_path")?;
    api.download(path, MAX_PHOTO).await
}

/// Replies into one chat (quoting one message).
pub struct TelegramOutbox {
    api: Api,
    chat: String,
    reply_to: Option<i64>,
    thread: Option<i64>,
    markdown: bool,
    stream: bool,
}

impl TelegramOutbox {
    fn base(&self, opts: &PartOptions) -> Value {
        let mut body = json!({ "chat_id": self.chat });
        if let (true, Some(id)) = (opts.quote, self.reply_to) {
            body["reply_parameters"] =
                json!({ "message_id": id, "allow_sending_without_reply": true });
        }
        if let Some(thread) = self.thread {
            body["message_thread_id"] = json!(thread);
        }
        body
    }

    /// Sends `method` with the text rendered as HTML, falling back to plain text when
    /// Telegram cannot parse it.
    async fn with_text(
        &self,
        method: &str,
        mut body: Value,
        text: &str,
        mention: Option<&str>,
    ) -> Result<Value, String> {
        if self.markdown {
            let mut html = markdown::to_html(text);
            if let Some(user) = mention {
                html = format!(
                    "<a href=\"tg://user?id={}\">@</a> {html}",
                    markdown::escape(user)
                );
            }
            body["text"] = json!(html);
            body["parse_mode"] = json!("HTML");
            match self.api.call(method, body.clone()).await {
                Ok(v) => return Ok(v),
                Err(e) if e.contains("parse") => {}
                Err(e) => return Err(e),
            }
            body.as_object_mut().map(|m| m.remove("parse_mode"));
        }
        body["text"] = json!(text);
        self.api.call(method, body).await
    }
}

#[async_trait]
impl Outbox for TelegramOutbox {
    fn text_limit(&self) -> usize {
        TEXT_LIMIT
    }

    async fn text(&self, _: &AppState, text: &str, opts: &PartOptions) -> SendResult {
        let sent = self
            .with_text(
                "sendMessage",
                self.base(opts),
                text,
                opts.mention.as_deref(),
            )
            .await?;
        Ok(id_str(&sent["message_id"]))
    }

    async fn image(&self, _: &AppState, image: &Image, opts: &PartOptions) -> SendResult {
        let sent = match image {
            Image::Url(url) => {
                let mut body = self.base(opts);
                body["photo"] = json!(url);
                self.api.call("sendPhoto", body).await?
            }
            Image::Bytes(bytes) => self.api.send_photo(self.base(opts), bytes.clone()).await?,
        };
        Ok(id_str(&sent["message_id"]))
    }

    fn streams(&self) -> bool {
        self.stream
    }

    async fn edit(&self, _: &AppState, message_id: &str, text: &str) -> Result<(), String> {
        let body = json!({ "chat_id": self.chat, "message_id": message_id.parse::<i64>().unwrap_or_default() });
        match self.with_text("editMessageText", body, text, None).await {
            Ok(_) => Ok(()),
            Err(e) if e.contains("not modified") => Ok(()),
            Err(e) => Err(e),
        }
    }
}

/// `send_message` to a chat.
pub fn outbox_for(state: &AppState, bot: &bot::Model, chat: &str) -> ApiResult<Box<dyn Outbox>> {
    let config = Config::of(bot).map_err(ApiError::unavailable)?;
    Ok(Box::new(TelegramOutbox {
        api: config.api(state),
        chat: chat.to_string(),
        reply_to: None,
        thread: None,
        markdown: config.markdown_card,
        stream: false,
    }))
}

/// `POST /bots/{uuid}` for a Telegram bot in webhook mode: the secret token is checked, the
/// update accepted, 200 at once.
pub async fn webhook(
    state: &AppState,
    req: &HttpRequest,
    bot: bot::Model,
    body: &[u8],
) -> HttpResponse {
    let Ok(config) = Config::of(&bot) else {
        return HttpResponse::ServiceUnavailable()
            .json(json!({ "ok": false, "description": "bot configuration is incomplete" }));
    };
    let given = req
        .headers()
        .get("x-telegram-bot-api-secret-token")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if !config.webhook || !crate::access::secrets::equal(given, &config.secret(&bot.uuid)) {
        status::log(
            state.store.as_ref(),
            &bot.uuid,
            LogLevel::Warning,
            "refused a webhook request: wrong or missing secret token",
        )
        .await;
        return HttpResponse::Unauthorized()
            .json(json!({ "ok": false, "description": "wrong secret token" }));
    }
    let Ok(update) = serde_json::from_slice::<Value>(body) else {
        return HttpResponse::BadRequest()
            .json(json!({ "ok": false, "description": "invalid JSON" }));
    };
    let api = config.api(state);
    let (account, username) = match status::get(state.store.as_ref(), &bot.uuid).await {
        Some(s) if s.bot_account_id.is_some() => {
            (s.bot_account_id.unwrap_or_default(), s.bot_account_name)
        }
        _ => match api.call("getMe", json!({})).await {
            Ok(me) => {
                let (id, name) = account_of(&me);
                status::set_account(state.store.as_ref(), &bot.uuid, &id, name.as_deref()).await;
                (id, name)
            }
            Err(_) => (String::new(), None),
        },
    };
    handle_update(
        state,
        &bot,
        &config,
        &api,
        &update,
        &account,
        username.as_deref(),
    )
    .await;
    HttpResponse::Ok().json(json!({ "ok": true }))
}
