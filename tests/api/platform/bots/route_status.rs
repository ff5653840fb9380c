//! `GET /api/v1/platform/bots/{bot_uuid}/event-routes/status`: from the route traces the runtime
//! persists, over HTTP and MCP alike.

use std::time::Duration;

use serde_json::{json, Value};

use crate::helpers::fixtures::{text, Rig};
use crate::helpers::mcp::{mcp_call, mcp_err, mcp_ok};
use crate::helpers::{spawn_app, TestApp};

/// The route status over HTTP and over MCP, asserting both are the same.
async fn statuses(app: &TestApp, rig: &Rig, key: &str, what: &str) -> Value {
    let path = format!("/api/v1/platform/bots/{}/event-routes/status", rig.bot);
    let http = app.get_as(&rig.owner, &path).await.data().clone();
    let res = mcp_call(
        app,
        key,
        "list_bot_event_route_statuses",
        json!({ "bot_uuid": rig.bot }),
    )
    .await;
    let mcp = mcp_ok(&res, what);
    assert_eq!(http, mcp, "{what}: HTTP and MCP differ");
    http
}

#[tokio::test]
async fn group_messages_need_a_mention_and_misses_show_in_route_status() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let group = |segments: serde_json::Value| json!({ "session_id": "g1", "session_type": "group", "sender": { "id": "u1", "name": "Ann" }, "message": segments });
    let silent = rig
        .sync(
            &app,
            group(json!([{ "type": "Plain", "text": "ai hello" }])),
        )
        .await;
    assert_eq!(
        silent.body["data"]["message"],
        json!([]),
        "an unmentioned group message does not enter the pipeline"
    );
    let mentioned = rig
        .sync(
            &app,
            group(json!([{ "type": "At", "target": rig.bot }, { "type": "Plain", "text": "hi" }])),
        )
        .await;
    let message = mentioned.body["data"]["message"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(
        message[0],
        json!({ "type": "At", "target": "u1" }),
        "at-sender in groups"
    );
    assert_eq!(mentioned.body["data"]["text"], "echo(1): hi");
    let status = app
        .get_as(
            &rig.owner,
            &format!("/api/v1/platform/bots/{}/event-routes/status", rig.bot),
        )
        .await;
    let data = status.data();
    assert_eq!(data["unmatched_events"][0]["last_status"], "not_matched");
    assert_eq!(
        data["unmatched_events"][0]["failure_code"],
        "route_not_found"
    );
    assert_eq!(data["routes"][1]["last_status"], "delivered");
    assert_eq!(data["routes"][0]["last_status"], serde_json::Value::Null);
    // Traces survive on disk: a fresh read gives the same.
    let again = app
        .get_as(
            &rig.owner,
            &format!("/api/v1/platform/bots/{}/event-routes/status", rig.bot),
        )
        .await;
    assert_eq!(again.data()["routes"][1]["last_status"], "delivered");
}

#[tokio::test]
async fn route_status_shows_stale_and_discarded_routes_alike_over_http_and_mcp() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let (_, key) = app.create_key(&rig.owner, None).await;
    let fresh = statuses(&app, &rig, &key, "before any message").await;
    let routes = fresh["routes"].as_array().unwrap().clone();
    assert_eq!(routes.len(), 2, "{fresh}");
    assert!(routes
        .iter()
        .all(|r| r["last_status"].is_null() && r["current"] == true));
    assert_eq!(fresh["stale_routes"], json!([]));
    assert_eq!(fresh["unmatched_events"], json!([]));

    let accepted = rig.send(&app, text("s1", "hello")).await;
    let accepted = accepted.body["data"]["accepted_message_id"]
        .as_str()
        .unwrap()
        .to_string();
    rig.callbacks(1).await;
    let served = statuses(&app, &rig, &key, "after a private message").await;
    let delivered: Vec<&Value> = served["routes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["last_status"] == "delivered")
        .collect();
    assert_eq!(delivered.len(), 1, "{served}");
    assert_eq!(delivered[0]["run_id"], accepted.as_str());
    assert_eq!(delivered[0]["target_uuid"], rig.pipeline.as_str());
    assert_eq!(delivered[0]["current"], true);
    let private_id = delivered[0]["binding_id"].as_str().unwrap().to_string();

    // Replace the routes: private messages are discarded now.
    rig.update_bot(&app, json!({ "event_bindings": [{ "id": "drop-private", "event_pattern": "message.received",
            "target_type": "discard", "filters": [{ "field": "chat_type", "operator": "eq", "value": "person" }] }] }),
    )
    .await;
    let replaced = statuses(&app, &rig, &key, "after the routes changed").await;
    assert_eq!(replaced["routes"].as_array().unwrap().len(), 1);
    assert!(replaced["routes"][0]["last_status"].is_null());
    let stale = replaced["stale_routes"].as_array().unwrap();
    assert_eq!(stale.len(), 1, "{replaced}");
    assert_eq!(stale[0]["binding_id"], private_id.as_str());
    assert_eq!(stale[0]["current"], false);
    assert_eq!(stale[0]["last_status"], "delivered");
    assert_eq!(stale[0]["target_uuid"], rig.pipeline.as_str());

    let dropped = rig.send(&app, text("s1", "into the void")).await;
    assert_eq!(dropped.status, 202, "{}", dropped.text);
    let sync = rig.sync(&app, text("s1", "also dropped")).await;
    assert_eq!(sync.data()["message"], json!([]));
    let group = json!({ "session_id": "g1", "session_type": "group",
        "message": [{ "type": "Plain", "text": "nobody routes me" }] });
    assert_eq!(rig.sync(&app, group).await.data()["message"], json!([]));

    let after = statuses(&app, &rig, &key, "after discarded and unmatched messages").await;
    let route = &after["routes"][0];
    assert_eq!(route["binding_id"], "drop-private");
    assert_eq!(route["last_status"], "discarded", "{after}");
    assert_eq!(route["target_type"], "discard");
    assert_eq!(route["current"], true);
    assert!(
        route["run_id"]
            .as_str()
            .is_some_and(|r| r.starts_with("in_")),
        "{after}"
    );
    assert_eq!(after["unmatched_events"][0]["last_status"], "not_matched");
    assert_eq!(after["unmatched_events"][0]["current"], false);
    assert_eq!(after["stale_routes"][0]["binding_id"], private_id.as_str());
    assert_eq!(after["stale_routes"][0]["current"], false);

    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        rig.callback_count().await,
        1,
        "a discarded message was answered"
    );
    assert_eq!(
        rig.fake.received().await.len(),
        1,
        "a discarded message reached the model"
    );

    let unknown = uuid::Uuid::new_v4().to_string();
    app.get_as(
        &rig.owner,
        &format!("/api/v1/platform/bots/{unknown}/event-routes/status"),
    )
    .await
    .assert_error(404, "resource_not_found");
    let res = mcp_call(
        &app,
        &key,
        "list_bot_event_route_statuses",
        json!({ "bot_uuid": unknown }),
    )
    .await;
    assert_eq!(mcp_err(&res, "unknown bot")["code"], "resource_not_found");
}
