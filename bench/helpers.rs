//! The part of the test suite's `helpers` its platform fakes use.

pub use super::chaos::{host_port, ChaosProxy};

#[path = "../tests/api/helpers/fakes/mod.rs"]
pub mod fakes;

pub mod fixtures {
    use std::future::Future;
    use std::time::Duration;

    pub const PNG: &[u8] = &[0x89, 0x50, 0x4e, 0x47];

    pub async fn eventually<T, F, Fut>(what: &str, secs: u64, mut probe: F) -> T
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Option<T>>,
    {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
        loop {
            if let Some(v) = probe().await {
                return v;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "timed out after {secs}s waiting for {what}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
