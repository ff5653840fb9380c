//! Writes what the runtime does to the monitoring tables. A failed write (the database is
//! down) is logged and the turn goes on, but it ends `failed`: an execution is `completed`
//! only with all its records. Its start and its end (replies and status, one transaction)
//! are retried for a few seconds, so a database restart does not lose them; an end that
//! cannot be written leaves the execution to the reaper, which fails it when its lease lapses.
//! The hourly rollups and executions' own LLM totals follow these writes in the database
//! itself (triggers, see migration 000006).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};
use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, DatabaseConnection, DbErr, EntityTrait,
    QueryFilter, QueryOrder, QuerySelect, TransactionTrait,
};
use serde_json::Value;

use crate::entities::execution::{ExecutionMode, ExecutionStatus};
use crate::entities::{
    execution, llm_call, monitoring_error, monitoring_message, monitoring_session, route_trace,
    tool_call,
};

/// Announces an execution change to in-flight viewers on every replica.
pub async fn notify(store: &dyn crate::session_store::SessionStore, workspace: &str) {
    if let Err(e) = store
        .publish(&crate::monitoring::inflight::channel(workspace), b"1")
        .await
    {
        tracing::debug!(error = %e, "could not announce an execution change");
    }
}

/// Traces kept per bot.
pub const TRACES_PER_BOT: u64 = 200;

/// The context every record of one execution shares.
#[derive(Debug, Clone)]
pub struct Scope {
    pub workspace: String,
    pub execution_id: String,
    pub bot_id: String,
    pub bot_name: String,
    pub pipeline_id: String,
    pub pipeline_name: String,
    pub session_id: String,
    /// `real` or `debug`.
    pub mode: ExecutionMode,
    /// How long the execution's lease lasts from each renewal (`monitoring.execution_lease`).
    pub lease: std::time::Duration,
    /// Set when one of the execution's records could not be written.
    pub incomplete: Arc<AtomicBool>,
}

impl Scope {
    fn lease_end(&self) -> DateTime<Utc> {
        crate::db::now()
            + chrono::Duration::from_std(self.lease).unwrap_or(chrono::Duration::seconds(120))
    }
}

fn logged<T, E: std::fmt::Display>(what: &str, result: Result<T, E>) {
    if let Err(e) = result {
        tracing::warn!(error = %e, record = what, "could not write a monitoring record");
    }
}

/// A record of the execution: a failure is logged and makes the execution incomplete.
fn kept<T, E: std::fmt::Display>(s: &Scope, what: &str, result: Result<T, E>) {
    if result.is_err() {
        s.incomplete.store(true, Ordering::SeqCst);
    }
    logged(what, result);
}

/// About nine seconds of attempts (100 ms doubling to 2 s), while the database is unreachable.
fn while_unreachable() -> ExponentialBuilder {
    ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(100))
        .with_max_delay(Duration::from_secs(2))
        .with_max_times(8)
}

fn unreachable(e: &DbErr) -> bool {
    crate::error::is_connection_error(e)
}

fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The row of a new execution of `s`.
#[expect(clippy::too_many_arguments, reason = "the columns of a new execution")]
fn execution_row(
    s: &Scope,
    status: ExecutionStatus,
    progress: &str,
    source: &str,
    event_id: Option<&str>,
    message_id: Option<&str>,
    input_preview: Option<String>,
    owner: &str,
) -> execution::ActiveModel {
    execution::ActiveModel {
        id: Set(s.execution_id.clone()),
        workspace_uuid: Set(s.workspace.clone()),
        source: Set(source.into()),
        mode: Set(s.mode),
        status: Set(status),
        bot_id: Set(s.bot_id.clone()),
        bot_name: Set(s.bot_name.clone()),
        pipeline_id: Set(s.pipeline_id.clone()),
        pipeline_name: Set(s.pipeline_name.clone()),
        session_id: Set(s.session_id.clone()),
        event_id: Set(event_id.map(str::to_string)),
        message_id: Set(message_id.map(str::to_string)),
        progress_event: Set(Some(progress.into())),
        error: Set(None),
        owner: Set(Some(owner.into())),
        lease_expires_at: Set(Some(s.lease_end())),
        started_at: Set(crate::db::now()),
        finished_at: Set(None),
        duration_ms: Set(None),
        // Kept by the database (triggers) as its LLM calls are recorded.
        llm_calls: Set(0),
        input_tokens: Set(0),
        output_tokens: Set(0),
        total_tokens: Set(0),
        input_preview: Set(input_preview),
    }
}

