//! Backward linear along long unit-stride rows under oneDNN's coordinate maps: each
//! element's lists and weights computed in the kernel, not read from tables.
//!
//! The row walk of [`super::bwd_stream`] reads per-block permute tables, ~48 bytes per
//! diff_src element at ratios of 2-4: once they no longer stay cached they cost more than the
//! data (1 thread, Zen 4, nchw f32 1x1 358399 <- 798011: 8.4 ns an element, 1.7 at 200000
//! where they fit; a 6.7M-element row planned 100 MB of them). oneDNN's lists and weights
//! are closed forms of the index ([`LinMap`], [`axis::onednn_bwd_lists`],
//! [`axis::onednn_bwd_weight`]), evaluated here in vectors operation for operation. A run is
//! a chunk of one row: its diff_dst columns are first turned into the products `dd * (1 - w)`
//! and `dd * w` (one vector pass into two stack buffers), then each element gathers its
//! group-0 list, then its group-1 list, from them: the reference's `acc = acc + dd * w`
//! from 0, in its order. Tails (under a vector) take the scalar formulas themselves.

use super::super::axis::{self, LinMap};
use super::super::dtype::{load_f32, DataType};
use super::super::reference::{Bufs, Tables};
use super::super::simd::{self, Isa};
use super::super::{Algorithm, Direction, Problem};
use super::Runs;

/// Product columns a chunk may read (two f32 stack buffers of this many, and a window's
/// reach past them).
const COLS: usize = 2048;
/// Most diff_src elements a chunk takes.
const MAX_CHUNK: usize = 1024;
/// Shortest rows taken: on AVX-512, rows whose permute tables (`bwd_perm`) outgrow the
/// last-level cache; on AVX2, whose blocks halve past ratio 2, rows past its L2. 1 thread,
/// Zen 4, nchw f32 1x1, ms, tables -> here: AVX-512 150000 <- 333975 0.20 -> 0.35, 358399 <-
/// 798011 1.6-3.6 -> 0.84, 1000000 <- 1500000 2.6 -> 2.0, 6747554 <- 3373777 14.9 -> 11.3;
/// AVX2 40000 <- 100000 0.31 -> 0.30, 100000 <- 222650 1.8 -> 0.45, 358399 <- 798011 6.3
/// -> 1.7.
const MIN_ROW_AVX512: usize = 1 << 18;
const MIN_ROW_AVX2: usize = 1 << 16;

