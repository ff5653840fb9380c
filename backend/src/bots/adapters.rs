//! The adapters the runtime implements, with LangBot's names and config fields (reference
//! bots_pipelines §5.2). Every adapter that calls a platform API has an `api_base_url`
//! (default: the platform's official URL), so self-hosted API servers and local fakes work.

use serde::Serialize;
use serde_json::json;
use std::sync::LazyLock;
use utoipa::ToSchema;

use crate::forms::{ConfigField, I18nText};

pub const HTTP_BOT: &str = "http_bot";
pub const TELEGRAM: &str = "telegram";
pub const DISCORD: &str = "discord";
pub const SLACK: &str = "slack";
pub const ONEBOT_V11: &str = "onebot-v11";
pub const AIOCQHTTP: &str = "aiocqhttp";
pub const LARK: &str = "lark";
pub const WEB_PAGE_BOT: &str = "web_page_bot";

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AdapterSpec {
    pub config: Vec<ConfigField>,
    pub categories: Vec<&'static str>,
    /// Event types the adapter delivers.
    pub supported_events: Vec<&'static str>,
}

/// An adapter: how a bot talks to its platform.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Adapter {
    pub name: &'static str,
    pub label: I18nText,
    pub description: I18nText,
    pub icon: &'static str,
    pub spec: AdapterSpec,
}

fn text(en_us: &'static str, zh_hans: &'static str) -> I18nText {
    I18nText { en_us, zh_hans }
}

fn adapter(
    name: &'static str,
    label: I18nText,
    description: I18nText,
    categories: Vec<&'static str>,
    config: Vec<ConfigField>,
) -> Adapter {
    Adapter {
        name,
        label,
        description,
        icon: "",
        spec: AdapterSpec {
            config,
            categories,
            supported_events: vec!["message.received"],
        },
    }
}

fn webhook_url() -> ConfigField {
    ConfigField::new("webhook_url", "Webhook URL", "Webhook 地址", "webhook-url")
}

fn api_base_url(official: &'static str) -> ConfigField {
    ConfigField::new("api_base_url", "API base URL", "API 地址", "url").default(json!(official))
}

pub fn http_bot() -> Adapter {
    adapter(
        HTTP_BOT,
        text("HTTP Bot", "HTTP 机器人"),
        text(
            "Server-to-server integration: POST signed messages to the webhook URL; replies are POSTed to your callback URL",
            "服务端对接：向 Webhook 地址推送签名消息，回复将推送到你的回调地址",
        ),
        vec!["protocol"],
        vec![
            webhook_url(),
            ConfigField::new("inbound_secret", "Inbound signing secret", "入站签名密钥", "string").required().secret(),
            ConfigField::new("callback_url", "Callback URL", "回调地址", "url").required(),
            ConfigField::new("outbound_secret", "Outbound signing secret", "出站签名密钥", "string").secret(),
            ConfigField::new("default_session_type", "Default session type", "默认会话类型", "select")
                .default(json!("person"))
                .options(&[("person", "Private", "私聊"), ("group", "Group", "群聊")]),
            ConfigField::new("signature_required", "Require signatures", "要求签名", "boolean").default(json!(true)),
            ConfigField::new("callback_timeout", "Callback timeout (seconds)", "回调超时（秒）", "integer")
                .default(json!(15))
                .range(1, 120),
            ConfigField::new("callback_max_retries", "Callback retries", "回调重试次数", "integer")
                .default(json!(3))
                .range(0, 10),
        ],
    )
}

pub fn telegram() -> Adapter {
    adapter(
        TELEGRAM,
        text("Telegram", "Telegram"),
        text(
            "A Telegram bot (Bot API): long polling, or a webhook with a secret token",
            "Telegram 机器人（Bot API）：长轮询，或带密钥的 Webhook",
        ),
        vec!["popular", "global"],
        vec![
            ConfigField::new(
                "token",
                "Bot token (from @BotFather)",
                "机器人令牌",
                "string",
            )
            .required()
            .secret(),
            ConfigField::new(
                "markdown_card",
                "Render Markdown",
                "渲染 Markdown",
                "boolean",
            )
            .default(json!(true)),
            ConfigField::new(
                "enable-stream-reply",
                "Stream replies (message edits)",
                "流式回复（编辑消息）",
                "boolean",
            )
            .default(json!(false)),
            ConfigField::new(
                "enable-webhook",
                "Receive by webhook instead of long polling",
                "使用 Webhook 接收（而非长轮询）",
                "boolean",
            )
            .default(json!(false)),
            ConfigField::new(
                "webhook_secret",
                "Webhook secret token (derived from the token when empty)",
                "Webhook 密钥（留空则由令牌派生）",
                "string",
            )
            .secret(),
            webhook_url(),
            api_base_url("https://api.telegram.org"),
        ],
    )
}

