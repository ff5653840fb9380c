//! The adapters the runtime implements: `http_bot` (the published HTTP-bot contract).

use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;

use crate::forms::{ConfigField, I18nText};

pub const HTTP_BOT: &str = "http_bot";

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

pub fn http_bot() -> Adapter {
    Adapter {
        name: HTTP_BOT,
        label: I18nText { en_us: "HTTP Bot", zh_hans: "HTTP 机器人" },
        description: I18nText {
            en_us: "Server-to-server integration: POST signed messages to the webhook URL; replies are POSTed to your callback URL",
            zh_hans: "服务端对接：向 Webhook 地址推送签名消息，回复将推送到你的回调地址",
        },
        icon: "",
        spec: AdapterSpec {
            config: vec![
                ConfigField::new("webhook_url", "Webhook URL", "Webhook 地址", "webhook-url"),
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
            categories: vec!["protocol"],
            supported_events: vec!["message.received"],
        },
    }
}

/// Every adapter, in display order.
pub fn all() -> Vec<Adapter> {
    vec![http_bot()]
}

pub fn find(name: &str) -> Option<Adapter> {
    all().into_iter().find(|a| a.name == name)
}
