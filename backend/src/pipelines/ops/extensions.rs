//! `/pipelines/{uuid}/extensions`: which tool sources a pipeline's agent may use.

use super::PipelinePath;
use crate::access::{Permission, RequestCtx};
use crate::catalog::{Input, McpTool, NoBody, NoParams, OpMeta, Operation};
use crate::error::ApiResult;
use crate::pipelines::extensions::{self, PipelineExtensions, UpdateExtensionsBody};
use crate::pipelines::service;
use crate::state::AppState;

pub struct GetPipelineExtensions;

impl Operation for GetPipelineExtensions {
    const META: OpMeta = OpMeta::get(
        "get_pipeline_extensions",
        "/pipelines/{pipeline_uuid}/extensions",
    )
    .tag("pipelines")
    .summary("The tool sources the pipeline's agent may use, and those available")
    .permission(Permission::ResourceView)
    .mcp(McpTool::FLAT);
    type Path = PipelinePath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = PipelineExtensions;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PipelinePath, NoParams, NoBody>,
    ) -> ApiResult<PipelineExtensions> {
        let ws = ctx.workspace()?;
        let row = service::get(&state.db, ws, &input.path.pipeline_uuid).await?;
        let servers = crate::mcp_servers::service::list(&state.db, ws).await?;
        let mut out = PipelineExtensions::of(
            extensions::stored(&row),
            servers
                .into_iter()
                .map(|s| crate::mcp_servers::service::view(state, s))
                .collect(),
        );
        out.available_plugins = crate::plugins::ops::available(state, ws).await?;
        Ok(out)
    }
}

pub struct UpdatePipelineExtensions;

impl Operation for UpdatePipelineExtensions {
    const META: OpMeta = OpMeta::put(
        "update_pipeline_extensions",
        "/pipelines/{pipeline_uuid}/extensions",
    )
    .tag("pipelines")
    .summary("Bind tool sources to the pipeline; answers with the bindings stored")
    .description(
        "Missing `enable_all_*` flags are true and missing lists empty; \
             `bound_mcp_resources` and `mcp_resource_agent_read_enabled` stay when absent. \
             `bound_mcp_servers` holds uuids of this Workspace's MCP servers; with \
             `enable_all_mcp_servers: true` every enabled server is used.",
    )
    .permission(Permission::ResourceManage)
    .mcp(McpTool::FLAT.all_required());
    type Path = PipelinePath;
    type Query = NoParams;
    type Body = UpdateExtensionsBody;
    type Output = PipelineExtensions;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PipelinePath, NoParams, UpdateExtensionsBody>,
    ) -> ApiResult<PipelineExtensions> {
        let ws = ctx.workspace()?;
        let row = service::get(&state.db, ws, &input.path.pipeline_uuid).await?;
        let servers = crate::mcp_servers::service::list(&state.db, ws).await?;
        let uuids: Vec<String> = servers.iter().map(|s| s.uuid.clone()).collect();
        let prefs = extensions::apply(&extensions::stored(&row), input.body, &uuids)?;
        extensions::save(&state.db, row, &prefs).await?;
        let mut out = PipelineExtensions::of(
            prefs,
            servers
                .into_iter()
                .map(|s| crate::mcp_servers::service::view(state, s))
                .collect(),
        );
        out.available_plugins = crate::plugins::ops::available(state, ws).await?;
        Ok(out)
    }
}
