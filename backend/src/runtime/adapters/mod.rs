//! The platform adapters and what they share. Each adapter (one folder) turns its platform's
//! events into an [`Inbound`] message and gives an [`Outbox`] that sends replies back; this
//! module turns the message into a turn (aggregation, the session's busy mark, the route
//! decision, the pipeline) and delivers the replies (split at the platform's limit, quoting
//! and mentioning where the platform can, streamed by edits where configured).
//!
//! Webhook-style adapters answer in [`ingress`] on any replica; connection-style ones are run
//! by the [`supervisor`] on exactly one replica at a time, under a lease in the session store.

pub mod discord;
pub mod ingress;
pub mod lark;
pub mod onebot;
pub mod send;
pub mod slack;
pub mod supervisor;
pub mod telegram;
pub mod text;
pub mod web_page;

use std::time::Duration;

use async_trait::async_trait;
use base64::Engine as _;
use uuid::Uuid;

use super::conversation::{ConversationKey, Waiting};
use super::dispatch::{self, Routed};
use super::message::{session_id, Inbound, Segment, SegmentKind};
use super::recorder;
use crate::access::{PermissionSet, WorkspaceCtx};
use crate::bots::status::{self, LogLevel};
use crate::entities::bot;
use crate::entities::execution::ExecutionStatus;
use crate::state::AppState;

/// How long a platform message id is remembered, so a redelivered event (a webhook retry, a
/// gateway replay, a replica taking over a poll) is answered once.
const SEEN_WINDOW: Duration = Duration::from_secs(24 * 3600);

/// An image to send: a URL the platform can fetch, or the bytes.
#[derive(Debug, Clone)]
pub enum Image {
    Url(String),
    Bytes(Vec<u8>),
}

impl Image {
    /// The image of an `Image` segment (`url` first, else `base64`).
    pub fn of(segment: &Segment) -> Option<Image> {
        if let Some(url) = segment.url.as_deref().filter(|u| !u.is_empty()) {
            return Some(Image::Url(url.to_string()));
        }
        let data = segment.base64.as_deref()?;
        let data = data.split_once("base64,").map_or(data, |(_, d)| d);
        base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .ok()
            .map(Image::Bytes)
    }
}

/// How one outgoing part relates to the message it answers.
#[derive(Debug, Clone, Default)]
pub struct PartOptions {
    /// Quote (reply to) the inbound message: the first part of an answer.
    pub quote: bool,
    /// Mention this platform user (the pipeline's at-sender in groups).
    pub mention: Option<String>,
}

/// A failed send, with the platform's reason.
pub type SendResult = Result<Option<String>, String>;

/// Where replies to one inbound message (or one `send_message` target) go.
#[async_trait]
pub trait Outbox: Send + Sync {
    /// The platform's text limit, in characters: longer replies are split.
    fn text_limit(&self) -> usize;

    /// Sends a text part; answers the platform's message id when it has one.
    async fn text(&self, state: &AppState, text: &str, opts: &PartOptions) -> SendResult;

    /// Sends an image part.
    async fn image(&self, state: &AppState, image: &Image, opts: &PartOptions) -> SendResult;

    /// Whether replies stream by editing one message as the model writes.
    fn streams(&self) -> bool {
        false
    }

    /// Replaces the text of a message this outbox sent.
    async fn edit(&self, _state: &AppState, _message_id: &str, _text: &str) -> Result<(), String> {
        Err("this platform cannot edit messages".into())
    }

    /// Delivers a turn's replies. The default sends each reply's parts in order: text
    /// split at the limit, images one by one, the first part quoting the inbound message.
    async fn deliver(&self, state: &AppState, bot: &str, replies: &[Vec<Segment>]) {
        let mut first = true;
        for reply in replies {
            for (part, opts) in parts(reply, self.text_limit(), &mut first) {
                let sent = match &part {
                    Part::Text(t) => self.text(state, t, &opts).await,
                    Part::Image(i) => self.image(state, i, &opts).await,
                };
                if let Err(why) = sent {
                    status::log(
                        state.store.as_ref(),
                        bot,
                        LogLevel::Error,
                        format!("could not send a reply: {why}"),
                    )
                    .await;
                }
            }
        }
    }
}

/// One platform message of a reply.
#[derive(Debug, Clone)]
pub enum Part {
    Text(String),
    Image(Image),
}

