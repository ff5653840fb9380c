//! Bot, adapter and dry-run shapes.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;
use validator::Validate;

use super::adapters::Adapter;
use super::engine::Step;
use super::routes::{Route, RouteInput, TargetType};
use crate::catalog::{Name, PageInfo};

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Bot {
    pub uuid: String,
    pub workspace_uuid: String,
    pub name: String,
    pub description: String,
    pub adapter: String,
    /// Validated against the adapter's schema; secret fields are always `***`, and every
    /// value is for callers without `resource.manage`.
    #[schema(value_type = Object)]
    pub adapter_config: Value,
    pub enable: bool,
    /// Message routes, in order.
    pub event_bindings: Vec<Route>,
    /// Where the platform sends events for this bot.
    pub webhook_url: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BotList {
    pub bots: Vec<Bot>,
    #[serde(flatten)]
    pub page: PageInfo,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RuntimeValues {
    pub webhook_url: String,
    pub webhook_full_url: String,
    /// The bot's own id on its platform, once the adapter has learnt it.
    pub bot_account_id: Option<String>,
    /// What the adapter is doing (null before it first ran).
    pub state: Option<super::status::AdapterStatus>,
    /// The adapter's recent log (connection failures, refused inbound requests), oldest first.
    pub logs: Vec<super::status::LogEntry>,
    /// `web_page_bot`: the HTML to paste into a page.
    pub embed_code: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BotDetail {
    #[serde(flatten)]
    pub bot: Bot,
    pub adapter_runtime_values: RuntimeValues,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BotEnvelope {
    pub bot: BotDetail,
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateBot)]
pub struct CreateBotBody {
    #[schema(value_type = String)]
    pub name: Name,
    #[validate(length(max = 255))]
    pub description: Option<String>,
    #[validate(length(min = 1, max = 255))]
    pub adapter: String,
    #[schema(value_type = Object)]
    pub adapter_config: Value,
    #[serde(default)]
    pub enable: bool,
    /// Omitted, null or empty: two default routes to the default pipeline.
    pub event_bindings: Option<Vec<RouteInput>>,
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
#[schema(as = UpdateBot)]
pub struct UpdateBotBody {
    #[schema(value_type = Option<String>)]
    pub name: Option<Name>,
    #[validate(length(max = 255))]
    pub description: Option<String>,
    #[validate(length(min = 1, max = 255))]
    pub adapter: Option<String>,
    /// `***` in a secret field keeps the stored value.
    #[schema(value_type = Option<Object>)]
    pub adapter_config: Option<Value>,
    pub enable: Option<bool>,
    /// A list replaces the routes (`[]` clears them); null or absent leaves them unchanged.
    pub event_bindings: Option<Vec<RouteInput>>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AdapterList {
    pub adapters: Vec<Adapter>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AdapterEnvelope {
    pub adapter: Adapter,
}

/// A hypothetical event to route.
#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct DryRunRequest {
    #[validate(length(min = 1, max = 255))]
    pub event_type: String,
    /// The event (`group`, `sender`, `message_chain` …).
    #[schema(value_type = Option<Object>)]
    pub event_data: Option<Map<String, Value>>,
    /// Alias of `event_data`.
    #[schema(value_type = Option<Object>)]
    pub payload: Option<Map<String, Value>>,
    /// `bot_account_id` here makes `is_at_bot` computable.
    #[schema(value_type = Option<Object>)]
    pub context: Option<Map<String, Value>>,
    /// Draft routes to try instead of the saved ones.
    pub event_bindings: Option<Vec<RouteInput>>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DryRunTarget {
    pub target_type: TargetType,
    pub target_uuid: Option<String>,
    pub target_name: Option<String>,
    pub kind: &'static str,
}

/// The routing decision with per-route diagnostics (reference bots_pipelines §2.6).
#[derive(Debug, Serialize, ToSchema)]
pub struct DryRunResult {
    pub matched: bool,
    pub binding_id: Option<String>,
    pub matched_binding_id: Option<String>,
    pub matched_binding_index: Option<usize>,
    pub event_pattern: Option<String>,
    pub target_type: Option<TargetType>,
    pub target_uuid: Option<String>,
    pub target: Option<DryRunTarget>,
    pub reason: String,
    /// `route_not_found`, `processor_not_found`, or null.
    pub failure_code: Option<String>,
    pub diagnostic_steps: Vec<String>,
    pub diagnostic_details: Vec<Step>,
}