/// Records the execution as running; `false` when it could not be recorded (then the turn
/// must not run: its records would belong to no execution).
pub async fn start_execution(
    db: &DatabaseConnection,
    s: &Scope,
    source: &str,
    event_id: Option<&str>,
    message_id: Option<&str>,
    input_preview: Option<String>,
    owner: &str,
) -> bool {
    let row = execution_row(
        s,
        ExecutionStatus::Running,
        "started",
        source,
        event_id,
        message_id,
        input_preview,
        owner,
    );
    let result = (|| async { row.clone().insert(db).await })
        .retry(while_unreachable())
        .when(unreachable)
        .await;
    let recorded = result.is_ok();
    logged("execution", result);
    recorded
}

/// Records an accepted message's execution as `queued`, once, before the message is
/// acknowledged: if this replica dies before the turn runs, the reaper fails it when its
/// lease lapses, so an acknowledged message is never without an execution. Not retried: the
/// caller is answering a request and refuses it (503) instead.
pub async fn queue_execution(
    db: &DatabaseConnection,
    s: &Scope,
    message_id: &str,
    input_preview: Option<String>,
    owner: &str,
) -> Result<(), DbErr> {
    execution_row(
        s,
        ExecutionStatus::Queued,
        "accepted",
        "pipeline",
        None,
        Some(message_id),
        input_preview,
        owner,
    )
    .insert(db)
    .await
    .map(|_| ())
}

/// Starts a queued execution (see [`queue_execution`]): `running`, on the pipeline routing
/// chose now. `false` when it could not be written, or when it is no longer queued (reaped:
/// its lease lapsed while the database was unreachable), and then the turn must not run.
pub async fn start_queued(
    db: &DatabaseConnection,
    s: &Scope,
    event_id: Option<&str>,
    input_preview: Option<String>,
    owner: &str,
) -> bool {
    let update = || async {
        execution::Entity::update_many()
            .col_expr(
                execution::Column::Status,
                Expr::value(ExecutionStatus::Running.as_str()),
            )
            .col_expr(execution::Column::ProgressEvent, Expr::value("started"))
            .col_expr(
                execution::Column::PipelineId,
                Expr::value(s.pipeline_id.clone()),
            )
            .col_expr(
                execution::Column::PipelineName,
                Expr::value(s.pipeline_name.clone()),
            )
            .col_expr(
                execution::Column::EventId,
                Expr::value(event_id.map(str::to_string)),
            )
            .col_expr(execution::Column::Owner, Expr::value(owner))
            .col_expr(
                execution::Column::InputPreview,
                Expr::value(input_preview.clone()),
            )
            .col_expr(
                execution::Column::LeaseExpiresAt,
                Expr::value(s.lease_end()),
            )
            .col_expr(execution::Column::StartedAt, Expr::value(crate::db::now()))
            .filter(execution::Column::Id.eq(s.execution_id.clone()))
            .filter(execution::Column::Status.eq(ExecutionStatus::Queued))
            .exec(db)
            .await
    };
    match update.retry(while_unreachable()).when(unreachable).await {
        Ok(done) if done.rows_affected == 1 => true,
        Ok(_) => {
            tracing::warn!(execution = %s.execution_id, "a queued execution was reaped before its turn started");
            false
        }
        Err(e) => {
            logged::<(), _>("execution start", Err(e));
            false
        }
    }
}

/// Ends a still-queued execution whose message runs no turn of its own (merged into another
/// message's turn, or no longer routed to a pipeline): `status` with `reason`.
pub async fn close_queued(
    db: &DatabaseConnection,
    execution_id: &str,
    status: ExecutionStatus,
    reason: &str,
) {
    let close = || async {
        execution::Entity::update_many()
            .col_expr(execution::Column::Status, Expr::value(status.as_str()))
            .col_expr(execution::Column::Error, Expr::value(reason))
            .col_expr(execution::Column::ProgressEvent, Expr::value("finished"))
            .col_expr(execution::Column::FinishedAt, Expr::value(crate::db::now()))
            .col_expr(execution::Column::DurationMs, Expr::value(0i64))
            .col_expr(
                execution::Column::LeaseExpiresAt,
                Expr::value(Option::<DateTime<Utc>>::None),
            )
            .filter(execution::Column::Id.eq(execution_id))
            .filter(execution::Column::Status.eq(ExecutionStatus::Queued))
            .exec(db)
            .await
    };
    let result = close.retry(while_unreachable()).when(unreachable).await;
    logged("queued execution end", result);
}

