//! The live in-flight feed: `GET /api/v1/monitoring/in-flight/stream` (SSE) and the
//! `GET /api/v1/monitoring/in-flight` snapshot. Frames are `data: <json>\n\n` with
//! `{"kind":"snapshot","data":{items,active_total,truncated}}` or `{"kind":"heartbeat"}`.
//! Covered: live updates on the same replica and, over Redis pub/sub, across replicas (also
//! after a Redis outage); the heartbeat after silence; the connection lifetime and a
//! reconnect; the per-Workspace and total viewer caps (429 `rate_limited` with `Retry-After`)
//! and a freed slot; authentication, `resource.view` and Workspace isolation; what the
//! snapshot lists (live and recent executions, newest first, truncated beyond 100).

use std::time::Duration;

use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use reqwest::Method;
use serde_json::{json, Value};
use tokio::time::Instant;

use crate::helpers::runtime_rig::{text, Rig};
use crate::helpers::{spawn_app_with, Response, TestApp};

const STREAM: &str = "/api/v1/monitoring/in-flight/stream";
const SNAPSHOT: &str = "/api/v1/monitoring/in-flight";

/// How long the fake model takes, so a turn stays in flight (under the provider's 5 s timeout).
const SLOW: Duration = Duration::from_secs(3);

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn redis_pass() -> bool {
    if std::env::var("TEST_REDIS_URL").is_ok_and(|u| !u.is_empty()) {
        return true;
    }
    eprintln!("skipped: TEST_REDIS_URL is not set (SQLite + in-process pass)");
    false
}

fn host_port(url: &str) -> String {
    let after_scheme = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = after_scheme.split('/').next().unwrap_or(after_scheme);
    authority
        .rsplit_once('@')
        .map_or(authority, |(_, hp)| hp)
        .to_string()
}

