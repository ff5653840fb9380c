//! The OpenAI-compatible client (`langbot::llm`) against a fake upstream: plain and streaming
//! chat (content, usage, finish reason, tool calls), embeddings, rerank, what goes over the
//! wire, and how upstream failures map to stable codes (SPEC §7; reference providers_models §6).

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use langbot::llm::{
    self, ChatMessage, ChatRequest, StreamEvent, ToolCall, ToolSpec, UpstreamCode, UpstreamError,
    Usage,
};
use serde_json::{json, Map, Value};

use crate::helpers::{
    content_chunk, embedding_of, finish_chunk, role_chunk, tool_call_chunk, usage_chunk,
    FakeOpenAi, Route,
};

const KEY: &str = "sk-test-key-0123456789";
const LONG: Duration = Duration::from_secs(30);

fn http() -> reqwest::Client {
    reqwest::Client::new()
}

fn extra(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("extra args must be an object, got {other}"),
    }
}

fn request(extra_args: Value) -> ChatRequest {
    ChatRequest {
        model: "gpt-test".into(),
        messages: vec![
            ChatMessage::text("system", "You are terse."),
            ChatMessage::text("user", "Say hello"),
        ],
        tools: Vec::new(),
        extra: extra(extra_args),
    }
}

fn weather_tool() -> ToolSpec {
    ToolSpec {
        name: "get_weather".into(),
        description: "The weather in a city".into(),
        parameters: json!({
            "type": "object",
            "properties": { "city": { "type": "string" } },
            "required": ["city"],
        }),
    }
}

/// Runs a streaming call to the end: every event, or the first error.
async fn stream_all(
    http: &reqwest::Client,
    ep: &llm::Endpoint,
    req: &ChatRequest,
) -> Result<Vec<StreamEvent>, UpstreamError> {
    let mut stream = llm::chat_stream(http, ep, req).await?;
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event?);
    }
    Ok(events)
}

/// The `Done` event at the end of a stream, asserting nothing follows it.
fn done_of(events: &[StreamEvent]) -> (ChatMessage, Usage, Option<String>) {
    let dones: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, StreamEvent::Done { .. }))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        dones,
        vec![events.len() - 1],
        "exactly one Done, at the end: {events:#?}"
    );
    match events.last() {
        Some(StreamEvent::Done {
            message,
            usage,
            finish_reason,
        }) => (message.clone(), *usage, finish_reason.clone()),
        other => panic!("the stream did not end with Done: {other:?}"),
    }
}

