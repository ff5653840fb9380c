//! The legacy HTTP+SSE transport (MCP 2024-11-05), which rmcp no longer ships: a GET opens
//! an event stream whose first `endpoint` event names the URL messages are POSTed to;
//! the server's messages arrive as `message` events. Plugged into rmcp as a `Transport`.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use reqwest::header::{HeaderMap, ACCEPT};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleClient;
use tokio::sync::mpsc;

#[derive(Debug, thiserror::Error)]
pub enum SseError {
    #[error("HTTP {0}")]
    Status(u16),
    #[error("{0}")]
    Http(#[from] reqwest::Error),
    #[error("the event stream ended before naming its message endpoint")]
    NoEndpoint,
    #[error("the message endpoint {0:?} is not a URL on this server")]
    BadEndpoint(String),
    #[error("timed out opening the event stream")]
    Timeout,
    #[error("event stream: {0}")]
    Stream(String),
}

pub struct SseTransport {
    http: reqwest::Client,
    headers: HeaderMap,
    post_url: Arc<str>,
    inbox: mpsc::Receiver<ServerJsonRpcMessage>,
    reader: tokio::task::JoinHandle<()>,
}

impl SseTransport {
    /// Opens the stream and waits for the endpoint event.
    pub async fn connect(
        http: reqwest::Client,
        url: &str,
        headers: HeaderMap,
        timeout: Duration,
    ) -> Result<Self, SseError> {
        let base = url::Url::parse(url).map_err(|_| SseError::BadEndpoint(url.into()))?;
        let opened = async {
            let response = http
                .get(url)
                .headers(headers.clone())
                .header(ACCEPT, "text/event-stream")
                .send()
                .await?;
            if !response.status().is_success() {
                return Err(SseError::Status(response.status().as_u16()));
            }
            let mut events = response.bytes_stream().eventsource();
            loop {
                match events.next().await {
                    Some(Ok(event)) if event.event == "endpoint" => {
                        let joined = base
                            .join(event.data.trim())
                            .map_err(|_| SseError::BadEndpoint(event.data.clone()))?;
                        // Messages go to the server that streams to us, nowhere else.
                        if joined.origin() != base.origin() {
                            return Err(SseError::BadEndpoint(event.data));
                        }
                        return Ok((joined.to_string(), events));
                    }
                    Some(Ok(_)) => continue,
                    Some(Err(e)) => return Err(SseError::Stream(e.to_string())),
                    None => return Err(SseError::NoEndpoint),
                }
            }
        };
        let (post_url, mut events) = tokio::time::timeout(timeout, opened)
            .await
            .map_err(|_| SseError::Timeout)??;
        let (tx, inbox) = mpsc::channel(64);
        let reader = tokio::spawn(async move {
            while let Some(Ok(event)) = events.next().await {
                if event.event != "message" && !event.event.is_empty() {
                    continue;
                }
                match serde_json::from_str::<ServerJsonRpcMessage>(&event.data) {
                    Ok(message) => {
                        if tx.send(message).await.is_err() {
                            break;
                        }
                    }
                    Err(e) => tracing::debug!(error = %e, "unreadable MCP SSE message"),
                }
            }
            // Dropping `tx` ends `receive`: the session sees the transport closed.
        });
        Ok(Self {
            http,
            headers,
            post_url: post_url.into(),
            inbox,
            reader,
        })
    }
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseError;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), SseError>> + Send + 'static {
        let (http, url, headers) = (
            self.http.clone(),
            self.post_url.clone(),
            self.headers.clone(),
        );
        async move {
            let response = http.post(&*url).headers(headers).json(&item).send().await?;
            if response.status().is_success() {
                Ok(())
            } else {
                Err(SseError::Status(response.status().as_u16()))
            }
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.inbox.recv()
    }

    async fn close(&mut self) -> Result<(), SseError> {
        self.reader.abort();
        Ok(())
    }
}
