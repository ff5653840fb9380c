//! Keys as credentials: `X-API-Key` or bearer, scopes ∩ the creator's current permissions, and
//! the global key.

use reqwest::Method;
use serde_json::json;

use crate::helpers::{spawn_app, spawn_app_with};

#[tokio::test]
async fn a_key_authenticates_as_x_api_key_or_bearer_with_its_scopes() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let (_, secret) = app
        .create_key(&owner, Some(&["workspace.view", "resource.view"]))
        .await;
    for res in [
        app.request(Method::GET, "/api/v1/system/context")
            .header("x-api-key", &secret)
            .send()
            .await,
        app.request(Method::GET, "/api/v1/system/context")
            .bearer(&secret)
            .send()
            .await,
    ] {
        let data = res.data();
        assert_eq!(data["principal_kind"], "api_key");
        assert_eq!(
            data["permissions"],
            json!(["resource.view", "workspace.view"])
        );
        assert_eq!(data["scopes"], json!(["resource.view", "workspace.view"]));
    }
    let denied = app
        .request(Method::PUT, "/api/v1/workspaces/current/language")
        .header("x-api-key", &secret)
        .json(&json!({ "language": "ja_JP" }))
        .send()
        .await;
    denied.assert_error(403, "permission_denied");
    assert_eq!(denied.body["details"]["permission"], "workspace.update");
}

#[tokio::test]
async fn effective_permissions_shrink_when_the_creator_is_demoted_or_removed() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let admin = app
        .add_member(&owner, &ws, "admin@example.com", "admin")
        .await;
    let (_, secret) = app
        .create_key(&admin.token, Some(&["workspace.update", "workspace.view"]))
        .await;
    let context = || {
        app.request(Method::GET, "/api/v1/system/context")
            .header("x-api-key", &secret)
            .send()
    };
    assert_eq!(
        context().await.data()["permissions"],
        json!(["workspace.update", "workspace.view"])
    );
    app.send_as(
        &owner,
        Method::PATCH,
        &format!("/api/v1/workspaces/{ws}/members/{}", admin.account_uuid),
        &json!({ "role": "viewer" }),
    )
    .await
    .data();
    let after = context().await;
    assert_eq!(
        after.data()["permissions"],
        json!(["workspace.view"]),
        "scopes ∩ the creator's current role"
    );
    assert_eq!(
        after.data()["scopes"],
        json!(["workspace.update", "workspace.view"])
    );
    app.request(
        Method::DELETE,
        &format!("/api/v1/workspaces/{ws}/members/{}", admin.account_uuid),
    )
    .bearer(&owner)
    .send()
    .await
    .data();
    assert_eq!(context().await.data()["permissions"], json!([]));
}

#[tokio::test]
async fn the_global_key_works_only_while_one_workspace_exists() {
    let app = spawn_app_with(|s| {
        s.api.global_api_key = Some("instance-wide-secret".into());
        s.workspaces.multi = true;
    })
    .await;
    let ctx = || {
        app.request(Method::GET, "/api/v1/system/context")
            .bearer("instance-wide-secret")
            .send()
    };
    // No Workspace yet.
    ctx().await.assert_error(401, "invalid_authentication");
    let owner = app.init_owner().await;
    let data = ctx().await.data().clone();
    assert_eq!(data["principal_kind"], "global_key");
    assert_eq!(data["permissions"].as_array().unwrap().len(), 15);
    let x = app
        .request(Method::GET, "/api/v1/system/context")
        .header("x-api-key", "instance-wide-secret")
        .header("x-workspace-id", &uuid::Uuid::new_v4().to_string())
        .send()
        .await;
    assert_eq!(
        x.data()["workspace_uuid"],
        data["workspace_uuid"],
        "keys ignore X-Workspace-Id"
    );
    app.create_workspace(&owner, "Second").await;
    ctx().await.assert_error(401, "invalid_authentication");
    app.request(Method::GET, "/api/v1/system/context")
        .bearer("instance-wide-secret-but-longer")
        .send()
        .await
        .assert_error(401, "invalid_authentication");
}
