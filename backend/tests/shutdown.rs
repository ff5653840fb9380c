//! Graceful shutdown of the real binary: SIGTERM stops accepting, lets an accepted turn
//! finish (its reply is delivered) and exits 0 within the drain time; a second signal
//! exits at once.

#![expect(
    clippy::expect_used,
    reason = "in a test, a failed expectation is a failed test"
)]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

/// A loopback stand-in for a model (answers every chat completion after `delay`, as an SSE
/// stream) and for the bot's callback receiver (reports each delivered body).
async fn upstream(delay: Duration) -> (u16, mpsc::UnboundedReceiver<Value>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let tx = tx.clone();
            tokio::spawn(async move {
                let Some((head, body)) = read_request(&mut socket).await else {
                    return;
                };
                let response = if head.contains("/chat/completions") {
                    tokio::time::sleep(delay).await;
                    let chunk = json!({ "choices": [{ "index": 0,
                        "delta": { "role": "assistant", "content": "drained" }, "finish_reason": "stop" }] });
                    let sse = format!("data: {chunk}\n\ndata: [DONE]\n\n");
                    format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{sse}", sse.len())
                } else {
                    let _ = tx.send(serde_json::from_slice(&body).unwrap_or(Value::Null));
                    "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}".into()
                };
                let _ = socket.write_all(response.as_bytes()).await;
            });
        }
    });
    (port, rx)
}

async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            while buf.len() < end + 4 + length {
                let n = socket.read(&mut chunk).await.ok()?;
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            return Some((head, buf[end + 4..].to_vec()));
        }
    }
}

struct Server {
    child: Child,
    base: String,
    _dir: tempfile::TempDir,
}

