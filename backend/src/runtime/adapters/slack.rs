//! Slack: the Events API (requests signed with the signing secret, URL verification) or
//! Socket Mode (`apps.connections.open`, envelopes acknowledged); direct messages and app
//! mentions; replies by `chat.postMessage`, in the thread of the message they answer in
//! channels; images as image blocks (URLs) or uploaded files (bytes).

use std::sync::Arc;
use std::time::Duration;

use actix_web::{HttpRequest, HttpResponse};
use async_trait::async_trait;
use base64::Engine as _;
use futures_util::{SinkExt, StreamExt};
use hmac::{Hmac, Mac};
use serde::Deserialize;
use serde_json::{json, Value};
use sha2::Sha256;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

use super::supervisor::{self, Ended};
use super::{Image, Outbox, PartOptions, SendResult};
use crate::bots::adapters::SLACK;
use crate::bots::status::{self, LogLevel};
use crate::entities::bot;
use crate::error::{ApiError, ApiResult};
use crate::runtime::message::{Inbound, Segment, SessionType};
use crate::state::AppState;

/// Slack's recommended message text limit.
const TEXT_LIMIT: usize = 4000;
const TIMEOUT: Duration = Duration::from_secs(30);
/// Signed requests older than this are refused (replays).
const SIGNATURE_WINDOW: i64 = 300;
const MAX_FILE: usize = 10 * 1024 * 1024;

#[derive(Debug, Clone, Deserialize)]
pub struct Config {
    pub bot_token: String,
    #[serde(default)]
    pub signing_secret: Option<String>,
    #[serde(default)]
    pub socket_mode: bool,
    #[serde(default)]
    pub app_token: Option<String>,
    #[serde(default = "official")]
    pub api_base_url: String,
}

fn official() -> String {
    "https://slack.com/api".into()
}

impl Config {
    pub fn of(bot: &bot::Model) -> Result<Self, String> {
        super::config_of(bot, "Slack")
    }

    fn api(&self, state: &AppState, token: &str) -> Api {
        Api {
            http: state.http.clone(),
            base: self.api_base_url.trim_end_matches('/').to_string(),
            token: token.to_string(),
        }
    }
}

#[derive(Clone)]
struct Api {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl Api {
    async fn call(&self, method: &str, body: Value) -> Result<Value, String> {
        let resp = self
            .http
            .post(format!("{}/{method}", self.base))
            .bearer_auth(&self.token)
            .timeout(TIMEOUT)
            .json(&body)
            .send()
            .await
            .map_err(|e| format!("{method}: {}", e.without_url()))?;
        let status = resp.status();
        let answer: Value = resp
            .json()
            .await
            .map_err(|_| format!("{method}: HTTP {} with an unreadable body", status.as_u16()))?;
        if answer["ok"] == Value::Bool(true) {
            Ok(answer)
        } else {
            Err(format!(
                "{method}: {}",
                answer["error"].as_str().unwrap_or("refused")
            ))
        }
    }

    /// A form-encoded call, for the methods that refuse JSON bodies
    /// (`files.getUploadURLExternal`).
    async fn call_form(&self, method: &str, form: &[(&str, String)]) -> Result<Value, String> {
        let resp = self
            .http
            .post(format!("{}/{method}", self.base))
            .bearer_auth(&self.token)
            .timeout(TIMEOUT)
            .form(form)
            .send()
            .await
            .map_err(|e| format!("{method}: {}", e.without_url()))?;
        let status = resp.status();
        let answer: Value = resp
            .json()
            .await
            .map_err(|_| format!("{method}: HTTP {} with an unreadable body", status.as_u16()))?;
        if answer["ok"] == Value::Bool(true) {
            Ok(answer)
        } else {
            Err(format!(
                "{method}: {}",
                answer["error"].as_str().unwrap_or("refused")
            ))
        }
    }

