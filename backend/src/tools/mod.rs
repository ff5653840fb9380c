//! The tools a run may call, resolved from its pipeline's bindings (MCP servers and the
//! Tool components of plugins), offered to the model in OpenAI function format, and called.
//!
//! Name rule (visible in `GET /tools`): a name offered by one source keeps it; when several
//! sources offer the same name, every copy is offered as `<source>__<name>` instead, so
//! nothing is hidden and the model can tell them apart.

pub mod ops;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value};
use sha2::Digest;
use utoipa::ToSchema;

use crate::access::WorkspaceCtx;
use crate::error::ApiResult;
use crate::llm::ToolSpec;
use crate::mcp_client::{CallOutcome, Env, McpHub, Slot};
use crate::pipelines::dto::ExtensionsPreferences;
use crate::pipelines::extensions::{allows_plugin, allows_server};
use crate::plugins::runtime::Live;
use crate::state::AppState;

/// How long a run waits for a server that is still connecting before going on without it.
const READY_WAIT: Duration = Duration::from_secs(10);
/// How long a run waits for the Workspace's plugin runtime (a restart after a change takes
/// several seconds: Python starts, then each plugin's worker).
const PLUGINS_WAIT: Duration = Duration::from_secs(45);

/// Where a tool runs.
#[derive(Clone)]
enum Source {
    Mcp(Arc<Slot>),
    /// The runtime and the call timeout (`plugin.tool_call_timeout`).
    Plugin(Arc<Live>, Duration),
}

/// The conversation a call belongs to (plugins receive it with each call).
#[derive(Debug, Clone, Default)]
pub struct CallCtx {
    /// LangBot's `provider_session.Session` shape.
    pub session: Value,
    pub query_id: i64,
    pub query_uuid: String,
}

impl CallCtx {
    /// From a run's records scope: its session id is `<launcher_type>_<launcher_id>`.
    pub fn of_run(session_id: &str, bot_uuid: &str, execution_id: &str) -> Self {
        let (kind, id) = session_id.split_once('_').unwrap_or(("person", session_id));
        let kind = if kind == "group" { "group" } else { "person" };
        // A stable integer id for the turn (LangBot's query ids are integers).
        let digest = sha2::Sha256::digest(execution_id.as_bytes());
        let query_id = i64::from_be_bytes([
            0,
            0,
            digest[0] & 0x1f,
            digest[1],
            digest[2],
            digest[3],
            digest[4],
            digest[5],
        ]);
        Self {
            session: serde_json::json!({
                "launcher_type": kind, "launcher_id": id, "sender_id": id, "bot_uuid": bot_uuid,
            }),
            query_id,
            query_uuid: execution_id.to_string(),
        }
    }

    /// From a plugin's own `call_tool` request.
    pub fn from_plugin(data: &Value) -> Self {
        Self {
            session: data
                .get("session")
                .filter(|s| s.is_object())
                .cloned()
                .unwrap_or_else(
                    || serde_json::json!({"launcher_type": "person", "launcher_id": "plugin"}),
                ),
            query_id: data["query_id"].as_i64().unwrap_or(0),
            query_uuid: data["query_uuid"].as_str().unwrap_or_default().to_string(),
        }
    }
}
/// OpenAI's limit on function names.
const NAME_MAX: usize = 64;

/// A tool as offered to the model.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OfferedTool {
    /// The name the model sees.
    pub name: String,
    /// The name at its source (differs when two sources offer the same name).
    pub original_name: String,
    pub description: String,
    #[schema(value_type = Object)]
    pub parameters: Value,
    /// `mcp` or `plugin`.
    pub source: String,
    /// The server's name, or the plugin's `author/name`.
    pub source_name: String,
    /// The server's uuid, or the plugin's `author/name`.
    pub source_id: String,
}

/// The resolved tools of one run.
#[derive(Default, Clone)]
pub struct ToolSet {
    tools: Vec<(OfferedTool, Option<Source>)>,
    env: Option<(Arc<McpHub>, Env)>,
}

