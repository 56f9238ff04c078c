//! Keyword search: a pure matcher over one file's text, ranking, and the
//! capped rendering for a model. Where the bytes come from is the store's
//! business (see `Memory::search`).
//!
//! A term matches a line when the line, lowercased by Unicode rules
//! (`str::to_lowercase`), contains the term lowercased the same way. That is
//! what the matcher computes, but on the fast path without lowercasing
//! anything: when every term is ASCII after lowercasing, an ASCII
//! case-insensitive byte search over the original text finds exactly the
//! same lines, because lowercasing maps ASCII to ASCII and every other
//! character to non-ASCII characters — except U+0130 (`İ`, to `i` + U+0307)
//! and U+212A (Kelvin sign, to `k`). A file holding one of those two (where
//! a term could use it) or, for a query with a non-ASCII term, any non-ASCII
//! text, takes the exact slow path: lowercase the file and compare lines.

pub(crate) mod scan;

use std::cmp::Ordering;

use crate::text::truncate_with_marker;
use scan::{Finder, LowerFinder, ascii_lowercase_into, line_end, line_start};

/// Lines of context kept on each side of a matching line.
pub const CONTEXT_LINES: usize = 3;
/// Most context windows reported per file.
pub const MAX_WINDOWS: usize = 5;
/// Non-blank lines shown for a filename-only hit.
pub const PREVIEW_LINES: usize = 3;

/// A parsed query: distinct whitespace-separated terms in query order.
#[derive(Debug, Clone)]
pub struct Query {
    terms: Vec<String>,
    lowered: Vec<String>,
}

/// How to look for a query's terms in a file's text.
#[derive(Debug)]
struct Plan {
    /// Per term: the ASCII finders (over the text as it is, and over the
    /// text lowercased once for all terms), or `None` for a term that is
    /// not ASCII after lowercasing (it can only match non-ASCII text).
    finders: Vec<Option<(Finder, LowerFinder)>>,
    /// Several ASCII terms: lowercase the text once and search the copy.
    /// One term searches the text as it is: in the sandbox the copy costs
    /// more than it saves a single term (a zero-hit `xylophone` on M went
    /// from 40 to 53 ms of user time with it).
    lower: bool,
    /// Some term is not ASCII: the fast path only serves ASCII files.
    non_ascii_term: bool,
    /// Some ASCII term contains `k`, which the Kelvin sign lowercases to.
    kelvin: Option<Finder>,
    /// Some ASCII term ends in `i`, which `İ` lowercases to (followed by a
    /// combining dot, so only a term's last `i` can come from it).
    dotted_i: Option<Finder>,
}

impl Plan {
    fn new(query: &Query) -> Plan {
        let ascii = || query.lowered.iter().filter(|t| t.is_ascii());
        Plan {
            finders: query
                .lowered
                .iter()
                .map(|t| {
                    t.is_ascii()
                        .then(|| (Finder::new(t.as_bytes()), LowerFinder::new(t.as_bytes())))
                })
                .collect(),
            lower: ascii().count() > 1,
            non_ascii_term: query.lowered.iter().any(|t| !t.is_ascii()),
            kelvin: ascii()
                .any(|t| t.contains('k'))
                .then(|| Finder::new("\u{212A}".as_bytes())),
            dotted_i: ascii()
                .any(|t| t.ends_with('i'))
                .then(|| Finder::new("\u{130}".as_bytes())),
        }
    }

    /// Does the ASCII scan give exactly the Unicode-lowercase answer here?
    fn fast_path_exact(&self, text: &str) -> bool {
        let bytes = text.as_bytes();
        !(self.non_ascii_term && !text.is_ascii()
            || self
                .kelvin
                .as_ref()
                .is_some_and(|f| f.find(bytes, 0).is_some())
            || self
                .dotted_i
                .as_ref()
                .is_some_and(|f| f.find(bytes, 0).is_some()))
    }
}

