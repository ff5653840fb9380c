//! Discord: the Gateway (hello, identify with intents, heartbeats with their
//! acknowledgements, resume after a drop, reconnect and invalid-session handling) for
//! events, REST for replies. Guild messages that mention the bot (or reply to it) and
//! direct messages; replies quote the message and split at Discord's 2000 characters.
//!
//! The gateway is our own small client over `tokio-tungstenite` (already a dependency)
//! rather than twilight: it needs only these few opcodes, and it connects to whatever
//! `GET /gateway/bot` answers, so a local fake can stand in for Discord.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

use super::supervisor::{self, Ended};
use super::{Image, Outbox, PartOptions, SendResult};
use crate::bots::adapters::DISCORD;
use crate::bots::status;
use crate::entities::bot;
use crate::error::{ApiError, ApiResult};
use crate::runtime::message::{Inbound, Segment, SessionType};
use crate::state::AppState;

const TEXT_LIMIT: usize = 2000;
const TIMEOUT: Duration = Duration::from_secs(30);
/// GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT.
pub const INTENTS: u64 = 1 | (1 << 9) | (1 << 12) | (1 << 15);

#[derive(Debug, Clone, Deserialize)]
pub struct Config {
    pub client_id: String,
    pub token: String,
    #[serde(default = "official")]
    pub api_base_url: String,
}

fn official() -> String {
    "https://discord.com/api/v10".into()
}

impl Config {
    pub fn of(bot: &bot::Model) -> Result<Self, String> {
        super::config_of(bot, "Discord")
    }

    fn rest(&self, state: &AppState) -> Rest {
        Rest {
            http: state.http.clone(),
            base: self.api_base_url.trim_end_matches('/').to_string(),
            token: self.token.clone(),
        }
    }
}

#[derive(Clone)]
struct Rest {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl Rest {
    async fn answer(
        what: &str,
        sent: Result<reqwest::Response, reqwest::Error>,
    ) -> Result<Value, String> {
        let resp = sent.map_err(|e| format!("{what}: {}", e.without_url()))?;
        let status = resp.status();
        let body: Value = resp.json().await.unwrap_or(Value::Null);
        if status.is_success() {
            Ok(body)
        } else {
            Err(format!(
                "{what}: HTTP {} {}",
                status.as_u16(),
                body["message"].as_str().unwrap_or_default()
            ))
        }
    }

    async fn get(&self, path: &str) -> Result<Value, String> {
        let sent = self
            .http
            .get(format!("{}{path}", self.base))
            .header("authorization", format!("Bot {}", self.token))
            .timeout(TIMEOUT)
            .send()
            .await;
        Self::answer(path, sent).await
    }

    async fn post(&self, path: &str, body: Value) -> Result<Value, String> {
        let sent = self
            .http
            .post(format!("{}{path}", self.base))
            .header("authorization", format!("Bot {}", self.token))
            .timeout(TIMEOUT)
            .json(&body)
            .send()
            .await;
        Self::answer(path, sent).await
    }

