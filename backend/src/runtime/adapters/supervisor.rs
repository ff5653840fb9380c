//! Runs the connection-style bots (Telegram polling, the Discord gateway, Slack Socket Mode,
//! OneBot forward WebSocket, the aiocqhttp listener): each enabled one on exactly one replica
//! at a time, under a lease in the session store that its holder renews. Every replica
//! watches the enabled bots (a scan every few seconds, and at once when a bot changes) and
//! competes for the lease of each; when the holder dies its lease lapses and another replica
//! takes over. A bot disabled, deleted or reconfigured is stopped (and restarted with its new
//! config). Each bot runs in its own task: a failing one never blocks the others.
//!
//! Webhook-style bots with platform credentials (Slack's Events API, Lark) are supervised
//! too, only to check the credentials and learn the bot's account (so a wrong token shows in
//! the bot's state before the first event); their events are answered on any replica.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBuilder};
use futures_util::StreamExt;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::bots::adapters as names;
use crate::bots::status::{self, AdapterState, LogLevel};
use crate::entities::bot;
use crate::session_store::SessionStore;
use crate::state::AppState;

const SCAN: Duration = Duration::from_secs(3);
const ADAPTERS: &[&str] = &[
    names::TELEGRAM,
    names::DISCORD,
    names::SLACK,
    names::ONEBOT_V11,
    names::AIOCQHTTP,
    names::LARK,
];

/// This process's supervisor: lets a test kill the adapters as a crash would.
#[derive(Default)]
pub struct Supervisor {
    crashed: CancellationToken,
}

impl Supervisor {
    /// Drops every connection at once without releasing a lease, as a dying process does,
    /// and stops supervising (for tests of a takeover).
    pub fn crash(&self) {
        self.crashed.cancel();
    }
}

struct Runner {
    version: String,
    stop: CancellationToken,
    handle: JoinHandle<()>,
}

fn version_of(bot: &bot::Model) -> String {
    format!("{}|{}|{}", bot.adapter, bot.updated_at, bot.adapter_config)
}

/// Supervises until `stop`; then stops every connection and releases their leases.
pub async fn run(state: AppState, stop: CancellationToken) {
    let crashed = state.parts.get::<Supervisor>().crashed.clone();
    let mut runners: HashMap<String, Runner> = HashMap::new();
    let mut changes = state.store.subscribe(status::CHANGED_CHANNEL).await.ok();
    loop {
        match crate::bots::service::enabled_with_adapters(&state.db, ADAPTERS).await {
            Ok(bots) => reconcile(&state, &mut runners, bots, &crashed),
            Err(e) => tracing::warn!(error = %e, "could not list the bots to run; retrying"),
        }
        let changed = async {
            match changes.as_mut() {
                Some(sub) => sub.next().await.is_some(),
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = crashed.cancelled() => {
                for (_, runner) in runners.drain() {
                    runner.handle.abort();
                }
                return;
            }
            _ = tokio::time::sleep(SCAN) => {}
            alive = changed => {
                if !alive {
                    changes = state.store.subscribe(status::CHANGED_CHANNEL).await.ok();
                }
            }
        }
    }
    for (_, runner) in runners.iter() {
        runner.stop.cancel();
    }
    for (_, runner) in runners.drain() {
        let _ = runner.handle.await;
    }
}

fn reconcile(
    state: &AppState,
    runners: &mut HashMap<String, Runner>,
    bots: Vec<bot::Model>,
    crashed: &CancellationToken,
) {
    let wanted: HashMap<String, bot::Model> = bots
        .into_iter()
        .filter(|b| names::is_supervised(&b.adapter, &b.adapter_config))
        .map(|b| (b.uuid.clone(), b))
        .collect();
    runners.retain(|uuid, runner| {
        let keep = wanted
            .get(uuid)
            .is_some_and(|b| version_of(b) == runner.version && !runner.handle.is_finished());
        if !keep {
            runner.stop.cancel();
        }
        keep
    });
    for (uuid, bot) in wanted {
        if runners.contains_key(&uuid) {
            continue;
        }
        let stop = CancellationToken::new();
        let version = version_of(&bot);
        let handle = tokio::spawn(hold(state.clone(), bot, stop.clone(), crashed.clone()));
        runners.insert(
            uuid,
            Runner {
                version,
                stop,
                handle,
            },
        );
    }
}

/// Competes for the bot's lease; while holding it, runs the connection.
async fn hold(
    state: AppState,
    bot: bot::Model,
    stop: CancellationToken,
    crashed: CancellationToken,
) {
    let key = format!("adapter-lease:{}", bot.uuid);
    let ttl = state
        .settings
        .bots
        .adapter_lease
        .max(Duration::from_millis(300));
    let store = state.store.clone();
    loop {
        if stop.is_cancelled() {
            return;
        }
        let token = match store.try_lock(&key, ttl).await {
            Ok(Some(token)) => token,
            Ok(None) => {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = tokio::time::sleep(ttl / 3) => continue,
                }
            }
            Err(e) => {
                tracing::warn!(bot = %bot.uuid, error = %e, "session store unavailable; cannot take a bot's lease");
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = tokio::time::sleep(ttl / 3) => continue,
                }
            }
        };
        let session = stop.child_token();
        let renew = {
            let (store, key, token, session) =
                (store.clone(), key.clone(), token.clone(), session.clone());
            let bot = bot.uuid.clone();
            async move {
                loop {
                    tokio::select! {
                        _ = session.cancelled() => return,
                        _ = tokio::time::sleep(ttl / 3) => {}
                    }
                    if !matches!(store.extend_lock(&key, &token, ttl).await, Ok(true)) {
                        tracing::warn!(bot, "lost a bot's lease; stopping its connection");
                        session.cancel();
                        return;
                    }
                }
            }
        };
        let connection = connect(state.clone(), bot.clone(), session.clone());
        tokio::select! {
            _ = crashed.cancelled() => return, // dies holding the lease
            _ = async { tokio::join!(renew, async { connection.await; session.cancel(); }) } => {}
        }
        let _ = store.unlock(&key, &token).await;
        if stop.is_cancelled() {
            status::set(store.as_ref(), &bot.uuid, AdapterState::Stopped, None, None).await;
            return;
        }
    }
}

