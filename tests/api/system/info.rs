//! `GET /api/v1/system/info`.

use crate::helpers::{spawn_app, spawn_app_with};

#[tokio::test]
async fn system_info_answers_in_the_envelope() {
    let app = spawn_app().await;
    let res = app.get("/api/v1/system/info").await;
    let data = res.data();
    assert_eq!(data["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(data["edition"], "community");
    assert_eq!(data["initialized"], false);
    assert_eq!(data["multi_workspace"], false);
}

#[tokio::test]
async fn system_info_reports_multi_workspace_when_enabled() {
    let app = spawn_app_with(|s| s.workspaces.multi = true).await;
    let data = app.get("/api/v1/system/info").await.data().clone();
    assert_eq!(data["multi_workspace"], true);
}
