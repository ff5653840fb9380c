//! Tenant isolation (SPEC §3, §5.2): another Workspace's resource is indistinguishable from a
//! missing one. With several Workspaces enabled, Workspace B gets an API key, a member, an
//! invitation, model providers with an LLM, an embedding and a rerank model, a starred model,
//! a pipeline, and an `http_bot` bot (routed to that pipeline) with a conversation session;
//! then every Workspace-scoped operation is aimed at B's resources with credentials of
//! Workspace A (an admin of A who is not a member of B, and an API key of A), which must all
//! answer 404 `resource_not_found`, leave B unchanged and start no run.

use std::collections::{BTreeMap, BTreeSet};

use reqwest::Method;
use sea_orm::{ActiveModelTrait, EntityTrait, PaginatorTrait, Set};
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, Response, TestApp, PASSWORD};

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
    ])
}

/// Workspace-scoped operations without a path parameter whose body names a Workspace
/// resource: attacked like those with one (every credential of A, with and without selecting B).
const BODY_NAMES_A_RESOURCE: &[&str] = &["reset_session_context"];

/// The conversation session B's bot has (see [`add_session`]).
const B_SESSION: &str = "person_b-user";

/// Workspace-scoped operations whose path parameter names something global, not a Workspace
/// resource (the requester and adapter catalogs): B has nothing there to attack, so they are
/// only called with A's admin selecting B, which must still be a 404.
const GLOBAL_PATH_PARAMETERS: &[&str] = &["get_requester", "get_adapter"];

/// Workspace-scoped operations (session / session_or_api_key) whose path has a parameter.
fn workspace_ops_with_path_params() -> Vec<&'static langbot::catalog::OpMeta> {
    langbot::catalog::operations()
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
    let known: BTreeSet<&str> = langbot::catalog::operations()
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

/// Records conversation session [`B_SESSION`] of B's bot, as a turn would, so that resetting
/// it is not a 404 for want of a session.
async fn add_session(app: &TestApp, ws: &str, bot: &str, pipeline: &str) {
    let now = chrono::Utc::now();
    langbot::entities::monitoring_session::ActiveModel {
        workspace_uuid: Set(ws.into()),
        bot_id: Set(bot.into()),
        session_id: Set(B_SESSION.into()),
        bot_name: Set("B bot".into()),
        pipeline_id: Set(pipeline.into()),
        pipeline_name: Set("B pipeline".into()),
        message_count: Set(1),
        start_time: Set(now),
        last_activity: Set(now),
        is_active: Set(true),
        platform: Set(Some("http_bot".into())),
        user_id: Set(Some("b-user".into())),
        user_name: Set(None),
    }
    .insert(&app.state.db)
    .await
    .expect("B's session");
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
    // Their base URL is unreachable: an attack that got through to a model test would fail
    // with 502, not reach anything.
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
                "base_url": "http://127.0.0.1:9/v1",
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

    // Workspace B: a pipeline (its model is B's starred one), and a bot whose default routes
    // target it, with a conversation session.
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
                "adapter_config": {
                    "inbound_secret": "s",
                    "callback_url": "http://127.0.0.1:9/cb",
                },
            }),
        )
        .await,
    );
    add_session(&app, &ws_b, &bot_b, &pipeline_b).await;

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
    };
    let table = attack_table();
    let admin = Cred::Session(admin_a.clone());
    let key = Cred::ApiKey(key_a.clone());
    let mut problems = Vec::new();
    let mut attacks = 0;

    for op in langbot::catalog::operations() {
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

        // (credential, X-Workspace-Id, label): calls that must answer 404.
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
