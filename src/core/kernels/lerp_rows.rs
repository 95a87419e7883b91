//! Short linear rows of a plane in one call: each row's blend over the other axes (the
//! chain of `simd::lerp`) goes straight into the permute W lerp (`hlerp`), both inlined into
//! one function per ISA and source type for the whole run; f32 results (the caller
//! converts other output types).
//!
//! Row by row through the two dispatching passes, nchw f32 8x64 56->112 spent as much time
//! choosing and entering kernels as computing (75 ns a 112-wide row, a third of it outside
//! the two passes' loops). Same operations in the same order, so the same bits.

use super::hlerp::{self, PermTable};
use super::{SmallCorners, WTable};
use crate::core::dtype::DataType;
use crate::core::simd::{self, Bf16s, F16s, F32s, S32s, S8s, Src, U8s};
use crate::core::taps::FwdTaps;

/// A run of rows: rows `oh0..oh0 + n` of a plane, each the run's corners plus its taps
/// along the row axis, written `od` elements apart from `out`.
pub(super) struct Run<'a> {
    /// The corners of the axes outside the plane.
    pub base: SmallCorners,
    /// The row axis' taps (`None`: an identity axis) and src stride.
    pub h: Option<&'a FwdTaps>,
    pub hs: usize,
    /// The row buffer's first column.
    pub lo: usize,
    pub oh0: usize,
    pub out: *mut f32,
    pub od: usize,
}

/// Rows `0..rows` of `run`: each blends `row.len() - hlerp::SLACK` columns of `src` (of
/// type `dt`, offsets in elements) into `row`, then lerps them along W through `p` (built
/// for `t`), with streaming stores where `nt` (every row's output 64-byte aligned).
///
/// # Safety
/// Every corner plus the row's columns lies in `src`; every row's output is written by
/// this call alone; `p` was built for an ISA this CPU has.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn run(
    dt: DataType,
    src: *const u8,
    row: &mut [f32],
    t: &WTable,
    p: &PermTable,
    rows: usize,
    nt: bool,
    run: &Run<'_>,
) {
    // SAFETY: the caller's contract; each wrapper runs the body on the ISA `p` was built
    // for (16 lanes: AVX-512, 8: AVX2), which the CPU has.
    unsafe {
        let a = (src, row, t, p, rows, nt, run);
        match dt {
            DataType::F32 => by_isa::<F32s>(a),
            DataType::Bf16 => by_isa::<Bf16s>(a),
            DataType::F16 => by_isa::<F16s>(a),
            DataType::S32 => by_isa::<S32s>(a),
            DataType::S8 => by_isa::<S8s>(a),
            DataType::U8 => by_isa::<U8s>(a),
            DataType::F64 => unreachable!("f64 never reaches the f32 kernels"),
        }
    }
}

type Args<'a, 'b> = (
    *const u8,
    &'a mut [f32],
    &'a WTable,
    &'a PermTable,
    usize,
    bool,
    &'a Run<'b>,
);

