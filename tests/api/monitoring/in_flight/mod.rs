//! The live in-flight feed: `GET /api/v1/monitoring/in-flight/stream` (SSE) and the
//! `GET /api/v1/monitoring/in-flight` snapshot. Frames are `data: <json>\n\n` with
//! `{"kind":"snapshot","data":{items,active_total,truncated}}` or `{"kind":"heartbeat"}`.
//! Covered: live updates on the same replica and, over Redis pub/sub, across replicas (also
//! after a Redis outage); the heartbeat after silence; the connection lifetime and a
//! reconnect; the per-Workspace and total viewer caps (429 `rate_limited` with `Retry-After`)
//! and a freed slot; authentication, `resource.view` and Workspace isolation; what the
//! snapshot lists (live and recent executions, newest first, truncated beyond 100).

mod access;
mod caps;
mod lifetime;
mod snapshot;
mod updates;

use std::time::Duration;

use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use reqwest::Method;
use serde_json::Value;
use tokio::time::Instant;

use crate::helpers::{Cred, Response, TestApp};

const STREAM: &str = "/api/v1/monitoring/in-flight/stream";
const SNAPSHOT: &str = "/api/v1/monitoring/in-flight";

/// How long the fake model takes, so a turn stays in flight (under the provider's 5 s timeout).
const SLOW: Duration = Duration::from_secs(3);

/// An open SSE response, read frame by frame.
struct Feed {
    body: BoxStream<'static, reqwest::Result<Vec<u8>>>,
    buf: Vec<u8>,
}

/// What waiting for the next frame gave.
#[derive(Debug)]
enum Next {
    Frame(Value),
    Ended,
    Silent,
}

/// Opens the stream on `app` as `cred` (in `workspace` when given): the feed on 200, the
/// parsed response otherwise. Each viewer gets its own client (its own connection), so
/// dropping the feed closes the connection.
async fn try_open(app: &TestApp, cred: &Cred, workspace: Option<&str>) -> Result<Feed, Response> {
    let mut req = app
        .request_on_own_connection(Method::GET, STREAM)
        .cred(cred);
    if let Some(ws) = workspace {
        req = req.header("x-workspace-id", ws);
    }
    let res = tokio::time::timeout(Duration::from_secs(10), req.send_unread())
        .await
        .expect("the stream answered within 10 s");
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    if status == 200 {
        let content_type = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        assert!(
            content_type.starts_with("text/event-stream"),
            "content-type {content_type:?}"
        );
        return Ok(Feed {
            body: res.bytes_stream().map(|c| c.map(|b| b.to_vec())).boxed(),
            buf: Vec::new(),
        });
    }
    let text = tokio::time::timeout(Duration::from_secs(10), res.text())
        .await
        .expect("the refusal body within 10 s")
        .expect("read refusal body");
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    Err(Response {
        status,
        headers,
        text,
        body,
    })
}

/// Opens the stream, asserting it is accepted.
async fn open(app: &TestApp, cred: &Cred, workspace: Option<&str>) -> Feed {
    match try_open(app, cred, workspace).await {
        Ok(feed) => feed,
        Err(res) => panic!("stream refused: {} {}", res.status, res.text),
    }
}

/// Opens the stream, asserting it is refused; returns the refusal.
async fn refused(app: &TestApp, cred: &Cred, workspace: Option<&str>) -> Response {
    match try_open(app, cred, workspace).await {
        Ok(_) => panic!("the stream was accepted ({cred:?}, workspace {workspace:?})"),
        Err(res) => res,
    }
}

/// Asserts a 429 `rate_limited` refusal with a positive `Retry-After`.
fn assert_capped(res: &Response) {
    res.assert_error(429, "rate_limited");
    let retry: u64 = res
        .header("retry-after")
        .unwrap_or_else(|| panic!("no Retry-After: {:?}", res.headers))
        .parse()
        .expect("numeric Retry-After");
    assert!(retry >= 1, "Retry-After {retry}");
}

