//! Every principal (each role, narrowed and demoted keys, the global key) against every
//! permission-guarded operation: exactly its permissions; without credentials, 401.

use std::collections::BTreeSet;

use reqwest::Method;
use serde_json::{json, Value};

use super::{is_authenticated, oracle, role_permissions, ALL_PERMISSIONS};
use crate::helpers::query::http_method;
use crate::helpers::{spawn_app, spawn_app_with, Cred, Response, TestApp};

const GLOBAL_KEY: &str = "global-test-key-5b1f0c2a9d7e";

/// Calls `path` as `cred`; `body` is sent when the method takes one.
async fn probe(app: &TestApp, cred: &Cred, method: Method, path: &str, body: &Value) -> Response {
    let with_body = has_json_body(&method);
    app.call(cred, None, method, path, with_body.then_some(body))
        .await
}

/// Path placeholders that choose among fixed values (a record kind, an id's source) rather
/// than name a resource: the value to fill them with for an operation on `path` (SPEC §11,
/// `reference/monitoring.md`). Any other value would be a 400 before the operation looks up
/// the resource the rest of the path names.
fn enum_placeholder(name: &str, path: &str) -> Option<&'static str> {
    match name {
        "source" if path.starts_with("/monitoring/executions/") => Some("auto"),
        "kind" if path.starts_with("/monitoring/records/") => Some("messages"),
        "kind" if path.starts_with("/monitoring/details/") => Some("message"),
        "session_type" if path.starts_with("/pipelines/") => Some("person"),
        _ => None,
    }
}

/// Fills path placeholders: `{workspace_uuid}` with `workspace`, `{key_id}` with an unused
/// integer, an [`enum_placeholder`] with its fixed value, anything else with a random uuid.
fn fill_path(path: &str, workspace: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').expect("closing brace") + start;
        match &rest[start + 1..end] {
            "workspace_uuid" => out.push_str(workspace),
            "key_id" => out.push_str("987654321"),
            name => match enum_placeholder(name, path) {
                Some(value) => out.push_str(value),
                None => out.push_str(&uuid::Uuid::new_v4().to_string()),
            },
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    format!("/api/v1{out}")
}

/// Whether `path` names a resource besides the Workspace: [`fill_path`] fills those
/// placeholders with ids that exist nowhere, so a principal allowed to call the operation must
/// get 404 `resource_not_found` (the call reached the operation, which found nothing).
/// Placeholders with fixed values ([`enum_placeholder`]) name no resource.
fn names_a_missing_resource(path: &str) -> bool {
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        let end = rest[start..].find('}').expect("closing brace") + start;
        let name = &rest[start + 1..end];
        if name != "workspace_uuid" && enum_placeholder(name, path).is_none() {
            return true;
        }
        rest = &rest[end + 1..];
    }
    false
}

/// The body sent to an operation that takes one: `{}`, except where `{}` would be refused (400)
/// before the operation looks up the resource its path or body names; there, a minimal valid
/// body naming nothing that exists, so an allowed call is a 404 and nothing runs.
fn probe_body(operation_id: &str) -> Value {
    match operation_id {
        "update_member_role" => json!({ "role": "viewer" }),
        "dry_run_bot_event_route" => json!({ "event_type": "message.received" }),
        "run_pipeline" => json!({ "message": "permission matrix probe" }),
        "broadcast_pipeline_ws_message" => json!({ "message": "permission matrix probe" }),
        "send_message" => json!({
            "target_type": "person",
            "target_id": "1",
            "message_chain": [{ "type": "Plain", "text": "permission matrix probe" }],
        }),
        "set_plugin_enabled" => json!({ "enabled": true }),
        "reset_session_context" => json!({
            "bot_id": uuid::Uuid::new_v4().to_string(),
            "session_id": "person_permission_matrix",
        }),
        _ => json!({}),
    }
}

fn has_json_body(method: &Method) -> bool {
    matches!(*method, Method::POST | Method::PUT | Method::PATCH)
}

struct Principal {
    name: &'static str,
    cred: Cred,
    /// Whether it is an API key (the global one included).
    is_key: bool,
    /// Effective permissions, from the reference matrix.
    effective: BTreeSet<&'static str>,
}

/// Invites and registers a member; returns its session token.
async fn member(app: &TestApp, owner: &str, workspace: &str, email: &str, role: &str) -> String {
    app.add_member(owner, workspace, email, role).await.token
}

