//! Ranked search: words instead of substrings, BM25F relevance over a file's
//! name, headings and body, a bonus for query words in order, time words
//! that pick daily logs, and recency last. It returns the literal search's
//! [`SearchResults`] and renders the same way.
//!
//! # Query
//! Time expressions are taken out first (see [`temporal`] for the rules).
//! The remaining words are split into *terms* at anything but letters,
//! digits, joiners (`_ - '`) and path punctuation (`. / \ : @`), so
//! `(getUserName),` is the term `getUserName` and `rank/mod.rs` one term.
//! A term is one token per name (see [`tokenize`]): `getUserName` is the
//! identifier in any spelling, `rank/mod.rs` needs `rank`, `mod` and `rs` in
//! the same file. Terms that are stop words (`what did we`) are dropped, and
//! repeats (`deploy deploying`): a stop word never matches alone, so a query
//! of only stop words (`what is it`) finds nothing: the summary names them,
//! each with 0, and the rendering says why; a query of only time words lists
//! the daily logs of those dates, newest first.
//! At most [`MAX_QUERY_TERMS`] terms are searched (the first ones, the
//! summary line names them) and a term keeps its first [`MAX_TERM_NAMES`]
//! names.
//!
//! Two neighbouring words of letters are also searched written as one, an
//! extra term (`set up` → `setup`, `rolled out` → `rollout`, `new calendar`
//! → the whole of `new_calendar`): writers spell compounds both ways. The
//! summary names such a join only when some file holds it. When both words
//! are query tokens, the join is scored as them, the way BM25F scores a
//! synonym: its occurrences add to each word's counts, so a rare spelling
//! (`cloudsql` in one note's name) weighs no more than the common words it
//! spells (`Cloud SQL`), and a file saying both is not counted twice. An
//! occurrence of the join that is also one of each word (the whole of
//! `api-version`, when the query is `api version`) counts once, as the
//! words: per field, the join's count less the smaller of theirs.
//!
//! A plain word also brings its derivational relatives (see
//! [`stem::relatives`]: `escalating` → `escalation`, `renewing` →
//! `renewal`, `flakes` → `flaky`), extra terms named in the summary only
//! when some file holds them; so does a word's short form or the word it
//! stands for (see [`stem::short_forms`]: `prod` and `production`, `db`
//! and `database`). The stemmer keeps such words apart, so a
//! relative is weaker evidence: it scores [`RELATED_WEIGHT`] of itself (the
//! best relative of each word), and only in a file without the word itself,
//! so a file is never ranked up for holding both.
//!
//! # Score
//! BM25F (Robertson and Zaragoza): per token, a field-weighted term
//! frequency, each field normalised by its length against the average
//! (lengths in bytes: cheap, and proportional to words), saturated once:
//! `idf · f(k1+1)/(f+k1)` with `f = Σ w_field · tf / (1 − b + b·len/avg)`
//! and `idf = ln(1 + (N − df + ½)/(df + ½))` over the files searched. A term
//! of several tokens scores their mean, so every query term weighs about
//! the same. [`K1`] and the [`FIELD_WEIGHTS`] are the textbook value and a
//! deliberately plain ordering (name 3, headings 2, body 1), not fitted to
//! examples; the code span a list item or table row starts with counts as
//! a heading, the name the writer gives that entry (`` | `E1101` | export
//! too large | `` defines the code, where a log mentions it in passing);
//! [`B`] is lower than the textbook's, for stores
//! that mix short logs with long notes (see its docs). A file holding an
//! identifier term (`max_retry_count`) also earns [`PART_WEIGHT`] of its
//! parts' mean score (`max`, `retri`, `count`), so the note about retries
//! comes before one naming the setting in passing. The parts alone match
//! only an identifier no file holds: it is then searched as its parts, all
//! in one file, as a term of several tokens (`retry_count` finds
//! `max_retry_count`).
//!
//! No file gets a bonus for being what it is. MEMORY.md is already in the
//! prompt, so its relevance counts [`MEMORY_MD_WEIGHT`]: a note or log that
//! matches about as well comes first, and MEMORY.md still does when it
//! alone holds the words. A note the query names whole (each word of its
//! name is a query word) counts [`NAMED_WEIGHT`]: the user typed its name.
//!
//! Then a proximity bonus (after Rasolofo and Savoy): for each pair of
//! consecutive query tokens, every occurrence of the second within
//! [`PROXIMITY_REACH`] positions after the first adds `1/d²`, where `d` is
//! the distance beyond the one the query itself has (`deploy to staging`
//! matches its own phrase at full weight); the sum saturates like a term
//! frequency and is weighted by the rarer token's idf.
//!
//! # Time
//! A file's date is a daily log's, or the first date written
//! `YYYY-MM-DD` in a note's name (`incident-2026-09-14-cert-expiry`): the
//! writer's own label for when it happened. Dated files whose date falls in
//! a time expression's range come first: those matching at least half of
//! the query's other words; then files that name the range's month (`in
//! October`, `last month`; not May, an English word too) and match as many
//! words, as a cost review saying "October bill" does; then (when there are
//! other words, and the range is shorter than [`NARROW_DAYS`]) the other
//! dated files in it, by relevance, so those matching some of the words
//! come before those matching none: a chat log of last Thursday that names
//! only `Jun` answers "what news did Jun share about his sister last
//! Thursday" better than the forty other logs that name him too, and a
//! log of the day that holds fewer words never ranks below one that holds
//! none. Then everything else that matches, by relevance; a year of logs
//! that hold none of the words is no answer to "who got paged this year".
//! Nothing is hidden. Ties go to the newer file, then the path.
//!
//! # Two phases
//! Phase one needs only per-file statistics ([`FileStats`]: term
//! frequencies per field, lines holding each token, field lengths) and
//! corpus totals ([`CorpusStats`]), so an index can feed it without the
//! text. Phase two re-reads the best [`MAX_HITS`] files for proximity and
//! for the context windows, which go around the best-scoring lines, on
//! demand ([`Ordered`]): a caller that shows only the first hits re-reads
//! only the files their order depends on. Only those files are returned;
//! the per-term counts in the summary line cover every file (for a term of
//! several tokens, the lines of its rarest token in each file that holds
//! all of them).

pub mod stem;
pub mod temporal;
pub mod tokenize;

use rustc_hash::FxHashMap;
use std::cmp::Ordering;

use crate::search::scan::{Finder, LowerFinder, ascii_lowercase_into};
use crate::search::{FileMeta, PREVIEW_LINES, SearchHit, SearchResults, render_windows};
use crate::time::Date;
use stem::{is_stop_word, surface_prefix};
use temporal::Span;
use tokenize::{Fences, Tokenizer, name_tokens};

pub use agent_memory_vocab::SearchMode;

pub use crate::limits::MAX_QUERY_TERMS;
/// Most names kept from one term (`a/b/c/…`).
pub const MAX_TERM_NAMES: usize = 8;
/// Most files returned, and re-read for the second phase.
pub const MAX_HITS: usize = 100;
/// BM25 term-frequency saturation.
pub const K1: f64 = 1.2;
/// BM25 length normalisation, the same in every field. Below the textbook
/// 0.75: a memory holds one-entry daily logs beside long notes, and full
/// normalisation let a short log that names a topic in passing outrank the
/// note about it. Chosen on the eval's tuning sets (MRR 0.956 → 0.972 and
/// 0.841 → 0.876; flat from 0.2 to 0.3), never on the held-out one.
pub const B: f64 = 0.25;
/// Fields of a file, indexes into per-field arrays.
pub const FIELDS: usize = 3;
/// The file name (a note's stem, a log's date).
pub const NAME: usize = 0;
/// Markdown ATX headings outside code fences, and the keys of list items
/// and table rows (see [`tokenize::LineKind::Key`]).
pub const HEADING: usize = 1;
/// Every other line.
pub const BODY: usize = 2;
/// Weight of a match in each field: the name is the writer's own label for
/// the whole file, a heading for a section.
pub const FIELD_WEIGHTS: [f64; FIELDS] = [3.0, 2.0, 1.0];
/// How far apart (in positions, beyond the query's own spacing) two query
/// words still earn a proximity bonus.
pub const PROXIMITY_REACH: u32 = 3;
/// What MEMORY.md's relevance is multiplied by. It is already in the
/// agent's prompt, and as an index it names every note's topic, so it
/// matches nearly every topic query: a note or log that matches about as
/// well is the better answer, yet MEMORY.md still comes first when it alone
/// holds the words (a preference, a fact with no note).
pub const MEMORY_MD_WEIGHT: f64 = 0.5;
/// Share of an identifier's parts' mean score added to a file that holds
/// the identifier: `max_retry_count` in a note about retries (its name, its
/// headings) says more than in one that mentions the setting in passing.
pub const PART_WEIGHT: f64 = 0.2;
/// What the relevance of a note the query names is multiplied by: every
/// word of its name, stop words aside, is a query word. `backfill
/// procedure` names `backfill-procedure`, not `backfill-procedure-2025`,
/// which a longer note supersedes but which says the words as often.
/// Chosen on the eval's tuning sets (flat from 1.2 to 1.35; 1.5 costs
/// partial words), never on a held-out one.
pub const NAMED_WEIGHT: f64 = 1.25;
/// What a derivational relative's relevance is multiplied by, in a file
/// without the query's own word: `escalation` answers `escalating`, less
/// surely than `escalated` does.
pub const RELATED_WEIGHT: f64 = 0.5;
/// A time range this long or longer (`this year`, `in 2025`, `since
/// March`) does not make a log an answer by its date alone: one that holds
/// none of the query's words comes after every match.
pub const NARROW_DAYS: i64 = 32;
/// Occurrences of one token a file keeps for proximity.
const MAX_OCCURRENCES: usize = 4096;

