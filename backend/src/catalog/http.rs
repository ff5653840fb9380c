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

/// Registers every catalog operation under `/api/v1`, grouping methods by path and paths by
/// their first segment. actix tries a router's resources one by one (a regex each for a
/// parameterized path), so one flat list of every path cost each request a walk through all
/// of them; nested scopes make it a walk through the segments, then one group's paths.
/// `extra` adds routes of the same scope that are not operations (the OpenAPI document).
pub fn configure(
    catalog: &Catalog,
    cfg: &mut web::ServiceConfig,
    extra: impl FnOnce(&mut web::ServiceConfig),
) {
    let mut groups: BTreeMap<&str, BTreeMap<&str, Vec<actix_web::Route>>> = BTreeMap::new();
    for op in catalog.operations() {
        let path = op.meta().path;
        let rest = path.trim_start_matches('/');
        let segment_end = rest.find('/').map_or(path.len(), |i| i + 1);
        let (segment, tail) = path.split_at(segment_end);
        groups
            .entry(segment)
            .or_default()
            .entry(tail)
            .or_default()
            .push(op.route());
    }
    let mut api = web::scope("/api/v1").configure(extra);
    for (segment, paths) in groups {
        api = if segment.contains('{') {
            // A parameterized first segment cannot be a scope's prefix; its paths stay whole.
            paths.into_iter().fold(api, |api, (tail, routes)| {
                api.service(resource(&format!("{segment}{tail}"), routes))
            })
        } else {
            api.service(web::scope(segment).configure(|cfg| {
                for (tail, routes) in literal_first(paths) {
                    cfg.service(resource(tail, routes));
                }
            }))
        };
    }
    cfg.service(api);
}

/// Literal paths first: they are matched by string comparison, while each parameterized path
/// costs a regex test (and a literal path is the more specific match anyway, e.g.
/// `llm/_/starred` before `llm/{model_uuid}`).
fn literal_first<R>(paths: BTreeMap<&str, R>) -> impl Iterator<Item = (&str, R)> {
    let (literal, parameterized): (Vec<_>, Vec<_>) =
        paths.into_iter().partition(|(path, _)| !path.contains('{'));
    literal.into_iter().chain(parameterized)
}

/// One path's resource: its methods, and a JSON 405 for any other.
fn resource(path: &str, routes: Vec<actix_web::Route>) -> actix_web::Resource {
    routes
        .into_iter()
        .fold(web::resource(path), |res, route| res.route(route))
        .default_service(web::to(crate::http::method_not_allowed))
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
