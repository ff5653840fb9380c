//! The pipeline configuration, typed: four sections (`trigger`, `safety`, `ai`, `output`) with
//! LangBot's keys and template defaults (reference bots_pipelines §4.1), and the one built-in
//! runner `local-agent`. Types, select options and unknown keys are checked by deserializing;
//! ranges by the metadata (`metadata.rs`), which reads its defaults from `Default` here.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub const LOCAL_AGENT: &str = "local-agent";
/// The same built-in agent under LangBot 4.11.2's name for it (its `LocalAgent` runner plugin).
/// LangBot's own web UI edits a pipeline only when its runner id is a `plugin:` one, so both
/// names are accepted and run the one agent here.
pub const LANGBOT_LOCAL_AGENT: &str = "plugin:langbot-team/LocalAgent/default";
/// Every runner id a pipeline may name.
pub const RUNNER_IDS: &[&str] = &[LOCAL_AGENT, LANGBOT_LOCAL_AGENT];

fn yes() -> bool {
    true
}

/// The whole configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PipelineConfig {
    pub trigger: TriggerConfig,
    pub safety: SafetyConfig,
    pub ai: AiConfig,
    pub output: OutputConfig,
}

/// A configuration where each section is optional: create fills missing sections from the
/// template; update keeps the stored ones.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PipelineConfigInput {
    pub trigger: Option<TriggerConfig>,
    pub safety: Option<SafetyConfig>,
    pub ai: Option<AiConfig>,
    pub output: Option<OutputConfig>,
}

impl PipelineConfigInput {
    /// Replaces the supplied sections of `base` in full (no deep merge).
    pub fn merge_into(self, mut base: PipelineConfig) -> PipelineConfig {
        if let Some(s) = self.trigger {
            base.trigger = s;
        }
        if let Some(s) = self.safety {
            base.safety = s;
        }
        if let Some(s) = self.ai {
            base.ai = s;
        }
        if let Some(s) = self.output {
            base.output = s;
        }
        base
    }
}

// ---------------------------------------------------------------- trigger

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TriggerConfig {
    #[serde(rename = "group-respond-rules")]
    pub group_respond_rules: GroupRespondRules,
    #[serde(rename = "access-control")]
    pub access_control: AccessControl,
    #[serde(rename = "ignore-rules")]
    pub ignore_rules: IgnoreRules,
    #[serde(rename = "message-aggregation")]
    pub message_aggregation: MessageAggregation,
    pub misc: TriggerMisc,
}

/// When a group message gets an answer: any matching rule lets it through.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct GroupRespondRules {
    /// Answer when the bot is @mentioned.
    pub at: bool,
    /// Answer messages starting with one of these prefixes (the prefix is removed).
    pub prefix: Vec<String>,
    /// Answer messages matching one of these regular expressions.
    pub regexp: Vec<String>,
    /// Answer other messages with this probability (0.0–1.0).
    pub random: f64,
}

impl Default for GroupRespondRules {
    fn default() -> Self {
        Self {
            at: true,
            prefix: vec!["ai".into()],
            regexp: Vec::new(),
            random: 0.0,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum AccessMode {
    #[default]
    Blacklist,
    Whitelist,
}

/// Sessions (`person_<id>`, `group_<id>`, `person_*`, `*_<id>`) allowed or refused.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AccessControl {
    pub mode: AccessMode,
    pub blacklist: Vec<String>,
    pub whitelist: Vec<String>,
}

/// Messages ignored before the pipeline runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IgnoreRules {
    pub prefix: Vec<String>,
    pub regexp: Vec<String>,
}

/// Merge messages of one session arriving within `delay` seconds into one turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MessageAggregation {
    pub enabled: bool,
    /// Seconds (1.0–10.0).
    pub delay: f64,
}

