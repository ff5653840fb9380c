//! A fake Anthropic Messages API: `POST /v1/messages` with `x-api-key` and
//! `anthropic-version`; refuses a body without `max_tokens`, turns that do not alternate, or a
//! `tool_result` whose `tool_use` the previous assistant turn lacks; answers JSON or the SSE
//! events (`message_start`, `content_block_*`, `message_delta`, `message_stop`).

use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, Request, Respond, ResponseTemplate};

use super::{
    answer, body_of, echo_args, halves, named_sse, usage_of, Answer, FakeNative, CALL_ID, TOOL,
};

pub const KEY: &str = "sk-ant-test";
pub const PATH: &str = "/v1/messages";

fn error(kind: &str, message: &str) -> Value {
    json!({ "type": "error", "error": { "type": kind, "message": message } })
}

/// Why a real server would refuse `body`, if it would.
fn refusal(body: &Value) -> Option<String> {
    if !body["max_tokens"].is_u64() {
        return Some("max_tokens: Field required".into());
    }
    let messages = body["messages"].as_array()?;
    let mut last_role = "";
    let mut last_tool_uses: Vec<String> = Vec::new();
    for m in messages {
        let role = m["role"].as_str().unwrap_or_default();
        if !["user", "assistant"].contains(&role) {
            return Some(format!("unexpected role {role}"));
        }
        if role == last_role {
            return Some("roles must alternate between \"user\" and \"assistant\"".into());
        }
        let blocks = m["content"].as_array().cloned().unwrap_or_default();
        for b in &blocks {
            if b["type"] == "tool_result"
                && !last_tool_uses
                    .contains(&b["tool_use_id"].as_str().unwrap_or_default().to_string())
            {
                return Some("tool_result block(s) without a matching tool_use".into());
            }
            if b["type"] == "text" && b["text"].as_str().is_none_or(str::is_empty) {
                return Some("text content blocks must be non-empty".into());
            }
        }
        last_tool_uses = blocks
            .iter()
            .filter(|b| b["type"] == "tool_use")
            .filter_map(|b| b["id"].as_str().map(str::to_string))
            .collect();
        last_role = role;
    }
    (messages.first().map(|m| m["role"] != "user") == Some(true))
        .then(|| "first message must use the \"user\" role".into())
}

/// The text of the last user turn, and its tool results.
fn last_user(body: &Value) -> (String, Vec<String>) {
    let Some(m) = body["messages"]
        .as_array()
        .and_then(|ms| ms.iter().rev().find(|m| m["role"] == "user"))
    else {
        return (String::new(), Vec::new());
    };
    let blocks = m["content"].as_array().cloned().unwrap_or_default();
    let text = blocks
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect::<String>();
    let results = blocks
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| {
            b["content"]
                .as_str()
                .map_or_else(|| b["content"].to_string(), str::to_string)
        })
        .collect();
    (text, results)
}

pub struct Script;

impl Respond for Script {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let body = match body_of(req, |m| error("invalid_request_error", m)) {
            Ok(b) => b,
            Err(r) => return *r,
        };
        let key = req.headers.get("x-api-key").and_then(|v| v.to_str().ok());
        if key != Some(KEY) {
            return ResponseTemplate::new(401)
                .set_body_json(error("authentication_error", "invalid x-api-key"));
        }
        if req.headers.get("anthropic-version").is_none() {
            return ResponseTemplate::new(400).set_body_json(error(
                "invalid_request_error",
                "anthropic-version: header is required",
            ));
        }
        if let Some(why) = refusal(&body) {
            return ResponseTemplate::new(400).set_body_json(error("invalid_request_error", &why));
        }
        let offers = body["tools"].as_array().is_some_and(|t| !t.is_empty());
        let (_, results) = last_user(&body);
        let a = answer(offers, &results);
        if body["stream"] == true {
            ResponseTemplate::new(200).set_body_raw(stream(&a), "text/event-stream")
        } else {
            ResponseTemplate::new(200).set_body_json(message(&a))
        }
    }
}

fn message(a: &Answer) -> Value {
    let (input, output) = usage_of(a);
    let (content, stop) = match a {
        Answer::Call(words) => (
            json!([{ "type": "text", "text": "Let me call it." },
                   { "type": "tool_use", "id": CALL_ID, "name": TOOL, "input": echo_args(words) }]),
            "tool_use",
        ),
        Answer::Text(t) => (json!([{ "type": "text", "text": t }]), "end_turn"),
    };
    json!({ "id": "msg_fake", "type": "message", "role": "assistant", "model": "claude-fake",
            "content": content, "stop_reason": stop, "stop_sequence": null,
            "usage": { "input_tokens": input, "output_tokens": output } })
}

fn stream(a: &Answer) -> String {
    let (input, output) = usage_of(a);
    let mut events = vec![
        (
            "message_start",
            json!({ "type": "message_start", "message": {
            "id": "msg_fake", "type": "message", "role": "assistant", "model": "claude-fake",
            "content": [], "stop_reason": null, "usage": { "input_tokens": input, "output_tokens": 1 } } }),
        ),
        ("ping", json!({ "type": "ping" })),
    ];
    let stop = match a {
        Answer::Call(words) => {
            let args = echo_args(words).to_string();
            let (x, y) = halves(&args);
            events.extend([
                ("content_block_start", json!({ "type": "content_block_start", "index": 0,
                    "content_block": { "type": "tool_use", "id": CALL_ID, "name": TOOL, "input": {} } })),
                ("content_block_delta", json!({ "type": "content_block_delta", "index": 0,
                    "delta": { "type": "input_json_delta", "partial_json": "" } })),
                ("content_block_delta", json!({ "type": "content_block_delta", "index": 0,
                    "delta": { "type": "input_json_delta", "partial_json": x } })),
                ("content_block_delta", json!({ "type": "content_block_delta", "index": 0,
                    "delta": { "type": "input_json_delta", "partial_json": y } })),
                ("content_block_stop", json!({ "type": "content_block_stop", "index": 0 })),
            ]);
            "tool_use"
        }
        Answer::Text(t) => {
            let (x, y) = halves(t);
            events.extend([
                (
                    "content_block_start",
                    json!({ "type": "content_block_start", "index": 0,
                    "content_block": { "type": "text", "text": "" } }),
                ),
                (
                    "content_block_delta",
                    json!({ "type": "content_block_delta", "index": 0,
                    "delta": { "type": "text_delta", "text": x } }),
                ),
                (
                    "content_block_delta",
                    json!({ "type": "content_block_delta", "index": 0,
                    "delta": { "type": "text_delta", "text": y } }),
                ),
                (
                    "content_block_stop",
                    json!({ "type": "content_block_stop", "index": 0 }),
                ),
            ]);
            "end_turn"
        }
    };
    events.extend([
        ("message_delta", json!({ "type": "message_delta",
            "delta": { "stop_reason": stop, "stop_sequence": null }, "usage": { "output_tokens": output } })),
        ("message_stop", json!({ "type": "message_stop" })),
    ]);
    named_sse(&events)
}

impl FakeNative {
    /// Serves the scripted Messages API.
    pub async fn anthropic() -> Self {
        let fake = Self::start().await;
        Mock::given(method("POST"))
            .and(path(PATH))
            .respond_with(Script)
            .mount(&fake.server)
            .await;
        fake
    }
}
