//! Turning transport input (HTTP path/query/body or MCP arguments) into typed operation input.

use serde::de::DeserializeOwned;
use serde_json::Value;
use validator::{Validate, ValidationErrors, ValidationErrorsKind};

use super::strict::Strict;

use crate::error::{ApiError, ApiResult, ErrorCode};

/// The typed input of an operation.
#[derive(Debug, Clone)]
pub struct Input<P, Q, B> {
    pub path: P,
    pub query: Q,
    pub body: B,
}

/// LangBot's read-only or legacy body keys: accepted and ignored (SPEC §4).
pub const IGNORED_BODY_KEYS: &[&str] = &[
    "uuid",
    "workspace_uuid",
    "created_at",
    "updated_at",
    "for_version",
    "stages",
    "plugin_processors",
    "adapter_runtime_values",
];

/// Parses a JSON body; an empty body counts as `{}`.
pub fn parse_body<B: DeserializeOwned + Validate>(bytes: &[u8]) -> ApiResult<B> {
    let value = if bytes.iter().all(u8::is_ascii_whitespace) {
        Value::Object(Default::default())
    } else {
        serde_json::from_slice(bytes).map_err(|e| {
            ApiError::new(ErrorCode::InvalidJson).details(serde_json::json!({
                "line": e.line(),
                "column": e.column(),
                "reason": e.to_string(),
            }))
        })?
    };
    body_from_value(value)
}

/// Deserializes and validates a body given as JSON. LangBot's read-only keys are dropped only
/// where the body type does not declare them (so `{"uuid": …}` bodies keep working).
pub fn body_from_value<B: DeserializeOwned + Validate>(mut value: Value) -> ApiResult<B> {
    // serde would read an array as positional fields; bodies are objects.
    if !value.is_object() {
        return Err(
            ApiError::invalid("The body must be a JSON object").field("", "must be a JSON object")
        );
    }
    let body = loop {
        match serde_path_to_error::deserialize::<_, B>(Strict(value.clone())) {
            Ok(body) => break body,
            Err(e) => {
                let field = e.path().to_string();
                let legacy = IGNORED_BODY_KEYS.contains(&field.as_str())
                    && e.inner().to_string().starts_with("unknown field");
                let removed = match &mut value {
                    Value::Object(map) if legacy => map.remove(&field).is_some(),
                    _ => false,
                };
                if !removed {
                    return from_value(value, "");
                }
            }
        }
    };
    validate(&body)?;
    Ok(body)
}

/// Deserializes a JSON value, naming the failing field path (prefixed by `prefix`).
pub fn from_value<T: DeserializeOwned>(value: Value, prefix: &str) -> ApiResult<T> {
    serde_path_to_error::deserialize(Strict(value)).map_err(|e| {
        let mut path = e.path().to_string();
        let message = e.into_inner().to_string();
        // A missing field is reported at its parent: name the field itself.
        if let Some(missing) = message
            .strip_prefix("missing field `")
            .and_then(|m| m.split('`').next())
        {
            path = if path == "." {
                missing.to_string()
            } else {
                format!("{path}.{missing}")
            };
        }
        let field = match (prefix.is_empty(), path.as_str()) {
            (_, ".") => prefix.to_string(),
            (true, p) => p.to_string(),
            (false, p) => format!("{prefix}.{p}"),
        };
        ApiError::invalid(format!("Invalid input: {message}")).field(field, message)
    })
}

/// How an operation's query parameters are read: from a URL query string (HTTP) or a JSON
/// object (MCP). Every `Deserialize + Validate` type reads both the usual way; a type with
/// its own grammar implements this instead.
pub trait QueryInput: Sized + Send + 'static {
    fn from_query(query: &str) -> ApiResult<Self>;
    fn from_json(value: Value) -> ApiResult<Self>;
}

impl<T: DeserializeOwned + Validate + Send + 'static> QueryInput for T {
    fn from_query(query: &str) -> ApiResult<Self> {
        parse_query(query)
    }

    fn from_json(value: Value) -> ApiResult<Self> {
        let q = from_value::<T>(value, "")?;
        validate(&q)?;
        Ok(q)
    }
}

const EMPTY_MEANS_ANY: &[&str] = &["type"];

/// Refuses empty values (`?limit=`): a mistake, not an absent parameter, except where
/// LangBot's clients send one to mean "any" (`?type=` on catalogs).
pub fn refuse_empty_values(query: &str) -> ApiResult<()> {
    if let Some((key, _)) = url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, v)| v.is_empty() && !EMPTY_MEANS_ANY.contains(&k.as_ref()))
    {
        return Err(ApiError::invalid(format!("Query parameter {key} is empty"))
            .field(&*key, "must not be empty"));
    }
    Ok(())
}

