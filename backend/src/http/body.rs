//! Reading a request body within the configured limit (413 beyond it).

use actix_web::{web, HttpRequest};
use futures_util::StreamExt;

use crate::error::{ApiError, ApiResult, ErrorCode};

/// Reads a request body up to `limit` bytes; beyond it, 413.
pub async fn read_body(
    req: &HttpRequest,
    mut payload: web::Payload,
    limit: u64,
) -> ApiResult<web::BytesMut> {
    let too_large = || {
        ApiError::new(ErrorCode::PayloadTooLarge)
            .details(serde_json::json!({ "limit_bytes": limit }))
    };
    let declared = req
        .headers()
        .get(actix_web::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(too_large());
    }
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk
            .map_err(|e| ApiError::invalid(format!("Could not read the request body: {e}")))?;
        if (body.len() + chunk.len()) as u64 > limit {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
