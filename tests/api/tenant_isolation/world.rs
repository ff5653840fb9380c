//! The two-Workspace world every tenant-isolation test starts from. With several Workspaces
//! enabled, Workspace B gets an API key, a member, an invitation, model providers with an LLM,
//! an embedding and a rerank model, a starred model, a pipeline, and an `http_bot` bot (routed
//! to that pipeline) that answers two real turns through its signed `/sync` ingress against a
//! fake OpenAI upstream (one completes, one fails), so B has real monitoring records:
//! executions, messages, LLM calls, an error and conversation sessions; and a (disabled) MCP
//! server. Workspace A (an admin
//! who is not a member of B, a developer, an API key) runs one debug turn of its own.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use reqwest::Method;
use sea_orm::{EntityTrait, PaginatorTrait};
use serde_json::{json, Value};
use wiremock::Respond;

use super::{B_FAIL_SESSION, B_SESSION, B_TEXT};
use crate::helpers::fixtures::{post_signed, Echo};
use crate::helpers::{spawn_app_with, Cred, FakeOpenAi, Response, Route, TestApp};

/// Workspace A and Workspace B, B with everything an attack could aim at.
pub(super) struct World {
    pub app: TestApp,
    /// The owner of both Workspaces.
    pub owner: Cred,
    pub ws_a: String,
    pub ws_b: String,
    /// A's admin (not a member of B).
    pub admin_a: Cred,
    /// A's developer (lacks `data.export`).
    pub developer_a: Cred,
    /// A's API key.
    pub key_a: Cred,
    pub key_b: Cred,
    pub key_b_id: i64,
    /// B's developer.
    pub member_b: Cred,
    pub member_b_account: String,
    pub invitation_b: String,
    pub provider_b: String,
    pub llm_b: String,
    pub embedding_b: String,
    pub rerank_b: String,
    pub pipeline_b: String,
    pub bot_b: String,
    /// B's MCP server (disabled, so it never connects): its name, the key of its routes.
    pub mcp_server_b: String,
    /// B's uploaded plugin config file (its `file_key`).
    pub config_file_b: String,
    /// The upstream both Workspaces' chat models call.
    pub fake: FakeOpenAi,
    pub recorded_a: Recorded,
    pub recorded_b: Recorded,
    /// B's completed execution, and its user message.
    pub b_completed: String,
    pub b_message: String,
    /// Strings of B's records and resources that must never reach A.
    pub b_markers: BTreeSet<String>,
    /// B as its owner saw it before any attack (see [`World::snapshot_b`]).
    pub before: Value,
    pub records_before: BTreeMap<&'static str, u64>,
    pub upstream_before: usize,
}

