//! The key resource: shown once, hashed, renamed, revoked (and still listed), `last_used_at`.

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
