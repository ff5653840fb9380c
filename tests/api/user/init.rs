//! `GET/POST /api/v1/user/init`: the first account, exactly once.

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