    async fn download(&self, url: &str) -> Result<Vec<u8>, String> {
        super::download(
            self.http.get(url).bearer_auth(&self.token).timeout(TIMEOUT),
            "file",
            MAX_FILE,
        )
        .await
    }
}

/// The bot's user id (`auth.test`), remembered in its state.
async fn account(state: &AppState, bot: &bot::Model, api: &Api) -> Result<String, String> {
    if let Some(id) = status::get(state.store.as_ref(), &bot.uuid)
        .await
        .and_then(|s| s.bot_account_id)
    {
        return Ok(id);
    }
    let me = api.call("auth.test", json!({})).await?;
    let id = me["user_id"].as_str().unwrap_or_default().to_string();
    status::set_account(state.store.as_ref(), &bot.uuid, &id, me["user"].as_str()).await;
    Ok(id)
}

fn verified(secret: &str, ts: &str, signature: &str, body: &[u8]) -> bool {
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else {
        return false;
    };
    mac.update(format!("v0:{ts}:").as_bytes());
    mac.update(body);
    let expected = format!("v0={}", hex::encode(mac.finalize().into_bytes()));
    crate::access::secrets::equal(&expected, signature)
}

/// `POST /bots/{uuid}` for a Slack bot: the Events API.
pub async fn events(
    state: &AppState,
    req: &HttpRequest,
    bot: bot::Model,
    body: &[u8],
) -> HttpResponse {
    let Ok(config) = Config::of(&bot) else {
        return HttpResponse::ServiceUnavailable()
            .json(json!({ "error": "bot configuration is incomplete" }));
    };
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    };
    let ts = header("x-slack-request-timestamp");
    let fresh = ts
        .parse::<i64>()
        .is_ok_and(|t| (chrono::Utc::now().timestamp() - t).abs() <= SIGNATURE_WINDOW);
    let secret = config.signing_secret.as_deref().unwrap_or_default();
    if secret.is_empty() || !fresh || !verified(secret, ts, header("x-slack-signature"), body) {
        let why = if secret.is_empty() {
            "no signing secret is configured"
        } else if !fresh {
            "the timestamp is missing or outside the 5-minute window"
        } else {
            "the signature does not match"
        };
        status::log(
            state.store.as_ref(),
            &bot.uuid,
            LogLevel::Warning,
            format!("refused an Events API request: {why}"),
        )
        .await;
        return HttpResponse::Unauthorized().json(json!({ "error": "invalid signature" }));
    }
    let Ok(payload) = serde_json::from_slice::<Value>(body) else {
        return HttpResponse::BadRequest().json(json!({ "error": "invalid JSON" }));
    };
    match payload["type"].as_str() {
        Some("url_verification") => {
            HttpResponse::Ok().json(json!({ "challenge": payload["challenge"] }))
        }
        Some("event_callback") => {
            handle(state, &bot, &config, &payload["event"]).await;
            HttpResponse::Ok().finish()
        }
        _ => HttpResponse::Ok().finish(),
    }
}

