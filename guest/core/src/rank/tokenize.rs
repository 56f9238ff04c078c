//! Words from text: Unicode word boundaries, case folding, identifier
//! splitting and stemming, the same for a query and a file.
//!
//! A *name* is a run of letters and digits, possibly joined by `_`, `-` or an
//! apostrophe (`snake_case`, `kebab-case`, `don't`); anything else (space,
//! punctuation, `.`, `/`, `:`) ends it, so `src/rank/mod.rs` is the names
//! `src`, `rank`, `mod`, `rs`. A name splits into *parts* at the joiners, at
//! case changes (`getUserName`, `HTTPServer` → `HTTP` `Server`; a plural
//! `s` stays: `URLs`) and between letters and digits (`ipv6` → `ipv` `6`),
//! as Lucene's word-delimiter filter does. Each part is a token (lowercased,
//! then stemmed); a name of several parts is also one token, its *whole*:
//! the parts lowercased, joined and stemmed as one word, so `getUserNames`,
//! `get_user_name`, `GetUserName` and `getusername` all give `getusernam`,
//! while `user` and `name` still find the parts. Letters are what `char::is_alphanumeric`
//! says, in any script. Scripts written without spaces follow Unicode's word
//! boundaries (UAX #29): each Han ideograph and each Hiragana character is a
//! name of its own, and a run of Katakana (`ミーティング`) is one name, so
//! `東京` finds `ミーティングは東京で` (as the names `東` and `京`, next to
//! each other). A letter without case in any other script (Hangul, Thai)
//! joins the run it is in, one part per run.
//!
//! Positions count parts; a whole sits at its first part's position and
//! spans its parts, so `max_retries count` puts `count` right after the
//! whole `maxretri`.

use super::stem::stem;

/// How a character takes part in names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Upper,
    Lower,
    Digit,
    /// A letter without case (Hangul, Thai, titlecase digraphs).
    Letter,
    /// A Han ideograph or a Hiragana character: a name on its own.
    Ideograph,
    /// Katakana (with its prolonged sound mark): a name of its own run.
    Katakana,
    /// Joins the parts of a name: `_`, `-`, `'`, `’`.
    Joiner,
    /// Ends a name.
    Break,
}

fn class(c: char) -> Class {
    if c.is_ascii() {
        return match c as u8 {
            b'A'..=b'Z' => Class::Upper,
            b'a'..=b'z' => Class::Lower,
            b'0'..=b'9' => Class::Digit,
            b'_' | b'-' | b'\'' => Class::Joiner,
            _ => Class::Break,
        };
    }
    if c == '\u{2019}' {
        Class::Joiner
    } else if let Some(k) = spaceless(c) {
        k
    } else if !c.is_alphanumeric() {
        Class::Break
    } else if c.is_uppercase() {
        Class::Upper
    } else if c.is_lowercase() {
        Class::Lower
    } else if c.is_numeric() {
        Class::Digit
    } else {
        Class::Letter
    }
}

/// The class of a character of a script written without spaces, by its
/// block: Han ideographs (the unified blocks, their extensions and the
/// compatibility block) and Hiragana are each a name; Katakana (full and
/// half width, with `ー`) runs are names.
fn spaceless(c: char) -> Option<Class> {
    match u32::from(c) {
        0x3040..=0x309F
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xF900..=0xFAFF
        | 0x20000..=0x3134F => Some(Class::Ideograph),
        0x30A0..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => Some(Class::Katakana),
        _ => None,
    }
}

/// One token of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tok {
    /// Position of the (first) part, counted in parts from where the caller
    /// started.
    pub pos: u32,
    /// Parts covered: 1 for a part, the name's part count for a whole.
    pub span: u32,
}

/// Reusable buffers for splitting lines into tokens.
#[derive(Debug, Default)]
pub struct Tokenizer {
    /// The current alphanumeric run: (byte offset, char, class).
    run: Vec<(usize, char, Class)>,
    /// The current name's parts, as byte ranges of the line.
    parts: Vec<(usize, usize)>,
    part: String,
    whole: String,
}

