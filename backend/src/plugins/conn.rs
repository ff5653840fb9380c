//! One control connection to a plugin runtime: the host's outgoing requests with their
//! waiters and timeouts, and the runtime's requests answered by the [`Host`] (each in a task
//! of its own, at most [`INBOUND_MAX`] at once, streamed replies paced by `__stream_ack`).
//! The transport (stdio lines or WebSocket messages) only moves message texts.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot, watch, Notify};

use super::wire::{self, Inbound, Reply};

/// In-flight requests from the runtime at once (the runtime's own limit, mirrored).
pub const INBOUND_MAX: usize = 128;
/// A producer stops when this many chunks are unacknowledged.
const STREAM_WINDOW: u64 = 8;

/// What a host action answers.
pub enum Answer {
    Unary(Result<Value, String>),
    /// Chunks (each a `data` object), then the `end` frame; an `Err` item ends it as an error.
    Stream(BoxStream<'static, Result<Value, String>>),
}

/// Answers the runtime's requests (the LangBot API for plugins).
#[async_trait::async_trait]
pub trait Host: Send + Sync + 'static {
    async fn handle(&self, action: &str, data: Value, context: Option<Value>) -> Answer;
}

/// Why an outgoing call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    #[error("the plugin runtime did not answer {action} within {secs} s")]
    Timeout { action: String, secs: u64 },
    #[error("the connection to the plugin runtime closed")]
    Closed,
    /// A `code ≠ 0` reply: the runtime's (or plugin's) message.
    #[error("{0}")]
    Refused(String),
}

struct Flow {
    acked: AtomicI64,
    wake: Notify,
}

pub struct Conn {
    out: mpsc::UnboundedSender<String>,
    seq: AtomicI64,
    waiters: Mutex<HashMap<i64, oneshot::Sender<Reply>>>,
    flows: Mutex<HashMap<i64, Arc<Flow>>>,
    inbound: AtomicUsize,
    closed: watch::Sender<bool>,
}

impl Conn {
    /// A connection writing message texts to `out`; feed what arrives to [`Conn::receive`].
    pub fn new(out: mpsc::UnboundedSender<String>) -> Arc<Self> {
        Arc::new(Self {
            out,
            // Python starts at a random value; any start works, the namespaces are separate.
            seq: AtomicI64::new(1000),
            waiters: Mutex::new(HashMap::new()),
            flows: Mutex::new(HashMap::new()),
            inbound: AtomicUsize::new(0),
            closed: watch::channel(false).0,
        })
    }

    pub fn is_closed(&self) -> bool {
        *self.closed.borrow()
    }

    /// Resolves when the connection closed.
    pub async fn closed(&self) {
        let mut rx = self.closed.subscribe();
        let _ = rx.wait_for(|c| *c).await;
    }

    /// Fails every waiting call with `Closed` and refuses new ones.
    pub fn close(&self) {
        self.closed.send_replace(true);
        self.waiters
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }

    /// Sends a request and waits for its (first) reply.
    pub async fn call(
        &self,
        action: &str,
        data: Value,
        context: Option<&Value>,
        timeout: Duration,
    ) -> Result<Value, CallError> {
        if self.is_closed() {
            return Err(CallError::Closed);
        }
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.waiters
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(seq, tx);
        if self
            .out
            .send(wire::request(seq, action, data, context))
            .is_err()
        {
            self.forget(seq);
            return Err(CallError::Closed);
        }
        enum Outcome {
            Reply(Reply),
            Timeout,
            Closed,
        }
        let outcome = tokio::select! {
            r = tokio::time::timeout(timeout, rx) => match r {
                Err(_) => Outcome::Timeout,
                Ok(Err(_)) => Outcome::Closed,
                Ok(Ok(r)) => Outcome::Reply(r),
            },
            () = self.closed() => Outcome::Closed,
        };
        match outcome {
            Outcome::Timeout => {
                self.forget(seq);
                // Tell the runtime to stop working on it; it may or may not manage to.
                let _ = self.out.send(wire::request(
                    self.seq.fetch_add(1, Ordering::Relaxed),
                    "__cancel_action",
                    json!({"seq_id": seq}),
                    None,
                ));
                Err(CallError::Timeout {
                    action: action.to_string(),
                    secs: timeout.as_secs(),
                })
            }
            Outcome::Closed => Err(CallError::Closed),
            Outcome::Reply(r) if r.code == 0 => Ok(r.data),
            Outcome::Reply(r) => Err(CallError::Refused(r.message)),
        }
    }

