//! Backward by row streaming.
//!
//! A run is one diff_src row along the streamed axis `w` (the last resampled axis), every
//! other axis fixed; with a lane axis (nhwc, blocked) each row element is a vector of lanes.
//! The reference order per diff_src element is: group combinations (first axis outermost,
//! so `w`'s group fastest), then the outputs of those groups (first axis outermost, so the
//! `w` list innermost), `acc += ((dd * w_a0) * w_a1) …`. Here, for each group combination
//! and each output position of the other axes, the whole diff_dst row is scaled once and
//! then summed into every diff_src element of the row over its `w` list — a contiguous range
//! of diff_dst columns (checked when the plan is built). Per element that is exactly the
//! reference's sequence of products and additions, so the bits are the same; the diff_dst
//! row is read once per group instead of being gathered per diff_src element.

use super::super::dtype::DataType;
use super::super::reference::{odometer, Bufs, Tables};
use super::super::simd::{self, Bf16s, F16s, F32s, S32s, S8s, Src, U8s};
use super::super::taps::BwdTaps;
use super::super::{Algorithm, Direction, Problem, MAX_RANK};
use super::Runs;

/// The `w` lists of one group: diff_src element `iw` sums diff_dst columns
/// `start[iw] .. start[iw] + len[iw]` with weights `wt[wofs[iw] ..]`.
#[derive(Clone, Debug)]
pub(crate) struct Segs {
    pub start: Vec<u32>,
    pub len: Vec<u32>,
    pub wofs: Vec<u32>,
    pub wt: Vec<f32>,
    /// An interior stretch with a fixed shape, for the unrolled loops.
    pub uniform: Option<Uniform>,
}

/// Elements `i0..i1` read `len` columns from `k * iw + c`; weights by column position:
/// `w[j * (i1 - i0) + (iw - i0)]`.
#[derive(Clone, Debug)]
pub(crate) struct Uniform {
    pub i0: usize,
    pub i1: usize,
    pub k: usize,
    pub c: isize,
    pub len: usize,
    pub w: Vec<f32>,
}

/// Lane axis of the streamed rows (identity, unit stride in both tensors).
#[derive(Clone, Debug)]
pub(crate) struct LaneAxis {
    pub c: usize,
    pub block: usize,
    pub nblk: usize,
    pub blk_src: usize,
    pub blk_dst: usize,
}

#[derive(Clone, Debug)]
pub(crate) struct StreamGeom {
    /// Streamed axis: the last resampled axis.
    pub w: usize,
    pub lane: Option<LaneAxis>,
    pub runs: usize,
    /// One entry per group of `w`.
    pub segs: Vec<Segs>,
    /// Weights per diff_dst element (linear: other axes' weights then `w`'s; nearest: 0).
    pub nweights: usize,
}

/// Largest cached scaled-row block (f32 values) of the unlaned walk.
const T_CACHE: usize = 1 << 16;
/// Target accumulator size (f32 values) of a laned run.
const ACC_TARGET: usize = 1 << 14;

/// Builds the `w` segments from its backward table, or `None` when some list is not a
/// contiguous increasing range of outputs (then the per-element gather runs instead).
fn segments(tab: &BwdTaps, n_in: usize, n_out: usize) -> Option<Vec<Segs>> {
    let mut all = Vec::with_capacity(tab.groups);
    for g in 0..tab.groups {
        let mut s = Segs {
            start: Vec::with_capacity(n_in),
            len: Vec::with_capacity(n_in),
            wofs: Vec::with_capacity(n_in),
            wt: Vec::new(),
            uniform: None,
        };
        for iw in 0..n_in {
            let (outs, wts) = tab.group(iw, g);
            let first = outs.first().copied().unwrap_or(0);
            let contiguous = outs
                .iter()
                .enumerate()
                .all(|(j, &o)| o as usize == first as usize + j);
            if !contiguous || first as usize + outs.len() > n_out {
                return None;
            }
            s.start.push(first);
            s.len.push(outs.len() as u32);
            s.wofs.push(u32::try_from(s.wt.len()).ok()?);
            s.wt.extend_from_slice(wts);
        }
        s.uniform = uniform(&s);
        all.push(s);
    }
    Some(all)
}

