//! LangBot 4.11.2's requesters under their own names (reference providers_models.md §5.2),
//! each served by the client of its wire protocol (`llm::Protocol::of_requester`):
//! - the OpenAI-compatible ones: the OpenAI API shape at the vendor's base URL
//!   (`/chat/completions`, `/embeddings`, `/rerank` by model kind); Cohere v2 and Jina rerank
//!   are that `/rerank` shape too;
//! - `anthropic-messages` (Messages API), `ollama-chat` (`/api/chat`, `/api/embed`),
//!   `gemini-chat-completions` (`generateContent`, `batchEmbedContents`), `voyageai-rerank`.
//!
//! Not listed, because nothing here speaks them: `openai-codex` (ChatGPT sign-in and the
//! Responses API), `litellm-chat` (LiteLLM's in-process provider routing), and the local
//! embedders `chroma-embedding` and `seekdb-embedding` (in-process ONNX models).

use super::requesters::{base_url_field, timeout_field, I18nText, Requester, RequesterSpec};
use crate::llm::Protocol;

const LLM: &[&str] = &["llm"];
const LLM_EMB: &[&str] = &["llm", "text-embedding"];
const ALL: &[&str] = &["llm", "text-embedding", "rerank"];

/// (name, English label, Chinese label, support types, category, default base URL)
type Row = (
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
    &'static str,
    &'static str,
);

const ROWS: &[Row] = &[
    (
        "302-ai-chat-completions",
        "302.AI",
        "302.AI",
        ALL,
        "maas",
        "https://api.302.ai/v1",
    ),
    (
        "anthropic-messages",
        "Anthropic",
        "Anthropic",
        LLM,
        "manufacturer",
        "https://api.anthropic.com",
    ),
    (
        "baidu-chat-completions",
        "Baidu ERNIE",
        "百度文心",
        ALL,
        "manufacturer",
        "https://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop",
    ),
    (
        "bailian-chat-completions",
        "Aliyun Bailian",
        "阿里云百炼",
        ALL,
        "maas",
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
    ),
    (
        "cohere-rerank",
        "Cohere",
        "Cohere",
        &["rerank"],
        "manufacturer",
        "https://api.cohere.com/v2",
    ),
    (
        "compshare-chat-completions",
        "CompShare",
        "优云智算",
        ALL,
        "maas",
        "https://api.modelverse.cn/v1",
    ),
    (
        "deepseek-chat-completions",
        "DeepSeek",
        "深度求索",
        LLM,
        "manufacturer",
        "https://api.deepseek.com",
    ),
    (
        "doubao-chat-completions",
        "ByteDance Doubao",
        "字节跳动豆包",
        ALL,
        "manufacturer",
        "https://ark.cn-beijing.volces.com/api/v3",
    ),
    (
        "gemini-chat-completions",
        "Google Gemini",
        "Google Gemini",
        LLM_EMB,
        "manufacturer",
        "https://generativelanguage.googleapis.com/v1beta/openai",
    ),
    (
        "gitee-ai-chat-completions",
        "Gitee AI",
        "Gitee AI",
        ALL,
        "maas",
        "https://ai.gitee.com/v1",
    ),
    (
        "groq-chat-completions",
        "Groq",
        "Groq",
        LLM,
        "manufacturer",
        "https://api.groq.com/openai/v1",
    ),
    (
        "iflytek-chat-completions",
        "iFlytek Spark",
        "讯飞星火",
        ALL,
        "manufacturer",
        "https://spark-api-open.xf-yun.com/v1",
    ),
    (
        "jiekouai-chat-completions",
        "JieKou AI",
        "接口 AI",
        ALL,
        "maas",
        "https://api.jiekou.ai/openai",
    ),
    (
        "jina-rerank",
        "Jina",
        "Jina",
        &["rerank"],
        "manufacturer",
        "https://api.jina.ai/v1",
    ),
    (
        "lmstudio-chat-completions",
        "LM Studio",
        "LM Studio",
        LLM_EMB,
        "self-hosted",
        "http://127.0.0.1:1234/v1",
    ),
    (
        "mimo-chat-completions",
        "Xiaomi MiMo",
        "小米 MiMo",
        ALL,
        "manufacturer",
        "https://api.xiaomimimo.com/v1",
    ),
    (
        "minimax-chat-completions",
        "MiniMax",
        "MiniMax",
        ALL,
        "manufacturer",
        "https://api.minimax.chat/v1",
    ),
    (
        "mistral-chat-completions",
        "Mistral AI",
        "Mistral AI",
        LLM_EMB,
        "manufacturer",
        "https://api.mistral.ai/v1",
    ),
    (
        "modelscope-chat-completions",
        "ModelScope",
        "魔搭社区",
        ALL,
        "maas",
        "https://api-inference.modelscope.cn/v1",
    ),
    (
        "moonshot-chat-completions",
        "Moonshot / Kimi (Global)",
        "月之暗面 / Kimi（国际）",
        LLM,
        "manufacturer",
        "https://api.moonshot.ai/v1",
    ),
    (
        "moonshot-cn-chat-completions",
        "Moonshot / Kimi (China)",
        "月之暗面 / Kimi（中国）",
        LLM,
        "manufacturer",
        "https://api.moonshot.cn/v1",
    ),
    (
        "new-api-chat-completions",
        "New API",
        "New API",
        ALL,
        "maas",
        "http://localhost:3000/v1",
    ),
    (
        "ollama-chat",
        "Ollama",
        "Ollama",
        LLM_EMB,
        "self-hosted",
        "http://127.0.0.1:11434",
    ),
    (
        "openrouter-chat-completions",
        "OpenRouter",
        "OpenRouter",
        ALL,
        "maas",
        "https://openrouter.ai/api/v1",
    ),
    (
        "ppio-chat-completions",
        "ppio",
        "PPIO 派欧云",
        ALL,
        "maas",
        "https://api.ppinfra.com/v3/openai",
    ),
    (
        "qhaigc-chat-completions",
        "QH AI",
        "启航 AI",
        ALL,
        "maas",
        "https://api.qhaigc.net/v1",
    ),
    (
        "qiniu-chat-completions",
        "Qiniu",
        "七牛云",
        ALL,
        "maas",
        "https://api.qnaigc.com/v1",
    ),
    (
        "shengsuanyun-chat-completions",
        "ShengSuanYun",
        "胜算云",
        ALL,
        "maas",
        "https://router.shengsuanyun.com/api/v1",
    ),
    (
        "siliconflow-chat-completions",
        "SiliconFlow",
        "硅基流动",
        ALL,
        "maas",
        "https://api.siliconflow.cn/v1",
    ),
    (
        "space-chat-completions",
        "Space (LangBot Models)",
        "Space（LangBot 模型）",
        ALL,
        "maas",
        "https://api.langbot.cloud/v1",
    ),
    (
        "tencent-chat-completions",
        "Tencent Hunyuan",
        "腾讯混元",
        ALL,
        "manufacturer",
        "https://hunyuan.tencentcloudapi.com/v1",
    ),
    (
        "together-chat-completions",
        "Together AI",
        "Together AI",
        ALL,
        "manufacturer",
        "https://api.together.xyz/v1",
    ),
    (
        "tokenlab-chat-completions",
        "TokenLab",
        "TokenLab",
        LLM,
        "maas",
        "https://api.tokenlab.sh/v1",
    ),
    (
        "tokenpony-chat-completions",
        "TokenPony",
        "小马算力",
        ALL,
        "maas",
        "https://api.tokenpony.cn/v1",
    ),
    (
        "volcark-chat-completions",
        "Volc Engine Ark",
        "火山方舟",
        ALL,
        "maas",
        "https://ark.cn-beijing.volces.com/api/v3",
    ),
    (
        "voyageai-rerank",
        "Voyage AI",
        "Voyage AI",
        &["rerank"],
        "manufacturer",
        "https://api.voyageai.com/v1",
    ),
    (
        "xai-chat-completions",
        "xAI",
        "xAI",
        LLM,
        "manufacturer",
        "https://api.x.ai/v1",
    ),
    (
        "yi-chat-completions",
        "01.AI Yi",
        "零一万物",
        ALL,
        "manufacturer",
        "https://api.lingyiwanwu.com/v1",
    ),
    (
        "zhipuai-chat-completions",
        "ZhipuAI",
        "智谱 AI",
        ALL,
        "manufacturer",
        "https://open.bigmodel.cn/api/paas/v4",
    ),
];