impl Query {
    /// Split on whitespace and drop repeats (compared case-insensitively),
    /// keeping the first spelling.
    pub fn parse(query: &str) -> Query {
        Query::parse_bounded(query, usize::MAX).expect("no bound")
    }

    /// Like [`Query::parse`], but `None` as soon as more than `max` distinct
    /// terms turn up. Linear in the query's length.
    pub fn parse_bounded(query: &str, max: usize) -> Option<Query> {
        let mut terms = Vec::new();
        let mut lowered: Vec<String> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for term in query.split_whitespace() {
            let low = term.to_lowercase();
            if seen.insert(low.clone()) {
                if terms.len() == max {
                    return None;
                }
                terms.push(term.to_string());
                lowered.push(low);
            }
        }
        Some(Query { terms, lowered })
    }

    /// The distinct terms.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// True when the query has no terms.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Indexes of the terms that occur in `text`, case-insensitively.
    fn matching<'a>(&'a self, lowered_text: &'a str) -> impl Iterator<Item = usize> + 'a {
        self.lowered
            .iter()
            .enumerate()
            .filter(move |(_, t)| lowered_text.contains(t.as_str()))
            .map(|(i, _)| i)
    }
}

/// One file's worth of results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// Store-relative path.
    pub path: String,
    /// Distinct terms found, in query order.
    pub matched_terms: Vec<String>,
    /// Matching lines (0 for a filename-only hit).
    pub total_hits: usize,
    /// Context windows separated by `…` lines, or a filename-match preview.
    pub body: String,
    /// Only the file name matched.
    pub filename_only: bool,
    /// The date of a daily log.
    pub date: Option<String>,
    /// The global MEMORY.md.
    pub is_memory_md: bool,
}

/// Ranked results with per-term matching-line counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchResults {
    /// Each distinct term and its matching lines across all files.
    pub terms: Vec<(String, usize)>,
    /// Files, most relevant first.
    pub hits: Vec<SearchHit>,
}

/// Where a file sits in the ranking, apart from its matches.
#[derive(Debug, Clone)]
pub struct FileMeta {
    /// Store-relative path.
    pub path: String,
    /// The file name without `.md`, matched for the filename fallback.
    pub stem: String,
    /// The date of a daily log.
    pub date: Option<String>,
    /// The global MEMORY.md.
    pub is_memory_md: bool,
}

/// Accumulates hits and term counts over many files.
#[derive(Debug)]
pub struct Searcher {
    query: Query,
    plan: Plan,
    counts: Vec<usize>,
    hits: Vec<SearchHit>,
    /// Per file, reused: which terms matched, and where each matching line
    /// ends (the offset of its `\n`, or the text's length).
    matched: Vec<bool>,
    hit_lines: Vec<usize>,
    /// The current file's text, ASCII letters lowercased (reused).
    lowered: Vec<u8>,
}

impl Searcher {
    /// A searcher for `query`.
    pub fn new(query: Query) -> Searcher {
        let counts = vec![0; query.terms.len()];
        Searcher {
            plan: Plan::new(&query),
            matched: vec![false; query.terms.len()],
            query,
            counts,
            hits: Vec::new(),
            hit_lines: Vec::new(),
            lowered: Vec::new(),
        }
    }

