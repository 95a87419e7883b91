//! Small planes (nchw/ncw linear, a few thousand outputs per plane): the rows kernel pays
//! a run setup and two dispatched calls per output row, which dominates when rows are a few
//! elements long. Here the whole plane is one call, row by row: the H blend of the row's two
//! source rows (`v(h0)*wh0 + v(h1)*wh1`, the reference's inner level), then the W lerp of
//! its outputs (`b(w0)*ww0 + b(w1)*ww1`) through per-column tables built at plan time. Same
//! products and sums in the same order as the reference.

use super::read_ahead::ReadAhead;
use super::{simd, PixelTaps, Runs};
use crate::core::aligned::AlignedBuf;
use crate::core::dtype::DataType;
use crate::core::reference::{Bufs, Tables};
use crate::core::{Algorithm, Direction, Problem};

/// Largest plane buffer and output plane (elements) this path takes: the rows kernel's
/// per-row setup costs more than a plane's buffers up to here (1 thread AVX-512, us, 4096
/// -> 16384: nchw f32 4x32 100x20->200x40 992 -> 125, u8 2x16 60x30->120x60 270 -> 49,
/// bf16 2x8 40x12->200x24 139 -> 12.5; oneDNN 1524, 606, 130).
const MAX_PLANE: usize = 16384;

/// Most source elements the rows of an AVX2 plane by windows of three or four vectors read.
const LARGER_PLANE: usize = 1 << 16;

/// Largest source span (elements) converted per plane for non-f32 sources.
const MAX_SPAN: usize = 1 << 14;

/// Widest output row this path takes: its per-element gathers beat the rows kernel only
/// while rows are short (nchw 8x256 32x32->64x64: 11.3 ms here, 4.7 ms by rows; 1x16
/// 4x4->8x8: 1.6 us here, 4 us by rows).
const MAX_ROW: usize = 16;

/// Widest output row the AVX2 window kernel takes with windows of three or four vectors.
const WINDOW_ROW_WIDE: usize = 4096;

/// Widest output row the window kernel takes (see [`Windows`]), but for the AVX2 windows of
/// three or four vectors.
const WINDOW_ROW: usize = 128;

/// Widest blended row (columns) the AVX-512 permute planes take: four vectors (see
/// [`plane_avx512_permute`]).
const PERMUTE_COLS: usize = 64;

#[derive(Clone, Debug)]
pub(crate) struct PlaneGeom {
    /// The row axis walked inside a plane; `w` itself for planes of one row.
    pub h: usize,
    pub w: usize,
    /// Planes (product of the other axes' sizes).
    pub runs: usize,
    /// H level per output row: the two source rows' offsets from the plane's base (at the
    /// first column read) and their weights; the blended row is `iw` columns long.
    rows: Vec<(u32, u32, f32, f32)>,
    /// H is resampled (else an identity H: each output row is its source row as is).
    blend_h: bool,
    iw: usize,
    ow: usize,
    /// W level per output column: output `o < ow` of a row = b[c[o]] * p[o] + b[e[o]] * q[o]
    /// over the blended row `b`; zero-padded to at least 64 entries (four AVX-512 vectors).
    c: Vec<u32>,
    e: Vec<u32>,
    p: Vec<f32>,
    q: Vec<f32>,
    /// Source elements a plane reads from its base (converted to f32 first when the source
    /// is not f32).
    span: usize,
    /// The resampled axis outside H (ncdhw's D), blended over the span per plane.
    depth: Option<usize>,
    /// Planes small enough to compute several at a time as one flat row (with a depth
    /// level, from their blended spans side by side: nchw u8 8x512 1x1x2->2x2x1 204 -> 128
    /// us, bf16 1x512 1x3x1->2x1x2 23.9 -> 16.4; oneDNN 127, 13.3).
    group: Option<Group>,
    /// The AVX2 window tables of a row, where each output vector's taps fit one (see
    /// [`Windows`]; only the x86-64 kernel reads them).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    windows: Option<Windows>,
}

/// A row's outputs in vectors of eight, each from one window of `8 * nw` blended columns:
/// the window is blended straight from the two source rows and permuted into the taps
/// (`vpermps`, and blends by the index's bits 3 and 4 over windows of two to four
/// vectors), instead of the blended row stored and gathered per element (nchw f32 8x4
/// 27x30->54x15 at AVX2: 26.9 -> 10.7 us, oneDNN 18.9; 1x16 6x14->12x7 2.0 -> 1.1 us,
/// oneDNN 1.4). Blending per window repeats columns shared by neighbouring vectors; the
/// values are the same, each blended column the reference's `s[h0+c]*u + s[h1+c]*v`.
#[derive(Clone, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
struct Windows {
    /// Vectors a window spans: 1 to 4.
    nw: usize,
    /// The row is narrower than a window: loads are masked to its `iw` columns.
    masked: bool,
    /// One window at column 0 for every vector, blended once a row (rows of at most 32
    /// columns; always where the row is narrower than a window).
    shared: bool,
    vecs: Vec<WinVec>,
}

/// One output vector of a row: outputs `at..at + 8` (the last vector ends the row,
/// overlapping the one before; rows under eight outputs take lanes `0..ow` only) from the
/// window at column `ws` of the blended row; `c`, `e` from `ws`, and weights `p`, `q`
/// (zero in unused lanes).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
struct WinVec {
    c: [i32; 8],
    e: [i32; 8],
    p: [f32; 8],
    q: [f32; 8],
    ws: usize,
    at: usize,
}

