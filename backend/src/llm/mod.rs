//! Calling models: chat (plain and streaming, with tools and usage), embeddings and rerank,
//! over the wire protocol of the endpoint (`Protocol`): OpenAI-compatible HTTP, Anthropic
//! Messages, Ollama, Gemini, Voyage rerank. One shared connection pool (`AppState::http`).

mod anthropic;
mod chat;
mod error;
mod extras;
mod gemini;
mod ollama;
mod protocol;
pub mod reasoning;
mod retrieval;
mod stream;
mod types;

use serde_json::{Map, Value};

pub use error::{UpstreamCode, UpstreamError};
pub use protocol::Protocol;
pub use retrieval::RerankHit;
pub use stream::ChatStream;
pub use types::{
    ChatMessage, ChatRequest, ChatResponse, Endpoint, StreamEvent, ToolCall, ToolSpec, Usage,
};

fn unsupported(ep: &Endpoint, what: &str) -> UpstreamError {
    UpstreamError::new(
        UpstreamCode::UpstreamError,
        None,
        format!("the {:?} protocol has no {what} API", ep.protocol),
    )
}

/// One non-streaming chat call, bounded by the endpoint's timeout.
pub async fn chat(
    http: &reqwest::Client,
    ep: &Endpoint,
    req: &ChatRequest,
) -> Result<ChatResponse, UpstreamError> {
    match ep.protocol {
        Protocol::OpenAi => chat::chat(http, ep, req).await,
        Protocol::Anthropic => anthropic::chat(http, ep, req).await,
        Protocol::Ollama => ollama::chat(http, ep, req).await,
        Protocol::Gemini => gemini::chat(http, ep, req).await,
        Protocol::Voyage => Err(unsupported(ep, "chat")),
    }
}

/// A streaming chat call: the first event must arrive within the timeout, and so must each
/// next one.
pub async fn chat_stream(
    http: &reqwest::Client,
    ep: &Endpoint,
    req: &ChatRequest,
) -> Result<ChatStream, UpstreamError> {
    match ep.protocol {
        Protocol::OpenAi => chat::chat_stream(http, ep, req).await,
        Protocol::Anthropic => anthropic::chat_stream(http, ep, req).await,
        Protocol::Ollama => ollama::chat_stream(http, ep, req).await,
        Protocol::Gemini => gemini::chat_stream(http, ep, req).await,
        Protocol::Voyage => Err(unsupported(ep, "chat")),
    }
}

/// One vector per input, in input order.
pub async fn embed(
    http: &reqwest::Client,
    ep: &Endpoint,
    model: &str,
    inputs: &[String],
    extra: &Map<String, Value>,
) -> Result<Vec<Vec<f64>>, UpstreamError> {
    match ep.protocol {
        Protocol::OpenAi => retrieval::embed(http, ep, model, inputs, extra).await,
        Protocol::Ollama => ollama::embed(http, ep, model, inputs, extra).await,
        Protocol::Gemini => gemini::embed(http, ep, model, inputs, extra).await,
        Protocol::Anthropic | Protocol::Voyage => Err(unsupported(ep, "embedding")),
    }
}

/// Ranks `documents` against `query`, best first.
pub async fn rerank(
    http: &reqwest::Client,
    ep: &Endpoint,
    model: &str,
    query: &str,
    documents: &[String],
    extra: &Map<String, Value>,
) -> Result<Vec<RerankHit>, UpstreamError> {
    match ep.protocol {
        Protocol::OpenAi | Protocol::Voyage => {
            retrieval::rerank(http, ep, model, query, documents, extra).await
        }
        Protocol::Anthropic | Protocol::Ollama | Protocol::Gemini => Err(unsupported(ep, "rerank")),
    }
}