    /// Fill `self.hit_lines` (sorted line ends) and `self.matched`, and add
    /// to the term counts, for the lines of `text` that match.
    fn match_lines(&mut self, text: &str) {
        self.matched.fill(false);
        self.hit_lines.clear();
        if self.plan.fast_path_exact(text) {
            // One lowercasing pass serves every term.
            let lower = self.plan.lower;
            if lower {
                ascii_lowercase_into(text.as_bytes(), &mut self.lowered);
            }
            let bytes = if lower {
                &self.lowered[..]
            } else {
                text.as_bytes()
            };
            for (t, finder) in self.plan.finders.iter().enumerate() {
                // A term that is not ASCII cannot occur in this (ASCII) text.
                let Some((plain, lowered)) = finder else {
                    continue;
                };
                let find = |from| {
                    if lower {
                        lowered.find(bytes, from)
                    } else {
                        plain.find(bytes, from)
                    }
                };
                let mut from = 0;
                while let Some(at) = find(from) {
                    let end = line_end(bytes, at + lowered.len());
                    self.hit_lines.push(end);
                    self.matched[t] = true;
                    self.counts[t] += 1;
                    // One count per line: go on from the next line.
                    from = end + 1;
                }
            }
            self.hit_lines.sort_unstable();
            self.hit_lines.dedup();
        } else {
            // Lowercasing never adds or removes a '\n', so the lowered text
            // has the same lines as the original and the two can be walked
            // together.
            let lowered = text.to_lowercase();
            let mut end = 0;
            for (line, low) in text.split_inclusive('\n').zip(lowered.lines()) {
                end += line.len();
                let mut any = false;
                for (t, term) in self.query.lowered.iter().enumerate() {
                    if low.contains(term.as_str()) {
                        any = true;
                        self.matched[t] = true;
                        self.counts[t] += 1;
                    }
                }
                if any {
                    self.hit_lines.push(end - usize::from(line.ends_with('\n')));
                }
            }
        }
    }

    /// Search one file's text and record a hit if it matches.
    pub fn add_file(&mut self, meta: FileMeta, text: &str) {
        if self.query.is_empty() {
            return;
        }
        self.match_lines(text);
        if !self.hit_lines.is_empty() {
            let body = render_windows(text, &self.hit_lines);
            self.hits.push(SearchHit {
                matched_terms: self.pick(&self.matched),
                total_hits: self.hit_lines.len(),
                body,
                filename_only: false,
                path: meta.path,
                date: meta.date,
                is_memory_md: meta.is_memory_md,
            });
            return;
        }
        let mut in_name = vec![false; self.query.terms.len()];
        for t in self.query.matching(&meta.stem.to_lowercase()) {
            in_name[t] = true;
        }
        if in_name.iter().any(|&m| m) {
            let preview: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .take(PREVIEW_LINES)
                .collect();
            let mut body = String::from("(filename match)");
            for line in preview {
                body.push('\n');
                body.push_str(line);
            }
            self.hits.push(SearchHit {
                matched_terms: self.pick(&in_name),
                total_hits: 0,
                body,
                filename_only: true,
                path: meta.path,
                date: meta.date,
                is_memory_md: meta.is_memory_md,
            });
        }
    }

    fn pick(&self, flags: &[bool]) -> Vec<String> {
        self.query
            .terms
            .iter()
            .zip(flags)
            .filter(|(_, f)| **f)
            .map(|(t, _)| t.clone())
            .collect()
    }

    /// Rank the hits and return the results.
    pub fn finish(mut self) -> SearchResults {
        self.hits.sort_by(rank);
        SearchResults {
            terms: self.query.terms.into_iter().zip(self.counts).collect(),
            hits: self.hits,
        }
    }
}

/// MEMORY.md first; then more distinct terms; content before filename-only;
/// more matching lines; newer daily logs; path.
fn rank(a: &SearchHit, b: &SearchHit) -> Ordering {
    b.is_memory_md
        .cmp(&a.is_memory_md)
        .then_with(|| b.matched_terms.len().cmp(&a.matched_terms.len()))
        .then_with(|| a.filename_only.cmp(&b.filename_only))
        .then_with(|| b.total_hits.cmp(&a.total_hits))
        .then_with(|| b.date.cmp(&a.date))
        .then_with(|| a.path.cmp(&b.path))
}

