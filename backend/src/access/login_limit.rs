//! Login defence (SPEC §5.1): after 5 failures per account or 20 per client address within
//! 15 minutes, logins are refused with 429 and a back-off that doubles with each further failure.
//! Counted in the session store, so every replica shares the count.

use std::net::IpAddr;
use std::time::Duration;

use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::session_store::SessionStore;

const WINDOW: Duration = Duration::from_secs(15 * 60);
const ACCOUNT_LIMIT: i64 = 5;
const IP_LIMIT: i64 = 20;
const BASE_BLOCK: Duration = Duration::from_secs(30);

struct Scope {
    name: &'static str,
    id: String,
    limit: i64,
}

fn scopes(email: &str, ip: Option<IpAddr>) -> Vec<Scope> {
    let mut scopes = vec![Scope {
        name: "account",
        id: super::secrets::hash(email),
        limit: ACCOUNT_LIMIT,
    }];
    if let Some(ip) = ip {
        scopes.push(Scope {
            name: "ip",
            id: ip.to_string(),
            limit: IP_LIMIT,
        });
    }
    scopes
}

fn failures_key(s: &Scope) -> String {
    format!("login:failures:{}:{}", s.name, s.id)
}

fn block_key(s: &Scope) -> String {
    format!("login:block:{}:{}", s.name, s.id)
}

fn limited(retry: Duration) -> ApiError {
    ApiError::new(ErrorCode::RateLimited)
        .msg("Too many failed logins, please retry later")
        .retry_after(retry.as_secs().max(1))
}

/// Refuses the attempt while a block is in force.
pub async fn check(store: &dyn SessionStore, email: &str, ip: Option<IpAddr>) -> ApiResult<()> {
    for scope in scopes(email, ip) {
        if let Some(left) = store.ttl(&block_key(&scope)).await? {
            return Err(limited(left));
        }
    }
    Ok(())
}

/// Counts a failure; past the limit, blocks for 30 s × 2^(failures over the limit), up to 15 min.
pub async fn record_failure(
    store: &dyn SessionStore,
    email: &str,
    ip: Option<IpAddr>,
) -> ApiResult<()> {
    for scope in scopes(email, ip) {
        let failures = store.incr(&failures_key(&scope), 1, WINDOW).await?;
        if failures >= scope.limit {
            let exponent = u32::try_from((failures - scope.limit).min(10)).unwrap_or(10);
            let block = (BASE_BLOCK * 2u32.pow(exponent)).min(WINDOW);
            store.set(&block_key(&scope), b"1", Some(block)).await?;
        }
    }
    Ok(())
}

/// A successful login clears the account's count (the address keeps its own).
pub async fn record_success(store: &dyn SessionStore, email: &str) -> ApiResult<()> {
    if let Some(scope) = scopes(email, None).first() {
        store.delete(&failures_key(scope)).await?;
    }
    Ok(())
}
