//! Providers, models, requesters, secrets, model tests, the starred model and cascade delete
//! over HTTP (SPEC §4, §5.3, §6, §7; reference providers_models §0.4, §1, §3, §4, §6).
//! Model tests call a fake OpenAI-compatible upstream (`helpers::FakeOpenAi`).

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use reqwest::Method;
use sea_orm::{ConnectionTrait, DbBackend, Statement};
use serde_json::{json, Value};

use crate::helpers::{
    openai_error, spawn_app, spawn_app_with, FakeOpenAi, Member, Response, Route, TestApp,
};

const PROVIDERS: &str = "/api/v1/provider/providers";
const REQUESTERS: &str = "/api/v1/provider/requesters";
const STARRED: &str = "/api/v1/provider/models/llm/_/starred";
const DEFAULT: &str = "/api/v1/provider/models/llm/_/default";
const CHAT: &str = "openai-chat-completions";
const RERANK: &str = "openai-compatible-rerank";
const KINDS: [&str; 3] = ["llm", "embedding", "rerank"];
/// A base URL nothing is called on (tests that never reach the upstream).
const NOWHERE: &str = "https://api.example.com/v1";

fn provider_path(uuid: &str) -> String {
    format!("{PROVIDERS}/{uuid}")
}

fn models_path(kind: &str) -> String {
    format!("/api/v1/provider/models/{kind}")
}

fn model_path(kind: &str, uuid: &str) -> String {
    format!("/api/v1/provider/models/{kind}/{uuid}")
}

fn random_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The `field` of every entry of an error's `errors` array.
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

/// Asserts a 400 `invalid_request` whose `errors` name `field`.
#[track_caller]
fn assert_field_error(res: &Response, field: &str, what: &str) {
    assert!(res.status < 500, "{what}: server error {}", res.text);
    res.assert_error(400, "invalid_request");
    let fields = error_fields(res);
    assert!(
        fields.iter().any(|f| f == field),
        "{what}: expected `errors` to name `{field}`, got {fields:?}: {}",
        res.text
    );
}