impl Feed {
    /// The next frame, the end of the body, or silence for `within`.
    async fn next(&mut self, within: Duration) -> Next {
        let deadline = Instant::now() + within;
        loop {
            if let Some(end) = self.buf.windows(2).position(|w| w == b"\n\n") {
                let raw: Vec<u8> = self.buf.drain(..end + 2).collect();
                let raw = String::from_utf8(raw).expect("UTF-8 frame");
                let data: Vec<&str> = raw
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if data.is_empty() {
                    continue;
                }
                let frame = data.join("\n");
                return Next::Frame(
                    serde_json::from_str(&frame)
                        .unwrap_or_else(|e| panic!("frame is not JSON ({e}): {frame:?}")),
                );
            }
            match tokio::time::timeout_at(deadline, self.body.next()).await {
                Err(_) => return Next::Silent,
                Ok(None) => {
                    assert!(
                        self.buf.iter().all(u8::is_ascii_whitespace),
                        "the body ended inside a frame: {:?}",
                        String::from_utf8_lossy(&self.buf)
                    );
                    return Next::Ended;
                }
                Ok(Some(Err(e))) => panic!("reading the stream failed: {e}"),
                Ok(Some(Ok(chunk))) => self.buf.extend_from_slice(&chunk),
            }
        }
    }

    /// The next frame, which must come within `within`.
    async fn frame(&mut self, within: Duration) -> Value {
        match self.next(within).await {
            Next::Frame(f) => f,
            other => panic!("expected a frame within {within:?}, got {other:?}"),
        }
    }

    /// The first snapshot frame: the one a viewer gets on connecting.
    async fn first_snapshot(&mut self) -> Value {
        let frame = self.frame(Duration::from_secs(5)).await;
        assert_eq!(frame["kind"], "snapshot", "the first frame: {frame}");
        assert_snapshot_shape(&frame["data"]);
        frame["data"].clone()
    }

    /// Reads frames until a snapshot satisfies `pred` (returning its data); panics with the
    /// frames seen if none does within `within`.
    async fn snapshot_where(
        &mut self,
        within: Duration,
        what: &str,
        pred: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = Instant::now() + within;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next(left).await {
                Next::Frame(f) if f["kind"] == "snapshot" => {
                    assert_snapshot_shape(&f["data"]);
                    if pred(&f["data"]) {
                        return f["data"].clone();
                    }
                    seen.push(f);
                }
                Next::Frame(f) => seen.push(f),
                other => panic!(
                    "no snapshot where {what} within {within:?} ({other:?}); frames: {seen:#?}"
                ),
            }
        }
    }
}

fn assert_snapshot_shape(data: &Value) {
    assert!(data["items"].is_array(), "{data}");
    assert!(data["active_total"].is_u64(), "{data}");
    assert!(data["truncated"].is_boolean(), "{data}");
}

fn items(snapshot: &Value) -> &[Value] {
    snapshot["items"].as_array().map_or(&[], Vec::as_slice)
}

/// The item of a running execution at the `ai` stage in session `session`.
fn running_in<'a>(snapshot: &'a Value, session: &str) -> Option<&'a Value> {
    items(snapshot).iter().find(|i| {
        i["session_id"] == session && i["status"] == "running" && i["progress_event"] == "ai"
    })
}

/// Polls the snapshot endpoint until a running execution at the `ai` stage shows in `session`.
async fn wait_running(app: &TestApp, token: &str, session: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let snap = app.get_as(token, SNAPSHOT).await;
        let data = snap.data().clone();
        if running_in(&data, session).is_some() {
            return data;
        }
        assert!(
            Instant::now() < deadline,
            "no running execution in {session} within 5 s: {data}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Accepted within `within` once a slot frees up (refusals meanwhile must be the cap's 429).
async fn open_when_free(
    app: &TestApp,
    cred: &Cred,
    workspace: Option<&str>,
    within: Duration,
) -> Feed {
    let deadline = Instant::now() + within;
    loop {
        match try_open(app, cred, workspace).await {
            Ok(feed) => return feed,
            Err(res) => {
                assert_capped(&res);
                assert!(
                    Instant::now() < deadline,
                    "the slot of a dropped viewer was not freed within {within:?}"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
}
