//! LangBot's shapes for the features this server does not have (empty lists, disabled flags).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use validator::Validate;

/// `{bases: []}`: no knowledge bases.
#[derive(Debug, Serialize, ToSchema)]
pub struct KnowledgeBaseList {
    #[schema(value_type = Vec<Object>)]
    pub bases: Vec<Value>,
}

/// Whether LangBot's old built-in knowledge bases need moving to a plugin: never here.
#[derive(Debug, Serialize, ToSchema)]
pub struct KnowledgeMigrationStatus {
    pub needed: bool,
    pub internal_kb_count: u64,
    pub external_kb_count: u64,
}

/// `{skills: []}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct SkillList {
    #[schema(value_type = Vec<Object>)]
    pub skills: Vec<Value>,
}

/// `{conversations: []}`: the assistant is not available.
#[derive(Debug, Serialize, ToSchema)]
pub struct AssistantConversationList {
    #[schema(value_type = Vec<Object>)]
    pub conversations: Vec<Value>,
}

/// `GET /system/tasks` filters (LangBot's `type` and `kind`).
#[derive(Debug, Default, Deserialize, IntoParams, Validate)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct TaskQuery {
    /// `system` or `user`.
    #[serde(default, rename = "type")]
    #[validate(length(max = 64))]
    pub task_type: Option<String>,
    /// e.g. `plugin-operation`.
    #[serde(default)]
    #[validate(length(max = 64))]
    pub kind: Option<String>,
}

/// `{tasks: [], id_index: 0}`: operations here finish within their request, so no
/// background task is ever pending.
#[derive(Debug, Serialize, ToSchema)]
pub struct TaskList {
    #[schema(value_type = Vec<Object>)]
    pub tasks: Vec<Value>,
    pub id_index: u64,
}

/// Box (LangBot's sandbox runtime): not available, and `hidden` so the UI shows no Box panel.
#[derive(Debug, Serialize, ToSchema)]
pub struct BoxStatus {
    pub available: bool,
    pub enabled: bool,
    pub profile: Option<String>,
    pub recent_error_count: u64,
    pub connector_error: Option<String>,
    pub hidden: bool,
}

impl BoxStatus {
    pub fn unavailable() -> Self {
        Self {
            available: false,
            enabled: false,
            profile: None,
            recent_error_count: 0,
            connector_error: None,
            hidden: true,
        }
    }
}

/// A list answered as a bare JSON array (`[]`), as LangBot's Box sessions and releases are.
#[derive(Debug, Serialize, ToSchema)]
#[serde(transparent)]
#[schema(value_type = Vec<Object>)]
pub struct EmptyArray(pub Vec<Value>);

/// `{repo: null}`: no release information (nothing is fetched from GitHub).
#[derive(Debug, Serialize, ToSchema)]
pub struct RepoInfo {
    #[schema(value_type = Option<Object>)]
    pub repo: Option<Value>,
}

/// LangBot's legacy-pipeline migration preview: nothing to migrate. LangBot's UI checks that
/// `workspace_uuid` is the current Workspace and `total == items.length`.
#[derive(Debug, Serialize, ToSchema)]
pub struct PipelineMigrationPreview {
    pub planner_version: String,
    pub workspace_uuid: String,
    #[schema(value_type = Vec<Object>)]
    pub items: Vec<Value>,
    pub total: u64,
}

/// The feedback filters LangBot's monitoring page sends.
#[derive(Debug, Default, Deserialize, IntoParams, Validate)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct FeedbackQuery {
    #[serde(default, alias = "botId")]
    #[validate(length(max = 100))]
    pub bot_ids: Vec<String>,
    #[serde(default, alias = "pipelineId")]
    #[validate(length(max = 100))]
    pub pipeline_ids: Vec<String>,
    #[serde(default, alias = "startTime")]
    #[validate(length(max = 64))]
    pub start_time: Option<String>,
    #[serde(default, alias = "endTime")]
    #[validate(length(max = 64))]
    pub end_time: Option<String>,
    #[validate(length(max = 16))]
    pub mode: Option<String>,
    /// 1 = like, 2 = dislike.
    #[serde(default, alias = "feedbackType")]
    #[validate(range(min = 1, max = 2))]
    pub feedback_type: Option<u8>,
    #[validate(range(min = 1, max = 1000))]
    pub limit: Option<u64>,
    #[validate(range(max = 10_000_000))]
    pub offset: Option<u64>,
}

impl FeedbackQuery {
    /// The time bounds must be times, as on every monitoring read (there is nothing to filter,
    /// but a mistaken filter is still the caller's to hear about).
    pub fn check_times(&self) -> crate::error::ApiResult<()> {
        use crate::monitoring::filter::parse_time;
        if let Some(start) = &self.start_time {
            parse_time(start, "start_time")?;
        }
        if let Some(end) = &self.end_time {
            parse_time(end, "end_time")?;
        }
        Ok(())
    }
}

/// Feedback totals: no platform adapter here reports likes or dislikes.
#[derive(Debug, Serialize, ToSchema)]
pub struct FeedbackStats {
    pub total_feedback: u64,
    pub total_likes: u64,
    pub total_dislikes: u64,
    pub satisfaction_rate: f64,
    #[schema(value_type = Vec<Object>)]
    pub by_bot: Vec<Value>,
}

/// `{feedback: [], total: 0, limit, offset}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct FeedbackList {
    #[schema(value_type = Vec<Object>)]
    pub feedback: Vec<Value>,
    pub total: u64,
    pub limit: u64,
    pub offset: u64,
}

/// `{credits: null, owner_space_bound: false, is_workspace_owner}`: no LangBot Space account
/// (and so no credits) here.
#[derive(Debug, Serialize, ToSchema)]
pub struct SpaceCredits {
    pub credits: Option<f64>,
    pub owner_space_bound: bool,
    /// Whether the caller owns the Workspace the request runs in.
    pub is_workspace_owner: bool,
}

/// `{survey: null}`: no surveys here.
#[derive(Debug, Serialize, ToSchema)]
pub struct PendingSurvey {
    pub survey: Option<Value>,
}

/// `{admins: []}`: no bot admins here (no admin commands to grant).
#[derive(Debug, Serialize, ToSchema)]
pub struct BotAdminList {
    #[schema(value_type = Vec<Object>)]
    pub admins: Vec<Value>,
}
