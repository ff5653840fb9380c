//! The Workspace message language.

use crate::access::{Permission, RequestCtx};
use crate::catalog::{Access, Input, McpTool, Method, NoBody, NoParams, OpMeta, Operation};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::i18n::Language;
use crate::state::AppState;
use crate::workspaces::dto::{LanguageSetting, LanguageUpdate, LanguageValue};
use crate::workspaces::service;

/// `GET /workspaces/current/language`.
pub struct GetLanguage;

impl Operation for GetLanguage {
    const META: OpMeta = OpMeta {
        id: "get_workspace_message_language",
        method: Method::Get,
        path: "/workspaces/current/language",
        summary: "The Workspace's message language and the supported ones",
        description: "",
        tag: "workspaces",
        access: Access::Workspace,
        permission: Some(Permission::WorkspaceView),
        errors: &[],
        mcp: Some(McpTool::FLAT),
    };
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
pub struct SetLanguage;

impl Operation for SetLanguage {
    const META: OpMeta = OpMeta {
        id: "set_workspace_message_language",
        method: Method::Put,
        path: "/workspaces/current/language",
        summary: "Set the Workspace's message language",
        description:
            "Exactly one of `en_US, zh_Hans, zh_Hant, ja_JP, es_ES, ru_RU, th_TH, vi_VN`; \
                      anything else is 400 `invalid_language`.",
        tag: "workspaces",
        access: Access::Workspace,
        permission: Some(Permission::WorkspaceUpdate),
        errors: &[ErrorCode::InvalidLanguage],
        mcp: Some(McpTool::FLAT),
    };
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
        state.identity.invalidate(&state.store).await;
        Ok(LanguageValue { language })
    }
}
