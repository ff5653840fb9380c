//! Monitoring: `/api/v1/monitoring/*` over records produced by real runtime turns (SPEC §11,
//! reference/monitoring.md) — executions and their detail sections, record lists, details,
//! filters, paging, totals and rollups, the CSV export, the in-flight snapshot and live feed,
//! and resetting a session's context. Bad filter values are in `negative_inputs::monitoring`.

mod executions;
mod export;
mod filters;
mod in_flight;
mod leases;
mod paging;
mod records;
mod reset_context;
mod rollups;
mod sections;
mod traffic;

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::{pipeline_path, text, Rig};
use crate::helpers::{FakeOpenAi, Response, Route, TestApp};

/// Two real turns in one session, one debug run, one failing turn in another session.
async fn rig_traffic(app: &TestApp) -> Rig {
    let rig = Rig::new(app, json!({})).await;
    rig.sync(app, text("alice", "first question"))
        .await
        .data_or_panic();
    rig.sync(app, text("alice", "second question"))
        .await
        .data_or_panic();
    app.send_as(
        &rig.owner,
        Method::POST,
        &format!("/api/v1/pipelines/{}/run", rig.pipeline),
        &json!({ "message": "debug run" }),
    )
    .await
    .data();
    // A failing pipeline for bob.
    let broken = FakeOpenAi::start().await;
    broken.mount_server_error(Route::Chat).await;
    let bad = app
        .llm_model_on(&rig.owner, &broken.base_url(), "broken")
        .await;
    let config =
        json!({ "ai": { "runner_config": { "local-agent": { "model": { "primary": bad } } } } });
    app.send_as(
        &rig.owner,
        Method::PUT,
        &pipeline_path(&rig.pipeline),
        &json!({ "config": config }),
    )
    .await
    .data();
    rig.sync(app, text("bob", "will fail"))
        .await
        .data_or_panic();
    rig
}

trait DataOrPanic {
    fn data_or_panic(&self) -> &Value;
}

impl DataOrPanic for Response {
    fn data_or_panic(&self) -> &Value {
        assert_eq!(self.status, 200, "{}", self.text);
        &self.body["data"]
    }
}