impl Tokenizer {
    /// How many parts `line` has: its length in positions.
    pub fn count_parts(&mut self, line: &str) -> u32 {
        let mut n = 0u32;
        names(&mut self.run, &mut self.parts, line, |_, parts| {
            n += parts.len() as u32
        });
        n
    }

    /// How many parts the ASCII `text` has, counting only until the count
    /// passes `cap`: the exact count when it is at most `cap`, otherwise
    /// some number above `cap`. `text` must start and end at a name's edge
    /// (a break byte or either end of a line). For an ASCII text, names
    /// are exactly its runs of bytes that are not breaks (joiners trimmed
    /// off both ends), so each run is split on its own.
    pub fn count_parts_ascii_upto(&mut self, text: &str, cap: u32) -> u32 {
        debug_assert!(text.is_ascii());
        let b = text.as_bytes();
        let mut n = 0u32;
        let mut i = 0;
        while i < b.len() && n <= cap {
            while i < b.len() && is_break_ascii(b[i]) {
                i += 1;
            }
            let start = i;
            // A run of lowercase letters alone (most words) is one part.
            let mut plain = true;
            while i < b.len() && !is_break_ascii(b[i]) {
                plain &= b[i].is_ascii_lowercase();
                i += 1;
            }
            if plain {
                n += u32::from(start < i);
            } else {
                names_ascii(&mut self.parts, &text[start..i], |_, p| n += p.len() as u32);
            }
        }
        n
    }

    /// Call `emit(token, tok)` for every part and every several-part name's
    /// whole in `line`, positions starting at `*pos` (advanced past the
    /// line). `wanted(raw)` may refuse a token by its bytes as written (a
    /// part's, or a whole name's with its joiners) before it is lowercased
    /// and stemmed; a refused token costs nothing more.
    pub fn tokens(
        &mut self,
        line: &str,
        pos: &mut u32,
        wanted: &impl Fn(&[u8]) -> bool,
        emit: &mut impl FnMut(&str, Tok),
    ) {
        let (part, whole) = (&mut self.part, &mut self.whole);
        names(&mut self.run, &mut self.parts, line, |line, parts| {
            let first = *pos;
            for &(s, e) in parts {
                let raw = &line[s..e];
                if wanted(raw.as_bytes()) {
                    normalize(raw, part);
                    stem(part);
                    emit(part, Tok { pos: *pos, span: 1 });
                }
                *pos += 1;
            }
            let [(s0, _), .., (_, e1)] = *parts else {
                return;
            };
            if parts.len() > 1 && wanted(&line.as_bytes()[s0..e1]) {
                whole.clear();
                for &(s, e) in parts {
                    normalize(&line[s..e], part);
                    whole.push_str(part);
                }
                stem(whole);
                emit(
                    whole,
                    Tok {
                        pos: first,
                        span: parts.len() as u32,
                    },
                );
            }
        });
    }
}

/// Call `on_name(line, parts)` for each name of `line`, with its parts as
/// byte ranges; `run` and `parts` are scratch buffers.
fn names(
    run: &mut Vec<(usize, char, Class)>,
    parts: &mut Vec<(usize, usize)>,
    line: &str,
    on_name: impl FnMut(&str, &[(usize, usize)]),
) {
    if line.is_ascii() {
        names_ascii(parts, line, on_name);
    } else {
        names_unicode(run, parts, line, on_name);
    }
}

/// [`class`] of each ASCII byte.
const ASCII_CLASS: [Class; 128] = {
    let mut t = [Class::Break; 128];
    let mut b = 0;
    while b < 128 {
        t[b] = match b as u8 {
            b'A'..=b'Z' => Class::Upper,
            b'a'..=b'z' => Class::Lower,
            b'0'..=b'9' => Class::Digit,
            b'_' | b'-' | b'\'' => Class::Joiner,
            _ => Class::Break,
        };
        b += 1;
    }
    t
};

/// Does the ASCII byte `c` end a name (neither a letter, a digit nor a
/// joiner)?
pub fn is_break_ascii(c: u8) -> bool {
    debug_assert!(c.is_ascii());
    ASCII_CLASS[usize::from(c & 0x7F)] == Class::Break
}

