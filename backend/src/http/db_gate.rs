//! Middleware: while the database is known down ([`crate::db_health`]), requests that need
//! it are answered 503 at once — the API with `unavailable`, the bot ingress with its
//! contract's 50301 — instead of each waiting the pool's acquire timeout. A response that
//! failed on an unreachable database makes the database suspect (probed).

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{web, HttpResponse, ResponseError};
use serde_json::json;

use crate::db_health::{needs_database, DbHealth, DbUnreachable};
use crate::error::ApiError;
use crate::state::AppState;

pub async fn middleware(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let Some(health) = req
        .app_data::<web::Data<AppState>>()
        .map(|state| state.parts.get::<DbHealth>())
    else {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_left_body);
    };
    if health.is_down() && needs_database(req.path()) {
        let response = if req.path().starts_with("/bots/") {
            HttpResponse::ServiceUnavailable()
                .insert_header(("retry-after", "1"))
                .json(json!({ "code": 50301, "msg": "storage unavailable", "data": null }))
        } else {
            ApiError::unavailable("The database is unavailable")
                .retry_after(1)
                .error_response()
        };
        return Ok(req.into_response(response).map_into_right_body());
    }
    let res = next.call(req).await?;
    if res.response().extensions().get::<DbUnreachable>().is_some() {
        health.suspect();
    }
    Ok(res.map_into_left_body())
}
