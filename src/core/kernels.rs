//! Optimised kernels. Each computes exactly what [`super::reference`] computes, in the same
//! float operation order, but streams memory along the contiguous axis:
//! - `lanes`: an identity axis contiguous in src and dst (nhwc channels, the 8/16 lanes of a
//!   blocked layout) is the SIMD axis; per output pixel the corner offsets and weights are
//!   fixed, and the nested reduction runs over all lanes at once;
//! - `rows`: a unit-stride resampled last axis (nchw W): the other resampled axes are blended
//!   into a row buffer (first axis innermost, as the reference), then W is gathered.

use super::dtype::{bf16_to_f32, f32_to_bf16, load_f32, store_f32, DataType, Numerics};
use super::plan::Strategy;
use super::reference::{odometer, post_ops, Bufs, Tables};
use super::{Algorithm, Direction, Problem, MAX_RANK};

/// Lanes processed per inner chunk (keeps partial sums in L1).
const LCH: usize = 128;

/// Geometry of the `lanes` kernel.
#[derive(Clone, Debug)]
pub(crate) struct LaneGeom {
    /// Logical axis walked by the lanes.
    pub c: usize,
    /// Lanes per run (the block, or the whole axis when unblocked).
    pub block: usize,
    /// Runs along `c` (blocks; 1 when unblocked).
    pub nblk: usize,
    pub blk_src: usize,
    pub blk_dst: usize,
    /// Total runs: `nblk` times the product of the other axes' output sizes.
    pub runs: usize,
}

/// Geometry of the `rows` kernel.
#[derive(Clone, Debug)]
pub(crate) struct RowGeom {
    pub runs: usize,
    pub out_w: usize,
    /// Input columns the W taps read: a contiguous range `lo..=hi`, or `None` when they are
    /// sparse enough (strong downsampling) that blending the whole range would waste work.
    pub range: Option<(usize, usize)>,
}

pub(crate) fn choose(p: &Problem, t: &Tables) -> Strategy {
    let rank = p.src.rank();
    let (s, d) = (&p.src, &p.dst);
    if p.direction == Direction::Backward && d.dtype == DataType::F64 {
        return Strategy::Generic;
    }
    let blocked_axes: Vec<usize> = (0..rank)
        .filter(|&a| s.blocks[a] > 1 || d.blocks[a] > 1)
        .collect();
    // Lane axis candidates: identity, contiguous in both tensors.
    let mut lane: Option<LaneGeom> = None;
    for c in 0..rank {
        if t.fwd[c].is_some() || t.bwd[c].is_some() {
            continue;
        }
        let others_plain = blocked_axes.iter().all(|&a| a == c);
        let geom = if s.blocks[c] > 1
            && s.blocks[c] == d.blocks[c]
            && s.inner_strides[c] == 1
            && d.inner_strides[c] == 1
        {
            let b = s.blocks[c];
            Some((b, d.padded[c] / b, s.strides[c], d.strides[c]))
        } else if s.blocks[c] == 1 && d.blocks[c] == 1 && s.strides[c] == 1 && d.strides[c] == 1 {
            Some((d.dims[c], 1, 0, 0))
        } else {
            None
        };
        if let (true, Some((block, nblk, blk_src, blk_dst))) = (others_plain, geom) {
            if lane.as_ref().is_none_or(|l| block > l.block) {
                let others: usize = (0..rank).filter(|&a| a != c).map(|a| d.dims[a]).product();
                lane = Some(LaneGeom {
                    c,
                    block,
                    nblk,
                    blk_src,
                    blk_dst,
                    runs: nblk * others,
                });
            }
        }
    }
    let w = rank - 1;
    let rows_ok = p.direction == Direction::Forward
        && blocked_axes.is_empty()
        && t.fwd[w].is_some()
        && s.strides[w] == 1
        && d.strides[w] == 1;
    if let Some(l) = lane {
        if l.block >= 4 || !rows_ok {
            return Strategy::Lanes(l);
        }
    }
    if rows_ok {
        let taps = t.fwd[w].as_ref().unwrap();
        let lo = taps.idx.iter().copied().min().unwrap_or(0) as usize;
        let hi = taps.idx.iter().copied().max().unwrap_or(0) as usize;
        let dense = hi + 1 - lo <= 2 * taps.idx.len();
        let runs: usize = d.dims[..w].iter().product();
        return Strategy::Rows(RowGeom {
            runs,
            out_w: d.dims[w],
            range: dense.then_some((lo, hi)),
        });
    }
    Strategy::Generic
}

