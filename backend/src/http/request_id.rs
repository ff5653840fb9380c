//! `X-Request-Id`: accepted (≤128 visible characters) or generated, echoed, and carried by
//! the request's tracing span.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::LazyLock;
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, HttpRequest};
use tracing::Instrument;

use crate::error::request_local;

pub const HEADER: &str = "x-request-id";

/// The id of the current request, stored in the request extensions.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

impl RequestId {
    pub fn of(req: &HttpRequest) -> String {
        req.extensions()
            .get::<RequestId>()
            .map(|r| r.0.clone())
            .unwrap_or_default()
    }
}

/// A new id: 32 hex digits, a per-process random half and a counter, so ids stay unique
/// across replicas without asking the OS for randomness on every request.
fn generate() -> String {
    static PROCESS: LazyLock<u64> = LazyLock::new(|| uuid::Uuid::new_v4().as_u64_pair().0);
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{:016x}{:016x}",
        *PROCESS,
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

fn accepted(value: &str) -> bool {
    !value.is_empty() && value.len() <= 128 && value.bytes().all(|b| b.is_ascii_graphic())
}

/// Middleware: one span per request, the id echoed on every response.
pub async fn middleware(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let id = req
        .headers()
        .get(HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| accepted(v))
        .map(str::to_string)
        .unwrap_or_else(generate);
    req.extensions_mut().insert(RequestId(id.clone()));
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        http.method = %req.method(),
        http.path = %req.path(),
    );
    let started = Instant::now();
    // Handler and extractor errors become responses inside this scope, so their bodies carry the id.
    let mut res = request_local::scope(id.clone(), next.call(req))
        .instrument(span.clone())
        .await?;
    if let Ok(value) = HeaderValue::from_str(&id) {
        res.headers_mut()
            .insert(HeaderName::from_static(HEADER), value);
    }
    let status = res.status().as_u16();
    let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
    span.in_scope(|| {
        if status >= 500 {
            tracing::warn!(http.status = status, duration_ms, "request finished");
        } else {
            tracing::info!(http.status = status, duration_ms, "request finished");
        }
    });
    Ok(res)
}
