//! The LangBot API for plugins: what the host answers when the runtime relays a plugin's
//! call. A runtime serves one Workspace, so every action runs in that Workspace; the context
//! the runtime sends is checked against it, and a plugin's identity comes from its
//! installation id (never from the payload). Actions this host does not implement answer a
//! clear error at once.

use std::time::Duration;

use base64::Engine;
use futures_util::StreamExt;
use serde_json::{json, Map, Value};
use uuid::Uuid;

use super::conn::{Answer, Host};
use super::service::{self, storage};
use crate::access::WorkspaceCtx;
use crate::llm::{self, reasoning, ChatMessage, ChatRequest, StreamEvent, ToolSpec};
use crate::providers::requesters::ModelKind;
use crate::providers::{models, service as providers};
use crate::state::AppState;

/// Binary storage values (LangBot's default `plugin.binary_storage.max_value_bytes`).
pub const VALUE_MAX: usize = 10 * 1024 * 1024;
const KEY_MAX: usize = 255;
/// `invoke_llm` without its own `timeout` (the SDK's default).
const LLM_TIMEOUT: Duration = Duration::from_secs(120);

/// Families of the seed's API this host does not offer, and why.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("vector_", "vector stores"),
    ("rag_", "knowledge engines"),
    ("retrieve_knowledge", "knowledge bases"),
    ("list_knowledge_bases", "knowledge bases"),
    ("list_pipeline_knowledge_bases", "knowledge bases"),
    ("get_knowledge_file_stream", "knowledge bases"),
    ("list_parsers", "document parsers"),
    ("invoke_parser", "document parsers"),
    ("get_box_status", "the Box sandbox"),
    ("list_boxes", "the Box sandbox"),
    ("acquire_box", "the Box sandbox"),
    ("box_", "the Box sandbox"),
    ("call_platform_api", "platform adapter APIs"),
    ("count_tokens", "token counting"),
    ("initialize_plugin_settings", "debug plugins"),
];

pub struct PluginHost {
    state: AppState,
    ws: WorkspaceCtx,
}

type Reply = Result<Value, String>;

fn field<'a>(data: &'a Value, name: &str) -> Result<&'a str, String> {
    data[name]
        .as_str()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| format!("{name} is required"))
}

impl PluginHost {
    pub fn new(state: AppState, ws: WorkspaceCtx) -> Self {
        Self { state, ws }
    }

    /// The context must name this runtime's Workspace (and this instance).
    fn check_context(&self, context: Option<&Value>) -> Result<(), String> {
        let Some(c) = context else {
            return Ok(());
        };
        let ws = c["workspace_uuid"].as_str().unwrap_or_default();
        let instance = c["instance_uuid"].as_str().unwrap_or_default();
        if ws != self.ws.uuid.to_string() || instance != &*self.state.instance_uuid {
            return Err("The action context names another Workspace or instance".into());
        }
        Ok(())
    }

    /// `(owner_type, owner)` of a storage call, decided here (the payload's owner is ignored).
    async fn owner(
        &self,
        data: &Value,
        context: Option<&Value>,
    ) -> Result<(String, String), String> {
        match data["owner_type"].as_str().unwrap_or_default() {
            "workspace" => Ok(("workspace".into(), self.ws.uuid.to_string())),
            "plugin" => {
                let installation = context
                    .and_then(|c| c["installation_uuid"].as_str())
                    .ok_or("Plugin storage needs the plugin's installation context")?;
                let row = service::by_installation(&self.state.db, &self.ws, installation)
                    .await
                    .map_err(|e| e.english().to_string())?
                    .ok_or("Unknown plugin installation")?;
                Ok((
                    "plugin".into(),
                    format!("{}/{}", row.plugin_author, row.plugin_name),
                ))
            }
            other => Err(format!("Unsupported binary storage owner_type '{other}'")),
        }
    }

    fn key(data: &Value) -> Result<String, String> {
        let key = data["key"].as_str().unwrap_or_default();
        if key.is_empty() {
            return Err("Storage owner and key are required".into());
        }
        if key.len() > KEY_MAX {
            return Err(format!("Storage keys are at most {KEY_MAX} bytes"));
        }
        Ok(key.to_string())
    }

