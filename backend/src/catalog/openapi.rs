//! The OpenAPI document, generated from a catalog (plus the health and spec endpoints).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;
use utoipa::openapi::extensions::ExtensionsBuilder;
use utoipa::openapi::path::{HttpMethod, OperationBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::security::{
    ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme,
};
use utoipa::openapi::tag::TagBuilder;
use utoipa::openapi::{
    ComponentsBuilder, ContentBuilder, InfoBuilder, OpenApi, OpenApiBuilder, Paths, Ref, RefOr,
    Required, ResponseBuilder, ResponsesBuilder, Schema,
};
use utoipa::{IntoParams, ToSchema};

use super::output::Output;
use super::registry::has_body;
use super::{Catalog, Method, OpMeta, Operation};
use crate::access::Access;
use crate::error::{ErrorBody, ErrorCode, FieldError};

/// Component schemas collected while building operations.
#[derive(Default)]
pub struct SchemaSet(BTreeMap<String, RefOr<Schema>>);

impl SchemaSet {
    /// Registers `T` and the schemas it references; returns a `$ref` to it.
    pub fn reference<T: ToSchema>(&mut self) -> RefOr<Schema> {
        let name = T::name().to_string();
        if !self.0.contains_key(&name) {
            self.0.insert(name.clone(), T::schema());
            let mut deps = Vec::new();
            T::schemas(&mut deps);
            self.0.extend(deps);
        }
        RefOr::Ref(Ref::from_schema_name(name))
    }
}

fn http_method(m: Method) -> HttpMethod {
    match m {
        Method::Get => HttpMethod::Get,
        Method::Post => HttpMethod::Post,
        Method::Put => HttpMethod::Put,
        Method::Patch => HttpMethod::Patch,
        Method::Delete => HttpMethod::Delete,
    }
}

/// Error codes any operation with this access rule and input may answer with.
fn error_codes(meta: &OpMeta, body: bool) -> BTreeSet<&'static str> {
    let mut codes = vec![
        ErrorCode::InvalidRequest,
        ErrorCode::InternalError,
        ErrorCode::Unavailable,
    ];
    if body {
        codes.extend([ErrorCode::InvalidJson, ErrorCode::PayloadTooLarge]);
    }
    if meta.access != Access::Public {
        codes.push(ErrorCode::InvalidAuthentication);
    }
    if meta.access.has_workspace() {
        codes.push(ErrorCode::ResourceNotFound);
    }
    if meta.permission.is_some() {
        codes.push(ErrorCode::PermissionDenied);
    }
    codes.extend(meta.errors.iter().copied());
    codes.into_iter().map(ErrorCode::as_str).collect()
}

pub(super) fn operation<O: Operation>(schemas: &mut SchemaSet) -> utoipa::openapi::path::Operation {
    let meta = &O::META;
    let mut params = O::Path::into_params(|| Some(ParameterIn::Path));
    params.extend(O::Query::into_params(|| Some(ParameterIn::Query)));

    let codes = error_codes(meta, has_body::<O>());
    let mut by_status: BTreeMap<u16, Vec<&str>> = BTreeMap::new();
    for code in ErrorCode::ALL {
        if codes.contains(code.as_str()) {
            by_status
                .entry(code.status().as_u16())
                .or_default()
                .push(code.as_str());
        }
    }
    let error_ref = schemas.reference::<ErrorBody>();
    let (status, success) = <O::Output as Output>::document(schemas);
    let mut responses = ResponsesBuilder::new().response(status.to_string(), success);
    for (status, names) in &by_status {
        responses = responses.response(
            status.to_string(),
            ResponseBuilder::new()
                .description(format!("Error: {}", names.join(", ")))
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(error_ref.clone()))
                        .build(),
                ),
        );
    }

    let mut op = OperationBuilder::new()
        .operation_id(Some(meta.id))
        .summary(Some(meta.summary))
        .tag(meta.tag)
        .parameters(Some(params))
        .responses(responses)
        .securities(Some(security(meta.access)))
        .extensions(Some(extensions(meta, &codes)));
    if !meta.description.is_empty() {
        op = op.description(Some(meta.description));
    }
    if has_body::<O>() {
        let media = if super::registry::is_upload::<O>() {
            "multipart/form-data"
        } else {
            "application/json"
        };
        op = op.request_body(Some(
            RequestBodyBuilder::new()
                .required(Some(Required::True))
                .content(
                    media,
                    ContentBuilder::new()
                        .schema(Some(schemas.reference::<O::Body>()))
                        .build(),
                )
                .build(),
        ));
    }
    op.build()
}

fn security(access: Access) -> Vec<SecurityRequirement> {
    match access {
        Access::Public => Vec::new(),
        Access::OptionalSession | Access::OptionalWorkspace => vec![
            SecurityRequirement::default(),
            SecurityRequirement::new::<_, _, String>("session", []),
        ],
        Access::Account | Access::SessionWorkspace => {
            vec![SecurityRequirement::new::<_, _, String>("session", [])]
        }
        Access::Workspace => vec![
            SecurityRequirement::new::<_, _, String>("session", []),
            SecurityRequirement::new::<_, _, String>("api_key", []),
            SecurityRequirement::new::<_, _, String>("bearer_api_key", []),
        ],
    }
}

