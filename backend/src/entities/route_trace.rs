use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "route_traces")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub workspace_uuid: String,
    pub bot_uuid: String,
    pub timestamp: DateTimeUtc,
    pub event_type: String,
    pub status: String,
    pub binding_id: Option<String>,
    pub event_pattern: Option<String>,
    pub target_type: Option<String>,
    pub target_uuid: Option<String>,
    pub failure_code: Option<String>,
    pub reason: String,
    pub run_id: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