/// Renews the execution's lease three times per lease period until dropped, so only an
/// execution whose replica died (or lost the database for a whole lease) is reaped. Dropping
/// it stops the renewals, also when the task holding it is cancelled.
pub struct Renewal(tokio::task::JoinHandle<()>);

impl Renewal {
    pub fn start(db: DatabaseConnection, s: Scope) -> Self {
        Self(tokio::spawn(async move {
            let every = (s.lease / 3).max(Duration::from_secs(1));
            loop {
                tokio::time::sleep(every).await;
                renew_lease(&db, &s).await;
            }
        }))
    }
}

impl Drop for Renewal {
    fn drop(&mut self) {
        self.0.abort();
    }
}

pub async fn progress(db: &DatabaseConnection, s: &Scope, stage: &str) {
    let result = execution::Entity::update_many()
        .col_expr(execution::Column::ProgressEvent, Expr::value(stage))
        .col_expr(
            execution::Column::LeaseExpiresAt,
            Expr::value(s.lease_end()),
        )
        .filter(execution::Column::Id.eq(s.execution_id.clone()))
        .exec(db)
        .await;
    logged("execution progress", result);
}

/// Extends the lease of a still-running execution (its replica is alive and working on it).
pub async fn renew_lease(db: &DatabaseConnection, s: &Scope) {
    let result = execution::Entity::update_many()
        .col_expr(
            execution::Column::LeaseExpiresAt,
            Expr::value(s.lease_end()),
        )
        .filter(execution::Column::Id.eq(s.execution_id.clone()))
        .filter(
            execution::Column::Status.is_in([ExecutionStatus::Queued, ExecutionStatus::Running]),
        )
        .exec(db)
        .await;
    logged("execution lease", result);
}

/// Ends the execution: its reply messages and its status in one transaction, retried while
/// the database is unreachable. An execution with a lost record ends `failed`; one already
/// reaped (failed) is left as it is. `false` when the end could not be written.
pub async fn finish_execution(
    db: &DatabaseConnection,
    s: &Scope,
    status: ExecutionStatus,
    error: Option<&str>,
    started: DateTime<Utc>,
    replies: &[MessageRecord<'_>],
) -> bool {
    let (status, error) = if s.incomplete.load(Ordering::SeqCst) {
        (
            ExecutionStatus::Failed,
            Some("Some of the execution's records could not be written (database unavailable)"),
        )
    } else {
        (status, error)
    };
    let write = || async {
        let txn = db.begin().await?;
        let now = crate::db::now();
        for m in replies {
            message_row(s, m, now).insert(&txn).await?;
        }
        let ended = execution::Entity::update_many()
            .col_expr(execution::Column::Status, Expr::value(status.as_str()))
            .col_expr(
                execution::Column::Error,
                Expr::value(error.map(str::to_string)),
            )
            .col_expr(execution::Column::FinishedAt, Expr::value(now))
            .col_expr(
                execution::Column::DurationMs,
                Expr::value((now - started).num_milliseconds()),
            )
            .col_expr(execution::Column::ProgressEvent, Expr::value("finished"))
            .col_expr(
                execution::Column::LeaseExpiresAt,
                Expr::value(Option::<DateTime<Utc>>::None),
            )
            .filter(execution::Column::Id.eq(s.execution_id.clone()))
            .filter(
                execution::Column::Status
                    .is_in([ExecutionStatus::Queued, ExecutionStatus::Running]),
            )
            .exec(&txn)
            .await?;
        if ended.rows_affected == 0 {
            // Reaped meanwhile: it stays failed, without replies on record.
            txn.rollback().await?;
            return Ok(false);
        }
        txn.commit().await?;
        Ok(true)
    };
    let result = write.retry(while_unreachable()).when(unreachable).await;
    let ended = matches!(result, Ok(true));
    logged("execution end", result);
    if ended {
        for m in replies {
            touch_session(db, s, m.platform, m.user_id, m.user_name, crate::db::now()).await;
        }
    }
    ended
}

/// Details of a message record.
pub struct MessageRecord<'a> {
    pub id: String,
    pub role: &'a str,
    pub content: Value,
    pub status: &'a str,
    pub user_id: Option<&'a str>,
    pub user_name: Option<&'a str>,
    pub platform: Option<&'a str>,
    pub event_id: Option<&'a str>,
    pub parent_message_id: Option<&'a str>,
}

