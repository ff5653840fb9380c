//! A plugin Tool in the function-calling loop: offered with its manifest's parameters and
//! `llm_prompt`, called by the agent during an http_bot turn with the conversation's session
//! and query id, its result in the reply and in the tool-call records, and filtered by the
//! pipeline's plugin bindings.

use serde_json::json;

use super::{row, weather_rig};
use crate::helpers::plugins::with_runtime;
use crate::helpers::{spawn_app_with, tool_call};

#[tokio::test]
async fn the_agent_calls_a_plugin_tool_and_records_it() {
    let app = spawn_app_with(with_runtime).await;
    let rig = weather_rig(
        &app,
        vec![tool_call(
            "w1",
            "get_weather_alerts",
            json!({ "state": "NY" }),
        )],
    )
    .await;

    // Offered as the manifest says.
    let tools = app.resolved_tools(&rig.owner, &rig.pipeline).await;
    let weather = tools
        .iter()
        .find(|t| t["name"] == "get_weather_alerts")
        .unwrap_or_else(|| panic!("get_weather_alerts offered: {tools:#?}"));
    assert_eq!(weather["source"], "plugin");
    assert_eq!(weather["source_name"], "tester/weather");
    assert_eq!(weather["description"], "Get weather alerts for a US state.");
    assert_eq!(weather["parameters"]["required"], json!(["state"]));
    assert_eq!(
        weather["parameters"]["properties"]["state"]["type"],
        "string"
    );

    // Called in a turn: the plugin read its params and the session.
    let reply = rig.answer(&app, "alice", "any alerts in NY?").await;
    assert!(
        reply.contains("No active alerts for NY (asked by person_alice, query "),
        "{reply}"
    );
    let rows = rig.tool_calls(&app, "alice", 1).await;
    let r = row(&rows, "get_weather_alerts");
    assert_eq!(r["status"], "success", "{r:#}");
    assert_eq!(r["tool_source"], "plugin");
    assert_eq!(r["source_name"], "tester/weather");
    assert!(
        r["result"].as_str().is_some_and(|t| t.contains("NY")),
        "{r:#}"
    );

    // The pipeline's bindings decide: no plugin bound, no plugin tools; bound, offered.
    app.set_extensions(
        &rig.owner,
        &rig.pipeline,
        &json!({ "enable_all_plugins": false, "bound_plugins": [] }),
    )
    .await;
    let tools = app.resolved_tools(&rig.owner, &rig.pipeline).await;
    assert!(tools.iter().all(|t| t["source"] != "plugin"), "{tools:#?}");
    app.set_extensions(
        &rig.owner,
        &rig.pipeline,
        &json!({ "enable_all_plugins": false,
                 "bound_plugins": [{ "author": "tester", "name": "weather" }] }),
    )
    .await;
    let tools = app.resolved_tools(&rig.owner, &rig.pipeline).await;
    assert_eq!(
        tools.iter().filter(|t| t["source"] == "plugin").count(),
        9,
        "{tools:#?}"
    );
}
