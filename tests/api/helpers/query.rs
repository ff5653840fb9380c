//! Building URLs: query values and query strings, and the HTTP method of a catalog operation.

use chrono::{DateTime, SecondsFormat, Utc};
use reqwest::Method;

/// Percent-encodes a query value (everything but the unreserved characters).
pub fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A time as the API writes it (RFC 3339, microseconds, `Z`).
pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// `path` with `query` appended (`?` or `&`).
pub fn with_query(path: &str, query: &str) -> String {
    match (query.is_empty(), path.contains('?')) {
        (true, _) => path.to_string(),
        (false, true) => format!("{path}&{query}"),
        (false, false) => format!("{path}?{query}"),
    }
}

/// The HTTP method named `name` (a catalog operation's `method.as_str()`).
pub fn http_method(name: &str) -> Method {
    Method::from_bytes(name.as_bytes()).expect("HTTP method")
}
