//! Bots, the adapter catalog, message routes and the route engine.

pub mod adapters;
pub mod dto;
pub mod engine;
#[cfg(test)]
mod engine_props;
pub mod ops;
pub mod routes;
pub mod service;
pub mod status;
