//! The command line: what each subcommand does, kept out of `main.rs`.

use std::net::TcpListener;
use std::time::Instant;

use clap::{Parser, Subcommand};

use crate::config::Settings;
use crate::startup::{Application, ServerOptions};

#[derive(Debug, Parser)]
#[command(
    name = "langbot",
    version,
    about = "LangBot Core: the LangBot backend in Rust"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Clone, Copy, Subcommand)]
pub enum Command {
    /// Run the server (the default).
    Serve,
    /// Apply database migrations and exit.
    Migrate,
    /// Print the OpenAPI document.
    Openapi,
    /// Recompute the monitoring rollups from the records (after bulk loads or hand edits).
    RebuildRollups,
}

pub async fn serve() -> anyhow::Result<()> {
    let started = Instant::now();
    let settings = Settings::load()?;
    crate::telemetry::init(&settings.log);
    let addr = settings.addr()?;
    let listener =
        TcpListener::bind(addr).map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
    let state = crate::startup::build_state(settings.clone()).await?;
    let store_kind = state.store.kind();
    let db_kind = state.db_kind.as_str();
    let app = Application::build(state, listener, ServerOptions::default())?;
    tracing::info!(
        http.addr = %addr,
        database = db_kind,
        session_store = store_kind,
        data_dir = %settings.data_dir.display(),
        ready_ms = started.elapsed().as_millis() as u64,
        "LangBot {} listening on http://{addr} (database: {db_kind}, session store: {store_kind}, data dir: {})",
        env!("CARGO_PKG_VERSION"),
        settings.data_dir.display(),
    );
    app.run_until_stopped().await?;
    tracing::info!("LangBot stopped");
    Ok(())
}

pub async fn rebuild_rollups() -> anyhow::Result<()> {
    let settings = Settings::load()?;
    crate::telemetry::init(&settings.log);
    let kind = settings.database_kind()?;
    let db = crate::db::connect(&settings.database_url(), kind).await?;
    crate::db::migrate(&db, kind).await?;
    let started = Instant::now();
    let rows = crate::monitoring::rollup::rebuild(&db).await?;
    tracing::info!(
        rows,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "monitoring rollups rebuilt"
    );
    Ok(())
}

pub async fn migrate() -> anyhow::Result<()> {
    let settings = Settings::load()?;
    crate::telemetry::init(&settings.log);
    let kind = settings.database_kind()?;
    let db = crate::db::connect(&settings.database_url(), kind).await?;
    crate::db::migrate(&db, kind).await?;
    tracing::info!(database = kind.as_str(), "migrations applied");
    Ok(())
}
