//! The runtime side of a server: `runtime_info` null while disabled, `connected` with the six
//! fixture tools once enabled (and null again when disabled); `test` of a saved server and of
//! a draft (`_`), reachable or not (200 either way); resources; and 503 `unavailable` for the
//! resources of a server that is not connected.

use reqwest::Method;
use serde_json::json;

use crate::helpers::fixtures::{mcp_server_path, Instance, MCP_SERVERS};
use crate::helpers::mcp_fixture::{dead_url, McpFixture, Transport, FIXTURE_TOOLS};

#[tokio::test]
async fn runtime_info_follows_enable() {
    let i = Instance::new().await;
    let fixture = McpFixture::start(Transport::StreamableHttp).await;
    i.send(
        Method::POST,
        MCP_SERVERS,
        &json!({ "name": "fx", "mode": "http", "extra_args": fixture.extra_args(json!({})) }),
    )
    .await
    .data();
    let server = i.app.get_mcp_server(&i.owner, "fx").await;
    assert!(server["runtime_info"].is_null(), "disabled: {server:#}");

    i.send(
        Method::PUT,
        &mcp_server_path("fx"),
        &json!({ "enable": true }),
    )
    .await
    .data();
    let info = i.app.mcp_connected(&i.owner, "fx").await;
    assert_eq!(info["tool_count"], 6, "{info:#}");
    let mut names: Vec<&str> = info["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    names.sort_unstable();
    let mut expected = FIXTURE_TOOLS.to_vec();
    expected.sort_unstable();
    assert_eq!(names, expected);
    let echo = info["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "echo")
        .unwrap();
    assert_eq!(echo["description"], "Returns the text it was given.");
    assert!(
        echo["parameters"]["properties"]["text"].is_object(),
        "{echo:#}"
    );
    assert!(info["error_message"].is_null(), "{info:#}");
    assert_eq!(info["retry_count"], 0, "{info:#}");
    assert_eq!(info["resource_count"], 1, "{info:#}");
    assert_eq!(info["resources"][0]["uri"], "test://hello");
    assert!(info["resource_template_count"].is_number(), "{info:#}");
    assert!(info["resource_capabilities"].is_object(), "{info:#}");
    assert!(info["connected_at"].is_string(), "{info:#}");
    // The list shows the same status.
    let list = i.get(MCP_SERVERS).await;
    assert_eq!(
        list.data()["servers"][0]["runtime_info"]["status"],
        "connected"
    );

    i.send(
        Method::PUT,
        &mcp_server_path("fx"),
        &json!({ "enable": false }),
    )
    .await
    .data();
    let server = i.app.get_mcp_server(&i.owner, "fx").await;
    assert!(
        server["runtime_info"].is_null(),
        "disabled again: {server:#}"
    );
}

#[tokio::test]
async fn enabled_on_create_connects_in_the_background() {
    let i = Instance::new().await;
    let fixture = McpFixture::start(Transport::Sse).await;
    i.app
        .mcp_server(&i.owner, "sse", "sse", fixture.extra_args(json!({})))
        .await;
    let server = i.app.get_mcp_server(&i.owner, "sse").await;
    assert!(
        ["connecting", "connected"].contains(
            &server["runtime_info"]["status"]
                .as_str()
                .unwrap_or_default()
        ),
        "{server:#}"
    );
    let info = i.app.mcp_connected(&i.owner, "sse").await;
    assert_eq!(info["tool_count"], 6);
}

#[tokio::test]
async fn test_connects_a_saved_server_and_reports_errors_with_200() {
    let i = Instance::new().await;
    let fixture = McpFixture::start(Transport::StatelessHttp).await;
    i.send(
        Method::POST,
        MCP_SERVERS,
        &json!({ "name": "good", "mode": "http", "extra_args": fixture.extra_args(json!({})) }),
    )
    .await
    .data();
    let res = i
        .send(
            Method::POST,
            &format!("{}/test", mcp_server_path("good")),
            &json!({}),
        )
        .await;
    let info = &res.data()["runtime_info"];
    assert_eq!(info["status"], "connected", "{}", res.text);
    assert_eq!(info["tool_count"], 6, "{}", res.text);

    i.send(
        Method::POST,
        MCP_SERVERS,
        &json!({ "name": "bad", "mode": "http", "extra_args": { "url": dead_url(), "timeout": 3 } }),
    )
    .await
    .data();
    let res = i
        .send(
            Method::POST,
            &format!("{}/test", mcp_server_path("bad")),
            &json!({}),
        )
        .await;
    let info = &res.data()["runtime_info"];
    assert_eq!(info["status"], "error", "{}", res.text);
    assert!(
        info["error_message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{}",
        res.text
    );
}

#[tokio::test]
async fn a_draft_is_tested_without_being_saved() {
    let i = Instance::new().await;
    let fixture = McpFixture::start(Transport::StreamableHttp).await;
    let path = format!("{}/test", mcp_server_path("_"));
    let res = i
        .send(
            Method::POST,
            &path,
            &json!({ "name": "draft", "mode": "remote", "extra_args": fixture.extra_args(json!({})) }),
        )
        .await;
    let info = &res.data()["runtime_info"];
    assert_eq!(info["status"], "connected", "{}", res.text);
    assert_eq!(info["tool_count"], 6, "{}", res.text);
    let res = i
        .send(
            Method::POST,
            &path,
            &json!({ "name": "draft", "mode": "remote", "extra_args": { "url": dead_url(), "timeout": 3 } }),
        )
        .await;
    let info = &res.data()["runtime_info"];
    assert_eq!(info["status"], "error", "{}", res.text);
    assert!(info["error_message"]
        .as_str()
        .is_some_and(|m| !m.is_empty()));
    assert_eq!(
        i.get(MCP_SERVERS).await.data()["servers"],
        json!([]),
        "nothing saved"
    );
    i.get(&mcp_server_path("draft"))
        .await
        .assert_error(404, "resource_not_found");
}

#[tokio::test]
async fn resources_are_listed_for_a_connected_server() {
    let i = Instance::new().await;
    let fixture = McpFixture::start(Transport::StatelessHttp).await;
    i.app
        .mcp_server(&i.owner, "res", "http", fixture.extra_args(json!({})))
        .await;
    i.app.mcp_connected(&i.owner, "res").await;
    let res = i
        .get(&format!("{}/resources", mcp_server_path("res")))
        .await;
    let data = res.data();
    let resources = data["resources"].as_array().expect("resources");
    assert_eq!(resources.len(), 1, "{}", res.text);
    let hello = &resources[0];
    assert_eq!(hello["uri"], "test://hello");
    assert_eq!(hello["name"], "hello");
    assert_eq!(hello["description"], "A greeting");
    for key in ["title", "mime_type", "size"] {
        assert!(hello.get(key).is_some(), "{key} in {hello:#}");
    }
    assert!(data["resource_templates"].is_array(), "{}", res.text);
    assert!(data["resource_capabilities"].is_object(), "{}", res.text);

    // Not connected (disabled): 409.
    i.send(
        Method::POST,
        MCP_SERVERS,
        &json!({ "name": "off", "mode": "http", "extra_args": fixture.extra_args(json!({})) }),
    )
    .await
    .data();
    i.get(&format!("{}/resources", mcp_server_path("off")))
        .await
        .expect_error(409, "conflict", "resources of a disabled server");
}

#[tokio::test]
async fn deleting_a_server_closes_its_session() {
    let i = Instance::new().await;
    let fixture = McpFixture::start(Transport::StreamableHttp).await;
    i.app
        .mcp_server(&i.owner, "gone", "http", fixture.extra_args(json!({})))
        .await;
    i.app.mcp_connected(&i.owner, "gone").await;
    i.delete(&mcp_server_path("gone")).await.data();
    // The name is free again, and a new server under it starts from scratch.
    i.send(
        Method::POST,
        MCP_SERVERS,
        &json!({ "name": "gone", "mode": "http", "extra_args": fixture.extra_args(json!({})) }),
    )
    .await
    .data();
    let server = i.app.get_mcp_server(&i.owner, "gone").await;
    assert!(server["runtime_info"].is_null(), "{server:#}");
}
