//! Workspaces, members, invitations and the message language.

use reqwest::Method;
use serde_json::json;

use crate::helpers::{spawn_app, spawn_app_with, PASSWORD};

#[tokio::test]
async fn creating_a_workspace_needs_the_multi_workspace_edition() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let res = app
        .send_as(
            &owner,
            Method::POST,
            "/api/v1/workspaces",
            &json!({ "name": "Second" }),
        )
        .await;
    res.assert_error(403, "edition_limit");

    let multi = spawn_app_with(|s| s.workspaces.multi = true).await;
    let owner = multi.init_owner().await;
    let second = multi.create_workspace(&owner, "Second").await;
    let list = multi.get_as(&owner, "/api/v1/workspaces").await;
    let names: Vec<_> = list.data()["workspaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["name"].clone())
        .collect();
    assert_eq!(names, vec![json!("Default Workspace"), json!("Second")]);
    assert_eq!(list.data()["total"], 2);
    // Without a selector: the first Workspace; with one: the chosen one.
    assert_ne!(multi.workspace_of(&owner).await, second);
    let chosen = multi
        .request(Method::GET, "/api/v1/workspaces/current")
        .bearer(&owner)
        .header("x-workspace-id", &second)
        .send()
        .await;
    assert_eq!(chosen.data()["workspace"]["uuid"], second.as_str());
    let foreign = multi
        .request(Method::GET, "/api/v1/workspaces/current")
        .bearer(&owner)
        .header("x-workspace-id", &uuid::Uuid::new_v4().to_string())
        .send()
        .await;
    foreign.assert_error(404, "resource_not_found");
}

#[tokio::test]
async fn get_and_rename_a_workspace() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let got = app
        .get_as(&owner, &format!("/api/v1/workspaces/{ws}"))
        .await;
    assert_eq!(got.data()["workspace"]["name"], "Default Workspace");
    app.send_as(
        &owner,
        Method::PUT,
        &format!("/api/v1/workspaces/{ws}"),
        &json!({ "name": "Acme" }),
    )
    .await
    .data();
    assert_eq!(
        app.get_as(&owner, &format!("/api/v1/workspaces/{ws}"))
            .await
            .data()["workspace"]["name"],
        "Acme"
    );
    let other = uuid::Uuid::new_v4();
    app.get_as(&owner, &format!("/api/v1/workspaces/{other}"))
        .await
        .assert_error(404, "resource_not_found");
}

#[tokio::test]
async fn members_roles_and_the_owner_rules() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let admin = app
        .add_member(&owner, &ws, "admin@example.com", "admin")
        .await;
    let dev = app
        .add_member(&owner, &ws, "dev@example.com", "developer")
        .await;
    let members = app
        .get_as(&dev.token, &format!("/api/v1/workspaces/{ws}/members"))
        .await;
    let roles: Vec<_> = members.data()["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].clone())
        .collect();
    assert_eq!(
        roles,
        vec![json!("owner"), json!("admin"), json!("developer")]
    );
    let owner_uuid = members.data()["members"][0]["account_uuid"]
        .as_str()
        .unwrap()
        .to_string();

    let path = |account: &str| format!("/api/v1/workspaces/{ws}/members/{account}");
    // Nobody can be made owner, and the owner cannot be demoted or removed.
    app.send_as(
        &admin.token,
        Method::PATCH,
        &path(&dev.account_uuid),
        &json!({ "role": "owner" }),
    )
    .await
    .assert_error(403, "permission_denied");
    app.send_as(
        &admin.token,
        Method::PATCH,
        &path(&owner_uuid),
        &json!({ "role": "viewer" }),
    )
    .await
    .assert_error(400, "last_owner_required");
    app.request(Method::DELETE, &path(&owner_uuid))
        .bearer(&admin.token)
        .send()
        .await
        .assert_error(400, "last_owner_required");
    // A developer cannot manage members.
    app.send_as(
        &dev.token,
        Method::PATCH,
        &path(&admin.account_uuid),
        &json!({ "role": "viewer" }),
    )
    .await
    .assert_error(403, "permission_denied");
    // The admin demotes the developer; the new role applies on the next request.
    let res = app
        .send_as(
            &admin.token,
            Method::PATCH,
            &path(&dev.account_uuid),
            &json!({ "role": "viewer" }),
        )
        .await;
    assert_eq!(res.data()["member"]["role"], "viewer");
    let perms = app
        .get_as(&dev.token, "/api/v1/workspaces/current")
        .await
        .data()["permissions"]
        .clone();
    assert_eq!(
        perms,
        json!(["member.view", "resource.view", "workspace.view"])
    );
    // Removal ends access to the Workspace.
    app.request(Method::DELETE, &path(&dev.account_uuid))
        .bearer(&admin.token)
        .send()
        .await
        .data();
    app.get_as(&dev.token, "/api/v1/workspaces/current")
        .await
        .assert_error(404, "resource_not_found");
}

#[tokio::test]
async fn one_active_owner_is_enforced_by_the_database() {
    use sea_orm::{ConnectionTrait, Statement};
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let admin = app
        .add_member(&owner, &ws, "admin@example.com", "admin")
        .await;
    let db = &app.state.db;
    let sql = format!(
        "UPDATE workspace_memberships SET role = 'owner' WHERE account_uuid = '{}'",
        admin.account_uuid
    );
    let result = db
        .execute(Statement::from_string(db.get_database_backend(), sql))
        .await;
    assert!(result.is_err(), "a second active owner was stored");
    // Concurrent attempts to promote through the API are all refused.
    let path = format!("/api/v1/workspaces/{ws}/members/{}", admin.account_uuid);
    let body = json!({ "role": "owner" });
    let tries = (0..5).map(|_| app.send_as(&owner, Method::PATCH, &path, &body));
    for res in futures_util::future::join_all(tries).await {
        res.assert_error(403, "permission_denied");
    }
}

