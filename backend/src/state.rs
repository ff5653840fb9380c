//! The application state shared by every request and background task.

use std::sync::Arc;
use std::time::Instant;

use ipnet::IpNet;
use sea_orm::DatabaseConnection;

use crate::config::{DatabaseKind, Settings};
use crate::identity::password::PasswordHasherPool;
use crate::identity::IdentityCache;
use crate::session_store::SharedStore;

/// Cheap to clone: everything inside is shared.
#[derive(Clone)]
pub struct AppState {
    pub settings: Arc<Settings>,
    pub db: DatabaseConnection,
    pub db_kind: DatabaseKind,
    pub store: SharedStore,
    pub trusted_proxies: Arc<Vec<IpNet>>,
    /// This installation's id, stored in the database on first start.
    pub instance_uuid: Arc<str>,
    pub started_at: Instant,
    /// Identity caches (API keys, languages), kept coherent across replicas.
    pub identity: Arc<IdentityCache>,
    pub passwords: PasswordHasherPool,
    /// One HTTP connection pool for every upstream call (models, callbacks).
    pub http: reqwest::Client,
    pub runtime: Arc<crate::runtime::Runtime>,
    /// Live in-flight feeds, one producer per Workspace.
    pub inflight: Arc<crate::monitoring::inflight::InflightHub>,
}

impl AppState {
    /// Connects storage, migrates and loads the instance identity.
    pub async fn init(settings: Settings) -> anyhow::Result<Self> {
        let db_kind = settings.database_kind()?;
        let db = crate::db::connect(&settings.database_url(), db_kind).await?;
        crate::db::migrate(&db, db_kind).await?;
        let store =
            crate::session_store::connect(settings.redis.url.as_deref(), &settings.redis.prefix)
                .await?;
        let instance_uuid = crate::system::instance_uuid(&db).await?;
        let trusted_proxies = crate::http::parse_trusted_proxies(&settings.api.trusted_proxies)?;
        let identity = Arc::new(IdentityCache::default());
        identity.spawn_listener(store.clone());
        let state = Self {
            settings: Arc::new(settings),
            db,
            db_kind,
            store,
            trusted_proxies: Arc::new(trusted_proxies),
            instance_uuid: instance_uuid.into(),
            started_at: Instant::now(),
            identity,
            passwords: PasswordHasherPool::default(),
            http: reqwest::Client::builder()
                .user_agent(concat!("langbot-core/", env!("CARGO_PKG_VERSION")))
                .connect_timeout(std::time::Duration::from_secs(10))
                .pool_idle_timeout(std::time::Duration::from_secs(30))
                .build()?,
            runtime: Arc::new(crate::runtime::Runtime::default()),
            inflight: Arc::default(),
        };
        crate::monitoring::maintenance::spawn(state.clone());
        Ok(state)
    }
}
