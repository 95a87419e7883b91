//! Backward linear over planes upsampled exactly 2x along both `h` and `w` (AVX-512 and AVX2,
//! f32 or bf16 diff_dst): the common backward of a 2x bilinear upsample.
//!
//! In such a plane every interior diff_src element `(i, x)` sums the same pattern: `h` group
//! 0 lists diff_dst rows `2i + 1, 2i + 2`, group 1 rows `2i - 1, 2i`, each with the weights
//! every interior row shares, and likewise along `w`. The reference's order per element is
//! `gh → gw → oh → ow`, `acc = acc + (dd * wh) * ww` from 0. So diff_dst rows `2t + 1, 2t + 2`
//! are the whole group-0 phase of row `t` and the whole group-1 phase of row `t + 1`: walking
//! `t` downwards, one step reads the pair once, permutes its windows once, and adds them into
//! row `t` (its first phase, a partial sum kept in diff_src) and row `t + 1` (its second,
//! which completes it). The row walk it replaces read each pair twice, once per diff_src row.
//! Interior columns go in blocks of 16 elements (AVX2: 8): a block's columns lie in one
//! window of twice as many per group, the slots are the window's even and odd columns
//! (f32 on AVX-512: two permutes; on AVX2: two in-lane shuffles, the sums' lanes put back in
//! order when stored; bf16: a shift and a mask of each 32-bit lane). The edge columns (0 and `iw - 1`, lists of their own) go down the plane a
//! block of rows at a time from column copies; the
//! edge rows (0 and `ih - 1`) go one by one with their own lists. Every element sees exactly
//! the reference's products and sums in its order.

use super::super::aligned::AlignedBuf;
#[cfg(target_arch = "x86_64")]
use super::super::dtype::bf16_to_f32;
use super::super::dtype::DataType;
use super::super::reference::{Bufs, Tables};
use super::super::simd::{self, Isa};
use super::super::taps::BwdTaps;
use super::super::{Algorithm, Problem};
use super::Runs;

/// Lanes of a block.
const B: usize = 16;
/// diff_src rows a run takes at most (a plane's rows split into runs for the threads).
const CHUNK_ROWS: usize = 64;
/// Most diff_src elements a run's rows hold: fewer rows a run for very wide rows, so that a
/// run's scratch (a non-f32 diff_src's rows before conversion) stays small.
const CHUNK_ELEMS: usize = 1 << 20;
/// Bytes of diff_dst rows asked for ahead of the walk (it goes up the plane and jumps at each
/// plane, against the hardware prefetchers' grain).
const AHEAD_BYTES: usize = 32 << 10;
/// Longest list of an edge element (one axis, one group) the plan takes.
const MAX_EDGE: usize = 4;

/// One edge element's list in one group: `n` outputs with their weights.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Edge {
    pub n: usize,
    pub o: [usize; MAX_EDGE],
    pub w: [f32; MAX_EDGE],
}

/// One axis of the plane: the interior weights per group and slot, the edge elements'
/// lists per group.
#[derive(Clone, Debug)]
pub(crate) struct Axis {
    pub n_in: usize,
    /// `w[g][k]`: group `g`'s weight for its `k`-th output (group 0: `2i + 1 + k`, group 1:
    /// `2i - 1 + k`).
    pub w: [[f32; 2]; 2],
    /// Element 0 and element `n_in - 1`, per group.
    pub edges: [[Edge; 2]; 2],
}

#[derive(Clone, Debug)]
pub(crate) struct TwiceGeom {
    /// Elements of a block: 16 (AVX-512) or 8 (AVX2).
    pub lanes: usize,
    pub h: usize,
    pub w: usize,
    pub ah: Axis,
    pub aw: Axis,
    /// First elements of the interior blocks (from 1; the last one moved back to end at
    /// `iw - 1`) and the lanes of the last one not in the one before.
    pub starts: Vec<usize>,
    pub last_mask: u16,
    /// The diff_dst columns the edge columns' lists read (each once), which the pair walk
    /// copies out as it goes (see [`edge_columns`]), and per edge, group and slot the copy
    /// it reads.
    pub edge_cols: Vec<usize>,
    pub edge_slot: [[[usize; MAX_EDGE]; 2]; 2],
    /// diff_src rows a run takes (at most [`CHUNK_ROWS`], fewer for rows past
    /// [`CHUNK_ELEMS`] / [`CHUNK_ROWS`] elements).
    pub chunk_rows: usize,
    /// Runs per plane (row chunks of `chunk_rows`).
    pub chunks: usize,
    pub runs: usize,
    /// diff_dst and diff_src fit one core's L2: the walk asks for nothing ahead (see
    /// [`Ahead::new`]).
    pub in_l2: bool,
}

/// Rows at least this wide take this walk before `bwd_tiny`'s transposed planes (nchw f32 8x64,
/// 1 thread, A/B tiny -> here, on AVX-512 and at RESAMPLE_ISA=avx2 alike: 14x14 <- 28x28
/// 1.13x the time, 16x16 <- 32x32 0.93x (bf16 0.52x), 18x18 <- 36x36 0.66x, 24x24 <- 48x48
/// 0.71x-0.78x).
const BEFORE_TINY: usize = 16;