fn message_row(
    s: &Scope,
    m: &MessageRecord<'_>,
    now: DateTime<Utc>,
) -> monitoring_message::ActiveModel {
    monitoring_message::ActiveModel {
        id: Set(m.id.clone()),
        workspace_uuid: Set(s.workspace.clone()),
        execution_id: Set(Some(s.execution_id.clone())),
        timestamp: Set(now),
        bot_id: Set(s.bot_id.clone()),
        bot_name: Set(s.bot_name.clone()),
        pipeline_id: Set(s.pipeline_id.clone()),
        pipeline_name: Set(s.pipeline_name.clone()),
        session_id: Set(s.session_id.clone()),
        role: Set(m.role.into()),
        message_content: Set(without_inline_images(&m.content).to_string()),
        status: Set(m.status.into()),
        level: Set(if m.status == "error" { "error" } else { "info" }.into()),
        mode: Set(s.mode.as_str().into()),
        platform: Set(m.platform.map(str::to_string)),
        user_id: Set(m.user_id.map(str::to_string)),
        user_name: Set(m.user_name.map(str::to_string)),
        runner_name: Set(Some(crate::pipelines::config::LOCAL_AGENT.into())),
        event_id: Set(m.event_id.map(str::to_string)),
        parent_message_id: Set(m.parent_message_id.map(str::to_string)),
    }
}

/// What stands for an inline image in a recorded message.
pub const IMAGE_OMITTED: &str = "[base64 image omitted]";

/// Inline image data at least this long is not recorded.
const INLINE_IMAGE_MIN: usize = 1000;

/// `content` with inline image data (a segment's `base64`, a `data:image/…;base64,` URL) of
/// `INLINE_IMAGE_MIN` characters or more replaced by `IMAGE_OMITTED`; the segments stay.
pub fn without_inline_images(content: &Value) -> Value {
    fn walk(v: &Value, depth: usize) -> Value {
        match v {
            Value::Object(m) if depth < 16 => Value::Object(
                m.iter()
                    .map(|(k, v)| {
                        let long = v.as_str().is_some_and(|t| t.len() >= INLINE_IMAGE_MIN);
                        let v = if k == "base64" && long {
                            Value::String(IMAGE_OMITTED.into())
                        } else {
                            walk(v, depth + 1)
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            ),
            Value::Array(items) if depth < 16 => {
                Value::Array(items.iter().map(|v| walk(v, depth + 1)).collect())
            }
            Value::String(t) if t.len() >= INLINE_IMAGE_MIN && t.contains(";base64,") => {
                Value::String(data_urls_omitted(t))
            }
            other => other.clone(),
        }
    }
    walk(content, 0)
}

/// `text` with each `data:image/…;base64,…` of `INLINE_IMAGE_MIN` or more payload characters
/// replaced by `IMAGE_OMITTED`.
fn data_urls_omitted(text: &str) -> String {
    static DATA_URL: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"data:image/[A-Za-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]{1000,}").ok()
    });
    match DATA_URL.as_ref() {
        Some(re) => re.replace_all(text, IMAGE_OMITTED).into_owned(),
        None => text.to_string(),
    }
}

pub async fn message(db: &DatabaseConnection, s: &Scope, m: MessageRecord<'_>) {
    let now = crate::db::now();
    kept(s, "message", message_row(s, &m, now).insert(db).await);
    touch_session(db, s, m.platform, m.user_id, m.user_name, now).await;
}

