//! A literal byte-string finder that ignores ASCII case, for the search's
//! inner loop: no allocation, no per-line work, 16 positions a step.
//!
//! Like memchr's "packed pair" searcher, it tests two of the needle's bytes
//! (the rarest two, so few positions survive) at 16 candidate positions at
//! once, then checks the survivors whole. The two tests are SIMD on x86_64
//! (SSE2, always present there) and on WebAssembly (`simd128`, which every
//! engine the component targets runs), and 8-byte SWAR elsewhere; all give
//! the same answers.

/// Finds occurrences of one needle, ignoring ASCII case: bytes below 0x80
/// compare by `eq_ignore_ascii_case`, others exactly.
#[derive(Debug, Clone)]
pub struct Finder {
    /// The needle, ASCII letters lowercased.
    needle: Box<[u8]>,
    first: Probe,
    second: Probe,
}

/// One tested byte of the needle: a haystack byte `b` at `offset` from the
/// candidate start passes when `b | mask == value`. For an ASCII letter the
/// mask is `0x20`, which folds exactly its two cases together; for any other
/// byte it is 0.
#[derive(Debug, Clone, Copy)]
struct Probe {
    offset: usize,
    mask: u8,
    value: u8,
}

impl Probe {
    fn new(offset: usize, byte: u8) -> Probe {
        let byte = byte.to_ascii_lowercase();
        let mask = if byte.is_ascii_lowercase() { 0x20 } else { 0 };
        Probe {
            offset,
            mask,
            value: byte,
        }
    }

