//! A tiny deterministic PRNG (SplitMix64): the corpus must be the same on
//! every machine and with every build, so no `rand` and no floats.

/// SplitMix64 (Steele, Lea and Flood, 2014).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// An independent stream, so that one part of the corpus drawing more
    /// numbers does not change the others.
    pub fn fork(&mut self) -> Rng {
        Rng(self.next_u64())
    }

    /// Uniform in `0..n` (`n` > 0), by multiply-shift.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// True `p` percent of the time.
    pub fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }

    /// A uniformly chosen item.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// In `0..n`, small values much more often than large ones: `n` times
    /// the product of two uniforms (density `-ln x`), so index 0 is drawn
    /// about 20 times as often as the middle of the range.
    pub fn skewed(&mut self, n: usize) -> usize {
        let a = u128::from(self.next_u64());
        let b = u128::from(self.next_u64());
        let product = (a * b) >> 64;
        ((product * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_first_output() {
        // The reference SplitMix64 output for seed 0.
        assert_eq!(Rng::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn ranges_hold_and_skew_favours_small_values() {
        let mut r = Rng::new(1);
        let mut low = 0;
        for _ in 0..10_000 {
            assert!(r.below(7) < 7);
            let s = r.skewed(100);
            assert!(s < 100);
            if s < 10 {
                low += 1;
            }
        }
        // P(x < 0.1) = 0.1 * (1 - ln 0.1) ≈ 0.33.
        assert!((2_800..3_800).contains(&low), "{low}");
    }
}
