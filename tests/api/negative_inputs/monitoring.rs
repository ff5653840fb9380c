//! Bad input on `/api/v1/monitoring/*`: every bad filter value on every filtered endpoint, bad
//! detail, records, details and export inputs are 400 `invalid_request` (never a 5xx); the
//! valid edge values are accepted.

use chrono::Utc;
use reqwest::Method;
use serde_json::json;

use super::{get, post, run_cases, Case, Expect, BAD};
use crate::helpers::query::{enc, rfc3339, with_query};
use crate::helpers::spawn_app;

const M: &str = "/api/v1/monitoring";
/// The bot id of pipeline debug runs (LangBot's `websocket-proxy-bot`).
const DEBUG_BOT: &str = "websocket-proxy-bot";

/// The endpoints that take the shared filters (as GET paths, `export` with its type).
const FILTERED: [&str; 9] = [
    "overview",
    "executions",
    "messages",
    "llm-calls",
    "errors",
    "sessions",
    "token-statistics",
    "data",
    "export?type=messages",
];

/// Bad filter query strings, each with the field the error should name (when certain).
fn bad_filter_queries() -> Vec<(String, Option<&'static str>)> {
    let now = Utc::now();
    let long = "b".repeat(300);
    let many_bots = (0..101)
        .map(|i| format!("bot_ids={}", uuid::Uuid::from_u128(i)))
        .collect::<Vec<_>>()
        .join("&");
    vec![
        // Dates that are not dates.
        ("start_time=yesterday".into(), Some("start_time")),
        ("startTime=not-a-date".into(), Some("start_time")),
        ("start_time=2024-13-45".into(), Some("start_time")),
        ("start_time=2024-13-45T00:00:00Z".into(), Some("start_time")),
        ("start_time=2024-02-30T00:00:00Z".into(), Some("start_time")),
        ("start_time=2024-01-01T25:61:00Z".into(), Some("start_time")),
        ("start_time=1704067200".into(), Some("start_time")),
        ("end_time=yesterday".into(), Some("end_time")),
        ("endTime=2024-13-45".into(), Some("end_time")),
        ("end_time=2024-13-45T00:00:00Z".into(), Some("end_time")),
        // Unknown time-series buckets.
        ("bucket=week".into(), None),
        ("bucket=HOUR".into(), None),
        ("bucket=".into(), None),
        // Empty dates.
        ("start_time=".into(), None),
        ("end_time=".into(), None),
        // End before start, and an empty window.
        (
            "start_time=2025-06-01T00:00:00Z&end_time=2025-01-01T00:00:00Z".into(),
            Some("start_time"),
        ),
        (
            "start_time=2025-01-01T00:00:00Z&end_time=2025-01-01T00:00:00Z".into(),
            Some("start_time"),
        ),
        (
            format!(
                "start_time={}&end_time={}",
                enc("2025-01-01T08:00:00+08:00"),
                enc("2024-12-31T23:00:00Z")
            ),
            Some("start_time"),
        ),
        // Over MAX_WINDOW_DAYS (365): 366 days, with and without an end.
        (
            "start_time=2023-01-01T00:00:00Z&end_time=2024-01-02T00:00:00Z".into(),
            Some("start_time"),
        ),
        (
            "start_time=2020-01-01T00:00:00Z&end_time=2026-01-01T00:00:00Z".into(),
            Some("start_time"),
        ),
        (
            format!(
                "start_time={}",
                enc(&rfc3339(now - chrono::Duration::days(400)))
            ),
            Some("start_time"),
        ),
        // A start in the future (the end defaults to now).
        (
            format!(
                "start_time={}",
                enc(&rfc3339(now + chrono::Duration::days(1)))
            ),
            Some("start_time"),
        ),
        // Unknown statuses (under every accepted name).
        ("statuses=exploded".into(), None),
        ("status=exploded".into(), None),
        ("execution_statuses=exploded".into(), None),
        ("statuses=completed&statuses=nope".into(), None),
        ("statuses=success".into(), None),
        ("statuses=".into(), None),
        // Unknown modes, and two modes.
        ("mode=sometimes".into(), None),
        ("mode=real&mode=debug".into(), None),
        // Bot, pipeline and session ids that are not ids.
        ("bot_ids=".into(), None),
        ("botId=".into(), None),
        ("bot_ids=not%20a%20bot%20id".into(), None),
        ("bot_ids=%00".into(), None),
        (format!("bot_ids={long}"), None),
        (many_bots, Some("bot_ids")),
        ("pipeline_ids=".into(), None),
        ("pipelineId=".into(), None),
        ("pipeline_ids=not-a-uuid".into(), None),
        ("pipeline_ids=%00".into(), None),
        (format!("pipeline_ids={long}"), None),
        ("session_ids=".into(), None),
        ("session_ids=%00".into(), None),
        (format!("session_ids={}", "s".repeat(300)), None),
        // Paging.
        ("limit=0".into(), Some("limit")),
        ("limit=1001".into(), Some("limit")),
        ("limit=-1".into(), None),
        ("limit=abc".into(), None),
        ("limit=1.5".into(), None),
        ("limit=99999999999999999999999".into(), None),
        ("offset=-1".into(), None),
        ("offset=abc".into(), None),
        ("offset=10000001".into(), Some("offset")),
        // Unknown parameters.
        ("unknown=1".into(), None),
        ("agentId=x".into(), None),
    ]
}

