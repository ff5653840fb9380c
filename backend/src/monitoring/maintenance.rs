//! Background upkeep: executions orphaned by a dead replica (lease expired) are marked failed,
//! and records older than the retention age are deleted in bounded batches.

use std::time::Duration;

use sea_orm::sea_query::{Expr, Query};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, DatabaseConnection, EntityTrait, FromQueryResult,
    QueryFilter, QuerySelect, TransactionTrait,
};

use super::rollup::{self, Deltas, Key, Tally};
use crate::entities::{
    execution, llm_call, monitoring_error, monitoring_message, monitoring_session, route_trace,
};
use crate::error::ApiResult;
use crate::runtime::recorder;
use crate::state::AppState;

const BATCH: u64 = 500;
const INTERVAL: Duration = Duration::from_secs(20);

/// Runs the upkeep every 20 s for the life of the process.
pub fn spawn(state: AppState) {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(INTERVAL).await;
            if let Err(e) = run_once(&state).await {
                tracing::warn!(error = %e, "monitoring upkeep failed; retrying later");
            }
        }
    });
}

/// One pass: `(executions reaped, records deleted)`.
pub async fn run_once(state: &AppState) -> ApiResult<(u64, u64)> {
    let reaped = reap(&state.db).await?;
    let deleted = expire(&state.db, state.settings.monitoring.retention).await?;
    Ok((reaped, deleted))
}

/// Marks running executions whose lease expired as failed, in batches, each moved on its
/// own so that the rollups follow.
pub async fn reap(db: &DatabaseConnection) -> ApiResult<u64> {
    let now = crate::db::now();
    let orphaned = || {
        Condition::all()
            .add(execution::Column::Status.is_in(["queued", "running"]))
            .add(execution::Column::LeaseExpiresAt.lt(now))
    };
    let ids: Vec<String> = execution::Entity::find()
        .select_only()
        .column(execution::Column::Id)
        .filter(orphaned())
        .limit(BATCH)
        .into_tuple()
        .all(db)
        .await?;
    let mut reaped = 0;
    for id in ids {
        let sets = vec![
            (
                execution::Column::Error,
                Expr::value("Execution interrupted: its replica stopped renewing the lease"),
            ),
            (execution::Column::FinishedAt, Expr::value(now)),
            (
                execution::Column::LeaseExpiresAt,
                Expr::value(Option::<chrono::DateTime<chrono::Utc>>::None),
            ),
        ];
        if recorder::transition(db, &id, "failed", sets, orphaned()).await? {
            reaped += 1;
        }
    }
    Ok(reaped)
}

/// Deletes up to `BATCH` rows of `E` older than `cutoff` per transaction, taking what they
/// counted (`key`) out of the rollups. The rows deleted are the ones returned, so a
/// concurrent expiry on another replica never subtracts twice.
async fn expire_counted<E>(
    db: &DatabaseConnection,
    id: E::Column,
    time: E::Column,
    cutoff: chrono::DateTime<chrono::Utc>,
    key: impl Fn(&E::Model) -> (Key, Tally),
) -> ApiResult<u64>
where
    E: EntityTrait,
    E::Model: FromQueryResult,
{
    let mut total = 0u64;
    loop {
        let ids: Vec<String> = E::find()
            .select_only()
            .column(id)
            .filter(time.lt(cutoff))
            .limit(BATCH)
            .into_tuple()
            .all(db)
            .await?;
        if ids.is_empty() {
            break;
        }
        let statement = Query::delete()
            .from_table(E::default())
            .cond_where(Condition::all().add(id.is_in(ids)).add(time.lt(cutoff)))
            .returning_all()
            .to_owned();
        let txn = db.begin().await?;
        let rows = txn
            .query_all(db.get_database_backend().build(&statement))
            .await?;
        let mut deltas = Deltas::default();
        for row in &rows {
            let (k, t) = key(&E::Model::from_query_result(row, "")?);
            deltas.add(k, t.negated());
        }
        deltas.apply(&txn).await?;
        txn.commit().await?;
        let n = rows.len() as u64;
        total += n;
        if n < BATCH {
            break;
        }
    }
    Ok(total)
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

/// Deletes records older than `retention`, in batches of 500, and the rollup rows left
/// counting nothing.
pub async fn expire(db: &DatabaseConnection, retention: Duration) -> ApiResult<u64> {
    let cutoff = crate::db::now()
        - chrono::Duration::from_std(retention).unwrap_or(chrono::Duration::days(30));
    let mut total = 0;
    total += expire_counted::<monitoring_message::Entity>(
        db,
        monitoring_message::Column::Id,
        monitoring_message::Column::Timestamp,
        cutoff,
        |m| {
            let key = Key {
                workspace: m.workspace_uuid.clone(),
                kind: rollup::MESSAGE,
                hour: rollup::hour_of(m.timestamp),
                bot_id: m.bot_id.clone(),
                pipeline_id: m.pipeline_id.clone(),
                mode: m.mode.clone(),
                status: m.status.clone(),
                model_name: String::new(),
            };
            (key, Tally::one())
        },
    )
    .await?;
    total += expire_counted::<llm_call::Entity>(
        db,
        llm_call::Column::Id,
        llm_call::Column::Timestamp,
        cutoff,
        |c| {
            let key = Key {
                workspace: c.workspace_uuid.clone(),
                kind: rollup::LLM_CALL,
                hour: rollup::hour_of(c.timestamp),
                bot_id: c.bot_id.clone(),
                pipeline_id: c.pipeline_id.clone(),
                mode: c.mode.clone(),
                status: c.status.clone(),
                model_name: c.model_name.clone(),
            };
            let tally = Tally {
                n: 1,
                input_tokens: c.input_tokens,
                output_tokens: c.output_tokens,
                total_tokens: c.total_tokens,
            };
            (key, tally)
        },
    )
    .await?;
    total += expire_table!(
        db,
        monitoring_error,
        monitoring_error::Column::Id,
        monitoring_error::Column::Timestamp,
        cutoff
    );
    total += expire_counted::<execution::Entity>(
        db,
        execution::Column::Id,
        execution::Column::StartedAt,
        cutoff,
        |e| (Key::execution(e), Tally::of_execution(e)),
    )
    .await?;
    let sessions = monitoring_session::Entity::delete_many()
        .filter(monitoring_session::Column::LastActivity.lt(cutoff))
        .exec(db)
        .await?;
    let traces = route_trace::Entity::delete_many()
        .filter(route_trace::Column::Timestamp.lt(cutoff))
        .exec(db)
        .await?;
    rollup::prune(db, rollup::hour_of(cutoff)).await?;
    Ok(total + sessions.rows_affected + traces.rows_affected)
}
