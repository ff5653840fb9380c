//! `X-Request-Id`: accepted (≤128 visible characters) or generated; [`super::frame`] echoes
//! it and carries it in the request's tracing span.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::LazyLock;

use actix_web::http::header::HeaderMap;

pub const HEADER: &str = "x-request-id";

/// The request's id: its `X-Request-Id` when acceptable, else a new one.
pub fn of_request(headers: &HeaderMap) -> String {
    headers
        .get(HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| accepted(v))
        .map(str::to_string)
        .unwrap_or_else(generate)
}

/// A new id: 32 hex digits, a per-process random half and a counter, so ids stay unique
/// across replicas without asking the OS for randomness on every request. Written digit by
/// digit: `format!` was a visible share of a `/healthz` request's cost.
fn generate() -> String {
    static PROCESS: LazyLock<u64> = LazyLock::new(|| uuid::Uuid::new_v4().as_u64_pair().0);
    static NEXT: AtomicU64 = AtomicU64::new(0);
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut id = String::with_capacity(32);
    for half in [*PROCESS, NEXT.fetch_add(1, Ordering::Relaxed)] {
        for shift in (0..16).rev() {
            id.push(DIGITS[((half >> (shift * 4)) & 0xf) as usize] as char);
        }
    }
    id
}

fn accepted(value: &str) -> bool {
    !value.is_empty() && value.len() <= 128 && value.bytes().all(|b| b.is_ascii_graphic())
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::header::{HeaderName, HeaderValue};

    #[test]
    fn a_generated_id_is_32_hex_digits_and_unique() {
        let (a, b) = (generate(), generate());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert_eq!(a[..16], b[..16], "the process half is shared");
    }

    #[test]
    fn a_sent_id_is_kept_when_acceptable() {
        let mut headers = HeaderMap::new();
        headers.insert(
            HeaderName::from_static(HEADER),
            HeaderValue::from_static("abc-1"),
        );
        assert_eq!(of_request(&headers), "abc-1");
        headers.insert(
            HeaderName::from_static(HEADER),
            HeaderValue::from_static("a b"),
        );
        assert_eq!(of_request(&headers).len(), 32);
    }
}
