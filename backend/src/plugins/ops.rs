//! `/plugins`: the Workspace's installed plugins (LangBot's routes and shapes), their
//! install from a package file (or a development directory), enabling, config, readme,
//! icon and logs; and the plugin system's status. Installing from the marketplace or GitHub
//! is not available on this host.

use base64::Engine;
use serde_json::{json, Map, Value};

use super::dto::*;
use super::hub::{hub, Standing};
use super::runtime::{Live, Phase};
use super::{package, service};
use crate::access::{Permission, RequestCtx, WorkspaceCtx};
use crate::catalog::{Image, Input, NoBody, NoParams, Null, OpMeta, Operation, Upload};
use crate::entities::plugin_setting;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;

const TAG: &str = "plugins";
const SECRET: &str = "***";

fn secret_fields(manifest: &Value) -> Vec<String> {
    manifest["spec"]["config"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| matches!(f["type"].as_str(), Some("secret" | "password")))
        .filter_map(|f| f["name"].as_str().map(str::to_string))
        .collect()
}

fn masked(manifest: &Value, config: &Value) -> Value {
    let mut config = config.clone();
    for name in secret_fields(manifest) {
        if let Some(v) = config.get_mut(&name) {
            if v.as_str().is_some_and(|s| !s.is_empty()) {
                *v = json!(SECRET);
            }
        }
    }
    config
}

fn stored_manifest(row: &plugin_setting::Model) -> &Value {
    &row.manifest["manifest"]
}

/// LangBot's plugin object for a row; `live` tells whether this replica runs it.
pub fn view(row: &plugin_setting::Model, live: Option<&Live>) -> Plugin {
    let id = format!("{}/{}", row.plugin_author, row.plugin_name);
    let running = live.is_some_and(|l| {
        l.plugins.iter().any(|p| {
            let m = &p["manifest"]["manifest"]["metadata"];
            format!(
                "{}/{}",
                m["author"].as_str().unwrap_or_default(),
                m["name"].as_str().unwrap_or_default()
            ) == id
                && p["status"] == "initialized"
        })
    });
    let manifest = stored_manifest(row);
    Plugin {
        debug: false,
        install_source: row.install_source.clone(),
        install_info: row.install_info.clone(),
        manifest: json!({"owner": "builtin", "rel_path": "manifest.yaml", "manifest": manifest}),
        plugin_instance: None,
        enabled: row.enabled,
        priority: row.priority,
        plugin_config: masked(manifest, &row.config),
        status: if running && row.enabled {
            "initialized"
        } else {
            "unmounted"
        }
        .into(),
        components: row.manifest["components"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| json!({"manifest": c, "component_instance": null, "component_config": {}}))
            .collect(),
        artifact_digest: row.artifact_digest.clone(),
        installation_uuid: row.installation_uuid.clone(),
    }
}

/// The plugins a pipeline can bind (`available_plugins` of its extensions): those with a
/// Tool, Command or EventListener component.
pub async fn available(state: &AppState, ws: &WorkspaceCtx) -> ApiResult<Vec<Value>> {
    let rows = service::list(&state.db, ws).await?;
    Ok(rows
        .iter()
        .map(|r| view(r, None))
        .filter(|p| {
            p.components.iter().any(|c| {
                matches!(
                    c["manifest"]["manifest"]["kind"].as_str(),
                    Some("Tool" | "Command" | "EventListener")
                )
            })
        })
        .filter_map(|p| serde_json::to_value(p).ok())
        .collect())
}

/// The runtime of the Workspace, if it is ready now (no waiting).
async fn live_now(state: &AppState, ws: &WorkspaceCtx) -> ApiResult<Option<std::sync::Arc<Live>>> {
    Ok(match hub(state).sync(state, ws).await? {
        Standing::Running(rt) => match rt.phase() {
            Phase::Ready(l) => Some(l),
            _ => None,
        },
        _ => None,
    })
}

async fn row_of(
    state: &AppState,
    ws: &WorkspaceCtx,
    p: &PluginPath,
) -> ApiResult<plugin_setting::Model> {
    service::get(&state.db, ws, &p.author, &p.name).await
}

