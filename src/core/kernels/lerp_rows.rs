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
use std::marker::PhantomData;

/// Row buffer elements before column 0: [`hlerp::RowPairs`] pads column -1, and whole
/// vectors keep the blend's stores aligned.
pub(super) const FRONT: usize = 8;

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
    /// `(element size, bytes)`: prefetch the src rows of the row `AHEAD` rows on, this many
    /// bytes from each corner's first column (sources larger than a core's cache share).
    pub prefetch: Option<(usize, usize)>,
    /// An f32 source within a core's L2: rows with nothing to blend read it in place.
    pub in_place: bool,
}

/// Shortest row (columns) read in place ([`Run::in_place`]); shorter ones lose more to the
/// second pass over the blocks than the copy costs. 1 thread, AVX-512, in place / copied:
/// ncw f32 1x4 6808->2269 0.69, 1x8 2000->700 0.82-0.92, 2x16 600->1200 0.87-0.89, 2x16
/// 300->100 0.93; 1x32 151->300 1.01-1.13, 4x16 80->170 1.07. Sources beyond the L2 lost
/// (nchw 4x16 100x300->100x150 1.48, 8x64 56x56->56x112 1.17): the copy streams them.
const IN_PLACE_MIN: usize = 256;

/// Rows ahead whose src rows [`Run::prefetch`] fetches.
const AHEAD: usize = 4;

/// Prefetches the src rows that output row `oh + AHEAD` of the row axis `f` reads (row
/// stride `hs`): `bytes` from column `lo` at each corner offset in `offs`, elements of `sz`
/// bytes. The hardware prefetchers stop at every 4 KiB page and lose short rows' stream
/// where downsampling skips rows.
///
/// # Safety
/// Every corner plus those rows' columns lies in `src` (as for the rows themselves).
#[inline]
pub(super) unsafe fn prefetch_ahead(
    src: *const u8,
    f: &FwdTaps,
    oh: usize,
    offs: &[usize],
    hs: usize,
    lo: usize,
    (sz, bytes): (usize, usize),
) {
    if oh + AHEAD >= f.outputs() {
        return;
    }
    for &i in f.taps(oh + AHEAD).0 {
        for o in offs {
            let at = o + i as usize * hs + lo;
            // SAFETY: the caller's contract.
            simd::prefetch_span::<false>(unsafe { src.add(at * sz) }, bytes);
        }
    }
}

