//! Consistency notices by meaning: a written line that says what a line already in memory
//! says (a restatement, or an update of the same fact) is still written, and the receipt
//! names the older line, so the model can edit it instead of piling up copies.
//!
//! # The rule
//!
//! A line is *comparable* when, list markers and checkboxes dropped, it is not a heading or
//! a fence, holds at least [`MIN_WORDS`] words and at most [`MAX_LINE_BYTES`] bytes. Each
//! comparable added line (at most [`MAX_ADDED_LINES`] per change) is embedded; the chunks of
//! MEMORY.md, the scratchpads and notes (not daily logs, which are a journal) closest to it
//! by their stored vectors are the candidates ([`CANDIDATE_CHUNKS`], each at least
//! [`CHUNK_FLOOR`]); their comparable lines (at most [`MAX_CANDIDATE_LINES`]) are embedded
//! and the closest one at a cosine of at least [`SIMILAR_COSINE`] is named.
//!
//! The threshold was set on the tune half of `bench/consistency/pairs.tsv` (restatements and
//! updates wanted, related and unrelated lines not), precision first; see
//! `bench/consistency/README.md` for both halves' precision and recall.

/// Cosine between two lines' vectors at which the newer is said to restate the older.
pub const SIMILAR_COSINE: f32 = 0.65;
/// Cosine between an added line and a chunk for the chunk's lines to be compared.
pub const CHUNK_FLOOR: f32 = 0.35;
/// Closest chunks whose lines are compared, per added line.
pub const CANDIDATE_CHUNKS: usize = 3;
/// Lines of the candidate chunks embedded, per added line.
pub const MAX_CANDIDATE_LINES: usize = 12;
/// Added lines checked per change.
pub const MAX_ADDED_LINES: usize = 4;
/// Lines of MEMORY.md and the notes the consolidation plan compares by meaning, in that
/// order (each embedded once: a few seconds at most in the component).
pub const MAX_PLAN_LINES: usize = 200;
/// Words a comparable line has at least.
pub const MIN_WORDS: usize = 4;
/// Bytes a comparable line has at most: longer ones are paragraphs, not facts.
pub const MAX_LINE_BYTES: usize = 400;
/// Characters of the older line quoted in a notice.
const QUOTE_CHARS: usize = 100;

/// The fact a line states, without its list marker or checkbox, when it is one to compare.
pub fn comparable(line: &str) -> Option<&str> {
    let mut s = line.trim();
    if s.starts_with('#') || s.starts_with("```") || s.starts_with('|') {
        return None;
    }
    loop {
        let before = s;
        for marker in ["- ", "* ", "+ ", "• ", "> ", "[ ] ", "[x] ", "[X] "] {
            s = s.strip_prefix(marker).unwrap_or(s).trim_start();
        }
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && matches!(s.as_bytes().get(digits), Some(b'.' | b')')) {
            s = s[digits + 1..].trim_start();
        }
        if s == before {
            break;
        }
    }
    let words = s
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .count();
    (words >= MIN_WORDS && s.len() <= MAX_LINE_BYTES).then_some(s)
}

/// Whether the store path `path` is a daily log (`…/daily/2026-05-30.md`), not a note.
pub fn is_daily(path: &str) -> bool {
    let mut segments = path.rsplit(['/', ':']);
    let _file = segments.next();
    segments.next() == Some("daily") && !path.contains("notes/")
}

/// An added line and the older line it means the same as.
#[derive(Debug, Clone, PartialEq)]
pub struct Similar {
    /// The store path of the older line's file.
    pub path: String,
    /// Its 1-based line number.
    pub line: u32,
    /// Its text, as comparable.
    pub text: String,
    /// The cosine of the two lines.
    pub cosine: f32,
}

impl Similar {
    /// The receipt's line: `similar to MEMORY.md:12 "deploys go through make
    /// deploy-staging"; edit it instead?`.
    pub fn notice(&self) -> String {
        let mut quote: String = self.text.chars().take(QUOTE_CHARS).collect();
        if quote.len() < self.text.len() {
            quote.push('…');
        }
        format!(
            "similar to {}:{} \"{quote}\"; edit it instead?",
            self.path, self.line
        )
    }
}

/// The cosine of two unit vectors.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_are_compared_without_their_markers() {
        assert_eq!(
            comparable("- [ ] Deploys go through make deploy-staging"),
            Some("Deploys go through make deploy-staging")
        );
        assert_eq!(
            comparable("12. Use pnpm, never npm."),
            Some("Use pnpm, never npm.")
        );
        assert_eq!(comparable("## Deploys go through make"), None);
        assert_eq!(comparable("- prefers tabs"), None);
        assert_eq!(comparable(&"word ".repeat(100)), None);
    }

    #[test]
    fn daily_logs_are_told_from_notes() {
        assert!(is_daily("projects/app/daily/2026-05-30.md"));
        assert!(is_daily("team:daily/2026-05-30.md"));
        assert!(!is_daily("projects/app/notes/daily/standup.md"));
        assert!(!is_daily("MEMORY.md"));
    }

    #[test]
    fn the_notice_quotes_the_older_line() {
        let s = Similar {
            path: "MEMORY.md".into(),
            line: 12,
            text: "deploys go through make deploy-staging".into(),
            cosine: 0.9,
        };
        assert_eq!(
            s.notice(),
            "similar to MEMORY.md:12 \"deploys go through make deploy-staging\"; edit it instead?"
        );
    }
}