impl TwiceGeom {
    /// Whether the walk should be preferred to `bwd_tiny` (see [`BEFORE_TINY`]).
    pub fn before_tiny(&self) -> bool {
        self.aw.n_in >= BEFORE_TINY
    }

    /// diff_dst terms of one run (for the thread grain).
    pub fn run_cost(&self) -> usize {
        self.chunk_rows.min(self.ah.n_in) * self.aw.n_in * 16
    }
}

/// The interior pattern of `tab` (`n_in` elements from `n_out` outputs), or `None` when some
/// interior element's lists are not `2i + 1, 2i + 2` / `2i - 1, 2i` with the shared weights
/// or an edge list is longer than [`MAX_EDGE`].
fn axis_of(tab: &BwdTaps, n_in: usize, n_out: usize) -> Option<Axis> {
    if tab.groups != 2 || n_in < 1 || n_out != 2 * n_in {
        return None;
    }
    let mut w = [[f32::NAN; 2]; 2];
    for i in 1..n_in.saturating_sub(1) {
        for (g, c) in [(0usize, 1isize), (1, -1)] {
            let (o, wt) = tab.group(i, g);
            let first = 2 * i as isize + c;
            if o.len() != 2 || o[0] as isize != first || o[1] as isize != first + 1 {
                return None;
            }
            for k in 0..2 {
                if i == 1 {
                    w[g][k] = wt[k];
                } else if w[g][k].to_bits() != wt[k].to_bits() {
                    return None;
                }
            }
        }
    }
    let edge = |i: usize, g: usize| {
        let (o, wt) = tab.group(i, g);
        if o.len() > MAX_EDGE || o.iter().any(|&x| x as usize >= n_out) {
            return None;
        }
        let mut e = Edge {
            n: o.len(),
            ..Edge::default()
        };
        for k in 0..o.len() {
            e.o[k] = o[k] as usize;
            e.w[k] = wt[k];
        }
        Some(e)
    };
    let last = n_in - 1;
    Some(Axis {
        n_in,
        w,
        edges: [[edge(0, 0)?, edge(0, 1)?], [edge(last, 0)?, edge(last, 1)?]],
    })
}

/// The geometry, or `None` when the problem is not a 2x-by-2x linear backward over planes of
/// more columns than a block and two with f32 or bf16 diff_dst on AVX-512 or AVX2.
pub(crate) fn plan(p: &Problem, t: &Tables) -> Option<TwiceGeom> {
    let (s, d) = (&p.src, &p.dst);
    let rank = d.rank();
    // Rows too short for blocks of 16 take the AVX2 blocks of 8 on AVX-512 too.
    let iw = d.dims.get(rank.wrapping_sub(1)).copied().unwrap_or(0);
    let lanes = match simd::isa() {
        Isa::Avx512 if iw >= 18 => 16,
        Isa::Avx512 | Isa::Avx2 => 8,
        _ => return None,
    };
    if !super::plain_backward_planes(p)
        || p.alg == Algorithm::Nearest
        || !matches!(s.dtype, DataType::F32 | DataType::Bf16)
    {
        return None;
    }
    let (h, w) = (rank - 2, rank - 1);
    if t.resampled != [h, w]
        || s.strides[w] != 1
        || d.strides[w] != 1
        || s.strides[h] < s.dims[w]
        || d.strides[h] < d.dims[w]
        || d.dims[w] < lanes + 2
    {
        return None;
    }
    let ah = axis_of(t.bwd[h].as_ref()?, d.dims[h], s.dims[h])?;
    let aw = axis_of(t.bwd[w].as_ref()?, d.dims[w], s.dims[w])?;
    let mut starts: Vec<usize> = (1..iw - lanes).step_by(lanes).collect();
    let covered = starts.last().map_or(1, |&u| u + lanes);
    let mut last_mask = u16::MAX;
    if covered < iw - 1 {
        let u = iw - 1 - lanes;
        last_mask = u16::MAX << (covered - u);
        starts.push(u);
    }
    let mut edge_cols: Vec<usize> = Vec::new();
    let mut edge_slot = [[[0; MAX_EDGE]; 2]; 2];
    for (c, lists) in aw.edges.iter().enumerate() {
        for (gw, l) in lists.iter().enumerate() {
            for (j, &o) in l.o[..l.n].iter().enumerate() {
                edge_slot[c][gw][j] = edge_cols.iter().position(|&x| x == o).unwrap_or_else(|| {
                    edge_cols.push(o);
                    edge_cols.len() - 1
                });
            }
        }
    }
    let chunk_rows = (CHUNK_ELEMS / iw).clamp(1, CHUNK_ROWS);
    let chunks = d.dims[h].div_ceil(chunk_rows);
    let planes = (0..rank)
        .filter(|&a| a != h && a != w)
        .try_fold(1usize, |n, a| n.checked_mul(d.dims[a]))?;
    Some(TwiceGeom {
        lanes,
        h,
        w,
        ah,
        aw,
        starts,
        last_mask,
        edge_cols,
        edge_slot,
        chunk_rows,
        chunks,
        runs: planes.checked_mul(chunks)?,
        in_l2: s
            .span_bytes()
            .and_then(|a| a.checked_add(d.span_bytes()?))
            .is_some_and(|b| b <= super::super::cache::l2_per_core()),
    })
}

