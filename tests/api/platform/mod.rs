//! The platform: `/api/v1/platform/adapters` and `/api/v1/platform/bots` with their event routes.

mod adapters;
mod bots;
