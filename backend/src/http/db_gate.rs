//! The database gate: while the database is known down ([`crate::db_health`]), requests
//! that need it are answered 503 at once — the API with `unavailable`, the bot ingress with
//! its contract's 50301 — instead of each waiting the pool's acquire timeout. A response that
//! failed on an unreachable database makes the database suspect (probed). Applied by
//! [`super::frame`].

use actix_web::dev::ServiceResponse;
use actix_web::{HttpResponse, ResponseError};
use serde_json::json;

use crate::db_health::{needs_database, DbHealth, DbUnreachable};
use crate::error::ApiError;

/// The answer for a request that cannot be served now, if it cannot.
pub fn refuse(health: &DbHealth, path: &str) -> Option<HttpResponse> {
    if !health.is_down() || !needs_database(path) {
        return None;
    }
    Some(if path.starts_with("/bots/") {
        HttpResponse::ServiceUnavailable()
            .insert_header(("retry-after", "1"))
            .json(json!({ "code": 50301, "msg": "storage unavailable", "data": null }))
    } else {
        ApiError::unavailable("The database is unavailable")
            .retry_after(1)
            .error_response()
    })
}

/// Notes a response that failed on an unreachable database.
pub fn observe<B>(health: &DbHealth, res: &ServiceResponse<B>) {
    if res.response().extensions().get::<DbUnreachable>().is_some() {
        health.suspect();
    }
}
