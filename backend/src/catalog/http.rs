//! The HTTP face of the catalog: one generic actix handler per operation type.

use std::collections::BTreeMap;

use actix_web::{web, HttpRequest, HttpResponse};
use futures_util::StreamExt;
use serde::Serialize;

use super::dispatch::{authorize, has_body};
use super::{input, operations, Input, Method, Operation};
use crate::access::Credentials;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::http::{client_ip, RequestId};
use crate::state::AppState;

/// The success envelope (SPEC §4).
#[derive(Serialize)]
pub struct Envelope<T> {
    pub code: i32,
    pub msg: &'static str,
    pub data: T,
}

impl<T: Serialize> Envelope<T> {
    pub fn ok(data: T) -> HttpResponse {
        HttpResponse::Ok().json(Envelope {
            code: 0,
            msg: "ok",
            data,
        })
    }
}

/// Registers every catalog operation under `/api/v1`, grouping methods by path.
pub fn configure(cfg: &mut web::ServiceConfig) {
    let mut by_path: BTreeMap<&str, Vec<actix_web::Route>> = BTreeMap::new();
    for op in operations() {
        by_path.entry(op.meta().path).or_default().push(op.route());
    }
    // Literal paths first: they are matched by string comparison, while each parameterized
    // path costs a regex test for every request that reaches it (and a literal path is the
    // more specific match anyway, e.g. `llm/_/starred` before `llm/{model_uuid}`).
    let (literal, parameterized): (Vec<_>, Vec<_>) = by_path
        .into_iter()
        .partition(|(path, _)| !path.contains('{'));
    for (path, routes) in literal.into_iter().chain(parameterized) {
        let resource = routes
            .into_iter()
            .fold(web::resource(format!("/api/v1{path}")), |res, route| {
                res.route(route)
            })
            .default_service(web::to(crate::http::method_not_allowed));
        cfg.service(resource);
    }
}

pub(super) fn route<O: Operation>() -> actix_web::Route {
    let method = match O::META.method {
        Method::Get => web::get(),
        Method::Post => web::post(),
        Method::Put => web::put(),
        Method::Patch => web::patch(),
        Method::Delete => web::delete(),
    };
    method.to(handle::<O>)
}

async fn handle<O: Operation>(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let base = crate::access::RequestCtx::anonymous(
        RequestId::of(&req),
        client_ip(&req, &state.trusted_proxies),
    );
    let mut creds = credentials(&req);
    // A path naming a Workspace selects it, unless `X-Workspace-Id` already did.
    if creds.workspace_id.is_none() {
        creds.workspace_id = req.match_info().get("workspace_uuid").map(str::to_string);
    }
    let ctx = authorize(&state, &O::META, &creds, base).await?;
    let input = Input {
        path: req
            .match_info()
            .load::<O::Path>()
            .map_err(|e| ApiError::invalid(format!("Invalid path parameter: {e}")))?,
        query: input::parse_query::<O::Query>(req.query_string())?,
        body: if has_body::<O>() {
            let bytes = read_body(&req, payload, state.settings.api.body_limit).await?;
            input::parse_body::<O::Body>(&bytes)?
        } else {
            input::from_value::<O::Body>(serde_json::Value::Null, "")?
        },
    };
    let output = O::run(&state, &ctx, input).await?;
    Ok(Envelope::ok(output))
}

/// Reads the credential headers (SPEC §5.2).
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
