//! `/provider/providers`: list, get, create, update, delete (with cascade).

use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use crate::access::{Permission, RequestCtx};
use crate::catalog::{Input, McpTool, NoBody, NoParams, Null, OpMeta, Operation, PageQuery};
use crate::error::{ApiResult, ErrorCode};
use crate::providers::dto::{
    CascadeQuery, CreateProvider, Created, DeleteReport, ProviderEnvelope, ProviderList,
    ProviderListQuery, SecretQuery, UpdateProvider,
};
use crate::providers::service;
use crate::state::AppState;

/// `{provider_uuid}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ProviderPath {
    pub provider_uuid: Uuid,
}

pub struct ListModelProviders;

impl Operation for ListModelProviders {
    const META: OpMeta = OpMeta::get("list_model_providers", "/provider/providers")
        .tag("providers")
        .summary("Model providers with their model counts (secrets masked without provider_secret.manage)")
        .permission(Permission::ResourceView)
        .mcp(McpTool::list("providers"));
    type Path = NoParams;
    type Query = ProviderListQuery;
    type Body = NoBody;
    type Output = ProviderList;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, ProviderListQuery, NoBody>,
    ) -> ApiResult<ProviderList> {
        let ws = ctx.workspace()?;
        let reveal = service::reveal(ctx, input.query.include_secret);
        let counts = service::counts(&state.db, ws).await?;
        let page = PageQuery {
            limit: input.query.limit,
            offset: input.query.offset,
        };
        let (rows, info) = page.slice(service::list(&state.db, ws).await?);
        Ok(ProviderList {
            providers: rows
                .into_iter()
                .map(|p| {
                    let c = counts.get(&p.uuid).copied().unwrap_or_default();
                    service::to_dto(p, Some(c), reveal)
                })
                .collect(),
            page: info,
        })
    }
}

pub struct GetModelProvider;

impl Operation for GetModelProvider {
    const META: OpMeta = OpMeta::get("get_model_provider", "/provider/providers/{provider_uuid}")
        .tag("providers")
        .summary("One model provider")
        .permission(Permission::ResourceView);
    type Path = ProviderPath;
    type Query = SecretQuery;
    type Body = NoBody;
    type Output = ProviderEnvelope;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<ProviderPath, SecretQuery, NoBody>,
    ) -> ApiResult<ProviderEnvelope> {
        let ws = ctx.workspace()?;
        let row = service::get(&state.db, ws, &input.path.provider_uuid).await?;
        let counts = service::counts(&state.db, ws)
            .await?
            .get(&row.uuid)
            .copied()
            .unwrap_or_default();
        Ok(ProviderEnvelope {
            provider: service::to_dto(
                row,
                Some(counts),
                service::reveal(ctx, input.query.include_secret),
            ),
        })
    }
}

pub struct CreateModelProvider;

impl Operation for CreateModelProvider {
    const META: OpMeta = OpMeta::post("create_model_provider", "/provider/providers")
        .tag("providers")
        .summary("Create a model provider")
        .permission(Permission::ProviderSecretManage);
    type Path = NoParams;
    type Query = NoParams;
    type Body = CreateProvider;
    type Output = Created;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, CreateProvider>,
    ) -> ApiResult<Created> {
        let row = service::create(&state.db, ctx.workspace()?, input.body).await?;
        Ok(Created { uuid: row.uuid })
    }
}

pub struct UpdateModelProvider;

impl Operation for UpdateModelProvider {
    const META: OpMeta = OpMeta::put(
        "update_model_provider",
        "/provider/providers/{provider_uuid}",
    )
    .tag("providers")
    .summary("Update a model provider (`***` keys keep the stored ones)")
    .permission(Permission::ProviderSecretManage);
    type Path = ProviderPath;
    type Query = NoParams;
    type Body = UpdateProvider;
    type Output = Null;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<ProviderPath, NoParams, UpdateProvider>,
    ) -> ApiResult<Null> {
        service::update(
            &state.db,
            ctx.workspace()?,
            &input.path.provider_uuid,
            input.body,
        )
        .await?;
        Ok(Null)
    }
}

pub struct DeleteModelProvider;

impl Operation for DeleteModelProvider {
    const META: OpMeta = OpMeta::delete("delete_model_provider", "/provider/providers/{provider_uuid}")
        .tag("providers")
        .summary("Delete a model provider (optionally with all its models)")
        .description("Without `cascade=true`, refuses with 409 `provider_has_models` while the provider has models. \
                      With it, deletes the provider and all its models in one transaction and clears the starred \
                      model if it was one of them.")
        .permission(Permission::ResourceManage)
        .errors(&[ErrorCode::ProviderHasModels]);
    type Path = ProviderPath;
    type Query = CascadeQuery;
    type Body = NoBody;
    type Output = DeleteReport;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<ProviderPath, CascadeQuery, NoBody>,
    ) -> ApiResult<DeleteReport> {
        let cascade = input.query.cascade.unwrap_or(false);
        service::delete(
            &state.db,
            ctx.workspace()?,
            &input.path.provider_uuid,
            cascade,
        )
        .await
    }
}