#[cfg(test)]
thread_local! {
    /// Tests: take rows of any length (plans made on this thread).
    pub(crate) static ANY_ROW: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[derive(Clone, Debug)]
pub(crate) struct LongGeom {
    pub w: usize,
    /// Forward map (weights) and backward map (lists) of `w`.
    pub src_map: LinMap,
    pub dst_map: LinMap,
    /// diff_src elements per chunk (a multiple of 16) and chunks per row.
    pub chunk: usize,
    pub nchunk: usize,
    /// Per chunk, the diff_dst columns its lists read (`c0..c1`, at most [`COLS`]).
    pub cols: Vec<(u32, u32)>,
    /// Longest list of each group.
    pub max_len: [u32; 2],
    /// diff_dst plus diff_src elements a run touches, on average (the thread grain).
    pub run_cost: usize,
    pub runs: usize,
    pub isa: Isa,
}

/// The geometry, or `None` unless the problem is linear backward along a unit-stride last
/// axis of at least [`MIN_ROW_AVX512`] / [`MIN_ROW_AVX2`] diff_src elements, the only resampled axis, under one of
/// oneDNN's rules, f32 or bf16 diff_dst, on AVX-512 or AVX2.
pub(crate) fn plan(p: &Problem, t: &Tables) -> Option<LongGeom> {
    let (s, d) = (&p.src, &p.dst);
    let rank = d.rank();
    let isa = simd::isa();
    if p.direction != Direction::Backward
        || p.alg != Algorithm::Linear
        || rank == 0
        || !matches!(isa, Isa::Avx512 | Isa::Avx2)
        || !matches!(s.dtype, DataType::F32 | DataType::Bf16)
        || d.dtype == DataType::F64
        || (0..rank).any(|a| s.blocks[a] > 1 || d.blocks[a] > 1)
    {
        return None;
    }
    let w = rank - 1;
    let (n_in, n_out) = (d.dims[w], s.dims[w]);
    let min_row = if isa == Isa::Avx512 {
        MIN_ROW_AVX512
    } else {
        MIN_ROW_AVX2
    };
    #[cfg(test)]
    let min_row = if ANY_ROW.with(|c| c.get()) {
        1
    } else {
        min_row
    };
    if t.resampled != [w]
        || s.strides[w] != 1
        || d.strides[w] != 1
        || n_in < min_row
        || n_out == 0
        || n_in.max(n_out) > super::MAX_ROW
    {
        return None;
    }
    let (src_map, dst_map) = axis::onednn_linear_maps(&p.axes[w], n_in, n_out)?;
    let tab = t.bwd[w].as_ref()?;
    if tab.groups != 2 || tab.inputs() != n_in {
        return None;
    }
    let mut max_len = [0u32; 2];
    for x in 0..n_in {
        for (g, m) in max_len.iter_mut().enumerate() {
            *m = (*m).max(tab.group(x, g).0.len() as u32);
        }
    }
    // Columns a chunk of `n` elements spans: about `n * ratio` plus the lists' overlap.
    let span = |n: usize| (n as f64 * n_out as f64 / n_in as f64) as usize + 2 * 16;
    let mut chunk = MAX_CHUNK;
    while chunk > 16 && span(chunk) > COLS {
        chunk /= 2;
    }
    let nchunk = n_in.div_ceil(chunk);
    let mut cols = Vec::with_capacity(nchunk);
    for c in 0..nchunk {
        let (mut lo, mut hi) = (u32::MAX, 0u32);
        for x in c * chunk..((c + 1) * chunk).min(n_in) {
            for g in 0..2 {
                if let (Some(&a), Some(&b)) = (tab.group(x, g).0.first(), tab.group(x, g).0.last())
                {
                    lo = lo.min(a);
                    hi = hi.max(b + 1);
                }
            }
        }
        if lo > hi {
            (lo, hi) = (0, 0);
        }
        if (hi - lo) as usize > COLS {
            return None;
        }
        cols.push((lo, hi));
    }
    let cols_read: usize = cols.iter().map(|&(a, b)| (b - a) as usize).sum();
    Some(LongGeom {
        run_cost: (cols_read / nchunk.max(1) + chunk).max(1),
        w,
        src_map,
        dst_map,
        chunk,
        nchunk,
        cols,
        max_len,
        runs: d.dims[..w]
            .iter()
            .try_fold(nchunk, |n, &k| n.checked_mul(k))?,
        isa,
    })
}

/// Runs `start..end` (chunks of diff_src rows, row-major).
///
/// # Safety
/// Buffers must cover the layouts; run ranges of concurrent calls must be disjoint; the plan's
/// ISA is the CPU's or below.
pub(crate) unsafe fn run(
    p: &Problem,
    t: &Tables,
    g: &LongGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller's contract.
    unsafe {
        match (g.isa, p.src.dtype == DataType::Bf16) {
            (Isa::Avx512, false) => avx512::<false>(p, t, g, b, start, end),
            (Isa::Avx512, true) => avx512::<true>(p, t, g, b, start, end),
            (_, false) => avx2::<false>(p, t, g, b, start, end),
            (_, true) => avx2::<true>(p, t, g, b, start, end),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (p, t, g, b, start, end);
        unreachable!("no long-row walk planned without AVX2");
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn avx512<const BF: bool>(
    p: &Problem,
    t: &Tables,
    g: &LongGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    // SAFETY: the caller's.
    unsafe { walk::<BF, true>(p, t, g, b, start, end) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn avx2<const BF: bool>(
    p: &Problem,
    t: &Tables,
    g: &LongGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    // SAFETY: the caller's.
    unsafe { walk::<BF, false>(p, t, g, b, start, end) }
}

#[repr(C, align(64))]
struct Products([[f32; COLS + 64]; 2]);

/// The chunk walk; `W`: AVX-512 vectors, else AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn walk<const BF: bool, const W: bool>(
    p: &Problem,
    t: &Tables,
    g: &LongGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every column a chunk
    // reads lies in its diff_dst row, and this call's chunks are written by it alone.
    unsafe {
        let (s, d) = (&p.src, &p.dst);
        let (n_in, n_out) = (d.dims[g.w], s.dims[g.w]);
        let direct = d.dtype == DataType::F32 && (b.dst as usize).is_multiple_of(4);
        let mut buf = vec![0f32; if direct { 0 } else { g.chunk }];
        let mut pr = Products([[0.0; COLS + 64]; 2]);
        let mut runs = Runs::new(p, t, &[(g.w, 1, 0, 0)], start / g.nchunk);
        let mut c = start % g.nchunk;
        for _ in start..end {
            let (x0, x1) = (c * g.chunk, ((c + 1) * g.chunk).min(n_in));
            let (c0, c1) = g.cols[c];
            let row = b.src.add(runs.sbase * s.dtype.size());
            products::<BF, W>(g, row, s.dtype, c0 as usize, c1 as usize, &mut pr);
            let out = if direct {
                (b.dst as *mut f32).add(runs.doff + x0)
            } else {
                buf.as_mut_ptr()
            };
            sums::<W>(g, &pr, c0 as usize, c1 as usize, x0, x1, n_in, n_out, out);
            if !direct {
                simd::store_contiguous(
                    d.dtype,
                    p.numerics,
                    &buf[..x1 - x0],
                    b.dst.add((runs.doff + x0) * d.dtype.size()),
                );
            }
            c += 1;
            if c == g.nchunk {
                c = 0;
                runs.advance();
            }
        }
    }
}

/// Columns `c0..c1` of the diff_dst row at `row` into `pr`: `dd * (1 - w)` (group 0) and
/// `dd * w` (group 1), from index 0.
///
/// # Safety
/// AVX-512F (`W`) or AVX2; the columns lie in the row; `c1 - c0 <= COLS`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn products<const BF: bool, const W: bool>(
    g: &LongGeom,
    row: *const u8,
    dt: DataType,
    c0: usize,
    c1: usize,
    pr: &mut Products,
) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's: full vectors inside the columns, the rest one by one.
    unsafe {
        let (p0, p1) = (pr.0[0].as_mut_ptr(), pr.0[1].as_mut_ptr());
        let mut c = c0;
        if W {
            let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            let (half, one) = (_mm512_set1_ps(0.5), _mm512_set1_ps(1.0));
            let (a, bb) = (_mm512_set1_ps(g.src_map.a), _mm512_set1_ps(g.src_map.b));
            let abs = _mm512_set1_epi32(0x7fff_ffff);
            while c + 16 <= c1 {
                let dd = if BF {
                    let h = _mm256_loadu_si256((row as *const u16).add(c) as *const __m256i);
                    _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(h)))
                } else {
                    _mm512_loadu_ps((row as *const f32).add(c))
                };
                let y = _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_set1_epi32(c as i32), lane));
                let sc = _mm512_sub_ps(
                    _mm512_div_ps(_mm512_mul_ps(_mm512_add_ps(y, half), a), bb),
                    half,
                );
                let tr = _mm512_cvtepi32_ps(_mm512_cvttps_epi32(sc));
                let w = _mm512_castsi512_ps(_mm512_and_si512(
                    _mm512_castps_si512(_mm512_sub_ps(sc, tr)),
                    abs,
                ));
                _mm512_store_ps(p0.add(c - c0), _mm512_mul_ps(dd, _mm512_sub_ps(one, w)));
                _mm512_store_ps(p1.add(c - c0), _mm512_mul_ps(dd, w));
                c += 16;
            }
        } else {
            let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            let (half, one) = (_mm256_set1_ps(0.5), _mm256_set1_ps(1.0));
            let (a, bb) = (_mm256_set1_ps(g.src_map.a), _mm256_set1_ps(g.src_map.b));
            let abs = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fff_ffff));
            while c + 8 <= c1 {
                let dd = if BF {
                    let h = _mm_loadu_si128((row as *const u16).add(c) as *const __m128i);
                    _mm256_castsi256_ps(_mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(h)))
                } else {
                    _mm256_loadu_ps((row as *const f32).add(c))
                };
                let y = _mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_set1_epi32(c as i32), lane));
                let sc = _mm256_sub_ps(
                    _mm256_div_ps(_mm256_mul_ps(_mm256_add_ps(y, half), a), bb),
                    half,
                );
                let tr = _mm256_cvtepi32_ps(_mm256_cvttps_epi32(sc));
                let w = _mm256_and_ps(_mm256_sub_ps(sc, tr), abs);
                _mm256_store_ps(p0.add(c - c0), _mm256_mul_ps(dd, _mm256_sub_ps(one, w)));
                _mm256_store_ps(p1.add(c - c0), _mm256_mul_ps(dd, w));
                c += 8;
            }
        }
        while c < c1 {
            let dd = load_f32(row.add(c * dt.size()), dt);
            let w = axis::onednn_bwd_weight(g.src_map, c as i64);
            *p0.add(c - c0) = dd * (1.0 - w);
            *p1.add(c - c0) = dd * w;
            c += 1;
        }
    }
}

