use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "models")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub uuid: String,
    pub workspace_uuid: String,
    pub provider_uuid: String,
    pub kind: ModelKind,
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

/// What a model is used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::None)")]
pub enum ModelKind {
    #[sea_orm(string_value = "llm")]
    Llm,
    #[sea_orm(string_value = "embedding")]
    Embedding,
    #[sea_orm(string_value = "rerank")]
    Rerank,
}

impl ModelKind {
    pub const ALL: [ModelKind; 3] = [Self::Llm, Self::Embedding, Self::Rerank];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Llm => "llm",
            Self::Embedding => "embedding",
            Self::Rerank => "rerank",
        }
    }

    /// The requester `support_type` value for this kind.
    pub fn support_type(self) -> &'static str {
        match self {
            Self::Llm => "llm",
            Self::Embedding => "text-embedding",
            Self::Rerank => "rerank",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == value)
    }
}
