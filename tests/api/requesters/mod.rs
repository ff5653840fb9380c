//! LangBot's native-protocol requesters (reference providers_models.md §5.2) against fakes
//! speaking each protocol (`helpers::fake_native`): `anthropic-messages`, `ollama-chat`,
//! `gemini-chat-completions`, and the `cohere-rerank` / `jina-rerank` / `voyageai-rerank`
//! APIs. For each chat protocol: the client directly (a tool call and usage, plain and
//! streamed), the model test operation, and a full http_bot turn whose model calls the MCP
//! fixture's `echo` tool, with the usage recorded in monitoring.

mod anthropic;
mod gemini;
mod ollama;
mod rerank;

use std::time::Duration;

use futures_util::StreamExt;
use langbot::llm::{self, ChatMessage, ChatRequest, Endpoint, Protocol, StreamEvent, ToolSpec};
use serde_json::{json, Map, Value};

use crate::helpers::fake_native::{CALL_ID, TOOL, WORDS};
use crate::helpers::fixtures::{http_bot_config, post_signed, text, INBOUND};
use crate::helpers::mcp_fixture::{McpFixture, Transport};
use crate::helpers::{eventually, TestApp};

pub fn endpoint(base_url: &str, key: Option<&str>, protocol: Protocol) -> Endpoint {
    Endpoint {
        base_url: base_url.to_string(),
        api_key: key.map(str::to_string),
        timeout: Duration::from_secs(10),
        protocol,
    }
}

/// A request offering `echo`, as the agent loop sends it (system prompt first).
pub fn echo_request(model: &str) -> ChatRequest {
    ChatRequest {
        model: model.into(),
        messages: vec![
            ChatMessage::text("system", "You are a test."),
            ChatMessage::text("user", "please echo"),
        ],
        tools: vec![ToolSpec {
            name: TOOL.into(),
            description: "Echoes the text".into(),
            parameters: json!({ "type": "object", "properties": { "text": { "type": "string" } },
                                "required": ["text"] }),
        }],
        extra: Map::new(),
    }
}

/// The client, plain and streamed, against a fake: the scripted `echo` call with its
/// arguments and the tool round's usage (30 + 9); then, with the result appended, the text.
pub async fn assert_client_round_trip(ep: &Endpoint, model: &str) {
    let http = reqwest::Client::new();
    let mut req = echo_request(model);
    let reply = llm::chat(&http, ep, &req).await.expect("plain call");
    let calls = reply.message.tool_calls.clone().expect("a tool call");
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].function.name, TOOL);
    let args: Value = serde_json::from_str(&calls[0].function.arguments).expect("JSON arguments");
    assert_eq!(args, json!({ "text": WORDS }));
    assert_eq!(
        (
            reply.usage.prompt_tokens,
            reply.usage.completion_tokens,
            reply.usage.total_tokens
        ),
        (30, 9, 39)
    );
    assert_eq!(reply.finish_reason.as_deref(), Some("tool_calls"));

    let mut stream = llm::chat_stream(&http, ep, &req)
        .await
        .expect("streamed call");
    let mut done = None;
    while let Some(event) = stream.next().await {
        if let StreamEvent::Done { message, usage, .. } = event.expect("event") {
            done = Some((message, usage));
        }
    }
    let (message, usage) = done.expect("a Done event");
    let streamed = message.tool_calls.clone().expect("a streamed tool call");
    assert_eq!(streamed[0].function.name, TOOL);
    let args: Value =
        serde_json::from_str(&streamed[0].function.arguments).expect("JSON arguments");
    assert_eq!(args, json!({ "text": WORDS }));
    assert_eq!(
        (
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.total_tokens
        ),
        (30, 9, 39)
    );

    // The result goes back; the model answers text, streamed in pieces.
    req.messages.push(message);
    req.messages.push(ChatMessage {
        role: "tool".into(),
        content: Some("echo: done".into()),
        tool_calls: None,
        tool_call_id: Some(streamed[0].id.clone()),
        images: Vec::new(),
    });
    let mut stream = llm::chat_stream(&http, ep, &req)
        .await
        .expect("second call");
    let mut pieces = Vec::new();
    let mut usage = None;
    while let Some(event) = stream.next().await {
        match event.expect("event") {
            StreamEvent::Content(t) => pieces.push(t),
            StreamEvent::Done {
                message, usage: u, ..
            } => {
                assert_eq!(message.content.as_deref(), Some("results: echo: done"));
                assert!(message.tool_calls.is_none(), "{message:?}");
                usage = Some(u);
            }
        }
    }
    assert!(pieces.len() >= 2, "the text came in pieces: {pieces:?}");
    assert_eq!(pieces.concat(), "results: echo: done");
    let usage = usage.expect("usage");
    assert_eq!((usage.prompt_tokens, usage.completion_tokens), (12, 5));
    let plain = llm::chat(&http, ep, &req).await.expect("plain second call");
    assert_eq!(
        plain.message.content.as_deref(),
        Some("results: echo: done")
    );
    assert_eq!(plain.finish_reason.as_deref(), Some("stop"));
    let _ = CALL_ID;
}

