//! `POST /api/v1/monitoring/sessions/reset-context` (`reset_session_context`): busy sessions are
//! 409 (a running turn, a message in the aggregation window), unknown ones 404; over HTTP and
//! MCP.

use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use crate::helpers::fixtures::{reply_text, reset_context, text, turn_records, Rig};
use crate::helpers::mcp::{mcp_call, mcp_err, mcp_ok};
use crate::helpers::spawn_app;

#[tokio::test]
async fn a_running_turn_makes_resets_409_and_afterwards_reset_clears_history() {
    let app = spawn_app().await;
    let rig = Rig::with_echo(&app, json!({}), Duration::from_secs(2)).await;
    let res = rig.send(&app, text("s1", "one")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    rig.model_called(1).await;
    tokio::time::sleep(Duration::from_millis(300)).await;

    let body = json!({ "bot_id": rig.bot, "session_id": "person_s1" });
    let busy = reset_context(&app, &rig.owner, &body).await;
    busy.assert_error(409, "session_busy");
    let res = rig.reset(&app, "s1").await;
    res.assert_refused(409, 40903, "/reset during a turn");

    // The turn was not disturbed.
    let callbacks = rig.callbacks(1).await;
    assert_eq!(reply_text(&callbacks[0].0), "echo(1): one");
    let second = rig.sync(&app, text("s1", "two")).await;
    assert_eq!(second.data()["text"], "echo(2): two");

    let (_, _, messages) = turn_records(&app).await;
    let done = reset_context(&app, &rig.owner, &body).await;
    assert_eq!(
        done.data(),
        &json!({ "reset": true, "session_id": "person_s1" })
    );
    assert_eq!(
        turn_records(&app).await.2,
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
    adapter_reset.assert_refused(409, 40903, "/reset in the aggregation window");
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
        .one(app.db())
        .await
        .unwrap()
        .expect("the turn recorded no monitoring session");
    assert_eq!(first.pipeline_id, rig.pipeline);
    rig.sync(&app, text("s1", "two")).await.data();
    let second = monitoring_session::Entity::find_by_id(id)
        .one(app.db())
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
    rig.model_called(2).await;
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
