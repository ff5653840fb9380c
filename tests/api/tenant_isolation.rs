//! Tenant isolation (SPEC §3, §5.2, §11): another Workspace's resource is indistinguishable
//! from a missing one. With several Workspaces enabled, Workspace B gets an API key, a member,
//! an invitation, model providers with an LLM, an embedding and a rerank model, a starred
//! model, a pipeline, and an `http_bot` bot (routed to that pipeline) that answers two real
//! turns through its signed `/sync` ingress against a fake OpenAI upstream (one completes, one
//! fails), so B has real monitoring records: executions, messages, LLM calls, an error and
//! conversation sessions. Workspace A runs one debug turn of its own.
//!
//! Then every Workspace-scoped operation is aimed at B's resources with credentials of
//! Workspace A (an admin of A who is not a member of B, and an API key of A), which must all
//! answer 404 `resource_not_found`, leave B unchanged and start no run; and every monitoring
//! read (lists, records, overview, token statistics, dashboard data, in-flight snapshot, CSV
//! export) made with A's credentials shows A's records and none of B's.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use reqwest::Method;
use sea_orm::{EntityTrait, PaginatorTrait};
use serde_json::{json, Value};
use wiremock::Respond;

use crate::helpers::runtime_rig::Echo;
use crate::helpers::{spawn_app_with, FakeOpenAi, Response, Route, TestApp, PASSWORD};

/// How a call presents its credential.
#[derive(Debug, Clone)]
enum Cred {
    Session(String),
    ApiKey(String),
}

async fn call(
    app: &TestApp,
    cred: &Cred,
    workspace: Option<&str>,
    method: Method,
    path: &str,
    body: Option<&Value>,
) -> Response {
    let mut req = app.request(method, path);
    req = match cred {
        Cred::Session(t) => req.bearer(t),
        Cred::ApiKey(k) => req.header("x-api-key", k),
    };
    if let Some(ws) = workspace {
        req = req.header("x-workspace-id", ws);
    }
    if let Some(body) = body {
        req = req.json(body);
    }
    req.send().await
}

fn http_method(name: &str) -> Method {
    Method::from_bytes(name.as_bytes()).expect("HTTP method")
}

/// The body sent when an operation takes one and the table names none.
fn default_body(method: &Method) -> Option<Value> {
    matches!(*method, Method::POST | Method::PUT | Method::PATCH).then(|| json!({}))
}

/// How to aim each Workspace-scoped operation at Workspace B: the body to send (path
/// parameters, and body strings that are exactly a placeholder like `"{bot_uuid}"`, are filled
/// from B's resources by name, see [`Targets::fill`]). Every Workspace-scoped operation with a
/// path parameter, and every one in [`BODY_NAMES_A_RESOURCE`], must be here; the bodies are
/// valid, so a missing isolation check would show as a change to B (or a run).
fn attack_table() -> BTreeMap<&'static str, Option<Value>> {
    BTreeMap::from([
        ("get_workspace", None),
        ("rename_workspace", Some(json!({ "name": "Hijacked" }))),
        ("list_members", None),
        ("update_member_role", Some(json!({ "role": "viewer" }))),
        ("remove_member", None),
        ("list_invitations", None),
        (
            "create_invitation",
            Some(json!({ "email": "intruder@example.com", "role": "admin" })),
        ),
        ("revoke_invitation", None),
        ("get_api_key", None),
        ("update_api_key", Some(json!({ "name": "Hijacked" }))),
        ("delete_api_key", None),
        // Operations on the selected Workspace: reaching B needs `X-Workspace-Id`.
        (
            "set_workspace_message_language",
            Some(json!({ "language": "ja_JP" })),
        ),
        ("create_api_key", Some(json!({ "name": "intruder key" }))),
        // Model providers and models.
        ("get_model_provider", None),
        (
            "update_model_provider",
            Some(json!({ "name": "Hijacked", "api_keys": ["sk-intruder"] })),
        ),
        ("delete_model_provider", None),
        ("get_llm_model", None),
        ("update_llm_model", Some(json!({ "name": "hijacked" }))),
        ("delete_llm_model", None),
        ("test_llm_model", Some(json!({}))),
        ("get_embedding_model", None),
        (
            "update_embedding_model",
            Some(json!({ "name": "hijacked" })),
        ),
        ("delete_embedding_model", None),
        ("test_embedding_model", Some(json!({}))),
        ("get_rerank_model", None),
        ("update_rerank_model", Some(json!({ "name": "hijacked" }))),
        ("delete_rerank_model", None),
        ("test_rerank_model", Some(json!({}))),
        // Pipelines.
        (
            "create_pipeline",
            Some(json!({ "name": "intruder pipeline" })),
        ),
        ("get_pipeline", None),
        ("update_pipeline", Some(json!({ "name": "Hijacked" }))),
        ("delete_pipeline", None),
        ("copy_pipeline", None),
        ("set_default_pipeline", None),
        // A run that got through would be recorded (see `runtime_records`).
        ("run_pipeline", Some(json!({ "message": "intruder run" }))),
        // A plain GET of the debug socket is authorized and checked, then told to upgrade.
        ("pipeline_debug_chat", None),
        // Bots and routes.
        (
            "create_bot",
            Some(json!({
                "name": "intruder bot",
                "adapter": "http_bot",
                "adapter_config": {
                    "inbound_secret": "intruder",
                    "callback_url": "http://127.0.0.1:9/intruder",
                },
            })),
        ),
        ("get_bot", None),
        (
            "update_bot",
            Some(json!({ "name": "Hijacked", "event_bindings": [] })),
        ),
        ("delete_bot", None),
        (
            "dry_run_bot_event_route",
            Some(json!({ "event_type": "message.received" })),
        ),
        ("list_bot_event_route_statuses", None),
        // B's bot in the body, with a session B really has.
        (
            "reset_session_context",
            Some(json!({ "bot_id": "{bot_uuid}", "session_id": B_SESSION })),
        ),
        // Monitoring: B's execution (by its id, `source=auto`), B's user message, and B's
        // records asked for by B's bot and session (see SCOPED_READS).
        ("get_monitoring_execution_detail", None),
        ("get_monitoring_details", None),
        (
            "get_monitoring_records",
            Some(json!({
                "limit": 1000,
                "filters": { "bot_ids": ["{bot_uuid}"], "session_ids": [B_SESSION] },
            })),
        ),
    ])
}