/// A Workspace with a provider of `requester` at `base_url`, a `func_call` LLM model on it,
/// the default pipeline on that model, an http_bot, and a connected MCP server serving `echo`.
pub struct NativeRig {
    pub owner: String,
    bot: String,
    _fixture: McpFixture,
}

impl NativeRig {
    pub async fn new(
        app: &TestApp,
        requester: &str,
        base_url: &str,
        keys: &[&str],
        model: &str,
    ) -> Self {
        let owner = app.init_owner().await;
        let provider = app
            .create_provider(
                &owner,
                None,
                &json!({ "name": requester, "requester": requester, "base_url": base_url,
                         "api_keys": keys, "config": { "timeout": 30 } }),
            )
            .await;
        let model = app
            .create_model(
                &owner,
                None,
                "llm",
                &json!({ "name": model, "provider_uuid": provider, "abilities": ["func_call"] }),
            )
            .await;
        app.create_pipeline(
            &owner,
            None,
            &json!({ "name": "Native", "is_default": true,
                     "config": { "ai": { "runner_config": { "local-agent": { "model": { "primary": model } } } } } }),
        )
        .await;
        let bot = app
            .create_bot(
                &owner,
                None,
                &json!({ "name": "native bot", "adapter": "http_bot", "enable": true,
                         "adapter_config": http_bot_config(INBOUND) }),
            )
            .await;
        let fixture = McpFixture::start(Transport::StatelessHttp).await;
        app.mcp_server(
            &owner,
            "fixture",
            Transport::StatelessHttp.mode(),
            fixture.extra_args(json!({})),
        )
        .await;
        app.mcp_connected(&owner, "fixture").await;
        Self {
            owner,
            bot,
            _fixture: fixture,
        }
    }

    /// One http_bot turn; the reply text.
    pub async fn answer(&self, app: &TestApp, session: &str, words: &str) -> String {
        let body = text(session, words).to_string();
        let res = post_signed(app, &self.bot, "/sync", INBOUND, body.as_bytes()).await;
        assert_eq!(res.status, 200, "the turn: {}", res.text);
        res.body["data"]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text: {}", res.text))
            .to_string()
    }

    /// Waits until monitoring has `calls` LLM calls; answers the token totals.
    pub async fn token_totals(&self, app: &TestApp, calls: u64) -> Value {
        eventually(
            "the LLM calls recorded",
            Duration::from_secs(10),
            move || async move {
                let res = app
                    .get_as(&self.owner, "/api/v1/monitoring/token-statistics")
                    .await;
                let data = res.body["data"].clone();
                if data["calls"] == calls {
                    Ok(data["totals"].clone())
                } else {
                    Err(res.text)
                }
            },
        )
        .await
    }
}

/// The full turn: the model calls `echo`, the MCP fixture answers, the model answers the
/// result; two streamed model calls, 30 + 12 input and 9 + 5 output tokens recorded.
pub async fn assert_tool_turn(app: &TestApp, rig: &NativeRig) {
    let answer = rig.answer(app, "s1", "please echo").await;
    assert_eq!(answer, format!("results: echo: {WORDS}"));
    let totals = rig.token_totals(app, 2).await;
    assert_eq!(totals["input_tokens"], 42, "{totals}");
    assert_eq!(totals["output_tokens"], 14, "{totals}");
    assert_eq!(totals["total_tokens"], 56, "{totals}");
}
