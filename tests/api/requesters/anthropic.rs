//! `anthropic-messages`: the Messages API (`/v1/messages`, `x-api-key`, `anthropic-version`,
//! content blocks, `tool_use`/`tool_result`, the SSE events, usage).

use langbot::llm::Protocol;
use serde_json::json;

use super::{assert_client_round_trip, assert_tool_turn, endpoint, NativeRig};
use crate::helpers::fake_native::anthropic::{KEY, PATH};
use crate::helpers::fake_native::CALL_ID;
use crate::helpers::{spawn_app, FakeNative, Instance};

#[tokio::test]
async fn the_client_speaks_messages_with_tool_use_streaming_and_usage() {
    let fake = FakeNative::anthropic().await;
    // The documented base is the host; a base ending in /v1 reaches the same path.
    for base in [fake.uri(), format!("{}/v1", fake.uri())] {
        assert_client_round_trip(
            &endpoint(&base, Some(KEY), Protocol::Anthropic),
            "claude-fake",
        )
        .await;
    }
    let sent = fake.received_on(PATH).await;
    assert_eq!(sent.len(), 8, "four calls per base URL");
    for r in &sent {
        assert_eq!(r.header("x-api-key"), Some(KEY));
        assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
        assert_eq!(r.authorization(), None, "the key goes in x-api-key only");
        assert_eq!(r.body["system"], "You are a test.");
        assert_eq!(r.body["max_tokens"], 4096);
        assert_eq!(
            r.body["tools"][0]["input_schema"]["required"],
            json!(["text"])
        );
    }
    let last = &sent[3].body;
    let result_turn = &last["messages"][2];
    assert_eq!(result_turn["role"], "user");
    assert_eq!(result_turn["content"][0]["type"], "tool_result");
    assert_eq!(result_turn["content"][0]["tool_use_id"], CALL_ID);
    assert_eq!(last["messages"][1]["role"], "assistant");
    assert_eq!(
        last["messages"][1]["content"][0]["type"], "tool_use",
        "{last}"
    );
}

#[tokio::test]
async fn an_anthropic_model_tests_ok_and_a_wrong_key_is_an_authentication_failure() {
    let fake = FakeNative::anthropic().await;
    let f = Instance::new().await;
    let provider = f
        .provider_in(
            None,
            &json!({ "name": "Claude", "requester": "anthropic-messages",
                     "base_url": fake.uri(), "api_keys": [KEY] }),
        )
        .await;
    let model = f.model("llm", &provider, "claude-fake").await;
    let res = f.test_model("llm", &model).await;
    assert_eq!(res.status, 200, "{}", res.text);
    let sent = fake.received_on(PATH).await;
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].body["model"], "claude-fake");
    assert!(
        sent[0].body.get("stream").is_none(),
        "the test is one plain call"
    );
    assert_eq!(sent[0].body["messages"][0]["content"][0]["type"], "text");

    let wrong = f
        .provider_in(
            None,
            &json!({ "name": "Wrong", "requester": "anthropic-messages",
                     "base_url": fake.uri(), "api_keys": ["sk-ant-wrong"] }),
        )
        .await;
    let model = f.model("llm", &wrong, "claude-fake").await;
    let res = f.test_model("llm", &model).await;
    assert_eq!(res.body["code"], "model_test_failed", "{}", res.text);
    assert_eq!(
        res.body["details"]["upstream_code"], "authentication",
        "{}",
        res.text
    );
    assert!(
        !res.text.contains("sk-ant-wrong"),
        "the key leaked: {}",
        res.text
    );
}

#[tokio::test]
async fn a_pipeline_turn_on_anthropic_calls_a_tool_and_records_usage() {
    let app = spawn_app().await;
    let fake = FakeNative::anthropic().await;
    let rig = NativeRig::new(
        &app,
        "anthropic-messages",
        &fake.uri(),
        &[KEY],
        "claude-fake",
    )
    .await;
    assert_tool_turn(&app, &rig).await;
    let sent = fake.received_on(PATH).await;
    assert_eq!(sent.len(), 2, "a tool round, then the answer");
    assert!(
        sent.iter().all(|r| r.body["stream"] == true),
        "the turn streams"
    );
    assert!(sent[0].body["tools"]
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t["name"] == "echo")));
    let last_turn = sent[1].body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        last_turn["content"][0]["type"], "tool_result",
        "{last_turn}"
    );
    assert_eq!(last_turn["content"][0]["tool_use_id"], CALL_ID);
}
