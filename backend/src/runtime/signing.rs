//! HMAC-SHA256 request signing of the HTTP-bot contract: `sha256=<hex>` of
//! `HMAC(secret, "{timestamp}." + body)`, with a ±300 s timestamp window.

use hmac::{Hmac, Mac};
use sha2::Sha256;

pub const WINDOW_SECS: i64 = 300;

/// The `X-LB-Signature` value for `body` at `timestamp`.
pub fn sign(secret: &str, timestamp: &str, body: &[u8]) -> String {
    let mut mac = match Hmac::<Sha256>::new_from_slice(secret.as_bytes()) {
        Ok(mac) => mac,
        // HMAC takes keys of any length; this cannot fail.
        Err(_) => return String::new(),
    };
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// Why a signed request is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    TimestampMissing,
    TimestampOutOfWindow,
    SignatureMissing,
    SignatureMismatch,
}

impl Refusal {
    pub fn reason(self) -> &'static str {
        match self {
            Self::TimestampMissing => "invalid timestamp: timestamp_missing",
            Self::TimestampOutOfWindow => "invalid timestamp: timestamp_out_of_window",
            Self::SignatureMissing => "invalid signature: signature_missing",
            Self::SignatureMismatch => "invalid signature: signature_mismatch",
        }
    }
}

/// Checks timestamp and signature (constant-time comparison).
pub fn verify(
    secret: &str,
    timestamp: Option<&str>,
    signature: Option<&str>,
    body: &[u8],
    now: i64,
) -> Result<(), Refusal> {
    let ts = timestamp
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or(Refusal::TimestampMissing)?;
    let secs: i64 = ts.parse().map_err(|_| Refusal::TimestampMissing)?;
    if (now - secs).abs() > WINDOW_SECS {
        return Err(Refusal::TimestampOutOfWindow);
    }
    let given = signature
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or(Refusal::SignatureMissing)?;
    let expected = sign(secret, ts, body);
    if crate::access::secrets::equal(given, &expected) {
        Ok(())
    } else {
        Err(Refusal::SignatureMismatch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_verify_within_the_window() {
        let sig = sign("s3cret", "1000", b"{}");
        assert!(sig.starts_with("sha256=") && sig.len() == 71);
        assert_eq!(
            verify("s3cret", Some("1000"), Some(&sig), b"{}", 1100),
            Ok(())
        );
        assert_eq!(
            verify("other", Some("1000"), Some(&sig), b"{}", 1100),
            Err(Refusal::SignatureMismatch)
        );
        assert_eq!(
            verify("s3cret", Some("1000"), Some(&sig), b"{ }", 1100),
            Err(Refusal::SignatureMismatch)
        );
        assert_eq!(
            verify("s3cret", Some("1000"), Some(&sig), b"{}", 1400),
            Err(Refusal::TimestampOutOfWindow)
        );
        assert_eq!(
            verify("s3cret", None, Some(&sig), b"{}", 1000),
            Err(Refusal::TimestampMissing)
        );
        assert_eq!(
            verify("s3cret", Some("1000"), None, b"{}", 1000),
            Err(Refusal::SignatureMissing)
        );
    }
}