/// Runs `start..end` (row chunks of planes).
///
/// # Safety
/// Buffers must cover the layouts; run ranges of concurrent calls must be disjoint; the CPU
/// has the plan's ISA (AVX-512F or AVX2, which the block width says).
pub(crate) unsafe fn run(
    p: &Problem,
    t: &Tables,
    g: &TwiceGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller's.
    unsafe {
        let (s, d) = (&p.src, &p.dst);
        let (ih, iw) = (g.ah.n_in, g.aw.n_in);
        let (sp, dp) = (s.strides[g.h], d.strides[g.h]);
        let f32_dst = d.dtype == DataType::F32;
        // Streamed output: each row chunk is finished in scratch (the edge columns come
        // last) and streamed out whole; streaming row by row, or the blocks as they
        // complete, would leave partial lines for plain stores.
        let nt = crate::core::streaming::now();
        let direct = f32_dst && !nt;
        let cr = g.chunk_rows;
        let mut scratch = AlignedBuf::<f32>::zeroed(if direct { 0 } else { cr * iw });
        let mut cols = AlignedBuf::<f32>::zeroed(cols_len(cr));
        let oh = s.dims[g.h];
        // Two rows of partial sums, whole blocks (see `step`).
        let mut part = AlignedBuf::<f32>::zeroed(2 * g.starts.len() * g.lanes);
        let es = s.dtype.size();
        let reach = (!g.in_l2).then(super::super::streaming::beyond);
        let mut ahead = Ahead::new(sp * es, es * s.dims[g.w], reach);
        let mut runs = Runs::new(
            p,
            t,
            &[(g.h, g.chunks, cr * d.strides[g.h], 0), (g.w, 1, 0, 0)],
            start,
        );
        let mut runs_left = end - start;
        for _ in start..end {
            let chunk = runs.pos[g.h];
            let (doff, sbase) = (runs.doff, runs.sbase);
            runs.advance();
            let r0 = chunk * cr;
            let r1 = (r0 + cr).min(ih);
            let src = b.src.add(sbase * es);
            let stream = |src: *const u8, r0: usize, r1: usize| {
                let (lo, hi) = run_rows(ih, oh, r0, r1);
                (src, lo, hi)
            };
            let next = (runs_left > 1).then(|| {
                let n0 = runs.pos[g.h] * cr;
                stream(b.src.wrapping_add(runs.sbase * es), n0, (n0 + cr).min(ih))
            });
            runs_left -= 1;
            ahead.enter(stream(src, r0, r1), next);
            // Row `r0` of the chunk at `out`, rows `pitch` apart.
            let (out, pitch) = if direct {
                ((b.dst as *mut f32).add(doff), dp)
            } else {
                (scratch.as_mut_ptr(), iw)
            };
            let plane = Plane {
                src,
                sp,
                out,
                r0,
                dp: pitch,
            };
            let bufs = Scratch {
                cols: cols.as_mut_ptr(),
                part: part.as_mut_ptr(),
            };
            match (g.lanes == 16, es == 2) {
                (true, true) => chunk_avx512::<true>(g, &plane, (r0, r1), bufs, &mut ahead),
                (true, false) => chunk_avx512::<false>(g, &plane, (r0, r1), bufs, &mut ahead),
                (false, true) => chunk_avx2::<true>(g, &plane, (r0, r1), bufs, &mut ahead),
                (false, false) => chunk_avx2::<false>(g, &plane, (r0, r1), bufs, &mut ahead),
            }
            if !direct {
                let sz = d.dtype.size();
                // Dense rows go out as one stretch.
                let (rows, n) = match dp == iw {
                    true => (1, (r1 - r0) * iw),
                    false => (r1 - r0, iw),
                };
                for r in 0..rows {
                    let (vals, to) = (
                        &scratch[r * n..(r + 1) * n],
                        b.dst.add((doff + r * dp) * sz),
                    );
                    match nt {
                        true => simd::store_contiguous_nt(d.dtype, p.numerics, vals, to),
                        false => simd::store_contiguous(d.dtype, p.numerics, vals, to),
                    }
                }
            }
        }
        if nt {
            simd::store_fence();
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (p, t, g, b, start, end);
        unreachable!("bwd_twice is planned for AVX-512 only");
    }
}

/// One plane: diff_dst rows `sp` apart from `src`; the run's diff_src rows `dp` apart from
/// `out` (row `r0`).
#[cfg(target_arch = "x86_64")]
struct Plane {
    src: *const u8,
    sp: usize,
    out: *mut f32,
    r0: usize,
    dp: usize,
}

#[cfg(target_arch = "x86_64")]
impl Plane {
    /// diff_dst element `e` of the plane (bf16 when `BF`, else f32).
    #[inline(always)]
    unsafe fn elem<const BF: bool>(&self, e: usize) -> *const u8 {
        // SAFETY: the caller's: `e` lies in the plane.
        unsafe { self.src.add(e * if BF { 2 } else { 4 }) }
    }

    /// diff_dst element `e` as f32.
    #[inline(always)]
    unsafe fn get<const BF: bool>(&self, e: usize) -> f32 {
        // SAFETY: the caller's: `e` lies in the plane.
        unsafe {
            let p = self.elem::<BF>(e);
            if BF {
                bf16_to_f32((p as *const u16).read_unaligned())
            } else {
                (p as *const f32).read_unaligned()
            }
        }
    }

    /// diff_src row `r` (one of the run's).
    #[inline(always)]
    unsafe fn row(&self, r: usize) -> *mut f32 {
        // SAFETY: the caller's: `r` is one of the run's rows.
        unsafe { self.out.add((r - self.r0) * self.dp) }
    }
}

/// Column copies for `rows` diff_src rows: per copied column, its entries for the rows'
/// `2 rows + 2` diff_dst rows, even and odd rows apart (a vertical block's lanes read every
/// other row), each half with a block's reach of padding.
fn cols_len(rows: usize) -> usize {
    4 * MAX_EDGE * 2 * half_pitch(rows)
}

fn half_pitch(rows: usize) -> usize {
    rows + 1 + B + 1
}

/// Rows `r0..r1` of one plane, bottom up: row `ih - 1`, the interior pairs, row 0 (the order
/// [`Ahead`] asks for their diff_dst rows in), then the interior rows' edge columns.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn chunk<L: Vector, const BF: bool>(
    g: &TwiceGeom,
    pl: &Plane,
    r: (usize, usize),
    bufs: Scratch,
    ahead: &mut Ahead,
) {
    // SAFETY: the caller's: the plane's rows and columns lie in the buffers.
    unsafe {
        let (r0, r1) = r;
        let ih = g.ah.n_in;
        // Interior rows of the chunk.
        let (a, z) = (r0.max(1), r1.min(ih.saturating_sub(1)));
        if ih > 1 && r1 == ih {
            ahead.ask(2);
            edge_row::<L, BF>(g, pl, ih - 1);
        }
        if a < z {
            pairs::<L, BF>(g, pl, a, z, ahead, bufs);
        }
        if r0 == 0 {
            ahead.ask(2);
            edge_row::<L, BF>(g, pl, 0);
        }
        if a < z {
            edge_columns::<L, BF>(g, pl, a, z, bufs.cols);
        }
    }
}

