//! Invitations: one-time tokens that expire and can be revoked; accepting as a new or a
//! logged-in account.

use reqwest::Method;
use serde_json::json;

use crate::helpers::{spawn_app, spawn_app_with, PASSWORD};

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
    let db = app.db();
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