/// The widest stretch around the middle element where `start = k * iw + c` and the lengths
/// are equal, with `k` and the length in 1..=4.
fn uniform(s: &Segs) -> Option<Uniform> {
    let n = s.start.len();
    if n < 8 {
        return None;
    }
    let mid = n / 2;
    let k = s.start[mid + 1] as i64 - s.start[mid] as i64;
    let len = s.len[mid] as usize;
    if !(1..=4).contains(&k) || !(1..=4).contains(&len) {
        return None;
    }
    let c = s.start[mid] as i64 - k * mid as i64;
    let ok = |iw: usize| s.len[iw] as usize == len && s.start[iw] as i64 == k * iw as i64 + c;
    let (mut i0, mut i1) = (mid, mid + 1);
    while i0 > 0 && ok(i0 - 1) {
        i0 -= 1;
    }
    while i1 < n && ok(i1) {
        i1 += 1;
    }
    if i1 - i0 < 8 {
        return None;
    }
    let m = i1 - i0;
    let mut w = vec![0f32; len * m];
    for q in 0..m {
        let o = s.wofs[i0 + q] as usize;
        for j in 0..len {
            w[j * m + q] = s.wt[o + j];
        }
    }
    Some(Uniform {
        i0,
        i1,
        k: k as usize,
        c: c as isize,
        len,
        w,
    })
}

/// The streaming geometry for a backward problem, or `None` when it does not apply.
/// `lane` is the lane axis of a laned walk; without it, `w` must be the last axis with unit
/// stride in both tensors and nothing blocked.
pub(crate) fn plan(p: &Problem, t: &Tables, lane: Option<LaneAxis>) -> Option<StreamGeom> {
    if p.direction != Direction::Backward
        || p.dst.dtype == DataType::F64
        || p.src.dtype == DataType::F64
    {
        return None;
    }
    let (s, d) = (&p.src, &p.dst);
    let rank = d.rank();
    let w = *t.resampled.last()?;
    let m = t.resampled.len();
    let nweights = if p.alg == Algorithm::Nearest { 0 } else { m };
    if nweights > 3 {
        return None;
    }
    match &lane {
        Some(l) => {
            if w == l.c || (0..rank).any(|a| a != l.c && (s.blocks[a] > 1 || d.blocks[a] > 1)) {
                return None;
            }
        }
        None => {
            if w != rank - 1
                || s.strides[w] != 1
                || d.strides[w] != 1
                || (0..rank).any(|a| s.blocks[a] > 1 || d.blocks[a] > 1)
            {
                return None;
            }
        }
    }
    let segs = segments(t.bwd[w].as_ref()?, d.dims[w], s.dims[w])?;
    let runs = (0..rank)
        .filter(|&a| a != w && lane.as_ref().is_none_or(|l| l.c != a))
        .try_fold(1usize, |n, a| n.checked_mul(d.dims[a]))?
        .checked_mul(lane.as_ref().map_or(1, |l| l.nblk))?;
    Some(StreamGeom {
        w,
        lane,
        runs,
        segs,
        nweights,
    })
}

/// diff_dst elements a run reads (for the thread grain).
pub(crate) fn run_cost(p: &Problem, g: &StreamGeom) -> usize {
    let lanes = g.lane.as_ref().map_or(1, |l| l.block);
    (p.src.dims[g.w] + p.dst.dims[g.w]) * lanes * g.segs.len() * 2
}

/// Runs `start..end` of the streaming kernel.
///
/// # Safety
/// Buffers must cover the layouts; run ranges of concurrent calls must be disjoint.
pub(crate) unsafe fn run(
    p: &Problem,
    t: &Tables,
    g: &StreamGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    match &g.lane {
        Some(l) => laned(p, t, g, l, b, start, end),
        None => unlaned(p, t, g, b, start, end),
    }
}

