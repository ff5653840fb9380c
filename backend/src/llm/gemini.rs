//! Gemini's own API, key in `x-goog-api-key`: `POST {base}/models/{m}:generateContent`,
//! `:streamGenerateContent?alt=sse` (each event a partial response), `:batchEmbedContents`;
//! `functionCall`/`functionResponse` parts; usage in `usageMetadata`.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::extras::{arguments_object, forwarded, with_headers};
use super::stream::{self, ChatStream, Decoder, Framing, Step};
use super::types::{
    ChatMessage, ChatRequest, ChatResponse, Endpoint, StreamEvent, ToolCall, ToolCallFunction,
    Usage,
};
use super::UpstreamError;

/// Request fields that are not generation settings.
const TOP_LEVEL: &[&str] = &[
    "safetySettings",
    "toolConfig",
    "cachedContent",
    "generationConfig",
    "labels",
];

/// `{base}/models/{model}:{method}`. LangBot's default base URL is Google's OpenAI-compatible
/// path (`…/v1beta/openai`); the native API lives at its parent.
fn url(ep: &Endpoint, model: &str, method: &str) -> String {
    let base = ep.base_url.trim_end_matches('/');
    let base = base.strip_suffix("/openai").unwrap_or(base);
    let model = model.strip_prefix("models/").unwrap_or(model);
    format!("{base}/models/{model}:{method}")
}

fn post(
    http: &reqwest::Client,
    ep: &Endpoint,
    url: String,
    body: &Value,
) -> reqwest::RequestBuilder {
    let mut rb = http.post(url).json(body);
    if let Some(key) = ep.api_key.as_deref().filter(|k| !k.is_empty()) {
        rb = rb.header("x-goog-api-key", key);
    }
    rb
}

/// Appends `part` to the last content when it has `role`, else starts a new one.
fn push(contents: &mut Vec<Value>, role: &str, part: Value) {
    if let Some(last) = contents.last_mut().filter(|c| c["role"] == role) {
        if let Some(parts) = last["parts"].as_array_mut() {
            parts.push(part);
            return;
        }
    }
    contents.push(json!({ "role": role, "parts": [part] }));
}

/// A tool result as the object `functionResponse.response` must be.
fn response_object(text: &str) -> Value {
    match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) => v,
        _ => json!({ "content": text }),
    }
}

fn convert(messages: &[ChatMessage]) -> (Vec<String>, Vec<Value>) {
    let mut names: HashMap<&str, &str> = HashMap::new();
    let mut system = Vec::new();
    let mut contents = Vec::new();
    for m in messages {
        let text = m.content.as_deref().unwrap_or_default();
        match m.role.as_str() {
            "system" | "developer" => system.push(text.to_string()),
            "tool" => {
                let id = m.tool_call_id.as_deref().unwrap_or_default();
                let name = names.get(id).copied().unwrap_or(id);
                push(
                    &mut contents,
                    "user",
                    json!({ "functionResponse": { "id": id, "name": name, "response": response_object(text) } }),
                );
            }
            "assistant" => {
                if !text.is_empty() {
                    push(&mut contents, "model", json!({ "text": text }));
                }
                for c in m.tool_calls.iter().flatten() {
                    names.insert(&c.id, &c.function.name);
                    push(
                        &mut contents,
                        "model",
                        json!({ "functionCall": { "id": c.id, "name": c.function.name,
                                                  "args": arguments_object(&c.function.arguments) } }),
                    );
                }
            }
            _ if !text.is_empty() => push(&mut contents, "user", json!({ "text": text })),
            _ => {}
        }
    }
    (system, contents)
}

/// OpenAI-style setting names in Gemini's words.
fn setting_name(key: &str) -> &str {
    match key {
        "top_p" => "topP",
        "top_k" => "topK",
        "max_tokens" | "max_output_tokens" | "max_completion_tokens" => "maxOutputTokens",
        "stop" => "stopSequences",
        "presence_penalty" => "presencePenalty",
        "frequency_penalty" => "frequencyPenalty",
        "response_mime_type" => "responseMimeType",
        other => other,
    }
}

