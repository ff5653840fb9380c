//! A fake Lark (Feishu) Open API: tenant access tokens (`auth/v3/tenant_access_token/
//! internal`, revocable so a test can expire them: calls with a stale one get code
//! 99991663), `bot/v3/info`, `im/v1/messages` (send, reply; a request `uuid` seen before
//! answers the message it sent, as Lark deduplicates), `im/v1/images` uploads and
//! message resources; and event callbacks as Lark posts them (plain, or encrypted with the
//! encrypt key and signed). Served behind a [`ChaosProxy`].

use std::sync::{Arc, Mutex};

use aes::cipher::{block_padding::Pkcs7, BlockEncryptMut, KeyIvInit};
use base64::Engine as _;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::{multipart_fields, Calls};
use crate::helpers::fixtures::PNG;
use crate::helpers::ChaosProxy;

pub const APP_ID: &str = "cli_a1b2c3";
pub const APP_SECRET: &str = "lark-secret";
pub const BOT_OPEN_ID: &str = "ou_bot0001";
pub const VERIFICATION_TOKEN: &str = "vt-123";
pub const ENCRYPT_KEY: &str = "enc-key-456";

#[derive(Default)]
struct Tokens {
    issued: usize,
    valid: Vec<String>,
    next_message: u64,
    /// Message ids by request `uuid`: Lark sends a message once per uuid.
    by_uuid: std::collections::HashMap<String, String>,
}

struct Api {
    tokens: Arc<Mutex<Tokens>>,
    calls: Calls,
}

fn code(code: i64, msg: &str) -> ResponseTemplate {
    ResponseTemplate::new(if code == 0 { 200 } else { 400 })
        .set_body_json(json!({ "code": code, "msg": msg }))
}

fn ok(data: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({ "code": 0, "msg": "success", "data": data }))
}

impl Respond for Api {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let path = req.url.path().trim_start_matches("/open-apis").to_string();
        if path == "/auth/v3/tenant_access_token/internal" {
            let body: Value = req.body_json().unwrap_or_default();
            if body["app_id"] != APP_ID || body["app_secret"] != APP_SECRET {
                self.calls.push("token_refused", json!({}));
                return code(10014, "app secret invalid");
            }
            let mut t = self.tokens.lock().unwrap();
            t.issued += 1;
            let token = format!("t-{}", t.issued);
            t.valid.push(token.clone());
            self.calls.push("token", json!(token));
            return ResponseTemplate::new(200).set_body_json(
                json!({ "code": 0, "msg": "ok", "tenant_access_token": token, "expire": 7200 }),
            );
        }
        if path.starts_with("/files/") {
            // A public image elsewhere on the web.
            return ResponseTemplate::new(200).set_body_raw(PNG.to_vec(), "image/png");
        }
        let bearer = req
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or_default()
            .to_string();
        if !self.tokens.lock().unwrap().valid.contains(&bearer) {
            self.calls.push("stale_token", json!(bearer));
            return code(99991663, "Invalid access token for authorization. Please make a request with token attached.");
        }
        let multipart = req
            .headers
            .get("content-type")
            .is_some_and(|c| c.to_str().unwrap_or_default().starts_with("multipart/"));
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        match (req.method.as_str(), segments.as_slice()) {
            ("GET", ["bot", "v3", "info"]) => ResponseTemplate::new(200).set_body_json(
                json!({ "code": 0, "msg": "ok", "bot": { "open_id": BOT_OPEN_ID, "app_name": "LB Lark", "activate_status": 2 } }),
            ),
            ("GET", ["im", "v1", "messages", message, "resources", key]) => {
                self.calls.push("resource", json!({ "message": message, "key": key, "type": req.url.query() }));
                ResponseTemplate::new(200).set_body_raw(PNG.to_vec(), "image/png")
            }
            ("POST", ["im", "v1", "images"]) if multipart => {
                let fields = multipart_fields(&req.body);
                self.calls.push("image_upload", json!(fields.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>()));
                ok(json!({ "image_key": "img_v2_001" }))
            }
            ("POST", ["im", "v1", "messages"]) => self.sent(req, None),
            ("POST", ["im", "v1", "messages", id, "reply"]) => self.sent(req, Some(id)),
            _ => code(1254000, "not found"),
        }
    }
}

impl Api {
    fn sent(&self, req: &Request, reply_to: Option<&str>) -> ResponseTemplate {
        let mut body: Value = req.body_json().unwrap_or_default();
        let uuid = body["uuid"].as_str().map(str::to_string);
        if let Some(id) = uuid
            .as_ref()
            .and_then(|u| self.tokens.lock().unwrap().by_uuid.get(u).cloned())
        {
            self.calls.push("duplicate", body);
            return ok(json!({ "message_id": id }));
        }
        body["content"] =
            serde_json::from_str(body["content"].as_str().unwrap_or("null")).unwrap_or_default();
        body["reply_to"] = json!(reply_to);
        body["receive_id_type"] = json!(req
            .url
            .query_pairs()
            .find(|(k, _)| k == "receive_id_type")
            .map(|(_, v)| v.into_owned()));
        self.calls.push("message", body);
        let mut t = self.tokens.lock().unwrap();
        t.next_message += 1;
        let id = format!("om_sent{}", t.next_message);
        if let Some(uuid) = uuid {
            t.by_uuid.insert(uuid, id.clone());
        }
        ok(json!({ "message_id": id }))
    }
}

