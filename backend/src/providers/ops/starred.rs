//! The starred LLM model and the default model.

use crate::access::{Permission, RequestCtx};
use crate::catalog::{Input, McpTool, NoBody, NoParams, OpMeta, Operation};
use crate::error::ApiResult;
use crate::providers::dto::StarredModel;
use crate::providers::models;
use crate::state::AppState;

pub struct GetStarredModel;

impl Operation for GetStarredModel {
    const META: OpMeta = OpMeta::get("get_starred_model", "/provider/models/llm/_/starred")
        .tag("models")
        .summary("The Workspace's starred LLM model")
        .permission(Permission::ResourceView)
        .mcp(McpTool::FLAT);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = StarredModel;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<StarredModel> {
        Ok(StarredModel {
            uuid: models::starred(&state.db, ctx.workspace()?).await?,
        })
    }
}

pub struct SetStarredModel;

impl Operation for SetStarredModel {
    const META: OpMeta = OpMeta::put("set_starred_model", "/provider/models/llm/_/starred")
        .tag("models")
        .summary("Star an LLM model of this Workspace (null clears)")
        .description("Only this Workspace's LLM models can be starred; anything else is a 400.")
        .permission(Permission::ProviderSecretManage)
        .mcp(McpTool::FLAT.renames(&[("model_uuid", "uuid")]));
    type Path = NoParams;
    type Query = NoParams;
    type Body = StarredModel;
    type Output = StarredModel;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, StarredModel>,
    ) -> ApiResult<StarredModel> {
        let uuid =
            models::set_starred(&state.db, ctx.workspace()?, input.body.uuid.as_deref()).await?;
        Ok(StarredModel { uuid })
    }
}

pub struct GetDefaultModel;

impl Operation for GetDefaultModel {
    const META: OpMeta = OpMeta::get("get_default_model", "/provider/models/llm/_/default")
        .tag("models")
        .summary("The model new pipelines use: the starred model, else null")
        .permission(Permission::ResourceView)
        .mcp(McpTool::FLAT);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = StarredModel;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<StarredModel> {
        Ok(StarredModel {
            uuid: models::starred(&state.db, ctx.workspace()?).await?,
        })
    }
}