/// One token's counts in one file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TermStats {
    /// Occurrences per field ([`NAME`], [`HEADING`], [`BODY`]).
    pub tf: [u32; FIELDS],
    /// Lines (headings and body) holding it.
    pub lines: u32,
}

/// What phase one needs of a file: plain data an index can store.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileStats {
    /// Bytes per field.
    pub lengths: [u32; FIELDS],
    /// Tokens and their counts, sorted by token.
    pub terms: Vec<(String, TermStats)>,
}

/// Totals over every file searched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CorpusStats {
    /// Files searched.
    pub files: u64,
    /// Bytes per field, summed.
    pub lengths: [u64; FIELDS],
}

impl FileStats {
    /// Every token of a file named `name` (its stem) holding `text`.
    pub fn from_text(name: &str, text: &str) -> FileStats {
        // Per token: its counts and the last line it was seen on (+1). A
        // token is allocated once per file, not per occurrence.
        let mut map: FxHashMap<String, (TermStats, u32)> = FxHashMap::default();
        let lengths = walk(
            &mut Tokenizer::default(),
            name,
            text,
            &|_| true,
            Some(&mut |t: &str, field, line: u32| {
                let (s, last) = match map.get_mut(t) {
                    Some(entry) => entry,
                    None => map.entry(t.to_string()).or_default(),
                };
                s.tf[field] += 1;
                if field != NAME && *last != line.wrapping_add(1) {
                    *last = line.wrapping_add(1);
                    s.lines += 1;
                }
            }),
            true,
        );
        let mut terms: Vec<_> = map.into_iter().map(|(t, (s, _))| (t, s)).collect();
        terms.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        FileStats { lengths, terms }
    }
}

/// Walk a file's name and lines, calling `on(token, field, line)` for each
/// token `wanted` lets through (lines counted from 0; the name's is
/// `u32::MAX`); with no `on`, only measure, and with `text_too` false, look
/// for tokens in the name only. Returns the field lengths in bytes.
fn walk(
    tok: &mut Tokenizer,
    name: &str,
    text: &str,
    wanted: &impl Fn(&[u8]) -> bool,
    mut on: Option<&mut impl FnMut(&str, usize, u32)>,
    text_too: bool,
) -> [u32; FIELDS] {
    let mut pos = 0;
    if let Some(on) = on.as_mut() {
        tok.tokens(name, &mut pos, wanted, &mut |t, _| on(t, NAME, u32::MAX));
    }
    let mut fences = Fences::default();
    let mut heading = 0usize;
    for (n, line) in text.split('\n').enumerate() {
        let key = fences.kind(line).head(line);
        heading += key;
        if let Some(on) = on.as_mut().filter(|_| text_too) {
            let n = n as u32;
            // Names never cross a key's closing delimiter.
            let (head, body) = line.split_at(key);
            tok.tokens(head, &mut pos, wanted, &mut |t, _| on(t, HEADING, n));
            tok.tokens(body, &mut pos, wanted, &mut |t, _| on(t, BODY, n));
        }
    }
    let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    [
        clamp(name.len()),
        clamp(heading),
        clamp(text.len() - heading),
    ]
}

/// A query term: what to show and which tokens it needs.
#[derive(Debug, Clone)]
struct Term {
    shown: String,
    /// Index of its word among the query's words, to order the summary.
    at: usize,
    tokens: Vec<u16>,
    /// The parts of its identifiers (`max`, `retri`, `count` of
    /// `max_retry_count`): not needed, but they add [`PART_WEIGHT`] of their
    /// score to a file holding the term.
    parts: Vec<u16>,
    /// Two query words written as one (`set up` as `setup`): searched as
    /// an extra term, named in the summary only when some file holds it.
    joined: bool,
    /// A join's two words as query tokens, when both are: an occurrence of
    /// the join that is also one of each word (the whole of `api-version`
    /// holds `api` and `version`) is counted once, as the words.
    covers: Option<(u16, u16)>,
    /// A word derived from the same root as the query term at this index
    /// (`escalation` for `escalating`): searched as an extra term, named in
    /// the summary only when some file holds it, scored [`RELATED_WEIGHT`]
    /// and only in files without the query's own word.
    origin: Option<u16>,
}

/// Two tokens next to each other in the query, `gap` positions apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pair {
    a: u16,
    b: u16,
    gap: u32,
}

/// A parsed query.
#[derive(Debug)]
struct Plan {
    terms: Vec<Term>,
    spans: Vec<Span>,
    tokens: Vec<String>,
    ids: FxHashMap<String, u16>,
    /// Per token, the terms that use it.
    token_terms: Vec<Vec<u16>>,
    /// The bytes every spelling of some token starts with, lowercase; none
    /// starts another.
    needles: Vec<Box<[u8]>>,
    /// The needles' first two bytes (the second 0 for a one-byte needle),
    /// as a 65,536-bit set: the first cut of [`Plan::may_want`].
    keys: Vec<u64>,
    pairs: Vec<Pair>,
    /// Spans (bit per span) of fewer than [`NARROW_DAYS`] days.
    narrow: u32,
    /// The name of each span that is one calendar month, as a token, with
    /// the span's bit: a file that says it is about that month too.
    months: Vec<(u16, u32)>,
    /// The query's words when every one is a stop word (and there is no
    /// time word): none is searched, the summary names them.
    stops: Vec<String>,
}

/// A query token: its text, position and span in the query.
type QueryToken = (String, u32, u32);

fn key_bit(b0: u8, b1: u8) -> usize {
    usize::from(b0) << 8 | usize::from(b1)
}

/// Characters that may sit inside a query term.
fn in_term(c: char) -> bool {
    c.is_alphanumeric() || "_-'\u{2019}./\\:@".contains(c)
}

impl Plan {
    /// Beyond this many positions after an occurrence's end, no pair
    /// reaches (see the proximity sum).
    fn reach(&self) -> u32 {
        self.pairs
            .iter()
            .map(|p| PROXIMITY_REACH + p.gap)
            .max()
            .unwrap_or(0)
    }

    fn new(query: &str, today: Date) -> Plan {
        let parsed = temporal::parse(query, today);
        // (term, is a stop word, its tokens with query positions, the parts
        // of its identifiers)
        let mut found: Vec<(Term, bool, Vec<QueryToken>, Vec<String>)> = Vec::new();
        let mut qpos = 0u32;
        for (at, word) in &parsed.words {
            for piece in word.split(|c: char| !in_term(c)) {
                let piece = piece.trim_matches(|c: char| !c.is_alphanumeric());
                let names = name_tokens(piece);
                let Some(last) = names.last() else { continue };
                let parts = last.1.pos + last.1.span;
                let stop = names.len() == 1 && parts == 1 && is_stop_word(&piece.to_lowercase());
                let toks = names
                    .into_iter()
                    .take(MAX_TERM_NAMES)
                    .map(|(t, k)| (t, qpos + k.pos, k.span))
                    .collect();
                qpos += parts;
                let term = Term {
                    shown: piece.to_string(),
                    at: *at,
                    tokens: Vec::new(),
                    parts: Vec::new(),
                    joined: false,
                    covers: None,
                    origin: None,
                };
                found.push((term, stop, toks, identifier_parts(piece)));
            }
        }
        // A stop word never matches alone: a query of nothing else is named
        // back, unsearched.
        let only_stops = parsed.spans.is_empty() && found.iter().all(|f| f.1);
        let mut stops: Vec<String> = Vec::new();
        if only_stops {
            for (term, ..) in &found {
                let lower = term.shown.to_lowercase();
                if stops.len() < MAX_QUERY_TERMS && !stops.iter().any(|s| s.to_lowercase() == lower)
                {
                    stops.push(term.shown.clone());
                }
            }
        }
        let mut plan = Plan {
            terms: Vec::new(),
            spans: parsed.spans,
            tokens: Vec::new(),
            ids: FxHashMap::default(),
            token_terms: Vec::new(),
            needles: Vec::new(),
            keys: vec![0; 1024],
            pairs: Vec::new(),
            narrow: 0,
            months: Vec::new(),
            stops,
        };
        plan.narrow = plan
            .spans
            .iter()
            .enumerate()
            .filter(|(_, s)| s.last.to_days() - s.first.to_days() < NARROW_DAYS)
            .fold(0, |m, (i, _)| m | 1 << i);
        let mut seen: Vec<Vec<&str>> = Vec::new();
        // The query's tokens in order, for proximity: (id, position, span).
        let mut sequence: Vec<(u16, u32, u32)> = Vec::new();
        for (term, stop, toks, parts) in &found {
            if *stop || plan.terms.len() == MAX_QUERY_TERMS {
                continue;
            }
            let key: Vec<&str> = toks.iter().map(|t| t.0.as_str()).collect();
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            let index = plan.terms.len() as u16;
            let mut term = term.clone();
            for (t, p, span) in toks {
                let id = plan.token_id(t);
                if !term.tokens.contains(&id) {
                    term.tokens.push(id);
                    plan.token_terms[id as usize].push(index);
                }
                sequence.push((id, *p, *span));
            }
            for part in parts {
                let id = plan.token_id(part);
                if !term.tokens.contains(&id) && !term.parts.contains(&id) {
                    term.parts.push(id);
                }
            }
            plan.terms.push(term);
        }
        if !plan.terms.is_empty() {
            plan.add_joined(&parsed.words);
            plan.add_related();
            plan.add_months();
        }
        plan.dedup_needles();
        for w in sequence.windows(2) {
            let ((a, pa, sa), (b, pb, _)) = (w[0], w[1]);
            let pair = Pair {
                a,
                b,
                gap: pb.saturating_sub(pa + sa - 1).max(1),
            };
            if a != b && !plan.pairs.contains(&pair) {
                plan.pairs.push(pair);
            }
        }
        plan
    }

