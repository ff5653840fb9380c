//! `runtime_info`: how one server's session is doing on this replica (LangBot's fields).

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::hub::SlotState;
use super::session::ToolInfo;
use crate::forms::secrets;

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RuntimeInfo {
    /// `connecting`, `connected` or `error`.
    pub status: String,
    pub error_message: Option<String>,
    /// `http_<status>`, `connection_timeout`, `connection_unreachable`, `process_start`,
    /// `mcp_init`, `runtime_error`.
    pub error_code: Option<String>,
    /// Attempts made in the current connection round.
    pub retry_count: u32,
    /// `streamable-http`, `sse` or `stdio` once connected.
    pub transport: Option<String>,
    pub tool_count: usize,
    pub tools: Vec<ToolInfo>,
    pub resource_count: usize,
    #[schema(value_type = Vec<Object>)]
    pub resources: Vec<Value>,
    pub resource_template_count: usize,
    #[schema(value_type = Vec<Object>)]
    pub resource_templates: Vec<Value>,
    #[schema(value_type = Object)]
    pub resource_capabilities: Value,
    pub connected_at: Option<DateTime<Utc>>,
}

impl RuntimeInfo {
    pub fn of(state: &SlotState, retry_count: u32, hidden: &[String]) -> Self {
        let mut info = Self {
            status: "connecting".into(),
            error_message: None,
            error_code: None,
            retry_count,
            transport: None,
            tool_count: 0,
            tools: Vec::new(),
            resource_count: 0,
            resources: Vec::new(),
            resource_template_count: 0,
            resource_templates: Vec::new(),
            resource_capabilities: Value::Object(Default::default()),
            connected_at: None,
        };
        match state {
            SlotState::Connecting => {}
            SlotState::Connected(live) => {
                info.status = "connected".into();
                info.transport = Some(live.transport.into());
                info.tool_count = live.tools.len();
                info.tools = live.tools.clone();
                info.resource_count = live.resources.len();
                info.resources = live.resources.clone();
                info.resource_template_count = live.resource_templates.len();
                info.resource_templates = live.resource_templates.clone();
                info.resource_capabilities = live.resource_capabilities.clone();
                info.connected_at = Some(live.connected_at);
            }
            SlotState::Failed(f) => {
                info.status = "error".into();
                info.error_code = Some(f.code.clone());
                // Upstream text may echo a header or env value: never show those.
                info.error_message = Some(secrets::scrub(&f.message, hidden));
            }
        }
        info
    }
}
