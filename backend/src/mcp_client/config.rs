//! A server's connection settings, read from its row (`mode` + `extra_args`, LangBot's keys)
//! and checked once: the resource validates with it, the client connects with it.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use crate::config::McpStdioSettings;
use crate::entities::mcp_server;
use crate::error::{ApiError, ApiResult, ErrorCode};

/// How the server is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Streamable HTTP, falling back to legacy SSE when initialize is refused (400/404/405).
    Remote,
    /// Legacy HTTP+SSE only.
    Sse,
    /// Streamable HTTP only.
    Http,
    /// A child process speaking over stdin/stdout.
    Stdio,
}

impl Mode {
    pub const NAMES: &'static [&'static str] = &["remote", "sse", "http", "stdio"];

    pub fn parse(raw: &str) -> Option<Self> {
        Some(match raw {
            "remote" => Self::Remote,
            "sse" => Self::Sse,
            "http" => Self::Http,
            "stdio" => Self::Stdio,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Remote => "remote",
            Self::Sse => "sse",
            Self::Http => "http",
            Self::Stdio => "stdio",
        }
    }
}

/// Where to connect.
#[derive(Debug, Clone, PartialEq)]
pub enum Endpoint {
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
    },
}

/// Everything the client needs for one server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    pub uuid: String,
    pub name: String,
    pub mode: Mode,
    pub endpoint: Endpoint,
    /// Connecting and initializing (`timeout`, seconds; default 30).
    pub connect_timeout: Duration,
    /// Each tool call (`tool_call_timeout_sec`; default 300; 0 = none).
    pub call_timeout: Option<Duration>,
}

const DEFAULT_CONNECT: u64 = 30;
const DEFAULT_CALL: u64 = 300;
/// Headers the MCP transport sets itself.
const RESERVED_HEADERS: &[&str] = &["accept", "mcp-session-id", "last-event-id", "content-type"];

fn string_map(extra: &Value, key: &str) -> ApiResult<BTreeMap<String, String>> {
    match &extra[key] {
        Value::Null => Ok(BTreeMap::new()),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                _ => Err(
                    ApiError::invalid(format!("extra_args.{key} values must be strings"))
                        .field(format!("extra_args.{key}.{k}"), "must be a string"),
                ),
            })
            .collect(),
        _ => Err(
            ApiError::invalid(format!("extra_args.{key} must be an object"))
                .field(format!("extra_args.{key}"), "must be an object of strings"),
        ),
    }
}

fn seconds(extra: &Value, key: &str, default: u64, max: u64) -> ApiResult<u64> {
    let bad = || {
        ApiError::invalid(format!("extra_args.{key} must be a number of seconds")).field(
            format!("extra_args.{key}"),
            format!("must be 0 to {max} seconds"),
        )
    };
    match &extra[key] {
        Value::Null => Ok(default),
        Value::Number(n) => match n.as_f64() {
            Some(s) if (0.0..=max as f64).contains(&s) => Ok(s.ceil() as u64),
            _ => Err(bad()),
        },
        _ => Err(bad()),
    }
}

fn required_string(extra: &Value, key: &str) -> ApiResult<String> {
    match &extra[key] {
        Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
        _ => Err(ApiError::invalid(format!("extra_args.{key} is required"))
            .field(format!("extra_args.{key}"), "is required")),
    }
}