impl Default for MessageAggregation {
    fn default() -> Self {
        Self {
            enabled: false,
            delay: 1.5,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TriggerMisc {
    #[serde(rename = "combine-quote-message")]
    pub combine_quote_message: bool,
}

impl Default for TriggerMisc {
    fn default() -> Self {
        Self {
            combine_quote_message: true,
        }
    }
}

// ---------------------------------------------------------------- safety

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SafetyConfig {
    #[serde(rename = "content-filter")]
    pub content_filter: ContentFilter,
    #[serde(rename = "rate-limit")]
    pub rate_limit: RateLimit,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum FilterScope {
    #[default]
    All,
    IncomeMsg,
    OutputMsg,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ContentFilter {
    pub scope: FilterScope,
    #[serde(rename = "check-sensitive-words")]
    pub check_sensitive_words: bool,
}

impl Default for ContentFilter {
    fn default() -> Self {
        Self {
            scope: FilterScope::All,
            check_sensitive_words: true,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum RateStrategy {
    #[default]
    Drop,
    Wait,
}

/// At most `limitation` messages per session within `window-length` seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RateLimit {
    #[serde(rename = "window-length")]
    pub window_length: u64,
    pub limitation: u64,
    pub strategy: RateStrategy,
}

impl Default for RateLimit {
    fn default() -> Self {
        Self {
            window_length: 60,
            limitation: 60,
            strategy: RateStrategy::Drop,
        }
    }
}

// ---------------------------------------------------------------- ai

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AiConfig {
    pub runner: RunnerRef,
    pub runner_config: RunnerConfigs,
}

/// The runner that answers: the built-in agent, as `local-agent` or as LangBot's
/// `plugin:langbot-team/LocalAgent/default`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RunnerRef {
    pub id: String,
    /// Seconds of inactivity after which a conversation starts afresh (0: never).
    #[serde(rename = "expire-time")]
    pub expire_time: u64,
}

impl Default for RunnerRef {
    fn default() -> Self {
        Self {
            id: LOCAL_AGENT.into(),
            expire_time: 0,
        }
    }
}

/// Per-runner configuration, keyed by runner id. Both keys configure the one built-in agent;
/// the one under `ai.runner.id` is used, else the other (a pipeline switched between the two
/// names keeps its settings).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RunnerConfigs {
    // Field defaults: a key left out is unset, not the template's.
    #[serde(
        rename = "local-agent",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub local_agent: Option<LocalAgentConfig>,
    #[serde(
        rename = "plugin:langbot-team/LocalAgent/default",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub langbot_local_agent: Option<LocalAgentConfig>,
}

impl Default for RunnerConfigs {
    fn default() -> Self {
        Self {
            local_agent: Some(LocalAgentConfig::default()),
            langbot_local_agent: None,
        }
    }
}

impl AiConfig {
    /// Where the runner's own configuration sits: `ai.runner_config.<id>`.
    pub fn agent_path(&self) -> String {
        let id = if self.runner.id == LANGBOT_LOCAL_AGENT {
            LANGBOT_LOCAL_AGENT
        } else {
            LOCAL_AGENT
        };
        format!("ai.runner_config.{id}")
    }

    fn slots(&mut self) -> (&mut Option<LocalAgentConfig>, &mut Option<LocalAgentConfig>) {
        let c = &mut self.runner_config;
        if self.runner.id == LANGBOT_LOCAL_AGENT {
            (&mut c.langbot_local_agent, &mut c.local_agent)
        } else {
            (&mut c.local_agent, &mut c.langbot_local_agent)
        }
    }

    /// The built-in agent's configuration for this pipeline (defaults when neither key is set).
    pub fn agent(&self) -> LocalAgentConfig {
        let c = &self.runner_config;
        let (mine, other) = if self.runner.id == LANGBOT_LOCAL_AGENT {
            (&c.langbot_local_agent, &c.local_agent)
        } else {
            (&c.local_agent, &c.langbot_local_agent)
        };
        mine.as_ref()
            .or(other.as_ref())
            .cloned()
            .unwrap_or_default()
    }

    /// The agent's configuration to change, under the runner's own id.
    pub fn agent_mut(&mut self) -> &mut LocalAgentConfig {
        let current = self.agent();
        let (mine, _) = self.slots();
        mine.get_or_insert(current)
    }

    /// Renames the runner to `id` (one of [`RUNNER_IDS`]), its configuration moving with it.
    pub fn rename_runner(&mut self, id: &str) {
        let agent = self.agent();
        self.runner.id = id.into();
        let (mine, other) = self.slots();
        *mine = Some(agent);
        *other = None;
    }
}

/// The built-in agent: a system prompt, the conversation history and a model with fallbacks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LocalAgentConfig {
    pub model: ModelSelection,
    pub prompt: Vec<PromptMessage>,
    /// How many rounds of tool calls one turn may take (0–50).
    #[serde(rename = "max-tool-rounds")]
    pub max_tool_rounds: u64,
}

impl Default for LocalAgentConfig {
    fn default() -> Self {
        Self {
            model: ModelSelection::default(),
            prompt: vec![PromptMessage {
                role: PromptRole::System,
                content: "You are a helpful assistant.".into(),
            }],
            max_tool_rounds: 10,
        }
    }
}

/// LLM models of this Workspace: the primary one, then fallbacks tried in order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ModelSelection {
    /// A model uuid, or "" for none.
    pub primary: String,
    pub fallbacks: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PromptRole {
    System,
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PromptMessage {
    pub role: PromptRole,
    pub content: String,
}

// ---------------------------------------------------------------- output

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct OutputConfig {
    #[serde(rename = "long-text-processing")]
    pub long_text_processing: LongTextProcessing,
    #[serde(rename = "force-delay")]
    pub force_delay: ForceDelay,
    pub misc: OutputMisc,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum LongTextStrategy {
    Forward,
    Image,
    #[default]
    None,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LongTextProcessing {
    /// Replies longer than this many characters are processed by `strategy`.
    pub threshold: u64,
    pub strategy: LongTextStrategy,
    #[serde(rename = "font-path")]
    pub font_path: String,
}

impl Default for LongTextProcessing {
    fn default() -> Self {
        Self {
            threshold: 1000,
            strategy: LongTextStrategy::None,
            font_path: String::new(),
        }
    }
}

/// A random delay (seconds) before each reply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ForceDelay {
    pub min: f64,
    pub max: f64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ExceptionHandling {
    ShowError,
    #[default]
    ShowHint,
    Hide,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct OutputMisc {
    #[serde(rename = "exception-handling")]
    pub exception_handling: ExceptionHandling,
    #[serde(rename = "failure-hint")]
    pub failure_hint: String,
    #[serde(rename = "at-sender")]
    pub at_sender: bool,
    #[serde(rename = "quote-origin")]
    pub quote_origin: bool,
    #[serde(rename = "track-function-calls")]
    pub track_function_calls: bool,
    #[serde(rename = "remove-think")]
    pub remove_think: bool,
    #[serde(rename = "rate-limit-hint")]
    pub rate_limit_hint: String,
    #[serde(rename = "content-filter-hint")]
    pub content_filter_hint: String,
    #[serde(rename = "tool-call-hint")]
    pub tool_call_hint: String,
    #[serde(rename = "runner-unavailable-hint")]
    pub runner_unavailable_hint: String,
}

impl Default for OutputMisc {
    fn default() -> Self {
        Self {
            exception_handling: ExceptionHandling::ShowHint,
            failure_hint: String::new(),
            at_sender: yes(),
            quote_origin: yes(),
            track_function_calls: false,
            remove_think: false,
            rate_limit_hint: String::new(),
            content_filter_hint: String::new(),
            tool_call_hint: String::new(),
            runner_unavailable_hint: String::new(),
        }
    }
}
