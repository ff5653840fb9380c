//! A pipeline's tool-source bindings (`extensions_preferences`), read and written in
//! LangBot's `bound_*` / `enable_all_*` shape.

use sea_orm::{ActiveModelTrait, ActiveValue::Set, ConnectionTrait};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::dto::{ExtensionsPreferences, PluginRef};
use crate::entities::pipeline;
use crate::error::{ApiError, ApiResult};
use crate::mcp_servers::dto::McpServer;

/// The stored preferences, LangBot's normalization on read: a missing flag is true, a
/// malformed list is empty with its flag off, a non-object is everything off.
pub fn stored(row: &pipeline::Model) -> ExtensionsPreferences {
    let raw = &row.extensions_preferences;
    let Some(map) = raw.as_object() else {
        return ExtensionsPreferences {
            enable_all_plugins: false,
            enable_all_mcp_servers: false,
            enable_all_skills: false,
            mcp_resource_agent_read_enabled: false,
            ..ExtensionsPreferences::default()
        };
    };
    let flag = |k: &str| map.get(k).and_then(Value::as_bool).unwrap_or(true);
    let list = |k: &str| -> Option<Vec<Value>> {
        match map.get(k) {
            None => Some(Vec::new()),
            Some(Value::Array(items)) => Some(items.clone()),
            Some(_) => None,
        }
    };
    let strings = |k: &str| {
        list(k).map(|l| {
            l.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect::<Vec<_>>()
        })
    };
    let plugins = list("plugins").map(|l| {
        l.into_iter()
            .filter_map(|v| serde_json::from_value::<PluginRef>(v).ok())
            .collect::<Vec<_>>()
    });
    let resources = list("mcp_resources").map(|l| {
        l.into_iter()
            .filter_map(|v| v.as_object().cloned())
            .collect::<Vec<_>>()
    });
    let servers = strings("mcp_servers");
    let skills = strings("skills");
    ExtensionsPreferences {
        enable_all_plugins: flag("enable_all_plugins") && plugins.is_some(),
        enable_all_mcp_servers: flag("enable_all_mcp_servers") && servers.is_some(),
        enable_all_skills: flag("enable_all_skills") && skills.is_some(),
        mcp_resource_agent_read_enabled: flag("mcp_resource_agent_read_enabled")
            && resources.is_some(),
        plugins: plugins.unwrap_or_default(),
        mcp_servers: servers.unwrap_or_default(),
        skills: skills.unwrap_or_default(),
        mcp_resources: resources.unwrap_or_default(),
    }
}

/// `GET /pipelines/{uuid}/extensions`.
#[derive(Debug, Serialize, ToSchema)]
pub struct PipelineExtensions {
    pub enable_all_plugins: bool,
    pub enable_all_mcp_servers: bool,
    pub enable_all_skills: bool,
    pub mcp_resource_agent_read_enabled: bool,
    pub bound_plugins: Vec<PluginRef>,
    /// Server uuids (used when `enable_all_mcp_servers` is false).
    pub bound_mcp_servers: Vec<String>,
    pub bound_skills: Vec<String>,
    #[schema(value_type = Vec<Object>)]
    pub bound_mcp_resources: Vec<serde_json::Map<String, Value>>,
    /// Installed plugins with a Tool, Command or EventListener component (LangBot's plugin
    /// object).
    #[schema(value_type = Vec<Object>)]
    pub available_plugins: Vec<Value>,
    pub available_mcp_servers: Vec<McpServer>,
    #[schema(value_type = Vec<Object>)]
    pub available_skills: Vec<Value>,
}

impl PipelineExtensions {
    pub fn of(p: ExtensionsPreferences, servers: Vec<McpServer>) -> Self {
        Self {
            enable_all_plugins: p.enable_all_plugins,
            enable_all_mcp_servers: p.enable_all_mcp_servers,
            enable_all_skills: p.enable_all_skills,
            mcp_resource_agent_read_enabled: p.mcp_resource_agent_read_enabled,
            bound_plugins: p.plugins,
            bound_mcp_servers: p.mcp_servers,
            bound_skills: p.skills,
            bound_mcp_resources: p.mcp_resources,
            available_plugins: Vec::new(),
            available_mcp_servers: servers,
            available_skills: Vec::new(),
        }
    }
}

