//! Pipelines: template, validation, section merge, the default pipeline, copy, delete.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{spawn_app, TestApp};

async fn create(app: &TestApp, token: &str, body: Value) -> crate::helpers::Response {
    app.send_as(token, Method::POST, "/api/v1/pipelines", &body)
        .await
}

async fn pipeline(app: &TestApp, token: &str, uuid: &str) -> Value {
    app.get_as(token, &format!("/api/v1/pipelines/{uuid}"))
        .await
        .data()["pipeline"]
        .clone()
}

/// A provider with one LLM model; returns the model uuid.
async fn llm_model(app: &TestApp, token: &str) -> String {
    let provider = app
        .send_as(
            token,
            Method::POST,
            "/api/v1/provider/providers",
            &json!({ "name": "p", "requester": "openai-chat-completions", "base_url": "http://127.0.0.1:9/v1", "api_keys": ["k"] }),
        )
        .await;
    let provider = provider.data()["uuid"].as_str().unwrap().to_string();
    let model = app
        .send_as(
            token,
            Method::POST,
            "/api/v1/provider/models/llm",
            &json!({ "name": "m", "provider_uuid": provider }),
        )
        .await;
    model.data()["uuid"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn create_without_config_uses_the_template_with_the_starred_model() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let model = llm_model(&app, &owner).await;
    app.send_as(
        &owner,
        Method::PUT,
        "/api/v1/provider/models/llm/_/starred",
        &json!({ "uuid": model }),
    )
    .await
    .data();
    let res = create(&app, &owner, json!({ "name": "P" })).await;
    let p = pipeline(&app, &owner, res.data()["uuid"].as_str().unwrap()).await;
    assert_eq!(p["config"]["trigger"]["group-respond-rules"]["at"], true);
    assert_eq!(
        p["config"]["trigger"]["group-respond-rules"]["prefix"],
        json!(["ai"])
    );
    assert_eq!(
        p["config"]["safety"]["content-filter"]["check-sensitive-words"],
        true
    );
    assert_eq!(p["config"]["output"]["misc"]["quote-origin"], true);
    assert_eq!(p["config"]["ai"]["runner"]["id"], "local-agent");
    assert_eq!(
        p["config"]["ai"]["runner_config"]["local-agent"]["model"]["primary"],
        model.as_str()
    );
    assert_eq!(p["is_default"], false);
    assert_eq!(p["stages"].as_array().unwrap().len(), 11);
    assert_eq!(p["extensions_preferences"]["enable_all_plugins"], true);
}

#[tokio::test]
async fn create_keeps_a_supplied_config_and_validates_it() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let res = create(
        &app,
        &owner,
        json!({ "name": "P", "config": { "trigger": { "access-control": { "mode": "whitelist", "whitelist": ["person_1"] } } },
                "extensions_preferences": { "enable_all_plugins": false, "plugins": [{ "author": "a", "name": "b" }] } }),
    )
    .await;
    let p = pipeline(&app, &owner, res.data()["uuid"].as_str().unwrap()).await;
    assert_eq!(
        p["config"]["trigger"]["access-control"]["mode"],
        "whitelist"
    );
    assert_eq!(
        p["config"]["trigger"]["access-control"]["whitelist"],
        json!(["person_1"])
    );
    assert_eq!(
        p["config"]["safety"]["rate-limit"]["limitation"], 60,
        "omitted sections come from the template"
    );
    assert_eq!(p["extensions_preferences"]["plugins"][0]["author"], "a");

    for (config, field) in [
        (
            json!({ "trigger": { "access-control": { "mode": "greylist" } } }),
            "trigger.access-control.mode",
        ),
        (json!({ "trigger": "nope" }), "trigger"),
        (
            json!({ "safety": { "rate-limit": { "limitation": 0 } } }),
            "safety.rate-limit.limitation",
        ),
        (
            json!({ "trigger": { "group-respond-rules": { "random": 1.5 } } }),
            "trigger.group-respond-rules.random",
        ),
        (
            json!({ "trigger": { "ignore-rules": { "regexp": ["(unclosed"] } } }),
            "trigger.ignore-rules.regexp[0]",
        ),
        (
            json!({ "output": { "force-delay": { "min": 5, "max": 1 } } }),
            "output.force-delay.min",
        ),
        (
            json!({ "ai": { "runner_config": { "local-agent": { "model": { "primary": uuid::Uuid::new_v4().to_string() } } } } }),
            "ai.runner_config.local-agent.model.primary",
        ),
        (
            json!({ "ai": { "runner": { "id": "plugin:x/y/z" } } }),
            "ai.runner.id",
        ),
        (json!({ "nonsense": {} }), "nonsense"),
    ] {
        let res = create(&app, &owner, json!({ "name": "bad", "config": config })).await;
        res.assert_error(400, "invalid_request");
        let fields: Vec<&str> = res.body["errors"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e["field"].as_str())
            .collect();
        assert!(
            fields.contains(&field),
            "expected an error on {field}: {}",
            res.text
        );
    }
}

