//! The pipeline stages as small, separately testable units: trigger (group respond rules,
//! access control, ignore rules), safety (rate limit) and output (think removal, long text,
//! mentions, delay, failure hints).

use std::time::Duration;

use rand::Rng;
use regex::Regex;

use super::message::{Segment, SessionType};
use crate::i18n::Language;
use crate::pipelines::config::{
    AccessControl, AccessMode, ExceptionHandling, ForceDelay, GroupRespondRules, IgnoreRules,
    LongTextStrategy, OutputConfig, RateLimit, RateStrategy,
};
use crate::session_store::{SessionStore, StoreResult};

/// Group respond rules: the text to answer (the prefix removed), or `None` to stay silent.
/// Private chats always pass.
pub fn respond_rules(
    rules: &GroupRespondRules,
    kind: SessionType,
    text: &str,
    is_at_bot: bool,
) -> Option<String> {
    if kind == SessionType::Person {
        return Some(text.to_string());
    }
    if rules.at && is_at_bot {
        return Some(text.trim().to_string());
    }
    if let Some(p) = rules
        .prefix
        .iter()
        .find(|p| !p.is_empty() && text.starts_with(p.as_str()))
    {
        return Some(text[p.len()..].trim().to_string());
    }
    if rules
        .regexp
        .iter()
        .any(|r| Regex::new(r).is_ok_and(|re| re.is_match(text)))
    {
        return Some(text.to_string());
    }
    (rules.random > 0.0 && rand::rng().random::<f64>() < rules.random).then(|| text.to_string())
}

/// Whether an access-control entry names this session: `person_<id>`, `group_<id>`,
/// `person_*`, `group_*`, or `*_<id>` (the chat or the sender).
fn entry_matches(entry: &str, kind: SessionType, chat_id: &str, sender_id: &str) -> bool {
    let Some((scope, id)) = entry.split_once('_') else {
        return false;
    };
    let kind_ok = scope == "*" || scope == kind.as_str();
    kind_ok && (id == "*" || id == chat_id || (scope == "*" && id == sender_id))
}

/// Access control: black- or whitelist of sessions.
pub fn access_allowed(
    ac: &AccessControl,
    kind: SessionType,
    chat_id: &str,
    sender_id: &str,
) -> bool {
    let listed = |list: &[String]| {
        list.iter()
            .any(|e| entry_matches(e, kind, chat_id, sender_id))
    };
    match ac.mode {
        AccessMode::Blacklist => !listed(&ac.blacklist),
        AccessMode::Whitelist => listed(&ac.whitelist),
    }
}

/// Ignore rules: messages starting with an ignored prefix or matching an ignored pattern.
pub fn ignored(rules: &IgnoreRules, text: &str) -> bool {
    rules
        .prefix
        .iter()
        .any(|p| !p.is_empty() && text.starts_with(p.as_str()))
        || rules
            .regexp
            .iter()
            .any(|r| Regex::new(r).is_ok_and(|re| re.is_match(text)))
}

/// What the rate limit decided.
#[derive(Debug, PartialEq, Eq)]
pub enum RateDecision {
    Allowed,
    /// Over the limit with the `drop` strategy.
    Dropped,
}

/// Counts the message in the session's window; with `wait`, sleeps until a new window opens.
pub async fn rate_limit(
    store: &dyn SessionStore,
    key: &str,
    cfg: &RateLimit,
) -> StoreResult<RateDecision> {
    let window = Duration::from_secs(cfg.window_length.max(1));
    for _ in 0..3 {
        let count = store.incr(key, 1, window).await?;
        if u64::try_from(count).unwrap_or(0) <= cfg.limitation {
            return Ok(RateDecision::Allowed);
        }
        match cfg.strategy {
            RateStrategy::Drop => return Ok(RateDecision::Dropped),
            RateStrategy::Wait => {
                let left = store.ttl(key).await?.unwrap_or(window);
                tokio::time::sleep(left.min(window) + Duration::from_millis(10)).await;
            }
        }
    }
    Ok(RateDecision::Dropped)
}

/// Removes `<think>…</think>` blocks.
pub fn remove_think(text: &str) -> String {
    let re = Regex::new(r"(?s)<think>.*?</think>").ok();
    re.map(|re| re.replace_all(text, "").trim().to_string())
        .unwrap_or_else(|| text.to_string())
}

