//! Executions: the list with filters and summary, the detail (resolving messages, paged
//! sections), and the reaper failing executions whose lease expired.

use std::time::Duration;

use super::rig_traffic;
use crate::helpers::spawn_app;

#[tokio::test]
async fn executions_list_with_filters_and_summary() {
    let app = spawn_app().await;
    let rig = rig_traffic(&app).await;
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
    // LangBot's title and event type (its in-flight panel reads one or the other).
    assert_eq!(first["title"], "will fail");
    assert_eq!(first["event_type"], "message.received");
    let debug = app
        .get_as(&rig.owner, "/api/v1/monitoring/executions?mode=debug")
        .await;
    assert_eq!(debug.data()["total"], 1);
    assert_eq!(debug.data()["items"][0]["debug"], true);
    assert!(
        debug.data()["items"][0]["title"]
            .as_str()
            .is_some_and(|t| !t.is_empty()),
        "{}",
        debug.text
    );
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
async fn execution_detail_resolves_messages_and_pages_each_section() {
    let app = spawn_app().await;
    let rig = rig_traffic(&app).await;
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
        crate::helpers::stored_chain(&d["pages"]["inputs"]["items"][0]["message_content"])[0]
            ["text"],
        "second question"
    );
    assert_eq!(
        crate::helpers::stored_chain(&d["pages"]["outputs"]["items"][0]["message_content"])[0]
            ["text"],
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
async fn the_reaper_fails_executions_whose_lease_expired() {
    let app = spawn_app().await;
    let rig = rig_traffic(&app).await;
    use sea_orm::{ActiveModelTrait, ActiveValue::Set, EntityTrait};
    let e = langbot::entities::execution::Entity::find()
        .one(app.db())
        .await
        .unwrap()
        .unwrap();
    let mut orphan: langbot::entities::execution::ActiveModel = e.clone().into();
    orphan.id = Set(uuid::Uuid::new_v4().to_string());
    orphan.status = Set(langbot::entities::execution::ExecutionStatus::Running);
    orphan.lease_expires_at = Set(Some(chrono::Utc::now() - chrono::Duration::seconds(5)));
    let orphan = orphan.insert(app.db()).await.unwrap();
    let (reaped, _) = langbot::monitoring::maintenance::run_once(app.state())
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
        langbot::monitoring::maintenance::expire(app.db(), Duration::from_secs(3600))
            .await
            .unwrap(),
        0
    );
    let removed = langbot::monitoring::maintenance::expire(app.db(), Duration::ZERO)
        .await
        .unwrap();
    assert!(removed >= 8 + 4 + 1 + 5, "removed {removed}");
    let after = app.get_as(&rig.owner, "/api/v1/monitoring/messages").await;
    assert_eq!(after.data()["total"], 0);
}

/// LangBot's `source` picks kinds of execution: every one recorded here is a pipeline run, so
/// `agent` and `event` select none, and an unknown value counts as `all` (as LangBot does).
#[tokio::test]
async fn executions_source_selects_langbots_kinds() {
    let app = spawn_app().await;
    let rig = rig_traffic(&app).await;
    for (source, total) in [
        ("all", 4),
        ("pipeline", 4),
        ("agent", 0),
        ("event", 0),
        ("something-else", 4),
    ] {
        let res = app
            .get_as(
                &rig.owner,
                &format!("/api/v1/monitoring/executions?source={source}&limit=10"),
            )
            .await;
        let data = res.data();
        assert_eq!(data["total"], total, "source={source}");
        assert_eq!(
            data["items"].as_array().map(Vec::len),
            Some(total),
            "source={source}"
        );
        assert_eq!(data["limit"], 10, "source={source}");
        let summary = &data["summary"]["executions"];
        let completed = if total == 0 { 0 } else { 3 };
        assert_eq!(summary["completed"], completed, "source={source}");
        // LangBot's summary shape: by kind, by status group, the success rate.
        assert_eq!(summary["by_source"]["agent"], 0, "source={source}");
        assert_eq!(summary["by_source"]["pipeline"], total, "source={source}");
        assert_eq!(
            summary["by_status"]["completed"], completed,
            "source={source}"
        );
        assert_eq!(summary["waiting"], 0, "source={source}");
        if total == 0 {
            assert_eq!(summary["success_rate"], serde_json::Value::Null);
            assert_eq!(summary["denominator"], 0);
        } else {
            assert_eq!(summary["success_rate"], 75.0, "3 completed, 1 failed");
            assert_eq!(summary["denominator"], 4);
        }
    }
    let res = app
        .get_as(
            &rig.owner,
            &format!("/api/v1/monitoring/executions?source={}", "x".repeat(33)),
        )
        .await;
    assert_eq!(res.status, 400, "{}", res.text);
}
