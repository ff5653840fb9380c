//! Ollama's own API: `POST {base}/api/chat` (NDJSON lines when streaming; tool calls carry
//! argument objects and no ids; usage is `prompt_eval_count` + `eval_count`) and
//! `POST {base}/api/embed`.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::extras::{arguments_object, forwarded, with_headers};
use super::stream::{self, ChatStream, Decoder, Framing, Step};
use super::types::{
    ChatMessage, ChatRequest, ChatResponse, Endpoint, StreamEvent, ToolCall, ToolCallFunction,
    Usage,
};
use super::{UpstreamCode, UpstreamError};

/// Top-level `/api/chat` fields; every other extra argument is a model option.
const TOP_LEVEL: &[&str] = &["format", "keep_alive", "think", "options"];

fn convert(messages: &[ChatMessage]) -> Vec<Value> {
    // Ollama names the tool a result belongs to, not the call.
    let mut names: HashMap<&str, &str> = HashMap::new();
    let mut out = Vec::new();
    for m in messages {
        let mut msg =
            json!({ "role": m.role, "content": m.content.as_deref().unwrap_or_default() });
        if let Some(calls) = &m.tool_calls {
            for c in calls {
                names.insert(&c.id, &c.function.name);
            }
            msg["tool_calls"] = calls
                .iter()
                .map(|c| json!({ "function": { "name": c.function.name, "arguments": arguments_object(&c.function.arguments) } }))
                .collect();
        }
        if let Some(name) = m.tool_call_id.as_deref().and_then(|id| names.get(id)) {
            msg["tool_name"] = json!(name);
        }
        out.push(msg);
    }
    out
}

fn body(req: &ChatRequest, stream: bool) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    body.insert("messages".into(), Value::Array(convert(&req.messages)));
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| json!({ "type": "function", "function": { "name": t.name, "description": t.description, "parameters": t.parameters } }))
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    let mut options = Map::new();
    for (k, v) in forwarded(&req.extra) {
        if TOP_LEVEL.contains(&k.as_str()) {
            body.insert(k, v);
        } else {
            options.insert(k, v);
        }
    }
    if !options.is_empty() {
        let merged = body
            .entry("options")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(o) = merged {
            o.extend(options);
        }
    }
    super::reasoning::ollama(&req.extra, &mut body);
    body.insert("stream".into(), json!(stream));
    Value::Object(body)
}

fn post(
    http: &reqwest::Client,
    ep: &Endpoint,
    path: &str,
    body: &Value,
) -> reqwest::RequestBuilder {
    let mut rb = http.post(ep.url(path)).json(body);
    // Local Ollama needs no key; one behind a proxy (or ollama.com) takes a bearer token.
    if let Some(key) = ep.api_key.as_deref().filter(|k| !k.is_empty()) {
        rb = rb.bearer_auth(key);
    }
    rb
}

fn usage_of(v: &Value) -> Usage {
    Usage {
        prompt_tokens: v["prompt_eval_count"].as_u64().unwrap_or(0),
        completion_tokens: v["eval_count"].as_u64().unwrap_or(0),
        total_tokens: 0,
    }
    .normalized()
}

fn calls_of(message: &Value, first: usize) -> Vec<ToolCall> {
    message["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, c)| ToolCall {
            id: c["id"]
                .as_str()
                .map_or_else(|| format!("call_{}", first + i), str::to_string),
            kind: "function".into(),
            function: ToolCallFunction {
                name: c["function"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                arguments: match &c["function"]["arguments"] {
                    Value::String(s) => s.clone(),
                    Value::Null => "{}".into(),
                    other => other.to_string(),
                },
            },
        })
        .collect()
}

fn finish_reason(done_reason: Option<&str>, has_calls: bool) -> Option<String> {
    if has_calls {
        return Some("tool_calls".into());
    }
    done_reason.map(str::to_string)
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
    let rb = with_headers(post(http, ep, "api/chat", &body(req, false)), &req.extra);
    let value = stream::send_json(rb, ep.timeout).await?;
    let message = &value["message"];
    if !message.is_object() {
        return Err(stream::unexpected("chat"));
    }
    let calls = calls_of(message, 0);
    Ok(ChatResponse {
        finish_reason: finish_reason(value["done_reason"].as_str(), !calls.is_empty()),
        message: assistant(
            message["content"].as_str().unwrap_or_default().to_string(),
            calls,
        ),
        usage: usage_of(&value),
    })
}

#[derive(Default)]
struct Lines {
    text: String,
    calls: Vec<ToolCall>,
    usage: Usage,
    done_reason: Option<String>,
}

impl Decoder for Lines {
    fn absorb(&mut self, _event: &str, data: &str) -> Result<Step, UpstreamError> {
        let Ok(v) = serde_json::from_str::<Value>(data) else {
            return Ok(Step::Nothing);
        };
        if let Some(error) = v["error"].as_str() {
            return Err(UpstreamError::new(
                UpstreamCode::UpstreamError,
                None,
                error.to_string(),
            ));
        }
        let first = self.calls.len();
        self.calls.extend(calls_of(&v["message"], first));
        if v["done"] == true {
            self.usage = usage_of(&v);
            self.done_reason = v["done_reason"].as_str().map(str::to_string);
            return Ok(Step::End);
        }
        let text = v["message"]["content"].as_str().unwrap_or_default();
        if text.is_empty() {
            return Ok(Step::Nothing);
        }
        self.text.push_str(text);
        Ok(Step::Text(text.to_string()))
    }

    fn finish(&mut self) -> StreamEvent {
        let calls = std::mem::take(&mut self.calls);
        StreamEvent::Done {
            finish_reason: finish_reason(self.done_reason.as_deref(), !calls.is_empty()),
            message: assistant(std::mem::take(&mut self.text), calls),
            usage: self.usage,
        }
    }
}

pub(super) async fn chat_stream(
    http: &reqwest::Client,
    ep: &Endpoint,
    req: &ChatRequest,
) -> Result<ChatStream, UpstreamError> {
    let rb = with_headers(post(http, ep, "api/chat", &body(req, true)), &req.extra);
    let resp = stream::open(rb, ep.timeout).await?;
    Ok(stream::drive(
        resp,
        Framing::Ndjson,
        Lines::default(),
        ep.timeout,
    ))
}

/// `POST {base}/api/embed`: one vector per input, in order.
pub(super) async fn embed(
    http: &reqwest::Client,
    ep: &Endpoint,
    model: &str,
    inputs: &[String],
    extra: &Map<String, Value>,
) -> Result<Vec<Vec<f64>>, UpstreamError> {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("input".into(), json!(inputs));
    for (k, v) in forwarded(extra) {
        if k != "rerank_path" {
            body.insert(k, v);
        }
    }
    let rb = with_headers(post(http, ep, "api/embed", &Value::Object(body)), extra);
    let value = stream::send_json(rb, ep.timeout).await?;
    let vectors: Vec<Vec<f64>> = value["embeddings"]
        .as_array()
        .ok_or_else(|| stream::unexpected("embedding"))?
        .iter()
        .map(|v| {
            v.as_array()
                .map(|xs| xs.iter().filter_map(Value::as_f64).collect())
                .ok_or_else(|| stream::unexpected("embedding"))
        })
        .collect::<Result<_, _>>()?;
    if vectors.len() != inputs.len() {
        return Err(stream::unexpected("embedding"));
    }
    Ok(vectors)
}
