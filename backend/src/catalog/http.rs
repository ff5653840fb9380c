//! The HTTP face of the catalog: one generic actix handler per operation type reads the
//! credentials, authorizes, parses path, query and body, runs the operation and turns its
//! output into the response (JSON envelope, event stream or download).

use actix_web::{web, FromRequest, HttpRequest, HttpResponse};

use super::output::Output;
use super::registry::{has_body, is_upload};
use super::router::Handler;
use super::{authorize, input, request, Catalog, Input, Method, Operation, QueryInput};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// Every catalog operation's route, for the `/api/v1` router.
pub fn routes(
    catalog: &Catalog,
) -> impl Iterator<Item = (&'static str, actix_web::http::Method, Handler)> + '_ {
    catalog.operations().iter().map(|op| {
        let meta = op.meta();
        (meta.path, method(meta.method), op.handler())
    })
}

/// The HTTP method of an operation.
pub(super) fn method(method: Method) -> actix_web::http::Method {
    use actix_web::http::Method as M;
    match method {
        Method::Get => M::GET,
        Method::Post => M::POST,
        Method::Put => M::PUT,
        Method::Patch => M::PATCH,
        Method::Delete => M::DELETE,
    }
}

/// The handler of operation `O`: its errors become their JSON answers.
pub(super) fn handler<O: Operation>() -> Handler {
    |req, mut payload, state| {
        Box::pin(async move {
            let payload = match web::Payload::from_request(&req, &mut payload).await {
                Ok(payload) => payload,
                Err(e) => return HttpResponse::from_error(e),
            };
            handle::<O>(req, payload, state)
                .await
                .unwrap_or_else(HttpResponse::from_error)
        })
    }
}

async fn handle<O: Operation>(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let mut creds = request::credentials(&req);
    // A path naming a Workspace selects it, unless `X-Workspace-Id` already did.
    if creds.workspace_id.is_none() {
        creds.workspace_id = req.match_info().get("workspace_uuid").map(str::to_string);
    }
    let ctx = authorize(
        &state,
        &O::META,
        &creds,
        request::anonymous_ctx(&req, &state),
    )
    .await?;
    let input = Input {
        path: req
            .match_info()
            .load::<O::Path>()
            .map_err(|e| ApiError::invalid(format!("Invalid path parameter: {e}")))?,
        query: O::Query::from_query(req.query_string())?,
        body: if is_upload::<O>() {
            let content_type = req
                .headers()
                .get(actix_web::http::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            // A file goes as multipart (up to the upload limit); JSON keeps the body limit.
            let limit = if content_type
                .to_ascii_lowercase()
                .starts_with("multipart/form-data")
            {
                super::upload::UPLOAD_MAX
            } else {
                state.settings.api.body_limit
            };
            let bytes = crate::http::read_body(&req, payload, limit).await?;
            let upload: Box<dyn std::any::Any> =
                Box::new(super::upload::parse(&content_type, &bytes)?);
            *upload
                .downcast::<O::Body>()
                .map_err(|_| ApiError::internal(anyhow::anyhow!("upload body type")))?
        } else if has_body::<O>() {
            let bytes =
                crate::http::read_body(&req, payload, state.settings.api.body_limit).await?;
            input::parse_body::<O::Body>(&bytes)?
        } else {
            input::from_value::<O::Body>(serde_json::Value::Null, "")?
        },
    };
    // Boxed: an operation's future can be kilobytes (its queries'), and inline it would size
    // this handler's future, moved into a box of its own on every request, cheap ones too.
    let output = Box::pin(O::run(&state, &ctx, input)).await?;
    Ok(output.respond())
}