/// [`chunk`] on AVX-512.
///
/// # Safety
/// As [`chunk`]; the CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn chunk_avx512<const BF: bool>(
    g: &TwiceGeom,
    pl: &Plane,
    r: (usize, usize),
    bufs: Scratch,
    ahead: &mut Ahead,
) {
    // SAFETY: the caller's.
    unsafe { chunk::<Avx512, BF>(g, pl, r, bufs, ahead) }
}

/// [`chunk`] on AVX2.
///
/// # Safety
/// As [`chunk`]; the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn chunk_avx2<const BF: bool>(
    g: &TwiceGeom,
    pl: &Plane,
    r: (usize, usize),
    bufs: Scratch,
    ahead: &mut Ahead,
) {
    // SAFETY: the caller's.
    unsafe { chunk::<Avx2, BF>(g, pl, r, bufs, ahead) }
}

/// A run's scratch: the edge columns' copies ([`cols_len`]) and two rows of partial sums.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Scratch {
    cols: *mut f32,
    part: *mut f32,
}

/// diff_dst rows a run reads (`lo..=hi`, read from the top down), from its first row `r0`
/// and end `r1`.
fn run_rows(ih: usize, oh: usize, r0: usize, r1: usize) -> (usize, usize) {
    let lo = (2 * r0).saturating_sub(1);
    let hi = if r1 == ih { oh - 1 } else { 2 * r1 };
    (lo, hi)
}

/// Software prefetch down the diff_dst rows of a run, on into the next run's.
#[cfg(target_arch = "x86_64")]
struct Ahead {
    sp: usize,
    row_bytes: usize,
    /// Rows asked for ahead of the walk.
    dist: usize,
    /// The run the cursor is in (plane, rows `lo..=hi`), its next row to ask for (`None`:
    /// done), and the next run.
    cur: (*const u8, usize, usize),
    row: Option<usize>,
    next: Option<(*const u8, usize, usize)>,
    /// Into L2 only (see [`Ahead::new`]).
    l2: bool,
}

