//! Bad input on `/api/v1/provider/*`: path ids, queries, bodies and malformed JSON on every
//! endpoint are a clear 4xx, never a 5xx, and change nothing.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::{
    model_path, models_path, provider_path, random_uuid, CHAT, KINDS, NOWHERE, PROVIDERS,
    REQUESTERS, STARRED,
};
use crate::helpers::{FakeOpenAi, Instance};

#[tokio::test]
async fn bad_input_on_every_endpoint_is_a_clear_4xx_never_a_5xx() {
    let fake = FakeOpenAi::start().await;
    fake.mount_chat("ok").await;
    fake.mount_embeddings().await;
    fake.mount_rerank(&[0.5, 0.4]).await;
    let f = Instance::new().await;
    let chat = f.chat_provider(&fake.base_url(), &["sk-1"]).await;
    let rerank = f.rerank_provider(&fake.base_url(), &["sk-2"]).await;
    let llm = f.model("llm", &chat, "l").await;
    let embedding = f.model("embedding", &chat, "e").await;
    let rr = f.model("rerank", &rerank, "r").await;
    let before = f.everything().await;
    let long = "x".repeat(300);
    let big_extra = json!({ "blob": "y".repeat(70 * 1024) });

    // (method, path, body, expected status)
    let mut cases: Vec<(Method, String, Option<Value>, u16)> = vec![
        // Path parameters.
        (Method::GET, provider_path("not-a-uuid"), None, 400),
        (Method::GET, provider_path(&long), None, 400),
        (
            Method::PUT,
            provider_path("not-a-uuid"),
            Some(json!({ "name": "x" })),
            400,
        ),
        (Method::DELETE, provider_path("not-a-uuid"), None, 400),
        (
            Method::DELETE,
            format!("{}?cascade=true", provider_path("123")),
            None,
            400,
        ),
        (Method::GET, provider_path(&random_uuid()), None, 404),
        (Method::GET, format!("{REQUESTERS}/{long}"), None, 404),
        (
            Method::GET,
            format!("{REQUESTERS}?type=llm&bogus=1"),
            None,
            400,
        ),
        // Query parameters.
        (Method::GET, format!("{PROVIDERS}?limit=0"), None, 400),
        (Method::GET, format!("{PROVIDERS}?limit=501"), None, 400),
        (Method::GET, format!("{PROVIDERS}?limit=abc"), None, 400),
        (Method::GET, format!("{PROVIDERS}?offset=-1"), None, 400),
        (Method::GET, format!("{PROVIDERS}?bogus=1"), None, 400),
        (
            Method::GET,
            format!("{}?bogus=1", provider_path(&chat)),
            None,
            400,
        ),
        (
            Method::DELETE,
            format!("{}?bogus=1", provider_path(&chat)),
            None,
            400,
        ),
        // Provider bodies.
        (Method::POST, PROVIDERS.into(), Some(json!([])), 400),
        (Method::POST, PROVIDERS.into(), Some(json!("provider")), 400),
        (Method::POST, PROVIDERS.into(), Some(json!(42)), 400),
        (Method::POST, PROVIDERS.into(), Some(Value::Null), 400),
        (Method::POST, PROVIDERS.into(), Some(json!({})), 400),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(json!({ "name": 5, "requester": CHAT, "base_url": NOWHERE })),
            400,
        ),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(json!({ "name": "p", "requester": CHAT, "base_url": NOWHERE, "api_keys": "sk" })),
            400,
        ),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(json!({ "name": "p", "requester": CHAT, "base_url": NOWHERE, "api_keys": [1] })),
            400,
        ),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(
                json!({ "name": "p", "requester": CHAT, "base_url": NOWHERE, "api_keys": [null] }),
            ),
            400,
        ),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(
                json!({ "name": "p", "requester": CHAT, "base_url": NOWHERE, "api_keys": vec!["k"; 33] }),
            ),
            400,
        ),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(
                json!({ "name": "p", "requester": CHAT, "base_url": NOWHERE, "api_keys": ["k".repeat(1025)] }),
            ),
            400,
        ),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(json!({ "name": "p", "requester": CHAT, "base_url": NOWHERE, "config": "x" })),
            400,
        ),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(json!({ "name": "p", "requester": CHAT, "base_url": 7 })),
            400,
        ),
        (
            Method::POST,
            PROVIDERS.into(),
            Some(json!({ "name": "p", "requester": ["x"], "base_url": NOWHERE })),
            400,
        ),
        (Method::PUT, provider_path(&chat), Some(json!([])), 400),
        (
            Method::PUT,
            provider_path(&chat),
            Some(json!({ "api_keys": [1] })),
            400,
        ),
        (
            Method::PUT,
            provider_path(&chat),
            Some(json!({ "config": [] })),
            400,
        ),
        (
            Method::PUT,
            provider_path(&chat),
            Some(json!({ "base_url": "" })),
            400,
        ),
        (
            Method::PUT,
            provider_path(&chat),
            Some(json!({ "name": long })),
            400,
        ),
        // Starred.
        (Method::PUT, STARRED.into(), Some(json!([])), 400),
        (Method::PUT, STARRED.into(), Some(json!({ "uuid": 5 })), 400),
        (
            Method::PUT,
            STARRED.into(),
            Some(json!({ "uuid": {} })),
            400,
        ),
        (
            Method::PUT,
            STARRED.into(),
            Some(json!({ "uuid": long })),
            400,
        ),
    ];
    for kind in KINDS {
        let (uuid, provider) = match kind {
            "llm" => (&llm, &chat),
            "embedding" => (&embedding, &chat),
            _ => (&rr, &rerank),
        };
        let list = models_path(kind);
        let one = model_path(kind, uuid);
        let test = format!("{one}/test");
        cases.extend([
            (Method::GET, model_path(kind, "not-a-uuid"), None, 400),
            (Method::GET, model_path(kind, "_"), None, 400),
            (
                Method::PUT,
                model_path(kind, "not-a-uuid"),
                Some(json!({ "name": "x" })),
                400,
            ),
            (Method::DELETE, model_path(kind, "not-a-uuid"), None, 400),
            (
                Method::POST,
                format!("{}/test", model_path(kind, "not-a-uuid")),
                Some(json!({})),
                400,
            ),
            (Method::GET, model_path(kind, &random_uuid()), None, 404),
            (
                Method::POST,
                format!("{}/test", model_path(kind, &random_uuid())),
                Some(json!({})),
                404,
            ),
            (Method::GET, format!("{list}?provider_uuid=xyz"), None, 400),
            (Method::GET, format!("{list}?limit=0"), None, 400),
            (Method::GET, format!("{list}?limit=501"), None, 400),
            (Method::GET, format!("{list}?offset=x"), None, 400),
            (Method::GET, format!("{list}?bogus=1"), None, 400),
            (Method::POST, list.clone(), Some(json!([])), 400),
            (Method::POST, list.clone(), Some(json!("m")), 400),
            (Method::POST, list.clone(), Some(Value::Null), 400),
            (Method::POST, list.clone(), Some(json!({})), 400),
            (
                Method::POST,
                list.clone(),
                Some(json!({ "name": "m", "provider_uuid": "not-a-uuid" })),
                400,
            ),
            (
                Method::POST,
                list.clone(),
                Some(json!({ "name": ["m"], "provider_uuid": provider })),
                400,
            ),
            (
                Method::POST,
                list.clone(),
                Some(json!({ "name": "m", "provider_uuid": provider, "extra_args": "x" })),
                400,
            ),
            (
                Method::POST,
                list.clone(),
                Some(json!({ "name": "m", "provider_uuid": provider, "extra_args": big_extra })),
                400,
            ),
            (
                Method::POST,
                list.clone(),
                Some(json!({ "name": "m", "provider_uuid": provider, "prefered_ranking": 5000 })),
                400,
            ),
            (
                Method::POST,
                list.clone(),
                Some(json!({ "name": "m", "provider_uuid": provider, "prefered_ranking": "1" })),
                400,
            ),
            (Method::PUT, one.clone(), Some(json!([])), 400),
            (Method::PUT, one.clone(), Some(json!({ "name": "" })), 400),
            (
                Method::PUT,
                one.clone(),
                Some(json!({ "provider_uuid": "zzz" })),
                400,
            ),
            (
                Method::PUT,
                one.clone(),
                Some(json!({ "provider_uuid": random_uuid() })),
                400,
            ),
            (
                Method::PUT,
                one.clone(),
                Some(json!({ "extra_args": 1 })),
                400,
            ),
            (Method::PUT, one.clone(), Some(json!({ "bogus": 1 })), 400),
            (Method::POST, test.clone(), Some(json!([])), 400),
            (Method::POST, test.clone(), Some(json!({ "bogus": 1 })), 400),
            (
                Method::GET,
                format!("{one}?include_secret=maybe"),
                None,
                400,
            ),
        ]);
        if kind == "llm" {
            cases.extend([
                (
                    Method::POST,
                    list.clone(),
                    Some(json!({ "name": "m", "provider_uuid": provider, "context_length": "big" })),
                    400,
                ),
                (
                    Method::POST,
                    list.clone(),
                    Some(json!({ "name": "m", "provider_uuid": provider, "context_length": 1e12 })),
                    400,
                ),
                (
                    Method::POST,
                    list.clone(),
                    Some(json!({ "name": "m", "provider_uuid": provider, "abilities": [1] })),
                    400,
                ),
                (
                    Method::POST,
                    list.clone(),
                    Some(json!({ "name": "m", "provider_uuid": provider, "abilities": vec!["vision"; 9] })),
                    400,
                ),
                (Method::PUT, one.clone(), Some(json!({ "reasoning_config": 5 })), 400),
            ]);
        }
    }

    let mut problems = Vec::new();
    for (method, path, body, status) in &cases {
        let mut req = f.app.request(method.clone(), path).bearer(&f.owner);
        if let Some(body) = body {
            req = req.json(body);
        }
        let res = req.send().await;
        let what = format!(
            "{method} {path} {}",
            body.as_ref().map(Value::to_string).unwrap_or_default()
        );
        let what: String = what.chars().take(200).collect();
        if res.status >= 500 {
            problems.push(format!("{what}: SERVER ERROR {} {}", res.status, res.text));
        } else if res.status != *status
            || res.body["code"].as_str().is_none_or(str::is_empty)
            || res.body["request_id"].as_str().is_none_or(str::is_empty)
        {
            problems.push(format!(
                "{what}: expected {status} with an error body, got {} {}",
                res.status,
                res.text.chars().take(300).collect::<String>()
            ));
        }
    }

    // Malformed JSON and wrong content on every body-taking endpoint.
    let bodies = [
        (Method::POST, PROVIDERS.to_string()),
        (Method::PUT, provider_path(&chat)),
        (Method::PUT, STARRED.to_string()),
        (Method::POST, models_path("llm")),
        (Method::PUT, model_path("llm", &llm)),
        (Method::POST, format!("{}/test", model_path("llm", &llm))),
        (Method::POST, models_path("embedding")),
        (Method::PUT, model_path("rerank", &rr)),
    ];
    for (method, path) in &bodies {
        for raw in ["{", "{\"name\":", "nul", "\u{0}"] {
            let res = f
                .app
                .request(method.clone(), path)
                .bearer(&f.owner)
                .raw_json(raw.to_string())
                .send()
                .await;
            if res.status != 400 || res.body["code"] != "invalid_json" {
                problems.push(format!(
                    "{method} {path} with body {raw:?}: expected 400 invalid_json, got {} {}",
                    res.status, res.text
                ));
            }
        }
    }

    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
    assert_eq!(f.everything().await, before, "bad input changed something");
}

