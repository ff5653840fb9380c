//! The MCP server at `/mcp` (SPEC §12): streamable HTTP, stateless, JSON responses; API keys
//! only; `tools/list` filtered by the key's permissions, a missing permission is HTTP 403;
//! `structuredContent` is the HTTP `data`; domain errors are `isError` results. Parity with
//! LangBot's tool names and arguments and with the served OpenAPI document is checked against
//! independent oracles (the LangBot 4.11.2 tool dump and `/api/v1/openapi.json`).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{spawn_app, spawn_app_with, Response, TestApp};

const MCP: &str = "/mcp";
/// What the official clients send.
const ACCEPT: &str = "application/json, text/event-stream";
const SUPPORTED: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const LATEST: &str = "2025-11-25";
const VIEW_SCOPES: &[&str] = &["resource.view", "workspace.view"];

/// The tools the brief requires (all LangBot names).
const BRIEF_TOOLS: [&str; 20] = [
    "get_system_info",
    "list_bots",
    "get_bot",
    "create_bot",
    "update_bot",
    "delete_bot",
    "list_pipelines",
    "get_pipeline",
    "create_pipeline",
    "update_pipeline",
    "delete_pipeline",
    "list_llm_models",
    "get_llm_model",
    "list_embedding_models",
    "list_model_providers",
    "get_starred_model",
    "set_starred_model",
    "get_default_model",
    "get_workspace_message_language",
    "set_workspace_message_language",
];

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn request(id: Value, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// POST /mcp with an optional `X-API-Key` and a JSON body.
async fn post_mcp(app: &TestApp, key: Option<&str>, body: &Value) -> Response {
    let mut req = app.request(Method::POST, MCP).header("accept", ACCEPT);
    if let Some(key) = key {
        req = req.header("x-api-key", key);
    }
    req.json(body).send().await
}

/// POST /mcp with an optional `X-API-Key` and raw bytes as an `application/json` body.
async fn post_raw(app: &TestApp, key: Option<&str>, body: impl Into<reqwest::Body>) -> Response {
    let mut req = app.request(Method::POST, MCP).header("accept", ACCEPT);
    if let Some(key) = key {
        req = req.header("x-api-key", key);
    }
    req.raw_json(body).send().await
}

/// Asserts a JSON-RPC error body with `code` at HTTP `status`.
#[track_caller]
fn assert_rpc_error(res: &Response, status: u16, code: i64) {
    assert_eq!(res.status, status, "{}", res.text);
    assert_eq!(res.body["jsonrpc"], "2.0", "{}", res.text);
    assert!(res.body.get("result").is_none(), "{}", res.text);
    assert_eq!(res.body["error"]["code"], code, "{}", res.text);
    assert!(
        res.body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{}",
        res.text
    );
}

/// Asserts the 401 of a refused credential: `WWW-Authenticate: Bearer` and a JSON-RPC error.
#[track_caller]
fn assert_unauthorized(res: &Response, what: &str) {
    assert_eq!(res.status, 401, "{what}: {}", res.text);
    assert!(
        res.header("www-authenticate")
            .is_some_and(|h| h.starts_with("Bearer")),
        "{what}: WWW-Authenticate is {:?}",
        res.header("www-authenticate")
    );
    assert_eq!(res.body["jsonrpc"], "2.0", "{what}: {}", res.text);
    assert!(res.body.get("result").is_none(), "{what}: {}", res.text);
    assert!(res.body["error"]["code"].is_i64(), "{what}: {}", res.text);
    assert!(
        res.body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{what}: {}",
        res.text
    );
}

/// An MCP client for one API key.
struct Mcp<'a> {
    app: &'a TestApp,
    key: String,
}

impl<'a> Mcp<'a> {
    fn new(app: &'a TestApp, key: &str) -> Self {
        Self {
            app,
            key: key.to_string(),
        }
    }

    async fn send(&self, method: &str, params: Value) -> Response {
        post_mcp(
            self.app,
            Some(&self.key),
            &request(json!(7), method, params),
        )
        .await
    }

    /// The `result` of a successful request (HTTP 200, id echoed).
    async fn result(&self, method: &str, params: Value) -> Value {
        let res = self.send(method, params).await;
        assert_eq!(res.status, 200, "{method}: {}", res.text);
        assert_eq!(res.body["jsonrpc"], "2.0", "{method}: {}", res.text);
        assert_eq!(res.body["id"], 7, "{method}: {}", res.text);
        assert!(res.body.get("error").is_none(), "{method}: {}", res.text);
        res.body["result"].clone()
    }

    /// The raw `tools/call` result.
    async fn call(&self, name: &str, arguments: Value) -> Value {
        self.result(
            "tools/call",
            json!({ "name": name, "arguments": arguments }),
        )
        .await
    }

    /// A successful tool call: `structuredContent`, asserting the text item carries the same JSON.
    async fn ok(&self, name: &str, arguments: Value) -> Value {
        let result = self.call(name, arguments).await;
        assert_eq!(result["isError"], false, "{name}: {result}");
        let structured = result["structuredContent"].clone();
        assert!(structured.is_object(), "{name}: structuredContent {result}");
        let content = result["content"].as_array().expect("content");
        assert_eq!(content.len(), 1, "{name}: {result}");
        assert_eq!(content[0]["type"], "text", "{name}: {result}");
        let text: Value = serde_json::from_str(content[0]["text"].as_str().expect("text"))
            .unwrap_or_else(|e| panic!("{name}: the text is not JSON ({e}): {result}"));
        assert_eq!(
            text, structured,
            "{name}: text and structuredContent differ"
        );
        structured
    }

    /// A domain error: an `isError` result without `structuredContent`; answers `{code, msg …}`.
    async fn err(&self, name: &str, arguments: Value) -> Value {
        let result = self.call(name, arguments).await;
        assert_eq!(result["isError"], true, "{name}: {result}");
        assert!(
            result.get("structuredContent").is_none(),
            "{name}: an error carries structuredContent: {result}"
        );
        let content = result["content"].as_array().expect("content");
        assert_eq!(content.len(), 1, "{name}: {result}");
        assert_eq!(content[0]["type"], "text", "{name}: {result}");
        let body: Value = serde_json::from_str(content[0]["text"].as_str().expect("text"))
            .unwrap_or_else(|e| panic!("{name}: the error text is not JSON ({e}): {result}"));
        assert!(
            body["code"].as_str().is_some_and(|c| !c.is_empty()),
            "{name}: {body}"
        );
        assert!(
            body["msg"].as_str().is_some_and(|m| !m.is_empty()),
            "{name}: {body}"
        );
        body
    }

    async fn tools(&self) -> Vec<Value> {
        self.result("tools/list", json!({}))
            .await
            .get("tools")
            .and_then(Value::as_array)
            .cloned()
            .expect("tools")
    }

