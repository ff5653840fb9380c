//! The runtime at its edges: every refusal of the HTTP-bot adapter contract (status and the
//! envelope's integer code; no callback; no change to the conversation), busy sessions and their
//! reset (HTTP and MCP), one sync per session, turn serialization across two replicas sharing
//! PostgreSQL and Redis, and route status parity between HTTP and MCP.

use std::collections::BTreeSet;
use std::time::Duration;

use langbot::runtime::signing::sign;
use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::runtime_rig::{reply_text, text, Rig, INBOUND};
use crate::helpers::{spawn_app, Response, TestApp};

/// The default `api.body_limit`.
const LIMIT: usize = 1024 * 1024;
const ENDPOINTS: [&str; 3] = ["", "/sync", "/reset"];

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// `X-LB-Timestamp` and `X-LB-Signature` for `body` signed with `secret` at `ts`.
fn signed(secret: &str, ts: &str, body: &[u8]) -> Vec<(&'static str, String)> {
    vec![
        ("x-lb-timestamp", ts.to_string()),
        ("x-lb-signature", sign(secret, ts, body)),
    ]
}

/// POSTs `body` as JSON to `path` with exactly `headers` (no signing of its own).
async fn post(app: &TestApp, path: &str, body: &[u8], headers: &[(&str, String)]) -> Response {
    let mut req = app.request(Method::POST, path).raw_json(body.to_vec());
    for (k, v) in headers {
        req = req.header(k, v);
    }
    req.send().await
}

/// POSTs `body` to `/bots/{bot}{suffix}`, correctly signed with the rig's inbound secret.
async fn post_signed(app: &TestApp, bot: &str, suffix: &str, body: &[u8]) -> Response {
    let headers = signed(INBOUND, &now().to_string(), body);
    post(app, &format!("/bots/{bot}{suffix}"), body, &headers).await
}

/// A well-formed body for the endpoint `suffix` about session `session`.
fn body_for(suffix: &str, session: &str, words: &str) -> Vec<u8> {
    match suffix {
        "/reset" => json!({ "session_id": session }),
        _ => text(session, words),
    }
    .to_string()
    .into_bytes()
}

/// Asserts the contract's error envelope `{code:<int>, msg, data:null}` at `status`.
#[track_caller]
fn refused(res: &Response, status: u16, code: i64, what: &str) {
    assert_eq!(res.status, status, "{what}: {}", res.text);
    assert_eq!(res.body["code"], code, "{what}: {}", res.text);
    assert!(res.body["code"].is_i64(), "{what}: {}", res.text);
    assert!(
        res.body["msg"].as_str().is_some_and(|m| !m.is_empty()),
        "{what}: {}",
        res.text
    );
    assert!(
        res.body.get("data").is_some_and(Value::is_null),
        "{what}: {}",
        res.text
    );
    assert!(
        res.header("content-type")
            .is_some_and(|c| c.starts_with("application/json")),
        "{what}: content type {:?}",
        res.header("content-type")
    );
}

/// What the runtime has recorded: executions, route traces, monitoring messages.
async fn records(app: &TestApp) -> (u64, u64, u64) {
    use langbot::entities::{execution, monitoring_message, route_trace};
    use sea_orm::{EntityTrait, PaginatorTrait};
    let db = &app.state.db;
    (
        execution::Entity::find().count(db).await.unwrap(),
        route_trace::Entity::find().count(db).await.unwrap(),
        monitoring_message::Entity::find().count(db).await.unwrap(),
    )
}

/// One answered turn in session `s1` (echo(1)); answers the records after it.
async fn baseline(app: &TestApp, rig: &Rig) -> (u64, u64, u64) {
    let first = rig.sync(app, text("s1", "one")).await;
    assert_eq!(first.data()["text"], "echo(1): one");
    records(app).await
}

/// Nothing the refused requests did left a trace: no callback, no record, and session `s1`'s
/// history is exactly the baseline turn (the next turn is echo(2)).
async fn assert_untouched(app: &TestApp, rig: &Rig, before: (u64, u64, u64)) {
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        rig.callback_count().await,
        0,
        "a refused request produced a callback"
    );
    assert_eq!(
        records(app).await,
        before,
        "a refused request was recorded (executions, route traces, messages)"
    );
    let next = rig.sync(app, text("s1", "two")).await;
    assert_eq!(
        next.data()["text"],
        "echo(2): two",
        "the conversation changed: a refused message entered the history or a refused reset cleared it"
    );
}

/// Waits until the fake model has received `n` requests (a turn holds its session lock then).
async fn model_called(rig: &Rig, n: usize) {
    for _ in 0..400 {
        if rig.fake.received().await.len() >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the model never received {n} requests");
}

/// The echo turn number of a reply `echo(<n>): …`.
fn echo_count(reply: &str) -> u64 {
    reply
        .strip_prefix("echo(")
        .and_then(|r| r.split_once(')'))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("not an echo reply: {reply:?}"))
}

async fn update_bot(app: &TestApp, rig: &Rig, body: Value) {
    app.send_as(
        &rig.owner,
        Method::PUT,
        &format!("/api/v1/platform/bots/{}", rig.bot),
        &body,
    )
    .await
    .data();
}

/// The rig's adapter config with stored secrets kept and `extra` merged in.
fn rig_config(rig: &Rig, extra: Value) -> Value {
    let mut config = json!({
        "inbound_secret": "***", "outbound_secret": "***",
        "callback_url": format!("{}/cb", rig.callbacks.uri()),
        "callback_timeout": 2, "callback_max_retries": 3,
    });
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        config[k] = v;
    }
    config
}

async fn reset_context(app: &TestApp, token: &str, body: &Value) -> Response {
    app.send_as(
        token,
        Method::POST,
        "/api/v1/monitoring/sessions/reset-context",
        body,
    )
    .await
}