/// One call's outcome, for the model and the records.
#[derive(Debug, Clone)]
pub struct ToolRun {
    pub tool: Option<OfferedTool>,
    pub requested_name: String,
    pub arguments: String,
    pub ok: bool,
    /// The result text, or the error text.
    pub text: String,
    pub duration: Duration,
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn cut(name: String) -> String {
    name.chars().take(NAME_MAX).collect()
}

impl ToolSet {
    /// The tools of the servers the preferences allow, waiting briefly for any still connecting.
    pub async fn resolve(
        state: &AppState,
        ws: &WorkspaceCtx,
        prefs: &ExtensionsPreferences,
    ) -> ApiResult<Self> {
        let rows = crate::mcp_servers::service::list(&state.db, ws).await?;
        let (hub, env) = crate::mcp_servers::service::hub(state);
        let mut slots = Vec::new();
        for row in rows
            .iter()
            .filter(|r| r.enable && allows_server(prefs, &r.uuid))
        {
            crate::mcp_servers::service::sync(state, row);
            if let Some(slot) = hub.get(&row.uuid) {
                slots.push((row.name.clone(), slot));
            }
        }
        let ready =
            futures_util::future::join_all(slots.into_iter().map(|(name, slot)| async move {
                let wait = slot.config.connect_timeout.min(READY_WAIT);
                let live = slot.ready(wait).await;
                (name, slot, live)
            }))
            .await;
        let mut found: Vec<(OfferedTool, Option<Source>)> = Vec::new();
        for (name, slot, live) in ready {
            match live {
                Ok(live) => {
                    for t in &live.tools {
                        found.push((
                            OfferedTool {
                                name: t.name.clone(),
                                original_name: t.name.clone(),
                                description: t.description.clone(),
                                parameters: t.parameters.clone(),
                                source: "mcp".into(),
                                source_name: name.clone(),
                                source_id: slot.config.uuid.clone(),
                            },
                            Some(Source::Mcp(slot.clone())),
                        ));
                    }
                }
                Err(f) => {
                    tracing::warn!(server = %name, error.code = %f.code, "MCP server unavailable; its tools are not offered")
                }
            }
        }
        found.extend(plugin_tools(state, ws, prefs).await?);
        Ok(Self::named(found, Some((hub, env))))
    }

    fn named(
        mut found: Vec<(OfferedTool, Option<Source>)>,
        env: Option<(Arc<McpHub>, Env)>,
    ) -> Self {
        let mut counts: HashMap<String, usize> = HashMap::new();
        for (t, _) in &found {
            *counts.entry(t.original_name.clone()).or_default() += 1;
        }
        for (t, _) in &mut found {
            if counts[&t.original_name] > 1 {
                // The source part gives way, so the tool's own name survives the cut.
                let room = NAME_MAX.saturating_sub(t.original_name.chars().count() + 2);
                let source: String = sanitize(&t.source_name).chars().take(room).collect();
                t.name = cut(format!("{source}__{}", t.original_name));
            }
        }
        found.sort_by(|a, b| {
            a.0.name
                .cmp(&b.0.name)
                .then(a.0.source_id.cmp(&b.0.source_id))
        });
        Self { tools: found, env }
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    pub fn offered(&self) -> Vec<OfferedTool> {
        self.tools.iter().map(|(t, _)| t.clone()).collect()
    }

    /// The functions for the model.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
            .iter()
            .map(|(t, _)| ToolSpec {
                name: t.name.clone(),
                description: t.description.clone(),
                parameters: if t.parameters.is_object() {
                    t.parameters.clone()
                } else {
                    serde_json::json!({"type": "object", "properties": {}})
                },
            })
            .collect()
    }

