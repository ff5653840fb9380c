//! Parity with independent oracles: LangBot 4.11.2's tool dump (names, arguments) and the
//! served OpenAPI document (body schemas, read results).

use std::collections::{BTreeMap, BTreeSet};

use reqwest::Method;
use serde_json::{json, Value};

use super::{
    create_embedding_model, create_llm_model, http_bot_data, served_operations, setup, BRIEF_TOOLS,
};
use crate::helpers::mcp::Mcp;
use crate::helpers::schema::collect_refs;

fn reference_path(file: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/reference")
        .join(file)
}

/// LangBot 4.11.2's `tools/list` (the independent oracle for names and arguments).
pub(super) fn langbot_tools() -> BTreeMap<String, Value> {
    let path = reference_path("langbot_4.11.2_mcp_tools.json");
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let doc: Value = serde_json::from_str(&text).expect("LangBot tools JSON");
    let list = match &doc {
        Value::Array(list) => list.clone(),
        other => other["tools"].as_array().cloned().expect("tools array"),
    };
    list.into_iter()
        .map(|t| (t["name"].as_str().expect("name").to_string(), t))
        .collect()
}

fn strings(value: &Value) -> BTreeSet<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

fn keys(value: &Value) -> BTreeSet<String> {
    value
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

/// Rewrites `#/$defs/X` refs to `#/components/schemas/X`.
fn to_components(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = match (k.as_str(), v) {
                        ("$ref", Value::String(r)) => match r.strip_prefix("#/$defs/") {
                            Some(name) => json!(format!("#/components/schemas/{name}")),
                            None => v.clone(),
                        },
                        _ => to_components(v),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(to_components).collect()),
        other => other.clone(),
    }
}

