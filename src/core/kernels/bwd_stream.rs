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

use super::super::aligned::AlignedBuf;
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
    /// Without one, short lists padded to a common length for a gather-and-select loop.
    pub padded: Option<Padded>,
    /// Elements with a non-empty list that neither loop above covers (the scalar rest).
    pub rest: Vec<u32>,
    /// Sparse groups (forward downsampling: most lists empty) instead run over the diff_dst
    /// columns: column `o` adds into element `scatter[o].0` (`u32::MAX`: none) with weight
    /// `scatter[o].1`. Each column is in at most one list, and every element's additions
    /// still come in its list's (increasing) order.
    pub scatter: Option<Vec<(u32, f32)>>,
    /// Some element of the scatter has several columns (its sum is then held in a
    /// register over them, see [`scatter_body`]).
    pub scatter_runs: bool,
}

/// Builds [`Segs::scatter`] when the group's lists hold at most `per` entries per element
/// on average, and no column is in two lists.
fn scatter(s: &Segs, n_out: usize, per: usize) -> Option<Vec<(u32, f32)>> {
    let n_in = s.start.len();
    let entries: usize = s.len.iter().map(|&l| l as usize).sum();
    if entries > per * n_in {
        return None;
    }
    let mut sc = vec![(u32::MAX, 0f32); n_out];
    for iw in 0..n_in {
        let (st, wo) = (s.start[iw] as usize, s.wofs[iw] as usize);
        for j in 0..s.len[iw] as usize {
            let e = &mut sc[st + j];
            if e.0 != u32::MAX {
                return None;
            }
            *e = (iw as u32, s.wt[wo + j]);
        }
    }
    Some(sc)
}

/// Every element's list padded to `lmax` columns: column `idx[j * n + iw]` with weight
/// `w[j * n + iw]` for `j < len[iw]`; padding entries read column 0 and are discarded by a
/// select (never added as zero terms: `-0.0 + 0.0` and `inf * 0` would change the bits).
#[derive(Clone, Debug)]
pub(crate) struct Padded {
    pub lmax: usize,
    pub idx: Vec<u32>,
    pub w: Vec<f32>,
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
    /// Nearest where every resampled axis maps input `i` to output `i` alone, and both
    /// tensors share one dense unblocked layout: diff_src = `0.0 + diff_dst` element by
    /// element over this many elements (runs are chunks of [`FLAT`]).
    pub flat: Option<usize>,
    /// diff_src pixels per run of a laned walk: long rows are split into chunks of about
    /// [`CHUNK`] lanes (bounded buffers, work for every thread on one row).
    pub chunk: usize,
    /// Unlaned f32 or bf16 diff_dst rows whose blocks read windows (see [`super::bwd_perm`]).
    pub perm: Option<super::bwd_perm::Perm>,
    /// The resampled axes other than `w`, in order.
    pub others: Vec<usize>,
    /// The permuted and laned walks' row terms per position of the other resampled axes.
    pub rows: Option<RowTable>,
    /// Laned rows of at most [`PASS_LANES`] lanes whose pixels have few `w` terms and whose
    /// rows few terms for their lane walks ([`PASS_ROW_TERMS`]) go pass by pass over the row
    /// (see [`px_small`]) instead of pixel by pixel.
    pub passes: bool,
    /// Laned rows that the pixel walk reads a lane block at a time, jumping between the
    /// columns and rows of each pixel: pixels of at least [`WIDE_BYTES`] with 1.5 or more
    /// `w` entries each on average (forward upsampling). Where the problem is memory-bound
    /// (beyond the cache, see [`crate::core::streaming::Mode`]) they go by [`px_wide`].
    pub wide: bool,
    /// Laned rows pixel by pixel: each diff_src pixel's non-empty `w` lists, in group order
    /// (`pix_segs[pix[iw]..pix[iw + 1]]`), so the walk skips the empty ones (forward
    /// downsampling: one of two groups a pixel).
    pub pix: Vec<u32>,
    pub pix_segs: Vec<PixSeg>,
    /// Laned rows by passes (see [`px_small`]): each `w` group's non-empty lists in pixel
    /// order (`group_pix[group_at[k]..group_at[k + 1]]` for group `k`), so a pass skips the
    /// pixels it adds nothing to (forward downsampling: half of them a group). Empty where
    /// no pixel goes by passes.
    pub group_at: Vec<usize>,
    pub group_pix: Vec<GroupPix>,
    /// The pixel walk prefetches the diff_dst lanes [`PF`] pixels ahead: nearest with at
    /// least two `w` entries a pixel (forward upsampling) and 256 bytes a pixel (nhwc f32
    /// 2x256 50x50 <- 100x100 nearest: 1.35 ms without, 1.26 with); elsewhere it lost (1x64
    /// 224x316 <- 112x158 linear 1.27 with, 1.10 without; 4x40 40x64 <- 80x128 0.71, 0.57;
    /// nearest 2x128 169x82 <- 56x165 0.71, 0.60). Read on x86 only.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub prefetch: bool,
}

/// One pixel's non-empty list of group `seg`: its first column, length and weights' offset.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PixSeg {
    pub seg: u32,
    pub start: u32,
    pub len: u32,
    pub wofs: u32,
}

/// One non-empty list of a `w` group: its pixel, first column, length and weights' offset.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GroupPix {
    pub iw: u32,
    pub start: u32,
    pub len: u32,
    pub wofs: u32,
}

/// Valid lanes of the last lane block (`cdim` lanes in blocks of `l.block`).
fn last_lanes(l: &LaneAxis, cdim: usize) -> usize {
    cdim.saturating_sub(l.nblk.saturating_sub(1) * l.block)
}

/// [`StreamGeom::group_at`] and [`StreamGeom::group_pix`].
fn group_lists(segs: &[Segs]) -> (Vec<usize>, Vec<GroupPix>) {
    let mut at = vec![0];
    let mut ents = Vec::new();
    for sg in segs {
        for (iw, &len) in sg.len.iter().enumerate() {
            if len > 0 {
                ents.push(GroupPix {
                    iw: iw as u32,
                    start: sg.start[iw],
                    len,
                    wofs: sg.wofs[iw],
                });
            }
        }
        at.push(ents.len());
    }
    (at, ents)
}

/// [`StreamGeom::pix`] and [`StreamGeom::pix_segs`] of `n_in` pixels.
fn pixel_lists(segs: &[Segs], n_in: usize) -> (Vec<u32>, Vec<PixSeg>) {
    let mut pix = Vec::with_capacity(n_in + 1);
    let mut ents = Vec::new();
    pix.push(0);
    for iw in 0..n_in {
        for (k, sg) in segs.iter().enumerate() {
            if sg.len[iw] > 0 {
                ents.push(PixSeg {
                    seg: k as u32,
                    start: sg.start[iw],
                    len: sg.len[iw],
                    wofs: sg.wofs[iw],
                });
            }
        }
        pix.push(ents.len() as u32);
    }
    (pix, ents)
}

/// Laned rows go pass by pass (see [`StreamGeom::passes`]) when their lanes are at most this
/// many and their pixels average under [`PASS_TERMS`] `w` list entries: there the walk of
/// one pixel's group combinations and lists costs more than its few additions (1 thread
/// AVX-512, nhwc f32 1x8 448x316 <- 224x158 linear: 1.36 -> 0.47 ms, torch 0.46; 1x16 same
/// 1.43 -> 0.66; 300x300 <- 200x200 1.13 -> 0.62), but with four entries (2x upsampling)
/// the pixel walk keeps its sums in registers over more work (1x16 224x158 <- 448x316:
/// 1.05 ms pixel by pixel, 1.23 by passes).
const PASS_LANES: usize = 24;
const PASS_TERMS: usize = 3;
/// A row's passes cost their loop once per lane walk (see [`pass_walks`]) and term, a
/// pixel's sums once per lane walk of its own ([`pixel_walks`]): rows go by passes while
/// their walks times their average terms stay under this many per pixel walk. 1 thread
/// AVX-512, passes vs pixel walk, ms: nhwc f32 1x16 250x400 <- 500x200 linear (4 terms)
/// 1.36 vs 1.49, 1x8 same 0.99 vs 1.37; 2x8 199x387 <- 596x194 (6 terms) 2.49 vs 2.42; 1x24
/// (two pass walks, one pixel walk) 200x400 <- 300x200 (3 terms) 1.72 vs 1.26. Lanes past a
/// multiple of 8 share the last walk ([`px_passes`]): 1x12 250x400 <- 300x200 (2.4 terms)
/// 1.03 vs 1.33, 1x17 same 1.52 vs 1.50, 1x20 1.37 vs 1.29.
const PASS_ROW_TERMS: f64 = 4.5;

/// Lane walks of a pass over `nl` lanes (16, then 8, the rest fused with the last, see
/// [`px_passes`]).
fn pass_walks(nl: usize) -> usize {
    (nl / 16 + nl % 16 / 8).max(1)
}

/// Lane walks of the pixel walk over `nl` lanes (64, 32, 16, 8 over [`pixel_full`], the
/// rest fused with the last, see [`px_row`]; fewer than 8 lanes go by passes).
fn pixel_walks(nl: usize) -> usize {
    let full = pixel_full(nl);
    (full / 64 + full % 64 / 32 + full % 32 / 16 + full % 16 / 8).max(1)
}

/// The lanes the pixel walk takes in blocks of 64, 32, 16 and 8; a block of 8 covering
/// the rest (overlapping when not a multiple of 8) shares the last block's walk.
fn pixel_full(nl: usize) -> usize {
    if !nl.is_multiple_of(8) {
        nl / 8 * 8
    } else if nl % 16 == 8 && nl > 8 {
        nl - 8
    } else {
        nl
    }
}

/// Smallest pixel (bytes of diff_dst lanes) of a [`StreamGeom::wide`] row: smaller ones are
/// one lane block of the pixel walk, read in one piece.
const WIDE_BYTES: usize = 256;

/// Lanes per run of a walk by passes: a run's row stays in L1 over its passes.
const PASS_CHUNK: usize = 4096;

/// A run's terms and their ranges per group combination, and the diff_dst pointer their
/// offsets count from: the row table's (offsets from the run's base `sbase`) or built into
/// `terms` and `combos` (absolute).
#[allow(clippy::too_many_arguments)]
unsafe fn run_terms<'a>(
    p: &Problem,
    t: &Tables,
    g: &'a StreamGeom,
    ra: &[usize],
    idx: &[usize],
    sbase: usize,
    src: *const u8,
    terms: &'a mut Vec<Term>,
    combos: &'a mut Vec<(u32, u32)>,
) -> (*const u8, &'a [(u32, u32)], &'a [Term]) {
    match &g.rows {
        Some(rt) => {
            let (c, tm) = rt.get(ra, idx);
            // SAFETY: the run's base lies in diff_dst (the caller's contract).
            let base = unsafe { src.add(sbase * p.src.dtype.size()) };
            (base, c, tm)
        }
        None => {
            row_terms(t, &p.src.strides, ra, idx, sbase, terms, combos);
            (src, combos, terms)
        }
    }
}

/// [`row_terms`] of every position of the other resampled axes, built once: a run only
/// looks its position up (building them per row was a quarter of a short-row walk).
#[derive(Clone, Debug)]
pub(crate) struct RowTable {
    /// Per other resampled axis: its step in the position index.
    mult: [usize; MAX_RANK],
    /// Per position: its ranges of `terms` and `combos`.
    at: Vec<[u32; 4]>,
    /// Terms with offsets from the run's diff_dst base.
    terms: Vec<Term>,
    /// Per position, ranges of its terms in the reference's order.
    combos: Vec<(u32, u32)>,
}

