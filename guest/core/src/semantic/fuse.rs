//! Score-level fusion: the lexical ranking and meaning, each normalised
//! per query, weighed by how decisive the words are.
//!
//! Plain reciprocal rank fusion was measured to throw the gain away: every
//! common word matches most files, so a file only the vectors put first
//! loses to files found both ways. Instead [`lexical_weight`] reads how
//! decisive the lexical evidence is (the share of the query's idf mass the
//! best hit holds, and its margin over the next), and [`fuse`] orders the
//! hits by that weight times their lexical score (over the best's) plus the
//! rest times their closeness in meaning (the cosine, scaled between the
//! query's farthest and closest file; MEMORY.md's at half, as its words
//! count, and a daily log's at 0.8). Quoted text, an identifier some file
//! holds, time words (a date, `the day before the recital`) and a request
//! for the newest entry that the daily logs answer keep the lexical order;
//! the ranking's tiers are never crossed. A file the words did not find
//! joins only when its cosine reaches [`Params::floor`].

use std::collections::HashMap;

use crate::rank::stem;
use crate::rank::temporal::WEEKDAYS;
use crate::rank::{Evidence, MEMORY_MD_WEIGHT};
use crate::search::{SearchHit, SearchResults};
use crate::text::is_stop_word;

/// What a hit found only by meaning shows as its matched terms.
pub const BY_MEANING: &str = "(meaning)";

/// The knobs of the fusion (chosen on the tune sets only; `docs/recall.md`
/// has the runs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// The lexical weight when the best hit holds none of the query's idf
    /// mass and has no margin.
    pub base: f32,
    /// Added to the weight per unit of the best hit's idf share.
    pub share: f32,
    /// Added to the weight per unit of the best hit's margin over the next
    /// hit of its tier (`(s1 - s2) / s1`; 0 for a lone hit: one file
    /// holding a common word is no evidence that it is the answer).
    pub margin: f32,
    /// A best hit holding every word (its idf share 1) is decisive: the
    /// lexical order stands.
    pub full_stands: bool,
    /// A query with time words keeps the lexical order outright, not only
    /// its tiers.
    pub dates_stand: bool,
    /// At or above this weight the lexical order stands and no vector is
    /// read: meaning could move nothing that matters.
    pub stand_at: f32,
    /// When the best hit holds at least this share of the query's idf
    /// mass, the first [`Params::keep_top`] lexical hits keep their places
    /// and meaning reorders the rest (above 1: never).
    pub keep_share: f32,
    /// Lexical hits that keep their places under [`Params::keep_share`].
    pub keep_top: usize,
    /// The cosine a file the words did not find needs to join by meaning.
    pub floor: f32,
    /// Files found only by meaning that may join the results.
    pub max_meaning_only: usize,
    /// What MEMORY.md's closeness counts for: it is in the prompt already,
    /// so, as its lexical relevance does ([`MEMORY_MD_WEIGHT`]), it counts
    /// half, and a note about as close in meaning comes first.
    pub memory_md: f32,
    /// What a daily log's closeness counts for. A log narrates a day
    /// around many topics, and its short entries read like questions, so
    /// its cosine overstates it against a note that holds the fact: a
    /// note about as close comes first.
    pub daily_log: f32,
    /// A request for the newest entry keeps the lexical order even when no
    /// daily log holds half its words (else only when [`recency_first`]
    /// put such logs first).
    pub recency_stands: bool,
    /// Time relative to an event (`the day before his recital`, `two weeks
    /// after the launch`) keeps the lexical order, as time words do with
    /// [`Params::dates_stand`].
    pub relative_stands: bool,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            base: 0.0,
            share: 0.45,
            margin: 0.5,
            full_stands: true,
            dates_stand: true,
            stand_at: 0.9,
            keep_share: 2.0,
            keep_top: 1,
            floor: 0.3,
            max_meaning_only: 20,
            memory_md: MEMORY_MD_WEIGHT as f32,
            daily_log: 0.8,
            recency_stands: false,
            relative_stands: true,
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

