//! A fake OpenAI-compatible upstream on `wiremock`: chat completions (a plain reply, a tool
//! call, an SSE stream), embeddings, Jina-shaped rerank, error replies and slow replies; and
//! what it received, so tests can check the Authorization header and the JSON bodies.
//!
//! Everything is served under `/v1`, so `base_url()` is `http://127.0.0.1:<port>/v1` — the
//! way providers are configured in practice — and a client that drops the base path misses.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// The path prefix every route is served under.
const PREFIX: &str = "/v1";

/// The upstream endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    Chat,
    Embeddings,
    Rerank,
}

impl Route {
    pub const ALL: [Route; 3] = [Route::Chat, Route::Embeddings, Route::Rerank];

    /// The path below the base URL.
    pub fn suffix(self) -> &'static str {
        match self {
            Route::Chat => "/chat/completions",
            Route::Embeddings => "/embeddings",
            Route::Rerank => "/rerank",
        }
    }

    fn path(self) -> String {
        format!("{PREFIX}{}", self.suffix())
    }
}

/// One request the fake upstream received.
#[derive(Debug, Clone)]
pub struct Received {
    /// The path, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Header values by lower-case name.
    pub headers: BTreeMap<String, Vec<String>>,
    /// The body parsed as JSON (`Value::Null` when it is not JSON).
    pub body: Value,
}

impl Received {
    pub(crate) fn of(req: &Request) -> Self {
        let mut headers: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (name, value) in &req.headers {
            headers
                .entry(name.as_str().to_ascii_lowercase())
                .or_default()
                .push(String::from_utf8_lossy(value.as_bytes()).into_owned());
        }
        Self {
            path: req.url.path().to_string(),
            headers,
            body: req.body_json().unwrap_or(Value::Null),
        }
    }

    /// The single value of a header (panics when it was sent more than once).
    pub fn header(&self, name: &str) -> Option<&str> {
        let values = self.headers.get(&name.to_ascii_lowercase())?;
        assert_eq!(
            values.len(),
            1,
            "header {name} was sent {} times: {values:?}",
            values.len()
        );
        values.first().map(String::as_str)
    }

    pub fn authorization(&self) -> Option<&str> {
        self.header("authorization")
    }
}

/// A fake OpenAI-compatible server.
pub struct FakeOpenAi {
    server: MockServer,
}

impl FakeOpenAi {
    pub async fn start() -> Self {
        Self {
            server: MockServer::start().await,
        }
    }

    /// The base URL to configure a provider with (`…/v1`).
    pub fn base_url(&self) -> String {
        format!("{}{PREFIX}", self.server.uri())
    }

    /// An endpoint for calling `langbot::llm` directly.
    pub fn endpoint(&self, api_key: Option<&str>, timeout: Duration) -> langbot::llm::Endpoint {
        langbot::llm::Endpoint {
            base_url: self.base_url(),
            api_key: api_key.map(str::to_string),
            timeout,
            protocol: langbot::llm::Protocol::OpenAi,
        }
    }

    /// Forgets every mounted reply and every received request.
    pub async fn reset(&self) {
        self.server.reset().await;
    }

    /// Answers `route` (POST) with `responder`.
    pub async fn respond(&self, route: Route, responder: impl Respond + 'static) {
        Mock::given(method("POST"))
            .and(path(route.path()))
            .respond_with(responder)
            .mount(&self.server)
            .await;
    }

    /// A plain chat reply with usage (12 prompt + 5 completion tokens).
    pub async fn mount_chat(&self, content: &str) {
        self.respond(
            Route::Chat,
            ResponseTemplate::new(200).set_body_json(chat_completion(content)),
        )
        .await;
    }

    /// A chat reply that calls one tool (content null, finish_reason `tool_calls`).
    pub async fn mount_chat_tool_call(&self, id: &str, name: &str, arguments: &str) {
        self.respond(
            Route::Chat,
            ResponseTemplate::new(200).set_body_json(tool_call_completion(id, name, arguments)),
        )
        .await;
    }

    /// A streaming chat reply: `data: {chunk}\n\n` per chunk, then `data: [DONE]`.
    pub async fn mount_chat_stream(&self, chunks: &[Value]) {
        self.respond(
            Route::Chat,
            ResponseTemplate::new(200)
                .insert_header("cache-control", "no-cache")
                .set_body_raw(sse(chunks), "text/event-stream"),
        )
        .await;
    }

