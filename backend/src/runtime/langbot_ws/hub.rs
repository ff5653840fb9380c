//! Where the chat's connections meet, across replicas: frames are published on a store
//! channel per Workspace and pipeline, which every connection of that pipeline subscribes
//! to (each keeps the frames of its session type, and broadcasts); the live connections are
//! listed in the store per Workspace, each refreshed while open, so a replica that dies
//! leaves entries that go stale and drop out of the list.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;

use super::Scope;
use crate::error::ApiResult;
use crate::runtime::message::SessionType;
use crate::session_store::{SessionStore, Subscription};

/// An open connection refreshes its entry this often…
pub const REFRESH: Duration = Duration::from_secs(60);
/// …and an entry not refreshed for this long belongs to a connection gone without saying.
const STALE: Duration = Duration::from_secs(180);

fn channel(scope: &Scope) -> String {
    format!("lbws:{}:{}", scope.workspace, scope.pipeline)
}

fn registry_key(workspace: &str) -> String {
    format!("lbws-conns:{workspace}")
}

/// What a connection receives: the frames of its session type, and those for all (`None`).
pub async fn subscribe(store: &dyn SessionStore, scope: &Scope) -> ApiResult<Subscription> {
    Ok(store.subscribe(&channel(scope)).await?)
}

/// Sends `frame` to the pipeline's connections of `kind` (every connection when `None`).
pub async fn publish(
    store: &dyn SessionStore,
    scope: &Scope,
    kind: Option<SessionType>,
    frame: &Value,
) -> ApiResult<()> {
    let envelope = json!({ "session_type": kind.map(SessionType::as_str), "frame": frame });
    store
        .publish(&channel(scope), envelope.to_string().as_bytes())
        .await?;
    Ok(())
}

/// The frame of a published envelope, if it is for a connection of `kind`.
pub fn frame_for(envelope: &[u8], kind: SessionType) -> Option<Value> {
    let mut v: Value = serde_json::from_slice(envelope).ok()?;
    match v["session_type"].as_str() {
        Some(target) if target != kind.as_str() => None,
        _ => Some(v["frame"].take()),
    }
}

/// One live connection (LangBot's shape).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ConnectionInfo {
    pub connection_id: String,
    pub session_type: SessionType,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339: the last frame from the client (or the last refresh).
    pub last_active: String,
    pub is_active: bool,
}

/// The stored registry: the pipeline is kept too (the statistics count per pipeline).
#[derive(Debug, Default, Serialize, Deserialize)]
struct Registry {
    connections: BTreeMap<String, Entry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    pipeline_uuid: String,
    session_type: SessionType,
    created_at: String,
    last_active: String,
}

impl Registry {
    fn drop_stale(&mut self) {
        let cutoff = chrono::Utc::now() - STALE;
        self.connections.retain(|_, e| {
            chrono::DateTime::parse_from_rfc3339(&e.last_active).is_ok_and(|t| t > cutoff)
        });
    }
}

/// Lists (or refreshes) connection `id`.
pub async fn touch(
    store: &dyn SessionStore,
    scope: &Scope,
    id: &str,
    kind: SessionType,
    created_at: &str,
) -> ApiResult<()> {
    let entry = Entry {
        pipeline_uuid: scope.pipeline.clone(),
        session_type: kind,
        created_at: created_at.to_string(),
        last_active: super::now(),
    };
    super::update(
        store,
        &registry_key(&scope.workspace),
        STALE,
        |r: &mut Registry| {
            r.drop_stale();
            r.connections.insert(id.to_string(), entry);
        },
    )
    .await
}

/// Takes connection `id` off the list.
pub async fn remove(store: &dyn SessionStore, workspace: &str, id: &str) -> ApiResult<()> {
    super::update(
        store,
        &registry_key(workspace),
        STALE,
        |r: &mut Registry| {
            r.drop_stale();
            r.connections.remove(id);
        },
    )
    .await
}

/// The Workspace's live connections, each with its pipeline.
pub async fn list(
    store: &dyn SessionStore,
    workspace: &str,
) -> ApiResult<Vec<(String, ConnectionInfo)>> {
    let mut registry: Registry = super::load(store, &registry_key(workspace)).await?;
    registry.drop_stale();
    Ok(registry
        .connections
        .into_iter()
        .map(|(id, e)| {
            let info = ConnectionInfo {
                connection_id: id,
                session_type: e.session_type,
                created_at: e.created_at,
                last_active: e.last_active,
                is_active: true,
            };
            (e.pipeline_uuid, info)
        })
        .collect())
}