/// How much the lexical order counts against meaning for `query`, from 0
/// (meaning decides) to 1 (the words decide; nothing is read for meaning):
/// 1 for quoted text, an identifier some file holds, a request for the
/// newest entry whose logs [`recency_first`] put first (`recency`), or time
/// words (`has_dates`, or time relative to an event with
/// [`Params::relative_stands`]) with [`Params::dates_stand`]; 0 when no
/// file holds a word. Otherwise
/// [`Params::base`] plus [`Params::share`] times the best hit's idf share
/// plus [`Params::margin`] times its margin over the next hit of its tier,
/// at most 1. `evidence` is the lexical hits' own, in their order.
pub fn lexical_weight(
    query: &str,
    lexical: &SearchResults,
    evidence: &[Evidence],
    recency: bool,
    has_dates: bool,
    params: &Params,
) -> f32 {
    if recency
        || ((has_dates || (params.relative_stands && time_relative(query))) && params.dates_stand)
        || query.contains('"')
        || content_words(query).is_empty()
    {
        return 1.0;
    }
    let count = |w: &str| {
        lexical
            .terms
            .iter()
            .find(|(t, _)| t.to_lowercase() == w)
            .map(|(_, c)| *c)
    };
    if query
        .split_whitespace()
        .any(|w| is_identifier(w) && count(&w.to_lowercase()).is_some_and(|c| c > 0))
    {
        return 1.0;
    }
    let Some(top) = evidence.first() else {
        return 0.0;
    };
    if params.full_stands && top.idf_share >= 1.0 - 1e-9 {
        return 1.0;
    }
    let margin = match evidence.get(1) {
        Some(next) if next.tier == top.tier && top.score > 0.0 => {
            ((top.score - next.score) / top.score).clamp(0.0, 1.0)
        }
        _ => 0.0,
    };
    let w = params.base + params.share * top.idf_share as f32 + params.margin * margin as f32;
    w.clamp(0.0, 1.0)
}

/// What [`fuse`] did besides ordering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Fusion {
    /// Hits that joined by meaning alone (marked [`BY_MEANING`]).
    pub by_meaning: usize,
    /// Some file reached [`Params::floor`].
    pub close: bool,
}

