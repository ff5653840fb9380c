//! At most one default pipeline per Workspace, and `PUT …/{pipeline_uuid}/default`.

use reqwest::Method;
use serde_json::json;

use super::create;
use crate::helpers::spawn_app;

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
    assert_eq!(app.pipeline(&owner, &first).await["is_default"], false);
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