/// The window tables of rows of `ow` outputs from `iw` blended columns (tap columns of
/// `fw` from `lo`), when every output vector's taps fit a window of at most 32 columns.
fn windows(fw: &crate::core::taps::FwdTaps, lo: usize, iw: usize, ow: usize) -> Option<Windows> {
    if ow == 0 {
        return None;
    }
    let starts: Vec<usize> = match ow {
        0..8 => vec![0],
        _ => (0..ow.div_ceil(8)).map(|k| (8 * k).min(ow - 8)).collect(),
    };
    let col = |o: usize, k: usize| fw.taps(o).0[k] as usize - lo;
    let range = |at: usize| {
        let outs = at..at + 8.min(ow - at);
        let a = outs
            .clone()
            .map(|o| col(o, 0).min(col(o, 1)))
            .min()
            .unwrap_or(0);
        let b = outs.map(|o| col(o, 0).max(col(o, 1))).max().unwrap_or(0);
        (a, b)
    };
    let need = starts
        .iter()
        .map(|&at| range(at))
        .map(|(a, b)| b + 1 - a)
        .max()?;
    let class = |cols: usize| match cols {
        0..=8 => Some(1),
        9..=16 => Some(2),
        17..=24 => Some(3),
        25..=32 => Some(4),
        _ => None,
    };
    let mut nw = class(need)?;
    // A row of at most 32 columns may be blended once, as one window all vectors permute
    // from: always where it fits their own windows' width, else where that costs fewer
    // operations (per window vector a blend of 3; per tap `nw` permutes and `nw - 1`
    // blends, two taps a vector).
    let n = starts.len();
    let shared = match class(iw) {
        Some(k) if k <= nw => true,
        Some(k) => 3 * k + 2 * n * (2 * k - 1) < n * (3 * nw + 2 * (2 * nw - 1)),
        None => false,
    };
    if shared {
        nw = class(iw)?;
    }
    let width = 8 * nw;
    let masked = iw < width;
    let vecs = starts
        .iter()
        .map(|&at| {
            let ws = if shared {
                0
            } else {
                range(at).0.min(iw - width)
            };
            let mut v = WinVec {
                c: [0; 8],
                e: [0; 8],
                p: [0.0; 8],
                q: [0.0; 8],
                ws,
                at,
            };
            for j in 0..8.min(ow - at) {
                let ww = fw.taps(at + j).1;
                v.c[j] = (col(at + j, 0) - ws) as i32;
                v.e[j] = (col(at + j, 1) - ws) as i32;
                v.p[j] = ww[0];
                v.q[j] = ww[1];
            }
            v
        })
        .collect();
    Some(Windows {
        nw,
        masked,
        shared,
        vecs,
    })
}

/// Consecutive planes (`step` source elements apart, back to back in dst) computed as one
/// flat row of `planes * outputs` values, each from its own four taps: per-plane work on
/// planes of a few elements was all loop overhead (nchw f32 4x512 1x1->2x2: 15 ns a plane,
/// PyTorch 5.6). Per output `k` of a group, taps `idx[0..4][k]` (rows h0/h1 at columns
/// c/e, from the group's base) and weights `wt[0..4][k]` (u, v, p, q) give the plane
/// walk's `(s[h0+c]*u + s[h1+c]*v)*p + (s[h0+e]*u + s[h1+e]*v)*q` (without an H level
/// `s[h0+c]*p + s[h0+e]*q`): the same operations in the same order.
#[derive(Clone, Debug)]
struct Group {
    planes: usize,
    step: usize,
    /// Tables zero-padded to [`GROUP_OUT`] entries.
    idx: [Vec<u32>; 4],
    wt: [Vec<f32>; 4],
}

/// A group's source window and outputs: two and four AVX-512 vectors.
const GROUP_SPAN: usize = 32;
const GROUP_OUT: usize = 64;

impl PlaneGeom {
    /// The end of a row's source rows (`a0`, `a1`: its H taps) from a plane at `src`, in
    /// elements of `esz` bytes (the row reads no further).
    #[inline(always)]
    fn row_end(&self, src: *const u8, a0: u32, a1: u32, esz: usize) -> *const u8 {
        let last = if self.blend_h { a0.max(a1) } else { a0 };
        src.wrapping_add((last as usize + self.iw) * esz)
    }

    pub fn outputs(&self) -> usize {
        self.rows.len() * self.ow
    }

    /// A plane's work in elements, for the threads' grain: its outputs, and with a depth
    /// level the blend of its two source spans and a walk step. By outputs alone, ncdhw
    /// bf16 8x16 2x2x4->4x4x1 (512 planes of 4 outputs from 2 x 8 elements) ran on one
    /// thread of two, 13 us (oneDNN 12); (counting spans without depth, nchw u8 8x256
    /// 3x3->5x5 split finer and lost 20%).
    pub fn cost(&self) -> usize {
        self.outputs() + self.depth.map_or(0, |_| 2 * self.span + 16)
    }

    /// The window kernel's width (vectors), whether its loads are masked, whether shared.
    #[cfg(test)]
    pub fn windowed(&self) -> Option<(usize, bool, bool)> {
        self.windows.as_ref().map(|w| (w.nw, w.masked, w.shared))
    }

    /// Whether planes run several at a time ([`Group`]).
    #[cfg(test)]
    pub fn grouped(&self) -> bool {
        self.group.is_some()
    }
}

