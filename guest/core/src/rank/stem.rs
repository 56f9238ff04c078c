//! Light English stemming and stop words.
//!
//! The stemmer is the first and last steps of Porter's algorithm (plurals,
//! `-ed`/`-ing`, final `y`, final `e`, double `l`) plus a guarded `-ly`, and
//! nothing of the derivational middle (`-ation`, `-ment`, `-ness`): those
//! merge words an agent keeps apart (`deploy`/`deployment`). Every rule that
//! shortens a word leaves at least three letters, so short words (`use`, `us`,
//! `go`) are never folded into each other.
//!
//! Derivations are related at query time instead ([`relatives`]): a query
//! word also looks for the other forms of its [`root`], as weaker evidence
//! than the word itself, and nothing of that reaches the index.
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

/// Shortest root a derivational rule leaves, and shortest word given
/// relatives.
const MIN_ROOT: usize = 4;

/// The derivational root of a stem (lowercase ASCII letters; anything else
/// is its own root): at most one derivational suffix off (`-ion` after `t`
/// or `s`, `-ment`, `-ness`, `-al` after `v`, `w` or `s`, `-ence`/`-ency`/
/// `-ent`, `-ance`, `-able`, the `-ly` of `-ily`), then `-ate`, then a final
/// `e` or `i`. `escalation`, `escalate` and `escalating` share `escal`;
/// `renewal` and `renew` share `renew`; `flaky`, `flakes` and `flakiness`
/// share `flak`. Rules are guarded by what must remain, so short words keep
/// their own root (`session`, `version`, `signal`, `portal` strip nothing).
/// Roots only relate query words to the forms [`relatives`] generates; they
/// are never indexed.
pub fn root(word: &str) -> String {
    if !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return word.to_string();
    }
    let rest = |suffix: &str, min: usize| {
        word.strip_suffix(suffix)
            .filter(|r| r.len() >= min)
            .map(str::to_string)
    };
    let ends_in = |r: &String, set: &[u8]| r.as_bytes().last().is_some_and(|c| set.contains(c));
    let stripped = rest("ness", MIN_ROOT)
        .or_else(|| rest("ment", MIN_ROOT))
        .map(|mut r| {
            // What is left is a word of its own (`deploy`, `flaky`): stem it
            // as one.
            stem(&mut r);
            r
        })
        .or_else(|| rest("ion", MIN_ROOT + 1).filter(|r| ends_in(r, b"ts")))
        .or_else(|| rest("al", MIN_ROOT).filter(|r| ends_in(r, b"vws")))
        .or_else(|| rest("enci", MIN_ROOT + 1))
        .or_else(|| rest("enc", MIN_ROOT + 1))
        .or_else(|| rest("ent", MIN_ROOT + 1))
        .or_else(|| rest("anc", MIN_ROOT + 1))
        .or_else(|| rest("abl", MIN_ROOT))
        .or_else(|| rest("li", MIN_ROOT).filter(|r| r.ends_with('i')));
    let mut r = stripped.unwrap_or_else(|| word.to_string());
    if r.ends_with("at") && measure(&r.as_bytes()[..r.len() - 2]) > 1 {
        r.truncate(r.len() - 2);
    }
    if r.len() > MIN_ROOT && (r.ends_with('e') || r.ends_with('i')) {
        r.pop();
    }
    r
}

/// Most relatives given for one word.
pub const MAX_RELATIVES: usize = 12;

