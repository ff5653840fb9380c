//! Bots: adapter config validation, secrets, default routes, route updates, dry-run.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{spawn_app, TestApp};

fn config() -> Value {
    json!({ "inbound_secret": "inbound-s3cret", "callback_url": "http://127.0.0.1:9/cb", "outbound_secret": "outbound-s3cret" })
}

async fn create_bot(app: &TestApp, token: &str, body: Value) -> crate::helpers::Response {
    app.send_as(token, Method::POST, "/api/v1/platform/bots", &body)
        .await
}

async fn bot(app: &TestApp, token: &str, uuid: &str) -> Value {
    app.get_as(token, &format!("/api/v1/platform/bots/{uuid}"))
        .await
        .data()["bot"]
        .clone()
}

async fn new_pipeline(app: &TestApp, token: &str, name: &str, default: bool) -> String {
    let res = app
        .send_as(
            token,
            Method::POST,
            "/api/v1/pipelines",
            &json!({ "name": name, "is_default": default }),
        )
        .await;
    res.data()["uuid"].as_str().unwrap().to_string()
}

fn targets(b: &Value) -> Vec<String> {
    b["event_bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["target_uuid"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn the_adapter_catalog_lists_http_bot_with_its_secret_fields() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let list = app.get_as(&owner, "/api/v1/platform/adapters").await;
    let adapters = list.data()["adapters"].as_array().unwrap().clone();
    assert_eq!(adapters.len(), 1);
    assert_eq!(adapters[0]["name"], "http_bot");
    let fields = adapters[0]["spec"]["config"].as_array().unwrap();
    let secret: Vec<&str> = fields
        .iter()
        .filter(|f| f["secret"] == true)
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(secret, vec!["inbound_secret", "outbound_secret"]);
    for key in [
        "inbound_secret",
        "callback_url",
        "outbound_secret",
        "default_session_type",
        "signature_required",
        "callback_timeout",
        "callback_max_retries",
        "webhook_url",
    ] {
        assert!(fields.iter().any(|f| f["name"] == key), "{key} missing");
    }
    app.get_as(&owner, "/api/v1/platform/adapters/http_bot")
        .await
        .data();
    app.get_as(&owner, "/api/v1/platform/adapters/telegram")
        .await
        .assert_error(404, "resource_not_found");
}

#[tokio::test]
async fn adapter_config_is_validated_against_the_schema() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let cases = [
        (
            json!({ "callback_url": "http://127.0.0.1:9/cb" }),
            "adapter_config.inbound_secret",
        ),
        (
            json!({ "inbound_secret": "s", "callback_url": "ftp://x" }),
            "adapter_config.callback_url",
        ),
        (
            json!({ "inbound_secret": "s", "callback_url": "http://h/cb", "callback_timeout": 0 }),
            "adapter_config.callback_timeout",
        ),
        (
            json!({ "inbound_secret": "s", "callback_url": "http://h/cb", "default_session_type": "room" }),
            "adapter_config.default_session_type",
        ),
        (
            json!({ "inbound_secret": "s", "callback_url": "http://h/cb", "surprise": 1 }),
            "adapter_config.surprise",
        ),
        (json!("text"), "adapter_config"),
    ];
    for (config, field) in cases {
        let res = create_bot(
            &app,
            &owner,
            json!({ "name": "b", "adapter": "http_bot", "adapter_config": config }),
        )
        .await;
        res.assert_error(400, "invalid_request");
        assert_eq!(res.body["errors"][0]["field"], field, "{}", res.text);
    }
    let res = create_bot(
        &app,
        &owner,
        json!({ "name": "b", "adapter": "telegram", "adapter_config": {} }),
    )
    .await;
    res.assert_error(400, "invalid_request");
    assert_eq!(res.body["errors"][0]["field"], "adapter");
}

