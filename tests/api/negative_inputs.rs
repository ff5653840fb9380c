//! Bad input on the identity endpoints (SPEC §4, §5): malformed and non-object JSON, missing
//! and mistyped fields, over-long strings, unknown fields, oversized bodies, API key scopes and
//! expiry, expired/revoked/malformed credentials, header combinations, path and query
//! parameters, Workspace languages and the password policy.
//!
//! Every check asserts the HTTP status and the error `code`, and that bad input never
//! produces a 5xx.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{spawn_app, spawn_app_with, Response, TestApp, OWNER_EMAIL, PASSWORD};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const ONE_MIB: usize = 1024 * 1024;

/// The eight Workspace languages (SPEC §6).
const LANGUAGES: [&str; 8] = [
    "en_US", "zh_Hans", "zh_Hant", "ja_JP", "es_ES", "ru_RU", "th_TH", "vi_VN",
];

/// Asserts an error answer: never a 5xx, then the status, the code and the error body shape.
#[track_caller]
fn expect_error(res: &Response, status: u16, code: &str, what: &str) {
    assert!(
        res.status < 500,
        "{what}: bad input produced a server error {}: {}",
        res.status,
        res.text
    );
    assert_eq!(
        (res.status, res.body["code"].as_str()),
        (status, Some(code)),
        "{what}: {}",
        res.text
    );
    res.assert_error(status, code);
}

