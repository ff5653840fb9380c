//! The protocol: `initialize` versions, notifications, `ping`, JSON-RPC errors, methods other
//! than POST, the body limit, unknown tools.

use reqwest::Method;
use serde_json::{json, Value};

use super::{setup, LATEST, SUPPORTED};
use crate::helpers::mcp::{assert_rpc_error, post_mcp, post_raw, request, Mcp, ACCEPT, MCP};

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
    assert_eq!(app.settings().api.body_limit, 1024 * 1024);
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
            json!({ "name": "get_skill", "arguments": {} }),
        )
        .await;
    assert!(
        res.body.get("error").is_some() || mcp.tool_names().await.contains("get_skill"),
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
