//! OpenAI: `POST {base}/chat/completions`, plain and streaming (SSE).

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::extras::{forwarded, with_headers};
use super::stream::{self, ChatStream, Decoder, Framing, Step};
use super::types::{
    ChatMessage, ChatRequest, ChatResponse, Endpoint, StreamEvent, ToolCall, ToolCallFunction,
    Usage,
};
use super::{UpstreamCode, UpstreamError};

fn body(req: &ChatRequest, stream: bool) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    body.insert("messages".into(), json!(req.messages));
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| json!({ "type": "function", "function": { "name": t.name, "description": t.description, "parameters": t.parameters } }))
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        body.insert("tool_choice".into(), json!("auto"));
    }
    body.extend(forwarded(&req.extra));
    super::reasoning::openai(&req.extra, &mut body);
    if stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({ "include_usage": true }));
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
        .post(ep.url("chat/completions"))
        .json(&body(req, stream));
    if let Some(key) = ep.api_key.as_deref().filter(|k| !k.is_empty()) {
        rb = rb.bearer_auth(key);
    }
    with_headers(rb, &req.extra)
}

fn parse_usage(value: &Value) -> Usage {
    serde_json::from_value::<Usage>(value.clone())
        .unwrap_or_default()
        .normalized()
}

/// One non-streaming call, bounded by the endpoint's timeout.
pub(super) async fn chat(
    http: &reqwest::Client,
    ep: &Endpoint,
    req: &ChatRequest,
) -> Result<ChatResponse, UpstreamError> {
    let value = stream::send_json(request(http, ep, req, false), ep.timeout).await?;
    let choice = &value["choices"][0];
    let mut message: ChatMessage =
        serde_json::from_value(choice["message"].clone()).map_err(|e| {
            UpstreamError::new(
                UpstreamCode::UpstreamError,
                None,
                format!("unexpected response: {e}"),
            )
        })?;
    if message.content.is_none() {
        message.content = Some(String::new());
    }
    Ok(ChatResponse {
        message,
        usage: parse_usage(&value["usage"]),
        finish_reason: choice["finish_reason"].as_str().map(str::to_string),
    })
}

/// Assembles the deltas of a stream into the final message.
#[derive(Default)]
struct Accumulator {
    content: String,
    /// Image parts (`delta.content` as a part list, or `delta.images`).
    images: Vec<String>,
    tool_calls: BTreeMap<u64, (Option<String>, String, String)>,
    usage: Usage,
    finish_reason: Option<String>,
}

impl Accumulator {
    /// Takes one chunk; returns its text delta, if any.
    fn chunk(&mut self, chunk: &Value) -> Option<String> {
        if chunk["usage"].is_object() {
            self.usage = parse_usage(&chunk["usage"]);
        }
        let choice = &chunk["choices"][0];
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.finish_reason = Some(reason.to_string());
        }
        let delta = &choice["delta"];
        for call in delta["tool_calls"].as_array().into_iter().flatten() {
            let index = call["index"].as_u64().unwrap_or(0);
            let entry = self.tool_calls.entry(index).or_default();
            if let Some(id) = call["id"].as_str() {
                entry.0 = Some(id.to_string());
            }
            if let Some(name) = call["function"]["name"].as_str() {
                entry.1.push_str(name);
            }
            if let Some(args) = call["function"]["arguments"].as_str() {
                entry.2.push_str(args);
            }
        }
        self.images.extend(
            delta["images"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(super::types::image_of_part),
        );
        let text = match &delta["content"] {
            Value::String(text) => text.clone(),
            Value::Array(parts) => {
                let (text, images) = super::types::split_parts(parts);
                self.images.extend(images);
                text
            }
            _ => return None,
        };
        if text.is_empty() {
            return None;
        }
        self.content.push_str(&text);
        Some(text)
    }

    fn assemble(&mut self) -> StreamEvent {
        let calls: Vec<ToolCall> = std::mem::take(&mut self.tool_calls)
            .into_iter()
            .filter(|(_, (_, name, _))| !name.is_empty())
            .map(|(index, (id, name, arguments))| ToolCall {
                id: id.unwrap_or_else(|| format!("call_{index}")),
                kind: "function".into(),
                function: ToolCallFunction { name, arguments },
            })
            .collect();
        StreamEvent::Done {
            message: ChatMessage {
                role: "assistant".into(),
                content: Some(std::mem::take(&mut self.content)),
                tool_calls: (!calls.is_empty()).then_some(calls),
                tool_call_id: None,
                images: std::mem::take(&mut self.images),
            },
            usage: self.usage,
            finish_reason: self.finish_reason.take(),
        }
    }
}

