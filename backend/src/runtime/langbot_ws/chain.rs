//! The message chains LangBot's dashboard sends (`Plain`, `At`, `Image`, `Quote`, `File`,
//! `Voice`, `Source` components, each with LangBot's own fields) turned into the turn's
//! segments, the text LangBot shows for them, and the chain kept in the history.

use serde_json::Value;

use crate::runtime::message::Segment;

/// Who the dashboard's `@` mentions: LangBot's WebSocket bot.
const BOT_MENTION: &str = "websocketbot";

/// What a turn gets from one dashboard message.
pub struct Parsed {
    pub segments: Vec<Segment>,
    /// The message mentions the bot (group respond rules look at this).
    pub at_bot: bool,
    /// LangBot's text form of the chain (`str(MessageChain)`).
    pub content: String,
    /// The chain as kept in the history: inline data dropped, like LangBot does.
    pub history: Vec<Value>,
}

/// Reads `message`: a chain, or (leniently) a bare string. Components the turn cannot use
/// here — files, voice, and images uploaded by path (this backend keeps no uploaded files) —
/// are shown in the history but not passed on.
pub fn parse(message: &Value) -> Parsed {
    let chain: Vec<Value> = match message {
        Value::String(s) => vec![serde_json::json!({ "type": "Plain", "text": s })],
        Value::Array(items) => items.iter().filter(|c| c.is_object()).cloned().collect(),
        _ => Vec::new(),
    };
    let mut parsed = Parsed {
        segments: Vec::new(),
        at_bot: false,
        content: String::new(),
        history: Vec::new(),
    };
    for component in chain {
        let kind = component["type"].as_str().unwrap_or_default();
        let text = |field: &str| component[field].as_str().filter(|s| !s.is_empty());
        match kind {
            "Plain" => {
                if let Some(t) = text("text") {
                    parsed.segments.push(Segment::plain(t));
                    parsed.content.push_str(t);
                }
            }
            "At" => {
                let target = component["target"]
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| component["target"].to_string());
                parsed.at_bot |= target == BOT_MENTION;
                parsed
                    .content
                    .push_str(&format!("@{}", text("display").unwrap_or(target.as_str())));
                parsed.segments.push(Segment::at(target));
            }
            "Image" => {
                if let Some(data) = text("base64") {
                    parsed.segments.push(Segment::image_base64(data));
                } else if let Some(url) = text("url") {
                    parsed.segments.push(Segment::image_url(url));
                }
                parsed.content.push_str("[Image]");
            }
            "Source" => {}
            other => parsed.content.push_str(&format!("[{other}]")),
        }
        let mut kept = component;
        if kept.get("base64").is_some_and(|b| b.as_str() != Some("")) {
            kept["base64"] = Value::String(String::new());
        }
        parsed.history.push(kept);
    }
    parsed
}

/// Whether the turn has anything to answer: text or an image.
pub fn is_usable(parsed: &Parsed) -> bool {
    parsed
        .segments
        .iter()
        .any(|s| s.text.is_some() || s.url.is_some() || s.base64.is_some())
}
