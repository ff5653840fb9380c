//! Opaque tokens (`lbs_` sessions, `lbk_` API keys, `lbi_` invitations) and their hashes.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

pub const SESSION_PREFIX: &str = "lbs_";
pub const API_KEY_PREFIX: &str = "lbk_";
pub const INVITATION_PREFIX: &str = "lbi_";

/// `prefix` + 43 url-safe base64 characters (32 random bytes).
pub fn generate(prefix: &str) -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("{prefix}{}", URL_SAFE_NO_PAD.encode(bytes))
}

/// Whether `token` has the shape `generate(prefix)` produces.
pub fn well_formed(token: &str, prefix: &str) -> bool {
    token.len() == prefix.len() + 43
        && token.starts_with(prefix)
        && token[prefix.len()..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// SHA-256 of the whole token, lowercase hex: what is stored instead of the token.
pub fn hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// Constant-time equality (for the global key).
pub fn equal(a: &str, b: &str) -> bool {
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_have_the_documented_shape() {
        let t = generate(API_KEY_PREFIX);
        assert_eq!(t.len(), 47);
        assert!(well_formed(&t, API_KEY_PREFIX));
        assert!(!well_formed(&t, SESSION_PREFIX));
        assert!(!well_formed("lbk_short", API_KEY_PREFIX));
        assert_ne!(generate(API_KEY_PREFIX), t);
        assert_eq!(hash(&t).len(), 64);
    }

    #[test]
    fn equal_compares_whole_strings() {
        assert!(equal("abc", "abc"));
        assert!(!equal("abc", "abd"));
        assert!(!equal("abc", "abcd"));
    }
}
