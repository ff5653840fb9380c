//! The LangBot features this server does not have (knowledge bases, skills, the assistant, the
//! marketplace, Box, background tasks, release checks, user feedback, the legacy-pipeline
//! migration): each read answers LangBot's own "none / not available" shape, for every
//! credential that may read the Workspace, and nothing without credentials.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{spawn_app, Cred, TestApp};

mod marketplace;

/// Each "not available" read (with the query LangBot's UI sends) and its whole answer, where
/// `{ws}` stands for the caller's Workspace.
fn expected() -> Vec<(&'static str, Value)> {
    vec![
        ("/api/v1/knowledge/bases", json!({ "bases": [] })),
        (
            "/api/v1/knowledge/migration/status",
            json!({ "needed": false, "internal_kb_count": 0, "external_kb_count": 0 }),
        ),
        ("/api/v1/skills", json!({ "skills": [] })),
        (
            "/api/v1/assistant/conversations",
            json!({ "conversations": [] }),
        ),
        (
            "/api/v1/system/tasks?type=user&kind=plugin-operation",
            json!({ "tasks": [], "id_index": 0 }),
        ),
        (
            "/api/v1/marketplace/plugins?page=1&page_size=20&sort_by=install_count&sort_order=DESC",
            json!({ "plugins": [], "total": 0 }),
        ),
        (
            "/api/v1/marketplace/recommendation-lists",
            json!({ "lists": [] }),
        ),
        ("/api/v1/box/status", box_unavailable()),
        ("/api/v1/box/runtime-status", box_unavailable()),
        ("/api/v1/box/sessions", json!([])),
        ("/api/v1/dist/info/releases", json!([])),
        ("/api/v1/dist/info/repo", json!({ "repo": null })),
        (
            "/api/v1/monitoring/feedback/stats?startTime=2026-01-01T00:00:00Z",
            json!({
                "total_feedback": 0, "total_likes": 0, "total_dislikes": 0,
                "satisfaction_rate": 0.0, "by_bot": [],
            }),
        ),
        (
            "/api/v1/monitoring/feedback?feedbackType=2&limit=100&offset=0",
            json!({ "feedback": [], "total": 0, "limit": 100, "offset": 0 }),
        ),
        (
            "/api/v1/pipelines/_/migration/preview",
            json!({ "planner_version": "5", "workspace_uuid": "{ws}", "items": [], "total": 0 }),
        ),
    ]
}

fn box_unavailable() -> Value {
    json!({
        "available": false, "enabled": false, "profile": null, "recent_error_count": 0,
        "connector_error": null, "hidden": true,
    })
}

/// `expected` with `{ws}` replaced by `ws`.
fn with_workspace(value: &Value, ws: &str) -> Value {
    match value {
        Value::String(s) if s == "{ws}" => json!(ws),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), with_workspace(v, ws)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Every read answers its shape as `cred`; answers the mismatches.
async fn mismatches(app: &TestApp, cred: &Cred, ws: &str, label: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for (path, want) in expected() {
        let res = app.call(cred.clone(), None, Method::GET, path, None).await;
        let want = with_workspace(&want, ws);
        if res.status != 200 || res.body["code"] != 0 || res.body["data"] != want {
            problems.push(format!(
                "GET {path} as {label}: expected 200 {want}, got {} {}",
                res.status, res.text
            ));
        }
    }
    problems
}

/// Reads LangBot's UI sends to its cloud service, without credentials (before login too): public.
const PUBLIC: [&str; 4] = [
    "/api/v1/marketplace/plugins",
    "/api/v1/marketplace/recommendation-lists",
    "/api/v1/dist/info/releases",
    "/api/v1/dist/info/repo",
];

fn is_public(path: &str) -> bool {
    PUBLIC.iter().any(|p| path.split('?').next() == Some(*p))
}

/// The operation ids of the reads above, in the same order.
const IDS: [&str; 15] = [
    "list_knowledge_bases",
    "get_knowledge_migration_status",
    "list_skills",
    "list_assistant_conversations",
    "list_system_tasks",
    "list_marketplace_plugins",
    "get_marketplace_recommendation_lists",
    "get_box_status",
    "get_box_runtime_status",
    "list_box_sessions",
    "list_langbot_releases",
    "get_langbot_repo_info",
    "get_monitoring_feedback_stats",
    "list_monitoring_feedback",
    "preview_pipeline_migration",
];

#[test]
fn the_reads_checked_are_the_catalogs_unavailable_operations() {
    let expected = expected();
    assert_eq!(expected.len(), IDS.len());
    for (id, (path, _)) in IDS.iter().zip(&expected) {
        let meta = langbot::api::catalog()
            .operations()
            .iter()
            .map(|op| op.meta())
            .find(|m| m.id == *id)
            .unwrap_or_else(|| panic!("{id}: not in the catalog"));
        assert_eq!(meta.method.as_str(), "GET", "{id}");
        let bare = path
            .trim_start_matches("/api/v1")
            .split('?')
            .next()
            .unwrap();
        assert_eq!(meta.path, bare, "{id}");
        let (permission, access) = if is_public(path) {
            (None, "none")
        } else {
            (Some("resource.view"), "session_or_api_key")
        };
        assert_eq!(meta.permission.map(|p| p.as_str()), permission, "{id}");
        assert_eq!(meta.access.as_str(), access, "{id}");
    }
}

#[tokio::test]
async fn each_answers_none_in_langbots_shape_to_every_reader() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let viewer = app
        .add_member(&owner, &ws, "viewer@example.com", "viewer")
        .await;
    let (_, key) = app.create_key(&owner, None).await;
    let mut problems = mismatches(&app, &Cred::bearer(&owner), &ws, "the owner").await;
    problems.extend(mismatches(&app, &Cred::bearer(&viewer.token), &ws, "a viewer").await);
    problems.extend(mismatches(&app, &Cred::api_key(&key), &ws, "an API key").await);
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[tokio::test]
async fn the_cloud_service_reads_answer_without_credentials() {
    let app = spawn_app().await;
    app.init_owner().await;
    for (path, want) in expected().into_iter().filter(|(p, _)| is_public(p)) {
        let res = app.get(path).await;
        assert_eq!(res.data(), &want, "{path}");
    }
}

#[tokio::test]
async fn each_workspace_read_needs_credentials() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let private: Vec<_> = expected()
        .into_iter()
        .filter(|(p, _)| !is_public(p))
        .collect();
    assert_eq!(private.len(), 11);
    for (path, _) in &private {
        app.get(path)
            .await
            .assert_error(401, "invalid_authentication");
        app.call(Cred::bearer("not-a-token"), None, Method::GET, path, None)
            .await
            .assert_error(401, "invalid_authentication");
    }
    // A key without `resource.view` may not read them.
    let (_, narrow) = app.create_key(&owner, Some(&["workspace.view"])).await;
    for (path, _) in &private {
        app.call(Cred::api_key(&narrow), None, Method::GET, path, None)
            .await
            .assert_error(403, "permission_denied");
    }
}

