//! A JSON array is never an object: nested objects sent as arrays must not be read as their
//! fields in declaration order (serde's sequence form of a struct), as the top-level body
//! already is not (`identity::json_shape`). SPEC §4 (bodies are JSON objects), §8 (a
//! non-object config section is 400).

use reqwest::Method;
use serde_json::json;

use super::{assert_no_failures, run_cases, Case, BAD};
use crate::helpers::fixtures::{pipeline_path, BOTS, PIPELINES};
use crate::helpers::{spawn_app, PASSWORD};

#[tokio::test]
async fn nested_objects_sent_as_arrays_are_400() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let pipeline = app.pipeline_named(&owner, "P", true).await;
    let invited = app
        .send_as(
            &owner,
            Method::POST,
            &format!("/api/v1/workspaces/{ws}/invitations"),
            &json!({ "email": "invitee@example.com" }),
        )
        .await;
    let token = invited.data()["token"].as_str().expect("token").to_string();
    let config =
        json!({ "inbound_secret": "s3cret-inbound", "callback_url": "http://127.0.0.1:9/cb" });
    let bot = |event_bindings| json!({ "name": "b", "adapter": "http_bot", "adapter_config": config, "event_bindings": event_bindings });
    let cases = vec![
        Case::new(Method::POST, PIPELINES, BAD).json(json!({ "name": "a", "config": [{}, {}, {}, {}] })),
        Case::new(Method::POST, PIPELINES, BAD).json(json!({ "name": "b", "config": { "output": [] } })),
        Case::new(Method::POST, PIPELINES, BAD).json(json!({ "name": "c", "config": { "trigger": [] } })),
        Case::new(Method::PUT, pipeline_path(&pipeline), BAD).json(json!({ "config": { "output": [] } })),
        Case::new(Method::POST, PIPELINES, BAD).json(json!({ "name": "e", "extensions_preferences": [] })),
        Case::new(Method::PUT, pipeline_path(&pipeline), BAD).json(json!({ "extensions_preferences": [] })),
        Case::new(Method::POST, PIPELINES, BAD)
            .json(json!({ "name": "f", "extensions_preferences": { "plugins": [["a", "b"]] } })),
        Case::new(Method::POST, BOTS, BAD)
            .json(bot(json!([[null, "*", "discard", null, [], 0, true, "", null]]))),
        Case::new(Method::POST, BOTS, BAD).json(bot(json!([{
            "event_pattern": "*", "target_type": "discard", "filters": [["chat_type", "eq", "person"]],
        }]))),
        Case::new(Method::POST, "/api/v1/monitoring/records/messages/query", BAD).json(json!({
            "filters": [[], [], [], null, null, null, null, null, null, null],
        })),
    ];
    let mut failures = run_cases(&app, &owner, &cases).await;
    // Registering is anonymous.
    let res = app
        .post(
            "/api/v1/invitations/accept",
            &json!({ "token": token, "registration": ["invitee@example.com", PASSWORD] }),
        )
        .await;
    if res.status != 400
        || res.body["code"] != "invalid_request"
        || !res.error_fields().contains(&"registration".to_string())
    {
        failures.push(format!(
            "POST /api/v1/invitations/accept with registration [email, password]\n    → expected 400 invalid_request naming registration, got {}: {}",
            res.status, res.text
        ));
    }
    assert_no_failures(&failures, cases.len() + 1);
}
