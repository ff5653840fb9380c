//! The requesters this server really implements (SPEC §7), with their config schemas.

use serde::Serialize;
use serde_json::{json, Value};
use utoipa::ToSchema;

use crate::error::{ApiError, ApiResult};
pub use crate::forms::{ConfigField, I18nText};

pub use crate::entities::model::ModelKind;

/// A base-URL preset (OpenAI, DeepSeek, Ollama …).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Preset {
    pub name: &'static str,
    pub label: &'static str,
    pub base_url: &'static str,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RequesterSpec {
    pub config: Vec<ConfigField>,
    pub support_type: Vec<&'static str>,
    pub provider_category: &'static str,
    pub presets: Vec<Preset>,
}

/// A requester: how providers of this kind are called.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Requester {
    pub name: &'static str,
    pub label: I18nText,
    pub description: I18nText,
    pub icon: &'static str,
    pub support_type: Vec<&'static str>,
    pub spec: RequesterSpec,
}

pub(super) fn base_url_field(default: &'static str) -> ConfigField {
    ConfigField::new("base_url", "Base URL", "基础 URL", "url")
        .required()
        .default(json!(default))
}

pub(super) fn timeout_field() -> ConfigField {
    ConfigField::new("timeout", "Timeout (seconds)", "超时（秒）", "integer")
        .default(json!(DEFAULT_TIMEOUT_SECS))
        .range(1, 600)
}

pub const DEFAULT_TIMEOUT_SECS: u64 = 120;

/// Every requester, in display order: the generic ones, then LangBot's named ones.
pub fn all() -> Vec<Requester> {
    let chat_presets = vec![
        Preset {
            name: "openai",
            label: "OpenAI",
            base_url: "https://api.openai.com/v1",
        },
        Preset {
            name: "deepseek",
            label: "DeepSeek",
            base_url: "https://api.deepseek.com/v1",
        },
        Preset {
            name: "ollama",
            label: "Ollama",
            base_url: "http://127.0.0.1:11434/v1",
        },
        Preset {
            name: "vllm",
            label: "vLLM",
            base_url: "http://127.0.0.1:8000/v1",
        },
        Preset {
            name: "lmstudio",
            label: "LM Studio",
            base_url: "http://127.0.0.1:1234/v1",
        },
        Preset {
            name: "openrouter",
            label: "OpenRouter",
            base_url: "https://openrouter.ai/api/v1",
        },
        Preset {
            name: "siliconflow",
            label: "SiliconFlow",
            base_url: "https://api.siliconflow.cn/v1",
        },
        Preset {
            name: "moonshot",
            label: "Moonshot",
            base_url: "https://api.moonshot.ai/v1",
        },
        Preset {
            name: "groq",
            label: "Groq",
            base_url: "https://api.groq.com/openai/v1",
        },
        Preset {
            name: "together",
            label: "Together AI",
            base_url: "https://api.together.xyz/v1",
        },
        Preset {
            name: "xai",
            label: "xAI",
            base_url: "https://api.x.ai/v1",
        },
        Preset {
            name: "bailian",
            label: "Aliyun Bailian",
            base_url: "https://dashscope.aliyuncs.com/compatible-mode/v1",
        },
        Preset {
            name: "zhipuai",
            label: "ZhipuAI",
            base_url: "https://open.bigmodel.cn/api/paas/v4",
        },
    ];
    let rerank_presets = vec![
        Preset {
            name: "jina",
            label: "Jina",
            base_url: "https://api.jina.ai/v1",
        },
        Preset {
            name: "cohere",
            label: "Cohere",
            base_url: "https://api.cohere.com/v2",
        },
        Preset {
            name: "siliconflow",
            label: "SiliconFlow",
            base_url: "https://api.siliconflow.cn/v1",
        },
    ];
    vec![
        Requester {
            name: "openai-chat-completions",
            label: I18nText { en_us: "OpenAI-compatible", zh_hans: "OpenAI 兼容" },
            description: I18nText {
                en_us: "Chat completions and embeddings over the OpenAI API shape (OpenAI, DeepSeek, Ollama, vLLM, OpenRouter, SiliconFlow …)",
                zh_hans: "使用 OpenAI 接口格式的对话与向量模型（OpenAI、DeepSeek、Ollama、vLLM、OpenRouter、硅基流动等）",
            },
            icon: "",
            support_type: vec!["llm", "text-embedding"],
            spec: RequesterSpec {
                config: vec![base_url_field("https://api.openai.com/v1"), timeout_field()],
                support_type: vec!["llm", "text-embedding"],
                provider_category: "manufacturer",
                presets: chat_presets,
            },
        },
        Requester {
            name: "openai-compatible-rerank",
            label: I18nText { en_us: "Rerank (Jina/Cohere-compatible)", zh_hans: "重排序（Jina/Cohere 兼容）" },
            description: I18nText {
                en_us: "POST {base_url}/rerank with the Jina/Cohere request and response shape",
                zh_hans: "以 Jina/Cohere 格式调用 {base_url}/rerank",
            },
            icon: "",
            support_type: vec!["rerank"],
            spec: RequesterSpec {
                config: vec![base_url_field("https://api.jina.ai/v1"), timeout_field()],
                support_type: vec!["rerank"],
                provider_category: "maas",
                presets: rerank_presets,
            },
        },
    ]
    .into_iter()
    .chain(super::langbot_requesters::all())
    .collect()
}

pub fn find(name: &str) -> Option<Requester> {
    all().into_iter().find(|r| r.name == name)
}

/// The requester, or 400 naming the field.
pub fn require(name: &str) -> ApiResult<Requester> {
    find(name).ok_or_else(|| {
        ApiError::invalid(format!("Unknown requester: {name}"))
            .field("requester", "is not a known requester")
    })
}

impl Requester {
    pub fn supports(&self, kind: ModelKind) -> bool {
        self.support_type.contains(&kind.support_type())
    }

    /// Validates a provider's `config` object against the schema (every field but `base_url`,
    /// which is a column of its own); fills defaults.
    pub fn validate_config(&self, config: &Value) -> ApiResult<Value> {
        let fields: Vec<ConfigField> = self
            .spec
            .config
            .iter()
            .filter(|f| f.name != "base_url")
            .cloned()
            .collect();
        crate::forms::validate(&fields, config, "config")
    }

    pub fn secret_fields(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.spec.config.iter().filter(|f| f.secret).map(|f| f.name)
    }
}

/// Validates a base URL: http(s), a host, at most 512 characters.
pub fn validate_base_url(raw: &str) -> ApiResult<String> {
    let trimmed = raw.trim();
    let invalid = |why: &str| {
        ApiError::invalid(format!("Invalid base_url: {why}")).field("base_url", why.to_string())
    };
    if trimmed.len() > 512 {
        return Err(invalid("must be at most 512 characters"));
    }
    let url = url::Url::parse(trimmed).map_err(|_| invalid("must be an absolute URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid("must use http or https"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(invalid("must name a host"));
    }
    Ok(trimmed.trim_end_matches('/').to_string())
}
