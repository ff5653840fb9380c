//! Header and env secrets: masked as `***` in every read (GET one, the list, the pipeline's
//! extensions, the `list_mcp_servers` MCP tool); a PUT sending `***` keeps the stored value
//! (the fixture's `whoami` and `env` tools show what the server really received); a new value
//! replaces it; non-secret headers are shown as they are.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::{
    extensions_path, mcp_server_path, stdio_policy, tool_messages, ToolRig, MCP_SERVERS,
};
use crate::helpers::mcp::Mcp;
use crate::helpers::mcp_fixture::{python, stdio_extra_args, McpFixture, Transport};
use crate::helpers::{spawn_app, spawn_app_with, tool_call, TestApp, ToolScript};

const AUTH: &str = "Bearer sk-secret-header-0001";
const API_KEY: &str = "key-secret-header-0002";
const COOKIE: &str = "session=secret-cookie-0003";
const TOKEN: &str = "ghp_secret-env-token-0004";

/// Every read that shows the server, as text; none may contain `secrets`.
async fn every_read(app: &TestApp, rig: &ToolRig, name: &str) -> Vec<(String, String)> {
    let (_, key) = app.create_key(&rig.owner, None).await;
    let mcp = Mcp::new(app, &key);
    vec![
        (
            "GET one".into(),
            app.get_as(&rig.owner, &mcp_server_path(name)).await.text,
        ),
        (
            "GET list".into(),
            app.get_as(&rig.owner, MCP_SERVERS).await.text,
        ),
        (
            "pipeline extensions".into(),
            app.get_as(&rig.owner, &extensions_path(&rig.pipeline))
                .await
                .text,
        ),
        (
            "list_mcp_servers".into(),
            mcp.call("list_mcp_servers", json!({})).await.to_string(),
        ),
        (
            "get_pipeline_extensions".into(),
            mcp.call(
                "get_pipeline_extensions",
                json!({ "pipeline_uuid": rig.pipeline }),
            )
            .await
            .to_string(),
        ),
    ]
}

#[track_caller]
fn assert_no_secrets(reads: &[(String, String)], secrets: &[&str]) {
    for (what, text) in reads {
        for secret in secrets {
            assert!(!text.contains(secret), "{what} shows {secret:?}: {text}");
        }
        assert!(text.contains("***"), "{what} shows the mask: {text}");
    }
}

/// The `whoami` result the model got in the last turn: the headers the server received.
async fn headers_seen(rig: &ToolRig, app: &TestApp, session: &str) -> Value {
    let before = rig.fake.chat_bodies().await.len();
    rig.answer(app, session, "who am i").await;
    let bodies = rig.fake.chat_bodies().await;
    assert!(bodies.len() > before);
    let results = tool_messages(bodies.last().unwrap());
    assert_eq!(results.len(), 1, "{results:?}");
    serde_json::from_str(&results[0].1).unwrap_or_else(|e| panic!("{:?}: {e}", results[0].1))
}

