//! `adapter_config`: validated against the adapter's schema; secrets masked and kept.

use reqwest::Method;
use serde_json::json;

use super::{config, create_bot};
use crate::helpers::spawn_app;

#[tokio::test]
async fn adapter_config_is_validated_against_the_schema() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let cases = [
        (
            json!({ "callback_url": "http://127.0.0.1:9/cb" }),
            "adapter_config.inbound_secret",
        ),
        (
            json!({ "inbound_secret": "s", "callback_url": "ftp://x" }),
            "adapter_config.callback_url",
        ),
        (
            json!({ "inbound_secret": "s", "callback_url": "http://h/cb", "callback_timeout": 0 }),
            "adapter_config.callback_timeout",
        ),
        (
            json!({ "inbound_secret": "s", "callback_url": "http://h/cb", "default_session_type": "room" }),
            "adapter_config.default_session_type",
        ),
        (
            json!({ "inbound_secret": "s", "callback_url": "http://h/cb", "surprise": 1 }),
            "adapter_config.surprise",
        ),
        (json!("text"), "adapter_config"),
    ];
    for (config, field) in cases {
        let res = create_bot(
            &app,
            &owner,
            json!({ "name": "b", "adapter": "http_bot", "adapter_config": config, "enable": true }),
        )
        .await;
        res.assert_error(400, "invalid_request");
        assert_eq!(res.body["errors"][0]["field"], field, "{}", res.text);
    }
    let res = create_bot(
        &app,
        &owner,
        json!({ "name": "b", "adapter": "kook", "adapter_config": {} }),
    )
    .await;
    res.assert_error(400, "invalid_request");
    assert_eq!(res.body["errors"][0]["field"], "adapter");
}

#[tokio::test]
async fn secrets_are_masked_on_read_and_kept_on_update() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let uuid = create_bot(
        &app,
        &owner,
        json!({ "name": "b", "adapter": "http_bot", "adapter_config": config() }),
    )
    .await;
    let uuid = uuid.data()["uuid"].as_str().unwrap().to_string();
    let read = app.bot(&owner, &uuid).await;
    assert_eq!(read["adapter_config"]["inbound_secret"], "***");
    assert_eq!(read["adapter_config"]["outbound_secret"], "***");
    assert_eq!(
        read["adapter_config"]["callback_url"],
        "http://127.0.0.1:9/cb"
    );
    assert_eq!(
        read["adapter_config"]["callback_timeout"], 15,
        "defaults are filled"
    );
    assert!(read["webhook_url"]
        .as_str()
        .unwrap()
        .ends_with(&format!("/bots/{uuid}")));
    let viewer = app
        .add_member(&owner, &ws, "viewer@example.com", "viewer")
        .await;
    let seen = app.bot(&viewer.token, &uuid).await;
    assert_eq!(
        seen["adapter_config"]["callback_url"], "***",
        "without resource.manage everything is masked"
    );
    // `***` keeps the stored secret; a new value replaces it.
    let mut update = read["adapter_config"].clone();
    update["outbound_secret"] = json!("rotated-outbound");
    app.send_as(
        &owner,
        Method::PUT,
        &format!("/api/v1/platform/bots/{uuid}"),
        &json!({ "adapter_config": update }),
    )
    .await
    .data();
    use sea_orm::EntityTrait;
    let row = langbot::entities::bot::Entity::find_by_id(uuid.clone())
        .one(app.db())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.adapter_config["inbound_secret"], "inbound-s3cret");
    assert_eq!(row.adapter_config["outbound_secret"], "rotated-outbound");
    // `***` with nothing stored is refused.
    let fresh = create_bot(&app, &owner, json!({ "name": "c", "adapter": "http_bot", "adapter_config": { "inbound_secret": "***", "callback_url": "http://h/cb" } })).await;
    fresh.assert_error(400, "invalid_request");
    assert!(!fresh.text.contains("inbound-s3cret"));
}

/// LangBot's bot form creates the bot disabled, every setting `null`, to be set up on the
/// bot's page: a disabled bot may leave required settings unset; enabling needs them.
#[tokio::test]
async fn a_disabled_bot_may_wait_for_its_required_settings() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let empty = json!({ "webhook_url": null, "inbound_secret": null, "callback_url": null,
                        "outbound_secret": null, "default_session_type": "person",
                        "signature_required": true, "callback_timeout": 15,
                        "callback_max_retries": 3 });
    let res = create_bot(
        &app,
        &owner,
        json!({ "name": "b", "adapter": "http_bot", "adapter_config": empty, "enable": false,
                "event_bindings": [] }),
    )
    .await;
    let uuid = res.data()["uuid"].as_str().unwrap().to_string();
    let path = format!("/api/v1/platform/bots/{uuid}");
    let bot = app.get_as(&owner, &path).await.data()["bot"].clone();
    assert_eq!(bot["enable"], false);
    // Unset settings are not stored; the defaults are.
    assert_eq!(
        bot["adapter_config"],
        json!({ "default_session_type": "person", "signature_required": true,
                "callback_timeout": 15, "callback_max_retries": 3 })
    );
    // Enabling it as it is: the first missing setting is named.
    let res = app
        .send_as(&owner, Method::PUT, &path, &json!({ "enable": true }))
        .await;
    res.assert_error(400, "invalid_request");
    assert_eq!(
        res.body["errors"][0]["field"], "adapter_config.inbound_secret",
        "{}",
        res.text
    );
    assert_eq!(
        app.get_as(&owner, &path).await.data()["bot"]["enable"],
        false
    );
    // With them, it is enabled.
    let res = app
        .send_as(
            &owner,
            Method::PUT,
            &path,
            &json!({ "enable": true, "adapter_config": config() }),
        )
        .await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(
        app.get_as(&owner, &path).await.data()["bot"]["enable"],
        true
    );
    // Creating it enabled without them is refused.
    let res = create_bot(
        &app,
        &owner,
        json!({ "name": "c", "adapter": "http_bot", "adapter_config": {}, "enable": true }),
    )
    .await;
    res.assert_error(400, "invalid_request");
}
