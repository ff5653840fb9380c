//! This replica's plugin runtimes, one per Workspace with enabled plugins, kept in step with
//! the database: every use compares the installed set the database wants with what the
//! runtime runs, so an install or config change on any replica reaches this one too.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use uuid::Uuid;

use super::conn::CallError;
use super::runtime::{Live, Phase, Runtime};
use super::service;
use crate::access::WorkspaceCtx;
use crate::error::ApiResult;
use crate::state::AppState;

#[derive(Default)]
pub struct PluginHub {
    runtimes: Mutex<HashMap<Uuid, Arc<Runtime>>>,
}

/// How the plugin system of one Workspace stands on this replica.
pub enum Standing {
    /// `plugin.enable` is off.
    Disabled,
    /// No enabled plugin: no runtime needed.
    Idle,
    Running(Arc<Runtime>),
}

pub fn hub(state: &AppState) -> Arc<PluginHub> {
    state.parts.get::<PluginHub>()
}

impl PluginHub {
    /// Starts, restarts or stops the Workspace's runtime as the database wants.
    pub async fn sync(&self, state: &AppState, ws: &WorkspaceCtx) -> ApiResult<Standing> {
        if !state.settings.plugin.enable {
            return Ok(Standing::Disabled);
        }
        let wanted = service::wanted(&state.db, ws).await?;
        let mut runtimes = self.runtimes.lock().unwrap_or_else(|p| p.into_inner());
        if wanted.is_empty() {
            if let Some(rt) = runtimes.remove(&ws.uuid) {
                rt.stop();
            }
            return Ok(Standing::Idle);
        }
        if let Some(rt) = runtimes.get(&ws.uuid) {
            rt.want(&wanted);
            return Ok(Standing::Running(rt.clone()));
        }
        let rt = Runtime::new(ws.uuid, wanted);
        runtimes.insert(ws.uuid, rt.clone());
        // Long-lived and stopping on its own: on the main runtime, untracked (like MCP sessions).
        state
            .tasks
            .handle()
            .spawn(rt.clone().supervise(state.clone(), ws.clone()));
        Ok(Standing::Running(rt))
    }

    /// The Workspace's runtime, ready with the wanted set, waiting up to `wait`.
    pub async fn live(
        &self,
        state: &AppState,
        ws: &WorkspaceCtx,
        wait: Duration,
    ) -> ApiResult<Result<Arc<Live>, String>> {
        Ok(match self.sync(state, ws).await? {
            Standing::Disabled => Err("the plugin system is disabled (plugin.enable)".into()),
            Standing::Idle => Err("no plugin is enabled".into()),
            Standing::Running(rt) => rt.ready(wait).await,
        })
    }

    pub fn get(&self, ws: &Uuid) -> Option<Arc<Runtime>> {
        self.runtimes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(ws)
            .cloned()
    }

    /// Stops every runtime (orderly: the supervisors end their children) and waits a little.
    pub async fn stop_all(&self) {
        let all: Vec<Arc<Runtime>> = self
            .runtimes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain()
            .map(|(_, rt)| rt)
            .collect();
        for rt in &all {
            rt.stop();
        }
        for rt in all {
            let _ = tokio::time::timeout(Duration::from_secs(8), async {
                while !matches!(rt.phase(), Phase::Stopped) {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            })
            .await;
        }
    }
}

/// Calls a plugin tool in the Workspace's runtime: the conversation's session and query id go
/// with it; a plugin error or a timeout is an `Err` with the reason.
pub async fn call_tool(
    timeout: Duration,
    live: &Live,
    tool: &str,
    params: Value,
    session: Value,
    query_id: i64,
    query_uuid: &str,
) -> Result<Value, String> {
    let data = json!({
        "tool_name": tool, "tool_parameters": params, "session": session,
        "query_id": query_id, "query_uuid": query_uuid, "include_plugins": null,
    });
    match live
        .conn
        .call("call_tool", data, Some(&live.binding), timeout)
        .await
    {
        Ok(v) => Ok(v.get("tool_response").cloned().unwrap_or(Value::Null)),
        Err(CallError::Refused(msg)) => Err(msg
            .strip_prefix("ActionCallError: ")
            .unwrap_or(&msg)
            .to_string()),
        Err(e) => Err(e.to_string()),
    }
}
