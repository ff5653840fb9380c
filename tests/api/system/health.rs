//! `/healthz` and `/readyz`; `/readyz` follows the health of the database and the session
//! store (the outage tests need network services, so they run in the PostgreSQL + Redis pass);
//! a graceful stop.

use crate::helpers::{host_port, spawn_app, spawn_app_with, ChaosProxy, TestApp};

#[tokio::test]
async fn healthz_is_ok() {
    let app = spawn_app().await;
    let res = app.get("/healthz").await;
    assert_eq!(res.status, 200);
    assert_eq!(res.body["status"], "ok");
}

#[tokio::test]
async fn readyz_is_ok_when_storage_is_reachable() {
    let app = spawn_app().await;
    let res = app.get("/readyz").await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(res.body["checks"]["database"], "ok");
    assert_eq!(res.body["checks"]["session_store"], "ok");
}

#[tokio::test]
async fn graceful_stop_lets_the_server_finish() {
    let app = spawn_app().await;
    assert_eq!(app.get("/healthz").await.status, 200);
    app.stop().await;
    let after = reqwest::get(format!("{}/healthz", app.address)).await;
    assert!(after.is_err(), "the server still answers after stop");
}

async fn wait_for_status(app: &TestApp, want: u16) -> serde_json::Value {
    let mut last = None;
    for _ in 0..50 {
        let res = app.get("/readyz").await;
        if res.status == want {
            return res.body;
        }
        last = Some(res.text);
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("/readyz never answered {want}; last: {last:?}");
}

#[tokio::test]
async fn readyz_reports_503_while_redis_is_down_and_recovers() {
    let Ok(redis_url) = std::env::var("TEST_REDIS_URL") else {
        eprintln!("skipped: TEST_REDIS_URL is not set (SQLite + in-process pass)");
        return;
    };
    let proxy = ChaosProxy::start(host_port(&redis_url)).await;
    let port = proxy.port;
    let app = spawn_app_with(|s| s.redis.url = Some(format!("redis://127.0.0.1:{port}/"))).await;
    wait_for_status(&app, 200).await;
    proxy.break_link();
    let body = wait_for_status(&app, 503).await;
    assert_eq!(body["checks"]["session_store"], "unavailable");
    assert_eq!(body["checks"]["database"], "ok");
    proxy.mend();
    wait_for_status(&app, 200).await;
}

#[tokio::test]
async fn readyz_reports_503_while_the_database_is_down_and_recovers() {
    if std::env::var("TEST_DATABASE_URL").is_err() {
        eprintln!("skipped: TEST_DATABASE_URL is not set (SQLite + in-process pass)");
        return;
    }
    let app = spawn_app().await;
    let db_url = app.backend.database_url.clone();
    let proxy = ChaosProxy::start(host_port(&db_url)).await;
    let proxied = db_url.replacen(&host_port(&db_url), &format!("127.0.0.1:{}", proxy.port), 1);
    drop(app);
    let app = spawn_app_with(|s| s.database.url = Some(proxied)).await;
    wait_for_status(&app, 200).await;
    proxy.break_link();
    let body = wait_for_status(&app, 503).await;
    assert_eq!(body["checks"]["database"], "unavailable");
    proxy.mend();
    wait_for_status(&app, 200).await;
}
