//! Bad input on `/api/v1/pipelines`: create, update, list, run and delete with wrong types,
//! over-long strings (names and descriptions 255), bad enums and unknown fields are 400
//! `invalid_request` naming the field, and change nothing; the limits themselves are accepted.

use reqwest::Method;
use serde_json::{json, Value};

use super::{assert_no_failures, run_cases, Case, BAD};
use crate::helpers::fixtures::{pipeline_path, PIPELINES};
use crate::helpers::spawn_app;

/// `(body, the field the error names)` for create, each refused.
fn bad_creates() -> Vec<(Value, &'static str)> {
    vec![
        (json!({}), "name"),
        (json!({ "name": 5 }), "name"),
        (json!({ "name": null }), "name"),
        (json!({ "name": "" }), "name"),
        (json!({ "name": "n".repeat(256) }), "name"),
        (json!({ "name": "é".repeat(256) }), "name"),
        (json!({ "name": "p", "description": 5 }), "description"),
        (
            json!({ "name": "p", "description": "d".repeat(256) }),
            "description",
        ),
        (json!({ "name": "p", "emoji": "" }), "emoji"),
        (json!({ "name": "p", "emoji": "e".repeat(17) }), "emoji"),
        (json!({ "name": "p", "emoji": 1 }), "emoji"),
        (json!({ "name": "p", "is_default": "yes" }), "is_default"),
        (json!({ "name": "p", "is_default": 1 }), "is_default"),
        (json!({ "name": "p", "config": { "ai": 5 } }), "ai"),
        (
            json!({ "name": "p", "config": { "safety": { "rate-limit": { "limitation": "60" } } } }),
            "safety.rate-limit.limitation",
        ),
        (
            json!({ "name": "p", "extensions_preferences": 5 }),
            "extensions_preferences",
        ),
        (
            json!({ "name": "p", "extensions_preferences": { "bogus": 1 } }),
            "extensions_preferences.bogus",
        ),
        (
            json!({ "name": "p", "extensions_preferences": { "enable_all_plugins": "yes" } }),
            "extensions_preferences.enable_all_plugins",
        ),
        (
            json!({ "name": "p", "extensions_preferences": { "plugins": [{ "author": "a" }] } }),
            "extensions_preferences.plugins[0].name",
        ),
        (json!({ "name": "p", "bogus": 1 }), "bogus"),
    ]
}

#[tokio::test]
async fn bad_pipeline_creates_are_400_naming_the_field_and_create_nothing() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let cases: Vec<Case> = bad_creates()
        .into_iter()
        .map(|(body, field)| {
            Case::new(Method::POST, PIPELINES, BAD)
                .json(body)
                .naming(field)
        })
        .collect();
    let failures = run_cases(&app, &owner, &cases).await;
    assert_no_failures(&failures, cases.len());
    // A config that is not an object is refused too (which field it names: see below).
    for config in [json!("x"), json!(5), json!([])] {
        app.send_as(
            &owner,
            Method::POST,
            PIPELINES,
            &json!({ "name": "p", "config": config }),
        )
        .await
        .expect_error(400, "invalid_request", &format!("config {config}"));
    }
    let list = app.get_as(&owner, PIPELINES).await;
    assert_eq!(list.data()["total"], 0, "a refused create left a pipeline");

    // The limits themselves are accepted.
    let at_limits =
        json!({ "name": "n".repeat(255), "description": "d".repeat(255), "emoji": "e".repeat(16) });
    let uuid = app.create_pipeline(&owner, None, &at_limits).await;
    let p = app.pipeline(&owner, &uuid).await;
    assert_eq!(p["name"].as_str().map(str::len), Some(255));
    assert_eq!(p["description"].as_str().map(str::len), Some(255));
}

