//! The config form schema (`GET /pipelines/_/metadata`) and the range checks it implies.
//! Defaults come from `PipelineConfig::default()`, so the form and the template cannot drift.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::config::{
    LocalAgentConfig, PipelineConfig, LANGBOT_LOCAL_AGENT, LOCAL_AGENT, RUNNER_IDS,
};
use crate::error::{ApiError, ApiResult};

/// The kind of a config item, with its limits.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Boolean,
    Integer(i64, i64),
    Float(f64, f64),
    /// A string of at most this many characters.
    Text(usize),
    Select(&'static [&'static str]),
    /// A list of strings; `true` when each is a regular expression.
    StringList(bool),
    ModelSelector,
    Prompt,
}

struct Item {
    name: &'static str,
    en: &'static str,
    zh: &'static str,
    kind: Kind,
}

struct Stage {
    name: &'static str,
    /// Where the stage's items live in the config.
    path: &'static str,
    en: &'static str,
    zh: &'static str,
    items: &'static [Item],
}

struct Section {
    name: &'static str,
    en: &'static str,
    zh: &'static str,
    stages: &'static [Stage],
}

const fn item(name: &'static str, en: &'static str, zh: &'static str, kind: Kind) -> Item {
    Item { name, en, zh, kind }
}

/// The built-in agent's items, under either of its runner ids.
const AGENT_ITEMS: &[Item] = &[
    item(
        "model",
        "Model (primary and fallbacks)",
        "模型（主模型与备用）",
        Kind::ModelSelector,
    ),
    item("prompt", "Prompt", "提示词", Kind::Prompt),
    item(
        "max-tool-rounds",
        "Max tool-call rounds",
        "最大工具调用轮数",
        Kind::Integer(0, 50),
    ),
];

