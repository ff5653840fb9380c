//! Permissions: `tools/list` shows only the tools a key may call; any other is HTTP 403.

use serde_json::json;

use super::{http_bot_data, served_operations, setup, VIEW_SCOPES};
use crate::helpers::mcp::{post_mcp, request, Mcp};

#[tokio::test]
async fn tools_list_shows_only_the_tools_the_key_may_call() {
    let (app, owner, key) = setup().await;
    let (_, view_key) = app.create_key(&owner, Some(VIEW_SCOPES)).await;
    let all = Mcp::new(&app, &key).tool_names().await;
    let visible = Mcp::new(&app, &view_key).tool_names().await;
    for tool in [
        "list_bots",
        "get_bot",
        "list_pipelines",
        "get_pipeline",
        "list_llm_models",
        "get_llm_model",
        "list_model_providers",
        "get_starred_model",
        "get_system_info",
        "get_workspace_message_language",
    ] {
        assert!(
            visible.contains(tool),
            "view key misses {tool}: {visible:?}"
        );
    }
    for tool in [
        "create_bot",
        "update_bot",
        "delete_bot",
        "create_pipeline",
        "update_pipeline",
        "delete_pipeline",
        "set_starred_model",
        "set_workspace_message_language",
    ] {
        assert!(!visible.contains(tool), "view key sees {tool}: {visible:?}");
    }
    // Generically: a tool is listed iff its operation's permission is one of the key's.
    let (_, ops) = served_operations(&app).await;
    for tool in &all {
        let op = ops
            .get(tool)
            .unwrap_or_else(|| panic!("tool {tool} has no operation in the OpenAPI document"));
        let may = match op.op["x-permission"].as_str() {
            None => true,
            Some(p) => VIEW_SCOPES.contains(&p),
        };
        assert_eq!(
            visible.contains(tool),
            may,
            "{tool} (x-permission {}) listed = {}",
            op.op["x-permission"],
            visible.contains(tool)
        );
    }
    assert!(visible.is_subset(&all));
}

#[tokio::test]
async fn a_tool_the_key_may_not_call_is_http_403_permission_denied() {
    let (app, owner, key) = setup().await;
    let (_, view_key) = app.create_key(&owner, Some(VIEW_SCOPES)).await;
    let view = Mcp::new(&app, &view_key);
    let full = Mcp::new(&app, &key);
    let bot = full
        .ok("create_bot", json!({ "bot_data": http_bot_data("b") }))
        .await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let before = full.ok("list_bots", json!({})).await;
    for (tool, arguments, permission) in [
        (
            "create_bot",
            json!({ "bot_data": http_bot_data("denied") }),
            "resource.manage",
        ),
        // The permission is checked before the arguments.
        ("create_bot", json!({}), "resource.manage"),
        (
            "update_bot",
            json!({ "bot_uuid": bot, "bot_data": { "name": "renamed" } }),
            "resource.manage",
        ),
        ("delete_bot", json!({ "bot_uuid": bot }), "resource.manage"),
        (
            "delete_pipeline",
            json!({ "pipeline_uuid": uuid::Uuid::new_v4().to_string() }),
            "resource.manage",
        ),
        (
            "set_workspace_message_language",
            json!({ "language": "ja_JP" }),
            "workspace.update",
        ),
        (
            "set_starred_model",
            json!({ "model_uuid": null }),
            "provider_secret.manage",
        ),
    ] {
        let res = post_mcp(
            &app,
            Some(&view_key),
            &request(
                json!(11),
                "tools/call",
                json!({ "name": tool, "arguments": arguments }),
            ),
        )
        .await;
        assert_eq!(res.status, 403, "{tool}: {}", res.text);
        assert_eq!(res.body["jsonrpc"], "2.0", "{tool}: {}", res.text);
        assert_eq!(res.body["id"], 11, "{tool}: {}", res.text);
        assert!(res.body.get("result").is_none(), "{tool}: {}", res.text);
        assert!(res.body["error"]["code"].is_i64(), "{tool}: {}", res.text);
        assert!(res.body["error"]["message"].is_string(), "{}", res.text);
        assert_eq!(
            res.body["error"]["data"],
            json!({ "code": "permission_denied", "permission": permission }),
            "{tool}: {}",
            res.text
        );
    }
    // Nothing changed.
    assert_eq!(full.ok("list_bots", json!({})).await, before);
    assert_eq!(
        view.ok("get_workspace_message_language", json!({})).await["language"],
        full.ok("get_workspace_message_language", json!({})).await["language"]
    );
    // What it may call works.
    let listed = view.ok("list_bots", json!({})).await;
    assert_eq!(listed["total"], 1, "{listed}");
    assert_eq!(listed["bots"][0]["uuid"], bot.as_str(), "{listed}");
}