#[tokio::test]
async fn secrets_are_masked_on_read_and_kept_on_update() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let uuid = create_bot(
        &app,
        &owner,
        json!({ "name": "b", "adapter": "http_bot", "adapter_config": config() }),
    )
    .await;
    let uuid = uuid.data()["uuid"].as_str().unwrap().to_string();
    let read = bot(&app, &owner, &uuid).await;
    assert_eq!(read["adapter_config"]["inbound_secret"], "***");
    assert_eq!(read["adapter_config"]["outbound_secret"], "***");
    assert_eq!(
        read["adapter_config"]["callback_url"],
        "http://127.0.0.1:9/cb"
    );
    assert_eq!(
        read["adapter_config"]["callback_timeout"], 15,
        "defaults are filled"
    );
    assert!(read["webhook_url"]
        .as_str()
        .unwrap()
        .ends_with(&format!("/bots/{uuid}")));
    let viewer = app
        .add_member(&owner, &ws, "viewer@example.com", "viewer")
        .await;
    let seen = bot(&app, &viewer.token, &uuid).await;
    assert_eq!(
        seen["adapter_config"]["callback_url"], "***",
        "without resource.manage everything is masked"
    );
    // `***` keeps the stored secret; a new value replaces it.
    let mut update = read["adapter_config"].clone();
    update["outbound_secret"] = json!("rotated-outbound");
    app.send_as(
        &owner,
        Method::PUT,
        &format!("/api/v1/platform/bots/{uuid}"),
        &json!({ "adapter_config": update }),
    )
    .await
    .data();
    use sea_orm::EntityTrait;
    let row = langbot::entities::bot::Entity::find_by_id(uuid.clone())
        .one(&app.state.db)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.adapter_config["inbound_secret"], "inbound-s3cret");
    assert_eq!(row.adapter_config["outbound_secret"], "rotated-outbound");
    // `***` with nothing stored is refused.
    let fresh = create_bot(&app, &owner, json!({ "name": "c", "adapter": "http_bot", "adapter_config": { "inbound_secret": "***", "callback_url": "http://h/cb" } })).await;
    fresh.assert_error(400, "invalid_request");
    assert!(!fresh.text.contains("inbound-s3cret"));
}

#[tokio::test]
async fn default_routes_target_the_default_pipeline() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let _older = new_pipeline(&app, &owner, "older", false).await;
    let default = new_pipeline(&app, &owner, "default", true).await;
    let uuid = create_bot(
        &app,
        &owner,
        json!({ "name": "b", "adapter": "http_bot", "adapter_config": config() }),
    )
    .await;
    let b = bot(&app, &owner, uuid.data()["uuid"].as_str().unwrap()).await;
    assert_eq!(targets(&b), vec![default.clone(), default]);
    let routes = b["event_bindings"].as_array().unwrap();
    assert_eq!(
        routes[0]["filters"],
        json!([{ "field": "chat_type", "operator": "eq", "value": "person" }])
    );
    assert_eq!(
        routes[1]["filters"],
        json!([{ "field": "chat_type", "operator": "eq", "value": "group" }, { "field": "is_at_bot", "operator": "eq", "value": true }])
    );
    assert_eq!(routes[1]["order"], 1);
}

#[tokio::test]
async fn default_routes_target_the_oldest_pipeline_without_a_default() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let oldest = new_pipeline(&app, &owner, "oldest", false).await;
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    new_pipeline(&app, &owner, "newer", false).await;
    let uuid = create_bot(&app, &owner, json!({ "name": "b", "adapter": "http_bot", "adapter_config": config(), "event_bindings": [] })).await;
    let b = bot(&app, &owner, uuid.data()["uuid"].as_str().unwrap()).await;
    assert_eq!(targets(&b), vec![oldest.clone(), oldest]);
}

#[tokio::test]
async fn default_routes_create_a_default_pipeline_when_there_is_none_even_concurrently() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let body = json!({ "name": "b", "adapter": "http_bot", "adapter_config": config(), "event_bindings": null });
    let created =
        futures_util::future::join_all((0..5).map(|_| create_bot(&app, &owner, body.clone())))
            .await;
    for r in &created {
        r.data();
    }
    let pipelines = app.get_as(&owner, "/api/v1/pipelines").await;
    let list = pipelines.data()["pipelines"].as_array().unwrap().clone();
    assert_eq!(
        list.len(),
        1,
        "concurrent bot creations made several pipelines"
    );
    assert_eq!(list[0]["is_default"], true);
    let uuid = list[0]["uuid"].as_str().unwrap().to_string();
    for r in &created {
        let b = bot(&app, &owner, r.data()["uuid"].as_str().unwrap()).await;
        assert_eq!(targets(&b), vec![uuid.clone(), uuid.clone()]);
    }
}