const SECTIONS: &[Section] = &[
    Section {
        name: "trigger",
        en: "Trigger",
        zh: "触发",
        stages: &[
            Stage {
                name: "group-respond-rules",
                path: "trigger.group-respond-rules",
                en: "Group respond rules",
                zh: "群响应规则",
                items: &[
                    item(
                        "at",
                        "Respond when @mentioned",
                        "被 @ 时响应",
                        Kind::Boolean,
                    ),
                    item(
                        "prefix",
                        "Respond to prefixes",
                        "响应前缀",
                        Kind::StringList(false),
                    ),
                    item(
                        "regexp",
                        "Respond to regular expressions",
                        "响应正则表达式",
                        Kind::StringList(true),
                    ),
                    item(
                        "random",
                        "Random response probability",
                        "随机响应概率",
                        Kind::Float(0.0, 1.0),
                    ),
                ],
            },
            Stage {
                name: "access-control",
                path: "trigger.access-control",
                en: "Access control",
                zh: "访问控制",
                items: &[
                    item(
                        "mode",
                        "Mode",
                        "模式",
                        Kind::Select(&["blacklist", "whitelist"]),
                    ),
                    item("blacklist", "Blacklist", "黑名单", Kind::StringList(false)),
                    item("whitelist", "Whitelist", "白名单", Kind::StringList(false)),
                ],
            },
            Stage {
                name: "ignore-rules",
                path: "trigger.ignore-rules",
                en: "Ignore rules",
                zh: "忽略规则",
                items: &[
                    item(
                        "prefix",
                        "Ignore prefixes",
                        "忽略前缀",
                        Kind::StringList(false),
                    ),
                    item(
                        "regexp",
                        "Ignore regular expressions",
                        "忽略正则表达式",
                        Kind::StringList(true),
                    ),
                ],
            },
            Stage {
                name: "message-aggregation",
                path: "trigger.message-aggregation",
                en: "Message aggregation",
                zh: "消息聚合",
                items: &[
                    item("enabled", "Enabled", "启用", Kind::Boolean),
                    item(
                        "delay",
                        "Delay (seconds)",
                        "延迟（秒）",
                        Kind::Float(1.0, 10.0),
                    ),
                ],
            },
            Stage {
                name: "misc",
                path: "trigger.misc",
                en: "Miscellaneous",
                zh: "杂项",
                items: &[item(
                    "combine-quote-message",
                    "Combine quoted messages",
                    "合并引用消息",
                    Kind::Boolean,
                )],
            },
        ],
    },
    Section {
        name: "safety",
        en: "Safety",
        zh: "安全",
        stages: &[
            Stage {
                name: "content-filter",
                path: "safety.content-filter",
                en: "Content filter",
                zh: "内容过滤",
                items: &[
                    item(
                        "scope",
                        "Scope",
                        "范围",
                        Kind::Select(&["all", "income-msg", "output-msg"]),
                    ),
                    item(
                        "check-sensitive-words",
                        "Check sensitive words",
                        "检查敏感词",
                        Kind::Boolean,
                    ),
                ],
            },
            Stage {
                name: "rate-limit",
                path: "safety.rate-limit",
                en: "Rate limit",
                zh: "速率限制",
                items: &[
                    item(
                        "window-length",
                        "Window (seconds)",
                        "窗口（秒）",
                        Kind::Integer(1, 86_400),
                    ),
                    item(
                        "limitation",
                        "Messages per window",
                        "窗口内消息数",
                        Kind::Integer(1, 100_000),
                    ),
                    item(
                        "strategy",
                        "Strategy",
                        "策略",
                        Kind::Select(&["drop", "wait"]),
                    ),
                ],
            },
        ],
    },
    Section {
        name: "ai",
        en: "AI",
        zh: "AI",
        stages: &[
            Stage {
                name: "runner",
                path: "ai.runner",
                en: "Runner",
                zh: "运行器",
                items: &[
                    item("id", "Runner", "运行器", Kind::Select(RUNNER_IDS)),
                    item(
                        "expire-time",
                        "Conversation expiry (seconds, 0 = never)",
                        "会话过期（秒，0 为永不）",
                        Kind::Integer(0, 31_536_000),
                    ),
                ],
            },
            Stage {
                name: LOCAL_AGENT,
                path: "ai.runner_config.local-agent",
                en: "Local agent",
                zh: "内置 Agent",
                items: AGENT_ITEMS,
            },
            Stage {
                name: LANGBOT_LOCAL_AGENT,
                path: "ai.runner_config.plugin:langbot-team/LocalAgent/default",
                en: "Local agent",
                zh: "内置 Agent",
                items: AGENT_ITEMS,
            },
        ],
    },
    Section {
        name: "output",
        en: "Output",
        zh: "输出",
        stages: &[
            Stage {
                name: "long-text-processing",
                path: "output.long-text-processing",
                en: "Long text",
                zh: "长文本处理",
                items: &[
                    item(
                        "threshold",
                        "Threshold (characters)",
                        "阈值（字符）",
                        Kind::Integer(0, 100_000),
                    ),
                    item(
                        "strategy",
                        "Strategy",
                        "策略",
                        Kind::Select(&["forward", "image", "none"]),
                    ),
                    item("font-path", "Font path", "字体路径", Kind::Text(512)),
                ],
            },
            Stage {
                name: "force-delay",
                path: "output.force-delay",
                en: "Reply delay",
                zh: "回复延迟",
                items: &[
                    item(
                        "min",
                        "Minimum (seconds)",
                        "最小（秒）",
                        Kind::Float(0.0, 60.0),
                    ),
                    item(
                        "max",
                        "Maximum (seconds)",
                        "最大（秒）",
                        Kind::Float(0.0, 60.0),
                    ),
                ],
            },
            Stage {
                name: "misc",
                path: "output.misc",
                en: "Miscellaneous",
                zh: "杂项",
                items: &[
                    item(
                        "exception-handling",
                        "On errors",
                        "异常处理",
                        Kind::Select(&["show-error", "show-hint", "hide"]),
                    ),
                    item("failure-hint", "Failure hint", "失败提示", Kind::Text(1000)),
                    item(
                        "at-sender",
                        "@ the sender in groups",
                        "群聊中 @ 发送者",
                        Kind::Boolean,
                    ),
                    item(
                        "quote-origin",
                        "Quote the original message",
                        "引用原消息",
                        Kind::Boolean,
                    ),
                    item(
                        "track-function-calls",
                        "Report tool calls",
                        "显示工具调用",
                        Kind::Boolean,
                    ),
                    item(
                        "remove-think",
                        "Remove thinking",
                        "移除思考过程",
                        Kind::Boolean,
                    ),
                    item(
                        "rate-limit-hint",
                        "Rate-limit hint",
                        "限速提示",
                        Kind::Text(1000),
                    ),
                    item(
                        "content-filter-hint",
                        "Content-filter hint",
                        "内容过滤提示",
                        Kind::Text(1000),
                    ),
                    item(
                        "tool-call-hint",
                        "Tool-call hint ({tools})",
                        "工具调用提示（{tools}）",
                        Kind::Text(1000),
                    ),
                    item(
                        "runner-unavailable-hint",
                        "Runner-unavailable hint",
                        "运行器不可用提示",
                        Kind::Text(1000),
                    ),
                ],
            },
        ],
    },
];

