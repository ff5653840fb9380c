//! A fake OneBot v11 implementation (as NapCat or Lagrange): it connects to the bot's
//! reverse WebSocket with `Authorization: Bearer <access token>` and `X-Self-ID`, or serves
//! a forward WebSocket checking the token at the handshake; it posts `lifecycle` and
//! `heartbeat` meta events and message events (array segments or CQ-code strings), and
//! answers actions (`send_msg`) by their `echo`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::SinkExt;
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use super::{next_json, Calls, WsServer};

pub const SELF_ID: i64 = 10_001;

#[derive(Default)]
struct Inner {
    live: Option<mpsc::UnboundedSender<Value>>,
    next_message: i64,
}

type Shared = Arc<Mutex<Inner>>;

pub struct FakeOneBot {
    shared: Shared,
    pub calls: Calls,
    forward: Option<WsServer>,
}

impl FakeOneBot {
    /// An implementation that will connect out (reverse WebSocket, or aiocqhttp).
    pub fn new() -> Self {
        Self {
            shared: Arc::default(),
            calls: Calls::default(),
            forward: None,
        }
    }

    /// An implementation serving a forward WebSocket (the token checked at the handshake).
    pub async fn serving(token: &str) -> Self {
        let mut fake = Self::new();
        let (shared, calls) = (fake.shared.clone(), fake.calls.clone());
        let expected = format!("Bearer {token}");
        let refused = calls.clone();
        let server = WsServer::guarded(
            move |headers| {
                let ok = headers
                    .iter()
                    .any(|(n, v)| n == "authorization" && *v == expected);
                if !ok {
                    refused.push("refused", json!({}));
                }
                ok
            },
            move |conn| {
                let (shared, calls) = (shared.clone(), calls.clone());
                async move {
                    calls.push("connected", json!({ "path": conn.path }));
                    link(conn.ws, shared, calls).await;
                }
            },
        )
        .await;
        fake.forward = Some(server);
        fake
    }

    /// The forward WebSocket URL (for `ws_url`).
    pub fn ws_url(&self) -> String {
        self.forward.as_ref().expect("a serving fake").url("/")
    }

    /// Connects to `url` (the bot's reverse WebSocket) presenting `token`; answers the HTTP
    /// status when the handshake is refused.
    pub async fn connect(&self, url: &str, token: Option<&str>) -> Result<(), u16> {
        let mut request = url.into_client_request().unwrap();
        let headers = request.headers_mut();
        headers.insert("x-self-id", SELF_ID.to_string().parse().unwrap());
        headers.insert("x-client-role", "Universal".parse().unwrap());
        if let Some(token) = token {
            headers.insert("authorization", format!("Bearer {token}").parse().unwrap());
        }
        match tokio_tungstenite::connect_async(request).await {
            Ok((ws, _)) => {
                let (shared, calls) = (self.shared.clone(), self.calls.clone());
                calls.push("connected", json!({ "path": url }));
                self.shared.lock().unwrap().live = None;
                tokio::spawn(link(ws, shared, calls));
                crate::helpers::fixtures::eventually("the link up", 10, || async {
                    self.connected().then_some(())
                })
                .await;
                Ok(())
            }
            Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => Err(resp.status().as_u16()),
            Err(e) => panic!("could not connect to {url}: {e}"),
        }
    }

    /// Closes the live connection (the implementation restarting).
    pub fn disconnect(&self) {
        self.shared.lock().unwrap().live = None;
        if let Some(server) = &self.forward {
            server.drop_all();
        }
    }

    pub fn connected(&self) -> bool {
        self.shared.lock().unwrap().live.is_some()
    }

    /// Posts an event on the live connection.
    pub fn push(&self, event: Value) {
        let live = self.shared.lock().unwrap().live.clone();
        live.expect("no live connection").send(event).unwrap();
    }

    /// The `send_msg` actions so far, to `user_id` or `group_id` `target`.
    pub fn sent_to(&self, key: &str, target: i64) -> Vec<Value> {
        self.calls
            .of("send_msg")
            .into_iter()
            .filter(|p| p[key] == target)
            .collect()
    }

    pub async fn wait_sent_to(&self, key: &str, target: i64, n: usize) -> Vec<Value> {
        crate::helpers::fixtures::eventually(
            &format!("{n} send_msg to {key} {target}"),
            20,
            || async {
                let got = self.sent_to(key, target);
                (got.len() >= n).then_some(got)
            },
        )
        .await
    }
}

/// Serves one connection: meta events, pushed events, answers to actions.
async fn link<S>(mut ws: WebSocketStream<S>, shared: Shared, calls: Calls)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let (tx, mut rx) = mpsc::unbounded_channel();
    let lifecycle = json!({ "time": 0, "self_id": SELF_ID, "post_type": "meta_event",
                            "meta_event_type": "lifecycle", "sub_type": "connect" });
    if ws.send(Message::text(lifecycle.to_string())).await.is_err() {
        return;
    }
    shared.lock().unwrap().live = Some(tx);
    let mut beat = tokio::time::interval(Duration::from_secs(5));
    loop {
        tokio::select! {
            _ = beat.tick() => {
                let hb = json!({ "time": 0, "self_id": SELF_ID, "post_type": "meta_event", "meta_event_type": "heartbeat",
                                 "status": { "online": true, "good": true }, "interval": 5000 });
                if ws.send(Message::text(hb.to_string())).await.is_err() { break }
            }
            out = rx.recv() => match out {
                Some(event) => if ws.send(Message::text(event.to_string())).await.is_err() { break },
                None => break,
            },
            frame = next_json(&mut ws) => match frame {
                Some(action) => {
                    let name = action["action"].as_str().unwrap_or_default().to_string();
                    calls.push(&name, action["params"].clone());
                    let answer = match name.as_str() {
                        "send_msg" | "send_private_msg" | "send_group_msg" => {
                            let mut inner = shared.lock().unwrap();
                            inner.next_message += 1;
                            json!({ "status": "ok", "retcode": 0, "data": { "message_id": 70_000 + inner.next_message }, "echo": action["echo"] })
                        }
                        _ => json!({ "status": "failed", "retcode": 1404, "message": "unknown action", "data": null, "echo": action["echo"] }),
                    };
                    if ws.send(Message::text(answer.to_string())).await.is_err() { break }
                }
                None => break,
            },
        }
    }
    drop(rx);
    let mut inner = shared.lock().unwrap();
    if inner.live.as_ref().is_some_and(|l| l.is_closed()) {
        inner.live = None;
    }
}

/// A private message event from `user` (array segments).
pub fn private(message_id: i64, user: i64, segments: Value) -> Value {
    json!({ "time": 0, "self_id": SELF_ID, "post_type": "message", "message_type": "private", "sub_type": "friend",
            "message_id": message_id, "user_id": user, "message": segments, "raw_message": "", "font": 0,
            "sender": { "user_id": user, "nickname": "Ann" } })
}

/// A group message event from `user` in `group`.
pub fn group(message_id: i64, group: i64, user: i64, segments: Value) -> Value {
    json!({ "time": 0, "self_id": SELF_ID, "post_type": "message", "message_type": "group", "sub_type": "normal",
            "message_id": message_id, "group_id": group, "user_id": user, "message": segments, "raw_message": "", "font": 0,
            "sender": { "user_id": user, "nickname": "Bob", "card": "" } })
}

pub fn text(t: &str) -> Value {
    json!({ "type": "text", "data": { "text": t } })
}

pub fn at(qq: i64) -> Value {
    json!({ "type": "at", "data": { "qq": qq.to_string() } })
}
