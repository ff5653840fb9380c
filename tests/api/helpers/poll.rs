//! Waiting for something to become true by polling, instead of sleeping a fixed time.

use std::future::Future;
use std::time::{Duration, Instant};

/// Calls `check` every 100 ms until it answers `Ok`, and answers that; after `timeout`, panics
/// naming `what` and the last `Err` (what was seen instead).
pub async fn eventually<T, F, Fut>(what: &str, timeout: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, String>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        match check().await {
            Ok(value) => return value,
            Err(seen) if Instant::now() >= deadline => {
                panic!("{what}: not within {timeout:?}; last seen: {seen}")
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}