pub fn discord() -> Adapter {
    adapter(
        DISCORD,
        text("Discord", "Discord"),
        text(
            "A Discord bot: the Gateway for events, REST for replies",
            "Discord 机器人：Gateway 接收事件，REST 发送回复",
        ),
        vec!["popular", "global"],
        vec![
            ConfigField::new("client_id", "Application (client) ID", "应用 ID", "string")
                .required(),
            ConfigField::new("token", "Bot token", "机器人令牌", "string")
                .required()
                .secret(),
            api_base_url("https://discord.com/api/v10"),
        ],
    )
}

pub fn slack() -> Adapter {
    adapter(
        SLACK,
        text("Slack", "Slack"),
        text(
            "A Slack app: the Events API (signed requests) or Socket Mode",
            "Slack 应用：Events API（签名请求）或 Socket Mode",
        ),
        vec!["popular", "global"],
        vec![
            ConfigField::new(
                "bot_token",
                "Bot token (xoxb-…)",
                "Bot 令牌（xoxb-…）",
                "string",
            )
            .required()
            .secret(),
            ConfigField::new(
                "signing_secret",
                "Signing secret (Events API)",
                "签名密钥（Events API）",
                "string",
            )
            .secret(),
            ConfigField::new("socket_mode", "Socket Mode", "Socket 模式", "boolean")
                .default(json!(false)),
            ConfigField::new(
                "app_token",
                "App-level token (xapp-…, Socket Mode)",
                "应用级令牌（xapp-…，Socket 模式）",
                "string",
            )
            .secret(),
            webhook_url(),
            api_base_url("https://slack.com/api"),
        ],
    )
}

fn onebot_token() -> ConfigField {
    ConfigField::new("access-token", "Access token", "访问令牌", "string").secret()
}

pub fn onebot_v11() -> Adapter {
    adapter(
        ONEBOT_V11,
        text("OneBot v11 (QQ)", "OneBot v11（QQ）"),
        text(
            "OneBot v11 implementations such as NapCat and Lagrange, over a reverse or forward WebSocket",
            "NapCat、Lagrange 等 OneBot v11 实现，反向或正向 WebSocket",
        ),
        vec!["popular", "china", "protocol"],
        vec![
            ConfigField::new("connection_mode", "Connection mode", "连接方式", "select")
                .default(json!("reverse_ws"))
                .options(&[
                    ("reverse_ws", "Reverse WebSocket (the implementation connects here)", "反向 WebSocket（由实现端连接本服务）"),
                    ("forward_ws", "Forward WebSocket (connect to the implementation)", "正向 WebSocket（连接实现端）"),
                ]),
            ConfigField::new("__system.onebot_ws_url", "Reverse WebSocket URL", "反向 WebSocket 地址", "webhook-url"),
            ConfigField::new("ws_url", "Forward WebSocket URL", "正向 WebSocket 地址", "ws-url"),
            onebot_token().required(),
            ConfigField::new("self_id", "Bot QQ number (optional)", "机器人 QQ 号（可选）", "string"),
        ],
    )
}

pub fn aiocqhttp() -> Adapter {
    adapter(
        AIOCQHTTP,
        text(
            "OneBot v11 (aiocqhttp, legacy)",
            "OneBot v11（aiocqhttp，旧版）",
        ),
        text(
            "OneBot v11 over a reverse WebSocket served on its own host and port (path /ws)",
            "在独立的地址与端口（路径 /ws）上提供反向 WebSocket 的 OneBot v11",
        ),
        vec!["china", "protocol"],
        vec![
            ConfigField::new("host", "Listen host", "监听地址", "string").default(json!("0.0.0.0")),
            ConfigField::new("port", "Listen port", "监听端口", "integer")
                .default(json!(2280))
                .range(1, 65535),
            onebot_token(),
        ],
    )
}

