//! Optimised kernels. Each computes exactly what [`super::reference`] computes, in the same
//! float operation order, but streams memory along the contiguous axis:
//! - `lanes`: an identity axis contiguous in src and dst (nhwc channels, the 8/16 lanes of a
//!   blocked layout) is the SIMD axis; per output pixel the corner offsets and weights are
//!   fixed, and the reduction runs over all lanes at once (forward and backward);
//! - `rows`: forward along a unit-stride resampled last axis (nchw W): the other resampled
//!   axes are blended into a row buffer (first axis innermost, as the reference), then W is
//!   gathered;
//! - `bwd_rows`: backward along a unit-stride resampled last axis: a tight scalar gather per
//!   diff_src element with the run's other-axis lists fixed.

// The tables are planned on every target; only x86 has the block kernels that read them.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) mod bwd_perm;
pub(crate) mod bwd_planes;
pub(crate) mod bwd_scatter;
pub(crate) mod bwd_stream;
pub(crate) mod bwd_tiny;
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
pub(crate) mod planes;

use lanes_rows::pixel_rows;
pub(crate) use lanes_rows::{lanes_rows, PixelRows};

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

    /// The corners of the row holding output index `idx`, from src element `base`.
    #[inline]
    fn get(&self, idx: &[usize], base: usize) -> SmallCorners {
        let r: usize = self.axes.iter().map(|&(a, m)| idx[a] * m).sum();
        let mut c = self.corners[r].clone();
        for o in &mut c.offs {
            *o += base;
        }
        c
    }
}

/// When f32 and raw rows go out with non-temporal stores: when source and destination
/// together exceed the last-level cache share of the threads running the call (oneDNN's
/// rule for its resampling kernels). Beyond it, streamed stores save the read-for-ownership
/// of every output line (nhwc f32 8x64 56->112 at one thread, 32 MB: 1.26 ms streamed,
/// 2.1 ms plain; oneDNN 0.93); within it, plain stores leave the output in the cache for
/// the next reader and streaming only loses bandwidth (same problem at two threads within
/// a 32 MiB L3: nearest 0.91 ms streamed, 0.49 ms plain). Downsampling counts too: nhwc
/// 8x64 linear 112->75 (37 MB, an 11.5 MB output) 1.38 -> 1.24 ms at one thread and
/// 0.65 -> 0.47 ms at two with streamed pixels (oneDNN 1.09 / 0.49). Measured on a 2-core
/// AMD EPYC (AVX-512), in one process side by side.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StreamRule {
    /// Source plus destination bytes.
    bytes: usize,
}

/// Tests: stream every output whatever its size (the outputs are the same either way, so
/// tests running meanwhile are unaffected).
#[cfg(test)]
pub(crate) static FORCE_STREAM: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

impl StreamRule {
    fn of(p: &Problem) -> Self {
        let dst = p.dst.span_bytes().unwrap_or(usize::MAX);
        StreamRule {
            bytes: dst.saturating_add(p.src.span_bytes().unwrap_or(usize::MAX)),
        }
    }

    /// Decided per execution: the thread count can change after planning.
    pub(crate) fn now(self) -> bool {
        #[cfg(test)]
        if FORCE_STREAM.load(std::sync::atomic::Ordering::Relaxed) {
            return true;
        }
        // Only x86 vector code has streaming stores here; elsewhere scratch would be a copy.
        let has_nt = cfg!(target_arch = "x86_64") && simd::isa() != simd::Isa::Base;
        let share = super::threads::max_threads().saturating_mul(super::cache::llc_per_core());
        has_nt && self.bytes > share
    }
}

/// Shortest output row (bytes) the `rows` kernel streams.
const STREAM_ROW: usize = 4096;

/// Largest row buffer (f32 values) of the row-wise `lanes` walk.
const ROW_BUF: usize = 1 << 13;

