//! A fake Discord: REST (`GET /gateway/bot`, `POST /channels/{id}/messages` as JSON or
//! multipart with `payload_json`, `POST /users/@me/channels` for DMs; `Bot <token>` checked,
//! Discord's 401 otherwise) and a Gateway (hello, identify with intents, READY with a
//! session id and resume URL, heartbeats acknowledged, dispatches with sequence numbers,
//! resume replaying what the client missed, close 4004 for a refused token).

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::{multipart_fields, Calls, WsConn, WsServer};

pub const BOT_ID: &str = "880000000000000001";
pub const USERNAME: &str = "lb-test";
/// The heartbeat interval the gateway asks for (short, so tests see heartbeats).
const HEARTBEAT_MS: u64 = 400;

#[derive(Default)]
struct Gateway {
    token: String,
    url: String,
    seq: i64,
    /// Every dispatch after READY, for resumes.
    log: Vec<Value>,
    session: Option<String>,
    sessions: usize,
    live: Option<mpsc::UnboundedSender<Value>>,
    refuse_identify: bool,
    next_message: u64,
}

type Shared = Arc<Mutex<Gateway>>;

struct Rest {
    gw: Shared,
    calls: Calls,
}

fn unauthorized() -> ResponseTemplate {
    ResponseTemplate::new(401).set_body_json(json!({ "message": "401: Unauthorized", "code": 0 }))
}

