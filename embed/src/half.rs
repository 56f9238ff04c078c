//! IEEE binary16 ("half"), for weights stored as f16 and for agent-memory's vectors cache,
//! which keeps each vector at half precision. Every function here is branch-free on the
//! common path, so loops over many halves vectorize.

/// The largest finite half.
pub const MAX: f32 = 65504.0;

/// The f32 value of the half `h`, infinities and NaNs included: the magnitude bits are
/// placed in an f32 and scaled by 2^112, which is exact for normal and subnormal halves
/// alike, then an all-ones exponent is carried over as one.
#[inline(always)]
pub fn to_f32(h: u16) -> f32 {
    let magnitude = f32::from_bits(u32::from(h & 0x7fff) << 13) * f32::from_bits(0x7780_0000);
    let special = u32::from(h & 0x7c00 == 0x7c00) * 0x7f80_0000;
    f32::from_bits(magnitude.to_bits() | special | (u32::from(h & 0x8000) << 16))
}

/// `x` as the nearest half's bits, ties to even; `x` is finite, and a size past [`MAX`]
/// gives `MAX` (callers refuse such values first).
pub fn from_f32(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let a = bits & 0x7fff_ffff;
    if a < 0x3880_0000 {
        // Below the smallest normal half, 2^-14: a multiple of 2^-24.
        let scaled = (f32::from_bits(a) * 16_777_216.0).round_ties_even();
        return sign | scaled as u16;
    }
    // Rebias the exponent (127 to 15) and round away the low 13 bits.
    let m = a - 0x3800_0000;
    let h = (m + 0x0fff + ((m >> 13) & 1)) >> 13;
    sign | h.min(0x7bff) as u16
}

/// Whether every half in `halves` (little-endian, an even length) is finite. Four at a
/// time and without stopping early: a check per half that stopped at the first bad one
/// took 2.8 ms for 686,000 halves in wasm.
pub fn all_finite(halves: &[u8]) -> bool {
    const EXPONENTS: u64 = 0x7c00_7c00_7c00_7c00;
    const ONES: u64 = 0x0001_0001_0001_0001;
    const HIGHS: u64 = 0x8000_8000_8000_8000;
    let mut words = halves.chunks_exact(8);
    let mut bad = 0u64;
    for w in &mut words {
        // Zero in a half's lane where its exponent is all ones; a lane is found zero by the
        // borrow it takes (its top bit is then set in `y - 1` and clear in `y`).
        let y = (u64::from_le_bytes(w.try_into().expect("8 bytes")) & EXPONENTS) ^ EXPONENTS;
        bad |= y.wrapping_sub(ONES) & !y & HIGHS;
    }
    bad == 0
        && words
            .remainder()
            .chunks_exact(2)
            .all(|b| u16::from_le_bytes([b[0], b[1]]) & 0x7c00 != 0x7c00)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(to_f32(0x3c00), 1.0);
        assert_eq!(to_f32(0xc000), -2.0);
        assert_eq!(to_f32(0x0000), 0.0);
        assert_eq!(to_f32(0x8000).to_bits(), (-0.0f32).to_bits());
        assert_eq!(to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(to_f32(0x7bff), 65504.0);
        assert_eq!(to_f32(0x7c00), f32::INFINITY);
        assert_eq!(to_f32(0xfc00), f32::NEG_INFINITY);
        assert!(to_f32(0x7e00).is_nan());
        assert!(to_f32(0x7c01).is_nan());
    }

    #[test]
    fn a_half_that_is_not_finite_is_found_in_any_lane() {
        let halves = |hs: &[u16]| hs.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>();
        let fine = [0x3c00u16, 0x0001, 0x8000, 0x7bff, 0xfbff, 0x03ff, 0x4400];
        for len in 0..fine.len() {
            assert!(all_finite(&halves(&fine[..len])), "{len}");
        }
        for bad in [0x7c00u16, 0xfc00, 0x7e00, 0x7c01, 0xffff] {
            for at in 0..fine.len() {
                let mut hs = fine.to_vec();
                hs[at] = bad;
                assert!(!all_finite(&halves(&hs)), "{bad:#06x} at {at}");
            }
        }
        // A zero lane next to a bad one, and a bad one after a zero lane.
        assert!(!all_finite(&halves(&[0x0000, 0x7c00, 0x0000, 0x0000])));
        assert!(!all_finite(&halves(&[0x7c00, 0x0000, 0x0000, 0x0000])));
        assert!(all_finite(&halves(&[0x0000, 0x0000, 0x0000, 0x0000])));
    }

    #[test]
    fn every_finite_half_survives_the_round_trip() {
        for h in 0..=u16::MAX {
            if h & 0x7c00 == 0x7c00 {
                continue;
            }
            let x = to_f32(h);
            assert!(x.is_finite());
            assert_eq!(from_f32(x), h, "half {h:#06x} is {x}");
        }
    }

    #[test]
    fn halves_round_to_nearest_ties_to_even() {
        // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: it goes to 1 (even).
        assert_eq!(from_f32(1.0 + 2f32.powi(-11)), 0x3c00);
        // 1 + 3 * 2^-11 lies halfway between two halves: it goes to the even one above.
        assert_eq!(from_f32(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
        // A hair above halfway goes up.
        assert_eq!(from_f32(1.0 + 2f32.powi(-11) + 2f32.powi(-20)), 0x3c01);
        // Subnormal halves: multiples of 2^-24, ties to even.
        assert_eq!(from_f32(2f32.powi(-24)), 0x0001);
        assert_eq!(from_f32(1.5 * 2f32.powi(-24)), 0x0002);
        assert_eq!(from_f32(0.5 * 2f32.powi(-24)), 0x0000);
        assert_eq!(from_f32(-2f32.powi(-24)), 0x8001);
        // Past the largest half, clamped to it.
        assert_eq!(from_f32(65519.0), 0x7bff);
        for x in [0.1f32, -0.37, 0.052, 3.0e-5, -7.5e-6, 0.999] {
            let back = to_f32(from_f32(x));
            assert!(
                (back - x).abs() <= x.abs() * 2f32.powi(-11) + 2f32.powi(-25),
                "{x} came back as {back}"
            );
        }
    }
}