/// Stems of words derived from the same root as `word` (lowercase ASCII
/// letters, four or more; anything else has none), other than `word`'s own:
/// `escalating` gives `escalation`, `renewing` gives `renewal`, `flakes`
/// gives `flaki` (`flaky`) and `flakiness`, `deploy` gives `deployment`.
/// Each comes with the word it stands for. Only forms whose [`root`] is the
/// word's own are kept, so two words are related both ways when each is
/// among the forms tried for their root: the root's action noun (`-ion` after `t` or `s`, else `-ation`),
/// the root with `e` or `y`, `-al`, `-ment`, `-ness`, `-ate`, `-ence`,
/// `-ency`, `-ent`, `-ance`, `-able`, `-ily`. Many are no word at all; they
/// cost a lookup and match nothing. At most [`MAX_RELATIVES`], in that
/// order.
pub fn relatives(word: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    if word.len() < MIN_ROOT || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return out;
    }
    let mut own = word.to_string();
    stem(&mut own);
    let r = root(&own);
    let noun = if r.ends_with('t') || r.ends_with('s') {
        "ion"
    } else {
        "ation"
    };
    // (what goes between the root and the suffix, the suffix): a final `e`
    // or `y` a rule took comes back where English keeps it (`state-ment`,
    // `deploy-ment`, `flaki-ness`).
    let forms: [(&str, &str); 16] = [
        ("", noun),
        ("", "e"),
        ("", "y"),
        ("", "al"),
        ("", "ate"),
        ("", "ent"),
        ("", "ency"),
        ("", "ence"),
        ("", "ance"),
        ("y", "ment"),
        ("", "ment"),
        ("e", "ment"),
        ("i", "ness"),
        ("", "ness"),
        ("", "able"),
        ("i", "ly"),
    ];
    for (mid, suffix) in forms {
        let mut form = format!("{r}{mid}{suffix}");
        // `lazi` + `e` is met by `lazy`: shown so.
        if let Some(stem) = form.strip_suffix("ie").filter(|_| suffix == "e") {
            form = format!("{stem}y");
        }
        let mut s = form.clone();
        stem(&mut s);
        if s != own && root(&s) == r && !out.iter().any(|o| o.1 == s) {
            out.push((form, s));
            if out.len() == MAX_RELATIVES {
                break;
            }
        }
    }
    out
}

/// Short forms and the words they stand for, as engineers write both:
/// `prod` in a standup, `production` in a runbook. Only pairs where the
/// short form means nothing else in a software team's notes.
const SHORT_FORMS: &[(&str, &str)] = &[
    ("admin", "administrator"),
    ("app", "application"),
    ("auth", "authentication"),
    ("auth", "authorization"),
    ("config", "configuration"),
    ("db", "database"),
    ("dep", "dependency"),
    ("dev", "development"),
    ("doc", "documentation"),
    ("env", "environment"),
    ("impl", "implementation"),
    ("infra", "infrastructure"),
    ("msg", "message"),
    ("perf", "performance"),
    ("prod", "production"),
    ("repo", "repository"),
    ("spec", "specification"),
];

/// Every other form the ranker searches for the query word `word`: its
/// derivational [`relatives`] and the other side of its [`short_forms`],
/// each with the token it stands for. Fusion judges a hit's words by the
/// same forms (`symbolication` holds `symbolicate`).
pub fn related(word: &str) -> Vec<(String, String)> {
    let mut related = relatives(word);
    related.extend(short_forms(word));
    related
}

/// The other side of `word`'s short-form pairs (see [`SHORT_FORMS`]):
/// `prod` gives `production`, `databases` gives `db`. Each comes with its
/// stem, as [`relatives`] gives them.
pub fn short_forms(word: &str) -> Vec<(String, String)> {
    let mut own = word.to_ascii_lowercase();
    stem(&mut own);
    let mut out: Vec<(String, String)> = Vec::new();
    for &(short, long) in SHORT_FORMS {
        for (this, other) in [(short, long), (long, short)] {
            let mut s = this.to_string();
            stem(&mut s);
            if s == own {
                let mut t = other.to_string();
                stem(&mut t);
                if !out.iter().any(|o| o.1 == t) {
                    out.push((other.to_string(), t));
                }
            }
        }
    }
    out
}

#[cfg(test)]
use crate::text::STOP_WORDS;
pub use crate::text::is_stop_word;

#[cfg(test)]
mod tests {
    use super::*;

    fn stemmed(w: &str) -> String {
        let mut s = w.to_string();
        stem(&mut s);
        s
    }

