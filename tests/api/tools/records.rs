//! Tool-call records: `GET /monitoring/tool-calls` (its row shape and the llm-calls filters),
//! `POST /monitoring/records/tool_calls/query`, the execution detail's `tool_calls` section and
//! `tool_stats`, and the export (`type=tool_calls`, CSV and NDJSON).

use reqwest::Method;
use serde_json::{json, Value};

use super::{arguments_of, stateless};
use crate::helpers::fixtures::{tool_stats, ToolRig};
use crate::helpers::{spawn_app, tool_call, TestApp, ToolScript};

const TOOL_CALLS: &str = "/api/v1/monitoring/tool-calls";

/// Every field a tool-call row has.
const ROW_FIELDS: [&str; 17] = [
    "id",
    "timestamp",
    "execution_id",
    "tool_name",
    "tool_source",
    "source_name",
    "duration",
    "status",
    "bot_id",
    "bot_name",
    "pipeline_id",
    "pipeline_name",
    "session_id",
    "message_id",
    "arguments",
    "result",
    "error_message",
];

/// A rig whose model calls `echo` and `fail` in one round; two turns (alice, bob).
async fn traffic(app: &TestApp) -> ToolRig {
    let rig = ToolRig::new(
        app,
        ToolScript::calls_then_results(vec![
            tool_call("ok", "echo", json!({ "text": "recorded" })),
            tool_call("bad", "fail", json!({ "message": "recorded failure" })),
        ]),
    )
    .await;
    let (fixture, _) = stateless(app, &rig, "recorder").await;
    rig.answer(app, "alice", "one").await;
    rig.answer(app, "bob", "two").await;
    rig.tool_calls(app, "alice", 2).await;
    rig.tool_calls(app, "bob", 2).await;
    drop(fixture);
    rig
}

async fn list(app: &TestApp, rig: &ToolRig, query: &str) -> Value {
    app.get_as(&rig.owner, &format!("{TOOL_CALLS}{query}"))
        .await
        .data()
        .clone()
}

#[tokio::test]
async fn tool_calls_are_listed_with_their_fields_and_filters() {
    let app = spawn_app().await;
    let rig = traffic(&app).await;
    let all = list(&app, &rig, "").await;
    assert_eq!(all["total"], 4, "{all:#}");
    assert_eq!(all["limit"], 100);
    assert_eq!(all["offset"], 0);
    let rows = all["tool_calls"].as_array().expect("tool_calls");
    assert_eq!(rows.len(), 4);
    for row in rows {
        for field in ROW_FIELDS {
            assert!(row.get(field).is_some(), "{field} missing in {row:#}");
        }
        assert_eq!(row["tool_source"], "mcp");
        assert_eq!(row["source_name"], "recorder");
        assert_eq!(row["bot_id"], rig.bot.as_str());
        assert_eq!(row["bot_name"], "tools bot");
        assert_eq!(row["pipeline_id"], rig.pipeline.as_str());
        assert_eq!(row["pipeline_name"], "Tools");
    }
    // Newest first.
    let stamps: Vec<&str> = rows
        .iter()
        .filter_map(|r| r["timestamp"].as_str())
        .collect();
    let mut sorted = stamps.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(stamps, sorted, "timestamp DESC");
    let echo = rows
        .iter()
        .find(|r| r["tool_name"] == "echo" && r["session_id"] == "person_alice")
        .expect("alice's echo");
    assert_eq!(echo["status"], "success");
    assert_eq!(arguments_of(echo), json!({ "text": "recorded" }));
    assert!(echo["result"].as_str().unwrap().contains("echo: recorded"));
    let fail = rows
        .iter()
        .find(|r| r["tool_name"] == "fail" && r["session_id"] == "person_alice")
        .expect("alice's fail");
    assert_eq!(fail["status"], "error");
    assert!(
        fail["error_message"]
            .as_str()
            .is_some_and(|m| m.contains("recorded failure")),
        "{fail:#}"
    );
    // The llm-calls filters.
    let alice = list(&app, &rig, "?sessionId=person_alice").await;
    assert_eq!(alice["total"], 2, "{alice:#}");
    let by_bot = list(&app, &rig, &format!("?botId={}", rig.bot)).await;
    assert_eq!(by_bot["total"], 4);
    let other_bot = list(&app, &rig, &format!("?botId={}", uuid::Uuid::new_v4())).await;
    assert_eq!(other_bot["total"], 0);
    let by_pipeline = list(&app, &rig, &format!("?pipelineId={}", rig.pipeline)).await;
    assert_eq!(by_pipeline["total"], 4);
    let paged = list(&app, &rig, "?limit=1&offset=1").await;
    assert_eq!(paged["tool_calls"].as_array().unwrap().len(), 1);
    assert_eq!(paged["total"], 4);
    assert_eq!(
        paged["tool_calls"][0], rows[1],
        "offset 1 is the second newest"
    );
    let past = list(
        &app,
        &rig,
        "?startTime=2000-01-01T00:00:00Z&endTime=2000-06-01T00:00:00Z",
    )
    .await;
    assert_eq!(past["total"], 0);
}

