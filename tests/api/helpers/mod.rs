//! Spawning the app and talking to it: [`spawn`] (the one place that starts the app and knows
//! its state), [`client`] (credential-aware requests), [`response`] (assertions), [`fixtures`]
//! (accounts, providers and models, pipelines, bots, the http_bot turn rig), [`mcp`] (an MCP
//! client), [`query`] (query strings and catalog methods), [`schema`] (walking OpenAPI
//! documents), a fake OpenAI upstream, a TCP chaos proxy and the storage back ends.

mod backend;
mod chaos;
mod client;
pub mod fake_native;
mod fake_openai;
pub mod fakes;
pub mod fixtures;
pub mod mcp;
pub mod mcp_fixture;
pub mod plugins;
mod poll;
pub mod query;
mod response;
pub mod schema;
mod spawn;

pub use backend::{redis_pass, test_store};
pub use chaos::{host_port, ChaosProxy};
pub use client::Cred;
pub use fake_native::FakeNative;
pub use fake_openai::{
    chat_completion, content_chunk, embedding_of, finish_chunk, openai_error, raw_tool_call,
    role_chunk, tool_call, tool_call_chunk, usage_chunk, FakeOpenAi, Round, Route, ScriptedCall,
    ToolScript, RESULTS, RESULTS_SEPARATOR,
};
pub use fixtures::{Instance, Member, OWNER_EMAIL, PASSWORD};
pub use poll::eventually;
pub use response::{error_fields, Response};
pub use spawn::{spawn_app, spawn_app_with, TestApp};

/// A recorded message's `message_content` (LangBot's shape: the chain's JSON text), parsed.
pub fn stored_chain(content: &serde_json::Value) -> serde_json::Value {
    let text = content
        .as_str()
        .unwrap_or_else(|| panic!("message_content is not a string: {content}"));
    serde_json::from_str(text).unwrap_or_else(|_| serde_json::Value::String(text.into()))
}