    fn forget(&self, seq: i64) {
        self.waiters
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&seq);
    }

    /// Handles one message from the peer.
    pub fn receive(self: &Arc<Self>, msg: Value, host: &Arc<dyn Host>) {
        match wire::classify(msg) {
            Some(Inbound::Response(reply)) => {
                let waiter = self
                    .waiters
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&reply.seq_id);
                if let Some(tx) = waiter {
                    let _ = tx.send(reply);
                }
            }
            Some(Inbound::Request {
                seq_id,
                action,
                data,
                context,
                flow_control,
            }) => self.request(seq_id, action, data, context, flow_control, host),
            None => {}
        }
    }

    fn request(
        self: &Arc<Self>,
        seq: i64,
        action: String,
        data: Value,
        context: Option<Value>,
        flow_control: bool,
        host: &Arc<dyn Host>,
    ) {
        // The protocol's own actions, answered here at once.
        match action.as_str() {
            "__ping" => {
                let _ = self
                    .out
                    .send(wire::success(seq, json!({"message": "pong"}), true, None));
                return;
            }
            "__stream_ack" => {
                let target = data["seq_id"].as_i64().unwrap_or(-1);
                let index = data["index"].as_i64().unwrap_or(0);
                let flow = self
                    .flows
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get(&target)
                    .cloned();
                if let Some(f) = &flow {
                    f.acked.fetch_max(index, Ordering::Relaxed);
                    f.wake.notify_waiters();
                }
                let _ = self.out.send(wire::success(
                    seq,
                    json!({"accepted": flow.is_some()}),
                    true,
                    None,
                ));
                return;
            }
            "__cancel_action" => {
                // Host actions are short and bounded by their own timeouts.
                let _ = self
                    .out
                    .send(wire::success(seq, json!({"cancelled": false}), true, None));
                return;
            }
            _ => {}
        }
        if self.inbound.fetch_add(1, Ordering::Relaxed) >= INBOUND_MAX {
            self.inbound.fetch_sub(1, Ordering::Relaxed);
            let _ = self.out.send(wire::error(
                seq,
                "Host connection is busy (max 128 concurrent actions)",
            ));
            return;
        }
        let conn = self.clone();
        let host = host.clone();
        tokio::spawn(async move {
            let answer = host.handle(&action, data, context).await;
            match answer {
                Answer::Unary(Ok(v)) => {
                    let _ = conn.out.send(wire::success(seq, v, true, None));
                }
                Answer::Unary(Err(e)) => {
                    let _ = conn.out.send(wire::error(seq, &e));
                }
                Answer::Stream(s) => conn.stream(seq, s, flow_control).await,
            }
            conn.inbound.fetch_sub(1, Ordering::Relaxed);
        });
    }

    async fn stream(
        &self,
        seq: i64,
        mut s: BoxStream<'static, Result<Value, String>>,
        flow_control: bool,
    ) {
        let flow = Arc::new(Flow {
            acked: AtomicI64::new(0),
            wake: Notify::new(),
        });
        if flow_control {
            self.flows
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(seq, flow.clone());
        }
        let mut sent: u64 = 0;
        while let Some(item) = s.next().await {
            match item {
                Ok(chunk) => {
                    if flow_control {
                        // Wait for the consumer while the window is full (or the link is gone).
                        loop {
                            let wake = flow.wake.notified();
                            let acked =
                                u64::try_from(flow.acked.load(Ordering::Relaxed)).unwrap_or(0);
                            if sent.saturating_sub(acked) < STREAM_WINDOW || self.is_closed() {
                                break;
                            }
                            let _ = tokio::time::timeout(Duration::from_secs(1), wake).await;
                        }
                    }
                    sent += 1;
                    let index = flow_control.then_some(sent);
                    let _ = self.out.send(wire::success(seq, chunk, false, index));
                }
                Err(e) => {
                    let _ = self.out.send(wire::error(seq, &e));
                    self.flows
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .remove(&seq);
                    return;
                }
            }
        }
        let index = flow_control.then_some(sent + 1);
        let _ = self.out.send(wire::success(seq, json!({}), true, index));
        self.flows
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&seq);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo;

    #[async_trait::async_trait]
    impl Host for Echo {
        async fn handle(&self, action: &str, data: Value, _: Option<Value>) -> Answer {
            match action {
                "echo" => Answer::Unary(Ok(data)),
                "count" => Answer::Stream(
                    futures_util::stream::iter((1..=20).map(|i| Ok(json!({"i": i})))).boxed(),
                ),
                other => Answer::Unary(Err(format!("Action {other} not supported"))),
            }
        }
    }

    fn parse(s: &str) -> Value {
        serde_json::from_str(s).unwrap_or_default()
    }

    #[tokio::test]
    async fn calls_get_their_replies_and_time_out() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let conn = Conn::new(tx);
        let host: Arc<dyn Host> = Arc::new(Echo);
        let c = conn.clone();
        let call = tokio::spawn(async move {
            c.call("list_tools", json!({}), None, Duration::from_secs(5))
                .await
        });
        let sent = parse(&rx.recv().await.unwrap_or_default());
        assert_eq!(sent["action"], "list_tools");
        conn.receive(
            json!({"seq_id": sent["seq_id"], "code": 0, "message": "success", "data": {"tools": []}, "chunk_status": "continue"}),
            &host,
        );
        assert_eq!(call.await.ok(), Some(Ok(json!({"tools": []}))));

        let timed = conn
            .call("call_tool", json!({}), None, Duration::from_millis(50))
            .await;
        assert!(matches!(timed, Err(CallError::Timeout { .. })));
        let _request = rx.recv().await;
        let cancel = parse(&rx.recv().await.unwrap_or_default());
        assert_eq!(cancel["action"], "__cancel_action");

        let c = conn.clone();
        let pending = tokio::spawn(async move {
            c.call("call_tool", json!({}), None, Duration::from_secs(30))
                .await
        });
        let _ = rx.recv().await;
        conn.close();
        assert_eq!(pending.await.ok(), Some(Err(CallError::Closed)));
    }

    #[tokio::test]
    async fn requests_are_answered_and_unknown_ones_refused_at_once() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let conn = Conn::new(tx);
        let host: Arc<dyn Host> = Arc::new(Echo);
        conn.receive(json!({"seq_id": 7, "action": "__ping", "data": {}}), &host);
        assert_eq!(
            parse(&rx.recv().await.unwrap_or_default())["data"]["message"],
            "pong"
        );
        conn.receive(
            json!({"seq_id": 8, "action": "echo", "data": {"a": 1}}),
            &host,
        );
        let r = parse(&rx.recv().await.unwrap_or_default());
        assert_eq!(
            (r["seq_id"].clone(), r["data"].clone()),
            (json!(8), json!({"a": 1}))
        );
        conn.receive(
            json!({"seq_id": 9, "action": "vector_upsert", "data": {}}),
            &host,
        );
        let r = parse(&rx.recv().await.unwrap_or_default());
        assert_eq!(r["code"], 1);
        assert!(r["message"]
            .as_str()
            .unwrap_or_default()
            .contains("not supported"));
    }

    #[tokio::test]
    async fn streams_wait_for_acknowledgements() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let conn = Conn::new(tx);
        let host: Arc<dyn Host> = Arc::new(Echo);
        conn.receive(
            json!({"seq_id": 3, "action": "count", "data": {}, "stream_flow_control": 1}),
            &host,
        );
        let mut got = Vec::new();
        for _ in 0..STREAM_WINDOW {
            got.push(parse(&rx.recv().await.unwrap_or_default()));
        }
        // The window is full: nothing more until an acknowledgement.
        assert!(tokio::time::timeout(Duration::from_millis(200), rx.recv())
            .await
            .is_err());
        conn.receive(
            json!({"seq_id": 50, "action": "__stream_ack", "data": {"seq_id": 3, "index": 8}}),
            &host,
        );
        let mut end = false;
        while !end {
            let v = parse(&rx.recv().await.unwrap_or_default());
            if v["seq_id"] != 3 {
                // An acknowledgement's own reply.
                assert_eq!(v["data"]["accepted"], true);
                continue;
            }
            if v["stream_index"].as_u64().is_some_and(|i| i % 8 == 0) {
                conn.receive(
                    json!({"seq_id": 51, "action": "__stream_ack", "data": {"seq_id": 3, "index": v["stream_index"]}}),
                    &host,
                );
            }
            end = v["chunk_status"] == "end";
            got.push(v);
        }
        let indexes: Vec<u64> = got
            .iter()
            .filter_map(|v| v["stream_index"].as_u64())
            .collect();
        assert_eq!(indexes, (1..=21).collect::<Vec<_>>());
        assert_eq!(got[19]["data"]["i"], 20);
    }
}
