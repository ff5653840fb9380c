//! The plugin host (issue 17): LangBot's real plugin runtime (`lbp rt` from `langbot-plugin`
//! on PyPI) runs the test plugin `tests/fixtures/plugins/weather` (built with `lbp build`);
//! its Tools are called by the agent during http_bot turns driven by the scripted fake
//! model, and call the host back (storage, models, bots, proactive messages).

mod faults;
mod host_api;
mod management;
mod storage;
mod tools;
mod websocket;

use serde_json::Value;

use crate::helpers::fixtures::ToolRig;
use crate::helpers::plugins::WEATHER;
use crate::helpers::{ScriptedCall, TestApp, ToolScript};

/// A rig whose model calls `calls` in one round, on a host running plugins, with the weather
/// plugin installed and running.
async fn weather_rig(app: &TestApp, calls: Vec<ScriptedCall>) -> ToolRig {
    let rig = ToolRig::new(app, ToolScript::calls_then_results(calls)).await;
    app.install_weather(&rig.owner, None).await;
    app.plugin_running(&rig.owner, None, WEATHER).await;
    rig
}

/// The one `tool_calls` row named `name`.
#[track_caller]
fn row<'a>(rows: &'a [Value], name: &str) -> &'a Value {
    let found: Vec<&Value> = rows.iter().filter(|r| r["tool_name"] == name).collect();
    assert_eq!(found.len(), 1, "one {name} row in {rows:#?}");
    found[0]
}
