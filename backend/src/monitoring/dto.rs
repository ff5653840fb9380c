//! Monitoring shapes (reference monitoring.md, adapted: executions are rows of their own).

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::entities::execution::{ExecutionMode, ExecutionStatus};
use crate::entities::{
    execution, llm_call, monitoring_error, monitoring_message, monitoring_session, tool_call,
};

fn ms(t: chrono::DateTime<chrono::Utc>) -> i64 {
    t.timestamp_millis()
}

/// Token usage.
#[derive(Debug, Clone, Copy, Default, Serialize, ToSchema)]
pub struct Tokens {
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub total_tokens: i64,
}

/// One execution in lists.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ExecutionRow {
    /// `pipeline`.
    pub source: String,
    pub id: String,
    pub status: String,
    pub status_group: String,
    /// `real` or `debug`.
    pub mode: String,
    pub debug: bool,
    pub has_error: bool,
    pub status_reason: Option<String>,
    pub bot_id: String,
    pub bot_name: String,
    pub pipeline_id: String,
    pub pipeline_name: String,
    pub target_kind: String,
    pub target_id: String,
    pub target_name: String,
    pub session_id: String,
    pub event_id: Option<String>,
    pub message_id: Option<String>,
    pub input_preview: Option<String>,
    /// LangBot's row title: the message preview (160 characters), else the pipeline's name.
    pub title: String,
    /// `message.received` when the execution answers a platform event (LangBot's enrichment);
    /// null for debug runs.
    pub event_type: Option<String>,
    pub created_at_ms: i64,
    pub started_at_ms: i64,
    pub finished_at_ms: Option<i64>,
    pub duration_ms: Option<i64>,
    pub usage: Option<Tokens>,
    /// The latest reported stage (`started`, `safety`, `ai`, `output`, `finished`).
    pub progress_event: Option<String>,
}

impl ExecutionRow {
    pub fn new(e: execution::Model, preview: Option<String>, usage: Option<Tokens>) -> Self {
        let title = preview
            .as_deref()
            .map(|p| p.chars().take(160).collect())
            .unwrap_or_else(|| e.pipeline_name.clone());
        Self {
            id: e.id,
            source: e.source,
            has_error: e.status == ExecutionStatus::Failed,
            status_group: e.status.as_str().into(),
            debug: e.mode == ExecutionMode::Debug,
            status: e.status.as_str().into(),
            mode: e.mode.as_str().into(),
            status_reason: e.error,
            target_kind: "pipeline".into(),
            target_id: e.pipeline_id.clone(),
            target_name: e.pipeline_name.clone(),
            bot_id: e.bot_id,
            bot_name: e.bot_name,
            pipeline_id: e.pipeline_id,
            pipeline_name: e.pipeline_name,
            session_id: e.session_id,
            title,
            event_type: e.event_id.as_ref().map(|_| "message.received".into()),
            event_id: e.event_id,
            message_id: e.message_id,
            input_preview: preview,
            created_at_ms: ms(e.started_at),
            started_at_ms: ms(e.started_at),
            finished_at_ms: e.finished_at.map(ms),
            duration_ms: e.duration_ms,
            usage,
            progress_event: e.progress_event,
        }
    }
}

/// Counts per status group.
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
pub struct ExecutionSummary {
    pub total: u64,
    pub queued: u64,
    pub running: u64,
    pub completed: u64,
    pub failed: u64,
    pub cancelled: u64,
    pub ignored: u64,
    /// LangBot's split by kind of execution: every one here is a pipeline run.
    pub by_source: BySource,
    /// The same counts by status group, as LangBot's UI also reads them.
    pub by_status: std::collections::BTreeMap<String, u64>,
    /// Runs waiting for user input: none here (no interactive agent runs).
    pub waiting: u64,
    /// `completed / (completed + failed) * 100` to 2 decimals; `null` with neither.
    pub success_rate: Option<f64>,
    /// `completed + failed`.
    pub denominator: u64,
}

