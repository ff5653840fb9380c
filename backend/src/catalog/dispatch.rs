//! Type-erased operations: the one list, and what every transport calls through it.

use std::any::TypeId;
use std::marker::PhantomData;
use std::sync::OnceLock;

use futures_util::future::BoxFuture;
use serde_json::Value;

use super::{http, input, openapi, Access, Input, NoBody, OpMeta, Operation};
use crate::access::{Credentials, RequestCtx};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// An operation with its types erased, so the catalog can be a list.
pub trait DynOperation: Send + Sync {
    fn meta(&self) -> &'static OpMeta;
    /// Whether the operation reads a JSON body.
    fn has_body(&self) -> bool;
    /// The actix route running this operation.
    fn route(&self) -> actix_web::Route;
    /// The OpenAPI operation; referenced schemas are added to `schemas`.
    fn openapi(&self, schemas: &mut openapi::SchemaSet) -> utoipa::openapi::path::Operation;
    /// Runs with JSON-shaped input (used by MCP): `path`, `query` and `body` are objects.
    fn call_json<'a>(
        &'a self,
        state: &'a AppState,
        ctx: &'a RequestCtx,
        path: Value,
        query: Value,
        body: Value,
    ) -> BoxFuture<'a, ApiResult<Value>>;
}

struct Op<O>(PhantomData<O>);

fn op<O: Operation>() -> Box<dyn DynOperation> {
    Box::new(Op::<O>(PhantomData))
}

/// Whether operation `O` takes a body.
pub(super) fn has_body<O: Operation>() -> bool {
    TypeId::of::<O::Body>() != TypeId::of::<NoBody>()
}

impl<O: Operation> DynOperation for Op<O> {
    fn meta(&self) -> &'static OpMeta {
        &O::META
    }

    fn has_body(&self) -> bool {
        has_body::<O>()
    }

    fn route(&self) -> actix_web::Route {
        http::route::<O>()
    }

    fn openapi(&self, schemas: &mut openapi::SchemaSet) -> utoipa::openapi::path::Operation {
        openapi::operation::<O>(schemas)
    }

    fn call_json<'a>(
        &'a self,
        state: &'a AppState,
        ctx: &'a RequestCtx,
        path: Value,
        query: Value,
        body: Value,
    ) -> BoxFuture<'a, ApiResult<Value>> {
        Box::pin(async move {
            let input = Input {
                path: input::from_value::<O::Path>(path, "")?,
                query: {
                    let q = input::from_value::<O::Query>(query, "")?;
                    input::validate(&q)?;
                    q
                },
                body: if has_body::<O>() {
                    input::body_from_value::<O::Body>(body)?
                } else {
                    input::from_value::<O::Body>(Value::Null, "")?
                },
            };
            let output = O::run(state, ctx, input).await?;
            serde_json::to_value(output).map_err(ApiError::internal)
        })
    }
}

