//! A model must fit its provider and its kind; abilities and the reasoning config are validated
//! and normalized.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::{model_path, models_path, random_uuid, KINDS, NOWHERE};
use crate::helpers::Instance;

#[tokio::test]
async fn a_model_must_fit_its_provider_and_its_kind() {
    let f = Instance::new().await;
    let chat = f.chat_provider(NOWHERE, &[]).await;
    let rerank = f.rerank_provider(NOWHERE, &[]).await;
    let cases: Vec<(&str, Value, &str, &str)> = vec![
        (
            "embedding",
            json!({ "name": "e", "provider_uuid": rerank }),
            "provider_uuid",
            "an embedding model on a rerank-only provider",
        ),
        (
            "llm",
            json!({ "name": "l", "provider_uuid": rerank }),
            "provider_uuid",
            "an LLM on a rerank-only provider",
        ),
        (
            "rerank",
            json!({ "name": "r", "provider_uuid": chat }),
            "provider_uuid",
            "a rerank model on a chat provider",
        ),
        (
            "llm",
            json!({ "name": "l" }),
            "provider_uuid",
            "no provider",
        ),
        (
            "llm",
            json!({ "name": "l", "provider_uuid": random_uuid() }),
            "provider_uuid",
            "an unknown provider",
        ),
        ("llm", json!({ "provider_uuid": chat }), "name", "no name"),
        (
            "llm",
            json!({ "name": "", "provider_uuid": chat }),
            "name",
            "empty name",
        ),
        (
            "llm",
            json!({ "name": "  ", "provider_uuid": chat }),
            "name",
            "blank name",
        ),
        (
            "llm",
            json!({ "name": "n".repeat(256), "provider_uuid": chat }),
            "name",
            "name over 255",
        ),
        (
            "embedding",
            json!({ "name": "e", "provider_uuid": chat, "abilities": ["vision"] }),
            "abilities",
            "abilities on an embedding model",
        ),
        (
            "embedding",
            json!({ "name": "e", "provider_uuid": chat, "context_length": 100 }),
            "context_length",
            "context_length on an embedding model",
        ),
        (
            "rerank",
            json!({ "name": "r", "provider_uuid": rerank, "reasoning_config": { "level": "high" } }),
            "reasoning_config",
            "reasoning_config on a rerank model",
        ),
        (
            "llm",
            json!({ "name": "l", "provider_uuid": chat, "context_length": 0 }),
            "context_length",
            "context_length 0",
        ),
        (
            "llm",
            json!({ "name": "l", "provider_uuid": chat, "extra_args": [1] }),
            "extra_args",
            "extra_args not an object",
        ),
        (
            "llm",
            json!({ "name": "l", "provider_uuid": chat, "bogus": 1 }),
            "bogus",
            "unknown field",
        ),
    ];
    for (kind, body, field, what) in &cases {
        let res = f.send(Method::POST, &models_path(kind), body).await;
        res.expect_field_error(400, "invalid_request", field, what);
    }
    for kind in KINDS {
        assert!(
            f.model_uuids(kind).await.is_empty(),
            "a refused create left a {kind} model"
        );
    }

    // Updates check the same.
    let llm = f.model("llm", &chat, "l").await;
    let rr = f.model("rerank", &rerank, "r").await;
    let res = f
        .send(
            Method::PUT,
            &model_path("llm", &llm),
            &json!({ "provider_uuid": rerank }),
        )
        .await;
    res.expect_field_error(
        400,
        "invalid_request",
        "provider_uuid",
        "moving an LLM to a rerank-only provider",
    );
    let res = f
        .send(
            Method::PUT,
            &model_path("rerank", &rr),
            &json!({ "provider_uuid": chat }),
        )
        .await;
    res.expect_field_error(
        400,
        "invalid_request",
        "provider_uuid",
        "moving a rerank model to a chat provider",
    );
    let res = f
        .send(
            Method::PUT,
            &model_path("rerank", &rr),
            &json!({ "abilities": [] }),
        )
        .await;
    res.expect_field_error(
        400,
        "invalid_request",
        "abilities",
        "abilities on a rerank model",
    );
    assert_eq!(
        f.get(&model_path("llm", &llm)).await.data()["model"]["provider_uuid"],
        chat.as_str()
    );
}

