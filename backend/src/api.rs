//! The application's operations: the one list, grouped by resource. From it the catalog
//! derives the HTTP routes, the OpenAPI document and the MCP tools. Adding an operation
//! means declaring its type in its resource's `ops` and adding it here.

use std::sync::OnceLock;

use crate::catalog::{op, Catalog};

/// The catalog of this application, built once.
pub fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        use crate::accounts::ops as user;
        use crate::apikeys::ops as keys;
        use crate::bots::ops as bots;
        use crate::mcp_servers::ops as mcp;
        use crate::monitoring::ops as mon;
        use crate::pipelines::ops as pipes;
        use crate::plugins::ops as plugins;
        use crate::providers::ops as prov;
        use crate::runtime::langbot_ws::connect as lbws_connect;
        use crate::runtime::langbot_ws::ops as lbws;
        use crate::runtime::ops as rt;
        use crate::system::ops as system;
        use crate::tools::ops as tools;
        use crate::unavailable::ops as na;
        use crate::workspaces::ops as ws;
        Catalog::new(vec![
            // system
            op::<system::GetSystemInfo>(),
            op::<system::GetSystemContext>(),
            op::<system::SaveWizardProgress>(),
            op::<system::FinishWizard>(),
            // accounts and sessions
            op::<user::GetInitStatus>(),
            op::<user::GetLoginMethods>(),
            op::<user::InitAccount>(),
            op::<user::Login>(),
            op::<user::CheckToken>(),
            op::<user::Logout>(),
            op::<user::ChangePassword>(),
            op::<user::GetUserInfo>(),
            // Workspaces, members, invitations, settings
            op::<ws::ListWorkspaces>(),
            op::<ws::BootstrapWorkspaces>(),
            op::<ws::CreateWorkspace>(),
            op::<ws::GetCurrentWorkspace>(),
            op::<ws::GetWorkspace>(),
            op::<ws::RenameWorkspace>(),
            op::<ws::GetWorkspaceMessageLanguage>(),
            op::<ws::SetWorkspaceMessageLanguage>(),
            op::<ws::ListMembers>(),
            op::<ws::UpdateMemberRole>(),
            op::<ws::RemoveMember>(),
            op::<ws::ListInvitations>(),
            op::<ws::CreateInvitation>(),
            op::<ws::RevokeInvitation>(),
            op::<ws::InspectInvitation>(),
            op::<ws::AcceptInvitation>(),
            // API keys
            op::<keys::ListApiKeys>(),
            op::<keys::CreateApiKey>(),
            op::<keys::GetApiKey>(),
            op::<keys::UpdateApiKey>(),
            op::<keys::DeleteApiKey>(),
            // model providers, requesters, models, starred model
            op::<prov::ListRequesters>(),
            op::<prov::GetRequester>(),
            op::<prov::GetRequesterIcon>(),
            op::<prov::ListModelProviders>(),
            op::<prov::GetModelProvider>(),
            op::<prov::CreateModelProvider>(),
            op::<prov::UpdateModelProvider>(),
            op::<prov::DeleteModelProvider>(),
            op::<prov::GetStarredModel>(),
            op::<prov::SetStarredModel>(),
            op::<prov::GetDefaultModel>(),
            op::<prov::ListLlmModels>(),
            op::<prov::GetLlmModel>(),
            op::<prov::CreateLlmModel>(),
            op::<prov::UpdateLlmModel>(),
            op::<prov::DeleteLlmModel>(),
            op::<prov::TestLlmModel>(),
            op::<prov::ListEmbeddingModels>(),
            op::<prov::GetEmbeddingModel>(),
            op::<prov::CreateEmbeddingModel>(),
            op::<prov::UpdateEmbeddingModel>(),
            op::<prov::DeleteEmbeddingModel>(),
            op::<prov::TestEmbeddingModel>(),
            op::<prov::ListRerankModels>(),
            op::<prov::GetRerankModel>(),
            op::<prov::CreateRerankModel>(),
            op::<prov::UpdateRerankModel>(),
            op::<prov::DeleteRerankModel>(),
            op::<prov::TestRerankModel>(),
            // pipelines
            op::<pipes::ListPipelines>(),
            op::<pipes::GetPipelineMetadata>(),
            op::<pipes::GetPipeline>(),
            op::<pipes::CreatePipeline>(),
            op::<pipes::UpdatePipeline>(),
            op::<pipes::DeletePipeline>(),
            op::<pipes::CopyPipeline>(),
            op::<pipes::SetDefaultPipeline>(),
            op::<pipes::GetPipelineExtensions>(),
            op::<pipes::ListProcessors>(),
            op::<pipes::CreateProcessor>(),
            op::<pipes::GetProcessorMetadata>(),
            op::<pipes::GetProcessor>(),
            op::<pipes::UpdateProcessor>(),
            op::<pipes::DeleteProcessor>(),
            op::<pipes::UpdatePipelineExtensions>(),
            // MCP servers (tool sources) and the tools a pipeline resolves to
            op::<mcp::ListMcpServers>(),
            op::<mcp::CreateMcpServer>(),
            op::<mcp::GetMcpServer>(),
            op::<mcp::UpdateMcpServer>(),
            op::<mcp::DeleteMcpServer>(),
            op::<mcp::TestMcpServer>(),
            op::<mcp::ListMcpServerResources>(),
            op::<tools::ListTools>(),
            // plugins
            op::<plugins::ListPlugins>(),
            // Before `/plugins/{author}/{name}`, which would take `config-files` for an author.
            op::<crate::plugins::config_files::UploadPluginConfigFile>(),
            op::<crate::plugins::config_files::DeletePluginConfigFile>(),
            op::<plugins::GetPlugin>(),
            op::<plugins::InstallPluginPackage>(),
            op::<plugins::InstallPluginDirectory>(),
            op::<plugins::InstallPluginMarketplace>(),
            op::<plugins::InstallPluginGithub>(),
            op::<plugins::DeletePlugin>(),
            op::<plugins::SetPluginEnabled>(),
            op::<plugins::GetPluginConfig>(),
            op::<plugins::UpdatePluginConfig>(),
            op::<plugins::GetPluginReadme>(),
            op::<plugins::GetPluginIcon>(),
            op::<plugins::GetPluginAuthenticatedIcon>(),
            op::<plugins::GetPluginLogs>(),
            op::<plugins::GetPluginSystemStatus>(),
            // adapters, bots, routes
            op::<bots::ListAdapters>(),
            op::<bots::GetAdapter>(),
            op::<bots::GetAdapterIcon>(),
            op::<bots::ListBots>(),
            op::<bots::GetBot>(),
            op::<bots::CreateBot>(),
            op::<bots::UpdateBot>(),
            op::<bots::DeleteBot>(),
            op::<bots::DryRunBotEventRoute>(),
            op::<bots::GetBotLogs>(),
            // runtime
            op::<rt::ListBotEventRouteStatuses>(),
            op::<rt::ResetSessionContext>(),
            op::<rt::RunPipeline>(),
            op::<rt::PipelineDebugChat>(),
            // LangBot's dashboard debug chat protocol
            op::<lbws_connect::ConnectPipelineWsChat>(),
            op::<lbws::GetPipelineWsMessages>(),
            op::<lbws::ResetPipelineWsSession>(),
            op::<lbws::ListPipelineWsConnections>(),
            op::<lbws::BroadcastPipelineWsMessage>(),
            op::<crate::runtime::adapters::send::SendMessage>(),
            // monitoring
            op::<mon::GetMonitoringOverview>(),
            op::<mon::GetMonitoringExecutions>(),
            op::<mon::GetMonitoringExecutionDetail>(),
            op::<mon::ListMonitoringMessages>(),
            op::<mon::ListMonitoringLlmCalls>(),
            op::<mon::ListMonitoringToolCalls>(),
            op::<mon::ListMonitoringErrors>(),
            op::<mon::ListMonitoringSessions>(),
            op::<mon::GetMonitoringRecords>(),
            op::<mon::GetMonitoringDetails>(),
            op::<mon::GetMonitoringTokenStatistics>(),
            op::<mon::GetMonitoringData>(),
            op::<mon::GetInflightExecutions>(),
            op::<mon::StreamInflightExecutions>(),
            op::<mon::ExportMonitoring>(),
            // features this server does not have, answered "none" in LangBot's shapes
            op::<na::ListKnowledgeBases>(),
            op::<na::GetKnowledgeMigrationStatus>(),
            op::<na::ListSkills>(),
            op::<na::ListAssistantConversations>(),
            op::<na::ListSystemTasks>(),
            op::<na::ListBotAdmins>(),
            op::<na::ListMarketplacePlugins>(),
            op::<na::SearchMarketplacePlugins>(),
            op::<na::SearchMarketplaceExtensions>(),
            op::<na::GetMarketplaceRecommendationLists>(),
            op::<na::GetBoxStatus>(),
            op::<na::GetBoxRuntimeStatus>(),
            op::<na::ListBoxSessions>(),
            op::<na::ListLangbotReleases>(),
            op::<na::GetLangbotRepoInfo>(),
            op::<na::GetMonitoringFeedbackStats>(),
            op::<na::ListMonitoringFeedback>(),
            op::<na::PreviewPipelineMigration>(),
            op::<na::GetSpaceCredits>(),
            op::<na::GetPendingSurvey>(),
        ])
    })
}