    fn passes(self, byte: u8) -> bool {
        byte | self.mask == self.value
    }
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
        let rarest = |skip: Option<usize>| {
            (0..needle.len())
                .filter(|&i| Some(i) != skip)
                .min_by_key(|&i| commonness(needle[i]))
        };
        let first = rarest(None).unwrap_or(0);
        let second = rarest(Some(first)).unwrap_or(first);
        Finder {
            first: Probe::new(first, needle[first]),
            second: Probe::new(second, needle[second]),
            needle,
        }
    }

    /// The needle's length in bytes.
    pub fn len(&self) -> usize {
        self.needle.len()
    }

    /// The start of the first occurrence in `haystack` at or after `from`.
    pub fn find(&self, haystack: &[u8], from: usize) -> Option<usize> {
        let n = self.needle.len();
        let last = haystack.len().checked_sub(n)?;
        let mut at = from;
        if at > last {
            return None;
        }
        if let Some(found) = self.find_wide(haystack, &mut at) {
            return Some(found);
        }
        (at..=last).find(|&i| self.candidate(haystack, i) && self.verify(haystack, i))
    }

    fn candidate(&self, haystack: &[u8], start: usize) -> bool {
        self.first.passes(haystack[start + self.first.offset])
            && self.second.passes(haystack[start + self.second.offset])
    }

    fn verify(&self, haystack: &[u8], start: usize) -> bool {
        haystack[start..start + self.needle.len()].eq_ignore_ascii_case(&self.needle)
    }

    /// Checks the survivors of one block: `bits` has bit `j` set when the
    /// candidate at `base + j` passed both probes.
    #[inline(always)]
    fn survivors(&self, haystack: &[u8], base: usize, mut bits: u32) -> Option<usize> {
        let last = haystack.len() - self.needle.len();
        while bits != 0 {
            let start = base + bits.trailing_zeros() as usize;
            if start > last {
                return None;
            }
            if self.verify(haystack, start) {
                return Some(start);
            }
            bits &= bits - 1;
        }
        None
    }

    /// Whole blocks of 16 candidates from `*at`, while both probes' loads
    /// stay inside `haystack`; leaves `*at` at the first candidate not tried.
    #[cfg(target_arch = "x86_64")]
    fn find_wide(&self, haystack: &[u8], at: &mut usize) -> Option<usize> {
        use std::arch::x86_64::{
            __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8,
            _mm_or_si128, _mm_set1_epi8,
        };
        let (o1, o2) = (self.first.offset, self.second.offset);
        let reach = o1.max(o2) + 16;
        // SAFETY (all intrinsics below): SSE2 is part of the x86_64
        // baseline.
        let (m1, v1, m2, v2) = unsafe {
            (
                _mm_set1_epi8(self.first.mask as i8),
                _mm_set1_epi8(self.first.value as i8),
                _mm_set1_epi8(self.second.mask as i8),
                _mm_set1_epi8(self.second.value as i8),
            )
        };
        let ptr = haystack.as_ptr();
        let block = |i: usize| {
            // SAFETY: callers keep `i + reach <= haystack.len()`, so both
            // 16-byte loads lie inside `haystack`; `loadu` needs no
            // alignment.
            unsafe {
                let a = _mm_loadu_si128(ptr.add(i + o1) as *const __m128i);
                let b = _mm_loadu_si128(ptr.add(i + o2) as *const __m128i);
                let hit = _mm_and_si128(
                    _mm_cmpeq_epi8(_mm_or_si128(a, m1), v1),
                    _mm_cmpeq_epi8(_mm_or_si128(b, m2), v2),
                );
                _mm_movemask_epi8(hit) as u32
            }
        };
        let mut i = *at;
        // Two blocks a step: one test of the combined mask for 32 candidates.
        while i + 16 + reach <= haystack.len() {
            let bits = block(i) | block(i + 16) << 16;
            if bits != 0
                && let Some(found) = self.survivors(haystack, i, bits)
            {
                return Some(found);
            }
            i += 32;
        }
        while i + reach <= haystack.len() {
            let bits = block(i);
            if bits != 0
                && let Some(found) = self.survivors(haystack, i, bits)
            {
                return Some(found);
            }
            i += 16;
        }
        *at = i;
        None
    }

    /// The component is run by engines with the standard `simd128`
    /// feature (wasmtime, V8 through jco); an engine without it rejects the
    /// module when loading it, never midway.
    #[cfg(target_arch = "wasm32")]
    fn find_wide(&self, haystack: &[u8], at: &mut usize) -> Option<usize> {
        self.find_wide_simd128(haystack, at)
    }

    #[cfg(target_arch = "wasm32")]
    #[target_feature(enable = "simd128")]
    fn find_wide_simd128(&self, haystack: &[u8], at: &mut usize) -> Option<usize> {
        use std::arch::wasm32::{
            u8x16_bitmask, u8x16_eq, u8x16_splat, v128, v128_and, v128_load, v128_or,
        };
        let (o1, o2) = (self.first.offset, self.second.offset);
        let reach = o1.max(o2) + 16;
        let (m1, v1) = (u8x16_splat(self.first.mask), u8x16_splat(self.first.value));
        let (m2, v2) = (
            u8x16_splat(self.second.mask),
            u8x16_splat(self.second.value),
        );
        let ptr = haystack.as_ptr();
        let block = |i: usize| {
            // SAFETY: callers keep `i + reach <= haystack.len()`, so both
            // 16-byte loads lie inside `haystack`; `v128_load` needs no
            // alignment.
            let (a, b) = unsafe {
                (
                    v128_load(ptr.add(i + o1) as *const v128),
                    v128_load(ptr.add(i + o2) as *const v128),
                )
            };
            let hit = v128_and(u8x16_eq(v128_or(a, m1), v1), u8x16_eq(v128_or(b, m2), v2));
            u32::from(u8x16_bitmask(hit))
        };
        let mut i = *at;
        // Two blocks a step: one test of the combined mask for 32 candidates.
        while i + 16 + reach <= haystack.len() {
            let bits = block(i) | block(i + 16) << 16;
            if bits != 0
                && let Some(found) = self.survivors(haystack, i, bits)
            {
                return Some(found);
            }
            i += 32;
        }
        while i + reach <= haystack.len() {
            let bits = block(i);
            if bits != 0
                && let Some(found) = self.survivors(haystack, i, bits)
            {
                return Some(found);
            }
            i += 16;
        }
        *at = i;
        None
    }

    #[cfg(not(any(target_arch = "x86_64", target_arch = "wasm32")))]
    fn find_wide(&self, haystack: &[u8], at: &mut usize) -> Option<usize> {
        self.find_swar(haystack, at)
    }

    /// The portable block loop: 8 candidates a step in a `u64`. Any byte
    /// flagged here is checked whole, so the classic zero-byte trick's rare
    /// false positives are harmless; it never misses a true one.
    #[cfg_attr(any(target_arch = "x86_64", target_arch = "wasm32"), allow(dead_code))]
    fn find_swar(&self, haystack: &[u8], at: &mut usize) -> Option<usize> {
        const LO: u64 = 0x0101_0101_0101_0101;
        const HI: u64 = 0x8080_8080_8080_8080;
        let word = |offset: usize| {
            let bytes: [u8; 8] = haystack[offset..offset + 8]
                .try_into()
                .expect("eight bytes");
            u64::from_le_bytes(bytes)
        };
        // Zero bytes of `x` get their high bit set (plus possibly some bytes
        // above a zero byte: false positives, checked away later).
        let zeros = |x: u64| x.wrapping_sub(LO) & !x & HI;
        let reach = self.first.offset.max(self.second.offset) + 8;
        let (m1, v1) = (
            LO * u64::from(self.first.mask),
            LO * u64::from(self.first.value),
        );
        let (m2, v2) = (
            LO * u64::from(self.second.mask),
            LO * u64::from(self.second.value),
        );
        while *at + reach <= haystack.len() {
            let a = word(*at + self.first.offset);
            let b = word(*at + self.second.offset);
            let hit = zeros((a | m1) ^ v1) & zeros((b | m2) ^ v2);
            if hit != 0 {
                // One bit per byte: byte j's high bit becomes bit j.
                let mut bits = 0u32;
                for j in 0..8 {
                    if hit & (0x80 << (8 * j)) != 0 {
                        bits |= 1 << j;
                    }
                }
                let last = haystack.len() - self.needle.len();
                while bits != 0 {
                    let start = *at + bits.trailing_zeros() as usize;
                    if start > last {
                        break;
                    }
                    if self.candidate(haystack, start) && self.verify(haystack, start) {
                        return Some(start);
                    }
                    bits &= bits - 1;
                }
            }
            *at += 8;
        }
        None
    }
}

