//! `GET /tools`: what a pipeline's agent would be offered, names as the model sees them.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::{OfferedTool, ToolSet};
use crate::access::{Permission, RequestCtx};
use crate::catalog::{Input, McpTool, NoBody, NoParams, OpMeta, Operation};
use crate::error::ApiResult;
use crate::pipelines::dto::ExtensionsPreferences;
use crate::state::AppState;

#[derive(Debug, Deserialize, IntoParams, validator::Validate)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ToolsQuery {
    /// Apply this pipeline's bindings (without it: every enabled server).
    pub pipeline_uuid: Option<Uuid>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ToolList {
    pub tools: Vec<OfferedTool>,
}

pub struct ListTools;

impl Operation for ListTools {
    const META: OpMeta = OpMeta::get("list_tools", "/tools")
        .tag("mcp")
        .summary("The tools an agent is offered, from connected sources")
        .description(
            "A name offered by several sources is offered as `<source>__<name>` for every copy \
             (`original_name` keeps the source's name).",
        )
        .permission(Permission::ResourceView)
        .mcp(McpTool::FLAT.query_args(&["pipeline_uuid"]));
    type Path = NoParams;
    type Query = ToolsQuery;
    type Body = NoBody;
    type Output = ToolList;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, ToolsQuery, NoBody>,
    ) -> ApiResult<ToolList> {
        let ws = ctx.workspace()?;
        let prefs = match input.query.pipeline_uuid {
            Some(uuid) => {
                let row = crate::pipelines::service::get(&state.db, ws, &uuid).await?;
                crate::pipelines::extensions::stored(&row)
            }
            None => ExtensionsPreferences::default(),
        };
        Ok(ToolList {
            tools: ToolSet::resolve(state, ws, &prefs).await?.offered(),
        })
    }
}
