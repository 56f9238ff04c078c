//! The secret guard: finds credentials in text about to be stored, and
//! blocks, redacts or lets the write through as the host's policy says.
//!
//! The rule set (see [`rules`]) follows the shape leak scanners such as
//! gitleaks use: each rule has literal keywords, a regular expression, an
//! optional entropy floor and allowlists. The keywords are what keep a scan
//! cheap: one pass over the text looks for all of them at once, ignoring
//! ASCII case, and a rule's expression only runs, anchored, at the few places
//! where one of its keywords occurs. Most rules start at their keyword (a
//! token prefix such as `ghp_`); the others walk back from it to the start
//! of the word holding it (`AWS_SECRET_ACCESS_KEY`, a URL scheme).
//!
//! Every expression is bounded in length, and a scan looks at a bounded
//! window after each keyword, so its cost grows with the text and the number
//! of keyword hits, never with the length of a line.

mod rules;
#[cfg(test)]
mod tests;
mod values;

use std::borrow::Cow;
use std::ops::Range;
use std::sync::OnceLock;

use regex_lite::{CaptureLocations, Regex};

use crate::error::{Error, ErrorKind, Result};

/// One detection rule: a stable id, what it finds, and (privately) how.
pub struct Rule {
    /// Stable kebab-case id, e.g. `github-pat`; shown in errors, reports and
    /// `[REDACTED:<id>]` markers.
    pub id: &'static str,
    /// One line saying which credential the rule finds.
    pub description: &'static str,
    /// Lowercase literals; the rule runs only where one occurs (ASCII case
    /// ignored).
    keywords: &'static [&'static str],
    /// Where the expression is anchored relative to a keyword hit.
    start: Start,
    /// The expression, anchored at the start; empty for a private key block
    /// (read by hand, see `private_key_block`).
    pattern: &'static str,
    /// Most bytes after the start the expression may look at.
    window: usize,
    /// For a [`Start::Keyword`] rule: fewest value bytes (see
    /// [`is_value_byte`]) that must follow the start before the expression
    /// is worth running. For a [`Start::Back`] rule: fewest bytes the walk
    /// back must cover.
    min_run: usize,
    /// A cheap test run before the expression: `false` skips it. Gets the
    /// text, the start and the keyword's position.
    pre: fn(&str, usize, usize) -> bool,
    /// Picks the secret value out of a match; `None` rejects the match.
    value: ValueFn,
    /// A rule-specific test of the value; `false` rejects it.
    check: fn(&str) -> bool,
    /// Shannon entropy floor (bits per character) of the value; 0 for none.
    entropy: f32,
    /// A catch-all rule: a more specific rule's finding wins over it.
    generic: bool,
}

/// Picks the value's range (relative to the searched slice) out of the
/// capture locations of a match of the slice.
type ValueFn = fn(&CaptureLocations, &str) -> Option<Range<usize>>;

/// Where a rule's anchored expression starts, relative to a keyword hit.
#[derive(Clone, Copy)]
enum Start {
    /// At the keyword itself, which must not follow a token character (so
    /// `ghp_` inside a longer word is not a GitHub token).
    Keyword,
    /// At the start of the run of bytes of this class that holds the
    /// keyword (an identifier, a URL scheme, a digit run).
    Back(fn(u8) -> bool),
    /// At the keyword, parsed by the private-key block reader.
    PrivateKey,
}

/// How far a [`Start::Back`] rule walks back from its keyword: a longer run
/// is not a name we recognise.
const MAX_BACK: usize = 96;

/// A secret found in text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The id of the rule that found it.
    pub rule_id: &'static str,
    /// The 1-based line the value starts on.
    pub line: u32,
    /// The byte range of the secret value in the scanned text.
    pub range: Range<usize>,
}

/// The built-in rules, specific ones first and the generic assignment rule
/// last.
pub fn rules() -> &'static [Rule] {
    rules::RULES
}

pub use agent_memory_vocab::SecretPolicy;

impl Guarded<'_> {
    /// A line for the receipt when values were redacted: which rules, on
    /// which lines. `None` when nothing was.
    pub fn note(&self) -> Option<String> {
        if self.redacted.is_empty() {
            return None;
        }
        let found: Vec<String> = self
            .redacted
            .iter()
            .map(|f| format!("{} on line {}", f.rule_id, f.line))
            .collect();
        Some(format!(
            "redacted {} secret value(s) before storing ({}): store where a secret lives, never the value",
            self.redacted.len(),
            found.join(", ")
        ))
    }
}

/// Text that passed the guard: unchanged (borrowed) or redacted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guarded<'a> {
    /// The text to store.
    pub text: Cow<'a, str>,
    /// What was redacted, with ranges into the original text; empty unless
    /// the policy is [`SecretPolicy::Redact`].
    pub redacted: Vec<Finding>,
}