impl World {
    pub async fn build() -> World {
        let app = spawn_app_with(|s| s.workspaces.multi = true).await;
        let owner = app.init_owner().await;
        let ws_a = app.workspace_of(&owner).await;
        let ws_b = app.create_workspace(&owner, "Workspace B").await;
        assert_ne!(ws_a, ws_b);
        let owner_cred = Cred::bearer(&owner);

        // Workspace A: an admin and a developer who are not members of B, and an API key.
        let admin_a = app
            .add_member(&owner, &ws_a, "admin-a@example.com", "admin")
            .await;
        let developer_a = app
            .add_member(&owner, &ws_a, "developer-a@example.com", "developer")
            .await;
        let res = app
            .call(
                &owner_cred,
                Some(ws_a.as_str()),
                Method::POST,
                "/api/v1/apikeys",
                Some(&json!({ "name": "A key" })),
            )
            .await;
        let key_a = res.data()["key"]["key"].as_str().expect("key").to_string();

        // Workspace B: an API key, a member and a pending invitation.
        let res = app
            .call(
                &owner_cred,
                Some(ws_b.as_str()),
                Method::POST,
                "/api/v1/apikeys",
                Some(&json!({ "name": "B key", "description": "belongs to B" })),
            )
            .await;
        let key_b_id = res.data()["key"]["id"].as_i64().expect("key id");
        let key_b = res.data()["key"]["key"].as_str().expect("key").to_string();
        let member_b = app
            .add_member(&owner, &ws_b, "member-b@example.com", "developer")
            .await;
        let res = app
            .call(
                &owner_cred,
                Some(ws_b.as_str()),
                Method::POST,
                &format!("/api/v1/workspaces/{ws_b}/invitations"),
                Some(&json!({ "email": "pending-b@example.com", "role": "viewer" })),
            )
            .await;
        let invitation_b = res.data()["invitation"]["uuid"]
            .as_str()
            .expect("invitation uuid")
            .to_string();

        // Sanity: the fixtures are where they should be.
        let res = app
            .get_as(&admin_a.token, "/api/v1/workspaces/current")
            .await;
        assert_eq!(res.data()["workspace"]["uuid"], ws_a.as_str());
        let res = app
            .call(
                Cred::api_key(&key_a),
                None,
                Method::GET,
                "/api/v1/system/context",
                None,
            )
            .await;
        assert_eq!(res.data()["workspace_uuid"], ws_a.as_str());

        // Workspace B: model providers (chat and rerank) with a model of each kind, one starred.
        // The chat provider is the fake upstream B's turns run on (an attack that got through
        // to a model test would show as a request there, see `upstream_before`); the rerank
        // provider's base URL is unreachable.
        let fake = fake_upstream().await;
        let b = Some(ws_b.as_str());
        let provider_b = app
            .create_provider(
                &owner,
                b,
                &json!({
                    "name": "B chat",
                    "requester": "openai-chat-completions",
                    "base_url": fake.base_url(),
                    "api_keys": ["sk-b-secret-0001"],
                }),
            )
            .await;
        let rerank_provider_b = app
            .create_provider(
                &owner,
                b,
                &json!({
                    "name": "B rerank",
                    "requester": "openai-compatible-rerank",
                    "base_url": "http://127.0.0.1:9/v1",
                    "api_keys": ["sk-b-secret-0002"],
                }),
            )
            .await;
        let llm_b = app
            .create_model(
                &owner,
                b,
                "llm",
                &json!({ "name": "b-llm", "provider_uuid": provider_b, "abilities": ["func_call"] }),
            )
            .await;
        let embedding_b = app
            .create_model(
                &owner,
                b,
                "embedding",
                &json!({ "name": "b-embedding", "provider_uuid": provider_b }),
            )
            .await;
        let rerank_b = app
            .create_model(
                &owner,
                b,
                "rerank",
                &json!({ "name": "b-rerank", "provider_uuid": rerank_provider_b }),
            )
            .await;
        app.call(
            &owner_cred,
            b,
            Method::PUT,
            "/api/v1/provider/models/llm/_/starred",
            Some(&json!({ "uuid": llm_b })),
        )
        .await
        .data();

        // Workspace B: a pipeline (its model is B's starred one), and an enabled bot whose
        // default routes target it, with real traffic (below).
        let pipeline_b = app
            .create_pipeline(&owner, b, &json!({ "name": "B pipeline" }))
            .await;
        // Workspace B: an MCP server with a header secret, disabled (nothing connects).
        app.create(
            &owner,
            b,
            "/api/v1/mcp/servers",
            &json!({
                "name": MCP_SERVER_B,
                "mode": "remote",
                "enable": false,
                "extra_args": {
                    "url": "http://127.0.0.1:9/b-mcp",
                    "headers": { "Authorization": "Bearer sk-b-mcp-secret-0003" },
                },
            }),
        )
        .await;
        // Workspace B: a plugin (installed, not run: the plugin system is off here).
        let package = langbot::plugins::package::pack_dir(&crate::helpers::plugins::fixture_dir())
            .expect("pack the weather plugin");
        let res = app.upload_plugin(&owner, b, &package).await;
        assert_eq!(res.status, 200, "B's plugin: {}", res.text);
        let res = app
            .call(
                &owner,
                b,
                Method::PUT,
                "/api/v1/plugins/tester/weather/config",
                Some(&json!({ "greeting": "b-private-greeting", "api_key": "sk-b-plugin-secret-0004" })),
            )
            .await;
        assert_eq!(res.status, 200, "B's plugin config: {}", res.text);
        let res = app
            .upload_config_file(&owner, b, "b-private.txt", b"b-private-config-file")
            .await;
        assert_eq!(res.status, 200, "B's config file: {}", res.text);
        let config_file_b = res.data()["file_key"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let bot_b = app
            .create_bot(
                &owner,
                b,
                &json!({
                    "name": "B bot",
                    "adapter": "http_bot",
                    "enable": true,
                    "adapter_config": {
                        "inbound_secret": B_INBOUND_SECRET,
                        "callback_url": "http://127.0.0.1:9/cb",
                    },
                }),
            )
            .await;

        // Workspace B's traffic, through the bot's signed ingress: a completed turn in
        // B_SESSION and a failed one (the upstream answers 500) in B_FAIL_SESSION.
        let res = b_turn(&app, &bot_b, "b-user", &format!("{B_TEXT} question")).await;
        assert!(
            res.status == 200
                && res.body["data"]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains(B_TEXT)),
            "B's turn: {} {}",
            res.status,
            res.text
        );
        let res = b_turn(&app, &bot_b, "b-fail", &format!("{B_TEXT} FAIL")).await;
        assert_eq!(res.status, 200, "B's failing turn: {}", res.text);

        // Workspace A's traffic: a debug run of A's own pipeline on the same upstream.
        let a = Some(ws_a.as_str());
        let provider_a = app
            .create_provider(
                &owner,
                a,
                &json!({
                    "name": "A chat",
                    "requester": "openai-chat-completions",
                    "base_url": fake.base_url(),
                    "api_keys": ["sk-a-secret-0001"],
                }),
            )
            .await;
        let llm_a = app
            .create_model(
                &owner,
                a,
                "llm",
                &json!({ "name": "a-llm", "provider_uuid": provider_a }),
            )
            .await;
        let pipeline_a = app
            .create_pipeline(
                &owner,
                a,
                &json!({
                    "name": "A pipeline",
                    "config": { "ai": { "runner_config": { "local-agent": { "model": { "primary": llm_a } } } } },
                }),
            )
            .await;
        app.call(
            &owner_cred,
            a,
            Method::POST,
            &format!("/api/v1/pipelines/{pipeline_a}/run"),
            Some(&json!({ "message": "A's own question" })),
        )
        .await
        .data();

        // What each Workspace recorded, read by its owner.
        let recorded_a = Recorded::read(&app, &owner_cred, &ws_a).await;
        let recorded_b = Recorded::read(&app, &owner_cred, &ws_b).await;
        assert_eq!(
            recorded_a.executions.len(),
            1,
            "{:?}",
            recorded_a.executions
        );
        assert_eq!(recorded_a.executions[0]["mode"], "debug");
        assert_eq!(recorded_a.llm_calls.len(), 1, "{:?}", recorded_a.llm_calls);
        assert!(!recorded_a.messages.is_empty());
        for (list, _, _) in RECORD_LISTS {
            for row in recorded_a.rows(list) {
                assert_eq!(row["pipeline_id"], pipeline_a.as_str(), "A's {list}: {row}");
            }
            for row in recorded_b.rows(list) {
                assert_eq!(row["pipeline_id"], pipeline_b.as_str(), "B's {list}: {row}");
            }
        }
        let statuses: BTreeSet<&str> = recorded_b
            .executions
            .iter()
            .filter_map(|e| e["status"].as_str())
            .collect();
        assert_eq!(
            statuses,
            BTreeSet::from(["completed", "failed"]),
            "B's executions: {:?}",
            recorded_b.executions
        );
        assert_eq!(recorded_b.executions.len(), 2);
        assert_eq!(recorded_b.llm_calls.len(), 2, "{:?}", recorded_b.llm_calls);
        assert_eq!(recorded_b.errors.len(), 1, "{:?}", recorded_b.errors);
        assert_eq!(
            ids(&recorded_b.sessions, "session_id"),
            BTreeSet::from([B_SESSION.to_string(), B_FAIL_SESSION.to_string()])
        );
        let b_completed = recorded_b
            .executions
            .iter()
            .find(|e| e["status"] == "completed")
            .and_then(|e| e["id"].as_str())
            .expect("B's completed execution")
            .to_string();
        let b_message = recorded_b
            .messages
            .iter()
            .find(|m| m["role"] == "user" && m["execution_id"] == b_completed.as_str())
            .and_then(|m| m["id"].as_str())
            .expect("B's user message")
            .to_string();
        assert!(
            recorded_b
                .messages
                .iter()
                .any(|m| m["message_content"].to_string().contains(B_TEXT)),
            "B's messages: {:?}",
            recorded_b.messages
        );
        // What must never reach A: B's record ids, session ids, text and resources.
        let mut b_markers = recorded_b.markers();
        b_markers.extend([
            B_TEXT.to_string(),
            bot_b.clone(),
            pipeline_b.clone(),
            llm_b.clone(),
            "b-llm".to_string(),
            MCP_SERVER_B.to_string(),
            "b-private-greeting".to_string(),
        ]);
        let overlap = leaks(
            &recorded_a
                .markers()
                .into_iter()
                .collect::<Vec<_>>()
                .join(" "),
            &b_markers,
        );
        assert!(overlap.is_empty(), "A's records and B's share {overlap:?}");

        let world = World {
            owner: owner_cred,
            admin_a: Cred::bearer(&admin_a.token),
            developer_a: Cred::bearer(&developer_a.token),
            key_a: Cred::api_key(key_a),
            key_b: Cred::api_key(key_b),
            key_b_id,
            member_b: Cred::bearer(&member_b.token),
            member_b_account: member_b.account_uuid,
            invitation_b,
            provider_b,
            llm_b,
            embedding_b,
            rerank_b,
            pipeline_b,
            bot_b,
            mcp_server_b: MCP_SERVER_B.to_string(),
            config_file_b,
            recorded_a,
            recorded_b,
            b_completed,
            b_message,
            b_markers,
            before: Value::Null,
            records_before: BTreeMap::new(),
            upstream_before: 0,
            ws_a,
            ws_b,
            fake,
            app,
        };
        world.with_baseline().await
    }