    #[test]
    fn short_forms_go_both_ways_through_inflections() {
        let forms = |w: &str| short_forms(w).into_iter().map(|f| f.0).collect::<Vec<_>>();
        assert_eq!(forms("prod"), ["production"]);
        assert_eq!(forms("Production"), ["prod"]);
        assert_eq!(forms("databases"), ["db"]);
        assert_eq!(forms("docs"), ["documentation"]);
        assert_eq!(forms("auth"), ["authentication", "authorization"]);
        assert_eq!(forms("dependencies"), ["dep"]);
        for none in ["product", "deploy", "data", "develop"] {
            assert_eq!(forms(none), Vec::<String>::new(), "{none}");
        }
        // Every pair's two sides stem apart, so neither is the other.
        for (short, long) in SHORT_FORMS {
            let (mut a, mut b) = (short.to_string(), long.to_string());
            stem(&mut a);
            stem(&mut b);
            assert_ne!(a, b, "{short} {long}");
        }
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

    fn relative_stems(w: &str) -> Vec<String> {
        relatives(w).into_iter().map(|r| r.1).collect()
    }

    #[test]
    fn roots_strip_one_derivation_and_guard_short_words() {
        let table = [
            ("escalation", "escal"),
            ("escalat", "escal"),
            ("renewal", "renew"),
            ("renew", "renew"),
            ("approval", "approv"),
            ("deployment", "deplo"),
            ("deploi", "deplo"),
            ("flakiness", "flak"),
            ("flaki", "flak"),
            ("flake", "flak"),
            ("idempotenci", "idempot"),
            ("idempotent", "idempot"),
            ("invalidat", "invalid"),
            ("lazili", "lazi"),
            // Guards: these keep themselves.
            ("session", "session"),
            ("version", "version"),
            ("signal", "signal"),
            ("portal", "portal"),
            ("internal", "internal"),
            ("rotat", "rotat"),
            ("note", "note"),
            ("pine", "pine"),
            ("v2", "v2"),
        ];
        for (stem, want) in table {
            assert_eq!(root(stem), want, "{stem}");
        }
    }

    #[test]
    fn relatives_meet_the_other_forms_of_a_word() {
        let table: &[(&str, &[&str])] = &[
            ("escalating", &["escalation"]),
            ("escalation", &["escalat"]),
            ("renewing", &["renewal"]),
            ("renewal", &["renew"]),
            ("flakes", &["flaki", "flakiness"]),
            ("deploy", &["deployment"]),
            ("deployment", &["deploi"]),
            ("promoting", &["promotion"]),
            ("rotate", &["rotation"]),
            ("paginate", &["pagination"]),
            ("idempot", &["idempotent", "idempotenci"]),
            ("lazily", &["lazi"]),
            ("invalidated", &["invalid", "invalidation"]),
        ];
        for (word, want) in table {
            let got = relative_stems(word);
            for w in *want {
                assert!(got.contains(&w.to_string()), "{word}: {w} not in {got:?}");
            }
            assert!(got.len() <= MAX_RELATIVES);
            let mut own = word.to_string();
            stem(&mut own);
            assert!(!got.contains(&own), "{word}");
        }
        // Short words, identifiers' wholes and other scripts have none;
        // nor does a word become its neighbour in the dictionary.
        for word in ["pin", "api", "v2", "naïve", "Deploy"] {
            assert_eq!(relatives(word), [], "{word}");
        }
        assert!(!relative_stems("pinning").contains(&"pine".to_string()));
        assert!(!relative_stems("signal").contains(&"sign".to_string()));
        assert!(
            !relative_stems("version")
                .iter()
                .any(|s| s.starts_with("vers") && s.len() < 6)
        );
        // Shown as English spells it.
        assert!(relatives("lazily").contains(&("lazy".to_string(), "lazi".to_string())));
        assert!(relatives("flakes").contains(&("flakiness".to_string(), "flakiness".to_string())));
    }

    #[test]
    fn relatives_go_both_ways() {
        let words = [
            "escalating",
            "escalation",
            "renewing",
            "renewal",
            "flaky",
            "flakes",
            "deploying",
            "deployment",
            "rotation",
            "rotating",
            "approvals",
            "approved",
        ];
        for a in words {
            let mut sa = a.to_string();
            stem(&mut sa);
            for (form, sb) in relatives(a) {
                if words.iter().any(|w| {
                    let mut s = w.to_string();
                    stem(&mut s);
                    s == sb
                }) {
                    assert!(relative_stems(&form).contains(&sa), "{a} -> {form} -> ?");
                }
            }
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
