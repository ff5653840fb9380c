//! Over-long and malformed strings (emails 320, names 255, descriptions 512), inclusive
//! limits, and the password policy.

use reqwest::Method;
use serde_json::{json, Value};

use super::{email_of_len, expect_ok, fixture};
use crate::helpers::{spawn_app, OWNER_EMAIL, PASSWORD};

#[tokio::test]
async fn over_long_and_malformed_strings_are_refused_and_limits_are_inclusive() {
    let fx = fixture().await;
    let name_256 = "n".repeat(256);
    let email_321 = email_of_len(321);
    let description_513 = "d".repeat(513);
    let cases: Vec<(Method, &str, Value, &str)> = vec![
        // Emails: at most 320 characters, and an email.
        (
            Method::POST,
            "/user/init",
            json!({ "user": email_321, "password": PASSWORD }),
            "user",
        ),
        (
            Method::POST,
            "/user/init",
            json!({ "user": "not-an-email", "password": PASSWORD }),
            "user",
        ),
        (
            Method::POST,
            "/user/init",
            json!({ "user": "", "password": PASSWORD }),
            "user",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "user": email_321, "password": PASSWORD }),
            "user",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "user": "", "password": PASSWORD }),
            "user",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "user": OWNER_EMAIL, "password": "" }),
            "password",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "user": OWNER_EMAIL, "password": "p".repeat(1025) }),
            "password",
        ),
        (
            Method::POST,
            "/invitations",
            json!({ "email": email_321 }),
            "email",
        ),
        (
            Method::POST,
            "/invitations",
            json!({ "email": "nobody" }),
            "email",
        ),
        (
            Method::POST,
            "/invitations",
            json!({ "email": "" }),
            "email",
        ),
        (
            Method::POST,
            "/invitations/accept",
            json!({ "token": "lbi_x", "registration": { "email": email_321, "password": PASSWORD } }),
            "registration.email",
        ),
        // Tokens: at most 128 characters, not empty.
        (
            Method::POST,
            "/invitations/inspect",
            json!({ "token": "t".repeat(129) }),
            "token",
        ),
        (
            Method::POST,
            "/invitations/inspect",
            json!({ "token": "" }),
            "token",
        ),
        (
            Method::POST,
            "/invitations/accept",
            json!({ "token": "t".repeat(129) }),
            "token",
        ),
        // Names: 1..=255 characters (counted as characters, not bytes).
        (
            Method::POST,
            "/workspaces",
            json!({ "name": name_256 }),
            "name",
        ),
        (Method::PUT, "WS", json!({ "name": name_256 }), "name"),
        (
            Method::PUT,
            "WS",
            json!({ "name": "é".repeat(256) }),
            "name",
        ),
        (Method::PUT, "WS", json!({ "name": "" }), "name"),
        (Method::PUT, "WS", json!({ "name": "   " }), "name"),
        (
            Method::POST,
            "/apikeys",
            json!({ "name": name_256 }),
            "name",
        ),
        (Method::POST, "/apikeys", json!({ "name": "" }), "name"),
        (Method::PUT, "KEY", json!({ "name": name_256 }), "name"),
        (Method::PUT, "KEY", json!({ "name": "" }), "name"),
        // Descriptions: at most 512 characters.
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "description": description_513 }),
            "description",
        ),
        (
            Method::PUT,
            "KEY",
            json!({ "description": description_513 }),
            "description",
        ),
        // Scopes: at most 32 entries.
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "scopes": vec!["workspace.view"; 33] }),
            "scopes",
        ),
    ];
    for (method, end, body, field) in cases {
        let target = fx.case_target(method, end);
        let res = fx.send_json(&target, &body).await;
        res.expect_field_error(
            400,
            "invalid_request",
            field,
            &format!("{} with a bad {field}", target.label()),
        );
    }
    // A blank API key name is refused too (the resource's own code).
    let keys = fx.find(Method::POST, "/apikeys");
    let res = fx.send_json(&keys, &json!({ "name": "   " })).await;
    res.expect_field_error(400, "invalid_api_key", "name", "a blank key name");
    let update = fx.find(Method::PUT, &format!("/apikeys/{}", fx.key_id));
    let res = fx.send_json(&update, &json!({ "name": " \t " })).await;
    res.expect_field_error(400, "invalid_api_key", "name", "a blank key rename");

    // The limits themselves are allowed.
    let res = fx
        .send_json(
            &keys,
            &json!({ "name": "n".repeat(255), "description": "d".repeat(512) }),
        )
        .await;
    let created = res.data()["key"].clone();
    assert_eq!(created["name"].as_str().unwrap().len(), 255);
    assert_eq!(created["description"].as_str().unwrap().len(), 512);
    let res = fx
        .send_json(&keys, &json!({ "name": "é".repeat(255) }))
        .await;
    expect_ok(&res, "a 255-character multibyte key name");
    let res = fx
        .send_json(
            &update,
            &json!({ "name": "u".repeat(255), "description": "d".repeat(512) }),
        )
        .await;
    expect_ok(&res, "a key renamed at the limits");
    let rename = fx.case_target(Method::PUT, "WS");
    let res = fx
        .send_json(&rename, &json!({ "name": "w".repeat(255) }))
        .await;
    expect_ok(&res, "a 255-character Workspace name");
    let invite = fx.find(Method::POST, "/invitations");
    let res = fx
        .send_json(&invite, &json!({ "email": email_of_len(320) }))
        .await;
    expect_ok(&res, "a 320-character invitation email");
}

