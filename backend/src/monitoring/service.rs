//! Monitoring reads. Every query is scoped by the caller's Workspace.

use std::collections::{BTreeMap, HashMap};

use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect,
};
use serde_json::{json, Value};

use super::dto::*;
use super::filter::{condition, Columns, MonitoringFilter, Window};
use crate::access::WorkspaceCtx;
use crate::entities::{
    execution, llm_call, monitoring_error, monitoring_message, monitoring_session, route_trace,
};
use crate::error::{ApiError, ApiResult};

/// Token sums (cast: PostgreSQL sums BIGINT into NUMERIC).
#[derive(Debug, sea_orm::FromQueryResult)]
struct TokenSums {
    key: Option<String>,
    n: i64,
    i: i64,
    o: i64,
    t: i64,
}

fn token_sums<E: EntityTrait>(
    select: sea_orm::Select<E>,
    key: Option<llm_call::Column>,
) -> sea_orm::Selector<sea_orm::SelectModel<TokenSums>> {
    let mut q = select.select_only();
    q = match key {
        Some(k) => q.column_as(k, "key").group_by(k),
        None => q.column_as(Expr::cust("NULL"), "key"),
    };
    q.column_as(Expr::cust("COUNT(*)"), "n")
        .column_as(
            Expr::cust("CAST(COALESCE(SUM(input_tokens), 0) AS BIGINT)"),
            "i",
        )
        .column_as(
            Expr::cust("CAST(COALESCE(SUM(output_tokens), 0) AS BIGINT)"),
            "o",
        )
        .column_as(
            Expr::cust("CAST(COALESCE(SUM(total_tokens), 0) AS BIGINT)"),
            "t",
        )
        .into_model::<TokenSums>()
}

pub const SECTIONS: &[&str] = &[
    "inputs",
    "outputs",
    "deliveries",
    "events",
    "llm_calls",
    "errors",
    "related",
    "conversation",
];
const OVERVIEW_SECTIONS: &[&str] = &["inputs", "outputs", "deliveries", "errors"];