/// Turns a `message` or `app_mention` event into a message and accepts it (once per
/// channel and timestamp: a mention arrives as both).
async fn handle(state: &AppState, bot: &bot::Model, config: &Config, event: &Value) {
    let kind = event["type"].as_str().unwrap_or_default();
    let subtype = event["subtype"].as_str();
    if !matches!(kind, "message" | "app_mention")
        || event.get("bot_id").is_some_and(|b| !b.is_null())
        || subtype.is_some_and(|s| s != "file_share")
    {
        return;
    }
    let (Some(user), Some(channel), Some(ts)) = (
        event["user"].as_str(),
        event["channel"].as_str(),
        event["ts"].as_str(),
    ) else {
        return;
    };
    let api = config.api(state, &config.bot_token);
    let account = match account(state, bot, &api).await {
        Ok(a) => a,
        Err(why) => {
            status::log(
                state.store.as_ref(),
                &bot.uuid,
                LogLevel::Error,
                format!("auth.test failed: {why}"),
            )
            .await;
            String::new()
        }
    };
    if user == account {
        return;
    }
    let direct = event["channel_type"] == "im";
    let (session, chat) = if direct {
        (SessionType::Person, user.to_string())
    } else {
        (SessionType::Group, channel.to_string())
    };
    let mut msg = Inbound::new(SLACK, session, chat, user.to_string());
    msg.account_id = Some(account);
    msg.addressed = kind == "app_mention";
    msg.message_id = format!("slack_{channel}_{ts}");
    let mut text = event["text"].as_str().unwrap_or_default().to_string();
    while let Some(start) = text.find("<@") {
        let Some(len) = text[start..].find('>') else {
            break;
        };
        let id = text[start + 2..start + len]
            .split('|')
            .next()
            .unwrap_or_default()
            .to_string();
        msg.segments.push(Segment::at(id));
        text.replace_range(start..start + len + 1, "");
    }
    let text = text.trim();
    if !text.is_empty() {
        msg.segments.push(Segment::plain(text));
    }
    for file in event["files"].as_array().into_iter().flatten() {
        let image = file["mimetype"]
            .as_str()
            .is_some_and(|m| m.starts_with("image/"));
        if let (true, Some(url)) = (image, file["url_private"].as_str()) {
            match api.download(url).await {
                Ok(bytes) => msg.segments.push(Segment::image_base64(
                    base64::engine::general_purpose::STANDARD.encode(bytes),
                )),
                Err(why) => {
                    status::log(
                        state.store.as_ref(),
                        &bot.uuid,
                        LogLevel::Warning,
                        format!("could not fetch a file: {why}"),
                    )
                    .await
                }
            }
        }
    }
    if msg.segments.is_empty() {
        return;
    }
    let thread = event["thread_ts"]
        .as_str()
        .or((!direct).then_some(ts))
        .map(str::to_string);
    let outbox = SlackOutbox {
        api,
        channel: channel.to_string(),
        thread,
    };
    let key = format!("slack:{channel}:{ts}");
    super::accept(state, bot.clone(), msg, Box::new(outbox), Some(key)).await;
}

/// Replies into a channel (in a thread where the message was in one or in a channel).
pub struct SlackOutbox {
    api: Api,
    channel: String,
    thread: Option<String>,
}

impl SlackOutbox {
    async fn post(&self, mut body: Value) -> SendResult {
        body["channel"] = json!(self.channel);
        if let Some(thread) = &self.thread {
            body["thread_ts"] = json!(thread);
        }
        let sent = self.api.call("chat.postMessage", body).await?;
        Ok(sent["ts"].as_str().map(str::to_string))
    }
}

#[async_trait]
impl Outbox for SlackOutbox {
    fn text_limit(&self) -> usize {
        TEXT_LIMIT
    }

    async fn text(&self, _: &AppState, text: &str, opts: &PartOptions) -> SendResult {
        let text = match &opts.mention {
            Some(user) => format!("<@{user}> {text}"),
            None => text.to_string(),
        };
        self.post(json!({ "text": text })).await
    }

    async fn image(&self, _: &AppState, image: &Image, _: &PartOptions) -> SendResult {
        match image {
            Image::Url(url) => {
                self.post(json!({ "text": "image", "blocks": [{ "type": "image", "image_url": url, "alt_text": "image" }] }))
                    .await
            }
            Image::Bytes(bytes) => {
                let upload = self
                    .api
                    .call_form(
                        "files.getUploadURLExternal",
                        &[("filename", "image.png".into()), ("length", bytes.len().to_string())],
                    )
                    .await?;
                let (Some(url), Some(file)) = (upload["upload_url"].as_str(), upload["file_id"].as_str()) else {
                    return Err("files.getUploadURLExternal: no upload URL".into());
                };
                let put = self
                    .api
                    .http
                    .post(url)
                    .timeout(TIMEOUT)
                    .body(bytes.clone())
                    .send()
                    .await
                    .map_err(|e| format!("file upload: {}", e.without_url()))?;
                if !put.status().is_success() {
                    return Err(format!("file upload: HTTP {}", put.status().as_u16()));
                }
                let mut done = json!({ "files": [{ "id": file, "title": "image" }], "channel_id": self.channel });
                if let Some(thread) = &self.thread {
                    done["thread_ts"] = json!(thread);
                }
                self.api.call("files.completeUploadExternal", done).await?;
                Ok(Some(file.to_string()))
            }
        }
    }
}