/// The plane geometry when `p` is a forward linear problem (any types but f64) resampling
/// exactly its last two (or three) axes with two taps each, dst planes contiguous, and
/// planes small.
pub(crate) fn plan(p: &Problem, t: &Tables) -> Option<PlaneGeom> {
    let (s, d) = (&p.src, &p.dst);
    let rank = s.rank();
    if p.direction != Direction::Forward
        || p.alg != Algorithm::Linear
        || !p.post_ops.is_empty()
        || s.dtype == DataType::F64
        || d.dtype == DataType::F64
        || rank < 2
        || s.is_blocked()
        || d.is_blocked()
    {
        return None;
    }
    let (h, w) = (rank - 2, rank - 1);
    let two = |f: &crate::core::taps::FwdTaps, n: usize| {
        f.idx.len() == 2 * n && f.bounds.windows(2).all(|b| b[1] - b[0] == 2)
    };
    // A third resampled axis just outside H (ncdhw) is blended first, per plane: the
    // reference's innermost level.
    // Only W resampled (ncw, or nchw along W): planes of identity rows, no H level.
    let (depth, blend_h) = match t.resampled.as_slice() {
        [a] if *a == w => (None, false),
        [a, b] if (*a, *b) == (h, w) => (None, true),
        [a, b, c] if rank >= 3 && (*a, *b, *c) == (rank - 3, h, w) => (Some(rank - 3), true),
        _ => return None,
    };
    if depth.is_some_and(|a| !two(t.fwd[a].as_ref().unwrap(), d.dims[a])) {
        return None;
    }
    let fw = t.fwd[w].as_ref()?;
    // Identity rows too many for one plane (1-D problems, whose identity axes the
    // canonical form merges into one long "H"): planes of one row each, which the run loop
    // batches (rows back to back in dst). ncw u8 8x256 8->16: 59 us by rows, oneDNN 54.
    let one_row = !blend_h && d.dims[h] * d.dims[w] > MAX_PLANE;
    let h = if one_row { w } else { h };
    let (oh, ow) = (if one_row { 1 } else { d.dims[h] }, d.dims[w]);
    if blend_h && !two(t.fwd[h].as_ref()?, oh) {
        return None;
    }
    if !two(fw, ow) || s.strides[w] != 1 || d.strides[w] != 1 {
        return None;
    }
    if oh > 1 && d.strides[h] != ow {
        return None;
    }
    let lo = *fw.idx.iter().min()? as usize;
    let hi = *fw.idx.iter().max()? as usize;
    let iw = hi + 1 - lo;
    // Rows of 17..32 outputs from at most 32 columns: two output vectors of the AVX-512
    // permute kernel, and the AVX2 loop, still beat the rows kernel's per-row setup (us,
    // 1 thread, rows -> planes, AVX-512 / AVX2): nchw u8 2x17 21x11->7x22 13.9 -> 2.5 /
    // 13.5 -> 6.5 (oneDNN 14.0 / 14.3), f32 8x32 10x10->20x20 157 -> 17.8 / 153 -> 94,
    // f32 4x16 40x30->20x30 50.8 -> 5.9 / 45.6 -> 36.8.
    // AVX-512 takes rows up to 64 outputs (four vectors): f32 8x64 28x28->56x56 1.79 ->
    // 0.18 ms, u8 4x32 16x16->48x48 447 -> 58 us, f32 4x32 32x32->64x64 364 -> 50 us
    // (oneDNN 3.6 ms, 0.78, 0.82).
    // Rows whose output vectors each read one window of at most 32 columns take the window
    // kernel (AVX2; AVX-512 past its permute kernel's 64 columns) up to 128 outputs: it
    // beats the rows kernel's per-row setup there (1 thread, us, rows -> planes; AVX2: nchw
    // f32 4x16 40x40->60x60 98 -> 47, 8x256 16x16->32x32 1033 -> 394, 8x32 30x70->45x105
    // 449 -> 291, 100x200->50x100 1453 -> 1027, 8x64 56x56->112x112 even; AVX-512: 30x70->
    // 45x105 437 -> 280, 1x4 50x65->62x22 5.4 -> 4.1, 4x16 30x100->60x30 98 -> 80; rows
    // from memory even: 8x32 64x256->32x64, 8x64 120x240->60x80).
    // AVX2 windows of three or four vectors (downsampling past 2x) take rows up to 4096 outputs:
    // the rows kernel has blocks of four outputs there (AVX2 1 thread us: ncw f32 1x32
    // 6162->2054 37.7 -> 33.0, oneDNN 30.9; nchw 4x64 3000->1000 262 -> 173, 175); for
    // other windows its held tables win on long rows (ncw 1x32 2000->4000 15.8 -> 29.1).
    let win = match simd::isa() {
        _ if ow > WINDOW_ROW_WIDE => None,
        simd::Isa::Avx2 if ow > WINDOW_ROW => windows(fw, lo, iw, ow).filter(|w| w.nw >= 3),
        _ if ow > WINDOW_ROW => None,
        simd::Isa::Avx2 => windows(fw, lo, iw, ow),
        simd::Isa::Avx512 if iw > PERMUTE_COLS => windows(fw, lo, iw, ow),
        _ => None,
    };
    let max_row = match simd::isa() {
        simd::Isa::Avx512 if iw <= PERMUTE_COLS => 4 * MAX_ROW,
        // (AVX2 rows of at most 32 columns always have windows.)
        _ if win.is_some() => WINDOW_ROW_WIDE,
        _ => MAX_ROW,
    };
    let planes: usize = (0..rank)
        .filter(|&a| a != w && a != h)
        .map(|a| d.dims[a])
        .product();
    // AVX2 windows of three or four vectors (downsampling past 2x, where the rows kernel takes
    // blocks of four outputs) win on planes up to a core's L2 of source rows read, where
    // the source needs no conversion buffer and there are planes enough for the threads
    // (1 thread us, rows -> planes: nchw f32 4x16 10x1000->30x300 645 -> 431, 50x900->50x300
    // 1309 -> 910, oneDNN 526, 1045; but 8x32 300x900->100x300 19.9 -> 31.9 ms).
    let larger = simd::isa() == simd::Isa::Avx2
        && win.as_ref().is_some_and(|w| w.nw >= 3)
        && s.dtype == DataType::F32
        && depth.is_none()
        && planes >= 16
        && oh * iw <= LARGER_PLANE;
    let small = oh * ow <= MAX_PLANE && oh * iw <= MAX_PLANE;
    if !(small || larger) || ow > max_row {
        return None;
    }
    let sh = s.strides[h];
    let off = |i: usize| u32::try_from(i.checked_mul(sh)?.checked_add(lo)?).ok();
    let rows = (0..oh)
        .map(|r| match &t.fwd[h] {
            Some(fh) if blend_h => {
                let (ii, ww) = fh.taps(r);
                Some((off(ii[0] as usize)?, off(ii[1] as usize)?, ww[0], ww[1]))
            }
            _ => Some((off(r)?, off(r)?, 1.0, 0.0)),
        })
        .collect::<Option<Vec<_>>>()?;
    let padded = ow.max(64);
    let cols = |k: usize| {
        (0..padded)
            .map(|o| {
                if o < ow {
                    fw.taps(o).0[k] - lo as u32
                } else {
                    0
                }
            })
            .collect()
    };
    let weight = |k: usize| {
        (0..padded)
            .map(|o| if o < ow { fw.taps(o).1[k] } else { 0.0 })
            .collect()
    };
    let span = rows
        .iter()
        .map(|r| r.0.max(r.1) as usize + iw)
        .max()
        .unwrap_or(0);
    if (s.dtype != DataType::F32 || depth.is_some()) && span > MAX_SPAN {
        return None;
    }
    let group = group(p, &rows, fw, lo, h, w, ow, span, blend_h, depth.is_some());
    Some(PlaneGeom {
        h,
        w,
        runs: planes,
        rows,
        blend_h,
        iw,
        ow,
        c: cols(0),
        e: cols(1),
        p: weight(0),
        q: weight(1),
        span,
        depth,
        group,
        windows: win,
    })
}

