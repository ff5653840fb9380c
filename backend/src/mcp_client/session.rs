//! One live MCP session: connecting over the configured transport (with the streamable-HTTP →
//! SSE fallback of `remote`), what the server offers, and calls with their timeout.

use std::collections::HashMap;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{Peer, RoleClient, ServiceExt};
use serde_json::{json, Value};

use super::config::{Endpoint, Mode, ServerConfig};
use super::sse::SseTransport;

/// A tool as the server describes it.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    /// The tool's `inputSchema`.
    #[schema(value_type = Object)]
    pub parameters: Value,
}

/// Why a connection failed: a short code and the (secret-free) text.
#[derive(Debug, Clone)]
pub struct Failure {
    /// `http_<status>`, `connection_timeout`, `connection_unreachable`, `process_start`,
    /// `mcp_init`.
    pub code: String,
    pub message: String,
}

impl Failure {
    fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
        }
    }
}

/// A connected server.
pub struct Live {
    /// Owns the session; dropping it closes the session (and ends a stdio child).
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, ()>>>,
    peer: Peer<RoleClient>,
    pub transport: &'static str,
    pub tools: Vec<ToolInfo>,
    pub resources: Vec<Value>,
    pub resource_templates: Vec<Value>,
    pub resource_capabilities: Value,
    pub connected_at: DateTime<Utc>,
}

/// What a tool call gave.
#[derive(Debug, Clone)]
pub enum CallOutcome {
    /// The result as text for the model (text items joined; other items as JSON).
    Ok(String),
    /// The server's `isError` result, a timeout or a transport failure.
    Err {
        message: String,
        /// Whether the session itself looks dead (reconnect before the next call).
        broken: bool,
    },
}

fn contents_text(result: &CallToolResult) -> String {
    let parts: Vec<String> = result
        .content
        .iter()
        .map(|c| match c {
            ContentBlock::Text(t) => t.text.clone(),
            other => serde_json::to_string(other).unwrap_or_default(),
        })
        .collect();
    if parts.is_empty() {
        result
            .structured_content
            .as_ref()
            .map(Value::to_string)
            .unwrap_or_default()
    } else {
        parts.join("\n")
    }
}

impl Live {
    /// Whether the transport under the session has gone.
    pub fn is_closed(&self) -> bool {
        self.peer.is_transport_closed()
    }

    pub async fn call(
        &self,
        name: &str,
        arguments: serde_json::Map<String, Value>,
        timeout: Option<Duration>,
    ) -> CallOutcome {
        let params = CallToolRequestParams::new(name.to_string()).with_arguments(arguments);
        let call = self.peer.call_tool_once(params);
        let result = match timeout {
            Some(t) => match tokio::time::timeout(t, call).await {
                Ok(r) => r,
                Err(_) => {
                    return CallOutcome::Err {
                        message: format!("the tool did not answer within {} s", t.as_secs()),
                        broken: false,
                    }
                }
            },
            None => call.await,
        };
        match result {
            Ok(CallToolResponse::Complete(r)) if r.is_error == Some(true) => CallOutcome::Err {
                message: contents_text(&r),
                broken: false,
            },
            Ok(CallToolResponse::Complete(r)) => CallOutcome::Ok(contents_text(&r)),
            Ok(_) => CallOutcome::Err {
                message: "the server asked for input this client cannot give".into(),
                broken: false,
            },
            Err(rmcp::ServiceError::McpError(e)) => CallOutcome::Err {
                message: e.message.to_string(),
                broken: false,
            },
            Err(e) => CallOutcome::Err {
                message: format!("the MCP session failed: {e}"),
                broken: true,
            },
        }
    }

    /// Ends the session (a DELETE for streamable HTTP; the child is stopped for stdio).
    pub async fn close(&self) {
        if let Some(mut service) = self.service.lock().await.take() {
            let _ = service.close_with_timeout(Duration::from_secs(3)).await;
        }
    }
}

/// The HTTP clients the transports use: ours (0.12) for SSE, rmcp's (0.13) for streamable HTTP.
#[derive(Clone)]
pub struct Clients {
    pub sse: reqwest::Client,
}

fn http_failure(status: u16) -> Failure {
    Failure::new(
        format!("http_{status}"),
        format!("the server answered HTTP {status}"),
    )
}