    /// Add each pair of neighbouring query words written as one word
    /// (`set up` → `setup`, `rolled out` → `rollout`, `web hook` →
    /// `webhook`, `on call` → `oncall`, the whole of `on-call`): writers
    /// spell such compounds either way, and an identifier's whole
    /// (`new_calendar`) is one too. Both words must be letters only, two or
    /// more; the first is joined by its stem when that is how it starts
    /// (`rolled` → `roll`), so the join meets the compound's own inflections.
    fn add_joined(&mut self, words: &[(usize, String)]) {
        let simple = |w: &str| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            (w.len() >= 2 && w.bytes().all(|b| b.is_ascii_alphabetic()))
                .then(|| w.to_ascii_lowercase())
        };
        for pair in words.windows(2) {
            let ((at, a), (next, b)) = (&pair[0], &pair[1]);
            let (Some(a), Some(b)) = (simple(a), simple(b)) else {
                continue;
            };
            if *next != at + 1 || self.terms.len() == MAX_QUERY_TERMS {
                continue;
            }
            let mut head = a.clone();
            stem::stem(&mut head);
            if !a.starts_with(&head) {
                head = a.clone();
            }
            let shown = head + &b;
            let mut token = shown.clone();
            stem::stem(&mut token);
            if is_stop_word(&shown) || self.ids.contains_key(&token) {
                continue;
            }
            let word_token = |w: &str| {
                let mut t = w.to_string();
                stem::stem(&mut t);
                self.ids.get(&t).copied()
            };
            let covers = word_token(&a).zip(word_token(&b));
            let index = self.terms.len() as u16;
            let id = self.token_id(&token);
            self.token_terms[usize::from(id)].push(index);
            self.terms.push(Term {
                shown,
                at: *at,
                tokens: vec![id],
                parts: Vec::new(),
                joined: true,
                covers,
                origin: None,
            });
        }
    }

    /// Add the derivational relatives of each query word (see
    /// [`stem::relatives`]): a question says `escalating` or `renewing`
    /// where the note says `escalation` or `renewal`; and the other side of
    /// its short form ([`stem::short_forms`]: `prod`, `production`). Only
    /// plain words have relatives; a relative that is already a query token
    /// is left out.
    fn add_related(&mut self) {
        for index in 0..self.terms.len() {
            let term = &self.terms[index];
            if term.joined || term.tokens.len() != 1 || !term.parts.is_empty() {
                continue;
            }
            let at = term.at;
            let word = term.shown.to_ascii_lowercase();
            for (form, token) in stem::related(&word) {
                if self.terms.len() == MAX_QUERY_TERMS {
                    return;
                }
                if self.ids.contains_key(&token) {
                    continue;
                }
                let t = self.terms.len() as u16;
                let id = self.token_id(&token);
                self.token_terms[usize::from(id)].push(t);
                self.terms.push(Term {
                    shown: form,
                    at,
                    tokens: vec![id],
                    parts: Vec::new(),
                    joined: false,
                    covers: None,
                    origin: Some(index as u16),
                });
            }
        }
    }

    /// Look up the name of each span that is one calendar month (`in
    /// October`, `last month`): a note that says `October` (the October
    /// bill in a cost review) is about that month, though its name holds no
    /// date. Only with other words; see [`Plan::mentions`].
    fn add_months(&mut self) {
        for i in 0..self.spans.len() {
            let Some(name) = self.spans[i].month_name() else {
                continue;
            };
            if let Some((token, _)) = name_tokens(name).pop() {
                let id = self.token_id(&token);
                self.months.push((id, 1 << i));
            }
        }
    }

    /// The month spans a file holding the tokens `stats` names, when it
    /// also holds half the query's words (`half`): such a file counts as in
    /// the span, as a log of that month would. A month's name alone makes
    /// nothing an answer.
    fn mentions(&self, stats: &[(u16, TermStats)], half: bool) -> u32 {
        if !half {
            return 0;
        }
        self.months
            .iter()
            .filter(|(id, _)| stats.binary_search_by_key(id, |s| s.0).is_ok())
            .fold(0, |m, (_, bit)| m | bit)
    }

    /// Search each identifier no file holds by its parts instead, all
    /// needed in one file and scored as a term of several tokens, with a
    /// proximity bonus for parts next to each other in order: a query
    /// naming part of an identifier (`retry_count` for `max_retry_count`)
    /// or an identifier the notes write as words (`processed_events` for
    /// "processed events") still finds them. `df` counts the files holding
    /// each token.
    fn parts_for_missing(&mut self, df: &[u32]) {
        for (t, term) in self.terms.iter_mut().enumerate() {
            let [whole] = term.tokens[..] else { continue };
            if term.parts.len() < 2 || df[usize::from(whole)] > 0 {
                continue;
            }
            term.tokens = std::mem::take(&mut term.parts);
            for &id in &term.tokens {
                self.token_terms[usize::from(id)].push(t as u16);
            }
            for w in term.tokens.windows(2) {
                let pair = Pair {
                    a: w[0],
                    b: w[1],
                    gap: 1,
                };
                if !self.pairs.contains(&pair) {
                    self.pairs.push(pair);
                }
            }
        }
    }

    /// Does a file matching the terms `matched` (bit per term) hold at least
    /// half of the query's own words (a relative standing for its word; a
    /// join is no word of its own)?
    fn holds_half(&self, matched: u64) -> bool {
        let mut words = 0u64;
        let mut held = 0u64;
        for (t, term) in self.terms.iter().enumerate() {
            let word = term.origin.map_or(t, usize::from);
            if !term.joined {
                words |= 1 << word;
                if matched & 1 << t != 0 {
                    held |= 1 << word;
                }
            }
        }
        2 * held.count_ones() >= words.count_ones()
    }

    /// Does the query name the note called `stem`: is every word of the
    /// name, stop words aside, a query token? ("what goes into the on-call
    /// handoff" names `on-call`.)
    fn names(&self, stem: &str) -> bool {
        let parts = tokenize::all_tokens(stem);
        let mut words = parts
            .iter()
            .filter(|(t, k)| k.span == 1 && !is_stop_word(t))
            .peekable();
        words.peek().is_some() && words.all(|(t, _)| self.ids.contains_key(t))
    }

    /// Drop each needle that another one starts: a word starting with the
    /// longer starts with the shorter, so the shorter alone decides
    /// [`Plan::may_want`] (relatives share their root's first letters).
    fn dedup_needles(&mut self) {
        let mut needles = std::mem::take(&mut self.needles);
        needles.sort_unstable_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        for n in needles {
            if !self.needles.iter().any(|m| n.starts_with(m)) {
                self.needles.push(n);
            }
        }
    }

    fn token_id(&mut self, token: &str) -> u16 {
        if let Some(&id) = self.ids.get(token) {
            return id;
        }
        let id = self.tokens.len() as u16;
        self.tokens.push(token.to_string());
        self.ids.insert(token.to_string(), id);
        self.token_terms.push(Vec::new());
        // A stemmed token (three letters or more) is met by words starting
        // with its surface prefix; a shorter one only by itself.
        let needle = if token.len() >= 3 {
            surface_prefix(token)
        } else {
            token
        };
        let needle: Box<[u8]> = needle.as_bytes().into();
        // Keyed by its first two bytes when both are ASCII, as `may_want`
        // looks them up: `café` is keyed `ca` like any word starting so.
        let (b0, b1) = (needle[0], needle.get(1).copied().unwrap_or(0));
        if b0.is_ascii() && b1.is_ascii() {
            let bit = key_bit(b0, b1);
            self.keys[bit / 64] |= 1 << (bit % 64);
        }
        self.needles.push(needle);
        id
    }

    /// Might the token written as `raw` (a part, or a whole name with its
    /// joiners) be a query token? Says no only when its lowercase form,
    /// joiners left out, cannot start with any needle. A token with any
    /// byte that is not ASCII is checked in full: lowercasing may change a
    /// character's length (the Kelvin sign `K` is three bytes, its `k` one),
    /// so no byte of it can be compared in place.
    fn may_want(&self, raw: &[u8]) -> bool {
        if !raw.is_ascii() {
            return true;
        }
        // Every part, and most wholes, hold no joiner: compare in place.
        if !raw.iter().any(|&c| matches!(c, b'_' | b'-' | b'\'')) {
            let Some(&b0) = raw.first() else {
                return false;
            };
            let b1 = raw.get(1).map_or(0, u8::to_ascii_lowercase);
            let bit = key_bit(b0.to_ascii_lowercase(), b1);
            if self.keys[bit / 64] & (1 << (bit % 64)) == 0 {
                return false;
            }
            return self.needles.iter().any(|n| {
                raw.len() >= n.len()
                    && raw
                        .iter()
                        .zip(n.iter())
                        .all(|(&c, &x)| c.to_ascii_lowercase() == x)
            });
        }
        let mut bytes = raw
            .iter()
            .filter(|&&c| !matches!(c, b'_' | b'-' | b'\''))
            .map(|c| c.to_ascii_lowercase());
        let (Some(b0), b1) = (bytes.next(), bytes.next()) else {
            return false;
        };
        let bit = key_bit(b0, b1.unwrap_or(0));
        if self.keys[bit / 64] & (1 << (bit % 64)) == 0 {
            return false;
        }
        self.needles.iter().any(|n| {
            let mut bytes = raw
                .iter()
                .filter(|&&c| !matches!(c, b'_' | b'-' | b'\''))
                .map(|c| c.to_ascii_lowercase());
            n.iter().all(|&x| bytes.next() == Some(x))
        })
    }
}

