//! Accounts and sessions: init once, login defence, renewal, logout, password change,
//! revocation across replicas.

use reqwest::Method;
use serde_json::json;

use crate::helpers::{spawn_app, OWNER_EMAIL, PASSWORD};

#[tokio::test]
async fn init_happens_exactly_once_and_creates_the_owner_and_workspace() {
    let app = spawn_app().await;
    assert_eq!(
        app.get("/api/v1/user/init").await.data()["initialized"],
        false
    );
    let token = app.init_owner().await;
    assert_eq!(
        app.get("/api/v1/user/init").await.data()["initialized"],
        true
    );
    assert_eq!(
        app.get("/api/v1/system/info").await.data()["initialized"],
        true
    );
    let again = app
        .post(
            "/api/v1/user/init",
            &json!({ "user": "other@example.com", "password": PASSWORD }),
        )
        .await;
    again.assert_error(409, "conflict");
    let current = app.get_as(&token, "/api/v1/workspaces/current").await;
    let data = current.data();
    assert_eq!(data["membership"]["role"], "owner");
    assert_eq!(data["membership"]["email"], OWNER_EMAIL);
    assert_eq!(data["permissions"].as_array().unwrap().len(), 15);
}

#[tokio::test]
async fn concurrent_inits_create_one_account() {
    let app = spawn_app().await;
    let calls = (0..6).map(|i| {
        let body = json!({ "user": format!("owner{i}@example.com"), "password": PASSWORD });
        let app = &app;
        async move { app.post("/api/v1/user/init", &body).await }
    });
    let results = futures_util::future::join_all(calls).await;
    let ok = results.iter().filter(|r| r.status == 200).count();
    assert_eq!(
        ok,
        1,
        "{:?}",
        results
            .iter()
            .map(|r| (r.status, r.text.clone()))
            .collect::<Vec<_>>()
    );
    for r in results.iter().filter(|r| r.status != 200) {
        assert!(r.status == 409 || r.status == 429, "{}", r.text);
    }
    let owners: Vec<_> = futures_util::future::join_all((0..6).map(|i| {
        let body = json!({ "user": format!("owner{i}@example.com"), "password": PASSWORD });
        let app = &app;
        async move { app.post("/api/v1/user/auth", &body).await }
    }))
    .await;
    assert_eq!(owners.iter().filter(|r| r.status == 200).count(), 1);
}

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

#[tokio::test]
async fn check_token_renews_the_same_token() {
    let app = spawn_app().await;
    let token = app.init_owner().await;
    let res = app.get_as(&token, "/api/v1/user/check-token").await;
    assert_eq!(res.data()["token"], token.as_str());
    let info = app.get_as(&token, "/api/v1/user/info").await;
    assert_eq!(info.data()["email"], OWNER_EMAIL);
    assert_eq!(info.data()["has_password"], true);
}

#[tokio::test]
async fn logout_ends_only_that_session() {
    let app = spawn_app().await;
    let first = app.init_owner().await;
    let second = app.login(OWNER_EMAIL, PASSWORD).await;
    app.request(Method::POST, "/api/v1/user/logout")
        .bearer(&first)
        .send()
        .await
        .data();
    app.get_as(&first, "/api/v1/user/info")
        .await
        .assert_error(401, "invalid_authentication");
    app.get_as(&second, "/api/v1/user/info").await.data();
}

#[tokio::test]
async fn change_password_revokes_the_other_sessions_and_keeps_this_one() {
    let app = spawn_app().await;
    let current = app.init_owner().await;
    let other = app.login(OWNER_EMAIL, PASSWORD).await;
    let res = app
        .send_as(
            &current,
            Method::POST,
            "/api/v1/user/change-password",
            &json!({ "current_password": PASSWORD, "new_password": "a-brand-new-password" }),
        )
        .await;
    res.data();
    app.get_as(&other, "/api/v1/user/info")
        .await
        .assert_error(401, "invalid_authentication");
    app.get_as(&current, "/api/v1/user/info").await.data();
    app.post(
        "/api/v1/user/auth",
        &json!({ "user": OWNER_EMAIL, "password": PASSWORD }),
    )
    .await
    .assert_error(401, "invalid_authentication");
    app.login(OWNER_EMAIL, "a-brand-new-password").await;
}

#[tokio::test]
async fn the_session_store_keeps_only_a_hash_of_the_token() {
    let app = spawn_app().await;
    let token = app.init_owner().await;
    let store = app.state.store.clone();
    assert!(store
        .get(&format!("session:{token}"))
        .await
        .unwrap()
        .is_none());
    let hash = langbot::access::secrets::hash(&token);
    let record = store
        .get(&format!("session:{hash}"))
        .await
        .unwrap()
        .expect("a record under the hash");
    assert!(!String::from_utf8_lossy(&record).contains(&token));
}

#[tokio::test]
async fn logout_and_revocation_reach_every_replica_sharing_redis() {
    if std::env::var("TEST_REDIS_URL").is_err() {
        eprintln!("skipped: needs Redis (the PostgreSQL + Redis pass runs it)");
        return;
    }
    let a = spawn_app().await;
    let b = a.sibling().await;
    let token = a.init_owner().await;
    b.get_as(&token, "/api/v1/user/info").await.data();
    let (key_id, key) = a.create_key(&token, None).await;
    b.request(Method::GET, "/api/v1/system/context")
        .header("x-api-key", &key)
        .send()
        .await
        .data();
    // Revoke on A; B refuses at once (its key cache is invalidated through pub/sub).
    a.request(Method::DELETE, &format!("/api/v1/apikeys/{key_id}"))
        .bearer(&token)
        .send()
        .await
        .data();
    let mut refused = false;
    for _ in 0..10 {
        let res = b
            .request(Method::GET, "/api/v1/system/context")
            .header("x-api-key", &key)
            .send()
            .await;
        if res.status == 401 {
            refused = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        refused,
        "replica B kept accepting a revoked key for over a second"
    );
    a.request(Method::POST, "/api/v1/user/logout")
        .bearer(&token)
        .send()
        .await
        .data();
    b.get_as(&token, "/api/v1/user/info")
        .await
        .assert_error(401, "invalid_authentication");
}
