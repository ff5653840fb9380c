//! Reasoning levels (LangBot's `reasoning_config` / a plugin's `reasoning_level`) turned into
//! each protocol's own request fields. The effective setting travels in the request's
//! `extra["reasoning_config"]` (a reserved key, never forwarded as is): the model's stored
//! config, unless `extra_args` or the call names its own.

use serde_json::{json, Map, Value};

/// Every level LangBot knows.
pub const LEVELS: &[&str] = &[
    "provider_default",
    "disabled",
    "enabled",
    "minimal",
    "low",
    "medium",
    "high",
    "xhigh",
    "max",
];

/// The levels a model with the `reasoning` ability offers (LangBot's manual capabilities);
/// without it only `provider_default`.
pub fn levels_for(reasoning: bool) -> Vec<&'static str> {
    if reasoning {
        vec![
            "provider_default",
            "disabled",
            "minimal",
            "low",
            "medium",
            "high",
        ]
    } else {
        vec!["provider_default"]
    }
}

/// `extra_args` keys that already steer reasoning; combining them with a level is refused.
const ADVANCED: &[&str] = &[
    "enable_thinking",
    "reasoning",
    "reasoning_effort",
    "thinking",
    "thinking_budget",
];

/// The advanced reasoning keys present in `extra` (top level or under `extra_body`).
pub fn conflicts(extra: &Map<String, Value>) -> Vec<String> {
    let body = extra.get("extra_body").and_then(Value::as_object);
    ADVANCED
        .iter()
        .filter_map(|k| {
            if extra.contains_key(*k) {
                Some((*k).to_string())
            } else if body.is_some_and(|b| b.contains_key(*k)) {
                Some(format!("extra_body.{k}"))
            } else {
                None
            }
        })
        .collect()
}

/// Puts the model's stored config into `extra` unless `extra_args` already names one.
pub fn with_model_config(extra: &mut Map<String, Value>, stored: &Value) {
    if stored.get("level").is_some() && !extra.contains_key("reasoning_config") {
        extra.insert("reasoning_config".into(), stored.clone());
    }
}

/// The effective `(level, budget_tokens)` of a request, `None` when it asks for nothing.
fn setting(extra: &Map<String, Value>) -> Option<(&str, Option<u64>)> {
    let config = extra.get("reasoning_config")?;
    let budget = config["budget_tokens"].as_u64().filter(|n| *n > 0);
    let level = config["level"]
        .as_str()
        .unwrap_or(if budget.is_some() { "enabled" } else { "" });
    (LEVELS.contains(&level) && level != "provider_default").then_some((level, budget))
}

/// A token budget for protocols that think in tokens (LangBot's Qwen budgets, widened).
fn budget_of(level: &str, budget: Option<u64>) -> u64 {
    budget.unwrap_or(match level {
        "minimal" | "low" | "enabled" => 1024,
        "medium" => 4096,
        "high" => 8192,
        "xhigh" => 16384,
        _ => 32768,
    })
}

/// OpenAI-compatible: `reasoning_effort` (`disabled` → `none`, `enabled` → `low`).
pub(super) fn openai(extra: &Map<String, Value>, body: &mut Map<String, Value>) {
    if let Some((level, _)) = setting(extra) {
        let effort = match level {
            "disabled" => "none",
            "enabled" => "low",
            other => other,
        };
        body.insert("reasoning_effort".into(), json!(effort));
    }
}

/// Anthropic Messages: `thinking`, with `max_tokens` kept above the budget as the API requires.
pub(super) fn anthropic(extra: &Map<String, Value>, body: &mut Map<String, Value>) {
    let Some((level, budget)) = setting(extra) else {
        return;
    };
    if level == "disabled" {
        body.insert("thinking".into(), json!({ "type": "disabled" }));
        return;
    }
    let budget = budget_of(level, budget);
    body.insert(
        "thinking".into(),
        json!({ "type": "enabled", "budget_tokens": budget }),
    );
    let max = body.get("max_tokens").and_then(Value::as_u64).unwrap_or(0);
    if max <= budget {
        body.insert("max_tokens".into(), json!(budget + 4096));
    }
}

/// Gemini: `generationConfig.thinkingConfig.thinkingBudget` (0 turns thinking off).
pub(super) fn gemini(extra: &Map<String, Value>, generation: &mut Map<String, Value>) {
    if let Some((level, budget)) = setting(extra) {
        let tokens = if level == "disabled" {
            0
        } else {
            budget_of(level, budget)
        };
        generation.insert("thinkingConfig".into(), json!({ "thinkingBudget": tokens }));
    }
}

/// Ollama: the top-level `think` switch.
pub(super) fn ollama(extra: &Map<String, Value>, body: &mut Map<String, Value>) {
    if let Some((level, _)) = setting(extra) {
        body.insert("think".into(), json!(level != "disabled"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extra(config: Value) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("reasoning_config".into(), config);
        m
    }

    #[test]
    fn each_protocol_gets_its_own_fields() {
        let mut body = Map::new();
        openai(&extra(json!({"level": "disabled"})), &mut body);
        assert_eq!(body["reasoning_effort"], "none");

        let mut body = Map::new();
        body.insert("max_tokens".into(), json!(4096));
        anthropic(&extra(json!({"level": "high"})), &mut body);
        assert_eq!(body["thinking"]["budget_tokens"], 8192);
        assert!(body["max_tokens"].as_u64() > Some(8192));

        let mut generation = Map::new();
        gemini(&extra(json!({"budget_tokens": 2000})), &mut generation);
        assert_eq!(generation["thinkingConfig"]["thinkingBudget"], 2000);

        let mut body = Map::new();
        ollama(&extra(json!({"level": "provider_default"})), &mut body);
        assert!(body.is_empty(), "provider_default adds nothing");
    }

    #[test]
    fn the_model_config_yields_to_extra_args() {
        let mut e = extra(json!({"level": "low"}));
        with_model_config(&mut e, &json!({"level": "high"}));
        assert_eq!(e["reasoning_config"]["level"], "low");
        let mut e = Map::new();
        e.insert("extra_body".into(), json!({"thinking": {}}));
        assert_eq!(conflicts(&e), vec!["extra_body.thinking"]);
    }
}