fn invalid_package(why: String) -> ApiError {
    ApiError::new(ErrorCode::InvalidPluginPackage)
        .msg(format!("Invalid plugin package: {why}"))
        .field("file", why)
}

async fn install_bytes(
    state: &AppState,
    ws: &WorkspaceCtx,
    bytes: Vec<u8>,
    source: &str,
    info: Value,
) -> ApiResult<PluginEnvelope> {
    if bytes.is_empty() {
        return Err(ApiError::invalid("file is required").field("file", "is required"));
    }
    let pkg = package::read(&bytes).map_err(invalid_package)?;
    let row = service::install(&state.db, ws, pkg, bytes, source, info).await?;
    hub(state).sync(state, ws).await?;
    Ok(PluginEnvelope {
        plugin: view(&row, None),
    })
}

pub struct ListPlugins;

impl Operation for ListPlugins {
    const META: OpMeta = OpMeta::get("list_plugins", "/plugins")
        .tag(TAG)
        .summary("The Workspace's installed plugins with their components")
        .description("`status` is `initialized` when this replica's runtime runs the plugin.")
        .permission(Permission::ResourceView);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = PluginList;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<PluginList> {
        let ws = ctx.workspace()?;
        let rows = service::list(&state.db, ws).await?;
        let live = live_now(state, ws).await?;
        Ok(PluginList {
            plugins: rows.iter().map(|r| view(r, live.as_deref())).collect(),
        })
    }
}

pub struct GetPlugin;

impl Operation for GetPlugin {
    const META: OpMeta = OpMeta::get("get_plugin", "/plugins/{author}/{name}")
        .tag(TAG)
        .summary("One installed plugin")
        .permission(Permission::ResourceView);
    type Path = PluginPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = PluginEnvelope;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PluginPath, NoParams, NoBody>,
    ) -> ApiResult<PluginEnvelope> {
        let ws = ctx.workspace()?;
        let row = row_of(state, ws, &input.path).await?;
        let live = live_now(state, ws).await?;
        Ok(PluginEnvelope {
            plugin: view(&row, live.as_deref()),
        })
    }
}

pub struct InstallPluginPackage;

impl Operation for InstallPluginPackage {
    const META: OpMeta = OpMeta::post("install_plugin_package", "/plugins/install/local")
        .tag(TAG)
        .summary("Install (or replace) a plugin from a package file (.lbpkg)")
        .description(
            "Multipart, the package in the `file` field (as `lbp build` writes it). Checked as \
             LangBot checks packages (at most 512 entries of 16 MiB, 64 MiB in all, safe paths, \
             a manifest mapping) and each Tool's parameter schema; a bad package is 400 \
             `invalid_plugin_package`. Installing is synchronous; the runtimes of every replica \
             pick the change up on their next use. A reinstall keeps the config and the data.",
        )
        .permission(Permission::ResourceManage)
        .errors(&[ErrorCode::InvalidPluginPackage]);
    type Path = NoParams;
    type Query = NoParams;
    type Body = Upload;
    type Output = PluginEnvelope;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, Upload>,
    ) -> ApiResult<PluginEnvelope> {
        let ws = ctx.workspace()?;
        let info = json!({"filename": input.body.filename});
        install_bytes(state, ws, input.body.bytes, "local", info).await
    }
}

pub struct InstallPluginDirectory;

