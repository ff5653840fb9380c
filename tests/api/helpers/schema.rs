//! Walking OpenAPI documents and JSON Schemas.

use std::collections::BTreeSet;

use serde_json::Value;

/// Adds every `$ref` found anywhere in `value` to `out`.
pub fn collect_refs(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref") {
                out.insert(r.clone());
            }
            map.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}
