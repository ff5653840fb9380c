//! An MCP client for `/mcp`: JSON-RPC requests with an API key, and the assertions on what
//! the server answers (results, tool errors, JSON-RPC errors, refused credentials).

use std::collections::BTreeSet;

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{Response, TestApp};

pub const MCP: &str = "/mcp";
/// What the official clients send.
pub const ACCEPT: &str = "application/json, text/event-stream";

pub fn request(id: Value, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// POST /mcp with an optional `X-API-Key` and a JSON body.
pub async fn post_mcp(app: &TestApp, key: Option<&str>, body: &Value) -> Response {
    let mut req = app.request(Method::POST, MCP).header("accept", ACCEPT);
    if let Some(key) = key {
        req = req.header("x-api-key", key);
    }
    req.json(body).send().await
}

/// POST /mcp with an optional `X-API-Key` and raw bytes as an `application/json` body.
pub async fn post_raw(
    app: &TestApp,
    key: Option<&str>,
    body: impl Into<reqwest::Body>,
) -> Response {
    let mut req = app.request(Method::POST, MCP).header("accept", ACCEPT);
    if let Some(key) = key {
        req = req.header("x-api-key", key);
    }
    req.raw_json(body).send().await
}

/// Asserts a JSON-RPC error body with `code` at HTTP `status`.
#[track_caller]
pub fn assert_rpc_error(res: &Response, status: u16, code: i64) {
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
pub fn assert_unauthorized(res: &Response, what: &str) {
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
pub struct Mcp<'a> {
    pub app: &'a TestApp,
    pub key: String,
}

impl<'a> Mcp<'a> {
    pub fn new(app: &'a TestApp, key: &str) -> Self {
        Self {
            app,
            key: key.to_string(),
        }
    }

    pub async fn send(&self, method: &str, params: Value) -> Response {
        post_mcp(
            self.app,
            Some(&self.key),
            &request(json!(7), method, params),
        )
        .await
    }

    /// The `result` of a successful request (HTTP 200, id echoed).
    pub async fn result(&self, method: &str, params: Value) -> Value {
        let res = self.send(method, params).await;
        assert_eq!(res.status, 200, "{method}: {}", res.text);
        assert_eq!(res.body["jsonrpc"], "2.0", "{method}: {}", res.text);
        assert_eq!(res.body["id"], 7, "{method}: {}", res.text);
        assert!(res.body.get("error").is_none(), "{method}: {}", res.text);
        res.body["result"].clone()
    }

    /// The raw `tools/call` result.
    pub async fn call(&self, name: &str, arguments: Value) -> Value {
        self.result(
            "tools/call",
            json!({ "name": name, "arguments": arguments }),
        )
        .await
    }

    /// A successful tool call: `structuredContent`, asserting the text item carries the same JSON.
    pub async fn ok(&self, name: &str, arguments: Value) -> Value {
        let result = self.call(name, arguments).await;
        assert_eq!(result["isError"], false, "{name}: {result}");
        let structured = result["structuredContent"].clone();
        assert!(structured.is_object(), "{name}: structuredContent {result}");
        let content = result["content"].as_array().expect("content");
        assert_eq!(content.len(), 1, "{name}: {result}");
        assert_eq!(content[0]["type"], "text", "{name}: {result}");
        let text: Value = serde_json::from_str(content[0]["text"].as_str().expect("text"))
            .unwrap_or_else(|e| panic!("{name}: the text is not JSON ({e}): {result}"));
        assert_langbot_view(name, &text, &structured);
        structured
    }

    /// A successful tool call's text: LangBot's result (the array, the object, `{"ok": true}`).
    pub async fn text(&self, name: &str, arguments: Value) -> Value {
        let result = self.call(name, arguments).await;
        assert_eq!(result["isError"], false, "{name}: {result}");
        let text: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().expect("text"))
                .unwrap_or_else(|e| panic!("{name}: the text is not JSON ({e}): {result}"));
        assert_langbot_view(name, &text, &result["structuredContent"]);
        text
    }

    /// A domain error: an `isError` result without `structuredContent`; answers `{code, msg …}`.
    pub async fn err(&self, name: &str, arguments: Value) -> Value {
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

    pub async fn tools(&self) -> Vec<Value> {
        self.result("tools/list", json!({}))
            .await
            .get("tools")
            .and_then(Value::as_array)
            .cloned()
            .expect("tools")
    }

    pub async fn tool_names(&self) -> BTreeSet<String> {
        self.tools()
            .await
            .iter()
            .map(|t| t["name"].as_str().expect("tool name").to_string())
            .collect()
    }

    /// HTTP with the same key: the success `data`.
    pub async fn http(&self, method: Method, path: &str, body: Option<&Value>) -> Value {
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

/// Asserts that a result's text is LangBot's view of its `structuredContent` (the HTTP data):
/// the data itself, one member of it (`bots`, `bot`), `{"ok": true}` with the data's fields,
/// or the `records` re-keyed by their `kind`.
#[track_caller]
pub fn assert_langbot_view(name: &str, text: &Value, structured: &Value) {
    let map = structured
        .as_object()
        .expect("structuredContent is an object");
    let member = map.values().any(|v| v == text);
    let ok = text.as_object().is_some_and(|t| {
        t.get("ok") == Some(&Value::Bool(true))
            && t.len() == map.len() + 1
            && map.iter().all(|(k, v)| t.get(k) == Some(v))
    });
    let keyed = match (structured["kind"].as_str(), text.as_object()) {
        (Some(kind), Some(t)) => {
            t.get(kind) == Some(&structured["records"])
                && map
                    .iter()
                    .filter(|(k, _)| *k != "kind" && *k != "records")
                    .all(|(k, v)| t.get(k) == Some(v))
        }
        _ => false,
    };
    assert!(
        text == structured || member || ok || keyed,
        "{name}: the text is no view of the data:\n  text {text}\n  data {structured}"
    );
}

/// `tools/call` over `/mcp` with an API key: the raw response.
pub async fn mcp_call(app: &TestApp, key: &str, name: &str, arguments: Value) -> Response {
    app.request(Method::POST, "/mcp")
        .header("accept", "application/json, text/event-stream")
        .header("x-api-key", key)
        .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": { "name": name, "arguments": arguments } }))
        .send()
        .await
}

/// A successful tool result's `structuredContent`.
#[track_caller]
pub fn mcp_ok(res: &Response, what: &str) -> Value {
    assert_eq!(res.status, 200, "{what}: {}", res.text);
    let result = &res.body["result"];
    assert_eq!(result["isError"], false, "{what}: {}", res.text);
    let text: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().expect("text item"))
            .expect("text item is JSON");
    assert_langbot_view(what, &text, &result["structuredContent"]);
    result["structuredContent"].clone()
}

/// A domain error result's `{code, msg}`.
#[track_caller]
pub fn mcp_err(res: &Response, what: &str) -> Value {
    assert_eq!(res.status, 200, "{what}: {}", res.text);
    let result = &res.body["result"];
    assert_eq!(result["isError"], true, "{what}: {}", res.text);
    assert!(result.get("structuredContent").is_none(), "{what}");
    serde_json::from_str(result["content"][0]["text"].as_str().expect("text item"))
        .expect("error text is JSON")
}