impl Operation for InstallPluginDirectory {
    const META: OpMeta = OpMeta::post("install_plugin_directory", "/plugins/install/directory")
        .tag(TAG)
        .summary("Install a plugin from a development directory on the server")
        .description(
            "For plugin development: `path` names a directory under `<data_dir>/plugin-dev/` \
             (nothing else on the server is readable this way); it is packed like `lbp build` \
             and installed like an uploaded package.",
        )
        .permission(Permission::ResourceManage)
        .errors(&[ErrorCode::InvalidPluginPackage]);
    type Path = NoParams;
    type Query = NoParams;
    type Body = InstallFromDirectoryBody;
    type Output = PluginEnvelope;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, InstallFromDirectoryBody>,
    ) -> ApiResult<PluginEnvelope> {
        let ws = ctx.workspace()?;
        let root = state.settings.data_dir.join("plugin-dev");
        let refuse = || {
            ApiError::invalid("path must name a directory under <data_dir>/plugin-dev/")
                .field("path", "must name a directory under <data_dir>/plugin-dev/")
        };
        let rel = input.body.path.trim();
        if rel.is_empty() || rel.split(['/', '\\']).any(|p| p == "..") {
            return Err(refuse());
        }
        let dir = root.join(rel.trim_start_matches('/'));
        let (Ok(dir), Ok(root)) = (dir.canonicalize(), root.canonicalize()) else {
            return Err(refuse());
        };
        if !dir.starts_with(&root) || !dir.is_dir() {
            return Err(refuse());
        }
        let bytes = tokio::task::spawn_blocking(move || package::pack_dir(&dir))
            .await
            .map_err(ApiError::internal)?
            .map_err(|e| invalid_package(e.to_string()))?;
        install_bytes(state, ws, bytes, "directory", json!({"path": rel})).await
    }
}

fn unavailable(source: &str) -> ApiError {
    ApiError::new(ErrorCode::PluginSourceUnavailable).msg(format!(
        "Installing plugins from {source} is not available on this host; upload the package file (POST /plugins/install/local)"
    ))
}

pub struct InstallPluginMarketplace;

impl Operation for InstallPluginMarketplace {
    const META: OpMeta = OpMeta::post("install_plugin_marketplace", "/plugins/install/marketplace")
        .tag(TAG)
        .summary("Install from the LangBot marketplace (not available on this host)")
        .description(
            "Always 400 `plugin_source_unavailable`: this host does not reach the marketplace.",
        )
        .permission(Permission::ResourceManage)
        .errors(&[ErrorCode::PluginSourceUnavailable]);
    type Path = NoParams;
    type Query = NoParams;
    type Body = MarketplaceInstallBody;
    type Output = Null;

    async fn run(
        _: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, MarketplaceInstallBody>,
    ) -> ApiResult<Null> {
        ctx.workspace()?;
        Err(unavailable("the marketplace"))
    }
}

pub struct InstallPluginGithub;

impl Operation for InstallPluginGithub {
    const META: OpMeta = OpMeta::post("install_plugin_github", "/plugins/install/github")
        .tag(TAG)
        .summary("Install from a GitHub release (not available on this host)")
        .description(
            "Always 400 `plugin_source_unavailable`: this host does not download packages.",
        )
        .permission(Permission::ResourceManage)
        .errors(&[ErrorCode::PluginSourceUnavailable]);
    type Path = NoParams;
    type Query = NoParams;
    type Body = GithubInstallBody;
    type Output = Null;

    async fn run(
        _: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, GithubInstallBody>,
    ) -> ApiResult<Null> {
        ctx.workspace()?;
        Err(unavailable("GitHub"))
    }
}

pub struct DeletePlugin;

impl Operation for DeletePlugin {
    const META: OpMeta = OpMeta::delete("delete_plugin", "/plugins/{author}/{name}")
        .tag(TAG)
        .summary("Uninstall a plugin (optionally with its stored data)")
        .description(
            "`delete_data=true` also deletes the plugin's storage; Workspace storage stays.",
        )
        .permission(Permission::ResourceManage);
    type Path = PluginPath;
    type Query = DeletePluginQuery;
    type Body = NoBody;
    type Output = Null;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PluginPath, DeletePluginQuery, NoBody>,
    ) -> ApiResult<Null> {
        let ws = ctx.workspace()?;
        let row = row_of(state, ws, &input.path).await?;
        let delete_data = match input
            .query
            .delete_data
            .as_deref()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("false") | Some("0") | Some("") => false,
            Some("true") | Some("1") => true,
            Some(_) => {
                return Err(ApiError::invalid("delete_data must be true or false")
                    .field("delete_data", "must be true or false"))
            }
        };
        service::uninstall(&state.db, ws, row, delete_data).await?;
        hub(state).sync(state, ws).await?;
        Ok(Null)
    }
}