fn extensions(meta: &OpMeta, codes: &BTreeSet<&str>) -> utoipa::openapi::extensions::Extensions {
    let mut extensions = ExtensionsBuilder::new()
        .add("x-permission", json!(meta.permission.map(|p| p.as_str())))
        .add("x-access", json!(meta.access.as_str()))
        .add("x-error-codes", json!(codes));
    if meta.mcp.is_some() {
        extensions = extensions.add("x-mcp-tool", json!(true));
    }
    extensions.build()
}

/// A plain operation for the endpoints outside the catalog (health, spec, docs).
fn plain(
    id: &str,
    summary: &str,
    tag: &str,
    description: &str,
) -> utoipa::openapi::path::Operation {
    OperationBuilder::new()
        .operation_id(Some(id))
        .summary(Some(summary))
        .tag(tag)
        .securities(Some(Vec::<SecurityRequirement>::new()))
        .responses(
            ResponsesBuilder::new().response(
                "200",
                ResponseBuilder::new().description(description).content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(ObjectBuilder::new().schema_type(Type::Object)))
                        .build(),
                ),
            ),
        )
        .build()
}

/// Builds the whole document. It depends on nothing but the code, so it is reproducible.
pub fn document(catalog: &Catalog) -> OpenApi {
    let mut schemas = SchemaSet::default();
    schemas.reference::<ErrorBody>();
    schemas.reference::<ErrorCode>();
    schemas.reference::<FieldError>();
    let mut paths = Paths::new();
    let mut tags = BTreeSet::new();
    for op in catalog.operations() {
        let meta = op.meta();
        tags.insert(meta.tag);
        paths.add_path_operation(
            format!("/api/v1{}", meta.path),
            vec![http_method(meta.method)],
            op.openapi(&mut schemas),
        );
    }
    paths.add_path_operation(
        "/healthz",
        vec![HttpMethod::Get],
        plain(
            "healthz",
            "Liveness",
            "system",
            "The process is alive: `{\"status\":\"ok\"}`",
        ),
    );
    paths.add_path_operation(
        "/readyz",
        vec![HttpMethod::Get],
        plain(
            "readyz",
            "Readiness",
            "system",
            "Database and session store are reachable (503 with the failing check otherwise)",
        ),
    );
    paths.add_path_operation(
        "/api/v1/openapi.json",
        vec![HttpMethod::Get],
        plain(
            "get_openapi",
            "This OpenAPI document",
            "system",
            "The OpenAPI 3.1 document",
        ),
    );

    let components = ComponentsBuilder::new()
        .schemas_from_iter(schemas.0)
        .security_scheme(
            "session",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("Session token `lbs_…` from POST /api/v1/user/auth"))
                    .build(),
            ),
        )
        .security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-API-Key",
                "Workspace API key `lbk_…` (or the instance's global key)",
            ))),
        )
        .security_scheme(
            "bearer_api_key",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("An API key sent as `Authorization: Bearer lbk_…`"))
                    .build(),
            ),
        )
        .build();

    OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("LangBot API")
                .version(env!("CARGO_PKG_VERSION"))
                .description(Some(
                    "LangBot Core in Rust: the Application API. Success bodies are `{\"code\":0,\"msg\":\"ok\",\"data\":…}`; \
                     errors are `{\"code\":\"<error code>\",\"msg\",\"request_id\"}` with the proper HTTP status. \
                     `x-permission` names the Workspace permission an operation needs; `x-mcp-tool` marks \
                     operations also exposed as MCP tools at `/mcp`.",
                ))
                .build(),
        )
        .paths(paths)
        .components(Some(components))
        .tags(Some(tags.into_iter().map(|t| TagBuilder::new().name(t).build()).collect::<Vec<_>>()))
        .build()
}

/// The document as pretty JSON with a trailing newline (the committed form).
pub fn document_json(catalog: &Catalog) -> String {
    let mut s = serde_json::to_string_pretty(&document_value(catalog)).unwrap_or_default();
    s.push('\n');
    s
}

pub(super) fn document_value(catalog: &Catalog) -> serde_json::Value {
    let mut value = serde_json::to_value(document(catalog))
        .unwrap_or_else(|e| json!({ "error": e.to_string() }));
    order_extensions(&mut value);
    value
}

/// utoipa keeps `x-` extensions in a hash map; sort them so the output is reproducible.
fn order_extensions(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            let mut entries: Vec<_> = std::mem::take(map).into_iter().collect();
            entries.sort_by(
                |(a, _), (b, _)| match (a.starts_with("x-"), b.starts_with("x-")) {
                    (true, true) => a.cmp(b),
                    (x, y) => x.cmp(&y),
                },
            );
            for (k, mut v) in entries {
                order_extensions(&mut v);
                map.insert(k, v);
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(order_extensions),
        _ => {}
    }
}