/// Other resampled axes' lists for group combination `gi` at `idx`, or `None` if one is
/// empty.
#[inline]
fn lists<'a>(
    t: &'a Tables,
    ra: &[usize],
    idx: &[usize],
    gi: &[usize],
) -> Option<[(&'a [u32], &'a [f32]); MAX_RANK]> {
    let mut l: [(&[u32], &[f32]); MAX_RANK] = [(&[], &[]); MAX_RANK];
    for a in 0..ra.len() {
        l[a] = t.bwd[ra[a]].as_ref().unwrap().group(idx[ra[a]], gi[a]);
        if l[a].0.is_empty() {
            return None;
        }
    }
    Some(l)
}

/// Unlaned rows (nchw-like: `w` is the unit-stride last axis).
unsafe fn unlaned(p: &Problem, t: &Tables, g: &StreamGeom, b: Bufs<'_>, start: usize, end: usize) {
    let (s, d) = (&p.src, &p.dst);
    let rank = d.rank();
    let w = g.w;
    let ra: Vec<usize> = t.resampled.iter().copied().filter(|&a| a != w).collect();
    let m = ra.len();
    let (n_out, n_in) = (s.dims[w], d.dims[w]);
    let nearest = p.alg == Algorithm::Nearest;
    // Scaled rows are the source itself when nothing scales or converts them.
    let direct = s.dtype == DataType::F32 && (nearest || m == 0);
    let mut acc = vec![0f32; n_in];
    let mut tbuf: Vec<f32> = Vec::new();
    let mut runs = Runs::new(p, t, &[(w, 1, 0, 0)], start);
    for _ in start..end {
        let idx = runs.pos;
        let (doff, sbase) = (runs.doff, runs.sbase);
        runs.advance();
        acc.fill(0.0);
        let mut gi = [0usize; MAX_RANK];
        loop {
            if let Some(ls) = lists(t, &ra, &idx[..rank], &gi[..m]) {
                let npos: usize = ls[..m].iter().map(|l| l.0.len()).product();
                // Row offsets and weight prefixes of the combination's output positions.
                let row = |q: usize| {
                    let mut rem = q;
                    let mut off = sbase;
                    let mut wv = [1f32; 3];
                    for a in (0..m).rev() {
                        let n = ls[a].0.len();
                        let k = rem % n;
                        rem /= n;
                        off += ls[a].0[k] as usize * s.strides[ra[a]];
                        if a < 3 {
                            wv[a] = ls[a].1[k];
                        }
                    }
                    (off, wv)
                };
                let ms = if nearest { 0 } else { m };
                let cache = !direct && npos.saturating_mul(n_out) <= T_CACHE;
                if cache {
                    tbuf.resize(npos * n_out, 0.0);
                    for q in 0..npos {
                        let (off, wv) = row(q);
                        scale_row(
                            s.dtype,
                            ms,
                            b.src,
                            off,
                            &wv,
                            &mut tbuf[q * n_out..][..n_out],
                        );
                    }
                } else if !direct {
                    tbuf.resize(n_out, 0.0);
                }
                for seg in &g.segs {
                    for q in 0..npos {
                        let tr: *const f32 = if direct {
                            (b.src as *const f32).add(row(q).0)
                        } else if cache {
                            tbuf.as_ptr().add(q * n_out)
                        } else {
                            let (off, wv) = row(q);
                            scale_row(s.dtype, ms, b.src, off, &wv, &mut tbuf[..n_out]);
                            tbuf.as_ptr()
                        };
                        seg_sum(tr, seg, nearest, &mut acc);
                    }
                }
            }
            if !odometer(&mut gi[..m], |a| t.bwd[ra[a]].as_ref().unwrap().groups) {
                break;
            }
        }
        simd::store_contiguous(d.dtype, p.numerics, &acc, b.dst.add(doff * d.dtype.size()));
    }
}

