//! The test MCP server (`tests/fixtures/mcp_server.py`, the official Python SDK) as a child
//! process: started on a free loopback port over streamable HTTP (stateful or stateless) or
//! legacy SSE, waited for until it accepts connections, killed (its whole process group) and
//! restarted on the same port; its call log (one JSON line per tool call, with start and end
//! times) read back for concurrency assertions. Over stdio the app starts it itself: this
//! module gives the command, arguments and environment to configure.
//!
//! The Python comes from `TEST_MCP_PYTHON` (set by `scripts/test-all.sh`; locally:
//! `source scripts/lib/mcp_venv.sh; ensure_mcp_venv; export TEST_MCP_PYTHON=$MCP_PYTHON`).

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The fixture server's transports the tests start themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Streamable HTTP with sessions (`/mcp`).
    StreamableHttp,
    /// Streamable HTTP without sessions (`/mcp`, `--stateless`).
    StatelessHttp,
    /// Legacy HTTP+SSE (GET `/sse`, POST `/messages/`).
    Sse,
}

impl Transport {
    fn args(self, port: u16) -> Vec<String> {
        let port = port.to_string();
        match self {
            Transport::StreamableHttp => vec!["streamable-http".into(), port],
            Transport::StatelessHttp => vec!["streamable-http".into(), port, "--stateless".into()],
            Transport::Sse => vec!["sse".into(), port],
        }
    }

    fn endpoint(self) -> &'static str {
        match self {
            Transport::StreamableHttp | Transport::StatelessHttp => "/mcp",
            Transport::Sse => "/sse",
        }
    }

    /// The `mode` of an MCP server row that speaks this transport and nothing else.
    pub fn mode(self) -> &'static str {
        match self {
            Transport::StreamableHttp | Transport::StatelessHttp => "http",
            Transport::Sse => "sse",
        }
    }
}

/// The tools the fixture server exposes.
pub const FIXTURE_TOOLS: [&str; 6] = ["echo", "sleep", "fail", "large", "whoami", "env"];

/// The Python interpreter with `mcp` installed (`TEST_MCP_PYTHON`); panics when unset.
pub fn python() -> String {
    match std::env::var("TEST_MCP_PYTHON") {
        Ok(p) if !p.trim().is_empty() => p,
        _ => panic!(
            "TEST_MCP_PYTHON is not set: it names the Python with mcp==1.30.0 installed. \
             scripts/test-all.sh sets it; locally run `source scripts/lib/mcp_venv.sh; \
             ensure_mcp_venv; export TEST_MCP_PYTHON=$MCP_PYTHON`"
        ),
    }
}

/// The fixture server script.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mcp_server.py")
}

/// One line of the call log.
#[derive(Debug, Clone)]
pub struct LoggedCall {
    pub tool: String,
    pub arguments: Value,
    /// Epoch seconds.
    pub start: f64,
    pub end: f64,
}

impl LoggedCall {
    /// Whether the two calls ran at the same time for a while.
    pub fn overlaps(&self, other: &LoggedCall) -> bool {
        self.start < other.end && other.start < self.end
    }
}

/// Reads a call log (missing file: no calls).
pub fn read_call_log(path: &Path) -> Vec<LoggedCall> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("call log line {l:?} is not JSON: {e}"));
            LoggedCall {
                tool: v["tool"].as_str().unwrap_or_default().to_string(),
                arguments: v["arguments"].clone(),
                start: v["start"].as_f64().expect("start"),
                end: v["end"].as_f64().expect("end"),
            }
        })
        .collect()
}

/// The `extra_args` of a `stdio` MCP server running the fixture, logging its calls to `log`.
pub fn stdio_extra_args(log: &Path) -> Value {
    json!({
        "command": python(),
        "args": [script().to_string_lossy(), "stdio"],
        "env": { "MCP_CALL_LOG": log.to_string_lossy() },
    })
}

/// A free loopback port (bound, then released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// A loopback port nothing listens on (for "server unreachable").
pub fn dead_url() -> String {
    format!("http://127.0.0.1:{}/mcp", free_port())
}

/// A running fixture server; killed on drop.
pub struct McpFixture {
    transport: Transport,
    port: u16,
    child: Option<Child>,
    dir: tempfile::TempDir,
}

impl McpFixture {
    /// Starts the server over `transport` on a free port and waits until it accepts.
    pub async fn start(transport: Transport) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut fixture = Self {
            transport,
            port: free_port(),
            child: None,
            dir,
        };
        fixture.launch().await;
        fixture
    }

    fn stderr_path(&self) -> PathBuf {
        self.dir.path().join("stderr.log")
    }

    async fn launch(&mut self) {
        assert!(
            self.child.is_none(),
            "the fixture server is already running"
        );
        let stderr = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.stderr_path())
            .expect("stderr log");
        let child = Command::new(python())
            .arg(script())
            .args(self.transport.args(self.port))
            .env("MCP_CALL_LOG", self.call_log_path())
            .env("PYTHONUNBUFFERED", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {} {}: {e}", python(), script().display()));
        self.child = Some(child);
        self.wait_ready().await;
    }

    /// Waits (up to 30 s) until the port accepts; panics with the server's stderr if it exits.
    async fn wait_ready(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                panic!(
                    "the MCP fixture server exited with {status}: {}",
                    std::fs::read_to_string(self.stderr_path()).unwrap_or_default()
                );
            }
            if tokio::net::TcpStream::connect(("127.0.0.1", self.port))
                .await
                .is_ok()
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the MCP fixture server never listened on port {}: {}",
                self.port,
                std::fs::read_to_string(self.stderr_path()).unwrap_or_default()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT/mcp` (streamable HTTP) or `…/sse` (legacy SSE).
    pub fn url(&self) -> String {
        format!(
            "http://127.0.0.1:{}{}",
            self.port,
            self.transport.endpoint()
        )
    }

    /// The `extra_args` of an MCP server row pointing at this fixture, with `extra` merged in.
    pub fn extra_args(&self, extra: Value) -> Value {
        let mut args = json!({ "url": self.url() });
        for (k, v) in extra.as_object().cloned().unwrap_or_default() {
            args[k] = v;
        }
        args
    }

    /// Where the server appends one JSON line per tool call.
    pub fn call_log_path(&self) -> PathBuf {
        self.dir.path().join("calls.jsonl")
    }

    /// The tool calls the server logged so far.
    pub fn calls(&self) -> Vec<LoggedCall> {
        read_call_log(&self.call_log_path())
    }

    /// Whether the server process is running.
    pub fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| matches!(c.try_wait(), Ok(None)))
    }

    /// Kills the server's process group (SIGKILL) and reaps it; a no-op when not running.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let pgid = child.id();
            let _ = Command::new("kill")
                .args(["-s", "KILL", "--", &format!("-{pgid}")])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Kills the server and starts it again on the same port (same call log).
    pub async fn restart(&mut self) {
        self.kill();
        self.launch().await;
    }
}

impl Drop for McpFixture {
    fn drop(&mut self) {
        self.kill();
    }
}
