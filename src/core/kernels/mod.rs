//! Optimised kernels. Each computes exactly what [`super::reference`] computes, in the same
//! float operation order, but streams memory along the contiguous axis:
//! - `lanes`: an identity axis contiguous in src and dst (nhwc channels, the 8/16 lanes of a
//!   blocked layout) is the SIMD axis; per output pixel the corner offsets and weights are
//!   fixed, and the reduction runs over all lanes at once (forward and backward); its
//!   row-wise forward walk is in `lanes_rows.rs`;
//! - `rows` (`rows.rs`): forward along a unit-stride resampled last axis (nchw W): the other
//!   resampled axes are blended into a row buffer (first axis innermost, as the reference),
//!   then W is gathered; short linear rows with permute tables go a plane's run at a time
//!   through `lerp_rows.rs`;
//! - `dyadic_rows` (`dyadic.rs`): forward u8 / s8 linear rows whose weights are multiples of
//!   `2^-k` (2x and 4x up, 2x down, ...) in 16-bit integers, exact by construction;
//! - `bwd_rows` (`rows.rs`): backward along a unit-stride resampled last axis: a tight scalar
//!   gather per diff_src element with the run's other-axis lists fixed;
//! - the other strategies each in their own file (`bwd_stream`, `bwd_tiny`, `planes`, ...).
//!
//! This file holds the selection (`choose`) and what the kernels share: the run walker, the
//! corner tables, the stream rule.

// The tables are planned on every target; only x86 has the block kernels that read them.
pub(crate) mod bwd_box;
pub(crate) mod bwd_expand;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code, unused_imports))]
pub(crate) mod bwd_long;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) mod bwd_perm;
pub(crate) mod bwd_planes;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) mod bwd_repeat;
pub(crate) mod bwd_scatter;
pub(crate) mod bwd_stream;
pub(crate) mod bwd_tiny;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code, unused_imports))]
pub(crate) mod bwd_twice;
pub(crate) mod dyadic;
pub(crate) mod gather;

use super::aligned::AlignedBuf;
use super::dtype::{load_f32, store_f32, DataType};
use super::plan::Strategy;
use super::reference::{odometer, post_ops, Bufs, Tables};
use super::simd::{self, Src};
use super::taps::{BwdTaps, FwdTaps};
use super::{Algorithm, Direction, Problem, RawCopy, MAX_RANK};

mod hlerp;
mod images;
mod lanes;
mod lanes_rows;
mod lerp_rows;
mod nt_batch;
pub(crate) mod planes;
pub(crate) mod read_ahead;
mod rows;
mod wide_taps;

use lanes_rows::pixel_rows;
pub(crate) use lanes_rows::{lanes_rows, PixelRows};
pub(crate) use rows::{bwd_rows, fwd_row_geom, rows, RowGeom, WTable};
use wide_taps::WideTaps;

/// Lanes processed per inner chunk (keeps partial sums in L1).
const LCH: usize = 256;

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
    /// At most 3 resampled axes with at most 2 taps (or groups) each: fixed-size corners.
    pub small: bool,
    /// Forward small problems walk whole rows of pixels per call.
    pub pixels: Option<PixelRows>,
}

/// Most rows whose corners [`RowCorners`] tabulates (about 100 bytes each).
const MAX_ROW_CORNERS: usize = 1 << 12;

/// Plan-time corners (offsets from the run's src base) and weights of the resampled axes
/// other than the pixel axes, per row: a run looks its row up instead of filling them,
/// which was a fifth of a small blocked problem's time (nCx16c f32 8x16 8x25->16x12).
#[derive(Clone, Debug)]
pub(crate) struct RowCorners {
    /// `(axis, multiplier)`: the row of output index `idx` is `sum idx[axis] * multiplier`.
    axes: Vec<(usize, usize)>,
    corners: Vec<SmallCorners>,
}

impl RowCorners {
    fn new(t: &Tables, strides: &[usize], others: &[usize], dims: &[usize]) -> Option<Self> {
        let rows = others
            .iter()
            .try_fold(1usize, |n, &a| n.checked_mul(dims[a]))
            .filter(|&n| n <= MAX_ROW_CORNERS)?;
        let mut axes = Vec::with_capacity(others.len());
        let mut mult = 1;
        for &a in others.iter().rev() {
            axes.push((a, mult));
            mult *= dims[a];
        }
        let mut idx = [0usize; MAX_RANK];
        let corners = (0..rows)
            .map(|r| {
                for &(a, m) in &axes {
                    idx[a] = r / m % dims[a];
                }
                SmallCorners::fill(t, others, strides, &idx, 0)
            })
            .collect();
        Some(RowCorners { axes, corners })
    }

