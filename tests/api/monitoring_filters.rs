//! Monitoring filters (SPEC §11, reference/monitoring.md): every bad filter value on every
//! filtered endpoint is a 400 `invalid_request` (never a 5xx), and the filters, paging, record
//! lists, details, execution-detail sections and the CSV export behave as documented over
//! records produced by real runtime turns (http_bot turns = `real`, pipeline runs = `debug`).
//!
//! The traffic: two http_bot bots, each routed to its own pipeline, one debug run and one
//! failing turn — so every filter dimension (mode, status, bot, pipeline, session, time) has a
//! different answer.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::runtime_rig::{model_on, text, Rig, INBOUND};
use crate::helpers::{spawn_app, FakeOpenAi, Response, Route, TestApp};

const M: &str = "/api/v1/monitoring";
/// The bot id of pipeline debug runs (LangBot's `websocket-proxy-bot`).
const DEBUG_BOT: &str = "websocket-proxy-bot";

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// Percent-encodes a query value (everything but the unreserved characters).
fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// `path` with `query` appended (`?` or `&`).
fn with_query(path: &str, query: &str) -> String {
    match (query.is_empty(), path.contains('?')) {
        (true, _) => path.to_string(),
        (false, true) => format!("{path}&{query}"),
        (false, false) => format!("{path}?{query}"),
    }
}

fn ok(res: &Response, what: &str) -> Value {
    assert!(
        res.status == 200 && res.body["code"] == 0,
        "{what}: expected success, got {}: {}",
        res.status,
        res.text
    );
    res.body["data"].clone()
}

fn arr(v: &Value) -> Vec<Value> {
    v.as_array()
        .cloned()
        .unwrap_or_else(|| panic!("not an array: {v}"))
}

fn s(v: &Value) -> String {
    v.as_str()
        .unwrap_or_else(|| panic!("not a string: {v}"))
        .to_string()
}

/// A minimal RFC 4180 reader: quoted fields, doubled quotes, newlines inside quotes.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => field.push(c),
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}

/// POSTs a signed message to `/bots/{bot}/sync` (any http_bot made with the rig's secrets).
async fn sync_to(app: &TestApp, bot: &str, body: Value) -> Response {
    let raw = body.to_string();
    let ts = Utc::now().timestamp().to_string();
    let sig = langbot::runtime::signing::sign(INBOUND, &ts, raw.as_bytes());
    app.request(Method::POST, &format!("/bots/{bot}/sync"))
        .header("x-lb-timestamp", &ts)
        .header("x-lb-signature", &sig)
        .raw_json(raw.into_bytes())
        .send()
        .await
}

// ---------------------------------------------------------------------------------------------
// Traffic
// ---------------------------------------------------------------------------------------------

/// Records of real turns:
/// - bot 1 → pipeline 1: `person_alice` three completed turns;
/// - (`split`)
/// - bot 2 → pipeline 2: `person_carol` one completed turn;
/// - a debug run of pipeline 2 (bot `websocket-proxy-bot`, mode `debug`);
/// - pipeline 1 broken, bot 1: `person_bob` one failed turn.
///
/// So: 6 executions (5 real, 1 debug; 5 completed, 1 failed), 12 messages, 6 LLM calls,
/// 1 error, 4 sessions.
struct Traffic {
    rig: Rig,
    bot1: String,
    bot2: String,
    pipeline1: String,
    pipeline2: String,
    /// Before any turn.
    before: DateTime<Utc>,
    /// Between alice's turns and the rest.
    split: DateTime<Utc>,
    /// The debug run's session id.
    debug_session: String,
    _broken: FakeOpenAi,
}

async fn traffic(app: &TestApp) -> Traffic {
    let rig = Rig::new(app, json!({})).await;
    let owner = rig.owner.clone();
    let config = json!({ "ai": { "runner_config": { "local-agent": { "model": { "primary": rig.model } } } } });
    let p2 = app
        .send_as(
            &owner,
            Method::POST,
            "/api/v1/pipelines",
            &json!({ "name": "P2", "config": config }),
        )
        .await;
    let pipeline2 = s(&ok(&p2, "create pipeline 2")["uuid"]);
    let b2 = app
        .send_as(
            &owner,
            Method::POST,
            "/api/v1/platform/bots",
            &json!({ "name": "http2", "adapter": "http_bot", "enable": true,
                "adapter_config": { "inbound_secret": INBOUND, "outbound_secret": "outbound-secret-789",
                    "callback_url": format!("{}/cb", rig.callbacks.uri()), "callback_timeout": 2, "callback_max_retries": 0 },
                "event_bindings": [{ "event_pattern": "message.received", "target_type": "pipeline", "target_uuid": pipeline2 }] }),
        )
        .await;
    let bot2 = s(&ok(&b2, "create bot 2")["uuid"]);

    let before = Utc::now() - chrono::Duration::seconds(1);
    for q in ["a1", "a2", "a3"] {
        ok(&rig.sync(app, text("alice", q)).await, "alice turn");
    }
    tokio::time::sleep(Duration::from_millis(60)).await;
    let split = Utc::now();
    tokio::time::sleep(Duration::from_millis(60)).await;
    ok(
        &sync_to(app, &bot2, text("carol", "c1")).await,
        "carol turn",
    );
    let run = app
        .send_as(
            &owner,
            Method::POST,
            &format!("/api/v1/pipelines/{pipeline2}/run"),
            &json!({ "message": "debug run" }),
        )
        .await;
    let debug_session = s(&ok(&run, "debug run")["session_id"]);
    // Pipeline 1 now fails.
    let broken = FakeOpenAi::start().await;
    broken.mount_server_error(Route::Chat).await;
    let bad = model_on(app, &owner, &broken.base_url(), "broken").await;
    let config =
        json!({ "ai": { "runner_config": { "local-agent": { "model": { "primary": bad } } } } });
    ok(
        &app.send_as(
            &owner,
            Method::PUT,
            &format!("/api/v1/pipelines/{}", rig.pipeline),
            &json!({ "config": config }),
        )
        .await,
        "break pipeline 1",
    );
    ok(&rig.sync(app, text("bob", "will fail")).await, "bob turn");
    Traffic {
        bot1: rig.bot.clone(),
        pipeline1: rig.pipeline.clone(),
        rig,
        bot2,
        pipeline2,
        before,
        split,
        debug_session,
        _broken: broken,
    }
}

impl Traffic {
    async fn get(&self, app: &TestApp, path: &str) -> Value {
        let res = app.get_as(&self.rig.owner, path).await;
        ok(&res, path)
    }

    async fn post(&self, app: &TestApp, path: &str, body: &Value) -> Value {
        let res = app.send_as(&self.rig.owner, Method::POST, path, body).await;
        ok(&res, &format!("POST {path} {body}"))
    }
}

// ---------------------------------------------------------------------------------------------
// 1. Negative inputs
// ---------------------------------------------------------------------------------------------

/// What a bad request must answer.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// This status and error code.
    Error(u16, &'static str),
    /// Something that does not exist: 404 `resource_not_found` or 400 `invalid_request`.
    Missing,
}

struct Case {
    method: Method,
    path: String,
    body: Option<Value>,
    /// A raw (possibly malformed) JSON body instead of `body`.
    raw: Option<&'static str>,
    expect: Expect,
    /// A field the `errors` array must name.
    field: Option<&'static str>,
}

fn get(path: String, expect: Expect, field: Option<&'static str>) -> Case {
    Case {
        method: Method::GET,
        path,
        body: None,
        raw: None,
        expect,
        field,
    }
}

