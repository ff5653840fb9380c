//! Fixtures built through the public API: the first owner, members with roles, API keys.

use reqwest::Method;
use serde_json::{json, Value};

use super::TestApp;

pub const OWNER_EMAIL: &str = "owner@example.com";
pub const PASSWORD: &str = "correct-horse-battery";

/// A logged-in member of a Workspace.
#[derive(Debug, Clone)]
pub struct Member {
    pub email: String,
    pub token: String,
    pub account_uuid: String,
}

impl TestApp {
    /// Initializes the instance; returns the owner's session token.
    pub async fn init_owner(&self) -> String {
        let res = self
            .post(
                "/api/v1/user/init",
                &json!({ "user": OWNER_EMAIL, "password": PASSWORD }),
            )
            .await;
        res.data();
        self.login(OWNER_EMAIL, PASSWORD).await
    }

    pub async fn login(&self, email: &str, password: &str) -> String {
        let res = self
            .post(
                "/api/v1/user/auth",
                &json!({ "user": email, "password": password }),
            )
            .await;
        res.data()["token"].as_str().expect("token").to_string()
    }

    /// GET with a bearer token.
    pub async fn get_as(&self, token: &str, path: &str) -> super::Response {
        self.request(Method::GET, path).bearer(token).send().await
    }

    /// A request with a bearer token and a JSON body.
    pub async fn send_as(
        &self,
        token: &str,
        method: Method,
        path: &str,
        body: &Value,
    ) -> super::Response {
        self.request(method, path)
            .bearer(token)
            .json(body)
            .send()
            .await
    }

    /// The uuid of the Workspace a token works in by default.
    pub async fn workspace_of(&self, token: &str) -> String {
        let res = self.get_as(token, "/api/v1/workspaces/current").await;
        res.data()["workspace"]["uuid"]
            .as_str()
            .expect("workspace uuid")
            .to_string()
    }

    /// Invites `email` with `role` into `workspace` (by `inviter`), registers and logs in.
    pub async fn add_member(
        &self,
        inviter: &str,
        workspace: &str,
        email: &str,
        role: &str,
    ) -> Member {
        let res = self
            .send_as(
                inviter,
                Method::POST,
                &format!("/api/v1/workspaces/{workspace}/invitations"),
                &json!({ "email": email, "role": role }),
            )
            .await;
        let token = res.data()["token"]
            .as_str()
            .expect("invitation token")
            .to_string();
        let res = self
            .post(
                "/api/v1/invitations/accept",
                &json!({ "token": token, "registration": { "email": email, "password": PASSWORD } }),
            )
            .await;
        res.data();
        let session = self.login(email, PASSWORD).await;
        let info = self.get_as(&session, "/api/v1/user/info").await;
        Member {
            email: email.to_string(),
            token: session,
            account_uuid: info.data()["account_uuid"]
                .as_str()
                .expect("account uuid")
                .to_string(),
        }
    }

    /// Creates an API key; `scopes` `None` inherits the creator's permissions. Returns (id, secret).
    pub async fn create_key(&self, token: &str, scopes: Option<&[&str]>) -> (i64, String) {
        let mut body = json!({ "name": "test key" });
        if let Some(scopes) = scopes {
            body["scopes"] = json!(scopes);
        }
        let res = self
            .send_as(token, Method::POST, "/api/v1/apikeys", &body)
            .await;
        let key = &res.data()["key"];
        (
            key["id"].as_i64().expect("key id"),
            key["key"].as_str().expect("key secret").to_string(),
        )
    }

    /// Creates another Workspace owned by `token`'s account (needs `workspaces.multi`).
    pub async fn create_workspace(&self, token: &str, name: &str) -> String {
        let res = self
            .send_as(
                token,
                Method::POST,
                "/api/v1/workspaces",
                &json!({ "name": name }),
            )
            .await;
        res.data()["uuid"]
            .as_str()
            .expect("workspace uuid")
            .to_string()
    }
}
