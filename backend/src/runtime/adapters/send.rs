//! Streamed replies (one message edited as the model writes) and `send_message`: a message
//! chain sent by the API to a person or a group through the bot's platform.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc::UnboundedReceiver;
use utoipa::ToSchema;
use validator::Validate;

use super::{parts, Outbox, Part, PartOptions};
use crate::access::{Permission, RequestCtx};
use crate::bots::adapters as names;
use crate::bots::ops::BotPath;
use crate::bots::status::{self, LogLevel};
use crate::catalog::{Input, McpTool, NoParams, OpMeta, Operation};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::runtime::message::{Segment, SessionType};
use crate::state::AppState;

/// At most one edit per this interval while streaming (platform edit rate limits).
const EDIT_INTERVAL: Duration = Duration::from_millis(800);

/// What streaming showed: the message being edited and its text.
pub struct Streamed {
    message_id: Option<String>,
}

/// Sends the first text as soon as it arrives, then edits it as more does.
pub async fn stream(
    state: &AppState,
    outbox: &dyn Outbox,
    mut deltas: UnboundedReceiver<String>,
) -> Streamed {
    let mut text = String::new();
    let mut message_id: Option<String> = None;
    let mut shown = 0;
    let mut last = Instant::now();
    let limit = outbox.text_limit();
    let mut failed = false;
    while let Some(delta) = deltas.recv().await {
        text.push_str(&delta);
        if failed || text.trim().is_empty() || text.chars().count() > limit {
            continue;
        }
        match &message_id {
            None => {
                let opts = PartOptions {
                    quote: true,
                    mention: None,
                };
                match outbox.text(state, &text, &opts).await {
                    Ok(Some(id)) => message_id = Some(id),
                    _ => failed = true,
                }
                shown = text.len();
                last = Instant::now();
            }
            Some(id) if last.elapsed() >= EDIT_INTERVAL && text.len() != shown => {
                if outbox.edit(state, id, &text).await.is_err() {
                    failed = true;
                }
                shown = text.len();
                last = Instant::now();
            }
            Some(_) => {}
        }
    }
    Streamed { message_id }
}

/// Ends a streamed answer: the streamed message becomes the first part of the final
/// replies; the rest are sent as usual.
pub async fn finish_stream(
    state: &AppState,
    bot: &str,
    outbox: &dyn Outbox,
    streamed: Streamed,
    replies: &[Vec<Segment>],
) {
    let Some(id) = streamed.message_id else {
        outbox.deliver(state, bot, replies).await;
        return;
    };
    let mut first = true;
    let mut edited = false;
    for reply in replies {
        for (part, opts) in parts(reply, outbox.text_limit(), &mut first) {
            let sent = match (&part, edited) {
                (Part::Text(t), false) => {
                    edited = true;
                    outbox.edit(state, &id, t).await.map(|_| None)
                }
                (Part::Text(t), true) => {
                    let opts = PartOptions {
                        quote: false,
                        ..opts
                    };
                    outbox.text(state, t, &opts).await
                }
                (Part::Image(i), _) => outbox.image(state, i, &opts).await,
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

/// A message to send.
#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct SendMessageBody {
    /// `person` or `group`.
    pub target_type: SessionType,
    /// The platform's chat id (user, channel or group).
    #[validate(length(min = 1, max = 255))]
    pub target_id: String,
    /// `Plain`, `Image` (url or base64) and `At` segments.
    #[validate(length(min = 1, max = 100))]
    pub message_chain: Vec<Segment>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SendMessageResult {
    pub sent: bool,
}

pub struct SendMessage;

impl Operation for SendMessage {
    const META: OpMeta = OpMeta::post("send_message", "/platform/bots/{bot_uuid}/send_message")
        .tag("bots")
        .summary("Send a message through the bot to a person or a group")
        .description(
            "The bot must be enabled and its adapter able to start a conversation (not http_bot \
             or web_page_bot, which only answer). Fails with 502 upstream_error when the platform \
             refuses the message.",
        )
        .permission(Permission::RuntimeOperate)
        .errors(&[ErrorCode::UpstreamError, ErrorCode::Unavailable])
        .mcp(McpTool::FLAT);
    type Path = BotPath;
    type Query = NoParams;
    type Body = SendMessageBody;
    type Output = SendMessageResult;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<BotPath, NoParams, SendMessageBody>,
    ) -> ApiResult<SendMessageResult> {
        let ws = ctx.workspace()?;
        let bot = crate::bots::service::get(&state.db, ws, &input.path.bot_uuid).await?;
        if !bot.enable {
            return Err(ApiError::invalid("The bot is disabled").field("bot_uuid", "is disabled"));
        }
        let body = input.body;
        to_platform(
            state,
            &bot,
            body.target_type,
            &body.target_id,
            &body.message_chain,
        )
        .await?;
        Ok(SendMessageResult { sent: true })
    }
}

/// Sends `chain` to a person or a group through the bot's platform (the `send_message`
/// operation, and plugins' `send_message`). Adapters that only answer are refused.
pub async fn to_platform(
    state: &AppState,
    bot: &crate::entities::bot::Model,
    target_type: SessionType,
    target_id: &str,
    chain: &[Segment],
) -> ApiResult<()> {
    let outbox: Box<dyn Outbox> = match bot.adapter.as_str() {
        names::TELEGRAM => super::telegram::outbox_for(state, bot, target_id)?,
        names::DISCORD => super::discord::outbox_for(state, bot, target_type, target_id).await?,
        names::SLACK => super::slack::outbox_for(state, bot, target_id)?,
        names::LARK => super::lark::outbox_for(state, bot, target_type, target_id)?,
        names::ONEBOT_V11 | names::AIOCQHTTP => {
            super::onebot::outbox_for(state, bot, target_type, target_id)?
        }
        _ => {
            return Err(ApiError::invalid("This adapter only answers messages")
                .field("bot_uuid", "its adapter cannot start a conversation"))
        }
    };
    let mut first = false;
    for (part, opts) in parts(chain, outbox.text_limit(), &mut first) {
        let sent = match &part {
            Part::Text(t) => outbox.text(state, t, &opts).await,
            Part::Image(i) => outbox.image(state, i, &opts).await,
        };
        if let Err(why) = sent {
            status::log(
                state.store.as_ref(),
                &bot.uuid,
                LogLevel::Error,
                format!("send_message failed: {why}"),
            )
            .await;
            return Err(ApiError::new(ErrorCode::UpstreamError)
                .msg(format!("The platform refused the message: {why}")));
        }
    }
    Ok(())
}