/// Geometry of the `rows` and `bwd_rows` kernels.
#[derive(Clone, Debug)]
pub(crate) struct RowGeom {
    pub runs: usize,
    pub out_w: usize,
    /// Input columns the W taps read: a contiguous range `lo..=hi`, or `None` when they are
    /// sparse enough (strong downsampling) that blending the whole range would waste work.
    pub range: Option<(usize, usize)>,
    /// At most 3 resampled axes with at most 2 taps each.
    pub small: bool,
    /// Two-tap W table as structure of arrays (columns relative to `range.0`), so the W lerp
    /// is a vector gather.
    pub w2: Option<W2>,
    /// Nearest along W is an integer upsampling (`idx[o] == o / k`): repeat, don't gather.
    pub repeat: Option<usize>,
    /// Forward runs are planes: this axis (the one before W) is walked inside a run.
    pub plane_h: Option<usize>,
    /// Output rows per run.
    pub rows_per_run: usize,
    /// The row axis (the last resampled axis; the last axis for nchw).
    pub w: usize,
    /// Channels-last images: `(axis, C)` of the contiguous identity axis inside each row
    /// pixel. A row is then `W * C` contiguous elements read through `wx`.
    pub lane: Option<(usize, usize)>,
    /// The row axis' tap table over the flattened row (`wx` when `lane` is set, else the
    /// axis' own table): element `ow*C + c` reads `i*C + c` for each tap `i` of `ow`.
    pub wx: Option<FwdTaps>,
    /// When converted rows go out with non-temporal stores.
    pub stream: StreamRule,
    /// Raw nearest with short rows: the src offset (from the plane's base) of every element
    /// of a whole output plane, so a plane is one gather instead of a short one per row
    /// (nchw u8 8x128 2x8x9->7x15x4 spent its time in per-row setup).
    pub plane_idx: Option<Vec<u32>>,
    /// `(axis, planes)`: `plane_idx` covers this many consecutive planes along `axis` (the
    /// innermost axis of the runs, identity, planes back to back in dst), so tiny planes go
    /// several to a gather (nchw u8 2x512 2x1->1x2 nearest 13.3 -> 5.2 us, oneDNN 12.8; f32
    /// 4x256 3x3->5x5 18.7 -> 9.9, 42.5).
    pub plane_batch: Option<(usize, usize)>,
    /// Forward runs with fixed-size corners: the corners of the resampled axes outside the
    /// run (not W, not `plane_h`) per row, when few (see [`RowCorners`]).
    pub corners: Option<RowCorners>,
}

/// Elements per stretch of a raw bf16 nearest row fixed up while in L1.
const FIX_CHUNK: usize = 4096;

/// Rows (elements) shorter than this go through the raw nearest plane gather, which costs a
/// table read per element but no per-row setup; largest plane it tabulates. Measured (µs,
/// 1 thread AVX-512, rows before -> plane): nchw bf16 2x48 81x49->27x24 49 -> 16 (oneDNN 29),
/// f32 4x48 30x30->45x45 126 -> 90, f32 4x16 40x400->20x200 70 -> 60; wider rows break even.
const PLANE_ROW: usize = 256;
const PLANE_MAX: usize = 1 << 14;

/// Integer upsampling along W repeats pixels with a few stores per src element, which the
/// table gather beats only on short rows: f32 4x64 16x16->32x32 62 -> 37 µs, 10x10->40x40
/// 83 -> 68, but 4x48 30x30->60x60 111 -> 157 and u8 16x16->32x32 68 -> 84.
fn plane_row_limit(repeat: bool, dsz: usize) -> usize {
    match (repeat, dsz) {
        (false, _) => PLANE_ROW,
        (true, 1) => 32,
        (true, _) => 41,
    }
}

impl RowGeom {
    /// Tiles per row (1 when rows are not tiled).
    pub fn tiles_per_row(&self) -> usize {
        self.w2
            .as_ref()
            .and_then(|w| w.tiles.as_ref())
            .map_or(1, |t| t.len().max(1))
    }

    /// The flattened row's tap table.
    pub fn wtaps<'a>(&'a self, t: &'a Tables) -> &'a FwdTaps {
        self.wx
            .as_ref()
            .unwrap_or_else(|| t.fwd[self.w].as_ref().unwrap())
    }
}

#[derive(Clone, Debug)]
pub(crate) struct WTable {
    pub i0: Vec<u32>,
    pub i1: Vec<u32>,
    pub w0: Vec<f32>,
    pub w1: Vec<f32>,
}

/// A two-tap W table with, where this CPU's vectors allow, its permute tables.
#[derive(Clone, Debug)]
pub(crate) struct W2 {
    pub t: WTable,
    pub perm: Option<hlerp::PermTable>,
    /// Rows longer than [`ROW_TILE`] elements (small linear, no post-ops) go tile by tile.
    pub tiles: Option<Vec<hlerp::Tile>>,
}

