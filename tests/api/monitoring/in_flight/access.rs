//! The feed needs credentials and `resource.view`, and shows only the viewer's Workspace.

use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use super::{assert_capped, open, refused, running_in, wait_running, Next, SLOW, SNAPSHOT};
use crate::helpers::fixtures::{text, Rig};
use crate::helpers::{spawn_app_with, Cred};

#[tokio::test]
async fn the_feed_needs_credentials_and_resource_view() {
    let app = spawn_app_with(|s| s.monitoring.viewers_per_workspace = 2).await;
    let rig = Rig::with_echo(&app, json!({}), SLOW).await;
    let ws = app.workspace_of(&rig.owner).await;

    // Unauthenticated.
    for cred in [
        &Cred::Anonymous,
        &Cred::bearer("not-a-session-token"),
        &Cred::api_key("lbk_not_a_key"),
    ] {
        refused(&app, cred, None)
            .await
            .assert_error(401, "invalid_authentication");
    }
    app.get(SNAPSHOT)
        .await
        .assert_error(401, "invalid_authentication");

    // Authenticated without `resource.view`.
    let (_, blind) = app.create_key(&rig.owner, Some(&["workspace.view"])).await;
    let denied = refused(&app, &Cred::api_key(&blind), None).await;
    denied.assert_error(403, "permission_denied");
    assert_eq!(denied.body["details"]["permission"], "resource.view");
    let denied = app
        .request(Method::GET, SNAPSHOT)
        .header("x-api-key", &blind)
        .send()
        .await;
    denied.assert_error(403, "permission_denied");
    assert_eq!(denied.body["details"]["permission"], "resource.view");
    assert_eq!(app.inflight().viewers(), 0, "refusals are not counted");

    // `resource.view` is enough: a scoped key and the lowest role.
    let (_, seeing) = app
        .create_key(&rig.owner, Some(&["workspace.view", "resource.view"]))
        .await;
    let viewer = app
        .add_member(&rig.owner, &ws, "viewer@example.com", "viewer")
        .await;
    let mut by_key = open(&app, &Cred::api_key(&seeing), None).await;
    by_key.first_snapshot().await;
    let mut by_viewer = open(&app, &Cred::bearer(&viewer.token), None).await;
    by_viewer.first_snapshot().await;
    // Both slots are taken: none was lost to the refusals above.
    assert_capped(&refused(&app, &Cred::bearer(&rig.owner), None).await);

    // The snapshot shows the running execution with its latest stage.
    let res = rig.send(&app, text("visible", "in flight")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    let snap = wait_running(&app, &viewer.token, "person_visible").await;
    assert_eq!(snap["active_total"], 1, "{snap}");
    assert_eq!(snap["truncated"], false);
    let item = running_in(&snap, "person_visible").unwrap();
    assert_eq!(item["progress_event"], "ai");
    assert_eq!(item["status_group"], "running");
    assert!(item["finished_at_ms"].is_null(), "{item}");
    assert_eq!(item["bot_id"], rig.bot.as_str());
    let by_api_key = app
        .request(Method::GET, SNAPSHOT)
        .header("x-api-key", &seeing)
        .send()
        .await;
    assert!(running_in(by_api_key.data(), "person_visible").is_some());
    // And the viewers' feeds show it too.
    for feed in [&mut by_key, &mut by_viewer] {
        feed.snapshot_where(Duration::from_secs(5), "the turn runs", |s| {
            running_in(s, "person_visible").is_some()
        })
        .await;
    }
    rig.callbacks(1).await;
}

#[tokio::test]
async fn a_viewer_sees_only_its_own_workspace() {
    let app = spawn_app_with(|s| s.workspaces.multi = true).await;
    let rig = Rig::with_echo(&app, json!({}), SLOW).await;
    let ws_a = app.workspace_of(&rig.owner).await;
    let ws_b = app.create_workspace(&rig.owner, "Workspace B").await;
    let admin_a = app
        .add_member(&rig.owner, &ws_a, "admin-a@example.com", "admin")
        .await;
    let (_, key_a) = app.create_key(&rig.owner, None).await;

    let mut in_a = open(&app, &Cred::bearer(&rig.owner), Some(&ws_a)).await;
    in_a.first_snapshot().await;
    let mut in_b = open(&app, &Cred::bearer(&rig.owner), Some(&ws_b)).await;
    in_b.first_snapshot().await;
    let res = rig.send(&app, text("secret", "only for A")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    in_a.snapshot_where(Duration::from_secs(5), "A's turn runs", |s| {
        running_in(s, "person_secret").is_some()
    })
    .await;
    // B's viewer hears nothing of it: no snapshot, only (after 10 s) heartbeats.
    match in_b.next(Duration::from_secs(1)).await {
        Next::Silent => {}
        Next::Frame(f) => assert_eq!(f["kind"], "heartbeat", "B's viewer got {f}"),
        Next::Ended => panic!("B's stream ended"),
    }
    // A new viewer of B starts with B's (empty) snapshot.
    let mut late_b = open(&app, &Cred::bearer(&rig.owner), Some(&ws_b)).await;
    let b = late_b.first_snapshot().await;
    assert_eq!(b["items"], json!([]), "{b}");
    assert_eq!(b["active_total"], 0, "{b}");
    let snap_b = app
        .request(Method::GET, SNAPSHOT)
        .bearer(&rig.owner)
        .header("x-workspace-id", &ws_b)
        .send()
        .await;
    assert_eq!(snap_b.data()["items"], json!([]));

    // A member of A only cannot select B; an unknown Workspace is missing too.
    refused(&app, &Cred::bearer(&admin_a.token), Some(&ws_b))
        .await
        .assert_error(404, "resource_not_found");
    refused(
        &app,
        &Cred::bearer(&rig.owner),
        Some(&uuid::Uuid::new_v4().to_string()),
    )
    .await
    .assert_error(404, "resource_not_found");
    // A key belongs to its Workspace: selecting B still shows A, as the operation does.
    let by_op = app
        .request(Method::GET, SNAPSHOT)
        .header("x-api-key", &key_a)
        .header("x-workspace-id", &ws_b)
        .send()
        .await;
    assert!(running_in(by_op.data(), "person_secret").is_some());
    let mut by_key = open(&app, &Cred::api_key(&key_a), Some(&ws_b)).await;
    let s = by_key.first_snapshot().await;
    assert!(
        running_in(&s, "person_secret").is_some(),
        "A's key streams A's feed: {s}"
    );
    rig.callbacks(1).await;
}
