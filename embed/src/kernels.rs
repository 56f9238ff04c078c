//! The matrix product that takes most of the encoder's time, `y = x Wᵀ + b` (two thirds
//! natively, more in wasm; attention, GELU and LayerNorm take the rest).
//!
//! `W` is packed once at load into panels of `NR` output columns: for each input index the
//! panel holds `NR` consecutive weights, so the inner loop is a broadcast of one input value
//! times one contiguous weight vector, accumulated for a few tokens at a time. Written as plain
//! loops over fixed-size arrays, LLVM turns it into SIMD: AVX2 and FMA on x86-64 (chosen at
//! run time), SSE2 otherwise, and 128-bit SIMD on wasm32 when built with
//! `-C target-feature=+simd128`.
//!
//! Measured in wasm (wasmtime 48, cranelift): the 4 x 16 tile spills some accumulators, yet
//! an explicit `core::arch::wasm32` 4 x 8 kernel, `relaxed-simd` multiply-add and a 2 x 16
//! tile were each no faster. simd128 itself is worth ~3.5-4x over scalar wasm (the
//! workspace's `.cargo/config.toml` enables it for wasm32-wasip2).

/// Output columns per packed panel.
pub const NR: usize = 16;
/// Most tokens per micro-tile: 6 x 16 keeps 12 of AVX2's 16 registers as accumulators; with
/// 128-bit registers (SSE2, wasm) 4 x 16 already takes all 16.
const MR_MAX: usize = 6;

/// Packs a row-major `m x k` matrix into `ceil(m / NR)` panels of `k x NR`, zero-padded.
pub fn pack(w: &[f32], m: usize, k: usize) -> Vec<f32> {
    assert_eq!(w.len(), m * k);
    let panels = m.div_ceil(NR);
    let mut out = vec![0.0; panels * k * NR];
    for (p, panel) in out.chunks_exact_mut(k * NR).enumerate() {
        for j in 0..NR.min(m - p * NR) {
            let row = &w[(p * NR + j) * k..][..k];
            for (kk, &v) in row.iter().enumerate() {
                panel[kk * NR + j] = v;
            }
        }
    }
    out
}

/// `y[n x m] = x[n x k] · Wᵀ + bias`, with `W` packed by [`pack`].
pub fn gemm(x: &[f32], n: usize, k: usize, panels: &[f32], bias: &[f32], y: &mut [f32], m: usize) {
    assert!(x.len() >= n * k && y.len() >= n * m && bias.len() >= m);
    assert_eq!(panels.len(), m.div_ceil(NR) * k * NR);
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        // SAFETY: the features were just detected.
        unsafe { gemm_avx2_fma(x, n, k, panels, bias, y, m) };
        return;
    }
    gemm_body::<false, 4>(x, n, k, panels, bias, y, m);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn gemm_avx2_fma(
    x: &[f32],
    n: usize,
    k: usize,
    panels: &[f32],
    bias: &[f32],
    y: &mut [f32],
    m: usize,
) {
    gemm_body::<true, 6>(x, n, k, panels, bias, y, m);
}

#[inline(always)]
fn gemm_body<const FMA: bool, const MR: usize>(
    x: &[f32],
    n: usize,
    k: usize,
    panels: &[f32],
    bias: &[f32],
    y: &mut [f32],
    m: usize,
) {
    for (p, panel) in panels.chunks_exact(k * NR).enumerate() {
        let cols = NR.min(m - p * NR);
        let bias = &bias[p * NR..][..cols];
        panel_body::<FMA, MR>(x, n, k, panel, bias, &mut y[p * NR..], m);
    }
}

