//! Workspace API keys: `lbk_` secrets shown once, SHA-256 stored, scoped, expiring, revocable.

pub mod dto;
pub mod ops;
pub mod service;