#[tokio::test]
async fn every_principal_gets_exactly_its_permissions() {
    let app = spawn_app_with(|s| {
        s.api.global_api_key = Some(GLOBAL_KEY.into());
        // The live feed is a catalog operation too: let each granted stream end quickly.
        s.monitoring.stream_lifetime = std::time::Duration::from_millis(200);
    })
    .await;
    let oracle = oracle();
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;

    let admin = member(&app, &owner, &ws, "admin@example.com", "admin").await;
    let developer = member(&app, &owner, &ws, "developer@example.com", "developer").await;
    let operator = member(&app, &owner, &ws, "operator@example.com", "operator").await;
    let viewer = member(&app, &owner, &ws, "viewer@example.com", "viewer").await;

    // A key created by an admin who is then demoted to viewer: effective permissions are the
    // scopes (all admin permissions) ∩ the creator's *current* ones (viewer).
    let demoted = app
        .add_member(&owner, &ws, "demoted@example.com", "admin")
        .await;
    let (_, demoted_key) = app.create_key(&demoted.token, None).await;
    let res = app
        .send_as(
            &owner,
            Method::PATCH,
            &format!("/api/v1/workspaces/{ws}/members/{}", demoted.account_uuid),
            &json!({ "role": "viewer" }),
        )
        .await;
    assert_eq!(res.data()["member"]["role"], "viewer", "{}", res.text);

    let (_, narrow_key) = app.create_key(&owner, Some(&["workspace.view"])).await;
    let (_, owner_key) = app.create_key(&owner, None).await;

    let narrow: BTreeSet<&'static str> = ["workspace.view"].into_iter().collect();
    let principals = vec![
        Principal {
            name: "owner session",
            cred: Cred::Bearer(owner.clone()),
            is_key: false,
            effective: role_permissions("owner"),
        },
        Principal {
            name: "admin session",
            cred: Cred::Bearer(admin),
            is_key: false,
            effective: role_permissions("admin"),
        },
        Principal {
            name: "developer session",
            cred: Cred::Bearer(developer),
            is_key: false,
            effective: role_permissions("developer"),
        },
        Principal {
            name: "operator session",
            cred: Cred::Bearer(operator),
            is_key: false,
            effective: role_permissions("operator"),
        },
        Principal {
            name: "viewer session",
            cred: Cred::Bearer(viewer),
            is_key: false,
            effective: role_permissions("viewer"),
        },
        Principal {
            name: "demoted admin (now viewer) session",
            cred: Cred::Bearer(demoted.token.clone()),
            is_key: false,
            effective: role_permissions("viewer"),
        },
        Principal {
            name: "owner key scoped to workspace.view (X-API-Key)",
            cred: Cred::ApiKey(narrow_key),
            is_key: true,
            effective: narrow
                .intersection(&role_permissions("owner"))
                .copied()
                .collect(),
        },
        Principal {
            name: "owner key with inherited scopes (Bearer)",
            cred: Cred::Bearer(owner_key),
            is_key: true,
            effective: role_permissions("owner"),
        },
        Principal {
            name: "key of the demoted admin, now viewer (Bearer)",
            cred: Cred::Bearer(demoted_key),
            is_key: true,
            effective: role_permissions("admin")
                .intersection(&role_permissions("viewer"))
                .copied()
                .collect(),
        },
        Principal {
            name: "global key (X-API-Key)",
            cred: Cred::ApiKey(GLOBAL_KEY.into()),
            is_key: true,
            effective: ALL_PERMISSIONS.into_iter().collect(),
        },
    ];

    let mut problems = Vec::new();

    // What each principal is granted, as the API reports it.
    for p in &principals {
        let res = probe(
            &app,
            &p.cred,
            Method::GET,
            "/api/v1/system/context",
            &Value::Null,
        )
        .await;
        if res.status != 200 {
            problems.push(format!(
                "{}: GET /system/context → {} {}",
                p.name, res.status, res.text
            ));
            continue;
        }
        let reported: BTreeSet<String> = res.body["data"]["permissions"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let expected: BTreeSet<String> = p.effective.iter().map(|s| s.to_string()).collect();
        if reported != expected {
            problems.push(format!(
                "{}: /system/context permissions {:?}, expected {:?}",
                p.name, reported, expected
            ));
        }
    }

    for op in langbot::api::catalog().operations() {
        let meta = op.meta();
        let Some(row) = oracle.get(meta.id) else {
            problems.push(format!("{}: missing from operations.csv", meta.id));
            continue;
        };
        if !is_authenticated(&row.access) {
            continue;
        }
        // Account-level operations without a permission that end or change the session.
        if row.permission.is_none() && ["logout", "change_password"].contains(&meta.id) {
            for p in principals.iter().filter(|p| p.is_key) {
                let path = fill_path(&row.path, &ws);
                let body = probe_body(meta.id);
                let res = probe(&app, &p.cred, http_method(&row.method), &path, &body).await;
                if res.status != 401 || res.body["code"] != "invalid_authentication" {
                    problems.push(format!(
                        "{} as {}: a session-only operation must refuse API keys with 401 \
                         invalid_authentication, got {} {}",
                        meta.id, p.name, res.status, res.text
                    ));
                }
            }
            continue;
        }
        for p in &principals {
            let path = fill_path(&row.path, &ws);
            let body = probe_body(meta.id);
            let res = probe(&app, &p.cred, http_method(&row.method), &path, &body).await;
            let code = res.body["code"].as_str().unwrap_or_default().to_string();
            let what = format!("{} {} ({}) as {}", row.method, path, meta.id, p.name);
            if p.is_key && row.access == "session" {
                if res.status != 401 || code != "invalid_authentication" {
                    problems.push(format!(
                        "{what}: session-only, an API key must get 401 invalid_authentication; \
                         got {} {}",
                        res.status, res.text
                    ));
                }
                continue;
            }
            let allowed = row
                .permission
                .as_deref()
                .is_none_or(|perm| p.effective.contains(perm));
            if allowed {
                if res.status == 401 || code == "permission_denied" {
                    problems.push(format!(
                        "{what}: holds {:?} but was refused: {} {}",
                        row.permission, res.status, res.text
                    ));
                } else if names_a_missing_resource(&row.path)
                    && (res.status != 404 || code != "resource_not_found")
                {
                    problems.push(format!(
                        "{what}: holds {:?} and names a missing resource, expected 404 \
                         resource_not_found; got {} {}",
                        row.permission, res.status, res.text
                    ));
                } else if !names_a_missing_resource(&row.path)
                    && row.path.contains('{')
                    && !row.path.contains("{workspace_uuid}")
                    && res.status != 200
                {
                    // Only fixed-value placeholders (a record kind): the read itself succeeds.
                    problems.push(format!(
                        "{what}: holds {:?}, names no resource, expected 200; got {} {}",
                        row.permission, res.status, res.text
                    ));
                }
            } else if res.status != 403 || code != "permission_denied" {
                problems.push(format!(
                    "{what}: lacks {:?}, expected 403 permission_denied; got {} {}",
                    row.permission, res.status, res.text
                ));
            }
        }
    }

    // The fixtures survived: every session still works in the Workspace.
    for p in principals.iter().filter(|p| !p.is_key) {
        let res = probe(
            &app,
            &p.cred,
            Method::GET,
            "/api/v1/workspaces/current",
            &Value::Null,
        )
        .await;
        if res.status != 200 {
            problems.push(format!(
                "{}: fixture broken after the matrix: {} {}",
                p.name, res.status, res.text
            ));
        }
    }

    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[tokio::test]
async fn unauthenticated_calls_to_protected_operations_are_401() {
    let app = spawn_app().await;
    let oracle = oracle();
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let unknown_session = format!("lbs_{}", "A".repeat(43));
    let unknown_key = format!("lbk_{}", "B".repeat(43));
    let wrong: Vec<(&str, Cred)> = vec![
        ("unknown session", Cred::Bearer(unknown_session)),
        ("unknown key as bearer", Cred::Bearer(unknown_key.clone())),
        ("unknown key in X-API-Key", Cred::ApiKey(unknown_key)),
        ("garbage bearer", Cred::Bearer("not-a-token".into())),
        ("garbage X-API-Key", Cred::ApiKey("not-a-key".into())),
    ];

    let mut problems = Vec::new();
    let mut protected = 0;
    for op in langbot::api::catalog().operations() {
        let meta = op.meta();
        let Some(row) = oracle.get(meta.id) else {
            problems.push(format!("{}: missing from operations.csv", meta.id));
            continue;
        };
        let path = fill_path(&row.path, &ws);
        let method = http_method(&row.method);
        let body = probe_body(meta.id);
        if !is_authenticated(&row.access) {
            // Public operations never ask for credentials.
            if row.access == "none" {
                let res = probe(&app, &Cred::Anonymous, method, &path, &body).await;
                if res.status == 401 || res.status == 403 {
                    problems.push(format!(
                        "{} {path} ({}): public, but answered {} {}",
                        row.method, meta.id, res.status, res.text
                    ));
                }
            }
            continue;
        }
        protected += 1;
        let res = probe(&app, &Cred::Anonymous, method.clone(), &path, &body).await;
        if res.status != 401 || res.body["code"] != "invalid_authentication" {
            problems.push(format!(
                "{} {path} ({}) without credentials: expected 401 invalid_authentication, got {} {}",
                row.method, meta.id, res.status, res.text
            ));
        } else {
            let has_fields = res.body["msg"].as_str().is_some_and(|m| !m.is_empty())
                && res.body["request_id"]
                    .as_str()
                    .is_some_and(|m| !m.is_empty());
            if !has_fields {
                problems.push(format!("{}: malformed error body {}", meta.id, res.text));
            }
        }
        for (name, cred) in &wrong {
            let res = probe(&app, cred, method.clone(), &path, &body).await;
            if res.status != 401 || res.body["code"] != "invalid_authentication" {
                problems.push(format!(
                    "{} {path} ({}) with {name}: expected 401 invalid_authentication, got {} {}",
                    row.method, meta.id, res.status, res.text
                ));
            }
        }
    }
    assert!(protected > 0, "no protected operation in the catalog");
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