/// The parts of the several-part names in a query word, stemmed, without
/// stop words, single characters and repeats, at most [`MAX_TERM_NAMES`].
fn identifier_parts(piece: &str) -> Vec<String> {
    let all = tokenize::all_tokens(piece);
    let mut parts: Vec<String> = Vec::new();
    for (t, k) in &all {
        let inside = all
            .iter()
            .any(|(_, w)| w.span > 1 && w.pos <= k.pos && k.pos < w.pos + w.span);
        if k.span == 1
            && inside
            && t.chars().nth(1).is_some()
            && !is_stop_word(t)
            && !parts.contains(t)
            && parts.len() < MAX_TERM_NAMES
        {
            parts.push(t.clone());
        }
    }
    parts
}

/// Most query tokens the prefilter looks for one by one; with more, every
/// file is tokenized.
const MAX_PREFILTER_TOKENS: usize = 16;

/// A cheap test that a text holds none of the query's tokens, so it need not
/// be tokenized. Sound: it may say yes wrongly, never no wrongly.
///
/// A token comes from a part or from a name's whole. A part's lowercase form
/// starts with the token's surface prefix, and so does a whole written
/// without joiners (`getUserName`): both contain that prefix as written,
/// which the literal search's finder looks for, ignoring ASCII case. A
/// whole written with joiners (`get_user_name`) need not, so every name
/// holding a joiner between letters is tokenized on its own. Lowercasing
/// maps only two non-ASCII characters to ASCII (the Kelvin sign to `k`, and
/// `İ` to `i` with a combining dot, which no ASCII token can hold), and a
/// token that is not ASCII is not looked for byte-wise at all.
#[derive(Debug)]
struct Prefilter {
    /// Surface prefixes; empty when the prefilter is off.
    finders: Vec<Finder>,
    /// The same, over a text lowercased once for all of them (to find
    /// every occurrence, where [`Prefilter::may_hold`] stops at the first).
    lower: Vec<LowerFinder>,
    /// Some finder's needle holds a `k`.
    kelvin: bool,
    /// Off: every file is tokenized.
    off: bool,
    right_quote: Finder,
}

impl Prefilter {
    fn new(plan: &Plan) -> Prefilter {
        // The plan's needles: surface prefixes, none starting another.
        let needles = &plan.needles;
        let off = needles.len() > MAX_PREFILTER_TOKENS || needles.iter().any(|n| !n.is_ascii());
        Prefilter {
            finders: if off {
                Vec::new()
            } else {
                needles.iter().map(|n| Finder::new(n)).collect()
            },
            lower: if off {
                Vec::new()
            } else {
                needles.iter().map(|n| LowerFinder::new(n)).collect()
            },
            kelvin: needles.iter().any(|n| n.contains(&b'k')),
            off,
            right_quote: Finder::new("\u{2019}".as_bytes()),
        }
    }

    /// Might `text` hold one of the plan's tokens?
    fn may_hold(&self, plan: &Plan, tok: &mut Tokenizer, text: &str) -> bool {
        if self.off || plan.tokens.is_empty() {
            return !plan.tokens.is_empty();
        }
        let b = text.as_bytes();
        if self.finders.iter().any(|f| f.find(b, 0).is_some())
            || self.kelvin && text.contains('\u{212A}')
        {
            return true;
        }
        let mut hit = false;
        self.joined_names(plan, tok, text, &mut |_| {
            hit = true;
            true
        });
        hit
    }

    /// Byte offsets in `text` around which a plan token may be, sorted: a
    /// line holding none of them holds no plan token. `None` when the
    /// prefilter is off (every line may).
    fn candidates(&self, plan: &Plan, tok: &mut Tokenizer, text: &str) -> Option<Vec<usize>> {
        self.candidates_of(plan, tok, text, false)
    }

    /// [`Prefilter::candidates`]; with `wholes_only`, of the names holding
    /// a joiner only those whose whole may be a plan token (a name's parts
    /// start as written, where the needles find them), for ASCII `text`.
    fn candidates_of(
        &self,
        plan: &Plan,
        tok: &mut Tokenizer,
        text: &str,
        wholes_only: bool,
    ) -> Option<Vec<usize>> {
        if self.off {
            return None;
        }
        let b = text.as_bytes();
        let mut at = Vec::new();
        // As literal search: one needle is looked for in the text as it
        // is, several in one lowercased copy.
        if let [f] = &self.finders[..] {
            let mut from = 0;
            while let Some(i) = f.find(b, from) {
                at.push(i);
                from = i + 1;
            }
        } else {
            let mut lowered = Vec::new();
            ascii_lowercase_into(b, &mut lowered);
            for f in &self.lower {
                let mut from = 0;
                while let Some(i) = f.find(&lowered, from) {
                    at.push(i);
                    from = i + 1;
                }
            }
        }
        if self.kelvin {
            at.extend(text.match_indices('\u{212A}').map(|(i, _)| i));
        }
        if wholes_only {
            debug_assert!(text.is_ascii());
            joined_wholes(plan, b, &mut at);
        } else {
            self.joined_names(plan, tok, text, &mut |i| {
                at.push(i);
                false
            });
        }
        at.sort_unstable();
        at.dedup();
        Some(at)
    }

    /// Call `found(start)` for each name in `text` holding a joiner
    /// between letters whose tokens include a plan token, tokenized one by
    /// one, until `found` says stop.
    fn joined_names(
        &self,
        plan: &Plan,
        tok: &mut Tokenizer,
        text: &str,
        found: &mut dyn FnMut(usize) -> bool,
    ) {
        let b = text.as_bytes();
        let wanted = |raw: &[u8]| plan.may_want(raw);
        let inner = |c: u8| c.is_ascii_alphanumeric() || !c.is_ascii() || b"_-'".contains(&c);
        // The end of the name around `at`, and whether to stop.
        let mut check = |at: usize| {
            // The name around the joiner: bytes that may belong to a name,
            // cut at ASCII bytes that cannot (so at char boundaries).
            let start = b[..at]
                .iter()
                .rposition(|&c| !inner(c))
                .map_or(0, |i| i + 1);
            let end = b[at..]
                .iter()
                .position(|&c| !inner(c))
                .map_or(b.len(), |i| at + i);
            let mut hit = false;
            tok.tokens(&text[start..end], &mut 0, &wanted, &mut |t, _| {
                hit |= plan.ids.contains_key(t)
            });
            (end, hit && found(start))
        };
        // A run of joiners joins only between a name's letters or digits;
        // at a name's edge (`- item`, `--`) it is a break, and no name
        // around it holds it. Each run is looked at once.
        let is_joiner = |c: u8| matches!(c, b'_' | b'-' | b'\'');
        let name_char = |c: u8| c.is_ascii_alphanumeric() || !c.is_ascii();
        let mut from = 0;
        while let Some(i) = memchr::memchr3(b'_', b'-', b'\'', &b[from..]) {
            let at = from + i;
            let end = at + b[at..].iter().take_while(|&&c| is_joiner(c)).count();
            let joins = at > 0 && name_char(b[at - 1]) && b.get(end).is_some_and(|&c| name_char(c));
            if !joins {
                from = end;
                continue;
            }
            let stop;
            (from, stop) = check(at);
            if stop {
                return;
            }
            from = from.max(end);
        }
        let mut from = 0;
        while let Some(at) = self.right_quote.find(b, from) {
            let stop;
            (from, stop) = check(at);
            if stop {
                return;
            }
        }
    }
}

/// Push the start of each name of the ASCII text `b` that holds a joiner
/// between letters or digits and whose whole (its bytes, joiners left
/// out) may be a plan token by [`Plan::may_want`]. In ASCII text a name
/// is a run of bytes that are not breaks, so the run around the joiner is
/// the name.
fn joined_wholes(plan: &Plan, b: &[u8], at: &mut Vec<usize>) {
    let brk = tokenize::is_break_ascii;
    let is_joiner = |c: u8| matches!(c, b'_' | b'-' | b'\'');
    let mut from = 0;
    while let Some(i) = memchr::memchr3(b'_', b'-', b'\'', &b[from..]) {
        let at_joiner = from + i;
        let end_joiners = at_joiner + b[at_joiner..].iter().take_while(|&&c| is_joiner(c)).count();
        let joins = at_joiner > 0
            && b[at_joiner - 1].is_ascii_alphanumeric()
            && b.get(end_joiners)
                .is_some_and(|c| c.is_ascii_alphanumeric());
        if !joins {
            from = end_joiners;
            continue;
        }
        let start = b[..at_joiner]
            .iter()
            .rposition(|&c| brk(c))
            .map_or(0, |i| i + 1);
        let end = b[at_joiner..]
            .iter()
            .position(|&c| brk(c))
            .map_or(b.len(), |i| at_joiner + i);
        if plan.may_want(&b[start..end]) {
            at.push(start);
        }
        from = end;
    }
}

/// A file that may be a hit, with its phase-one data.
#[derive(Debug)]
struct Candidate {
    meta: FileMeta,
    date: Option<Date>,
    lengths: [u32; FIELDS],
    /// Counts of the query tokens it holds, by token id.
    stats: Vec<(u16, TermStats)>,
    /// Spans (bit per span) whose range holds this daily log's date.
    spans: u32,
}

/// Ranks files for one query; see the module documentation.
///
/// Feed it every file searched, by text ([`Ranker::add_file`]) or by
/// statistics ([`Ranker::add_stats`]), then [`Ranker::finish`] with a way to
/// read the best files again.
#[derive(Debug)]
pub struct Ranker {
    plan: Plan,
    files: Vec<Candidate>,
    corpus: CorpusStats,
    given_corpus: Option<CorpusStats>,
    /// Per token: files holding it.
    df: Vec<u32>,
    tok: Tokenizer,
    prefilter: Prefilter,
    /// Per token, reused across files: counts, the last line seen (+1).
    dense: Vec<TermStats>,
    last_line: Vec<u32>,
    touched: Vec<u16>,
}

