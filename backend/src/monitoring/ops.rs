//! `/api/v1/monitoring` reads (SPEC §11) and their MCP tools.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::{IntoParams, ToSchema};
use validator::Validate;

use super::dto::*;
use super::filter::{Bucket, MonitoringFilter};
use super::service::{self, RecordKind};
use crate::access::{Permission, RequestCtx};
use crate::catalog::{Input, McpResult, McpTool, NoBody, NoParams, OpMeta, Operation};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

pub struct GetMonitoringOverview;

impl Operation for GetMonitoringOverview {
    const META: OpMeta = OpMeta::get("get_monitoring_overview", "/monitoring/overview")
        .tag("monitoring")
        .summary("Message, call, session and execution counts")
        .permission(Permission::ResourceView);
    type Path = NoParams;
    type Query = MonitoringFilter;
    type Body = NoBody;
    type Output = Overview;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, MonitoringFilter, NoBody>,
    ) -> ApiResult<Overview> {
        service::overview(&state.db, ctx.workspace()?, &input.query).await
    }
}

pub struct GetMonitoringExecutions;

impl Operation for GetMonitoringExecutions {
    const META: OpMeta = OpMeta::get("get_monitoring_executions", "/monitoring/executions")
        .tag("monitoring")
        .summary("Executions, newest first, with a status summary and token totals")
        .permission(Permission::ResourceView)
        .mcp(McpTool::FLAT.query_args(&[
            "limit",
            "offset",
            "bot_ids",
            "pipeline_ids",
            "statuses",
            "mode",
        ]));
    type Path = NoParams;
    type Query = MonitoringFilter;
    type Body = NoBody;
    type Output = ExecutionPage;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, MonitoringFilter, NoBody>,
    ) -> ApiResult<ExecutionPage> {
        service::executions(&state.db, ctx.workspace()?, &input.query).await
    }
}

/// `{source}/{execution_id}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ExecutionPath {
    /// `auto`, `pipeline` or `event`.
    pub source: String,
    pub execution_id: String,
}

#[derive(Debug, Default, Deserialize, IntoParams, Validate)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DetailQuery {
    /// `overview`, `inputs`, `outputs`, `deliveries`, `events`, `llm_calls`, `errors`, `related`,
    /// `conversation`; omitted: all.
    pub section: Option<String>,
    #[validate(range(max = 10_000_000))]
    pub offset: Option<u64>,
    #[validate(range(min = 1, max = 100))]
    pub limit: Option<u64>,
}

pub struct GetMonitoringExecutionDetail;

impl Operation for GetMonitoringExecutionDetail {
    const META: OpMeta = OpMeta::get("get_monitoring_execution_detail", "/monitoring/executions/{source}/{execution_id}")
        .tag("monitoring")
        .summary("One execution: inputs, outputs, deliveries, route events, LLM calls, errors, related executions and conversation")
        .permission(Permission::ResourceView)
        .mcp(
            McpTool::FLAT
                .renames(&[("identifier", "execution_id")])
                .query_args(&["section", "offset", "limit"]),
        );
    type Path = ExecutionPath;
    type Query = DetailQuery;
    type Body = NoBody;
    type Output = ExecutionDetail;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<ExecutionPath, DetailQuery, NoBody>,
    ) -> ApiResult<ExecutionDetail> {
        let q = input.query;
        service::detail(
            &state.db,
            ctx.workspace()?,
            &input.path.source,
            &input.path.execution_id,
            q.section.as_deref(),
            q.offset.unwrap_or(0),
            q.limit.unwrap_or(100),
        )
        .await
    }
}

macro_rules! record_list {
    ($Op:ident, $List:ident, $id:literal, $path:literal, $key:ident, $Row:ty, $read:path) => {
        #[derive(Debug, Serialize, ToSchema)]
        pub struct $List {
            pub $key: Vec<$Row>,
            pub total: u64,
            pub limit: u64,
            pub offset: u64,
        }

        pub struct $Op;

        impl Operation for $Op {
            const META: OpMeta = OpMeta::get($id, $path)
                .tag("monitoring")
                .summary(concat!("Monitoring ", stringify!($key), ", newest first"))
                .permission(Permission::ResourceView);
            type Path = NoParams;
            type Query = MonitoringFilter;
            type Body = NoBody;
            type Output = $List;

            async fn run(
                state: &AppState,
                ctx: &RequestCtx,
                input: Input<NoParams, MonitoringFilter, NoBody>,
            ) -> ApiResult<$List> {
                let f = input.query;
                let (rows, total) = $read(&state.db, ctx.workspace()?, &f).await?;
                Ok($List {
                    $key: rows,
                    total,
                    limit: f.limit(100),
                    offset: f.offset(),
                })
            }
        }
    };
}

