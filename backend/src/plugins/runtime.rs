//! One Workspace's plugin runtime on this replica: the `lbp rt -s` child (or the external
//! runtime over WebSocket), supervised. The runtime pins one Workspace per process
//! (Part B4), so each Workspace with plugins gets its own child, whose working directory
//! holds exactly that Workspace's enabled plugins, unpacked from the database. Any change of
//! the installed set (install, enable, config, uninstall) restarts the child with the new
//! set; a crash restarts it after a back-off (1 s doubling to 60 s).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;
use utoipa::ToSchema;
use uuid::Uuid;

use super::conn::{Conn, Host};
use super::frame::{self, Decoder};
use super::host::PluginHost;
use super::service;
use crate::access::WorkspaceCtx;
use crate::state::AppState;

/// How long the runtime may take from spawn to answering the handshake.
const HANDSHAKE_WITHIN: Duration = Duration::from_secs(60);
/// How long plugins may take to initialize after the handshake.
const PLUGINS_WITHIN: Duration = Duration::from_secs(90);
const LOG_LINES: usize = 2000;
/// A line longer than this (a stray print) is cut; protocol lines are at most ~16 KiB.
const READ_LINE_MAX: usize = 1024 * 1024;

/// This replica's runtime for one Workspace, as callers see it.
#[derive(Clone)]
pub enum Phase {
    Starting,
    Ready(Arc<Live>),
    /// Why it is not running (it retries after a back-off).
    Failed(String),
    Stopped,
}

/// A connected, handshaken runtime with its plugins initialized.
pub struct Live {
    pub conn: Arc<Conn>,
    /// The installed set it runs (see [`service::fingerprint`]).
    pub fingerprint: String,
    pub binding: Value,
    /// `list_plugins` as the runtime answered it after start.
    pub plugins: Vec<Value>,
    /// `list_tools`: component manifests `{owner, manifest, rel_path}`.
    pub tools: Vec<Value>,
    pub started_in: Duration,
}

/// One log line of the runtime (its stderr) or of the host about it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LogLine {
    /// Unix seconds.
    pub ts: f64,
    pub level: String,
    pub text: String,
}

pub struct Runtime {
    pub ws: Uuid,
    phase: watch::Sender<Phase>,
    /// The installed set the database wants; a change restarts the child.
    wanted: watch::Sender<String>,
    stop: CancellationToken,
    logs: Mutex<VecDeque<LogLine>>,
}

fn now_ts() -> f64 {
    chrono::Utc::now().timestamp_micros() as f64 / 1e6
}

/// The runtime's log lines look like `[12-01 19:10:27.650] file.py (451) - [INFO] : text`.
fn level_of(line: &str) -> String {
    for l in ["ERROR", "WARNING", "INFO", "DEBUG", "CRITICAL"] {
        if line.contains(&format!("[{l}]")) {
            return l.to_string();
        }
    }
    "INFO".into()
}

impl Runtime {
    pub fn new(ws: Uuid, wanted: String) -> Arc<Self> {
        Arc::new(Self {
            ws,
            phase: watch::channel(Phase::Starting).0,
            wanted: watch::channel(wanted).0,
            stop: CancellationToken::new(),
            logs: Mutex::new(VecDeque::new()),
        })
    }

    pub fn phase(&self) -> Phase {
        self.phase.borrow().clone()
    }

    /// Asks for the installed set `fingerprint` (restarts the child when it differs).
    pub fn want(&self, fingerprint: &str) {
        self.wanted.send_if_modified(|w| {
            if w != fingerprint {
                *w = fingerprint.to_string();
                true
            } else {
                false
            }
        });
    }

    pub fn stop(&self) {
        self.stop.cancel();
    }

    fn log(&self, level: &str, text: String) {
        let mut logs = self.logs.lock().unwrap_or_else(|p| p.into_inner());
        if logs.len() >= LOG_LINES {
            logs.pop_front();
        }
        logs.push_back(LogLine {
            ts: now_ts(),
            level: level.into(),
            text,
        });
    }

    pub fn logs(&self) -> Vec<LogLine> {
        self.logs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .cloned()
            .collect()
    }

