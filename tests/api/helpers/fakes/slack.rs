//! A fake Slack: the Web API (`auth.test`, `chat.postMessage`, `apps.connections.open` with
//! the app-level token, the external file upload — `files.getUploadURLExternal` form-encoded
//! only, as Slack insists — and private file downloads with the bot token), Socket Mode
//! (hello, `events_api` envelopes redelivered until acknowledged, `disconnect`), and signed
//! Events API requests as Slack sends them.

use std::sync::{Arc, Mutex};

use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;
use tokio::sync::mpsc;
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::{Calls, WsConn, WsServer};
use crate::helpers::fixtures::PNG;

pub const BOT_USER: &str = "UBOT";
pub const BOT_NAME: &str = "lbbot";
pub const SIGNING_SECRET: &str = "8f742231b10e8888abcd99yyyzzz85a5";

#[derive(Default)]
struct Socket {
    /// Envelopes not acknowledged yet: redelivered on the next connection.
    unacked: Vec<Value>,
    next_envelope: u64,
    live: Option<mpsc::UnboundedSender<Value>>,
    next_ts: u64,
}

type Shared = Arc<Mutex<Socket>>;

struct Api {
    bot_token: String,
    app_token: String,
    base: Arc<Mutex<String>>,
    socket_url: String,
    shared: Shared,
    calls: Calls,
}

fn ok(body: Value) -> ResponseTemplate {
    let mut body = body;
    body["ok"] = json!(true);
    ResponseTemplate::new(200).set_body_json(body)
}

fn error(code: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({ "ok": false, "error": code }))
}

impl Respond for Api {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let path = req.url.path().to_string();
        let bearer = req
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or_default()
            .to_string();
        let form = req.headers.get("content-type").is_some_and(|c| {
            c.to_str()
                .unwrap_or_default()
                .starts_with("application/x-www-form-urlencoded")
        });
        let body: Value = if form {
            let pairs: serde_json::Map<String, Value> = url::form_urlencoded::parse(&req.body)
                .map(|(k, v)| (k.into_owned(), json!(v.into_owned())))
                .collect();
            Value::Object(pairs)
        } else {
            req.body_json().unwrap_or(json!({}))
        };
        if let Some(file) = path.strip_prefix("/files/") {
            if bearer != self.bot_token {
                return ResponseTemplate::new(403);
            }
            self.calls.push("download", json!(file));
            return ResponseTemplate::new(200).set_body_raw(PNG.to_vec(), "image/png");
        }
        if let Some(file) = path.strip_prefix("/upload/") {
            self.calls
                .push("upload", json!({ "file": file, "bytes": req.body.len() }));
            return ResponseTemplate::new(200).set_body_string("OK - 67");
        }
        let Some(method) = path.strip_prefix("/api/") else {
            return ResponseTemplate::new(404);
        };
        if method == "apps.connections.open" {
            if bearer != self.app_token {
                return error("invalid_auth");
            }
            self.calls.push(method, json!({}));
            return ok(json!({ "url": self.socket_url }));
        }
        if bearer != self.bot_token {
            return error(if bearer.is_empty() {
                "not_authed"
            } else {
                "invalid_auth"
            });
        }
        self.calls.push(method, body.clone());
        match method {
            "auth.test" => ok(
                json!({ "user_id": BOT_USER, "user": BOT_NAME, "team_id": "T1", "bot_id": "B1" }),
            ),
            "chat.postMessage" => {
                let mut s = self.shared.lock().unwrap();
                s.next_ts += 1;
                ok(
                    json!({ "channel": body["channel"], "ts": format!("1800000000.{:06}", s.next_ts) }),
                )
            }
            "files.getUploadURLExternal" => {
                if !form {
                    return error("invalid_arguments");
                }
                let base = self.base.lock().unwrap().clone();
                ok(json!({ "upload_url": format!("{base}/upload/F1"), "file_id": "F1" }))
            }
            "files.completeUploadExternal" => ok(json!({ "files": [{ "id": "F1" }] })),
            _ => error("unknown_method"),
        }
    }
}

pub struct FakeSlack {
    server: MockServer,
    socket: WsServer,
    shared: Shared,
    pub calls: Calls,
    pub bot_token: String,
    pub app_token: String,
}

impl FakeSlack {
    pub async fn start() -> Self {
        let shared: Shared = Arc::default();
        let calls = Calls::default();
        let (s, c) = (shared.clone(), calls.clone());
        let socket = WsServer::start(move |conn| socket_session(conn, s.clone(), c.clone())).await;
        let server = MockServer::start().await;
        let base = Arc::new(Mutex::new(server.uri()));
        Mock::given(any())
            .respond_with(Api {
                bot_token: "xoxb-good".into(),
                app_token: "xapp-good".into(),
                base,
                socket_url: socket.url("/link/?ticket=1"),
                shared: shared.clone(),
                calls: calls.clone(),
            })
            .mount(&server)
            .await;
        Self {
            server,
            socket,
            shared,
            calls,
            bot_token: "xoxb-good".into(),
            app_token: "xapp-good".into(),
        }
    }

    pub fn api_url(&self) -> String {
        format!("{}/api", self.server.uri())
    }

