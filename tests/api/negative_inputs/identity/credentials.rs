//! Expired, revoked and malformed credentials; keys on session-only operations; header
//! combinations (`X-API-Key` over bearer, `X-Workspace-Id`).

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use super::{fixture, rfc3339_in};
use crate::helpers::{spawn_app_with, OWNER_EMAIL, PASSWORD};

#[tokio::test]
async fn expired_api_keys_are_refused() {
    let fx = fixture().await;
    let res = fx
        .app
        .send_as(
            &fx.owner,
            Method::POST,
            "/api/v1/apikeys",
            &json!({ "name": "short-lived", "expires_at": rfc3339_in(2) }),
        )
        .await;
    let key = res.data()["key"]["key"].as_str().unwrap().to_string();
    let expires_at: chrono::DateTime<chrono::Utc> = res.data()["key"]["expires_at"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    // Used once while valid, so it is in the resolution cache when it expires.
    let ok = fx.context_with_key(&key).await;
    assert_eq!(ok.data()["principal_kind"], "api_key");
    let wait = (expires_at - chrono::Utc::now())
        .to_std()
        .unwrap_or_default()
        + Duration::from_millis(300);
    tokio::time::sleep(wait).await;
    fx.context_with_key(&key).await.expect_error(
        401,
        "invalid_authentication",
        "expired key in X-API-Key",
    );
    let res = fx
        .app
        .request(Method::GET, "/api/v1/system/context")
        .bearer(&key)
        .send()
        .await;
    res.expect_error(401, "invalid_authentication", "expired key as Bearer");
    let res = fx
        .key_call(&key, Method::GET, "/api/v1/workspaces/current/language")
        .await;
    res.expect_error(401, "invalid_authentication", "expired key on language");
    // Another key of the same Workspace is unaffected.
    fx.context_with_key(&fx.key).await.data();
}

#[tokio::test]
async fn revoked_api_keys_are_refused() {
    let fx = fixture().await;
    fx.context_with_key(&fx.key).await.data();
    let (other_id, other) = fx.app.create_key(&fx.owner, None).await;
    fx.owner_call(Method::DELETE, &format!("/api/v1/apikeys/{}", fx.key_id))
        .await
        .data();
    fx.context_with_key(&fx.key).await.expect_error(
        401,
        "invalid_authentication",
        "revoked key in X-API-Key",
    );
    let res = fx
        .app
        .request(Method::GET, "/api/v1/system/context")
        .bearer(&fx.key)
        .send()
        .await;
    res.expect_error(401, "invalid_authentication", "revoked key as Bearer");
    let res = fx
        .app
        .request(Method::PUT, "/api/v1/workspaces/current/language")
        .header("x-api-key", &fx.key)
        .json(&json!({ "language": "ja_JP" }))
        .send()
        .await;
    res.expect_error(401, "invalid_authentication", "revoked key writing");
    let listed = fx
        .owner_call(Method::GET, &format!("/api/v1/apikeys/{}", fx.key_id))
        .await;
    assert_eq!(listed.data()["key"]["status"], "revoked");
    // Only that key: the other one still works.
    let res = fx.context_with_key(&other).await;
    assert_eq!(res.data()["api_key_id"], fx.key_uuid(other_id).await);
}

#[tokio::test]
async fn malformed_tokens_are_invalid_authentication() {
    let fx = fixture().await;
    let mut altered = fx.owner.clone();
    let last = if altered.ends_with('A') { 'B' } else { 'A' };
    altered.pop();
    altered.push(last);
    let bearer_tokens = vec![
        "lbs_short".to_string(),
        "lbk_short".to_string(),
        "lbi_short".to_string(),
        format!("lbk_{}", "!".repeat(43)),
        format!("lbk_{}", "+".repeat(43)),
        format!("lbk_{}", "A".repeat(43)),
        format!("lbk_{}", "A".repeat(42)),
        format!("lbk_{}", "A".repeat(44)),
        format!("lbs_{}", "A".repeat(43)),
        format!("lbs_{}", "A".repeat(44)),
        format!("lbs_{}", "%".repeat(43)),
        format!("LBS_{}", &fx.owner[4..]),
        format!("lbk_{}", &fx.owner[4..]),
        altered,
        format!("{} extra", fx.owner),
        "random-string".to_string(),
        "0".to_string(),
        "null".to_string(),
        "x".repeat(4096),
        fx.key[..fx.key.len() - 1].to_string(),
    ];
    let paths = [
        (Method::GET, "/api/v1/system/context"),
        (Method::GET, "/api/v1/user/info"),
        (Method::GET, "/api/v1/apikeys"),
        (Method::GET, "/api/v1/workspaces/current/language"),
        (Method::POST, "/api/v1/invitations/accept"),
    ];
    for token in &bearer_tokens {
        for (method, path) in &paths {
            let res = fx
                .app
                .request(method.clone(), path)
                .bearer(token)
                .send()
                .await;
            res.expect_error(
                401,
                "invalid_authentication",
                &format!("{method} {path} with Bearer {token:.60}"),
            );
        }
        let res = fx.context_with_key(token).await;
        res.expect_error(
            401,
            "invalid_authentication",
            &format!("X-API-Key {token:.60}"),
        );
    }
    // Authorization headers that carry no Bearer token.
    for header in [
        "Bearer ".to_string(),
        "Bearer".to_string(),
        "Bearer    ".to_string(),
        String::new(),
        "Basic xyz".to_string(),
        "Basic dXNlcjpwYXNz".to_string(),
        format!("Basic {}", fx.owner),
        format!("Token {}", fx.owner),
        format!("Bearer{}", fx.owner),
        fx.owner.clone(),
        fx.key.clone(),
    ] {
        // (`invitations/accept` takes no credentials too: without a Bearer token it is
        // anonymous, so it is left out here.)
        for (method, path) in &paths[..4] {
            let res = fx
                .app
                .request(method.clone(), path)
                .header("authorization", &header)
                .send()
                .await;
            res.expect_error(
                401,
                "invalid_authentication",
                &format!("{method} {path} with Authorization {header:.60?}"),
            );
        }
    }
    // No credentials at all.
    for (method, path) in &paths[..4] {
        let res = fx.app.request(method.clone(), path).send().await;
        res.expect_error(401, "invalid_authentication", &format!("{path} anonymous"));
    }
    // The real credentials still work.
    fx.app.get_as(&fx.owner, "/api/v1/user/info").await.data();
    fx.context_with_key(&fx.key).await.data();
}

#[tokio::test]
async fn api_keys_cannot_call_session_only_operations() {
    let fx = fixture().await;
    let (ws, id) = (&fx.ws, fx.key_id);
    let calls: Vec<(Method, String, Option<Value>)> = vec![
        (Method::GET, "/api/v1/apikeys".into(), None),
        (
            Method::POST,
            "/api/v1/apikeys".into(),
            Some(json!({ "name": "k" })),
        ),
        (Method::GET, format!("/api/v1/apikeys/{id}"), None),
        (
            Method::PUT,
            format!("/api/v1/apikeys/{id}"),
            Some(json!({ "name": "x" })),
        ),
        (Method::DELETE, format!("/api/v1/apikeys/{id}"), None),
        (Method::GET, "/api/v1/user/info".into(), None),
        (Method::GET, "/api/v1/user/check-token".into(), None),
        (Method::POST, "/api/v1/user/logout".into(), None),
        (
            Method::POST,
            "/api/v1/user/change-password".into(),
            Some(json!({ "current_password": PASSWORD, "new_password": "another-password" })),
        ),
        (Method::GET, "/api/v1/workspaces".into(), None),
        (
            Method::POST,
            "/api/v1/workspaces".into(),
            Some(json!({ "name": "w" })),
        ),
        (Method::GET, "/api/v1/workspaces/current".into(), None),
        (Method::GET, format!("/api/v1/workspaces/{ws}"), None),
        (
            Method::PUT,
            format!("/api/v1/workspaces/{ws}"),
            Some(json!({ "name": "w" })),
        ),
        (
            Method::GET,
            format!("/api/v1/workspaces/{ws}/members"),
            None,
        ),
        (
            Method::GET,
            format!("/api/v1/workspaces/{ws}/invitations"),
            None,
        ),
        (
            Method::POST,
            format!("/api/v1/workspaces/{ws}/invitations"),
            Some(json!({ "email": "x@example.com" })),
        ),
        (
            Method::PATCH,
            format!("/api/v1/workspaces/{ws}/members/{}", fx.owner_uuid),
            Some(json!({ "role": "viewer" })),
        ),
    ];
    for (method, path, body) in &calls {
        for as_bearer in [false, true] {
            let mut req = fx.app.request(method.clone(), path);
            req = if as_bearer {
                req.bearer(&fx.key)
            } else {
                req.header("x-api-key", &fx.key)
            };
            if let Some(body) = body {
                req = req.json(body);
            }
            let res = req.send().await;
            let how = if as_bearer { "Bearer" } else { "X-API-Key" };
            res.expect_error(
                401,
                "invalid_authentication",
                &format!("{method} {path} with an API key as {how}"),
            );
        }
    }
    // Nothing happened: the key is active and unrenamed, no invitation, no password change.
    let key = fx
        .owner_call(Method::GET, &format!("/api/v1/apikeys/{id}"))
        .await;
    assert_eq!(key.data()["key"]["status"], "active");
    assert_eq!(key.data()["key"]["name"], "test key");
    let invitations = fx
        .owner_call(Method::GET, &format!("/api/v1/workspaces/{ws}/invitations"))
        .await;
    assert_eq!(invitations.data()["total"], 0);
    fx.app.login(OWNER_EMAIL, PASSWORD).await;
    fx.context_with_key(&fx.key).await.data();
}

#[tokio::test]
async fn the_global_key_cannot_call_session_only_operations() {
    const GLOBAL: &str = "global-test-key-0123456789";
    let app = spawn_app_with(|s| s.api.global_api_key = Some(GLOBAL.into())).await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    // It works where keys work…
    let res = app
        .request(Method::GET, "/api/v1/system/context")
        .bearer(GLOBAL)
        .send()
        .await;
    assert_eq!(res.data()["principal_kind"], "global_key");
    // …and nowhere a session is required, in either header.
    for path in [
        "/api/v1/apikeys".to_string(),
        "/api/v1/user/info".to_string(),
        "/api/v1/workspaces".to_string(),
        "/api/v1/workspaces/current".to_string(),
        format!("/api/v1/workspaces/{ws}/members"),
    ] {
        for header in ["authorization", "x-api-key"] {
            let value = if header == "authorization" {
                format!("Bearer {GLOBAL}")
            } else {
                GLOBAL.to_string()
            };
            let res = app
                .request(Method::GET, &path)
                .header(header, &value)
                .send()
                .await;
            res.expect_error(
                401,
                "invalid_authentication",
                &format!("global key in {header} on {path}"),
            );
        }
    }
    // A near miss of the global key is no key at all.
    for wrong in [&GLOBAL[..GLOBAL.len() - 1], "global-test-key-012345678X"] {
        let res = app
            .request(Method::GET, "/api/v1/system/context")
            .bearer(wrong)
            .send()
            .await;
        res.expect_error(401, "invalid_authentication", "near-miss global key");
    }
}

#[tokio::test]
async fn x_api_key_wins_over_the_bearer_token() {
    let fx = fixture().await;
    let context = |api_key: String, bearer: String| {
        let app = &fx.app;
        async move {
            app.request(Method::GET, "/api/v1/system/context")
                .header("x-api-key", &api_key)
                .bearer(&bearer)
                .send()
                .await
        }
    };
    // A bad X-API-Key is not rescued by a good session.
    for bad in [
        "garbage".to_string(),
        "lbk_short".to_string(),
        format!("lbk_{}", "A".repeat(43)),
        fx.owner.clone(),
    ] {
        let res = context(bad.clone(), fx.owner.clone()).await;
        res.expect_error(
            401,
            "invalid_authentication",
            &format!("X-API-Key {bad:.20} with a good Bearer"),
        );
    }
    // A revoked key in X-API-Key with a good session: still refused.
    let (revoked_id, revoked) = fx.app.create_key(&fx.owner, None).await;
    fx.owner_call(Method::DELETE, &format!("/api/v1/apikeys/{revoked_id}"))
        .await
        .data();
    let res = context(revoked, fx.owner.clone()).await;
    res.expect_error(
        401,
        "invalid_authentication",
        "revoked X-API-Key, good Bearer",
    );
    // A good key wins over a bad Bearer…
    let res = context(fx.key.clone(), "garbage".into()).await;
    assert_eq!(res.data()["principal_kind"], "api_key");
    // …and over a good session, so a session-only operation refuses the pair.
    let res = context(fx.key.clone(), fx.owner.clone()).await;
    assert_eq!(res.data()["principal_kind"], "api_key");
    let res = fx
        .app
        .request(Method::GET, "/api/v1/apikeys")
        .header("x-api-key", &fx.key)
        .bearer(&fx.owner)
        .send()
        .await;
    res.expect_error(401, "invalid_authentication", "key + session on apikeys");
}

#[tokio::test]
async fn x_workspace_id_must_name_a_membership_for_sessions_and_is_ignored_for_keys() {
    let app = spawn_app_with(|s| s.workspaces.multi = true).await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let other_ws = app.create_workspace(&owner, "Second").await;
    let viewer = app
        .add_member(&owner, &ws, "viewer@example.com", "viewer")
        .await;
    let (_, key) = app.create_key(&owner, None).await;
    let random = uuid::Uuid::new_v4().to_string();
    let bad_selectors = [
        "not-a-uuid".to_string(),
        "123".to_string(),
        format!("{ws}x"),
        ws[..35].to_string(),
        random.clone(),
        uuid::Uuid::nil().to_string(),
    ];
    let session_paths = [
        (Method::GET, "/api/v1/system/context"),
        (Method::GET, "/api/v1/workspaces/current"),
        (Method::GET, "/api/v1/workspaces/current/language"),
        (Method::GET, "/api/v1/apikeys"),
    ];
    for selector in &bad_selectors {
        for (method, path) in &session_paths {
            let res = app
                .request(method.clone(), path)
                .bearer(&owner)
                .header("x-workspace-id", selector)
                .send()
                .await;
            res.expect_error(
                404,
                "resource_not_found",
                &format!("{path} with X-Workspace-Id {selector}"),
            );
        }
        let res = app
            .request(Method::PUT, "/api/v1/workspaces/current/language")
            .bearer(&owner)
            .header("x-workspace-id", selector)
            .json(&json!({ "language": "ja_JP" }))
            .send()
            .await;
        res.expect_error(404, "resource_not_found", "language PUT, bad selector");
    }
    // A Workspace that exists, but not for this account.
    for (method, path) in &session_paths[..3] {
        let res = app
            .request(method.clone(), path)
            .bearer(&viewer.token)
            .header("x-workspace-id", &other_ws)
            .send()
            .await;
        res.expect_error(
            404,
            "resource_not_found",
            &format!("{path}: viewer selecting a Workspace they are not in"),
        );
    }
    // The own Workspace through the path, another through the header: not found either.
    let res = app
        .request(Method::GET, &format!("/api/v1/workspaces/{ws}/members"))
        .bearer(&viewer.token)
        .header("x-workspace-id", &other_ws)
        .send()
        .await;
    res.expect_error(
        404,
        "resource_not_found",
        "header names a foreign Workspace",
    );

    // API keys ignore the header: they always work in their own Workspace.
    let mut selectors = bad_selectors.to_vec();
    selectors.push(other_ws.clone());
    for selector in &selectors {
        let res = app
            .request(Method::GET, "/api/v1/system/context")
            .header("x-api-key", &key)
            .header("x-workspace-id", selector)
            .send()
            .await;
        assert_eq!(
            res.data()["workspace_uuid"],
            ws.as_str(),
            "key with X-Workspace-Id {selector}"
        );
    }
    // The language PUT through the key lands in the key's Workspace, not the selected one.
    let res = app
        .request(Method::PUT, "/api/v1/workspaces/current/language")
        .header("x-api-key", &key)
        .header("x-workspace-id", &other_ws)
        .json(&json!({ "language": "ja_JP" }))
        .send()
        .await;
    res.data();
    let other = app
        .request(Method::GET, "/api/v1/workspaces/current/language")
        .bearer(&owner)
        .header("x-workspace-id", &other_ws)
        .send()
        .await;
    assert_eq!(other.data()["language"], "en_US");
    let own = app
        .request(Method::GET, "/api/v1/workspaces/current/language")
        .bearer(&owner)
        .header("x-workspace-id", &ws)
        .send()
        .await;
    assert_eq!(own.data()["language"], "ja_JP");
}