/// Rows `0..rows` of `run`: each blends `row.len() - FRONT - hlerp::SLACK` columns of `src`
/// (of type `dt`, offsets in elements) into `row` from `FRONT` on, then lerps them along W
/// through `p` (built for `t`), with streaming stores where `nt` (every row's output 64-byte
/// aligned).
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
    // SAFETY: the caller's contract; the table's vector width names the ISA it was built
    // for (16 lanes: AVX-512, 8: AVX2), which the CPU has, and each wrapper runs the body
    // under that ISA's features.
    unsafe {
        let a = (src, row, t, p, rows, nt, run);
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{__m256, __m512};
            use vec::Vectors;
            match (p.lanes, dt) {
                (16, DataType::F32) => return avx512::<Vectors<__m512, F32s>>(a),
                (16, DataType::Bf16) => return avx512::<Vectors<__m512, Bf16s>>(a),
                (16, DataType::U8) => return avx512::<Vectors<__m512, U8s>>(a),
                (16, DataType::S8) => return avx512::<Vectors<__m512, S8s>>(a),
                (16, DataType::F16) => return avx512::<Plain<F16s>>(a),
                (16, DataType::S32) => return avx512::<Plain<S32s>>(a),
                (8, DataType::F32) => return avx2::<Vectors<__m256, F32s>>(a),
                (8, DataType::Bf16) => return avx2::<Vectors<__m256, Bf16s>>(a),
                (8, DataType::U8) => return avx2::<Vectors<__m256, U8s>>(a),
                (8, DataType::S8) => return avx2::<Vectors<__m256, S8s>>(a),
                (8, DataType::F16) => return avx2::<Plain<F16s>>(a),
                (8, DataType::S32) => return avx2::<Plain<S32s>>(a),
                _ => {}
            }
        }
        #[cfg(target_arch = "aarch64")]
        if (p.lanes, dt) == (4, DataType::F32) {
            use std::arch::aarch64::float32x4_t;
            return body::<vec::Vectors<float32x4_t, F32s>>(a);
        }
        match dt {
            DataType::F32 => body::<Plain<F32s>>(a),
            DataType::Bf16 => body::<Plain<Bf16s>>(a),
            DataType::F16 => body::<Plain<F16s>>(a),
            DataType::S32 => body::<Plain<S32s>>(a),
            DataType::S8 => body::<Plain<S8s>>(a),
            DataType::U8 => body::<Plain<U8s>>(a),
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

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn avx512<B: Blend>(a: Args<'_, '_>) {
    // SAFETY: `run`'s contract, on a CPU with AVX-512F.
    unsafe { body::<B>(a) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn avx2<B: Blend>(a: Args<'_, '_>) {
    // SAFETY: `run`'s contract, on a CPU with AVX2.
    unsafe { body::<B>(a) }
}

/// One row's blend over `M` levels into `n` f32 at `r`: corners `base[k] + px.0`, and with
/// `PX2` the row axis' two taps as the outermost level (`base[k] + px.1` for the upper
/// half, weights `px.2`, `px.3`).
trait Blend {
    unsafe fn row<const M: usize, const PX2: bool>(
        src: *const u8,
        base: &[usize; 8],
        w: &[[f32; 2]; 3],
        px: (usize, usize, f32, f32),
        r: *mut f32,
        n: usize,
    );
}

/// The generic chain (`simd::lanes_row_body`, the lanes kernel's generic pixel row),
/// vectorised by the compiler.
struct Plain<S>(PhantomData<S>);

impl<S: Src> Blend for Plain<S> {
    #[inline(always)]
    unsafe fn row<const M: usize, const PX2: bool>(
        src: *const u8,
        base: &[usize; 8],
        w: &[[f32; 2]; 3],
        px: (usize, usize, f32, f32),
        r: *mut f32,
        n: usize,
    ) {
        // SAFETY: `Blend`'s contract: every corner's `n` elements lie in `src`, `r` holds `n`.
        unsafe {
            let out = std::slice::from_raw_parts_mut(r, n);
            simd::lanes_row_body::<S, M>(src, base, w, &[px], PX2, out)
        }
    }
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod vec {
    use super::Blend;
    use crate::core::simd::vectors::{pixel_row, F32Out, FVec, Widen};
    use std::marker::PhantomData;

    /// Explicit vectors of `V` loading `L` (`simd::vectors`: AVX-512 and AVX2 for f32,
    /// bf16, u8, s8, NEON for f32): a row is one pixel of `n` lanes (the compiler's own
    /// loops kept AVX-512 at 256 bits and finished bf16 rows of 56 four lanes at a time).
    pub(super) struct Vectors<V, L>(PhantomData<(V, L)>);

    impl<V: FVec, L: Widen<V>> Blend for Vectors<V, L> {
        #[inline(always)]
        unsafe fn row<const M: usize, const PX2: bool>(
            src: *const u8,
            base: &[usize; 8],
            w: &[[f32; 2]; 3],
            px: (usize, usize, f32, f32),
            r: *mut f32,
            n: usize,
        ) {
            // SAFETY: `Blend`'s contract; the caller runs under `V`'s target features.
            unsafe {
                pixel_row::<V, L, F32Out, M, PX2, false>(
                    src,
                    base,
                    w,
                    &[px],
                    n,
                    r as *mut u8,
                    0,
                    F32Out,
                )
            }
        }
    }
}

#[inline(always)]
unsafe fn body<B: Blend>((src, row, t, p, rows, nt, run): Args<'_, '_>) {
    // SAFETY: `run`'s contract: the corners and columns lie in `src`, the outputs in `out`.
    unsafe {
        let n = row.len() - FRONT - hlerp::SLACK;
        let (full, tail) = (p.base.len(), p.tail.i0.len());
        let (base, r) = (&run.base, row.as_mut_ptr().add(FRONT));
        let (offs, w) = (&base.offs, &base.w);
        // At most three blended axes, the row axis one of them where it has taps.
        debug_assert!(base.m + usize::from(run.h.is_some()) <= 3);
        // An f32 row with nothing to blend is the src row itself: the blocks whose windows
        // lie inside it read it there, and only the columns the rest read are copied to the
        // buffer. AVX2 row pairs read the padded column -1: those rows take the buffer.
        let inside = (run.in_place && base.m == 0 && p.row_pairs.is_none() && n >= IN_PLACE_MIN)
            .then(|| p.inside(n));
        for i in 0..rows {
            let oh = run.oh0 + i;
            let (ii, ww) = match run.h {
                Some(f) => f.taps(oh),
                None => (&[][..], &[][..]),
            };
            if let (Some(pf), Some(f)) = (run.prefetch, run.h) {
                prefetch_ahead(src, f, oh, &offs[..1 << base.m], run.hs, run.lo, pf);
            }
            let at = ii.first().map_or(oh, |&i0| i0 as usize) * run.hs + run.lo;
            // The row axis' second tap adds the outermost level (corners in registers: the
            // shared `SmallCorners::push_axis` went through memory, 17% of the run).
            let px = match ii.get(1) {
                Some(&i1) => (at, i1 as usize * run.hs + run.lo, ww[0], ww[1]),
                None => (at, 0, 1.0, 0.0),
            };
            let out = run.out.add(i * run.od);
            match (inside, ii.len() > 1) {
                (Some((ks, c0)), false) => {
                    let at = px.0 + offs[0];
                    hlerp::blocks((src as *const f32).add(at), t, p, out, 0, ks, 0, nt);
                    if c0 < n {
                        let px = (px.0 + c0, 0, 1.0, 0.0);
                        B::row::<0, false>(src, offs, w, px, r.add(c0), n - c0);
                    }
                    hlerp::blocks(r, t, p, out.add(ks * p.step), ks, full, 0, nt);
                }
                _ => {
                    match (base.m, ii.len() > 1) {
                        (0, false) => B::row::<0, false>(src, offs, w, px, r, n),
                        (0, true) => B::row::<1, true>(src, offs, w, px, r, n),
                        (1, false) => B::row::<1, false>(src, offs, w, px, r, n),
                        (1, true) => B::row::<2, true>(src, offs, w, px, r, n),
                        (_, false) => B::row::<2, false>(src, offs, w, px, r, n),
                        (_, true) => B::row::<3, true>(src, offs, w, px, r, n),
                    }
                    match &p.row_pairs {
                        // Only AVX2 tables have them.
                        #[cfg(target_arch = "x86_64")]
                        Some(rp) => {
                            rp.pad(r);
                            hlerp::pairs_row(r, rp, out, full * p.step, nt)
                        }
                        _ => hlerp::blocks(r, t, p, out, 0, full, 0, nt),
                    }
                }
            }
            if tail > 0 {
                let o = std::slice::from_raw_parts_mut(out.add(full * p.step), tail);
                simd::gather2(r, &p.tail, o);
            }
        }
    }
}