/// Most terms a [`RowTable`] holds (16 bytes each); beyond, runs build theirs.
const ROW_TABLE: usize = 1 << 18;

impl RowTable {
    fn new(t: &Tables, strides: &[usize], ra: &[usize], dims: &[usize]) -> Option<Self> {
        let mut mult = [0usize; MAX_RANK];
        let mut n = 1usize;
        for (k, &a) in ra.iter().enumerate().rev() {
            mult[k] = n;
            n = n.checked_mul(dims[a])?;
        }
        if n > ROW_TABLE {
            return None;
        }
        let mut tab = RowTable {
            mult,
            at: Vec::with_capacity(n),
            terms: Vec::new(),
            combos: Vec::new(),
        };
        if n == 0 {
            // No positions (an empty axis): nothing to look up.
            return Some(tab);
        }
        let (mut terms, mut combos) = (Vec::new(), Vec::new());
        let mut idx = vec![0usize; dims.len()];
        let mut pos = [0usize; MAX_RANK];
        loop {
            for (k, &a) in ra.iter().enumerate() {
                idx[a] = pos[k];
            }
            row_terms(t, strides, ra, &idx, 0, &mut terms, &mut combos);
            let (t0, c0) = (tab.terms.len() as u32, tab.combos.len() as u32);
            if tab.terms.len() + terms.len() > ROW_TABLE {
                return None;
            }
            tab.terms.extend_from_slice(&terms);
            tab.combos.extend_from_slice(&combos);
            let (t1, c1) = (tab.terms.len() as u32, tab.combos.len() as u32);
            tab.at.push([t0, t1, c0, c1]);
            if !odometer(&mut pos[..ra.len()], |k| dims[ra[k]]) {
                break;
            }
        }
        Some(tab)
    }

    /// The terms of the run at `idx` and their combos (ranges of those terms).
    #[inline]
    fn get(&self, ra: &[usize], idx: &[usize]) -> (&[(u32, u32)], &[Term]) {
        let k: usize = ra
            .iter()
            .enumerate()
            .map(|(k, &a)| idx[a] * self.mult[k])
            .sum();
        let [t0, t1, c0, c1] = self.at[k].map(|x| x as usize);
        (&self.combos[c0..c1], &self.terms[t0..t1])
    }
}

/// Lanes per run of a laned walk before its row is split.
const CHUNK: usize = 1 << 15;

/// Elements per run of the flat walk.
const FLAT: usize = 1 << 14;

/// Whether every list of `tab` is the single output `i` (weight 1) for input `i`.
fn identity_like(tab: &BwdTaps, n: usize) -> bool {
    tab.groups == 1
        && tab.inputs() == n
        && (0..n).all(|i| {
            let (o, w) = tab.group(i, 0);
            o.len() == 1 && o[0] as usize == i && w[0] == 1.0
        })
}

/// Elements of a layout whose elements fill `offset..offset + n` exactly, if it is one.
fn dense_span(l: &super::super::Layout) -> Option<usize> {
    if l.blocks.iter().any(|&b| b > 1) || l.padded != l.dims {
        return None;
    }
    let mut axes: Vec<usize> = (0..l.rank()).filter(|&a| l.dims[a] > 1).collect();
    axes.sort_by_key(|&a| l.strides[a]);
    let mut n = 1usize;
    for a in axes {
        if l.strides[a] != n {
            return None;
        }
        n = n.checked_mul(l.dims[a])?;
    }
    Some(n)
}

/// Largest cached scaled-row block (f32 values) of the unlaned walk.
const T_CACHE: usize = 1 << 16;

/// Builds the `w` segments from its backward table, or `None` when some list is not a
/// contiguous increasing range of outputs (then the per-element gather runs instead).
fn segments(tab: &BwdTaps, n_in: usize, n_out: usize, nearest: bool) -> Option<Vec<Segs>> {
    let mut all = Vec::with_capacity(tab.groups);
    for g in 0..tab.groups {
        let mut s = Segs {
            start: Vec::with_capacity(n_in),
            len: Vec::with_capacity(n_in),
            wofs: Vec::with_capacity(n_in),
            wt: Vec::new(),
            uniform: None,
            padded: None,
            rest: Vec::new(),
            scatter: None,
            scatter_runs: false,
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
        // The scatter costs an addition per column, the padded gather one per element and
        // list slot, the uniform loops less than either: scatter up to one entry per element
        // (forward downsampling), and linear lists up to two per element without a uniform
        // stretch (non-integer upsampling). AVX-512, 1 thread, nchw f32 linear, before ->
        // after: 4x17 60x127 <- 180x64 3.58 -> 2.02 ms (PyTorch 2.78), 8x16 60x75 <- 100x100
        // 4.82 -> 3.70; 2x upsampling keeps its uniform loops (7.7 ms, 18.6 scattered), and
        // nearest its padded gather (8x16 60x75 <- 100x130: 1.11, 1.20 scattered).
        // A uniform stretch over less than half the elements leaves the rest to the scalar
        // loop (nchw f32 1x128 69x73 <- 23x142 linear: 18 of 73 elements, 5.2 ms; PyTorch
        // 3.8): the scatter then takes the row.
        let uni = uniform(&s).filter(|u| 2 * (u.i1 - u.i0) >= n_in);
        s.scatter = scatter(&s, n_out, 1)
            .or_else(|| scatter(&s, n_out, 2).filter(|_| !nearest && uni.is_none()));
        s.scatter_runs = s.scatter.is_some() && s.len.iter().any(|&l| l > 1);
        if s.scatter.is_none() {
            s.uniform = uni;
            if s.uniform.is_none() {
                s.padded = padded(&s);
            }
        }
        let covered = |iw: usize| match (&s.uniform, &s.padded) {
            _ if s.scatter.is_some() => true,
            (Some(u), _) => (u.i0..u.i1).contains(&iw),
            (None, Some(_)) => true,
            (None, None) => false,
        };
        s.rest = (0..n_in)
            .filter(|&iw| s.len[iw] > 0 && !covered(iw))
            .map(|iw| iw as u32)
            .collect();
        all.push(s);
    }
    Some(all)
}

/// Whether a nearest row walk over these `w` lists runs its unrolled loops (each group has
/// a fixed-shape stretch or scatters) rather than the padded gather.
pub(crate) fn unrolled_rows(tab: &BwdTaps, n_in: usize, n_out: usize) -> bool {
    segments(tab, n_in, n_out, true).is_some_and(|all| {
        all.iter()
            .all(|s| s.scatter.is_some() || s.uniform.is_some())
    })
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

/// Longest list the gather-and-select loop pads to.
const MAX_PAD: usize = 8;

fn padded(s: &Segs) -> Option<Padded> {
    let n = s.start.len();
    let lmax = s.len.iter().copied().max().unwrap_or(0) as usize;
    let cols = s
        .start
        .iter()
        .zip(&s.len)
        .map(|(&a, &l)| a as u64 + l as u64)
        .max();
    if n < 8 || lmax == 0 || lmax > MAX_PAD || cols.unwrap_or(0) > i32::MAX as u64 {
        return None;
    }
    let mut p = Padded {
        lmax,
        idx: vec![0; lmax * n],
        w: vec![0.0; lmax * n],
    };
    for iw in 0..n {
        for j in 0..s.len[iw] as usize {
            p.idx[j * n + iw] = s.start[iw] + j as u32;
            p.w[j * n + iw] = s.wt[s.wofs[iw] as usize + j];
        }
    }
    Some(p)
}

/// Longest fixed-stride rows that take quad windows (see [`plan`]).
const QUAD_STRIDED: usize = 96;
/// Shortest bf16 nearest rows that take quad windows.
const QUAD_BF16_NEAREST: usize = 64;

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
    if d.dims[w].max(s.dims[w]) > super::MAX_ROW {
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
    let flat = (p.alg == Algorithm::Nearest
        && s.dims == d.dims
        && (0..rank).all(|a| s.dims[a] <= 1 || s.strides[a] == d.strides[a])
        && t.resampled
            .iter()
            .all(|&a| identity_like(t.bwd[a].as_ref().unwrap(), d.dims[a])))
    .then(|| dense_span(s).filter(|&n| dense_span(d) == Some(n)))
    .flatten();
    let nearest = p.alg == Algorithm::Nearest;
    let segs = segments(t.bwd[w].as_ref()?, d.dims[w], s.dims[w], nearest)?;
    let others: Vec<usize> = t.resampled.iter().copied().filter(|&a| a != w).collect();
    if let Some(n) = flat {
        return Some(StreamGeom {
            w,
            lane,
            runs: n.div_ceil(FLAT),
            segs,
            nweights,
            flat,
            chunk: d.dims[w].max(1),
            perm: None,
            others,
            rows: None,
            passes: false,
            wide: false,
            pix: Vec::new(),
            pix_segs: Vec::new(),
            group_at: Vec::new(),
            group_pix: Vec::new(),
            prefetch: false,
        });
    }
    let entries: usize = segs
        .iter()
        .flat_map(|sg| &sg.len)
        .map(|&l| l as usize)
        .sum();
    // Terms a diff_src row averages (diff_dst rows of the other resampled axes reading it).
    let row_terms: f64 = others
        .iter()
        .map(|&a| {
            let b = t.bwd[a].as_ref().unwrap();
            b.out.len() as f64 / b.inputs().max(1) as f64
        })
        .product();
    let passes = lane.as_ref().is_some_and(|l| {
        l.block <= PASS_LANES
            && entries < PASS_TERMS * d.dims[w]
            // (Fewer than 8 lanes go by passes anyway.)
            && (l.block < 8
                || (pass_walks(l.block) as f64) * row_terms
                    < PASS_ROW_TERMS * pixel_walks(l.block) as f64)
    });
    let wide = !passes
        && 2 * entries >= 3 * d.dims[w]
        && lane
            .as_ref()
            .is_some_and(|l| l.block * s.dtype.size() >= WIDE_BYTES);
    // At least 1 (empty axes and lanes are valid problems).
    let chunk = match &lane {
        Some(l) if passes => (PASS_CHUNK / l.block.max(1)).max(1),
        Some(l) => (CHUNK / l.block.max(1)).max(1),
        None => d.dims[w].max(1),
    };
    let runs = (0..rank)
        .filter(|&a| a != w && lane.as_ref().is_none_or(|l| l.c != a))
        .try_fold(1usize, |n, a| n.checked_mul(d.dims[a]))?
        .checked_mul(lane.as_ref().map_or(1, |l| l.nblk))?
        .checked_mul(d.dims[w].div_ceil(chunk).max(1))?;
    // Permuted windows: AVX-512 f32 blocks of 16 for every linear row walk; nearest keeps its
    // fixed-stride loops where each group has them (nchw f32 8x64 56x56 <- 112x112: 1.74
    // ms there, 1.91 permuted; non-integer ratios: 56x56 <- 75x75 3.76 -> 1.64).
    // AVX-512 blocks of 8 (ratios 2..4) only where some group lacks a fixed-stride stretch
    // (nchw 4x8 50x200 <- 50x600 linear: 0.49 ms there, 1.08 permuted; 3-D 8x30x40 <-
    // 12x45x100: 11.8 -> 4.0).
    let unrolled = segs
        .iter()
        .all(|sg| sg.uniform.is_some() || sg.scatter.is_some());
    let mut perm = (lane.is_none()
        && matches!(s.dtype, DataType::F32 | DataType::Bf16)
        && !(nearest && unrolled))
        .then(|| {
            // bf16 quad windows convert four vectors a window: short nearest rows (one
            // product a slot) lose on them (1 thread, ms, blocks of 8 -> quad: nchw 8x64
            // 40x40 <- 100x100 1.37 -> 1.63; 8x16 80x80 <- 200x200 1.06 -> 1.02).
            let quad = match s.dtype {
                DataType::F32 => true,
                DataType::Bf16 => !nearest || d.dims[w] >= QUAD_BF16_NEAREST,
                _ => false,
            };
            super::bwd_perm::plan(simd::isa(), &segs, d.dims[w], s.dims[w], quad)
        })
        .flatten()
        .map(|mut pm| {
            // (Nearest rows take the general blocks.)
            if nearest {
                pm.pairs = None;
            }
            pm
        })
        .filter(|pm| {
            let strided = segs.iter().all(|sg| sg.uniform.is_some());
            match (pm.isa, pm.lanes, s.dtype) {
                // Quad windows (ratios ~2-4) leave long fixed-stride rows to their loops
                // (which the compiler vectorises with shared windows), not short ones:
                // 1 thread, ms, loops -> quad: nchw 8x64 40x40 <- 120x120 7.9 -> 4.4, 8x8
                // 80x80 <- 240x240 2.6 -> 1.9, 2x8 160x160 <- 480x480 2.0 -> 2.0, 4x8 50x100
                // <- 50x300 0.28 -> 0.36, 50x400 <- 50x1200 0.85 -> 1.38; non-integer
                // ratios take them (1x16 40000 <- 100000: 8-lane windows 2.55 -> 1.13).
                // bf16 likewise: 1x16 40000 <- 100000 linear 2.45 -> 1.06, nearest 0.83 ->
                // 0.39; 8x64 40x40 <- 120x120 linear (loops before) 7.98 -> 5.52; 8x8
                // 80x80 <- 240x240 2.64 -> 2.28; 3-D 2x8 12x45x100 <- 30x40x250 10.9 -> 8.5.
                (simd::Isa::Avx512, 16, DataType::F32 | DataType::Bf16) if pm.quad => {
                    !strided || d.dims[w] <= QUAD_STRIDED
                }
                (simd::Isa::Avx512, 16, DataType::F32) => true,
                // bf16 linear since its partial windows load in place (`bwd_perm`): 1 thread,
                // ms, the loops below -> permuted: nchw 8x64 112x112 <- 56x56 10.8 -> 6.3,
                // 1x3 45x60x93 <- 65x30x31 3.6 -> 2.5, 1x8 60x300 <- 30x100 0.13 -> 0.09.
                (simd::Isa::Avx512, 16, DataType::Bf16) if !nearest => true,
                // Repeating rows (bf16 too) beat the fixed-stride loops: 1 thread, nchw 8x64
                // 56x56 <- 112x112 linear bf16 18 -> 6 ms, 1x8 256x256 <- 512x512 1.8 -> 1.3.
                (simd::Isa::Avx512, 16, _) if pm.repeat.is_some() => true,
                // 2x rows as even and odd columns (`bwd_repeat::Pairs`), linear.
                (simd::Isa::Avx2, 8, _) if pm.pairs.is_some() => true,
                (simd::Isa::Avx512, _, DataType::F32) => !strided,
                // AVX2 (blocks of 8, two permutes and two blends a slot) and bf16 (windows
                // converted as they are loaded) win over the gather loops (AVX2 nchw 8x64
                // 56x56 <- 75x75 linear 10.0 -> 6.2 ms, nearest 3.8 -> 2.8; AVX-512 bf16
                // linear 11.7 -> 7.3) but not over the fixed-stride loops or the scatter of
                // forward downsampling (AVX2 112x112 <- 56x56 linear: 5.6 there, 10.9 here;
                // AVX-512 bf16 6.9, 10.6; bf16 56x56 <- 112x112 8.8, 11.0: bf16 before its
                // partial windows loaded in place; nearest bf16 not measured since).
                // AVX2 blocks of 4 (ratios 2..4): linear only (3-D 8x30x40 <- 12x45x100
                // 11.4 -> 8.1 ms; nearest 4x16 50x100 <- 60x250 0.56 there, 1.01 here).
                (_, 4, _) => !strided && s.dims[w] >= d.dims[w] && !nearest,
                _ => !strided && s.dims[w] >= d.dims[w],
            }
        });
    let rows = (perm.is_some() || lane.is_some())
        .then(|| RowTable::new(t, &s.strides, &others, &d.dims))
        .flatten();
    if let Some(pm) = perm.as_mut() {
        pm.together = rows.is_some() && pm.fits_rows(s.dtype);
    }
    let (pix, pix_segs) = match &lane {
        Some(_) if !passes => pixel_lists(&segs, d.dims[w]),
        _ => (Vec::new(), Vec::new()),
    };
    // Only walks that may go by passes: pixels of fewer than 8 lanes always do (a short last
    // block too); wide pixel walks would carry a second copy of every list for nothing.
    let (group_at, group_pix) = match &lane {
        Some(l) if passes || wide || l.block.min(last_lanes(l, d.dims[l.c])) < 8 => {
            group_lists(&segs)
        }
        _ => (Vec::new(), Vec::new()),
    };
    Some(StreamGeom {
        w,
        lane,
        runs,
        segs,
        nweights,
        flat: None,
        chunk,
        perm,
        others,
        rows,
        passes,
        wide,
        pix,
        pix_segs,
        group_at,
        group_pix,
        prefetch: nearest && entries >= 2 * d.dims[w],
    })
}

/// diff_dst elements a run reads (for the thread grain).
pub(crate) fn run_cost(p: &Problem, g: &StreamGeom) -> usize {
    if g.flat.is_some() {
        return FLAT;
    }
    let lanes = g.lane.as_ref().map_or(1, |l| l.block);
    let chunks = p.dst.dims[g.w].div_ceil(g.chunk).max(1);
    ((p.src.dims[g.w] + p.dst.dims[g.w]) * lanes * g.segs.len() * 2).div_ceil(chunks)
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
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        if let Some(n) = g.flat {
            return flat(p, n, b, start, end);
        }
        match &g.lane {
            Some(l) => laned(p, t, g, l, b, start, end),
            None => unlaned(p, t, g, b, start, end),
        }
    }
}

/// Lists: per other resampled axis, its (outputs, weights) for one group combination.
pub(super) type Lists<'a> = [(&'a [u32], &'a [f32]); MAX_RANK];

/// No lists yet (for [`lists`] to fill).
pub(super) const NO_LISTS: Lists<'static> = [(&[], &[]); MAX_RANK];

/// Fills `ls` with the other resampled axes' lists for group combination `gi` at `idx`;
/// `false` if one is empty. In place: returning the array was a copy per call, a tenth of a
/// short-row walk's time.
#[inline]
pub(super) fn lists<'a>(
    t: &'a Tables,
    ra: &[usize],
    idx: &[usize],
    gi: &[usize],
    ls: &mut Lists<'a>,
) -> bool {
    for a in 0..ra.len() {
        ls[a] = t.bwd[ra[a]].as_ref().unwrap().group(idx[ra[a]], gi[a]);
        if ls[a].0.is_empty() {
            return false;
        }
    }
    true
}

