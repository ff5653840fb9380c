//! Deleting the default pipeline (SPEC §16): allowed; the oldest remaining pipeline becomes the
//! default and the response names it; deleting the last one leaves no default, and the next
//! bot gets a new default pipeline. Routes still refuse (409) unless cascading.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use super::create;
use crate::helpers::{spawn_app, TestApp};

async fn delete(app: &TestApp, owner: &str, uuid: &str, query: &str) -> crate::helpers::Response {
    app.request(Method::DELETE, &format!("/api/v1/pipelines/{uuid}{query}"))
        .bearer(owner)
        .send()
        .await
}

/// The uuids of the Workspace's default pipelines.
async fn defaults(app: &TestApp, owner: &str) -> Vec<String> {
    let list = app.get_as(owner, "/api/v1/pipelines").await;
    list.data()["pipelines"]
        .as_array()
        .expect("pipelines")
        .iter()
        .filter(|p| p["is_default"] == true)
        .map(|p| p["uuid"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn deleting_the_default_moves_it_to_the_oldest_remaining_pipeline() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let mut made = Vec::new();
    for (name, is_default) in [("A", false), ("B", true), ("C", false), ("D", false)] {
        let res = create(
            &app,
            &owner,
            json!({ "name": name, "is_default": is_default }),
        )
        .await;
        made.push(res.data()["uuid"].as_str().unwrap().to_string());
        // Distinct creation times: "oldest" is then unambiguous.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let [a, b, c, d] = [&made[0], &made[1], &made[2], &made[3]];
    // The default B goes: A, the oldest, becomes the default.
    let res = delete(&app, &owner, b, "").await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(
        res.data()["new_default_pipeline"],
        json!({ "uuid": a, "name": "A" }),
        "{}",
        res.text
    );
    assert_eq!(defaults(&app, &owner).await, std::slice::from_ref(a));
    // A non-default goes: the default stays, the response names none.
    let res = delete(&app, &owner, d, "").await;
    assert_eq!(
        res.data()["new_default_pipeline"],
        Value::Null,
        "{}",
        res.text
    );
    assert_eq!(defaults(&app, &owner).await, std::slice::from_ref(a));
    // The default A goes: C is the only (so oldest) one left.
    let res = delete(&app, &owner, a, "").await;
    assert_eq!(
        res.data()["new_default_pipeline"]["uuid"],
        c.as_str(),
        "{}",
        res.text
    );
    assert_eq!(defaults(&app, &owner).await, std::slice::from_ref(c));
    // The last pipeline may go too; no default remains.
    let res = delete(&app, &owner, c, "").await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(
        res.data(),
        &json!({ "removed_routes": [], "new_default_pipeline": null })
    );
    assert!(defaults(&app, &owner).await.is_empty());
    // The next bot without routes gets a new default pipeline (SPEC §9).
    let bot = app
        .send_as(
            &owner,
            Method::POST,
            "/api/v1/platform/bots",
            &json!({ "name": "b", "adapter": "http_bot",
                     "adapter_config": { "inbound_secret": "s3cret-in", "callback_url": "http://127.0.0.1:9/cb" } }),
        )
        .await;
    let bot = bot.data()["uuid"].as_str().unwrap().to_string();
    let got = app
        .get_as(&owner, &format!("/api/v1/platform/bots/{bot}"))
        .await;
    let target = got.data()["bot"]["event_bindings"][0]["target_uuid"].clone();
    assert_eq!(
        defaults(&app, &owner).await,
        [target.as_str().unwrap().to_string()]
    );
}

#[tokio::test]
async fn a_default_that_routes_target_is_refused_unless_cascading_then_moves() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let first = create(&app, &owner, json!({ "name": "First" }))
        .await
        .data()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    tokio::time::sleep(Duration::from_millis(20)).await;
    let main = create(&app, &owner, json!({ "name": "Main", "is_default": true }))
        .await
        .data()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    // The bot's default routes target the default pipeline.
    app.send_as(
        &owner,
        Method::POST,
        "/api/v1/platform/bots",
        &json!({ "name": "b", "adapter": "http_bot",
                 "adapter_config": { "inbound_secret": "s3cret-in", "callback_url": "http://127.0.0.1:9/cb" } }),
    )
    .await
    .data();
    let refused = delete(&app, &owner, &main, "").await;
    refused.assert_error(409, "pipeline_in_use");
    assert_eq!(
        defaults(&app, &owner).await,
        std::slice::from_ref(&main),
        "a refusal changes nothing"
    );
    let done = delete(&app, &owner, &main, "?cascade=true").await;
    assert_eq!(done.status, 200, "{}", done.text);
    assert_eq!(
        done.data()["removed_routes"][0]["route_ids"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        done.data()["new_default_pipeline"],
        json!({ "uuid": first, "name": "First" })
    );
    assert_eq!(defaults(&app, &owner).await, [first]);
}
