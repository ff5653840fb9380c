//! Messages as adapters carry them: segments, and the `message.received` event the route
//! engine sees.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;

/// One part of a message (the HTTP-bot contract's `Segment`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Segment {
    /// `Plain`, `Image`, `Voice`, `File`, `At` or `Quote`.
    #[serde(rename = "type")]
    pub kind: SegmentKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base64: Option<String>,
    /// For `At`: who is mentioned (the bot's uuid mentions the bot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum SegmentKind {
    Plain,
    Image,
    Voice,
    File,
    At,
    Quote,
}

impl Segment {
    pub fn plain(text: impl Into<String>) -> Self {
        Self {
            kind: SegmentKind::Plain,
            text: Some(text.into()),
            url: None,
            base64: None,
            target: None,
        }
    }

    pub fn image_url(url: impl Into<String>) -> Self {
        Self {
            kind: SegmentKind::Image,
            text: None,
            url: Some(url.into()),
            base64: None,
            target: None,
        }
    }

    pub fn image_base64(data: impl Into<String>) -> Self {
        Self {
            kind: SegmentKind::Image,
            text: None,
            url: None,
            base64: Some(data.into()),
            target: None,
        }
    }

    pub fn quote(message_id: impl Into<String>) -> Self {
        Self {
            kind: SegmentKind::Quote,
            text: None,
            url: None,
            base64: None,
            target: Some(message_id.into()),
        }
    }

    pub fn at(target: impl Into<String>) -> Self {
        Self {
            kind: SegmentKind::At,
            text: None,
            url: None,
            base64: None,
            target: Some(target.into()),
        }
    }
}

/// The text of the `Plain` segments.
pub fn plain_text(segments: &[Segment]) -> String {
    segments
        .iter()
        .filter(|s| s.kind == SegmentKind::Plain)
        .filter_map(|s| s.text.as_deref())
        .collect()
}

/// Person or group chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SessionType {
    #[default]
    Person,
    Group,
}

impl SessionType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Person => "person",
            Self::Group => "group",
        }
    }
}

/// LangBot's session id for monitoring and conversation state: `person_<id>` / `group_<id>`.
pub fn session_id(kind: SessionType, launcher: &str) -> String {
    format!("{}_{}", kind.as_str(), launcher)
}

/// A normalized inbound message.
pub struct Inbound {
    pub kind: SessionType,
    pub chat_id: String,
    pub sender_id: String,
    pub sender_name: Option<String>,
    pub group_name: Option<String>,
    pub segments: Vec<Segment>,
    pub message_id: String,
    /// The adapter's name (`adapter_name` in the event).
    pub adapter: &'static str,
    /// The bot's id on the platform: an `At` segment naming it mentions the bot. `None`: the
    /// bot's uuid (http_bot).
    pub account_id: Option<String>,
    /// Addressed to the bot without an `At` (a reply to the bot's message, an app mention).
    pub addressed: bool,
    /// Its execution, recorded `queued` when it was accepted (an http_bot message).
    pub queued: Option<String>,
}

impl Inbound {
    /// A message of `adapter` with no mention of the bot yet.
    pub fn new(
        adapter: &'static str,
        kind: SessionType,
        chat_id: String,
        sender_id: String,
    ) -> Self {
        Self {
            kind,
            chat_id,
            sender_id,
            sender_name: None,
            group_name: None,
            segments: Vec::new(),
            message_id: String::new(),
            adapter,
            account_id: None,
            addressed: false,
            queued: None,
        }
    }
}

/// The `message.received` event for the route engine.
pub fn received_event(msg: &Inbound, bot_uuid: &str) -> Value {
    let chain: Vec<Value> = msg
        .segments
        .iter()
        .map(|s| serde_json::to_value(s).unwrap_or(Value::Null))
        .collect();
    json!({
        "type": "message.received",
        "message_id": msg.message_id,
        "chat_id": msg.chat_id,
        "sender": { "id": msg.sender_id, "nickname": msg.sender_name },
        "group": match msg.kind {
            SessionType::Group => json!({ "id": msg.chat_id, "name": msg.group_name }),
            SessionType::Person => Value::Null,
        },
        "message_chain": chain,
        "adapter_name": msg.adapter,
        "bot_uuid": bot_uuid,
        "timestamp": chrono::Utc::now().timestamp(),
    })
}
