//! Near-duplicate warnings: an added line that repeats a line already in
//! the same file is still written, and the receipt says which line it
//! repeats, so the model can fix the older one instead of piling up
//! contradicting copies.
//!
//! # The rule
//!
//! Each line is *folded*: trimmed; blank lines and headings (`#…`) are
//! skipped; leading list markers are dropped (`-`, `*`, `+`, `•`, `>`,
//! checkboxes `[ ]` / `[x]`, numbering `1.` / `1)`, in any combination);
//! letters are lowercased and every run of characters that are not letters
//! or digits (punctuation, whitespace) becomes one space. A folded line
//! shorter than [`MIN_FOLDED_CHARS`] characters or of a single word is
//! skipped too: `- done`, `}` or ```` ``` ```` repeat everywhere and mean
//! nothing.
//!
//! - **Exact**: two lines whose folded forms are equal (`- [ ] Use pnpm,
//!   not npm!` and `use pnpm not npm`).
//! - **Near**: the sets of words of at least two characters of both lines
//!   have at least [`MIN_NEAR_WORDS`] members each and a Jaccard index of at
//!   least 4/5 (`|A ∩ B| / |A ∪ B| >= 0.8`). That is one word added to a
//!   four-word line, one word changed in a line of nine distinct words, or
//!   the same words reordered.
//!
//! An added line is compared with every other line of the file after the
//! change (the lines before it, an earlier added line, and for an edit the
//! lines after it too); the earliest exact repeat wins, else the earliest
//! near one.
//!
//! # Cost
//!
//! The added lines are folded and indexed once (exact: a hash map of folded
//! text; near: an inverted index from word hash to added line). The file is
//! then streamed once, line by line, through one reused buffer: a line is
//! looked up in the exact map, and only a line whose words are at least
//! 4/5 among the added words is scored against the added lines sharing its
//! words. Near scoring stops after [`NEAR_BUDGET`] index postings, and at
//! most [`MAX_ADDED_LINES`] added lines are checked, so a hostile file or
//! append cannot make a write slow.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;

/// Folded lines shorter than this many characters are not compared.
pub const MIN_FOLDED_CHARS: usize = 10;
/// Lines with fewer distinct words (of two or more characters) than this
/// are compared only exactly.
pub const MIN_NEAR_WORDS: usize = 4;
/// At most this many added lines are checked per change.
pub const MAX_ADDED_LINES: usize = 8192;
/// Index postings visited for near matches per change before near matching
/// stops (exact matching goes on).
pub const NEAR_BUDGET: usize = 1_000_000;
/// At most this many warnings are listed; the rest are counted.
pub const MAX_WARNINGS_SHOWN: usize = 10;

/// An added line that repeats another line of the same file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Duplicate {
    /// 1-based line number of the added line, in the file after the change.
    pub added_line: u32,
    /// 1-based line number of the line it repeats, in the file after the
    /// change (for an edit it can come after the added line).
    pub earlier_line: u32,
    /// Same words after folding; `false` for a near match.
    pub exact: bool,
}

impl Duplicate {
    /// One warning line naming the file and both lines.
    pub fn warning(&self, path: &str) -> String {
        if self.exact {
            format!(
                "line {} of {path} repeats line {} (same words)",
                self.added_line, self.earlier_line
            )
        } else {
            format!(
                "line {} of {path} is nearly the same as line {}",
                self.added_line, self.earlier_line
            )
        }
    }
}

/// Duplicates among the lines `added` would add when appended to
/// `existing` (after the `\n` the store puts between them when `existing`
/// does not end with one). Line numbers are those of the combined file.
pub fn near_duplicates(existing: &str, added: &str) -> Vec<Duplicate> {
    let mut text = String::with_capacity(existing.len() + added.len() + 1);
    text.push_str(existing);
    if !existing.is_empty() && !existing.ends_with('\n') {
        text.push('\n');
    }
    let start = text.len();
    text.push_str(added);
    in_text(&text, start..text.len())
}

