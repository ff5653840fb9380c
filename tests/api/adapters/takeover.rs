//! The lease takeover for every connection-style adapter besides Telegram polling (which
//! `lifecycle.rs` covers, with a message sent while the holder dies): two replicas, one holds
//! the connection; when it dies the other connects within the lease time, and nothing is
//! answered twice.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::onebot::said;
use super::{app, LEASE};
use crate::helpers::fakes::discord::{direct_message, FakeDiscord};
use crate::helpers::fakes::onebot::{private, text, FakeOneBot};
use crate::helpers::fakes::slack::{direct, FakeSlack};
use crate::helpers::fixtures::{eventually, PlatformRig};
use crate::helpers::TestApp;

/// What the takeover needs of a platform fake: deliver a private message, read the answers.
trait Platform {
    fn adapter(&self) -> &'static str;
    fn config(&self) -> Value;
    /// Sends private message `n` with `text`; false when the platform cannot deliver it yet
    /// (no connection to deliver it on).
    fn push(&self, n: u64, text: &str) -> bool;
    fn answers(&self) -> Vec<String>;
}

struct Discord(FakeDiscord);
impl Platform for Discord {
    fn adapter(&self) -> &'static str {
        "discord"
    }
    fn config(&self) -> Value {
        self.0.config()
    }
    fn push(&self, n: u64, text: &str) -> bool {
        self.0.push(direct_message(n, "42", text));
        true
    }
    fn answers(&self) -> Vec<String> {
        texts(self.0.sent_to("dm42"), |m| m["content"].as_str())
    }
}

struct Slack(FakeSlack);
impl Platform for Slack {
    fn adapter(&self) -> &'static str {
        "slack"
    }
    fn config(&self) -> Value {
        self.0.socket_config()
    }
    fn push(&self, n: u64, text: &str) -> bool {
        self.0.push(direct(&format!("{n}.000001"), "U42", text));
        true
    }
    fn answers(&self) -> Vec<String> {
        texts(self.0.posted_to("DU42"), |m| m["text"].as_str())
    }
}

struct OneBot(FakeOneBot);
impl Platform for OneBot {
    fn adapter(&self) -> &'static str {
        "onebot-v11"
    }
    fn config(&self) -> Value {
        json!({ "connection_mode": "forward_ws", "ws_url": self.0.ws_url(), "access-token": "tok" })
    }
    fn push(&self, n: u64, t: &str) -> bool {
        // Events go out on the live connection only (as a OneBot implementation's do).
        if !self.0.connected() {
            return false;
        }
        self.0.push(private(n as i64, 42, json!([text(t)])));
        true
    }
    fn answers(&self) -> Vec<String> {
        self.0.sent_to("user_id", 42).iter().map(said).collect()
    }
}

fn texts(sent: Vec<Value>, text: impl Fn(&Value) -> Option<&str>) -> Vec<String> {
    sent.iter()
        .filter_map(|m| text(m).map(str::to_string))
        .collect()
}

async fn wait_answers(p: &impl Platform, n: usize) -> Vec<String> {
    eventually(&format!("{n} answers on {}", p.adapter()), 20, || async {
        let got = p.answers();
        (got.len() >= n).then_some(got)
    })
    .await
}

async fn push_when_connected(p: &impl Platform, n: u64, text: &str) {
    eventually(
        &format!("{} accepts a message", p.adapter()),
        20,
        || async { p.push(n, text).then_some(()) },
    )
    .await
}

async fn takes_over(p: impl Platform) {
    let first = app().await;
    let second = first.sibling().await;
    let rig = PlatformRig::new(&first, p.adapter(), p.config()).await;
    let rt = rig.wait_state(&first, &rig.bot, "running").await;
    let holder = rt["state"]["replica"].as_str().unwrap().to_string();
    let (dying, survivor): (&TestApp, &TestApp) = if *holder == *first.state().replica {
        (&first, &second)
    } else {
        (&second, &first)
    };
    for i in 1..=3 {
        push_when_connected(&p, i, &format!("m{i}")).await;
    }
    wait_answers(&p, 3).await;
    assert_eq!(
        rig.runtime(survivor).await["state"]["replica"],
        holder.as_str(),
        "both replicas report the holder"
    );

    dying
        .state()
        .parts
        .get::<langbot::runtime::adapters::supervisor::Supervisor>()
        .crash();
    let died = Instant::now();
    eventually("the survivor takes over", 10, || async {
        let rt = rig.runtime(survivor).await;
        (rt["state"]["state"] == "running" && rt["state"]["replica"] == *survivor.state().replica)
            .then_some(())
    })
    .await;
    assert!(
        died.elapsed() < LEASE * 3,
        "{} took over after {:?} with a {:?} lease",
        p.adapter(),
        died.elapsed(),
        LEASE
    );
    push_when_connected(&p, 4, "after").await;
    wait_answers(&p, 4).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let answers = p.answers();
    assert_eq!(answers.len(), 4, "no message answered twice: {answers:#?}");
    for want in ["m1", "m2", "m3", "after"] {
        assert!(
            answers.iter().any(|t| t.ends_with(want)),
            "{want} not answered: {answers:#?}"
        );
    }
}

#[tokio::test]
async fn discord_gateway_is_taken_over_when_its_replica_dies() {
    takes_over(Discord(FakeDiscord::start("bot-token").await)).await;
}

#[tokio::test]
async fn slack_socket_mode_is_taken_over_when_its_replica_dies() {
    takes_over(Slack(FakeSlack::start().await)).await;
}

#[tokio::test]
async fn onebot_forward_websocket_is_taken_over_when_its_replica_dies() {
    takes_over(OneBot(FakeOneBot::serving("tok").await)).await;
}