/// Most findings a blocked write's message lists one by one.
const MAX_LISTED: usize = 8;

/// Apply the policy to text about to be stored at the store-relative `path`.
///
/// # Errors
///
/// [`ErrorKind::SecretDetected`] under [`SecretPolicy::Block`] when the text
/// holds a secret. The message names the path and each rule id with its line
/// and never any part of the value.
pub fn guard<'a>(text: &'a str, policy: SecretPolicy, path: &str) -> Result<Guarded<'a>> {
    let unchanged = || Guarded {
        text: Cow::Borrowed(text),
        redacted: Vec::new(),
    };
    if policy == SecretPolicy::Off {
        return Ok(unchanged());
    }
    let findings = scan(text);
    if findings.is_empty() {
        return Ok(unchanged());
    }
    match policy {
        SecretPolicy::Block => Err(blocked(path, &findings)),
        _ => Ok(Guarded {
            text: Cow::Owned(redact(text, &findings)),
            redacted: findings,
        }),
    }
}

/// The error of a blocked write: where, which rules, which lines, and what
/// to do instead. Only rule ids and numbers go in, never text.
fn blocked(path: &str, findings: &[Finding]) -> Error {
    let mut listed: Vec<String> = findings
        .iter()
        .take(MAX_LISTED)
        .map(|f| format!("{} on line {}", f.rule_id, f.line))
        .collect();
    if findings.len() > MAX_LISTED {
        listed.push(format!("and {} more", findings.len() - MAX_LISTED));
    }
    let noun = if findings.len() == 1 {
        "a secret"
    } else {
        "secrets"
    };
    Error::new(
        ErrorKind::SecretDetected,
        format!(
            "refused to write `{path}`: it holds {noun} ({}); nothing was written. \
             Remove the value and store where it lives instead (the environment variable \
             name or the vault path), never the secret itself",
            listed.join(", ")
        ),
    )
}

/// `text` with each finding's value replaced by `[REDACTED:<rule-id>]`.
/// Findings out of order, overlapping an earlier one, out of bounds or not
/// on character boundaries are skipped rather than trusted.
pub fn redact(text: &str, findings: &[Finding]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for f in findings {
        let Range { start, end } = f.range;
        if start < copied
            || start > end
            || end > text.len()
            || !text.is_char_boundary(start)
            || !text.is_char_boundary(end)
        {
            continue;
        }
        out.push_str(&text[copied..start]);
        out.push_str("[REDACTED:");
        out.push_str(f.rule_id);
        out.push(']');
        copied = end;
    }
    out.push_str(&text[copied..]);
    out
}

/// A hint of which value a report means, for `scan` output: at most the
/// first 4 characters and never more than a quarter of the value, then `…`.
/// A value of fewer than 4 characters shows as `…` alone.
pub fn masked_prefix(value: &str) -> String {
    let shown = (value.chars().count() / 4).min(4);
    let mut out: String = value.chars().take(shown).collect();
    out.push('…');
    out
}

/// `path` with each secret in its names shown as [`masked_prefix`] shows
/// it: what a report may print of a file or folder named after a
/// credential.
pub fn mask_names(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for (n, segment) in path.split('/').enumerate() {
        if n > 0 {
            out.push('/');
        }
        let mut at = 0;
        for f in scan(segment) {
            if f.range.start < at {
                continue;
            }
            out.push_str(&segment[at..f.range.start]);
            out.push_str(&masked_prefix(&segment[f.range.clone()]));
            at = f.range.end;
        }
        out.push_str(&segment[at..]);
    }
    out
}

/// The compiled rule set and the keyword table, built once.
struct Engine {
    /// Per rule, its anchored expression.
    regexes: Vec<Regex>,
    /// For each ASCII-lowercased byte pair, the index into `buckets` of the
    /// keywords starting with it; 0 for none.
    pair_index: Vec<u16>,
    /// Keywords grouped by their first two bytes: (rule index, keyword).
    buckets: Vec<Vec<(usize, &'static [u8])>>,
}

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let regexes = rules::RULES
            .iter()
            .map(|r| {
                let pattern = if r.pattern.is_empty() {
                    // Never consulted: a private key block is read by hand.
                    "^$".to_string()
                } else {
                    format!("^(?:{})", r.pattern)
                };
                // The patterns are constants checked by the unit tests.
                Regex::new(&pattern).expect("built-in secret rule compiles")
            })
            .collect();
        let mut pair_index = vec![0u16; 1 << 16];
        let mut buckets: Vec<Vec<(usize, &'static [u8])>> = vec![Vec::new()];
        for (ri, rule) in rules::RULES.iter().enumerate() {
            for kw in rule.keywords {
                let kw = kw.as_bytes();
                debug_assert!(kw.len() >= 2 && !kw.iter().any(u8::is_ascii_uppercase));
                let pair = usize::from(kw[0]) << 8 | usize::from(kw[1]);
                if pair_index[pair] == 0 {
                    pair_index[pair] = buckets.len() as u16;
                    buckets.push(Vec::new());
                }
                buckets[usize::from(pair_index[pair])].push((ri, kw));
            }
        }
        Engine {
            regexes,
            pair_index,
            buckets,
        }
    })
}

