//! LangBot's processor form (`POST /agents`) creates a pipeline from the template with the
//! name, description and emoji entered; the processor page then reads it back
//! (`GET /agents/{uuid}`). Other processor kinds do not exist here: 400.

use reqwest::Method;
use serde_json::json;

use crate::helpers::spawn_app;

const AGENTS: &str = "/api/v1/agents";

#[tokio::test]
async fn the_processor_form_creates_a_pipeline_from_the_template() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    // What LangBot's "Create Processors" form sends; its `config` is ignored, as in LangBot.
    let body = json!({ "kind": "pipeline", "name": " Support ", "description": "Answers",
                       "emoji": "🤖", "config": { "ai": "not even an object" } });
    let res = app.send_as(&owner, Method::POST, AGENTS, &body).await;
    let created = res.data().clone();
    assert_eq!(created["kind"], "pipeline", "{}", res.text);
    let uuid = created["uuid"].as_str().unwrap();

    let pipeline = app
        .get_as(&owner, &format!("/api/v1/pipelines/{uuid}"))
        .await
        .data()["pipeline"]
        .clone();
    assert_eq!(pipeline["name"], "Support");
    assert_eq!(pipeline["description"], "Answers");
    assert_eq!(pipeline["emoji"], "🤖");
    assert_eq!(pipeline["is_default"], false);
    assert_eq!(pipeline["config"]["ai"]["runner"]["id"], "local-agent");

    // The processor page's read: the pipeline as a processor, with its settings.
    let agent = app.get_as(&owner, &format!("{AGENTS}/{uuid}")).await.data()["agent"].clone();
    assert_eq!(agent["uuid"], uuid);
    assert_eq!(agent["kind"], "pipeline");
    assert_eq!(agent["component_ref"], "pipeline");
    assert_eq!(agent["name"], "Support");
    assert_eq!(agent["capability"]["message_only"], true);
    assert_eq!(agent["config"], pipeline["config"]);
    assert!(agent["extensions_preferences"].is_object(), "{agent}");
    // And it is listed.
    let list = app.get_as(&owner, AGENTS).await;
    let uuids: Vec<_> = list.data()["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["uuid"].clone())
        .collect();
    assert!(uuids.contains(&json!(uuid)), "{}", list.text);
}

#[tokio::test]
async fn other_kinds_and_bad_forms_are_refused() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    for (body, field) in [
        (json!({ "kind": "agent", "name": "a" }), "kind"),
        (json!({ "kind": "event_processor", "name": "a" }), "kind"),
        (json!({ "kind": "robot", "name": "a" }), "kind"),
        (json!({ "name": "a" }), "kind"),
        (json!({ "kind": "pipeline" }), "name"),
        (json!({ "kind": "pipeline", "name": "  " }), "name"),
        (
            json!({ "kind": "pipeline", "name": "a", "emoji": "" }),
            "emoji",
        ),
        (
            json!({ "kind": "pipeline", "name": "a", "nope": 1 }),
            "nope",
        ),
    ] {
        let res = app.send_as(&owner, Method::POST, AGENTS, &body).await;
        res.assert_error(400, "invalid_request");
        assert!(res.text.contains(field), "{body}: {}", res.text);
    }
    let pipelines = app.get_as(&owner, "/api/v1/pipelines").await;
    assert_eq!(
        pipelines.data()["pipelines"],
        json!([]),
        "nothing was created"
    );
}

#[tokio::test]
async fn a_missing_processor_is_404() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let missing = uuid::Uuid::new_v4();
    app.get_as(&owner, &format!("{AGENTS}/{missing}"))
        .await
        .assert_error(404, "resource_not_found");
    let res = app.get_as(&owner, &format!("{AGENTS}/not-a-uuid")).await;
    assert!(
        res.status == 400 || res.status == 404,
        "a malformed id is a client error: {}",
        res.text
    );
}

#[tokio::test]
async fn a_processor_update_and_delete_are_the_pipelines() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let res = app
        .send_as(
            &owner,
            Method::POST,
            AGENTS,
            &json!({ "kind": "pipeline", "name": "Support" }),
        )
        .await;
    let uuid = res.data()["uuid"].as_str().unwrap().to_string();
    let at = format!("{AGENTS}/{uuid}");
    // LangBot's editor saves name, emoji and a config section.
    let body = json!({ "name": "Renamed", "emoji": "🛟",
                       "config": { "output": { "misc": { "at-sender": false } } } });
    app.send_as(&owner, Method::PUT, &at, &body).await.data();
    let pipeline = app.pipeline(&owner, &uuid).await;
    assert_eq!(pipeline["name"], "Renamed");
    assert_eq!(pipeline["emoji"], "🛟");
    assert_eq!(pipeline["config"]["output"]["misc"]["at-sender"], false);
    // The other sections are kept.
    assert_eq!(pipeline["config"]["ai"]["runner"]["id"], "local-agent");
    // A bad config is refused as the pipeline's update refuses it, naming the path.
    let bad = json!({ "config": { "safety": { "rate-limit": { "limitation": -1 } } } });
    let res = app.send_as(&owner, Method::PUT, &at, &bad).await;
    res.assert_error(400, "invalid_request");
    assert!(
        res.text.contains("safety.rate-limit.limitation"),
        "{}",
        res.text
    );

    let res = app.send_as(&owner, Method::DELETE, &at, &json!(null)).await;
    assert_eq!(res.status, 200, "{}", res.text);
    app.get_as(&owner, &at)
        .await
        .assert_error(404, "resource_not_found");
    // Deleting again, or a processor that never was: 404 (LangBot answers a 500).
    app.send_as(&owner, Method::DELETE, &at, &json!(null))
        .await
        .assert_error(404, "resource_not_found");
    app.send_as(&owner, Method::PUT, &at, &json!({ "name": "x" }))
        .await
        .assert_error(404, "resource_not_found");
}
