//! `/mcp/servers`: the Workspace's external MCP servers (LangBot's routes), their test and
//! resources, and the MCP tool `list_mcp_servers`.

use super::dto::{
    CreateMcpServerBody, McpServerEnvelope, McpServerList, McpServerPath, McpServerResources,
    McpServerTestResult, TestMcpServerBody, UpdateMcpServerBody,
};
use super::service;
use crate::access::{Permission, RequestCtx};
use crate::catalog::{Input, McpTool, NoBody, NoParams, Null, OpMeta, Operation};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::mcp_client::{hub, ServerConfig, SlotState};
use crate::providers::dto::Created;
use crate::state::AppState;

const TAG: &str = "mcp";

pub struct ListMcpServers;

impl Operation for ListMcpServers {
    const META: OpMeta = OpMeta::get("list_mcp_servers", "/mcp/servers")
        .tag(TAG)
        .summary("The Workspace's MCP servers with this replica's connection status")
        .permission(Permission::ResourceView)
        .mcp(McpTool::list("servers"));
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = McpServerList;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<McpServerList> {
        let rows = service::list(&state.db, ctx.workspace()?).await?;
        Ok(McpServerList {
            servers: rows.into_iter().map(|r| service::view(state, r)).collect(),
        })
    }
}

pub struct CreateMcpServer;

impl Operation for CreateMcpServer {
    const META: OpMeta = OpMeta::post("create_mcp_server", "/mcp/servers")
        .tag(TAG)
        .summary("Add an MCP server")
        .description(
            "Connects in the background when `enable` is true (poll the server for \
             `runtime_info.status`). A stdio server runs a process on the host: refused with \
             403 `mcp_stdio_disabled` unless the operator enabled stdio, and \
             `mcp_stdio_command_not_allowed` for a command not in the allowed list.",
        )
        .permission(Permission::ResourceManage)
        .errors(&[
            ErrorCode::Conflict,
            ErrorCode::McpStdioDisabled,
            ErrorCode::McpStdioCommandNotAllowed,
        ]);
    type Path = NoParams;
    type Query = NoParams;
    type Body = CreateMcpServerBody;
    type Output = Created;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, CreateMcpServerBody>,
    ) -> ApiResult<Created> {
        let row = service::create(state, ctx.workspace()?, input.body).await?;
        Ok(Created { uuid: row.uuid })
    }
}

pub struct GetMcpServer;

impl Operation for GetMcpServer {
    const META: OpMeta = OpMeta::get("get_mcp_server", "/mcp/servers/{server_name}")
        .tag(TAG)
        .summary("One MCP server with its tools and connection status")
        .permission(Permission::ResourceView);
    type Path = McpServerPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = McpServerEnvelope;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<McpServerPath, NoParams, NoBody>,
    ) -> ApiResult<McpServerEnvelope> {
        let row = service::by_name(&state.db, ctx.workspace()?, &input.path.server_name).await?;
        Ok(McpServerEnvelope {
            server: service::view(state, row),
        })
    }
}

pub struct UpdateMcpServer;

impl Operation for UpdateMcpServer {
    const META: OpMeta = OpMeta::put("update_mcp_server", "/mcp/servers/{server_name}")
        .tag(TAG)
        .summary("Change an MCP server")
        .description(
            "Only the fields given change; `extra_args` is replaced whole, and `***` keeps a \
             stored secret. The session reconnects with the new settings.",
        )
        .permission(Permission::ResourceManage)
        .errors(&[
            ErrorCode::Conflict,
            ErrorCode::McpStdioDisabled,
            ErrorCode::McpStdioCommandNotAllowed,
        ]);
    type Path = McpServerPath;
    type Query = NoParams;
    type Body = UpdateMcpServerBody;
    type Output = Null;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<McpServerPath, NoParams, UpdateMcpServerBody>,
    ) -> ApiResult<Null> {
        service::update(state, ctx.workspace()?, &input.path.server_name, input.body).await?;
        Ok(Null)
    }
}

pub struct DeleteMcpServer;