async fn touch_session(
    db: &DatabaseConnection,
    s: &Scope,
    platform: Option<&str>,
    user_id: Option<&str>,
    user_name: Option<&str>,
    now: DateTime<Utc>,
) {
    let row = monitoring_session::ActiveModel {
        workspace_uuid: Set(s.workspace.clone()),
        bot_id: Set(s.bot_id.clone()),
        session_id: Set(s.session_id.clone()),
        bot_name: Set(s.bot_name.clone()),
        pipeline_id: Set(s.pipeline_id.clone()),
        pipeline_name: Set(s.pipeline_name.clone()),
        message_count: Set(1),
        start_time: Set(now),
        last_activity: Set(now),
        is_active: Set(true),
        platform: Set(platform.map(str::to_string)),
        user_id: Set(user_id.map(str::to_string)),
        user_name: Set(user_name.map(str::to_string)),
    };
    let result = monitoring_session::Entity::insert(row)
        .on_conflict(
            OnConflict::columns([
                monitoring_session::Column::WorkspaceUuid,
                monitoring_session::Column::BotId,
                monitoring_session::Column::SessionId,
            ])
            .value(
                monitoring_session::Column::MessageCount,
                // Qualified: PostgreSQL finds a bare name ambiguous with EXCLUDED's.
                Expr::col((
                    monitoring_session::Entity,
                    monitoring_session::Column::MessageCount,
                ))
                .add(1),
            )
            .value(monitoring_session::Column::LastActivity, Expr::value(now))
            .value(
                monitoring_session::Column::PipelineId,
                Expr::value(s.pipeline_id.clone()),
            )
            .value(
                monitoring_session::Column::PipelineName,
                Expr::value(s.pipeline_name.clone()),
            )
            .to_owned(),
        )
        .exec_without_returning(db)
        .await;
    logged("session", result);
}

/// One model call.
pub struct LlmCallRecord<'a> {
    pub model_name: &'a str,
    pub model_uuid: &'a str,
    pub usage: crate::llm::Usage,
    pub duration_ms: i64,
    pub error: Option<(&'a str, String)>,
    pub message_id: Option<&'a str>,
    pub details: Value,
}

pub async fn llm_call(db: &DatabaseConnection, s: &Scope, c: LlmCallRecord<'_>) {
    let row = llm_call::ActiveModel {
        id: Set(new_id()),
        workspace_uuid: Set(s.workspace.clone()),
        execution_id: Set(Some(s.execution_id.clone())),
        timestamp: Set(crate::db::now()),
        bot_id: Set(s.bot_id.clone()),
        bot_name: Set(s.bot_name.clone()),
        pipeline_id: Set(s.pipeline_id.clone()),
        pipeline_name: Set(s.pipeline_name.clone()),
        session_id: Set(s.session_id.clone()),
        model_name: Set(c.model_name.into()),
        model_uuid: Set(Some(c.model_uuid.into())),
        input_tokens: Set(i64::try_from(c.usage.prompt_tokens).unwrap_or(i64::MAX)),
        output_tokens: Set(i64::try_from(c.usage.completion_tokens).unwrap_or(i64::MAX)),
        total_tokens: Set(i64::try_from(c.usage.total_tokens).unwrap_or(i64::MAX)),
        duration: Set(c.duration_ms),
        status: Set(if c.error.is_some() {
            "error"
        } else {
            "success"
        }
        .into()),
        mode: Set(s.mode.as_str().into()),
        error_message: Set(c.error.map(|(_, m)| m)),
        message_id: Set(c.message_id.map(str::to_string)),
        details: Set(Some(c.details)),
    };
    kept(s, "llm call", row.insert(db).await);
}

pub async fn error(
    db: &DatabaseConnection,
    s: &Scope,
    kind: &str,
    message: &str,
    message_id: Option<&str>,
) {
    let row = monitoring_error::ActiveModel {
        id: Set(new_id()),
        workspace_uuid: Set(s.workspace.clone()),
        execution_id: Set(Some(s.execution_id.clone())),
        timestamp: Set(crate::db::now()),
        bot_id: Set(s.bot_id.clone()),
        bot_name: Set(s.bot_name.clone()),
        pipeline_id: Set(s.pipeline_id.clone()),
        pipeline_name: Set(s.pipeline_name.clone()),
        session_id: Set(s.session_id.clone()),
        error_type: Set(kind.into()),
        error_message: Set(message.into()),
        mode: Set(s.mode.as_str().into()),
        message_id: Set(message_id.map(str::to_string)),
    };
    kept(s, "error", row.insert(db).await);
}

/// A route decision as the runtime traces it.
pub struct Trace<'a> {
    pub event_type: &'a str,
    pub status: &'a str,
    pub binding_id: Option<&'a str>,
    pub event_pattern: Option<&'a str>,
    pub target_type: Option<&'a str>,
    pub target_uuid: Option<&'a str>,
    pub failure_code: Option<&'a str>,
    pub reason: &'a str,
    pub run_id: Option<&'a str>,
}