/// The `field` of every entry in the error's `errors` array.
fn error_fields(res: &Response) -> Vec<String> {
    res.body["errors"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|e| e["field"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Asserts an error whose `errors` array names `field`.
#[track_caller]
fn expect_field_error(res: &Response, status: u16, code: &str, field: &str, what: &str) {
    expect_error(res, status, code, what);
    let fields = error_fields(res);
    assert!(
        fields.iter().any(|f| f == field),
        "{what}: expected `errors` to name `{field}`, got {fields:?}: {}",
        res.text
    );
}

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

/// Sends raw HTTP/1.1 bytes on a fresh connection; answers the status and the JSON body.
async fn raw_http(app: &TestApp, request: Vec<u8>) -> (u16, Value) {
    let addr = app.address.trim_start_matches("http://").to_string();
    let answer = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("read timeout");
        stream.write_all(&request).expect("write request");
        // Nothing more will come: the server need not wait for the declared rest.
        let _ = stream.shutdown(std::net::Shutdown::Write);
        let mut buf = Vec::new();
        // The server may close before reading what it refused; what it sent is enough.
        let _ = stream.read_to_end(&mut buf);
        String::from_utf8_lossy(&buf).to_string()
    })
    .await
    .expect("raw request task");
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no HTTP status in {answer:?}"));
    let body = answer
        .split_once("\r\n\r\n")
        .and_then(|(_, b)| serde_json::from_str(b).ok())
        .unwrap_or(Value::Null);
    (status, body)
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

// ---------------------------------------------------------------------------------------------
// JSON shape
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn malformed_json_is_invalid_json_on_every_identity_body() {
    let fx = fixture().await;
    let bodies: Vec<(&str, Vec<u8>)> = vec![
        ("unterminated object", b"{".to_vec()),
        ("truncated value", br#"{"user":"#.to_vec()),
        ("single quotes", br#"{'user': 'a@example.com'}"#.to_vec()),
        ("not JSON at all", b"not json".to_vec()),
        ("trailing comma", br#"{"name":"a",}"#.to_vec()),
        ("trailing garbage", br#"{"name":"a"} x"#.to_vec()),
        ("two documents", br#"{"name":"a"}{"name":"b"}"#.to_vec()),
        ("NaN", br#"{"name": NaN}"#.to_vec()),
        ("bare word", b"undefined".to_vec()),
        ("invalid UTF-8", b"{\"name\":\"\xff\xfe\"}".to_vec()),
        ("raw control char", b"{\"name\":\"a\x01b\"}".to_vec()),
        ("byte order mark", b"\xef\xbb\xbf{}".to_vec()),
        ("lone surrogate escape", br#"{"name":"\ud800"}"#.to_vec()),
    ];
    for target in fx.body_targets() {
        for (what, body) in &bodies {
            let res = fx.send_raw(&target, body.clone()).await;
            expect_error(
                &res,
                400,
                "invalid_json",
                &format!("{} with {what}", target.label()),
            );
            assert!(
                res.body["details"]["line"].is_u64(),
                "invalid_json names the position: {}",
                res.text
            );
        }
    }
}

#[tokio::test]
async fn non_object_bodies_are_invalid_request() {
    let fx = fixture().await;
    let bodies = ["[]", "\"x\"", "42", "1.5", "true", "null", "[{}]", "[null]"];
    for target in fx.body_targets() {
        for body in bodies {
            let res = fx.send_raw(&target, body).await;
            expect_error(
                &res,
                400,
                "invalid_request",
                &format!("{} with {body}", target.label()),
            );
        }
    }
}

#[tokio::test]
async fn arrays_are_not_taken_as_positional_fields() {
    let fx = fixture().await;
    // An array holding the right number of values is still not an object: it must not be
    // taken as the fields in declaration order (serde's sequence form of a struct).
    let auth = fx.find(Method::POST, "/user/auth");
    let language = fx.find(Method::PUT, "/workspaces/current/language");
    let keys = fx.find(Method::POST, "/apikeys");
    let rename = fx.case_target(Method::PUT, "WS");
    let cases = [
        (&auth, format!(r#"["{OWNER_EMAIL}","{PASSWORD}"]"#)),
        (&language, r#"["zh_Hans"]"#.to_string()),
        (&keys, r#"["array key", null, null, null]"#.to_string()),
        (&rename, r#"["Array Workspace"]"#.to_string()),
    ];
    // Every case is tried before failing, so the report lists all that were accepted.
    let mut accepted = Vec::new();
    for (target, body) in cases {
        let res = fx.send_raw(target, body.clone()).await;
        let what = format!("{} with {body}", target.label());
        if (res.status, res.body["code"].as_str()) == (400, Some("invalid_request")) {
            expect_error(&res, 400, "invalid_request", &what);
        } else {
            accepted.push(format!("{what} → {} {}", res.status, res.text));
        }
    }
    assert!(
        accepted.is_empty(),
        "array bodies must be 400 invalid_request: {accepted:#?}"
    );
    let current = fx
        .owner_call(Method::GET, "/api/v1/workspaces/current/language")
        .await;
    assert_eq!(current.data()["language"], "en_US");
}

// ---------------------------------------------------------------------------------------------
// Fields: missing, mistyped, too long, unknown
// ---------------------------------------------------------------------------------------------

/// `(method, target path end or placeholder, body, the missing field)`.
fn missing_field_cases() -> Vec<(Method, &'static str, Value, &'static str)> {
    vec![
        (Method::POST, "/user/init", json!({}), "user"),
        (
            Method::POST,
            "/user/init",
            json!({ "user": "a@example.com" }),
            "password",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "password": PASSWORD }),
            "user",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "user": OWNER_EMAIL }),
            "password",
        ),
        (
            Method::POST,
            "/user/change-password",
            json!({ "current_password": PASSWORD }),
            "new_password",
        ),
        (
            Method::POST,
            "/user/change-password",
            json!({ "new_password": "another-password" }),
            "current_password",
        ),
        (Method::POST, "/workspaces", json!({}), "name"),
        (Method::PUT, "WS", json!({}), "name"),
        (Method::PATCH, "MEMBER", json!({}), "role"),
        (
            Method::POST,
            "/invitations",
            json!({ "role": "viewer" }),
            "email",
        ),
        (Method::POST, "/invitations/inspect", json!({}), "token"),
        (Method::POST, "/invitations/accept", json!({}), "token"),
        (
            Method::POST,
            "/invitations/accept",
            json!({ "token": "lbi_x", "registration": { "email": "a@example.com" } }),
            "registration.password",
        ),
        (
            Method::POST,
            "/invitations/accept",
            json!({ "token": "lbi_x", "registration": { "password": PASSWORD } }),
            "registration.email",
        ),
        (
            Method::POST,
            "/apikeys",
            json!({ "description": "d" }),
            "name",
        ),
        (
            Method::PUT,
            "/workspaces/current/language",
            json!({}),
            "language",
        ),
    ]
}

#[tokio::test]
async fn missing_required_fields_are_invalid_request_and_mentioned() {
    let fx = fixture().await;
    for (method, end, body, field) in missing_field_cases() {
        let target = fx.case_target(method, end);
        let what = format!("{} without {field}", target.label());
        let res = fx.send_json(&target, &body).await;
        expect_error(&res, 400, "invalid_request", &what);
        let leaf = field.rsplit('.').next().unwrap_or(field);
        assert!(
            res.text.contains(&format!("`{leaf}`")),
            "{what}: the error should mention `{leaf}`: {}",
            res.text
        );
    }
    // An empty body counts as `{}`.
    let init = fx.find(Method::POST, "/user/init");
    let res = fx.send_raw(&init, "").await;
    expect_error(&res, 400, "invalid_request", "user/init with an empty body");
    let res = fx.send_raw(&init, "  \n").await;
    expect_error(&res, 400, "invalid_request", "user/init with a blank body");
}

#[tokio::test]
async fn missing_required_fields_are_named_in_the_errors_array() {
    let fx = fixture().await;
    // Every case is tried before failing, so the report lists all that miss the name.
    let mut unnamed = Vec::new();
    for (method, end, body, field) in missing_field_cases() {
        let target = fx.case_target(method, end);
        let res = fx.send_json(&target, &body).await;
        let what = format!("{} without {field}", target.label());
        expect_error(&res, 400, "invalid_request", &what);
        if !error_fields(&res).iter().any(|f| f == field) {
            unnamed.push(format!("{what}: errors = {}", res.body["errors"]));
        }
    }
    assert!(
        unnamed.is_empty(),
        "`errors[].field` must name the missing field: {unnamed:#?}"
    );
}

#[tokio::test]
async fn wrong_types_are_invalid_request_naming_the_field() {
    let fx = fixture().await;
    let cases: Vec<(Method, &str, Value, &str)> = vec![
        (
            Method::POST,
            "/user/init",
            json!({ "user": 5, "password": PASSWORD }),
            "user",
        ),
        (
            Method::POST,
            "/user/init",
            json!({ "user": "a@example.com", "password": true }),
            "password",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "user": ["a"], "password": PASSWORD }),
            "user",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "user": OWNER_EMAIL, "password": { "x": 1 } }),
            "password",
        ),
        (
            Method::POST,
            "/user/change-password",
            json!({ "current_password": PASSWORD, "new_password": 12_345_678 }),
            "new_password",
        ),
        (
            Method::POST,
            "/user/change-password",
            json!({ "current_password": null, "new_password": "another-password" }),
            "current_password",
        ),
        (Method::POST, "/workspaces", json!({ "name": 42 }), "name"),
        (Method::PUT, "WS", json!({ "name": null }), "name"),
        (Method::PUT, "WS", json!({ "name": ["x"] }), "name"),
        (Method::PATCH, "MEMBER", json!({ "role": 1 }), "role"),
        (
            Method::PATCH,
            "MEMBER",
            json!({ "role": "superuser" }),
            "role",
        ),
        (Method::PATCH, "MEMBER", json!({ "role": "Admin" }), "role"),
        (Method::POST, "/invitations", json!({ "email": 5 }), "email"),
        (
            Method::POST,
            "/invitations",
            json!({ "email": "x@example.com", "role": 3 }),
            "role",
        ),
        (
            Method::POST,
            "/invitations",
            json!({ "email": "x@example.com", "role": "owner" }),
            "role",
        ),
        (
            Method::POST,
            "/invitations",
            json!({ "email": "x@example.com", "role": "root" }),
            "role",
        ),
        (
            Method::POST,
            "/invitations/inspect",
            json!({ "token": 1 }),
            "token",
        ),
        (
            Method::POST,
            "/invitations/accept",
            json!({ "token": ["lbi_x"] }),
            "token",
        ),
        (
            Method::POST,
            "/invitations/accept",
            json!({ "token": "lbi_x", "registration": "a@example.com" }),
            "registration",
        ),
        (
            Method::POST,
            "/invitations/accept",
            json!({ "token": "lbi_x", "registration": { "email": 5, "password": PASSWORD } }),
            "registration.email",
        ),
        (Method::POST, "/apikeys", json!({ "name": 5 }), "name"),
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "description": 5 }),
            "description",
        ),
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "scopes": "workspace.view" }),
            "scopes",
        ),
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "scopes": { "a": 1 } }),
            "scopes",
        ),
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "scopes": [1] }),
            "scopes[0]",
        ),
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "expires_at": 1_900_000_000 }),
            "expires_at",
        ),
        (Method::PUT, "KEY", json!({ "name": ["x"] }), "name"),
        (
            Method::PUT,
            "KEY",
            json!({ "description": false }),
            "description",
        ),
        (
            Method::PUT,
            "/workspaces/current/language",
            json!({ "language": 5 }),
            "language",
        ),
    ];
    for (method, end, body, field) in cases {
        let target = fx.case_target(method, end);
        let res = fx.send_json(&target, &body).await;
        expect_field_error(
            &res,
            400,
            "invalid_request",
            field,
            &format!("{} with {body}", target.label()),
        );
    }
    // Nothing was created or changed by the refused requests.
    let keys = fx.owner_call(Method::GET, "/api/v1/apikeys").await;
    assert_eq!(keys.data()["total"], 1, "{}", keys.text);
    let invitations = fx
        .owner_call(
            Method::GET,
            &format!("/api/v1/workspaces/{}/invitations", fx.ws),
        )
        .await;
    assert_eq!(invitations.data()["total"], 0, "{}", invitations.text);
}

