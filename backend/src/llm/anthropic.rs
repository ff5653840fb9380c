//! Anthropic Messages: `POST {base}/v1/messages` with `x-api-key` and `anthropic-version`;
//! content blocks, `tool_use`/`tool_result`, and the SSE events `message_start`,
//! `content_block_start`/`_delta` (`text_delta`, `input_json_delta`), `message_delta`
//! (stop reason, output usage), `message_stop`, `error`.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::extras::{arguments_object, forwarded, with_headers};
use super::stream::{self, ChatStream, Decoder, Framing, Step};
use super::types::{
    ChatMessage, ChatRequest, ChatResponse, Endpoint, StreamEvent, ToolCall, ToolCallFunction,
    Usage,
};
use super::{UpstreamCode, UpstreamError};

pub const API_VERSION: &str = "2023-06-01";
/// `max_tokens` is required by the API; LiteLLM's default when the model sets none.
const DEFAULT_MAX_TOKENS: u64 = 4096;

fn url(ep: &Endpoint) -> String {
    // The documented base is the host; one that already ends in /v1 is taken as meant.
    if ep.base_url.trim_end_matches('/').ends_with("/v1") {
        ep.url("messages")
    } else {
        ep.url("v1/messages")
    }
}

/// Appends `block` to the last message when it has `role`, else starts a new one: the API
/// wants user and assistant turns to alternate (tool results are user turns).
fn push(messages: &mut Vec<Value>, role: &str, block: Value) {
    if let Some(last) = messages.last_mut().filter(|m| m["role"] == role) {
        if let Some(content) = last["content"].as_array_mut() {
            content.push(block);
            return;
        }
    }
    messages.push(json!({ "role": role, "content": [block] }));
}

/// The system prompt and the turns, as content blocks.
fn convert(messages: &[ChatMessage]) -> (String, Vec<Value>) {
    let mut system = Vec::new();
    let mut out = Vec::new();
    for m in messages {
        let text = m.content.as_deref().unwrap_or_default();
        match m.role.as_str() {
            "system" | "developer" => system.push(text.to_string()),
            "tool" => push(
                &mut out,
                "user",
                json!({ "type": "tool_result",
                        "tool_use_id": m.tool_call_id.clone().unwrap_or_default(),
                        "content": text }),
            ),
            "assistant" => {
                if !text.is_empty() {
                    push(
                        &mut out,
                        "assistant",
                        json!({ "type": "text", "text": text }),
                    );
                }
                for call in m.tool_calls.iter().flatten() {
                    push(
                        &mut out,
                        "assistant",
                        json!({ "type": "tool_use", "id": call.id, "name": call.function.name,
                                "input": arguments_object(&call.function.arguments) }),
                    );
                }
            }
            _ if !text.is_empty() => {
                push(&mut out, "user", json!({ "type": "text", "text": text }))
            }
            _ => {}
        }
    }
    (system.join("\n\n"), out)
}

fn body(req: &ChatRequest, stream: bool) -> Value {
    let (system, messages) = convert(&req.messages);
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    body.insert("max_tokens".into(), json!(DEFAULT_MAX_TOKENS));
    if !system.is_empty() {
        body.insert("system".into(), json!(system));
    }
    body.insert("messages".into(), Value::Array(messages));
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| json!({ "name": t.name, "description": t.description, "input_schema": t.parameters }))
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    body.extend(forwarded(&req.extra));
    super::reasoning::anthropic(&req.extra, &mut body);
    if stream {
        body.insert("stream".into(), json!(true));
    }
    Value::Object(body)
}

fn request(
    http: &reqwest::Client,
    ep: &Endpoint,
    req: &ChatRequest,
    stream: bool,
) -> reqwest::RequestBuilder {
    let mut rb = http
        .post(url(ep))
        .header("anthropic-version", API_VERSION)
        .json(&body(req, stream));
    if let Some(key) = ep.api_key.as_deref().filter(|k| !k.is_empty()) {
        rb = rb.header("x-api-key", key);
    }
    with_headers(rb, &req.extra)
}

/// Input tokens count the cached ones too.
fn input_tokens(usage: &Value) -> Option<u64> {
    let base = usage["input_tokens"].as_u64()?;
    let cached = usage["cache_creation_input_tokens"].as_u64().unwrap_or(0)
        + usage["cache_read_input_tokens"].as_u64().unwrap_or(0);
    Some(base + cached)
}

/// Anthropic's stop reason in OpenAI's words.
fn finish_reason(stop: &str) -> String {
    match stop {
        "tool_use" => "tool_calls",
        "max_tokens" => "length",
        "refusal" => "content_filter",
        _ => "stop",
    }
    .to_string()
}

fn assistant(content: String, calls: Vec<ToolCall>) -> ChatMessage {
    ChatMessage {
        role: "assistant".into(),
        content: Some(content),
        tool_calls: (!calls.is_empty()).then_some(calls),
        tool_call_id: None,
        images: Vec::new(),
    }
}

pub(super) async fn chat(
    http: &reqwest::Client,
    ep: &Endpoint,
    req: &ChatRequest,
) -> Result<ChatResponse, UpstreamError> {
    let value = stream::send_json(request(http, ep, req, false), ep.timeout).await?;
    let blocks = value["content"]
        .as_array()
        .ok_or_else(|| stream::unexpected("messages"))?;
    let mut text = String::new();
    let mut calls = Vec::new();
    for block in blocks {
        match block["type"].as_str() {
            Some("text") => text.push_str(block["text"].as_str().unwrap_or_default()),
            Some("tool_use") => calls.push(ToolCall {
                id: block["id"].as_str().unwrap_or_default().to_string(),
                kind: "function".into(),
                function: ToolCallFunction {
                    name: block["name"].as_str().unwrap_or_default().to_string(),
                    arguments: block["input"].to_string(),
                },
            }),
            _ => {}
        }
    }
    let usage = Usage {
        prompt_tokens: input_tokens(&value["usage"]).unwrap_or(0),
        completion_tokens: value["usage"]["output_tokens"].as_u64().unwrap_or(0),
        total_tokens: 0,
    }
    .normalized();
    Ok(ChatResponse {
        message: assistant(text, calls),
        usage,
        finish_reason: value["stop_reason"].as_str().map(finish_reason),
    })
}

