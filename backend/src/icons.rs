//! Icons for adapters and requesters, drawn here: a rounded square in a colour derived from
//! the name, with the label's initials. LangBot's UI shows them as `<img>` on its cards.

/// The SVG badge for `name` (colour) labelled `label` (initials).
pub fn badge(name: &str, label: &str) -> String {
    // FNV-1a: a stable hue per name, the same on every build.
    let hash = name.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    let hue = hash % 360;
    let initials = initials(label);
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"64\" height=\"64\" viewBox=\"0 0 64 64\" \
         role=\"img\" aria-label=\"{label}\"><rect width=\"64\" height=\"64\" rx=\"14\" \
         fill=\"hsl({hue},55%,42%)\"/><text x=\"32\" y=\"41\" text-anchor=\"middle\" \
         font-family=\"sans-serif\" font-size=\"24\" font-weight=\"700\" \
         fill=\"#fff\">{initials}</text></svg>",
        label = escape(label),
        initials = escape(&initials),
    )
}

/// Up to two letters: the first of each of the first two words, else the first two.
fn initials(label: &str) -> String {
    let words: Vec<&str> = label
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let picked: String = match words.as_slice() {
        [] => "?".into(),
        [one] => one.chars().take(2).collect(),
        [first, second, ..] => first
            .chars()
            .take(1)
            .chain(second.chars().take(1))
            .collect(),
    };
    picked.to_uppercase()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initials_take_two_letters() {
        assert_eq!(initials("Telegram"), "TE");
        assert_eq!(initials("HTTP Bot"), "HB");
        assert_eq!(initials("OneBot v11"), "OV");
        assert_eq!(initials(""), "?");
    }

    #[test]
    fn badges_are_stable_and_escaped() {
        assert_eq!(badge("x", "A&B"), badge("x", "A&B"));
        assert!(badge("x", "<b>").contains("aria-label=\"&lt;b&gt;\""));
        assert_ne!(badge("telegram", "T"), badge("slack", "T"));
    }
}