    /// Calls one tool the model asked for; failures are outcomes, never errors.
    pub async fn call(&self, name: &str, arguments: &str, ctx: &CallCtx) -> ToolRun {
        let started = Instant::now();
        let mut run = ToolRun {
            tool: None,
            requested_name: name.to_string(),
            arguments: arguments.to_string(),
            ok: false,
            text: String::new(),
            duration: Duration::ZERO,
        };
        let Some((tool, slot)) = self.tools.iter().find(|(t, _)| t.name == name) else {
            run.text = format!("no tool is named {name:?}");
            return run;
        };
        run.tool = Some(tool.clone());
        let args: Map<String, Value> = match arguments.trim() {
            "" => Map::new(),
            raw => match serde_json::from_str::<Value>(raw) {
                Ok(Value::Object(map)) => map,
                Ok(_) => {
                    run.text = "the arguments must be a JSON object".into();
                    return run;
                }
                Err(e) => {
                    run.text = format!("the arguments are not valid JSON: {e}");
                    return run;
                }
            },
        };
        let slot = match (slot, &self.env) {
            (Some(Source::Mcp(slot)), Some((hub, env))) => (slot, hub, env),
            (Some(Source::Plugin(live, timeout)), _) => {
                match crate::plugins::hub::call_tool(
                    *timeout,
                    live,
                    &tool.original_name,
                    Value::Object(args),
                    ctx.session.clone(),
                    ctx.query_id,
                    &ctx.query_uuid,
                )
                .await
                {
                    Ok(v) => {
                        run.ok = true;
                        run.text = match v {
                            Value::String(s) => s,
                            other => other.to_string(),
                        };
                    }
                    Err(e) => run.text = e,
                }
                run.duration = started.elapsed();
                return run;
            }
            _ => {
                run.text = "the tool's source is gone".into();
                return run;
            }
        };
        let (slot, hub, env) = slot;
        match hub.call(env, slot, &tool.original_name, args).await {
            CallOutcome::Ok(text) => {
                run.ok = true;
                run.text = text;
            }
            CallOutcome::Err { message, .. } => {
                run.text = crate::forms::secrets::scrub(&message, &slot.config.secrets());
            }
        }
        run.duration = started.elapsed();
        run
    }
}

/// The Tool components of the Workspace's enabled plugins the preferences allow (waiting for
/// its runtime when it is starting); none when the plugin system is off or unavailable.
async fn plugin_tools(
    state: &AppState,
    ws: &WorkspaceCtx,
    prefs: &ExtensionsPreferences,
) -> ApiResult<Vec<(OfferedTool, Option<Source>)>> {
    let rows = crate::plugins::service::list(&state.db, ws).await?;
    let allowed: Vec<String> = rows
        .iter()
        .filter(|r| r.enabled && allows_plugin(prefs, &r.plugin_author, &r.plugin_name))
        .map(|r| format!("{}/{}", r.plugin_author, r.plugin_name))
        .collect();
    if allowed.is_empty() {
        return Ok(Vec::new());
    }
    let live = match crate::plugins::hub(state)
        .live(state, ws, PLUGINS_WAIT)
        .await?
    {
        Ok(live) => live,
        Err(why) => {
            tracing::warn!(error = %why, "plugin runtime unavailable; plugin tools are not offered");
            return Ok(Vec::new());
        }
    };
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for t in &live.tools {
        let owner = t["owner"].as_str().unwrap_or_default().to_string();
        let m = &t["manifest"];
        let name = m["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if name.is_empty()
            || !allowed.contains(&owner)
            || !seen.insert((owner.clone(), name.clone()))
        {
            continue;
        }
        out.push((
            OfferedTool {
                name: name.clone(),
                original_name: name,
                description: m["spec"]["llm_prompt"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                parameters: m["spec"]["parameters"].clone(),
                source: "plugin".into(),
                source_name: owner.clone(),
                source_id: owner,
            },
            Some(Source::Plugin(
                live.clone(),
                state.settings.plugin.tool_call_timeout,
            )),
        ));
    }
    Ok(out)
}

/// For tests of the naming rule.
#[cfg(test)]
fn fake(name: &str, source: &str) -> (OfferedTool, Option<Source>) {
    (
        OfferedTool {
            name: name.into(),
            original_name: name.into(),
            description: String::new(),
            parameters: Value::Null,
            source: "mcp".into(),
            source_name: source.into(),
            source_id: source.into(),
        },
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_name_is_prefixed_for_every_copy() {
        let set = ToolSet::named(
            vec![fake("echo", "a b"), fake("echo", "c"), fake("sleep", "c")],
            None,
        );
        let names: Vec<String> = set.offered().into_iter().map(|t| t.name).collect();
        assert_eq!(names, ["a_b__echo", "c__echo", "sleep"]);
        assert!(set.specs().iter().all(|s| s.parameters.is_object()));
    }

    #[tokio::test]
    async fn unknown_tools_and_bad_arguments_are_outcomes() {
        let set = ToolSet::named(vec![fake("echo", "a")], None);
        let ctx = CallCtx::default();
        let unknown = set.call("nope", "{}", &ctx).await;
        assert!(!unknown.ok && unknown.tool.is_none());
        let bad = set.call("echo", "{\"text\":", &ctx).await;
        assert!(!bad.ok && bad.text.contains("not valid JSON"));
        let array = set.call("echo", "[1]", &ctx).await;
        assert!(!array.ok && array.text.contains("JSON object"));
    }

    #[test]
    fn long_names_stay_within_the_limit() {
        let long = "x".repeat(80);
        let set = ToolSet::named(vec![fake("echo", &long), fake("echo", "b")], None);
        assert!(set.offered().iter().all(|t| t.name.len() <= NAME_MAX));
    }
}