/// Phase-one verdict on a candidate.
#[derive(Debug, Clone)]
struct Scored {
    file: usize,
    /// 0: a dated file in a time range matching half the query's words
    /// (or there are none); 1: a file naming a range's month, matching half
    /// the words; 2: a dated file in a short time range matching fewer
    /// (by its score, so those matching some come before those matching
    /// none); 3: any other match; 4: a dated file in a long time range, no
    /// word.
    tier: u8,
    score: f64,
    /// Terms matched (bit per term).
    matched: u64,
    /// Spans (bit per span) it is in: by its date, or by naming the month.
    spans: u32,
}

impl Ranker {
    /// A ranker for `query`, time words resolved against `today`.
    pub fn new(query: &str, today: Date) -> Ranker {
        let plan = Plan::new(query, today);
        let n = plan.tokens.len();
        Ranker {
            prefilter: Prefilter::new(&plan),
            plan,
            files: Vec::new(),
            corpus: CorpusStats::default(),
            given_corpus: None,
            df: vec![0; n],
            tok: Tokenizer::default(),
            dense: vec![TermStats::default(); n],
            last_line: vec![0; n],
            touched: Vec::new(),
        }
    }

    /// The tokens the query looks up: an index needs the files holding any
    /// of them (plus the logs in [`Ranker::date_ranges`]).
    pub fn tokens(&self) -> &[String] {
        &self.plan.tokens
    }

    /// The date ranges of the query's time words, inclusive.
    pub fn date_ranges(&self) -> impl Iterator<Item = (Date, Date)> + '_ {
        self.plan.spans.iter().map(|s| (s.first, s.last))
    }

    /// Corpus totals from an index, when not every file is added; without
    /// it the totals are those of the files added.
    pub fn set_corpus(&mut self, corpus: CorpusStats) {
        self.given_corpus = Some(corpus);
    }

    fn spans_of(&self, date: Option<Date>) -> u32 {
        let Some(d) = date else { return 0 };
        self.plan
            .spans
            .iter()
            .enumerate()
            .filter(|(_, s)| s.contains(d))
            .fold(0, |m, (i, _)| m | 1 << i)
    }

    /// Add one file by its text.
    pub fn add_file(&mut self, meta: FileMeta, text: &str) {
        let plan = &self.plan;
        let (dense, last_line, touched) = (&mut self.dense, &mut self.last_line, &mut self.touched);
        let wanted = |raw: &[u8]| plan.may_want(raw);
        let mut on = |t: &str, field: usize, line: u32| {
            let Some(&id) = plan.ids.get(t) else { return };
            let i = usize::from(id);
            let s = &mut dense[i];
            if *s == TermStats::default() && last_line[i] == 0 {
                touched.push(id);
            }
            s.tf[field] += 1;
            if field != NAME && last_line[i] != line + 1 {
                last_line[i] = line + 1;
                s.lines += 1;
            }
        };
        // With no terms (a query of time words) only the lengths count.
        let on = (!plan.tokens.is_empty()).then_some(&mut on);
        let text_too = self.prefilter.may_hold(plan, &mut self.tok, text);
        let lengths = walk(&mut self.tok, &meta.stem, text, &wanted, on, text_too);
        let mut stats: Vec<(u16, TermStats)> = self
            .touched
            .drain(..)
            .map(|id| {
                let i = usize::from(id);
                self.last_line[i] = 0;
                (id, std::mem::take(&mut self.dense[i]))
            })
            .collect();
        stats.sort_unstable_by_key(|s| s.0);
        self.push(meta, lengths, stats);
    }

    /// Add one file by its statistics (tokens the query does not use are
    /// ignored).
    pub fn add_stats(&mut self, meta: FileMeta, stats: &FileStats) {
        let mut kept: Vec<(u16, TermStats)> = stats
            .terms
            .iter()
            .filter_map(|(t, s)| self.plan.ids.get(t.as_str()).map(|&id| (id, *s)))
            .collect();
        kept.sort_unstable_by_key(|s| s.0);
        self.push(meta, stats.lengths, kept);
    }

    /// Add one file by its field lengths and its counts of the query's
    /// tokens, each by its id (its index in [`Ranker::tokens`]), ids
    /// ascending: what [`Ranker::add_stats`] keeps of a file's statistics,
    /// without looking each token up by its text.
    pub fn add_token_stats(
        &mut self,
        meta: FileMeta,
        lengths: [u32; FIELDS],
        stats: Vec<(u16, TermStats)>,
    ) {
        debug_assert!(stats.windows(2).all(|w| w[0].0 < w[1].0));
        debug_assert!(
            stats
                .iter()
                .all(|s| usize::from(s.0) < self.plan.tokens.len())
        );
        self.push(meta, lengths, stats);
    }

    fn push(&mut self, meta: FileMeta, lengths: [u32; FIELDS], stats: Vec<(u16, TermStats)>) {
        self.corpus.files += 1;
        for (total, len) in self.corpus.lengths.iter_mut().zip(lengths) {
            *total += u64::from(len);
        }
        for (id, _) in &stats {
            self.df[usize::from(*id)] += 1;
        }
        let date = file_date(&meta);
        let spans = self.spans_of(date);
        if !stats.is_empty() || spans != 0 {
            self.files.push(Candidate {
                meta,
                date,
                lengths,
                stats,
                spans,
            });
        }
    }

    /// Rank, re-read the best files through `read` (a file it cannot read
    /// any more is left out), and build the results.
    pub fn finish(self, mut read: impl FnMut(&FileMeta) -> Option<String>) -> SearchResults {
        self.order().results(&mut read)
    }

    /// Phase one: score every candidate from its statistics, keep the best
    /// [`MAX_HITS`], count the summary's terms. Phase two then runs on
    /// demand, file by file, in [`Ordered::next_hit`].
    pub fn order(mut self) -> Ordered {
        self.plan.parts_for_missing(&self.df);
        let plan = &self.plan;
        if plan.terms.is_empty() && plan.spans.is_empty() {
            return Ordered::empty(self);
        }
        let corpus = self.given_corpus.unwrap_or(self.corpus);
        let n = corpus.files.max(1) as f64;
        let avg: [f64; FIELDS] = std::array::from_fn(|f| {
            let a = corpus.lengths[f] as f64 / n;
            if a > 0.0 { a } else { 1.0 }
        });
        let idf: Vec<f64> = self
            .df
            .iter()
            .map(|&df| {
                let df = f64::from(df).min(n);
                (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
            })
            .collect();
        let mut term_lines = vec![0usize; plan.terms.len()];
        // Terms some file holds (bit per term), in any field.
        let mut held = 0u64;
        let mut span_files = vec![0usize; plan.spans.len()];
        let mut scored = Vec::new();
        for (file, c) in self.files.iter().enumerate() {
            let (score, matched) = self.phase_one(c, &avg, &idf, &mut term_lines);
            held |= matched;
            // Only a name holding some query token can be named by the query.
            let named = c.meta.date.is_none()
                && !c.meta.is_memory_md
                && c.stats.iter().any(|(_, s)| s.tf[NAME] > 0)
                && plan.names(&c.meta.stem);
            let score = score * prior(&c.meta) * if named { NAMED_WEIGHT } else { 1.0 };
            let half = plan.holds_half(matched);
            let named_month = plan.mentions(&c.stats, half) & !c.spans;
            let spans = c.spans | named_month;
            for (i, count) in span_files.iter_mut().enumerate() {
                *count += usize::from(spans & 1 << i != 0);
            }
            let tier = match (c.spans != 0, matched != 0 || plan.terms.is_empty()) {
                (true, true) if half => 0,
                _ if named_month != 0 => 1,
                (true, _) if c.spans & plan.narrow != 0 => 2,
                (_, true) => 3,
                (true, false) => 4,
                (false, false) => continue,
            };
            scored.push(Scored {
                file,
                tier,
                score,
                matched,
                spans,
            });
        }
        scored.sort_by(|a, b| compare(&self.files, a, b));
        scored.truncate(MAX_HITS);
        // The best each candidate can end with: its phase-one score plus
        // the most proximity could add (slightly widened, so rounding can
        // never put a final score above it), compared as the final order
        // compares; a candidate proximity cannot change keeps its score,
        // and ties go on to the date and path as always. Phase two takes
        // the candidates best bound first.
        let mut bounds: Vec<(Scored, usize)> = scored
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let c = &self.files[s.file];
                let most = self.proximity_bound(c, &idf) * prior(&c.meta);
                let mut top = s.clone();
                if most > 0.0 {
                    top.score += most * (1.0 + 1e-9) + 1e-12;
                }
                (top, i)
            })
            .collect();
        bounds.sort_by(|a, b| compare(&self.files, &a.0, &b.0));
        let mut terms: Vec<(usize, String, usize)> = plan
            .terms
            .iter()
            .zip(term_lines)
            .enumerate()
            .filter(|(i, (t, _))| !(t.joined || t.origin.is_some()) || held & 1 << i != 0)
            .map(|(_, (t, n))| (t.at, t.shown.clone(), n))
            .collect();
        terms.extend(
            plan.spans
                .iter()
                .zip(span_files)
                .map(|(s, n)| (s.at, s.phrase.clone(), n)),
        );
        terms.sort_by_key(|t| t.0);
        Ordered {
            terms: terms.into_iter().map(|(_, t, n)| (t, n)).collect(),
            idf,
            scored,
            bounds,
            next: 0,
            ready: Vec::new(),
            kept: 0,
            memo: FxHashMap::default(),
            best: None,
            all: false,
            tok: Tokenizer::default(),
            given: Vec::new(),
            ranker: self,
        }
    }

    /// The most the proximity bonus can add to a candidate, before its
    /// prior: per query pair, the saturation of a sum that gets at most one
    /// `1/d²` (never above one) per recorded occurrence of the pair's first
    /// token, and at most `gap + 1/4 + 1/9` per occurrence of the second:
    /// the first tokens before one second token end at distinct places, as
    /// many as the query's own gap count as adjacent, the rest at distances
    /// 2 and 3.
    fn proximity_bound(&self, c: &Candidate, idf: &[f64]) -> f64 {
        let count = |id: u16| {
            c.stats
                .binary_search_by_key(&id, |s| s.0)
                .ok()
                .map_or(0, |i| {
                    c.stats[i].1.tf.iter().map(|&t| t as usize).sum::<usize>()
                })
        };
        self.plan
            .pairs
            .iter()
            .map(|p| {
                let per_second = f64::from(p.gap)
                    + (2..=PROXIMITY_REACH)
                        .map(|d| 1.0 / f64::from(d * d))
                        .sum::<f64>();
                let f = (count(p.a).min(MAX_OCCURRENCES) as f64)
                    .min(count(p.b).min(MAX_OCCURRENCES) as f64 * per_second);
                let w = idf[usize::from(p.a)].min(idf[usize::from(p.b)]);
                w * f * (K1 + 1.0) / (f + K1)
            })
            .sum()
    }

    /// BM25F score and matched terms of one candidate from its statistics;
    /// adds each matched term's lines to `term_lines`.
    fn phase_one(
        &self,
        c: &Candidate,
        avg: &[f64; FIELDS],
        idf: &[f64],
        term_lines: &mut [usize],
    ) -> (f64, u64) {
        let stats_of = |id: u16| {
            c.stats
                .binary_search_by_key(&id, |s| s.0)
                .ok()
                .map(|i| c.stats[i].1)
        };
        // The occurrences of each join that stands for two query words
        // (`cloudsql` for `cloud sql`), less those that are also the words
        // (the whole of `api-version`).
        let joins: Vec<(u16, u16, TermStats)> = self
            .plan
            .terms
            .iter()
            .filter(|t| t.joined)
            .filter_map(|t| {
                let (x, y) = t.covers?;
                let mut s = stats_of(t.tokens[0])?;
                if let Some((a, b)) = stats_of(x).zip(stats_of(y)) {
                    for f in 0..FIELDS {
                        s.tf[f] = s.tf[f].saturating_sub(a.tf[f].min(b.tf[f]));
                    }
                }
                (s.tf != [0; FIELDS]).then_some((x, y, s))
            })
            .collect();
        // A word's counts for scoring: its own plus those of the joins that
        // stand for it, as BM25F counts a synonym; so a rare join adds no
        // weight of its own beyond the words it spells.
        let scored_of = |id: u16| {
            let mut got = stats_of(id);
            for (_, _, j) in joins.iter().filter(|(x, y, _)| *x == id || *y == id) {
                let s = got.get_or_insert_with(TermStats::default);
                for f in 0..FIELDS {
                    s.tf[f] += j.tf[f];
                }
            }
            got
        };
        let mut score = 0.0;
        let mut matched = 0u64;
        // Per query term, the best score of its relatives in this file.
        let mut related = [0.0f64; MAX_QUERY_TERMS];
        for (t, term) in self.plan.terms.iter().enumerate() {
            if let Some(origin) = term.origin {
                let id = term.tokens[0];
                if let Some(s) = stats_of(id) {
                    let r = RELATED_WEIGHT * bm25f(&s, &c.lengths, avg, idf[usize::from(id)]);
                    let best = &mut related[usize::from(origin)];
                    *best = best.max(r);
                    matched |= 1 << t;
                    term_lines[t] += s.lines as usize;
                }
                continue;
            }
            if term.joined && term.covers.is_some() {
                // Scored as its words (above); matched as itself.
                if let Some(&(.., s)) = joins.iter().find(|j| Some((j.0, j.1)) == term.covers) {
                    matched |= 1 << t;
                    term_lines[t] += s.lines as usize;
                }
                continue;
            }
            let mut sum = 0.0;
            let mut lines = u32::MAX;
            let mut held = true;
            let mut scores = true;
            for &id in &term.tokens {
                let Some(s) = scored_of(id) else {
                    scores = false;
                    break;
                };
                sum += bm25f(&s, &c.lengths, avg, idf[usize::from(id)]);
                match stats_of(id) {
                    Some(own) => lines = lines.min(own.lines),
                    None => held = false,
                }
            }
            if scores && !term.tokens.is_empty() {
                score += sum / term.tokens.len() as f64;
            }
            if scores && held && !term.tokens.is_empty() {
                if !term.parts.is_empty() {
                    let parts: f64 = term
                        .parts
                        .iter()
                        .filter_map(|&id| {
                            stats_of(id).map(|s| bm25f(&s, &c.lengths, avg, idf[usize::from(id)]))
                        })
                        .sum();
                    score += PART_WEIGHT * parts / term.parts.len() as f64;
                }
                matched |= 1 << t;
                term_lines[t] += lines as usize;
            }
        }
        // A relative counts where the word itself does not.
        for (t, best) in related.iter().enumerate() {
            if matched & 1 << t == 0 {
                score += best;
            }
        }
        (score, matched)
    }
}

