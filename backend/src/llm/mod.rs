//! Calling models over OpenAI-compatible HTTP: chat completions (plain and streaming, with
//! tools and usage), embeddings and rerank. One shared connection pool (`AppState::http`).

mod chat;
mod error;
mod retrieval;
mod types;

pub use chat::{chat, chat_stream, ChatStream};
pub use error::{UpstreamCode, UpstreamError};
pub use retrieval::{embed, rerank, RerankHit};
pub use types::{
    ChatMessage, ChatRequest, ChatResponse, Endpoint, StreamEvent, ToolCall, ToolSpec, Usage,
};