    /// The corners of the row holding output index `idx`, from the run's src base.
    #[inline]
    fn row(&self, idx: &[usize]) -> &SmallCorners {
        let r: usize = self.axes.iter().map(|&(a, m)| idx[a] * m).sum();
        &self.corners[r]
    }

    /// [`Self::row`]'s corners from src element `base`.
    #[inline]
    fn get(&self, idx: &[usize], base: usize) -> SmallCorners {
        let mut c = self.row(idx).clone();
        for o in &mut c.offs {
            *o += base;
        }
        c
    }
}

/// Largest row buffer (f32 values) of the row-wise `lanes` walk.
const ROW_BUF: usize = 1 << 13;

fn is_small(p: &Problem, t: &Tables) -> bool {
    t.resampled.len() <= 3
        && t.resampled.iter().all(|&d| match p.direction {
            Direction::Forward => {
                let f = t.fwd[d].as_ref().unwrap();
                let n = f.max_taps();
                n <= 2 && f.bounds.windows(2).all(|w| (w[1] - w[0]) as usize == n)
            }
            Direction::Backward => t.bwd[d].as_ref().unwrap().groups <= 2,
        })
}

/// Largest per-run buffer (elements) and corner count the fast kernels allocate; beyond
/// them the scalar path, which allocates nothing per element, runs instead.
const MAX_ROW: usize = 1 << 24;
const MAX_CORNERS: usize = 1 << 12;

pub(crate) fn choose(p: &Problem, t: &Tables) -> Strategy {
    let rank = p.src.rank();
    let (s, d) = (&p.src, &p.dst);
    if p.direction == Direction::Backward && d.dtype == DataType::F64 {
        return Strategy::Generic;
    }
    let corners = t.resampled.iter().try_fold(1usize, |n, &a| {
        let k = t.fwd[a].as_ref().map_or(1, |f| f.max_taps());
        n.checked_mul(k).filter(|&n| n <= MAX_CORNERS)
    });
    if corners.is_none() {
        return Strategy::Generic;
    }
    if let Some(g) = bwd_expand::plan(p, t) {
        return Strategy::BwdExpand(g);
    }
    if let Some(g) = bwd_scatter::plan(p, t) {
        return Strategy::BwdScatter(g);
    }
    let twice = bwd_twice::plan(p, t);
    if let Some(g) = twice.as_ref().filter(|g| g.before_tiny()) {
        return Strategy::BwdTwice(g.clone());
    }
    if let Some(g) = bwd_tiny::plan(p, t) {
        return Strategy::BwdTiny(g);
    }
    let small = is_small(p, t);
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
                    pixels: None,
                    c,
                    block,
                    nblk,
                    blk_src,
                    blk_dst,
                    runs: nblk * others,
                    small,
                });
            }
        }
    }
    let w = rank - 1;
    let w_tab = t.fwd[w].is_some() || t.bwd[w].is_some();
    let rows_ok = blocked_axes.is_empty()
        && w_tab
        && s.strides[w] == 1
        && d.strides[w] == 1
        && s.dims[w].max(d.dims[w]) <= MAX_ROW;
    if let Some(g) = dyadic::plan(p, t) {
        return Strategy::Dyadic(g);
    }
    if let Some(g) = images::image_rows(p, t, small) {
        return Strategy::Rows(g);
    }
    if let Some(mut l) = lane {
        if l.block >= 4 || !rows_ok {
            if p.direction == Direction::Backward {
                let la = bwd_stream::LaneAxis {
                    c: l.c,
                    block: l.block,
                    nblk: l.nblk,
                    blk_src: l.blk_src,
                    blk_dst: l.blk_dst,
                };
                if let Some(g) = bwd_stream::plan(p, t, Some(la)) {
                    return Strategy::BwdStream(g);
                }
            }
            l.pixels = pixel_rows(p, t, &l);
            return Strategy::Lanes(l);
        }
    }
    if rows_ok {
        let runs: usize = d.dims[..w].iter().product();
        if p.direction == Direction::Backward {
            if let Some(g) = bwd_long::plan(p, t) {
                return Strategy::BwdLong(g);
            }
            if let Some(g) = twice {
                return Strategy::BwdTwice(g);
            }
            if let Some(g) = bwd_box::plan(p, t) {
                return Strategy::BwdBox(g);
            }
            if let Some(g) = bwd_planes::plan(p, t) {
                return Strategy::BwdPlanes(g);
            }
            if let Some(g) = bwd_stream::plan(p, t, None) {
                return Strategy::BwdStream(g);
            }
            return Strategy::BwdRows(RowGeom {
                runs,
                out_w: d.dims[w],
                range: None,
                small,
                w2: None,
                repeat: None,
                bperm: None,
                plane_h: None,
                rows_per_run: 1,
                w,
                lane: None,
                wx: None,
                plane_idx: None,
                plane_batch: None,
                plane_period: None,
                corners: None,
                wide: None,
                sparse: None,
            });
        }
        if let Some(g) = planes::plan(p, t) {
            return Strategy::Planes(g);
        }
        if let Some(g) = gather::plan(p, t) {
            return Strategy::Gather(g);
        }
        return Strategy::Rows(fwd_row_geom(p, t, w, None, small));
    }
    Strategy::Generic
}

