//! Password hashing: argon2id (m=7 MiB, t=5, p=1: OWASP's equivalent of m=19 MiB, t=2, with
//! a third of the memory per hash in flight) on the blocking pool, with bounded
//! concurrency: at most 32 callers wait, for at most 5 s, before 429.

use std::sync::Arc;
use std::time::Duration;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use tokio::sync::Semaphore;

use crate::error::{ApiError, ApiResult, ErrorCode};

pub const MIN_LENGTH: usize = 8;
pub const MAX_LENGTH: usize = 128;
const MAX_WAITERS: usize = 32;
const MAX_WAIT: Duration = Duration::from_secs(5);

/// Verifying against this keeps an unknown account as slow as a wrong password; made once,
/// with the current parameters, from a password nobody knows.
static DUMMY_HASH: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    argon2()
        .hash_password(
            b"no account has this password",
            &SaltString::generate(&mut OsRng),
        )
        .map(|h| h.to_string())
        .unwrap_or_default()
});

/// Admission control for the hashing pool.
#[derive(Clone)]
pub struct PasswordHasherPool {
    running: Arc<Semaphore>,
    admitted: Arc<Semaphore>,
}

impl Default for PasswordHasherPool {
    fn default() -> Self {
        let workers = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2);
        Self {
            running: Arc::new(Semaphore::new(workers)),
            admitted: Arc::new(Semaphore::new(workers + MAX_WAITERS)),
        }
    }
}

fn argon2() -> Argon2<'static> {
    let params = Params::new(7 * 1024, 5, 1, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

fn busy() -> ApiError {
    ApiError::new(ErrorCode::RateLimited)
        .msg("Too many password operations in progress, please retry")
        .retry_after(1)
}

/// The password policy: a clear 400 naming the field.
pub fn check_policy(field: &str, password: &str) -> ApiResult<()> {
    let chars = password.chars().count();
    if chars < MIN_LENGTH {
        return Err(ApiError::invalid(format!(
            "The password must have at least {MIN_LENGTH} characters"
        ))
        .field(field, format!("must have at least {MIN_LENGTH} characters")));
    }
    if chars > MAX_LENGTH {
        return Err(ApiError::invalid(format!(
            "The password must have at most {MAX_LENGTH} characters"
        ))
        .field(field, format!("must have at most {MAX_LENGTH} characters")));
    }
    Ok(())
}

impl PasswordHasherPool {
    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> ApiResult<T> {
        let _admitted = self
            .admitted
            .clone()
            .try_acquire_owned()
            .map_err(|_| busy())?;
        let _running = tokio::time::timeout(MAX_WAIT, self.running.clone().acquire_owned())
            .await
            .map_err(|_| busy())?
            .map_err(ApiError::internal)?;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(ApiError::internal)
    }

    /// A PHC string for `password`.
    pub async fn hash(&self, password: String) -> ApiResult<String> {
        self.run(move || {
            let salt = SaltString::generate(&mut OsRng);
            argon2()
                .hash_password(password.as_bytes(), &salt)
                .map(|h| h.to_string())
        })
        .await?
        .map_err(|e| ApiError::internal(anyhow::anyhow!("hashing failed: {e}")))
    }

    /// Whether `password` matches `stored`; with `None`, spends the same time and says no.
    pub async fn verify(&self, password: String, stored: Option<String>) -> ApiResult<bool> {
        self.run(move || {
            let known = stored.is_some();
            let phc = stored.unwrap_or_else(|| DUMMY_HASH.clone());
            let ok = PasswordHash::new(&phc)
                .map(|parsed| {
                    argon2()
                        .verify_password(password.as_bytes(), &parsed)
                        .is_ok()
                })
                .unwrap_or(false);
            known && ok
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_verify_and_use_the_owasp_parameters() -> ApiResult<()> {
        let pool = PasswordHasherPool::default();
        let phc = pool.hash("correct horse".into()).await?;
        assert!(phc.starts_with("$argon2id$v=19$m=7168,t=5,p=1$"));
        assert!(DUMMY_HASH.starts_with("$argon2id$v=19$m=7168,t=5,p=1$"));
        assert!(
            pool.verify("correct horse".into(), Some(phc.clone()))
                .await?
        );
        assert!(!pool.verify("wrong horse".into(), Some(phc)).await?);
        assert!(!pool.verify("anything".into(), None).await?);
        // Hashes made with the earlier parameters (m=19 MiB, t=2) keep verifying.
        let earlier = Argon2::new(
            Algorithm::Argon2id,
            Version::V0x13,
            Params::new(19 * 1024, 2, 1, None)
                .map_err(|e| ApiError::internal(anyhow::anyhow!("{e}")))?,
        )
        .hash_password(b"correct horse", &SaltString::generate(&mut OsRng))
        .map_err(|e| ApiError::internal(anyhow::anyhow!("{e}")))?
        .to_string();
        assert!(earlier.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(
            pool.verify("correct horse".into(), Some(earlier.clone()))
                .await?
        );
        assert!(!pool.verify("wrong horse".into(), Some(earlier)).await?);
        Ok(())
    }

    #[test]
    fn policy_needs_eight_characters() {
        assert!(check_policy("password", "short").is_err());
        assert!(check_policy("password", "long enough").is_ok());
        assert!(check_policy("password", &"x".repeat(129)).is_err());
    }
}
