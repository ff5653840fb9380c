//! `/platform/bots`: list, get, create, update, delete.

use super::BotPath;
use crate::access::{Permission, RequestCtx};
use crate::bots::dto::{BotDetail, BotEnvelope, BotList, CreateBotBody, UpdateBotBody};
use crate::bots::service;
use crate::catalog::{
    Input, McpResult, McpTool, NoBody, NoParams, Null, OpMeta, Operation, PageQuery,
};
use crate::error::ApiResult;
use crate::providers::dto::Created;
use crate::state::AppState;

const BOT_DATA: McpTool = McpTool::body("bot_data");

pub struct ListBots;

impl Operation for ListBots {
    const META: OpMeta = OpMeta::get("list_bots", "/platform/bots")
        .tag("bots")
        .summary("The Workspace's bots")
        .permission(Permission::ResourceView)
        .mcp(McpTool::list("bots"));
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
        let (rows, page) = service::page(&state.db, ws, &input.query).await?;
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
    const META: OpMeta = OpMeta::get("get_bot", "/platform/bots/{bot_uuid}")
        .tag("bots")
        .summary("One bot")
        .permission(Permission::ResourceView)
        .mcp(McpTool::FLAT.result(McpResult::Member("bot")));
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
        Ok(BotEnvelope {
            bot: BotDetail {
                adapter_runtime_values: service::runtime_values(state, &row).await,
                bot: service::to_dto(row, ws, &public),
            },
        })
    }
}

pub struct CreateBot;

impl Operation for CreateBot {
    const META: OpMeta = OpMeta::post("create_bot", "/platform/bots")
        .tag("bots")
        .summary("Create a bot")
        .description("Without routes (omitted, null or []), two default routes target the default pipeline, \
                      else the oldest pipeline, else a new default pipeline.")
        .permission(Permission::ResourceManage)
        .mcp(BOT_DATA);
    type Path = NoParams;
    type Query = NoParams;
    type Body = CreateBotBody;
    type Output = Created;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, CreateBotBody>,
    ) -> ApiResult<Created> {
        let row = service::create(&state.db, ctx.workspace()?, input.body).await?;
        crate::bots::status::announce_change(state.store.as_ref(), &row.uuid).await;
        Ok(Created { uuid: row.uuid })
    }
}

pub struct UpdateBot;

impl Operation for UpdateBot {
    const META: OpMeta = OpMeta::put("update_bot", "/platform/bots/{bot_uuid}")
        .tag("bots")
        .summary(
            "Update a bot (`***` keeps stored secrets; routes unchanged unless a list is given)",
        )
        .permission(Permission::ResourceManage)
        .mcp(BOT_DATA.result(McpResult::Ok));
    type Path = BotPath;
    type Query = NoParams;
    type Body = UpdateBotBody;
    type Output = Null;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<BotPath, NoParams, UpdateBotBody>,
    ) -> ApiResult<Null> {
        let row = service::update(
            &state.db,
            ctx.workspace()?,
            &input.path.bot_uuid,
            input.body,
        )
        .await?;
        crate::bots::status::announce_change(state.store.as_ref(), &row.uuid).await;
        Ok(Null)
    }
}

pub struct DeleteBot;

impl Operation for DeleteBot {
    const META: OpMeta = OpMeta::delete("delete_bot", "/platform/bots/{bot_uuid}")
        .tag("bots")
        .summary("Delete a bot")
        .permission(Permission::ResourceManage)
        .mcp(McpTool::FLAT.result(McpResult::Ok));
    type Path = BotPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = Null;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<BotPath, NoParams, NoBody>,
    ) -> ApiResult<Null> {
        let row = service::delete(&state.db, ctx.workspace()?, &input.path.bot_uuid).await?;
        let store = state.store.as_ref();
        crate::bots::status::clear(store, &row.uuid).await;
        crate::bots::status::announce_change(store, &row.uuid).await;
        Ok(Null)
    }
}
