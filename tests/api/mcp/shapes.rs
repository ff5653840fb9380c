//! Every tool of LangBot 4.11.2's dump that this backend offers answers, in its text item,
//! what LangBot's tool returns (`reference/*.md` §MCP tools): the array for list tools, the
//! object itself for get tools, `{"ok": true}` for updates and deletes; `structuredContent`
//! stays the HTTP data, an object.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::parity::langbot_tools;
use crate::helpers::fixtures::{text, Rig};
use crate::helpers::mcp::Mcp;
use crate::helpers::spawn_app;

/// What LangBot's tool returns, as documented in the reference.
enum Shape {
    /// A JSON array of objects, each with these keys.
    Array(&'static [&'static str]),
    /// An empty JSON array: a feature this server does not have, so there is never a row.
    Empty,
    /// An object with (at least) these keys.
    Object(&'static [&'static str]),
    /// LangBot's `{"ok": true}` (other members, what the call changed, may follow).
    OkTrue,
}

/// LangBot's result per tool (bots_pipelines.md §7, providers_models.md §7,
/// monitoring.md §7, tool_sources.md §2, mcp_plugins.md A8).
fn langbot_shape(tool: &str) -> Option<Shape> {
    use Shape::*;
    Some(match tool {
        "list_bots" => Array(&["uuid", "name", "adapter", "event_bindings"]),
        "get_bot" => Object(&["uuid", "name", "adapter", "adapter_runtime_values"]),
        "list_pipelines" => Array(&["uuid", "name", "config", "is_default"]),
        "get_pipeline" => Object(&["uuid", "name", "config", "is_default"]),
        "list_llm_models" | "list_embedding_models" => Array(&["uuid", "name", "provider_uuid"]),
        "get_llm_model" => Object(&["uuid", "name", "provider_uuid"]),
        "list_model_providers" => Array(&["uuid", "name", "requester", "api_keys"]),
        "list_mcp_servers" => Array(&["uuid", "name", "mode", "enable"]),
        // Knowledge bases and skills are not available here (mcp_plugins.md A8).
        "list_knowledge_bases" | "list_skills" => Empty,
        "create_bot" | "create_pipeline" | "get_starred_model" | "set_starred_model"
        | "get_default_model" => Object(&["uuid"]),
        "update_bot" | "delete_bot" | "update_pipeline" | "delete_pipeline"
        | "update_processor" | "delete_processor" => OkTrue,
        // Processors: the pipelines, as LangBot's product items (bots_pipelines.md §1.5).
        "list_processors" => Array(&["uuid", "name", "kind", "capability"]),
        "get_processor" => Object(&["uuid", "name", "kind", "config"]),
        "create_processor" => Object(&["uuid", "kind"]),
        "get_processor_metadata" => Object(&["kinds", "event_processors", "runner_config"]),
        "get_workspace_message_language" | "set_workspace_message_language" => {
            Object(&["language"])
        }
        "get_system_info" => Object(&["version", "edition"]),
        "run_pipeline" => Object(&[
            "pipeline_uuid",
            "session_id",
            "query_id",
            "status",
            "replies",
            "reply",
            "message_id",
        ]),
        "reset_session_context" => Object(&["reset", "session_id"]),
        "get_monitoring_records" => Object(&["messages", "total", "limit", "offset"]),
        "get_monitoring_details" => Object(&["message", "llm_calls", "errors"]),
        "get_inflight_executions" => Object(&["items", "active_total", "truncated"]),
        "get_monitoring_executions" => {
            Object(&["items", "total", "limit", "offset", "has_more", "summary"])
        }
        "get_monitoring_execution_detail" => Object(&["row", "pages"]),
        "list_bot_event_route_statuses" => Object(&["routes", "unmatched_events", "stale_routes"]),
        "get_pipeline_extensions" | "update_pipeline_extensions" => Object(&[
            "bound_plugins",
            "bound_mcp_servers",
            "bound_skills",
            "enable_all_plugins",
            "enable_all_mcp_servers",
            "enable_all_skills",
            "mcp_resource_agent_read_enabled",
        ]),
        _ => return None,
    })
}

