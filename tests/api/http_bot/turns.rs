//! End to end: a signed inbound message through routing and the pipeline to a signed callback;
//! history, long replies, aggregation, fallbacks, failures, retried callbacks, a disabled bot.

use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use super::ENDPOINTS;
use crate::helpers::fixtures::{body_for, post_signed, reply_text, text, Rig, INBOUND, OUTBOUND};
use crate::helpers::{spawn_app, FakeOpenAi, Route};

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
async fn the_fallback_model_answers_when_the_primary_fails() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let broken = FakeOpenAi::start().await;
    broken.mount_server_error(Route::Chat).await;
    let primary = app
        .llm_model_on(&rig.owner, &broken.base_url(), "broken")
        .await;
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
    let broken = FakeOpenAi::start().await;
    broken.mount_server_error(Route::Chat).await;
    let only = app
        .llm_model_on(&rig.owner, &broken.base_url(), "broken")
        .await;
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
        .count(app.db())
        .await
        .unwrap();
    assert_eq!(errors, 1);
    let calls = langbot::entities::llm_call::Entity::find()
        .all(app.db())
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
async fn a_disabled_bot_refuses_with_40301_until_enabled_again() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let before = rig.baseline(&app).await;
    rig.update_bot(&app, json!({ "enable": false })).await;
    for suffix in ENDPOINTS {
        let body = body_for(suffix, "s1", "anyone there?");
        let res = post_signed(&app, &rig.bot, suffix, INBOUND, &body).await;
        res.assert_refused(403, 40301, &format!("POST {suffix:?} to a disabled bot"));
    }
    rig.update_bot(&app, json!({ "enable": true })).await;
    rig.assert_untouched(&app, before).await;
}