/// Widen each matching line by [`CONTEXT_LINES`], merge windows that overlap
/// or touch, keep at most [`MAX_WINDOWS`], and join them with `…` lines.
/// Lines are those of `str::lines`; `hit_lines` holds, ascending, where the
/// matching lines end (the offset of their `\n`, or the text's length).
pub(crate) fn render_windows(text: &str, hit_lines: &[usize]) -> String {
    let bytes = text.as_bytes();
    // The end of the line after the one ending at `end`, if there is one (a
    // final '\n' ends the last line; no empty line follows it).
    let next = |end: usize| (end + 1 < bytes.len()).then(|| line_end(bytes, end + 1));
    // The start of the line before the one starting at `start`, if any.
    let prev = |start: usize| (start > 0).then(|| line_start(bytes, start - 1));
    // Windows as (start of the first line, end of the last line).
    let mut windows: Vec<(usize, usize)> = Vec::new();
    for &end in hit_lines {
        let mut hi = end;
        for _ in 0..CONTEXT_LINES {
            hi = next(hi).unwrap_or(hi);
        }
        if let Some(w) = windows.last_mut()
            && end <= w.1
        {
            // Inside the last window: only its end can move.
            w.1 = w.1.max(hi);
            continue;
        }
        let mut lo = line_start(bytes, end);
        for _ in 0..CONTEXT_LINES {
            lo = prev(lo).unwrap_or(lo);
        }
        // Overlapping or touching: the window starts no later than the line
        // after the last window's last line.
        if let Some(w) = windows.last_mut()
            && lo <= w.1 + 1
        {
            w.1 = w.1.max(hi);
        } else if windows.len() == MAX_WINDOWS {
            break;
        } else {
            windows.push((lo, hi));
        }
    }
    let mut body = String::new();
    for (n, &(lo, hi)) in windows.iter().enumerate() {
        if n > 0 {
            body.push_str("\n…\n");
        }
        let mut line = lo;
        loop {
            let end = line_end(bytes, line);
            // As `str::lines`: drop the '\n' and a '\r' just before it.
            let content = if end < bytes.len() {
                text[line..end]
                    .strip_suffix('\r')
                    .unwrap_or(&text[line..end])
            } else {
                &text[line..end]
            };
            body.push_str(content);
            if end >= hi {
                break;
            }
            body.push('\n');
            line = end + 1;
        }
    }
    body
}

/// Smallest piece of a cut hit worth showing, in bytes.
const MIN_CUT_HIT: usize = 32;
const TRUNCATED: &str = "\n…[search truncated]";

impl SearchResults {
    /// Render for a model, at most `max_bytes` long: a summary line, then the
    /// best hits that fit whole, each as `<path>  [matched: a, b]` and its
    /// body, and a line counting the hits left out. When not even the best
    /// hit fits whole, it is shown cut.
    pub fn render(&self, max_bytes: usize) -> String {
        let mut hits = self.hits.iter().cloned();
        render_hits(&self.terms, self.hits.len(), &mut || hits.next(), max_bytes)
    }
}

