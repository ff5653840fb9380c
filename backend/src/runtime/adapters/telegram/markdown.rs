//! The Markdown a model writes, as the HTML subset Telegram renders (`parse_mode: HTML`):
//! code blocks, inline code, bold, italic, strikethrough, links and headings; everything
//! else escaped.

use std::sync::LazyLock;

use regex::Regex;

pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

static FENCE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?s)```[A-Za-z0-9_+-]*\n?(.*?)```").ok());
static INLINE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"`([^`\n]+)`").ok());
static RULES: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (
            r"\[([^\]\n]+)\]\((https?://[^)\s]+)\)",
            "<a href=\"$2\">$1</a>",
        ),
        (r"\*\*([^*\n]+)\*\*", "<b>$1</b>"),
        (r"__([^_\n]+)__", "<b>$1</b>"),
        (r"~~([^~\n]+)~~", "<s>$1</s>"),
        (r"(^|[^*\w])\*([^*\s]|[^*\s][^*\n]*[^*\s])\*", "$1<i>$2</i>"),
        (r"(^|[^_\w])_([^_\s]|[^_\s][^_\n]*[^_\s])_", "$1<i>$2</i>"),
        (r"(?m)^#{1,6}\s+(.+)$", "<b>$1</b>"),
    ]
    .into_iter()
    .filter_map(|(pattern, with)| Regex::new(pattern).ok().map(|re| (re, with)))
    .collect()
});

fn inline(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(m) = INLINE.as_ref().and_then(|re| re.captures(rest)) {
        let (Some(all), Some(code)) = (m.get(0), m.get(1)) else {
            break;
        };
        out.push_str(&styled(&rest[..all.start()]));
        out.push_str(&format!("<code>{}</code>", escape(code.as_str())));
        rest = &rest[all.end()..];
    }
    out.push_str(&styled(rest));
    out
}

fn styled(text: &str) -> String {
    RULES.iter().fold(escape(text), |acc, (re, with)| {
        re.replace_all(&acc, *with).into_owned()
    })
}

/// Telegram HTML for `markdown`.
pub fn to_html(markdown: &str) -> String {
    let mut out = String::new();
    let mut rest = markdown;
    while let Some(m) = FENCE.as_ref().and_then(|re| re.captures(rest)) {
        let (Some(all), Some(code)) = (m.get(0), m.get(1)) else {
            break;
        };
        out.push_str(&inline(&rest[..all.start()]));
        out.push_str(&format!(
            "<pre><code>{}</code></pre>",
            escape(code.as_str().trim_end())
        ));
        rest = &rest[all.end()..];
    }
    out.push_str(&inline(rest));
    out
}

#[cfg(test)]
mod tests {
    use super::to_html;

    #[test]
    fn markdown_becomes_telegram_html() {
        assert_eq!(
            to_html("**bold** and *it* <x>"),
            "<b>bold</b> and <i>it</i> &lt;x&gt;"
        );
        assert_eq!(to_html("use `a<b` here"), "use <code>a&lt;b</code> here");
        assert_eq!(
            to_html("```rust\nfn x() {}\n```"),
            "<pre><code>fn x() {}</code></pre>"
        );
        assert_eq!(
            to_html("[site](https://e.x/a)"),
            "<a href=\"https://e.x/a\">site</a>"
        );
        assert_eq!(to_html("# Title"), "<b>Title</b>");
        assert_eq!(to_html("2 * 3 * 4"), "2 * 3 * 4");
    }
}
