//! End to end: a signed inbound message through routing and the pipeline to a signed callback.

use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use crate::helpers::runtime_rig::{model_on, reply_text, text, Rig, OUTBOUND};
use crate::helpers::spawn_app;

#[tokio::test]
async fn a_signed_message_gets_a_signed_callback_reply() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let res = rig.send(&app, text("s1", "hello")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    assert_eq!(res.body["code"], 0);
    assert_eq!(res.body["data"]["session_id"], "s1");
    let accepted = res.body["data"]["accepted_message_id"]
        .as_str()
        .unwrap()
        .to_string();
    let callbacks = rig.callbacks(1).await;
    let (body, ts, sig) = &callbacks[0];
    assert_eq!(reply_text(body), "echo(1): hello");
    assert_eq!(body["reply_to"], accepted.as_str());
    assert_eq!(body["sequence"], 1);
    assert_eq!(body["is_final"], true);
    assert_eq!(body["session_id"], "s1");
    // The callback is signed with the outbound secret over the exact body.
    let raw = app_callback_raw(&rig).await;
    assert_eq!(sig, &langbot::runtime::signing::sign(OUTBOUND, ts, &raw));
    // The model received the configured system prompt and the message.
    let sent = rig.fake.received().await;
    let messages = sent[0].body["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(messages.last().unwrap()["content"], "hello");
    assert_eq!(sent[0].body["stream"], true);
}

async fn app_callback_raw(rig: &Rig) -> Vec<u8> {
    rig.callbacks.received_requests().await.unwrap_or_default()[0]
        .body
        .clone()
}

#[tokio::test]
async fn history_carries_over_and_reset_clears_it() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let first = rig.sync(&app, text("s1", "one")).await;
    assert_eq!(first.status, 200, "{}", first.text);
    assert_eq!(first.body["data"]["text"], "echo(1): one");
    let second = rig.sync(&app, text("s1", "two")).await;
    assert_eq!(
        second.body["data"]["text"], "echo(2): two",
        "the second turn sees the first"
    );
    let other = rig.sync(&app, text("s2", "three")).await;
    assert_eq!(
        other.body["data"]["text"], "echo(1): three",
        "sessions are separate"
    );
    let reset = rig.reset(&app, "s1").await;
    assert_eq!(reset.status, 200, "{}", reset.text);
    let after = rig.sync(&app, text("s1", "four")).await;
    assert_eq!(after.body["data"]["text"], "echo(1): four");
}

#[tokio::test]
async fn a_long_reply_is_sent_as_several_callbacks() {
    let app = spawn_app().await;
    let rig = Rig::new(
        &app,
        json!({ "output": { "long-text-processing": { "strategy": "forward", "threshold": 5 } } }),
    )
    .await;
    rig.send(&app, text("s1", "abcdefgh")).await;
    // "echo(1): abcdefgh" is 17 characters: 4 parts of at most 5.
    let callbacks = rig.callbacks(4).await;
    let mut parts: Vec<_> = callbacks.iter().map(|(b, _, _)| b.clone()).collect();
    parts.sort_by_key(|b| b["sequence"].as_u64());
    let joined: String = parts.iter().map(reply_text).collect();
    assert_eq!(joined, "echo(1): abcdefgh");
    assert_eq!(
        parts
            .iter()
            .map(|b| b["sequence"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![1, 2, 3, 4]
    );
    assert_eq!(parts.iter().filter(|b| b["is_final"] == true).count(), 1);
    assert_eq!(parts[3]["is_final"], true);
}

#[tokio::test]
async fn messages_within_the_aggregation_window_become_one_turn() {
    let app = spawn_app().await;
    let rig = Rig::new(
        &app,
        json!({ "trigger": { "message-aggregation": { "enabled": true, "delay": 1.0 } } }),
    )
    .await;
    let a = rig.send(&app, text("s1", "a")).await;
    assert_eq!(a.body["data"]["aggregating"], true);
    rig.send(&app, text("s1", "b")).await;
    rig.send(&app, text("s1", "c")).await;
    let callbacks = rig.callbacks(1).await;
    assert_eq!(reply_text(&callbacks[0].0), "echo(1): a\nb\nc");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        rig.callback_count().await,
        1,
        "one turn for the three messages"
    );
}

#[tokio::test]
async fn group_messages_need_a_mention_and_misses_show_in_route_status() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let group = |segments: serde_json::Value| json!({ "session_id": "g1", "session_type": "group", "sender": { "id": "u1", "name": "Ann" }, "message": segments });
    let silent = rig
        .sync(
            &app,
            group(json!([{ "type": "Plain", "text": "ai hello" }])),
        )
        .await;
    assert_eq!(
        silent.body["data"]["message"],
        json!([]),
        "an unmentioned group message does not enter the pipeline"
    );
    let mentioned = rig
        .sync(
            &app,
            group(json!([{ "type": "At", "target": rig.bot }, { "type": "Plain", "text": "hi" }])),
        )
        .await;
    let message = mentioned.body["data"]["message"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(
        message[0],
        json!({ "type": "At", "target": "u1" }),
        "at-sender in groups"
    );
    assert_eq!(mentioned.body["data"]["text"], "echo(1): hi");
    let status = app
        .get_as(
            &rig.owner,
            &format!("/api/v1/platform/bots/{}/event-routes/status", rig.bot),
        )
        .await;
    let data = status.data();
    assert_eq!(data["unmatched_events"][0]["last_status"], "not_matched");
    assert_eq!(
        data["unmatched_events"][0]["failure_code"],
        "route_not_found"
    );
    assert_eq!(data["routes"][1]["last_status"], "delivered");
    assert_eq!(data["routes"][0]["last_status"], serde_json::Value::Null);
    // Traces survive on disk: a fresh read gives the same.
    let again = app
        .get_as(
            &rig.owner,
            &format!("/api/v1/platform/bots/{}/event-routes/status", rig.bot),
        )
        .await;
    assert_eq!(again.data()["routes"][1]["last_status"], "delivered");
}

#[tokio::test]
async fn the_fallback_model_answers_when_the_primary_fails() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let broken = crate::helpers::FakeOpenAi::start().await;
    broken.mount_server_error(crate::helpers::Route::Chat).await;
    let primary = model_on(&app, &rig.owner, &broken.base_url(), "broken").await;
    let config = json!({ "ai": { "runner_config": { "local-agent": { "model": { "primary": primary, "fallbacks": [rig.model] } } } } });
    app.send_as(
        &rig.owner,
        Method::PUT,
        &format!("/api/v1/pipelines/{}", rig.pipeline),
        &json!({ "config": config }),
    )
    .await
    .data();
    let res = rig.sync(&app, text("s1", "hello")).await;
    assert_eq!(res.body["data"]["text"], "echo(1): hello");
    assert_eq!(broken.received().await.len(), 1);
}