/// `tools/call` over `/mcp` with an API key.
async fn mcp_call(app: &TestApp, key: &str, name: &str, arguments: Value) -> Response {
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
fn mcp_ok(res: &Response, what: &str) -> Value {
    assert_eq!(res.status, 200, "{what}: {}", res.text);
    let result = &res.body["result"];
    assert_eq!(result["isError"], false, "{what}: {}", res.text);
    let text: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().expect("text item"))
            .expect("text item is JSON");
    assert_eq!(text, result["structuredContent"], "{what}");
    result["structuredContent"].clone()
}

/// A domain error result's `{code, msg}`.
#[track_caller]
fn mcp_err(res: &Response, what: &str) -> Value {
    assert_eq!(res.status, 200, "{what}: {}", res.text);
    let result = &res.body["result"];
    assert_eq!(result["isError"], true, "{what}: {}", res.text);
    assert!(result.get("structuredContent").is_none(), "{what}");
    serde_json::from_str(result["content"][0]["text"].as_str().expect("text item"))
        .expect("error text is JSON")
}

/// The route status over HTTP and over MCP, asserting both are the same.
async fn statuses(app: &TestApp, rig: &Rig, key: &str, what: &str) -> Value {
    let path = format!("/api/v1/platform/bots/{}/event-routes/status", rig.bot);
    let http = app.get_as(&rig.owner, &path).await.data().clone();
    let res = mcp_call(
        app,
        key,
        "list_bot_event_route_statuses",
        json!({ "bot_uuid": rig.bot }),
    )
    .await;
    let mcp = mcp_ok(&res, what);
    assert_eq!(http, mcp, "{what}: HTTP and MCP differ");
    http
}

fn redis_pass() -> bool {
    if std::env::var("TEST_REDIS_URL").is_ok_and(|u| !u.is_empty()) {
        return true;
    }
    eprintln!("skipped: TEST_REDIS_URL is not set (SQLite + in-process pass)");
    false
}

// ---------------------------------------------------------------------------------------------
// 1. Every refusal of the adapter contract
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn bad_signatures_are_refused_with_40101() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let before = baseline(&app, &rig).await;
    for suffix in ENDPOINTS {
        let path = format!("/bots/{}{suffix}", rig.bot);
        let body = body_for(suffix, "s1", "intruder");
        let ts = now().to_string();
        let what = |case: &str| format!("POST {suffix:?}: {case}");

        let res = post(&app, &path, &body, &signed("not-the-secret", &ts, &body)).await;
        refused(&res, 401, 40101, &what("signed with a wrong secret"));

        let changed = body_for(suffix, "s2", "changed after signing");
        let res = post(&app, &path, &changed, &signed(INBOUND, &ts, &body)).await;
        refused(&res, 401, 40101, &what("body changed after signing"));

        let earlier = (now() - 1).to_string();
        let headers = [
            ("x-lb-timestamp", earlier),
            ("x-lb-signature", sign(INBOUND, &ts, &body)),
        ];
        let res = post(&app, &path, &body, &headers).await;
        refused(&res, 401, 40101, &what("timestamp changed after signing"));

        let res = post(&app, &path, &body, &[("x-lb-timestamp", ts.clone())]).await;
        refused(&res, 401, 40101, &what("no X-LB-Signature"));

        let headers = [
            ("x-lb-timestamp", ts.clone()),
            ("x-lb-signature", String::new()),
        ];
        let res = post(&app, &path, &body, &headers).await;
        refused(&res, 401, 40101, &what("empty X-LB-Signature"));

        let bare = sign(INBOUND, &ts, &body).replace("sha256=", "");
        let headers = [("x-lb-timestamp", ts.clone()), ("x-lb-signature", bare)];
        let res = post(&app, &path, &body, &headers).await;
        refused(
            &res,
            401,
            40101,
            &what("signature without the sha256= prefix"),
        );

        let res = post(&app, &path, &body, &[]).await;
        assert_eq!(
            res.status,
            401,
            "{}: {}",
            what("no headers at all"),
            res.text
        );
    }
    assert_untouched(&app, &rig, before).await;
}

#[tokio::test]
async fn missing_malformed_and_stale_timestamps_are_refused_with_40102() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let before = baseline(&app, &rig).await;
    for suffix in ENDPOINTS {
        let path = format!("/bots/{}{suffix}", rig.bot);
        let body = body_for(suffix, "s1", "late");
        let what = |case: &str| format!("POST {suffix:?}: {case}");

        let sig = sign(INBOUND, &now().to_string(), &body);
        let res = post(&app, &path, &body, &[("x-lb-signature", sig)]).await;
        refused(&res, 401, 40102, &what("no X-LB-Timestamp"));

        for ts in [
            String::new(),
            "yesterday".to_string(),
            "12.5".to_string(),
            format!("{}ms", now()),
        ] {
            let res = post(&app, &path, &body, &signed(INBOUND, &ts, &body)).await;
            refused(&res, 401, 40102, &what(&format!("timestamp {ts:?}")));
        }

        for (case, ts) in [
            ("now - 301 s", now() - 301),
            ("now + 301 s", now() + 301),
            ("milliseconds", now() * 1000),
            ("zero", 0),
        ] {
            let ts = ts.to_string();
            let res = post(&app, &path, &body, &signed(INBOUND, &ts, &body)).await;
            refused(&res, 401, 40102, &what(case));
        }
    }
    assert_untouched(&app, &rig, before).await;
}

#[tokio::test]
async fn timestamps_inside_the_window_are_accepted() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let path = format!("/bots/{}", rig.bot);
    for (i, ts) in [now() - 290, now() + 290].into_iter().enumerate() {
        let body = text(&format!("w{i}"), "in time").to_string().into_bytes();
        let res = post(&app, &path, &body, &signed(INBOUND, &ts.to_string(), &body)).await;
        assert_eq!(res.status, 202, "offset {i}: {}", res.text);
    }
    let callbacks = rig.callbacks(2).await;
    assert!(callbacks
        .iter()
        .all(|(b, _, _)| reply_text(b) == "echo(1): in time"));
}

