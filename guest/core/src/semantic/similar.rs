//! Consistency notices by meaning: a written line that says what a line already in memory
//! says (a restatement, or an update of the same fact) is still written, and the receipt
//! names the older line, so the model can edit it instead of piling up copies.
//!
//! # The rule
//!
//! A line is *comparable* when, list markers and checkboxes dropped, it is not a heading or
//! a fence, holds at least [`MIN_WORDS`] words and at most [`MAX_LINE_BYTES`] bytes. Each
//! comparable added line (at most [`MAX_ADDED_LINES`] per change) is embedded. Its
//! candidates are the comparable lines of the chunk of MEMORY.md, the scratchpads and notes
//! (not daily logs, which are a journal) closest to it by their stored vectors, when its
//! cosine is at least [`CHUNK_FLOOR`] (the chunk the line was written into left out), and
//! every comparable line of MEMORY.md. Of these, MEMORY.md's line that shares the most words
//! with the added line ([`shared_words`]; among equals, the one in MEMORY.md's closest chunk)
//! and the chunk's line that shares the most are embedded ([`MAX_CANDIDATE_LINES`]), and the
//! closer one at a cosine of at least [`SIMILAR_COSINE`] is named. MEMORY.md is looked at
//! line by line because it is a list of unrelated facts: each of its chunks' vectors blends
//! several, and in a store of topical notes another note is closer than the chunk that holds
//! the older line. A write so embeds at most three short texts per added line.
//!
//! The threshold was set on the tune half of `bench/consistency/pairs.tsv` (restatements and
//! updates wanted, related and unrelated lines not), precision first, and the floor and the
//! number of lines on the same half written into a store (`consistency_eval`); see
//! `bench/consistency/README.md` for the numbers.

use crate::words::{self, Act, Audience};

/// Cosine between two lines' vectors at which the newer is said to restate the older.
pub const SIMILAR_COSINE: f32 = 0.65;
/// Cosine between an added line and a chunk for the chunk's lines to be compared.
pub const CHUNK_FLOOR: f32 = 0.25;
/// Chunks closest to an added line (each at [`CHUNK_FLOOR`] or more) whose lines are
/// candidates, besides MEMORY.md's lines.
pub const MAX_CANDIDATE_CHUNKS: usize = 1;
/// Candidate lines compared (each embedded), per added line: MEMORY.md's line that shares
/// the most words with it ([`shared_words`]), then the chunks' that share the most.
pub const MAX_CANDIDATE_LINES: usize = 2;
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

/// How many distinct words of three letters or more, lowercased, `a` and `b` share: which
/// lines of a chunk are worth embedding first.
pub fn shared_words(a: &str, b: &str) -> usize {
    let words = |s: &str| -> Vec<String> {
        let mut w: Vec<String> = s
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 3)
            .map(str::to_lowercase)
            .collect();
        w.sort_unstable();
        w.dedup();
        w
    };
    let b = words(b);
    words(a)
        .iter()
        .filter(|w| b.binary_search(w).is_ok())
        .count()
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
    /// deploy-staging"; edit it instead?`, and for a person at the command line the command
    /// that does (`… edit it instead? (run `agent-memory edit`)`).
    pub fn notice(&self, audience: Audience) -> String {
        let mut quote: String = self.text.chars().take(QUOTE_CHARS).collect();
        if quote.len() < self.text.len() {
            quote.push('…');
        }
        let mut notice = format!(
            "similar to {}:{} \"{quote}\"; edit it instead?",
            self.path, self.line
        );
        if audience == Audience::Person {
            notice.push_str(&format!(" ({})", words::invoke(audience, Act::Edit)));
        }
        notice
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
    fn shared_words_are_counted_once_without_case_or_short_words() {
        assert_eq!(
            shared_words(
                "To deploy, run make deploy-staging.",
                "Deploys go through MAKE deploy-staging and make it so"
            ),
            3 // make, deploy, staging; "to" is short, "deploys" another word
        );
        assert_eq!(shared_words("Alice owns billing", "Bob runs payroll"), 0);
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
            s.notice(Audience::Model),
            "similar to MEMORY.md:12 \"deploys go through make deploy-staging\"; edit it instead?"
        );
        assert_eq!(
            s.notice(Audience::Person),
            "similar to MEMORY.md:12 \"deploys go through make deploy-staging\"; edit it instead? (run `agent-memory edit`)"
        );
    }
}