impl ExecutionSummary {
    /// Fills the fields derived from the status counts (LangBot's summary shape).
    pub fn derive(mut self) -> Self {
        self.by_source = BySource {
            agent: 0,
            pipeline: self.total,
        };
        self.by_status = [
            ("queued", self.queued),
            ("running", self.running),
            ("completed", self.completed),
            ("failed", self.failed),
            ("cancelled", self.cancelled),
            ("ignored", self.ignored),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        self.denominator = self.completed + self.failed;
        self.success_rate = (self.denominator > 0)
            .then(|| (self.completed as f64 * 10_000.0 / self.denominator as f64).round() / 100.0);
        self
    }
}

/// Executions by kind (LangBot's `agent` runs and `pipeline` runs).
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
pub struct BySource {
    pub agent: u64,
    pub pipeline: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Summary {
    pub executions: ExecutionSummary,
    pub tokens: Tokens,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ExecutionPage {
    pub items: Vec<ExecutionRow>,
    pub total: u64,
    pub limit: u64,
    pub offset: u64,
    pub has_more: bool,
    pub summary: Summary,
}

/// A monitoring message.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MessageRow {
    pub id: String,
    pub execution_id: Option<String>,
    pub timestamp: chrono::DateTime<chrono::Utc>,
    pub timestamp_ms: i64,
    pub bot_id: String,
    pub bot_name: String,
    pub pipeline_id: String,
    pub pipeline_name: String,
    pub session_id: String,
    /// `user` or `assistant`.
    pub role: String,
    /// As LangBot stores it: the JSON text of the message chain, or plain text (`Error: …`).
    pub message_content: String,
    pub status: String,
    pub level: String,
    pub mode: String,
    pub platform: Option<String>,
    pub user_id: Option<String>,
    pub user_name: Option<String>,
    pub runner_name: Option<String>,
    pub event_id: Option<String>,
    pub parent_message_id: Option<String>,
}

impl From<monitoring_message::Model> for MessageRow {
    fn from(m: monitoring_message::Model) -> Self {
        Self {
            message_content: m.message_content,
            timestamp_ms: ms(m.timestamp),
            id: m.id,
            execution_id: m.execution_id,
            timestamp: m.timestamp,
            bot_id: m.bot_id,
            bot_name: m.bot_name,
            pipeline_id: m.pipeline_id,
            pipeline_name: m.pipeline_name,
            session_id: m.session_id,
            role: m.role,
            status: m.status,
            level: m.level,
            mode: m.mode,
            platform: m.platform,
            user_id: m.user_id,
            user_name: m.user_name,
            runner_name: m.runner_name,
            event_id: m.event_id,
            parent_message_id: m.parent_message_id,
        }
    }
}

/// One tool call the agent made.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ToolCallRow {
    pub id: String,
    pub execution_id: Option<String>,
    pub timestamp: chrono::DateTime<chrono::Utc>,
    pub bot_id: String,
    pub bot_name: String,
    pub pipeline_id: String,
    pub pipeline_name: String,
    pub session_id: String,
    /// The name the model called.
    pub tool_name: String,
    /// `mcp`.
    pub tool_source: String,
    /// The server the tool came from.
    pub source_name: String,
    /// Milliseconds.
    pub duration: i64,
    /// `success` or `error`.
    pub status: String,
    pub mode: String,
    /// The model's argument JSON (cut at 20,000 characters).
    pub arguments: Option<String>,
    /// The result text (cut at 20,000 characters).
    pub result: Option<String>,
    pub error_message: Option<String>,
    pub message_id: Option<String>,
}

impl From<tool_call::Model> for ToolCallRow {
    fn from(m: tool_call::Model) -> Self {
        Self {
            id: m.id,
            execution_id: m.execution_id,
            timestamp: m.timestamp,
            bot_id: m.bot_id,
            bot_name: m.bot_name,
            pipeline_id: m.pipeline_id,
            pipeline_name: m.pipeline_name,
            session_id: m.session_id,
            tool_name: m.tool_name,
            tool_source: m.tool_source,
            source_name: m.source_name,
            duration: m.duration,
            status: m.status,
            mode: m.mode,
            arguments: m.arguments,
            result: m.result,
            error_message: m.error_message,
            message_id: m.message_id,
        }
    }
}

/// One model call, with `details.timing`, `details.usage` and `details.error`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LlmCallRow {
    pub id: String,
    pub execution_id: Option<String>,
    pub timestamp: chrono::DateTime<chrono::Utc>,
    pub bot_id: String,
    pub bot_name: String,
    pub pipeline_id: String,
    pub pipeline_name: String,
    pub session_id: String,
    pub model_name: String,
    pub model_uuid: Option<String>,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub total_tokens: i64,
    /// Milliseconds.
    pub duration: i64,
    pub status: String,
    pub mode: String,
    pub error_message: Option<String>,
    pub message_id: Option<String>,
    #[schema(value_type = Object)]
    pub details: Option<Value>,
}

