//! Uncased BERT tokenization as `tokenizers` does it for all-MiniLM-L6-v2: clean the text,
//! space out CJK ideographs, strip accents, lowercase, split on whitespace and punctuation,
//! then greedy longest-match WordPiece with `##` continuations.

use std::hash::BuildHasher as _;

use hashbrown::{DefaultHashBuilder, HashTable};

use crate::Error;
use crate::tables::{NONSPACING, OTHER, PUNCT, STRIP};

/// Words longer than this (in characters) become `[UNK]`, as in BERT.
const MAX_WORD_CHARS: usize = 100;

/// A WordPiece vocabulary with BERT's special tokens.
#[derive(Clone)]
pub struct Tokenizer {
    /// The vocabulary as given, one token a line.
    lines: String,
    /// Each line's start and end in `lines`; a token's id is its line.
    spans: Vec<(u32, u32)>,
    /// The ids, found by their token's hash; a token given twice keeps its last line.
    ids: HashTable<u32>,
    hasher: DefaultHashBuilder,
    cls: u32,
    sep: u32,
    unk: u32,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokenizer")
            .field("tokens", &self.ids.len())
            .finish()
    }
}

impl Tokenizer {
    /// Builds a tokenizer from a vocabulary given one token per line (line number = id).
    ///
    /// # Errors
    /// [`Error::Format`] when `[CLS]`, `[SEP]` or `[UNK]` is missing, or the vocabulary is
    /// 4 GiB or more.
    pub fn from_lines(vocab: &str) -> Result<Tokenizer, Error> {
        Tokenizer::check_lines(vocab)?;
        let hasher = DefaultHashBuilder::default();
        let mut spans =
            Vec::with_capacity(memchr::memchr_iter(b'\n', vocab.as_bytes()).count() + 1);
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', vocab.as_bytes()).chain([vocab.len()]) {
            spans.push((start as u32, end as u32));
            start = end + 1;
        }
        let token = |id: u32| {
            let (a, b) = spans[id as usize];
            &vocab[a as usize..b as usize]
        };
        let mut ids = HashTable::with_capacity(spans.len());
        for id in 0..spans.len() as u32 {
            let hash = hasher.hash_one(token(id));
            let entry = ids.entry(
                hash,
                |&other: &u32| token(other) == token(id),
                |&other: &u32| hasher.hash_one(token(other)),
            );
            match entry {
                hashbrown::hash_table::Entry::Occupied(mut e) => *e.get_mut() = id,
                hashbrown::hash_table::Entry::Vacant(e) => {
                    e.insert(id);
                }
            }
        }
        let mut t = Tokenizer {
            lines: vocab.to_owned(),
            spans,
            ids,
            hasher,
            cls: 0,
            sep: 0,
            unk: 0,
        };
        let id = |name: &str| {
            t.get(name)
                .ok_or_else(|| Error::Format(format!("vocabulary has no `{name}`")))
        };
        (t.cls, t.sep, t.unk) = (id("[CLS]")?, id("[SEP]")?, id("[UNK]")?);
        Ok(t)
    }

    /// Whether [`Tokenizer::from_lines`] would accept `vocab`, without building the
    /// tokenizer (a few milliseconds for a 30,000-token vocabulary): for a holder that
    /// builds it only when first used.
    ///
    /// # Errors
    /// As [`Tokenizer::from_lines`].
    pub fn check_lines(vocab: &str) -> Result<(), Error> {
        if u32::try_from(vocab.len()).is_err() {
            return Err(Error::Format("the vocabulary is 4 GiB or more".into()));
        }
        for name in ["[CLS]", "[SEP]", "[UNK]"] {
            if !vocab.split('\n').any(|line| line == name) {
                return Err(Error::Format(format!("vocabulary has no `{name}`")));
            }
        }
        Ok(())
    }

    /// The token of line `id`.
    fn token(&self, id: u32) -> &str {
        let (a, b) = self.spans[id as usize];
        &self.lines[a as usize..b as usize]
    }

    /// The id of `token`.
    fn get(&self, token: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(token);
        self.ids.find(hash, |&id| self.token(id) == token).copied()
    }

    /// The vocabulary as given, one token a line: what [`Tokenizer::from_lines`] reads,
    /// for a host that hands it on (agent-memory's hosted model).
    pub fn lines(&self) -> &str {
        &self.lines
    }

    /// Number of tokens in the vocabulary.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the vocabulary is empty (never true for a built tokenizer).
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The word-pieces of `text` without `[CLS]` and `[SEP]`, untruncated.
    pub fn pieces(&self, text: &str) -> Vec<u32> {
        let mut ids = Vec::new();
        for word in pre_tokenize(&normalize(text)) {
            self.wordpiece(word, &mut ids);
        }
        ids
    }

    /// `[CLS]`, the word-pieces of `text`, `[SEP]`: at most `max_tokens` ids in all.
    pub fn encode(&self, text: &str, max_tokens: usize) -> Vec<u32> {
        let mut ids = vec![self.cls];
        ids.extend(self.pieces(text));
        ids.truncate(max_tokens.max(2) - 1);
        ids.push(self.sep);
        ids
    }

    fn wordpiece(&self, word: &str, out: &mut Vec<u32>) {
        if word.chars().count() > MAX_WORD_CHARS {
            out.push(self.unk);
            return;
        }
        let start_len = out.len();
        let mut piece = String::with_capacity(word.len() + 2);
        let mut start = 0;
        while start < word.len() {
            let mut end = word.len();
            let mut found = None;
            while start < end {
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.push_str(&word[start..end]);
                if let Some(id) = self.get(&piece) {
                    found = Some(id);
                    break;
                }
                end = word[..end].char_indices().next_back().map_or(0, |(i, _)| i);
            }
            match found {
                Some(id) => out.push(id),
                None => {
                    out.truncate(start_len);
                    out.push(self.unk);
                    return;
                }
            }
            start = end;
        }
    }
}

