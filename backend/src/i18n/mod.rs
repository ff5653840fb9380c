//! Message languages (SPEC §6) and the translation of user-facing error messages.

mod messages;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A Workspace message language; exactly the eight LangBot supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, ToSchema)]
pub enum Language {
    #[default]
    #[serde(rename = "en_US")]
    EnUs,
    #[serde(rename = "zh_Hans")]
    ZhHans,
    #[serde(rename = "zh_Hant")]
    ZhHant,
    #[serde(rename = "ja_JP")]
    JaJp,
    #[serde(rename = "es_ES")]
    EsEs,
    #[serde(rename = "ru_RU")]
    RuRu,
    #[serde(rename = "th_TH")]
    ThTh,
    #[serde(rename = "vi_VN")]
    ViVn,
}

impl Language {
    pub const ALL: [Language; 8] = [
        Self::EnUs,
        Self::ZhHans,
        Self::ZhHant,
        Self::JaJp,
        Self::EsEs,
        Self::RuRu,
        Self::ThTh,
        Self::ViVn,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::EnUs => "en_US",
            Self::ZhHans => "zh_Hans",
            Self::ZhHant => "zh_Hant",
            Self::JaJp => "ja_JP",
            Self::EsEs => "es_ES",
            Self::RuRu => "ru_RU",
            Self::ThTh => "th_TH",
            Self::ViVn => "vi_VN",
        }
    }

    /// Exact match on the stored/requested code; anything else is `None`.
    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.as_str() == value)
    }

    /// Translates an English message; English text is the catalog key, and a missing
    /// translation falls back to the English text.
    pub fn translate(self, english: &str) -> &str {
        messages::lookup(self, english).unwrap_or(english)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn every_error_code_has_a_simplified_chinese_message() {
        for code in ErrorCode::ALL {
            let english = code.default_message();
            let zh = Language::ZhHans.translate(english);
            assert_ne!(zh, english, "no zh_Hans message for {}", code.as_str());
            assert_eq!(Language::EnUs.translate(english), english);
        }
    }

    #[test]
    fn languages_round_trip() {
        for lang in Language::ALL {
            assert_eq!(Language::parse(lang.as_str()), Some(lang));
        }
        assert_eq!(Language::parse("en"), None);
    }
}
