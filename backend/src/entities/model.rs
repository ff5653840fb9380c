use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "models")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub uuid: String,
    pub workspace_uuid: String,
    pub provider_uuid: String,
    /// `llm`, `embedding` or `rerank`.
    pub kind: String,
    pub name: String,
    pub abilities: Json,
    pub context_length: Option<i32>,
    pub reasoning_config: Json,
    pub extra_args: Json,
    pub prefered_ranking: i32,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