    /// Takes B's snapshot (checking it holds what the attacks aim at), the runtime records and
    /// the upstream's requests, to compare with after the attacks.
    async fn with_baseline(mut self) -> World {
        let before = self.snapshot_b().await;
        assert_eq!(
            before["members"]["members"].as_array().map(Vec::len),
            Some(2)
        );
        assert_eq!(
            before["invitations"]["invitations"]
                .as_array()
                .map(Vec::len),
            Some(1)
        );
        assert_eq!(before["keys"]["keys"].as_array().map(Vec::len), Some(1));
        assert_eq!(
            before["providers"]["providers"].as_array().map(Vec::len),
            Some(2)
        );
        for kind in ["llm_models", "embedding_models", "rerank_models"] {
            assert_eq!(
                before[kind]["models"].as_array().map(Vec::len),
                Some(1),
                "{kind}"
            );
        }
        assert_eq!(before["starred_model"]["uuid"], self.llm_b.as_str());
        let pipelines = before["pipelines"]["pipelines"]
            .as_array()
            .expect("pipelines");
        assert_eq!(pipelines.len(), 1, "{pipelines:?}");
        assert_eq!(pipelines[0]["uuid"], self.pipeline_b.as_str());
        assert_eq!(
            pipelines[0]["is_default"], false,
            "B's pipeline must not be the default, or set_default_pipeline changes nothing"
        );
        let bots = before["bots"]["bots"].as_array().expect("bots");
        assert_eq!(bots.len(), 1, "{bots:?}");
        assert_eq!(bots[0]["uuid"], self.bot_b.as_str());
        let routes = bots[0]["event_bindings"].as_array().expect("routes");
        assert!(
            !routes.is_empty()
                && routes
                    .iter()
                    .all(|r| r["target_uuid"] == self.pipeline_b.as_str()),
            "B's bot routes to B's pipeline: {routes:?}"
        );
        let servers = before["mcp_servers"]["servers"]
            .as_array()
            .expect("MCP servers");
        assert_eq!(servers.len(), 1, "{servers:?}");
        assert_eq!(servers[0]["name"], MCP_SERVER_B);
        assert_eq!(
            before["extensions"]["enable_all_mcp_servers"], true,
            "B's pipeline allows every server, or update_pipeline_extensions changes nothing"
        );
        self.before = before;
        self.records_before = runtime_records(&self.app).await;
        self.upstream_before = self.fake.received().await.len();
        self
    }

