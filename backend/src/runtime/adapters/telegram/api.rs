//! The Bot API over HTTP: `{base}/bot{token}/{method}`, answers `{ok, result}`.

use std::time::Duration;

use serde_json::Value;

const TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Clone)]
pub struct Api {
    http: reqwest::Client,
    base: String,
    token: String,
}

/// Why a call failed.
pub enum Failure {
    /// No answer (connection refused or dropped, timeout): try again.
    Transport(String),
    /// Telegram answered `ok: false` (wrong token, bad request).
    Refused(String),
}

impl Api {
    pub fn new(http: reqwest::Client, base: &str, token: &str) -> Self {
        Self {
            http,
            base: base.trim_end_matches('/').to_string(),
            token: token.to_string(),
        }
    }

    fn url(&self, method: &str) -> String {
        format!("{}/bot{}/{method}", self.base, self.token)
    }

    /// Calls `method`; the error text never contains the token.
    pub async fn call(&self, method: &str, body: Value) -> Result<Value, String> {
        self.request(method, body, TIMEOUT)
            .await
            .map_err(|f| match f {
                Failure::Transport(e) | Failure::Refused(e) => e,
            })
    }

    /// `getUpdates` with its own (long-poll) timeout.
    pub async fn poll(&self, body: Value, timeout: Duration) -> Result<Value, Failure> {
        self.request("getUpdates", body, timeout).await
    }

    async fn request(
        &self,
        method: &str,
        body: Value,
        timeout: Duration,
    ) -> Result<Value, Failure> {
        let sent = self
            .http
            .post(self.url(method))
            .timeout(timeout)
            .json(&body)
            .send()
            .await
            .map_err(|e| Failure::Transport(format!("{method}: {}", e.without_url())))?;
        Self::answer(method, sent).await
    }

    async fn answer(method: &str, sent: reqwest::Response) -> Result<Value, Failure> {
        let status = sent.status();
        let answer: Value = sent.json().await.map_err(|e| {
            Failure::Transport(format!("{method}: unreadable answer: {}", e.without_url()))
        })?;
        if answer["ok"] == Value::Bool(true) {
            return Ok(answer["result"].clone());
        }
        let why = answer["description"].as_str().unwrap_or("no description");
        let why = format!("{method}: HTTP {} {why}", status.as_u16());
        if status.is_server_error() {
            Err(Failure::Transport(why))
        } else {
            Err(Failure::Refused(why))
        }
    }

    /// `sendPhoto` with the image uploaded (multipart).
    pub async fn send_photo(&self, fields: Value, bytes: Vec<u8>) -> Result<Value, String> {
        let mut form = reqwest::multipart::Form::new();
        for (k, v) in fields.as_object().cloned().unwrap_or_default() {
            let v = match v {
                Value::String(s) => s,
                other => other.to_string(),
            };
            form = form.text(k, v);
        }
        let part = reqwest::multipart::Part::bytes(bytes).file_name("image.png");
        form = form.part("photo", part);
        let sent = self
            .http
            .post(self.url("sendPhoto"))
            .timeout(TIMEOUT)
            .multipart(form)
            .send()
            .await
            .map_err(|e| format!("sendPhoto: {}", e.without_url()))?;
        Self::answer("sendPhoto", sent).await.map_err(|f| match f {
            Failure::Transport(e) | Failure::Refused(e) => e,
        })
    }

    /// Downloads a file by its `file_path` (at most `limit` bytes).
    pub async fn download(&self, path: &str, limit: usize) -> Result<Vec<u8>, String> {
        let url = format!("{}/file/bot{}/{path}", self.base, self.token);
        super::super::download(self.http.get(url).timeout(TIMEOUT), "file", limit).await
    }
}
