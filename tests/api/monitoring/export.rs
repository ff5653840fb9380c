//! `GET /api/v1/monitoring/export`: CSV with a header and one row per filtered record; needs
//! `data.export`.

use reqwest::Method;
use serde_json::Value;

use super::rig_traffic;
use super::traffic::{arr, by_id, traffic, DEBUG_BOT, M};
use crate::helpers::query::{enc, rfc3339};
use crate::helpers::{spawn_app, TestApp};

#[tokio::test]
async fn export_is_csv_and_needs_data_export() {
    let app = spawn_app().await;
    let rig = rig_traffic(&app).await;
    let res = app
        .get_as(
            &rig.owner,
            "/api/v1/monitoring/export?type=messages&session_ids=person_alice",
        )
        .await;
    assert_eq!(res.status, 200);
    assert!(res.header("content-type").unwrap().starts_with("text/csv"));
    let mut lines = res.text.lines();
    assert!(lines.next().unwrap().starts_with("id,timestamp,bot_id"));
    assert_eq!(res.text.lines().count(), 5, "a header and 4 messages");
    assert!(res.text.contains("second question"));
    let llm = app
        .get_as(&rig.owner, "/api/v1/monitoring/export?type=llm_calls")
        .await;
    assert_eq!(llm.text.lines().count(), 5);
    app.get_as(&rig.owner, "/api/v1/monitoring/export?type=nope")
        .await
        .assert_error(400, "invalid_request");
    let ws = app.workspace_of(&rig.owner).await;
    let dev = app
        .add_member(&rig.owner, &ws, "dev@example.com", "developer")
        .await;
    app.get_as(&dev.token, "/api/v1/monitoring/export?type=messages")
        .await
        .assert_error(403, "permission_denied");
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

const MESSAGE_COLUMNS: &str = "id,timestamp,bot_id,bot_name,pipeline_id,pipeline_name,session_id,role,status,mode,user_id,user_name,message_content,execution_id";
const LLM_COLUMNS: &str = "id,timestamp,bot_id,pipeline_id,session_id,model_name,input_tokens,output_tokens,total_tokens,duration,status,mode,error_message,execution_id";
const TOOL_COLUMNS: &str = "id,timestamp,bot_id,pipeline_id,session_id,tool_name,tool_source,source_name,duration,status,mode,arguments,result,error_message,execution_id";
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
        ("type=tool_calls", TOOL_COLUMNS, 0),
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