/// A reply's parts: the text of its `Plain` segments split at `limit`, its images; the
/// mention of its `At` segment on the first part, the quote on the very first part.
pub fn parts(reply: &[Segment], limit: usize, first: &mut bool) -> Vec<(Part, PartOptions)> {
    let mention = reply
        .iter()
        .find(|s| s.kind == SegmentKind::At)
        .and_then(|s| s.target.clone());
    let mut out: Vec<Part> = Vec::new();
    let mut pending = String::new();
    for segment in reply {
        match segment.kind {
            SegmentKind::Plain => pending.push_str(segment.text.as_deref().unwrap_or_default()),
            SegmentKind::Image => {
                if let Some(image) = Image::of(segment) {
                    flush(&mut pending, limit, &mut out);
                    out.push(Part::Image(image));
                }
            }
            _ => {}
        }
    }
    flush(&mut pending, limit, &mut out);
    out.into_iter()
        .enumerate()
        .map(|(i, part)| {
            let opts = PartOptions {
                quote: std::mem::take(first),
                mention: if i == 0 { mention.clone() } else { None },
            };
            (part, opts)
        })
        .collect()
}

fn flush(pending: &mut String, limit: usize, out: &mut Vec<Part>) {
    if !pending.trim().is_empty() {
        out.extend(text::split(pending, limit).into_iter().map(Part::Text));
    }
    pending.clear();
}

/// The Workspace a bot belongs to, as the runtime acts in it (no caller permissions).
pub async fn workspace_of(state: &AppState, bot: &bot::Model) -> WorkspaceCtx {
    let workspace = Uuid::parse_str(&bot.workspace_uuid).unwrap_or_default();
    let language = state.identity.language(workspace).await.unwrap_or_default();
    WorkspaceCtx {
        uuid: workspace,
        permissions: PermissionSet::EMPTY,
        role: None,
        language,
    }
}

/// Whether `key` (a platform message id) is new for `bot`; remembers it. A store failure
/// lets the message through.
pub async fn first_sight(state: &AppState, bot: &str, key: &str) -> bool {
    let key = format!("seen:{bot}:{}", crate::access::secrets::hash(key));
    state
        .store
        .set_if_absent(&key, b"1", SEEN_WINDOW)
        .await
        .unwrap_or(true)
}

/// Accepts an inbound message: unless its platform id was seen before, its turn runs in
/// the background (tracked, so a graceful shutdown lets it finish) and the replies go to
/// `outbox`.
pub async fn accept(
    state: &AppState,
    bot: bot::Model,
    msg: Inbound,
    outbox: Box<dyn Outbox>,
    platform_id: Option<String>,
) {
    if let Some(id) = platform_id {
        if !first_sight(state, &bot.uuid, &id).await {
            tracing::debug!(bot = %bot.uuid, "a redelivered event; answered already");
            return;
        }
    }
    let owned = state.clone();
    state.tasks.spawn(async move {
        let ws = workspace_of(&owned, &bot).await;
        let aggregate = aggregation(&owned, &ws, &bot, &msg).await;
        process(&owned, &ws, &bot, msg, outbox.as_ref(), aggregate).await;
    });
}

/// When the message's pipeline aggregates messages: its delay.
pub async fn aggregation(
    state: &AppState,
    ws: &WorkspaceCtx,
    bot: &bot::Model,
    msg: &Inbound,
) -> Option<Duration> {
    routed_pipeline(state, ws, bot, msg)
        .await
        .ok()
        .flatten()
        .and_then(|p| aggregation_of(&p))
}

