//! The envelope of the control connection (Part B3): requests and responses, told apart by
//! the `code` key; seq ids are per sender, so the host's waiters only see its own.

use serde_json::{json, Map, Value};

/// A message from the peer.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
    Request {
        seq_id: i64,
        action: String,
        data: Value,
        context: Option<Value>,
        /// The caller wants `stream_index` numbering and acknowledgements.
        flow_control: bool,
    },
    Response(Reply),
}

/// A response frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub seq_id: i64,
    pub code: i64,
    pub message: String,
    pub data: Value,
    /// `false` for `chunk_status: "continue"` (Python sends it on unary replies too).
    pub end: bool,
}

/// Requests and responses; anything else is ignored (`None`).
pub fn classify(v: Value) -> Option<Inbound> {
    let Value::Object(mut m) = v else {
        return None;
    };
    let seq_id = m.get("seq_id").and_then(Value::as_i64)?;
    let data = m
        .remove("data")
        .unwrap_or_else(|| Value::Object(Map::new()));
    if m.contains_key("code") {
        return Some(Inbound::Response(Reply {
            seq_id,
            code: m.get("code").and_then(Value::as_i64).unwrap_or(1),
            message: m
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            data,
            end: m.get("chunk_status").and_then(Value::as_str) == Some("end"),
        }));
    }
    let action = m.get("action").and_then(Value::as_str)?.to_string();
    Some(Inbound::Request {
        seq_id,
        action,
        data,
        context: m.remove("context").filter(|c| !c.is_null()),
        flow_control: m.get("stream_flow_control").and_then(Value::as_i64) == Some(1),
    })
}

pub fn request(seq_id: i64, action: &str, data: Value, context: Option<&Value>) -> String {
    let mut m = json!({"seq_id": seq_id, "action": action, "data": data});
    if let Some(c) = context {
        m["context"] = c.clone();
    }
    m.to_string()
}

/// A success (`data` must be an object: the runtime's models require it).
pub fn success(seq_id: i64, data: Value, end: bool, index: Option<u64>) -> String {
    let data = if data.is_object() { data } else { json!({}) };
    let mut m = json!({"seq_id": seq_id, "code": 0, "message": "success", "data": data,
                       "chunk_status": if end { "end" } else { "continue" }});
    if let Some(i) = index {
        m["stream_index"] = json!(i);
    }
    m.to_string()
}

/// An error reply; the runtime turns it into `ActionCallError(message)` for the plugin.
pub fn error(seq_id: i64, message: &str) -> String {
    let message: String = message.chars().take(4096).collect();
    json!({"seq_id": seq_id, "code": 1, "message": message, "data": {}, "chunk_status": "end"})
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_responses_are_told_apart() {
        let r =
            classify(json!({"seq_id": 5, "action": "get_bots", "data": {}, "context": {"a": 1}}));
        assert!(
            matches!(r, Some(Inbound::Request { seq_id: 5, ref action, .. }) if action == "get_bots")
        );
        let r = classify(
            json!({"seq_id": 5, "code": 0, "message": "success", "data": {"x": 1}, "chunk_status": "continue"}),
        );
        assert!(matches!(
            r,
            Some(Inbound::Response(Reply {
                seq_id: 5,
                code: 0,
                end: false,
                ..
            }))
        ));
        assert_eq!(classify(json!({"hello": 1})), None);
        assert_eq!(classify(json!([1])), None);
    }

    #[test]
    fn replies_carry_object_data() {
        let v: Value =
            serde_json::from_str(&success(3, json!("x"), true, Some(2))).unwrap_or_default();
        assert_eq!(v["data"], json!({}));
        assert_eq!(v["chunk_status"], "end");
        assert_eq!(v["stream_index"], 2);
        let v: Value = serde_json::from_str(&error(3, &"x".repeat(5000))).unwrap_or_default();
        assert_eq!(v["code"], 1);
        assert_eq!(v["message"].as_str().map(str::len), Some(4096));
    }
}
