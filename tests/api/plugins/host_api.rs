//! The LangBot API for plugins, called by the plugin's Tools during a turn (side by side, as
//! the model asked for them in one answer): `invoke_llm` against the fake model, `get_bots` /
//! `get_bot_info`, `send_message` through an http_bot bot (the callback receiver gets it), and
//! the host version, config and tool list.

use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::{row, weather_rig};
use crate::helpers::plugins::with_runtime;
use crate::helpers::{spawn_app_with, tool_call};

#[tokio::test]
async fn plugin_tools_call_the_host_back() {
    let app = spawn_app_with(with_runtime).await;
    let receiver = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/cb"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&receiver)
        .await;
    // The bot the plugin sends through is made before the rig's turn script needs its uuid.
    let rig0 =
        crate::helpers::fixtures::ToolRig::new(&app, crate::helpers::ToolScript::new(vec![])).await;
    let notifier = app
        .create_bot(
            &rig0.owner,
            None,
            &json!({ "name": "notifier", "adapter": "http_bot", "enable": true, "adapter_config": {
                "inbound_secret": "notifier-secret", "callback_url": format!("{}/cb", receiver.uri()),
                "callback_timeout": 2, "callback_max_retries": 1 } }),
        )
        .await;
    // The rig's empty script gives way to the one naming the notifier.
    rig0.fake.reset().await;
    rig0.fake
        .mount_tool_script(crate::helpers::ToolScript::calls_then_results(vec![
            tool_call("m", "ask_model", json!({ "question": "what is 2+2?" })),
            tool_call("b", "bot_info", json!({})),
            tool_call(
                "n",
                "notify",
                json!({ "bot_uuid": notifier, "target_id": "bob", "text": "proactive hello" }),
            ),
            tool_call("h", "host_info", json!({})),
        ]))
        .await;
    app.install_weather(&rig0.owner, None).await;
    app.plugin_running(&rig0.owner, None, crate::helpers::plugins::WEATHER)
        .await;
    let rig = rig0;
    let _ = weather_rig; // the shared rig builder is used by the other suites

    let reply = rig.answer(&app, "alice", "use the host").await;
    let rows = rig.tool_calls(&app, "alice", 4).await;
    for name in ["ask_model", "bot_info", "notify", "host_info"] {
        assert_eq!(row(&rows, name)["status"], "success", "{name}: {rows:#?}");
    }
    // invoke_llm reached the fake model (asked without tools, it answers its fixed text).
    let asked = row(&rows, "ask_model")["result"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        asked.starts_with("the model said: final without tools"),
        "{asked}"
    );
    // get_bots / get_bot_info: both bots, the first with its webhook.
    let info: serde_json::Value =
        serde_json::from_str(row(&rows, "bot_info")["result"].as_str().unwrap_or("null"))
            .unwrap_or_default();
    let bots = info["bots"].as_array().cloned().unwrap_or_default();
    assert!(
        bots.contains(&json!(rig.bot)) && bots.contains(&json!(notifier)),
        "{info:#}"
    );
    assert!(
        info["first"]["adapter_runtime_values"]["webhook_full_url"]
            .as_str()
            .is_some_and(|u| u.contains("/bots/")),
        "{info:#}"
    );
    assert!(
        info["first"].get("adapter_config").is_none(),
        "no adapter config: {info:#}"
    );
    // send_message: the notifier's callback got the message for person bob.
    let got = receiver.received_requests().await.unwrap_or_default();
    let sent: Vec<serde_json::Value> = got
        .iter()
        .filter_map(|r| serde_json::from_slice(&r.body).ok())
        .collect();
    assert!(
        sent.iter().any(
            |b| b["session_id"] == "person_bob" && b["message"][0]["text"] == "proactive hello"
        ),
        "{sent:#?}"
    );
    // The host's version, the plugin's config (defaults) and the runtime's own tool list.
    let host: serde_json::Value =
        serde_json::from_str(row(&rows, "host_info")["result"].as_str().unwrap_or("null"))
            .unwrap_or_default();
    assert!(
        host["version"].as_str().is_some_and(|v| v.starts_with('v')),
        "{host:#}"
    );
    assert_eq!(host["config"]["greeting"], "hello", "{host:#}");
    assert_eq!(host["tools"].as_array().map(Vec::len), Some(8), "{host:#}");
    assert!(reply.contains("results:"), "{reply}");
}
