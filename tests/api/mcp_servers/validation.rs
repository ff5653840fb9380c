//! Bad server bodies, on create, update and draft test: 400 `invalid_request` naming the field
//! (`name`, `mode`, `extra_args.url`, …), never a 5xx, nothing stored.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::{mcp_server_path, Instance, MCP_SERVERS};
use crate::helpers::Response;

const URL: &str = "http://127.0.0.1:9/mcp";

/// Asserts 400 `invalid_request` whose `errors` name `field` (or a field below it).
#[track_caller]
fn assert_names(res: &Response, field: &str, what: &str) {
    res.expect_error(400, "invalid_request", what);
    let fields = res.error_fields();
    assert!(
        fields.iter().any(|f| f == field
            || f.starts_with(&format!("{field}."))
            || f.starts_with(&format!("{field}["))),
        "{what}: expected `errors` to name {field}, got {fields:?}: {}",
        res.text
    );
}

/// (what, body, field) for create.
fn bad_creates() -> Vec<(&'static str, Value, &'static str)> {
    let ok = |patch: Value| {
        let mut body = json!({ "name": "s", "mode": "remote", "extra_args": { "url": URL } });
        for (k, v) in patch.as_object().cloned().unwrap_or_default() {
            if v.is_null() {
                body.as_object_mut().unwrap().remove(&k);
            } else {
                body[k] = v;
            }
        }
        body
    };
    vec![
        ("no name", ok(json!({ "name": null })), "name"),
        ("empty name", ok(json!({ "name": "" })), "name"),
        ("blank name", ok(json!({ "name": "   " })), "name"),
        ("a slash in the name", ok(json!({ "name": "a/b" })), "name"),
        (
            "a 256-character name",
            ok(json!({ "name": "n".repeat(256) })),
            "name",
        ),
        ("a name that is a number", ok(json!({ "name": 7 })), "name"),
        ("no mode", ok(json!({ "mode": null })), "mode"),
        ("an unknown mode", ok(json!({ "mode": "telnet" })), "mode"),
        ("a mode that is a number", ok(json!({ "mode": 1 })), "mode"),
        (
            "enable not a bool",
            ok(json!({ "enable": "yes" })),
            "enable",
        ),
        ("readme not a string", ok(json!({ "readme": 5 })), "readme"),
        (
            "extra_args not an object",
            ok(json!({ "extra_args": "url" })),
            "extra_args",
        ),
        (
            "remote without url",
            ok(json!({ "extra_args": {} })),
            "extra_args.url",
        ),
        (
            "sse without url",
            ok(json!({ "mode": "sse", "extra_args": { "headers": {} } })),
            "extra_args.url",
        ),
        (
            "http without url",
            ok(json!({ "mode": "http", "extra_args": {} })),
            "extra_args.url",
        ),
        (
            "url not a string",
            ok(json!({ "extra_args": { "url": 42 } })),
            "extra_args.url",
        ),
        (
            "empty url",
            ok(json!({ "extra_args": { "url": "" } })),
            "extra_args.url",
        ),
        (
            "headers not an object",
            ok(json!({ "extra_args": { "url": URL, "headers": ["a"] } })),
            "extra_args.headers",
        ),
        (
            "a header value not a string",
            ok(json!({ "extra_args": { "url": URL, "headers": { "X-N": 1 } } })),
            "extra_args.headers",
        ),
        (
            "timeout not a number",
            ok(json!({ "extra_args": { "url": URL, "timeout": "soon" } })),
            "extra_args.timeout",
        ),
        (
            "a negative timeout",
            ok(json!({ "extra_args": { "url": URL, "timeout": -1 } })),
            "extra_args.timeout",
        ),
        (
            "tool_call_timeout_sec not a number",
            ok(json!({ "extra_args": { "url": URL, "tool_call_timeout_sec": "x" } })),
            "extra_args.tool_call_timeout_sec",
        ),
        (
            "a negative tool_call_timeout_sec",
            ok(json!({ "extra_args": { "url": URL, "tool_call_timeout_sec": -5 } })),
            "extra_args.tool_call_timeout_sec",
        ),
    ]
}

#[tokio::test]
async fn bad_bodies_are_refused_on_create_naming_the_field() {
    let i = Instance::new().await;
    for (what, body, field) in bad_creates() {
        let res = i.send(Method::POST, MCP_SERVERS, &body).await;
        assert_names(&res, field, what);
    }
    assert_eq!(
        i.get(MCP_SERVERS).await.data()["servers"],
        json!([]),
        "nothing was stored"
    );
    // Good bodies at the edges of the rules.
    for (name, extra) in [
        ("n".repeat(255), json!({ "url": URL })),
        (
            "dots.and-dashes_ok".into(),
            json!({ "url": URL, "tool_call_timeout_sec": 0 }),
        ),
        (
            "ü名前".into(),
            json!({ "url": URL, "headers": {}, "timeout": 30 }),
        ),
    ] {
        let res = i
            .send(
                Method::POST,
                MCP_SERVERS,
                &json!({ "name": name, "mode": "remote", "extra_args": extra }),
            )
            .await;
        assert_eq!(res.status, 200, "{name}: {}", res.text);
        i.get(&mcp_server_path(&name)).await.data();
    }
}

#[tokio::test]
async fn bad_bodies_are_refused_on_update_and_change_nothing() {
    let i = Instance::new().await;
    i.send(
        Method::POST,
        MCP_SERVERS,
        &json!({ "name": "s", "mode": "remote", "extra_args": { "url": URL } }),
    )
    .await
    .data();
    let before = i.get(&mcp_server_path("s")).await.data()["server"].clone();
    for (what, body, field) in [
        ("an unknown mode", json!({ "mode": "telnet" }), "mode"),
        ("an empty name", json!({ "name": "" }), "name"),
        ("a slash in the name", json!({ "name": "x/y" }), "name"),
        (
            "extra_args without url",
            json!({ "extra_args": { "timeout": 3 } }),
            "extra_args.url",
        ),
        (
            "a mode needing a url it lacks",
            json!({ "mode": "sse", "extra_args": {} }),
            "extra_args.url",
        ),
        ("enable not a bool", json!({ "enable": 1 }), "enable"),
    ] {
        let res = i.send(Method::PUT, &mcp_server_path("s"), &body).await;
        assert_names(&res, field, what);
    }
    assert_eq!(i.get(&mcp_server_path("s")).await.data()["server"], before);
}

#[tokio::test]
async fn a_bad_draft_test_is_refused_naming_the_field() {
    let i = Instance::new().await;
    let path = format!("{}/test", mcp_server_path("_"));
    for (what, body, field) in [
        (
            "no mode",
            json!({ "name": "d", "extra_args": { "url": URL } }),
            "mode",
        ),
        (
            "no url",
            json!({ "name": "d", "mode": "remote", "extra_args": {} }),
            "extra_args.url",
        ),
        (
            "an unknown mode",
            json!({ "name": "d", "mode": "x", "extra_args": { "url": URL } }),
            "mode",
        ),
    ] {
        let res = i.send(Method::POST, &path, &body).await;
        assert_names(&res, field, what);
    }
}