/// Splits `text` into parts of at most `limit` characters.
fn split(text: &str, limit: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(limit.max(1))
        .map(|c| c.iter().collect())
        .collect()
}

/// The replies for an answer: think removal, long-text handling (`forward` sends parts of
/// `threshold` characters as separate replies), and an @mention of the sender in groups. The
/// answer's inline images (`data:image/…;base64,`) follow the text as `Image` segments of the
/// last reply; a malformed data URL or a URL to fetch is dropped.
pub fn replies(
    out: &OutputConfig,
    text: &str,
    images: &[String],
    kind: SessionType,
    sender_id: &str,
) -> Vec<Vec<Segment>> {
    let text = if out.misc.remove_think {
        remove_think(text)
    } else {
        text.to_string()
    };
    let images: Vec<Segment> = images.iter().filter_map(|u| image_segment(u)).collect();
    let threshold = usize::try_from(out.long_text_processing.threshold).unwrap_or(usize::MAX);
    let parts = match out.long_text_processing.strategy {
        LongTextStrategy::Forward if threshold > 0 && text.chars().count() > threshold => {
            split(&text, threshold)
        }
        _ if text.is_empty() && !images.is_empty() => Vec::new(),
        _ => vec![text],
    };
    let mut replies: Vec<Vec<Segment>> = parts
        .into_iter()
        .map(|part| vec![Segment::plain(part)])
        .collect();
    if !images.is_empty() {
        match replies.last_mut() {
            Some(last) => last.extend(images),
            None => replies.push(images),
        }
    }
    if kind == SessionType::Group && out.misc.at_sender {
        if let Some(first) = replies.first_mut() {
            first.insert(0, Segment::at(sender_id));
        }
    }
    replies
}

/// The segment of an answer's image: a data URL's bytes (as base64). An http(s) URL is not
/// sent: several adapters download an image to upload it, so a prompt could otherwise make
/// the server fetch an internal address and post what it got into the chat.
fn image_segment(url: &str) -> Option<Segment> {
    let url = url.trim();
    if url.starts_with("http://") || url.starts_with("https://") {
        tracing::info!("an image URL in the model's answer is not sent (only inline images are)");
        return None;
    }
    let (head, data) = url.split_once(',')?;
    let mime = head.strip_prefix("data:")?.strip_suffix(";base64")?;
    if !mime.starts_with("image/") {
        return None;
    }
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .ok()?;
    (!bytes.is_empty()).then(|| Segment::image_base64(data.trim()))
}

/// The reply sent when a turn fails, per `exception-handling`.
pub fn failure_reply(out: &OutputConfig, lang: Language, error: &str) -> Option<String> {
    match out.misc.exception_handling {
        ExceptionHandling::Hide => None,
        ExceptionHandling::ShowError => Some(format!("Error: {error}")),
        ExceptionHandling::ShowHint if !out.misc.failure_hint.is_empty() => {
            Some(out.misc.failure_hint.clone())
        }
        ExceptionHandling::ShowHint => Some(lang.translate(DEFAULT_FAILURE_HINT).to_string()),
    }
}

pub const DEFAULT_FAILURE_HINT: &str = "The request failed, please try again later.";
pub const DEFAULT_RATE_LIMIT_HINT: &str = "You are sending messages too fast, please slow down.";

/// The rate-limit hint (configured, else the default in the Workspace language).
pub fn rate_limit_hint(out: &OutputConfig, lang: Language) -> String {
    if out.misc.rate_limit_hint.is_empty() {
        lang.translate(DEFAULT_RATE_LIMIT_HINT).to_string()
    } else {
        out.misc.rate_limit_hint.clone()
    }
}

