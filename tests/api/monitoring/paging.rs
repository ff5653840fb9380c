//! Paging walks every list consistently with its totals.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::traffic::{arr, by_id, by_session, traffic, Traffic, M};
use crate::helpers::query::with_query;
use crate::helpers::{spawn_app, TestApp};

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
