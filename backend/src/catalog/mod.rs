//! The operation catalog (SPEC §3): every operation is declared once, and the HTTP routes,
//! the OpenAPI paths and the MCP tools are all derived from [`operations`].

mod dispatch;
pub mod http;
pub mod input;
pub mod openapi;
mod page;
mod types;

use std::future::Future;

use serde::de::DeserializeOwned;
use serde::Serialize;
use utoipa::{IntoParams, ToSchema};
use validator::Validate;

use crate::access::{Permission, RequestCtx};
use crate::error::{ApiResult, ErrorCode};
use crate::state::AppState;

pub use dispatch::{authorize, operations, DynOperation};
pub use input::Input;
pub use page::{PageInfo, PageQuery};
pub use types::{NoBody, NoParams, Null};

/// HTTP method of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Post => "POST",
            Self::Put => "PUT",
            Self::Patch => "PATCH",
            Self::Delete => "DELETE",
        }
    }
}

/// Which credentials an operation accepts (SPEC §5.2), and whether it runs in a Workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// No credentials.
    Public,
    /// No credentials needed, but a session token, when sent, identifies the account.
    OptionalSession,
    /// A session token; no Workspace context (account operations).
    Account,
    /// A session token, in the selected Workspace.
    SessionWorkspace,
    /// A session token or an API key (incl. the global key), in a Workspace.
    Workspace,
}

impl Access {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Public => "none",
            Self::OptionalSession => "none_or_session",
            Self::Account => "session",
            Self::SessionWorkspace => "session",
            Self::Workspace => "session_or_api_key",
        }
    }

    pub fn has_workspace(self) -> bool {
        matches!(self, Self::SessionWorkspace | Self::Workspace)
    }
}

/// How an MCP tool's arguments map onto the operation's input.
#[derive(Debug, Clone, Copy)]
pub struct McpTool {
    /// The argument holding the whole request body (LangBot's `<resource>_data`); `None`
    /// means the body fields are top-level arguments.
    pub body_arg: Option<&'static str>,
    /// `(mcp argument, input field)` pairs where LangBot's names differ from ours.
    pub renames: &'static [(&'static str, &'static str)],
    /// Query parameters offered as arguments (LangBot's tools have none unless listed).
    pub query_args: &'static [&'static str],
}

impl McpTool {
    pub const FLAT: McpTool = McpTool {
        body_arg: None,
        renames: &[],
        query_args: &[],
    };
}

/// The declaration of one operation.
#[derive(Debug, Clone, Copy)]
pub struct OpMeta {
    /// snake_case id: operationId, and the MCP tool name.
    pub id: &'static str,
    pub method: Method,
    /// Path below `/api/v1`, with `{param}` placeholders.
    pub path: &'static str,
    pub summary: &'static str,
    pub description: &'static str,
    pub tag: &'static str,
    pub access: Access,
    /// The permission required in the Workspace, if any.
    pub permission: Option<Permission>,
    /// Error codes the operation itself may answer with (the catalog adds the auth ones).
    pub errors: &'static [ErrorCode],
    pub mcp: Option<McpTool>,
}

/// One operation: its declaration, its typed input and output, and its transport-agnostic body.
pub trait Operation: Send + Sync + 'static {
    const META: OpMeta;
    /// Path parameters (`NoParams` when none).
    type Path: DeserializeOwned + IntoParams + Send + 'static;
    /// Query parameters (`NoParams` when none).
    type Query: DeserializeOwned + IntoParams + Validate + Send + 'static;
    /// JSON body (`NoBody` when none).
    type Body: DeserializeOwned + ToSchema + Validate + Send + 'static;
    /// The `data` of the success envelope.
    type Output: Serialize + ToSchema + Send + 'static;

    fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<Self::Path, Self::Query, Self::Body>,
    ) -> impl Future<Output = ApiResult<Self::Output>> + Send;
}
