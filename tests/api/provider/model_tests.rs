//! `POST …/models/{kind}/{model_uuid}/test` against the fake upstream: a real call, failures as
//! 502 `model_test_failed` with the upstream code, no key ever leaked, timeouts.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::json;

use crate::helpers::fixtures::{model_path, provider_path, CHAT, RERANK};
use crate::helpers::{openai_error, FakeOpenAi, Instance, Route};

#[tokio::test]
async fn testing_a_model_really_calls_its_provider() {
    let fake = FakeOpenAi::start().await;
    fake.mount_chat("Hello").await;
    fake.mount_embeddings().await;
    fake.mount_rerank(&[0.8, 0.1]).await;
    let f = Instance::new().await;
    let chat = f
        .chat_provider(&fake.base_url(), &["sk-chat-1111", "sk-chat-2222"])
        .await;
    let rerank = f
        .rerank_provider(&fake.base_url(), &["sk-rerank-3333"])
        .await;
    let llm = f
        .model_in(
            None,
            "llm",
            &json!({ "name": "gpt-test", "provider_uuid": chat, "extra_args": { "temperature": 0.1 } }),
        )
        .await;
    let embedding = f.model("embedding", &chat, "emb-test").await;
    let rr = f.model("rerank", &rerank, "rr-test").await;

    // LLM: one plain call with the first key, the model's extra args.
    let res = f.test_model("llm", &llm).await;
    let data = res.data();
    assert!(data["latency_ms"].is_u64(), "{}", res.text);
    assert_eq!(
        data.as_object()
            .map(|o| o.keys().cloned().collect::<Vec<_>>()),
        Some(vec!["latency_ms".to_string()])
    );
    let sent = fake.only(Route::Chat).await;
    assert_eq!(sent.authorization(), Some("Bearer sk-chat-1111"));
    assert_eq!(sent.body["model"], "gpt-test");
    assert_eq!(sent.body["temperature"], 0.1);
    let messages = sent.body["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 1, "{}", sent.body);
    assert_eq!(messages[0]["role"], "user");
    assert!(
        messages[0]["content"]
            .as_str()
            .is_some_and(|c| c.contains("Hello")),
        "{}",
        sent.body
    );
    assert!(sent.body.get("tools").is_none(), "{}", sent.body);
    assert!(sent.body["stream"] != true, "{}", sent.body);

    // Call-level extra args are added for this call only.
    let res = f
        .send(
            Method::POST,
            &format!("{}/test", model_path("llm", &llm)),
            &json!({ "extra_args": { "max_tokens": 5 } }),
        )
        .await;
    res.data();
    let sent = fake.received_on(Route::Chat).await;
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[1].body["max_tokens"], 5);
    assert_eq!(sent[1].body["temperature"], 0.1);
    assert_eq!(
        f.get(&model_path("llm", &llm)).await.data()["model"]["extra_args"],
        json!({ "temperature": 0.1 }),
        "a test does not change the model"
    );

    // Embedding.
    let res = f.test_model("embedding", &embedding).await;
    assert!(res.data()["latency_ms"].is_u64(), "{}", res.text);
    let sent = fake.only(Route::Embeddings).await;
    assert_eq!(sent.authorization(), Some("Bearer sk-chat-1111"));
    assert_eq!(sent.body["model"], "emb-test");
    assert!(
        sent.body["input"].as_array().is_some_and(|a| !a.is_empty()),
        "{}",
        sent.body
    );

    // Rerank.
    let res = f.test_model("rerank", &rr).await;
    assert!(res.data()["latency_ms"].is_u64(), "{}", res.text);
    let sent = fake.only(Route::Rerank).await;
    assert_eq!(sent.authorization(), Some("Bearer sk-rerank-3333"));
    assert_eq!(sent.body["model"], "rr-test");
    assert!(sent.body["query"].as_str().is_some_and(|q| !q.is_empty()));
    assert!(
        sent.body["documents"]
            .as_array()
            .is_some_and(|d| !d.is_empty()),
        "{}",
        sent.body
    );

    // An API key with provider_secret.manage may test too.
    let (_, key) = f.app.create_key(&f.owner, None).await;
    let res = f
        .app
        .request(Method::POST, &format!("{}/test", model_path("llm", &llm)))
        .header("x-api-key", &key)
        .json(&json!({}))
        .send()
        .await;
    assert!(res.data()["latency_ms"].is_u64(), "{}", res.text);
}

