//! Gated fusion: the lexical ranking stands when its words are strong
//! evidence; meaning decides when they are weak.
//!
//! Plain reciprocal rank fusion was measured to throw the gain away: every
//! common word matches most files, so a file only the vectors put first
//! loses to files found both ways. Instead, [`weak`] judges the lexical
//! evidence and [`fuse`] either returns the lexical hits untouched or
//! orders files by meaning, with a small credit for the query words they
//! hold.

use crate::rank::stem;
use crate::rank::temporal::WEEKDAYS;
use crate::search::{SearchHit, SearchResults};
use crate::text::is_stop_word;

/// What a hit found only by meaning shows as its matched terms.
pub const BY_MEANING: &str = "(meaning)";

/// The knobs of the gate and the fused order (chosen on tuning sets only).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// A query word that no file holds makes the evidence weak.
    pub gate_missing: bool,
    /// With `gate_missing`, the share of content words no file holds must
    /// be above this (one unknown word among five is not weak evidence).
    pub min_missing_share: f32,
    /// The best lexical hit matching at most this share of the query's
    /// content words makes the evidence weak (0 turns the rule off).
    pub gate_coverage: f32,
    /// When the best lexical hit matches at least this share of the query's
    /// content words, the words are partly strong evidence: the first
    /// [`Params::keep_top`] lexical hits keep their places and meaning
    /// orders the rest.
    pub strong_coverage: f32,
    /// Lexical hits that keep their places under `strong_coverage`.
    pub keep_top: usize,
    /// In the fused order, a file's score is its best chunk's cosine plus
    /// this times the share of the query's content words it holds.
    pub lexical_weight: f32,
    /// Hits found only by meaning that may join the results.
    pub max_meaning_only: usize,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            gate_missing: true,
            min_missing_share: 0.0,
            gate_coverage: 0.0,
            strong_coverage: 0.5,
            keep_top: 2,
            lexical_weight: 0.15,
            max_meaning_only: 20,
        }
    }
}

/// A file's semantic score: its best chunk's cosine to the query, and the
/// line that chunk starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// Store-relative path.
    pub path: String,
    /// Best cosine over the file's chunks.
    pub score: f32,
    /// 1-based line of the best chunk.
    pub line: u32,
}

