//! The plugin host's test fixtures: LangBot's real plugin runtime (`langbot-plugin` from
//! PyPI, its Python in `TEST_PLUGIN_PYTHON`, set by `scripts/test-all.sh`; locally `source
//! scripts/lib/plugin_venv.sh; ensure_plugin_venv; export TEST_PLUGIN_PYTHON=$PLUGIN_PYTHON`),
//! the test plugin `tests/fixtures/plugins/weather` built with `lbp build` as its authors
//! would, uploads, and waiting for a plugin to run.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use reqwest::Method;
use serde_json::Value;

use super::{eventually, Cred, Response, TestApp};

pub const PLUGINS: &str = "/api/v1/plugins";
pub const WEATHER: &str = "tester/weather";
/// A cold runtime: Python starts, then each plugin's worker (about 10 s on a busy machine).
pub const RUNNING_WITHIN: Duration = Duration::from_secs(150);

/// The Python with `langbot-plugin` installed; panics when unset.
pub fn python() -> String {
    match std::env::var("TEST_PLUGIN_PYTHON") {
        Ok(p) if !p.trim().is_empty() => p,
        _ => panic!(
            "TEST_PLUGIN_PYTHON is not set: it names the Python with langbot-plugin==0.7.18 \
             installed. scripts/test-all.sh sets it; locally run `source \
             scripts/lib/plugin_venv.sh; ensure_plugin_venv; export TEST_PLUGIN_PYTHON=$PLUGIN_PYTHON`"
        ),
    }
}

pub fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/plugins/weather")
}

/// The weather plugin as `lbp build` packs it (built once per fixture content, shared by the
/// test processes through a cache directory written atomically).
pub fn weather_package() -> Vec<u8> {
    let source = langbot::plugins::package::pack_dir(&fixture_dir()).expect("pack the fixture");
    let key = &hex::encode(sha2::Sha256::digest(&source))[..16];
    let cache = std::env::temp_dir().join(format!("langbot-test-plugin-{key}"));
    let built = cache.join("tester-weather-0.1.0.lbpkg");
    if let Ok(bytes) = std::fs::read(&built) {
        return bytes;
    }
    let scratch = tempfile::tempdir().expect("temp dir");
    let out = Command::new(python())
        .args(["-m", "langbot_plugin.cli.__init__", "build", "-o"])
        .arg(scratch.path())
        .current_dir(fixture_dir())
        .output()
        .expect("run lbp build");
    assert!(
        out.status.success(),
        "lbp build failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(scratch.path().join("tester-weather-0.1.0.lbpkg"))
        .expect("the built package");
    let tmp =
        std::env::temp_dir().join(format!("langbot-test-plugin-{key}.{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("cache dir");
    std::fs::write(tmp.join("tester-weather-0.1.0.lbpkg"), &bytes).expect("cache the package");
    // Another process may have won the race; either copy is the same build.
    let _ = std::fs::rename(&tmp, &cache);
    bytes
}

use sha2::Digest;

/// The settings of a host that runs plugins with the test runtime.
pub fn with_runtime(s: &mut langbot::config::Settings) {
    s.plugin.enable = true;
    s.plugin.runtime_python = python();
    // The fixture needs nothing beyond langbot-plugin, which the runtime's Python has.
    s.plugin.install_dependencies = false;
    s.plugin.tool_call_timeout = Duration::from_secs(8);
}

/// A multipart body with `bytes` as the `file` field.
pub fn multipart(filename: &str, bytes: &[u8]) -> (String, Vec<u8>) {
    let boundary = "langbot-test-boundary-7d1f";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{filename}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

impl TestApp {
    /// Uploads a package as `cred` (in `workspace` when given).
    pub async fn upload_plugin(
        &self,
        cred: impl Into<Cred>,
        workspace: Option<&str>,
        bytes: &[u8],
    ) -> Response {
        let (ct, body) = multipart("plugin.lbpkg", bytes);
        let mut req = self
            .request(Method::POST, &format!("{PLUGINS}/install/local"))
            .cred(&cred.into())
            .raw_body(&ct, body);
        if let Some(ws) = workspace {
            req = req.header("x-workspace-id", ws);
        }
        req.send().await
    }

    /// Uploads a file for a plugin's file-typed config field; answers the response.
    pub async fn upload_config_file(
        &self,
        cred: impl Into<Cred>,
        workspace: Option<&str>,
        name: &str,
        bytes: &[u8],
    ) -> Response {
        let (ct, body) = multipart(name, bytes);
        let mut req = self
            .request(Method::POST, &format!("{PLUGINS}/config-files"))
            .cred(&cred.into())
            .raw_body(&ct, body);
        if let Some(ws) = workspace {
            req = req.header("x-workspace-id", ws);
        }
        req.send().await
    }

    /// Installs the weather plugin, asserting success.
    pub async fn install_weather(&self, token: &str, workspace: Option<&str>) {
        let res = self
            .upload_plugin(token, workspace, &weather_package())
            .await;
        assert_eq!(res.status, 200, "install: {}", res.text);
    }

    /// Waits until plugin `id` (`author/name`) runs in this replica's runtime; answers it.
    pub async fn plugin_running(&self, token: &str, workspace: Option<&str>, id: &str) -> Value {
        let path = format!("{PLUGINS}/{id}");
        eventually(&format!("plugin {id} running"), RUNNING_WITHIN, move || {
            let path = path.clone();
            async move {
                let res = self.call(token, workspace, Method::GET, &path, None).await;
                if res.status == 200 && res.body["data"]["plugin"]["status"] == "initialized" {
                    return Ok(res.body["data"]["plugin"].clone());
                }
                let status = self
                    .call(
                        token,
                        workspace,
                        Method::GET,
                        "/api/v1/system/status/plugin-system",
                        None,
                    )
                    .await;
                Err(format!("{} {} / {}", res.status, res.text, status.text))
            }
        })
        .await
    }
}