/// The index of the first `\n` at or after `from`, or `haystack.len()`.
pub fn line_end(haystack: &[u8], from: usize) -> usize {
    find_byte(haystack, from, b'\n').unwrap_or(haystack.len())
}

/// The start of the line holding byte `at` (or ending at `at`).
pub fn line_start(haystack: &[u8], at: usize) -> usize {
    rfind_byte(&haystack[..at], b'\n').map_or(0, |i| i + 1)
}

/// The index of the last `byte` in `haystack`.
pub fn rfind_byte(haystack: &[u8], byte: u8) -> Option<usize> {
    let mut end = haystack.len();
    if let Some(found) = rfind_byte_wide(haystack, &mut end, byte) {
        return Some(found);
    }
    haystack[..end].iter().rposition(|&b| b == byte)
}

/// The index of the first `byte` at or after `from`.
pub fn find_byte(haystack: &[u8], from: usize, byte: u8) -> Option<usize> {
    let mut at = from;
    if let Some(found) = find_byte_wide(haystack, &mut at, byte) {
        return Some(found);
    }
    haystack
        .get(at..)?
        .iter()
        .position(|&b| b == byte)
        .map(|i| at + i)
}

#[cfg(target_arch = "x86_64")]
fn find_byte_wide(haystack: &[u8], at: &mut usize, byte: u8) -> Option<usize> {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of the x86_64 baseline; each load reads the 16
    // bytes at `*at`, inside `haystack` by the loop condition.
    unsafe {
        let wanted = _mm_set1_epi8(byte as i8);
        while *at + 16 <= haystack.len() {
            let block = _mm_loadu_si128(haystack.as_ptr().add(*at) as *const __m128i);
            let bits = _mm_movemask_epi8(_mm_cmpeq_epi8(block, wanted)) as u32;
            if bits != 0 {
                return Some(*at + bits.trailing_zeros() as usize);
            }
            *at += 16;
        }
    }
    None
}

#[cfg(target_arch = "wasm32")]
fn find_byte_wide(haystack: &[u8], at: &mut usize, byte: u8) -> Option<usize> {
    find_byte_simd128(haystack, at, byte)
}

#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
fn find_byte_simd128(haystack: &[u8], at: &mut usize, byte: u8) -> Option<usize> {
    use std::arch::wasm32::{u8x16_bitmask, u8x16_eq, u8x16_splat, v128, v128_load};
    let wanted = u8x16_splat(byte);
    while *at + 16 <= haystack.len() {
        // SAFETY: the 16 bytes at `*at` lie inside `haystack`.
        let block = unsafe { v128_load(haystack.as_ptr().add(*at) as *const v128) };
        let bits = u32::from(u8x16_bitmask(u8x16_eq(block, wanted)));
        if bits != 0 {
            return Some(*at + bits.trailing_zeros() as usize);
        }
        *at += 16;
    }
    None
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "wasm32")))]
fn find_byte_wide(_haystack: &[u8], _at: &mut usize, _byte: u8) -> Option<usize> {
    None
}

