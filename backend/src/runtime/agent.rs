//! The built-in `local-agent` runner: system prompt + conversation history + the user's
//! message, streamed through the primary model (falling back to the next model on failure),
//! with the function-calling loop over the run's tools.

use std::time::Instant;

use futures_util::StreamExt;
use serde_json::{json, Map, Value};
use tokio::sync::mpsc::UnboundedSender;
use uuid::Uuid;

use super::recorder::{self, LlmCallRecord, Scope};
use crate::access::WorkspaceCtx;
use crate::forms::secrets;
use crate::llm::{self, ChatMessage, ChatRequest, StreamEvent, Usage};
use crate::pipelines::config::{LocalAgentConfig, PromptRole};
use crate::providers::requesters::ModelKind;
use crate::providers::{models, service};
use crate::state::AppState;
use crate::tools::ToolSet;

/// The model's answer.
pub struct Answer {
    pub text: String,
    /// The images of the answer (`data:image/…` or http(s) URLs).
    pub images: Vec<String>,
}

fn role(r: PromptRole) -> &'static str {
    match r {
        PromptRole::System => "system",
        PromptRole::User => "user",
        PromptRole::Assistant => "assistant",
    }
}

/// One question to the agent.
pub struct Ask<'a> {
    pub ws: &'a WorkspaceCtx,
    pub scope: &'a Scope,
    pub config: &'a LocalAgentConfig,
    pub history: &'a [ChatMessage],
    pub user: &'a ChatMessage,
    pub message_id: &'a str,
    pub deltas: Option<&'a UnboundedSender<String>>,
    /// The tools this run may call (offered to models with the `func_call` ability).
    pub tools: &'a ToolSet,
}

/// A configured model and its provider.
struct Candidate {
    model: crate::entities::model::Model,
    provider: crate::entities::provider::Model,
    func_call: bool,
}

/// A tool result goes back to the model at most this long.
const TOOL_RESULT_MAX: usize = 20_000;

/// Runs the agent: the model answers, calling tools for up to `max-tool-rounds` rounds
/// (the calls of one answer side by side), then is asked for its final answer without tools.
/// Each model call falls back to the next configured model on failure; `Err` is the last error.
pub async fn answer(state: &AppState, ask: Ask<'_>) -> Result<Answer, String> {
    let Ask {
        ws,
        scope,
        config,
        history,
        user,
        message_id,
        deltas,
        tools,
    } = ask;
    let mut uuids: Vec<&str> = Vec::new();
    if !config.model.primary.is_empty() {
        uuids.push(&config.model.primary);
    }
    uuids.extend(config.model.fallbacks.iter().map(String::as_str));
    if uuids.is_empty() {
        return Err("No model is configured for this pipeline".into());
    }
    let mut last_error = String::from("No model answered");
    let mut candidates = Vec::new();
    for uuid in uuids {
        let id = Uuid::parse_str(uuid).unwrap_or_default();
        let Ok(model) = models::get(&state.db, ws, ModelKind::Llm, &id).await else {
            last_error = format!("Model {uuid} is not configured in this Workspace");
            continue;
        };
        let Ok(provider) = service::get(
            &state.db,
            ws,
            &Uuid::parse_str(&model.provider_uuid).unwrap_or_default(),
        )
        .await
        else {
            last_error = format!("The provider of model {} is missing", model.name);
            continue;
        };
        let func_call = model
            .abilities
            .as_array()
            .is_some_and(|a| a.iter().any(|v| v == "func_call"));
        candidates.push(Candidate {
            model,
            provider,
            func_call,
        });
    }
    if candidates.is_empty() {
        return Err(last_error);
    }
    let mut messages: Vec<ChatMessage> = config
        .prompt
        .iter()
        .map(|p| ChatMessage::text(role(p.role), p.content.clone()))
        .collect();
    messages.extend(history.iter().cloned());
    messages.push(user.clone());
    let mut rounds = 0;
    loop {
        let offer = rounds < config.max_tool_rounds && !tools.is_empty();
        let reply = ask_models(
            state,
            scope,
            &candidates,
            &messages,
            offer.then_some(tools),
            message_id,
            deltas,
        )
        .await?;
        let calls = reply.tool_calls.clone().unwrap_or_default();
        if calls.is_empty() || !offer {
            return Ok(Answer {
                text: reply.content.unwrap_or_default(),
                images: reply.images,
            });
        }
        rounds += 1;
        messages.push(ChatMessage {
            role: "assistant".into(),
            content: reply.content.filter(|c| !c.is_empty()),
            tool_calls: Some(calls.clone()),
            tool_call_id: None,
            images: Vec::new(),
        });
        let names: Vec<&str> = calls.iter().map(|c| c.function.name.as_str()).collect();
        recorder::progress(
            &state.db,
            scope,
            &format!("calling tool {}", names.join(", ")),
        )
        .await;
        recorder::notify(state.store.as_ref(), &scope.workspace).await;
        let ctx =
            crate::tools::CallCtx::of_run(&scope.session_id, &scope.bot_id, &scope.execution_id);
        let runs = futures_util::future::join_all(
            calls
                .iter()
                .map(|c| tools.call(&c.function.name, &c.function.arguments, &ctx)),
        )
        .await;
        for (call, run) in calls.iter().zip(runs) {
            recorder::tool_call(&state.db, scope, &run, message_id).await;
            let content = if run.ok {
                recorder::truncated(&run.text, TOOL_RESULT_MAX)
            } else {
                format!("Error: {}", recorder::truncated(&run.text, TOOL_RESULT_MAX))
            };
            messages.push(ChatMessage {
                role: "tool".into(),
                content: Some(content),
                tool_calls: None,
                images: Vec::new(),
                tool_call_id: Some(call.id.clone()),
            });
        }
        recorder::progress(&state.db, scope, "ai").await;
        recorder::notify(state.store.as_ref(), &scope.workspace).await;
    }
}

