//! The route engine: one pure function from (event, routes, bot account id) to a decision with
//! per-route diagnostics. The runtime and the dry-run both use it.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::routes::{Filter, Operator, Route, TargetType, MESSAGE_RECEIVED};

/// Why a route did or did not win.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Selected,
    BindingDisabled,
    EventPatternMismatch,
    ProcessorIncompatible,
    FiltersMismatch,
    LowerPriority,
}

/// The evaluation of one route.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Step {
    pub step: &'static str,
    pub index: usize,
    pub binding_id: String,
    pub event_pattern: String,
    pub target_type: TargetType,
    pub target_uuid: String,
    pub enabled: bool,
    pub priority: i64,
    pub order: i64,
    pub matched: bool,
    pub selected: bool,
    /// Absent for the selected route.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_code: Option<Verdict>,
    /// The first filter that failed (`filters_mismatch`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_filter: Option<usize>,
    pub reason: String,
}

/// What the engine decided.
#[derive(Debug, Clone)]
pub struct Decision {
    /// The index of the one route that fires.
    pub selected: Option<usize>,
    pub steps: Vec<Step>,
}

/// `*`, `ns.*` or an exact match.
pub fn pattern_matches(pattern: &str, event_type: &str) -> bool {
    if pattern == "*" {
        return !event_type.is_empty();
    }
    match pattern.strip_suffix(".*") {
        Some(ns) => {
            event_type.len() > ns.len() + 1
                && event_type.starts_with(ns)
                && event_type.as_bytes()[ns.len()] == b'.'
        }
        None => pattern == event_type,
    }
}

/// Adds the computed fields to a `message.received` event: `message_text`,
/// `message_element_types`, `chat_type` (when the event has a `group` key) and `is_at_bot`
/// (when the bot's account id is known).
pub fn augment(event: &Value, bot_account_id: Option<&str>) -> Value {
    augment_for(event, bot_account_id.as_slice())
}

/// `augment` for a bot known by several ids (an http_bot: `http_bot` and its uuid): an `At`
/// targeting any of them mentions it; with none, `is_at_bot` is absent.
pub fn augment_for(event: &Value, bot_ids: &[&str]) -> Value {
    let mut out = event.clone();
    let Some(map) = out.as_object_mut() else {
        return out;
    };
    let chain: Vec<Value> = event["message_chain"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let text: String = chain
        .iter()
        .filter(|c| c["type"] == "Plain")
        .filter_map(|c| c["text"].as_str())
        .collect();
    map.insert("message_text".into(), Value::String(text));
    map.insert(
        "message_element_types".into(),
        Value::Array(
            chain
                .iter()
                .filter_map(|c| c["type"].as_str())
                .map(|t| Value::String(t.into()))
                .collect(),
        ),
    );
    if event.get("group").is_some() {
        let kind = if event["group"].is_null() {
            "person"
        } else {
            "group"
        };
        map.insert("chat_type".into(), Value::String(kind.into()));
    }
    if !bot_ids.is_empty() {
        let at = chain.iter().any(|c| {
            c["type"] == "At"
                && match &c["target"] {
                    Value::String(s) => bot_ids.contains(&s.as_str()),
                    Value::Number(n) => bot_ids.contains(&n.to_string().as_str()),
                    _ => false,
                }
        });
        map.insert("is_at_bot".into(), Value::Bool(at));
    }
    out
}

/// The value at a dot path (`sender.id`, `message_chain.0.type`); missing → null.
pub fn resolve<'a>(event: &'a Value, path: &str) -> &'a Value {
    path.split('.')
        .try_fold(event, |v, seg| match v {
            Value::Object(m) => m.get(seg),
            Value::Array(a) => seg.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        })
        .unwrap_or(&Value::Null)
}

fn as_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn contains(actual: &Value, expected: &Value) -> bool {
    match actual {
        Value::Array(items) => items.contains(expected),
        _ => as_text(actual).contains(&as_text(expected)),
    }
}

/// Whether one filter passes.
pub fn filter_matches(filter: &Filter, event: &Value) -> bool {
    let actual = resolve(event, &filter.field);
    let expected = &filter.value;
    match filter.operator {
        Operator::Eq => actual == expected,
        Operator::Neq => actual != expected,
        Operator::Contains => contains(actual, expected),
        Operator::NotContains => !contains(actual, expected),
        Operator::StartsWith => as_text(actual).starts_with(&as_text(expected)),
        Operator::Regex => {
            regex::Regex::new(&as_text(expected)).is_ok_and(|re| re.is_match(&as_text(actual)))
        }
    }
}