fn body(req: &ChatRequest) -> Value {
    let (system, contents) = convert(&req.messages);
    let mut body = Map::new();
    body.insert("contents".into(), Value::Array(contents));
    if !system.is_empty() {
        body.insert(
            "systemInstruction".into(),
            json!({ "parts": [{ "text": system.join("\n\n") }] }),
        );
    }
    if !req.tools.is_empty() {
        let declarations: Vec<Value> = req
            .tools
            .iter()
            .map(|t| json!({ "name": t.name, "description": t.description, "parametersJsonSchema": t.parameters }))
            .collect();
        body.insert(
            "tools".into(),
            json!([{ "functionDeclarations": declarations }]),
        );
    }
    let mut generation = Map::new();
    for (k, v) in forwarded(&req.extra) {
        if k == "generationConfig" {
            if let Value::Object(o) = v {
                generation.extend(o);
            }
        } else if TOP_LEVEL.contains(&k.as_str()) {
            body.insert(k, v);
        } else {
            generation.insert(setting_name(&k).to_string(), v);
        }
    }
    super::reasoning::gemini(&req.extra, &mut generation);
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    Value::Object(body)
}

fn usage_of(v: &Value) -> Option<Usage> {
    let meta = v["usageMetadata"].as_object()?;
    let n = |k: &str| meta.get(k).and_then(Value::as_u64).unwrap_or(0);
    Some(
        Usage {
            prompt_tokens: n("promptTokenCount"),
            completion_tokens: n("candidatesTokenCount") + n("thoughtsTokenCount"),
            total_tokens: n("totalTokenCount"),
        }
        .normalized(),
    )
}

/// The text and calls of a (partial) response's first candidate; thoughts are skipped.
fn parts_of(v: &Value, first_call: usize) -> (String, Vec<ToolCall>) {
    let mut text = String::new();
    let mut calls = Vec::new();
    for part in v["candidates"][0]["content"]["parts"]
        .as_array()
        .into_iter()
        .flatten()
    {
        if let Some(call) = part.get("functionCall") {
            let index = first_call + calls.len();
            calls.push(ToolCall {
                id: call["id"]
                    .as_str()
                    .filter(|s| !s.is_empty())
                    .map_or_else(|| format!("call_{index}"), str::to_string),
                kind: "function".into(),
                function: ToolCallFunction {
                    name: call["name"].as_str().unwrap_or_default().to_string(),
                    arguments: if call["args"].is_object() {
                        call["args"].to_string()
                    } else {
                        "{}".into()
                    },
                },
            });
        } else if part["thought"] != true {
            text.push_str(part["text"].as_str().unwrap_or_default());
        }
    }
    (text, calls)
}

fn finish_reason(raw: Option<&str>, has_calls: bool) -> Option<String> {
    if has_calls {
        return Some("tool_calls".into());
    }
    raw.map(|r| {
        match r {
            "STOP" => "stop",
            "MAX_TOKENS" => "length",
            "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" => {
                "content_filter"
            }
            other => other,
        }
        .to_string()
    })
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
    let rb = post(http, ep, url(ep, &req.model, "generateContent"), &body(req));
    let value = stream::send_json(with_headers(rb, &req.extra), ep.timeout).await?;
    if !value["candidates"].is_array() {
        return Err(stream::unexpected("generateContent"));
    }
    let (text, calls) = parts_of(&value, 0);
    Ok(ChatResponse {
        finish_reason: finish_reason(
            value["candidates"][0]["finishReason"].as_str(),
            !calls.is_empty(),
        ),
        message: assistant(text, calls),
        usage: usage_of(&value).unwrap_or_default(),
    })
}

#[derive(Default)]
struct Chunks {
    text: String,
    calls: Vec<ToolCall>,
    usage: Usage,
    reason: Option<String>,
}