/// The group tables, when a plane's window and outputs fit a group's.
#[allow(clippy::too_many_arguments)]
fn group(
    p: &Problem,
    rows: &[(u32, u32, f32, f32)],
    fw: &crate::core::taps::FwdTaps,
    lo: usize,
    h: usize,
    w: usize,
    ow: usize,
    span: usize,
    blend_h: bool,
    depth: bool,
) -> Option<Group> {
    let (s, d) = (&p.src, &p.dst);
    let out_n = rows.len() * ow;
    // AVX-512 permutes windows of two vectors into four output vectors, AVX2 two into
    // four; the scalar loop gains only on rows of a few outputs, where the per-row
    // overhead dominates (SSE2, nchw f32, us: 4x512 1x1->2x2 31 -> 16.5, 4x64 5x5->3x3 6.4
    // -> 5.0; but 8x64 3x3->5x5 20 -> 26, 4x64 2x2->3x5 7.0 -> 7.8).
    let (max_span, max_out) = match simd::isa() {
        simd::Isa::Avx512 => (GROUP_SPAN, GROUP_OUT),
        simd::Isa::Avx2 => (16, 32),
        _ if ow <= 4 => (GROUP_SPAN, 32),
        _ => return None,
    };
    if span > max_span || out_n > max_out || out_n == 0 {
        return None;
    }
    // Consecutive planes differ in the innermost other axis; one whose planes are not back
    // to back in dst never batches, so no group either. Planes with a depth level are
    // blended side by side, `span` apart, and batched wherever dst takes them back to back.
    let step = if depth {
        span
    } else {
        let inner = (0..s.rank()).rev().find(|&a| a != w && a != h)?;
        if d.strides[inner] != out_n {
            return None;
        }
        s.strides[inner]
    };
    let mut planes = (max_out / out_n).max(1);
    while planes > 1 && (planes - 1) * step + span > max_span {
        planes -= 1;
    }
    let mut idx: [Vec<u32>; 4] = Default::default();
    let mut wt: [Vec<f32>; 4] = Default::default();
    for k in 0..GROUP_OUT {
        let (j, e) = (k / out_n, k % out_n);
        if j >= planes {
            for t in 0..4 {
                idx[t].push(0);
                wt[t].push(0.0);
            }
            continue;
        }
        let (a0, a1, u, v) = rows[e / ow];
        let (ii, ww) = fw.taps(e % ow);
        let base = (j * step) as u32;
        let (c, x) = (ii[0] - lo as u32, ii[1] - lo as u32);
        let a1 = if blend_h { a1 } else { a0 };
        let taps = [base + a0 + c, base + a1 + c, base + a0 + x, base + a1 + x];
        let weights = [u, v, ww[0], ww[1]];
        for t in 0..4 {
            idx[t].push(taps[t]);
            wt[t].push(weights[t]);
        }
    }
    Some(Group {
        planes,
        step,
        idx,
        wt,
    })
}

/// One plane, row by row: the H blend of the row's source rows (contiguous, vectorised),
/// then the W lerp of its outputs from the blended row.
#[inline(always)]
unsafe fn plane_body(
    src: *const f32,
    dst: *mut f32,
    g: &PlaneGeom,
    buf: &mut [f32],
    ahead: &mut ReadAhead,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let (iw, ow) = (g.iw, g.ow);
        let b = &mut buf[..iw];
        let (c, e, p, q) = (&g.c[..ow], &g.e[..ow], &g.p[..ow], &g.q[..ow]);
        for (r, &(a0, a1, u, v)) in g.rows.iter().enumerate() {
            ahead.reach(g.row_end(src as *const u8, a0, a1, 4));
            let s0 = std::slice::from_raw_parts(src.add(a0 as usize), iw);
            let b: &[f32] = if g.blend_h {
                let s1 = std::slice::from_raw_parts(src.add(a1 as usize), iw);
                for ((x, &y0), &y1) in b.iter_mut().zip(s0).zip(s1) {
                    *x = y0 * u + y1 * v;
                }
                b
            } else {
                s0
            };
            let d = dst.add(r * ow);
            for o in 0..ow {
                let val = b[c[o] as usize] * p[o] + b[e[o] as usize] * q[o];
                d.add(o).write_unaligned(val);
            }
        }
    }
}

/// The body of [`plane_avx512_permute`] (`$bf`: bf16 elements, else f32), expanded in each
/// kernel so that its closures get the kernel's target features (as a separate function
/// they did not, and every intrinsic became a call: 5x slower).
///
/// Safety: AVX-512F (with `$bf`, AVX-512BW/VL/BF16) is enabled in the kernel; loads touch
/// only the `iw` columns of each source row and stores only the row's `ow` outputs
/// (masked-off lanes are neither read nor written); the permutation indices are below `iw`;
/// `ow <= 16 * NV`; `iw <= 32`, or `iw <= 64` with `W4`.
#[cfg(target_arch = "x86_64")]
macro_rules! permute_body {
    ($bf:literal, $src:expr, $dst:expr, $g:expr, $ahead:expr) => {{
        use std::arch::x86_64::*;
        const BF: bool = $bf;
        let (src, dst, g): (*const u8, *mut u8, &PlaneGeom) = ($src, $dst, $g);
        let ahead: &mut ReadAhead = $ahead;
        let (iw, ow) = (g.iw, g.ow);
        let mask = |n: usize| -> __mmask16 { ((1u32 << n.min(16)) - 1) as __mmask16 };
        let m: [__mmask16; 4] = std::array::from_fn(|k| mask(iw.saturating_sub(16 * k)));
        // Per output vector: its store mask and tables (zero-padded to 64 entries at plan
        // time); with `W4`, which lanes of each tap read columns 32.. .
        let upper = |i: __m512i| _mm512_cmpge_epu32_mask(i, _mm512_set1_epi32(32));
        let vecs: [_; NV] = std::array::from_fn(|k| {
            let j = 16 * k;
            let (c, e) = (
                _mm512_loadu_si512(g.c.as_ptr().add(j) as *const _),
                _mm512_loadu_si512(g.e.as_ptr().add(j) as *const _),
            );
            (
                mask(ow.saturating_sub(j)),
                c,
                e,
                _mm512_loadu_ps(g.p.as_ptr().add(j)),
                _mm512_loadu_ps(g.q.as_ptr().add(j)),
                (upper(c), upper(e)),
            )
        });
        let load = |p: *const u8, m: __mmask16, k: usize| {
            if BF {
                let h = _mm256_maskz_loadu_epi16(m, (p as *const i16).add(k));
                _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(h)))
            } else {
                _mm512_maskz_loadu_ps(m, (p as *const f32).add(k))
            }
        };
        let esz = if BF { 2 } else { 4 };
        for (r, &(a0, a1, u, v)) in g.rows.iter().enumerate() {
            ahead.reach(g.row_end(src, a0, a1, esz));
            let (s0, s1) = (src.add(a0 as usize * esz), src.add(a1 as usize * esz));
            let (u, v) = (_mm512_set1_ps(u), _mm512_set1_ps(v));
            let blend = |m: __mmask16, k: usize| {
                let y0 = load(s0, m, k);
                if !g.blend_h {
                    return y0;
                }
                let y1 = load(s1, m, k);
                _mm512_add_ps(_mm512_mul_ps(y0, u), _mm512_mul_ps(y1, v))
            };
            let lo = blend(m[0], 0);
            let hi = if iw > 16 { blend(m[1], 16) } else { lo };
            // Columns 32..64 (`W4` only): two more vectors, and each tap's lanes that read
            // them from a second permute.
            let (v2, v3) = if W4 {
                let v2 = blend(m[2], 32);
                (v2, if iw > 48 { blend(m[3], 48) } else { v2 })
            } else {
                (lo, hi)
            };
            let tap = |i: __m512i, up: __mmask16| {
                let x = _mm512_permutex2var_ps(lo, i, hi);
                if W4 {
                    _mm512_mask_blend_ps(up, x, _mm512_permutex2var_ps(v2, i, v3))
                } else {
                    x
                }
            };
            for (k, &(mo, c, e, p, q, (uc, ue))) in vecs.iter().enumerate() {
                if k > 0 && ow <= 16 * k {
                    break;
                }
                let (x0, x1) = (tap(c, uc), tap(e, ue));
                let val = _mm512_add_ps(_mm512_mul_ps(x0, p), _mm512_mul_ps(x1, q));
                let at = r * ow + 16 * k;
                if BF {
                    let b = std::mem::transmute::<__m256bh, __m256i>(_mm512_cvtneps_pbh(val));
                    _mm256_mask_storeu_epi16((dst as *mut i16).add(at), mo, b);
                } else {
                    _mm512_mask_storeu_ps((dst as *mut f32).add(at), mo, val);
                }
            }
        }
    }};
}

