//! Config forms shared by requesters and adapters: field descriptions (served to clients) and
//! validation of a config object against them.

pub mod secrets;

use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::error::{ApiError, ApiResult};

/// A localized text.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct I18nText {
    #[serde(rename = "en_US")]
    pub en_us: &'static str,
    #[serde(rename = "zh_Hans")]
    pub zh_hans: &'static str,
}

/// A select option.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FieldOption {
    pub name: &'static str,
    pub label: I18nText,
}

/// One config field.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ConfigField {
    pub name: &'static str,
    pub label: I18nText,
    /// `string`, `url`, `ws-url`, `integer`, `boolean`, `select`, or the read-only, generated
    /// `webhook-url` and `embed-code`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub required: bool,
    #[schema(value_type = Object)]
    pub default: Value,
    /// Secret fields are masked (`***`) on read and kept when updated with `***`.
    pub secret: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<FieldOption>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimum: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum: Option<i64>,
}

impl ConfigField {
    pub const fn new(
        name: &'static str,
        en: &'static str,
        zh: &'static str,
        kind: &'static str,
    ) -> Self {
        Self {
            name,
            label: I18nText {
                en_us: en,
                zh_hans: zh,
            },
            kind,
            required: false,
            default: Value::Null,
            secret: false,
            options: None,
            minimum: None,
            maximum: None,
        }
    }

    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }

    pub fn secret(mut self) -> Self {
        self.secret = true;
        self
    }

    pub fn default(mut self, value: Value) -> Self {
        self.default = value;
        self
    }

    pub fn range(mut self, min: i64, max: i64) -> Self {
        self.minimum = Some(min);
        self.maximum = Some(max);
        self
    }

    pub fn options(mut self, options: &[(&'static str, &'static str, &'static str)]) -> Self {
        self.options = Some(
            options
                .iter()
                .map(|(name, en, zh)| FieldOption {
                    name,
                    label: I18nText {
                        en_us: en,
                        zh_hans: zh,
                    },
                })
                .collect(),
        );
        self
    }

    fn read_only(&self) -> bool {
        matches!(self.kind, "webhook-url" | "embed-code")
    }

    /// Why `value` does not fit, if it does not.
    fn problem(&self, value: &Value) -> Option<String> {
        match self.kind {
            "integer" => {
                let ok = value.as_i64().is_some_and(|n| {
                    self.minimum.is_none_or(|min| n >= min)
                        && self.maximum.is_none_or(|max| n <= max)
                });
                (!ok).then(|| match (self.minimum, self.maximum) {
                    (Some(min), Some(max)) => format!("must be an integer from {min} to {max}"),
                    _ => "must be an integer".into(),
                })
            }
            "boolean" => (!value.is_boolean()).then(|| "must be true or false".into()),
            "select" => {
                let names: Vec<&str> = self.options.iter().flatten().map(|o| o.name).collect();
                (!value.as_str().is_some_and(|s| names.contains(&s)))
                    .then(|| format!("must be one of {}", names.join(", ")))
            }
            "url" | "ws-url" => {
                let (schemes, what) = if self.kind == "url" {
                    (["http", "https"], "an http(s) URL")
                } else {
                    (["ws", "wss"], "a ws(s) URL")
                };
                match value.as_str() {
                    Some("") if !self.required => None,
                    Some(s) if s.len() <= 512 => url::Url::parse(s)
                        .ok()
                        .filter(|u| schemes.contains(&u.scheme()) && u.host_str().is_some())
                        .is_none()
                        .then(|| format!("must be {what}")),
                    _ => Some(format!("must be {what} of at most 512 characters")),
                }
            }
            _ => value
                .as_str()
                .is_none_or(|s| s.len() > 4096)
                .then(|| "must be a string of at most 4096 characters".into()),
        }
    }
}

fn field_error(path: String, why: String) -> ApiError {
    ApiError::invalid(format!("Invalid {path}: {why}")).field(path, why)
}

/// Validates `config` (named `prefix` in errors) against `fields`: unknown keys, types,
/// ranges, options, required fields. Read-only fields are dropped; defaults fill the rest; a
/// `null` is a field left unset (LangBot's forms send one for every empty field).
pub fn validate(fields: &[ConfigField], config: &Value, prefix: &str) -> ApiResult<Value> {
    let out = validate_draft(fields, config, prefix)?;
    if let Some(field) = missing_required(fields, &out) {
        return Err(field_error(
            format!("{prefix}.{}", field.name),
            "is required".into(),
        ));
    }
    Ok(out)
}

/// `validate` for a config that need not be complete yet (a bot saved disabled, to be set up
/// later, as LangBot's bot form does): every value given must fit, but required fields may be
/// left unset.
pub fn validate_draft(fields: &[ConfigField], config: &Value, prefix: &str) -> ApiResult<Value> {
    let Some(map) = config.as_object() else {
        return Err(field_error(prefix.into(), "must be an object".into()));
    };
    let mut out = Map::new();
    for (key, value) in map {
        let path = format!("{prefix}.{key}");
        let field = fields
            .iter()
            .find(|f| f.name == key)
            .ok_or_else(|| field_error(path.clone(), "is not a field of this form".into()))?;
        if field.read_only() || value.is_null() {
            continue;
        }
        if let Some(why) = field.problem(value) {
            return Err(field_error(path, why));
        }
        out.insert(key.clone(), value.clone());
    }
    for field in fields.iter().filter(|f| !f.read_only()) {
        if !is_set(out.get(field.name)) && !field.default.is_null() {
            out.insert(field.name.to_string(), field.default.clone());
        }
    }
    Ok(Value::Object(out))
}

/// The first required field a validated config leaves unset.
pub fn missing_required<'a>(fields: &'a [ConfigField], config: &Value) -> Option<&'a ConfigField> {
    fields
        .iter()
        .filter(|f| !f.read_only() && f.required && f.default.is_null())
        .find(|f| !is_set(config.get(f.name)))
}