    /// Waits until the runtime runs the wanted set (or failed, or `wait` passed).
    pub async fn ready(&self, wait: Duration) -> Result<Arc<Live>, String> {
        let mut rx = self.phase.subscribe();
        let wanted = self.wanted.borrow().clone();
        let found = tokio::time::timeout(wait, async {
            loop {
                let phase = rx.borrow_and_update().clone();
                match phase {
                    Phase::Ready(live) if live.fingerprint == wanted && !live.conn.is_closed() => {
                        return Ok(live)
                    }
                    Phase::Failed(why) => return Err(why),
                    Phase::Stopped => return Err("the plugin runtime is stopped".to_string()),
                    _ => {}
                }
                if rx.changed().await.is_err() {
                    return Err("the plugin runtime is gone".to_string());
                }
            }
        })
        .await;
        found.unwrap_or_else(|_| Err("the plugin runtime is still starting".into()))
    }

    /// Runs the supervisor until stopped; spawned by the hub on the main runtime.
    pub async fn supervise(self: Arc<Self>, state: AppState, ws: WorkspaceCtx) {
        let mut backoff = Duration::from_secs(1);
        let dir = runtime_dir(&state, &self.ws);
        loop {
            if self.stop.is_cancelled() {
                break;
            }
            self.phase.send_replace(Phase::Starting);
            let started = Instant::now();
            let outcome = self.run_once(&state, &ws, &dir, started).await;
            match outcome {
                Run::Stopped => break,
                Run::Changed => {
                    backoff = Duration::from_secs(1);
                    continue;
                }
                Run::Failed(why) => {
                    tracing::warn!(workspace = %self.ws, error = %why, retry_in_s = backoff.as_secs(), "plugin runtime failed");
                    self.log("ERROR", format!("host: {why}"));
                    self.phase.send_replace(Phase::Failed(why));
                    // A runtime that ran a while before dying starts over with a short wait.
                    if started.elapsed() > Duration::from_secs(120) {
                        backoff = Duration::from_secs(1);
                    }
                    let mut wanted = self.wanted.subscribe();
                    wanted.mark_unchanged();
                    tokio::select! {
                        () = tokio::time::sleep(backoff) => {}
                        // A new installed set is worth an immediate try.
                        _ = wanted.changed() => {}
                        () = self.stop.cancelled() => break,
                    }
                    backoff = (backoff * 2).min(Duration::from_secs(60));
                }
            }
        }
        self.phase.send_replace(Phase::Stopped);
        let _ = std::fs::remove_dir_all(&dir);
    }

    async fn run_once(
        self: &Arc<Self>,
        state: &AppState,
        ws: &WorkspaceCtx,
        dir: &Path,
        started: Instant,
    ) -> Run {
        let mut wanted = self.wanted.subscribe();
        let (rows, fingerprint) = match service::deployable(&state.db, ws).await {
            Ok(found) => found,
            Err(e) => return Run::Failed(format!("cannot read the installed plugins: {e}")),
        };
        wanted.mark_unchanged();
        if let Err(e) = deploy(dir, &rows) {
            return Run::Failed(format!("cannot unpack the plugins: {e}"));
        }
        let host: Arc<dyn Host> = Arc::new(PluginHost::new(state.clone(), ws.clone()));
        let child = match spawn(state, dir, self.clone(), host).await {
            Ok(c) => c,
            Err(why) => return Run::Failed(why),
        };
        let binding = binding(&state.instance_uuid, &self.ws);
        let live = tokio::select! {
            r = handshake(state, &child.conn, &binding, rows.len(), started) => r,
            () = child.conn.closed() => Err(child.exit_reason(self).await),
            () = self.stop.cancelled() => { child.stop().await; return Run::Stopped }
        };
        let live = match live {
            Ok((plugins, tools)) => Arc::new(Live {
                conn: child.conn.clone(),
                fingerprint: fingerprint.clone(),
                binding,
                plugins,
                tools,
                started_in: started.elapsed(),
            }),
            Err(why) => {
                child.stop().await;
                return Run::Failed(why);
            }
        };
        tracing::info!(workspace = %self.ws, plugins = rows.len(), started_ms = live.started_in.as_millis() as u64, "plugin runtime ready");
        self.log(
            "INFO",
            format!("host: runtime ready in {} ms", live.started_in.as_millis()),
        );
        self.phase.send_replace(Phase::Ready(live));
        let fp = fingerprint.clone();
        tokio::select! {
            () = child.conn.closed() => Run::Failed(child.exit_reason(self).await),
            () = changed(&mut wanted, &fp) => { child.stop().await; Run::Changed }
            () = self.stop.cancelled() => { child.stop().await; Run::Stopped }
        }
    }
}

