//! Which wire protocol a requester speaks. Everything OpenAI-shaped (chat completions,
//! embeddings, the Jina/Cohere `/rerank` shape) is `OpenAi`; the others have a client of
//! their own in this module's siblings.

/// A model API's wire protocol.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Protocol {
    /// `/chat/completions`, `/embeddings`, `/rerank` (`results[].relevance_score`).
    #[default]
    OpenAi,
    /// Anthropic Messages: `POST /v1/messages`.
    Anthropic,
    /// Ollama's own API: `/api/chat` (NDJSON streaming), `/api/embed`.
    Ollama,
    /// Gemini: `models/{m}:generateContent`, `:streamGenerateContent?alt=sse`, `:batchEmbedContents`.
    Gemini,
    /// Voyage AI rerank: `/rerank` with `top_k`, answering `data[]`.
    Voyage,
}

impl Protocol {
    /// The protocol of LangBot's requester `name` (reference providers_models.md §5.2).
    /// Cohere v2 and Jina rerank are the `/rerank` shape the OpenAI client already speaks.
    pub fn of_requester(name: &str) -> Self {
        match name {
            "anthropic-messages" => Self::Anthropic,
            "ollama-chat" => Self::Ollama,
            "gemini-chat-completions" => Self::Gemini,
            "voyageai-rerank" => Self::Voyage,
            _ => Self::OpenAi,
        }
    }
}