#[tokio::test]
async fn a_model_test_with_non_object_extra_args_is_400() {
    // Call-level `extra_args` are request fields: like a model's own `extra_args` (400 when not
    // an object on create and update), anything but an object is invalid input (SPEC §4).
    let fake = FakeOpenAi::start().await;
    fake.mount_chat("ok").await;
    fake.mount_embeddings().await;
    fake.mount_rerank(&[0.5, 0.4]).await;
    let f = Instance::new().await;
    let chat = f.chat_provider(&fake.base_url(), &["sk-1"]).await;
    let rerank = f.rerank_provider(&fake.base_url(), &["sk-2"]).await;
    let models = [
        ("llm", f.model("llm", &chat, "l").await),
        ("embedding", f.model("embedding", &chat, "e").await),
        ("rerank", f.model("rerank", &rerank, "r").await),
    ];
    let mut problems = Vec::new();
    for (kind, uuid) in &models {
        for extra_args in [json!("x"), json!([1, 2]), json!(5), json!(true)] {
            let res = f
                .send(
                    Method::POST,
                    &format!("{}/test", model_path(kind, uuid)),
                    &json!({ "extra_args": extra_args }),
                )
                .await;
            if res.status != 400 || res.body["code"] != "invalid_request" {
                problems.push(format!(
                    "{kind} test with extra_args {extra_args}: expected 400 invalid_request, got {} {}",
                    res.status, res.text
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
    assert!(
        fake.received().await.is_empty(),
        "a refused test must not call the upstream"
    );
}
