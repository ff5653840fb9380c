//! Layered configuration (SPEC §2): defaults, then an optional YAML file, then `LANGBOT_*` variables.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use figment::providers::{Format, Serialized, Yaml};
use figment::Figment;
use serde::{Deserialize, Serialize};

/// Each environment variable and the YAML key it sets (SPEC §2 table).
pub const ENV_KEYS: &[(&str, &str)] = &[
    ("LANGBOT_HTTP_ADDR", "api.addr"),
    ("LANGBOT_PUBLIC_URL", "api.public_url"),
    ("LANGBOT_DATA_DIR", "data_dir"),
    ("LANGBOT_DATABASE_URL", "database.url"),
    ("LANGBOT_REDIS_URL", "redis.url"),
    ("LANGBOT_REDIS_PREFIX", "redis.prefix"),
    ("LANGBOT_GLOBAL_API_KEY", "api.global_api_key"),
    ("LANGBOT_MULTI_WORKSPACE", "workspaces.multi"),
    ("LANGBOT_SESSION_TTL", "auth.session_ttl"),
    ("LANGBOT_TRUSTED_PROXIES", "api.trusted_proxies"),
    ("LANGBOT_BODY_LIMIT", "api.body_limit"),
    ("LANGBOT_DRAIN_TIMEOUT", "api.drain_timeout"),
    ("LANGBOT_WEB_DIR", "web.dir"),
    ("LANGBOT_MONITORING_RETENTION", "monitoring.retention"),
    ("LANGBOT_EXECUTION_LEASE", "monitoring.execution_lease"),
    ("LANGBOT_ADAPTER_LEASE", "bots.adapter_lease"),
    ("LANGBOT_MCP_STDIO_ENABLED", "mcp.stdio.enabled"),
    (
        "LANGBOT_MCP_STDIO_ALLOWED_COMMANDS",
        "mcp.stdio.allowed_commands",
    ),
    ("LANGBOT_PLUGIN_ENABLE", "plugin.enable"),
    ("LANGBOT_PLUGIN_RUNTIME_PYTHON", "plugin.runtime_python"),
    ("LANGBOT_PLUGIN_RUNTIME_WS_URL", "plugin.runtime_ws_url"),
    (
        "LANGBOT_PLUGIN_RUNTIME_CONTROL_TOKEN",
        "plugin.runtime_control_token",
    ),
    (
        "LANGBOT_PLUGIN_INSTALL_DEPENDENCIES",
        "plugin.install_dependencies",
    ),
    (
        "LANGBOT_PLUGIN_TOOL_CALL_TIMEOUT",
        "plugin.tool_call_timeout",
    ),
    ("LANGBOT_LOG", "log.filter"),
    ("LANGBOT_LOG_FORMAT", "log.format"),
];

/// The whole configuration tree; field names are the YAML keys.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub api: ApiSettings,
    pub data_dir: PathBuf,
    pub database: DatabaseSettings,
    pub redis: RedisSettings,
    pub workspaces: WorkspaceSettings,
    pub auth: AuthSettings,
    pub web: WebSettings,
    pub monitoring: MonitoringSettings,
    pub bots: BotSettings,
    pub mcp: McpSettings,
    pub plugin: PluginSettings,
    pub log: LogSettings,
}

/// The plugin host: LangBot's plugin runtime (`lbp rt`), a stdio child per Workspace with
/// plugins, or an external runtime over WebSocket.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginSettings {
    #[serde(deserialize_with = "de::flag")]
    pub enable: bool,
    /// The interpreter that has `langbot-plugin` installed.
    pub runtime_python: String,
    /// An external runtime's control WebSocket; unset: a stdio child.
    pub runtime_ws_url: Option<String>,
    /// Sent as `X-LangBot-Plugin-Runtime-Token` (the runtime wants 32+ characters).
    pub runtime_control_token: Option<String>,
    /// Let the runtime pip-install each plugin's requirements (off: `--skip-deps-check`).
    #[serde(deserialize_with = "de::flag")]
    pub install_dependencies: bool,
    /// How long one plugin tool call may take.
    #[serde(with = "de::duration")]
    pub tool_call_timeout: Duration,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BotSettings {
    /// How long a replica holds a connection-style bot (gateway, long polling, forward
    /// WebSocket) without renewing it; another replica takes over after it lapses.
    #[serde(with = "de::duration")]
    pub adapter_lease: Duration,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MonitoringSettings {
    /// Records older than this are deleted in the background.
    #[serde(with = "de::duration")]
    pub retention: Duration,
    /// A running execution's lease, renewed while its replica works on it; once it lapses
    /// (the replica died) another replica's reaper marks the execution failed.
    #[serde(with = "de::duration")]
    pub execution_lease: Duration,
    /// How long one in-flight SSE connection lives before the client reconnects.
    #[serde(with = "de::duration")]
    pub stream_lifetime: Duration,
    /// Silence after which the in-flight stream sends a heartbeat.
    #[serde(with = "de::duration")]
    pub stream_heartbeat: Duration,
    /// In-flight stream viewers allowed per Workspace and in total, per replica.
    pub viewers_per_workspace: usize,
    pub viewers_total: usize,
}

/// External MCP servers the agents use as tool sources.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpSettings {
    pub stdio: McpStdioSettings,
}