    async fn storage(&self, action: &str, data: &Value, context: Option<&Value>) -> Reply {
        let (owner_type, owner) = self.owner(data, context).await?;
        let db = &self.state.db;
        let e = |e: crate::error::ApiError| e.english().to_string();
        match action {
            "set_binary_storage" => {
                let key = Self::key(data)?;
                let b64 = data["value_base64"].as_str().unwrap_or_default();
                if b64.len() > VALUE_MAX / 3 * 4 + 4 {
                    return Err(format!(
                        "Binary storage value exceeds the {VALUE_MAX}-byte limit"
                    ));
                }
                let value = base64::engine::general_purpose::STANDARD
                    .decode(b64)
                    .map_err(|_| "value_base64 is not valid base64".to_string())?;
                if value.len() > VALUE_MAX {
                    return Err(format!(
                        "Binary storage value exceeds the {VALUE_MAX}-byte limit"
                    ));
                }
                storage::set(db, &self.ws, &owner_type, &owner, &key, value)
                    .await
                    .map_err(e)?;
                Ok(json!({}))
            }
            "get_binary_storage" => {
                let key = Self::key(data)?;
                match storage::get(db, &self.ws, &owner_type, &owner, &key)
                    .await
                    .map_err(e)?
                {
                    Some(v) => Ok(
                        json!({"value_base64": base64::engine::general_purpose::STANDARD.encode(v)}),
                    ),
                    None => Err(format!("Storage with key {key} not found")),
                }
            }
            "get_binary_storage_keys" => {
                let keys = storage::keys(db, &self.ws, &owner_type, &owner)
                    .await
                    .map_err(e)?;
                Ok(json!({"keys": keys}))
            }
            _ => {
                let key = Self::key(data)?;
                storage::delete(db, &self.ws, &owner_type, &owner, &key)
                    .await
                    .map_err(e)?;
                Ok(json!({}))
            }
        }
    }

    async fn plugin_settings(&self, data: &Value) -> Reply {
        let author = field(data, "plugin_author")?;
        let name = field(data, "plugin_name")?;
        let row = service::get(&self.state.db, &self.ws, author, name)
            .await
            .map_err(|_| format!("Plugin {author}/{name} is not installed in this Workspace"))?;
        Ok(json!({
            "enabled": row.enabled,
            "priority": row.priority,
            "plugin_config": row.config,
            "install_source": row.install_source,
            "install_info": row.install_info,
            "installation_uuid": row.installation_uuid,
            "runtime_revision": row.runtime_revision,
            "artifact_digest": row.artifact_digest,
        }))
    }

    fn bot_json(&self, row: &crate::entities::bot::Model) -> Value {
        json!({
            "uuid": row.uuid,
            "workspace_uuid": row.workspace_uuid,
            "name": row.name,
            "description": row.description,
            "adapter": row.adapter,
            "enable": row.enable,
            "event_bindings": row.event_bindings,
            "created_at": row.created_at.to_rfc3339(),
            "updated_at": row.updated_at.to_rfc3339(),
        })
    }

    async fn bot(&self, data: &Value) -> Result<crate::entities::bot::Model, String> {
        let id = field(data, "bot_uuid")?;
        let missing = || format!("Bot with bot_uuid {id} not found");
        let uuid = Uuid::parse_str(id).map_err(|_| missing())?;
        crate::bots::service::get(&self.state.db, &self.ws, &uuid)
            .await
            .map_err(|_| missing())
    }

    /// A file of a `file`-typed config field, by the `file_key` the config holds.
    async fn config_file(&self, data: &Value) -> Reply {
        let key = field(data, "file_key")?;
        match super::config_files::read(&self.state, &self.ws, key).await {
            Ok(Some(bytes)) => {
                Ok(json!({"file_base64": base64::engine::general_purpose::STANDARD.encode(bytes)}))
            }
            Ok(None) => Err(format!("Config file {key} not found")),
            Err(e) => Err(e.english().to_string()),
        }
    }