/// A backward problem over unblocked planes (the last two axes, f64 diff_src excluded): what
/// the plane walks (`bwd_planes`, `bwd_twice`) have in common before their own tests.
pub(super) fn plain_backward_planes(p: &Problem) -> bool {
    let rank = p.dst.rank();
    p.direction == Direction::Backward
        && p.dst.dtype != DataType::F64
        && p.post_ops.is_empty()
        && rank >= 2
        && (0..rank).all(|a| p.src.blocks[a] == 1 && p.dst.blocks[a] == 1)
}

/// A few axes on the stack (kernels collect them per call; a `Vec` cost small calls an
/// allocation each).
#[derive(Clone, Copy, Debug)]
pub(crate) struct AxisList {
    n: usize,
    axes: [usize; MAX_RANK],
}

impl AxisList {
    fn of(it: impl Iterator<Item = usize>) -> Self {
        let mut l = AxisList {
            n: 0,
            axes: [0; MAX_RANK],
        };
        for a in it.take(MAX_RANK) {
            l.axes[l.n] = a;
            l.n += 1;
        }
        l
    }
}

impl std::ops::Deref for AxisList {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        &self.axes[..self.n]
    }
}

/// Per output pixel: src offsets of its two taps, their weights (see [`PixelRows::taps`]).
pub(crate) type PixelTaps = Vec<(usize, usize, f32, f32)>;

/// Corner offsets and weights of one output point for at most 3 resampled axes with at most
/// 2 taps each, in fixed-size arrays (corner `i + 2j + 4k`, first axis fastest).
#[derive(Clone, Debug)]
struct SmallCorners {
    offs: [usize; 8],
    w: [[f32; 2]; 3],
    /// Axes with two taps.
    m: usize,
}

impl SmallCorners {
    #[inline]
    fn fill(t: &Tables, axes: &[usize], strides: &[usize], idx: &[usize], base: usize) -> Self {
        let mut c = SmallCorners {
            offs: [base; 8],
            w: [[1.0, 0.0]; 3],
            m: 0,
        };
        for &d in axes {
            let (ii, ww) = t.fwd[d].as_ref().unwrap().taps(idx[d]);
            c.push_axis(ii, ww, strides[d]);
        }
        c
    }

    /// The corners' offsets plus `by`, read one by one: `push_axis` has just stored them
    /// one by one, and wider loads of them wait for the stores (a third of the rows
    /// kernel's own time on nchw f32 8x64 56->112 linear, Intel Xeon).
    #[inline]
    fn shifted(&self, by: usize) -> [usize; 8] {
        let mut o = [0; 8];
        for k in 0..1 << self.m {
            o[k] = std::hint::black_box(self.offs[k]) + by;
        }
        o
    }

    /// Adds the taps of the next axis (after every axis already added).
    #[inline]
    fn push_axis(&mut self, ii: &[u32], ww: &[f32], stride: usize) {
        let n = 1 << self.m;
        if ii.len() == 1 {
            for k in 0..n {
                self.offs[k] += ii[0] as usize * stride;
            }
            return;
        }
        for k in 0..n {
            self.offs[n + k] = self.offs[k] + ii[1] as usize * stride;
            self.offs[k] += ii[0] as usize * stride;
        }
        self.w[self.m] = [ww[0], ww[1]];
        self.m += 1;
    }
}

