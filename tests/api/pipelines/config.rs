//! The config: the template on create, a supplied config validated, updates merged by section.

use reqwest::Method;
use serde_json::json;

use super::{create, llm_model};
use crate::helpers::spawn_app;

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
    let p = app
        .pipeline(&owner, res.data()["uuid"].as_str().unwrap())
        .await;
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
    let p = app
        .pipeline(&owner, res.data()["uuid"].as_str().unwrap())
        .await;
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
    let p = app.pipeline(&owner, &uuid).await;
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
    let before = app.pipeline(&owner, &uuid).await;
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
    assert_eq!(app.pipeline(&owner, &uuid).await, before);
}