/// [`names`] for an ASCII line, byte by byte in one pass: the same names and
/// parts as the general path (a test holds them equal), several times
/// faster, and nearly every line of a store is ASCII.
fn names_ascii(
    parts: &mut Vec<(usize, usize)>,
    line: &str,
    mut on_name: impl FnMut(&str, &[(usize, usize)]),
) {
    let b = line.as_bytes();
    let n = b.len();
    let cls = |i: usize| ASCII_CLASS[usize::from(b[i])];
    let lower = |i: usize| i < n && cls(i) == Class::Lower;
    let mut i = 0;
    while i < n {
        let mut prev = cls(i);
        if matches!(prev, Class::Joiner | Class::Break) {
            i += 1;
            continue;
        }
        parts.clear();
        loop {
            // An alphanumeric run starting at `i`, split as it is scanned;
            // within a run of one class nothing needs deciding.
            let mut start = i;
            i += 1;
            while i < n {
                let y = cls(i);
                if y == prev && y != Class::Upper {
                    i += 1;
                    continue;
                }
                let split = match (prev, y) {
                    (_, Class::Joiner | Class::Break) => break,
                    (Class::Lower, Class::Upper) => true,
                    (Class::Digit, _) | (_, Class::Digit) => true,
                    (Class::Upper, Class::Upper) => {
                        lower(i + 1) && (b[i + 1] != b's' || lower(i + 2))
                    }
                    _ => false,
                };
                if split {
                    parts.push((start, i));
                    start = i;
                }
                prev = y;
                i += 1;
            }
            parts.push((start, i));
            let joiners = i;
            while i < n && cls(i) == Class::Joiner {
                i += 1;
            }
            if i == joiners || i == n || cls(i) == Class::Break {
                break;
            }
            prev = cls(i);
        }
        on_name(line, parts);
    }
    parts.clear();
}

/// [`names`] for any line, char by char.
fn names_unicode(
    run: &mut Vec<(usize, char, Class)>,
    parts: &mut Vec<(usize, usize)>,
    line: &str,
    mut on_name: impl FnMut(&str, &[(usize, usize)]),
) {
    parts.clear();
    run.clear();
    for (i, c) in line.char_indices() {
        match class(c) {
            // A joiner continues the name only if letters follow; the next
            // Break ends it either way.
            Class::Joiner => {
                split_run(run, parts);
                run.clear();
            }
            Class::Break => end_name(line, run, parts, &mut on_name),
            // A name on its own: what came before ends, and so does it.
            Class::Ideograph => {
                end_name(line, run, parts, &mut on_name);
                on_name(line, &[(i, i + c.len_utf8())]);
            }
            k => {
                // Katakana and any other letter never share a name.
                let katakana = |k: Class| k == Class::Katakana;
                if run.last().is_some_and(|r| katakana(r.2) != katakana(k)) {
                    end_name(line, run, parts, &mut on_name);
                }
                run.push((i, c, k));
            }
        }
    }
    end_name(line, run, parts, &mut on_name);
}

/// End the name being built from `run` and `parts`, if any.
fn end_name(
    line: &str,
    run: &mut Vec<(usize, char, Class)>,
    parts: &mut Vec<(usize, usize)>,
    on_name: &mut impl FnMut(&str, &[(usize, usize)]),
) {
    split_run(run, parts);
    run.clear();
    if !parts.is_empty() {
        on_name(line, parts);
        parts.clear();
    }
}

/// Split an alphanumeric run into parts at case changes and letter/digit
/// boundaries, appending their byte ranges.
fn split_run(run: &[(usize, char, Class)], parts: &mut Vec<(usize, usize)>) {
    if run.is_empty() {
        return;
    }
    let end_of = |j: usize| run[j].0 + run[j].1.len_utf8();
    let is_lower = |j: usize| run.get(j).is_some_and(|r| r.2 == Class::Lower);
    let mut start = 0;
    for j in 1..run.len() {
        let (a, b) = (run[j - 1].2, run[j].2);
        let split = match (a, b) {
            (Class::Lower, Class::Upper) => true,
            (Class::Digit, x) | (x, Class::Digit) => x != Class::Digit,
            (Class::Letter, x) | (x, Class::Letter) => x != Class::Letter,
            // `HTTPServer`: the last capital starts the next part, unless
            // all that follows is a plural `s` (`URLs`, `IDsFor`).
            (Class::Upper, Class::Upper) => {
                is_lower(j + 1) && (run[j + 1].1 != 's' || is_lower(j + 2))
            }
            _ => false,
        };
        if split {
            parts.push((run[start].0, end_of(j - 1)));
            start = j;
        }
    }
    parts.push((run[start].0, end_of(run.len() - 1)));
}

