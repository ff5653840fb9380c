//! `GET /api/v1/monitoring/export?type=…`: records as CSV (`data.export`), bounded rows.

use actix_web::{web, HttpRequest, HttpResponse};
use serde_json::Value;

use super::filter::MonitoringFilter;
use super::service::{self, RecordKind};
use crate::access::{Permission, RequestCtx};
use crate::catalog::{Access, Method, OpMeta};
use crate::error::{ApiError, ApiResult};
use crate::http::{client_ip, RequestId};
use crate::state::AppState;

pub const MAX_ROWS: u64 = 50_000;
const PAGE: u64 = 1000;

const EXPORT_ACCESS: OpMeta = OpMeta {
    id: "export_monitoring",
    method: Method::Get,
    path: "/monitoring/export",
    summary: "Monitoring records as CSV",
    description: "`type` (messages, llm_calls, tool_calls, embedding_calls, errors, sessions; default \
                  messages) and `limit` (1 to 50000, the default) beside the list filters; a header \
                  row, then one row per record, newest first.",
    tag: "monitoring",
    access: Access::Workspace,
    permission: Some(Permission::DataExport),
    errors: &[],
    mcp: None,
};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/v1/monitoring/export", web::get().to(export));
}

/// The columns of each kind, in order.
fn columns(kind: RecordKind) -> &'static [&'static str] {
    match kind {
        RecordKind::Messages => &[
            "id",
            "timestamp",
            "bot_id",
            "bot_name",
            "pipeline_id",
            "pipeline_name",
            "session_id",
            "role",
            "status",
            "mode",
            "user_id",
            "user_name",
            "message_content",
            "execution_id",
        ],
        RecordKind::LlmCalls => &[
            "id",
            "timestamp",
            "bot_id",
            "pipeline_id",
            "session_id",
            "model_name",
            "input_tokens",
            "output_tokens",
            "total_tokens",
            "duration",
            "status",
            "mode",
            "error_message",
            "execution_id",
        ],
        RecordKind::Errors => &[
            "id",
            "timestamp",
            "bot_id",
            "pipeline_id",
            "session_id",
            "error_type",
            "error_message",
            "mode",
            "execution_id",
        ],
        RecordKind::Sessions => &[
            "bot_id",
            "session_id",
            "bot_name",
            "pipeline_id",
            "pipeline_name",
            "message_count",
            "start_time",
            "last_activity",
            "is_active",
            "platform",
            "user_id",
            "user_name",
        ],
        RecordKind::ToolCalls | RecordKind::EmbeddingCalls => &["id", "timestamp"],
    }
}

fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

async fn export(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    let base = RequestCtx::anonymous(RequestId::of(&req), client_ip(&req, &state.trusted_proxies));
    let ctx = crate::catalog::authorize(
        &state,
        &EXPORT_ACCESS,
        &crate::catalog::http::credentials(&req),
        base,
    )
    .await?;
    let ws = ctx.workspace()?;
    // `type` (and `limit`) beside the usual filters.
    let mut kind = RecordKind::Messages;
    let mut limit = MAX_ROWS;
    let mut rest = Vec::new();
    for (k, v) in url::form_urlencoded::parse(req.query_string().as_bytes()) {
        match k.as_ref() {
            "type" => {
                kind = serde_json::from_value(Value::String(v.to_string())).map_err(|_| {
                    ApiError::invalid(format!("Unknown export type: {v}"))
                        .field("type", "must be messages, llm_calls, errors or sessions")
                })?;
            }
            "limit" => {
                limit = v
                    .parse::<u64>()
                    .ok()
                    .filter(|n| (1..=MAX_ROWS).contains(n))
                    .ok_or_else(|| {
                        ApiError::invalid("limit must be 1 to 50000")
                            .field("limit", "must be 1 to 50000")
                    })?;
            }
            _ => rest.push((k.into_owned(), v.into_owned())),
        }
    }
    let query = serde_urlencoded::to_string(&rest).unwrap_or_default();
    let mut filter: MonitoringFilter = crate::catalog::input::parse_query(&query)?;
    let mut out = csv::Writer::from_writer(Vec::new());
    let cols = columns(kind);
    out.write_record(cols).map_err(ApiError::internal)?;
    let mut written = 0u64;
    while written < limit {
        filter.limit = Some(PAGE.min(limit - written));
        filter.offset = Some(written);
        let (rows, _) = service::records(&state.db, ws, kind, &filter).await?;
        if rows.is_empty() {
            break;
        }
        for row in &rows {
            out.write_record(cols.iter().map(|c| cell(&row[*c])))
                .map_err(ApiError::internal)?;
        }
        written += rows.len() as u64;
    }
    let bytes = out
        .into_inner()
        .map_err(|e| ApiError::internal(anyhow::anyhow!("csv: {e}")))?;
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((
            "content-disposition",
            format!(
                "attachment; filename=\"monitoring-{}.csv\"",
                cols_name(kind)
            ),
        ))
        .body(bytes))
}

fn cols_name(kind: RecordKind) -> &'static str {
    match kind {
        RecordKind::Messages => "messages",
        RecordKind::LlmCalls => "llm_calls",
        RecordKind::Errors => "errors",
        RecordKind::Sessions => "sessions",
        RecordKind::ToolCalls => "tool_calls",
        RecordKind::EmbeddingCalls => "embedding_calls",
    }
}

/// The export's entry in the OpenAPI document.
pub fn openapi() -> (String, utoipa::openapi::path::Operation) {
    use utoipa::openapi::path::{ParameterBuilder, ParameterIn};
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    use utoipa::{IntoParams, PartialSchema};
    let mut params = MonitoringFilter::into_params(|| Some(ParameterIn::Query));
    // The export pages by itself; its `limit` is the row bound.
    params.retain(|p| p.name != "offset" && p.name != "limit");
    params.push(
        ParameterBuilder::new()
            .name("type")
            .parameter_in(ParameterIn::Query)
            .schema(Some(RecordKind::schema()))
            .build(),
    );
    params.push(
        ParameterBuilder::new()
            .name("limit")
            .parameter_in(ParameterIn::Query)
            .schema(Some(
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .minimum(Some(1))
                    .maximum(Some(MAX_ROWS)),
            ))
            .build(),
    );
    (
        format!("/api/v1{}", EXPORT_ACCESS.path),
        crate::catalog::openapi::streamed(
            &EXPORT_ACCESS,
            params,
            "text/csv",
            "CSV, as an attachment",
        ),
    )
}