#[tokio::test]
async fn shared_tools_have_langbots_argument_names_and_required_arguments() {
    let (app, _, key) = setup().await;
    let langbot = langbot_tools();
    assert_eq!(langbot.len(), 54, "the LangBot 4.11.2 dump has 54 tools");
    let ours = Mcp::new(&app, &key).tools().await;
    let mut shared = 0;
    let mut problems = Vec::new();
    for tool in &ours {
        let name = tool["name"].as_str().unwrap();
        assert!(tool["description"].is_string(), "{name}: no description");
        assert_eq!(tool["inputSchema"]["type"], "object", "{name}");
        let Some(theirs) = langbot.get(name) else {
            continue;
        };
        shared += 1;
        let (ours_s, theirs_s) = (&tool["inputSchema"], &theirs["inputSchema"]);
        let (a, b) = (keys(&ours_s["properties"]), keys(&theirs_s["properties"]));
        if a != b {
            problems.push(format!("{name}: arguments {a:?}, LangBot {b:?}"));
        }
        let (a, b) = (strings(&ours_s["required"]), strings(&theirs_s["required"]));
        if a != b {
            problems.push(format!("{name}: required {a:?}, LangBot {b:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(shared >= BRIEF_TOOLS.len(), "only {shared} shared tools");
}

#[tokio::test]
async fn every_required_tool_is_offered_under_its_langbot_name() {
    let (app, _, key) = setup().await;
    let langbot = langbot_tools();
    let names = Mcp::new(&app, &key).tool_names().await;
    for tool in BRIEF_TOOLS {
        assert!(
            langbot.contains_key(tool),
            "{tool} is not a LangBot tool name"
        );
        assert!(names.contains(tool), "{tool} missing: {names:?}");
    }
    // Every tool is an operation of the served OpenAPI document, marked x-mcp-tool.
    let (_, ops) = served_operations(&app).await;
    for name in &names {
        let op = ops
            .get(name)
            .unwrap_or_else(|| panic!("{name}: no operation with this operationId"));
        assert_eq!(op.op["x-mcp-tool"], true, "{name}");
    }
    let marked: BTreeSet<String> = ops
        .iter()
        .filter(|(_, op)| op.op["x-mcp-tool"] == true)
        .map(|(id, _)| id.clone())
        .collect();
    assert_eq!(marked, names, "x-mcp-tool operations and tools/list differ");
}

#[tokio::test]
async fn resource_data_arguments_have_the_http_request_body_schema() {
    let (app, _, key) = setup().await;
    let (doc, ops) = served_operations(&app).await;
    let components = doc["components"]["schemas"].clone();
    let mut checked = BTreeSet::new();
    for tool in Mcp::new(&app, &key).tools().await {
        let name = tool["name"].as_str().unwrap().to_string();
        let schema = &tool["inputSchema"];
        // Every `$defs` entry is the component of the same name.
        for (def, value) in schema["$defs"].as_object().into_iter().flatten() {
            assert_eq!(
                to_components(value),
                components[def],
                "{name}: $defs/{def} differs from components.schemas.{def}"
            );
        }
        // Every ref resolves inside the tool schema.
        let mut refs = BTreeSet::new();
        collect_refs(schema, &mut refs);
        for r in refs {
            let def = r
                .strip_prefix("#/$defs/")
                .unwrap_or_else(|| panic!("{name}: non-local ref {r}"));
            assert!(
                schema["$defs"].get(def).is_some(),
                "{name}: {r} does not resolve"
            );
        }
        for (arg, value) in schema["properties"].as_object().into_iter().flatten() {
            if !arg.ends_with("_data") {
                continue;
            }
            let op = ops
                .get(&name)
                .unwrap_or_else(|| panic!("{name}: no operation"));
            let body = &op.op["requestBody"]["content"]["application/json"]["schema"];
            assert!(!body.is_null(), "{name}: {arg} but no request body");
            let expected = match body["$ref"]
                .as_str()
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                Some(component) => components[component].clone(),
                None => body.clone(),
            };
            assert!(!expected.is_null(), "{name}: unresolved body {body}");
            assert_eq!(
                to_components(value),
                expected,
                "{name}: {arg} differs from the request body of {} {}",
                op.method,
                op.path
            );
            assert!(
                strings(&schema["required"]).contains(arg),
                "{name}: {arg} is not required"
            );
            checked.insert(format!("{name}.{arg}"));
        }
    }
    for expected in [
        "create_bot.bot_data",
        "update_bot.bot_data",
        "create_pipeline.pipeline_data",
        "update_pipeline.pipeline_data",
    ] {
        assert!(
            checked.contains(expected),
            "{expected} not checked: {checked:?}"
        );
    }
}

#[tokio::test]
async fn read_tools_return_the_http_data_of_their_operation() {
    let (app, owner, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    // Something to read: a default pipeline, a bot routed to it, models, a starred model,
    // a non-default language.
    let pipeline = mcp
        .ok(
            "create_pipeline",
            json!({ "pipeline_data": { "name": "P", "is_default": true } }),
        )
        .await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let bot = mcp
        .ok("create_bot", json!({ "bot_data": http_bot_data("B") }))
        .await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let llm = create_llm_model(&app, &owner).await;
    let embedding = create_embedding_model(&app, &owner).await;
    mcp.ok("set_starred_model", json!({ "model_uuid": llm }))
        .await;
    mcp.ok(
        "set_workspace_message_language",
        json!({ "language": "ja_JP" }),
    )
    .await;

    let (_, ops) = served_operations(&app).await;
    let mut compared = BTreeSet::new();
    let mut mismatches = Vec::new();
    for tool in mcp.tools().await {
        let name = tool["name"].as_str().unwrap().to_string();
        let op = ops
            .get(&name)
            .unwrap_or_else(|| panic!("{name}: no operation"));
        if op.method != Method::GET {
            continue;
        }
        // Fill the required arguments with ids that exist.
        let mut args = serde_json::Map::new();
        let mut path = op.path.clone();
        let mut fillable = true;
        for arg in strings(&tool["inputSchema"]["required"]) {
            let id = match arg.as_str() {
                "bot_uuid" => &bot,
                "pipeline_uuid" => &pipeline,
                "model_uuid" if op.path.contains("/embedding/") => &embedding,
                "model_uuid" => &llm,
                _ => {
                    fillable = false;
                    break;
                }
            };
            path = path.replace(&format!("{{{arg}}}"), id);
            args.insert(arg.clone(), json!(id));
        }
        if !fillable {
            continue;
        }
        assert!(!path.contains('{'), "{name}: unfilled path {path}");
        let structured = mcp.ok(&name, Value::Object(args)).await;
        // MCP never shows secrets: compare with HTTP asked the same (`include_secret=false`).
        let http_path = if path.starts_with("/api/v1/provider/")
            && op.path != "/api/v1/provider/models/llm/_/starred"
            && op.path != "/api/v1/provider/models/llm/_/default"
        {
            format!("{path}?include_secret=false")
        } else {
            path.clone()
        };
        let http = mcp.http(Method::GET, &http_path, None).await;
        let http = if http.is_null() { json!({}) } else { http };
        if structured != http {
            mismatches.push(format!(
                "{name} (GET {path}):\n  MCP  {structured}\n  HTTP {http}"
            ));
        }
        compared.insert(name);
    }
    for expected in [
        "get_system_info",
        "list_bots",
        "get_bot",
        "list_pipelines",
        "get_pipeline",
        "list_llm_models",
        "get_llm_model",
        "list_embedding_models",
        "list_model_providers",
        "get_starred_model",
        "get_default_model",
        "get_workspace_message_language",
    ] {
        assert!(
            compared.contains(expected),
            "{expected} not compared: {compared:?}"
        );
    }
    assert!(
        mismatches.is_empty(),
        "structuredContent differs from the HTTP data:\n{}",
        mismatches.join("\n")
    );
}
