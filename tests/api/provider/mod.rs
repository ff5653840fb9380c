//! Model providers and models: `/api/v1/provider/{requesters,providers,models/{llm,embedding,rerank}}`
//! — requesters, providers, models, secrets, model tests, the starred model and cascade delete
//! (SPEC §4, §5.3, §6, §7; reference providers_models §0.4, §1, §3, §4, §6). Model tests call a
//! fake OpenAI-compatible upstream (`helpers::FakeOpenAi`); `llm_client` tests the client itself.

mod cascade;
mod langbot_requesters;
mod llm_client;
mod model_tests;
mod model_validation;
mod models;
mod providers;
mod requesters;
mod secrets;
mod starred;

use serde_json::Value;

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}
