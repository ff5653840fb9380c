//! `POST /api/v1/user/auth`: one error for every failure, and the login defence.

use serde_json::json;

use crate::helpers::{spawn_app, OWNER_EMAIL, PASSWORD};

#[tokio::test]
async fn login_gives_one_error_for_unknown_account_and_wrong_password() {
    let app = spawn_app().await;
    app.init_owner().await;
    let wrong = app
        .post(
            "/api/v1/user/auth",
            &json!({ "user": OWNER_EMAIL, "password": "not-the-password" }),
        )
        .await;
    let unknown = app
        .post(
            "/api/v1/user/auth",
            &json!({ "user": "nobody@example.com", "password": "not-the-password" }),
        )
        .await;
    wrong.assert_error(401, "invalid_authentication");
    unknown.assert_error(401, "invalid_authentication");
    assert_eq!(wrong.body["msg"], unknown.body["msg"]);
    // Case and surrounding spaces do not matter for the login.
    let token = app.login("  Owner@Example.COM ", PASSWORD).await;
    assert!(token.starts_with("lbs_") && token.len() == 47);
}

#[tokio::test]
async fn repeated_failures_lock_the_account_with_retry_after() {
    let app = spawn_app().await;
    app.init_owner().await;
    for _ in 0..5 {
        let res = app
            .post(
                "/api/v1/user/auth",
                &json!({ "user": OWNER_EMAIL, "password": "wrong-password" }),
            )
            .await;
        res.assert_error(401, "invalid_authentication");
    }
    let blocked = app
        .post(
            "/api/v1/user/auth",
            &json!({ "user": OWNER_EMAIL, "password": PASSWORD }),
        )
        .await;
    blocked.assert_error(429, "rate_limited");
    let retry: u64 = blocked.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=900).contains(&retry), "Retry-After {retry}");
    // Another account is not affected by this account's lock.
    let other = app
        .post(
            "/api/v1/user/auth",
            &json!({ "user": "someone@example.com", "password": "wrong-password" }),
        )
        .await;
    other.assert_error(401, "invalid_authentication");
}

#[tokio::test]
async fn many_failures_from_one_address_lock_that_address() {
    let app = spawn_app().await;
    app.init_owner().await;
    // 20 failures spread over 5 accounts (4 each, under the per-account limit).
    for i in 0..20 {
        let res = app
            .post(
                "/api/v1/user/auth",
                &json!({ "user": format!("user{}@example.com", i % 5), "password": "wrong-password" }),
            )
            .await;
        res.assert_error(401, "invalid_authentication");
    }
    let blocked = app
        .post(
            "/api/v1/user/auth",
            &json!({ "user": OWNER_EMAIL, "password": PASSWORD }),
        )
        .await;
    blocked.assert_error(429, "rate_limited");
    assert!(blocked.header("retry-after").is_some());
}
