//! The composition root: builds the state from the settings, starts the background
//! workers and the HTTP server, and stops them together. On SIGTERM (or SIGINT) the server
//! stops accepting, in-flight requests and tracked turns get `api.drain_timeout` to
//! finish, then the workers stop; a second signal exits at once.
//! Unmatched paths go to the web UI, which keeps the JSON 404 for server paths.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::dev::{Server, ServerHandle};
use actix_web::{web, App, HttpServer};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use utoipa_swagger_ui::{Config, SwaggerUi};

use crate::access::password::PasswordHasherPool;
use crate::access::Identity;
use crate::config::Settings;
use crate::http;
use crate::state::{AppState, Background, Parts};

/// Connects storage, migrates, and assembles the shared handles.
pub async fn build_state(settings: Settings) -> anyhow::Result<AppState> {
    let db_kind = settings.database_kind()?;
    let db = crate::db::connect(&settings.database_url(), db_kind).await?;
    crate::db::migrate(&db, db_kind).await?;
    let store =
        crate::session_store::connect(settings.redis.url.as_deref(), &settings.redis.prefix)
            .await?;
    let instance_uuid = crate::system::instance_uuid(&db).await?;
    let trusted_proxies = http::parse_trusted_proxies(&settings.api.trusted_proxies)?;
    let identity = Identity::new(
        db.clone(),
        store.clone(),
        settings.api.global_api_key.as_deref(),
    );
    Ok(AppState {
        settings: Arc::new(settings),
        db,
        db_kind,
        store,
        trusted_proxies: Arc::new(trusted_proxies),
        instance_uuid: instance_uuid.into(),
        replica: uuid::Uuid::new_v4().simple().to_string().into(),
        started_at: Instant::now(),
        identity,
        passwords: PasswordHasherPool::default(),
        http: reqwest::Client::builder()
            .user_agent(concat!("langbot-core/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .pool_idle_timeout(Duration::from_secs(30))
            .build()?,
        tasks: Background::on_current_runtime()?,
        parts: Parts::default(),
    })
}

/// The routes of the whole service.
pub fn configure(cfg: &mut web::ServiceConfig) {
    // actix tries these in order, each try costing a few hundred instructions: the health
    // checks (polled by every balancer and orchestrator) first, then the API.
    cfg.route("/healthz", web::get().to(http::health::healthz))
        .route("/readyz", web::get().to(http::health::readyz))
        .configure(|cfg| crate::api::catalog().configure_api(cfg))
        .configure(|cfg| crate::api::catalog().configure_mcp(cfg))
        .service(web::redirect("/api/docs", "/api/docs/"))
        .configure(crate::runtime::adapters::ingress::configure)
        .service(SwaggerUi::new("/api/docs/{_:.*}").config(Config::new(["/api/v1/openapi.json"])));
}

/// Knobs the binary and the tests set differently.
#[derive(Debug, Clone, Copy)]
pub struct ServerOptions {
    pub workers: usize,
    /// Tests run several servers in one process and stop them through their handle.
    pub handle_signals: bool,
}

impl Default for ServerOptions {
    fn default() -> Self {
        let cores = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2);
        Self {
            workers: cores.clamp(1, 8),
            handle_signals: true,
        }
    }
}

/// The background workers of one process, stopped together.
struct Workers {
    stop: CancellationToken,
    handles: Vec<JoinHandle<()>>,
}

impl Workers {
    fn start(state: &AppState) -> Self {
        let stop = CancellationToken::new();
        let handles = vec![
            tokio::spawn(state.identity.clone().follow_invalidations(stop.clone())),
            tokio::spawn(crate::monitoring::maintenance::run(
                state.clone(),
                stop.clone(),
            )),
            tokio::spawn(crate::runtime::adapters::supervisor::run(
                state.clone(),
                stop.clone(),
            )),
            tokio::spawn(crate::db_health::watch(state.clone(), stop.clone())),
        ];
        Self { stop, handles }
    }

    async fn stop(self) {
        self.stop.cancel();
        for handle in self.handles {
            let _ = handle.await;
        }
    }
}

/// A bound, running server with its workers.
pub struct Application {
    port: u16,
    server: Server,
    state: AppState,
    workers: Workers,
    handle_signals: bool,
}

impl Application {
    /// Binds `listener`, starts the workers and the server (serving once awaited).
    pub fn build(
        state: AppState,
        listener: TcpListener,
        options: ServerOptions,
    ) -> anyhow::Result<Self> {
        let port = listener.local_addr()?.port();
        let data = web::Data::new(state.clone());
        let drain = state.settings.api.drain_timeout;
        let health = state.parts.get::<crate::db_health::DbHealth>();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .wrap(http::RequestFrame::new(health.clone()))
                .configure(configure)
                .default_service(web::to(http::web_ui::serve))
        })
        .workers(options.workers)
        .shutdown_timeout(drain.as_secs().max(1))
        // Signals are ours: the second one must exit at once.
        .disable_signals()
        .listen(listener)?
        .run();
        Ok(Self {
            port,
            server,
            workers: Workers::start(&state),
            state,
            handle_signals: options.handle_signals,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// A handle to stop the server gracefully.
    pub fn handle(&self) -> ServerHandle {
        self.server.handle()
    }

    /// Serves until stopped (by a signal, or through `handle()`), then drains: in-flight
    /// requests and tracked turns finish within the drain time less [`stop_reserve`], then the
    /// workers, MCP sessions and plugin runtimes stop in what is left. After a signal the
    /// whole stop, signal to return, is bounded by the drain time: connections still open
    /// when their share is over are closed, turns still running are abandoned (their
    /// executions are the other replicas' reaper's).
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let drain = self.state.settings.api.drain_timeout;
        let reserve = stop_reserve(drain);
        let (began_tx, mut began_rx) = tokio::sync::watch::channel(None::<Instant>);
        if self.handle_signals {
            tokio::spawn(stop_on_signals(self.server.handle(), began_tx));
        } else {
            drop(began_tx);
        }
        let server = self.server;
        tokio::pin!(server);
        let overrun = async {
            // The Ref (a lock guard) is gone before the sleep.
            let began = began_rx
                .wait_for(Option::is_some)
                .await
                .ok()
                .and_then(|r| *r);
            match began {
                Some(began) => {
                    tokio::time::sleep_until((began + drain.saturating_sub(reserve)).into()).await
                }
                // Stopped through `handle()` only: actix's shutdown timeout bounds it.
                None => std::future::pending().await,
            }
        };
        let served = tokio::select! {
            served = &mut server => served,
            () = overrun => {
                // actix handles its commands one at a time, so a forced stop would wait for
                // the graceful one: the server is dropped instead, and the connections still
                // open end with the process.
                tracing::warn!("drain time over; abandoning the connections still open");
                Ok(())
            }
        };
        let began = (*began_rx.borrow()).unwrap_or_else(Instant::now);
        tracing::info!(
            elapsed_ms = began.elapsed().as_millis() as u64,
            "connections drained"
        );
        // Turns ran on while connections drained; they get what is left of their share.
        self.state.tasks.close();
        let left = drain
            .saturating_sub(reserve)
            .saturating_sub(began.elapsed());
        if tokio::time::timeout(left, self.state.tasks.wait())
            .await
            .is_err()
        {
            tracing::warn!(
                unfinished = self.state.tasks.len(),
                "drain time over; abandoning unfinished turns"
            );
        }
        tracing::info!(
            elapsed_ms = began.elapsed().as_millis() as u64,
            "turns drained"
        );
        let state = self.state;
        let workers = self.workers;
        let rest = async {
            workers.stop().await;
            // MCP sessions end with a goodbye (stdio children stop, HTTP sessions are deleted).
            state
                .parts
                .get::<crate::mcp_client::McpHub>()
                .close_all()
                .await;
            // Plugin runtimes stop in order (SIGTERM, then their process groups are killed).
            crate::plugins::hub(&state).stop_all().await;
        };
        let left = drain
            .saturating_sub(began.elapsed())
            .max(Duration::from_millis(100));
        if tokio::time::timeout(left, rest).await.is_err() {
            tracing::warn!("drain time over; abandoning the background workers' stop");
        }
        tracing::info!(elapsed_ms = began.elapsed().as_millis() as u64, "stopped");
        served
    }
}

/// The part of the drain time kept for what stops after requests and turns (the workers,
/// MCP sessions, plugin runtimes) and the process's exit: a quarter of it, at most a second.
pub fn stop_reserve(drain: Duration) -> Duration {
    (drain / 4).min(Duration::from_secs(1))
}

/// The first SIGTERM or SIGINT stops the server gracefully; a second exits at once.
async fn stop_on_signals(
    server: ServerHandle,
    stop_began: tokio::sync::watch::Sender<Option<Instant>>,
) {
    wait_for_signal().await;
    stop_began.send_replace(Some(Instant::now()));
    tracing::info!("stopping: no new connections; draining in-flight requests and turns");
    let stopping = tokio::spawn(async move { server.stop(true).await });
    wait_for_signal().await;
    tracing::warn!("second signal: exiting now");
    stopping.abort();
    std::process::exit(130);
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