/// Loads `n` elements starting at element offset `off` with element step `step` into `out`.
#[inline(always)]
unsafe fn load_run(dt: DataType, base: *const u8, off: usize, step: usize, out: &mut [f32]) {
    // Monomorphic loops for the hot types so they vectorise; the rest use the shared loader.
    match dt {
        DataType::F32 => {
            let p = (base as *const f32).add(off);
            for (l, o) in out.iter_mut().enumerate() {
                *o = p.add(l * step).read_unaligned();
            }
        }
        DataType::Bf16 => {
            let p = (base as *const u16).add(off);
            for (l, o) in out.iter_mut().enumerate() {
                *o = bf16_to_f32(p.add(l * step).read_unaligned());
            }
        }
        other => {
            let sz = other.size();
            let p = base.add(off * sz);
            for (l, o) in out.iter_mut().enumerate() {
                *o = load_f32(p.add(l * step * sz), other);
            }
        }
    }
}

/// `acc[l] = x[l] * w` (first tap) or `acc[l] + x[l] * w`.
#[inline(always)]
fn madd(acc: &mut [f32], x: &[f32], w: f32, first: bool) {
    if first {
        for (a, &v) in acc.iter_mut().zip(x) {
            *a = v * w;
        }
    } else {
        for (a, &v) in acc.iter_mut().zip(x) {
            *a += v * w;
        }
    }
}

/// Corner offsets and per-axis weights of one output point over the resampled axes
/// `axes` (first axis varies fastest across corners).
struct Corners {
    offs: Vec<usize>,
    /// Tap counts per axis.
    ks: [usize; MAX_RANK],
    /// Weights of axis `a` are `wts[wstart[a]..wstart[a] + ks[a]]`.
    wts: Vec<f32>,
    wstart: [usize; MAX_RANK],
    m: usize,
}

impl Corners {
    fn new() -> Self {
        Corners {
            offs: Vec::with_capacity(64),
            ks: [0; MAX_RANK],
            wts: Vec::with_capacity(64),
            wstart: [0; MAX_RANK],
            m: 0,
        }
    }

    #[inline(always)]
    fn w(&self, a: usize, t: usize) -> f32 {
        self.wts[self.wstart[a] + t]
    }

    /// Fills the corners of output index `idx` for the given axes.
    fn fill(&mut self, p: &Problem, t: &Tables, axes: &[usize], idx: &[usize], base: usize) {
        self.offs.clear();
        self.wts.clear();
        self.offs.push(base);
        self.m = axes.len();
        for (a, &d) in axes.iter().enumerate() {
            let (ii, ww) = t.fwd[d].as_ref().unwrap().taps(idx[d]);
            self.ks[a] = ii.len();
            self.wstart[a] = self.wts.len();
            self.wts.extend_from_slice(ww);
            let prev = self.offs.len();
            // New corner index = old index + prev * t (the new axis varies slowest).
            for k in 1..ii.len() {
                for c in 0..prev {
                    let o = self.offs[c] + ii[k] as usize * p.src.strides[d];
                    self.offs.push(o);
                }
            }
            let s0 = ii[0] as usize * p.src.strides[d];
            for c in 0..prev {
                self.offs[c] += s0;
            }
        }
    }

