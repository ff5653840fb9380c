//! Sessions: renewal (`check-token`), `logout`, `change-password`, what the session store keeps,
//! and revocation across replicas.

use reqwest::Method;
use serde_json::json;

use crate::helpers::{spawn_app, OWNER_EMAIL, PASSWORD};

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
    let store = app.store().clone();
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
