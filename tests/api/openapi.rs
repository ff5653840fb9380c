//! The committed OpenAPI document equals the generated one; the served one too.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;

use crate::helpers::schema::collect_refs;
use crate::helpers::spawn_app;

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../openapi/openapi.json")
}

#[test]
fn committed_openapi_matches_the_code() {
    let generated = langbot::catalog::openapi::document_json(langbot::api::catalog());
    let path = committed_path();
    if std::env::var("UPDATE_OPENAPI").is_ok() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "openapi/openapi.json is stale: run `UPDATE_OPENAPI=1 cargo nextest run -p api-tests committed_openapi` \
         (or `langbot openapi > openapi/openapi.json`) and commit it"
    );
}

#[tokio::test]
async fn served_openapi_equals_the_generated_document() {
    let app = spawn_app().await;
    let served = app.get("/api/v1/openapi.json").await;
    assert_eq!(served.status, 200);
    let generated: Value = serde_json::from_str(&langbot::catalog::openapi::document_json(
        langbot::api::catalog(),
    ))
    .unwrap();
    assert_eq!(served.body, generated);
}

#[test]
fn every_operation_is_documented_and_every_ref_resolves() {
    let doc: Value = serde_json::from_str(&langbot::catalog::openapi::document_json(
        langbot::api::catalog(),
    ))
    .unwrap();
    let mut ids = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let id = op["operationId"]
                .as_str()
                .unwrap_or_else(|| panic!("{method} {path}: no operationId"));
            assert!(ids.insert(id.to_string()), "duplicate operationId {id}");
            assert!(
                op["summary"].as_str().is_some_and(|s| !s.is_empty()),
                "{id}: no summary"
            );
            assert!(
                op["tags"].as_array().is_some_and(|t| !t.is_empty()),
                "{id}: no tag"
            );
            assert!(op.get("security").is_some(), "{id}: no security");
            if path.starts_with("/api/v1/") && id != "get_openapi" {
                assert!(op.get("x-permission").is_some(), "{id}: no x-permission");
                assert!(
                    op["x-error-codes"].as_array().is_some(),
                    "{id}: no x-error-codes"
                );
            }
        }
    }
    for op in langbot::api::catalog().operations() {
        assert!(
            ids.contains(op.meta().id),
            "{} missing from the document",
            op.meta().id
        );
    }
    let mut refs = BTreeSet::new();
    collect_refs(&doc, &mut refs);
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    for r in refs {
        let name = r.trim_start_matches("#/components/schemas/");
        assert!(schemas.contains_key(name), "dangling $ref {r}");
    }
}

#[test]
fn the_error_code_enum_lists_every_code() {
    let doc: Value = serde_json::from_str(&langbot::catalog::openapi::document_json(
        langbot::api::catalog(),
    ))
    .unwrap();
    let listed: BTreeSet<&str> = doc["components"]["schemas"]["ErrorCode"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for code in langbot::error::ErrorCode::ALL {
        assert!(listed.contains(code.as_str()), "{} missing", code.as_str());
    }
    for code in [
        "invalid_request",
        "invalid_json",
        "payload_too_large",
        "invalid_authentication",
        "permission_denied",
        "workspace_required",
        "resource_not_found",
        "conflict",
        "rate_limited",
        "edition_limit",
        "invalid_language",
        "invalid_api_key",
        "provider_has_models",
        "default_pipeline_exists",
        "pipeline_in_use",
        "session_busy",
        "model_test_failed",
        "upstream_error",
        "unavailable",
        "internal_error",
    ] {
        assert!(listed.contains(code), "SPEC §4 code {code} missing");
    }
}
