//! Bad input on the identity endpoints (SPEC §4, §5): `/api/v1/user/*`, `/api/v1/workspaces/*`,
//! `/api/v1/invitations/*`, `/api/v1/apikeys` — malformed and non-object JSON, missing and
//! mistyped fields, over-long strings, unknown fields, oversized bodies, API key scopes and
//! expiry, expired/revoked/malformed credentials, header combinations, path and query
//! parameters, Workspace languages and the password policy.

mod api_keys;
mod body_size;
mod credentials;
mod fields;
mod json_shape;
mod language;
mod parameters;
mod strings;
mod unknown_fields;

use reqwest::Method;
use serde_json::Value;

use crate::helpers::{spawn_app, Response, TestApp};

const ONE_MIB: usize = 1024 * 1024;

/// The eight Workspace languages (SPEC §6).
const LANGUAGES: [&str; 8] = [
    "en_US", "zh_Hans", "zh_Hant", "ja_JP", "es_ES", "ru_RU", "th_TH", "vi_VN",
];

/// Asserts a success envelope (and so never a 5xx).
#[track_caller]
fn expect_ok(res: &Response, what: &str) {
    assert!(
        res.status == 200 && res.body["code"] == 0,
        "{what}: expected success, got {}: {}",
        res.status,
        res.text
    );
}

/// An email address of exactly `len` characters (`len` ≥ 70): a 64-char local part and a
/// domain of 63-char labels ending in `.com`.
fn email_of_len(len: usize) -> String {
    let local = "a".repeat(64);
    let mut domain = String::from("com");
    while local.len() + 1 + domain.len() < len {
        let room = len - (local.len() + 1 + domain.len()) - 1;
        if room == 0 {
            // A one-char label would need two more chars; lengthen the previous one instead.
            domain.insert(0, 'b');
            continue;
        }
        domain = format!("{}.{domain}", "b".repeat(room.min(63)));
    }
    let email = format!("{local}@{domain}");
    assert_eq!(email.chars().count(), len);
    email
}

/// `now + secs` as RFC 3339.
fn rfc3339_in(secs: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::seconds(secs)).to_rfc3339()
}

/// An initialized instance: the owner's session, Workspace, account and one API key.
struct Fixture {
    app: TestApp,
    owner: String,
    ws: String,
    owner_uuid: String,
    key_id: i64,
    key: String,
}

async fn fixture() -> Fixture {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let info = app.get_as(&owner, "/api/v1/user/info").await;
    let owner_uuid = info.data()["account_uuid"].as_str().unwrap().to_string();
    let (key_id, key) = app.create_key(&owner, None).await;
    Fixture {
        app,
        owner,
        ws,
        owner_uuid,
        key_id,
        key,
    }
}

/// Who calls a body-taking endpoint.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Caller {
    Anonymous,
    Owner,
}

/// An identity endpoint that reads a JSON body.
#[derive(Debug, Clone)]
struct Target {
    method: Method,
    path: String,
    caller: Caller,
}

impl Target {
    fn label(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
}

impl Fixture {
    fn target(&self, method: Method, path: &str, caller: Caller) -> Target {
        Target {
            method,
            path: path.to_string(),
            caller,
        }
    }

    /// Every identity endpoint with a JSON body.
    fn body_targets(&self) -> Vec<Target> {
        let (ws, account, key) = (&self.ws, &self.owner_uuid, self.key_id);
        vec![
            self.target(Method::POST, "/api/v1/user/init", Caller::Anonymous),
            self.target(Method::POST, "/api/v1/user/auth", Caller::Anonymous),
            self.target(Method::POST, "/api/v1/user/change-password", Caller::Owner),
            self.target(Method::POST, "/api/v1/workspaces", Caller::Owner),
            self.target(
                Method::PUT,
                &format!("/api/v1/workspaces/{ws}"),
                Caller::Owner,
            ),
            self.target(
                Method::PATCH,
                &format!("/api/v1/workspaces/{ws}/members/{account}"),
                Caller::Owner,
            ),
            self.target(
                Method::POST,
                &format!("/api/v1/workspaces/{ws}/invitations"),
                Caller::Owner,
            ),
            self.target(
                Method::POST,
                "/api/v1/invitations/inspect",
                Caller::Anonymous,
            ),
            self.target(
                Method::POST,
                "/api/v1/invitations/accept",
                Caller::Anonymous,
            ),
            self.target(Method::POST, "/api/v1/apikeys", Caller::Owner),
            self.target(
                Method::PUT,
                &format!("/api/v1/apikeys/{key}"),
                Caller::Owner,
            ),
            self.target(
                Method::PUT,
                "/api/v1/workspaces/current/language",
                Caller::Owner,
            ),
        ]
    }

    /// Resolves the placeholders of the case tables: `WS` (rename), `MEMBER` (role change)
    /// and `KEY` (key update); anything else is a path ending.
    fn case_target(&self, method: Method, end: &str) -> Target {
        match end {
            "WS" => self.find(method, &self.ws),
            "MEMBER" => self.find(method, &self.owner_uuid),
            "KEY" => self.find(method, &format!("/apikeys/{}", self.key_id)),
            end => self.find(method, end),
        }
    }

    fn find(&self, method: Method, path_end: &str) -> Target {
        self.body_targets()
            .into_iter()
            .find(|t| t.method == method && t.path.ends_with(path_end))
            .unwrap_or_else(|| panic!("no target {method} …{path_end}"))
    }

    /// Sends raw bytes (as `application/json`) to `target`.
    async fn send_raw(&self, target: &Target, body: impl Into<reqwest::Body>) -> Response {
        let mut req = self
            .app
            .request(target.method.clone(), &target.path)
            .raw_json(body);
        if target.caller == Caller::Owner {
            req = req.bearer(&self.owner);
        }
        req.send().await
    }

    async fn send_json(&self, target: &Target, body: &Value) -> Response {
        self.send_raw(target, serde_json::to_vec(body).unwrap())
            .await
    }

    /// `GET` (or any body-less method) with the owner's session.
    async fn owner_call(&self, method: Method, path: &str) -> Response {
        self.app
            .request(method, path)
            .bearer(&self.owner)
            .send()
            .await
    }

    /// A request authenticated with `X-API-Key`.
    async fn key_call(&self, key: &str, method: Method, path: &str) -> Response {
        self.app
            .request(method, path)
            .header("x-api-key", key)
            .send()
            .await
    }

    /// The uuid of this Workspace's key `id`.
    async fn key_uuid(&self, id: i64) -> String {
        let res = self
            .owner_call(Method::GET, &format!("/api/v1/apikeys/{id}"))
            .await;
        res.data()["key"]["uuid"].as_str().unwrap().to_string()
    }

    async fn context_with_key(&self, key: &str) -> Response {
        self.key_call(key, Method::GET, "/api/v1/system/context")
            .await
    }
}