/// Every operation, in catalog order. Adding an operation means adding it here.
pub fn operations() -> &'static [Box<dyn DynOperation>] {
    static LIST: OnceLock<Vec<Box<dyn DynOperation>>> = OnceLock::new();
    LIST.get_or_init(|| {
        use crate::accounts::ops as user;
        use crate::apikeys::ops as keys;
        use crate::bots::ops as bots;
        use crate::monitoring::ops as mon;
        use crate::pipelines::ops as pipes;
        use crate::providers::ops as prov;
        use crate::runtime::ops as rt;
        use crate::system::ops as system;
        use crate::workspaces::ops as ws;
        vec![
            // system
            op::<system::GetSystemInfo>(),
            op::<system::GetSystemContext>(),
            // accounts and sessions
            op::<user::GetInitStatus>(),
            op::<user::InitAccount>(),
            op::<user::Login>(),
            op::<user::CheckToken>(),
            op::<user::Logout>(),
            op::<user::ChangePassword>(),
            op::<user::GetUserInfo>(),
            // Workspaces, members, invitations, settings
            op::<ws::ListWorkspaces>(),
            op::<ws::CreateWorkspace>(),
            op::<ws::GetCurrentWorkspace>(),
            op::<ws::GetWorkspace>(),
            op::<ws::RenameWorkspace>(),
            op::<ws::GetLanguage>(),
            op::<ws::SetLanguage>(),
            op::<ws::ListMembers>(),
            op::<ws::ChangeMemberRole>(),
            op::<ws::RemoveMember>(),
            op::<ws::ListInvitations>(),
            op::<ws::CreateInvitation>(),
            op::<ws::RevokeInvitation>(),
            op::<ws::InspectInvitation>(),
            op::<ws::AcceptInvitationOp>(),
            // API keys
            op::<keys::ListApiKeys>(),
            op::<keys::CreateApiKeyOp>(),
            op::<keys::GetApiKey>(),
            op::<keys::UpdateApiKeyOp>(),
            op::<keys::DeleteApiKey>(),
            // model providers, requesters, models, starred model
            op::<prov::ListRequesters>(),
            op::<prov::GetRequester>(),
            op::<prov::ListProviders>(),
            op::<prov::GetProvider>(),
            op::<prov::CreateProviderOp>(),
            op::<prov::UpdateProviderOp>(),
            op::<prov::DeleteProvider>(),
            op::<prov::GetStarredModel>(),
            op::<prov::SetStarredModel>(),
            op::<prov::GetDefaultModel>(),
            op::<prov::ListLlmModels>(),
            op::<prov::GetLlmModel>(),
            op::<prov::CreateLlmModel>(),
            op::<prov::UpdateLlmModel>(),
            op::<prov::DeleteLlmModel>(),
            op::<prov::TestLlmModel>(),
            op::<prov::ListEmbeddingModels>(),
            op::<prov::GetEmbeddingModel>(),
            op::<prov::CreateEmbeddingModel>(),
            op::<prov::UpdateEmbeddingModel>(),
            op::<prov::DeleteEmbeddingModel>(),
            op::<prov::TestEmbeddingModel>(),
            op::<prov::ListRerankModels>(),
            op::<prov::GetRerankModel>(),
            op::<prov::CreateRerankModel>(),
            op::<prov::UpdateRerankModel>(),
            op::<prov::DeleteRerankModel>(),
            op::<prov::TestRerankModel>(),
            // pipelines
            op::<pipes::ListPipelines>(),
            op::<pipes::GetPipelineMetadata>(),
            op::<pipes::GetPipeline>(),
            op::<pipes::CreatePipelineOp>(),
            op::<pipes::UpdatePipelineOp>(),
            op::<pipes::DeletePipelineOp>(),
            op::<pipes::CopyPipeline>(),
            op::<pipes::SetDefaultPipeline>(),
            // adapters, bots, routes
            op::<bots::ListAdapters>(),
            op::<bots::GetAdapter>(),
            op::<bots::ListBots>(),
            op::<bots::GetBot>(),
            op::<bots::CreateBotOp>(),
            op::<bots::UpdateBotOp>(),
            op::<bots::DeleteBot>(),
            op::<bots::DryRunRoutes>(),
            // runtime
            op::<rt::ListRouteStatuses>(),
            op::<rt::ResetSessionContext>(),
            op::<rt::RunPipeline>(),
            // monitoring
            op::<mon::GetOverview>(),
            op::<mon::GetExecutions>(),
            op::<mon::GetExecutionDetail>(),
            op::<mon::ListMessages>(),
            op::<mon::ListLlmCalls>(),
            op::<mon::ListErrors>(),
            op::<mon::ListSessions>(),
            op::<mon::QueryRecords>(),
            op::<mon::GetDetails>(),
            op::<mon::GetTokenStatistics>(),
            op::<mon::GetData>(),
            op::<crate::monitoring::inflight::GetInflight>(),
        ]
    })
}

/// Resolves credentials into the request context and enforces the operation's access rule
/// and permission. Every transport calls this before the operation body.
pub async fn authorize(
    state: &AppState,
    meta: &OpMeta,
    credentials: &Credentials,
    base: RequestCtx,
) -> ApiResult<RequestCtx> {
    if meta.access == Access::Public {
        return Ok(base);
    }
    let ctx = crate::identity::authenticate(state, meta.access, credentials, base).await?;
    // From here on, errors speak the Workspace's language.
    crate::http::request_local::set_language(ctx.language());
    if let (Some(permission), Some(ws)) = (meta.permission, ctx.workspace.as_ref()) {
        ws.require(permission)?;
    }
    Ok(ctx)
}
