//! `/provider/models/{llm,embedding,rerank}`: the same six operations for each kind.

use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use crate::access::{Permission, RequestCtx};
use crate::catalog::{Input, McpResult, McpTool, NoParams, Null, OpMeta, Operation, PageQuery};
use crate::error::{ApiResult, ErrorCode};
use crate::providers::dto::{
    Created, ModelEnvelope, ModelInput, ModelList, ModelListQuery, SecretQuery, TestModelInput,
    TestResult,
};
use crate::providers::requesters::ModelKind;
use crate::providers::{models, service};
use crate::state::AppState;

/// `{model_uuid}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ModelPath {
    pub model_uuid: Uuid,
}

async fn list(
    state: &AppState,
    ctx: &RequestCtx,
    kind: ModelKind,
    query: ModelListQuery,
) -> ApiResult<ModelList> {
    let ws = ctx.workspace()?;
    let reveal = service::reveal(ctx, query.include_secret);
    if let Some(p) = &query.provider_uuid {
        service::get(&state.db, ws, p).await?;
    }
    let page = PageQuery {
        limit: query.limit,
        offset: query.offset,
    };
    let (rows, info) =
        page.slice(models::list(&state.db, ws, kind, query.provider_uuid.as_ref()).await?);
    // The provider is embedded only in lists across providers; each is masked once, not
    // once per model.
    let providers: std::collections::HashMap<_, _> = match query.provider_uuid {
        Some(_) => Default::default(),
        None => models::providers_by_uuid(&state.db, ws)
            .await?
            .into_iter()
            .map(|(uuid, p)| (uuid, service::to_dto(p, None, reveal)))
            .collect(),
    };
    Ok(ModelList {
        models: rows
            .into_iter()
            .map(|m| {
                let provider = providers.get(&m.provider_uuid).cloned();
                models::to_dto(m, provider, reveal)
            })
            .collect(),
        page: info,
    })
}

async fn get(
    state: &AppState,
    ctx: &RequestCtx,
    kind: ModelKind,
    uuid: &Uuid,
    include_secret: Option<bool>,
) -> ApiResult<ModelEnvelope> {
    let ws = ctx.workspace()?;
    let reveal = service::reveal(ctx, include_secret);
    let row = models::get(&state.db, ws, kind, uuid).await?;
    let provider = service::get(
        &state.db,
        ws,
        &Uuid::parse_str(&row.provider_uuid).unwrap_or_default(),
    )
    .await
    .ok();
    Ok(ModelEnvelope {
        model: models::to_dto(
            row,
            provider.map(|p| service::to_dto(p, None, reveal)),
            reveal,
        ),
    })
}

async fn test(
    state: &AppState,
    ctx: &RequestCtx,
    kind: ModelKind,
    uuid: &Uuid,
    body: TestModelInput,
) -> ApiResult<TestResult> {
    let ws = ctx.workspace()?;
    let row = models::get(&state.db, ws, kind, uuid).await?;
    let provider = service::get(
        &state.db,
        ws,
        &Uuid::parse_str(&row.provider_uuid).unwrap_or_default(),
    )
    .await?;
    let latency_ms = models::test(&state.http, &provider, &row, body.extra_args).await?;
    Ok(TestResult { latency_ms })
}

