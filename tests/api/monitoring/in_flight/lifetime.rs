//! The heartbeat after silence, the connection lifetime and a reconnect.

use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

use super::{open, running_in, wait_running, Next, SLOW};
use crate::helpers::fixtures::{text, Rig};
use crate::helpers::{spawn_app_with, Cred};

#[tokio::test]
async fn an_idle_stream_sends_a_snapshot_then_heartbeats() {
    let app = spawn_app_with(|s| s.monitoring.stream_heartbeat = Duration::from_secs(1)).await;
    let owner = app.init_owner().await;
    let mut feed = open(&app, &Cred::bearer(&owner), None).await;
    let first = feed.first_snapshot().await;
    assert_eq!(first["items"], json!([]));
    let mut last = Instant::now();
    for n in 0..3 {
        let frame = feed.frame(Duration::from_secs(4)).await;
        assert_eq!(frame, json!({ "kind": "heartbeat" }), "frame {n}");
        let gap = last.elapsed();
        assert!(
            gap >= Duration::from_millis(700),
            "heartbeat {n} after {gap:?}: only after ~1 s of silence"
        );
        last = Instant::now();
    }
}

#[tokio::test]
async fn the_stream_ends_after_its_lifetime_and_a_reconnect_starts_with_a_fresh_snapshot() {
    let lifetime = Duration::from_secs(2);
    let app = spawn_app_with(|s| s.monitoring.stream_lifetime = lifetime).await;
    let rig = Rig::with_echo(&app, json!({}), SLOW).await;
    let opened = Instant::now();
    let mut feed = open(&app, &Cred::bearer(&rig.owner), None).await;
    let first = feed.first_snapshot().await;
    assert_eq!(first["items"], json!([]));
    // The default heartbeat (10 s) is longer than the lifetime: nothing else, then the end.
    match feed.next(lifetime + Duration::from_secs(4)).await {
        Next::Ended => {}
        other => panic!("expected the body to end after {lifetime:?}, got {other:?}"),
    }
    let lived = opened.elapsed();
    assert!(
        lived >= lifetime - Duration::from_millis(300),
        "ended after {lived:?}"
    );
    assert!(
        lived < lifetime + Duration::from_secs(4),
        "ended after {lived:?}"
    );
    drop(feed);

    // Something changes while nobody watches; the reconnect's first frame shows it.
    let res = rig.send(&app, text("later", "while away")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    wait_running(&app, &rig.owner, "person_later").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut again = open(&app, &Cred::bearer(&rig.owner), None).await;
    let fresh = again.first_snapshot().await;
    assert!(
        running_in(&fresh, "person_later").is_some(),
        "the reconnect's first snapshot is current: {fresh}"
    );
    assert_eq!(fresh["active_total"], 1);
    // The new connection has its own lifetime too.
    match again.next(SLOW + lifetime + Duration::from_secs(4)).await {
        Next::Ended | Next::Frame(_) => {}
        Next::Silent => panic!("the reconnected stream neither sent nor ended"),
    }
    rig.callbacks(1).await;
}
