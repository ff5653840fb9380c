//! A fake Telegram Bot API: `getMe`, `getUpdates` (long polling with offsets: updates stay
//! until confirmed by a later offset), `setWebhook`/`deleteWebhook`, `sendMessage`,
//! `sendPhoto` (JSON or multipart), `editMessageText`, `getFile` and file downloads; wrong
//! tokens get Telegram's 401. Served behind a [`ChaosProxy`] so a test can drop the
//! connection.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::{multipart_fields, Calls};
use crate::helpers::fixtures::PNG;
use crate::helpers::ChaosProxy;

pub const BOT_ID: i64 = 777_000;
pub const USERNAME: &str = "lb_test_bot";

#[derive(Default)]
struct Queue {
    updates: Vec<Value>,
    next_update: i64,
    next_message: i64,
}

struct Responder {
    token: String,
    queue: Arc<Mutex<Queue>>,
    calls: Calls,
}

fn ok(result: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({ "ok": true, "result": result }))
}

impl Respond for Responder {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let path = req.url.path().to_string();
        if let Some(file) = path.strip_prefix(&format!("/file/bot{}/", self.token)) {
            self.calls.push("download", json!(file));
            return ResponseTemplate::new(200).set_body_raw(PNG.to_vec(), "image/png");
        }
        let Some(method) = path.strip_prefix(&format!("/bot{}/", self.token)) else {
            return ResponseTemplate::new(401).set_body_json(
                json!({ "ok": false, "error_code": 401, "description": "Unauthorized" }),
            );
        };
        let body: Value = if req
            .headers
            .get("content-type")
            .is_some_and(|c| c.to_str().unwrap_or_default().starts_with("multipart/"))
        {
            let fields: serde_json::Map<String, Value> = multipart_fields(&req.body)
                .into_iter()
                .map(|(k, v)| (k, json!(v)))
                .collect();
            Value::Object(fields)
        } else {
            req.body_json().unwrap_or(json!({}))
        };
        if method != "getUpdates" {
            self.calls.push(method, body.clone());
        }
        match method {
            "getMe" => ok(
                json!({ "id": BOT_ID, "is_bot": true, "first_name": "LB", "username": USERNAME }),
            ),
            "setWebhook" | "deleteWebhook" => ok(json!(true)),
            "getFile" => {
                ok(json!({ "file_id": body["file_id"], "file_path": "photos/file_1.png" }))
            }
            "getUpdates" => {
                let offset = body["offset"].as_i64().unwrap_or(0);
                let mut q = self.queue.lock().unwrap();
                q.updates
                    .retain(|u| u["update_id"].as_i64().unwrap_or(0) >= offset);
                let pending = q.updates.clone();
                drop(q);
                self.calls.push("getUpdates", json!({ "offset": offset }));
                if pending.is_empty() {
                    ok(json!([])).set_delay(Duration::from_millis(250))
                } else {
                    ok(json!(pending))
                }
            }
            "sendMessage" | "sendPhoto" | "editMessageText" => {
                let mut q = self.queue.lock().unwrap();
                q.next_message += 1;
                ok(
                    json!({ "message_id": 5000 + q.next_message, "chat": { "id": body["chat_id"] } }),
                )
            }
            _ => ResponseTemplate::new(404).set_body_json(
                json!({ "ok": false, "error_code": 404, "description": "Not Found" }),
            ),
        }
    }
}

pub struct FakeTelegram {
    _server: MockServer,
    pub proxy: ChaosProxy,
    queue: Arc<Mutex<Queue>>,
    pub calls: Calls,
    pub token: String,
}

impl FakeTelegram {
    pub async fn start(token: &str) -> Self {
        let server = MockServer::start().await;
        let queue = Arc::new(Mutex::new(Queue {
            next_update: 100,
            ..Queue::default()
        }));
        let calls = Calls::default();
        Mock::given(any())
            .respond_with(Responder {
                token: token.to_string(),
                queue: queue.clone(),
                calls: calls.clone(),
            })
            .mount(&server)
            .await;
        let proxy = ChaosProxy::start(crate::helpers::host_port(&server.uri())).await;
        Self {
            _server: server,
            proxy,
            queue,
            calls,
            token: token.to_string(),
        }
    }

    /// The API base URL for the adapter's `api_base_url` (through the proxy).
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.proxy.port)
    }

    /// The adapter config of a polling bot on this fake.
    pub fn config(&self) -> Value {
        json!({ "token": self.token, "api_base_url": self.base_url(), "markdown_card": false })
    }

    /// Queues an update carrying `message`; answers the update (as a webhook would get it).
    pub fn push(&self, message: Value) -> Value {
        let mut q = self.queue.lock().unwrap();
        q.next_update += 1;
        let update = json!({ "update_id": q.next_update, "message": message });
        q.updates.push(update.clone());
        update
    }

    /// An update without queueing it (for webhook deliveries).
    pub fn update(&self, message: Value) -> Value {
        let mut q = self.queue.lock().unwrap();
        q.next_update += 1;
        json!({ "update_id": q.next_update, "message": message })
    }

    /// The messages the bot sent to `chat`.
    pub fn sent_to(&self, chat: i64) -> Vec<Value> {
        self.calls
            .of("sendMessage")
            .into_iter()
            .filter(|m| m["chat_id"] == json!(chat) || m["chat_id"] == json!(chat.to_string()))
            .collect()
    }

    /// Waits until `n` messages went to `chat`.
    pub async fn wait_sent_to(&self, chat: i64, n: usize) -> Vec<Value> {
        crate::helpers::fixtures::eventually(
            &format!("{n} messages to chat {chat}"),
            20,
            || async {
                let got = self.sent_to(chat);
                (got.len() >= n).then_some(got)
            },
        )
        .await
    }

    /// How many pollers have asked for updates so far.
    pub fn polls(&self) -> usize {
        self.calls.of("getUpdates").len()
    }
}

/// A private text message from user `user`.
pub fn private(message_id: i64, user: i64, text: &str) -> Value {
    json!({ "message_id": message_id, "date": 0, "text": text,
            "from": { "id": user, "is_bot": false, "first_name": "Ann", "username": "ann" },
            "chat": { "id": user, "type": "private" } })
}

/// A group text message from user `user` in group `group`.
pub fn group(message_id: i64, group: i64, user: i64, text: &str) -> Value {
    json!({ "message_id": message_id, "date": 0, "text": text,
            "from": { "id": user, "is_bot": false, "first_name": "Bob" },
            "chat": { "id": group, "type": "supergroup", "title": "Team" } })
}
