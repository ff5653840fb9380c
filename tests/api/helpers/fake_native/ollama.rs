//! A fake Ollama: `POST /api/chat` (JSON, or NDJSON lines when `stream` is not false — Ollama
//! streams by default) and `POST /api/embed`. Refuses tool-call arguments that are not JSON
//! objects, as Ollama's decoder does.

use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, Request, Respond, ResponseTemplate};

use super::{answer, body_of, echo_args, halves, usage_of, Answer, FakeNative, TOOL};

fn error(message: &str) -> Value {
    json!({ "error": message })
}

/// This turn's `role:"tool"` contents (after the last user message).
fn results(body: &Value) -> Vec<String> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let after = messages
        .iter()
        .rposition(|m| m["role"] == "user")
        .map_or(0, |i| i + 1);
    messages[after..]
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn refusal(body: &Value) -> Option<String> {
    if !body["model"].is_string() {
        return Some("model is required".into());
    }
    for m in body["messages"].as_array()? {
        for c in m["tool_calls"].as_array().into_iter().flatten() {
            if !c["function"]["arguments"].is_object() {
                return Some("json: cannot unmarshal string into Go struct field ToolCallFunction.messages.tool_calls.function.arguments of type api.ToolCallFunctionArguments".into());
            }
        }
    }
    None
}

pub struct Chat;

impl Respond for Chat {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let body = match body_of(req, error) {
            Ok(b) => b,
            Err(r) => return *r,
        };
        if let Some(why) = refusal(&body) {
            return ResponseTemplate::new(400).set_body_json(error(&why));
        }
        let offers = body["tools"].as_array().is_some_and(|t| !t.is_empty());
        let a = answer(offers, &results(&body));
        let (input, output) = usage_of(&a);
        let done = json!({ "model": body["model"], "created_at": "2026-01-01T00:00:00Z",
                           "message": { "role": "assistant", "content": "" }, "done": true,
                           "done_reason": "stop", "total_duration": 1000, "prompt_eval_count": input,
                           "eval_count": output });
        let call =
            |words: &str| json!([{ "function": { "name": TOOL, "arguments": echo_args(words) } }]);
        if body["stream"] == false {
            let mut reply = done;
            match &a {
                Answer::Call(words) => reply["message"]["tool_calls"] = call(words),
                Answer::Text(t) => reply["message"]["content"] = json!(t),
            }
            return ResponseTemplate::new(200).set_body_json(reply);
        }
        let chunk = |message: Value| json!({ "model": body["model"], "created_at": "2026-01-01T00:00:00Z", "message": message, "done": false });
        let mut lines = Vec::new();
        match &a {
            Answer::Call(words) => lines.push(chunk(
                json!({ "role": "assistant", "content": "", "tool_calls": call(words) }),
            )),
            Answer::Text(t) => {
                let (x, y) = halves(t);
                lines.push(chunk(json!({ "role": "assistant", "content": x })));
                lines.push(chunk(json!({ "role": "assistant", "content": y })));
            }
        }
        lines.push(done);
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        ResponseTemplate::new(200).set_body_raw(text, "application/x-ndjson")
    }
}

pub struct Embed;

impl Respond for Embed {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let body = match body_of(req, error) {
            Ok(b) => b,
            Err(r) => return *r,
        };
        let inputs: Vec<String> = match &body["input"] {
            Value::String(s) => vec![s.clone()],
            Value::Array(a) => a
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            _ => return ResponseTemplate::new(400).set_body_json(error("input is required")),
        };
        let embeddings: Vec<Value> = inputs
            .iter()
            .enumerate()
            .map(|(i, t)| json!([i as f64, t.len() as f64, 0.5]))
            .collect();
        ResponseTemplate::new(200)
            .set_body_json(json!({ "model": body["model"], "embeddings": embeddings,
                                                         "prompt_eval_count": inputs.len() }))
    }
}

impl FakeNative {
    /// Serves the scripted `/api/chat` and `/api/embed`.
    pub async fn ollama() -> Self {
        let fake = Self::start().await;
        Mock::given(method("POST"))
            .and(path("/api/chat"))
            .respond_with(Chat)
            .mount(&fake.server)
            .await;
        Mock::given(method("POST"))
            .and(path("/api/embed"))
            .respond_with(Embed)
            .mount(&fake.server)
            .await;
        fake
    }
}
