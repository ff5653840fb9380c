//! Monitoring over records produced by real runtime turns.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::runtime_rig::{model_on, text, Rig};
use crate::helpers::{spawn_app, TestApp};

/// Two real turns in one session, one debug run, one failing turn in another session.
async fn traffic(app: &TestApp) -> Rig {
    let rig = Rig::new(app, json!({})).await;
    rig.sync(app, text("alice", "first question"))
        .await
        .data_or_panic();
    rig.sync(app, text("alice", "second question"))
        .await
        .data_or_panic();
    app.send_as(
        &rig.owner,
        Method::POST,
        &format!("/api/v1/pipelines/{}/run", rig.pipeline),
        &json!({ "message": "debug run" }),
    )
    .await
    .data();
    // A failing pipeline for bob.
    let broken = crate::helpers::FakeOpenAi::start().await;
    broken.mount_server_error(crate::helpers::Route::Chat).await;
    let bad = model_on(app, &rig.owner, &broken.base_url(), "broken").await;
    let config =
        json!({ "ai": { "runner_config": { "local-agent": { "model": { "primary": bad } } } } });
    app.send_as(
        &rig.owner,
        Method::PUT,
        &format!("/api/v1/pipelines/{}", rig.pipeline),
        &json!({ "config": config }),
    )
    .await
    .data();
    rig.sync(app, text("bob", "will fail"))
        .await
        .data_or_panic();
    rig
}

trait DataOrPanic {
    fn data_or_panic(&self) -> &Value;
}

impl DataOrPanic for crate::helpers::Response {
    fn data_or_panic(&self) -> &Value {
        assert_eq!(self.status, 200, "{}", self.text);
        &self.body["data"]
    }
}

#[tokio::test]
async fn executions_list_with_filters_and_summary() {
    let app = spawn_app().await;
    let rig = traffic(&app).await;
    let all = app
        .get_as(&rig.owner, "/api/v1/monitoring/executions")
        .await;
    let data = all.data();
    assert_eq!(data["total"], 4);
    assert_eq!(data["summary"]["executions"]["completed"], 3);
    assert_eq!(data["summary"]["executions"]["failed"], 1);
    assert_eq!(data["summary"]["tokens"]["total_tokens"], 14 * 3);
    let first = &data["items"][0];
    assert_eq!(first["status"], "failed", "newest first");
    assert_eq!(first["input_preview"], "will fail");
    assert_eq!(first["session_id"], "person_bob");
    let debug = app
        .get_as(&rig.owner, "/api/v1/monitoring/executions?mode=debug")
        .await;
    assert_eq!(debug.data()["total"], 1);
    assert_eq!(debug.data()["items"][0]["debug"], true);
    let real = app
        .get_as(&rig.owner, "/api/v1/monitoring/executions?mode=real")
        .await;
    assert_eq!(real.data()["total"], 3);
    let failed = app
        .get_as(&rig.owner, "/api/v1/monitoring/executions?statuses=failed")
        .await;
    assert_eq!(failed.data()["total"], 1);
    let two = app
        .get_as(
            &rig.owner,
            &format!(
                "/api/v1/monitoring/executions?status=completed&status=failed&botId={}",
                rig.bot
            ),
        )
        .await;
    assert_eq!(
        two.data()["total"],
        3,
        "repeated keys and LangBot's names; the debug run has another bot id"
    );
    let paged = app
        .get_as(&rig.owner, "/api/v1/monitoring/executions?limit=1&offset=1")
        .await;
    assert_eq!(paged.data()["items"].as_array().unwrap().len(), 1);
    assert_eq!(paged.data()["has_more"], true);
    let alice = app
        .get_as(
            &rig.owner,
            "/api/v1/monitoring/executions?session_ids=person_alice",
        )
        .await;
    assert_eq!(alice.data()["total"], 2);
    assert_eq!(alice.data()["items"][0]["usage"]["total_tokens"], 14);
}

#[tokio::test]
async fn bad_filters_are_400() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    for q in [
        "startTime=yesterday",
        "start_time=2026-01-01T00:00:00Z&end_time=2025-01-01T00:00:00Z",
        "start_time=2020-01-01T00:00:00Z&end_time=2026-01-01T00:00:00Z",
        "statuses=exploded",
        "mode=sometimes",
        "limit=0",
        "limit=5000",
        "unknown=1",
    ] {
        let res = app
            .get_as(&owner, &format!("/api/v1/monitoring/executions?{q}"))
            .await;
        res.assert_error(400, "invalid_request");
    }
    app.get_as(&owner, "/api/v1/monitoring/sessions?statuses=completed")
        .await
        .assert_error(400, "invalid_request");
    app.get_as(&owner, "/api/v1/monitoring/sessions?mode=debug")
        .await
        .assert_error(400, "invalid_request");
    app.get_as(&owner, "/api/v1/monitoring/sessions?mode=all")
        .await
        .data();
    app.get_as(&owner, "/api/v1/monitoring/executions/nowhere/x")
        .await
        .assert_error(400, "invalid_request");
    app.get_as(&owner, "/api/v1/monitoring/executions/auto/unknown")
        .await
        .assert_error(404, "resource_not_found");
}