/// `y[t * ldy + j] = x[t] · W[j] + bias[j]` for the first `bias.len()` of the `NR` output
/// columns that `panel` holds.
#[inline(always)]
fn panel_body<const FMA: bool, const MR: usize>(
    x: &[f32],
    n: usize,
    k: usize,
    panel: &[f32],
    bias: &[f32],
    y: &mut [f32],
    ldy: usize,
) {
    let mut t = 0;
    while t < n {
        let rows = MR.min(n - t);
        let x = &x[t * k..];
        let acc = match rows {
            6 => widen(tile::<6, FMA>(x, k, panel)),
            5 => widen(tile::<5, FMA>(x, k, panel)),
            4 => widen(tile::<4, FMA>(x, k, panel)),
            3 => widen(tile::<3, FMA>(x, k, panel)),
            2 => widen(tile::<2, FMA>(x, k, panel)),
            _ => widen(tile::<1, FMA>(x, k, panel)),
        };
        for (r, acc) in acc.iter().enumerate().take(rows) {
            let out = &mut y[(t + r) * ldy..][..bias.len()];
            for ((o, a), b) in out.iter_mut().zip(acc).zip(bias) {
                *o = a + b;
            }
        }
        t += rows;
    }
}

#[inline(always)]
fn widen<const R: usize>(a: [[f32; NR]; R]) -> [[f32; NR]; MR_MAX] {
    let mut out = [[0.0; NR]; MR_MAX];
    out[..R].copy_from_slice(&a);
    out
}

#[inline(always)]
fn tile<const R: usize, const FMA: bool>(x: &[f32], k: usize, panel: &[f32]) -> [[f32; NR]; R] {
    let rows: [&[f32]; R] = std::array::from_fn(|r| &x[r * k..][..k]);
    let mut acc = [[0.0f32; NR]; R];
    for (kk, w) in panel.chunks_exact(NR).enumerate() {
        let w: &[f32; NR] = w.try_into().expect("NR weights");
        for r in 0..R {
            let v = rows[r][kk];
            for j in 0..NR {
                acc[r][j] = if FMA {
                    v.mul_add(w[j], acc[r][j])
                } else {
                    acc[r][j] + v * w[j]
                };
            }
        }
    }
    acc
}

/// Lanes of the int8 product's accumulators: two 128-bit vectors (wasm, SSE2) or one AVX2 one.
const LANES: usize = 8;
/// Tokens per pass of the int8 product: each weight row is dequantised once for this many
/// (in wasm, 8 accumulators, 4 weight vectors and a scale fit 16 registers).
const MR_Q8: usize = 8;

/// `y[t * ldy + o] = x[t] · W[o] + bias[o]` for `n` tokens and `m` outputs, where `W` is the
/// row-major `m x k` int8 matrix `q` (signed bytes) with one f32 `scale` per `group` weights of
/// a row. Each weight is dequantised as it is used (`q as f32 * scale`, the value
/// [`pack`]ed weights hold), so the matrix never exists in f32: loading costs nothing and
/// takes a quarter of the memory. Slower than [`gemm`] on panels natively; in wasm the two
/// are close (see embed/README.md).
#[allow(clippy::too_many_arguments)]
pub fn gemm_q8(
    x: &[f32],
    n: usize,
    k: usize,
    (q, scale, group): (&[u8], &[f32], usize),
    bias: &[f32],
    y: &mut [f32],
    ldy: usize,
    m: usize,
) {
    assert!(
        group > 0 && k.is_multiple_of(group),
        "group {group} does not divide {k}"
    );
    assert!(x.len() >= n * k && q.len() >= m * k && bias.len() >= m);
    assert!(scale.len() >= m * k / group && ldy >= m);
    assert!(n == 0 || y.len() >= (n - 1) * ldy + m);
    #[cfg(target_arch = "x86_64")]
    if group.is_multiple_of(LANES) && avx2::available() {
        // SAFETY: AVX2 and FMA were just detected.
        unsafe { avx2::gemm_q8(x, n, k, (q, scale, group), bias, y, ldy, m) };
        return;
    }
    let mut t = 0;
    while t < n {
        let rows = MR_Q8.min(n - t);
        let x = &x[t * k..];
        for o in 0..m {
            let w = &q[o * k..][..k];
            let s = &scale[o * k / group..][..k / group];
            let acc = match rows {
                8 => widen8(q8_row::<8>(x, k, w, s, group)),
                7 => widen8(q8_row::<7>(x, k, w, s, group)),
                6 => widen8(q8_row::<6>(x, k, w, s, group)),
                5 => widen8(q8_row::<5>(x, k, w, s, group)),
                4 => widen8(q8_row::<4>(x, k, w, s, group)),
                3 => widen8(q8_row::<3>(x, k, w, s, group)),
                2 => widen8(q8_row::<2>(x, k, w, s, group)),
                _ => widen8(q8_row::<1>(x, k, w, s, group)),
            };
            for (r, a) in acc.iter().enumerate().take(rows) {
                y[(t + r) * ldy + o] = a + bias[o];
            }
        }
        t += rows;
    }
}