/// A stdio MCP server is a process on this host, so it is off unless the operator allows it,
/// and then only for the listed commands.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpStdioSettings {
    #[serde(deserialize_with = "de::flag")]
    pub enabled: bool,
    /// Exact command strings or bare file names (`npx`, `/usr/bin/python3`); comma-separated
    /// in the environment.
    #[serde(deserialize_with = "de::string_list")]
    pub allowed_commands: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiSettings {
    pub addr: String,
    pub public_url: Option<String>,
    pub global_api_key: Option<String>,
    /// Comma-separated in the environment, a list or a string in YAML.
    #[serde(deserialize_with = "de::string_list")]
    pub trusted_proxies: Vec<String>,
    #[serde(with = "de::byte_size")]
    pub body_limit: u64,
    /// On SIGTERM, how long in-flight requests and turns may take to finish.
    #[serde(with = "de::duration")]
    pub drain_timeout: Duration,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatabaseSettings {
    pub url: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedisSettings {
    pub url: Option<String>,
    pub prefix: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceSettings {
    #[serde(deserialize_with = "de::flag")]
    pub multi: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthSettings {
    #[serde(with = "de::duration")]
    pub session_ttl: Duration,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebSettings {
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogSettings {
    pub filter: String,
    pub format: LogFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

/// Which database the URL selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DatabaseKind {
    Sqlite,
    Postgres,
}

impl DatabaseKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sqlite => "sqlite",
            Self::Postgres => "postgresql",
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            api: ApiSettings {
                addr: "127.0.0.1:5300".into(),
                public_url: None,
                global_api_key: None,
                trusted_proxies: Vec::new(),
                body_limit: 1024 * 1024,
                drain_timeout: Duration::from_secs(30),
            },
            data_dir: PathBuf::from("./data"),
            database: DatabaseSettings { url: None },
            redis: RedisSettings {
                url: None,
                prefix: "langbot:".into(),
            },
            workspaces: WorkspaceSettings { multi: false },
            auth: AuthSettings {
                session_ttl: Duration::from_secs(7 * 24 * 3600),
            },
            web: WebSettings { dir: None },
            monitoring: MonitoringSettings {
                retention: Duration::from_secs(30 * 24 * 3600),
                execution_lease: Duration::from_secs(120),
                stream_lifetime: Duration::from_secs(60),
                stream_heartbeat: Duration::from_secs(10),
                viewers_per_workspace: 64,
                viewers_total: 1024,
            },
            bots: BotSettings {
                adapter_lease: Duration::from_secs(15),
            },
            mcp: McpSettings {
                stdio: McpStdioSettings {
                    enabled: false,
                    allowed_commands: Vec::new(),
                },
            },
            plugin: PluginSettings {
                enable: false,
                runtime_python: "python3".into(),
                runtime_ws_url: None,
                runtime_control_token: None,
                install_dependencies: true,
                tool_call_timeout: Duration::from_secs(180),
            },
            log: LogSettings {
                filter: "info".into(),
                format: LogFormat::Text,
            },
        }
    }
}

impl Settings {
    /// Loads defaults, the YAML file and the process environment.
    pub fn load() -> anyhow::Result<Self> {
        Self::load_from(|name| std::env::var(name).ok())
    }

    /// Same as [`Settings::load`] with an explicit environment (tests pass a map).
    pub fn load_from(env: impl Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        let env_value = |name: &str| env(name).filter(|v| !v.is_empty());
        let data_dir = env_value("LANGBOT_DATA_DIR").unwrap_or_else(|| "./data".into());
        let config_path = match env_value("LANGBOT_CONFIG") {
            Some(path) => {
                let path = PathBuf::from(path);
                anyhow::ensure!(
                    path.is_file(),
                    "LANGBOT_CONFIG={} does not exist",
                    path.display()
                );
                path
            }
            None => Path::new(&data_dir).join("config.yaml"),
        };
        let mut figment = Figment::from(Serialized::defaults(Settings::default()));
        if config_path.is_file() {
            figment = figment.merge(Yaml::file_exact(&config_path));
        }
        // Environment values stay strings; typed fields parse them (e.g. "7d", "1MiB", "true").
        for (var, key) in ENV_KEYS {
            if let Some(value) = env_value(var) {
                figment = figment.merge((*key, value));
            }
        }
        let settings: Settings = figment
            .extract()
            .map_err(|e| anyhow::anyhow!("invalid configuration: {e}"))?;
        settings.validate()?;
        Ok(settings)
    }

    fn validate(&self) -> anyhow::Result<()> {
        self.addr()?;
        self.database_kind()?;
        if let Some(url) = &self.redis.url {
            anyhow::ensure!(
                url.starts_with("redis://")
                    || url.starts_with("rediss://")
                    || url.starts_with("unix://"),
                "redis.url must start with redis://, rediss:// or unix://"
            );
        }
        anyhow::ensure!(
            self.api.body_limit >= 1024,
            "api.body_limit must be at least 1KiB"
        );
        anyhow::ensure!(
            self.auth.session_ttl >= Duration::from_secs(60),
            "auth.session_ttl must be at least one minute"
        );
        if let Some(url) = &self.plugin.runtime_ws_url {
            anyhow::ensure!(
                url.starts_with("ws://") || url.starts_with("wss://"),
                "plugin.runtime_ws_url must start with ws:// or wss://"
            );
        }
        if let Some(token) = &self.plugin.runtime_control_token {
            anyhow::ensure!(
                token.chars().filter(|c| !c.is_whitespace()).count() >= 32,
                "plugin.runtime_control_token must have at least 32 non-blank characters"
            );
        }
        anyhow::ensure!(
            self.monitoring.execution_lease >= Duration::from_secs(3),
            "monitoring.execution_lease must be at least three seconds"
        );
        anyhow::ensure!(
            self.plugin.tool_call_timeout >= Duration::from_secs(1),
            "plugin.tool_call_timeout must be at least one second"
        );
        Ok(())
    }

    /// The socket address to listen on.
    pub fn addr(&self) -> anyhow::Result<SocketAddr> {
        self.api
            .addr
            .parse()
            .map_err(|_| anyhow::anyhow!("api.addr {:?} is not a host:port address", self.api.addr))
    }

    /// The database URL, defaulting to `langbot.db` in the data dir.
    pub fn database_url(&self) -> String {
        match &self.database.url {
            Some(url) => url.clone(),
            None => format!("sqlite://{}", self.data_dir.join("langbot.db").display()),
        }
    }

    pub fn database_kind(&self) -> anyhow::Result<DatabaseKind> {
        let url = self.database_url();
        if url.starts_with("sqlite:") {
            Ok(DatabaseKind::Sqlite)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(DatabaseKind::Postgres)
        } else {
            anyhow::bail!("database.url must start with sqlite:// or postgres://")
        }
    }

    /// Base of the URLs shown to users (webhooks).
    pub fn public_url(&self) -> String {
        match &self.api.public_url {
            Some(url) => url.trim_end_matches('/').to_string(),
            None => format!("http://{}", self.api.addr),
        }
    }

    /// The directory of the built web UI.
    pub fn web_dir(&self) -> PathBuf {
        self.web
            .dir
            .clone()
            .unwrap_or_else(|| PathBuf::from("web/dist"))
    }
}

/// Lenient deserializers: environment values arrive as strings, YAML values may be typed.
mod de {
    use serde::{Deserialize, Deserializer};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Scalar {
        Bool(bool),
        Int(u64),
        Str(String),
    }

    pub fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        match Scalar::deserialize(d)? {
            Scalar::Bool(b) => Ok(b),
            Scalar::Str(s) => match s.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" | "on" => Ok(true),
                "false" | "0" | "no" | "off" => Ok(false),
                other => Err(serde::de::Error::custom(format!(
                    "expected true or false, got {other:?}"
                ))),
            },
            Scalar::Int(i) => Ok(i != 0),
        }
    }

    pub fn string_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum List {
            One(String),
            Many(Vec<String>),
        }
        let items = match List::deserialize(d)? {
            List::One(s) => s.split(',').map(str::to_string).collect(),
            List::Many(v) => v,
        };
        Ok(items
            .into_iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect())
    }

    pub mod duration {
        use super::*;
        use serde::Serializer;
        use std::time::Duration;

        pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&humantime::format_duration(*d).to_string())
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
            match Scalar::deserialize(d)? {
                Scalar::Int(secs) => Ok(Duration::from_secs(secs)),
                Scalar::Str(s) => humantime::parse_duration(s.trim())
                    .map_err(|e| serde::de::Error::custom(format!("invalid duration {s:?}: {e}"))),
                Scalar::Bool(_) => Err(serde::de::Error::custom("expected a duration such as 7d")),
            }
        }
    }

    pub mod byte_size {
        use super::*;
        use serde::Serializer;

        pub fn serialize<S: Serializer>(n: &u64, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_u64(*n)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
            match Scalar::deserialize(d)? {
                Scalar::Int(n) => Ok(n),
                Scalar::Str(s) => s
                    .trim()
                    .parse::<bytesize::ByteSize>()
                    .map(|b| b.as_u64())
                    .map_err(|e| serde::de::Error::custom(format!("invalid size {s:?}: {e}"))),
                Scalar::Bool(_) => Err(serde::de::Error::custom("expected a size such as 1MiB")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn load(vars: &[(&str, &str)]) -> anyhow::Result<Settings> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::load_from(|k| map.get(k).cloned())
    }

    #[test]
    fn defaults_match_the_spec() -> anyhow::Result<()> {
        let s = load(&[("LANGBOT_DATA_DIR", "/nonexistent-langbot")])?;
        assert_eq!(s.api.addr, "127.0.0.1:5300");
        assert_eq!(s.api.body_limit, 1024 * 1024);
        assert_eq!(s.redis.prefix, "langbot:");
        assert!(!s.workspaces.multi);
        assert_eq!(s.auth.session_ttl, Duration::from_secs(7 * 86400));
        assert_eq!(s.database_url(), "sqlite:///nonexistent-langbot/langbot.db");
        assert_eq!(s.public_url(), "http://127.0.0.1:5300");
        Ok(())
    }

    #[test]
    fn environment_overrides_yaml() -> anyhow::Result<()> {
        let dir = std::env::temp_dir().join(format!("langbot-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        std::fs::write(
            dir.join("config.yaml"),
            "api:\n  addr: 0.0.0.0:9000\n  body_limit: 2MiB\nworkspaces:\n  multi: true\n",
        )?;
        let d = dir.to_string_lossy().to_string();
        let s = load(&[
            ("LANGBOT_DATA_DIR", &d),
            ("LANGBOT_HTTP_ADDR", "127.0.0.1:1234"),
            ("LANGBOT_SESSION_TTL", "1h"),
            ("LANGBOT_TRUSTED_PROXIES", "10.0.0.1, 10.0.0.2"),
        ])?;
        assert_eq!(s.api.addr, "127.0.0.1:1234");
        assert_eq!(s.api.body_limit, 2 * 1024 * 1024);
        assert!(s.workspaces.multi);
        assert_eq!(s.auth.session_ttl, Duration::from_secs(3600));
        assert_eq!(s.api.trusted_proxies, vec!["10.0.0.1", "10.0.0.2"]);
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }

    #[test]
    fn bad_values_are_reported() {
        assert!(load(&[("LANGBOT_HTTP_ADDR", "nope")]).is_err());
        assert!(load(&[("LANGBOT_MULTI_WORKSPACE", "maybe")]).is_err());
        assert!(load(&[("LANGBOT_DATABASE_URL", "mysql://x")]).is_err());
        assert!(load(&[("LANGBOT_BODY_LIMIT", "lots")]).is_err());
        assert!(load(&[("LANGBOT_PLUGIN_RUNTIME_WS_URL", "http://x")]).is_err());
        assert!(load(&[("LANGBOT_PLUGIN_RUNTIME_CONTROL_TOKEN", "short")]).is_err());
    }

    #[test]
    fn plugin_settings_come_from_the_environment() -> anyhow::Result<()> {
        let s = load(&[("LANGBOT_DATA_DIR", "/nonexistent-langbot")])?;
        assert!(!s.plugin.enable);
        assert_eq!(s.plugin.runtime_python, "python3");
        let s = load(&[
            ("LANGBOT_PLUGIN_ENABLE", "true"),
            ("LANGBOT_PLUGIN_RUNTIME_PYTHON", "/venv/bin/python"),
            ("LANGBOT_PLUGIN_RUNTIME_WS_URL", "ws://rt:5400/control/ws"),
            ("LANGBOT_PLUGIN_RUNTIME_CONTROL_TOKEN", &"t".repeat(32)),
            ("LANGBOT_PLUGIN_INSTALL_DEPENDENCIES", "false"),
            ("LANGBOT_PLUGIN_TOOL_CALL_TIMEOUT", "30s"),
        ])?;
        assert!(s.plugin.enable && !s.plugin.install_dependencies);
        assert_eq!(s.plugin.runtime_python, "/venv/bin/python");
        assert_eq!(
            s.plugin.runtime_ws_url.as_deref(),
            Some("ws://rt:5400/control/ws")
        );
        assert_eq!(s.plugin.tool_call_timeout, Duration::from_secs(30));
        Ok(())
    }
}
