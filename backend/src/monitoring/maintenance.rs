//! Background upkeep: executions orphaned by a dead replica (lease expired) are marked failed,
//! and records older than the retention age are deleted in bounded batches.

use std::time::Duration;

use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use tokio_util::sync::CancellationToken;

use crate::entities::execution::ExecutionStatus;
use crate::entities::{
    execution, llm_call, monitoring_error, monitoring_message, monitoring_session, route_trace,
    tool_call,
};
use crate::error::ApiResult;
use crate::state::AppState;

const BATCH: u64 = 500;
const INTERVAL: Duration = Duration::from_secs(20);

/// The worker, until `stop` is cancelled: reaping three times per execution lease (at most
/// every 20 s), so a dead replica's executions fail within about one and a third leases;
/// deleting expired records every 20 s.
pub async fn run(state: AppState, stop: CancellationToken) {
    let every =
        (state.settings.monitoring.execution_lease / 3).clamp(Duration::from_secs(1), INTERVAL);
    let mut last_expiry = tokio::time::Instant::now();
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(every) => {}
        }
        let result = if last_expiry.elapsed() >= INTERVAL {
            last_expiry = tokio::time::Instant::now();
            run_once(&state).await.map(|_| ())
        } else {
            reap(&state.db).await.map(|n| {
                if n > 0 {
                    tracing::info!(reaped = n, "failed executions whose replica stopped");
                }
            })
        };
        if let Err(e) = result {
            tracing::warn!(error = %e, "monitoring upkeep failed; retrying later");
        }
    }
}

/// One pass: `(executions reaped, records deleted)`.
pub async fn run_once(state: &AppState) -> ApiResult<(u64, u64)> {
    let reaped = reap(&state.db).await?;
    let deleted = expire(&state.db, state.settings.monitoring.retention).await?;
    Ok((reaped, deleted))
}

/// Marks running executions whose lease expired as failed.
pub async fn reap(db: &impl ConnectionTrait) -> ApiResult<u64> {
    let now = crate::db::now();
    let result = execution::Entity::update_many()
        .col_expr(
            execution::Column::Status,
            Expr::value(ExecutionStatus::Failed.as_str()),
        )
        .col_expr(
            execution::Column::Error,
            Expr::value("Execution interrupted: its replica stopped renewing the lease"),
        )
        .col_expr(execution::Column::FinishedAt, Expr::value(now))
        .col_expr(
            execution::Column::LeaseExpiresAt,
            Expr::value(Option::<chrono::DateTime<chrono::Utc>>::None),
        )
        .filter(
            execution::Column::Status.is_in([ExecutionStatus::Queued, ExecutionStatus::Running]),
        )
        .filter(execution::Column::LeaseExpiresAt.lt(now))
        .exec(db)
        .await?;
    Ok(result.rows_affected)
}

macro_rules! expire_table {
    ($db:expr, $entity:ident, $id:expr, $time:expr, $cutoff:expr) => {{
        let mut total = 0u64;
        loop {
            let ids: Vec<String> = $entity::Entity::find()
                .select_only()
                .column($id)
                .filter($time.lt($cutoff))
                .limit(BATCH)
                .into_tuple()
                .all($db)
                .await?;
            if ids.is_empty() {
                break;
            }
            let n = $entity::Entity::delete_many()
                .filter($id.is_in(ids))
                .exec($db)
                .await?
                .rows_affected;
            total += n;
            if n < BATCH {
                break;
            }
        }
        total
    }};
}

/// Deletes records older than `retention`, in batches of 500 (the rollups follow through
/// triggers), and the rollup rows left counting nothing.
pub async fn expire(db: &impl ConnectionTrait, retention: Duration) -> ApiResult<u64> {
    let cutoff = crate::db::now()
        - chrono::Duration::from_std(retention).unwrap_or(chrono::Duration::days(30));
    let mut total = 0;
    total += expire_table!(
        db,
        monitoring_message,
        monitoring_message::Column::Id,
        monitoring_message::Column::Timestamp,
        cutoff
    );
    total += expire_table!(
        db,
        llm_call,
        llm_call::Column::Id,
        llm_call::Column::Timestamp,
        cutoff
    );
    total += expire_table!(
        db,
        tool_call,
        tool_call::Column::Id,
        tool_call::Column::Timestamp,
        cutoff
    );
    total += expire_table!(
        db,
        monitoring_error,
        monitoring_error::Column::Id,
        monitoring_error::Column::Timestamp,
        cutoff
    );
    total += expire_table!(
        db,
        execution,
        execution::Column::Id,
        execution::Column::StartedAt,
        cutoff
    );
    let sessions = monitoring_session::Entity::delete_many()
        .filter(monitoring_session::Column::LastActivity.lt(cutoff))
        .exec(db)
        .await?;
    let traces = route_trace::Entity::delete_many()
        .filter(route_trace::Column::Timestamp.lt(cutoff))
        .exec(db)
        .await?;
    super::rollup::prune(db, super::rollup::hour_of(cutoff)).await?;
    Ok(total + sessions.rows_affected + traces.rows_affected)
}