#[tokio::test]
async fn execution_detail_resolves_messages_and_pages_each_section() {
    let app = spawn_app().await;
    let rig = traffic(&app).await;
    let list = app
        .get_as(
            &rig.owner,
            "/api/v1/monitoring/executions?session_ids=person_alice",
        )
        .await;
    let second = list.data()["items"][0].clone();
    let id = second["id"].as_str().unwrap().to_string();
    let detail = app
        .get_as(
            &rig.owner,
            &format!("/api/v1/monitoring/executions/pipeline/{id}"),
        )
        .await;
    let d = detail.data();
    assert_eq!(d["row"]["id"], id.as_str());
    assert_eq!(
        d["pages"]["inputs"]["items"][0]["message_content"][0]["text"],
        "second question"
    );
    assert_eq!(
        d["pages"]["outputs"]["items"][0]["message_content"][0]["text"],
        "echo(2): second question"
    );
    assert_eq!(
        d["pages"]["llm_calls"]["items"].as_array().unwrap().len(),
        1
    );
    assert!(d["pages"]["llm_calls"]["items"][0]["details"]["timing"]["total_ms"].is_number());
    assert_eq!(
        d["pages"]["events"]["items"][0]["data"]["status"],
        "delivered"
    );
    assert_eq!(
        d["pages"]["related"]["items"].as_array().unwrap().len(),
        1,
        "the other turn of the session"
    );
    assert_eq!(
        d["pages"]["conversation"]["items"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    // auto: the user message id and the reply's id both open this execution.
    let user_message = d["pages"]["inputs"]["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let reply = d["pages"]["outputs"]["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    for key in [&user_message, &reply] {
        let via = app
            .get_as(
                &rig.owner,
                &format!("/api/v1/monitoring/executions/auto/{key}?section=overview"),
            )
            .await;
        assert_eq!(via.data()["row"]["id"], id.as_str());
        assert!(
            via.data()["pages"].get("conversation").is_none(),
            "overview leaves history out"
        );
    }
    // One section, paged.
    let page = app
        .get_as(
            &rig.owner,
            &format!("/api/v1/monitoring/executions/auto/{id}?section=conversation&limit=3"),
        )
        .await;
    let p = &page.data()["pages"]["conversation"];
    assert_eq!(p["items"].as_array().unwrap().len(), 3);
    assert_eq!(p["has_more"], true);
    assert_eq!(p["next_offset"], 3);
    let next = app
        .get_as(
            &rig.owner,
            &format!(
                "/api/v1/monitoring/executions/auto/{id}?section=conversation&limit=3&offset=3"
            ),
        )
        .await;
    assert_eq!(
        next.data()["pages"]["conversation"]["items"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(next.data()["pages"]["conversation"]["has_more"], false);
    app.get_as(
        &rig.owner,
        &format!("/api/v1/monitoring/executions/auto/{id}?section=nope"),
    )
    .await
    .assert_error(400, "invalid_request");
}

#[tokio::test]
async fn records_overview_tokens_and_data() {
    let app = spawn_app().await;
    let rig = traffic(&app).await;
    let messages = app.get_as(&rig.owner, "/api/v1/monitoring/messages").await;
    assert_eq!(messages.data()["total"], 8, "4 inputs and 4 replies");
    let calls = app.get_as(&rig.owner, "/api/v1/monitoring/llm-calls").await;
    assert_eq!(calls.data()["total"], 4);
    let errors = app.get_as(&rig.owner, "/api/v1/monitoring/errors").await;
    assert_eq!(errors.data()["total"], 1);
    assert_eq!(errors.data()["errors"][0]["session_id"], "person_bob");
    let sessions = app
        .get_as(
            &rig.owner,
            &format!("/api/v1/monitoring/sessions?bot_ids={}", rig.bot),
        )
        .await;
    assert_eq!(sessions.data()["total"], 2);
    let debug_only = app
        .get_as(&rig.owner, "/api/v1/monitoring/messages?mode=debug")
        .await;
    assert_eq!(debug_only.data()["total"], 2);
    let failed_only = app
        .get_as(&rig.owner, "/api/v1/monitoring/llm-calls?statuses=failed")
        .await;
    assert_eq!(
        failed_only.data()["total"],
        1,
        "records follow their execution's status"
    );
    let overview = app.get_as(&rig.owner, "/api/v1/monitoring/overview").await;
    assert_eq!(overview.data()["llm_calls"], 4);
    assert_eq!(overview.data()["executions"], 4);
    let tokens = app
        .get_as(&rig.owner, "/api/v1/monitoring/token-statistics")
        .await;
    assert_eq!(tokens.data()["calls"], 4);
    assert_eq!(tokens.data()["totals"]["input_tokens"], 30);
    let data = app
        .get_as(&rig.owner, "/api/v1/monitoring/data?limit=2")
        .await;
    assert_eq!(data.data()["totalCount"]["messages"], 8);
    assert_eq!(data.data()["messages"].as_array().unwrap().len(), 2);
    let via_mcp_shape = app
        .send_as(
            &rig.owner,
            Method::POST,
            "/api/v1/monitoring/records/messages/query",
            &json!({ "limit": 3, "filters": { "session_ids": ["person_alice"] } }),
        )
        .await;
    assert_eq!(via_mcp_shape.data()["total"], 4);
    assert_eq!(via_mcp_shape.data()["records"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn export_is_csv_and_needs_data_export() {
    let app = spawn_app().await;
    let rig = traffic(&app).await;
    let res = app
        .get_as(
            &rig.owner,
            "/api/v1/monitoring/export?type=messages&session_ids=person_alice",
        )
        .await;
    assert_eq!(res.status, 200);
    assert!(res.header("content-type").unwrap().starts_with("text/csv"));
    let mut lines = res.text.lines();
    assert!(lines.next().unwrap().starts_with("id,timestamp,bot_id"));
    assert_eq!(res.text.lines().count(), 5, "a header and 4 messages");
    assert!(res.text.contains("second question"));
    let llm = app
        .get_as(&rig.owner, "/api/v1/monitoring/export?type=llm_calls")
        .await;
    assert_eq!(llm.text.lines().count(), 5);
    app.get_as(&rig.owner, "/api/v1/monitoring/export?type=nope")
        .await
        .assert_error(400, "invalid_request");
    let ws = app.workspace_of(&rig.owner).await;
    let dev = app
        .add_member(&rig.owner, &ws, "dev@example.com", "developer")
        .await;
    app.get_as(&dev.token, "/api/v1/monitoring/export?type=messages")
        .await
        .assert_error(403, "permission_denied");
}

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
    let resp = reqwest::Client::new()
        .get(format!(
            "{}/api/v1/monitoring/in-flight/stream",
            app.address
        ))
        .bearer_auth(&rig.owner)
        .send()
        .await
        .unwrap();
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

#[tokio::test]
async fn the_reaper_fails_executions_whose_lease_expired() {
    let app = spawn_app().await;
    let rig = traffic(&app).await;
    use sea_orm::{ActiveModelTrait, ActiveValue::Set, EntityTrait};
    let e = langbot::entities::execution::Entity::find()
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap();
    let mut orphan: langbot::entities::execution::ActiveModel = e.clone().into();
    orphan.id = Set(uuid::Uuid::new_v4().to_string());
    orphan.status = Set("running".into());
    orphan.lease_expires_at = Set(Some(chrono::Utc::now() - chrono::Duration::seconds(5)));
    let orphan = orphan.insert(&app.state.db).await.unwrap();
    let (reaped, _) = langbot::monitoring::maintenance::run_once(&app.state)
        .await
        .unwrap();
    assert_eq!(reaped, 1);
    let detail = app
        .get_as(
            &rig.owner,
            &format!("/api/v1/monitoring/executions/pipeline/{}", orphan.id),
        )
        .await;
    assert_eq!(detail.data()["row"]["status"], "failed");
    // Retention: nothing here is old enough; a zero retention removes everything.
    assert_eq!(
        langbot::monitoring::maintenance::expire(&app.state.db, Duration::from_secs(3600))
            .await
            .unwrap(),
        0
    );
    let removed = langbot::monitoring::maintenance::expire(&app.state.db, Duration::ZERO)
        .await
        .unwrap();
    assert!(removed >= 8 + 4 + 1 + 5, "removed {removed}");
    let after = app.get_as(&rig.owner, "/api/v1/monitoring/messages").await;
    assert_eq!(after.data()["total"], 0);
}