#[tokio::test]
async fn a_repeated_idempotency_key_is_refused_with_40901() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let with_key = |key: &str| [("x-lb-idempotency-key", key.to_string())];
    let body = |words: &str| text("s1", words).to_string().into_bytes();

    let first = rig.send_raw(&app, "", &body("a"), &with_key("k-1")).await;
    assert_eq!(first.status, 202, "{}", first.text);
    let replay = rig.send_raw(&app, "", &body("a"), &with_key("k-1")).await;
    refused(&replay, 409, 40901, "the same key again");
    let other_body = rig.send_raw(&app, "", &body("b"), &with_key("k-1")).await;
    refused(&other_body, 409, 40901, "the same key with another body");
    let second = rig.send_raw(&app, "", &body("c"), &with_key("k-2")).await;
    assert_eq!(second.status, 202, "a different key: {}", second.text);

    // A refused request does not use up its key: neither a bad signature nor a bad body.
    let forged = body("d");
    let mut headers = signed("not-the-secret", &now().to_string(), &forged);
    headers.push(("x-lb-idempotency-key", "k-3".into()));
    let res = post(&app, &format!("/bots/{}", rig.bot), &forged, &headers).await;
    refused(&res, 401, 40101, "forged request with a key");
    let res = rig.send_raw(&app, "", &body("d"), &with_key("k-3")).await;
    assert_eq!(
        res.status, 202,
        "a forged request burnt the key: {}",
        res.text
    );
    let invalid = json!({ "session_id": "s1", "message": [] }).to_string();
    let res = rig
        .send_raw(&app, "", invalid.as_bytes(), &with_key("k-4"))
        .await;
    refused(&res, 400, 40002, "invalid message with a key");
    let res = rig.send_raw(&app, "", &body("e"), &with_key("k-4")).await;
    assert_eq!(
        res.status, 202,
        "an invalid message burnt the key: {}",
        res.text
    );

    // Keys are per bot.
    let other = app
        .send_as(
            &rig.owner,
            Method::POST,
            "/api/v1/platform/bots",
            &json!({ "name": "other", "adapter": "http_bot", "enable": true,
                "adapter_config": { "inbound_secret": INBOUND,
                    "callback_url": format!("{}/cb", rig.callbacks.uri()) } }),
        )
        .await;
    let other = other.data()["uuid"].as_str().unwrap().to_string();
    let body_f = text("s9", "f").to_string().into_bytes();
    let mut headers = signed(INBOUND, &now().to_string(), &body_f);
    headers.push(("x-lb-idempotency-key", "k-1".into()));
    let res = post(&app, &format!("/bots/{other}"), &body_f, &headers).await;
    assert_eq!(res.status, 202, "k-1 on another bot: {}", res.text);

    // Exactly the five accepted messages were answered.
    let callbacks = rig.callbacks(5).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(rig.callback_count().await, 5);
    let texts: BTreeSet<String> = callbacks
        .iter()
        .map(|(b, _, _)| reply_text(b).split_once(": ").unwrap().1.to_string())
        .collect();
    assert_eq!(
        texts,
        ["a", "c", "d", "e", "f"]
            .into_iter()
            .map(String::from)
            .collect()
    );
}

#[tokio::test]
async fn unknown_and_malformed_bot_paths_are_404() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let before = baseline(&app, &rig).await;
    // A bot deleted just now.
    let gone = app
        .send_as(
            &rig.owner,
            Method::POST,
            "/api/v1/platform/bots",
            &json!({ "name": "gone", "adapter": "http_bot", "enable": true,
                "adapter_config": { "inbound_secret": INBOUND,
                    "callback_url": format!("{}/cb", rig.callbacks.uri()) } }),
        )
        .await;
    let gone = gone.data()["uuid"].as_str().unwrap().to_string();
    app.request(Method::DELETE, &format!("/api/v1/platform/bots/{gone}"))
        .bearer(&rig.owner)
        .send()
        .await
        .data();
    let random = uuid::Uuid::new_v4().to_string();
    for suffix in ENDPOINTS {
        let body = body_for(suffix, "s1", "nobody home");
        for bot in [random.as_str(), gone.as_str(), "not-a-uuid", "1"] {
            let res = post_signed(&app, bot, suffix, &body).await;
            refused(&res, 404, 40401, &format!("POST /bots/{bot}{suffix}"));
        }
    }
    assert_untouched(&app, &rig, before).await;
}

#[tokio::test]
async fn a_disabled_bot_refuses_with_40301_until_enabled_again() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let before = baseline(&app, &rig).await;
    update_bot(&app, &rig, json!({ "enable": false })).await;
    for suffix in ENDPOINTS {
        let body = body_for(suffix, "s1", "anyone there?");
        let res = post_signed(&app, &rig.bot, suffix, &body).await;
        refused(
            &res,
            403,
            40301,
            &format!("POST {suffix:?} to a disabled bot"),
        );
    }
    update_bot(&app, &rig, json!({ "enable": true })).await;
    assert_untouched(&app, &rig, before).await;
}