impl ServerConfig {
    /// Reads and checks a server's settings.
    pub fn parse(uuid: &str, name: &str, mode: &str, extra: &Value) -> ApiResult<Self> {
        let mode = Mode::parse(mode).ok_or_else(|| {
            ApiError::invalid("Unknown MCP server mode")
                .field("mode", "must be remote, sse, http or stdio")
        })?;
        if !extra.is_object() {
            return Err(ApiError::invalid("extra_args must be an object")
                .field("extra_args", "must be an object"));
        }
        let endpoint = match mode {
            Mode::Stdio => {
                let args = match &extra["args"] {
                    Value::Null => Vec::new(),
                    Value::Array(items) => items
                        .iter()
                        .enumerate()
                        .map(|(i, a)| {
                            a.as_str().map(str::to_string).ok_or_else(|| {
                                ApiError::invalid("extra_args.args must be strings")
                                    .field(format!("extra_args.args[{i}]"), "must be a string")
                            })
                        })
                        .collect::<ApiResult<_>>()?,
                    _ => {
                        return Err(ApiError::invalid("extra_args.args must be a list")
                            .field("extra_args.args", "must be a list of strings"))
                    }
                };
                Endpoint::Stdio {
                    command: required_string(extra, "command")?,
                    args,
                    env: string_map(extra, "env")?,
                }
            }
            _ => {
                let url = required_string(extra, "url")?;
                let parsed = url::Url::parse(&url)
                    .ok()
                    .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some());
                if parsed.is_none() {
                    return Err(ApiError::invalid("extra_args.url must be an http(s) URL")
                        .field("extra_args.url", "must be an http:// or https:// URL"));
                }
                let headers = string_map(extra, "headers")?;
                for (k, v) in &headers {
                    let lower = k.to_ascii_lowercase();
                    let valid = reqwest::header::HeaderName::from_bytes(k.as_bytes()).is_ok()
                        && reqwest::header::HeaderValue::from_str(v).is_ok();
                    if !valid || RESERVED_HEADERS.contains(&lower.as_str()) {
                        return Err(ApiError::invalid("Invalid MCP server header").field(
                            format!("extra_args.headers.{k}"),
                            "is not a header the client may set",
                        ));
                    }
                }
                Endpoint::Http { url, headers }
            }
        };
        let call = seconds(extra, "tool_call_timeout_sec", DEFAULT_CALL, 86_400)?;
        Ok(Self {
            uuid: uuid.to_string(),
            name: name.to_string(),
            mode,
            endpoint,
            connect_timeout: Duration::from_secs(
                seconds(extra, "timeout", DEFAULT_CONNECT, 600)?.max(1),
            ),
            call_timeout: (call > 0).then(|| Duration::from_secs(call)),
        })
    }

    pub fn of_row(row: &mcp_server::Model) -> ApiResult<Self> {
        Self::parse(&row.uuid, &row.name, &row.mode, &row.extra_args)
    }

    /// The secrets a message about this server must not show (header and env values).
    pub fn secrets(&self) -> Vec<String> {
        match &self.endpoint {
            Endpoint::Http { headers, .. } => headers.values().cloned().collect(),
            Endpoint::Stdio { env, .. } => env.values().cloned().collect(),
        }
    }
}

/// Whether this instance may run the command (stdio is a process on the host).
pub fn check_stdio(policy: &McpStdioSettings, command: &str) -> ApiResult<()> {
    if !policy.enabled {
        return Err(ApiError::new(ErrorCode::McpStdioDisabled).field(
            "mode",
            "stdio MCP servers are disabled (mcp.stdio.enabled / LANGBOT_MCP_STDIO_ENABLED)",
        ));
    }
    let file_name = std::path::Path::new(command)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(command);
    let allowed = policy
        .allowed_commands
        .iter()
        .any(|a| a == command || (!a.contains('/') && a == file_name && !command.contains('/')));
    if allowed {
        Ok(())
    } else {
        Err(ApiError::new(ErrorCode::McpStdioCommandNotAllowed).field(
            "extra_args.command",
            "is not in mcp.stdio.allowed_commands (LANGBOT_MCP_STDIO_ALLOWED_COMMANDS)",
        ))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn remote_defaults_and_checks() {
        let c = ServerConfig::parse(
            "u",
            "n",
            "remote",
            &json!({"url": "http://127.0.0.1:1/mcp"}),
        )
        .unwrap();
        assert_eq!(c.connect_timeout, Duration::from_secs(30));
        assert_eq!(c.call_timeout, Some(Duration::from_secs(300)));
        let zero = json!({"url": "http://h/mcp", "tool_call_timeout_sec": 0});
        assert_eq!(
            ServerConfig::parse("u", "n", "http", &zero)
                .unwrap()
                .call_timeout,
            None
        );
        for (mode, extra, field) in [
            ("remote", json!({}), "extra_args.url"),
            ("remote", json!({"url": "ftp://h"}), "extra_args.url"),
            (
                "sse",
                json!({"url": "http://h", "headers": {"a": 1}}),
                "extra_args.headers.a",
            ),
            (
                "sse",
                json!({"url": "http://h", "headers": {"Accept": "x"}}),
                "extra_args.headers.Accept",
            ),
            (
                "http",
                json!({"url": "http://h", "timeout": -1}),
                "extra_args.timeout",
            ),
            ("stdio", json!({"args": []}), "extra_args.command"),
            (
                "stdio",
                json!({"command": "x", "args": [1]}),
                "extra_args.args[0]",
            ),
            ("nope", json!({}), "mode"),
        ] {
            let err = ServerConfig::parse("u", "n", mode, &extra).unwrap_err();
            assert_eq!(err.errors[0].field, field, "{mode} {extra}");
        }
    }

    #[test]
    fn stdio_policy() {
        let mut p = McpStdioSettings {
            enabled: false,
            allowed_commands: vec!["python3".into(), "/opt/x/server".into()],
        };
        assert_eq!(
            check_stdio(&p, "python3").unwrap_err().code,
            ErrorCode::McpStdioDisabled
        );
        p.enabled = true;
        assert!(check_stdio(&p, "python3").is_ok());
        assert!(check_stdio(&p, "/opt/x/server").is_ok());
        assert_eq!(
            check_stdio(&p, "/tmp/python3").unwrap_err().code,
            ErrorCode::McpStdioCommandNotAllowed
        );
        assert!(check_stdio(&p, "bash").is_err());
    }
}