/// Calls permute kernel `$k` with the output vectors a row of `$g` needs (`NV`) and four
/// input vectors (`W4`) past 32 columns.
#[cfg(target_arch = "x86_64")]
macro_rules! by_shape {
    ($k:ident, $s:expr, $d:expr, $g:expr, $a:expr) => {
        match ($g.ow, $g.iw <= 32) {
            (0..=16, true) => $k::<1, false>($s, $d, $g, $a),
            (17..=32, true) => $k::<2, false>($s, $d, $g, $a),
            (_, true) => $k::<4, false>($s, $d, $g, $a),
            (0..=16, false) => $k::<1, true>($s, $d, $g, $a),
            (17..=32, false) => $k::<2, true>($s, $d, $g, $a),
            (_, false) => $k::<4, true>($s, $d, $g, $a),
        }
    };
}

/// [`plane_body`] on AVX-512 for blended rows of at most 32 columns (64 with `W4`): a row's
/// blend is up to two (four) masked vectors straight from the source rows, and its outputs
/// are two permutations of them (no buffer, no gathers: the gathers of the per-element
/// tables cost nchw f32 1x256 14x10->5x3 22 us, oneDNN 9.8). With `W4` each tap is two
/// permutes and a blend by the index's high bit: rows of 33..64 columns took the AVX2
/// gathers, or the rows kernel past 16 outputs (1 thread, Xeon, us: nchw f32 8x4
/// 25x36->55x12 22.5 -> 7.6, oneDNN 17; 4x16 40x40->60x60 90 -> 35; 4x32 20x50->40x20 105
/// -> 31, bf16 116 -> 47).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn plane_avx512_permute<const NV: usize, const W4: bool>(
    src: *const f32,
    dst: *mut f32,
    g: &PlaneGeom,
    ahead: &mut ReadAhead,
) {
    // SAFETY: the caller's (`permute_body`'s contract), AVX-512F detected.
    unsafe { permute_body!(false, src as *const u8, dst as *mut u8, g, ahead) }
}

/// [`plane_avx512_permute`] from bf16 to bf16 under oneDNN numerics, converting in
/// registers: the values the f32 planes' conversion passes produce (bf16 widened exactly;
/// `vcvtneps2bf16`, [`simd::store_contiguous`]'s rounding there), without the passes (nchw
/// bf16 8x256 32->64 linear: they were 37% of the time).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
unsafe fn plane_avx512_permute_bf16<const NV: usize, const W4: bool>(
    src: *const u16,
    dst: *mut u16,
    g: &PlaneGeom,
    ahead: &mut ReadAhead,
) {
    // SAFETY: the caller's (`permute_body`'s contract), the features detected.
    unsafe { permute_body!(true, src as *const u8, dst as *mut u8, g, ahead) }
}

/// `n` consecutive planes from `src` (`gr.step` apart) to `dst` (back to back), a group at
/// a time: the group's outputs from its window by the flat tables.
#[inline(always)]
unsafe fn grouped_body<const BLEND: bool>(
    src: *const f32,
    dst: *mut f32,
    n: usize,
    out_n: usize,
    gr: &Group,
) {
    // SAFETY: the caller's contract: the `n` planes' spans lie in src and their outputs in
    // dst; a group of `m <= gr.planes` planes reads taps below `(m - 1) * step + span`
    // only for its first `m * out_n` outputs.
    unsafe {
        let [i0, i1, i2, i3] = &gr.idx;
        let [u, v, p, q] = &gr.wt;
        let mut j = 0;
        while j < n {
            let m = gr.planes.min(n - j);
            let (s, d) = (src.add(j * gr.step), dst.add(j * out_n));
            for k in 0..m * out_n {
                let at = |i: &[u32]| *s.add(i[k] as usize);
                let val = if BLEND {
                    (at(i0) * u[k] + at(i1) * v[k]) * p[k] + (at(i2) * u[k] + at(i3) * v[k]) * q[k]
                } else {
                    at(i0) * p[k] + at(i2) * q[k]
                };
                d.add(k).write_unaligned(val);
            }
            j += m;
        }
    }
}

