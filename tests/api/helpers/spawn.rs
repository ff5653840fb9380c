//! Spawning the app in-process on port 0: the one place that knows the backend's startup API
//! (`langbot::startup::Application`, `langbot::state::AppState`).

use std::net::TcpListener;
use std::sync::Once;

use langbot::config::Settings;
use langbot::startup::{Application, ServerOptions};
use langbot::state::AppState;

use super::backend::Backend;

/// A running app on a fresh database of its own.
pub struct TestApp {
    pub address: String,
    state: AppState,
    pub backend: Backend,
    pub(super) client: reqwest::Client,
    handle: actix_web::dev::ServerHandle,
    _dir: tempfile::TempDir,
}

/// Spawns the app on the configured back ends with default settings.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// Spawns the app after `configure` adjusted its settings.
pub async fn spawn_app_with(configure: impl FnOnce(&mut Settings)) -> TestApp {
    TestApp::spawn(configure).await
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
        // Without Redis each process has its own in-process store; replicas in one test
        // process share the first one's, as replicas share Redis.
        let shared = self
            .backend
            .redis_url
            .is_none()
            .then(|| self.state.store.clone());
        Self::spawn_shared(settings, backend, dir, shared).await
    }

    async fn spawn_settings(settings: Settings, backend: Backend, dir: tempfile::TempDir) -> Self {
        Self::spawn_shared(settings, backend, dir, None).await
    }

    async fn spawn_shared(
        settings: Settings,
        backend: Backend,
        dir: tempfile::TempDir,
        store: Option<langbot::session_store::SharedStore>,
    ) -> Self {
        let mut state = langbot::startup::build_state(settings)
            .await
            .expect("build app state");
        if let Some(store) = store {
            state.identity = langbot::access::Identity::new(
                state.db.clone(),
                store.clone(),
                state.settings.api.global_api_key.as_deref(),
            );
            state.store = store;
        }
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

    /// The app's state, for the backend's own entry points (e.g. a maintenance pass).
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// The app's database.
    pub fn db(&self) -> &sea_orm::DatabaseConnection {
        &self.state.db
    }

    /// The app's session store.
    pub fn store(&self) -> &langbot::session_store::SharedStore {
        &self.state.store
    }

    /// The app's live in-flight feed.
    pub fn inflight(&self) -> std::sync::Arc<langbot::monitoring::inflight::InflightHub> {
        self.state.parts.get()
    }

    /// The settings the app runs with.
    pub fn settings(&self) -> &Settings {
        &self.state.settings
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
