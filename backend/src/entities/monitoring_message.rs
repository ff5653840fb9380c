use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "monitoring_messages")]
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
    pub role: String,
    pub message_content: String,
    pub status: String,
    pub level: String,
    pub mode: String,
    pub platform: Option<String>,
    pub user_id: Option<String>,
    pub user_name: Option<String>,
    pub runner_name: Option<String>,
    pub event_id: Option<String>,
    pub parent_message_id: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