impl Server {
    fn start(drain: &str) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let child = Command::new(env!("CARGO_BIN_EXE_langbot"))
            .env("LANGBOT_DATA_DIR", dir.path())
            .env("LANGBOT_HTTP_ADDR", format!("127.0.0.1:{port}"))
            .env("LANGBOT_DRAIN_TIMEOUT", drain)
            .env("LANGBOT_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start langbot");
        Self {
            child,
            base: format!("http://127.0.0.1:{port}"),
            _dir: dir,
        }
    }

    fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([format!("-{name}"), self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
    }

    /// Waits up to `limit` for the process to exit; its exit code.
    async fn exit_within(&mut self, limit: Duration) -> Option<i32> {
        let started = Instant::now();
        while started.elapsed() < limit {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code().or(Some(-1));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        None
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An owner, a provider on the fake model, a default pipeline and an http_bot bot whose
/// callbacks go to the fake; the bot's uuid.
async fn bot(http: &reqwest::Client, base: &str, upstream: u16) -> String {
    for _ in 0..100 {
        if http.get(format!("{base}/readyz")).send().await.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let api = |path: &str| format!("{base}/api/v1{path}");
    let credentials = json!({ "user": "owner@example.com", "password": "a-long-password" });
    http.post(api("/user/init"))
        .json(&credentials)
        .send()
        .await
        .expect("init");
    let login: Value = http
        .post(api("/user/auth"))
        .json(&credentials)
        .send()
        .await
        .expect("auth")
        .json()
        .await
        .expect("json");
    let token = login["data"]["token"].as_str().expect("token").to_string();
    let post =
        |path: &str, body: Value| http.post(api(path)).bearer_auth(&token).json(&body).send();
    let data = |v: Value| v["data"]["uuid"].as_str().expect("uuid").to_string();
    let provider = data(
        post(
            "/provider/providers",
            json!({ "name": "fake", "requester": "openai-chat-completions",
        "base_url": format!("http://127.0.0.1:{upstream}/v1"), "api_keys": ["sk-test"] }),
        )
        .await
        .expect("provider")
        .json()
        .await
        .expect("json"),
    );
    let model = data(
        post(
            "/provider/models/llm",
            json!({ "name": "m", "provider_uuid": provider }),
        )
        .await
        .expect("model")
        .json()
        .await
        .expect("json"),
    );
    post("/pipelines", json!({ "name": "p", "is_default": true,
        "config": { "ai": { "runner_config": { "local-agent": { "model": { "primary": model } } } } } }))
        .await
        .expect("pipeline");
    data(
        post(
            "/platform/bots",
            json!({ "name": "b", "adapter": "http_bot", "enable": true,
        "adapter_config": { "inbound_secret": "in", "signature_required": false,
            "callback_url": format!("http://127.0.0.1:{upstream}/cb") } }),
        )
        .await
        .expect("bot")
        .json()
        .await
        .expect("json"),
    )
}

#[tokio::test]
async fn sigterm_lets_an_accepted_turn_finish_then_exits_zero() {
    let (upstream, mut callbacks) = upstream(Duration::from_millis(1500)).await;
    let mut server = Server::start("10s");
    let http = reqwest::Client::new();
    let bot = bot(&http, &server.base, upstream).await;
    let accepted = http
        .post(format!("{}/bots/{bot}", server.base))
        .json(&json!({ "session_id": "s1", "message": [{ "type": "Plain", "text": "hello" }] }))
        .send()
        .await
        .expect("send");
    assert_eq!(accepted.status().as_u16(), 202);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let signalled = Instant::now();
    server.signal("TERM");
    // New connections are refused soon after the signal.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let refused = reqwest::Client::new()
        .get(format!("{}/healthz", server.base))
        .timeout(Duration::from_secs(2))
        .send()
        .await;
    assert!(refused.is_err(), "a stopping server took a new connection");
    // The turn that was accepted before the signal still delivers its reply.
    let delivered = tokio::time::timeout(Duration::from_secs(8), callbacks.recv())
        .await
        .expect("the reply is delivered while draining")
        .expect("a callback");
    assert_eq!(delivered["message"][0]["text"], "drained", "{delivered}");
    let code = server.exit_within(Duration::from_secs(8)).await;
    assert_eq!(code, Some(0));
    assert!(
        signalled.elapsed() < Duration::from_secs(10),
        "exited within the drain time"
    );
}

#[tokio::test]
async fn a_second_signal_exits_at_once() {
    let (upstream, _callbacks) = upstream(Duration::from_secs(30)).await;
    let mut server = Server::start("60s");
    let http = reqwest::Client::new();
    let bot = bot(&http, &server.base, upstream).await;
    let accepted = http
        .post(format!("{}/bots/{bot}", server.base))
        .json(&json!({ "session_id": "s1", "message": [{ "type": "Plain", "text": "hello" }] }))
        .send()
        .await
        .expect("send");
    assert_eq!(accepted.status().as_u16(), 202);
    tokio::time::sleep(Duration::from_millis(200)).await;
    server.signal("TERM");
    // The turn waits 30 s on its model, so the first signal alone keeps the process draining.
    assert_eq!(server.exit_within(Duration::from_millis(700)).await, None);
    server.signal("INT");
    let code = server.exit_within(Duration::from_secs(2)).await;
    assert_eq!(code, Some(130));
}

#[tokio::test]
async fn work_outliving_the_drain_time_does_not_hold_the_exit_past_it() {
    // The model hangs far longer than the drain time: an accepted turn and an open `/sync`
    // request are still waiting on it when the drain time is over.
    let (upstream, _callbacks) = upstream(Duration::from_secs(30)).await;
    let mut server = Server::start("3s");
    let http = reqwest::Client::new();
    let bot = bot(&http, &server.base, upstream).await;
    let message = json!({ "session_id": "s1", "message": [{ "type": "Plain", "text": "hello" }] });
    let accepted = http
        .post(format!("{}/bots/{bot}", server.base))
        .json(&message)
        .send()
        .await
        .expect("send");
    assert_eq!(accepted.status().as_u16(), 202);
    let sync = http
        .post(format!("{}/bots/{bot}/sync", server.base))
        .json(&json!({ "session_id": "s2", "message": [{ "type": "Plain", "text": "hi" }] }))
        .send();
    let open = tokio::spawn(sync);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let signalled = Instant::now();
    server.signal("TERM");
    let code = server.exit_within(Duration::from_secs(6)).await;
    let took = signalled.elapsed();
    assert_eq!(code, Some(0), "after {took:?}");
    // The whole stop, signal to exit, within the drain time: no slack.
    assert!(
        took <= Duration::from_secs(3),
        "exited {took:?} after SIGTERM with a 3 s drain time"
    );
    // The open request was cut, not answered.
    let cut = open.await.expect("join");
    assert!(
        cut.is_err() || cut.is_ok_and(|r| !r.status().is_success()),
        "the /sync outliving the drain was answered"
    );
}
