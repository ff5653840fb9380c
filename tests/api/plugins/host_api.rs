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
    assert_eq!(host["tools"].as_array().map(Vec::len), Some(9), "{host:#}");
    assert!(reply.contains("results:"), "{reply}");
}

/// `send_message` to a bot on a chat platform goes out through its adapter: here a Telegram
/// bot on the fake Bot API gets the plugin's message for chat 42.
#[tokio::test]
async fn send_message_goes_out_through_a_platform_adapter() {
    let app = spawn_app_with(with_runtime).await;
    let tg = crate::helpers::fakes::telegram::FakeTelegram::start("123:good").await;
    let rig =
        crate::helpers::fixtures::ToolRig::new(&app, crate::helpers::ToolScript::new(vec![])).await;
    let telegram = app
        .create_bot(
            &rig.owner,
            None,
            &json!({ "name": "tg", "adapter": "telegram", "enable": true, "adapter_config": tg.config() }),
        )
        .await;
    rig.fake.reset().await;
    rig.fake
        .mount_tool_script(crate::helpers::ToolScript::calls_then_results(vec![
            tool_call(
                "n",
                "notify",
                json!({ "bot_uuid": telegram, "target_id": "42", "text": "proactive hello" }),
            ),
        ]))
        .await;
    app.install_weather(&rig.owner, None).await;
    app.plugin_running(&rig.owner, None, crate::helpers::plugins::WEATHER)
        .await;

    rig.answer(&app, "alice", "tell them").await;
    let rows = rig.tool_calls(&app, "alice", 1).await;
    assert_eq!(row(&rows, "notify")["status"], "success", "{rows:#?}");
    let sent = tg.wait_sent_to(42, 1).await;
    assert_eq!(sent[0]["text"], "proactive hello", "{sent:#?}");
}

/// A file-typed config field: the file is uploaded (`POST /plugins/config-files`), its
/// `{file_key, mimetype}` saved in the config, and the plugin reads the bytes with
/// `get_config_file`. A deleted file is gone; a value that is no file is refused.
#[tokio::test]
async fn a_file_typed_config_field_is_read_by_the_plugin() {
    let app = spawn_app_with(with_runtime).await;
    let rig = weather_rig(&app, vec![tool_call("d", "read_document", json!({}))]).await;
    let res = app
        .upload_config_file(&rig.owner, None, "notes.txt", b"the forecast says sun")
        .await;
    assert_eq!(res.status, 200, "{}", res.text);
    let key = res.data()["file_key"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(uuid::Uuid::parse_str(&key).is_ok(), "{key}");

    let config = "/api/v1/plugins/tester/weather/config";
    let bad = app
        .send_as(
            &rig.owner,
            reqwest::Method::PUT,
            config,
            &json!({ "document": "notes.txt" }),
        )
        .await;
    assert_eq!(bad.status, 400, "{}", bad.text);
    assert_eq!(bad.body["code"], "invalid_request", "{}", bad.text);
    let saved = app
        .send_as(
            &rig.owner,
            reqwest::Method::PUT,
            config,
            &json!({ "greeting": "hello", "document": { "file_key": key, "mimetype": "text/plain" } }),
        )
        .await;
    assert_eq!(saved.status, 200, "{}", saved.text);
    // The config change reaches the runtime (the plugin is restarted with it).
    app.plugin_running(&rig.owner, None, crate::helpers::plugins::WEATHER)
        .await;

    rig.answer(&app, "alice", "read it").await;
    let rows = rig.tool_calls(&app, "alice", 1).await;
    assert_eq!(
        row(&rows, "read_document")["result"],
        "text/plain: the forecast says sun",
        "{rows:#?}"
    );

    let path = format!("/api/v1/plugins/config-files/{key}");
    let res = app
        .call(&rig.owner, None, reqwest::Method::DELETE, &path, None)
        .await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(res.data()["deleted"], true);
    let res = app
        .call(&rig.owner, None, reqwest::Method::DELETE, &path, None)
        .await;
    assert_eq!(res.status, 404, "{}", res.text);
}

/// `invoke_llm_stream` and `reasoning_level`: a plugin streams an answer from the fake model
/// and names reasoning levels, which reach the model as its protocol's field
/// (`reasoning_effort`) over the model's stored level; a level the model does not offer is
/// refused before any call. The turn itself runs at the model's stored level.
#[tokio::test]
async fn a_plugin_streams_from_a_model_at_a_reasoning_level() {
    let app = spawn_app_with(with_runtime).await;
    let rig = crate::helpers::fixtures::ToolRig::build(
        &app,
        crate::helpers::ToolScript::calls_then_results(vec![
            tool_call(
                "s",
                "ask_model",
                json!({ "question": "stream it", "stream": true, "reasoning_level": "high" }),
            ),
            tool_call(
                "p",
                "ask_model",
                json!({ "question": "plainly", "reasoning_level": "disabled" }),
            ),
            tool_call(
                "x",
                "ask_model",
                json!({ "question": "too far", "reasoning_level": "max" }),
            ),
        ]),
        None,
        &["func_call", "reasoning"],
    )
    .await;
    let models = app
        .get_as(&rig.owner, "/api/v1/provider/models/llm")
        .await
        .data()["models"]
        .clone();
    let model = models[0]["uuid"].as_str().unwrap_or_default().to_string();
    let res = app
        .send_as(
            &rig.owner,
            reqwest::Method::PUT,
            &crate::helpers::fixtures::model_path("llm", &model),
            &json!({ "reasoning_config": { "level": "medium" } }),
        )
        .await;
    assert_eq!(res.status, 200, "{}", res.text);
    app.install_weather(&rig.owner, None).await;
    app.plugin_running(&rig.owner, None, crate::helpers::plugins::WEATHER)
        .await;

    rig.answer(&app, "alice", "think about it").await;
    let rows = rig.tool_calls(&app, "alice", 3).await;
    let results: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                r["status"],
                r["result"].as_str().unwrap_or_default()
            )
        })
        .collect();
    let has = |prefix: &str| results.iter().any(|r| r.starts_with(prefix));
    assert!(
        has("\"success\" the model streamed: final without tools"),
        "{results:#?}"
    );
    assert!(
        has("\"success\" the model said: final without tools"),
        "{results:#?}"
    );
    let refused = rows
        .iter()
        .find(|r| r["status"] != "success")
        .map(|r| r.to_string())
        .unwrap_or_default();
    assert!(
        refused.contains("Reasoning level") && refused.contains("is not supported by model"),
        "{rows:#?}"
    );

    // What the fake model received: the plugin's calls offer no tools, the turn's do.
    let sent = rig.fake.received().await;
    let plugin_calls: Vec<&serde_json::Value> = sent
        .iter()
        .map(|r| &r.body)
        .filter(|b| b["tools"].as_array().is_none_or(|t| t.is_empty()))
        .collect();
    let effort_of = |question: &str| {
        plugin_calls
            .iter()
            .find(|b| b["messages"].to_string().contains(question))
            .map(|b| (b["reasoning_effort"].clone(), b["stream"] == true))
    };
    assert_eq!(
        effort_of("stream it"),
        Some((json!("high"), true)),
        "{plugin_calls:#?}"
    );
    assert_eq!(effort_of("plainly"), Some((json!("none"), false)));
    assert_eq!(effort_of("too far"), None, "refused before any call");
    let turn = sent
        .iter()
        .find(|r| r.body["tools"].as_array().is_some_and(|t| !t.is_empty()))
        .map(|r| r.body["reasoning_effort"].clone());
    assert_eq!(turn, Some(json!("medium")), "the model's stored level");
}
