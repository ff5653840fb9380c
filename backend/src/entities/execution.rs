use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "monitoring_executions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub workspace_uuid: String,
    pub source: String,
    pub mode: String,
    pub status: String,
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
