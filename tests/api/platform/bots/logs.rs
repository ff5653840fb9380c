//! `POST /platform/bots/{bot_uuid}/logs`: LangBot's bot log, read from the bot's recorded
//! messages — windows by position (`from_index` inclusive, `-1` the latest), oldest first.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::{text, Rig};
use crate::helpers::spawn_app;

#[tokio::test]
async fn the_log_pages_through_the_bots_messages_by_position() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let logs = format!("/api/v1/platform/bots/{}/logs", rig.bot);
    let read = |body: Value| {
        let (app, owner, logs) = (&app, rig.owner.clone(), logs.clone());
        async move {
            let res = app.send_as(&owner, Method::POST, &logs, &body).await;
            res.data().clone()
        }
    };
    // Nothing yet.
    assert_eq!(
        read(json!({})).await,
        json!({ "logs": [], "total_count": 0 })
    );
    for (i, msg) in ["one", "two", "three"].iter().enumerate() {
        let res = rig.sync(&app, text(&format!("s{i}"), msg)).await;
        assert_eq!(res.status, 200, "{}", res.text);
    }
    // Three turns: a user line and a reply each.
    let all = read(json!({ "from_index": -1, "max_count": 100 })).await;
    assert_eq!(all["total_count"], 6);
    let lines = all["logs"].as_array().unwrap();
    let seq: Vec<_> = lines
        .iter()
        .map(|l| l["seq_id"].as_u64().unwrap())
        .collect();
    assert_eq!(seq, [0, 1, 2, 3, 4, 5]);
    assert!(
        lines[0]["text"].as_str().unwrap().contains("one"),
        "{}",
        lines[0]
    );
    assert_eq!(lines[0]["message_session_id"], "person_s0");
    assert_eq!(lines[0]["level"], "info");
    assert_eq!(
        lines[0]["images"],
        json!([]),
        "LangBot's UI reads its length"
    );
    assert_eq!(lines[0]["metadata"]["role"], "user");
    assert!(
        lines[5]["text"].as_str().unwrap().contains("echo"),
        "{}",
        lines[5]
    );
    assert!(lines[0]["timestamp"].as_i64().unwrap() > 1_700_000_000);

    // The latest two; then the two ending at position 2; a window past the end is clipped.
    let ids = |v: &Value| -> Vec<u64> {
        v["logs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["seq_id"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(ids(&read(json!({ "max_count": 2 })).await), [4, 5]);
    assert_eq!(
        ids(&read(json!({ "from_index": 2, "max_count": 2 })).await),
        [1, 2]
    );
    assert_eq!(
        ids(&read(json!({ "from_index": 99, "max_count": 1 })).await),
        [5]
    );
    assert_eq!(
        ids(&read(json!({ "from_index": 0, "max_count": 10 })).await),
        [0]
    );

    // Bad windows are 400; another bot's uuid is 404.
    for body in [
        json!({ "max_count": 0 }),
        json!({ "max_count": 201 }),
        json!({ "from_index": -2 }),
        json!({ "from_index": "x" }),
        json!({ "nope": 1 }),
    ] {
        app.send_as(&rig.owner, Method::POST, &logs, &body)
            .await
            .assert_error(400, "invalid_request");
    }
    let missing = format!("/api/v1/platform/bots/{}/logs", uuid::Uuid::new_v4());
    app.send_as(&rig.owner, Method::POST, &missing, &json!({}))
        .await
        .assert_error(404, "resource_not_found");
}
