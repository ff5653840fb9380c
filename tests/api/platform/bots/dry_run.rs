//! `POST /api/v1/platform/bots/{bot_uuid}/event-routes/dry-run`.

use reqwest::Method;
use serde_json::json;

use super::{config, create_bot};
use crate::helpers::spawn_app;

#[tokio::test]
async fn dry_run_reports_the_decision_and_each_route() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let p = app.pipeline_named(&owner, "p", true).await;
    let uuid = create_bot(
        &app,
        &owner,
        json!({ "name": "b", "adapter": "http_bot", "adapter_config": config() }),
    )
    .await;
    let uuid = uuid.data()["uuid"].as_str().unwrap().to_string();
    let path = format!("/api/v1/platform/bots/{uuid}/event-routes/dry-run");
    let group_mention = json!({ "event_type": "message.received",
        "event_data": { "group": { "id": "g1" }, "sender": { "id": "u1" }, "message_chain": [{ "type": "At", "target": "bot-1" }, { "type": "Plain", "text": "hello" }] },
        "context": { "bot_account_id": "bot-1" } });
    let res = app
        .send_as(&owner, Method::POST, &path, &group_mention)
        .await;
    let d = res.data();
    assert_eq!(d["matched"], true);
    assert_eq!(d["matched_binding_index"], 1);
    assert_eq!(d["target"]["target_uuid"], p.as_str());
    assert_eq!(
        d["diagnostic_details"][0]["failure_code"],
        "filters_mismatch"
    );
    assert_eq!(d["diagnostic_details"][1]["selected"], true);
    // An unmentioned group message matches nothing.
    let mut plain = group_mention.clone();
    plain["event_data"]["message_chain"] = json!([{ "type": "Plain", "text": "hello" }]);
    let res = app.send_as(&owner, Method::POST, &path, &plain).await;
    assert_eq!(res.data()["matched"], false);
    assert_eq!(res.data()["failure_code"], "route_not_found");
    assert_eq!(res.data()["diagnostic_details"][1]["failed_filter"], 1);
    // A draft: a higher priority discard wins over an earlier route.
    let mut draft = group_mention.clone();
    draft["event_bindings"] = json!([
        { "event_pattern": "message.received", "target_type": "pipeline", "target_uuid": p },
        { "event_pattern": "message.*", "target_type": "discard", "priority": 10 }
    ]);
    let res = app.send_as(&owner, Method::POST, &path, &draft).await;
    assert_eq!(res.data()["target_type"], "discard");
    assert_eq!(
        res.data()["diagnostic_details"][0]["failure_code"],
        "lower_priority"
    );
    // A draft naming a missing pipeline: matched, but the target is not found.
    let mut missing = group_mention.clone();
    missing["event_bindings"] = json!([{ "event_pattern": "*", "target_type": "pipeline", "target_uuid": uuid::Uuid::new_v4().to_string() }]);
    let res = app.send_as(&owner, Method::POST, &path, &missing).await;
    res.assert_error(400, "invalid_request");
    missing["event_bindings"][0]["event_pattern"] = json!("message.received");
    let res = app.send_as(&owner, Method::POST, &path, &missing).await;
    assert_eq!(res.data()["failure_code"], "processor_not_found");
    // Malformed requests and unknown bots.
    app.send_as(&owner, Method::POST, &path, &json!({ "event_data": {} }))
        .await
        .assert_error(400, "invalid_request");
    app.send_as(
        &owner,
        Method::POST,
        &path,
        &json!({ "event_type": "message.received", "event_data": [1] }),
    )
    .await
    .assert_error(400, "invalid_request");
    let other = format!(
        "/api/v1/platform/bots/{}/event-routes/dry-run",
        uuid::Uuid::new_v4()
    );
    app.send_as(&owner, Method::POST, &other, &group_mention)
        .await
        .assert_error(404, "resource_not_found");
}
