//! Whether PostgreSQL is known to be down, so requests that need it are refused at once (503)
//! instead of each waiting the pool's acquire timeout (3 s: the pool retries a refused
//! connection until then).
//!
//! Nothing here guesses from load: a request failing with a connection error (or a failed
//! readiness check) only makes the database *suspect*; a probe then opens a fresh connection
//! of its own, outside the pool, so an exhausted pool under load is never taken for a down
//! database. Only a definite answer — the connection refused or reset, or PostgreSQL saying
//! it is shutting down or starting up — marks it down; a probe that merely times out decides
//! nothing. While it is down the probe repeats every [`PROBE_INTERVAL`], and the first
//! successful one lets requests through again. SQLite is never down.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::config::DatabaseKind;
use crate::state::AppState;

/// How often a down database is probed again: at most this long after it is back, requests
/// are still refused.
pub const PROBE_INTERVAL: Duration = Duration::from_millis(250);
/// A probe that takes longer decides nothing (the database may only be slow).
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// Marks an error response caused by an unreachable database (see `ApiError`'s response).
#[derive(Debug, Clone, Copy)]
pub struct DbUnreachable;

/// The process's view of its database (in `AppState::parts`).
#[derive(Default)]
pub struct DbHealth {
    down: AtomicBool,
    suspected: Notify,
}

impl DbHealth {
    /// Whether the last probe found the database down.
    pub fn is_down(&self) -> bool {
        self.down.load(Ordering::Acquire)
    }

    /// A database operation failed as if the database were unreachable: probe it.
    pub fn suspect(&self) {
        self.suspected.notify_one();
    }

    fn set_down(&self, down: bool) -> bool {
        self.down.swap(down, Ordering::AcqRel)
    }
}

enum Probe {
    Reachable,
    Down(String),
    /// Timed out, or failed in a way that says nothing about reachability.
    Unknown,
}

async fn probe(url: &str) -> Probe {
    use sqlx::Connection;
    match tokio::time::timeout(PROBE_TIMEOUT, sqlx::PgConnection::connect(url)).await {
        Err(_) => Probe::Unknown,
        Ok(Ok(conn)) => {
            let _ = conn.close().await;
            Probe::Reachable
        }
        Ok(Err(e)) => {
            let definite = match &e {
                sqlx::Error::Io(_) => true,
                sqlx::Error::Database(db) => db.code().is_some_and(|c| {
                    c.starts_with("08") || matches!(c.as_ref(), "57P01" | "57P02" | "57P03")
                }),
                _ => false,
            };
            if definite {
                Probe::Down(e.to_string())
            } else {
                Probe::Unknown
            }
        }
    }
}

/// The worker, until `stop`: probes the database whenever it is suspected, and keeps probing
/// while it is down. Does nothing on SQLite.
pub async fn watch(state: AppState, stop: CancellationToken) {
    if state.db_kind != DatabaseKind::Postgres {
        return;
    }
    let health = state.parts.get::<DbHealth>();
    let url = state.settings.database_url();
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = health.suspected.notified() => {}
        }
        loop {
            match probe(&url).await {
                Probe::Reachable => {
                    if health.set_down(false) {
                        tracing::info!("the database is reachable again; serving requests");
                    }
                    break;
                }
                Probe::Down(why) => {
                    if !health.set_down(true) {
                        tracing::warn!(error = %why, "the database is down; refusing requests that need it until it is back");
                    }
                }
                Probe::Unknown if !health.is_down() => break,
                Probe::Unknown => {}
            }
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tokio::time::sleep(PROBE_INTERVAL) => {}
            }
        }
    }
}

/// The paths answered 503 at once while the database is down: the API and the bot ingress.
pub fn needs_database(path: &str) -> bool {
    path.starts_with("/api/") || path.starts_with("/bots/")
}
