//! Record lists, records queries, overview, token statistics, the combined `/data`, and details
//! of messages and sessions.

use reqwest::Method;
use serde_json::json;

use super::rig_traffic;
use super::traffic::{arr, s, traffic, DEBUG_BOT, M};
use crate::helpers::query::enc;
use crate::helpers::spawn_app;

#[tokio::test]
async fn records_overview_tokens_and_data() {
    let app = spawn_app().await;
    let rig = rig_traffic(&app).await;
    let messages = app.get_as(&rig.owner, "/api/v1/monitoring/messages").await;
    assert_eq!(messages.data()["total"], 8, "4 inputs and 4 replies");
    let calls = app.get_as(&rig.owner, "/api/v1/monitoring/llm-calls").await;
    assert_eq!(calls.data()["total"], 4);
    let errors = app.get_as(&rig.owner, "/api/v1/monitoring/errors").await;
    assert_eq!(errors.data()["total"], 1);
    assert_eq!(errors.data()["errors"][0]["session_id"], "person_bob");
    let sessions = app
        .get_as(
            &rig.owner,
            &format!("/api/v1/monitoring/sessions?bot_ids={}", rig.bot),
        )
        .await;
    assert_eq!(sessions.data()["total"], 2);
    let debug_only = app
        .get_as(&rig.owner, "/api/v1/monitoring/messages?mode=debug")
        .await;
    assert_eq!(debug_only.data()["total"], 2);
    let failed_only = app
        .get_as(&rig.owner, "/api/v1/monitoring/llm-calls?statuses=failed")
        .await;
    assert_eq!(
        failed_only.data()["total"],
        1,
        "records follow their execution's status"
    );
    let overview = app.get_as(&rig.owner, "/api/v1/monitoring/overview").await;
    assert_eq!(overview.data()["llm_calls"], 4);
    assert_eq!(overview.data()["executions"], 4);
    let tokens = app
        .get_as(&rig.owner, "/api/v1/monitoring/token-statistics")
        .await;
    assert_eq!(tokens.data()["calls"], 4);
    assert_eq!(tokens.data()["totals"]["input_tokens"], 30);
    let data = app
        .get_as(&rig.owner, "/api/v1/monitoring/data?limit=2")
        .await;
    assert_eq!(data.data()["totalCount"]["messages"], 8);
    assert_eq!(data.data()["messages"].as_array().unwrap().len(), 2);
    let via_mcp_shape = app
        .send_as(
            &rig.owner,
            Method::POST,
            "/api/v1/monitoring/records/messages/query",
            &json!({ "limit": 3, "filters": { "session_ids": ["person_alice"] } }),
        )
        .await;
    assert_eq!(via_mcp_shape.data()["total"], 4);
    assert_eq!(via_mcp_shape.data()["records"].as_array().unwrap().len(), 3);
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
        assert_eq!(
            crate::helpers::stored_chain(&data["inputs"][0]["message_content"])[0]["text"],
            "a2"
        );
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
