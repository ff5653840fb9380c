//! Provider and model shapes.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use validator::Validate;

use super::requesters::Requester;
use crate::catalog::{Name, PageInfo};

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Provider {
    pub uuid: String,
    pub workspace_uuid: String,
    pub name: String,
    pub requester: String,
    pub base_url: String,
    /// `***` per key for callers without `provider_secret.manage`.
    pub api_keys: Vec<String>,
    #[schema(value_type = Object)]
    pub config: Value,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Model counts (on provider reads; absent where a provider is embedded in a model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm_count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding_count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rerank_count: Option<u64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProviderList {
    pub providers: Vec<Provider>,
    #[serde(flatten)]
    pub page: PageInfo,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProviderEnvelope {
    pub provider: Provider,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Created {
    pub uuid: String,
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct CreateProvider {
    #[schema(value_type = String)]
    pub name: Name,
    #[validate(length(min = 1, max = 255))]
    pub requester: String,
    #[validate(length(min = 1, max = 512))]
    pub base_url: String,
    #[serde(default)]
    #[validate(length(max = 32))]
    pub api_keys: Vec<String>,
    /// Requester config fields other than `base_url` (e.g. `timeout`).
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub config: Option<Value>,
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct UpdateProvider {
    #[schema(value_type = Option<String>)]
    pub name: Option<Name>,
    #[validate(length(min = 1, max = 255))]
    pub requester: Option<String>,
    #[validate(length(min = 1, max = 512))]
    pub base_url: Option<String>,
    /// `***` entries keep the stored key at the same position.
    #[validate(length(max = 32))]
    pub api_keys: Option<Vec<String>>,
    #[schema(value_type = Option<Object>)]
    pub config: Option<Value>,
}

/// `?include_secret=` on reads: `false` masks even for callers who may see secrets.
#[derive(Debug, Clone, Copy, Default, Deserialize, IntoParams, Validate)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct SecretQuery {
    pub include_secret: Option<bool>,
}

/// List query: paging, `provider_uuid` filter, `include_secret`.
#[derive(Debug, Clone, Default, Deserialize, IntoParams, Validate)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ModelListQuery {
    pub provider_uuid: Option<uuid::Uuid>,
    pub include_secret: Option<bool>,
    #[validate(range(min = 1, max = 500))]
    pub limit: Option<u64>,
    #[validate(range(max = 10_000_000))]
    pub offset: Option<u64>,
}

#[derive(Debug, Clone, Default, Deserialize, IntoParams, Validate)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ProviderListQuery {
    pub include_secret: Option<bool>,
    #[validate(range(min = 1, max = 500))]
    pub limit: Option<u64>,
    #[validate(range(max = 10_000_000))]
    pub offset: Option<u64>,
}

/// `?cascade=true|false` (exactly those values).
#[derive(Debug, Clone, Copy, Default, Deserialize, IntoParams, Validate)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct CascadeQuery {
    /// Delete the provider's models too, in the same transaction.
    pub cascade: Option<bool>,
}

/// A model; LLM-only fields are absent for embedding and rerank models.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ModelDto {
    pub uuid: String,
    pub workspace_uuid: String,
    pub name: String,
    pub provider_uuid: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abilities: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_length: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub reasoning_config: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_capabilities: Option<ReasoningCapabilities>,
    #[schema(value_type = Object)]
    pub extra_args: Value,
    pub prefered_ranking: i32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The provider (on lists without `provider_uuid` and on single reads).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<Box<Provider>>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ReasoningCapabilities {
    pub supported: bool,
    pub levels: Vec<&'static str>,
    pub source: &'static str,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ModelList {
    pub models: Vec<ModelDto>,
    #[serde(flatten)]
    pub page: PageInfo,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ModelEnvelope {
    pub model: ModelDto,
}

/// Create or update a model. On update every field is optional.
#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct ModelInput {
    /// The upstream model id.
    #[schema(value_type = Option<String>)]
    pub name: Option<Name>,
    pub provider_uuid: Option<uuid::Uuid>,
    /// LLM only: `func_call`, `vision`, `reasoning`.
    #[validate(length(max = 8))]
    pub abilities: Option<Vec<String>>,
    /// LLM only.
    #[validate(range(min = 1, max = 100_000_000))]
    pub context_length: Option<i32>,
    /// LLM only: `{"level": …}` or `{"budget_tokens": n}`.
    #[schema(value_type = Option<Object>)]
    pub reasoning_config: Option<Value>,
    /// Extra request body fields; `***` in secret fields keeps the stored value.
    #[schema(value_type = Option<Object>)]
    pub extra_args: Option<Value>,
    #[validate(range(min = -1000, max = 1000))]
    pub prefered_ranking: Option<i32>,
}

#[derive(Debug, Default, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct TestModelInput {
    /// Extra request fields for this call only.
    #[schema(value_type = Option<Object>)]
    pub extra_args: Option<serde_json::Map<String, Value>>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TestResult {
    pub latency_ms: u64,
}

/// What a cascade delete removed.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeletedModels {
    pub provider: String,
    pub llm: Vec<String>,
    pub embedding: Vec<String>,
    pub rerank: Vec<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PipelineRef {
    pub uuid: String,
    pub name: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DeleteReport {
    pub deleted: DeletedModels,
    /// Whether the Workspace's starred model was among the deleted ones.
    pub starred_cleared: bool,
    /// Pipelines whose config names a deleted model.
    pub referencing_pipelines: Vec<PipelineRef>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct StarredModel {
    /// An LLM model of this Workspace, or null.
    pub uuid: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RequesterList {
    pub requesters: Vec<Requester>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RequesterEnvelope {
    pub requester: Requester,
}

#[derive(Debug, Clone, Default, Deserialize, IntoParams, Validate)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct RequesterQuery {
    /// `llm`, `text-embedding` or `rerank`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
}
