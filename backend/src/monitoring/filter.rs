//! The filters every monitoring read shares, validated (bad dates, unknown statuses,
//! oversized windows → 400), and their translation into conditions per table.

use chrono::{DateTime, Duration, NaiveDateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, Condition};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use validator::{Validate, ValidationError};

use crate::error::{ApiError, ApiResult};

pub const MAX_WINDOW_DAYS: i64 = 365;
pub const MAX_LIMIT: u64 = 1000;

/// Execution status groups.
pub use crate::entities::execution::ExecutionStatus as Status;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    All,
    Real,
    Debug,
}

/// Time-series bucket size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Bucket {
    #[default]
    Hour,
    Day,
}

impl Bucket {
    /// The first hour of the bucket holding `hour`.
    pub fn first_hour(self, hour: i64) -> i64 {
        match self {
            Self::Hour => hour,
            Self::Day => hour.div_euclid(24) * 24,
        }
    }

    pub fn hours(self) -> i64 {
        match self {
            Self::Hour => 1,
            Self::Day => 24,
        }
    }

    /// The start of the hour `hour`.
    pub fn start(hour: i64) -> chrono::DateTime<chrono::Utc> {
        chrono::DateTime::from_timestamp(hour.saturating_mul(3600), 0).unwrap_or_default()
    }
}

/// Filters of monitoring reads. LangBot's camelCase names are accepted too.
#[derive(Debug, Clone, Default, Deserialize, IntoParams, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct MonitoringFilter {
    /// Bots (repeat the key, or a list over MCP).
    #[serde(default, alias = "botId", alias = "bot_id")]
    #[validate(length(max = 100), custom(function = "bot_ids"))]
    pub bot_ids: Vec<String>,
    #[serde(default, alias = "pipelineId", alias = "pipeline_id")]
    #[validate(length(max = 100), custom(function = "pipeline_ids"))]
    pub pipeline_ids: Vec<String>,
    #[serde(default, alias = "sessionId", alias = "session_id")]
    #[validate(length(max = 100), custom(function = "session_ids"))]
    pub session_ids: Vec<String>,
    /// RFC 3339 (or ISO 8601 without offset, read as UTC).
    #[serde(default, alias = "startTime")]
    pub start_time: Option<String>,
    #[serde(default, alias = "endTime")]
    pub end_time: Option<String>,
    /// Execution status groups.
    #[serde(default, alias = "status", alias = "execution_statuses")]
    #[param(inline)]
    pub statuses: Vec<Status>,
    #[serde(default)]
    #[param(inline)]
    pub mode: Option<Mode>,
    /// LangBot's execution kinds: `pipeline`, `agent`, `event` or `all` (the default; any other
    /// value counts as `all`, as LangBot does). Every execution here is a pipeline run, so
    /// `agent` and `event` select none.
    #[serde(default)]
    #[validate(length(max = 32))]
    pub source: Option<String>,
    #[validate(range(min = 1, max = 1000))]
    pub limit: Option<u64>,
    #[validate(range(max = 10_000_000))]
    pub offset: Option<u64>,
    /// Time-series buckets of token-statistics (`hour` by default).
    #[serde(default)]
    #[param(inline)]
    pub bucket: Option<Bucket>,
}

impl MonitoringFilter {
    /// Whether `source` leaves out pipeline runs (the only executions this server records).
    pub fn excludes_pipeline_runs(&self) -> bool {
        matches!(self.source.as_deref(), Some("agent" | "event"))
    }
}

fn each(
    ids: &[String],
    ok: impl Fn(&str) -> bool,
    rule: &'static str,
) -> Result<(), ValidationError> {
    match ids.iter().all(|id| ok(id)) {
        true => Ok(()),
        false => Err(ValidationError::new("id").with_message(rule.into())),
    }
}

/// Bot ids: UUIDs, or the debug chat's `websocket-proxy-bot`.
fn bot_ids(ids: &[String]) -> Result<(), ValidationError> {
    each(
        ids,
        |id| {
            (1..=64).contains(&id.len())
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        },
        "each bot id must be 1 to 64 letters, digits, '-' or '_'",
    )
}

fn pipeline_ids(ids: &[String]) -> Result<(), ValidationError> {
    each(
        ids,
        |id| uuid::Uuid::parse_str(id).is_ok(),
        "each pipeline id must be a UUID",
    )
}

fn session_ids(ids: &[String]) -> Result<(), ValidationError> {
    each(
        ids,
        |id| (1..=255).contains(&id.len()) && !id.chars().any(char::is_control),
        "each session id must be 1 to 255 characters without control characters",
    )
}

