//! What the snapshot lists: a running turn, live and recent executions newest first, truncated
//! beyond 100.

use std::time::Duration;

use serde_json::{json, Value};

use super::{items, open, SNAPSHOT};
use crate::helpers::fixtures::{text, Rig};
use crate::helpers::{spawn_app, spawn_app_with, Cred, TestApp};

#[tokio::test]
async fn in_flight_shows_a_running_turn_and_the_stream_sends_snapshots() {
    let app = spawn_app().await;
    let rig = Rig::with_echo(&app, json!({}), Duration::from_millis(1500)).await;
    rig.send(&app, text("slow", "take your time")).await;
    let mut running = Value::Null;
    for _ in 0..40 {
        let snap = app.get_as(&rig.owner, "/api/v1/monitoring/in-flight").await;
        if snap.data()["active_total"] == 1 && snap.data()["items"][0]["progress_event"] == "ai" {
            running = snap.data().clone();
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(running["items"][0]["status"], "running", "{running}");
    assert_eq!(running["items"][0]["progress_event"], "ai");
    // The stream answers with snapshot frames.
    let resp = app
        .request_on_own_connection(reqwest::Method::GET, "/api/v1/monitoring/in-flight/stream")
        .bearer(&rig.owner)
        .send_unread()
        .await;
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let mut stream = resp.bytes_stream();
    use futures_util::StreamExt;
    let mut seen = String::new();
    while !seen.contains("\n\n") {
        let chunk = tokio::time::timeout(Duration::from_secs(5), stream.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    let frame: Value = serde_json::from_str(
        seen.trim()
            .trim_start_matches("data: ")
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(frame["kind"], "snapshot");
    assert!(frame["data"]["items"].is_array());
    rig.callbacks(1).await;
}

/// Inserts an execution row directly.
async fn insert_execution(
    app: &TestApp,
    workspace: &str,
    status: &str,
    started_ago: chrono::Duration,
    lease_in: Option<chrono::Duration>,
    session: &str,
) -> String {
    use sea_orm::{ActiveModelTrait, ActiveValue::Set};
    let now = chrono::Utc::now();
    let id = uuid::Uuid::new_v4().to_string();
    langbot::entities::execution::ActiveModel {
        id: Set(id.clone()),
        workspace_uuid: Set(workspace.to_string()),
        source: Set("pipeline".into()),
        mode: Set(langbot::entities::execution::ExecutionMode::Real),
        status: Set(langbot::entities::execution::ExecutionStatus::parse(status).expect("a status")),
        bot_id: Set("bot".into()),
        bot_name: Set("Bot".into()),
        pipeline_id: Set("pipeline".into()),
        pipeline_name: Set("Pipeline".into()),
        session_id: Set(session.into()),
        event_id: Set(None),
        message_id: Set(None),
        progress_event: Set(Some(
            if status == "running" {
                "ai"
            } else {
                "finished"
            }
            .into(),
        )),
        error: Set(None),
        owner: Set(None),
        lease_expires_at: Set(lease_in.map(|d| now + d)),
        started_at: Set(now - started_ago),
        finished_at: Set((status != "running").then_some(now - started_ago)),
        duration_ms: Set(None),
        llm_calls: Set(0),
        input_tokens: Set(0),
        output_tokens: Set(0),
        total_tokens: Set(0),
        input_preview: Set(None),
    }
    .insert(app.db())
    .await
    .expect("insert execution");
    id
}

#[tokio::test]
async fn the_snapshot_lists_live_and_recent_executions_newest_first() {
    let app = spawn_app_with(|s| s.workspaces.multi = true).await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let other = app.create_workspace(&owner, "Other").await;
    let secs = chrono::Duration::seconds;
    let live_old = insert_execution(&app, &ws, "running", secs(300), Some(secs(60)), "s1").await;
    let live_new = insert_execution(&app, &ws, "running", secs(2), Some(secs(60)), "s2").await;
    let queued = insert_execution(&app, &ws, "queued", secs(5), Some(secs(60)), "s3").await;
    let recent = insert_execution(&app, &ws, "completed", secs(10), None, "s4").await;
    // Not listed: a lapsed lease started long ago, an old finish, another Workspace.
    insert_execution(&app, &ws, "running", secs(300), Some(secs(-5)), "s5").await;
    insert_execution(&app, &ws, "failed", secs(120), None, "s6").await;
    insert_execution(&app, &other, "running", secs(1), Some(secs(60)), "s7").await;

    let snap = app.get_as(&owner, SNAPSHOT).await;
    let data = snap.data().clone();
    let ids: Vec<&str> = items(&data)
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            live_new.as_str(),
            queued.as_str(),
            recent.as_str(),
            live_old.as_str()
        ],
        "{data}"
    );
    assert_eq!(data["active_total"], 3, "{data}");
    assert_eq!(data["truncated"], false);
    assert_eq!(items(&data)[0]["progress_event"], "ai");
    assert_eq!(items(&data)[2]["progress_event"], "finished");

    // The stream's first frame is the same snapshot.
    let mut feed = open(&app, &Cred::bearer(&owner), None).await;
    let first = feed.first_snapshot().await;
    let first_ids: Vec<&str> = items(&first)
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(first_ids, ids);
    assert_eq!(first["active_total"], 3);
}

#[tokio::test]
async fn a_snapshot_beyond_100_live_executions_is_truncated() {
    let app = spawn_app_with(|_| {}).await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let mut newest = String::new();
    for i in 0..101 {
        let ago = chrono::Duration::milliseconds(100 * (101 - i));
        newest = insert_execution(
            &app,
            &ws,
            "running",
            ago,
            Some(chrono::Duration::seconds(60)),
            &format!("s{i}"),
        )
        .await;
    }
    let snap = app.get_as(&owner, SNAPSHOT).await;
    let data = snap.data();
    assert_eq!(data["active_total"], 101, "{data}");
    assert_eq!(data["truncated"], true);
    assert_eq!(items(data).len(), 100);
    assert_eq!(items(data)[0]["id"], newest.as_str(), "newest first");
    assert!(
        items(data).iter().all(|i| i["session_id"] != "s0"),
        "the oldest is left out"
    );
    let mut feed = open(&app, &Cred::bearer(&owner), None).await;
    let first = feed.first_snapshot().await;
    assert_eq!(first["truncated"], true);
    assert_eq!(items(&first).len(), 100);
}
