//! Provider, model, requester and starred-model operations.

mod models;
mod providers;
mod requesters;
mod starred;

pub use models::*;
pub use providers::{
    CreateModelProvider, DeleteModelProvider, GetModelProvider, ListModelProviders,
    UpdateModelProvider,
};
pub use requesters::{GetRequester, GetRequesterIcon, ListRequesters};
pub use starred::{GetDefaultModel, GetStarredModel, SetStarredModel};
