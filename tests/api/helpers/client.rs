//! `TestApp`: a running app plus a typed HTTP client for it.

use std::net::TcpListener;
use std::sync::Once;

use langbot::config::Settings;
use langbot::startup::{Application, ServerOptions};
use langbot::state::AppState;
use reqwest::Method;
use serde_json::Value;

use super::backend::Backend;

pub struct TestApp {
    pub address: String,
    pub state: AppState,
    pub backend: Backend,
    client: reqwest::Client,
    handle: actix_web::dev::ServerHandle,
    _dir: tempfile::TempDir,
}

/// A response with its body parsed as JSON (`Value::Null` when not JSON).
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
    pub body: Value,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The `data` of a success envelope, asserting the envelope.
    pub fn data(&self) -> &Value {
        assert_eq!(
            self.status, 200,
            "expected success, got {}: {}",
            self.status, self.text
        );
        assert_eq!(self.body["code"], 0, "{}", self.text);
        assert_eq!(self.body["msg"], "ok", "{}", self.text);
        &self.body["data"]
    }

    /// Asserts an error response with `status` and `code`, and the error body shape.
    pub fn assert_error(&self, status: u16, code: &str) -> &Self {
        assert_eq!(self.status, status, "{}", self.text);
        assert_eq!(self.body["code"], code, "{}", self.text);
        assert!(
            self.body["msg"].as_str().is_some_and(|m| !m.is_empty()),
            "{}",
            self.text
        );
        assert!(
            self.body["request_id"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{}",
            self.text
        );
        self
    }
}

fn init_tracing() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        if std::env::var("TEST_LOG").is_ok() {
            langbot::telemetry::init(&langbot::config::LogSettings {
                filter: "debug".into(),
                format: langbot::config::LogFormat::Text,
            });
        }
    });
}

impl TestApp {
    pub async fn spawn(configure: impl FnOnce(&mut Settings)) -> Self {
        init_tracing();
        let dir = tempfile::tempdir().expect("temp dir");
        let backend = Backend::fresh(dir.path()).await;
        let mut settings = Settings {
            data_dir: dir.path().to_path_buf(),
            ..Settings::default()
        };
        settings.database.url = Some(backend.database_url.clone());
        settings.redis.url = backend.redis_url.clone();
        settings.redis.prefix = backend.redis_prefix.clone();
        configure(&mut settings);
        Self::spawn_settings(settings, backend, dir).await
    }

    /// A second replica: the same database and session store as `self`, its own process state.
    pub async fn sibling(&self) -> Self {
        let settings = (*self.state.settings).clone();
        let backend = Backend {
            database_url: self.backend.database_url.clone(),
            redis_url: self.backend.redis_url.clone(),
            redis_prefix: self.backend.redis_prefix.clone(),
        };
        let dir = tempfile::tempdir().expect("temp dir");
        Self::spawn_settings(settings, backend, dir).await
    }

    async fn spawn_settings(settings: Settings, backend: Backend, dir: tempfile::TempDir) -> Self {
        let state = langbot::startup::build_state(settings)
            .await
            .expect("init app state");
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let options = ServerOptions {
            workers: 1,
            handle_signals: false,
        };
        let app = Application::build(state.clone(), listener, options).expect("build app");
        let port = app.port();
        let handle = app.handle();
        tokio::spawn(app.run_until_stopped());
        Self {
            address: format!("http://127.0.0.1:{port}"),
            state,
            backend,
            client: reqwest::Client::new(),
            handle,
            _dir: dir,
        }
    }

    /// Starts a request; finish with `.send()`.
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        RequestBuilder {
            inner: self
                .client
                .request(method, format!("{}{}", self.address, path)),
        }
    }

    pub async fn get(&self, path: &str) -> Response {
        self.request(Method::GET, path).send().await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Response {
        self.request(Method::POST, path).json(body).send().await
    }

    /// Stops the server gracefully.
    pub async fn stop(&self) {
        self.handle.stop(true).await;
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        let handle = self.handle.clone();
        tokio::spawn(async move { handle.stop(false).await });
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
