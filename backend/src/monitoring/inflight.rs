//! The in-flight feed: a bounded snapshot of running and just-started executions, and an SSE
//! stream of it. One producer per Workspace serves all its viewers; it wakes on execution
//! changes published through the session store, so a change on any replica reaches viewers on
//! every replica.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect,
};
use serde::Serialize;
use serde_json::json;
use tokio::sync::broadcast;
use utoipa::ToSchema;
use uuid::Uuid;

use super::dto::ExecutionRow;
use crate::access::{Permission, RequestCtx, WorkspaceCtx};
use crate::catalog::{EventStream, Input, McpTool, NoBody, NoParams, OpMeta, Operation};
use crate::entities::execution::{self, ExecutionStatus};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;

const SNAPSHOT_ROWS: u64 = 100;
const RECENT: chrono::Duration = chrono::Duration::seconds(30);
const RECONCILE: Duration = Duration::from_secs(15);

/// What is in flight now.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Snapshot {
    pub items: Vec<ExecutionRow>,
    pub active_total: u64,
    pub truncated: bool,
}

impl PartialEq for ExecutionRow {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
            && self.status == other.status
            && self.progress_event == other.progress_event
    }
}

/// The channel execution changes are announced on.
pub fn channel(workspace: &str) -> String {
    format!("inflight:{workspace}")
}

