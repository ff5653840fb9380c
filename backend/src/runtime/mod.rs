//! The runtime: from an inbound message to the model's reply. Adapters (`http_bot`) verify
//! and normalize events; the route engine picks the pipeline; `turn` runs its stages;
//! `conversation` keeps per-session state in the session store so any replica can serve the
//! next message; `recorder` writes monitoring records.

pub mod adapters;
mod agent;
pub mod aggregate;
pub mod conversation;
pub mod debug_ws;
pub mod dispatch;
pub mod http_bot;
pub mod langbot_ws;
pub mod message;
pub mod ops;
pub mod recorder;
pub mod signing;
pub mod stages;
pub mod turn;
