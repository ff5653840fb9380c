//! One suite for both session-store implementations: in-process in the SQLite pass,
//! Redis in the PostgreSQL + Redis pass.

use std::time::Duration;

use futures_util::StreamExt;

use crate::helpers::test_store;

const SHORT: Duration = Duration::from_millis(300);
const LONG: Duration = Duration::from_secs(60);

#[tokio::test]
async fn values_round_trip_and_expire() {
    let store = test_store().await;
    store.set("k", b"v1", Some(SHORT)).await.unwrap();
    store.set("forever", b"v2", None).await.unwrap();
    assert_eq!(store.get("k").await.unwrap().as_deref(), Some(&b"v1"[..]));
    let ttl = store.ttl("k").await.unwrap().unwrap();
    assert!(ttl <= SHORT && ttl > Duration::ZERO);
    assert_eq!(store.ttl("forever").await.unwrap(), None);
    tokio::time::sleep(SHORT + Duration::from_millis(150)).await;
    assert_eq!(store.get("k").await.unwrap(), None);
    assert_eq!(
        store.get("forever").await.unwrap().as_deref(),
        Some(&b"v2"[..])
    );
    assert_eq!(store.get("missing").await.unwrap(), None);
}

#[tokio::test]
async fn set_if_absent_only_sets_once() {
    let store = test_store().await;
    assert!(store.set_if_absent("idem", b"a", LONG).await.unwrap());
    assert!(!store.set_if_absent("idem", b"b", LONG).await.unwrap());
    assert_eq!(store.get("idem").await.unwrap().as_deref(), Some(&b"a"[..]));
    assert!(store.set_if_absent("brief", b"a", SHORT).await.unwrap());
    tokio::time::sleep(SHORT + Duration::from_millis(150)).await;
    assert!(store.set_if_absent("brief", b"b", LONG).await.unwrap());
}

#[tokio::test]
async fn delete_and_expire() {
    let store = test_store().await;
    store.set("k", b"v", None).await.unwrap();
    assert!(store.expire("k", SHORT).await.unwrap());
    assert!(!store.expire("nothing", SHORT).await.unwrap());
    assert!(store.ttl("k").await.unwrap().is_some());
    assert!(store.delete("k").await.unwrap());
    assert!(!store.delete("k").await.unwrap());
    assert_eq!(store.get("k").await.unwrap(), None);
}

#[tokio::test]
async fn counters_count_within_their_window() {
    let store = test_store().await;
    assert_eq!(store.incr("c", 1, SHORT).await.unwrap(), 1);
    assert_eq!(store.incr("c", 1, SHORT).await.unwrap(), 2);
    assert_eq!(store.incr("c", 5, SHORT).await.unwrap(), 7);
    assert!(
        store.ttl("c").await.unwrap().is_some(),
        "a counter must expire"
    );
    tokio::time::sleep(SHORT + Duration::from_millis(150)).await;
    assert_eq!(
        store.incr("c", 1, SHORT).await.unwrap(),
        1,
        "a new window starts from zero"
    );
}

#[tokio::test]
async fn counters_are_atomic_under_concurrency() {
    let store = test_store().await;
    let tasks: Vec<_> = (0..50)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.incr("hits", 1, LONG).await.unwrap() })
        })
        .collect();
    let mut seen = Vec::new();
    for t in tasks {
        seen.push(t.await.unwrap());
    }
    seen.sort_unstable();
    assert_eq!(seen, (1..=50).collect::<Vec<i64>>());
}

#[tokio::test]
async fn publish_reaches_every_subscriber_of_the_channel_only() {
    let store = test_store().await;
    let mut a = store.subscribe("feed").await.unwrap();
    let mut b = store.subscribe("feed").await.unwrap();
    let mut other = store.subscribe("other").await.unwrap();
    store.publish("feed", b"hello").await.unwrap();
    for sub in [&mut a, &mut b] {
        let got = tokio::time::timeout(Duration::from_secs(2), sub.next()).await;
        assert_eq!(got.unwrap().unwrap(), b"hello");
    }
    assert!(
        tokio::time::timeout(Duration::from_millis(200), other.next())
            .await
            .is_err(),
        "a message leaked to another channel"
    );
}

#[tokio::test]
async fn locks_are_exclusive_owned_and_expire() {
    let store = test_store().await;
    let token = store
        .try_lock("task", LONG)
        .await
        .unwrap()
        .expect("first lock");
    assert!(
        store.try_lock("task", LONG).await.unwrap().is_none(),
        "lock is exclusive"
    );
    let stranger = langbot::session_store::LockToken("someone-else".into());
    assert!(!store.unlock("task", &stranger).await.unwrap());
    assert!(!store.extend_lock("task", &stranger, LONG).await.unwrap());
    assert!(store.extend_lock("task", &token, SHORT).await.unwrap());
    tokio::time::sleep(SHORT + Duration::from_millis(150)).await;
    let second = store
        .try_lock("task", LONG)
        .await
        .unwrap()
        .expect("expired lock is free");
    assert!(
        !store.unlock("task", &token).await.unwrap(),
        "an expired holder cannot unlock"
    );
    assert!(store.unlock("task", &second).await.unwrap());
    assert!(store.try_lock("task", LONG).await.unwrap().is_some());
}

#[tokio::test]
async fn stores_with_different_prefixes_do_not_see_each_other() {
    let a = test_store().await;
    let b = test_store().await;
    a.set("shared-name", b"a", None).await.unwrap();
    assert_eq!(b.get("shared-name").await.unwrap(), None);
}
