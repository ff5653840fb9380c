use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "monitoring_executions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub workspace_uuid: String,
    pub source: String,
    pub mode: ExecutionMode,
    pub status: ExecutionStatus,
    pub bot_id: String,
    pub bot_name: String,
    pub pipeline_id: String,
    pub pipeline_name: String,
    pub session_id: String,
    pub event_id: Option<String>,
    pub message_id: Option<String>,
    pub progress_event: Option<String>,
    pub error: Option<String>,
    pub owner: Option<String>,
    pub lease_expires_at: Option<DateTimeUtc>,
    pub started_at: DateTimeUtc,
    pub finished_at: Option<DateTimeUtc>,
    pub duration_ms: Option<i64>,
    /// Its LLM calls and their tokens, kept by the recorder.
    pub llm_calls: i64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub total_tokens: i64,
    /// The input's text, cut to 160 characters.
    pub input_preview: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

// Where an execution is in its life; the doc line below is its OpenAPI description.
/// Execution status groups.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    EnumIter,
    DeriveActiveEnum,
    Serialize,
    Deserialize,
    ToSchema,
)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
#[serde(rename_all = "lowercase")]
// The API has always called it `Status` (the filter of the executions list).
#[schema(as = Status)]
pub enum ExecutionStatus {
    #[sea_orm(string_value = "queued")]
    Queued,
    #[sea_orm(string_value = "running")]
    Running,
    #[sea_orm(string_value = "completed")]
    Completed,
    #[sea_orm(string_value = "failed")]
    Failed,
    #[sea_orm(string_value = "cancelled")]
    Cancelled,
    #[sea_orm(string_value = "ignored")]
    Ignored,
}

impl ExecutionStatus {
    pub const ALL: [ExecutionStatus; 6] = [
        Self::Queued,
        Self::Running,
        Self::Completed,
        Self::Failed,
        Self::Cancelled,
        Self::Ignored,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::Ignored => "ignored",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == value)
    }

    /// Still in flight.
    pub fn is_active(self) -> bool {
        matches!(self, Self::Queued | Self::Running)
    }
}

/// Real traffic, or the web UI's debug chat and runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
pub enum ExecutionMode {
    #[sea_orm(string_value = "real")]
    Real,
    #[sea_orm(string_value = "debug")]
    Debug,
}

impl ExecutionMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Real => "real",
            Self::Debug => "debug",
        }
    }
}
