//! Counts and token sums under a monitoring filter: whole hours from the rollups, the partial
//! hours at the window's edges (or everything, when the rollups cannot answer the filter)
//! from the records, read side by side.

use std::collections::BTreeMap;

use futures_util::future::{try_join_all, BoxFuture};
use sea_orm::sea_query::{Expr, SimpleExpr};
use sea_orm::{ConnectionTrait, EntityTrait, IntoSimpleExpr, QueryFilter, QuerySelect, Select};

use super::filter::condition;
use super::filter::{Bucket, MonitoringFilter, Window};
use super::rollup::{self, RollupKind, Tally};
use super::service::{execution_condition, llm_cols, message_cols};
use crate::access::WorkspaceCtx;
use crate::entities::{execution, llm_call, monitoring_message, monitoring_rollup};
use crate::error::{ApiError, ApiResult};

/// What totals are grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    Nothing,
    /// The record's own status (an execution's status group, a message's delivery status).
    Status,
    /// LLM calls' model.
    Model,
    /// The hour (since the Unix epoch, UTC) of the record's time.
    Hour,
}

/// Sums (cast: PostgreSQL sums BIGINT into NUMERIC).
#[derive(Debug, sea_orm::FromQueryResult)]
struct Sums {
    key: Option<String>,
    n: i64,
    i: i64,
    o: i64,
    t: i64,
}

fn sum(column: &str) -> sea_orm::sea_query::SimpleExpr {
    Expr::cust(format!("CAST(COALESCE(SUM({column}), 0) AS BIGINT)"))
}

/// `count` rows (an expression), with token sums when the table has them, per `key`.
fn sums<E: EntityTrait>(
    select: Select<E>,
    key: Option<SimpleExpr>,
    count: SimpleExpr,
    tokens: bool,
) -> sea_orm::Selector<sea_orm::SelectModel<Sums>> {
    let mut q = select.select_only();
    q = match key {
        Some(k) => q.column_as(k.clone(), "key").group_by(k),
        None => q.column_as(Expr::cust("NULL"), "key"),
    };
    let token = |c: &str| {
        if tokens {
            sum(c)
        } else {
            Expr::cust("CAST(0 AS BIGINT)")
        }
    };
    q.column_as(count, "n")
        .column_as(token("input_tokens"), "i")
        .column_as(token("output_tokens"), "o")
        .column_as(token("total_tokens"), "t")
        .into_model::<Sums>()
}

/// The key to group records by: a column, or the hour of the time column.
fn record_key<C: IntoSimpleExpr>(
    db: &impl ConnectionTrait,
    by: By,
    status: C,
    model: Option<C>,
    time: &str,
) -> Option<SimpleExpr> {
    match by {
        By::Nothing => None,
        By::Status => Some(status.into_simple_expr()),
        By::Model => model.map(IntoSimpleExpr::into_simple_expr),
        By::Hour => Some(Expr::cust(format!(
            "CAST({} AS VARCHAR(20))",
            migration::rollups::hour(db.get_database_backend(), time)
        ))),
    }
}

type Read<'a> = BoxFuture<'a, Result<Vec<Sums>, sea_orm::DbErr>>;

fn from_rollups<'a>(
    db: &'a impl ConnectionTrait,
    workspace: &str,
    kind: RollupKind,
    hours: (Option<i64>, Option<i64>),
    f: &MonitoringFilter,
    by: By,
) -> Read<'a> {
    use monitoring_rollup::Column as C;
    let key = match by {
        By::Nothing => None,
        By::Status => Some(C::Status.into_simple_expr()),
        By::Model => Some(C::ModelName.into_simple_expr()),
        By::Hour => Some(Expr::cust("CAST(\"hour\" AS VARCHAR(20))")),
    };
    let select =
        monitoring_rollup::Entity::find().filter(rollup::condition(workspace, kind, hours, f));
    Box::pin(sums(select, key, sum("n"), true).all(db))
}

fn from_records<'a>(
    db: &'a impl ConnectionTrait,
    ws: &WorkspaceCtx,
    kind: RollupKind,
    w: Window,
    f: &MonitoringFilter,
    by: By,
) -> Read<'a> {
    let count = || Expr::cust("COUNT(*)");
    let workspace = ws.uuid.to_string();
    match kind {
        RollupKind::Execution => {
            let key = record_key(db, by, execution::Column::Status, None, "\"started_at\"");
            let select = execution::Entity::find().filter(execution_condition(ws, f, w));
            Box::pin(sums(select, key, count(), true).all(db))
        }
        RollupKind::Message => {
            let key = record_key(
                db,
                by,
                monitoring_message::Column::Status,
                None,
                "\"timestamp\"",
            );
            let select = monitoring_message::Entity::find().filter(condition(
                &workspace,
                f,
                w,
                &message_cols(),
            ));
            Box::pin(sums(select, key, count(), false).all(db))
        }
        _ => {
            let key = record_key(
                db,
                by,
                llm_call::Column::Status,
                Some(llm_call::Column::ModelName),
                "\"timestamp\"",
            );
            let select = llm_call::Entity::find().filter(condition(&workspace, f, w, &llm_cols()));
            Box::pin(sums(select, key, count(), true).all(db))
        }
    }
}

/// Totals of `kind` (`rollup::EXECUTION`, `MESSAGE` or `LLM_CALL`) matching `f` in `w`,
/// grouped `by` (one entry keyed "" for `By::Nothing`).
pub async fn tally(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    kind: RollupKind,
    f: &MonitoringFilter,
    w: Window,
    by: By,
) -> ApiResult<BTreeMap<String, Tally>> {
    let split = if rollup::answers(kind, f) {
        rollup::split(w)
    } else {
        rollup::Split::raw(w)
    };
    let workspace = ws.uuid.to_string();
    let mut reads: Vec<Read<'_>> = Vec::new();
    if let Some(hours) = split.hours {
        reads.push(from_rollups(db, &workspace, kind, hours, f, by));
    }
    for edge in split.edges {
        reads.push(from_records(db, ws, kind, edge, f, by));
    }
    let mut out: BTreeMap<String, Tally> = BTreeMap::new();
    for row in try_join_all(reads)
        .await
        .map_err(ApiError::from)?
        .into_iter()
        .flatten()
    {
        *out.entry(row.key.unwrap_or_default()).or_default() += Tally {
            n: row.n,
            input_tokens: row.i,
            output_tokens: row.o,
            total_tokens: row.t,
        };
    }
    Ok(out)
}

/// The grand total of a tally.
pub fn overall(groups: &BTreeMap<String, Tally>) -> Tally {
    let mut all = Tally::default();
    for t in groups.values() {
        all += *t;
    }
    all
}

/// Hourly tallies (`By::Hour`) summed into buckets, keyed by each bucket's first hour.
pub fn bucketed(by_hour: &BTreeMap<String, Tally>, bucket: Bucket) -> BTreeMap<i64, Tally> {
    let mut out: BTreeMap<i64, Tally> = BTreeMap::new();
    for (hour, t) in by_hour {
        let Ok(hour) = hour.trim().parse::<i64>() else {
            continue;
        };
        *out.entry(bucket.first_hour(hour)).or_default() += *t;
    }
    out
}
