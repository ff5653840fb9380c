use sea_orm::entity::prelude::*;

/// Counts and token sums of one kind of record per hour and filterable key.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "monitoring_rollups")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub workspace_uuid: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub kind: RollupKind,
    /// Hours since the Unix epoch.
    #[sea_orm(primary_key, auto_increment = false)]
    pub hour: i64,
    #[sea_orm(primary_key, auto_increment = false)]
    pub bot_id: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub pipeline_id: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub mode: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub status: String,
    /// The model of LLM calls; empty for other kinds.
    #[sea_orm(primary_key, auto_increment = false)]
    pub model_name: String,
    pub n: i64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub total_tokens: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

/// The kind of record a rollup row counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
pub enum RollupKind {
    #[sea_orm(string_value = "execution")]
    Execution,
    #[sea_orm(string_value = "message")]
    Message,
    #[sea_orm(string_value = "llm_call")]
    LlmCall,
}
