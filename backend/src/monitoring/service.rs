//! Monitoring reads. Every query is scoped by the caller's Workspace.

use std::collections::{BTreeMap, HashMap};

use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect,
};
use serde_json::{json, Value};

use super::dto::*;
use super::filter::{condition, Bucket, Columns, MonitoringFilter, Window};
use super::rollup::{Tally, EXECUTION, LLM_CALL, MESSAGE};
use super::totals::{bucketed, overall, tally, By};
use crate::access::WorkspaceCtx;
use crate::entities::execution::ExecutionStatus;
use crate::entities::{
    execution, llm_call, monitoring_error, monitoring_message, monitoring_session, route_trace,
    tool_call,
};
use crate::error::{ApiError, ApiResult};

pub const SECTIONS: &[&str] = &[
    "inputs",
    "outputs",
    "deliveries",
    "events",
    "llm_calls",
    "tool_calls",
    "errors",
    "related",
    "conversation",
];
const OVERVIEW_SECTIONS: &[&str] = &["inputs", "outputs", "deliveries", "errors"];

pub(super) fn execution_cols() -> Columns<execution::Column> {
    Columns {
        workspace: execution::Column::WorkspaceUuid,
        time: execution::Column::StartedAt,
        bot: execution::Column::BotId,
        pipeline: execution::Column::PipelineId,
        session: Some(execution::Column::SessionId),
        execution: None,
        mode: Some(execution::Column::Mode),
    }
}

pub(super) fn message_cols() -> Columns<monitoring_message::Column> {
    Columns {
        workspace: monitoring_message::Column::WorkspaceUuid,
        time: monitoring_message::Column::Timestamp,
        bot: monitoring_message::Column::BotId,
        pipeline: monitoring_message::Column::PipelineId,
        session: Some(monitoring_message::Column::SessionId),
        execution: Some(monitoring_message::Column::ExecutionId),
        mode: Some(monitoring_message::Column::Mode),
    }
}

pub(super) fn llm_cols() -> Columns<llm_call::Column> {
    Columns {
        workspace: llm_call::Column::WorkspaceUuid,
        time: llm_call::Column::Timestamp,
        bot: llm_call::Column::BotId,
        pipeline: llm_call::Column::PipelineId,
        session: Some(llm_call::Column::SessionId),
        execution: Some(llm_call::Column::ExecutionId),
        mode: Some(llm_call::Column::Mode),
    }
}

pub(super) fn tool_cols() -> Columns<tool_call::Column> {
    Columns {
        workspace: tool_call::Column::WorkspaceUuid,
        time: tool_call::Column::Timestamp,
        bot: tool_call::Column::BotId,
        pipeline: tool_call::Column::PipelineId,
        session: Some(tool_call::Column::SessionId),
        execution: Some(tool_call::Column::ExecutionId),
        mode: Some(tool_call::Column::Mode),
    }
}

pub(super) fn error_cols() -> Columns<monitoring_error::Column> {
    Columns {
        workspace: monitoring_error::Column::WorkspaceUuid,
        time: monitoring_error::Column::Timestamp,
        bot: monitoring_error::Column::BotId,
        pipeline: monitoring_error::Column::PipelineId,
        session: Some(monitoring_error::Column::SessionId),
        execution: Some(monitoring_error::Column::ExecutionId),
        mode: Some(monitoring_error::Column::Mode),
    }
}

pub(super) fn session_cols() -> Columns<monitoring_session::Column> {
    Columns {
        workspace: monitoring_session::Column::WorkspaceUuid,
        time: monitoring_session::Column::LastActivity,
        bot: monitoring_session::Column::BotId,
        pipeline: monitoring_session::Column::PipelineId,
        session: Some(monitoring_session::Column::SessionId),
        execution: None,
        mode: None,
    }
}

pub(super) fn execution_condition(ws: &WorkspaceCtx, f: &MonitoringFilter, w: Window) -> Condition {
    let mut cond = condition(&ws.uuid.to_string(), f, w, &execution_cols());
    if !f.statuses.is_empty() {
        cond = cond.add(execution::Column::Status.is_in(f.statuses.iter().map(|s| s.as_str())));
    }
    cond
}