#[tokio::test]
async fn bad_pipeline_updates_are_400_naming_the_field_and_change_nothing() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let uuid = app.pipeline_named(&owner, "P", false).await;
    let before = app.pipeline(&owner, &uuid).await;
    let path = pipeline_path(&uuid);
    let cases: Vec<Case> = [
        (json!({ "name": 5 }), "name"),
        (json!({ "name": "" }), "name"),
        (json!({ "name": "n".repeat(256) }), "name"),
        (json!({ "description": "d".repeat(256) }), "description"),
        (json!({ "description": [] }), "description"),
        (json!({ "emoji": "e".repeat(17) }), "emoji"),
        (
            json!({ "extensions_preferences": "all" }),
            "extensions_preferences",
        ),
        (json!({ "is_default": true }), "is_default"),
        (json!({ "name": "p", "bogus": 1 }), "bogus"),
    ]
    .into_iter()
    .map(|(body, field)| {
        Case::new(Method::PUT, path.clone(), BAD)
            .json(body)
            .naming(field)
    })
    .collect();
    let failures = run_cases(&app, &owner, &cases).await;
    assert_no_failures(&failures, cases.len());
    assert_eq!(
        app.pipeline(&owner, &uuid).await,
        before,
        "a refused update changed it"
    );
}

#[tokio::test]
async fn bad_pipeline_list_queries_and_run_bodies_are_400() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let uuid = app.pipeline_named(&owner, "P", true).await;
    let run = format!("{}/run", pipeline_path(&uuid));
    let mut cases = Vec::new();
    for (query, field) in [
        ("sort_by=name", None),
        ("sort_by=CREATED_AT", None),
        ("sort_order=sideways", None),
        ("sort_order=", Some("sort_order")),
        ("sort_by=", Some("sort_by")),
        ("limit=501", Some("limit")),
        ("limit=0", Some("limit")),
        ("offset=10000001", Some("offset")),
        ("sort_by=created_at&sort_by=updated_at", None),
    ] {
        let mut case = Case::new(Method::GET, format!("{PIPELINES}?{query}"), BAD);
        case.field = field;
        cases.push(case);
    }
    for (body, field) in [
        (json!({}), "message"),
        (json!({ "message": 5 }), "message"),
        (json!({ "message": null }), "message"),
        (json!({ "message": ["hi"] }), "message"),
        (json!({ "message": "" }), "message"),
        (json!({ "message": "m".repeat(100_001) }), "message"),
        (json!({ "message": "hi", "session_id": "s" }), "session_id"),
    ] {
        cases.push(
            Case::new(Method::POST, run.clone(), BAD)
                .json(body)
                .naming(field),
        );
    }
    for query in ["cascade=yes", "cascade=1", "cascade=", "force=true"] {
        cases.push(Case::new(
            Method::DELETE,
            format!("{}?{query}", pipeline_path(&uuid)),
            BAD,
        ));
    }
    let failures = run_cases(&app, &owner, &cases).await;
    assert_no_failures(&failures, cases.len());
    // Nothing ran and nothing was deleted; the accepted spellings work.
    app.pipeline(&owner, &uuid).await;
    for query in [
        "sort_order=desc",
        "sort_order=asc",
        "sort_by=updated_at&sort_order=DESC",
    ] {
        app.get_as(&owner, &format!("{PIPELINES}?{query}"))
            .await
            .data();
    }
}

#[tokio::test]
async fn a_pipeline_config_that_is_not_an_object_is_named_config() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let uuid = app.pipeline_named(&owner, "P", false).await;
    let mut cases = Vec::new();
    for config in [json!("x"), json!(5), json!([])] {
        cases.push(
            Case::new(Method::POST, PIPELINES, BAD)
                .json(json!({ "name": "p", "config": config }))
                .naming("config"),
        );
        cases.push(
            Case::new(Method::PUT, pipeline_path(&uuid), BAD)
                .json(json!({ "config": config }))
                .naming("config"),
        );
    }
    let failures = run_cases(&app, &owner, &cases).await;
    assert_no_failures(&failures, cases.len());
}