#[tokio::test]
async fn malformed_bodies_are_refused_with_400() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let before = baseline(&app, &rig).await;
    let plain = json!([{ "type": "Plain", "text": "hi" }]);
    let not_json: [&[u8]; 4] = [b"{\"session_id\":", b"not json", b"", b"{\"a\":1}}"];
    let messages = [
        ("missing session_id", json!({ "message": plain })),
        ("missing message", json!({ "session_id": "s1" })),
        (
            "empty message array",
            json!({ "session_id": "s1", "message": [] }),
        ),
        (
            "unknown segment type",
            json!({ "session_id": "s1", "message": [{ "type": "Sticker", "text": "hi" }] }),
        ),
        (
            "segment without type",
            json!({ "session_id": "s1", "message": [{ "text": "hi" }] }),
        ),
        (
            "lower-case segment type",
            json!({ "session_id": "s1", "message": [{ "type": "plain", "text": "hi" }] }),
        ),
        (
            "message is a string",
            json!({ "session_id": "s1", "message": "hi" }),
        ),
        (
            "segment is a string",
            json!({ "session_id": "s1", "message": ["hi"] }),
        ),
        (
            "blank session_id",
            json!({ "session_id": "  ", "message": plain }),
        ),
        (
            "numeric session_id",
            json!({ "session_id": 5, "message": plain }),
        ),
        (
            "unknown session_type",
            json!({ "session_id": "s1", "session_type": "channel", "message": plain }),
        ),
        ("array body", json!([])),
        ("string body", json!("hello")),
        ("null body", Value::Null),
    ];
    let resets = [
        ("empty object", json!({})),
        ("missing session_id", json!({ "session_type": "person" })),
        ("numeric session_id", json!({ "session_id": 5 })),
        (
            "unknown session_type",
            json!({ "session_id": "s1", "session_type": "channel" }),
        ),
        ("array body", json!([])),
    ];
    for suffix in ENDPOINTS {
        for raw in not_json {
            let res = post_signed(&app, &rig.bot, suffix, raw).await;
            refused(
                &res,
                400,
                40001,
                &format!("POST {suffix:?} {:?}", String::from_utf8_lossy(raw)),
            );
        }
        let cases: &[(&str, Value)] = if suffix == "/reset" {
            &resets
        } else {
            &messages
        };
        for (case, body) in cases {
            let res = post_signed(&app, &rig.bot, suffix, body.to_string().as_bytes()).await;
            refused(&res, 400, 40002, &format!("POST {suffix:?}: {case}"));
        }
    }
    assert_untouched(&app, &rig, before).await;
}

/// `/reset` validates its `session_id` like a message does (1 to 255 characters).
#[tokio::test]
async fn reset_refuses_blank_and_overlong_session_ids() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let before = baseline(&app, &rig).await;
    let mut accepted = Vec::new();
    for (case, session) in [
        ("empty", String::new()),
        ("blank", "   ".to_string()),
        ("256 characters", "x".repeat(256)),
    ] {
        let body = json!({ "session_id": session }).to_string();
        let res = post_signed(&app, &rig.bot, "/reset", body.as_bytes()).await;
        if res.status != 400 || res.body["code"] != 40002 {
            accepted.push(format!("{case}: {} {}", res.status, res.text));
        }
    }
    assert!(
        accepted.is_empty(),
        "/reset accepted session ids a message may not carry: {accepted:#?}"
    );
    assert_untouched(&app, &rig, before).await;
}

/// A well-formed message padded with trailing spaces to exactly `len` bytes.
fn padded(suffix: &str, len: usize) -> Vec<u8> {
    let mut body = body_for(suffix, "s1", "big");
    assert!(body.len() <= len);
    body.resize(len, b' ');
    body
}

#[tokio::test]
async fn bodies_over_the_limit_are_refused_with_41301() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let before = baseline(&app, &rig).await;
    for suffix in ENDPOINTS {
        let path = format!("/bots/{}{suffix}", rig.bot);
        let body = padded(suffix, LIMIT + 1);
        let res = post_signed(&app, &rig.bot, suffix, &body).await;
        refused(
            &res,
            413,
            41301,
            &format!("POST {suffix:?}: limit + 1 bytes"),
        );
        let body = padded(suffix, 3 * LIMIT);
        let res = post_signed(&app, &rig.bot, suffix, &body).await;
        refused(&res, 413, 41301, &format!("POST {suffix:?}: 3 MiB"));
        // Chunked, without a Content-Length.
        let headers = signed(INBOUND, &now().to_string(), &body);
        let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
            body.chunks(64 * 1024).map(|c| Ok(c.to_vec())).collect();
        let mut req = app
            .request(Method::POST, &path)
            .raw_json(reqwest::Body::wrap_stream(futures_util::stream::iter(
                chunks,
            )));
        for (k, v) in &headers {
            req = req.header(k, v);
        }
        let res = req.send().await;
        refused(&res, 413, 41301, &format!("POST {suffix:?}: chunked 3 MiB"));
    }
    assert_untouched(&app, &rig, before).await;
    // Exactly the limit is fine.
    let res = rig
        .send_raw(&app, "/sync", &padded("/sync", LIMIT), &[])
        .await;
    assert_eq!(res.data()["text"], "echo(3): big");
}