record_list!(
    ListMonitoringMessages,
    MessageList,
    "list_monitoring_messages",
    "/monitoring/messages",
    messages,
    MessageRow,
    service::messages
);
record_list!(
    ListMonitoringLlmCalls,
    LlmCallList,
    "list_monitoring_llm_calls",
    "/monitoring/llm-calls",
    llm_calls,
    LlmCallRow,
    service::llm_calls
);
record_list!(
    ListMonitoringToolCalls,
    ToolCallList,
    "list_monitoring_tool_calls",
    "/monitoring/tool-calls",
    tool_calls,
    ToolCallRow,
    service::tool_calls
);
record_list!(
    ListMonitoringErrors,
    ErrorList,
    "list_monitoring_errors",
    "/monitoring/errors",
    errors,
    ErrorRow,
    service::errors
);
record_list!(
    ListMonitoringSessions,
    SessionList,
    "list_monitoring_sessions",
    "/monitoring/sessions",
    sessions,
    SessionRow,
    service::sessions
);

/// `{kind}` of records.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct KindPath {
    /// `messages`, `llm_calls`, `tool_calls`, `embedding_calls`, `sessions` or `errors`.
    #[param(inline)]
    pub kind: RecordKind,
}

#[derive(Debug, Default, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct RecordsQuery {
    #[validate(range(min = 1, max = 1000))]
    pub limit: Option<u64>,
    #[validate(range(max = 10_000_000))]
    pub offset: Option<u64>,
    /// The filters of the list endpoints (bot_ids, pipeline_ids, session_ids, start_time,
    /// end_time, statuses, mode).
    #[validate(nested)]
    pub filters: Option<MonitoringFilter>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RecordPage {
    pub kind: RecordKind,
    #[schema(value_type = Vec<Object>)]
    pub records: Vec<Value>,
    pub total: u64,
    pub limit: u64,
    pub offset: u64,
}

pub struct GetMonitoringRecords;

impl Operation for GetMonitoringRecords {
    const META: OpMeta = OpMeta::post("get_monitoring_records", "/monitoring/records/{kind}/query")
        .tag("monitoring")
        .summary("Records of one kind with filters (the MCP face of the record lists)")
        .permission(Permission::ResourceView)
        // LangBot's result: `{<kind>: rows, total, limit, offset}`.
        .mcp(McpTool::FLAT.result(McpResult::KeyedBy {
            items: "records",
            key: "kind",
        }));
    type Path = KindPath;
    type Query = NoParams;
    type Body = RecordsQuery;
    type Output = RecordPage;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<KindPath, NoParams, RecordsQuery>,
    ) -> ApiResult<RecordPage> {
        let mut f = input.body.filters.unwrap_or_default();
        crate::catalog::input::validate(&f)?;
        f.limit = input.body.limit.or(f.limit);
        f.offset = input.body.offset.or(f.offset);
        let (records, total) =
            service::records(&state.db, ctx.workspace()?, input.path.kind, &f).await?;
        Ok(RecordPage {
            kind: input.path.kind,
            records,
            total,
            limit: f.limit(100),
            offset: f.offset(),
        })
    }
}

