//! A literal byte-string finder that ignores ASCII case, for the search's
//! inner loop, on the `memchr` crate: no allocation, no per-line work.
//!
//! It jumps with `memchr2` (vectorized: SSE2/AVX2 on x86_64, `simd128` on
//! WebAssembly when the build enables it) to the next place where the
//! needle's rarest byte occurs in either ASCII case, and checks the whole
//! needle there.

/// Finds occurrences of one needle, ignoring ASCII case: bytes below 0x80
/// compare by `eq_ignore_ascii_case`, others exactly.
#[derive(Debug, Clone)]
pub struct Finder {
    /// The needle, ASCII letters lowercased.
    needle: Box<[u8]>,
    /// Where in the needle its rarest byte is.
    offset: usize,
    /// That byte in lower and upper case (twice the same byte when it is
    /// not an ASCII letter).
    rare: [u8; 2],
}

/// How common a byte is in English prose, Markdown and code, higher being
/// more common; ASCII case is ignored. Only the order matters.
fn commonness(byte: u8) -> u8 {
    const LETTERS_RARE_TO_COMMON: &[u8] = b"zqjxkvbywgpfmucdlhrsnioate";
    let lower = byte.to_ascii_lowercase();
    match LETTERS_RARE_TO_COMMON.iter().position(|&b| b == lower) {
        Some(i) => 40 + i as u8,
        None => match byte {
            b' ' | b'\n' => 100,
            b'0'..=b'9' => 30,
            b'.' | b',' | b'-' | b'_' | b'/' | b':' | b'`' | b'(' | b')' | b'\'' | b'"' => 20,
            // UTF-8 lead bytes of common scripts and continuation bytes.
            0xC2..=0xE3 | 0x80..=0xBF => 10,
            _ => 1,
        },
    }
}

impl Finder {
    /// A finder for `needle` (not empty).
    pub fn new(needle: &[u8]) -> Finder {
        debug_assert!(!needle.is_empty());
        let needle: Box<[u8]> = needle.to_ascii_lowercase().into();
        let offset = (0..needle.len())
            .min_by_key(|&i| commonness(needle[i]))
            .unwrap_or(0);
        let byte = needle.get(offset).copied().unwrap_or(0);
        Finder {
            rare: [byte, byte.to_ascii_uppercase()],
            offset,
            needle,
        }
    }

    /// The start of the first occurrence in `haystack` at or after `from`.
    pub fn find(&self, haystack: &[u8], from: usize) -> Option<usize> {
        let last = haystack.len().checked_sub(self.needle.len())?;
        let mut start = from;
        while start <= last {
            // The rare byte of every candidate start in `start..=last`.
            let window = &haystack[start + self.offset..=last + self.offset];
            start += if self.rare[0] == self.rare[1] {
                memchr::memchr(self.rare[0], window)?
            } else {
                memchr::memchr2(self.rare[0], self.rare[1], window)?
            };
            if haystack[start..start + self.needle.len()].eq_ignore_ascii_case(&self.needle) {
                return Some(start);
            }
            start += 1;
        }
        None
    }
}

/// `text` with its ASCII letters lowercased, into `out` (replaced), eight
/// bytes at a time; every other byte is kept. Searching this copy for an
/// ASCII-lowercased needle byte for byte finds exactly what [`Finder`]
/// finds in `text`, and lets one pass serve every term of a query.
pub fn ascii_lowercase_into(text: &[u8], out: &mut Vec<u8>) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    out.clear();
    out.resize(text.len(), 0);
    let mut src = text.chunks_exact(8);
    let mut dst = out.chunks_exact_mut(8);
    for (s, d) in (&mut src).zip(&mut dst) {
        let mut word = [0u8; 8];
        word.copy_from_slice(s);
        let x = u64::from_le_bytes(word);
        // Per byte, with its high bit cleared (no carry can cross bytes):
        // the high bit of `h + 0x80 - 'A'` says h >= 'A', of
        // `h + 0x80 - 'Z' - 1` that h > 'Z'.
        let h = x & !HIGH;
        let from_a = h + ONES * u64::from(0x80 - b'A');
        let past_z = h + ONES * u64::from(0x80 - b'Z' - 1);
        let upper = from_a & !past_z & !x & HIGH;
        d.copy_from_slice(&(x | upper >> 2).to_le_bytes());
    }
    for (s, d) in src.remainder().iter().zip(dst.into_remainder()) {
        *d = s.to_ascii_lowercase();
    }
}

/// Finds a needle, ignoring ASCII case, in text lowercased by
/// [`ascii_lowercase_into`]: the `memchr` crate's substring search, which
/// looks for two of the needle's bytes at once where [`Finder`] can look
/// for one (in both cases).
#[derive(Debug, Clone)]
pub struct LowerFinder {
    finder: memchr::memmem::Finder<'static>,
}

impl LowerFinder {
    /// A finder for `needle` (not empty), its ASCII letters lowercased.
    pub fn new(needle: &[u8]) -> LowerFinder {
        debug_assert!(!needle.is_empty());
        LowerFinder {
            finder: memchr::memmem::Finder::new(&needle.to_ascii_lowercase()).into_owned(),
        }
    }

    /// The needle's length in bytes.
    pub fn len(&self) -> usize {
        self.finder.needle().len()
    }

    /// The start of the first occurrence in `lowered` (a text lowercased
    /// by [`ascii_lowercase_into`]) at or after `from`.
    pub fn find(&self, lowered: &[u8], from: usize) -> Option<usize> {
        self.finder.find(lowered.get(from..)?).map(|i| from + i)
    }
}

