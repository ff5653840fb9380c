//! Viewer caps per Workspace and in total (429 `rate_limited` with `Retry-After`), and a freed
//! slot.

use std::time::Duration;

use serde_json::json;

use super::{assert_capped, open, open_when_free, refused, SNAPSHOT};
use crate::helpers::{spawn_app_with, Cred};

#[tokio::test]
async fn viewers_per_workspace_are_capped_and_a_dropped_viewer_frees_its_slot() {
    let app = spawn_app_with(|s| {
        s.workspaces.multi = true;
        s.monitoring.viewers_per_workspace = 2;
        s.monitoring.stream_heartbeat = Duration::from_millis(500);
    })
    .await;
    let owner = app.init_owner().await;
    let ws_a = app.workspace_of(&owner).await;
    let ws_b = app.create_workspace(&owner, "Workspace B").await;
    let me = &Cred::bearer(&owner);

    let mut one = open(&app, me, Some(&ws_a)).await;
    one.first_snapshot().await;
    let mut two = open(&app, me, None).await;
    two.first_snapshot().await;
    for _ in 0..3 {
        assert_capped(&refused(&app, me, Some(&ws_a)).await);
    }
    assert_capped(&refused(&app, me, None).await);
    assert_eq!(app.inflight().viewers(), 2, "refusals are not counted");

    // Another Workspace has its own slots.
    let mut other = open(&app, me, Some(&ws_b)).await;
    other.first_snapshot().await;
    let mut other2 = open(&app, me, Some(&ws_b)).await;
    other2.first_snapshot().await;
    assert_capped(&refused(&app, me, Some(&ws_b)).await);
    // The snapshot endpoint is not a viewer.
    app.get_as(&owner, SNAPSHOT).await.data();

    // The feeds still flow.
    assert_eq!(
        two.frame(Duration::from_secs(3)).await,
        json!({ "kind": "heartbeat" })
    );

    // A viewer leaves: its slot frees once the server notices (at its next write).
    drop(one);
    let mut three = open_when_free(&app, me, Some(&ws_a), Duration::from_secs(10)).await;
    three.first_snapshot().await;
    assert_capped(&refused(&app, me, Some(&ws_a)).await);
    assert_eq!(app.inflight().viewers(), 4);
    drop((two, three, other, other2));
}

#[tokio::test]
async fn viewers_in_total_are_capped_across_workspaces() {
    let app = spawn_app_with(|s| {
        s.workspaces.multi = true;
        s.monitoring.viewers_total = 2;
        s.monitoring.stream_heartbeat = Duration::from_millis(500);
    })
    .await;
    let owner = app.init_owner().await;
    let ws_a = app.workspace_of(&owner).await;
    let ws_b = app.create_workspace(&owner, "Workspace B").await;
    let ws_c = app.create_workspace(&owner, "Workspace C").await;
    let me = &Cred::bearer(&owner);

    let mut a = open(&app, me, Some(&ws_a)).await;
    a.first_snapshot().await;
    let mut b = open(&app, me, Some(&ws_b)).await;
    b.first_snapshot().await;
    for ws in [&ws_a, &ws_b, &ws_c] {
        assert_capped(&refused(&app, me, Some(ws)).await);
    }
    assert_eq!(app.inflight().viewers(), 2);

    drop(b);
    let mut c = open_when_free(&app, me, Some(&ws_c), Duration::from_secs(10)).await;
    c.first_snapshot().await;
    assert_capped(&refused(&app, me, Some(&ws_b)).await);
    assert_eq!(app.inflight().viewers(), 2);
    drop((a, c));
}
