//! Hourly rollups: per Workspace, kind, hour, bot, pipeline, mode, status (and model), the
//! number of records and their token sums. List totals and summaries read these instead of
//! counting every record: a year of hours is thousands of rows, not millions. Database
//! triggers keep them in step with every write to the records (migration 000006); reads add
//! the records of the partial hours at a window's edges (`split`).

use chrono::{DateTime, Duration, Utc};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, DatabaseConnection, DbErr, EntityTrait,
    PaginatorTrait, QueryFilter, TransactionTrait,
};

use super::filter::{Mode, MonitoringFilter, Window};
use crate::entities::monitoring_rollup as rollup;

pub use crate::entities::monitoring_rollup::RollupKind;
pub const EXECUTION: RollupKind = RollupKind::Execution;
pub const MESSAGE: RollupKind = RollupKind::Message;
pub const LLM_CALL: RollupKind = RollupKind::LlmCall;

/// Hours since the Unix epoch.
pub fn hour_of(t: DateTime<Utc>) -> i64 {
    t.timestamp().div_euclid(3600)
}

fn hour_start(hour: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(hour.saturating_mul(3600), 0).unwrap_or_default()
}

/// A count and token sums.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub n: i64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub total_tokens: i64,
}

impl Tally {
    /// The count as the API reports it (never negative).
    pub fn count(&self) -> u64 {
        u64::try_from(self.n).unwrap_or(0)
    }
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, o: Self) {
        self.n += o.n;
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.total_tokens += o.total_tokens;
    }
}

/// A window divided into whole hours (read from the rollups; `None` bounds are open) and the
/// partial hours at its edges (read from the records).
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    pub hours: Option<(Option<i64>, Option<i64>)>,
    pub edges: Vec<Window>,
}

impl Split {
    /// Everything from the records.
    pub fn raw(w: Window) -> Self {
        Self {
            hours: None,
            edges: vec![w],
        }
    }
}

/// Splits an inclusive window: whole hours `first..end` and the records before `first` and
/// from `end`'s start on. Stored times have microsecond precision.
pub fn split(w: Window) -> Split {
    let first = w.start.map(|s| {
        let h = hour_of(s);
        if hour_start(h) == s {
            h
        } else {
            h + 1
        }
    });
    let end = w.end.map(hour_of);
    if let (Some(a), Some(b)) = (first, end) {
        if a >= b {
            return Split::raw(w);
        }
    }
    let mut edges = Vec::new();
    if let (Some(s), Some(a)) = (w.start, first) {
        if s < hour_start(a) {
            edges.push(Window {
                start: Some(s),
                end: Some(hour_start(a) - Duration::microseconds(1)),
            });
        }
    }
    if let (Some(e), Some(b)) = (w.end, end) {
        edges.push(Window {
            start: Some(hour_start(b)),
            end: Some(e),
        });
    }
    Split {
        hours: Some((first, end)),
        edges,
    }
}

/// Whether the rollups can answer `f` for `kind`: they keep no sessions, and the status they
/// keep is the record's own (an execution's, not a message's owning execution's).
pub fn answers(kind: RollupKind, f: &MonitoringFilter) -> bool {
    f.session_ids.is_empty() && (kind == EXECUTION || f.statuses.is_empty())
}

/// The rollup rows of `kind` in whole hours `hours` that match `f`.
pub fn condition(
    workspace: &str,
    kind: RollupKind,
    (first, end): (Option<i64>, Option<i64>),
    f: &MonitoringFilter,
) -> Condition {
    let mut cond = Condition::all()
        .add(rollup::Column::WorkspaceUuid.eq(workspace))
        .add(rollup::Column::Kind.eq(kind));
    if let Some(a) = first {
        cond = cond.add(rollup::Column::Hour.gte(a));
    }
    if let Some(b) = end {
        cond = cond.add(rollup::Column::Hour.lt(b));
    }
    if !f.bot_ids.is_empty() {
        cond = cond.add(rollup::Column::BotId.is_in(f.bot_ids.clone()));
    }
    if !f.pipeline_ids.is_empty() {
        cond = cond.add(rollup::Column::PipelineId.is_in(f.pipeline_ids.clone()));
    }
    match f.mode() {
        Mode::All => {}
        Mode::Real => cond = cond.add(rollup::Column::Mode.eq("real")),
        Mode::Debug => cond = cond.add(rollup::Column::Mode.eq("debug")),
    }
    if kind == EXECUTION && !f.statuses.is_empty() {
        cond = cond.add(rollup::Column::Status.is_in(f.statuses.iter().map(|s| s.as_str())));
    }
    cond
}

