//! A bot's runtime state and recent log, kept in the session store so that every replica
//! reports what the one running the bot sees: connecting, running (with the platform's
//! account id), an error (wrong token, unreachable platform) and refused inbound requests.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::session_store::SessionStore;

/// Log entries kept per bot.
pub const LOG_SIZE: usize = 50;
/// Published (with the bot's uuid) when a bot is created, changed or deleted.
pub const CHANGED_CHANNEL: &str = "bots:changed";
const TTL: Duration = Duration::from_secs(30 * 24 * 3600);

/// What the adapter is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AdapterState {
    /// Connecting, or retrying after a failure.
    Connecting,
    /// Connected (or, for webhook-style adapters, ready to receive).
    Running,
    /// The last attempt failed; retrying with back-off.
    Error,
    /// Disabled or stopped.
    Stopped,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AdapterStatus {
    pub state: AdapterState,
    /// The last failure, when `state` is `error`.
    pub error: Option<String>,
    /// The bot's own id on the platform, once known.
    pub bot_account_id: Option<String>,
    /// The bot's user name on the platform, once known (Telegram `@name`).
    pub bot_account_name: Option<String>,
    /// The replica that runs the connection (connection-style adapters).
    pub replica: Option<String>,
    pub updated_at: chrono::DateTime<chrono::Utc>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Info,
    Warning,
    Error,
}

/// One line of a bot's log.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct LogEntry {
    pub timestamp: chrono::DateTime<chrono::Utc>,
    pub level: LogLevel,
    pub text: String,
}

fn status_key(bot: &str) -> String {
    format!("bot-status:{bot}")
}

fn log_key(bot: &str) -> String {
    format!("bot-log:{bot}")
}

pub async fn get(store: &dyn SessionStore, bot: &str) -> Option<AdapterStatus> {
    let raw = store.get(&status_key(bot)).await.ok().flatten()?;
    serde_json::from_slice(&raw).ok()
}

/// Records the state; the account id and name are kept unless given anew.
pub async fn set(
    store: &dyn SessionStore,
    bot: &str,
    state: AdapterState,
    error: Option<String>,
    replica: Option<&str>,
) {
    let previous = get(store, bot).await;
    let status = AdapterStatus {
        state,
        error,
        bot_account_id: previous.as_ref().and_then(|p| p.bot_account_id.clone()),
        bot_account_name: previous.as_ref().and_then(|p| p.bot_account_name.clone()),
        replica: replica.map(str::to_string),
        updated_at: chrono::Utc::now(),
    };
    write(store, bot, &status).await;
}

/// Records the platform account the bot runs as.
pub async fn set_account(store: &dyn SessionStore, bot: &str, id: &str, name: Option<&str>) {
    let mut status = get(store, bot).await.unwrap_or(AdapterStatus {
        state: AdapterState::Running,
        error: None,
        bot_account_id: None,
        bot_account_name: None,
        replica: None,
        updated_at: chrono::Utc::now(),
    });
    status.bot_account_id = Some(id.to_string());
    if name.is_some() {
        status.bot_account_name = name.map(str::to_string);
    }
    status.updated_at = chrono::Utc::now();
    write(store, bot, &status).await;
}

async fn write(store: &dyn SessionStore, bot: &str, status: &AdapterStatus) {
    let bytes = serde_json::to_vec(status).unwrap_or_default();
    if let Err(e) = store.set(&status_key(bot), &bytes, Some(TTL)).await {
        tracing::warn!(bot, error = %e, "could not record a bot's state");
    }
}

/// Appends to the bot's log (the last [`LOG_SIZE`] entries are kept) and to the process log.
pub async fn log(store: &dyn SessionStore, bot: &str, level: LogLevel, text: impl Into<String>) {
    let text: String = text.into();
    match level {
        LogLevel::Info => tracing::info!(bot, "{text}"),
        LogLevel::Warning => tracing::warn!(bot, "{text}"),
        LogLevel::Error => tracing::error!(bot, "{text}"),
    }
    let mut entries = logs(store, bot).await;
    entries.push(LogEntry {
        timestamp: chrono::Utc::now(),
        level,
        text: text.chars().take(2000).collect(),
    });
    let excess = entries.len().saturating_sub(LOG_SIZE);
    entries.drain(..excess);
    let bytes = serde_json::to_vec(&entries).unwrap_or_default();
    if let Err(e) = store.set(&log_key(bot), &bytes, Some(TTL)).await {
        tracing::warn!(bot, error = %e, "could not append to a bot's log");
    }
}

/// The bot's log, oldest first.
pub async fn logs(store: &dyn SessionStore, bot: &str) -> Vec<LogEntry> {
    let raw = store.get(&log_key(bot)).await.ok().flatten();
    raw.and_then(|r| serde_json::from_slice(&r).ok())
        .unwrap_or_default()
}

/// Forgets a deleted bot's state and log.
pub async fn clear(store: &dyn SessionStore, bot: &str) {
    let _ = store.delete(&status_key(bot)).await;
    let _ = store.delete(&log_key(bot)).await;
}

/// Tells every replica's adapter supervisor that `bot` changed.
pub async fn announce_change(store: &dyn SessionStore, bot: &str) {
    if let Err(e) = store.publish(CHANGED_CHANNEL, bot.as_bytes()).await {
        tracing::debug!(bot, error = %e, "could not announce a bot change; replicas notice within seconds");
    }
}
