//! Type-erased operations, and the catalog: the list the application declares (in
//! `crate::api`), from which the HTTP routes, the OpenAPI document and the MCP tools come.

use std::any::TypeId;
use std::marker::PhantomData;
use std::sync::OnceLock;

use futures_util::future::BoxFuture;
use serde_json::Value;

use super::output::{Output, OutputKind};
use super::router::{ApiRouter, Handler};
#[cfg(test)]
use super::Method;
use super::{input, mcp, openapi, Input, NoBody, OpMeta, Operation, QueryInput};
use crate::access::{Access, Credentials, RequestCtx};
use crate::error::ApiResult;
use crate::state::AppState;

/// An operation with its types erased, so the catalog can be a list.
pub trait DynOperation: Send + Sync {
    fn meta(&self) -> &'static OpMeta;
    /// The Rust type's own name (the naming rule ties it to the id).
    fn type_name(&self) -> &'static str;
    fn output_kind(&self) -> OutputKind;
    /// Whether the operation reads a JSON body.
    fn has_body(&self) -> bool;
    /// The HTTP handler running this operation.
    fn handler(&self) -> Handler;
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

/// Declares `O` for the catalog list.
pub fn op<O: Operation>() -> Box<dyn DynOperation> {
    Box::new(Op::<O>(PhantomData))
}

/// Whether operation `O` takes a body.
pub(super) fn has_body<O: Operation>() -> bool {
    TypeId::of::<O::Body>() != TypeId::of::<NoBody>()
}

/// A file upload (multipart over HTTP, with its own size limit).
pub(super) fn is_upload<O: Operation>() -> bool {
    TypeId::of::<O::Body>() == TypeId::of::<super::Upload>()
}

impl<O: Operation> DynOperation for Op<O> {
    fn meta(&self) -> &'static OpMeta {
        &O::META
    }

    fn type_name(&self) -> &'static str {
        let full = std::any::type_name::<O>();
        full.rsplit("::").next().unwrap_or(full)
    }

    fn output_kind(&self) -> OutputKind {
        <O::Output as Output>::KIND
    }

    fn has_body(&self) -> bool {
        has_body::<O>()
    }

    fn handler(&self) -> Handler {
        <O::Output as Output>::handler::<O>()
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
                query: O::Query::from_json(query)?,
                body: if has_body::<O>() {
                    input::body_from_value::<O::Body>(body)?
                } else {
                    input::from_value::<O::Body>(Value::Null, "")?
                },
            };
            O::run(state, ctx, input).await?.into_json()
        })
    }
}

/// The operations of the application, and what is derived from them once.
pub struct Catalog {
    operations: Vec<Box<dyn DynOperation>>,
    tools: OnceLock<Vec<mcp::Tool>>,
    document: OnceLock<bytes::Bytes>,
    router: OnceLock<ApiRouter>,
}

impl Catalog {
    pub fn new(operations: Vec<Box<dyn DynOperation>>) -> Self {
        Self {
            operations,
            tools: OnceLock::new(),
            document: OnceLock::new(),
            router: OnceLock::new(),
        }
    }

    /// Every operation, in declaration order.
    pub fn operations(&self) -> &[Box<dyn DynOperation>] {
        &self.operations
    }

    pub fn find(&self, id: &str) -> Option<&dyn DynOperation> {
        self.operations
            .iter()
            .find(|op| op.meta().id == id)
            .map(|op| op.as_ref())
    }

    /// The MCP tools: the MCP-exposed operations, with schemas from the OpenAPI document.
    pub fn tools(&self) -> &[mcp::Tool] {
        self.tools.get_or_init(|| mcp::tools::build(self))
    }

    /// The OpenAPI document as served: serialized once per process, on first request, and
    /// shared by every worker (each would otherwise keep its own copy of the whole tree).
    pub fn document_bytes(&self) -> bytes::Bytes {
        self.document
            .get_or_init(|| {
                serde_json::to_vec(&openapi::document_value(self))
                    .unwrap_or_default()
                    .into()
            })
            .clone()
    }

    /// The operations and the OpenAPI document under `/api/v1`.
    pub fn configure_api(&'static self, cfg: &mut actix_web::web::ServiceConfig) {
        cfg.app_data(Served(self))
            .service(ApiService(self.router()));
    }

    /// The `/api/v1` router, built on first use.
    fn router(&'static self) -> &'static ApiRouter {
        self.router.get_or_init(|| {
            let document: Handler = |req, _, _| {
                let bytes = req.app_data::<Served>().map(|s| s.0.document_bytes());
                Box::pin(async move {
                    actix_web::HttpResponse::Ok()
                        .content_type(actix_web::http::header::ContentType::json())
                        .body(bytes.unwrap_or_default())
                })
            };
            let routes = super::http::routes(self).chain([(
                "/openapi.json",
                actix_web::http::Method::GET,
                document,
            )]);
            // The paths are the application's own constants, checked by the tests: one that
            // the router refuses is a programming error.
            ApiRouter::new(routes).unwrap_or_else(|e| panic!("the catalog's routes: {e:#}"))
        })
    }

    /// The operations as MCP tools, at `/mcp`.
    pub fn configure_mcp(&'static self, cfg: &mut actix_web::web::ServiceConfig) {
        mcp::configure(self, cfg);
    }
}

/// The catalog the application serves, for the handler of its document.
struct Served(&'static Catalog);

/// `/api/v1` as one prefix whose requests all go to the router: an actix scope would add a
/// router of its own (and its walk) in between.
struct ApiService(&'static ApiRouter);

impl actix_web::dev::HttpServiceFactory for ApiService {
    fn register(self, config: &mut actix_web::dev::AppService) {
        let router = self.0;
        config.register_service(
            actix_web::dev::ResourceDef::prefix("/api/v1"),
            None,
            actix_web::dev::fn_service(move |req| router.dispatch(req)),
            None,
        );
    }
}

#[cfg(test)]
impl Catalog {
    /// The id of the operation `method path` (relative to `/api/v1`) reaches.
    pub fn routed(&'static self, method: Method, path: &str) -> Option<&'static str> {
        let handler = self
            .router()
            .handler_at(&super::http::method(method), path)?;
        self.operations
            .iter()
            .find(|op| std::ptr::fn_addr_eq(op.handler(), handler))
            .map(|op| op.meta().id)
    }
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
    if meta.access == Access::OptionalWorkspace {
        if credentials.bearer.is_none() && credentials.api_key.is_none() {
            return Ok(base);
        }
        // Any valid credential selects its Workspace (MCP's API key too, so both faces agree);
        // an invalid one is ignored, as if none were sent.
        // Boxed (here and below): the credential lookups' future is large, and inline it
        // would size every request's handler, anonymous ones too.
        let resolved = Box::pin(state.identity.authenticate(
            Access::Workspace,
            credentials,
            base.clone(),
        ))
        .await;
        return Ok(resolved.unwrap_or(base));
    }
    let ctx = Box::pin(state.identity.authenticate(meta.access, credentials, base)).await?;
    // From here on, errors speak the Workspace's language.
    crate::error::request_local::set_language(ctx.language());
    if let (Some(permission), Some(ws)) = (meta.permission, ctx.workspace.as_ref()) {
        ws.require(permission)?;
    }
    Ok(ctx)
}
