//! The visible name-conflict rule: when two offered servers both have `echo`, neither is
//! hidden — each copy is offered as `<server_name>__<tool>` (characters outside
//! `[A-Za-z0-9_-]` in the server name become `_`, cut to 64); a tool only one offered server
//! has keeps its name; and a call to a prefixed name reaches that server.

use serde_json::json;

use super::assert_success_row;
use crate::helpers::fixtures::{offered_tools, tool_messages, ToolRig};
use crate::helpers::mcp_fixture::{McpFixture, Transport};
use crate::helpers::{spawn_app, tool_call, ToolScript};

#[tokio::test]
async fn two_servers_with_the_same_tool_both_offer_it_prefixed() {
    let app = spawn_app().await;
    let rig = ToolRig::new(
        &app,
        ToolScript::calls_then_results(vec![tool_call(
            "p",
            "beta_srv__echo",
            json!({ "text": "via beta" }),
        )]),
    )
    .await;
    let alpha = McpFixture::start(Transport::StatelessHttp).await;
    let beta = McpFixture::start(Transport::StatelessHttp).await;
    let alpha_uuid = rig
        .connected_server(&app, "alpha", "http", alpha.extra_args(json!({})))
        .await;
    let beta_uuid = rig
        .connected_server(&app, "beta.srv", "http", beta.extra_args(json!({})))
        .await;

    // The resolved catalog shows the rule.
    let tools = app.resolved_tools(&rig.owner, &rig.pipeline).await;
    let find = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {tools:#?}"))
            .clone()
    };
    let a = find("alpha__echo");
    assert_eq!(a["original_name"], "echo");
    assert_eq!(a["source"], "mcp");
    assert_eq!(a["source_name"], "alpha");
    assert_eq!(a["source_id"], alpha_uuid.as_str());
    let b = find("beta_srv__echo");
    assert_eq!(b["original_name"], "echo");
    assert_eq!(b["source_name"], "beta.srv");
    assert_eq!(b["source_id"], beta_uuid.as_str());
    assert!(
        !tools.iter().any(|t| t["name"] == "echo"),
        "a conflicting plain name is not offered: {tools:#?}"
    );
    assert_eq!(tools.len(), 12, "every tool of both servers, none hidden");

    // The model is offered the same names, and a prefixed call reaches its server.
    let answer = rig.answer(&app, "s1", "echo via beta").await;
    assert_eq!(answer, "results: echo: via beta");
    let bodies = rig.fake.chat_bodies().await;
    let offered = offered_tools(&bodies[0]);
    assert!(offered.contains(&"alpha__echo".to_string()), "{offered:?}");
    assert!(
        offered.contains(&"beta_srv__echo".to_string()),
        "{offered:?}"
    );
    assert_eq!(
        tool_messages(&bodies[1]),
        vec![("p".to_string(), "echo: via beta".to_string())]
    );
    assert!(alpha.calls().is_empty(), "alpha was not called");
    assert_eq!(beta.calls().len(), 1, "beta ran the call");
    let rows = rig.tool_calls(&app, "s1", 1).await;
    assert_success_row(&rows[0], "beta.srv", "echo: via beta");

    // Offered alone (bindings), alpha's tools keep their plain names.
    app.set_extensions(
        &rig.owner,
        &rig.pipeline,
        &json!({ "enable_all_mcp_servers": false, "bound_mcp_servers": [alpha_uuid] }),
    )
    .await;
    let tools = app.resolved_tools(&rig.owner, &rig.pipeline).await;
    let mut names: Vec<String> = tools
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["echo", "env", "fail", "large", "sleep", "whoami"],
        "no conflict among the offered servers, no prefix"
    );
    assert!(tools.iter().all(|t| t["source_name"] == "alpha"));
}

#[tokio::test]
async fn a_long_or_odd_server_name_is_sanitized_and_cut_to_64() {
    let app = spawn_app().await;
    let rig = ToolRig::new(&app, ToolScript::new(vec![])).await;
    let fixture = McpFixture::start(Transport::StatelessHttp).await;
    let long = format!("my server ü/{}", "n".repeat(80)).replace('/', "-");
    rig.connected_server(&app, &long, "http", fixture.extra_args(json!({})))
        .await;
    rig.connected_server(&app, "other", "http", fixture.extra_args(json!({})))
        .await;
    let tools = app.resolved_tools(&rig.owner, &rig.pipeline).await;
    let prefixed: Vec<(&str, &str)> = tools
        .iter()
        .filter(|t| t["source_name"] == long.as_str())
        .filter_map(|t| Some((t["name"].as_str()?, t["original_name"].as_str()?)))
        .collect();
    assert_eq!(prefixed.len(), 6, "{tools:#?}");
    let distinct: std::collections::BTreeSet<&str> = prefixed.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        distinct.len(),
        6,
        "every copy keeps a name of its own: {prefixed:?}"
    );
    for (name, original) in prefixed {
        assert!(
            name.chars().count() <= 64,
            "{name}: at most 64 characters (OpenAI's limit for function names)"
        );
        assert!(
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "{name}: only [A-Za-z0-9_-]"
        );
        assert!(
            name.starts_with("my_server__-nnn"),
            "{name}: the sanitized server name"
        );
        assert!(
            name.ends_with(&format!("__{original}")),
            "{name}: the tool's name last"
        );
    }
}
