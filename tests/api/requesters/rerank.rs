//! `cohere-rerank` (Cohere v2), `jina-rerank` and `voyageai-rerank`: each vendor's rerank
//! request and answer shape, through the client and the model test operation.

use langbot::llm::{self, Protocol};
use serde_json::{json, Map};

use super::endpoint;
use crate::helpers::fake_native::rerank::Vendor;
use crate::helpers::{FakeNative, Instance};

const KEY: &str = "rr-key";

/// (requester, vendor, the base URL below the fake's root)
const CASES: [(&str, Vendor, &str); 3] = [
    ("cohere-rerank", Vendor::Cohere, "/v2"),
    ("jina-rerank", Vendor::Jina, "/v1"),
    ("voyageai-rerank", Vendor::Voyage, "/v1"),
];

#[tokio::test]
async fn each_rerank_api_ranks_best_first_in_its_own_shape() {
    let docs: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    for (requester, vendor, prefix) in CASES {
        let fake = FakeNative::rerank(vendor, KEY).await;
        let ep = endpoint(
            &format!("{}{prefix}", fake.uri()),
            Some(KEY),
            Protocol::of_requester(requester),
        );
        let hits = llm::rerank(
            &reqwest::Client::new(),
            &ep,
            "rr-model",
            "q",
            &docs,
            &Map::new(),
        )
        .await
        .unwrap_or_else(|e| panic!("{requester}: {e}"));
        let order: Vec<usize> = hits.iter().map(|h| h.index).collect();
        assert_eq!(order, vec![1, 2, 0], "{requester}");
        assert_eq!(hits[0].relevance_score, 0.9, "{requester}");
        let sent = fake.received_on(vendor.path()).await;
        assert_eq!(sent.len(), 1, "{requester}");
        assert_eq!(sent[0].body["documents"], json!(docs), "{requester}");
        let limit = if vendor == Vendor::Voyage {
            "top_k"
        } else {
            "top_n"
        };
        assert_eq!(sent[0].body[limit], 3, "{requester}");
    }
}

#[tokio::test]
async fn rerank_models_of_each_vendor_test_ok_and_refuse_other_kinds() {
    let f = Instance::new().await;
    for (requester, vendor, prefix) in CASES {
        let fake = FakeNative::rerank(vendor, KEY).await;
        let provider = f
            .provider_in(
                None,
                &json!({ "name": requester, "requester": requester,
                         "base_url": format!("{}{prefix}", fake.uri()), "api_keys": [KEY] }),
            )
            .await;
        let model = f.model("rerank", &provider, "rr-model").await;
        let res = f.test_model("rerank", &model).await;
        assert_eq!(res.status, 200, "{requester}: {}", res.text);
        assert_eq!(
            fake.received_on(vendor.path()).await.len(),
            1,
            "{requester}"
        );
        let refused = f
            .send(
                reqwest::Method::POST,
                "/api/v1/provider/models/llm",
                &json!({ "name": "x", "provider_uuid": provider }),
            )
            .await;
        assert_eq!(refused.status, 400, "{requester}: {}", refused.text);
    }
}
