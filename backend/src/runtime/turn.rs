//! One turn: a message through the pipeline's stages to its replies, recorded as an execution.

use serde_json::json;
use tokio::sync::mpsc::UnboundedSender;

use super::agent::{self, Ask};
use super::conversation::{self, ConversationKey};
use super::message::{plain_text, session_id, Segment, SessionType};
use super::recorder::{self, MessageRecord, Scope};
use super::stages::{self, RateDecision};
use crate::access::WorkspaceCtx;
use crate::entities::execution::{ExecutionMode, ExecutionStatus};
use crate::entities::pipeline;
use crate::llm::ChatMessage;
use crate::pipelines::config::PipelineConfig;
use crate::state::AppState;

/// What a turn starts from.
pub struct TurnInput {
    pub ws: WorkspaceCtx,
    pub bot_id: String,
    pub bot_name: String,
    pub pipeline: pipeline::Model,
    pub kind: SessionType,
    /// The chat: the caller's session id (person) or group id.
    pub chat_id: String,
    pub sender_id: String,
    pub sender_name: Option<String>,
    pub segments: Vec<Segment>,
    pub is_at_bot: bool,
    pub message_id: String,
    pub event_id: Option<String>,
    pub mode: ExecutionMode,
    /// The execution recorded `queued` when the message was accepted; `None`: a new one.
    pub queued: Option<String>,
    /// Receives reply text as the model streams it.
    pub deltas: Option<UnboundedSender<String>>,
}

/// How a turn ended.
#[derive(Debug)]
pub struct TurnOutput {
    pub execution_id: String,
    /// `completed`, `ignored` or `failed`.
    pub status: ExecutionStatus,
    pub replies: Vec<Vec<Segment>>,
    pub error: Option<String>,
    pub session_id: String,
}

/// Runs the turn to the end; never fails (failures are its outcome).
pub async fn run(state: &AppState, input: TurnInput) -> TurnOutput {
    let config: PipelineConfig =
        serde_json::from_value(input.pipeline.config.clone()).unwrap_or_default();
    let session = session_id(input.kind, &input.chat_id);
    let scope = Scope {
        workspace: input.ws.uuid.to_string(),
        execution_id: input
            .queued
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
        bot_id: input.bot_id.clone(),
        bot_name: input.bot_name.clone(),
        pipeline_id: input.pipeline.uuid.clone(),
        pipeline_name: input.pipeline.name.clone(),
        session_id: session.clone(),
        mode: input.mode,
        lease: state.settings.monitoring.execution_lease,
        incomplete: Default::default(),
    };
    let started = crate::db::now();
    let db = &state.db;
    let preview = crate::monitoring::service::preview_of(&json!(input.segments), 160);
    let recorded = match &input.queued {
        Some(_) => {
            recorder::start_queued(
                db,
                &scope,
                input.event_id.as_deref(),
                Some(preview),
                &state.replica,
            )
            .await
        }
        None => {
            recorder::start_execution(
                db,
                &scope,
                "pipeline",
                input.event_id.as_deref(),
                Some(&input.message_id),
                Some(preview),
                &state.replica,
            )
            .await
        }
    };
    if !recorded {
        // No execution on record to attach the turn's records to: it does not run.
        let error = "the database is unavailable; the message was not processed".to_string();
        tracing::error!(message_id = %input.message_id, "{error}");
        return TurnOutput {
            execution_id: scope.execution_id,
            status: ExecutionStatus::Failed,
            replies: stages::failure_reply(&config.output, input.ws.language, &error)
                .map(|text| vec![vec![Segment::plain(text)]])
                .unwrap_or_default(),
            error: Some(error),
            session_id: session,
        };
    }
    recorder::message(
        db,
        &scope,
        MessageRecord {
            id: input.message_id.clone(),
            role: "user",
            content: json!(input.segments),
            status: "success",
            user_id: Some(&input.sender_id),
            user_name: input.sender_name.as_deref(),
            platform: Some(input.kind.as_str()),
            event_id: input.event_id.as_deref(),
            parent_message_id: None,
        },
    )
    .await;
    let mut output = TurnOutput {
        execution_id: scope.execution_id.clone(),
        status: ExecutionStatus::Ignored,
        replies: Vec::new(),
        error: None,
        session_id: session.clone(),
    };
    let heartbeat = recorder::Renewal::start(state.db.clone(), scope.clone());
    let (status, replies, error) = stages_of(state, &input, &config, &scope, &session).await;
    output.status = status;
    output.error = error.clone();
    if !replies.is_empty() {
        tokio::time::sleep(stages::delay(&config.output.force_delay)).await;
    }
    let records: Vec<MessageRecord<'_>> = replies
        .iter()
        .map(|reply| MessageRecord {
            id: uuid::Uuid::new_v4().to_string(),
            role: "assistant",
            content: json!(reply),
            status: if status == ExecutionStatus::Failed {
                "error"
            } else {
                "success"
            },
            user_id: None,
            user_name: None,
            platform: Some(input.kind.as_str()),
            event_id: input.event_id.as_deref(),
            parent_message_id: Some(&input.message_id),
        })
        .collect();
    drop(heartbeat);
    recorder::finish_execution(db, &scope, status, error.as_deref(), started, &records).await;
    output.replies = replies;
    recorder::notify(state.store.as_ref(), &scope.workspace).await;
    output
}

