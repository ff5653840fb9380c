//! Several tool calls of one model answer run concurrently (issue 16's headline): two
//! `sleep(1.5)` take about one of them, not the sum; both results reach the final answer and
//! both are recorded; while they run, the in-flight snapshot says which tools are called.

use std::time::Duration;

use serde_json::{json, Value};

use super::{assert_success_row, row_named, stateless};
use crate::helpers::fixtures::{tool_messages, tool_stats, ToolRig};
use crate::helpers::{eventually, spawn_app, tool_call, TestApp, ToolScript};

/// The concurrency bound: both 1.5 s calls must be done within this (the sum is 3 s).
const BOTH_WITHIN: f64 = 2.6;

#[tokio::test]
async fn two_slow_calls_in_one_answer_run_at_the_same_time() {
    let app = spawn_app().await;
    let rig = ToolRig::new(
        &app,
        ToolScript::calls_then_results(vec![
            tool_call("slow-a", "sleep", json!({ "seconds": 1.5, "label": "a" })),
            tool_call("slow-b", "sleep", json!({ "seconds": 1.5, "label": "b" })),
        ]),
    )
    .await;
    let (fixture, _) = stateless(&app, &rig, "sleepy").await;
    let answer = rig.answer(&app, "s1", "two slow things").await;
    // The final answer carries both results.
    assert!(answer.contains("slept 1.5s a"), "{answer}");
    assert!(answer.contains("slept 1.5s b"), "{answer}");
    let bodies = rig.fake.chat_bodies().await;
    let mut results = tool_messages(&bodies[1]);
    results.sort();
    assert_eq!(
        results,
        vec![
            ("slow-a".to_string(), "slept 1.5s a".to_string()),
            ("slow-b".to_string(), "slept 1.5s b".to_string()),
        ]
    );
    // The server saw the two calls overlap, and both done within the bound.
    let calls = fixture.calls();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(
        calls[0].overlaps(&calls[1]),
        "the two calls ran one after the other: {calls:?}"
    );
    let first_start = calls.iter().map(|c| c.start).fold(f64::MAX, f64::min);
    let last_end = calls.iter().map(|c| c.end).fold(f64::MIN, f64::max);
    assert!(
        last_end - first_start < BOTH_WITHIN,
        "both calls took {:.2}s (the sum is 3 s): {calls:?}",
        last_end - first_start
    );
    // The execution shows both.
    let rows = rig.tool_calls(&app, "s1", 2).await;
    assert_eq!(rows.len(), 2, "{rows:#?}");
    for row in &rows {
        assert_eq!(row["tool_name"], "sleep");
        assert!(
            row["duration"].as_u64().is_some_and(|d| d >= 1400),
            "each call lasted its 1.5 s: {row:#}"
        );
    }
    let a: Vec<&Value> = rows
        .iter()
        .filter(|r| {
            r["result"]
                .as_str()
                .is_some_and(|s| s.contains("slept 1.5s a"))
        })
        .collect();
    assert_eq!(a.len(), 1, "{rows:#?}");
    assert_success_row(a[0], "sleepy", "slept 1.5s a");
    let execution = rig.last_execution(&app, "s1").await;
    let detail = rig.detail(&app, execution["id"].as_str().unwrap()).await;
    let stats = tool_stats(&detail);
    assert_eq!(stats["total_calls"], 2, "{detail:#}");
    assert_eq!(stats["success_calls"], 2, "{detail:#}");
    assert_eq!(stats["error_calls"], 0, "{detail:#}");
    let total = stats["total_duration_ms"]
        .as_f64()
        .expect("total_duration_ms");
    assert!(total >= 2800.0, "the sum of both durations: {stats}");
    let average = stats["average_duration_ms"]
        .as_f64()
        .expect("average_duration_ms");
    assert!((average - total / 2.0).abs() <= 1.0, "{stats}");
}

/// The in-flight snapshot's item for the execution running in `session`, once its
/// `progress_event` names a tool call.
async fn calling_progress(app: &TestApp, rig: &ToolRig) -> String {
    eventually(
        "the in-flight snapshot showing a tool call",
        Duration::from_secs(10),
        move || async move {
            let snap = app.get_as(&rig.owner, "/api/v1/monitoring/in-flight").await;
            let items = snap.body["data"]["items"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            items
                .iter()
                .filter_map(|i| i["progress_event"].as_str())
                .find(|p| p.starts_with("calling tool"))
                .map(str::to_string)
                .ok_or_else(|| snap.text.clone())
        },
    )
    .await
}

#[tokio::test]
async fn in_flight_shows_the_tool_being_called() {
    let app = spawn_app().await;
    let rig = ToolRig::new(
        &app,
        ToolScript::calls_then_results(vec![tool_call("slow", "sleep", json!({ "seconds": 2.5 }))]),
    )
    .await;
    let (_fixture, _) = stateless(&app, &rig, "sleepy").await;
    let (answer, progress) = tokio::join!(
        rig.answer(&app, "s1", "one slow thing"),
        calling_progress(&app, &rig)
    );
    assert_eq!(progress, "calling tool sleep");
    assert!(answer.contains("slept 2.5s"), "{answer}");
}

#[tokio::test]
async fn in_flight_names_every_tool_of_a_parallel_batch() {
    let app = spawn_app().await;
    let rig = ToolRig::new(
        &app,
        ToolScript::calls_then_results(vec![
            tool_call("s", "sleep", json!({ "seconds": 2.5 })),
            tool_call("l", "large", json!({ "size": 5 })),
        ]),
    )
    .await;
    let (_fixture, _) = stateless(&app, &rig, "sleepy").await;
    let (answer, progress) = tokio::join!(
        rig.answer(&app, "s1", "two things"),
        calling_progress(&app, &rig)
    );
    assert!(answer.contains("slept 2.5s"), "{answer}");
    // Both names while both run; only the slow one once `large` is done.
    assert!(
        progress == "calling tool sleep, large"
            || progress == "calling tool large, sleep"
            || progress == "calling tool sleep",
        "{progress:?}"
    );
    let rows = rig.tool_calls(&app, "s1", 2).await;
    row_named(&rows, "large");
}
