//! The MCP server at `/mcp` (SPEC §12): streamable HTTP, stateless, JSON responses; API keys
//! only; `tools/list` filtered by the key's permissions, a missing permission is HTTP 403;
//! `structuredContent` is the HTTP `data`; domain errors are `isError` results. Parity with
//! LangBot's tool names and arguments and with the served OpenAPI document is checked against
//! independent oracles (the LangBot 4.11.2 tool dump and `/api/v1/openapi.json`).

mod authentication;
mod parity;
mod permissions;
mod protocol;
mod results;
mod shapes;

use std::collections::BTreeMap;

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::{http_bot_config, UNREACHABLE};
use crate::helpers::query::http_method;
use crate::helpers::{error_fields, spawn_app, TestApp};

const SUPPORTED: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const LATEST: &str = "2025-11-25";
const VIEW_SCOPES: &[&str] = &["resource.view", "workspace.view"];

/// The tools the brief requires (all LangBot names).
const BRIEF_TOOLS: [&str; 20] = [
    "get_system_info",
    "list_bots",
    "get_bot",
    "create_bot",
    "update_bot",
    "delete_bot",
    "list_pipelines",
    "get_pipeline",
    "create_pipeline",
    "update_pipeline",
    "delete_pipeline",
    "list_llm_models",
    "get_llm_model",
    "list_embedding_models",
    "list_model_providers",
    "get_starred_model",
    "set_starred_model",
    "get_default_model",
    "get_workspace_message_language",
    "set_workspace_message_language",
];

/// An initialized instance: the app, the owner's session and a full (inheriting) API key.
async fn setup() -> (TestApp, String, String) {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let (_, key) = app.create_key(&owner, None).await;
    (app, owner, key)
}

/// Asserts an `invalid_request` tool error naming `field` (or `<x>.field`).
#[track_caller]
fn assert_invalid(body: &Value, field: &str, what: &str) {
    assert_eq!(body["code"], "invalid_request", "{what}: {body}");
    let fields = error_fields(body);
    assert!(
        fields
            .iter()
            .any(|f| f == field || f.ends_with(&format!(".{field}"))),
        "{what}: expected `errors` to name `{field}`, got {fields:?}: {body}"
    );
}

fn http_bot_data(name: &str) -> Value {
    json!({
        "name": name,
        "adapter": "http_bot",
        "adapter_config": http_bot_config("s3cret-inbound"),
    })
}

/// Creates a provider and an LLM model over HTTP; answers the model's uuid.
async fn create_llm_model(app: &TestApp, owner: &str) -> String {
    app.model_with_keys(
        owner,
        "llm",
        UNREACHABLE,
        &["sk-provider-secret"],
        ("p", "gpt-test"),
    )
    .await
}

/// An embedding model of the same kind of provider; answers its uuid.
async fn create_embedding_model(app: &TestApp, owner: &str) -> String {
    app.model_with_keys(
        owner,
        "embedding",
        UNREACHABLE,
        &["sk-other-secret"],
        ("embeddings", "embed-test"),
    )
    .await
}

/// One operation of the served OpenAPI document.
struct HttpOp {
    method: Method,
    path: String,
    op: Value,
}

/// operationId → operation, from the served `/api/v1/openapi.json`.
async fn served_operations(app: &TestApp) -> (Value, BTreeMap<String, HttpOp>) {
    let res = app.get("/api/v1/openapi.json").await;
    assert_eq!(res.status, 200, "{}", res.text);
    let doc = res.body;
    let mut ops = BTreeMap::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            let Some(id) = op["operationId"].as_str() else {
                continue;
            };
            let method = http_method(&method.to_uppercase());
            ops.insert(
                id.to_string(),
                HttpOp {
                    method,
                    path: path.clone(),
                    op: op.clone(),
                },
            );
        }
    }
    (doc, ops)
}