pub struct SetPluginEnabled;

impl Operation for SetPluginEnabled {
    const META: OpMeta = OpMeta::put("set_plugin_enabled", "/plugins/{author}/{name}/enabled")
        .tag(TAG)
        .summary("Enable or disable a plugin")
        .description("A disabled plugin is not run and its tools are not offered.")
        .permission(Permission::ResourceManage);
    type Path = PluginPath;
    type Query = NoParams;
    type Body = SetPluginEnabledBody;
    type Output = Null;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PluginPath, NoParams, SetPluginEnabledBody>,
    ) -> ApiResult<Null> {
        let ws = ctx.workspace()?;
        let row = row_of(state, ws, &input.path).await?;
        let enabled = input.body.enabled.ok_or_else(|| {
            ApiError::invalid("enabled is required").field("enabled", "is required")
        })?;
        service::set_enabled(&state.db, row, enabled).await?;
        hub(state).sync(state, ws).await?;
        Ok(Null)
    }
}

pub struct GetPluginConfig;

impl Operation for GetPluginConfig {
    const META: OpMeta = OpMeta::get("get_plugin_config", "/plugins/{author}/{name}/config")
        .tag(TAG)
        .summary("A plugin's config (secret fields as ***)")
        .permission(Permission::ResourceView);
    type Path = PluginPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = PluginConfig;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PluginPath, NoParams, NoBody>,
    ) -> ApiResult<PluginConfig> {
        let row = row_of(state, ctx.workspace()?, &input.path).await?;
        Ok(PluginConfig {
            config: masked(stored_manifest(&row), &row.config),
        })
    }
}

fn is_file_value(value: &Value) -> bool {
    value["file_key"].as_str().is_some_and(|k| !k.is_empty())
}

/// Checks a config against the manifest's form: known fields, required ones present, the
/// basic types right; `***` restores a stored secret.
fn check_config(manifest: &Value, stored: &Value, body: Map<String, Value>) -> ApiResult<Value> {
    let fields: Vec<&Value> = manifest["spec"]["config"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    let bad = |name: &str, why: &str| {
        ApiError::invalid(format!("Invalid plugin config: {name} {why}"))
            .field(name.to_string(), why.to_string())
    };
    let mut out = Map::new();
    for (key, value) in body {
        let Some(field) = fields.iter().find(|f| f["name"] == key.as_str()) else {
            return Err(bad(&key, "is not a field of this plugin's config"));
        };
        let value = if value == SECRET && secret_fields(manifest).contains(&key) {
            match stored.get(&key) {
                Some(v) if !v.is_null() => v.clone(),
                _ => return Err(bad(&key, "is masked but has no stored value")),
            }
        } else {
            value
        };
        let ok = match field["type"].as_str().unwrap_or("string") {
            "string" | "text" | "secret" | "password" => value.is_string() || value.is_null(),
            "integer" => value.is_i64() || value.is_u64() || value.is_null(),
            "float" | "number" => value.is_number() || value.is_null(),
            "boolean" => value.is_boolean() || value.is_null(),
            "array[string]" => value
                .as_array()
                .is_some_and(|a| a.iter().all(Value::is_string)),
            // `{file_key, mimetype}` from `POST /plugins/config-files`, as LangBot's UI sends.
            "file" => value.is_null() || is_file_value(&value),
            "array[file]" => value
                .as_array()
                .is_some_and(|a| a.iter().all(is_file_value)),
            _ => true,
        };
        if !ok {
            return Err(bad(
                &key,
                &format!(
                    "must be of type {}",
                    field["type"].as_str().unwrap_or("string")
                ),
            ));
        }
        out.insert(key, value);
    }
    for f in fields {
        let name = f["name"].as_str().unwrap_or_default();
        if f["required"] == true && out.get(name).is_none_or(|v| v.is_null() || v == "") {
            return Err(bad(name, "is required"));
        }
        if !out.contains_key(name) {
            out.insert(
                name.into(),
                f.get("default").cloned().unwrap_or(Value::Null),
            );
        }
    }
    Ok(Value::Object(out))
}

pub struct UpdatePluginConfig;

impl Operation for UpdatePluginConfig {
    const META: OpMeta = OpMeta::put("update_plugin_config", "/plugins/{author}/{name}/config")
        .tag(TAG)
        .summary("Replace a plugin's config (the form from its manifest)")
        .description(
            "The body is the whole config object; `***` keeps a stored secret. The plugin restarts \
             with it on every replica's runtime.",
        )
        .permission(Permission::ResourceManage);
    type Path = PluginPath;
    type Query = NoParams;
    type Body = PluginConfigBody;
    type Output = Null;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PluginPath, NoParams, PluginConfigBody>,
    ) -> ApiResult<Null> {
        let ws = ctx.workspace()?;
        let row = row_of(state, ws, &input.path).await?;
        let config = check_config(stored_manifest(&row), &row.config, input.body.0)?;
        service::set_config(&state.db, row, config).await?;
        hub(state).sync(state, ws).await?;
        Ok(Null)
    }
}

