//! `gemini-chat-completions`: Gemini's `generateContent` / `streamGenerateContent?alt=sse`
//! (`functionCall`/`functionResponse`, `usageMetadata`, `x-goog-api-key`) and
//! `batchEmbedContents`; LangBot's default base URL (`…/v1beta/openai`) reaches the native API.

use langbot::llm::Protocol;
use serde_json::json;

use super::{assert_client_round_trip, assert_tool_turn, endpoint, NativeRig};
use crate::helpers::fake_native::gemini::KEY;
use crate::helpers::fake_native::TOOL;
use crate::helpers::{spawn_app, FakeNative, Instance};

#[tokio::test]
async fn the_client_speaks_gemini_with_function_calls_sse_and_usage() {
    let fake = FakeNative::gemini().await;
    for base in [
        format!("{}/v1beta", fake.uri()),
        format!("{}/v1beta/openai", fake.uri()),
    ] {
        assert_client_round_trip(
            &endpoint(&base, Some(KEY), Protocol::Gemini),
            "gemini-2.5-flash",
        )
        .await;
    }
    let sent = fake.received().await;
    assert_eq!(sent.len(), 8);
    assert_eq!(
        sent[0].path,
        "/v1beta/models/gemini-2.5-flash:generateContent"
    );
    assert_eq!(
        sent[1].path,
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
    );
    for r in &sent {
        assert_eq!(r.header("x-goog-api-key"), Some(KEY));
        assert_eq!(
            r.body["systemInstruction"]["parts"][0]["text"],
            "You are a test."
        );
        assert_eq!(r.body["tools"][0]["functionDeclarations"][0]["name"], TOOL);
    }
    let contents = &sent[2].body["contents"];
    assert_eq!(contents[1]["role"], "model");
    assert_eq!(contents[1]["parts"][0]["functionCall"]["name"], TOOL);
    assert_eq!(contents[2]["parts"][0]["functionResponse"]["name"], TOOL);
    assert_eq!(
        contents[2]["parts"][0]["functionResponse"]["response"]["content"],
        "echo: done"
    );
}

#[tokio::test]
async fn gemini_llm_and_embedding_models_test_ok_at_the_langbot_default_url() {
    let fake = FakeNative::gemini().await;
    let f = Instance::new().await;
    let provider = f
        .provider_in(
            None,
            &json!({ "name": "Gemini", "requester": "gemini-chat-completions",
                     "base_url": format!("{}/v1beta/openai", fake.uri()), "api_keys": [KEY] }),
        )
        .await;
    let llm = f.model("llm", &provider, "gemini-2.5-flash").await;
    let res = f.test_model("llm", &llm).await;
    assert_eq!(res.status, 200, "{}", res.text);
    let embedding = f.model("embedding", &provider, "text-embedding-004").await;
    let res = f.test_model("embedding", &embedding).await;
    assert_eq!(res.status, 200, "{}", res.text);
    let sent = fake.received_on(":batchEmbedContents").await;
    assert_eq!(sent.len(), 1);
    assert_eq!(
        sent[0].body["requests"][0]["model"],
        "models/text-embedding-004"
    );

    let wrong = f
        .provider_in(
            None,
            &json!({ "name": "Wrong", "requester": "gemini-chat-completions",
                     "base_url": format!("{}/v1beta", fake.uri()), "api_keys": ["AIza-wrong"] }),
        )
        .await;
    let model = f.model("llm", &wrong, "gemini-2.5-flash").await;
    let res = f.test_model("llm", &model).await;
    assert_eq!(res.body["code"], "model_test_failed", "{}", res.text);
    assert_eq!(
        res.body["details"]["upstream_code"], "authentication",
        "{}",
        res.text
    );
}

#[tokio::test]
async fn a_pipeline_turn_on_gemini_calls_a_tool_and_records_usage() {
    let app = spawn_app().await;
    let fake = FakeNative::gemini().await;
    let base = format!("{}/v1beta", fake.uri());
    let rig = NativeRig::new(
        &app,
        "gemini-chat-completions",
        &base,
        &[KEY],
        "gemini-2.5-flash",
    )
    .await;
    assert_tool_turn(&app, &rig).await;
    let sent = fake.received().await;
    assert_eq!(sent.len(), 2);
    assert!(sent
        .iter()
        .all(|r| r.path.ends_with(":streamGenerateContent")));
    let contents = sent[1].body["contents"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let last = contents.last().cloned().unwrap_or_default();
    assert_eq!(last["parts"][0]["functionResponse"]["name"], TOOL, "{last}");
}