/// Whether another resampled axis gives the diff_src row at `idx` nothing.
#[inline]
fn receives_nothing(t: &Tables, ra: &[usize], idx: &[usize]) -> bool {
    ra.iter()
        .any(|&a| t.bwd[a].as_ref().unwrap().receives_nothing(idx[a]))
}

/// Zeroes the diff_src row at `doff` (`n` elements of `dt`) when another resampled axis
/// gives it nothing at `idx` (downsampling past the taps): no lists to walk, no sums
/// (nearest nchw 8x16 23x19x13 <- 8x35x26, two thirds of the rows empty: f32 1.52 -> 1.41
/// ms, bf16 2.15 -> 1.90; PyTorch 1.48, 1.75).
#[inline]
unsafe fn zero_if_empty(
    t: &Tables,
    ra: &[usize],
    idx: &[usize],
    dst: *mut u8,
    doff: usize,
    n: usize,
    dt: DataType,
) -> bool {
    let empty = receives_nothing(t, ra, idx);
    if empty {
        // SAFETY: the caller's row, `n` elements of `dt` at `doff`, written by it alone;
        // zero bits are zero in every type.
        unsafe { std::ptr::write_bytes(dst.add(doff * dt.size()), 0, n * dt.size()) };
    }
    empty
}

/// Unlaned rows (nchw-like: `w` is the unit-stride last axis).
unsafe fn unlaned(p: &Problem, t: &Tables, g: &StreamGeom, b: Bufs<'_>, start: usize, end: usize) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let (s, d) = (&p.src, &p.dst);
        let rank = d.rank();
        let w = g.w;
        let ra = &g.others[..];
        let m = ra.len();
        let (n_out, n_in) = (s.dims[w], d.dims[w]);
        let nearest = p.alg == Algorithm::Nearest;
        // Scaled rows are the source itself when nothing scales or converts them.
        let direct = s.dtype == DataType::F32 && (nearest || m == 0) && aligned(b.src);
        // Linear with one other axis over an f32 source: its weight is applied inside the
        // segment sums, reading the source rows directly (no scaled-row pass).
        let fused = s.dtype == DataType::F32
            && !nearest
            && m == 1
            && aligned(b.src)
            && g.segs.iter().all(|sg| sg.padded.is_none());
        // f32 results accumulate in place in diff_src (rows are contiguous).
        let in_place = d.dtype == DataType::F32 && aligned(b.dst);
        #[cfg(target_arch = "x86_64")]
        if let Some(pm) = g
            .perm
            .as_ref()
            .filter(|_| s.dtype != DataType::F32 || aligned(b.src))
        {
            return permuted(p, t, g, pm, ra, b, start, end);
        }
        let mut acc = AlignedBuf::<f32>::zeroed(n_in);
        let mut tbuf = AlignedBuf::<f32>::new();
        let mut runs = Runs::new(p, t, &[(w, 1, 0, 0)], start);
        for _ in start..end {
            let idx = runs.pos;
            let (doff, sbase) = (runs.doff, runs.sbase);
            runs.advance();
            if zero_if_empty(t, ra, &idx[..rank], b.dst, doff, n_in, d.dtype) {
                continue;
            }
            // SAFETY: this diff_src row (n_in contiguous, aligned f32) belongs to this run only.
            let acc: &mut [f32] = if in_place {
                std::slice::from_raw_parts_mut((b.dst as *mut f32).add(doff), n_in)
            } else {
                &mut acc
            };
            acc.fill(0.0);
            let mut gi = [0usize; MAX_RANK];
            let mut ls = NO_LISTS;
            loop {
                if lists(t, ra, &idx[..rank], &gi[..m], &mut ls) {
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
                    let cache = !direct && !fused && npos.saturating_mul(n_out) <= T_CACHE;
                    if cache {
                        tbuf.resize(npos * n_out);
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
                    } else if !direct && !fused {
                        tbuf.resize(n_out);
                    }
                    for seg in &g.segs {
                        for q in 0..npos {
                            if fused {
                                let (off, wv) = row(q);
                                let tr = (b.src as *const f32).add(off);
                                seg_sum(tr, seg, nearest, Some(wv[0]), acc);
                                continue;
                            }
                            let tr: *const f32 = if direct {
                                (b.src as *const f32).add(row(q).0)
                            } else if cache {
                                tbuf.as_ptr().add(q * n_out)
                            } else {
                                let (off, wv) = row(q);
                                scale_row(s.dtype, ms, b.src, off, &wv, &mut tbuf[..n_out]);
                                tbuf.as_ptr()
                            };
                            seg_sum(tr, seg, nearest, None, acc);
                        }
                    }
                }
                if !odometer(&mut gi[..m], |a| t.bwd[ra[a]].as_ref().unwrap().groups) {
                    break;
                }
            }
            if !in_place {
                simd::store_contiguous(d.dtype, p.numerics, acc, b.dst.add(doff * d.dtype.size()));
            }
        }
    }
}