/// General corners (any tap counts), for antialiased and 4-axis problems.
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

    /// Fills the corners of output index `idx` for the given axes (first axis fastest).
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

    /// Nested reduction over all corners for `n` lanes (contiguous from a lane, or columns);
    /// first axis innermost, exactly as the reference.
    unsafe fn reduce(
        &self,
        dt: DataType,
        src: *const u8,
        lanes: simd::Lanes,
        n: usize,
        scratch: &mut Vec<f32>,
        out: &mut [f32],
    ) {
        // SAFETY: the caller's contract (the plan checked the buffers): every address formed
        // here lies in the buffers the problem's layouts describe, this call's dst elements
        // are written by it alone, and vector code runs only on an ISA the CPU has.
        unsafe {
            let k = self.offs.len();
            if self.m == 0 {
                match lanes {
                    simd::Lanes::From(l0) => {
                        simd::load_contiguous(dt, src, self.offs[0] + l0, &mut out[..n])
                    }
                    // x * 1 is x (a signalling NaN comes out quiet, as the W product makes
                    // it anyway).
                    _ => simd::wsum(dt, src, &self.offs[..1], &[1.0], lanes, &mut out[..n]),
                }
                return;
            }
            let k0 = self.ks[0];
            let parts = k / k0;
            scratch.resize((parts + 1) * LCH, 0.0);
            let (x, rest) = scratch.split_at_mut(LCH);
            let w0 = &self.wts[self.wstart[0]..self.wstart[0] + k0];
            for h in 0..parts {
                let group = &self.offs[h * k0..(h + 1) * k0];
                simd::wsum(dt, src, group, w0, lanes, &mut rest[h * LCH..h * LCH + n]);
            }
            // Higher levels reduce partial sums (slot h collects group h), through `x`: a
            // group's first slot is its destination. A group's slots are `LCH` apart from its
            // first (offsets on the stack unless the axis is very wide).
            let mut parts = parts;
            let stack: [usize; 32] = std::array::from_fn(|t| t * LCH);
            for a in 1..self.m {
                let ka = self.ks[a];
                let next = parts / ka;
                let wa = &self.wts[self.wstart[a]..self.wstart[a] + ka];
                let heap: Vec<usize>;
                let slots = if ka <= stack.len() {
                    &stack[..ka]
                } else {
                    heap = (0..ka).map(|t| t * LCH).collect();
                    &heap
                };
                for h in 0..next {
                    let first = rest.as_ptr().add(h * ka * LCH) as *const u8;
                    let lanes = simd::Lanes::From(0);
                    simd::wsum(DataType::F32, first, slots, wa, lanes, &mut x[..n]);
                    rest[h * LCH..h * LCH + n].copy_from_slice(&x[..n]);
                }
                parts = next;
            }
            out[..n].copy_from_slice(&rest[..n]);
        }
    }
}

/// Walks runs in row-major order, carrying the dst offset and the src offset over identity
/// axes incrementally, so advancing costs a few additions instead of divisions.
struct Runs {
    rank: usize,
    ext: [usize; MAX_RANK],
    dstr: [usize; MAX_RANK],
    sstr: [usize; MAX_RANK],
    /// Output index per axis; on the run axis, the block index.
    pos: [usize; MAX_RANK],
    doff: usize,
    sbase: usize,
}

impl Runs {
    /// Runs over all axes, with `(axis, extent, dst stride, src stride)` overrides (the lane
    /// axis walks blocks; an axis handled inside a run has extent 1).
    fn new(
        p: &Problem,
        t: &Tables,
        overrides: &[(usize, usize, usize, usize)],
        start: usize,
    ) -> Self {
        let (s, d) = (&p.src, &p.dst);
        let rank = d.rank();
        let mut r = Runs {
            rank,
            ext: [1; MAX_RANK],
            dstr: [0; MAX_RANK],
            sstr: [0; MAX_RANK],
            pos: [0; MAX_RANK],
            doff: d.offset,
            sbase: s.offset,
        };
        for a in 0..rank {
            if let Some(&(_, e, ds, ss)) = overrides.iter().find(|o| o.0 == a) {
                (r.ext[a], r.dstr[a], r.sstr[a]) = (e, ds, ss);
            } else {
                let identity = t.fwd[a].is_none() && t.bwd[a].is_none();
                (r.ext[a], r.dstr[a], r.sstr[a]) = (
                    d.dims[a],
                    d.strides[a],
                    if identity { s.strides[a] } else { 0 },
                );
            }
        }
        let mut rem = start;
        for a in (0..rank).rev() {
            r.pos[a] = rem % r.ext[a];
            rem /= r.ext[a];
            r.doff += r.pos[a] * r.dstr[a];
            r.sbase += r.pos[a] * r.sstr[a];
        }
        // Innermost axes walked inside a run (extent 1) only roll over: advancing skips them
        // (they were most of the walk over tiny ncdhw planes, 4 outputs each).
        while r.rank > 0 && r.ext[r.rank - 1] == 1 {
            r.rank -= 1;
        }
        r
    }

