//! `GET /monitoring/executions/{source}/{execution_id}`: every section pages on its own, and the
//! `auto` source resolves messages, replies and events.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::traffic::{arr, s, traffic, Traffic, M};
use crate::helpers::query::enc;
use crate::helpers::{spawn_app, TestApp};

const SECTIONS: [&str; 9] = [
    "inputs",
    "outputs",
    "deliveries",
    "events",
    "llm_calls",
    "tool_calls",
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
    let expected: [(&str, [usize; 9]); 4] = [
        // inputs outputs deliveries events llm_calls tool_calls errors related conversation
        (&a2, [1, 1, 1, 1, 1, 0, 0, 2, 6]),
        (&bob, [1, 1, 1, 1, 1, 0, 1, 0, 2]),
        (&carol, [1, 1, 1, 1, 1, 0, 0, 0, 2]),
        (&debug, [1, 1, 1, 0, 1, 0, 0, 0, 2]),
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
        .map(|m| s(&crate::helpers::stored_chain(&m["message_content"])[0]["text"]))
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