/// The HTTP status an initialize failure carries, if any (decides the SSE fallback).
fn status_of(error: &(dyn std::error::Error + 'static)) -> Option<u16> {
    type Streamable =
        rmcp::transport::streamable_http_client::StreamableHttpError<reqwest_mcp::Error>;
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = current {
        if let Some(s) = e.downcast_ref::<Streamable>() {
            match s {
                Streamable::HttpStatus(h) => return Some(h.status),
                Streamable::Client(c) => {
                    if let Some(status) = c.status() {
                        return Some(status.as_u16());
                    }
                }
                _ => {}
            }
        }
        if let Some(r) = e.downcast_ref::<reqwest_mcp::Error>() {
            if let Some(status) = r.status() {
                return Some(status.as_u16());
            }
        }
        if let Some(super::sse::SseError::Status(status)) = e.downcast_ref::<super::sse::SseError>()
        {
            return Some(*status);
        }
        current = e.source();
    }
    None
}

fn unreachable(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = current {
        if let Some(r) = e.downcast_ref::<reqwest_mcp::Error>() {
            if r.is_connect() {
                return true;
            }
        }
        if let Some(r) = e.downcast_ref::<reqwest::Error>() {
            if r.is_connect() {
                return true;
            }
        }
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::ConnectionRefused {
                return true;
            }
        }
        current = e.source();
    }
    false
}

fn failure_of(error: &(dyn std::error::Error + 'static)) -> Failure {
    if let Some(status) = status_of(error) {
        return http_failure(status);
    }
    if unreachable(error) {
        return Failure::new(
            "connection_unreachable",
            format!("the server cannot be reached: {error}"),
        );
    }
    Failure::new("mcp_init", format!("the MCP handshake failed: {error}"))
}

type Service = RunningService<RoleClient, ()>;

async fn serve<T, E, A>(transport: T, timeout: Duration) -> Result<Service, Failure>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    match tokio::time::timeout(timeout, ().serve(transport)).await {
        Err(_) => Err(Failure::new(
            "connection_timeout",
            format!("no answer to initialize within {} s", timeout.as_secs()),
        )),
        Ok(Err(e)) => Err(failure_of(&e)),
        Ok(Ok(service)) => Ok(service),
    }
}

/// rmcp's HTTP client is built without a TLS provider of its own: it gets the ring one the
/// rest of the process uses (no second crypto library).
fn install_tls_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

async fn streamable(
    cfg: &ServerConfig,
    url: &str,
    headers: &HashMap<String, String>,
) -> Result<Service, Failure> {
    install_tls_provider();
    let client = reqwest_mcp::Client::builder()
        .connect_timeout(cfg.connect_timeout)
        .build()
        .map_err(|e| Failure::new("session_create", e.to_string()))?;
    let mut custom = HashMap::new();
    for (k, v) in headers {
        if let (Ok(name), Ok(value)) = (
            reqwest_mcp::header::HeaderName::from_bytes(k.as_bytes()),
            reqwest_mcp::header::HeaderValue::from_str(v),
        ) {
            custom.insert(name, value);
        }
    }
    let config =
        StreamableHttpClientTransportConfig::with_uri(url.to_string()).custom_headers(custom);
    serve(
        StreamableHttpClientTransport::with_client(client, config),
        cfg.connect_timeout,
    )
    .await
}

async fn sse(
    cfg: &ServerConfig,
    clients: &Clients,
    url: &str,
    headers: &HashMap<String, String>,
) -> Result<Service, Failure> {
    let mut map = reqwest::header::HeaderMap::new();
    for (k, v) in headers {
        if let (Ok(name), Ok(value)) = (
            reqwest::header::HeaderName::from_bytes(k.as_bytes()),
            reqwest::header::HeaderValue::from_str(v),
        ) {
            map.insert(name, value);
        }
    }
    let transport = SseTransport::connect(clients.sse.clone(), url, map, cfg.connect_timeout)
        .await
        .map_err(|e| match &e {
            super::sse::SseError::Status(s) => http_failure(*s),
            super::sse::SseError::Timeout => Failure::new("connection_timeout", e.to_string()),
            super::sse::SseError::Http(r) if r.is_connect() => Failure::new(
                "connection_unreachable",
                format!("the server cannot be reached: {e}"),
            ),
            _ => Failure::new("mcp_init", e.to_string()),
        })?;
    serve(transport, cfg.connect_timeout).await
}

