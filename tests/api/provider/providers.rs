//! `/api/v1/provider/providers`: create, list, read, update and delete; input validated.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::{
    model_path, provider_path, random_uuid, uuids_of, CHAT, NOWHERE, PROVIDERS, RERANK,
};
use crate::helpers::Instance;

#[tokio::test]
async fn a_provider_can_be_created_listed_read_updated_and_deleted() {
    let f = Instance::new().await;
    let chat = f
        .provider_in(
            None,
            &json!({
                "name": "OpenAI",
                "requester": CHAT,
                "base_url": "https://api.openai.com/v1",
                "api_keys": [" sk-a ", "sk-a", "", "sk-b"],
                "config": { "timeout": 30 },
            }),
        )
        .await;
    let res = f.get(&provider_path(&chat)).await;
    let p = &res.data()["provider"];
    assert_eq!(p["uuid"], chat.as_str());
    assert_eq!(p["workspace_uuid"], f.ws.as_str());
    assert_eq!(p["name"], "OpenAI");
    assert_eq!(p["requester"], CHAT);
    assert_eq!(p["base_url"], "https://api.openai.com/v1");
    assert_eq!(
        p["api_keys"],
        json!(["sk-a", "sk-b"]),
        "keys are trimmed, de-duplicated, empties dropped"
    );
    assert_eq!(p["config"]["timeout"], 30);
    assert_eq!(
        (&p["llm_count"], &p["embedding_count"], &p["rerank_count"]),
        (&json!(0), &json!(0), &json!(0))
    );
    assert!(p["created_at"].as_str().is_some() && p["updated_at"].as_str().is_some());

    // Defaults: no keys, the requester's default timeout.
    let rerank = f
        .provider_in(
            None,
            &json!({ "name": "Jina", "requester": RERANK, "base_url": "https://api.jina.ai/v1" }),
        )
        .await;
    let res = f.get(&provider_path(&rerank)).await;
    assert_eq!(res.data()["provider"]["api_keys"], json!([]));
    assert_eq!(res.data()["provider"]["config"]["timeout"], 120);

    // Lists: creation order, paging.
    let res = f.get(PROVIDERS).await;
    let data = res.data();
    assert_eq!(
        uuids_of(&data["providers"]),
        vec![chat.clone(), rerank.clone()]
    );
    assert_eq!(
        (&data["total"], &data["limit"], &data["offset"]),
        (&json!(2), &json!(100), &json!(0))
    );
    let res = f.get(&format!("{PROVIDERS}?limit=1&offset=1")).await;
    assert_eq!(uuids_of(&res.data()["providers"]), vec![rerank.clone()]);
    assert_eq!(res.data()["total"], 2);

    // Update: partial; the keys and the config stay unless given.
    let res = f
        .send(
            Method::PUT,
            &provider_path(&chat),
            &json!({ "name": "Renamed", "base_url": "https://proxy.example.com/v1", "config": { "timeout": 60 } }),
        )
        .await;
    assert_eq!(res.data(), &Value::Null);
    let res = f
        .send(
            Method::PUT,
            &provider_path(&chat),
            &json!({ "name": "Renamed again" }),
        )
        .await;
    res.data();
    let res = f.get(&provider_path(&chat)).await;
    let p = &res.data()["provider"];
    assert_eq!(p["name"], "Renamed again");
    assert_eq!(p["base_url"], "https://proxy.example.com/v1");
    assert_eq!(p["api_keys"], json!(["sk-a", "sk-b"]));
    assert_eq!(p["config"]["timeout"], 60);
    assert_eq!(
        p["created_at"],
        f.get(PROVIDERS).await.data()["providers"][0]["created_at"]
    );

    // LangBot's read-only keys are ignored on create and update.
    let ignored = f
        .provider_in(
            None,
            &json!({
                "uuid": "00000000-0000-0000-0000-000000000000",
                "workspace_uuid": random_uuid(),
                "created_at": "2020-01-01T00:00:00Z",
                "name": "Legacy",
                "requester": CHAT,
                "base_url": NOWHERE,
            }),
        )
        .await;
    assert_ne!(ignored, "00000000-0000-0000-0000-000000000000");
    let res = f.get(&provider_path(&ignored)).await;
    assert_eq!(res.data()["provider"]["workspace_uuid"], f.ws.as_str());

    // Delete (no models: no cascade needed).
    f.delete(&provider_path(&rerank)).await.data();
    f.get(&provider_path(&rerank))
        .await
        .assert_error(404, "resource_not_found");
    f.delete(&provider_path(&rerank))
        .await
        .assert_error(404, "resource_not_found");
    f.send(
        Method::PUT,
        &provider_path(&rerank),
        &json!({ "name": "x" }),
    )
    .await
    .assert_error(404, "resource_not_found");
    assert_eq!(f.provider_uuids().await, vec![chat, ignored]);
}