/// `PUT /pipelines/{uuid}/extensions`: missing flags are true, missing lists empty;
/// `bound_mcp_resources` and `mcp_resource_agent_read_enabled` stay when absent.
#[derive(Debug, Deserialize, ToSchema, validator::Validate)]
#[serde(deny_unknown_fields)]
#[schema(as = UpdatePipelineExtensions)]
pub struct UpdateExtensionsBody {
    pub bound_plugins: Option<Vec<Value>>,
    pub bound_mcp_servers: Option<Vec<Value>>,
    pub bound_skills: Option<Vec<Value>>,
    #[schema(value_type = Option<Vec<Object>>)]
    pub bound_mcp_resources: Option<Vec<Value>>,
    pub enable_all_plugins: Option<bool>,
    pub enable_all_mcp_servers: Option<bool>,
    pub enable_all_skills: Option<bool>,
    pub mcp_resource_agent_read_enabled: Option<bool>,
}

fn bad(field: String, why: &str) -> ApiError {
    ApiError::invalid(format!("Pipeline extension field '{field}' {why}"))
        .field(field, why.to_string())
}

/// Checks the body against the Workspace's servers (`server_uuids`) and applies it.
pub fn apply(
    current: &ExtensionsPreferences,
    body: UpdateExtensionsBody,
    server_uuids: &[String],
) -> ApiResult<ExtensionsPreferences> {
    let mut plugins = Vec::new();
    for (i, p) in body
        .bound_plugins
        .unwrap_or_default()
        .into_iter()
        .enumerate()
    {
        let author = p["author"].as_str().map(str::trim).unwrap_or_default();
        let name = p["name"].as_str().map(str::trim).unwrap_or_default();
        if author.is_empty() || name.is_empty() {
            return Err(bad(
                format!("bound_plugins[{i}]"),
                "must be a plugin object with non-empty author and name",
            ));
        }
        plugins.push(PluginRef {
            author: author.into(),
            name: name.into(),
        });
    }
    let mut servers = Vec::new();
    for (i, s) in body
        .bound_mcp_servers
        .unwrap_or_default()
        .into_iter()
        .enumerate()
    {
        match s.as_str() {
            Some(uuid) if server_uuids.iter().any(|u| u == uuid) => servers.push(uuid.to_string()),
            _ => {
                return Err(bad(
                    format!("bound_mcp_servers[{i}]"),
                    "must be the uuid of an MCP server of this Workspace",
                ))
            }
        }
    }
    let mut skills = Vec::new();
    for (i, s) in body
        .bound_skills
        .unwrap_or_default()
        .into_iter()
        .enumerate()
    {
        match s.as_str().map(str::trim) {
            Some(name) if !name.is_empty() => skills.push(name.to_string()),
            _ => {
                return Err(bad(
                    format!("bound_skills[{i}]"),
                    "must be a non-empty string",
                ))
            }
        }
    }
    let resources = match body.bound_mcp_resources {
        None => current.mcp_resources.clone(),
        Some(items) => items
            .into_iter()
            .enumerate()
            .map(|(i, r)| match r {
                Value::Object(map) if map.get("enabled").is_none_or(Value::is_boolean) => Ok(map),
                _ => Err(bad(
                    format!("bound_mcp_resources[{i}]"),
                    "must be an object whose enabled is a boolean",
                )),
            })
            .collect::<ApiResult<Vec<_>>>()?,
    };
    Ok(ExtensionsPreferences {
        enable_all_plugins: body.enable_all_plugins.unwrap_or(true),
        enable_all_mcp_servers: body.enable_all_mcp_servers.unwrap_or(true),
        enable_all_skills: body.enable_all_skills.unwrap_or(true),
        mcp_resource_agent_read_enabled: body
            .mcp_resource_agent_read_enabled
            .unwrap_or(current.mcp_resource_agent_read_enabled),
        plugins,
        mcp_servers: servers,
        skills,
        mcp_resources: resources,
    })
}

pub async fn save(
    db: &impl ConnectionTrait,
    row: pipeline::Model,
    prefs: &ExtensionsPreferences,
) -> ApiResult<()> {
    let mut active: pipeline::ActiveModel = row.into();
    active.extensions_preferences = Set(serde_json::to_value(prefs).map_err(ApiError::internal)?);
    active.updated_at = Set(crate::db::now());
    active.update(db).await?;
    Ok(())
}

/// Whether a pipeline with these preferences may use a server.
pub fn allows_server(p: &ExtensionsPreferences, uuid: &str) -> bool {
    p.enable_all_mcp_servers || p.mcp_servers.iter().any(|u| u == uuid)
}

/// Whether a pipeline with these preferences may use plugin `author/name`.
pub fn allows_plugin(p: &ExtensionsPreferences, author: &str, name: &str) -> bool {
    p.enable_all_plugins
        || p.plugins
            .iter()
            .any(|r| r.author == author && r.name == name)
}
