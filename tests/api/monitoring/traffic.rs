//! The traffic the filter, paging, section and export tests read: two http_bot bots, each routed
//! to its own pipeline, one debug run and one failing turn — so every filter dimension (mode,
//! status, bot, pipeline, session, time) has a different answer; and small JSON helpers.

use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::{post_signed, text, Rig, INBOUND};
use crate::helpers::{FakeOpenAi, Response, Route, TestApp};

pub(super) const M: &str = "/api/v1/monitoring";
/// The bot id of pipeline debug runs (LangBot's `websocket-proxy-bot`).
pub(super) const DEBUG_BOT: &str = "websocket-proxy-bot";

pub(super) fn ok(res: &Response, what: &str) -> Value {
    assert!(
        res.status == 200 && res.body["code"] == 0,
        "{what}: expected success, got {}: {}",
        res.status,
        res.text
    );
    res.body["data"].clone()
}

pub(super) fn arr(v: &Value) -> Vec<Value> {
    v.as_array()
        .cloned()
        .unwrap_or_else(|| panic!("not an array: {v}"))
}

pub(super) fn s(v: &Value) -> String {
    v.as_str()
        .unwrap_or_else(|| panic!("not a string: {v}"))
        .to_string()
}

/// POSTs a signed message to `/bots/{bot}/sync` (any http_bot made with the rig's secrets).
pub(super) async fn sync_to(app: &TestApp, bot: &str, body: Value) -> Response {
    post_signed(app, bot, "/sync", INBOUND, body.to_string().as_bytes()).await
}

/// Records of real turns:
/// - bot 1 → pipeline 1: `person_alice` three completed turns;
/// - (`split`)
/// - bot 2 → pipeline 2: `person_carol` one completed turn;
/// - a debug run of pipeline 2 (bot `websocket-proxy-bot`, mode `debug`);
/// - pipeline 1 broken, bot 1: `person_bob` one failed turn.
///
/// So: 6 executions (5 real, 1 debug; 5 completed, 1 failed), 12 messages, 6 LLM calls,
/// 1 error, 4 sessions.
pub(super) struct Traffic {
    pub(super) rig: Rig,
    pub(super) bot1: String,
    pub(super) bot2: String,
    pub(super) pipeline1: String,
    pub(super) pipeline2: String,
    /// Before any turn.
    pub(super) before: DateTime<Utc>,
    /// Between alice's turns and the rest.
    pub(super) split: DateTime<Utc>,
    /// The debug run's session id.
    pub(super) debug_session: String,
    _broken: FakeOpenAi,
}

pub(super) async fn traffic(app: &TestApp) -> Traffic {
    let rig = Rig::new(app, json!({})).await;
    let owner = rig.owner.clone();
    let config = json!({ "ai": { "runner_config": { "local-agent": { "model": { "primary": rig.model } } } } });
    let p2 = app
        .send_as(
            &owner,
            Method::POST,
            "/api/v1/pipelines",
            &json!({ "name": "P2", "config": config }),
        )
        .await;
    let pipeline2 = s(&ok(&p2, "create pipeline 2")["uuid"]);
    let b2 = app
        .send_as(
            &owner,
            Method::POST,
            "/api/v1/platform/bots",
            &json!({ "name": "http2", "adapter": "http_bot", "enable": true,
                "adapter_config": { "inbound_secret": INBOUND, "outbound_secret": "outbound-secret-789",
                    "callback_url": format!("{}/cb", rig.callbacks.uri()), "callback_timeout": 2, "callback_max_retries": 0 },
                "event_bindings": [{ "event_pattern": "message.received", "target_type": "pipeline", "target_uuid": pipeline2 }] }),
        )
        .await;
    let bot2 = s(&ok(&b2, "create bot 2")["uuid"]);

    let before = Utc::now() - chrono::Duration::seconds(1);
    for q in ["a1", "a2", "a3"] {
        ok(&rig.sync(app, text("alice", q)).await, "alice turn");
    }
    tokio::time::sleep(Duration::from_millis(60)).await;
    let split = Utc::now();
    tokio::time::sleep(Duration::from_millis(60)).await;
    ok(
        &sync_to(app, &bot2, text("carol", "c1")).await,
        "carol turn",
    );
    let run = app
        .send_as(
            &owner,
            Method::POST,
            &format!("/api/v1/pipelines/{pipeline2}/run"),
            &json!({ "message": "debug run" }),
        )
        .await;
    let debug_session = s(&ok(&run, "debug run")["session_id"]);
    // Pipeline 1 now fails.
    let broken = FakeOpenAi::start().await;
    broken.mount_server_error(Route::Chat).await;
    let bad = app.llm_model_on(&owner, &broken.base_url(), "broken").await;
    let config =
        json!({ "ai": { "runner_config": { "local-agent": { "model": { "primary": bad } } } } });
    ok(
        &app.send_as(
            &owner,
            Method::PUT,
            &format!("/api/v1/pipelines/{}", rig.pipeline),
            &json!({ "config": config }),
        )
        .await,
        "break pipeline 1",
    );
    ok(&rig.sync(app, text("bob", "will fail")).await, "bob turn");
    Traffic {
        bot1: rig.bot.clone(),
        pipeline1: rig.pipeline.clone(),
        rig,
        bot2,
        pipeline2,
        before,
        split,
        debug_session,
        _broken: broken,
    }
}

impl Traffic {
    pub(super) async fn get(&self, app: &TestApp, path: &str) -> Value {
        let res = app.get_as(&self.rig.owner, path).await;
        ok(&res, path)
    }

    pub(super) async fn post(&self, app: &TestApp, path: &str, body: &Value) -> Value {
        let res = app.send_as(&self.rig.owner, Method::POST, path, body).await;
        ok(&res, &format!("POST {path} {body}"))
    }
}

pub(super) fn by_id(row: &Value) -> String {
    s(&row["id"])
}

pub(super) fn by_session(row: &Value) -> String {
    format!("{}/{}", s(&row["bot_id"]), s(&row["session_id"]))
}
