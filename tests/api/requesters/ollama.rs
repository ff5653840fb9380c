//! `ollama-chat`: Ollama's `/api/chat` (NDJSON streaming, tool calls with argument objects,
//! `prompt_eval_count`/`eval_count`) and `/api/embed`.

use langbot::llm::Protocol;
use serde_json::json;

use super::{assert_client_round_trip, assert_tool_turn, endpoint, NativeRig};
use crate::helpers::fake_native::TOOL;
use crate::helpers::{spawn_app, FakeNative, Instance};

#[tokio::test]
async fn the_client_speaks_ollama_chat_with_tools_ndjson_and_usage() {
    let fake = FakeNative::ollama().await;
    assert_client_round_trip(&endpoint(&fake.uri(), None, Protocol::Ollama), "llama3.2").await;
    let sent = fake.received_on("/api/chat").await;
    assert_eq!(sent.len(), 4);
    assert_eq!(sent[0].body["stream"], false);
    assert_eq!(sent[1].body["stream"], true);
    assert_eq!(sent[0].body["messages"][0]["role"], "system");
    assert_eq!(sent[0].body["tools"][0]["function"]["name"], TOOL);
    let last = &sent[2].body["messages"];
    assert!(
        last[2]["tool_calls"][0]["function"]["arguments"].is_object(),
        "{last}"
    );
    assert_eq!(last[3]["role"], "tool");
    assert_eq!(last[3]["tool_name"], TOOL, "the result names its tool");
}

#[tokio::test]
async fn ollama_llm_and_embedding_models_test_ok() {
    let fake = FakeNative::ollama().await;
    let f = Instance::new().await;
    let provider = f
        .provider_in(
            None,
            &json!({ "name": "Local", "requester": "ollama-chat", "base_url": fake.uri(), "api_keys": [] }),
        )
        .await;
    let llm = f.model("llm", &provider, "llama3.2").await;
    let res = f.test_model("llm", &llm).await;
    assert_eq!(res.status, 200, "{}", res.text);
    let embedding = f.model("embedding", &provider, "nomic-embed-text").await;
    let res = f.test_model("embedding", &embedding).await;
    assert_eq!(res.status, 200, "{}", res.text);
    let sent = fake.received_on("/api/embed").await;
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].body["model"], "nomic-embed-text");
    assert_eq!(sent[0].body["input"], json!(["Hello, world!"]));
    assert_eq!(sent[0].authorization(), None, "no key, no Authorization");
    // A rerank model is refused: the requester supports llm and text-embedding.
    let refused = f
        .send(
            reqwest::Method::POST,
            "/api/v1/provider/models/rerank",
            &json!({ "name": "r", "provider_uuid": provider }),
        )
        .await;
    assert_eq!(refused.status, 400, "{}", refused.text);
}

#[tokio::test]
async fn a_pipeline_turn_on_ollama_calls_a_tool_and_records_usage() {
    let app = spawn_app().await;
    let fake = FakeNative::ollama().await;
    let rig = NativeRig::new(&app, "ollama-chat", &fake.uri(), &[], "llama3.2").await;
    assert_tool_turn(&app, &rig).await;
    let sent = fake.received_on("/api/chat").await;
    assert_eq!(sent.len(), 2);
    assert!(sent.iter().all(|r| r.body["stream"] == true));
    let messages = sent[1].body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let tool = messages
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("a tool message");
    assert_eq!(tool["tool_name"], TOOL);
}