    async fn send_message(&self, data: &Value) -> Reply {
        let bot = self.bot(data).await?;
        if !bot.enable {
            return Err(format!("Bot {} is disabled", bot.uuid));
        }
        let target_type = match data["target_type"].as_str() {
            Some("person") => crate::runtime::message::SessionType::Person,
            Some("group") => crate::runtime::message::SessionType::Group,
            _ => return Err("target_type must be person or group".into()),
        };
        let target = match &data["target_id"] {
            Value::String(s) if !s.is_empty() => s.clone(),
            Value::Number(n) => n.to_string(),
            _ => return Err("target_id is required".into()),
        };
        let mut segments = Vec::new();
        for c in data["message_chain"].as_array().into_iter().flatten() {
            let seg: crate::runtime::message::Segment = serde_json::from_value(json!({
                "type": c["type"], "text": c.get("text"), "url": c.get("url"), "base64": c.get("base64"),
                "target": c.get("target").map(|t| Value::String(t.to_string().trim_matches('"').to_string())),
            }))
            .map_err(|_| format!("message component {} is not supported by this host", c["type"]))?;
            segments.push(seg);
        }
        if segments.is_empty() {
            return Err("message_chain is empty".into());
        }
        if bot.adapter == crate::bots::adapters::HTTP_BOT {
            // http_bot has no platform to start a conversation on: its callback receives it.
            let session = crate::runtime::message::session_id(target_type, &target);
            crate::runtime::http_bot::send_proactive(&self.state, &bot, &session, segments).await?;
        } else {
            crate::runtime::adapters::send::to_platform(
                &self.state,
                &bot,
                target_type,
                &target,
                &segments,
            )
            .await
            .map_err(|e| e.message_in(crate::i18n::Language::EnUs))?;
        }
        Ok(json!({}))
    }

    async fn model(
        &self,
        kind: ModelKind,
        id: &str,
        what: &str,
    ) -> Result<
        (
            crate::entities::model::Model,
            crate::entities::provider::Model,
        ),
        String,
    > {
        let missing = || {
            format!(
                "{what} with {}_model_uuid {id} not found",
                what.to_lowercase().replace(' ', "_")
            )
        };
        let uuid = Uuid::parse_str(id).map_err(|_| missing())?;
        let model = models::get(&self.state.db, &self.ws, kind, &uuid)
            .await
            .map_err(|_| missing())?;
        let provider = providers::get(
            &self.state.db,
            &self.ws,
            &Uuid::parse_str(&model.provider_uuid).unwrap_or_default(),
        )
        .await
        .map_err(|_| format!("The provider of model {} is missing", model.name))?;
        Ok((model, provider))
    }