/// The hits in fused order, `weight` from [`lexical_weight`]. At or above
/// [`Params::stand_at`], or with no vectors, `lexical` comes back exactly.
/// Otherwise each lexical hit scores `weight · score / best score + (1 −
/// weight) · closeness`, where closeness is its best chunk's cosine scaled
/// between the farthest and the closest file (0 without a vector), and up
/// to [`Params::max_meaning_only`] files the words did not find, closest
/// first, join with `(1 − weight) · closeness` when their cosine reaches
/// [`Params::floor`]; `make_hit` builds such a hit (its path, its best
/// chunk's line) or `None` when it cannot be read. Hits are ordered by the
/// ranking's tier first (a file joining by meaning is in the tier of any
/// other match), then by fused score, then in lexical order; when the best
/// hit holds [`Params::keep_share`] of the query's idf mass, the first
/// [`Params::keep_top`] hits keep their places above them all.
pub fn fuse(
    lexical: SearchResults,
    evidence: &[Evidence],
    semantic: &[Scored],
    weight: f32,
    params: &Params,
    make_hit: &mut dyn FnMut(&str, u32) -> Option<SearchHit>,
) -> (SearchResults, Fusion) {
    let close = semantic.iter().any(|s| s.score >= params.floor);
    if weight >= params.stand_at || semantic.is_empty() {
        return (
            lexical,
            Fusion {
                by_meaning: 0,
                close,
            },
        );
    }
    let (lo, hi) = semantic.iter().fold((f32::MAX, f32::MIN), |(lo, hi), s| {
        (lo.min(s.score), hi.max(s.score))
    });
    let closeness = |c: f32| {
        if hi > lo {
            ((c - lo) / (hi - lo)).clamp(0.0, 1.0)
        } else {
            1.0
        }
    };
    let counts = |hit: &SearchHit| {
        if hit.is_memory_md {
            params.memory_md
        } else if hit.date.is_some() {
            params.daily_log
        } else {
            1.0
        }
    };
    let cosine: HashMap<&str, f32> = semantic
        .iter()
        .map(|s| (s.path.as_str(), s.score))
        .collect();
    let best = evidence.first().map_or(0.0, |e| e.score);
    let w = weight.clamp(0.0, 1.0);
    let keep = match evidence.first() {
        Some(top) if top.idf_share as f32 >= params.keep_share => params.keep_top,
        _ => 0,
    };
    let mut hits = lexical.hits.into_iter();
    let kept: Vec<SearchHit> = hits.by_ref().take(keep).collect();
    // (tier, fused score, lexical rank, hit)
    let mut scored: Vec<(u8, f32, usize, SearchHit)> = Vec::new();
    for (i, hit) in hits.enumerate() {
        let i = i + kept.len();
        let e = evidence.get(i);
        let lex = match e {
            Some(e) if best > 0.0 => (e.score / best) as f32,
            _ => 0.0,
        };
        let sem = cosine.get(hit.path.as_str()).map_or(0.0, |&c| closeness(c)) * counts(&hit);
        let tier = e.map_or(LOOSE_TIER, |e| e.tier);
        scored.push((tier, w * lex + (1.0 - w) * sem, i, hit));
    }
    let mut nearest: Vec<&Scored> = semantic
        .iter()
        .filter(|s| s.score >= params.floor)
        .collect();
    nearest.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.path.cmp(&b.path)));
    let mut by_meaning = 0;
    for s in nearest {
        if by_meaning >= params.max_meaning_only {
            break;
        }
        if scored.iter().any(|(_, _, _, h)| h.path == s.path)
            || kept.iter().any(|h| h.path == s.path)
        {
            continue;
        }
        if let Some(hit) = make_hit(&s.path, s.line) {
            let sem = closeness(s.score) * counts(&hit);
            scored.push((LOOSE_TIER, (1.0 - w) * sem, usize::MAX, hit));
            by_meaning += 1;
        }
    }
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
    let results = SearchResults {
        terms: lexical.terms,
        hits: kept
            .into_iter()
            .chain(scored.into_iter().map(|(_, _, _, h)| h))
            .collect(),
    };
    (results, Fusion { by_meaning, close })
}

/// The ranking's tier of a plain match ([`Evidence::tier`]): where a file
/// joining by meaning goes.
const LOOSE_TIER: u8 = 3;

/// Words that ask for the newest entry when a noun follows them.
const RECENCY: &[&str] = &["latest", "last", "newest", "current", "recent"];
/// Words of a recency request that say nothing about what is asked for
/// (`most recent`, `current state of`, `last time`).
const RECENCY_FILLER: &[&str] = &["most", "state", "time"];
/// Lexical hits among which the newest log is looked for: a log far
/// down mentions the words in passing.
const RECENCY_TOP: usize = 10;
/// Words after `last` that make it a time word (`last week`), not a
/// request for the newest entry; weekdays too (`last friday`).
const TIME_UNITS: &[&str] = &[
    "week", "weeks", "month", "months", "year", "years", "night", "nights", "quarter", "quarters",
    "day", "days", "time", "weekend", "sprint", "few",
];

/// `query`'s words, lowercased, without the punctuation around them.
fn lower_words(query: &str) -> Vec<String> {
    query
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect()
}

/// Does `query` ask for the newest entry about something (`latest X`,
/// `most recent X`, `current X`, `last X` where X is not a time unit, or
/// `last time` and what happened then)?
pub fn asks_recency(query: &str) -> bool {
    let words = lower_words(query);
    words.windows(2).any(|w| {
        let (cue, next) = (w[0].as_str(), w[1].as_str());
        if cue == "last" && next == "time" {
            return true;
        }
        let number = !next.is_empty() && next.chars().all(|c| c.is_ascii_digit());
        let time_word =
            TIME_UNITS.contains(&next) || WEEKDAYS.contains(&next) || (cue == "last" && number);
        let noun = !next.is_empty() && !is_stop_word(next);
        RECENCY.contains(&cue) && noun && !time_word
    })
}

