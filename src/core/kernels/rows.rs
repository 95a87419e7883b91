//! The row kernels along a unit-stride resampled last axis: forward `rows` (the other
//! resampled axes blended into a row buffer, then W gathered or lerped with permute tables;
//! channels-last images as rows of `W * C` elements) and the backward `bwd_rows` gather.

use super::nt_batch::{self, NtBatch};
use super::*;

/// Shortest output row (bytes) the `rows` kernel streams by itself.
pub(crate) const STREAM_ROW: usize = 4096;
/// Shorter rows consecutive in dst stream in batches of about this many bytes, so that only
/// the batch's ends are partial lines.
const STREAM_BATCH: usize = 8192;

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
    /// Raw nearest rows of multi-element pixels: byte permute tables; of single elements
    /// (nchw) only for rows of problems that may stream, and used only when they do.
    pub bperm: Option<images::BytePerm>,
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
    /// Raw nearest with short rows: the src offset (from the plane's base) of every element
    /// of a whole output plane, so a plane is one gather instead of a short one per row
    /// (nchw u8 8x128 2x8x9->7x15x4 spent its time in per-row setup).
    pub plane_idx: Option<Vec<u32>>,
    /// `(axis, planes)`: `plane_idx` covers this many consecutive planes along `axis` (the
    /// innermost axis of the runs, identity, planes back to back in dst), so tiny planes go
    /// several to a gather (nchw u8 2x512 2x1->1x2 nearest 13.3 -> 5.2 us, oneDNN 12.8; f32
    /// 4x256 3x3->5x5 18.7 -> 9.9, 42.5).
    pub plane_batch: Option<(usize, usize)>,
    /// `(entries, src elements)`: `plane_idx` covers that many of the run's entries (whole
    /// rows of an identity row axis), each further period reading that much further on
    /// (nchw f32 1x16 112x112->112x56 nearest, merged to 1792 rows: row by row 44 us).
    pub plane_period: Option<(usize, usize)>,
    /// Forward runs with fixed-size corners: the corners of the resampled axes outside the
    /// run (not W, not `plane_h`) per row, when few (see [`RowCorners`]).
    pub corners: Option<RowCorners>,
    /// The W pass as vector gathers where outputs read other than two columns each
    /// (antialiasing): over the row buffer from `range.0`, or over `sparse`.
    pub wide: Option<WideTaps>,
    /// Linear rows read too few of their range's columns to blend it all (strong
    /// downsampling): the columns they read, blended into the row buffer side by side
    /// (`wide` then indexes that buffer).
    pub sparse: Option<Vec<u32>>,
}

/// Elements per stretch of a raw bf16 nearest row fixed up while in L1.
const FIX_CHUNK: usize = 4096;

/// A raw nearest row's recipe: its output pixels are source pixels, moved as bytes.
struct RawRow<'a> {
    raw: RawCopy,
    /// Bytes and elements per pixel.
    px: usize,
    nc: usize,
    /// Source pixel of every output pixel.
    idx: &'a [u32],
    /// Integer upsampling: each source pixel `k` times, of `n_in`.
    repeat: Option<usize>,
    n_in: usize,
    /// Byte permute tables (raw bits only).
    bperm: Option<&'a images::BytePerm>,
}

impl RawRow<'_> {
    /// (output, source) pixels per piece: the whole row, or for bf16 pieces small enough to
    /// be fixed up while in L1 (whole repeats).
    fn step(&self) -> (usize, usize) {
        self.step_within(usize::MAX)
    }

    /// [`RawRow::step`] in pieces of at most `bytes` too (at least one source pixel's).
    fn step_within(&self, bytes: usize) -> (usize, usize) {
        let k = self.repeat.unwrap_or(1);
        let bytes = match self.raw {
            RawCopy::Bits => bytes,
            RawCopy::Bf16Onednn => bytes.min(FIX_CHUNK * 2),
        };
        let src = (bytes / self.px / k).max(1);
        (src * k, src)
    }

    /// One gather of 4-byte elements builds the row (no permute tables, repeats or fix-ups).
    fn gathers_words(&self) -> bool {
        self.px == 4 && self.raw == RawCopy::Bits && self.bperm.is_none() && self.repeat.is_none()
    }

    /// Builds the row from source row `sp` in pieces of `step` output pixels (from
    /// [`RawRow::step`]); `at(o0, m)` says where output pixels `o0..o0 + m` go.
    ///
    /// # Safety
    /// `sp` holds the pixels `idx` names; each `at` pointer has room for its `m` pixels.
    #[inline]
    unsafe fn build(
        &self,
        sp: *const u8,
        (step, sstep): (usize, usize),
        mut at: impl FnMut(usize, usize) -> *mut u8,
    ) {
        let n = self.idx.len();
        if let Some(bp) = self.bperm {
            // SAFETY: the caller's contract; the tables describe this row.
            unsafe {
                let dq = at(0, n);
                bp.permute(sp, dq, self.raw == RawCopy::Bf16Onednn);
            }
            return;
        }
        // A repeat's pieces start on a source pixel: `i0` of them before `o0`.
        let (mut o0, mut i0) = (0, 0);
        while o0 < n {
            let m = step.min(n - o0);
            // SAFETY: the caller's contract.
            unsafe {
                let dq = at(o0, m);
                match self.repeat {
                    Some(k) => images::repeat_px(
                        self.px,
                        sp.add(i0 * self.px),
                        dq,
                        sstep.min(self.n_in - i0),
                        k,
                    ),
                    None => images::gather_px(self.px, sp, dq, &self.idx[o0..o0 + m]),
                }
                if self.raw == RawCopy::Bf16Onednn {
                    simd::bf16_fix(dq, m * self.nc);
                }
            }
            (o0, i0) = (o0 + m, i0 + sstep);
        }
    }
}