/// Whole blocks of 16 bytes backwards from `*end`; leaves `*end` at the end
/// of the part not searched.
#[cfg(target_arch = "x86_64")]
fn rfind_byte_wide(haystack: &[u8], end: &mut usize, byte: u8) -> Option<usize> {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of the x86_64 baseline; each load reads the 16
    // bytes before `*end`, inside `haystack` by the loop condition.
    unsafe {
        let wanted = _mm_set1_epi8(byte as i8);
        while *end >= 16 {
            let block = _mm_loadu_si128(haystack.as_ptr().add(*end - 16) as *const __m128i);
            let bits = _mm_movemask_epi8(_mm_cmpeq_epi8(block, wanted)) as u32;
            if bits != 0 {
                return Some(*end - 16 + 31 - bits.leading_zeros() as usize);
            }
            *end -= 16;
        }
    }
    None
}

#[cfg(target_arch = "wasm32")]
fn rfind_byte_wide(haystack: &[u8], end: &mut usize, byte: u8) -> Option<usize> {
    rfind_byte_simd128(haystack, end, byte)
}

#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
fn rfind_byte_simd128(haystack: &[u8], end: &mut usize, byte: u8) -> Option<usize> {
    use std::arch::wasm32::{u8x16_bitmask, u8x16_eq, u8x16_splat, v128, v128_load};
    let wanted = u8x16_splat(byte);
    while *end >= 16 {
        // SAFETY: the 16 bytes before `*end` lie inside `haystack`.
        let block = unsafe { v128_load(haystack.as_ptr().add(*end - 16) as *const v128) };
        let bits = u32::from(u8x16_bitmask(u8x16_eq(block, wanted)));
        if bits != 0 {
            return Some(*end - 16 + 31 - bits.leading_zeros() as usize);
        }
        *end -= 16;
    }
    None
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "wasm32")))]
fn rfind_byte_wide(_haystack: &[u8], _end: &mut usize, _byte: u8) -> Option<usize> {
    None
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

    fn all_swar(finder: &Finder, haystack: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        let mut from = 0;
        loop {
            let Some(last) = haystack.len().checked_sub(finder.len()) else {
                return out;
            };
            if from > last {
                return out;
            }
            let mut at = from;
            let found = finder.find_swar(haystack, &mut at).or_else(|| {
                (at..=last).find(|&i| finder.candidate(haystack, i) && finder.verify(haystack, i))
            });
            match found {
                Some(i) => {
                    out.push(i);
                    from = i + 1;
                }
                None => return out,
            }
        }
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
                    let want = naive(&hay, &needle.to_ascii_lowercase());
                    assert_eq!(
                        all(&f, &hay),
                        want,
                        "needle {needle:?} seed {seed} len {len}"
                    );
                    assert_eq!(all_swar(&f, &hay), want, "swar {needle:?} {seed} {len}");
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
    }

    #[test]
    fn find_byte_finds_the_first() {
        for seed in 1..20 {
            for len in [0, 1, 15, 16, 17, 40, 300] {
                let hay = haystack(seed, len);
                for from in [0, 1, 5, 16, 17, len] {
                    for byte in [b'\n', b'a', 0x97, b'?'] {
                        let want = hay
                            .get(from..)
                            .and_then(|h| h.iter().position(|&b| b == byte))
                            .map(|i| from + i);
                        assert_eq!(
                            find_byte(&hay, from, byte),
                            want,
                            "{seed} {len} {from} {byte}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn rfind_byte_finds_the_last() {
        for seed in 1..20 {
            for len in [0, 1, 15, 16, 17, 40, 300] {
                let hay = haystack(seed, len);
                for cut in [0, 1, 5, 16, 17, len] {
                    let part = &hay[..cut.min(hay.len())];
                    for byte in [b'\n', b'a', 0x97, b'?'] {
                        let want = part.iter().rposition(|&b| b == byte);
                        assert_eq!(rfind_byte(part, byte), want, "{seed} {len} {cut} {byte}");
                    }
                }
            }
        }
    }

    #[test]
    fn lines_around_a_position() {
        let text = b"one\ntwo\r\nthree";
        assert_eq!(line_start(text, 0), 0);
        assert_eq!(line_start(text, 5), 4);
        assert_eq!(line_end(text, 5), 8);
        assert_eq!(line_start(text, 12), 9);
        assert_eq!(line_end(text, 12), text.len());
    }
}