/// A match before overlaps are resolved.
struct Candidate {
    rule: usize,
    range: Range<usize>,
}

/// Per-scan bookkeeping that keeps the work bounded.
struct ScanState {
    /// Per rule, the last start its expression ran from: keyword hits
    /// inside one word share a start and run once.
    last_start: Vec<usize>,
    /// Per rule, the end of its last match: hits inside a match are not
    /// tried again.
    covered: Vec<usize>,
    /// Per rule, reusable capture slots.
    locs: Vec<Option<CaptureLocations>>,
    /// The first `-----END` marker at or after `end_from`, once looked for
    /// (`None` for none): hits come in text order, so each stretch of text
    /// is searched once.
    end_marker: Option<Option<usize>>,
    end_from: usize,
}

/// Find the secrets in `text`, in text order, non-overlapping.
pub fn scan(text: &str) -> Vec<Finding> {
    let eng = engine();
    let bytes = text.as_bytes();
    let n_rules = rules::RULES.len();
    let mut st = ScanState {
        last_start: vec![usize::MAX; n_rules],
        covered: vec![0; n_rules],
        locs: (0..n_rules).map(|_| None).collect(),
        end_marker: None,
        end_from: 0,
    };
    let mut cands = Vec::new();
    for i in 0..bytes.len().saturating_sub(1) {
        let pair = usize::from(bytes[i].to_ascii_lowercase()) << 8
            | usize::from(bytes[i + 1].to_ascii_lowercase());
        let bucket = eng.pair_index[pair];
        if bucket == 0 {
            continue;
        }
        for &(ri, kw) in &eng.buckets[usize::from(bucket)] {
            let hay = &bytes[i..];
            if hay.len() >= kw.len() && hay[..kw.len()].eq_ignore_ascii_case(kw) {
                try_rule(eng, ri, i, text, &mut st, &mut cands);
            }
        }
    }
    resolve(text, cands)
}

/// Byte classes for [`Start::Back`].
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// Bytes a token value is made of, for the [`Rule::min_run`] precheck.
fn is_value_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'+' | b'/' | b'=' | b'~' | b'%')
}

/// Whether `b` continues a token, so a keyword right after it is not the
/// token's start.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')
}

/// The largest char boundary of `s` at or below `i`.
fn floor_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Run rule `ri` for a keyword hit at byte `at`, pushing a candidate if it
/// matches and its value passes the rule's checks.
fn try_rule(
    eng: &Engine,
    ri: usize,
    at: usize,
    text: &str,
    st: &mut ScanState,
    cands: &mut Vec<Candidate>,
) {
    let rule = &rules::RULES[ri];
    let bytes = text.as_bytes();
    if at < st.covered[ri] {
        return;
    }
    let start = match rule.start {
        Start::Keyword => {
            // A keyword that starts with punctuation (`/api/webhooks/`)
            // needs no boundary before it.
            if at > 0 && is_token_byte(bytes[at]) && is_token_byte(bytes[at - 1]) {
                return;
            }
            let run = bytes[at..]
                .iter()
                .take(rule.min_run)
                .take_while(|&&b| is_value_byte(b))
                .count();
            if run < rule.min_run {
                return;
            }
            at
        }
        // Five dashes are boundary enough (and a `\\n` escape may precede).
        Start::PrivateKey => at,
        Start::Back(class) => {
            let mut s = at;
            while s > 0 && class(bytes[s - 1]) {
                if at - s >= MAX_BACK {
                    return;
                }
                s -= 1;
            }
            if at - s < rule.min_run {
                return;
            }
            s
        }
    };
    if st.last_start[ri] == start {
        return;
    }
    st.last_start[ri] = start;
    // The expression engine is slow per byte; most keyword hits in prose
    // fail a cheaper test first.
    if !(rule.pre)(text, start, at) {
        return;
    }
    if let Start::PrivateKey = rule.start {
        if let Some(range) = private_key_block(text, start, st) {
            st.covered[ri] = range.end;
            cands.push(Candidate { rule: ri, range });
        }
        return;
    }
    // The keyword and the class bytes walked over are ASCII, so `start` is
    // a char boundary.
    let end = floor_boundary(text, start.saturating_add(rule.window));
    let hay = &text[start..end];
    let re = &eng.regexes[ri];
    let locs = st.locs[ri].get_or_insert_with(|| re.capture_locations());
    let Some(m) = re.captures_read(locs, hay) else {
        return;
    };
    st.covered[ri] = start + m.end();
    let Some(v) = (rule.value)(locs, hay) else {
        return;
    };
    let value = &hay[v.clone()];
    if value.is_empty()
        || values::is_placeholder(value)
        || (rule.entropy > 0.0 && values::entropy(value) < rule.entropy)
        || !(rule.check)(value)
    {
        return;
    }
    cands.push(Candidate {
        rule: ri,
        range: start + v.start..start + v.end,
    });
}