fn is_set(value: Option<&Value>) -> bool {
    value.is_some_and(|v| !v.is_null() && v.as_str() != Some(""))
}

/// Masks the secret fields (every non-empty one becomes `***`).
pub fn mask_secrets(fields: &[ConfigField], config: &Value) -> Value {
    let mut out = config.clone();
    if let Some(map) = out.as_object_mut() {
        for field in fields.iter().filter(|f| f.secret) {
            if let Some(v) = map.get_mut(field.name) {
                *v = secrets::mask_value(v);
            }
        }
    }
    out
}

/// Replaces `***` in secret fields with the stored values (400 when nothing is stored).
pub fn restore_secrets(
    fields: &[ConfigField],
    submitted: &Value,
    stored: Option<&Value>,
    prefix: &str,
) -> ApiResult<Value> {
    let mut out = submitted.clone();
    if let Some(map) = out.as_object_mut() {
        for field in fields.iter().filter(|f| f.secret) {
            if let Some(v) = map.get_mut(field.name) {
                let path = format!("{prefix}.{}", field.name);
                *v = secrets::restore_secret(v, stored.and_then(|s| s.get(field.name)), &path)?;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields() -> Vec<ConfigField> {
        vec![
            ConfigField::new("secret", "Secret", "密钥", "string")
                .required()
                .secret(),
            ConfigField::new("timeout", "Timeout", "超时", "integer")
                .default(json!(15))
                .range(1, 120),
            ConfigField::new("mode", "Mode", "模式", "select")
                .default(json!("a"))
                .options(&[("a", "A", "A"), ("b", "B", "B")]),
            ConfigField::new("hook", "Hook", "回调", "webhook-url"),
        ]
    }

    #[test]
    fn validation_names_the_field() {
        let f = fields();
        let ok = validate(&f, &json!({"secret": "s", "hook": "ignored"}), "cfg").ok();
        assert_eq!(ok, Some(json!({"secret": "s", "timeout": 15, "mode": "a"})));
        for (bad, field) in [
            (json!({"timeout": 5}), "cfg.secret"),
            (json!({"secret": "s", "timeout": 0}), "cfg.timeout"),
            (json!({"secret": "s", "mode": "c"}), "cfg.mode"),
            (json!({"secret": "s", "nope": 1}), "cfg.nope"),
        ] {
            let err = validate(&f, &bad, "cfg")
                .err()
                .map(|e| e.errors[0].field.clone());
            assert_eq!(err.as_deref(), Some(field));
        }
    }

    #[test]
    fn secrets_are_masked_and_restored() -> ApiResult<()> {
        let f = fields();
        let stored = json!({"secret": "s3cret", "timeout": 15});
        assert_eq!(mask_secrets(&f, &stored)["secret"], "***");
        let restored = restore_secrets(&f, &json!({"secret": "***"}), Some(&stored), "cfg")?;
        assert_eq!(restored["secret"], "s3cret");
        assert!(restore_secrets(&f, &json!({"secret": "***"}), None, "cfg").is_err());
        Ok(())
    }
}
