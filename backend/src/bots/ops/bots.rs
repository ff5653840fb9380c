//! `/platform/bots`: list, get, create, update, delete.

use super::BotPath;
use crate::access::{Permission, RequestCtx};
use crate::bots::dto::{BotDetail, BotEnvelope, BotList, CreateBot, RuntimeValues, UpdateBot};
use crate::bots::service;
use crate::catalog::{
    Access, Input, McpTool, Method, NoBody, NoParams, Null, OpMeta, Operation, PageQuery,
};
use crate::error::ApiResult;
use crate::providers::dto::Created;
use crate::state::AppState;

const fn meta(
    id: &'static str,
    method: Method,
    path: &'static str,
    summary: &'static str,
    permission: Permission,
    mcp: McpTool,
) -> OpMeta {
    OpMeta {
        id,
        method,
        path,
        summary,
        description: "",
        tag: "bots",
        access: Access::Workspace,
        permission: Some(permission),
        errors: &[],
        mcp: Some(mcp),
    }
}

const BOT_DATA: McpTool = McpTool {
    body_arg: Some("bot_data"),
    renames: &[],
    query_args: &[],
};

pub struct ListBots;

impl Operation for ListBots {
    const META: OpMeta = meta(
        "list_bots",
        Method::Get,
        "/platform/bots",
        "The Workspace's bots",
        Permission::ResourceView,
        McpTool::FLAT,
    );
    type Path = NoParams;
    type Query = PageQuery;
    type Body = NoBody;
    type Output = BotList;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, PageQuery, NoBody>,
    ) -> ApiResult<BotList> {
        let ws = ctx.workspace()?;
        let public = state.settings.public_url();
        let (rows, page) = input.query.slice(service::list(&state.db, ws).await?);
        Ok(BotList {
            bots: rows
                .into_iter()
                .map(|b| service::to_dto(b, ws, &public))
                .collect(),
            page,
        })
    }
}

pub struct GetBot;

impl Operation for GetBot {
    const META: OpMeta = meta(
        "get_bot",
        Method::Get,
        "/platform/bots/{bot_uuid}",
        "One bot",
        Permission::ResourceView,
        McpTool::FLAT,
    );
    type Path = BotPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = BotEnvelope;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<BotPath, NoParams, NoBody>,
    ) -> ApiResult<BotEnvelope> {
        let ws = ctx.workspace()?;
        let row = service::get(&state.db, ws, &input.path.bot_uuid).await?;
        let public = state.settings.public_url();
        let path = service::webhook_path(&row.uuid);
        Ok(BotEnvelope {
            bot: BotDetail {
                adapter_runtime_values: RuntimeValues {
                    webhook_full_url: format!("{public}{path}"),
                    webhook_url: path,
                },
                bot: service::to_dto(row, ws, &public),
            },
        })
    }
}

pub struct CreateBotOp;

impl Operation for CreateBotOp {
    const META: OpMeta = OpMeta {
        description:
            "Without routes (omitted, null or []), two default routes target the default pipeline, \
                      else the oldest pipeline, else a new default pipeline.",
        ..meta(
            "create_bot",
            Method::Post,
            "/platform/bots",
            "Create a bot",
            Permission::ResourceManage,
            BOT_DATA,
        )
    };
    type Path = NoParams;
    type Query = NoParams;
    type Body = CreateBot;
    type Output = Created;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, CreateBot>,
    ) -> ApiResult<Created> {
        let row = service::create(&state.db, ctx.workspace()?, input.body).await?;
        Ok(Created { uuid: row.uuid })
    }
}

pub struct UpdateBotOp;

impl Operation for UpdateBotOp {
    const META: OpMeta = meta(
        "update_bot",
        Method::Put,
        "/platform/bots/{bot_uuid}",
        "Update a bot (`***` keeps stored secrets; routes unchanged unless a list is given)",
        Permission::ResourceManage,
        BOT_DATA,
    );
    type Path = BotPath;
    type Query = NoParams;
    type Body = UpdateBot;
    type Output = Null;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<BotPath, NoParams, UpdateBot>,
    ) -> ApiResult<Null> {
        service::update(
            &state.db,
            ctx.workspace()?,
            &input.path.bot_uuid,
            input.body,
        )
        .await?;
        Ok(Null)
    }
}

pub struct DeleteBot;

impl Operation for DeleteBot {
    const META: OpMeta = meta(
        "delete_bot",
        Method::Delete,
        "/platform/bots/{bot_uuid}",
        "Delete a bot",
        Permission::ResourceManage,
        McpTool::FLAT,
    );
    type Path = BotPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = Null;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<BotPath, NoParams, NoBody>,
    ) -> ApiResult<Null> {
        service::delete(&state.db, ctx.workspace()?, &input.path.bot_uuid).await?;
        Ok(Null)
    }
}
