//! B's providers, models and starred model are out of A's reach: not found, not changed, not
//! tested, not starred, not used as a model's provider.

use reqwest::Method;
use serde_json::{json, Value};

use super::assert_resource_isolated;
use super::attacks::Resource;
use crate::helpers::fixtures::{
    model_path, models_path, provider_path, random_uuid, CHAT, DEFAULT, NOWHERE, PROVIDERS, STARRED,
};
use crate::helpers::Instance;

#[tokio::test]
async fn bs_providers_and_models_are_not_found_changed_or_tested_for_a() {
    assert_resource_isolated(Resource::Providers).await;
}

#[tokio::test]
async fn another_workspaces_model_cannot_be_starred() {
    let f = Instance::multi().await;
    let ws_b = f.app.create_workspace(&f.owner, "B").await;
    let b_provider = f
        .provider_in(
            Some(&ws_b),
            &json!({ "name": "B", "requester": CHAT, "base_url": NOWHERE, "api_keys": ["sk-b"] }),
        )
        .await;
    let b_model = f
        .model_in(
            Some(&ws_b),
            "llm",
            &json!({ "name": "b", "provider_uuid": b_provider }),
        )
        .await;
    let a_provider = f.chat_provider(NOWHERE, &[]).await;
    let a_model = f.model("llm", &a_provider, "a").await;

    // From A, B's model is like a missing one.
    let res = f
        .send(Method::PUT, STARRED, &json!({ "uuid": b_model }))
        .await;
    res.assert_error(400, "invalid_request");
    let missing = f
        .send(Method::PUT, STARRED, &json!({ "uuid": random_uuid() }))
        .await;
    assert_eq!(
        (res.status, &res.body["code"], res.error_fields()),
        (
            missing.status,
            &missing.body["code"],
            missing.error_fields()
        ),
        "another Workspace's model must look like a missing one"
    );
    assert_eq!(f.starred().await, Value::Null);
    // And the other way round.
    let res = f
        .call(
            &f.owner,
            Some(&ws_b),
            Method::PUT,
            STARRED,
            Some(&json!({ "uuid": a_model })),
        )
        .await;
    res.assert_error(400, "invalid_request");
    // Each Workspace has its own star.
    f.call(
        &f.owner,
        Some(&ws_b),
        Method::PUT,
        STARRED,
        Some(&json!({ "uuid": b_model })),
    )
    .await
    .data();
    f.send(Method::PUT, STARRED, &json!({ "uuid": a_model }))
        .await
        .data();
    assert_eq!(f.starred().await, json!(a_model));
    let res = f
        .call(&f.owner, Some(&ws_b), Method::GET, STARRED, None)
        .await;
    assert_eq!(res.data()["uuid"], b_model.as_str());
    let res = f
        .call(&f.owner, Some(&ws_b), Method::GET, DEFAULT, None)
        .await;
    assert_eq!(res.data()["uuid"], b_model.as_str());
}

/// Workspace `ws`'s providers and models, read by the owner selecting it.
async fn workspace_snapshot(f: &Instance, ws: &str) -> Value {
    let mut out = serde_json::Map::new();
    for (name, path) in [
        ("providers", PROVIDERS.to_string()),
        ("llm", models_path("llm")),
        ("embedding", models_path("embedding")),
        ("rerank", models_path("rerank")),
        ("starred", STARRED.to_string()),
    ] {
        let res = f.call(&f.owner, Some(ws), Method::GET, &path, None).await;
        out.insert(name.into(), res.data().clone());
    }
    Value::Object(out)
}

#[tokio::test]
async fn another_workspaces_provider_and_models_are_not_found() {
    let f = Instance::multi().await;
    let ws_b = f.app.create_workspace(&f.owner, "B").await;
    let b = Some(ws_b.as_str());
    let provider = f
        .provider_in(
            b,
            &json!({ "name": "B", "requester": CHAT, "base_url": NOWHERE, "api_keys": ["sk-b-secret"] }),
        )
        .await;
    let llm = f
        .model_in(
            b,
            "llm",
            &json!({ "name": "b-llm", "provider_uuid": provider }),
        )
        .await;
    let embedding = f
        .model_in(
            b,
            "embedding",
            &json!({ "name": "b-emb", "provider_uuid": provider }),
        )
        .await;
    let res = f
        .call(&f.owner, b, Method::GET, &provider_path(&provider), None)
        .await;
    assert_eq!(res.data()["provider"]["workspace_uuid"], ws_b.as_str());
    let before = workspace_snapshot(&f, &ws_b).await;

    // From A (the owner's default Workspace): B's provider and models do not exist.
    assert!(f.provider_uuids().await.is_empty());
    f.get(&provider_path(&provider))
        .await
        .assert_error(404, "resource_not_found");
    f.send(
        Method::PUT,
        &provider_path(&provider),
        &json!({ "name": "Hijacked" }),
    )
    .await
    .assert_error(404, "resource_not_found");
    for query in ["", "?cascade=false", "?cascade=true"] {
        f.delete(&format!("{}{query}", provider_path(&provider)))
            .await
            .assert_error(404, "resource_not_found");
    }
    f.get(&format!("{}?provider_uuid={provider}", models_path("llm")))
        .await
        .assert_error(404, "resource_not_found");
    for (kind, uuid) in [("llm", &llm), ("embedding", &embedding)] {
        let path = model_path(kind, uuid);
        f.get(&path).await.assert_error(404, "resource_not_found");
        f.send(Method::PUT, &path, &json!({ "name": "Hijacked" }))
            .await
            .assert_error(404, "resource_not_found");
        f.send(Method::POST, &format!("{path}/test"), &json!({}))
            .await
            .assert_error(404, "resource_not_found");
        f.delete(&path)
            .await
            .assert_error(404, "resource_not_found");
    }
    // Creating a model in A on B's provider looks exactly like naming a missing provider.
    let foreign = f
        .send(
            Method::POST,
            &models_path("llm"),
            &json!({ "name": "x", "provider_uuid": provider }),
        )
        .await;
    let missing = f
        .send(
            Method::POST,
            &models_path("llm"),
            &json!({ "name": "x", "provider_uuid": random_uuid() }),
        )
        .await;
    foreign.assert_client_error("a model on another Workspace's provider");
    assert_eq!(
        (
            foreign.status,
            &foreign.body["code"],
            foreign.error_fields()
        ),
        (
            missing.status,
            &missing.body["code"],
            missing.error_fields()
        ),
        "another Workspace's provider must look like a missing one: {} vs {}",
        foreign.text,
        missing.text
    );
    assert!(f.model_uuids("llm").await.is_empty());
    // Moving A's model onto B's provider is refused the same way.
    let a_provider = f.chat_provider(NOWHERE, &[]).await;
    let a_llm = f.model("llm", &a_provider, "a").await;
    let res = f
        .send(
            Method::PUT,
            &model_path("llm", &a_llm),
            &json!({ "provider_uuid": provider }),
        )
        .await;
    res.assert_client_error("moving a model onto another Workspace's provider");
    assert_eq!(
        f.get(&model_path("llm", &a_llm)).await.data()["model"]["provider_uuid"],
        a_provider.as_str()
    );

    assert_eq!(
        workspace_snapshot(&f, &ws_b).await,
        before,
        "Workspace B changed"
    );
}
