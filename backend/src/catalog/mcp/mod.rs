//! The MCP server at `/mcp` (SPEC §12): streamable HTTP, stateless, JSON responses. The tools
//! are the catalog's MCP-marked operations; `tools/call` runs the same operation body as HTTP,
//! after the same `authorize`.
//!
//! The protocol surface used here is small (five methods over one POST), and the tool schemas
//! must be the OpenAPI ones, so the JSON-RPC shapes are written here rather than taken from
//! `rmcp`, whose server side brings its own (schemars) schema generation and a tower transport.

mod jsonrpc;
pub(super) mod tools;

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use serde_json::{json, Value};

use super::{authorize, request, Catalog, OpMeta};
use crate::access::{secrets, Credentials, RequestCtx};
use crate::error::{ApiError, ErrorCode};
use crate::state::AppState;
use jsonrpc::{RpcError, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR};
pub use tools::Tool;

pub const SUPPORTED_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const LATEST: &str = "2025-11-25";

/// Routes: POST speaks JSON-RPC; other methods are 405.
pub fn configure(catalog: &'static Catalog, cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/mcp")
            .route(web::post().to(
                move |req: HttpRequest, payload: web::Payload, state: web::Data<AppState>| {
                    handle(catalog, req, payload, state)
                },
            ))
            .default_service(web::to(method_not_allowed)),
    );
}

async fn method_not_allowed() -> HttpResponse {
    HttpResponse::MethodNotAllowed()
        .insert_header((header::ALLOW, "POST"))
        .json(
            RpcError::new(
                Value::Null,
                INVALID_REQUEST,
                "Method Not Allowed: this server is stateless; use POST",
            )
            .body(),
        )
}

/// The rule an MCP caller must satisfy before any tool: a key, in its Workspace (each tool
/// then checks its own permission).
const MCP_ACCESS: OpMeta = OpMeta::post("mcp", "/mcp").tag("mcp");

fn unauthorized(message: &str) -> HttpResponse {
    HttpResponse::Unauthorized()
        .insert_header((header::WWW_AUTHENTICATE, "Bearer"))
        .json(
            RpcError::new(Value::Null, -32001, message)
                .with_data(json!({ "code": "invalid_authentication" }))
                .body(),
        )
}

async fn handle(
    catalog: &'static Catalog,
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    // Authentication comes before anything else: only API keys (and the global key).
    let mut creds = request::credentials(&req);
    creds.workspace_id = None;
    if is_session_token(&creds) {
        return unauthorized("A valid LangBot API key is required for MCP access");
    }
    let base = request::anonymous_ctx(&req, &state);
    let ctx = match authorize(&state, &MCP_ACCESS, &creds, base).await {
        Ok(ctx) => RequestCtx {
            conceal_secrets: true,
            ..ctx
        },
        Err(_) => return unauthorized("A valid LangBot API key is required for MCP access"),
    };
    let body = match crate::http::read_body(&req, payload, state.settings.api.body_limit).await {
        Ok(body) => body,
        Err(e) if e.code == ErrorCode::PayloadTooLarge => {
            return HttpResponse::PayloadTooLarge().json(
                RpcError::new(Value::Null, INVALID_REQUEST, "Request body too large").body(),
            );
        }
        Err(e) => {
            return HttpResponse::BadRequest()
                .json(RpcError::new(Value::Null, INVALID_REQUEST, e.english()).body())
        }
    };
    let message: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            return HttpResponse::BadRequest()
                .json(RpcError::new(Value::Null, PARSE_ERROR, format!("Parse error: {e}")).body())
        }
    };
    let Value::Object(message) = message else {
        let why = if message.is_array() {
            "Batches are not supported"
        } else {
            "A JSON-RPC request must be an object"
        };
        return HttpResponse::BadRequest()
            .json(RpcError::new(Value::Null, INVALID_REQUEST, why).body());
    };
    let id = message.get("id").cloned();
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_string);
    let (Some(method), true) = (method, message.get("jsonrpc") == Some(&json!("2.0"))) else {
        // A response or something malformed; responses from clients are acknowledged.
        if message.contains_key("result") || message.contains_key("error") {
            return HttpResponse::Accepted().finish();
        }
        return HttpResponse::BadRequest().json(
            RpcError::new(
                id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "Invalid JSON-RPC request",
            )
            .body(),
        );
    };
    let Some(id) = id else {
        // Notifications need no answer.
        return HttpResponse::Accepted().finish();
    };
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    match dispatch(catalog, &state, &ctx, &method, params).await {
        Ok(result) => {
            HttpResponse::Ok().json(json!({ "jsonrpc": "2.0", "id": id, "result": result }))
        }
        Err(Failure::Rpc(err)) => HttpResponse::Ok().json(RpcError { id, ..err }.body()),
        Err(Failure::Forbidden(err)) => {
            HttpResponse::Forbidden().json(RpcError { id, ..err }.body())
        }
    }
}

