//! `POST /platform/bots/{bot_uuid}/logs`: LangBot's bot log (its bot page's Logs tab and its
//! "test listener"). LangBot keeps the last 200 lines per bot in memory; here they are the
//! bot's recorded messages (monitoring), so every replica answers the same and they outlive a
//! restart. `seq_id` is a message's position among the bot's messages, oldest first.

use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;
use validator::Validate;

use super::BotPath;
use crate::access::{Permission, RequestCtx};
use crate::bots::service;
use crate::catalog::{Input, NoParams, OpMeta, Operation};
use crate::entities::monitoring_message as message;
use crate::error::ApiResult;
use crate::state::AppState;

/// LangBot's text limit per line.
const TEXT_LIMIT: usize = 20_000;

/// `{from_index, max_count}`: up to `max_count` lines ending at `from_index` (inclusive);
/// `-1` means the latest.
#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
#[schema(as = BotLogsQuery)]
pub struct BotLogsBody {
    #[serde(default = "latest")]
    #[validate(range(min = -1))]
    pub from_index: i64,
    #[serde(default = "ten")]
    #[validate(range(min = 1, max = 200))]
    pub max_count: u64,
}

fn latest() -> i64 {
    -1
}

fn ten() -> u64 {
    10
}

/// One line of the log, in LangBot's shape.
#[derive(Debug, Serialize, ToSchema)]
pub struct BotLog {
    pub seq_id: u64,
    /// Epoch seconds.
    pub timestamp: i64,
    /// `info` or `error`.
    pub level: String,
    pub text: String,
    /// Image URLs of the line (none here: inline images are not kept in the record).
    pub images: Vec<String>,
    pub message_session_id: Option<String>,
    #[schema(value_type = Object)]
    pub metadata: serde_json::Value,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BotLogs {
    /// Oldest first.
    pub logs: Vec<BotLog>,
    pub total_count: u64,
}

pub struct GetBotLogs;

impl Operation for GetBotLogs {
    const META: OpMeta = OpMeta::post("get_bot_logs", "/platform/bots/{bot_uuid}/logs")
        .tag("bots")
        .summary("The bot's log: the messages it received and sent")
        .description(
            "Up to `max_count` (≤ 200) lines ending at `from_index` (`-1`: the latest), oldest \
             first. Each line is a recorded message of the bot: `seq_id` is its position among \
             the bot's messages, `level` is `error` for a failed turn.",
        )
        .permission(Permission::ResourceView);
    type Path = BotPath;
    type Query = NoParams;
    type Body = BotLogsBody;
    type Output = BotLogs;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<BotPath, NoParams, BotLogsBody>,
    ) -> ApiResult<BotLogs> {
        let ws = ctx.workspace()?;
        let bot = service::get(&state.db, ws, &input.path.bot_uuid).await?;
        let of_bot = message::Entity::find()
            .filter(message::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
            .filter(message::Column::BotId.eq(bot.uuid.as_str()));
        let total = of_bot.clone().count(&state.db).await?;
        let BotLogsBody {
            from_index,
            max_count,
        } = input.body;
        if total == 0 {
            return Ok(BotLogs {
                logs: Vec::new(),
                total_count: 0,
            });
        }
        // The window [first, last] of positions, clipped to what exists.
        let last = match u64::try_from(from_index) {
            Ok(i) => i.min(total - 1),
            Err(_) => total - 1,
        };
        let first = (last + 1).saturating_sub(max_count);
        let rows = of_bot
            .order_by_asc(message::Column::Timestamp)
            .order_by_asc(message::Column::Id)
            .offset(first)
            .limit(last + 1 - first)
            .all(&state.db)
            .await?;
        let logs = rows
            .into_iter()
            .zip(first..)
            .map(|(m, seq_id)| line(m, seq_id))
            .collect();
        Ok(BotLogs {
            logs,
            total_count: total,
        })
    }
}

fn line(m: message::Model, seq_id: u64) -> BotLog {
    let who = match m.role.as_str() {
        "user" => m
            .user_name
            .clone()
            .or(m.user_id.clone())
            .unwrap_or_default(),
        _ => m.bot_name.clone(),
    };
    let said = crate::monitoring::service::preview(&m.message_content, TEXT_LIMIT);
    let text: String = format!("[{}] {who}: {said}", m.session_id)
        .chars()
        .take(TEXT_LIMIT)
        .collect();
    let timestamp: DateTime<Utc> = m.timestamp;
    BotLog {
        seq_id,
        timestamp: timestamp.timestamp(),
        level: if m.level == "error" { "error" } else { "info" }.into(),
        text,
        images: Vec::new(),
        message_session_id: Some(m.session_id),
        metadata: json!({
            "message_id": m.id,
            "role": m.role,
            "status": m.status,
            "pipeline_id": m.pipeline_id,
            "execution_id": m.execution_id,
        }),
    }
}
