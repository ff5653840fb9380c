//! Pipeline shapes.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use validator::Validate;

use super::config::{PipelineConfig, PipelineConfigInput};
use crate::catalog::{Name, PageInfo};
use crate::entities::pipeline;

/// A plugin bound to a pipeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginRef {
    pub author: String,
    pub name: String,
}

/// Which tool sources a pipeline may use (plugins, MCP servers, skills).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ExtensionsPreferences {
    pub enable_all_plugins: bool,
    pub enable_all_mcp_servers: bool,
    pub enable_all_skills: bool,
    pub mcp_resource_agent_read_enabled: bool,
    pub plugins: Vec<PluginRef>,
    pub mcp_servers: Vec<String>,
    pub skills: Vec<String>,
    #[schema(value_type = Vec<Object>)]
    pub mcp_resources: Vec<serde_json::Map<String, serde_json::Value>>,
}

impl Default for ExtensionsPreferences {
    fn default() -> Self {
        Self {
            enable_all_plugins: true,
            enable_all_mcp_servers: true,
            enable_all_skills: true,
            mcp_resource_agent_read_enabled: true,
            plugins: Vec::new(),
            mcp_servers: Vec::new(),
            skills: Vec::new(),
            mcp_resources: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Pipeline {
    pub uuid: String,
    pub workspace_uuid: String,
    pub name: String,
    pub description: String,
    pub emoji: String,
    pub for_version: String,
    pub is_default: bool,
    pub stages: Vec<String>,
    pub config: PipelineConfig,
    pub extensions_preferences: ExtensionsPreferences,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<pipeline::Model> for Pipeline {
    fn from(m: pipeline::Model) -> Self {
        Self {
            uuid: m.uuid,
            workspace_uuid: m.workspace_uuid,
            name: m.name,
            description: m.description,
            emoji: m.emoji,
            for_version: m.for_version,
            is_default: m.is_default,
            stages: serde_json::from_value(m.stages).unwrap_or_default(),
            // Stored configs are always normalized on write.
            config: serde_json::from_value(m.config).unwrap_or_default(),
            extensions_preferences: serde_json::from_value(m.extensions_preferences)
                .unwrap_or_default(),
            created_at: m.created_at,
            updated_at: m.updated_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PipelineList {
    pub pipelines: Vec<Pipeline>,
    #[serde(flatten)]
    pub page: PageInfo,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PipelineEnvelope {
    pub pipeline: Pipeline,
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
#[schema(as = CreatePipeline)]
pub struct CreatePipelineBody {
    #[schema(value_type = String)]
    pub name: Name,
    #[validate(length(max = 255))]
    pub description: Option<String>,
    #[validate(length(min = 1, max = 16))]
    pub emoji: Option<String>,
    /// Omitted sections come from the template; without `config`, the whole template
    /// (its model preset to the Workspace's starred model).
    #[schema(value_type = Option<PipelineConfigInput>)]
    pub config: Option<serde_json::Value>,
    pub extensions_preferences: Option<ExtensionsPreferences>,
    /// Make it the Workspace's default (409 while another default exists).
    #[serde(default)]
    pub is_default: bool,
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
#[schema(as = UpdatePipeline)]
pub struct UpdatePipelineBody {
    #[schema(value_type = Option<String>)]
    pub name: Option<Name>,
    #[validate(length(max = 255))]
    pub description: Option<String>,
    #[validate(length(min = 1, max = 16))]
    pub emoji: Option<String>,
    /// Supplied sections replace the stored ones in full; omitted sections are kept.
    #[schema(value_type = Option<PipelineConfigInput>)]
    pub config: Option<serde_json::Value>,
    pub extensions_preferences: Option<ExtensionsPreferences>,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SortBy {
    #[default]
    CreatedAt,
    UpdatedAt,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, ToSchema)]
pub enum SortOrder {
    #[default]
    #[serde(rename = "DESC", alias = "desc")]
    Desc,
    #[serde(rename = "ASC", alias = "asc")]
    Asc,
}

#[derive(Debug, Clone, Default, Deserialize, IntoParams, Validate)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PipelineListQuery {
    #[param(inline)]
    pub sort_by: Option<SortBy>,
    #[param(inline)]
    pub sort_order: Option<SortOrder>,
    #[validate(range(min = 1, max = 500))]
    pub limit: Option<u64>,
    #[validate(range(max = 10_000_000))]
    pub offset: Option<u64>,
}

/// Routes that target a pipeline, per bot.
#[derive(Debug, Serialize, ToSchema)]
pub struct RoutingBot {
    pub bot_uuid: String,
    pub bot_name: String,
    pub route_ids: Vec<String>,
}

#[derive(Debug, Default, Deserialize, IntoParams, Validate)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DeletePipelineQuery {
    /// Also remove the bot routes that target the pipeline, in the same transaction.
    pub cascade: Option<bool>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PipelineDeleted {
    /// Routes removed by `cascade=true`.
    pub removed_routes: Vec<RoutingBot>,
    /// When the deleted pipeline was the default: the oldest remaining pipeline, now the
    /// default (null when none remains, or when the deleted one was not the default).
    pub new_default_pipeline: Option<crate::providers::dto::PipelineRef>,
}
