//! An external runtime over WebSocket (`plugin.runtime_ws_url`): the host connects with the
//! control token and runs the plugins the runtime has in its own `data/plugins`; a wrong
//! token is refused by the runtime (HTTP 401) and the status says so.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use super::row;
use crate::helpers::fixtures::ToolRig;
use crate::helpers::plugins::{python, weather_package, with_runtime, WEATHER};
use crate::helpers::{eventually, spawn_app_with, tool_call, ToolScript};

const TOKEN: &str = "test-control-token-0123456789abcdef";

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// `lbp rt` listening for its control connection on a port of its own, with the weather
/// plugin in its `data/plugins`; killed when dropped.
struct External {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Drop for External {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn external_runtime() -> External {
    let dir = tempfile::tempdir().expect("temp dir");
    let plugin = dir.path().join("data/plugins/tester__weather");
    langbot::plugins::package::unpack(&weather_package(), &plugin).expect("unpack");
    let port = free_port();
    let child = Command::new(python())
        .args([
            "-m",
            "langbot_plugin.cli.__init__",
            "rt",
            "--skip-deps-check",
        ])
        .args(["--ws-control-port", &port.to_string()])
        .args(["--ws-debug-port", &free_port().to_string()])
        .env("LANGBOT_PLUGIN_RUNTIME_CONTROL_TOKEN", TOKEN)
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start lbp rt");
    External {
        child,
        port,
        _dir: dir,
    }
}

#[tokio::test]
async fn an_external_runtime_is_reached_with_the_control_token() {
    let rt = external_runtime();
    let url = format!("ws://127.0.0.1:{}/control/ws", rt.port);
    let app = spawn_app_with(|s| {
        with_runtime(s);
        s.plugin.runtime_ws_url = Some(url.clone());
        s.plugin.runtime_control_token = Some(TOKEN.into());
    })
    .await;
    let rig = ToolRig::new(
        &app,
        ToolScript::calls_then_results(vec![tool_call(
            "w",
            "get_weather_alerts",
            json!({ "state": "TX" }),
        )]),
    )
    .await;
    app.install_weather(&rig.owner, None).await;
    app.plugin_running(&rig.owner, None, WEATHER).await;
    let reply = rig.answer(&app, "alice", "alerts in TX?").await;
    assert!(
        reply.contains("No active alerts for TX (asked by person_alice"),
        "{reply}"
    );
    let rows = rig.tool_calls(&app, "alice", 1).await;
    assert_eq!(row(&rows, "get_weather_alerts")["status"], "success");
}

#[tokio::test]
async fn a_wrong_control_token_is_reported() {
    let rt = external_runtime();
    let url = format!("ws://127.0.0.1:{}/control/ws", rt.port);
    let app = spawn_app_with(|s| {
        with_runtime(s);
        s.plugin.runtime_ws_url = Some(url.clone());
        s.plugin.runtime_control_token = Some("a-wrong-token-that-is-long-enough-000".into());
    })
    .await;
    let owner = app.init_owner().await;
    app.install_weather(&owner, None).await;
    // Until the runtime listens the connection is refused; then the upgrade is (401).
    let status = eventually("the upgrade refused", Duration::from_secs(60), || async {
        let res = app
            .call(
                &owner,
                None,
                Method::GET,
                "/api/v1/system/status/plugin-system",
                None,
            )
            .await;
        let data = res.data().clone();
        let refused = data["plugin_connector_error"]
            .as_str()
            .is_some_and(|e| e.contains("401"));
        if data["runtime_state"] == "failed" && refused {
            Ok(data)
        } else {
            Err(res.text)
        }
    })
    .await;
    let why = status["plugin_connector_error"]
        .as_str()
        .unwrap_or_default();
    assert!(why.contains("401") && why.contains(&url), "{status:#}");
}
