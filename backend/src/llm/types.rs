//! The shapes of model calls, independent of any one provider.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Where and how to call: base URL, credential, timeout, and the wire protocol spoken there.
#[derive(Clone)]
pub struct Endpoint {
    pub base_url: String,
    pub api_key: Option<String>,
    pub timeout: Duration,
    pub protocol: super::Protocol,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("timeout", &self.timeout)
            .field("protocol", &self.protocol)
            .finish()
    }
}

impl Endpoint {
    pub fn url(&self, path: &str) -> String {
        format!(
            "{}/{}",
            self.base_url.trim_end_matches('/'),
            path.trim_start_matches('/')
        )
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallFunction {
    pub name: String,
    /// JSON text, as the model produced it.
    pub arguments: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    pub function: ToolCallFunction,
}

fn function_type() -> String {
    "function".into()
}

/// One message of a conversation, in OpenAI's shape. On the wire `content` is text or a list
/// of parts (`text`, `image_url`); the text parts join into `content`, the images (a `data:`
/// or http(s) URL each) into `images`. Written back, a message with images has a part list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "WireMessage", into = "WireMessage")]
pub struct ChatMessage {
    pub role: String,
    pub content: Option<String>,
    pub tool_calls: Option<Vec<ToolCall>>,
    pub tool_call_id: Option<String>,
    /// The image parts of `content` (and of OpenRouter's `images`), in order.
    pub images: Vec<String>,
}

impl ChatMessage {
    pub fn text(role: &str, content: impl Into<String>) -> Self {
        Self {
            role: role.into(),
            content: Some(content.into()),
            tool_calls: None,
            tool_call_id: None,
            images: Vec::new(),
        }
    }
}

/// `content` as sent: text, or a list of parts.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
enum WireContent {
    Text(String),
    Parts(Vec<serde_json::Value>),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct WireMessage {
    role: String,
    #[serde(default)]
    content: Option<WireContent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tool_calls: Option<Vec<ToolCall>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<String>,
    /// OpenRouter's generated images: `[{type: "image_url", image_url: {url}}]`.
    #[serde(default, skip_serializing)]
    images: Option<Vec<serde_json::Value>>,
}

/// The URL of an `image_url` part (`{image_url: {url}}` or `{image_url: "…"}`), when it is a
/// `data:image/…` or an http(s) URL.
pub(crate) fn image_of_part(part: &serde_json::Value) -> Option<String> {
    if part["type"] != "image_url" {
        return None;
    }
    let url = part["image_url"]["url"]
        .as_str()
        .or_else(|| part["image_url"].as_str())?
        .trim();
    let lower = url.get(..11).unwrap_or(url).to_ascii_lowercase();
    let ok = lower.starts_with("data:image/")
        || lower.starts_with("https://")
        || lower.starts_with("http://");
    ok.then(|| url.to_string())
}

/// The text and the images of a part list (other part kinds are skipped).
pub(crate) fn split_parts(parts: &[serde_json::Value]) -> (String, Vec<String>) {
    let mut text = String::new();
    let mut images = Vec::new();
    for part in parts {
        if part["type"] == "text" {
            text.push_str(part["text"].as_str().unwrap_or_default());
        } else if let Some(url) = image_of_part(part) {
            images.push(url);
        }
    }
    (text, images)
}

impl From<WireMessage> for ChatMessage {
    fn from(w: WireMessage) -> Self {
        let (content, mut images) = match w.content {
            None => (None, Vec::new()),
            Some(WireContent::Text(t)) => (Some(t), Vec::new()),
            Some(WireContent::Parts(parts)) => {
                let (text, images) = split_parts(&parts);
                (Some(text), images)
            }
        };
        images.extend(w.images.iter().flatten().filter_map(image_of_part));
        Self {
            role: w.role,
            content,
            tool_calls: w.tool_calls,
            tool_call_id: w.tool_call_id,
            images,
        }
    }
}

impl From<ChatMessage> for WireMessage {
    fn from(m: ChatMessage) -> Self {
        let content = if m.images.is_empty() {
            m.content.map(WireContent::Text)
        } else {
            let mut parts = Vec::new();
            if let Some(text) = m.content.filter(|t| !t.is_empty()) {
                parts.push(serde_json::json!({ "type": "text", "text": text }));
            }
            parts.extend(m.images.into_iter().map(
                |url| serde_json::json!({ "type": "image_url", "image_url": { "url": url } }),
            ));
            Some(WireContent::Parts(parts))
        };
        Self {
            role: m.role,
            content,
            tool_calls: m.tool_calls,
            tool_call_id: m.tool_call_id,
            images: None,
        }
    }
}

/// A function the model may call.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments.
    pub parameters: serde_json::Value,
}

#[derive(Debug, Clone)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<ChatMessage>,
    pub tools: Vec<ToolSpec>,
    /// Extra top-level body fields (the model's `extra_args`).
    pub extra: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    #[serde(default)]
    pub total_tokens: u64,
}

impl Usage {
    pub fn normalized(mut self) -> Self {
        if self.total_tokens == 0 {
            self.total_tokens = self.prompt_tokens + self.completion_tokens;
        }
        self
    }
}

#[derive(Debug, Clone)]
pub struct ChatResponse {
    pub message: ChatMessage,
    pub usage: Usage,
    pub finish_reason: Option<String>,
}

/// What a streaming call yields.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// A piece of the reply text.
    Content(String),
    /// The call finished: the assembled message (tool calls complete), usage and reason.
    Done {
        message: ChatMessage,
        usage: Usage,
        finish_reason: Option<String>,
    },
}
