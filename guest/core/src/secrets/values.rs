//! Judging a candidate value: how random it looks, and whether it is a
//! documented example, a placeholder, or a hash or id that only looks random.

/// Shannon entropy of `s` in bits per character (0 for an empty string).
pub fn entropy(s: &str) -> f32 {
    let bytes = s.as_bytes();
    if bytes.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in bytes {
        counts[b as usize] += 1;
    }
    let n = bytes.len() as f32;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f32 / n;
            -p * p.log2()
        })
        .sum()
}

/// How many of the four character classes (lower, upper, digit, other)
/// occur in `s`.
pub fn classes(s: &str) -> u32 {
    let (mut lower, mut upper, mut digit, mut other) = (false, false, false, false);
    for b in s.bytes() {
        match b {
            b'a'..=b'z' => lower = true,
            b'A'..=b'Z' => upper = true,
            b'0'..=b'9' => digit = true,
            _ => other = true,
        }
    }
    [lower, upper, digit, other].iter().filter(|&&x| x).count() as u32
}

/// Values published in providers' documentation as examples. They are
/// matched whole; anything that merely contains `EXAMPLE` is caught by
/// [`is_placeholder`] already.
const DOCUMENTED_EXAMPLES: &[&str] = &[
    // jwt.io's default token signature.
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    // The Stripe API reference's test keys.
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
    "rk_test_4eC39HqLyjWDarjtT1zdp7dc",
];

/// Substrings that mark a value as a stand-in for a real one. Words match
/// in lower case, upper case or capitalized (`your`, `YOUR`, `Your`), not
/// in any mix of cases: random base64 holds some mixed-case spelling of a
/// four-letter word far more often than a consistent one.
const PLACEHOLDER_PARTS: &[&str] = &[
    "example",
    "xxxx",
    "****",
    "....",
    "…",
    "<",
    ">",
    "${",
    "{{",
    "}}",
    "%s",
    "%(",
    "$(",
    "your",
    "dummy",
    "placeholder",
    "redacted",
    "changeme",
    "change_me",
    "change-me",
    "insert",
    "replace",
    "fake",
    "sample",
    "secret_here",
    "token_here",
    "key_here",
    "notreal",
    "not_real",
    "not-real",
];

/// Substrings that mark a key block's body as elided or templated. Not `>`
/// or runs of `*`: a key quoted in Markdown has `> ` on every line.
const BODY_PLACEHOLDER_PARTS: &[&str] = &[
    "example",
    "xxxx",
    "....",
    "…",
    "<",
    "your",
    "redacted",
    "placeholder",
    "${",
    "{{",
];

/// Whole values (compared ignoring ASCII case) that stand for a secret
/// without being one, or are well-known defaults.
const PLACEHOLDER_WORDS: &[&str] = &[
    "password",
    "passwd",
    "pass",
    "pwd",
    "secret",
    "token",
    "apikey",
    "api_key",
    "key",
    "none",
    "null",
    "nil",
    "undefined",
    "true",
    "false",
    "empty",
    "guest",
    "admin",
    "root",
    "postgres",
    "mysql",
    "user",
    "username",
    "test",
    "testing",
    "default",
    "foobar",
    "string",
    "required",
    "optional",
    "redacted",
    "todo",
    "tbd",
];

/// Whether `value` is a documented example, a template placeholder, a
/// reference to where the secret lives (`$VAR`, `${VAR}`, `{{ var }}`), a
/// masked value (`****`), or made of one repeated character or a counting
/// run (`123456`, `abcdef`).
pub fn is_placeholder(value: &str) -> bool {
    // Contained, not equal: a documented JWT signature marks the whole
    // token, and the examples are too long and random to occur by chance.
    if DOCUMENTED_EXAMPLES.iter().any(|e| value.contains(e)) {
        return true;
    }
    if PLACEHOLDER_WORDS
        .iter()
        .any(|w| value.eq_ignore_ascii_case(w))
    {
        return true;
    }
    if has_placeholder_part(value) {
        return true;
    }
    let b = value.as_bytes();
    if b.first() == Some(&b'$')
        && b.get(1)
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
    {
        return true;
    }
    if matches!(
        (b.first(), b.last()),
        (Some(b'['), Some(b']')) | (Some(b'{'), Some(b'}')) | (Some(b'('), Some(b')'))
    ) {
        return true;
    }
    // Five of a filler character (`xxxxx`, `00000`, `*****`) or eight of
    // any: random digits repeat five times in a row too often to count.
    longest_run(b, |c| b"xX0*.#-_".contains(&c)) >= 5
        || longest_run(b, |_| true) >= 8
        || longest_counting_run(b) >= 6
}

/// Whether `s` holds one of the substrings that mark a stand-in value
/// (`example`, `xxxx`, `<`, `${`, `your`, ...).
pub fn has_placeholder_part(s: &str) -> bool {
    holds_any(s, PLACEHOLDER_PARTS)
}

/// Whether a private key block's body is elided or templated (`MIIE...`,
/// `<your key here>`).
pub fn has_body_placeholder(body: &str) -> bool {
    holds_any(body, BODY_PLACEHOLDER_PARTS)
}