#[cfg(target_arch = "x86_64")]
impl Ahead {
    /// `reach`: `None` asks for nothing, `Some(l2)` into L2 only or into L1 as well.
    ///
    /// Nothing within one core's L2: the requests cost more than they save (1 thread, Zen 4,
    /// side by side, nchw f32 1x16 32x32 <- 64x64 0.85x the time without, AVX2 0.87x); from
    /// L3 they still pay on AVX2 (1x64 56x56 <- 112x112 1.07-1.12x without). Into L2 only
    /// from memory: into L1 too, the requests in flight held up the walk there (nchw f32
    /// 8x64 56x56 <- 112x112 3.26-3.44 -> 2.42-2.89 ms, 8x256 32x32 <- 64x64 4.67-4.99 ->
    /// 3.84-4.26; 2 threads 2.10 -> 1.54, 2.59 -> 2.27).
    fn new(sp: usize, row_bytes: usize, reach: Option<bool>) -> Self {
        Ahead {
            l2: reach == Some(true),
            sp,
            row_bytes,
            // Rows past a quarter of the distance are left to the hardware prefetchers
            // (asking for whole rows that far ahead would overrun the caches).
            dist: if reach.is_none() || row_bytes > AHEAD_BYTES / 4 {
                0
            } else {
                (AHEAD_BYTES / row_bytes.max(1)).clamp(4, 128)
            },
            cur: (std::ptr::null(), 0, 0),
            row: None,
            next: None,
        }
    }

    /// A run starts (`this`), `next` after it: the cursor moves to it unless already in it.
    fn enter(&mut self, this: (*const u8, usize, usize), next: Option<(*const u8, usize, usize)>) {
        if self.cur != this {
            self.cur = this;
            self.row = Some(this.2);
            self.next = next;
            self.ask(self.dist);
        } else {
            self.next = next;
        }
    }

    /// Asks for the next `n` rows of the stream.
    #[inline(always)]
    fn ask(&mut self, n: usize) {
        if self.dist == 0 {
            return;
        }
        for _ in 0..n {
            let Some(r) = self.row else {
                let Some(nx) = self.next.take() else {
                    return;
                };
                self.cur = nx;
                self.row = Some(nx.2);
                continue;
            };
            let p = self.cur.0.wrapping_add(r * self.sp);
            simd::prefetch_span_in(self.l2, p, self.row_bytes);
            self.row = (r > self.cur.1).then(|| r - 1);
        }
    }
}

/// The vector operations the walk needs, per ISA (inlined into its `target_feature` entry).
#[cfg(target_arch = "x86_64")]
trait Vector {
    type V: Copy;
    /// Lanes.
    const N: usize;
    unsafe fn zero() -> Self::V;
    unsafe fn set1(x: f32) -> Self::V;
    unsafe fn loadu(p: *const f32) -> Self::V;
    /// Aligned load and store (the scratch rows).
    unsafe fn load(p: *const f32) -> Self::V;
    unsafe fn store(p: *mut f32, v: Self::V);
    unsafe fn storeu(p: *mut f32, v: Self::V);
    unsafe fn add(a: Self::V, b: Self::V) -> Self::V;
    unsafe fn mul(a: Self::V, b: Self::V) -> Self::V;
    /// The even and the odd columns of the `2N` bf16 (`BF`) or f32 at `p`, lanes in the
    /// split order.
    unsafe fn split<const BF: bool>(p: *const u8) -> (Self::V, Self::V);
    /// `v` (lanes in the split order of `BF`) to `p` in element order, the lanes of `mask`
    /// only.
    unsafe fn store_split<const BF: bool>(p: *mut f32, v: Self::V, mask: u16);
}

#[cfg(target_arch = "x86_64")]
struct Avx512;