#[tokio::test]
async fn over_long_and_malformed_strings_are_refused_and_limits_are_inclusive() {
    let fx = fixture().await;
    let name_256 = "n".repeat(256);
    let email_321 = email_of_len(321);
    let description_513 = "d".repeat(513);
    let cases: Vec<(Method, &str, Value, &str)> = vec![
        // Emails: at most 320 characters, and an email.
        (
            Method::POST,
            "/user/init",
            json!({ "user": email_321, "password": PASSWORD }),
            "user",
        ),
        (
            Method::POST,
            "/user/init",
            json!({ "user": "not-an-email", "password": PASSWORD }),
            "user",
        ),
        (
            Method::POST,
            "/user/init",
            json!({ "user": "", "password": PASSWORD }),
            "user",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "user": email_321, "password": PASSWORD }),
            "user",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "user": "", "password": PASSWORD }),
            "user",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "user": OWNER_EMAIL, "password": "" }),
            "password",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "user": OWNER_EMAIL, "password": "p".repeat(1025) }),
            "password",
        ),
        (
            Method::POST,
            "/invitations",
            json!({ "email": email_321 }),
            "email",
        ),
        (
            Method::POST,
            "/invitations",
            json!({ "email": "nobody" }),
            "email",
        ),
        (
            Method::POST,
            "/invitations",
            json!({ "email": "" }),
            "email",
        ),
        (
            Method::POST,
            "/invitations/accept",
            json!({ "token": "lbi_x", "registration": { "email": email_321, "password": PASSWORD } }),
            "registration.email",
        ),
        // Tokens: at most 128 characters, not empty.
        (
            Method::POST,
            "/invitations/inspect",
            json!({ "token": "t".repeat(129) }),
            "token",
        ),
        (
            Method::POST,
            "/invitations/inspect",
            json!({ "token": "" }),
            "token",
        ),
        (
            Method::POST,
            "/invitations/accept",
            json!({ "token": "t".repeat(129) }),
            "token",
        ),
        // Names: 1..=255 characters (counted as characters, not bytes).
        (
            Method::POST,
            "/workspaces",
            json!({ "name": name_256 }),
            "name",
        ),
        (Method::PUT, "WS", json!({ "name": name_256 }), "name"),
        (
            Method::PUT,
            "WS",
            json!({ "name": "é".repeat(256) }),
            "name",
        ),
        (Method::PUT, "WS", json!({ "name": "" }), "name"),
        (Method::PUT, "WS", json!({ "name": "   " }), "name"),
        (
            Method::POST,
            "/apikeys",
            json!({ "name": name_256 }),
            "name",
        ),
        (Method::POST, "/apikeys", json!({ "name": "" }), "name"),
        (Method::PUT, "KEY", json!({ "name": name_256 }), "name"),
        (Method::PUT, "KEY", json!({ "name": "" }), "name"),
        // Descriptions: at most 512 characters.
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "description": description_513 }),
            "description",
        ),
        (
            Method::PUT,
            "KEY",
            json!({ "description": description_513 }),
            "description",
        ),
        // Scopes: at most 32 entries.
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "scopes": vec!["workspace.view"; 33] }),
            "scopes",
        ),
    ];
    for (method, end, body, field) in cases {
        let target = fx.case_target(method, end);
        let res = fx.send_json(&target, &body).await;
        expect_field_error(
            &res,
            400,
            "invalid_request",
            field,
            &format!("{} with a bad {field}", target.label()),
        );
    }
    // A blank API key name is refused too (the resource's own code).
    let keys = fx.find(Method::POST, "/apikeys");
    let res = fx.send_json(&keys, &json!({ "name": "   " })).await;
    expect_field_error(&res, 400, "invalid_api_key", "name", "a blank key name");
    let update = fx.find(Method::PUT, &format!("/apikeys/{}", fx.key_id));
    let res = fx.send_json(&update, &json!({ "name": " \t " })).await;
    expect_field_error(&res, 400, "invalid_api_key", "name", "a blank key rename");

    // The limits themselves are allowed.
    let res = fx
        .send_json(
            &keys,
            &json!({ "name": "n".repeat(255), "description": "d".repeat(512) }),
        )
        .await;
    let created = res.data()["key"].clone();
    assert_eq!(created["name"].as_str().unwrap().len(), 255);
    assert_eq!(created["description"].as_str().unwrap().len(), 512);
    let res = fx
        .send_json(&keys, &json!({ "name": "é".repeat(255) }))
        .await;
    expect_ok(&res, "a 255-character multibyte key name");
    let res = fx
        .send_json(
            &update,
            &json!({ "name": "u".repeat(255), "description": "d".repeat(512) }),
        )
        .await;
    expect_ok(&res, "a key renamed at the limits");
    let rename = fx.case_target(Method::PUT, "WS");
    let res = fx
        .send_json(&rename, &json!({ "name": "w".repeat(255) }))
        .await;
    expect_ok(&res, "a 255-character Workspace name");
    let invite = fx.find(Method::POST, "/invitations");
    let res = fx
        .send_json(&invite, &json!({ "email": email_of_len(320) }))
        .await;
    expect_ok(&res, "a 320-character invitation email");
}

