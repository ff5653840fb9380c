//! Which storage the suite runs on: SQLite + in-process store by default, PostgreSQL + Redis
//! when `TEST_DATABASE_URL` (an admin URL) and `TEST_REDIS_URL` are set.

use std::sync::Arc;

use langbot::session_store::{self, SharedStore};
use sha2::{Digest, Sha256};
use sqlx::{Connection, Executor, PgConnection};

/// The storage a test app gets.
pub struct Backend {
    pub database_url: String,
    pub redis_url: Option<String>,
    pub redis_prefix: String,
}

impl Backend {
    /// A fresh database (and key prefix) for one test.
    pub async fn fresh(dir: &std::path::Path) -> Self {
        let redis_prefix = format!("test:{}:", uuid::Uuid::new_v4().simple());
        let redis_url = std::env::var("TEST_REDIS_URL")
            .ok()
            .filter(|s| !s.is_empty());
        let database_url = match std::env::var("TEST_DATABASE_URL")
            .ok()
            .filter(|s| !s.is_empty())
        {
            Some(admin) => fresh_postgres_database(&admin).await,
            None => format!("sqlite://{}", dir.join("langbot.db").display()),
        };
        Self {
            database_url,
            redis_url,
            redis_prefix,
        }
    }
}

/// The session store under test: Redis when configured, otherwise in-process.
pub async fn test_store() -> SharedStore {
    match std::env::var("TEST_REDIS_URL")
        .ok()
        .filter(|s| !s.is_empty())
    {
        Some(url) => {
            let prefix = format!("test:{}:", uuid::Uuid::new_v4().simple());
            session_store::connect(Some(&url), &prefix)
                .await
                .expect("connect Redis")
        }
        None => Arc::new(session_store::MemoryStore::new()),
    }
}

/// Names the template after the migrations, so a schema change makes a new template.
fn template_name() -> String {
    use migration::MigratorTrait;
    let mut hasher = Sha256::new();
    for m in migration::Migrator::migrations() {
        hasher.update(m.name().as_bytes());
        hasher.update(b"\n");
    }
    format!("langbot_tpl_{}", &hex::encode(hasher.finalize())[..12])
}

fn with_database(admin_url: &str, name: &str) -> String {
    let (base, _) = admin_url
        .rsplit_once('/')
        .expect("admin URL has a database path");
    format!("{base}/{name}")
}

/// Creates `t_<uuid>` from a migrated template, creating the template once (under a lock,
/// since tests run as parallel processes).
async fn fresh_postgres_database(admin_url: &str) -> String {
    let template = template_name();
    let mut admin = PgConnection::connect(admin_url)
        .await
        .expect("connect PostgreSQL admin URL");
    admin
        .execute("SELECT pg_advisory_lock(4242)")
        .await
        .expect("lock");
    let exists: Option<i32> = sqlx::query_scalar("SELECT 1 FROM pg_database WHERE datname = $1")
        .bind(&template)
        .fetch_optional(&mut admin)
        .await
        .expect("query pg_database");
    if exists.is_none() {
        let building = format!("{template}_build");
        admin
            .execute(format!("DROP DATABASE IF EXISTS {building}").as_str())
            .await
            .expect("drop stale template");
        admin
            .execute(format!("CREATE DATABASE {building}").as_str())
            .await
            .expect("create template");
        {
            let url = with_database(admin_url, &building);
            let db = langbot::db::connect(&url, langbot::config::DatabaseKind::Postgres)
                .await
                .expect("connect template");
            langbot::db::migrate(&db, langbot::config::DatabaseKind::Postgres)
                .await
                .expect("migrate template");
            db.close().await.expect("close template");
        }
        admin
            .execute(format!("ALTER DATABASE {building} RENAME TO {template}").as_str())
            .await
            .expect("publish template");
    }
    admin
        .execute("SELECT pg_advisory_unlock(4242)")
        .await
        .expect("unlock");
    let name = format!("t_{}", uuid::Uuid::new_v4().simple());
    admin
        .execute(format!("CREATE DATABASE {name} TEMPLATE {template}").as_str())
        .await
        .expect("create test database");
    admin.close().await.ok();
    with_database(admin_url, &name)
}

/// Whether this is the PostgreSQL + Redis pass; otherwise says the test is skipped.
pub fn redis_pass() -> bool {
    if std::env::var("TEST_REDIS_URL").is_ok_and(|u| !u.is_empty()) {
        return true;
    }
    eprintln!("skipped: TEST_REDIS_URL is not set (SQLite + in-process pass)");
    false
}
