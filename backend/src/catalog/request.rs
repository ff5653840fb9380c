//! What every transport reads from an HTTP request before an operation runs: the
//! credentials (SPEC §5.2) and the anonymous request context (request id, client address).

use actix_web::http::header::{HeaderName, AUTHORIZATION};
use actix_web::HttpRequest;

use crate::access::{Credentials, RequestCtx};
use crate::error::request_local;
use crate::http::client_ip;
use crate::state::AppState;

const X_API_KEY: HeaderName = HeaderName::from_static("x-api-key");
const X_WORKSPACE_ID: HeaderName = HeaderName::from_static("x-workspace-id");

/// Reads the credential headers (names as constants: text is parsed on every lookup).
pub fn credentials(req: &HttpRequest) -> Credentials {
    let header = |name: &HeaderName| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let bearer = header(&AUTHORIZATION).and_then(|v| {
        let (scheme, token) = v.split_once(' ')?;
        scheme
            .eq_ignore_ascii_case("bearer")
            .then(|| token.trim().to_string())
    });
    Credentials {
        api_key: header(&X_API_KEY),
        bearer,
        workspace_id: header(&X_WORKSPACE_ID),
    }
}

/// The context of a request before authentication.
pub fn anonymous_ctx(req: &HttpRequest, state: &AppState) -> RequestCtx {
    RequestCtx::anonymous(request_local::id(), client_ip(req, &state.trusted_proxies))
}