#[tokio::test]
async fn password_policy_and_the_current_password_are_enforced() {
    let app = spawn_app().await;
    let init = |password: String| {
        let app = &app;
        async move {
            app.post(
                "/api/v1/user/init",
                &json!({ "user": OWNER_EMAIL, "password": password }),
            )
            .await
        }
    };
    for (what, password) in [
        ("7 characters", "1234567".to_string()),
        ("7 multibyte characters", "密码密码密码密".to_string()),
        ("empty", String::new()),
        ("129 characters", "p".repeat(129)),
    ] {
        let res = init(password).await;
        res.expect_field_error(400, "invalid_request", "password", &format!("init: {what}"));
    }
    let status = app.get("/api/v1/user/init").await;
    assert_eq!(
        status.data()["initialized"],
        false,
        "a refused init created nothing"
    );
    // Exactly 8 characters is enough.
    expect_ok(&init("12345678".into()).await, "init with 8 characters");
    let session = app.login(OWNER_EMAIL, "12345678").await;

    let change = |current: &str, new: &str| {
        let body = json!({ "current_password": current, "new_password": new });
        let app = &app;
        let session = session.clone();
        async move {
            app.send_as(
                &session,
                Method::POST,
                "/api/v1/user/change-password",
                &body,
            )
            .await
        }
    };
    for (what, new) in [
        ("7 characters", "abcdefg".to_string()),
        ("empty", String::new()),
        ("129 characters", "p".repeat(129)),
    ] {
        let res = change("12345678", &new).await;
        res.expect_field_error(
            400,
            "invalid_request",
            "new_password",
            &format!("change-password: new {what}"),
        );
    }
    for (what, current) in [
        ("wrong", "wrong-password"),
        ("almost right", "1234567"),
        ("empty", ""),
    ] {
        let res = change(current, "a-good-new-password").await;
        res.expect_field_error(
            400,
            "invalid_request",
            "current_password",
            &format!("change-password: {what} current password"),
        );
    }
    // Nothing changed: the old password logs in, the new one does not, the session lives.
    app.get_as(&session, "/api/v1/user/info").await.data();
    let res = app
        .post(
            "/api/v1/user/auth",
            &json!({ "user": OWNER_EMAIL, "password": "a-good-new-password" }),
        )
        .await;
    res.expect_error(
        401,
        "invalid_authentication",
        "login with a refused new password",
    );
    app.login(OWNER_EMAIL, "12345678").await;

    // Registering through an invitation follows the same policy.
    let ws = app.workspace_of(&session).await;
    let res = app
        .send_as(
            &session,
            Method::POST,
            &format!("/api/v1/workspaces/{ws}/invitations"),
            &json!({ "email": "new@example.com" }),
        )
        .await;
    let token = res.data()["token"].as_str().unwrap().to_string();
    let res = app
        .post(
            "/api/v1/invitations/accept",
            &json!({ "token": token, "registration": { "email": "new@example.com", "password": "short" } }),
        )
        .await;
    res.expect_field_error(
        400,
        "invalid_request",
        "registration.password",
        "accept with a 5-character password",
    );
    let res = app
        .post(
            "/api/v1/user/auth",
            &json!({ "user": "new@example.com", "password": "short" }),
        )
        .await;
    res.expect_error(401, "invalid_authentication", "no account was created");
}
