//! Local fakes of the messaging platforms, each speaking its real protocol on loopback:
//! the Telegram Bot API, the Discord Gateway and REST, the Slack Web API and Socket Mode, a
//! OneBot v11 implementation (both WebSocket directions), and the Lark Open API.

//TMP pub mod discord;
//TMP pub mod lark;
//TMP pub mod onebot;
//TMP pub mod slack;
pub mod telegram;

use std::sync::{Arc, Mutex};

use serde_json::Value;

/// What a fake received, by method or action name, in order.
#[derive(Clone, Default)]
pub struct Calls(Arc<Mutex<Vec<(String, Value)>>>);

impl Calls {
    pub fn push(&self, name: &str, body: Value) {
        self.0.lock().unwrap().push((name.to_string(), body));
    }

    pub fn of(&self, name: &str) -> Vec<Value> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, b)| b.clone())
            .collect()
    }

    /// Waits until at least `n` calls of `name` arrived; answers them all.
    pub async fn wait(&self, name: &str, n: usize) -> Vec<Value> {
        super::fixtures::eventually(&format!("{n} × {name}"), 20, || async {
            let got = self.of(name);
            (got.len() >= n).then_some(got)
        })
        .await
    }
}

/// The fields of a multipart/form-data body: (name, text value or `<n bytes>`).
pub fn multipart_fields(body: &[u8]) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(body);
    let mut out = Vec::new();
    for part in text
        .split("Content-Disposition: form-data; name=\"")
        .skip(1)
    {
        let name = part.split('"').next().unwrap_or_default().to_string();
        let value = part
            .split_once("\r\n\r\n")
            .map(|(_, v)| v)
            .unwrap_or_default();
        let value = value.rsplit_once("\r\n--").map_or(value, |(v, _)| v);
        let shown = if part.contains("filename=") {
            format!("<{} bytes>", value.len())
        } else {
            value.to_string()
        };
        out.push((name, shown));
    }
    out
}