/// The text of a stored message chain, cut to `limit` characters.
pub fn preview(content: &str, limit: usize) -> String {
    match serde_json::from_str::<Value>(content) {
        Ok(value) => preview_of(&value, limit),
        Err(_) => content.chars().take(limit).collect(),
    }
}

/// The text of a message chain, cut to `limit` characters.
pub fn preview_of(value: &Value, limit: usize) -> String {
    let mut out = Vec::new();
    collect_text(value, 0, &mut out);
    let text = if out.is_empty() {
        match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }
    } else {
        out.join(" ")
    };
    text.chars().take(limit).collect()
}

fn collect_text(v: &Value, depth: usize, out: &mut Vec<String>) {
    if depth > 6 {
        return;
    }
    match v {
        Value::Object(m) => {
            if let Some(Value::String(t)) = m.get("text") {
                out.push(t.clone());
            }
            m.iter()
                .filter(|(k, _)| *k != "text")
                .for_each(|(_, v)| collect_text(v, depth + 1, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_text(v, depth + 1, out)),
        _ => {}
    }
}

async fn rows_with_details(
    db: &impl ConnectionTrait,
    items: Vec<execution::Model>,
) -> ApiResult<Vec<ExecutionRow>> {
    // Executions recorded before previews were kept read theirs from the input message.
    let message_ids: Vec<String> = items
        .iter()
        .filter(|e| e.input_preview.is_none())
        .filter_map(|e| e.message_id.clone())
        .collect();
    let previews: HashMap<String, String> = if message_ids.is_empty() {
        HashMap::new()
    } else {
        monitoring_message::Entity::find()
            .filter(monitoring_message::Column::Id.is_in(message_ids))
            .all(db)
            .await?
            .into_iter()
            .map(|m| (m.id, preview(&m.message_content, 160)))
            .collect()
    };
    Ok(items
        .into_iter()
        .map(|e| {
            let p = e
                .input_preview
                .clone()
                .or_else(|| e.message_id.as_ref().and_then(|m| previews.get(m).cloned()));
            let u = (e.llm_calls > 0).then_some(Tokens {
                input_tokens: e.input_tokens,
                output_tokens: e.output_tokens,
                total_tokens: e.total_tokens,
            });
            ExecutionRow::new(e, p, u)
        })
        .collect())
}

pub async fn executions(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    f: &MonitoringFilter,
) -> ApiResult<ExecutionPage> {
    let w = f.window()?;
    let (limit, offset) = (f.limit(50), f.offset());
    if f.excludes_pipeline_runs() {
        return Ok(ExecutionPage {
            items: Vec::new(),
            total: 0,
            limit,
            offset,
            has_more: false,
            summary: Summary {
                executions: ExecutionSummary::default().derive(),
                tokens: Tokens::default(),
            },
        });
    }
    let cond = execution_condition(ws, f, w);
    // The page and the status counts (whose sum is the total; with the tokens of those
    // executions) are independent: run them side by side on the pool.
    let page = execution::Entity::find()
        .filter(cond.clone())
        .order_by_desc(execution::Column::StartedAt)
        .order_by_desc(execution::Column::Id)
        .offset(offset)
        .limit(limit)
        .all(db);
    let (items, counts) = tokio::try_join!(
        async { page.await.map_err(ApiError::from) },
        tally(db, ws, EXECUTION, f, w, By::Status),
    )?;
    let mut summary = ExecutionSummary::default();
    for (status, t) in &counts {
        let n = t.count();
        summary.total += n;
        // Rollups keep the status as stored text; anything unknown counts as ignored.
        match ExecutionStatus::parse(status) {
            Some(ExecutionStatus::Queued) => summary.queued = n,
            Some(ExecutionStatus::Running) => summary.running = n,
            Some(ExecutionStatus::Completed) => summary.completed = n,
            Some(ExecutionStatus::Failed) => summary.failed = n,
            Some(ExecutionStatus::Cancelled) => summary.cancelled = n,
            Some(ExecutionStatus::Ignored) | None => summary.ignored += n,
        }
    }
    let all = overall(&counts);
    let tokens = Tokens {
        input_tokens: all.input_tokens,
        output_tokens: all.output_tokens,
        total_tokens: all.total_tokens,
    };
    let total = summary.total;
    let items = rows_with_details(db, items).await?;
    Ok(ExecutionPage {
        has_more: total > offset + items.len() as u64,
        items,
        total,
        limit,
        offset,
        summary: Summary {
            executions: summary.derive(),
            tokens,
        },
    })
}

pub async fn overview(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    f: &MonitoringFilter,
) -> ApiResult<Overview> {
    let w = f.window()?;
    let id = ws.uuid.to_string();
    let sessions =
        condition(&id, f, w, &session_cols()).add(monitoring_session::Column::IsActive.eq(true));
    let (messages, llm, executions, active_sessions) = tokio::try_join!(
        tally(db, ws, MESSAGE, f, w, By::Status),
        tally(db, ws, LLM_CALL, f, w, By::Nothing),
        tally(db, ws, EXECUTION, f, w, By::Nothing),
        async {
            monitoring_session::Entity::find()
                .filter(sessions)
                .count(db)
                .await
                .map_err(ApiError::from)
        },
    )?;
    let total_messages = overall(&messages).count();
    let ok = messages.get("success").copied().unwrap_or_default().count();
    let llm_calls = overall(&llm).count();
    let executions = overall(&executions).count();
    let rate = if total_messages == 0 {
        100.0
    } else {
        (ok as f64 * 10000.0 / total_messages as f64).round() / 100.0
    };
    Ok(Overview {
        total_messages,
        llm_calls,
        model_calls: llm_calls,
        success_rate: rate,
        active_sessions,
        executions,
    })
}

/// Record kinds.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RecordKind {
    Messages,
    #[serde(alias = "llm-calls")]
    LlmCalls,
    #[serde(alias = "tool-calls")]
    ToolCalls,
    #[serde(alias = "embedding-calls")]
    EmbeddingCalls,
    Sessions,
    Errors,
}

/// The number of records of a kind matching a filter: from the rollups when the kind has
/// them, else counted.
macro_rules! record_total {
    ($db:expr, $ws:expr, $f:expr, $w:expr, $entity:ident, $cond:expr, None) => {
        $entity::Entity::find()
            .filter($cond)
            .count($db)
            .await
            .map_err(ApiError::from)
    };
    ($db:expr, $ws:expr, $f:expr, $w:expr, $entity:ident, $cond:expr, $kind:expr) => {
        tally($db, $ws, $kind, $f, $w, By::Nothing)
            .await
            .map(|t| overall(&t).count())
    };
}

macro_rules! record_page {
    ($name:ident, $entity:ident, $row:ty, $cols:expr, $time:expr, $id:expr, $kind:tt) => {
        /// One page, newest first, and the total.
        pub async fn $name(
            db: &impl ConnectionTrait,
            ws: &WorkspaceCtx,
            f: &MonitoringFilter,
        ) -> ApiResult<(Vec<$row>, u64)> {
            let w = f.window()?;
            let cond = condition(&ws.uuid.to_string(), f, w, &$cols);
            let rows = $entity::Entity::find()
                .filter(cond.clone())
                .order_by_desc($time)
                .order_by_desc($id)
                .offset(f.offset())
                .limit(f.limit(100))
                .all(db);
            let (rows, total) =
                tokio::try_join!(async { rows.await.map_err(ApiError::from) }, async {
                    record_total!(db, ws, f, w, $entity, cond, $kind)
                },)?;
            Ok((rows.into_iter().map(<$row>::from).collect(), total))
        }
    };
}

record_page!(
    messages,
    monitoring_message,
    MessageRow,
    message_cols(),
    monitoring_message::Column::Timestamp,
    monitoring_message::Column::Id,
    MESSAGE
);
record_page!(
    llm_calls,
    llm_call,
    LlmCallRow,
    llm_cols(),
    llm_call::Column::Timestamp,
    llm_call::Column::Id,
    LLM_CALL
);
record_page!(
    tool_calls,
    tool_call,
    ToolCallRow,
    tool_cols(),
    tool_call::Column::Timestamp,
    tool_call::Column::Id,
    None
);
record_page!(
    errors,
    monitoring_error,
    ErrorRow,
    error_cols(),
    monitoring_error::Column::Timestamp,
    monitoring_error::Column::Id,
    None
);

/// Sessions, most recently active first; status and mode filters are refused.
pub async fn sessions(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    f: &MonitoringFilter,
) -> ApiResult<(Vec<SessionRow>, u64)> {
    f.no_execution_filters()?;
    let w = f.window()?;
    let cond = condition(&ws.uuid.to_string(), f, w, &session_cols());
    let total = monitoring_session::Entity::find()
        .filter(cond.clone())
        .count(db)
        .await?;
    let rows = monitoring_session::Entity::find()
        .filter(cond)
        .order_by_desc(monitoring_session::Column::LastActivity)
        .order_by_asc(monitoring_session::Column::BotId)
        .order_by_asc(monitoring_session::Column::SessionId)
        .offset(f.offset())
        .limit(f.limit(100))
        .all(db)
        .await?;
    Ok((rows.into_iter().map(SessionRow::from).collect(), total))
}

fn values<T: serde::Serialize>((rows, total): (Vec<T>, u64)) -> (Vec<Value>, u64) {
    (rows.into_iter().map(|r| json!(r)).collect(), total)
}

/// Records of any kind as JSON (for MCP and export).
pub async fn records(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    kind: RecordKind,
    f: &MonitoringFilter,
) -> ApiResult<(Vec<Value>, u64)> {
    Ok(match kind {
        RecordKind::Messages => values(messages(db, ws, f).await?),
        RecordKind::LlmCalls => values(llm_calls(db, ws, f).await?),
        RecordKind::Errors => values(errors(db, ws, f).await?),
        RecordKind::Sessions => values(sessions(db, ws, f).await?),
        RecordKind::ToolCalls => values(tool_calls(db, ws, f).await?),
        // This server makes no embedding calls while running pipelines.
        RecordKind::EmbeddingCalls => {
            f.window()?;
            (Vec::new(), 0)
        }
    })
}

/// Finds the execution behind an id: an execution id, a message id (a reply opens its
/// owning execution) or an event id.
pub async fn resolve(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    source: &str,
    id: &str,
) -> ApiResult<execution::Model> {
    let ws_id = ws.uuid.to_string();
    let by_id = || {
        execution::Entity::find_by_id(id.to_string())
            .filter(execution::Column::WorkspaceUuid.eq(ws_id.clone()))
    };
    let found = match source {
        "pipeline" => by_id().one(db).await?,
        "event" => {
            execution::Entity::find()
                .filter(execution::Column::WorkspaceUuid.eq(ws_id.clone()))
                .filter(execution::Column::EventId.eq(id))
                .one(db)
                .await?
        }
        "auto" => match by_id().one(db).await? {
            Some(e) => Some(e),
            None => {
                let message = monitoring_message::Entity::find_by_id(id.to_string())
                    .filter(monitoring_message::Column::WorkspaceUuid.eq(ws_id.clone()))
                    .one(db)
                    .await?;
                let exec = message.and_then(|m| m.execution_id);
                match exec {
                    Some(e) => {
                        execution::Entity::find_by_id(e)
                            .filter(execution::Column::WorkspaceUuid.eq(ws_id.clone()))
                            .one(db)
                            .await?
                    }
                    None => {
                        execution::Entity::find()
                            .filter(execution::Column::WorkspaceUuid.eq(ws_id.clone()))
                            .filter(execution::Column::EventId.eq(id))
                            .one(db)
                            .await?
                    }
                }
            }
        },
        _ => {
            return Err(ApiError::invalid("source must be auto, pipeline or event")
                .field("source", "must be auto, pipeline or event"))
        }
    };
    found.ok_or_else(|| ApiError::not_found().msg("Execution not found"))
}

fn page<T: serde::Serialize>(mut rows: Vec<T>, offset: u64, limit: u64) -> SectionPage {
    let has_more = rows.len() as u64 > limit;
    rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    let next_offset = offset + rows.len() as u64;
    SectionPage {
        items: rows.into_iter().map(|r| json!(r)).collect(),
        has_more,
        next_offset,
    }
}

/// One section of an execution, `limit + 1` rows read to know whether more follow.
async fn section(
    db: &impl ConnectionTrait,
    e: &execution::Model,
    name: &str,
    offset: u64,
    limit: u64,
) -> ApiResult<SectionPage> {
    let fetch = limit + 1;
    let messages = |role: &'static str| {
        monitoring_message::Entity::find()
            .filter(monitoring_message::Column::WorkspaceUuid.eq(e.workspace_uuid.clone()))
            .filter(monitoring_message::Column::ExecutionId.eq(e.id.clone()))
            .filter(monitoring_message::Column::Role.eq(role))
            .order_by_asc(monitoring_message::Column::Timestamp)
            .order_by_asc(monitoring_message::Column::Id)
            .offset(offset)
            .limit(fetch)
    };
    Ok(match name {
        "inputs" => page(
            messages("user")
                .all(db)
                .await?
                .into_iter()
                .map(MessageRow::from)
                .collect(),
            offset,
            limit,
        ),
        "outputs" | "deliveries" => {
            let rows: Vec<Value> = messages("assistant")
                .all(db)
                .await?
                .into_iter()
                .map(|m| {
                    let mut v = json!(MessageRow::from(m));
                    v["origin"] = json!(if name == "outputs" {
                        "generated"
                    } else {
                        "delivery"
                    });
                    v
                })
                .collect();
            page(rows, offset, limit)
        }
        "events" => {
            let rows = route_trace::Entity::find()
                .filter(route_trace::Column::WorkspaceUuid.eq(e.workspace_uuid.clone()))
                .filter(route_trace::Column::RunId.eq(e.message_id.clone().unwrap_or_default()))
                .order_by_asc(route_trace::Column::Id)
                .offset(offset)
                .limit(fetch)
                .all(db)
                .await?;
            let rows: Vec<Value> = rows
                .into_iter()
                .map(|t| json!({ "id": t.id, "type": "route.decision", "timestamp_ms": t.timestamp.timestamp_millis(),
                    "data": { "status": t.status, "binding_id": t.binding_id, "event_pattern": t.event_pattern,
                              "target_type": t.target_type, "target_uuid": t.target_uuid, "failure_code": t.failure_code, "reason": t.reason } }))
                .collect();
            page(rows, offset, limit)
        }
        "llm_calls" => {
            let rows = llm_call::Entity::find()
                .filter(llm_call::Column::WorkspaceUuid.eq(e.workspace_uuid.clone()))
                .filter(llm_call::Column::ExecutionId.eq(e.id.clone()))
                .order_by_asc(llm_call::Column::Timestamp)
                .order_by_asc(llm_call::Column::Id)
                .offset(offset)
                .limit(fetch)
                .all(db)
                .await?;
            page(
                rows.into_iter().map(LlmCallRow::from).collect(),
                offset,
                limit,
            )
        }
        "tool_calls" => {
            let rows = tool_call::Entity::find()
                .filter(tool_call::Column::WorkspaceUuid.eq(e.workspace_uuid.clone()))
                .filter(tool_call::Column::ExecutionId.eq(e.id.clone()))
                .order_by_asc(tool_call::Column::Timestamp)
                .order_by_asc(tool_call::Column::Id)
                .offset(offset)
                .limit(fetch)
                .all(db)
                .await?;
            page(
                rows.into_iter().map(ToolCallRow::from).collect(),
                offset,
                limit,
            )
        }
        "errors" => {
            let rows = monitoring_error::Entity::find()
                .filter(monitoring_error::Column::WorkspaceUuid.eq(e.workspace_uuid.clone()))
                .filter(monitoring_error::Column::ExecutionId.eq(e.id.clone()))
                .order_by_asc(monitoring_error::Column::Timestamp)
                .order_by_asc(monitoring_error::Column::Id)
                .offset(offset)
                .limit(fetch)
                .all(db)
                .await?;
            page(
                rows.into_iter().map(ErrorRow::from).collect(),
                offset,
                limit,
            )
        }
        "related" => {
            let rows = execution::Entity::find()
                .filter(execution::Column::WorkspaceUuid.eq(e.workspace_uuid.clone()))
                .filter(execution::Column::BotId.eq(e.bot_id.clone()))
                .filter(execution::Column::SessionId.eq(e.session_id.clone()))
                .filter(execution::Column::Id.ne(e.id.clone()))
                .order_by_desc(execution::Column::StartedAt)
                .order_by_desc(execution::Column::Id)
                .offset(offset)
                .limit(fetch)
                .all(db)
                .await?;
            page(rows_with_details(db, rows).await?, offset, limit)
        }
        "conversation" => {
            let rows = monitoring_message::Entity::find()
                .filter(monitoring_message::Column::WorkspaceUuid.eq(e.workspace_uuid.clone()))
                .filter(monitoring_message::Column::BotId.eq(e.bot_id.clone()))
                .filter(monitoring_message::Column::SessionId.eq(e.session_id.clone()))
                .order_by_desc(monitoring_message::Column::Timestamp)
                .order_by_desc(monitoring_message::Column::Id)
                .offset(offset)
                .limit(fetch)
                .all(db)
                .await?;
            page(
                rows.into_iter().map(MessageRow::from).collect(),
                offset,
                limit,
            )
        }
        other => {
            return Err(
                ApiError::invalid(format!("Unknown execution section: {other}"))
                    .field("section", "unknown section"),
            )
        }
    })
}

