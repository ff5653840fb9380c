//! `GET/PUT /api/v1/workspaces/current/language`, and error messages in that language.

use reqwest::Method;
use serde_json::json;

use crate::helpers::spawn_app;

#[tokio::test]
async fn the_message_language_is_stored_and_used_for_error_messages() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let res = app
        .get_as(&owner, "/api/v1/workspaces/current/language")
        .await;
    assert_eq!(res.data()["language"], "en_US");
    assert_eq!(
        res.data()["supported_languages"].as_array().unwrap().len(),
        8
    );
    let set = app
        .send_as(
            &owner,
            Method::PUT,
            "/api/v1/workspaces/current/language",
            &json!({ "language": "zh_Hans" }),
        )
        .await;
    assert_eq!(set.data()["language"], "zh_Hans");
    assert_eq!(
        app.get_as(&owner, "/api/v1/workspaces/current/language")
            .await
            .data()["language"],
        "zh_Hans"
    );
    let missing = app.get_as(&owner, "/api/v1/apikeys/999").await;
    missing.assert_error(404, "resource_not_found");
    assert_eq!(missing.body["msg"], "资源不存在");
    let (_, key) = app.create_key(&owner, Some(&["workspace.view"])).await;
    let denied = app
        .request(Method::PUT, "/api/v1/workspaces/current/language")
        .header("x-api-key", &key)
        .json(&json!({ "language": "en_US" }))
        .send()
        .await;
    denied.assert_error(403, "permission_denied");
    assert_eq!(denied.body["msg"], "权限不足");
    let bad = app
        .send_as(
            &owner,
            Method::PUT,
            "/api/v1/workspaces/current/language",
            &json!({ "language": "zh-Hans" }),
        )
        .await;
    bad.assert_error(400, "invalid_language");
}
