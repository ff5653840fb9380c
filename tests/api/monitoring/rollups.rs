//! The hourly rollups behind monitoring totals: kept by the database's triggers in step with
//! the records (turns, failures, concurrent turns, the reaper, retention), equal to a rebuild
//! from the records, and giving the same totals as counting the records for windows that cut
//! hours.

use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use reqwest::Method;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, EntityTrait, IntoActiveModel};
use serde_json::{json, Value};

use super::traffic::ok;
use crate::helpers::fixtures::{text, Rig};
use crate::helpers::{spawn_app, FakeOpenAi, Route, TestApp};
use langbot::entities::{execution, llm_call, monitoring_message, monitoring_rollup};
use langbot::monitoring::rollup;

/// The non-empty rollup rows, printed and sorted.
async fn rollup_rows(app: &TestApp) -> Vec<String> {
    let mut rows: Vec<String> = monitoring_rollup::Entity::find()
        .all(app.db())
        .await
        .unwrap()
        .into_iter()
        .filter(|r| r.n != 0 || r.input_tokens != 0 || r.output_tokens != 0 || r.total_tokens != 0)
        .map(|r| {
            format!(
                "{} {} h{} bot={} pipeline={} {} {} model={:?} → n={} in={} out={} total={}",
                r.workspace_uuid,
                sea_orm::ActiveEnum::to_value(&r.kind),
                r.hour,
                r.bot_id,
                r.pipeline_id,
                r.mode,
                r.status,
                r.model_name,
                r.n,
                r.input_tokens,
                r.output_tokens,
                r.total_tokens
            )
        })
        .collect();
    rows.sort();
    rows
}

/// The rollups kept as records were written equal the ones recomputed from the records.
async fn assert_rollups_match_records(app: &TestApp, when: &str) -> Vec<String> {
    let kept = rollup_rows(app).await;
    rollup::rebuild(app.db()).await.unwrap();
    let rebuilt = rollup_rows(app).await;
    assert_eq!(
        kept, rebuilt,
        "{when}: kept rollups (left) differ from a rebuild (right)"
    );
    kept
}

/// A Rig with completed, failed and debug turns.
async fn traffic(app: &TestApp) -> (Rig, FakeOpenAi) {
    let rig = Rig::new(app, json!({})).await;
    for (who, q) in [("alice", "a1"), ("alice", "a2"), ("carol", "c1")] {
        ok(&rig.sync(app, text(who, q)).await, "turn");
    }
    ok(
        &app.send_as(
            &rig.owner,
            Method::POST,
            &format!("/api/v1/pipelines/{}/run", rig.pipeline),
            &json!({ "message": "debug run" }),
        )
        .await,
        "debug run",
    );
    let broken = FakeOpenAi::start().await;
    broken.mount_server_error(Route::Chat).await;
    let bad = app
        .llm_model_on(&rig.owner, &broken.base_url(), "broken")
        .await;
    let config =
        json!({ "ai": { "runner_config": { "local-agent": { "model": { "primary": bad } } } } });
    ok(
        &app.send_as(
            &rig.owner,
            Method::PUT,
            &format!("/api/v1/pipelines/{}", rig.pipeline),
            &json!({ "config": config }),
        )
        .await,
        "break the pipeline",
    );
    ok(&rig.sync(app, text("bob", "fails")).await, "failing turn");
    (rig, broken)
}

