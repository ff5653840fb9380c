//! The HTTP face of the catalog: one generic actix handler per operation type reads the
//! credentials, authorizes, parses path, query and body, runs the operation and turns its
//! output into the response (JSON envelope, event stream or download).

use std::collections::BTreeMap;

use actix_web::{web, HttpRequest, HttpResponse};

use super::output::Output;
use super::registry::{has_body, is_upload};
use super::{authorize, input, request, Catalog, Input, Method, Operation, QueryInput};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// Registers every catalog operation under `/api/v1`, grouping methods by path.
pub fn configure(catalog: &Catalog, cfg: &mut web::ServiceConfig) {
    let mut by_path: BTreeMap<&str, Vec<actix_web::Route>> = BTreeMap::new();
    for op in catalog.operations() {
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

/// The actix method guard of an operation.
pub(super) fn method(method: Method) -> actix_web::Route {
    match method {
        Method::Get => web::get(),
        Method::Post => web::post(),
        Method::Put => web::put(),
        Method::Patch => web::patch(),
        Method::Delete => web::delete(),
    }
}

pub(super) fn route<O: Operation>() -> actix_web::Route {
    method(O::META.method).to(handle::<O>)
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
    let output = O::run(&state, &ctx, input).await?;
    Ok(output.respond())
}
