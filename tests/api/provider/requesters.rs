//! `GET /api/v1/provider/requesters`: only the requesters that really work, with their schemas.

use std::collections::BTreeSet;

use reqwest::Method;
use serde_json::Value;

use super::strings;
use crate::helpers::fixtures::{CHAT, REQUESTERS, RERANK};
use crate::helpers::{Instance, Response};

#[tokio::test]
async fn the_requester_catalog_lists_the_generic_requesters_with_their_schemas() {
    let f = Instance::new().await;
    let res = f.get(REQUESTERS).await;
    let list = res.data()["requesters"].as_array().expect("requesters");
    let names: Vec<&str> = list.iter().filter_map(|r| r["name"].as_str()).collect();
    // The generic two come first; LangBot's named ones follow (`langbot_requesters`
    // checks that set against the reference).
    assert_eq!(names[..2], [CHAT, RERANK], "{}", res.text);
    assert_eq!(
        names.iter().collect::<BTreeSet<_>>().len(),
        names.len(),
        "names are unique"
    );
    let by_name = |name: &str| {
        list.iter()
            .find(|r| r["name"] == name)
            .cloned()
            .expect("requester")
    };
    let chat = by_name(CHAT);
    let rerank = by_name(RERANK);
    let support = |r: &Value| -> BTreeSet<String> {
        let top = strings(&r["support_type"]);
        let spec = strings(&r["spec"]["support_type"]);
        assert!(
            top.is_empty() || top == spec,
            "support_type differs between the requester and its spec: {r}"
        );
        spec.into_iter().collect()
    };
    assert_eq!(
        support(&chat),
        BTreeSet::from(["llm".to_string(), "text-embedding".to_string()])
    );
    assert_eq!(support(&rerank), BTreeSet::from(["rerank".to_string()]));

    // Presets: OpenAI, DeepSeek, Ollama, vLLM, OpenRouter, SiliconFlow …
    let presets = chat["spec"]["presets"].as_array().expect("presets");
    for preset in presets {
        assert!(preset["name"].as_str().is_some_and(|s| !s.is_empty()));
        assert!(preset["label"].as_str().is_some_and(|s| !s.is_empty()));
        assert!(
            preset["base_url"]
                .as_str()
                .is_some_and(|u| u.starts_with("http://") || u.starts_with("https://")),
            "{preset}"
        );
    }
    let labels: Vec<String> = presets
        .iter()
        .filter_map(|p| p["label"].as_str().map(str::to_lowercase))
        .collect();
    for wanted in [
        "openai",
        "deepseek",
        "ollama",
        "vllm",
        "openrouter",
        "siliconflow",
    ] {
        assert!(
            labels.iter().any(|l| l.contains(wanted)),
            "no {wanted} preset in {labels:?}"
        );
    }
    let openai = presets
        .iter()
        .find(|p| p["label"] == "OpenAI")
        .expect("OpenAI preset");
    assert_eq!(openai["base_url"], "https://api.openai.com/v1");

    // Config schemas: base_url and timeout, for every requester.
    for r in list {
        let fields: Vec<&str> = r["spec"]["config"]
            .as_array()
            .expect("config fields")
            .iter()
            .filter_map(|f| f["name"].as_str())
            .collect();
        assert!(fields.contains(&"base_url"), "{r}");
        assert!(fields.contains(&"timeout"), "{r}");
    }

    // One requester by name.
    let one = f.get(&format!("{REQUESTERS}/{RERANK}")).await;
    assert_eq!(one.data()["requester"], rerank);
    // An API key works too (session or API key).
    let (_, key) = f.app.create_key(&f.owner, Some(&["workspace.view"])).await;
    let res = f
        .app
        .request(Method::GET, REQUESTERS)
        .header("x-api-key", &key)
        .send()
        .await;
    assert_eq!(
        res.data()["requesters"].as_array().map(Vec::len),
        Some(list.len())
    );
    // Without credentials: 401.
    f.app
        .get(REQUESTERS)
        .await
        .assert_error(401, "invalid_authentication");
}

#[tokio::test]
async fn the_requester_catalog_filters_by_type_and_404s_unknown_names() {
    let f = Instance::new().await;
    let names = |res: Response| -> Vec<String> {
        res.data()["requesters"]
            .as_array()
            .expect("requesters")
            .iter()
            .filter_map(|r| r["name"].as_str().map(str::to_string))
            .collect()
    };
    let all = f.get(REQUESTERS).await.data()["requesters"].clone();
    let supporting = |kind: &str| -> Vec<String> {
        all.as_array()
            .unwrap()
            .iter()
            .filter(|r| {
                r["support_type"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|t| t == kind)
            })
            .filter_map(|r| r["name"].as_str().map(str::to_string))
            .collect()
    };
    for (kind, has, lacks) in [
        ("llm", CHAT, RERANK),
        ("text-embedding", CHAT, RERANK),
        ("rerank", RERANK, CHAT),
    ] {
        let got = names(f.get(&format!("{REQUESTERS}?type={kind}")).await);
        assert_eq!(got, supporting(kind), "?type={kind}");
        assert!(got.iter().any(|n| n == has), "?type={kind}: {got:?}");
        assert!(!got.iter().any(|n| n == lacks), "?type={kind}: {got:?}");
    }
    // An all-kinds LangBot requester is listed for each kind.
    for kind in ["llm", "text-embedding", "rerank"] {
        let got = names(f.get(&format!("{REQUESTERS}?type={kind}")).await);
        assert!(
            got.iter().any(|n| n == "siliconflow-chat-completions"),
            "{kind}"
        );
    }
    assert!(names(f.get(&format!("{REQUESTERS}?type=speech")).await).is_empty());
    assert_eq!(
        names(f.get(&format!("{REQUESTERS}?type=")).await).len(),
        all.as_array().unwrap().len()
    );

    for unknown in ["nope", "openai", "openai-codex", "OPENAI-CHAT-COMPLETIONS"] {
        f.get(&format!("{REQUESTERS}/{unknown}"))
            .await
            .assert_error(404, "resource_not_found");
    }
}