/// How the fake upstream fails, and what the test must report.
#[derive(Debug, Clone, Copy)]
enum Failure {
    Unauthorized,
    RateLimited,
    ContextLength,
    ServerError,
}

impl Failure {
    const ALL: [Failure; 4] = [
        Failure::Unauthorized,
        Failure::RateLimited,
        Failure::ContextLength,
        Failure::ServerError,
    ];

    async fn mount(self, fake: &FakeOpenAi, echoed_key: &str) {
        for route in Route::ALL {
            match self {
                Failure::Unauthorized => fake.mount_unauthorized(route, echoed_key).await,
                Failure::RateLimited => fake.mount_rate_limited(route).await,
                Failure::ContextLength => fake.mount_context_length_exceeded(route).await,
                Failure::ServerError => fake.mount_server_error(route).await,
            }
        }
    }

    fn expected(self) -> (u16, &'static str) {
        match self {
            Failure::Unauthorized => (401, "authentication"),
            Failure::RateLimited => (429, "rate_limit"),
            Failure::ContextLength => (400, "context_length"),
            Failure::ServerError => (500, "upstream_error"),
        }
    }
}

#[tokio::test]
async fn failed_model_tests_are_502_model_test_failed_with_the_upstream_code() {
    const CHAT_KEY: &str = "sk-secret-chat-key-4242";
    const RERANK_KEY: &str = "sk-secret-rerank-key-4343";
    let fake = FakeOpenAi::start().await;
    let f = Instance::new().await;
    let chat = f.chat_provider(&fake.base_url(), &[CHAT_KEY]).await;
    let rerank = f.rerank_provider(&fake.base_url(), &[RERANK_KEY]).await;
    let models = [
        ("llm", f.model("llm", &chat, "gpt-test").await, CHAT_KEY),
        (
            "embedding",
            f.model("embedding", &chat, "emb-test").await,
            CHAT_KEY,
        ),
        (
            "rerank",
            f.model("rerank", &rerank, "rr-test").await,
            RERANK_KEY,
        ),
    ];
    for failure in Failure::ALL {
        for (kind, uuid, key) in &models {
            fake.reset().await;
            failure.mount(&fake, key).await;
            let res = f.test_model(kind, uuid).await;
            let what = format!("{kind} model, upstream {failure:?}");
            assert!(res.status != 200, "{what}: {}", res.text);
            res.assert_error(502, "model_test_failed");
            let (status, code) = failure.expected();
            assert_eq!(
                res.body["details"]["upstream_status"], status,
                "{what}: {}",
                res.text
            );
            assert_eq!(
                res.body["details"]["upstream_code"], code,
                "{what}: {}",
                res.text
            );
            assert!(
                !res.text.contains(key),
                "{what}: the provider's API key leaked into the response: {}",
                res.text
            );
            assert_eq!(
                fake.received().await.len(),
                1,
                "{what}: the upstream was called once"
            );
        }
    }
}

