//! Small f32 planes (nchw/ncw linear, a few thousand outputs per plane): the rows kernel
//! pays a run setup and two dispatched calls per output row, which dominates when rows are
//! a few elements long. Here the whole plane is one call: the H blend of every output row
//! (`v(h0)*wh0 + v(h1)*wh1`, the reference's inner level) into a plane buffer, then the W
//! lerp of every output (`b(w0)*ww0 + b(w1)*ww1`), both through per-element tables built at
//! plan time. Same products and sums in the same order as the reference.

use super::{simd, Runs};
use crate::core::aligned::AlignedBuf;
use crate::core::dtype::DataType;
use crate::core::reference::{Bufs, Tables};
use crate::core::{Algorithm, Direction, Problem};

/// Largest plane buffer and output plane (elements) this path takes.
const MAX_PLANE: usize = 4096;

/// Largest source span (elements) converted per plane for non-f32 sources.
const MAX_SPAN: usize = 1 << 14;

/// Widest output row this path takes: its per-element gathers beat the rows kernel only
/// while rows are short (nchw 8x256 32x32->64x64: 11.3 ms here, 4.7 ms by rows; 1x16
/// 4x4->8x8: 1.6 us here, 4 us by rows).
const MAX_ROW: usize = 16;

#[derive(Clone, Debug)]
pub(crate) struct PlaneGeom {
    pub h: usize,
    pub w: usize,
    /// Planes (product of the other axes' sizes).
    pub runs: usize,
    /// H level: buffer element `j` = src[a[j]] * u[j] + src[b[j]] * v[j] (src offsets
    /// relative to the plane's base).
    a: Vec<u32>,
    b: Vec<u32>,
    u: Vec<f32>,
    v: Vec<f32>,
    /// W level: output `o` (dst plane, row-major) = buf[c[o]] * p[o] + buf[e[o]] * q[o].
    c: Vec<u32>,
    e: Vec<u32>,
    p: Vec<f32>,
    q: Vec<f32>,
    /// Source elements a plane reads from its base (converted to f32 first when the source
    /// is not f32).
    span: usize,
    /// The resampled axis outside H (ncdhw's D), blended over the span per plane.
    depth: Option<usize>,
}

impl PlaneGeom {
    pub fn outputs(&self) -> usize {
        self.c.len()
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
    let depth = match t.resampled.as_slice() {
        [a, b] if (*a, *b) == (h, w) => None,
        [a, b, c] if rank >= 3 && (*a, *b, *c) == (rank - 3, h, w) => Some(rank - 3),
        _ => return None,
    };
    if depth.is_some_and(|a| !two(t.fwd[a].as_ref().unwrap(), d.dims[a])) {
        return None;
    }
    let (fh, fw) = (t.fwd[h].as_ref()?, t.fwd[w].as_ref()?);
    let (oh, ow) = (d.dims[h], d.dims[w]);
    if !two(fh, oh) || !two(fw, ow) || s.strides[w] != 1 || d.strides[w] != 1 {
        return None;
    }
    if oh > 1 && d.strides[h] != ow {
        return None;
    }
    let lo = *fw.idx.iter().min()? as usize;
    let hi = *fw.idx.iter().max()? as usize;
    let iw = hi + 1 - lo;
    if oh * ow > MAX_PLANE || oh * iw > MAX_PLANE || ow > MAX_ROW {
        return None;
    }
    let sh = s.strides[h];
    let off = |i: u32, x: usize| u32::try_from(i as usize * sh + lo + x).ok();
    let mut g = PlaneGeom {
        h,
        w,
        runs: (0..rank - 2).map(|a| d.dims[a]).product(),
        a: Vec::with_capacity(oh * iw),
        b: Vec::with_capacity(oh * iw),
        u: Vec::with_capacity(oh * iw),
        v: Vec::with_capacity(oh * iw),
        c: Vec::with_capacity(oh * ow),
        e: Vec::with_capacity(oh * ow),
        p: Vec::with_capacity(oh * ow),
        q: Vec::with_capacity(oh * ow),
        span: 0,
        depth,
    };
    for r in 0..oh {
        let (ii, ww) = fh.taps(r);
        for x in 0..iw {
            g.a.push(off(ii[0], x)?);
            g.b.push(off(ii[1], x)?);
            g.u.push(ww[0]);
            g.v.push(ww[1]);
        }
        for o in 0..ow {
            let (ii, ww) = fw.taps(o);
            g.c.push((r * iw + ii[0] as usize - lo) as u32);
            g.e.push((r * iw + ii[1] as usize - lo) as u32);
            g.p.push(ww[0]);
            g.q.push(ww[1]);
        }
    }
    g.span = g.a.iter().chain(&g.b).max().map_or(0, |&m| m as usize + 1);
    if (s.dtype != DataType::F32 || depth.is_some()) && g.span > MAX_SPAN {
        return None;
    }
    Some(g)
}

#[inline(always)]
unsafe fn plane_body(src: *const f32, dst: *mut f32, g: &PlaneGeom, buf: &mut [f32]) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let n = buf.len().min(g.a.len());
        let (a, b, u, v) = (&g.a[..n], &g.b[..n], &g.u[..n], &g.v[..n]);
        for j in 0..n {
            buf[j] = src.add(a[j] as usize).read_unaligned() * u[j]
                + src.add(b[j] as usize).read_unaligned() * v[j];
        }
        let m = g.c.len();
        let (c, e, p, q) = (&g.c[..m], &g.e[..m], &g.p[..m], &g.q[..m]);
        // Unchecked reads keep the loop a vector gather: `plan` built every index below
        // `oh * iw`, the buffer's length.
        let bp = buf.as_ptr();
        for o in 0..m {
            let r = *bp.add(c[o] as usize) * p[o] + *bp.add(e[o] as usize) * q[o];
            dst.add(o).write_unaligned(r);
        }
    }
}