    /// Embeddings: one vector per input, `[i, len(input_i), 0.5]`, listed in *reverse* order
    /// with their `index`, so a client must order them by index.
    pub async fn mount_embeddings(&self) {
        self.respond(Route::Embeddings, |req: &Request| {
            let body: Value = req.body_json().unwrap_or(Value::Null);
            let inputs: Vec<String> = match &body["input"] {
                Value::String(s) => vec![s.clone()],
                Value::Array(items) => items
                    .iter()
                    .map(|v| v.as_str().unwrap_or_default().to_string())
                    .collect(),
                _ => {
                    return ResponseTemplate::new(400).set_body_json(openai_error(
                        "input is required",
                        "invalid_request_error",
                        None,
                    ))
                }
            };
            let data: Vec<Value> = inputs
                .iter()
                .enumerate()
                .rev()
                .map(|(i, text)| {
                    json!({
                        "object": "embedding",
                        "index": i,
                        "embedding": embedding_of(i, text),
                    })
                })
                .collect();
            ResponseTemplate::new(200).set_body_json(json!({
                "object": "list",
                "data": data,
                "model": body["model"],
                "usage": { "prompt_tokens": inputs.len(), "total_tokens": inputs.len() },
            }))
        })
        .await;
    }

    /// Jina-shaped rerank: document `i` scores `scores[i]`; results listed in index order
    /// (not sorted by score).
    pub async fn mount_rerank(&self, scores: &[f64]) {
        let results: Vec<Value> = scores
            .iter()
            .enumerate()
            .map(|(i, s)| json!({ "index": i, "relevance_score": s }))
            .collect();
        self.respond(
            Route::Rerank,
            ResponseTemplate::new(200).set_body_json(json!({
                "model": "fake-rerank",
                "results": results,
                "usage": { "total_tokens": 10 },
            })),
        )
        .await;
    }

    /// An error reply with a JSON body.
    pub async fn mount_error(&self, route: Route, status: u16, body: Value) {
        self.respond(route, ResponseTemplate::new(status).set_body_json(body))
            .await;
    }

    /// 401 with OpenAI's error body; the message echoes `echoed` (as OpenAI does with a
    /// truncated key — here the whole key, to prove it is scrubbed).
    pub async fn mount_unauthorized(&self, route: Route, echoed: &str) {
        self.mount_error(
            route,
            401,
            openai_error(
                &format!("Incorrect API key provided: {echoed}. You can find your API key at https://platform.openai.com/account/api-keys."),
                "invalid_request_error",
                Some("invalid_api_key"),
            ),
        )
        .await;
    }

    /// 429 rate limited, with `Retry-After`.
    pub async fn mount_rate_limited(&self, route: Route) {
        self.respond(
            route,
            ResponseTemplate::new(429)
                .insert_header("retry-after", "7")
                .set_body_json(openai_error(
                    "Rate limit reached for requests",
                    "requests",
                    Some("rate_limit_exceeded"),
                )),
        )
        .await;
    }

    /// 500 with a non-JSON body.
    pub async fn mount_server_error(&self, route: Route) {
        self.respond(
            route,
            ResponseTemplate::new(500).set_body_string("upstream exploded"),
        )
        .await;
    }

    /// 400 `context_length_exceeded`.
    pub async fn mount_context_length_exceeded(&self, route: Route) {
        self.mount_error(
            route,
            400,
            openai_error(
                "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
                "invalid_request_error",
                Some("context_length_exceeded"),
            ),
        )
        .await;
    }

    /// A success reply for `route` that only arrives after `delay`.
    pub async fn mount_slow(&self, route: Route, delay: Duration) {
        self.respond(route, success_template(route).set_delay(delay))
            .await;
    }

    /// A success reply for `route` only with `Authorization: Bearer <key>`; any other
    /// credential gets 401 (the error echoes nothing).
    pub async fn mount_requiring_key(&self, route: Route, key: &str) {
        Mock::given(method("POST"))
            .and(path(route.path()))
            .and(header("authorization", format!("Bearer {key}").as_str()))
            .respond_with(success_template(route))
            .with_priority(1)
            .mount(&self.server)
            .await;
        Mock::given(method("POST"))
            .and(path(route.path()))
            .respond_with(ResponseTemplate::new(401).set_body_json(openai_error(
                "Incorrect API key provided.",
                "invalid_request_error",
                Some("invalid_api_key"),
            )))
            .with_priority(10)
            .mount(&self.server)
            .await;
    }