impl Decoder for Accumulator {
    fn absorb(&mut self, _event: &str, data: &str) -> Result<Step, UpstreamError> {
        if data.trim() == "[DONE]" {
            return Ok(Step::End);
        }
        let Ok(chunk) = serde_json::from_str::<Value>(data) else {
            return Ok(Step::Nothing);
        };
        if chunk["error"].is_object() {
            let message = chunk["error"]["message"]
                .as_str()
                .unwrap_or("stream error")
                .to_string();
            return Err(UpstreamError::new(
                UpstreamCode::UpstreamError,
                None,
                message,
            ));
        }
        Ok(self.chunk(&chunk).map_or(Step::Nothing, Step::Text))
    }

    fn finish(&mut self) -> StreamEvent {
        self.assemble()
    }
}

/// A streaming call: the first event must arrive within the timeout, and so must each next one.
pub(super) async fn chat_stream(
    http: &reqwest::Client,
    ep: &Endpoint,
    req: &ChatRequest,
) -> Result<ChatStream, UpstreamError> {
    let resp = stream::open(request(http, ep, req, true), ep.timeout).await?;
    Ok(stream::drive(
        resp,
        Framing::Sse,
        Accumulator::default(),
        ep.timeout,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_call_deltas_are_assembled_by_index() {
        let mut acc = Accumulator::default();
        let chunks = [
            json!({"choices":[{"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","function":{"name":"get_","arguments":"{\"ci"}}]}}]}),
            json!({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"weather","arguments":"ty\":1}"}}]}}]}),
            json!({"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"name":"noid","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}),
            json!({"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}),
        ];
        for c in &chunks {
            assert_eq!(acc.chunk(c), None);
        }
        let StreamEvent::Done {
            message,
            usage,
            finish_reason,
        } = acc.assemble()
        else {
            panic!("not done");
        };
        let calls = message.tool_calls.unwrap_or_default();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].id, "call_a");
        assert_eq!(calls[0].function.name, "get_weather");
        assert_eq!(calls[0].function.arguments, "{\"city\":1}");
        assert_eq!(calls[1].id, "call_1");
        assert_eq!(usage.total_tokens, 7);
        assert_eq!(finish_reason.as_deref(), Some("tool_calls"));
    }

    #[test]
    fn image_parts_of_an_answer_are_kept_apart_from_its_text() {
        let mut acc = Accumulator::default();
        let chunks = [
            json!({"choices":[{"delta":{"role":"assistant","content":"Here "}}]}),
            json!({"choices":[{"delta":{"content":[{"type":"text","text":"it is"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},{"type":"image_url","image_url":{"url":"javascript:alert(1)"}}]}}]}),
            json!({"choices":[{"delta":{"images":[{"type":"image_url","image_url":{"url":"https://img.example/a.png"}}]},"finish_reason":"stop"}]}),
        ];
        let deltas: Vec<_> = chunks.iter().map(|c| acc.chunk(c)).collect();
        assert_eq!(deltas, [Some("Here ".into()), Some("it is".into()), None]);
        let StreamEvent::Done { message, .. } = acc.assemble() else {
            panic!("not done");
        };
        assert_eq!(message.content.as_deref(), Some("Here it is"));
        assert_eq!(
            message.images,
            ["data:image/png;base64,AAAA", "https://img.example/a.png"]
        );

        let whole: ChatMessage = serde_json::from_value(json!({"role":"assistant","content":[
            {"type":"text","text":"a cat"},{"type":"image_url","image_url":{"url":"http://img.example/c.jpg"}},{"type":"audio"},7
        ]}))
        .expect("a part list reads");
        assert_eq!(whole.content.as_deref(), Some("a cat"));
        assert_eq!(whole.images, ["http://img.example/c.jpg"]);
        let back = serde_json::to_value(&whole).expect("writes");
        assert_eq!(
            back["content"][1]["image_url"]["url"],
            "http://img.example/c.jpg"
        );
        let plain = serde_json::to_value(ChatMessage::text("user", "hi")).expect("writes");
        assert_eq!(plain, json!({"role":"user","content":"hi"}));
    }

    #[test]
    fn reserved_extra_args_are_not_forwarded() {
        let mut extra = Map::new();
        extra.insert("temperature".into(), json!(0.2));
        extra.insert("timeout".into(), json!(5));
        extra.insert("extra_body".into(), json!({"top_k": 3}));
        let req = ChatRequest {
            model: "m".into(),
            messages: vec![ChatMessage::text("user", "hi")],
            tools: vec![],
            extra,
        };
        let b = body(&req, true);
        assert_eq!(b["temperature"], 0.2);
        assert_eq!(b["top_k"], 3);
        assert!(b.get("timeout").is_none());
        assert_eq!(b["stream_options"]["include_usage"], true);
    }
}
