//! Builds the HTTP server from the state: middleware, catalog routes, health, docs, the web UI
//! (the default service, which keeps the JSON 404 for server paths).

use std::net::TcpListener;

use actix_web::dev::Server;
use actix_web::middleware::{from_fn, Compress};
use actix_web::{web, App, HttpServer};
use utoipa_swagger_ui::{Config, SwaggerUi};

use crate::catalog;
use crate::http;
use crate::state::AppState;

/// A bound, not yet running server.
pub struct Application {
    port: u16,
    server: Server,
}

/// Knobs the binary and the tests set differently.
#[derive(Debug, Clone, Copy)]
pub struct ServerOptions {
    pub workers: usize,
    /// Tests run several servers in one process and stop them by dropping.
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

/// The routes of the whole service.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/healthz", web::get().to(http::health::healthz))
        .route("/readyz", web::get().to(http::health::readyz))
        .service(web::redirect("/api/docs", "/api/docs/"))
        .configure(catalog::http::configure)
        .configure(crate::mcp::configure)
        .configure(crate::runtime::http_bot::configure)
        .configure(crate::runtime::debug_ws::configure)
        .configure(crate::monitoring::inflight::configure)
        .configure(crate::monitoring::export::configure)
        .route(
            "/api/v1/openapi.json",
            web::get().to(catalog::openapi::serve),
        )
        .service(SwaggerUi::new("/api/docs/{_:.*}").config(Config::new(["/api/v1/openapi.json"])));
}

impl Application {
    /// Binds `listener` and prepares the server.
    pub fn build(
        state: AppState,
        listener: TcpListener,
        options: ServerOptions,
    ) -> anyhow::Result<Self> {
        let port = listener.local_addr()?.port();
        let data = web::Data::new(state);
        let mut server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .wrap(Compress::default())
                .wrap(from_fn(http::request_id_middleware))
                .configure(configure)
                .default_service(web::to(http::web_ui::serve))
        })
        .workers(options.workers)
        .shutdown_timeout(10)
        .listen(listener)?;
        if !options.handle_signals {
            server = server.disable_signals();
        }
        Ok(Self {
            port,
            server: server.run(),
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// A handle to stop the server gracefully.
    pub fn handle(&self) -> actix_web::dev::ServerHandle {
        self.server.handle()
    }

    /// Serves until stopped (SIGINT/SIGTERM when signals are handled); in-flight requests finish.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }
}
