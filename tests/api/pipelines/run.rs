//! `POST /api/v1/pipelines/{pipeline_uuid}/run` (`run_pipeline`), over HTTP and MCP.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::Rig;
use crate::helpers::mcp::{mcp_call, mcp_err, mcp_ok};
use crate::helpers::spawn_app;

#[tokio::test]
async fn run_pipeline_answers_in_debug_mode_and_records_it() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let res = app
        .send_as(
            &rig.owner,
            Method::POST,
            &format!("/api/v1/pipelines/{}/run", rig.pipeline),
            &json!({ "message": "ping" }),
        )
        .await;
    let data = res.data();
    assert_eq!(data["status"], "completed");
    assert_eq!(data["reply"], "echo(1): ping");
    use sea_orm::EntityTrait;
    let executions = langbot::entities::execution::Entity::find()
        .all(app.db())
        .await
        .unwrap();
    assert_eq!(executions.len(), 1);
    assert_eq!(executions[0].mode.as_str(), "debug");
    assert_eq!(executions[0].status.as_str(), "completed");
    assert_eq!(executions[0].id, data["query_id"].as_str().unwrap());
}

#[tokio::test]
async fn run_pipeline_over_mcp_works_like_http() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let (_, key) = app.create_key(&rig.owner, None).await;
    let http = app
        .send_as(
            &rig.owner,
            Method::POST,
            &format!("/api/v1/pipelines/{}/run", rig.pipeline),
            &json!({ "message": "ping" }),
        )
        .await
        .data()
        .clone();
    let res = mcp_call(
        &app,
        &key,
        "run_pipeline",
        json!({ "pipeline_uuid": rig.pipeline, "message": "ping" }),
    )
    .await;
    let mcp = mcp_ok(&res, "run_pipeline");
    for out in [&http, &mcp] {
        assert_eq!(out["status"], "completed", "{out}");
        assert_eq!(out["reply"], "echo(1): ping", "each run is a fresh session");
        assert_eq!(out["replies"], json!(["echo(1): ping"]));
        assert_eq!(out["pipeline_uuid"], rig.pipeline.as_str());
    }
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&http), keys(&mcp), "the same output shape");
    assert_ne!(http["query_id"], mcp["query_id"]);
    assert_ne!(http["session_id"], mcp["session_id"]);

    use langbot::entities::execution;
    use sea_orm::EntityTrait;
    let executions = execution::Entity::find().all(app.db()).await.unwrap();
    assert_eq!(executions.len(), 2);
    assert!(executions
        .iter()
        .all(|e| e.mode.as_str() == "debug" && e.status.as_str() == "completed"));

    let unknown = uuid::Uuid::new_v4().to_string();
    let res = mcp_call(
        &app,
        &key,
        "run_pipeline",
        json!({ "pipeline_uuid": unknown, "message": "ping" }),
    )
    .await;
    assert_eq!(
        mcp_err(&res, "unknown pipeline")["code"],
        "resource_not_found"
    );
    let res = mcp_call(
        &app,
        &key,
        "run_pipeline",
        json!({ "pipeline_uuid": rig.pipeline, "message": "" }),
    )
    .await;
    assert_eq!(mcp_err(&res, "empty message")["code"], "invalid_request");
    app.send_as(
        &rig.owner,
        Method::POST,
        &format!("/api/v1/pipelines/{}/run", rig.pipeline),
        &json!({ "message": "" }),
    )
    .await
    .assert_error(400, "invalid_request");

    let (_, viewer) = app
        .create_key(&rig.owner, Some(&["resource.view", "workspace.view"]))
        .await;
    let res = mcp_call(
        &app,
        &viewer,
        "run_pipeline",
        json!({ "pipeline_uuid": rig.pipeline, "message": "ping" }),
    )
    .await;
    assert_eq!(res.status, 403, "{}", res.text);
    assert_eq!(res.body["error"]["data"]["permission"], "runtime.operate");
}