    async fn post_file(&self, path: &str, body: Value, bytes: Vec<u8>) -> Result<Value, String> {
        let form = reqwest::multipart::Form::new()
            .text("payload_json", body.to_string())
            .part(
                "files[0]",
                reqwest::multipart::Part::bytes(bytes).file_name("image.png"),
            );
        let sent = self
            .http
            .post(format!("{}{path}", self.base))
            .header("authorization", format!("Bot {}", self.token))
            .timeout(TIMEOUT)
            .multipart(form)
            .send()
            .await;
        Self::answer(path, sent).await
    }
}

/// What resuming a dropped session needs.
#[derive(Debug, Clone)]
struct Resume {
    session_id: String,
    url: String,
    seq: Option<i64>,
}

/// Runs the gateway connection (under the lease) until `stop`.
pub async fn run(state: AppState, bot: Arc<bot::Model>, stop: CancellationToken) {
    let resume: Arc<Mutex<Option<Resume>>> = Arc::default();
    supervisor::reconnecting(&state, &bot.uuid, &stop, || {
        session(&state, &bot, &stop, resume.clone())
    })
    .await;
}

fn gateway_url(base: &str) -> String {
    let base = base.trim_end_matches('/');
    if base.contains('?') {
        base.to_string()
    } else {
        format!("{base}/?v=10&encoding=json")
    }
}

async fn session(
    state: &AppState,
    bot: &bot::Model,
    stop: &CancellationToken,
    resume: Arc<Mutex<Option<Resume>>>,
) -> Result<Ended, String> {
    let config = Config::of(bot)?;
    let rest = config.rest(state);
    let previous = resume.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let url = match &previous {
        Some(r) => r.url.clone(),
        None => {
            let info = rest.get("/gateway/bot").await?;
            info["url"]
                .as_str()
                .ok_or("/gateway/bot: no url")?
                .to_string()
        }
    };
    let (ws, _) =
        tokio::time::timeout(TIMEOUT, tokio_tungstenite::connect_async(gateway_url(&url)))
            .await
            .map_err(|_| "timed out connecting to the gateway".to_string())?
            .map_err(|e| format!("could not connect to the gateway: {e}"))?;
    let (mut sink, mut stream) = ws.split();
    let hello = tokio::time::timeout(TIMEOUT, stream.next())
        .await
        .map_err(|_| "the gateway sent no hello".to_string())?;
    let interval = match hello {
        Some(Ok(Message::Text(t))) => serde_json::from_str::<Value>(&t)
            .ok()
            .and_then(|v| v["d"]["heartbeat_interval"].as_u64()),
        _ => None,
    }
    .ok_or("the gateway's first frame was not a hello")?;
    let first = match &previous {
        Some(r) => {
            json!({ "op": 6, "d": { "token": config.token, "session_id": r.session_id, "seq": r.seq } })
        }
        None => json!({ "op": 2, "d": {
            "token": config.token, "intents": INTENTS,
            "properties": { "os": std::env::consts::OS, "browser": "langbot", "device": "langbot" } } }),
    };
    sink.send(Message::text(first.to_string()))
        .await
        .map_err(|e| e.to_string())?;
    let period = Duration::from_millis(interval.max(100));
    let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + period / 2, period);
    let mut acked = true;
    let mut seq = previous.as_ref().and_then(|r| r.seq);
    loop {
        let frame = tokio::select! {
            _ = stop.cancelled() => {
                let _ = sink.send(Message::Close(None)).await;
                return Ok(Ended::Stopped);
            }
            _ = beat.tick() => {
                if !acked {
                    return Ok(Ended::Closed("no heartbeat acknowledgement".into()));
                }
                acked = false;
                if let Err(e) = sink.send(Message::text(json!({ "op": 1, "d": seq }).to_string())).await {
                    return Ok(Ended::Closed(e.to_string()));
                }
                continue;
            }
            frame = stream.next() => frame,
        };
        let text = match frame {
            Some(Ok(Message::Text(t))) => t.to_string(),
            Some(Ok(Message::Close(close))) => {
                let code = close.map(|c| u16::from(c.code)).unwrap_or(1000);
                return closed(code, &resume);
            }
            Some(Ok(Message::Ping(p))) => {
                let _ = sink.send(Message::Pong(p)).await;
                continue;
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Ok(Ended::Closed(e.to_string())),
            None => return Ok(Ended::Closed("the gateway closed the connection".into())),
        };
        let Ok(payload) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        match payload["op"].as_i64() {
            Some(0) => {
                if let Some(s) = payload["s"].as_i64() {
                    seq = Some(s);
                    if let Some(r) = resume.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
                        r.seq = Some(s);
                    }
                }
                let d = &payload["d"];
                match payload["t"].as_str() {
                    Some("READY") => {
                        let id = d["user"]["id"].as_str().unwrap_or_default();
                        status::set_account(
                            state.store.as_ref(),
                            &bot.uuid,
                            id,
                            d["user"]["username"].as_str(),
                        )
                        .await;
                        *resume.lock().unwrap_or_else(|p| p.into_inner()) = Some(Resume {
                            session_id: d["session_id"].as_str().unwrap_or_default().to_string(),
                            url: d["resume_gateway_url"].as_str().unwrap_or(&url).to_string(),
                            seq,
                        });
                        supervisor::running(state, &bot.uuid).await;
                    }
                    Some("RESUMED") => supervisor::running(state, &bot.uuid).await,
                    Some("MESSAGE_CREATE") => message(state, bot, &rest, d).await,
                    _ => {}
                }
            }
            Some(1) => {
                if let Err(e) = sink
                    .send(Message::text(json!({ "op": 1, "d": seq }).to_string()))
                    .await
                {
                    return Ok(Ended::Closed(e.to_string()));
                }
            }
            Some(7) => return Ok(Ended::Closed("the gateway asked to reconnect".into())),
            Some(9) => {
                if payload["d"] != Value::Bool(true) {
                    *resume.lock().unwrap_or_else(|p| p.into_inner()) = None;
                }
                return Ok(Ended::Closed("invalid session".into()));
            }
            Some(11) => acked = true,
            _ => {}
        }
    }
}

