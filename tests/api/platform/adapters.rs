//! `GET /api/v1/platform/adapters`: only adapters the runtime implements, secrets marked.

use crate::helpers::spawn_app;

#[tokio::test]
async fn the_adapter_catalog_lists_the_implemented_adapters_with_their_secret_fields() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let list = app.get_as(&owner, "/api/v1/platform/adapters").await;
    let adapters = list.data()["adapters"].as_array().unwrap().clone();
    let names: Vec<&str> = adapters
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "http_bot",
            "telegram",
            "discord",
            "slack",
            "onebot-v11",
            "aiocqhttp",
            "lark",
            "web_page_bot"
        ]
    );
    let fields = adapters[0]["spec"]["config"].as_array().unwrap();
    let secret: Vec<&str> = fields
        .iter()
        .filter(|f| f["secret"] == true)
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(secret, vec!["inbound_secret", "outbound_secret"]);
    for key in [
        "inbound_secret",
        "callback_url",
        "outbound_secret",
        "default_session_type",
        "signature_required",
        "callback_timeout",
        "callback_max_retries",
        "webhook_url",
    ] {
        assert!(fields.iter().any(|f| f["name"] == key), "{key} missing");
    }
    app.get_as(&owner, "/api/v1/platform/adapters/http_bot")
        .await
        .data();
    app.get_as(&owner, "/api/v1/platform/adapters/kook")
        .await
        .assert_error(404, "resource_not_found");
}