/// Resolves when the wanted set is no longer `running` (the guard never crosses an await).
async fn changed(wanted: &mut watch::Receiver<String>, running: &str) {
    let _ = wanted.wait_for(|w| w != running).await.map(|_| ());
}

enum Run {
    Stopped,
    Changed,
    Failed(String),
}

/// `<data_dir>/plugin-runtime/<replica>/<workspace>`: this process's, removed when it stops.
fn runtime_dir(state: &AppState, ws: &Uuid) -> PathBuf {
    state
        .settings
        .data_dir
        .join("plugin-runtime")
        .join(&*state.replica)
        .join(ws.to_string())
}

/// Writes `data/plugins/<author>__<name>/` for each plugin, keeping an unchanged one (and
/// the dependency environment the runtime built in it), removing the rest.
fn deploy(dir: &Path, rows: &[(String, String, Vec<u8>)]) -> std::io::Result<()> {
    let plugins = dir.join("data").join("plugins");
    std::fs::create_dir_all(&plugins)?;
    let wanted: Vec<String> = rows
        .iter()
        .map(|(id, _, _)| id.replace('/', "__"))
        .collect();
    for entry in std::fs::read_dir(&plugins)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().to_string();
        if !wanted.contains(&name) {
            std::fs::remove_dir_all(entry.path())?;
        }
    }
    for ((_, digest, package), name) in rows.iter().zip(&wanted) {
        let target = plugins.join(name);
        let marker = target.join(".langbot-digest");
        if std::fs::read_to_string(&marker).ok().as_deref() == Some(digest.as_str()) {
            continue;
        }
        if target.exists() {
            std::fs::remove_dir_all(&target)?;
        }
        super::package::unpack(package, &target)?;
        std::fs::write(marker, digest)?;
    }
    Ok(())
}

/// LangBot's deterministic "OSS bridge" binding for a Workspace (Part B4): stable for the
/// life of the runtime, which pins it.
pub fn binding(instance: &str, ws: &Uuid) -> Value {
    let seed = format!("langbot:oss-plugin-bridge:{instance}:{ws}");
    json!({
        "instance_uuid": instance,
        "workspace_uuid": ws.to_string(),
        "placement_generation": 1,
        "installation_uuid": Uuid::new_v5(&Uuid::NAMESPACE_URL, seed.as_bytes()).to_string(),
        "runtime_revision": 1,
        "artifact_digest": hex::encode(Sha256::digest(seed.as_bytes())),
    })
}

fn runtime_config(instance: &str) -> Value {
    json!({
        "runtime_identity": {"instance_uuid": instance, "runtime_id": format!("{instance}:plugin-runtime")},
        "worker_policy": {"max_cpus": 1.0, "max_memory_mb": 512, "max_pids": 128,
                          "max_open_files": 256, "max_file_size_mb": 512},
        "runtime_profile": "oss_dev",
    })
}

