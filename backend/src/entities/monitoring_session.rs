use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "monitoring_sessions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub workspace_uuid: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub bot_id: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub session_id: String,
    pub bot_name: String,
    pub pipeline_id: String,
    pub pipeline_name: String,
    pub message_count: i64,
    pub start_time: DateTimeUtc,
    pub last_activity: DateTimeUtc,
    pub is_active: bool,
    pub platform: Option<String>,
    pub user_id: Option<String>,
    pub user_name: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
