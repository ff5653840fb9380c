//! Message routes (`event_bindings`): the default routes, list semantics on update, validation.

use reqwest::Method;
use serde_json::json;

use super::{config, create_bot, targets};
use crate::helpers::spawn_app;

#[tokio::test]
async fn default_routes_target_the_default_pipeline() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let _older = app.pipeline_named(&owner, "older", false).await;
    let default = app.pipeline_named(&owner, "default", true).await;
    let uuid = create_bot(
        &app,
        &owner,
        json!({ "name": "b", "adapter": "http_bot", "adapter_config": config() }),
    )
    .await;
    let b = app.bot(&owner, uuid.data()["uuid"].as_str().unwrap()).await;
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
    let oldest = app.pipeline_named(&owner, "oldest", false).await;
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    app.pipeline_named(&owner, "newer", false).await;
    let uuid = create_bot(&app, &owner, json!({ "name": "b", "adapter": "http_bot", "adapter_config": config(), "event_bindings": [] })).await;
    let b = app.bot(&owner, uuid.data()["uuid"].as_str().unwrap()).await;
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
        let b = app.bot(&owner, r.data()["uuid"].as_str().unwrap()).await;
        assert_eq!(targets(&b), vec![uuid.clone(), uuid.clone()]);
    }
}

#[tokio::test]
async fn explicit_routes_are_kept_and_updates_follow_list_semantics() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let p = app.pipeline_named(&owner, "p", false).await;
    let routes = json!([
        { "id": "mine", "event_pattern": "message.received", "target_type": "pipeline", "target_uuid": p, "priority": 5,
          "filters": [{ "field": "message_text", "operator": "regex", "value": "^!" }] },
        { "event_pattern": "group.*", "target_type": "discard", "enabled": false }
    ]);
    let uuid = create_bot(&app, &owner, json!({ "name": "b", "adapter": "http_bot", "adapter_config": config(), "event_bindings": routes })).await;
    let uuid = uuid.data()["uuid"].as_str().unwrap().to_string();
    let path = format!("/api/v1/platform/bots/{uuid}");
    let b = app.bot(&owner, &uuid).await;
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
        app.bot(&owner, &uuid).await["event_bindings"]
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
        app.bot(&owner, &uuid).await["event_bindings"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    app.send_as(&owner, Method::PUT, &path, &json!({ "event_bindings": [] }))
        .await
        .data();
    assert_eq!(app.bot(&owner, &uuid).await["event_bindings"], json!([]));
}

#[tokio::test]
async fn routes_are_validated_on_save_naming_route_and_filter() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let p = app.pipeline_named(&owner, "p", false).await;
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
