//! Embeddings (`POST {base}/embeddings`) and rerank (`POST {base}/rerank`): the Jina/Cohere v2
//! shape (`top_n`, `results[]`), or Voyage AI's (`top_k`, `data[]`).

use serde_json::{json, Map, Value};

use super::types::Endpoint;
use super::{Protocol, UpstreamCode, UpstreamError};

async fn post(
    http: &reqwest::Client,
    ep: &Endpoint,
    path: &str,
    body: Value,
) -> Result<Value, UpstreamError> {
    let mut rb = http.post(ep.url(path)).json(&body).timeout(ep.timeout);
    if let Some(key) = ep.api_key.as_deref().filter(|k| !k.is_empty()) {
        rb = rb.bearer_auth(key);
    }
    let resp = rb.send().await.map_err(UpstreamError::transport)?;
    let status = resp.status();
    if !status.is_success() {
        let text = resp.text().await.unwrap_or_default();
        return Err(UpstreamError::from_response(status.as_u16(), &text));
    }
    resp.json().await.map_err(UpstreamError::transport)
}

fn merged(mut body: Map<String, Value>, extra: &Map<String, Value>) -> Value {
    for (k, v) in extra {
        if !["timeout", "rerank_path", "extra_headers", "request_policy"].contains(&k.as_str()) {
            body.insert(k.clone(), v.clone());
        }
    }
    Value::Object(body)
}

fn unexpected(what: &str) -> UpstreamError {
    UpstreamError::new(
        UpstreamCode::UpstreamError,
        None,
        format!("unexpected {what} response"),
    )
}

/// One vector per input, in input order.
pub(super) async fn embed(
    http: &reqwest::Client,
    ep: &Endpoint,
    model: &str,
    inputs: &[String],
    extra: &Map<String, Value>,
) -> Result<Vec<Vec<f64>>, UpstreamError> {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("input".into(), json!(inputs));
    body.insert("encoding_format".into(), json!("float"));
    let value = post(http, ep, "embeddings", merged(body, extra)).await?;
    let mut rows: Vec<(u64, Vec<f64>)> = value["data"]
        .as_array()
        .ok_or_else(|| unexpected("embedding"))?
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let index = item["index"].as_u64().unwrap_or(i as u64);
            let vector = item["embedding"]
                .as_array()
                .map(|v| v.iter().filter_map(Value::as_f64).collect());
            vector
                .map(|v| (index, v))
                .ok_or_else(|| unexpected("embedding"))
        })
        .collect::<Result<_, _>>()?;
    rows.sort_by_key(|(i, _)| *i);
    Ok(rows.into_iter().map(|(_, v)| v).collect())
}

/// A rerank result: the document's index and its relevance.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RerankHit {
    pub index: usize,
    pub relevance_score: f64,
}

/// Ranks `documents` against `query`, best first.
pub(super) async fn rerank(
    http: &reqwest::Client,
    ep: &Endpoint,
    model: &str,
    query: &str,
    documents: &[String],
    extra: &Map<String, Value>,
) -> Result<Vec<RerankHit>, UpstreamError> {
    let path = extra
        .get("rerank_path")
        .and_then(Value::as_str)
        .unwrap_or("rerank")
        .to_string();
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("query".into(), json!(query));
    body.insert("documents".into(), json!(documents));
    let top = if ep.protocol == Protocol::Voyage {
        "top_k"
    } else {
        "top_n"
    };
    body.insert(top.into(), json!(documents.len().min(64)));
    let value = post(http, ep, &path, merged(body, extra)).await?;
    let mut hits: Vec<RerankHit> = value["results"]
        .as_array()
        .or_else(|| value["data"].as_array())
        .ok_or_else(|| unexpected("rerank"))?
        .iter()
        .filter_map(|r| {
            let index = usize::try_from(r["index"].as_u64()?).ok()?;
            let score = r["relevance_score"]
                .as_f64()
                .or_else(|| r["score"].as_f64())?;
            Some(RerankHit {
                index,
                relevance_score: score,
            })
        })
        .collect();
    hits.sort_by(|a, b| b.relevance_score.total_cmp(&a.relevance_score));
    Ok(hits)
}