pub struct GetPluginReadme;

impl Operation for GetPluginReadme {
    const META: OpMeta = OpMeta::get("get_plugin_readme", "/plugins/{author}/{name}/readme")
        .tag(TAG)
        .summary("A plugin's README ('' when it has none)")
        .permission(Permission::ResourceView);
    type Path = PluginPath;
    type Query = ReadmeQuery;
    type Body = NoBody;
    type Output = PluginReadme;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PluginPath, ReadmeQuery, NoBody>,
    ) -> ApiResult<PluginReadme> {
        let row = row_of(state, ctx.workspace()?, &input.path).await?;
        let lang = input.query.language.unwrap_or_else(|| "en".into());
        let localized = (lang != "en"
            && lang
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .then(|| package::file(&row.package, &format!("readme/README_{lang}.md")))
        .flatten();
        let bytes = localized.or_else(|| package::file(&row.package, "README.md"));
        Ok(PluginReadme {
            readme: bytes
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default(),
        })
    }
}

pub struct GetPluginIcon;

impl Operation for GetPluginIcon {
    const META: OpMeta = OpMeta::get("get_plugin_icon", "/plugins/{author}/{name}/icon")
        .tag(TAG)
        .summary("A plugin's icon (`metadata.icon` of its manifest), base64")
        .permission(Permission::ResourceView);
    type Path = PluginPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = PluginIcon;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PluginPath, NoParams, NoBody>,
    ) -> ApiResult<PluginIcon> {
        let row = row_of(state, ctx.workspace()?, &input.path).await?;
        let (mime, bytes) = icon_of(&row)?;
        Ok(PluginIcon {
            mime_type: mime.into(),
            icon_base64: base64::engine::general_purpose::STANDARD.encode(bytes),
        })
    }
}

/// A plugin's icon file (`metadata.icon` of its manifest) and its type.
fn icon_of(row: &plugin_setting::Model) -> ApiResult<(&'static str, Vec<u8>)> {
    let path = stored_manifest(row)["metadata"]["icon"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let bytes = (!path.is_empty())
        .then(|| package::file(&row.package, &path))
        .flatten()
        .ok_or_else(|| ApiError::not_found().msg("Icon not found"))?;
    let mime = match path
        .rsplit('.')
        .next()
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        _ => "application/octet-stream",
    };
    Ok((mime, bytes))
}

/// `GET /plugins/{author}/{name}/authenticated-icon`: the icon itself, which LangBot's UI
/// fetches with its credentials. `langbot-team/LocalAgent` is the built-in agent (its runner
/// id `plugin:langbot-team/LocalAgent/default`), drawn here.
pub struct GetPluginAuthenticatedIcon;

