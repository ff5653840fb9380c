//! Discord: the Gateway through twilight-gateway (hello, identify with intents, heartbeats
//! and their acknowledgements, resume, reconnect and invalid-session handling are the
//! crate's) for events, REST over reqwest for replies. Guild messages that mention the bot
//! (or reply to it) and direct messages; replies quote the message and split at Discord's
//! 2000 characters.
//!
//! The shard connects to the URL that `GET /gateway/bot` of `api_base_url` answers (its
//! `proxy_url`), so a self-hosted gateway or a local fake can stand in for Discord. REST
//! stays on reqwest: twilight-http's `proxy` replaces only the host and keeps `/api/v10`,
//! so an `api_base_url` with another path could not be honoured.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use twilight_gateway::{
    CloseFrame, ConfigBuilder, Intents, Message, Session, Shard, ShardId, ShardState,
};
use twilight_model::gateway::payload::outgoing::identify::IdentifyProperties;

use super::supervisor::{self, Ended};
use super::{Image, Outbox, PartOptions, SendResult};
use crate::bots::adapters::DISCORD;
use crate::bots::status::{self, LogLevel};
use crate::entities::bot;
use crate::error::{ApiError, ApiResult};
use crate::runtime::message::{Inbound, Segment, SessionType};
use crate::state::AppState;

const TEXT_LIMIT: usize = 2000;
const OP_DISPATCH: i64 = 0;
const OP_HELLO: i64 = 10;
const TIMEOUT: Duration = Duration::from_secs(30);
const INTENTS: Intents = Intents::GUILDS
    .union(Intents::GUILD_MESSAGES)
    .union(Intents::DIRECT_MESSAGES)
    .union(Intents::MESSAGE_CONTENT);

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

/// What resuming a dropped session on a new shard needs: the session, and the URL to
/// resume at (none when twilight dropped it after a failed connect; the shard then
/// resumes at the main gateway URL, as twilight itself would).
#[derive(Debug, Clone)]
struct Resume {
    session: Session,
    url: Option<String>,
}

type Saved = Arc<Mutex<Option<Resume>>>;

/// Runs the gateway connection (under the lease) until `stop`. Each session is one twilight
/// shard; when the gateway closes its connection, the supervisor reconnects (logging it,
/// with back-off) and the next shard resumes the session the last one had. A connection
/// that just drops (no close frame) is re-established by the shard itself; the adapter
/// sees the new connection's hello and records the reconnect the same way.
pub async fn run(state: AppState, bot: Arc<bot::Model>, stop: CancellationToken) {
    let resume: Saved = Arc::default();
    supervisor::reconnecting(&state, &bot.uuid, &stop, || {
        session(&state, &bot, &stop, resume.clone())
    })
    .await;
}

/// twilight appends `/?v=10&encoding=json` itself and panics on a URL it cannot parse, so
/// only a WebSocket URL gets that far.
fn gateway_base(url: &str) -> Result<String, String> {
    let parsed = url::Url::parse(url).map_err(|e| format!("gateway URL {url:?}: {e}"))?;
    if !matches!(parsed.scheme(), "ws" | "wss") || parsed.host_str().is_none() {
        return Err(format!("gateway URL {url:?} is not a ws:// or wss:// URL"));
    }
    Ok(url
        .split('?')
        .next()
        .unwrap_or(url)
        .trim_end_matches('/')
        .to_string())
}

fn shard(config: &Config, url: String, previous: Option<Resume>) -> Shard {
    let properties = IdentifyProperties::new("langbot", "langbot", std::env::consts::OS);
    let mut builder = ConfigBuilder::new(config.token.clone(), INTENTS)
        .identify_properties(properties)
        .proxy_url(url);
    if let Some(r) = previous {
        builder = builder.session(r.session);
        if let Some(url) = r.url {
            builder = builder.resume_url(url);
        }
    }
    Shard::with_config(ShardId::ONE, builder.build())
}

fn save(resume: &Saved, value: Option<Resume>) {
    *resume.lock().unwrap_or_else(|p| p.into_inner()) = value;
}

/// What the shard would resume with, if anything.
fn resumable(shard: &Shard) -> Option<Resume> {
    Some(Resume {
        session: shard.session()?.clone(),
        url: shard.resume_url().and_then(|u| gateway_base(u).ok()),
    })
}

