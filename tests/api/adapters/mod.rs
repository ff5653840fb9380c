//! The messaging-platform adapters end to end: each against a local fake of its platform
//! speaking the real protocol, a full turn through the fake model on the suite's back ends.

mod discord;
mod lark;
mod lifecycle;
mod onebot;
mod slack;
mod takeover;
mod telegram;
mod web_page;

use std::time::Duration;

use langbot::config::Settings;

use crate::helpers::{spawn_app_with, TestApp};

/// A lease short enough for takeover tests.
pub const LEASE: Duration = Duration::from_secs(2);

/// An app whose connection-style bots hold a short lease.
pub async fn app() -> TestApp {
    spawn_app_with(|s: &mut Settings| s.bots.adapter_lease = LEASE).await
}

/// Lets background work that should not happen get its chance to (then assert it did not).
pub async fn settle() {
    tokio::time::sleep(Duration::from_millis(800)).await;
}
