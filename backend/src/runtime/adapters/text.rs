//! Splitting long replies at a platform's limit, at a paragraph, line or word break where
//! one is near.

/// Parts of at most `limit` characters (`limit` ≥ 1), preferring to break after a newline,
/// else after a space, in the last fifth of a part.
pub fn split(text: &str, limit: usize) -> Vec<String> {
    let limit = limit.max(1);
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= limit {
        return vec![text.to_string()];
    }
    let mut parts = Vec::new();
    let mut start = 0;
    while start < chars.len() {
        let end = (start + limit).min(chars.len());
        let cut = if end == chars.len() {
            end
        } else {
            let window = &chars[start..end];
            let floor = limit - limit / 5;
            let at = |c: char| {
                window
                    .iter()
                    .rposition(|&x| x == c)
                    .filter(|&i| i + 1 >= floor)
                    .map(|i| start + i + 1)
            };
            at('\n').or_else(|| at(' ')).unwrap_or(end)
        };
        parts.push(chars[start..cut].iter().collect());
        start = cut;
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn parts_fit_the_limit_and_keep_every_character() {
        let text = "word ".repeat(500);
        let parts = split(&text, 100);
        assert!(parts.iter().all(|p| p.chars().count() <= 100));
        assert_eq!(parts.concat(), text);
        assert!(parts[0].ends_with(' '), "breaks at a space");
        let dense = "x".repeat(250);
        assert_eq!(split(&dense, 100).len(), 3);
        assert_eq!(split("short", 100), vec!["short"]);
        let cjk = "字".repeat(10);
        assert_eq!(split(&cjk, 4), vec!["字字字字", "字字字字", "字字"]);
    }
}
