//! LangBot's plugin marketplace: there is none here, so every read lists nothing. LangBot's UI
//! sends these to its cloud service without credentials (its "Create Processors" page and the
//! marketplace page, before login too), and a 401 would send it back to its login page: they
//! are public, and say nothing about any Workspace.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use validator::Validate;

use crate::access::{Access, RequestCtx};
use crate::catalog::{Input, NoBody, NoParams, OpMeta, Operation};
use crate::error::ApiResult;
use crate::state::AppState;

/// `GET /marketplace/plugins` paging (LangBot's names).
#[derive(Debug, Default, Deserialize, IntoParams, Validate)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct MarketplaceQuery {
    #[validate(range(min = 1, max = 100_000))]
    pub page: Option<u64>,
    #[validate(range(min = 1, max = 1000))]
    pub page_size: Option<u64>,
    #[validate(length(max = 64))]
    pub sort_by: Option<String>,
    #[validate(length(max = 8))]
    pub sort_order: Option<String>,
}

/// The kinds of extension LangBot's marketplace lists.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExtensionType {
    Plugin,
    Mcp,
    Skill,
}

/// The search LangBot's UI posts (`POST /marketplace/extensions/search` and the older
/// `/marketplace/plugins/search`), with its field names. Nothing is searched, but a malformed
/// search is still the caller's to hear about.
#[derive(Debug, Default, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct MarketplaceSearch {
    #[validate(length(max = 256))]
    pub query: Option<String>,
    #[validate(range(min = 1, max = 100_000))]
    pub page: Option<u64>,
    #[validate(range(min = 1, max = 1000))]
    pub page_size: Option<u64>,
    /// e.g. `install_count`, `hot_score`.
    #[validate(length(max = 64))]
    pub sort_by: Option<String>,
    /// `ASC` or `DESC`.
    #[validate(length(max = 8))]
    pub sort_order: Option<String>,
    pub type_filter: Option<ExtensionType>,
    /// A component kind the extensions must have, e.g. `Runner`.
    #[validate(length(max = 64))]
    pub component_filter: Option<String>,
    /// For runners: what they must be usable as, e.g. `agent`.
    #[validate(length(max = 64))]
    pub runner_usage: Option<String>,
    #[serde(default)]
    #[validate(length(max = 100))]
    pub tags_filter: Vec<String>,
}

/// `{plugins: [], total: 0}`: there is no marketplace.
#[derive(Debug, Serialize, ToSchema)]
pub struct MarketplacePluginList {
    #[schema(value_type = Vec<Object>)]
    pub plugins: Vec<Value>,
    pub total: u64,
}

impl MarketplacePluginList {
    fn none() -> Self {
        Self {
            plugins: Vec::new(),
            total: 0,
        }
    }
}

/// `{extensions: [], total: 0}`: LangBot's UI reads `extensions` and `total`.
#[derive(Debug, Serialize, ToSchema)]
pub struct MarketplaceExtensionList {
    #[schema(value_type = Vec<Object>)]
    pub extensions: Vec<Value>,
    pub total: u64,
}

/// `{lists: []}`: no curated lists of recommended plugins.
#[derive(Debug, Serialize, ToSchema)]
pub struct RecommendationLists {
    #[schema(value_type = Vec<Object>)]
    pub lists: Vec<Value>,
}

/// `GET /marketplace/plugins`.
pub struct ListMarketplacePlugins;

impl Operation for ListMarketplacePlugins {
    const META: OpMeta = OpMeta::get("list_marketplace_plugins", "/marketplace/plugins")
        .tag("marketplace")
        .summary("Marketplace plugins: always none (there is no marketplace)")
        .access(Access::Public);
    type Path = NoParams;
    type Query = MarketplaceQuery;
    type Body = NoBody;
    type Output = MarketplacePluginList;

    async fn run(
        _: &AppState,
        _: &RequestCtx,
        _: Input<NoParams, MarketplaceQuery, NoBody>,
    ) -> ApiResult<MarketplacePluginList> {
        Ok(MarketplacePluginList::none())
    }
}

/// `POST /marketplace/plugins/search`.
pub struct SearchMarketplacePlugins;

impl Operation for SearchMarketplacePlugins {
    const META: OpMeta = OpMeta::post("search_marketplace_plugins", "/marketplace/plugins/search")
        .tag("marketplace")
        .summary("Marketplace plugin search: always none (there is no marketplace)")
        .access(Access::Public);
    type Path = NoParams;
    type Query = NoParams;
    type Body = MarketplaceSearch;
    type Output = MarketplacePluginList;

    async fn run(
        _: &AppState,
        _: &RequestCtx,
        _: Input<NoParams, NoParams, MarketplaceSearch>,
    ) -> ApiResult<MarketplacePluginList> {
        Ok(MarketplacePluginList::none())
    }
}

/// `POST /marketplace/extensions/search`.
pub struct SearchMarketplaceExtensions;

impl Operation for SearchMarketplaceExtensions {
    const META: OpMeta = OpMeta::post(
        "search_marketplace_extensions",
        "/marketplace/extensions/search",
    )
    .tag("marketplace")
    .summary("Marketplace extension search (plugins, MCP servers, skills): always none")
    .access(Access::Public);
    type Path = NoParams;
    type Query = NoParams;
    type Body = MarketplaceSearch;
    type Output = MarketplaceExtensionList;

    async fn run(
        _: &AppState,
        _: &RequestCtx,
        _: Input<NoParams, NoParams, MarketplaceSearch>,
    ) -> ApiResult<MarketplaceExtensionList> {
        Ok(MarketplaceExtensionList {
            extensions: Vec::new(),
            total: 0,
        })
    }
}

/// `GET /marketplace/recommendation-lists`.
pub struct GetMarketplaceRecommendationLists;

impl Operation for GetMarketplaceRecommendationLists {
    const META: OpMeta = OpMeta::get(
        "get_marketplace_recommendation_lists",
        "/marketplace/recommendation-lists",
    )
    .tag("marketplace")
    .summary("The marketplace's recommended-plugin lists: always none")
    .access(Access::Public);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = RecommendationLists;

    async fn run(
        _: &AppState,
        _: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<RecommendationLists> {
        Ok(RecommendationLists { lists: Vec::new() })
    }
}