/// The execution's row and the requested sections (all without `section`; `overview` = inputs,
/// outputs, deliveries and errors), each paged on its own.
pub async fn detail(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    source: &str,
    id: &str,
    section_name: Option<&str>,
    offset: u64,
    limit: u64,
) -> ApiResult<ExecutionDetail> {
    let wanted: Vec<&str> = match section_name {
        None | Some("") => SECTIONS.to_vec(),
        Some("overview") => OVERVIEW_SECTIONS.to_vec(),
        Some(one) if SECTIONS.contains(&one) => vec![one],
        Some(other) => {
            return Err(
                ApiError::invalid(format!("Unknown execution section: {other}"))
                    .field("section", "unknown section"),
            )
        }
    };
    let e = resolve(db, ws, source, id).await?;
    let limit = limit.clamp(1, 100);
    // The sections, the input message and the row are independent reads: side by side.
    let sections = futures_util::future::try_join_all(wanted.iter().map(|name| async {
        Ok::<_, ApiError>((
            name.to_string(),
            section(db, &e, name, offset, limit).await?,
        ))
    }));
    let message = async {
        Ok::<_, ApiError>(match &e.message_id {
            Some(m) => monitoring_message::Entity::find_by_id(m.clone())
                .one(db)
                .await?
                .map(MessageRow::from),
            None => None,
        })
    };
    let stats = async {
        let calls: Vec<(String, i64)> = tool_call::Entity::find()
            .select_only()
            .column(tool_call::Column::Status)
            .column(tool_call::Column::Duration)
            .filter(tool_call::Column::WorkspaceUuid.eq(e.workspace_uuid.clone()))
            .filter(tool_call::Column::ExecutionId.eq(e.id.clone()))
            .into_tuple()
            .all(db)
            .await?;
        Ok::<_, ApiError>(tool_stats(&calls))
    };
    let (sections, message, mut rows, tool_stats) = tokio::try_join!(
        sections,
        message,
        rows_with_details(db, vec![e.clone()]),
        stats
    )?;
    let pages: BTreeMap<String, SectionPage> = sections.into_iter().collect();
    let row = rows.pop();
    Ok(ExecutionDetail {
        source: "pipeline".into(),
        row,
        pages,
        legacy_context: false,
        message,
        tool_stats,
    })
}

