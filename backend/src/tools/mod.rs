//! The tools a run may call, resolved from its pipeline's bindings (MCP servers today;
//! plugins join the same set), offered to the model in OpenAI function format, and called.
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
use utoipa::ToSchema;

use crate::access::WorkspaceCtx;
use crate::error::ApiResult;
use crate::llm::ToolSpec;
use crate::mcp_client::{CallOutcome, Env, McpHub, Slot};
use crate::pipelines::dto::ExtensionsPreferences;
use crate::pipelines::extensions::allows_server;
use crate::state::AppState;

/// How long a run waits for a server that is still connecting before going on without it.
const READY_WAIT: Duration = Duration::from_secs(10);
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
    /// `mcp`.
    pub source: String,
    /// The server's name.
    pub source_name: String,
    /// The server's uuid.
    pub source_id: String,
}

/// The resolved tools of one run.
#[derive(Default, Clone)]
pub struct ToolSet {
    tools: Vec<(OfferedTool, Option<Arc<Slot>>)>,
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
        let mut found: Vec<(OfferedTool, Option<Arc<Slot>>)> = Vec::new();
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
                            Some(slot.clone()),
                        ));
                    }
                }
                Err(f) => {
                    tracing::warn!(server = %name, error.code = %f.code, "MCP server unavailable; its tools are not offered")
                }
            }
        }
        Ok(Self::named(found, Some((hub, env))))
    }

    fn named(
        mut found: Vec<(OfferedTool, Option<Arc<Slot>>)>,
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
    pub async fn call(&self, name: &str, arguments: &str) -> ToolRun {
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
        let (Some(slot), Some((hub, env))) = (slot, &self.env) else {
            run.text = "the tool's source is gone".into();
            return run;
        };
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

/// For tests of the naming rule.
#[cfg(test)]
fn fake(name: &str, source: &str) -> (OfferedTool, Option<Arc<Slot>>) {
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
        let unknown = set.call("nope", "{}").await;
        assert!(!unknown.ok && unknown.tool.is_none());
        let bad = set.call("echo", "{\"text\":").await;
        assert!(!bad.ok && bad.text.contains("not valid JSON"));
        let array = set.call("echo", "[1]").await;
        assert!(!array.ok && array.text.contains("JSON object"));
    }

    #[test]
    fn long_names_stay_within_the_limit() {
        let long = "x".repeat(80);
        let set = ToolSet::named(vec![fake("echo", &long), fake("echo", "b")], None);
        assert!(set.offered().iter().all(|t| t.name.len() <= NAME_MAX));
    }
}
