//! Secret masking (`***`) and preservation on update (reference providers_models §3), for
//! every form with secret fields (provider configs and keys, bot adapter configs).

use serde_json::{Map, Value};

use crate::error::{ApiError, ApiResult};

pub const MASK: &str = "***";

fn normalize(key: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if c.is_uppercase() && prev_lower {
            out.push('_');
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        out.push(if c.is_alphanumeric() {
            c.to_ascii_lowercase()
        } else {
            '_'
        });
    }
    out.trim_matches('_').to_string()
}

/// Whether a field name denotes a secret (`api_key`, `Authorization`, `client_secret` …).
pub fn is_sensitive_key(key: &str) -> bool {
    const NAMES: &[&str] = &[
        "api_key",
        "api_keys",
        "apikey",
        "apikeys",
        "auth",
        "authorization",
        "cookie",
        "credentials",
        "database_url",
        "dsn",
        "header_value",
        "key",
        "proxy_authorization",
        "set_cookie",
        "webhook_url",
    ];
    const TOKENS: &[&str] = &[
        "apikey",
        "credential",
        "credentials",
        "passwd",
        "password",
        "secret",
        "token",
    ];
    const KEY_QUALIFIERS: &[&str] = &[
        "access",
        "api",
        "auth",
        "bearer",
        "client",
        "debug",
        "encryption",
        "private",
        "signing",
    ];
    let name = normalize(key);
    if NAMES.contains(&name.as_str()) {
        return true;
    }
    let tokens: Vec<&str> = name.split('_').filter(|t| !t.is_empty()).collect();
    if tokens.iter().any(|t| TOKENS.contains(t)) {
        return true;
    }
    tokens.iter().any(|t| *t == "key" || *t == "keys")
        && tokens.iter().any(|t| KEY_QUALIFIERS.contains(t))
}

/// Shape-preserving mask: every non-empty leaf becomes `***`.
pub fn mask_value(value: &Value) -> Value {
    match value {
        Value::Null => Value::Null,
        Value::String(s) if s.is_empty() => value.clone(),
        Value::Array(items) => Value::Array(items.iter().map(mask_value).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), mask_value(v)))
                .collect(),
        ),
        _ => Value::String(MASK.into()),
    }
}

/// Masks the values of sensitive keys, recursively.
pub fn redact(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        if is_sensitive_key(k) {
                            mask_value(v)
                        } else {
                            redact(v)
                        },
                    )
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact).collect()),
        other => other.clone(),
    }
}

fn no_stored(path: &str) -> ApiError {
    ApiError::invalid("Masked secret has no existing value")
        .field(path, "is `***` but nothing is stored")
}

/// Replaces `***` leaves of a secret value with the stored counterpart (objects by key, lists
/// by index); a mask without a stored value is a 400.
pub fn restore_secret(submitted: &Value, stored: Option<&Value>, path: &str) -> ApiResult<Value> {
    match submitted {
        Value::String(s) if s == MASK => stored
            .filter(|v| !v.is_null())
            .cloned()
            .ok_or_else(|| no_stored(path)),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                restore_secret(item, stored.and_then(|s| s.get(i)), &format!("{path}[{i}]"))
            })
            .collect::<ApiResult<Vec<_>>>()
            .map(Value::Array),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| {
                Ok((
                    k.clone(),
                    restore_secret(v, stored.and_then(|s| s.get(k)), &format!("{path}.{k}"))?,
                ))
            })
            .collect::<ApiResult<Map<_, _>>>()
            .map(Value::Object),
        other => Ok(other.clone()),
    }
}