/// A localized label.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Label {
    #[serde(rename = "en_US")]
    pub en_us: String,
    #[serde(rename = "zh_Hans")]
    pub zh_hans: String,
}

fn label(en: &str, zh: &str) -> Label {
    Label {
        en_us: en.into(),
        zh_hans: zh.into(),
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OptionMeta {
    pub name: String,
    pub label: Label,
}

/// One form item.
#[derive(Debug, Serialize, ToSchema)]
pub struct ItemMeta {
    pub name: &'static str,
    pub label: Label,
    /// `boolean`, `integer`, `float`, `string`, `select`, `array[string]`,
    /// `model-fallback-selector` or `prompt-editor`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub required: bool,
    #[schema(value_type = Object)]
    pub default: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<OptionMeta>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<usize>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct StageMeta {
    pub name: &'static str,
    /// The config path of the stage's items, e.g. `trigger.access-control`.
    pub path: &'static str,
    pub label: Label,
    pub config: Vec<ItemMeta>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SectionMeta {
    pub name: &'static str,
    pub label: Label,
    pub stages: Vec<StageMeta>,
}

/// The pipeline config form.
#[derive(Debug, Serialize, ToSchema)]
pub struct PipelineMetadata {
    pub configs: Vec<SectionMeta>,
}

/// The JSON pointer of `path.name`; a runner id's `/` is escaped (RFC 6901).
fn pointer(path: &str, name: &str) -> String {
    let mut out = String::new();
    for part in path.split('.').chain([name]) {
        out.push('/');
        out.push_str(&part.replace('~', "~0").replace('/', "~1"));
    }
    out
}

/// The template with every runner's defaults, where the form reads its defaults.
fn defaults() -> Value {
    let mut defaults = serde_json::to_value(PipelineConfig::default()).unwrap_or_default();
    if let Some(configs) = defaults
        .pointer_mut("/ai/runner_config")
        .and_then(Value::as_object_mut)
    {
        let agent = serde_json::to_value(LocalAgentConfig::default()).unwrap_or_default();
        for id in RUNNER_IDS {
            configs
                .entry(id.to_string())
                .or_insert_with(|| agent.clone());
        }
    }
    defaults
}

/// The form, with the model selector listing `models` (`(uuid, name)`).
pub fn metadata(models: &[(String, String)]) -> PipelineMetadata {
    let defaults = defaults();
    let configs = SECTIONS
        .iter()
        .map(|section| SectionMeta {
            name: section.name,
            label: label(section.en, section.zh),
            stages: section
                .stages
                .iter()
                .map(|stage| StageMeta {
                    name: stage.name,
                    path: stage.path,
                    label: label(stage.en, stage.zh),
                    config: stage
                        .items
                        .iter()
                        .map(|it| {
                            let default = defaults
                                .pointer(&pointer(stage.path, it.name))
                                .cloned()
                                .unwrap_or(Value::Null);
                            let (kind, options, min, max, max_length) = match it.kind {
                                Kind::Boolean => ("boolean", None, None, None, None),
                                Kind::Integer(a, b) => {
                                    ("integer", None, Some(a as f64), Some(b as f64), None)
                                }
                                Kind::Float(a, b) => ("float", None, Some(a), Some(b), None),
                                Kind::Text(n) => ("string", None, None, None, Some(n)),
                                Kind::Select(opts) => (
                                    "select",
                                    Some(
                                        opts.iter()
                                            .map(|o| OptionMeta {
                                                name: (*o).into(),
                                                label: label(o, o),
                                            })
                                            .collect(),
                                    ),
                                    None,
                                    None,
                                    None,
                                ),
                                Kind::StringList(_) => ("array[string]", None, None, None, None),
                                Kind::ModelSelector => (
                                    "model-fallback-selector",
                                    Some(
                                        models
                                            .iter()
                                            .map(|(uuid, name)| OptionMeta {
                                                name: uuid.clone(),
                                                label: label(name, name),
                                            })
                                            .collect(),
                                    ),
                                    None,
                                    None,
                                    None,
                                ),
                                Kind::Prompt => ("prompt-editor", None, None, None, None),
                            };
                            ItemMeta {
                                name: it.name,
                                label: label(it.en, it.zh),
                                kind,
                                required: !matches!(it.kind, Kind::StringList(_) | Kind::Text(_)),
                                default,
                                options,
                                min,
                                max,
                                max_length,
                            }
                        })
                        .collect(),
                })
                .collect(),
        })
        .collect();
    PipelineMetadata { configs }
}

fn range_error(path: String, why: String) -> ApiError {
    ApiError::invalid(format!("Invalid pipeline config: {path} {why}")).field(path, why)
}

/// Checks what types cannot: ranges, lengths, regular expressions, and `min ≤ max` delays.
pub fn check_ranges(config: &Value) -> ApiResult<()> {
    for section in SECTIONS {
        for stage in section.stages {
            for it in stage.items {
                let path = format!("{}.{}", stage.path, it.name);
                let Some(value) = config.pointer(&pointer(stage.path, it.name)) else {
                    continue;
                };
                match it.kind {
                    Kind::Integer(min, max) => {
                        if value.as_i64().is_none_or(|n| n < min || n > max) {
                            return Err(range_error(
                                path,
                                format!("must be an integer from {min} to {max}"),
                            ));
                        }
                    }
                    Kind::Float(min, max) => {
                        if value.as_f64().is_none_or(|n| !(min..=max).contains(&n)) {
                            return Err(range_error(
                                path,
                                format!("must be a number from {min} to {max}"),
                            ));
                        }
                    }
                    Kind::Text(n) => {
                        if value.as_str().is_some_and(|s| s.chars().count() > n) {
                            return Err(range_error(
                                path,
                                format!("must be at most {n} characters"),
                            ));
                        }
                    }
                    Kind::StringList(regex) => {
                        let items = value.as_array().map(Vec::as_slice).unwrap_or_default();
                        if items.len() > 1000 {
                            return Err(range_error(path, "must have at most 1000 entries".into()));
                        }
                        for (i, v) in items.iter().enumerate() {
                            let s = v.as_str().unwrap_or_default();
                            if s.len() > 1024 {
                                return Err(range_error(
                                    format!("{path}[{i}]"),
                                    "must be at most 1024 bytes".into(),
                                ));
                            }
                            if regex && regex::Regex::new(s).is_err() {
                                return Err(range_error(
                                    format!("{path}[{i}]"),
                                    "is not a valid regular expression".into(),
                                ));
                            }
                        }
                    }
                    Kind::Prompt => {
                        let items = value.as_array().map(Vec::as_slice).unwrap_or_default();
                        if items.len() > 100 || value.to_string().len() > 100_000 {
                            return Err(range_error(
                                path,
                                "is too long (at most 100 messages, 100 000 characters)".into(),
                            ));
                        }
                    }
                    Kind::ModelSelector => {
                        if value["fallbacks"].as_array().is_some_and(|f| f.len() > 10) {
                            return Err(range_error(
                                format!("{path}.fallbacks"),
                                "must have at most 10 models".into(),
                            ));
                        }
                    }
                    Kind::Select(options) => {
                        if !value.as_str().is_some_and(|s| options.contains(&s)) {
                            return Err(range_error(
                                path,
                                format!("must be one of {}", options.join(", ")),
                            ));
                        }
                    }
                    Kind::Boolean => {}
                }
            }
        }
    }
    let delay = &config["output"]["force-delay"];
    if delay["min"].as_f64().unwrap_or(0.0) > delay["max"].as_f64().unwrap_or(0.0) {
        return Err(range_error(
            "output.force-delay.min".into(),
            "must not exceed output.force-delay.max".into(),
        ));
    }
    Ok(())
}

/// Every config path the form describes (for tests).
pub fn described_paths() -> Vec<String> {
    SECTIONS
        .iter()
        .flat_map(|s| s.stages.iter())
        .flat_map(|st| {
            st.items
                .iter()
                .map(move |it| format!("{}.{}", st.path, it.name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn leaf_paths(value: &Value, prefix: &str, out: &mut Vec<String>) {
        match value {
            Value::Object(map) if !prefix.ends_with(".model") => {
                for (k, v) in map {
                    let p = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    leaf_paths(v, &p, out);
                }
            }
            _ => out.push(prefix.to_string()),
        }
    }

    #[test]
    fn the_form_describes_exactly_the_config() {
        let mut leaves = Vec::new();
        leaf_paths(&defaults(), "", &mut leaves);
        let mut described = described_paths();
        leaves.sort();
        described.sort();
        assert_eq!(leaves, described);
    }

    #[test]
    fn defaults_are_within_their_ranges() {
        let config = serde_json::to_value(PipelineConfig::default()).unwrap_or_default();
        assert!(check_ranges(&config).is_ok());
        let meta = metadata(&[]);
        let json = serde_json::to_value(&meta).unwrap_or_default();
        assert_eq!(
            json["configs"][0]["stages"][0]["config"][0]["default"],
            json!(true)
        );
    }
}