impl Operation for DeleteMcpServer {
    const META: OpMeta = OpMeta::delete("delete_mcp_server", "/mcp/servers/{server_name}")
        .tag(TAG)
        .summary("Remove an MCP server and close its session")
        .permission(Permission::ResourceManage);
    type Path = McpServerPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = Null;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<McpServerPath, NoParams, NoBody>,
    ) -> ApiResult<Null> {
        service::delete(state, ctx.workspace()?, &input.path.server_name).await?;
        Ok(Null)
    }
}

pub struct TestMcpServer;

impl Operation for TestMcpServer {
    const META: OpMeta = OpMeta::post("test_mcp_server", "/mcp/servers/{server_name}/test")
        .tag(TAG)
        .summary("Connect now and list the tools, or say why not")
        .description(
            "For a saved server, (re)connects its session and waits for the outcome. With the \
             name `_`, tests the draft in the body (`name`, `mode`, `extra_args`) without saving \
             it. The answer is 200 either way: `runtime_info.status` is `connected` or `error`.",
        )
        .permission(Permission::ResourceManage)
        .errors(&[
            ErrorCode::McpStdioDisabled,
            ErrorCode::McpStdioCommandNotAllowed,
        ]);
    type Path = McpServerPath;
    type Query = NoParams;
    type Body = TestMcpServerBody;
    type Output = McpServerTestResult;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<McpServerPath, NoParams, TestMcpServerBody>,
    ) -> ApiResult<McpServerTestResult> {
        let ws = ctx.workspace()?;
        let (hub, env) = service::hub(state);
        if input.path.server_name == "_" {
            let body = input.body;
            let name = body
                .name
                .map(|n| n.into_inner())
                .unwrap_or_else(|| "draft".into());
            let mode = body.mode.ok_or_else(|| {
                ApiError::invalid("mode is required").field("mode", "is required")
            })?;
            let extra = body.extra_args.unwrap_or_else(|| serde_json::json!({}));
            let cfg = service::check(&state.settings.mcp.stdio, &name, &mode, &extra)?;
            return Ok(McpServerTestResult {
                runtime_info: hub::probe(&env, cfg).await,
            });
        }
        let row = service::by_name(&state.db, ws, &input.path.server_name).await?;
        let cfg = ServerConfig::of_row(&row)?;
        service::check(
            &state.settings.mcp.stdio,
            &row.name,
            &row.mode,
            &row.extra_args,
        )?;
        let cfg = ServerConfig {
            uuid: row.uuid.clone(),
            ..cfg
        };
        let wait = cfg.connect_timeout * 2;
        let info = if row.enable {
            // A test is a fresh attempt: drop whatever this replica had.
            hub.remove(&env, &row.uuid);
            let slot = hub.ensure(&env, cfg, &row.updated_at.to_rfc3339());
            let _ = slot.ready(wait).await;
            slot.info()
        } else {
            hub::probe(&env, cfg).await
        };
        Ok(McpServerTestResult { runtime_info: info })
    }
}

pub struct ListMcpServerResources;

impl Operation for ListMcpServerResources {
    const META: OpMeta = OpMeta::get(
        "list_mcp_server_resources",
        "/mcp/servers/{server_name}/resources",
    )
    .tag(TAG)
    .summary("The resources and resource templates a connected server offers")
    .description("409 `conflict` while the server is disabled or not connected.")
    .permission(Permission::ResourceView)
    .errors(&[ErrorCode::Conflict]);
    type Path = McpServerPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = McpServerResources;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<McpServerPath, NoParams, NoBody>,
    ) -> ApiResult<McpServerResources> {
        let row = service::by_name(&state.db, ctx.workspace()?, &input.path.server_name).await?;
        service::sync(state, &row);
        let (hub, _) = service::hub(state);
        match hub.get(&row.uuid).map(|s| s.state()) {
            Some(SlotState::Connected(live)) => Ok(McpServerResources {
                resources: live.resources.clone(),
                resource_templates: live.resource_templates.clone(),
                resource_capabilities: live.resource_capabilities.clone(),
            }),
            _ => Err(ApiError::conflict("The MCP server is not connected")),
        }
    }
}
