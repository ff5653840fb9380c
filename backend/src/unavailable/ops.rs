//! The "not available" operations: reads with LangBot's shapes that always answer none.
//! Each needs a Workspace and `resource.view`, like LangBot's own, except the marketplace and
//! release reads: LangBot's UI sends those to its cloud service without credentials (before
//! login too), and a 401 there sends it back to its login page.

use crate::access::{Access, Permission, RequestCtx};
use crate::catalog::{Input, McpTool, NoBody, NoParams, OpMeta, Operation};
use crate::error::ApiResult;
use crate::state::AppState;

use super::dto::*;

// The marketplace reads live in their own file; the catalog lists them with the rest.
pub use super::marketplace::{
    GetMarketplaceRecommendationLists, ListMarketplacePlugins, SearchMarketplaceExtensions,
    SearchMarketplacePlugins,
};

/// `GET /knowledge/bases`.
pub struct ListKnowledgeBases;

impl Operation for ListKnowledgeBases {
    const META: OpMeta = OpMeta::get("list_knowledge_bases", "/knowledge/bases")
        .tag("knowledge")
        .summary("Knowledge bases: always none (not available here)")
        .permission(Permission::ResourceView)
        // LangBot's MCP tool of the same name answers the array.
        .mcp(McpTool::list("bases"));
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = KnowledgeBaseList;

    async fn run(
        _: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<KnowledgeBaseList> {
        ctx.workspace()?;
        Ok(KnowledgeBaseList { bases: Vec::new() })
    }
}

/// `GET /knowledge/migration/status`.
pub struct GetKnowledgeMigrationStatus;

impl Operation for GetKnowledgeMigrationStatus {
    const META: OpMeta = OpMeta::get(
        "get_knowledge_migration_status",
        "/knowledge/migration/status",
    )
    .tag("knowledge")
    .summary("Knowledge-base migration: never needed (no knowledge bases here)")
    .permission(Permission::ResourceView);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = KnowledgeMigrationStatus;

    async fn run(
        _: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<KnowledgeMigrationStatus> {
        ctx.workspace()?;
        Ok(KnowledgeMigrationStatus {
            needed: false,
            internal_kb_count: 0,
            external_kb_count: 0,
        })
    }
}

/// `GET /skills`.
pub struct ListSkills;

impl Operation for ListSkills {
    const META: OpMeta = OpMeta::get("list_skills", "/skills")
        .tag("skills")
        .summary("Skills: always none (not available here)")
        .permission(Permission::ResourceView)
        .mcp(McpTool::list("skills"));
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = SkillList;

    async fn run(
        _: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<SkillList> {
        ctx.workspace()?;
        Ok(SkillList { skills: Vec::new() })
    }
}

/// `GET /assistant/conversations`.
pub struct ListAssistantConversations;

impl Operation for ListAssistantConversations {
    const META: OpMeta = OpMeta::get("list_assistant_conversations", "/assistant/conversations")
        .tag("assistant")
        .summary("Assistant conversations: always none (the assistant is not available here)")
        .permission(Permission::ResourceView);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = AssistantConversationList;

    async fn run(
        _: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<AssistantConversationList> {
        ctx.workspace()?;
        Ok(AssistantConversationList {
            conversations: Vec::new(),
        })
    }
}

/// `GET /system/tasks`.
pub struct ListSystemTasks;

impl Operation for ListSystemTasks {
    const META: OpMeta = OpMeta::get("list_system_tasks", "/system/tasks")
        .tag("system")
        .summary("Background tasks: always none (operations here finish within their request)")
        .permission(Permission::ResourceView);
    type Path = NoParams;
    type Query = TaskQuery;
    type Body = NoBody;
    type Output = TaskList;

    async fn run(
        _: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, TaskQuery, NoBody>,
    ) -> ApiResult<TaskList> {
        ctx.workspace()?;
        Ok(TaskList {
            tasks: Vec::new(),
            id_index: 0,
        })
    }
}

/// `GET /box/status`.
pub struct GetBoxStatus;

impl Operation for GetBoxStatus {
    const META: OpMeta = OpMeta::get("get_box_status", "/box/status")
        .tag("box")
        .summary("Box sandbox: not available (and hidden)")
        .permission(Permission::ResourceView);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = BoxStatus;

    async fn run(
        _: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<BoxStatus> {
        ctx.workspace()?;
        Ok(BoxStatus::unavailable())
    }
}

/// `GET /box/runtime-status`.
pub struct GetBoxRuntimeStatus;

impl Operation for GetBoxRuntimeStatus {
    const META: OpMeta = OpMeta::get("get_box_runtime_status", "/box/runtime-status")
        .tag("box")
        .summary("Box runtime: not available (and hidden)")
        .permission(Permission::ResourceView);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = BoxStatus;

    async fn run(
        _: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<BoxStatus> {
        ctx.workspace()?;
        Ok(BoxStatus::unavailable())
    }
}

/// `GET /box/sessions`.
pub struct ListBoxSessions;

impl Operation for ListBoxSessions {
    const META: OpMeta = OpMeta::get("list_box_sessions", "/box/sessions")
        .tag("box")
        .summary("Box sessions: always `[]`")
        .permission(Permission::ResourceView);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = EmptyArray;