#[inline(always)]
fn widen8<const R: usize>(a: [f32; R]) -> [f32; MR_Q8] {
    let mut out = [0.0; MR_Q8];
    out[..R].copy_from_slice(&a);
    out
}

/// The dot products of `R` token rows with one int8 weight row.
#[inline(always)]
fn q8_row<const R: usize>(x: &[f32], k: usize, w: &[u8], s: &[f32], group: usize) -> [f32; R] {
    let rows: [&[f32]; R] = std::array::from_fn(|r| &x[r * k..][..k]);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if group.is_multiple_of(16) {
        return simd128::q8_row(rows, w, s, group);
    }
    if !group.is_multiple_of(LANES) {
        return std::array::from_fn(|r| {
            rows[r]
                .iter()
                .zip(w)
                .enumerate()
                .map(|(i, (x, &q))| x * (f32::from(q as i8) * s[i / group]))
                .sum()
        });
    }
    let mut acc = [[0.0f32; LANES]; R];
    for (g, (wg, &sc)) in w.chunks_exact(group).zip(s).enumerate() {
        for (c, wc) in wg.chunks_exact(LANES).enumerate() {
            let at = g * group + c * LANES;
            let wf: [f32; LANES] = std::array::from_fn(|j| f32::from(wc[j] as i8) * sc);
            for r in 0..R {
                let xr: &[f32; LANES] = rows[r][at..at + LANES].try_into().expect("LANES");
                for j in 0..LANES {
                    acc[r][j] += xr[j] * wf[j];
                }
            }
        }
    }
    std::array::from_fn(|r| acc[r].iter().sum())
}

/// The int8 product written with wasm's 128-bit SIMD: left to LLVM, the widening of the
/// bytes came out scalar and the product ran 4x slower than on f32 panels.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use core::arch::wasm32::*;

    /// As `super::q8_row`, for a `group` that is a multiple of 16: sixteen weights at a time
    /// are widened to four f32 vectors and scaled, then multiplied into one accumulator per
    /// token.
    #[inline(always)]
    pub(super) fn q8_row<const R: usize>(
        rows: [&[f32]; R],
        w: &[u8],
        s: &[f32],
        group: usize,
    ) -> [f32; R] {
        let mut acc = [f32x4_splat(0.0); R];
        for (g, (wg, &sc)) in w.chunks_exact(group).zip(s).enumerate() {
            let sc = f32x4_splat(sc);
            let xg: [&[f32]; R] = std::array::from_fn(|r| &rows[r][g * group..][..group]);
            for (c, wc) in wg.chunks_exact(16).enumerate() {
                // SAFETY: `wc` is 16 bytes, and each `xg[r][c * 16..]` holds 16 floats
                // (`group` is a multiple of 16); wasm loads need no alignment.
                unsafe {
                    let v = v128_load(wc.as_ptr().cast::<v128>());
                    let (lo, hi) = (i16x8_extend_low_i8x16(v), i16x8_extend_high_i8x16(v));
                    let wf = [
                        f32x4_mul(f32x4_convert_i32x4(i32x4_extend_low_i16x8(lo)), sc),
                        f32x4_mul(f32x4_convert_i32x4(i32x4_extend_high_i16x8(lo)), sc),
                        f32x4_mul(f32x4_convert_i32x4(i32x4_extend_low_i16x8(hi)), sc),
                        f32x4_mul(f32x4_convert_i32x4(i32x4_extend_high_i16x8(hi)), sc),
                    ];
                    for r in 0..R {
                        let p = xg[r].as_ptr().add(c * 16).cast::<v128>();
                        let mut a = acc[r];
                        for (j, wj) in wf.iter().enumerate() {
                            a = f32x4_add(a, f32x4_mul(v128_load(p.add(j)), *wj));
                        }
                        acc[r] = a;
                    }
                }
            }
        }
        std::array::from_fn(|r| {
            let a = acc[r];
            (f32x4_extract_lane::<0>(a) + f32x4_extract_lane::<1>(a))
                + (f32x4_extract_lane::<2>(a) + f32x4_extract_lane::<3>(a))
        })
    }
}

