//! API key scopes (known, held by the creator) and expiry (a future RFC 3339 time).

use reqwest::Method;
use serde_json::{json, Value};

use super::{fixture, rfc3339_in};

#[tokio::test]
async fn api_key_scopes_must_be_known_and_held_by_the_creator() {
    let fx = fixture().await;
    let app = &fx.app;
    let create = |token: &str, body: Value| {
        let token = token.to_string();
        async move {
            app.send_as(&token, Method::POST, "/api/v1/apikeys", &body)
                .await
        }
    };
    for scopes in [
        json!(["nope"]),
        json!(["workspace.view", "nope"]),
        json!([""]),
        json!(["WORKSPACE.VIEW"]),
        json!(["workspace.view "]),
        json!(["workspace_view"]),
        json!(["owner.transfer"]),
        json!(["*"]),
        json!(["admin"]),
    ] {
        let res = create(&fx.owner, json!({ "name": "k", "scopes": scopes })).await;
        res.expect_field_error(
            400,
            "invalid_api_key",
            "scopes",
            &format!("owner key with scopes {scopes}"),
        );
    }

    // Scopes must be held by the creator: admins lack the owner-only permissions.
    let admin = app
        .add_member(&fx.owner, &fx.ws, "admin@example.com", "admin")
        .await;
    for scopes in [
        json!(["billing_link.manage"]),
        json!(["workspace.delete"]),
        json!(["workspace.view", "billing_link.manage"]),
    ] {
        let res = create(&admin.token, json!({ "name": "k", "scopes": scopes })).await;
        res.expect_error(
            403,
            "permission_denied",
            &format!("admin key with scopes {scopes}"),
        );
    }
    // An unknown scope is reported as such even next to one the creator lacks.
    let res = create(
        &admin.token,
        json!({ "name": "k", "scopes": ["billing_link.manage", "nope"] }),
    )
    .await;
    res.expect_field_error(400, "invalid_api_key", "scopes", "admin, unknown + lacking");

    // Without `api_key.manage` no key can be created at all.
    let developer = app
        .add_member(&fx.owner, &fx.ws, "dev@example.com", "developer")
        .await;
    let viewer = app
        .add_member(&fx.owner, &fx.ws, "viewer@example.com", "viewer")
        .await;
    for (who, token) in [("developer", &developer.token), ("viewer", &viewer.token)] {
        for body in [
            json!({ "name": "k" }),
            json!({ "name": "k", "scopes": ["member.invite"] }),
            json!({ "name": "k", "scopes": ["workspace.view"] }),
        ] {
            let res = create(token, body.clone()).await;
            res.expect_error(403, "permission_denied", &format!("{who} with {body}"));
        }
    }

    // Only the fixture key exists; the admin's inherited key lacks the owner-only scopes.
    let list = fx.owner_call(Method::GET, "/api/v1/apikeys").await;
    assert_eq!(list.data()["total"], 1, "{}", list.text);
    let res = create(&admin.token, json!({ "name": "inherited" })).await;
    let scopes = res.data()["key"]["scopes"].as_array().unwrap().clone();
    assert!(!scopes.contains(&json!("billing_link.manage")));
    assert!(!scopes.contains(&json!("workspace.delete")));
}

#[tokio::test]
async fn api_key_expiry_must_be_a_future_rfc3339_time() {
    let fx = fixture().await;
    let past = rfc3339_in(-60);
    let now_ish = rfc3339_in(0);
    for expires_at in [
        "yesterday",
        "",
        "   ",
        "2000-01-01T00:00:00Z",
        past.as_str(),
        now_ish.as_str(),
        "2099-13-01T00:00:00Z",
        "2099-02-30T00:00:00Z",
        "2099-01-01",
        "2099-01-01T00:00:00",
        "1900000000",
        "next year",
        "2099-01-01T25:00:00Z",
    ] {
        let res = fx
            .app
            .send_as(
                &fx.owner,
                Method::POST,
                "/api/v1/apikeys",
                &json!({ "name": "k", "expires_at": expires_at }),
            )
            .await;
        res.expect_field_error(
            400,
            "invalid_api_key",
            "expires_at",
            &format!("expires_at {expires_at:?}"),
        );
    }
    let list = fx.owner_call(Method::GET, "/api/v1/apikeys").await;
    assert_eq!(list.data()["total"], 1, "{}", list.text);
    // A future time is accepted (the positive control for the checks above).
    let res = fx
        .app
        .send_as(
            &fx.owner,
            Method::POST,
            "/api/v1/apikeys",
            &json!({ "name": "k", "expires_at": "2099-01-01T00:00:00+08:00" }),
        )
        .await;
    assert_eq!(res.data()["key"]["expires_at"], "2098-12-31T16:00:00Z");
}
