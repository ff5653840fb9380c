//! Validated values that many inputs share, so each rule is written once.

use serde::{Deserialize, Deserializer};

/// LangBot's name columns hold 255 characters.
pub const NAME_MAX: usize = 255;

/// A name: at most 255 characters, not blank, stored trimmed. Fields declare it to the
/// OpenAPI document with `#[schema(value_type = String)]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name(String);

impl Name {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        if raw.is_empty() || raw.chars().count() > NAME_MAX {
            return Err(serde::de::Error::custom(format!(
                "length must be between 1 and {NAME_MAX}"
            )));
        }
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            return Err(serde::de::Error::custom("must not be blank"));
        }
        Ok(Self(trimmed.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::Name;

    #[test]
    fn names_are_trimmed_bounded_and_not_blank() {
        let parse = |v: serde_json::Value| serde_json::from_value::<Name>(v).ok();
        assert_eq!(
            parse(serde_json::json!("  Bot ")).map(Name::into_inner),
            Some("Bot".into())
        );
        assert_eq!(parse(serde_json::json!("   ")), None);
        assert_eq!(parse(serde_json::json!("")), None);
        assert!(parse(serde_json::json!("é".repeat(255))).is_some());
        assert_eq!(parse(serde_json::json!("a".repeat(256))), None);
    }
}
