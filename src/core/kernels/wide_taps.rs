//! The W pass of rows whose outputs read more than two columns (antialiased downsampling)
//! or a varying number of them: `out[o] = Σ_k row[idx_k] * w_k` in tap order, as vector
//! gathers over 16 outputs at a time.
//!
//! The table is tap-major per block of 16 outputs, padded to the block's widest output;
//! a lane's padding taps are masked off (adding `x * 0` is not neutral: it turns -0 into
//! +0 and infinities into NaN), so every output gets exactly the scalar sum's bits.

use super::FwdTaps;
use crate::core::simd::isa;
#[cfg(any(test, target_arch = "x86_64"))]
use crate::core::simd::Isa;

/// Outputs per block (one AVX-512 vector, two AVX2 ones).
const L: usize = 16;

/// Tap-major W table, columns relative to the row buffer's first column.
#[derive(Clone, Debug)]
pub(crate) struct WideTaps {
    /// Outputs.
    n: usize,
    /// Per block: its first entry (an entry is `L` lanes) and its tap count.
    blocks: Vec<(u32, u32)>,
    /// `L` columns per entry (padding: the lane's first column, always readable).
    idx: Vec<i32>,
    /// `L` weights per entry (padding 0, masked off anyway).
    wt: Vec<f32>,
    /// Taps per output, `L` per block.
    count: Vec<i32>,
}

impl WideTaps {
    /// The table of `taps` with columns counted from `lo`; `None` when a column or a count
    /// does not fit an `i32` (the gathers' index type).
    pub fn new(taps: &FwdTaps, lo: usize) -> Option<Self> {
        let n = taps.outputs();
        let nb = n.div_ceil(L);
        let mut t = WideTaps {
            n,
            blocks: Vec::with_capacity(nb),
            idx: Vec::new(),
            wt: Vec::new(),
            count: vec![0; nb * L],
        };
        for b in 0..nb {
            let outs = b * L..((b + 1) * L).min(n);
            let k = outs
                .clone()
                .map(|o| taps.taps(o).0.len())
                .max()
                .unwrap_or(0);
            t.blocks
                .push((u32::try_from(t.idx.len() / L).ok()?, u32::try_from(k).ok()?));
            for j in 0..k {
                for lane in 0..L {
                    let (ii, ww) = match b * L + lane {
                        o if o < n => taps.taps(o),
                        _ => (&[][..], &[][..]),
                    };
                    let col = ii.get(j).or(ii.first()).map_or(Some(0), |&i| {
                        (i as usize)
                            .checked_sub(lo)
                            .and_then(|c| i32::try_from(c).ok())
                    })?;
                    t.idx.push(col);
                    t.wt.push(ww.get(j).copied().unwrap_or(0.0));
                }
            }
            for o in outs {
                t.count[o] = i32::try_from(taps.taps(o).0.len()).ok()?;
            }
        }
        Some(t)
    }

    pub fn outputs(&self) -> usize {
        self.n
    }

    /// Fills `out[..self.outputs()]`.
    ///
    /// # Safety
    /// `row` covers every column the table names (`lo` of [`WideTaps::new`] at `row[0]`).
    pub unsafe fn gather(&self, row: *const f32, out: &mut [f32]) {
        assert!(out.len() >= self.n);
        // SAFETY: the caller's contract on `row`; `out` holds `n` outputs (checked); the
        // vector variants run only under the ISA `isa()` reports.
        unsafe {
            match isa() {
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 => x86::avx512(self, row, out.as_mut_ptr()),
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2 => x86::avx2(self, row, out.as_mut_ptr()),
                _ => self.scalar(row, out),
            }
        }
    }

