//! The helpers themselves, against the real fixture server (no app involved): the launcher
//! starts it over each transport, it answers MCP, runs calls concurrently, logs them, and
//! comes back on the same port after a restart; over stdio the configured command speaks MCP.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::helpers::mcp_fixture::{
    python, script, stdio_extra_args, McpFixture, Transport, FIXTURE_TOOLS,
};

const ACCEPT: &str = "application/json, text/event-stream";

/// A tiny streamable-HTTP MCP client (JSON or SSE answers) for checking the fixture.
struct Client {
    http: reqwest::Client,
    url: String,
    session: Option<String>,
}

impl Client {
    async fn connect(url: &str) -> Client {
        let mut c = Client {
            http: reqwest::Client::new(),
            url: url.to_string(),
            session: None,
        };
        let init = c
            .rpc(
                "initialize",
                json!({ "protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": { "name": "api-tests", "version": "0" } }),
            )
            .await;
        assert_eq!(
            init["result"]["serverInfo"]["name"], "langbot-test-tools",
            "{init}"
        );
        c.notify("notifications/initialized").await;
        c
    }

    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        let mut req = self
            .http
            .post(&self.url)
            .header("accept", ACCEPT)
            .json(body);
        if let Some(s) = &self.session {
            req = req.header("mcp-session-id", s);
        }
        req
    }

    async fn notify(&self, method: &str) {
        let res = self
            .post(&json!({ "jsonrpc": "2.0", "method": method }))
            .send()
            .await
            .expect("notify");
        assert!(res.status().is_success(), "{method}: {}", res.status());
    }

    async fn rpc(&mut self, method: &str, params: Value) -> Value {
        let res = self
            .post(&json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }))
            .send()
            .await
            .expect("rpc");
        assert_eq!(res.status(), 200, "{method}");
        if let Some(s) = res.headers().get("mcp-session-id") {
            self.session = Some(s.to_str().expect("session id").to_string());
        }
        let sse = res.headers().get("content-type").is_some_and(|c| {
            c.to_str()
                .unwrap_or_default()
                .starts_with("text/event-stream")
        });
        let text = res.text().await.expect("body");
        if !sse {
            return serde_json::from_str(&text).expect("JSON-RPC answer");
        }
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|v| v.get("id").is_some())
            .unwrap_or_else(|| panic!("{method}: no answer in {text:?}"))
    }

    async fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.rpc(
            "tools/call",
            json!({ "name": tool, "arguments": arguments }),
        )
        .await
    }
}

fn text_of(answer: &Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content: {answer}"))
        .to_string()
}