#[cfg(target_arch = "x86_64")]
impl Vector for Avx512 {
    type V = std::arch::x86_64::__m512;
    const N: usize = 16;
    #[inline(always)]
    unsafe fn zero() -> Self::V {
        // SAFETY: AVX-512F (the caller's).
        unsafe { std::arch::x86_64::_mm512_setzero_ps() }
    }
    #[inline(always)]
    unsafe fn set1(x: f32) -> Self::V {
        // SAFETY: AVX-512F.
        unsafe { std::arch::x86_64::_mm512_set1_ps(x) }
    }
    #[inline(always)]
    unsafe fn loadu(p: *const f32) -> Self::V {
        // SAFETY: AVX-512F; 16 values at `p` (the caller's).
        unsafe { std::arch::x86_64::_mm512_loadu_ps(p) }
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self::V {
        // SAFETY: AVX-512F; 16 aligned values at `p`.
        unsafe { std::arch::x86_64::_mm512_load_ps(p) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut f32, v: Self::V) {
        // SAFETY: AVX-512F; room for 16 aligned values at `p`.
        unsafe { std::arch::x86_64::_mm512_store_ps(p, v) }
    }
    #[inline(always)]
    unsafe fn storeu(p: *mut f32, v: Self::V) {
        // SAFETY: AVX-512F; room for 16 values at `p`.
        unsafe { std::arch::x86_64::_mm512_storeu_ps(p, v) }
    }
    #[inline(always)]
    unsafe fn add(a: Self::V, b: Self::V) -> Self::V {
        // SAFETY: AVX-512F.
        unsafe { std::arch::x86_64::_mm512_add_ps(a, b) }
    }
    #[inline(always)]
    unsafe fn mul(a: Self::V, b: Self::V) -> Self::V {
        // SAFETY: AVX-512F.
        unsafe { std::arch::x86_64::_mm512_mul_ps(a, b) }
    }
    /// bf16: a pair of columns per 32-bit lane, the even one low (two bit operations).
    #[inline(always)]
    unsafe fn split<const BF: bool>(p: *const u8) -> (Self::V, Self::V) {
        use std::arch::x86_64::*;
        // SAFETY: AVX-512F; 32 values at `p`.
        unsafe {
            if BF {
                let v = _mm512_loadu_si512(p as *const _);
                let od = _mm512_and_si512(v, _mm512_set1_epi32(0xFFFF_0000u32 as i32));
                return (
                    _mm512_castsi512_ps(_mm512_slli_epi32::<16>(v)),
                    _mm512_castsi512_ps(od),
                );
            }
            let p = p as *const f32;
            let ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
            let od = _mm512_add_epi32(ev, _mm512_set1_epi32(1));
            let (lo, hi) = (_mm512_loadu_ps(p), _mm512_loadu_ps(p.add(16)));
            (
                _mm512_permutex2var_ps(lo, ev, hi),
                _mm512_permutex2var_ps(lo, od, hi),
            )
        }
    }
    #[inline(always)]
    unsafe fn store_split<const BF: bool>(p: *mut f32, v: Self::V, mask: u16) {
        // SAFETY: AVX-512F; room at `p` for the lanes of `mask`.
        unsafe { std::arch::x86_64::_mm512_mask_storeu_ps(p, mask, v) }
    }
}

#[cfg(target_arch = "x86_64")]
struct Avx2;

#[cfg(target_arch = "x86_64")]
impl Vector for Avx2 {
    type V = std::arch::x86_64::__m256;
    const N: usize = 8;
    #[inline(always)]
    unsafe fn zero() -> Self::V {
        // SAFETY: AVX (the caller's).
        unsafe { std::arch::x86_64::_mm256_setzero_ps() }
    }
    #[inline(always)]
    unsafe fn set1(x: f32) -> Self::V {
        // SAFETY: AVX.
        unsafe { std::arch::x86_64::_mm256_set1_ps(x) }
    }
    #[inline(always)]
    unsafe fn loadu(p: *const f32) -> Self::V {
        // SAFETY: AVX; 8 values at `p` (the caller's).
        unsafe { std::arch::x86_64::_mm256_loadu_ps(p) }
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self::V {
        // SAFETY: AVX; 8 aligned values at `p`.
        unsafe { std::arch::x86_64::_mm256_load_ps(p) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut f32, v: Self::V) {
        // SAFETY: AVX; room for 8 aligned values at `p`.
        unsafe { std::arch::x86_64::_mm256_store_ps(p, v) }
    }
    #[inline(always)]
    unsafe fn storeu(p: *mut f32, v: Self::V) {
        // SAFETY: AVX; room for 8 values at `p`.
        unsafe { std::arch::x86_64::_mm256_storeu_ps(p, v) }
    }
    #[inline(always)]
    unsafe fn add(a: Self::V, b: Self::V) -> Self::V {
        // SAFETY: AVX.
        unsafe { std::arch::x86_64::_mm256_add_ps(a, b) }
    }
    #[inline(always)]
    unsafe fn mul(a: Self::V, b: Self::V) -> Self::V {
        // SAFETY: AVX.
        unsafe { std::arch::x86_64::_mm256_mul_ps(a, b) }
    }
    /// f32: in-lane shuffles, no permute: the lanes hold elements 0 1 4 5 2 3 6 7. bf16: a
    /// pair of columns per 32-bit lane (lanes in element order).
    #[inline(always)]
    unsafe fn split<const BF: bool>(p: *const u8) -> (Self::V, Self::V) {
        use std::arch::x86_64::*;
        // SAFETY: AVX2; 16 values at `p`.
        unsafe {
            if BF {
                let v = _mm256_loadu_si256(p as *const __m256i);
                let od = _mm256_and_si256(v, _mm256_set1_epi32(0xFFFF_0000u32 as i32));
                return (
                    _mm256_castsi256_ps(_mm256_slli_epi32::<16>(v)),
                    _mm256_castsi256_ps(od),
                );
            }
            let p = p as *const f32;
            let (lo, hi) = (_mm256_loadu_ps(p), _mm256_loadu_ps(p.add(8)));
            (
                _mm256_shuffle_ps::<0x88>(lo, hi),
                _mm256_shuffle_ps::<0xDD>(lo, hi),
            )
        }
    }
    #[inline(always)]
    unsafe fn store_split<const BF: bool>(p: *mut f32, v: Self::V, mask: u16) {
        use std::arch::x86_64::*;
        // SAFETY: AVX2; room at `p` for the lanes of `mask`.
        unsafe {
            // f32: lane pairs 1 and 2 swap back (0 1 4 5 2 3 6 7 -> 0..7).
            let v = if BF {
                v
            } else {
                _mm256_castpd_ps(_mm256_permute4x64_pd::<0xD8>(_mm256_castps_pd(v)))
            };
            if mask & 0xFF == 0xFF {
                _mm256_storeu_ps(p, v);
            } else {
                let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
                let m = _mm256_set1_epi32(i32::from(mask));
                let m = _mm256_cmpeq_epi32(_mm256_and_si256(m, bits), bits);
                _mm256_maskstore_ps(p, m, v);
            }
        }
    }
}

/// Interior rows `a..z` (`1 <= a < z <= ih - 1`), interior columns: diff_dst row pairs `2t + 1,
/// 2t + 2` from `t = z - 1` down to `a - 1`, each the first phase of row `t` and the second of
/// row `t + 1` (where those lie in `a..z`); the edge columns' entries copied out on the way.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn pairs<L: Vector, const BF: bool>(
    g: &TwiceGeom,
    pl: &Plane,
    a: usize,
    z: usize,
    ahead: &mut Ahead,
    bufs: Scratch,
) {
    // SAFETY: the caller's.
    unsafe {
        let nb = g.starts.len();
        let hp = half_pitch(z - a);
        let mut t = z - 1;
        loop {
            let (beg, fin) = (t >= a, t + 1 < z);
            ahead.ask(2);
            // The edge columns' entries of this pair, while its rows are in L1.
            for r in 2 * t + 1..2 * t + 3 {
                let x = r + 1 - 2 * a;
                let at = bufs.cols.add((x % 2) * hp + x / 2);
                for (k, &ow) in g.edge_cols.iter().enumerate() {
                    *at.add(2 * k * hp) = pl.get::<BF>(r * pl.sp + ow);
                }
            }
            let mut q = 0;
            while q < nb {
                let k = (nb - q).min(4);
                macro_rules! go {
                    ($k:literal) => {
                        match (beg, fin) {
                            (true, true) => step::<L, BF, $k, true, true>(g, pl, t, q, bufs.part),
                            (true, false) => step::<L, BF, $k, true, false>(g, pl, t, q, bufs.part),
                            _ => step::<L, BF, $k, false, true>(g, pl, t, q, bufs.part),
                        }
                    };
                }
                match k {
                    4 => go!(4),
                    3 => go!(3),
                    2 => go!(2),
                    _ => go!(1),
                }
                q += k;
            }
            if t + 1 == a {
                break;
            }
            t -= 1;
        }
    }
}

/// Blocks `q..q + K` of pair `t`: `BEG` starts row `t` (group-0 phase, a partial sum kept),
/// `FIN` completes row `t + 1` (group-1 phase onto its partial sum).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn step<L: Vector, const BF: bool, const K: usize, const BEG: bool, const FIN: bool>(
    g: &TwiceGeom,
    pl: &Plane,
    t: usize,
    q: usize,
    part: *mut f32,
) {
    // SAFETY: the caller's: every window lies in its diff_dst row (the plan's block starts),
    // the stores in row `t + 1` and the scratch rows.
    unsafe {
        let (n, nb) = (L::N, g.starts.len());
        let u: [usize; K] = std::array::from_fn(|k| *g.starts.get_unchecked(q + k));
        // Partial sums go through `part` in whole vectors: a masked store does not forward
        // to the next step's load.
        let (pt, pu) = (part.add((t % 2) * nb * n), part.add(((t + 1) % 2) * nb * n));
        let mut acc_t = [L::zero(); K];
        let mut acc_u = [L::zero(); K];
        if FIN {
            for k in 0..K {
                acc_u[k] = L::load(pu.add((q + k) * n));
            }
        }
        let (wt, wu) = (g.ah.w[0], g.ah.w[1]);
        for gw in 0..2 {
            let (w0, w1) = (L::set1(g.aw.w[gw][0]), L::set1(g.aw.w[gw][1]));
            for r in 0..2 {
                // Group 0 of `w` reads columns from `2u + 1`, group 1 from `2u - 1`.
                let row = (2 * t + 1 + r) * pl.sp + 1;
                let (ht, hu) = (L::set1(wt[r]), L::set1(wu[r]));
                for k in 0..K {
                    let (x0, x1) = L::split::<BF>(pl.elem::<BF>(row + 2 * u[k] - 2 * gw));
                    if BEG {
                        acc_t[k] = L::add(acc_t[k], L::mul(L::mul(x0, ht), w0));
                        acc_t[k] = L::add(acc_t[k], L::mul(L::mul(x1, ht), w1));
                    }
                    if FIN {
                        acc_u[k] = L::add(acc_u[k], L::mul(L::mul(x0, hu), w0));
                        acc_u[k] = L::add(acc_u[k], L::mul(L::mul(x1, hu), w1));
                    }
                }
            }
        }
        let ou = if FIN {
            pl.row(t + 1)
        } else {
            std::ptr::null_mut()
        };
        for k in 0..K {
            if BEG {
                L::store(pt.add((q + k) * n), acc_t[k]);
            }
            if FIN {
                let mask = if q + k + 1 == nb {
                    g.last_mask
                } else {
                    u16::MAX
                };
                L::store_split::<BF>(ou.add(u[k]), acc_u[k], mask);
            }
        }
    }
}

/// Edge row `e` (0 or `ih - 1`) with its own `h` lists: the interior blocks four at a time,
/// its two edge elements one by one.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn edge_row<L: Vector, const BF: bool>(g: &TwiceGeom, pl: &Plane, e: usize) {
    // SAFETY: the caller's: the lists' rows and columns lie in the plane.
    unsafe {
        let hl = &g.ah.edges[usize::from(e != 0)];
        let out = pl.row(e);
        let nb = g.starts.len();
        for q in (0..nb).step_by(4) {
            let k_n = (nb - q).min(4);
            let mut acc = [L::zero(); 4];
            for l in hl {
                for gw in 0..2 {
                    let (w0, w1) = (L::set1(g.aw.w[gw][0]), L::set1(g.aw.w[gw][1]));
                    for (&oh, &wh) in l.o[..l.n].iter().zip(&l.w[..l.n]) {
                        let row = oh * pl.sp + 1;
                        let hv = L::set1(wh);
                        for (k, acc) in acc.iter_mut().enumerate().take(k_n) {
                            let e = row + 2 * g.starts[q + k] - 2 * gw;
                            let (x0, x1) = L::split::<BF>(pl.elem::<BF>(e));
                            *acc = L::add(*acc, L::mul(L::mul(x0, hv), w0));
                            *acc = L::add(*acc, L::mul(L::mul(x1, hv), w1));
                        }
                    }
                }
            }
            for (k, acc) in acc.iter().enumerate().take(k_n) {
                let m = if q + k + 1 == nb {
                    g.last_mask
                } else {
                    u16::MAX
                };
                L::store_split::<BF>(out.add(g.starts[q + k]), *acc, m);
            }
        }
        let iw = g.aw.n_in;
        for (c, col) in [0, iw - 1].into_iter().enumerate() {
            let wl = &g.aw.edges[c];
            let mut acc = 0f32;
            for l in hl {
                for lw in wl {
                    for (&oh, &wh) in l.o[..l.n].iter().zip(&l.w[..l.n]) {
                        for (&ow, &ww) in lw.o[..lw.n].iter().zip(&lw.w[..lw.n]) {
                            acc += (pl.get::<BF>(oh * pl.sp + ow) * wh) * ww;
                        }
                    }
                }
            }
            *out.add(col) = acc;
        }
    }
}

/// The edge columns (0 and `iw - 1`) of interior rows `a..z`, `L::N` rows a block, from the
/// copies [`pairs`] made: lane `l` of a block (row `v + l`) reads its diff_dst rows as every
/// other copy, one parity half of the copies.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn edge_columns<L: Vector, const BF: bool>(
    g: &TwiceGeom,
    pl: &Plane,
    a: usize,
    z: usize,
    cols: *mut f32,
) {
    // SAFETY: the caller's: `cols` holds `cols_len(z - a)` values, of which `pairs` wrote
    // those for rows `2a - 1 ..= 2z`.
    unsafe {
        let hp = half_pitch(z - a);
        let iw = g.aw.n_in;
        for (c, col) in [0, iw - 1].into_iter().enumerate() {
            let wl = &g.aw.edges[c];
            let mut v = a;
            while v < z {
                let mut acc = L::zero();
                // Row `v + l`'s group-0 rows are `2(v + l) + 1 + r`, group-1 rows
                // `2(v + l) - 1 + r`: copies `2(v - a) + 2l + 2 + r` and `2(v - a) + 2l + r`,
                // all of one parity.
                for (gh, base) in [(0usize, 2usize), (1, 0)] {
                    for (gw, lw) in wl.iter().enumerate() {
                        for r in 0..2 {
                            let hv = L::set1(g.ah.w[gh][r]);
                            let x = (v - a) + (base + r) / 2;
                            let half = cols.add(((base + r) % 2) * hp + x);
                            for (j, &ww) in lw.w[..lw.n].iter().enumerate() {
                                let k = g.edge_slot[c][gw][j];
                                let x = L::loadu(half.add(2 * k * hp));
                                acc = L::add(acc, L::mul(L::mul(x, hv), L::set1(ww)));
                            }
                        }
                    }
                }
                let mut lanes = [0f32; 16];
                L::storeu(lanes.as_mut_ptr(), acc);
                for (l, &x) in lanes.iter().enumerate().take((z - v).min(L::N)) {
                    *pl.row(v + l).add(col) = x;
                }
                v += L::N;
            }
        }
    }
}
