//! Missing and mistyped fields: 400 `invalid_request` naming the field.

use reqwest::Method;
use serde_json::{json, Value};

use super::fixture;
use crate::helpers::{OWNER_EMAIL, PASSWORD};

/// `(method, target path end or placeholder, body, the missing field)`.
fn missing_field_cases() -> Vec<(Method, &'static str, Value, &'static str)> {
    vec![
        (Method::POST, "/user/init", json!({}), "user"),
        (
            Method::POST,
            "/user/init",
            json!({ "user": "a@example.com" }),
            "password",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "password": PASSWORD }),
            "user",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "user": OWNER_EMAIL }),
            "password",
        ),
        (
            Method::POST,
            "/user/change-password",
            json!({ "current_password": PASSWORD }),
            "new_password",
        ),
        (
            Method::POST,
            "/user/change-password",
            json!({ "new_password": "another-password" }),
            "current_password",
        ),
        (Method::POST, "/workspaces", json!({}), "name"),
        (Method::PUT, "WS", json!({}), "name"),
        (Method::PATCH, "MEMBER", json!({}), "role"),
        (
            Method::POST,
            "/invitations",
            json!({ "role": "viewer" }),
            "email",
        ),
        (Method::POST, "/invitations/inspect", json!({}), "token"),
        (Method::POST, "/invitations/accept", json!({}), "token"),
        (
            Method::POST,
            "/invitations/accept",
            json!({ "token": "lbi_x", "registration": { "email": "a@example.com" } }),
            "registration.password",
        ),
        (
            Method::POST,
            "/invitations/accept",
            json!({ "token": "lbi_x", "registration": { "password": PASSWORD } }),
            "registration.email",
        ),
        (
            Method::POST,
            "/apikeys",
            json!({ "description": "d" }),
            "name",
        ),
        (
            Method::PUT,
            "/workspaces/current/language",
            json!({}),
            "language",
        ),
    ]
}

#[tokio::test]
async fn missing_required_fields_are_invalid_request_and_mentioned() {
    let fx = fixture().await;
    for (method, end, body, field) in missing_field_cases() {
        let target = fx.case_target(method, end);
        let what = format!("{} without {field}", target.label());
        let res = fx.send_json(&target, &body).await;
        res.expect_error(400, "invalid_request", &what);
        let leaf = field.rsplit('.').next().unwrap_or(field);
        assert!(
            res.text.contains(&format!("`{leaf}`")),
            "{what}: the error should mention `{leaf}`: {}",
            res.text
        );
    }
    // An empty body counts as `{}`.
    let init = fx.find(Method::POST, "/user/init");
    let res = fx.send_raw(&init, "").await;
    res.expect_error(400, "invalid_request", "user/init with an empty body");
    let res = fx.send_raw(&init, "  \n").await;
    res.expect_error(400, "invalid_request", "user/init with a blank body");
}

#[tokio::test]
async fn missing_required_fields_are_named_in_the_errors_array() {
    let fx = fixture().await;
    // Every case is tried before failing, so the report lists all that miss the name.
    let mut unnamed = Vec::new();
    for (method, end, body, field) in missing_field_cases() {
        let target = fx.case_target(method, end);
        let res = fx.send_json(&target, &body).await;
        let what = format!("{} without {field}", target.label());
        res.expect_error(400, "invalid_request", &what);
        if !res.error_fields().iter().any(|f| f == field) {
            unnamed.push(format!("{what}: errors = {}", res.body["errors"]));
        }
    }
    assert!(
        unnamed.is_empty(),
        "`errors[].field` must name the missing field: {unnamed:#?}"
    );
}

#[tokio::test]
async fn wrong_types_are_invalid_request_naming_the_field() {
    let fx = fixture().await;
    let cases: Vec<(Method, &str, Value, &str)> = vec![
        (
            Method::POST,
            "/user/init",
            json!({ "user": 5, "password": PASSWORD }),
            "user",
        ),
        (
            Method::POST,
            "/user/init",
            json!({ "user": "a@example.com", "password": true }),
            "password",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "user": ["a"], "password": PASSWORD }),
            "user",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "user": OWNER_EMAIL, "password": { "x": 1 } }),
            "password",
        ),
        (
            Method::POST,
            "/user/change-password",
            json!({ "current_password": PASSWORD, "new_password": 12_345_678 }),
            "new_password",
        ),
        (
            Method::POST,
            "/user/change-password",
            json!({ "current_password": null, "new_password": "another-password" }),
            "current_password",
        ),
        (Method::POST, "/workspaces", json!({ "name": 42 }), "name"),
        (Method::PUT, "WS", json!({ "name": null }), "name"),
        (Method::PUT, "WS", json!({ "name": ["x"] }), "name"),
        (Method::PATCH, "MEMBER", json!({ "role": 1 }), "role"),
        (
            Method::PATCH,
            "MEMBER",
            json!({ "role": "superuser" }),
            "role",
        ),
        (Method::PATCH, "MEMBER", json!({ "role": "Admin" }), "role"),
        (Method::POST, "/invitations", json!({ "email": 5 }), "email"),
        (
            Method::POST,
            "/invitations",
            json!({ "email": "x@example.com", "role": 3 }),
            "role",
        ),
        (
            Method::POST,
            "/invitations",
            json!({ "email": "x@example.com", "role": "owner" }),
            "role",
        ),
        (
            Method::POST,
            "/invitations",
            json!({ "email": "x@example.com", "role": "root" }),
            "role",
        ),
        (
            Method::POST,
            "/invitations/inspect",
            json!({ "token": 1 }),
            "token",
        ),
        (
            Method::POST,
            "/invitations/accept",
            json!({ "token": ["lbi_x"] }),
            "token",
        ),
        (
            Method::POST,
            "/invitations/accept",
            json!({ "token": "lbi_x", "registration": "a@example.com" }),
            "registration",
        ),
        (
            Method::POST,
            "/invitations/accept",
            json!({ "token": "lbi_x", "registration": { "email": 5, "password": PASSWORD } }),
            "registration.email",
        ),
        (Method::POST, "/apikeys", json!({ "name": 5 }), "name"),
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "description": 5 }),
            "description",
        ),
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "scopes": "workspace.view" }),
            "scopes",
        ),
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "scopes": { "a": 1 } }),
            "scopes",
        ),
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "scopes": [1] }),
            "scopes[0]",
        ),
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "expires_at": 1_900_000_000 }),
            "expires_at",
        ),
        (Method::PUT, "KEY", json!({ "name": ["x"] }), "name"),
        (
            Method::PUT,
            "KEY",
            json!({ "description": false }),
            "description",
        ),
        (
            Method::PUT,
            "/workspaces/current/language",
            json!({ "language": 5 }),
            "language",
        ),
    ];
    for (method, end, body, field) in cases {
        let target = fx.case_target(method, end);
        let res = fx.send_json(&target, &body).await;
        res.expect_field_error(
            400,
            "invalid_request",
            field,
            &format!("{} with {body}", target.label()),
        );
    }
    // Nothing was created or changed by the refused requests.
    let keys = fx.owner_call(Method::GET, "/api/v1/apikeys").await;
    assert_eq!(keys.data()["total"], 1, "{}", keys.text);
    let invitations = fx
        .owner_call(
            Method::GET,
            &format!("/api/v1/workspaces/{}/invitations", fx.ws),
        )
        .await;
    assert_eq!(invitations.data()["total"], 0, "{}", invitations.text);
}