fn has_keys(value: &Value, keys: &[&str]) -> Result<(), String> {
    let Some(map) = value.as_object() else {
        return Err(format!("not an object: {value}"));
    };
    let missing: Vec<_> = keys.iter().filter(|k| !map.contains_key(**k)).collect();
    match missing.is_empty() {
        true => Ok(()),
        false => Err(format!("missing {missing:?} in {value}")),
    }
}

fn check(shape: &Shape, text: &Value) -> Result<(), String> {
    match shape {
        Shape::Array(keys) => {
            let items = text.as_array().ok_or(format!("not an array: {text}"))?;
            if items.is_empty() {
                return Err("an empty array (the fixture should give it rows)".into());
            }
            items.iter().try_for_each(|item| has_keys(item, keys))
        }
        Shape::Empty => match text.as_array() {
            Some(items) if items.is_empty() => Ok(()),
            _ => Err(format!("{text}, expected []")),
        },
        Shape::Object(keys) => has_keys(text, keys),
        Shape::OkTrue => match text["ok"] == true {
            true => Ok(()),
            false => Err(format!("{text}, expected {{\"ok\": true, …}}")),
        },
    }
}

/// The call that gives each tool something to answer, in an order where the resources it
/// reads exist and the mutations come last.
fn calls(rig: &Rig, ids: &Ids) -> Vec<(&'static str, Value)> {
    let (bot, pipeline, model) = (&rig.bot, &rig.pipeline, &rig.model);
    vec![
        ("get_system_info", json!({})),
        ("get_workspace_message_language", json!({})),
        (
            "set_workspace_message_language",
            json!({ "language": "en_US" }),
        ),
        ("list_bots", json!({})),
        ("get_bot", json!({ "bot_uuid": bot })),
        ("list_pipelines", json!({})),
        ("get_pipeline", json!({ "pipeline_uuid": pipeline })),
        ("list_llm_models", json!({})),
        ("get_llm_model", json!({ "model_uuid": model })),
        ("list_embedding_models", json!({})),
        ("list_model_providers", json!({})),
        ("list_mcp_servers", json!({})),
        ("list_knowledge_bases", json!({})),
        ("list_skills", json!({})),
        ("get_starred_model", json!({})),
        ("set_starred_model", json!({ "model_uuid": model })),
        ("get_default_model", json!({})),
        ("list_bot_event_route_statuses", json!({ "bot_uuid": bot })),
        (
            "get_pipeline_extensions",
            json!({ "pipeline_uuid": pipeline }),
        ),
        (
            "update_pipeline_extensions",
            json!({ "pipeline_uuid": pipeline, "bound_plugins": [], "bound_mcp_servers": [],
                    "bound_skills": [], "bound_mcp_resources": [], "enable_all_plugins": true,
                    "enable_all_mcp_servers": true, "enable_all_skills": true,
                    "mcp_resource_agent_read_enabled": true }),
        ),
        ("get_monitoring_records", json!({ "kind": "messages" })),
        (
            "get_monitoring_details",
            json!({ "kind": "message", "identifier": ids.message }),
        ),
        ("get_inflight_executions", json!({})),
        ("get_monitoring_executions", json!({})),
        (
            "get_monitoring_execution_detail",
            json!({ "source": "auto", "identifier": ids.execution }),
        ),
        (
            "run_pipeline",
            json!({ "pipeline_uuid": pipeline, "message": "ping" }),
        ),
        (
            "reset_session_context",
            json!({ "bot_id": bot, "session_id": "person_s1" }),
        ),
        (
            "create_pipeline",
            json!({ "pipeline_data": { "name": "Second" } }),
        ),
        (
            "update_pipeline",
            json!({ "pipeline_uuid": ids.spare_pipeline, "pipeline_data": { "name": "Renamed" } }),
        ),
        (
            "delete_pipeline",
            json!({ "pipeline_uuid": ids.spare_pipeline }),
        ),
        ("list_processors", json!({})),
        ("get_processor", json!({ "processor_uuid": pipeline })),
        ("get_processor_metadata", json!({})),
        (
            "create_processor",
            json!({ "processor_data": { "kind": "pipeline", "name": "Third" } }),
        ),
        (
            "update_processor",
            json!({ "processor_uuid": ids.spare_processor, "processor_data": { "name": "Renamed" } }),
        ),
        (
            "delete_processor",
            json!({ "processor_uuid": ids.spare_processor }),
        ),
        (
            "create_bot",
            json!({ "bot_data": super::http_bot_data("Another") }),
        ),
        (
            "update_bot",
            json!({ "bot_uuid": ids.spare_bot, "bot_data": { "name": "Renamed" } }),
        ),
        ("delete_bot", json!({ "bot_uuid": ids.spare_bot })),
    ]
}

