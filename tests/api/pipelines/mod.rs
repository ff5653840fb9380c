//! Pipelines: `/api/v1/pipelines` — the template, validation, section merge, the default
//! pipeline, copy, delete, runs, the debug chat and the extension bindings.

mod config;
mod copy_and_delete;
mod debug_ws;
mod default;
mod delete_default;
mod extensions;
mod langbot_ws;
mod processors;
mod run;
mod runner_ids;

use reqwest::Method;
use serde_json::Value;

use crate::helpers::fixtures::{PIPELINES, UNREACHABLE};
use crate::helpers::{Response, TestApp};

/// `POST /api/v1/pipelines` as `token`: the raw response.
async fn create(app: &TestApp, token: &str, body: Value) -> Response {
    app.send_as(token, Method::POST, PIPELINES, &body).await
}

/// A provider with one LLM model; returns the model uuid.
async fn llm_model(app: &TestApp, token: &str) -> String {
    app.model_with_keys(token, "llm", UNREACHABLE, &["k"], ("p", "m"))
        .await
}
