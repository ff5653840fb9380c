//! Live updates: a turn starts and finishes on the feed, also across replicas through pub/sub,
//! and again after a Redis outage.

use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

use super::{items, open, running_in, SLOW};
use crate::helpers::fixtures::{text, Rig};
use crate::helpers::{host_port, redis_pass, spawn_app_with, Cred};

#[tokio::test]
async fn a_viewer_sees_a_turn_start_and_finish_live() {
    let app = spawn_app_with(|_| {}).await;
    let rig = Rig::with_echo(&app, json!({}), SLOW).await;
    let mut feed = open(&app, &Cred::bearer(&rig.owner), None).await;
    let first = feed.first_snapshot().await;
    assert_eq!(first["items"], json!([]), "{first}");
    assert_eq!(first["active_total"], 0);
    assert_eq!(first["truncated"], false);

    let res = rig.send(&app, text("live", "watch me")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    // Well before the 15 s reconcile: the change was announced.
    let running = feed
        .snapshot_where(Duration::from_secs(5), "the turn runs", |s| {
            running_in(s, "person_live").is_some()
        })
        .await;
    assert_eq!(running["active_total"], 1, "{running}");
    let item = running_in(&running, "person_live").unwrap();
    assert_eq!(item["bot_id"], rig.bot.as_str());
    assert_eq!(item["pipeline_id"], rig.pipeline.as_str());
    let id = item["id"].as_str().unwrap().to_string();

    // The finish is announced too; the execution stays listed as recent.
    let done = feed
        .snapshot_where(SLOW + Duration::from_secs(4), "the turn finished", |s| {
            s["active_total"] == 0
                && items(s)
                    .iter()
                    .any(|i| i["id"] == id.as_str() && i["status"] == "completed")
        })
        .await;
    assert_eq!(items(&done).len(), 1, "{done}");
    rig.callbacks(1).await;
}

#[tokio::test]
async fn a_turn_on_one_replica_reaches_viewers_on_another_through_pub_sub() {
    if !redis_pass() {
        return;
    }
    let a = spawn_app_with(|_| {}).await;
    let rig = Rig::with_echo(&a, json!({}), SLOW).await;
    let b = a.sibling().await;
    let mut feed = open(&b, &Cred::bearer(&rig.owner), None).await;
    let first = feed.first_snapshot().await;
    assert_eq!(first["items"], json!([]), "{first}");
    assert_eq!(b.inflight().viewers(), 1);
    assert_eq!(a.inflight().viewers(), 0, "the viewer is on replica B");

    // B's producer only reloads on an announced change or every 15 s: a snapshot with A's
    // turn well within that comes from the announcement crossing Redis.
    let sent = Instant::now();
    let res = rig.send(&a, text("remote", "through replica A")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    let running = feed
        .snapshot_where(Duration::from_secs(5), "A's turn runs", |s| {
            running_in(s, "person_remote").is_some()
        })
        .await;
    assert!(
        sent.elapsed() < Duration::from_secs(5),
        "{:?}",
        sent.elapsed()
    );
    assert_eq!(running["active_total"], 1, "{running}");
    let id = running_in(&running, "person_remote").unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        rig.callback_count().await,
        0,
        "the turn has not replied yet"
    );

    // Its finish on A reaches B as well.
    feed.snapshot_where(SLOW + Duration::from_secs(4), "A's turn finished", |s| {
        s["active_total"] == 0
            && items(s)
                .iter()
                .any(|i| i["id"] == id.as_str() && i["status"] == "completed")
    })
    .await;
    assert!(
        sent.elapsed() < Duration::from_secs(12),
        "{:?}",
        sent.elapsed()
    );
    rig.callbacks(1).await;
}

#[tokio::test]
async fn cross_replica_updates_resume_after_a_redis_outage() {
    if !redis_pass() {
        return;
    }
    let redis_url = std::env::var("TEST_REDIS_URL").unwrap();
    let proxy = crate::helpers::ChaosProxy::start(host_port(&redis_url)).await;
    let port = proxy.port;
    let a = spawn_app_with(|s| s.redis.url = Some(format!("redis://127.0.0.1:{port}/"))).await;
    let rig = Rig::with_echo(&a, json!({}), SLOW).await;
    let b = a.sibling().await;
    let mut feed = open(&b, &Cred::bearer(&rig.owner), None).await;
    feed.first_snapshot().await;

    // Every Redis connection (B's subscription included) is cut, then Redis comes back.
    proxy.break_link();
    tokio::time::sleep(Duration::from_secs(1)).await;
    proxy.mend();
    for app in [&a, &b] {
        let deadline = Instant::now() + Duration::from_secs(10);
        while app.get("/readyz").await.status != 200 {
            assert!(Instant::now() < deadline, "not ready again within 10 s");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    let res = rig.send(&a, text("after", "after the outage")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    feed.snapshot_where(Duration::from_secs(5), "A's turn runs", |s| {
        running_in(s, "person_after").is_some()
    })
    .await;
    rig.callbacks(1).await;
}