#[tokio::test]
async fn rollups_follow_turns_the_reaper_and_retention() {
    let app = spawn_app().await;
    let (rig, _broken) = traffic(&app).await;
    let rows = assert_rollups_match_records(&app, "after turns").await;
    for kind in ["execution", "message", "llm_call"] {
        assert!(
            rows.iter().any(|r| r.contains(&format!(" {kind} "))),
            "no {kind} rollup: {rows:#?}"
        );
    }
    assert!(rows.iter().any(|r| r.contains(" failed ")), "{rows:#?}");
    assert!(rows.iter().any(|r| r.contains(" debug ")), "{rows:#?}");

    // An execution orphaned by a dead replica, with a model call on record, is reaped.
    let ws = app.workspace_of(&rig.owner).await;
    let scope = langbot::runtime::recorder::Scope {
        workspace: ws.clone(),
        execution_id: uuid::Uuid::new_v4().to_string(),
        bot_id: rig.bot.clone(),
        bot_name: "orphan's bot".into(),
        pipeline_id: rig.pipeline.clone(),
        pipeline_name: "orphan's pipeline".into(),
        session_id: "orphan".into(),
        mode: langbot::entities::execution::ExecutionMode::Real,
        lease: std::time::Duration::from_secs(120),
        incomplete: Default::default(),
    };
    let db = app.db();
    use langbot::runtime::recorder;
    recorder::start_execution(db, &scope, "pipeline", None, None, None, "dead-replica").await;
    recorder::llm_call(
        db,
        &scope,
        recorder::LlmCallRecord {
            model_name: "m",
            model_uuid: "u",
            usage: langbot::llm::Usage {
                prompt_tokens: 7,
                completion_tokens: 5,
                total_tokens: 12,
            },
            duration_ms: 3,
            error: None,
            message_id: None,
            details: json!({}),
        },
    )
    .await;
    let orphan = execution::Entity::find_by_id(scope.execution_id.clone())
        .one(db)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (orphan.llm_calls, orphan.total_tokens),
        (1, 12),
        "the execution's own totals follow its LLM calls"
    );
    let mut active = orphan.into_active_model();
    active.lease_expires_at = Set(Some(Utc::now() - chrono::Duration::seconds(5)));
    active.update(db).await.unwrap();
    assert_eq!(langbot::monitoring::maintenance::reap(db).await.unwrap(), 1);
    assert_eq!(
        langbot::monitoring::maintenance::reap(db).await.unwrap(),
        0,
        "reaped once"
    );
    let summary = ok(
        &app.get_as(&rig.owner, "/api/v1/monitoring/executions?statuses=failed")
            .await,
        "failed executions",
    );
    assert_eq!(summary["summary"]["executions"]["failed"], 2, "{summary}");
    assert_rollups_match_records(&app, "after the reaper").await;

    // Retention removes the older half; totals and rollups follow.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let cut = Utc::now();
    tokio::time::sleep(Duration::from_millis(300)).await;
    ok(&rig.sync(&app, text("dave", "after the cut")).await, "turn");
    let retention = (Utc::now() - cut).to_std().unwrap();
    let removed = langbot::monitoring::maintenance::expire(db, retention)
        .await
        .unwrap();
    assert!(removed > 10, "removed {removed}");
    let rows = assert_rollups_match_records(&app, "after retention").await;
    assert!(!rows.is_empty(), "dave's turn is still counted");
    let list = ok(
        &app.get_as(&rig.owner, "/api/v1/monitoring/executions")
            .await,
        "executions",
    );
    assert_eq!(list["total"], 1, "{list}");
    assert_eq!(list["summary"]["executions"]["failed"], 1, "{list}");
    let messages = ok(
        &app.get_as(&rig.owner, "/api/v1/monitoring/messages").await,
        "messages",
    );
    assert_eq!(
        messages["total"].as_u64(),
        Some(messages["messages"].as_array().unwrap().len() as u64)
    );
}

#[tokio::test]
async fn concurrent_turns_keep_rollups_exact() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let turns = (0..24).map(|i| {
        let (app, rig) = (&app, &rig);
        async move {
            rig.sync(app, text(&format!("s{}", i % 6), &format!("q{i}")))
                .await
        }
    });
    let answers = futures_util::future::join_all(turns).await;
    let done = answers.iter().filter(|r| r.status == 200).count();
    assert!(done >= 6, "{done} turns answered");
    let rows = assert_rollups_match_records(&app, "after concurrent turns").await;
    let list = ok(
        &app.get_as(&rig.owner, "/api/v1/monitoring/executions")
            .await,
        "executions",
    );
    let executions: i64 = rows
        .iter()
        .filter(|r| r.contains(" execution "))
        .map(|r| {
            r.split("n=")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse::<i64>()
                .unwrap()
        })
        .sum();
    assert_eq!(list["total"].as_i64(), Some(executions), "{list}");
}