/// A file's date (see the module documentation's "Time"): a daily log's,
/// or the first valid `YYYY-MM-DD` standing alone in a note's name.
pub fn file_date(meta: &FileMeta) -> Option<Date> {
    if let Some(d) = &meta.date {
        return crate::names::daily_date(d).ok();
    }
    let b = meta.stem.as_bytes();
    (0..b.len().saturating_sub(9)).find_map(|i| {
        // The shape first: `daily_date` formats an error for every other
        // window, and every note's name is tried here on every search.
        let shaped = (0..10).all(|j| matches!(j, 4 | 7) == (b[i + j] == b'-'))
            && (0..10).all(|j| matches!(j, 4 | 7) || b[i + j].is_ascii_digit());
        let alone = (i == 0 || !b[i - 1].is_ascii_digit())
            && b.get(i + 10).is_none_or(|c| !c.is_ascii_digit());
        let s = meta.stem.get(i..i + 10).filter(|_| shaped && alone)?;
        crate::names::daily_date(s).ok()
    })
}

/// What a file's relevance and proximity are multiplied by:
/// [`MEMORY_MD_WEIGHT`] for MEMORY.md, 1 for any other (a named note's
/// relevance is multiplied by [`NAMED_WEIGHT`] as well).
fn prior(meta: &FileMeta) -> f64 {
    if meta.is_memory_md {
        MEMORY_MD_WEIGHT
    } else {
        1.0
    }
}

/// Ranked candidates whose phase two runs on demand: [`Ordered::next_hit`]
/// gives the hits in their final order, re-reading only as many files as
/// that order needs. Proximity only ever adds to a phase-one score, and
/// a bound from its word counts says by how much at most, so a hit is
/// final once it beats the best possible score of every candidate not
/// re-read yet. Candidates are re-read best bound first: a file that
/// could rise far (many occurrences of the words) is settled before the
/// ones it could pass, not after every file between. With no query
/// pairs, phase-one order is final and only the hits taken are read.
#[derive(Debug)]
pub struct Ordered {
    /// Each term and its matching lines across all files (the summary).
    pub terms: Vec<(String, usize)>,
    ranker: Ranker,
    idf: Vec<f64>,
    /// The best [`MAX_HITS`] by phase one, in its order.
    scored: Vec<Scored>,
    /// The best each of them can end with, and which it is, best first:
    /// the order they are re-read in.
    bounds: Vec<(Scored, usize)>,
    /// The first of `bounds` not yet re-read.
    next: usize,
    /// Re-read, final score known, not yet given out.
    ready: Vec<(Scored, Settled)>,
    /// Bytes of text held in `ready` (at most [`KEEP_TEXT_BYTES`]).
    kept: usize,
    /// Names tokenized by [`proximity_only`], by their bytes.
    memo: FxHashMap<Box<[u8]>, Segment>,
    /// Which of `ready` comes first, when known.
    best: Option<usize>,
    /// Every hit will be given out ([`Ordered::results`]): each candidate
    /// is tokenized whole as it is settled, not for its proximity first
    /// and again for its lines.
    all: bool,
    tok: Tokenizer,
    /// The evidence of each hit given out, in order.
    given: Vec<Evidence>,
}

/// What the ranking knows of a hit beyond its text: what fusion with
/// meaning weighs (the semantic module's fusion, a layer above ranking).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidence {
    /// A lower tier always comes first: 0 for a dated file in a time
    /// range holding half the query's words, 3 for any other match (see
    /// the module's documentation).
    pub tier: u8,
    /// The final score: BM25F with proximity, the file's prior and a
    /// name's weight.
    pub score: f64,
    /// The share of the query's idf mass (over its own words, a related
    /// form counting for the word it stands for) that the hit holds: 1 when
    /// it holds every word, near 0 when it holds only words most files hold.
    pub idf_share: f64,
}

/// How much re-read text [`Ordered`] holds for hits whose lines are not
/// known yet; past it, a candidate's lines are found as it is settled.
const KEEP_TEXT_BYTES: usize = 8 << 20;

/// A re-read candidate whose final score is known.
#[derive(Debug)]
enum Settled {
    /// Its hit, built.
    Hit(SearchHit),
    /// Its text: the hit (lines, windows) is built only when given out,
    /// and most candidates settled never are. The proximity bonus is
    /// already in the score.
    Text(String, f64),
}

impl Ordered {
    fn empty(ranker: Ranker) -> Ordered {
        Ordered {
            terms: ranker.plan.stops.iter().map(|s| (s.clone(), 0)).collect(),
            ranker,
            idf: Vec::new(),
            scored: Vec::new(),
            bounds: Vec::new(),
            next: 0,
            ready: Vec::new(),
            kept: 0,
            memo: FxHashMap::default(),
            best: None,
            all: false,
            tok: Tokenizer::default(),
            given: Vec::new(),
        }
    }

