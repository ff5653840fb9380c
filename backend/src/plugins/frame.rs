//! Stdio framing of the plugin runtime's control connection (Part B2): one JSON message per
//! line up to 16 KiB, larger ones as `chunk_start` / `chunk_data` / `chunk_end` lines. The
//! runtime reads its stdin with a 64 KiB line limit and drops the connection on a longer
//! line, so everything larger is chunked here too.

use serde_json::{json, Value};

/// A message at most this long (UTF-8 bytes) goes as one line; longer ones are chunked.
pub const LINE_MAX: usize = 16 * 1024;
/// One logical message (both directions).
pub const MESSAGE_MAX: usize = 16 * 1024 * 1024;
/// Fragments of one chunked message.
pub const FRAGMENTS_MAX: usize = 4096;

/// The lines (without `\n`) that carry `text`.
pub fn encode(text: &str) -> Vec<String> {
    if text.len() <= LINE_MAX {
        return vec![text.to_string()];
    }
    let mut lines = vec![json!({"type": "chunk_start", "total_size": text.len()}).to_string()];
    let mut offset = 0;
    while offset < text.len() {
        // Pieces end on a code-point boundary.
        let mut end = (offset + LINE_MAX).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        lines.push(
            json!({"type": "chunk_data", "data": &text[offset..end], "offset": offset}).to_string(),
        );
        offset = end;
    }
    lines.push(json!({"type": "chunk_end"}).to_string());
    lines
}

/// Why the peer's framing is broken (the connection is then closed, as the runtime does).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("chunk_data at offset {got} where {expected} bytes were received")]
    Offset { expected: usize, got: usize },
    #[error("chunked message of {0} bytes is over the 16 MiB limit")]
    TooLarge(usize),
    #[error("chunked message has more than 4096 fragments")]
    TooManyFragments,
    #[error("chunk_end after {got} of {expected} bytes")]
    Short { expected: usize, got: usize },
    #[error("{0} outside a chunked message")]
    Stray(&'static str),
}

/// Reassembles messages from lines.
#[derive(Debug, Default)]
pub struct Decoder {
    pending: Option<Pending>,
}

#[derive(Debug)]
struct Pending {
    total: usize,
    text: String,
    fragments: usize,
}

impl Decoder {
    /// Feeds one line; answers a complete message when the line ends one. Lines that are not
    /// a JSON object (stray prints) are skipped, as the runtime skips them.
    pub fn feed(&mut self, line: &str) -> Result<Option<Value>, FrameError> {
        let line = line.trim();
        if !(line.starts_with('{') && line.ends_with('}')) {
            return Ok(None);
        }
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            return Ok(None);
        };
        match value.get("type").and_then(Value::as_str) {
            Some("chunk_start") => {
                let total = value["total_size"].as_u64().unwrap_or(0) as usize;
                if total > MESSAGE_MAX {
                    return Err(FrameError::TooLarge(total));
                }
                self.pending = Some(Pending {
                    total,
                    text: String::with_capacity(total),
                    fragments: 0,
                });
                Ok(None)
            }
            Some("chunk_data") => {
                let p = self
                    .pending
                    .as_mut()
                    .ok_or(FrameError::Stray("chunk_data"))?;
                let offset = value["offset"].as_u64().unwrap_or(u64::MAX) as usize;
                if offset != p.text.len() {
                    return Err(FrameError::Offset {
                        expected: p.text.len(),
                        got: offset,
                    });
                }
                p.fragments += 1;
                if p.fragments > FRAGMENTS_MAX {
                    return Err(FrameError::TooManyFragments);
                }
                p.text.push_str(value["data"].as_str().unwrap_or_default());
                if p.text.len() > p.total {
                    return Err(FrameError::TooLarge(p.text.len()));
                }
                Ok(None)
            }
            Some("chunk_end") => {
                let p = self.pending.take().ok_or(FrameError::Stray("chunk_end"))?;
                if p.text.len() != p.total {
                    return Err(FrameError::Short {
                        expected: p.total,
                        got: p.text.len(),
                    });
                }
                Ok(serde_json::from_str(&p.text).ok())
            }
            _ => Ok(Some(value)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(text: &str) -> Option<Value> {
        let mut d = Decoder::default();
        let mut out = None;
        for line in encode(text) {
            assert!(
                line.len() < 64 * 1024,
                "every line fits the runtime's limit"
            );
            if let Some(v) = d.feed(&line).ok().flatten() {
                out = Some(v);
            }
        }
        out
    }

    #[test]
    fn small_messages_are_one_line() {
        let text = json!({"seq_id": 1, "action": "__ping", "data": {}}).to_string();
        assert_eq!(encode(&text), vec![text.clone()]);
        assert_eq!(roundtrip(&text), serde_json::from_str(&text).ok());
    }

    #[test]
    fn large_messages_are_chunked_on_char_boundaries() {
        // Multi-byte characters straddle every 16 KiB boundary somewhere.
        let big = "é漢字🙂".repeat(20_000);
        let text =
            json!({"seq_id": 2, "code": 0, "message": "success", "data": {"v": big}}).to_string();
        let lines = encode(&text);
        assert!(lines.len() > 3);
        assert_eq!(roundtrip(&text), serde_json::from_str(&text).ok());
    }

    #[test]
    fn stray_lines_are_skipped_and_broken_chunks_refused() {
        let mut d = Decoder::default();
        assert_eq!(d.feed("hello from print()"), Ok(None));
        assert_eq!(d.feed("{not json}"), Ok(None));
        assert!(d
            .feed(r#"{"type":"chunk_data","data":"x","offset":0}"#)
            .is_err());
        assert_eq!(d.feed(r#"{"type":"chunk_start","total_size":4}"#), Ok(None));
        assert!(matches!(
            d.feed(r#"{"type":"chunk_data","data":"ab","offset":1}"#),
            Err(FrameError::Offset { .. })
        ));
        let mut d = Decoder::default();
        assert_eq!(d.feed(r#"{"type":"chunk_start","total_size":4}"#), Ok(None));
        assert_eq!(
            d.feed(r#"{"type":"chunk_data","data":"{}","offset":0}"#),
            Ok(None)
        );
        assert!(matches!(
            d.feed(r#"{"type":"chunk_end"}"#),
            Err(FrameError::Short { .. })
        ));
        assert!(d
            .feed(&json!({"type":"chunk_start","total_size": MESSAGE_MAX + 1}).to_string())
            .is_err());
    }

    /// Every runtime line of the recorded exchange with a real `lbp rt` decodes as a message.
    #[test]
    fn the_recorded_transcript_decodes() {
        let transcript = include_str!("../../../tests/fixtures/plugin_runtime/transcript.log");
        let mut d = Decoder::default();
        let mut messages = 0;
        for line in transcript.lines() {
            if let Some(rest) = line.strip_prefix("R> ") {
                let v = d.feed(rest).ok().flatten();
                let v = v.unwrap_or(Value::Null);
                assert!(super::super::wire::classify(v).is_some(), "{rest}");
                messages += 1;
            }
        }
        assert!(messages > 20, "{messages}");
    }
}
