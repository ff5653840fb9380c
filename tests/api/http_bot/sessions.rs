//! One turn at a time per session: one sync per session, and turns serialized across two
//! replicas sharing PostgreSQL and Redis.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::json;

use crate::helpers::fixtures::{reply_text, reset_context, text, Rig};
use crate::helpers::{redis_pass, spawn_app};

/// The echo turn number of a reply `echo(<n>): …`.
fn echo_count(reply: &str) -> u64 {
    reply
        .strip_prefix("echo(")
        .and_then(|r| r.split_once(')'))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("not an echo reply: {reply:?}"))
}

#[tokio::test]
async fn concurrent_syncs_for_one_session_get_40902() {
    let app = spawn_app().await;
    let rig = Rig::with_echo(&app, json!({}), Duration::from_secs(2)).await;
    let (a, b, other) = tokio::join!(
        rig.sync(&app, text("s1", "a")),
        rig.sync(&app, text("s1", "b")),
        rig.sync(&app, text("s2", "c")),
    );
    let (won, lost) = match (a.status, b.status) {
        (200, 409) => (a, b),
        (409, 200) => (b, a),
        _ => panic!(
            "expected one 200 and one 409, got {} {} / {} {}",
            a.status, a.text, b.status, b.text
        ),
    };
    lost.assert_refused(409, 40902, "the second sync for the session");
    let won_text = won.data()["text"].as_str().unwrap().to_string();
    assert!(
        won_text == "echo(1): a" || won_text == "echo(1): b",
        "{won_text}"
    );
    assert_eq!(
        other.data()["text"],
        "echo(1): c",
        "other sessions are not blocked"
    );
    // The refused sync left nothing behind: the next turn sees exactly one earlier turn.
    let next = rig.sync(&app, text("s1", "d")).await;
    assert_eq!(next.data()["text"], "echo(2): d");
    assert_eq!(rig.fake.received().await.len(), 3);
}

#[tokio::test]
async fn turns_of_one_session_are_serialized_across_replicas() {
    if !redis_pass() {
        return;
    }
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let b = app.sibling().await;
    for i in 0..6 {
        let to = if i % 2 == 0 { &app } else { &b };
        let res = rig.send(to, text("s1", &format!("m{i}"))).await;
        assert_eq!(res.status, 202, "message {i}: {}", res.text);
    }
    let callbacks = rig.callbacks(6).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(rig.callback_count().await, 6, "one reply per message");
    let replies: Vec<String> = callbacks.iter().map(|(b, _, _)| reply_text(b)).collect();
    let counts: BTreeSet<u64> = replies.iter().map(|r| echo_count(r)).collect();
    assert_eq!(
        counts,
        (1..=6).collect(),
        "each turn saw all earlier ones: {replies:?}"
    );
    let texts: BTreeSet<&str> = replies
        .iter()
        .map(|r| r.split_once(": ").unwrap().1)
        .collect();
    assert_eq!(
        texts,
        ["m0", "m1", "m2", "m3", "m4", "m5"].into_iter().collect()
    );

    for i in 0..4 {
        let to = if i % 2 == 0 { &app } else { &b };
        let res = rig.sync(to, text("s2", &format!("x{i}"))).await;
        assert_eq!(res.data()["text"], format!("echo({}): x{i}", i + 1));
    }

    // The idempotency window is shared too.
    let key = [("x-lb-idempotency-key", "shared".to_string())];
    let body = text("s3", "once").to_string().into_bytes();
    let res = rig.send_raw(&app, "", &body, &key).await;
    assert_eq!(res.status, 202, "{}", res.text);
    let res = rig.send_raw(&b, "", &body, &key).await;
    res.assert_refused(409, 40901, "the same key on the other replica");
}

#[tokio::test]
async fn sync_locks_and_busy_sessions_span_replicas() {
    if !redis_pass() {
        return;
    }
    let app = spawn_app().await;
    let rig = Rig::with_echo(&app, json!({}), Duration::from_secs(2)).await;
    let b = app.sibling().await;
    let (one, two) = tokio::join!(
        rig.sync(&app, text("s1", "a")),
        rig.sync(&b, text("s1", "b"))
    );
    let mut statuses = [one.status, two.status];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 409], "{} / {}", one.text, two.text);
    let lost = if one.status == 409 { &one } else { &two };
    lost.assert_refused(409, 40902, "a concurrent sync on the other replica");

    // A session with history, busy with a turn on `app`.
    let warm = rig.sync(&b, text("s2", "warm")).await;
    assert_eq!(warm.data()["text"], "echo(1): warm");
    let res = rig.send(&app, text("s2", "slow")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    rig.model_called(3).await;
    let body = json!({ "bot_id": rig.bot, "session_id": "person_s2" });
    reset_context(&b, &rig.owner, &body)
        .await
        .assert_error(409, "session_busy");
    let res = rig.reset(&b, "s2").await;
    res.assert_refused(409, 40903, "/reset on the other replica during a turn");
    rig.callbacks(1).await;
    reset_context(&b, &rig.owner, &body).await.data();
    let after = rig.sync(&app, text("s2", "new")).await;
    assert_eq!(after.data()["text"], "echo(1): new");
}