/// One model call, through the candidates in order until one answers; each attempt recorded.
async fn ask_models(
    state: &AppState,
    scope: &Scope,
    candidates: &[Candidate],
    messages: &[ChatMessage],
    tools: Option<&ToolSet>,
    message_id: &str,
    deltas: Option<&UnboundedSender<String>>,
) -> Result<ChatMessage, String> {
    let mut last_error = String::from("No model answered");
    for Candidate {
        model,
        provider,
        func_call,
    } in candidates
    {
        let request = ChatRequest {
            model: model.name.clone(),
            messages: messages.to_vec(),
            tools: match tools {
                Some(t) if *func_call => t.specs(),
                _ => Vec::new(),
            },
            extra: {
                let mut extra = model.extra_args.as_object().cloned().unwrap_or_default();
                llm::reasoning::with_model_config(&mut extra, &model.reasoning_config);
                extra
            },
        };
        let keys = service::secrets_of(provider);
        match call(state, provider, &request, deltas).await {
            Ok((message, usage, timing)) => {
                recorder::llm_call(
                    &state.db,
                    scope,
                    LlmCallRecord {
                        model_name: &model.name,
                        model_uuid: &model.uuid,
                        usage,
                        duration_ms: timing["total_ms"].as_i64().unwrap_or(0),
                        error: None,
                        message_id: Some(message_id),
                        details: json!({ "timing": timing, "usage": usage, "error": Value::Null,
                                         "tool_calls": message.tool_calls.as_ref().map_or(0, Vec::len) }),
                    },
                )
                .await;
                return Ok(message);
            }
            Err((err, timing)) => {
                let message = secrets::scrub(&err.message, &keys);
                recorder::llm_call(
                    &state.db,
                    scope,
                    LlmCallRecord {
                        model_name: &model.name,
                        model_uuid: &model.uuid,
                        usage: Usage::default(),
                        duration_ms: timing["total_ms"].as_i64().unwrap_or(0),
                        error: Some((err.code.as_str(), message.clone())),
                        message_id: Some(message_id),
                        details: json!({ "timing": timing, "usage": Value::Null,
                                         "error": { "code": err.code.as_str(), "status": err.status, "message": message } }),
                    },
                )
                .await;
                last_error = format!("{} ({}): {message}", model.name, err.code.as_str());
                tracing::warn!(model = %model.name, error.code = err.code.as_str(), "model call failed; trying the next model");
            }
        }
    }
    Err(last_error)
}

type CallResult =
    Result<(ChatMessage, Usage, Map<String, Value>), (llm::UpstreamError, Map<String, Value>)>;

/// One streamed call, with its timing (`first_event_ms`, `first_content_ms`, `total_ms`).
async fn call(
    state: &AppState,
    provider: &crate::entities::provider::Model,
    request: &ChatRequest,
    deltas: Option<&UnboundedSender<String>>,
) -> CallResult {
    let started = Instant::now();
    let ms = |t: Instant| json!(u64::try_from(t.elapsed().as_millis()).unwrap_or(u64::MAX));
    let mut timing = Map::new();
    let endpoint = service::endpoint(provider);
    let mut stream = match llm::chat_stream(&state.http, &endpoint, request).await {
        Ok(s) => s,
        Err(e) => {
            timing.insert("total_ms".into(), ms(started));
            return Err((e, timing));
        }
    };
    let mut text = String::new();
    while let Some(event) = stream.next().await {
        if !timing.contains_key("first_event_ms") {
            timing.insert("first_event_ms".into(), ms(started));
        }
        match event {
            Ok(StreamEvent::Content(delta)) => {
                if text.is_empty() {
                    timing.insert("first_content_ms".into(), ms(started));
                }
                text.push_str(&delta);
                if let Some(tx) = deltas {
                    let _ = tx.send(delta);
                }
            }
            Ok(StreamEvent::Done { message, usage, .. }) => {
                timing.insert("total_ms".into(), ms(started));
                let mut message = message;
                if message.content.as_deref().is_none_or(str::is_empty) {
                    message.content = Some(text);
                }
                return Ok((message, usage, timing));
            }
            Err(e) => {
                timing.insert("total_ms".into(), ms(started));
                return Err((e, timing));
            }
        }
    }
    timing.insert("total_ms".into(), ms(started));
    Ok((
        ChatMessage::text("assistant", text),
        Usage::default(),
        timing,
    ))
}