/// Dst rows one streamed byte permute of a src row writes at most (more repeats of a row
/// take another pass over it).
const SHARED_ROWS: usize = 8;

/// Rows (elements) shorter than this go through the raw nearest plane gather, which costs a
/// table read per element but no per-row setup; largest plane it tabulates. Measured (µs,
/// 1 thread AVX-512, rows before -> plane): nchw bf16 2x48 81x49->27x24 49 -> 16 (oneDNN 29),
/// f32 4x48 30x30->45x45 126 -> 90, f32 4x16 40x400->20x200 70 -> 60; wider rows break even.
const PLANE_ROW: usize = 256;
/// Cached rows of AVX2 word permutes gathered for one call.
const WORD_BATCH: usize = 32;

/// Shortest rows (elements) the AVX2 word permutes take from the plane gather: below, the
/// rows' own setup costs more than the gathers (same host as `words` in `fwd_row_geom`,
/// nchw f32 8x64 8x7->16x17 0.041 -> 0.047 ms, 8x5->16x13 0.031 -> 0.038; 4x64 12x9->24x19
/// 0.034 -> 0.031, 8x64 10x13->17x27 0.070 -> 0.053).
const WORD_ROW: usize = 20;
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
    /// The W table, its permute tables and the row buffer's first column where whole runs
    /// of rows go through `lerp_rows` (rows of at most two taps an axis, lerped with
    /// permutes, no post-ops), short of the per-execution rules (streamed long rows and
    /// prefetched sources stay row by row).
    pub(crate) fn lerp_rows(&self, p: &Problem) -> Option<(&WTable, &hlerp::PermTable, usize)> {
        match (&self.w2, self.range) {
            (
                Some(W2 {
                    t,
                    perm: Some(pt),
                    tiles: None,
                }),
                Some((lo, _)),
            ) if self.small && p.alg == Algorithm::Linear && p.post_ops.is_empty() => {
                Some((t, pt, lo))
            }
            _ => None,
        }
    }

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

/// Rows of more outputs than this go tile by tile (see [`hlerp::Tile`]).
const ROW_TILE: usize = 8192;
/// Outputs per tile: a tile's blended window and its f32 outputs stay in L1 between the
/// passes (HWC HD->4K linear, 1 thread, 8192 -> 2048: u8 4.8 -> 4.3 ms, bf16 12 -> 9; f32
/// rows stream from registers and do not change).
const TILE: usize = 2048;