/// A validated time window.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Window {
    pub start: Option<DateTime<Utc>>,
    pub end: Option<DateTime<Utc>>,
}

/// An RFC 3339 time (or ISO 8601 without offset, read as UTC); 400 naming `field` otherwise.
pub fn parse_time(raw: &str, field: &str) -> ApiResult<DateTime<Utc>> {
    let raw = raw.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(raw) {
        return Ok(t.with_timezone(&Utc));
    }
    for fmt in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M:%S",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(raw, fmt) {
            return Ok(t.and_utc());
        }
    }
    Err(
        ApiError::invalid(format!("{field} is not an ISO 8601 time: {raw}"))
            .field(field, "must be an ISO 8601 time"),
    )
}

impl MonitoringFilter {
    pub fn limit(&self, default: u64) -> u64 {
        self.limit.unwrap_or(default).clamp(1, MAX_LIMIT)
    }

    pub fn offset(&self) -> u64 {
        self.offset.unwrap_or(0)
    }

    pub fn mode(&self) -> Mode {
        self.mode.unwrap_or_default()
    }

    /// The window, checked: start before end, at most 365 days.
    pub fn window(&self) -> ApiResult<Window> {
        let start = self
            .start_time
            .as_deref()
            .map(|s| parse_time(s, "start_time"))
            .transpose()?;
        let end = self
            .end_time
            .as_deref()
            .map(|s| parse_time(s, "end_time"))
            .transpose()?;
        if let Some(start) = start {
            let until = end.unwrap_or_else(Utc::now);
            if start >= until || until - start > Duration::days(MAX_WINDOW_DAYS) {
                return Err(ApiError::invalid(
                    "Monitoring time range must be positive and no longer than 365 days",
                )
                .field("start_time", "must be before end_time, within 365 days"));
            }
        }
        Ok(Window { start, end })
    }

    /// Rejects the execution filters on reads that have no executions (sessions).
    pub fn no_execution_filters(&self) -> ApiResult<()> {
        if !self.statuses.is_empty() || self.mode() != Mode::All {
            return Err(ApiError::invalid(
                "Session lists do not support execution status or mode filters",
            )
            .field("statuses", "not supported for sessions"));
        }
        Ok(())
    }
}

/// The columns a filtered table offers.
pub struct Columns<C> {
    pub workspace: C,
    pub time: C,
    pub bot: C,
    pub pipeline: C,
    pub session: Option<C>,
    /// The owning execution (for status/mode filters through executions).
    pub execution: Option<C>,
    /// The row's own mode column, when it has one.
    pub mode: Option<C>,
}

/// The condition for `filter` on a table with `cols`. Status filters select rows whose
/// owning execution is in one of the groups.
pub fn condition<C: ColumnTrait + Copy>(
    workspace: &str,
    f: &MonitoringFilter,
    w: Window,
    cols: &Columns<C>,
) -> Condition {
    let mut cond = Condition::all().add(cols.workspace.eq(workspace));
    if let Some(s) = w.start {
        cond = cond.add(cols.time.gte(s));
    }
    if let Some(e) = w.end {
        cond = cond.add(cols.time.lte(e));
    }
    if !f.bot_ids.is_empty() {
        cond = cond.add(cols.bot.is_in(f.bot_ids.clone()));
    }
    if !f.pipeline_ids.is_empty() {
        cond = cond.add(cols.pipeline.is_in(f.pipeline_ids.clone()));
    }
    if let (Some(session), false) = (cols.session, f.session_ids.is_empty()) {
        cond = cond.add(session.is_in(f.session_ids.clone()));
    }
    if let Some(mode_col) = cols.mode {
        match f.mode() {
            Mode::All => {}
            Mode::Real => cond = cond.add(mode_col.eq("real")),
            Mode::Debug => cond = cond.add(mode_col.eq("debug")),
        }
    }
    if let (Some(exec), false) = (cols.execution, f.statuses.is_empty()) {
        cond = cond.add(exec.in_subquery(owning_executions(workspace, &f.statuses)));
    }
    cond
}

fn owning_executions(workspace: &str, statuses: &[Status]) -> sea_orm::sea_query::SelectStatement {
    use crate::entities::execution;
    sea_orm::sea_query::Query::select()
        .column(execution::Column::Id)
        .from(execution::Entity)
        .and_where(Expr::col(execution::Column::WorkspaceUuid).eq(workspace))
        .and_where(Expr::col(execution::Column::Status).is_in(statuses.iter().map(|s| s.as_str())))
        .to_owned()
}
