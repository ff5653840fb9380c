//! `GET /api/v1/provider/requesters`: only the requesters that really work, with their schemas.

use std::collections::BTreeSet;

use reqwest::Method;
use serde_json::Value;

use super::strings;
use crate::helpers::fixtures::{CHAT, REQUESTERS, RERANK};
use crate::helpers::{Instance, Response};

#[tokio::test]
async fn the_requester_catalog_lists_both_requesters_with_their_schemas() {
    let f = Instance::new().await;
    let res = f.get(REQUESTERS).await;
    let list = res.data()["requesters"].as_array().expect("requesters");
    let names: Vec<&str> = list.iter().filter_map(|r| r["name"].as_str()).collect();
    assert_eq!(
        names.iter().copied().collect::<BTreeSet<_>>(),
        BTreeSet::from([CHAT, RERANK]),
        "only the requesters that really work: {}",
        res.text
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

    // Config schemas: base_url and timeout.
    for r in [&chat, &rerank] {
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
    assert_eq!(res.data()["requesters"].as_array().map(Vec::len), Some(2));
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
    assert_eq!(
        names(f.get(&format!("{REQUESTERS}?type=llm")).await),
        vec![CHAT]
    );
    assert_eq!(
        names(f.get(&format!("{REQUESTERS}?type=text-embedding")).await),
        vec![CHAT]
    );
    assert_eq!(
        names(f.get(&format!("{REQUESTERS}?type=rerank")).await),
        vec![RERANK]
    );
    assert!(names(f.get(&format!("{REQUESTERS}?type=speech")).await).is_empty());
    assert_eq!(names(f.get(&format!("{REQUESTERS}?type=")).await).len(), 2);

    for unknown in [
        "nope",
        "openai",
        "anthropic-messages",
        "OPENAI-CHAT-COMPLETIONS",
    ] {
        f.get(&format!("{REQUESTERS}/{unknown}"))
            .await
            .assert_error(404, "resource_not_found");
    }
}