/// The int8 product with AVX2 and FMA, chosen at run time: left to LLVM, the generic loop
/// kept its accumulators on the stack and ran scalar, a query 8x slower than the f32 panels.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;
    use std::sync::OnceLock;

    /// Whether this CPU has AVX2 and FMA (asked once).
    pub(super) fn available() -> bool {
        static HAS: OnceLock<bool> = OnceLock::new();
        *HAS.get_or_init(|| is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"))
    }

    /// Tokens per tile of [`by_tiles`].
    const MR: usize = 4;
    /// Outputs per tile of [`by_tiles`].
    const NR: usize = 2;
    /// Tokens from which [`by_panels`] is the faster: measured on an AMD EPYC (Zen 3), the
    /// tiles were ahead at 12 tokens, the panels by a tenth at 18 and a third at 54.
    const PANEL_MIN_N: usize = 16;

    /// As `super::gemm_q8`, for a `group` that is a multiple of 8 (the caller checked the
    /// shapes).
    ///
    /// # Safety
    /// The CPU must have AVX2 and FMA ([`available`]).
    #[target_feature(enable = "avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn gemm_q8(
        x: &[f32],
        n: usize,
        k: usize,
        w: (&[u8], &[f32], usize),
        bias: &[f32],
        y: &mut [f32],
        ldy: usize,
        m: usize,
    ) {
        if n >= PANEL_MIN_N {
            by_panels(x, n, k, w, bias, y, ldy, m);
        } else {
            by_tiles(x, n, k, w, bias, y, ldy, m);
        }
    }

    /// [`gemm_q8`] for many tokens: each 16 outputs' weights are dequantised once into a
    /// [`super::pack`]ed panel, which the f32 kernel then runs for every token, so that the
    /// dequantising is paid once per weight rather than once per tile of tokens.
    #[target_feature(enable = "avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn by_panels(
        x: &[f32],
        n: usize,
        k: usize,
        (q, scale, group): (&[u8], &[f32], usize),
        bias: &[f32],
        y: &mut [f32],
        ldy: usize,
        m: usize,
    ) {
        const PW: usize = super::NR;
        let groups = k / group;
        let mut panel = vec![0.0f32; k * PW];
        for o in (0..m).step_by(PW) {
            let cols = PW.min(m - o);
            let w = (
                &q[o * k..][..cols * k],
                &scale[o * groups..][..cols * groups],
            );
            dequantise_panel(w, k, group, &mut panel);
            let bias = &bias[o..][..cols];
            super::panel_body::<true, 6>(x, n, k, &panel, bias, &mut y[o..], ldy);
        }
    }

    /// Dequantises the int8 rows `q` (at most 16, each `k` long, row `r`'s scales at
    /// `s[r * k / group..]`) into one [`super::pack`]ed panel: for each input index, the 16
    /// rows' weights side by side, zero past the last row. Eight rows by eight inputs at a
    /// time are widened and scaled as in [`tile`], then transposed in registers.
    #[target_feature(enable = "avx2,fma")]
    fn dequantise_panel((q, s): (&[u8], &[f32]), k: usize, group: usize, panel: &mut [f32]) {
        const PW: usize = super::NR;
        let (groups, rows) = (k / group, q.len() / k);
        assert!(group.is_multiple_of(8) && groups * group == k && panel.len() == k * PW);
        assert!(rows <= PW && q.len() == rows * k && s.len() == rows * groups);
        for half in 0..PW / 8 {
            let live = rows.saturating_sub(half * 8).min(8);
            let mut sc = [_mm256_setzero_ps(); 8];
            let (mut g, mut left) = (0, 0);
            for i in (0..k).step_by(8) {
                if left == 0 {
                    for r in 0..live {
                        sc[r] = _mm256_set1_ps(s[(half * 8 + r) * groups + g]);
                    }
                    (g, left) = (g + 1, group / 8);
                }
                left -= 1;
                let mut v = [_mm256_setzero_ps(); 8];
                for r in 0..live {
                    // SAFETY: `i + 8 <= k` (`k` is a multiple of 8), so the eight bytes lie in
                    // row `half * 8 + r < rows` of `q`.
                    let b = unsafe {
                        _mm_loadl_epi64(q.as_ptr().add((half * 8 + r) * k + i).cast::<__m128i>())
                    };
                    v[r] = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b)), sc[r]);
                }
                for (j, col) in transpose8(v).iter().enumerate() {
                    let out = &mut panel[(i + j) * PW + half * 8..][..8];
                    // SAFETY: `out` holds eight floats.
                    unsafe { _mm256_storeu_ps(out.as_mut_ptr(), *col) };
                }
            }
        }
    }

    /// The transpose of eight rows of eight floats: element `j` of each row, for each `j`.
    #[target_feature(enable = "avx2,fma")]
    fn transpose8(v: [__m256; 8]) -> [__m256; 8] {
        // Pairs of rows interleaved, then fours, within each 128-bit half...
        let t0 = _mm256_unpacklo_ps(v[0], v[1]);
        let t1 = _mm256_unpackhi_ps(v[0], v[1]);
        let t2 = _mm256_unpacklo_ps(v[2], v[3]);
        let t3 = _mm256_unpackhi_ps(v[2], v[3]);
        let t4 = _mm256_unpacklo_ps(v[4], v[5]);
        let t5 = _mm256_unpackhi_ps(v[4], v[5]);
        let t6 = _mm256_unpacklo_ps(v[6], v[7]);
        let t7 = _mm256_unpackhi_ps(v[6], v[7]);
        // ... so that `u0` holds columns 0 (low half) and 4 (high) of rows 0-3, `u4` of rows
        // 4-7, `u1` and `u5` columns 1 and 5, and so on ...
        let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
        let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
        let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
        let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
        let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
        let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
        let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
        let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
        // ... and the halves joined.
        [
            _mm256_permute2f128_ps::<0x20>(u0, u4),
            _mm256_permute2f128_ps::<0x20>(u1, u5),
            _mm256_permute2f128_ps::<0x20>(u2, u6),
            _mm256_permute2f128_ps::<0x20>(u3, u7),
            _mm256_permute2f128_ps::<0x31>(u0, u4),
            _mm256_permute2f128_ps::<0x31>(u1, u5),
            _mm256_permute2f128_ps::<0x31>(u2, u6),
            _mm256_permute2f128_ps::<0x31>(u3, u7),
        ]
    }

    /// [`gemm_q8`] for a few tokens: the output is cut into tiles of `MR` tokens by `NR`
    /// outputs, each of which [`tile`] computes with its accumulators in registers, so that
    /// every eight weights are dequantised once for `MR` tokens and every eight inputs
    /// loaded once for `NR` outputs. Up to 8 token rows against one weight row at a time,
    /// as before, ran at 7-11 GMAC/s on an AMD EPYC (Zen 3), 4 x 2 tiles at about 30 (the
    /// f32 panels: 40-48). Measured no better: 3 x 4 and 6 x 2 (their accumulators
    /// spilled), 3 x 3, 5 x 2 and 6 x 1; 8 x 1 and 12 x 1 dropped to about 22 when `k` is
    /// 1536, where their `x` rows no longer fit in L1.
    #[target_feature(enable = "avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn by_tiles(
        x: &[f32],
        n: usize,
        k: usize,
        (q, scale, group): (&[u8], &[f32], usize),
        bias: &[f32],
        y: &mut [f32],
        ldy: usize,
        m: usize,
    ) {
        let groups = k / group;
        let mut t = 0;
        while t < n {
            let rows = MR.min(n - t);
            let x = &x[t * k..][..rows * k];
            let mut o = 0;
            while o < m {
                let cols = NR.min(m - o);
                let w = (
                    &q[o * k..][..cols * k],
                    &scale[o * groups..][..cols * groups],
                );
                let b = &bias[o..][..cols];
                let y = &mut y[t * ldy + o..][..(rows - 1) * ldy + cols];
                match (rows, cols) {
                    (4, 2) => tile::<4, 2>(x, k, w, group, b, y, ldy),
                    (3, 2) => tile::<3, 2>(x, k, w, group, b, y, ldy),
                    (2, 2) => tile::<2, 2>(x, k, w, group, b, y, ldy),
                    (1, 2) => tile::<1, 2>(x, k, w, group, b, y, ldy),
                    (4, _) => tile::<4, 1>(x, k, w, group, b, y, ldy),
                    (3, _) => tile::<3, 1>(x, k, w, group, b, y, ldy),
                    (2, _) => tile::<2, 1>(x, k, w, group, b, y, ldy),
                    _ => tile::<1, 1>(x, k, w, group, b, y, ldy),
                }
                o += cols;
            }
            t += rows;
        }
    }

    /// `y[r * ldy + c] = x[r] · W[c] + bias[c]` for the `R` token rows of `x` and the `C`
    /// int8 weight rows `q` (each `k` long, row `c`'s scales at `s[c * k / group..]`).
    /// Eight weights at a time are sign-extended to f32 and scaled (`q as f32 * scale`, as
    /// everywhere), then multiplied into one accumulator per token.
    #[target_feature(enable = "avx2,fma")]
    #[allow(clippy::needless_range_loop)]
    fn tile<const R: usize, const C: usize>(
        x: &[f32],
        k: usize,
        (q, s): (&[u8], &[f32]),
        group: usize,
        bias: &[f32],
        y: &mut [f32],
        ldy: usize,
    ) {
        let groups = k / group;
        assert!(group.is_multiple_of(8) && groups * group == k && C <= 4);
        assert!(x.len() >= R * k && q.len() >= C * k && s.len() >= C * groups);
        assert!(bias.len() >= C && y.len() > (R - 1) * ldy + C - 1);
        let mut acc = [[_mm256_setzero_ps(); C]; R];
        let mut sc = [_mm256_setzero_ps(); C];
        // One flat loop, with the scales reloaded at each group's start: a loop per group
        // inside one over groups had LLVM copy all the accumulators at each group's end.
        let (mut g, mut left) = (0, 0);
        for i in (0..k).step_by(8) {
            if left == 0 {
                for c in 0..C {
                    sc[c] = _mm256_set1_ps(s[c * groups + g]);
                }
                (g, left) = (g + 1, group / 8);
            }
            left -= 1;
            // SAFETY: `i + 8 <= k` (`k` is a multiple of 8), so `x[r * k + i..][..8]` lies in
            // `x` for `r < R` and `q[c * k + i..][..8]` in `q` for `c < C` (asserted above);
            // the loads are unaligned ones.
            unsafe {
                let mut xv = [_mm256_setzero_ps(); R];
                for r in 0..R {
                    xv[r] = _mm256_loadu_ps(x.as_ptr().add(r * k + i));
                }
                for c in 0..C {
                    let v = _mm_loadl_epi64(q.as_ptr().add(c * k + i).cast::<__m128i>());
                    let w = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v));
                    let w = _mm256_mul_ps(w, sc[c]);
                    for r in 0..R {
                        acc[r][c] = _mm256_fmadd_ps(xv[r], w, acc[r][c]);
                    }
                }
            }
        }
        for r in 0..R {
            // The (up to) four accumulators' horizontal sums, side by side.
            let mut a = [_mm256_setzero_ps(); 4];
            a[..C].copy_from_slice(&acc[r]);
            let h = _mm256_hadd_ps(_mm256_hadd_ps(a[0], a[1]), _mm256_hadd_ps(a[2], a[3]));
            let sum = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps::<1>(h));
            let mut out = [0.0f32; 4];
            // SAFETY: `out` holds four floats.
            unsafe { _mm_storeu_ps(out.as_mut_ptr(), sum) };
            for c in 0..C {
                y[r * ldy + c] = out[c] + bias[c];
            }
        }
    }
}