#[tokio::test]
async fn the_records_query_and_the_execution_detail_have_them() {
    let app = spawn_app().await;
    let rig = traffic(&app).await;
    let res = app
        .send_as(
            &rig.owner,
            Method::POST,
            "/api/v1/monitoring/records/tool_calls/query",
            &json!({ "limit": 10, "filters": { "session_ids": ["person_bob"] } }),
        )
        .await;
    let data = res.data();
    assert_eq!(data["total"], 2, "{data:#}");
    let records = data["records"].as_array().expect("records");
    assert!(records.iter().all(|r| r["session_id"] == "person_bob"));

    let execution = rig.last_execution(&app, "alice").await;
    let id = execution["id"].as_str().unwrap();
    let detail = rig.detail(&app, id).await;
    let section = &detail["pages"]["tool_calls"];
    let items = section["items"].as_array().expect("tool_calls section");
    assert_eq!(items.len(), 2, "{section:#}");
    assert_eq!(section["has_more"], false);
    assert_eq!(section["next_offset"], 2);
    assert!(items.iter().all(|r| r["execution_id"] == id));
    let stamps: Vec<&str> = items
        .iter()
        .filter_map(|r| r["timestamp"].as_str())
        .collect();
    assert!(stamps[0] <= stamps[1], "oldest first: {stamps:?}");
    let stats = tool_stats(&detail);
    assert_eq!(stats["total_calls"], 2, "{detail:#}");
    assert_eq!(stats["success_calls"], 1);
    assert_eq!(stats["error_calls"], 1);
    assert!(stats["total_duration_ms"].is_number(), "{stats}");
    assert!(stats["average_duration_ms"].is_number(), "{stats}");
    // The section pages on its own.
    let url = format!("/api/v1/monitoring/executions/pipeline/{id}?section=tool_calls&limit=1");
    let page = app.get_as(&rig.owner, &url).await;
    let page = &page.data()["pages"]["tool_calls"];
    assert_eq!(page["items"].as_array().unwrap().len(), 1, "{page:#}");
    assert_eq!(page["has_more"], true);
    assert_eq!(page["items"][0], items[0]);
}

#[tokio::test]
async fn the_export_has_the_tool_calls() {
    let app = spawn_app().await;
    let rig = traffic(&app).await;
    let csv = app
        .get_as(
            &rig.owner,
            "/api/v1/monitoring/export?type=tool_calls&session_ids=person_alice",
        )
        .await;
    assert_eq!(csv.status, 200, "{}", csv.text);
    assert!(csv
        .header("content-type")
        .is_some_and(|c| c.starts_with("text/csv")));
    let header = csv.text.lines().next().unwrap_or_default();
    for column in ["tool_name", "status", "arguments", "result"] {
        assert!(header.contains(column), "{column} in {header:?}");
    }
    assert!(csv.text.contains("recorded failure"), "{}", csv.text);
    let ndjson = app
        .get_as(
            &rig.owner,
            "/api/v1/monitoring/export?type=tool_calls&format=ndjson",
        )
        .await;
    assert_eq!(ndjson.status, 200, "{}", ndjson.text);
    let rows: Vec<Value> = ndjson
        .text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("an NDJSON line"))
        .collect();
    assert_eq!(rows.len(), 4, "{}", ndjson.text);
    assert!(rows.iter().all(|r| r["tool_source"] == "mcp"));
}