/// The index of the first `byte` at or after `from`.
pub fn find_byte(haystack: &[u8], from: usize, byte: u8) -> Option<usize> {
    memchr::memchr(byte, haystack.get(from..)?).map(|i| from + i)
}

/// The index of the first `\n` at or after `from`, or `haystack.len()`.
pub fn line_end(haystack: &[u8], from: usize) -> usize {
    find_byte(haystack, from, b'\n').unwrap_or(haystack.len())
}

/// The start of the line holding byte `at` (or ending at `at`).
pub fn line_start(haystack: &[u8], at: usize) -> usize {
    memchr::memrchr(b'\n', &haystack[..at]).map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every occurrence by the obvious method.
    fn naive(haystack: &[u8], needle: &[u8]) -> Vec<usize> {
        if needle.len() > haystack.len() {
            return Vec::new();
        }
        (0..=haystack.len() - needle.len())
            .filter(|&i| haystack[i..i + needle.len()].eq_ignore_ascii_case(needle))
            .collect()
    }

    fn all(finder: &Finder, haystack: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(i) = finder.find(haystack, from) {
            out.push(i);
            from = i + 1;
        }
        out
    }

    /// A deterministic haystack mixing cases, separators and UTF-8.
    fn haystack(seed: u64, len: usize) -> Vec<u8> {
        const PIECES: &[&str] = &[
            "staging", "STAGING", "Stag", "ing", " ", "\n", "\r\n", "é", "日本", "—", "k", "K",
            "\u{212A}", "i", "İ", "a", "A", "-", "_", "@", "`", "[", "{", "zz",
        ];
        let mut x = seed | 1;
        let mut out = Vec::new();
        while out.len() < len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            out.extend_from_slice(PIECES[(x % PIECES.len() as u64) as usize].as_bytes());
        }
        out
    }

    #[test]
    fn finds_what_the_naive_search_finds() {
        let needles: &[&[u8]] = &[
            b"staging",
            b"s",
            b"k",
            b"ing",
            b"a-",
            b"@",
            b"`",
            b"[",
            b"zz",
            b"aaaaaaaaaaaaaaaaaaaa",
            "é".as_bytes(),
            "\u{130}".as_bytes(),
            "\u{212A}".as_bytes(),
            b"g\ri",
        ];
        for seed in 1..40 {
            for len in [0, 1, 7, 15, 16, 17, 31, 33, 100, 1000] {
                let hay = haystack(seed, len);
                for needle in needles {
                    let f = Finder::new(needle);
                    assert_eq!(
                        all(&f, &hay),
                        naive(&hay, &needle.to_ascii_lowercase()),
                        "needle {needle:?} seed {seed} len {len}"
                    );
                }
            }
        }
    }

    /// The lowercased copy and [`LowerFinder`] find what [`Finder`] finds
    /// in the original, for every needle, haystack and starting point.
    #[test]
    fn lowered_search_finds_what_the_finder_finds() {
        let mut lowered = Vec::new();
        for seed in 1..40 {
            for len in [0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1000] {
                let mut hay = haystack(seed, len);
                // Every byte value, some of them at every offset mod 8.
                hay.extend((0..=255u8).cycle().skip(seed as usize).take(len));
                ascii_lowercase_into(&hay, &mut lowered);
                assert_eq!(lowered, hay.to_ascii_lowercase());
                for needle in [&b"staging"[..], b"s", b"k", b"a-", b"@", b"`", b"[", b"zz"] {
                    let (f, l) = (Finder::new(needle), LowerFinder::new(needle));
                    assert_eq!(l.len(), needle.len());
                    for from in [0, 1, len / 2, len + 3] {
                        assert_eq!(f.find(&hay, from), l.find(&lowered, from), "{needle:?}");
                    }
                    let mut at = 0;
                    let mut got = Vec::new();
                    while let Some(i) = l.find(&lowered, at) {
                        got.push(i);
                        at = i + 1;
                    }
                    assert_eq!(
                        got,
                        all(&f, &hay),
                        "needle {needle:?} seed {seed} len {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn ascii_case_folds_only_letters() {
        // `@` (0x40) and `` ` `` (0x60) differ only in bit 0x20, as do `[`
        // and `{`: they must not be folded together.
        let f = Finder::new(b"`");
        assert_eq!(f.find(b"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@`", 0), Some(32));
        let f = Finder::new(b"a[b");
        assert_eq!(f.find(b"a{b A[B", 0), Some(4));
        let f = Finder::new(b"Deploy");
        assert_eq!(f.find(b"we DEPLOY now", 0), Some(3));
        assert_eq!(f.find(b"we DEPLOY now", 4), None);
        assert_eq!(f.find(b"we DEPLOY now", 99), None);
    }

    #[test]
    fn lines_around_a_position() {
        let text = b"one\ntwo\r\nthree";
        assert_eq!(line_start(text, 0), 0);
        assert_eq!(line_start(text, 3), 0);
        assert_eq!(line_start(text, 5), 4);
        assert_eq!(line_end(text, 0), 3);
        assert_eq!(line_end(text, 3), 3);
        assert_eq!(line_end(text, 5), 8);
        assert_eq!(line_start(text, 12), 9);
        assert_eq!(line_end(text, 12), text.len());
        assert_eq!(line_end(text, text.len()), text.len());
    }
}
