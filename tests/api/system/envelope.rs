//! What every path shares: JSON errors for unknown paths and methods, request ids.

use reqwest::Method;

use crate::helpers::spawn_app;

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
    // A generated id is a number (a per-thread counter from a random start).
    assert!(plain
        .header("x-request-id")
        .is_some_and(|v| v.parse::<u64>().is_ok()));
}
