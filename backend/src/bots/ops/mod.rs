//! Adapter catalog, bot and route operations.

mod adapters;
mod bots;
mod dry_run;
mod logs;

pub use adapters::{GetAdapter, GetAdapterIcon, ListAdapters};
pub use bots::{CreateBot, DeleteBot, GetBot, ListBots, UpdateBot};
pub use dry_run::DryRunBotEventRoute;
pub use logs::GetBotLogs;

use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

/// `{bot_uuid}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct BotPath {
    pub bot_uuid: Uuid,
}
