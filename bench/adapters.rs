//! Inbound messages per second through the whole path, per adapter: a release `langbot`
//! process on loopback (SQLite, or `LANGBOT_DATABASE_URL`), an instantly answering fake
//! model, and the test suite's platform fakes (the same protocol code, built optimized)
//! delivering N messages from N different users; the clock stops when the fake platform
//! has received N replies (and it checks no message was answered twice).
//!
//!   bench/adapters.sh [messages] [adapter …]   (builds both, then runs this)
#![allow(
    dead_code,
    reason = "the platform fakes have helpers only the tests use"
)]

#[path = "../tests/api/helpers/chaos.rs"]
mod chaos;
/// What the test suite's fakes expect around them (`crate::helpers::…`).
mod helpers;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::{stream, StreamExt};
use helpers::fakes::{discord, lark, onebot, slack, telegram, Calls};
use serde_json::{json, Value};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, ResponseTemplate};

const CONCURRENCY: usize = 32;

struct Server {
    child: Child,
    base: String,
    http: reqwest::Client,
    token: String,
    _dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    async fn start(bin: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(bin)
            .arg("serve")
            .env("LANGBOT_DATA_DIR", dir.path())
            .env("LANGBOT_HTTP_ADDR", format!("127.0.0.1:{port}"))
            .env(
                "LANGBOT_LOG",
                std::env::var("BENCH_LOG").unwrap_or_else(|_| "error".into()),
            )
            .env("LANGBOT_TRUSTED_PROXIES", "127.0.0.1/32")
            .stdout(Stdio::null())
            .spawn()
            .expect("run langbot");
        let base = format!("http://127.0.0.1:{port}");
        let http = reqwest::Client::new();
        helpers::fixtures::eventually("readiness", 30, || async {
            http.get(format!("{base}/readyz"))
                .send()
                .await
                .ok()
                .filter(|r| r.status().is_success())
                .map(|_| ())
        })
        .await;
        let creds = json!({ "user": "bench@example.com", "password": "bench-password" });
        http.post(format!("{base}/api/v1/user/init"))
            .json(&creds)
            .send()
            .await
            .unwrap();
        let auth: Value = http
            .post(format!("{base}/api/v1/user/auth"))
            .json(&creds)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let token = auth["data"]["token"].as_str().unwrap().to_string();
        Self {
            child,
            base,
            http,
            token,
            _dir: dir,
        }
    }

    async fn api(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let res = self
            .http
            .request(method, format!("{}/api/v1{path}", self.base))
            .bearer_auth(&self.token)
            .json(&body)
            .send()
            .await
            .unwrap();
        let v: Value = res.json().await.unwrap();
        assert_eq!(v["code"], 0, "{path}: {v}");
        v["data"].clone()
    }

    /// A provider on the fake model, a default pipeline on it, and an enabled bot.
    async fn bot(&self, model_url: &str, adapter: &str, config: Value) -> String {
        let provider = self
            .api(reqwest::Method::POST, "/provider/providers", json!({ "name": "fake", "requester": "openai-chat-completions", "base_url": model_url, "api_keys": ["sk"] }))
            .await;
        let model = self
            .api(
                reqwest::Method::POST,
                "/provider/models/llm",
                json!({ "name": "m", "provider_uuid": provider["uuid"] }),
            )
            .await;
        self.api(
            reqwest::Method::POST,
            "/pipelines",
            json!({ "name": "bench", "is_default": true, "config": {
            "ai": { "runner_config": { "local-agent": { "model": { "primary": model["uuid"] } } } },
            "safety": { "rate-limit": { "limitation": 100_000 } } } }),
        )
        .await;
        let bot = self
            .api(reqwest::Method::POST, "/platform/bots", json!({ "name": adapter, "adapter": adapter, "enable": true, "adapter_config": config }))
            .await;
        bot["uuid"].as_str().unwrap().to_string()
    }

    async fn state(&self, bot: &str) -> Value {
        let v = self
            .api(
                reqwest::Method::GET,
                &format!("/platform/bots/{bot}"),
                Value::Null,
            )
            .await;
        v["bot"]["adapter_runtime_values"]["state"]["state"].clone()
    }