/// The pipeline the message's route delivers it to; `None` when no route does (no route, a
/// discard route, a missing pipeline); `Err` when the database could not say.
pub async fn routed_pipeline(
    state: &AppState,
    ws: &WorkspaceCtx,
    bot: &bot::Model,
    msg: &Inbound,
) -> crate::error::ApiResult<Option<crate::entities::pipeline::Model>> {
    let event = dispatch::event_of(msg, bot);
    let routes = crate::bots::service::stored_routes(bot);
    let Some(index) = crate::bots::engine::evaluate("message.received", &event, &routes).selected
    else {
        return Ok(None);
    };
    let route = &routes[index];
    if !matches!(route.target_type, crate::bots::routes::TargetType::Pipeline) {
        return Ok(None);
    }
    let Ok(uuid) = Uuid::parse_str(&route.target_uuid) else {
        return Ok(None);
    };
    match crate::pipelines::service::get(&state.db, ws, &uuid).await {
        Ok(pipeline) => Ok(Some(pipeline)),
        Err(e) if e.code == crate::error::ErrorCode::ResourceNotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The pipeline's message aggregation delay, when it aggregates.
pub fn aggregation_of(pipeline: &crate::entities::pipeline::Model) -> Option<Duration> {
    let config: crate::pipelines::config::PipelineConfig =
        serde_json::from_value(pipeline.config.clone()).ok()?;
    let agg = config.trigger.message_aggregation;
    agg.enabled
        .then(|| Duration::from_secs_f64(agg.delay.max(0.0)))
}

/// The whole way of one message: aggregation (when its pipeline aggregates), the session's
/// busy mark, the route decision, the turn, the replies.
pub async fn process(
    state: &AppState,
    ws: &WorkspaceCtx,
    bot: &bot::Model,
    mut msg: Inbound,
    outbox: &dyn Outbox,
    aggregate: Option<Duration>,
) {
    let aggregator = state.parts.get::<super::aggregate::Aggregator>();
    let batch = match aggregate {
        Some(delay) => {
            let key = format!("{}:{}", bot.uuid, session_id(msg.kind, &msg.chat_id));
            if !aggregator.add(&key, msg.segments.clone(), delay) {
                // Merged into the batch another message leads: its turn answers this one.
                if let Some(queued) = &msg.queued {
                    recorder::close_queued(
                        &state.db,
                        queued,
                        ExecutionStatus::Ignored,
                        "merged into an earlier message's turn (message aggregation)",
                    )
                    .await;
                }
                return;
            }
            Some(key)
        }
        None => None,
    };
    let conversation = ConversationKey {
        workspace: ws.uuid.to_string(),
        bot: bot.uuid.clone(),
        session: session_id(msg.kind, &msg.chat_id),
    };
    let waiting = Waiting::start(
        state.store.as_ref(),
        &conversation,
        aggregate.unwrap_or_default(),
    )
    .await;
    if let Some(key) = batch {
        msg.segments = aggregator.collect(&key).await.0;
    }
    let Routed::Pipeline {
        pipeline,
        is_at_bot,
        event_id,
    } = dispatch::route(state, ws, bot, &msg).await
    else {
        if let Some(queued) = &msg.queued {
            recorder::close_queued(
                &state.db,
                queued,
                ExecutionStatus::Ignored,
                "no route delivers the message to a pipeline any more",
            )
            .await;
        }
        waiting.done().await;
        return;
    };
    let (deltas, streamer) = if outbox.streams() {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        (Some(tx), Some(rx))
    } else {
        (None, None)
    };
    let turn = dispatch::run_with(
        state,
        ws.clone(),
        bot,
        msg,
        *pipeline,
        is_at_bot,
        event_id,
        deltas,
    );
    let output = match streamer {
        Some(rx) => {
            let (output, streamed) = tokio::join!(turn, send::stream(state, outbox, rx));
            waiting.done().await;
            send::finish_stream(state, &bot.uuid, outbox, streamed, &output.replies).await;
            return;
        }
        None => turn.await,
    };
    waiting.done().await;
    outbox.deliver(state, &bot.uuid, &output.replies).await;
}

/// A bot's adapter config read into the adapter's own type; the error names the platform.
pub(crate) fn config_of<T: serde::de::DeserializeOwned>(
    bot: &bot::Model,
    platform: &str,
) -> Result<T, String> {
    serde_json::from_value(bot.adapter_config.clone())
        .map_err(|e| format!("the bot's {platform} config is incomplete: {e}"))
}

/// Sends `request` (a GET of a file or an image) and reads at most `limit` bytes of a success;
/// errors say `what` failed, without the URL (it may carry a token).
pub(crate) async fn download(
    request: reqwest::RequestBuilder,
    what: &str,
    limit: usize,
) -> Result<Vec<u8>, String> {
    let resp = request
        .send()
        .await
        .map_err(|e| format!("{what} download: {}", e.without_url()))?;
    if !resp.status().is_success() {
        return Err(format!("{what} download: HTTP {}", resp.status().as_u16()));
    }
    let bytes = resp
        .bytes()
        .await
        .map_err(|e| format!("{what} download: {}", e.without_url()))?;
    if bytes.len() > limit {
        return Err(format!("{what} download: larger than {limit} bytes"));
    }
    Ok(bytes.to_vec())
}
