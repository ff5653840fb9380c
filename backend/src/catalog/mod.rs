//! The operation catalog (SPEC §3), as a framework: the `Operation` trait and its `OpMeta`
//! declaration, typed input parsing, the output kinds (JSON, event streams, downloads,
//! WebSockets), and the faces derived from a list of operations — HTTP routes, the OpenAPI
//! document and the MCP server. The list itself is the application's (`crate::api`); this
//! module imports no resource and not the runtime.

mod http;
pub mod input;
pub mod mcp;
mod meta;
pub mod openapi;
mod output;
mod page;
mod registry;
pub mod request;
mod router;
mod socket;
mod strict;
mod types;
pub mod upload;
mod values;

use std::future::Future;

use serde::de::DeserializeOwned;
use utoipa::{IntoParams, ToSchema};
use validator::Validate;

use crate::access::RequestCtx;
use crate::error::ApiResult;
use crate::state::AppState;

pub use input::{Input, QueryInput};
pub use meta::{McpResult, McpTool, Method, OpMeta};
pub use output::{Download, EventStream, Image, Output, OutputKind, Prepared, WebSocket};
pub use page::{PageInfo, PageQuery};
pub use registry::{authorize, op, Catalog, DynOperation};
pub use socket::Socket;
pub use types::{NoBody, NoParams, Null};
pub use upload::Upload;
pub use values::Name;

/// One operation: its declaration, its typed input and output, and its transport-agnostic body.
pub trait Operation: Send + Sync + 'static {
    const META: OpMeta;
    /// Path parameters (`NoParams` when none).
    type Path: DeserializeOwned + IntoParams + Send + 'static;
    /// Query parameters (`NoParams` when none).
    type Query: QueryInput + IntoParams;
    /// JSON body (`NoBody` when none).
    type Body: DeserializeOwned + ToSchema + Validate + Send + 'static;
    /// The answer: any `Serialize + ToSchema` type is the `data` of the success envelope;
    /// `EventStream`, `Download` and `WebSocket` are the streamed kinds.
    type Output: Output;

    fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<Self::Path, Self::Query, Self::Body>,
    ) -> impl Future<Output = ApiResult<Self::Output>> + Send;
}
