//! The credential-aware HTTP client: requests to a [`TestApp`] as a session, an API key or
//! nobody, optionally selecting a Workspace.

use std::time::Duration;

use reqwest::Method;
use serde_json::Value;

use super::{Response, TestApp};

/// How a request presents its credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cred {
    /// No credential at all.
    Anonymous,
    /// `Authorization: Bearer <token>`: a session, or a key (or the global key) sent as bearer.
    Bearer(String),
    /// `X-API-Key: <key>`.
    ApiKey(String),
}

impl Cred {
    pub fn bearer(token: impl Into<String>) -> Self {
        Self::Bearer(token.into())
    }

    pub fn api_key(key: impl Into<String>) -> Self {
        Self::ApiKey(key.into())
    }
}

impl From<&str> for Cred {
    /// A session token.
    fn from(token: &str) -> Self {
        Self::Bearer(token.to_string())
    }
}

impl From<&String> for Cred {
    /// A session token.
    fn from(token: &String) -> Self {
        Self::Bearer(token.clone())
    }
}

impl From<&Cred> for Cred {
    fn from(cred: &Cred) -> Self {
        cred.clone()
    }
}

impl TestApp {
    /// Starts a request; finish with `.send()`.
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        RequestBuilder {
            inner: self
                .client
                .request(method, format!("{}{}", self.address, path)),
        }
    }

    /// Like [`Self::request`], on a client of its own: its own connection (dropping the
    /// response closes it, as a viewer leaving a stream does), following no redirects.
    pub fn request_on_own_connection(&self, method: Method, path: &str) -> RequestBuilder {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("HTTP client");
        RequestBuilder {
            inner: client.request(method, format!("{}{}", self.address, path)),
        }
    }

    pub async fn get(&self, path: &str) -> Response {
        self.request(Method::GET, path).send().await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Response {
        self.request(Method::POST, path).json(body).send().await
    }

    /// GET with a bearer token.
    pub async fn get_as(&self, token: &str, path: &str) -> Response {
        self.request(Method::GET, path).bearer(token).send().await
    }

    /// A request with a bearer token and a JSON body.
    pub async fn send_as(&self, token: &str, method: Method, path: &str, body: &Value) -> Response {
        self.request(method, path)
            .bearer(token)
            .json(body)
            .send()
            .await
    }

    /// A request as `cred`, selecting `workspace` (`X-Workspace-Id`) when given, with a JSON
    /// body when given.
    pub async fn call(
        &self,
        cred: impl Into<Cred>,
        workspace: Option<&str>,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Response {
        let mut req = self.request(method, path).cred(&cred.into());
        if let Some(ws) = workspace {
            req = req.header("x-workspace-id", ws);
        }
        if let Some(body) = body {
            req = req.json(body);
        }
        req.send().await
    }

    /// POSTs `body` to `path` as `cred` (in `workspace` when given) and answers the created
    /// resource's uuid, asserting success and that it is a uuid.
    pub async fn create(
        &self,
        cred: impl Into<Cred>,
        workspace: Option<&str>,
        path: &str,
        body: &Value,
    ) -> String {
        let res = self
            .call(cred, workspace, Method::POST, path, Some(body))
            .await;
        let uuid = res.data()["uuid"]
            .as_str()
            .unwrap_or_else(|| panic!("POST {path}: no uuid: {}", res.text))
            .to_string();
        uuid::Uuid::parse_str(&uuid)
            .unwrap_or_else(|e| panic!("POST {path}: the uuid {uuid:?} is not a uuid: {e}"));
        uuid
    }

    /// Sends raw HTTP/1.1 bytes on a fresh connection; answers the status and the JSON body.
    pub async fn raw_http(&self, request: Vec<u8>) -> (u16, Value) {
        let addr = self.address.trim_start_matches("http://").to_string();
        let answer = tokio::task::spawn_blocking(move || {
            use std::io::{Read, Write};
            let mut stream = std::net::TcpStream::connect(addr).expect("connect");
            stream
                .set_read_timeout(Some(Duration::from_secs(20)))
                .expect("read timeout");
            stream.write_all(&request).expect("write request");
            // Nothing more will come: the server need not wait for the declared rest.
            let _ = stream.shutdown(std::net::Shutdown::Write);
            let mut buf = Vec::new();
            // The server may close before reading what it refused; what it sent is enough.
            let _ = stream.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).to_string()
        })
        .await
        .expect("raw request task");
        let status = answer
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no HTTP status in {answer:?}"));
        let body = answer
            .split_once("\r\n\r\n")
            .and_then(|(_, b)| serde_json::from_str(b).ok())
            .unwrap_or(Value::Null);
        (status, body)
    }
}

pub struct RequestBuilder {
    inner: reqwest::RequestBuilder,
}

impl RequestBuilder {
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.inner = self.inner.header(name, value);
        self
    }

    pub fn bearer(self, token: &str) -> Self {
        self.header("authorization", &format!("Bearer {token}"))
    }

    /// Presents `cred`.
    pub fn cred(self, cred: &Cred) -> Self {
        match cred {
            Cred::Anonymous => self,
            Cred::Bearer(token) => self.bearer(token),
            Cred::ApiKey(key) => self.header("x-api-key", key),
        }
    }

    pub fn json(mut self, body: &Value) -> Self {
        self.inner = self.inner.json(body);
        self
    }

    /// A raw body with `application/json` content type.
    pub fn raw_json(mut self, body: impl Into<reqwest::Body>) -> Self {
        self.inner = self
            .inner
            .header("content-type", "application/json")
            .body(body);
        self
    }

    /// A raw body with the given content type (multipart uploads).
    pub fn raw_body(mut self, content_type: &str, body: Vec<u8>) -> Self {
        self.inner = self.inner.header("content-type", content_type).body(body);
        self
    }

    /// Sends and answers the response unread: its status and headers, and a body to stream.
    pub async fn send_unread(self) -> reqwest::Response {
        self.inner.send().await.expect("request failed")
    }

    pub async fn send(self) -> Response {
        let res = self.inner.send().await.expect("request failed");
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let text = res.text().await.expect("read body");
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Response {
            status,
            headers,
            text,
            body,
        }
    }
}
