//! `/readyz` follows the health of the database and the session store. The outage tests need
//! network services, so they run in the PostgreSQL + Redis pass of the suite.

use crate::helpers::{spawn_app_with, ChaosProxy};

fn host_port(url: &str) -> String {
    let after_scheme = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let authority = after_scheme.split('/').next().unwrap_or(after_scheme);
    authority
        .rsplit_once('@')
        .map(|(_, hp)| hp)
        .unwrap_or(authority)
        .to_string()
}

async fn wait_for_status(app: &crate::helpers::TestApp, want: u16) -> serde_json::Value {
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
    let app = crate::helpers::spawn_app().await;
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
