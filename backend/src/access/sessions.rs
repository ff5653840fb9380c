//! Login sessions: opaque `lbs_` tokens whose SHA-256 keys a record in the session store.
//! Every replica reads the same store, so logout and revocation apply everywhere at once.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::secrets;
use crate::error::ApiResult;
use crate::session_store::SessionStore;

/// The absolute cap on a session's life, however often it is renewed.
pub const MAX_AGE: Duration = Duration::from_secs(30 * 24 * 3600);

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionRecord {
    pub account_uuid: String,
    pub created_ms: i64,
    /// The account's session epoch at creation; bumping the epoch revokes older sessions.
    pub epoch: i64,
}

fn session_key(hash: &str) -> String {
    format!("session:{hash}")
}

fn epoch_key(account_uuid: &str) -> String {
    format!("account_epoch:{account_uuid}")
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// The time a session may still live: the sliding TTL, within the absolute cap.
fn remaining(record: &SessionRecord, ttl: Duration) -> Option<Duration> {
    let age = Duration::from_millis(u64::try_from(now_ms() - record.created_ms).unwrap_or(0));
    let left = MAX_AGE.checked_sub(age)?;
    Some(ttl.min(left)).filter(|d| !d.is_zero())
}

async fn current_epoch(store: &dyn SessionStore, account_uuid: &str) -> ApiResult<i64> {
    let raw = store.get(&epoch_key(account_uuid)).await?;
    Ok(raw
        .and_then(|v| String::from_utf8(v).ok())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0))
}

async fn write(
    store: &dyn SessionStore,
    hash: &str,
    record: &SessionRecord,
    ttl: Duration,
) -> ApiResult<()> {
    let value = serde_json::to_vec(record).map_err(crate::error::ApiError::internal)?;
    store.set(&session_key(hash), &value, Some(ttl)).await?;
    Ok(())
}

/// Creates a session; returns the token (shown to the client once).
pub async fn create(
    store: &dyn SessionStore,
    account_uuid: &str,
    ttl: Duration,
) -> ApiResult<String> {
    let token = secrets::generate(secrets::SESSION_PREFIX);
    let record = SessionRecord {
        account_uuid: account_uuid.to_string(),
        created_ms: now_ms(),
        epoch: current_epoch(store, account_uuid).await?,
    };
    write(store, &secrets::hash(&token), &record, ttl.min(MAX_AGE)).await?;
    Ok(token)
}

/// The live session behind a token hash, if any.
pub async fn find(store: &dyn SessionStore, hash: &str) -> ApiResult<Option<SessionRecord>> {
    let Some(raw) = store.get(&session_key(hash)).await? else {
        return Ok(None);
    };
    let Ok(record) = serde_json::from_slice::<SessionRecord>(&raw) else {
        return Ok(None);
    };
    if record.epoch != current_epoch(store, &record.account_uuid).await? {
        return Ok(None);
    }
    Ok(Some(record))
}

/// Resets the sliding expiry (never past the absolute cap).
pub async fn renew(
    store: &dyn SessionStore,
    hash: &str,
    record: &SessionRecord,
    ttl: Duration,
) -> ApiResult<bool> {
    match remaining(record, ttl) {
        Some(left) => Ok(store.expire(&session_key(hash), left).await?),
        None => {
            store.delete(&session_key(hash)).await?;
            Ok(false)
        }
    }
}

/// How long the store still keeps the session (`None` once it is gone).
pub async fn ttl(store: &dyn SessionStore, hash: &str) -> ApiResult<Option<Duration>> {
    Ok(store.ttl(&session_key(hash)).await?)
}

pub async fn delete(store: &dyn SessionStore, hash: &str) -> ApiResult<()> {
    store.delete(&session_key(hash)).await?;
    Ok(())
}

/// Revokes every session of the account except `keep` (the caller's own).
pub async fn revoke_others(
    store: &dyn SessionStore,
    account_uuid: &str,
    keep: &str,
    ttl: Duration,
) -> ApiResult<()> {
    // The epoch must outlive every session; ten years is "forever" here.
    let epoch = store
        .incr(
            &epoch_key(account_uuid),
            1,
            Duration::from_secs(3650 * 24 * 3600),
        )
        .await?;
    if let Some(raw) = store.get(&session_key(keep)).await? {
        if let Ok(mut record) = serde_json::from_slice::<SessionRecord>(&raw) {
            record.epoch = epoch;
            if let Some(left) = remaining(&record, ttl) {
                write(store, keep, &record, left).await?;
            }
        }
    }
    Ok(())
}