#[cfg(test)]
mod tests {
    use super::catalog;
    use crate::catalog::OutputKind;

    /// Every operation is reached by its own path (each parameter given a value no literal
    /// segment has) and method, through the `/api/v1` router.
    #[test]
    fn every_operation_is_routed_to_itself() {
        let param = regex::Regex::new(r"\{[^}]+\}").unwrap_or_else(|e| panic!("{e}"));
        for op in catalog().operations() {
            let meta = op.meta();
            let path = param.replace_all(meta.path, "p-1");
            assert_eq!(
                catalog().routed(meta.method, &path),
                Some(meta.id),
                "{:?} {path}",
                meta.method
            );
        }
    }

    #[test]
    fn the_document_is_reproducible() {
        let first = crate::catalog::openapi::document_json(catalog());
        for _ in 0..5 {
            assert_eq!(crate::catalog::openapi::document_json(catalog()), first);
        }
    }

    /// `delete_model_provider` is `DeleteModelProvider`: a grep of the id finds the type.
    #[test]
    fn operation_types_are_named_after_their_ids() {
        for op in catalog().operations() {
            let id = op.meta().id;
            let expected: String = id
                .split('_')
                .map(|w| {
                    let mut c = w.chars();
                    c.next()
                        .map(|f| f.to_uppercase().chain(c).collect::<String>())
                        .unwrap_or_default()
                })
                .collect();
            assert_eq!(op.type_name(), expected, "operation {id}");
        }
    }

    #[test]
    fn ids_and_routes_are_unique() {
        let mut ids = std::collections::HashSet::new();
        let mut routes = std::collections::HashSet::new();
        for op in catalog().operations() {
            let m = op.meta();
            assert!(ids.insert(m.id), "duplicate id {}", m.id);
            assert!(
                routes.insert((m.method, m.path)),
                "duplicate route {} {}",
                m.method.as_str(),
                m.path
            );
        }
    }

    /// MCP returns JSON; streamed operations have no tool.
    #[test]
    fn only_json_operations_are_mcp_tools() {
        for op in catalog().operations() {
            if op.meta().mcp.is_some() {
                assert_eq!(op.output_kind(), OutputKind::Json, "{}", op.meta().id);
            }
        }
    }
}