#[tokio::test]
async fn unknown_body_fields_are_refused_but_langbot_legacy_keys_are_ignored() {
    let fx = fixture().await;
    let with_unknown: Vec<(Method, &str, Value, &str)> = vec![
        (
            Method::POST,
            "/user/init",
            json!({ "user": "a@example.com", "password": PASSWORD, "bogus_field": 1 }),
            "bogus_field",
        ),
        (
            Method::POST,
            "/user/auth",
            json!({ "user": OWNER_EMAIL, "password": PASSWORD, "remember_me": true }),
            "remember_me",
        ),
        (
            Method::POST,
            "/user/change-password",
            json!({ "currentPassword": PASSWORD, "new_password": "another-password" }),
            "currentPassword",
        ),
        (
            Method::POST,
            "/workspaces",
            json!({ "name": "w", "plan": "pro" }),
            "plan",
        ),
        (
            Method::PUT,
            "WS",
            json!({ "name": "w", "owner": "me" }),
            "owner",
        ),
        (
            Method::PATCH,
            "MEMBER",
            json!({ "role": "viewer", "force": true }),
            "force",
        ),
        (
            Method::POST,
            "/invitations",
            json!({ "email": "x@example.com", "message": "hi" }),
            "message",
        ),
        (
            Method::POST,
            "/invitations/inspect",
            json!({ "token": "lbi_x", "extra": 1 }),
            "extra",
        ),
        (
            Method::POST,
            "/invitations/accept",
            json!({ "token": "lbi_x", "registration": { "email": "a@example.com", "password": PASSWORD, "name": "A" } }),
            "registration.name",
        ),
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "permissions": [] }),
            "permissions",
        ),
        (
            Method::POST,
            "/apikeys",
            json!({ "name": "k", "key": "lbk_mine" }),
            "key",
        ),
        (
            Method::PUT,
            "KEY",
            json!({ "name": "k", "scopes": [] }),
            "scopes",
        ),
        (
            Method::PUT,
            "KEY",
            json!({ "name": "k", "expires_at": rfc3339_in(3600) }),
            "expires_at",
        ),
        (
            Method::PUT,
            "/workspaces/current/language",
            json!({ "language": "en_US", "locale": "en" }),
            "locale",
        ),
    ];
    for (method, end, body, field) in with_unknown {
        let target = fx.case_target(method, end);
        let res = fx.send_json(&target, &body).await;
        expect_field_error(
            &res,
            400,
            "invalid_request",
            field,
            &format!("{} with unknown `{field}`", target.label()),
        );
    }
    // Nothing changed: the key keeps its scopes and expiry, the password is unchanged.
    let key = fx
        .owner_call(Method::GET, &format!("/api/v1/apikeys/{}", fx.key_id))
        .await;
    assert_eq!(key.data()["key"]["name"], "test key");
    assert!(key.data()["key"]["expires_at"].is_null());
    fx.app.login(OWNER_EMAIL, PASSWORD).await;

    // LangBot's read-only / legacy keys are accepted and ignored.
    let legacy = json!({
        "uuid": "00000000-0000-0000-0000-000000000000",
        "workspace_uuid": "00000000-0000-0000-0000-000000000000",
        "created_at": "2020-01-01T00:00:00Z",
        "updated_at": "2020-01-01T00:00:00Z",
        "for_version": "4.11.2",
    });
    let with_legacy = |mut body: Value| {
        for (k, v) in legacy.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    let auth = fx.find(Method::POST, "/user/auth");
    let res = fx
        .send_json(
            &auth,
            &with_legacy(json!({ "user": OWNER_EMAIL, "password": PASSWORD })),
        )
        .await;
    assert!(res.data()["token"].as_str().unwrap().starts_with("lbs_"));
    let keys = fx.find(Method::POST, "/apikeys");
    let res = fx
        .send_json(&keys, &with_legacy(json!({ "name": "legacy key" })))
        .await;
    let created = res.data()["key"].clone();
    assert_ne!(
        created["uuid"], legacy["uuid"],
        "a sent uuid must be ignored"
    );
    assert_eq!(created["workspace_uuid"], fx.ws.as_str());
    assert_ne!(created["created_at"], legacy["created_at"]);
    let update = fx.find(Method::PUT, &format!("/apikeys/{}", fx.key_id));
    let res = fx
        .send_json(&update, &with_legacy(json!({ "name": "renamed" })))
        .await;
    expect_ok(&res, "key update with legacy keys");
    let rename = fx.case_target(Method::PUT, "WS");
    let res = fx
        .send_json(
            &rename,
            &with_legacy(json!({ "name": "Renamed Workspace" })),
        )
        .await;
    assert_eq!(res.data()["workspace"]["uuid"], fx.ws.as_str());
    let language = fx.find(Method::PUT, "/workspaces/current/language");
    let res = fx
        .send_json(&language, &with_legacy(json!({ "language": "ja_JP" })))
        .await;
    assert_eq!(res.data()["language"], "ja_JP");
    let invite = fx.find(Method::POST, "/invitations");
    let res = fx
        .send_json(
            &invite,
            &with_legacy(json!({ "email": "legacy@example.com", "role": "viewer" })),
        )
        .await;
    let token = res.data()["token"].as_str().unwrap().to_string();
    assert_eq!(res.data()["invitation"]["workspace_uuid"], fx.ws.as_str());
    let inspect = fx.find(Method::POST, "/invitations/inspect");
    let res = fx
        .send_json(&inspect, &with_legacy(json!({ "token": token })))
        .await;
    expect_ok(&res, "inspect with legacy keys");
    let accept = fx.find(Method::POST, "/invitations/accept");
    let res = fx
        .send_json(
            &accept,
            &with_legacy(json!({
                "token": token,
                "registration": { "email": "legacy@example.com", "password": PASSWORD },
            })),
        )
        .await;
    assert_eq!(res.data()["workspace_uuid"], fx.ws.as_str());
    let change = fx.find(Method::POST, "/user/change-password");
    let res = fx
        .send_json(
            &change,
            &with_legacy(json!({ "current_password": PASSWORD, "new_password": "a-new-password" })),
        )
        .await;
    expect_ok(&res, "change-password with legacy keys");
}