#[tokio::test]
async fn provider_input_is_validated() {
    let f = Instance::new().await;
    let base = json!({ "name": "P", "requester": CHAT, "base_url": NOWHERE });
    let with = |patch: Value| {
        let mut body = base.clone();
        for (k, v) in patch.as_object().expect("object") {
            body[k] = v.clone();
        }
        body
    };
    let without = |key: &str| {
        let mut body = base.clone();
        body.as_object_mut().expect("object").remove(key);
        body
    };
    let cases: Vec<(Value, &str, &str)> = vec![
        (
            with(json!({ "requester": "nope" })),
            "requester",
            "unknown requester",
        ),
        (
            with(json!({ "requester": "" })),
            "requester",
            "empty requester",
        ),
        (without("requester"), "requester", "missing requester"),
        (
            with(json!({ "base_url": "not a url" })),
            "base_url",
            "not a URL",
        ),
        (
            with(json!({ "base_url": "ftp://example.com/v1" })),
            "base_url",
            "ftp URL",
        ),
        (
            with(json!({ "base_url": "http://" })),
            "base_url",
            "no host",
        ),
        (
            with(json!({ "base_url": "/v1" })),
            "base_url",
            "relative URL",
        ),
        (
            with(json!({ "base_url": format!("https://example.com/{}", "a".repeat(500)) })),
            "base_url",
            "over 512 characters",
        ),
        (without("base_url"), "base_url", "missing base_url"),
        (
            with(json!({ "config": { "x": 1 } })),
            "config.x",
            "unknown config field",
        ),
        (
            with(json!({ "config": { "timeout": 30, "api_base": "x" } })),
            "config.api_base",
            "unknown config field next to a known one",
        ),
        (
            with(json!({ "config": { "timeout": 0 } })),
            "config.timeout",
            "timeout 0",
        ),
        (
            with(json!({ "config": { "timeout": 601 } })),
            "config.timeout",
            "timeout 601",
        ),
        (
            with(json!({ "config": { "timeout": -5 } })),
            "config.timeout",
            "negative timeout",
        ),
        (
            with(json!({ "config": { "timeout": "30" } })),
            "config.timeout",
            "timeout as a string",
        ),
        (
            with(json!({ "config": { "timeout": 1.5 } })),
            "config.timeout",
            "fractional timeout",
        ),
        (
            with(json!({ "config": [] })),
            "config",
            "config not an object",
        ),
        (without("name"), "name", "missing name"),
        (with(json!({ "name": "" })), "name", "empty name"),
        (with(json!({ "name": "   " })), "name", "blank name"),
        (
            with(json!({ "name": "n".repeat(256) })),
            "name",
            "name over 255",
        ),
        (
            with(json!({ "api_keys": ["***"] })),
            "api_keys[0]",
            "a mask with nothing stored",
        ),
        (with(json!({ "bogus": true })), "bogus", "unknown field"),
    ];
    for (body, field, what) in &cases {
        let res = f.send(Method::POST, PROVIDERS, body).await;
        res.expect_field_error(400, "invalid_request", field, what);
    }
    assert!(
        f.provider_uuids().await.is_empty(),
        "a refused create left a row"
    );

    // Limits are inclusive.
    for (body, what) in [
        (with(json!({ "name": "n".repeat(255) })), "name of 255"),
        (with(json!({ "config": { "timeout": 1 } })), "timeout 1"),
        (with(json!({ "config": { "timeout": 600 } })), "timeout 600"),
        (
            with(json!({ "base_url": "http://127.0.0.1:11434/v1" })),
            "loopback URL",
        ),
    ] {
        let res = f.send(Method::POST, PROVIDERS, &body).await;
        assert_eq!(res.status, 200, "{what}: {}", res.text);
    }
}

#[tokio::test]
async fn provider_updates_are_validated() {
    let f = Instance::new().await;
    let chat = f.chat_provider(NOWHERE, &["sk-1"]).await;
    let before = f.get(&provider_path(&chat)).await.data()["provider"].clone();
    let cases: Vec<(Value, &str, &str)> = vec![
        (
            json!({ "requester": "nope" }),
            "requester",
            "unknown requester",
        ),
        (json!({ "base_url": "nope" }), "base_url", "invalid URL"),
        (
            json!({ "config": { "x": 1 } }),
            "config.x",
            "unknown config field",
        ),
        (
            json!({ "config": { "timeout": 0 } }),
            "config.timeout",
            "timeout 0",
        ),
        (
            json!({ "config": { "timeout": 601 } }),
            "config.timeout",
            "timeout 601",
        ),
        (json!({ "name": "" }), "name", "empty name"),
        (json!({ "name": " " }), "name", "blank name"),
        (
            json!({ "api_keys": ["***", "***"] }),
            "api_keys[1]",
            "more masks than stored keys",
        ),
        (json!({ "llm_count": 3 }), "llm_count", "a read-only count"),
    ];
    for (body, field, what) in &cases {
        let res = f.send(Method::PUT, &provider_path(&chat), body).await;
        res.expect_field_error(400, "invalid_request", field, what);
    }
    let after = f.get(&provider_path(&chat)).await.data()["provider"].clone();
    assert_eq!(before, after, "a refused update changed the provider");

    // A requester that does not support the provider's models is refused.
    let llm = f.model("llm", &chat, "gpt").await;
    let res = f
        .send(
            Method::PUT,
            &provider_path(&chat),
            &json!({ "requester": RERANK }),
        )
        .await;
    res.expect_field_error(
        400,
        "invalid_request",
        "requester",
        "rerank requester for an LLM provider",
    );
    f.delete(&model_path("llm", &llm)).await.data();
    // Without models it may change.
    let res = f
        .send(
            Method::PUT,
            &provider_path(&chat),
            &json!({ "requester": RERANK }),
        )
        .await;
    res.data();
    assert_eq!(
        f.get(&provider_path(&chat)).await.data()["provider"]["requester"],
        RERANK
    );
}
