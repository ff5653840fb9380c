//! Which tools a turn is offered: none when the model lacks `func_call`; with
//! `enable_all_mcp_servers` every enabled server of the Workspace, else only the bound ones; a
//! disabled server's tools never; `GET /api/v1/tools` shows the same resolved catalog.

use serde_json::json;

use super::stateless;
use crate::helpers::fixtures::{mcp_server_path, offered_tools, ToolRig};
use crate::helpers::mcp_fixture::{McpFixture, Transport};
use crate::helpers::{spawn_app, tool_call, Round, ToolScript};

#[tokio::test]
async fn a_model_without_func_call_is_offered_no_tools() {
    let app = spawn_app().await;
    let rig = ToolRig::build(
        &app,
        ToolScript::calls_then_results(vec![tool_call("e", "echo", json!({ "text": "x" }))]),
        None,
        &[],
    )
    .await;
    let (fixture, _) = stateless(&app, &rig, "fixture").await;
    let answer = rig.answer(&app, "s1", "hi").await;
    assert!(answer.starts_with("final without tools"), "{answer}");
    let bodies = rig.fake.chat_bodies().await;
    assert_eq!(bodies.len(), 1, "one plain model call");
    assert!(
        bodies[0]
            .get("tools")
            .is_none_or(|t| t.is_null() || t == &json!([])),
        "{:#}",
        bodies[0]
    );
    assert!(fixture.calls().is_empty());
}

#[tokio::test]
async fn bindings_choose_the_servers_a_pipeline_may_use() {
    let app = spawn_app().await;
    let rig = ToolRig::new(&app, ToolScript::new(vec![Round::Final("ok".into())])).await;
    let one = McpFixture::start(Transport::StatelessHttp).await;
    let two = McpFixture::start(Transport::StatelessHttp).await;
    let one_uuid = rig
        .connected_server(&app, "one", "http", one.extra_args(json!({})))
        .await;
    rig.connected_server(&app, "two", "http", two.extra_args(json!({})))
        .await;
    // Default: every enabled server (their tools conflict, so all are prefixed).
    let sources = |tools: &[serde_json::Value]| {
        let mut s: Vec<String> = tools
            .iter()
            .filter_map(|t| t["source_name"].as_str().map(str::to_string))
            .collect();
        s.sort();
        s.dedup();
        s
    };
    let tools = app.resolved_tools(&rig.owner, &rig.pipeline).await;
    assert_eq!(sources(&tools), ["one", "two"]);
    // Only `one`.
    app.set_extensions(
        &rig.owner,
        &rig.pipeline,
        &json!({ "enable_all_mcp_servers": false, "bound_mcp_servers": [one_uuid] }),
    )
    .await;
    let tools = app.resolved_tools(&rig.owner, &rig.pipeline).await;
    assert_eq!(sources(&tools), ["one"]);
    rig.answer(&app, "s1", "hi").await;
    let mut offered = offered_tools(&rig.fake.chat_bodies().await[0]);
    offered.sort();
    assert_eq!(offered, ["echo", "env", "fail", "large", "sleep", "whoami"]);
    // None.
    app.set_extensions(
        &rig.owner,
        &rig.pipeline,
        &json!({ "enable_all_mcp_servers": false, "bound_mcp_servers": [] }),
    )
    .await;
    assert!(app
        .resolved_tools(&rig.owner, &rig.pipeline)
        .await
        .is_empty());
    // All again, with `two` disabled: only `one`.
    app.set_extensions(&rig.owner, &rig.pipeline, &json!({}))
        .await;
    let res = app
        .send_as(
            &rig.owner,
            reqwest::Method::PUT,
            &mcp_server_path("two"),
            &json!({ "enable": false }),
        )
        .await;
    assert!(res.data().is_null(), "{}", res.text);
    let tools = app.resolved_tools(&rig.owner, &rig.pipeline).await;
    assert_eq!(sources(&tools), ["one"]);
    assert!(
        tools.iter().any(|t| t["name"] == "echo"),
        "no conflict left: plain names {tools:#?}"
    );
    // Without a pipeline: the Workspace's enabled servers.
    let res = app.get_as(&rig.owner, "/api/v1/tools").await;
    assert_eq!(sources(res.data()["tools"].as_array().unwrap()), ["one"]);
}

#[tokio::test]
async fn tools_of_an_unknown_pipeline_are_not_found() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    app.get_as(
        &owner,
        &format!("/api/v1/tools?pipeline_uuid={}", uuid::Uuid::new_v4()),
    )
    .await
    .assert_error(404, "resource_not_found");
    let res = app.get_as(&owner, "/api/v1/tools").await;
    assert_eq!(res.data()["tools"], json!([]), "no servers, no tools");
}