#[tokio::test]
async fn update_replaces_supplied_sections_and_keeps_the_others() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let uuid = create(&app, &owner, json!({ "name": "P" })).await.data()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("/api/v1/pipelines/{uuid}");
    app.send_as(
        &owner,
        Method::PUT,
        &path,
        &json!({ "config": { "output": { "misc": { "at-sender": false } } } }),
    )
    .await
    .data();
    app.send_as(
        &owner,
        Method::PUT,
        &path,
        &json!({ "name": "Renamed", "config": { "trigger": { "access-control": { "mode": "whitelist" } } } }),
    )
    .await
    .data();
    let p = pipeline(&app, &owner, &uuid).await;
    assert_eq!(p["name"], "Renamed");
    assert_eq!(
        p["config"]["output"]["misc"]["at-sender"], false,
        "an omitted section is kept"
    );
    assert_eq!(
        p["config"]["trigger"]["access-control"]["mode"],
        "whitelist"
    );
    assert_eq!(
        p["config"]["trigger"]["group-respond-rules"]["prefix"],
        json!(["ai"]),
        "a supplied section is replaced in full (no deep merge with the stored one)"
    );
    // A failed update changes nothing.
    let before = pipeline(&app, &owner, &uuid).await;
    app.send_as(
        &owner,
        Method::PUT,
        &path,
        &json!({ "config": { "safety": 5 } }),
    )
    .await
    .assert_error(400, "invalid_request");
    app.send_as(&owner, Method::PUT, &path, &json!({ "is_default": true }))
        .await
        .assert_error(400, "invalid_request");
    assert_eq!(pipeline(&app, &owner, &uuid).await, before);
}

#[tokio::test]
async fn one_default_pipeline_per_workspace() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let first = create(&app, &owner, json!({ "name": "A", "is_default": true }))
        .await
        .data()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    create(&app, &owner, json!({ "name": "B", "is_default": true }))
        .await
        .assert_error(409, "default_pipeline_exists");
    let second = create(&app, &owner, json!({ "name": "B" })).await.data()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let moved = app
        .request(Method::PUT, &format!("/api/v1/pipelines/{second}/default"))
        .bearer(&owner)
        .send()
        .await;
    assert_eq!(moved.data()["pipeline"]["is_default"], true);
    assert_eq!(pipeline(&app, &owner, &first).await["is_default"], false);
    let list = app.get_as(&owner, "/api/v1/pipelines").await;
    let defaults = list.data()["pipelines"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["is_default"] == true)
        .count();
    assert_eq!(defaults, 1);
}

#[tokio::test]
async fn concurrent_default_creations_make_one_default() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let body = json!({ "name": "D", "is_default": true });
    let results =
        futures_util::future::join_all((0..6).map(|_| create(&app, &owner, body.clone()))).await;
    let ok = results.iter().filter(|r| r.status == 200).count();
    assert_eq!(
        ok,
        1,
        "{:?}",
        results.iter().map(|r| r.text.clone()).collect::<Vec<_>>()
    );
    for r in results.iter().filter(|r| r.status != 200) {
        r.assert_error(409, "default_pipeline_exists");
    }
}

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
    let copied = pipeline(&app, &owner, copy.data()["uuid"].as_str().unwrap()).await;
    assert_eq!(copied["name"], "A (Copy)");
    assert_eq!(copied["is_default"], false);
    let names = |res: &crate::helpers::Response| -> Vec<String> {
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
    pipeline(&app, &owner, &target).await;
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
