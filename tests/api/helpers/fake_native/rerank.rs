//! Fake rerank APIs: Cohere v2 (`POST /v2/rerank`, `top_n`, `results[]` and `meta`), Jina
//! (`POST /v1/rerank`, `results[]` with the document and `usage`), Voyage AI (`POST /v1/rerank`,
//! `top_k`, `data[]` and `usage`). Scores are fixed per document position: 0.2, 0.9, 0.5, …

use serde_json::{json, Value};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, Request, Respond, ResponseTemplate};

use super::FakeNative;

/// Which vendor a fake rerank server imitates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vendor {
    Cohere,
    Jina,
    Voyage,
}

impl Vendor {
    pub fn path(self) -> &'static str {
        match self {
            Vendor::Cohere => "/v2/rerank",
            Vendor::Jina | Vendor::Voyage => "/v1/rerank",
        }
    }
}

pub const SCORES: [f64; 3] = [0.2, 0.9, 0.5];

struct Rank(Vendor);

impl Respond for Rank {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let Ok(body) = req.body_json::<Value>() else {
            return ResponseTemplate::new(400).set_body_json(json!({ "message": "invalid JSON" }));
        };
        let docs = body["documents"].as_array().cloned().unwrap_or_default();
        if body["query"].as_str().is_none() || docs.is_empty() || !body["model"].is_string() {
            return ResponseTemplate::new(400)
                .set_body_json(json!({ "message": "model, query and documents are required" }));
        }
        // Each vendor names its limit differently and refuses the other's.
        let (limit, other) = match self.0 {
            Vendor::Voyage => ("top_k", "top_n"),
            _ => ("top_n", "top_k"),
        };
        if body.get(other).is_some() {
            return ResponseTemplate::new(400)
                .set_body_json(json!({ "detail": format!("unexpected argument {other}") }));
        }
        let n = body[limit]
            .as_u64()
            .map_or(docs.len(), |n| n as usize)
            .min(docs.len());
        let mut ranked: Vec<(usize, f64)> = (0..docs.len())
            .map(|i| (i, SCORES.get(i).copied().unwrap_or(0.1)))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        ranked.truncate(n);
        let rows: Vec<Value> = ranked
            .iter()
            .map(|(i, s)| match self.0 {
                Vendor::Jina => {
                    json!({ "index": i, "relevance_score": s, "document": { "text": docs[*i] } })
                }
                _ => json!({ "index": i, "relevance_score": s }),
            })
            .collect();
        let answer = match self.0 {
            Vendor::Cohere => json!({ "id": "rr-1", "results": rows,
                                      "meta": { "api_version": { "version": "2" }, "billed_units": { "search_units": 1 } } }),
            Vendor::Jina => {
                json!({ "model": body["model"], "results": rows, "usage": { "total_tokens": 20 } })
            }
            Vendor::Voyage => {
                json!({ "object": "list", "data": rows, "model": body["model"], "usage": { "total_tokens": 20 } })
            }
        };
        ResponseTemplate::new(200).set_body_json(answer)
    }
}

impl FakeNative {
    /// A rerank server of `vendor` that wants `Authorization: Bearer <key>`.
    pub async fn rerank(vendor: Vendor, key: &str) -> Self {
        let fake = Self::start().await;
        Mock::given(method("POST"))
            .and(path(vendor.path()))
            .and(header("authorization", format!("Bearer {key}").as_str()))
            .respond_with(Rank(vendor))
            .mount(&fake.server)
            .await;
        Mock::given(method("POST"))
            .and(path(vendor.path()))
            .respond_with(
                ResponseTemplate::new(401).set_body_json(json!({ "message": "invalid api token" })),
            )
            .mount(&fake.server)
            .await;
        fake
    }
}
