//! A model's `extra_args`: which keys the host interprets, and the ones every protocol honours
//! (`extra_headers`, `extra_body`).

use serde_json::{Map, Value};

/// Keys of `extra_args` the host interprets instead of forwarding.
pub(super) const RESERVED: &[&str] = &[
    "reasoning_config",
    "request_policy",
    "prompt_caching",
    "timeout",
    "extra_headers",
    "extra_body",
];

/// The keys to forward into the request body, with `extra_body` spread over them.
pub(super) fn forwarded(extra: &Map<String, Value>) -> Map<String, Value> {
    let mut out: Map<String, Value> = extra
        .iter()
        .filter(|(k, _)| !RESERVED.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if let Some(Value::Object(extra_body)) = extra.get("extra_body") {
        out.extend(extra_body.clone());
    }
    out
}

/// Adds the model's `extra_headers` (string values) to a request.
pub(super) fn with_headers(
    mut rb: reqwest::RequestBuilder,
    extra: &Map<String, Value>,
) -> reqwest::RequestBuilder {
    if let Some(Value::Object(headers)) = extra.get("extra_headers") {
        for (name, value) in headers {
            if let Some(value) = value.as_str() {
                rb = rb.header(name.as_str(), value);
            }
        }
    }
    rb
}

/// Tool-call arguments (JSON text) as the object native protocols want; `{}` when they
/// are not a JSON object.
pub(super) fn arguments_object(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(v @ Value::Object(_)) => v,
        _ => Value::Object(Map::new()),
    }
}
