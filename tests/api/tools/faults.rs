//! Faults never fail the turn: each goes back to the model as an `Error:` tool result and is
//! recorded as an error — a tool's own error (`isError`), a server gone after connecting, a
//! server that never connected, a hanging tool (`tool_call_timeout_sec`), a server killed
//! mid-call; and a server restarted between turns is reconnected by the next turn.

use std::time::Duration;

use serde_json::{json, Value};

use super::{assert_error_row, served, stateless};
use crate::helpers::fixtures::{offered_tools, tool_messages, ToolRig};
use crate::helpers::mcp_fixture::{dead_url, Transport};
use crate::helpers::{eventually, spawn_app, tool_call, TestApp, ToolScript};

/// The one tool result the final request carried.
async fn only_result(rig: &ToolRig) -> String {
    let bodies = rig.fake.chat_bodies().await;
    let last = bodies.last().expect("a request");
    let results = tool_messages(last);
    assert_eq!(results.len(), 1, "{last:#}");
    results[0].1.clone()
}

/// Asserts the turn completed with an `Error:` result containing `says`, recorded as an error.
async fn assert_error_turn(app: &TestApp, rig: &ToolRig, says: &str) -> Value {
    let answer = rig.answer(app, "s1", "go").await;
    assert!(answer.starts_with("results: Error:"), "{answer}");
    let result = only_result(rig).await;
    assert!(result.starts_with("Error:"), "{result:?}");
    assert!(
        result.to_lowercase().contains(&says.to_lowercase()),
        "{says:?} in {result:?}"
    );
    let execution = rig.last_execution(app, "s1").await;
    assert_eq!(execution["status"], "completed", "{execution:#}");
    let rows = rig.tool_calls(app, "s1", 1).await;
    assert_error_row(&rows[0]);
    rows[0].clone()
}

#[tokio::test]
async fn a_tool_error_goes_back_to_the_model_as_text() {
    let app = spawn_app().await;
    let rig = ToolRig::new(
        &app,
        ToolScript::calls_then_results(vec![tool_call(
            "f",
            "fail",
            json!({ "message": "the tool exploded" }),
        )]),
    )
    .await;
    let (_fixture, _) = stateless(&app, &rig, "fixture").await;
    let row = assert_error_turn(&app, &rig, "the tool exploded").await;
    assert_eq!(row["tool_name"], "fail");
    assert!(
        row["error_message"]
            .as_str()
            .is_some_and(|m| m.contains("the tool exploded")),
        "{row:#}"
    );
}

#[tokio::test]
async fn a_server_gone_after_connecting_is_an_error_result() {
    let app = spawn_app().await;
    let rig = ToolRig::new(
        &app,
        ToolScript::calls_then_results(vec![tool_call("e", "echo", json!({ "text": "x" }))]),
    )
    .await;
    // Stateless: nothing tells the app the server went away until it calls.
    let (mut fixture, _) = stateless(&app, &rig, "fixture").await;
    fixture.kill();
    assert_error_turn(&app, &rig, "").await;
}