/// Outputs per tile of a long row (see [`hlerp::Tile`]).
const ROW_TILE: usize = 8192;

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
    if let Some(g) = bwd_scatter::plan(p, t) {
        return Strategy::BwdScatter(g);
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
                plane_h: None,
                rows_per_run: 1,
                w,
                lane: None,
                wx: None,
                stream: StreamRule::of(p),
                plane_idx: None,
                plane_batch: None,
                corners: None,
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

/// Geometry of the forward `rows` kernel along row axis `w`, a row being `W` contiguous
/// elements, or `W * C` with `lane = Some((c, C))` (channels-last images).
pub(crate) fn fwd_row_geom(
    p: &Problem,
    t: &Tables,
    w: usize,
    lane: Option<(usize, usize)>,
    small: bool,
) -> RowGeom {
    let (s, d) = (&p.src, &p.dst);
    let nc = lane.map_or(1, |l| l.1);
    let wx = lane.map(|_| images::expand(t.fwd[w].as_ref().unwrap(), nc));
    let taps = wx.as_ref().unwrap_or_else(|| t.fwd[w].as_ref().unwrap());
    let lo = taps.idx.iter().copied().min().unwrap_or(0) as usize;
    let hi = taps.idx.iter().copied().max().unwrap_or(0) as usize;
    let dense = hi + 1 - lo <= 2 * taps.idx.len();
    let o_n = d.dims[w] * nc;
    let w2 = (dense && taps.idx.len() == 2 * o_n)
        .then(|| WTable {
            i0: taps.idx.iter().step_by(2).map(|&i| i - lo as u32).collect(),
            i1: taps
                .idx
                .iter()
                .skip(1)
                .step_by(2)
                .map(|&i| i - lo as u32)
                .collect(),
            w0: taps.wt.iter().step_by(2).copied().collect(),
            w1: taps.wt.iter().skip(1).step_by(2).copied().collect(),
        })
        .map(|t| {
            let perm = hlerp::PermTable::new(&t);
            let tiles = perm
                .as_ref()
                .filter(|_| {
                    o_n > ROW_TILE && small && p.alg == Algorithm::Linear && p.post_ops.is_empty()
                })
                .map(|pt| pt.tiles(ROW_TILE));
            W2 { perm, t, tiles }
        });
    // Integer nearest upsampling repeats whole pixels (in units of pixels).
    let pix = t.fwd[w].as_ref().unwrap();
    let (po, pi) = (d.dims[w], s.dims[w]);
    let k = po / pi.max(1);
    let repeat = (pix.idx.len() == po && k >= 1 && po == k * pi)
        .then_some(k)
        .filter(|&k| {
            pix.idx
                .iter()
                .enumerate()
                .all(|(o, &i)| i as usize == o / k)
        });
    // Runs are planes: the last axis before W other than the lane axis is walked inside.
    let plane_h = (0..w).rev().find(|&a| Some(a) != lane.map(|l| l.0));
    let rows_per_run = plane_h.map_or(1, |h| d.dims[h]);
    let runs: usize = (0..d.rank())
        .filter(|&a| a != w && Some(a) != lane.map(|l| l.0) && Some(a) != plane_h)
        .map(|a| d.dims[a])
        .product();
    let plane_idx = plane_h.filter(|&h| {
        p.raw_nearest().is_some()
            && lane.is_none()
            && o_n < plane_row_limit(repeat.is_some(), d.dtype.size())
            && d.strides[h] == o_n
            && rows_per_run * o_n <= PLANE_MAX
            // Every table entry (row offset plus column) fits a u32.
            && s.dims[h]
                .checked_mul(s.strides[h])
                .and_then(|x| x.checked_add(s.dims[w]))
                .is_some_and(|x| x < u32::MAX as usize)
    });
    let plane_idx: Option<Vec<u32>> = plane_idx.map(|h| {
        (0..d.dims[h])
            .flat_map(|oh| {
                let ih = t.fwd[h].as_ref().map_or(oh, |f| f.idx[oh] as usize);
                let base = (ih * s.strides[h]) as u32;
                pix.idx.iter().map(move |&i| base + i)
            })
            .collect()
    });
    // Batches of planes: the innermost run axis, when its planes follow each other in dst.
    let plane_len = rows_per_run * o_n;
    let plane_batch = plane_idx
        .as_ref()
        .and_then(|_| {
            (0..d.rank())
                .rev()
                .find(|&a| a != w && Some(a) != plane_h && d.dims[a] > 1)
        })
        .filter(|&a| t.fwd[a].is_none() && d.strides[a] == plane_len)
        .map(|a| (a, d.dims[a].min(PLANE_MAX / plane_len.max(1))))
        .filter(|&(a, k)| {
            // Every entry (its plane's offset plus the plane's) fits a u32.
            let top = plane_idx
                .as_ref()
                .map_or(0, |t| t.iter().copied().max().unwrap_or(0));
            k >= 2
                && (k - 1)
                    .checked_mul(s.strides[a])
                    .and_then(|x| x.checked_add(top as usize))
                    .is_some_and(|x| x < u32::MAX as usize)
        });
    let plane_idx = match (plane_idx, plane_batch) {
        (Some(tab), Some((a, k))) => Some(
            (0..k)
                .flat_map(|j| {
                    let off = (j * s.strides[a]) as u32;
                    tab.iter().map(move |&i| i + off)
                })
                .collect(),
        ),
        (tab, _) => tab,
    };
    let outer: Vec<usize> = t
        .resampled
        .iter()
        .copied()
        .filter(|&a| a != w && Some(a) != plane_h)
        .collect();
    let fixed = small || p.alg == Algorithm::Nearest;
    RowGeom {
        runs,
        plane_h,
        rows_per_run,
        plane_idx,
        plane_batch,
        corners: fixed
            .then(|| RowCorners::new(t, &p.src.strides, &outer, &d.dims))
            .flatten(),
        out_w: o_n,
        range: dense.then_some((lo, hi)),
        small,
        w2,
        repeat,
        w,
        lane,
        wx,
        stream: StreamRule::of(p),
    }
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

    #[inline(always)]
    fn w(&self, a: usize, t: usize) -> f32 {
        self.wts[self.wstart[a] + t]
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

    /// Nested reduction over all corners for `n` contiguous lanes from lane `l0`; first axis
    /// innermost, exactly as the reference.
    unsafe fn reduce(
        &self,
        dt: DataType,
        src: *const u8,
        l0: usize,
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
                simd::load_contiguous(dt, src, self.offs[0] + l0, &mut out[..n]);
                return;
            }
            let k0 = self.ks[0];
            let parts = k / k0;
            scratch.resize((parts + 1) * LCH, 0.0);
            let (x, rest) = scratch.split_at_mut(LCH);
            let x = &mut x[..n];
            for h in 0..parts {
                let acc = &mut rest[h * LCH..h * LCH + n];
                for t in 0..k0 {
                    simd::load_contiguous(dt, src, self.offs[h * k0 + t] + l0, x);
                    let w = self.w(0, t);
                    if t == 0 {
                        for (a, &v) in acc.iter_mut().zip(x.iter()) {
                            *a = v * w;
                        }
                    } else {
                        for (a, &v) in acc.iter_mut().zip(x.iter()) {
                            *a += v * w;
                        }
                    }
                }
            }
            // Higher levels reduce partial sums in place (slot h collects group h).
            let mut parts = parts;
            for a in 1..self.m {
                let ka = self.ks[a];
                let next = parts / ka;
                for h in 0..next {
                    for t in 0..ka {
                        let w = self.w(a, t);
                        let (src_slot, dst_slot) = ((h * ka + t) * LCH, h * LCH);
                        for l in 0..n {
                            let v = rest[src_slot + l] * w;
                            rest[dst_slot + l] = if t == 0 { v } else { rest[dst_slot + l] + v };
                        }
                    }
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
                        corners.reduce(s.dtype, b.src, l0, n, &mut scratch, &mut vals);
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

/// The `rows` kernel (forward) over work items `start..end`: output rows
/// (`g.runs * g.rows_per_run` in all: planes split into rows, so one plane keeps every
/// thread busy), or with `nt` > 1 (the tiles per row), tiles: item `i` is tile `i % nt` of
/// row `i / nt`, so one long row keeps every thread busy too.
pub(crate) unsafe fn rows(
    p: &Problem,
    t: &Tables,
    g: &RowGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
    nt: usize,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let rank = p.dst.rank();
        let w = g.w;
        let (s, d) = (&p.src, &p.dst);
        let (ssz, dsz) = (s.dtype.size(), d.dtype.size());
        let wt = g.wtaps(t);
        let nc = g.lane.map_or(1, |l| l.1);
        debug_assert!(nt == 1 || nt == g.tiles_per_row());
        let (start_item, end_item) = (start, end);
        let (start, end) = (start / nt, end.div_ceil(nt));
        let others = AxisList::of(t.resampled.iter().copied().filter(|&a| a != w));
        // A run is a whole plane: the axis before W (if any) is walked inside it.
        let h = g.plane_h;
        let outer = AxisList::of(others.iter().copied().filter(|&a| Some(a) != h));
        let oh_n = h.map_or(1, |h| d.dims[h]);
        let mut corners = Corners::new();
        let mut scratch = Vec::new();
        let raw = p.raw_nearest();
        // Raw copies use no row buffers (and a long row's would cost a calloc's memset).
        let ncols = g.range.map_or(0, |(lo, hi)| hi + 1 - lo);
        let tiles = match &g.w2 {
            Some(W2 {
                t: w2,
                perm: Some(pt),
                tiles: Some(all),
            }) if g.range.is_some() => Some((w2, pt, all)),
            _ => None,
        };
        let (nrow, nout) = match (raw, tiles) {
            (Some(_), _) => (0, 0),
            // A tile's window and outputs.
            (None, Some((_, pt, tiles))) => tiles.iter().fold((0, 0), |(r, o), tl| {
                let n = (tl.k1 - tl.k0) * pt.step + tl.tail.as_ref().map_or(0, |t| t.i0.len());
                (r.max(tl.len), o.max(n))
            }),
            (None, None) => (ncols + hlerp::SLACK, g.out_w),
        };
        let mut row = AlignedBuf::<f32>::zeroed(nrow);
        let mut out = AlignedBuf::<f32>::zeroed(nout);
        let mut one = [0f32; 1];
        // Long rows stream through a buffer (short ones would leave partial lines at both
        // ends): nchw f32 1x3 1080x1920->2160x3840 14.2 -> 11.1 ms at one thread, 7.8 ->
        // 5.3 ms at two; the u8 HWC image 9.0 -> 7.7 ms; 75-wide rows 3.2 -> 6.7 ms.
        let stream = g.stream.now()
            && matches!(d.dtype, DataType::F32 | DataType::U8 | DataType::S8)
            && g.out_w * dsz >= STREAM_ROW;
        // (src row, dst row) of the previous raw nearest row: upsampling along H or D makes
        // consecutive dst rows read the same src row, and a row copy beats a second gather.
        let mut prev: Option<(usize, usize)> = None;
        // Axes walked inside a run (an absent one repeats W's entry, which is harmless).
        let overrides = [
            (w, 1, 0, 0),
            (h.unwrap_or(w), 1, 0, 0),
            (g.lane.map_or(w, |l| l.0), 1, 0, 0),
        ];
        let oh_n1 = oh_n.max(1);
        let mut runs = Runs::new(p, t, &overrides, start / oh_n1);
        let mut r = start;
        while r < end {
            let plane = r / oh_n1;
            let (oh_lo, oh_hi) = (r - plane * oh_n1, (end - plane * oh_n1).min(oh_n));
            r = (plane + 1) * oh_n1;
            let mut idx = runs.pos;
            let (doff0, sbase0) = (runs.doff, runs.sbase);
            runs.advance();
            // Fixed-size corners serve nearest (one tap per axis) and small linear problems;
            // the others use the general corners below.
            let fixed = g.small || p.alg == Algorithm::Nearest;
            let base = if let Some(rc) = &g.corners {
                rc.get(&idx, sbase0)
            } else if fixed {
                SmallCorners::fill(t, &outer, &s.strides, &idx[..rank], sbase0)
            } else {
                SmallCorners {
                    offs: [sbase0; 8],
                    w: [[1.0, 0.0]; 3],
                    m: 0,
                }
            };
            if let (Some(raw), Some(tab)) = (raw, &g.plane_idx) {
                // Short raw rows: this run's rows of the plane in one gather, or whole
                // planes, several at a time.
                let hd = h.map_or(0, |h| d.strides[h]);
                let dp = b.dst.add((doff0 + oh_lo * hd) * dsz);
                let planes = match g.plane_batch {
                    Some((a, k)) if oh_lo == 0 && oh_hi == oh_n => {
                        k.min(d.dims[a] - idx[a]).min((end - plane * oh_n1) / oh_n1)
                    }
                    _ => 1,
                };
                // (Advancing plane by plane was 87% of nchw f32 8x512 2x2->1x1.)
                runs.advance_by(planes - 1);
                r = (plane + planes) * oh_n1;
                let (lo, hi) = (
                    oh_lo * g.out_w,
                    (planes - 1) * oh_n * g.out_w + oh_hi * g.out_w,
                );
                let n = hi - lo;
                let idx = &tab[lo..hi];
                simd::gather_raw(ssz, b.src.add(base.offs[0] * ssz), dp, idx);
                if raw == RawCopy::Bf16Onednn {
                    simd::bf16_fix(dp, n);
                }
                continue;
            }
            if let Some(raw) = raw {
                // Raw nearest: one src row per dst row, no conversion — the lean loop.
                let hs = h.map_or(0, |h| s.strides[h]);
                let hd = h.map_or(0, |h| d.strides[h]);
                for oh in oh_lo..oh_hi {
                    let ih = h
                        .and_then(|h| t.fwd[h].as_ref())
                        .map_or(oh, |f| f.idx[oh] as usize);
                    let (r0, doff) = (base.offs[0] + ih * hs, doff0 + oh * hd);
                    let dp = b.dst.add(doff * dsz);
                    match prev {
                        Some((pr, pd)) if pr == r0 => {
                            std::ptr::copy_nonoverlapping(b.dst.add(pd * dsz), dp, g.out_w * dsz);
                        }
                        _ => {
                            let pix = t.fwd[w].as_ref().unwrap();
                            let sp = b.src.add(r0 * ssz);
                            let px = ssz * nc;
                            if raw == RawCopy::Bits {
                                match g.repeat {
                                    Some(k) => images::repeat_px(px, sp, dp, s.dims[w], k),
                                    None => images::gather_px(px, sp, dp, &pix.idx),
                                }
                            } else {
                                // The bf16 fixup follows each stretch of the row while it is
                                // still in L1 (a whole long row would have left it).
                                let (k, n_in) = (g.repeat.unwrap_or(1), s.dims[w]);
                                let step = (FIX_CHUNK / nc / k).max(1);
                                let mut i0 = 0;
                                while i0 < pix.idx.len() / k {
                                    let m = step.min(pix.idx.len() / k - i0);
                                    let dq = dp.add(i0 * k * px);
                                    match g.repeat {
                                        Some(_) => images::repeat_px(
                                            px,
                                            sp.add(i0 * px),
                                            dq,
                                            m.min(n_in - i0),
                                            k,
                                        ),
                                        None => images::gather_px(px, sp, dq, &pix.idx[i0..i0 + m]),
                                    }
                                    simd::bf16_fix(dq, m * k * nc);
                                    i0 += m;
                                }
                            }
                        }
                    }
                    prev = Some((r0, doff));
                }
                continue;
            }
            // f32 results without post-ops go straight into dst (rows are contiguous) unless
            // they stream.
            let direct = p.post_ops.is_empty() && d.dtype == DataType::F32 && !stream;
            for oh in oh_lo..oh_hi {
                let (mut sc, mut doff, mut sbase) = (base.clone(), doff0, sbase0);
                if let Some(h) = h {
                    idx[h] = oh;
                    doff += oh * d.strides[h];
                    match &t.fwd[h] {
                        Some(_) if !fixed => {}
                        Some(f) => {
                            let (ii, ww) = f.taps(oh);
                            sc.push_axis(ii, ww, s.strides[h]);
                        }
                        None => {
                            sc.offs.iter_mut().for_each(|o| *o += oh * s.strides[h]);
                            sbase += oh * s.strides[h];
                        }
                    }
                }
                if let (Some((w2, pt, tiles)), Some((lo, _))) = (tiles, g.range) {
                    // A long row tile by tile: blend the tile's window, lerp, store; this
                    // call's tiles of the row only.
                    let first = (plane * oh_n1 + oh) * nt;
                    let mine = match nt {
                        1 => 0..tiles.len(),
                        _ => start_item.saturating_sub(first)..(end_item - first).min(nt),
                    };
                    for tl in &tiles[mine] {
                        let offs = sc.offs.map(|o| o + lo + tl.lo);
                        let n = tl.len.min(ncols - tl.lo);
                        // An f32 row with nothing to blend is its own window where the whole
                        // window lies in the row (1-D nwc f32 C=4 433260->866521: the copy
                        // was 15% of the time).
                        let own = sc.m == 0
                            && s.dtype == DataType::F32
                            && n == tl.len
                            && (b.src as usize).is_multiple_of(4);
                        let win: &[f32] = if own {
                            // SAFETY: the tile's columns lie in this src row (n == tl.len),
                            // f32-aligned.
                            std::slice::from_raw_parts((b.src as *const f32).add(offs[0]), n)
                        } else {
                            simd::lerp(s.dtype, sc.m, b.src, &offs, &sc.w, &mut row[..n]);
                            &row
                        };
                        let e0 = tl.k0 * pt.step;
                        let m =
                            (tl.k1 - tl.k0) * pt.step + tl.tail.as_ref().map_or(0, |t| t.i0.len());
                        if direct {
                            // SAFETY: the tile's dst elements, written by this run only.
                            let o = std::slice::from_raw_parts_mut(
                                (b.dst as *mut f32).add(doff + e0),
                                m,
                            );
                            hlerp::lerp_tile(win, w2, pt, tl, o);
                        } else {
                            hlerp::lerp_tile(win, w2, pt, tl, &mut out[..m]);
                            let dp = b.dst.add((doff + e0) * dsz);
                            if stream {
                                simd::store_contiguous_nt(d.dtype, p.numerics, &out[..m], dp);
                            } else {
                                simd::store_contiguous(d.dtype, p.numerics, &out[..m], dp);
                            }
                        }
                    }
                    continue;
                }
                // SAFETY: this dst row (out_w contiguous f32) is written by this run only.
                let out: &mut [f32] = if direct {
                    std::slice::from_raw_parts_mut((b.dst as *mut f32).add(doff), g.out_w)
                } else {
                    &mut out
                };
                if p.alg == Algorithm::Nearest {
                    let r0 = sc.offs[0];
                    for (o, v) in out.iter_mut().enumerate() {
                        *v = load_f32(b.src.add((r0 + wt.idx[o] as usize) * ssz), s.dtype);
                    }
                } else if let (true, Some((lo, _))) = (g.small, g.range) {
                    // Blend the needed input columns over the other axes, then lerp along W.
                    let offs = sc.offs.map(|o| o + lo);
                    let nrow = row.len() - hlerp::SLACK;
                    match &g.w2 {
                        Some(W2 {
                            t: w2,
                            perm: Some(pt),
                            ..
                        }) => {
                            // The permutes read whole vectors: from the row buffer (with slack).
                            simd::lerp(s.dtype, sc.m, b.src, &offs, &sc.w, &mut row[..nrow]);
                            hlerp::lerp(row.as_ptr(), w2, pt, out)
                        }
                        // Nothing to blend from an f32 row: gather straight from the source.
                        Some(W2 { t: w2, .. }) if sc.m == 0 && s.dtype == DataType::F32 => {
                            simd::gather2((b.src as *const f32).add(offs[0]), w2, out)
                        }
                        Some(W2 { t: w2, .. }) => {
                            simd::lerp(s.dtype, sc.m, b.src, &offs, &sc.w, &mut row[..nrow]);
                            simd::gather2(row.as_ptr(), w2, out)
                        }
                        None => {
                            simd::lerp(s.dtype, sc.m, b.src, &offs, &sc.w, &mut row[..nrow]);
                            gather_taps(out, &row, lo, wt);
                        }
                    }
                } else if let Some((lo, hi)) = g.range {
                    corners.fill(p, t, &others, &idx[..rank], sbase);
                    let mut c0 = 0;
                    while c0 <= hi - lo {
                        let n = LCH.min(hi - lo + 1 - c0);
                        corners.reduce(s.dtype, b.src, lo + c0, n, &mut scratch, &mut row[c0..]);
                        c0 += n;
                    }
                    gather_taps(out, &row, lo, wt);
                } else {
                    corners.fill(p, t, &others, &idx[..rank], sbase);
                    for (o, v) in out.iter_mut().enumerate() {
                        let (ii, ww) = wt.taps(o);
                        let mut acc = 0.0;
                        for k in 0..ii.len() {
                            corners.reduce(
                                s.dtype,
                                b.src,
                                ii[k] as usize,
                                1,
                                &mut scratch,
                                &mut one,
                            );
                            acc = if k == 0 {
                                one[0] * ww[0]
                            } else {
                                acc + one[0] * ww[k]
                            };
                        }
                        *v = acc;
                    }
                }
                if !direct {
                    match g.lane {
                        // Streamed rows go out past the cache.
                        _ if stream && p.post_ops.is_empty() => simd::store_contiguous_nt(
                            p.dst.dtype,
                            p.numerics,
                            out,
                            b.dst.add(doff * p.dst.dtype.size()),
                        ),
                        Some((c, _)) if !p.post_ops.is_empty() => {
                            images::finish_pixels(p, b, out, doff, &mut idx[..rank], w, c, nc)
                        }
                        _ => {
                            idx[w] = 0;
                            finish(p, b, out, doff, &mut idx[..rank], w);
                        }
                    }
                }
            }
        }
        if stream {
            // The non-temporal stores must be visible before this chunk is reported done.
            simd::store_fence();
        }
    }
}

/// `out[o] = Σ_k row[idx_k] * w_k` (summed in tap order) along W, from blended columns
/// starting at input column `lo`.
#[inline]
fn gather_taps(out: &mut [f32], row: &[f32], lo: usize, wt: &super::taps::FwdTaps) {
    if wt.idx.len() == 2 * out.len() {
        // Two taps everywhere (linear): a branch-free loop.
        let (idx, w) = (&wt.idx, &wt.wt);
        for (o, v) in out.iter_mut().enumerate() {
            let (i0, i1) = (idx[2 * o] as usize - lo, idx[2 * o + 1] as usize - lo);
            *v = row[i0] * w[2 * o] + row[i1] * w[2 * o + 1];
        }
        return;
    }
    for (o, v) in out.iter_mut().enumerate() {
        let (ii, ww) = wt.taps(o);
        let mut acc = row[ii[0] as usize - lo] * ww[0];
        for k in 1..ii.len() {
            acc += row[ii[k] as usize - lo] * ww[k];
        }
        *v = acc;
    }
}

/// The `bwd_rows` kernel over runs `start..end`.
pub(crate) unsafe fn bwd_rows(
    p: &Problem,
    t: &Tables,
    g: &RowGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        macro_rules! go {
            ($s:ty) => {
                bwd_rows_typed::<$s>(p, t, g, b, start, end)
            };
        }
        match p.src.dtype {
            DataType::F32 => go!(simd::F32s),
            DataType::Bf16 => go!(simd::Bf16s),
            DataType::F16 => go!(simd::F16s),
            DataType::S32 => go!(simd::S32s),
            DataType::S8 => go!(simd::S8s),
            DataType::U8 => go!(simd::U8s),
            DataType::F64 => unreachable!("f64 backward runs on the generic path"),
        }
    }
}

unsafe fn bwd_rows_typed<S: Src>(
    p: &Problem,
    t: &Tables,
    g: &RowGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let rank = p.dst.rank();
        let w = rank - 1;
        let s = &p.src;
        let nearest = p.alg == Algorithm::Nearest;
        let ra: Vec<usize> = t.resampled.iter().copied().filter(|&a| a != w).collect();
        let m = ra.len();
        let wt = t.bwd[w].as_ref().unwrap();
        let mut out = AlignedBuf::<f32>::zeroed(g.out_w);
        let mut runs = Runs::new(p, t, &[(w, 1, 0, 0)], start);
        for _ in start..end {
            let mut idx = runs.pos;
            let (doff, sbase) = (runs.doff, runs.sbase);
            runs.advance();
            let tabs: [Option<&BwdTaps>; MAX_RANK] =
                std::array::from_fn(|a| if a < m { t.bwd[ra[a]].as_ref() } else { None });
            for (x, v) in out.iter_mut().enumerate() {
                let mut acc = 0.0f32;
                let mut gi = [0usize; MAX_RANK];
                // Group combinations: other axes in order, W last (fastest).
                loop {
                    let mut lists: [(&[u32], &[f32]); MAX_RANK] = [(&[], &[]); MAX_RANK];
                    let mut empty = false;
                    for a in 0..m {
                        lists[a] = tabs[a].unwrap().group(idx[ra[a]], gi[a]);
                        empty |= lists[a].0.is_empty();
                    }
                    let (wo, ww) = wt.group(x, gi[m]);
                    if !empty && !wo.is_empty() {
                        let mut pos = [0usize; MAX_RANK];
                        loop {
                            let mut off = sbase;
                            for a in 0..m {
                                off += lists[a].0[pos[a]] as usize * s.strides[ra[a]];
                            }
                            if nearest {
                                for &o in wo {
                                    acc += S::get(b.src, off + o as usize);
                                }
                            } else {
                                for (&o, &wv) in wo.iter().zip(ww) {
                                    let mut q = S::get(b.src, off + o as usize);
                                    for a in 0..m {
                                        q *= lists[a].1[pos[a]];
                                    }
                                    acc += q * wv;
                                }
                            }
                            if !odometer(&mut pos[..m], |a| lists[a].0.len()) {
                                break;
                            }
                        }
                    }
                    if !odometer(&mut gi[..m + 1], |a| {
                        if a < m {
                            tabs[a].unwrap().groups
                        } else {
                            wt.groups
                        }
                    }) {
                        break;
                    }
                }
                *v = acc;
            }
            idx[w] = 0;
            finish(p, b, &out, doff, &mut idx[..rank], w);
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