fn execution_cols() -> Columns<execution::Column> {
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

fn message_cols() -> Columns<monitoring_message::Column> {
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

fn llm_cols() -> Columns<llm_call::Column> {
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

fn error_cols() -> Columns<monitoring_error::Column> {
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

fn session_cols() -> Columns<monitoring_session::Column> {
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

fn execution_condition(ws: &WorkspaceCtx, f: &MonitoringFilter, w: Window) -> Condition {
    let mut cond = condition(&ws.uuid.to_string(), f, w, &execution_cols());
    if !f.statuses.is_empty() {
        cond = cond.add(execution::Column::Status.is_in(f.statuses.iter().map(|s| s.as_str())));
    }
    cond
}

/// The text of a message chain, cut to `limit` characters.
pub fn preview(content: &str, limit: usize) -> String {
    let value: Value = serde_json::from_str(content).unwrap_or(Value::String(content.to_string()));
    let mut out = Vec::new();
    collect_text(&value, 0, &mut out);
    let text = if out.is_empty() {
        content.to_string()
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
    let ids: Vec<String> = items.iter().map(|e| e.id.clone()).collect();
    let message_ids: Vec<String> = items.iter().filter_map(|e| e.message_id.clone()).collect();
    let previews: HashMap<String, String> = monitoring_message::Entity::find()
        .filter(monitoring_message::Column::Id.is_in(message_ids))
        .all(db)
        .await?
        .into_iter()
        .map(|m| (m.id, preview(&m.message_content, 160)))
        .collect();
    let usage_rows = token_sums(
        llm_call::Entity::find().filter(llm_call::Column::ExecutionId.is_in(ids)),
        Some(llm_call::Column::ExecutionId),
    )
    .all(db)
    .await?;
    let usage: HashMap<String, Tokens> = usage_rows
        .into_iter()
        .filter_map(|r| {
            r.key.map(|id| {
                (
                    id,
                    Tokens {
                        input_tokens: r.i,
                        output_tokens: r.o,
                        total_tokens: r.t,
                    },
                )
            })
        })
        .collect();
    Ok(items
        .into_iter()
        .map(|e| {
            let p = e.message_id.as_ref().and_then(|m| previews.get(m).cloned());
            let u = usage.get(&e.id).copied();
            ExecutionRow::new(e, p, u)
        })
        .collect())
}

/// Tokens of the LLM calls matching the filter.
async fn token_totals(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    f: &MonitoringFilter,
    w: Window,
) -> ApiResult<Tokens> {
    let row = token_sums(
        llm_call::Entity::find().filter(condition(&ws.uuid.to_string(), f, w, &llm_cols())),
        None,
    )
    .one(db)
    .await?;
    Ok(row
        .map(|r| Tokens {
            input_tokens: r.i,
            output_tokens: r.o,
            total_tokens: r.t,
        })
        .unwrap_or_default())
}

pub async fn executions(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    f: &MonitoringFilter,
) -> ApiResult<ExecutionPage> {
    let w = f.window()?;
    let (limit, offset) = (f.limit(50), f.offset());
    let cond = execution_condition(ws, f, w);
    // The page, the status counts (whose sum is the total) and the token sums are
    // independent: run them side by side on the pool.
    let page = execution::Entity::find()
        .filter(cond.clone())
        .order_by_desc(execution::Column::StartedAt)
        .order_by_desc(execution::Column::Id)
        .offset(offset)
        .limit(limit)
        .all(db);
    let counts = execution::Entity::find()
        .select_only()
        .column(execution::Column::Status)
        .column_as(Expr::cust("COUNT(*)"), "n")
        .filter(cond)
        .group_by(execution::Column::Status)
        .into_tuple::<(String, i64)>()
        .all(db);
    let (items, counts, tokens) = tokio::try_join!(
        async { page.await.map_err(ApiError::from) },
        async { counts.await.map_err(ApiError::from) },
        token_totals(db, ws, f, w),
    )?;
    let mut summary = ExecutionSummary::default();
    for (status, n) in counts {
        let n = u64::try_from(n).unwrap_or(0);
        summary.total += n;
        match status.as_str() {
            "queued" => summary.queued = n,
            "running" => summary.running = n,
            "completed" => summary.completed = n,
            "failed" => summary.failed = n,
            "cancelled" => summary.cancelled = n,
            _ => summary.ignored += n,
        }
    }
    let total = summary.total;
    let items = rows_with_details(db, items).await?;
    Ok(ExecutionPage {
        has_more: total > offset + items.len() as u64,
        items,
        total,
        limit,
        offset,
        summary: Summary {
            executions: summary,
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
    let messages = condition(&id, f, w, &message_cols());
    let total_messages = monitoring_message::Entity::find()
        .filter(messages.clone())
        .count(db)
        .await?;
    let ok = monitoring_message::Entity::find()
        .filter(messages)
        .filter(monitoring_message::Column::Status.eq("success"))
        .count(db)
        .await?;
    let llm_calls = llm_call::Entity::find()
        .filter(condition(&id, f, w, &llm_cols()))
        .count(db)
        .await?;
    let sessions =
        condition(&id, f, w, &session_cols()).add(monitoring_session::Column::IsActive.eq(true));
    let active_sessions = monitoring_session::Entity::find()
        .filter(sessions)
        .count(db)
        .await?;
    let executions = execution::Entity::find()
        .filter(execution_condition(ws, f, w))
        .count(db)
        .await?;
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

macro_rules! record_page {
    ($name:ident, $entity:ident, $row:ty, $cols:expr, $time:expr, $id:expr) => {
        /// One page, newest first, and the total.
        pub async fn $name(
            db: &impl ConnectionTrait,
            ws: &WorkspaceCtx,
            f: &MonitoringFilter,
        ) -> ApiResult<(Vec<$row>, u64)> {
            let w = f.window()?;
            let cond = condition(&ws.uuid.to_string(), f, w, &$cols);
            let total = $entity::Entity::find()
                .filter(cond.clone())
                .count(db)
                .await?;
            let rows = $entity::Entity::find()
                .filter(cond)
                .order_by_desc($time)
                .order_by_desc($id)
                .offset(f.offset())
                .limit(f.limit(100))
                .all(db)
                .await?;
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
    monitoring_message::Column::Id
);
record_page!(
    llm_calls,
    llm_call,
    LlmCallRow,
    llm_cols(),
    llm_call::Column::Timestamp,
    llm_call::Column::Id
);
record_page!(
    errors,
    monitoring_error,
    ErrorRow,
    error_cols(),
    monitoring_error::Column::Timestamp,
    monitoring_error::Column::Id
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
        // This server makes no tool or embedding calls while running pipelines.
        RecordKind::ToolCalls | RecordKind::EmbeddingCalls => {
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
    let mut pages = BTreeMap::new();
    for name in wanted {
        pages.insert(
            name.to_string(),
            section(db, &e, name, offset, limit).await?,
        );
    }
    let message = match &e.message_id {
        Some(m) => monitoring_message::Entity::find_by_id(m.clone())
            .one(db)
            .await?
            .map(MessageRow::from),
        None => None,
    };
    let row = rows_with_details(db, vec![e]).await?.pop();
    Ok(ExecutionDetail {
        source: "pipeline".into(),
        row,
        pages,
        legacy_context: false,
        message,
    })
}

/// Token use in the filter, in total and per model.
pub async fn token_statistics(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    f: &MonitoringFilter,
) -> ApiResult<super::ops::TokenStatistics> {
    let w = f.window()?;
    let cond = condition(&ws.uuid.to_string(), f, w, &llm_cols());
    let rows = token_sums(
        llm_call::Entity::find().filter(cond),
        Some(llm_call::Column::ModelName),
    )
    .all(db)
    .await?;
    let mut by_model: Vec<super::ops::ModelTokens> = rows
        .into_iter()
        .map(|r| super::ops::ModelTokens {
            model_name: r.key.unwrap_or_default(),
            calls: u64::try_from(r.n).unwrap_or(0),
            input_tokens: r.i,
            output_tokens: r.o,
            total_tokens: r.t,
        })
        .collect();
    by_model.sort_by(|a, b| a.model_name.cmp(&b.model_name));
    let totals = Tokens {
        input_tokens: by_model.iter().map(|m| m.input_tokens).sum(),
        output_tokens: by_model.iter().map(|m| m.output_tokens).sum(),
        total_tokens: by_model.iter().map(|m| m.total_tokens).sum(),
    };
    Ok(super::ops::TokenStatistics {
        calls: by_model.iter().map(|m| m.calls).sum(),
        totals,
        by_model,
    })
}