/// Software read-ahead of diff_dst for walks whose rows move forward through it, from the
/// end of the furthest row read so far. A row's terms jump between several diff_dst rows
/// (4 per 2x linear row) and its arithmetic is long, so the hardware prefetchers alone left
/// one thread waiting on memory. From cache [`READ_AHEAD`] into L1; linear walks from
/// memory [`super::read_ahead::FAR`] into L2 (1 thread, Zen 4, side by side both orders,
/// nchw f32: 4x32 150x150 <- 301x301 0.63-0.65x the time, 2x32 300x300 <- 601x601
/// 0.66-0.71x, 2x32 200x300 <- 401x599 0.61-0.64x, 8x64 100x100 <- 201x201 0.90-0.94x;
/// `RESAMPLE_ISA=avx2` 0.80x, 2 threads 0.65x). Nearest walks keep the near requests: their
/// light sums left the hardware's stream ahead on some shapes (8x64 100x100 <- 201x201
/// 1.3-1.5x the time asking far, where 4x32 150x150 <- 301x301 took 0.5-0.6x).
#[cfg(target_arch = "x86_64")]
struct ReadAhead {
    /// Bytes a diff_dst row spans.
    row: usize,
    cursor: super::read_ahead::ReadAhead,
}

#[cfg(target_arch = "x86_64")]
const READ_AHEAD: usize = 2048;

#[cfg(target_arch = "x86_64")]
impl ReadAhead {
    /// `far`: the walk may ask from memory at [`super::read_ahead::FAR`].
    fn new(row: usize, far: bool) -> Self {
        ReadAhead {
            row,
            cursor: match far && crate::core::streaming::beyond() {
                true => super::read_ahead::ReadAhead::from_memory(true),
                false => super::read_ahead::ReadAhead::new(READ_AHEAD, false),
            },
        }
    }

    /// Prefetches ahead of the rows of `terms` (offsets in elements of `size` bytes from
    /// `src`).
    fn rows(&mut self, src: *const u8, size: usize, terms: &[Term]) {
        let Some(hi) = terms.iter().map(|t| t.off).max() else {
            return;
        };
        self.cursor.reach(src.wrapping_add(hi * size + self.row));
    }
}

/// Rows summed together by [`permuted`] (see [`super::bwd_perm::rows`]).
#[cfg(target_arch = "x86_64")]
const ROWS: usize = 4;

/// Slot-table bytes of a row beyond which the permuted walk goes in block ranges over
/// batches of [`CHUNKED_RUNS`] runs (a range's tables a quarter of this).
#[cfg(target_arch = "x86_64")]
const CHUNKED_TABLE: usize = 1 << 20;
#[cfg(target_arch = "x86_64")]
const CHUNKED_RUNS: usize = 16;

/// [`unlaned`] by permuted windows (see [`super::bwd_perm`]). Where the tables say so
/// ([`super::bwd_perm::Perm::together`]), runs whose terms come from the row table and have
/// the same combos go [`ROWS`] at a time.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
unsafe fn permuted(
    p: &Problem,
    t: &Tables,
    g: &StreamGeom,
    pm: &super::bwd_perm::Perm,
    ra: &[usize],
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    use super::bwd_perm::{row, rows};
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and the kernel runs on the ISA its tables were planned for (the plan's).
    unsafe {
        let (s, d) = (&p.src, &p.dst);
        let rank = d.rank();
        let m = ra.len();
        let n_in = d.dims[g.w];
        let lin = p.alg != Algorithm::Nearest;
        let bf = s.dtype == DataType::Bf16;
        let in_place = d.dtype == DataType::F32 && aligned(b.dst);
        let mut acc = AlignedBuf::<f32>::zeroed(if in_place { 0 } else { n_in * ROWS });
        // Row `r`'s sums when they are converted after (not in place).
        let accp = acc.as_mut_ptr();
        let sums = |r: usize| std::slice::from_raw_parts(accp.add(r * n_in), n_in);
        let (mut terms, mut combos) = (Vec::new(), Vec::new());
        let mut runs = Runs::new(p, t, &[(g.w, 1, 0, 0)], start);
        let mut ahead = ReadAhead::new(s.dims[g.w] * s.dtype.size(), lin);
        // One row's blocks `blocks` into `out`.
        let sum_row = |src: *const u8,
                       combos: &[(u32, u32)],
                       terms: &[Term],
                       out: *mut f32,
                       blocks: std::ops::Range<usize>| {
            macro_rules! by_dt {
                ($m:literal, $lin:literal) => {
                    if bf {
                        row::<$m, $lin, true>(src, pm, &g.segs, combos, terms, out, n_in, blocks)
                    } else {
                        row::<$m, $lin, false>(src, pm, &g.segs, combos, terms, out, n_in, blocks)
                    }
                };
            }
            match (m, lin) {
                (_, false) => by_dt!(0, false),
                (0, true) => by_dt!(0, true),
                (1, true) => by_dt!(1, true),
                _ => by_dt!(2, true),
            }
        };
        // One row alone.
        let one = |ahead: &mut ReadAhead,
                   src: *const u8,
                   combos: &[(u32, u32)],
                   terms: &[Term],
                   doff: usize| {
            ahead.rows(src, s.dtype.size(), terms);
            let out = if in_place {
                (b.dst as *mut f32).add(doff)
            } else {
                accp
            };
            sum_row(src, combos, terms, out, 0..pm.nblk);
            if !in_place {
                let a = sums(0);
                simd::store_contiguous(d.dtype, p.numerics, a, b.dst.add(doff * d.dtype.size()));
            }
        };
        // Rows whose slot tables outgrow the L2 cache go a batch of runs at a time, a
        // range of blocks at a time, so that each range's tables are read from memory once
        // a batch instead of once a row.
        let table: usize = pm.groups.iter().map(|gr| gr.slots.len()).sum::<usize>()
            * std::mem::size_of::<super::bwd_perm::Slot>();
        if let Some(rt) = g.rows.as_ref().filter(|_| {
            in_place
                && !pm.together
                && pm.repeat.is_none()
                && pm.pairs.is_none()
                && table > CHUNKED_TABLE
        }) {
            let per = (pm.nblk * CHUNKED_TABLE / 4 / table).max(1);
            let mut batch = Vec::with_capacity(CHUNKED_RUNS);
            let mut at = start;
            while at < end {
                batch.clear();
                while batch.len() < CHUNKED_RUNS && at < end {
                    let idx = runs.pos;
                    let (doff, sbase) = (runs.doff, runs.sbase);
                    runs.advance();
                    at += 1;
                    if zero_if_empty(t, ra, &idx[..rank], b.dst, doff, n_in, d.dtype) {
                        continue;
                    }
                    let (c, tm) = rt.get(ra, &idx[..rank]);
                    batch.push((doff, b.src.add(sbase * s.dtype.size()), c, tm));
                }
                let mut b0 = 0;
                while b0 < pm.nblk {
                    let b1 = (b0 + per).min(pm.nblk);
                    for &(doff, src, combos, terms) in &batch {
                        sum_row(src, combos, terms, (b.dst as *mut f32).add(doff), b0..b1);
                    }
                    b0 = b1;
                }
            }
            return;
        }
        let mut at = start;
        while at < end {
            let idx = runs.pos;
            let (doff, sbase) = (runs.doff, runs.sbase);
            runs.advance();
            at += 1;
            if zero_if_empty(t, ra, &idx[..rank], b.dst, doff, n_in, d.dtype) {
                continue;
            }
            let out_at = |doff: usize, r: usize| {
                if in_place {
                    (b.dst as *mut f32).add(doff)
                } else {
                    accp.add(r * n_in)
                }
            };
            if let Some(rt) = g
                .rows
                .as_ref()
                .filter(|_| pm.together && !bf && end - at >= ROWS - 1)
            {
                // The next runs join this one while they share its combos.
                let (c0, t0) = rt.get(ra, &idx[..rank]);
                let mut batch = [(doff, sbase, t0); ROWS];
                let mut n = 1;
                while n < ROWS {
                    let (ci, ti) = rt.get(ra, &runs.pos[..rank]);
                    if ci != c0 || receives_nothing(t, ra, &runs.pos[..rank]) {
                        break;
                    }
                    batch[n] = (runs.doff, runs.sbase, ti);
                    runs.advance();
                    at += 1;
                    n += 1;
                }
                if n == ROWS {
                    let srcs = batch.map(|(_, sb, _)| b.src.add(sb * s.dtype.size()));
                    for (k, tm) in batch.iter().enumerate() {
                        ahead.rows(srcs[k], s.dtype.size(), tm.2);
                    }
                    let pos = batch.map(|x| x.2);
                    let outs: [*mut f32; ROWS] = std::array::from_fn(|r| out_at(batch[r].0, r));
                    // (f32 diff_dst only: see `Perm::fits_rows`.)
                    match (m, lin) {
                        (_, false) => {
                            rows::<0, false, false, ROWS>(srcs, pm, &g.segs, c0, pos, outs, n_in)
                        }
                        (0, true) => {
                            rows::<0, true, false, ROWS>(srcs, pm, &g.segs, c0, pos, outs, n_in)
                        }
                        (1, true) => {
                            rows::<1, true, false, ROWS>(srcs, pm, &g.segs, c0, pos, outs, n_in)
                        }
                        _ => rows::<2, true, false, ROWS>(srcs, pm, &g.segs, c0, pos, outs, n_in),
                    }
                    if !in_place {
                        for (r, x) in batch.iter().enumerate() {
                            let a = sums(r);
                            simd::store_contiguous(
                                d.dtype,
                                p.numerics,
                                a,
                                b.dst.add(x.0 * d.dtype.size()),
                            );
                        }
                    }
                    continue;
                }
                // Fewer: one by one.
                for &(doff, sbase, tm) in &batch[..n] {
                    let src = b.src.add(sbase * s.dtype.size());
                    one(&mut ahead, src, c0, tm, doff);
                }
                continue;
            }
            let (src, combos, terms) = run_terms(
                p,
                t,
                g,
                ra,
                &idx[..rank],
                sbase,
                b.src,
                &mut terms,
                &mut combos,
            );
            one(&mut ahead, src, combos, terms, doff);
        }
    }
}

/// The flat walk: `0.0 + x` per element (the reference's accumulation of a single term:
/// it turns -0.0 into +0.0), then the usual store.
unsafe fn flat(p: &Problem, n: usize, b: Bufs<'_>, start: usize, end: usize) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let (s, d) = (&p.src, &p.dst);
        let f32_only = s.dtype == DataType::F32 && d.dtype == DataType::F32;
        let mut buf = AlignedBuf::<f32>::zeroed(if f32_only { 0 } else { FLAT.min(n) });
        for r in start..end {
            let i0 = r * FLAT;
            let c = FLAT.min(n - i0);
            if f32_only {
                let sp = (b.src as *const f32).add(s.offset + i0);
                add_zero_f32(sp, (b.dst as *mut f32).add(d.offset + i0), c);
                continue;
            }
            let v = &mut buf[..c];
            scale_row(s.dtype, 0, b.src, s.offset + i0, &[1.0; 3], v);
            add_zero(v);
            simd::store_contiguous(
                d.dtype,
                p.numerics,
                v,
                b.dst.add((d.offset + i0) * d.dtype.size()),
            );
        }
    }
}