/// diff_src elements `x0..x1` into `out` (from `x0`): each the sum of its group-0 list's
/// products, then its group-1 list's, gathered from `pr` (columns from `c0`).
///
/// # Safety
/// AVX-512F (`W`) or AVX2; `out` holds `x1 - x0` values; `pr` holds `c0..c1`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn sums<const W: bool>(
    g: &LongGeom,
    pr: &Products,
    c0: usize,
    c1: usize,
    x0: usize,
    x1: usize,
    n_in: usize,
    n_out: usize,
    out: *mut f32,
) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's; every gather is masked to lanes whose column lies in `c0..c1`.
    unsafe {
        let (p0, p1) = (pr.0[0].as_ptr(), pr.0[1].as_ptr());
        let mut x = x0;
        if W {
            let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            let half = _mm512_set1_ps(0.5);
            let (a, bb) = (_mm512_set1_ps(g.dst_map.a), _mm512_set1_ps(g.dst_map.b));
            let (zero, one) = (_mm512_setzero_si512(), _mm512_set1_epi32(1));
            let on = _mm512_set1_epi32(n_out as i32);
            let last = _mm512_set1_epi32(n_in as i32 - 1);
            let ncols = _mm512_set1_epi32((c1 - c0) as i32);
            let base = _mm512_set1_epi32(c0 as i32);
            let (w32, w64) = (_mm512_set1_epi32(32), _mm512_set1_epi32(64));
            let at = |xi: __m512i| {
                let y = _mm512_cvtepi32_ps(xi);
                _mm512_sub_ps(
                    _mm512_div_ps(_mm512_mul_ps(_mm512_add_ps(y, half), a), bb),
                    half,
                )
            };
            // `ceil_idx` and `after` (0 below zero).
            let ceil = |v: __m512| {
                let t = _mm512_cvttps_epi32(v);
                let up = _mm512_cmp_ps_mask::<_CMP_NEQ_UQ>(_mm512_cvtepi32_ps(t), v);
                let t = _mm512_mask_add_epi32(t, up, t, one);
                _mm512_mask_mov_epi32(
                    t,
                    _mm512_cmp_ps_mask::<_CMP_LT_OQ>(v, _mm512_setzero_ps()),
                    zero,
                )
            };
            let after = |v: __m512| {
                let t = _mm512_add_epi32(_mm512_cvttps_epi32(v), one);
                _mm512_mask_mov_epi32(
                    t,
                    _mm512_cmp_ps_mask::<_CMP_LT_OQ>(v, _mm512_setzero_ps()),
                    zero,
                )
            };
            let clamp = |v: __m512i| _mm512_max_epi32(_mm512_min_epi32(v, on), zero);
            // Element `x`'s lists use the map at `x - 1`, `x` and `x + 1`: each block maps
            // the next block's elements once and shifts its neighbours in (the ceilings and
            // `after`s with them), carried from block to block.
            let xv = |x: usize| _mm512_add_epi32(_mm512_set1_epi32(x as i32), lane);
            let (d0, mut a_prev) = (at(xv(x)), after(at(xv(x.wrapping_sub(16)))));
            let (mut c_cur, mut a_cur) = (ceil(d0), after(d0));
            while x + 16 <= x1 {
                let xi = xv(x);
                let d_nb = at(xv(x + 16));
                let (c_nb, a_nb) = (ceil(d_nb), after(d_nb));
                let c_next = _mm512_alignr_epi32::<1>(c_nb, c_cur);
                let a_before = _mm512_alignr_epi32::<15>(a_cur, a_prev);
                let first = _mm512_cmpeq_epi32_mask(xi, zero);
                let s0 = clamp(_mm512_mask_mov_epi32(c_cur, first, zero));
                let e0 = clamp(_mm512_min_epi32(c_next, on));
                let s1 = clamp(a_before);
                let e1 = _mm512_min_epi32(a_cur, on);
                (a_prev, c_cur, a_cur) = (a_cur, c_nb, a_nb);
                let e1 = clamp(_mm512_mask_mov_epi32(
                    e1,
                    _mm512_cmpeq_epi32_mask(xi, last),
                    on,
                ));
                let mut acc = _mm512_setzero_ps();
                for (st, en, pg, n) in [(s0, e0, p0, g.max_len[0]), (s1, e1, p1, g.max_len[1])] {
                    let rel = _mm512_sub_epi32(st, base);
                    // A window of 64 products from the first lane's start, permuted into
                    // place per list slot, when every live lane's list lies in it: gathers
                    // took 2.4 ms of nchw f32 1x1 358399 <- 798011 on Zen 4, this 0.84.
                    let ws = _mm_cvtsi128_si32(_mm512_castsi512_si128(rel)).max(0);
                    let idx0 = _mm512_sub_epi32(rel, _mm512_set1_epi32(ws));
                    let live = _mm512_cmpgt_epi32_mask(en, st);
                    let outside = _mm512_cmplt_epi32_mask(idx0, zero)
                        | _mm512_cmpgt_epi32_mask(
                            _mm512_sub_epi32(en, _mm512_set1_epi32(ws + c0 as i32)),
                            w64,
                        )
                        | _mm512_cmpgt_epi32_mask(_mm512_sub_epi32(en, base), ncols);
                    if live & outside == 0 {
                        let at = pg.add(ws as usize);
                        let (v0, v1) = (_mm512_loadu_ps(at), _mm512_loadu_ps(at.add(16)));
                        let (v2, v3) = (_mm512_loadu_ps(at.add(32)), _mm512_loadu_ps(at.add(48)));
                        for k in 0..n as i32 {
                            let kk = _mm512_set1_epi32(k);
                            let idx = _mm512_add_epi32(idx0, kk);
                            let lo = _mm512_permutex2var_ps(v0, idx, v1);
                            let hi = _mm512_permutex2var_ps(v2, idx, v3);
                            let v = _mm512_mask_blend_ps(_mm512_test_epi32_mask(idx, w32), lo, hi);
                            let m = _mm512_cmplt_epi32_mask(_mm512_add_epi32(st, kk), en);
                            acc = _mm512_mask_add_ps(acc, m, acc, v);
                        }
                        continue;
                    }
                    for k in 0..n as i32 {
                        let kk = _mm512_set1_epi32(k);
                        let col = _mm512_add_epi32(st, kk);
                        let i = _mm512_add_epi32(rel, kk);
                        let m =
                            _mm512_cmplt_epi32_mask(col, en) & _mm512_cmplt_epu32_mask(i, ncols);
                        let v = _mm512_mask_i32gather_ps::<4>(_mm512_setzero_ps(), m, i, pg);
                        // Masked-off lanes add +0: the sum is never -0 (it starts at +0).
                        acc = _mm512_add_ps(acc, v);
                    }
                }
                _mm512_storeu_ps(out.add(x - x0), acc);
                x += 16;
            }
        } else {
            let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            let half = _mm256_set1_ps(0.5);
            let (a, bb) = (_mm256_set1_ps(g.dst_map.a), _mm256_set1_ps(g.dst_map.b));
            let (zero, one) = (_mm256_setzero_si256(), _mm256_set1_epi32(1));
            let fzero = _mm256_setzero_ps();
            let on = _mm256_set1_epi32(n_out as i32);
            let last = _mm256_set1_epi32(n_in as i32 - 1);
            let ncols = _mm256_set1_epi32((c1 - c0) as i32);
            let base = _mm256_set1_epi32(c0 as i32);
            let neg1 = _mm256_set1_epi32(-1);
            let at = |xi: __m256i| {
                let y = _mm256_cvtepi32_ps(xi);
                _mm256_sub_ps(
                    _mm256_div_ps(_mm256_mul_ps(_mm256_add_ps(y, half), a), bb),
                    half,
                )
            };
            let below = |v: __m256| _mm256_castps_si256(_mm256_cmp_ps::<_CMP_LT_OQ>(v, fzero));
            let ceil = |v: __m256| {
                let t = _mm256_cvttps_epi32(v);
                let up =
                    _mm256_castps_si256(_mm256_cmp_ps::<_CMP_NEQ_UQ>(_mm256_cvtepi32_ps(t), v));
                // `up` is -1 where the value is not an integer: subtracting it adds one.
                let t = _mm256_sub_epi32(t, up);
                _mm256_andnot_si256(below(v), t)
            };
            let after = |v: __m256| {
                let t = _mm256_add_epi32(_mm256_cvttps_epi32(v), one);
                _mm256_andnot_si256(below(v), t)
            };
            let clamp = |v: __m256i| _mm256_max_epi32(_mm256_min_epi32(v, on), zero);
            // As on AVX-512: one map a block, neighbours shifted in (lane rotations).
            let xv = |x: usize| _mm256_add_epi32(_mm256_set1_epi32(x as i32), lane);
            let (up, down) = (
                _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 0),
                _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6),
            );
            let (d0, mut a_prev) = (at(xv(x)), after(at(xv(x.wrapping_sub(8)))));
            let (mut c_cur, mut a_cur) = (ceil(d0), after(d0));
            while x + 8 <= x1 {
                let xi = xv(x);
                let d_nb = at(xv(x + 8));
                let (c_nb, a_nb) = (ceil(d_nb), after(d_nb));
                let c_next = _mm256_blend_epi32::<0x80>(
                    _mm256_permutevar8x32_epi32(c_cur, up),
                    _mm256_permutevar8x32_epi32(c_nb, up),
                );
                let a_before = _mm256_blend_epi32::<0x01>(
                    _mm256_permutevar8x32_epi32(a_cur, down),
                    _mm256_permutevar8x32_epi32(a_prev, down),
                );
                let first = _mm256_cmpeq_epi32(xi, zero);
                let s0 = clamp(_mm256_andnot_si256(first, c_cur));
                let e0 = clamp(_mm256_min_epi32(c_next, on));
                let s1 = clamp(a_before);
                let e1 = _mm256_min_epi32(a_cur, on);
                (a_prev, c_cur, a_cur) = (a_cur, c_nb, a_nb);
                let e1 = clamp(_mm256_blendv_epi8(e1, on, _mm256_cmpeq_epi32(xi, last)));
                let mut acc = fzero;
                for (st, en, pg, n) in [(s0, e0, p0, g.max_len[0]), (s1, e1, p1, g.max_len[1])] {
                    let rel = _mm256_sub_epi32(st, base);
                    for k in 0..n as i32 {
                        let kk = _mm256_set1_epi32(k);
                        let col = _mm256_add_epi32(st, kk);
                        let i = _mm256_add_epi32(rel, kk);
                        let m = _mm256_and_si256(
                            _mm256_cmpgt_epi32(en, col),
                            _mm256_and_si256(
                                _mm256_cmpgt_epi32(ncols, i),
                                _mm256_cmpgt_epi32(i, neg1),
                            ),
                        );
                        let v = _mm256_mask_i32gather_ps::<4>(fzero, pg, i, _mm256_castsi256_ps(m));
                        // Masked-off lanes add +0: the sum is never -0 (it starts at +0).
                        acc = _mm256_add_ps(acc, v);
                    }
                }
                _mm256_storeu_ps(out.add(x - x0), acc);
                x += 8;
            }
        }
        while x < x1 {
            let mut acc = 0f32;
            for (k, (st, en)) in axis::onednn_bwd_lists(g.dst_map, x as i64, n_in, n_out)
                .into_iter()
                .enumerate()
            {
                for col in st..en {
                    // (Always inside: the plan took `c0..c1` from these lists.)
                    let i = (col as usize).wrapping_sub(c0);
                    if i < c1 - c0 {
                        acc += pr.0[k][i];
                    }
                }
            }
            *out.add(x - x0) = acc;
            x += 1;
        }
    }
}