fn tool_stats(calls: &[(String, i64)]) -> ToolStats {
    let total = calls.len() as u64;
    let success = calls.iter().filter(|(s, _)| s == "success").count() as u64;
    let duration: i64 = calls.iter().map(|(_, d)| *d).sum();
    ToolStats {
        total_calls: total,
        success_calls: success,
        error_calls: total - success,
        total_duration_ms: duration,
        average_duration_ms: if total == 0 {
            0
        } else {
            duration / total as i64
        },
    }
}

/// Buckets newest-first kept in a series.
pub const SERIES_BUCKETS: usize = 1000;

/// Token use in the filter: in total, per model, and over time (the newest
/// `SERIES_BUCKETS` buckets with calls, oldest first).
pub async fn token_statistics(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    f: &MonitoringFilter,
) -> ApiResult<super::ops::TokenStatistics> {
    use super::ops::{ModelTokens, SeriesPoint, TokenStatistics};
    let w = f.window()?;
    let (models, hours) = tokio::try_join!(
        tally(db, ws, LLM_CALL, f, w, By::Model),
        tally(db, ws, LLM_CALL, f, w, By::Hour),
    )?;
    let by_model: Vec<ModelTokens> = models
        .into_iter()
        .map(|(model_name, t)| ModelTokens {
            model_name,
            calls: t.count(),
            input_tokens: t.input_tokens,
            output_tokens: t.output_tokens,
            total_tokens: t.total_tokens,
        })
        .collect();
    let bucket = f.bucket.unwrap_or_default();
    let buckets = bucketed(&hours, bucket);
    let truncated = buckets.len() > SERIES_BUCKETS;
    let label = match bucket {
        Bucket::Hour => "%Y-%m-%d %H:00",
        Bucket::Day => "%Y-%m-%d",
    };
    let timeseries = buckets
        .iter()
        .rev()
        .take(SERIES_BUCKETS)
        .rev()
        .map(|(hour, t)| SeriesPoint {
            bucket: Bucket::start(*hour).format(label).to_string(),
            calls: t.count(),
            input_tokens: t.input_tokens,
            output_tokens: t.output_tokens,
            total_tokens: t.total_tokens,
        })
        .collect();
    let all = overall(&hours);
    Ok(TokenStatistics {
        calls: all.count(),
        totals: Tokens {
            input_tokens: all.input_tokens,
            output_tokens: all.output_tokens,
            total_tokens: all.total_tokens,
        },
        by_model,
        bucket,
        timeseries,
        timeseries_truncated: truncated,
    })
}