/// Workspace-scoped operations whose path parameter picks a kind of record, not a resource,
/// and that read the caller's Workspace filtered by the body: aimed at B (the body names B's
/// bot and session) with A's credentials they answer 200 with none of B's records; only A's
/// admin selecting B (not a member there) is a 404.
const SCOPED_READS: &[&str] = &["get_monitoring_records"];

/// Text in B's turns (and so in B's messages and replies): must never reach A.
const B_TEXT: &str = "b-private-5e0c";

/// The conversation session of B's failing turn.
const B_FAIL_SESSION: &str = "person_b-fail";

/// Workspace-scoped operations without a path parameter whose body names a Workspace
/// resource: attacked like those with one (every credential of A, with and without selecting B).
const BODY_NAMES_A_RESOURCE: &[&str] = &["reset_session_context"];

/// The conversation session of B's completed turn (see [`b_turn`]).
const B_SESSION: &str = "person_b-user";

/// Workspace-scoped operations whose path parameter names something global, not a Workspace
/// resource (the requester and adapter catalogs): B has nothing there to attack, so they are
/// only called with A's admin selecting B, which must still be a 404.
const GLOBAL_PATH_PARAMETERS: &[&str] = &["get_requester", "get_adapter"];

/// Workspace-scoped operations (session / session_or_api_key) whose path has a parameter.
fn workspace_ops_with_path_params() -> Vec<&'static langbot::catalog::OpMeta> {
    langbot::api::catalog()
        .operations()
        .iter()
        .map(|op| op.meta())
        .filter(|m| m.access.has_workspace() && m.path.contains('{'))
        .collect()
}

/// Problems with the attack table's coverage of the catalog.
fn coverage_problems() -> Vec<String> {
    let table = attack_table();
    let mut problems = Vec::new();
    for meta in workspace_ops_with_path_params() {
        if !table.contains_key(meta.id) && !GLOBAL_PATH_PARAMETERS.contains(&meta.id) {
            problems.push(format!(
                "{} ({} {}): Workspace-scoped with a path parameter, but no entry in \
                 tenant_isolation::attack_table",
                meta.id,
                meta.method.as_str(),
                meta.path
            ));
        }
    }
    let known: BTreeSet<&str> = langbot::api::catalog()
        .operations()
        .iter()
        .filter(|op| op.meta().access.has_workspace())
        .map(|op| op.meta().id)
        .collect();
    for id in table.keys() {
        if !known.contains(id) {
            problems.push(format!(
                "{id}: in the attack table but not a Workspace-scoped catalog operation"
            ));
        }
    }
    for id in BODY_NAMES_A_RESOURCE {
        if !known.contains(id) {
            problems.push(format!(
                "{id}: in BODY_NAMES_A_RESOURCE but not a Workspace-scoped catalog operation"
            ));
        }
        if !table.contains_key(id) {
            problems.push(format!(
                "{id}: in BODY_NAMES_A_RESOURCE, but no entry in tenant_isolation::attack_table"
            ));
        }
    }
    for id in SCOPED_READS {
        if !known.contains(id) {
            problems.push(format!(
                "{id}: in SCOPED_READS but not a Workspace-scoped catalog operation"
            ));
        }
        if !table.contains_key(id) {
            problems.push(format!(
                "{id}: in SCOPED_READS, but no entry in tenant_isolation::attack_table"
            ));
        }
    }
    for id in GLOBAL_PATH_PARAMETERS {
        if !known.contains(id) {
            problems.push(format!(
                "{id}: in GLOBAL_PATH_PARAMETERS but not a Workspace-scoped catalog operation"
            ));
        }
        if table.contains_key(id) {
            problems.push(format!(
                "{id}: both in the attack table and in GLOBAL_PATH_PARAMETERS"
            ));
        }
    }
    problems
}

#[test]
fn every_workspace_operation_with_a_path_parameter_has_an_attack() {
    let problems = coverage_problems();
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// Workspace B's resources, by path parameter name.
struct Targets {
    workspace: String,
    account: String,
    invitation: String,
    key_id: i64,
    provider: String,
    llm_model: String,
    embedding_model: String,
    rerank_model: String,
    pipeline: String,
    bot: String,
    /// B's completed execution.
    execution: String,
    /// The user message of that execution.
    message: String,
}

impl Targets {
    /// B's resource for placeholder `{name}` in an operation on `path`; an error names a
    /// placeholder B has no resource for.
    fn resolve(&self, name: &str, path: &str) -> Result<String, String> {
        Ok(match name {
            "workspace_uuid" => self.workspace.clone(),
            "account_uuid" => self.account.clone(),
            "invitation_uuid" => self.invitation.clone(),
            "key_id" => self.key_id.to_string(),
            "provider_uuid" => self.provider.clone(),
            // The model of the kind the path names.
            "model_uuid" if path.starts_with("/provider/models/llm/") => self.llm_model.clone(),
            "model_uuid" if path.starts_with("/provider/models/embedding/") => {
                self.embedding_model.clone()
            }
            "model_uuid" if path.starts_with("/provider/models/rerank/") => {
                self.rerank_model.clone()
            }
            "pipeline_uuid" => self.pipeline.clone(),
            "bot_uuid" => self.bot.clone(),
            // Monitoring: `auto` resolves execution, message and event ids alike.
            "source" if path.starts_with("/monitoring/executions/") => "auto".into(),
            "execution_id" => self.execution.clone(),
            "kind" if path.starts_with("/monitoring/records/") => "messages".into(),
            "kind" if path.starts_with("/monitoring/details/") => "message".into(),
            "identifier" if path.starts_with("/monitoring/details/") => self.message.clone(),
            // A requester or adapter name: global, see GLOBAL_PATH_PARAMETERS.
            "name" if path.starts_with("/provider/requesters/") => "openai-chat-completions".into(),
            "adapter_name" if path.starts_with("/platform/adapters/") => "http_bot".into(),
            other => {
                return Err(format!(
                    "no Workspace B resource for {{{other}}}: add one to the fixtures"
                ))
            }
        })
    }

    /// The operation's path aimed at B.
    fn fill(&self, path: &str) -> Result<String, String> {
        let mut out = String::new();
        let mut rest = path;
        while let Some(start) = rest.find('{') {
            out.push_str(&rest[..start]);
            let end = rest[start..].find('}').ok_or("unclosed placeholder")? + start;
            out.push_str(&self.resolve(&rest[start + 1..end], path)?);
            rest = &rest[end + 1..];
        }
        out.push_str(rest);
        Ok(format!("/api/v1{out}"))
    }

    /// The body aimed at B: every string that is exactly `{name}` becomes B's resource.
    fn fill_body(&self, path: &str, body: &Value) -> Result<Value, String> {
        Ok(match body {
            Value::String(s) if s.starts_with('{') && s.ends_with('}') && s.len() > 2 => {
                Value::String(self.resolve(&s[1..s.len() - 1], path)?)
            }
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| self.fill_body(path, v))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| Ok((k.clone(), self.fill_body(path, v)?)))
                    .collect::<Result<_, String>>()?,
            ),
            other => other.clone(),
        })
    }
}