    /// Every request received, in order.
    pub async fn received(&self) -> Vec<Received> {
        self.server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .map(Received::of)
            .collect()
    }

    /// The requests received on `route`, in order.
    pub async fn received_on(&self, route: Route) -> Vec<Received> {
        let path = route.path();
        self.received()
            .await
            .into_iter()
            .filter(|r| r.path == path)
            .collect()
    }

    /// The only request received on `route` (panics otherwise).
    pub async fn only(&self, route: Route) -> Received {
        let mut all = self.received_on(route).await;
        assert_eq!(
            all.len(),
            1,
            "expected exactly one request on {}, got {all:#?}",
            route.suffix()
        );
        all.remove(0)
    }
}

/// A canned success reply for a route (used by slow and key-checking mounts).
fn success_template(route: Route) -> ResponseTemplate {
    let body = match route {
        Route::Chat => chat_completion("Hello"),
        Route::Embeddings => json!({
            "object": "list",
            "data": [{ "object": "embedding", "index": 0, "embedding": [0.1, 0.2, 0.3] }],
            "usage": { "prompt_tokens": 3, "total_tokens": 3 },
        }),
        Route::Rerank => json!({
            "results": [
                { "index": 0, "relevance_score": 0.9 },
                { "index": 1, "relevance_score": 0.1 },
            ],
        }),
    };
    ResponseTemplate::new(200).set_body_json(body)
}

/// The deterministic fake embedding of input `i`.
pub fn embedding_of(i: usize, text: &str) -> Vec<f64> {
    vec![i as f64, text.chars().count() as f64, 0.5]
}

/// OpenAI's error body.
pub fn openai_error(message: &str, kind: &str, code: Option<&str>) -> Value {
    json!({ "error": { "message": message, "type": kind, "param": null, "code": code } })
}

/// A usage object.
pub fn usage(prompt: u64, completion: u64) -> Value {
    json!({
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    })
}

/// A non-streaming completion answering `content`, with usage 12 + 5.
pub fn chat_completion(content: &str) -> Value {
    json!({
        "id": "chatcmpl-fake-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "fake-model",
        "choices": [{
            "index": 0,
            "message": { "role": "assistant", "content": content },
            "finish_reason": "stop",
        }],
        "usage": usage(12, 5),
    })
}

/// A non-streaming completion that calls one tool.
pub fn tool_call_completion(id: &str, name: &str, arguments: &str) -> Value {
    json!({
        "id": "chatcmpl-fake-2",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "fake-model",
        "choices": [{
            "index": 0,
            "message": {
                "role": "assistant",
                "content": null,
                "tool_calls": [{
                    "id": id,
                    "type": "function",
                    "function": { "name": name, "arguments": arguments },
                }],
            },
            "finish_reason": "tool_calls",
        }],
        "usage": usage(30, 9),
    })
}

fn chunk(delta: Value, finish_reason: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-fake-stream",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "fake-model",
        "choices": [{ "index": 0, "delta": delta, "finish_reason": finish_reason }],
    })
}

/// The first chunk of a stream: the role, no content.
pub fn role_chunk() -> Value {
    chunk(json!({ "role": "assistant", "content": "" }), None)
}

/// A content delta.
pub fn content_chunk(text: &str) -> Value {
    chunk(json!({ "content": text }), None)
}

/// A content delta as a list of parts (`text`, `image_url`).
pub fn content_parts_chunk(parts: Value) -> Value {
    chunk(json!({ "content": parts }), None)
}

/// An `image_url` content part.
pub fn image_part(url: &str) -> Value {
    json!({ "type": "image_url", "image_url": { "url": url } })
}

/// A tool-call delta; `id` and `name` come only in the first delta of a call.
pub fn tool_call_chunk(index: u64, id: Option<&str>, name: Option<&str>, arguments: &str) -> Value {
    let mut call = json!({ "index": index, "function": { "arguments": arguments } });
    if let Some(id) = id {
        call["id"] = json!(id);
        call["type"] = json!("function");
    }
    if let Some(name) = name {
        call["function"]["name"] = json!(name);
    }
    chunk(json!({ "tool_calls": [call] }), None)
}

