//! A complete runtime setup for end-to-end tests: a fake model that echoes with the turn
//! number (so history is visible), a provider and model, a default pipeline, an enabled
//! http_bot, and a callback receiver.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::fake_openai::{sse, FakeOpenAi, Route};
use super::{Response, TestApp};

pub const INBOUND: &str = "inbound-secret-123";
pub const OUTBOUND: &str = "outbound-secret-456";

/// Streams `echo(<user messages seen>): <last user text>` with usage in the last chunk.
pub struct Echo {
    pub delay: Duration,
}

impl Respond for Echo {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let body: Value = req.body_json().unwrap_or(Value::Null);
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        let users: Vec<&Value> = messages.iter().filter(|m| m["role"] == "user").collect();
        let last = users
            .last()
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default();
        let text = format!("echo({}): {last}", users.len());
        let (a, b) = text.split_at(text.len() / 2);
        let chunks = [
            json!({"choices":[{"index":0,"delta":{"role":"assistant","content":a}}]}),
            json!({"choices":[{"index":0,"delta":{"content":b},"finish_reason":"stop"}]}),
            json!({"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":4,"total_tokens":14}}),
        ];
        ResponseTemplate::new(200)
            .insert_header("content-type", "text/event-stream")
            .set_body_string(sse(&chunks))
            .set_delay(self.delay)
    }
}

pub struct Rig {
    pub owner: String,
    pub fake: FakeOpenAi,
    pub callbacks: MockServer,
    pub model: String,
    pub pipeline: String,
    pub bot: String,
}

/// Creates a provider on `base_url` and an LLM model; returns the model uuid.
pub async fn model_on(app: &TestApp, owner: &str, base_url: &str, name: &str) -> String {
    let provider = app
        .send_as(
            owner,
            Method::POST,
            "/api/v1/provider/providers",
            &json!({ "name": name, "requester": "openai-chat-completions", "base_url": base_url, "api_keys": ["sk-test"], "config": { "timeout": 5 } }),
        )
        .await;
    let provider = provider.data()["uuid"].as_str().unwrap().to_string();
    let model = app
        .send_as(
            owner,
            Method::POST,
            "/api/v1/provider/models/llm",
            &json!({ "name": name, "provider_uuid": provider }),
        )
        .await;
    model.data()["uuid"].as_str().unwrap().to_string()
}

impl Rig {
    /// A rig whose pipeline config gets `sections` merged in (e.g. trigger/output overrides).
    pub async fn new(app: &TestApp, sections: Value) -> Rig {
        Self::with_echo(app, sections, Duration::ZERO).await
    }

    pub async fn with_echo(app: &TestApp, sections: Value, delay: Duration) -> Rig {
        let owner = app.init_owner().await;
        let fake = FakeOpenAi::start().await;
        fake.respond(Route::Chat, Echo { delay }).await;
        let model = model_on(app, &owner, &fake.base_url(), "echo-model").await;
        let mut config = json!({ "ai": { "runner_config": { "local-agent": { "model": { "primary": model } } } } });
        for (k, v) in sections.as_object().cloned().unwrap_or_default() {
            config[k] = v;
        }
        let pipeline = app
            .send_as(
                &owner,
                Method::POST,
                "/api/v1/pipelines",
                &json!({ "name": "P", "is_default": true, "config": config }),
            )
            .await;
        let pipeline = pipeline.data()["uuid"].as_str().unwrap().to_string();
        let callbacks = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/cb"))
            .respond_with(ResponseTemplate::new(200))
            .mount(&callbacks)
            .await;
        let bot = app
            .send_as(
                &owner,
                Method::POST,
                "/api/v1/platform/bots",
                &json!({ "name": "http", "adapter": "http_bot", "enable": true, "adapter_config": {
                    "inbound_secret": INBOUND, "outbound_secret": OUTBOUND,
                    "callback_url": format!("{}/cb", callbacks.uri()), "callback_timeout": 2, "callback_max_retries": 3 } }),
            )
            .await;
        let bot = bot.data()["uuid"].as_str().unwrap().to_string();
        Rig {
            owner,
            fake,
            callbacks,
            model,
            pipeline,
            bot,
        }
    }

    /// POSTs a signed body to `/bots/{bot}{suffix}`.
    pub async fn send_raw(
        &self,
        app: &TestApp,
        suffix: &str,
        body: &[u8],
        headers: &[(&str, String)],
    ) -> Response {
        let ts = chrono::Utc::now().timestamp().to_string();
        let sig = langbot::runtime::signing::sign(INBOUND, &ts, body);
        let mut req = app
            .request(Method::POST, &format!("/bots/{}{suffix}", self.bot))
            .header("x-lb-timestamp", &ts)
            .header("x-lb-signature", &sig)
            .raw_json(body.to_vec());
        for (k, v) in headers {
            req = req.header(k, v);
        }
        req.send().await
    }

    pub async fn send(&self, app: &TestApp, body: Value) -> Response {
        self.send_raw(app, "", body.to_string().as_bytes(), &[])
            .await
    }

    pub async fn sync(&self, app: &TestApp, body: Value) -> Response {
        self.send_raw(app, "/sync", body.to_string().as_bytes(), &[])
            .await
    }

    /// The adapter's `/reset` of `session`.
    pub async fn reset(&self, app: &TestApp, session: &str) -> Response {
        let body = json!({ "session_id": session });
        self.send_raw(app, "/reset", body.to_string().as_bytes(), &[])
            .await
    }

    /// Waits until at least `n` callbacks arrived; returns all of them (parsed, with headers).
    pub async fn callbacks(&self, n: usize) -> Vec<(Value, String, String)> {
        for _ in 0..200 {
            let got = self.callbacks.received_requests().await.unwrap_or_default();
            if got.len() >= n {
                return got
                    .iter()
                    .map(|r| {
                        let h = |name: &str| {
                            r.headers
                                .get(name)
                                .and_then(|v| v.to_str().ok())
                                .unwrap_or_default()
                                .to_string()
                        };
                        (
                            serde_json::from_slice(&r.body).unwrap_or(Value::Null),
                            h("x-lb-timestamp"),
                            h("x-lb-signature"),
                        )
                    })
                    .collect();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("fewer than {n} callbacks arrived");
    }

    pub async fn callback_count(&self) -> usize {
        self.callbacks
            .received_requests()
            .await
            .unwrap_or_default()
            .len()
    }
}

/// A message body.
pub fn text(session: &str, text: &str) -> Value {
    json!({ "session_id": session, "message": [{ "type": "Plain", "text": text }] })
}

/// The reply text of a callback body.
pub fn reply_text(body: &Value) -> String {
    body["message"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["text"].as_str())
        .collect()
}