/// `acc[iw] += t[o] (* w)` over each element's column range, in column order.
unsafe fn seg_sum(tr: *const f32, seg: &Segs, nearest: bool, acc: &mut [f32]) {
    let n = acc.len();
    let (lo, hi) = match &seg.uniform {
        Some(u) => {
            seg_uniform(tr, u, nearest, acc.as_mut_ptr().add(u.i0));
            (u.i0, u.i1)
        }
        None => (n, n),
    };
    let scalar = |iw: usize, a: &mut f32| {
        let (st, ln, wo) = (
            seg.start[iw] as usize,
            seg.len[iw] as usize,
            seg.wofs[iw] as usize,
        );
        let mut v = *a;
        for j in 0..ln {
            let x = *tr.add(st + j);
            v += if nearest { x } else { x * seg.wt[wo + j] };
        }
        *a = v;
    };
    for (iw, a) in acc.iter_mut().enumerate().take(lo) {
        scalar(iw, a);
    }
    for (iw, a) in acc.iter_mut().enumerate().skip(hi) {
        scalar(iw, a);
    }
}

/// The uniform stretch: `K` and `L` as constants so the loop vectorises across elements.
#[inline(always)]
unsafe fn seg_uniform_body<const K: usize, const L: usize, const NEAREST: bool>(
    tr: *const f32,
    c: isize,
    i0: usize,
    n: usize,
    w: *const f32,
    acc: *mut f32,
) {
    // Column of element i0 + q is K * (i0 + q) + c >= 0 (checked when the table was built).
    let base = tr.offset((K * i0) as isize + c);
    for q in 0..n {
        let mut v = *acc.add(q);
        let row = base.add(K * q);
        for j in 0..L {
            let x = *row.add(j);
            v += if NEAREST { x } else { x * *w.add(j * n + q) };
        }
        *acc.add(q) = v;
    }
}

unsafe fn seg_uniform(tr: *const f32, u: &Uniform, nearest: bool, acc: *mut f32) {
    macro_rules! isa_fns {
        ($($k:literal, $l:literal);*) => {{
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2")]
            unsafe fn avx2<const K: usize, const L: usize, const N: bool>(
                tr: *const f32, c: isize, i0: usize, n: usize, w: *const f32, acc: *mut f32,
            ) {
                seg_uniform_body::<K, L, N>(tr, c, i0, n, w, acc)
            }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f")]
            unsafe fn avx512<const K: usize, const L: usize, const N: bool>(
                tr: *const f32, c: isize, i0: usize, n: usize, w: *const f32, acc: *mut f32,
            ) {
                seg_uniform_body::<K, L, N>(tr, c, i0, n, w, acc)
            }
            unsafe fn base<const K: usize, const L: usize, const N: bool>(
                tr: *const f32, c: isize, i0: usize, n: usize, w: *const f32, acc: *mut f32,
            ) {
                seg_uniform_body::<K, L, N>(tr, c, i0, n, w, acc)
            }
            let (n, w) = (u.i1 - u.i0, u.w.as_ptr());
            let isa = simd::isa();
            match (u.k, u.len, nearest) {
                $(
                    ($k, $l, true) => match isa {
                        #[cfg(target_arch = "x86_64")]
                        simd::Isa::Avx512 => avx512::<$k, $l, true>(tr, u.c, u.i0, n, w, acc),
                        #[cfg(target_arch = "x86_64")]
                        simd::Isa::Avx2 => avx2::<$k, $l, true>(tr, u.c, u.i0, n, w, acc),
                        _ => base::<$k, $l, true>(tr, u.c, u.i0, n, w, acc),
                    },
                    ($k, $l, false) => match isa {
                        #[cfg(target_arch = "x86_64")]
                        simd::Isa::Avx512 => avx512::<$k, $l, false>(tr, u.c, u.i0, n, w, acc),
                        #[cfg(target_arch = "x86_64")]
                        simd::Isa::Avx2 => avx2::<$k, $l, false>(tr, u.c, u.i0, n, w, acc),
                        _ => base::<$k, $l, false>(tr, u.c, u.i0, n, w, acc),
                    },
                )*
                _ => unreachable!("uniform shapes are 1..=4 by construction"),
            }
        }};
    }
    isa_fns!(1,1; 1,2; 1,3; 1,4; 2,1; 2,2; 2,3; 2,4; 3,1; 3,2; 3,3; 3,4; 4,1; 4,2; 4,3; 4,4)
}