impl Decoder for Chunks {
    fn absorb(&mut self, _event: &str, data: &str) -> Result<Step, UpstreamError> {
        let Ok(v) = serde_json::from_str::<Value>(data) else {
            return Ok(Step::Nothing);
        };
        if v["error"].is_object() {
            let message = v["error"]["message"].as_str().unwrap_or("stream error");
            return Err(UpstreamError::new(
                super::UpstreamCode::UpstreamError,
                v["error"]["code"]
                    .as_u64()
                    .and_then(|c| u16::try_from(c).ok()),
                message.to_string(),
            ));
        }
        // Each chunk's usage is the running total.
        if let Some(usage) = usage_of(&v) {
            self.usage = usage;
        }
        if let Some(reason) = v["candidates"][0]["finishReason"].as_str() {
            self.reason = Some(reason.to_string());
        }
        let (text, calls) = parts_of(&v, self.calls.len());
        self.calls.extend(calls);
        if text.is_empty() {
            return Ok(Step::Nothing);
        }
        self.text.push_str(&text);
        Ok(Step::Text(text))
    }

    fn finish(&mut self) -> StreamEvent {
        let calls = std::mem::take(&mut self.calls);
        StreamEvent::Done {
            finish_reason: finish_reason(self.reason.as_deref(), !calls.is_empty()),
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
    let url = format!("{}?alt=sse", url(ep, &req.model, "streamGenerateContent"));
    let rb = with_headers(post(http, ep, url, &body(req)), &req.extra);
    let resp = stream::open(rb, ep.timeout).await?;
    Ok(stream::drive(
        resp,
        Framing::Sse,
        Chunks::default(),
        ep.timeout,
    ))
}

/// `POST {base}/models/{m}:batchEmbedContents`: one vector per input, in order.
pub(super) async fn embed(
    http: &reqwest::Client,
    ep: &Endpoint,
    model: &str,
    inputs: &[String],
    extra: &Map<String, Value>,
) -> Result<Vec<Vec<f64>>, UpstreamError> {
    let name = format!("models/{}", model.strip_prefix("models/").unwrap_or(model));
    let settings: Map<String, Value> = forwarded(extra)
        .into_iter()
        .filter(|(k, _)| k != "rerank_path")
        .map(|(k, v)| match k.as_str() {
            "dimensions" => ("outputDimensionality".to_string(), v),
            "task_type" => ("taskType".to_string(), v),
            _ => (k, v),
        })
        .collect();
    let requests: Vec<Value> = inputs
        .iter()
        .map(|text| {
            let mut r = settings.clone();
            r.insert("model".into(), json!(name));
            r.insert("content".into(), json!({ "parts": [{ "text": text }] }));
            Value::Object(r)
        })
        .collect();
    let body = json!({ "requests": requests });
    let rb = with_headers(
        post(http, ep, url(ep, model, "batchEmbedContents"), &body),
        extra,
    );
    let value = stream::send_json(rb, ep.timeout).await?;
    let vectors: Vec<Vec<f64>> = value["embeddings"]
        .as_array()
        .ok_or_else(|| stream::unexpected("embedding"))?
        .iter()
        .map(|e| {
            e["values"]
                .as_array()
                .map(|xs| xs.iter().filter_map(Value::as_f64).collect())
                .ok_or_else(|| stream::unexpected("embedding"))
        })
        .collect::<Result<_, _>>()?;
    if vectors.len() != inputs.len() {
        return Err(stream::unexpected("embedding"));
    }
    Ok(vectors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_openai_compatible_base_url_maps_to_the_native_api() {
        let ep = Endpoint {
            base_url: "https://generativelanguage.googleapis.com/v1beta/openai/".into(),
            api_key: None,
            timeout: Duration::from_secs(1),
            protocol: super::super::Protocol::Gemini,
        };
        assert_eq!(
            url(&ep, "models/gemini-2.5-flash", "generateContent"),
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
        );
    }
}
