//! What every transport reads from an HTTP request before an operation runs: the
//! credentials (SPEC §5.2) and the anonymous request context (request id, client address).

use actix_web::HttpRequest;

use crate::access::{Credentials, RequestCtx};
use crate::error::request_local;
use crate::http::client_ip;
use crate::state::AppState;

/// Reads the credential headers.
pub fn credentials(req: &HttpRequest) -> Credentials {
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let bearer = header("authorization").and_then(|v| {
        let (scheme, token) = v.split_once(' ')?;
        scheme
            .eq_ignore_ascii_case("bearer")
            .then(|| token.trim().to_string())
    });
    Credentials {
        api_key: header("x-api-key"),
        bearer,
        workspace_id: header("x-workspace-id"),
    }
}

/// The context of a request before authentication.
pub fn anonymous_ctx(req: &HttpRequest, state: &AppState) -> RequestCtx {
    RequestCtx::anonymous(request_local::id(), client_ip(req, &state.trusted_proxies))
}