/// `out[i] = ((x[i] * w0) * w1) * w2` with `M` weights, `x` the source row from `off`.
#[inline(always)]
unsafe fn scale_row_body<S: Src, const M: usize>(
    src: *const u8,
    off: usize,
    w: &[f32; 3],
    out: &mut [f32],
) {
    let [w0, w1, w2] = *w;
    for (i, o) in out.iter_mut().enumerate() {
        let x = S::get(src, off + i);
        *o = match M {
            0 => x,
            1 => x * w0,
            2 => (x * w0) * w1,
            _ => ((x * w0) * w1) * w2,
        };
    }
}

/// Instantiates a body generic over `S: Src` and `const M` for each ISA and dispatches on
/// the data type and `m` (0..=3).
macro_rules! multiversion_sm {
    ($name:ident, $body:ident, ($($arg:ident: $ty:ty),*)) => {
        unsafe fn $name(dt: DataType, m: usize, $($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2")]
            unsafe fn avx2<S: Src, const M: usize>($($arg: $ty),*) {
                $body::<S, M>($($arg),*)
            }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f")]
            unsafe fn avx512<S: Src, const M: usize>($($arg: $ty),*) {
                $body::<S, M>($($arg),*)
            }
            unsafe fn base<S: Src, const M: usize>($($arg: $ty),*) {
                $body::<S, M>($($arg),*)
            }
            unsafe fn by_m<S: Src, const M: usize>($($arg: $ty),*) {
                match simd::isa() {
                    #[cfg(target_arch = "x86_64")]
                    simd::Isa::Avx512 => avx512::<S, M>($($arg),*),
                    #[cfg(target_arch = "x86_64")]
                    simd::Isa::Avx2 => avx2::<S, M>($($arg),*),
                    _ => base::<S, M>($($arg),*),
                }
            }
            unsafe fn pick<S: Src>(m: usize, $($arg: $ty),*) {
                match m {
                    0 => by_m::<S, 0>($($arg),*),
                    1 => by_m::<S, 1>($($arg),*),
                    2 => by_m::<S, 2>($($arg),*),
                    _ => by_m::<S, 3>($($arg),*),
                }
            }
            debug_assert!(m <= 3);
            match dt {
                DataType::F32 => pick::<F32s>(m, $($arg),*),
                DataType::Bf16 => pick::<Bf16s>(m, $($arg),*),
                DataType::F16 => pick::<F16s>(m, $($arg),*),
                DataType::S32 => pick::<S32s>(m, $($arg),*),
                DataType::S8 => pick::<S8s>(m, $($arg),*),
                DataType::U8 => pick::<U8s>(m, $($arg),*),
                DataType::F64 => unreachable!("f64 backward runs on the generic path"),
            }
        }
    };
}

multiversion_sm!(scale_row, scale_row_body, (src: *const u8, off: usize, w: &[f32; 3], out: &mut [f32]));

/// One row of a laned walk: for every diff_src pixel `iw`, for each column `o` of its range,
/// `acc[iw][l] += ((x[o][l] * w0) * w1) * ww` with `M` weights in all (the last one is the
/// column's own weight; `M = 0`: plain sum). `x[o][l]` is at `off + o * pstride + l`.
#[inline(always)]
unsafe fn lane_row_body<S: Src, const M: usize>(
    src: *const u8,
    off: usize,
    pstride: usize,
    seg: &Segs,
    w: &[f32; 3],
    nl: usize,
    acc: &mut [f32],
) {
    let [w0, w1, _] = *w;
    let n = seg.start.len();
    for iw in 0..n {
        let (st, ln, wo) = (
            seg.start[iw] as usize,
            seg.len[iw] as usize,
            seg.wofs[iw] as usize,
        );
        let a = &mut acc[iw * nl..(iw + 1) * nl];
        for j in 0..ln {
            let ww = seg.wt[wo + j];
            let p = off + (st + j) * pstride;
            for (l, v) in a.iter_mut().enumerate() {
                let x = S::get(src, p + l);
                *v += match M {
                    0 => x,
                    1 => x * ww,
                    2 => (x * w0) * ww,
                    _ => ((x * w0) * w1) * ww,
                };
            }
        }
    }
}

multiversion_sm!(
    lane_row,
    lane_row_body,
    (src: *const u8, off: usize, pstride: usize, seg: &Segs, w: &[f32; 3], nl: usize, acc: &mut [f32])
);

/// Laned rows (nhwc, blocked): vectors over the lane axis per pixel.
unsafe fn laned(
    p: &Problem,
    t: &Tables,
    g: &StreamGeom,
    la: &LaneAxis,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    let (s, d) = (&p.src, &p.dst);
    let rank = d.rank();
    let w = g.w;
    let ra: Vec<usize> = t.resampled.iter().copied().filter(|&a| a != w).collect();
    let m = ra.len();
    let n_in = d.dims[w];
    let dsz = d.dtype.size();
    let cdim = d.dims[la.c];
    let (pss, pds) = (s.strides[w], d.strides[w]);
    let chunk = (ACC_TARGET / n_in.max(1))
        .clamp(16, 256)
        .min(la.block.max(1));
    let mut acc = vec![0f32; n_in * chunk];
    let mut runs = Runs::new(
        p,
        t,
        &[(la.c, la.nblk, la.blk_dst, la.blk_src), (w, 1, 0, 0)],
        start,
    );
    for _ in start..end {
        let blk = runs.pos[la.c];
        let idx = runs.pos;
        let valid = la.block.min(cdim - (blk * la.block).min(cdim));
        let (doff, sbase) = (runs.doff, runs.sbase);
        runs.advance();
        let mut l0 = 0;
        while l0 < valid {
            let nl = chunk.min(valid - l0);
            let acc = &mut acc[..n_in * nl];
            acc.fill(0.0);
            let mut gi = [0usize; MAX_RANK];
            loop {
                if let Some(ls) = lists(t, &ra, &idx[..rank], &gi[..m]) {
                    for seg in &g.segs {
                        let mut pos = [0usize; MAX_RANK];
                        loop {
                            let mut off = sbase + l0;
                            let mut wv = [1f32; 3];
                            for a in 0..m {
                                off += ls[a].0[pos[a]] as usize * s.strides[ra[a]];
                                if a < 3 {
                                    wv[a] = ls[a].1[pos[a]];
                                }
                            }
                            lane_row(s.dtype, g.nweights, b.src, off, pss, seg, &wv, nl, acc);
                            if !odometer(&mut pos[..m], |a| ls[a].0.len()) {
                                break;
                            }
                        }
                    }
                }
                if !odometer(&mut gi[..m], |a| t.bwd[ra[a]].as_ref().unwrap().groups) {
                    break;
                }
            }
            if pds == nl {
                simd::store_contiguous(d.dtype, p.numerics, acc, b.dst.add((doff + l0) * dsz));
            } else {
                for iw in 0..n_in {
                    simd::store_contiguous(
                        d.dtype,
                        p.numerics,
                        &acc[iw * nl..(iw + 1) * nl],
                        b.dst.add((doff + iw * pds + l0) * dsz),
                    );
                }
            }
            l0 += nl;
        }
        if valid < la.block {
            let pad = la.block - valid;
            for iw in 0..n_in {
                std::ptr::write_bytes(b.dst.add((doff + iw * pds + valid) * dsz), 0, pad * dsz);
            }
        }
    }
}