/// Whether `s` contains one of `parts` in lower case, upper case or
/// capitalized.
fn holds_any(s: &str, parts: &[&str]) -> bool {
    parts.iter().any(|p| {
        if !p.bytes().any(|b| b.is_ascii_alphabetic()) {
            return s.contains(p);
        }
        let upper = p.to_ascii_uppercase();
        let mut capital = p.to_string();
        capital[..1].make_ascii_uppercase();
        s.contains(p) || s.contains(&upper) || s.contains(&capital)
    })
}

/// The longest run of one repeated byte among those `counts` accepts.
fn longest_run(b: &[u8], counts: impl Fn(u8) -> bool) -> usize {
    let (mut best, mut run) = (0, 0);
    for (i, &c) in b.iter().enumerate() {
        run = if !counts(c) {
            0
        } else if i > 0 && b[i - 1] == c {
            run + 1
        } else {
            1
        };
        best = best.max(run);
    }
    best
}

/// The longest run of consecutive ascending bytes (`0123`, `abcd`).
fn longest_counting_run(b: &[u8]) -> usize {
    let (mut best, mut run) = (0, 0);
    for (i, &c) in b.iter().enumerate() {
        run = if i > 0 && c.is_ascii_alphanumeric() && b[i - 1].wrapping_add(1) == c {
            run + 1
        } else {
            1
        };
        best = best.max(run);
    }
    best
}

/// Whether `value` is shaped like a hash or an id that is public by nature:
/// an abbreviated or full git SHA, an MD5/SHA-1/SHA-224/SHA-256/SHA-384/
/// SHA-512 hex digest, or a UUID.
pub fn is_hash_like(value: &str) -> bool {
    is_uuid(value)
        || (value.bytes().all(|b| b.is_ascii_hexdigit())
            && (matches!(value.len(), 7..=12 | 32 | 40 | 56 | 64 | 96 | 128))
            // A digest is written in one case; mixed case is not hex output.
            && !(value.bytes().any(|b| b.is_ascii_lowercase())
                && value.bytes().any(|b| b.is_ascii_uppercase())))
}

/// Whether `value` is a UUID (`8-4-4-4-12` hex digits).
pub fn is_uuid(value: &str) -> bool {
    let b = value.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// Whether `value` is base64 (standard or URL-safe) of ordinary text:
/// printable ASCII with spaces between words, mostly letters. Random bytes
/// never decode to that.
pub fn is_base64_of_prose(value: &str) -> bool {
    let Some(decoded) = decode_base64(value) else {
        return false;
    };
    if decoded.len() < 8
        || !decoded
            .iter()
            .all(|&b| (0x20..0x7f).contains(&b) || b == b'\n')
    {
        return false;
    }
    let letters = decoded
        .iter()
        .filter(|b| b.is_ascii_alphabetic() || **b == b' ')
        .count();
    decoded.contains(&b' ') && letters * 10 >= decoded.len() * 8
}

/// Decode standard or URL-safe base64, padded or not; `None` when `s` is
/// not base64 (or is longer than any value we judge).
pub fn decode_base64(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    if s.len() > 8192 || s.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in s.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_of_known_strings() {
        assert_eq!(entropy(""), 0.0);
        assert_eq!(entropy("aaaa"), 0.0);
        assert!((entropy("abcd") - 2.0).abs() < 1e-6);
        assert!((entropy("0123456789abcdef") - 4.0).abs() < 1e-6);
    }

    #[test]
    fn placeholders() {
        for v in [
            "AKIAIOSFODNN7EXAMPLE",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "<YOUR_API_KEY>",
            "${GITHUB_TOKEN}",
            "$NPM_TOKEN",
            "{{ secrets.TOKEN }}",
            "sk-xxxxxxxxxxxxxxxxxxxxxxxx",
            "********",
            "changeme",
            "1234567890",
            "abcdefgh",
            "Your-Token-Here",
            "[password]",
            "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        ] {
            assert!(is_placeholder(v), "{v}");
        }
        for v in [
            "hunter2!X",
            "q8Zr3LmW0pVx",
            "ghp_a8Kz0QmW3rT5yUvB7nC1dE9fG2hJ4kL6pX0s",
        ] {
            assert!(!is_placeholder(v), "{v}");
        }
    }

    #[test]
    fn hashes_and_ids() {
        for v in [
            "3f2a9c1",
            "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "D41D8CD98F00B204E9800998ECF8427E",
            "123e4567-e89b-12d3-a456-426614174000",
        ] {
            assert!(is_hash_like(v), "{v}");
        }
        for v in [
            "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3",
            "aB3dE5f7a9b1c3d5e7f9",
            "xyz1234",
        ] {
            assert!(!is_hash_like(v), "{v}");
        }
    }

    #[test]
    fn base64_of_prose_is_recognised() {
        // "The quick brown fox jumps over the lazy dog"
        let prose = "VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw==";
        assert!(is_base64_of_prose(prose));
        assert!(
            !is_base64_of_prose("cGFzc3dvcmQxMjM="),
            "password123 has no space"
        );
        assert!(!is_base64_of_prose("q8Zr3LmW0pVxT6yN2bH4jK7s"));
        assert!(!is_base64_of_prose("not base64!"));
    }

    #[test]
    fn decode_base64_variants() {
        assert_eq!(decode_base64("aGk=").as_deref(), Some(&b"hi"[..]));
        assert_eq!(decode_base64("aGk").as_deref(), Some(&b"hi"[..]));
        assert_eq!(decode_base64("-_8").as_deref(), Some(&[0xfb, 0xff][..]));
        assert_eq!(decode_base64("a"), None);
    }
}