/// The stream's state: text, tool-use blocks by index (id, name, input JSON), usage.
#[derive(Default)]
struct Events {
    text: String,
    tools: BTreeMap<u64, (String, String, String)>,
    usage: Usage,
    stop: Option<String>,
}

impl Decoder for Events {
    fn absorb(&mut self, event: &str, data: &str) -> Result<Step, UpstreamError> {
        let Ok(v) = serde_json::from_str::<Value>(data) else {
            return Ok(Step::Nothing);
        };
        // The type is in the data too; the event name is only a hint.
        let kind = v["type"].as_str().unwrap_or(event);
        match kind {
            "message_start" => {
                let usage = &v["message"]["usage"];
                self.usage.prompt_tokens = input_tokens(usage).unwrap_or(0);
                self.usage.completion_tokens = usage["output_tokens"].as_u64().unwrap_or(0);
            }
            "content_block_start" if v["content_block"]["type"] == "tool_use" => {
                let block = &v["content_block"];
                self.tools.insert(
                    v["index"].as_u64().unwrap_or(0),
                    (
                        block["id"].as_str().unwrap_or_default().to_string(),
                        block["name"].as_str().unwrap_or_default().to_string(),
                        String::new(),
                    ),
                );
            }
            "content_block_delta" => {
                let delta = &v["delta"];
                match delta["type"].as_str() {
                    Some("text_delta") => {
                        let text = delta["text"].as_str().unwrap_or_default();
                        if !text.is_empty() {
                            self.text.push_str(text);
                            return Ok(Step::Text(text.to_string()));
                        }
                    }
                    Some("input_json_delta") => {
                        let index = v["index"].as_u64().unwrap_or(0);
                        if let Some(tool) = self.tools.get_mut(&index) {
                            tool.2
                                .push_str(delta["partial_json"].as_str().unwrap_or_default());
                        }
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(stop) = v["delta"]["stop_reason"].as_str() {
                    self.stop = Some(finish_reason(stop));
                }
                let usage = &v["usage"];
                if let Some(output) = usage["output_tokens"].as_u64() {
                    self.usage.completion_tokens = output;
                }
                if let Some(input) = input_tokens(usage).filter(|n| *n > 0) {
                    self.usage.prompt_tokens = input;
                }
            }
            "message_stop" => return Ok(Step::End),
            "error" => {
                let message = v["error"]["message"].as_str().unwrap_or("stream error");
                let code = if v["error"]["type"] == "rate_limit_error" {
                    UpstreamCode::RateLimit
                } else {
                    UpstreamCode::UpstreamError
                };
                return Err(UpstreamError::new(code, None, message.to_string()));
            }
            _ => {}
        }
        Ok(Step::Nothing)
    }

    fn finish(&mut self) -> StreamEvent {
        let calls = std::mem::take(&mut self.tools)
            .into_values()
            .filter(|(_, name, _)| !name.is_empty())
            .map(|(id, name, input)| ToolCall {
                id,
                kind: "function".into(),
                function: ToolCallFunction {
                    name,
                    // A tool without parameters streams no input at all.
                    arguments: if input.trim().is_empty() {
                        "{}".into()
                    } else {
                        input
                    },
                },
            })
            .collect();
        StreamEvent::Done {
            message: assistant(std::mem::take(&mut self.text), calls),
            usage: self.usage.normalized(),
            finish_reason: self.stop.take(),
        }
    }
}

pub(super) async fn chat_stream(
    http: &reqwest::Client,
    ep: &Endpoint,
    req: &ChatRequest,
) -> Result<ChatStream, UpstreamError> {
    let resp = stream::open(request(http, ep, req, true), ep.timeout).await?;
    Ok(stream::drive(
        resp,
        Framing::Sse,
        Events::default(),
        ep.timeout,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_alternate_and_tool_results_are_user_blocks() {
        let call = ToolCall {
            id: "toolu_1".into(),
            kind: "function".into(),
            function: ToolCallFunction {
                name: "echo".into(),
                arguments: "{\"text\":\"hi\"}".into(),
            },
        };
        let messages = vec![
            ChatMessage::text("system", "be brief"),
            ChatMessage::text("user", "echo hi"),
            ChatMessage {
                role: "assistant".into(),
                content: Some(String::new()),
                tool_calls: Some(vec![call]),
                tool_call_id: None,
                images: Vec::new(),
            },
            ChatMessage {
                role: "tool".into(),
                content: Some("echo: hi".into()),
                tool_calls: None,
                tool_call_id: Some("toolu_1".into()),
                images: Vec::new(),
            },
        ];
        let (system, turns) = convert(&messages);
        assert_eq!(system, "be brief");
        assert_eq!(turns.len(), 3);
        assert_eq!(turns[1]["content"][0]["type"], "tool_use");
        assert_eq!(turns[1]["content"][0]["input"]["text"], "hi");
        assert_eq!(turns[2]["role"], "user");
        assert_eq!(turns[2]["content"][0]["tool_use_id"], "toolu_1");
    }
}
