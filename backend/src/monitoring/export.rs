//! `GET /api/v1/monitoring/export?type=…`: records as CSV or NDJSON (`data.export`),
//! streamed page by page with keyset paging, so memory stays flat whatever the size.

use bytes::Bytes;
use serde::Deserialize;
use serde_json::Value;
use utoipa::IntoParams;

use super::filter::MonitoringFilter;
use super::keyset::{self, Cursor};
use super::service::RecordKind;
use crate::access::{Permission, RequestCtx, WorkspaceCtx};
use crate::catalog::{Download, Input, NoBody, NoParams, OpMeta, Operation, QueryInput};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// The largest `limit`; without one, every matching record is exported.
pub const MAX_ROWS: u64 = 50_000;
const PAGE: u64 = 1000;

/// The file format.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    #[default]
    Csv,
    Ndjson,
}

/// `type`, `format` and `limit` beside the list filters (an `offset` is checked but has
/// no effect: the export pages by itself).
#[derive(Debug)]
pub struct ExportQuery {
    pub kind: RecordKind,
    pub format: Format,
    pub limit: Option<u64>,
    pub filter: MonitoringFilter,
}

impl QueryInput for ExportQuery {
    fn from_query(query: &str) -> ApiResult<Self> {
        crate::catalog::input::refuse_empty_values(query)?;
        let pairs = url::form_urlencoded::parse(query.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        Self::from_pairs(pairs)
    }

    fn from_json(_: Value) -> ApiResult<Self> {
        Err(ApiError::invalid(
            "The export is a download; call it over HTTP",
        ))
    }
}

impl ExportQuery {
    fn from_pairs(pairs: Vec<(String, String)>) -> ApiResult<Self> {
        let mut query = ExportQuery {
            kind: RecordKind::Messages,
            format: Format::Csv,
            limit: None,
            filter: MonitoringFilter::default(),
        };
        let mut rest = Vec::new();
        for (k, v) in pairs {
            match k.as_str() {
                "type" => {
                    query.kind = serde_json::from_value(Value::String(v.clone())).map_err(|_| {
                        ApiError::invalid(format!("Unknown export type: {v}")).field(
                            "type",
                            "must be messages, llm_calls, tool_calls, embedding_calls, errors or sessions",
                        )
                    })?;
                }
                "format" => {
                    query.format =
                        serde_json::from_value(Value::String(v.clone())).map_err(|_| {
                            ApiError::invalid(format!("Unknown export format: {v}"))
                                .field("format", "must be csv or ndjson")
                        })?;
                }
                "limit" => {
                    let limit = v
                        .parse::<u64>()
                        .ok()
                        .filter(|n| (1..=MAX_ROWS).contains(n))
                        .ok_or_else(|| {
                            ApiError::invalid("limit must be 1 to 50000")
                                .field("limit", "must be 1 to 50000")
                        })?;
                    query.limit = Some(limit);
                }
                _ => rest.push((k, v)),
            }
        }
        let rest = serde_urlencoded::to_string(&rest).map_err(ApiError::internal)?;
        query.filter = crate::catalog::input::parse_query(&rest)?;
        Ok(query)
    }
}

impl IntoParams for ExportQuery {
    fn into_params(
        parameter_in: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
    ) -> Vec<utoipa::openapi::path::Parameter> {
        use utoipa::openapi::path::ParameterBuilder;
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        use utoipa::PartialSchema;
        let mut params = MonitoringFilter::into_params(&parameter_in);
        params.retain(|p| p.name != "offset" && p.name != "limit");
        let param = |name: &str, schema: utoipa::openapi::RefOr<utoipa::openapi::Schema>| {
            ParameterBuilder::new()
                .name(name)
                .parameter_in(parameter_in().unwrap_or_default())
                .schema(Some(schema))
                .build()
        };
        params.push(param("type", RecordKind::schema()));
        params.push(param("format", Format::schema()));
        params.push(param(
            "limit",
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(1))
                .maximum(Some(MAX_ROWS))
                .into(),
        ));
        params
    }
}

pub struct ExportMonitoring;