/// Duplicates among the lines of `text` that overlap the byte range
/// `added` (the part just written), compared with all other lines of
/// `text`. An empty range stands for the line it falls in (an edit that
/// deleted text joins what was around it). A range out of bounds is
/// clamped.
pub fn in_text(text: &str, added: Range<usize>) -> Vec<Duplicate> {
    let added = added.start.min(text.len())..added.end.min(text.len());
    let mut index = Index::default();
    let mut buf = String::new();
    let mut words = Vec::new();
    let (mut first, mut last) = (u32::MAX, 0);
    for (no, start, line) in numbered_lines(text) {
        let end = start + line.len();
        let touches = if added.is_empty() {
            start <= added.start && added.start <= end
        } else {
            start < added.end && end >= added.start
        };
        if !touches {
            if start >= added.end {
                break;
            }
            continue;
        }
        if index.lines.len() >= MAX_ADDED_LINES {
            break;
        }
        first = first.min(no);
        last = no;
        if fold_words(line, &mut buf, &mut words) {
            index.add(no, &buf, &words);
        }
    }
    if index.lines.is_empty() {
        return Vec::new();
    }
    index.scan(text, first..=last);
    let mut out: Vec<Duplicate> = index
        .lines
        .iter()
        .filter_map(|l| {
            l.best.map(|(earlier_line, exact)| Duplicate {
                added_line: l.no,
                earlier_line,
                exact,
            })
        })
        .collect();
    out.sort_by_key(|d| d.added_line);
    out
}

/// The warnings for `dups` in `path`, one a line, at most
/// [`MAX_WARNINGS_SHOWN`] and a count of the rest.
pub fn warnings(dups: &[Duplicate], path: &str) -> Vec<String> {
    let mut out: Vec<String> = dups
        .iter()
        .take(MAX_WARNINGS_SHOWN)
        .map(|d| d.warning(path))
        .collect();
    if dups.len() > MAX_WARNINGS_SHOWN {
        out.push(format!(
            "and {} more repeated lines",
            dups.len() - MAX_WARNINGS_SHOWN
        ));
    }
    out
}

/// The text shown to the model for `dups` in `path`: a heading line and the
/// [`warnings`] as a list; empty when there are none.
pub fn warning_text(dups: &[Duplicate], path: &str) -> String {
    lines_text(&warnings(dups, path))
}

/// [`warning_text`] from warning lines already made.
pub(crate) fn lines_text(warnings: &[String]) -> String {
    if warnings.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "Possible duplicates (written anyway; if one of the two is stale or wrong, edit or delete it):",
    );
    for w in warnings {
        out.push_str("\n- ");
        out.push_str(w);
    }
    out
}

/// Lines of `text` split on `\n` (a `\r` before it is part of the line and
/// folded away), with their 1-based number and byte offset.
fn numbered_lines(text: &str) -> impl Iterator<Item = (u32, usize, &str)> {
    let mut offset = 0;
    text.split('\n').enumerate().map(move |(i, line)| {
        let start = offset;
        offset += line.len() + 1;
        (u32::try_from(i + 1).unwrap_or(u32::MAX), start, line)
    })
}

/// Fold `line` into `out` (see the module docs). `false` when the line is
/// skipped: blank, a heading, too short or a single word.
pub fn fold(line: &str, out: &mut String) -> bool {
    fold_words(line, out, &mut Vec::new())
}

