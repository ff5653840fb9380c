//! The MCP tools on our own `/mcp` with LangBot's names: `list_mcp_servers` (the servers
//! without `runtime_info`, secrets masked), `get_pipeline_extensions` and
//! `update_pipeline_extensions` (the HTTP object; validated the same way).

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::{extensions_path, Instance, MCP_SERVERS};
use crate::helpers::mcp::Mcp;

/// The JSON in a tool result's text item.
fn text_json(result: &Value) -> Value {
    assert_eq!(result["isError"], false, "{result}");
    serde_json::from_str(result["content"][0]["text"].as_str().expect("text"))
        .unwrap_or_else(|e| panic!("{e}: {result}"))
}

#[tokio::test]
async fn list_mcp_servers_lists_them_without_runtime_info() {
    let i = Instance::new().await;
    let (_, key) = i.app.create_key(&i.owner, None).await;
    let mcp = Mcp::new(&i.app, &key);
    for name in ["alpha", "beta"] {
        i.send(
            Method::POST,
            MCP_SERVERS,
            &json!({ "name": name, "mode": "remote",
                     "extra_args": { "url": "http://127.0.0.1:9/mcp",
                                     "headers": { "Authorization": "Bearer sk-mcp-tool-secret" } } }),
        )
        .await
        .data();
    }
    let names = mcp.tool_names().await;
    for tool in [
        "list_mcp_servers",
        "get_pipeline_extensions",
        "update_pipeline_extensions",
    ] {
        assert!(names.contains(tool), "{tool} in {names:?}");
    }
    let result = mcp.call("list_mcp_servers", json!({})).await;
    assert!(
        !result.to_string().contains("sk-mcp-tool-secret"),
        "{result}"
    );
    // LangBot's result: the array itself; structuredContent keeps the HTTP `{servers}`.
    let servers = text_json(&result);
    assert_eq!(servers, result["structuredContent"]["servers"], "{result}");
    let servers = servers.as_array().expect("the servers");
    assert_eq!(servers.len(), 2, "{result}");
    let mut seen: Vec<&str> = servers.iter().filter_map(|s| s["name"].as_str()).collect();
    seen.sort_unstable();
    assert_eq!(seen, ["alpha", "beta"]);
    for s in servers {
        assert_eq!(s["workspace_uuid"], i.ws.as_str());
        assert_eq!(s["extra_args"]["headers"]["Authorization"], "***");
        for key in [
            "uuid",
            "enable",
            "mode",
            "readme",
            "created_at",
            "updated_at",
        ] {
            assert!(s.get(key).is_some(), "{key} in {s:#}");
        }
    }
}

#[tokio::test]
async fn pipeline_extensions_over_mcp_match_http() {
    let i = Instance::new().await;
    let (_, key) = i.app.create_key(&i.owner, None).await;
    let mcp = Mcp::new(&i.app, &key);
    let pipeline = i.app.pipeline_named(&i.owner, "P", false).await;
    let server = i
        .send(
            Method::POST,
            MCP_SERVERS,
            &json!({ "name": "s", "mode": "remote", "extra_args": { "url": "http://127.0.0.1:9/mcp" } }),
        )
        .await
        .data()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let got = text_json(
        &mcp.call(
            "get_pipeline_extensions",
            json!({ "pipeline_uuid": pipeline }),
        )
        .await,
    );
    let http = i.get(&extensions_path(&pipeline)).await.data().clone();
    assert_eq!(got["enable_all_mcp_servers"], true);
    assert_eq!(got["bound_mcp_servers"], http["bound_mcp_servers"]);

    let update = json!({
        "pipeline_uuid": pipeline,
        "bound_plugins": [], "bound_mcp_servers": [server], "bound_skills": [],
        "bound_mcp_resources": [], "enable_all_plugins": true, "enable_all_mcp_servers": false,
        "enable_all_skills": true, "mcp_resource_agent_read_enabled": false,
    });
    let updated = text_json(&mcp.call("update_pipeline_extensions", update.clone()).await);
    assert_eq!(updated["enable_all_mcp_servers"], false, "{updated:#}");
    assert_eq!(updated["bound_mcp_servers"], json!([server]));
    let http = i.get(&extensions_path(&pipeline)).await.data().clone();
    assert_eq!(http["enable_all_mcp_servers"], false);
    assert_eq!(http["bound_mcp_servers"], json!([server]));
    assert_eq!(http["mcp_resource_agent_read_enabled"], false);

    // Validated as over HTTP: an unknown server uuid is refused, nothing changes.
    let mut bad = update.clone();
    bad["bound_mcp_servers"] = json!([uuid::Uuid::new_v4().to_string()]);
    let result = mcp.call("update_pipeline_extensions", bad).await;
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        i.get(&extensions_path(&pipeline)).await.data()["bound_mcp_servers"],
        json!([server])
    );
    // An unknown pipeline.
    let result = mcp
        .call(
            "get_pipeline_extensions",
            json!({ "pipeline_uuid": uuid::Uuid::new_v4().to_string() }),
        )
        .await;
    assert_eq!(result["isError"], true, "{result}");
}
