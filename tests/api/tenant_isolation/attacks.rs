//! Aiming every Workspace-scoped operation at Workspace B with credentials of Workspace A (an
//! admin of A who is not a member of B, and an API key of A): each must answer 404
//! `resource_not_found`, leave B unchanged and start no run. The operations come from the
//! catalog, grouped by resource; the attack table says how to aim each one at B.

use std::collections::{BTreeMap, BTreeSet};

use reqwest::Method;
use serde_json::{json, Value};

use super::world::{leaks, World};
use super::B_SESSION;
use crate::helpers::query::http_method;
use crate::helpers::Cred;

/// The resource (the first segment of the path below `/api/v1`) an operation belongs to; each
/// has its own attack test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Resource {
    /// `/workspaces`, `/apikeys`, `/system`, `/user`, `/invitations`.
    Identity,
    /// `/provider`.
    Providers,
    /// `/pipelines`, and `/agents` (LangBot's processors: the pipelines again).
    Pipelines,
    /// `/platform`.
    Platform,
    /// `/monitoring`.
    Monitoring,
    /// `/mcp` (external MCP servers) and `/tools` (the tools they give a pipeline).
    Mcp,
    /// `/plugins`.
    Plugins,
    /// LangBot features not here, answered "none": `/knowledge`, `/skills`, `/assistant`,
    /// `/marketplace`, `/box`, `/dist`.
    Unavailable,
}