#[tokio::test]
async fn a_failing_turn_answers_with_the_hint_and_records_the_error() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let broken = crate::helpers::FakeOpenAi::start().await;
    broken.mount_server_error(crate::helpers::Route::Chat).await;
    let only = model_on(&app, &rig.owner, &broken.base_url(), "broken").await;
    let config =
        json!({ "ai": { "runner_config": { "local-agent": { "model": { "primary": only } } } } });
    app.send_as(
        &rig.owner,
        Method::PUT,
        &format!("/api/v1/pipelines/{}", rig.pipeline),
        &json!({ "config": config }),
    )
    .await
    .data();
    let res = rig.sync(&app, text("s1", "hello")).await;
    assert_eq!(
        res.body["data"]["text"],
        "The request failed, please try again later."
    );
    use sea_orm::{EntityTrait, PaginatorTrait};
    let errors = langbot::entities::monitoring_error::Entity::find()
        .count(&app.state.db)
        .await
        .unwrap();
    assert_eq!(errors, 1);
    let calls = langbot::entities::llm_call::Entity::find()
        .all(&app.state.db)
        .await
        .unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].status, "error");
}

#[tokio::test]
async fn callbacks_are_retried_until_the_receiver_recovers() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    rig.callbacks.reset().await;
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, ResponseTemplate};
    Mock::given(method("POST"))
        .and(path("/cb"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(2)
        .with_priority(1)
        .mount(&rig.callbacks)
        .await;
    Mock::given(method("POST"))
        .and(path("/cb"))
        .respond_with(ResponseTemplate::new(200))
        .with_priority(2)
        .mount(&rig.callbacks)
        .await;
    rig.send(&app, text("s1", "hello")).await;
    let callbacks = rig.callbacks(3).await;
    assert_eq!(callbacks.len(), 3, "two failures, then the delivery");
    assert!(callbacks
        .iter()
        .all(|(b, _, _)| reply_text(b) == "echo(1): hello"));
}

#[tokio::test]
async fn run_pipeline_answers_in_debug_mode_and_records_it() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let res = app
        .send_as(
            &rig.owner,
            Method::POST,
            &format!("/api/v1/pipelines/{}/run", rig.pipeline),
            &json!({ "message": "ping" }),
        )
        .await;
    let data = res.data();
    assert_eq!(data["status"], "completed");
    assert_eq!(data["reply"], "echo(1): ping");
    use sea_orm::EntityTrait;
    let executions = langbot::entities::execution::Entity::find()
        .all(&app.state.db)
        .await
        .unwrap();
    assert_eq!(executions.len(), 1);
    assert_eq!(executions[0].mode, "debug");
    assert_eq!(executions[0].status, "completed");
    assert_eq!(executions[0].id, data["query_id"].as_str().unwrap());
}