/// What the requester calls, by its protocol.
fn description(name: &str) -> I18nText {
    let (en_us, zh_hans) = match (Protocol::of_requester(name), name) {
        (Protocol::Anthropic, _) => (
            "Anthropic Messages API (POST /v1/messages, tool use, streaming)",
            "Anthropic Messages 接口（/v1/messages，支持工具调用与流式输出）",
        ),
        (Protocol::Ollama, _) => (
            "Ollama API (/api/chat with tools and streaming, /api/embed)",
            "Ollama 接口（/api/chat 支持工具与流式输出，/api/embed）",
        ),
        (Protocol::Gemini, _) => (
            "Gemini API (generateContent, streamGenerateContent, batchEmbedContents)",
            "Gemini 接口（generateContent、streamGenerateContent、batchEmbedContents）",
        ),
        (Protocol::Voyage, _) => (
            "Voyage AI rerank API (POST /rerank)",
            "Voyage AI 重排序接口（/rerank）",
        ),
        (Protocol::OpenAi, "cohere-rerank" | "jina-rerank") => {
            ("Rerank API (POST /rerank)", "重排序接口（/rerank）")
        }
        (Protocol::OpenAi, _) => (
            "OpenAI-compatible API (chat completions, embeddings, rerank as supported)",
            "OpenAI 兼容接口（按支持类型提供对话、向量与重排序）",
        ),
    };
    I18nText { en_us, zh_hans }
}

/// The requesters, in LangBot's (alphabetical) order.
pub fn all() -> Vec<Requester> {
    ROWS.iter()
        .map(|&(name, en, zh, support, category, base_url)| Requester {
            name,
            label: I18nText {
                en_us: en,
                zh_hans: zh,
            },
            description: description(name),
            icon: "",
            support_type: support.to_vec(),
            spec: RequesterSpec {
                config: vec![base_url_field(base_url), timeout_field()],
                support_type: support.to_vec(),
                provider_category: category,
                presets: Vec::new(),
            },
        })
        .collect()
}