unsafe fn plane(src: *const f32, dst: *mut f32, g: &PlaneGeom, buf: &mut [f32]) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx512f"))]
        unsafe fn avx512(src: *const f32, dst: *mut f32, g: &PlaneGeom, buf: &mut [f32]) {
            // SAFETY: called only when `isa()` says the CPU has the feature; the plane's
            // contract is the caller's.
            unsafe { plane_body(src, dst, g, buf) }
        }
        #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2"))]
        unsafe fn avx2(src: *const f32, dst: *mut f32, g: &PlaneGeom, buf: &mut [f32]) {
            // SAFETY: called only when `isa()` says the CPU has the feature; the plane's
            // contract is the caller's.
            unsafe { plane_body(src, dst, g, buf) }
        }
        match simd::isa() {
            simd::Isa::Avx512 => avx512(src, dst, g, buf),
            simd::Isa::Avx2 => avx2(src, dst, g, buf),
            simd::Isa::Base => plane_body(src, dst, g, buf),
            simd::Isa::Neon => plane_body(src, dst, g, buf),
        }
    }
}

/// Planes `start..end`.
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
    let mut buf = AlignedBuf::<f32>::zeroed(g.a.len());
    // Other types go through f32 planes: the source span converted on the way in, the output
    // plane converted on the way out (the same values as the reference's load and store).
    let direct = sdt == DataType::F32 && g.depth.is_none();
    let mut sconv = AlignedBuf::<f32>::zeroed(if direct { 0 } else { g.span });
    let mut dconv = AlignedBuf::<f32>::zeroed(if ddt == DataType::F32 { 0 } else { g.c.len() });
    let mut runs = Runs::new(p, t, &[(g.w, 1, 0, 0), (g.h, 1, 0, 0)], start);
    for _ in start..end {
        let (doff, sbase) = (runs.doff, runs.sbase);
        let depth = g.depth.map(|a| {
            let (ii, ww) = t.fwd[a].as_ref().unwrap().taps(runs.pos[a]);
            let st = p.src.strides[a];
            let mut offs = [0; 8];
            (offs[0], offs[1]) = (sbase + ii[0] as usize * st, sbase + ii[1] as usize * st);
            (offs, [[ww[0], ww[1]], [1.0, 0.0], [1.0, 0.0]])
        });
        runs.advance();
        // SAFETY: the plane's elements (the source span from its base, the contiguous output
        // plane) lie within the buffers; this run alone writes them.
        unsafe {
            let sp = if let Some((offs, w)) = depth {
                simd::lerp(sdt, 1, bufs.src, &offs, &w, &mut sconv);
                sconv.as_ptr()
            } else if direct {
                (bufs.src as *const f32).add(sbase)
            } else {
                simd::load_contiguous(sdt, bufs.src, sbase, &mut sconv);
                sconv.as_ptr()
            };
            if ddt == DataType::F32 {
                plane(sp, (bufs.dst as *mut f32).add(doff), g, &mut buf);
            } else {
                plane(sp, dconv.as_mut_ptr(), g, &mut buf);
                let dp = bufs.dst.add(doff * ddt.size());
                simd::store_contiguous(ddt, p.numerics, &dconv, dp);
            }
        }
    }
}