    /// Everything of Workspace B an attack could change, read as B's owner.
    pub async fn snapshot_b(&self) -> Value {
        let ws = self.ws_b.as_str();
        let mut out = serde_json::Map::new();
        for (name, path) in [
            ("workspace", format!("/api/v1/workspaces/{ws}")),
            ("members", format!("/api/v1/workspaces/{ws}/members")),
            (
                "invitations",
                format!("/api/v1/workspaces/{ws}/invitations"),
            ),
            ("keys", "/api/v1/apikeys".to_string()),
            (
                "language",
                "/api/v1/workspaces/current/language".to_string(),
            ),
            ("providers", "/api/v1/provider/providers".to_string()),
            ("llm_models", "/api/v1/provider/models/llm".to_string()),
            (
                "embedding_models",
                "/api/v1/provider/models/embedding".to_string(),
            ),
            (
                "rerank_models",
                "/api/v1/provider/models/rerank".to_string(),
            ),
            (
                "starred_model",
                "/api/v1/provider/models/llm/_/starred".to_string(),
            ),
            ("pipelines", "/api/v1/pipelines".to_string()),
            ("bots", "/api/v1/platform/bots".to_string()),
            ("mcp_servers", "/api/v1/mcp/servers".to_string()),
            ("plugins", "/api/v1/plugins".to_string()),
            (
                "extensions",
                format!("/api/v1/pipelines/{}/extensions", self.pipeline_b),
            ),
        ] {
            let res = self
                .app
                .call(&self.owner, Some(ws), Method::GET, &path, None)
                .await;
            out.insert(name.into(), res.data().clone());
        }
        Value::Object(out)
    }

