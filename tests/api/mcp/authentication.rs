//! API keys only: missing, invalid, revoked and expired keys are 401 with `WWW-Authenticate`;
//! the global key has every tool; `X-Workspace-Id` is ignored.

use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use super::{setup, BRIEF_TOOLS, LATEST};
use crate::helpers::mcp::{assert_unauthorized, post_mcp, post_raw, request, Mcp, MCP};
use crate::helpers::{spawn_app, spawn_app_with};

#[tokio::test]
async fn mcp_needs_a_valid_api_key_before_anything_else() {
    let (app, owner, _) = setup().await;
    let list = request(json!(1), "tools/list", json!({}));
    assert_unauthorized(&post_mcp(&app, None, &list).await, "no key");
    let fake = format!("lbk_{}", "0".repeat(43));
    assert_unauthorized(&post_mcp(&app, Some(&fake), &list).await, "unknown key");
    assert_unauthorized(&post_mcp(&app, Some("garbage"), &list).await, "garbage key");
    assert_unauthorized(&post_mcp(&app, Some(""), &list).await, "empty key");
    let res = app
        .request(Method::POST, MCP)
        .bearer(&fake)
        .json(&list)
        .send()
        .await;
    assert_unauthorized(&res, "unknown key as Bearer");
    // Session tokens are for the web UI, not MCP.
    assert!(owner.starts_with("lbs_"));
    let res = app
        .request(Method::POST, MCP)
        .bearer(&owner)
        .json(&list)
        .send()
        .await;
    assert_unauthorized(&res, "session token as Bearer");
    assert_unauthorized(
        &post_mcp(&app, Some(&owner), &list).await,
        "session token as X-API-Key",
    );
    // Authentication is checked before the body is looked at.
    assert_unauthorized(
        &post_raw(&app, None, "{not json").await,
        "malformed, no key",
    );
    assert_unauthorized(
        &post_raw(&app, Some(&fake), "{not json").await,
        "malformed, bad key",
    );
    assert_unauthorized(
        &post_mcp(&app, None, &json!([list.clone()])).await,
        "batch, no key",
    );
    assert_unauthorized(&post_mcp(&app, None, &json!(42)).await, "scalar, no key");
    assert_unauthorized(
        &post_mcp(
            &app,
            None,
            &json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        )
        .await,
        "notification, no key",
    );
    assert_unauthorized(
        &post_mcp(
            &app,
            None,
            &request(json!(1), "tools/call", json!({ "name": "nope" })),
        )
        .await,
        "unknown tool, no key",
    );
    assert_unauthorized(
        &post_mcp(
            &app,
            None,
            &request(json!(1), "initialize", json!({ "protocolVersion": LATEST })),
        )
        .await,
        "initialize, no key",
    );
}

#[tokio::test]
async fn revoked_and_expired_keys_are_refused() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let ping = request(json!(1), "ping", json!({}));
    // Revoked.
    let (id, key) = app.create_key(&owner, None).await;
    assert_eq!(post_mcp(&app, Some(&key), &ping).await.status, 200);
    app.request(Method::DELETE, &format!("/api/v1/apikeys/{id}"))
        .bearer(&owner)
        .send()
        .await
        .data();
    assert_unauthorized(&post_mcp(&app, Some(&key), &ping).await, "revoked key");
    let res = app
        .request(Method::POST, MCP)
        .bearer(&key)
        .json(&ping)
        .send()
        .await;
    assert_unauthorized(&res, "revoked key as Bearer");
    // Expired (used once while valid, so a resolution cache would hold it).
    let expires = (chrono::Utc::now() + chrono::Duration::seconds(2)).to_rfc3339();
    let res = app
        .send_as(
            &owner,
            Method::POST,
            "/api/v1/apikeys",
            &json!({ "name": "short-lived", "expires_at": expires }),
        )
        .await;
    let key = res.data()["key"]["key"].as_str().unwrap().to_string();
    let expires_at: chrono::DateTime<chrono::Utc> = res.data()["key"]["expires_at"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(post_mcp(&app, Some(&key), &ping).await.status, 200);
    let wait = (expires_at - chrono::Utc::now())
        .to_std()
        .unwrap_or_default()
        + Duration::from_millis(300);
    tokio::time::sleep(wait).await;
    assert_unauthorized(&post_mcp(&app, Some(&key), &ping).await, "expired key");
    assert_unauthorized(
        &post_mcp(
            &app,
            Some(&key),
            &request(json!(1), "tools/call", json!({ "name": "list_bots" })),
        )
        .await,
        "expired key calling a tool",
    );
}