async fn stdio(
    cfg: &ServerConfig,
    command: &str,
    args: &[String],
    env: &std::collections::BTreeMap<String, String>,
) -> Result<Service, Failure> {
    let mut cmd = tokio::process::Command::new(command);
    cmd.args(args).envs(env).kill_on_drop(true);
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| Failure::new("process_start", format!("could not start {command}: {e}")))?;
    serve(transport, cfg.connect_timeout).await
}

/// Connects, initializes, and reads what the server offers.
pub async fn connect(cfg: &ServerConfig, clients: &Clients) -> Result<Live, Failure> {
    let (service, transport) = match (&cfg.endpoint, cfg.mode) {
        (Endpoint::Stdio { command, args, env }, _) => {
            (stdio(cfg, command, args, env).await?, "stdio")
        }
        (Endpoint::Http { url, headers }, mode) => {
            let headers: HashMap<String, String> = headers.clone().into_iter().collect();
            match mode {
                Mode::Sse => (sse(cfg, clients, url, &headers).await?, "sse"),
                Mode::Http => (streamable(cfg, url, &headers).await?, "streamable-http"),
                _ => match streamable(cfg, url, &headers).await {
                    Ok(s) => (s, "streamable-http"),
                    // A server that answered but refused the streamable handshake (400/404/405,
                    // which rmcp's worker does not always surface as a status) may be legacy
                    // SSE; a timeout or an unreachable host is not tried twice.
                    Err(f)
                        if !matches!(
                            f.code.as_str(),
                            "connection_timeout" | "connection_unreachable"
                        ) =>
                    {
                        match sse(cfg, clients, url, &headers).await {
                            Ok(s) => (s, "sse"),
                            Err(_) => return Err(f),
                        }
                    }
                    Err(f) => return Err(f),
                },
            }
        }
    };
    let peer = service.peer().clone();
    let listing = async {
        let tools = peer.list_all_tools().await;
        let caps = peer
            .peer_info()
            .and_then(|i| i.capabilities.resources.clone());
        let (resources, templates) = if caps.is_some() {
            (
                peer.list_all_resources().await.unwrap_or_default(),
                peer.list_all_resource_templates().await.unwrap_or_default(),
            )
        } else {
            (Vec::new(), Vec::new())
        };
        (tools, caps, resources, templates)
    };
    let (tools, caps, resources, templates) = tokio::time::timeout(cfg.connect_timeout, listing)
        .await
        .map_err(|_| {
            Failure::new(
                "connection_timeout",
                "the server did not list its tools in time",
            )
        })?;
    let tools = tools.map_err(|e| Failure::new("mcp_init", format!("tools/list failed: {e}")))?;
    Ok(Live {
        transport,
        tools: tools
            .into_iter()
            .map(|t| ToolInfo {
                name: t.name.to_string(),
                description: t.description.map(|d| d.to_string()).unwrap_or_default(),
                parameters: Value::Object((*t.input_schema).clone()),
            })
            .collect(),
        resources: resources.iter().map(resource_json).collect(),
        resource_templates: templates.iter().map(template_json).collect(),
        resource_capabilities: caps.map(|c| json!(c)).unwrap_or_else(|| json!({})),
        connected_at: Utc::now(),
        peer,
        service: tokio::sync::Mutex::new(Some(service)),
    })
}

fn resource_json(r: &rmcp::model::Resource) -> Value {
    json!({
        "uri": r.uri,
        "name": r.name,
        "title": r.title.clone().unwrap_or_default(),
        "description": r.description.clone().unwrap_or_default(),
        "mime_type": r.mime_type.clone().unwrap_or_default(),
        "size": r.size,
    })
}

fn template_json(t: &rmcp::model::ResourceTemplate) -> Value {
    json!({
        "uri_template": t.uri_template,
        "name": t.name,
        "title": t.title.clone().unwrap_or_default(),
        "description": t.description.clone().unwrap_or_default(),
        "mime_type": t.mime_type.clone().unwrap_or_default(),
    })
}