/// Asserts a client error (4xx, never 5xx) with the error body shape.
#[track_caller]
fn assert_client_error(res: &Response, what: &str) {
    assert!(
        (400..500).contains(&res.status),
        "{what}: expected a 4xx, got {}: {}",
        res.status,
        res.text
    );
    assert!(
        res.body["code"].as_str().is_some_and(|c| !c.is_empty()),
        "{what}: no error code: {}",
        res.text
    );
    assert!(
        res.body["request_id"]
            .as_str()
            .is_some_and(|c| !c.is_empty()),
        "{what}: no request_id: {}",
        res.text
    );
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn uuids_of(list: &Value) -> Vec<String> {
    list.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v["uuid"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// An app with an initialized owner.
struct Fixture {
    app: TestApp,
    owner: String,
    ws: String,
}

impl Fixture {
    async fn new() -> Self {
        Self::with_app(spawn_app().await).await
    }

    /// With `workspaces.multi`, so a second Workspace can be created.
    async fn multi() -> Self {
        Self::with_app(spawn_app_with(|s| s.workspaces.multi = true).await).await
    }

    async fn with_app(app: TestApp) -> Self {
        let owner = app.init_owner().await;
        let ws = app.workspace_of(&owner).await;
        Self { app, owner, ws }
    }

    /// A request as `token`, optionally selecting a Workspace and sending a JSON body.
    async fn call(
        &self,
        token: &str,
        workspace: Option<&str>,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Response {
        let mut req = self.app.request(method, path).bearer(token);
        if let Some(ws) = workspace {
            req = req.header("x-workspace-id", ws);
        }
        if let Some(body) = body {
            req = req.json(body);
        }
        req.send().await
    }

    async fn get(&self, path: &str) -> Response {
        self.app.get_as(&self.owner, path).await
    }

    async fn send(&self, method: Method, path: &str, body: &Value) -> Response {
        self.app.send_as(&self.owner, method, path, body).await
    }

    async fn delete(&self, path: &str) -> Response {
        self.app
            .request(Method::DELETE, path)
            .bearer(&self.owner)
            .send()
            .await
    }

    /// Creates a provider (as the owner, in `workspace` or the default one).
    async fn provider_in(&self, workspace: Option<&str>, body: &Value) -> String {
        let res = self
            .call(&self.owner, workspace, Method::POST, PROVIDERS, Some(body))
            .await;
        let uuid = res.data()["uuid"]
            .as_str()
            .unwrap_or_else(|| panic!("no uuid: {}", res.text))
            .to_string();
        uuid::Uuid::parse_str(&uuid).expect("the provider uuid is a uuid");
        uuid
    }

    async fn chat_provider(&self, base_url: &str, keys: &[&str]) -> String {
        self.provider_in(
            None,
            &json!({ "name": "Chat", "requester": CHAT, "base_url": base_url, "api_keys": keys }),
        )
        .await
    }

    async fn rerank_provider(&self, base_url: &str, keys: &[&str]) -> String {
        self.provider_in(
            None,
            &json!({ "name": "Rerank", "requester": RERANK, "base_url": base_url, "api_keys": keys }),
        )
        .await
    }

    /// Creates a model of `kind` (as the owner, in `workspace` or the default one).
    async fn model_in(&self, workspace: Option<&str>, kind: &str, body: &Value) -> String {
        let res = self
            .call(
                &self.owner,
                workspace,
                Method::POST,
                &models_path(kind),
                Some(body),
            )
            .await;
        let uuid = res.data()["uuid"]
            .as_str()
            .unwrap_or_else(|| panic!("no uuid: {}", res.text))
            .to_string();
        uuid::Uuid::parse_str(&uuid).expect("the model uuid is a uuid");
        uuid
    }

    async fn model(&self, kind: &str, provider: &str, name: &str) -> String {
        self.model_in(
            None,
            kind,
            &json!({ "name": name, "provider_uuid": provider }),
        )
        .await
    }

    async fn model_uuids(&self, kind: &str) -> Vec<String> {
        uuids_of(&self.get(&models_path(kind)).await.data()["models"])
    }

    async fn provider_uuids(&self) -> Vec<String> {
        uuids_of(&self.get(PROVIDERS).await.data()["providers"])
    }

    async fn starred(&self) -> Value {
        self.get(STARRED).await.data()["uuid"].clone()
    }

    async fn test_model(&self, kind: &str, uuid: &str) -> Response {
        self.send(
            Method::POST,
            &format!("{}/test", model_path(kind, uuid)),
            &json!({}),
        )
        .await
    }

    /// Creates a pipeline; returns its uuid.
    async fn pipeline(&self, body: Value) -> String {
        let res = self.send(Method::POST, "/api/v1/pipelines", &body).await;
        res.data()["uuid"]
            .as_str()
            .unwrap_or_else(|| panic!("no uuid: {}", res.text))
            .to_string()
    }

    /// The stored starred-model setting, read from the database.
    async fn starred_rows(&self) -> Vec<String> {
        let db = &self.app.state.db;
        let sql = format!(
            "SELECT value FROM workspace_metadata WHERE workspace_uuid = '{}' AND key = 'starred_llm_model'",
            self.ws
        );
        db.query_all(Statement::from_string(db.get_database_backend(), sql))
            .await
            .expect("query workspace_metadata")
            .iter()
            .map(|row| {
                row.try_get::<Option<String>>("", "value")
                    .expect("value column")
                    .unwrap_or_default()
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Requester catalog
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn the_requester_catalog_lists_both_requesters_with_their_schemas() {
    let f = Fixture::new().await;
    let res = f.get(REQUESTERS).await;
    let list = res.data()["requesters"].as_array().expect("requesters");
    let names: Vec<&str> = list.iter().filter_map(|r| r["name"].as_str()).collect();
    assert_eq!(
        names.iter().copied().collect::<BTreeSet<_>>(),
        BTreeSet::from([CHAT, RERANK]),
        "only the requesters that really work: {}",
        res.text
    );
    let by_name = |name: &str| {
        list.iter()
            .find(|r| r["name"] == name)
            .cloned()
            .expect("requester")
    };
    let chat = by_name(CHAT);
    let rerank = by_name(RERANK);
    let support = |r: &Value| -> BTreeSet<String> {
        let top = strings(&r["support_type"]);
        let spec = strings(&r["spec"]["support_type"]);
        assert!(
            top.is_empty() || top == spec,
            "support_type differs between the requester and its spec: {r}"
        );
        spec.into_iter().collect()
    };
    assert_eq!(
        support(&chat),
        BTreeSet::from(["llm".to_string(), "text-embedding".to_string()])
    );
    assert_eq!(support(&rerank), BTreeSet::from(["rerank".to_string()]));

    // Presets: OpenAI, DeepSeek, Ollama, vLLM, OpenRouter, SiliconFlow …
    let presets = chat["spec"]["presets"].as_array().expect("presets");
    for preset in presets {
        assert!(preset["name"].as_str().is_some_and(|s| !s.is_empty()));
        assert!(preset["label"].as_str().is_some_and(|s| !s.is_empty()));
        assert!(
            preset["base_url"]
                .as_str()
                .is_some_and(|u| u.starts_with("http://") || u.starts_with("https://")),
            "{preset}"
        );
    }
    let labels: Vec<String> = presets
        .iter()
        .filter_map(|p| p["label"].as_str().map(str::to_lowercase))
        .collect();
    for wanted in [
        "openai",
        "deepseek",
        "ollama",
        "vllm",
        "openrouter",
        "siliconflow",
    ] {
        assert!(
            labels.iter().any(|l| l.contains(wanted)),
            "no {wanted} preset in {labels:?}"
        );
    }
    let openai = presets
        .iter()
        .find(|p| p["label"] == "OpenAI")
        .expect("OpenAI preset");
    assert_eq!(openai["base_url"], "https://api.openai.com/v1");

    // Config schemas: base_url and timeout.
    for r in [&chat, &rerank] {
        let fields: Vec<&str> = r["spec"]["config"]
            .as_array()
            .expect("config fields")
            .iter()
            .filter_map(|f| f["name"].as_str())
            .collect();
        assert!(fields.contains(&"base_url"), "{r}");
        assert!(fields.contains(&"timeout"), "{r}");
    }

    // One requester by name.
    let one = f.get(&format!("{REQUESTERS}/{RERANK}")).await;
    assert_eq!(one.data()["requester"], rerank);
    // An API key works too (session or API key).
    let (_, key) = f.app.create_key(&f.owner, Some(&["workspace.view"])).await;
    let res = f
        .app
        .request(Method::GET, REQUESTERS)
        .header("x-api-key", &key)
        .send()
        .await;
    assert_eq!(res.data()["requesters"].as_array().map(Vec::len), Some(2));
    // Without credentials: 401.
    f.app
        .get(REQUESTERS)
        .await
        .assert_error(401, "invalid_authentication");
}

#[tokio::test]
async fn the_requester_catalog_filters_by_type_and_404s_unknown_names() {
    let f = Fixture::new().await;
    let names = |res: Response| -> Vec<String> {
        res.data()["requesters"]
            .as_array()
            .expect("requesters")
            .iter()
            .filter_map(|r| r["name"].as_str().map(str::to_string))
            .collect()
    };
    assert_eq!(
        names(f.get(&format!("{REQUESTERS}?type=llm")).await),
        vec![CHAT]
    );
    assert_eq!(
        names(f.get(&format!("{REQUESTERS}?type=text-embedding")).await),
        vec![CHAT]
    );
    assert_eq!(
        names(f.get(&format!("{REQUESTERS}?type=rerank")).await),
        vec![RERANK]
    );
    assert!(names(f.get(&format!("{REQUESTERS}?type=speech")).await).is_empty());
    assert_eq!(names(f.get(&format!("{REQUESTERS}?type=")).await).len(), 2);

    for unknown in [
        "nope",
        "openai",
        "anthropic-messages",
        "OPENAI-CHAT-COMPLETIONS",
    ] {
        f.get(&format!("{REQUESTERS}/{unknown}"))
            .await
            .assert_error(404, "resource_not_found");
    }
}

// ---------------------------------------------------------------------------------------------
// Providers
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_provider_can_be_created_listed_read_updated_and_deleted() {
    let f = Fixture::new().await;
    let chat = f
        .provider_in(
            None,
            &json!({
                "name": "OpenAI",
                "requester": CHAT,
                "base_url": "https://api.openai.com/v1",
                "api_keys": [" sk-a ", "sk-a", "", "sk-b"],
                "config": { "timeout": 30 },
            }),
        )
        .await;
    let res = f.get(&provider_path(&chat)).await;
    let p = &res.data()["provider"];
    assert_eq!(p["uuid"], chat.as_str());
    assert_eq!(p["workspace_uuid"], f.ws.as_str());
    assert_eq!(p["name"], "OpenAI");
    assert_eq!(p["requester"], CHAT);
    assert_eq!(p["base_url"], "https://api.openai.com/v1");
    assert_eq!(
        p["api_keys"],
        json!(["sk-a", "sk-b"]),
        "keys are trimmed, de-duplicated, empties dropped"
    );
    assert_eq!(p["config"]["timeout"], 30);
    assert_eq!(
        (&p["llm_count"], &p["embedding_count"], &p["rerank_count"]),
        (&json!(0), &json!(0), &json!(0))
    );
    assert!(p["created_at"].as_str().is_some() && p["updated_at"].as_str().is_some());

    // Defaults: no keys, the requester's default timeout.
    let rerank = f
        .provider_in(
            None,
            &json!({ "name": "Jina", "requester": RERANK, "base_url": "https://api.jina.ai/v1" }),
        )
        .await;
    let res = f.get(&provider_path(&rerank)).await;
    assert_eq!(res.data()["provider"]["api_keys"], json!([]));
    assert_eq!(res.data()["provider"]["config"]["timeout"], 120);

    // Lists: creation order, paging.
    let res = f.get(PROVIDERS).await;
    let data = res.data();
    assert_eq!(
        uuids_of(&data["providers"]),
        vec![chat.clone(), rerank.clone()]
    );
    assert_eq!(
        (&data["total"], &data["limit"], &data["offset"]),
        (&json!(2), &json!(100), &json!(0))
    );
    let res = f.get(&format!("{PROVIDERS}?limit=1&offset=1")).await;
    assert_eq!(uuids_of(&res.data()["providers"]), vec![rerank.clone()]);
    assert_eq!(res.data()["total"], 2);

    // Update: partial; the keys and the config stay unless given.
    let res = f
        .send(
            Method::PUT,
            &provider_path(&chat),
            &json!({ "name": "Renamed", "base_url": "https://proxy.example.com/v1", "config": { "timeout": 60 } }),
        )
        .await;
    assert_eq!(res.data(), &Value::Null);
    let res = f
        .send(
            Method::PUT,
            &provider_path(&chat),
            &json!({ "name": "Renamed again" }),
        )
        .await;
    res.data();
    let res = f.get(&provider_path(&chat)).await;
    let p = &res.data()["provider"];
    assert_eq!(p["name"], "Renamed again");
    assert_eq!(p["base_url"], "https://proxy.example.com/v1");
    assert_eq!(p["api_keys"], json!(["sk-a", "sk-b"]));
    assert_eq!(p["config"]["timeout"], 60);
    assert_eq!(
        p["created_at"],
        f.get(PROVIDERS).await.data()["providers"][0]["created_at"]
    );

    // LangBot's read-only keys are ignored on create and update.
    let ignored = f
        .provider_in(
            None,
            &json!({
                "uuid": "00000000-0000-0000-0000-000000000000",
                "workspace_uuid": random_uuid(),
                "created_at": "2020-01-01T00:00:00Z",
                "name": "Legacy",
                "requester": CHAT,
                "base_url": NOWHERE,
            }),
        )
        .await;
    assert_ne!(ignored, "00000000-0000-0000-0000-000000000000");
    let res = f.get(&provider_path(&ignored)).await;
    assert_eq!(res.data()["provider"]["workspace_uuid"], f.ws.as_str());

    // Delete (no models: no cascade needed).
    f.delete(&provider_path(&rerank)).await.data();
    f.get(&provider_path(&rerank))
        .await
        .assert_error(404, "resource_not_found");
    f.delete(&provider_path(&rerank))
        .await
        .assert_error(404, "resource_not_found");
    f.send(
        Method::PUT,
        &provider_path(&rerank),
        &json!({ "name": "x" }),
    )
    .await
    .assert_error(404, "resource_not_found");
    assert_eq!(f.provider_uuids().await, vec![chat, ignored]);
}

#[tokio::test]
async fn provider_input_is_validated() {
    let f = Fixture::new().await;
    let base = json!({ "name": "P", "requester": CHAT, "base_url": NOWHERE });
    let with = |patch: Value| {
        let mut body = base.clone();
        for (k, v) in patch.as_object().expect("object") {
            body[k] = v.clone();
        }
        body
    };
    let without = |key: &str| {
        let mut body = base.clone();
        body.as_object_mut().expect("object").remove(key);
        body
    };
    let cases: Vec<(Value, &str, &str)> = vec![
        (
            with(json!({ "requester": "nope" })),
            "requester",
            "unknown requester",
        ),
        (
            with(json!({ "requester": "" })),
            "requester",
            "empty requester",
        ),
        (without("requester"), "requester", "missing requester"),
        (
            with(json!({ "base_url": "not a url" })),
            "base_url",
            "not a URL",
        ),
        (
            with(json!({ "base_url": "ftp://example.com/v1" })),
            "base_url",
            "ftp URL",
        ),
        (
            with(json!({ "base_url": "http://" })),
            "base_url",
            "no host",
        ),
        (
            with(json!({ "base_url": "/v1" })),
            "base_url",
            "relative URL",
        ),
        (
            with(json!({ "base_url": format!("https://example.com/{}", "a".repeat(500)) })),
            "base_url",
            "over 512 characters",
        ),
        (without("base_url"), "base_url", "missing base_url"),
        (
            with(json!({ "config": { "x": 1 } })),
            "config.x",
            "unknown config field",
        ),
        (
            with(json!({ "config": { "timeout": 30, "api_base": "x" } })),
            "config.api_base",
            "unknown config field next to a known one",
        ),
        (
            with(json!({ "config": { "timeout": 0 } })),
            "config.timeout",
            "timeout 0",
        ),
        (
            with(json!({ "config": { "timeout": 601 } })),
            "config.timeout",
            "timeout 601",
        ),
        (
            with(json!({ "config": { "timeout": -5 } })),
            "config.timeout",
            "negative timeout",
        ),
        (
            with(json!({ "config": { "timeout": "30" } })),
            "config.timeout",
            "timeout as a string",
        ),
        (
            with(json!({ "config": { "timeout": 1.5 } })),
            "config.timeout",
            "fractional timeout",
        ),
        (
            with(json!({ "config": [] })),
            "config",
            "config not an object",
        ),
        (without("name"), "name", "missing name"),
        (with(json!({ "name": "" })), "name", "empty name"),
        (with(json!({ "name": "   " })), "name", "blank name"),
        (
            with(json!({ "name": "n".repeat(256) })),
            "name",
            "name over 255",
        ),
        (
            with(json!({ "api_keys": ["***"] })),
            "api_keys[0]",
            "a mask with nothing stored",
        ),
        (with(json!({ "bogus": true })), "bogus", "unknown field"),
    ];
    for (body, field, what) in &cases {
        let res = f.send(Method::POST, PROVIDERS, body).await;
        assert_field_error(&res, field, what);
    }
    assert!(
        f.provider_uuids().await.is_empty(),
        "a refused create left a row"
    );

    // Limits are inclusive.
    for (body, what) in [
        (with(json!({ "name": "n".repeat(255) })), "name of 255"),
        (with(json!({ "config": { "timeout": 1 } })), "timeout 1"),
        (with(json!({ "config": { "timeout": 600 } })), "timeout 600"),
        (
            with(json!({ "base_url": "http://127.0.0.1:11434/v1" })),
            "loopback URL",
        ),
    ] {
        let res = f.send(Method::POST, PROVIDERS, &body).await;
        assert_eq!(res.status, 200, "{what}: {}", res.text);
    }
}

#[tokio::test]
async fn provider_updates_are_validated() {
    let f = Fixture::new().await;
    let chat = f.chat_provider(NOWHERE, &["sk-1"]).await;
    let before = f.get(&provider_path(&chat)).await.data()["provider"].clone();
    let cases: Vec<(Value, &str, &str)> = vec![
        (
            json!({ "requester": "nope" }),
            "requester",
            "unknown requester",
        ),
        (json!({ "base_url": "nope" }), "base_url", "invalid URL"),
        (
            json!({ "config": { "x": 1 } }),
            "config.x",
            "unknown config field",
        ),
        (
            json!({ "config": { "timeout": 0 } }),
            "config.timeout",
            "timeout 0",
        ),
        (
            json!({ "config": { "timeout": 601 } }),
            "config.timeout",
            "timeout 601",
        ),
        (json!({ "name": "" }), "name", "empty name"),
        (json!({ "name": " " }), "name", "blank name"),
        (
            json!({ "api_keys": ["***", "***"] }),
            "api_keys[1]",
            "more masks than stored keys",
        ),
        (json!({ "llm_count": 3 }), "llm_count", "a read-only count"),
    ];
    for (body, field, what) in &cases {
        let res = f.send(Method::PUT, &provider_path(&chat), body).await;
        assert_field_error(&res, field, what);
    }
    let after = f.get(&provider_path(&chat)).await.data()["provider"].clone();
    assert_eq!(before, after, "a refused update changed the provider");

    // A requester that does not support the provider's models is refused.
    let llm = f.model("llm", &chat, "gpt").await;
    let res = f
        .send(
            Method::PUT,
            &provider_path(&chat),
            &json!({ "requester": RERANK }),
        )
        .await;
    assert_field_error(&res, "requester", "rerank requester for an LLM provider");
    f.delete(&model_path("llm", &llm)).await.data();
    // Without models it may change.
    let res = f
        .send(
            Method::PUT,
            &provider_path(&chat),
            &json!({ "requester": RERANK }),
        )
        .await;
    res.data();
    assert_eq!(
        f.get(&provider_path(&chat)).await.data()["provider"]["requester"],
        RERANK
    );
}

// ---------------------------------------------------------------------------------------------
// Models
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn models_of_every_kind_can_be_created_listed_read_updated_and_deleted() {
    let f = Fixture::new().await;
    let chat = f.chat_provider(NOWHERE, &["sk-chat"]).await;
    let rerank = f.rerank_provider(NOWHERE, &["sk-rerank"]).await;

    let llm = f
        .model_in(
            None,
            "llm",
            &json!({
                "name": "gpt-4o",
                "provider_uuid": chat,
                "abilities": ["func_call", "vision"],
                "context_length": 128000,
                "extra_args": { "temperature": 0.5 },
                "prefered_ranking": 2,
            }),
        )
        .await;
    let embedding = f
        .model_in(
            None,
            "embedding",
            &json!({ "name": "text-embedding-3-small", "provider_uuid": chat, "extra_args": { "dimensions": 256 } }),
        )
        .await;
    let rr = f.model("rerank", &rerank, "jina-reranker-v2").await;

    // LLM: all fields, the provider embedded, reasoning defaults.
    let res = f.get(&model_path("llm", &llm)).await;
    let m = &res.data()["model"];
    assert_eq!(m["uuid"], llm.as_str());
    assert_eq!(m["workspace_uuid"], f.ws.as_str());
    assert_eq!(m["name"], "gpt-4o");
    assert_eq!(m["provider_uuid"], chat.as_str());
    assert_eq!(m["abilities"], json!(["func_call", "vision"]));
    assert_eq!(m["context_length"], 128000);
    assert_eq!(
        m["reasoning_config"],
        json!({ "level": "provider_default" })
    );
    assert_eq!(m["reasoning_capabilities"]["supported"], false);
    assert!(strings(&m["reasoning_capabilities"]["levels"]).contains(&"provider_default".into()));
    assert_eq!(m["extra_args"], json!({ "temperature": 0.5 }));
    assert_eq!(m["prefered_ranking"], 2);
    assert_eq!(m["provider"]["uuid"], chat.as_str());
    assert_eq!(m["provider"]["api_keys"], json!(["sk-chat"]));

    // Embedding and rerank: no LLM-only fields.
    for (kind, uuid, provider, name) in [
        ("embedding", &embedding, &chat, "text-embedding-3-small"),
        ("rerank", &rr, &rerank, "jina-reranker-v2"),
    ] {
        let res = f.get(&model_path(kind, uuid)).await;
        let m = &res.data()["model"];
        assert_eq!(m["name"], name);
        assert_eq!(m["provider_uuid"], provider.as_str());
        assert_eq!(m["provider"]["uuid"], provider.as_str());
        for llm_only in [
            "abilities",
            "context_length",
            "reasoning_config",
            "reasoning_capabilities",
        ] {
            assert!(
                m.get(llm_only).is_none(),
                "{kind} model has {llm_only}: {m}"
            );
        }
    }
    assert_eq!(
        f.get(&model_path("embedding", &embedding)).await.data()["model"]["extra_args"],
        json!({ "dimensions": 256 })
    );

    // Lists and counts.
    for (kind, uuid) in [("llm", &llm), ("embedding", &embedding), ("rerank", &rr)] {
        let res = f.get(&models_path(kind)).await;
        assert_eq!(
            uuids_of(&res.data()["models"]),
            vec![uuid.clone()],
            "{kind}"
        );
        assert_eq!(res.data()["total"], 1);
        assert!(
            res.data()["models"][0]["provider"].is_object(),
            "{kind}: {}",
            res.text
        );
    }
    let res = f.get(PROVIDERS).await;
    let providers = res.data()["providers"]
        .as_array()
        .expect("providers")
        .clone();
    let counts = |uuid: &str| {
        let p = providers
            .iter()
            .find(|p| p["uuid"] == uuid)
            .expect("provider");
        (
            p["llm_count"].clone(),
            p["embedding_count"].clone(),
            p["rerank_count"].clone(),
        )
    };
    assert_eq!(counts(&chat), (json!(1), json!(1), json!(0)));
    assert_eq!(counts(&rerank), (json!(0), json!(0), json!(1)));
    let p = f.get(&provider_path(&chat)).await;
    assert_eq!(p.data()["provider"]["llm_count"], 1);
    assert_eq!(p.data()["provider"]["embedding_count"], 1);

    // Updates.
    f.send(
        Method::PUT,
        &model_path("llm", &llm),
        &json!({
            "name": "gpt-4o-mini",
            "context_length": 64000,
            "abilities": ["func_call", "reasoning"],
            "reasoning_config": { "level": "high" },
            "extra_args": { "temperature": 0.1, "top_p": 0.9 },
            "prefered_ranking": -1,
        }),
    )
    .await
    .data();
    let res = f.get(&model_path("llm", &llm)).await;
    let m = &res.data()["model"];
    assert_eq!(m["name"], "gpt-4o-mini");
    assert_eq!(m["context_length"], 64000);
    assert_eq!(m["abilities"], json!(["func_call", "reasoning"]));
    assert_eq!(m["reasoning_config"], json!({ "level": "high" }));
    assert_eq!(m["reasoning_capabilities"]["supported"], true);
    assert_eq!(m["extra_args"], json!({ "temperature": 0.1, "top_p": 0.9 }));
    assert_eq!(m["prefered_ranking"], -1);
    // A partial update keeps the rest.
    f.send(
        Method::PUT,
        &model_path("llm", &llm),
        &json!({ "name": "gpt-5" }),
    )
    .await
    .data();
    let res = f.get(&model_path("llm", &llm)).await;
    assert_eq!(res.data()["model"]["context_length"], 64000);
    assert_eq!(
        res.data()["model"]["reasoning_config"],
        json!({ "level": "high" })
    );
    // Moving an LLM to another provider that supports LLMs.
    let chat2 = f.chat_provider(NOWHERE, &[]).await;
    f.send(
        Method::PUT,
        &model_path("llm", &llm),
        &json!({ "provider_uuid": chat2 }),
    )
    .await
    .data();
    assert_eq!(
        f.get(&model_path("llm", &llm)).await.data()["model"]["provider_uuid"],
        chat2.as_str()
    );
    f.send(
        Method::PUT,
        &model_path("embedding", &embedding),
        &json!({ "name": "emb-2", "extra_args": {} }),
    )
    .await
    .data();
    let res = f.get(&model_path("embedding", &embedding)).await;
    assert_eq!(res.data()["model"]["name"], "emb-2");
    assert_eq!(res.data()["model"]["extra_args"], json!({}));
    f.send(
        Method::PUT,
        &model_path("rerank", &rr),
        &json!({ "name": "rr-2" }),
    )
    .await
    .data();
    assert_eq!(
        f.get(&model_path("rerank", &rr)).await.data()["model"]["name"],
        "rr-2"
    );

    // Deletes.
    for (kind, uuid) in [("llm", &llm), ("embedding", &embedding), ("rerank", &rr)] {
        f.delete(&model_path(kind, uuid)).await.data();
        f.get(&model_path(kind, uuid))
            .await
            .assert_error(404, "resource_not_found");
        f.delete(&model_path(kind, uuid))
            .await
            .assert_error(404, "resource_not_found");
        f.send(
            Method::PUT,
            &model_path(kind, uuid),
            &json!({ "name": "x" }),
        )
        .await
        .assert_error(404, "resource_not_found");
        assert!(f.model_uuids(kind).await.is_empty(), "{kind}");
    }
    let p = f.get(&provider_path(&chat)).await;
    assert_eq!(p.data()["provider"]["llm_count"], 0);
    assert_eq!(p.data()["provider"]["embedding_count"], 0);
}

#[tokio::test]
async fn model_lists_filter_by_provider() {
    let f = Fixture::new().await;
    let a = f.chat_provider(NOWHERE, &["sk-a"]).await;
    let b = f.chat_provider(NOWHERE, &["sk-b"]).await;
    let a1 = f.model("llm", &a, "a1").await;
    let a2 = f.model("llm", &a, "a2").await;
    let b1 = f.model("llm", &b, "b1").await;
    let ea = f.model("embedding", &a, "ea").await;

    let res = f.get(&models_path("llm")).await;
    assert_eq!(
        uuids_of(&res.data()["models"]),
        vec![a1.clone(), a2.clone(), b1.clone()]
    );
    for m in res.data()["models"].as_array().expect("models") {
        assert_eq!(m["provider"]["uuid"], m["provider_uuid"], "{m}");
    }
    let res = f
        .get(&format!("{}?provider_uuid={a}", models_path("llm")))
        .await;
    assert_eq!(
        uuids_of(&res.data()["models"]),
        vec![a1.clone(), a2.clone()]
    );
    assert_eq!(res.data()["total"], 2);
    for m in res.data()["models"].as_array().expect("models") {
        assert!(
            m.get("provider").is_none(),
            "the provider is not embedded in a filtered list: {m}"
        );
    }
    let res = f
        .get(&format!("{}?provider_uuid={b}", models_path("llm")))
        .await;
    assert_eq!(uuids_of(&res.data()["models"]), vec![b1]);
    let res = f
        .get(&format!("{}?provider_uuid={b}", models_path("embedding")))
        .await;
    assert!(uuids_of(&res.data()["models"]).is_empty());
    let res = f
        .get(&format!("{}?provider_uuid={a}", models_path("embedding")))
        .await;
    assert_eq!(uuids_of(&res.data()["models"]), vec![ea]);
    let res = f
        .get(&format!(
            "{}?provider_uuid={a}&limit=1&offset=1",
            models_path("llm")
        ))
        .await;
    assert_eq!(uuids_of(&res.data()["models"]), vec![a2]);
    assert_eq!(res.data()["total"], 2);

    f.get(&format!(
        "{}?provider_uuid={}",
        models_path("llm"),
        random_uuid()
    ))
    .await
    .assert_error(404, "resource_not_found");
    let res = f
        .get(&format!("{}?provider_uuid=not-a-uuid", models_path("llm")))
        .await;
    res.assert_error(400, "invalid_request");
}

#[tokio::test]
async fn a_model_must_fit_its_provider_and_its_kind() {
    let f = Fixture::new().await;
    let chat = f.chat_provider(NOWHERE, &[]).await;
    let rerank = f.rerank_provider(NOWHERE, &[]).await;
    let cases: Vec<(&str, Value, &str, &str)> = vec![
        (
            "embedding",
            json!({ "name": "e", "provider_uuid": rerank }),
            "provider_uuid",
            "an embedding model on a rerank-only provider",
        ),
        (
            "llm",
            json!({ "name": "l", "provider_uuid": rerank }),
            "provider_uuid",
            "an LLM on a rerank-only provider",
        ),
        (
            "rerank",
            json!({ "name": "r", "provider_uuid": chat }),
            "provider_uuid",
            "a rerank model on a chat provider",
        ),
        (
            "llm",
            json!({ "name": "l" }),
            "provider_uuid",
            "no provider",
        ),
        (
            "llm",
            json!({ "name": "l", "provider_uuid": random_uuid() }),
            "provider_uuid",
            "an unknown provider",
        ),
        ("llm", json!({ "provider_uuid": chat }), "name", "no name"),
        (
            "llm",
            json!({ "name": "", "provider_uuid": chat }),
            "name",
            "empty name",
        ),
        (
            "llm",
            json!({ "name": "  ", "provider_uuid": chat }),
            "name",
            "blank name",
        ),
        (
            "llm",
            json!({ "name": "n".repeat(256), "provider_uuid": chat }),
            "name",
            "name over 255",
        ),
        (
            "embedding",
            json!({ "name": "e", "provider_uuid": chat, "abilities": ["vision"] }),
            "abilities",
            "abilities on an embedding model",
        ),
        (
            "embedding",
            json!({ "name": "e", "provider_uuid": chat, "context_length": 100 }),
            "context_length",
            "context_length on an embedding model",
        ),
        (
            "rerank",
            json!({ "name": "r", "provider_uuid": rerank, "reasoning_config": { "level": "high" } }),
            "reasoning_config",
            "reasoning_config on a rerank model",
        ),
        (
            "llm",
            json!({ "name": "l", "provider_uuid": chat, "context_length": 0 }),
            "context_length",
            "context_length 0",
        ),
        (
            "llm",
            json!({ "name": "l", "provider_uuid": chat, "extra_args": [1] }),
            "extra_args",
            "extra_args not an object",
        ),
        (
            "llm",
            json!({ "name": "l", "provider_uuid": chat, "bogus": 1 }),
            "bogus",
            "unknown field",
        ),
    ];
    for (kind, body, field, what) in &cases {
        let res = f.send(Method::POST, &models_path(kind), body).await;
        assert_field_error(&res, field, what);
    }
    for kind in KINDS {
        assert!(
            f.model_uuids(kind).await.is_empty(),
            "a refused create left a {kind} model"
        );
    }

    // Updates check the same.
    let llm = f.model("llm", &chat, "l").await;
    let rr = f.model("rerank", &rerank, "r").await;
    let res = f
        .send(
            Method::PUT,
            &model_path("llm", &llm),
            &json!({ "provider_uuid": rerank }),
        )
        .await;
    assert_field_error(
        &res,
        "provider_uuid",
        "moving an LLM to a rerank-only provider",
    );
    let res = f
        .send(
            Method::PUT,
            &model_path("rerank", &rr),
            &json!({ "provider_uuid": chat }),
        )
        .await;
    assert_field_error(
        &res,
        "provider_uuid",
        "moving a rerank model to a chat provider",
    );
    let res = f
        .send(
            Method::PUT,
            &model_path("rerank", &rr),
            &json!({ "abilities": [] }),
        )
        .await;
    assert_field_error(&res, "abilities", "abilities on a rerank model");
    assert_eq!(
        f.get(&model_path("llm", &llm)).await.data()["model"]["provider_uuid"],
        chat.as_str()
    );
}

#[tokio::test]
async fn abilities_and_reasoning_config_are_validated_and_normalized() {
    let f = Fixture::new().await;
    let chat = f.chat_provider(NOWHERE, &[]).await;
    let body = |abilities: Value, reasoning: Value| json!({ "name": "m", "provider_uuid": chat, "abilities": abilities, "reasoning_config": reasoning });
    let refused: Vec<(Value, &str, &str)> = vec![
        (
            json!({ "name": "m", "provider_uuid": chat, "abilities": ["telepathy"] }),
            "abilities",
            "unknown ability",
        ),
        (
            json!({ "name": "m", "provider_uuid": chat, "abilities": "vision" }),
            "abilities",
            "abilities not a list",
        ),
        (
            body(json!([]), json!({ "level": "high" })),
            "reasoning_config",
            "a level without the reasoning ability",
        ),
        (
            body(json!(["reasoning"]), json!({ "level": "turbo" })),
            "reasoning_config",
            "unknown level",
        ),
        (
            body(json!(["reasoning"]), json!({ "budget_tokens": 0 })),
            "reasoning_config",
            "budget 0",
        ),
        (
            body(json!(["reasoning"]), json!({ "budget_tokens": -5 })),
            "reasoning_config",
            "negative budget",
        ),
        (
            body(json!(["reasoning"]), json!({ "budget_tokens": 1.5 })),
            "reasoning_config",
            "fractional budget",
        ),
        (
            body(json!(["reasoning"]), json!({ "budget_tokens": true })),
            "reasoning_config",
            "boolean budget",
        ),
        (
            body(json!(["reasoning"]), json!({ "budget_tokens": "100" })),
            "reasoning_config",
            "budget as text",
        ),
        (
            body(
                json!(["reasoning"]),
                json!({ "level": "high", "budget_tokens": 100 }),
            ),
            "reasoning_config",
            "a budget with an effort level",
        ),
        (
            body(json!(["reasoning"]), json!({ "effort": "high" })),
            "reasoning_config",
            "unknown field",
        ),
        (
            body(json!(["reasoning"]), json!("high")),
            "reasoning_config",
            "not an object",
        ),
        (
            body(json!(["reasoning"]), json!([])),
            "reasoning_config",
            "a list",
        ),
    ];
    for (b, field, what) in &refused {
        let res = f.send(Method::POST, &models_path("llm"), b).await;
        assert_field_error(&res, field, what);
    }
    assert!(f.model_uuids("llm").await.is_empty());

    let accepted: Vec<(Value, Value)> = vec![
        (
            body(json!([]), json!({})),
            json!({ "level": "provider_default" }),
        ),
        (
            body(json!([]), json!({ "level": "provider_default" })),
            json!({ "level": "provider_default" }),
        ),
        (
            body(json!(["reasoning"]), json!({ "level": "high" })),
            json!({ "level": "high" }),
        ),
        (
            body(json!(["reasoning"]), json!({ "level": "disabled" })),
            json!({ "level": "disabled" }),
        ),
        (
            body(json!(["reasoning"]), json!({ "budget_tokens": 2048 })),
            json!({ "level": "enabled", "budget_tokens": 2048 }),
        ),
        (
            body(
                json!(["reasoning"]),
                json!({ "level": "enabled", "budget_tokens": 1024 }),
            ),
            json!({ "level": "enabled", "budget_tokens": 1024 }),
        ),
    ];
    for (b, stored) in &accepted {
        let uuid = f.model_in(None, "llm", b).await;
        let res = f.get(&model_path("llm", &uuid)).await;
        assert_eq!(&res.data()["model"]["reasoning_config"], stored, "{b}");
    }

    // The merged record is checked on update: dropping the ability under a level is refused.
    let uuid = f
        .model_in(
            None,
            "llm",
            &body(json!(["reasoning"]), json!({ "level": "low" })),
        )
        .await;
    let res = f
        .send(
            Method::PUT,
            &model_path("llm", &uuid),
            &json!({ "abilities": ["vision"] }),
        )
        .await;
    assert_field_error(
        &res,
        "reasoning_config",
        "removing the reasoning ability under a level",
    );
    let res = f
        .send(
            Method::PUT,
            &model_path("llm", &uuid),
            &json!({ "reasoning_config": { "level": "minimal" } }),
        )
        .await;
    res.data();
    assert_eq!(
        f.get(&model_path("llm", &uuid)).await.data()["model"]["reasoning_config"],
        json!({ "level": "minimal" })
    );
}

#[tokio::test]
async fn a_model_is_only_found_under_its_own_kind() {
    let f = Fixture::new().await;
    let chat = f.chat_provider(NOWHERE, &[]).await;
    let llm = f.model("llm", &chat, "l").await;
    let embedding = f.model("embedding", &chat, "e").await;
    for (kind, uuid) in [("embedding", &llm), ("rerank", &llm), ("llm", &embedding)] {
        let path = model_path(kind, uuid);
        f.get(&path).await.assert_error(404, "resource_not_found");
        f.send(Method::PUT, &path, &json!({ "name": "hijacked" }))
            .await
            .assert_error(404, "resource_not_found");
        f.send(Method::POST, &format!("{path}/test"), &json!({}))
            .await
            .assert_error(404, "resource_not_found");
        f.delete(&path)
            .await
            .assert_error(404, "resource_not_found");
    }
    assert_eq!(f.model_uuids("llm").await, vec![llm.clone()]);
    assert_eq!(f.model_uuids("embedding").await, vec![embedding]);
    assert_eq!(
        f.get(&model_path("llm", &llm)).await.data()["model"]["name"],
        "l"
    );
}

// ---------------------------------------------------------------------------------------------
// Model tests against the fake upstream
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn testing_a_model_really_calls_its_provider() {
    let fake = FakeOpenAi::start().await;
    fake.mount_chat("Hello").await;
    fake.mount_embeddings().await;
    fake.mount_rerank(&[0.8, 0.1]).await;
    let f = Fixture::new().await;
    let chat = f
        .chat_provider(&fake.base_url(), &["sk-chat-1111", "sk-chat-2222"])
        .await;
    let rerank = f
        .rerank_provider(&fake.base_url(), &["sk-rerank-3333"])
        .await;
    let llm = f
        .model_in(
            None,
            "llm",
            &json!({ "name": "gpt-test", "provider_uuid": chat, "extra_args": { "temperature": 0.1 } }),
        )
        .await;
    let embedding = f.model("embedding", &chat, "emb-test").await;
    let rr = f.model("rerank", &rerank, "rr-test").await;

    // LLM: one plain call with the first key, the model's extra args.
    let res = f.test_model("llm", &llm).await;
    let data = res.data();
    assert!(data["latency_ms"].is_u64(), "{}", res.text);
    assert_eq!(
        data.as_object()
            .map(|o| o.keys().cloned().collect::<Vec<_>>()),
        Some(vec!["latency_ms".to_string()])
    );
    let sent = fake.only(Route::Chat).await;
    assert_eq!(sent.authorization(), Some("Bearer sk-chat-1111"));
    assert_eq!(sent.body["model"], "gpt-test");
    assert_eq!(sent.body["temperature"], 0.1);
    let messages = sent.body["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 1, "{}", sent.body);
    assert_eq!(messages[0]["role"], "user");
    assert!(
        messages[0]["content"]
            .as_str()
            .is_some_and(|c| c.contains("Hello")),
        "{}",
        sent.body
    );
    assert!(sent.body.get("tools").is_none(), "{}", sent.body);
    assert!(sent.body["stream"] != true, "{}", sent.body);

    // Call-level extra args are added for this call only.
    let res = f
        .send(
            Method::POST,
            &format!("{}/test", model_path("llm", &llm)),
            &json!({ "extra_args": { "max_tokens": 5 } }),
        )
        .await;
    res.data();
    let sent = fake.received_on(Route::Chat).await;
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[1].body["max_tokens"], 5);
    assert_eq!(sent[1].body["temperature"], 0.1);
    assert_eq!(
        f.get(&model_path("llm", &llm)).await.data()["model"]["extra_args"],
        json!({ "temperature": 0.1 }),
        "a test does not change the model"
    );

    // Embedding.
    let res = f.test_model("embedding", &embedding).await;
    assert!(res.data()["latency_ms"].is_u64(), "{}", res.text);
    let sent = fake.only(Route::Embeddings).await;
    assert_eq!(sent.authorization(), Some("Bearer sk-chat-1111"));
    assert_eq!(sent.body["model"], "emb-test");
    assert!(
        sent.body["input"].as_array().is_some_and(|a| !a.is_empty()),
        "{}",
        sent.body
    );

    // Rerank.
    let res = f.test_model("rerank", &rr).await;
    assert!(res.data()["latency_ms"].is_u64(), "{}", res.text);
    let sent = fake.only(Route::Rerank).await;
    assert_eq!(sent.authorization(), Some("Bearer sk-rerank-3333"));
    assert_eq!(sent.body["model"], "rr-test");
    assert!(sent.body["query"].as_str().is_some_and(|q| !q.is_empty()));
    assert!(
        sent.body["documents"]
            .as_array()
            .is_some_and(|d| !d.is_empty()),
        "{}",
        sent.body
    );

    // An API key with provider_secret.manage may test too.
    let (_, key) = f.app.create_key(&f.owner, None).await;
    let res = f
        .app
        .request(Method::POST, &format!("{}/test", model_path("llm", &llm)))
        .header("x-api-key", &key)
        .json(&json!({}))
        .send()
        .await;
    assert!(res.data()["latency_ms"].is_u64(), "{}", res.text);
}

/// How the fake upstream fails, and what the test must report.
#[derive(Debug, Clone, Copy)]
enum Failure {
    Unauthorized,
    RateLimited,
    ContextLength,
    ServerError,
}

impl Failure {
    const ALL: [Failure; 4] = [
        Failure::Unauthorized,
        Failure::RateLimited,
        Failure::ContextLength,
        Failure::ServerError,
    ];

    async fn mount(self, fake: &FakeOpenAi, echoed_key: &str) {
        for route in Route::ALL {
            match self {
                Failure::Unauthorized => fake.mount_unauthorized(route, echoed_key).await,
                Failure::RateLimited => fake.mount_rate_limited(route).await,
                Failure::ContextLength => fake.mount_context_length_exceeded(route).await,
                Failure::ServerError => fake.mount_server_error(route).await,
            }
        }
    }

    fn expected(self) -> (u16, &'static str) {
        match self {
            Failure::Unauthorized => (401, "authentication"),
            Failure::RateLimited => (429, "rate_limit"),
            Failure::ContextLength => (400, "context_length"),
            Failure::ServerError => (500, "upstream_error"),
        }
    }
}

#[tokio::test]
async fn failed_model_tests_are_502_model_test_failed_with_the_upstream_code() {
    const CHAT_KEY: &str = "sk-secret-chat-key-4242";
    const RERANK_KEY: &str = "sk-secret-rerank-key-4343";
    let fake = FakeOpenAi::start().await;
    let f = Fixture::new().await;
    let chat = f.chat_provider(&fake.base_url(), &[CHAT_KEY]).await;
    let rerank = f.rerank_provider(&fake.base_url(), &[RERANK_KEY]).await;
    let models = [
        ("llm", f.model("llm", &chat, "gpt-test").await, CHAT_KEY),
        (
            "embedding",
            f.model("embedding", &chat, "emb-test").await,
            CHAT_KEY,
        ),
        (
            "rerank",
            f.model("rerank", &rerank, "rr-test").await,
            RERANK_KEY,
        ),
    ];
    for failure in Failure::ALL {
        for (kind, uuid, key) in &models {
            fake.reset().await;
            failure.mount(&fake, key).await;
            let res = f.test_model(kind, uuid).await;
            let what = format!("{kind} model, upstream {failure:?}");
            assert!(res.status != 200, "{what}: {}", res.text);
            res.assert_error(502, "model_test_failed");
            let (status, code) = failure.expected();
            assert_eq!(
                res.body["details"]["upstream_status"], status,
                "{what}: {}",
                res.text
            );
            assert_eq!(
                res.body["details"]["upstream_code"], code,
                "{what}: {}",
                res.text
            );
            assert!(
                !res.text.contains(key),
                "{what}: the provider's API key leaked into the response: {}",
                res.text
            );
            assert_eq!(
                fake.received().await.len(),
                1,
                "{what}: the upstream was called once"
            );
        }
    }
}

#[tokio::test]
async fn the_api_key_never_appears_in_a_failed_test_even_when_the_upstream_echoes_it() {
    const KEY_1: &str = "sk-proj-Zx9TopSecretValue000111";
    const KEY_2: &str = "sk-proj-Second-Key-222333";
    let fake = FakeOpenAi::start().await;
    let f = Fixture::new().await;
    let chat = f.chat_provider(&fake.base_url(), &[KEY_1, KEY_2]).await;
    let llm = f.model("llm", &chat, "gpt-test").await;
    let echo = format!("Incorrect API key provided: {KEY_1} (also tried {KEY_2}); Bearer {KEY_1}");
    for status in [401, 403, 400, 404, 429, 500, 503] {
        fake.reset().await;
        fake.mount_error(
            Route::Chat,
            status,
            openai_error(&echo, "invalid_request_error", Some("invalid_api_key")),
        )
        .await;
        let res = f.test_model("llm", &llm).await;
        res.assert_error(502, "model_test_failed");
        assert_eq!(
            res.body["details"]["upstream_status"], status,
            "{}",
            res.text
        );
        for key in [KEY_1, KEY_2] {
            assert!(
                !res.text.contains(key),
                "upstream {status}: a provider key leaked: {}",
                res.text
            );
        }
        let headers = format!("{:?}", res.headers);
        assert!(!headers.contains(KEY_1), "a key leaked into the headers");
    }
    // Also when the key is echoed in a plain-text body.
    fake.reset().await;
    fake.respond(
        Route::Chat,
        wiremock::ResponseTemplate::new(500).set_body_string(format!("bad key {KEY_1}")),
    )
    .await;
    let res = f.test_model("llm", &llm).await;
    res.assert_error(502, "model_test_failed");
    assert!(!res.text.contains(KEY_1), "{}", res.text);
}

#[tokio::test]
async fn a_model_test_times_out_after_the_provider_timeout() {
    let fake = FakeOpenAi::start().await;
    for route in Route::ALL {
        fake.mount_slow(route, Duration::from_secs(5)).await;
    }
    let f = Fixture::new().await;
    let chat = f
        .provider_in(
            None,
            &json!({
                "name": "Slow", "requester": CHAT, "base_url": fake.base_url(),
                "api_keys": ["sk-slow"], "config": { "timeout": 1 },
            }),
        )
        .await;
    let rerank = f
        .provider_in(
            None,
            &json!({
                "name": "Slow rerank", "requester": RERANK, "base_url": fake.base_url(),
                "api_keys": ["sk-slow"], "config": { "timeout": 1 },
            }),
        )
        .await;
    for (kind, provider) in [("llm", &chat), ("embedding", &chat), ("rerank", &rerank)] {
        let uuid = f.model(kind, provider, "slow-model").await;
        let started = Instant::now();
        let res = f.test_model(kind, &uuid).await;
        let waited = started.elapsed();
        res.assert_error(502, "model_test_failed");
        assert_eq!(
            res.body["details"]["upstream_code"], "timeout",
            "{kind}: {}",
            res.text
        );
        assert!(
            res.body["details"]["upstream_status"].is_null(),
            "{kind}: no upstream status on a timeout: {}",
            res.text
        );
        assert!(
            waited < Duration::from_millis(4000),
            "{kind}: waited {waited:?} with a 1 s provider timeout"
        );
    }

    // Raising the timeout by update is honoured too: now the slow reply arrives in time.
    fake.reset().await;
    for route in Route::ALL {
        fake.mount_slow(route, Duration::from_millis(1500)).await;
    }
    f.send(
        Method::PUT,
        &provider_path(&chat),
        &json!({ "config": { "timeout": 10 } }),
    )
    .await
    .data();
    let uuid = f.model("llm", &chat, "patient").await;
    let res = f.test_model("llm", &uuid).await;
    assert!(
        res.data()["latency_ms"]
            .as_u64()
            .is_some_and(|ms| ms >= 1000),
        "{}",
        res.text
    );
}

#[tokio::test]
async fn an_unreachable_provider_fails_the_test_with_upstream_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let f = Fixture::new().await;
    let chat = f
        .chat_provider(
            &format!("http://127.0.0.1:{port}/v1"),
            &["sk-unreachable-1"],
        )
        .await;
    let llm = f.model("llm", &chat, "gpt").await;
    let res = f.test_model("llm", &llm).await;
    res.assert_error(502, "model_test_failed");
    assert_eq!(
        res.body["details"]["upstream_code"], "upstream_error",
        "{}",
        res.text
    );
    assert!(
        res.body["details"]["upstream_status"].is_null(),
        "{}",
        res.text
    );
    assert!(!res.text.contains("sk-unreachable-1"));
}

// ---------------------------------------------------------------------------------------------
// Secrets
// ---------------------------------------------------------------------------------------------

const PROVIDER_KEYS: [&str; 2] = ["sk-live-aaaa1111", "sk-live-bbbb2222"];
const HEADER_SECRET: &str = "Bearer hdr-secret-9999";
const MODEL_KEY: &str = "model-key-7777";

/// A provider with two keys and an LLM model whose extra args hold secrets.
async fn secret_fixture(f: &Fixture) -> (String, String) {
    let provider = f.chat_provider(NOWHERE, &PROVIDER_KEYS).await;
    let model = f
        .model_in(
            None,
            "llm",
            &json!({
                "name": "gpt",
                "provider_uuid": provider,
                "extra_args": {
                    "temperature": 0.5,
                    "extra_headers": { "Authorization": HEADER_SECRET, "X-Trace": "t" },
                    "api_key": MODEL_KEY,
                },
            }),
        )
        .await;
    (provider, model)
}

fn revealed_extra_args() -> Value {
    json!({
        "temperature": 0.5,
        "extra_headers": { "Authorization": HEADER_SECRET, "X-Trace": "t" },
        "api_key": MODEL_KEY,
    })
}

fn masked_extra_args() -> Value {
    json!({
        "temperature": 0.5,
        "extra_headers": { "Authorization": "***", "X-Trace": "t" },
        "api_key": "***",
    })
}

/// Reads every provider/model view as `cred` (bearer) with `query` and checks the secrets are
/// all revealed or all masked.
async fn check_secret_views(
    f: &Fixture,
    who: &str,
    cred: &str,
    provider: &str,
    model: &str,
    query: &str,
    reveals: bool,
) {
    let keys = if reveals {
        json!(PROVIDER_KEYS)
    } else {
        json!(["***", "***"])
    };
    let extra_args = if reveals {
        revealed_extra_args()
    } else {
        masked_extra_args()
    };
    let sep = |path: &str| if path.contains('?') { '&' } else { '?' };
    let with_query = |path: String| {
        if query.is_empty() {
            path
        } else {
            format!("{path}{}{query}", sep(&path))
        }
    };
    let read = |path: String| async move {
        let res = f.app.get_as(cred, &path).await;
        assert_eq!(res.status, 200, "{who} GET {path}: {}", res.text);
        if !reveals {
            for secret in PROVIDER_KEYS.iter().chain([&HEADER_SECRET, &MODEL_KEY]) {
                assert!(
                    !res.text.contains(secret),
                    "{who} GET {path}: secret {secret} visible: {}",
                    res.text
                );
            }
        }
        res
    };

    let res = read(with_query(provider_path(provider))).await;
    assert_eq!(
        res.body["data"]["provider"]["api_keys"], keys,
        "{who}: {}",
        res.text
    );
    let res = read(with_query(PROVIDERS.to_string())).await;
    assert_eq!(
        res.body["data"]["providers"][0]["api_keys"], keys,
        "{who}: {}",
        res.text
    );
    let res = read(with_query(model_path("llm", model))).await;
    assert_eq!(
        res.body["data"]["model"]["extra_args"], extra_args,
        "{who}: {}",
        res.text
    );
    assert_eq!(
        res.body["data"]["model"]["provider"]["api_keys"], keys,
        "{who}: {}",
        res.text
    );
    let res = read(with_query(models_path("llm"))).await;
    assert_eq!(
        res.body["data"]["models"][0]["extra_args"], extra_args,
        "{who}: {}",
        res.text
    );
    assert_eq!(
        res.body["data"]["models"][0]["provider"]["api_keys"], keys,
        "{who}: {}",
        res.text
    );
    let res = read(with_query(format!(
        "{}?provider_uuid={provider}",
        models_path("llm")
    )))
    .await;
    assert_eq!(
        res.body["data"]["models"][0]["extra_args"], extra_args,
        "{who}: {}",
        res.text
    );
}

#[tokio::test]
async fn secrets_are_revealed_only_to_roles_with_provider_secret_manage() {
    let f = Fixture::new().await;
    let (provider, model) = secret_fixture(&f).await;
    let mut members: Vec<(Member, bool)> = Vec::new();
    for (role, reveals) in [
        ("admin", true),
        ("developer", true),
        ("operator", false),
        ("viewer", false),
    ] {
        let m = f
            .app
            .add_member(&f.owner, &f.ws, &format!("{role}@example.com"), role)
            .await;
        members.push((m, reveals));
    }
    check_secret_views(&f, "owner", &f.owner, &provider, &model, "", true).await;
    for (m, reveals) in &members {
        check_secret_views(&f, &m.email, &m.token, &provider, &model, "", *reveals).await;
    }
    // API keys: as their effective permissions say.
    let (_, full) = f.app.create_key(&f.owner, None).await;
    check_secret_views(&f, "owner key", &full, &provider, &model, "", true).await;
    let (_, view_only) = f
        .app
        .create_key(&f.owner, Some(&["resource.view", "workspace.view"]))
        .await;
    check_secret_views(
        &f,
        "resource.view key",
        &view_only,
        &provider,
        &model,
        "",
        false,
    )
    .await;
}

#[tokio::test]
async fn include_secret_masks_on_request_and_refuses_other_values() {
    let f = Fixture::new().await;
    let (provider, model) = secret_fixture(&f).await;
    let viewer = f
        .app
        .add_member(&f.owner, &f.ws, "viewer@example.com", "viewer")
        .await;
    check_secret_views(
        &f,
        "owner, include_secret=false",
        &f.owner,
        &provider,
        &model,
        "include_secret=false",
        false,
    )
    .await;
    check_secret_views(
        &f,
        "owner, include_secret=true",
        &f.owner,
        &provider,
        &model,
        "include_secret=true",
        true,
    )
    .await;
    // Asking for secrets without the permission is not an error; they stay masked.
    check_secret_views(
        &f,
        "viewer, include_secret=true",
        &viewer.token,
        &provider,
        &model,
        "include_secret=true",
        false,
    )
    .await;

    for value in ["maybe", "", "1", "yes"] {
        for path in [
            provider_path(&provider),
            PROVIDERS.to_string(),
            model_path("llm", &model),
            models_path("llm"),
        ] {
            let res = f.get(&format!("{path}?include_secret={value}")).await;
            assert!(
                res.status < 500,
                "{path} include_secret={value}: {}",
                res.text
            );
            res.assert_error(400, "invalid_request");
        }
    }
}

#[tokio::test]
async fn a_masked_key_on_update_keeps_the_stored_key() {
    const ORIGINAL: &str = "sk-original-1234";
    let fake = FakeOpenAi::start().await;
    fake.mount_requiring_key(Route::Chat, ORIGINAL).await;
    let f = Fixture::new().await;
    let provider = f.chat_provider(&fake.base_url(), &[ORIGINAL]).await;
    let llm = f.model("llm", &provider, "gpt").await;
    f.test_model("llm", &llm).await.data();

    // What a client that read the provider masked sends back.
    let masked = f
        .get(&format!(
            "{}?include_secret=false",
            provider_path(&provider)
        ))
        .await;
    let p = &masked.data()["provider"];
    assert_eq!(p["api_keys"], json!(["***"]));
    let res = f
        .send(
            Method::PUT,
            &provider_path(&provider),
            &json!({
                "name": "Renamed",
                "requester": p["requester"],
                "base_url": p["base_url"],
                "api_keys": p["api_keys"],
                "config": p["config"],
            }),
        )
        .await;
    res.data();
    let res = f.get(&provider_path(&provider)).await;
    assert_eq!(res.data()["provider"]["name"], "Renamed");
    assert_eq!(res.data()["provider"]["api_keys"], json!([ORIGINAL]));
    // The proof: the upstream only accepts the original key, and the test still passes.
    let res = f.test_model("llm", &llm).await;
    assert!(res.data()["latency_ms"].is_u64(), "{}", res.text);
    let sent = fake.received_on(Route::Chat).await;
    assert_eq!(
        sent.last().and_then(|r| r.authorization()),
        Some("Bearer sk-original-1234")
    );

    // A mask keeps the key at its position; new keys are added.
    f.send(
        Method::PUT,
        &provider_path(&provider),
        &json!({ "api_keys": ["***", "sk-second-5678"] }),
    )
    .await
    .data();
    assert_eq!(
        f.get(&provider_path(&provider)).await.data()["provider"]["api_keys"],
        json!([ORIGINAL, "sk-second-5678"])
    );
    f.test_model("llm", &llm).await.data();

    // More masks than stored keys: 400, and nothing changes.
    let res = f
        .send(
            Method::PUT,
            &provider_path(&provider),
            &json!({ "api_keys": ["***", "***", "***"] }),
        )
        .await;
    res.assert_error(400, "invalid_request");
    assert_eq!(
        f.get(&provider_path(&provider)).await.data()["provider"]["api_keys"],
        json!([ORIGINAL, "sk-second-5678"])
    );

    // A real new key replaces it — and the upstream now refuses, so the key really is used.
    f.send(
        Method::PUT,
        &provider_path(&provider),
        &json!({ "api_keys": ["sk-replaced-0000"] }),
    )
    .await
    .data();
    let res = f.test_model("llm", &llm).await;
    res.assert_error(502, "model_test_failed");
    assert_eq!(res.body["details"]["upstream_code"], "authentication");
    assert!(!res.text.contains("sk-replaced-0000"));

    // Clearing the keys, then a mask has nothing to keep.
    f.send(
        Method::PUT,
        &provider_path(&provider),
        &json!({ "api_keys": [] }),
    )
    .await
    .data();
    assert_eq!(
        f.get(&provider_path(&provider)).await.data()["provider"]["api_keys"],
        json!([])
    );
    let res = f
        .send(
            Method::PUT,
            &provider_path(&provider),
            &json!({ "api_keys": ["***"] }),
        )
        .await;
    assert_field_error(&res, "api_keys[0]", "a mask with nothing stored on update");
}

#[tokio::test]
async fn masks_with_nothing_stored_are_refused_on_create() {
    let f = Fixture::new().await;
    for keys in [json!(["***"]), json!(["sk-real", "***"])] {
        let res = f
            .send(
                Method::POST,
                PROVIDERS,
                &json!({ "name": "P", "requester": CHAT, "base_url": NOWHERE, "api_keys": keys }),
            )
            .await;
        res.assert_error(400, "invalid_request");
    }
    assert!(f.provider_uuids().await.is_empty());

    let provider = f.chat_provider(NOWHERE, &["sk-real"]).await;
    for extra_args in [
        json!({ "api_key": "***" }),
        json!({ "extra_headers": { "Authorization": "***" } }),
        json!({ "extra_body": { "client_secret": "***" } }),
    ] {
        let res = f
            .send(
                Method::POST,
                &models_path("llm"),
                &json!({ "name": "m", "provider_uuid": provider, "extra_args": extra_args }),
            )
            .await;
        res.assert_error(400, "invalid_request");
    }
    assert!(f.model_uuids("llm").await.is_empty());

    // `***` outside a secret field is ordinary text.
    let uuid = f
        .model_in(
            None,
            "llm",
            &json!({ "name": "m", "provider_uuid": provider, "extra_args": { "stop": "***" } }),
        )
        .await;
    assert_eq!(
        f.get(&model_path("llm", &uuid)).await.data()["model"]["extra_args"],
        json!({ "stop": "***" })
    );
}

#[tokio::test]
async fn model_extra_args_secrets_are_masked_for_viewers_and_restored_on_update() {
    let fake = FakeOpenAi::start().await;
    fake.mount_chat("ok").await;
    let f = Fixture::new().await;
    let provider = f.chat_provider(&fake.base_url(), &["sk-provider-1"]).await;
    let stored = json!({
        "temperature": 0.3,
        "extra_headers": {
            "Authorization": "Bearer hdr-secret-xyz",
            "X-Api-Key": "xkey-secret-123",
            "X-Trace": "t",
        },
    });
    let model = f
        .model_in(
            None,
            "llm",
            &json!({ "name": "gpt", "provider_uuid": provider, "extra_args": stored }),
        )
        .await;
    let viewer = f
        .app
        .add_member(&f.owner, &f.ws, "viewer@example.com", "viewer")
        .await;
    let masked = json!({
        "temperature": 0.3,
        "extra_headers": { "Authorization": "***", "X-Api-Key": "***", "X-Trace": "t" },
    });
    let res = f
        .app
        .get_as(&viewer.token, &model_path("llm", &model))
        .await;
    assert_eq!(res.data()["model"]["extra_args"], masked);
    assert!(!res.text.contains("hdr-secret-xyz") && !res.text.contains("xkey-secret-123"));
    let res = f
        .get(&format!(
            "{}?include_secret=false",
            model_path("llm", &model)
        ))
        .await;
    assert_eq!(res.data()["model"]["extra_args"], masked);

    // The owner edits what a masked read showed: the masks keep the stored secrets.
    let mut edited = masked.clone();
    edited["temperature"] = json!(0.9);
    edited["extra_headers"]["X-Trace"] = json!("t2");
    f.send(
        Method::PUT,
        &model_path("llm", &model),
        &json!({ "extra_args": edited }),
    )
    .await
    .data();
    let res = f.get(&model_path("llm", &model)).await;
    assert_eq!(
        res.data()["model"]["extra_args"],
        json!({
            "temperature": 0.9,
            "extra_headers": {
                "Authorization": "Bearer hdr-secret-xyz",
                "X-Api-Key": "xkey-secret-123",
                "X-Trace": "t2",
            },
        })
    );
    // …and they are what goes upstream.
    f.test_model("llm", &model).await.data();
    let sent = fake.only(Route::Chat).await;
    assert_eq!(sent.header("x-api-key"), Some("xkey-secret-123"));
    assert_eq!(sent.header("x-trace"), Some("t2"));
    assert_eq!(sent.body["temperature"], 0.9);

    // The submitted object replaces the stored one; masks restore only what they name.
    f.send(
        Method::PUT,
        &model_path("llm", &model),
        &json!({ "extra_args": { "extra_headers": { "Authorization": "***" } } }),
    )
    .await
    .data();
    assert_eq!(
        f.get(&model_path("llm", &model)).await.data()["model"]["extra_args"],
        json!({ "extra_headers": { "Authorization": "Bearer hdr-secret-xyz" } })
    );
    // A new value replaces the secret.
    f.send(
        Method::PUT,
        &model_path("llm", &model),
        &json!({ "extra_args": { "extra_headers": { "Authorization": "Bearer new" } } }),
    )
    .await
    .data();
    assert_eq!(
        f.get(&model_path("llm", &model)).await.data()["model"]["extra_args"],
        json!({ "extra_headers": { "Authorization": "Bearer new" } })
    );
    // A mask where nothing is stored: 400, nothing changes.
    let res = f
        .send(
            Method::PUT,
            &model_path("llm", &model),
            &json!({ "extra_args": { "extra_headers": { "Authorization": "***", "Cookie": "***" } } }),
        )
        .await;
    res.assert_error(400, "invalid_request");
    assert_eq!(
        f.get(&model_path("llm", &model)).await.data()["model"]["extra_args"],
        json!({ "extra_headers": { "Authorization": "Bearer new" } })
    );
    // Viewers cannot update at all.
    let res = f
        .app
        .send_as(
            &viewer.token,
            Method::PUT,
            &model_path("llm", &model),
            &json!({ "extra_args": {} }),
        )
        .await;
    res.assert_error(403, "permission_denied");
}

// ---------------------------------------------------------------------------------------------
// Starred and default model
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn the_starred_model_is_an_llm_model_of_this_workspace() {
    let f = Fixture::new().await;
    assert_eq!(f.get(STARRED).await.data(), &json!({ "uuid": null }));
    assert_eq!(f.get(DEFAULT).await.data(), &json!({ "uuid": null }));

    let chat = f.chat_provider(NOWHERE, &[]).await;
    let rerank = f.rerank_provider(NOWHERE, &[]).await;
    let l1 = f.model("llm", &chat, "l1").await;
    let l2 = f.model("llm", &chat, "l2").await;
    let e1 = f.model("embedding", &chat, "e1").await;
    let r1 = f.model("rerank", &rerank, "r1").await;

    let res = f.send(Method::PUT, STARRED, &json!({ "uuid": l1 })).await;
    assert_eq!(res.data(), &json!({ "uuid": l1 }));
    assert_eq!(f.starred().await, json!(l1));
    assert_eq!(
        f.get(DEFAULT).await.data(),
        &json!({ "uuid": l1 }),
        "default = starred"
    );

    for (body, what) in [
        (json!({ "uuid": e1 }), "an embedding model"),
        (json!({ "uuid": r1 }), "a rerank model"),
        (json!({ "uuid": chat }), "a provider"),
        (json!({ "uuid": random_uuid() }), "an unknown uuid"),
        (json!({ "uuid": "not-a-uuid" }), "not a uuid"),
        (json!({ "uuid": 42 }), "a number"),
        (json!({ "uuid": [l2] }), "a list"),
        (json!({ "uuid": l2, "bogus": 1 }), "an unknown field"),
    ] {
        let res = f.send(Method::PUT, STARRED, &body).await;
        assert!(res.status < 500, "{what}: {}", res.text);
        res.assert_error(400, "invalid_request");
        assert_eq!(f.starred().await, json!(l1), "{what} changed the star");
    }

    let res = f.send(Method::PUT, STARRED, &json!({ "uuid": l2 })).await;
    assert_eq!(res.data(), &json!({ "uuid": l2 }));
    assert_eq!(f.get(DEFAULT).await.data()["uuid"], l2.as_str());

    let res = f.send(Method::PUT, STARRED, &json!({ "uuid": null })).await;
    assert_eq!(res.data(), &json!({ "uuid": null }));
    assert_eq!(f.starred().await, Value::Null);
    assert_eq!(f.get(DEFAULT).await.data(), &json!({ "uuid": null }));
    assert!(f.starred_rows().await.iter().all(String::is_empty));

    // An API key works too (session or API key).
    let (_, key) = f.app.create_key(&f.owner, None).await;
    let res = f
        .app
        .request(Method::PUT, STARRED)
        .header("x-api-key", &key)
        .json(&json!({ "uuid": l1 }))
        .send()
        .await;
    assert_eq!(res.data(), &json!({ "uuid": l1 }));
    let res = f
        .app
        .request(Method::GET, DEFAULT)
        .header("x-api-key", &key)
        .send()
        .await;
    assert_eq!(res.data(), &json!({ "uuid": l1 }));
}

#[tokio::test]
async fn starring_needs_provider_secret_manage_and_reading_needs_resource_view() {
    let f = Fixture::new().await;
    let chat = f.chat_provider(NOWHERE, &[]).await;
    let l1 = f.model("llm", &chat, "l1").await;
    let l2 = f.model("llm", &chat, "l2").await;
    f.send(Method::PUT, STARRED, &json!({ "uuid": l1 }))
        .await
        .data();
    for role in ["viewer", "operator"] {
        let m = f
            .app
            .add_member(&f.owner, &f.ws, &format!("{role}@example.com"), role)
            .await;
        let res = f
            .app
            .send_as(&m.token, Method::PUT, STARRED, &json!({ "uuid": l2 }))
            .await;
        res.assert_error(403, "permission_denied");
        assert_eq!(res.body["details"]["permission"], "provider_secret.manage");
        let res = f
            .app
            .send_as(&m.token, Method::PUT, STARRED, &json!({ "uuid": null }))
            .await;
        res.assert_error(403, "permission_denied");
        assert_eq!(
            f.app.get_as(&m.token, STARRED).await.data()["uuid"],
            l1.as_str()
        );
        assert_eq!(
            f.app.get_as(&m.token, DEFAULT).await.data()["uuid"],
            l1.as_str()
        );
    }
    let dev = f
        .app
        .add_member(&f.owner, &f.ws, "developer@example.com", "developer")
        .await;
    let res = f
        .app
        .send_as(&dev.token, Method::PUT, STARRED, &json!({ "uuid": l2 }))
        .await;
    assert_eq!(res.data()["uuid"], l2.as_str());
    // A key without resource.view cannot read it.
    let (_, narrow) = f.app.create_key(&f.owner, Some(&["workspace.view"])).await;
    for path in [STARRED, DEFAULT] {
        let res = f
            .app
            .request(Method::GET, path)
            .header("x-api-key", &narrow)
            .send()
            .await;
        res.assert_error(403, "permission_denied");
    }
}

#[tokio::test]
async fn deleting_the_starred_model_clears_the_star() {
    let f = Fixture::new().await;
    let chat = f.chat_provider(NOWHERE, &[]).await;
    let l1 = f.model("llm", &chat, "l1").await;
    let l2 = f.model("llm", &chat, "l2").await;
    f.send(Method::PUT, STARRED, &json!({ "uuid": l1 }))
        .await
        .data();
    assert_eq!(f.starred_rows().await, vec![l1.clone()]);
    // Deleting another model leaves the star.
    f.delete(&model_path("llm", &l2)).await.data();
    assert_eq!(f.starred().await, json!(l1));
    // Deleting the starred one clears it, in the database too.
    f.delete(&model_path("llm", &l1)).await.data();
    assert_eq!(f.starred().await, Value::Null);
    assert_eq!(f.get(DEFAULT).await.data()["uuid"], Value::Null);
    assert!(
        f.starred_rows().await.iter().all(String::is_empty),
        "the stored star survived the delete: {:?}",
        f.starred_rows().await
    );
}

#[tokio::test]
async fn another_workspaces_model_cannot_be_starred() {
    let f = Fixture::multi().await;
    let ws_b = f.app.create_workspace(&f.owner, "B").await;
    let b_provider = f
        .provider_in(
            Some(&ws_b),
            &json!({ "name": "B", "requester": CHAT, "base_url": NOWHERE, "api_keys": ["sk-b"] }),
        )
        .await;
    let b_model = f
        .model_in(
            Some(&ws_b),
            "llm",
            &json!({ "name": "b", "provider_uuid": b_provider }),
        )
        .await;
    let a_provider = f.chat_provider(NOWHERE, &[]).await;
    let a_model = f.model("llm", &a_provider, "a").await;

    // From A, B's model is like a missing one.
    let res = f
        .send(Method::PUT, STARRED, &json!({ "uuid": b_model }))
        .await;
    res.assert_error(400, "invalid_request");
    let missing = f
        .send(Method::PUT, STARRED, &json!({ "uuid": random_uuid() }))
        .await;
    assert_eq!(
        (res.status, &res.body["code"], error_fields(&res)),
        (
            missing.status,
            &missing.body["code"],
            error_fields(&missing)
        ),
        "another Workspace's model must look like a missing one"
    );
    assert_eq!(f.starred().await, Value::Null);
    // And the other way round.
    let res = f
        .call(
            &f.owner,
            Some(&ws_b),
            Method::PUT,
            STARRED,
            Some(&json!({ "uuid": a_model })),
        )
        .await;
    res.assert_error(400, "invalid_request");
    // Each Workspace has its own star.
    f.call(
        &f.owner,
        Some(&ws_b),
        Method::PUT,
        STARRED,
        Some(&json!({ "uuid": b_model })),
    )
    .await
    .data();
    f.send(Method::PUT, STARRED, &json!({ "uuid": a_model }))
        .await
        .data();
    assert_eq!(f.starred().await, json!(a_model));
    let res = f
        .call(&f.owner, Some(&ws_b), Method::GET, STARRED, None)
        .await;
    assert_eq!(res.data()["uuid"], b_model.as_str());
    let res = f
        .call(&f.owner, Some(&ws_b), Method::GET, DEFAULT, None)
        .await;
    assert_eq!(res.data()["uuid"], b_model.as_str());
}

// ---------------------------------------------------------------------------------------------
// Provider delete and cascade
// ---------------------------------------------------------------------------------------------

/// A chat provider with two LLMs and an embedding model, a rerank provider with one rerank
/// model, a second chat provider with one LLM; the first LLM is starred.
struct Populated {
    chat: String,
    rerank: String,
    other: String,
    l1: String,
    l2: String,
    e1: String,
    r1: String,
    l3: String,
}

async fn populate(f: &Fixture) -> Populated {
    let chat = f.chat_provider(NOWHERE, &["sk-1"]).await;
    let rerank = f.rerank_provider(NOWHERE, &["sk-2"]).await;
    let other = f.chat_provider(NOWHERE, &["sk-3"]).await;
    let l1 = f.model("llm", &chat, "l1").await;
    let l2 = f.model("llm", &chat, "l2").await;
    let e1 = f.model("embedding", &chat, "e1").await;
    let r1 = f.model("rerank", &rerank, "r1").await;
    let l3 = f.model("llm", &other, "l3").await;
    f.send(Method::PUT, STARRED, &json!({ "uuid": l1 }))
        .await
        .data();
    Populated {
        chat,
        rerank,
        other,
        l1,
        l2,
        e1,
        r1,
        l3,
    }
}

/// Everything the provider/model API shows, for before/after comparisons.
async fn everything(f: &Fixture) -> Value {
    json!({
        "providers": f.get(PROVIDERS).await.data()["providers"],
        "llm": f.get(&models_path("llm")).await.data()["models"],
        "embedding": f.get(&models_path("embedding")).await.data()["models"],
        "rerank": f.get(&models_path("rerank")).await.data()["models"],
        "starred": f.starred().await,
        "starred_rows": f.starred_rows().await,
    })
}

#[tokio::test]
async fn deleting_a_provider_with_models_needs_cascade() {
    let f = Fixture::new().await;
    let p = populate(&f).await;
    let before = everything(&f).await;
    for query in ["", "?cascade=false"] {
        let res = f
            .delete(&format!("{}{query}", provider_path(&p.chat)))
            .await;
        res.assert_error(409, "provider_has_models");
        assert_eq!(
            res.body["details"],
            json!({ "llm": 2, "embedding": 1, "rerank": 0 }),
            "{}",
            res.text
        );
    }
    let res = f.delete(&provider_path(&p.rerank)).await;
    res.assert_error(409, "provider_has_models");
    assert_eq!(
        res.body["details"],
        json!({ "llm": 0, "embedding": 0, "rerank": 1 })
    );
    assert_eq!(
        everything(&f).await,
        before,
        "a refused delete changed something"
    );
}

#[tokio::test]
async fn a_cascade_delete_removes_the_provider_and_its_models_and_reports_them() {
    let f = Fixture::new().await;
    let p = populate(&f).await;
    // Pipelines naming the provider's models: as primary (the starred model is the default
    // primary on create), as a fallback; and one naming only another provider's model.
    let by_primary = f.pipeline(json!({ "name": "By primary" })).await;
    let model_config = |primary: &str, fallbacks: &[&str]| {
        json!({ "ai": { "runner_config": { "local-agent": { "model": {
            "primary": primary, "fallbacks": fallbacks,
        } } } } })
    };
    let by_fallback = f
        .pipeline(json!({
            "name": "By fallback",
            "config": model_config(&p.l3, &[p.l2.as_str()]),
        }))
        .await;
    f.pipeline(json!({ "name": "Unrelated", "config": model_config(&p.l3, &[]) }))
        .await;

    let res = f
        .delete(&format!("{}?cascade=true", provider_path(&p.chat)))
        .await;
    let report = res.data();
    assert_eq!(report["deleted"]["provider"], p.chat.as_str());
    assert_eq!(
        sorted(strings(&report["deleted"]["llm"])),
        sorted(vec![p.l1.clone(), p.l2.clone()])
    );
    assert_eq!(report["deleted"]["embedding"], json!([p.e1]));
    assert_eq!(report["deleted"]["rerank"], json!([]));
    assert_eq!(report["starred_cleared"], true);
    let mut referencing: Vec<Value> = report["referencing_pipelines"]
        .as_array()
        .expect("referencing_pipelines")
        .clone();
    referencing.sort_by_key(|r| r["name"].as_str().map(str::to_string));
    assert_eq!(
        referencing,
        vec![
            json!({ "uuid": by_fallback, "name": "By fallback" }),
            json!({ "uuid": by_primary, "name": "By primary" }),
        ]
    );

    f.get(&provider_path(&p.chat))
        .await
        .assert_error(404, "resource_not_found");
    for (kind, uuid) in [("llm", &p.l1), ("llm", &p.l2), ("embedding", &p.e1)] {
        f.get(&model_path(kind, uuid))
            .await
            .assert_error(404, "resource_not_found");
    }
    assert_eq!(f.model_uuids("llm").await, vec![p.l3.clone()]);
    assert!(f.model_uuids("embedding").await.is_empty());
    assert_eq!(f.model_uuids("rerank").await, vec![p.r1.clone()]);
    assert_eq!(f.starred().await, Value::Null);
    assert_eq!(f.get(DEFAULT).await.data()["uuid"], Value::Null);
    assert!(
        f.starred_rows().await.iter().all(String::is_empty),
        "the stored star survived the cascade: {:?}",
        f.starred_rows().await
    );
    assert_eq!(
        sorted(f.provider_uuids().await),
        sorted(vec![p.rerank.clone(), p.other.clone()])
    );

    // A cascade that does not touch the starred model keeps the star.
    f.send(Method::PUT, STARRED, &json!({ "uuid": p.l3 }))
        .await
        .data();
    let res = f
        .delete(&format!("{}?cascade=true", provider_path(&p.rerank)))
        .await;
    let report = res.data();
    assert_eq!(report["referencing_pipelines"], json!([]));
    assert_eq!(report["deleted"]["provider"], p.rerank.as_str());
    assert_eq!(report["deleted"]["llm"], json!([]));
    assert_eq!(report["deleted"]["embedding"], json!([]));
    assert_eq!(report["deleted"]["rerank"], json!([p.r1]));
    assert_eq!(report["starred_cleared"], false);
    assert_eq!(f.starred().await, json!(p.l3));
    assert!(f.model_uuids("rerank").await.is_empty());

    // A cascade of a provider without models.
    let empty = f.chat_provider(NOWHERE, &[]).await;
    let res = f
        .delete(&format!("{}?cascade=true", provider_path(&empty)))
        .await;
    let report = res.data();
    assert_eq!(report["deleted"]["provider"], empty.as_str());
    assert_eq!(report["starred_cleared"], false);
    assert_eq!(f.provider_uuids().await, vec![p.other.clone()]);

    // The star's own provider, last.
    let res = f
        .delete(&format!("{}?cascade=true", provider_path(&p.other)))
        .await;
    assert_eq!(res.data()["starred_cleared"], true);
    assert_eq!(res.data()["deleted"]["llm"], json!([p.l3]));
    assert!(f.provider_uuids().await.is_empty());
    assert!(f.model_uuids("llm").await.is_empty());
    assert_eq!(f.starred().await, Value::Null);
}

#[tokio::test]
async fn cascade_must_be_exactly_true_or_false() {
    let f = Fixture::new().await;
    let p = populate(&f).await;
    let empty = f.chat_provider(NOWHERE, &[]).await;
    let before = everything(&f).await;
    for query in [
        "cascade=1",
        "cascade=0",
        "cascade=True",
        "cascade=TRUE",
        "cascade=False",
        "cascade=",
        "cascade",
        "cascade=yes",
        "cascade=%20true",
        "cascade=true&cascade=true",
        "cascade=false&cascade=true",
        "cascade=true&force=1",
    ] {
        for provider in [&p.chat, &empty] {
            let res = f
                .delete(&format!("{}?{query}", provider_path(provider)))
                .await;
            assert!(res.status < 500, "?{query}: {}", res.text);
            assert_eq!(
                (res.status, res.body["code"].as_str()),
                (400, Some("invalid_request")),
                "?{query}: {}",
                res.text
            );
            res.assert_error(400, "invalid_request");
        }
    }
    assert_eq!(
        everything(&f).await,
        before,
        "a refused delete changed something"
    );
}

#[tokio::test]
async fn deleting_providers_and_models_needs_resource_manage() {
    let f = Fixture::new().await;
    let p = populate(&f).await;
    let before = everything(&f).await;
    for role in ["viewer", "operator"] {
        let m = f
            .app
            .add_member(&f.owner, &f.ws, &format!("{role}@example.com"), role)
            .await;
        for path in [
            provider_path(&p.chat),
            format!("{}?cascade=true", provider_path(&p.chat)),
            model_path("llm", &p.l1),
            model_path("embedding", &p.e1),
            model_path("rerank", &p.r1),
        ] {
            let res = f
                .app
                .request(Method::DELETE, &path)
                .bearer(&m.token)
                .send()
                .await;
            res.assert_error(403, "permission_denied");
            assert_eq!(
                res.body["details"]["permission"], "resource.manage",
                "{}",
                res.text
            );
        }
    }
    assert_eq!(everything(&f).await, before);

    // A developer holds resource.manage.
    let dev = f
        .app
        .add_member(&f.owner, &f.ws, "developer@example.com", "developer")
        .await;
    let res = f
        .app
        .request(
            Method::DELETE,
            &format!("{}?cascade=true", provider_path(&p.rerank)),
        )
        .bearer(&dev.token)
        .send()
        .await;
    assert_eq!(res.data()["deleted"]["rerank"], json!([p.r1]));
}

/// Workspace `ws`'s providers and models, read by the owner selecting it.
async fn workspace_snapshot(f: &Fixture, ws: &str) -> Value {
    let mut out = serde_json::Map::new();
    for (name, path) in [
        ("providers", PROVIDERS.to_string()),
        ("llm", models_path("llm")),
        ("embedding", models_path("embedding")),
        ("rerank", models_path("rerank")),
        ("starred", STARRED.to_string()),
    ] {
        let res = f.call(&f.owner, Some(ws), Method::GET, &path, None).await;
        out.insert(name.into(), res.data().clone());
    }
    Value::Object(out)
}

#[tokio::test]
async fn another_workspaces_provider_and_models_are_not_found() {
    let f = Fixture::multi().await;
    let ws_b = f.app.create_workspace(&f.owner, "B").await;
    let b = Some(ws_b.as_str());
    let provider = f
        .provider_in(
            b,
            &json!({ "name": "B", "requester": CHAT, "base_url": NOWHERE, "api_keys": ["sk-b-secret"] }),
        )
        .await;
    let llm = f
        .model_in(
            b,
            "llm",
            &json!({ "name": "b-llm", "provider_uuid": provider }),
        )
        .await;
    let embedding = f
        .model_in(
            b,
            "embedding",
            &json!({ "name": "b-emb", "provider_uuid": provider }),
        )
        .await;
    let res = f
        .call(&f.owner, b, Method::GET, &provider_path(&provider), None)
        .await;
    assert_eq!(res.data()["provider"]["workspace_uuid"], ws_b.as_str());
    let before = workspace_snapshot(&f, &ws_b).await;

    // From A (the owner's default Workspace): B's provider and models do not exist.
    assert!(f.provider_uuids().await.is_empty());
    f.get(&provider_path(&provider))
        .await
        .assert_error(404, "resource_not_found");
    f.send(
        Method::PUT,
        &provider_path(&provider),
        &json!({ "name": "Hijacked" }),
    )
    .await
    .assert_error(404, "resource_not_found");
    for query in ["", "?cascade=false", "?cascade=true"] {
        f.delete(&format!("{}{query}", provider_path(&provider)))
            .await
            .assert_error(404, "resource_not_found");
    }
    f.get(&format!("{}?provider_uuid={provider}", models_path("llm")))
        .await
        .assert_error(404, "resource_not_found");
    for (kind, uuid) in [("llm", &llm), ("embedding", &embedding)] {
        let path = model_path(kind, uuid);
        f.get(&path).await.assert_error(404, "resource_not_found");
        f.send(Method::PUT, &path, &json!({ "name": "Hijacked" }))
            .await
            .assert_error(404, "resource_not_found");
        f.send(Method::POST, &format!("{path}/test"), &json!({}))
            .await
            .assert_error(404, "resource_not_found");
        f.delete(&path)
            .await
            .assert_error(404, "resource_not_found");
    }
    // Creating a model in A on B's provider looks exactly like naming a missing provider.
    let foreign = f
        .send(
            Method::POST,
            &models_path("llm"),
            &json!({ "name": "x", "provider_uuid": provider }),
        )
        .await;
    let missing = f
        .send(
            Method::POST,
            &models_path("llm"),
            &json!({ "name": "x", "provider_uuid": random_uuid() }),
        )
        .await;
    assert_client_error(&foreign, "a model on another Workspace's provider");
    assert_eq!(
        (
            foreign.status,
            &foreign.body["code"],
            error_fields(&foreign)
        ),
        (
            missing.status,
            &missing.body["code"],
            error_fields(&missing)
        ),
        "another Workspace's provider must look like a missing one: {} vs {}",
        foreign.text,
        missing.text
    );
    assert!(f.model_uuids("llm").await.is_empty());
    // Moving A's model onto B's provider is refused the same way.
    let a_provider = f.chat_provider(NOWHERE, &[]).await;
    let a_llm = f.model("llm", &a_provider, "a").await;
    let res = f
        .send(
            Method::PUT,
            &model_path("llm", &a_llm),
            &json!({ "provider_uuid": provider }),
        )
        .await;
    assert_client_error(&res, "moving a model onto another Workspace's provider");
    assert_eq!(
        f.get(&model_path("llm", &a_llm)).await.data()["model"]["provider_uuid"],
        a_provider.as_str()
    );

    assert_eq!(
        workspace_snapshot(&f, &ws_b).await,
        before,
        "Workspace B changed"
    );
}

#[tokio::test]
async fn a_failed_cascade_delete_changes_nothing() {
    let f = Fixture::new().await;
    let p = populate(&f).await;
    let before = everything(&f).await;
    let db = &f.app.state.db;
    let backend = db.get_database_backend();
    let (create, drop): (Vec<&str>, Vec<&str>) = match backend {
        DbBackend::Sqlite => (
            vec![
                "CREATE TRIGGER lb_test_abort_provider_delete BEFORE DELETE ON model_providers \
                 BEGIN SELECT RAISE(ABORT, 'injected'); END;",
            ],
            vec!["DROP TRIGGER lb_test_abort_provider_delete"],
        ),
        DbBackend::Postgres => (
            vec![
                "CREATE FUNCTION lb_test_abort_provider_delete() RETURNS trigger LANGUAGE plpgsql AS \
                 $$ BEGIN RAISE EXCEPTION 'injected'; END; $$",
                "CREATE TRIGGER lb_test_abort_provider_delete BEFORE DELETE ON model_providers \
                 FOR EACH ROW EXECUTE FUNCTION lb_test_abort_provider_delete()",
            ],
            vec![
                "DROP TRIGGER lb_test_abort_provider_delete ON model_providers",
                "DROP FUNCTION lb_test_abort_provider_delete()",
            ],
        ),
        other => panic!("unexpected database backend {other:?}"),
    };
    for sql in create {
        db.execute_unprepared(sql)
            .await
            .expect("create the trigger");
    }

    // The provider row is deleted last: by then its models and the star are gone — in the
    // transaction, which must roll back.
    let res = f
        .delete(&format!("{}?cascade=true", provider_path(&p.chat)))
        .await;
    assert!(
        (500..600).contains(&res.status),
        "the injected failure must surface as a 5xx, got {}: {}",
        res.status,
        res.text
    );
    assert!(res.body["code"].as_str().is_some(), "{}", res.text);
    assert!(
        !res.text.contains("injected"),
        "internal causes are not sent: {}",
        res.text
    );

    for sql in drop {
        db.execute_unprepared(sql).await.expect("drop the trigger");
    }
    assert_eq!(
        everything(&f).await,
        before,
        "a failed cascade left partial changes"
    );
    assert_eq!(f.starred().await, json!(p.l1));
    assert_eq!(f.starred_rows().await, vec![p.l1.clone()]);
    for (kind, uuid) in [("llm", &p.l1), ("llm", &p.l2), ("embedding", &p.e1)] {
        f.get(&model_path(kind, uuid)).await.data();
    }

    // Without the trigger, the same cascade works.
    let res = f
        .delete(&format!("{}?cascade=true", provider_path(&p.chat)))
        .await;
    assert_eq!(res.data()["starred_cleared"], true);
    assert_eq!(f.model_uuids("llm").await, vec![p.l3.clone()]);
}

// ---------------------------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn bad_input_on_every_endpoint_is_a_clear_4xx_never_a_5xx() {
    let fake = FakeOpenAi::start().await;
    fake.mount_chat("ok").await;
    fake.mount_embeddings().await;
    fake.mount_rerank(&[0.5, 0.4]).await;
    let f = Fixture::new().await;
    let chat = f.chat_provider(&fake.base_url(), &["sk-1"]).await;
    let rerank = f.rerank_provider(&fake.base_url(), &["sk-2"]).await;
    let llm = f.model("llm", &chat, "l").await;
    let embedding = f.model("embedding", &chat, "e").await;
    let rr = f.model("rerank", &rerank, "r").await;
    let before = everything(&f).await;
    let long = "x".repeat(300);
    let big_extra = json!({ "blob": "y".repeat(70 * 1024) });

    // (method, path, body, expected status)
    let mut cases: Vec<(Method, String, Option<Value>, u16)> = vec![
        // Path parameters.
        (Method::GET, provider_path("not-a-uuid"), None, 400),
        (Method::GET, provider_path(&long), None, 400),
        (
            Method::PUT,
            provider_path("not-a-uuid"),
            Some(json!({ "name": "x" })),
            400,
        ),
        (Method::DELETE, provider_path("not-a-uuid"), None, 400),
        (
            Method::DELETE,
            format!("{}?cascade=true", provider_path("123")),
            None,
            400,
        ),
        (Method::GET, provider_path(&random_uuid()), None, 404),
        (Method::GET, format!("{REQUESTERS}/{long}"), None, 404),
        (
            Method::GET,
            format!("{REQUESTERS}?type=llm&bogus=1"),
            None,
            400,
        ),
        // Query parameters.
        (Method::GET, format!("{PROVIDERS}?limit=0"), None, 400),
        (Method::GET, format!("{PROVIDERS}?limit=501"), None, 400),
        (Method::GET, format!("{PROVIDERS}?limit=abc"), None, 400),
        (Method::GET, format!("{PROVIDERS}?offset=-1"), None, 400),
        (Method::GET, format!("{PROVIDERS}?bogus=1"), None, 400),
        (
            Method::GET,
            format!("{}?bogus=1", provider_path(&chat)),
            None,
            400,
        ),
        (
            Method::DELETE,
            format!("{}?bogus=1", provider_path(&chat)),
            None,
            400,
        ),
        // Provider bodies.
        (Method::POST, PROVIDERS.into(), Some(json!([])), 400),
        (Method::POST, PROVIDERS.into(), Some(json!("provider")), 400),
        (Method::POST, PROVIDERS.into(), Some(json!(42)), 400),
        (Method::POST, PROVIDERS.into(), Some(Value::Null), 400),
        (Method::POST, PROVIDERS.into(), Some(json!({})), 400),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(json!({ "name": 5, "requester": CHAT, "base_url": NOWHERE })),
            400,
        ),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(json!({ "name": "p", "requester": CHAT, "base_url": NOWHERE, "api_keys": "sk" })),
            400,
        ),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(json!({ "name": "p", "requester": CHAT, "base_url": NOWHERE, "api_keys": [1] })),
            400,
        ),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(
                json!({ "name": "p", "requester": CHAT, "base_url": NOWHERE, "api_keys": [null] }),
            ),
            400,
        ),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(
                json!({ "name": "p", "requester": CHAT, "base_url": NOWHERE, "api_keys": vec!["k"; 33] }),
            ),
            400,
        ),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(
                json!({ "name": "p", "requester": CHAT, "base_url": NOWHERE, "api_keys": ["k".repeat(1025)] }),
            ),
            400,
        ),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(json!({ "name": "p", "requester": CHAT, "base_url": NOWHERE, "config": "x" })),
            400,
        ),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(json!({ "name": "p", "requester": CHAT, "base_url": 7 })),
            400,
        ),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(json!({ "name": "p", "requester": ["x"], "base_url": NOWHERE })),
            400,
        ),
        (Method::PUT, provider_path(&chat), Some(json!([])), 400),
        (
            Method::PUT,
            provider_path(&chat),
            Some(json!({ "api_keys": [1] })),
            400,
        ),
        (
            Method::PUT,
            provider_path(&chat),
            Some(json!({ "config": [] })),
            400,
        ),
        (
            Method::PUT,
            provider_path(&chat),
            Some(json!({ "base_url": "" })),
            400,
        ),
        (
            Method::PUT,
            provider_path(&chat),
            Some(json!({ "name": long })),
            400,
        ),
        // Starred.
        (Method::PUT, STARRED.into(), Some(json!([])), 400),
        (Method::PUT, STARRED.into(), Some(json!({ "uuid": 5 })), 400),
        (
            Method::PUT,
            STARRED.into(),
            Some(json!({ "uuid": {} })),
            400,
        ),
        (
            Method::PUT,
            STARRED.into(),
            Some(json!({ "uuid": long })),
            400,
        ),
    ];
    for kind in KINDS {
        let (uuid, provider) = match kind {
            "llm" => (&llm, &chat),
            "embedding" => (&embedding, &chat),
            _ => (&rr, &rerank),
        };
        let list = models_path(kind);
        let one = model_path(kind, uuid);
        let test = format!("{one}/test");
        cases.extend([
            (Method::GET, model_path(kind, "not-a-uuid"), None, 400),
            (Method::GET, model_path(kind, "_"), None, 400),
            (
                Method::PUT,
                model_path(kind, "not-a-uuid"),
                Some(json!({ "name": "x" })),
                400,
            ),
            (Method::DELETE, model_path(kind, "not-a-uuid"), None, 400),
            (
                Method::POST,
                format!("{}/test", model_path(kind, "not-a-uuid")),
                Some(json!({})),
                400,
            ),
            (Method::GET, model_path(kind, &random_uuid()), None, 404),
            (
                Method::POST,
                format!("{}/test", model_path(kind, &random_uuid())),
                Some(json!({})),
                404,
            ),
            (Method::GET, format!("{list}?provider_uuid=xyz"), None, 400),
            (Method::GET, format!("{list}?limit=0"), None, 400),
            (Method::GET, format!("{list}?limit=501"), None, 400),
            (Method::GET, format!("{list}?offset=x"), None, 400),
            (Method::GET, format!("{list}?bogus=1"), None, 400),
            (Method::POST, list.clone(), Some(json!([])), 400),
            (Method::POST, list.clone(), Some(json!("m")), 400),
            (Method::POST, list.clone(), Some(Value::Null), 400),
            (Method::POST, list.clone(), Some(json!({})), 400),
            (
                Method::POST,
                list.clone(),
                Some(json!({ "name": "m", "provider_uuid": "not-a-uuid" })),
                400,
            ),
            (
                Method::POST,
                list.clone(),
                Some(json!({ "name": ["m"], "provider_uuid": provider })),
                400,
            ),
            (
                Method::POST,
                list.clone(),
                Some(json!({ "name": "m", "provider_uuid": provider, "extra_args": "x" })),
                400,
            ),
            (
                Method::POST,
                list.clone(),
                Some(json!({ "name": "m", "provider_uuid": provider, "extra_args": big_extra })),
                400,
            ),
            (
                Method::POST,
                list.clone(),
                Some(json!({ "name": "m", "provider_uuid": provider, "prefered_ranking": 5000 })),
                400,
            ),
            (
                Method::POST,
                list.clone(),
                Some(json!({ "name": "m", "provider_uuid": provider, "prefered_ranking": "1" })),
                400,
            ),
            (Method::PUT, one.clone(), Some(json!([])), 400),
            (Method::PUT, one.clone(), Some(json!({ "name": "" })), 400),
            (
                Method::PUT,
                one.clone(),
                Some(json!({ "provider_uuid": "zzz" })),
                400,
            ),
            (
                Method::PUT,
                one.clone(),
                Some(json!({ "provider_uuid": random_uuid() })),
                400,
            ),
            (
                Method::PUT,
                one.clone(),
                Some(json!({ "extra_args": 1 })),
                400,
            ),
            (Method::PUT, one.clone(), Some(json!({ "bogus": 1 })), 400),
            (Method::POST, test.clone(), Some(json!([])), 400),
            (Method::POST, test.clone(), Some(json!({ "bogus": 1 })), 400),
            (
                Method::GET,
                format!("{one}?include_secret=maybe"),
                None,
                400,
            ),
        ]);
        if kind == "llm" {
            cases.extend([
                (
                    Method::POST,
                    list.clone(),
                    Some(json!({ "name": "m", "provider_uuid": provider, "context_length": "big" })),
                    400,
                ),
                (
                    Method::POST,
                    list.clone(),
                    Some(json!({ "name": "m", "provider_uuid": provider, "context_length": 1e12 })),
                    400,
                ),
                (
                    Method::POST,
                    list.clone(),
                    Some(json!({ "name": "m", "provider_uuid": provider, "abilities": [1] })),
                    400,
                ),
                (
                    Method::POST,
                    list.clone(),
                    Some(json!({ "name": "m", "provider_uuid": provider, "abilities": vec!["vision"; 9] })),
                    400,
                ),
                (Method::PUT, one.clone(), Some(json!({ "reasoning_config": 5 })), 400),
            ]);
        }
    }

    let mut problems = Vec::new();
    for (method, path, body, status) in &cases {
        let mut req = f.app.request(method.clone(), path).bearer(&f.owner);
        if let Some(body) = body {
            req = req.json(body);
        }
        let res = req.send().await;
        let what = format!(
            "{method} {path} {}",
            body.as_ref().map(Value::to_string).unwrap_or_default()
        );
        let what: String = what.chars().take(200).collect();
        if res.status >= 500 {
            problems.push(format!("{what}: SERVER ERROR {} {}", res.status, res.text));
        } else if res.status != *status
            || res.body["code"].as_str().is_none_or(str::is_empty)
            || res.body["request_id"].as_str().is_none_or(str::is_empty)
        {
            problems.push(format!(
                "{what}: expected {status} with an error body, got {} {}",
                res.status,
                res.text.chars().take(300).collect::<String>()
            ));
        }
    }

    // Malformed JSON and wrong content on every body-taking endpoint.
    let bodies = [
        (Method::POST, PROVIDERS.to_string()),
        (Method::PUT, provider_path(&chat)),
        (Method::PUT, STARRED.to_string()),
        (Method::POST, models_path("llm")),
        (Method::PUT, model_path("llm", &llm)),
        (Method::POST, format!("{}/test", model_path("llm", &llm))),
        (Method::POST, models_path("embedding")),
        (Method::PUT, model_path("rerank", &rr)),
    ];
    for (method, path) in &bodies {
        for raw in ["{", "{\"name\":", "nul", "\u{0}"] {
            let res = f
                .app
                .request(method.clone(), path)
                .bearer(&f.owner)
                .raw_json(raw.to_string())
                .send()
                .await;
            if res.status != 400 || res.body["code"] != "invalid_json" {
                problems.push(format!(
                    "{method} {path} with body {raw:?}: expected 400 invalid_json, got {} {}",
                    res.status, res.text
                ));
            }
        }
    }

    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
    assert_eq!(everything(&f).await, before, "bad input changed something");
}

