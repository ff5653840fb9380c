//! The debug chat's HTTP side, as LangBot's dashboard calls it: the history of a pipeline's
//! person or group chat, resetting it, the live connections, and a broadcast to them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;
use validator::Validate;

use super::history::{self, WsMessage};
use super::hub::{self, ConnectionInfo};
use super::Scope;
use crate::access::{Permission, RequestCtx};
use crate::catalog::{Input, NoBody, NoParams, OpMeta, Operation};
use crate::error::{ApiError, ApiResult};
use crate::pipelines::ops::PipelinePath;
use crate::runtime::conversation::{self, ConversationKey};
use crate::runtime::message::{session_id, SessionType};
use crate::runtime::ops::DEBUG_BOT;
use crate::state::AppState;

/// `{pipeline_uuid}` and `{session_type}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ChatPath {
    pub pipeline_uuid: Uuid,
    /// `person` or `group`.
    #[param(value_type = SessionType)]
    pub session_type: String,
}

/// The caller's pipeline (404 for another Workspace's or a missing one).
async fn scope_of(state: &AppState, ctx: &RequestCtx, pipeline: &Uuid) -> ApiResult<Scope> {
    let ws = ctx.workspace()?;
    let pipeline = crate::pipelines::service::get(&state.db, ws, pipeline)
        .await
        .map_err(|_| ApiError::not_found().msg("Pipeline not found"))?;
    Ok(Scope {
        workspace: ws.uuid.to_string(),
        pipeline: pipeline.uuid,
    })
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ChatMessages {
    /// Oldest first; the last 200.
    pub messages: Vec<WsMessage>,
}

pub struct GetPipelineWsMessages;

impl Operation for GetPipelineWsMessages {
    const META: OpMeta = OpMeta::get(
        "get_pipeline_ws_messages",
        "/pipelines/{pipeline_uuid}/ws/messages/{session_type}",
    )
    .tag("pipelines")
    .summary("The debug chat's history of a pipeline's person or group chat")
    .description("Shared by every connection of the pipeline and session type (the last 200).")
    .permission(Permission::RuntimeOperate);
    type Path = ChatPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = ChatMessages;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<ChatPath, NoParams, NoBody>,
    ) -> ApiResult<ChatMessages> {
        let kind = super::session_type(&input.path.session_type)?;
        let scope = scope_of(state, ctx, &input.path.pipeline_uuid).await?;
        let messages = history::list(state.store.as_ref(), &scope, kind).await?;
        Ok(ChatMessages { messages })
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Done {
    pub message: String,
}

pub struct ResetPipelineWsSession;

impl Operation for ResetPipelineWsSession {
    const META: OpMeta = OpMeta::post(
        "reset_pipeline_ws_session",
        "/pipelines/{pipeline_uuid}/ws/reset/{session_type}",
    )
    .tag("pipelines")
    .summary("Clear a debug chat: its history, and what the model remembers of it")
    .description(
        "Clears the history of the pipeline's person or group chat, and starts the model's \
         conversation afresh: the shared group chat's, or each open person chat's.",
    )
    .permission(Permission::RuntimeOperate);
    type Path = ChatPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = Done;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<ChatPath, NoParams, NoBody>,
    ) -> ApiResult<Done> {
        let kind = super::session_type(&input.path.session_type)?;
        let scope = scope_of(state, ctx, &input.path.pipeline_uuid).await?;
        let store = state.store.as_ref();
        history::reset(store, &scope, kind).await?;
        // The model's conversations: the group chat, or the person chats of the open
        // connections (a closed one's chat is never continued).
        let chats: Vec<String> = match kind {
            SessionType::Group => vec!["websocketgroup".into()],
            SessionType::Person => hub::list(store, &scope.workspace)
                .await?
                .into_iter()
                .filter(|(p, c)| *p == scope.pipeline && c.session_type == kind)
                .map(|(_, c)| format!("websocket_{}", c.connection_id))
                .collect(),
        };
        for chat in chats {
            let key = ConversationKey {
                workspace: scope.workspace.clone(),
                bot: DEBUG_BOT.into(),
                session: session_id(kind, &chat),
            };
            conversation::reset(store, &key).await?;
        }
        Ok(Done {
            message: "Session reset successfully".into(),
        })
    }
}

/// LangBot's connection statistics, over the Workspace's connections.
#[derive(Debug, Serialize, ToSchema)]
pub struct ConnectionStats {
    pub total_connections: usize,
    /// Pipelines with a connection.
    pub pipelines: usize,
    pub connections_by_pipeline: BTreeMap<String, usize>,
    pub connections_by_session_type: BTreeMap<String, usize>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ChatConnections {
    pub stats: ConnectionStats,
    /// This pipeline's connections.
    pub connections: Vec<ConnectionInfo>,
}

pub struct ListPipelineWsConnections;

impl Operation for ListPipelineWsConnections {
    const META: OpMeta = OpMeta::get(
        "list_pipeline_ws_connections",
        "/pipelines/{pipeline_uuid}/ws/connections",
    )
    .tag("pipelines")
    .summary("The debug chat's open connections to a pipeline, with the Workspace's statistics")
    .description("Across replicas; a connection of a replica that died drops out within minutes.")
    .permission(Permission::RuntimeOperate);
    type Path = PipelinePath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = ChatConnections;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PipelinePath, NoParams, NoBody>,
    ) -> ApiResult<ChatConnections> {
        let scope = scope_of(state, ctx, &input.path.pipeline_uuid).await?;
        let all = hub::list(state.store.as_ref(), &scope.workspace).await?;
        let mut stats = ConnectionStats {
            total_connections: all.len(),
            pipelines: 0,
            connections_by_pipeline: BTreeMap::new(),
            connections_by_session_type: BTreeMap::new(),
        };
        for (pipeline, c) in &all {
            *stats
                .connections_by_pipeline
                .entry(pipeline.clone())
                .or_default() += 1;
            *stats
                .connections_by_session_type
                .entry(c.session_type.as_str().into())
                .or_default() += 1;
        }
        stats.pipelines = stats.connections_by_pipeline.len();
        let connections = all
            .into_iter()
            .filter(|(p, _)| *p == scope.pipeline)
            .map(|(_, c)| c)
            .collect();
        Ok(ChatConnections { stats, connections })
    }
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct Broadcast {
    /// Shown by LangBot's dashboard as a notice.
    #[validate(length(min = 1, max = 10000))]
    pub message: String,
}

pub struct BroadcastPipelineWsMessage;

impl Operation for BroadcastPipelineWsMessage {
    const META: OpMeta = OpMeta::post(
        "broadcast_pipeline_ws_message",
        "/pipelines/{pipeline_uuid}/ws/broadcast",
    )
    .tag("pipelines")
    .summary("Send a notice to every open debug chat connection of a pipeline")
    .description("Each connection receives `{\"type\":\"broadcast\",\"message\",\"timestamp\"}`.")
    .permission(Permission::RuntimeOperate);
    type Path = PipelinePath;
    type Query = NoParams;
    type Body = Broadcast;
    type Output = Done;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PipelinePath, NoParams, Broadcast>,
    ) -> ApiResult<Done> {
        let scope = scope_of(state, ctx, &input.path.pipeline_uuid).await?;
        let frame = serde_json::json!({
            "type": "broadcast", "message": input.body.message, "timestamp": super::now(),
        });
        hub::publish(state.store.as_ref(), &scope, None, &frame).await?;
        Ok(Done {
            message: "Broadcast sent successfully".into(),
        })
    }
}