/// `dst[i] = 0.0 + src[i]` over f32 of any alignment, in one pass.
unsafe fn add_zero_f32(src: *const f32, dst: *mut f32, n: usize) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        #[inline(always)]
        unsafe fn body(src: *const f32, dst: *mut f32, n: usize) {
            // SAFETY: the caller's contract (the plan checked the buffers): every address formed
            // here lies in the buffers the problem's layouts describe, this call's dst elements
            // are written by it alone, and vector code runs only on an ISA the CPU has.
            unsafe {
                for i in 0..n {
                    dst.add(i)
                        .write_unaligned(src.add(i).read_unaligned() + 0.0);
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn avx2(src: *const f32, dst: *mut f32, n: usize) {
            // SAFETY: the caller's contract (the plan checked the buffers): every address formed
            // here lies in the buffers the problem's layouts describe, this call's dst elements
            // are written by it alone, and vector code runs only on an ISA the CPU has.
            unsafe { body(src, dst, n) }
        }
        #[cfg(target_arch = "x86_64")]
        if simd::isa() != simd::Isa::Base {
            return avx2(src, dst, n);
        }
        body(src, dst, n)
    }
}

/// `v = 0.0 + v` (not a no-op: -0.0 becomes +0.0).
fn add_zero(v: &mut [f32]) {
    #[inline(always)]
    fn body(v: &mut [f32]) {
        for x in v.iter_mut() {
            *x += 0.0;
        }
    }
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn avx2(v: &mut [f32]) {
        body(v)
    }
    #[cfg(target_arch = "x86_64")]
    if simd::isa() != simd::Isa::Base {
        // SAFETY: AVX2 is present (the ISA was detected).
        return unsafe { avx2(v) };
    }
    body(v)
}

/// Whether `p` may be read or written as f32 in place.
fn aligned(p: *const u8) -> bool {
    (p as usize).is_multiple_of(std::mem::align_of::<f32>())
}

/// `acc[iw] += t[o] (* w)` over each element's column range, in column order.
///
/// `scale`: `tr` is the unscaled f32 source row and each value is first multiplied by this
/// other-axis weight (the product the scaled row would hold); only for segments without a
/// padded table.
unsafe fn seg_sum(tr: *const f32, seg: &Segs, nearest: bool, scale: Option<f32>, acc: &mut [f32]) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        if let Some(sc) = &seg.scatter {
            let wh = scale.unwrap_or(1.0);
            match (nearest, scale.is_some(), seg.scatter_runs) {
                (true, false, false) => scatter_body::<true, false, false>(tr, sc, wh, acc),
                (true, true, false) => scatter_body::<true, true, false>(tr, sc, wh, acc),
                (false, false, false) => scatter_body::<false, false, false>(tr, sc, wh, acc),
                (false, true, false) => scatter_body::<false, true, false>(tr, sc, wh, acc),
                (true, false, true) => scatter_body::<true, false, true>(tr, sc, wh, acc),
                (true, true, true) => scatter_body::<true, true, true>(tr, sc, wh, acc),
                (false, false, true) => scatter_body::<false, false, true>(tr, sc, wh, acc),
                (false, true, true) => scatter_body::<false, true, true>(tr, sc, wh, acc),
            }
            return;
        }
        match (&seg.uniform, &seg.padded) {
            (Some(u), _) => seg_uniform(tr, u, nearest, scale, acc.as_mut_ptr().add(u.i0)),
            (None, Some(pd)) => {
                debug_assert!(scale.is_none());
                seg_gather(tr, pd, &seg.len, nearest, acc);
            }
            (None, None) => {}
        }
        for &iw in &seg.rest {
            let iw = iw as usize;
            let (st, ln, wo) = (
                seg.start[iw] as usize,
                seg.len[iw] as usize,
                seg.wofs[iw] as usize,
            );
            let mut v = acc[iw];
            for (j, &ww) in seg.wt[wo..wo + ln].iter().enumerate() {
                let mut x = *tr.add(st + j);
                if let Some(wh) = scale {
                    x *= wh;
                }
                v += if nearest { x } else { x * ww };
            }
            acc[iw] = v;
        }
    }
}

/// [`Segs::scatter`]'s loop with the mode fixed: `acc[e] += (x (* wh)) (* w)` per column.
/// With `RUNS` (elements of several columns), an element's columns are consecutive (its
/// list is a range, and a column is in one list at most), so its sum stays in a register
/// over them and is stored once: adding through memory chains each column to the store
/// before it. Without, each column adds through memory (a register run per column cost
/// nchw f32 1x3 45x60x93 <- 65x30x31 linear 5.1 -> 6.4 ms).
#[inline(always)]
unsafe fn scatter_body<const NEAREST: bool, const SCALED: bool, const RUNS: bool>(
    tr: *const f32,
    sc: &[(u32, f32)],
    wh: f32,
    acc: &mut [f32],
) {
    // SAFETY: `tr` holds a column per entry of `sc` (the caller's row), and every element
    // index in `sc` is below the row's length (built from its lists).
    unsafe {
        let a = acc.as_mut_ptr();
        if !RUNS {
            for (o, &(iw, ww)) in sc.iter().enumerate() {
                if iw != u32::MAX {
                    debug_assert!((iw as usize) < acc.len());
                    let mut x = *tr.add(o);
                    if SCALED {
                        x *= wh;
                    }
                    *a.add(iw as usize) += if NEAREST { x } else { x * ww };
                }
            }
            return;
        }
        let (mut cur, mut v) = (u32::MAX, 0f32);
        for (o, &(iw, ww)) in sc.iter().enumerate() {
            if iw != cur {
                if cur != u32::MAX {
                    *a.add(cur as usize) = v;
                }
                cur = iw;
                if iw == u32::MAX {
                    continue;
                }
                debug_assert!((iw as usize) < acc.len());
                v = *a.add(iw as usize);
            }
            let mut x = *tr.add(o);
            if SCALED {
                x *= wh;
            }
            v += if NEAREST { x } else { x * ww };
        }
        if cur != u32::MAX {
            *a.add(cur as usize) = v;
        }
    }
}

/// The uniform stretch: `K` and `L` as constants so the loop vectorises across elements.
#[inline(always)]
unsafe fn seg_uniform_body<const K: usize, const L: usize, const MODE: u8>(
    tr: *const f32,
    c: isize,
    i0: usize,
    n: usize,
    w: *const f32,
    wh: f32,
    acc: *mut f32,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        // Column of element i0 + q is K * (i0 + q) + c >= 0 (checked when the table was built).
        let base = tr.offset((K * i0) as isize + c);
        for q in 0..n {
            let mut v = *acc.add(q);
            let row = base.add(K * q);
            for j in 0..L {
                let x = *row.add(j);
                // MODE 0: nearest; 1: `x * w`; 2: `(x * wh) * w` (the scaled row, fused).
                v += match MODE {
                    0 => x,
                    1 => x * *w.add(j * n + q),
                    _ => (x * wh) * *w.add(j * n + q),
                };
            }
            *acc.add(q) = v;
        }
    }
}

unsafe fn seg_uniform(
    tr: *const f32,
    u: &Uniform,
    nearest: bool,
    scale: Option<f32>,
    acc: *mut f32,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        macro_rules! isa_fns {
            ($($k:literal, $l:literal);*) => {{
                #[cfg(target_arch = "x86_64")]
                #[target_feature(enable = "avx2")]
                unsafe fn avx2<const K: usize, const L: usize, const N: u8>(
                    tr: *const f32, c: isize, i0: usize, n: usize, w: *const f32, wh: f32, acc: *mut f32,
                ) {
                    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
                    // here lies in the buffers the problem's layouts describe, this call's dst elements
                    // are written by it alone, and vector code runs only on an ISA the CPU has.
                    unsafe {
                        seg_uniform_body::<K, L, N>(tr, c, i0, n, w, wh, acc)
                    }
                }
                #[cfg(target_arch = "x86_64")]
                #[target_feature(enable = "avx512f")]
                unsafe fn avx512<const K: usize, const L: usize, const N: u8>(
                    tr: *const f32, c: isize, i0: usize, n: usize, w: *const f32, wh: f32, acc: *mut f32,
                ) {
                    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
                    // here lies in the buffers the problem's layouts describe, this call's dst elements
                    // are written by it alone, and vector code runs only on an ISA the CPU has.
                    unsafe {
                        seg_uniform_body::<K, L, N>(tr, c, i0, n, w, wh, acc)
                    }
                }
                unsafe fn base<const K: usize, const L: usize, const N: u8>(
                    tr: *const f32, c: isize, i0: usize, n: usize, w: *const f32, wh: f32, acc: *mut f32,
                ) {
                    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
                    // here lies in the buffers the problem's layouts describe, this call's dst elements
                    // are written by it alone, and vector code runs only on an ISA the CPU has.
                    unsafe {
                        seg_uniform_body::<K, L, N>(tr, c, i0, n, w, wh, acc)
                    }
                }
                let (n, w) = (u.i1 - u.i0, u.w.as_ptr());
                let isa = simd::isa();
                let mode = match (nearest, scale) {
                    (true, _) => 0u8,
                    (false, None) => 1,
                    (false, Some(_)) => 2,
                };
                let wh = scale.unwrap_or(1.0);
                macro_rules! by_isa {
                    ($kk:literal, $ll:literal, $mm:literal) => {
                        match isa {
                            #[cfg(target_arch = "x86_64")]
                            simd::Isa::Avx512 => avx512::<$kk, $ll, $mm>(tr, u.c, u.i0, n, w, wh, acc),
                            #[cfg(target_arch = "x86_64")]
                            simd::Isa::Avx2 => avx2::<$kk, $ll, $mm>(tr, u.c, u.i0, n, w, wh, acc),
                            _ => base::<$kk, $ll, $mm>(tr, u.c, u.i0, n, w, wh, acc),
                        }
                    };
                }
                match (u.k, u.len, mode) {
                    $(
                        ($k, $l, 0) => by_isa!($k, $l, 0),
                        ($k, $l, 1) => by_isa!($k, $l, 1),
                        ($k, $l, _) => by_isa!($k, $l, 2),
                    )*
                    _ => unreachable!("uniform shapes are 1..=4 by construction"),
                }
            }};
        }
        isa_fns!(1,1; 1,2; 1,3; 1,4; 2,1; 2,2; 2,3; 2,4; 3,1; 3,2; 3,3; 3,4; 4,1; 4,2; 4,3; 4,4)
    }
}

