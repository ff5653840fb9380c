//! Connection-style bots: started when enabled, stopped when disabled or deleted, run by
//! exactly one replica under a lease, taken over when the holder dies.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::json;

use super::{app, settle, LEASE};
use crate::helpers::fakes::telegram::{private, FakeTelegram};
use crate::helpers::fixtures::{bot_path, echo, eventually, PlatformRig};

#[tokio::test]
async fn a_bot_starts_when_enabled_and_stops_when_disabled_or_deleted() {
    let app = app().await;
    let tg = FakeTelegram::start("123:good").await;
    let rig = PlatformRig::new(&app, "telegram", tg.config()).await;
    rig.wait_state(&app, &rig.bot, "running").await;
    app.send_as(
        &rig.owner,
        Method::PUT,
        &bot_path(&rig.bot),
        &json!({ "enable": false }),
    )
    .await
    .data();
    rig.wait_state(&app, &rig.bot, "stopped").await;
    settle().await;
    let polls = tg.polls();
    tg.push(private(1, 42, "anyone?"));
    settle().await;
    assert!(tg.polls() <= polls + 1, "a disabled bot keeps polling");
    assert!(tg.sent_to(42).is_empty());

    app.send_as(
        &rig.owner,
        Method::PUT,
        &bot_path(&rig.bot),
        &json!({ "enable": true }),
    )
    .await
    .data();
    assert_eq!(
        tg.wait_sent_to(42, 1).await[0]["text"],
        echo(1, "anyone?"),
        "the queued update is answered after re-enabling"
    );

    app.request(Method::DELETE, &bot_path(&rig.bot))
        .bearer(&rig.owner)
        .send()
        .await
        .data();
    settle().await;
    let polls = tg.polls();
    settle().await;
    assert!(tg.polls() <= polls + 1, "a deleted bot keeps polling");
}

#[tokio::test]
async fn one_replica_runs_a_bot_and_another_takes_over_when_it_dies() {
    let first = app().await;
    let second = first.sibling().await;
    let tg = FakeTelegram::start("123:good").await;
    let rig = PlatformRig::new(&first, "telegram", tg.config()).await;
    let rt = rig.wait_state(&first, &rig.bot, "running").await;
    let holder = rt["state"]["replica"].as_str().unwrap().to_string();
    let (dying, survivor) = if *holder == *first.state().replica {
        (&first, &second)
    } else {
        (&second, &first)
    };
    for i in 1..=3 {
        tg.push(private(i, 42, &format!("m{i}")));
    }
    tg.wait_sent_to(42, 3).await;
    assert_eq!(
        rig.runtime(survivor).await["state"]["replica"],
        holder.as_str(),
        "both replicas report the holder"
    );

    tg.push(private(4, 42, "while dying"));
    dying
        .state()
        .parts
        .get::<langbot::runtime::adapters::supervisor::Supervisor>()
        .crash();
    let died = Instant::now();
    tg.push(private(5, 42, "after"));
    let rt = eventually("the survivor takes over", 10, || async {
        let rt = rig.runtime(survivor).await;
        (rt["state"]["state"] == "running" && rt["state"]["replica"] == *survivor.state().replica)
            .then_some(rt)
    })
    .await;
    assert!(
        died.elapsed() < LEASE * 3,
        "took over after {:?} with a {:?} lease",
        died.elapsed(),
        LEASE
    );
    assert_eq!(
        rt["bot_account_id"],
        crate::helpers::fakes::telegram::BOT_ID.to_string()
    );
    tg.wait_sent_to(42, 5).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let sent = tg.sent_to(42);
    assert_eq!(sent.len(), 5, "no message answered twice: {sent:#?}");
    let texts: Vec<&str> = sent.iter().map(|m| m["text"].as_str().unwrap()).collect();
    for i in 1..=3 {
        assert!(texts.iter().any(|t| t.ends_with(&format!("m{i}"))));
    }
    assert!(texts.iter().any(|t| t.ends_with("after")));
}
