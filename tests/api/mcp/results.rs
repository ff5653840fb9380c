//! Results: `structuredContent` is the HTTP `data`, LangBot's result text, renamed arguments,
//! domain errors as `isError` results, redacted secrets.

use reqwest::Method;
use serde_json::{json, Value};

use super::{assert_invalid, create_llm_model, http_bot_data, setup, VIEW_SCOPES};
use crate::helpers::error_fields;
use crate::helpers::mcp::Mcp;

#[tokio::test]
async fn create_pipeline_then_get_pipeline_returns_the_http_data() {
    let (app, _, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    let created = mcp
        .ok(
            "create_pipeline",
            json!({ "pipeline_data": { "name": "Via MCP", "description": "made by a tool" } }),
        )
        .await;
    let uuid = created["uuid"].as_str().expect("uuid").to_string();
    assert_eq!(created, json!({ "uuid": uuid }));
    let result = mcp
        .call("get_pipeline", json!({ "pipeline_uuid": uuid }))
        .await;
    let http = mcp
        .http(Method::GET, &format!("/api/v1/pipelines/{uuid}"), None)
        .await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["structuredContent"], http);
    // The text is LangBot's result: the pipeline itself.
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, http["pipeline"]);
    assert_eq!(http["pipeline"]["name"], "Via MCP");
    assert_eq!(http["pipeline"]["description"], "made by a tool");
    // update_pipeline merges like HTTP PUT.
    let updated = mcp
        .ok(
            "update_pipeline",
            json!({ "pipeline_uuid": uuid, "pipeline_data": { "name": "Renamed" } }),
        )
        .await;
    assert_eq!(updated, json!({}));
    let after = mcp
        .ok("get_pipeline", json!({ "pipeline_uuid": uuid }))
        .await;
    assert_eq!(after["pipeline"]["name"], "Renamed");
    assert_eq!(after["pipeline"]["description"], "made by a tool");
    assert_eq!(after["pipeline"]["config"], http["pipeline"]["config"]);
}