fn post(path: String, body: Value, expect: Expect, field: Option<&'static str>) -> Case {
    Case {
        method: Method::POST,
        path,
        body: Some(body),
        raw: None,
        expect,
        field,
    }
}

const BAD: Expect = Expect::Error(400, "invalid_request");

/// Runs every case; returns one line per case that did not answer as expected.
async fn run_cases(app: &TestApp, token: &str, cases: &[Case]) -> Vec<String> {
    let mut failures = Vec::new();
    for case in cases {
        let req = app.request(case.method.clone(), &case.path).bearer(token);
        let req = match (&case.body, case.raw) {
            (_, Some(raw)) => req.raw_json(raw.as_bytes().to_vec()),
            (Some(body), None) => req.json(body),
            (None, None) => req,
        };
        let res = req.send().await;
        let what = format!(
            "{} {}{}",
            case.method,
            case.path,
            case.body
                .as_ref()
                .map(|b| format!(" {b}"))
                .or(case.raw.map(|r| format!(" {r}")))
                .unwrap_or_default()
        );
        let code = res.body["code"].as_str().unwrap_or_default().to_string();
        let matched = match case.expect {
            Expect::Error(status, expected) => res.status == status && code == expected,
            Expect::Missing => {
                (res.status == 404 && code == "resource_not_found")
                    || (res.status == 400 && code == "invalid_request")
            }
        };
        let shaped = res.body["msg"].as_str().is_some_and(|m| !m.is_empty())
            && res.body["request_id"]
                .as_str()
                .is_some_and(|m| !m.is_empty());
        let text: String = res.text.chars().take(300).collect();
        if res.status >= 500 {
            failures.push(format!("{what}\n    → SERVER ERROR {}: {text}", res.status));
        } else if !matched || !shaped {
            failures.push(format!(
                "{what}\n    → expected {:?}, got {}: {text}",
                case.expect, res.status
            ));
        } else if let Some(field) = case.field {
            let named = res.body["errors"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|e| e["field"] == field);
            if !named {
                failures.push(format!(
                    "{what}\n    → expected errors to name `{field}`: {text}"
                ));
            }
        }
    }
    failures
}

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
    cases.push(Case {
        method: Method::POST,
        path: records.clone(),
        body: None,
        raw: Some("{\"limit\": "),
        expect: Expect::Error(400, "invalid_json"),
        field: None,
    });
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

// ---------------------------------------------------------------------------------------------
// 2. Filter semantics over real turns
// ---------------------------------------------------------------------------------------------