#[tokio::test]
async fn invitations_are_one_time_tokens_that_expire_and_can_be_revoked() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let created = app
        .send_as(
            &owner,
            Method::POST,
            &format!("/api/v1/workspaces/{ws}/invitations"),
            &json!({ "email": "New@Example.com", "role": "operator" }),
        )
        .await;
    let data = created.data().clone();
    let token = data["token"].as_str().unwrap().to_string();
    assert!(token.starts_with("lbi_") && token.len() == 47);
    assert!(data["link"]
        .as_str()
        .unwrap()
        .ends_with(&format!("#token={token}")));
    assert_eq!(data["invitation"]["normalized_email"], "new@example.com");
    let list = app
        .get_as(&owner, &format!("/api/v1/workspaces/{ws}/invitations"))
        .await;
    assert!(!list.text.contains(&token), "the token is shown only once");
    assert_eq!(list.data()["invitations"].as_array().unwrap().len(), 1);

    let inspected = app
        .post("/api/v1/invitations/inspect", &json!({ "token": token }))
        .await;
    assert_eq!(inspected.data()["workspace"]["uuid"], ws.as_str());
    assert_eq!(inspected.data()["invitation"]["role"], "operator");

    // The invitee must use the invited email.
    app.post(
        "/api/v1/invitations/accept",
        &json!({ "token": token, "registration": { "email": "else@example.com", "password": PASSWORD } }),
    )
    .await
    .assert_error(400, "invitation_invalid");
    let accepted = app
        .post(
            "/api/v1/invitations/accept",
            &json!({ "token": token, "registration": { "email": "new@example.com", "password": PASSWORD } }),
        )
        .await;
    assert_eq!(accepted.data()["login_required"], true);
    let member = app.login("new@example.com", PASSWORD).await;
    let current = app.get_as(&member, "/api/v1/workspaces/current").await;
    assert_eq!(current.data()["membership"]["role"], "operator");
    // Used once.
    app.post("/api/v1/invitations/inspect", &json!({ "token": token }))
        .await
        .assert_error(400, "invitation_invalid");

    // Revoked invitations cannot be used; expired ones neither.
    let second = app
        .send_as(
            &owner,
            Method::POST,
            &format!("/api/v1/workspaces/{ws}/invitations"),
            &json!({ "email": "late@example.com" }),
        )
        .await;
    let second_token = second.data()["token"].as_str().unwrap().to_string();
    let second_uuid = second.data()["invitation"]["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(second.data()["invitation"]["role"], "viewer");
    app.request(
        Method::DELETE,
        &format!("/api/v1/workspaces/{ws}/invitations/{second_uuid}"),
    )
    .bearer(&owner)
    .send()
    .await
    .data();
    let revoked = app
        .post(
            "/api/v1/invitations/inspect",
            &json!({ "token": second_token }),
        )
        .await;
    revoked.assert_error(400, "invitation_invalid");
    assert_eq!(revoked.body["details"]["status"], "revoked");

    let third = app
        .send_as(
            &owner,
            Method::POST,
            &format!("/api/v1/workspaces/{ws}/invitations"),
            &json!({ "email": "expired@example.com" }),
        )
        .await;
    let third_token = third.data()["token"].as_str().unwrap().to_string();
    use sea_orm::{ConnectionTrait, Statement};
    let db = &app.state.db;
    let past = (chrono::Utc::now() - chrono::Duration::days(8)).to_rfc3339();
    let sql = Statement::from_sql_and_values(
        db.get_database_backend(),
        match db.get_database_backend() {
            sea_orm::DatabaseBackend::Postgres => "UPDATE workspace_invitations SET expires_at = $1::timestamptz WHERE normalized_email = 'expired@example.com'",
            _ => "UPDATE workspace_invitations SET expires_at = ? WHERE normalized_email = 'expired@example.com'",
        },
        [past.into()],
    );
    db.execute(sql).await.unwrap();
    let expired = app
        .post(
            "/api/v1/invitations/inspect",
            &json!({ "token": third_token }),
        )
        .await;
    expired.assert_error(400, "invitation_invalid");
    assert_eq!(expired.body["details"]["status"], "expired");
}

#[tokio::test]
async fn a_logged_in_account_accepts_an_invitation_to_another_workspace() {
    let app = spawn_app_with(|s| s.workspaces.multi = true).await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let member = app
        .add_member(&owner, &ws, "member@example.com", "viewer")
        .await;
    let second = app.create_workspace(&owner, "Second").await;
    let invite = app
        .send_as(
            &owner,
            Method::POST,
            &format!("/api/v1/workspaces/{second}/invitations"),
            &json!({ "email": "member@example.com", "role": "developer" }),
        )
        .await;
    let token = invite.data()["token"].as_str().unwrap().to_string();
    let accepted = app
        .send_as(
            &member.token,
            Method::POST,
            "/api/v1/invitations/accept",
            &json!({ "token": token }),
        )
        .await;
    assert_eq!(accepted.data()["login_required"], false);
    let list = app.get_as(&member.token, "/api/v1/workspaces").await;
    assert_eq!(list.data()["total"], 2);
}

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