#[tokio::test]
async fn a_bot_is_created_updated_read_and_deleted_through_tools() {
    let (app, _, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    let pipeline = mcp
        .ok(
            "create_pipeline",
            json!({ "pipeline_data": { "name": "Main", "is_default": true } }),
        )
        .await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let created = mcp
        .ok("create_bot", json!({ "bot_data": http_bot_data("Helper") }))
        .await;
    let uuid = created["uuid"].as_str().expect("bot uuid").to_string();
    assert_eq!(created, json!({ "uuid": uuid }));
    // (That get_bot's structuredContent is the HTTP data is checked by
    // `read_tools_return_the_http_data_of_their_operation`.)
    let got = mcp.ok("get_bot", json!({ "bot_uuid": uuid })).await;
    let bot = &got["bot"];
    assert_eq!(bot["name"], "Helper");
    assert_eq!(bot["adapter"], "http_bot");
    assert_eq!(bot["adapter_config"]["inbound_secret"], "***");
    assert_eq!(
        bot["adapter_config"]["callback_url"],
        "http://127.0.0.1:9/cb"
    );
    assert!(
        !got.to_string().contains("s3cret-inbound"),
        "the secret leaked: {got}"
    );
    let routes = bot["event_bindings"].as_array().expect("routes");
    assert_eq!(routes.len(), 2, "two default routes: {got}");
    assert!(routes.iter().all(|r| r["target_uuid"] == pipeline.as_str()));

    // update_bot: `***` keeps the stored secret; routes unchanged.
    let mut data = bot["adapter_config"].clone();
    data["callback_url"] = json!("http://127.0.0.1:9/other");
    let updated = mcp
        .ok(
            "update_bot",
            json!({ "bot_uuid": uuid, "bot_data": { "name": "Renamed", "adapter_config": data } }),
        )
        .await;
    assert_eq!(updated, json!({}));
    let after = mcp.ok("get_bot", json!({ "bot_uuid": uuid })).await;
    assert_eq!(after["bot"]["name"], "Renamed");
    assert_eq!(
        after["bot"]["adapter_config"]["callback_url"],
        "http://127.0.0.1:9/other"
    );
    assert_eq!(after["bot"]["adapter_config"]["inbound_secret"], "***");
    assert_eq!(after["bot"]["event_bindings"], bot["event_bindings"]);
    let listed = mcp.ok("list_bots", json!({})).await;
    assert_eq!(listed["total"], 1, "{listed}");
    assert_eq!(listed["bots"][0]["name"], "Renamed", "{listed}");
    // LangBot's result text: the array of bots, and the bot itself.
    assert_eq!(mcp.text("list_bots", json!({})).await, listed["bots"]);
    let one = mcp.text("get_bot", json!({ "bot_uuid": uuid })).await;
    assert_eq!(one["name"], "Renamed", "{one}");
    assert_eq!(
        one["adapter_runtime_values"]["webhook_url"],
        format!("/bots/{uuid}")
    );

    // delete_bot answers {"ok": true} (structuredContent {}) and the bot is gone.
    assert_eq!(
        mcp.text("delete_bot", json!({ "bot_uuid": uuid })).await,
        json!({ "ok": true }),
        "LangBot's result text"
    );
    let gone = mcp.err("get_bot", json!({ "bot_uuid": uuid })).await;
    assert_eq!(gone["code"], "resource_not_found", "{gone}");
    assert_eq!(
        mcp.ok("list_bots", json!({})).await["bots"],
        json!([]),
        "deleted bot still listed"
    );
}

#[tokio::test]
async fn the_message_language_round_trips() {
    let (app, owner, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    let before = mcp.ok("get_workspace_message_language", json!({})).await;
    assert!(before["language"].is_string(), "{before}");
    for language in ["ja_JP", "zh_Hans", "en_US"] {
        let set = mcp
            .ok(
                "set_workspace_message_language",
                json!({ "language": language }),
            )
            .await;
        assert_eq!(set["language"], language, "{set}");
        let got = mcp.ok("get_workspace_message_language", json!({})).await;
        assert_eq!(got["language"], language);
        let http = app
            .get_as(&owner, "/api/v1/workspaces/current/language")
            .await;
        assert_eq!(http.data()["language"], language);
    }
    let bad = mcp
        .err(
            "set_workspace_message_language",
            json!({ "language": "xx_XX" }),
        )
        .await;
    assert_eq!(bad["code"], "invalid_language", "{bad}");
    assert_eq!(error_fields(&bad), ["language"], "{bad}");
    let missing = mcp.err("set_workspace_message_language", json!({})).await;
    assert_invalid(&missing, "language", "missing language");
    let got = mcp.ok("get_workspace_message_language", json!({})).await;
    assert_eq!(
        got["language"], "en_US",
        "a refused language changed nothing"
    );
}

#[tokio::test]
async fn set_starred_model_stars_a_real_llm_model() {
    let (app, owner, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    assert_eq!(
        mcp.ok("get_starred_model", json!({})).await,
        json!({ "uuid": null })
    );
    let model = create_llm_model(&app, &owner).await;
    let set = mcp
        .ok("set_starred_model", json!({ "model_uuid": model }))
        .await;
    assert_eq!(set, json!({ "uuid": model }));
    assert_eq!(
        mcp.ok("get_starred_model", json!({})).await,
        json!({ "uuid": model })
    );
    assert_eq!(
        mcp.ok("get_default_model", json!({})).await,
        json!({ "uuid": model })
    );
    let http = app
        .get_as(&owner, "/api/v1/provider/models/llm/_/starred")
        .await;
    assert_eq!(http.data()["uuid"], model.as_str());
    let one = mcp
        .ok("get_llm_model", json!({ "model_uuid": model }))
        .await;
    assert_eq!(one["model"]["uuid"], model.as_str());
    assert_eq!(one["model"]["name"], "gpt-test");
    // Something that is not an LLM model of this Workspace is refused.
    let bad = mcp
        .err(
            "set_starred_model",
            json!({ "model_uuid": uuid::Uuid::new_v4().to_string() }),
        )
        .await;
    assert!(
        bad["code"] == "invalid_request" || bad["code"] == "resource_not_found",
        "{bad}"
    );
    // null clears.
    assert_eq!(
        mcp.ok("set_starred_model", json!({ "model_uuid": null }))
            .await,
        json!({ "uuid": null })
    );
    assert_eq!(
        mcp.ok("get_starred_model", json!({})).await,
        json!({ "uuid": null })
    );
}

#[tokio::test]
async fn a_renamed_argument_is_named_by_its_mcp_name() {
    // set_starred_model(model_uuid) is PUT {uuid} over HTTP: the conversion is the operation's,
    // so errors name the argument the caller sent, and the HTTP field is not an argument.
    let (app, owner, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    let model = create_llm_model(&app, &owner).await;
    let mut problems = Vec::new();
    let bad = mcp
        .err("set_starred_model", json!({ "model_uuid": 5 }))
        .await;
    assert_eq!(bad["code"], "invalid_request", "{bad}");
    if !error_fields(&bad).iter().any(|f| f == "model_uuid") {
        problems.push(format!(
            "model_uuid: 5 names {:?}, not model_uuid: {bad}",
            error_fields(&bad)
        ));
    }
    let res = mcp
        .call("set_starred_model", json!({ "uuid": model }))
        .await;
    if res["isError"] != true {
        problems.push(format!("`uuid` (not an argument) was accepted: {res}"));
    }
    let starred = mcp.ok("get_starred_model", json!({})).await;
    if starred != json!({ "uuid": null }) {
        problems.push(format!("the call with `uuid` starred the model: {starred}"));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[tokio::test]
async fn delete_tools_answer_the_http_data() {
    let (app, _, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    let bot = mcp
        .ok("create_bot", json!({ "bot_data": http_bot_data("b") }))
        .await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    // The bot's default routes target the pipeline that was made for it.
    let pipeline = mcp.ok("get_bot", json!({ "bot_uuid": bot })).await["bot"]["event_bindings"][0]
        ["target_uuid"]
        .as_str()
        .expect("route target")
        .to_string();
    // In use: a domain error naming the routes, not a crash.
    let in_use = mcp
        .err("delete_pipeline", json!({ "pipeline_uuid": pipeline }))
        .await;
    assert_eq!(in_use["code"], "pipeline_in_use", "{in_use}");
    assert_eq!(
        mcp.ok("delete_bot", json!({ "bot_uuid": bot })).await,
        json!({}),
        "null data is {{}}"
    );
    let deleted = mcp
        .ok("delete_pipeline", json!({ "pipeline_uuid": pipeline }))
        .await;
    // The only pipeline (the default) went: no new default.
    assert_eq!(
        deleted,
        json!({ "removed_routes": [], "new_default_pipeline": null })
    );
    // The same operation over HTTP answers the same data.
    let other = mcp
        .ok(
            "create_pipeline",
            json!({ "pipeline_data": { "name": "o" } }),
        )
        .await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let http = mcp
        .http(Method::DELETE, &format!("/api/v1/pipelines/{other}"), None)
        .await;
    assert_eq!(http, deleted);
    let gone = mcp
        .err("get_pipeline", json!({ "pipeline_uuid": pipeline }))
        .await;
    assert_eq!(gone["code"], "resource_not_found");
    let again = mcp.err("delete_bot", json!({ "bot_uuid": bot })).await;
    assert_eq!(again["code"], "resource_not_found");
}

#[tokio::test]
async fn domain_errors_are_is_error_results_with_code_and_msg() {
    let (app, _, key) = setup().await;
    let mcp = Mcp::new(&app, &key);
    let random = uuid::Uuid::new_v4().to_string();
    // Not found.
    for (tool, args) in [
        ("get_bot", json!({ "bot_uuid": random })),
        ("get_pipeline", json!({ "pipeline_uuid": random })),
        ("get_llm_model", json!({ "model_uuid": random })),
        ("delete_bot", json!({ "bot_uuid": random })),
        (
            "update_pipeline",
            json!({ "pipeline_uuid": random, "pipeline_data": { "name": "x" } }),
        ),
    ] {
        let body = mcp.err(tool, args).await;
        assert_eq!(body["code"], "resource_not_found", "{tool}: {body}");
    }
    // Validation: a body field missing.
    let mut data = http_bot_data("b");
    data.as_object_mut().unwrap().remove("adapter_config");
    let body = mcp.err("create_bot", json!({ "bot_data": data })).await;
    assert_invalid(&body, "adapter_config", "bot_data without adapter_config");
    let body = mcp
        .err("create_pipeline", json!({ "pipeline_data": {} }))
        .await;
    assert_invalid(&body, "name", "pipeline_data without name");
    // The wrong type of argument.
    let body = mcp.err("get_pipeline", json!({ "pipeline_uuid": 5 })).await;
    assert_invalid(&body, "pipeline_uuid", "pipeline_uuid: 5");
    let body = mcp.err("get_bot", json!({ "bot_uuid": ["x"] })).await;
    assert_invalid(&body, "bot_uuid", "bot_uuid: array");
    // A required argument missing.
    let body = mcp.err("get_pipeline", json!({})).await;
    assert_invalid(&body, "pipeline_uuid", "no pipeline_uuid");
    let body = mcp.err("create_bot", json!({})).await;
    assert_eq!(body["code"], "invalid_request", "no bot_data: {body}");
    let body = mcp.err("create_bot", json!({ "bot_data": "x" })).await;
    assert_eq!(body["code"], "invalid_request", "bot_data a string: {body}");
    // An unknown extra argument.
    let body = mcp
        .err(
            "get_pipeline",
            json!({ "pipeline_uuid": random, "verbose": true }),
        )
        .await;
    assert_invalid(&body, "verbose", "unknown argument");
    let body = mcp.err("list_bots", json!({ "limit": 5 })).await;
    assert_eq!(body["code"], "invalid_request", "list_bots(limit): {body}");
    let body = mcp
        .err(
            "create_bot",
            json!({ "bot_data": http_bot_data("b"), "extra": 1 }),
        )
        .await;
    assert_eq!(body["code"], "invalid_request", "create_bot(extra): {body}");
    // Nothing was created by the failed calls.
    assert_eq!(mcp.ok("list_bots", json!({})).await["bots"], json!([]));
    // `arguments` that are not an object.
    let result = mcp
        .result(
            "tools/call",
            json!({ "name": "list_bots", "arguments": [1] }),
        )
        .await;
    assert!(
        result["isError"] == true || result.is_null(),
        "array arguments: {result}"
    );
}

#[tokio::test]
async fn secrets_are_redacted() {
    let (app, owner, key) = setup().await;
    let (_, view_key) = app.create_key(&owner, Some(VIEW_SCOPES)).await;
    let (_, manage_key) = app
        .create_key(&owner, Some(&["resource.view", "resource.manage"]))
        .await;
    let mcp = Mcp::new(&app, &key);
    let bot = mcp
        .ok("create_bot", json!({ "bot_data": http_bot_data("b") }))
        .await["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    create_llm_model(&app, &owner).await;
    for k in [&key, &view_key, &manage_key] {
        let client = Mcp::new(&app, k);
        let got = client.ok("get_bot", json!({ "bot_uuid": bot })).await;
        assert_eq!(got["bot"]["adapter_config"]["inbound_secret"], "***");
        let raw = client
            .call("get_bot", json!({ "bot_uuid": bot }))
            .await
            .to_string();
        assert!(!raw.contains("s3cret-inbound"), "secret leaked: {raw}");
    }
    for k in [&view_key, &manage_key] {
        let client = Mcp::new(&app, k);
        let providers = client.ok("list_model_providers", json!({})).await;
        let list = providers["providers"].as_array().expect("providers");
        assert_eq!(list.len(), 1, "{providers}");
        assert_eq!(list[0]["api_keys"], json!(["***"]), "{providers}");
        let raw = client
            .call("list_model_providers", json!({}))
            .await
            .to_string();
        assert!(!raw.contains("sk-provider-secret"), "secret leaked: {raw}");
    }
}