    async fn tool_names(&self) -> BTreeSet<String> {
        self.tools()
            .await
            .iter()
            .map(|t| t["name"].as_str().expect("tool name").to_string())
            .collect()
    }

    /// HTTP with the same key: the success `data`.
    async fn http(&self, method: Method, path: &str, body: Option<&Value>) -> Value {
        let mut req = self
            .app
            .request(method.clone(), path)
            .header("x-api-key", &self.key);
        if let Some(body) = body {
            req = req.json(body);
        }
        let res = req.send().await;
        assert_eq!(res.status, 200, "{method} {path}: {}", res.text);
        res.data().clone()
    }
}

/// An initialized instance: the app, the owner's session and a full (inheriting) API key.
async fn setup() -> (TestApp, String, String) {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let (_, key) = app.create_key(&owner, None).await;
    (app, owner, key)
}

fn error_fields(body: &Value) -> Vec<String> {
    body["errors"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|e| e["field"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Asserts an `invalid_request` tool error naming `field` (or `<x>.field`).
#[track_caller]
fn assert_invalid(body: &Value, field: &str, what: &str) {
    assert_eq!(body["code"], "invalid_request", "{what}: {body}");
    let fields = error_fields(body);
    assert!(
        fields
            .iter()
            .any(|f| f == field || f.ends_with(&format!(".{field}"))),
        "{what}: expected `errors` to name `{field}`, got {fields:?}: {body}"
    );
}

fn http_bot_data(name: &str) -> Value {
    json!({
        "name": name,
        "adapter": "http_bot",
        "adapter_config": { "inbound_secret": "s3cret-inbound", "callback_url": "http://127.0.0.1:9/cb" },
    })
}

/// Creates a provider and an LLM model over HTTP; answers the model's uuid.
async fn create_llm_model(app: &TestApp, owner: &str) -> String {
    let provider = app
        .send_as(
            owner,
            Method::POST,
            "/api/v1/provider/providers",
            &json!({
                "name": "p",
                "requester": "openai-chat-completions",
                "base_url": "http://127.0.0.1:9/v1",
                "api_keys": ["sk-provider-secret"],
            }),
        )
        .await;
    let provider_uuid = provider.data()["uuid"]
        .as_str()
        .expect("provider uuid")
        .to_string();
    let model = app
        .send_as(
            owner,
            Method::POST,
            "/api/v1/provider/models/llm",
            &json!({ "name": "gpt-test", "provider_uuid": provider_uuid }),
        )
        .await;
    model.data()["uuid"]
        .as_str()
        .expect("model uuid")
        .to_string()
}

/// An embedding model of the same kind of provider; answers its uuid.
async fn create_embedding_model(app: &TestApp, owner: &str) -> String {
    let provider = app
        .send_as(
            owner,
            Method::POST,
            "/api/v1/provider/providers",
            &json!({
                "name": "embeddings",
                "requester": "openai-chat-completions",
                "base_url": "http://127.0.0.1:9/v1",
                "api_keys": ["sk-other-secret"],
            }),
        )
        .await;
    let provider_uuid = provider.data()["uuid"]
        .as_str()
        .expect("provider uuid")
        .to_string();
    let model = app
        .send_as(
            owner,
            Method::POST,
            "/api/v1/provider/models/embedding",
            &json!({ "name": "embed-test", "provider_uuid": provider_uuid }),
        )
        .await;
    model.data()["uuid"]
        .as_str()
        .expect("embedding model uuid")
        .to_string()
}

fn reference_path(file: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/reference")
        .join(file)
}

/// LangBot 4.11.2's `tools/list` (the independent oracle for names and arguments).
fn langbot_tools() -> BTreeMap<String, Value> {
    let path = reference_path("langbot_4.11.2_mcp_tools.json");
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).expect("LangBot tools JSON");
    let list = match &doc {
        Value::Array(list) => list.clone(),
        other => other["tools"].as_array().cloned().expect("tools array"),
    };
    list.into_iter()
        .map(|t| (t["name"].as_str().expect("name").to_string(), t))
        .collect()
}

/// One operation of the served OpenAPI document.
struct HttpOp {
    method: Method,
    path: String,
    op: Value,
}

/// operationId → operation, from the served `/api/v1/openapi.json`.
async fn served_operations(app: &TestApp) -> (Value, BTreeMap<String, HttpOp>) {
    let res = app.get("/api/v1/openapi.json").await;
    assert_eq!(res.status, 200, "{}", res.text);
    let doc = res.body;
    let mut ops = BTreeMap::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            let Some(id) = op["operationId"].as_str() else {
                continue;
            };
            let method = Method::from_bytes(method.to_uppercase().as_bytes()).expect("method");
            ops.insert(
                id.to_string(),
                HttpOp {
                    method,
                    path: path.clone(),
                    op: op.clone(),
                },
            );
        }
    }
    (doc, ops)
}

fn strings(value: &Value) -> BTreeSet<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

fn keys(value: &Value) -> BTreeSet<String> {
    value
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

/// Rewrites `#/$defs/X` refs to `#/components/schemas/X`.
fn to_components(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = match (k.as_str(), v) {
                        ("$ref", Value::String(r)) => match r.strip_prefix("#/$defs/") {
                            Some(name) => json!(format!("#/components/schemas/{name}")),
                            None => v.clone(),
                        },
                        _ => to_components(v),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(to_components).collect()),
        other => other.clone(),
    }
}

fn collect_refs(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref") {
                out.insert(r.clone());
            }
            map.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Protocol
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn initialize_echoes_each_supported_version_and_answers_the_newest_otherwise() {
    let (app, _, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    let init = |v: Value| json!({ "protocolVersion": v, "capabilities": {}, "clientInfo": { "name": "api-tests", "version": "0" } });
    for version in SUPPORTED {
        let res = mcp.send("initialize", init(json!(version))).await;
        assert_eq!(res.status, 200, "{version}: {}", res.text);
        assert!(
            res.header("content-type")
                .is_some_and(|c| c.starts_with("application/json")),
            "{version}: {:?}",
            res.header("content-type")
        );
        assert!(
            res.header("mcp-session-id").is_none(),
            "a stateless server issues no session id"
        );
        let result = &res.body["result"];
        assert_eq!(result["protocolVersion"], version, "{}", res.text);
        assert_eq!(result["serverInfo"]["name"], "LangBot", "{}", res.text);
        assert!(result["serverInfo"]["version"].is_string(), "{}", res.text);
        assert!(result["capabilities"]["tools"].is_object(), "{}", res.text);
    }
    for unknown in [json!("2099-01-01"), json!("1.0"), json!(""), Value::Null] {
        let result = mcp.result("initialize", init(unknown.clone())).await;
        assert_eq!(result["protocolVersion"], LATEST, "requested {unknown}");
    }
    let result = mcp.result("initialize", json!({})).await;
    assert_eq!(result["protocolVersion"], LATEST, "no version requested");
}

#[tokio::test]
async fn notifications_and_client_responses_get_an_empty_202() {
    let (app, _, key) = setup().await;
    for body in [
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized", "params": {} }),
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 3, "reason": "user" } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": "t", "progress": 1 } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }),
        // A client's response to a server request.
        json!({ "jsonrpc": "2.0", "id": 9, "result": {} }),
    ] {
        let res = post_mcp(&app, Some(&key), &body).await;
        assert_eq!(res.status, 202, "{body}: {}", res.text);
        assert!(res.text.is_empty(), "{body}: body {:?}", res.text);
    }
}