/// [`grouped_body`] on AVX-512: a group's window is two masked loads, each output vector
/// four (two) permutations of it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn grouped_avx512<const BLEND: bool>(
    src: *const f32,
    dst: *mut f32,
    n: usize,
    out_n: usize,
    span: usize,
    gr: &Group,
) {
    // SAFETY: AVX-512F was detected by the caller; the loads are masked to the group's
    // window and the stores to its outputs (the caller's contract: both lie in the
    // buffers); the tables' indices stay below [`GROUP_SPAN`].
    unsafe {
        use std::arch::x86_64::*;
        let mask = |n: usize| -> __mmask16 { ((1u32 << n.min(16)) - 1) as __mmask16 };
        let mut j = 0;
        while j < n {
            let m = gr.planes.min(n - j);
            let (s, d) = (src.add(j * gr.step), dst.add(j * out_n));
            let win = (m - 1) * gr.step + span;
            let lo = _mm512_maskz_loadu_ps(mask(win), s);
            let hi = _mm512_maskz_loadu_ps(mask(win.saturating_sub(16)), s.add(16));
            let outs = m * out_n;
            let mut k = 0;
            while k < outs {
                let tap = |t: usize| {
                    let i = _mm512_loadu_si512(gr.idx[t].as_ptr().add(k) as *const _);
                    _mm512_permutex2var_ps(lo, i, hi)
                };
                let wt = |t: usize| _mm512_loadu_ps(gr.wt[t].as_ptr().add(k));
                let val = if BLEND {
                    let (u, v) = (wt(0), wt(1));
                    let bc = _mm512_add_ps(_mm512_mul_ps(tap(0), u), _mm512_mul_ps(tap(1), v));
                    let be = _mm512_add_ps(_mm512_mul_ps(tap(2), u), _mm512_mul_ps(tap(3), v));
                    _mm512_add_ps(_mm512_mul_ps(bc, wt(2)), _mm512_mul_ps(be, wt(3)))
                } else {
                    _mm512_add_ps(_mm512_mul_ps(tap(0), wt(2)), _mm512_mul_ps(tap(2), wt(3)))
                };
                _mm512_mask_storeu_ps(d.add(k), mask(outs - k), val);
                k += 16;
            }
            j += m;
        }
    }
}

/// [`grouped_body`] on AVX2 for windows of at most 16 values: each tap is a permutation of
/// the window's low and of its high vector, the one the index's bit 3 names kept.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn grouped_avx2<const BLEND: bool>(
    src: *const f32,
    dst: *mut f32,
    n: usize,
    out_n: usize,
    span: usize,
    gr: &Group,
) {
    // SAFETY: AVX2 was detected by the caller; the loads are masked to the group's window
    // and the last store to the group's outputs (the caller's contract: both lie in the
    // buffers); the tables' indices stay below 16.
    unsafe {
        use std::arch::x86_64::*;
        let mask = simd::word_mask;
        let mut j = 0;
        while j < n {
            let m = gr.planes.min(n - j);
            let (s, d) = (src.add(j * gr.step), dst.add(j * out_n));
            let win = (m - 1) * gr.step + span;
            let lo = _mm256_maskload_ps(s, mask(win));
            let hi = _mm256_maskload_ps(s.add(8), mask(win.saturating_sub(8)));
            let outs = m * out_n;
            let mut k = 0;
            while k < outs {
                let tap = |t: usize| {
                    let i = _mm256_loadu_si256(gr.idx[t].as_ptr().add(k) as *const __m256i);
                    let sel = _mm256_castsi256_ps(_mm256_slli_epi32::<28>(i));
                    _mm256_blendv_ps(
                        _mm256_permutevar8x32_ps(lo, i),
                        _mm256_permutevar8x32_ps(hi, i),
                        sel,
                    )
                };
                let wt = |t: usize| _mm256_loadu_ps(gr.wt[t].as_ptr().add(k));
                let val = if BLEND {
                    let (u, v) = (wt(0), wt(1));
                    let bc = _mm256_add_ps(_mm256_mul_ps(tap(0), u), _mm256_mul_ps(tap(1), v));
                    let be = _mm256_add_ps(_mm256_mul_ps(tap(2), u), _mm256_mul_ps(tap(3), v));
                    _mm256_add_ps(_mm256_mul_ps(bc, wt(2)), _mm256_mul_ps(be, wt(3)))
                } else {
                    _mm256_add_ps(_mm256_mul_ps(tap(0), wt(2)), _mm256_mul_ps(tap(2), wt(3)))
                };
                if outs - k >= 8 {
                    _mm256_storeu_ps(d.add(k), val);
                } else {
                    _mm256_maskstore_ps(d.add(k), mask(outs - k), val);
                }
                k += 8;
            }
            j += m;
        }
    }
}

/// One plane on AVX2 by [`Windows`] of `NW` vectors (`BLEND`: the plane has an H level).
///
/// Safety: AVX2 is enabled; each row's loads stay in its `iw` columns (masked when the
/// row is narrower than a window, which is then shared), stores in its `ow` outputs but for lanes past a short
/// row, which the rows after it write over (stores reaching past the plane are masked).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn plane_avx2_windows<const NW: usize, const BLEND: bool, const SHARED: bool>(
    src: *const f32,
    dst: *mut f32,
    g: &PlaneGeom,
    w: &Windows,
    ahead: &mut ReadAhead,
) {
    // SAFETY: the function's contract above; the window tables index below `8 * NW`.
    unsafe {
        use std::arch::x86_64::*;
        let (iw, ow) = (g.iw, g.ow);
        let mask = simd::word_mask;
        // (Only shared windows are masked: at column 0.)
        let masks: [__m256i; NW] = std::array::from_fn(|k| mask(iw.saturating_sub(8 * k)));
        let short = mask(ow);
        // Short rows' stores that would reach past the plane are masked.
        let end = g.rows.len() * ow;
        for (r, &(a0, a1, u, v)) in g.rows.iter().enumerate() {
            ahead.reach(g.row_end(src as *const u8, a0, a1, 4));
            let (s0, s1) = (src.add(a0 as usize), src.add(a1 as usize));
            let (u, v) = (_mm256_set1_ps(u), _mm256_set1_ps(v));
            let d = dst.add(r * ow);
            let window = |ws: usize| -> [__m256; NW] {
                let load = |s: *const f32, k: usize| match SHARED && w.masked {
                    true => _mm256_maskload_ps(s.add(8 * k), masks[k]),
                    false => _mm256_loadu_ps(s.add(ws + 8 * k)),
                };
                std::array::from_fn(|k| {
                    let y0 = load(s0, k);
                    if BLEND {
                        _mm256_add_ps(_mm256_mul_ps(y0, u), _mm256_mul_ps(load(s1, k), v))
                    } else {
                        y0
                    }
                })
            };
            let row = if SHARED { window(0) } else { [u; NW] };
            for wv in &w.vecs {
                let b = if SHARED { row } else { window(wv.ws) };
                let tap = |i: __m256i| {
                    let t = |k: usize| _mm256_permutevar8x32_ps(b[k], i);
                    if NW == 1 {
                        return t(0);
                    }
                    let bit3 = _mm256_castsi256_ps(_mm256_slli_epi32::<28>(i));
                    let x = _mm256_blendv_ps(t(0), t(1), bit3);
                    if NW == 2 {
                        return x;
                    }
                    let bit4 = _mm256_castsi256_ps(_mm256_slli_epi32::<27>(i));
                    if NW == 3 {
                        return _mm256_blendv_ps(x, t(2), bit4);
                    }
                    let y = _mm256_blendv_ps(t(2), t(3), bit3);
                    _mm256_blendv_ps(x, y, bit4)
                };
                let (c, e) = (
                    _mm256_load_si256(wv.c.as_ptr() as *const __m256i),
                    _mm256_load_si256(wv.e.as_ptr() as *const __m256i),
                );
                let (p, q) = (_mm256_load_ps(wv.p.as_ptr()), _mm256_load_ps(wv.q.as_ptr()));
                let val = _mm256_add_ps(_mm256_mul_ps(tap(c), p), _mm256_mul_ps(tap(e), q));
                if ow < 8 && r * ow + 8 > end {
                    _mm256_maskstore_ps(d, short, val);
                } else {
                    _mm256_storeu_ps(d.add(wv.at), val);
                }
            }
        }
    }
}