type StageResult = (ExecutionStatus, Vec<Vec<Segment>>, Option<String>);

async fn stages_of(
    state: &AppState,
    input: &TurnInput,
    config: &PipelineConfig,
    scope: &Scope,
    session: &str,
) -> StageResult {
    let text = plain_text(&input.segments);
    // trigger
    if !stages::access_allowed(
        &config.trigger.access_control,
        input.kind,
        &input.chat_id,
        &input.sender_id,
    ) {
        return (
            ExecutionStatus::Ignored,
            Vec::new(),
            Some("refused by access control".into()),
        );
    }
    let Some(text) = stages::respond_rules(
        &config.trigger.group_respond_rules,
        input.kind,
        &text,
        input.is_at_bot,
    ) else {
        return (
            ExecutionStatus::Ignored,
            Vec::new(),
            Some("no group respond rule matched".into()),
        );
    };
    if stages::ignored(&config.trigger.ignore_rules, &text) || text.trim().is_empty() {
        return (
            ExecutionStatus::Ignored,
            Vec::new(),
            Some("ignored by the ignore rules".into()),
        );
    }
    // safety
    recorder::progress(&state.db, scope, "safety").await;
    let rate_key = format!("rate:{}:{}:{}", scope.workspace, scope.bot_id, session);
    match stages::rate_limit(state.store.as_ref(), &rate_key, &config.safety.rate_limit).await {
        Ok(RateDecision::Allowed) => {}
        Ok(RateDecision::Dropped) => {
            let hint = stages::rate_limit_hint(&config.output, input.ws.language);
            return (
                ExecutionStatus::Ignored,
                vec![vec![Segment::plain(hint)]],
                Some("rate limited".into()),
            );
        }
        Err(e) => {
            return fail(
                state,
                scope,
                config,
                input,
                &format!("session store unavailable: {e}"),
            )
            .await
        }
    }
    // ai
    recorder::progress(&state.db, scope, "ai").await;
    recorder::notify(state.store.as_ref(), &scope.workspace).await;
    let key = ConversationKey {
        workspace: scope.workspace.clone(),
        bot: scope.bot_id.clone(),
        session: session.to_string(),
    };
    let store = state.store.as_ref();
    let lock = match conversation::acquire(store, &key, scope.lease).await {
        Ok(lock) => lock,
        Err(e) => return fail(state, scope, config, input, e.english()).await,
    };
    let keeper = keep_alive(state.store.clone(), &lock);
    let mut conv = conversation::load(store, &key)
        .await
        .ok()
        .flatten()
        .unwrap_or_default();
    let user = ChatMessage::text("user", text);
    let agent = &config.ai.agent();
    let tools = if agent.max_tool_rounds > 0 {
        crate::tools::ToolSet::resolve(
            state,
            &input.ws,
            &crate::pipelines::extensions::stored(&input.pipeline),
        )
        .await
        .unwrap_or_else(|e| {
            tracing::warn!(error = %e, "could not resolve the pipeline's tools");
            crate::tools::ToolSet::default()
        })
    } else {
        crate::tools::ToolSet::default()
    };
    let ask = Ask {
        ws: &input.ws,
        scope,
        config: agent,
        history: &conv.history,
        user: &user,
        message_id: &input.message_id,
        deltas: input.deltas.as_ref(),
        tools: &tools,
    };
    let result = agent::answer(state, ask).await;
    if let Ok(answer) = &result {
        conversation::remember(
            &mut conv,
            user,
            ChatMessage::text("assistant", answer.text.clone()),
        );
        if let Err(e) = conversation::save(store, &key, &conv, config.ai.runner.expire_time).await {
            tracing::warn!(error = %e, "could not save the conversation");
        }
    }
    keeper.abort();
    lock.release(store).await;
    // output
    recorder::progress(&state.db, scope, "output").await;
    match result {
        Ok(answer) => (
            ExecutionStatus::Completed,
            stages::replies(
                &config.output,
                &answer.text,
                &answer.images,
                input.kind,
                &input.sender_id,
            ),
            None,
        ),
        Err(e) => fail(state, scope, config, input, &e).await,
    }
}

/// Extends the turn lock while the turn runs.
fn keep_alive(
    store: crate::session_store::SharedStore,
    lock: &conversation::TurnLock,
) -> tokio::task::JoinHandle<()> {
    let lock = lock.clone_handle();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(lock.renewal()).await;
            if lock.extend(store.as_ref()).await.is_err() {
                return;
            }
        }
    })
}

async fn fail(
    state: &AppState,
    scope: &Scope,
    config: &PipelineConfig,
    input: &TurnInput,
    error: &str,
) -> StageResult {
    recorder::error(
        &state.db,
        scope,
        "PipelineError",
        error,
        Some(&input.message_id),
    )
    .await;
    let replies = stages::failure_reply(&config.output, input.ws.language, error)
        .map(|text| vec![vec![Segment::plain(text)]])
        .unwrap_or_default();
    (ExecutionStatus::Failed, replies, Some(error.to_string()))
}
