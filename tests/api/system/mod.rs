//! The server itself: `/healthz`, `/readyz`, `/api/v1/system/*`, the docs UI, and the envelope
//! every path shares (JSON 404/405, request ids, compression).

mod compression;
mod database_down;
mod docs;
mod envelope;
mod health;
mod info;
