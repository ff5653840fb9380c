//! Database connection (SQLite embedded default, or PostgreSQL) and migrations.

use std::str::FromStr;
use std::time::Duration;

use migration::{Migrator, MigratorTrait};
use sea_orm::{
    ConnectOptions, ConnectionTrait, Database, DatabaseConnection, SqlxSqliteConnector,
    TransactionTrait,
};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use crate::config::DatabaseKind;

/// An arbitrary constant: the advisory lock replicas take to migrate one at a time.
const MIGRATION_LOCK_KEY: i64 = 0x004c_616e_6742_6f74;

/// The current time at the database's precision (microseconds), so what an operation returns
/// equals what a later read returns.
pub fn now() -> chrono::DateTime<chrono::Utc> {
    use chrono::{DurationRound, TimeDelta};
    let now = chrono::Utc::now();
    now.duration_trunc(TimeDelta::microseconds(1))
        .unwrap_or(now)
}

/// Opens a connection pool for `url`.
pub async fn connect(url: &str, kind: DatabaseKind) -> anyhow::Result<DatabaseConnection> {
    match kind {
        DatabaseKind::Sqlite => {
            let options = SqliteConnectOptions::from_str(url)
                .map_err(|e| anyhow::anyhow!("invalid SQLite URL: {e}"))?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .foreign_keys(true)
                .busy_timeout(Duration::from_secs(5));
            if let Some(dir) = options.get_filename().parent() {
                if !dir.as_os_str().is_empty() {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
                }
            }
            // Each connection is a thread with its own page and statement caches, and SQLite
            // writes one at a time anyway: two per core is enough to keep the cores busy.
            let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
            let pool = SqlitePoolOptions::new()
                .max_connections((2 * cores).clamp(2, 8) as u32)
                .acquire_timeout(Duration::from_secs(5))
                // A file's connection does not go stale, and sqlx's check is one more trip to
                // the connection's thread before every query (a failed one is closed anyway).
                .test_before_acquire(false)
                .connect_with(options)
                .await
                .map_err(|e| anyhow::anyhow!("cannot open the SQLite database: {e}"))?;
            Ok(SqlxSqliteConnector::from_sqlx_sqlite_pool(pool))
        }
        DatabaseKind::Postgres => {
            let mut options = ConnectOptions::new(url.to_string());
            options
                .max_connections(16)
                .min_connections(1)
                .connect_timeout(Duration::from_secs(3))
                .acquire_timeout(Duration::from_secs(3))
                .sqlx_logging(false);
            Database::connect(options)
                .await
                .map_err(|e| anyhow::anyhow!("cannot connect to PostgreSQL: {e}"))
        }
    }
}

/// Applies pending migrations; on PostgreSQL under an advisory lock so replicas can start together.
pub async fn migrate(db: &DatabaseConnection, kind: DatabaseKind) -> anyhow::Result<()> {
    match kind {
        DatabaseKind::Sqlite => Migrator::up(db, None).await?,
        DatabaseKind::Postgres => {
            let txn = db.begin().await?;
            txn.execute_unprepared(&format!(
                "SELECT pg_advisory_xact_lock({MIGRATION_LOCK_KEY})"
            ))
            .await?;
            Migrator::up(&txn, None).await?;
            txn.commit().await?;
        }
    }
    Ok(())
}