/// Runs the bot's connection until `stop`.
async fn connect(state: AppState, bot: bot::Model, stop: CancellationToken) {
    let bot = Arc::new(bot);
    match bot.adapter.as_str() {
        names::TELEGRAM => super::telegram::run(state, bot, stop).await,
        names::DISCORD => super::discord::run(state, bot, stop).await,
        names::SLACK if bot.adapter_config["socket_mode"] == serde_json::json!(true) => {
            super::slack::run_socket(state, bot, stop).await
        }
        names::SLACK => super::slack::run_events(state, bot, stop).await,
        names::LARK => super::lark::run_probe(state, bot, stop).await,
        names::ONEBOT_V11 => super::onebot::run_forward(state, bot, stop).await,
        names::AIOCQHTTP => super::onebot::run_listener(state, bot, stop).await,
        _ => {}
    }
}

/// How one connection session ended.
pub enum Ended {
    /// It was up and then closed or dropped: reconnect soon.
    Closed(String),
    /// It ran until told to stop.
    Stopped,
}

/// Runs `session` again and again until `stop`: a session that was up and ended is
/// reconnected at once (then with back-off if reconnecting fails); a failure to connect
/// (wrong token, unreachable platform) shows in the bot's state and log and is retried with
/// exponential back-off.
pub async fn reconnecting<F, Fut>(
    state: &AppState,
    bot: &str,
    stop: &CancellationToken,
    mut session: F,
) where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Ended, String>>,
{
    let builder = ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(300))
        .with_max_delay(Duration::from_secs(60))
        .with_jitter()
        .without_max_times();
    let mut backoff = builder.build();
    let store = state.store.as_ref();
    let replica = state.replica.to_string();
    loop {
        status::set(store, bot, AdapterState::Connecting, None, Some(&replica)).await;
        let started = std::time::Instant::now();
        let ended = tokio::select! {
            _ = stop.cancelled() => return,
            ended = session() => ended,
        };
        let wait = match ended {
            Ok(Ended::Stopped) => return,
            Ok(Ended::Closed(why)) => {
                log_closed(store, bot, &why).await;
                if started.elapsed() > Duration::from_secs(30) {
                    backoff = builder.build();
                }
                backoff.next().unwrap_or(Duration::from_secs(60))
            }
            Err(why) => {
                status::set(
                    store,
                    bot,
                    AdapterState::Error,
                    Some(why.clone()),
                    Some(&replica),
                )
                .await;
                status::log(store, bot, LogLevel::Error, why).await;
                backoff.next().unwrap_or(Duration::from_secs(60))
            }
        };
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

async fn log_closed(store: &dyn SessionStore, bot: &str, why: &str) {
    let text = format!("connection closed ({why}); reconnecting");
    status::log(store, bot, LogLevel::Warning, text).await;
}

/// Records, as the reconnect loop does, that a live connection closed and is being
/// re-established, for a client library that reconnects by itself (the state is
/// `connecting` until the adapter calls [`running`] again).
pub async fn reconnected_by_client(state: &AppState, bot: &str, why: &str) {
    let replica = state.replica.to_string();
    let store = state.store.as_ref();
    log_closed(store, bot, why).await;
    status::set(store, bot, AdapterState::Connecting, None, Some(&replica)).await;
}

/// Marks the bot running on this replica.
pub async fn running(state: &AppState, bot: &str) {
    let replica = state.replica.to_string();
    status::set(
        state.store.as_ref(),
        bot,
        AdapterState::Running,
        None,
        Some(&replica),
    )
    .await;
}
