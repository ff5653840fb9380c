//! API keys: shown once, hashed, scoped by their creator's current permissions, revocable.

use reqwest::Method;
use serde_json::json;

use crate::helpers::spawn_app;

#[tokio::test]
async fn a_key_is_shown_once_and_listed_without_its_secret() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let (id, secret) = app.create_key(&owner, None).await;
    assert!(secret.starts_with("lbk_") && secret.len() == 47);
    let list = app.get_as(&owner, "/api/v1/apikeys").await;
    let data = list.data();
    assert_eq!(data["total"], 1);
    assert_eq!(data["limit"], 100);
    assert_eq!(data["offset"], 0);
    let key = &data["keys"][0];
    assert_eq!(key["id"], id);
    assert_eq!(key["secret_available"], false);
    assert!(key.get("key").is_none(), "the secret leaked into the list");
    assert!(!list.text.contains(&secret));
    assert_eq!(
        key["scopes"].as_array().unwrap().len(),
        15,
        "omitted scopes inherit the creator's"
    );
    let one = app.get_as(&owner, &format!("/api/v1/apikeys/{id}")).await;
    assert_eq!(one.data()["key"]["name"], "test key");
}

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
async fn a_revoked_key_stays_listed_and_stops_working_at_once() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let (id, secret) = app.create_key(&owner, None).await;
    let ctx = || {
        app.request(Method::GET, "/api/v1/system/context")
            .header("x-api-key", &secret)
            .send()
    };
    ctx().await.data();
    app.request(Method::DELETE, &format!("/api/v1/apikeys/{id}"))
        .bearer(&owner)
        .send()
        .await
        .data();
    ctx().await.assert_error(401, "invalid_authentication");
    let listed = app.get_as(&owner, &format!("/api/v1/apikeys/{id}")).await;
    assert_eq!(listed.data()["key"]["status"], "revoked");
    assert!(listed.data()["key"]["revoked_at"].is_string());
    // Revoking again is harmless.
    app.request(Method::DELETE, &format!("/api/v1/apikeys/{id}"))
        .bearer(&owner)
        .send()
        .await
        .data();
}

#[tokio::test]
async fn update_changes_name_and_description_only() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let (id, _) = app.create_key(&owner, Some(&["workspace.view"])).await;
    app.send_as(
        &owner,
        Method::PUT,
        &format!("/api/v1/apikeys/{id}"),
        &json!({ "name": "renamed", "description": "for CI" }),
    )
    .await
    .data();
    let key = app.get_as(&owner, &format!("/api/v1/apikeys/{id}")).await;
    assert_eq!(key.data()["key"]["name"], "renamed");
    assert_eq!(key.data()["key"]["description"], "for CI");
    let res = app
        .send_as(
            &owner,
            Method::PUT,
            &format!("/api/v1/apikeys/{id}"),
            &json!({ "scopes": ["resource.view"] }),
        )
        .await;
    res.assert_error(400, "invalid_request");
}

#[tokio::test]
async fn last_used_is_recorded_but_not_on_every_request() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let (id, secret) = app.create_key(&owner, None).await;
    for _ in 0..3 {
        app.request(Method::GET, "/api/v1/system/context")
            .header("x-api-key", &secret)
            .send()
            .await
            .data();
    }
    let mut first = serde_json::Value::Null;
    for _ in 0..20 {
        first = app
            .get_as(&owner, &format!("/api/v1/apikeys/{id}"))
            .await
            .data()["key"]["last_used_at"]
            .clone();
        if first.is_string() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(first.is_string(), "last_used_at never written");
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    app.request(Method::GET, "/api/v1/system/context")
        .header("x-api-key", &secret)
        .send()
        .await
        .data();
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let second = app
        .get_as(&owner, &format!("/api/v1/apikeys/{id}"))
        .await
        .data()["key"]["last_used_at"]
        .clone();
    assert_eq!(first, second, "last_used_at was rewritten within a minute");
}

#[tokio::test]
async fn the_global_key_works_only_while_one_workspace_exists() {
    let app = crate::helpers::spawn_app_with(|s| {
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
