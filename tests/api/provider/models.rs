//! `/api/v1/provider/models/{llm,embedding,rerank}`: create, list (filtered by provider), read,
//! update and delete; a model is only found under its own kind.

use reqwest::Method;
use serde_json::json;

use super::strings;
use crate::helpers::fixtures::{
    model_path, models_path, provider_path, random_uuid, uuids_of, NOWHERE, PROVIDERS,
};
use crate::helpers::Instance;

#[tokio::test]
async fn models_of_every_kind_can_be_created_listed_read_updated_and_deleted() {
    let f = Instance::new().await;
    let chat = f.chat_provider(NOWHERE, &["sk-chat"]).await;
    let rerank = f.rerank_provider(NOWHERE, &["sk-rerank"]).await;

    let llm = f
        .model_in(
            None,
            "llm",
            &json!({
                "name": "gpt-4o",
                "provider_uuid": chat,
                "abilities": ["func_call", "vision"],
                "context_length": 128000,
                "extra_args": { "temperature": 0.5 },
                "prefered_ranking": 2,
            }),
        )
        .await;
    let embedding = f
        .model_in(
            None,
            "embedding",
            &json!({ "name": "text-embedding-3-small", "provider_uuid": chat, "extra_args": { "dimensions": 256 } }),
        )
        .await;
    let rr = f.model("rerank", &rerank, "jina-reranker-v2").await;

    // LLM: all fields, the provider embedded, reasoning defaults.
    let res = f.get(&model_path("llm", &llm)).await;
    let m = &res.data()["model"];
    assert_eq!(m["uuid"], llm.as_str());
    assert_eq!(m["workspace_uuid"], f.ws.as_str());
    assert_eq!(m["name"], "gpt-4o");
    assert_eq!(m["provider_uuid"], chat.as_str());
    assert_eq!(m["abilities"], json!(["func_call", "vision"]));
    assert_eq!(m["context_length"], 128000);
    assert_eq!(
        m["reasoning_config"],
        json!({ "level": "provider_default" })
    );
    assert_eq!(m["reasoning_capabilities"]["supported"], false);
    assert!(strings(&m["reasoning_capabilities"]["levels"]).contains(&"provider_default".into()));
    assert_eq!(m["extra_args"], json!({ "temperature": 0.5 }));
    assert_eq!(m["prefered_ranking"], 2);
    assert_eq!(m["provider"]["uuid"], chat.as_str());
    assert_eq!(m["provider"]["api_keys"], json!(["sk-chat"]));

    // Embedding and rerank: no LLM-only fields.
    for (kind, uuid, provider, name) in [
        ("embedding", &embedding, &chat, "text-embedding-3-small"),
        ("rerank", &rr, &rerank, "jina-reranker-v2"),
    ] {
        let res = f.get(&model_path(kind, uuid)).await;
        let m = &res.data()["model"];
        assert_eq!(m["name"], name);
        assert_eq!(m["provider_uuid"], provider.as_str());
        assert_eq!(m["provider"]["uuid"], provider.as_str());
        for llm_only in [
            "abilities",
            "context_length",
            "reasoning_config",
            "reasoning_capabilities",
        ] {
            assert!(
                m.get(llm_only).is_none(),
                "{kind} model has {llm_only}: {m}"
            );
        }
    }
    assert_eq!(
        f.get(&model_path("embedding", &embedding)).await.data()["model"]["extra_args"],
        json!({ "dimensions": 256 })
    );

    // Lists and counts.
    for (kind, uuid) in [("llm", &llm), ("embedding", &embedding), ("rerank", &rr)] {
        let res = f.get(&models_path(kind)).await;
        assert_eq!(
            uuids_of(&res.data()["models"]),
            vec![uuid.clone()],
            "{kind}"
        );
        assert_eq!(res.data()["total"], 1);
        assert!(
            res.data()["models"][0]["provider"].is_object(),
            "{kind}: {}",
            res.text
        );
    }
    let res = f.get(PROVIDERS).await;
    let providers = res.data()["providers"]
        .as_array()
        .expect("providers")
        .clone();
    let counts = |uuid: &str| {
        let p = providers
            .iter()
            .find(|p| p["uuid"] == uuid)
            .expect("provider");
        (
            p["llm_count"].clone(),
            p["embedding_count"].clone(),
            p["rerank_count"].clone(),
        )
    };
    assert_eq!(counts(&chat), (json!(1), json!(1), json!(0)));
    assert_eq!(counts(&rerank), (json!(0), json!(0), json!(1)));
    let p = f.get(&provider_path(&chat)).await;
    assert_eq!(p.data()["provider"]["llm_count"], 1);
    assert_eq!(p.data()["provider"]["embedding_count"], 1);

    // Updates.
    f.send(
        Method::PUT,
        &model_path("llm", &llm),
        &json!({
            "name": "gpt-4o-mini",
            "context_length": 64000,
            "abilities": ["func_call", "reasoning"],
            "reasoning_config": { "level": "high" },
            "extra_args": { "temperature": 0.1, "top_p": 0.9 },
            "prefered_ranking": -1,
        }),
    )
    .await
    .data();
    let res = f.get(&model_path("llm", &llm)).await;
    let m = &res.data()["model"];
    assert_eq!(m["name"], "gpt-4o-mini");
    assert_eq!(m["context_length"], 64000);
    assert_eq!(m["abilities"], json!(["func_call", "reasoning"]));
    assert_eq!(m["reasoning_config"], json!({ "level": "high" }));
    assert_eq!(m["reasoning_capabilities"]["supported"], true);
    assert_eq!(m["extra_args"], json!({ "temperature": 0.1, "top_p": 0.9 }));
    assert_eq!(m["prefered_ranking"], -1);
    // A partial update keeps the rest.
    f.send(
        Method::PUT,
        &model_path("llm", &llm),
        &json!({ "name": "gpt-5" }),
    )
    .await
    .data();
    let res = f.get(&model_path("llm", &llm)).await;
    assert_eq!(res.data()["model"]["context_length"], 64000);
    assert_eq!(
        res.data()["model"]["reasoning_config"],
        json!({ "level": "high" })
    );
    // Moving an LLM to another provider that supports LLMs.
    let chat2 = f.chat_provider(NOWHERE, &[]).await;
    f.send(
        Method::PUT,
        &model_path("llm", &llm),
        &json!({ "provider_uuid": chat2 }),
    )
    .await
    .data();
    assert_eq!(
        f.get(&model_path("llm", &llm)).await.data()["model"]["provider_uuid"],
        chat2.as_str()
    );
    f.send(
        Method::PUT,
        &model_path("embedding", &embedding),
        &json!({ "name": "emb-2", "extra_args": {} }),
    )
    .await
    .data();
    let res = f.get(&model_path("embedding", &embedding)).await;
    assert_eq!(res.data()["model"]["name"], "emb-2");
    assert_eq!(res.data()["model"]["extra_args"], json!({}));
    f.send(
        Method::PUT,
        &model_path("rerank", &rr),
        &json!({ "name": "rr-2" }),
    )
    .await
    .data();
    assert_eq!(
        f.get(&model_path("rerank", &rr)).await.data()["model"]["name"],
        "rr-2"
    );

    // Deletes.
    for (kind, uuid) in [("llm", &llm), ("embedding", &embedding), ("rerank", &rr)] {
        f.delete(&model_path(kind, uuid)).await.data();
        f.get(&model_path(kind, uuid))
            .await
            .assert_error(404, "resource_not_found");
        f.delete(&model_path(kind, uuid))
            .await
            .assert_error(404, "resource_not_found");
        f.send(
            Method::PUT,
            &model_path(kind, uuid),
            &json!({ "name": "x" }),
        )
        .await
        .assert_error(404, "resource_not_found");
        assert!(f.model_uuids(kind).await.is_empty(), "{kind}");
    }
    let p = f.get(&provider_path(&chat)).await;
    assert_eq!(p.data()["provider"]["llm_count"], 0);
    assert_eq!(p.data()["provider"]["embedding_count"], 0);
}

