//! Fake upstreams speaking the native model protocols on `wiremock`: Anthropic Messages,
//! Ollama, Gemini, and the Cohere / Jina / Voyage rerank APIs. The chat fakes are scripted
//! tool-calling models: a request that offers tools and carries no tool result this turn gets
//! a call of `echo` (streamed when asked, in the protocol's own framing); one that carries
//! results gets `results: <the results>`; one without tools gets `Hello`. Usage: 30 + 9
//! tokens for a tool round, 12 + 5 for a text answer. Each fake checks what a real server
//! would refuse (credentials, required fields, turn order) and answers 400/401 like it.

pub mod anthropic;
pub mod gemini;
pub mod ollama;
pub mod rerank;

use serde_json::{json, Value};
use wiremock::{MockServer, Request, ResponseTemplate};

pub use super::fake_openai::Received;

/// The scripted call every chat fake makes.
pub const CALL_ID: &str = "call-echo-1";
pub const TOOL: &str = "echo";

/// A native fake: a mock server and what it received.
pub struct FakeNative {
    pub server: MockServer,
}

impl FakeNative {
    pub async fn start() -> Self {
        Self {
            server: MockServer::start().await,
        }
    }

    pub fn uri(&self) -> String {
        self.server.uri()
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

    /// The requests whose path contains `part`.
    pub async fn received_on(&self, part: &str) -> Vec<Received> {
        self.received()
            .await
            .into_iter()
            .filter(|r| r.path.contains(part))
            .collect()
    }
}

/// What a scripted model answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Call `echo` with `{"text": <words>}`.
    Call(String),
    Text(String),
}

/// The scripted answer given whether tools are offered and this turn's tool results.
pub fn answer(offers_tools: bool, results: &[String]) -> Answer {
    let words = WORDS;
    if !results.is_empty() {
        Answer::Text(format!("results: {}", results.join(" | ")))
    } else if offers_tools {
        Answer::Call(words.to_string())
    } else {
        Answer::Text("Hello".into())
    }
}

/// (input, output) tokens of an answer.
pub fn usage_of(answer: &Answer) -> (u64, u64) {
    match answer {
        Answer::Call(_) => (30, 9),
        Answer::Text(_) => (12, 5),
    }
}

/// Halves of a string, for sending in two deltas.
pub fn halves(s: &str) -> (&str, &str) {
    let at = s
        .char_indices()
        .nth(s.chars().count() / 2)
        .map_or(s.len(), |(i, _)| i);
    s.split_at(at)
}

/// The body as JSON, or a 400 in the shape `error(message)` gives.
pub fn body_of(
    req: &Request,
    error: impl Fn(&str) -> Value,
) -> Result<Value, Box<ResponseTemplate>> {
    req.body_json::<Value>()
        .map_err(|_| Box::new(ResponseTemplate::new(400).set_body_json(error("invalid JSON body"))))
}

/// `event:`-named SSE frames.
pub fn named_sse(events: &[(&str, Value)]) -> String {
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

/// Unnamed SSE frames.
pub fn sse(chunks: &[Value]) -> String {
    chunks.iter().map(|c| format!("data: {c}\n\n")).collect()
}

/// The words `echo` is called with.
pub const WORDS: &str = "from the native fake";

/// `{"text": words}` as the echo tool's arguments.
pub fn echo_args(words: &str) -> Value {
    json!({ "text": words })
}