fn is_session_token(creds: &Credentials) -> bool {
    creds.api_key.is_none()
        && creds
            .bearer
            .as_deref()
            .is_some_and(|b| b.starts_with(secrets::SESSION_PREFIX))
}

enum Failure {
    Rpc(RpcError),
    /// The key lacks the tool's permission: HTTP 403.
    Forbidden(RpcError),
}

async fn dispatch(
    catalog: &Catalog,
    state: &AppState,
    ctx: &RequestCtx,
    method: &str,
    params: Value,
) -> Result<Value, Failure> {
    match method {
        "initialize" => {
            let requested = params["protocolVersion"].as_str().unwrap_or_default();
            let version = SUPPORTED_VERSIONS
                .iter()
                .find(|v| **v == requested)
                .copied()
                .unwrap_or(LATEST);
            Ok(json!({
                "protocolVersion": version,
                "capabilities": { "tools": { "listChanged": false } },
                "serverInfo": { "name": "LangBot", "version": env!("CARGO_PKG_VERSION") },
                "instructions": "LangBot Core: manage bots, pipelines, models and monitoring of this Workspace. \
                                 Authenticate with a LangBot API key (lbk_…) in X-API-Key or Authorization: Bearer.",
            }))
        }
        "ping" => Ok(json!({})),
        "tools/list" => Ok(json!({ "tools": tools::list(catalog.tools(), ctx) })),
        "tools/call" => call(catalog, state, ctx, params).await,
        "prompts/list" => Ok(json!({ "prompts": [] })),
        "resources/list" => Ok(json!({ "resources": [] })),
        "resources/templates/list" => Ok(json!({ "resourceTemplates": [] })),
        other => Err(Failure::Rpc(RpcError::new(
            Value::Null,
            METHOD_NOT_FOUND,
            format!("Method not found: {other}"),
        ))),
    }
}

async fn call(
    catalog: &Catalog,
    state: &AppState,
    ctx: &RequestCtx,
    params: Value,
) -> Result<Value, Failure> {
    let Some(name) = params["name"].as_str() else {
        return Err(Failure::Rpc(RpcError::new(
            Value::Null,
            INVALID_PARAMS,
            "tools/call needs a tool name",
        )));
    };
    let Some(tool) = catalog.tools().iter().find(|t| t.name == name) else {
        return Err(Failure::Rpc(RpcError::new(
            Value::Null,
            INVALID_PARAMS,
            format!("Unknown tool: {name}"),
        )));
    };
    let meta = tool.meta;
    if let (Some(permission), Some(ws)) = (meta.permission, ctx.workspace.as_ref()) {
        if !ws.permissions.contains(permission) {
            let err = RpcError::new(
                Value::Null,
                -32003,
                format!("Missing Workspace permission: {}", permission.as_str()),
            )
            .with_data(json!({ "code": "permission_denied", "permission": permission.as_str() }));
            return Err(Failure::Forbidden(err));
        }
    }
    let arguments = match &params["arguments"] {
        Value::Null => serde_json::Map::new(),
        Value::Object(map) => map.clone(),
        _ => {
            return Ok(tool_error(
                &ApiError::invalid("arguments must be an object")
                    .field("arguments", "must be an object"),
            ))
        }
    };
    let result = match tool.split(arguments) {
        Ok((path, query, body)) => match catalog.operations().get(tool.index) {
            Some(op) => op.call_json(state, ctx, path, query, body).await,
            None => Err(ApiError::internal(anyhow::anyhow!(
                "tool {name} lost its operation"
            ))),
        },
        Err(e) => Err(e),
    }
    .map_err(|e| tool.name_fields(e));
    // The text is LangBot's result (arrays for list tools, the object for get tools);
    // `structuredContent` is the HTTP data, always an object as MCP requires.
    let result = result.and_then(|data| {
        let structured = if data.is_null() { json!({}) } else { data };
        Ok((tool.langbot_result(&structured)?, structured))
    });
    Ok(match result {
        Ok((text, structured)) => json!({
            "content": [{ "type": "text", "text": text.to_string() }],
            "structuredContent": structured,
            "isError": false,
        }),
        Err(e) => tool_error(&e),
    })
}

/// A domain error as a tool result.
fn tool_error(e: &ApiError) -> Value {
    let (_, lang) = crate::error::request_local::current();
    let mut body = json!({ "code": e.code, "msg": e.message_in(lang) });
    if !e.errors.is_empty() {
        body["errors"] = json!(e.errors);
    }
    if let Some(details) = &e.details {
        body["details"] = details.clone();
    }
    json!({ "content": [{ "type": "text", "text": body.to_string() }], "isError": true })
}