    /// The common part of `invoke_llm` and `invoke_llm_stream`: a checked request.
    async fn llm_request(
        &self,
        data: &Value,
    ) -> Result<(ChatRequest, crate::entities::provider::Model, Duration), String> {
        let id = field(data, "llm_model_uuid")?;
        let level = match data.get("reasoning_level") {
            None | Some(Value::Null) => None,
            Some(Value::String(l)) if reasoning::LEVELS.contains(&l.as_str()) => Some(l.clone()),
            Some(other) => return Err(format!("Unsupported reasoning level: {other}")),
        };
        let timeout = match data.get("timeout") {
            None | Some(Value::Null) => LLM_TIMEOUT,
            Some(t) => match t.as_f64() {
                Some(s) if s > 0.0 && s <= 3600.0 => Duration::from_secs_f64(s),
                _ => return Err("timeout must be a number of seconds in (0, 3600]".into()),
            },
        };
        let extra = match data.get("extra_args") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => return Err("extra_args must be an object".into()),
        };
        let (model, provider) = self.model(ModelKind::Llm, id, "LLM model").await?;
        let mut messages = Vec::new();
        for (i, m) in data["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            messages.push(message_in(m).map_err(|e| format!("messages[{i}]: {e}"))?);
        }
        if messages.is_empty() {
            return Err("messages must not be empty".into());
        }
        let func_call = model
            .abilities
            .as_array()
            .is_some_and(|a| a.iter().any(|v| v == "func_call"));
        let mut tools = Vec::new();
        for (i, f) in data["funcs"].as_array().into_iter().flatten().enumerate() {
            let name = f["name"].as_str().filter(|n| !n.is_empty());
            let Some(name) = name else {
                return Err(format!("funcs[{i}]: name is required"));
            };
            if !f["parameters"].is_object() {
                return Err(format!(
                    "funcs[{i}]: parameters must be a JSON Schema object"
                ));
            }
            tools.push(ToolSpec {
                name: name.into(),
                description: f["description"].as_str().unwrap_or_default().into(),
                parameters: f["parameters"].clone(),
            });
        }
        // Model-level extra args under the call's; the call's level over both.
        let mut merged = model.extra_args.as_object().cloned().unwrap_or_default();
        merged.extend(extra);
        match level {
            Some(level) => {
                let reasoning_ability = model
                    .abilities
                    .as_array()
                    .is_some_and(|a| a.iter().any(|v| v == "reasoning"));
                let available = reasoning::levels_for(reasoning_ability);
                if !available.contains(&level.as_str()) {
                    return Err(format!(
                        "Reasoning level \"{level}\" is not supported by model {}. Available levels: {}",
                        model.name,
                        available.join(", ")
                    ));
                }
                let conflicts = reasoning::conflicts(&merged);
                if level != "provider_default" && !conflicts.is_empty() {
                    return Err(format!(
                        "reasoning_config conflicts with advanced parameters: {}",
                        conflicts.join(", ")
                    ));
                }
                merged.insert("reasoning_config".into(), json!({ "level": level }));
            }
            None => reasoning::with_model_config(&mut merged, &model.reasoning_config),
        }
        Ok((
            ChatRequest {
                model: model.name.clone(),
                messages,
                tools: if func_call { tools } else { Vec::new() },
                extra: merged,
            },
            provider,
            timeout,
        ))
    }

    async fn invoke_llm(&self, data: &Value) -> Reply {
        let (request, provider, timeout) = self.llm_request(data).await?;
        let keys = providers::secrets_of(&provider);
        let ep = providers::endpoint(&provider);
        let response = tokio::time::timeout(timeout, llm::chat(&self.state.http, &ep, &request))
            .await
            .map_err(|_| format!("The model did not answer within {} s", timeout.as_secs()))?
            .map_err(|e| crate::forms::secrets::scrub(&e.message, &keys))?;
        Ok(json!({"message": message_out(&response.message), "usage": response.usage}))
    }

    async fn invoke_llm_stream(&self, data: &Value) -> Answer {
        let (request, provider, _) = match self.llm_request(data).await {
            Ok(r) => r,
            Err(e) => return Answer::Unary(Err(e)),
        };
        let keys = providers::secrets_of(&provider);
        let ep = providers::endpoint(&provider);
        let stream = match llm::chat_stream(&self.state.http, &ep, &request).await {
            Ok(s) => s,
            Err(e) => return Answer::Unary(Err(crate::forms::secrets::scrub(&e.message, &keys))),
        };
        let mut all = String::new();
        let mut sequence = 0u64;
        let chunks = stream.flat_map(move |event| {
            sequence += 1;
            let out: Vec<Result<Value, String>> = match event {
                Ok(StreamEvent::Content(delta)) => {
                    all.push_str(&delta);
                    vec![Ok(json!({"chunk": {"role": "assistant", "content": delta,
                        "all_content": all, "is_final": false, "msg_sequence": sequence}}))]
                }
                Ok(StreamEvent::Done { message, usage, .. }) => {
                    let mut last = message_out(&message);
                    last["content"] = json!("");
                    last["all_content"] = json!(all);
                    last["is_final"] = json!(true);
                    last["msg_sequence"] = json!(sequence);
                    vec![Ok(json!({"chunk": last})), Ok(json!({"usage": usage}))]
                }
                Err(e) => vec![Err(crate::forms::secrets::scrub(&e.message, &keys))],
            };
            futures_util::stream::iter(out)
        });
        Answer::Stream(chunks.boxed())
    }

    async fn embedding(&self, data: &Value) -> Reply {
        let id = field(data, "embedding_model_uuid")?;
        let texts: Vec<String> = data["texts"]
            .as_array()
            .ok_or("texts must be a list of strings")?
            .iter()
            .map(|t| {
                t.as_str()
                    .map(str::to_string)
                    .ok_or("texts must be a list of strings")
            })
            .collect::<Result<_, _>>()?;
        let (model, provider) = self
            .model(ModelKind::Embedding, id, "Embedding model")
            .await?;
        let keys = providers::secrets_of(&provider);
        let extra = model.extra_args.as_object().cloned().unwrap_or_default();
        let vectors = llm::embed(
            &self.state.http,
            &providers::endpoint(&provider),
            &model.name,
            &texts,
            &extra,
        )
        .await
        .map_err(|e| crate::forms::secrets::scrub(&e.message, &keys))?;
        Ok(json!({"vectors": vectors}))
    }

    async fn rerank(&self, data: &Value) -> Reply {
        let id = field(data, "rerank_model_uuid")?;
        let query = data["query"].as_str().ok_or("query is required")?;
        let documents: Vec<String> = data["documents"]
            .as_array()
            .ok_or("documents must be a list of strings")?
            .iter()
            .map(|t| {
                t.as_str()
                    .map(str::to_string)
                    .ok_or("documents must be a list of strings")
            })
            .collect::<Result<_, _>>()?;
        let (model, provider) = self.model(ModelKind::Rerank, id, "Rerank model").await?;
        let keys = providers::secrets_of(&provider);
        let mut extra = model.extra_args.as_object().cloned().unwrap_or_default();
        if let Some(m) = data["extra_args"].as_object() {
            extra.extend(m.clone());
        }
        let mut hits = llm::rerank(
            &self.state.http,
            &providers::endpoint(&provider),
            &model.name,
            query,
            &documents,
            &extra,
        )
        .await
        .map_err(|e| crate::forms::secrets::scrub(&e.message, &keys))?;
        if let Some(k) = data["top_k"].as_u64() {
            hits.truncate(usize::try_from(k).unwrap_or(usize::MAX));
        }
        Ok(json!({"results": hits}))
    }

    /// `get_tool_detail` / `call_tool`: every tool source of the Workspace (no pipeline).
    async fn tools(&self, action: &str, data: &Value) -> Reply {
        let name = field(data, "tool_name")?;
        let set = crate::tools::ToolSet::resolve(
            &self.state,
            &self.ws,
            &crate::pipelines::dto::ExtensionsPreferences::default(),
        )
        .await
        .map_err(|e| e.english().to_string())?;
        let Some(tool) = set.offered().into_iter().find(|t| t.name == name) else {
            return Err(format!("Tool {name} not found"));
        };
        if action == "get_tool_detail" {
            return Ok(
                json!({"tool": {"name": tool.name, "description": tool.description,
                "human_desc": tool.description, "parameters": tool.parameters}}),
            );
        }
        let params = data
            .get("tool_parameters")
            .or_else(|| data.get("parameters"))
            .cloned()
            .unwrap_or_else(|| json!({}));
        let call = crate::tools::CallCtx::from_plugin(data);
        let run = set.call(name, &params.to_string(), &call).await;
        if run.ok {
            let result =
                serde_json::from_str::<Value>(&run.text).unwrap_or(Value::String(run.text));
            Ok(json!({"tool_response": result}))
        } else {
            Err(format!("Failed to execute tool {name}: {}", run.text))
        }
    }
}