impl Operation for GetPluginAuthenticatedIcon {
    const META: OpMeta = OpMeta::get(
        "get_plugin_authenticated_icon",
        "/plugins/{author}/{name}/authenticated-icon",
    )
    .tag(TAG)
    .summary("A plugin's icon, as an image")
    .description(
        "The installed plugin's icon file; for `langbot-team/LocalAgent`, the built-in \
         agent's badge.",
    )
    .permission(Permission::ResourceView);
    type Path = PluginPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = Image;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PluginPath, NoParams, NoBody>,
    ) -> ApiResult<Image> {
        let ws = ctx.workspace()?;
        let p = &input.path;
        if (p.author.as_str(), p.name.as_str()) == ("langbot-team", "LocalAgent") {
            return Ok(Image::svg(crate::icons::badge(
                crate::pipelines::config::LANGBOT_LOCAL_AGENT,
                "Local Agent",
            )));
        }
        let (mime, bytes) = icon_of(&row_of(state, ws, p).await?)?;
        Ok(Image::new(mime, bytes))
    }
}

pub struct GetPluginLogs;

impl Operation for GetPluginLogs {
    const META: OpMeta = OpMeta::get("get_plugin_logs", "/plugins/{author}/{name}/logs")
        .tag(TAG)
        .summary("Recent log lines of the plugin in this replica's runtime")
        .description(
            "The runtime's lines that name the plugin, and the host's lines about the runtime.",
        )
        .permission(Permission::AuditView);
    type Path = PluginPath;
    type Query = LogsQuery;
    type Body = NoBody;
    type Output = PluginLogs;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<PluginPath, LogsQuery, NoBody>,
    ) -> ApiResult<PluginLogs> {
        let ws = ctx.workspace()?;
        let row = row_of(state, ws, &input.path).await?;
        let ids = [
            format!("{}/{}", row.plugin_author, row.plugin_name),
            format!("{}__{}", row.plugin_author, row.plugin_name),
        ];
        let level = input.query.level.map(|l| l.to_ascii_uppercase());
        let limit = input.query.limit.unwrap_or(200);
        let mut logs: Vec<_> = hub(state)
            .get(&ws.uuid)
            .map(|rt| rt.logs())
            .unwrap_or_default()
            .into_iter()
            .filter(|l| {
                l.text.starts_with("host:") || ids.iter().any(|id| l.text.contains(id.as_str()))
            })
            .filter(|l| level.as_ref().is_none_or(|lv| &l.level == lv))
            .collect();
        let skip = logs.len().saturating_sub(limit);
        logs.drain(..skip);
        Ok(PluginLogs { logs })
    }
}

pub struct GetPluginSystemStatus;

impl Operation for GetPluginSystemStatus {
    const META: OpMeta = OpMeta::get("get_plugin_system_status", "/system/status/plugin-system")
        .tag(TAG)
        .summary("Whether the plugin system is on and this Workspace's runtime runs (or why not)")
        .permission(Permission::ResourceView);
    type Path = NoParams;
    type Query = NoParams;
    type Body = NoBody;
    type Output = PluginSystemStatus;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        _: Input<NoParams, NoParams, NoBody>,
    ) -> ApiResult<PluginSystemStatus> {
        let ws = ctx.workspace()?;
        let status = |connected: bool, error: &str, runtime_state: &str, started: Option<u64>| {
            PluginSystemStatus {
                is_enable: state.settings.plugin.enable,
                is_connected: connected,
                plugin_connector_error: error.into(),
                runtime_state: runtime_state.into(),
                started_in_ms: started,
            }
        };
        Ok(match hub(state).sync(state, ws).await? {
            Standing::Disabled => status(
                false,
                "the plugin system is disabled (plugin.enable)",
                "disabled",
                None,
            ),
            Standing::Idle => status(true, "ok", "idle", None),
            Standing::Running(rt) => match rt.phase() {
                Phase::Ready(l) if !l.conn.is_closed() => status(
                    true,
                    "ok",
                    "ready",
                    u64::try_from(l.started_in.as_millis()).ok(),
                ),
                Phase::Ready(_) | Phase::Starting => {
                    status(false, "the plugin runtime is starting", "starting", None)
                }
                Phase::Failed(why) => status(false, &why, "failed", None),
                Phase::Stopped => status(false, "the plugin runtime is stopped", "failed", None),
            },
        })
    }
}