    async fn wait_running(&self, bot: &str) {
        helpers::fixtures::eventually("the bot running", 30, || async {
            (self.state(bot).await == "running").then_some(())
        })
        .await;
    }
}

async fn fake_model() -> MockServer {
    let server = MockServer::builder()
        .disable_request_recording()
        .start()
        .await;
    let chunks = [
        json!({"choices":[{"index":0,"delta":{"role":"assistant","content":"pong"},"finish_reason":"stop"}]}),
        json!({"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}),
    ];
    let body: String = chunks
        .iter()
        .map(|c| format!("data: {c}\n\n"))
        .collect::<String>()
        + "data: [DONE]\n\n";
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-type", "text/event-stream")
                .set_body_string(body),
        )
        .mount(&server)
        .await;
    server
}

/// Waits until `count()` reaches `n`; answers the elapsed time since `start`.
async fn until(n: usize, start: Instant, count: impl Fn() -> usize) -> Duration {
    helpers::fixtures::eventually(&format!("{n} replies"), 600, || async {
        (count() >= n).then_some(())
    })
    .await;
    start.elapsed()
}

fn report(name: &str, n: usize, took: Duration, answered: usize) {
    let rate = n as f64 / took.as_secs_f64();
    let twice = if answered == n {
        String::new()
    } else {
        format!("  ({answered} replies for {n} messages!)")
    };
    println!(
        "{name:<28} {n:>6} messages in {:>7.2} s  = {rate:>8.1} messages/s{twice}",
        took.as_secs_f64()
    );
}

fn count(calls: &Calls, name: &str) -> usize {
    calls.of(name).len()
}

/// Posts `bodies` to the bot's URL, [`CONCURRENCY`] at a time.
async fn post_all(server: &Server, path: &str, bodies: Vec<(Vec<(&'static str, String)>, Value)>) {
    let url = format!("{}{path}", server.base);
    stream::iter(bodies)
        .for_each_concurrent(CONCURRENCY, |(headers, body)| {
            let (http, url) = (server.http.clone(), url.clone());
            async move {
                let raw = body.to_string();
                let mut req = http.post(&url).header("content-type", "application/json");
                for (k, v) in headers {
                    req = req.header(k, v);
                }
                let res = req.body(raw).send().await.unwrap();
                assert!(
                    res.status().is_success(),
                    "{}: {}",
                    res.status(),
                    res.text().await.unwrap_or_default()
                );
            }
        })
        .await;
}

async fn bench(name: &str, bin: &str, n: usize) {
    let model = fake_model().await;
    let model_url = format!("{}/v1", model.uri());
    let server = Server::start(bin).await;
    let settle = Duration::from_millis(1500);
    match name {
        "telegram" => {
            let tg = telegram::FakeTelegram::start("1:bench").await;
            let bot = server.bot(&model_url, "telegram", tg.config()).await;
            server.wait_running(&bot).await;
            let start = Instant::now();
            for i in 0..n {
                tg.push(telegram::private(i as i64 + 1, 1000 + i as i64, "ping"));
            }
            let took = until(n, start, || count(&tg.calls, "sendMessage")).await;
            tokio::time::sleep(settle).await;
            report(name, n, took, count(&tg.calls, "sendMessage"));
        }
        "discord" => {
            let dc = discord::FakeDiscord::start("bench").await;
            let bot = server.bot(&model_url, "discord", dc.config()).await;
            server.wait_running(&bot).await;
            let start = Instant::now();
            for i in 0..n {
                dc.push(discord::direct_message(
                    i as u64 + 1,
                    &format!("{}", 5000 + i),
                    "ping",
                ));
            }
            let took = until(n, start, || count(&dc.calls, "message")).await;
            tokio::time::sleep(settle).await;
            report(name, n, took, count(&dc.calls, "message"));
        }
        "slack-socket" | "slack-events" => {
            let sl = slack::FakeSlack::start().await;
            let events = name == "slack-events";
            let config = if events {
                sl.events_config()
            } else {
                sl.socket_config()
            };
            let bot = server.bot(&model_url, "slack", config).await;
            server.wait_running(&bot).await;
            let start = Instant::now();
            if events {
                let bodies = (0..n)
                    .map(|i| {
                        let body = slack::callback(slack::direct(
                            &format!("{}.000001", i + 1),
                            &format!("U{i}"),
                            "ping",
                        ));
                        let ts = chrono::Utc::now().timestamp();
                        (
                            slack::signed(slack::SIGNING_SECRET, ts, body.to_string().as_bytes()),
                            body,
                        )
                    })
                    .collect();
                post_all(&server, &format!("/bots/{bot}"), bodies).await;
            } else {
                for i in 0..n {
                    sl.push(slack::direct(
                        &format!("{}.000001", i + 1),
                        &format!("U{i}"),
                        "ping",
                    ));
                }
            }
            let took = until(n, start, || count(&sl.calls, "chat.postMessage")).await;
            tokio::time::sleep(settle).await;
            report(name, n, took, count(&sl.calls, "chat.postMessage"));
        }
        "onebot-v11" => {
            let bot = server
                .bot(
                    &model_url,
                    "onebot-v11",
                    json!({ "connection_mode": "reverse_ws", "access-token": "tok" }),
                )
                .await;
            let ob = onebot::FakeOneBot::new();
            ob.connect(
                &format!("{}/bots/{bot}", server.base.replacen("http", "ws", 1)),
                Some("tok"),
            )
            .await
            .unwrap();
            server.wait_running(&bot).await;
            let start = Instant::now();
            for i in 0..n {
                ob.push(onebot::private(
                    i as i64 + 1,
                    100_000 + i as i64, // never the bot's own SELF_ID
                    json!([onebot::text("ping")]),
                ));
            }
            let took = until(n, start, || count(&ob.calls, "send_msg")).await;
            tokio::time::sleep(settle).await;
            report(name, n, took, count(&ob.calls, "send_msg"));
        }
        "lark" => {
            let lk = lark::FakeLark::start().await;
            let bot = server.bot(&model_url, "lark", lk.config()).await;
            server.wait_running(&bot).await;
            let bodies = (0..n)
                .map(|i| {
                    let message = lark::text_message(
                        &format!("om_{i}"),
                        &format!("oc_{i}"),
                        "p2p",
                        "ping",
                        false,
                    );
                    (
                        Vec::new(),
                        lark::received(&format!("ev{i}"), message, &format!("ou_{i}")),
                    )
                })
                .collect();
            let start = Instant::now();
            post_all(&server, &format!("/bots/{bot}"), bodies).await;
            let took = until(n, start, || count(&lk.calls, "message")).await;
            tokio::time::sleep(settle).await;
            report(name, n, took, count(&lk.calls, "message"));
        }
        "web_page_bot" => {
            let bot = server
                .bot(&model_url, "web_page_bot", json!({ "rate_limit": 600 }))
                .await;
            let bodies = (0..n)
                .map(|i| {
                    // Visitors behind the trusted proxy, one address each.
                    let ip = format!("10.{}.{}.{}", i / 65536 % 256, i / 256 % 256, i % 256);
                    (
                        vec![("x-forwarded-for", ip)],
                        json!({ "session_id": format!("v{i}"), "message": "ping" }),
                    )
                })
                .collect();
            let start = Instant::now();
            post_all(&server, &format!("/bots/{bot}/chat"), bodies).await;
            report(name, n, start.elapsed(), n);
        }
        other => panic!("unknown adapter {other}"),
    }
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let bin = args
        .next()
        .expect("usage: adapters <langbot binary> [messages] [adapter …]");
    let n: usize = args
        .next()
        .map_or(2000, |a| a.parse().expect("a message count"));
    let mut names: Vec<String> = args.collect();
    if names.is_empty() {
        names = [
            "telegram",
            "discord",
            "slack-socket",
            "slack-events",
            "onebot-v11",
            "lark",
            "web_page_bot",
        ]
        .map(String::from)
        .to_vec();
    }
    println!("inbound messages/s, whole path, release build, loopback, {} cores, {n} messages from {n} users each",
        std::thread::available_parallelism().map_or(0, |p| p.get()));
    for name in &names {
        bench(name, &bin, n).await;
    }
}