#[tokio::test]
async fn a_model_test_with_non_object_extra_args_is_400() {
    // Call-level `extra_args` are request fields: like a model's own `extra_args` (400 when not
    // an object on create and update), anything but an object is invalid input (SPEC §4).
    let fake = FakeOpenAi::start().await;
    fake.mount_chat("ok").await;
    fake.mount_embeddings().await;
    fake.mount_rerank(&[0.5, 0.4]).await;
    let f = Fixture::new().await;
    let chat = f.chat_provider(&fake.base_url(), &["sk-1"]).await;
    let rerank = f.rerank_provider(&fake.base_url(), &["sk-2"]).await;
    let models = [
        ("llm", f.model("llm", &chat, "l").await),
        ("embedding", f.model("embedding", &chat, "e").await),
        ("rerank", f.model("rerank", &rerank, "r").await),
    ];
    let mut problems = Vec::new();
    for (kind, uuid) in &models {
        for extra_args in [json!("x"), json!([1, 2]), json!(5), json!(true)] {
            let res = f
                .send(
                    Method::POST,
                    &format!("{}/test", model_path(kind, uuid)),
                    &json!({ "extra_args": extra_args }),
                )
                .await;
            if res.status != 400 || res.body["code"] != "invalid_request" {
                problems.push(format!(
                    "{kind} test with extra_args {extra_args}: expected 400 invalid_request, got {} {}",
                    res.status, res.text
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
    assert!(
        fake.received().await.is_empty(),
        "a refused test must not call the upstream"
    );
}

#[tokio::test]
async fn a_cascade_delete_racing_model_creates_leaves_no_orphans_and_no_server_errors() {
    // Models created while their provider is being cascade-deleted either make it into the
    // cascade or are refused because the provider is gone; never an orphan, never a 5xx.
    let f = Fixture::new().await;
    let mut problems = Vec::new();
    for round in 0..15 {
        let provider = f.chat_provider(NOWHERE, &[]).await;
        f.model("llm", &provider, "seed").await;
        let requests: Vec<(String, Value)> = (0..6)
            .map(|i| {
                (
                    models_path(if i % 2 == 0 { "llm" } else { "embedding" }),
                    json!({ "name": format!("racer-{i}"), "provider_uuid": provider }),
                )
            })
            .collect();
        let creates = requests
            .iter()
            .map(|(path, body)| f.send(Method::POST, path, body));
        let delete_path = format!("{}?cascade=true", provider_path(&provider));
        let delete = f.delete(&delete_path);
        let (deleted, created) = tokio::join!(delete, futures_util::future::join_all(creates));
        let labelled = created
            .iter()
            .map(|r| ("model create", r))
            .chain(std::iter::once(("cascade delete", &deleted)));
        for (what, res) in labelled {
            if res.status >= 500 {
                problems.push(format!(
                    "round {round}: {what}: {} {}",
                    res.status, res.text
                ));
            }
        }
        if deleted.status == 200 {
            for kind in ["llm", "embedding"] {
                let res = f.get(&format!("{}?limit=500", models_path(kind))).await;
                for m in res.data()["models"].as_array().into_iter().flatten() {
                    if m["provider_uuid"] == provider.as_str() {
                        problems.push(format!(
                            "round {round}: {kind} model {} outlived its provider",
                            m["uuid"]
                        ));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
