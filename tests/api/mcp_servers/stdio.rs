//! The stdio policy: off by default (403 `mcp_stdio_disabled` on create, update and draft
//! test; `system/info.mcp_stdio_enabled` false); when enabled, only listed commands (by exact
//! path or bare command name), else 403 `mcp_stdio_command_not_allowed`; an allowed one connects.

use reqwest::Method;
use serde_json::json;

use crate::helpers::fixtures::{mcp_server_path, stdio_policy, Instance, MCP_SERVERS};
use crate::helpers::mcp_fixture::{python, script, stdio_extra_args, FIXTURE_TOOLS};
use crate::helpers::{spawn_app, spawn_app_with};

fn stdio(name: &str, command: &str) -> serde_json::Value {
    json!({ "name": name, "mode": "stdio", "enable": true,
            "extra_args": { "command": command, "args": [script().to_string_lossy(), "stdio"] } })
}

#[tokio::test]
async fn stdio_is_refused_while_disabled() {
    let i = Instance::with_app(spawn_app().await).await;
    let info = i.app.get("/api/v1/system/info").await;
    assert_eq!(info.data()["mcp_stdio_enabled"], false, "{}", info.text);
    i.send(Method::POST, MCP_SERVERS, &stdio("local", &python()))
        .await
        .expect_error(403, "mcp_stdio_disabled", "create");
    // Disabled stdio servers are refused too: the policy is about the mode.
    let mut disabled = stdio("local", &python());
    disabled["enable"] = json!(false);
    i.send(Method::POST, MCP_SERVERS, &disabled)
        .await
        .expect_error(403, "mcp_stdio_disabled", "create (enable false)");
    // Update: turning a remote server into stdio.
    i.send(
        Method::POST,
        MCP_SERVERS,
        &json!({ "name": "r", "mode": "remote", "extra_args": { "url": "http://127.0.0.1:9/mcp" } }),
    )
    .await
    .data();
    i.send(
        Method::PUT,
        &mcp_server_path("r"),
        &json!({ "mode": "stdio", "extra_args": { "command": python() } }),
    )
    .await
    .expect_error(403, "mcp_stdio_disabled", "update to stdio");
    assert_eq!(
        i.get(&mcp_server_path("r")).await.data()["server"]["mode"],
        "remote"
    );
    // Draft test.
    i.send(
        Method::POST,
        &format!("{}/test", mcp_server_path("_")),
        &stdio("draft", &python()),
    )
    .await
    .expect_error(403, "mcp_stdio_disabled", "draft test");
    let list = i.get(MCP_SERVERS).await;
    assert_eq!(list.data()["servers"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn only_allowed_commands_may_run() {
    let python = python();
    let file_name = std::path::Path::new(&python)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    let app = spawn_app_with(|s| stdio_policy(s, true, &["/usr/bin/node", "uvx"])).await;
    let i = Instance::with_app(app).await;
    assert_eq!(
        i.app.get("/api/v1/system/info").await.data()["mcp_stdio_enabled"],
        true
    );
    // A bare name allows the bare command (found on PATH), not a same-named file elsewhere.
    for command in [
        python.as_str(),
        file_name.as_str(),
        "/tmp/uvx-not",
        "uvx2",
        "/opt/bin/uvx",
    ] {
        i.send(Method::POST, MCP_SERVERS, &stdio("local", command))
            .await
            .expect_error(403, "mcp_stdio_command_not_allowed", command);
    }
    // Listed by bare name: that command; by exact path: that path.
    for (name, command) in [("by-file-name", "uvx"), ("exact", "/usr/bin/node")] {
        let mut body = stdio(name, command);
        body["enable"] = json!(false);
        let res = i.send(Method::POST, MCP_SERVERS, &body).await;
        assert_eq!(res.status, 200, "{command}: {}", res.text);
    }
    i.send(
        Method::PUT,
        &mcp_server_path("exact"),
        &json!({ "extra_args": { "command": "/bin/sh" } }),
    )
    .await
    .expect_error(403, "mcp_stdio_command_not_allowed", "update to /bin/sh");
    i.send(
        Method::POST,
        &format!("{}/test", mcp_server_path("_")),
        &stdio("draft", "/bin/sh"),
    )
    .await
    .expect_error(
        403,
        "mcp_stdio_command_not_allowed",
        "draft test of /bin/sh",
    );
}

#[tokio::test]
async fn an_allowed_stdio_server_connects_and_missing_command_is_invalid() {
    let python = python();
    let app = spawn_app_with(|s| stdio_policy(s, true, &[python.as_str()])).await;
    let i = Instance::with_app(app).await;
    let res = i
        .send(
            Method::POST,
            MCP_SERVERS,
            &json!({ "name": "x", "mode": "stdio", "extra_args": { "args": [] } }),
        )
        .await;
    res.expect_field_error(
        400,
        "invalid_request",
        "extra_args.command",
        "stdio without command",
    );
    let dir = tempfile::tempdir().unwrap();
    let res = i
        .send(
            Method::POST,
            MCP_SERVERS,
            &json!({ "name": "local", "mode": "stdio", "enable": true,
                     "extra_args": stdio_extra_args(&dir.path().join("calls.jsonl")) }),
        )
        .await;
    res.data();
    let info = i.app.mcp_connected(&i.owner, "local").await;
    assert_eq!(info["tool_count"], FIXTURE_TOOLS.len(), "{info:#}");
}
