//! B's tool-call records (a real B turn whose model called a tool on B's MCP server) never
//! reach A: not in A's tool-call list, records query, execution details or export; B sees
//! them.

use reqwest::Method;
use serde_json::json;

use crate::helpers::fixtures::{http_bot_config, post_signed, text, CHAT};
use crate::helpers::mcp_fixture::{McpFixture, Transport};
use crate::helpers::{spawn_app_with, tool_call, Cred, FakeOpenAi, ToolScript};

const B_TOOL_TEXT: &str = "b-private-tool-call-71d2";

#[tokio::test]
async fn bs_tool_calls_are_not_shown_to_a() {
    let app = spawn_app_with(|s| s.workspaces.multi = true).await;
    let owner = app.init_owner().await;
    let ws_a = app.workspace_of(&owner).await;
    let ws_b = app.create_workspace(&owner, "Workspace B").await;
    let admin_a = app
        .add_member(&owner, &ws_a, "admin-a@example.com", "admin")
        .await;
    let (_, key_a) = app.create_key(&admin_a.token, None).await;
    let b = Some(ws_b.as_str());

    // B: a tool-calling model, an MCP server, a pipeline and a bot; one turn calling echo.
    let fake = FakeOpenAi::start().await;
    fake.mount_tool_script(ToolScript::calls_then_results(vec![tool_call(
        "b1",
        "echo",
        json!({ "text": B_TOOL_TEXT }),
    )]))
    .await;
    let provider = app
        .create_provider(
            &owner,
            b,
            &json!({ "name": "B", "requester": CHAT, "base_url": fake.base_url(), "api_keys": ["k"] }),
        )
        .await;
    let model = app
        .create_model(
            &owner,
            b,
            "llm",
            &json!({ "name": "b", "provider_uuid": provider, "abilities": ["func_call"] }),
        )
        .await;
    app.create_pipeline(
        &owner,
        b,
        &json!({ "name": "B", "is_default": true,
                 "config": { "ai": { "runner_config": { "local-agent": { "model": { "primary": model } } } } } }),
    )
    .await;
    let fixture = McpFixture::start(Transport::StatelessHttp).await;
    app.create(
        &owner,
        b,
        "/api/v1/mcp/servers",
        &json!({ "name": "b-tools", "mode": "http", "enable": true,
                 "extra_args": fixture.extra_args(json!({})) }),
    )
    .await;
    let bot = app
        .create_bot(
            &owner,
            b,
            &json!({ "name": "B bot", "adapter": "http_bot", "enable": true,
                     "adapter_config": http_bot_config("b-secret") }),
        )
        .await;
    let owner_b = Cred::bearer(&owner);
    let (app, owner_b) = (&app, &owner_b);
    crate::helpers::eventually(
        "B's server connected",
        std::time::Duration::from_secs(30),
        move || async move {
            let res = app
                .call(owner_b, b, Method::GET, "/api/v1/mcp/servers/b-tools", None)
                .await;
            if res.body["data"]["server"]["runtime_info"]["status"] == "connected" {
                Ok(())
            } else {
                Err(res.text)
            }
        },
    )
    .await;
    let body = text("b-user", "use the tool").to_string();
    let res = post_signed(app, &bot, "/sync", "b-secret", body.as_bytes()).await;
    assert!(
        res.text.contains(B_TOOL_TEXT),
        "B's turn answered with the tool result: {}",
        res.text
    );
    let seen_by_b = crate::helpers::eventually(
        "B's tool call recorded",
        std::time::Duration::from_secs(10),
        move || async move {
            let res = app
                .call(
                    owner_b,
                    b,
                    Method::GET,
                    "/api/v1/monitoring/tool-calls",
                    None,
                )
                .await;
            if res.body["data"]["total"] == 1 {
                Ok(res.body["data"]["tool_calls"][0].clone())
            } else {
                Err(res.text)
            }
        },
    )
    .await;
    let b_row_id = seen_by_b["id"].as_str().expect("row id").to_string();
    let b_execution = seen_by_b["execution_id"]
        .as_str()
        .expect("execution id")
        .to_string();

    let mut problems = Vec::new();
    let admin = Cred::bearer(&admin_a.token);
    let key = Cred::api_key(&key_a);
    for (cred, selector, label) in [
        (&admin, None, "A's admin"),
        (&key, None, "A's API key"),
        (&key, b, "A's API key with X-Workspace-Id B"),
    ] {
        let reads = [
            (
                Method::GET,
                "/api/v1/monitoring/tool-calls".to_string(),
                None,
            ),
            (
                Method::POST,
                "/api/v1/monitoring/records/tool_calls/query".to_string(),
                Some(json!({ "limit": 100, "filters": { "session_ids": ["person_b-user"] } })),
            ),
            (
                Method::GET,
                "/api/v1/monitoring/export?type=tool_calls&format=ndjson".to_string(),
                None,
            ),
        ];
        for (method, path, body) in reads {
            let res = app
                .call(cred, selector, method.clone(), &path, body.as_ref())
                .await;
            if res.status != 200
                || res.text.contains(B_TOOL_TEXT)
                || res.text.contains(&b_row_id)
                || res.text.contains("b-tools")
            {
                problems.push(format!(
                    "{method} {path} as {label}: expected 200 without B's tool calls, got {} {}",
                    res.status, res.text
                ));
            }
        }
        let path = format!("/api/v1/monitoring/executions/auto/{b_execution}?section=tool_calls");
        let res = app.call(cred, selector, Method::GET, &path, None).await;
        if res.status != 404 || res.text.contains(B_TOOL_TEXT) {
            problems.push(format!(
                "GET {path} as {label}: expected 404, got {} {}",
                res.status, res.text
            ));
        }
    }
    // A's admin selecting B (not a member there): 404.
    let res = app
        .call(
            &admin,
            b,
            Method::GET,
            "/api/v1/monitoring/tool-calls",
            None,
        )
        .await;
    if res.status != 404 || res.body["code"] != "resource_not_found" {
        problems.push(format!(
            "tool-calls as A's admin selecting B: expected 404, got {} {}",
            res.status, res.text
        ));
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
