//! Light English stemming and stop words.
//!
//! The stemmer is the first and last steps of Porter's algorithm (plurals,
//! `-ed`/`-ing`, final `y`, final `e`, double `l`) plus a guarded `-ly`, and
//! nothing of the derivational middle (`-ation`, `-ment`, `-ness`): those
//! merge words an agent keeps apart (`deploy`/`deployment`). Every rule that
//! shortens a word leaves at least three letters, so short words (`use`, `us`,
//! `go`) are never folded into each other.
//!
//! One property matters beyond linguistics: a stem is always a prefix of the
//! word it came from, followed by at most one `e` or `i` (`making` → `make`,
//! `retries` → `retri`, `deploy` → `deploi`). The ranker relies on it to skip
//! words cheaply: a word whose first bytes do not start some query stem's
//! [`surface_prefix`] cannot stem to it.

/// Shortest word, and shortest result of a shortening rule.
const MIN_STEM: usize = 3;

fn is_vowel_at(w: &[u8], i: usize) -> bool {
    match w[i] {
        b'a' | b'e' | b'i' | b'o' | b'u' => true,
        // `y` after a consonant is a vowel (`sky`), after a vowel not (`toy`).
        b'y' => i > 0 && !is_vowel_at(w, i - 1),
        _ => false,
    }
}

/// Porter's measure: the number of vowel-consonant sequences in `w`.
fn measure(w: &[u8]) -> usize {
    let mut m = 0;
    let mut prev_vowel = false;
    for i in 0..w.len() {
        let v = is_vowel_at(w, i);
        if prev_vowel && !v {
            m += 1;
        }
        prev_vowel = v;
    }
    m
}

fn has_vowel(w: &[u8]) -> bool {
    (0..w.len()).any(|i| is_vowel_at(w, i))
}

/// Ends consonant-vowel-consonant, the last not `w`, `x` or `y` (`hop`, not
/// `how`): the shape after which an `e` was dropped (`hoping`).
fn ends_cvc(w: &[u8]) -> bool {
    let n = w.len();
    n >= 3
        && !is_vowel_at(w, n - 3)
        && is_vowel_at(w, n - 2)
        && !is_vowel_at(w, n - 1)
        && !matches!(w[n - 1], b'w' | b'x' | b'y')
}

fn ends_double_consonant(w: &[u8]) -> bool {
    let n = w.len();
    n >= 2 && w[n - 1] == w[n - 2] && !is_vowel_at(w, n - 1)
}

/// Stem `word` in place. Only words of ASCII lowercase letters are touched;
/// anything else (digits, other scripts, mixed) is left as it is.
pub fn stem(word: &mut String) {
    if word.len() < MIN_STEM || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return;
    }
    // Work on bytes: every byte is an ASCII letter, so any cut is a char
    // boundary and the result is valid UTF-8.
    let mut w = std::mem::take(word).into_bytes();
    plural(&mut w);
    ed_ing(&mut w);
    adverb(&mut w);
    final_y(&mut w);
    final_e(&mut w);
    double_l(&mut w);
    *word = String::from_utf8(w).unwrap_or_default();
}

/// `caresses` → `caress`, `ponies` → `poni`, `cats` → `cat`, `APIs` →
/// `api`; `-ss` is no plural (`class`). `status` → `statu` is harmless: it
/// happens to every spelling alike.
fn plural(w: &mut Vec<u8>) {
    let ends = |s: &[u8]| w.ends_with(s);
    let cut = if ends(b"sses") || ends(b"ies") {
        2
    } else if ends(b"ss") || !ends(b"s") {
        0
    } else {
        1
    };
    if cut > 0 && w.len() - cut >= MIN_STEM {
        w.truncate(w.len() - cut);
    }
}

/// `agreed` → `agree`, `hopping` → `hop`, `making` → `make`, `need` stays.
fn ed_ing(w: &mut Vec<u8>) {
    if w.ends_with(b"eed") {
        // `-eed` is either `-ee` + `d` (`agreed`) or a root (`need`, `speed`):
        // told apart by what comes before, and never cut to `-ed` rules.
        if measure(&w[..w.len() - 3]) > 0 {
            w.pop();
        }
        return;
    }
    let cut = if w.ends_with(b"ed") {
        2
    } else if w.ends_with(b"ing") {
        3
    } else {
        return;
    };
    let rest = &w[..w.len() - cut];
    if rest.len() < MIN_STEM || !has_vowel(rest) {
        return;
    }
    w.truncate(w.len() - cut);
    if w.ends_with(b"at") || w.ends_with(b"bl") || w.ends_with(b"iz") {
        w.push(b'e');
    } else if ends_double_consonant(w)
        && w.len() > MIN_STEM
        && !matches!(w[w.len() - 1], b'l' | b's' | b'z')
    {
        w.pop();
    } else if measure(w) == 1 && ends_cvc(w) {
        w.push(b'e');
    }
}

/// `quickly` → `quick`, `carefully` → `careful`, `weekly` → `week`; not
/// `supply`, `family`, `daily`, `jelly`: the letter before `-ly` must be a
/// consonant other than `p` and `l` (or `l` of `-ful`/`-al`, or an `e`), and
/// four letters must remain.
fn adverb(w: &mut Vec<u8>) {
    if !w.ends_with(b"ly") {
        return;
    }
    let rest = &w[..w.len() - 2];
    if rest.len() < 4 {
        return;
    }
    let last = rest[rest.len() - 1];
    let ok = match last {
        b'l' => rest.ends_with(b"ful") || rest.ends_with(b"al"),
        b'p' | b'a' | b'i' | b'o' | b'u' | b'y' => false,
        _ => true,
    };
    if ok {
        w.truncate(w.len() - 2);
    }
}

