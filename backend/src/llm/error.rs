//! Upstream failures mapped to stable codes (SPEC §7). Messages never carry secrets.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UpstreamCode {
    Authentication,
    RateLimit,
    ContextLength,
    Timeout,
    UpstreamError,
}

impl UpstreamCode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Authentication => "authentication",
            Self::RateLimit => "rate_limit",
            Self::ContextLength => "context_length",
            Self::Timeout => "timeout",
            Self::UpstreamError => "upstream_error",
        }
    }
}

/// A failed model call.
#[derive(Debug, Clone, thiserror::Error)]
#[error("model request failed ({}): {message}", code.as_str())]
pub struct UpstreamError {
    pub code: UpstreamCode,
    /// The upstream HTTP status, when one was received.
    pub status: Option<u16>,
    pub message: String,
}

impl UpstreamError {
    pub fn new(code: UpstreamCode, status: Option<u16>, message: impl Into<String>) -> Self {
        Self {
            code,
            status,
            message: message.into(),
        }
    }

    pub fn timeout() -> Self {
        Self::new(UpstreamCode::Timeout, None, "Request timed out")
    }

    /// Maps a transport error (the URL is dropped: it may carry credentials).
    pub fn transport(err: reqwest::Error) -> Self {
        if err.is_timeout() {
            return Self::timeout();
        }
        let status = err.status().map(|s| s.as_u16());
        let kind = if err.is_connect() {
            "Connection failed"
        } else {
            "Transport error"
        };
        Self::new(
            UpstreamCode::UpstreamError,
            status,
            format!("{kind}: {}", err.without_url()),
        )
    }

    /// Maps an HTTP error response by status and the OpenAI error body.
    pub fn from_response(status: u16, body: &str) -> Self {
        let parsed: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
        let error = &parsed["error"];
        let upstream_code = error["code"].as_str().unwrap_or_default();
        // OpenAI, Anthropic and Gemini nest `error.message`; Ollama's `error` is the text.
        let upstream_message = error["message"]
            .as_str()
            .or_else(|| error.as_str())
            .unwrap_or_default();
        let lower = upstream_message.to_lowercase();
        let context = upstream_code == "context_length_exceeded"
            || lower.contains("context length")
            || lower.contains("maximum context")
            || lower.contains("context window")
            || lower.contains("prompt is too long");
        let (code, message) = match status {
            401 | 403 => (UpstreamCode::Authentication, "Invalid API key"),
            429 => (
                UpstreamCode::RateLimit,
                "Rate limit exceeded or insufficient balance",
            ),
            400 | 413 if context => (UpstreamCode::ContextLength, "Context length exceeded"),
            408 | 504 => (UpstreamCode::Timeout, "Request timed out"),
            _ => (UpstreamCode::UpstreamError, "API error"),
        };
        let detail: String = upstream_message.chars().take(300).collect();
        let message = if detail.is_empty() {
            format!("{message} (HTTP {status})")
        } else {
            format!("{message} (HTTP {status}): {detail}")
        };
        Self::new(code, Some(status), message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_stable_codes() {
        assert_eq!(
            UpstreamError::from_response(401, "").code,
            UpstreamCode::Authentication
        );
        assert_eq!(
            UpstreamError::from_response(429, "{}").code,
            UpstreamCode::RateLimit
        );
        let ctx = r#"{"error":{"code":"context_length_exceeded","message":"too long"}}"#;
        assert_eq!(
            UpstreamError::from_response(400, ctx).code,
            UpstreamCode::ContextLength
        );
        assert_eq!(
            UpstreamError::from_response(400, "{}").code,
            UpstreamCode::UpstreamError
        );
        assert_eq!(
            UpstreamError::from_response(500, "oops").code,
            UpstreamCode::UpstreamError
        );
        assert_eq!(UpstreamError::from_response(500, "oops").status, Some(500));
    }
}
