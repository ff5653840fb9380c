//! Spawning the app and talking to it.

mod backend;
mod chaos;
mod client;
mod fake_openai;
mod fixtures;
pub mod runtime_rig;

pub use backend::test_store;
pub use chaos::ChaosProxy;
pub use client::{Response, TestApp};
pub use fake_openai::{
    content_chunk, embedding_of, finish_chunk, openai_error, role_chunk, tool_call_chunk,
    usage_chunk, FakeOpenAi, Route,
};
pub use fixtures::{Member, OWNER_EMAIL, PASSWORD};

use langbot::config::Settings;

/// Spawns the app on the configured back ends with default settings.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// Spawns the app after `configure` adjusted its settings.
pub async fn spawn_app_with(configure: impl FnOnce(&mut Settings)) -> TestApp {
    TestApp::spawn(configure).await
}