/// `raw` lowercased by Unicode rules into `out`.
fn normalize(raw: &str, out: &mut String) {
    out.clear();
    if raw.is_ascii() {
        out.push_str(raw);
        out.make_ascii_lowercase();
    } else {
        // `str::to_lowercase` knows a final sigma; `char`'s does not.
        out.push_str(&raw.to_lowercase());
    }
}

/// One token per name of `text`: a one-part name's stemmed part, a longer
/// name's whole, with positions and spans. This is how a query word is
/// searched: `getUserName` means that identifier (in any spelling), not
/// `get`, `user` and `name` anywhere.
pub fn name_tokens(text: &str) -> Vec<(String, Tok)> {
    let mut out = Vec::new();
    let (mut run, mut parts) = (Vec::new(), Vec::new());
    let mut pos = 0;
    let mut part = String::new();
    names(&mut run, &mut parts, text, |line, parts| {
        let mut whole = String::new();
        for &(s, e) in parts {
            normalize(&line[s..e], &mut part);
            whole.push_str(&part);
        }
        stem(&mut whole);
        let span = parts.len() as u32;
        out.push((whole, Tok { pos, span }));
        pos += span;
    });
    out
}

/// Every token of `text` with its position, in order (a test and query
/// helper: the ranker streams instead).
pub fn all_tokens(text: &str) -> Vec<(String, Tok)> {
    let mut out = Vec::new();
    let mut pos = 0;
    Tokenizer::default().tokens(text, &mut pos, &|_| true, &mut |t, tok| {
        out.push((t.to_string(), tok))
    });
    out
}

/// Which part of a Markdown file a line belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// An ATX heading (`#` to `######`) outside code fences.
    Heading,
    /// A list item or table row that starts with a code span, outside code
    /// fences: ``- `E1101` export too large``, ``| `TW-4091` | overlap |``.
    /// Its first `n` bytes, up to the span's end, are the row's *key*, the
    /// name the writer gives the entry (as a heading names a section); the
    /// rest is body. (Bold text is not a key: it marks emphasis as often as
    /// a label.)
    Key(usize),
    /// Anything else.
    Body,
}

impl LineKind {
    /// How many bytes of `line`, of this kind, are in the heading field:
    /// all of a heading, a row's key, none of the body.
    pub fn head(self, line: &str) -> usize {
        match self {
            LineKind::Heading => line.len(),
            LineKind::Key(end) => end,
            LineKind::Body => 0,
        }
    }
}

/// Tracks code fences across lines, so `# comment` in a shell block is not
/// taken for a heading.
#[derive(Debug, Default)]
pub struct Fences {
    open: Option<(u8, usize)>,
}

impl Fences {
    /// The kind of the next line.
    pub fn kind(&mut self, line: &str) -> LineKind {
        let b = line.as_bytes();
        let indent = b.iter().take(4).take_while(|&&c| c == b' ').count();
        if indent > 3 {
            return LineKind::Body;
        }
        let rest = &b[indent..];
        let run = |c: u8| rest.iter().take_while(|&&x| x == c).count();
        if let Some((c, n)) = self.open {
            let k = run(c);
            if k >= n && rest[k..].iter().all(u8::is_ascii_whitespace) {
                self.open = None;
            }
            return LineKind::Body;
        }
        for c in [b'`', b'~'] {
            let k = run(c);
            if k >= 3 {
                self.open = Some((c, k));
                return LineKind::Body;
            }
        }
        let hashes = run(b'#');
        if (1..=6).contains(&hashes) && rest.get(hashes).is_none_or(|&c| c == b' ' || c == b'\t') {
            LineKind::Heading
        } else {
            match key_end(rest) {
                Some(end) => LineKind::Key(indent + end),
                None => LineKind::Body,
            }
        }
    }
}

