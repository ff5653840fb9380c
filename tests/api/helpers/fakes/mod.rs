//! Local fakes of the messaging platforms, each speaking its real protocol on loopback:
//! the Telegram Bot API, the Discord Gateway and REST, the Slack Web API and Socket Mode, a
//! OneBot v11 implementation (both WebSocket directions), and the Lark Open API.

pub mod discord;
pub mod lark;
pub mod onebot;
pub mod slack;
pub mod telegram;

use std::future::Future;
use std::sync::{Arc, Mutex};

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::handshake::server::{
    Request as WsRequest, Response as WsResponse,
};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

/// What a fake received, by method or action name, in order.
#[derive(Clone, Default)]
pub struct Calls(Arc<Mutex<Vec<(String, Value)>>>);

impl Calls {
    pub fn push(&self, name: &str, body: Value) {
        self.0.lock().unwrap().push((name.to_string(), body));
    }

    pub fn of(&self, name: &str) -> Vec<Value> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, b)| b.clone())
            .collect()
    }

    /// Waits until at least `n` calls of `name` arrived; answers them all.
    pub async fn wait(&self, name: &str, n: usize) -> Vec<Value> {
        super::fixtures::eventually(&format!("{n} × {name}"), 20, || async {
            let got = self.of(name);
            (got.len() >= n).then_some(got)
        })
        .await
    }
}

/// The fields of a multipart/form-data body: (name, text value or `<n bytes>` for a file).
pub fn multipart_fields(body: &[u8]) -> Vec<(String, String)> {
    fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
        hay.windows(needle.len()).position(|w| w == needle)
    }
    let Some(end) = find(body, b"\r\n") else {
        return Vec::new();
    };
    let boundary = [b"\r\n", &body[..end]].concat();
    let body = [b"\r\n", body].concat();
    let mut out = Vec::new();
    let mut rest = &body[..];
    while let Some(next) = find(rest, &boundary[..]).map(|i| &rest[i + boundary.len()..]) {
        let Some(head_end) = find(next, b"\r\n\r\n") else {
            break;
        };
        let head = String::from_utf8_lossy(&next[..head_end]).to_string();
        let content = &next[head_end + 4..];
        let len = find(content, &boundary[..]).unwrap_or(content.len());
        let value = &content[..len];
        let name = head
            .split("name=\"")
            .nth(1)
            .and_then(|n| n.split('"').next())
            .unwrap_or_default()
            .to_string();
        let shown = if head.contains("filename=") {
            format!("<{} bytes>", value.len())
        } else {
            String::from_utf8_lossy(value).to_string()
        };
        out.push((name, shown));
        rest = &content[len..];
    }
    out
}

/// One accepted WebSocket connection of a [`WsServer`], with its handshake's path and query.
pub struct WsConn {
    pub ws: WebSocketStream<TcpStream>,
    pub path: String,
}

impl WsConn {
    pub async fn send(&mut self, frame: &Value) -> bool {
        self.ws.send(Message::text(frame.to_string())).await.is_ok()
    }

    /// The next JSON text frame (pings answered, others skipped); `None` when closed.
    pub async fn next(&mut self) -> Option<Value> {
        next_json(&mut self.ws).await
    }
}

/// The next JSON text frame of a WebSocket; `None` when it closed.
pub async fn next_json<S>(ws: &mut WebSocketStream<S>) -> Option<Value>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    loop {
        match ws.next().await? {
            Ok(Message::Text(t)) => {
                if let Ok(v) = serde_json::from_str(t.as_str()) {
                    return Some(v);
                }
            }
            Ok(Message::Ping(p)) => {
                let _ = ws.send(Message::Pong(p)).await;
            }
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

/// A WebSocket server on 127.0.0.1: every connection runs the handler until it returns or
/// the test cuts every connection at once ([`WsServer::drop_all`], no close frame, as a
/// network failure would).
pub struct WsServer {
    pub port: u16,
    cut: watch::Sender<u64>,
}

impl WsServer {
    pub async fn start<F, Fut>(handler: F) -> Self
    where
        F: Fn(WsConn) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        Self::guarded(|_| true, handler).await
    }

    /// Like [`WsServer::start`], refusing the handshake with 401 when `admit` (given the
    /// handshake's lower-case headers) says no.
    pub async fn guarded<A, F, Fut>(admit: A, handler: F) -> Self
    where
        A: Fn(&[(String, String)]) -> bool + Send + Sync + 'static,
        F: Fn(WsConn) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let admit = Arc::new(admit);
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind ws");
        let port = listener.local_addr().expect("ws addr").port();
        let (cut, _) = watch::channel(0u64);
        let cuts = cut.clone();
        let handler = Arc::new(handler);
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let (handler, admit) = (handler.clone(), admit.clone());
                let mut cut = cuts.subscribe();
                tokio::spawn(async move {
                    let seen: Arc<Mutex<String>> = Arc::default();
                    let record = seen.clone();
                    #[expect(clippy::result_large_err, reason = "tungstenite's callback signature")]
                    let callback = move |req: &WsRequest, resp: WsResponse| {
                        let headers: Vec<(String, String)> = req
                            .headers()
                            .iter()
                            .map(|(n, v)| {
                                (
                                    n.as_str().to_ascii_lowercase(),
                                    v.to_str().unwrap_or_default().to_string(),
                                )
                            })
                            .collect();
                        let admitted = admit(&headers);
                        *record.lock().unwrap() = req.uri().to_string();
                        if admitted {
                            Ok(resp)
                        } else {
                            let mut refusal = tokio_tungstenite::tungstenite::handshake::server::ErrorResponse::new(
                                Some("unauthorized".into()),
                            );
                            *refusal.status_mut() =
                                tokio_tungstenite::tungstenite::http::StatusCode::UNAUTHORIZED;
                            Err(refusal)
                        }
                    };
                    let Ok(ws) = tokio_tungstenite::accept_hdr_async(socket, callback).await else {
                        return;
                    };
                    let path = seen.lock().unwrap().clone();
                    tokio::select! {
                        _ = handler(WsConn { ws, path }) => {}
                        _ = cut.changed() => {}
                    }
                });
            }
        });
        Self { port, cut }
    }

    pub fn url(&self, path: &str) -> String {
        format!("ws://127.0.0.1:{}{path}", self.port)
    }

    /// Drops every open connection without a close frame.
    pub fn drop_all(&self) {
        self.cut.send_modify(|g| *g += 1);
    }
}
