//! Plugin shapes: LangBot's plugin object (a runtime `PluginContainer` dump) and the bodies
//! of the plugin routes.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};

use super::runtime::LogLine;

/// `{author}/{name}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct PluginPath {
    pub author: String,
    pub name: String,
}

/// An installed plugin, in LangBot's shape.
#[derive(Debug, Serialize, ToSchema)]
pub struct Plugin {
    pub debug: bool,
    /// `local` (an uploaded package) or `directory`.
    pub install_source: String,
    #[schema(value_type = Object)]
    pub install_info: Value,
    /// `{owner, rel_path: "manifest.yaml", manifest}`.
    #[schema(value_type = Object)]
    pub manifest: Value,
    #[schema(value_type = Option<Object>)]
    pub plugin_instance: Option<Value>,
    pub enabled: bool,
    pub priority: i32,
    /// Secret fields as `***`.
    #[schema(value_type = Object)]
    pub plugin_config: Value,
    /// `initialized` when this replica's runtime runs it, else `unmounted`.
    pub status: String,
    /// `[{manifest: {owner, rel_path, manifest}, component_instance, component_config}]`.
    #[schema(value_type = Vec<Object>)]
    pub components: Vec<Value>,
    /// sha256 of the package.
    pub artifact_digest: String,
    pub installation_uuid: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PluginList {
    pub plugins: Vec<Plugin>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PluginEnvelope {
    pub plugin: Plugin,
}

#[derive(Debug, Deserialize, IntoParams, validator::Validate)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct DeletePluginQuery {
    /// Also delete the plugin's storage (its Workspace storage stays). Default false.
    pub delete_data: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams, validator::Validate)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ReadmeQuery {
    /// `en` (default) reads `README.md`; another language `readme/README_<language>.md`,
    /// falling back to `README.md`.
    pub language: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PluginReadme {
    pub readme: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PluginIcon {
    /// Guessed from the file name.
    pub mime_type: String,
    pub icon_base64: String,
}

#[derive(Debug, Deserialize, IntoParams, validator::Validate)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LogsQuery {
    /// At most this many of the newest lines (default 200, at most 2000).
    #[validate(range(min = 1, max = 2000))]
    pub limit: Option<usize>,
    /// Only lines of this level (`INFO`, `WARNING`, `ERROR`, `DEBUG`).
    pub level: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PluginLogs {
    pub logs: Vec<LogLine>,
}

/// The whole config object; `***` keeps a stored secret.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(transparent)]
#[schema(value_type = Object)]
pub struct PluginConfigBody(pub Map<String, Value>);

impl validator::Validate for PluginConfigBody {
    fn validate(&self) -> Result<(), validator::ValidationErrors> {
        Ok(())
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PluginConfig {
    /// Secret fields as `***`.
    #[schema(value_type = Object)]
    pub config: Value,
}

#[derive(Debug, Deserialize, ToSchema, validator::Validate)]
#[serde(deny_unknown_fields)]
pub struct SetPluginEnabledBody {
    /// Required (checked once the plugin is found, so an unknown plugin is a 404 first).
    pub enabled: Option<bool>,
}

#[derive(Debug, Deserialize, ToSchema, validator::Validate)]
#[serde(deny_unknown_fields)]
pub struct InstallFromDirectoryBody {
    /// A directory under `<data_dir>/plugin-dev/` (a plugin's source, as `lbp init` made it).
    pub path: String,
}

/// LangBot's marketplace install request (not available on this host).
#[derive(Debug, Deserialize, ToSchema, validator::Validate)]
#[serde(deny_unknown_fields)]
pub struct MarketplaceInstallBody {
    pub plugin_author: Option<String>,
    pub plugin_name: Option<String>,
    pub plugin_version: Option<String>,
}

/// LangBot's GitHub release install request (not available on this host).
#[derive(Debug, Deserialize, ToSchema, validator::Validate)]
#[serde(deny_unknown_fields)]
pub struct GithubInstallBody {
    pub owner: Option<String>,
    pub repo: Option<String>,
    pub release_tag: Option<String>,
    pub release_id: Option<i64>,
    pub asset_id: Option<i64>,
    pub asset_url: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PluginSystemStatus {
    /// `plugin.enable`.
    pub is_enable: bool,
    /// This Workspace's runtime on this replica answers (true when none is needed yet).
    pub is_connected: bool,
    /// `ok`, or why the runtime cannot run.
    pub plugin_connector_error: String,
    /// `disabled`, `idle` (no enabled plugin), `starting`, `ready` or `failed`.
    pub runtime_state: String,
    /// How long the current runtime took to start (ms), when ready.
    pub started_in_ms: Option<u64>,
}
