//! A fake Gemini API under `/v1beta`, key in `x-goog-api-key`: `models/{m}:generateContent`,
//! `:streamGenerateContent?alt=sse`, `:batchEmbedContents`. Refuses roles other than
//! `user`/`model`, `functionResponse` parts without a name, and responses that are not objects.

use serde_json::{json, Value};
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, Request, Respond, ResponseTemplate};

use super::{answer, body_of, echo_args, halves, sse, usage_of, Answer, FakeNative, TOOL};

pub const KEY: &str = "AIza-fake-key";

fn error(code: u16, status: &str, message: &str) -> Value {
    json!({ "error": { "code": code, "message": message, "status": status } })
}

fn bad(message: &str) -> ResponseTemplate {
    ResponseTemplate::new(400).set_body_json(error(400, "INVALID_ARGUMENT", message))
}

fn refusal(body: &Value) -> Option<String> {
    let contents = body["contents"].as_array().filter(|c| !c.is_empty());
    let Some(contents) = contents else {
        return Some("contents is not specified".into());
    };
    for c in contents {
        if !["user", "model"].contains(&c["role"].as_str().unwrap_or_default()) {
            return Some(format!(
                "Please use a valid role: user, model. Got {}",
                c["role"]
            ));
        }
        for p in c["parts"].as_array().into_iter().flatten() {
            if let Some(r) = p.get("functionResponse") {
                if r["name"].as_str().is_none_or(str::is_empty) || !r["response"].is_object() {
                    return Some("function_response.name and response are required".into());
                }
            }
        }
    }
    None
}

/// The function responses of the last content, when it is the user's.
fn results(body: &Value) -> Vec<String> {
    let Some(last) = body["contents"].as_array().and_then(|c| c.last()) else {
        return Vec::new();
    };
    last["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.get("functionResponse"))
        .map(|r| {
            r["response"]["content"]
                .as_str()
                .map_or_else(|| r["response"].to_string(), str::to_string)
        })
        .collect()
}

fn usage(a: &Answer) -> Value {
    let (input, output) = usage_of(a);
    json!({ "promptTokenCount": input, "candidatesTokenCount": output, "totalTokenCount": input + output })
}

fn candidate(parts: Value, finish: Option<&str>) -> Value {
    let mut c = json!({ "content": { "role": "model", "parts": parts }, "index": 0 });
    if let Some(f) = finish {
        c["finishReason"] = json!(f);
    }
    c
}

pub struct Generate;

impl Respond for Generate {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let body = match body_of(req, |m| error(400, "INVALID_ARGUMENT", m)) {
            Ok(b) => b,
            Err(r) => return *r,
        };
        let key = req
            .headers
            .get("x-goog-api-key")
            .and_then(|v| v.to_str().ok());
        if key != Some(KEY) {
            return ResponseTemplate::new(403).set_body_json(error(
                403,
                "PERMISSION_DENIED",
                "API key not valid. Please pass a valid API key.",
            ));
        }
        if let Some(why) = refusal(&body) {
            return bad(&why);
        }
        let offers = body["tools"][0]["functionDeclarations"]
            .as_array()
            .is_some_and(|t| !t.is_empty());
        let a = answer(offers, &results(&body));
        let call =
            |words: &str| json!([{ "functionCall": { "name": TOOL, "args": echo_args(words) } }]);
        let streaming = req.url.path().ends_with(":streamGenerateContent");
        if !streaming {
            let parts = match &a {
                Answer::Call(words) => call(words),
                Answer::Text(t) => json!([{ "text": t }]),
            };
            return ResponseTemplate::new(200).set_body_json(json!({
                "candidates": [candidate(parts, Some("STOP"))], "usageMetadata": usage(&a),
                "modelVersion": "gemini-fake" }));
        }
        if req.url.query() != Some("alt=sse") {
            // Without alt=sse the API streams a JSON array, which a client reading SSE misreads.
            return bad("this fake streams only with alt=sse");
        }
        let chunks = match &a {
            Answer::Call(words) => vec![
                json!({ "candidates": [candidate(call(words), Some("STOP"))], "usageMetadata": usage(&a) }),
            ],
            Answer::Text(t) => {
                let (x, y) = halves(t);
                let (input, _) = usage_of(&a);
                vec![
                    json!({ "candidates": [candidate(json!([{ "text": x }]), None)],
                            "usageMetadata": { "promptTokenCount": input, "totalTokenCount": input } }),
                    json!({ "candidates": [candidate(json!([{ "text": y }]), Some("STOP"))], "usageMetadata": usage(&a) }),
                ]
            }
        };
        ResponseTemplate::new(200).set_body_raw(sse(&chunks), "text/event-stream")
    }
}

pub struct Embed;

impl Respond for Embed {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let body = match body_of(req, |m| error(400, "INVALID_ARGUMENT", m)) {
            Ok(b) => b,
            Err(r) => return *r,
        };
        if req
            .headers
            .get("x-goog-api-key")
            .and_then(|v| v.to_str().ok())
            != Some(KEY)
        {
            return ResponseTemplate::new(403).set_body_json(error(
                403,
                "PERMISSION_DENIED",
                "API key not valid.",
            ));
        }
        let Some(requests) = body["requests"].as_array() else {
            return bad("requests is required");
        };
        let mut embeddings = Vec::new();
        for (i, r) in requests.iter().enumerate() {
            let Some(text) = r["content"]["parts"][0]["text"].as_str() else {
                return bad("content.parts[0].text is required");
            };
            if !r["model"]
                .as_str()
                .is_some_and(|m| m.starts_with("models/"))
            {
                return bad("model must be models/{model}");
            }
            embeddings.push(json!({ "values": [i as f64, text.len() as f64] }));
        }
        ResponseTemplate::new(200).set_body_json(json!({ "embeddings": embeddings }))
    }
}

impl FakeNative {
    /// Serves the scripted Gemini API under `/v1beta`.
    pub async fn gemini() -> Self {
        let fake = Self::start().await;
        Mock::given(method("POST"))
            .and(path_regex(
                r"^/v1beta/models/[^/:]+:(generateContent|streamGenerateContent)$",
            ))
            .respond_with(Generate)
            .mount(&fake.server)
            .await;
        Mock::given(method("POST"))
            .and(path_regex(r"^/v1beta/models/[^/:]+:batchEmbedContents$"))
            .respond_with(Embed)
            .mount(&fake.server)
            .await;
        fake
    }
}
