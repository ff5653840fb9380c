//! Bots: adapter config validation, secrets, default routes, route updates, dry-run, route status.

mod config;
mod dry_run;
mod logs;
mod paging;
mod route_status;
mod routes;

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::BOTS;
use crate::helpers::{Response, TestApp};

/// An http_bot config with both secrets.
fn config() -> Value {
    json!({ "inbound_secret": "inbound-s3cret", "callback_url": "http://127.0.0.1:9/cb", "outbound_secret": "outbound-s3cret" })
}

/// `POST /api/v1/platform/bots` as `token`: the raw response.
async fn create_bot(app: &TestApp, token: &str, body: Value) -> Response {
    app.send_as(token, Method::POST, BOTS, &body).await
}

/// The pipelines a bot's routes target, in order.
fn targets(b: &Value) -> Vec<String> {
    b["event_bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["target_uuid"].as_str().unwrap().to_string())
        .collect()
}