/// Persists a route trace and keeps the newest `TRACES_PER_BOT` of the bot.
pub async fn trace(db: &DatabaseConnection, workspace: &str, bot: &str, t: Trace<'_>) {
    let row = route_trace::ActiveModel {
        workspace_uuid: Set(workspace.into()),
        bot_uuid: Set(bot.into()),
        timestamp: Set(crate::db::now()),
        event_type: Set(t.event_type.into()),
        status: Set(t.status.into()),
        binding_id: Set(t.binding_id.map(str::to_string)),
        event_pattern: Set(t.event_pattern.map(str::to_string)),
        target_type: Set(t.target_type.map(str::to_string)),
        target_uuid: Set(t.target_uuid.map(str::to_string)),
        failure_code: Set(t.failure_code.map(str::to_string)),
        reason: Set(t.reason.chars().take(1024).collect()),
        run_id: Set(t.run_id.map(str::to_string)),
        ..Default::default()
    };
    logged("route trace", row.insert(db).await);
    let cutoff: Result<Option<i64>, _> = route_trace::Entity::find()
        .select_only()
        .column(route_trace::Column::Id)
        .filter(route_trace::Column::WorkspaceUuid.eq(workspace))
        .filter(route_trace::Column::BotUuid.eq(bot))
        .order_by_desc(route_trace::Column::Id)
        .offset(TRACES_PER_BOT)
        .limit(1)
        .into_tuple()
        .one(db)
        .await;
    if let Ok(Some(cutoff)) = cutoff {
        let result = route_trace::Entity::delete_many()
            .filter(route_trace::Column::WorkspaceUuid.eq(workspace))
            .filter(route_trace::Column::BotUuid.eq(bot))
            .filter(route_trace::Column::Id.lte(cutoff))
            .exec(db)
            .await;
        logged("route trace pruning", result);
    }
}

/// Stored arguments and results are cut here (LangBot's limit).
const TOOL_TEXT_MAX: usize = 20_000;

/// `text` cut to `max` characters, saying how many were left out (LangBot's marker).
pub fn truncated(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!(
            "{}... [truncated {} chars]",
            &text[..i],
            text[i..].chars().count()
        ),
        None => text.to_string(),
    }
}

fn cut(text: &str) -> String {
    truncated(text, TOOL_TEXT_MAX)
}

/// One tool call the agent made.
pub async fn tool_call(
    db: &DatabaseConnection,
    s: &Scope,
    run: &crate::tools::ToolRun,
    message_id: &str,
) {
    let tool = run.tool.as_ref();
    let row = tool_call::ActiveModel {
        id: Set(new_id()),
        workspace_uuid: Set(s.workspace.clone()),
        execution_id: Set(Some(s.execution_id.clone())),
        timestamp: Set(crate::db::now()),
        bot_id: Set(s.bot_id.clone()),
        bot_name: Set(s.bot_name.clone()),
        pipeline_id: Set(s.pipeline_id.clone()),
        pipeline_name: Set(s.pipeline_name.clone()),
        session_id: Set(s.session_id.clone()),
        tool_name: Set(tool.map_or(run.requested_name.clone(), |t| t.name.clone())),
        tool_source: Set(tool.map_or("unknown".into(), |t| t.source.clone())),
        source_name: Set(tool.map_or(String::new(), |t| t.source_name.clone())),
        duration: Set(i64::try_from(run.duration.as_millis()).unwrap_or(i64::MAX)),
        status: Set(if run.ok { "success" } else { "error" }.into()),
        mode: Set(s.mode.as_str().into()),
        arguments: Set(Some(cut(&run.arguments))),
        result: Set(run.ok.then(|| cut(&run.text))),
        error_message: Set((!run.ok).then(|| cut(&run.text))),
        message_id: Set(Some(message_id.into())),
    };
    kept(s, "tool call", row.insert(db).await);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn inline_images_are_not_recorded() {
        let blob = "A".repeat(INLINE_IMAGE_MIN);
        let content = json!([
            { "type": "Plain", "text": "see" },
            { "type": "Image", "base64": blob },
            { "type": "Image", "base64": "iVBORw0KGgo=" },
            { "type": "Image", "url": format!("data:image/png;base64,{blob}") },
            { "type": "Image", "url": "https://img.example/a.png" },
        ]);
        assert_eq!(
            without_inline_images(&content),
            json!([
                { "type": "Plain", "text": "see" },
                { "type": "Image", "base64": IMAGE_OMITTED },
                { "type": "Image", "base64": "iVBORw0KGgo=" },
                { "type": "Image", "url": IMAGE_OMITTED },
                { "type": "Image", "url": "https://img.example/a.png" },
            ])
        );
    }
}