fn in_ranges(table: &[(u32, u32)], c: char) -> bool {
    let c = c as u32;
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

fn is_whitespace(c: char) -> bool {
    c.is_whitespace()
}

fn is_other(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && in_ranges(OTHER, c)
}

fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || in_ranges(PUNCT, c)
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B820..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

/// Pushes `c` with its accents stripped: canonical decomposition without Mn marks.
fn push_stripped(c: char, out: &mut String) {
    const S_BASE: u32 = 0xAC00;
    let cp = c as u32;
    if (S_BASE..S_BASE + 11172).contains(&cp) {
        // Hangul syllables decompose algorithmically into leading, vowel and trailing jamo.
        let s = cp - S_BASE;
        let jamo = [0x1100 + s / 588, 0x1161 + (s % 588) / 28, 0x11A7 + s % 28];
        let n = if s.is_multiple_of(28) { 2 } else { 3 };
        out.extend(jamo[..n].iter().filter_map(|&j| char::from_u32(j)));
    } else if in_ranges(NONSPACING, c) {
    } else if let Ok(i) = STRIP.binary_search_by_key(&c, |&(k, _)| k) {
        out.push_str(STRIP[i].1);
    } else {
        out.push(c);
    }
}

/// BertNormalizer with clean_text, handle_chinese_chars, strip_accents and lowercase.
pub fn normalize(text: &str) -> String {
    let mut stripped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c == '\0' || c == '\u{FFFD}' || is_other(c) {
            continue;
        }
        if is_whitespace(c) {
            stripped.push(' ');
        } else if is_cjk(c) {
            // Spaced out first, then decomposed like any character: the compatibility
            // ideographs (U+F900..) become their unified forms.
            stripped.push(' ');
            push_stripped(c, &mut stripped);
            stripped.push(' ');
        } else {
            push_stripped(c, &mut stripped);
        }
    }
    if stripped.is_ascii() {
        stripped.make_ascii_lowercase();
        return stripped;
    }
    stripped.chars().flat_map(char::to_lowercase).collect()
}

