//! The marketplace searches LangBot's UI posts (its "Create Processors" page looks for runner
//! plugins there): nothing is ever found, in LangBot's shapes, to anyone, with or without
//! credentials; a malformed search is refused.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{spawn_app, Cred};

/// Each search, the body LangBot's UI sends, and the whole answer.
fn searches() -> Vec<(&'static str, Value, Value)> {
    vec![
        (
            "/api/v1/marketplace/extensions/search",
            // The "Create Processors" page: runner plugins usable as an agent.
            json!({ "query": "", "page": 1, "page_size": 100, "type_filter": "plugin",
                    "component_filter": "Runner", "runner_usage": "agent" }),
            json!({ "extensions": [], "total": 0 }),
        ),
        (
            "/api/v1/marketplace/extensions/search",
            // The marketplace page's count per kind.
            json!({ "page": 1, "page_size": 1, "type_filter": "skill" }),
            json!({ "extensions": [], "total": 0 }),
        ),
        (
            "/api/v1/marketplace/plugins/search",
            json!({ "query": "weather", "page": 2, "page_size": 24, "sort_by": "install_count",
                    "sort_order": "DESC", "tags_filter": ["tools"], "type_filter": "plugin" }),
            json!({ "plugins": [], "total": 0 }),
        ),
    ]
}

#[tokio::test]
async fn searches_find_nothing_with_or_without_credentials() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let (_, key) = app.create_key(&owner, Some(&["workspace.view"])).await;
    for (path, body, want) in searches() {
        let anonymous = app.post(path, &body).await;
        assert_eq!(anonymous.data(), &want, "{path} without credentials");
        let signed_in = app.send_as(&owner, Method::POST, path, &body).await;
        assert_eq!(signed_in.data(), &want, "{path} as the owner");
        let res = app
            .call(Cred::api_key(&key), None, Method::POST, path, Some(&body))
            .await;
        assert_eq!(res.data(), &want, "{path} with an API key");
    }
    // Every filter may be left out.
    for path in [
        "/api/v1/marketplace/extensions/search",
        "/api/v1/marketplace/plugins/search",
    ] {
        assert_eq!(app.post(path, &json!({})).await.status, 200, "{path}");
    }
}

#[tokio::test]
async fn a_malformed_search_is_refused() {
    let app = spawn_app().await;
    app.init_owner().await;
    for body in [
        json!({ "page": 0 }),
        json!({ "page_size": 5000 }),
        json!({ "type_filter": "theme" }),
        json!({ "tags_filter": "tools" }),
        json!({ "query": "x".repeat(300) }),
        json!({ "nope": 1 }),
        json!([]),
    ] {
        for path in [
            "/api/v1/marketplace/extensions/search",
            "/api/v1/marketplace/plugins/search",
        ] {
            app.post(path, &body)
                .await
                .assert_error(400, "invalid_request");
        }
    }
}
