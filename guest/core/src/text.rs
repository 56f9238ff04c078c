//! Text helpers: cutting at UTF-8 boundaries and keeping stored text from
//! forging the `<memory>` wrapper.

use std::borrow::Cow;

/// The longest prefix of `s` that is at most `max` bytes and ends on a
/// character boundary.
pub fn prefix_at_char_boundary(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut cut = max;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    &s[..cut]
}

/// `s` cut so that the kept part plus `marker` fits in `max` bytes, or `s`
/// itself when it already fits. The cut falls after the last line break of
/// the kept part when that keeps at least half of the room, otherwise at a
/// character boundary. The result never exceeds `max` bytes (if even the
/// marker does not fit, the marker itself is cut).
pub fn truncate_with_marker(s: &str, max: usize, marker: &str) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    cut_with_marker(s, max, marker)
}

/// Like [`truncate_with_marker`], but always ends with `marker`: for text
/// that is already known to be only part of something larger (a read that
/// stopped at its cap), even when the part itself would fit.
pub fn cut_with_marker(s: &str, max: usize, marker: &str) -> String {
    if marker.len() >= max {
        // No room for the whole marker: a cut marker would read as garbage,
        // so keep what fits of the text itself.
        return prefix_at_char_boundary(s, max).to_string();
    }
    let room = max - marker.len();
    let mut kept = prefix_at_char_boundary(s, room);
    if kept.len() < s.len()
        && let Some(nl) = kept.rfind('\n')
        && nl + 1 >= room / 2
    {
        kept = &kept[..nl + 1];
    }
    let mut out = String::with_capacity(kept.len() + marker.len());
    out.push_str(kept);
    out.push_str(marker);
    out
}

/// Replace the `<` of every `<memory` or `</memory` (any ASCII case, any
/// whitespace around the `/`, whatever follows) with `&lt;`, so stored text
/// can neither close nor open the wrapper of the context block, even once
/// the block is cut.
pub fn neutralize_wrapper_tags(s: &str) -> Cow<'_, str> {
    let mut out: Option<String> = None;
    let mut copied = 0;
    for (at, _) in s.match_indices('<') {
        if !opens_memory_tag(&s[at + 1..]) {
            continue;
        }
        let buf = out.get_or_insert_with(|| String::with_capacity(s.len() + 8));
        buf.push_str(&s[copied..at]);
        buf.push_str("&lt;");
        copied = at + 1;
    }
    match out {
        None => Cow::Borrowed(s),
        Some(mut buf) => {
            buf.push_str(&s[copied..]);
            Cow::Owned(buf)
        }
    }
}

/// The offsets of the `<` that [`neutralize_wrapper_tags`] replaces, in
/// order: what it takes to map offsets of `s` to offsets of the result
/// (each one adds 3 bytes).
pub fn neutralized_offsets(s: &str) -> Vec<usize> {
    s.match_indices('<')
        .filter(|(at, _)| opens_memory_tag(&s[at + 1..]))
        .map(|(at, _)| at)
        .collect()
}

/// Does the text after a `<` start with `memory` or `/memory` (any ASCII
/// case, whitespace allowed around the `/`)? Whatever follows counts too:
/// `<memorybank` is neutralised as well, because the block may later be cut
/// right after `</memory` and a marker line put there, which would turn a
/// harmless `</memoryx` into a closing tag.
fn opens_memory_tag(after: &str) -> bool {
    let rest = after.trim_start();
    let rest = rest.strip_prefix('/').map_or(rest, str::trim_start);
    rest.get(..6)
        .is_some_and(|name| name.eq_ignore_ascii_case("memory"))
}

/// English function words: a query word in this list is not searched when
/// the query has other words. Sorted, for the binary search.
pub(crate) const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "could", "did", "do", "does", "doing", "done", "down", "during", "each",
    "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers",
    "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me",
    "more", "most", "my", "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other",
    "our", "ours", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than",
    "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those",
    "through", "to", "too", "under", "until", "up", "us", "very", "was", "we", "were", "what",
    "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you",
    "your", "yours",
];

/// Is `word` (lowercase) an English function word?
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_never_splits_a_character() {
        let s = "añ日本🎉x";
        for max in 0..=s.len() + 2 {
            let p = prefix_at_char_boundary(s, max);
            assert!(p.len() <= max);
            assert!(s.starts_with(p));
        }
        assert_eq!(prefix_at_char_boundary("日本", 4), "日");
        assert_eq!(prefix_at_char_boundary("🎉🎉", 7), "🎉");
    }

    #[test]
    fn truncation_fits_and_marks() {
        let s = "line one\nline two\nline three\n";
        assert_eq!(truncate_with_marker(s, 100, "…"), s);
        let t = truncate_with_marker(s, 24, "\n…[cut]");
        assert!(t.len() <= 24, "{t:?}");
        assert!(t.ends_with("\n…[cut]"));
        // CJK with no line breaks: cut at a character boundary.
        let cjk = "記憶".repeat(50);
        let t = truncate_with_marker(&cjk, 31, "…");
        assert!(t.len() <= 31 && t.ends_with('…'));
        let emoji = "🎉".repeat(50);
        for max in 4..40 {
            let t = truncate_with_marker(&emoji, max, "!");
            assert!(t.len() <= max);
        }
        assert_eq!(truncate_with_marker("abcdef", 2, "[cut]"), "ab");
    }

    #[test]
    fn a_known_cut_is_always_marked() {
        // A read that stopped inside a two-byte character: what is left fits,
        // but the file was longer, so the marker must still be there.
        assert_eq!(cut_with_marker("éé", 10, "[cut]"), "éé[cut]");
        assert_eq!(cut_with_marker("abc\ndef", 6, "[x]"), "abc[x]");
        assert_eq!(cut_with_marker("abcdef", 2, "[cut]"), "ab");
    }

    #[test]
    fn wrapper_tags_are_neutralized() {
        let cases = [
            ("a </memory> b", "a &lt;/memory> b"),
            ("</MEMORY>", "&lt;/MEMORY>"),
            ("< / Memory >", "&lt; / Memory >"),
            ("</memory\n>", "&lt;/memory\n>"),
            ("<memory note=\"x\">", "&lt;memory note=\"x\">"),
            ("<memorybank> </memoryx>", "&lt;memorybank> &lt;/memoryx>"),
            ("1 < 2, <b>memory</b>", "1 < 2, <b>memory</b>"),
            ("<</memory>", "<&lt;/memory>"),
            ("日本</memory>語", "日本&lt;/memory>語"),
        ];
        for (input, want) in cases {
            assert_eq!(neutralize_wrapper_tags(input), want, "{input:?}");
        }
    }
}