    async fn run(
        _: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<EmptyArray> {
        ctx.workspace()?;
        Ok(EmptyArray(Vec::new()))
    }
}

/// `GET /dist/info/releases`.
pub struct ListLangbotReleases;

impl Operation for ListLangbotReleases {
    const META: OpMeta = OpMeta::get("list_langbot_releases", "/dist/info/releases")
        .tag("dist")
        .summary("LangBot releases: always `[]` (no update check)")
        .access(Access::Public);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = EmptyArray;

    async fn run(
        _: &AppState,
        _: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<EmptyArray> {
        Ok(EmptyArray(Vec::new()))
    }
}

/// `GET /dist/info/repo`.
pub struct GetLangbotRepoInfo;

impl Operation for GetLangbotRepoInfo {
    const META: OpMeta = OpMeta::get("get_langbot_repo_info", "/dist/info/repo")
        .tag("dist")
        .summary("LangBot's repository info: `{repo: null}` (nothing is fetched from GitHub)")
        .access(Access::Public);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = RepoInfo;

    async fn run(
        _: &AppState,
        _: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<RepoInfo> {
        Ok(RepoInfo { repo: None })
    }
}

/// `GET /monitoring/feedback/stats`.
pub struct GetMonitoringFeedbackStats;

impl Operation for GetMonitoringFeedbackStats {
    const META: OpMeta = OpMeta::get(
        "get_monitoring_feedback_stats",
        "/monitoring/feedback/stats",
    )
    .tag("monitoring")
    .summary("User feedback totals: always zero (no adapter here reports feedback)")
    .permission(Permission::ResourceView);
    type Path = NoParams;
    type Query = FeedbackQuery;
    type Body = NoBody;
    type Output = FeedbackStats;

    async fn run(
        _: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, FeedbackQuery, NoBody>,
    ) -> ApiResult<FeedbackStats> {
        ctx.workspace()?;
        input.query.check_times()?;
        Ok(FeedbackStats {
            total_feedback: 0,
            total_likes: 0,
            total_dislikes: 0,
            satisfaction_rate: 0.0,
            by_bot: Vec::new(),
        })
    }
}

/// `GET /monitoring/feedback`.
pub struct ListMonitoringFeedback;

impl Operation for ListMonitoringFeedback {
    const META: OpMeta = OpMeta::get("list_monitoring_feedback", "/monitoring/feedback")
        .tag("monitoring")
        .summary("User feedback: always none (no adapter here reports feedback)")
        .permission(Permission::ResourceView);
    type Path = NoParams;
    type Query = FeedbackQuery;
    type Body = NoBody;
    type Output = FeedbackList;

    async fn run(
        _: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, FeedbackQuery, NoBody>,
    ) -> ApiResult<FeedbackList> {
        ctx.workspace()?;
        input.query.check_times()?;
        Ok(FeedbackList {
            feedback: Vec::new(),
            total: 0,
            limit: input.query.limit.unwrap_or(50),
            offset: input.query.offset.unwrap_or(0),
        })
    }
}

/// `GET /pipelines/_/migration/preview`.
pub struct PreviewPipelineMigration;

impl Operation for PreviewPipelineMigration {
    const META: OpMeta = OpMeta::get(
        "preview_pipeline_migration",
        "/pipelines/_/migration/preview",
    )
    .tag("pipelines")
    .summary("Legacy-pipeline migration preview: nothing to migrate")
    .permission(Permission::ResourceView);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = PipelineMigrationPreview;

    async fn run(
        _: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<PipelineMigrationPreview> {
        Ok(PipelineMigrationPreview {
            planner_version: "5".into(),
            workspace_uuid: ctx.workspace()?.uuid.to_string(),
            items: Vec::new(),
            total: 0,
        })
    }
}

/// `GET /user/space-credits`.
pub struct GetSpaceCredits;

impl Operation for GetSpaceCredits {
    const META: OpMeta = OpMeta::get("get_space_credits", "/user/space-credits")
        .tag("user")
        .summary("LangBot Space credits: none (no Space account here)")
        .access(Access::SessionWorkspace);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = SpaceCredits;

    async fn run(
        _: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<SpaceCredits> {
        let ws = ctx.workspace()?;
        Ok(SpaceCredits {
            credits: None,
            owner_space_bound: false,
            is_workspace_owner: ws.role == Some(crate::access::Role::Owner),
        })
    }
}

/// `GET /survey/pending`.
pub struct GetPendingSurvey;

impl Operation for GetPendingSurvey {
    const META: OpMeta = OpMeta::get("get_pending_survey", "/survey/pending")
        .tag("user")
        .summary("The survey to show: always none (no surveys here)")
        .access(Access::Account);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = PendingSurvey;

    async fn run(
        _: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<PendingSurvey> {
        ctx.account()?;
        Ok(PendingSurvey { survey: None })
    }
}

/// `GET /platform/bots/{bot_uuid}/admins`: LangBot's bot admins (sessions allowed its admin
/// commands). There are no admin commands here, so none; an unknown bot is 404.
pub struct ListBotAdmins;

impl Operation for ListBotAdmins {
    const META: OpMeta = OpMeta::get("list_bot_admins", "/platform/bots/{bot_uuid}/admins")
        .tag("bots")
        .summary("Bot admins: always none (no admin commands here)")
        .permission(Permission::ResourceView);
    type Path = crate::bots::ops::BotPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = BotAdminList;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<crate::bots::ops::BotPath, NoParams, NoBody>,
    ) -> ApiResult<BotAdminList> {
        crate::bots::service::get(&state.db, ctx.workspace()?, &input.path.bot_uuid).await?;
        Ok(BotAdminList { admins: Vec::new() })
    }
}
