//! Resolved principals are cached per replica; every change that affects one applies on the
//! very next request, on the replica that made it and on another sharing the database and the
//! session store (the in-process store in the SQLite pass, Redis in the PostgreSQL pass). No
//! test here retries: "eventually" would hide a stale cache.

use reqwest::Method;
use serde_json::json;

use crate::helpers::{spawn_app, TestApp, OWNER_EMAIL, PASSWORD};

async fn context_with_key(app: &TestApp, key: &str) -> crate::helpers::Response {
    app.request(Method::GET, "/api/v1/system/context")
        .header("x-api-key", key)
        .send()
        .await
}

async fn context_with_session(app: &TestApp, token: &str) -> crate::helpers::Response {
    app.request(Method::GET, "/api/v1/system/context")
        .bearer(token)
        .send()
        .await
}

#[tokio::test]
async fn a_revoked_key_is_refused_by_the_next_request_on_every_replica() {
    let a = spawn_app().await;
    let b = a.sibling().await;
    let owner = a.init_owner().await;
    let (key_id, key) = a.create_key(&owner, None).await;
    // Both replicas have the key cached.
    for app in [&a, &b] {
        context_with_key(app, &key).await.data();
        context_with_key(app, &key).await.data();
    }
    a.request(Method::DELETE, &format!("/api/v1/apikeys/{key_id}"))
        .bearer(&owner)
        .send()
        .await
        .data();
    context_with_key(&b, &key)
        .await
        .assert_error(401, "invalid_authentication");
    context_with_key(&a, &key)
        .await
        .assert_error(401, "invalid_authentication");
}

#[tokio::test]
async fn logout_ends_the_session_on_the_next_request_on_every_replica() {
    let a = spawn_app().await;
    let b = a.sibling().await;
    let token = a.init_owner().await;
    for app in [&a, &b] {
        app.get_as(&token, "/api/v1/platform/bots").await.data();
        app.get_as(&token, "/api/v1/user/info").await.data();
    }
    a.request(Method::POST, "/api/v1/user/logout")
        .bearer(&token)
        .send()
        .await
        .data();
    for app in [&b, &a] {
        app.get_as(&token, "/api/v1/platform/bots")
            .await
            .assert_error(401, "invalid_authentication");
        app.get_as(&token, "/api/v1/user/info")
            .await
            .assert_error(401, "invalid_authentication");
    }
}

#[tokio::test]
async fn a_password_change_ends_the_other_sessions_on_every_replica() {
    let a = spawn_app().await;
    let b = a.sibling().await;
    let current = a.init_owner().await;
    let other = a.login(OWNER_EMAIL, PASSWORD).await;
    for token in [&current, &other] {
        b.get_as(token, "/api/v1/platform/bots").await.data();
    }
    a.send_as(
        &current,
        Method::POST,
        "/api/v1/user/change-password",
        &json!({ "current_password": PASSWORD, "new_password": "a-brand-new-password" }),
    )
    .await
    .data();
    b.get_as(&other, "/api/v1/platform/bots")
        .await
        .assert_error(401, "invalid_authentication");
    b.get_as(&current, "/api/v1/platform/bots").await.data();
}

#[tokio::test]
async fn a_role_change_and_a_removal_apply_on_the_next_request_on_every_replica() {
    let a = spawn_app().await;
    let b = a.sibling().await;
    let owner = a.init_owner().await;
    let ws = a.workspace_of(&owner).await;
    let admin = a
        .add_member(&owner, &ws, "admin@example.com", "admin")
        .await;
    let (_, key) = a
        .create_key(&admin.token, Some(&["workspace.update", "workspace.view"]))
        .await;
    for app in [&a, &b] {
        assert!(
            context_with_session(app, &admin.token).await.data()["permissions"]
                .as_array()
                .unwrap()
                .contains(&json!("workspace.update"))
        );
        assert_eq!(
            context_with_key(app, &key).await.data()["permissions"],
            json!(["workspace.update", "workspace.view"])
        );
    }
    a.send_as(
        &owner,
        Method::PATCH,
        &format!("/api/v1/workspaces/{ws}/members/{}", admin.account_uuid),
        &json!({ "role": "viewer" }),
    )
    .await
    .data();
    for app in [&b, &a] {
        let permissions =
            context_with_session(app, &admin.token).await.data()["permissions"].clone();
        assert!(
            !permissions
                .as_array()
                .unwrap()
                .contains(&json!("workspace.update")),
            "a demoted member keeps workspace.update: {permissions}"
        );
        assert_eq!(
            context_with_key(app, &key).await.data()["permissions"],
            json!(["workspace.view"])
        );
    }
    a.request(
        Method::DELETE,
        &format!("/api/v1/workspaces/{ws}/members/{}", admin.account_uuid),
    )
    .bearer(&owner)
    .send()
    .await
    .data();
    for app in [&b, &a] {
        assert_eq!(
            context_with_session(app, &admin.token).await.status,
            404,
            "no Workspace left"
        );
        assert_eq!(
            context_with_key(app, &key).await.data()["permissions"],
            json!([])
        );
    }
}
