//! Catalog-wide tables: every operation of the catalog (so every resource) gets the bad input
//! its shape allows, and must answer with the stable code — bodies (malformed JSON, non-object
//! JSON, unknown fields, over the 1 MiB limit), path ids that are not ids, and query values
//! (empty values, out-of-range paging, bad enums, booleans, uuids and dates, unknown
//! parameters; the query parameters come from the served OpenAPI document).

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{assert_no_failures, run_cases, Case, Expect, BAD, NOT_FOUND, NOT_JSON};
use crate::helpers::fixtures::CHAT;
use crate::helpers::query::http_method;
use crate::helpers::{spawn_app, TestApp};

/// The default `api.body_limit`.
const LIMIT: usize = 1024 * 1024;

/// The value a valid request puts in path parameter `name` of an operation on `path`: the
/// caller's Workspace, an unused key id, a fixed value where the parameter chooses among
/// fixed values, a fresh uuid for anything else.
fn good_value(name: &str, path: &str, ws: &str) -> String {
    match name {
        "workspace_uuid" => ws.to_string(),
        "key_id" => "987654321".into(),
        "source" => "auto".into(),
        "kind" if path.starts_with("/monitoring/records/") => "messages".into(),
        "kind" => "message".into(),
        "name" => CHAT.into(),
        "adapter_name" => "http_bot".into(),
        _ => uuid::Uuid::new_v4().to_string(),
    }
}

/// The names of `path`'s `{placeholders}`.
fn placeholders(path: &str) -> Vec<&str> {
    path.split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
        .collect()
}

/// `/api/v1` + `path` with every placeholder filled by [`good_value`], except `bad` (name,
/// value) when given.
fn fill(path: &str, ws: &str, bad: Option<(&str, &str)>) -> String {
    let mut out = path.to_string();
    for name in placeholders(path) {
        let value = match bad {
            Some((bad_name, value)) if bad_name == name => value.to_string(),
            _ => good_value(name, path, ws),
        };
        out = out.replacen(&format!("{{{name}}}"), &value, 1);
    }
    format!("/api/v1{out}")
}

/// An initialized app: the owner's session and Workspace.
async fn owner_app() -> (TestApp, String, String) {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    (app, owner, ws)
}

#[test]
fn placeholders_are_read_from_catalog_paths() {
    assert_eq!(
        placeholders("/workspaces/{workspace_uuid}/members/{account_uuid}"),
        vec!["workspace_uuid", "account_uuid"]
    );
    assert_eq!(
        fill("/apikeys/{key_id}", "w", Some(("key_id", "abc"))),
        "/api/v1/apikeys/abc"
    );
    assert!(placeholders("/pipelines").is_empty());
}

#[tokio::test]
async fn every_json_body_refuses_malformed_json_with_invalid_json() {
    let (app, owner, ws) = owner_app().await;
    let mut cases = Vec::new();
    for op in langbot::api::catalog()
        .operations()
        .iter()
        .filter(|op| op.has_body())
    {
        let meta = op.meta();
        for raw in ["{", "{\"name\":", "nul", "[1,", "{\"a\":1}}", "{'a': 1}"] {
            cases.push(
                Case::new(
                    http_method(meta.method.as_str()),
                    fill(meta.path, &ws, None),
                    NOT_JSON,
                )
                .raw(raw, format!("{raw:?} ({})", meta.id)),
            );
        }
    }
    assert!(cases.len() > 100, "too few operations with a body");
    let failures = run_cases(&app, &owner, &cases).await;
    assert_no_failures(&failures, cases.len());
}

#[tokio::test]
async fn every_json_body_must_be_an_object() {
    let (app, owner, ws) = owner_app().await;
    let mut cases = Vec::new();
    for op in langbot::api::catalog()
        .operations()
        .iter()
        .filter(|op| op.has_body())
    {
        let meta = op.meta();
        for body in [
            json!([]),
            json!([{}]),
            json!("x"),
            json!(42),
            json!(true),
            Value::Null,
        ] {
            cases.push(
                Case::new(
                    http_method(meta.method.as_str()),
                    fill(meta.path, &ws, None),
                    BAD,
                )
                .raw(body.to_string(), format!("{body} ({})", meta.id)),
            );
        }
    }
    let failures = run_cases(&app, &owner, &cases).await;
    assert_no_failures(&failures, cases.len());
}