fn at(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// Moves every execution (and its records) `minutes * i` back, so records span many hours.
async fn spread_over_hours(app: &TestApp, minutes: i64) {
    let db = app.db();
    let mut executions = execution::Entity::find().all(db).await.unwrap();
    executions.sort_by_key(|e| e.started_at);
    for (i, e) in executions.into_iter().enumerate() {
        let shift = chrono::Duration::minutes(minutes * i as i64 + 7);
        for m in monitoring_message::Entity::find().all(db).await.unwrap() {
            if m.execution_id.as_deref() == Some(e.id.as_str()) {
                let t = m.timestamp - shift;
                let mut a = m.into_active_model();
                a.timestamp = Set(t);
                a.update(db).await.unwrap();
            }
        }
        for c in llm_call::Entity::find().all(db).await.unwrap() {
            if c.execution_id.as_deref() == Some(e.id.as_str()) {
                let t = c.timestamp - shift;
                let mut a = c.into_active_model();
                a.timestamp = Set(t);
                a.update(db).await.unwrap();
            }
        }
        let t = e.started_at - shift;
        let mut a = e.into_active_model();
        a.started_at = Set(t);
        a.update(db).await.unwrap();
    }
    rollup::rebuild(db).await.unwrap();
}

/// The numbers of every total-bearing read.
async fn totals(app: &TestApp, owner: &str, query: &str) -> Value {
    let get = |path: &str| {
        let url = format!("/api/v1/monitoring/{path}?{query}");
        async move {
            let res = app.get_as(owner, &url).await;
            ok(&res, &url)
        }
    };
    let executions = get("executions").await;
    let messages = get("messages").await;
    let llm = get("llm-calls").await;
    let overview = get("overview").await;
    let tokens = get("token-statistics").await;
    let daily = app
        .get_as(
            owner,
            &format!("/api/v1/monitoring/token-statistics?bucket=day&{query}"),
        )
        .await;
    let traffic = get("data").await["traffic"].clone();
    json!({
        "daily": ok(&daily, "daily token statistics")["timeseries"],
        "traffic": traffic,
        "executions": executions["total"],
        "summary": executions["summary"],
        "messages": messages["total"],
        "llm_calls": llm["total"],
        "overview": overview,
        "tokens": tokens,
    })
}

#[tokio::test]
async fn windows_that_cut_hours_total_the_same_as_counting_records() {
    let app = spawn_app().await;
    let (rig, _broken) = traffic(&app).await;
    let more = (0..4).map(|i| rig.sync(&app, text(&format!("e{i}"), "more")));
    for r in futures_util::future::join_all(more).await {
        ok(&r, "turn");
    }
    spread_over_hours(&app, 50).await;

    let executions = execution::Entity::find().all(app.db()).await.unwrap();
    let mut sessions: Vec<String> = executions.iter().map(|e| e.session_id.clone()).collect();
    sessions.sort();
    sessions.dedup();
    // Listing every session forces the count over records; the rest is the same filter.
    let all_sessions: String = sessions
        .iter()
        .map(|s| format!("&session_ids={}", urlencoding(s)))
        .collect();
    let first = executions.iter().map(|e| e.started_at).min().unwrap();
    let last = Utc::now();
    let hour = |t: DateTime<Utc>| {
        DateTime::from_timestamp(t.timestamp().div_euclid(3600) * 3600, 0).unwrap()
    };
    let us = chrono::Duration::microseconds;
    let mut bounds = [
        hour(first) + chrono::Duration::hours(1),
        hour(first) + chrono::Duration::hours(1) - us(1),
        hour(first) + chrono::Duration::hours(2) + us(1),
        hour(first) + chrono::Duration::minutes(150),
        executions[executions.len() / 2].started_at,
        hour(last),
    ];
    bounds.sort();
    let mut windows: Vec<String> = vec![String::new()];
    for (i, a) in bounds.iter().enumerate() {
        windows.push(format!("start_time={}", at(*a)));
        windows.push(format!("end_time={}", at(*a)));
        for b in &bounds[i + 1..] {
            if a < b {
                windows.push(format!("start_time={}&end_time={}", at(*a), at(*b)));
            }
        }
    }
    let filters = [
        String::new(),
        format!("bot_ids={}", rig.bot),
        "mode=real".to_string(),
        "mode=debug".to_string(),
        "statuses=failed".to_string(),
        format!("pipeline_ids={}&statuses=completed", rig.pipeline),
    ];
    let mut compared = 0;
    let mut nonzero = 0;
    for w in &windows {
        for f in &filters {
            let q = [w.as_str(), f.as_str()]
                .iter()
                .filter(|s| !s.is_empty())
                .cloned()
                .collect::<Vec<_>>()
                .join("&");
            let by_rollups = totals(&app, &rig.owner, &q).await;
            let by_records = totals(&app, &rig.owner, &format!("{q}{all_sessions}")).await;
            assert_eq!(by_rollups, by_records, "query {q}");
            compared += 1;
            if by_rollups["executions"].as_u64() > Some(0) {
                nonzero += 1;
            }
        }
    }
    assert!(
        compared > 100 && nonzero > 40,
        "{compared} compared, {nonzero} non-empty"
    );
}

fn urlencoding(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test]
async fn token_series_and_traffic_bucket_records_by_hour_and_day() {
    let app = spawn_app().await;
    let (rig, _broken) = traffic(&app).await;
    // Executions 2h10m apart: some hours have nothing.
    spread_over_hours(&app, 130).await;
    let db = app.db();
    let calls = llm_call::Entity::find().all(db).await.unwrap();
    let messages = monitoring_message::Entity::find().all(db).await.unwrap();
    let hour_label = |t: DateTime<Utc>| t.format("%Y-%m-%d %H:00").to_string();
    let mut want: std::collections::BTreeMap<String, (u64, i64)> = Default::default();
    for c in &calls {
        let e = want.entry(hour_label(c.timestamp)).or_default();
        e.0 += 1;
        e.1 += c.total_tokens;
    }
    let stats = ok(
        &app.get_as(&rig.owner, "/api/v1/monitoring/token-statistics")
            .await,
        "token statistics",
    );
    assert_eq!(stats["bucket"], "hour");
    let got: std::collections::BTreeMap<String, (u64, i64)> = stats["timeseries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let b = p["bucket"].as_str().unwrap().to_string();
            (
                b,
                (
                    p["calls"].as_u64().unwrap(),
                    p["total_tokens"].as_i64().unwrap(),
                ),
            )
        })
        .collect();
    assert_eq!(got, want, "{stats}");
    assert!(want.len() >= 4, "the calls span hours: {want:?}");
    assert_eq!(stats["timeseries_truncated"], false);

    // A bounded window of a few hours: hourly traffic, zero-filled from its first hour to
    // its last, counting every message and call in the window.
    let first = messages.iter().map(|m| m.timestamp).min().unwrap();
    let last = messages.iter().map(|m| m.timestamp).max().unwrap();
    let data = ok(
        &app.get_as(
            &rig.owner,
            &format!(
                "/api/v1/monitoring/data?start_time={}&end_time={}",
                at(first),
                at(last)
            ),
        )
        .await,
        "data",
    );
    let traffic = &data["traffic"];
    assert_eq!(traffic["bucket"], "hour", "{traffic}");
    let points = traffic["points"].as_array().unwrap();
    let hours = (last.timestamp() / 3600 - first.timestamp() / 3600 + 1) as usize;
    assert_eq!(points.len(), hours, "{traffic}");
    assert_eq!(
        points[0]["timestamp"],
        first.format("%Y-%m-%dT%H:00:00Z").to_string()
    );
    let sum = |k: &str| points.iter().map(|p| p[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(sum("messages"), messages.len() as u64);
    assert_eq!(sum("llm_calls"), calls.len() as u64);
    assert!(
        points.iter().any(|p| p["messages"] == 0),
        "zero-filled: {traffic}"
    );
    // Unbounded: daily.
    let all = ok(
        &app.get_as(&rig.owner, "/api/v1/monitoring/data").await,
        "data",
    );
    assert_eq!(all["traffic"]["bucket"], "day");
    let daily: u64 = all["traffic"]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["messages"].as_u64().unwrap())
        .sum();
    assert_eq!(daily, messages.len() as u64);
}