#[tokio::test]
async fn abilities_and_reasoning_config_are_validated_and_normalized() {
    let f = Instance::new().await;
    let chat = f.chat_provider(NOWHERE, &[]).await;
    let body = |abilities: Value, reasoning: Value| json!({ "name": "m", "provider_uuid": chat, "abilities": abilities, "reasoning_config": reasoning });
    let refused: Vec<(Value, &str, &str)> = vec![
        (
            json!({ "name": "m", "provider_uuid": chat, "abilities": ["telepathy"] }),
            "abilities",
            "unknown ability",
        ),
        (
            json!({ "name": "m", "provider_uuid": chat, "abilities": "vision" }),
            "abilities",
            "abilities not a list",
        ),
        (
            body(json!([]), json!({ "level": "high" })),
            "reasoning_config",
            "a level without the reasoning ability",
        ),
        (
            body(json!(["reasoning"]), json!({ "level": "turbo" })),
            "reasoning_config",
            "unknown level",
        ),
        (
            body(json!(["reasoning"]), json!({ "budget_tokens": 0 })),
            "reasoning_config",
            "budget 0",
        ),
        (
            body(json!(["reasoning"]), json!({ "budget_tokens": -5 })),
            "reasoning_config",
            "negative budget",
        ),
        (
            body(json!(["reasoning"]), json!({ "budget_tokens": 1.5 })),
            "reasoning_config",
            "fractional budget",
        ),
        (
            body(json!(["reasoning"]), json!({ "budget_tokens": true })),
            "reasoning_config",
            "boolean budget",
        ),
        (
            body(json!(["reasoning"]), json!({ "budget_tokens": "100" })),
            "reasoning_config",
            "budget as text",
        ),
        (
            body(
                json!(["reasoning"]),
                json!({ "level": "high", "budget_tokens": 100 }),
            ),
            "reasoning_config",
            "a budget with an effort level",
        ),
        (
            body(json!(["reasoning"]), json!({ "effort": "high" })),
            "reasoning_config",
            "unknown field",
        ),
        (
            body(json!(["reasoning"]), json!("high")),
            "reasoning_config",
            "not an object",
        ),
        (
            body(json!(["reasoning"]), json!([])),
            "reasoning_config",
            "a list",
        ),
    ];
    for (b, field, what) in &refused {
        let res = f.send(Method::POST, &models_path("llm"), b).await;
        res.expect_field_error(400, "invalid_request", field, what);
    }
    assert!(f.model_uuids("llm").await.is_empty());

    let accepted: Vec<(Value, Value)> = vec![
        (
            body(json!([]), json!({})),
            json!({ "level": "provider_default" }),
        ),
        (
            body(json!([]), json!({ "level": "provider_default" })),
            json!({ "level": "provider_default" }),
        ),
        (
            body(json!(["reasoning"]), json!({ "level": "high" })),
            json!({ "level": "high" }),
        ),
        (
            body(json!(["reasoning"]), json!({ "level": "disabled" })),
            json!({ "level": "disabled" }),
        ),
        (
            body(json!(["reasoning"]), json!({ "budget_tokens": 2048 })),
            json!({ "level": "enabled", "budget_tokens": 2048 }),
        ),
        (
            body(
                json!(["reasoning"]),
                json!({ "level": "enabled", "budget_tokens": 1024 }),
            ),
            json!({ "level": "enabled", "budget_tokens": 1024 }),
        ),
    ];
    for (b, stored) in &accepted {
        let uuid = f.model_in(None, "llm", b).await;
        let res = f.get(&model_path("llm", &uuid)).await;
        assert_eq!(&res.data()["model"]["reasoning_config"], stored, "{b}");
    }

    // The merged record is checked on update: dropping the ability under a level is refused.
    let uuid = f
        .model_in(
            None,
            "llm",
            &body(json!(["reasoning"]), json!({ "level": "low" })),
        )
        .await;
    let res = f
        .send(
            Method::PUT,
            &model_path("llm", &uuid),
            &json!({ "abilities": ["vision"] }),
        )
        .await;
    res.expect_field_error(
        400,
        "invalid_request",
        "reasoning_config",
        "removing the reasoning ability under a level",
    );
    let res = f
        .send(
            Method::PUT,
            &model_path("llm", &uuid),
            &json!({ "reasoning_config": { "level": "minimal" } }),
        )
        .await;
    res.data();
    assert_eq!(
        f.get(&model_path("llm", &uuid)).await.data()["model"]["reasoning_config"],
        json!({ "level": "minimal" })
    );
}