/// A plugin's `Message` as a chat message (text content only).
fn message_in(m: &Value) -> Result<ChatMessage, String> {
    let role = m["role"].as_str().ok_or("role is required")?;
    if !matches!(role, "user" | "system" | "assistant" | "tool") {
        return Err(format!("role {role} is not supported by this host"));
    }
    let content = match &m["content"] {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => {
            let mut text = Vec::new();
            for item in items {
                match item["type"].as_str() {
                    Some("text") => {
                        text.push(item["text"].as_str().unwrap_or_default().to_string())
                    }
                    other => {
                        return Err(format!(
                            "content of type {} is not supported by this host",
                            other.unwrap_or("?")
                        ))
                    }
                }
            }
            Some(text.join("\n"))
        }
        _ => return Err("content must be text, a list of content elements or null".into()),
    };
    let tool_calls = match m.get("tool_calls") {
        None | Some(Value::Null) => None,
        Some(v) => Some(serde_json::from_value(v.clone()).map_err(|e| format!("tool_calls: {e}"))?),
    };
    Ok(ChatMessage {
        role: role.into(),
        content,
        tool_calls,
        tool_call_id: m["tool_call_id"].as_str().map(str::to_string),
        images: Vec::new(),
    })
}

fn message_out(m: &ChatMessage) -> Value {
    let mut v = json!({"role": m.role, "content": m.content});
    if let Some(calls) = &m.tool_calls {
        v["tool_calls"] = json!(calls);
    }
    v
}