/// `{kind}/{identifier}` of details.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct DetailsPath {
    /// `message` or `session`.
    #[param(inline)]
    pub kind: DetailsKind,
    pub identifier: String,
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DetailsKind {
    Message,
    Session,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Details {
    pub kind: DetailsKind,
    #[schema(value_type = Object)]
    pub data: Value,
}

pub struct GetMonitoringDetails;

impl Operation for GetMonitoringDetails {
    const META: OpMeta = OpMeta::get("get_monitoring_details", "/monitoring/details/{kind}/{identifier}")
        .tag("monitoring")
        .summary("A message with its execution, calls and errors; or a session's summary and recent messages")
        .permission(Permission::ResourceView)
        .mcp(McpTool::FLAT.result(McpResult::Member("data")));
    type Path = DetailsPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = Details;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<DetailsPath, NoParams, NoBody>,
    ) -> ApiResult<Details> {
        let ws = ctx.workspace()?;
        let id = input.path.identifier;
        let data = match input.path.kind {
            DetailsKind::Message => {
                let detail = service::detail(&state.db, ws, "auto", &id, None, 0, 100).await?;
                let items = |name: &str| {
                    detail
                        .pages
                        .get(name)
                        .map(|p| json!(p.items))
                        .unwrap_or(json!([]))
                };
                json!({ "execution": detail.row, "message": detail.message, "inputs": items("inputs"),
                        "outputs": items("outputs"), "errors": items("errors"), "llm_calls": items("llm_calls") })
            }
            DetailsKind::Session => {
                let f = MonitoringFilter {
                    session_ids: vec![id.clone()],
                    limit: Some(100),
                    ..Default::default()
                };
                let (sessions, _) = service::sessions(&state.db, ws, &f).await?;
                if sessions.is_empty() {
                    return Err(ApiError::not_found().msg("Session not found"));
                }
                let (messages, total) = service::messages(&state.db, ws, &f).await?;
                let executions = service::executions(
                    &state.db,
                    ws,
                    &MonitoringFilter {
                        limit: Some(50),
                        ..f
                    },
                )
                .await?;
                json!({ "sessions": sessions, "messages": messages, "message_total": total, "executions": executions.items })
            }
        };
        Ok(Details {
            kind: input.path.kind,
            data,
        })
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TokenStatistics {
    pub totals: Tokens,
    pub calls: u64,
    pub by_model: Vec<ModelTokens>,
    pub bucket: Bucket,
    /// Buckets with calls, oldest first (the newest 1000).
    pub timeseries: Vec<SeriesPoint>,
    /// More buckets had calls than were kept.
    pub timeseries_truncated: bool,
}

/// Token use in one time bucket.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeriesPoint {
    /// `YYYY-MM-DD HH:00` (hour) or `YYYY-MM-DD` (day), UTC.
    pub bucket: String,
    pub calls: u64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub total_tokens: i64,
}

/// Messages and LLM calls over time.
#[derive(Debug, Serialize, ToSchema)]
pub struct Traffic {
    pub bucket: Bucket,
    pub points: Vec<TrafficPoint>,
    /// The range had more buckets than the 1000 kept.
    pub truncated: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TrafficPoint {
    /// The bucket's start, `YYYY-MM-DDTHH:00:00Z`.
    pub timestamp: String,
    pub messages: u64,
    pub llm_calls: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ModelTokens {
    pub model_name: String,
    pub calls: u64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub total_tokens: i64,
}

pub struct GetMonitoringTokenStatistics;

impl Operation for GetMonitoringTokenStatistics {
    const META: OpMeta = OpMeta::get(
        "get_monitoring_token_statistics",
        "/monitoring/token-statistics",
    )
    .tag("monitoring")
    .summary("Token use, in total and per model")
    .permission(Permission::ResourceView);
    type Path = NoParams;
    type Query = MonitoringFilter;
    type Body = NoBody;
    type Output = TokenStatistics;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, MonitoringFilter, NoBody>,
    ) -> ApiResult<TokenStatistics> {
        service::token_statistics(&state.db, ctx.workspace()?, &input.query).await
    }
}

/// The dashboard's combined read.
#[derive(Debug, Serialize, ToSchema)]
pub struct DashboardData {
    pub traffic: Traffic,
    pub overview: Overview,
    pub executions: ExecutionPage,
    pub messages: Vec<MessageRow>,
    #[serde(rename = "llmCalls")]
    pub llm_calls: Vec<LlmCallRow>,
    pub sessions: Vec<SessionRow>,
    pub errors: Vec<ErrorRow>,
    #[serde(rename = "totalCount")]
    #[schema(value_type = Object)]
    pub total_count: Value,
}

pub struct GetMonitoringData;

impl Operation for GetMonitoringData {
    const META: OpMeta = OpMeta::get("get_monitoring_data", "/monitoring/data")
        .tag("monitoring")
        .summary("Overview, first pages of every list and their totals in one read")
        .permission(Permission::ResourceView);
    type Path = NoParams;
    type Query = MonitoringFilter;
    type Body = NoBody;
    type Output = DashboardData;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, MonitoringFilter, NoBody>,
    ) -> ApiResult<DashboardData> {
        let ws = ctx.workspace()?;
        let f = MonitoringFilter {
            offset: Some(0),
            limit: Some(input.query.limit(50)),
            ..input.query
        };
        let sessions_filter = MonitoringFilter {
            statuses: Vec::new(),
            mode: None,
            ..f.clone()
        };
        let db = &state.db;
        let (messages, m_total) = service::messages(db, ws, &f).await?;
        let (llm_calls, l_total) = service::llm_calls(db, ws, &f).await?;
        let (sessions, s_total) = service::sessions(db, ws, &sessions_filter).await?;
        let (errors, e_total) = service::errors(db, ws, &f).await?;
        Ok(DashboardData {
            traffic: service::traffic(db, ws, &f).await?,
            overview: service::overview(db, ws, &f).await?,
            executions: service::executions(db, ws, &f).await?,
            messages,
            llm_calls,
            sessions,
            errors,
            total_count: json!({ "messages": m_total, "llmCalls": l_total, "sessions": s_total, "errors": e_total }),
        })
    }
}

pub use super::export::ExportMonitoring;
pub use super::inflight::{GetInflightExecutions, StreamInflightExecutions};