impl From<llm_call::Model> for LlmCallRow {
    fn from(m: llm_call::Model) -> Self {
        Self {
            id: m.id,
            execution_id: m.execution_id,
            timestamp: m.timestamp,
            bot_id: m.bot_id,
            bot_name: m.bot_name,
            pipeline_id: m.pipeline_id,
            pipeline_name: m.pipeline_name,
            session_id: m.session_id,
            model_name: m.model_name,
            model_uuid: m.model_uuid,
            input_tokens: m.input_tokens,
            output_tokens: m.output_tokens,
            total_tokens: m.total_tokens,
            duration: m.duration,
            status: m.status,
            mode: m.mode,
            error_message: m.error_message,
            message_id: m.message_id,
            details: m.details,
        }
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ErrorRow {
    pub id: String,
    pub execution_id: Option<String>,
    pub timestamp: chrono::DateTime<chrono::Utc>,
    pub bot_id: String,
    pub bot_name: String,
    pub pipeline_id: String,
    pub pipeline_name: String,
    pub session_id: String,
    pub error_type: String,
    pub error_message: String,
    pub mode: String,
    pub message_id: Option<String>,
}

impl From<monitoring_error::Model> for ErrorRow {
    fn from(m: monitoring_error::Model) -> Self {
        Self {
            id: m.id,
            execution_id: m.execution_id,
            timestamp: m.timestamp,
            bot_id: m.bot_id,
            bot_name: m.bot_name,
            pipeline_id: m.pipeline_id,
            pipeline_name: m.pipeline_name,
            session_id: m.session_id,
            error_type: m.error_type,
            error_message: m.error_message,
            mode: m.mode,
            message_id: m.message_id,
        }
    }
}

/// A conversation's summary.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SessionRow {
    pub bot_id: String,
    pub session_id: String,
    pub bot_name: String,
    pub pipeline_id: String,
    pub pipeline_name: String,
    pub message_count: i64,
    pub start_time: chrono::DateTime<chrono::Utc>,
    pub last_activity: chrono::DateTime<chrono::Utc>,
    pub is_active: bool,
    pub platform: Option<String>,
    pub user_id: Option<String>,
    pub user_name: Option<String>,
}

impl From<monitoring_session::Model> for SessionRow {
    fn from(m: monitoring_session::Model) -> Self {
        Self {
            bot_id: m.bot_id,
            session_id: m.session_id,
            bot_name: m.bot_name,
            pipeline_id: m.pipeline_id,
            pipeline_name: m.pipeline_name,
            message_count: m.message_count,
            start_time: m.start_time,
            last_activity: m.last_activity,
            is_active: m.is_active,
            platform: m.platform,
            user_id: m.user_id,
            user_name: m.user_name,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Overview {
    pub total_messages: u64,
    pub llm_calls: u64,
    pub model_calls: u64,
    /// Percent of messages with status `success` (100 when there are none).
    pub success_rate: f64,
    pub active_sessions: u64,
    pub executions: u64,
}

/// One page of a detail section.
#[derive(Debug, Serialize, ToSchema)]
pub struct SectionPage {
    #[schema(value_type = Vec<Object>)]
    pub items: Vec<Value>,
    pub has_more: bool,
    pub next_offset: u64,
}

/// An execution's row and its paged sections.
#[derive(Debug, Serialize, ToSchema)]
pub struct ExecutionDetail {
    pub source: String,
    pub row: Option<ExecutionRow>,
    /// Per section: `{items, has_more, next_offset}`.
    pub pages: std::collections::BTreeMap<String, SectionPage>,
    pub legacy_context: bool,
    pub message: Option<MessageRow>,
    /// The execution's tool calls in numbers.
    pub tool_stats: ToolStats,
}

/// Tool calls of one execution: how many, how they ended, how long they took.
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
pub struct ToolStats {
    pub total_calls: u64,
    pub success_calls: u64,
    pub error_calls: u64,
    pub total_duration_ms: i64,
    pub average_duration_ms: i64,
}