/// The padded lists: per column position `j`, gather `t` for every element and add where
/// `j < len` (a select, so padding never touches the accumulator).
#[inline(always)]
unsafe fn seg_gather_body<const NEAREST: bool>(
    tr: *const f32,
    lmax: usize,
    idx: *const u32,
    w: *const f32,
    len: *const u32,
    acc: *mut f32,
    n: usize,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        const CH: usize = 64;
        let mut xs = [0f32; CH];
        let (acc, len) = (
            std::slice::from_raw_parts_mut(acc, n),
            std::slice::from_raw_parts(len, n),
        );
        for j in 0..lmax {
            let (ij, wj) = (
                std::slice::from_raw_parts(idx.add(j * n), n),
                std::slice::from_raw_parts(w.add(j * n), n),
            );
            let mut q0 = 0;
            while q0 < n {
                let c = CH.min(n - q0);
                // Gather (scalar), then a vector multiply and select over the chunk.
                // Signed 32-bit indices (rows this long are < 2^31, checked at plan time) let
                // the vector gathers use 32-bit lanes.
                for (x, &i) in xs[..c].iter_mut().zip(&ij[q0..q0 + c]) {
                    *x = *tr.offset(i as i32 as isize);
                }
                let (a, l, wv) = (&mut acc[q0..q0 + c], &len[q0..q0 + c], &wj[q0..q0 + c]);
                for q in 0..c {
                    let p = if NEAREST { xs[q] } else { xs[q] * wv[q] };
                    a[q] = if (j as u32) < l[q] { a[q] + p } else { a[q] };
                }
                q0 += c;
            }
        }
    }
}

/// [`seg_gather_body`] with AVX2 gathers, eight elements at a time held in a register over
/// all their column positions (the scalar gather's stores into the chunk buffer, read back
/// as vectors, stalled on store forwarding: half of nchw 8x48 62x18 <- 21x37 nearest).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn seg_gather_avx2<const NEAREST: bool>(
    tr: *const f32,
    lmax: usize,
    idx: *const u32,
    w: *const f32,
    len: *const u32,
    acc: *mut f32,
    n: usize,
) {
    // SAFETY: AVX2 (the caller checked); `idx`, `w` hold `lmax * n` entries and `len`, `acc`
    // `n`; every index (padding included) is a column of the row at `tr`, below 2^31.
    unsafe {
        use std::arch::x86_64::*;
        let full = n / 8 * 8;
        let mut q = 0;
        while q < full {
            let l = _mm256_loadu_si256(len.add(q) as *const __m256i);
            let mut a = _mm256_loadu_ps(acc.add(q));
            for j in 0..lmax {
                let i = _mm256_loadu_si256(idx.add(j * n + q) as *const __m256i);
                let mut x = _mm256_i32gather_ps::<4>(tr, i);
                if !NEAREST {
                    x = _mm256_mul_ps(x, _mm256_loadu_ps(w.add(j * n + q)));
                }
                // Lists are short (< 2^31): a signed compare is `j < len`.
                let live = _mm256_cmpgt_epi32(l, _mm256_set1_epi32(j as i32));
                a = _mm256_blendv_ps(a, _mm256_add_ps(a, x), _mm256_castsi256_ps(live));
            }
            _mm256_storeu_ps(acc.add(q), a);
            q += 8;
        }
        for q in full..n {
            let mut a = *acc.add(q);
            for j in 0..(*len.add(q) as usize).min(lmax) {
                let x = *tr.add(*idx.add(j * n + q) as usize);
                a += if NEAREST { x } else { x * *w.add(j * n + q) };
            }
            *acc.add(q) = a;
        }
    }
}

unsafe fn seg_gather(tr: *const f32, pd: &Padded, len: &[u32], nearest: bool, acc: &mut [f32]) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        unsafe fn base<const N: bool>(
            tr: *const f32,
            lmax: usize,
            idx: *const u32,
            w: *const f32,
            len: *const u32,
            acc: *mut f32,
            n: usize,
        ) {
            // SAFETY: the caller's contract (the plan checked the buffers): every address formed
            // here lies in the buffers the problem's layouts describe, this call's dst elements
            // are written by it alone, and vector code runs only on an ISA the CPU has.
            unsafe { seg_gather_body::<N>(tr, lmax, idx, w, len, acc, n) }
        }
        let (l, i, w, ln, a, n) = (
            pd.lmax,
            pd.idx.as_ptr(),
            pd.w.as_ptr(),
            len.as_ptr(),
            acc.as_mut_ptr(),
            acc.len(),
        );
        // AVX2 also on AVX-512 machines: its 8-lane gathers measured faster (Zen 4: 56->75
        // linear nchw 10.6 vs 15.2 ms); the bits are the same either way.
        match (simd::isa(), nearest) {
            #[cfg(target_arch = "x86_64")]
            (simd::Isa::Avx512 | simd::Isa::Avx2, true) => {
                seg_gather_avx2::<true>(tr, l, i, w, ln, a, n)
            }
            #[cfg(target_arch = "x86_64")]
            (simd::Isa::Avx512 | simd::Isa::Avx2, false) => {
                seg_gather_avx2::<false>(tr, l, i, w, ln, a, n)
            }
            (_, true) => base::<true>(tr, l, i, w, ln, a, n),
            (_, false) => base::<false>(tr, l, i, w, ln, a, n),
        }
    }
}

/// `out[i] = ((x[i] * w0) * w1) * w2` with `M` weights, `x` the source row from `off`.
#[inline(always)]
unsafe fn scale_row_body<S: Src, const M: usize>(
    src: *const u8,
    off: usize,
    w: &[f32; 3],
    out: &mut [f32],
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
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
}

/// Instantiates a body generic over `S: Src` and `const M` for each ISA and dispatches on
/// the data type and `m` (0..=3).
macro_rules! multiversion_sm {
    ($name:ident, $body:ident, ($($arg:ident: $ty:ty),*)) => {
        unsafe fn $name(dt: DataType, m: usize, $($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2")]
            unsafe fn avx2<S: Src, const M: usize>($($arg: $ty),*) {
                // SAFETY: the caller's contract (the plan checked the buffers): every address formed
                // here lies in the buffers the problem's layouts describe, this call's dst elements
                // are written by it alone, and vector code runs only on an ISA the CPU has.
                unsafe {
                    $body::<S, M>($($arg),*)
                }
            }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f")]
            unsafe fn avx512<S: Src, const M: usize>($($arg: $ty),*) {
                // SAFETY: the caller's contract (the plan checked the buffers): every address formed
                // here lies in the buffers the problem's layouts describe, this call's dst elements
                // are written by it alone, and vector code runs only on an ISA the CPU has.
                unsafe {
                    $body::<S, M>($($arg),*)
                }
            }
            unsafe fn base<S: Src, const M: usize>($($arg: $ty),*) {
                // SAFETY: the caller's contract (the plan checked the buffers): every address formed
                // here lies in the buffers the problem's layouts describe, this call's dst elements
                // are written by it alone, and vector code runs only on an ISA the CPU has.
                unsafe {
                    $body::<S, M>($($arg),*)
                }
            }
            unsafe fn by_m<S: Src, const M: usize>($($arg: $ty),*) {
                // SAFETY: the caller's contract (the plan checked the buffers): every address formed
                // here lies in the buffers the problem's layouts describe, this call's dst elements
                // are written by it alone, and vector code runs only on an ISA the CPU has.
                unsafe {
                    match simd::isa() {
                        #[cfg(target_arch = "x86_64")]
                        simd::Isa::Avx512 => avx512::<S, M>($($arg),*),
                        #[cfg(target_arch = "x86_64")]
                        simd::Isa::Avx2 => avx2::<S, M>($($arg),*),
                        _ => base::<S, M>($($arg),*),
                    }
                }
            }
            unsafe fn pick<S: Src>(m: usize, $($arg: $ty),*) {
                // SAFETY: the caller's contract (the plan checked the buffers): every address formed
                // here lies in the buffers the problem's layouts describe, this call's dst elements
                // are written by it alone, and vector code runs only on an ISA the CPU has.
                unsafe {
                    match m {
                        0 => by_m::<S, 0>($($arg),*),
                        1 => by_m::<S, 1>($($arg),*),
                        2 => by_m::<S, 2>($($arg),*),
                        _ => by_m::<S, 3>($($arg),*),
                    }
                }
            }
            debug_assert!(m <= 3);
            // SAFETY: the caller's contract is passed on; each variant runs only on the ISA
            // `simd::isa()` reports.
            unsafe {
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
        }
    };
}

multiversion_sm!(scale_row, scale_row_body, (src: *const u8, off: usize, w: &[f32; 3], out: &mut [f32]));

/// One other-axis output position of a run: diff_dst offset of its row and the other
/// axes' weights (in axis order).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Term {
    pub off: usize,
    pub w: [f32; 2],
}

/// A run's other-axis terms (`ra`, at `idx`, diff_dst rows from `sbase`), by group
/// combination: `combos` are ranges of `terms`, in the reference's order.
fn row_terms(
    t: &Tables,
    strides: &[usize],
    ra: &[usize],
    idx: &[usize],
    sbase: usize,
    terms: &mut Vec<Term>,
    combos: &mut Vec<(u32, u32)>,
) {
    let m = ra.len();
    terms.clear();
    combos.clear();
    let mut gi = [0usize; MAX_RANK];
    let mut ls = NO_LISTS;
    loop {
        if lists(t, ra, idx, &gi[..m], &mut ls) {
            let t0 = terms.len() as u32;
            let mut pos = [0usize; MAX_RANK];
            loop {
                let mut tm = Term {
                    off: sbase,
                    w: [1.0; 2],
                };
                for a in 0..m {
                    tm.off += ls[a].0[pos[a]] as usize * strides[ra[a]];
                    if a < 2 {
                        tm.w[a] = ls[a].1[pos[a]];
                    }
                }
                terms.push(tm);
                if !odometer(&mut pos[..m], |a| ls[a].0.len()) {
                    break;
                }
            }
            combos.push((t0, terms.len() as u32));
        }
        if !odometer(&mut gi[..m], |a| t.bwd[ra[a]].as_ref().unwrap().groups) {
            break;
        }
    }
}

/// Lanes `l0..l0 + L` of a pixel's sums at `o` (f32, any alignment).
#[inline(always)]
unsafe fn read_lanes<const L: usize>(o: *const f32, l0: usize) -> [f32; L] {
    let mut r = [0f32; L];
    // SAFETY: the caller's `L` readable f32 from `o + l0`.
    unsafe {
        for (q, v) in r.iter_mut().enumerate() {
            *v = o.add(l0 + q).read_unaligned();
        }
    }
    r
}

/// Writes `r` to lanes `l0..l0 + L` of a pixel's sums at `o` (f32, any alignment).
#[inline(always)]
unsafe fn write_lanes<const L: usize>(o: *mut f32, l0: usize, r: &[f32; L]) {
    // SAFETY: the caller's `L` writable f32 from `o + l0`.
    unsafe {
        for (q, &v) in r.iter().enumerate() {
            o.add(l0 + q).write_unaligned(v);
        }
    }
}

/// Adds term `t`'s part of a pixel's `w` list to its lanes `r`: columns from `base`, `pss`
/// apart, weights `wts`, in list order, `((x * w_a0) * w_a1) * w_w` with `M` weights.
#[inline(always)]
unsafe fn add_list<S: Src, const M: usize, const LB: usize>(
    src: *const u8,
    r: &mut [f32; LB],
    t: &Term,
    base: usize,
    pss: usize,
    wts: &[f32],
) {
    // SAFETY: the caller's contract: every column of the list, all `LB` lanes, lies in the
    // diff_dst buffer.
    unsafe {
        for (j, &ww) in wts.iter().enumerate() {
            let p = base + j * pss;
            for (q, v) in r.iter_mut().enumerate() {
                let x = S::get(src, p + q);
                *v += match M {
                    0 => x,
                    1 => x * ww,
                    2 => (x * t.w[0]) * ww,
                    _ => ((x * t.w[0]) * t.w[1]) * ww,
                };
            }
        }
    }
}

/// One diff_src pixel, lanes `l0..l0 + LB`, summed in registers over every term in the
/// reference order (group combinations, then positions; `w` fastest in both), then
/// written to `out` (f32, any alignment). `0.0 + first term` as the reference does.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn px_body<S: Src, const M: usize, const LB: usize>(
    src: *const u8,
    terms: &[Term],
    combos: &[(u32, u32)],
    segs: &[Segs],
    pe: &[PixSeg],
    pss: usize,
    l0: usize,
    out: *mut f32,
) {
    // SAFETY: the caller's contract; `out` is lane `l0` of the pixel, so `out - l0` is its
    // lane 0 (the second, empty block writes nothing).
    unsafe { px_body2::<S, M, LB, 0>(src, terms, combos, segs, pe, pss, l0, l0, out.sub(l0)) }
}