    /// Every hit, in order, as results: each candidate re-read through
    /// `read`.
    pub fn results(self, read: &mut dyn FnMut(&FileMeta) -> Option<String>) -> SearchResults {
        self.results_with_evidence(read).0
    }

    /// [`Ordered::results`], with each hit's [`Evidence`] in the same order.
    pub fn results_with_evidence(
        mut self,
        read: &mut dyn FnMut(&FileMeta) -> Option<String>,
    ) -> (SearchResults, Vec<Evidence>) {
        self.all = true;
        let mut hits = Vec::new();
        while let Some(hit) = self.next_hit(read) {
            hits.push(hit);
        }
        let results = SearchResults {
            terms: self.terms,
            hits,
        };
        (results, self.given)
    }

    /// The share of the query's idf mass that the terms in `matched` (bit
    /// per term) carry. A join or a related form adds no weight of its
    /// own; a related form held counts for the word it stands for.
    fn idf_share(&self, matched: u64) -> f64 {
        let terms = &self.ranker.plan.terms;
        let idf = |t: &Term| {
            t.tokens
                .iter()
                .filter_map(|&k| self.idf.get(usize::from(k)))
                .fold(0.0f64, |a, &b| a.max(b))
        };
        let (mut total, mut held) = (0.0, 0.0);
        for (i, t) in terms.iter().enumerate() {
            if t.joined || t.origin.is_some() {
                continue;
            }
            let w = idf(t);
            total += w;
            let related = terms
                .iter()
                .enumerate()
                .any(|(j, r)| r.origin == Some(i as u16) && matched & 1 << j != 0);
            if matched & 1 << i != 0 || related {
                held += w;
            }
        }
        if total > 0.0 { held / total } else { 0.0 }
    }

    /// The paths of every file that may be a hit.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.scored
            .iter()
            .map(|s| self.ranker.files[s.file].meta.path.as_str())
    }

    /// How many hits there are (at most [`MAX_HITS`]), counting files not
    /// re-read yet as readable.
    pub fn total(&self) -> usize {
        self.scored.len()
    }

    /// The next hit in final order, re-reading files through `read` as
    /// needed; a file it cannot read any more is left out.
    pub fn next_hit(
        &mut self,
        read: &mut dyn FnMut(&FileMeta) -> Option<String>,
    ) -> Option<SearchHit> {
        loop {
            let files = &self.ranker.files;
            if self.best.is_none() {
                self.best = (0..self.ready.len())
                    .min_by(|&a, &b| compare(files, &self.ready[a].0, &self.ready[b].0));
            }
            if let Some(b) = self.best {
                let beats = match self.bounds.get(self.next) {
                    None => true,
                    Some(later) => compare(files, &self.ready[b].0, &later.0) == Ordering::Less,
                };
                if beats {
                    self.best = None;
                    let (s, settled) = self.ready.swap_remove(b);
                    self.given.push(Evidence {
                        tier: s.tier,
                        score: s.score,
                        idf_share: self.idf_share(s.matched),
                    });
                    return Some(match settled {
                        Settled::Hit(hit) => hit,
                        Settled::Text(text, proximity) => {
                            self.kept -= text.len();
                            self.hit_of(&s, &text, Some(proximity))
                        }
                    });
                }
            }
            let &(_, i) = self.bounds.get(self.next)?;
            let s = self.scored[i].clone();
            self.next += 1;
            if let Some(hit) = self.settle(s, read) {
                // The best of `ready` stays known as it grows.
                if let Some(b) = self.best
                    && compare(&self.ranker.files, &hit.0, &self.ready[b].0) == Ordering::Less
                {
                    self.best = Some(self.ready.len());
                }
                self.ready.push(hit);
            }
        }
    }

    /// Phase two of one candidate: its final score, and its hit or the
    /// text to build it from.
    fn settle(
        &mut self,
        mut s: Scored,
        read: &mut dyn FnMut(&FileMeta) -> Option<String>,
    ) -> Option<(Scored, Settled)> {
        let r = &self.ranker;
        let plan = &r.plan;
        let c = &r.files[s.file];
        let text = read(&c.meta)?;
        if s.matched != 0 && !self.all && self.kept + text.len() <= KEEP_TEXT_BYTES {
            let proximity = proximity_only(
                plan,
                &r.prefilter,
                &self.idf,
                &mut self.tok,
                &mut self.memo,
                &c.meta.stem,
                &text,
            );
            if let Some(proximity) = proximity {
                s.score += proximity * prior(&c.meta);
                self.kept += text.len();
                return Some((s, Settled::Text(text, proximity)));
            }
        }
        let (s, hit) = self.build_hit(s, &text, None);
        Some((s, Settled::Hit(hit)))
    }

    /// The hit of a candidate whose score is settled, from its text.
    fn hit_of(&mut self, s: &Scored, text: &str, proximity: Option<f64>) -> SearchHit {
        self.build_hit(s.clone(), text, proximity).1
    }

    /// A candidate's hit from its text: its lines and windows, or the
    /// preview of a file that matched by name or date alone. Unless the
    /// proximity bonus is `known` (already in the score), it is added to
    /// the score.
    fn build_hit(&mut self, mut s: Scored, text: &str, known: Option<f64>) -> (Scored, SearchHit) {
        let r = &self.ranker;
        let plan = &r.plan;
        let c = &r.files[s.file];
        let detail = if s.matched != 0 {
            Some(detail(
                plan,
                &r.prefilter,
                &self.idf,
                &mut self.tok,
                &c.meta.stem,
                text,
            ))
        } else {
            None
        };
        let proximity = detail.as_ref().map_or(0.0, |d| d.proximity);
        match known {
            // The score is settled already, from the same bonus.
            Some(p) => debug_assert_eq!(p.to_bits(), proximity.to_bits()),
            None => s.score += proximity * prior(&c.meta),
        }
        let (body, total_hits, filename_only) = match &detail {
            Some(d) if !d.lines.is_empty() => {
                (render_windows(text, &d.chosen), d.lines.len(), false)
            }
            _ => (preview(text), 0, true),
        };
        let mut matched: Vec<(usize, String)> = plan
            .terms
            .iter()
            .enumerate()
            .filter(|(i, _)| s.matched & 1 << i != 0)
            .map(|(_, t)| (t.at, t.shown.clone()))
            .collect();
        matched.extend(
            plan.spans
                .iter()
                .enumerate()
                .filter(|(i, _)| s.spans & 1 << i != 0)
                .map(|(_, sp)| (sp.at, sp.phrase.clone())),
        );
        matched.sort_by_key(|m| m.0);
        let hit = SearchHit {
            path: c.meta.path.clone(),
            matched_terms: matched.into_iter().map(|m| m.1).collect(),
            total_hits,
            body,
            filename_only,
            date: c.meta.date.clone(),
            is_memory_md: c.meta.is_memory_md,
        };
        (s, hit)
    }
}

/// One token's BM25F score in a file with field lengths `lengths`.
fn bm25f(s: &TermStats, lengths: &[u32; FIELDS], avg: &[f64; FIELDS], idf: f64) -> f64 {
    let mut f = 0.0;
    for field in 0..FIELDS {
        let norm = 1.0 - B + B * f64::from(lengths[field]) / avg[field];
        f += FIELD_WEIGHTS[field] * f64::from(s.tf[field]) / norm;
    }
    idf * f * (K1 + 1.0) / (f + K1)
}

/// Tier, then score, then the newer log, then the path.
fn compare(files: &[Candidate], a: &Scored, b: &Scored) -> Ordering {
    let (fa, fb) = (&files[a.file], &files[b.file]);
    a.tier
        .cmp(&b.tier)
        .then_with(|| b.score.partial_cmp(&a.score).unwrap_or(Ordering::Equal))
        .then_with(|| fb.date.cmp(&fa.date))
        .then_with(|| fa.meta.path.cmp(&fb.meta.path))
}

/// Phase two of one file.
#[derive(Debug)]
struct Detail {
    proximity: f64,
    /// Lines matching some term: (end offset, score, index).
    lines: Vec<(usize, f64, usize)>,
    /// Ends of the lines the windows go around, ascending.
    chosen: Vec<usize>,
}

/// Where a file's query tokens occur, for phase two.
struct Occurrences {
    /// Per token: (position, span), ascending, at most [`MAX_OCCURRENCES`].
    at: Vec<Vec<(u32, u32)>>,
    /// Per token: the last line it was seen on.
    line: Vec<u32>,
    /// Tokens first seen on the current line.
    touched: Vec<u16>,
}

impl Occurrences {
    /// Record the token `t` at `k` if it is a plan token, moving
    /// `last_end` past it.
    fn record(&mut self, plan: &Plan, t: &str, k: tokenize::Tok, line: u32, last_end: &mut u32) {
        let Some(&id) = plan.ids.get(t) else { return };
        *last_end = (*last_end).max(k.pos + k.span);
        let i = usize::from(id);
        if self.at[i].len() < MAX_OCCURRENCES {
            self.at[i].push((k.pos, k.span));
        }
        if self.line[i] != line {
            self.line[i] = line;
            self.touched.push(id);
        }
    }
}