/// Invites `email` into `workspace` (selected explicitly), registers and logs in; returns
/// (session, account uuid).
async fn add_member_to(
    app: &TestApp,
    inviter: &str,
    workspace: &str,
    email: &str,
    role: &str,
) -> (String, String) {
    let res = call(
        app,
        &Cred::Session(inviter.into()),
        Some(workspace),
        Method::POST,
        &format!("/api/v1/workspaces/{workspace}/invitations"),
        Some(&json!({ "email": email, "role": role })),
    )
    .await;
    let token = res.data()["token"].as_str().expect("token").to_string();
    app.post(
        "/api/v1/invitations/accept",
        &json!({ "token": token, "registration": { "email": email, "password": PASSWORD } }),
    )
    .await
    .data();
    let session = app.login(email, PASSWORD).await;
    let info = app.get_as(&session, "/api/v1/user/info").await;
    let account = info.data()["account_uuid"]
        .as_str()
        .expect("account uuid")
        .to_string();
    (session, account)
}

/// Everything of Workspace B an attack could change, read as B's owner.
async fn snapshot(app: &TestApp, owner: &str, ws: &str) -> Value {
    let cred = Cred::Session(owner.into());
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
    ] {
        let res = call(app, &cred, Some(ws), Method::GET, &path, None).await;
        out.insert(name.into(), res.data().clone());
    }
    Value::Object(out)
}

/// What the runtime has recorded, in every Workspace: an attack that started a run (or reached
/// a model) would add to these.
async fn runtime_records(app: &TestApp) -> BTreeMap<&'static str, u64> {
    use langbot::entities::{
        execution, llm_call, monitoring_error, monitoring_message, monitoring_session, route_trace,
    };
    let db = &app.state.db;
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
    let body = json!({ "session_id": session, "message": [{ "type": "Plain", "text": text }] })
        .to_string();
    let ts = chrono::Utc::now().timestamp().to_string();
    let sig = langbot::runtime::signing::sign(B_INBOUND_SECRET, &ts, body.as_bytes());
    app.request(Method::POST, &format!("/bots/{bot}/sync"))
        .header("x-lb-timestamp", &ts)
        .header("x-lb-signature", &sig)
        .raw_json(body.into_bytes())
        .send()
        .await
}

/// A Workspace's monitoring records, as its owner reads them.
#[derive(Debug, Default)]
struct Recorded {
    executions: Vec<Value>,
    messages: Vec<Value>,
    llm_calls: Vec<Value>,
    errors: Vec<Value>,
    sessions: Vec<Value>,
}

/// The record lists: (path below `/api/v1/monitoring/`, key of the rows, key identifying a row).
const RECORD_LISTS: [(&str, &str, &str); 5] = [
    ("executions", "items", "id"),
    ("messages", "messages", "id"),
    ("llm-calls", "llm_calls", "id"),
    ("errors", "errors", "id"),
    ("sessions", "sessions", "session_id"),
];