#[tokio::test]
async fn model_lists_filter_by_provider() {
    let f = Instance::new().await;
    let a = f.chat_provider(NOWHERE, &["sk-a"]).await;
    let b = f.chat_provider(NOWHERE, &["sk-b"]).await;
    let a1 = f.model("llm", &a, "a1").await;
    let a2 = f.model("llm", &a, "a2").await;
    let b1 = f.model("llm", &b, "b1").await;
    let ea = f.model("embedding", &a, "ea").await;

    let res = f.get(&models_path("llm")).await;
    assert_eq!(
        uuids_of(&res.data()["models"]),
        vec![a1.clone(), a2.clone(), b1.clone()]
    );
    for m in res.data()["models"].as_array().expect("models") {
        assert_eq!(m["provider"]["uuid"], m["provider_uuid"], "{m}");
    }
    let res = f
        .get(&format!("{}?provider_uuid={a}", models_path("llm")))
        .await;
    assert_eq!(
        uuids_of(&res.data()["models"]),
        vec![a1.clone(), a2.clone()]
    );
    assert_eq!(res.data()["total"], 2);
    for m in res.data()["models"].as_array().expect("models") {
        assert!(
            m.get("provider").is_none(),
            "the provider is not embedded in a filtered list: {m}"
        );
    }
    let res = f
        .get(&format!("{}?provider_uuid={b}", models_path("llm")))
        .await;
    assert_eq!(uuids_of(&res.data()["models"]), vec![b1]);
    let res = f
        .get(&format!("{}?provider_uuid={b}", models_path("embedding")))
        .await;
    assert!(uuids_of(&res.data()["models"]).is_empty());
    let res = f
        .get(&format!("{}?provider_uuid={a}", models_path("embedding")))
        .await;
    assert_eq!(uuids_of(&res.data()["models"]), vec![ea]);
    let res = f
        .get(&format!(
            "{}?provider_uuid={a}&limit=1&offset=1",
            models_path("llm")
        ))
        .await;
    assert_eq!(uuids_of(&res.data()["models"]), vec![a2]);
    assert_eq!(res.data()["total"], 2);

    f.get(&format!(
        "{}?provider_uuid={}",
        models_path("llm"),
        random_uuid()
    ))
    .await
    .assert_error(404, "resource_not_found");
    let res = f
        .get(&format!("{}?provider_uuid=not-a-uuid", models_path("llm")))
        .await;
    res.assert_error(400, "invalid_request");
}

#[tokio::test]
async fn a_model_is_only_found_under_its_own_kind() {
    let f = Instance::new().await;
    let chat = f.chat_provider(NOWHERE, &[]).await;
    let llm = f.model("llm", &chat, "l").await;
    let embedding = f.model("embedding", &chat, "e").await;
    for (kind, uuid) in [("embedding", &llm), ("rerank", &llm), ("llm", &embedding)] {
        let path = model_path(kind, uuid);
        f.get(&path).await.assert_error(404, "resource_not_found");
        f.send(Method::PUT, &path, &json!({ "name": "hijacked" }))
            .await
            .assert_error(404, "resource_not_found");
        f.send(Method::POST, &format!("{path}/test"), &json!({}))
            .await
            .assert_error(404, "resource_not_found");
        f.delete(&path)
            .await
            .assert_error(404, "resource_not_found");
    }
    assert_eq!(f.model_uuids("llm").await, vec![llm.clone()]);
    assert_eq!(f.model_uuids("embedding").await, vec![embedding]);
    assert_eq!(
        f.get(&model_path("llm", &llm)).await.data()["model"]["name"],
        "l"
    );
}