/// Re-read a file: proximity bonus, line scores, the lines to show.
///
/// Only lines the prefilter cannot rule out are tokenized. Positions matter
/// only as distances between occurrences, and only up to the farthest a
/// pair can reach, so a line with no query token adds its exact number of
/// parts only while the last occurrence is nearer than that; after that
/// nothing, as no later occurrence can come within reach of an earlier one.
fn detail(
    plan: &Plan,
    prefilter: &Prefilter,
    idf: &[f64],
    tok: &mut Tokenizer,
    name: &str,
    text: &str,
) -> Detail {
    let n = plan.tokens.len();
    let mut occ = Occurrences {
        at: vec![Vec::new(); n],
        line: vec![u32::MAX; n],
        touched: Vec::new(),
    };
    let mut term_line = vec![u32::MAX; plan.terms.len()];
    let wanted = |raw: &[u8]| plan.may_want(raw);
    let reach = plan.reach();
    // Position just past the last occurrence recorded.
    let mut last_end = 0u32;
    let mut pos = 0;
    tok.tokens(name, &mut pos, &wanted, &mut |t, k| {
        occ.record(plan, t, k, u32::MAX - 1, &mut last_end)
    });
    // The name does not run into the first line.
    pos += PROXIMITY_REACH + 1;
    let candidates = prefilter.candidates(plan, tok, text);
    let mut next = 0;
    let mut fences = Fences::default();
    let mut lines = Vec::new();
    let mut start = 0;
    for (index, line) in text.split('\n').enumerate() {
        let key = fences.kind(line).head(line);
        let li = index as u32;
        let end = start + line.len();
        let holds = match &candidates {
            None => true,
            Some(at) => {
                while next < at.len() && at[next] < start {
                    next += 1;
                }
                next < at.len() && at[next] <= end
            }
        };
        if !holds {
            if pos.saturating_sub(last_end) < reach {
                pos += tok.count_parts(line).min(reach);
            }
            start = end + 1;
            continue;
        }
        occ.touched.clear();
        let (head, body) = line.split_at(key);
        tok.tokens(head, &mut pos, &wanted, &mut |t, k| {
            occ.record(plan, t, k, li, &mut last_end)
        });
        // Tokens first seen on this line in its heading part.
        let in_head = occ.touched.len();
        tok.tokens(body, &mut pos, &wanted, &mut |t, k| {
            occ.record(plan, t, k, li, &mut last_end)
        });
        let mut score = 0.0;
        for &id in &occ.touched {
            for &t in &plan.token_terms[usize::from(id)] {
                let term = &plan.terms[usize::from(t)];
                if term_line[usize::from(t)] == li
                    || !term.tokens.iter().all(|&x| occ.line[usize::from(x)] == li)
                {
                    continue;
                }
                term_line[usize::from(t)] = li;
                let w: f64 = term
                    .tokens
                    .iter()
                    .map(|&x| idf[usize::from(x)])
                    .sum::<f64>()
                    / term.tokens.len() as f64;
                let headed = term
                    .tokens
                    .iter()
                    .all(|x| occ.touched[..in_head].contains(x));
                score += if headed {
                    w * FIELD_WEIGHTS[HEADING] / FIELD_WEIGHTS[BODY]
                } else {
                    w
                };
            }
        }
        if score > 0.0 {
            lines.push((end, score, index));
        }
        start = end + 1;
    }
    let proximity = proximity_sum(plan, idf, &occ.at);
    let chosen = choose_lines(&lines);
    Detail {
        proximity,
        lines,
        chosen,
    }
}

/// The proximity bonus from each query token's occurrences, (position,
/// span) ascending: for each pair, every occurrence of its first token
/// adds `1/d²` for the next occurrence of its second within reach.
fn proximity_sum(plan: &Plan, idf: &[f64], occurrences: &[Vec<(u32, u32)>]) -> f64 {
    let mut proximity = 0.0;
    for p in &plan.pairs {
        let (xs, ys) = (
            &occurrences[usize::from(p.a)],
            &occurrences[usize::from(p.b)],
        );
        let mut f = 0.0;
        for &(pos, span) in xs {
            let end = pos + span - 1;
            let next = ys.partition_point(|&(q, _)| q <= end);
            if let Some(&(q, _)) = ys.get(next) {
                let d = (q - end).saturating_sub(p.gap - 1).max(1);
                if d <= PROXIMITY_REACH {
                    f += 1.0 / f64::from(d * d);
                }
            }
        }
        let w = idf[usize::from(p.a)].min(idf[usize::from(p.b)]);
        proximity += w * f * (K1 + 1.0) / (f + K1);
    }
    proximity
}

/// [`detail`]'s proximity bonus alone, for settling a candidate's score
/// without its lines (what only a hit that is shown needs). Equal to it
/// bit for bit, for less work: only the names around the prefilter's
/// candidates are tokenized, and between them only as many parts are
/// counted as a pair can reach. In ASCII text a name is a run of bytes
/// that are not breaks, so every name holding a query token is a run
/// holding a candidate, and positions are exact wherever a pair is within
/// reach (farther, they only need to stay beyond it). `None` when that
/// does not hold (text that is not all ASCII, the prefilter off): then
/// [`detail`] is used.
fn proximity_only(
    plan: &Plan,
    prefilter: &Prefilter,
    idf: &[f64],
    tok: &mut Tokenizer,
    memo: &mut FxHashMap<Box<[u8]>, Segment>,
    name: &str,
    text: &str,
) -> Option<f64> {
    if plan.pairs.is_empty() {
        return Some(0.0);
    }
    if !text.is_ascii() {
        return None;
    }
    let candidates = prefilter.candidates_of(plan, tok, text, true)?;
    let mut at: Vec<Vec<(u32, u32)>> = vec![Vec::new(); plan.tokens.len()];
    let wanted = |raw: &[u8]| plan.may_want(raw);
    // Position just past the last occurrence recorded.
    let mut last_end = 0u32;
    let mut record = |id: u16, pos: u32, span: u32, last_end: &mut u32| {
        *last_end = (*last_end).max(pos + span);
        let v = &mut at[usize::from(id)];
        if v.len() < MAX_OCCURRENCES {
            v.push((pos, span));
        }
    };
    // As in `detail`: the name, then a gap, then the text.
    let mut pos = 0;
    tok.tokens(name, &mut pos, &wanted, &mut |t, k| {
        if let Some(&id) = plan.ids.get(t) {
            record(id, k.pos, k.span, &mut last_end);
        }
    });
    pos += PROXIMITY_REACH + 1;
    let reach = plan.reach();
    let b = text.as_bytes();
    let brk = tokenize::is_break_ascii;
    // Bytes before this are counted: it is 0 or a name's end.
    let mut cursor = 0;
    let mut fresh = Segment::default();
    for &c in &candidates {
        if c < cursor || c >= b.len() || brk(b[c]) {
            continue;
        }
        let mut start = c;
        while start > cursor && !brk(b[start - 1]) {
            start -= 1;
        }
        let mut end = c;
        while end < b.len() && !brk(b[end]) {
            end += 1;
        }
        // Beyond `reach` parts the count need only stay beyond it, and
        // once the last occurrence is that far behind, no later one can
        // come within reach of it or of any before it: nothing to count.
        if pos.saturating_sub(last_end) < reach {
            pos += tok.count_parts_ascii_upto(&text[cursor..start], reach);
        }
        // A name's tokens depend on its bytes alone: each spelling is
        // tokenized once per search.
        let raw = &b[start..end];
        let segment = match memo.get(raw) {
            Some(seg) => seg,
            None => {
                fresh.parts = 0;
                fresh.tokens.clear();
                tok.tokens(&text[start..end], &mut fresh.parts, &wanted, &mut |t, k| {
                    if let Some(&id) = plan.ids.get(t) {
                        fresh.tokens.push((id, k.pos, k.span));
                    }
                });
                if memo.len() < MAX_SEGMENTS {
                    memo.insert(raw.into(), fresh.clone());
                }
                &fresh
            }
        };
        for &(id, rel, span) in &segment.tokens {
            record(id, pos + rel, span, &mut last_end);
        }
        pos += segment.parts;
        cursor = end;
    }
    Some(proximity_sum(plan, idf, &at))
}

/// Most name spellings [`proximity_only`] remembers in one search.
const MAX_SEGMENTS: usize = 4096;

/// One name's parts and the plan tokens among its tokens: (id, position
/// from the name's first part, span).
#[derive(Debug, Clone, Default)]
struct Segment {
    parts: u32,
    tokens: Vec<(u16, u32, u32)>,
}

/// The lines to build windows around: the best-scoring first (earlier on
/// ties), each taken if its window joins one already taken or fewer than
/// [`crate::search::MAX_WINDOWS`] exist. Returned as line ends, ascending.
fn choose_lines(lines: &[(usize, f64, usize)]) -> Vec<usize> {
    use crate::search::{CONTEXT_LINES, MAX_WINDOWS};
    let mut best: Vec<&(usize, f64, usize)> = lines.iter().collect();
    best.sort_by(|a, b| {
        b.1.partial_cmp(&a.1)
            .unwrap_or(Ordering::Equal)
            .then(a.2.cmp(&b.2))
    });
    // Windows as line-index ranges, inclusive, kept sorted and disjoint.
    let mut windows: Vec<(usize, usize)> = Vec::new();
    let mut chosen = Vec::new();
    for &&(end, _, i) in &best {
        let (lo, hi) = (i.saturating_sub(CONTEXT_LINES), i + CONTEXT_LINES);
        // Windows this one overlaps or touches merge with it.
        let first = windows.partition_point(|w| w.1 + 1 < lo);
        let last = windows.partition_point(|w| w.0 <= hi + 1);
        if first == last && windows.len() == MAX_WINDOWS {
            continue;
        }
        let merged = windows[first..last]
            .iter()
            .fold((lo, hi), |m, w| (m.0.min(w.0), m.1.max(w.1)));
        windows.splice(first..last, [merged]);
        chosen.push(end);
    }
    chosen.sort_unstable();
    chosen
}

/// A filename or date match's body: the first non-blank lines, as the
/// literal search shows them.
fn preview(text: &str) -> String {
    let mut body = String::from("(filename match)");
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(PREVIEW_LINES)
    {
        body.push('\n');
        body.push_str(line);
    }
    body
}

#[cfg(test)]
mod tests;
