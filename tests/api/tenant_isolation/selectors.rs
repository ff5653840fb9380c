//! `X-Workspace-Id`: an unknown selector is a 404; API keys ignore it and stay in their own
//! Workspace — and B is untouched by A's key writing with B selected.

use reqwest::Method;
use serde_json::json;

use super::world::World;

#[tokio::test]
async fn an_unknown_workspace_selector_is_not_found() {
    let w = World::build().await;
    let res = w
        .app
        .call(
            &w.admin_a,
            Some(uuid::Uuid::new_v4().to_string().as_str()),
            Method::GET,
            "/api/v1/workspaces/current",
            None,
        )
        .await;
    assert!(
        res.status == 404 && res.body["code"] == "resource_not_found",
        "unknown X-Workspace-Id: expected 404 resource_not_found, got {} {}",
        res.status,
        res.text
    );
}

#[tokio::test]
async fn an_api_key_ignores_x_workspace_id_and_stays_in_its_workspace() {
    let w = World::build().await;
    let mut problems = Vec::new();
    // API keys ignore X-Workspace-Id: A's key stays in A.
    let res = w
        .app
        .call(
            &w.key_a,
            Some(w.ws_b.as_str()),
            Method::GET,
            "/api/v1/system/context",
            None,
        )
        .await;
    if res.status != 200 || res.body["data"]["workspace_uuid"] != w.ws_a.as_str() {
        problems.push(format!(
            "A's key with X-Workspace-Id B: /system/context must name A, got {} {}",
            res.status, res.text
        ));
    }
    let res = w
        .app
        .call(
            &w.key_a,
            Some(w.ws_b.as_str()),
            Method::PUT,
            "/api/v1/workspaces/current/language",
            Some(&json!({ "language": "zh_Hans" })),
        )
        .await;
    if res.status != 200 {
        problems.push(format!(
            "A's key setting its own language (X-Workspace-Id B ignored): {} {}",
            res.status, res.text
        ));
    }
    let res = w
        .app
        .call(
            &w.owner,
            Some(w.ws_a.as_str()),
            Method::GET,
            "/api/v1/workspaces/current/language",
            None,
        )
        .await;
    if res.status != 200 || res.body["data"]["language"] != "zh_Hans" {
        problems.push(format!(
            "A's language after A's key set it: expected zh_Hans, got {} {}",
            res.status, res.text
        ));
    }
    w.check_b_untouched(&mut problems).await;
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
