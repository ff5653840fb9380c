//! Unknown body fields are refused; LangBot's read-only and legacy keys are ignored.

use reqwest::Method;
use serde_json::{json, Value};

use super::{expect_ok, fixture, rfc3339_in};
use crate::helpers::{spawn_app, OWNER_EMAIL, PASSWORD};

#[tokio::test]
async fn unknown_body_fields_are_refused_but_langbot_legacy_keys_are_ignored() {
    let fx = fixture().await;
    let with_unknown: Vec<(Method, &str, Value, &str)> = vec![
        (
            Method::POST,
            "/user/init",
            json!({ "user": "a@example.com", "password": PASSWORD, "bogus_field": 1 }),
            "bogus_field",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "user": OWNER_EMAIL, "password": PASSWORD, "remember_me": true }),
            "remember_me",
        ),
        (
            Method::POST,
            "/user/change-password",
            json!({ "currentPassword": PASSWORD, "new_password": "another-password" }),
            "currentPassword",
        ),
        (
            Method::POST,
            "/workspaces",
            json!({ "name": "w", "plan": "pro" }),
            "plan",
        ),
        (
            Method::PUT,
            "WS",
            json!({ "name": "w", "owner": "me" }),
            "owner",
        ),
        (
            Method::PATCH,
            "MEMBER",
            json!({ "role": "viewer", "force": true }),
            "force",
        ),
        (
            Method::POST,
            "/invitations",
            json!({ "email": "x@example.com", "message": "hi" }),
            "message",
        ),
        (
            Method::POST,
            "/invitations/inspect",
            json!({ "token": "lbi_x", "extra": 1 }),
            "extra",
        ),
        (
            Method::POST,
            "/invitations/accept",
            json!({ "token": "lbi_x", "registration": { "email": "a@example.com", "password": PASSWORD, "name": "A" } }),
            "registration.name",
        ),
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "permissions": [] }),
            "permissions",
        ),
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "key": "lbk_mine" }),
            "key",
        ),
        (
            Method::PUT,
            "KEY",
            json!({ "name": "k", "scopes": [] }),
            "scopes",
        ),
        (
            Method::PUT,
            "KEY",
            json!({ "name": "k", "expires_at": rfc3339_in(3600) }),
            "expires_at",
        ),
        (
            Method::PUT,
            "/workspaces/current/language",
            json!({ "language": "en_US", "locale": "en" }),
            "locale",
        ),
    ];
    for (method, end, body, field) in with_unknown {
        let target = fx.case_target(method, end);
        let res = fx.send_json(&target, &body).await;
        res.expect_field_error(
            400,
            "invalid_request",
            field,
            &format!("{} with unknown `{field}`", target.label()),
        );
    }
    // Nothing changed: the key keeps its scopes and expiry, the password is unchanged.
    let key = fx
        .owner_call(Method::GET, &format!("/api/v1/apikeys/{}", fx.key_id))
        .await;
    assert_eq!(key.data()["key"]["name"], "test key");
    assert!(key.data()["key"]["expires_at"].is_null());
    fx.app.login(OWNER_EMAIL, PASSWORD).await;

    // LangBot's read-only / legacy keys are accepted and ignored.
    let legacy = json!({
        "uuid": "00000000-0000-0000-0000-000000000000",
        "workspace_uuid": "00000000-0000-0000-0000-000000000000",
        "created_at": "2020-01-01T00:00:00Z",
        "updated_at": "2020-01-01T00:00:00Z",
        "for_version": "4.11.2",
    });
    let with_legacy = |mut body: Value| {
        for (k, v) in legacy.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    let auth = fx.find(Method::POST, "/user/auth");
    let res = fx
        .send_json(
            &auth,
            &with_legacy(json!({ "user": OWNER_EMAIL, "password": PASSWORD })),
        )
        .await;
    assert!(res.data()["token"].as_str().unwrap().starts_with("lbs_"));
    let keys = fx.find(Method::POST, "/apikeys");
    let res = fx
        .send_json(&keys, &with_legacy(json!({ "name": "legacy key" })))
        .await;
    let created = res.data()["key"].clone();
    assert_ne!(
        created["uuid"], legacy["uuid"],
        "a sent uuid must be ignored"
    );
    assert_eq!(created["workspace_uuid"], fx.ws.as_str());
    assert_ne!(created["created_at"], legacy["created_at"]);
    let update = fx.find(Method::PUT, &format!("/apikeys/{}", fx.key_id));
    let res = fx
        .send_json(&update, &with_legacy(json!({ "name": "renamed" })))
        .await;
    expect_ok(&res, "key update with legacy keys");
    let rename = fx.case_target(Method::PUT, "WS");
    let res = fx
        .send_json(
            &rename,
            &with_legacy(json!({ "name": "Renamed Workspace" })),
        )
        .await;
    assert_eq!(res.data()["workspace"]["uuid"], fx.ws.as_str());
    let language = fx.find(Method::PUT, "/workspaces/current/language");
    let res = fx
        .send_json(&language, &with_legacy(json!({ "language": "ja_JP" })))
        .await;
    assert_eq!(res.data()["language"], "ja_JP");
    let invite = fx.find(Method::POST, "/invitations");
    let res = fx
        .send_json(
            &invite,
            &with_legacy(json!({ "email": "legacy@example.com", "role": "viewer" })),
        )
        .await;
    let token = res.data()["token"].as_str().unwrap().to_string();
    assert_eq!(res.data()["invitation"]["workspace_uuid"], fx.ws.as_str());
    let inspect = fx.find(Method::POST, "/invitations/inspect");
    let res = fx
        .send_json(&inspect, &with_legacy(json!({ "token": token })))
        .await;
    expect_ok(&res, "inspect with legacy keys");
    let accept = fx.find(Method::POST, "/invitations/accept");
    let res = fx
        .send_json(
            &accept,
            &with_legacy(json!({
                "token": token,
                "registration": { "email": "legacy@example.com", "password": PASSWORD },
            })),
        )
        .await;
    assert_eq!(res.data()["workspace_uuid"], fx.ws.as_str());
    let change = fx.find(Method::POST, "/user/change-password");
    let res = fx
        .send_json(
            &change,
            &with_legacy(json!({ "current_password": PASSWORD, "new_password": "a-new-password" })),
        )
        .await;
    expect_ok(&res, "change-password with legacy keys");
}

#[tokio::test]
async fn user_init_ignores_legacy_keys() {
    let app = spawn_app().await;
    let res = app
        .post(
            "/api/v1/user/init",
            &json!({
                "user": OWNER_EMAIL,
                "password": PASSWORD,
                "uuid": "not-even-a-uuid",
                "created_at": "yesterday",
                "updated_at": 0,
                "stages": [],
                "plugin_processors": {},
                "adapter_runtime_values": null,
            }),
        )
        .await;
    expect_ok(&res, "user/init with legacy keys");
    app.login(OWNER_EMAIL, PASSWORD).await;
}
