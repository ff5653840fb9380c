//! Monitoring (SPEC §11): what the runtime recorded, read per Workspace — executions with
//! their sections, records by kind, token statistics, the in-flight feed, CSV export — and the
//! background retention and lease reaper.

pub mod dto;
pub mod export;
pub mod filter;
pub mod inflight;
pub mod keyset;
pub mod maintenance;
pub mod ops;
pub mod rollup;
pub mod service;
pub mod totals;
