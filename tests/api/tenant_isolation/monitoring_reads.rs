//! Monitoring reads with A's credentials (lists, records of every kind, overview, token
//! statistics, dashboard data, in-flight snapshot, CSV export): A's records, exactly, and none
//! of B's; B's executions, messages and sessions by id are 404; A's admin selecting B (not a
//! member there) gets 404 everywhere; B's own reads show B's records.

use std::collections::BTreeSet;

use reqwest::Method;
use serde_json::{json, Value};

use super::world::{ids, leaks, Recorded, World, RECORD_LISTS};
use super::{B_FAIL_SESSION, B_SESSION, B_TEXT};
use crate::helpers::{Cred, Response, TestApp};

/// A reader of Workspace A's monitoring: must see A's records, and none of B's.
struct Reader<'a> {
    cred: &'a Cred,
    selector: Option<&'a str>,
    label: &'static str,
    /// Whether it holds `data.export`.
    exports: bool,
}

/// Everything the monitoring checks need.
struct MonitoringCase<'a> {
    readers: Vec<Reader<'a>>,
    /// A's admin, who selects B below (not a member there).
    admin_a: &'a Cred,
    /// B's owner, who must see B's records where A sees none.
    owner: &'a Cred,
    ws_b: &'a str,
    bot_b: &'a str,
    a: &'a Recorded,
    b: &'a Recorded,
    /// Strings of B's records and resources that must never reach A.
    markers: &'a BTreeSet<String>,
}

/// The record kinds of `POST /monitoring/records/{kind}/query`, with the list of
/// [`RECORD_LISTS`] each one pages (tool and embedding calls: none are made).
const RECORD_KINDS: [(&str, Option<&str>); 6] = [
    ("messages", Some("messages")),
    ("llm_calls", Some("llm-calls")),
    ("errors", Some("errors")),
    ("sessions", Some("sessions")),
    ("tool_calls", None),
    ("embedding_calls", None),
];

/// The CSV export types, with the list of [`RECORD_LISTS`] each one writes.
const EXPORT_TYPES: [(&str, &str); 4] = [
    ("messages", "messages"),
    ("llm_calls", "llm-calls"),
    ("errors", "errors"),
    ("sessions", "sessions"),
];

/// Which part of the per-reader checks to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    /// The record lists: exactly A's rows; filtered by B's bot and session, none.
    Lists,
    /// Overview, token statistics, `/data` and the in-flight snapshot: A's counts.
    Counts,
    /// `POST /monitoring/records/{kind}/query` of every kind.
    RecordKinds,
    /// B's executions, messages, events and sessions by id.
    ById,
    /// The CSV export (`data.export`).
    Export,
}

impl<'a> MonitoringCase<'a> {
    /// A's readers (its admin, with and without selecting A; its key, also with `X-Workspace-Id`
    /// B; its developer, who lacks `data.export`) against B's records.
    fn of(w: &'a World) -> Self {
        MonitoringCase {
            readers: vec![
                Reader {
                    cred: &w.admin_a,
                    selector: None,
                    label: "A's admin",
                    exports: true,
                },
                Reader {
                    cred: &w.admin_a,
                    selector: Some(w.ws_a.as_str()),
                    label: "A's admin selecting A",
                    exports: true,
                },
                Reader {
                    cred: &w.key_a,
                    selector: None,
                    label: "A's API key",
                    exports: true,
                },
                Reader {
                    cred: &w.key_a,
                    selector: Some(w.ws_b.as_str()),
                    label: "A's API key with X-Workspace-Id B",
                    exports: true,
                },
                Reader {
                    cred: &w.developer_a,
                    selector: None,
                    label: "A's developer",
                    exports: false,
                },
            ],
            admin_a: &w.admin_a,
            owner: &w.owner,
            ws_b: &w.ws_b,
            bot_b: &w.bot_b,
            a: &w.recorded_a,
            b: &w.recorded_b,
            markers: &w.b_markers,
        }
    }
}

/// B's executions, messages, events and sessions, by id, in every way the API names them.
fn b_by_id(case: &MonitoringCase<'_>) -> Vec<String> {
    let mut b_by_id: Vec<String> = Vec::new();
    for e in &case.b.executions {
        let id = e["id"].as_str().unwrap_or_default();
        b_by_id.push(format!("/api/v1/monitoring/executions/pipeline/{id}"));
        b_by_id.push(format!("/api/v1/monitoring/executions/auto/{id}"));
        b_by_id.push(format!(
            "/api/v1/monitoring/executions/auto/{id}?section=conversation"
        ));
        b_by_id.push(format!("/api/v1/monitoring/details/message/{id}"));
        if let Some(event) = e["event_id"].as_str() {
            b_by_id.push(format!("/api/v1/monitoring/executions/event/{event}"));
            b_by_id.push(format!("/api/v1/monitoring/executions/auto/{event}"));
        }
    }
    for m in &case.b.messages {
        let id = m["id"].as_str().unwrap_or_default();
        b_by_id.push(format!("/api/v1/monitoring/executions/auto/{id}"));
        b_by_id.push(format!("/api/v1/monitoring/details/message/{id}"));
    }
    for s in &case.b.sessions {
        let id = s["session_id"].as_str().unwrap_or_default();
        b_by_id.push(format!("/api/v1/monitoring/details/session/{id}"));
    }
    b_by_id
}