/// The chunk carrying the finish reason (empty delta).
pub fn finish_chunk(reason: &str) -> Value {
    chunk(json!({}), Some(reason))
}

/// The last chunk when `stream_options.include_usage` is set: no choices, the usage.
pub fn usage_chunk(prompt: u64, completion: u64) -> Value {
    json!({
        "id": "chatcmpl-fake-stream",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "fake-model",
        "choices": [],
        "usage": usage(prompt, completion),
    })
}

/// An SSE body: `data: {chunk}\n\n` per chunk, then `data: [DONE]\n\n`.
pub fn sse(chunks: &[Value]) -> String {
    let mut out = String::new();
    for c in chunks {
        out.push_str("data: ");
        out.push_str(&c.to_string());
        out.push_str("\n\n");
    }
    out.push_str("data: [DONE]\n\n");
    out
}

/// One tool call a scripted model answer asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptedCall {
    pub id: String,
    pub name: String,
    /// The `arguments` string exactly as sent (it may be malformed JSON on purpose).
    pub arguments: String,
}

/// A tool call `id` of `name` with `arguments` (a JSON value, sent as its text).
pub fn tool_call(id: &str, name: &str, arguments: Value) -> ScriptedCall {
    raw_tool_call(id, name, &arguments.to_string())
}

/// A tool call whose `arguments` string is sent as is (e.g. malformed JSON).
pub fn raw_tool_call(id: &str, name: &str, arguments: &str) -> ScriptedCall {
    ScriptedCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

/// One model answer of a [`ToolScript`].
#[derive(Debug, Clone)]
pub enum Round {
    /// Asks for these tool calls (all in one answer).
    Calls(Vec<ScriptedCall>),
    /// Answers text; [`RESULTS`] in it becomes this turn's `role:"tool"` contents of the
    /// request (see [`tool_results`]), joined by [`RESULTS_SEPARATOR`].
    Final(String),
}

/// Placeholder in a [`Round::Final`] text for the tool results the request carried.
pub const RESULTS: &str = "{results}";
pub const RESULTS_SEPARATOR: &str = " | ";

/// A scripted tool-calling model: which answer a request gets is decided by the request
/// itself, so the script restarts with every turn and concurrent turns do not interfere:
/// - a request offering no `tools` gets [`ToolScript::without_tools`] (the final answer the
///   backend asks for after the round cap);
/// - otherwise round `n` is answered, `n` = the assistant messages with `tool_calls` after the
///   last `role:"user"` message (the tool rounds this turn already had); past the end of the
///   script the last round is repeated (so `[Calls(..)]` alone never stops).
///
/// Streams (SSE chunks, usage last) when the request has `stream: true`, else answers JSON.
#[derive(Debug, Clone)]
pub struct ToolScript {
    pub rounds: Vec<Round>,
    /// The answer to a request without tools; [`RESULTS`] works as in [`Round::Final`].
    pub without_tools: String,
}

impl ToolScript {
    pub fn new(rounds: Vec<Round>) -> Self {
        Self {
            rounds,
            without_tools: format!("final without tools: {RESULTS}"),
        }
    }

    /// One round of `calls`, then the final text carrying the results.
    pub fn calls_then_results(calls: Vec<ScriptedCall>) -> Self {
        Self::new(vec![
            Round::Calls(calls),
            Round::Final(format!("results: {RESULTS}")),
        ])
    }

    /// Asks for `call` in every round, forever (only the round cap ends it); ids are made
    /// unique per round (`<id>-r<round>`).
    pub fn never_stopping(call: ScriptedCall) -> Self {
        Self::new(vec![Round::Calls(vec![call])])
    }

    /// The round a request is in (see the type's documentation).
    pub fn round_of(body: &Value) -> usize {
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        let after_user = messages
            .iter()
            .rposition(|m| m["role"] == "user")
            .map_or(0, |i| i + 1);
        messages[after_user..]
            .iter()
            .filter(|m| {
                m["role"] == "assistant"
                    && m["tool_calls"].as_array().is_some_and(|c| !c.is_empty())
            })
            .count()
    }

    /// What the script answers to `body`: tool calls, or text.
    pub fn answer(&self, body: &Value) -> Round {
        let offers_tools = body["tools"].as_array().is_some_and(|t| !t.is_empty());
        let results = tool_results(body).join(RESULTS_SEPARATOR);
        if !offers_tools {
            return Round::Final(self.without_tools.replace(RESULTS, &results));
        }
        let n = Self::round_of(body);
        let round = self
            .rounds
            .get(n)
            .or_else(|| self.rounds.last())
            .cloned()
            .unwrap_or_else(|| Round::Final(String::new()));
        match round {
            Round::Final(text) => Round::Final(text.replace(RESULTS, &results)),
            // Past the script's end a repeated round gets fresh ids.
            Round::Calls(calls) if n >= self.rounds.len() => Round::Calls(
                calls
                    .into_iter()
                    .map(|c| ScriptedCall {
                        id: format!("{}-r{n}", c.id),
                        ..c
                    })
                    .collect(),
            ),
            calls => calls,
        }
    }
}

/// The `content` of every `role:"tool"` message of a chat request after its last
/// `role:"user"` message (this turn's tool results), in order (text parts of an array content
/// are joined).
pub fn tool_results(body: &Value) -> Vec<String> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let after_user = messages
        .iter()
        .rposition(|m| m["role"] == "user")
        .map_or(0, |i| i + 1);
    messages[after_user..]
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join(""),
            other => other.to_string(),
        })
        .collect()
}