macro_rules! model_ops {
    ($kind:expr, $k:literal, $List:ident, $Get:ident, $Create:ident, $Update:ident, $Delete:ident, $Test:ident,
     list_mcp: $list_mcp:expr, get_mcp: $get_mcp:expr) => {
        pub struct $List;

        impl Operation for $List {
            const META: OpMeta = OpMeta::get(
                concat!("list_", $k, "_models"),
                concat!("/provider/models/", $k),
            )
            .tag("models")
            .summary(concat!(
                "The Workspace's ",
                $k,
                " models (filter with provider_uuid)"
            ))
            .permission(Permission::ResourceView)
            .mcp_if($list_mcp);
            type Path = NoParams;
            type Query = ModelListQuery;
            type Body = crate::catalog::NoBody;
            type Output = ModelList;

            async fn run(
                state: &AppState,
                ctx: &RequestCtx,
                input: Input<NoParams, ModelListQuery, crate::catalog::NoBody>,
            ) -> ApiResult<ModelList> {
                list(state, ctx, $kind, input.query).await
            }
        }

        pub struct $Get;

        impl Operation for $Get {
            const META: OpMeta = OpMeta::get(
                concat!("get_", $k, "_model"),
                concat!("/provider/models/", $k, "/{model_uuid}"),
            )
            .tag("models")
            .summary(concat!("One ", $k, " model"))
            .permission(Permission::ResourceView)
            .mcp_if($get_mcp);
            type Path = ModelPath;
            type Query = SecretQuery;
            type Body = crate::catalog::NoBody;
            type Output = ModelEnvelope;

            async fn run(
                state: &AppState,
                ctx: &RequestCtx,
                input: Input<ModelPath, SecretQuery, crate::catalog::NoBody>,
            ) -> ApiResult<ModelEnvelope> {
                get(
                    state,
                    ctx,
                    $kind,
                    &input.path.model_uuid,
                    input.query.include_secret,
                )
                .await
            }
        }

        pub struct $Create;

        impl Operation for $Create {
            const META: OpMeta = OpMeta::post(
                concat!("create_", $k, "_model"),
                concat!("/provider/models/", $k),
            )
            .tag("models")
            .summary(concat!("Create a ", $k, " model"))
            .permission(Permission::ProviderSecretManage);
            type Path = NoParams;
            type Query = NoParams;
            type Body = ModelInput;
            type Output = Created;

            async fn run(
                state: &AppState,
                ctx: &RequestCtx,
                input: Input<NoParams, NoParams, ModelInput>,
            ) -> ApiResult<Created> {
                let row = models::create(&state.db, ctx.workspace()?, $kind, input.body).await?;
                Ok(Created { uuid: row.uuid })
            }
        }

        pub struct $Update;

        impl Operation for $Update {
            const META: OpMeta = OpMeta::put(
                concat!("update_", $k, "_model"),
                concat!("/provider/models/", $k, "/{model_uuid}"),
            )
            .tag("models")
            .summary(concat!("Update a ", $k, " model"))
            .permission(Permission::ProviderSecretManage);
            type Path = ModelPath;
            type Query = NoParams;
            type Body = ModelInput;
            type Output = Null;

            async fn run(
                state: &AppState,
                ctx: &RequestCtx,
                input: Input<ModelPath, NoParams, ModelInput>,
            ) -> ApiResult<Null> {
                models::update(
                    &state.db,
                    ctx.workspace()?,
                    $kind,
                    &input.path.model_uuid,
                    input.body,
                )
                .await?;
                Ok(Null)
            }
        }

        pub struct $Delete;

        impl Operation for $Delete {
            const META: OpMeta = OpMeta::delete(
                concat!("delete_", $k, "_model"),
                concat!("/provider/models/", $k, "/{model_uuid}"),
            )
            .tag("models")
            .summary(concat!("Delete a ", $k, " model (a star on it is cleared)"))
            .permission(Permission::ResourceManage);
            type Path = ModelPath;
            type Query = NoParams;
            type Body = crate::catalog::NoBody;
            type Output = Null;

            async fn run(
                state: &AppState,
                ctx: &RequestCtx,
                input: Input<ModelPath, NoParams, crate::catalog::NoBody>,
            ) -> ApiResult<Null> {
                models::delete(&state.db, ctx.workspace()?, $kind, &input.path.model_uuid).await?;
                Ok(Null)
            }
        }

        pub struct $Test;

        impl Operation for $Test {
            const META: OpMeta = OpMeta::post(
                concat!("test_", $k, "_model"),
                concat!("/provider/models/", $k, "/{model_uuid}/test"),
            )
            .tag("models")
            .summary(concat!(
                "Call the ",
                $k,
                " model once through its provider; answers the latency"
            ))
            .permission(Permission::ProviderSecretManage)
            .errors(&[ErrorCode::ModelTestFailed]);
            type Path = ModelPath;
            type Query = NoParams;
            type Body = TestModelInput;
            type Output = TestResult;

            async fn run(
                state: &AppState,
                ctx: &RequestCtx,
                input: Input<ModelPath, NoParams, TestModelInput>,
            ) -> ApiResult<TestResult> {
                test(state, ctx, $kind, &input.path.model_uuid, input.body).await
            }
        }
    };
}

model_ops!(ModelKind::Llm, "llm", ListLlmModels, GetLlmModel, CreateLlmModel, UpdateLlmModel, DeleteLlmModel, TestLlmModel,
    list_mcp: Some(McpTool::list("models")), get_mcp: Some(McpTool::FLAT.result(McpResult::Member("model"))));
model_ops!(ModelKind::Embedding, "embedding", ListEmbeddingModels, GetEmbeddingModel, CreateEmbeddingModel, UpdateEmbeddingModel,
    DeleteEmbeddingModel, TestEmbeddingModel, list_mcp: Some(McpTool::list("models")), get_mcp: None);
model_ops!(ModelKind::Rerank, "rerank", ListRerankModels, GetRerankModel, CreateRerankModel, UpdateRerankModel, DeleteRerankModel,
    TestRerankModel, list_mcp: None, get_mcp: None);
