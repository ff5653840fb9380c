//! A stopped PostgreSQL (connections refused, which the pool retries until its 3 s acquire
//! timeout): once a request has found it down, requests that need it are refused at once —
//! 503 `unavailable` for the API, 50301 for the bot ingress, readiness 503 — and served again
//! within a probe interval of its return, without a restart. A suspicion on a healthy database
//! (a pool timeout under load) refuses nothing.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::helpers::fixtures::{eventually, text, Rig};
use crate::helpers::{host_port, spawn_app, spawn_app_with, ChaosProxy};
use langbot::db_health::DbHealth;

const FAST: Duration = Duration::from_millis(500);

fn skip_without_postgres() -> bool {
    if std::env::var("TEST_DATABASE_URL").is_err() {
        eprintln!("skipped: TEST_DATABASE_URL is not set (SQLite + in-process pass)");
        return true;
    }
    false
}

#[tokio::test]
async fn while_postgres_is_down_requests_are_refused_at_once_and_served_again_after() {
    if skip_without_postgres() {
        return;
    }
    let first = spawn_app().await;
    let db_url = first.backend.database_url.clone();
    drop(first);
    let proxy = ChaosProxy::start(host_port(&db_url)).await;
    let proxied = db_url.replacen(&host_port(&db_url), &format!("127.0.0.1:{}", proxy.port), 1);
    let app = spawn_app_with(|s| s.database.url = Some(proxied)).await;
    let rig = Rig::new(&app, json!({})).await;
    let bots = "/api/v1/platform/bots";
    assert_eq!(app.get_as(&rig.owner, bots).await.status, 200);

    proxy.stop_listening().await;
    // The first request finds it down (waiting at most the pool's acquire timeout).
    let started = Instant::now();
    app.get_as(&rig.owner, bots)
        .await
        .assert_error(503, "unavailable");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let health = app.state().parts.get::<DbHealth>();
    eventually("the probe finds the database down", 5, || async {
        health.is_down().then_some(())
    })
    .await;
    // From then on every request that needs it is refused without waiting.
    for _ in 0..5 {
        let started = Instant::now();
        let res = app.get_as(&rig.owner, bots).await;
        res.assert_error(503, "unavailable");
        assert!(
            started.elapsed() < FAST,
            "an API read took {:?}",
            started.elapsed()
        );
    }
    let started = Instant::now();
    let res = rig.send(&app, text("down", "hello")).await;
    res.assert_refused(503, 50301, "the ingress while the database is down");
    assert!(
        started.elapsed() < FAST,
        "the ingress took {:?}",
        started.elapsed()
    );
    let started = Instant::now();
    let ready = app.get("/readyz").await;
    assert_eq!(ready.status, 503);
    assert_eq!(ready.body["checks"]["database"], "unavailable");
    assert!(
        started.elapsed() < FAST,
        "readyz took {:?}",
        started.elapsed()
    );
    // Not the database's: still answered.
    assert_eq!(app.get("/healthz").await.status, 200);

    proxy.listen_again();
    let back = Instant::now();
    eventually("the API serves again", 10, || async {
        (app.get_as(&rig.owner, bots).await.status == 200).then_some(())
    })
    .await;
    assert!(!health.is_down());
    assert!(
        back.elapsed() < Duration::from_secs(3),
        "back after {:?}",
        back.elapsed()
    );
    let res = rig.send(&app, text("back", "hello")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    rig.callbacks(1).await;
}

#[tokio::test]
async fn a_suspected_but_healthy_database_refuses_nothing() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let health = app.state().parts.get::<DbHealth>();
    // What a pool timeout under load does: the probe connects outside the pool and finds it up.
    health.suspect();
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(!health.is_down());
    assert_eq!(
        app.get_as(&rig.owner, "/api/v1/platform/bots").await.status,
        200
    );
    let res = rig.send(&app, text("fine", "hello")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    assert_eq!(app.get("/readyz").await.status, 200);
}