#[tokio::test]
async fn unsigned_requests_pass_only_when_signatures_are_optional() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let path = format!("/bots/{}", rig.bot);
    let body = text("s1", "unsigned").to_string().into_bytes();
    let res = post(&app, &path, &body, &[]).await;
    assert_eq!(res.status, 401, "unsigned while required: {}", res.text);
    assert!(
        res.body["code"] == 40101 || res.body["code"] == 40102,
        "{}",
        res.text
    );

    update_bot(
        &app,
        &rig,
        json!({ "adapter_config": rig_config(&rig, json!({ "signature_required": false })) }),
    )
    .await;
    let read = app
        .get_as(&rig.owner, &format!("/api/v1/platform/bots/{}", rig.bot))
        .await;
    assert_eq!(
        read.data()["bot"]["adapter_config"]["signature_required"],
        false,
        "{}",
        read.text
    );

    let res = post(&app, &path, &body, &[]).await;
    assert_eq!(res.status, 202, "unsigned: {}", res.text);
    let callbacks = rig.callbacks(1).await;
    assert_eq!(reply_text(&callbacks[0].0), "echo(1): unsigned");

    // A signature that is present is still checked.
    let ts = now().to_string();
    let forged = text("s1", "forged").to_string().into_bytes();
    let res = post(
        &app,
        &path,
        &forged,
        &signed("not-the-secret", &ts, &forged),
    )
    .await;
    refused(&res, 401, 40101, "optional signature, but a wrong one");
    let res = post(
        &app,
        &path,
        &forged,
        &[("x-lb-signature", sign("not-the-secret", &ts, &forged))],
    )
    .await;
    refused(
        &res,
        401,
        40102,
        "optional signature, wrong and without timestamp",
    );
    let stale = (now() - 301).to_string();
    let res = post(&app, &path, &forged, &signed(INBOUND, &stale, &forged)).await;
    refused(&res, 401, 40102, "optional signature, stale timestamp");
    let res = post(
        &app,
        &format!("{path}/sync"),
        &forged,
        &signed("not-the-secret", &ts, &forged),
    )
    .await;
    refused(&res, 401, 40101, "optional signature, wrong one on /sync");
    let reset = json!({ "session_id": "s1" }).to_string().into_bytes();
    let res = post(
        &app,
        &format!("{path}/reset"),
        &reset,
        &signed("not-the-secret", &ts, &reset),
    )
    .await;
    refused(&res, 401, 40101, "optional signature, wrong one on /reset");

    // None of the refused requests ran; unsigned /sync and /reset work.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(rig.callback_count().await, 1);
    let sync = post(
        &app,
        &format!("{path}/sync"),
        text("s1", "again").to_string().as_bytes(),
        &[],
    )
    .await;
    assert_eq!(sync.data()["text"], "echo(2): again");
    let res = post(&app, &format!("{path}/reset"), &reset, &[]).await;
    assert_eq!(res.data()["reset"], true, "{}", res.text);
    let sync = post(
        &app,
        &format!("{path}/sync"),
        text("s1", "fresh").to_string().as_bytes(),
        &[],
    )
    .await;
    assert_eq!(sync.data()["text"], "echo(1): fresh");
}