/// B's owner reaches each of [`b_by_id`]: the 404s for A are isolation, not typos.
async fn owner_reaches_b_by_id(app: &TestApp, case: &MonitoringCase<'_>) -> Vec<String> {
    let mut problems = Vec::new();
    for path in &b_by_id(case) {
        let res = app
            .call(case.owner, Some(case.ws_b), Method::GET, path, None)
            .await;
        if res.status != 200 {
            problems.push(format!(
                "GET {path} as B's owner: expected 200, got {} {}",
                res.status, res.text
            ));
        }
    }
    problems
}

/// `section` of the checks, for every reader of A.
async fn reader_problems(
    app: &TestApp,
    case: &MonitoringCase<'_>,
    section: Section,
) -> Vec<String> {
    let mut problems = Vec::new();
    let b_filter = format!("bot_ids={}&session_ids={B_SESSION}", case.bot_b);
    let b_filter_body =
        json!({ "bot_ids": [case.bot_b], "session_ids": [B_SESSION, B_FAIL_SESSION] });
    let b_by_id = b_by_id(case);
    for reader in &case.readers {
        let r = |method: Method, path: String, body: Option<Value>| async move {
            let res = app
                .call(
                    reader.cred,
                    reader.selector,
                    method.clone(),
                    &path,
                    body.as_ref(),
                )
                .await;
            (
                format!("{} {path} as {}", method.as_str(), reader.label),
                res,
            )
        };
        let leaked = |what: &str, res: &Response, problems: &mut Vec<String>| {
            let found = leaks(&res.text, case.markers);
            if !found.is_empty() {
                problems.push(format!("{what}: shows B's {found:?}: {}", res.text));
            }
        };

        if section == Section::Lists {
            // The record lists: exactly A's rows; filtered by B's bot and session, none.
            for (path, key, id) in RECORD_LISTS {
                let (what, res) = r(
                    Method::GET,
                    format!("/api/v1/monitoring/{path}?limit=500"),
                    None,
                )
                .await;
                if res.status != 200 {
                    problems.push(format!("{what}: {} {}", res.status, res.text));
                    continue;
                }
                leaked(&what, &res, &mut problems);
                let rows = res.body["data"][key]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                let want = ids(case.a.rows(path), id);
                if ids(&rows, id) != want || res.body["data"]["total"] != want.len() {
                    problems.push(format!(
                        "{what}: expected exactly A's {want:?}, got {}",
                        res.text
                    ));
                }
                let (what, res) = r(
                    Method::GET,
                    format!("/api/v1/monitoring/{path}?{b_filter}"),
                    None,
                )
                .await;
                leaked(&what, &res, &mut problems);
                if res.status != 200 || res.body["data"]["total"] != 0 {
                    problems.push(format!(
                        "{what}: B's bot and session, expected 200 and nothing, got {} {}",
                        res.status, res.text
                    ));
                }
            }
        }
        if section == Section::Counts {
            // Counts: A's own.
            let (what, res) = r(Method::GET, "/api/v1/monitoring/overview".into(), None).await;
            leaked(&what, &res, &mut problems);
            let o = &res.body["data"];
            if res.status != 200
                || o["executions"] != case.a.executions.len()
                || o["total_messages"] != case.a.messages.len()
                || o["llm_calls"] != case.a.llm_calls.len()
            {
                problems.push(format!(
                "{what}: expected A's counts ({} executions, {} messages, {} LLM calls), got {} {}",
                case.a.executions.len(),
                case.a.messages.len(),
                case.a.llm_calls.len(),
                res.status,
                res.text
            ));
            }
            let (what, res) = r(
                Method::GET,
                format!("/api/v1/monitoring/overview?{b_filter}"),
                None,
            )
            .await;
            let o = &res.body["data"];
            if res.status != 200
                || o["executions"] != 0
                || o["total_messages"] != 0
                || o["llm_calls"] != 0
            {
                problems.push(format!(
                    "{what}: B's bot and session, expected zero counts, got {} {}",
                    res.status, res.text
                ));
            }
            let a_tokens: i64 = case
                .a
                .llm_calls
                .iter()
                .filter_map(|c| c["total_tokens"].as_i64())
                .sum();
            let (what, res) = r(
                Method::GET,
                "/api/v1/monitoring/token-statistics".into(),
                None,
            )
            .await;
            leaked(&what, &res, &mut problems);
            let t = &res.body["data"];
            if res.status != 200
                || t["calls"] != case.a.llm_calls.len()
                || t["totals"]["total_tokens"] != a_tokens
            {
                problems.push(format!(
                    "{what}: expected A's {} calls and {a_tokens} tokens, got {} {}",
                    case.a.llm_calls.len(),
                    res.status,
                    res.text
                ));
            }
            let (what, res) = r(
                Method::GET,
                format!("/api/v1/monitoring/token-statistics?{b_filter}"),
                None,
            )
            .await;
            if res.status != 200 || res.body["data"]["calls"] != 0 {
                problems.push(format!(
                    "{what}: B's bot and session, expected no calls, got {} {}",
                    res.status, res.text
                ));
            }
            let (what, res) = r(
                Method::GET,
                "/api/v1/monitoring/data?limit=500".into(),
                None,
            )
            .await;
            leaked(&what, &res, &mut problems);
            let d = &res.body["data"];
            if res.status != 200
                || d["executions"]["total"] != case.a.executions.len()
                || d["totalCount"]["messages"] != case.a.messages.len()
                || d["totalCount"]["llmCalls"] != case.a.llm_calls.len()
                || d["totalCount"]["errors"] != case.a.errors.len()
                || d["totalCount"]["sessions"] != case.a.sessions.len()
            {
                problems.push(format!(
                    "{what}: expected A's totals, got {} {}",
                    res.status, res.text
                ));
            }
            let (what, res) = r(
                Method::GET,
                format!("/api/v1/monitoring/data?{b_filter}"),
                None,
            )
            .await;
            leaked(&what, &res, &mut problems);
            if res.status != 200 || res.body["data"]["executions"]["total"] != 0 {
                problems.push(format!(
                    "{what}: B's bot and session, expected nothing, got {} {}",
                    res.status, res.text
                ));
            }
            let (what, res) = r(Method::GET, "/api/v1/monitoring/in-flight".into(), None).await;
            leaked(&what, &res, &mut problems);
            let a_executions = ids(&case.a.executions, "id");
            let items = res.body["data"]["items"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            if res.status != 200 || !ids(&items, "id").is_subset(&a_executions) {
                problems.push(format!(
                    "{what}: expected only A's executions, got {} {}",
                    res.status, res.text
                ));
            }
        }
        if section == Section::RecordKinds {
            // Records of every kind: A's own; by B's bot and sessions, none.
            for (kind, list) in RECORD_KINDS {
                let path = format!("/api/v1/monitoring/records/{kind}/query");
                let want = list.map_or(0, |l| case.a.rows(l).len());
                let (what, res) =
                    r(Method::POST, path.clone(), Some(json!({ "limit": 1000 }))).await;
                leaked(&what, &res, &mut problems);
                if res.status != 200 || res.body["data"]["total"] != want {
                    problems.push(format!(
                        "{what}: expected A's {want} records, got {} {}",
                        res.status, res.text
                    ));
                }
                let (what, res) = r(
                    Method::POST,
                    path,
                    Some(json!({ "limit": 1000, "filters": b_filter_body })),
                )
                .await;
                leaked(&what, &res, &mut problems);
                if res.status != 200 || res.body["data"]["total"] != 0 {
                    problems.push(format!(
                        "{what}: B's bot and sessions, expected nothing, got {} {}",
                        res.status, res.text
                    ));
                }
            }
        }
        if section == Section::ById {
            // B's executions, messages, events and sessions by id: 404.
            for path in &b_by_id {
                let (what, res) = r(Method::GET, path.clone(), None).await;
                if res.status != 404 || res.body["code"] != "resource_not_found" {
                    problems.push(format!(
                        "{what}: B's record, expected 404 resource_not_found, got {} {}",
                        res.status, res.text
                    ));
                }
            }
        }
        if section == Section::Export {
            // The CSV export (`data.export`): A's rows only; without the permission, 403.
            for (kind, list) in EXPORT_TYPES {
                for (query, want) in [
                    (format!("type={kind}"), case.a.rows(list).len()),
                    (format!("type={kind}&{b_filter}"), 0),
                ] {
                    let (what, res) = r(
                        Method::GET,
                        format!("/api/v1/monitoring/export?{query}"),
                        None,
                    )
                    .await;
                    if !reader.exports {
                        if res.status != 403 || res.body["code"] != "permission_denied" {
                            problems.push(format!(
                            "{what}: lacks data.export, expected 403 permission_denied, got {} {}",
                            res.status, res.text
                        ));
                        }
                        continue;
                    }
                    leaked(&what, &res, &mut problems);
                    let is_csv = res
                        .header("content-type")
                        .is_some_and(|c| c.starts_with("text/csv"));
                    if res.status != 200 || !is_csv || res.text.lines().count() != 1 + want {
                        problems.push(format!(
                            "{what}: expected a CSV header and A's {want} rows, got {} {}",
                            res.status, res.text
                        ));
                    }
                }
            }
        }
    }
    problems
}

/// A's admin selecting B is not a member there: every monitoring read is a 404.
async fn selecting_b_problems(app: &TestApp, case: &MonitoringCase<'_>) -> Vec<String> {
    let mut problems = Vec::new();
    let b_by_id = b_by_id(case);
    let mut selecting_b: Vec<(Method, String, Option<Value>)> = RECORD_LISTS
        .iter()
        .map(|(path, _, _)| (Method::GET, format!("/api/v1/monitoring/{path}"), None))
        .collect();
    for path in ["overview", "token-statistics", "data", "in-flight"] {
        selecting_b.push((Method::GET, format!("/api/v1/monitoring/{path}"), None));
    }
    for (kind, _) in RECORD_KINDS {
        selecting_b.push((
            Method::POST,
            format!("/api/v1/monitoring/records/{kind}/query"),
            Some(json!({})),
        ));
    }
    for (kind, _) in EXPORT_TYPES {
        selecting_b.push((
            Method::GET,
            format!("/api/v1/monitoring/export?type={kind}"),
            None,
        ));
    }
    selecting_b.extend(b_by_id.iter().map(|p| (Method::GET, p.clone(), None)));
    for (method, path, body) in selecting_b {
        let res = app
            .call(
                case.admin_a,
                Some(case.ws_b),
                method.clone(),
                &path,
                body.as_ref(),
            )
            .await;
        if res.status != 404 || res.body["code"] != "resource_not_found" {
            problems.push(format!(
                "{} {path} as A's admin selecting B: expected 404 resource_not_found, got {} {}",
                method.as_str(),
                res.status,
                res.text
            ));
        }
    }
    problems
}

/// B's owner exports B's rows: what A never saw is there.
async fn owner_exports_b(app: &TestApp, case: &MonitoringCase<'_>) -> Vec<String> {
    let mut problems = Vec::new();
    let res = app
        .call(
            case.owner,
            Some(case.ws_b),
            Method::GET,
            "/api/v1/monitoring/export?type=messages",
            None,
        )
        .await;
    if res.status != 200
        || !res.text.contains(B_TEXT)
        || res.text.lines().count() != 1 + case.b.messages.len()
    {
        problems.push(format!(
            "B's owner exporting B's messages: expected B's {} rows, got {} {}",
            case.b.messages.len(),
            res.status,
            res.text
        ));
    }
    problems
}

/// Fails with every problem found, after checking that the reads changed nothing of B and
/// started nothing (see [`World::check_b_untouched`]).
async fn assert_no_problems(w: &World, mut problems: Vec<String>) {
    w.check_b_untouched(&mut problems).await;
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[tokio::test]
async fn a_sees_exactly_its_own_monitoring_lists_and_none_of_bs_rows() {
    let w = World::build().await;
    let problems = reader_problems(&w.app, &MonitoringCase::of(&w), Section::Lists).await;
    assert_no_problems(&w, problems).await;
}

#[tokio::test]
async fn a_sees_its_own_monitoring_counts_and_none_of_bs() {
    let w = World::build().await;
    let problems = reader_problems(&w.app, &MonitoringCase::of(&w), Section::Counts).await;
    assert_no_problems(&w, problems).await;
}

#[tokio::test]
async fn a_queries_only_its_own_monitoring_records_of_every_kind() {
    let w = World::build().await;
    let problems = reader_problems(&w.app, &MonitoringCase::of(&w), Section::RecordKinds).await;
    assert_no_problems(&w, problems).await;
}

#[tokio::test]
async fn bs_monitoring_records_by_id_are_found_by_b_and_not_found_for_a() {
    let w = World::build().await;
    let case = MonitoringCase::of(&w);
    let mut problems = owner_reaches_b_by_id(&w.app, &case).await;
    problems.extend(reader_problems(&w.app, &case, Section::ById).await);
    assert_no_problems(&w, problems).await;
}

#[tokio::test]
async fn a_exports_only_its_own_rows_with_data_export_and_b_exports_its_own() {
    let w = World::build().await;
    let case = MonitoringCase::of(&w);
    let mut problems = reader_problems(&w.app, &case, Section::Export).await;
    problems.extend(owner_exports_b(&w.app, &case).await);
    assert_no_problems(&w, problems).await;
}

#[tokio::test]
async fn a_non_member_selecting_b_gets_404_on_every_monitoring_read() {
    let w = World::build().await;
    let problems = selecting_b_problems(&w.app, &MonitoringCase::of(&w)).await;
    assert_no_problems(&w, problems).await;
}