#[tokio::test]
async fn bad_filters_are_400() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    for q in [
        "startTime=yesterday",
        "start_time=2026-01-01T00:00:00Z&end_time=2025-01-01T00:00:00Z",
        "start_time=2020-01-01T00:00:00Z&end_time=2026-01-01T00:00:00Z",
        "statuses=exploded",
        "mode=sometimes",
        "limit=0",
        "limit=5000",
        "unknown=1",
    ] {
        let res = app
            .get_as(&owner, &format!("/api/v1/monitoring/executions?{q}"))
            .await;
        res.assert_error(400, "invalid_request");
    }
    app.get_as(&owner, "/api/v1/monitoring/sessions?statuses=completed")
        .await
        .assert_error(400, "invalid_request");
    app.get_as(&owner, "/api/v1/monitoring/sessions?mode=debug")
        .await
        .assert_error(400, "invalid_request");
    app.get_as(&owner, "/api/v1/monitoring/sessions?mode=all")
        .await
        .data();
    app.get_as(&owner, "/api/v1/monitoring/executions/nowhere/x")
        .await
        .assert_error(400, "invalid_request");
    app.get_as(&owner, "/api/v1/monitoring/executions/auto/unknown")
        .await
        .assert_error(404, "resource_not_found");
}

#[tokio::test]
async fn every_bad_filter_on_every_filtered_endpoint_is_400() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let mut cases = Vec::new();
    for endpoint in FILTERED {
        let path = format!("{M}/{endpoint}");
        for (q, field) in bad_filter_queries() {
            if endpoint.starts_with("export") && q == "limit=1001" {
                continue; // the export's own limit goes up to 50000
            }
            cases.push(get(with_query(&path, &q), BAD, field));
        }
    }
    // Sessions (and the session export) refuse execution status and mode filters.
    for path in [format!("{M}/sessions"), format!("{M}/export?type=sessions")] {
        for q in [
            "statuses=completed",
            "status=failed",
            "execution_statuses=failed",
            "statuses=completed&statuses=failed",
            "mode=real",
            "mode=debug",
        ] {
            cases.push(get(with_query(&path, q), BAD, Some("statuses")));
        }
    }
    let failures = run_cases(&app, &owner, &cases).await;
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[tokio::test]
async fn bad_detail_records_details_and_export_inputs_are_400() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let some = uuid::Uuid::new_v4();
    let mut cases = Vec::new();

    // Execution detail: section, source, paging.
    let detail = format!("{M}/executions/auto/{some}");
    for (q, field) in [
        ("section=nope", Some("section")),
        ("section=OVERVIEW", Some("section")),
        ("section=llm-calls", Some("section")),
        ("section=inputs,outputs", Some("section")),
        ("limit=0", Some("limit")),
        ("limit=101", Some("limit")),
        ("limit=-1", None),
        ("limit=abc", None),
        ("offset=-1", None),
        ("offset=abc", None),
        ("offset=10000001", Some("offset")),
        ("unknown=1", None),
        ("section=inputs&section=outputs", None),
    ] {
        cases.push(get(with_query(&detail, q), BAD, field));
    }
    for source in ["nowhere", "Auto", "agent", "PIPELINE", "%20"] {
        cases.push(get(
            format!("{M}/executions/{source}/{some}"),
            BAD,
            Some("source"),
        ));
    }
    // Ids that are not there, however odd: never a 5xx.
    let long = "x".repeat(400);
    for source in ["auto", "pipeline", "event"] {
        for id in [
            some.to_string(),
            "%00".into(),
            long.clone(),
            "%FF%FE".into(),
        ] {
            cases.push(get(
                format!("{M}/executions/{source}/{id}"),
                Expect::Missing,
                None,
            ));
            cases.push(get(
                format!("{M}/executions/{source}/{id}?section=conversation&limit=1"),
                Expect::Missing,
                None,
            ));
        }
    }

    // Records: unknown kinds, bad bodies, bad filters inside the body.
    for kind in ["nope", "executions", "LLM_CALLS", "message", "feedback"] {
        cases.push(post(
            format!("{M}/records/{kind}/query"),
            json!({}),
            BAD,
            None,
        ));
    }
    let records = format!("{M}/records/messages/query");
    for body in [
        json!([]),
        json!("messages"),
        json!({ "limit": 0 }),
        json!({ "limit": 1001 }),
        json!({ "limit": -1 }),
        json!({ "limit": "abc" }),
        json!({ "limit": 1.5 }),
        json!({ "offset": -1 }),
        json!({ "offset": 10_000_001 }),
        json!({ "offset": "abc" }),
        json!({ "bogus": 1 }),
        json!({ "filters": "x" }),
        json!({ "filters": [] }),
        json!({ "filters": { "bogus": 1 } }),
        json!({ "filters": { "start_time": "yesterday" } }),
        json!({ "filters": { "start_time": "2024-13-45" } }),
        json!({ "filters": { "start_time": "" } }),
        json!({ "filters": { "end_time": "2024-13-45T00:00:00Z" } }),
        json!({ "filters": { "end_time": "" } }),
        json!({ "filters": { "start_time": 1_704_067_200 } }),
        json!({ "filters": { "start_time": "2025-06-01T00:00:00Z", "end_time": "2025-01-01T00:00:00Z" } }),
        json!({ "filters": { "start_time": "2023-01-01T00:00:00Z", "end_time": "2024-01-02T00:00:00Z" } }),
        json!({ "filters": { "statuses": ["exploded"] } }),
        json!({ "filters": { "execution_statuses": ["exploded"] } }),
        json!({ "filters": { "statuses": "completed" } }),
        json!({ "filters": { "statuses": [1] } }),
        json!({ "filters": { "mode": "sometimes" } }),
        json!({ "filters": { "mode": 1 } }),
        json!({ "filters": { "bot_ids": "abc" } }),
        json!({ "filters": { "bot_ids": [""] } }),
        json!({ "filters": { "bot_ids": ["\u{0}"] } }),
        json!({ "filters": { "bot_ids": ["not a bot id"] } }),
        json!({ "filters": { "bot_ids": ["b".repeat(300)] } }),
        json!({ "filters": { "bot_ids": [42] } }),
        json!({ "filters": { "pipeline_ids": ["not-a-uuid"] } }),
        json!({ "filters": { "pipeline_ids": [""] } }),
        json!({ "filters": { "pipeline_ids": ["\u{0}"] } }),
        json!({ "filters": { "session_ids": [""] } }),
        json!({ "filters": { "session_ids": ["\u{0}"] } }),
        json!({ "filters": { "bot_ids": (0..101).map(|i| uuid::Uuid::from_u128(i).to_string()).collect::<Vec<_>>() } }),
        json!({ "filters": { "limit": 0 } }),
        json!({ "filters": { "limit": 1001 } }),
        json!({ "filters": { "offset": -1 } }),
    ] {
        cases.push(post(records.clone(), body, BAD, None));
    }
    cases.push(
        Case::new(
            Method::POST,
            records.clone(),
            Expect::Error(400, "invalid_json"),
        )
        .raw("{\"limit\": ", "{\"limit\": "),
    );
    // Sessions records refuse execution filters; tool and embedding calls check the window.
    for body in [
        json!({ "filters": { "statuses": ["completed"] } }),
        json!({ "filters": { "execution_statuses": ["failed"] } }),
        json!({ "filters": { "mode": "real" } }),
        json!({ "filters": { "mode": "debug" } }),
    ] {
        cases.push(post(
            format!("{M}/records/sessions/query"),
            body,
            BAD,
            Some("statuses"),
        ));
    }
    for kind in [
        "tool_calls",
        "embedding_calls",
        "llm-calls",
        "errors",
        "sessions",
    ] {
        for body in [
            json!({ "filters": { "start_time": "yesterday" } }),
            json!({ "filters": { "start_time": "2025-06-01T00:00:00Z", "end_time": "2025-01-01T00:00:00Z" } }),
            json!({ "filters": { "bot_ids": [""] } }),
            json!({ "limit": 0 }),
        ] {
            cases.push(post(format!("{M}/records/{kind}/query"), body, BAD, None));
        }
    }

    // Details: unknown kinds; unknown identifiers.
    for kind in ["nope", "Message", "messages", "execution"] {
        cases.push(get(format!("{M}/details/{kind}/{some}"), BAD, None));
    }
    for kind in ["message", "session"] {
        for id in [some.to_string(), "%00".into(), "y".repeat(400)] {
            cases.push(get(
                format!("{M}/details/{kind}/{id}"),
                Expect::Missing,
                None,
            ));
        }
    }

    // Export: type and limit.
    for q in [
        "type=nope",
        "type=",
        "type=executions",
        "type=feedback",
        "type=messages&limit=0",
        "type=messages&limit=50001",
        "type=messages&limit=-1",
        "type=messages&limit=abc",
        "type=messages&offset=-1",
        "type=messages&bogus=1",
    ] {
        cases.push(get(format!("{M}/export?{q}"), BAD, None));
    }

    let failures = run_cases(&app, &owner, &cases).await;
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[tokio::test]
async fn valid_edge_values_are_accepted() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let now = Utc::now();
    let exactly_365 = format!(
        "start_time={}&end_time={}",
        enc("2023-01-01T00:00:00Z"),
        enc("2024-01-01T00:00:00Z")
    );
    let queries = [
        String::new(),
        "limit=1".into(),
        "limit=1000".into(),
        "offset=0".into(),
        "offset=10000000".into(),
        exactly_365,
        // A start just inside the window (without an end).
        format!(
            "start_time={}",
            enc(&rfc3339(now - chrono::Duration::days(364)))
        ),
        "start_time=2024-01-01T00:00:00&end_time=2024-01-02T00:00:00".into(),
        "start_time=2024-01-01%2000:00:00&end_time=2024-01-02%2000:00:00.5".into(),
        format!(
            "start_time={}&end_time={}",
            enc("2024-01-01T08:00:00+08:00"),
            enc("2024-01-01T00:00:01Z")
        ),
        "end_time=2020-01-01T00:00:00Z".into(),
        "mode=all".into(),
        format!("bot_ids={DEBUG_BOT}"),
        format!("pipeline_ids={}", uuid::Uuid::new_v4()),
        format!(
            "botId={}&botId={}",
            uuid::Uuid::new_v4(),
            uuid::Uuid::new_v4()
        ),
        "sessionId=person_alice&sessionId=group_g1".into(),
        (0..100)
            .map(|i| format!("bot_ids={}", uuid::Uuid::from_u128(i)))
            .collect::<Vec<_>>()
            .join("&"),
    ];
    let mut failures = Vec::new();
    for endpoint in FILTERED {
        for q in &queries {
            let path = with_query(&format!("{M}/{endpoint}"), q);
            let res = app.get_as(&owner, &path).await;
            let good =
                res.status == 200 && (endpoint.starts_with("export") || res.body["code"] == 0);
            if !good {
                failures.push(format!(
                    "GET {path}\n    → {}: {}",
                    res.status,
                    res.text.chars().take(300).collect::<String>()
                ));
            }
        }
    }
    // Execution status groups are all known.
    for status in [
        "queued",
        "running",
        "completed",
        "failed",
        "cancelled",
        "ignored",
    ] {
        let res = app
            .get_as(&owner, &format!("{M}/executions?statuses={status}"))
            .await;
        if res.status != 200 {
            failures.push(format!("statuses={status} → {}: {}", res.status, res.text));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