    /// Nested reduction over all corners for `n` lanes starting at lane `l0` with element
    /// step `step`; first axis innermost, exactly as the reference.
    unsafe fn reduce(
        &self,
        dt: DataType,
        src: *const u8,
        l0: usize,
        step: usize,
        n: usize,
        scratch: &mut Vec<f32>,
        out: &mut [f32],
    ) {
        let k = self.offs.len();
        if self.m == 0 {
            load_run(dt, src, self.offs[0] + l0 * step, step, &mut out[..n]);
            return;
        }
        let k0 = self.ks[0];
        let parts = k / k0;
        scratch.resize((parts + 1) * LCH, 0.0);
        let (x, rest) = scratch.split_at_mut(LCH);
        let x = &mut x[..n];
        // Level 0 straight from memory.
        for h in 0..parts {
            let acc = &mut rest[h * LCH..h * LCH + n];
            for t in 0..k0 {
                load_run(dt, src, self.offs[h * k0 + t] + l0 * step, step, x);
                madd(acc, x, self.w(0, t), t == 0);
            }
        }
        // Higher levels reduce partial sums in place (slot h*ka collects group h).
        let mut parts = parts;
        for a in 1..self.m {
            let ka = self.ks[a];
            let next = parts / ka;
            for h in 0..next {
                for t in 0..ka {
                    let w = self.w(a, t);
                    let src_slot = (h * ka + t) * LCH;
                    let dst_slot = h * LCH;
                    if t == 0 {
                        for l in 0..n {
                            rest[dst_slot + l] = rest[src_slot + l] * w;
                        }
                    } else {
                        for l in 0..n {
                            let v = rest[src_slot + l] * w;
                            rest[dst_slot + l] += v;
                        }
                    }
                }
            }
            parts = next;
        }
        out[..n].copy_from_slice(&rest[..n]);
    }
}

/// Decodes run `r` into output indices of all axes but `skip`; for `lanes` the skipped axis
/// carries the block index.
fn decode(r: usize, dims: &[usize], skip: usize, nblk: usize, idx: &mut [usize]) -> usize {
    let mut rem = r;
    let mut blk = 0;
    for d in (0..dims.len()).rev() {
        if d == skip {
            blk = rem % nblk;
            rem /= nblk;
            idx[d] = 0;
        } else {
            idx[d] = rem % dims[d];
            rem /= dims[d];
        }
    }
    blk
}

/// Stores `vals` (f32 results) at dst element offset `off` with element step `step`,
/// applying post-ops; `idx` is the logical index of `vals[0]`, advancing along `axis`.
unsafe fn finish(
    p: &Problem,
    b: Bufs<'_>,
    vals: &[f32],
    off: usize,
    step: usize,
    idx: &mut [usize],
    axis: usize,
) {
    let dt = p.dst.dtype;
    let sz = dt.size();
    let base = b.dst.add(off * sz);
    if !p.post_ops.is_empty() {
        let i0 = idx[axis];
        for (l, &v) in vals.iter().enumerate() {
            idx[axis] = i0 + l;
            let dp = base.add(l * step * sz);
            store_f32(dp, dt, post_ops(p, v, dp, idx, b.bins), p.numerics);
        }
        idx[axis] = i0;
        return;
    }
    match (dt, p.numerics) {
        (DataType::F32, _) => {
            let q = base as *mut f32;
            for (l, &v) in vals.iter().enumerate() {
                q.add(l * step).write_unaligned(v);
            }
        }
        (DataType::Bf16, n @ (Numerics::Onednn | Numerics::Ieee)) => {
            let q = base as *mut u16;
            for (l, &v) in vals.iter().enumerate() {
                q.add(l * step).write_unaligned(f32_to_bf16(v, n));
            }
        }
        _ => {
            for (l, &v) in vals.iter().enumerate() {
                store_f32(base.add(l * step * sz), dt, v, p.numerics);
            }
        }
    }
}

