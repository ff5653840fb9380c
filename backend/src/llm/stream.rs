//! Drives a streamed model response: frames (SSE events or NDJSON lines) go through a
//! protocol's decoder; the first frame and each next one must come within the idle timeout.

use std::pin::Pin;
use std::time::Duration;

use eventsource_stream::Eventsource;
use futures_util::{Stream, StreamExt};

use super::types::StreamEvent;
use super::{UpstreamCode, UpstreamError};

/// The events of a streaming call.
pub type ChatStream = Pin<Box<dyn Stream<Item = Result<StreamEvent, UpstreamError>> + Send>>;

/// What one frame meant.
pub(super) enum Step {
    Nothing,
    Text(String),
    /// The upstream said the reply is complete.
    End,
}

/// A protocol's reading of its stream.
pub(super) trait Decoder: Send + 'static {
    /// One frame: its SSE event name (`""` when none, or for NDJSON) and data.
    fn absorb(&mut self, event: &str, data: &str) -> Result<Step, UpstreamError>;
    /// The assembled message, usage and finish reason.
    fn finish(&mut self) -> StreamEvent;
}

/// How frames are delimited.
#[derive(Clone, Copy)]
pub(super) enum Framing {
    Sse,
    Ndjson,
}

type Frames = Pin<Box<dyn Stream<Item = Result<(String, String), String>> + Send>>;

fn frames(resp: reqwest::Response, framing: Framing) -> Frames {
    let bytes = resp.bytes_stream();
    match framing {
        Framing::Sse => Box::pin(
            bytes
                .eventsource()
                .map(|r| r.map(|e| (e.event, e.data)).map_err(|e| e.to_string())),
        ),
        Framing::Ndjson => Box::pin(ndjson_lines(bytes).map(|r| r.map(|l| (String::new(), l)))),
    }
}

/// Splits a byte stream into non-empty lines (a last unterminated line included).
fn ndjson_lines(
    bytes: impl Stream<Item = reqwest::Result<bytes::Bytes>> + Send + 'static,
) -> impl Stream<Item = Result<String, String>> + Send {
    let state = (Box::pin(bytes), Vec::<u8>::new(), false);
    futures_util::stream::unfold(state, |(mut bytes, mut buf, mut ended)| async move {
        loop {
            if let Some(pos) = buf.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = buf.drain(..=pos).collect();
                let line = String::from_utf8_lossy(&line).trim().to_string();
                if line.is_empty() {
                    continue;
                }
                return Some((Ok(line), (bytes, buf, ended)));
            }
            if ended {
                let rest = String::from_utf8_lossy(&buf).trim().to_string();
                buf.clear();
                return (!rest.is_empty()).then_some((Ok(rest), (bytes, buf, ended)));
            }
            match bytes.next().await {
                Some(Ok(chunk)) => buf.extend_from_slice(&chunk),
                Some(Err(e)) => return Some((Err(e.to_string()), (bytes, buf, true))),
                None => ended = true,
            }
        }
    })
}

struct State<D> {
    frames: Frames,
    decoder: D,
    idle: Duration,
    finished: bool,
}

/// The events of `resp`, read by `decoder`.
pub(super) fn drive<D: Decoder>(
    resp: reqwest::Response,
    framing: Framing,
    decoder: D,
    idle: Duration,
) -> ChatStream {
    let state = State {
        frames: frames(resp, framing),
        decoder,
        idle,
        finished: false,
    };
    Box::pin(futures_util::stream::unfold(state, |mut s| async move {
        if s.finished {
            return None;
        }
        loop {
            let Ok(next) = tokio::time::timeout(s.idle, s.frames.next()).await else {
                s.finished = true;
                return Some((Err(UpstreamError::timeout()), s));
            };
            let (event, data) = match next {
                None => {
                    s.finished = true;
                    let done = s.decoder.finish();
                    return Some((Ok(done), s));
                }
                Some(Err(e)) => {
                    s.finished = true;
                    let err = UpstreamError::new(
                        UpstreamCode::UpstreamError,
                        None,
                        format!("stream broken: {e}"),
                    );
                    return Some((Err(err), s));
                }
                Some(Ok(frame)) => frame,
            };
            match s.decoder.absorb(&event, &data) {
                Ok(Step::Nothing) => {}
                Ok(Step::Text(text)) => return Some((Ok(StreamEvent::Content(text)), s)),
                Ok(Step::End) => {
                    s.finished = true;
                    let done = s.decoder.finish();
                    return Some((Ok(done), s));
                }
                Err(e) => {
                    s.finished = true;
                    return Some((Err(e), s));
                }
            }
        }
    }))
}

/// Sends a streaming request: the response head must arrive within `timeout`; error statuses
/// become `UpstreamError`s.
pub(super) async fn open(
    rb: reqwest::RequestBuilder,
    timeout: Duration,
) -> Result<reqwest::Response, UpstreamError> {
    let resp = tokio::time::timeout(timeout, rb.send())
        .await
        .map_err(|_| UpstreamError::timeout())?
        .map_err(UpstreamError::transport)?;
    check(resp).await
}

/// The response, or its status and body as an `UpstreamError`.
pub(super) async fn check(resp: reqwest::Response) -> Result<reqwest::Response, UpstreamError> {
    let status = resp.status();
    if status.is_success() {
        return Ok(resp);
    }
    let text = resp.text().await.unwrap_or_default();
    Err(UpstreamError::from_response(status.as_u16(), &text))
}

/// Sends a one-shot JSON request bounded by `timeout`; answers the JSON body.
pub(super) async fn send_json(
    rb: reqwest::RequestBuilder,
    timeout: Duration,
) -> Result<serde_json::Value, UpstreamError> {
    let resp = rb
        .timeout(timeout)
        .send()
        .await
        .map_err(UpstreamError::transport)?;
    check(resp)
        .await?
        .json()
        .await
        .map_err(UpstreamError::transport)
}

/// A malformed upstream answer.
pub(super) fn unexpected(what: &str) -> UpstreamError {
    UpstreamError::new(
        UpstreamCode::UpstreamError,
        None,
        format!("unexpected {what} response"),
    )
}