/// Ping, the immutable runtime config, one tenant action pinning the Workspace, then waits
/// until each deployed plugin is initialized and lists the tools.
async fn handshake(
    state: &AppState,
    conn: &Conn,
    binding: &Value,
    deployed: usize,
    started: Instant,
) -> Result<(Vec<Value>, Vec<Value>), String> {
    let step = Duration::from_secs(10);
    let left = |t: Duration| {
        t.saturating_sub(started.elapsed())
            .max(Duration::from_secs(1))
    };
    conn.call("__ping", json!({}), None, left(HANDSHAKE_WITHIN))
        .await
        .map_err(|e| format!("the plugin runtime did not answer: {e}"))?;
    conn.call(
        "set_runtime_config",
        runtime_config(&state.instance_uuid),
        None,
        step,
    )
    .await
    .map_err(|e| format!("set_runtime_config failed: {e}"))?;
    let deadline = Instant::now() + PLUGINS_WITHIN;
    let plugins = loop {
        let listed = conn
            .call("list_plugins", json!({}), Some(binding), step)
            .await
            .map_err(|e| format!("list_plugins failed: {e}"))?;
        let plugins = listed["plugins"].as_array().cloned().unwrap_or_default();
        let initialized = plugins
            .iter()
            .filter(|p| p["status"] == "initialized")
            .count();
        if initialized >= deployed || Instant::now() >= deadline {
            break plugins;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let tools = conn
        .call(
            "list_tools",
            json!({"include_plugins": null}),
            Some(binding),
            Duration::from_secs(20),
        )
        .await
        .map_err(|e| format!("list_tools failed: {e}"))?;
    Ok((
        plugins,
        tools["tools"].as_array().cloned().unwrap_or_default(),
    ))
}

/// A spawned runtime process and its connection.
struct Child {
    conn: Arc<Conn>,
    process: Option<tokio::sync::Mutex<tokio::process::Child>>,
    group: Option<Group>,
    ws_task: Option<tokio::task::JoinHandle<()>>,
}

/// Kills the runtime's whole process group (it and its plugin workers) when dropped, so a
/// host that goes away without an orderly stop leaves no workers behind.
struct Group(u32);

fn signal_group(pgid: u32, signal: &str) {
    // No libc here (unsafe is forbidden): `kill` the group with the system's command.
    let _ = std::process::Command::new("kill")
        .args([signal, "--", &format!("-{pgid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

impl Drop for Group {
    fn drop(&mut self) {
        signal_group(self.0, "-KILL");
    }
}

impl Child {
    /// SIGTERM to the group (the runtime shuts its plugins down), then SIGKILL after 5 s.
    async fn stop(&self) {
        self.conn.close();
        if let Some(t) = &self.ws_task {
            t.abort();
        }
        let (Some(p), Some(g)) = (&self.process, &self.group) else {
            return;
        };
        signal_group(g.0, "-TERM");
        let mut p = p.lock().await;
        if tokio::time::timeout(Duration::from_secs(5), p.wait())
            .await
            .is_err()
        {
            let _ = p.start_kill();
            let _ = p.wait().await;
        }
        signal_group(g.0, "-KILL");
    }

    /// Why the connection ended: the exit status and the last lines the runtime logged.
    async fn exit_reason(&self, rt: &Runtime) -> String {
        let status = match &self.process {
            Some(p) => {
                let mut p = p.lock().await;
                match tokio::time::timeout(Duration::from_secs(2), p.wait()).await {
                    Ok(Ok(s)) => format!("exited ({s})"),
                    _ => {
                        // Its stdout closed but it lives on: end it.
                        drop(p);
                        self.stop().await;
                        "closed its control connection".to_string()
                    }
                }
            }
            None => "closed the WebSocket connection".to_string(),
        };
        let tail: Vec<String> = rt
            .logs()
            .into_iter()
            .rev()
            .filter(|l| !l.text.starts_with("host:"))
            .take(3)
            .map(|l| l.text)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if tail.is_empty() {
            format!("the plugin runtime {status}")
        } else {
            format!("the plugin runtime {status}: {}", tail.join(" | "))
        }
    }
}

/// A free local port for the runtime's debug server (it always binds one, even in stdio mode;
/// each runtime on this machine needs its own).
fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

async fn spawn(
    state: &AppState,
    dir: &Path,
    rt: Arc<Runtime>,
    host: Arc<dyn Host>,
) -> Result<Child, String> {
    let settings = &state.settings.plugin;
    if let Some(url) = &settings.runtime_ws_url {
        return connect_ws(url, settings.runtime_control_token.as_deref(), rt, host).await;
    }
    let port = free_port().map_err(|e| format!("no free port for the runtime: {e}"))?;
    let python = &settings.runtime_python;
    let mut cmd = tokio::process::Command::new(python);
    cmd.args(["-m", "langbot_plugin.cli.__init__", "rt", "-s"])
        .args(["--ws-debug-port", &port.to_string()]);
    if !settings.install_dependencies {
        cmd.arg("--skip-deps-check");
    }
    cmd.current_dir(dir)
        .env("PYTHONUNBUFFERED", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start the plugin runtime with {python}: {e}"))?;
    let group = child.id().map(Group);
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err("the plugin runtime's pipes are missing".into());
    };
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let conn = Conn::new(tx);
    tokio::spawn(async move {
        let mut stdin = stdin;
        while let Some(text) = rx.recv().await {
            for line in frame::encode(&text) {
                let mut bytes = line.into_bytes();
                bytes.push(b'\n');
                if stdin.write_all(&bytes).await.is_err() {
                    return;
                }
            }
            if stdin.flush().await.is_err() {
                return;
            }
        }
    });
    let c = conn.clone();
    tokio::spawn(async move {
        let mut reader = BufReader::new(stdout);
        let mut decoder = Decoder::default();
        while let Some(line) = read_line(&mut reader).await {
            match decoder.feed(&line) {
                Ok(Some(msg)) => c.receive(msg, &host),
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(error = %e, "plugin runtime framing broken; closing");
                    break;
                }
            }
        }
        c.close();
    });
    let logs = rt.clone();
    tokio::spawn(async move {
        let mut reader = BufReader::new(stderr);
        while let Some(line) = read_line(&mut reader).await {
            let line = line.trim_end().to_string();
            if !line.is_empty() {
                tracing::debug!(target: "plugin_runtime", "{line}");
                logs.log(&level_of(&line), line);
            }
        }
    });
    Ok(Child {
        conn,
        process: Some(tokio::sync::Mutex::new(child)),
        group,
        ws_task: None,
    })
}

/// One line, at most [`READ_LINE_MAX`] bytes kept; `None` at the end of the stream.
async fn read_line<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> Option<String> {
    let mut buf = Vec::new();
    loop {
        let chunk = match reader.fill_buf().await {
            Ok(c) => c,
            Err(_) => return None,
        };
        if chunk.is_empty() {
            return (!buf.is_empty()).then(|| String::from_utf8_lossy(&buf).into_owned());
        }
        let (take, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = READ_LINE_MAX.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..take.min(room)]);
        reader.consume(take);
        if done {
            return Some(String::from_utf8_lossy(&buf).into_owned());
        }
    }
}

/// The external runtime (`plugin.runtime_ws_url`), with the control token header.
async fn connect_ws(
    url: &str,
    token: Option<&str>,
    rt: Arc<Runtime>,
    host: Arc<dyn Host>,
) -> Result<Child, String> {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    use tokio_tungstenite::tungstenite::Message;
    let mut request = url
        .into_client_request()
        .map_err(|e| format!("plugin.runtime_ws_url is not a WebSocket URL: {e}"))?;
    if let Some(t) = token {
        let value = t
            .parse()
            .map_err(|_| "plugin.runtime_control_token is not a valid header value".to_string())?;
        request
            .headers_mut()
            .insert("X-LangBot-Plugin-Runtime-Token", value);
    }
    let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
        .max_message_size(Some(frame::MESSAGE_MAX))
        .max_frame_size(Some(frame::MESSAGE_MAX));
    let (socket, _) = tokio::time::timeout(
        Duration::from_secs(10),
        tokio_tungstenite::connect_async_with_config(request, Some(config), false),
    )
    .await
    .map_err(|_| format!("the plugin runtime at {url} did not accept within 10 s"))?
    .map_err(|e| format!("cannot connect to the plugin runtime at {url}: {e}"))?;
    rt.log("INFO", format!("host: connected to {url}"));
    let (mut sink, mut stream) = socket.split();
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let conn = Conn::new(tx);
    let c = conn.clone();
    let task = tokio::spawn(async move {
        loop {
            tokio::select! {
                out = rx.recv() => match out {
                    Some(text) => if sink.send(Message::text(text)).await.is_err() { break },
                    None => break,
                },
                msg = stream.next() => match msg {
                    Some(Ok(Message::Text(t))) => {
                        if let Ok(v) = serde_json::from_str::<Value>(t.as_str()) {
                            c.receive(v, &host);
                        }
                    }
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(_)) => {}
                },
            }
        }
        c.close();
    });
    Ok(Child {
        conn,
        process: None,
        group: None,
        ws_task: Some(task),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bridge_binding_is_stable_and_well_formed() {
        let ws = Uuid::nil();
        let a = binding("inst", &ws);
        assert_eq!(a, binding("inst", &ws));
        assert_eq!(a["artifact_digest"].as_str().map(str::len), Some(64));
        assert_ne!(
            a["installation_uuid"],
            binding("other", &ws)["installation_uuid"]
        );
    }

    #[test]
    fn log_levels_are_read_from_the_runtime_format() {
        assert_eq!(
            level_of("[12-01 19:10:27.904] handler.py (1210) - [WARNING] : x"),
            "WARNING"
        );
        assert_eq!(level_of("plain"), "INFO");
    }
}