/// The `lanes` kernel over runs `start..end`.
pub(crate) unsafe fn lanes(
    p: &Problem,
    t: &Tables,
    g: &LaneGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    let rank = p.dst.rank();
    let (s, d) = (&p.src, &p.dst);
    let (ssz, dsz) = (s.dtype.size(), d.dtype.size());
    let mut idx = [0usize; MAX_RANK];
    let mut corners = Corners::new();
    let mut scratch = Vec::new();
    let mut vals = [0f32; LCH];
    let raw = p.alg == Algorithm::Nearest
        && p.post_ops.is_empty()
        && p.numerics.raw_copy_allowed(s.dtype, d.dtype);
    for r in start..end {
        let blk = decode(r, &d.dims[..rank], g.c, g.nblk, &mut idx[..rank]);
        let valid = g.block.min(d.dims[g.c] - (blk * g.block).min(d.dims[g.c]));
        let mut doff = d.offset + blk * g.blk_dst;
        let mut sbase = s.offset + blk * g.blk_src;
        for a in 0..rank {
            if a == g.c {
                continue;
            }
            doff += idx[a] * d.strides[a];
            if t.fwd[a].is_none() && t.bwd[a].is_none() {
                sbase += idx[a] * s.strides[a];
            }
        }
        idx[g.c] = blk * g.block;
        match p.direction {
            Direction::Forward => {
                corners.fill(p, t, &t.resampled, &idx[..rank], sbase);
                if raw && corners.offs.len() == 1 {
                    std::ptr::copy_nonoverlapping(
                        b.src.add(corners.offs[0] * ssz),
                        b.dst.add(doff * dsz),
                        valid * dsz,
                    );
                } else {
                    let mut l0 = 0;
                    while l0 < valid {
                        let n = LCH.min(valid - l0);
                        if p.alg == Algorithm::Nearest {
                            load_run(s.dtype, b.src, corners.offs[0] + l0, 1, &mut vals[..n]);
                        } else {
                            corners.reduce(s.dtype, b.src, l0, 1, n, &mut scratch, &mut vals);
                        }
                        idx[g.c] = blk * g.block + l0;
                        finish(p, b, &vals[..n], doff + l0, 1, &mut idx[..rank], g.c);
                        l0 += n;
                    }
                }
            }
            Direction::Backward => {
                let mut l0 = 0;
                while l0 < valid {
                    let n = LCH.min(valid - l0);
                    bwd_lanes(
                        p,
                        t,
                        b.src,
                        &idx[..rank],
                        sbase + l0,
                        n,
                        &mut vals[..n],
                        &mut scratch,
                    );
                    idx[g.c] = blk * g.block + l0;
                    finish(p, b, &vals[..n], doff + l0, 1, &mut idx[..rank], g.c);
                    l0 += n;
                }
            }
        }
        if valid < g.block {
            std::ptr::write_bytes(b.dst.add((doff + valid) * dsz), 0, (g.block - valid) * dsz);
        }
    }
}

/// Backward gather for `n` lanes of one diff_src pixel, in the reference's order.
unsafe fn bwd_lanes(
    p: &Problem,
    t: &Tables,
    src: *const u8,
    idx: &[usize],
    base: usize,
    n: usize,
    acc: &mut [f32],
    x: &mut Vec<f32>,
) {
    let ra = &t.resampled;
    let m = ra.len();
    x.resize(LCH, 0.0);
    let x = &mut x[..n];
    acc.fill(0.0);
    if m == 0 {
        load_run(p.src.dtype, src, base, 1, acc);
        return;
    }
    let tabs: [Option<&super::taps::BwdTaps>; MAX_RANK] =
        std::array::from_fn(|a| if a < m { t.bwd[ra[a]].as_ref() } else { None });
    let mut g = [0usize; MAX_RANK];
    let nearest = p.alg == Algorithm::Nearest;
    loop {
        let mut lists: [(&[u32], &[f32]); MAX_RANK] = [(&[], &[]); MAX_RANK];
        let mut empty = false;
        for a in 0..m {
            lists[a] = tabs[a].unwrap().group(idx[ra[a]], g[a]);
            empty |= lists[a].0.is_empty();
        }
        if !empty {
            let mut pos = [0usize; MAX_RANK];
            loop {
                let mut off = base;
                for a in 0..m {
                    off += lists[a].0[pos[a]] as usize * p.src.strides[ra[a]];
                }
                load_run(p.src.dtype, src, off, 1, x);
                if nearest {
                    for (a, &v) in acc.iter_mut().zip(x.iter()) {
                        *a += v;
                    }
                } else {
                    match m {
                        1 => {
                            let w0 = lists[0].1[pos[0]];
                            for (a, &v) in acc.iter_mut().zip(x.iter()) {
                                *a += v * w0;
                            }
                        }
                        2 => {
                            let (w0, w1) = (lists[0].1[pos[0]], lists[1].1[pos[1]]);
                            for (a, &v) in acc.iter_mut().zip(x.iter()) {
                                *a += (v * w0) * w1;
                            }
                        }
                        3 => {
                            let (w0, w1, w2) =
                                (lists[0].1[pos[0]], lists[1].1[pos[1]], lists[2].1[pos[2]]);
                            for (a, &v) in acc.iter_mut().zip(x.iter()) {
                                *a += ((v * w0) * w1) * w2;
                            }
                        }
                        _ => {
                            for (a, &v) in acc.iter_mut().zip(x.iter()) {
                                let mut q = v;
                                for k in 0..m {
                                    q *= lists[k].1[pos[k]];
                                }
                                *a += q;
                            }
                        }
                    }
                }
                if !odometer(&mut pos[..m], |a| lists[a].0.len()) {
                    break;
                }
            }
        }
        if !odometer(&mut g[..m], |a| tabs[a].unwrap().groups) {
            break;
        }
    }
}

