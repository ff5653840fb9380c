//! The application state: shared handles, nothing else. `startup` builds it and runs what
//! uses it; this file names no resource and not the runtime.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, RwLock};
use std::time::Instant;

use ipnet::IpNet;
use sea_orm::DatabaseConnection;
use tokio_util::task::TaskTracker;

use crate::access::password::PasswordHasherPool;
use crate::access::Identity;
use crate::config::{DatabaseKind, Settings};
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
    /// This process's id among the replicas (owner of the executions it runs).
    pub replica: Arc<str>,
    pub started_at: Instant,
    /// Credential resolution and its caches, kept coherent across replicas.
    pub identity: Identity,
    pub passwords: PasswordHasherPool,
    /// One HTTP connection pool for every upstream call (models, callbacks).
    pub http: reqwest::Client,
    /// Work that outlives its request (accepted messages' turns, callbacks): drained on
    /// shutdown before the process exits.
    pub tasks: Background,
    /// In-process state that belongs to one feature (e.g. the runtime's message
    /// aggregation, monitoring's live feeds), created on first use.
    pub parts: Parts,
}

/// Tracked background work on the process's main runtime: the HTTP workers' runtimes end
/// with the server, and a task spawned on one of them would end with it, mid-turn.
#[derive(Clone)]
pub struct Background {
    tracker: TaskTracker,
    runtime: tokio::runtime::Handle,
    crashed: tokio_util::sync::CancellationToken,
}

impl Background {
    /// On the runtime of the caller (startup's).
    pub fn on_current_runtime() -> Result<Self, tokio::runtime::TryCurrentError> {
        Ok(Self {
            tracker: TaskTracker::new(),
            runtime: tokio::runtime::Handle::try_current()?,
            crashed: tokio_util::sync::CancellationToken::new(),
        })
    }

    pub fn spawn<F>(&self, work: F)
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        let crashed = self.crashed.clone();
        self.runtime.spawn(self.tracker.track_future(async move {
            tokio::select! {
                _ = crashed.cancelled() => {}
                _ = work => {}
            }
        }));
    }

    /// Drops every tracked task where it stands, as a process killed with SIGKILL does: no
    /// record is finished, no lease released (for tests of what the other replicas do then).
    pub fn crash(&self) {
        self.crashed.cancel();
    }

    /// The main runtime, for long-lived connections that stop on their own (MCP sessions):
    /// not tracked, since the drain must not wait for them.
    pub fn handle(&self) -> &tokio::runtime::Handle {
        &self.runtime
    }

    /// Refuses nothing new but lets `wait` finish once the tracked work is done.
    pub fn close(&self) {
        self.tracker.close();
    }

    pub async fn wait(&self) {
        self.tracker.wait().await
    }

    pub fn len(&self) -> usize {
        self.tracker.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tracker.is_empty()
    }
}

/// Per-process singletons keyed by type, so the state holds them without naming them.
#[derive(Clone, Default)]
pub struct Parts(Arc<RwLock<PartMap>>);

type PartMap = HashMap<TypeId, Arc<dyn Any + Send + Sync>, BuildHasherDefault<TypeIdHasher>>;

/// A `TypeId` is a hash already: SipHash over it was most of a lookup's cost, and parts are
/// looked up on hot paths.
#[derive(Default)]
struct TypeIdHasher(u64);

impl Hasher for TypeIdHasher {
    fn write(&mut self, bytes: &[u8]) {
        // Not used by `TypeId`; kept correct for any other caller.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 ^= n;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl Parts {
    /// The `T` of this process, created with `T::default()` on first use.
    pub fn get<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        let key = TypeId::of::<T>();
        let found = self
            .0
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
            .cloned();
        let part = match found {
            Some(part) => part,
            None => self
                .0
                .write()
                .unwrap_or_else(|p| p.into_inner())
                .entry(key)
                .or_insert_with(|| Arc::new(T::default()))
                .clone(),
        };
        // The map only holds a `T` under `T`'s id; a failed downcast cannot happen, and
        // would yield a fresh part rather than a panic.
        part.downcast::<T>().unwrap_or_default()
    }
}