fn contents(events: &[StreamEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Content(t) => Some(t.clone()),
            StreamEvent::Done { .. } => None,
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Chat
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_plain_chat_returns_content_usage_and_finish_reason() {
    let fake = FakeOpenAi::start().await;
    fake.mount_chat("Hello there").await;
    let ep = fake.endpoint(Some(KEY), LONG);
    let res = llm::chat(&http(), &ep, &request(json!({})))
        .await
        .expect("chat succeeds");
    assert_eq!(res.message.role, "assistant");
    assert_eq!(res.message.content.as_deref(), Some("Hello there"));
    assert_eq!(res.message.tool_calls, None);
    assert_eq!(
        res.usage,
        Usage {
            prompt_tokens: 12,
            completion_tokens: 5,
            total_tokens: 17
        }
    );
    assert_eq!(res.finish_reason.as_deref(), Some("stop"));

    let sent = fake.only(Route::Chat).await;
    assert_eq!(sent.authorization(), Some(format!("Bearer {KEY}").as_str()));
    assert!(
        sent.header("content-type")
            .is_some_and(|c| c.starts_with("application/json")),
        "{sent:?}"
    );
    assert_eq!(sent.body["model"], "gpt-test");
    assert_eq!(
        sent.body["messages"],
        json!([
            { "role": "system", "content": "You are terse." },
            { "role": "user", "content": "Say hello" },
        ])
    );
    // Not streaming, no tools.
    assert!(
        sent.body.get("stream").is_none() || sent.body["stream"] == false,
        "{}",
        sent.body
    );
    assert!(sent.body.get("stream_options").is_none(), "{}", sent.body);
    assert!(sent.body.get("tools").is_none(), "{}", sent.body);
    assert!(sent.body.get("tool_choice").is_none(), "{}", sent.body);
}

#[tokio::test]
async fn an_answer_with_content_parts_carries_its_text_and_images() {
    let fake = FakeOpenAi::start().await;
    let mut completion = crate::helpers::chat_completion("");
    completion["choices"][0]["message"]["content"] = json!([
        { "type": "text", "text": "A cat: " },
        { "type": "image_url", "image_url": { "url": "data:image/png;base64,iVBORw0KGgo=" } },
        { "type": "text", "text": "and a dog" },
        { "type": "image_url", "image_url": { "url": "https://img.example/dog.png" } },
        { "type": "image_url", "image_url": { "url": "file:///etc/passwd" } },
        { "type": "input_audio", "input_audio": {} },
    ]);
    fake.respond(
        Route::Chat,
        wiremock::ResponseTemplate::new(200).set_body_json(completion),
    )
    .await;
    let ep = fake.endpoint(Some(KEY), LONG);
    let res = llm::chat(&http(), &ep, &request(json!({})))
        .await
        .expect("a part list is an answer");
    assert_eq!(res.message.content.as_deref(), Some("A cat: and a dog"));
    assert_eq!(
        res.message.images,
        [
            "data:image/png;base64,iVBORw0KGgo=",
            "https://img.example/dog.png"
        ],
        "image parts kept in order; a file: URL is not an image to send"
    );
}

#[tokio::test]
async fn extra_args_become_body_fields_and_headers_and_reserved_keys_stay_home() {
    let fake = FakeOpenAi::start().await;
    fake.mount_chat("ok").await;
    let ep = fake.endpoint(Some(KEY), LONG);
    let req = request(json!({
        "temperature": 0.2,
        "max_tokens": 50,
        "user": "u-1",
        "timeout": 9,
        "reasoning_config": { "level": "low" },
        "request_policy": { "retries": 2 },
        "prompt_caching": true,
        "extra_body": { "top_k": 3, "repetition_penalty": 1.1 },
        "extra_headers": { "X-Trace": "trace-1" },
    }));
    llm::chat(&http(), &ep, &req).await.expect("chat succeeds");
    let sent = fake.only(Route::Chat).await;
    assert_eq!(sent.body["temperature"], 0.2);
    assert_eq!(sent.body["max_tokens"], 50);
    assert_eq!(sent.body["user"], "u-1");
    // The reasoning level becomes the protocol's own field.
    assert_eq!(sent.body["reasoning_effort"], "low");
    // `extra_body` is flattened into the body.
    assert_eq!(sent.body["top_k"], 3);
    assert_eq!(sent.body["repetition_penalty"], 1.1);
    for reserved in [
        "timeout",
        "reasoning_config",
        "request_policy",
        "prompt_caching",
        "extra_body",
        "extra_headers",
    ] {
        assert!(
            sent.body.get(reserved).is_none(),
            "{reserved} must not be forwarded: {}",
            sent.body
        );
    }
    // `extra_headers` become headers.
    assert_eq!(sent.header("x-trace"), Some("trace-1"));
    assert_eq!(sent.authorization(), Some(format!("Bearer {KEY}").as_str()));
}

#[tokio::test]
async fn without_a_key_no_authorization_header_is_sent() {
    let fake = FakeOpenAi::start().await;
    fake.mount_chat("ok").await;
    for key in [None, Some("")] {
        let ep = fake.endpoint(key, LONG);
        llm::chat(&http(), &ep, &request(json!({})))
            .await
            .expect("chat succeeds");
    }
    let sent = fake.received_on(Route::Chat).await;
    assert_eq!(sent.len(), 2);
    for r in sent {
        assert_eq!(r.authorization(), None, "{r:?}");
    }
}

#[tokio::test]
async fn a_tool_call_reply_carries_the_calls_and_the_tools_are_sent() {
    let fake = FakeOpenAi::start().await;
    fake.mount_chat_tool_call("call_abc", "get_weather", r#"{"city":"Paris"}"#)
        .await;
    let ep = fake.endpoint(Some(KEY), LONG);
    let mut req = request(json!({}));
    req.tools = vec![weather_tool()];
    // A conversation that already went through one tool round trip.
    req.messages.push(ChatMessage {
        role: "assistant".into(),
        content: None,
        tool_calls: Some(vec![serde_json::from_value::<ToolCall>(json!({
            "id": "call_prev",
            "type": "function",
            "function": { "name": "get_weather", "arguments": "{\"city\":\"Oslo\"}" },
        }))
        .expect("a tool call")]),
        tool_call_id: None,
        images: Vec::new(),
    });
    req.messages.push(ChatMessage {
        role: "tool".into(),
        content: Some("{\"temp\":3}".into()),
        tool_calls: None,
        tool_call_id: Some("call_prev".into()),
        images: Vec::new(),
    });

    let res = llm::chat(&http(), &ep, &req).await.expect("chat succeeds");
    assert_eq!(res.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(
        res.message.content.as_deref(),
        Some(""),
        "null content becomes \"\""
    );
    let calls = res.message.tool_calls.expect("tool calls");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].id, "call_abc");
    assert_eq!(calls[0].kind, "function");
    assert_eq!(calls[0].function.name, "get_weather");
    assert_eq!(calls[0].function.arguments, r#"{"city":"Paris"}"#);
    assert_eq!(res.usage.total_tokens, 39);

    let sent = fake.only(Route::Chat).await;
    assert_eq!(
        sent.body["tools"],
        json!([{
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "The weather in a city",
                "parameters": {
                    "type": "object",
                    "properties": { "city": { "type": "string" } },
                    "required": ["city"],
                },
            },
        }])
    );
    assert_eq!(sent.body["tool_choice"], "auto");
    let messages = sent.body["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[2]["role"], "assistant");
    assert_eq!(messages[2]["tool_calls"][0]["id"], "call_prev");
    assert_eq!(messages[2]["tool_calls"][0]["type"], "function");
    assert_eq!(
        messages[2]["tool_calls"][0]["function"],
        json!({ "name": "get_weather", "arguments": "{\"city\":\"Oslo\"}" })
    );
    assert_eq!(
        messages[3],
        json!({ "role": "tool", "content": "{\"temp\":3}", "tool_call_id": "call_prev" })
    );
}

// ---------------------------------------------------------------------------------------------
// Streaming
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn streaming_yields_the_deltas_in_order_then_the_assembled_message() {
    let fake = FakeOpenAi::start().await;
    fake.mount_chat_stream(&[
        role_chunk(),
        content_chunk("Hel"),
        content_chunk("lo"),
        content_chunk(", world"),
        finish_chunk("stop"),
        usage_chunk(7, 3),
    ])
    .await;
    let ep = fake.endpoint(Some(KEY), LONG);
    let req = request(json!({ "temperature": 0 }));
    let events = stream_all(&http(), &ep, &req)
        .await
        .expect("stream succeeds");
    assert_eq!(contents(&events), vec!["Hel", "lo", ", world"]);
    assert_eq!(
        events[..3],
        [
            StreamEvent::Content("Hel".into()),
            StreamEvent::Content("lo".into()),
            StreamEvent::Content(", world".into()),
        ]
    );
    let (message, usage, finish) = done_of(&events);
    assert_eq!(message.role, "assistant");
    assert_eq!(message.content.as_deref(), Some("Hello, world"));
    assert_eq!(message.tool_calls, None);
    assert_eq!(
        usage,
        Usage {
            prompt_tokens: 7,
            completion_tokens: 3,
            total_tokens: 10
        },
        "the usage comes from the last chunk"
    );
    assert_eq!(finish.as_deref(), Some("stop"));

    let sent = fake.only(Route::Chat).await;
    assert_eq!(sent.authorization(), Some(format!("Bearer {KEY}").as_str()));
    assert_eq!(sent.body["stream"], true);
    assert_eq!(
        sent.body["stream_options"],
        json!({ "include_usage": true })
    );
    assert_eq!(sent.body["model"], "gpt-test");
    assert_eq!(sent.body["temperature"], 0);
    assert_eq!(sent.body["messages"][1]["content"], "Say hello");
}

#[tokio::test]
async fn streamed_tool_calls_are_assembled_from_their_deltas() {
    let fake = FakeOpenAi::start().await;
    fake.mount_chat_stream(&[
        role_chunk(),
        content_chunk("Let me check."),
        tool_call_chunk(0, Some("call_1"), Some("get_weather"), ""),
        tool_call_chunk(0, None, None, "{\"city\":"),
        tool_call_chunk(1, Some("call_2"), Some("get_time"), "{\"tz\":"),
        tool_call_chunk(0, None, None, "\"Paris\"}"),
        tool_call_chunk(1, None, None, "\"CET\"}"),
        finish_chunk("tool_calls"),
        usage_chunk(40, 20),
    ])
    .await;
    let ep = fake.endpoint(Some(KEY), LONG);
    let mut req = request(json!({}));
    req.tools = vec![
        weather_tool(),
        ToolSpec {
            name: "get_time".into(),
            description: "The time in a zone".into(),
            parameters: json!({ "type": "object", "properties": { "tz": { "type": "string" } } }),
        },
    ];
    let events = stream_all(&http(), &ep, &req)
        .await
        .expect("stream succeeds");
    assert_eq!(contents(&events), vec!["Let me check."]);
    let (message, usage, finish) = done_of(&events);
    assert_eq!(finish.as_deref(), Some("tool_calls"));
    assert_eq!(usage.total_tokens, 60);
    assert_eq!(message.content.as_deref(), Some("Let me check."));
    let calls = message.tool_calls.expect("tool calls");
    let got: Vec<(&str, &str, &str, &str)> = calls
        .iter()
        .map(|c| {
            (
                c.id.as_str(),
                c.kind.as_str(),
                c.function.name.as_str(),
                c.function.arguments.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("call_1", "function", "get_weather", "{\"city\":\"Paris\"}"),
            ("call_2", "function", "get_time", "{\"tz\":\"CET\"}"),
        ]
    );
    let sent = fake.only(Route::Chat).await;
    assert_eq!(sent.body["tools"].as_array().map(Vec::len), Some(2));
    assert_eq!(sent.body["tool_choice"], "auto");
}

#[tokio::test]
async fn an_error_chunk_in_the_stream_is_an_upstream_error() {
    let fake = FakeOpenAi::start().await;
    fake.mount_chat_stream(&[
        content_chunk("partial"),
        json!({ "error": { "message": "the model crashed", "type": "server_error" } }),
    ])
    .await;
    let ep = fake.endpoint(Some(KEY), LONG);
    let mut stream = llm::chat_stream(&http(), &ep, &request(json!({})))
        .await
        .expect("the stream opens");
    assert_eq!(
        stream.next().await.map(|r| r.ok()),
        Some(Some(StreamEvent::Content("partial".into())))
    );
    let err = stream
        .next()
        .await
        .expect("an item")
        .expect_err("the error chunk fails the stream");
    assert_eq!(err.code, UpstreamCode::UpstreamError);
    assert!(
        stream.next().await.is_none(),
        "nothing after the error, in particular no Done"
    );
}

// ---------------------------------------------------------------------------------------------
// Embeddings and rerank
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn embeddings_come_back_in_input_order() {
    let fake = FakeOpenAi::start().await;
    fake.mount_embeddings().await;
    let ep = fake.endpoint(Some(KEY), LONG);
    let inputs: Vec<String> = ["alpha", "be", "gamma ray", "δ"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let vectors = llm::embed(
        &http(),
        &ep,
        "text-embedding-3-small",
        &inputs,
        &extra(json!({ "dimensions": 3, "timeout": 5 })),
    )
    .await
    .expect("embed succeeds");
    let expected: Vec<Vec<f64>> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| embedding_of(i, t))
        .collect();
    assert_eq!(
        vectors, expected,
        "the fake lists them in reverse; the client orders by index"
    );

    let sent = fake.only(Route::Embeddings).await;
    assert_eq!(sent.authorization(), Some(format!("Bearer {KEY}").as_str()));
    assert_eq!(sent.body["model"], "text-embedding-3-small");
    assert_eq!(sent.body["input"], json!(["alpha", "be", "gamma ray", "δ"]));
    assert_eq!(sent.body["dimensions"], 3);
    assert!(sent.body.get("timeout").is_none(), "{}", sent.body);
}

#[tokio::test]
async fn rerank_hits_are_sorted_by_score() {
    let fake = FakeOpenAi::start().await;
    fake.mount_rerank(&[0.1, 0.9, 0.5]).await;
    let ep = fake.endpoint(Some(KEY), LONG);
    let docs: Vec<String> = ["cats", "artificial intelligence", "machine learning"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let hits = llm::rerank(
        &http(),
        &ep,
        "jina-reranker-v2",
        "What is AI?",
        &docs,
        &extra(json!({ "return_documents": false })),
    )
    .await
    .expect("rerank succeeds");
    let got: Vec<(usize, f64)> = hits.iter().map(|h| (h.index, h.relevance_score)).collect();
    assert_eq!(got, vec![(1, 0.9), (2, 0.5), (0, 0.1)]);

    let sent = fake.only(Route::Rerank).await;
    assert_eq!(sent.authorization(), Some(format!("Bearer {KEY}").as_str()));
    assert_eq!(sent.body["model"], "jina-reranker-v2");
    assert_eq!(sent.body["query"], "What is AI?");
    assert_eq!(
        sent.body["documents"],
        json!(["cats", "artificial intelligence", "machine learning"])
    );
    assert_eq!(sent.body["top_n"], 3);
    assert_eq!(sent.body["return_documents"], false);
}

// ---------------------------------------------------------------------------------------------
// Error mapping
// ---------------------------------------------------------------------------------------------

/// Every client call against a fake whose routes all fail the same way.
async fn every_call(fake: &FakeOpenAi, ep: &llm::Endpoint) -> Vec<(&'static str, UpstreamError)> {
    let http = http();
    let req = request(json!({}));
    let docs = vec!["a".to_string(), "b".to_string()];
    let mut out = Vec::new();
    out.push((
        "chat",
        llm::chat(&http, ep, &req)
            .await
            .expect_err("chat must fail"),
    ));
    out.push((
        "chat_stream",
        stream_all(&http, ep, &req)
            .await
            .expect_err("chat_stream must fail"),
    ));
    out.push((
        "embed",
        llm::embed(&http, ep, "emb", &docs, &Map::new())
            .await
            .expect_err("embed must fail"),
    ));
    out.push((
        "rerank",
        llm::rerank(&http, ep, "rr", "q", &docs, &Map::new())
            .await
            .expect_err("rerank must fail"),
    ));
    // Every call reached the fake (none failed before sending).
    for route in Route::ALL {
        assert!(
            !fake.received_on(route).await.is_empty(),
            "nothing reached {}",
            route.suffix()
        );
    }
    out
}

#[tokio::test]
async fn a_401_is_authentication() {
    let fake = FakeOpenAi::start().await;
    for route in Route::ALL {
        fake.mount_unauthorized(route, KEY).await;
    }
    let ep = fake.endpoint(Some(KEY), LONG);
    for (call, err) in every_call(&fake, &ep).await {
        assert_eq!(err.code, UpstreamCode::Authentication, "{call}: {err:?}");
        assert_eq!(err.status, Some(401), "{call}: {err:?}");
    }
}

#[tokio::test]
async fn a_429_is_rate_limit() {
    let fake = FakeOpenAi::start().await;
    for route in Route::ALL {
        fake.mount_rate_limited(route).await;
    }
    let ep = fake.endpoint(Some(KEY), LONG);
    for (call, err) in every_call(&fake, &ep).await {
        assert_eq!(err.code, UpstreamCode::RateLimit, "{call}: {err:?}");
        assert_eq!(err.status, Some(429), "{call}: {err:?}");
    }
}

#[tokio::test]
async fn a_400_context_length_exceeded_is_context_length() {
    let fake = FakeOpenAi::start().await;
    for route in Route::ALL {
        fake.mount_context_length_exceeded(route).await;
    }
    let ep = fake.endpoint(Some(KEY), LONG);
    for (call, err) in every_call(&fake, &ep).await {
        assert_eq!(err.code, UpstreamCode::ContextLength, "{call}: {err:?}");
        assert_eq!(err.status, Some(400), "{call}: {err:?}");
    }
}

#[tokio::test]
async fn another_400_is_an_upstream_error_not_context_length() {
    let fake = FakeOpenAi::start().await;
    for route in Route::ALL {
        fake.mount_error(
            route,
            400,
            crate::helpers::openai_error(
                "Invalid value for 'temperature'",
                "invalid_request_error",
                Some("invalid_value"),
            ),
        )
        .await;
    }
    let ep = fake.endpoint(Some(KEY), LONG);
    for (call, err) in every_call(&fake, &ep).await {
        assert_eq!(err.code, UpstreamCode::UpstreamError, "{call}: {err:?}");
        assert_eq!(err.status, Some(400), "{call}: {err:?}");
    }
}

#[tokio::test]
async fn a_500_is_an_upstream_error_with_its_status() {
    let fake = FakeOpenAi::start().await;
    for route in Route::ALL {
        fake.mount_server_error(route).await;
    }
    let ep = fake.endpoint(Some(KEY), LONG);
    for (call, err) in every_call(&fake, &ep).await {
        assert_eq!(err.code, UpstreamCode::UpstreamError, "{call}: {err:?}");
        assert_eq!(err.status, Some(500), "{call}: {err:?}");
    }
}

#[tokio::test]
async fn a_slow_upstream_is_a_timeout() {
    let fake = FakeOpenAi::start().await;
    for route in Route::ALL {
        fake.mount_slow(route, Duration::from_secs(4)).await;
    }
    let ep = fake.endpoint(Some(KEY), Duration::from_secs(1));
    let http = http();
    let req = request(json!({}));
    let docs = vec!["a".to_string(), "b".to_string()];

    let started = Instant::now();
    let err = llm::chat(&http, &ep, &req)
        .await
        .expect_err("chat times out");
    assert_eq!(err.code, UpstreamCode::Timeout, "{err:?}");
    assert_eq!(err.status, None);
    assert!(
        started.elapsed() < Duration::from_millis(3500),
        "chat waited {:?} for a 1 s timeout",
        started.elapsed()
    );

    let started = Instant::now();
    let err = stream_all(&http, &ep, &req)
        .await
        .expect_err("chat_stream times out");
    assert_eq!(err.code, UpstreamCode::Timeout, "{err:?}");
    assert_eq!(err.status, None);
    assert!(
        started.elapsed() < Duration::from_millis(3500),
        "chat_stream waited {:?} for a 1 s timeout",
        started.elapsed()
    );

    let err = llm::embed(&http, &ep, "emb", &docs, &Map::new())
        .await
        .expect_err("embed times out");
    assert_eq!(err.code, UpstreamCode::Timeout, "{err:?}");
    let err = llm::rerank(&http, &ep, "rr", "q", &docs, &Map::new())
        .await
        .expect_err("rerank times out");
    assert_eq!(err.code, UpstreamCode::Timeout, "{err:?}");
}

#[tokio::test]
async fn an_unreachable_upstream_is_an_upstream_error_without_status() {
    // Bind and drop a listener: nothing listens on that port any more.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let ep = llm::Endpoint {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        api_key: Some(KEY.into()),
        timeout: Duration::from_secs(5),
        protocol: llm::Protocol::OpenAi,
    };
    let err = llm::chat(&http(), &ep, &request(json!({})))
        .await
        .expect_err("nothing listens");
    assert_eq!(err.code, UpstreamCode::UpstreamError, "{err:?}");
    assert_eq!(err.status, None);
    assert!(
        !err.message.contains(KEY),
        "the key leaked: {}",
        err.message
    );
}
