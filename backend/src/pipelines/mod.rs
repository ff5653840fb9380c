//! Pipelines: the typed config, its form (metadata), the default pipeline, copy and delete.

pub mod config;
pub mod dto;
pub mod extensions;
pub mod metadata;
pub mod ops;
pub mod service;
