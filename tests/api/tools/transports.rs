//! A full turn over every transport: an http_bot message → the model calls `echo` on the MCP
//! server → the answer carries the echo → the execution's `tool_calls` has the row. Streamable
//! HTTP (stateful and stateless, mode `http`), legacy SSE (mode `sse`), `remote` (streamable
//! HTTP, and its fallback to SSE), and stdio (the app starts the fixture itself).

use serde_json::{json, Value};

use super::{arguments_of, assert_success_row, served};
use crate::helpers::fixtures::{offered_tools, stdio_policy, tool_messages, ToolRig};
use crate::helpers::mcp_fixture::{python, read_call_log, stdio_extra_args, McpFixture, Transport};
use crate::helpers::{spawn_app, spawn_app_with, tool_call, TestApp, ToolScript};

fn echo_script(words: &str) -> ToolScript {
    ToolScript::calls_then_results(vec![tool_call("call-1", "echo", json!({ "text": words }))])
}

/// One turn in session `s1` whose model calls `echo(words)` on server `name`; checks the
/// answer, what the model received, and the record.
async fn assert_echo_turn(app: &TestApp, rig: &ToolRig, name: &str, words: &str) {
    let answer = rig.answer(app, "s1", "please echo").await;
    assert_eq!(
        answer,
        format!("results: echo: {words}"),
        "the final answer"
    );
    let bodies = rig.fake.chat_bodies().await;
    assert_eq!(bodies.len(), 2, "a tool round, then the final answer");
    assert!(
        bodies.iter().all(|b| b["stream"] == true),
        "the streamed turn streams every model call around the tool round"
    );
    let offered = offered_tools(&bodies[0]);
    assert!(offered.contains(&"echo".to_string()), "{offered:?}");
    assert_eq!(
        tool_messages(&bodies[1]),
        vec![("call-1".to_string(), format!("echo: {words}"))],
        "the tool result went back as a role:tool message with the call's id"
    );
    let rows = rig.tool_calls(app, "s1", 1).await;
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert_eq!(rows[0]["tool_name"], "echo");
    assert_success_row(&rows[0], name, &format!("echo: {words}"));
    assert_eq!(arguments_of(&rows[0]), json!({ "text": words }));
    let execution = rig.last_execution(app, "s1").await;
    assert_eq!(rows[0]["execution_id"], execution["id"], "{:#}", rows[0]);
    assert_eq!(execution["status"], "completed", "{execution:#}");
}

async fn over(transport: Transport, mode: Option<&str>) {
    let app = spawn_app().await;
    let words = format!("over {transport:?}");
    let rig = ToolRig::new(&app, echo_script(&words)).await;
    let fixture = McpFixture::start(transport).await;
    rig.connected_server(
        &app,
        "fixture",
        mode.unwrap_or(transport.mode()),
        fixture.extra_args(json!({})),
    )
    .await;
    assert_echo_turn(&app, &rig, "fixture", &words).await;
    let calls = fixture.calls();
    assert_eq!(calls.len(), 1, "the server ran the call once: {calls:?}");
    assert_eq!(calls[0].arguments, json!({ "text": words }));
}

#[tokio::test]
async fn a_turn_calls_a_tool_over_streamable_http() {
    over(Transport::StreamableHttp, None).await;
}

#[tokio::test]
async fn a_turn_calls_a_tool_over_stateless_streamable_http() {
    over(Transport::StatelessHttp, None).await;
}

#[tokio::test]
async fn a_turn_calls_a_tool_over_sse() {
    over(Transport::Sse, None).await;
}

#[tokio::test]
async fn remote_mode_speaks_streamable_http() {
    over(Transport::StreamableHttp, Some("remote")).await;
}

#[tokio::test]
async fn remote_mode_falls_back_to_sse() {
    over(Transport::Sse, Some("remote")).await;
}

#[tokio::test]
async fn a_turn_calls_a_tool_over_stdio() {
    let python = python();
    let app = spawn_app_with(|s| stdio_policy(s, true, &[python.as_str()])).await;
    let rig = ToolRig::new(&app, echo_script("over stdio")).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("calls.jsonl");
    rig.connected_server(&app, "local", "stdio", stdio_extra_args(&log))
        .await;
    assert_echo_turn(&app, &rig, "local", "over stdio").await;
    let calls = read_call_log(&log);
    assert_eq!(calls.len(), 1, "{calls:?}");
}

#[tokio::test]
async fn a_debug_run_calls_tools_too() {
    let app = spawn_app().await;
    let rig = ToolRig::new(&app, echo_script("debug")).await;
    let (_fixture, _) = served(&app, &rig, "fixture", Transport::StatelessHttp, json!({})).await;
    let res = app
        .send_as(
            &rig.owner,
            reqwest::Method::POST,
            &format!("/api/v1/pipelines/{}/run", rig.pipeline),
            &json!({ "message": "please echo" }),
        )
        .await;
    let data: &Value = res.data();
    assert_eq!(data["status"], "completed", "{data:#}");
    assert_eq!(data["reply"], "results: echo: debug");
    let id = data["query_id"].as_str().expect("query_id").to_string();
    let detail = rig.detail(&app, &id).await;
    let rows = detail["pages"]["tool_calls"]["items"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(rows.len(), 1, "{detail:#}");
    assert_success_row(&rows[0], "fixture", "echo: debug");
}