// ---------------------------------------------------------------------------------------------
// 2. Busy sessions and their reset
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_running_turn_makes_resets_409_and_afterwards_reset_clears_history() {
    let app = spawn_app().await;
    let rig = Rig::with_echo(&app, json!({}), Duration::from_secs(2)).await;
    let res = rig.send(&app, text("s1", "one")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    model_called(&rig, 1).await;
    tokio::time::sleep(Duration::from_millis(300)).await;

    let body = json!({ "bot_id": rig.bot, "session_id": "person_s1" });
    let busy = reset_context(&app, &rig.owner, &body).await;
    busy.assert_error(409, "session_busy");
    let res = rig.reset(&app, "s1").await;
    refused(&res, 409, 40903, "/reset during a turn");

    // The turn was not disturbed.
    let callbacks = rig.callbacks(1).await;
    assert_eq!(reply_text(&callbacks[0].0), "echo(1): one");
    let second = rig.sync(&app, text("s1", "two")).await;
    assert_eq!(second.data()["text"], "echo(2): two");

    let (_, _, messages) = records(&app).await;
    let done = reset_context(&app, &rig.owner, &body).await;
    assert_eq!(
        done.data(),
        &json!({ "reset": true, "session_id": "person_s1" })
    );
    assert_eq!(
        records(&app).await.2,
        messages,
        "monitoring messages are kept"
    );
    let after = rig.sync(&app, text("s1", "three")).await;
    assert_eq!(after.data()["text"], "echo(1): three");

    // LangBot's upper-case prefix names the same session.
    let upper = json!({ "bot_id": rig.bot, "session_id": "PERSON_s1" });
    reset_context(&app, &rig.owner, &upper).await.data();
    let again = rig.sync(&app, text("s1", "four")).await;
    assert_eq!(again.data()["text"], "echo(1): four");
}

/// A message still in the aggregation window (no turn started yet) makes the session busy,
/// as LangBot counts pending messages: on this replica and, through the store, on others.
#[tokio::test]
async fn a_message_in_the_aggregation_window_makes_resets_409() {
    let app = spawn_app().await;
    let rig = Rig::new(
        &app,
        json!({ "trigger": { "message-aggregation": { "enabled": true, "delay": 1.5 } } }),
    )
    .await;
    rig.sync(&app, text("s1", "known")).await.data();
    let body = json!({ "bot_id": rig.bot, "session_id": "person_s1" });
    reset_context(&app, &rig.owner, &body).await.data();

    let res = rig.send(&app, text("s1", "waiting")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    assert_eq!(res.body["data"]["aggregating"], true, "{}", res.text);
    reset_context(&app, &rig.owner, &body)
        .await
        .assert_error(409, "session_busy");
    let adapter_reset = rig.reset(&app, "s1").await;
    refused(
        &adapter_reset,
        409,
        40903,
        "/reset in the aggregation window",
    );
    if std::env::var("TEST_REDIS_URL").is_ok_and(|u| !u.is_empty()) {
        let other = app.sibling().await;
        reset_context(&other, &rig.owner, &body)
            .await
            .assert_error(409, "session_busy");
    }
    // Once the turn has run, the session is free again.
    let callbacks = rig.callbacks(1).await;
    assert_eq!(reply_text(&callbacks[0].0), "echo(1): waiting");
    let mut freed = false;
    for _ in 0..50 {
        if reset_context(&app, &rig.owner, &body).await.status == 200 {
            freed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(freed, "the session stays busy after its turn");
}

/// The session summary `reset-context` looks sessions up by is written on every back end.
#[tokio::test]
async fn every_turn_updates_its_monitoring_session() {
    use langbot::entities::monitoring_session;
    use sea_orm::EntityTrait;
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let ws = app.workspace_of(&rig.owner).await;
    let id = (ws.clone(), rig.bot.clone(), "person_s1".to_string());
    rig.sync(&app, text("s1", "one")).await.data();
    let first = monitoring_session::Entity::find_by_id(id.clone())
        .one(&app.state.db)
        .await
        .unwrap()
        .expect("the turn recorded no monitoring session");
    assert_eq!(first.pipeline_id, rig.pipeline);
    rig.sync(&app, text("s1", "two")).await.data();
    let second = monitoring_session::Entity::find_by_id(id)
        .one(&app.state.db)
        .await
        .unwrap()
        .expect("monitoring session");
    assert!(
        second.message_count > first.message_count,
        "{} then {}",
        first.message_count,
        second.message_count
    );
    assert!(second.last_activity >= first.last_activity);
}

#[tokio::test]
async fn reset_context_refuses_unknown_sessions_viewers_and_bad_bodies() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    rig.sync(&app, text("s1", "one")).await.data();
    let owner = &rig.owner;
    for (case, body) in [
        (
            "unknown session",
            json!({ "bot_id": rig.bot, "session_id": "person_nobody" }),
        ),
        (
            "group of a person session",
            json!({ "bot_id": rig.bot, "session_id": "group_s1" }),
        ),
        (
            "random bot",
            json!({ "bot_id": uuid::Uuid::new_v4().to_string(), "session_id": "person_s1" }),
        ),
        (
            "non-uuid bot",
            json!({ "bot_id": "not-a-bot", "session_id": "person_s1" }),
        ),
    ] {
        let res = reset_context(&app, owner, &body).await;
        assert_eq!(res.status, 404, "{case}: {}", res.text);
        res.assert_error(404, "resource_not_found");
    }

    let ws = app.workspace_of(owner).await;
    let viewer = app
        .add_member(owner, &ws, "viewer@example.com", "viewer")
        .await;
    let body = json!({ "bot_id": rig.bot, "session_id": "person_s1" });
    reset_context(&app, &viewer.token, &body)
        .await
        .assert_error(403, "permission_denied");
    reset_context(&app, "not-a-session", &body)
        .await
        .assert_error(401, "invalid_authentication");

    for (case, body) in [
        ("empty object", json!({})),
        ("missing session_id", json!({ "bot_id": rig.bot })),
        ("missing bot_id", json!({ "session_id": "person_s1" })),
        (
            "empty bot_id",
            json!({ "bot_id": "", "session_id": "person_s1" }),
        ),
        (
            "empty session_id",
            json!({ "bot_id": rig.bot, "session_id": "" }),
        ),
        (
            "overlong session_id",
            json!({ "bot_id": rig.bot, "session_id": format!("person_{}", "x".repeat(256)) }),
        ),
        (
            "numeric bot_id",
            json!({ "bot_id": 5, "session_id": "person_s1" }),
        ),
        (
            "unknown field",
            json!({ "bot_id": rig.bot, "session_id": "person_s1", "force": true }),
        ),
        ("array body", json!([])),
    ] {
        let res = reset_context(&app, owner, &body).await;
        assert_eq!(res.status, 400, "{case}: {}", res.text);
        res.assert_error(400, "invalid_request");
    }
    let res = app
        .request(Method::POST, "/api/v1/monitoring/sessions/reset-context")
        .bearer(owner)
        .raw_json(b"{\"bot_id\":".to_vec())
        .send()
        .await;
    res.assert_error(400, "invalid_json");

    // None of it reset anything.
    let next = rig.sync(&app, text("s1", "two")).await;
    assert_eq!(next.data()["text"], "echo(2): two");
}

// ---------------------------------------------------------------------------------------------
// 3. One sync per session
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn concurrent_syncs_for_one_session_get_40902() {
    let app = spawn_app().await;
    let rig = Rig::with_echo(&app, json!({}), Duration::from_secs(2)).await;
    let (a, b, other) = tokio::join!(
        rig.sync(&app, text("s1", "a")),
        rig.sync(&app, text("s1", "b")),
        rig.sync(&app, text("s2", "c")),
    );
    let (won, lost) = match (a.status, b.status) {
        (200, 409) => (a, b),
        (409, 200) => (b, a),
        _ => panic!(
            "expected one 200 and one 409, got {} {} / {} {}",
            a.status, a.text, b.status, b.text
        ),
    };
    refused(&lost, 409, 40902, "the second sync for the session");
    let won_text = won.data()["text"].as_str().unwrap().to_string();
    assert!(
        won_text == "echo(1): a" || won_text == "echo(1): b",
        "{won_text}"
    );
    assert_eq!(
        other.data()["text"],
        "echo(1): c",
        "other sessions are not blocked"
    );
    // The refused sync left nothing behind: the next turn sees exactly one earlier turn.
    let next = rig.sync(&app, text("s1", "d")).await;
    assert_eq!(next.data()["text"], "echo(2): d");
    assert_eq!(rig.fake.received().await.len(), 3);
}

// ---------------------------------------------------------------------------------------------
// 4. Two replicas on one PostgreSQL and one Redis
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn turns_of_one_session_are_serialized_across_replicas() {
    if !redis_pass() {
        return;
    }
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let b = app.sibling().await;
    for i in 0..6 {
        let to = if i % 2 == 0 { &app } else { &b };
        let res = rig.send(to, text("s1", &format!("m{i}"))).await;
        assert_eq!(res.status, 202, "message {i}: {}", res.text);
    }
    let callbacks = rig.callbacks(6).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(rig.callback_count().await, 6, "one reply per message");
    let replies: Vec<String> = callbacks.iter().map(|(b, _, _)| reply_text(b)).collect();
    let counts: BTreeSet<u64> = replies.iter().map(|r| echo_count(r)).collect();
    assert_eq!(
        counts,
        (1..=6).collect(),
        "each turn saw all earlier ones: {replies:?}"
    );
    let texts: BTreeSet<&str> = replies
        .iter()
        .map(|r| r.split_once(": ").unwrap().1)
        .collect();
    assert_eq!(
        texts,
        ["m0", "m1", "m2", "m3", "m4", "m5"].into_iter().collect()
    );

    for i in 0..4 {
        let to = if i % 2 == 0 { &app } else { &b };
        let res = rig.sync(to, text("s2", &format!("x{i}"))).await;
        assert_eq!(res.data()["text"], format!("echo({}): x{i}", i + 1));
    }

    // The idempotency window is shared too.
    let key = [("x-lb-idempotency-key", "shared".to_string())];
    let body = text("s3", "once").to_string().into_bytes();
    let res = rig.send_raw(&app, "", &body, &key).await;
    assert_eq!(res.status, 202, "{}", res.text);
    let res = rig.send_raw(&b, "", &body, &key).await;
    refused(&res, 409, 40901, "the same key on the other replica");
}

#[tokio::test]
async fn sync_locks_and_busy_sessions_span_replicas() {
    if !redis_pass() {
        return;
    }
    let app = spawn_app().await;
    let rig = Rig::with_echo(&app, json!({}), Duration::from_secs(2)).await;
    let b = app.sibling().await;
    let (one, two) = tokio::join!(
        rig.sync(&app, text("s1", "a")),
        rig.sync(&b, text("s1", "b"))
    );
    let mut statuses = [one.status, two.status];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 409], "{} / {}", one.text, two.text);
    let lost = if one.status == 409 { &one } else { &two };
    refused(lost, 409, 40902, "a concurrent sync on the other replica");

    // A session with history, busy with a turn on `app`.
    let warm = rig.sync(&b, text("s2", "warm")).await;
    assert_eq!(warm.data()["text"], "echo(1): warm");
    let res = rig.send(&app, text("s2", "slow")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    model_called(&rig, 3).await;
    let body = json!({ "bot_id": rig.bot, "session_id": "person_s2" });
    reset_context(&b, &rig.owner, &body)
        .await
        .assert_error(409, "session_busy");
    let res = rig.reset(&b, "s2").await;
    refused(
        &res,
        409,
        40903,
        "/reset on the other replica during a turn",
    );
    rig.callbacks(1).await;
    reset_context(&b, &rig.owner, &body).await.data();
    let after = rig.sync(&app, text("s2", "new")).await;
    assert_eq!(after.data()["text"], "echo(1): new");
}

// ---------------------------------------------------------------------------------------------
// 5. Route status over HTTP and MCP
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn route_status_shows_stale_and_discarded_routes_alike_over_http_and_mcp() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let (_, key) = app.create_key(&rig.owner, None).await;
    let fresh = statuses(&app, &rig, &key, "before any message").await;
    let routes = fresh["routes"].as_array().unwrap().clone();
    assert_eq!(routes.len(), 2, "{fresh}");
    assert!(routes
        .iter()
        .all(|r| r["last_status"].is_null() && r["current"] == true));
    assert_eq!(fresh["stale_routes"], json!([]));
    assert_eq!(fresh["unmatched_events"], json!([]));

    let accepted = rig.send(&app, text("s1", "hello")).await;
    let accepted = accepted.body["data"]["accepted_message_id"]
        .as_str()
        .unwrap()
        .to_string();
    rig.callbacks(1).await;
    let served = statuses(&app, &rig, &key, "after a private message").await;
    let delivered: Vec<&Value> = served["routes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["last_status"] == "delivered")
        .collect();
    assert_eq!(delivered.len(), 1, "{served}");
    assert_eq!(delivered[0]["run_id"], accepted.as_str());
    assert_eq!(delivered[0]["target_uuid"], rig.pipeline.as_str());
    assert_eq!(delivered[0]["current"], true);
    let private_id = delivered[0]["binding_id"].as_str().unwrap().to_string();

    // Replace the routes: private messages are discarded now.
    update_bot(
        &app,
        &rig,
        json!({ "event_bindings": [{ "id": "drop-private", "event_pattern": "message.received",
            "target_type": "discard", "filters": [{ "field": "chat_type", "operator": "eq", "value": "person" }] }] }),
    )
    .await;
    let replaced = statuses(&app, &rig, &key, "after the routes changed").await;
    assert_eq!(replaced["routes"].as_array().unwrap().len(), 1);
    assert!(replaced["routes"][0]["last_status"].is_null());
    let stale = replaced["stale_routes"].as_array().unwrap();
    assert_eq!(stale.len(), 1, "{replaced}");
    assert_eq!(stale[0]["binding_id"], private_id.as_str());
    assert_eq!(stale[0]["current"], false);
    assert_eq!(stale[0]["last_status"], "delivered");
    assert_eq!(stale[0]["target_uuid"], rig.pipeline.as_str());

    let dropped = rig.send(&app, text("s1", "into the void")).await;
    assert_eq!(dropped.status, 202, "{}", dropped.text);
    let sync = rig.sync(&app, text("s1", "also dropped")).await;
    assert_eq!(sync.data()["message"], json!([]));
    let group = json!({ "session_id": "g1", "session_type": "group",
        "message": [{ "type": "Plain", "text": "nobody routes me" }] });
    assert_eq!(rig.sync(&app, group).await.data()["message"], json!([]));

    let after = statuses(&app, &rig, &key, "after discarded and unmatched messages").await;
    let route = &after["routes"][0];
    assert_eq!(route["binding_id"], "drop-private");
    assert_eq!(route["last_status"], "discarded", "{after}");
    assert_eq!(route["target_type"], "discard");
    assert_eq!(route["current"], true);
    assert!(
        route["run_id"]
            .as_str()
            .is_some_and(|r| r.starts_with("in_")),
        "{after}"
    );
    assert_eq!(after["unmatched_events"][0]["last_status"], "not_matched");
    assert_eq!(after["unmatched_events"][0]["current"], false);
    assert_eq!(after["stale_routes"][0]["binding_id"], private_id.as_str());
    assert_eq!(after["stale_routes"][0]["current"], false);

    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        rig.callback_count().await,
        1,
        "a discarded message was answered"
    );
    assert_eq!(
        rig.fake.received().await.len(),
        1,
        "a discarded message reached the model"
    );

    let unknown = uuid::Uuid::new_v4().to_string();
    app.get_as(
        &rig.owner,
        &format!("/api/v1/platform/bots/{unknown}/event-routes/status"),
    )
    .await
    .assert_error(404, "resource_not_found");
    let res = mcp_call(
        &app,
        &key,
        "list_bot_event_route_statuses",
        json!({ "bot_uuid": unknown }),
    )
    .await;
    assert_eq!(mcp_err(&res, "unknown bot")["code"], "resource_not_found");
}

// ---------------------------------------------------------------------------------------------
// 6. reset_session_context and run_pipeline over MCP
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn reset_session_context_over_mcp_works_like_http() {
    let app = spawn_app().await;
    let rig = Rig::with_echo(&app, json!({}), Duration::from_secs(1)).await;
    let (_, key) = app.create_key(&rig.owner, None).await;
    let args = json!({ "bot_id": rig.bot, "session_id": "person_s1" });

    let res = mcp_call(&app, &key, "reset_session_context", args.clone()).await;
    assert_eq!(
        mcp_err(&res, "before any turn")["code"],
        "resource_not_found"
    );

    assert_eq!(
        rig.sync(&app, text("s1", "zero")).await.data()["text"],
        "echo(1): zero"
    );
    rig.send(&app, text("s1", "one")).await;
    model_called(&rig, 2).await;
    let res = mcp_call(&app, &key, "reset_session_context", args.clone()).await;
    assert_eq!(mcp_err(&res, "during a turn")["code"], "session_busy");
    let callbacks = rig.callbacks(1).await;
    assert_eq!(reply_text(&callbacks[0].0), "echo(2): one");
    assert_eq!(
        rig.sync(&app, text("s1", "two")).await.data()["text"],
        "echo(3): two"
    );

    let res = mcp_call(&app, &key, "reset_session_context", args.clone()).await;
    assert_eq!(
        mcp_ok(&res, "after the turn"),
        json!({ "reset": true, "session_id": "person_s1" })
    );
    assert_eq!(
        rig.sync(&app, text("s1", "three")).await.data()["text"],
        "echo(1): three"
    );

    for (case, arguments) in [
        ("missing session_id", json!({ "bot_id": rig.bot })),
        (
            "unknown argument",
            json!({ "bot_id": rig.bot, "session_id": "person_s1", "force": true }),
        ),
    ] {
        let res = mcp_call(&app, &key, "reset_session_context", arguments).await;
        assert_eq!(mcp_err(&res, case)["code"], "invalid_request", "{case}");
    }

    // A key without resource.manage may not call it.
    let (_, viewer) = app
        .create_key(&rig.owner, Some(&["resource.view", "workspace.view"]))
        .await;
    let res = mcp_call(&app, &viewer, "reset_session_context", args).await;
    assert_eq!(res.status, 403, "{}", res.text);
    assert_eq!(res.body["error"]["data"]["code"], "permission_denied");
    assert_eq!(res.body["error"]["data"]["permission"], "resource.manage");
}

#[tokio::test]
async fn run_pipeline_over_mcp_works_like_http() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let (_, key) = app.create_key(&rig.owner, None).await;
    let http = app
        .send_as(
            &rig.owner,
            Method::POST,
            &format!("/api/v1/pipelines/{}/run", rig.pipeline),
            &json!({ "message": "ping" }),
        )
        .await
        .data()
        .clone();
    let res = mcp_call(
        &app,
        &key,
        "run_pipeline",
        json!({ "pipeline_uuid": rig.pipeline, "message": "ping" }),
    )
    .await;
    let mcp = mcp_ok(&res, "run_pipeline");
    for out in [&http, &mcp] {
        assert_eq!(out["status"], "completed", "{out}");
        assert_eq!(out["reply"], "echo(1): ping", "each run is a fresh session");
        assert_eq!(out["replies"], json!(["echo(1): ping"]));
        assert_eq!(out["pipeline_uuid"], rig.pipeline.as_str());
    }
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&http), keys(&mcp), "the same output shape");
    assert_ne!(http["query_id"], mcp["query_id"]);
    assert_ne!(http["session_id"], mcp["session_id"]);

    use langbot::entities::execution;
    use sea_orm::EntityTrait;
    let executions = execution::Entity::find().all(&app.state.db).await.unwrap();
    assert_eq!(executions.len(), 2);
    assert!(executions
        .iter()
        .all(|e| e.mode == "debug" && e.status == "completed"));

    let unknown = uuid::Uuid::new_v4().to_string();
    let res = mcp_call(
        &app,
        &key,
        "run_pipeline",
        json!({ "pipeline_uuid": unknown, "message": "ping" }),
    )
    .await;
    assert_eq!(
        mcp_err(&res, "unknown pipeline")["code"],
        "resource_not_found"
    );
    let res = mcp_call(
        &app,
        &key,
        "run_pipeline",
        json!({ "pipeline_uuid": rig.pipeline, "message": "" }),
    )
    .await;
    assert_eq!(mcp_err(&res, "empty message")["code"], "invalid_request");
    app.send_as(
        &rig.owner,
        Method::POST,
        &format!("/api/v1/pipelines/{}/run", rig.pipeline),
        &json!({ "message": "" }),
    )
    .await
    .assert_error(400, "invalid_request");

    let (_, viewer) = app
        .create_key(&rig.owner, Some(&["resource.view", "workspace.view"]))
        .await;
    let res = mcp_call(
        &app,
        &viewer,
        "run_pipeline",
        json!({ "pipeline_uuid": rig.pipeline, "message": "ping" }),
    )
    .await;
    assert_eq!(res.status, 403, "{}", res.text);
    assert_eq!(res.body["error"]["data"]["permission"], "runtime.operate");
}
