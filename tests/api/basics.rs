//! Server basics: health, the envelope, JSON errors for unknown paths and methods, request ids.

use crate::helpers::spawn_app;
use reqwest::Method;

#[tokio::test]
async fn healthz_is_ok() {
    let app = spawn_app().await;
    let res = app.get("/healthz").await;
    assert_eq!(res.status, 200);
    assert_eq!(res.body["status"], "ok");
}

#[tokio::test]
async fn readyz_is_ok_when_storage_is_reachable() {
    let app = spawn_app().await;
    let res = app.get("/readyz").await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(res.body["checks"]["database"], "ok");
    assert_eq!(res.body["checks"]["session_store"], "ok");
}

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
    let app = crate::helpers::spawn_app_with(|s| s.workspaces.multi = true).await;
    let data = app.get("/api/v1/system/info").await.data().clone();
    assert_eq!(data["multi_workspace"], true);
}

#[tokio::test]
async fn unknown_api_path_is_a_json_404_with_the_request_id() {
    let app = spawn_app().await;
    let res = app.get("/api/v1/nope").await;
    res.assert_error(404, "resource_not_found");
    assert_eq!(
        Some(res.body["request_id"].as_str().unwrap()),
        res.header("x-request-id")
    );
    let res = app
        .request(Method::DELETE, "/api/v2/anything/else")
        .send()
        .await;
    res.assert_error(404, "resource_not_found");
}

#[tokio::test]
async fn wrong_method_on_a_known_path_is_a_json_405() {
    let app = spawn_app().await;
    let res = app
        .request(Method::POST, "/api/v1/system/info")
        .send()
        .await;
    res.assert_error(405, "method_not_allowed");
}

#[tokio::test]
async fn a_valid_request_id_is_echoed_in_header_and_error_body() {
    let app = spawn_app().await;
    let res = app
        .request(Method::GET, "/api/v1/nope")
        .header("x-request-id", "trace-abc.123")
        .send()
        .await;
    assert_eq!(res.header("x-request-id"), Some("trace-abc.123"));
    assert_eq!(res.body["request_id"], "trace-abc.123");
    let ok = app
        .request(Method::GET, "/healthz")
        .header("x-request-id", "abc")
        .send()
        .await;
    assert_eq!(ok.header("x-request-id"), Some("abc"));
}

#[tokio::test]
async fn an_unacceptable_request_id_is_replaced() {
    let app = spawn_app().await;
    let long = "x".repeat(129);
    let res = app
        .request(Method::GET, "/healthz")
        .header("x-request-id", &long)
        .send()
        .await;
    let id = res.header("x-request-id").unwrap();
    assert_ne!(id, long);
    assert!(!id.is_empty() && id.len() <= 128);
    let res = app
        .request(Method::GET, "/healthz")
        .header("x-request-id", "has space")
        .send()
        .await;
    assert_ne!(res.header("x-request-id"), Some("has space"));
    let plain = app.get("/healthz").await;
    assert!(plain.header("x-request-id").is_some_and(|v| v.len() == 32));
}

#[tokio::test]
async fn the_docs_ui_and_its_assets_are_served_locally() {
    let app = spawn_app().await;
    let res = app.get("/api/docs/").await;
    assert_eq!(res.status, 200);
    assert!(res.text.to_lowercase().contains("swagger"), "{}", res.text);
    assert!(
        !res.text.contains("cdn"),
        "the docs page must not load from a CDN"
    );
    let css = app.get("/api/docs/swagger-ui.css").await;
    assert_eq!(css.status, 200);
    // The UI loads the document the server serves, which is the committed one.
    let init = app.get("/api/docs/swagger-initializer.js").await;
    assert_eq!(init.status, 200);
    assert!(init.text.contains("/api/v1/openapi.json"), "{}", init.text);
    let doc = app.get("/api/v1/openapi.json").await;
    assert_eq!(doc.status, 200);
    assert_eq!(doc.header("content-type"), Some("application/json"));
    let committed: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../openapi/openapi.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&doc.text).unwrap(),
        committed
    );
    let redirect = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(format!("{}/api/docs", app.address))
        .send()
        .await
        .unwrap();
    assert!(redirect.status().is_redirection());
}

#[tokio::test]
async fn graceful_stop_lets_the_server_finish() {
    let app = spawn_app().await;
    assert_eq!(app.get("/healthz").await.status, 200);
    app.stop().await;
    let after = reqwest::get(format!("{}/healthz", app.address)).await;
    assert!(after.is_err(), "the server still answers after stop");
}