    pub fn file_url(&self, name: &str) -> String {
        format!("{}/files/{name}", self.server.uri())
    }

    /// An Events API bot (signed requests).
    pub fn events_config(&self) -> Value {
        json!({ "bot_token": self.bot_token, "signing_secret": SIGNING_SECRET, "api_base_url": self.api_url() })
    }

    /// A Socket Mode bot.
    pub fn socket_config(&self) -> Value {
        json!({ "bot_token": self.bot_token, "socket_mode": true, "app_token": self.app_token, "api_base_url": self.api_url() })
    }

    /// Delivers `event` over Socket Mode (now, or on the next connection until acknowledged).
    pub fn push(&self, event: Value) {
        let mut s = self.shared.lock().unwrap();
        s.next_envelope += 1;
        let envelope = json!({ "envelope_id": format!("env-{}", s.next_envelope), "type": "events_api",
            "accepts_response_payload": false, "retry_attempt": 0,
            "payload": { "type": "event_callback", "team_id": "T1", "event": event,
                         "event_id": format!("Ev{}", s.next_envelope) } });
        s.unacked.push(envelope.clone());
        if let Some(live) = &s.live {
            let _ = live.send(envelope);
        }
    }

    /// Asks the client to reconnect, as Slack does every few hours.
    pub fn ask_to_reconnect(&self) {
        if let Some(live) = &self.shared.lock().unwrap().live {
            let _ = live.send(json!({ "type": "disconnect", "reason": "refresh_requested" }));
        }
    }

    pub fn drop_connection(&self) {
        self.shared.lock().unwrap().live = None;
        self.socket.drop_all();
    }

    pub fn unacked(&self) -> usize {
        self.shared.lock().unwrap().unacked.len()
    }

    /// The `chat.postMessage` calls to `channel`.
    pub fn posted_to(&self, channel: &str) -> Vec<Value> {
        self.calls
            .of("chat.postMessage")
            .into_iter()
            .filter(|m| m["channel"] == channel)
            .collect()
    }

    pub async fn wait_posted_to(&self, channel: &str, n: usize) -> Vec<Value> {
        crate::helpers::fixtures::eventually(&format!("{n} posts to {channel}"), 20, || async {
            let got = self.posted_to(channel);
            (got.len() >= n).then_some(got)
        })
        .await
    }
}

async fn socket_session(mut conn: WsConn, shared: Shared, calls: Calls) {
    calls.push("socket_connect", json!({ "path": conn.path }));
    let (tx, mut rx) = mpsc::unbounded_channel();
    let pending = {
        let mut s = shared.lock().unwrap();
        s.live = Some(tx);
        s.unacked.clone()
    };
    let hello = json!({ "type": "hello", "num_connections": 1,
        "debug_info": { "host": "fake", "approximate_connection_time": 18060 },
        "connection_info": { "app_id": "A1" } });
    if !conn.send(&hello).await {
        return;
    }
    for mut envelope in pending {
        envelope["retry_attempt"] = json!(1);
        if !conn.send(&envelope).await {
            return;
        }
    }
    loop {
        tokio::select! {
            out = rx.recv() => match out {
                Some(frame) => {
                    let disconnect = frame["type"] == "disconnect";
                    if !conn.send(&frame).await || disconnect {
                        // Slack closes soon after a disconnect; the client should reconnect.
                        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                        return;
                    }
                }
                None => return,
            },
            frame = conn.next() => match frame {
                Some(ack) => {
                    if let Some(id) = ack["envelope_id"].as_str() {
                        calls.push("ack", json!(id));
                        shared.lock().unwrap().unacked.retain(|e| e["envelope_id"] != id);
                    }
                }
                None => return,
            },
        }
    }
}

/// `X-Slack-Request-Timestamp` and `X-Slack-Signature` for `body`, signed at `ts`.
pub fn signed(secret: &str, ts: i64, body: &[u8]) -> Vec<(&'static str, String)> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("v0:{ts}:").as_bytes());
    mac.update(body);
    vec![
        ("x-slack-request-timestamp", ts.to_string()),
        (
            "x-slack-signature",
            format!("v0={}", hex::encode(mac.finalize().into_bytes())),
        ),
    ]
}

/// An `event_callback` as the Events API posts it.
pub fn callback(event: Value) -> Value {
    json!({ "token": "legacy", "team_id": "T1", "api_app_id": "A1", "type": "event_callback",
            "event_id": format!("Ev{}", uuid::Uuid::new_v4().simple()), "event_time": 0, "event": event })
}

/// A direct message from `user`.
pub fn direct(ts: &str, user: &str, text: &str) -> Value {
    json!({ "type": "message", "channel": format!("D{user}"), "channel_type": "im", "user": user, "text": text, "ts": ts })
}

/// A message in channel `channel`.
pub fn in_channel(ts: &str, channel: &str, user: &str, text: &str) -> Value {
    json!({ "type": "message", "channel": channel, "channel_type": "channel", "user": user, "text": text, "ts": ts })
}

/// The `app_mention` Slack sends beside the message that mentions the app.
pub fn mention(ts: &str, channel: &str, user: &str, text: &str) -> Value {
    json!({ "type": "app_mention", "channel": channel, "user": user, "text": text, "ts": ts })
}