/// `n` consecutive planes, `gr.step` apart in src, back to back in dst, by groups.
unsafe fn grouped(src: *const f32, dst: *mut f32, n: usize, g: &PlaneGeom, gr: &Group) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let o = g.outputs();
        match (simd::isa(), g.blend_h) {
            #[cfg(target_arch = "x86_64")]
            (simd::Isa::Avx512, true) => grouped_avx512::<true>(src, dst, n, o, g.span, gr),
            #[cfg(target_arch = "x86_64")]
            (simd::Isa::Avx512, false) => grouped_avx512::<false>(src, dst, n, o, g.span, gr),
            #[cfg(target_arch = "x86_64")]
            (simd::Isa::Avx2, true) => grouped_avx2::<true>(src, dst, n, o, g.span, gr),
            #[cfg(target_arch = "x86_64")]
            (simd::Isa::Avx2, false) => grouped_avx2::<false>(src, dst, n, o, g.span, gr),
            (_, true) => grouped_body::<true>(src, dst, n, o, gr),
            (_, false) => grouped_body::<false>(src, dst, n, o, gr),
        }
    }
}

unsafe fn plane(
    src: *const f32,
    dst: *mut f32,
    g: &PlaneGeom,
    buf: &mut [f32],
    ahead: &mut ReadAhead,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2"))]
        unsafe fn avx2(
            src: *const f32,
            dst: *mut f32,
            g: &PlaneGeom,
            buf: &mut [f32],
            ahead: &mut ReadAhead,
        ) {
            // SAFETY: called only when `isa()` says the CPU has the feature; the plane's
            // contract is the caller's.
            unsafe { plane_body(src, dst, g, buf, ahead) }
        }
        match simd::isa() {
            #[cfg(target_arch = "x86_64")]
            simd::Isa::Avx512 if g.iw <= PERMUTE_COLS => {
                by_shape!(plane_avx512_permute, src, dst, g, ahead)
            }
            #[cfg(target_arch = "x86_64")]
            simd::Isa::Avx512 | simd::Isa::Avx2 if g.windows.is_some() => {
                let w = g.windows.as_ref().unwrap();
                macro_rules! by_nw {
                    ($blend:literal, $shared:literal) => {
                        match w.nw {
                            1 => plane_avx2_windows::<1, $blend, $shared>(src, dst, g, w, ahead),
                            2 => plane_avx2_windows::<2, $blend, $shared>(src, dst, g, w, ahead),
                            3 => plane_avx2_windows::<3, $blend, $shared>(src, dst, g, w, ahead),
                            _ => plane_avx2_windows::<4, $blend, $shared>(src, dst, g, w, ahead),
                        }
                    };
                }
                match (g.blend_h, w.shared) {
                    (true, true) => by_nw!(true, true),
                    (true, false) => by_nw!(true, false),
                    (false, true) => by_nw!(false, true),
                    (false, false) => by_nw!(false, false),
                }
            }
            simd::Isa::Avx512 | simd::Isa::Avx2 => avx2(src, dst, g, buf, ahead),
            simd::Isa::Base | simd::Isa::Neon => plane_body(src, dst, g, buf, ahead),
        }
    }
}

/// Most elements converted (source) or produced (output) per batch of planes: batches stay
/// in L1.
const BATCH: usize = 4096;