fn id_of(v: &Value) -> String {
    assert!(!v.is_null(), "the fixture made no row");
    v.as_str()
        .map(String::from)
        .unwrap_or_else(|| v.to_string())
}

/// Ids the fixture makes before the walk.
struct Ids {
    message: String,
    execution: String,
    spare_pipeline: String,
    spare_processor: String,
    spare_bot: String,
}

#[tokio::test]
async fn every_shared_tool_answers_langbots_result_shape() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let (_, key) = app.create_key(&rig.owner, None).await;
    let mcp = Mcp::new(&app, &key);
    // Rows for every list: an embedding model, a disabled MCP server; a real turn gives a
    // session, an execution and monitoring records.
    super::create_embedding_model(&app, &rig.owner).await;
    app.create(
        &rig.owner,
        None,
        "/api/v1/mcp/servers",
        &json!({ "name": "docs", "mode": "remote", "enable": false,
                 "extra_args": { "url": "http://127.0.0.1:9/mcp" } }),
    )
    .await;
    assert_eq!(rig.sync(&app, text("s1", "hi")).await.status, 200);
    let records = mcp
        .ok("get_monitoring_records", json!({ "kind": "messages" }))
        .await;
    let executions = mcp.ok("get_monitoring_executions", json!({})).await;
    let spare = |name: &str| json!({ "name": name });
    let ids = Ids {
        message: id_of(&records["records"][0]["id"]),
        execution: id_of(&executions["items"][0]["id"]),
        spare_pipeline: mcp
            .ok(
                "create_pipeline",
                json!({ "pipeline_data": spare("Spare") }),
            )
            .await["uuid"]
            .as_str()
            .unwrap()
            .into(),
        spare_processor: mcp
            .ok(
                "create_processor",
                json!({ "processor_data": { "kind": "pipeline", "name": "Spare processor" } }),
            )
            .await["uuid"]
            .as_str()
            .unwrap()
            .into(),
        spare_bot: mcp
            .ok(
                "create_bot",
                json!({ "bot_data": super::http_bot_data("Spare") }),
            )
            .await["uuid"]
            .as_str()
            .unwrap()
            .into(),
    };

    let reference = langbot_tools();
    let ours = mcp.tool_names().await;
    let planned = calls(&rig, &ids);
    let mut problems = Vec::new();
    let mut checked = BTreeSet::new();
    for (tool, args) in &planned {
        let result = mcp.call(tool, args.clone()).await;
        if result["isError"] != false {
            problems.push(format!("{tool}: failed {result}"));
            continue;
        }
        let structured = &result["structuredContent"];
        if !structured.is_object() {
            problems.push(format!(
                "{tool}: structuredContent is not an object: {result}"
            ));
        }
        let text: Value = match result["content"][0]["text"]
            .as_str()
            .map(serde_json::from_str)
        {
            Some(Ok(v)) => v,
            _ => {
                problems.push(format!("{tool}: the text is not JSON: {result}"));
                continue;
            }
        };
        let shape = langbot_shape(tool).expect("every planned tool has a reference shape");
        if let Err(why) = check(&shape, &text) {
            problems.push(format!("{tool}: {why}"));
        }
        checked.insert(tool.to_string());
    }
    // Every tool both sides have is walked; a tool of ours LangBot has is never left out.
    let shared: BTreeSet<String> = ours
        .iter()
        .filter(|t| reference.contains_key(*t))
        .cloned()
        .collect();
    let unwalked: Vec<_> = shared.difference(&checked).collect();
    assert!(unwalked.is_empty(), "shared tools not walked: {unwalked:?}");
    let lacking: Vec<&String> = reference.keys().filter(|t| !ours.contains(*t)).collect();
    eprintln!(
        "{} of LangBot's {} tools checked; this backend lacks {}: {lacking:?}",
        checked.len(),
        reference.len(),
        lacking.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
