//! An inbound message's way to a turn: route decision (traced), target pipeline, turn.

use serde_json::Value;
use uuid::Uuid;

use super::message::{received_event, Inbound};
use super::recorder::{self, Trace};
use super::turn::{self, TurnInput, TurnOutput};
use crate::access::WorkspaceCtx;
use crate::bots::routes::TargetType;
use crate::bots::{engine, service as bots};
use crate::entities::bot;
use crate::entities::execution::ExecutionMode;
use crate::state::AppState;

/// Where routing sent the message.
pub enum Routed {
    /// A pipeline takes it.
    Pipeline {
        pipeline: Box<crate::entities::pipeline::Model>,
        is_at_bot: bool,
        event_id: String,
    },
    /// No route, a discard route, or a missing target: nothing runs.
    Stopped,
}

/// The `message.received` event with its computed fields (`is_at_bot` from the bot's
/// platform account id; an http_bot, which has none, is mentioned by LangBot's account id
/// for it, `http_bot`, or by its own uuid).
pub fn event_of(msg: &Inbound, bot: &bot::Model) -> Value {
    let event = received_event(msg, &bot.uuid);
    let mut ids: Vec<&str> = msg.account_id.as_deref().into_iter().collect();
    if bot.adapter == crate::bots::adapters::HTTP_BOT {
        ids.extend([crate::bots::adapters::HTTP_BOT, bot.uuid.as_str()]);
    } else if ids.is_empty() {
        ids.push(&bot.uuid);
    }
    let mut event = engine::augment_for(&event, &ids);
    if msg.addressed {
        event["is_at_bot"] = Value::Bool(true);
    }
    event
}

/// Routes a `message.received` event and persists the decision as a route trace.
pub async fn route(state: &AppState, ws: &WorkspaceCtx, bot: &bot::Model, msg: &Inbound) -> Routed {
    let event = event_of(msg, bot);
    let is_at_bot = event["is_at_bot"] == Value::Bool(true);
    let routes = bots::stored_routes(bot);
    let decision = engine::evaluate("message.received", &event, &routes);
    let db = &state.db;
    let ws_id = ws.uuid.to_string();
    let Some(index) = decision.selected else {
        recorder::trace(
            db,
            &ws_id,
            &bot.uuid,
            Trace {
                event_type: "message.received",
                status: "not_matched",
                binding_id: None,
                event_pattern: None,
                target_type: None,
                target_uuid: None,
                failure_code: Some("route_not_found"),
                reason: "No event route matched",
                run_id: None,
            },
        )
        .await;
        return Routed::Stopped;
    };
    let route = &routes[index];
    let trace = |status, failure_code, reason| Trace {
        event_type: "message.received",
        status,
        binding_id: Some(route.id.as_str()),
        event_pattern: Some(route.event_pattern.as_str()),
        target_type: Some(match route.target_type {
            TargetType::Pipeline => "pipeline",
            TargetType::Discard => "discard",
        }),
        target_uuid: Some(route.target_uuid.as_str()),
        failure_code,
        reason,
        run_id: Some(msg.message_id.as_str()),
    };
    match route.target_type {
        TargetType::Discard => {
            recorder::trace(
                db,
                &ws_id,
                &bot.uuid,
                trace("discarded", None, "Event route matched discard target"),
            )
            .await;
            Routed::Stopped
        }
        TargetType::Pipeline => {
            let uuid = Uuid::parse_str(&route.target_uuid).unwrap_or_default();
            match crate::pipelines::service::get(db, ws, &uuid).await {
                Ok(pipeline) => {
                    recorder::trace(
                        db,
                        &ws_id,
                        &bot.uuid,
                        trace("delivered", None, "Event route matched pipeline target"),
                    )
                    .await;
                    Routed::Pipeline {
                        pipeline: Box::new(pipeline),
                        is_at_bot,
                        event_id: msg.message_id.clone(),
                    }
                }
                Err(_) => {
                    recorder::trace(
                        db,
                        &ws_id,
                        &bot.uuid,
                        trace(
                            "failed",
                            Some("processor_not_found"),
                            "The target pipeline does not exist",
                        ),
                    )
                    .await;
                    Routed::Stopped
                }
            }
        }
    }
}

/// Runs the turn of a routed message.
pub async fn run(
    state: &AppState,
    ws: WorkspaceCtx,
    bot: &bot::Model,
    msg: Inbound,
    pipeline: crate::entities::pipeline::Model,
    is_at_bot: bool,
    event_id: String,
) -> TurnOutput {
    run_with(state, ws, bot, msg, pipeline, is_at_bot, event_id, None).await
}

/// [`run`], with the reply text streamed to `deltas` as the model writes it.
#[expect(clippy::too_many_arguments, reason = "the parts of a routed message")]
pub async fn run_with(
    state: &AppState,
    ws: WorkspaceCtx,
    bot: &bot::Model,
    msg: Inbound,
    pipeline: crate::entities::pipeline::Model,
    is_at_bot: bool,
    event_id: String,
    deltas: Option<tokio::sync::mpsc::UnboundedSender<String>>,
) -> TurnOutput {
    turn::run(
        state,
        TurnInput {
            ws,
            bot_id: bot.uuid.clone(),
            bot_name: bot.name.clone(),
            pipeline,
            kind: msg.kind,
            chat_id: msg.chat_id,
            sender_id: msg.sender_id,
            sender_name: msg.sender_name,
            segments: msg.segments,
            is_at_bot,
            message_id: msg.message_id,
            event_id: Some(event_id),
            mode: ExecutionMode::Real,
            queued: msg.queued,
            deltas,
        },
    )
    .await
}