/// Does `query` place something in time by an event (`the day before
/// his recital`, `two weeks after the launch`): a unit of time followed by
/// `before` or `after`?
pub fn time_relative(query: &str) -> bool {
    let words = lower_words(query);
    words.windows(2).any(|w| {
        TIME_UNITS.contains(&w[0].as_str())
            && w[0] != "time"
            && w[0] != "few"
            && (w[1] == "before" || w[1] == "after")
    })
}

/// For a query that [`asks_recency`]: the daily logs that hold the most of
/// its other content words (at least half) come first, newest first; the
/// other hits keep their order after them, and `true`. Otherwise the hits
/// unchanged, and `false`.
pub fn recency_first(query: &str, mut lexical: SearchResults) -> (SearchResults, bool) {
    if !asks_recency(query) {
        return (lexical, false);
    }
    let words: Vec<Word> = Word::all(query)
        .into_iter()
        .filter(|w| {
            !RECENCY.contains(&w.text.as_str()) && !RECENCY_FILLER.contains(&w.text.as_str())
        })
        .collect();
    if words.is_empty() {
        return (lexical, false);
    }
    let best = lexical
        .hits
        .iter()
        .take(RECENCY_TOP)
        .filter(|h| h.date.is_some())
        .map(|h| coverage(&words, h))
        .fold(0.0f32, f32::max);
    if best < 0.5 {
        return (lexical, false);
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
    (lexical, true)
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

    /// Knobs the tests below are worked out with (not the tuned defaults).
    fn knobs() -> Params {
        Params {
            base: 0.2,
            share: 0.5,
            margin: 0.3,
            full_stands: true,
            dates_stand: false,
            stand_at: 0.9,
            keep_share: 2.0,
            keep_top: 1,
            floor: 0.3,
            max_meaning_only: 20,
            memory_md: 1.0,
            daily_log: 1.0,
            recency_stands: true,
            relative_stands: false,
        }
    }

    fn ev(score: f64, idf_share: f64) -> Evidence {
        Evidence {
            tier: 3,
            score,
            idf_share,
        }
    }

    fn order(out: &SearchResults) -> Vec<&str> {
        out.hits.iter().map(|h| h.path.as_str()).collect()
    }

    /// Four lexical hits, the first well ahead; `region.md` holds none of
    /// the words but is the closest in meaning, `far.md` the farthest.
    fn four() -> (SearchResults, Vec<Evidence>, Vec<Scored>) {
        let lex = results(
            &[("servers", 4), ("city", 0)],
            vec![
                hit("a.md", &["servers"]),
                hit("b.md", &["servers"]),
                hit("c.md", &["servers"]),
                hit("d.md", &["servers"]),
            ],
        );
        let evidence = vec![ev(8.0, 0.4), ev(4.0, 0.4), ev(3.9, 0.4), ev(3.8, 0.4)];
        let semantic = vec![
            sem("a.md", 0.30),
            sem("b.md", 0.20),
            sem("c.md", 0.25),
            sem("d.md", 0.60),
            sem("region.md", 0.70),
            sem("far.md", 0.05),
        ];
        (lex, evidence, semantic)
    }

    fn made(p: &str, _: u32) -> Option<SearchHit> {
        Some(hit(p, &[BY_MEANING]))
    }

    #[test]
    fn the_weight_grows_with_the_idf_share_and_the_margin() {
        let p = knobs();
        let lex = results(
            &[("servers", 4), ("city", 0)],
            vec![hit("a.md", &["servers"])],
        );
        let w = |e: &[Evidence]| lexical_weight("city servers", &lex, e, false, false, &p);
        // No hit at all: meaning decides.
        assert_eq!(w(&[]), 0.0);
        // A lone hit has no margin: its share alone counts.
        assert!((w(&[ev(2.0, 0.5)]) - (0.2 + 0.5 * 0.5)).abs() < 1e-6);
        // Two hits level, rare words missing: the weight is lowest.
        assert!((w(&[ev(2.0, 0.0), ev(2.0, 0.0)]) - 0.2).abs() < 1e-6);
        let low = w(&[ev(2.0, 0.2), ev(1.9, 0.2)]);
        let higher_share = w(&[ev(2.0, 0.6), ev(1.9, 0.6)]);
        let higher_margin = w(&[ev(2.0, 0.2), ev(1.0, 0.2)]);
        assert!(
            low < higher_share && low < higher_margin,
            "{low} {higher_share} {higher_margin}"
        );
        // A hit of a lower tier is no competitor for the margin.
        let mut other = ev(1.9, 0.2);
        other.tier = 4;
        assert_eq!(w(&[ev(2.0, 0.2), other]), w(&[ev(2.0, 0.2)]));
        // A best hit holding every word decides.
        assert_eq!(w(&[ev(2.0, 1.0), ev(1.9, 1.0)]), 1.0);
    }

    #[test]
    fn quotes_known_identifiers_recency_and_dates_stay_lexical() {
        let p = knobs();
        let lex = results(
            &[("E1101", 4), ("meaning", 0)],
            vec![hit("a.md", &["E1101"]), hit("b.md", &["E1101"])],
        );
        let e = [ev(2.0, 0.3), ev(2.0, 0.3)];
        assert_eq!(
            lexical_weight("E1101 meaning", &lex, &e, false, false, &p),
            1.0
        );
        let lex = results(&[("city", 0)], vec![]);
        assert_eq!(lexical_weight("\"city\"", &lex, &[], false, false, &p), 1.0);
        assert_eq!(
            lexical_weight("latest city", &lex, &[], true, false, &p),
            1.0
        );
        assert_eq!(lexical_weight("city", &lex, &[], false, false, &p), 0.0);
        // An identifier no file holds is no guarantee: meaning decides.
        let lex = results(&[("E2202", 0)], vec![]);
        assert_eq!(lexical_weight("E2202", &lex, &[], false, false, &p), 0.0);
        // Time words keep their tiers always, and the whole order with
        // `dates_stand`.
        let dates = Params {
            dates_stand: true,
            ..p
        };
        assert_eq!(lexical_weight("city", &lex, &[], false, true, &dates), 1.0);
        assert_eq!(lexical_weight("city", &lex, &[], false, true, &p), 0.0);
    }

    #[test]
    fn decisive_words_return_the_lexical_hits_exactly() {
        let (lex, evidence, semantic) = four();
        let p = knobs();
        let (out, fusion) = fuse(lex.clone(), &evidence, &semantic, p.stand_at, &p, &mut made);
        assert_eq!(out, lex);
        assert_eq!(fusion.by_meaning, 0);
        let (out, _) = fuse(lex.clone(), &evidence, &[], 0.0, &p, &mut made);
        assert_eq!(out, lex);
    }

    #[test]
    fn strong_lexical_evidence_keeps_the_first_hit_ahead_of_closer_files() {
        // A heavy lexical weight: `a.md`, twice the next score, stays first
        // though `d.md` and `region.md` are closer in meaning; among the
        // near-level rest, meaning reorders.
        let (lex, evidence, semantic) = four();
        let (out, fusion) = fuse(lex, &evidence, &semantic, 0.8, &knobs(), &mut made);
        assert_eq!(order(&out), ["a.md", "d.md", "c.md", "b.md", "region.md"]);
        assert_eq!(
            fusion,
            Fusion {
                by_meaning: 1,
                close: true
            }
        );
    }

    #[test]
    fn weak_lexical_evidence_lets_meaning_reorder() {
        let (lex, evidence, semantic) = four();
        let (out, fusion) = fuse(lex, &evidence, &semantic, 0.2, &knobs(), &mut made);
        assert_eq!(order(&out), ["region.md", "d.md", "a.md", "c.md", "b.md"]);
        assert_eq!(out.hits[0].matched_terms, [BY_MEANING]);
        assert_eq!(fusion.by_meaning, 1);
    }

    #[test]
    fn the_floor_keeps_a_far_file_out_and_says_when_nothing_is_close() {
        let (lex, evidence, semantic) = four();
        let p = knobs();
        let mut asked = Vec::new();
        let (out, _) = fuse(
            lex.clone(),
            &evidence,
            &semantic,
            0.0,
            &p,
            &mut |path, line| {
                asked.push(path.to_owned());
                made(path, line)
            },
        );
        // `far.md` (0.05) is under the floor: never asked for, not shown.
        assert_eq!(asked, ["region.md"]);
        assert!(!order(&out).contains(&"far.md"));
        // With every file far, nothing joins and the fusion says so; the
        // lexical hits are all still there.
        let far: Vec<Scored> = semantic
            .iter()
            .map(|s| sem(&s.path, s.score * 0.2))
            .collect();
        let (out, fusion) = fuse(lex, &evidence, &far, 0.0, &p, &mut made);
        assert_eq!(
            fusion,
            Fusion {
                by_meaning: 0,
                close: false
            }
        );
        assert_eq!(out.hits.len(), 4);
    }

    #[test]
    fn a_best_hit_holding_most_of_the_idf_mass_can_keep_its_place() {
        // With meaning deciding alone, `a.md` would be fourth; holding 60%
        // of the idf mass with `keep_share` 0.5, it stays first and meaning
        // orders the rest.
        let (lex, mut evidence, semantic) = four();
        evidence[0].idf_share = 0.6;
        let p = Params {
            keep_share: 0.5,
            keep_top: 1,
            ..knobs()
        };
        let (out, fusion) = fuse(lex, &evidence, &semantic, 0.0, &p, &mut made);
        assert_eq!(order(&out), ["a.md", "region.md", "d.md", "c.md", "b.md"]);
        assert_eq!(fusion.by_meaning, 1);
    }

    #[test]
    fn fusion_never_crosses_the_rankings_tiers() {
        // A log in the asked-for week (tier 0) stays above a closer file
        // of any other tier, and a file joining by meaning goes with them.
        let (lex, mut evidence, semantic) = four();
        evidence[3].tier = 0;
        evidence[3].score = 1.0;
        let (out, _) = fuse(lex, &evidence, &semantic, 0.0, &knobs(), &mut made);
        assert_eq!(order(&out), ["d.md", "region.md", "a.md", "c.md", "b.md"]);
    }

    #[test]
    fn recency_words_put_the_newest_log_first() {
        assert!(asks_recency("latest bookings release"));
        assert!(asks_recency("most recent auth-service deploy"));
        assert!(asks_recency("current state of the flaky test"));
        assert!(!asks_recency("what did we do last week"));
        assert!(!asks_recency("deploys in the last 3 days"));
        assert!(asks_recency("last time I helped with a Trino query"));
        assert!(!asks_recency("the first time after the upgrade"));
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
        let (out, newest) = recency_first("latest bookings release", lex.clone());
        assert!(newest);
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
        assert_eq!(
            recency_first("bookings release", lex.clone()),
            (lex.clone(), false)
        );
        // No log holds half the other words: nothing is put first, and the
        // caller lets meaning weigh in as for any query.
        assert_eq!(
            recency_first("latest staging outage", lex.clone()),
            (lex, false)
        );
    }

    #[test]
    fn memory_md_counts_half_in_meaning_as_in_words() {
        // MEMORY.md is the closest file and a note nearly as close; weak
        // words. MEMORY.md is in the prompt already: at half its closeness
        // the note comes first, as it would lexically at half the score.
        let lex = results(
            &[("city", 2), ("servers", 0)],
            vec![
                hit("MEMORY.md", &["city"]),
                hit("notes/region.md", &["city"]),
            ],
        );
        let mut memory = lex.clone();
        memory.hits[0].is_memory_md = true;
        let evidence = [ev(2.0, 0.4), ev(1.9, 0.4)];
        let semantic = vec![
            sem("MEMORY.md", 0.60),
            sem("notes/region.md", 0.55),
            sem("notes/far.md", 0.10),
        ];
        let full = Params {
            memory_md: 1.0,
            ..knobs()
        };
        let (out, _) = fuse(memory.clone(), &evidence, &semantic, 0.2, &full, &mut made);
        assert_eq!(order(&out), ["MEMORY.md", "notes/region.md"]);
        let half = Params {
            memory_md: 0.5,
            ..knobs()
        };
        let (out, _) = fuse(memory, &evidence, &semantic, 0.2, &half, &mut made);
        assert_eq!(order(&out), ["notes/region.md", "MEMORY.md"]);
        // Any other file keeps its full closeness.
        let (out, _) = fuse(lex, &evidence, &semantic, 0.2, &half, &mut made);
        assert_eq!(order(&out), ["MEMORY.md", "notes/region.md"]);
    }

    #[test]
    fn a_note_about_as_close_as_a_daily_log_comes_first() {
        // Weak words; a log a little closer than the note that holds the
        // fact. At 0.8 of its closeness the log comes second; a log that
        // is clearly closer still comes first.
        let mut lex = results(
            &[("failing", 2), ("test", 9)],
            vec![
                hit("daily/2026-09-30.md", &["test"]),
                hit("notes/flaky-tests.md", &["test"]),
            ],
        );
        lex.hits[0].date = Some("2026-09-30".into());
        let evidence = [ev(2.0, 0.4), ev(1.9, 0.4)];
        let near = vec![
            sem("daily/2026-09-30.md", 0.54),
            sem("notes/flaky-tests.md", 0.50),
            sem("notes/far.md", 0.05),
        ];
        let same = Params {
            daily_log: 1.0,
            ..knobs()
        };
        let (out, _) = fuse(lex.clone(), &evidence, &near, 0.2, &same, &mut made);
        assert_eq!(order(&out), ["daily/2026-09-30.md", "notes/flaky-tests.md"]);
        let journal = Params {
            daily_log: 0.8,
            ..knobs()
        };
        let (out, _) = fuse(lex.clone(), &evidence, &near, 0.2, &journal, &mut made);
        assert_eq!(order(&out), ["notes/flaky-tests.md", "daily/2026-09-30.md"]);
        let far = vec![
            sem("daily/2026-09-30.md", 0.70),
            sem("notes/flaky-tests.md", 0.30),
            sem("notes/far.md", 0.05),
        ];
        let (out, _) = fuse(lex, &evidence, &far, 0.2, &journal, &mut made);
        assert_eq!(order(&out), ["daily/2026-09-30.md", "notes/flaky-tests.md"]);
    }

    #[test]
    fn time_relative_to_an_event_stays_lexical() {
        for q in [
            "how was Jun feeling the day before his recital",
            "what did Jun eat two days before the half marathon",
            "what did Ines plant the week after she got the allotment",
        ] {
            assert!(time_relative(q), "{q}");
        }
        for q in [
            "what do we do before the data is deleted",
            "deploys in the last 3 days",
            "the first time after the upgrade",
            "who reviews after the deploy",
        ] {
            assert!(!time_relative(q), "{q}");
        }
        let lex = results(
            &[("recital", 3), ("feeling", 9)],
            vec![
                hit("d/2026-11-06.md", &["recital"]),
                hit("d/2026-11-09.md", &["recital"]),
            ],
        );
        let e = [ev(2.0, 0.7), ev(1.9, 0.7)];
        let q = "how was Jun feeling the day before his recital";
        let relative = Params {
            relative_stands: true,
            dates_stand: true,
            ..knobs()
        };
        assert_eq!(lexical_weight(q, &lex, &e, false, false, &relative), 1.0);
        // Without the rule, the same words are weak evidence.
        let plain = Params {
            dates_stand: true,
            ..knobs()
        };
        assert!(lexical_weight(q, &lex, &e, false, false, &plain) < plain.stand_at);
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
