//! `/api/v1/workspaces/{workspace_uuid}/members`: roles and the one-owner rules.

use reqwest::Method;
use serde_json::json;

use crate::helpers::spawn_app;

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
    let db = app.db();
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