/// How a viewer presents itself.
#[derive(Debug, Clone, Copy)]
enum Cred<'a> {
    None,
    Bearer(&'a str),
    ApiKey(&'a str),
}

/// An open SSE response, read frame by frame.
struct Feed {
    body: BoxStream<'static, reqwest::Result<Vec<u8>>>,
    buf: Vec<u8>,
}

/// What waiting for the next frame gave.
#[derive(Debug)]
enum Next {
    Frame(Value),
    Ended,
    Silent,
}

/// Opens the stream on `app` as `cred` (in `workspace` when given): the feed on 200, the
/// parsed response otherwise. Each viewer gets its own client (its own connection), so
/// dropping the feed closes the connection.
async fn try_open(
    app: &TestApp,
    cred: Cred<'_>,
    workspace: Option<&str>,
) -> Result<Feed, Response> {
    let mut req = reqwest::Client::new().get(format!("{}{STREAM}", app.address));
    req = match cred {
        Cred::None => req,
        Cred::Bearer(t) => req.bearer_auth(t),
        Cred::ApiKey(k) => req.header("x-api-key", k),
    };
    if let Some(ws) = workspace {
        req = req.header("x-workspace-id", ws);
    }
    let res = tokio::time::timeout(Duration::from_secs(10), req.send())
        .await
        .expect("the stream answered within 10 s")
        .expect("stream request failed");
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    if status == 200 {
        let content_type = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        assert!(
            content_type.starts_with("text/event-stream"),
            "content-type {content_type:?}"
        );
        return Ok(Feed {
            body: res.bytes_stream().map(|c| c.map(|b| b.to_vec())).boxed(),
            buf: Vec::new(),
        });
    }
    let text = tokio::time::timeout(Duration::from_secs(10), res.text())
        .await
        .expect("the refusal body within 10 s")
        .expect("read refusal body");
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    Err(Response {
        status,
        headers,
        text,
        body,
    })
}

/// Opens the stream, asserting it is accepted.
async fn open(app: &TestApp, cred: Cred<'_>, workspace: Option<&str>) -> Feed {
    match try_open(app, cred, workspace).await {
        Ok(feed) => feed,
        Err(res) => panic!("stream refused: {} {}", res.status, res.text),
    }
}

/// Opens the stream, asserting it is refused; returns the refusal.
async fn refused(app: &TestApp, cred: Cred<'_>, workspace: Option<&str>) -> Response {
    match try_open(app, cred, workspace).await {
        Ok(_) => panic!("the stream was accepted ({cred:?}, workspace {workspace:?})"),
        Err(res) => res,
    }
}

/// Asserts a 429 `rate_limited` refusal with a positive `Retry-After`.
fn assert_capped(res: &Response) {
    res.assert_error(429, "rate_limited");
    let retry: u64 = res
        .header("retry-after")
        .unwrap_or_else(|| panic!("no Retry-After: {:?}", res.headers))
        .parse()
        .expect("numeric Retry-After");
    assert!(retry >= 1, "Retry-After {retry}");
}

impl Feed {
    /// The next frame, the end of the body, or silence for `within`.
    async fn next(&mut self, within: Duration) -> Next {
        let deadline = Instant::now() + within;
        loop {
            if let Some(end) = self.buf.windows(2).position(|w| w == b"\n\n") {
                let raw: Vec<u8> = self.buf.drain(..end + 2).collect();
                let raw = String::from_utf8(raw).expect("UTF-8 frame");
                let data: Vec<&str> = raw
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if data.is_empty() {
                    continue;
                }
                let frame = data.join("\n");
                return Next::Frame(
                    serde_json::from_str(&frame)
                        .unwrap_or_else(|e| panic!("frame is not JSON ({e}): {frame:?}")),
                );
            }
            match tokio::time::timeout_at(deadline, self.body.next()).await {
                Err(_) => return Next::Silent,
                Ok(None) => {
                    assert!(
                        self.buf.iter().all(u8::is_ascii_whitespace),
                        "the body ended inside a frame: {:?}",
                        String::from_utf8_lossy(&self.buf)
                    );
                    return Next::Ended;
                }
                Ok(Some(Err(e))) => panic!("reading the stream failed: {e}"),
                Ok(Some(Ok(chunk))) => self.buf.extend_from_slice(&chunk),
            }
        }
    }

    /// The next frame, which must come within `within`.
    async fn frame(&mut self, within: Duration) -> Value {
        match self.next(within).await {
            Next::Frame(f) => f,
            other => panic!("expected a frame within {within:?}, got {other:?}"),
        }
    }

    /// The first snapshot frame: the one a viewer gets on connecting.
    async fn first_snapshot(&mut self) -> Value {
        let frame = self.frame(Duration::from_secs(5)).await;
        assert_eq!(frame["kind"], "snapshot", "the first frame: {frame}");
        assert_snapshot_shape(&frame["data"]);
        frame["data"].clone()
    }

    /// Reads frames until a snapshot satisfies `pred` (returning its data); panics with the
    /// frames seen if none does within `within`.
    async fn snapshot_where(
        &mut self,
        within: Duration,
        what: &str,
        pred: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = Instant::now() + within;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next(left).await {
                Next::Frame(f) if f["kind"] == "snapshot" => {
                    assert_snapshot_shape(&f["data"]);
                    if pred(&f["data"]) {
                        return f["data"].clone();
                    }
                    seen.push(f);
                }
                Next::Frame(f) => seen.push(f),
                other => panic!(
                    "no snapshot where {what} within {within:?} ({other:?}); frames: {seen:#?}"
                ),
            }
        }
    }
}

fn assert_snapshot_shape(data: &Value) {
    assert!(data["items"].is_array(), "{data}");
    assert!(data["active_total"].is_u64(), "{data}");
    assert!(data["truncated"].is_boolean(), "{data}");
}

fn items(snapshot: &Value) -> &[Value] {
    snapshot["items"].as_array().map_or(&[], Vec::as_slice)
}

