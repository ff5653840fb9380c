//! Model providers, their models (LLM, embedding, rerank), the requester catalog, secrets,
//! cascade delete and the starred model.

pub mod dto;
pub mod langbot_requesters;
pub mod models;
pub mod ops;
pub mod requesters;
pub mod service;