/// `happy` → `happi`, `deploy` → `deploi` (so `deploys`, `deployed` and
/// `deploying` meet it), `sky` stays: only after a vowel somewhere before.
fn final_y(w: &mut [u8]) {
    let n = w.len();
    if n >= MIN_STEM && w[n - 1] == b'y' && has_vowel(&w[..n - 1]) {
        w[n - 1] = b'i';
    }
}

/// `cache` → `cach` (meeting `caches`), `release` → `releas`; `note`,
/// `make` keep theirs (one syllable ending consonant-vowel-consonant).
fn final_e(w: &mut Vec<u8>) {
    let n = w.len();
    if n <= MIN_STEM || w[n - 1] != b'e' {
        return;
    }
    let rest = &w[..n - 1];
    let m = measure(rest);
    if m > 1 || (m == 1 && !ends_cvc(rest)) {
        w.pop();
    }
}

/// `install` → `instal` (meeting `installing`, which keeps its `ll`).
fn double_l(w: &mut Vec<u8>) {
    if w.ends_with(b"ll") && measure(w) > 1 {
        w.pop();
    }
}

/// The part of `stem` every word stemming to it starts with: the stem
/// without a final `e` or `i` that a rule may have added.
pub fn surface_prefix(stem: &str) -> &str {
    match stem.as_bytes().last() {
        Some(b'e' | b'i') if stem.len() > 1 => &stem[..stem.len() - 1],
        _ => stem,
    }
}

/// English function words: a query word in this list is not searched when
/// the query has other words. Sorted, for the binary search.
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "could", "did", "do", "does", "doing", "done", "down", "during", "each",
    "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers",
    "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me",
    "more", "most", "my", "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other",
    "our", "ours", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than",
    "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those",
    "through", "to", "too", "under", "until", "up", "us", "very", "was", "we", "were", "what",
    "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you",
    "your", "yours",
];

/// Is `word` (lowercase) an English function word?
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stemmed(w: &str) -> String {
        let mut s = w.to_string();
        stem(&mut s);
        s
    }

    #[test]
    fn stemming_table() {
        let table = [
            // Plurals.
            ("notes", "note"),
            ("caches", "cach"),
            ("cache", "cach"),
            ("classes", "class"),
            ("class", "class"),
            ("status", "statu"),
            ("menus", "menu"),
            ("apis", "api"),
            ("analysis", "analysi"),
            ("retries", "retri"),
            ("retry", "retri"),
            ("days", "dai"),
            ("day", "dai"),
            ("keys", "kei"),
            // -ed / -ing, and the words they must not touch.
            ("deploy", "deploi"),
            ("deploys", "deploi"),
            ("deployed", "deploi"),
            ("deploying", "deploi"),
            ("making", "make"),
            ("make", "make"),
            ("staging", "stage"),
            ("stage", "stage"),
            ("hopping", "hop"),
            ("flagged", "flag"),
            ("flag", "flag"),
            ("agreed", "agre"),
            ("agree", "agre"),
            ("need", "need"),
            ("speed", "speed"),
            ("passed", "pass"),
            ("installed", "instal"),
            ("install", "instal"),
            ("conflated", "conflat"),
            ("conflate", "conflat"),
            ("adding", "add"),
            ("add", "add"),
            ("string", "string"),
            ("thing", "thing"),
            ("released", "releas"),
            ("release", "releas"),
            // Short words stay apart.
            ("use", "use"),
            ("uses", "use"),
            ("us", "us"),
            ("go", "go"),
            ("ago", "ago"),
            ("going", "going"),
            ("slo", "slo"),
            ("slow", "slow"),
            ("lag", "lag"),
            ("has", "has"),
            // -ly.
            ("quickly", "quick"),
            ("slowly", "slow"),
            ("weekly", "week"),
            ("carefully", "careful"),
            ("manually", "manual"),
            ("supply", "suppli"),
            ("family", "famili"),
            ("daily", "daili"),
            ("reply", "repli"),
            // Not English letters: untouched.
            ("v2", "v2"),
            ("naïve", "naïve"),
            ("Deploys", "Deploys"),
        ];
        for (word, want) in table {
            assert_eq!(stemmed(word), want, "{word}");
        }
    }

    #[test]
    fn a_stem_is_a_prefix_plus_at_most_e_or_i() {
        // Every word of up to five letters over an alphabet that exercises
        // each rule, and a few hundred longer pseudo-words.
        const ALPHABET: &[u8] = b"aeiystdlgn";
        let mut words = Vec::new();
        let mut level = vec![String::new()];
        for _ in 0..5 {
            level = level
                .iter()
                .flat_map(|w| ALPHABET.iter().map(move |&c| format!("{w}{}", c as char)))
                .collect();
            words.extend(level.iter().cloned());
        }
        for suffix in ["ing", "ed", "ies", "sses", "ly", "fully", "eed", "ll", "e"] {
            for root in ["hop", "deploy", "cach", "releas", "speed", "inst", "x"] {
                words.push(format!("{root}{suffix}"));
            }
        }
        for w in &words {
            let s = stemmed(w);
            assert!(w.starts_with(surface_prefix(&s)), "{w} -> {s}");
            assert!(s.len() >= w.len().min(MIN_STEM), "{w} -> {s}");
        }
    }

    #[test]
    fn stop_words_are_sorted_and_found() {
        assert!(STOP_WORDS.windows(2).all(|p| p[0] < p[1]));
        for w in ["the", "what", "did", "we", "a", "yours"] {
            assert!(is_stop_word(w), "{w}");
        }
        for w in ["deploy", "last", "week", "The", "go"] {
            assert!(!is_stop_word(w), "{w}");
        }
    }
}