/// [`SearchResults::render`] of results whose `total` hits come one at a
/// time from `next`, in order: only the hits shown (and the one after, to
/// learn it does not fit) are ever asked for.
pub fn render_hits(
    terms: &[(String, usize)],
    total: usize,
    next: &mut dyn FnMut() -> Option<SearchHit>,
    max_bytes: usize,
) -> String {
    let counts: Vec<String> = terms.iter().map(|(t, c)| format!("{t}({c})")).collect();
    let counts = counts.join(" ");
    if terms.is_empty() {
        return truncate_with_marker(
            "Empty query: give one or more keywords separated by spaces.",
            max_bytes,
            TRUNCATED,
        );
    }
    let Some(first) = next() else {
        // Ranked search names a query of only stop words back unsearched.
        let only_stops = terms
            .iter()
            .all(|(t, c)| *c == 0 && crate::text::is_stop_word(&t.to_lowercase()));
        let why = if only_stops {
            ": stop words never match alone. Add a word that says what to look for, \
             or search with mode literal for the exact text."
        } else {
            "."
        };
        return truncate_with_marker(
            &format!("No matches for {counts}{why}"),
            max_bytes,
            TRUNCATED,
        );
    };
    let total = total.max(1);
    let summary = |shown: usize| {
        format!(
            "Searched {} term{}: {counts} across {total} file{}. Showing top {shown} by relevance.",
            terms.len(),
            plural(terms.len()),
            plural(total),
        )
    };
    let omitted_line = |omitted: usize| {
        if omitted == 0 {
            String::new()
        } else {
            format!("\n\n…[{omitted} more file{} omitted]", plural(omitted))
        }
    };
    // Each hit as `<path>  [matched: a, b]\n<body>`; only the shown ones
    // are ever written out (there may be thousands of hits).
    const MATCHED: &str = "  [matched: ";
    let block_len = |h: &SearchHit| {
        let terms: usize = h.matched_terms.iter().map(String::len).sum::<usize>()
            + 2 * h.matched_terms.len().saturating_sub(1);
        h.path.len() + MATCHED.len() + terms + 2 + h.body.len()
    };
    let write_block = |out: &mut String, h: &SearchHit| {
        out.push_str(&h.path);
        out.push_str(MATCHED);
        for (i, term) in h.matched_terms.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(term);
        }
        out.push_str("]\n");
        out.push_str(&h.body);
    };
    // The widest summary and omission line bound what the final ones take.
    let overhead = summary(total).len() + omitted_line(total).len();
    let mut used = overhead;
    let mut shown: Vec<SearchHit> = Vec::new();
    let mut hit = Some(first);
    while let Some(h) = hit {
        let add = 2 + block_len(&h);
        if used + add > max_bytes {
            hit = Some(h);
            break;
        }
        used += add;
        shown.push(h);
        hit = if shown.len() < total { next() } else { None };
    }
    let mut out = summary(shown.len().max(1));
    let room = max_bytes.saturating_sub(out.len() + 2 + omitted_line(total - 1).len());
    let count = if shown.is_empty() && room >= TRUNCATED.len() + MIN_CUT_HIT {
        let mut block = String::new();
        if let Some(h) = &hit {
            write_block(&mut block, h);
        }
        out.push_str("\n\n");
        out.push_str(&truncate_with_marker(&block, room, TRUNCATED));
        1
    } else if shown.is_empty() {
        // Not even a cut hit fits: the summary and the count of what was
        // left out are all there is room for.
        out = summary(0);
        0
    } else {
        for h in &shown {
            out.push_str("\n\n");
            write_block(&mut out, h);
        }
        shown.len()
    };
    out.push_str(&omitted_line(total - count));
    truncate_with_marker(&out, max_bytes, TRUNCATED)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTES: &str = "\
# Deploy
We deploy to staging first.
Then production.
line 4
line 5
line 6
line 7
line 8
line 9
line 10
Staging is flaky on Mondays.";

    fn meta(path: &str) -> FileMeta {
        let stem = path
            .rsplit('/')
            .next()
            .unwrap()
            .trim_end_matches(".md")
            .to_string();
        FileMeta {
            path: path.to_string(),
            stem,
            date: None,
            is_memory_md: path == "MEMORY.md",
        }
    }

    fn search(files: &[(&str, &str)], query: &str) -> SearchResults {
        let mut s = Searcher::new(Query::parse(query));
        for (path, text) in files {
            s.add_file(meta(path), text);
        }
        s.finish()
    }

    #[test]
    fn terms_are_deduplicated_case_insensitively_in_order() {
        let q = Query::parse("  Deploy staging deploy STAGING  prod ");
        assert_eq!(q.terms(), ["Deploy", "staging", "prod"]);
        assert!(Query::parse(" \t\n").is_empty());
    }

    #[test]
    fn matching_is_literal_and_case_insensitive() {
        let r = search(&[("n/a.md", "a.b\naxb\n(x+\nSTAGING")], "a.b (x+ staging");
        assert_eq!(
            r.terms,
            [("a.b".into(), 1), ("(x+".into(), 1), ("staging".into(), 1)]
        );
        assert_eq!(r.hits[0].total_hits, 3);
    }

    #[test]
    fn windows_merge_and_cap() {
        let r = search(&[("n/deploy.md", NOTES)], "staging");
        let hit = &r.hits[0];
        assert_eq!(hit.total_hits, 2);
        // Line 1 (0-based) widens to 0..=4, line 10 to 7..=10: two windows.
        assert_eq!(hit.body.matches("\n…\n").count(), 1);
        assert!(hit.body.starts_with("# Deploy\n"));
        assert!(hit.body.ends_with("Staging is flaky on Mondays."));
        // Touching windows merge: hits on lines 0 and 7 give 0..=3 and 4..=10.
        let text = "x\n1\n2\n3\n4\n5\n6\nx\n8";
        let r = search(&[("n/t.md", text)], "x");
        assert!(!r.hits[0].body.contains('…'));
        // Many far-apart hits: at most five windows, every line still counted.
        let text: String = (0..100)
            .map(|i| if i % 10 == 0 { "hit\n" } else { "-\n" })
            .collect();
        let r = search(&[("n/t.md", &text)], "hit");
        assert_eq!(r.hits[0].body.matches("\n…\n").count(), MAX_WINDOWS - 1);
        assert_eq!(r.hits[0].total_hits, 10);
    }

    #[test]
    fn filename_fallback_ranks_below_content() {
        let r = search(
            &[
                (
                    "n/deploy.md",
                    "nothing here\n\nfirst\nsecond\nthird\nfourth",
                ),
                ("n/x.md", "deploy now"),
            ],
            "deploy",
        );
        assert_eq!(r.hits[0].path, "n/x.md");
        assert!(r.hits[1].filename_only);
        assert_eq!(
            r.hits[1].body,
            "(filename match)\nnothing here\nfirst\nsecond"
        );
        assert_eq!(r.terms, [("deploy".into(), 1)]);
    }

    #[test]
    fn ranking_keys_in_order() {
        let mut s = Searcher::new(Query::parse("a b"));
        let daily = |date: &str| FileMeta {
            path: format!("d/{date}.md"),
            stem: date.into(),
            date: Some(date.into()),
            is_memory_md: false,
        };
        s.add_file(daily("2026-01-01"), "a");
        s.add_file(daily("2026-01-02"), "a");
        s.add_file(meta("n/z.md"), "a\na\na");
        s.add_file(meta("n/y.md"), "a b");
        s.add_file(meta("MEMORY.md"), "a");
        s.add_file(meta("n/b.md"), "nothing");
        s.add_file(meta("n/c.md"), "a");
        let paths: Vec<_> = s.finish().hits.into_iter().map(|h| h.path).collect();
        assert_eq!(
            paths,
            [
                "MEMORY.md",
                "n/y.md",
                "n/z.md",
                "d/2026-01-02.md",
                "d/2026-01-01.md",
                "n/c.md",
                "n/b.md"
            ]
        );
    }

    #[test]
    fn render_fits_whole_hits_under_the_cap() {
        let files: Vec<(String, String)> = (0..20)
            .map(|i| {
                (
                    format!("n/{i:02}.md"),
                    format!("deploy {i}\n{}", "x".repeat(200)),
                )
            })
            .collect();
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let r = search(&files, "deploy");
        let full = r.render(1 << 20);
        assert!(full.starts_with(
            "Searched 1 term: deploy(20) across 20 files. Showing top 20 by relevance."
        ));
        let capped = r.render(1000);
        assert!(capped.len() <= 1000);
        assert!(capped.contains("more files omitted]"), "{capped}");
        let shown = capped.matches("  [matched: deploy]").count();
        assert!((3..20).contains(&shown));
        assert!(capped.contains(&format!("Showing top {shown} by relevance")));
        // One hit larger than the cap is still shown, cut.
        let r = search(
            &[("n/big.md", &format!("deploy\n{}", "y".repeat(5000)))],
            "deploy",
        );
        let out = r.render(600);
        assert!(
            out.len() <= 600 && out.contains("n/big.md  [matched: deploy]"),
            "{out}"
        );
    }

    /// The matcher as first written (lowercase every file, `contains` per
    /// line and term, windows over line indexes): the fast path must agree
    /// with it on every input.
    fn reference(files: &[(String, String)], query: &str) -> SearchResults {
        let query = Query::parse(query);
        let mut counts = vec![0; query.terms.len()];
        let mut hits = Vec::new();
        for (path, text) in files {
            let lowered = text.to_lowercase();
            let lines: Vec<&str> = text.lines().collect();
            let mut matched = vec![false; query.terms.len()];
            let mut hit_lines = Vec::new();
            for (i, low) in lowered.lines().enumerate() {
                let mut any = false;
                for (t, term) in query.lowered.iter().enumerate() {
                    if low.contains(term.as_str()) {
                        any = true;
                        matched[t] = true;
                        counts[t] += 1;
                    }
                }
                if any {
                    hit_lines.push(i);
                }
            }
            if hit_lines.is_empty() {
                continue;
            }
            let last = lines.len().saturating_sub(1);
            let mut windows: Vec<(usize, usize)> = Vec::new();
            for &i in &hit_lines {
                let lo = i.saturating_sub(CONTEXT_LINES);
                let hi = (i + CONTEXT_LINES).min(last);
                if let Some(w) = windows.last_mut()
                    && lo <= w.1 + 1
                {
                    w.1 = w.1.max(hi);
                } else if windows.len() == MAX_WINDOWS {
                    break;
                } else {
                    windows.push((lo, hi));
                }
            }
            let body = windows
                .iter()
                .map(|(lo, hi)| lines[*lo..=*hi].join("\n"))
                .collect::<Vec<_>>()
                .join("\n…\n");
            let matched_terms = query
                .terms
                .iter()
                .zip(&matched)
                .filter(|(_, m)| **m)
                .map(|(t, _)| t.clone())
                .collect();
            hits.push(SearchHit {
                path: path.clone(),
                matched_terms,
                total_hits: hit_lines.len(),
                body,
                filename_only: false,
                date: None,
                is_memory_md: false,
            });
        }
        hits.sort_by(rank);
        SearchResults {
            terms: query.terms.into_iter().zip(counts).collect(),
            hits,
        }
    }

    #[test]
    fn fast_path_agrees_with_unicode_lowercasing() {
        // Pieces chosen to hit every special case: ASCII case, CR/LF and a
        // bare CR, characters whose lowercase is ASCII (Kelvin sign, `İ`),
        // final sigma, multi-byte text around ASCII, blank lines.
        const PIECES: &[&str] = &[
            "deploy", "DEPLOY", "Dep", "loy", "staging", " ", " ", "\n", "\n", "\r\n", "\r",
            "\u{212A}", "k", "K", "İ", "i", "I", "ΟΔΟΣ", "οδος", "Σ", "é", "É", "日本", "—", "x",
            "ok", "ki", "\n\n",
        ];
        const QUERIES: &[&str] = &[
            "deploy",
            "DEPLOY staging",
            "k",
            "ok",
            "i",
            "ki",
            "xi",
            "οδος",
            "ΟΔΟΣ deploy",
            "é",
            "\u{212A}",
            "İ",
            "日本 x",
            "loy\u{212A}",
        ];
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for round in 0..400 {
            let files: Vec<(String, String)> = (0..4)
                .map(|f| {
                    let len = next(if round % 10 == 0 { 400 } else { 60 });
                    let text: String = (0..len)
                        .map(|_| match round % 3 {
                            // Sparse matches among plain lines: separate
                            // windows, touching ones, the five-window cap.
                            0 if next(8) != 0 => "plain line\n",
                            _ => PIECES[next(PIECES.len())],
                        })
                        .collect();
                    (format!("n/{round}-{f}.md"), text)
                })
                .collect();
            for query in QUERIES {
                let mut s = Searcher::new(Query::parse(query));
                for (path, text) in &files {
                    // A stem no term matches: only content hits compared.
                    s.add_file(
                        FileMeta {
                            path: path.clone(),
                            stem: "-".into(),
                            date: None,
                            is_memory_md: false,
                        },
                        text,
                    );
                }
                assert_eq!(
                    s.finish(),
                    reference(&files, query),
                    "query {query:?} on {files:?}"
                );
            }
        }
    }

    /// `render` as first written: every hit formatted up front.
    fn reference_render(r: &SearchResults, max_bytes: usize) -> String {
        let terms: Vec<String> = r.terms.iter().map(|(t, c)| format!("{t}({c})")).collect();
        let terms = terms.join(" ");
        let total = r.hits.len();
        let summary = |shown: usize| {
            format!(
                "Searched {} term{}: {terms} across {total} file{}. Showing top {shown} by relevance.",
                r.terms.len(),
                plural(r.terms.len()),
                plural(total),
            )
        };
        let omitted_line = |omitted: usize| {
            if omitted == 0 {
                String::new()
            } else {
                format!("\n\n…[{omitted} more file{} omitted]", plural(omitted))
            }
        };
        let blocks: Vec<String> = r
            .hits
            .iter()
            .map(|h| {
                format!(
                    "{}  [matched: {}]\n{}",
                    h.path,
                    h.matched_terms.join(", "),
                    h.body
                )
            })
            .collect();
        let mut used = summary(total).len() + omitted_line(total).len();
        let mut shown = 0;
        for block in &blocks {
            if used + 2 + block.len() > max_bytes {
                break;
            }
            used += 2 + block.len();
            shown += 1;
        }
        let mut out = summary(shown.max(1));
        let room = max_bytes.saturating_sub(out.len() + 2 + omitted_line(total - 1).len());
        if shown == 0 && room >= TRUNCATED.len() + MIN_CUT_HIT {
            out.push_str("\n\n");
            out.push_str(&truncate_with_marker(&blocks[0], room, TRUNCATED));
            shown = 1;
        } else if shown == 0 {
            out = summary(0);
        } else {
            for block in &blocks[..shown] {
                out.push_str("\n\n");
                out.push_str(block);
            }
        }
        out.push_str(&omitted_line(total - shown));
        truncate_with_marker(&out, max_bytes, TRUNCATED)
    }

    #[test]
    fn render_writes_what_formatting_every_hit_would() {
        let files: Vec<(String, String)> = (0..12)
            .map(|i| {
                (
                    format!("n/{i:02}.md"),
                    format!("deploy {i} staging\n{}\nrollback", "x".repeat(40 * i)),
                )
            })
            .collect();
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        for query in ["deploy", "deploy rollback staging", "11"] {
            let r = search(&files, query);
            for max in (0..3000).step_by(7) {
                assert_eq!(r.render(max), reference_render(&r, max), "{query} {max}");
            }
        }
    }

    #[test]
    fn render_empty_cases() {
        assert!(search(&[], "  ").render(500).starts_with("Empty query"));
        assert_eq!(
            search(&[("n/a.md", "x")], "nope").render(500),
            "No matches for nope(0)."
        );
    }

    #[test]
    fn tiny_caps_never_show_a_cut_marker() {
        let mut s = Searcher::new(Query::parse("tabs"));
        s.add_file(meta("MEMORY.md"), "- prefers tabs");
        let r = s.finish();
        for max in 0..200 {
            let out = r.render(max);
            assert!(out.len() <= max, "{max}: {out:?}");
            let broken = out.contains("…[s") && !out.contains("…[search truncated]")
                || out.contains("…[1 more") && !out.contains("…[1 more file omitted]");
            assert!(!broken, "{max}: {out:?}");
        }
    }
}
