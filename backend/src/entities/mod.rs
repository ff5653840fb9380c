//! SeaORM entities, one per table (hand-written to match `migration/`). Never exposed in the
//! API: resources map them to DTOs.

pub mod api_key;
pub mod bot;
pub mod instance_metadata;
pub mod membership;
pub mod model;
pub mod pipeline;
pub mod provider;
pub mod user;
pub mod workspace;
pub mod workspace_invitation;
pub mod workspace_metadata;