    /// After the attacks: B is exactly as before, nothing ran, and B's key and member still work
    /// there. Each difference is added to `problems`.
    pub async fn check_b_untouched(&self, problems: &mut Vec<String>) {
        let after = self.snapshot_b().await;
        if after != self.before {
            problems.push(format!(
                "Workspace B changed:\nbefore: {:#}\nafter:  {after:#}",
                self.before
            ));
        }
        let records_after = runtime_records(&self.app).await;
        if records_after != self.records_before {
            problems.push(format!(
                "the attacks started something: runtime records {:?} before, \
                 {records_after:?} after",
                self.records_before
            ));
        }
        let upstream_after = self.fake.received().await.len();
        if upstream_after != self.upstream_before {
            problems.push(format!(
                "the attacks reached B's model upstream: {} requests before, \
                 {upstream_after} after",
                self.upstream_before
            ));
        }
        let res = self
            .app
            .call(
                &self.key_b,
                None,
                Method::GET,
                "/api/v1/system/context",
                None,
            )
            .await;
        if res.status != 200 || res.body["data"]["workspace_uuid"] != self.ws_b.as_str() {
            problems.push(format!(
                "B's key after the attacks: {} {}",
                res.status, res.text
            ));
        }
        let res = self
            .app
            .call(
                &self.member_b,
                None,
                Method::GET,
                "/api/v1/workspaces/current",
                None,
            )
            .await;
        if res.status != 200
            || res.body["data"]["workspace"]["uuid"] != self.ws_b.as_str()
            || res.body["data"]["membership"]["role"] != "developer"
        {
            problems.push(format!(
                "B's member after the attacks: {} {}",
                res.status, res.text
            ));
        }
    }
}

/// What the runtime has recorded, in every Workspace: an attack that started a run (or reached
/// a model) would add to these.
pub(super) async fn runtime_records(app: &TestApp) -> BTreeMap<&'static str, u64> {
    use langbot::entities::{
        execution, llm_call, monitoring_error, monitoring_message, monitoring_session, route_trace,
    };
    let db = app.db();
    BTreeMap::from([
        (
            "executions",
            execution::Entity::find().count(db).await.unwrap(),
        ),
        (
            "llm_calls",
            llm_call::Entity::find().count(db).await.unwrap(),
        ),
        (
            "monitoring_errors",
            monitoring_error::Entity::find().count(db).await.unwrap(),
        ),
        (
            "monitoring_messages",
            monitoring_message::Entity::find().count(db).await.unwrap(),
        ),
        (
            "monitoring_sessions",
            monitoring_session::Entity::find().count(db).await.unwrap(),
        ),
        (
            "route_traces",
            route_trace::Entity::find().count(db).await.unwrap(),
        ),
    ])
}