#[tokio::test]
async fn streamable_http_fixture_lists_its_tools_echoes_and_logs_calls() {
    for transport in [Transport::StreamableHttp, Transport::StatelessHttp] {
        let fixture = McpFixture::start(transport).await;
        assert!(fixture.url().ends_with("/mcp"), "{}", fixture.url());
        let mut client = Client::connect(&fixture.url()).await;
        assert_eq!(
            client.session.is_some(),
            transport == Transport::StreamableHttp,
            "{transport:?}: a session id only when stateful"
        );
        let tools = client.rpc("tools/list", json!({})).await;
        let mut names: Vec<&str> = tools["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        names.sort_unstable();
        let mut expected = FIXTURE_TOOLS.to_vec();
        expected.sort_unstable();
        assert_eq!(names, expected, "{transport:?}");
        assert_eq!(
            text_of(&client.call("echo", json!({ "text": "hi" })).await),
            "echo: hi"
        );
        let failed = client.call("fail", json!({ "message": "boom" })).await;
        assert_eq!(failed["result"]["isError"], true, "{failed}");
        assert!(text_of(&failed).contains("boom"), "{failed}");
        assert_eq!(
            text_of(&client.call("large", json!({ "size": 25_000 })).await).len(),
            25_000
        );
        let who: Value = serde_json::from_str(&text_of(&client.call("whoami", json!({})).await))
            .expect("whoami answers JSON");
        assert_eq!(
            who["accept"], ACCEPT,
            "{transport:?}: whoami shows the request's headers: {who}"
        );
        let calls = fixture.calls();
        let tools: Vec<&str> = calls.iter().map(|c| c.tool.as_str()).collect();
        assert_eq!(tools, ["echo", "fail", "large"], "{transport:?}: {calls:?}");
        assert_eq!(calls[0].arguments, json!({ "text": "hi" }));
        assert!(calls[0].start <= calls[0].end);
    }
}

#[tokio::test]
async fn the_fixture_runs_two_slow_calls_at_once() {
    let fixture = McpFixture::start(Transport::StatelessHttp).await;
    let mut a = Client::connect(&fixture.url()).await;
    let mut b = Client::connect(&fixture.url()).await;
    let started = std::time::Instant::now();
    let (x, y) = tokio::join!(
        a.call("sleep", json!({ "seconds": 1.0, "label": "a" })),
        b.call("sleep", json!({ "seconds": 1.0, "label": "b" })),
    );
    assert_eq!(text_of(&x), "slept 1.0s a");
    assert_eq!(text_of(&y), "slept 1.0s b");
    assert!(
        started.elapsed() < Duration::from_millis(1900),
        "the fixture serialized the calls: {:?}",
        started.elapsed()
    );
    let calls = fixture.calls();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(calls[0].overlaps(&calls[1]), "{calls:?}");
}

#[tokio::test]
async fn sse_fixture_announces_its_message_endpoint() {
    let fixture = McpFixture::start(Transport::Sse).await;
    assert!(fixture.url().ends_with("/sse"), "{}", fixture.url());
    let res = reqwest::Client::new()
        .get(fixture.url())
        .header("accept", "text/event-stream")
        .send()
        .await
        .expect("GET /sse");
    assert_eq!(res.status(), 200);
    use futures_util::StreamExt;
    let mut stream = res.bytes_stream();
    let mut seen = String::new();
    while !seen.contains("/messages/") {
        let chunk = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("an SSE event")
            .expect("stream open")
            .expect("chunk");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(seen.contains("event: endpoint"), "{seen}");
}

#[tokio::test]
async fn kill_stops_the_server_and_restart_brings_it_back_on_the_same_port() {
    let mut fixture = McpFixture::start(Transport::StreamableHttp).await;
    let port = fixture.port();
    let url = fixture.url();
    Client::connect(&url).await;
    fixture.kill();
    assert!(!fixture.is_running());
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err(),
        "still accepting after kill"
    );
    fixture.restart().await;
    assert_eq!(fixture.port(), port);
    assert_eq!(fixture.url(), url);
    let mut client = Client::connect(&url).await;
    assert_eq!(
        text_of(&client.call("echo", json!({ "text": "again" })).await),
        "echo: again"
    );
}

#[test]
fn the_stdio_command_speaks_mcp_and_logs_calls() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("calls.jsonl");
    let args = stdio_extra_args(&log);
    assert_eq!(args["command"], python());
    assert_eq!(args["args"][0], script().to_string_lossy().as_ref());
    let mut child = Command::new(args["command"].as_str().unwrap())
        .args(
            args["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap()),
        )
        .env(
            "MCP_CALL_LOG",
            args["env"]["MCP_CALL_LOG"].as_str().unwrap(),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the stdio server");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |v: Value| writeln!(stdin, "{v}").expect("write");
    let mut read = || {
        let mut line = String::new();
        stdout.read_line(&mut line).expect("read");
        serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
    };
    send(
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": { "name": "api-tests", "version": "0" } } }),
    );
    assert_eq!(read()["result"]["serverInfo"]["name"], "langbot-test-tools");
    send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
    send(json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": { "name": "env", "arguments": { "name": "MCP_CALL_LOG" } } }));
    let answer = read();
    assert_eq!(
        answer["result"]["content"][0]["text"],
        log.to_string_lossy().as_ref()
    );
    send(json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call",
                 "params": { "name": "echo", "arguments": { "text": "x" } } }));
    assert_eq!(read()["result"]["content"][0]["text"], "echo: x");
    let _ = child.kill();
    let _ = child.wait();
    let calls = crate::helpers::mcp_fixture::read_call_log(&log);
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].tool, "echo");
}

/// `stdio_policy` sets the policy through the settings' serialized form: that form must
/// round-trip (the `mcp.stdio` keys themselves arrive with the backend of issue 16).
#[test]
fn the_settings_round_trip_through_json() {
    let settings = langbot::config::Settings::default();
    let json = serde_json::to_value(&settings).expect("settings as JSON");
    let back: langbot::config::Settings =
        serde_json::from_value(json.clone()).expect("settings from their own JSON");
    assert_eq!(serde_json::to_value(&back).unwrap(), json);
}