/// [`px_body`] for two lane blocks of one pixel, `la0..la0 + LA` and `lb0..lb0 + LB`
/// (overlapping: the tail of a pixel whose lanes are not a multiple of 8), summed in one
/// walk over the terms instead of two (nhwc f32 3-D, 17 lanes: the walk costs more than
/// the lanes' arithmetic). Each block's sums are `px_body`'s; overlapping lanes get the
/// same values twice.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn px_body2<S: Src, const M: usize, const LA: usize, const LB: usize>(
    src: *const u8,
    terms: &[Term],
    combos: &[(u32, u32)],
    segs: &[Segs],
    pe: &[PixSeg],
    pss: usize,
    la0: usize,
    lb0: usize,
    out: *mut f32,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let (mut ra, mut rb) = ([0f32; LA], [0f32; LB]);
        for &(t0, t1) in combos {
            if t0 == t1 {
                continue;
            }
            // The pixel's non-empty lists only: an empty one adds nothing.
            for e in pe {
                let (st, ln, wo) = (e.start as usize, e.len as usize, e.wofs as usize);
                let wts = &segs[e.seg as usize].wt[wo..wo + ln];
                for t in &terms[t0 as usize..t1 as usize] {
                    let base = t.off + st * pss;
                    add_list::<S, M, LA>(src, &mut ra, t, base + la0, pss, wts);
                    add_list::<S, M, LB>(src, &mut rb, t, base + lb0, pss, wts);
                }
            }
        }
        write_lanes(out, la0, &ra);
        write_lanes(out, lb0, &rb);
    }
}

/// `C` lanes of a laned row (pixels narrower than a vector, RGB images, or few terms a
/// pixel; see [`StreamGeom::passes`]): pass by pass (group
/// combination, `w` group, term: the reference order) over the whole row, each pass adding
/// every pixel's `w` list into `out` (f32, any alignment, zeroed first), so the loop
/// overhead of a pass is paid once per row instead of once per pixel and lane block. A
/// pass walks its group's non-empty lists only ([`StreamGeom::group_pix`]): walking every
/// pixel and skipping the empty ones cost 1.1-1.6x (nhwc f32 1x16 200x400 <- 300x200
/// linear 0.998 -> 0.772 ms, PyTorch 0.879; 4x4 534x671 <- 493x224 7.96 -> 5.00).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn px_small<S: Src, const M: usize, const C: usize>(
    src: *const u8,
    terms: &[Term],
    combos: &[(u32, u32)],
    g: &StreamGeom,
    i0: usize,
    i1: usize,
    pss: usize,
    out: *mut f32,
    ostride: usize,
) {
    // SAFETY: the caller's contract; the second, empty block reads and writes nothing.
    unsafe { px_small2::<S, M, C, 0>(src, terms, combos, g, i0, i1, pss, 0, 0, out, ostride) }
}

/// [`px_small`] for two lane blocks of each pixel, `la0..la0 + LA` and `lb0..lb0 + LB`
/// (the last lanes of a pixel that 8 does not divide: a lone lane after the first block,
/// or an overlapping block of 8), in one walk instead of two. Both blocks are read before
/// either is written back, so an overlapping lane gets the same sum from each (nhwc f32 1x17 324x286 <- 108x269 linear: the 17th lane's own
/// walk took as long as the other 16 lanes').
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn px_small2<S: Src, const M: usize, const LA: usize, const LB: usize>(
    src: *const u8,
    terms: &[Term],
    combos: &[(u32, u32)],
    g: &StreamGeom,
    i0: usize,
    i1: usize,
    pss: usize,
    la0: usize,
    lb0: usize,
    out: *mut f32,
    ostride: usize,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        for k in 0..i1 - i0 {
            let o = out.add(k * ostride);
            for q in 0..LA {
                o.add(la0 + q).write_unaligned(0.0);
            }
            for q in 0..LB {
                o.add(lb0 + q).write_unaligned(0.0);
            }
        }
        for &(t0, t1) in combos {
            for (k, seg) in g.segs.iter().enumerate() {
                // This group's non-empty lists of pixels `i0..i1`.
                let all = &g.group_pix[g.group_at[k]..g.group_at[k + 1]];
                let a = all.partition_point(|e| (e.iw as usize) < i0);
                let n = all[a..].partition_point(|e| (e.iw as usize) < i1);
                let lists = &all[a..a + n];
                for t in &terms[t0 as usize..t1 as usize] {
                    for e in lists {
                        let (st, ln, wo) = (e.start as usize, e.len as usize, e.wofs as usize);
                        let o = out.add((e.iw as usize - i0) * ostride);
                        let mut ra = read_lanes::<LA>(o, la0);
                        let mut rb = read_lanes::<LB>(o, lb0);
                        let wts = &seg.wt[wo..wo + ln];
                        let base = t.off + st * pss;
                        add_list::<S, M, LA>(src, &mut ra, t, base + la0, pss, wts);
                        add_list::<S, M, LB>(src, &mut rb, t, base + lb0, pss, wts);
                        write_lanes(o, la0, &ra);
                        write_lanes(o, lb0, &rb);
                    }
                }
            }
        }
    }
}

/// Wide pixels pass by pass like [`px_small`], but each pass adds a pixel's list column by
/// column, each over all its lanes (64 at a time) into `out`: every diff_dst row is read
/// once, front to back, as PyTorch's loop does, where the pixel walk reads a lane block of
/// each column and term row in turn, a pattern the hardware prefetchers follow poorly from
/// memory. Per element the additions keep the reference's order. `out` is zeroed first;
/// lanes past the last multiple of 8 go by [`px_passes`]. 1 thread, Zen 4 AVX-512, nhwc f32,
/// median ms, pixel walk -> here (PyTorch): nearest 2x256 50x50 <- 100x100 2.8 -> 1.9
/// (2.0), 1x512 60x60 <- 120x120 5.2 -> 3.9 (4.0), 1x256 100x100 <- 150x150 2.8 -> 2.3
/// (2.2); linear 2x256 50x50 <- 100x100 5.4 -> 4.4 (4.4). From cache it loses (1x128 80x80
/// <- 160x160 nearest, 16 MB: 0.61 there, 0.98 here), and so it does for forward
/// downsampling (1x256 80x80 <- 160x160 linear: 2.45, 3.28).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn px_wide<S: Src, const M: usize>(
    src: *const u8,
    terms: &[Term],
    combos: &[(u32, u32)],
    g: &StreamGeom,
    i0: usize,
    i1: usize,
    pss: usize,
    nl: usize,
    out: *mut f32,
    ostride: usize,
    esz: usize,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let n8 = nl / 8 * 8;
        for k in 0..i1 - i0 {
            std::ptr::write_bytes(out.add(k * ostride), 0, n8);
        }
        #[inline(always)]
        unsafe fn block<S: Src, const M: usize, const LB: usize>(
            src: *const u8,
            o: *mut f32,
            t: &Term,
            base: usize,
            pss: usize,
            wts: &[f32],
        ) {
            // SAFETY: as in `px_wide`.
            unsafe {
                let mut r = read_lanes::<LB>(o, 0);
                add_list::<S, M, LB>(src, &mut r, t, base, pss, wts);
                write_lanes(o, 0, &r);
            }
        }
        for &(t0, t1) in combos {
            for (k, seg) in g.segs.iter().enumerate() {
                let all = &g.group_pix[g.group_at[k]..g.group_at[k + 1]];
                let a = all.partition_point(|e| (e.iw as usize) < i0);
                let n = all[a..].partition_point(|e| (e.iw as usize) < i1);
                for t in &terms[t0 as usize..t1 as usize] {
                    for e in &all[a..a + n] {
                        let (st, ln, wo) = (e.start as usize, e.len as usize, e.wofs as usize);
                        let o = out.add((e.iw as usize - i0) * ostride);
                        for j in 0..ln {
                            let wts = &seg.wt[wo + j..wo + j + 1];
                            let base = t.off + (st + j) * pss;
                            let mut l0 = 0;
                            while l0 + 64 <= n8 {
                                block::<S, M, 64>(src, o.add(l0), t, base + l0, pss, wts);
                                l0 += 64;
                            }
                            if l0 + 32 <= n8 {
                                block::<S, M, 32>(src, o.add(l0), t, base + l0, pss, wts);
                                l0 += 32;
                            }
                            if l0 + 16 <= n8 {
                                block::<S, M, 16>(src, o.add(l0), t, base + l0, pss, wts);
                                l0 += 16;
                            }
                            if l0 < n8 {
                                block::<S, M, 8>(src, o.add(l0), t, base + l0, pss, wts);
                            }
                        }
                    }
                }
            }
        }
        if n8 < nl {
            let (s, o) = (src.add(n8 * esz), out.add(n8));
            px_passes::<S, M>(s, terms, combos, g, i0, i1, pss, nl - n8, o, ostride, esz);
        }
    }
}