/// The `rows` kernel (forward) over runs `start..end`.
pub(crate) unsafe fn rows(
    p: &Problem,
    t: &Tables,
    g: &RowGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    let rank = p.dst.rank();
    let w = rank - 1;
    let (s, d) = (&p.src, &p.dst);
    let (ssz, dsz) = (s.dtype.size(), d.dtype.size());
    let wt = t.fwd[w].as_ref().unwrap();
    let others: Vec<usize> = t.resampled.iter().copied().filter(|&a| a != w).collect();
    let mut idx = [0usize; MAX_RANK];
    let mut corners = Corners::new();
    let mut scratch = Vec::new();
    let mut row = vec![0f32; g.range.map_or(0, |(lo, hi)| hi + 1 - lo)];
    let mut out = vec![0f32; g.out_w];
    let mut one = [0f32; 1];
    let raw = p.alg == Algorithm::Nearest
        && p.post_ops.is_empty()
        && p.numerics.raw_copy_allowed(s.dtype, d.dtype);
    for r in start..end {
        decode(r, &d.dims[..rank], w, 1, &mut idx[..rank]);
        let mut doff = d.offset;
        let mut sbase = s.offset;
        for a in 0..w {
            doff += idx[a] * d.strides[a];
            if t.fwd[a].is_none() {
                sbase += idx[a] * s.strides[a];
            }
        }
        corners.fill(p, t, &others, &idx[..rank], sbase);
        if p.alg == Algorithm::Nearest {
            let r0 = corners.offs[0];
            if raw {
                let (sp, dp) = (b.src.add(r0 * ssz), b.dst.add(doff * dsz));
                match ssz {
                    4 => gather_raw::<u32>(sp, dp, &wt.idx),
                    2 => gather_raw::<u16>(sp, dp, &wt.idx),
                    1 => gather_raw::<u8>(sp, dp, &wt.idx),
                    _ => gather_raw::<u64>(sp, dp, &wt.idx),
                }
                continue;
            }
            for (o, v) in out.iter_mut().enumerate() {
                *v = super::dtype::load_f32(b.src.add((r0 + wt.idx[o] as usize) * ssz), s.dtype);
            }
        } else if let Some((lo, hi)) = g.range {
            // Blend the needed input columns over the other axes, then lerp along W.
            let mut c0 = 0;
            while c0 <= hi - lo {
                let n = LCH.min(hi - lo + 1 - c0);
                corners.reduce(s.dtype, b.src, lo + c0, 1, n, &mut scratch, &mut row[c0..]);
                c0 += n;
            }
            for (o, v) in out.iter_mut().enumerate() {
                let (ii, ww) = wt.taps(o);
                let mut acc = row[ii[0] as usize - lo] * ww[0];
                for k in 1..ii.len() {
                    acc += row[ii[k] as usize - lo] * ww[k];
                }
                *v = acc;
            }
        } else {
            for (o, v) in out.iter_mut().enumerate() {
                let (ii, ww) = wt.taps(o);
                let mut acc = 0.0;
                for k in 0..ii.len() {
                    corners.reduce(s.dtype, b.src, ii[k] as usize, 1, 1, &mut scratch, &mut one);
                    acc = if k == 0 {
                        one[0] * ww[0]
                    } else {
                        acc + one[0] * ww[k]
                    };
                }
                *v = acc;
            }
        }
        idx[w] = 0;
        finish(p, b, &out, doff, 1, &mut idx[..rank], w);
    }
}

#[inline(always)]
unsafe fn gather_raw<T: Copy>(src: *const u8, dst: *mut u8, idx: &[u32]) {
    let (s, d) = (src as *const T, dst as *mut T);
    for (o, &i) in idx.iter().enumerate() {
        d.add(o).write_unaligned(s.add(i as usize).read_unaligned());
    }
}