/// A random delay within `[min, max]` seconds before replying.
pub fn delay(d: &ForceDelay) -> Duration {
    if d.max <= 0.0 || d.max < d.min {
        return Duration::ZERO;
    }
    let secs = if d.max > d.min {
        rand::rng().random_range(d.min..=d.max)
    } else {
        d.min
    };
    Duration::from_secs_f64(secs.max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipelines::config::PipelineConfig;

    #[test]
    fn group_rules_need_a_mention_prefix_or_pattern() {
        let rules = GroupRespondRules {
            at: true,
            prefix: vec!["ai".into()],
            regexp: vec!["^hey".into()],
            random: 0.0,
        };
        assert_eq!(
            respond_rules(&rules, SessionType::Person, "anything", false).as_deref(),
            Some("anything")
        );
        assert_eq!(
            respond_rules(&rules, SessionType::Group, "hello", true).as_deref(),
            Some("hello")
        );
        assert_eq!(
            respond_rules(&rules, SessionType::Group, "ai what?", false).as_deref(),
            Some("what?")
        );
        assert!(respond_rules(&rules, SessionType::Group, "hey you", false).is_some());
        assert!(respond_rules(&rules, SessionType::Group, "hello", false).is_none());
    }

    #[test]
    fn access_lists() {
        let black = AccessControl {
            mode: AccessMode::Blacklist,
            blacklist: vec!["person_7".into(), "group_*".into()],
            whitelist: vec![],
        };
        assert!(!access_allowed(&black, SessionType::Person, "7", "7"));
        assert!(access_allowed(&black, SessionType::Person, "8", "8"));
        assert!(!access_allowed(&black, SessionType::Group, "g", "8"));
        let white = AccessControl {
            mode: AccessMode::Whitelist,
            blacklist: vec![],
            whitelist: vec!["*_u1".into()],
        };
        assert!(access_allowed(&white, SessionType::Group, "g", "u1"));
        assert!(!access_allowed(&white, SessionType::Group, "g", "u2"));
    }

    #[test]
    fn ignore_rules() {
        let rules = IgnoreRules {
            prefix: vec!["/".into()],
            regexp: vec!["spam$".into()],
        };
        assert!(ignored(&rules, "/cmd"));
        assert!(ignored(&rules, "buy spam"));
        assert!(!ignored(&rules, "hello"));
    }

    #[test]
    fn output_shapes_replies() {
        let mut out = PipelineConfig::default().output;
        out.misc.remove_think = true;
        out.long_text_processing.strategy = LongTextStrategy::Forward;
        out.long_text_processing.threshold = 4;
        let r = replies(
            &out,
            "<think>x</think>abcdefghij",
            &[],
            SessionType::Group,
            "u1",
        );
        assert_eq!(r.len(), 3);
        assert_eq!(r[0][0], Segment::at("u1"));
        assert_eq!(r[2], vec![Segment::plain("ij")]);
        let images = [
            "data:image/png;base64,iVBORw0KGgo=".to_string(),
            "https://img.example/a.png".to_string(),
            "data:image/png;base64,***".to_string(),
            "data:text/plain;base64,aGk=".to_string(),
            "ftp://img.example/a.png".to_string(),
        ];
        let r = replies(&out, "abcdef", &images, SessionType::Group, "u1");
        assert_eq!(r.len(), 2);
        assert_eq!(
            r[1],
            vec![Segment::plain("ef"), Segment::image_base64("iVBORw0KGgo=")]
        );
        let r = replies(&out, "", &images[..1], SessionType::Group, "u1");
        assert_eq!(
            r,
            vec![vec![
                Segment::at("u1"),
                Segment::image_base64("iVBORw0KGgo=")
            ]]
        );
        out.misc.exception_handling = ExceptionHandling::Hide;
        assert_eq!(failure_reply(&out, Language::EnUs, "boom"), None);
        out.misc.exception_handling = ExceptionHandling::ShowError;
        assert_eq!(
            failure_reply(&out, Language::EnUs, "boom").as_deref(),
            Some("Error: boom")
        );
        out.misc.exception_handling = ExceptionHandling::ShowHint;
        assert_eq!(
            failure_reply(&out, Language::ZhHans, "boom").as_deref(),
            Some("请求失败，请稍后重试。")
        );
    }

    #[tokio::test]
    async fn rate_limit_drops_over_the_limit() -> StoreResult<()> {
        let store = crate::session_store::MemoryStore::new();
        let cfg = RateLimit {
            window_length: 60,
            limitation: 2,
            strategy: RateStrategy::Drop,
        };
        assert_eq!(rate_limit(&store, "k", &cfg).await?, RateDecision::Allowed);
        assert_eq!(rate_limit(&store, "k", &cfg).await?, RateDecision::Allowed);
        assert_eq!(rate_limit(&store, "k", &cfg).await?, RateDecision::Dropped);
        Ok(())
    }
}