/// Replaces every rollup row with totals recomputed from the records, in one transaction.
/// Returns the number of rollup rows.
pub async fn rebuild(db: &DatabaseConnection) -> Result<u64, DbErr> {
    let txn = db.begin().await?;
    for sql in migration::rollups::rebuild_statements(db.get_database_backend()) {
        txn.execute_unprepared(&sql).await?;
    }
    txn.commit().await?;
    // Fresh statistics (the planner otherwise still sees the table as it was) and, on
    // PostgreSQL, a visibility map, so reads stay index-only.
    let refresh = match db.get_database_backend() {
        sea_orm::DbBackend::Postgres => "VACUUM (ANALYZE) monitoring_rollups",
        _ => "ANALYZE monitoring_rollups",
    };
    db.execute_unprepared(refresh).await?;
    rollup::Entity::find().count(db).await
}

/// Drops rows that count nothing any more (statuses an execution moved away from, expired
/// records) from hours before `before`.
pub async fn prune(db: &impl ConnectionTrait, before: i64) -> Result<u64, DbErr> {
    Ok(rollup::Entity::delete_many()
        .filter(rollup::Column::Hour.lt(before))
        .filter(rollup::Column::N.eq(0))
        .filter(rollup::Column::TotalTokens.eq(0))
        .exec(db)
        .await?
        .rows_affected)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn t(h: u32, m: u32, s: u32, us: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 30, h, m, s).unwrap() + Duration::microseconds(us)
    }

    #[test]
    fn whole_hours_inside_a_window_come_from_the_rollups() {
        let w = Window {
            start: Some(t(6, 30, 0, 0)),
            end: Some(t(9, 15, 0, 0)),
        };
        let s = split(w);
        assert_eq!(
            s.hours,
            Some((Some(hour_of(t(7, 0, 0, 0))), Some(hour_of(t(9, 0, 0, 0)))))
        );
        assert_eq!(
            s.edges,
            vec![
                Window {
                    start: Some(t(6, 30, 0, 0)),
                    end: Some(t(6, 59, 59, 999_999)),
                },
                Window {
                    start: Some(t(9, 0, 0, 0)),
                    end: Some(t(9, 15, 0, 0)),
                },
            ]
        );
    }

    #[test]
    fn aligned_and_open_bounds_need_no_start_edge() {
        let s = split(Window {
            start: Some(t(7, 0, 0, 0)),
            end: None,
        });
        assert_eq!(s.hours, Some((Some(hour_of(t(7, 0, 0, 0))), None)));
        assert!(s.edges.is_empty());
        let all = split(Window::default());
        assert_eq!(all.hours, Some((None, None)));
        assert!(all.edges.is_empty());
    }

    #[test]
    fn a_window_inside_one_hour_is_read_from_records() {
        let w = Window {
            start: Some(t(6, 10, 0, 0)),
            end: Some(t(6, 50, 0, 0)),
        };
        assert_eq!(split(w), Split::raw(w));
        let w = Window {
            start: Some(t(6, 10, 0, 0)),
            end: Some(t(7, 0, 0, 0)),
        };
        // 06:10–07:00 holds no whole hour: hour 6 is partial, 07:00:00 opens hour 7.
        assert_eq!(split(w), Split::raw(w));
    }
}