/// A non-streaming completion asking for `calls`.
pub fn tool_calls_completion(calls: &[ScriptedCall]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|c| {
            json!({
                "id": c.id,
                "type": "function",
                "function": { "name": c.name, "arguments": c.arguments },
            })
        })
        .collect();
    json!({
        "id": "chatcmpl-fake-tools",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "fake-model",
        "choices": [{
            "index": 0,
            "message": { "role": "assistant", "content": null, "tool_calls": calls },
            "finish_reason": "tool_calls",
        }],
        "usage": usage(30, 9),
    })
}

/// The SSE chunks of an answer: tool-call deltas (id and name first, the arguments in two
/// pieces) or text in two pieces; then the finish reason and the usage.
pub fn round_chunks(round: &Round) -> Vec<Value> {
    let mut chunks = vec![role_chunk()];
    match round {
        Round::Calls(calls) => {
            for (i, c) in calls.iter().enumerate() {
                let i = i as u64;
                let split = c
                    .arguments
                    .char_indices()
                    .nth(c.arguments.chars().count() / 2)
                    .map_or(c.arguments.len(), |(at, _)| at);
                let (a, b) = c.arguments.split_at(split);
                chunks.push(tool_call_chunk(i, Some(&c.id), Some(&c.name), a));
                if !b.is_empty() {
                    chunks.push(tool_call_chunk(i, None, None, b));
                }
            }
            chunks.push(finish_chunk("tool_calls"));
            chunks.push(usage_chunk(30, 9));
        }
        Round::Final(text) => {
            let split = text
                .char_indices()
                .nth(text.chars().count() / 2)
                .map_or(text.len(), |(at, _)| at);
            let (a, b) = text.split_at(split);
            chunks.push(content_chunk(a));
            if !b.is_empty() {
                chunks.push(content_chunk(b));
            }
            chunks.push(finish_chunk("stop"));
            chunks.push(usage_chunk(12, 5));
        }
    }
    chunks
}

impl Respond for ToolScript {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let body: Value = req.body_json().unwrap_or(Value::Null);
        let round = self.answer(&body);
        if body["stream"] == true {
            ResponseTemplate::new(200)
                .insert_header("cache-control", "no-cache")
                .set_body_raw(sse(&round_chunks(&round)), "text/event-stream")
        } else {
            let json = match &round {
                Round::Calls(calls) => tool_calls_completion(calls),
                Round::Final(text) => chat_completion(text),
            };
            ResponseTemplate::new(200).set_body_json(json)
        }
    }
}

impl FakeOpenAi {
    /// Answers chat completions with a scripted tool-calling model (see [`ToolScript`]).
    pub async fn mount_tool_script(&self, script: ToolScript) {
        self.respond(Route::Chat, script).await;
    }

    /// The bodies of every chat completion request, in order.
    pub async fn chat_bodies(&self) -> Vec<Value> {
        self.received_on(Route::Chat)
            .await
            .into_iter()
            .map(|r| r.body)
            .collect()
    }
}
