//! The Workspace message language.

use crate::access::{Permission, RequestCtx};
use crate::catalog::{Input, McpTool, NoBody, NoParams, OpMeta, Operation};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::i18n::Language;
use crate::state::AppState;
use crate::workspaces::dto::{LanguageSetting, LanguageUpdate, LanguageValue};
use crate::workspaces::service;

/// `GET /workspaces/current/language`.
pub struct GetWorkspaceMessageLanguage;

impl Operation for GetWorkspaceMessageLanguage {
    const META: OpMeta = OpMeta::get(
        "get_workspace_message_language",
        "/workspaces/current/language",
    )
    .tag("workspaces")
    .summary("The Workspace's message language and the supported ones")
    .permission(Permission::WorkspaceView)
    .mcp(McpTool::FLAT);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = LanguageSetting;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<LanguageSetting> {
        let ws = ctx.workspace()?;
        Ok(LanguageSetting {
            language: service::language(&state.db, &ws.uuid).await?,
            supported_languages: Language::ALL.to_vec(),
        })
    }
}

/// `PUT /workspaces/current/language`.
pub struct SetWorkspaceMessageLanguage;

impl Operation for SetWorkspaceMessageLanguage {
    const META: OpMeta = OpMeta::put(
        "set_workspace_message_language",
        "/workspaces/current/language",
    )
    .tag("workspaces")
    .summary("Set the Workspace's message language")
    .description(
        "Exactly one of `en_US, zh_Hans, zh_Hant, ja_JP, es_ES, ru_RU, th_TH, vi_VN`; \
                      anything else is 400 `invalid_language`.",
    )
    .permission(Permission::WorkspaceUpdate)
    .errors(&[ErrorCode::InvalidLanguage])
    .mcp(McpTool::FLAT);
    type Path = NoParams;
    type Query = NoParams;
    type Body = LanguageUpdate;
    type Output = LanguageValue;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, LanguageUpdate>,
    ) -> ApiResult<LanguageValue> {
        let ws = ctx.workspace()?;
        let language = Language::parse(&input.body.language).ok_or_else(|| {
            ApiError::new(ErrorCode::InvalidLanguage)
                .msg("Unsupported Workspace language")
                .field(
                    "language",
                    "must be one of en_US, zh_Hans, zh_Hant, ja_JP, es_ES, ru_RU, th_TH, vi_VN",
                )
        })?;
        service::set_language(&state.db, ws, language).await?;
        state.identity.invalidate().await;
        Ok(LanguageValue { language })
    }
}
