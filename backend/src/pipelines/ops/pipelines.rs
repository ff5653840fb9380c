//! `/pipelines`: list, create, get, update, delete, copy, metadata, set default.

use super::PipelinePath;
use crate::access::{Permission, RequestCtx};
use crate::catalog::{
    Access, Input, McpTool, Method, NoBody, NoParams, Null, OpMeta, Operation, PageQuery,
};
use crate::error::{ApiResult, ErrorCode};
use crate::pipelines::dto::{
    CreatePipeline, DeletePipelineQuery, PipelineDeleted, PipelineEnvelope, PipelineList,
    PipelineListQuery, UpdatePipeline,
};
use crate::pipelines::metadata::{self, PipelineMetadata};
use crate::pipelines::service;
use crate::providers::dto::Created;
use crate::providers::requesters::ModelKind;
use crate::state::AppState;

const fn meta(
    id: &'static str,
    method: Method,
    path: &'static str,
    summary: &'static str,
    permission: Option<Permission>,
    errors: &'static [ErrorCode],
    mcp: Option<McpTool>,
) -> OpMeta {
    OpMeta {
        id,
        method,
        path,
        summary,
        description: "",
        tag: "pipelines",
        access: Access::Workspace,
        permission,
        errors,
        mcp,
    }
}

const PIPELINE_DATA: McpTool = McpTool {
    body_arg: Some("pipeline_data"),
    renames: &[],
    query_args: &[],
};

pub struct ListPipelines;

impl Operation for ListPipelines {
    const META: OpMeta = meta(
        "list_pipelines",
        Method::Get,
        "/pipelines",
        "The Workspace's pipelines",
        Some(Permission::ResourceView),
        &[],
        Some(McpTool::FLAT),
    );
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
    const META: OpMeta = meta(
        "get_pipeline_metadata",
        Method::Get,
        "/pipelines/_/metadata",
        "The pipeline config form: sections, stages, items with types, defaults and options",
        None,
        &[],
        None,
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
    const META: OpMeta = meta(
        "get_pipeline",
        Method::Get,
        "/pipelines/{pipeline_uuid}",
        "One pipeline",
        Some(Permission::ResourceView),
        &[],
        Some(McpTool::FLAT),
    );
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

pub struct CreatePipelineOp;

impl Operation for CreatePipelineOp {
    const META: OpMeta = OpMeta {
        description: "Without `config`, the template (its model preset to the starred model); omitted sections \
                      come from the template. `is_default: true` while a default exists is 409.",
        ..meta(
            "create_pipeline",
            Method::Post,
            "/pipelines",
            "Create a pipeline",
            Some(Permission::ResourceManage),
            &[ErrorCode::DefaultPipelineExists],
            Some(PIPELINE_DATA),
        )
    };
    type Path = NoParams;
    type Query = NoParams;
    type Body = CreatePipeline;
    type Output = Created;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, CreatePipeline>,
    ) -> ApiResult<Created> {
        let row = service::create(&state.db, ctx.workspace()?, input.body).await?;
        Ok(Created { uuid: row.uuid })
    }
}

pub struct UpdatePipelineOp;

impl Operation for UpdatePipelineOp {
    const META: OpMeta = OpMeta {
        description: "Config sections supplied replace the stored ones in full; omitted sections are kept. The \
                      merged config is validated (field errors name the config path).",
        ..meta(
            "update_pipeline",
            Method::Put,
            "/pipelines/{pipeline_uuid}",
            "Update a pipeline",
            Some(Permission::ResourceManage),
            &[],
            Some(PIPELINE_DATA),
        )
    };
    type Path = PipelinePath;
    type Query = NoParams;
    type Body = UpdatePipeline;
    type Output = Null;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PipelinePath, NoParams, UpdatePipeline>,
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

pub struct DeletePipelineOp;

impl Operation for DeletePipelineOp {
    const META: OpMeta = OpMeta {
        description:
            "While bot routes target the pipeline: 409 `pipeline_in_use` listing them; with \
                      `cascade=true` those routes are removed in the same transaction.",
        ..meta(
            "delete_pipeline",
            Method::Delete,
            "/pipelines/{pipeline_uuid}",
            "Delete a pipeline",
            Some(Permission::ResourceManage),
            &[ErrorCode::PipelineInUse],
            Some(McpTool::FLAT),
        )
    };
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
        let removed_routes = service::delete(
            &state.db,
            ctx.workspace()?,
            &input.path.pipeline_uuid,
            cascade,
        )
        .await?;
        Ok(PipelineDeleted { removed_routes })
    }
}

pub struct CopyPipeline;

impl Operation for CopyPipeline {
    const META: OpMeta = meta(
        "copy_pipeline",
        Method::Post,
        "/pipelines/{pipeline_uuid}/copy",
        "Copy a pipeline",
        Some(Permission::ResourceManage),
        &[],
        None,
    );
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
    const META: OpMeta = meta(
        "set_default_pipeline",
        Method::Put,
        "/pipelines/{pipeline_uuid}/default",
        "Make this the Workspace's default pipeline",
        Some(Permission::ResourceManage),
        &[],
        None,
    );
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
