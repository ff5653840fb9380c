//! The MCP sessions of this process: one per enabled server, opened in the background on the
//! main runtime, reused across turns, reopened when the server's settings change (its row's
//! `updated_at`), when the transport drops, or after failing attempts once a pause has passed.
//! Every replica keeps its own; nothing here is shared through the store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::config::ServerConfig;
use super::session::{self, CallOutcome, Clients, Failure, Live};
use super::status::RuntimeInfo;

/// Attempts per connection round, and the pauses between them.
const ATTEMPT_PAUSES: &[Duration] = &[
    Duration::from_millis(500),
    Duration::from_secs(1),
    Duration::from_secs(2),
];
/// After a failed round, the next use waits this long before trying again.
const RETRY_AFTER: Duration = Duration::from_secs(5);

#[derive(Clone)]
pub enum SlotState {
    Connecting,
    Connected(Arc<Live>),
    Failed(Failure),
}

/// One server's session and how it is doing.
pub struct Slot {
    pub config: ServerConfig,
    revision: String,
    state: watch::Sender<SlotState>,
    attempts: Mutex<(u32, Instant)>,
}

impl Slot {
    pub fn state(&self) -> SlotState {
        self.state.borrow().clone()
    }

    pub fn info(&self) -> RuntimeInfo {
        let retries = self.attempts.lock().map(|a| a.0).unwrap_or(0);
        RuntimeInfo::of(&self.state(), retries, &self.config.secrets())
    }

    /// Waits until the session is open or has failed.
    pub async fn ready(&self, within: Duration) -> Result<Arc<Live>, Failure> {
        let mut rx = self.state.subscribe();
        let waited = tokio::time::timeout(within, async {
            loop {
                match rx.borrow_and_update().clone() {
                    SlotState::Connected(live) => return Ok(live),
                    SlotState::Failed(f) => return Err(f),
                    SlotState::Connecting => {}
                }
                if rx.changed().await.is_err() {
                    return Err(Failure {
                        code: "runtime_error".into(),
                        message: "the session was closed".into(),
                    });
                }
            }
        })
        .await;
        waited.unwrap_or_else(|_| {
            Err(Failure {
                code: "connection_timeout".into(),
                message: format!("not connected within {} s", within.as_secs()),
            })
        })
    }
}

#[derive(Default)]
pub struct McpHub {
    slots: Mutex<HashMap<String, Arc<Slot>>>,
}

/// How the hub reaches the outside: the HTTP clients and the runtime sessions live on.
#[derive(Clone)]
pub struct Env {
    pub clients: Clients,
    pub runtime: tokio::runtime::Handle,
}

fn revision(cfg: &ServerConfig, updated_at: &str) -> String {
    format!("{updated_at}|{cfg:?}")
}

impl McpHub {
    /// The session slot for an enabled server, opening or reopening it as needed.
    pub fn ensure(&self, env: &Env, cfg: ServerConfig, updated_at: &str) -> Arc<Slot> {
        let rev = revision(&cfg, updated_at);
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(slot) = slots.get(&cfg.uuid) {
            if slot.revision == rev {
                let reconnect = match slot.state() {
                    SlotState::Connected(live) => live.is_closed(),
                    SlotState::Failed(_) => slot
                        .attempts
                        .lock()
                        .map(|a| a.1.elapsed() >= RETRY_AFTER)
                        .unwrap_or(true),
                    SlotState::Connecting => false,
                };
                if reconnect {
                    Self::start(env, slot.clone());
                }
                return slot.clone();
            }
        }
        let (state, _) = watch::channel(SlotState::Connecting);
        let slot = Arc::new(Slot {
            config: cfg,
            revision: rev,
            state,
            attempts: Mutex::new((0, Instant::now())),
        });
        if let Some(old) = slots.insert(slot.config.uuid.clone(), slot.clone()) {
            Self::close_later(env, old);
        }
        Self::start(env, slot.clone());
        slot
    }

    /// The slot of a server if this process has one.
    pub fn get(&self, uuid: &str) -> Option<Arc<Slot>> {
        self.slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(uuid)
            .cloned()
    }

    /// Closes and forgets a server's session (disabled or deleted).
    pub fn remove(&self, env: &Env, uuid: &str) {
        let old = self
            .slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(uuid);
        if let Some(old) = old {
            Self::close_later(env, old);
        }
    }