    /// Tap by tap in the scalar order (the reference's).
    unsafe fn scalar(&self, row: *const f32, out: &mut [f32]) {
        for (b, &(e0, k)) in self.blocks.iter().enumerate() {
            for lane in 0..L.min(self.n - b * L) {
                let o = b * L + lane;
                let at = |j: usize| (e0 as usize + j) * L + lane;
                // SAFETY: columns the table names lie in `row` (the caller's contract).
                let v = |j: usize| unsafe { *row.add(self.idx[at(j)] as usize) } * self.wt[at(j)];
                let mut acc = v(0);
                for j in 1..(self.count[o] as usize).min(k as usize) {
                    acc += v(j);
                }
                out[o] = acc;
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{WideTaps, L};
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn avx512(t: &WideTaps, row: *const f32, out: *mut f32) {
        // SAFETY: `gather`'s contract: every column the table names (padding included) lies
        // in `row`; `out` holds `t.n` outputs, and the last block's store is masked to them.
        unsafe {
            let (idx, wt) = (t.idx.as_ptr(), t.wt.as_ptr());
            for (b, &(e0, k)) in t.blocks.iter().enumerate() {
                let e0 = e0 as usize;
                let count = _mm512_loadu_si512(t.count.as_ptr().add(b * L).cast());
                let i = _mm512_loadu_si512(idx.add(e0 * L).cast());
                let w = _mm512_loadu_ps(wt.add(e0 * L));
                let mut acc = _mm512_mul_ps(_mm512_i32gather_ps::<4>(i, row.cast()), w);
                for j in 1..k as usize {
                    let m = _mm512_cmpgt_epi32_mask(count, _mm512_set1_epi32(j as i32));
                    let i = _mm512_loadu_si512(idx.add((e0 + j) * L).cast());
                    let w = _mm512_loadu_ps(wt.add((e0 + j) * L));
                    let v = _mm512_mask_i32gather_ps::<4>(_mm512_setzero_ps(), m, i, row.cast());
                    acc = _mm512_mask_add_ps(acc, m, acc, _mm512_mul_ps(v, w));
                }
                let left = t.n - b * L;
                if left >= L {
                    _mm512_storeu_ps(out.add(b * L), acc);
                } else {
                    _mm512_mask_storeu_ps(out.add(b * L), (1u16 << left) - 1, acc);
                }
            }
        }
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn avx2(t: &WideTaps, row: *const f32, out: *mut f32) {
        // SAFETY: as `avx512`; each block runs as two halves of 8 lanes.
        unsafe {
            let (idx, wt) = (t.idx.as_ptr(), t.wt.as_ptr());
            let lane_no = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            for (b, &(e0, k)) in t.blocks.iter().enumerate() {
                let e0 = e0 as usize;
                for h in [0, 8] {
                    let first = b * L + h;
                    if first >= t.n {
                        break;
                    }
                    let count = _mm256_loadu_si256(t.count.as_ptr().add(first).cast());
                    let at = |j: usize| (e0 + j) * L + h;
                    let i = _mm256_loadu_si256(idx.add(at(0)).cast());
                    let w = _mm256_loadu_ps(wt.add(at(0)));
                    let mut acc = _mm256_mul_ps(_mm256_i32gather_ps::<4>(row, i), w);
                    for j in 1..k as usize {
                        let m = _mm256_castsi256_ps(_mm256_cmpgt_epi32(
                            count,
                            _mm256_set1_epi32(j as i32),
                        ));
                        let i = _mm256_loadu_si256(idx.add(at(j)).cast());
                        let w = _mm256_loadu_ps(wt.add(at(j)));
                        let v = _mm256_mask_i32gather_ps::<4>(_mm256_setzero_ps(), row, i, m);
                        acc = _mm256_blendv_ps(acc, _mm256_add_ps(acc, _mm256_mul_ps(v, w)), m);
                    }
                    let left = t.n - first;
                    if left >= 8 {
                        _mm256_storeu_ps(out.add(first), acc);
                    } else {
                        let m = _mm256_cmpgt_epi32(_mm256_set1_epi32(left as i32), lane_no);
                        _mm256_maskstore_ps(out.add(first), m, acc);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::simd::with_isa;

    /// Every ISA gives the scalar loop's bits, padding lanes and special values included.
    #[test]
    fn matches_the_scalar_sum_on_every_isa() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for case in 0..300 {
            let n_in = 1 + (next() % 200) as usize;
            let n_out = 1 + (next() % 70) as usize;
            let lo = (next() % 3) as usize;
            let maxk = 1 + (next() % 9) as usize;
            let taps = FwdTaps::from_fn(n_out, |_, v| {
                for _ in 0..1 + next() as usize % maxk {
                    let w = ((next() % 2001) as f32 - 1000.0) / 997.0;
                    v.push(((lo + next() as usize % n_in) as u32, w));
                }
            });
            let mut row: Vec<f32> = (0..n_in)
                .map(|_| ((next() % 20001) as f32 - 10000.0) / 77.0)
                .collect();
            for _ in 0..next() % 4 {
                let i = next() as usize % n_in;
                row[i] = [-0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN][next() as usize % 4];
            }
            let want: Vec<f32> = (0..n_out)
                .map(|o| {
                    let (ii, ww) = taps.taps(o);
                    let mut acc = row[ii[0] as usize - lo] * ww[0];
                    for k in 1..ii.len() {
                        acc += row[ii[k] as usize - lo] * ww[k];
                    }
                    acc
                })
                .collect();
            let t = WideTaps::new(&taps, lo).unwrap();
            for i in [Isa::Avx512, Isa::Avx2, Isa::Base] {
                let mut out = vec![7.0f32; n_out + 1];
                // SAFETY: the table's columns lie in `row` (drawn below `n_in`).
                with_isa(i, || unsafe { t.gather(row.as_ptr(), &mut out) });
                let same = out[..n_out]
                    .iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "case {case} {i:?}: {:?} vs {want:?}", &out[..n_out]);
                assert_eq!(out[n_out], 7.0, "case {case} {i:?}: wrote past the outputs");
            }
        }
    }
}