/// BertPreTokenizer: words split on whitespace, each punctuation character a word of its own.
pub fn pre_tokenize(text: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let ws = is_whitespace(c);
        if ws || is_punctuation(c) {
            if let Some(s) = start.take() {
                words.push(&text[s..i]);
            }
            if !ws {
                words.push(&text[i..i + c.len_utf8()]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        words.push(&text[s..]);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    const VOCAB: &str =
        "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\nun\n##aff\n##able\ncafe\n,\n!\n数\n##s\nrun\n##ning";

    fn tok() -> Tokenizer {
        Tokenizer::from_lines(VOCAB).unwrap()
    }

    #[test]
    fn normalizes_like_uncased_bert() {
        assert_eq!(normalize("Café RÉSUMÉ naïve"), "cafe resume naive");
        assert_eq!(normalize("a\tb\u{200B}c\u{0}d"), "a bcd");
        assert_eq!(normalize("数据"), " 数  据 ");
        assert_eq!(normalize("ÅNGSTRÖM \u{212B}"), "angstrom a");
        assert_eq!(normalize("한"), "\u{1112}\u{1161}\u{11ab}");
        // Compatibility ideographs decompose; unassigned code points stay; private use and
        // format characters go (all as `tokenizers` 0.23.3 does).
        assert_eq!(normalize("\u{FA08}"), " \u{884C} ");
        assert_eq!(normalize("a\u{0378}\u{E000}\u{00AD}b"), "a\u{0378}b");
    }

    #[test]
    fn splits_punctuation_and_whitespace() {
        assert_eq!(
            pre_tokenize("eu-west-1, ok!  «x»"),
            ["eu", "-", "west", "-", "1", ",", "ok", "!", "«", "x", "»"]
        );
        assert_eq!(pre_tokenize("   "), Vec::<&str>::new());
    }

    #[test]
    fn greedy_longest_match_wordpiece() {
        let t = tok();
        assert_eq!(t.pieces("unaffable"), [5, 6, 7]);
        assert_eq!(
            t.pieces("Runs running, the Café!"),
            [13, 12, 13, 14, 9, 4, 8, 10]
        );
        // A word with any unmatched rest is one [UNK].
        assert_eq!(t.pieces("unaffablex the"), [1, 4]);
        assert_eq!(t.pieces(&"a".repeat(101)), [1]);
        assert_eq!(t.pieces("数"), [11]);
    }

    #[test]
    fn pieces_add_up_where_text_is_joined_at_a_space_or_line_end() {
        // What `chunk::chunk_note` relies on to count each line once.
        let t = tok();
        let texts = [
            "the unaffable",
            "Café, running!",
            "数数s",
            "a\u{200B}b\u{0}c",
            "un\u{000C}aff",
            "",
            " ",
            "x\r",
            &"a".repeat(100),
            "the\u{301}",
        ];
        for a in texts {
            for b in texts {
                let apart = [t.pieces(a), t.pieces(b)].concat();
                for sep in [" ", "\n"] {
                    assert_eq!(
                        t.pieces(&format!("{a}{sep}{b}")),
                        apart,
                        "{a:?} {sep:?} {b:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn encode_adds_specials_and_truncates() {
        let t = tok();
        assert_eq!(t.encode("", 256), [2, 3]);
        assert_eq!(t.encode("the the the the", 4), [2, 4, 4, 3]);
    }

    #[test]
    fn missing_specials_are_an_error() {
        assert!(matches!(
            Tokenizer::from_lines("a\nb"),
            Err(Error::Format(_))
        ));
        // Checked without building, each special by itself, whole lines only.
        assert!(Tokenizer::check_lines(VOCAB).is_ok());
        for special in ["[CLS]", "[SEP]", "[UNK]"] {
            let without = VOCAB.replace(&format!("{special}\n"), "x\n");
            let err = Tokenizer::check_lines(&without).unwrap_err().to_string();
            assert!(err.contains(special), "{err}");
            assert!(Tokenizer::from_lines(&without).is_err());
            let inside = VOCAB.replace(&format!("{special}\n"), &format!("{special}x\n"));
            assert!(Tokenizer::check_lines(&inside).is_err());
        }
    }
}