unsafe fn by_isa<S: Src>(a: Args<'_, '_>) {
    // SAFETY: `run`'s contract; the table's vector width names the ISA it was built for.
    unsafe {
        #[cfg(target_arch = "x86_64")]
        match a.3.lanes {
            16 => return avx512::<S>(a),
            8 => return avx2::<S>(a),
            _ => {}
        }
        body::<S, false>(a)
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn avx512<S: Src>(a: Args<'_, '_>) {
    // SAFETY: `run`'s contract, on a CPU with AVX-512F.
    unsafe { body::<S, true>(a) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn avx2<S: Src>(a: Args<'_, '_>) {
    // SAFETY: `run`'s contract, on a CPU with AVX2.
    unsafe { body::<S, false>(a) }
}

/// `Z`: 512-bit vectors for the two-row blend (the compiler's own stay at 256 bits).
#[inline(always)]
unsafe fn body<S: Src, const Z: bool>((src, row, t, p, rows, nt, run): Args<'_, '_>) {
    // SAFETY: `run`'s contract: the corners and columns lie in `src`, the outputs in `out`.
    unsafe {
        let n = row.len() - hlerp::SLACK;
        let (full, tail) = (p.base.len(), p.tail.i0.len());
        let (base, r) = (&run.base, row.as_mut_ptr());
        // At most three blended axes, the row axis one of them where it has taps.
        debug_assert!(base.m + usize::from(run.h.is_some()) <= 3);
        for i in 0..rows {
            let oh = run.oh0 + i;
            let (ii, ww) = match run.h {
                Some(f) => f.taps(oh),
                None => (&[][..], &[][..]),
            };
            let at = ii.first().map_or(oh, |&i0| i0 as usize) * run.hs + run.lo;
            // The row axis' second tap adds the outermost level (corners in registers: the
            // shared `SmallCorners::push_axis` went through memory, 17% of the run).
            match (base.m, ii.get(1)) {
                (0, None) => vertical::<S, 0, Z>(src, base, at, None, r, n),
                (0, Some(&i1)) => {
                    let tap = (i1 as usize * run.hs + run.lo, ww[0], ww[1]);
                    vertical::<S, 1, Z>(src, base, at, Some(tap), r, n)
                }
                (1, None) => vertical::<S, 1, Z>(src, base, at, None, r, n),
                (1, Some(&i1)) => {
                    let tap = (i1 as usize * run.hs + run.lo, ww[0], ww[1]);
                    vertical::<S, 2, Z>(src, base, at, Some(tap), r, n)
                }
                (_, None) => vertical::<S, 2, Z>(src, base, at, None, r, n),
                (_, Some(&i1)) => {
                    let tap = (i1 as usize * run.hs + run.lo, ww[0], ww[1]);
                    vertical::<S, 3, Z>(src, base, at, Some(tap), r, n)
                }
            }
            let out = run.out.add(i * run.od);
            hlerp::blocks(row.as_ptr(), t, p, out, 0, full, 0, nt);
            if tail > 0 {
                let o = std::slice::from_raw_parts_mut(out.add(full * p.step), tail);
                simd::gather2(row.as_ptr(), &p.tail, o);
            }
        }
    }
}

/// One row's blend over `M` levels into `r[..n]`: the run's corners shifted by `at`, and
/// with `tap` (second offset, weights) the row axis' two taps as the outermost level.
#[inline(always)]
unsafe fn vertical<S: Src, const M: usize, const Z: bool>(
    src: *const u8,
    base: &SmallCorners,
    at: usize,
    tap: Option<(usize, f32, f32)>,
    r: *mut f32,
    n: usize,
) {
    // SAFETY: `body`'s contract: every corner's `n` columns lie in `src`, `r` holds `n`.
    unsafe {
        let mut offs = [0usize; 8];
        let mut w = base.w;
        match tap {
            Some((at1, w0, w1)) => {
                let k = 1 << M.saturating_sub(1);
                for j in 0..k {
                    offs[j] = base.offs[j] + at;
                    offs[k + j] = base.offs[j] + at1;
                }
                w[M.saturating_sub(1)] = [w0, w1];
            }
            None => {
                for (o, b) in offs.iter_mut().zip(&base.offs).take(1 << M) {
                    *o = b + at;
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        if Z && M == 1 && S::F32 {
            let src = src as *const f32;
            return two_rows_avx512(src.add(offs[0]), src.add(offs[1]), w[0], r, n);
        }
        let out = std::slice::from_raw_parts_mut(r, n);
        simd::lerp_body::<S, M>(src, &offs, &w, out)
    }
}

/// `r[l] = a[l] * w0 + b[l] * w1` for `l < n` (`lerp_body`'s one level) in 512-bit vectors.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn two_rows_avx512(a: *const f32, b: *const f32, [w0, w1]: [f32; 2], r: *mut f32, n: usize) {
    // SAFETY: the caller's: `a`, `b` hold `n` readable elements (the tail's loads are masked),
    // `r` `n` writable ones; AVX-512F is enabled in every caller.
    unsafe {
        use std::arch::x86_64::*;
        let (w0, w1) = (_mm512_set1_ps(w0), _mm512_set1_ps(w1));
        let mut l = 0;
        while l + 16 <= n {
            let v = _mm512_add_ps(
                _mm512_mul_ps(_mm512_loadu_ps(a.add(l)), w0),
                _mm512_mul_ps(_mm512_loadu_ps(b.add(l)), w1),
            );
            _mm512_storeu_ps(r.add(l), v);
            l += 16;
        }
        if l < n {
            let m: __mmask16 = (1u32 << (n - l)).wrapping_sub(1) as __mmask16;
            let v = _mm512_add_ps(
                _mm512_mul_ps(_mm512_maskz_loadu_ps(m, a.add(l)), w0),
                _mm512_mul_ps(_mm512_maskz_loadu_ps(m, b.add(l)), w1),
            );
            _mm512_mask_storeu_ps(r.add(l), m, v);
        }
    }
}