/// Where the key of a list item or table row ends: past the code span it
/// starts with, after its marker (`-`, `*`, `+`, `1.`, `1)` or `|`) and
/// spaces.
fn key_end(line: &[u8]) -> Option<usize> {
    let digits = line.iter().take_while(|c| c.is_ascii_digit()).count();
    let marker = match line.first()? {
        b'|' => 1,
        b'-' | b'*' | b'+' if line.get(1) == Some(&b' ') => 2,
        _ if (1..=9).contains(&digits) && matches!(line.get(digits), Some(b'.' | b')')) => {
            digits + 1
        }
        _ => return None,
    };
    let at = marker + line[marker..].iter().take_while(|&&c| c == b' ').count();
    let ticks = line[at..].iter().take_while(|&&c| c == b'`').count();
    let open = &line[at..at + ticks];
    if open.is_empty() {
        return None;
    }
    let body = at + open.len();
    // The span ends at the first run of exactly the opening delimiter
    // after some content.
    let mut i = body;
    while i < line.len() {
        let run = line[i..].iter().take_while(|&&c| c == open[0]).count();
        if run == open.len() && i > body {
            return Some(i + run);
        }
        i += run.max(1);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(text: &str) -> Vec<String> {
        all_tokens(text).into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn identifier_splitting_table() {
        let table: &[(&str, &[&str])] = &[
            ("deploy", &["deploi"]),
            ("Deploying now", &["deploi", "now"]),
            ("getUserName", &["get", "user", "name", "getusernam"]),
            ("GetUserNames", &["get", "user", "name", "getusernam"]),
            ("get_user_name", &["get", "user", "name", "getusernam"]),
            ("get-user-name", &["get", "user", "name", "getusernam"]),
            ("HTTPServer", &["http", "server", "httpserver"]),
            ("parseURLs", &["pars", "url", "parseurl"]),
            ("URLsToFetch", &["url", "to", "fetch", "urlstofetch"]),
            ("APIs", &["api"]),
            ("iOS", &["i", "os", "ios"]),
            ("ipv6", &["ipv", "6", "ipv6"]),
            ("x86_64", &["x", "86", "64", "x8664"]),
            ("v2.1.0", &["v", "2", "v2", "1", "0"]),
            (
                "config.max_retries",
                &["config", "max", "retri", "maxretri"],
            ),
            ("src/rank/mod.rs", &["src", "rank", "mod", "rs"]),
            ("2026-05-03", &["2026", "05", "03", "20260503"]),
            ("follow-up", &["follow", "up", "followup"]),
            ("don't", &["don", "t", "dont"]),
            ("user’s", &["user", "s", "user"]),
            // Joiners at the edges and doubled belong to no name.
            ("-a--b- _c_", &["a", "b", "ab", "c"]),
            ("ÉCOLE École", &["école", "école"]),
            // UAX #29: an ideograph or Hiragana alone, a Katakana run.
            ("日本語テキスト", &["日", "本", "語", "テキスト"]),
            (
                "ミーティングは東京で",
                &["ミーティング", "は", "東", "京", "で"],
            ),
            ("ﾃｽﾄ2回", &["ﾃｽﾄ", "2", "回"]),
            ("Rustのcrate", &["rust", "の", "crate"]),
            ("한국어 텍스트", &["한국어", "텍스트"]),
            ("naïveBayes", &["naïve", "bay", "naïvebayes"]),
            ("ΟΔΟΣ", &["οδος"]),
            ("a.b", &["a", "b"]),
            ("", &[]),
            ("  ...  ", &[]),
        ];
        for (text, want) in table {
            assert_eq!(toks(text), *want, "{text:?}");
        }
    }

    #[test]
    fn a_query_word_is_one_token_per_name() {
        let got: Vec<_> = name_tokens("getUserNames src/rank/mod.rs Deploying")
            .into_iter()
            .map(|(t, k)| (t, k.pos, k.span))
            .collect();
        let want = [
            ("getusernam", 0, 3),
            ("src", 3, 1),
            ("rank", 4, 1),
            ("mod", 5, 1),
            ("rs", 6, 1),
            ("deploi", 7, 1),
        ];
        let want: Vec<_> = want
            .iter()
            .map(|&(t, p, s)| (t.to_string(), p, s))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn positions_count_parts_and_wholes_span_them() {
        let got = all_tokens("set max_retries now");
        let want = [
            ("set", 0, 1),
            ("max", 1, 1),
            ("retri", 2, 1),
            ("maxretri", 1, 2),
            ("now", 3, 1),
        ];
        let got: Vec<_> = got
            .iter()
            .map(|(t, k)| (t.as_str(), k.pos, k.span))
            .collect();
        assert_eq!(got, want);
        let mut t = Tokenizer::default();
        assert_eq!(t.count_parts("set max_retries now"), 4);
    }

    #[test]
    fn the_filter_sees_raw_bytes_before_normalizing() {
        let mut t = Tokenizer::default();
        let mut seen = Vec::new();
        let mut pos = 0;
        let wanted = |raw: &[u8]| {
            let s = String::from_utf8_lossy(raw).to_lowercase();
            s.starts_with("us") || !raw.is_ascii()
        };
        // Only tokens starting `us` (or not ASCII) get through; a whole is
        // asked about with its joiners.
        t.tokens(
            "user user_Name URL Über x",
            &mut pos,
            &wanted,
            &mut |s, _| seen.push(s.to_string()),
        );
        assert_eq!(seen, ["user", "user", "usernam", "über"]);
        assert_eq!(pos, 6);
    }

    #[test]
    fn the_ascii_path_splits_as_the_general_one() {
        const PIECES: &[&str] = &[
            "a", "b", "s", "S", "A", "Z", "x", "1", "0", "_", "-", "'", " ", ".", "/", "URL", "ID",
            "Ab", "aB", "9z", "--", "__", "s1",
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let collect = |ascii: bool, line: &str| {
            let mut out = Vec::new();
            let (mut run, mut parts) = (Vec::new(), Vec::new());
            let on = |_: &str, p: &[(usize, usize)]| out.push(p.to_vec());
            if ascii {
                names_ascii(&mut parts, line, on);
            } else {
                names_unicode(&mut run, &mut parts, line, on);
            }
            out
        };
        for _ in 0..20_000 {
            let line: String = (0..next(12)).map(|_| PIECES[next(PIECES.len())]).collect();
            assert_eq!(collect(true, &line), collect(false, &line), "{line:?}");
        }
    }

    #[test]
    fn headings_outside_fences() {
        let text =
            "# Title\nbody\n## Sub\n```sh\n# not a heading\n```\n#nospace\n    # code\n   ### ok";
        let mut f = Fences::default();
        let kinds: Vec<_> = text.lines().map(|l| f.kind(l)).collect();
        use LineKind::*;
        assert_eq!(
            kinds,
            [
                Heading, Body, Heading, Body, Body, Body, Body, Body, Heading
            ]
        );
    }

    #[test]
    fn a_row_led_by_a_code_span_has_a_key() {
        let mut f = Fences::default();
        let table = [
            ("- `E1101` export too large", Some(9)),
            ("| `TW-4091` | overlap |", Some(11)),
            ("  * `staging`: the cluster", Some(13)),
            ("12. ``a`b`` then", Some(11)),
            ("3) `x`", Some(6)),
            ("|`k`|v|", Some(4)),
            // Not led by a code span, not closed, empty, or not a list item.
            ("- **Do not** deploy on Fridays", None),
            ("- plain `code` later", None),
            ("- `unclosed", None),
            ("- `` x", None),
            ("-`tight` no space", None),
            ("`code` alone", None),
            ("- ```a`` b", None),
            ("1234567890. `x` is no item", None),
        ];
        for (line, end) in table {
            let want = end.map_or(LineKind::Body, LineKind::Key);
            assert_eq!(f.kind(line), want, "{line:?}");
        }
        // Inside a fence a row is code.
        let mut f = Fences::default();
        let kinds: Vec<_> = ["```", "- `a` b", "```", "- `a` b"]
            .iter()
            .map(|l| f.kind(l))
            .collect();
        assert_eq!(
            kinds,
            [
                LineKind::Body,
                LineKind::Body,
                LineKind::Body,
                LineKind::Key(5)
            ]
        );
    }
}
