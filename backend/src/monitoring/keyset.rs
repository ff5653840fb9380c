//! Keyset paging for the export: each page continues after the last row of the previous
//! one, in the list's order, so a page deep into a million rows costs what the first does.

use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
};
use serde_json::{json, Value};

use super::dto::{ErrorRow, LlmCallRow, MessageRow, SessionRow, ToolCallRow};
use super::filter::{condition, MonitoringFilter};
use super::service::{error_cols, llm_cols, message_cols, session_cols, tool_cols, RecordKind};
use crate::access::WorkspaceCtx;
use crate::entities::{
    llm_call, monitoring_error, monitoring_message, monitoring_session, tool_call,
};
use crate::error::ApiResult;

/// Where an export page continues: after the last row of the previous page, in the
/// list's order (keyset paging, so each page costs the same however deep it is).
#[derive(Debug, Clone)]
pub enum Cursor {
    /// Newest-first kinds: `(time, id)` of the last row.
    Time(chrono::DateTime<chrono::Utc>, String),
    /// Sessions: `(last_activity, bot_id, session_id)` of the last row.
    Session(chrono::DateTime<chrono::Utc>, String, String),
}

macro_rules! record_keyset {
    ($name:ident, $entity:ident, $row:ty, $cols:expr, $time:expr, $id:expr, $time_f:ident, $id_f:ident) => {
        /// One export page, newest first, after `after`; with the cursor of its last row.
        pub async fn $name(
            db: &impl ConnectionTrait,
            ws: &WorkspaceCtx,
            f: &MonitoringFilter,
            after: Option<&Cursor>,
            limit: u64,
        ) -> ApiResult<(Vec<$row>, Option<Cursor>)> {
            let w = f.window()?;
            let mut cond = condition(&ws.uuid.to_string(), f, w, &$cols);
            if let Some(Cursor::Time(t, id)) = after {
                // A row-value comparison, so the (time, id) index serves it as a range.
                cond = cond.add(
                    Expr::tuple([Expr::col($time).into(), Expr::col($id).into()]).lt(Expr::tuple(
                        [Expr::val(*t).into(), Expr::val(id.clone()).into()],
                    )),
                );
            }
            let rows = $entity::Entity::find()
                .filter(cond)
                .order_by_desc($time)
                .order_by_desc($id)
                .limit(limit)
                .all(db)
                .await?;
            let next = rows
                .last()
                .map(|r| Cursor::Time(r.$time_f, r.$id_f.clone()));
            Ok((rows.into_iter().map(<$row>::from).collect(), next))
        }
    };
}

record_keyset!(
    messages_after,
    monitoring_message,
    MessageRow,
    message_cols(),
    monitoring_message::Column::Timestamp,
    monitoring_message::Column::Id,
    timestamp,
    id
);
record_keyset!(
    llm_calls_after,
    llm_call,
    LlmCallRow,
    llm_cols(),
    llm_call::Column::Timestamp,
    llm_call::Column::Id,
    timestamp,
    id
);
record_keyset!(
    tool_calls_after,
    tool_call,
    ToolCallRow,
    tool_cols(),
    tool_call::Column::Timestamp,
    tool_call::Column::Id,
    timestamp,
    id
);
record_keyset!(
    errors_after,
    monitoring_error,
    ErrorRow,
    error_cols(),
    monitoring_error::Column::Timestamp,
    monitoring_error::Column::Id,
    timestamp,
    id
);

/// One export page of sessions (most recently active first) after `after`.
pub async fn sessions_after(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    f: &MonitoringFilter,
    after: Option<&Cursor>,
    limit: u64,
) -> ApiResult<(Vec<SessionRow>, Option<Cursor>)> {
    use monitoring_session::Column as C;
    f.no_execution_filters()?;
    let w = f.window()?;
    let mut cond = condition(&ws.uuid.to_string(), f, w, &session_cols());
    if let Some(Cursor::Session(t, bot, session)) = after {
        cond = cond.add(
            Condition::any()
                .add(C::LastActivity.lt(*t))
                .add(
                    Condition::all()
                        .add(C::LastActivity.eq(*t))
                        .add(C::BotId.gt(bot.clone())),
                )
                .add(
                    Condition::all()
                        .add(C::LastActivity.eq(*t))
                        .add(C::BotId.eq(bot.clone()))
                        .add(C::SessionId.gt(session.clone())),
                ),
        );
    }
    let rows = monitoring_session::Entity::find()
        .filter(cond)
        .order_by_desc(C::LastActivity)
        .order_by_asc(C::BotId)
        .order_by_asc(C::SessionId)
        .limit(limit)
        .all(db)
        .await?;
    let next = rows
        .last()
        .map(|r| Cursor::Session(r.last_activity, r.bot_id.clone(), r.session_id.clone()));
    Ok((rows.into_iter().map(SessionRow::from).collect(), next))
}

/// One export page of any kind, as JSON rows, and where the next page starts (`None` at
/// the end).
pub async fn export_page(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    kind: RecordKind,
    f: &MonitoringFilter,
    after: Option<&Cursor>,
    limit: u64,
) -> ApiResult<(Vec<Value>, Option<Cursor>)> {
    fn json_rows<T: serde::Serialize>(
        (rows, next): (Vec<T>, Option<Cursor>),
    ) -> (Vec<Value>, Option<Cursor>) {
        (rows.into_iter().map(|r| json!(r)).collect(), next)
    }
    Ok(match kind {
        RecordKind::Messages => json_rows(messages_after(db, ws, f, after, limit).await?),
        RecordKind::LlmCalls => json_rows(llm_calls_after(db, ws, f, after, limit).await?),
        RecordKind::Errors => json_rows(errors_after(db, ws, f, after, limit).await?),
        RecordKind::Sessions => json_rows(sessions_after(db, ws, f, after, limit).await?),
        RecordKind::ToolCalls => json_rows(tool_calls_after(db, ws, f, after, limit).await?),
        // This server makes no embedding calls while running pipelines.
        RecordKind::EmbeddingCalls => {
            f.window()?;
            (Vec::new(), None)
        }
    })
}