pub fn lark() -> Adapter {
    adapter(
        LARK,
        text("Lark (Feishu)", "飞书"),
        text(
            "A Lark / Feishu app: event callbacks (challenge, verification token, encrypt key), replies through im/v1",
            "飞书应用：事件回调（challenge、Verification Token、Encrypt Key），通过 im/v1 回复",
        ),
        vec!["popular", "china"],
        vec![
            ConfigField::new("app_id", "App ID", "App ID", "string").required(),
            ConfigField::new("app_secret", "App secret", "App Secret", "string").required().secret(),
            ConfigField::new("bot_name", "Bot name", "机器人名称", "string").required(),
            webhook_url(),
            ConfigField::new("verification-token", "Verification token", "Verification Token", "string").secret(),
            ConfigField::new("encrypt-key", "Encrypt key", "Encrypt Key", "string").secret(),
            api_base_url("https://open.feishu.cn/open-apis"),
        ],
    )
}

pub fn web_page_bot() -> Adapter {
    adapter(
        WEB_PAGE_BOT,
        text("Web chat widget", "网页聊天组件"),
        text(
            "A chat bubble for your website: paste the embed code into your pages",
            "网站聊天气泡：将嵌入代码粘贴到你的网页中",
        ),
        vec!["popular", "global"],
        vec![
            ConfigField::new("title", "Title", "标题", "string").default(json!("LangBot")),
            ConfigField::new("bubble_icon", "Bubble icon URL", "气泡图标地址", "url"),
            ConfigField::new("language", "Widget language", "组件语言", "select")
                .default(json!("en_US"))
                .options(&[
                    ("en_US", "English", "英语"),
                    ("zh_Hans", "Simplified Chinese", "简体中文"),
                ]),
            ConfigField::new("embed_code", "Embed code", "嵌入代码", "embed-code"),
            ConfigField::new(
                "rate_limit",
                "Messages per minute per visitor",
                "每位访客每分钟消息数",
                "integer",
            )
            .default(json!(20))
            .range(1, 600),
            ConfigField::new(
                "turnstile_site_key",
                "Turnstile site key",
                "Turnstile Site Key",
                "string",
            ),
            ConfigField::new(
                "turnstile_secret_key",
                "Turnstile secret key",
                "Turnstile Secret Key",
                "string",
            )
            .secret(),
            api_base_url("https://challenges.cloudflare.com"),
        ],
    )
}

/// Every adapter, in display order.
/// Built once: a bots list looks up each row's adapter (for its secret fields), and building
/// the specs was a fifth of that list's cost.
static ALL: LazyLock<Vec<Adapter>> = LazyLock::new(|| {
    vec![
        http_bot(),
        telegram(),
        discord(),
        slack(),
        onebot_v11(),
        aiocqhttp(),
        lark(),
        web_page_bot(),
    ]
});

pub fn all() -> &'static [Adapter] {
    &ALL
}

pub fn find(name: &str) -> Option<&'static Adapter> {
    ALL.iter().find(|a| a.name == name)
}

/// Adapters whose bot keeps a connection (gateway, long polling, forward WebSocket, a
/// listener of its own): one replica at a time runs it, under a lease.
pub fn is_connection_style(name: &str, config: &serde_json::Value) -> bool {
    match name {
        TELEGRAM | DISCORD | AIOCQHTTP => true,
        SLACK => config["socket_mode"] == json!(true),
        ONEBOT_V11 => config["connection_mode"] == json!("forward_ws"),
        _ => false,
    }
}

/// Adapters the supervisor runs on one replica under a lease: the connection-style ones,
/// and webhook-style ones whose credentials it checks (and whose account it learns) so a
/// wrong token shows in the bot's state before the first event.
pub fn is_supervised(name: &str, config: &serde_json::Value) -> bool {
    is_connection_style(name, config) || matches!(name, SLACK | LARK)
}