pub async fn snapshot(db: &impl ConnectionTrait, ws: &WorkspaceCtx) -> ApiResult<Snapshot> {
    let now = crate::db::now();
    let active = Condition::all()
        .add(execution::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .add(execution::Column::Status.is_in([ExecutionStatus::Queued, ExecutionStatus::Running]))
        .add(execution::Column::LeaseExpiresAt.gt(now));
    let active_total = execution::Entity::find()
        .filter(active.clone())
        .count(db)
        .await?;
    let mut rows = execution::Entity::find()
        .filter(active)
        .order_by_desc(execution::Column::StartedAt)
        .limit(SNAPSHOT_ROWS)
        .all(db)
        .await?;
    let recent = execution::Entity::find()
        .filter(execution::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .filter(execution::Column::StartedAt.gte(now - RECENT))
        .order_by_desc(execution::Column::StartedAt)
        .limit(SNAPSHOT_ROWS + 1)
        .all(db)
        .await?;
    let truncated = active_total > SNAPSHOT_ROWS || recent.len() as u64 > SNAPSHOT_ROWS;
    for r in recent
        .into_iter()
        .take(usize::try_from(SNAPSHOT_ROWS).unwrap_or(100))
    {
        if !rows.iter().any(|a| a.id == r.id) {
            rows.push(r);
        }
    }
    rows.sort_by(|a, b| b.started_at.cmp(&a.started_at).then(b.id.cmp(&a.id)));
    // The reads are not one snapshot: an execution that started between the count and the
    // lists is listed as active, so the count covers at least what is listed.
    let listed_active = rows
        .iter()
        .filter(|e| e.status.is_active() && e.lease_expires_at.is_some_and(|l| l > now))
        .count() as u64;
    let active_total = active_total.max(listed_active);
    Ok(Snapshot {
        items: rows
            .into_iter()
            .map(|e| ExecutionRow::new(e, None, None))
            .collect(),
        active_total,
        truncated,
    })
}

pub struct GetInflightExecutions;

impl Operation for GetInflightExecutions {
    const META: OpMeta = OpMeta::get("get_inflight_executions", "/monitoring/in-flight")
        .tag("monitoring")
        .summary("Running executions and those started in the last 30 s, with their latest stage")
        .description("`progress_event` is the latest reported stage, never a percentage.")
        .permission(Permission::ResourceView)
        .mcp(McpTool::FLAT);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = Snapshot;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<Snapshot> {
        snapshot(&state.db, ctx.workspace()?).await
    }
}

/// A joined viewer: its counter, its receiver, and the latest frame to replay.
type Joined = (
    Viewer,
    broadcast::Receiver<Arc<String>>,
    Option<Arc<String>>,
);

struct Channel {
    tx: broadcast::Sender<Arc<String>>,
    latest: Mutex<Option<Arc<String>>>,
    viewers: AtomicUsize,
}

/// The producers and their viewers, per Workspace.
#[derive(Default)]
pub struct InflightHub {
    total: AtomicUsize,
    channels: Mutex<HashMap<Uuid, Arc<Channel>>>,
}

/// Counts a viewer while its stream lives.
struct Viewer {
    hub: Arc<InflightHub>,
    channel: Arc<Channel>,
}

impl Drop for Viewer {
    fn drop(&mut self) {
        self.channel.viewers.fetch_sub(1, Ordering::SeqCst);
        self.hub.total.fetch_sub(1, Ordering::SeqCst);
    }
}

impl InflightHub {
    pub fn viewers(&self) -> usize {
        self.total.load(Ordering::SeqCst)
    }

    /// Joins (or starts) the Workspace's feed; 429 beyond the viewer caps.
    fn join(self: &Arc<Self>, state: &AppState, ws: &WorkspaceCtx) -> ApiResult<Joined> {
        let mut channels = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        let limits = &state.settings.monitoring;
        if self.total.load(Ordering::SeqCst) >= limits.viewers_total {
            return Err(ApiError::new(ErrorCode::RateLimited)
                .msg("Too many live monitoring viewers")
                .retry_after(5));
        }
        let channel = channels.entry(ws.uuid).or_insert_with(|| {
            let (tx, _) = broadcast::channel(16);
            let channel = Arc::new(Channel {
                tx,
                latest: Mutex::new(None),
                viewers: AtomicUsize::new(0),
            });
            tokio::spawn(produce(
                state.clone(),
                ws.clone(),
                Arc::downgrade(self),
                channel.clone(),
            ));
            channel
        });
        if channel.viewers.load(Ordering::SeqCst) >= limits.viewers_per_workspace {
            return Err(ApiError::new(ErrorCode::RateLimited)
                .msg("Too many live monitoring viewers for this Workspace")
                .retry_after(5));
        }
        channel.viewers.fetch_add(1, Ordering::SeqCst);
        self.total.fetch_add(1, Ordering::SeqCst);
        let rx = channel.tx.subscribe();
        let latest = channel
            .latest
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        Ok((
            Viewer {
                hub: self.clone(),
                channel: channel.clone(),
            },
            rx,
            latest,
        ))
    }
}

/// The Workspace's producer: reloads on announced changes (and every 15 s), broadcasts
/// changed snapshots, and stops when the last viewer left.
async fn produce(
    state: AppState,
    ws: WorkspaceCtx,
    hub: std::sync::Weak<InflightHub>,
    channel: Arc<Channel>,
) {
    let mut changes = state.store.subscribe(&channel_name(&ws)).await.ok();
    let mut previous: Option<Snapshot> = None;
    loop {
        let frame = match snapshot(&state.db, &ws).await {
            Ok(s) if previous.as_ref() == Some(&s) => None,
            Ok(s) => {
                let frame = json!({ "kind": "snapshot", "data": s }).to_string();
                previous = Some(s);
                Some(frame)
            }
            Err(_) => Some(json!({ "kind": "unavailable" }).to_string()),
        };
        if let Some(frame) = frame {
            let frame = Arc::new(frame);
            *channel.latest.lock().unwrap_or_else(|p| p.into_inner()) = Some(frame.clone());
            let _ = channel.tx.send(frame);
        }
        // Wait for an announced change; a lost subscription (store outage) is renewed, and
        // until then the periodic reload keeps viewers current.
        let wait = async {
            match changes.as_mut() {
                Some(s) => s.next().await.is_some(),
                None => {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    false
                }
            }
        };
        match tokio::time::timeout(RECONCILE, wait).await {
            Ok(true) | Err(_) => {}
            Ok(false) => {
                changes = state.store.subscribe(&channel_name(&ws)).await.ok();
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        if channel.viewers.load(Ordering::SeqCst) == 0 {
            if let Some(hub) = hub.upgrade() {
                let mut channels = hub.channels.lock().unwrap_or_else(|p| p.into_inner());
                if channel.viewers.load(Ordering::SeqCst) == 0 {
                    channels.remove(&ws.uuid);
                    return;
                }
            } else {
                return;
            }
        }
    }
}

fn channel_name(ws: &WorkspaceCtx) -> String {
    channel(&ws.uuid.to_string())
}

pub struct StreamInflightExecutions;

impl Operation for StreamInflightExecutions {
    const META: OpMeta = OpMeta::get("stream_inflight_executions", "/monitoring/in-flight/stream")
        .tag("monitoring")
        .summary("The in-flight snapshot as a Server-Sent Events stream")
        .description(
            "`data:` frames: `{\"kind\":\"snapshot\",\"data\":…}` when the snapshot changes (the \
         first at once), `{\"kind\":\"heartbeat\"}` after 10 s of silence. The server \
         closes the stream after 60 s; reconnect. 429 `rate_limited` beyond the viewer caps.",
        )
        .permission(Permission::ResourceView)
        .errors(&[ErrorCode::RateLimited]);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = EventStream;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<EventStream> {
        let ws = ctx.workspace()?;
        let (viewer, rx, latest) = state.parts.get::<InflightHub>().join(state, ws)?;
        let heartbeat = state.settings.monitoring.stream_heartbeat;
        let deadline = tokio::time::Instant::now() + state.settings.monitoring.stream_lifetime;
        let frames = futures_util::stream::unfold(
            (viewer, rx, latest),
            move |(viewer, mut rx, first)| async move {
                if let Some(frame) = first {
                    return Some((frame.to_string(), (viewer, rx, None)));
                }
                loop {
                    let now = tokio::time::Instant::now();
                    if now >= deadline {
                        return None;
                    }
                    let frame = match tokio::time::timeout(heartbeat.min(deadline - now), rx.recv())
                        .await
                    {
                        Ok(Ok(frame)) => frame.to_string(),
                        // A slow viewer missed frames; the next one is complete anyway.
                        Ok(Err(broadcast::error::RecvError::Lagged(_))) => continue,
                        Ok(Err(broadcast::error::RecvError::Closed)) => return None,
                        Err(_) if tokio::time::Instant::now() >= deadline => return None,
                        Err(_) => json!({ "kind": "heartbeat" }).to_string(),
                    };
                    return Some((frame, (viewer, rx, None)));
                }
            },
        );
        Ok(EventStream::new(frames))
    }
}
