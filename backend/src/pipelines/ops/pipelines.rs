//! `/pipelines`: list, create, get, update, delete, copy, metadata, set default.

use super::PipelinePath;
use crate::access::{Permission, RequestCtx};
use crate::catalog::{
    Input, McpResult, McpTool, NoBody, NoParams, Null, OpMeta, Operation, PageQuery,
};
use crate::error::{ApiResult, ErrorCode};
use crate::pipelines::dto::{
    CreatePipelineBody, DeletePipelineQuery, PipelineDeleted, PipelineEnvelope, PipelineList,
    PipelineListQuery, UpdatePipelineBody,
};
use crate::pipelines::metadata::{self, PipelineMetadata};
use crate::pipelines::service;
use crate::providers::dto::Created;
use crate::providers::requesters::ModelKind;
use crate::state::AppState;

const PIPELINE_DATA: McpTool = McpTool::body("pipeline_data");

pub struct ListPipelines;

impl Operation for ListPipelines {
    const META: OpMeta = OpMeta::get("list_pipelines", "/pipelines")
        .tag("pipelines")
        .summary("The Workspace's pipelines")
        .permission(Permission::ResourceView)
        .mcp(McpTool::list("pipelines"));
    type Path = NoParams;
    type Query = PipelineListQuery;
    type Body = NoBody;
    type Output = PipelineList;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, PipelineListQuery, NoBody>,
    ) -> ApiResult<PipelineList> {
        let q = input.query;
        let rows = service::list(
            &state.db,
            ctx.workspace()?,
            q.sort_by.unwrap_or_default(),
            q.sort_order.unwrap_or_default(),
        )
        .await?;
        let (rows, page) = PageQuery {
            limit: q.limit,
            offset: q.offset,
        }
        .slice(rows);
        Ok(PipelineList {
            pipelines: rows.into_iter().map(Into::into).collect(),
            page,
        })
    }
}

pub struct GetPipelineMetadata;

impl Operation for GetPipelineMetadata {
    const META: OpMeta = OpMeta::get("get_pipeline_metadata", "/pipelines/_/metadata")
        .tag("pipelines")
        .summary(
            "The pipeline config form: sections, stages, items with types, defaults and options",
        );
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = PipelineMetadata;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<PipelineMetadata> {
        let models =
            crate::providers::models::list(&state.db, ctx.workspace()?, ModelKind::Llm, None)
                .await?;
        let options: Vec<(String, String)> = models.into_iter().map(|m| (m.uuid, m.name)).collect();
        Ok(metadata::metadata(&options))
    }
}

pub struct GetPipeline;

impl Operation for GetPipeline {
    const META: OpMeta = OpMeta::get("get_pipeline", "/pipelines/{pipeline_uuid}")
        .tag("pipelines")
        .summary("One pipeline")
        .permission(Permission::ResourceView)
        .mcp(McpTool::FLAT.result(McpResult::Member("pipeline")));
    type Path = PipelinePath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = PipelineEnvelope;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PipelinePath, NoParams, NoBody>,
    ) -> ApiResult<PipelineEnvelope> {
        let row = service::get(&state.db, ctx.workspace()?, &input.path.pipeline_uuid).await?;
        Ok(PipelineEnvelope {
            pipeline: row.into(),
        })
    }
}

pub struct CreatePipeline;

impl Operation for CreatePipeline {
    const META: OpMeta = OpMeta::post("create_pipeline", "/pipelines")
        .tag("pipelines")
        .summary("Create a pipeline")
        .description("Without `config`, the template (its model preset to the starred model); omitted sections \
                      come from the template. `is_default: true` while a default exists is 409.")
        .permission(Permission::ResourceManage)
        .errors(&[ErrorCode::DefaultPipelineExists])
        .mcp(PIPELINE_DATA);
    type Path = NoParams;
    type Query = NoParams;
    type Body = CreatePipelineBody;
    type Output = Created;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, CreatePipelineBody>,
    ) -> ApiResult<Created> {
        let row = service::create(&state.db, ctx.workspace()?, input.body).await?;
        Ok(Created { uuid: row.uuid })
    }
}

pub struct UpdatePipeline;

impl Operation for UpdatePipeline {
    const META: OpMeta = OpMeta::put("update_pipeline", "/pipelines/{pipeline_uuid}")
        .tag("pipelines")
        .summary("Update a pipeline")
        .description("Config sections supplied replace the stored ones in full; omitted sections are kept. The \
                      merged config is validated (field errors name the config path).")
        .permission(Permission::ResourceManage)
        .mcp(PIPELINE_DATA.result(McpResult::Ok));
    type Path = PipelinePath;
    type Query = NoParams;
    type Body = UpdatePipelineBody;
    type Output = Null;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PipelinePath, NoParams, UpdatePipelineBody>,
    ) -> ApiResult<Null> {
        service::update(
            &state.db,
            ctx.workspace()?,
            &input.path.pipeline_uuid,
            input.body,
        )
        .await?;
        Ok(Null)
    }
}

pub struct DeletePipeline;

impl Operation for DeletePipeline {
    const META: OpMeta = OpMeta::delete("delete_pipeline", "/pipelines/{pipeline_uuid}")
        .tag("pipelines")
        .summary("Delete a pipeline")
        .description(
            "While bot routes target the pipeline: 409 `pipeline_in_use` listing them; with \
                      `cascade=true` those routes are removed in the same transaction. Deleting the \
                      default makes the oldest remaining pipeline the default (`new_default_pipeline`).",
        )
        .permission(Permission::ResourceManage)
        .errors(&[ErrorCode::PipelineInUse])
        .mcp(McpTool::FLAT.result(McpResult::Ok));
    type Path = PipelinePath;
    type Query = DeletePipelineQuery;
    type Body = NoBody;
    type Output = PipelineDeleted;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PipelinePath, DeletePipelineQuery, NoBody>,
    ) -> ApiResult<PipelineDeleted> {
        let cascade = input.query.cascade.unwrap_or(false);
        let (removed_routes, new_default_pipeline) = service::delete(
            &state.db,
            ctx.workspace()?,
            &input.path.pipeline_uuid,
            cascade,
        )
        .await?;
        Ok(PipelineDeleted {
            removed_routes,
            new_default_pipeline,
        })
    }
}

pub struct CopyPipeline;

impl Operation for CopyPipeline {
    const META: OpMeta = OpMeta::post("copy_pipeline", "/pipelines/{pipeline_uuid}/copy")
        .tag("pipelines")
        .summary("Copy a pipeline")
        .permission(Permission::ResourceManage);
    type Path = PipelinePath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = Created;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PipelinePath, NoParams, NoBody>,
    ) -> ApiResult<Created> {
        let row = service::copy(&state.db, ctx.workspace()?, &input.path.pipeline_uuid).await?;
        Ok(Created { uuid: row.uuid })
    }
}

pub struct SetDefaultPipeline;

impl Operation for SetDefaultPipeline {
    const META: OpMeta = OpMeta::put("set_default_pipeline", "/pipelines/{pipeline_uuid}/default")
        .tag("pipelines")
        .summary("Make this the Workspace's default pipeline")
        .permission(Permission::ResourceManage);
    type Path = PipelinePath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = PipelineEnvelope;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PipelinePath, NoParams, NoBody>,
    ) -> ApiResult<PipelineEnvelope> {
        let row =
            service::set_default(&state.db, ctx.workspace()?, &input.path.pipeline_uuid).await?;
        Ok(PipelineEnvelope {
            pipeline: row.into(),
        })
    }
}