pub struct FakeLark {
    _server: MockServer,
    pub proxy: ChaosProxy,
    tokens: Arc<Mutex<Tokens>>,
    pub calls: Calls,
}

impl FakeLark {
    pub async fn start() -> Self {
        let server = MockServer::start().await;
        let tokens: Arc<Mutex<Tokens>> = Arc::default();
        let calls = Calls::default();
        Mock::given(any())
            .respond_with(Api {
                tokens: tokens.clone(),
                calls: calls.clone(),
            })
            .mount(&server)
            .await;
        let proxy = ChaosProxy::start(crate::helpers::host_port(&server.uri())).await;
        Self {
            _server: server,
            proxy,
            tokens,
            calls,
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/open-apis", self.proxy.port)
    }

    pub fn file_url(&self, name: &str) -> String {
        format!("{}/files/{name}", self.base_url())
    }

    /// A bot with a verification token and no encryption.
    pub fn config(&self) -> Value {
        json!({ "app_id": APP_ID, "app_secret": APP_SECRET, "bot_name": "LB Lark",
                "verification-token": VERIFICATION_TOKEN, "api_base_url": self.base_url() })
    }

    /// Makes every issued tenant access token invalid (as when one expires).
    pub fn expire_tokens(&self) {
        self.tokens.lock().unwrap().valid.clear();
    }

    /// The messages the bot sent into `chat` (by reply or by receive id).
    pub fn sent_to(&self, chat: &str) -> Vec<Value> {
        self.calls
            .of("message")
            .into_iter()
            .filter(|m| m["receive_id"] == chat)
            .collect()
    }

    pub async fn wait_sent_to(&self, chat: &str, n: usize) -> Vec<Value> {
        crate::helpers::fixtures::eventually(&format!("{n} messages to {chat}"), 20, || async {
            let got = self.sent_to(chat);
            (got.len() >= n).then_some(got)
        })
        .await
    }
}

/// An `im.message.receive_v1` callback (schema 2.0) with the verification token.
pub fn received(event_id: &str, message: Value, sender: &str) -> Value {
    json!({ "schema": "2.0",
            "header": { "event_id": event_id, "token": VERIFICATION_TOKEN, "create_time": "1700000000000",
                        "event_type": "im.message.receive_v1", "tenant_key": "tk", "app_id": APP_ID },
            "event": { "sender": { "sender_id": { "open_id": sender, "union_id": "on_x", "user_id": "u" },
                                   "sender_type": "user", "tenant_key": "tk" },
                       "message": message } })
}

/// A text message in a p2p chat (`p2p`) or a group (`group`), mentioning the bot when
/// `mention_bot`.
pub fn text_message(id: &str, chat: &str, chat_type: &str, text: &str, mention_bot: bool) -> Value {
    let (text, mentions) = if mention_bot {
        (
            format!("@_user_1 {text}"),
            json!([{ "key": "@_user_1", "id": { "open_id": BOT_OPEN_ID }, "name": "LB Lark", "tenant_key": "tk" }]),
        )
    } else {
        (text.to_string(), json!([]))
    };
    json!({ "message_id": id, "chat_id": chat, "chat_type": chat_type, "message_type": "text",
            "content": json!({ "text": text }).to_string(), "mentions": mentions, "create_time": "1700000000000" })
}

/// `{"encrypt": …}`: AES-256-CBC under SHA-256(`key`), a random IV first, base64.
pub fn encrypt(key: &str, plain: &Value) -> Value {
    let key = Sha256::digest(key.as_bytes());
    let iv: [u8; 16] = rand_iv();
    let body = cbc::Encryptor::<aes::Aes256>::new_from_slices(&key, &iv)
        .unwrap()
        .encrypt_padded_vec_mut::<Pkcs7>(plain.to_string().as_bytes());
    let data = [iv.as_slice(), &body].concat();
    json!({ "encrypt": base64::engine::general_purpose::STANDARD.encode(data) })
}

fn rand_iv() -> [u8; 16] {
    *uuid::Uuid::new_v4().as_bytes()
}

/// `X-Lark-Request-Timestamp`, `X-Lark-Request-Nonce` and `X-Lark-Signature` for `body`.
pub fn signed(key: &str, body: &[u8]) -> Vec<(&'static str, String)> {
    let ts = chrono::Utc::now().timestamp().to_string();
    let nonce = uuid::Uuid::new_v4().simple().to_string();
    let mut digest = Sha256::new();
    digest.update(ts.as_bytes());
    digest.update(nonce.as_bytes());
    digest.update(key.as_bytes());
    digest.update(body);
    vec![
        ("x-lark-request-timestamp", ts),
        ("x-lark-request-nonce", nonce),
        ("x-lark-signature", hex::encode(digest.finalize())),
    ]
}