/// Most bytes between a private key header and its `-----END` line.
const MAX_KEY_BODY: usize = 32 * 1024;
/// Fewest base64 characters a private key body has (the shortest real key,
/// an Ed25519 OpenSSH key, has several times more; documentation elides
/// the body to a few characters or `...`).
const MIN_KEY_BODY: usize = 64;

/// The block starting with a private key header at `start`: through the
/// end of its `-----END ...-----` line, or, when that is missing, through
/// the key body's base64 run. Bodies may be on real lines or `\n`-escaped
/// inside a JSON string (a GCP service account file).
fn private_key_block(text: &str, start: usize, st: &mut ScanState) -> Option<Range<usize>> {
    let body_start = start + rules::pem_header(text, start)?;
    let cached = match st.end_marker {
        Some(marker) if st.end_from <= body_start => marker.is_none_or(|e| e >= body_start),
        _ => false,
    };
    if !cached {
        st.end_marker = Some(text[body_start..].find("-----END").map(|p| p + body_start));
        st.end_from = body_start;
    }
    let bytes = text.as_bytes();
    let body_end = match st.end_marker.flatten() {
        Some(e) if e - body_start <= MAX_KEY_BODY => e,
        _ => {
            // No footer: the key runs as far as its base64 does.
            let mut e = body_start;
            let limit = (body_start + MAX_KEY_BODY).min(bytes.len());
            while e < limit {
                let b = bytes[e];
                if b.is_ascii_alphanumeric()
                    || matches!(b, b'+' | b'/' | b'=' | b' ' | b'\t' | b'\r' | b'\n')
                {
                    e += 1;
                } else if b == b'\\' && matches!(bytes.get(e + 1), Some(b'n' | b'r')) {
                    e += 2;
                } else {
                    break;
                }
            }
            while e > body_start && bytes[e - 1].is_ascii_whitespace() {
                e -= 1;
            }
            e
        }
    };
    let body = &text[body_start..body_end];
    let b64 = body
        .split("\\n")
        .flat_map(|s| s.bytes())
        .filter(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/'))
        .count();
    if b64 < MIN_KEY_BODY || values::has_body_placeholder(body) {
        return None;
    }
    let mut end = body_end;
    if text[end..].starts_with("-----END") {
        // Through the footer's closing dashes.
        let footer = &text[end + 8..floor_boundary(text, end + 8 + 64)];
        if let Some(p) = footer.find("-----") {
            end += 8 + p + 5;
        }
    }
    Some(start..end)
}

/// Overlaps resolved (a specific rule wins over the generic one, then the
/// earlier and longer match), in text order, with line numbers.
fn resolve(text: &str, cands: Vec<Candidate>) -> Vec<Finding> {
    let (mut specific, mut generic): (Vec<_>, Vec<_>) = cands
        .into_iter()
        .partition(|c| !rules::RULES[c.rule].generic);
    let key = |c: &Candidate| (c.range.start, std::cmp::Reverse(c.range.end), c.rule);
    specific.sort_by_key(key);
    generic.sort_by_key(key);
    let mut kept: Vec<Candidate> = Vec::with_capacity(specific.len());
    for c in specific {
        if kept.last().is_none_or(|k| k.range.end <= c.range.start) {
            kept.push(c);
        }
    }
    let mut extra: Vec<Candidate> = Vec::new();
    for c in generic {
        // The kept specific findings are sorted and disjoint: only the last
        // one starting before `c` ends can overlap it.
        let i = kept.partition_point(|k| k.range.start < c.range.end);
        let hits_specific = i > 0 && kept[i - 1].range.end > c.range.start;
        let hits_generic = extra.last().is_some_and(|k| k.range.end > c.range.start);
        if !hits_specific && !hits_generic {
            extra.push(c);
        }
    }
    kept.extend(extra);
    kept.sort_by_key(|c| c.range.start);
    let bytes = text.as_bytes();
    let (mut line, mut pos) = (1u32, 0usize);
    kept.into_iter()
        .map(|c| {
            let newlines = bytes[pos..c.range.start]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            line = line.saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
            pos = c.range.start;
            Finding {
                rule_id: rules::RULES[c.rule].id,
                line,
                range: c.range,
            }
        })
        .collect()
}