impl Recorded {
    async fn read(app: &TestApp, cred: &Cred, ws: &str) -> Recorded {
        let mut lists = Vec::new();
        for (path, key, _) in RECORD_LISTS {
            let res = call(
                app,
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
    fn rows(&self, path: &str) -> &[Value] {
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
    fn markers(&self) -> BTreeSet<String> {
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
fn ids(rows: &[Value], key: &str) -> BTreeSet<String> {
    rows.iter()
        .filter_map(|r| r[key].as_str().map(str::to_string))
        .collect()
}

/// The markers of B found in `text`.
fn leaks<'a>(text: &str, markers: &'a BTreeSet<String>) -> Vec<&'a str> {
    markers
        .iter()
        .filter(|m| text.contains(m.as_str()))
        .map(String::as_str)
        .collect()
}

/// A reader of Workspace A's monitoring: must see A's records, and none of B's.
struct Reader<'a> {
    cred: &'a Cred,
    selector: Option<&'a str>,
    label: &'static str,
    /// Whether it holds `data.export`.
    exports: bool,
}

/// Everything the monitoring checks need.
struct MonitoringCase<'a> {
    readers: Vec<Reader<'a>>,
    /// A's admin, who selects B below (not a member there).
    admin_a: &'a Cred,
    /// B's owner, who must see B's records where A sees none.
    owner: &'a Cred,
    ws_b: &'a str,
    bot_b: &'a str,
    a: &'a Recorded,
    b: &'a Recorded,
    /// Strings of B's records and resources that must never reach A.
    markers: &'a BTreeSet<String>,
}

/// The record kinds of `POST /monitoring/records/{kind}/query`, with the list of
/// [`RECORD_LISTS`] each one pages (tool and embedding calls: none are made).
const RECORD_KINDS: [(&str, Option<&str>); 6] = [
    ("messages", Some("messages")),
    ("llm_calls", Some("llm-calls")),
    ("errors", Some("errors")),
    ("sessions", Some("sessions")),
    ("tool_calls", None),
    ("embedding_calls", None),
];

/// The CSV export types, with the list of [`RECORD_LISTS`] each one writes.
const EXPORT_TYPES: [(&str, &str); 4] = [
    ("messages", "messages"),
    ("llm_calls", "llm-calls"),
    ("errors", "errors"),
    ("sessions", "sessions"),
];

/// Monitoring reads with A's credentials: A's records, exactly, and nothing of B's; B's
/// executions, messages and sessions by id are 404; B's own reads show B's records.
async fn monitoring_problems(app: &TestApp, case: &MonitoringCase<'_>) -> Vec<String> {
    let mut problems = Vec::new();
    let b_filter = format!("bot_ids={}&session_ids={B_SESSION}", case.bot_b);
    let b_filter_body =
        json!({ "bot_ids": [case.bot_b], "session_ids": [B_SESSION, B_FAIL_SESSION] });

    // B's executions, messages, events and sessions, by id, in every way the API names them.
    let mut b_by_id: Vec<String> = Vec::new();
    for e in &case.b.executions {
        let id = e["id"].as_str().unwrap_or_default();
        b_by_id.push(format!("/api/v1/monitoring/executions/pipeline/{id}"));
        b_by_id.push(format!("/api/v1/monitoring/executions/auto/{id}"));
        b_by_id.push(format!(
            "/api/v1/monitoring/executions/auto/{id}?section=conversation"
        ));
        b_by_id.push(format!("/api/v1/monitoring/details/message/{id}"));
        if let Some(event) = e["event_id"].as_str() {
            b_by_id.push(format!("/api/v1/monitoring/executions/event/{event}"));
            b_by_id.push(format!("/api/v1/monitoring/executions/auto/{event}"));
        }
    }
    for m in &case.b.messages {
        let id = m["id"].as_str().unwrap_or_default();
        b_by_id.push(format!("/api/v1/monitoring/executions/auto/{id}"));
        b_by_id.push(format!("/api/v1/monitoring/details/message/{id}"));
    }
    for s in &case.b.sessions {
        let id = s["session_id"].as_str().unwrap_or_default();
        b_by_id.push(format!("/api/v1/monitoring/details/session/{id}"));
    }
    // B's owner reaches each of them: the 404s below are isolation, not typos.
    for path in &b_by_id {
        let res = call(app, case.owner, Some(case.ws_b), Method::GET, path, None).await;
        if res.status != 200 {
            problems.push(format!(
                "GET {path} as B's owner: expected 200, got {} {}",
                res.status, res.text
            ));
        }
    }

    for reader in &case.readers {
        let r = |method: Method, path: String, body: Option<Value>| async move {
            let res = call(
                app,
                reader.cred,
                reader.selector,
                method.clone(),
                &path,
                body.as_ref(),
            )
            .await;
            (
                format!("{} {path} as {}", method.as_str(), reader.label),
                res,
            )
        };
        let leaked = |what: &str, res: &Response, problems: &mut Vec<String>| {
            let found = leaks(&res.text, case.markers);
            if !found.is_empty() {
                problems.push(format!("{what}: shows B's {found:?}: {}", res.text));
            }
        };

        // The record lists: exactly A's rows; filtered by B's bot and session, none.
        for (path, key, id) in RECORD_LISTS {
            let (what, res) = r(
                Method::GET,
                format!("/api/v1/monitoring/{path}?limit=500"),
                None,
            )
            .await;
            if res.status != 200 {
                problems.push(format!("{what}: {} {}", res.status, res.text));
                continue;
            }
            leaked(&what, &res, &mut problems);
            let rows = res.body["data"][key]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let want = ids(case.a.rows(path), id);
            if ids(&rows, id) != want || res.body["data"]["total"] != want.len() {
                problems.push(format!(
                    "{what}: expected exactly A's {want:?}, got {}",
                    res.text
                ));
            }
            let (what, res) = r(
                Method::GET,
                format!("/api/v1/monitoring/{path}?{b_filter}"),
                None,
            )
            .await;
            leaked(&what, &res, &mut problems);
            if res.status != 200 || res.body["data"]["total"] != 0 {
                problems.push(format!(
                    "{what}: B's bot and session, expected 200 and nothing, got {} {}",
                    res.status, res.text
                ));
            }
        }

        // Counts: A's own.
        let (what, res) = r(Method::GET, "/api/v1/monitoring/overview".into(), None).await;
        leaked(&what, &res, &mut problems);
        let o = &res.body["data"];
        if res.status != 200
            || o["executions"] != case.a.executions.len()
            || o["total_messages"] != case.a.messages.len()
            || o["llm_calls"] != case.a.llm_calls.len()
        {
            problems.push(format!(
                "{what}: expected A's counts ({} executions, {} messages, {} LLM calls), got {} {}",
                case.a.executions.len(),
                case.a.messages.len(),
                case.a.llm_calls.len(),
                res.status,
                res.text
            ));
        }
        let (what, res) = r(
            Method::GET,
            format!("/api/v1/monitoring/overview?{b_filter}"),
            None,
        )
        .await;
        let o = &res.body["data"];
        if res.status != 200
            || o["executions"] != 0
            || o["total_messages"] != 0
            || o["llm_calls"] != 0
        {
            problems.push(format!(
                "{what}: B's bot and session, expected zero counts, got {} {}",
                res.status, res.text
            ));
        }
        let a_tokens: i64 = case
            .a
            .llm_calls
            .iter()
            .filter_map(|c| c["total_tokens"].as_i64())
            .sum();
        let (what, res) = r(
            Method::GET,
            "/api/v1/monitoring/token-statistics".into(),
            None,
        )
        .await;
        leaked(&what, &res, &mut problems);
        let t = &res.body["data"];
        if res.status != 200
            || t["calls"] != case.a.llm_calls.len()
            || t["totals"]["total_tokens"] != a_tokens
        {
            problems.push(format!(
                "{what}: expected A's {} calls and {a_tokens} tokens, got {} {}",
                case.a.llm_calls.len(),
                res.status,
                res.text
            ));
        }
        let (what, res) = r(
            Method::GET,
            format!("/api/v1/monitoring/token-statistics?{b_filter}"),
            None,
        )
        .await;
        if res.status != 200 || res.body["data"]["calls"] != 0 {
            problems.push(format!(
                "{what}: B's bot and session, expected no calls, got {} {}",
                res.status, res.text
            ));
        }
        let (what, res) = r(
            Method::GET,
            "/api/v1/monitoring/data?limit=500".into(),
            None,
        )
        .await;
        leaked(&what, &res, &mut problems);
        let d = &res.body["data"];
        if res.status != 200
            || d["executions"]["total"] != case.a.executions.len()
            || d["totalCount"]["messages"] != case.a.messages.len()
            || d["totalCount"]["llmCalls"] != case.a.llm_calls.len()
            || d["totalCount"]["errors"] != case.a.errors.len()
            || d["totalCount"]["sessions"] != case.a.sessions.len()
        {
            problems.push(format!(
                "{what}: expected A's totals, got {} {}",
                res.status, res.text
            ));
        }
        let (what, res) = r(
            Method::GET,
            format!("/api/v1/monitoring/data?{b_filter}"),
            None,
        )
        .await;
        leaked(&what, &res, &mut problems);
        if res.status != 200 || res.body["data"]["executions"]["total"] != 0 {
            problems.push(format!(
                "{what}: B's bot and session, expected nothing, got {} {}",
                res.status, res.text
            ));
        }
        let (what, res) = r(Method::GET, "/api/v1/monitoring/in-flight".into(), None).await;
        leaked(&what, &res, &mut problems);
        let a_executions = ids(&case.a.executions, "id");
        let items = res.body["data"]["items"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if res.status != 200 || !ids(&items, "id").is_subset(&a_executions) {
            problems.push(format!(
                "{what}: expected only A's executions, got {} {}",
                res.status, res.text
            ));
        }

        // Records of every kind: A's own; by B's bot and sessions, none.
        for (kind, list) in RECORD_KINDS {
            let path = format!("/api/v1/monitoring/records/{kind}/query");
            let want = list.map_or(0, |l| case.a.rows(l).len());
            let (what, res) = r(Method::POST, path.clone(), Some(json!({ "limit": 1000 }))).await;
            leaked(&what, &res, &mut problems);
            if res.status != 200 || res.body["data"]["total"] != want {
                problems.push(format!(
                    "{what}: expected A's {want} records, got {} {}",
                    res.status, res.text
                ));
            }
            let (what, res) = r(
                Method::POST,
                path,
                Some(json!({ "limit": 1000, "filters": b_filter_body })),
            )
            .await;
            leaked(&what, &res, &mut problems);
            if res.status != 200 || res.body["data"]["total"] != 0 {
                problems.push(format!(
                    "{what}: B's bot and sessions, expected nothing, got {} {}",
                    res.status, res.text
                ));
            }
        }

        // B's executions, messages, events and sessions by id: 404.
        for path in &b_by_id {
            let (what, res) = r(Method::GET, path.clone(), None).await;
            if res.status != 404 || res.body["code"] != "resource_not_found" {
                problems.push(format!(
                    "{what}: B's record, expected 404 resource_not_found, got {} {}",
                    res.status, res.text
                ));
            }
        }

        // The CSV export (`data.export`): A's rows only; without the permission, 403.
        for (kind, list) in EXPORT_TYPES {
            for (query, want) in [
                (format!("type={kind}"), case.a.rows(list).len()),
                (format!("type={kind}&{b_filter}"), 0),
            ] {
                let (what, res) = r(
                    Method::GET,
                    format!("/api/v1/monitoring/export?{query}"),
                    None,
                )
                .await;
                if !reader.exports {
                    if res.status != 403 || res.body["code"] != "permission_denied" {
                        problems.push(format!(
                            "{what}: lacks data.export, expected 403 permission_denied, got {} {}",
                            res.status, res.text
                        ));
                    }
                    continue;
                }
                leaked(&what, &res, &mut problems);
                let is_csv = res
                    .header("content-type")
                    .is_some_and(|c| c.starts_with("text/csv"));
                if res.status != 200 || !is_csv || res.text.lines().count() != 1 + want {
                    problems.push(format!(
                        "{what}: expected a CSV header and A's {want} rows, got {} {}",
                        res.status, res.text
                    ));
                }
            }
        }
    }

    // A's admin selecting B is not a member there: every monitoring read is a 404.
    let mut selecting_b: Vec<(Method, String, Option<Value>)> = RECORD_LISTS
        .iter()
        .map(|(path, _, _)| (Method::GET, format!("/api/v1/monitoring/{path}"), None))
        .collect();
    for path in ["overview", "token-statistics", "data", "in-flight"] {
        selecting_b.push((Method::GET, format!("/api/v1/monitoring/{path}"), None));
    }
    for (kind, _) in RECORD_KINDS {
        selecting_b.push((
            Method::POST,
            format!("/api/v1/monitoring/records/{kind}/query"),
            Some(json!({})),
        ));
    }
    for (kind, _) in EXPORT_TYPES {
        selecting_b.push((
            Method::GET,
            format!("/api/v1/monitoring/export?type={kind}"),
            None,
        ));
    }
    selecting_b.extend(b_by_id.iter().map(|p| (Method::GET, p.clone(), None)));
    for (method, path, body) in selecting_b {
        let res = call(
            app,
            case.admin_a,
            Some(case.ws_b),
            method.clone(),
            &path,
            body.as_ref(),
        )
        .await;
        if res.status != 404 || res.body["code"] != "resource_not_found" {
            problems.push(format!(
                "{} {path} as A's admin selecting B: expected 404 resource_not_found, got {} {}",
                method.as_str(),
                res.status,
                res.text
            ));
        }
    }

    // B's owner exports B's rows: what A never saw is there.
    let res = call(
        app,
        case.owner,
        Some(case.ws_b),
        Method::GET,
        "/api/v1/monitoring/export?type=messages",
        None,
    )
    .await;
    if res.status != 200
        || !res.text.contains(B_TEXT)
        || res.text.lines().count() != 1 + case.b.messages.len()
    {
        problems.push(format!(
            "B's owner exporting B's messages: expected B's {} rows, got {} {}",
            case.b.messages.len(),
            res.status,
            res.text
        ));
    }
    problems
}

#[tokio::test]
async fn another_workspaces_resources_are_invisible_and_untouchable() {
    let problems = coverage_problems();
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));

    let app = spawn_app_with(|s| s.workspaces.multi = true).await;
    let owner = app.init_owner().await;
    let ws_a = app.workspace_of(&owner).await;
    let ws_b = app.create_workspace(&owner, "Workspace B").await;
    assert_ne!(ws_a, ws_b);
    let owner_cred = Cred::Session(owner.clone());

    // Workspace A: an admin who is not a member of B, and an API key.
    let (admin_a, _) = add_member_to(&app, &owner, &ws_a, "admin-a@example.com", "admin").await;
    let res = call(
        &app,
        &owner_cred,
        Some(ws_a.as_str()),
        Method::POST,
        "/api/v1/apikeys",
        Some(&json!({ "name": "A key" })),
    )
    .await;
    let key_a = res.data()["key"]["key"].as_str().expect("key").to_string();

    // Workspace B: an API key, a member and a pending invitation.
    let res = call(
        &app,
        &owner_cred,
        Some(ws_b.as_str()),
        Method::POST,
        "/api/v1/apikeys",
        Some(&json!({ "name": "B key", "description": "belongs to B" })),
    )
    .await;
    let key_b_id = res.data()["key"]["id"].as_i64().expect("key id");
    let key_b = res.data()["key"]["key"].as_str().expect("key").to_string();
    let (member_b, member_b_account) =
        add_member_to(&app, &owner, &ws_b, "member-b@example.com", "developer").await;
    let res = call(
        &app,
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
    let res = call(
        &app,
        &Cred::Session(admin_a.clone()),
        None,
        Method::GET,
        "/api/v1/workspaces/current",
        None,
    )
    .await;
    assert_eq!(res.data()["workspace"]["uuid"], ws_a.as_str());
    let res = call(
        &app,
        &Cred::ApiKey(key_a.clone()),
        None,
        Method::GET,
        "/api/v1/system/context",
        None,
    )
    .await;
    assert_eq!(res.data()["workspace_uuid"], ws_a.as_str());

    // Workspace B: model providers (chat and rerank) with a model of each kind, one starred.
    // The chat provider is the fake upstream B's turns run on (an attack that got through to
    // a model test would show as a request there, see `upstream_before`); the rerank
    // provider's base URL is unreachable.
    let fake = fake_upstream().await;
    let b_call = |method: Method, path: &'static str, body: Value| {
        let (app, cred, ws) = (&app, &owner_cred, ws_b.as_str());
        async move { call(app, cred, Some(ws), method, path, Some(&body)).await }
    };
    let uuid_of = |res: Response| {
        res.data()["uuid"]
            .as_str()
            .expect("created uuid")
            .to_string()
    };
    let provider_b = uuid_of(
        b_call(
            Method::POST,
            "/api/v1/provider/providers",
            json!({
                "name": "B chat",
                "requester": "openai-chat-completions",
                "base_url": fake.base_url(),
                "api_keys": ["sk-b-secret-0001"],
            }),
        )
        .await,
    );
    let rerank_provider_b = uuid_of(
        b_call(
            Method::POST,
            "/api/v1/provider/providers",
            json!({
                "name": "B rerank",
                "requester": "openai-compatible-rerank",
                "base_url": "http://127.0.0.1:9/v1",
                "api_keys": ["sk-b-secret-0002"],
            }),
        )
        .await,
    );
    let llm_b = uuid_of(
        b_call(
            Method::POST,
            "/api/v1/provider/models/llm",
            json!({ "name": "b-llm", "provider_uuid": provider_b, "abilities": ["func_call"] }),
        )
        .await,
    );
    let embedding_b = uuid_of(
        b_call(
            Method::POST,
            "/api/v1/provider/models/embedding",
            json!({ "name": "b-embedding", "provider_uuid": provider_b }),
        )
        .await,
    );
    let rerank_b = uuid_of(
        b_call(
            Method::POST,
            "/api/v1/provider/models/rerank",
            json!({ "name": "b-rerank", "provider_uuid": rerank_provider_b }),
        )
        .await,
    );
    b_call(
        Method::PUT,
        "/api/v1/provider/models/llm/_/starred",
        json!({ "uuid": llm_b }),
    )
    .await
    .data();

    // Workspace B: a pipeline (its model is B's starred one), and an enabled bot whose default
    // routes target it, with real traffic (below).
    let pipeline_b = uuid_of(
        b_call(
            Method::POST,
            "/api/v1/pipelines",
            json!({ "name": "B pipeline" }),
        )
        .await,
    );
    let bot_b = uuid_of(
        b_call(
            Method::POST,
            "/api/v1/platform/bots",
            json!({
                "name": "B bot",
                "adapter": "http_bot",
                "enable": true,
                "adapter_config": {
                    "inbound_secret": B_INBOUND_SECRET,
                    "callback_url": "http://127.0.0.1:9/cb",
                },
            }),
        )
        .await,
    );

    // Workspace B's traffic, through the bot's signed ingress: a completed turn in B_SESSION
    // and a failed one (the upstream answers 500) in B_FAIL_SESSION.
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
    let a_call = |method: Method, path: String, body: Value| {
        let (app, cred, ws) = (&app, &owner_cred, ws_a.as_str());
        async move { call(app, cred, Some(ws), method, &path, Some(&body)).await }
    };
    let provider_a = uuid_of(
        a_call(
            Method::POST,
            "/api/v1/provider/providers".into(),
            json!({
                "name": "A chat",
                "requester": "openai-chat-completions",
                "base_url": fake.base_url(),
                "api_keys": ["sk-a-secret-0001"],
            }),
        )
        .await,
    );
    let llm_a = uuid_of(
        a_call(
            Method::POST,
            "/api/v1/provider/models/llm".into(),
            json!({ "name": "a-llm", "provider_uuid": provider_a }),
        )
        .await,
    );
    let pipeline_a = uuid_of(
        a_call(
            Method::POST,
            "/api/v1/pipelines".into(),
            json!({
                "name": "A pipeline",
                "config": { "ai": { "runner_config": { "local-agent": { "model": { "primary": llm_a } } } } },
            }),
        )
        .await,
    );
    a_call(
        Method::POST,
        format!("/api/v1/pipelines/{pipeline_a}/run"),
        json!({ "message": "A's own question" }),
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

    // In flight (executions started in the last 30 s): each Workspace sees its own, now.
    let admin_a_session = Cred::Session(admin_a.clone());
    for (cred, ws, mine, theirs, who) in [
        (
            &admin_a_session,
            ws_a.as_str(),
            &recorded_a,
            &recorded_b,
            "A's admin",
        ),
        (
            &owner_cred,
            ws_b.as_str(),
            &recorded_b,
            &recorded_a,
            "B's owner",
        ),
    ] {
        let res = call(
            &app,
            cred,
            Some(ws),
            Method::GET,
            "/api/v1/monitoring/in-flight",
            None,
        )
        .await;
        let shown = ids(
            res.data()["items"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default(),
            "id",
        );
        assert!(
            shown.is_superset(&ids(&mine.executions, "id"))
                && shown.is_disjoint(&ids(&theirs.executions, "id")),
            "in-flight as {who}: {}",
            res.text
        );
    }

    let before = snapshot(&app, &owner, &ws_b).await;
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
    assert_eq!(before["starred_model"]["uuid"], llm_b.as_str());
    let pipelines = before["pipelines"]["pipelines"]
        .as_array()
        .expect("pipelines");
    assert_eq!(pipelines.len(), 1, "{pipelines:?}");
    assert_eq!(pipelines[0]["uuid"], pipeline_b.as_str());
    assert_eq!(
        pipelines[0]["is_default"], false,
        "B's pipeline must not be the default, or set_default_pipeline changes nothing"
    );
    let bots = before["bots"]["bots"].as_array().expect("bots");
    assert_eq!(bots.len(), 1, "{bots:?}");
    assert_eq!(bots[0]["uuid"], bot_b.as_str());
    let routes = bots[0]["event_bindings"].as_array().expect("routes");
    assert!(
        !routes.is_empty()
            && routes
                .iter()
                .all(|r| r["target_uuid"] == pipeline_b.as_str()),
        "B's bot routes to B's pipeline: {routes:?}"
    );
    let records_before = runtime_records(&app).await;
    let upstream_before = fake.received().await.len();

    let targets = Targets {
        workspace: ws_b.clone(),
        account: member_b_account.clone(),
        invitation: invitation_b.clone(),
        key_id: key_b_id,
        provider: provider_b.clone(),
        llm_model: llm_b.clone(),
        embedding_model: embedding_b.clone(),
        rerank_model: rerank_b.clone(),
        pipeline: pipeline_b.clone(),
        bot: bot_b.clone(),
        execution: b_completed.clone(),
        message: b_message.clone(),
    };
    let table = attack_table();
    let admin = Cred::Session(admin_a.clone());
    let key = Cred::ApiKey(key_a.clone());
    let mut problems = Vec::new();
    let mut attacks = 0;

    for op in langbot::api::catalog().operations() {
        let meta = op.meta();
        if !meta.access.has_workspace() {
            continue;
        }
        let method = http_method(meta.method.as_str());
        let body = table
            .get(meta.id)
            .cloned()
            .unwrap_or_else(|| default_body(&method));
        let filled = targets.fill(meta.path).and_then(|path| {
            let body = body
                .as_ref()
                .map(|b| targets.fill_body(meta.path, b))
                .transpose()?;
            Ok((path, body))
        });
        let (path, body) = match filled {
            Ok(filled) => filled,
            Err(e) => {
                problems.push(format!("{}: {e}", meta.id));
                continue;
            }
        };
        let addresses_b = (meta.path.contains('{') && !GLOBAL_PATH_PARAMETERS.contains(&meta.id))
            || BODY_NAMES_A_RESOURCE.contains(&meta.id);
        let accepts_keys = meta.access.as_str() == "session_or_api_key";

        // (credential, X-Workspace-Id, label): calls that must answer 404 (a scoped read: only
        // A's admin selecting B; the others read A's records, none of them B's).
        let scoped_read = SCOPED_READS.contains(&meta.id);
        let mut calls: Vec<(&Cred, Option<&str>, &str)> =
            vec![(&admin, Some(ws_b.as_str()), "A's admin selecting B")];
        if addresses_b {
            calls.push((&admin, None, "A's admin"));
            calls.push((&admin, Some(ws_a.as_str()), "A's admin selecting A"));
            if accepts_keys {
                calls.push((&key, None, "A's API key"));
                calls.push((
                    &key,
                    Some(ws_b.as_str()),
                    "A's API key with X-Workspace-Id B",
                ));
            }
        }
        for (cred, selector, label) in calls {
            attacks += 1;
            let res = call(&app, cred, selector, method.clone(), &path, body.as_ref()).await;
            let non_member = matches!(cred, Cred::Session(_)) && selector == Some(ws_b.as_str());
            if scoped_read && !non_member {
                let found = leaks(&res.text, &b_markers);
                if res.status != 200 || res.body["data"]["total"] != 0 || !found.is_empty() {
                    problems.push(format!(
                        "{} {path} ({}) as {label}: expected 200 without B's records, got {} \
                         {} (B's {found:?})",
                        meta.method.as_str(),
                        meta.id,
                        res.status,
                        res.text
                    ));
                }
                continue;
            }
            if res.status != 404 || res.body["code"] != "resource_not_found" {
                problems.push(format!(
                    "{} {path} ({}) as {label}: expected 404 resource_not_found, got {} {}",
                    meta.method.as_str(),
                    meta.id,
                    res.status,
                    res.text
                ));
            }
        }
        // Session-only operations aimed at B refuse A's key outright.
        if addresses_b && !accepts_keys {
            let res = call(
                &app,
                &key,
                Some(ws_b.as_str()),
                method.clone(),
                &path,
                body.as_ref(),
            )
            .await;
            if res.status != 401 || res.body["code"] != "invalid_authentication" {
                problems.push(format!(
                    "{} {path} ({}) as A's API key: session-only, expected 401 \
                     invalid_authentication, got {} {}",
                    meta.method.as_str(),
                    meta.id,
                    res.status,
                    res.text
                ));
            }
        }
    }
    assert!(attacks > 0, "no Workspace-scoped operation was attacked");

    // Monitoring reads with A's credentials: A's records only, B's by id are 404, and the
    // export needs `data.export` (a developer of A lacks it).
    let (developer_a, _) =
        add_member_to(&app, &owner, &ws_a, "developer-a@example.com", "developer").await;
    let developer = Cred::Session(developer_a);
    let case = MonitoringCase {
        readers: vec![
            Reader {
                cred: &admin,
                selector: None,
                label: "A's admin",
                exports: true,
            },
            Reader {
                cred: &admin,
                selector: Some(ws_a.as_str()),
                label: "A's admin selecting A",
                exports: true,
            },
            Reader {
                cred: &key,
                selector: None,
                label: "A's API key",
                exports: true,
            },
            Reader {
                cred: &key,
                selector: Some(ws_b.as_str()),
                label: "A's API key with X-Workspace-Id B",
                exports: true,
            },
            Reader {
                cred: &developer,
                selector: None,
                label: "A's developer",
                exports: false,
            },
        ],
        admin_a: &admin,
        owner: &owner_cred,
        ws_b: &ws_b,
        bot_b: &bot_b,
        a: &recorded_a,
        b: &recorded_b,
        markers: &b_markers,
    };
    problems.extend(monitoring_problems(&app, &case).await);

    // An unknown Workspace selector is a 404 too.
    let res = call(
        &app,
        &admin,
        Some(uuid::Uuid::new_v4().to_string().as_str()),
        Method::GET,
        "/api/v1/workspaces/current",
        None,
    )
    .await;
    if res.status != 404 || res.body["code"] != "resource_not_found" {
        problems.push(format!(
            "unknown X-Workspace-Id: expected 404 resource_not_found, got {} {}",
            res.status, res.text
        ));
    }

    // API keys ignore X-Workspace-Id: A's key stays in A.
    let res = call(
        &app,
        &key,
        Some(ws_b.as_str()),
        Method::GET,
        "/api/v1/system/context",
        None,
    )
    .await;
    if res.status != 200 || res.body["data"]["workspace_uuid"] != ws_a.as_str() {
        problems.push(format!(
            "A's key with X-Workspace-Id B: /system/context must name A, got {} {}",
            res.status, res.text
        ));
    }
    let res = call(
        &app,
        &key,
        Some(ws_b.as_str()),
        Method::PUT,
        "/api/v1/workspaces/current/language",
        Some(&json!({ "language": "zh_Hans" })),
    )
    .await;
    if res.status != 200 {
        problems.push(format!(
            "A's key setting its own language (X-Workspace-Id B ignored): {} {}",
            res.status, res.text
        ));
    }
    let res = call(
        &app,
        &owner_cred,
        Some(ws_a.as_str()),
        Method::GET,
        "/api/v1/workspaces/current/language",
        None,
    )
    .await;
    if res.status != 200 || res.body["data"]["language"] != "zh_Hans" {
        problems.push(format!(
            "A's language after A's key set it: expected zh_Hans, got {} {}",
            res.status, res.text
        ));
    }

    // B is exactly as before, nothing ran, and B's key, member and session still work there.
    let after = snapshot(&app, &owner, &ws_b).await;
    if after != before {
        problems.push(format!(
            "Workspace B changed:\nbefore: {before:#}\nafter:  {after:#}"
        ));
    }
    let records_after = runtime_records(&app).await;
    if records_after != records_before {
        problems.push(format!(
            "the attacks started something: runtime records {records_before:?} before, \
             {records_after:?} after"
        ));
    }
    let upstream_after = fake.received().await.len();
    if upstream_after != upstream_before {
        problems.push(format!(
            "the attacks reached B's model upstream: {upstream_before} requests before, \
             {upstream_after} after"
        ));
    }
    let res = call(
        &app,
        &Cred::ApiKey(key_b),
        None,
        Method::GET,
        "/api/v1/system/context",
        None,
    )
    .await;
    if res.status != 200 || res.body["data"]["workspace_uuid"] != ws_b.as_str() {
        problems.push(format!(
            "B's key after the attacks: {} {}",
            res.status, res.text
        ));
    }
    let res = call(
        &app,
        &Cred::Session(member_b),
        None,
        Method::GET,
        "/api/v1/workspaces/current",
        None,
    )
    .await;
    if res.status != 200
        || res.body["data"]["workspace"]["uuid"] != ws_b.as_str()
        || res.body["data"]["membership"]["role"] != "developer"
    {
        problems.push(format!(
            "B's member after the attacks: {} {}",
            res.status, res.text
        ));
    }
    // The session A could not reset is B's to reset: the 404s above were isolation.
    let res = call(
        &app,
        &owner_cred,
        Some(ws_b.as_str()),
        Method::POST,
        "/api/v1/monitoring/sessions/reset-context",
        Some(&json!({ "bot_id": bot_b, "session_id": B_SESSION })),
    )
    .await;
    if res.status != 200 || res.body["data"]["reset"] != true {
        problems.push(format!(
            "B's owner resetting B's session after the attacks: {} {}",
            res.status, res.text
        ));
    }

    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
