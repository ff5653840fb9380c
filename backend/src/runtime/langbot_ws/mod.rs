//! LangBot's dashboard debug chat protocol (`/api/v1/pipelines/{pipeline_uuid}/ws/…`), so
//! LangBot 4.11.2's own web UI can chat with a pipeline here. Our own debug chat
//! (`runtime::debug_ws`) stays as it is; both run the same debug turn (`runtime::turn`).
//!
//! State lives in the session store, so any replica serves any request: the history
//! (`history`), the live connections (`hub`), and the frames, which go out through the
//! store's publish/subscribe to every connection of the pipeline on any replica.

mod chain;
pub mod connect;
pub mod history;
pub mod hub;
pub mod ops;
mod reply;

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::runtime::message::SessionType;
use crate::session_store::SessionStore;

/// One pipeline of one Workspace: what the chat's state is keyed by.
#[derive(Debug, Clone)]
pub struct Scope {
    pub workspace: String,
    pub pipeline: String,
}

/// `person` or `group`, else LangBot's 400 message.
pub fn session_type(raw: &str) -> ApiResult<SessionType> {
    match raw {
        "person" => Ok(SessionType::Person),
        "group" => Ok(SessionType::Group),
        _ => Err(ApiError::invalid("session_type must be person or group")
            .field("session_type", "must be person or group")),
    }
}

/// Now, RFC 3339.
fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

const LOCK_TTL: Duration = Duration::from_secs(5);
const LOCK_WAIT: Duration = Duration::from_secs(5);

async fn load<S: DeserializeOwned + Default>(store: &dyn SessionStore, key: &str) -> ApiResult<S> {
    Ok(store
        .get(key)
        .await?
        .and_then(|raw| serde_json::from_slice(&raw).ok())
        .unwrap_or_default())
}

/// Reads, changes and writes (with `ttl`) the JSON value at `key` while holding its lock:
/// two replicas may change the same value at once.
async fn update<S, T>(
    store: &dyn SessionStore,
    key: &str,
    ttl: Duration,
    change: impl FnOnce(&mut S) -> T,
) -> ApiResult<T>
where
    S: Serialize + DeserializeOwned + Default,
{
    let lock_key = format!("{key}:lock");
    let Some(token) =
        crate::session_store::lock_within(store, &lock_key, LOCK_TTL, LOCK_WAIT).await?
    else {
        return Err(ApiError::new(ErrorCode::Unavailable).msg("The debug chat state is busy"));
    };
    let result = async {
        let mut value: S = load(store, key).await?;
        let out = change(&mut value);
        let bytes = serde_json::to_vec(&value).map_err(ApiError::internal)?;
        store.set(key, &bytes, Some(ttl)).await?;
        Ok(out)
    }
    .await;
    if let Err(e) = store.unlock(&lock_key, &token).await {
        tracing::debug!(error = %e, "could not release a debug chat lock; it expires by itself");
    }
    result
}
