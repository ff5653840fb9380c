//! Pipeline operations.

mod agents;
mod extensions;
mod pipelines;
mod processors;

pub use agents::*;
pub use extensions::*;
pub use pipelines::*;
pub use processors::*;

use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

/// `{pipeline_uuid}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct PipelinePath {
    pub pipeline_uuid: Uuid,
}
