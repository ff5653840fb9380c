//! Tools for the Local Agent (issue 16): the function-calling loop over external MCP servers
//! and its records. A scripted fake model (`ToolScript`) asks for tool calls; the test MCP
//! server (`tests/fixtures/mcp_server.py`, the official Python SDK) runs them, over streamable
//! HTTP, SSE and stdio; the turn goes through the http_bot (or `run_pipeline`), and the
//! execution's `tool_calls` section, `/monitoring/tool-calls`, the records query, the export
//! and the in-flight snapshot show the calls. The helpers themselves are checked against the
//! real fixture server and the fake in [`fixture`] and [`fake_model`].

mod conflicts;
mod fake_model;
mod faults;
mod fixture;
mod gate;
mod parallel;
mod records;
mod scripts;
mod transports;

use serde_json::{json, Value};

use crate::helpers::fixtures::ToolRig;
use crate::helpers::mcp_fixture::{McpFixture, Transport};
use crate::helpers::TestApp;

/// A fixture server over `transport` and a connected MCP server `name` of the rig pointing at
/// it (mode `http` or `sse`, `extra` merged into its `extra_args`).
async fn served(
    app: &TestApp,
    rig: &ToolRig,
    name: &str,
    transport: Transport,
    extra: Value,
) -> (McpFixture, String) {
    let fixture = McpFixture::start(transport).await;
    let uuid = rig
        .connected_server(app, name, transport.mode(), fixture.extra_args(extra))
        .await;
    (fixture, uuid)
}

/// A stateless streamable-HTTP fixture and a connected server `name` on it.
async fn stateless(app: &TestApp, rig: &ToolRig, name: &str) -> (McpFixture, String) {
    served(app, rig, name, Transport::StatelessHttp, json!({})).await
}

/// The one `tool_calls` row of `rows` whose `tool_name` is `name`.
#[track_caller]
fn row_named<'a>(rows: &'a [Value], name: &str) -> &'a Value {
    let found: Vec<&Value> = rows.iter().filter(|r| r["tool_name"] == name).collect();
    assert_eq!(found.len(), 1, "one {name} row in {rows:#?}");
    found[0]
}

/// Asserts a successful MCP tool-call record of server `server_name` whose result contains
/// `result`.
#[track_caller]
fn assert_success_row(row: &Value, server_name: &str, result: &str) {
    assert_eq!(row["status"], "success", "{row:#}");
    assert_eq!(row["tool_source"], "mcp", "{row:#}");
    assert_eq!(row["source_name"], server_name, "{row:#}");
    assert!(
        row["result"].as_str().is_some_and(|r| r.contains(result)),
        "result should contain {result:?}: {row:#}"
    );
    assert!(
        row["duration"].as_u64().is_some(),
        "duration in ms: {row:#}"
    );
    assert!(
        row["error_message"].is_null() || row["error_message"] == "",
        "{row:#}"
    );
}

/// Asserts an error record whose `error_message` (or result) says what went wrong.
#[track_caller]
fn assert_error_row(row: &Value) {
    assert_eq!(row["status"], "error", "{row:#}");
    let said = format!("{}{}", row["error_message"], row["result"]);
    assert!(said.len() > 4, "an error row says what failed: {row:#}");
}

/// The arguments of a record, parsed (they are stored as JSON text).
#[track_caller]
fn arguments_of(row: &Value) -> Value {
    let text = row["arguments"]
        .as_str()
        .unwrap_or_else(|| panic!("arguments as JSON text: {row:#}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("arguments {text:?}: {e}"))
}