/// What a close code means: authentication and intent errors are failures (no point
/// reconnecting soon); some codes forbid resuming; the rest resume.
fn closed(code: u16, resume: &Mutex<Option<Resume>>) -> Result<Ended, String> {
    let forget = || *resume.lock().unwrap_or_else(|p| p.into_inner()) = None;
    match code {
        4004 => {
            forget();
            Err("the gateway refused the token (4004 authentication failed)".into())
        }
        4010..=4014 => {
            forget();
            Err(format!(
                "the gateway refused the connection ({code}: shard or intents not allowed)"
            ))
        }
        4007 | 4009 => {
            forget();
            Ok(Ended::Closed(format!("session not resumable ({code})")))
        }
        c if c == u16::from(CloseCode::Normal) => Ok(Ended::Closed("closed by the gateway".into())),
        c => Ok(Ended::Closed(format!("closed by the gateway ({c})"))),
    }
}

async fn message(state: &AppState, bot: &bot::Model, rest: &Rest, d: &Value) {
    if d["author"]["bot"] == Value::Bool(true) {
        return;
    }
    let (Some(author), Some(channel), Some(id)) = (
        d["author"]["id"].as_str(),
        d["channel_id"].as_str(),
        d["id"].as_str(),
    ) else {
        return;
    };
    let account = status::get(state.store.as_ref(), &bot.uuid)
        .await
        .and_then(|s| s.bot_account_id)
        .unwrap_or_default();
    let guild = d["guild_id"].as_str().filter(|g| !g.is_empty());
    let (kind, chat) = match guild {
        Some(_) => (SessionType::Group, channel.to_string()),
        None => (SessionType::Person, author.to_string()),
    };
    let mut msg = Inbound::new(DISCORD, kind, chat, author.to_string());
    msg.account_id = Some(account.clone());
    msg.sender_name = d["author"]["global_name"]
        .as_str()
        .or(d["author"]["username"].as_str())
        .map(str::to_string);
    msg.message_id = format!("dc_{id}");
    msg.addressed = d["referenced_message"]["author"]["id"].as_str() == Some(account.as_str())
        && !account.is_empty();
    let mut text = d["content"].as_str().unwrap_or_default().to_string();
    for m in d["mentions"].as_array().into_iter().flatten() {
        if let Some(uid) = m["id"].as_str() {
            msg.segments.push(Segment::at(uid));
            for form in [format!("<@{uid}>"), format!("<@!{uid}>")] {
                text = text.replace(&form, "");
            }
        }
    }
    let text = text.trim();
    if !text.is_empty() {
        msg.segments.push(Segment::plain(text));
    }
    for a in d["attachments"].as_array().into_iter().flatten() {
        let image = a["content_type"]
            .as_str()
            .is_some_and(|c| c.starts_with("image/"));
        if let (true, Some(url)) = (image, a["url"].as_str()) {
            msg.segments.push(Segment::image_url(url));
        }
    }
    if msg
        .segments
        .iter()
        .all(|s| s.kind == crate::runtime::message::SegmentKind::At)
    {
        return;
    }
    let outbox = DiscordOutbox {
        rest: rest.clone(),
        channel: channel.to_string(),
        reply_to: Some(id.to_string()),
    };
    super::accept(
        state,
        bot.clone(),
        msg,
        Box::new(outbox),
        Some(format!("dc:{id}")),
    )
    .await;
}