#[tokio::test]
async fn explicit_routes_are_kept_and_updates_follow_list_semantics() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let p = new_pipeline(&app, &owner, "p", false).await;
    let routes = json!([
        { "id": "mine", "event_pattern": "message.received", "target_type": "pipeline", "target_uuid": p, "priority": 5,
          "filters": [{ "field": "message_text", "operator": "regex", "value": "^!" }] },
        { "event_pattern": "group.*", "target_type": "discard", "enabled": false }
    ]);
    let uuid = create_bot(&app, &owner, json!({ "name": "b", "adapter": "http_bot", "adapter_config": config(), "event_bindings": routes })).await;
    let uuid = uuid.data()["uuid"].as_str().unwrap().to_string();
    let path = format!("/api/v1/platform/bots/{uuid}");
    let b = bot(&app, &owner, &uuid).await;
    let stored = b["event_bindings"].as_array().unwrap().clone();
    assert_eq!(stored.len(), 2);
    assert_eq!(stored[0]["id"], "mine");
    assert_eq!(stored[0]["priority"], 5);
    assert!(
        stored[1]["id"].as_str().is_some_and(|id| !id.is_empty()),
        "an id is generated"
    );
    assert_eq!(stored[1]["order"], 1);
    // null and absent leave routes alone.
    app.send_as(
        &owner,
        Method::PUT,
        &path,
        &json!({ "name": "renamed", "event_bindings": null }),
    )
    .await
    .data();
    app.send_as(&owner, Method::PUT, &path, &json!({ "enable": false }))
        .await
        .data();
    assert_eq!(
        bot(&app, &owner, &uuid).await["event_bindings"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // A list replaces them; [] clears them and no defaults come back.
    app.send_as(
        &owner,
        Method::PUT,
        &path,
        &json!({ "event_bindings": [stored[1].clone()] }),
    )
    .await
    .data();
    assert_eq!(
        bot(&app, &owner, &uuid).await["event_bindings"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    app.send_as(&owner, Method::PUT, &path, &json!({ "event_bindings": [] }))
        .await
        .data();
    assert_eq!(bot(&app, &owner, &uuid).await["event_bindings"], json!([]));
}

#[tokio::test]
async fn routes_are_validated_on_save_naming_route_and_filter() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let p = new_pipeline(&app, &owner, "p", false).await;
    let ok =
        json!({ "event_pattern": "message.received", "target_type": "pipeline", "target_uuid": p });
    let cases = [
        (
            json!({ "event_pattern": "message.received", "target_type": "pipeline", "target_uuid": p, "filters": [{ "field": "x", "operator": "like", "value": 1 }] }),
            "event_bindings[1].filters[0].operator",
        ),
        (
            json!({ "event_pattern": "message.received", "target_type": "pipeline", "target_uuid": p, "filters": [{ "field": "x", "operator": "regex", "value": "(" }] }),
            "event_bindings[1].filters[0].value",
        ),
        (
            json!({ "event_pattern": "message.received", "target_type": "pipeline", "target_uuid": p, "filters": [{ "field": "x", "operator": "regex", "value": "a".repeat(1025) }] }),
            "event_bindings[1].filters[0].value",
        ),
        (
            json!({ "event_pattern": "message.received", "target_type": "pipeline", "target_uuid": p, "filters": [{ "field": "", "operator": "eq", "value": 1 }] }),
            "event_bindings[1].filters[0].field",
        ),
        (
            json!({ "event_pattern": "group.*", "target_type": "pipeline", "target_uuid": p }),
            "event_bindings[1].event_pattern",
        ),
        (
            json!({ "event_pattern": "message received!", "target_type": "discard" }),
            "event_bindings[1].event_pattern",
        ),
        (
            json!({ "event_pattern": "message.received", "target_type": "pipeline", "target_uuid": uuid::Uuid::new_v4().to_string() }),
            "event_bindings[1].target_uuid",
        ),
        (
            json!({ "event_pattern": "*", "target_type": "discard", "target_uuid": p }),
            "event_bindings[1].target_uuid",
        ),
        (
            json!({ "event_pattern": "*", "target_type": "agent" }),
            "event_bindings[1].target_type",
        ),
        (
            json!({ "event_pattern": "*", "target_type": "discard", "priority": "high" }),
            "event_bindings[1].priority",
        ),
        (
            json!({ "event_pattern": "*", "target_type": "discard", "color": "red" }),
            "event_bindings[1].color",
        ),
    ];
    for (bad, field) in cases {
        let res = create_bot(&app, &owner, json!({ "name": "b", "adapter": "http_bot", "adapter_config": config(), "event_bindings": [ok.clone(), bad] })).await;
        res.assert_error(400, "invalid_request");
        assert_eq!(res.body["errors"][0]["field"], field, "{}", res.text);
    }
}

#[tokio::test]
async fn dry_run_reports_the_decision_and_each_route() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let p = new_pipeline(&app, &owner, "p", true).await;
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