/// Planes `start..end`.
///
/// Consecutive planes equally spaced in src and back to back in dst go as one batch: one
/// conversion of their source stretch and one store of their outputs, instead of two
/// dispatched calls per plane (nchw bf16 4x512 2x2->4x3 linear 66 -> 44 us, u8 8x256 3x3->5x5
/// 134 -> 53; oneDNN 58, 138). With a depth level (ncdhw) the batch is planes back to back in
/// dst, each blended over depth on its own (u8 4x64 3x4x3->6x2x5 78 -> 43 us, oneDNN 81).
///
/// # Safety
/// Buffers cover the layouts; concurrent calls take disjoint plane ranges.
pub(crate) unsafe fn run(
    p: &Problem,
    t: &Tables,
    g: &PlaneGeom,
    bufs: Bufs<'_>,
    start: usize,
    end: usize,
) {
    let (sdt, ddt) = (p.src.dtype, p.dst.dtype);
    let mut buf = AlignedBuf::<f32>::zeroed(g.iw);
    // Other types go through f32 planes: the source span converted on the way in, the output
    // plane converted on the way out (the same values as the reference's load and store).
    let direct = sdt == DataType::F32 && g.depth.is_none();
    // bf16 to bf16 planes of rows up to 32 wide convert in the permute kernel's registers
    // (without groups of tiny planes, which go through the f32 buffers).
    #[cfg(target_arch = "x86_64")]
    let bf16 = sdt == DataType::Bf16
        && ddt == DataType::Bf16
        && p.numerics != crate::core::dtype::Numerics::Ieee
        && g.depth.is_none()
        && g.group.is_none()
        && g.iw <= PERMUTE_COLS
        && simd::isa() == simd::Isa::Avx512
        && simd::avx512bf16();
    #[cfg(not(target_arch = "x86_64"))]
    let bf16 = false;
    let direct = direct || bf16;
    let out_n = g.outputs();
    // With a depth level, a batch's planes are blended side by side: room for all at once.
    let depth_planes =
        (BATCH / out_n.max(g.span).max(1)).clamp(1, end.saturating_sub(start).max(1));
    let mut sconv = AlignedBuf::<f32>::zeroed(match (direct, g.depth) {
        (true, _) => 0,
        (false, None) => g.span,
        (false, Some(_)) => depth_planes * g.span,
    });
    // The output planes of non-f32 or streamed batches (grown by `simd::scratch_like`).
    let mut dconv = AlignedBuf::<f32>::zeroed(0);
    let mut runs = Runs::new(p, t, &[(g.w, 1, 0, 0), (g.h, 1, 0, 0)], start);
    let mut r = start;
    // Outputs beyond the cache go out with streamed stores (`streaming`); the fused bf16
    // path stores its vectors itself, through the cache.
    let stream = crate::core::streaming::now() && !bf16;
    // Sources read in place from memory are asked for ahead of the rows (`read_ahead`).
    let mut ahead = ReadAhead::from_memory(direct && crate::core::streaming::beyond());
    let inner = (0..p.dst.rank()).rev().find(|&a| runs.ext[a] > 1);
    // The depth taps of the `k` planes from `runs` along the depth axis (src offsets of
    // their two source planes' bases, from the source base they share, and weights), for
    // one blend of a whole batch as a row of span-wide pixels.
    let mut dtaps: PixelTaps = Vec::new();
    let depth_taps = |runs: &Runs, k: usize, dtaps: &mut PixelTaps| {
        if let Some(a) = g.depth {
            let (st, sb) = (p.src.strides[a], runs.sbase);
            for j in runs.pos[a]..runs.pos[a] + k {
                let (ii, ww) = t.fwd[a].as_ref().unwrap().taps(j);
                dtaps.push((
                    sb + ii[0] as usize * st,
                    sb + ii[1] as usize * st,
                    ww[0],
                    ww[1],
                ));
            }
        }
    };
    while r < end {
        let (doff, sbase) = (runs.doff, runs.sbase);
        // The batch: planes k = 0..n from sp + k * sstep, to doff + k * out_n; with a depth
        // level each plane is blended into its own span of `sconv`.
        let (mut n, mut sstep) = (1, 0);
        if let Some(a) = g.depth {
            dtaps.clear();
            n = 0;
            sstep = g.span;
            // Planes along the depth axis, when it is the innermost walked one and dst holds
            // them back to back, are taken together (plane by plane, the walk was most of
            // ncdhw bf16 8x16 2x2x4->4x4x1).
            let along = inner == Some(a) && runs.dstr[a] == out_n;
            loop {
                let k = match along {
                    true => (runs.ext[a] - runs.pos[a])
                        .min(end - (r + n))
                        .min(depth_planes - n),
                    false => 1,
                };
                depth_taps(&runs, k, &mut dtaps);
                runs.advance_by(k);
                n += k;
                if !(r + n < end && runs.doff == doff + n * out_n && n < depth_planes) {
                    break;
                }
            }
            // One call blends the batch (a call per plane was most of nchw bf16 1x512
            // 1x3x1->2x1x2): plane k's span is pixel k, `s[o0 + l] * w0 + s[o1 + l] * w1`
            // over its lanes, the reference's depth level.
            // SAFETY: both source planes of each lie within the buffer (`run`'s contract).
            unsafe {
                let (w, base) = ([[1.0, 0.0]; 3], [0; 8]);
                let out = &mut sconv[..n * g.span];
                simd::lanes_row(sdt, 1, bufs.src, &base, &w, &dtaps, true, out, false);
            }
        } else {
            runs.advance();
            while r + n < end && runs.doff == doff + n * out_n {
                let step = match runs.sbase.checked_sub(sbase) {
                    Some(d) if n == 1 => d,
                    Some(d) if d == n * sstep => sstep,
                    _ => break,
                };
                let fits = (n + 1) * out_n <= BATCH
                    && (direct || step.checked_mul(n).is_some_and(|x| x + g.span <= BATCH));
                if !fits {
                    break;
                }
                sstep = step;
                // The planes after it along the innermost axis follow at the same steps:
                // taken at once (advancing plane by plane was 80% of nchw 4x512 1x1->2x2).
                let mut k = 0;
                if let Some(a) = inner.filter(|&a| runs.dstr[a] == out_n && runs.sstr[a] == sstep) {
                    k = (runs.ext[a] - 1 - runs.pos[a])
                        .min(end - (r + n) - 1)
                        .min(BATCH / out_n - (n + 1));
                    if !direct && sstep > 0 {
                        k = k.min((BATCH - g.span) / sstep - n);
                    }
                }
                runs.advance_by(k + 1);
                n += k + 1;
            }
        }
        r += n;
        #[cfg(target_arch = "x86_64")]
        if bf16 {
            // SAFETY: as below: each plane's source span from its base and its contiguous
            // output plane lie within the buffers; the features were detected.
            unsafe {
                let (sp, dp) = (bufs.src as *const u16, bufs.dst as *mut u16);
                for k in 0..n {
                    let (s, d) = (sp.add(sbase + k * sstep), dp.add(doff + k * out_n));
                    by_shape!(plane_avx512_permute_bf16, s, d, g, &mut ahead);
                }
            }
            continue;
        }
        // SAFETY: the planes' elements (the source spans from their bases, the contiguous
        // output planes) lie within the buffers; this run alone writes them.
        unsafe {
            let sp = if g.depth.is_some() {
                sconv.as_ptr()
            } else if direct {
                (bufs.src as *const f32).add(sbase)
            } else {
                let len = (n - 1) * sstep + g.span;
                if sconv.len() < len {
                    sconv.resize(len);
                }
                simd::load_contiguous(sdt, bufs.src, sbase, &mut sconv[..len]);
                sconv.as_ptr()
            };
            // Grouped planes must be the group's step apart (as in dense tensors).
            let group = g.group.as_ref().filter(|gr| n == 1 || sstep == gr.step);
            let mut planes = |dp: *mut f32| match group {
                Some(gr) => grouped(sp, dp, n, g, gr),
                None => {
                    for k in 0..n {
                        plane(
                            sp.add(k * sstep),
                            dp.add(k * out_n),
                            g,
                            &mut buf,
                            &mut ahead,
                        );
                    }
                }
            };
            if ddt == DataType::F32 && !stream {
                planes((bufs.dst as *mut f32).add(doff));
            } else {
                // Through a cache-resident buffer, converted or streamed on the way out; at
                // dst's offset within its line, as a streamed f32 copy needs.
                let dp = bufs.dst.add(doff * ddt.size());
                let sp = simd::scratch_like(&mut dconv, dp, n * out_n);
                planes(sp);
                let vals = std::slice::from_raw_parts(sp, n * out_n);
                match stream {
                    true => simd::store_contiguous_nt(ddt, p.numerics, vals, dp),
                    false => simd::store_contiguous(ddt, p.numerics, vals, dp),
                }
            }
        }
    }
    if stream {
        // The non-temporal stores must be visible before this chunk is reported done.
        simd::store_fence();
    }
}