/// `send_message` to a channel or user.
pub fn outbox_for(state: &AppState, bot: &bot::Model, channel: &str) -> ApiResult<Box<dyn Outbox>> {
    let config = Config::of(bot).map_err(ApiError::unavailable)?;
    Ok(Box::new(SlackOutbox {
        api: config.api(state, &config.bot_token),
        channel: channel.to_string(),
        thread: None,
    }))
}

/// The Events API mode (under the lease, on one replica): checks the bot token
/// (`auth.test`) and the signing secret, so a wrong one shows in the bot's state before the
/// first event, and records the bot's user id. The events themselves arrive at
/// [`events`] on any replica.
pub async fn run_events(state: AppState, bot: Arc<bot::Model>, stop: CancellationToken) {
    supervisor::reconnecting(&state, &bot.uuid, &stop, || async {
        let config = Config::of(&bot)?;
        if config.signing_secret.as_deref().is_none_or(str::is_empty) {
            return Err("the Events API needs the signing secret".to_string());
        }
        let me = config
            .api(&state, &config.bot_token)
            .call("auth.test", json!({}))
            .await?;
        status::set_account(
            state.store.as_ref(),
            &bot.uuid,
            me["user_id"].as_str().unwrap_or_default(),
            me["user"].as_str(),
        )
        .await;
        supervisor::running(&state, &bot.uuid).await;
        stop.cancelled().await;
        Ok(Ended::Stopped)
    })
    .await;
}

/// Socket Mode (under the lease): open a connection URL with the app token, acknowledge
/// each envelope, reconnect when Slack asks to.
pub async fn run_socket(state: AppState, bot: Arc<bot::Model>, stop: CancellationToken) {
    supervisor::reconnecting(&state, &bot.uuid, &stop, || async {
        let config = Config::of(&bot)?;
        let app_token = config
            .app_token
            .clone()
            .filter(|t| !t.is_empty())
            .ok_or("Socket Mode needs the app-level token")?;
        let bot_api = config.api(&state, &config.bot_token);
        let me = bot_api.call("auth.test", json!({})).await?;
        status::set_account(
            state.store.as_ref(),
            &bot.uuid,
            me["user_id"].as_str().unwrap_or_default(),
            me["user"].as_str(),
        )
        .await;
        let opened = config
            .api(&state, &app_token)
            .call("apps.connections.open", json!({}))
            .await?;
        let url = opened["url"]
            .as_str()
            .ok_or("apps.connections.open: no URL")?
            .to_string();
        let (ws, _) = tokio::time::timeout(
            Duration::from_secs(15),
            tokio_tungstenite::connect_async(url.as_str()),
        )
        .await
        .map_err(|_| "timed out connecting to Socket Mode".to_string())?
        .map_err(|e| format!("could not connect to Socket Mode: {e}"))?;
        supervisor::running(&state, &bot.uuid).await;
        let (mut sink, mut stream) = ws.split();
        loop {
            let frame = tokio::select! {
                _ = stop.cancelled() => {
                    let _ = sink.send(Message::Close(None)).await;
                    return Ok(Ended::Stopped);
                }
                frame = stream.next() => frame,
            };
            let text = match frame {
                Some(Ok(Message::Text(t))) => t.to_string(),
                Some(Ok(Message::Ping(p))) => {
                    let _ = sink.send(Message::Pong(p)).await;
                    continue;
                }
                Some(Ok(Message::Close(_))) | None => {
                    return Ok(Ended::Closed("closed by Slack".into()))
                }
                Some(Err(e)) => return Ok(Ended::Closed(e.to_string())),
                Some(Ok(_)) => continue,
            };
            let Ok(envelope) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            if let Some(id) = envelope["envelope_id"].as_str() {
                let ack = json!({ "envelope_id": id }).to_string();
                if let Err(e) = sink.send(Message::text(ack)).await {
                    return Ok(Ended::Closed(e.to_string()));
                }
            }
            match envelope["type"].as_str() {
                Some("events_api") if envelope["payload"]["type"] == "event_callback" => {
                    handle(&state, &bot, &config, &envelope["payload"]["event"]).await;
                }
                Some("disconnect") => return Ok(Ended::Closed("Slack asked to reconnect".into())),
                _ => {}
            }
        }
    })
    .await;
}
