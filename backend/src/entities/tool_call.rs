use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "monitoring_tool_calls")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub workspace_uuid: String,
    pub execution_id: Option<String>,
    pub timestamp: DateTimeUtc,
    pub bot_id: String,
    pub bot_name: String,
    pub pipeline_id: String,
    pub pipeline_name: String,
    pub session_id: String,
    pub tool_name: String,
    /// `mcp` (plugins add `plugin`).
    pub tool_source: String,
    /// The server (or plugin) the tool came from.
    pub source_name: String,
    pub duration: i64,
    /// `success` or `error`.
    pub status: String,
    pub mode: String,
    pub arguments: Option<String>,
    pub result: Option<String>,
    pub error_message: Option<String>,
    pub message_id: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