#[tokio::test]
async fn ping_answers_an_empty_object_and_echoes_the_request_id() {
    let (app, _, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    assert_eq!(mcp.result("ping", json!({})).await, json!({}));
    // No params at all, and a string id.
    let res = post_mcp(
        &app,
        Some(&key),
        &json!({ "jsonrpc": "2.0", "id": "abc-1", "method": "ping" }),
    )
    .await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(
        res.body,
        json!({ "jsonrpc": "2.0", "id": "abc-1", "result": {} })
    );
    // Requests work without an earlier initialize (stateless), and an incoming session id is ignored.
    let res = app
        .request(Method::POST, MCP)
        .header("accept", ACCEPT)
        .header("x-api-key", &key)
        .header("mcp-session-id", "made-up")
        .header("mcp-protocol-version", LATEST)
        .json(&request(json!(0), "tools/list", json!({})))
        .send()
        .await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert!(res.body["result"]["tools"].is_array(), "{}", res.text);
}

#[tokio::test]
async fn unknown_methods_are_json_rpc_method_not_found() {
    let (app, _, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    for method in ["foo/bar", "tools/destroy", "sampling/createMessage", ""] {
        let res = mcp.send(method, json!({})).await;
        assert_rpc_error(&res, 200, -32601);
        assert_eq!(res.body["id"], 7, "{method}: the id is echoed");
    }
}

#[tokio::test]
async fn malformed_requests_are_400_with_json_rpc_errors() {
    let (app, _, key) = setup().await;
    // Not JSON at all.
    for raw in ["{", "not json", "{\"jsonrpc\":\"2.0\",\"id\":1,"] {
        let res = post_raw(&app, Some(&key), raw).await;
        assert_rpc_error(&res, 400, -32700);
    }
    // Batches are refused.
    let batch = json!([
        request(json!(1), "ping", json!({})),
        request(json!(2), "tools/list", json!({}))
    ]);
    assert_rpc_error(&post_mcp(&app, Some(&key), &batch).await, 400, -32600);
    assert_rpc_error(&post_mcp(&app, Some(&key), &json!([])).await, 400, -32600);
    // Not an object, or not JSON-RPC 2.0.
    for body in [
        json!(42),
        json!("ping"),
        json!(null),
        json!(true),
        json!({ "id": 1, "method": "ping" }),
        json!({ "jsonrpc": "1.0", "id": 1, "method": "ping" }),
        json!({ "jsonrpc": 2.0, "id": 1, "method": "ping" }),
        json!({ "jsonrpc": "2.0", "id": 1 }),
        json!({ "jsonrpc": "2.0", "id": 1, "method": 5 }),
    ] {
        let res = post_mcp(&app, Some(&key), &body).await;
        assert_rpc_error(&res, 400, -32600);
    }
}

#[tokio::test]
async fn get_delete_and_other_methods_are_405() {
    let (app, _, key) = setup().await;
    for method in [Method::GET, Method::DELETE, Method::PUT, Method::PATCH] {
        let res = app
            .request(method.clone(), MCP)
            .header("accept", "application/json, text/event-stream")
            .header("x-api-key", &key)
            .send()
            .await;
        assert_eq!(res.status, 405, "{method}: {}", res.text);
    }
    // Without credentials too: there is nothing to authorize.
    let res = app
        .request(Method::GET, MCP)
        .header("accept", "text/event-stream")
        .send()
        .await;
    assert!(
        res.status == 405 || res.status == 401,
        "GET without a key: {}",
        res.status
    );
}

#[tokio::test]
async fn a_body_over_one_mebibyte_is_413_and_just_under_is_fine() {
    let (app, _, key) = setup().await;
    assert_eq!(app.state.settings.api.body_limit, 1024 * 1024);
    let padded = |size: usize| {
        let mut body = request(json!(1), "ping", json!({ "pad": "" }));
        let overhead = body.to_string().len();
        body["params"]["pad"] = json!("x".repeat(size - overhead));
        let text = body.to_string();
        assert_eq!(text.len(), size);
        text
    };
    let res = post_raw(&app, Some(&key), padded(1024 * 1024 + 1)).await;
    assert_eq!(res.status, 413, "{}", res.text);
    if !res.text.is_empty() {
        assert_eq!(res.body["jsonrpc"], "2.0", "{}", res.text);
        assert!(res.body["error"]["code"].is_i64(), "{}", res.text);
    }
    let res = post_raw(&app, Some(&key), padded(2 * 1024 * 1024)).await;
    assert_eq!(res.status, 413, "{}", res.text);
    let res = post_raw(&app, Some(&key), padded(1024 * 1024 - 64)).await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(res.body["result"], json!({}), "{}", res.text);
}

#[tokio::test]
async fn unknown_tools_and_calls_without_a_name_are_json_rpc_errors() {
    let (app, _, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    let res = mcp
        .send("tools/call", json!({ "name": "nope", "arguments": {} }))
        .await;
    assert_rpc_error(&res, 200, -32602);
    assert_eq!(res.body["id"], 7);
    assert!(
        res.body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("nope")),
        "the message names the tool: {}",
        res.text
    );
    // A LangBot tool this server does not offer is unknown too.
    let res = mcp
        .send(
            "tools/call",
            json!({ "name": "list_skills", "arguments": {} }),
        )
        .await;
    assert!(
        res.body.get("error").is_some() || mcp.tool_names().await.contains("list_skills"),
        "{}",
        res.text
    );
    for params in [
        json!({ "arguments": {} }),
        json!({}),
        json!({ "name": null }),
        json!({ "name": 5 }),
    ] {
        let res = mcp.send("tools/call", params.clone()).await;
        assert_eq!(res.status, 200, "{params}: {}", res.text);
        assert!(res.body.get("result").is_none(), "{params}: {}", res.text);
        assert!(
            res.body["error"]["code"].is_i64(),
            "{params}: not a JSON-RPC error: {}",
            res.text
        );
    }
    // A missing `arguments` is `{}`.
    let info = mcp
        .result("tools/call", json!({ "name": "get_system_info" }))
        .await;
    assert_eq!(info["isError"], false, "{info}");
}

// ---------------------------------------------------------------------------------------------
// Authentication
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn mcp_needs_a_valid_api_key_before_anything_else() {
    let (app, owner, _) = setup().await;
    let list = request(json!(1), "tools/list", json!({}));
    assert_unauthorized(&post_mcp(&app, None, &list).await, "no key");
    let fake = format!("lbk_{}", "0".repeat(43));
    assert_unauthorized(&post_mcp(&app, Some(&fake), &list).await, "unknown key");
    assert_unauthorized(&post_mcp(&app, Some("garbage"), &list).await, "garbage key");
    assert_unauthorized(&post_mcp(&app, Some(""), &list).await, "empty key");
    let res = app
        .request(Method::POST, MCP)
        .bearer(&fake)
        .json(&list)
        .send()
        .await;
    assert_unauthorized(&res, "unknown key as Bearer");
    // Session tokens are for the web UI, not MCP.
    assert!(owner.starts_with("lbs_"));
    let res = app
        .request(Method::POST, MCP)
        .bearer(&owner)
        .json(&list)
        .send()
        .await;
    assert_unauthorized(&res, "session token as Bearer");
    assert_unauthorized(
        &post_mcp(&app, Some(&owner), &list).await,
        "session token as X-API-Key",
    );
    // Authentication is checked before the body is looked at.
    assert_unauthorized(
        &post_raw(&app, None, "{not json").await,
        "malformed, no key",
    );
    assert_unauthorized(
        &post_raw(&app, Some(&fake), "{not json").await,
        "malformed, bad key",
    );
    assert_unauthorized(
        &post_mcp(&app, None, &json!([list.clone()])).await,
        "batch, no key",
    );
    assert_unauthorized(&post_mcp(&app, None, &json!(42)).await, "scalar, no key");
    assert_unauthorized(
        &post_mcp(
            &app,
            None,
            &json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        )
        .await,
        "notification, no key",
    );
    assert_unauthorized(
        &post_mcp(
            &app,
            None,
            &request(json!(1), "tools/call", json!({ "name": "nope" })),
        )
        .await,
        "unknown tool, no key",
    );
    assert_unauthorized(
        &post_mcp(
            &app,
            None,
            &request(json!(1), "initialize", json!({ "protocolVersion": LATEST })),
        )
        .await,
        "initialize, no key",
    );
}

#[tokio::test]
async fn revoked_and_expired_keys_are_refused() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let ping = request(json!(1), "ping", json!({}));
    // Revoked.
    let (id, key) = app.create_key(&owner, None).await;
    assert_eq!(post_mcp(&app, Some(&key), &ping).await.status, 200);
    app.request(Method::DELETE, &format!("/api/v1/apikeys/{id}"))
        .bearer(&owner)
        .send()
        .await
        .data();
    assert_unauthorized(&post_mcp(&app, Some(&key), &ping).await, "revoked key");
    let res = app
        .request(Method::POST, MCP)
        .bearer(&key)
        .json(&ping)
        .send()
        .await;
    assert_unauthorized(&res, "revoked key as Bearer");
    // Expired (used once while valid, so a resolution cache would hold it).
    let expires = (chrono::Utc::now() + chrono::Duration::seconds(2)).to_rfc3339();
    let res = app
        .send_as(
            &owner,
            Method::POST,
            "/api/v1/apikeys",
            &json!({ "name": "short-lived", "expires_at": expires }),
        )
        .await;
    let key = res.data()["key"]["key"].as_str().unwrap().to_string();
    let expires_at: chrono::DateTime<chrono::Utc> = res.data()["key"]["expires_at"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(post_mcp(&app, Some(&key), &ping).await.status, 200);
    let wait = (expires_at - chrono::Utc::now())
        .to_std()
        .unwrap_or_default()
        + Duration::from_millis(300);
    tokio::time::sleep(wait).await;
    assert_unauthorized(&post_mcp(&app, Some(&key), &ping).await, "expired key");
    assert_unauthorized(
        &post_mcp(
            &app,
            Some(&key),
            &request(json!(1), "tools/call", json!({ "name": "list_bots" })),
        )
        .await,
        "expired key calling a tool",
    );
}

#[tokio::test]
async fn the_global_key_has_every_tool() {
    const GLOBAL: &str = "instance-wide-mcp-secret";
    let app = spawn_app_with(|s| s.api.global_api_key = Some(GLOBAL.into())).await;
    let owner = app.init_owner().await;
    let mcp = Mcp::new(&app, GLOBAL);
    let names = mcp.tool_names().await;
    for tool in BRIEF_TOOLS {
        assert!(
            names.contains(tool),
            "the global key misses {tool}: {names:?}"
        );
    }
    let set = mcp
        .ok(
            "set_workspace_message_language",
            json!({ "language": "ja_JP" }),
        )
        .await;
    assert_eq!(set["language"], "ja_JP");
    let http = app
        .get_as(&owner, "/api/v1/workspaces/current/language")
        .await;
    assert_eq!(http.data()["language"], "ja_JP");
    // As a Bearer too.
    let res = app
        .request(Method::POST, MCP)
        .bearer(GLOBAL)
        .json(&request(
            json!(1),
            "tools/call",
            json!({ "name": "get_workspace_message_language" }),
        ))
        .send()
        .await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(
        res.body["result"]["structuredContent"]["language"], "ja_JP",
        "{}",
        res.text
    );
    // A wrong global key is still a 401.
    assert_unauthorized(
        &post_mcp(&app, Some("instance-wide-mcp-secreT"), &json!({})).await,
        "near-miss global key",
    );
}

#[tokio::test]
async fn x_workspace_id_is_ignored() {
    let app = spawn_app_with(|s| s.workspaces.multi = true).await;
    let owner = app.init_owner().await;
    let home = app.workspace_of(&owner).await;
    let other = app.create_workspace(&owner, "Other").await;
    assert_ne!(home, other);
    let (_, key) = app.create_key(&owner, None).await;
    let created = app
        .request(Method::POST, "/api/v1/pipelines")
        .bearer(&owner)
        .header("x-workspace-id", &home)
        .json(&json!({ "name": "in-home" }))
        .send()
        .await;
    let uuid = created.data()["uuid"].as_str().unwrap().to_string();
    // The other Workspace really is different.
    let elsewhere = app
        .request(Method::GET, "/api/v1/pipelines")
        .bearer(&owner)
        .header("x-workspace-id", &other)
        .send()
        .await;
    assert!(
        !elsewhere.text.contains(&uuid),
        "the session sees home's pipeline in Other"
    );
    let baseline = Mcp::new(&app, &key).ok("list_pipelines", json!({})).await;
    for header in [
        other.clone(),
        uuid::Uuid::new_v4().to_string(),
        "junk".into(),
    ] {
        let res = app
            .request(Method::POST, MCP)
            .header("x-api-key", &key)
            .header("x-workspace-id", &header)
            .json(&request(
                json!(1),
                "tools/call",
                json!({ "name": "list_pipelines", "arguments": {} }),
            ))
            .send()
            .await;
        assert_eq!(res.status, 200, "X-Workspace-Id {header}: {}", res.text);
        assert_eq!(
            res.body["result"]["structuredContent"], baseline,
            "X-Workspace-Id {header} changed the Workspace"
        );
        assert!(res.text.contains(&uuid));
    }
}

// ---------------------------------------------------------------------------------------------
// Permissions
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn tools_list_shows_only_the_tools_the_key_may_call() {
    let (app, owner, key) = setup().await;
    let (_, view_key) = app.create_key(&owner, Some(VIEW_SCOPES)).await;
    let all = Mcp::new(&app, &key).tool_names().await;
    let visible = Mcp::new(&app, &view_key).tool_names().await;
    for tool in [
        "list_bots",
        "get_bot",
        "list_pipelines",
        "get_pipeline",
        "list_llm_models",
        "get_llm_model",
        "list_model_providers",
        "get_starred_model",
        "get_system_info",
        "get_workspace_message_language",
    ] {
        assert!(
            visible.contains(tool),
            "view key misses {tool}: {visible:?}"
        );
    }
    for tool in [
        "create_bot",
        "update_bot",
        "delete_bot",
        "create_pipeline",
        "update_pipeline",
        "delete_pipeline",
        "set_starred_model",
        "set_workspace_message_language",
    ] {
        assert!(!visible.contains(tool), "view key sees {tool}: {visible:?}");
    }
    // Generically: a tool is listed iff its operation's permission is one of the key's.
    let (_, ops) = served_operations(&app).await;
    for tool in &all {
        let op = ops
            .get(tool)
            .unwrap_or_else(|| panic!("tool {tool} has no operation in the OpenAPI document"));
        let may = match op.op["x-permission"].as_str() {
            None => true,
            Some(p) => VIEW_SCOPES.contains(&p),
        };
        assert_eq!(
            visible.contains(tool),
            may,
            "{tool} (x-permission {}) listed = {}",
            op.op["x-permission"],
            visible.contains(tool)
        );
    }
    assert!(visible.is_subset(&all));
}

#[tokio::test]
async fn a_tool_the_key_may_not_call_is_http_403_permission_denied() {
    let (app, owner, key) = setup().await;
    let (_, view_key) = app.create_key(&owner, Some(VIEW_SCOPES)).await;
    let view = Mcp::new(&app, &view_key);
    let full = Mcp::new(&app, &key);
    let bot = full
        .ok("create_bot", json!({ "bot_data": http_bot_data("b") }))
        .await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let before = full.ok("list_bots", json!({})).await;
    for (tool, arguments, permission) in [
        (
            "create_bot",
            json!({ "bot_data": http_bot_data("denied") }),
            "resource.manage",
        ),
        // The permission is checked before the arguments.
        ("create_bot", json!({}), "resource.manage"),
        (
            "update_bot",
            json!({ "bot_uuid": bot, "bot_data": { "name": "renamed" } }),
            "resource.manage",
        ),
        ("delete_bot", json!({ "bot_uuid": bot }), "resource.manage"),
        (
            "delete_pipeline",
            json!({ "pipeline_uuid": uuid::Uuid::new_v4().to_string() }),
            "resource.manage",
        ),
        (
            "set_workspace_message_language",
            json!({ "language": "ja_JP" }),
            "workspace.update",
        ),
        (
            "set_starred_model",
            json!({ "model_uuid": null }),
            "provider_secret.manage",
        ),
    ] {
        let res = post_mcp(
            &app,
            Some(&view_key),
            &request(
                json!(11),
                "tools/call",
                json!({ "name": tool, "arguments": arguments }),
            ),
        )
        .await;
        assert_eq!(res.status, 403, "{tool}: {}", res.text);
        assert_eq!(res.body["jsonrpc"], "2.0", "{tool}: {}", res.text);
        assert_eq!(res.body["id"], 11, "{tool}: {}", res.text);
        assert!(res.body.get("result").is_none(), "{tool}: {}", res.text);
        assert!(res.body["error"]["code"].is_i64(), "{tool}: {}", res.text);
        assert!(res.body["error"]["message"].is_string(), "{}", res.text);
        assert_eq!(
            res.body["error"]["data"],
            json!({ "code": "permission_denied", "permission": permission }),
            "{tool}: {}",
            res.text
        );
    }
    // Nothing changed.
    assert_eq!(full.ok("list_bots", json!({})).await, before);
    assert_eq!(
        view.ok("get_workspace_message_language", json!({})).await["language"],
        full.ok("get_workspace_message_language", json!({})).await["language"]
    );
    // What it may call works.
    let listed = view.ok("list_bots", json!({})).await;
    assert_eq!(listed["total"], 1, "{listed}");
    assert_eq!(listed["bots"][0]["uuid"], bot.as_str(), "{listed}");
}

// ---------------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn create_pipeline_then_get_pipeline_returns_the_http_data() {
    let (app, _, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    let created = mcp
        .ok(
            "create_pipeline",
            json!({ "pipeline_data": { "name": "Via MCP", "description": "made by a tool" } }),
        )
        .await;
    let uuid = created["uuid"].as_str().expect("uuid").to_string();
    assert_eq!(created, json!({ "uuid": uuid }));
    let result = mcp
        .call("get_pipeline", json!({ "pipeline_uuid": uuid }))
        .await;
    let http = mcp
        .http(Method::GET, &format!("/api/v1/pipelines/{uuid}"), None)
        .await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["structuredContent"], http);
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, http);
    assert_eq!(http["pipeline"]["name"], "Via MCP");
    assert_eq!(http["pipeline"]["description"], "made by a tool");
    // update_pipeline merges like HTTP PUT.
    let updated = mcp
        .ok(
            "update_pipeline",
            json!({ "pipeline_uuid": uuid, "pipeline_data": { "name": "Renamed" } }),
        )
        .await;
    assert_eq!(updated, json!({}));
    let after = mcp
        .ok("get_pipeline", json!({ "pipeline_uuid": uuid }))
        .await;
    assert_eq!(after["pipeline"]["name"], "Renamed");
    assert_eq!(after["pipeline"]["description"], "made by a tool");
    assert_eq!(after["pipeline"]["config"], http["pipeline"]["config"]);
}