    #[inline]
    fn advance(&mut self) {
        for a in (0..self.rank).rev() {
            self.pos[a] += 1;
            self.doff += self.dstr[a];
            self.sbase += self.sstr[a];
            if self.pos[a] < self.ext[a] {
                return;
            }
            self.pos[a] = 0;
            self.doff -= self.dstr[a] * self.ext[a];
            self.sbase -= self.sstr[a] * self.ext[a];
        }
    }

    /// Advances `k` runs at once (a mixed-radix addition: a division per axis it reaches).
    fn advance_by(&mut self, k: usize) {
        let mut carry = k;
        for a in (0..self.rank).rev() {
            if carry == 0 {
                return;
            }
            // Axes walked inside a run (extent 1) pass the carry on without a division.
            if self.ext[a] == 1 {
                continue;
            }
            let np = self.pos[a] + carry;
            let (q, r) = (np / self.ext[a], np % self.ext[a]);
            self.doff = self.doff - self.pos[a] * self.dstr[a] + r * self.dstr[a];
            self.sbase = self.sbase - self.pos[a] * self.sstr[a] + r * self.sstr[a];
            self.pos[a] = r;
            carry = q;
        }
    }
}

/// Stores contiguous f32 results at dst element offset `off`, applying post-ops; `idx` is the
/// logical index of `vals[0]`, advancing along `axis`.
#[inline]
unsafe fn finish(
    p: &Problem,
    b: Bufs<'_>,
    vals: &[f32],
    off: usize,
    idx: &mut [usize],
    axis: usize,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let dt = p.dst.dtype;
        let sz = dt.size();
        let base = b.dst.add(off * sz);
        if p.post_ops.is_empty() {
            simd::store_contiguous(dt, p.numerics, vals, base);
            return;
        }
        let i0 = idx[axis];
        for (l, &v) in vals.iter().enumerate() {
            idx[axis] = i0 + l;
            let dp = base.add(l * sz);
            store_f32(dp, dt, post_ops(p, v, dp, idx, b.bins), p.numerics);
        }
        idx[axis] = i0;
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
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let rank = p.dst.rank();
        let (s, d) = (&p.src, &p.dst);
        let (ssz, dsz) = (s.dtype.size(), d.dtype.size());
        let mut corners = Corners::new();
        let mut scratch = Vec::new();
        let mut vals = [0f32; LCH];
        let raw = p.raw_nearest();
        let cdim = d.dims[g.c];
        let mut runs = Runs::new(p, t, &[(g.c, g.nblk, g.blk_dst, g.blk_src)], start);
        for _ in start..end {
            let blk = runs.pos[g.c];
            let mut idx = runs.pos;
            idx[g.c] = blk * g.block;
            let valid = g.block.min(cdim - (blk * g.block).min(cdim));
            let (doff, sbase) = (runs.doff, runs.sbase);
            runs.advance();
            match p.direction {
                Direction::Forward if g.small => {
                    let sc = SmallCorners::fill(t, &t.resampled, &s.strides, &idx[..rank], sbase);
                    if let (Some(raw), 0) = (raw, sc.m) {
                        let (sp, dp) = (b.src.add(sc.offs[0] * ssz), b.dst.add(doff * dsz));
                        match raw {
                            RawCopy::Bits => std::ptr::copy_nonoverlapping(sp, dp, valid * dsz),
                            RawCopy::Bf16Onednn => simd::copy_bf16_onednn(sp, dp, valid),
                        }
                    } else {
                        let mut l0 = 0;
                        while l0 < valid {
                            let n = LCH.min(valid - l0);
                            let offs = sc.offs.map(|o| o + l0);
                            simd::lerp(s.dtype, sc.m, b.src, &offs, &sc.w, &mut vals[..n]);
                            idx[g.c] = blk * g.block + l0;
                            finish(p, b, &vals[..n], doff + l0, &mut idx[..rank], g.c);
                            l0 += n;
                        }
                    }
                }
                Direction::Forward => {
                    corners.fill(p, t, &t.resampled, &idx[..rank], sbase);
                    let mut l0 = 0;
                    while l0 < valid {
                        let n = LCH.min(valid - l0);
                        corners.reduce(
                            s.dtype,
                            b.src,
                            simd::Lanes::From(l0),
                            n,
                            &mut scratch,
                            &mut vals,
                        );
                        idx[g.c] = blk * g.block + l0;
                        finish(p, b, &vals[..n], doff + l0, &mut idx[..rank], g.c);
                        l0 += n;
                    }
                }
                Direction::Backward => {
                    let mut l0 = 0;
                    while l0 < valid {
                        let n = LCH.min(valid - l0);
                        bwd_lanes(p, t, b.src, &idx[..rank], sbase + l0, &mut vals[..n]);
                        idx[g.c] = blk * g.block + l0;
                        finish(p, b, &vals[..n], doff + l0, &mut idx[..rank], g.c);
                        l0 += n;
                    }
                }
            }
            if valid < g.block {
                std::ptr::write_bytes(b.dst.add((doff + valid) * dsz), 0, (g.block - valid) * dsz);
            }
        }
    }
}