/// Bodies whose fields are a form declared by the resource itself (a plugin's config, from its
/// manifest): an unknown field is refused once the resource is found (tests/api/plugins).
/// The wizard's progress is any object LangBot's UI sends, stored as sent (reference
/// tool_sources.md §6.4).
const FORM_BODIES: &[&str] = &["update_plugin_config", "save_wizard_progress"];

#[tokio::test]
async fn every_json_body_refuses_an_unknown_field_naming_it() {
    let (app, owner, ws) = owner_app().await;
    let mut cases = Vec::new();
    for op in langbot::api::catalog()
        .operations()
        .iter()
        .filter(|op| op.has_body() && !FORM_BODIES.contains(&op.meta().id))
    {
        let meta = op.meta();
        cases.push(
            Case::new(
                http_method(meta.method.as_str()),
                fill(meta.path, &ws, None),
                BAD,
            )
            .json(json!({ "surely_unknown_field": 1 }))
            .naming("surely_unknown_field"),
        );
    }
    let failures = run_cases(&app, &owner, &cases).await;
    assert_no_failures(&failures, cases.len());
}

#[tokio::test]
async fn every_json_body_over_the_limit_is_payload_too_large() {
    let (app, owner, ws) = owner_app().await;
    let mut cases = Vec::new();
    for op in langbot::api::catalog()
        .operations()
        .iter()
        .filter(|op| op.has_body())
    {
        let meta = op.meta();
        let mut padded = br#"{"name":"padded"}"#.to_vec();
        padded.resize(LIMIT + 1, b' ');
        cases.push(
            Case::new(
                http_method(meta.method.as_str()),
                fill(meta.path, &ws, None),
                Expect::Error(413, "payload_too_large"),
            )
            .raw(padded, format!("limit + 1 bytes ({})", meta.id)),
        );
    }
    let failures = run_cases(&app, &owner, &cases).await;
    assert_no_failures(&failures, cases.len());
}

/// Path values that are not what the parameter names, with the answer they must get.
fn bad_path_values(name: &str) -> Vec<(String, Expect)> {
    let long = "x".repeat(300);
    match name {
        // The Workspace in the path selects it: one the caller is not in is not found.
        "workspace_uuid" => vec![("not-a-uuid".into(), NOT_FOUND), (long, NOT_FOUND)],
        "key_id" => ["abc", "1.5", "1e3", "99999999999999999999", "%20"]
            .into_iter()
            .map(|v| (v.to_string(), BAD))
            .collect(),
        "source" | "kind" => ["nowhere", "%20", "AUTO"]
            .into_iter()
            .map(|v| (v.to_string(), BAD))
            .collect(),
        // Names in a global catalog, or a plugin's author and name: an unknown one is not
        // found.
        "name" | "adapter_name" | "author" => {
            vec![("nope".into(), NOT_FOUND), (long, NOT_FOUND)]
        }
        // MCP server names are free-form (no `/`): an unknown one is not found; one longer
        // than a name may be cannot exist.
        "server_name" => vec![
            ("nope".into(), NOT_FOUND),
            ("not-a-uuid".into(), NOT_FOUND),
            (long, Expect::Missing),
        ],
        // Free-form record ids: whatever they are, nothing is there.
        "execution_id" | "identifier" => {
            vec![("nope".into(), Expect::Missing), (long, Expect::Missing)]
        }
        _ => vec![
            ("not-a-uuid".into(), BAD),
            ("123".into(), BAD),
            ("00000000-0000-0000-0000-00000000000g".into(), BAD),
            (long, BAD),
        ],
    }
}

