use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "plugin_settings")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub workspace_uuid: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub plugin_author: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub plugin_name: String,
    pub installation_uuid: String,
    pub enabled: bool,
    pub priority: i32,
    pub config: Json,
    pub install_source: String,
    pub install_info: Json,
    pub manifest: Json,
    pub artifact_digest: String,
    pub runtime_revision: i32,
    pub package: Vec<u8>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