/// The item of a running execution at the `ai` stage in session `session`.
fn running_in<'a>(snapshot: &'a Value, session: &str) -> Option<&'a Value> {
    items(snapshot).iter().find(|i| {
        i["session_id"] == session && i["status"] == "running" && i["progress_event"] == "ai"
    })
}

/// Polls the snapshot endpoint until a running execution at the `ai` stage shows in `session`.
async fn wait_running(app: &TestApp, token: &str, session: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let snap = app.get_as(token, SNAPSHOT).await;
        let data = snap.data().clone();
        if running_in(&data, session).is_some() {
            return data;
        }
        assert!(
            Instant::now() < deadline,
            "no running execution in {session} within 5 s: {data}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Accepted within `within` once a slot frees up (refusals meanwhile must be the cap's 429).
async fn open_when_free(
    app: &TestApp,
    cred: Cred<'_>,
    workspace: Option<&str>,
    within: Duration,
) -> Feed {
    let deadline = Instant::now() + within;
    loop {
        match try_open(app, cred, workspace).await {
            Ok(feed) => return feed,
            Err(res) => {
                assert_capped(&res);
                assert!(
                    Instant::now() < deadline,
                    "the slot of a dropped viewer was not freed within {within:?}"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Live updates
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_viewer_sees_a_turn_start_and_finish_live() {
    let app = spawn_app_with(|_| {}).await;
    let rig = Rig::with_echo(&app, json!({}), SLOW).await;
    let mut feed = open(&app, Cred::Bearer(&rig.owner), None).await;
    let first = feed.first_snapshot().await;
    assert_eq!(first["items"], json!([]), "{first}");
    assert_eq!(first["active_total"], 0);
    assert_eq!(first["truncated"], false);

    let res = rig.send(&app, text("live", "watch me")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    // Well before the 15 s reconcile: the change was announced.
    let running = feed
        .snapshot_where(Duration::from_secs(5), "the turn runs", |s| {
            running_in(s, "person_live").is_some()
        })
        .await;
    assert_eq!(running["active_total"], 1, "{running}");
    let item = running_in(&running, "person_live").unwrap();
    assert_eq!(item["bot_id"], rig.bot.as_str());
    assert_eq!(item["pipeline_id"], rig.pipeline.as_str());
    let id = item["id"].as_str().unwrap().to_string();

    // The finish is announced too; the execution stays listed as recent.
    let done = feed
        .snapshot_where(SLOW + Duration::from_secs(4), "the turn finished", |s| {
            s["active_total"] == 0
                && items(s)
                    .iter()
                    .any(|i| i["id"] == id.as_str() && i["status"] == "completed")
        })
        .await;
    assert_eq!(items(&done).len(), 1, "{done}");
    rig.callbacks(1).await;
}

#[tokio::test]
async fn a_turn_on_one_replica_reaches_viewers_on_another_through_pub_sub() {
    if !redis_pass() {
        return;
    }
    let a = spawn_app_with(|_| {}).await;
    let rig = Rig::with_echo(&a, json!({}), SLOW).await;
    let b = a.sibling().await;
    let mut feed = open(&b, Cred::Bearer(&rig.owner), None).await;
    let first = feed.first_snapshot().await;
    assert_eq!(first["items"], json!([]), "{first}");
    assert_eq!(
        b.state
            .parts
            .get::<langbot::monitoring::inflight::InflightHub>()
            .viewers(),
        1
    );
    assert_eq!(
        a.state
            .parts
            .get::<langbot::monitoring::inflight::InflightHub>()
            .viewers(),
        0,
        "the viewer is on replica B"
    );

    // B's producer only reloads on an announced change or every 15 s: a snapshot with A's
    // turn well within that comes from the announcement crossing Redis.
    let sent = Instant::now();
    let res = rig.send(&a, text("remote", "through replica A")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    let running = feed
        .snapshot_where(Duration::from_secs(5), "A's turn runs", |s| {
            running_in(s, "person_remote").is_some()
        })
        .await;
    assert!(
        sent.elapsed() < Duration::from_secs(5),
        "{:?}",
        sent.elapsed()
    );
    assert_eq!(running["active_total"], 1, "{running}");
    let id = running_in(&running, "person_remote").unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        rig.callback_count().await,
        0,
        "the turn has not replied yet"
    );

    // Its finish on A reaches B as well.
    feed.snapshot_where(SLOW + Duration::from_secs(4), "A's turn finished", |s| {
        s["active_total"] == 0
            && items(s)
                .iter()
                .any(|i| i["id"] == id.as_str() && i["status"] == "completed")
    })
    .await;
    assert!(
        sent.elapsed() < Duration::from_secs(12),
        "{:?}",
        sent.elapsed()
    );
    rig.callbacks(1).await;
}

// ---------------------------------------------------------------------------------------------
// Heartbeat and lifetime
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn an_idle_stream_sends_a_snapshot_then_heartbeats() {
    let app = spawn_app_with(|s| s.monitoring.stream_heartbeat = Duration::from_secs(1)).await;
    let owner = app.init_owner().await;
    let mut feed = open(&app, Cred::Bearer(&owner), None).await;
    let first = feed.first_snapshot().await;
    assert_eq!(first["items"], json!([]));
    let mut last = Instant::now();
    for n in 0..3 {
        let frame = feed.frame(Duration::from_secs(4)).await;
        assert_eq!(frame, json!({ "kind": "heartbeat" }), "frame {n}");
        let gap = last.elapsed();
        assert!(
            gap >= Duration::from_millis(700),
            "heartbeat {n} after {gap:?}: only after ~1 s of silence"
        );
        last = Instant::now();
    }
}

#[tokio::test]
async fn the_stream_ends_after_its_lifetime_and_a_reconnect_starts_with_a_fresh_snapshot() {
    let lifetime = Duration::from_secs(2);
    let app = spawn_app_with(|s| s.monitoring.stream_lifetime = lifetime).await;
    let rig = Rig::with_echo(&app, json!({}), SLOW).await;
    let opened = Instant::now();
    let mut feed = open(&app, Cred::Bearer(&rig.owner), None).await;
    let first = feed.first_snapshot().await;
    assert_eq!(first["items"], json!([]));
    // The default heartbeat (10 s) is longer than the lifetime: nothing else, then the end.
    match feed.next(lifetime + Duration::from_secs(4)).await {
        Next::Ended => {}
        other => panic!("expected the body to end after {lifetime:?}, got {other:?}"),
    }
    let lived = opened.elapsed();
    assert!(
        lived >= lifetime - Duration::from_millis(300),
        "ended after {lived:?}"
    );
    assert!(
        lived < lifetime + Duration::from_secs(4),
        "ended after {lived:?}"
    );
    drop(feed);

    // Something changes while nobody watches; the reconnect's first frame shows it.
    let res = rig.send(&app, text("later", "while away")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    wait_running(&app, &rig.owner, "person_later").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut again = open(&app, Cred::Bearer(&rig.owner), None).await;
    let fresh = again.first_snapshot().await;
    assert!(
        running_in(&fresh, "person_later").is_some(),
        "the reconnect's first snapshot is current: {fresh}"
    );
    assert_eq!(fresh["active_total"], 1);
    // The new connection has its own lifetime too.
    match again.next(SLOW + lifetime + Duration::from_secs(4)).await {
        Next::Ended | Next::Frame(_) => {}
        Next::Silent => panic!("the reconnected stream neither sent nor ended"),
    }
    rig.callbacks(1).await;
}

// ---------------------------------------------------------------------------------------------
// Viewer caps
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn viewers_per_workspace_are_capped_and_a_dropped_viewer_frees_its_slot() {
    let app = spawn_app_with(|s| {
        s.workspaces.multi = true;
        s.monitoring.viewers_per_workspace = 2;
        s.monitoring.stream_heartbeat = Duration::from_millis(500);
    })
    .await;
    let owner = app.init_owner().await;
    let ws_a = app.workspace_of(&owner).await;
    let ws_b = app.create_workspace(&owner, "Workspace B").await;
    let me = Cred::Bearer(&owner);

    let mut one = open(&app, me, Some(&ws_a)).await;
    one.first_snapshot().await;
    let mut two = open(&app, me, None).await;
    two.first_snapshot().await;
    for _ in 0..3 {
        assert_capped(&refused(&app, me, Some(&ws_a)).await);
    }
    assert_capped(&refused(&app, me, None).await);
    assert_eq!(
        app.state
            .parts
            .get::<langbot::monitoring::inflight::InflightHub>()
            .viewers(),
        2,
        "refusals are not counted"
    );

    // Another Workspace has its own slots.
    let mut other = open(&app, me, Some(&ws_b)).await;
    other.first_snapshot().await;
    let mut other2 = open(&app, me, Some(&ws_b)).await;
    other2.first_snapshot().await;
    assert_capped(&refused(&app, me, Some(&ws_b)).await);
    // The snapshot endpoint is not a viewer.
    app.get_as(&owner, SNAPSHOT).await.data();

    // The feeds still flow.
    assert_eq!(
        two.frame(Duration::from_secs(3)).await,
        json!({ "kind": "heartbeat" })
    );

    // A viewer leaves: its slot frees once the server notices (at its next write).
    drop(one);
    let mut three = open_when_free(&app, me, Some(&ws_a), Duration::from_secs(10)).await;
    three.first_snapshot().await;
    assert_capped(&refused(&app, me, Some(&ws_a)).await);
    assert_eq!(
        app.state
            .parts
            .get::<langbot::monitoring::inflight::InflightHub>()
            .viewers(),
        4
    );
    drop((two, three, other, other2));
}

#[tokio::test]
async fn viewers_in_total_are_capped_across_workspaces() {
    let app = spawn_app_with(|s| {
        s.workspaces.multi = true;
        s.monitoring.viewers_total = 2;
        s.monitoring.stream_heartbeat = Duration::from_millis(500);
    })
    .await;
    let owner = app.init_owner().await;
    let ws_a = app.workspace_of(&owner).await;
    let ws_b = app.create_workspace(&owner, "Workspace B").await;
    let ws_c = app.create_workspace(&owner, "Workspace C").await;
    let me = Cred::Bearer(&owner);

    let mut a = open(&app, me, Some(&ws_a)).await;
    a.first_snapshot().await;
    let mut b = open(&app, me, Some(&ws_b)).await;
    b.first_snapshot().await;
    for ws in [&ws_a, &ws_b, &ws_c] {
        assert_capped(&refused(&app, me, Some(ws)).await);
    }
    assert_eq!(
        app.state
            .parts
            .get::<langbot::monitoring::inflight::InflightHub>()
            .viewers(),
        2
    );

    drop(b);
    let mut c = open_when_free(&app, me, Some(&ws_c), Duration::from_secs(10)).await;
    c.first_snapshot().await;
    assert_capped(&refused(&app, me, Some(&ws_b)).await);
    assert_eq!(
        app.state
            .parts
            .get::<langbot::monitoring::inflight::InflightHub>()
            .viewers(),
        2
    );
    drop((a, c));
}

// ---------------------------------------------------------------------------------------------
// Access
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn the_feed_needs_credentials_and_resource_view() {
    let app = spawn_app_with(|s| s.monitoring.viewers_per_workspace = 2).await;
    let rig = Rig::with_echo(&app, json!({}), SLOW).await;
    let ws = app.workspace_of(&rig.owner).await;

    // Unauthenticated.
    for cred in [
        Cred::None,
        Cred::Bearer("not-a-session-token"),
        Cred::ApiKey("lbk_not_a_key"),
    ] {
        refused(&app, cred, None)
            .await
            .assert_error(401, "invalid_authentication");
    }
    app.get(SNAPSHOT)
        .await
        .assert_error(401, "invalid_authentication");

    // Authenticated without `resource.view`.
    let (_, blind) = app.create_key(&rig.owner, Some(&["workspace.view"])).await;
    let denied = refused(&app, Cred::ApiKey(&blind), None).await;
    denied.assert_error(403, "permission_denied");
    assert_eq!(denied.body["details"]["permission"], "resource.view");
    let denied = app
        .request(Method::GET, SNAPSHOT)
        .header("x-api-key", &blind)
        .send()
        .await;
    denied.assert_error(403, "permission_denied");
    assert_eq!(denied.body["details"]["permission"], "resource.view");
    assert_eq!(
        app.state
            .parts
            .get::<langbot::monitoring::inflight::InflightHub>()
            .viewers(),
        0,
        "refusals are not counted"
    );

    // `resource.view` is enough: a scoped key and the lowest role.
    let (_, seeing) = app
        .create_key(&rig.owner, Some(&["workspace.view", "resource.view"]))
        .await;
    let viewer = app
        .add_member(&rig.owner, &ws, "viewer@example.com", "viewer")
        .await;
    let mut by_key = open(&app, Cred::ApiKey(&seeing), None).await;
    by_key.first_snapshot().await;
    let mut by_viewer = open(&app, Cred::Bearer(&viewer.token), None).await;
    by_viewer.first_snapshot().await;
    // Both slots are taken: none was lost to the refusals above.
    assert_capped(&refused(&app, Cred::Bearer(&rig.owner), None).await);

    // The snapshot shows the running execution with its latest stage.
    let res = rig.send(&app, text("visible", "in flight")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    let snap = wait_running(&app, &viewer.token, "person_visible").await;
    assert_eq!(snap["active_total"], 1, "{snap}");
    assert_eq!(snap["truncated"], false);
    let item = running_in(&snap, "person_visible").unwrap();
    assert_eq!(item["progress_event"], "ai");
    assert_eq!(item["status_group"], "running");
    assert!(item["finished_at_ms"].is_null(), "{item}");
    assert_eq!(item["bot_id"], rig.bot.as_str());
    let by_api_key = app
        .request(Method::GET, SNAPSHOT)
        .header("x-api-key", &seeing)
        .send()
        .await;
    assert!(running_in(by_api_key.data(), "person_visible").is_some());
    // And the viewers' feeds show it too.
    for feed in [&mut by_key, &mut by_viewer] {
        feed.snapshot_where(Duration::from_secs(5), "the turn runs", |s| {
            running_in(s, "person_visible").is_some()
        })
        .await;
    }
    rig.callbacks(1).await;
}

#[tokio::test]
async fn a_viewer_sees_only_its_own_workspace() {
    let app = spawn_app_with(|s| s.workspaces.multi = true).await;
    let rig = Rig::with_echo(&app, json!({}), SLOW).await;
    let ws_a = app.workspace_of(&rig.owner).await;
    let ws_b = app.create_workspace(&rig.owner, "Workspace B").await;
    let admin_a = app
        .add_member(&rig.owner, &ws_a, "admin-a@example.com", "admin")
        .await;
    let (_, key_a) = app.create_key(&rig.owner, None).await;

    let mut in_a = open(&app, Cred::Bearer(&rig.owner), Some(&ws_a)).await;
    in_a.first_snapshot().await;
    let mut in_b = open(&app, Cred::Bearer(&rig.owner), Some(&ws_b)).await;
    in_b.first_snapshot().await;
    let res = rig.send(&app, text("secret", "only for A")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    in_a.snapshot_where(Duration::from_secs(5), "A's turn runs", |s| {
        running_in(s, "person_secret").is_some()
    })
    .await;
    // B's viewer hears nothing of it: no snapshot, only (after 10 s) heartbeats.
    match in_b.next(Duration::from_secs(1)).await {
        Next::Silent => {}
        Next::Frame(f) => assert_eq!(f["kind"], "heartbeat", "B's viewer got {f}"),
        Next::Ended => panic!("B's stream ended"),
    }
    // A new viewer of B starts with B's (empty) snapshot.
    let mut late_b = open(&app, Cred::Bearer(&rig.owner), Some(&ws_b)).await;
    let b = late_b.first_snapshot().await;
    assert_eq!(b["items"], json!([]), "{b}");
    assert_eq!(b["active_total"], 0, "{b}");
    let snap_b = app
        .request(Method::GET, SNAPSHOT)
        .bearer(&rig.owner)
        .header("x-workspace-id", &ws_b)
        .send()
        .await;
    assert_eq!(snap_b.data()["items"], json!([]));

    // A member of A only cannot select B; an unknown Workspace is missing too.
    refused(&app, Cred::Bearer(&admin_a.token), Some(&ws_b))
        .await
        .assert_error(404, "resource_not_found");
    refused(
        &app,
        Cred::Bearer(&rig.owner),
        Some(&uuid::Uuid::new_v4().to_string()),
    )
    .await
    .assert_error(404, "resource_not_found");
    // A key belongs to its Workspace: selecting B still shows A, as the operation does.
    let by_op = app
        .request(Method::GET, SNAPSHOT)
        .header("x-api-key", &key_a)
        .header("x-workspace-id", &ws_b)
        .send()
        .await;
    assert!(running_in(by_op.data(), "person_secret").is_some());
    let mut by_key = open(&app, Cred::ApiKey(&key_a), Some(&ws_b)).await;
    let s = by_key.first_snapshot().await;
    assert!(
        running_in(&s, "person_secret").is_some(),
        "A's key streams A's feed: {s}"
    );
    rig.callbacks(1).await;
}

/// Inserts an execution row directly.
async fn insert_execution(
    app: &TestApp,
    workspace: &str,
    status: &str,
    started_ago: chrono::Duration,
    lease_in: Option<chrono::Duration>,
    session: &str,
) -> String {
    use sea_orm::{ActiveModelTrait, ActiveValue::Set};
    let now = chrono::Utc::now();
    let id = uuid::Uuid::new_v4().to_string();
    langbot::entities::execution::ActiveModel {
        id: Set(id.clone()),
        workspace_uuid: Set(workspace.to_string()),
        source: Set("pipeline".into()),
        mode: Set("real".into()),
        status: Set(status.into()),
        bot_id: Set("bot".into()),
        bot_name: Set("Bot".into()),
        pipeline_id: Set("pipeline".into()),
        pipeline_name: Set("Pipeline".into()),
        session_id: Set(session.into()),
        event_id: Set(None),
        message_id: Set(None),
        progress_event: Set(Some(
            if status == "running" {
                "ai"
            } else {
                "finished"
            }
            .into(),
        )),
        error: Set(None),
        owner: Set(None),
        lease_expires_at: Set(lease_in.map(|d| now + d)),
        started_at: Set(now - started_ago),
        finished_at: Set((status != "running").then_some(now - started_ago)),
        duration_ms: Set(None),
        llm_calls: Set(0),
        input_tokens: Set(0),
        output_tokens: Set(0),
        total_tokens: Set(0),
        input_preview: Set(None),
    }
    .insert(&app.state.db)
    .await
    .expect("insert execution");
    id
}

#[tokio::test]
async fn the_snapshot_lists_live_and_recent_executions_newest_first() {
    let app = spawn_app_with(|s| s.workspaces.multi = true).await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let other = app.create_workspace(&owner, "Other").await;
    let secs = chrono::Duration::seconds;
    let live_old = insert_execution(&app, &ws, "running", secs(300), Some(secs(60)), "s1").await;
    let live_new = insert_execution(&app, &ws, "running", secs(2), Some(secs(60)), "s2").await;
    let queued = insert_execution(&app, &ws, "queued", secs(5), Some(secs(60)), "s3").await;
    let recent = insert_execution(&app, &ws, "completed", secs(10), None, "s4").await;
    // Not listed: a lapsed lease started long ago, an old finish, another Workspace.
    insert_execution(&app, &ws, "running", secs(300), Some(secs(-5)), "s5").await;
    insert_execution(&app, &ws, "failed", secs(120), None, "s6").await;
    insert_execution(&app, &other, "running", secs(1), Some(secs(60)), "s7").await;

    let snap = app.get_as(&owner, SNAPSHOT).await;
    let data = snap.data().clone();
    let ids: Vec<&str> = items(&data)
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            live_new.as_str(),
            queued.as_str(),
            recent.as_str(),
            live_old.as_str()
        ],
        "{data}"
    );
    assert_eq!(data["active_total"], 3, "{data}");
    assert_eq!(data["truncated"], false);
    assert_eq!(items(&data)[0]["progress_event"], "ai");
    assert_eq!(items(&data)[2]["progress_event"], "finished");

    // The stream's first frame is the same snapshot.
    let mut feed = open(&app, Cred::Bearer(&owner), None).await;
    let first = feed.first_snapshot().await;
    let first_ids: Vec<&str> = items(&first)
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(first_ids, ids);
    assert_eq!(first["active_total"], 3);
}

#[tokio::test]
async fn a_snapshot_beyond_100_live_executions_is_truncated() {
    let app = spawn_app_with(|_| {}).await;
    let owner = app.init_owner().await;
    let ws = app.workspace_of(&owner).await;
    let mut newest = String::new();
    for i in 0..101 {
        let ago = chrono::Duration::milliseconds(100 * (101 - i));
        newest = insert_execution(
            &app,
            &ws,
            "running",
            ago,
            Some(chrono::Duration::seconds(60)),
            &format!("s{i}"),
        )
        .await;
    }
    let snap = app.get_as(&owner, SNAPSHOT).await;
    let data = snap.data();
    assert_eq!(data["active_total"], 101, "{data}");
    assert_eq!(data["truncated"], true);
    assert_eq!(items(data).len(), 100);
    assert_eq!(items(data)[0]["id"], newest.as_str(), "newest first");
    assert!(
        items(data).iter().all(|i| i["session_id"] != "s0"),
        "the oldest is left out"
    );
    let mut feed = open(&app, Cred::Bearer(&owner), None).await;
    let first = feed.first_snapshot().await;
    assert_eq!(first["truncated"], true);
    assert_eq!(items(&first).len(), 100);
}

#[tokio::test]
async fn cross_replica_updates_resume_after_a_redis_outage() {
    if !redis_pass() {
        return;
    }
    let redis_url = std::env::var("TEST_REDIS_URL").unwrap();
    let proxy = crate::helpers::ChaosProxy::start(host_port(&redis_url)).await;
    let port = proxy.port;
    let a = spawn_app_with(|s| s.redis.url = Some(format!("redis://127.0.0.1:{port}/"))).await;
    let rig = Rig::with_echo(&a, json!({}), SLOW).await;
    let b = a.sibling().await;
    let mut feed = open(&b, Cred::Bearer(&rig.owner), None).await;
    feed.first_snapshot().await;

    // Every Redis connection (B's subscription included) is cut, then Redis comes back.
    proxy.break_link();
    tokio::time::sleep(Duration::from_secs(1)).await;
    proxy.mend();
    for app in [&a, &b] {
        let deadline = Instant::now() + Duration::from_secs(10);
        while app.get("/readyz").await.status != 200 {
            assert!(Instant::now() < deadline, "not ready again within 10 s");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    let res = rig.send(&a, text("after", "after the outage")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    feed.snapshot_where(Duration::from_secs(5), "A's turn runs", |s| {
        running_in(s, "person_after").is_some()
    })
    .await;
    rig.callbacks(1).await;
}
