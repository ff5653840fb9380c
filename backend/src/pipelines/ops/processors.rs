//! `POST /agents` and `GET /agents/{uuid}`: LangBot's "Create Processors" form and the page
//! it opens next. Pipelines are the only processors
//! here, so `kind: "pipeline"` creates a pipeline and the other kinds are refused.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;
use validator::Validate;

use super::Processor;
use crate::access::{Permission, RequestCtx};
use crate::catalog::{Input, Name, NoBody, NoParams, OpMeta, Operation};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::pipelines::config::PipelineConfig;
use crate::pipelines::dto::{CreatePipelineBody, ExtensionsPreferences, Pipeline};
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
        .errors(&[ErrorCode::InvalidRequest]);
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
        .permission(Permission::ResourceView);
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