#[tokio::test]
async fn the_api_key_never_appears_in_a_failed_test_even_when_the_upstream_echoes_it() {
    const KEY_1: &str = "sk-proj-Zx9TopSecretValue000111";
    const KEY_2: &str = "sk-proj-Second-Key-222333";
    let fake = FakeOpenAi::start().await;
    let f = Instance::new().await;
    let chat = f.chat_provider(&fake.base_url(), &[KEY_1, KEY_2]).await;
    let llm = f.model("llm", &chat, "gpt-test").await;
    let echo = format!("Incorrect API key provided: {KEY_1} (also tried {KEY_2}); Bearer {KEY_1}");
    for status in [401, 403, 400, 404, 429, 500, 503] {
        fake.reset().await;
        fake.mount_error(
            Route::Chat,
            status,
            openai_error(&echo, "invalid_request_error", Some("invalid_api_key")),
        )
        .await;
        let res = f.test_model("llm", &llm).await;
        res.assert_error(502, "model_test_failed");
        assert_eq!(
            res.body["details"]["upstream_status"], status,
            "{}",
            res.text
        );
        for key in [KEY_1, KEY_2] {
            assert!(
                !res.text.contains(key),
                "upstream {status}: a provider key leaked: {}",
                res.text
            );
        }
        let headers = format!("{:?}", res.headers);
        assert!(!headers.contains(KEY_1), "a key leaked into the headers");
    }
    // Also when the key is echoed in a plain-text body.
    fake.reset().await;
    fake.respond(
        Route::Chat,
        wiremock::ResponseTemplate::new(500).set_body_string(format!("bad key {KEY_1}")),
    )
    .await;
    let res = f.test_model("llm", &llm).await;
    res.assert_error(502, "model_test_failed");
    assert!(!res.text.contains(KEY_1), "{}", res.text);
}

#[tokio::test]
async fn a_model_test_times_out_after_the_provider_timeout() {
    let fake = FakeOpenAi::start().await;
    for route in Route::ALL {
        fake.mount_slow(route, Duration::from_secs(5)).await;
    }
    let f = Instance::new().await;
    let chat = f
        .provider_in(
            None,
            &json!({
                "name": "Slow", "requester": CHAT, "base_url": fake.base_url(),
                "api_keys": ["sk-slow"], "config": { "timeout": 1 },
            }),
        )
        .await;
    let rerank = f
        .provider_in(
            None,
            &json!({
                "name": "Slow rerank", "requester": RERANK, "base_url": fake.base_url(),
                "api_keys": ["sk-slow"], "config": { "timeout": 1 },
            }),
        )
        .await;
    for (kind, provider) in [("llm", &chat), ("embedding", &chat), ("rerank", &rerank)] {
        let uuid = f.model(kind, provider, "slow-model").await;
        let started = Instant::now();
        let res = f.test_model(kind, &uuid).await;
        let waited = started.elapsed();
        res.assert_error(502, "model_test_failed");
        assert_eq!(
            res.body["details"]["upstream_code"], "timeout",
            "{kind}: {}",
            res.text
        );
        assert!(
            res.body["details"]["upstream_status"].is_null(),
            "{kind}: no upstream status on a timeout: {}",
            res.text
        );
        assert!(
            waited < Duration::from_millis(4000),
            "{kind}: waited {waited:?} with a 1 s provider timeout"
        );
    }

    // Raising the timeout by update is honoured too: now the slow reply arrives in time.
    fake.reset().await;
    for route in Route::ALL {
        fake.mount_slow(route, Duration::from_millis(1500)).await;
    }
    f.send(
        Method::PUT,
        &provider_path(&chat),
        &json!({ "config": { "timeout": 10 } }),
    )
    .await
    .data();
    let uuid = f.model("llm", &chat, "patient").await;
    let res = f.test_model("llm", &uuid).await;
    assert!(
        res.data()["latency_ms"]
            .as_u64()
            .is_some_and(|ms| ms >= 1000),
        "{}",
        res.text
    );
}

#[tokio::test]
async fn an_unreachable_provider_fails_the_test_with_upstream_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let f = Instance::new().await;
    let chat = f
        .chat_provider(
            &format!("http://127.0.0.1:{port}/v1"),
            &["sk-unreachable-1"],
        )
        .await;
    let llm = f.model("llm", &chat, "gpt").await;
    let res = f.test_model("llm", &llm).await;
    res.assert_error(502, "model_test_failed");
    assert_eq!(
        res.body["details"]["upstream_code"], "upstream_error",
        "{}",
        res.text
    );
    assert!(
        res.body["details"]["upstream_status"].is_null(),
        "{}",
        res.text
    );
    assert!(!res.text.contains("sk-unreachable-1"));
}
