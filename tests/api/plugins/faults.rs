//! Faults: a plugin that raises, one that never answers (the host's call timeout), the
//! runtime killed in the middle of a call (the turn gets a tool error, not a hang, and the
//! host starts the runtime again), and a runtime that cannot start at all (the server runs
//! on and the status says why).

use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use super::{row, weather_rig};
use crate::helpers::plugins::{with_runtime, WEATHER};
use crate::helpers::{eventually, spawn_app_with, tool_call};

#[tokio::test]
async fn a_raising_plugin_and_a_silent_one_are_tool_errors() {
    let app = spawn_app_with(with_runtime).await;
    let rig = weather_rig(
        &app,
        vec![
            tool_call("x", "explode", json!({})),
            tool_call("s", "stall", json!({})),
            tool_call("w", "get_weather_alerts", json!({ "state": "CA" })),
        ],
    )
    .await;
    let started = std::time::Instant::now();
    let reply = rig.answer(&app, "alice", "try them").await;
    // The stalled call ends at the host's timeout (8 s here), not the runtime's 180 s.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    let rows = rig.tool_calls(&app, "alice", 3).await;
    let boom = row(&rows, "explode");
    assert_eq!(boom["status"], "error", "{boom:#}");
    assert!(
        boom["error_message"]
            .as_str()
            .is_some_and(|e| e.contains("kaboom")),
        "{boom:#}"
    );
    let stall = row(&rows, "stall");
    assert_eq!(stall["status"], "error", "{stall:#}");
    assert!(
        stall["error_message"]
            .as_str()
            .is_some_and(|e| e.contains("did not answer call_tool within 8 s")),
        "{stall:#}"
    );
    // The others in the same round still worked.
    assert_eq!(row(&rows, "get_weather_alerts")["status"], "success");
    assert!(
        reply.contains("Error: ") && reply.contains("No active alerts for CA"),
        "{reply}"
    );
}

/// The runtime of `app` (a child whose working directory is under its data dir).
fn runtime_pids(data_dir: &std::path::Path) -> Vec<u32> {
    let root = data_dir.join("plugin-runtime");
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cwd = std::fs::read_link(entry.path().join("cwd")).unwrap_or_default();
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cwd.starts_with(&root) && cmdline.contains(" rt -s") {
            pids.push(pid);
        }
    }
    pids
}

#[tokio::test]
async fn a_runtime_killed_mid_call_fails_the_call_and_is_restarted() {
    let app = spawn_app_with(with_runtime).await;
    let rig = weather_rig(&app, vec![tool_call("s", "stall", json!({}))]).await;
    let data_dir = app.state().settings.data_dir.clone();
    let pids = runtime_pids(&data_dir);
    assert_eq!(pids.len(), 1, "one runtime: {pids:?}");
    let (reply, ()) = tokio::join!(rig.answer(&app, "alice", "stall"), async {
        // The call is under way once the model answered; then the runtime dies.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &pids[0].to_string()])
            .status();
    });
    let rows = rig.tool_calls(&app, "alice", 1).await;
    let stall = row(&rows, "stall");
    assert_eq!(stall["status"], "error", "{stall:#}");
    assert!(
        stall["error_message"]
            .as_str()
            .is_some_and(|e| e.contains("closed")),
        "the call failed because the runtime went away: {stall:#}"
    );
    assert!(reply.contains("Error: "), "{reply}");
    // The host starts it again, and the plugin works.
    app.plugin_running(&rig.owner, None, WEATHER).await;
    let again = eventually("a new runtime", Duration::from_secs(30), || async {
        let now = runtime_pids(&data_dir);
        if now.len() == 1 && now[0] != pids[0] {
            Ok(now)
        } else {
            Err(format!("{now:?}"))
        }
    })
    .await;
    assert_ne!(again, pids);
}

#[tokio::test]
async fn a_runtime_that_cannot_start_is_reported_and_the_server_runs_on() {
    let app = spawn_app_with(|s| {
        with_runtime(s);
        s.plugin.runtime_python = "/nonexistent/python3".into();
    })
    .await;
    let owner = app.init_owner().await;
    app.install_weather(&owner, None).await;
    let status = eventually("the runtime failing", Duration::from_secs(30), || async {
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
        if data["runtime_state"] == "failed" {
            Ok(data)
        } else {
            Err(res.text)
        }
    })
    .await;
    assert_eq!(status["is_enable"], true);
    assert_eq!(status["is_connected"], false);
    assert!(
        status["plugin_connector_error"]
            .as_str()
            .is_some_and(|e| e.contains("/nonexistent/python3")),
        "{status:#}"
    );
    // Everything else works; the plugin is listed, not running.
    let res = app
        .call(&owner, None, Method::GET, "/api/v1/plugins", None)
        .await;
    assert_eq!(
        res.data()["plugins"][0]["status"],
        "unmounted",
        "{}",
        res.text
    );
    let res = app
        .call(&owner, None, Method::GET, "/api/v1/pipelines", None)
        .await;
    assert_eq!(res.status, 200);
}