/// The query's content words: lowercase, not stop words, at least two
/// characters, in order, once each.
fn content_words(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in query
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .map(|w| {
            w.trim_matches(|c: char| c == '-' || c == '.')
                .to_lowercase()
        })
    {
        if w.chars().count() >= 2 && !is_stop_word(&w) && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// Does `word` look like an identifier (digits, `_`, inner `-` or `.`, or
/// an upper-case letter after a lower-case one)? Such words stay lexical.
pub fn is_identifier(word: &str) -> bool {
    let inner = word.trim_matches(|c: char| !c.is_alphanumeric());
    inner.chars().any(|c| c.is_ascii_digit() || c == '_')
        || inner.contains(['-', '.', '/'])
        || inner
            .chars()
            .zip(inner.chars().skip(1))
            .any(|(a, b)| a.is_lowercase() && b.is_uppercase())
}

/// A content word of the query and the other forms the ranker searches
/// for it ([`stem::related`]).
struct Word {
    text: String,
    related: Vec<String>,
}

impl Word {
    /// The query's content words, each with its related forms.
    fn all(query: &str) -> Vec<Word> {
        content_words(query)
            .into_iter()
            .map(|text| Word {
                related: stem::related(&text).into_iter().map(|(f, _)| f).collect(),
                text,
            })
            .collect()
    }

    /// Whether the matched term `m` (lowercase) is this word: itself,
    /// through a stem (`deploy` for `deployment`, `runs` for `run`), or a
    /// related form (`symbolication` for `symbolicate`).
    fn is(&self, m: &str) -> bool {
        let w = self.text.as_str();
        m == w
            || m.contains(w)
            || (m.len() >= 4 && w.starts_with(m))
            || self.related.iter().any(|r| r == m)
    }
}

/// Share of `words` that `hit` matched.
fn coverage(words: &[Word], hit: &SearchHit) -> f32 {
    if words.is_empty() {
        return 0.0;
    }
    let matched: Vec<String> = hit.matched_terms.iter().map(|t| t.to_lowercase()).collect();
    let n = words
        .iter()
        .filter(|w| matched.iter().any(|m| w.is(m)))
        .count();
    n as f32 / words.len() as f32
}

/// Whether the lexical evidence for `query` is weak enough that meaning
/// should decide. Never for quoted text, a time word (`has_dates`), or a
/// query with an identifier some file holds.
pub fn weak(query: &str, lexical: &SearchResults, has_dates: bool, params: &Params) -> bool {
    if has_dates || query.contains('"') {
        return false;
    }
    let words = Word::all(query);
    if words.is_empty() {
        return false;
    }
    let count = |w: &str| {
        lexical
            .terms
            .iter()
            .find(|(t, _)| t.to_lowercase() == w)
            .map(|(_, c)| *c)
    };
    // A word no file holds, nor any form the ranker searched for it.
    let is_missing = |w: &Word| {
        count(&w.text) == Some(0) && w.related.iter().all(|r| count(r).unwrap_or(0) == 0)
    };
    let raw: Vec<&str> = query.split_whitespace().collect();
    if raw
        .iter()
        .any(|w| is_identifier(w) && count(&w.to_lowercase()).is_some_and(|c| c > 0))
    {
        return false;
    }
    // A best hit holding every word, through a stem or a relative, is
    // strong evidence, whatever the summary counts.
    if lexical
        .hits
        .first()
        .is_some_and(|top| coverage(&words, top) >= 1.0)
    {
        return false;
    }
    let missing = words.iter().filter(|w| is_missing(w)).count();
    if params.gate_missing
        && missing > 0
        && missing as f32 / words.len() as f32 > params.min_missing_share
    {
        return true;
    }
    match lexical.hits.first() {
        None => true,
        Some(top) => coverage(&words, top) <= params.gate_coverage,
    }
}

/// The hits in fused order. With `weak` false, `lexical`'s hits come back
/// exactly. Otherwise every lexical hit and up to
/// [`Params::max_meaning_only`] files found only by meaning are ordered by
/// cosine plus [`Params::lexical_weight`] times the share of query words
/// they hold; `make_hit` builds the hit of a meaning-only file (its path,
/// its best chunk's line) or `None` when it cannot be read.
pub fn fuse(
    query: &str,
    lexical: SearchResults,
    semantic: &[Scored],
    weak: bool,
    params: &Params,
    make_hit: &mut dyn FnMut(&str, u32) -> Option<SearchHit>,
) -> SearchResults {
    if !weak || semantic.is_empty() {
        return lexical;
    }
    let words = Word::all(query);
    let sem_of = |path: &str| {
        semantic
            .iter()
            .find(|s| s.path == path)
            .map_or(0.0, |s| s.score)
    };
    let keep = match lexical.hits.first() {
        Some(top) if coverage(&words, top) >= params.strong_coverage => params.keep_top,
        _ => 0,
    };
    let mut hits = lexical.hits.into_iter();
    let kept: Vec<SearchHit> = hits.by_ref().take(keep).collect();
    let mut scored: Vec<(f32, usize, SearchHit)> = Vec::new();
    for (i, hit) in hits.enumerate() {
        let s = sem_of(&hit.path) + params.lexical_weight * coverage(&words, &hit);
        scored.push((s, i, hit));
    }
    let mut best: Vec<&Scored> = semantic.iter().collect();
    best.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.path.cmp(&b.path)));
    let mut added = 0;
    for s in best {
        if added >= params.max_meaning_only {
            break;
        }
        if scored.iter().any(|(_, _, h)| h.path == s.path) || kept.iter().any(|h| h.path == s.path)
        {
            continue;
        }
        if let Some(hit) = make_hit(&s.path, s.line) {
            scored.push((s.score, usize::MAX, hit));
            added += 1;
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    SearchResults {
        terms: lexical.terms,
        hits: kept
            .into_iter()
            .chain(scored.into_iter().map(|(_, _, h)| h))
            .collect(),
    }
}

/// Words that ask for the newest entry when a noun follows them.
const RECENCY: &[&str] = &["latest", "last", "newest", "current", "recent"];
/// Lexical hits among which the newest log is looked for: a log far
/// down mentions the words in passing.
const RECENCY_TOP: usize = 10;
/// Words after `last` that make it a time word (`last week`), not a
/// request for the newest entry; weekdays too (`last friday`).
const TIME_UNITS: &[&str] = &[
    "week", "weeks", "month", "months", "year", "years", "night", "nights", "quarter", "quarters",
    "day", "days", "time", "weekend", "sprint", "few",
];

/// Does `query` ask for the newest entry about something (`latest X`,
/// `most recent X`, `current X`, `last X` where X is not a time unit)?
pub fn asks_recency(query: &str) -> bool {
    let words: Vec<String> = query
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    words.windows(2).any(|w| {
        let (cue, next) = (w[0].as_str(), w[1].as_str());
        let number = !next.is_empty() && next.chars().all(|c| c.is_ascii_digit());
        let time_word =
            TIME_UNITS.contains(&next) || WEEKDAYS.contains(&next) || (cue == "last" && number);
        let noun = !next.is_empty() && !is_stop_word(next);
        RECENCY.contains(&cue) && noun && !time_word
    })
}

/// For a query that [`asks_recency`]: the daily logs that hold the most of
/// its other content words (at least half) come first, newest first; the
/// other hits keep their order after them. Otherwise the hits unchanged.
pub fn recency_first(query: &str, mut lexical: SearchResults) -> SearchResults {
    if !asks_recency(query) {
        return lexical;
    }
    let words: Vec<Word> = Word::all(query)
        .into_iter()
        .filter(|w| !RECENCY.contains(&w.text.as_str()) && w.text != "most" && w.text != "state")
        .collect();
    if words.is_empty() {
        return lexical;
    }
    let best = lexical
        .hits
        .iter()
        .take(RECENCY_TOP)
        .filter(|h| h.date.is_some())
        .map(|h| coverage(&words, h))
        .fold(0.0f32, f32::max);
    if best < 0.5 {
        return lexical;
    }
    let (logs, rest): (Vec<_>, Vec<_>) =
        lexical.hits.into_iter().enumerate().partition(|(i, h)| {
            *i < RECENCY_TOP && h.date.is_some() && coverage(&words, h) >= best
        });
    let mut logs: Vec<SearchHit> = logs.into_iter().map(|(_, h)| h).collect();
    let rest: Vec<SearchHit> = rest.into_iter().map(|(_, h)| h).collect();
    logs.sort_by(|a, b| b.date.cmp(&a.date));
    logs.extend(rest);
    lexical.hits = logs;
    lexical
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(path: &str, matched: &[&str]) -> SearchHit {
        SearchHit {
            path: path.into(),
            matched_terms: matched.iter().map(|s| s.to_string()).collect(),
            total_hits: 1,
            body: String::new(),
            filename_only: false,
            date: None,
            is_memory_md: false,
        }
    }

    fn results(terms: &[(&str, usize)], hits: Vec<SearchHit>) -> SearchResults {
        SearchResults {
            terms: terms.iter().map(|(t, c)| (t.to_string(), *c)).collect(),
            hits,
        }
    }

    fn sem(path: &str, score: f32) -> Scored {
        Scored {
            path: path.into(),
            score,
            line: 1,
        }
    }

    #[test]
    fn a_word_held_through_a_form_the_ranker_searched_is_not_missing() {
        let p = Params::default();
        // `symbolicate` is in no file; the ranker also searched its
        // relative `symbolication`, which one file holds.
        let lex = results(
            &[("symbolicate", 0), ("symbolication", 1)],
            vec![hit("crash-codes.md", &["symbolication"])],
        );
        assert!(!weak("symbolicate", &lex, false, &p));
        // Nothing of it anywhere: meaning decides.
        let lex = results(&[("symbolicate", 0), ("symbolication", 0)], vec![]);
        assert!(weak("symbolicate", &lex, false, &p));
    }

    #[test]
    fn a_word_no_file_holds_is_weak_evidence() {
        let p = Params::default();
        let lex = results(
            &[("city", 0), ("servers", 3)],
            vec![hit("a.md", &["servers"])],
        );
        assert!(weak("which city do our servers run in", &lex, false, &p));
        let lex = results(
            &[("city", 2), ("servers", 3)],
            vec![hit("a.md", &["city", "servers"])],
        );
        assert!(!weak("which city do our servers run in", &lex, false, &p));
    }

    #[test]
    fn quotes_dates_and_known_identifiers_stay_lexical() {
        let p = Params::default();
        let lex = results(
            &[("E1101", 4), ("meaning", 0)],
            vec![hit("a.md", &["E1101"])],
        );
        assert!(!weak("E1101 meaning", &lex, false, &p));
        let lex = results(&[("city", 0)], vec![]);
        assert!(!weak("\"city\"", &lex, false, &p));
        assert!(!weak("city", &lex, true, &p));
        assert!(weak("city", &lex, false, &p));
    }

    #[test]
    fn strong_evidence_returns_the_lexical_hits_exactly() {
        let lex = results(&[("a", 1)], vec![hit("x.md", &["a"]), hit("y.md", &["a"])]);
        let out = fuse(
            "a",
            lex.clone(),
            &[sem("y.md", 0.9)],
            false,
            &Params::default(),
            &mut |_, _| None,
        );
        assert_eq!(out, lex);
    }

    #[test]
    fn weak_evidence_orders_by_meaning_and_adds_files() {
        let lex = results(
            &[("city", 0), ("servers", 1), ("run", 1)],
            vec![hit("x.md", &["servers"])],
        );
        let semantic = [sem("x.md", 0.2), sem("region.md", 0.7), sem("z.md", 0.1)];
        let mut made = Vec::new();
        let out = fuse(
            "city servers run",
            lex,
            &semantic,
            true,
            &Params::default(),
            &mut |p, _| {
                made.push(p.to_owned());
                Some(hit(p, &[BY_MEANING]))
            },
        );
        let paths: Vec<&str> = out.hits.iter().map(|h| h.path.as_str()).collect();
        assert_eq!(paths, ["region.md", "x.md", "z.md"]);
        assert_eq!(out.hits[0].matched_terms, [BY_MEANING]);
        assert_eq!(made, ["region.md", "z.md"]);
    }

    #[test]
    fn a_best_hit_holding_half_the_words_keeps_its_place() {
        // `deploy` matches `deployment` through its stem: the best hit holds
        // two of four words, so the first two lexical hits stay and meaning
        // orders the rest.
        let lex = results(
            &[("undo", 0), ("bad", 0), ("model", 9), ("deployment", 2)],
            vec![
                hit("serving.md", &["model", "deploy"]),
                hit("legacy.md", &["deployment"]),
                hit("catalog.md", &["model"]),
                hit("layout.md", &["model"]),
            ],
        );
        let semantic = [
            sem("serving.md", 0.3),
            sem("legacy.md", 0.1),
            sem("catalog.md", 0.2),
            sem("layout.md", 0.6),
            sem("rollback.md", 0.9),
        ];
        let out = fuse(
            "how do I undo a bad model deployment",
            lex,
            &semantic,
            true,
            &Params::default(),
            &mut |p, _| Some(hit(p, &[BY_MEANING])),
        );
        let paths: Vec<&str> = out.hits.iter().map(|h| h.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "serving.md",
                "legacy.md",
                "rollback.md",
                "layout.md",
                "catalog.md"
            ]
        );
    }

    #[test]
    fn recency_words_put_the_newest_log_first() {
        assert!(asks_recency("latest bookings release"));
        assert!(asks_recency("most recent auth-service deploy"));
        assert!(asks_recency("current state of the flaky test"));
        assert!(!asks_recency("what did we do last week"));
        assert!(!asks_recency("deploys in the last 3 days"));
        let log = |path: &str, date: &str, m: &[&str]| {
            let mut h = hit(path, m);
            h.date = Some(date.into());
            h
        };
        let lex = results(
            &[("bookings", 3), ("release", 9)],
            vec![
                hit("notes/bookings.md", &["bookings", "release"]),
                log("d/2026-01-02.md", "2026-01-02", &["bookings", "release"]),
                log("d/2026-03-01.md", "2026-03-01", &["bookings", "release"]),
                log("d/2026-04-01.md", "2026-04-01", &["release"]),
            ],
        );
        let out = recency_first("latest bookings release", lex.clone());
        let paths: Vec<&str> = out.hits.iter().map(|h| h.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "d/2026-03-01.md",
                "d/2026-01-02.md",
                "notes/bookings.md",
                "d/2026-04-01.md"
            ]
        );
        assert_eq!(recency_first("bookings release", lex.clone()), lex);
    }

    #[test]
    fn identifiers() {
        for w in ["E1101", "eu-west-1", "retry_count", "fooBar", "a.b", "v2"] {
            assert!(is_identifier(w), "{w}");
        }
        for w in ["city", "servers", "Deploy", "(why)"] {
            assert!(!is_identifier(w), "{w}");
        }
    }
}