/// Rows of at most this many bytes ask for the src rows of the output row a few rows on
/// ([`lerp_rows::prefetch_ahead`]) when the source exceeds a core's share of the last-level
/// cache: the hardware prefetchers stop at every 4 KiB page and lose the stream where rows
/// are skipped, so a page of short rows stalled on memory. nchw f32 linear, 1 thread: 8x64
/// 112->56 4.3 -> 1.7 ms, 1x64 300->100 1.68 -> 0.65 (oneDNN 6.9, 3.4 in that run); 2
/// threads 1.95 -> 0.89, 0.45 -> 0.37. Longer rows keep the hardware's stream and lost to
/// the extra lines in L1 (1x3 2160x3840 -> 1080x1920 7.7 -> 9.0 ms prefetched); a cached
/// source has nothing to gain. Tried on a VM whose sysfs gives a core 130 MiB of L3 (so
/// this never fires there): prefetching sources beyond the L2 instead, for H downsampling
/// only. nchw f32 8x64 112->56 gained 8-34% in four runs and lost 4% in a fifth, 1x64
/// 300->100 and 1x256 136x100->68x50 lost 7%, u8/bf16 112->56 10%, 1x16 1024->100
/// (4064-byte spans, the prefetches waiting on full fill buffers) 20%: not kept.
const PREFETCH_ROW: usize = 4096;

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
    let dense = hi + 1 - lo <= 8 * taps.idx.len();
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
                .map(|pt| pt.tiles(TILE));
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
    let bperm = match lane {
        // (oneDNN's bf16 rows are fixed up after the permute, as after any raw copy.)
        Some((_, nc)) if p.raw_nearest().is_some() => {
            images::BytePerm::new(&pix.idx, nc * s.dtype.size(), s.dims[w])
        }
        _ => None,
    };
    // Runs are planes: the last axis before W other than the lane axis is walked inside.
    let plane_h = (0..w).rev().find(|&a| Some(a) != lane.map(|l| l.0));
    let rows_per_run = plane_h.map_or(1, |h| d.dims[h]);
    let runs: usize = (0..d.rank())
        .filter(|&a| a != w && Some(a) != lane.map(|l| l.0) && Some(a) != plane_h)
        .map(|a| d.dims[a])
        .product();
    // AVX2 word permutes (4-byte elements) serve every row of `WORD_ROW` outputs or more
    // outside a pixel lane, cached rows too, instead of the plane gather and the row gathers
    // (`vpgatherdd`): `RESAMPLE_ISA=avx2` on an AVX-512 Xeon, 1 thread, ms, gathers -> word
    // permutes (oneDNN 2.6 at AVX2): nchw f32 1x256 1266->3797 0.235 -> 0.177 (0.180), 1x1
    // 163x90x39->82x180x116 0.444 -> 0.351 (0.370), 4x16 300x300->300x700 5.5 -> 4.0 (7.1),
    // 8x32 64x300->64x500 3.9 -> 2.8 (3.4), 1x48 49x84->98x215 0.207 -> 0.169 (0.171); plane
    // gather -> word permutes: 2x32 32x50->64x99 0.125 -> 0.056 (0.074), 4x32 30x25->45x57
    // 0.102 -> 0.055 (0.073), 8x32 10x18->17x39 0.052 -> 0.031 (0.035), 1x64 33x10->66x21
    // 0.025 -> 0.018 (0.019). Integer repeats too (repeat copies or the plane gather ->
    // word permutes): 4x32 50x50->150x150 0.60 -> 0.48 (0.58), 4x64 16x16->32x32 0.067 ->
    // 0.041 (0.053), 2x48 7x10x16->21x31x32 0.55 -> 0.38 (0.39), except rows repeated twice
    // from the plane gather's limit up (streamed from registers: 8x256 32x32->64x64 1.73
    // with them, 2.31 permuted).
    let dsz = d.dtype.size();
    let words = (lane.is_none()
        && p.raw_nearest().is_some()
        && (repeat != Some(2) || o_n < plane_row_limit(true, dsz))
        && o_n >= WORD_ROW
        && images::BytePerm::words(dsz))
    .then(|| images::BytePerm::new(&pix.idx, dsz, s.dims[w]))
    .flatten();
    let plane_ok = plane_h.filter(|&h| {
        p.raw_nearest().is_some()
            && words.is_none()
            && lane.is_none()
            && o_n < plane_row_limit(repeat.is_some(), dsz)
            && d.strides[h] == o_n
            // Every table entry (row offset plus column) fits a u32.
            && s.dims[h]
                .checked_mul(s.strides[h])
                .and_then(|x| x.checked_add(s.dims[w]))
                .is_some_and(|x| x < u32::MAX as usize)
    });
    let whole = plane_ok.filter(|_| rows_per_run * o_n <= PLANE_MAX);
    // Single-element pixels (nchw) only for rows of problems that may stream, outside the
    // plane gather: streamed rows are permuted (from registers, or into the stream batch)
    // where the cached copies stay per element. Not the 4-byte rows repeated twice, which
    // stream from registers by themselves; short rows (built in the stream batch) only of
    // 1- and 2-byte elements with 64-byte permutes. Side by side, 1 thread, nchw 8x256
    // 32->96: AVX-512 VBMI u8 2.8 -> 2.3 ms, bf16 3.9 -> 3.4, f32 within noise (5.9 -> 5.2,
    // 5.2 -> 6.0); `RESAMPLE_ISA=avx2` (16-byte blocks) f32 4.6 -> 8.4, bf16 4.1 -> 5.4.
    // Long rows gain on both (permutes streamed from registers).
    let bperm = bperm.or(words).or_else(|| {
        (lane.is_none()
            && whole.is_none()
            && p.raw_nearest().is_some()
            // (Tests stream problems of any size: `streaming::FORCE_STREAM`.)
            && (d.span_bytes().unwrap_or(0) > crate::core::cache::l2_per_core() || cfg!(test))
            && !(dsz == 4 && repeat == Some(2))
            && (o_n * dsz >= STREAM_ROW || (simd::byte_permutes() && dsz < 4)))
            .then(|| images::BytePerm::new(&pix.idx, s.dtype.size(), s.dims[w]))
            .flatten()
    });
    // An identity row axis too long for one table (and no byte permute for its rows): the
    // table covers as many whole rows as fit, and the gather walks it again per that many
    // rows from a src base moved on. 1 thread, nchw nearest, row by row -> tables: f32
    // 1x16 112x112->112x56 42 -> 20 us (oneDNN 3.2 31), 8x256 64x64->64x32 6.1 -> 3.0 ms
    // (4.4), 4x64 100x50->100x77 1.20 -> 0.61 (0.72), bf16 4x32 100x64->100x40 0.56 ->
    // 0.17 (0.50); u8 8x64 56x56->56x100 lost to the byte permutes (0.60 -> 0.72).
    let periodic = plane_ok.filter(|&h| whole.is_none() && bperm.is_none() && t.fwd[h].is_none());
    // (`rows_per_run` is the row axis' size.)
    let table_rows = match periodic {
        Some(_) => (PLANE_MAX / o_n.max(1)).clamp(1, rows_per_run),
        None => rows_per_run,
    };
    let plane_period = periodic.map(|h| (table_rows * o_n, table_rows * s.strides[h]));
    let plane_idx = whole.or(periodic);
    let plane_idx: Option<Vec<u32>> = plane_idx.map(|h| {
        (0..table_rows)
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
    let linear = p.alg == Algorithm::Linear;
    let mut sparse = (linear && !dense).then(|| {
        let mut cols = taps.idx.clone();
        cols.sort_unstable();
        cols.dedup();
        cols
    });
    let wide = match &sparse {
        Some(cols) => WideTaps::new(
            &FwdTaps {
                bounds: taps.bounds.clone(),
                // Found: every column is in the list.
                idx: (taps.idx.iter())
                    .map(|i| cols.binary_search(i).unwrap_or(0) as u32)
                    .collect(),
                wt: taps.wt.clone(),
            },
            0,
        ),
        None if linear && dense && w2.is_none() => WideTaps::new(taps, lo),
        None => None,
    };
    if wide.is_none() {
        sparse = None;
    }
    RowGeom {
        runs,
        plane_h,
        rows_per_run,
        plane_idx,
        plane_batch,
        plane_period,
        corners: fixed
            .then(|| RowCorners::new(t, &p.src.strides, &outer, &d.dims))
            .flatten(),
        out_w: o_n,
        range: dense.then_some((lo, hi)),
        small,
        w2,
        repeat,
        bperm,
        w,
        lane,
        wx,
        wide,
        sparse,
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
        let row_bytes = ncols * ssz;
        // The columns a row reads: its range, or the span of its sparse columns.
        let span = match (g.range, &g.sparse) {
            (Some((lo, _)), _) => Some((lo, row_bytes)),
            (None, Some(c)) => c
                .first()
                .zip(c.last())
                .map(|(&a, &z)| (a as usize, (z - a + 1) as usize * ssz)),
            (None, None) => None,
        };
        // Only where H skips src rows: upsampled rows read src in order, and the prefetches
        // cost them (Zen 1, fused rows with and without, ms: nchw f32 8x64 56->112 6.4 and
        // 5.8; 112->56 3.7 and 4.6).
        let prefetch = span.is_some_and(|(_, n)| n <= PREFETCH_ROW)
            && g.plane_h.is_some_and(|h| s.dims[h] > d.dims[h])
            && s.span_bytes().unwrap_or(0) > crate::core::cache::llc_per_core();
        let tiles = match &g.w2 {
            Some(W2 {
                t: w2,
                perm: Some(pt),
                tiles: Some(all),
            }) if g.range.is_some() => Some((w2, pt, all)),
            _ => None,
        };
        // Long rows stream by themselves through a buffer (short ones would leave partial
        // lines at both ends): nchw f32 1x3 1080x1920->2160x3840 14.2 -> 11.1 ms at one
        // thread, 7.8 -> 5.3 ms at two; the u8 HWC image 9.0 -> 7.7 ms; 75-wide rows
        // streamed one by one 3.2 -> 6.7 ms.
        let streams = crate::core::streaming::now()
            && matches!(d.dtype, DataType::F32 | DataType::U8 | DataType::S8);
        let stream = streams && g.out_w * dsz >= STREAM_ROW;
        // Short rows that follow each other in dst stream as batches of rows.
        // Rows a batch holds where they are back to back in dst: about STREAM_BATCH bytes.
        let back_to_back = match h {
            Some(h) if d.strides[h] == g.out_w => {
                (STREAM_BATCH / (g.out_w * dsz).max(1)).clamp(1, oh_n)
            }
            _ => 1,
        };
        let batch =
            if streams && !stream && raw.is_none() && tiles.is_none() && p.post_ops.is_empty() {
                back_to_back
            } else {
                1
            };
        let (nrow, nout) = match (raw, tiles) {
            (Some(_), _) => (0, 0),
            // A tile's window and outputs.
            (None, Some((_, pt, tiles))) => tiles.iter().fold((0, 0), |(r, o), tl| {
                let n = (tl.k1 - tl.k0) * pt.step + tl.tail.as_ref().map_or(0, |t| t.i0.len());
                (r.max(tl.len), o.max(n))
            }),
            (None, None) => (
                ncols.max(g.sparse.as_ref().map_or(0, |c| c.len())) + hlerp::SLACK,
                g.out_w * batch,
            ),
        };
        // Short rows lerped with permutes: whole runs at a time (see `lerp_rows`).
        let fused = g.lerp_rows(p).filter(|_| !stream);
        // Rows of a `lerp_rows` run that go through the buffer together (converted and
        // stored as one batch where back to back in dst).
        let group = if fused.is_some() { back_to_back } else { 0 };
        let front = if fused.is_some() { lerp_rows::FRONT } else { 0 };
        let mut row = AlignedBuf::<f32>::zeroed(nrow + front);
        let mut outbuf = AlignedBuf::<f32>::zeroed(nout.max(g.out_w * group));
        let mut one = [0f32; 1];
        // Raw rows stream (any dtype: bits are copied) when they follow each other in dst
        // (through a batch) or are long, and the plane gather always (its planes are
        // contiguous). 1 thread, ms, plain -> streamed (oneDNN 3.2): nchw f32 1x3
        // 1080x1920->2160x3840 13.1 -> 7.3 (13.8), 8x256 32->64 4.7 -> 3.0 (2.5), bf16
        // 8x64 112->224 7.3 -> 4.7 (24.5), HWC f32 C=3 HD 15.3 -> 12.3 (16.4).
        let mut ntb = match raw {
            Some(_)
                if crate::core::streaming::now()
                    && (g.plane_idx.is_some()
                        || g.out_w * dsz >= STREAM_ROW
                        || h.is_some_and(|h| d.strides[h] == g.out_w)) =>
            {
                Some(NtBatch::new())
            }
            _ => None,
        };
        // Long streamed raw rows: the last one built, and from which src row.
        let (mut rawrow, mut built) = (AlignedBuf::<u8>::new(), None);
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
                let sp = b.src.add(base.offs[0] * ssz);
                // Streamed in batch-sized pieces; else one gather.
                let piece = if ntb.is_some() {
                    nt_batch::BATCH / dsz
                } else {
                    hi - lo
                };
                let (period, pstep) = g.plane_period.unwrap_or((usize::MAX, 0));
                let mut e = lo;
                while e < hi {
                    let (c, at) = (e / period, e % period);
                    let m = piece.min(hi - e).min(period - at);
                    let dq = dp.add((e - lo) * dsz);
                    let dq = match &mut ntb {
                        Some(nb) => nb.slot(dq, m * dsz),
                        None => dq,
                    };
                    let spc = sp.add(c * pstep * ssz);
                    simd::gather_raw(ssz, spc, dq, &tab[at..at + m]);
                    if raw == RawCopy::Bf16Onednn {
                        simd::bf16_fix(dq, m);
                    }
                    e += m;
                }
                continue;
            }
            if let Some(raw) = raw {
                // Raw nearest: one src row per dst row, no conversion — the lean loop.
                let hs = h.map_or(0, |h| s.strides[h]);
                let hd = h.map_or(0, |h| d.strides[h]);
                let pix = t.fwd[w].as_ref().unwrap();
                let row = RawRow {
                    raw,
                    px: ssz * nc,
                    nc,
                    idx: &pix.idx,
                    repeat: g.repeat,
                    n_in: s.dims[w],
                    // Single-element pixels' byte tables serve streamed rows only.
                    bperm: g
                        .bperm
                        .as_ref()
                        .filter(|bp| g.lane.is_some() || ntb.is_some() || bp.by_words()),
                };
                let step = row.step();
                let n = g.out_w * dsz;
                let src_row = |oh: usize| {
                    let ih = h
                        .and_then(|h| t.fwd[h].as_ref())
                        .map_or(oh, |f| f.idx[oh] as usize);
                    base.offs[0] + ih * hs
                };
                // Streamed rows of 4-byte elements repeated twice that start lines: built in
                // registers and streamed straight to each of their dst rows, with no batch or
                // scratch row between (nchw f32 nearest, side by side, 1 / 2 threads: 8x256
                // 32->64 2.28 -> 1.69 / 1.42 -> 0.89 ms, 8x64 56->112 1.47 -> 1.23 / 0.99 ->
                // 0.68, 1x3 HD->4K 6.65 -> 5.04 / 3.40 -> 2.53; oneDNN 2.23, 1.42, 11.8 at 1).
                // The first row says whether the kernel applies (ISA, length, alignment); the
                // others, a whole number of lines further, then take it too.
                let repeat2 = |oh: usize| {
                    let sp = b.src.add(src_row(oh) * ssz) as *const u32;
                    let dp = b.dst.add((doff0 + oh * hd) * dsz) as *mut u32;
                    simd::repeat2_stream32(sp, dp, row.n_in)
                };
                if ntb.is_some()
                    && raw == RawCopy::Bits
                    && row.bperm.is_none()
                    && row.px == 4
                    && row.repeat == Some(2)
                    && g.out_w == 2 * row.n_in
                    && (hd * dsz).is_multiple_of(64)
                    && repeat2(oh_lo)
                {
                    for oh in oh_lo + 1..oh_hi {
                        let done = repeat2(oh);
                        debug_assert!(done);
                    }
                    continue;
                }
                if let (Some(nb), true) = (&mut ntb, n < STREAM_ROW) {
                    // Streamed short rows (back to back in dst: see `ntb`): built in the
                    // batch a batch's worth at a time, a repeated row copied from the one
                    // before (a slot and a scratch row per row cost nchw f32 8x256 32->64
                    // 20 ns a row).
                    let group = (nt_batch::BATCH / n).max(1);
                    let mut oh = oh_lo;
                    while oh < oh_hi {
                        let m = group.min(oh_hi - oh);
                        let q = nb.slot(b.dst.add((doff0 + oh * hd) * dsz), m * n);
                        let mut last: Option<(usize, *const u8)> = None;
                        for j in 0..m {
                            let r0 = src_row(oh + j);
                            let qj = q.add(j * n);
                            match last {
                                Some((r, lq)) if r == r0 => {
                                    std::ptr::copy_nonoverlapping(lq, qj, n)
                                }
                                _ => row
                                    .build(b.src.add(r0 * ssz), step, |o0, _| qj.add(o0 * row.px)),
                            }
                            last = Some((r0, qj));
                        }
                        oh += m;
                    }
                    continue;
                }
                // Streamed long rows of byte permutes: each block built once in registers
                // and stored to every dst row of the same src row, no scratch row between
                // (HWC f32 HD->4K 9.5 -> 5.6 ms: see `simd::permute_bytes_stream`). The
                // first group says whether it applies (ISA, alignment); the rows after it, a
                // whole number of lines further, then take it too.
                let mut from = oh_lo;
                if let (Some(bp), true) =
                    (row.bperm, ntb.is_some() && (hd * dsz).is_multiple_of(64))
                {
                    let fix = raw == RawCopy::Bf16Onednn;
                    let oh = &mut from;
                    while *oh < oh_hi {
                        let r0 = src_row(*oh);
                        let mut dsts = [std::ptr::null_mut(); SHARED_ROWS];
                        let mut k = 0;
                        while k < SHARED_ROWS && *oh + k < oh_hi && src_row(*oh + k) == r0 {
                            dsts[k] = b.dst.add((doff0 + (*oh + k) * hd) * dsz);
                            k += 1;
                        }
                        if !bp.permute_stream(b.src.add(r0 * ssz), &dsts[..k], fix) {
                            debug_assert_eq!(*oh, oh_lo);
                            break;
                        }
                        *oh += k;
                    }
                }
                // Cached rows of word permutes: the run's rows in one loop (a call per row
                // cost short rows more than their permutes).
                if let (Some(bp), None) = (row.bperm.filter(|bp| bp.by_words()), &ntb) {
                    let mut batch = [(std::ptr::null(), std::ptr::null_mut()); WORD_BATCH];
                    let fix = raw == RawCopy::Bf16Onednn;
                    while from < oh_hi {
                        let k = WORD_BATCH.min(oh_hi - from);
                        for (i, x) in batch[..k].iter_mut().enumerate() {
                            let oh = from + i;
                            *x = (
                                b.src.add(src_row(oh) * ssz),
                                b.dst.add((doff0 + oh * hd) * dsz),
                            );
                        }
                        if !bp.permute_rows(&batch[..k], fix) {
                            break;
                        }
                        from += k;
                    }
                }
                // Streamed rows of raw bits past half a core's L2 go out through the batch
                // piece by piece: a scratch row that size comes back from memory to be
                // copied (1 thread, Zen 4, `RESAMPLE_ISA=avx2`, 1-D nwc f32 C=8 603974 ->
                // 1207949 nearest: 10.4-12.7 -> 3.4-4.2 ms, oneDNN 3.6). bf16 rows keep
                // their fixed-up stretches in scratch (through the batch: 1.11 -> 1.60 ms).
                let long = n > crate::core::cache::l2_per_core() / 2
                    && row.bperm.is_none()
                    && raw == RawCopy::Bits;
                for oh in from..oh_hi {
                    let (r0, doff) = (src_row(oh), doff0 + oh * hd);
                    let (sp, dp) = (b.src.add(r0 * ssz), b.dst.add(doff * dsz));
                    if let (Some(nb), true) = (&mut ntb, long) {
                        let st = row.step_within(nt_batch::BATCH);
                        row.build(sp, st, |o0, m| nb.slot(dp.add(o0 * row.px), m * row.px));
                        continue;
                    }
                    match (ntb.is_some(), prev) {
                        // Streamed long rows: built once per source row in scratch (reading a
                        // streamed copy back would come from memory), then copied out past
                        // the cache.
                        (true, _) => {
                            if built != Some(r0) {
                                if rawrow.len() < n {
                                    rawrow.resize(n);
                                }
                                let rb = rawrow.as_mut_ptr();
                                row.build(sp, step, |o0, _| rb.add(o0 * row.px));
                                built = Some(r0);
                            }
                            simd::stream_copy(rawrow.as_ptr(), dp, n);
                        }
                        (false, Some((pr, pd))) if pr == r0 => {
                            let from = b.dst.add(pd * dsz);
                            if row.gathers_words() {
                                simd::copy_gathered32(from, dp, n / 4);
                            } else {
                                images::copy_row(from, dp, n);
                            }
                        }
                        (false, _) => row.build(sp, step, |o0, _| dp.add(o0 * row.px)),
                    }
                    prev = Some((r0, doff));
                }
                continue;
            }
            // f32 results without post-ops go straight into dst (rows are contiguous) unless
            // they stream.
            let direct = p.post_ops.is_empty() && d.dtype == DataType::F32 && !stream && batch == 1;
            if let Some((w2, pt, lo)) = fused {
                // Short rows: the whole run in one call (see `lerp_rows`).
                let (hs, hd) = h.map_or((0, 0), |h| (s.strides[h], d.strides[h]));
                let first = b.dst.add((doff0 + oh_lo * hd) * dsz);
                let mut run = lerp_rows::Run {
                    base: base.clone(),
                    h: h.and_then(|h| t.fwd[h].as_ref()),
                    hs,
                    lo,
                    oh0: oh_lo,
                    out: first as *mut f32,
                    od: hd,
                    prefetch: prefetch.then_some((ssz, row_bytes)),
                    in_place: s.dtype == DataType::F32
                        && s.span_bytes()
                            .is_some_and(|b| b <= crate::core::cache::l2_per_core()),
                };
                let n = oh_hi - oh_lo;
                // f32 rows go straight to dst: streamed from registers where every row
                // starts a line, else plain unless a batch through the buffer can stream.
                let lines = (first as usize).is_multiple_of(64)
                    && (hd * dsz).is_multiple_of(64)
                    && pt.step == pt.lanes;
                if d.dtype == DataType::F32 && (!streams || lines || group == 1) {
                    let nt = streams && lines;
                    lerp_rows::run(s.dtype, b.src, &mut row, w2, pt, n, nt, &run);
                } else {
                    // `group` rows at a time through the buffer (back to back in dst when
                    // more than one), converted and stored together.
                    (run.out, run.od) = (outbuf.as_mut_ptr(), g.out_w);
                    while run.oh0 < oh_hi {
                        let k = group.min(oh_hi - run.oh0);
                        lerp_rows::run(s.dtype, b.src, &mut row, w2, pt, k, false, &run);
                        let rows = &outbuf[..k * g.out_w];
                        let dp = b.dst.add((doff0 + run.oh0 * hd) * dsz);
                        if streams {
                            simd::store_contiguous_nt(d.dtype, p.numerics, rows, dp);
                        } else {
                            simd::store_contiguous(d.dtype, p.numerics, rows, dp);
                        }
                        run.oh0 += k;
                    }
                }
                continue;
            }
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
                            if let (true, Some((lo, bytes))) = (prefetch, span) {
                                lerp_rows::prefetch_ahead(
                                    b.src,
                                    f,
                                    oh,
                                    &base.offs[..1 << base.m],
                                    s.strides[h],
                                    lo,
                                    (ssz, bytes),
                                );
                            }
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
                        let offs = sc.shifted(lo + tl.lo);
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
                        } else if stream
                            && d.dtype == DataType::F32
                            && hlerp::lerp_stream(
                                win.as_ptr(),
                                w2,
                                pt,
                                tl.k0,
                                tl.k1,
                                tl.lo,
                                tl.tail.as_ref(),
                                (b.dst as *mut f32).add(doff + e0),
                            )
                        {
                            // Streamed from registers.
                        } else {
                            hlerp::lerp_tile(win, w2, pt, tl, &mut outbuf[..m]);
                            let dp = b.dst.add((doff + e0) * dsz);
                            if stream {
                                simd::store_contiguous_nt(d.dtype, p.numerics, &outbuf[..m], dp);
                            } else {
                                simd::store_contiguous(d.dtype, p.numerics, &outbuf[..m], dp);
                            }
                        }
                    }
                    continue;
                }
                // Set where the row went out from registers already.
                let mut written = false;
                // This row's slot in the batch.
                let k = (oh - oh_lo) % batch;
                // SAFETY: this dst row (out_w contiguous f32) is written by this run only.
                let out: &mut [f32] = if direct {
                    std::slice::from_raw_parts_mut((b.dst as *mut f32).add(doff), g.out_w)
                } else {
                    &mut outbuf[k * g.out_w..(k + 1) * g.out_w]
                };
                if p.alg == Algorithm::Nearest {
                    let r0 = sc.offs[0];
                    for (o, v) in out.iter_mut().enumerate() {
                        *v = load_f32(b.src.add((r0 + wt.idx[o] as usize) * ssz), s.dtype);
                    }
                } else if let (true, Some((lo, _))) = (g.small, g.range) {
                    // Blend the needed input columns over the other axes, then lerp along W.
                    let offs = sc.shifted(lo);
                    let nrow = row.len() - hlerp::SLACK;
                    match &g.w2 {
                        Some(W2 {
                            t: w2,
                            perm: Some(pt),
                            ..
                        }) => {
                            // The permutes read whole vectors: from the row buffer (with slack).
                            simd::lerp(s.dtype, sc.m, b.src, &offs, &sc.w, &mut row[..nrow]);
                            written = stream
                                && d.dtype == DataType::F32
                                && p.post_ops.is_empty()
                                && hlerp::lerp_stream(
                                    row.as_ptr(),
                                    w2,
                                    pt,
                                    0,
                                    pt.base.len(),
                                    0,
                                    Some(&pt.tail),
                                    (b.dst as *mut f32).add(doff),
                                );
                            if !written {
                                hlerp::lerp(row.as_ptr(), w2, pt, out)
                            }
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
                            w_pass(g, out, &row, lo, wt);
                        }
                    }
                } else if let Some((lo, hi)) = g.range {
                    corners.fill(p, t, &others, &idx[..rank], sbase);
                    let mut c0 = 0;
                    while c0 <= hi - lo {
                        let n = LCH.min(hi - lo + 1 - c0);
                        let at = simd::Lanes::From(lo + c0);
                        corners.reduce(s.dtype, b.src, at, n, &mut scratch, &mut row[c0..]);
                        c0 += n;
                    }
                    w_pass(g, out, &row, lo, wt);
                } else if let (Some(cols), Some(wide)) = (&g.sparse, &g.wide) {
                    // The columns the W taps read, blended side by side, then gathered.
                    corners.fill(p, t, &others, &idx[..rank], sbase);
                    for (c0, part) in (0..cols.len()).step_by(LCH).zip(cols.chunks(LCH)) {
                        let at = simd::Lanes::Cols(part);
                        let r = &mut row[c0..];
                        corners.reduce(s.dtype, b.src, at, part.len(), &mut scratch, r);
                    }
                    // SAFETY: the table indexes the blended columns, all in `row`.
                    wide.gather(row.as_ptr(), out);
                } else {
                    corners.fill(p, t, &others, &idx[..rank], sbase);
                    for (o, v) in out.iter_mut().enumerate() {
                        let (ii, ww) = wt.taps(o);
                        let mut acc = 0.0;
                        for k in 0..ii.len() {
                            corners.reduce(
                                s.dtype,
                                b.src,
                                simd::Lanes::From(ii[k] as usize),
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
                if batch > 1 {
                    // The batch's rows are consecutive in dst, the last one at `doff`.
                    if k + 1 == batch || oh + 1 == oh_hi {
                        let first = doff - k * g.out_w;
                        let rows = &outbuf[..(k + 1) * g.out_w];
                        simd::store_contiguous_nt(
                            d.dtype,
                            p.numerics,
                            rows,
                            b.dst.add(first * dsz),
                        );
                    }
                } else if !direct && !written {
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
        if let Some(nb) = &mut ntb {
            nb.flush();
        }
        if stream || batch > 1 || ntb.is_some() || (fused.is_some() && streams) {
            // The non-temporal stores must be visible before this chunk is reported done.
            simd::store_fence();
        }
    }
}

/// The W pass over a blended row: the vector gathers where the plan tabulated them.
#[inline]
fn w_pass(g: &RowGeom, out: &mut [f32], row: &[f32], lo: usize, wt: &FwdTaps) {
    match &g.wide {
        // SAFETY: the table names columns of the range, which `row` holds from `lo`.
        Some(wide) if wide.outputs() == out.len() => unsafe { wide.gather(row.as_ptr(), out) },
        _ => gather_taps(out, row, lo, wt),
    }
}

/// `out[o] = Σ_k row[idx_k] * w_k` (summed in tap order) along W, from blended columns
/// starting at input column `lo`.
#[inline]
fn gather_taps(out: &mut [f32], row: &[f32], lo: usize, wt: &FwdTaps) {
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
