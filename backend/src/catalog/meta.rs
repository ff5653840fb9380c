//! The declaration of an operation: its id, HTTP method and path, documentation, access
//! rule, permission, error codes and MCP exposure, built with `const` methods so each
//! operation states only what differs from the defaults.

use crate::access::{Access, Permission};
use crate::error::ErrorCode;

/// HTTP method of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
    /// Every body field is a required argument, though HTTP may omit them (LangBot's tool
    /// signature demands them all).
    pub all_required: bool,
    /// What the result's text is: LangBot's tool result, derived from the HTTP data
    /// (`structuredContent` stays the HTTP data).
    pub result: McpResult,
}

/// LangBot's tool result as a view of the operation's HTTP data (SPEC §12): list tools
/// answer the array, get tools the object itself, updates and deletes `{"ok": true}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpResult {
    /// The HTTP data as it is.
    Data,
    /// The member under this key: the list (`bots`) or the resource (`bot`).
    Member(&'static str),
    /// `{"ok": true}`, plus the data's own fields when it has any (what the delete changed).
    Ok,
    /// The rows under `items`, re-keyed by the value of the `key` member
    /// (`{kind: "messages", records: […]}` → `{messages: […]}`); other members kept.
    KeyedBy {
        items: &'static str,
        key: &'static str,
    },
}

impl McpTool {
    pub const FLAT: McpTool = McpTool {
        body_arg: None,
        renames: &[],
        query_args: &[],
        all_required: false,
        result: McpResult::Data,
    };

    /// The body under one argument (`bot_data`, …).
    pub const fn body(arg: &'static str) -> Self {
        Self {
            body_arg: Some(arg),
            ..Self::FLAT
        }
    }

    pub const fn renames(mut self, renames: &'static [(&'static str, &'static str)]) -> Self {
        self.renames = renames;
        self
    }

    pub const fn query_args(mut self, args: &'static [&'static str]) -> Self {
        self.query_args = args;
        self
    }

    pub const fn all_required(mut self) -> Self {
        self.all_required = true;
        self
    }

    pub const fn result(mut self, result: McpResult) -> Self {
        self.result = result;
        self
    }

    /// A list tool: the array under `key`.
    pub const fn list(key: &'static str) -> Self {
        Self::FLAT.result(McpResult::Member(key))
    }
}

/// The declaration of one operation.
#[derive(Debug, Clone, Copy)]
pub struct OpMeta {
    /// snake_case id: operationId, and the MCP tool name. The operation's type is named
    /// after it (`delete_model_provider` → `DeleteModelProvider`).
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

impl OpMeta {
    /// An operation in a Workspace (session or API key), with no permission, errors or
    /// MCP tool until stated.
    pub const fn new(method: Method, id: &'static str, path: &'static str) -> Self {
        Self {
            id,
            method,
            path,
            summary: "",
            description: "",
            tag: "",
            access: Access::Workspace,
            permission: None,
            errors: &[],
            mcp: None,
        }
    }

    pub const fn get(id: &'static str, path: &'static str) -> Self {
        Self::new(Method::Get, id, path)
    }

    pub const fn post(id: &'static str, path: &'static str) -> Self {
        Self::new(Method::Post, id, path)
    }

    pub const fn put(id: &'static str, path: &'static str) -> Self {
        Self::new(Method::Put, id, path)
    }

    pub const fn patch(id: &'static str, path: &'static str) -> Self {
        Self::new(Method::Patch, id, path)
    }

    pub const fn delete(id: &'static str, path: &'static str) -> Self {
        Self::new(Method::Delete, id, path)
    }

    pub const fn summary(mut self, summary: &'static str) -> Self {
        self.summary = summary;
        self
    }

    pub const fn description(mut self, description: &'static str) -> Self {
        self.description = description;
        self
    }

    pub const fn tag(mut self, tag: &'static str) -> Self {
        self.tag = tag;
        self
    }

    pub const fn access(mut self, access: Access) -> Self {
        self.access = access;
        self
    }

    pub const fn permission(mut self, permission: Permission) -> Self {
        self.permission = Some(permission);
        self
    }

    pub const fn errors(mut self, errors: &'static [ErrorCode]) -> Self {
        self.errors = errors;
        self
    }

    /// Exposes the operation as an MCP tool named after its id.
    pub const fn mcp(mut self, tool: McpTool) -> Self {
        self.mcp = Some(tool);
        self
    }

    /// `mcp` for declarations generated per kind, some of which have no tool.
    pub const fn mcp_if(mut self, tool: Option<McpTool>) -> Self {
        self.mcp = tool;
        self
    }
}
