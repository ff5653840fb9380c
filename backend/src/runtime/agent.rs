//! The built-in `local-agent` runner: system prompt + conversation history + the user's
//! message, streamed through the primary model, falling back to the next model on failure.

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

/// The model's answer.
pub struct Answer {
    pub text: String,
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
}

/// Asks the configured models in order; the first success wins. `Err` carries the last error.
pub async fn answer(state: &AppState, ask: Ask<'_>) -> Result<Answer, String> {
    let Ask {
        ws,
        scope,
        config,
        history,
        user,
        message_id,
        deltas,
    } = ask;
    let mut candidates: Vec<&str> = Vec::new();
    if !config.model.primary.is_empty() {
        candidates.push(&config.model.primary);
    }
    candidates.extend(config.model.fallbacks.iter().map(String::as_str));
    if candidates.is_empty() {
        return Err("No model is configured for this pipeline".into());
    }
    let mut messages: Vec<ChatMessage> = config
        .prompt
        .iter()
        .map(|p| ChatMessage::text(role(p.role), p.content.clone()))
        .collect();
    messages.extend(history.iter().cloned());
    messages.push(user.clone());
    let mut last_error = String::from("No model answered");
    for uuid in candidates {
        let Ok(model) = models::get(
            &state.db,
            ws,
            ModelKind::Llm,
            &Uuid::parse_str(uuid).unwrap_or_default(),
        )
        .await
        else {
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
        let request = ChatRequest {
            model: model.name.clone(),
            messages: messages.clone(),
            tools: Vec::new(),
            extra: model.extra_args.as_object().cloned().unwrap_or_default(),
        };
        let keys = service::secrets_of(&provider);
        match call(state, &provider, &request, deltas).await {
            Ok((text, usage, timing)) => {
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
                        details: json!({ "timing": timing, "usage": usage, "error": Value::Null }),
                    },
                )
                .await;
                return Ok(Answer { text });
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
    Result<(String, Usage, Map<String, Value>), (llm::UpstreamError, Map<String, Value>)>;

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
                let full = message.content.filter(|c| !c.is_empty()).unwrap_or(text);
                return Ok((full, usage, timing));
            }
            Err(e) => {
                timing.insert("total_ms".into(), ms(started));
                return Err((e, timing));
            }
        }
    }
    timing.insert("total_ms".into(), ms(started));
    Ok((text, Usage::default(), timing))
}
