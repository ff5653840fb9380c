//! Files for plugins' `file` / `array[file]` config fields: uploaded here (LangBot's
//! `/plugins/config-files`), referred to in the config by `file_key`, and read by the plugin
//! with `get_config_file`. Stored in the database beside plugin storage, per Workspace, so
//! every replica serves the same bytes.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::service::storage;
use crate::access::{Permission, RequestCtx, WorkspaceCtx};
use crate::catalog::{Input, NoBody, NoParams, OpMeta, Operation, Upload};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;

/// LangBot's limit for one config file.
pub const FILE_MAX: usize = 10 * 1024 * 1024;
/// The storage owner of config files (not a plugin: a Workspace's files for any plugin's form).
const OWNER_TYPE: &str = "config_file";
const OWNER: &str = "";

#[derive(Debug, Serialize, ToSchema)]
pub struct ConfigFileKey {
    /// Put this in the field's value; the plugin reads the file by it.
    pub file_key: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ConfigFileDeleted {
    pub deleted: bool,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ConfigFilePath {
    pub file_key: String,
}

/// A new key: a UUID, like every other id of the API (the value beside it carries the
/// file's `mimetype`).
fn new_key() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// A key as `new_key` makes them (anything else cannot name a stored file).
fn valid_key(key: &str) -> bool {
    uuid::Uuid::parse_str(key).is_ok()
}

/// The bytes of `key` in `ws`, for the plugin host's `get_config_file`.
pub async fn read(state: &AppState, ws: &WorkspaceCtx, key: &str) -> ApiResult<Option<Vec<u8>>> {
    if !valid_key(key) {
        return Ok(None);
    }
    storage::get(&state.db, ws, OWNER_TYPE, OWNER, key).await
}

pub struct UploadPluginConfigFile;

impl Operation for UploadPluginConfigFile {
    const META: OpMeta = OpMeta::post("upload_plugin_config_file", "/plugins/config-files")
        .tag("plugins")
        .summary("Upload a file for a plugin's file-typed config field")
        .description(
            "Multipart, the file in the `file` field, at most 10 MiB. Answers the `file_key` to \
             store in the config field; the plugin reads the file with `get_config_file`.",
        )
        .permission(Permission::ResourceManage)
        .errors(&[ErrorCode::PayloadTooLarge]);
    type Path = NoParams;
    type Query = NoParams;
    type Body = Upload;
    type Output = ConfigFileKey;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, Upload>,
    ) -> ApiResult<ConfigFileKey> {
        let ws = ctx.workspace()?;
        let file = input.body;
        if file.bytes.len() > FILE_MAX {
            return Err(ApiError::new(ErrorCode::PayloadTooLarge)
                .msg("A config file is at most 10 MiB")
                .field("file", "is larger than 10 MiB"));
        }
        let file_key = new_key();
        storage::set(&state.db, ws, OWNER_TYPE, OWNER, &file_key, file.bytes).await?;
        Ok(ConfigFileKey { file_key })
    }
}

pub struct DeletePluginConfigFile;

impl Operation for DeletePluginConfigFile {
    const META: OpMeta = OpMeta::delete(
        "delete_plugin_config_file",
        "/plugins/config-files/{file_key}",
    )
    .tag("plugins")
    .summary("Delete an uploaded config file")
    .permission(Permission::ResourceManage);
    type Path = ConfigFilePath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = ConfigFileDeleted;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<ConfigFilePath, NoParams, NoBody>,
    ) -> ApiResult<ConfigFileDeleted> {
        let ws = ctx.workspace()?;
        let key = input.path.file_key;
        if !valid_key(&key) {
            return Err(
                ApiError::invalid("file_key is not a config file key").field(
                    "file_key",
                    "is not a key answered by POST /plugins/config-files",
                ),
            );
        }
        if read(state, ws, &key).await?.is_none() {
            return Err(ApiError::not_found().msg("Config file not found"));
        }
        storage::delete(&state.db, ws, OWNER_TYPE, OWNER, &key).await?;
        Ok(ConfigFileDeleted { deleted: true })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_made_keys_are_valid() {
        assert!(valid_key(&new_key()));
        assert!(!valid_key("../etc/passwd"));
        assert!(!valid_key("visits"));
    }
}