/// Backward gather for contiguous lanes of one diff_src pixel, in the reference's order:
/// group combinations (first axis outermost), then outputs (first axis outermost).
unsafe fn bwd_lanes(
    p: &Problem,
    t: &Tables,
    src: *const u8,
    idx: &[usize],
    base: usize,
    acc: &mut [f32],
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let ra = &t.resampled;
        let m = ra.len();
        acc.fill(0.0);
        if m == 0 {
            simd::load_contiguous(p.src.dtype, src, base, acc);
            return;
        }
        let tabs: [Option<&BwdTaps>; MAX_RANK] =
            std::array::from_fn(|a| if a < m { t.bwd[ra[a]].as_ref() } else { None });
        let nearest = p.alg == Algorithm::Nearest;
        let mut g = [0usize; MAX_RANK];
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
                    let mut w = [1.0f32; 3];
                    for a in 0..m {
                        off += lists[a].0[pos[a]] as usize * p.src.strides[ra[a]];
                        if a < 3 {
                            w[a] = lists[a].1[pos[a]];
                        }
                    }
                    if nearest {
                        simd::accumulate(p.src.dtype, 0, src, off, &w, acc);
                    } else if m <= 3 {
                        simd::accumulate(p.src.dtype, m, src, off, &w, acc);
                    } else {
                        let sz = p.src.dtype.size();
                        for (l, a) in acc.iter_mut().enumerate() {
                            let mut q = load_f32(src.add((off + l) * sz), p.src.dtype);
                            for k in 0..m {
                                q *= lists[k].1[pos[k]];
                            }
                            *a += q;
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
}

#[cfg(test)]
mod runs_tests {
    use super::*;

    /// `advance_by(k)` lands where `k` calls of `advance` do, carries included.
    #[test]
    fn advance_by_matches_repeated_advance() {
        let mut seed = 0x5eedu64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for _ in 0..300 {
            let rank = 1 + next(5);
            let mut r = Runs {
                rank,
                ext: [1; MAX_RANK],
                dstr: [0; MAX_RANK],
                sstr: [0; MAX_RANK],
                pos: [0; MAX_RANK],
                doff: 0,
                sbase: 0,
            };
            for a in 0..rank {
                r.ext[a] = 1 + next(5);
                r.dstr[a] = next(100);
                r.sstr[a] = next(100);
            }
            let total: usize = r.ext[..rank].iter().product();
            let start = next(total);
            for _ in 0..start {
                r.advance();
            }
            let k = next(total - start);
            let mut want = Runs { ..r };
            for _ in 0..k {
                want.advance();
            }
            r.advance_by(k);
            assert_eq!(
                (r.pos, r.doff, r.sbase),
                (want.pos, want.doff, want.sbase),
                "start {start} k {k} ext {:?}",
                &r.ext[..rank]
            );
        }
    }
}