#[tokio::test]
async fn a_server_that_never_connects_reports_an_error_and_turns_still_answer() {
    let app = spawn_app().await;
    let rig = ToolRig::new(
        &app,
        ToolScript::calls_then_results(vec![tool_call("e", "echo", json!({ "text": "x" }))]),
    )
    .await;
    app.mcp_server(
        &rig.owner,
        "nowhere",
        "http",
        json!({ "url": dead_url(), "timeout": 2 }),
    )
    .await;
    let (app, rig) = (&app, &rig);
    let info = eventually(
        "the unreachable server reporting an error",
        Duration::from_secs(40),
        move || async move {
            let server = app.get_mcp_server(&rig.owner, "nowhere").await;
            let info = server["runtime_info"].clone();
            if info["status"] == "error" {
                Ok(info)
            } else {
                Err(server.to_string())
            }
        },
    )
    .await;
    assert!(
        info["error_message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{info:#}"
    );
    assert_eq!(info["tool_count"], 0, "{info:#}");
    // Its tools are not offered; the turn answers.
    let answer = rig.answer(app, "s1", "go").await;
    assert!(answer.starts_with("final without tools"), "{answer}");
    let bodies = rig.fake.chat_bodies().await;
    assert!(offered_tools(&bodies[0]).is_empty(), "{:#}", bodies[0]);
}

#[tokio::test]
async fn a_hanging_tool_times_out_after_tool_call_timeout_sec() {
    let app = spawn_app().await;
    let rig = ToolRig::new(
        &app,
        ToolScript::calls_then_results(vec![tool_call("h", "sleep", json!({ "seconds": 5 }))]),
    )
    .await;
    let (_fixture, _) = served(
        &app,
        &rig,
        "slow",
        Transport::StatelessHttp,
        json!({ "tool_call_timeout_sec": 1 }),
    )
    .await;
    let row = assert_error_turn(&app, &rig, "").await;
    let duration = row["duration"].as_u64().expect("duration");
    assert!(
        (900..4000).contains(&duration),
        "the call ended at its 1 s timeout, not after the 5 s sleep: {row:#}"
    );
}

#[tokio::test]
async fn a_server_killed_mid_call_is_an_error_result() {
    let app = spawn_app().await;
    let rig = ToolRig::new(
        &app,
        ToolScript::calls_then_results(vec![tool_call("k", "sleep", json!({ "seconds": 30 }))]),
    )
    .await;
    let (mut fixture, _) = served(&app, &rig, "doomed", Transport::StreamableHttp, json!({})).await;
    let (app, rig) = (&app, &rig);
    let kill_when_called = async {
        eventually(
            "the in-flight snapshot showing the sleep call",
            Duration::from_secs(10),
            move || async move {
                let snap = app.get_as(&rig.owner, "/api/v1/monitoring/in-flight").await;
                if snap.text.contains("calling tool sleep") {
                    Ok(())
                } else {
                    Err(snap.text)
                }
            },
        )
        .await;
        fixture.kill();
    };
    let (answer, ()) = tokio::join!(rig.answer(app, "s1", "go"), kill_when_called);
    assert!(answer.starts_with("results: Error:"), "{answer}");
    let rows = rig.tool_calls(app, "s1", 1).await;
    assert_error_row(&rows[0]);
}

#[tokio::test]
async fn a_server_restarted_between_turns_is_reconnected_by_the_next_turn() {
    let app = spawn_app().await;
    let rig = ToolRig::new(
        &app,
        ToolScript::calls_then_results(vec![tool_call("e", "echo", json!({ "text": "hello" }))]),
    )
    .await;
    // Stateful: the restarted server no longer knows the app's session.
    let (mut fixture, _) =
        served(&app, &rig, "phoenix", Transport::StreamableHttp, json!({})).await;
    assert_eq!(
        rig.answer(&app, "s1", "first").await,
        "results: echo: hello"
    );
    fixture.restart().await;
    assert_eq!(
        rig.answer(&app, "s2", "second").await,
        "results: echo: hello",
        "the next turn reconnected and the call succeeded"
    );
    assert_eq!(fixture.calls().len(), 2, "{:?}", fixture.calls());
    app.mcp_connected(&rig.owner, "phoenix").await;
}

#[tokio::test]
async fn a_large_result_is_recorded_cut_at_20000_characters() {
    let app = spawn_app().await;
    let rig = ToolRig::new(
        &app,
        ToolScript::calls_then_results(vec![tool_call("l", "large", json!({ "size": 50_000 }))]),
    )
    .await;
    let (_fixture, _) = stateless(&app, &rig, "fixture").await;
    rig.answer(&app, "s1", "big").await;
    let rows = rig.tool_calls(&app, "s1", 1).await;
    assert_eq!(rows[0]["status"], "success", "{:#}", rows[0]);
    let result = rows[0]["result"].as_str().expect("result text");
    assert!(
        result.contains(&"x".repeat(1000)),
        "{}",
        result.chars().take(100).collect::<String>()
    );
    let xs = result.chars().filter(|c| *c == 'x').count();
    let total = result.chars().count();
    assert!(
        (19_000..=20_000).contains(&xs) && total <= 20_100,
        "the stored result is cut at 20000 characters (plus a marker): {total} characters, {xs} x"
    );
}