/// [`fold`], also putting the hashes of the distinct words of two or more
/// characters into `words`, sorted. One pass over the line: this runs for
/// every line of the file.
fn fold_words(line: &str, out: &mut String, words: &mut Vec<u64>) -> bool {
    out.clear();
    words.clear();
    let mut rest = line.trim();
    if rest.is_empty() || rest.starts_with('#') {
        return false;
    }
    // Each round drops one marker, so the loop is bounded by the line.
    while let Some(after) = strip_marker(rest) {
        rest = after.trim_start();
    }
    let (mut count, mut chars) = (0, 0);
    // The current word: its FNV-1a hash and length in characters.
    let (mut hash, mut len) = (FNV_OFFSET, 0);
    let mut end_word = |hash: u64, len: usize| {
        if len >= 2 {
            words.push(hash);
        }
    };
    let bytes = rest.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // ASCII, nearly every byte of a note, is folded without decoding.
        let (c, width) = if bytes[i] < 0x80 {
            (char::from(bytes[i]), 1)
        } else {
            let c = rest[i..].chars().next().unwrap_or(' ');
            (c, c.len_utf8())
        };
        i += width;
        if !c.is_alphanumeric() {
            if len > 0 {
                end_word(hash, len);
                (hash, len) = (FNV_OFFSET, 0);
            }
            continue;
        }
        if len == 0 {
            if count > 0 {
                out.push(' ');
                chars += 1;
            }
            count += 1;
        }
        if width == 1 {
            let b = bytes[i - 1].to_ascii_lowercase();
            out.push(char::from(b));
            hash = (hash ^ u64::from(b)).wrapping_mul(FNV_PRIME);
        } else {
            let from = out.len();
            out.extend(c.to_lowercase());
            for &b in &out.as_bytes()[from..] {
                hash = (hash ^ u64::from(b)).wrapping_mul(FNV_PRIME);
            }
        }
        len += 1;
        chars += 1;
    }
    end_word(hash, len);
    words.sort_unstable();
    words.dedup();
    count >= 2 && chars >= MIN_FOLDED_CHARS
}

/// `rest` after one leading list marker followed by whitespace (or the
/// end), or `None`.
fn strip_marker(rest: &str) -> Option<&str> {
    fn followed(after: &str) -> Option<&str> {
        (after.is_empty() || after.starts_with(char::is_whitespace)).then_some(after)
    }
    for marker in ["-", "*", "+", "•", ">", "[ ]", "[x]", "[X]"] {
        if let Some(after) = rest.strip_prefix(marker) {
            return followed(after);
        }
    }
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=9).contains(&digits) {
        let after = &rest[digits..];
        if let Some(after) = after.strip_prefix(['.', ')']) {
            return followed(after);
        }
    }
    None
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a of a folded line: a fixed, fast hash. Equal hashes are checked
/// by comparing the text; a word-hash collision at worst adds one false
/// near match.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(FNV_OFFSET, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(FNV_PRIME)
    })
}

/// Keys that are already hashes need no hashing again.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type HashKeyed<V> = HashMap<u64, V, BuildHasherDefault<PassThrough>>;

/// Jaccard of sets of sizes `a` and `b` sharing `common` is at least 4/5.
fn near(common: usize, a: usize, b: usize) -> bool {
    // c / (a + b - c) >= 4/5  <=>  9c >= 4(a + b)
    9 * common >= 4 * (a + b)
}

struct Added {
    no: u32,
    folded: String,
    words: usize,
    /// The line it repeats and whether exactly.
    best: Option<(u32, bool)>,
}

#[derive(Default)]
struct Index {
    lines: Vec<Added>,
    /// Added lines by the hash of their folded text.
    exact: HashKeyed<Vec<usize>>,
    /// Added lines by the hash of each of their words.
    postings: HashKeyed<Vec<usize>>,
}

impl Index {
    fn add(&mut self, no: u32, folded: &str, words: &[u64]) {
        let id = self.lines.len();
        self.lines.push(Added {
            no,
            folded: folded.to_string(),
            words: words.len(),
            best: None,
        });
        self.exact.entry(fnv1a(folded)).or_default().push(id);
        if words.len() >= MIN_NEAR_WORDS {
            for w in words {
                self.postings.entry(*w).or_default().push(id);
            }
        }
    }

