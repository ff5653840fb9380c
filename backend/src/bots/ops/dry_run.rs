//! `POST /platform/bots/{bot_uuid}/event-routes/dry-run`: route a hypothetical event.

use serde_json::Value;
use uuid::Uuid;

use super::BotPath;
use crate::access::{Permission, RequestCtx};
use crate::bots::dto::{DryRunRequest, DryRunResult, DryRunTarget};
use crate::bots::engine;
use crate::bots::routes::{self, TargetType};
use crate::bots::service;
use crate::catalog::{Input, NoParams, OpMeta, Operation};
use crate::error::ApiResult;
use crate::state::AppState;

pub struct DryRunBotEventRoute;

impl Operation for DryRunBotEventRoute {
    const META: OpMeta = OpMeta::post(
        "dry_run_bot_event_route",
        "/platform/bots/{bot_uuid}/event-routes/dry-run",
    )
    .tag("bots")
    .summary("Which route an event would take, with per-route diagnostics")
    .description("Uses the saved routes, or `event_bindings` as a draft. Nothing runs.")
    .permission(Permission::ResourceView);
    type Path = BotPath;
    type Query = NoParams;
    type Body = DryRunRequest;
    type Output = DryRunResult;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<BotPath, NoParams, DryRunRequest>,
    ) -> ApiResult<DryRunResult> {
        let ws = ctx.workspace()?;
        let bot = service::get(&state.db, ws, &input.path.bot_uuid).await?;
        let body = input.body;
        let routes = match body.event_bindings {
            Some(draft) => routes::normalize(draft, "event_bindings")?,
            None => service::stored_routes(&bot),
        };
        let mut event = body.event_data.or(body.payload).unwrap_or_default();
        event.insert("type".into(), Value::String(body.event_type.clone()));
        let context = body.context.unwrap_or_default();
        let account = context
            .get("bot_account_id")
            .or_else(|| event.get("bot_account_id"))
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string())
            });
        event.insert("context".into(), Value::Object(context));
        let event = engine::augment(&Value::Object(event), account.as_deref());
        let decision = engine::evaluate(&body.event_type, &event, &routes);
        let steps: Vec<String> = decision
            .steps
            .iter()
            .map(|s| {
                let verb = if s.selected {
                    "selected"
                } else if s.matched {
                    "matched"
                } else {
                    "skipped"
                };
                format!(
                    "Route {} ({}) {verb}: {}",
                    s.index + 1,
                    s.event_pattern,
                    s.reason
                )
            })
            .collect();
        let mut result = DryRunResult {
            matched: false,
            binding_id: None,
            matched_binding_id: None,
            matched_binding_index: None,
            event_pattern: None,
            target_type: None,
            target_uuid: None,
            target: None,
            reason: "No event route matched".into(),
            failure_code: Some("route_not_found".into()),
            diagnostic_steps: steps,
            diagnostic_details: decision.steps,
        };
        let Some(index) = decision.selected else {
            return Ok(result);
        };
        let route = &routes[index];
        result.matched = true;
        result.binding_id = Some(route.id.clone());
        result.matched_binding_id = Some(route.id.clone());
        result.matched_binding_index = Some(index);
        result.event_pattern = Some(route.event_pattern.clone());
        result.target_type = Some(route.target_type);
        result.failure_code = None;
        match route.target_type {
            TargetType::Discard => {
                result.reason = "Event route matched discard target".into();
                result.target = Some(DryRunTarget {
                    target_type: TargetType::Discard,
                    target_uuid: None,
                    target_name: None,
                    kind: "discard",
                });
            }
            TargetType::Pipeline => {
                result.target_uuid = Some(route.target_uuid.clone());
                let uuid = Uuid::parse_str(&route.target_uuid).unwrap_or_default();
                match crate::pipelines::service::get(&state.db, ws, &uuid).await {
                    Ok(p) => {
                        result.reason = "Event route matched pipeline target".into();
                        result.target = Some(DryRunTarget {
                            target_type: TargetType::Pipeline,
                            target_uuid: Some(p.uuid),
                            target_name: Some(p.name),
                            kind: "pipeline",
                        });
                    }
                    Err(_) => {
                        result.matched = false;
                        result.reason = format!("Pipeline {} not found", route.target_uuid);
                        result.failure_code = Some("processor_not_found".into());
                    }
                }
                result.diagnostic_steps.push(format!(
                    "Validate pipeline {}: {}",
                    route.target_uuid, result.reason
                ));
            }
        }
        Ok(result)
    }
}