/// Parses a URL query string.
pub fn parse_query<Q: DeserializeOwned + Validate>(query: &str) -> ApiResult<Q> {
    refuse_empty_values(query)?;
    // serde_html_form reads repeated keys (`?botId=a&botId=b`) into lists.
    let parsed: Q = serde_html_form::from_str(query)
        .map_err(|e| ApiError::invalid(format!("Invalid query parameters: {e}")))?;
    validate(&parsed)?;
    Ok(parsed)
}

/// Runs `validator` rules; every failure becomes a field error.
pub fn validate<T: Validate>(value: &T) -> ApiResult<()> {
    let Err(errors) = value.validate() else {
        return Ok(());
    };
    let mut fields = Vec::new();
    flatten(&errors, "", &mut fields);
    fields.sort();
    let summary = fields
        .iter()
        .map(|(f, m)| format!("{f}: {m}"))
        .collect::<Vec<_>>()
        .join("; ");
    let mut err = ApiError::invalid(format!("Invalid input: {summary}"));
    for (field, message) in fields {
        err = err.field(field, message);
    }
    Err(err)
}

fn flatten(errors: &ValidationErrors, prefix: &str, out: &mut Vec<(String, String)>) {
    for (name, kind) in errors.errors() {
        let path = if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}.{name}")
        };
        match kind {
            ValidationErrorsKind::Field(list) => {
                for e in list {
                    let message = match &e.message {
                        Some(m) => m.to_string(),
                        None => describe(e),
                    };
                    out.push((path.clone(), message));
                }
            }
            ValidationErrorsKind::Struct(inner) => flatten(inner, &path, out),
            ValidationErrorsKind::List(items) => {
                for (i, inner) in items {
                    flatten(inner, &format!("{path}[{i}]"), out);
                }
            }
        }
    }
}

fn describe(e: &validator::ValidationError) -> String {
    let param = |k: &str| e.params.get(k).map(|v| v.to_string());
    match e.code.as_ref() {
        "length" => match (param("min"), param("max")) {
            (Some(min), Some(max)) => format!("length must be between {min} and {max}"),
            (Some(min), None) => format!("length must be at least {min}"),
            (None, Some(max)) => format!("length must be at most {max}"),
            _ => "invalid length".into(),
        },
        "range" => match (param("min"), param("max")) {
            (Some(min), Some(max)) => format!("must be between {min} and {max}"),
            (Some(min), None) => format!("must be at least {min}"),
            (None, Some(max)) => format!("must be at most {max}"),
            _ => "out of range".into(),
        },
        "email" => "must be an email address".into(),
        "url" => "must be a URL".into(),
        code => format!("failed check {code}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, Validate)]
    #[serde(deny_unknown_fields)]
    struct Body {
        #[validate(length(min = 1, max = 5))]
        name: String,
        #[serde(default)]
        #[expect(dead_code, reason = "only deserialized")]
        nested: Option<Nested>,
    }

    #[derive(Debug, Deserialize, Validate)]
    #[serde(deny_unknown_fields)]
    struct Nested {
        #[expect(dead_code, reason = "only deserialized")]
        count: u32,
    }

    #[test]
    fn malformed_json_is_invalid_json() {
        let err = parse_body::<Body>(b"{\"name\":").err();
        assert_eq!(err.map(|e| e.code), Some(ErrorCode::InvalidJson));
    }

    #[test]
    fn legacy_keys_are_ignored_but_unknown_keys_refused() -> ApiResult<()> {
        let ok: Body = parse_body(br#"{"name":"a","uuid":"x","created_at":"y"}"#)?;
        assert_eq!(ok.name, "a");
        let err = parse_body::<Body>(br#"{"name":"a","bogus":1}"#).err();
        assert_eq!(err.map(|e| e.code), Some(ErrorCode::InvalidRequest));
        Ok(())
    }

    #[test]
    fn errors_name_the_field_path() {
        let err = parse_body::<Body>(br#"{"name":"a","nested":{"count":"x"}}"#).err();
        let fields: Vec<String> = err
            .map(|e| e.errors.into_iter().map(|f| f.field).collect())
            .unwrap_or_default();
        assert_eq!(fields, vec!["nested.count".to_string()]);
        let err = parse_body::<Body>(br#"{"name":"toolong"}"#).err();
        let fields: Vec<String> = err
            .map(|e| e.errors.into_iter().map(|f| f.field).collect())
            .unwrap_or_default();
        assert_eq!(fields, vec!["name".to_string()]);
    }
}