/// Messages and LLM calls over time: hourly when the window is bounded and at most 7 days,
/// else daily; zero-filled from the window's (or the data's) first bucket to its last, at
/// most `SERIES_BUCKETS` points.
pub async fn traffic(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    f: &MonitoringFilter,
) -> ApiResult<super::ops::Traffic> {
    use super::ops::{Traffic, TrafficPoint};
    let w = f.window()?;
    let (messages, llm) = tokio::try_join!(
        tally(db, ws, MESSAGE, f, w, By::Hour),
        tally(db, ws, LLM_CALL, f, w, By::Hour),
    )?;
    let bucket = match (w.start, w.end) {
        (Some(s), Some(e)) if e - s <= chrono::Duration::days(7) => Bucket::Hour,
        _ => Bucket::Day,
    };
    let (messages, llm) = (bucketed(&messages, bucket), bucketed(&llm, bucket));
    let first_data = messages.keys().chain(llm.keys()).min().copied();
    let last_data = messages.keys().chain(llm.keys()).max().copied();
    let first = w
        .start
        .map(|s| bucket.first_hour(super::rollup::hour_of(s)))
        .or(first_data);
    let last = w
        .end
        .map(|e| bucket.first_hour(super::rollup::hour_of(e)))
        .or(last_data);
    let (Some(first), Some(last)) = (first, last) else {
        return Ok(Traffic {
            bucket,
            points: Vec::new(),
            truncated: false,
        });
    };
    let steps = (last - first) / bucket.hours() + 1;
    let truncated = steps > SERIES_BUCKETS as i64;
    let count =
        |m: &std::collections::BTreeMap<i64, Tally>, h: i64| m.get(&h).map_or(0, Tally::count);
    let points = (0..steps.clamp(0, SERIES_BUCKETS as i64))
        .map(|i| first + i * bucket.hours())
        .map(|h| TrafficPoint {
            timestamp: Bucket::start(h).format("%Y-%m-%dT%H:00:00Z").to_string(),
            messages: count(&messages, h),
            llm_calls: count(&llm, h),
        })
        .collect();
    Ok(Traffic {
        bucket,
        points,
        truncated,
    })
}