#[tokio::test]
async fn a_bot_is_created_updated_read_and_deleted_through_tools() {
    let (app, _, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    let pipeline = mcp
        .ok(
            "create_pipeline",
            json!({ "pipeline_data": { "name": "Main", "is_default": true } }),
        )
        .await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let created = mcp
        .ok("create_bot", json!({ "bot_data": http_bot_data("Helper") }))
        .await;
    let uuid = created["uuid"].as_str().expect("bot uuid").to_string();
    assert_eq!(created, json!({ "uuid": uuid }));
    // (That get_bot's structuredContent is the HTTP data is checked by
    // `read_tools_return_the_http_data_of_their_operation`.)
    let got = mcp.ok("get_bot", json!({ "bot_uuid": uuid })).await;
    let bot = &got["bot"];
    assert_eq!(bot["name"], "Helper");
    assert_eq!(bot["adapter"], "http_bot");
    assert_eq!(bot["adapter_config"]["inbound_secret"], "***");
    assert_eq!(
        bot["adapter_config"]["callback_url"],
        "http://127.0.0.1:9/cb"
    );
    assert!(
        !got.to_string().contains("s3cret-inbound"),
        "the secret leaked: {got}"
    );
    let routes = bot["event_bindings"].as_array().expect("routes");
    assert_eq!(routes.len(), 2, "two default routes: {got}");
    assert!(routes.iter().all(|r| r["target_uuid"] == pipeline.as_str()));

    // update_bot: `***` keeps the stored secret; routes unchanged.
    let mut data = bot["adapter_config"].clone();
    data["callback_url"] = json!("http://127.0.0.1:9/other");
    let updated = mcp
        .ok(
            "update_bot",
            json!({ "bot_uuid": uuid, "bot_data": { "name": "Renamed", "adapter_config": data } }),
        )
        .await;
    assert_eq!(updated, json!({}));
    let after = mcp.ok("get_bot", json!({ "bot_uuid": uuid })).await;
    assert_eq!(after["bot"]["name"], "Renamed");
    assert_eq!(
        after["bot"]["adapter_config"]["callback_url"],
        "http://127.0.0.1:9/other"
    );
    assert_eq!(after["bot"]["adapter_config"]["inbound_secret"], "***");
    assert_eq!(after["bot"]["event_bindings"], bot["event_bindings"]);
    let listed = mcp.ok("list_bots", json!({})).await;
    assert_eq!(listed["total"], 1, "{listed}");
    assert_eq!(listed["bots"][0]["name"], "Renamed", "{listed}");

    // delete_bot answers {} and the bot is gone.
    assert_eq!(
        mcp.ok("delete_bot", json!({ "bot_uuid": uuid })).await,
        json!({})
    );
    let gone = mcp.err("get_bot", json!({ "bot_uuid": uuid })).await;
    assert_eq!(gone["code"], "resource_not_found", "{gone}");
    assert_eq!(
        mcp.ok("list_bots", json!({})).await["bots"],
        json!([]),
        "deleted bot still listed"
    );
}

#[tokio::test]
async fn the_message_language_round_trips() {
    let (app, owner, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    let before = mcp.ok("get_workspace_message_language", json!({})).await;
    assert!(before["language"].is_string(), "{before}");
    for language in ["ja_JP", "zh_Hans", "en_US"] {
        let set = mcp
            .ok(
                "set_workspace_message_language",
                json!({ "language": language }),
            )
            .await;
        assert_eq!(set["language"], language, "{set}");
        let got = mcp.ok("get_workspace_message_language", json!({})).await;
        assert_eq!(got["language"], language);
        let http = app
            .get_as(&owner, "/api/v1/workspaces/current/language")
            .await;
        assert_eq!(http.data()["language"], language);
    }
    let bad = mcp
        .err(
            "set_workspace_message_language",
            json!({ "language": "xx_XX" }),
        )
        .await;
    assert_eq!(bad["code"], "invalid_language", "{bad}");
    assert_eq!(error_fields(&bad), ["language"], "{bad}");
    let missing = mcp.err("set_workspace_message_language", json!({})).await;
    assert_invalid(&missing, "language", "missing language");
    let got = mcp.ok("get_workspace_message_language", json!({})).await;
    assert_eq!(
        got["language"], "en_US",
        "a refused language changed nothing"
    );
}

#[tokio::test]
async fn set_starred_model_stars_a_real_llm_model() {
    let (app, owner, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    assert_eq!(
        mcp.ok("get_starred_model", json!({})).await,
        json!({ "uuid": null })
    );
    let model = create_llm_model(&app, &owner).await;
    let set = mcp
        .ok("set_starred_model", json!({ "model_uuid": model }))
        .await;
    assert_eq!(set, json!({ "uuid": model }));
    assert_eq!(
        mcp.ok("get_starred_model", json!({})).await,
        json!({ "uuid": model })
    );
    assert_eq!(
        mcp.ok("get_default_model", json!({})).await,
        json!({ "uuid": model })
    );
    let http = app
        .get_as(&owner, "/api/v1/provider/models/llm/_/starred")
        .await;
    assert_eq!(http.data()["uuid"], model.as_str());
    let one = mcp
        .ok("get_llm_model", json!({ "model_uuid": model }))
        .await;
    assert_eq!(one["model"]["uuid"], model.as_str());
    assert_eq!(one["model"]["name"], "gpt-test");
    // Something that is not an LLM model of this Workspace is refused.
    let bad = mcp
        .err(
            "set_starred_model",
            json!({ "model_uuid": uuid::Uuid::new_v4().to_string() }),
        )
        .await;
    assert!(
        bad["code"] == "invalid_request" || bad["code"] == "resource_not_found",
        "{bad}"
    );
    // null clears.
    assert_eq!(
        mcp.ok("set_starred_model", json!({ "model_uuid": null }))
            .await,
        json!({ "uuid": null })
    );
    assert_eq!(
        mcp.ok("get_starred_model", json!({})).await,
        json!({ "uuid": null })
    );
}

#[tokio::test]
async fn a_renamed_argument_is_named_by_its_mcp_name() {
    // set_starred_model(model_uuid) is PUT {uuid} over HTTP: the conversion is the operation's,
    // so errors name the argument the caller sent, and the HTTP field is not an argument.
    let (app, owner, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    let model = create_llm_model(&app, &owner).await;
    let mut problems = Vec::new();
    let bad = mcp
        .err("set_starred_model", json!({ "model_uuid": 5 }))
        .await;
    assert_eq!(bad["code"], "invalid_request", "{bad}");
    if !error_fields(&bad).iter().any(|f| f == "model_uuid") {
        problems.push(format!(
            "model_uuid: 5 names {:?}, not model_uuid: {bad}",
            error_fields(&bad)
        ));
    }
    let res = mcp
        .call("set_starred_model", json!({ "uuid": model }))
        .await;
    if res["isError"] != true {
        problems.push(format!("`uuid` (not an argument) was accepted: {res}"));
    }
    let starred = mcp.ok("get_starred_model", json!({})).await;
    if starred != json!({ "uuid": null }) {
        problems.push(format!("the call with `uuid` starred the model: {starred}"));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[tokio::test]
async fn delete_tools_answer_the_http_data() {
    let (app, _, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    let bot = mcp
        .ok("create_bot", json!({ "bot_data": http_bot_data("b") }))
        .await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    // The bot's default routes target the pipeline that was made for it.
    let pipeline = mcp.ok("get_bot", json!({ "bot_uuid": bot })).await["bot"]["event_bindings"][0]
        ["target_uuid"]
        .as_str()
        .expect("route target")
        .to_string();
    // In use: a domain error naming the routes, not a crash.
    let in_use = mcp
        .err("delete_pipeline", json!({ "pipeline_uuid": pipeline }))
        .await;
    assert_eq!(in_use["code"], "pipeline_in_use", "{in_use}");
    assert_eq!(
        mcp.ok("delete_bot", json!({ "bot_uuid": bot })).await,
        json!({}),
        "null data is {{}}"
    );
    let deleted = mcp
        .ok("delete_pipeline", json!({ "pipeline_uuid": pipeline }))
        .await;
    assert_eq!(deleted, json!({ "removed_routes": [] }));
    // The same operation over HTTP answers the same data.
    let other = mcp
        .ok(
            "create_pipeline",
            json!({ "pipeline_data": { "name": "o" } }),
        )
        .await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let http = mcp
        .http(Method::DELETE, &format!("/api/v1/pipelines/{other}"), None)
        .await;
    assert_eq!(http, deleted);
    let gone = mcp
        .err("get_pipeline", json!({ "pipeline_uuid": pipeline }))
        .await;
    assert_eq!(gone["code"], "resource_not_found");
    let again = mcp.err("delete_bot", json!({ "bot_uuid": bot })).await;
    assert_eq!(again["code"], "resource_not_found");
}

#[tokio::test]
async fn domain_errors_are_is_error_results_with_code_and_msg() {
    let (app, _, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    let random = uuid::Uuid::new_v4().to_string();
    // Not found.
    for (tool, args) in [
        ("get_bot", json!({ "bot_uuid": random })),
        ("get_pipeline", json!({ "pipeline_uuid": random })),
        ("get_llm_model", json!({ "model_uuid": random })),
        ("delete_bot", json!({ "bot_uuid": random })),
        (
            "update_pipeline",
            json!({ "pipeline_uuid": random, "pipeline_data": { "name": "x" } }),
        ),
    ] {
        let body = mcp.err(tool, args).await;
        assert_eq!(body["code"], "resource_not_found", "{tool}: {body}");
    }
    // Validation: a body field missing.
    let mut data = http_bot_data("b");
    data.as_object_mut().unwrap().remove("adapter_config");
    let body = mcp.err("create_bot", json!({ "bot_data": data })).await;
    assert_invalid(&body, "adapter_config", "bot_data without adapter_config");
    let body = mcp
        .err("create_pipeline", json!({ "pipeline_data": {} }))
        .await;
    assert_invalid(&body, "name", "pipeline_data without name");
    // The wrong type of argument.
    let body = mcp.err("get_pipeline", json!({ "pipeline_uuid": 5 })).await;
    assert_invalid(&body, "pipeline_uuid", "pipeline_uuid: 5");
    let body = mcp.err("get_bot", json!({ "bot_uuid": ["x"] })).await;
    assert_invalid(&body, "bot_uuid", "bot_uuid: array");
    // A required argument missing.
    let body = mcp.err("get_pipeline", json!({})).await;
    assert_invalid(&body, "pipeline_uuid", "no pipeline_uuid");
    let body = mcp.err("create_bot", json!({})).await;
    assert_eq!(body["code"], "invalid_request", "no bot_data: {body}");
    let body = mcp.err("create_bot", json!({ "bot_data": "x" })).await;
    assert_eq!(body["code"], "invalid_request", "bot_data a string: {body}");
    // An unknown extra argument.
    let body = mcp
        .err(
            "get_pipeline",
            json!({ "pipeline_uuid": random, "verbose": true }),
        )
        .await;
    assert_invalid(&body, "verbose", "unknown argument");
    let body = mcp.err("list_bots", json!({ "limit": 5 })).await;
    assert_eq!(body["code"], "invalid_request", "list_bots(limit): {body}");
    let body = mcp
        .err(
            "create_bot",
            json!({ "bot_data": http_bot_data("b"), "extra": 1 }),
        )
        .await;
    assert_eq!(body["code"], "invalid_request", "create_bot(extra): {body}");
    // Nothing was created by the failed calls.
    assert_eq!(mcp.ok("list_bots", json!({})).await["bots"], json!([]));
    // `arguments` that are not an object.
    let result = mcp
        .result(
            "tools/call",
            json!({ "name": "list_bots", "arguments": [1] }),
        )
        .await;
    assert!(
        result["isError"] == true || result.is_null(),
        "array arguments: {result}"
    );
}

#[tokio::test]
async fn secrets_are_redacted() {
    let (app, owner, key) = setup().await;
    let (_, view_key) = app.create_key(&owner, Some(VIEW_SCOPES)).await;
    let (_, manage_key) = app
        .create_key(&owner, Some(&["resource.view", "resource.manage"]))
        .await;
    let mcp = Mcp::new(&app, &key);
    let bot = mcp
        .ok("create_bot", json!({ "bot_data": http_bot_data("b") }))
        .await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    create_llm_model(&app, &owner).await;
    for k in [&key, &view_key, &manage_key] {
        let client = Mcp::new(&app, k);
        let got = client.ok("get_bot", json!({ "bot_uuid": bot })).await;
        assert_eq!(got["bot"]["adapter_config"]["inbound_secret"], "***");
        let raw = client
            .call("get_bot", json!({ "bot_uuid": bot }))
            .await
            .to_string();
        assert!(!raw.contains("s3cret-inbound"), "secret leaked: {raw}");
    }
    for k in [&view_key, &manage_key] {
        let client = Mcp::new(&app, k);
        let providers = client.ok("list_model_providers", json!({})).await;
        let list = providers["providers"].as_array().expect("providers");
        assert_eq!(list.len(), 1, "{providers}");
        assert_eq!(list[0]["api_keys"], json!(["***"]), "{providers}");
        let raw = client
            .call("list_model_providers", json!({}))
            .await
            .to_string();
        assert!(!raw.contains("sk-provider-secret"), "secret leaked: {raw}");
    }
}

// ---------------------------------------------------------------------------------------------
// Parity with independent oracles
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn shared_tools_have_langbots_argument_names_and_required_arguments() {
    let (app, _, key) = setup().await;
    let langbot = langbot_tools();
    assert_eq!(langbot.len(), 54, "the LangBot 4.11.2 dump has 54 tools");
    let ours = Mcp::new(&app, &key).tools().await;
    let mut shared = 0;
    let mut problems = Vec::new();
    for tool in &ours {
        let name = tool["name"].as_str().unwrap();
        assert!(tool["description"].is_string(), "{name}: no description");
        assert_eq!(tool["inputSchema"]["type"], "object", "{name}");
        let Some(theirs) = langbot.get(name) else {
            continue;
        };
        shared += 1;
        let (ours_s, theirs_s) = (&tool["inputSchema"], &theirs["inputSchema"]);
        let (a, b) = (keys(&ours_s["properties"]), keys(&theirs_s["properties"]));
        if a != b {
            problems.push(format!("{name}: arguments {a:?}, LangBot {b:?}"));
        }
        let (a, b) = (strings(&ours_s["required"]), strings(&theirs_s["required"]));
        if a != b {
            problems.push(format!("{name}: required {a:?}, LangBot {b:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(shared >= BRIEF_TOOLS.len(), "only {shared} shared tools");
}

#[tokio::test]
async fn every_required_tool_is_offered_under_its_langbot_name() {
    let (app, _, key) = setup().await;
    let langbot = langbot_tools();
    let names = Mcp::new(&app, &key).tool_names().await;
    for tool in BRIEF_TOOLS {
        assert!(
            langbot.contains_key(tool),
            "{tool} is not a LangBot tool name"
        );
        assert!(names.contains(tool), "{tool} missing: {names:?}");
    }
    // Every tool is an operation of the served OpenAPI document, marked x-mcp-tool.
    let (_, ops) = served_operations(&app).await;
    for name in &names {
        let op = ops
            .get(name)
            .unwrap_or_else(|| panic!("{name}: no operation with this operationId"));
        assert_eq!(op.op["x-mcp-tool"], true, "{name}");
    }
    let marked: BTreeSet<String> = ops
        .iter()
        .filter(|(_, op)| op.op["x-mcp-tool"] == true)
        .map(|(id, _)| id.clone())
        .collect();
    assert_eq!(marked, names, "x-mcp-tool operations and tools/list differ");
}

#[tokio::test]
async fn resource_data_arguments_have_the_http_request_body_schema() {
    let (app, _, key) = setup().await;
    let (doc, ops) = served_operations(&app).await;
    let components = doc["components"]["schemas"].clone();
    let mut checked = BTreeSet::new();
    for tool in Mcp::new(&app, &key).tools().await {
        let name = tool["name"].as_str().unwrap().to_string();
        let schema = &tool["inputSchema"];
        // Every `$defs` entry is the component of the same name.
        for (def, value) in schema["$defs"].as_object().into_iter().flatten() {
            assert_eq!(
                to_components(value),
                components[def],
                "{name}: $defs/{def} differs from components.schemas.{def}"
            );
        }
        // Every ref resolves inside the tool schema.
        let mut refs = BTreeSet::new();
        collect_refs(schema, &mut refs);
        for r in refs {
            let def = r
                .strip_prefix("#/$defs/")
                .unwrap_or_else(|| panic!("{name}: non-local ref {r}"));
            assert!(
                schema["$defs"].get(def).is_some(),
                "{name}: {r} does not resolve"
            );
        }
        for (arg, value) in schema["properties"].as_object().into_iter().flatten() {
            if !arg.ends_with("_data") {
                continue;
            }
            let op = ops
                .get(&name)
                .unwrap_or_else(|| panic!("{name}: no operation"));
            let body = &op.op["requestBody"]["content"]["application/json"]["schema"];
            assert!(!body.is_null(), "{name}: {arg} but no request body");
            let expected = match body["$ref"]
                .as_str()
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                Some(component) => components[component].clone(),
                None => body.clone(),
            };
            assert!(!expected.is_null(), "{name}: unresolved body {body}");
            assert_eq!(
                to_components(value),
                expected,
                "{name}: {arg} differs from the request body of {} {}",
                op.method,
                op.path
            );
            assert!(
                strings(&schema["required"]).contains(arg),
                "{name}: {arg} is not required"
            );
            checked.insert(format!("{name}.{arg}"));
        }
    }
    for expected in [
        "create_bot.bot_data",
        "update_bot.bot_data",
        "create_pipeline.pipeline_data",
        "update_pipeline.pipeline_data",
    ] {
        assert!(
            checked.contains(expected),
            "{expected} not checked: {checked:?}"
        );
    }
}

#[tokio::test]
async fn read_tools_return_the_http_data_of_their_operation() {
    let (app, owner, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    // Something to read: a default pipeline, a bot routed to it, models, a starred model,
    // a non-default language.
    let pipeline = mcp
        .ok(
            "create_pipeline",
            json!({ "pipeline_data": { "name": "P", "is_default": true } }),
        )
        .await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let bot = mcp
        .ok("create_bot", json!({ "bot_data": http_bot_data("B") }))
        .await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let llm = create_llm_model(&app, &owner).await;
    let embedding = create_embedding_model(&app, &owner).await;
    mcp.ok("set_starred_model", json!({ "model_uuid": llm }))
        .await;
    mcp.ok(
        "set_workspace_message_language",
        json!({ "language": "ja_JP" }),
    )
    .await;

    let (_, ops) = served_operations(&app).await;
    let mut compared = BTreeSet::new();
    let mut mismatches = Vec::new();
    for tool in mcp.tools().await {
        let name = tool["name"].as_str().unwrap().to_string();
        let op = ops
            .get(&name)
            .unwrap_or_else(|| panic!("{name}: no operation"));
        if op.method != Method::GET {
            continue;
        }
        // Fill the required arguments with ids that exist.
        let mut args = serde_json::Map::new();
        let mut path = op.path.clone();
        let mut fillable = true;
        for arg in strings(&tool["inputSchema"]["required"]) {
            let id = match arg.as_str() {
                "bot_uuid" => &bot,
                "pipeline_uuid" => &pipeline,
                "model_uuid" if op.path.contains("/embedding/") => &embedding,
                "model_uuid" => &llm,
                _ => {
                    fillable = false;
                    break;
                }
            };
            path = path.replace(&format!("{{{arg}}}"), id);
            args.insert(arg.clone(), json!(id));
        }
        if !fillable {
            continue;
        }
        assert!(!path.contains('{'), "{name}: unfilled path {path}");
        let structured = mcp.ok(&name, Value::Object(args)).await;
        // MCP never shows secrets: compare with HTTP asked the same (`include_secret=false`).
        let http_path = if path.starts_with("/api/v1/provider/")
            && op.path != "/api/v1/provider/models/llm/_/starred"
            && op.path != "/api/v1/provider/models/llm/_/default"
        {
            format!("{path}?include_secret=false")
        } else {
            path.clone()
        };
        let http = mcp.http(Method::GET, &http_path, None).await;
        let http = if http.is_null() { json!({}) } else { http };
        if structured != http {
            mismatches.push(format!(
                "{name} (GET {path}):\n  MCP  {structured}\n  HTTP {http}"
            ));
        }
        compared.insert(name);
    }
    for expected in [
        "get_system_info",
        "list_bots",
        "get_bot",
        "list_pipelines",
        "get_pipeline",
        "list_llm_models",
        "get_llm_model",
        "list_embedding_models",
        "list_model_providers",
        "get_starred_model",
        "get_default_model",
        "get_workspace_message_language",
    ] {
        assert!(
            compared.contains(expected),
            "{expected} not compared: {compared:?}"
        );
    }
    assert!(
        mismatches.is_empty(),
        "structuredContent differs from the HTTP data:\n{}",
        mismatches.join("\n")
    );
}