/// Restores masks inside the sensitive keys of an object (e.g. a model's `extra_args`).
pub fn restore_sensitive(
    submitted: &Value,
    stored: Option<&Value>,
    path: &str,
) -> ApiResult<Value> {
    match submitted {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| {
                let inner = stored.and_then(|s| s.get(k));
                let child = format!("{path}.{k}");
                let restored = if is_sensitive_key(k) {
                    restore_secret(v, inner, &child)?
                } else {
                    restore_sensitive(v, inner, &child)?
                };
                Ok((k.clone(), restored))
            })
            .collect::<ApiResult<Map<_, _>>>()
            .map(Value::Object),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                restore_sensitive(item, stored.and_then(|s| s.get(i)), &format!("{path}[{i}]"))
            })
            .collect::<ApiResult<Vec<_>>>()
            .map(Value::Array),
        other => Ok(other.clone()),
    }
}

/// Masks the credentials a URL may carry: userinfo and secret-looking query values.
pub fn redact_url(raw: &str) -> String {
    let Ok(mut url) = url::Url::parse(raw) else {
        return if raw.is_empty() {
            String::new()
        } else {
            MASK.into()
        };
    };
    if !url.username().is_empty() || url.password().is_some() {
        let _ = url.set_username(MASK);
        let _ = url.set_password(None);
    }
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    if pairs
        .iter()
        .any(|(k, _)| is_sensitive_key(k) || ["code", "sig", "signature"].contains(&k.as_str()))
    {
        let masked: Vec<(String, String)> = pairs
            .into_iter()
            .map(|(k, v)| {
                let secret =
                    is_sensitive_key(&k) || ["code", "sig", "signature"].contains(&k.as_str());
                (
                    k,
                    if secret && !v.is_empty() {
                        MASK.into()
                    } else {
                        v
                    },
                )
            })
            .collect();
        url.query_pairs_mut().clear().extend_pairs(masked);
    }
    url.to_string().replace("%2A%2A%2A", MASK)
}

/// Removes every occurrence of `secrets` from a text (upstream messages may echo keys).
pub fn scrub(text: &str, secrets: &[String]) -> String {
    secrets
        .iter()
        .filter(|s| s.len() >= 4)
        .fold(text.to_string(), |acc, s| acc.replace(s.as_str(), MASK))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sensitive_keys() {
        for k in [
            "api_key",
            "apiKey",
            "Authorization",
            "client_secret",
            "x-access-key",
            "password",
            "token",
        ] {
            assert!(is_sensitive_key(k), "{k}");
        }
        for k in ["max_tokens", "temperature", "model", "keyword", "tokens"] {
            assert!(!is_sensitive_key(k), "{k}");
        }
    }

    #[test]
    fn redaction_keeps_shape() {
        let v = json!({"temperature": 0.1, "extra_headers": {"Authorization": "Bearer x", "X-Trace": "1"}, "api_key": ""});
        let r = redact(&v);
        assert_eq!(
            r,
            json!({"temperature": 0.1, "extra_headers": {"Authorization": "***", "X-Trace": "1"}, "api_key": ""})
        );
    }

    #[test]
    fn masks_are_restored_from_what_is_stored() -> ApiResult<()> {
        let stored = json!(["k1", "k2"]);
        assert_eq!(
            restore_secret(&json!(["***", "new"]), Some(&stored), "api_keys")?,
            json!(["k1", "new"])
        );
        assert!(restore_secret(&json!(["k", "k", "***"]), Some(&stored), "api_keys").is_err());
        let stored = json!({"extra_headers": {"Authorization": "Bearer s"}});
        let sub = json!({"extra_headers": {"Authorization": "***"}, "note": "***"});
        let out = restore_sensitive(&sub, Some(&stored), "extra_args")?;
        assert_eq!(
            out,
            json!({"extra_headers": {"Authorization": "Bearer s"}, "note": "***"})
        );
        Ok(())
    }

    #[test]
    fn urls_lose_their_credentials() {
        assert_eq!(
            redact_url("https://u:p@h.example/v1?token=abc&region=sg"),
            "https://***@h.example/v1?token=***&region=sg"
        );
        assert_eq!(redact_url("https://h.example/v1"), "https://h.example/v1");
    }

    #[test]
    fn scrub_removes_keys() {
        assert_eq!(
            scrub("bad key sk-12345 given", &["sk-12345".into()]),
            "bad key *** given"
        );
    }
}