    /// Stream every line of `text` once and record, for each added line,
    /// the first other line repeating it.
    /// `added` are the line numbers of the added text.
    fn scan(&mut self, text: &str, added: std::ops::RangeInclusive<u32>) {
        let mut buf = String::new();
        let mut words = Vec::new();
        let mut common: Vec<u32> = vec![0; self.lines.len()];
        let mut touched: Vec<usize> = Vec::new();
        let mut budget = NEAR_BUDGET;
        let mut open = self.lines.len();
        for (no, _, line) in numbered_lines(text) {
            if open == 0 {
                break;
            }
            if !fold_words(line, &mut buf, &mut words) {
                continue;
            }
            let y_added = added.contains(&no);
            // May added line `x` be matched by line `no`? Never itself; an
            // added line only by added lines before it.
            let eligible = |x: &Added| x.no != no && (!y_added || x.no > no);
            if let Some(ids) = self.exact.get(&fnv1a(&buf)) {
                for &id in ids {
                    let x = &mut self.lines[id];
                    if eligible(x) && !x.best.is_some_and(|(_, exact)| exact) && x.folded == buf {
                        x.best = Some((no, true));
                        open -= 1;
                    }
                }
            }
            if budget == 0 {
                continue;
            }
            if words.len() < MIN_NEAR_WORDS {
                continue;
            }
            let shared = words
                .iter()
                .filter(|w| self.postings.contains_key(w))
                .count();
            // Line `no` can reach 4/5 with some added line only if that
            // many of its words are added words at all.
            if 5 * shared < 4 * words.len() {
                continue;
            }
            for w in &words {
                let Some(ids) = self.postings.get(w) else {
                    continue;
                };
                budget = budget.saturating_sub(ids.len());
                for &id in ids {
                    if common[id] == 0 {
                        touched.push(id);
                    }
                    common[id] += 1;
                }
            }
            for id in touched.drain(..) {
                let c = std::mem::take(&mut common[id]) as usize;
                let x = &mut self.lines[id];
                if x.best.is_none() && eligible(x) && near(c, x.words, words.len()) {
                    x.best = Some((no, false));
                }
            }
            if budget == 0 {
                // Near matching is over; only exact repeats are still open.
                open = self
                    .lines
                    .iter()
                    .filter(|l| !l.best.is_some_and(|(_, e)| e))
                    .count();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded(line: &str) -> Option<String> {
        let mut out = String::new();
        fold(line, &mut out).then_some(out)
    }

    #[test]
    fn folding_drops_case_markers_and_punctuation() {
        for (line, want) in [
            ("- [ ] Use pnpm, not npm!", Some("use pnpm not npm")),
            ("  * [x]   use PNPM not npm", Some("use pnpm not npm")),
            ("12) Use pnpm; not: npm.", Some("use pnpm not npm")),
            ("> - 3. use pnpm not npm", Some("use pnpm not npm")),
            ("Straße  ÜBER alles", Some("straße über alles")),
            ("-notamarker word here", Some("notamarker word here")),
            ("## Deploy steps and more", None),
            ("", None),
            ("   ", None),
            ("- done", None),
            ("supercalifragilistic", None),
            ("```", None),
            ("- [ ]", None),
            ("a b c d", None),
        ] {
            assert_eq!(folded(line).as_deref(), want, "{line:?}");
        }
    }

    #[test]
    fn exact_repeats_after_folding() {
        let existing = "# Notes\n- Use pnpm, not npm\n- deploy with make ship\n";
        let dups = near_duplicates(existing, "* [ ] use PNPM not npm.\n");
        assert_eq!(
            dups,
            [Duplicate {
                added_line: 4,
                earlier_line: 2,
                exact: true
            }]
        );
    }

    #[test]
    fn near_repeats_at_four_fifths() {
        let existing = "the staging database lives on port 5433\n";
        // One word added to seven: 7/8 >= 0.8.
        let d = near_duplicates(existing, "the staging database now lives on port 5433\n");
        assert_eq!(
            d,
            [Duplicate {
                added_line: 2,
                earlier_line: 1,
                exact: false
            }]
        );
        // One word changed out of seven: 6/8 < 0.8, no warning.
        assert!(near_duplicates(existing, "the staging database lives on port 6543\n").is_empty());
        // Reordered words: the same set.
        let d = near_duplicates(existing, "on port 5433 lives the staging database\n");
        assert!(!d[0].exact);
        // Three words are too few for a near match.
        assert!(near_duplicates("use pnpm here\n", "use pnpm here now\n").is_empty());
    }

    #[test]
    fn the_earliest_exact_repeat_wins_over_a_near_one() {
        let existing = "the build runs on every push to main now\nother line here okay\nthe build runs on every push to main\n";
        let d = near_duplicates(existing, "The build runs on every push to main.");
        assert_eq!(
            d,
            [Duplicate {
                added_line: 4,
                earlier_line: 3,
                exact: true
            }]
        );
    }

    #[test]
    fn added_lines_repeat_each_other_and_skip_short_lines() {
        let d = near_duplicates(
            "",
            "- ship it with make\n- done\n- done\n\n# Title here\n# Title here\n- Ship it with make!\n",
        );
        assert_eq!(
            d,
            [Duplicate {
                added_line: 7,
                earlier_line: 1,
                exact: true
            }]
        );
        // No newline at the end of the file: the store adds one first.
        let d = near_duplicates("ship it with make", "ship it with make\n");
        assert_eq!(d[0].added_line, 2);
        assert_eq!(d[0].earlier_line, 1);
    }

    #[test]
    fn an_edit_range_is_compared_with_lines_after_it_too() {
        let text = "alpha beta gamma\nthe new line here\nthe new line here!\n";
        let start = text.find("the new").unwrap();
        let d = in_text(text, start..start + "the new line here".len());
        assert_eq!(
            d,
            [Duplicate {
                added_line: 2,
                earlier_line: 3,
                exact: true
            }]
        );
        // An empty range stands for the line it falls in.
        let d = in_text(text, start + 3..start + 3);
        assert_eq!(d.len(), 1);
        // Out of bounds is clamped, not a panic.
        assert!(in_text(text, 500..900).is_empty());
    }

    #[test]
    fn warning_texts_are_pinned() {
        let dups = [
            Duplicate {
                added_line: 9,
                earlier_line: 2,
                exact: true,
            },
            Duplicate {
                added_line: 10,
                earlier_line: 4,
                exact: false,
            },
        ];
        assert_eq!(
            warning_text(&dups, "MEMORY.md"),
            "Possible duplicates (written anyway; if one of the two is stale or wrong, edit or delete it):\n\
             - line 9 of MEMORY.md repeats line 2 (same words)\n\
             - line 10 of MEMORY.md is nearly the same as line 4"
        );
        assert_eq!(warning_text(&[], "x"), "");
        let many = vec![dups[0]; 13];
        let w = warnings(&many, "x.md");
        assert_eq!(w.len(), MAX_WARNINGS_SHOWN + 1);
        assert_eq!(w[MAX_WARNINGS_SHOWN], "and 3 more repeated lines");
    }

    #[test]
    fn a_hostile_file_of_one_repeated_line_stays_bounded() {
        // Every existing line shares all words with every added line: near
        // scoring stops at the budget, exact matches still come through.
        let line = "alpha beta gamma delta epsilon\n";
        let existing = line.repeat(50_000);
        let added = "alpha beta gamma delta epsilon zeta\n".repeat(2000);
        let d = near_duplicates(&existing, &added);
        assert_eq!(d.len(), 2000);
        assert_eq!(d[0].earlier_line, 1);
        assert!(!d[0].exact);
        // Later added lines repeat the first added line exactly.
        assert!(d[1].exact);
        assert_eq!(d[1].earlier_line, 50_001);
    }
}