#[tokio::test]
async fn the_global_key_has_every_tool() {
    const GLOBAL: &str = "instance-wide-mcp-secret";
    let app = spawn_app_with(|s| s.api.global_api_key = Some(GLOBAL.into())).await;
    let owner = app.init_owner().await;
    let mcp = Mcp::new(&app, GLOBAL);
    let names = mcp.tool_names().await;
    for tool in BRIEF_TOOLS {
        assert!(
            names.contains(tool),
            "the global key misses {tool}: {names:?}"
        );
    }
    let set = mcp
        .ok(
            "set_workspace_message_language",
            json!({ "language": "ja_JP" }),
        )
        .await;
    assert_eq!(set["language"], "ja_JP");
    let http = app
        .get_as(&owner, "/api/v1/workspaces/current/language")
        .await;
    assert_eq!(http.data()["language"], "ja_JP");
    // As a Bearer too.
    let res = app
        .request(Method::POST, MCP)
        .bearer(GLOBAL)
        .json(&request(
            json!(1),
            "tools/call",
            json!({ "name": "get_workspace_message_language" }),
        ))
        .send()
        .await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(
        res.body["result"]["structuredContent"]["language"], "ja_JP",
        "{}",
        res.text
    );
    // A wrong global key is still a 401.
    assert_unauthorized(
        &post_mcp(&app, Some("instance-wide-mcp-secreT"), &json!({})).await,
        "near-miss global key",
    );
}

#[tokio::test]
async fn x_workspace_id_is_ignored() {
    let app = spawn_app_with(|s| s.workspaces.multi = true).await;
    let owner = app.init_owner().await;
    let home = app.workspace_of(&owner).await;
    let other = app.create_workspace(&owner, "Other").await;
    assert_ne!(home, other);
    let (_, key) = app.create_key(&owner, None).await;
    let created = app
        .request(Method::POST, "/api/v1/pipelines")
        .bearer(&owner)
        .header("x-workspace-id", &home)
        .json(&json!({ "name": "in-home" }))
        .send()
        .await;
    let uuid = created.data()["uuid"].as_str().unwrap().to_string();
    // The other Workspace really is different.
    let elsewhere = app
        .request(Method::GET, "/api/v1/pipelines")
        .bearer(&owner)
        .header("x-workspace-id", &other)
        .send()
        .await;
    assert!(
        !elsewhere.text.contains(&uuid),
        "the session sees home's pipeline in Other"
    );
    let baseline = Mcp::new(&app, &key).ok("list_pipelines", json!({})).await;
    for header in [
        other.clone(),
        uuid::Uuid::new_v4().to_string(),
        "junk".into(),
    ] {
        let res = app
            .request(Method::POST, MCP)
            .header("x-api-key", &key)
            .header("x-workspace-id", &header)
            .json(&request(
                json!(1),
                "tools/call",
                json!({ "name": "list_pipelines", "arguments": {} }),
            ))
            .send()
            .await;
        assert_eq!(res.status, 200, "X-Workspace-Id {header}: {}", res.text);
        assert_eq!(
            res.body["result"]["structuredContent"], baseline,
            "X-Workspace-Id {header} changed the Workspace"
        );
        assert!(res.text.contains(&uuid));
    }
}