/// [`px_small`] over `nl` lanes: 16, then 8 at a time, each its own walk; lanes past the
/// last multiple of 8 share the last block's walk ([`px_small2`]: one lane alone, more as an
/// overlapping block of 8); fewer than 8 lanes are one walk of their own.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn px_passes<S: Src, const M: usize>(
    src: *const u8,
    terms: &[Term],
    combos: &[(u32, u32)],
    g: &StreamGeom,
    i0: usize,
    i1: usize,
    pss: usize,
    nl: usize,
    out: *mut f32,
    ostride: usize,
    esz: usize,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let mut l0 = 0;
        while l0 < nl {
            let (s, o) = (src.add(l0 * esz), out.add(l0));
            let rest = nl - l0;
            macro_rules! small {
                ($c:literal) => {{
                    px_small::<S, M, $c>(s, terms, combos, g, i0, i1, pss, o, ostride);
                    $c
                }};
            }
            // The last full block, with the lanes past it when 8 does not divide them: one
            // more lane alone, more as an overlapping block of 8 (a lone 17th lane took
            // 0.84-0.92x the time of the overlapping block, whose loads and stores split
            // cache lines: nhwc f32 1x17 250x400 <- 300x200 linear 1.56 -> 1.35 ms, AVX2
            // 1.55 -> 1.35; 1x9 1.01 -> 0.85; two lanes alone: 1x18 1.57 -> 1.54).
            macro_rules! fused {
                ($c:literal) => {{
                    let lb = rest - 8;
                    px_small2::<S, M, $c, 8>(s, terms, combos, g, i0, i1, pss, 0, lb, o, ostride);
                    rest
                }};
            }
            macro_rules! lone {
                ($c:literal) => {{
                    px_small2::<S, M, $c, 1>(s, terms, combos, g, i0, i1, pss, 0, $c, o, ostride);
                    rest
                }};
            }
            l0 += match rest {
                17 => lone!(16),
                9 => lone!(8),
                18..=23 => fused!(16),
                10..=15 => fused!(8),
                16.. => small!(16),
                8 => small!(8),
                1 => small!(1),
                2 => small!(2),
                3 => small!(3),
                4 => small!(4),
                5 => small!(5),
                6 => small!(6),
                _ => small!(7),
            };
        }
    }
}

/// Pixels the laned walk prefetches ahead.
#[cfg(target_arch = "x86_64")]
const PF: usize = 2;

/// Pixels `i0..i1` of a diff_src row of a laned run, pixel by pixel or pass by pass as `g`
/// says (its `w` groups, per-pixel lists, prefetch), wide pixels by [`px_wide`] when `wide`:
/// `nl` lanes of pixel `iw` go to `out + (iw - i0) * ostride`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn px_row_body<S: Src, const M: usize>(
    src: *const u8,
    terms: &[Term],
    combos: &[(u32, u32)],
    g: &StreamGeom,
    i0: usize,
    i1: usize,
    pss: usize,
    nl: usize,
    out: *mut f32,
    ostride: usize,
    esz: usize,
    wide: bool,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let segs = &g.segs[..];
        if nl < 8 || g.passes {
            px_passes::<S, M>(src, terms, combos, g, i0, i1, pss, nl, out, ostride, esz);
            return;
        }
        if wide {
            px_wide::<S, M>(src, terms, combos, g, i0, i1, pss, nl, out, ostride, esz);
            return;
        }
        let lists = |iw: usize| &g.pix_segs[g.pix[iw] as usize..g.pix[iw + 1] as usize];
        for iw in i0..i1 {
            let o = out.add((iw - i0) * ostride);
            let pe = lists(iw);
            // A pixel no output reads (forward downsampling along w) sums nothing.
            if pe.is_empty() {
                std::ptr::write_bytes(o, 0, nl);
                continue;
            }
            // Prefetch the next pixel's diff_dst lanes (every term row, every column).
            #[cfg(target_arch = "x86_64")]
            if g.prefetch && iw + PF < i1 && pss == nl && esz * nl >= 256 {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                for e in lists(iw + PF) {
                    let (st, ln) = (e.start as usize, e.len as usize);
                    for t in terms {
                        let a = src.add((t.off + st * pss) * esz);
                        let bytes = ((ln - 1) * pss + nl) * esz;
                        let mut k = 0;
                        while k < bytes {
                            _mm_prefetch::<_MM_HINT_T0>(a.add(k) as *const i8);
                            k += 64;
                        }
                    }
                }
            }
            // Lane blocks of 64, 32, 16, 8 (greedy); the last 1..7 lanes as an overlapping
            // block of 8 (same values again), summed in the same walk as the smallest block,
            // and so is a last block of 8 after others (24 lanes: one walk, not two).
            let full = pixel_full(nl);
            let tail = nl > full;
            let lastb = [8, 16, 32]
                .into_iter()
                .find(|&b| full % (2 * b) == b)
                .unwrap_or(64);
            let last = if tail { full - lastb } else { nl };
            let mut l0 = 0;
            while l0 + 64 <= last {
                px_body::<S, M, 64>(src, terms, combos, segs, pe, pss, l0, o.add(l0));
                l0 += 64;
            }
            while l0 + 32 <= last {
                px_body::<S, M, 32>(src, terms, combos, segs, pe, pss, l0, o.add(l0));
                l0 += 32;
            }
            while l0 + 16 <= last {
                px_body::<S, M, 16>(src, terms, combos, segs, pe, pss, l0, o.add(l0));
                l0 += 16;
            }
            while l0 + 8 <= last {
                px_body::<S, M, 8>(src, terms, combos, segs, pe, pss, l0, o.add(l0));
                l0 += 8;
            }
            if tail {
                debug_assert_eq!(l0 + lastb, full);
                let t8 = nl - 8;
                macro_rules! fused {
                    ($b:literal) => {
                        px_body2::<S, M, $b, 8>(src, terms, combos, segs, pe, pss, l0, t8, o)
                    };
                }
                match lastb {
                    64 => fused!(64),
                    32 => fused!(32),
                    16 => fused!(16),
                    _ => fused!(8),
                }
            }
        }
    }
}

multiversion_sm!(
    px_row,
    px_row_body,
    (src: *const u8, terms: &[Term], combos: &[(u32, u32)], g: &StreamGeom, i0: usize, i1: usize, pss: usize, nl: usize, out: *mut f32, ostride: usize, esz: usize, wide: bool)
);

/// Laned rows (nhwc, blocked): vectors over the lane axis, pixel by pixel, each pixel's
/// sums held in registers over all its terms.
unsafe fn laned(
    p: &Problem,
    t: &Tables,
    g: &StreamGeom,
    la: &LaneAxis,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let (s, d) = (&p.src, &p.dst);
        let rank = d.rank();
        let w = g.w;
        let ra = &g.others[..];
        let n_in = d.dims[w];
        let dsz = d.dtype.size();
        let cdim = d.dims[la.c];
        let (pss, pds) = (s.strides[w], d.strides[w]);
        let mut buf = AlignedBuf::<f32>::new();
        let mut terms: Vec<Term> = Vec::new();
        let mut combos: Vec<(u32, u32)> = Vec::new();
        // The w axis walks chunks of `g.chunk` pixels.
        let chunks = n_in.div_ceil(g.chunk).max(1);
        let mut runs = Runs::new(
            p,
            t,
            &[
                (la.c, la.nblk, la.blk_dst, la.blk_src),
                (w, chunks, g.chunk * pds, 0),
            ],
            start,
        );
        for _ in start..end {
            let blk = runs.pos[la.c];
            let idx = runs.pos;
            let i0 = idx[w] * g.chunk;
            let i1 = n_in.min(i0 + g.chunk);
            let valid = la.block.min(cdim - (blk * la.block).min(cdim));
            let (doff, sbase) = (runs.doff, runs.sbase);
            runs.advance();
            let (src, combos, terms) = run_terms(
                p,
                t,
                g,
                ra,
                &idx[..rank],
                sbase,
                b.src,
                &mut terms,
                &mut combos,
            );
            if terms.is_empty() {
                // No output reads this row (forward downsampling along another axis): its
                // pixels' lanes (and block padding) are 0.0, all-zero bytes in every type;
                // contiguous pixels in one stretch (a call per 3-lane pixel was a fifth of
                // nhwc f32 1x3 1080x1920 <- 540x960 nearest).
                if pds == la.block {
                    let (to, n) = (b.dst.add(doff * dsz), (i1 - i0) * pds * dsz);
                    if g.passes && crate::core::streaming::now() {
                        simd::stream_zero(to, n);
                    } else {
                        std::ptr::write_bytes(to, 0, n);
                    }
                    continue;
                }
                for k in 0..i1 - i0 {
                    std::ptr::write_bytes(b.dst.add((doff + k * pds) * dsz), 0, la.block * dsz);
                }
                continue;
            }
            // Only rows walked by passes stream (through scratch, which they fill anyway);
            // the pixel walk writes in place and loses by streaming: nhwc f32 1x64
            // 1000x600 <- 500x300 linear 11.2 ms in place, 15.7 streamed through scratch.
            let stream = g.passes && crate::core::streaming::now() && pds == valid;
            let wide = g.wide && crate::core::streaming::beyond();
            if d.dtype == DataType::F32 && !stream {
                let out = (b.dst as *mut f32).add(doff);
                px_row(
                    s.dtype,
                    g.nweights,
                    src,
                    terms,
                    combos,
                    g,
                    i0,
                    i1,
                    pss,
                    valid,
                    out,
                    pds,
                    s.dtype.size(),
                    wide,
                );
            } else {
                buf.resize((i1 - i0) * valid);
                px_row(
                    s.dtype,
                    g.nweights,
                    src,
                    terms,
                    combos,
                    g,
                    i0,
                    i1,
                    pss,
                    valid,
                    buf.as_mut_ptr(),
                    valid,
                    s.dtype.size(),
                    wide,
                );
                if pds == valid {
                    let to = b.dst.add(doff * dsz);
                    simd::store_contiguous_as(stream, d.dtype, p.numerics, &buf, to);
                } else {
                    for k in 0..i1 - i0 {
                        simd::store_contiguous(
                            d.dtype,
                            p.numerics,
                            &buf[k * valid..(k + 1) * valid],
                            b.dst.add((doff + k * pds) * dsz),
                        );
                    }
                }
            }
            if valid < la.block {
                let pad = la.block - valid;
                for k in 0..i1 - i0 {
                    std::ptr::write_bytes(b.dst.add((doff + k * pds + valid) * dsz), 0, pad * dsz);
                }
            }
        }
        if g.passes && crate::core::streaming::now() {
            // The non-temporal stores must be visible before this chunk is reported done.
            simd::store_fence();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scatter adds each element's entries in its list's order, onto what earlier passes
    /// left (as the scalar rest does): here the order decides the bits.
    #[test]
    fn scatter_keeps_list_order() {
        // Input 1 of 8 lists outputs 0..3, input 5 output 3; the rest are empty.
        let lists: [&[(u32, f32)]; 8] = [
            &[],
            &[(0, 1.0), (1, 0.5), (2, 0.25)],
            &[],
            &[],
            &[],
            &[(3, 2.0)],
            &[],
            &[],
        ];
        let tab = BwdTaps::build(1, 8, |l, push| {
            for &(o, w) in lists[l] {
                push(o, w)
            }
        });
        let segs = segments(&tab, 8, 4, false).unwrap();
        assert!(segs[0].scatter.is_some());
        let mut rest = segs[0].clone();
        rest.scatter = None;
        rest.uniform = None;
        rest.padded = None;
        rest.rest = vec![1, 5];
        let tr = [3.0e8f32, -6.0e8, 1.0, 7.0];
        for (nearest, scale) in [
            (true, None),
            (true, Some(0.75f32)),
            (false, None),
            (false, Some(0.75)),
        ] {
            let (mut a, mut b) = ([1.0f32; 8], [1.0f32; 8]);
            // SAFETY: `tr` holds the 4 columns the lists name; `a`, `b` the 8 elements.
            unsafe {
                seg_sum(tr.as_ptr(), &segs[0], nearest, scale, &mut a);
                seg_sum(tr.as_ptr(), &rest, nearest, scale, &mut b);
            }
            assert_eq!(
                a.map(f32::to_bits),
                b.map(f32::to_bits),
                "{nearest} {scale:?}"
            );
        }
    }
}
