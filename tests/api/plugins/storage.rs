//! Plugin storage and Workspace storage live in the database: a counter kept by a Tool goes
//! on where it was, through a second replica and in a new one started after it is gone.
//! (Replicas share no sessions without Redis: the other replicas are asked with an API key.)

use serde_json::{json, Value};

use super::{row, weather_rig};
use crate::helpers::fixtures::ToolRig;
use crate::helpers::plugins::{with_runtime, WEATHER};
use crate::helpers::{spawn_app_with, tool_call, TestApp};

/// One turn whose model calls `count_visits`: the counts it answered.
async fn count(app: &TestApp, rig: &ToolRig, session: &str) -> Value {
    let reply = rig.answer(app, session, "count").await;
    let result = reply
        .strip_prefix("results: ")
        .unwrap_or_else(|| panic!("the tool's result in the reply: {reply}"));
    serde_json::from_str(result).unwrap_or_else(|e| panic!("{result}: {e}"))
}

#[tokio::test]
async fn storage_is_shared_by_replicas_and_survives_a_restart() {
    let first = spawn_app_with(with_runtime).await;
    let rig = weather_rig(&first, vec![tool_call("c", "count_visits", json!({}))]).await;
    let c = count(&first, &rig, "alice").await;
    assert_eq!(
        (c["plugin"].clone(), c["workspace"].clone()),
        (json!(1), json!(1)),
        "{c:#}"
    );
    assert_eq!(c["plugin_keys"], json!(["visits"]));
    assert_eq!(c["workspace_keys"], json!(["visits"]));
    let rows = rig.tool_calls(&first, "alice", 1).await;
    assert_eq!(row(&rows, "count_visits")["status"], "success");
    let (_, key) = first.create_key(&rig.owner, None).await;

    // A second replica: its own runtime, the same data.
    let second = first.sibling().await;
    second.plugin_running(&key, None, WEATHER).await;
    let c = count(&second, &rig, "bob").await;
    assert_eq!(
        (c["plugin"].clone(), c["workspace"].clone()),
        (json!(2), json!(2)),
        "{c:#}"
    );

    // The second replica goes away; a new one starts (a restart) and counts on. (The first
    // stays: its temp dir holds the SQLite database.)
    drop(second);
    let third = first.sibling().await;
    third.plugin_running(&key, None, WEATHER).await;
    let c = count(&third, &rig, "carol").await;
    assert_eq!(
        (c["plugin"].clone(), c["workspace"].clone()),
        (json!(3), json!(3)),
        "{c:#}"
    );

    // Uninstalled with its data, reinstalled: its own counter starts over, the Workspace's
    // goes on.
    let res = first
        .call(
            &rig.owner,
            None,
            reqwest::Method::DELETE,
            "/api/v1/plugins/tester/weather?delete_data=true",
            None,
        )
        .await;
    assert_eq!(res.status, 200, "{}", res.text);
    first.install_weather(&rig.owner, None).await;
    first.plugin_running(&rig.owner, None, WEATHER).await;
    let c = count(&first, &rig, "dave").await;
    assert_eq!(
        (c["plugin"].clone(), c["workspace"].clone()),
        (json!(1), json!(4)),
        "{c:#}"
    );
}

/// The same plugin installed in a second Workspace keeps counters of its own: neither its
/// plugin storage nor its Workspace storage sees the first Workspace's.
#[tokio::test]
async fn another_workspace_sees_none_of_the_stored_values() {
    let app = spawn_app_with(|s| {
        with_runtime(s);
        s.workspaces.multi = true;
    })
    .await;
    let calls = || vec![tool_call("c", "count_visits", json!({}))];
    let a = weather_rig(&app, calls()).await;
    let c = count(&app, &a, "alice").await;
    assert_eq!(
        (c["plugin"].clone(), c["workspace"].clone()),
        (json!(1), json!(1)),
        "{c:#}"
    );

    let ws_b = app.create_workspace(&a.owner, "B").await;
    let script = crate::helpers::ToolScript::calls_then_results(calls());
    let b = ToolRig::in_workspace(&app, &a.owner, &ws_b, script).await;
    app.install_weather(&a.owner, Some(&ws_b)).await;
    app.plugin_running(&a.owner, Some(&ws_b), WEATHER).await;
    let c = count(&app, &b, "bob").await;
    assert_eq!(
        (c["plugin"].clone(), c["workspace"].clone()),
        (json!(1), json!(1)),
        "B starts at one: {c:#}"
    );

    let c = count(&app, &a, "carol").await;
    assert_eq!(
        (c["plugin"].clone(), c["workspace"].clone()),
        (json!(2), json!(2)),
        "A goes on: {c:#}"
    );
}
