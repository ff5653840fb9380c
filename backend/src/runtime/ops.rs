//! Runtime operations: route status, session context reset, and running a pipeline once.

use std::collections::HashSet;
use std::time::Duration;

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use validator::Validate;

use super::conversation::{self, ConversationKey};
use super::message::{plain_text, Segment, SessionType};
use super::turn::{self, TurnInput};
use crate::access::{Permission, RequestCtx};
use crate::bots::ops::BotPath;
use crate::catalog::{Input, McpTool, NoParams, OpMeta, Operation};
use crate::entities::execution::ExecutionMode;
use crate::entities::{monitoring_session, route_trace};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::pipelines::ops::PipelinePath;
use crate::state::AppState;

/// One route with its latest trace.
#[derive(Debug, Serialize, ToSchema)]
pub struct RouteStatus {
    pub binding_id: Option<String>,
    pub event_pattern: Option<String>,
    pub event_type: Option<String>,
    pub target_type: Option<String>,
    pub target_uuid: Option<String>,
    /// `delivered`, `failed`, `discarded`, `not_matched`, or null before any event.
    pub last_status: Option<String>,
    pub failure_code: Option<String>,
    pub reason: Option<String>,
    pub run_id: Option<String>,
    pub timestamp: Option<chrono::DateTime<chrono::Utc>>,
    pub order: Option<i64>,
    pub enabled: Option<bool>,
    /// False for traces of routes no longer configured.
    pub current: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RouteStatuses {
    pub routes: Vec<RouteStatus>,
    /// The latest events no route matched (up to 10).
    pub unmatched_events: Vec<RouteStatus>,
    pub stale_routes: Vec<RouteStatus>,
}

fn from_trace(t: &route_trace::Model, current: bool) -> RouteStatus {
    RouteStatus {
        binding_id: t.binding_id.clone(),
        event_pattern: t.event_pattern.clone(),
        event_type: Some(t.event_type.clone()),
        target_type: t.target_type.clone(),
        target_uuid: t.target_uuid.clone(),
        last_status: Some(t.status.clone()),
        failure_code: t.failure_code.clone(),
        reason: Some(t.reason.clone()),
        run_id: t.run_id.clone(),
        timestamp: Some(t.timestamp),
        order: None,
        enabled: None,
        current,
    }
}

pub struct ListBotEventRouteStatuses;

impl Operation for ListBotEventRouteStatuses {
    const META: OpMeta = OpMeta::get(
        "list_bot_event_route_statuses",
        "/platform/bots/{bot_uuid}/event-routes/status",
    )
    .tag("bots")
    .summary("Each route's latest outcome, recent unmatched events and stale routes")
    .description("Read from the route traces the runtime persists (the last 200 per bot).")
    .permission(Permission::ResourceView)
    .mcp(McpTool::FLAT);
    type Path = BotPath;
    type Query = NoParams;
    type Body = crate::catalog::NoBody;
    type Output = RouteStatuses;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<BotPath, NoParams, crate::catalog::NoBody>,
    ) -> ApiResult<RouteStatuses> {
        let ws = ctx.workspace()?;
        let bot = crate::bots::service::get(&state.db, ws, &input.path.bot_uuid).await?;
        let traces = route_trace::Entity::find()
            .filter(route_trace::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
            .filter(route_trace::Column::BotUuid.eq(bot.uuid.clone()))
            .order_by_desc(route_trace::Column::Id)
            .limit(crate::runtime::recorder::TRACES_PER_BOT)
            .all(&state.db)
            .await?;
        let routes = crate::bots::service::stored_routes(&bot);
        let current: HashSet<&str> = routes.iter().map(|r| r.id.as_str()).collect();
        let statuses = routes
            .iter()
            .map(|r| {
                let latest = traces
                    .iter()
                    .find(|t| t.binding_id.as_deref() == Some(r.id.as_str()));
                let mut s = latest.map(|t| from_trace(t, true)).unwrap_or(RouteStatus {
                    binding_id: None,
                    event_pattern: None,
                    event_type: None,
                    target_type: None,
                    target_uuid: None,
                    last_status: None,
                    failure_code: None,
                    reason: None,
                    run_id: None,
                    timestamp: None,
                    order: None,
                    enabled: None,
                    current: true,
                });
                s.binding_id = Some(r.id.clone());
                s.event_pattern = Some(r.event_pattern.clone());
                s.target_type = Some(
                    serde_json::to_value(r.target_type)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                );
                s.target_uuid = Some(r.target_uuid.clone());
                s.order = Some(r.order);
                s.enabled = Some(r.enabled);
                s
            })
            .collect();
        let unmatched_events = traces
            .iter()
            .filter(|t| t.binding_id.is_none())
            .take(10)
            .map(|t| from_trace(t, false))
            .collect();
        let mut seen = HashSet::new();
        let stale_routes = traces
            .iter()
            .filter_map(|t| t.binding_id.as_deref().map(|b| (b, t)))
            .filter(|(b, _)| !current.contains(b) && seen.insert(b.to_string()))
            .map(|(_, t)| from_trace(t, false))
            .collect();
        Ok(RouteStatuses {
            routes: statuses,
            unmatched_events,
            stale_routes,
        })
    }
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct ResetContext {
    #[validate(length(min = 1, max = 64))]
    pub bot_id: String,
    /// `person_<id>` or `group_<id>`.
    #[validate(length(min = 1, max = 255))]
    pub session_id: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ResetDone {
    pub reset: bool,
    pub session_id: String,
}

pub struct ResetSessionContext;

impl Operation for ResetSessionContext {
    const META: OpMeta = OpMeta::post(
        "reset_session_context",
        "/monitoring/sessions/reset-context",
    )
    .tag("monitoring")
    .summary(
        "Start a session's next turn without its earlier history (monitoring records are kept)",
    )
    .description("404 for an unknown session; 409 `session_busy` while a turn runs.")
    .permission(Permission::ResourceManage)
    .errors(&[ErrorCode::SessionBusy])
    .mcp(McpTool::FLAT);
    type Path = NoParams;
    type Query = NoParams;
    type Body = ResetContext;
    type Output = ResetDone;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, ResetContext>,
    ) -> ApiResult<ResetDone> {
        let ws = ctx.workspace()?;
        let body = input.body;
        let bot = uuid::Uuid::parse_str(body.bot_id.trim())
            .map_err(|_| ApiError::not_found().msg("Session not found"))?;
        let bot = crate::bots::service::get(&state.db, ws, &bot)
            .await
            .map_err(|_| ApiError::not_found().msg("Session not found"))?;
        // LangBot accepted PERSON_/GROUP_ prefixes too.
        let session = match body.session_id.split_once('_') {
            Some((kind, rest)) => format!("{}_{rest}", kind.to_lowercase()),
            None => body.session_id.clone(),
        };
        let key = ConversationKey {
            workspace: ws.uuid.to_string(),
            bot: bot.uuid.clone(),
            session: session.clone(),
        };
        let store = state.store.as_ref();
        let recorded = monitoring_session::Entity::find_by_id((
            ws.uuid.to_string(),
            bot.uuid.clone(),
            session.clone(),
        ))
        .one(&state.db)
        .await?
        .is_some();
        if !recorded && !conversation::exists(store, &key).await? {
            return Err(ApiError::not_found().msg("Session not found"));
        }
        if conversation::busy(store, &key).await? {
            return Err(ApiError::new(ErrorCode::SessionBusy)
                .msg("Session is processing a task; wait until it finishes"));
        }
        conversation::reset(store, &key).await?;
        Ok(ResetDone {
            reset: true,
            session_id: body.session_id,
        })
    }
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    #[validate(length(min = 1, max = 100000))]
    pub message: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RunResult {
    pub pipeline_uuid: String,
    pub session_id: String,
    /// The execution's id.
    pub query_id: String,
    pub message_id: String,
    /// `completed`, `ignored`, `failed` or `unknown` (timed out).
    pub status: String,
    pub replies: Vec<String>,
    pub reply: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

pub struct RunPipeline;

impl Operation for RunPipeline {
    const META: OpMeta = OpMeta::post("run_pipeline", "/pipelines/{pipeline_uuid}/run")
        .tag("pipelines")
        .summary("Run one debug turn of a pipeline with a message; answers its replies")
        .description("Each call is a fresh session; recorded in monitoring in `debug` mode.")
        .permission(Permission::RuntimeOperate)
        .mcp(McpTool::FLAT);
    type Path = PipelinePath;
    type Query = NoParams;
    type Body = RunRequest;
    type Output = RunResult;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PipelinePath, NoParams, RunRequest>,
    ) -> ApiResult<RunResult> {
        let ws = ctx.workspace()?;
        let pipeline =
            crate::pipelines::service::get(&state.db, ws, &input.path.pipeline_uuid).await?;
        let chat = format!("run_{}:{}", pipeline.uuid, uuid::Uuid::new_v4().simple());
        let message_id = format!("in_{}", uuid::Uuid::new_v4().simple());
        let turn = turn::run(
            state,
            TurnInput {
                ws: ws.clone(),
                bot_id: DEBUG_BOT.into(),
                bot_name: "Debug".into(),
                pipeline: pipeline.clone(),
                kind: SessionType::Person,
                chat_id: chat,
                sender_id: "debug".into(),
                sender_name: Some("Debug".into()),
                segments: vec![Segment::plain(input.body.message)],
                is_at_bot: false,
                message_id: message_id.clone(),
                event_id: None,
                mode: ExecutionMode::Debug,
                queued: None,
                deltas: None,
            },
        );
        match tokio::time::timeout(Duration::from_secs(60), turn).await {
            Ok(out) => {
                let replies: Vec<String> = out.replies.iter().map(|r| plain_text(r)).collect();
                Ok(RunResult {
                    pipeline_uuid: pipeline.uuid,
                    session_id: out.session_id,
                    query_id: out.execution_id,
                    message_id,
                    status: out.status.as_str().into(),
                    reply: replies.join("\n"),
                    replies,
                    error: out.error,
                })
            }
            Err(_) => Ok(RunResult {
                pipeline_uuid: pipeline.uuid,
                session_id: String::new(),
                query_id: String::new(),
                message_id,
                status: "unknown".into(),
                replies: Vec::new(),
                reply: String::new(),
                error: Some("Execution status unknown; do not automatically retry.".into()),
            }),
        }
    }
}

/// The bot id debug turns are recorded under.
pub const DEBUG_BOT: &str = "websocket-proxy-bot";
pub use super::debug_ws::PipelineDebugChat;