/// Dot product with eight partial sums, so that it vectorises without reassociation.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for j in 0..8 {
            acc[j] += x[j] * y[j];
        }
    }
    acc.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(x: &[f32], n: usize, k: usize, w: &[f32], b: &[f32], m: usize) -> Vec<f32> {
        let mut y = vec![0.0; n * m];
        for t in 0..n {
            for o in 0..m {
                y[t * m + o] = b[o] + (0..k).map(|i| x[t * k + i] * w[o * k + i]).sum::<f32>();
            }
        }
        y
    }

    #[test]
    fn gemm_matches_naive_for_ragged_shapes() {
        let mut next = lcg(7);
        let mut rnd = move || next() as f32 / (1u32 << 24) as f32 - 0.5;
        for (n, k, m) in [
            (1, 1, 1),
            (5, 7, 17),
            (4, 16, 16),
            (9, 33, 50),
            (13, 64, 48),
        ] {
            let x: Vec<f32> = (0..n * k).map(|_| rnd()).collect();
            let w: Vec<f32> = (0..m * k).map(|_| rnd()).collect();
            let b: Vec<f32> = (0..m).map(|_| rnd()).collect();
            let mut y = vec![f32::NAN; n * m];
            gemm(&x, n, k, &pack(&w, m, k), &b, &mut y, m);
            for (got, want) in y.iter().zip(naive(&x, n, k, &w, &b, m)) {
                assert!((got - want).abs() < 1e-5, "{n}x{k}x{m}: {got} vs {want}");
            }
        }
    }

    /// A linear congruential generator: the tests' inputs, the same in every run.
    fn lcg(mut seed: u32) -> impl FnMut() -> u32 {
        move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            seed >> 8
        }
    }

    /// `gemm_q8` of random inputs, `n` tokens of `k` by `m` outputs with a scale per `group`
    /// weights, written with a row stride `pad` wider than `m` (as q, k and v share one
    /// buffer), against the f32 product on the dequantised weights; the padding stays
    /// untouched.
    fn check_q8(
        rnd: &mut impl FnMut() -> u32,
        (n, k, m, group): (usize, usize, usize, usize),
        pad: usize,
    ) {
        let x: Vec<f32> = (0..n * k)
            .map(|_| (rnd() % 2001) as f32 / 1000.0 - 1.0)
            .collect();
        let q: Vec<u8> = (0..m * k).map(|_| rnd() as u8).collect();
        let scale: Vec<f32> = (0..m * k / group)
            .map(|_| (rnd() % 100 + 1) as f32 / 1e4)
            .collect();
        let b: Vec<f32> = (0..m).map(|_| (rnd() % 2001) as f32 / 1000.0).collect();
        let w: Vec<f32> = q
            .iter()
            .enumerate()
            .map(|(i, &v)| f32::from(v as i8) * scale[i / group])
            .collect();
        let ldy = m + pad;
        let mut y = vec![f32::NAN; n * ldy];
        gemm_q8(&x, n, k, (&q, &scale, group), &b, &mut y, ldy, m);
        let want = naive(&x, n, k, &w, &b, m);
        for t in 0..n {
            for o in 0..m {
                let (got, want) = (y[t * ldy + o], want[t * m + o]);
                assert!(
                    (got - want).abs() <= 1e-5 * (1.0 + want.abs()),
                    "n {n} k {k} m {m} group {group} at ({t}, {o}): {got} vs {want}"
                );
            }
            assert!(y[t * ldy + m..][..pad].iter().all(|v| v.is_nan()));
        }
    }

    #[test]
    fn int8_gemm_matches_naive_on_dequantised_weights() {
        let mut rnd = lcg(11);
        // (n, k, m, group): groups of 64 as derive.py writes, 8 as the tiny test model, a
        // group that is not a multiple of the lanes, and one scale per row.
        for shape in [
            (1, 64, 3, 64),
            (5, 128, 7, 64),
            (9, 32, 17, 8),
            (4, 24, 5, 6),
            (3, 40, 2, 40),
        ] {
            check_q8(&mut rnd, shape, 3);
        }
    }

    /// Every shape of tile and every remainder the int8 product has: tokens from 1 to past
    /// a few tiles, outputs below, at and past a tile, and groups of 64 (as shipped) and 8.
    #[test]
    fn int8_gemm_matches_naive_for_ragged_shapes() {
        let mut rnd = lcg(5);
        for group in [64, 8] {
            for k in [64, 128, 192] {
                for m in [1, 2, 3, 4, 5, 17] {
                    for n in (1..=25).chain([37]) {
                        check_q8(&mut rnd, (n, k, m, group), 2);
                    }
                }
            }
        }
    }

    /// The int8 product alone on the encoder's shapes (q, k or v; up; down) for a few token
    /// counts, in GMAC/s: both AVX2 kernels, and the f32 panels beside them:
    /// `cargo test --release -p agent-memory-embed -- --ignored --nocapture int8_speed`.
    #[cfg(target_arch = "x86_64")]
    #[test]
    #[ignore = "a measurement, not a check"]
    fn int8_speed() {
        if !avx2::available() {
            return;
        }
        let mut rnd = lcg(3);
        for n in [4, 12, 14, 16, 18, 24, 54] {
            for (k, m) in [(384, 384), (384, 1536), (1536, 384)] {
                let x: Vec<f32> = (0..n * k)
                    .map(|_| (rnd() % 2001) as f32 / 1e3 - 1.0)
                    .collect();
                let q: Vec<u8> = (0..m * k).map(|_| rnd() as u8).collect();
                let scale: Vec<f32> = (0..m * k / 64)
                    .map(|_| (rnd() % 100 + 1) as f32 / 1e4)
                    .collect();
                let w: Vec<f32> = q
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| f32::from(v as i8) * scale[i / 64])
                    .collect();
                let panels = pack(&w, m, k);
                let b = vec![0.0; m];
                let mut y = vec![0.0; n * m];
                // The best of many short trials, the three interleaved: the machine is shared.
                let reps = (20_000_000 / (n * k * m)).max(1);
                let mut best = [f64::INFINITY; 3];
                for _ in 0..100 {
                    for (v, best) in best.iter_mut().enumerate() {
                        let t = std::time::Instant::now();
                        for _ in 0..reps {
                            let (x, w) = (&x[..], (&q[..], &scale[..], 64));
                            match v {
                                // SAFETY: AVX2 and FMA were detected above.
                                0 => unsafe { avx2::by_tiles(x, n, k, w, &b, &mut y, m, m) },
                                // SAFETY: as above.
                                1 => unsafe { avx2::by_panels(x, n, k, w, &b, &mut y, m, m) },
                                _ => gemm(x, n, k, &panels, &b, &mut y, m),
                            }
                            std::hint::black_box(&mut y);
                        }
                        *best = best.min(t.elapsed().as_secs_f64());
                    }
                }
                let [tiles, int8, f32] = best.map(|b| (reps * n * k * m) as f64 / b / 1e9);
                println!(
                    "n {n:2} k {k:4} m {m:4}: int8 tiles {tiles:5.1}, int8 panels {int8:5.1}, \
                     f32 panels {f32:5.1} GMAC/s"
                );
            }
        }
    }

    #[test]
    fn dot_with_tail() {
        let a: Vec<f32> = (0..19).map(|i| i as f32).collect();
        assert_eq!(dot(&a, &a), (0..19).map(|i| (i * i) as f32).sum::<f32>());
    }
}
