//! The built-in agent under both of its runner ids: `local-agent` and LangBot 4.11.2's
//! `plugin:langbot-team/LocalAgent/default` (which LangBot's own web UI needs to edit a
//! pipeline). Either id runs the one agent, with the settings stored under it.

use reqwest::Method;
use serde_json::json;

use crate::helpers::fixtures::Rig;
use crate::helpers::spawn_app;

const LANGBOT_ID: &str = "plugin:langbot-team/LocalAgent/default";

#[tokio::test]
async fn a_pipeline_renamed_to_langbots_runner_id_answers_with_the_settings_under_it() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let path = format!("/api/v1/pipelines/{}", rig.pipeline);
    // LangBot's pipeline editor sends the `ai` section with its runner and that runner's settings.
    let ai = json!({ "runner": { "id": LANGBOT_ID, "expire-time": 0 },
                     "runner_config": { LANGBOT_ID: { "model": { "primary": rig.model, "fallbacks": [] },
                                                      "prompt": [{ "role": "system", "content": "Be brief." }],
                                                      "max-tool-rounds": 3 } } });
    app.send_as(
        &rig.owner,
        Method::PUT,
        &path,
        &json!({ "config": { "ai": ai } }),
    )
    .await
    .data();
    let stored = app.pipeline(&rig.owner, &rig.pipeline).await;
    assert_eq!(stored["config"]["ai"], ai, "stored as sent");

    let run = app
        .send_as(
            &rig.owner,
            Method::POST,
            &format!("{path}/run"),
            &json!({ "message": "ping" }),
        )
        .await;
    assert_eq!(run.data()["status"], "completed", "{}", run.text);
    assert_eq!(run.data()["reply"], "echo(1): ping");

    // Its model is checked where it sits, and named by that path.
    let missing = uuid::Uuid::new_v4().to_string();
    let bad = json!({ "config": { "ai": { "runner": { "id": LANGBOT_ID },
        "runner_config": { LANGBOT_ID: { "model": { "primary": missing } } } } } });
    let res = app.send_as(&rig.owner, Method::PUT, &path, &bad).await;
    res.assert_error(400, "invalid_request");
    assert!(
        res.text
            .contains(&format!("ai.runner_config.{LANGBOT_ID}.model.primary")),
        "{}",
        res.text
    );
    // A provider's cascade names the pipelines whose agent used its models, under either id.
    let model = app
        .get_as(
            &rig.owner,
            &format!("/api/v1/provider/models/llm/{}", rig.model),
        )
        .await;
    let provider = model.data()["model"]["provider_uuid"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", model.text))
        .to_string();
    let res = app
        .send_as(
            &rig.owner,
            Method::DELETE,
            &format!("/api/v1/provider/providers/{provider}?cascade=true"),
            &json!(null),
        )
        .await;
    assert_eq!(
        res.data()["referencing_pipelines"][0]["uuid"],
        rig.pipeline.as_str(),
        "{}",
        res.text
    );
}

#[tokio::test]
async fn a_pipeline_named_with_one_id_and_settings_under_the_other_uses_those_settings() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let path = format!("/api/v1/pipelines/{}", rig.pipeline);
    // Only the runner's name changes: the settings stored under `local-agent` still apply.
    let stored = app.pipeline(&rig.owner, &rig.pipeline).await;
    let mut ai = stored["config"]["ai"].clone();
    ai["runner"]["id"] = json!(LANGBOT_ID);
    app.send_as(
        &rig.owner,
        Method::PUT,
        &path,
        &json!({ "config": { "ai": ai } }),
    )
    .await
    .data();
    let run = app
        .send_as(
            &rig.owner,
            Method::POST,
            &format!("{path}/run"),
            &json!({ "message": "ping" }),
        )
        .await;
    assert_eq!(run.data()["reply"], "echo(1): ping", "{}", run.text);
}

#[tokio::test]
async fn unknown_runners_and_settings_keys_are_refused_and_the_form_offers_both_ids() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let path = format!("/api/v1/pipelines/{}", rig.pipeline);
    for (ai, field) in [
        (
            json!({ "runner": { "id": "plugin:someone/Other/default" } }),
            "ai.runner.id",
        ),
        (
            json!({ "runner": { "id": "local-agent" }, "runner_config": { "plugin:someone/Other/default": {} } }),
            "plugin:someone/Other/default",
        ),
    ] {
        let res = app
            .send_as(
                &rig.owner,
                Method::PUT,
                &path,
                &json!({ "config": { "ai": ai } }),
            )
            .await;
        res.assert_error(400, "invalid_request");
        assert!(res.text.contains(field), "{ai}: {}", res.text);
    }
    let meta = app
        .get_as(&rig.owner, "/api/v1/pipelines/_/metadata")
        .await
        .data()
        .clone();
    let ai = meta["configs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "ai")
        .unwrap()
        .clone();
    let runner = &ai["stages"][0]["config"][0];
    let ids: Vec<_> = runner["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].clone())
        .collect();
    assert_eq!(ids, [json!("local-agent"), json!(LANGBOT_ID)]);
    let stages: Vec<_> = ai["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].clone())
        .collect();
    assert_eq!(
        stages,
        [json!("runner"), json!("local-agent"), json!(LANGBOT_ID)]
    );
    // Both agent stages have the same items and defaults.
    assert_eq!(ai["stages"][1]["config"], ai["stages"][2]["config"]);
    assert_eq!(ai["stages"][2]["config"][2]["default"], 10);
}
