//! LangBot's quick-start wizard state, per Workspace: whether it was completed or skipped, and
//! where an unfinished run stopped. LangBot's UI sends every home page to `/wizard` until the
//! status is set, so a Workspace that already has a bot, pipeline or model counts as set up.

use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::entities::{bot, model};
use crate::error::{ApiError, ApiResult};
use crate::workspaces::service::{set_setting, setting};

const STATUS_KEY: &str = "wizard_status";
const PROGRESS_KEY: &str = "wizard_progress";

/// `{}`: LangBot's wizard endpoints answer an empty object.
#[derive(Debug, Default, Serialize, ToSchema)]
pub struct Empty {}

/// Where an unfinished wizard stopped, stored as sent.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(transparent)]
#[schema(value_type = Object)]
pub struct WizardProgress(pub Map<String, Value>);

impl validator::Validate for WizardProgress {
    fn validate(&self) -> Result<(), validator::ValidationErrors> {
        Ok(())
    }
}

/// `POST /system/wizard/completed` body.
#[derive(Debug, Deserialize, ToSchema, validator::Validate)]
#[serde(deny_unknown_fields)]
pub struct WizardOutcome {
    /// `completed` (default) or `skipped`.
    #[serde(default)]
    pub status: Option<String>,
}

/// The stored status: `completed`/`skipped`, else `completed` when the Workspace already has
/// a bot or a model (set up without the wizard), else `none`.
pub async fn status(db: &impl sea_orm::ConnectionTrait, ws: &Uuid) -> ApiResult<String> {
    if let Some(stored) = setting(db, ws, STATUS_KEY).await? {
        return Ok(stored);
    }
    let id = ws.to_string();
    let bots = bot::Entity::find()
        .filter(bot::Column::WorkspaceUuid.eq(&id))
        .count(db)
        .await?;
    let models = model::Entity::find()
        .filter(model::Column::WorkspaceUuid.eq(&id))
        .count(db)
        .await?;
    Ok(if bots + models > 0 {
        "completed"
    } else {
        "none"
    }
    .into())
}

pub async fn progress(db: &impl sea_orm::ConnectionTrait, ws: &Uuid) -> ApiResult<Option<Value>> {
    Ok(setting(db, ws, PROGRESS_KEY)
        .await?
        .and_then(|raw| serde_json::from_str(&raw).ok()))
}

pub async fn save_progress(
    db: &impl sea_orm::ConnectionTrait,
    ws: &Uuid,
    progress: &Map<String, Value>,
) -> ApiResult<()> {
    let text = serde_json::to_string(progress).map_err(ApiError::internal)?;
    set_setting(db, ws, PROGRESS_KEY, Some(&text)).await
}

/// Records the outcome and forgets the progress.
pub async fn finish(
    db: &impl sea_orm::ConnectionTrait,
    ws: &Uuid,
    outcome: Option<&str>,
) -> ApiResult<()> {
    let status = match outcome.unwrap_or("completed") {
        s @ ("completed" | "skipped") => s,
        other => {
            return Err(ApiError::invalid(format!(
                "status must be `completed` or `skipped`, not `{other}`"
            )))
        }
    };
    set_setting(db, ws, STATUS_KEY, Some(status)).await?;
    set_setting(db, ws, PROGRESS_KEY, None).await
}