    /// Closes every session (shutdown).
    pub async fn close_all(&self) {
        let slots: Vec<Arc<Slot>> = self
            .slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain()
            .map(|(_, s)| s)
            .collect();
        for slot in slots {
            if let SlotState::Connected(live) = slot.state() {
                live.close().await;
            }
        }
    }

    /// Calls a tool, reconnecting once when the session turns out to be dead.
    pub async fn call(
        &self,
        env: &Env,
        slot: &Arc<Slot>,
        tool: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> CallOutcome {
        let wait = slot.config.connect_timeout;
        let mut slot = slot.clone();
        for attempt in 0..2 {
            let live = match slot.ready(wait).await {
                Ok(live) => live,
                Err(f) => {
                    return CallOutcome::Err {
                        message: format!("the server is not connected: {}", f.message),
                        broken: true,
                    }
                }
            };
            if live.is_closed() && attempt == 0 {
                slot = self.reconnect(env, &slot);
                continue;
            }
            match live
                .call(tool, arguments.clone(), slot.config.call_timeout)
                .await
            {
                CallOutcome::Err { broken: true, .. } if attempt == 0 => {
                    tracing::info!(server = %slot.config.name, "MCP session lost; reconnecting");
                    slot = self.reconnect(env, &slot);
                }
                outcome => return outcome,
            }
        }
        CallOutcome::Err {
            message: "the MCP session could not be reopened".into(),
            broken: true,
        }
    }

    /// Starts a new session for the same settings (unless another caller already did).
    fn reconnect(&self, env: &Env, slot: &Arc<Slot>) -> Arc<Slot> {
        let current = self.get(&slot.config.uuid);
        match current {
            Some(current) if !Arc::ptr_eq(&current, slot) => current,
            _ => {
                let (state, _) = watch::channel(SlotState::Connecting);
                let fresh = Arc::new(Slot {
                    config: slot.config.clone(),
                    revision: slot.revision.clone(),
                    state,
                    attempts: Mutex::new((0, Instant::now())),
                });
                self.slots
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(fresh.config.uuid.clone(), fresh.clone());
                Self::close_later(env, slot.clone());
                Self::start(env, fresh.clone());
                fresh
            }
        }
    }

    fn start(env: &Env, slot: Arc<Slot>) {
        slot.state.send_replace(SlotState::Connecting);
        let clients = env.clients.clone();
        env.runtime.spawn(async move {
            let mut last = None;
            for (i, pause) in std::iter::once(&Duration::ZERO)
                .chain(ATTEMPT_PAUSES)
                .enumerate()
            {
                tokio::time::sleep(*pause).await;
                if let Ok(mut a) = slot.attempts.lock() {
                    *a = (u32::try_from(i).unwrap_or(u32::MAX), Instant::now());
                }
                match session::connect(&slot.config, &clients).await {
                    Ok(live) => {
                        tracing::info!(server = %slot.config.name, transport = live.transport, tools = live.tools.len(), "MCP server connected");
                        slot.state.send_replace(SlotState::Connected(Arc::new(live)));
                        return;
                    }
                    Err(f) => {
                        tracing::warn!(server = %slot.config.name, error.code = %f.code, "MCP connection attempt failed");
                        // Unreachable or refused settings will not fix themselves in seconds.
                        let hopeless = f.code.starts_with("http_4") || f.code == "process_start";
                        last = Some(f);
                        if hopeless {
                            break;
                        }
                    }
                }
            }
            if let Some(f) = last {
                slot.state.send_replace(SlotState::Failed(f));
            }
        });
    }

    fn close_later(env: &Env, slot: Arc<Slot>) {
        env.runtime.spawn(async move {
            if let SlotState::Connected(live) = slot.state() {
                live.close().await;
            }
        });
    }
}

/// Opens a session for settings that are not saved (the draft test), then closes it.
pub async fn probe(env: &Env, cfg: ServerConfig) -> RuntimeInfo {
    let clients = env.clients.clone();
    let secrets = cfg.secrets();
    let joined = env
        .runtime
        .spawn(async move {
            match session::connect(&cfg, &clients).await {
                Ok(live) => {
                    let live = Arc::new(live);
                    let state = SlotState::Connected(live.clone());
                    live.close().await;
                    state
                }
                Err(f) => SlotState::Failed(f),
            }
        })
        .await;
    let state = joined.unwrap_or_else(|e| {
        SlotState::Failed(Failure {
            code: "runtime_error".into(),
            message: e.to_string(),
        })
    });
    RuntimeInfo::of(&state, 0, &secrets)
}