/// B's MCP server's name: unique to B, so a call by name reaching it would be a leak.
pub(super) const MCP_SERVER_B: &str = "b-private-mcp-9c41";

/// B's bot's inbound secret: its turns are signed with it.
const B_INBOUND_SECRET: &str = "b-inbound-secret";

/// The fake upstream every model of the test points at: streams an echo of the last user
/// message with usage, except a message containing `FAIL`, which gets a 500.
async fn fake_upstream() -> FakeOpenAi {
    let fake = FakeOpenAi::start().await;
    let echo = Echo {
        delay: Duration::ZERO,
    };
    fake.respond(Route::Chat, move |req: &wiremock::Request| {
        let body: Value = req.body_json().unwrap_or(Value::Null);
        let last_user = body["messages"]
            .as_array()
            .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_string();
        if last_user.contains("FAIL") {
            wiremock::ResponseTemplate::new(500).set_body_string("upstream exploded")
        } else {
            echo.respond(req)
        }
    })
    .await;
    fake
}

/// One real turn of B's `http_bot` through its signed `/sync` ingress.
async fn b_turn(app: &TestApp, bot: &str, session: &str, text: &str) -> Response {
    let body = crate::helpers::fixtures::text(session, text).to_string();
    post_signed(app, bot, "/sync", B_INBOUND_SECRET, body.as_bytes()).await
}

/// A Workspace's monitoring records, as its owner reads them.
#[derive(Debug, Default)]
pub(super) struct Recorded {
    pub executions: Vec<Value>,
    pub messages: Vec<Value>,
    pub llm_calls: Vec<Value>,
    pub errors: Vec<Value>,
    pub sessions: Vec<Value>,
}

/// The record lists: (path below `/api/v1/monitoring/`, key of the rows, key identifying a row).
pub(super) const RECORD_LISTS: [(&str, &str, &str); 5] = [
    ("executions", "items", "id"),
    ("messages", "messages", "id"),
    ("llm-calls", "llm_calls", "id"),
    ("errors", "errors", "id"),
    ("sessions", "sessions", "session_id"),
];

impl Recorded {
    pub async fn read(app: &TestApp, cred: &Cred, ws: &str) -> Recorded {
        let mut lists = Vec::new();
        for (path, key, _) in RECORD_LISTS {
            let res = app
                .call(
                    cred,
                    Some(ws),
                    Method::GET,
                    &format!("/api/v1/monitoring/{path}?limit=500"),
                    None,
                )
                .await;
            lists.push(res.data()[key].as_array().cloned().unwrap_or_default());
        }
        let mut lists = lists.into_iter();
        let mut next = || lists.next().unwrap_or_default();
        Recorded {
            executions: next(),
            messages: next(),
            llm_calls: next(),
            errors: next(),
            sessions: next(),
        }
    }

    /// The rows of list `path` of [`RECORD_LISTS`].
    pub fn rows(&self, path: &str) -> &[Value] {
        match path {
            "executions" => &self.executions,
            "messages" => &self.messages,
            "llm-calls" | "llm_calls" => &self.llm_calls,
            "errors" => &self.errors,
            "sessions" => &self.sessions,
            other => panic!("no record list {other}"),
        }
    }

    /// Every id, session id, event id and message id in these records.
    pub fn markers(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for rows in [
            &self.executions,
            &self.messages,
            &self.llm_calls,
            &self.errors,
            &self.sessions,
        ] {
            for row in rows {
                for key in ["id", "session_id", "event_id", "message_id", "execution_id"] {
                    if let Some(s) = row[key].as_str().filter(|s| !s.is_empty()) {
                        out.insert(s.to_string());
                    }
                }
            }
        }
        out
    }
}

/// The identifying key of each row (see [`RECORD_LISTS`]).
pub(super) fn ids(rows: &[Value], key: &str) -> BTreeSet<String> {
    rows.iter()
        .filter_map(|r| r[key].as_str().map(str::to_string))
        .collect()
}

/// The markers of B found in `text`.
pub(super) fn leaks<'a>(text: &str, markers: &'a BTreeSet<String>) -> Vec<&'a str> {
    markers
        .iter()
        .filter(|m| text.contains(m.as_str()))
        .map(String::as_str)
        .collect()
}