#[tokio::test]
async fn user_init_ignores_legacy_keys() {
    let app = spawn_app().await;
    let res = app
        .post(
            "/api/v1/user/init",
            &json!({
                "user": OWNER_EMAIL,
                "password": PASSWORD,
                "uuid": "not-even-a-uuid",
                "created_at": "yesterday",
                "updated_at": 0,
                "stages": [],
                "plugin_processors": {},
                "adapter_runtime_values": null,
            }),
        )
        .await;
    expect_ok(&res, "user/init with legacy keys");
    app.login(OWNER_EMAIL, PASSWORD).await;
}

// ---------------------------------------------------------------------------------------------
// Body size
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn bodies_over_one_mebibyte_are_payload_too_large() {
    let fx = fixture().await;
    let app = &fx.app;
    let expect_413 = |res: &Response, what: &str| {
        expect_error(res, 413, "payload_too_large", what);
        assert_eq!(res.body["details"]["limit_bytes"], ONE_MIB, "{}", res.text);
    };
    let huge = format!(r#"{{"user":"{}","password":"x"}}"#, "a".repeat(2 * ONE_MIB));

    // A really big body with its Content-Length: public and authenticated endpoints.
    let init = fx.find(Method::POST, "/user/init");
    expect_413(
        &fx.send_raw(&init, huge.clone()).await,
        "2 MiB to user/init",
    );
    for target in fx.body_targets() {
        let res = fx.send_raw(&target, huge.clone()).await;
        expect_413(&res, &format!("2 MiB to {}", target.label()));
    }

    // One byte over the limit is too much; exactly the limit is read (and then judged).
    let keys = fx.find(Method::POST, "/apikeys");
    let padded = |len: usize| {
        let mut body = br#"{"name":"padded key"}"#.to_vec();
        body.resize(len, b' ');
        body
    };
    expect_413(
        &fx.send_raw(&keys, padded(ONE_MIB + 1)).await,
        "limit + 1 bytes",
    );
    let res = fx.send_raw(&keys, padded(ONE_MIB)).await;
    assert_eq!(res.data()["key"]["name"], "padded key");
    // A big body under the limit is judged by its content: 400, not 413.
    let res = fx
        .send_json(&keys, &json!({ "name": "n".repeat(ONE_MIB - 100) }))
        .await;
    expect_field_error(&res, 400, "invalid_request", "name", "a 1 MiB name");

    // A streamed (chunked) body without Content-Length that is really that big.
    for target in [&init, &keys] {
        let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
            (0..40).map(|_| Ok(vec![b' '; 64 * 1024])).collect();
        let body = reqwest::Body::wrap_stream(futures_util::stream::iter(chunks));
        let res = fx.send_raw(target, body).await;
        expect_413(&res, &format!("chunked 2.5 MiB to {}", target.label()));
    }

    // A declared Content-Length over the limit is refused before the body is read.
    for declared in [ONE_MIB as u64 + 1, 5_000_000, 1 << 40] {
        let request = format!(
            "POST /api/v1/user/init HTTP/1.1\r\nHost: localhost\r\n\
             Content-Type: application/json\r\nContent-Length: {declared}\r\n\
             Connection: close\r\n\r\n{{}}"
        );
        let (status, body) = raw_http(app, request.into_bytes()).await;
        assert_eq!(status, 413, "declared {declared}: {body}");
        assert_eq!(
            body["code"], "payload_too_large",
            "declared {declared}: {body}"
        );
        let request = format!(
            "POST /api/v1/apikeys HTTP/1.1\r\nHost: localhost\r\n\
             Authorization: Bearer {}\r\n\
             Content-Type: application/json\r\nContent-Length: {declared}\r\n\
             Connection: close\r\n\r\n{{}}",
            fx.owner
        );
        let (status, body) = raw_http(app, request.into_bytes()).await;
        assert_eq!(status, 413, "declared {declared} to apikeys: {body}");
        assert_eq!(body["code"], "payload_too_large", "{body}");
    }

    // The instance is still usable and nothing was initialized twice or half-created.
    let keys_now = fx.owner_call(Method::GET, "/api/v1/apikeys").await;
    assert_eq!(keys_now.data()["total"], 2, "{}", keys_now.text);
}

// ---------------------------------------------------------------------------------------------
// API key scopes and expiry
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn api_key_scopes_must_be_known_and_held_by_the_creator() {
    let fx = fixture().await;
    let app = &fx.app;
    let create = |token: &str, body: Value| {
        let token = token.to_string();
        async move {
            app.send_as(&token, Method::POST, "/api/v1/apikeys", &body)
                .await
        }
    };
    for scopes in [
        json!(["nope"]),
        json!(["workspace.view", "nope"]),
        json!([""]),
        json!(["WORKSPACE.VIEW"]),
        json!(["workspace.view "]),
        json!(["workspace_view"]),
        json!(["owner.transfer"]),
        json!(["*"]),
        json!(["admin"]),
    ] {
        let res = create(&fx.owner, json!({ "name": "k", "scopes": scopes })).await;
        expect_field_error(
            &res,
            400,
            "invalid_api_key",
            "scopes",
            &format!("owner key with scopes {scopes}"),
        );
    }

    // Scopes must be held by the creator: admins lack the owner-only permissions.
    let admin = app
        .add_member(&fx.owner, &fx.ws, "admin@example.com", "admin")
        .await;
    for scopes in [
        json!(["billing_link.manage"]),
        json!(["workspace.delete"]),
        json!(["workspace.view", "billing_link.manage"]),
    ] {
        let res = create(&admin.token, json!({ "name": "k", "scopes": scopes })).await;
        expect_error(
            &res,
            403,
            "permission_denied",
            &format!("admin key with scopes {scopes}"),
        );
    }
    // An unknown scope is reported as such even next to one the creator lacks.
    let res = create(
        &admin.token,
        json!({ "name": "k", "scopes": ["billing_link.manage", "nope"] }),
    )
    .await;
    expect_field_error(
        &res,
        400,
        "invalid_api_key",
        "scopes",
        "admin, unknown + lacking",
    );

    // Without `api_key.manage` no key can be created at all.
    let developer = app
        .add_member(&fx.owner, &fx.ws, "dev@example.com", "developer")
        .await;
    let viewer = app
        .add_member(&fx.owner, &fx.ws, "viewer@example.com", "viewer")
        .await;
    for (who, token) in [("developer", &developer.token), ("viewer", &viewer.token)] {
        for body in [
            json!({ "name": "k" }),
            json!({ "name": "k", "scopes": ["member.invite"] }),
            json!({ "name": "k", "scopes": ["workspace.view"] }),
        ] {
            let res = create(token, body.clone()).await;
            expect_error(
                &res,
                403,
                "permission_denied",
                &format!("{who} with {body}"),
            );
        }
    }

    // Only the fixture key exists; the admin's inherited key lacks the owner-only scopes.
    let list = fx.owner_call(Method::GET, "/api/v1/apikeys").await;
    assert_eq!(list.data()["total"], 1, "{}", list.text);
    let res = create(&admin.token, json!({ "name": "inherited" })).await;
    let scopes = res.data()["key"]["scopes"].as_array().unwrap().clone();
    assert!(!scopes.contains(&json!("billing_link.manage")));
    assert!(!scopes.contains(&json!("workspace.delete")));
}

#[tokio::test]
async fn api_key_expiry_must_be_a_future_rfc3339_time() {
    let fx = fixture().await;
    let past = rfc3339_in(-60);
    let now_ish = rfc3339_in(0);
    for expires_at in [
        "yesterday",
        "",
        "   ",
        "2000-01-01T00:00:00Z",
        past.as_str(),
        now_ish.as_str(),
        "2099-13-01T00:00:00Z",
        "2099-02-30T00:00:00Z",
        "2099-01-01",
        "2099-01-01T00:00:00",
        "1900000000",
        "next year",
        "2099-01-01T25:00:00Z",
    ] {
        let res = fx
            .app
            .send_as(
                &fx.owner,
                Method::POST,
                "/api/v1/apikeys",
                &json!({ "name": "k", "expires_at": expires_at }),
            )
            .await;
        expect_field_error(
            &res,
            400,
            "invalid_api_key",
            "expires_at",
            &format!("expires_at {expires_at:?}"),
        );
    }
    let list = fx.owner_call(Method::GET, "/api/v1/apikeys").await;
    assert_eq!(list.data()["total"], 1, "{}", list.text);
    // A future time is accepted (the positive control for the checks above).
    let res = fx
        .app
        .send_as(
            &fx.owner,
            Method::POST,
            "/api/v1/apikeys",
            &json!({ "name": "k", "expires_at": "2099-01-01T00:00:00+08:00" }),
        )
        .await;
    assert_eq!(res.data()["key"]["expires_at"], "2098-12-31T16:00:00Z");
}

// ---------------------------------------------------------------------------------------------
// Credentials
// ---------------------------------------------------------------------------------------------

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
    expect_error(
        &fx.context_with_key(&key).await,
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
    expect_error(&res, 401, "invalid_authentication", "expired key as Bearer");
    let res = fx
        .key_call(&key, Method::GET, "/api/v1/workspaces/current/language")
        .await;
    expect_error(
        &res,
        401,
        "invalid_authentication",
        "expired key on language",
    );
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
    expect_error(
        &fx.context_with_key(&fx.key).await,
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
    expect_error(&res, 401, "invalid_authentication", "revoked key as Bearer");
    let res = fx
        .app
        .request(Method::PUT, "/api/v1/workspaces/current/language")
        .header("x-api-key", &fx.key)
        .json(&json!({ "language": "ja_JP" }))
        .send()
        .await;
    expect_error(&res, 401, "invalid_authentication", "revoked key writing");
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
            expect_error(
                &res,
                401,
                "invalid_authentication",
                &format!("{method} {path} with Bearer {token:.60}"),
            );
        }
        let res = fx.context_with_key(token).await;
        expect_error(
            &res,
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
            expect_error(
                &res,
                401,
                "invalid_authentication",
                &format!("{method} {path} with Authorization {header:.60?}"),
            );
        }
    }
    // No credentials at all.
    for (method, path) in &paths[..4] {
        let res = fx.app.request(method.clone(), path).send().await;
        expect_error(
            &res,
            401,
            "invalid_authentication",
            &format!("{path} anonymous"),
        );
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
            expect_error(
                &res,
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
            expect_error(
                &res,
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
        expect_error(&res, 401, "invalid_authentication", "near-miss global key");
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
        expect_error(
            &res,
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
    expect_error(
        &res,
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
    expect_error(
        &res,
        401,
        "invalid_authentication",
        "key + session on apikeys",
    );
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
            expect_error(
                &res,
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
        expect_error(
            &res,
            404,
            "resource_not_found",
            "language PUT, bad selector",
        );
    }
    // A Workspace that exists, but not for this account.
    for (method, path) in &session_paths[..3] {
        let res = app
            .request(method.clone(), path)
            .bearer(&viewer.token)
            .header("x-workspace-id", &other_ws)
            .send()
            .await;
        expect_error(
            &res,
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
    expect_error(
        &res,
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

// ---------------------------------------------------------------------------------------------
// Path and query parameters
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn invalid_path_parameters_are_4xx_never_5xx() {
    let fx = fixture().await;
    let ws = &fx.ws;
    let send = |method: Method, path: String, body: Option<Value>, selector: Option<String>| {
        let fx = &fx;
        async move {
            let mut req = fx.app.request(method, &path).bearer(&fx.owner);
            if let Some(body) = body {
                req = req.json(&body);
            }
            if let Some(selector) = selector {
                req = req.header("x-workspace-id", &selector);
            }
            req.send().await
        }
    };
    // `{key_id}` must be an integer.
    let long = "9".repeat(400);
    for bad in [
        "abc",
        "1.5",
        "1e3",
        "0x1",
        "99999999999999999999",
        "%20",
        "1%20",
        "true",
        "null",
        long.as_str(),
    ] {
        for (method, body) in [
            (Method::GET, None),
            (Method::PUT, Some(json!({ "name": "x" }))),
            (Method::DELETE, None),
        ] {
            let res = send(method.clone(), format!("/api/v1/apikeys/{bad}"), body, None).await;
            expect_error(
                &res,
                400,
                "invalid_request",
                &format!("{method} /apikeys/{bad:.30}"),
            );
        }
    }
    // Integers that name no key of this Workspace.
    for missing in [
        "0",
        "-1",
        "999999",
        "9223372036854775807",
        "-9223372036854775808",
    ] {
        for (method, body) in [
            (Method::GET, None),
            (Method::PUT, Some(json!({ "name": "x" }))),
            (Method::DELETE, None),
        ] {
            let res = send(
                method.clone(),
                format!("/api/v1/apikeys/{missing}"),
                body,
                None,
            )
            .await;
            expect_error(
                &res,
                404,
                "resource_not_found",
                &format!("{method} /apikeys/{missing}"),
            );
        }
    }
    let key = fx
        .owner_call(Method::GET, &format!("/api/v1/apikeys/{}", fx.key_id))
        .await;
    assert_eq!(key.data()["key"]["status"], "active");
    assert_eq!(key.data()["key"]["name"], "test key");

    // `{workspace_uuid}` that is not a uuid, or no Workspace of the caller: not found.
    let random = uuid::Uuid::new_v4();
    for bad in [
        "not-a-uuid".to_string(),
        "123".to_string(),
        random.to_string(),
    ] {
        let calls = [
            (Method::GET, format!("/api/v1/workspaces/{bad}"), None),
            (
                Method::PUT,
                format!("/api/v1/workspaces/{bad}"),
                Some(json!({ "name": "w" })),
            ),
            (
                Method::GET,
                format!("/api/v1/workspaces/{bad}/members"),
                None,
            ),
            (
                Method::GET,
                format!("/api/v1/workspaces/{bad}/invitations"),
                None,
            ),
            (
                Method::POST,
                format!("/api/v1/workspaces/{bad}/invitations"),
                Some(json!({ "email": "x@example.com" })),
            ),
            (
                Method::PATCH,
                format!("/api/v1/workspaces/{bad}/members/{}", fx.owner_uuid),
                Some(json!({ "role": "viewer" })),
            ),
            (
                Method::DELETE,
                format!("/api/v1/workspaces/{bad}/invitations/{random}"),
                None,
            ),
        ];
        for (method, path, body) in calls {
            let res = send(method.clone(), path.clone(), body, None).await;
            expect_error(&res, 404, "resource_not_found", &format!("{method} {path}"));
        }
    }
    // With the Workspace selected by header, a malformed path uuid is a 400 and a foreign one
    // a 404.
    let res = send(
        Method::GET,
        "/api/v1/workspaces/not-a-uuid".into(),
        None,
        Some(ws.clone()),
    )
    .await;
    expect_error(
        &res,
        400,
        "invalid_request",
        "malformed path uuid, selected Workspace",
    );
    let res = send(
        Method::GET,
        format!("/api/v1/workspaces/{random}"),
        None,
        Some(ws.clone()),
    )
    .await;
    expect_error(
        &res,
        404,
        "resource_not_found",
        "foreign path uuid, selected Workspace",
    );

    // `{account_uuid}` and `{invitation_uuid}` must be uuids; unknown ones are not found.
    for (method, body) in [
        (Method::PATCH, Some(json!({ "role": "viewer" }))),
        (Method::DELETE, None),
    ] {
        for bad in ["not-a-uuid", "1", "00000000-0000-0000-0000-00000000000g"] {
            let path = format!("/api/v1/workspaces/{ws}/members/{bad}");
            let res = send(method.clone(), path.clone(), body.clone(), None).await;
            expect_error(&res, 400, "invalid_request", &format!("{method} {path}"));
        }
        let path = format!("/api/v1/workspaces/{ws}/members/{random}");
        let res = send(method.clone(), path.clone(), body, None).await;
        expect_error(&res, 404, "resource_not_found", &format!("{method} {path}"));
    }
    for bad in ["not-a-uuid", "42"] {
        let path = format!("/api/v1/workspaces/{ws}/invitations/{bad}");
        let res = send(Method::DELETE, path.clone(), None, None).await;
        expect_error(&res, 400, "invalid_request", &format!("DELETE {path}"));
    }
    let path = format!("/api/v1/workspaces/{ws}/invitations/{random}");
    let res = send(Method::DELETE, path.clone(), None, None).await;
    expect_error(&res, 404, "resource_not_found", &format!("DELETE {path}"));
}

#[tokio::test]
async fn bad_list_query_parameters_are_400() {
    let fx = fixture().await;
    let ws = &fx.ws;
    let lists = [
        "/api/v1/apikeys".to_string(),
        "/api/v1/workspaces".to_string(),
        format!("/api/v1/workspaces/{ws}/members"),
        format!("/api/v1/workspaces/{ws}/invitations"),
    ];
    // Out of range: the `errors` array names the parameter.
    for (query, field) in [
        ("limit=0", "limit"),
        ("limit=501", "limit"),
        ("limit=100000", "limit"),
        ("offset=10000001", "offset"),
    ] {
        for list in &lists {
            let res = fx.owner_call(Method::GET, &format!("{list}?{query}")).await;
            expect_field_error(
                &res,
                400,
                "invalid_request",
                field,
                &format!("{list}?{query}"),
            );
        }
    }
    // Not a number, negative, empty, repeated or unknown.
    for query in [
        "limit=abc",
        "limit=-1",
        "limit=1.5",
        "limit=",
        "limit=1e2",
        "limit=99999999999999999999999",
        "offset=abc",
        "offset=-1",
        "offset=",
        "limit=1&limit=2",
        "foo=1",
        "limit=10&foo=bar",
        "page=2",
        "Limit=10",
    ] {
        for list in &lists {
            let res = fx.owner_call(Method::GET, &format!("{list}?{query}")).await;
            expect_error(&res, 400, "invalid_request", &format!("{list}?{query}"));
        }
    }
    // The bounds themselves are fine.
    for list in &lists {
        for (query, limit) in [("limit=1", 1), ("limit=500&offset=0", 500), ("", 100)] {
            let res = fx.owner_call(Method::GET, &format!("{list}?{query}")).await;
            assert_eq!(res.data()["limit"], limit, "{list}?{query}");
        }
        let res = fx
            .owner_call(Method::GET, &format!("{list}?offset=10000000"))
            .await;
        assert_eq!(res.data()["offset"], 10_000_000, "{list}");
    }
}

// ---------------------------------------------------------------------------------------------
// Language
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn only_the_eight_languages_are_accepted() {
    let fx = fixture().await;
    let language = fx.find(Method::PUT, "/workspaces/current/language");
    let bad_strings = [
        "en",
        "zh-Hans",
        "zh_CN",
        "",
        " ",
        "EN_US",
        "en_us",
        "en-US",
        " en_US",
        "en_US ",
        "zh_hans",
        "zh_HANS",
        "zh",
        "ja",
        "ja-JP",
        "klingon",
        "en_US,zh_Hans",
        "en_US\n",
        "null",
        "\u{0}",
    ];
    for value in bad_strings {
        let res = fx.send_json(&language, &json!({ "language": value })).await;
        expect_field_error(
            &res,
            400,
            "invalid_language",
            "language",
            &format!("language {value:?} with a session"),
        );
        let res = fx
            .app
            .request(Method::PUT, "/api/v1/workspaces/current/language")
            .header("x-api-key", &fx.key)
            .json(&json!({ "language": value }))
            .send()
            .await;
        expect_error(
            &res,
            400,
            "invalid_language",
            &format!("language {value:?} with an API key"),
        );
    }
    for value in [
        json!(5),
        json!(null),
        json!(true),
        json!(["en_US"]),
        json!({ "code": "en_US" }),
        json!(1.5),
    ] {
        let res = fx.send_json(&language, &json!({ "language": value })).await;
        expect_field_error(
            &res,
            400,
            "invalid_request",
            "language",
            &format!("language {value}"),
        );
    }
    let current = fx
        .owner_call(Method::GET, "/api/v1/workspaces/current/language")
        .await;
    assert_eq!(
        current.data()["language"],
        "en_US",
        "bad values changed nothing"
    );
    let supported = current.data()["supported_languages"].clone();
    assert_eq!(supported, json!(LANGUAGES));
    // Each of the eight is accepted exactly as spelled.
    for value in LANGUAGES {
        let res = fx.send_json(&language, &json!({ "language": value })).await;
        assert_eq!(res.data()["language"], value);
    }
}

#[tokio::test]
async fn an_over_long_language_string_is_invalid_language() {
    let fx = fixture().await;
    let language = fx.find(Method::PUT, "/workspaces/current/language");
    for value in ["x".repeat(33), "en_US".repeat(20)] {
        let res = fx.send_json(&language, &json!({ "language": value })).await;
        expect_field_error(
            &res,
            400,
            "invalid_language",
            "language",
            &format!("a {}-character language", value.len()),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Password policy
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn password_policy_and_the_current_password_are_enforced() {
    let app = spawn_app().await;
    let init = |password: String| {
        let app = &app;
        async move {
            app.post(
                "/api/v1/user/init",
                &json!({ "user": OWNER_EMAIL, "password": password }),
            )
            .await
        }
    };
    for (what, password) in [
        ("7 characters", "1234567".to_string()),
        ("7 multibyte characters", "密码密码密码密".to_string()),
        ("empty", String::new()),
        ("129 characters", "p".repeat(129)),
    ] {
        let res = init(password).await;
        expect_field_error(
            &res,
            400,
            "invalid_request",
            "password",
            &format!("init: {what}"),
        );
    }
    let status = app.get("/api/v1/user/init").await;
    assert_eq!(
        status.data()["initialized"],
        false,
        "a refused init created nothing"
    );
    // Exactly 8 characters is enough.
    expect_ok(&init("12345678".into()).await, "init with 8 characters");
    let session = app.login(OWNER_EMAIL, "12345678").await;

    let change = |current: &str, new: &str| {
        let body = json!({ "current_password": current, "new_password": new });
        let app = &app;
        let session = session.clone();
        async move {
            app.send_as(
                &session,
                Method::POST,
                "/api/v1/user/change-password",
                &body,
            )
            .await
        }
    };
    for (what, new) in [
        ("7 characters", "abcdefg".to_string()),
        ("empty", String::new()),
        ("129 characters", "p".repeat(129)),
    ] {
        let res = change("12345678", &new).await;
        expect_field_error(
            &res,
            400,
            "invalid_request",
            "new_password",
            &format!("change-password: new {what}"),
        );
    }
    for (what, current) in [
        ("wrong", "wrong-password"),
        ("almost right", "1234567"),
        ("empty", ""),
    ] {
        let res = change(current, "a-good-new-password").await;
        expect_field_error(
            &res,
            400,
            "invalid_request",
            "current_password",
            &format!("change-password: {what} current password"),
        );
    }
    // Nothing changed: the old password logs in, the new one does not, the session lives.
    app.get_as(&session, "/api/v1/user/info").await.data();
    let res = app
        .post(
            "/api/v1/user/auth",
            &json!({ "user": OWNER_EMAIL, "password": "a-good-new-password" }),
        )
        .await;
    expect_error(
        &res,
        401,
        "invalid_authentication",
        "login with a refused new password",
    );
    app.login(OWNER_EMAIL, "12345678").await;

    // Registering through an invitation follows the same policy.
    let ws = app.workspace_of(&session).await;
    let res = app
        .send_as(
            &session,
            Method::POST,
            &format!("/api/v1/workspaces/{ws}/invitations"),
            &json!({ "email": "new@example.com" }),
        )
        .await;
    let token = res.data()["token"].as_str().unwrap().to_string();
    let res = app
        .post(
            "/api/v1/invitations/accept",
            &json!({ "token": token, "registration": { "email": "new@example.com", "password": "short" } }),
        )
        .await;
    expect_field_error(
        &res,
        400,
        "invalid_request",
        "registration.password",
        "accept with a 5-character password",
    );
    let res = app
        .post(
            "/api/v1/user/auth",
            &json!({ "user": "new@example.com", "password": "short" }),
        )
        .await;
    expect_error(
        &res,
        401,
        "invalid_authentication",
        "no account was created",
    );
}