#[tokio::test]
async fn header_secrets_are_masked_everywhere_and_kept_on_update() {
    let app = spawn_app().await;
    let rig = ToolRig::new(
        &app,
        ToolScript::calls_then_results(vec![tool_call("w", "whoami", json!({}))]),
    )
    .await;
    let fixture = McpFixture::start(Transport::StatelessHttp).await;
    let headers = json!({ "Authorization": AUTH, "X-Api-Key": API_KEY, "Cookie": COOKIE,
                          "X-Trace": "visible-0005" });
    rig.connected_server(
        &app,
        "guarded",
        "http",
        fixture.extra_args(json!({ "headers": headers })),
    )
    .await;
    let server = app.get_mcp_server(&rig.owner, "guarded").await;
    let shown = &server["extra_args"]["headers"];
    assert_eq!(shown["Authorization"], "***", "{server:#}");
    assert_eq!(shown["X-Api-Key"], "***");
    assert_eq!(shown["Cookie"], "***");
    assert_eq!(shown["X-Trace"], "visible-0005", "not a secret: shown");
    assert_eq!(server["extra_args"]["url"], fixture.url());
    assert_no_secrets(
        &every_read(&app, &rig, "guarded").await,
        &[AUTH, API_KEY, COOKIE],
    );
    // The server really gets them.
    let seen = headers_seen(&rig, &app, "s1").await;
    assert_eq!(seen["authorization"], AUTH, "{seen:#}");
    assert_eq!(seen["x-api-key"], API_KEY);
    assert_eq!(seen["x-trace"], "visible-0005");

    // A PUT with the masks (as a client that read them sends back) keeps the stored values.
    let mut extra = server["extra_args"].clone();
    extra["headers"]["X-Trace"] = json!("changed-0006");
    let res = app
        .send_as(
            &rig.owner,
            Method::PUT,
            &mcp_server_path("guarded"),
            &json!({ "extra_args": extra }),
        )
        .await;
    assert!(res.data().is_null(), "{}", res.text);
    app.mcp_connected(&rig.owner, "guarded").await;
    let server = app.get_mcp_server(&rig.owner, "guarded").await;
    assert_eq!(server["extra_args"]["headers"]["Authorization"], "***");
    assert_eq!(server["extra_args"]["headers"]["X-Trace"], "changed-0006");
    assert_no_secrets(
        &every_read(&app, &rig, "guarded").await,
        &[AUTH, API_KEY, COOKIE],
    );
    let seen = headers_seen(&rig, &app, "s2").await;
    assert_eq!(seen["authorization"], AUTH, "kept: {seen:#}");
    assert_eq!(seen["x-api-key"], API_KEY, "kept: {seen:#}");
    assert_eq!(seen["x-trace"], "changed-0006");

    // A new value replaces the secret.
    extra["headers"]["Authorization"] = json!("Bearer sk-rotated-0007");
    app.send_as(
        &rig.owner,
        Method::PUT,
        &mcp_server_path("guarded"),
        &json!({ "extra_args": extra }),
    )
    .await
    .data();
    app.mcp_connected(&rig.owner, "guarded").await;
    let seen = headers_seen(&rig, &app, "s3").await;
    assert_eq!(seen["authorization"], "Bearer sk-rotated-0007", "{seen:#}");
    assert_no_secrets(
        &every_read(&app, &rig, "guarded").await,
        &["sk-rotated-0007"],
    );
}

#[tokio::test]
async fn env_secrets_of_a_stdio_server_are_masked_and_kept() {
    let python = python();
    let app = spawn_app_with(|s| stdio_policy(s, true, &[python.as_str()])).await;
    let rig = ToolRig::new(
        &app,
        ToolScript::calls_then_results(vec![tool_call(
            "t",
            "env",
            json!({ "name": "GITHUB_TOKEN" }),
        )]),
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let mut extra = stdio_extra_args(&dir.path().join("calls.jsonl"));
    extra["env"]["GITHUB_TOKEN"] = json!(TOKEN);
    extra["env"]["PLAIN_SETTING"] = json!("plain-0008");
    rig.connected_server(&app, "local", "stdio", extra).await;
    let server = app.get_mcp_server(&rig.owner, "local").await;
    assert_eq!(
        server["extra_args"]["env"]["GITHUB_TOKEN"], "***",
        "{server:#}"
    );
    assert_eq!(server["extra_args"]["env"]["PLAIN_SETTING"], "plain-0008");
    assert_eq!(
        server["extra_args"]["args"][1], "stdio",
        "args are never masked"
    );
    assert_no_secrets(&every_read(&app, &rig, "local").await, &[TOKEN]);
    // Saved back with the mask: the process still gets the real token.
    let res = app
        .send_as(
            &rig.owner,
            Method::PUT,
            &mcp_server_path("local"),
            &json!({ "extra_args": server["extra_args"] }),
        )
        .await;
    res.data();
    app.mcp_connected(&rig.owner, "local").await;
    rig.answer(&app, "s1", "token?").await;
    let bodies = rig.fake.chat_bodies().await;
    assert_eq!(
        tool_messages(bodies.last().unwrap()),
        vec![("t".to_string(), TOKEN.to_string())],
        "the stored token was kept"
    );
    let reads = every_read(&app, &rig, "local").await;
    for (what, text) in &reads {
        assert!(!text.contains(TOKEN), "{what}: {text}");
    }
}