/// Evaluates `routes` for an event (already `augment`ed): exactly one route fires — the
/// highest priority, then the earliest — or none.
pub fn evaluate(event_type: &str, event: &Value, routes: &[Route]) -> Decision {
    let mut steps: Vec<Step> = routes
        .iter()
        .enumerate()
        .map(|(index, r)| {
            let mut failed_filter = None;
            let verdict = if !r.enabled {
                Some((
                    Verdict::BindingDisabled,
                    "The route is disabled".to_string(),
                ))
            } else if !pattern_matches(&r.event_pattern, event_type) {
                Some((
                    Verdict::EventPatternMismatch,
                    format!("{event_type} does not match {}", r.event_pattern),
                ))
            } else if r.target_type == TargetType::Pipeline && event_type != MESSAGE_RECEIVED {
                Some((
                    Verdict::ProcessorIncompatible,
                    "Pipelines only take message.received".to_string(),
                ))
            } else if let Some(j) = r.filters.iter().position(|f| !filter_matches(f, event)) {
                failed_filter = Some(j);
                let f = &r.filters[j];
                Some((
                    Verdict::FiltersMismatch,
                    format!(
                        "Filter {} ({} {:?}) did not match",
                        j + 1,
                        f.field,
                        f.operator
                    ),
                ))
            } else {
                None
            };
            Step {
                step: "evaluate_binding",
                index,
                binding_id: r.id.clone(),
                event_pattern: r.event_pattern.clone(),
                target_type: r.target_type,
                target_uuid: r.target_uuid.clone(),
                enabled: r.enabled,
                priority: r.priority,
                order: r.order,
                matched: verdict.is_none(),
                selected: false,
                failure_code: verdict.as_ref().map(|v| v.0),
                failed_filter,
                reason: verdict.map(|v| v.1).unwrap_or_else(|| "Matched".into()),
            }
        })
        .collect();
    // Highest priority wins; among equals, the earliest position.
    let selected = steps
        .iter()
        .filter(|s| s.matched)
        .max_by(|a, b| a.priority.cmp(&b.priority).then(b.index.cmp(&a.index)))
        .map(|s| s.index);
    for s in steps.iter_mut().filter(|s| s.matched) {
        if Some(s.index) == selected {
            s.selected = true;
            s.reason = "Selected".into();
        } else {
            s.failure_code = Some(Verdict::LowerPriority);
            s.reason = "Matched, but another route takes precedence".into();
        }
    }
    Decision { selected, steps }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::routes::default_routes;
    use serde_json::json;

    fn group_event(at: Option<&str>, text: &str) -> Value {
        let mut chain = vec![json!({"type": "Plain", "text": text})];
        if let Some(t) = at {
            chain.insert(0, json!({"type": "At", "target": t}));
        }
        json!({"type": "message.received", "group": {"id": "g1"}, "sender": {"id": "u1"}, "message_chain": chain})
    }

    #[test]
    fn default_routes_answer_private_chats_and_mentions_only() {
        let routes = default_routes("p");
        let private = augment(
            &json!({"group": null, "message_chain": [{"type":"Plain","text":"hi"}]}),
            Some("bot"),
        );
        assert_eq!(
            evaluate(MESSAGE_RECEIVED, &private, &routes).selected,
            Some(0)
        );
        let mention = augment(&group_event(Some("bot"), "hi"), Some("bot"));
        assert_eq!(
            evaluate(MESSAGE_RECEIVED, &mention, &routes).selected,
            Some(1)
        );
        let plain = augment(&group_event(None, "hi"), Some("bot"));
        let d = evaluate(MESSAGE_RECEIVED, &plain, &routes);
        assert_eq!(d.selected, None);
        assert_eq!(d.steps[1].failed_filter, Some(1));
        // Without a known account id, is_at_bot is absent and `eq true` fails.
        let unknown = augment(&group_event(Some("bot"), "hi"), None);
        assert_eq!(evaluate(MESSAGE_RECEIVED, &unknown, &routes).selected, None);
    }

    #[test]
    fn patterns() {
        assert!(pattern_matches("*", "message.received"));
        assert!(pattern_matches("message.*", "message.received"));
        assert!(!pattern_matches("message.*", "messages.x"));
        assert!(!pattern_matches("message.*", "message"));
        assert!(pattern_matches(
            "group.member_joined",
            "group.member_joined"
        ));
        assert!(!pattern_matches("group.member_joined", "group.member_left"));
    }

    #[test]
    fn paths_and_missing_fields() {
        let e = json!({"sender": {"id": 5}, "list": [{"a": 1}]});
        assert_eq!(resolve(&e, "sender.id"), &json!(5));
        assert_eq!(resolve(&e, "list.0.a"), &json!(1));
        assert_eq!(resolve(&e, "nope.deeper"), &Value::Null);
    }
}
