//! `X-Request-Id`: accepted (≤128 visible characters) or generated; [`super::frame`] echoes
//! it and carries it in the request's tracing span.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::LazyLock;

use actix_web::http::header::{HeaderMap, HeaderName, HeaderValue};
use bytes::BytesMut;

/// A constant: a name given as text is parsed and hashed again on every lookup.
pub const HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// The request's id: its `X-Request-Id` when acceptable (shared, not copied), else a new one.
pub fn of_request(headers: &HeaderMap) -> HeaderValue {
    headers
        .get(&HEADER)
        .filter(|v| accepted(v.as_bytes()))
        .cloned()
        .unwrap_or_else(generate)
}

/// A new id: 32 hex digits, a per-process random half and a counter, so ids stay unique
/// across replicas without asking the OS for randomness on every request (no `format!`: it
/// was a visible share of a `/healthz` request's cost).
fn generate() -> HeaderValue {
    static PROCESS: LazyLock<u64> = LazyLock::new(|| uuid::Uuid::new_v4().as_u64_pair().0);
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut raw = [0u8; 16];
    raw[..8].copy_from_slice(&PROCESS.to_be_bytes());
    raw[8..].copy_from_slice(&NEXT.fetch_add(1, Ordering::Relaxed).to_be_bytes());
    let mut id = [0u8; 32];
    // Hex digits are always a valid header value, and 16 bytes always fit 32 digits.
    let _ = hex::encode_to_slice(raw, &mut id);
    // Ids are cut from a per-thread block rather than each copied into an allocation of
    // its own: a block is freed when the last of its ids is.
    IDS.with(|block| {
        let mut block = block.borrow_mut();
        if block.capacity() < id.len() {
            *block = BytesMut::with_capacity(BLOCK);
        }
        block.extend_from_slice(&id);
        HeaderValue::from_maybe_shared(block.split_to(id.len()).freeze())
    })
    .unwrap_or_else(|_| HeaderValue::from_static("-"))
}

const BLOCK: usize = 4096;

thread_local! {
    static IDS: RefCell<BytesMut> = RefCell::new(BytesMut::new());
}

fn accepted(value: &[u8]) -> bool {
    !value.is_empty() && value.len() <= 128 && value.iter().all(|b| b.is_ascii_graphic())
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::header::HeaderValue;

    #[test]
    fn a_generated_id_is_32_hex_digits_and_unique() {
        let (a, b) = (generate(), generate());
        let (a, b) = (a.as_bytes(), b.as_bytes());
        assert_eq!(a.len(), 32);
        assert!(a.iter().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert_eq!(a[..16], b[..16], "the process half is shared");
    }

    #[test]
    fn a_sent_id_is_kept_when_acceptable() {
        let mut headers = HeaderMap::new();
        headers.insert(HEADER, HeaderValue::from_static("abc-1"));
        assert_eq!(of_request(&headers), "abc-1");
        headers.insert(HEADER, HeaderValue::from_static("a b"));
        assert_eq!(of_request(&headers).len(), 32);
    }
}
