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
                let out = &mut y[(t + r) * m + p * NR..][..cols];
                for ((o, a), b) in out.iter_mut().zip(acc).zip(&bias[p * NR..]) {
                    *o = a + b;
                }
            }
            t += rows;
        }
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
        let mut seed = 7u32;
        let mut rnd = move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        };
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

    #[test]
    fn dot_with_tail() {
        let a: Vec<f32> = (0..19).map(|i| i as f32).collect();
        assert_eq!(dot(&a, &a), (0..19).map(|i| (i * i) as f32).sum::<f32>());
    }
}