#[tokio::test]
async fn their_filters_are_validated() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    for path in [
        "/api/v1/monitoring/feedback?feedbackType=3",
        "/api/v1/monitoring/feedback?limit=0",
        "/api/v1/monitoring/feedback?limit=abc",
        "/api/v1/marketplace/plugins?page=0",
        "/api/v1/marketplace/plugins?page_size=5000",
        "/api/v1/system/tasks?nope=1",
        "/api/v1/monitoring/feedback?startTime=yesterday",
        "/api/v1/monitoring/feedback/stats?endTime=2024-13-45T00:00:00Z",
    ] {
        let res = app.get_as(&owner, path).await;
        res.assert_error(400, "invalid_request");
    }
}

/// LangBot's UI asks for Space credits and a pending survey with a session token and no
/// `X-Workspace-Id`; here there is never a Space account or a survey.
#[tokio::test]
async fn space_credits_and_surveys_are_none_for_a_signed_in_user() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let viewer = app
        .add_member(&owner, &ws, "viewer@example.com", "viewer")
        .await;
    let credits = |owns: bool| json!({ "credits": null, "owner_space_bound": false, "is_workspace_owner": owns });
    let res = app.get_as(&owner, "/api/v1/user/space-credits").await;
    assert_eq!(res.data(), &credits(true));
    let res = app
        .call(
            Cred::bearer(&viewer.token),
            Some(&ws),
            Method::GET,
            "/api/v1/user/space-credits",
            None,
        )
        .await;
    assert_eq!(res.data(), &credits(false));
    let res = app.get_as(&viewer.token, "/api/v1/survey/pending").await;
    assert_eq!(res.data(), &json!({ "survey": null }));
    // Session operations: no credentials, or an API key, are refused.
    let (_, key) = app.create_key(&owner, None).await;
    for path in ["/api/v1/user/space-credits", "/api/v1/survey/pending"] {
        app.get(path)
            .await
            .assert_error(401, "invalid_authentication");
        let res = app
            .call(Cred::api_key(&key), None, Method::GET, path, None)
            .await;
        assert_eq!(res.status, 401, "{path} with an API key");
    }
}

#[tokio::test]
async fn a_bots_admins_are_none_and_an_unknown_bot_is_404() {
    let app = spawn_app().await;
    // A bot of this app's own Workspace.
    let owner = app.init_owner().await;
    let bot = app
        .send_as(
            &owner,
            Method::POST,
            "/api/v1/platform/bots",
            &json!({ "name": "b", "adapter": "http_bot", "enable": false, "adapter_config": {} }),
        )
        .await;
    let uuid = bot.data()["uuid"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", bot.text))
        .to_string();
    let res = app
        .get_as(&owner, &format!("/api/v1/platform/bots/{uuid}/admins"))
        .await;
    assert_eq!(res.data(), &json!({ "admins": [] }));
    let unknown = uuid::Uuid::new_v4();
    app.get_as(&owner, &format!("/api/v1/platform/bots/{unknown}/admins"))
        .await
        .assert_error(404, "resource_not_found");
}