/// Replies into a channel.
pub struct DiscordOutbox {
    rest: Rest,
    channel: String,
    reply_to: Option<String>,
}

impl DiscordOutbox {
    fn body(&self, opts: &PartOptions) -> Value {
        let mut body = json!({ "allowed_mentions": { "parse": ["users"], "replied_user": false } });
        if let (true, Some(id)) = (opts.quote, &self.reply_to) {
            body["message_reference"] = json!({ "message_id": id, "fail_if_not_exists": false });
        }
        body
    }

    fn path(&self) -> String {
        format!("/channels/{}/messages", self.channel)
    }
}

#[async_trait]
impl Outbox for DiscordOutbox {
    fn text_limit(&self) -> usize {
        TEXT_LIMIT
    }

    async fn text(&self, _: &AppState, text: &str, opts: &PartOptions) -> SendResult {
        let mut body = self.body(opts);
        body["content"] = json!(match &opts.mention {
            Some(user) => format!("<@{user}> {text}"),
            None => text.to_string(),
        });
        let sent = self.rest.post(&self.path(), body).await?;
        Ok(sent["id"].as_str().map(str::to_string))
    }

    async fn image(&self, _: &AppState, image: &Image, opts: &PartOptions) -> SendResult {
        let mut body = self.body(opts);
        let sent = match image {
            Image::Url(url) => {
                body["embeds"] = json!([{ "image": { "url": url } }]);
                self.rest.post(&self.path(), body).await?
            }
            Image::Bytes(bytes) => {
                body["attachments"] = json!([{ "id": 0, "filename": "image.png" }]);
                self.rest
                    .post_file(&self.path(), body, bytes.clone())
                    .await?
            }
        };
        Ok(sent["id"].as_str().map(str::to_string))
    }
}

/// `send_message`: a group target is a channel; for a person the DM channel is opened
/// (`POST /users/@me/channels`, which answers the existing one).
pub async fn outbox_for(
    state: &AppState,
    bot: &bot::Model,
    kind: SessionType,
    target: &str,
) -> ApiResult<Box<dyn Outbox>> {
    let config = Config::of(bot).map_err(ApiError::unavailable)?;
    let rest = config.rest(state);
    let channel = match kind {
        SessionType::Group => target.to_string(),
        SessionType::Person => {
            let dm = rest
                .post("/users/@me/channels", json!({ "recipient_id": target }))
                .await
                .map_err(|why| {
                    ApiError::new(crate::error::ErrorCode::UpstreamError)
                        .msg(format!("Could not open a DM channel: {why}"))
                })?;
            dm["id"]
                .as_str()
                .ok_or_else(|| {
                    ApiError::new(crate::error::ErrorCode::UpstreamError)
                        .msg("Discord answered no DM channel id")
                })?
                .to_string()
        }
    };
    Ok(Box::new(DiscordOutbox {
        rest,
        channel,
        reply_to: None,
    }))
}
