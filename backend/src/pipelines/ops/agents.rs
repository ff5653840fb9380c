//! `/agents`: LangBot's processor listing. This server's only processors are pipelines, so
//! the list is the Workspace's pipelines as `kind: "pipeline"` and the metadata names the
//! pipeline kind with no event processors.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::access::{Permission, RequestCtx};
use crate::catalog::{Input, McpTool, NoBody, NoParams, OpMeta, Operation};
use crate::error::ApiResult;
use crate::pipelines::dto::{Pipeline, PipelineListQuery};
use crate::pipelines::metadata::{self, SectionMeta};
use crate::pipelines::service;
use crate::providers::requesters::ModelKind;
use crate::state::AppState;

/// What a processor may receive: pipelines take messages only.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Capability {
    pub supported_event_patterns: Vec<String>,
    pub message_only: bool,
}

/// A pipeline as a processor (LangBot's product item, without `config`).
#[derive(Debug, Serialize, ToSchema)]
pub struct Processor {
    pub uuid: String,
    pub workspace_uuid: String,
    pub name: String,
    pub description: String,
    pub emoji: String,
    pub is_default: bool,
    pub for_version: String,
    pub stages: Vec<String>,
    /// Always `pipeline`.
    pub kind: String,
    /// Always `pipeline`.
    pub component_ref: String,
    pub supported_event_patterns: Vec<String>,
    pub capability: Capability,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProcessorList {
    pub agents: Vec<Processor>,
}

/// A processor kind and the events it takes.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProcessorKind {
    pub name: String,
    pub supported_event_patterns: Vec<String>,
    pub message_only: bool,
}

/// The processor form (LangBot's `/agents/_/metadata`).
#[derive(Debug, Serialize, ToSchema)]
pub struct ProcessorMetadata {
    /// Always empty: no event-processor runners are installed here.
    #[schema(value_type = Vec<Object>)]
    pub event_processors: Vec<serde_json::Value>,
    /// The `ai` section of the pipeline form (the runner and its settings).
    pub runner_config: Option<SectionMeta>,
    /// Always empty: no platform tools.
    #[schema(value_type = Vec<Object>)]
    pub platform_tools: Vec<serde_json::Value>,
    /// Always `null`: tools are listed per pipeline by `GET /tools`.
    #[schema(value_type = Option<Object>)]
    pub host_tools: Option<serde_json::Value>,
    pub kinds: Vec<ProcessorKind>,
}

fn message_only() -> Vec<String> {
    vec!["message.received".into()]
}

impl From<Pipeline> for Processor {
    fn from(p: Pipeline) -> Self {
        Processor {
            uuid: p.uuid,
            workspace_uuid: p.workspace_uuid,
            name: p.name,
            description: p.description,
            emoji: p.emoji,
            is_default: p.is_default,
            for_version: p.for_version,
            stages: p.stages,
            kind: "pipeline".into(),
            component_ref: "pipeline".into(),
            supported_event_patterns: message_only(),
            capability: Capability {
                supported_event_patterns: message_only(),
                message_only: true,
            },
            created_at: p.created_at,
            updated_at: p.updated_at,
        }
    }
}

/// `GET /agents`.
pub struct ListProcessors;

impl Operation for ListProcessors {
    const META: OpMeta = OpMeta::get("list_processors", "/agents")
        .tag("pipelines")
        .summary("The Workspace's processors: its pipelines, as `kind: pipeline`")
        .description("LangBot's processor list; `config` is left out.")
        .permission(Permission::ResourceView)
        .mcp(McpTool::list("agents"));
    type Path = NoParams;
    type Query = PipelineListQuery;
    type Body = NoBody;
    type Output = ProcessorList;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, PipelineListQuery, NoBody>,
    ) -> ApiResult<ProcessorList> {
        let q = input.query;
        let rows = service::list(
            &state.db,
            ctx.workspace()?,
            q.sort_by.unwrap_or_default(),
            q.sort_order.unwrap_or_default(),
        )
        .await?;
        let agents = rows
            .into_iter()
            .map(|row| Processor::from(Pipeline::from(row)))
            .collect();
        Ok(ProcessorList { agents })
    }
}

/// `GET /agents/_/metadata`.
pub struct GetProcessorMetadata;

impl Operation for GetProcessorMetadata {
    const META: OpMeta = OpMeta::get("get_processor_metadata", "/agents/_/metadata")
        .tag("pipelines")
        .summary("Processor kinds and the runner form")
        .description(
            "LangBot's shape. Pipelines are the only processors here: `event_processors` and \\
             `platform_tools` are empty and `host_tools` is `null`.",
        )
        .permission(Permission::ResourceView)
        .mcp(McpTool::FLAT);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = ProcessorMetadata;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<ProcessorMetadata> {
        let models =
            crate::providers::models::list(&state.db, ctx.workspace()?, ModelKind::Llm, None)
                .await?;
        let options: Vec<(String, String)> = models.into_iter().map(|m| (m.uuid, m.name)).collect();
        let runner_config = metadata::metadata(&options)
            .configs
            .into_iter()
            .find(|s| s.name == "ai");
        let kind = |name: &str, patterns: Vec<String>, message_only: bool| ProcessorKind {
            name: name.into(),
            supported_event_patterns: patterns,
            message_only,
        };
        Ok(ProcessorMetadata {
            event_processors: Vec::new(),
            runner_config,
            platform_tools: Vec::new(),
            host_tools: None,
            kinds: vec![
                kind("agent", vec!["*".into()], false),
                kind("pipeline", message_only(), true),
                kind("event_processor", vec!["*".into()], false),
            ],
        })
    }
}
