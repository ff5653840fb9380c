//! The shared filters (bots, pipelines, sessions, time window, statuses, mode) narrow every list
//! alike; rows are labelled as the runtime ran them; window bounds are inclusive.

use std::collections::BTreeMap;

use chrono::{DateTime, SecondsFormat, Utc};
use reqwest::Method;
use serde_json::{json, Value};

use super::traffic::{arr, s, traffic, Traffic, DEBUG_BOT, M};
use crate::helpers::query::{enc, rfc3339, with_query};
use crate::helpers::{spawn_app, TestApp};

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