impl Resource {
    pub fn of(path: &str) -> Option<Resource> {
        let first = path.trim_start_matches('/').split('/').next()?;
        Some(match first {
            "workspaces" | "apikeys" | "system" | "user" | "invitations" => Resource::Identity,
            "provider" => Resource::Providers,
            "pipelines" | "agents" => Resource::Pipelines,
            "platform" => Resource::Platform,
            "monitoring" => Resource::Monitoring,
            "mcp" | "tools" => Resource::Mcp,
            "plugins" => Resource::Plugins,
            "knowledge" | "skills" | "assistant" | "marketplace" | "box" | "dist" => {
                Resource::Unavailable
            }
            _ => return None,
        })
    }
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
        ("get_processor", None),
        ("update_processor", Some(json!({ "name": "Hijacked" }))),
        ("delete_processor", None),
        ("update_pipeline", Some(json!({ "name": "Hijacked" }))),
        ("delete_pipeline", None),
        ("copy_pipeline", None),
        ("set_default_pipeline", None),
        // A run that got through would be recorded (see `runtime_records`).
        ("run_pipeline", Some(json!({ "message": "intruder run" }))),
        // A plain GET of the debug socket is authorized and checked, then told to upgrade.
        ("pipeline_debug_chat", None),
        // LangBot's debug chat protocol: the socket (plain GET, as above), its history,
        // reset, connections and broadcast.
        ("connect_pipeline_ws_chat", None),
        ("get_pipeline_ws_messages", None),
        ("reset_pipeline_ws_session", None),
        ("list_pipeline_ws_connections", None),
        (
            "broadcast_pipeline_ws_message",
            Some(json!({ "message": "intruder broadcast" })),
        ),
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
        (
            "get_bot_logs",
            Some(json!({ "from_index": -1, "max_count": 50 })),
        ),
        ("list_bot_admins", None),
        (
            "send_message",
            Some(json!({ "target_type": "person", "target_id": "1",
                         "message_chain": [{ "type": "Plain", "text": "hijacked" }] })),
        ),
        // B's bot in the body, with a session B really has.
        (
            "reset_session_context",
            Some(json!({ "bot_id": "{bot_uuid}", "session_id": B_SESSION })),
        ),
        // External MCP servers (by name) and a pipeline's extension bindings. B's server is
        // disabled: an update that got through would show (readme, enable), a test or a
        // resources read that got through would answer something else than 404.
        (
            "create_mcp_server",
            Some(json!({ "name": "intruder", "mode": "remote",
                         "extra_args": { "url": "http://127.0.0.1:9/intruder" } })),
        ),
        ("get_mcp_server", None),
        (
            "update_mcp_server",
            Some(json!({ "readme": "Hijacked", "enable": true })),
        ),
        ("delete_mcp_server", None),
        ("test_mcp_server", Some(json!({}))),
        ("list_mcp_server_resources", None),
        ("get_pipeline_extensions", None),
        (
            "update_pipeline_extensions",
            Some(json!({ "enable_all_mcp_servers": false, "bound_mcp_servers": [] })),
        ),
        // Plugins (by author and name): an operation that got through would change B's
        // plugin (enabled, config) or remove it.
        ("get_plugin", None),
        ("delete_plugin", None),
        ("set_plugin_enabled", Some(json!({ "enabled": false }))),
        ("get_plugin_config", None),
        (
            "update_plugin_config",
            Some(json!({ "greeting": "hijacked" })),
        ),
        ("get_plugin_readme", None),
        ("get_plugin_icon", None),
        ("get_plugin_authenticated_icon", None),
        ("get_plugin_logs", None),
        // B's config file: an operation that got through would delete it.
        ("delete_plugin_config_file", None),
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

/// Workspace-scoped operations without a path parameter whose body names a Workspace
/// resource: attacked like those with one (every credential of A, with and without selecting B).
const BODY_NAMES_A_RESOURCE: &[&str] = &["reset_session_context"];

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
                 tenant_isolation::attacks::attack_table",
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
                "{id}: in BODY_NAMES_A_RESOURCE, but no entry in tenant_isolation::attacks::attack_table"
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
                "{id}: in SCOPED_READS, but no entry in tenant_isolation::attacks::attack_table"
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
    for op in langbot::api::catalog().operations() {
        let meta = op.meta();
        if meta.access.has_workspace() && Resource::of(meta.path).is_none() {
            problems.push(format!(
                "{} ({} {}): Workspace-scoped, but under no resource of \
                 tenant_isolation::attacks::Resource (so no attack test aims it at B)",
                meta.id,
                meta.method.as_str(),
                meta.path
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
    /// B's MCP server's name (the key of its routes).
    mcp_server: String,
    /// B's plugin config file.
    config_file: String,
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
            // LangBot's processors here are the pipelines.
            "pipeline_uuid" | "processor_uuid" => self.pipeline.clone(),
            "bot_uuid" => self.bot.clone(),
            "server_name" => self.mcp_server.clone(),
            "file_key" => self.config_file.clone(),
            // B's plugin (the weather fixture).
            "author" if path.starts_with("/plugins/") => "tester".into(),
            "name" if path.starts_with("/plugins/") => "weather".into(),
            // Monitoring: `auto` resolves execution, message and event ids alike.
            "source" if path.starts_with("/monitoring/executions/") => "auto".into(),
            "execution_id" => self.execution.clone(),
            "kind" if path.starts_with("/monitoring/records/") => "messages".into(),
            "kind" if path.starts_with("/monitoring/details/") => "message".into(),
            "identifier" if path.starts_with("/monitoring/details/") => self.message.clone(),
            // The debug chat's session type picks a chat, not a resource.
            "session_type" if path.starts_with("/pipelines/") => "person".into(),
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

/// Aims every Workspace-scoped operation of `resource` at B with A's credentials; answers a
/// line per call that did not answer as it must.
pub(super) async fn attack(w: &World, resource: Resource) -> Vec<String> {
    let targets = Targets {
        workspace: w.ws_b.clone(),
        account: w.member_b_account.clone(),
        invitation: w.invitation_b.clone(),
        key_id: w.key_b_id,
        provider: w.provider_b.clone(),
        llm_model: w.llm_b.clone(),
        embedding_model: w.embedding_b.clone(),
        rerank_model: w.rerank_b.clone(),
        pipeline: w.pipeline_b.clone(),
        bot: w.bot_b.clone(),
        mcp_server: w.mcp_server_b.clone(),
        config_file: w.config_file_b.clone(),
        execution: w.b_completed.clone(),
        message: w.b_message.clone(),
    };
    let table = attack_table();
    let (admin, key) = (&w.admin_a, &w.key_a);
    let (ws_a, ws_b) = (&w.ws_a, &w.ws_b);
    let mut problems = Vec::new();
    let mut attacks = 0;

    for op in langbot::api::catalog().operations() {
        let meta = op.meta();
        if !meta.access.has_workspace() || Resource::of(meta.path) != Some(resource) {
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
            vec![(admin, Some(ws_b.as_str()), "A's admin selecting B")];
        if addresses_b {
            calls.push((admin, None, "A's admin"));
            calls.push((admin, Some(ws_a.as_str()), "A's admin selecting A"));
            if accepts_keys {
                calls.push((key, None, "A's API key"));
                calls.push((
                    key,
                    Some(ws_b.as_str()),
                    "A's API key with X-Workspace-Id B",
                ));
            }
        }
        for (cred, selector, label) in calls {
            attacks += 1;
            let res = w
                .app
                .call(cred, selector, method.clone(), &path, body.as_ref())
                .await;
            let non_member = matches!(cred, Cred::Bearer(_)) && selector == Some(ws_b.as_str());
            if scoped_read && !non_member {
                let found = leaks(&res.text, &w.b_markers);
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
            let res = w
                .app
                .call(
                    key,
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
    assert!(
        attacks > 0,
        "no Workspace-scoped operation of {resource:?} was attacked"
    );
    problems
}
