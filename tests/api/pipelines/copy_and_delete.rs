//! Copy, list order, the metadata, and delete (refused while routes target the pipeline).

use reqwest::Method;
use serde_json::json;

use super::{create, llm_model};
use crate::helpers::{spawn_app, Response};

#[tokio::test]
async fn copy_list_sort_and_metadata() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let model = llm_model(&app, &owner).await;
    let a = create(&app, &owner, json!({ "name": "A", "is_default": true }))
        .await
        .data()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let copy = app
        .request(Method::POST, &format!("/api/v1/pipelines/{a}/copy"))
        .bearer(&owner)
        .send()
        .await;
    let copied = app
        .pipeline(&owner, copy.data()["uuid"].as_str().unwrap())
        .await;
    assert_eq!(copied["name"], "A (Copy)");
    assert_eq!(copied["is_default"], false);
    let names = |res: &Response| -> Vec<String> {
        res.data()["pipelines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    let desc = app.get_as(&owner, "/api/v1/pipelines").await;
    assert_eq!(names(&desc), vec!["A (Copy)", "A"]);
    let asc = app
        .get_as(
            &owner,
            "/api/v1/pipelines?sort_by=created_at&sort_order=ASC",
        )
        .await;
    assert_eq!(names(&asc), vec!["A", "A (Copy)"]);
    app.get_as(&owner, "/api/v1/pipelines?sort_by=name")
        .await
        .assert_error(400, "invalid_request");

    let meta = app.get_as(&owner, "/api/v1/pipelines/_/metadata").await;
    let configs = meta.data()["configs"].as_array().unwrap();
    let sections: Vec<&str> = configs
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(sections, vec!["trigger", "safety", "ai", "output"]);
    let mode = &configs[0]["stages"][1]["config"][0];
    assert_eq!(mode["type"], "select");
    assert_eq!(mode["default"], "blacklist");
    let agent = configs[2]["stages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "local-agent")
        .unwrap();
    let selector = agent["config"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "model")
        .unwrap();
    assert_eq!(selector["options"][0]["name"], model.as_str());
}

#[tokio::test]
async fn delete_refuses_while_routes_target_it_unless_cascading() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let target = create(&app, &owner, json!({ "name": "T", "is_default": true }))
        .await
        .data()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let other = create(&app, &owner, json!({ "name": "O" })).await.data()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let route = |pipeline: &str| json!({ "event_pattern": "message.received", "target_type": "pipeline", "target_uuid": pipeline });
    let bot = app
        .send_as(
            &owner,
            Method::POST,
            "/api/v1/platform/bots",
            &json!({ "name": "b", "adapter": "http_bot", "adapter_config": { "inbound_secret": "s3cret-in", "callback_url": "http://127.0.0.1:9/cb" },
                     "event_bindings": [route(&target), route(&other), { "event_pattern": "*", "target_type": "discard" }] }),
        )
        .await;
    let bot = bot.data()["uuid"].as_str().unwrap().to_string();
    let refused = app
        .request(Method::DELETE, &format!("/api/v1/pipelines/{target}"))
        .bearer(&owner)
        .send()
        .await;
    refused.assert_error(409, "pipeline_in_use");
    assert_eq!(refused.body["details"]["bots"][0]["bot_uuid"], bot.as_str());
    assert_eq!(
        refused.body["details"]["bots"][0]["route_ids"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    app.pipeline(&owner, &target).await;
    app.request(
        Method::DELETE,
        &format!("/api/v1/pipelines/{target}?cascade=yes"),
    )
    .bearer(&owner)
    .send()
    .await
    .assert_error(400, "invalid_request");
    let done = app
        .request(
            Method::DELETE,
            &format!("/api/v1/pipelines/{target}?cascade=true"),
        )
        .bearer(&owner)
        .send()
        .await;
    assert_eq!(done.data()["removed_routes"][0]["bot_uuid"], bot.as_str());
    // T was the default: O, the oldest remaining, is now.
    assert_eq!(done.data()["new_default_pipeline"]["uuid"], other.as_str());
    app.get_as(&owner, &format!("/api/v1/pipelines/{target}"))
        .await
        .assert_error(404, "resource_not_found");
    let routes = app
        .get_as(&owner, &format!("/api/v1/platform/bots/{bot}"))
        .await
        .data()["bot"]["event_bindings"]
        .clone();
    let routes = routes.as_array().unwrap();
    assert_eq!(routes.len(), 2);
    assert_eq!(routes[0]["target_uuid"], other.as_str());
    assert_eq!(routes[0]["order"], 0);
    assert_eq!(routes[1]["target_type"], "discard");
    // Unreferenced pipelines delete directly.
    app.request(
        Method::DELETE,
        &format!("/api/v1/pipelines/{}", uuid::Uuid::new_v4()),
    )
    .bearer(&owner)
    .send()
    .await
    .assert_error(404, "resource_not_found");
}

#[tokio::test]
async fn provider_cascade_reports_the_pipelines_that_used_its_models() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let model = llm_model(&app, &owner).await;
    let p = create(
        &app,
        &owner,
        json!({ "name": "Uses it", "config": { "ai": { "runner_config": { "local-agent": { "model": { "primary": model } } } } } }),
    )
    .await;
    let p = p.data()["uuid"].as_str().unwrap().to_string();
    let provider = app
        .get_as(&owner, "/api/v1/provider/providers")
        .await
        .data()["providers"][0]["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let report = app
        .request(
            Method::DELETE,
            &format!("/api/v1/provider/providers/{provider}?cascade=true"),
        )
        .bearer(&owner)
        .send()
        .await;
    assert_eq!(
        report.data()["referencing_pipelines"],
        json!([{ "uuid": p, "name": "Uses it" }])
    );
}