impl Respond for Rest {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let path = req.url.path().trim_start_matches("/api/v10").to_string();
        let (token, url) = {
            let gw = self.gw.lock().unwrap();
            (gw.token.clone(), gw.url.clone())
        };
        let auth = req
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        if auth != format!("Bot {token}") {
            return unauthorized();
        }
        let multipart = req
            .headers
            .get("content-type")
            .is_some_and(|c| c.to_str().unwrap_or_default().starts_with("multipart/"));
        let body: Value = if multipart {
            let fields = multipart_fields(&req.body);
            let mut body: Value = fields
                .iter()
                .find(|(n, _)| n == "payload_json")
                .and_then(|(_, v)| serde_json::from_str(v).ok())
                .unwrap_or(json!({}));
            body["files"] = json!(fields
                .iter()
                .filter(|(n, _)| n.starts_with("files["))
                .map(|(_, v)| v.clone())
                .collect::<Vec<_>>());
            body
        } else {
            req.body_json().unwrap_or(json!({}))
        };
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        match (req.method.as_str(), segments.as_slice()) {
            ("GET", ["gateway", "bot"]) => {
                self.calls.push("gateway/bot", json!({}));
                ResponseTemplate::new(200).set_body_json(json!({ "url": url, "shards": 1,
                    "session_start_limit": { "total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1 } }))
            }
            ("POST", ["users", "@me", "channels"]) => {
                self.calls.push("open_dm", body.clone());
                let recipient = body["recipient_id"].as_str().unwrap_or_default();
                ResponseTemplate::new(200)
                    .set_body_json(json!({ "id": format!("dm{recipient}"), "type": 1 }))
            }
            ("POST", ["channels", channel, "messages"]) => {
                let mut recorded = body.clone();
                recorded["channel"] = json!(channel);
                self.calls.push("message", recorded);
                let mut gw = self.gw.lock().unwrap();
                gw.next_message += 1;
                ResponseTemplate::new(200).set_body_json(
                    json!({ "id": format!("{}", 990_000 + gw.next_message), "channel_id": channel }),
                )
            }
            _ => ResponseTemplate::new(404)
                .set_body_json(json!({ "message": "404: Not Found", "code": 0 })),
        }
    }
}

pub struct FakeDiscord {
    _rest: MockServer,
    gateway: WsServer,
    gw: Shared,
    pub calls: Calls,
    pub token: String,
}

impl FakeDiscord {
    pub async fn start(token: &str) -> Self {
        let gw: Shared = Arc::new(Mutex::new(Gateway {
            token: token.to_string(),
            ..Gateway::default()
        }));
        let calls = Calls::default();
        let (g, c) = (gw.clone(), calls.clone());
        let gateway = WsServer::start(move |conn| session(conn, g.clone(), c.clone())).await;
        gw.lock().unwrap().url = gateway.url("");
        let rest = MockServer::start().await;
        Mock::given(any())
            .respond_with(Rest {
                gw: gw.clone(),
                calls: calls.clone(),
            })
            .mount(&rest)
            .await;
        Self {
            _rest: rest,
            gateway,
            gw,
            calls,
            token: token.to_string(),
        }
    }

    pub fn rest_url(&self) -> String {
        format!("{}/api/v10", self._rest.uri())
    }

    pub fn config(&self) -> Value {
        json!({ "client_id": "1234", "token": self.token, "api_base_url": self.rest_url() })
    }

    /// Dispatches `MESSAGE_CREATE` (kept for resumes if nobody is connected).
    pub fn push(&self, message: Value) {
        let mut gw = self.gw.lock().unwrap();
        gw.seq += 1;
        let payload = json!({ "op": 0, "t": "MESSAGE_CREATE", "s": gw.seq, "d": message });
        gw.log.push(payload.clone());
        if let Some(live) = &gw.live {
            let _ = live.send(payload);
        }
    }

    /// Cuts the gateway connection (no close frame).
    pub fn drop_connection(&self) {
        self.gw.lock().unwrap().live = None;
        self.gateway.drop_all();
    }

    /// From now on identify and resume are refused with close code 4004.
    pub fn revoke_token(&self) {
        self.gw.lock().unwrap().refuse_identify = true;
    }

    /// The messages posted to `channel`.
    pub fn sent_to(&self, channel: &str) -> Vec<Value> {
        self.calls
            .of("message")
            .into_iter()
            .filter(|m| m["channel"] == channel)
            .collect()
    }

    pub async fn wait_sent_to(&self, channel: &str, n: usize) -> Vec<Value> {
        crate::helpers::fixtures::eventually(&format!("{n} messages to {channel}"), 20, || async {
            let got = self.sent_to(channel);
            (got.len() >= n).then_some(got)
        })
        .await
    }
}

async fn close(conn: &mut WsConn, code: u16, reason: &str) {
    let frame = CloseFrame {
        code: CloseCode::from(code),
        reason: reason.to_string().into(),
    };
    let _ = conn.ws.close(Some(frame)).await;
}

/// One gateway connection.
async fn session(mut conn: WsConn, gw: Shared, calls: Calls) {
    calls.push("connect", json!({ "path": conn.path }));
    if !conn
        .send(&json!({ "op": 10, "d": { "heartbeat_interval": HEARTBEAT_MS } }))
        .await
    {
        return;
    }
    let Some(first) = conn.next().await else {
        return;
    };
    let (token, refuse) = {
        let gw = gw.lock().unwrap();
        (gw.token.clone(), gw.refuse_identify)
    };
    // Discord takes the token with or without the `Bot ` prefix (twilight sends it).
    let given = first["d"]["token"].as_str().unwrap_or_default();
    if refuse || given.strip_prefix("Bot ").unwrap_or(given) != token {
        calls.push("refused", first.clone());
        close(&mut conn, 4004, "Authentication failed.").await;
        return;
    }
    let (tx, mut rx) = mpsc::unbounded_channel();
    match first["op"].as_i64() {
        Some(2) => {
            calls.push("identify", first["d"].clone());
            let ready = {
                let mut gw = gw.lock().unwrap();
                gw.sessions += 1;
                let id = format!("session-{}", gw.sessions);
                gw.session = Some(id.clone());
                gw.seq += 1;
                gw.live = Some(tx);
                json!({ "op": 0, "t": "READY", "s": gw.seq, "d": { "v": 10, "session_id": id,
                    "resume_gateway_url": gw.url, "user": { "id": BOT_ID, "username": USERNAME, "bot": true },
                    "guilds": [], "application": { "id": "1234" } } })
            };
            if !conn.send(&ready).await {
                return;
            }
        }
        Some(6) => {
            let d = &first["d"];
            let replay = {
                let mut gw = gw.lock().unwrap();
                if gw.session.as_deref() != d["session_id"].as_str() {
                    None
                } else {
                    gw.live = Some(tx);
                    let after = d["seq"].as_i64().unwrap_or(0);
                    let missed: Vec<Value> = gw
                        .log
                        .iter()
                        .filter(|p| p["s"].as_i64().unwrap_or(0) > after)
                        .cloned()
                        .collect();
                    gw.seq += 1;
                    Some((missed, gw.seq))
                }
            };
            let Some((missed, seq)) = replay else {
                calls.push("resume_refused", d.clone());
                conn.send(&json!({ "op": 9, "d": false })).await;
                return;
            };
            calls.push(
                "resume",
                json!({ "session_id": d["session_id"], "seq": d["seq"], "replayed": missed.len() }),
            );
            for p in &missed {
                if !conn.send(p).await {
                    return;
                }
            }
            if !conn
                .send(&json!({ "op": 0, "t": "RESUMED", "s": seq, "d": {} }))
                .await
            {
                return;
            }
        }
        _ => {
            close(&mut conn, 4002, "Decode error").await;
            return;
        }
    }
    loop {
        tokio::select! {
            out = rx.recv() => match out {
                Some(p) => if !conn.send(&p).await { return },
                None => return,
            },
            frame = conn.next() => match frame {
                Some(f) if f["op"] == 1 => {
                    calls.push("heartbeat", f["d"].clone());
                    if !conn.send(&json!({ "op": 11 })).await { return }
                }
                Some(_) => {}
                None => return,
            },
        }
    }
}

/// A guild (server) message in `channel` from `user`, mentioning `mentions`.
pub fn guild_message(
    id: u64,
    channel: &str,
    user: &str,
    content: &str,
    mentions: &[&str],
) -> Value {
    json!({ "id": id.to_string(), "channel_id": channel, "guild_id": "g1", "content": content,
            "author": { "id": user, "username": "ann", "global_name": "Ann" },
            "mentions": mentions.iter().map(|m| json!({ "id": m, "username": "x" })).collect::<Vec<_>>(),
            "attachments": [] })
}

/// A direct message from `user` in their DM channel `dm<user>`.
pub fn direct_message(id: u64, user: &str, content: &str) -> Value {
    json!({ "id": id.to_string(), "channel_id": format!("dm{user}"), "content": content,
            "author": { "id": user, "username": "ann" }, "mentions": [], "attachments": [] })
}
