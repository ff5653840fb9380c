//! LangBot's requesters under their names (reference providers_models.md §5.2, read here as
//! the oracle): every one whose protocol is served (the OpenAI-compatible ones and the native
//! Anthropic, Ollama, Gemini, Cohere, Jina and Voyage ones, see `tests/api/requesters`) is
//! listed with LangBot's label, default base URL, support types and category; one provider of
//! an all-kinds requester holds LLM, embedding and rerank models that really call the upstream.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::helpers::fixtures::{CHAT, REQUESTERS, RERANK};
use crate::helpers::{FakeOpenAi, Instance, Route};

/// One row of the reference table.
pub(super) struct Row {
    pub name: String,
    label: String,
    litellm: String,
    support: BTreeSet<String>,
    category: String,
    base_url: String,
}

/// The 44 rows of §5.2.
pub(super) fn reference_rows() -> Vec<Row> {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/reference/providers_models.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let section = text.split("### 5.2").nth(1).expect("§5.2");
    let section = section.split("### 5.3").next().unwrap();
    let cell = |s: &str| s.trim().trim_matches('`').to_string();
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').collect();
            let support = cells[3]
                .split(',')
                .map(|s| match s.trim() {
                    "emb" => "text-embedding".to_string(),
                    other => other.to_string(),
                })
                .collect();
            Row {
                name: cell(cells[0]),
                label: cell(cells[1]),
                litellm: cell(cells[2]),
                support,
                category: cell(cells[4]),
                // "https://…/v1 (+ `args`)": the URL is the first word.
                base_url: cells[5].split_whitespace().next().unwrap_or("").to_string(),
            }
        })
        .collect()
}

/// Requesters served by a native client of their own protocol.
const NATIVE: &[&str] = &[
    "anthropic-messages",
    "cohere-rerank",
    "gemini-chat-completions",
    "jina-rerank",
    "ollama-chat",
    "voyageai-rerank",
];

/// Requesters nothing here can call: ChatGPT sign-in with the Responses API, LiteLLM's
/// in-process routing, and the in-process ONNX embedders.
const NOT_SERVED: &[&str] = &[
    "openai-codex",
    "litellm-chat",
    "chroma-embedding",
    "seekdb-embedding",
];

/// The rows served: plain OpenAI HTTP ("OAI"), a LiteLLM provider that is the OpenAI API at
/// the vendor's URL, or a native protocol.
fn served_rows(rows: &[Row]) -> Vec<&Row> {
    rows.iter()
        .filter(|r| !NOT_SERVED.contains(&r.name.as_str()) && r.name != CHAT)
        .filter(|r| {
            NATIVE.contains(&r.name.as_str())
                || r.litellm.contains("OAI")
                || r.litellm.contains("openai")
                || ["deepseek", "groq", "mistral", "together_ai"].contains(&r.litellm.as_str())
        })
        .collect()
}

#[tokio::test]
async fn every_servable_langbot_requester_is_served_as_langbot_declares_it() {
    let rows = reference_rows();
    assert_eq!(rows.len(), 44, "the reference lists 44 requesters");
    let wanted = served_rows(&rows);
    assert_eq!(
        wanted.len(),
        39,
        "{:?}",
        wanted.iter().map(|r| &r.name).collect::<Vec<_>>()
    );
    let f = Instance::new().await;
    let res = f.get(REQUESTERS).await;
    let list = res.data()["requesters"]
        .as_array()
        .expect("requesters")
        .clone();
    let served: BTreeSet<&str> = list.iter().filter_map(|r| r["name"].as_str()).collect();
    let mut problems = Vec::new();
    for row in &wanted {
        let Some(r) = list.iter().find(|r| r["name"] == row.name.as_str()) else {
            problems.push(format!("{}: not served", row.name));
            continue;
        };
        let support: BTreeSet<String> = r["support_type"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(String::from))
            .collect();
        let default = r["spec"]["config"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|f| f["name"] == "base_url")
            .map(|f| f["default"].clone());
        for (what, ours, theirs) in [
            ("label", r["label"]["en_US"].clone(), json!(row.label)),
            ("support_type", json!(support), json!(row.support)),
            (
                "spec.support_type",
                json!(r["spec"]["support_type"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s.as_str())
                    .collect::<BTreeSet<_>>()),
                json!(row.support),
            ),
            (
                "category",
                r["spec"]["provider_category"].clone(),
                json!(row.category),
            ),
            (
                "base_url default",
                default.unwrap_or(Value::Null),
                json!(row.base_url),
            ),
        ] {
            if ours != theirs {
                problems.push(format!("{}: {what} {ours}, LangBot {theirs}", row.name));
            }
        }
    }
    // Nothing else is served: the generic two and these.
    let expected: BTreeSet<&str> = wanted
        .iter()
        .map(|r| r.name.as_str())
        .chain([CHAT, RERANK])
        .collect();
    assert_eq!(served, expected, "only requesters that really work");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[tokio::test]
async fn one_langbot_named_provider_holds_llm_embedding_and_rerank_models_that_work() {
    let fake = FakeOpenAi::start().await;
    fake.mount_chat("Hello").await;
    fake.mount_embeddings().await;
    fake.mount_rerank(&[0.8, 0.1]).await;
    let f = Instance::new().await;
    let provider = f
        .provider_in(
            None,
            &json!({ "name": "SF", "requester": "siliconflow-chat-completions",
                     "base_url": fake.base_url(), "api_keys": ["sk-sf-1"] }),
        )
        .await;
    for (kind, name, route) in [
        ("llm", "qwen", Route::Chat),
        ("embedding", "bge", Route::Embeddings),
        ("rerank", "bge-reranker", Route::Rerank),
    ] {
        let model = f.model(kind, &provider, name).await;
        let res = f.test_model(kind, &model).await;
        assert_eq!(res.status, 200, "{kind}: {}", res.text);
        let sent = fake.only(route).await;
        assert_eq!(sent.authorization(), Some("Bearer sk-sf-1"), "{kind}");
        assert_eq!(sent.body["model"], name, "{kind}");
    }
    // An LLM-only requester refuses other kinds with a 400 naming the provider.
    let deepseek = f
        .provider_in(
            None,
            &json!({ "name": "DS", "requester": "deepseek-chat-completions",
                     "base_url": fake.base_url(), "api_keys": ["sk-ds"] }),
        )
        .await;
    let refused = f
        .send(
            reqwest::Method::POST,
            "/api/v1/provider/models/embedding",
            &json!({ "name": "e", "provider_uuid": deepseek }),
        )
        .await;
    assert_eq!(refused.status, 400, "{}", refused.text);
    assert_eq!(refused.body["code"], "invalid_request", "{}", refused.text);
    // A name LangBot has but whose protocol is not served stays refused.
    for name in NOT_SERVED {
        let res = f
            .send(
                reqwest::Method::POST,
                "/api/v1/provider/providers",
                &json!({ "name": "A", "requester": name,
                         "base_url": "https://chatgpt.com/backend-api/codex", "api_keys": [] }),
            )
            .await;
        assert_eq!(res.status, 400, "{name}: {}", res.text);
    }
}