/// One filter and what it selects.
struct FilterCase {
    /// `(key, value)` pairs: list keys repeat.
    params: Vec<(&'static str, String)>,
    executions: u64,
    messages: u64,
    llm_calls: u64,
    errors: u64,
    /// `None`: the sessions list refuses this filter.
    sessions: Option<u64>,
    /// Every row of every list has these values.
    bot: Option<String>,
    pipeline: Option<String>,
    mode: Option<&'static str>,
}

impl FilterCase {
    fn query(&self) -> String {
        self.params
            .iter()
            .map(|(k, v)| format!("{k}={}", enc(v)))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// The same filter as a JSON object (the records body's `filters`).
    fn json(&self) -> Value {
        let mut out = serde_json::Map::new();
        for (k, v) in &self.params {
            let key = match *k {
                "botId" => "bot_ids",
                "pipelineId" => "pipeline_ids",
                "sessionId" => "session_ids",
                "status" => "statuses",
                "startTime" => "start_time",
                "endTime" => "end_time",
                other => other,
            };
            if matches!(key, "mode" | "start_time" | "end_time") {
                out.insert(key.into(), json!(v));
            } else {
                let list = out.entry(key).or_insert_with(|| json!([]));
                list.as_array_mut().unwrap().push(json!(v));
            }
        }
        Value::Object(out)
    }
}

fn p(k: &'static str, v: impl Into<String>) -> (&'static str, String) {
    (k, v.into())
}

fn filter_cases(t: &Traffic) -> Vec<FilterCase> {
    let case = |params: Vec<(&'static str, String)>,
                (executions, messages, llm_calls, errors): (u64, u64, u64, u64),
                sessions: Option<u64>| FilterCase {
        params,
        executions,
        messages,
        llm_calls,
        errors,
        sessions,
        bot: None,
        pipeline: None,
        mode: None,
    };
    let (b1, b2, p1, p2) = (
        t.bot1.clone(),
        t.bot2.clone(),
        t.pipeline1.clone(),
        t.pipeline2.clone(),
    );
    let past_start = rfc3339(t.before - chrono::Duration::days(30));
    let past_end = rfc3339(t.before - chrono::Duration::days(29));
    let future_start = rfc3339(Utc::now() + chrono::Duration::hours(1));
    let future_end = rfc3339(Utc::now() + chrono::Duration::hours(2));
    let before = rfc3339(t.before);
    let split = rfc3339(t.split);
    let split_plus8 = t
        .split
        .with_timezone(&chrono::FixedOffset::east_opt(8 * 3600).unwrap())
        .to_rfc3339_opts(SecondsFormat::Micros, false);
    let split_naive = t
        .split
        .naive_utc()
        .format("%Y-%m-%dT%H:%M:%S%.6f")
        .to_string();
    vec![
        case(vec![], (6, 12, 6, 1), Some(4)),
        case(vec![p("mode", "all")], (6, 12, 6, 1), Some(4)),
        FilterCase {
            mode: Some("real"),
            ..case(vec![p("mode", "real")], (5, 10, 5, 1), None)
        },
        FilterCase {
            mode: Some("debug"),
            bot: Some(DEBUG_BOT.into()),
            pipeline: Some(p2.clone()),
            ..case(vec![p("mode", "debug")], (1, 2, 1, 0), None)
        },
        case(vec![p("statuses", "completed")], (5, 10, 5, 0), None),
        case(vec![p("statuses", "failed")], (1, 2, 1, 1), None),
        case(vec![p("status", "failed")], (1, 2, 1, 1), None),
        case(
            vec![p("statuses", "completed"), p("statuses", "failed")],
            (6, 12, 6, 1),
            None,
        ),
        case(
            vec![p("statuses", "running"), p("statuses", "queued")],
            (0, 0, 0, 0),
            None,
        ),
        FilterCase {
            bot: Some(b1.clone()),
            ..case(vec![p("bot_ids", &b1)], (4, 8, 4, 1), Some(2))
        },
        FilterCase {
            bot: Some(b2.clone()),
            pipeline: Some(p2.clone()),
            ..case(vec![p("bot_ids", &b2)], (1, 2, 1, 0), Some(1))
        },
        FilterCase {
            bot: Some(b2.clone()),
            pipeline: Some(p2.clone()),
            ..case(vec![p("botId", &b2)], (1, 2, 1, 0), Some(1))
        },
        case(
            vec![p("bot_ids", &b1), p("bot_ids", &b2)],
            (5, 10, 5, 1),
            Some(3),
        ),
        FilterCase {
            bot: Some(DEBUG_BOT.into()),
            mode: Some("debug"),
            ..case(vec![p("bot_ids", DEBUG_BOT)], (1, 2, 1, 0), Some(1))
        },
        FilterCase {
            pipeline: Some(p1.clone()),
            bot: Some(b1.clone()),
            ..case(vec![p("pipeline_ids", &p1)], (4, 8, 4, 1), Some(2))
        },
        FilterCase {
            pipeline: Some(p2.clone()),
            ..case(vec![p("pipeline_ids", &p2)], (2, 4, 2, 0), Some(2))
        },
        FilterCase {
            pipeline: Some(p2.clone()),
            ..case(vec![p("pipelineId", &p2)], (2, 4, 2, 0), Some(2))
        },
        FilterCase {
            pipeline: Some(p2.clone()),
            bot: Some(b2.clone()),
            mode: Some("real"),
            ..case(
                vec![p("pipeline_ids", &p2), p("mode", "real")],
                (1, 2, 1, 0),
                None,
            )
        },
        FilterCase {
            pipeline: Some(p2.clone()),
            mode: Some("debug"),
            ..case(
                vec![p("pipeline_ids", &p2), p("mode", "debug")],
                (1, 2, 1, 0),
                None,
            )
        },
        case(
            vec![p("bot_ids", &b2), p("statuses", "failed")],
            (0, 0, 0, 0),
            None,
        ),
        FilterCase {
            bot: Some(b1.clone()),
            mode: Some("real"),
            ..case(
                vec![
                    p("bot_ids", &b1),
                    p("statuses", "failed"),
                    p("mode", "real"),
                ],
                (1, 2, 1, 1),
                None,
            )
        },
        case(
            vec![p("pipeline_ids", uuid::Uuid::new_v4().to_string())],
            (0, 0, 0, 0),
            Some(0),
        ),
        case(
            vec![p("bot_ids", &b1), p("pipeline_ids", &p2)],
            (0, 0, 0, 0),
            Some(0),
        ),
        FilterCase {
            bot: Some(b1.clone()),
            ..case(
                vec![p("session_ids", "person_alice")],
                (3, 6, 3, 0),
                Some(1),
            )
        },
        case(
            vec![
                p("sessionId", "person_alice"),
                p("sessionId", "person_carol"),
            ],
            (4, 8, 4, 0),
            Some(2),
        ),
        // Windows: in the past, in the future, open-ended, split in two.
        case(
            vec![p("start_time", &past_start), p("end_time", &past_end)],
            (0, 0, 0, 0),
            Some(0),
        ),
        case(
            vec![p("startTime", &past_start), p("endTime", &past_end)],
            (0, 0, 0, 0),
            Some(0),
        ),
        case(
            vec![p("start_time", &future_start), p("end_time", &future_end)],
            (0, 0, 0, 0),
            Some(0),
        ),
        case(vec![p("end_time", &past_end)], (0, 0, 0, 0), Some(0)),
        case(vec![p("start_time", &before)], (6, 12, 6, 1), Some(4)),
        case(vec![p("start_time", &split)], (3, 6, 3, 1), Some(3)),
        case(vec![p("start_time", &split_plus8)], (3, 6, 3, 1), Some(3)),
        case(vec![p("start_time", &split_naive)], (3, 6, 3, 1), Some(3)),
        case(
            vec![p("start_time", &before), p("end_time", &split)],
            (3, 6, 3, 0),
            Some(1),
        ),
        case(vec![p("end_time", &split)], (3, 6, 3, 0), Some(1)),
        case(
            vec![
                p("start_time", &split),
                p("mode", "real"),
                p("statuses", "completed"),
            ],
            (1, 2, 1, 0),
            None,
        ),
    ]
}

fn check(failures: &mut Vec<String>, what: String, got: &Value, want: u64) {
    if got.as_u64() != Some(want) {
        failures.push(format!("{what}: expected {want}, got {got}"));
    }
}

/// A GET's data, or a failure line.
async fn try_get(app: &TestApp, token: &str, url: &str) -> Result<Value, String> {
    let res = app.get_as(token, url).await;
    if res.status == 200 && res.body["code"] == 0 {
        Ok(res.body["data"].clone())
    } else {
        Err(format!(
            "GET {url}: expected success, got {}: {}",
            res.status,
            res.text.chars().take(300).collect::<String>()
        ))
    }
}

#[tokio::test]
async fn filters_narrow_every_list_alike() {
    let app = spawn_app().await;
    let t = traffic(&app).await;
    let token = t.rig.owner.clone();
    let mut failures: Vec<String> = Vec::new();
    for c in filter_cases(&t) {
        let q = c.query();
        let url_of = |path: &str| with_query(&format!("{M}/{path}"), &q);
        let counted = [
            ("executions", "items", c.executions),
            ("messages", "messages", c.messages),
            ("llm-calls", "llm_calls", c.llm_calls),
            ("errors", "errors", c.errors),
        ];
        for (path, key, want) in counted {
            let url = with_query(&url_of(path), "limit=1000");
            let data = match try_get(&app, &token, &url).await {
                Ok(d) => d,
                Err(e) => {
                    failures.push(e);
                    continue;
                }
            };
            check(&mut failures, format!("{url} total"), &data["total"], want);
            let rows = data[key].as_array().cloned().unwrap_or_default();
            check(
                &mut failures,
                format!("{url} rows"),
                &json!(rows.len()),
                want,
            );
            for row in &rows {
                for (field, expected) in [
                    ("bot_id", c.bot.as_deref()),
                    ("pipeline_id", c.pipeline.as_deref()),
                    ("mode", c.mode),
                ] {
                    if let Some(expected) = expected {
                        if row[field] != expected {
                            failures.push(format!(
                                "{url}: row {} has {field} {} (want {expected})",
                                row["id"], row[field]
                            ));
                        }
                    }
                }
            }
            if path == "executions" {
                let summary = &data["summary"]["executions"];
                check(
                    &mut failures,
                    format!("{url} summary.total"),
                    &summary["total"],
                    want,
                );
                let by_status: u64 = [
                    "queued",
                    "running",
                    "completed",
                    "failed",
                    "cancelled",
                    "ignored",
                ]
                .iter()
                .map(|s| summary[*s].as_u64().unwrap_or(0))
                .sum();
                check(
                    &mut failures,
                    format!("{url} summary by status"),
                    &json!(by_status),
                    want,
                );
                let tokens: u64 = rows
                    .iter()
                    .map(|r| r["usage"]["total_tokens"].as_u64().unwrap_or(0))
                    .sum();
                check(
                    &mut failures,
                    format!("{url} summary.tokens.total_tokens"),
                    &data["summary"]["tokens"]["total_tokens"],
                    tokens,
                );
            }
        }
        // Sessions: the filter, or its refusal.
        let url = url_of("sessions");
        let sessions = app.get_as(&token, &url).await;
        match c.sessions {
            Some(want) => match try_get(&app, &token, &url).await {
                Ok(data) => {
                    check(&mut failures, format!("{url} total"), &data["total"], want);
                    if let Some(bot) = &c.bot {
                        for row in data["sessions"].as_array().into_iter().flatten() {
                            if row["bot_id"] != bot.as_str() {
                                failures.push(format!("{url}: row {row}"));
                            }
                        }
                    }
                }
                Err(e) => failures.push(e),
            },
            None if sessions.status != 400 || sessions.body["code"] != "invalid_request" => {
                failures.push(format!(
                    "{url}: expected 400 invalid_request, got {}: {}",
                    sessions.status, sessions.text
                ));
            }
            None => {}
        }
        // The overview and token statistics count the same records.
        let url = url_of("overview");
        match try_get(&app, &token, &url).await {
            Ok(overview) => {
                for (key, want) in [
                    ("executions", c.executions),
                    ("total_messages", c.messages),
                    ("llm_calls", c.llm_calls),
                    ("model_calls", c.llm_calls),
                ] {
                    check(&mut failures, format!("{url} {key}"), &overview[key], want);
                }
                // Every session is active; the overview counts those the filter selects.
                if let Some(want) = c.sessions {
                    check(
                        &mut failures,
                        format!("{url} active_sessions"),
                        &overview["active_sessions"],
                        want,
                    );
                }
            }
            Err(e) => failures.push(e),
        }
        let url = url_of("token-statistics");
        match try_get(&app, &token, &url).await {
            Ok(tokens) => check(
                &mut failures,
                format!("{url} calls"),
                &tokens["calls"],
                c.llm_calls,
            ),
            Err(e) => failures.push(e),
        }
        // The dashboard's totals (its sessions list ignores status and mode).
        let url = url_of("data");
        match try_get(&app, &token, &url).await {
            Ok(data) => {
                check(
                    &mut failures,
                    format!("{url} executions.total"),
                    &data["executions"]["total"],
                    c.executions,
                );
                for (key, want) in [
                    ("messages", c.messages),
                    ("llmCalls", c.llm_calls),
                    ("errors", c.errors),
                ] {
                    check(
                        &mut failures,
                        format!("{url} totalCount.{key}"),
                        &data["totalCount"][key],
                        want,
                    );
                }
                if let Some(want) = c.sessions {
                    check(
                        &mut failures,
                        format!("{url} totalCount.sessions"),
                        &data["totalCount"]["sessions"],
                        want,
                    );
                }
            }
            Err(e) => failures.push(e),
        }
        // The records query takes the same filters as JSON.
        let filters = c.json();
        for (kind, want) in [
            ("messages", Some(c.messages)),
            ("llm_calls", Some(c.llm_calls)),
            ("errors", Some(c.errors)),
            ("sessions", c.sessions),
        ] {
            let path = format!("{M}/records/{kind}/query");
            let body = json!({ "limit": 1000, "filters": filters });
            let res = app.send_as(&token, Method::POST, &path, &body).await;
            let what = format!("POST {path} {body}");
            match want {
                Some(want) if res.status == 200 => {
                    let data = &res.body["data"];
                    check(&mut failures, format!("{what} total"), &data["total"], want);
                    check(
                        &mut failures,
                        format!("{what} records"),
                        &json!(data["records"].as_array().map_or(0, Vec::len)),
                        want,
                    );
                }
                Some(_) => failures.push(format!(
                    "{what}: expected success, got {}: {}",
                    res.status, res.text
                )),
                None if res.status != 400 => failures.push(format!(
                    "{what}: expected 400, got {}: {}",
                    res.status, res.text
                )),
                None => {}
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test]
async fn modes_and_statuses_label_rows_as_the_runtime_ran_them() {
    let app = spawn_app().await;
    let t = traffic(&app).await;
    let all = t.get(&app, &format!("{M}/executions?limit=100")).await;
    let items = arr(&all["items"]);
    assert_eq!(items.len(), 6);
    for e in &items {
        let debug = e["bot_id"] == DEBUG_BOT;
        assert_eq!(e["mode"], if debug { "debug" } else { "real" }, "{e}");
        assert_eq!(e["debug"], debug, "{e}");
        let failed = e["session_id"] == "person_bob";
        assert_eq!(
            e["status"],
            if failed { "failed" } else { "completed" },
            "{e}"
        );
        assert_eq!(e["status_group"], e["status"], "{e}");
        assert_eq!(e["has_error"], failed, "{e}");
        assert_eq!(e["source"], "pipeline", "{e}");
        if debug {
            assert_eq!(e["session_id"], t.debug_session.as_str(), "{e}");
            assert_eq!(e["pipeline_id"], t.pipeline2.as_str(), "{e}");
        }
    }
    // Newest first.
    let started: Vec<i64> = items
        .iter()
        .map(|e| e["started_at_ms"].as_i64().unwrap())
        .collect();
    assert!(started.windows(2).all(|w| w[0] >= w[1]), "{started:?}");
    assert_eq!(items[0]["session_id"], "person_bob");
    assert_eq!(items[5]["input_preview"], "a1");
    // Records carry their execution: each message's execution has the same mode.
    let by_id: BTreeMap<String, Value> = items.iter().map(|e| (s(&e["id"]), e.clone())).collect();
    for (path, key) in [
        ("messages", "messages"),
        ("llm-calls", "llm_calls"),
        ("errors", "errors"),
    ] {
        let data = t.get(&app, &format!("{M}/{path}?limit=100")).await;
        for row in arr(&data[key]) {
            let exec = &by_id[&s(&row["execution_id"])];
            assert_eq!(row["mode"], exec["mode"], "{path}: {row}");
            assert_eq!(row["bot_id"], exec["bot_id"], "{path}: {row}");
            assert_eq!(row["pipeline_id"], exec["pipeline_id"], "{path}: {row}");
            assert_eq!(row["session_id"], exec["session_id"], "{path}: {row}");
        }
    }
    // The failed turn's model call is the failed one; token statistics only count tokens used.
    let failed = t.get(&app, &format!("{M}/llm-calls?statuses=failed")).await;
    let call = &arr(&failed["llm_calls"])[0];
    assert_eq!(call["session_id"], "person_bob");
    assert_ne!(call["status"], "success", "{call}");
    let tokens = t.get(&app, &format!("{M}/token-statistics")).await;
    assert_eq!(tokens["calls"], 6);
    assert_eq!(tokens["totals"]["input_tokens"], 50, "{tokens}");
    assert_eq!(tokens["totals"]["total_tokens"], 70, "{tokens}");
    let debug_tokens = t
        .get(&app, &format!("{M}/token-statistics?mode=debug"))
        .await;
    assert_eq!(debug_tokens["totals"]["total_tokens"], 14, "{debug_tokens}");
    // Per model: the echo model answered five turns, the broken one failed once.
    let by_model: BTreeMap<String, (u64, u64)> = arr(&tokens["by_model"])
        .iter()
        .map(|m| {
            (
                s(&m["model_name"]),
                (
                    m["calls"].as_u64().unwrap(),
                    m["total_tokens"].as_u64().unwrap(),
                ),
            )
        })
        .collect();
    assert_eq!(by_model.len(), 2, "{tokens}");
    assert_eq!(by_model.values().map(|v| v.0).sum::<u64>(), 6);
    assert!(by_model.values().any(|v| *v == (5, 70)), "{tokens}");
    assert!(by_model.values().any(|v| v.0 == 1), "{tokens}");
    let failed_tokens = t
        .get(&app, &format!("{M}/token-statistics?statuses=failed"))
        .await;
    assert_eq!(failed_tokens["calls"], 1, "{failed_tokens}");
    assert_eq!(arr(&failed_tokens["by_model"]).len(), 1, "{failed_tokens}");
    let b2_tokens = t
        .get(&app, &format!("{M}/token-statistics?bot_ids={}", t.bot2))
        .await;
    assert_eq!(b2_tokens["totals"]["total_tokens"], 14, "{b2_tokens}");
    let overview = t
        .get(&app, &format!("{M}/overview?statuses=completed"))
        .await;
    assert_eq!(overview["success_rate"], 100.0, "{overview}");
}

#[tokio::test]
async fn window_bounds_are_inclusive_at_the_stored_precision() {
    let app = spawn_app().await;
    let t = traffic(&app).await;
    let mut failures = Vec::new();
    for (path, key) in [
        ("messages", "messages"),
        ("llm-calls", "llm_calls"),
        ("errors", "errors"),
    ] {
        let list = t.get(&app, &format!("{M}/{path}?limit=1000")).await;
        for row in arr(&list[key]) {
            let ts: DateTime<Utc> = s(&row["timestamp"]).parse().unwrap();
            let id = s(&row["id"]);
            let exact = rfc3339(ts);
            let windows = [
                // [ts, ts + 1 ms]: the row is at the start.
                (
                    exact.clone(),
                    rfc3339(ts + chrono::Duration::milliseconds(1)),
                ),
                // [ts - 1 s, ts]: the row is at the end.
                (rfc3339(ts - chrono::Duration::seconds(1)), exact.clone()),
            ];
            for (start, end) in windows {
                let url = format!(
                    "{M}/{path}?limit=1000&start_time={}&end_time={}",
                    enc(&start),
                    enc(&end)
                );
                match try_get(&app, &t.rig.owner, &url).await {
                    Ok(data) => {
                        if !arr(&data[key]).iter().any(|r| r["id"] == id.as_str()) {
                            failures.push(format!("{url}: {id} (at {exact}) is missing"));
                        }
                    }
                    Err(e) => failures.push(e),
                }
            }
            // Just after it: excluded.
            let url = format!(
                "{M}/{path}?limit=1000&start_time={}&end_time={}",
                enc(&rfc3339(ts + chrono::Duration::milliseconds(1))),
                enc(&rfc3339(ts + chrono::Duration::seconds(1)))
            );
            match try_get(&app, &t.rig.owner, &url).await {
                Ok(data) => {
                    if arr(&data[key]).iter().any(|r| r["id"] == id.as_str()) {
                        failures.push(format!("{url}: {id} (at {exact}) is included"));
                    }
                }
                Err(e) => failures.push(e),
            }
        }
    }
    // Executions are windowed by their start.
    let list = t.get(&app, &format!("{M}/executions?limit=100")).await;
    for e in arr(&list["items"]) {
        let started =
            DateTime::<Utc>::from_timestamp_millis(e["started_at_ms"].as_i64().unwrap()).unwrap();
        let url = format!(
            "{M}/executions?limit=100&start_time={}&end_time={}",
            enc(&rfc3339(started - chrono::Duration::milliseconds(1))),
            enc(&rfc3339(started + chrono::Duration::milliseconds(1)))
        );
        let data = t.get(&app, &url).await;
        if !arr(&data["items"]).iter().any(|r| r["id"] == e["id"]) {
            failures.push(format!("{url}: {} is missing", e["id"]));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Walks a list with `limit` and checks each page against the full list.
async fn walk_list(
    t: &Traffic,
    app: &TestApp,
    path: &str,
    key: &str,
    limit: u64,
    ident: fn(&Value) -> String,
) -> usize {
    let full = t.get(app, &with_query(path, "limit=1000")).await;
    let total = full["total"].as_u64().unwrap();
    let want: Vec<String> = arr(&full[key]).iter().map(ident).collect();
    assert_eq!(want.len() as u64, total, "{path}");
    let mut seen = Vec::new();
    let mut offset = 0;
    loop {
        let url = with_query(path, &format!("limit={limit}&offset={offset}"));
        let data = t.get(app, &url).await;
        assert_eq!(data["total"], total, "{url}: total on every page");
        assert_eq!(data["limit"], limit, "{url}");
        assert_eq!(data["offset"], offset, "{url}");
        let rows = arr(&data[key]);
        let expected_len = limit.min(total.saturating_sub(offset));
        assert_eq!(rows.len() as u64, expected_len, "{url}");
        if let Some(more) = data.get("has_more") {
            assert_eq!(*more, offset + expected_len < total, "{url}: has_more");
        }
        if rows.is_empty() {
            break;
        }
        seen.extend(rows.iter().map(ident));
        offset += limit;
    }
    assert_eq!(
        seen, want,
        "{path}: pages in order, without gaps or repeats"
    );
    let unique: BTreeSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "{path}: unique");
    // Past the end: empty, total unchanged.
    let url = with_query(path, &format!("limit={limit}&offset={}", total + 5));
    let past = t.get(app, &url).await;
    assert!(arr(&past[key]).is_empty(), "{url}");
    assert_eq!(past["total"], total, "{url}");
    if let Some(more) = past.get("has_more") {
        assert_eq!(*more, false, "{url}");
    }
    seen.len()
}

fn by_id(row: &Value) -> String {
    s(&row["id"])
}

fn by_session(row: &Value) -> String {
    format!("{}/{}", s(&row["bot_id"]), s(&row["session_id"]))
}

#[tokio::test]
async fn paging_walks_every_list_consistently_with_totals() {
    let app = spawn_app().await;
    let t = traffic(&app).await;
    let b1 = &t.bot1;
    let id: fn(&Value) -> String = by_id;
    let session: fn(&Value) -> String = by_session;
    for (path, key, limit, ident, want) in [
        (format!("{M}/executions"), "items", 4, id, 6),
        (format!("{M}/executions"), "items", 1, id, 6),
        (format!("{M}/executions?mode=real"), "items", 2, id, 5),
        (format!("{M}/messages"), "messages", 5, id, 12),
        (format!("{M}/messages?bot_ids={b1}"), "messages", 3, id, 8),
        (format!("{M}/llm-calls"), "llm_calls", 4, id, 6),
        (
            format!("{M}/llm-calls?statuses=completed"),
            "llm_calls",
            2,
            id,
            5,
        ),
        (format!("{M}/errors"), "errors", 1, id, 1),
        (format!("{M}/sessions"), "sessions", 1, session, 4),
        (format!("{M}/sessions"), "sessions", 3, session, 4),
    ] {
        let n = walk_list(&t, &app, &path, key, limit, ident).await;
        assert_eq!(n, want, "{path}");
    }
    // The records query pages the same way.
    for (kind, total) in [("messages", 12u64), ("llm_calls", 6), ("sessions", 4)] {
        let path = format!("{M}/records/{kind}/query");
        let mut seen = 0;
        for offset in (0..total + 2).step_by(5) {
            let data = t
                .post(&app, &path, &json!({ "limit": 5, "offset": offset }))
                .await;
            assert_eq!(data["total"], total, "{kind} @ {offset}");
            assert_eq!(data["limit"], 5);
            assert_eq!(data["offset"], offset);
            assert_eq!(data["kind"], kind);
            seen += arr(&data["records"]).len();
        }
        assert_eq!(seen as u64, total, "{kind}");
        // The body's limit/offset win over the filters' own.
        let data = t
            .post(
                &app,
                &path,
                &json!({ "limit": 2, "offset": 1, "filters": { "limit": 7, "offset": 3 } }),
            )
            .await;
        assert_eq!(
            (data["limit"].clone(), data["offset"].clone()),
            (json!(2), json!(1))
        );
        assert_eq!(arr(&data["records"]).len(), 2);
        let data = t
            .post(&app, &path, &json!({ "filters": { "limit": 3 } }))
            .await;
        assert_eq!(
            data["limit"], 3,
            "the filters' limit when the body has none"
        );
        assert_eq!(arr(&data["records"]).len(), 3);
    }
    // Tool and embedding calls: none made, empty pages.
    for kind in ["tool_calls", "embedding_calls", "tool-calls"] {
        let data = t
            .post(&app, &format!("{M}/records/{kind}/query"), &json!({}))
            .await;
        assert_eq!(data["total"], 0, "{kind}");
    }
    // Default limits.
    let execs = t.get(&app, &format!("{M}/executions")).await;
    assert_eq!(execs["limit"], 50);
    let msgs = t.get(&app, &format!("{M}/messages")).await;
    assert_eq!(msgs["limit"], 100);
}

#[tokio::test]
async fn data_reports_first_pages_and_total_counts() {
    let app = spawn_app().await;
    let t = traffic(&app).await;
    let data = t.get(&app, &format!("{M}/data?limit=2")).await;
    assert_eq!(
        data["totalCount"],
        json!({ "messages": 12, "llmCalls": 6, "sessions": 4, "errors": 1 })
    );
    for key in ["messages", "llmCalls", "sessions"] {
        assert_eq!(arr(&data[key]).len(), 2, "{key}");
    }
    assert_eq!(arr(&data["errors"]).len(), 1);
    assert_eq!(arr(&data["executions"]["items"]).len(), 2);
    assert_eq!(data["executions"]["total"], 6);
    assert_eq!(data["executions"]["has_more"], true);
    assert_eq!(data["overview"]["executions"], 6);
    assert_eq!(data["overview"]["total_messages"], 12);
    // The first page of each list is the list's own first page; offset is ignored.
    let messages = t.get(&app, &format!("{M}/messages?limit=2")).await;
    assert_eq!(data["messages"], messages["messages"]);
    let shifted = t.get(&app, &format!("{M}/data?limit=2&offset=3")).await;
    assert_eq!(
        shifted["messages"], messages["messages"],
        "data pages from 0"
    );
    // Status and mode narrow every list but sessions.
    let debug = t
        .get(&app, &format!("{M}/data?mode=debug&statuses=completed"))
        .await;
    assert_eq!(
        debug["totalCount"],
        json!({ "messages": 2, "llmCalls": 1, "sessions": 4, "errors": 0 })
    );
    assert_eq!(debug["executions"]["total"], 1);
    // Default limit 50.
    let full = t.get(&app, &format!("{M}/data")).await;
    assert_eq!(arr(&full["messages"]).len(), 12);
    assert_eq!(full["executions"]["limit"], 50);
}

#[tokio::test]
async fn details_of_messages_and_sessions() {
    let app = spawn_app().await;
    let t = traffic(&app).await;
    let alice = t
        .get(&app, &format!("{M}/executions?session_ids=person_alice"))
        .await;
    let a2 = arr(&alice["items"])[1].clone();
    let a2_id = s(&a2["id"]);
    let input_id = s(&a2["message_id"]);
    let full = t
        .get(&app, &format!("{M}/executions/pipeline/{a2_id}"))
        .await;
    let reply_id = s(&full["pages"]["outputs"]["items"][0]["id"]);

    for key in [&input_id, &reply_id, &a2_id] {
        let d = t.get(&app, &format!("{M}/details/message/{key}")).await;
        assert_eq!(d["kind"], "message");
        let data = &d["data"];
        assert_eq!(data["execution"]["id"], a2_id.as_str(), "{key}");
        assert_eq!(data["message"]["id"], input_id.as_str(), "{key}");
        assert_eq!(data["message"]["role"], "user");
        assert_eq!(arr(&data["inputs"]).len(), 1);
        assert_eq!(data["inputs"][0]["message_content"][0]["text"], "a2");
        assert_eq!(arr(&data["outputs"]).len(), 1);
        assert_eq!(data["outputs"][0]["id"], reply_id.as_str());
        assert_eq!(arr(&data["llm_calls"]).len(), 1);
        assert_eq!(data["llm_calls"][0]["total_tokens"], 14);
        assert!(arr(&data["errors"]).is_empty());
    }
    // The failed turn's message details carry its error.
    let bob = t
        .get(&app, &format!("{M}/executions?session_ids=person_bob"))
        .await;
    let bob_message = s(&bob["items"][0]["message_id"]);
    let d = t
        .get(&app, &format!("{M}/details/message/{bob_message}"))
        .await;
    assert_eq!(d["data"]["execution"]["status"], "failed");
    assert_eq!(arr(&d["data"]["errors"]).len(), 1);
    assert_eq!(d["data"]["errors"][0]["session_id"], "person_bob");
    assert_eq!(arr(&d["data"]["llm_calls"]).len(), 1);

    // Session details.
    let d = t
        .get(&app, &format!("{M}/details/session/person_alice"))
        .await;
    assert_eq!(d["kind"], "session");
    let data = &d["data"];
    let sessions = arr(&data["sessions"]);
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0]["bot_id"], t.bot1.as_str());
    assert_eq!(sessions[0]["message_count"], 6);
    assert_eq!(data["message_total"], 6);
    assert_eq!(arr(&data["messages"]).len(), 6);
    assert!(arr(&data["messages"])
        .iter()
        .all(|m| m["session_id"] == "person_alice"));
    let execs = arr(&data["executions"]);
    assert_eq!(execs.len(), 3);
    assert!(execs.iter().all(|e| e["session_id"] == "person_alice"));
    let d = t
        .get(
            &app,
            &format!("{M}/details/session/{}", enc(&t.debug_session)),
        )
        .await;
    assert_eq!(arr(&d["data"]["executions"]).len(), 1);
    assert_eq!(d["data"]["executions"][0]["mode"], "debug");
    assert_eq!(d["data"]["sessions"][0]["bot_id"], DEBUG_BOT);
    let d = t
        .get(&app, &format!("{M}/details/session/person_bob"))
        .await;
    assert_eq!(d["data"]["executions"][0]["status"], "failed");
    assert_eq!(d["data"]["message_total"], 2);

    // Unknown identifiers.
    app.get_as(&t.rig.owner, &format!("{M}/details/session/person_nobody"))
        .await
        .assert_error(404, "resource_not_found");
    app.get_as(&t.rig.owner, &format!("{M}/details/message/in_nothing"))
        .await
        .assert_error(404, "resource_not_found");
    app.get_as(&t.rig.owner, &format!("{M}/details/bogus/{input_id}"))
        .await
        .assert_error(400, "invalid_request");
}

// ---------------------------------------------------------------------------------------------
// 3. Execution detail sections
// ---------------------------------------------------------------------------------------------

const SECTIONS: [&str; 8] = [
    "inputs",
    "outputs",
    "deliveries",
    "events",
    "llm_calls",
    "errors",
    "related",
    "conversation",
];

/// Walks one section with `limit=1` and returns its items; checks every page.
async fn walk_section(t: &Traffic, app: &TestApp, id: &str, section: &str) -> Vec<Value> {
    let mut items = Vec::new();
    let mut offset = 0u64;
    for _ in 0..50 {
        let url = format!("{M}/executions/auto/{id}?section={section}&limit=1&offset={offset}");
        let d = t.get(app, &url).await;
        let keys: Vec<&String> = d["pages"].as_object().unwrap().keys().collect();
        assert_eq!(keys, vec![section], "{url}: only the section asked for");
        assert_eq!(d["row"]["id"], id, "{url}");
        let page = &d["pages"][section];
        let got = arr(&page["items"]);
        assert!(got.len() <= 1, "{url}");
        assert_eq!(
            page["next_offset"],
            offset + got.len() as u64,
            "{url}: next_offset"
        );
        items.extend(got.iter().cloned());
        if page["has_more"] == false {
            return items;
        }
        assert_eq!(got.len(), 1, "{url}: has_more on a short page");
        offset = page["next_offset"].as_u64().unwrap();
    }
    panic!("{section} of {id} never ended");
}

#[tokio::test]
async fn every_detail_section_pages_on_its_own() {
    let app = spawn_app().await;
    let t = traffic(&app).await;
    let executions = t.get(&app, &format!("{M}/executions?limit=100")).await;
    let items = arr(&executions["items"]);
    let find = |session: &str, nth: usize| -> String {
        s(&items
            .iter()
            .filter(|e| e["session_id"] == session)
            .nth(nth)
            .unwrap_or_else(|| panic!("no {session} #{nth}"))["id"])
    };
    let a2 = find("person_alice", 1);
    let bob = find("person_bob", 0);
    let carol = find("person_carol", 0);
    let debug = find(&t.debug_session, 0);
    // Expected section sizes per execution.
    let expected: [(&str, [usize; 8]); 4] = [
        // inputs outputs deliveries events llm_calls errors related conversation
        (&a2, [1, 1, 1, 1, 1, 0, 2, 6]),
        (&bob, [1, 1, 1, 1, 1, 1, 0, 2]),
        (&carol, [1, 1, 1, 1, 1, 0, 0, 2]),
        (&debug, [1, 1, 1, 0, 1, 0, 0, 2]),
    ];
    let mut failures = Vec::new();
    for (id, sizes) in expected {
        let full = t.get(&app, &format!("{M}/executions/pipeline/{id}")).await;
        let pages = full["pages"].as_object().unwrap();
        assert_eq!(
            pages.keys().cloned().collect::<BTreeSet<_>>(),
            SECTIONS
                .iter()
                .map(|s| s.to_string())
                .collect::<BTreeSet<_>>(),
            "without section: every section"
        );
        for (section, size) in SECTIONS.iter().zip(sizes) {
            let whole = arr(&full["pages"][*section]["items"]);
            if whole.len() != size {
                failures.push(format!(
                    "{id} {section}: expected {size} items, got {}",
                    whole.len()
                ));
            }
            assert_eq!(full["pages"][*section]["has_more"], false);
            assert_eq!(full["pages"][*section]["next_offset"], whole.len());
            let walked = walk_section(&t, &app, id, section).await;
            assert_eq!(walked, whole, "{id} {section}: limit=1 pages = the whole");
            // Past the end.
            let url = format!("{M}/executions/auto/{id}?section={section}&limit=1&offset=40");
            let past = t.get(&app, &url).await;
            assert_eq!(past["pages"][*section]["items"], json!([]), "{url}");
            assert_eq!(past["pages"][*section]["has_more"], false, "{url}");
            assert_eq!(past["pages"][*section]["next_offset"], 40, "{url}");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // All sections with limit=1: each section paged on its own.
    let d = t
        .get(&app, &format!("{M}/executions/auto/{a2}?limit=1"))
        .await;
    for section in SECTIONS {
        let page = &d["pages"][section];
        let n = arr(&page["items"]).len();
        assert!(n <= 1, "{section}");
        assert_eq!(page["next_offset"], n, "{section}");
    }
    assert_eq!(d["pages"]["related"]["has_more"], true);
    assert_eq!(d["pages"]["conversation"]["has_more"], true);
    assert_eq!(d["pages"]["inputs"]["has_more"], false);
    assert_eq!(d["pages"]["errors"]["next_offset"], 0);
    // overview = inputs, outputs, deliveries and errors.
    let d = t
        .get(
            &app,
            &format!("{M}/executions/auto/{bob}?section=overview&limit=1"),
        )
        .await;
    let keys: BTreeSet<String> = d["pages"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        ["deliveries", "errors", "inputs", "outputs"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
    assert_eq!(arr(&d["pages"]["errors"]["items"]).len(), 1);
    let d = t
        .get(
            &app,
            &format!("{M}/executions/auto/{bob}?section=overview&limit=1&offset=1"),
        )
        .await;
    for section in ["deliveries", "errors", "inputs", "outputs"] {
        assert_eq!(d["pages"][section]["items"], json!([]), "{section}");
        assert_eq!(d["pages"][section]["next_offset"], 1, "{section}");
    }
    // The conversation is the session's, newest first; related are the session's other turns.
    let conv = walk_section(&t, &app, &a2, "conversation").await;
    let texts: Vec<String> = conv
        .iter()
        .map(|m| s(&m["message_content"][0]["text"]))
        .collect();
    assert_eq!(
        texts,
        [
            "echo(3): a3",
            "a3",
            "echo(2): a2",
            "a2",
            "echo(1): a1",
            "a1"
        ],
        "{texts:?}"
    );
    let related = walk_section(&t, &app, &a2, "related").await;
    assert!(related
        .iter()
        .all(|r| r["session_id"] == "person_alice" && r["id"] != a2.as_str()));
    let deliveries = walk_section(&t, &app, &a2, "deliveries").await;
    assert_eq!(deliveries[0]["origin"], "delivery");
    let outputs = walk_section(&t, &app, &a2, "outputs").await;
    assert_eq!(outputs[0]["origin"], "generated");
    assert_eq!(outputs[0]["role"], "assistant");
}

#[tokio::test]
async fn auto_source_resolves_messages_replies_and_events() {
    let app = spawn_app().await;
    let t = traffic(&app).await;
    let executions = t.get(&app, &format!("{M}/executions?limit=100")).await;
    for e in arr(&executions["items"]) {
        let id = s(&e["id"]);
        let full = t.get(&app, &format!("{M}/executions/pipeline/{id}")).await;
        assert_eq!(full["source"], "pipeline");
        assert_eq!(full["row"]["id"], id.as_str());
        let input = s(&full["pages"]["inputs"]["items"][0]["id"]);
        assert_eq!(e["message_id"], input.as_str());
        assert_eq!(full["message"]["id"], input.as_str());
        let reply = s(&full["pages"]["outputs"]["items"][0]["id"]);
        for key in [&id, &input, &reply] {
            let d = t
                .get(
                    &app,
                    &format!("{M}/executions/auto/{key}?section=inputs&limit=1"),
                )
                .await;
            assert_eq!(d["row"]["id"], id.as_str(), "auto {key}");
            assert_eq!(d["pages"]["inputs"]["items"][0]["id"], input.as_str());
        }
        // `pipeline` takes execution ids only.
        for key in [&input, &reply] {
            app.get_as(&t.rig.owner, &format!("{M}/executions/pipeline/{key}"))
                .await
                .assert_error(404, "resource_not_found");
        }
        // `event` takes event ids only.
        app.get_as(&t.rig.owner, &format!("{M}/executions/event/{id}"))
            .await
            .assert_error(404, "resource_not_found");
        if let Some(event) = e["event_id"].as_str() {
            let d = t
                .get(
                    &app,
                    &format!("{M}/executions/event/{}?section=overview", enc(event)),
                )
                .await;
            assert_eq!(d["row"]["id"], id.as_str(), "event {event}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Export
// ---------------------------------------------------------------------------------------------

const MESSAGE_COLUMNS: &str = "id,timestamp,bot_id,bot_name,pipeline_id,pipeline_name,session_id,role,status,mode,user_id,user_name,message_content,execution_id";
const LLM_COLUMNS: &str = "id,timestamp,bot_id,pipeline_id,session_id,model_name,input_tokens,output_tokens,total_tokens,duration,status,mode,error_message,execution_id";
const ERROR_COLUMNS: &str =
    "id,timestamp,bot_id,pipeline_id,session_id,error_type,error_message,mode,execution_id";
const SESSION_COLUMNS: &str = "bot_id,session_id,bot_name,pipeline_id,pipeline_name,message_count,start_time,last_activity,is_active,platform,user_id,user_name";

/// The export's rows (header first), after checking it is a CSV attachment.
async fn export(app: &TestApp, token: &str, query: &str) -> Vec<Vec<String>> {
    let url = format!("{M}/export?{query}");
    let res = app.get_as(token, &url).await;
    assert_eq!(res.status, 200, "{url}: {}", res.text);
    let ct = res.header("content-type").unwrap_or_default();
    assert!(ct.starts_with("text/csv"), "{url}: content-type {ct}");
    let cd = res.header("content-disposition").unwrap_or_default();
    assert!(cd.starts_with("attachment"), "{url}: {cd}");
    let rows = parse_csv(&res.text);
    assert!(!rows.is_empty(), "{url}: a header row at least");
    let width = rows[0].len();
    assert!(
        rows.iter().all(|r| r.len() == width),
        "{url}: every row as wide as the header"
    );
    rows
}

#[tokio::test]
async fn export_writes_a_header_and_one_row_per_filtered_record() {
    let app = spawn_app().await;
    let t = traffic(&app).await;
    let owner = &t.rig.owner;
    let header = |rows: &Vec<Vec<String>>| rows[0].join(",");
    let col = |rows: &Vec<Vec<String>>, name: &str| -> Vec<String> {
        let i = rows[0].iter().position(|c| c == name).unwrap();
        rows[1..].iter().map(|r| r[i].clone()).collect()
    };

    // Messages: the list's rows, in its order.
    let rows = export(&app, owner, "type=messages").await;
    assert_eq!(header(&rows), MESSAGE_COLUMNS);
    let list = t.get(&app, &format!("{M}/messages?limit=1000")).await;
    let ids: Vec<String> = arr(&list["messages"]).iter().map(by_id).collect();
    assert_eq!(col(&rows, "id"), ids);
    assert_eq!(rows.len(), 13);
    let default = export(&app, owner, "").await;
    assert_eq!(default, rows, "messages is the default type");
    // Filters apply.
    let rows = export(&app, owner, &format!("type=messages&bot_ids={}", t.bot2)).await;
    assert_eq!(rows.len(), 3);
    assert!(col(&rows, "bot_id").iter().all(|b| *b == t.bot2));
    let rows = export(
        &app,
        owner,
        &format!("type=messages&pipeline_ids={}&mode=debug", t.pipeline2),
    )
    .await;
    assert_eq!(rows.len(), 3);
    assert!(col(&rows, "mode").iter().all(|m| m == "debug"));
    assert!(col(&rows, "bot_id").iter().all(|b| b == DEBUG_BOT));
    let rows = export(&app, owner, "type=messages&statuses=failed").await;
    assert_eq!(rows.len(), 3);
    assert!(col(&rows, "session_id").iter().all(|s| s == "person_bob"));
    let rows = export(
        &app,
        owner,
        "type=messages&session_ids=person_carol&limit=1",
    )
    .await;
    assert_eq!(rows.len(), 2, "limit caps the rows");
    let rows = export(
        &app,
        owner,
        &format!("type=messages&start_time={}", enc(&rfc3339(t.split))),
    )
    .await;
    assert_eq!(rows.len(), 7);
    let rows = export(
        &app,
        owner,
        "type=messages&start_time=2020-01-01T00:00:00Z&end_time=2020-02-01T00:00:00Z",
    )
    .await;
    assert_eq!(rows.len(), 1, "a past window: the header alone");
    assert_eq!(header(&rows), MESSAGE_COLUMNS);
    // Message content survives CSV quoting.
    let rows = export(&app, owner, "type=messages&session_ids=person_alice").await;
    let contents = col(&rows, "message_content");
    let first: Value = serde_json::from_str(contents.last().unwrap()).unwrap();
    assert_eq!(first[0]["text"], "a1");

    // LLM calls, errors, sessions, tool calls.
    for (q, columns, n) in [
        ("type=llm_calls", LLM_COLUMNS, 6),
        ("type=llm-calls", LLM_COLUMNS, 6),
        ("type=llm_calls&statuses=failed", LLM_COLUMNS, 1),
        ("type=llm_calls&mode=real", LLM_COLUMNS, 5),
        ("type=errors", ERROR_COLUMNS, 1),
        ("type=errors&mode=debug", ERROR_COLUMNS, 0),
        ("type=sessions", SESSION_COLUMNS, 4),
        ("type=tool_calls", "id,timestamp", 0),
        ("type=embedding_calls", "id,timestamp", 0),
    ] {
        let rows = export(&app, owner, q).await;
        assert_eq!(header(&rows), columns, "{q}");
        assert_eq!(rows.len(), n + 1, "{q}: a header and {n} rows");
    }
    let rows = export(&app, owner, &format!("type=sessions&bot_ids={}", t.bot1)).await;
    let mut sessions = col(&rows, "session_id");
    sessions.sort();
    assert_eq!(sessions, ["person_alice", "person_bob"]);
    let rows = export(&app, owner, "type=errors").await;
    assert_eq!(col(&rows, "session_id"), ["person_bob"]);
    let res = app
        .get_as(owner, &format!("{M}/export?type=llm_calls"))
        .await;
    assert!(res
        .header("content-disposition")
        .unwrap()
        .contains("monitoring-llm_calls.csv"));
}

#[tokio::test]
async fn export_needs_data_export() {
    let app = spawn_app().await;
    let t = traffic(&app).await;
    let owner = &t.rig.owner;
    let ws = app.workspace_of(owner).await;
    let url = format!("{M}/export?type=messages");
    for role in ["viewer", "operator", "developer"] {
        let m = app
            .add_member(owner, &ws, &format!("{role}@example.com"), role)
            .await;
        app.get_as(&m.token, &url)
            .await
            .assert_error(403, "permission_denied");
        // … while the lists stay readable.
        let list = app.get_as(&m.token, &format!("{M}/messages")).await;
        assert_eq!(list.data()["total"], 12, "{role}");
    }
    let admin = app
        .add_member(owner, &ws, "admin@example.com", "admin")
        .await;
    assert_eq!(export(&app, &admin.token, "type=messages").await.len(), 13);
    // Keys: scopes decide.
    let (_, view_only) = app.create_key(owner, Some(&["resource.view"])).await;
    app.get_as(&view_only, &url)
        .await
        .assert_error(403, "permission_denied");
    let res = app
        .request(Method::GET, &url)
        .header("x-api-key", &view_only)
        .send()
        .await;
    res.assert_error(403, "permission_denied");
    app.get_as(&view_only, &format!("{M}/messages"))
        .await
        .data();
    let (_, exporter) = app
        .create_key(owner, Some(&["resource.view", "data.export"]))
        .await;
    assert_eq!(export(&app, &exporter, "type=messages").await.len(), 13);
    let (_, export_only) = app.create_key(owner, Some(&["data.export"])).await;
    assert_eq!(export(&app, &export_only, "type=errors").await.len(), 2);
    app.get_as(&export_only, &format!("{M}/messages"))
        .await
        .assert_error(403, "permission_denied");
    // No credentials.
    app.get(&url)
        .await
        .assert_error(401, "invalid_authentication");
    // A bad filter from a caller without data.export is still a 403.
    let viewer_key = app.create_key(owner, Some(&["resource.view"])).await.1;
    app.get_as(&viewer_key, &format!("{M}/export?type=nope"))
        .await
        .assert_error(403, "permission_denied");
}
