//! Creating (the multi-Workspace edition), listing, selecting, reading and renaming Workspaces.

use reqwest::Method;
use serde_json::json;

use crate::helpers::{spawn_app, spawn_app_with};

#[tokio::test]
async fn creating_a_workspace_needs_the_multi_workspace_edition() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let res = app
        .send_as(
            &owner,
            Method::POST,
            "/api/v1/workspaces",
            &json!({ "name": "Second" }),
        )
        .await;
    res.assert_error(403, "edition_limit");

    let multi = spawn_app_with(|s| s.workspaces.multi = true).await;
    let owner = multi.init_owner().await;
    let second = multi.create_workspace(&owner, "Second").await;
    let list = multi.get_as(&owner, "/api/v1/workspaces").await;
    let names: Vec<_> = list.data()["workspaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["name"].clone())
        .collect();
    assert_eq!(names, vec![json!("Default Workspace"), json!("Second")]);
    assert_eq!(list.data()["total"], 2);
    // Without a selector: the first Workspace; with one: the chosen one.
    assert_ne!(multi.workspace_of(&owner).await, second);
    let chosen = multi
        .request(Method::GET, "/api/v1/workspaces/current")
        .bearer(&owner)
        .header("x-workspace-id", &second)
        .send()
        .await;
    assert_eq!(chosen.data()["workspace"]["uuid"], second.as_str());
    let foreign = multi
        .request(Method::GET, "/api/v1/workspaces/current")
        .bearer(&owner)
        .header("x-workspace-id", &uuid::Uuid::new_v4().to_string())
        .send()
        .await;
    foreign.assert_error(404, "resource_not_found");
}

#[tokio::test]
async fn get_and_rename_a_workspace() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let got = app
        .get_as(&owner, &format!("/api/v1/workspaces/{ws}"))
        .await;
    assert_eq!(got.data()["workspace"]["name"], "Default Workspace");
    app.send_as(
        &owner,
        Method::PUT,
        &format!("/api/v1/workspaces/{ws}"),
        &json!({ "name": "Acme" }),
    )
    .await
    .data();
    assert_eq!(
        app.get_as(&owner, &format!("/api/v1/workspaces/{ws}"))
            .await
            .data()["workspace"]["name"],
        "Acme"
    );
    let other = uuid::Uuid::new_v4();
    app.get_as(&owner, &format!("/api/v1/workspaces/{other}"))
        .await
        .assert_error(404, "resource_not_found");
}
