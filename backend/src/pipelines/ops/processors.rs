//! `POST /agents`, `GET`, `PUT` and `DELETE /agents/{uuid}`: LangBot's processor API (its
//! "Create Processors" form, the page it opens next, and the MCP tools of the same names).
//! Pipelines are the only processors here, so `kind: "pipeline"` creates a pipeline, the other
//! kinds are refused, and an update or delete is the pipeline's.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;
use validator::Validate;

use super::Processor;
use crate::access::{Permission, RequestCtx};
use crate::catalog::{Input, McpResult, McpTool, Name, NoBody, NoParams, Null, OpMeta, Operation};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::pipelines::config::PipelineConfig;
use crate::pipelines::dto::{
    CreatePipelineBody, ExtensionsPreferences, Pipeline, PipelineDeleted, UpdatePipelineBody,
};
use crate::pipelines::service;
use crate::state::AppState;

/// LangBot's processor kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProcessorKindName {
    Agent,
    Pipeline,
    EventProcessor,
}

/// LangBot's processor form. For a pipeline only the name, description and emoji count: as in
/// LangBot, it starts from the pipeline template and a supplied `config` is ignored.
#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateProcessor)]
pub struct CreateProcessorBody {
    pub kind: ProcessorKindName,
    #[schema(value_type = String)]
    pub name: Name,
    #[validate(length(max = 255))]
    pub description: Option<String>,
    #[validate(length(min = 1, max = 16))]
    pub emoji: Option<String>,
    /// Ignored for pipelines (LangBot does the same).
    #[schema(value_type = Option<Object>)]
    pub config: Option<serde_json::Value>,
    /// Agent and plugin-processor fields: refused with their kinds.
    #[validate(length(max = 255))]
    pub component_ref: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub parameters: Option<serde_json::Value>,
    #[validate(length(max = 64))]
    pub supported_event_patterns: Option<Vec<String>>,
}

/// `{uuid, kind}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedProcessor {
    pub uuid: String,
    pub kind: ProcessorKindName,
}

/// `POST /agents`.
pub struct CreateProcessor;

impl Operation for CreateProcessor {
    const META: OpMeta = OpMeta::post("create_processor", "/agents")
        .tag("pipelines")
        .summary("Create a processor: a pipeline (the only kind here)")
        .description(
            "LangBot's processor form. `kind: pipeline` creates a pipeline from the template with \
             the name, description and emoji given (`config` is ignored, as in LangBot); `agent` \
             and `event_processor` are 400 (no agent runners or plugin processors here).",
        )
        .permission(Permission::ResourceManage)
        .errors(&[ErrorCode::InvalidRequest])
        .mcp(McpTool::body("processor_data"));
    type Path = NoParams;
    type Query = NoParams;
    type Body = CreateProcessorBody;
    type Output = CreatedProcessor;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, CreateProcessorBody>,
    ) -> ApiResult<CreatedProcessor> {
        let body = input.body;
        if body.kind != ProcessorKindName::Pipeline {
            return Err(ApiError::new(ErrorCode::InvalidRequest).field(
                "kind",
                "only pipelines can be created here (no agent runners or plugin processors)",
            ));
        }
        let pipeline = CreatePipelineBody {
            name: body.name,
            description: body.description,
            emoji: body.emoji,
            config: None,
            extensions_preferences: None,
            is_default: false,
        };
        let row = service::create(&state.db, ctx.workspace()?, pipeline).await?;
        Ok(CreatedProcessor {
            uuid: row.uuid,
            kind: ProcessorKindName::Pipeline,
        })
    }
}

/// A processor with its settings: a pipeline's config and extension bindings.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProcessorDetail {
    #[serde(flatten)]
    pub processor: Processor,
    pub config: PipelineConfig,
    pub extensions_preferences: ExtensionsPreferences,
}

/// `{agent: …}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProcessorEnvelope {
    pub agent: ProcessorDetail,
}

/// `{processor_uuid}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ProcessorPath {
    pub processor_uuid: Uuid,
}

/// `GET /agents/{processor_uuid}`.
pub struct GetProcessor;

impl Operation for GetProcessor {
    const META: OpMeta = OpMeta::get("get_processor", "/agents/{processor_uuid}")
        .tag("pipelines")
        .summary("A processor with its settings: a pipeline, as `kind: pipeline`")
        .description("LangBot's processor page reads it after creating a processor.")
        .permission(Permission::ResourceView)
        .mcp(McpTool::FLAT.result(McpResult::Member("agent")));
    type Path = ProcessorPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = ProcessorEnvelope;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<ProcessorPath, NoParams, NoBody>,
    ) -> ApiResult<ProcessorEnvelope> {
        let row = service::get(&state.db, ctx.workspace()?, &input.path.processor_uuid).await?;
        let pipeline = Pipeline::from(row);
        let (config, extensions_preferences) = (
            pipeline.config.clone(),
            pipeline.extensions_preferences.clone(),
        );
        Ok(ProcessorEnvelope {
            agent: ProcessorDetail {
                processor: Processor::from(pipeline),
                config,
                extensions_preferences,
            },
        })
    }
}

/// `PUT /agents/{processor_uuid}`: a pipeline's update, as LangBot forwards it.
pub struct UpdateProcessor;

impl Operation for UpdateProcessor {
    const META: OpMeta = OpMeta::put("update_processor", "/agents/{processor_uuid}")
        .tag("pipelines")
        .summary("Update a processor: the pipeline's update")
        .description(
            "As `PUT /pipelines/{pipeline_uuid}`: config sections supplied replace the stored ones \
             in full; omitted sections are kept; the merged config is validated.",
        )
        .permission(Permission::ResourceManage)
        .mcp(McpTool::body("processor_data").result(McpResult::Ok));
    type Path = ProcessorPath;
    type Query = NoParams;
    type Body = UpdatePipelineBody;
    type Output = Null;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<ProcessorPath, NoParams, UpdatePipelineBody>,
    ) -> ApiResult<Null> {
        let ws = ctx.workspace()?;
        service::update(&state.db, ws, &input.path.processor_uuid, input.body).await?;
        Ok(Null)
    }
}

/// `DELETE /agents/{processor_uuid}`: the pipeline's delete.
pub struct DeleteProcessor;

impl Operation for DeleteProcessor {
    const META: OpMeta = OpMeta::delete("delete_processor", "/agents/{processor_uuid}")
        .tag("pipelines")
        .summary("Delete a processor: the pipeline's delete")
        .description(
            "As `DELETE /pipelines/{pipeline_uuid}` without `cascade`: while bot routes target \
             the pipeline, 409 `pipeline_in_use` listing them (LangBot answers a 500 for a \
             missing one; this is a 404).",
        )
        .permission(Permission::ResourceManage)
        .errors(&[ErrorCode::PipelineInUse])
        .mcp(McpTool::FLAT.result(McpResult::Ok));
    type Path = ProcessorPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = PipelineDeleted;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<ProcessorPath, NoParams, NoBody>,
    ) -> ApiResult<PipelineDeleted> {
        let ws = ctx.workspace()?;
        let (removed_routes, new_default_pipeline) =
            service::delete(&state.db, ws, &input.path.processor_uuid, false).await?;
        Ok(PipelineDeleted {
            removed_routes,
            new_default_pipeline,
        })
    }
}