impl Operation for ExportMonitoring {
    const META: OpMeta = OpMeta::get("export_monitoring", "/monitoring/export")
        .tag("monitoring")
        .summary("Monitoring records as a CSV or NDJSON file")
        .description(
            "`type` (messages, llm_calls, tool_calls, embedding_calls, errors, sessions; default \
             messages), `format` (csv, the default, or ndjson) and `limit` (1 to 50000; without \
             it, every matching record) beside the list filters. CSV has a header row, then one \
             row per record; NDJSON one JSON object per line; newest first. Streamed page by \
             page.",
        )
        .permission(Permission::DataExport);
    type Path = NoParams;
    type Query = ExportQuery;
    type Body = NoBody;
    type Output = Download;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, ExportQuery, NoBody>,
    ) -> ApiResult<Download> {
        let ws = ctx.workspace()?.clone();
        let q = input.query;
        // The first page is read before answering, so bad filters are a 400, not a broken
        // download.
        let limit = q.limit.unwrap_or(u64::MAX);
        let first =
            keyset::export_page(&state.db, &ws, q.kind, &q.filter, None, PAGE.min(limit)).await?;
        let pages = Pages {
            db: state.db.clone(),
            ws,
            kind: q.kind,
            format: q.format,
            filter: q.filter,
            left: limit,
            header: q.format == Format::Csv,
            first: Some(first),
            after: None,
            done: false,
        };
        let (content_type, ext) = match q.format {
            Format::Csv => ("text/csv", "csv"),
            Format::Ndjson => ("application/x-ndjson", "ndjson"),
        };
        let filename = format!("monitoring-{}.{ext}", kind_name(q.kind));
        Ok(Download::new(
            content_type,
            filename,
            futures_util::stream::unfold(pages, Pages::next),
        ))
    }
}

/// The export's progress between pages.
struct Pages {
    db: sea_orm::DatabaseConnection,
    ws: WorkspaceCtx,
    kind: RecordKind,
    format: Format,
    filter: MonitoringFilter,
    /// Rows still allowed by `limit`.
    left: u64,
    header: bool,
    first: Option<(Vec<Value>, Option<Cursor>)>,
    after: Option<Cursor>,
    done: bool,
}

impl Pages {
    async fn next(mut self) -> Option<(ApiResult<Bytes>, Self)> {
        if self.header {
            self.header = false;
            let bytes = csv_rows(&[columns(self.kind).iter().map(|c| c.to_string()).collect()]);
            return Some((bytes, self));
        }
        if self.done || self.left == 0 {
            return None;
        }
        let page = match self.first.take() {
            Some(page) => Ok(page),
            None => {
                keyset::export_page(
                    &self.db,
                    &self.ws,
                    self.kind,
                    &self.filter,
                    self.after.as_ref(),
                    PAGE.min(self.left),
                )
                .await
            }
        };
        let (rows, next) = match page {
            Ok(page) => page,
            Err(e) => {
                self.done = true;
                return Some((Err(e), self));
            }
        };
        if rows.is_empty() {
            return None;
        }
        self.left = self.left.saturating_sub(rows.len() as u64);
        self.done = next.is_none() || (rows.len() as u64) < PAGE;
        self.after = next;
        let bytes = match self.format {
            Format::Csv => {
                let cols = columns(self.kind);
                let cells: Vec<Vec<String>> = rows
                    .iter()
                    .map(|row| cols.iter().map(|c| cell(&row[*c])).collect())
                    .collect();
                csv_rows(&cells)
            }
            Format::Ndjson => {
                let mut out = Vec::new();
                for row in &rows {
                    out.extend_from_slice(row.to_string().as_bytes());
                    out.push(b'\n');
                }
                Ok(Bytes::from(out))
            }
        };
        Some((bytes, self))
    }
}

fn csv_rows(rows: &[Vec<String>]) -> ApiResult<Bytes> {
    let mut out = csv::Writer::from_writer(Vec::new());
    for row in rows {
        out.write_record(row).map_err(ApiError::internal)?;
    }
    out.into_inner()
        .map(Bytes::from)
        .map_err(|e| ApiError::internal(anyhow::anyhow!("csv: {e}")))
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
        RecordKind::ToolCalls => &[
            "id",
            "timestamp",
            "bot_id",
            "pipeline_id",
            "session_id",
            "tool_name",
            "tool_source",
            "source_name",
            "duration",
            "status",
            "mode",
            "arguments",
            "result",
            "error_message",
            "execution_id",
        ],
        RecordKind::EmbeddingCalls => &["id", "timestamp"],
    }
}

fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn kind_name(kind: RecordKind) -> &'static str {
    match kind {
        RecordKind::Messages => "messages",
        RecordKind::LlmCalls => "llm_calls",
        RecordKind::Errors => "errors",
        RecordKind::Sessions => "sessions",
        RecordKind::ToolCalls => "tool_calls",
        RecordKind::EmbeddingCalls => "embedding_calls",
    }
}