async fn session(
    state: &AppState,
    bot: &bot::Model,
    stop: &CancellationToken,
    resume: Saved,
) -> Result<Ended, String> {
    let config = Config::of(bot)?;
    let rest = config.rest(state);
    let previous = resume.lock().unwrap_or_else(|p| p.into_inner()).take();
    // A fresh session starts from `GET /gateway/bot` (which also checks the token); the
    // shard falls back to this URL whenever it cannot resume.
    let info = rest.get("/gateway/bot").await?;
    let url = gateway_base(info["url"].as_str().ok_or("/gateway/bot: no url")?)?;
    let mut shard = shard(&config, url, previous);
    let mut connections = 0u32;
    loop {
        let next = tokio::select! {
            _ = stop.cancelled() => {
                close(&mut shard).await;
                return Ok(Ended::Stopped);
            }
            next = shard.next() => next,
        };
        match next {
            Some(Ok(Message::Text(text))) => {
                let Ok(payload) = serde_json::from_str::<Value>(&text) else {
                    continue;
                };
                if payload["op"].as_i64() == Some(OP_HELLO) {
                    connections += 1;
                    if connections > 1 {
                        // The shard lost the last connection without a close frame and
                        // has already connected again.
                        let why = match shard.state() {
                            ShardState::Resuming => "the connection dropped; resuming the session",
                            _ => "the connection dropped; identifying anew",
                        };
                        supervisor::reconnected_by_client(state, &bot.uuid, why).await;
                    }
                    continue;
                }
                if let Some(ended) = dispatch(state, bot, &rest, &payload).await {
                    save(&resume, None);
                    return Ok(ended);
                }
            }
            Some(Ok(Message::Close(frame))) => {
                let code = frame.as_ref().map_or(1006, |f| f.code);
                save(&resume, resumable(&shard));
                return closed(
                    code,
                    matches!(shard.state(), ShardState::FatallyClosed),
                    &resume,
                );
            }
            // Connecting (or reconnecting) failed: the supervisor's back-off takes over.
            Some(Err(e)) if matches!(shard.state(), ShardState::Disconnected { .. }) => {
                save(&resume, resumable(&shard));
                return Err(format!("could not connect to the gateway: {e}"));
            }
            Some(Err(e)) => {
                tracing::warn!(bot = %bot.uuid, error = %e, "an unreadable gateway event")
            }
            None => {
                save(&resume, None);
                return Err("the gateway closed the session for good".into());
            }
        }
    }
}

/// Closes the shard cleanly (a normal close ends the session on Discord's side too).
async fn close(shard: &mut Shard) {
    shard.close(CloseFrame::NORMAL);
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        while let Some(m) = shard.next().await {
            if matches!(m, Ok(Message::Close(_))) {
                break;
            }
        }
    })
    .await;
}

/// Handles one gateway payload; `Some` when the session must end.
async fn dispatch(
    state: &AppState,
    bot: &bot::Model,
    rest: &Rest,
    payload: &Value,
) -> Option<Ended> {
    if payload["op"].as_i64() != Some(OP_DISPATCH) {
        return None;
    }
    let d = &payload["d"];
    match payload["t"].as_str() {
        Some("READY") => {
            // twilight would reconnect to this URL and cannot parse a bad one.
            if let Err(why) = d["resume_gateway_url"]
                .as_str()
                .map_or(Ok(String::new()), gateway_base)
            {
                return Some(Ended::Closed(why));
            }
            let id = d["user"]["id"].as_str().unwrap_or_default();
            status::set_account(
                state.store.as_ref(),
                &bot.uuid,
                id,
                d["user"]["username"].as_str(),
            )
            .await;
            supervisor::running(state, &bot.uuid).await;
        }
        Some("RESUMED") => {
            let store = state.store.as_ref();
            status::log(store, &bot.uuid, LogLevel::Info, "gateway session resumed").await;
            supervisor::running(state, &bot.uuid).await;
        }
        Some("MESSAGE_CREATE") => message(state, bot, rest, d).await,
        _ => {}
    }
    None
}

/// What a close means: authentication and intent errors are failures (no point
/// reconnecting soon); some codes forbid resuming; the rest resume.
fn closed(code: u16, fatal: bool, resume: &Saved) -> Result<Ended, String> {
    match code {
        4004 => {
            save(resume, None);
            Err("the gateway refused the token (4004 authentication failed)".into())
        }
        4010..=4014 => {
            save(resume, None);
            Err(format!(
                "the gateway refused the connection ({code}: shard or intents not allowed)"
            ))
        }
        4007 | 4009 => {
            save(resume, None);
            Ok(Ended::Closed(format!("session not resumable ({code})")))
        }
        c if fatal => {
            save(resume, None);
            Err(format!("the gateway closed the connection for good ({c})"))
        }
        1000 => Ok(Ended::Closed("closed by the gateway".into())),
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