#[tokio::test]
async fn every_path_id_that_is_not_an_id_is_a_4xx_with_its_code() {
    let (app, owner, ws) = owner_app().await;
    let mut cases = Vec::new();
    for op in langbot::api::catalog().operations() {
        let meta = op.meta();
        for name in placeholders(meta.path) {
            for (value, expect) in bad_path_values(name) {
                let mut case = Case::new(
                    http_method(meta.method.as_str()),
                    fill(meta.path, &ws, Some((name, &value))),
                    expect,
                );
                if op.has_body() {
                    case = case.json(json!({}));
                }
                cases.push(case);
            }
        }
    }
    assert!(cases.len() > 100, "too few operations with path parameters");
    let failures = run_cases(&app, &owner, &cases).await;
    assert_no_failures(&failures, cases.len());
}

/// The query parameters of each operation (name → schema), from the served OpenAPI document.
async fn query_parameters(app: &TestApp) -> BTreeMap<String, BTreeMap<String, Value>> {
    let doc = app.get("/api/v1/openapi.json").await.body;
    let mut out = BTreeMap::new();
    for item in doc["paths"].as_object().expect("paths").values() {
        for op in item.as_object().expect("path item").values() {
            let Some(id) = op["operationId"].as_str() else {
                continue;
            };
            let params: BTreeMap<String, Value> = op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["in"] == "query")
                .filter_map(|p| Some((p["name"].as_str()?.to_string(), p["schema"].clone())))
                .collect();
            out.insert(id.to_string(), params);
        }
    }
    out
}

/// Values query parameter `name` (of `schema`) must refuse with 400 `invalid_request`.
fn bad_query_values(name: &str, schema: &Value) -> Vec<String> {
    let item = if schema["type"] == "array" {
        &schema["items"]
    } else {
        schema
    };
    let mut values: Vec<String> = match (name, item["type"].as_str()) {
        ("limit", _) => ["0", "-1", "abc", "1.5", "50001", "99999999999999999999999"]
            .map(String::from)
            .to_vec(),
        ("offset", _) => ["-1", "abc", "1.5", "10000001"].map(String::from).to_vec(),
        (_, Some("boolean")) => ["maybe", "1", "yes", "TRUE"].map(String::from).to_vec(),
        ("start_time" | "end_time", _) => ["yesterday", "2024-13-45T00:00:00Z"]
            .map(String::from)
            .to_vec(),
        ("section", _) => vec!["nope".into()],
        _ if item["format"] == "uuid" => vec!["not-a-uuid".into()],
        _ => Vec::new(),
    };
    if item["enum"].is_array() {
        values.push("not-a-listed-value".into());
    }
    values
}

/// A query every call of the operation needs (`export_monitoring` needs its `type`).
fn base_query(id: &str) -> &'static str {
    match id {
        "export_monitoring" => "type=messages&",
        _ => "",
    }
}

#[tokio::test]
async fn every_query_parameter_refuses_values_it_cannot_take() {
    let (app, owner, ws) = owner_app().await;
    let params = query_parameters(&app).await;
    let mut cases = Vec::new();
    for op in langbot::api::catalog().operations() {
        let meta = op.meta();
        let declared = params
            .get(meta.id)
            .unwrap_or_else(|| panic!("{}: not in the served OpenAPI document", meta.id));
        let path = fill(meta.path, &ws, None);
        let base = base_query(meta.id);
        let mut queries: Vec<(String, Option<&'static str>)> = Vec::new();
        for (name, schema) in declared {
            for value in bad_query_values(name, schema) {
                queries.push((format!("{name}={value}"), None));
            }
        }
        if !declared.is_empty() {
            // An operation that reads a query refuses parameters it does not know.
            queries.push(("surely_unknown_parameter=1".into(), None));
        }
        // An empty value is a mistake, never an absent parameter (on every operation).
        queries.push((
            "surely_unknown_parameter=".into(),
            Some("surely_unknown_parameter"),
        ));
        for (name, _) in declared.iter().filter(|(name, _)| name.as_str() != "type") {
            queries.push((format!("{name}="), None));
        }
        for (query, field) in queries {
            let mut case = Case::new(
                http_method(meta.method.as_str()),
                format!("{path}?{base}{query}"),
                BAD,
            );
            case.field = field;
            if op.has_body() {
                case = case.json(json!({}));
            }
            cases.push(case);
        }
    }
    let failures = run_cases(&app, &owner, &cases).await;
    assert_no_failures(&failures, cases.len());
}