#[async_trait::async_trait]
impl Host for PluginHost {
    async fn handle(&self, action: &str, data: Value, context: Option<Value>) -> Answer {
        if let Err(e) = self.check_context(context.as_ref()) {
            return Answer::Unary(Err(e));
        }
        let ctx = context.as_ref();
        let reply = match action {
            "get_plugin_settings" => self.plugin_settings(&data).await,
            "set_binary_storage" | "get_binary_storage" | "get_binary_storage_keys"
            | "delete_binary_storage" => self.storage(action, &data, ctx).await,
            "get_config_file" => self.config_file(&data).await,
            "get_langbot_version" => Ok(json!({
                "version": format!("v{}", env!("CARGO_PKG_VERSION")),
                "api_features": ["llm.reasoning_level"],
            })),
            "get_bots" => crate::bots::service::list(&self.state.db, &self.ws)
                .await
                .map(|rows| json!({"bots": rows.iter().map(|r| self.bot_json(r)).collect::<Vec<_>>()}))
                .map_err(|e| e.english().to_string()),
            "get_bot_info" => match self.bot(&data).await {
                Ok(row) => {
                    let mut bot = self.bot_json(&row);
                    let values = crate::bots::service::runtime_values(&self.state, &row).await;
                    bot["adapter_runtime_values"] = json!(values);
                    Ok(json!({"bot": bot}))
                }
                Err(e) => Err(e),
            },
            "send_message" => self.send_message(&data).await,
            "get_llm_models" => models::list(&self.state.db, &self.ws, ModelKind::Llm, None)
                .await
                .map(|rows| json!({"llm_models": rows.into_iter().map(|m| m.uuid).collect::<Vec<_>>()}))
                .map_err(|e| e.english().to_string()),
            "invoke_llm" => self.invoke_llm(&data).await,
            "invoke_llm_stream" => return self.invoke_llm_stream(&data).await,
            "invoke_embedding" => self.embedding(&data).await,
            "invoke_rerank" => self.rerank(&data).await,
            "get_tool_detail" | "call_tool" => self.tools(action, &data).await,
            other => Err(unsupported(other)),
        };
        Answer::Unary(reply)
    }
}

/// The error for an action this host does not offer.
pub fn unsupported(action: &str) -> String {
    match UNSUPPORTED
        .iter()
        .find(|(prefix, _)| action.starts_with(prefix))
    {
        Some((_, what)) => format!("{action}: {what} are not supported by this host"),
        None => format!("Action {action} is not supported by this host"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsupported_actions_say_why() {
        assert!(unsupported("vector_upsert").contains("vector stores are not supported"));
        assert!(unsupported("list_parsers").contains("parsers"));
        assert!(unsupported("reply_message").contains("not supported by this host"));
    }

    #[test]
    fn messages_convert_both_ways() {
        let m = message_in(
            &json!({"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}),
        );
        assert_eq!(m.map(|m| m.content), Ok(Some("a\nb".into())));
        assert!(message_in(&json!({"role": "user", "content": [{"type": "image_url"}]})).is_err());
        assert!(message_in(&json!({"role": "command", "content": "x"})).is_err());
        let out = message_out(&ChatMessage::text("assistant", "hi"));
        assert_eq!(out, json!({"role": "assistant", "content": "hi"}));
    }
}
