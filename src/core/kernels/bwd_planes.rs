//! Backward over whole small planes (ncdhw / nchw with short rows).
//!
//! A run is one diff_src plane over the last two axes `h` and `w` (both resampled, both
//! dense in diff_src and `w` unit-stride in diff_dst); every other axis is fixed. The
//! reference order per diff_src element is: group combinations of the resampled axes (axis
//! order, last fastest), then the output positions of those groups' lists (axis order, last
//! fastest), `acc += ((dd * w_a0) * w_a1) * w_a2`. For a plane the loop nest is
//! `outer groups → (gh, gw) → outer positions → (kh, kw)`: for a fixed `(gh, gw, kh, kw)`
//! every element of the plane reads one diff_dst element at a tabulated offset, so one
//! *step* is a gather, the products and an add over the whole plane, vectorised across the
//! plane's elements. Elements whose lists are shorter than the step's position are masked
//! by a select (never added as zero terms). Each element therefore sees exactly the
//! reference's sequence of products and additions; only the loops over elements moved.
//! With rows of a few elements this replaces per-row calls with per-plane ones.

use super::super::aligned::AlignedBuf;
use super::super::dtype::DataType;
use super::super::reference::{odometer, Bufs, Tables};
use super::super::simd;
use super::super::taps::BwdTaps;
use super::super::{Algorithm, Problem, MAX_RANK};
use super::Runs;

/// Elements per chunk (one AVX2 vector); a plane is walked in chunks of its elements.
const V: usize = 8;
/// Largest step table (bytes) built: it is re-read for every plane, so it has to stay in
/// the L2 cache.
const MAX_TABLE: usize = 256 << 10;
/// Longest diff_dst row the plane walk takes; longer rows stream better row by row.
/// Nearest rows whose `w` lists have a fixed shape (integer ratios: the row walk's unrolled
/// loops) stream better beyond [`MAX_W_UNIFORM`]. Measured on nchw 4x64, 1 thread, AVX-512
/// machine (planes vs rows, ms): linear 24x24 <- 48x48 1.14/1.38, 30x30 <- 45x45 1.10/1.84,
/// 40x40 <- 60x60 2.03/3.03, 32x32 <- 64x64 1.91/1.91; nearest 20x20 <- 37x37 0.21/0.36,
/// 40x40 <- 60x60 0.67/0.89, but 24x24 <- 48x48 0.35/0.27, 32x32 <- 64x64 0.61/0.37.
const MAX_W: usize = 64;
const MAX_W_UNIFORM: usize = 20;

/// One step over one chunk: per element, the diff_dst offset within the plane, the `h` and
/// `w` weights, and whether the element has this position (0 or !0).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(32))]
pub(crate) struct Block {
    off: [i32; V],
    wh: [f32; V],
    ww: [f32; V],
    valid: [u32; V],
}

#[derive(Clone, Debug)]
pub(crate) struct PlaneGeom {
    pub h: usize,
    pub w: usize,
    /// Elements of a plane.
    pub np: usize,
    /// Chunks of a plane.
    pub nch: usize,
    /// Element of each chunk slot (`u32::MAX`: padding). Elements are ordered so that those
    /// with the same list lengths share chunks (edges need more steps than the interior).
    pub perm: Vec<u32>,
    /// Resampled axes before `h`, in axis order.
    pub outer: Vec<usize>,
    /// `(gh, gw)` combinations (`gw` fastest).
    pub ncombo: usize,
    /// diff_dst elements a plane's steps read from its first (`max offset + 1`): what a
    /// non-f32 diff_dst converts to f32 before its steps.
    pub span: usize,
    /// Block range per combination and chunk (`combo * nch + chunk`): that chunk's steps
    /// in `(kh, kw)` order, those where no element of the chunk is valid left out.
    pub ranges: Vec<(u32, u32)>,
    pub blocks: Vec<Block>,
    /// `(slot, element)` of every element some step adds to; the others stay 0 (forward
    /// downsampling leaves most of a plane without a list: scattering only these beat
    /// copying every slot, nchw f32 4x96 20x17x32 <- 7x34x11 nearest).
    pub live: Vec<(u32, u32)>,
    pub runs: usize,
}

impl PlaneGeom {
    /// diff_dst element terms of one run (for the thread grain).
    pub fn run_cost(&self) -> usize {
        let outer = 4usize.pow(self.outer.len() as u32);
        (self.blocks.len() * V * outer).max(1)
    }
}

/// The plane geometry, or `None` when the problem is not a short-row plane problem.
pub(crate) fn plan(p: &Problem, t: &Tables) -> Option<PlaneGeom> {
    let (s, d) = (&p.src, &p.dst);
    let rank = d.rank();
    if !super::plain_backward_planes(p) || s.dtype == DataType::F64 {
        return None;
    }
    let (h, w) = (rank - 2, rank - 1);
    let m = t.resampled.len();
    if m < 2 || t.resampled[m - 1] != w || t.resampled[m - 2] != h {
        return None;
    }
    if p.alg != Algorithm::Nearest && m > 3 {
        return None;
    }
    let (ih_n, iw_n) = (d.dims[h], d.dims[w]);
    let max_w = if p.alg == Algorithm::Nearest
        && t.bwd[w]
            .as_ref()
            .is_some_and(|tab| super::bwd_stream::unrolled_rows(tab, d.dims[w], s.dims[w]))
    {
        MAX_W_UNIFORM
    } else {
        MAX_W
    };
    if s.dims[w] > max_w
        || iw_n > 64
        || d.strides[w] != 1
        || d.strides[h] != iw_n
        || s.strides[w] != 1
        || s.strides[h] < s.dims[w]
    {
        return None;
    }
    // Offsets within a dd plane are 32-bit.
    let span = s.strides[h].checked_mul(s.dims[h])?;
    if span > i32::MAX as usize {
        return None;
    }
    let np = ih_n.checked_mul(iw_n)?;
    if np.checked_mul(64)? > MAX_TABLE {
        return None;
    }
    let (th, tw) = (t.bwd[h].as_ref()?, t.bwd[w].as_ref()?);
    let lens = |tab: &BwdTaps, i: usize| -> Vec<usize> {
        (0..tab.groups).map(|g| tab.group(i, g).0.len()).collect()
    };
    // Elements grouped by their list lengths (stable: plane order within a group).
    let mut order: Vec<usize> = (0..np).collect();
    order.sort_by_key(|&e| (lens(th, e / iw_n), lens(tw, e % iw_n)));
    let nch = np.div_ceil(V);
    let mut perm = vec![u32::MAX; nch * V];
    for (slot, &e) in order.iter().enumerate() {
        perm[slot] = e as u32;
    }
    let kmax = |tab: &BwdTaps, n: usize, g: usize| {
        (0..n).map(|i| tab.group(i, g).0.len()).max().unwrap_or(0)
    };
    let sh = s.strides[h];
    let mut g = PlaneGeom {
        h,
        w,
        np,
        nch,
        perm,
        outer: t.resampled[..m - 2].to_vec(),
        ncombo: th.groups * tw.groups,
        span: 0,
        ranges: Vec::with_capacity(th.groups * tw.groups * nch),
        blocks: Vec::new(),
        live: Vec::new(),
        runs: 0,
    };
    for gh in 0..th.groups {
        for gw in 0..tw.groups {
            for ch in 0..nch {
                let first = g.blocks.len();
                for kh in 0..kmax(th, ih_n, gh) {
                    for kw in 0..kmax(tw, iw_n, gw) {
                        let mut blk = Block::default();
                        let mut any = false;
                        for q in 0..V {
                            let e = g.perm[ch * V + q];
                            if e == u32::MAX {
                                continue;
                            }
                            let (ih, iw) = (e as usize / iw_n, e as usize % iw_n);
                            let ((oh, wh), (ow, ww)) = (th.group(ih, gh), tw.group(iw, gw));
                            if kh < oh.len() && kw < ow.len() {
                                any = true;
                                blk.off[q] = (oh[kh] as usize * sh + ow[kw] as usize) as i32;
                                blk.wh[q] = wh[kh];
                                blk.ww[q] = ww[kw];
                                blk.valid[q] = !0;
                                g.span = g.span.max(blk.off[q] as usize + 1);
                            }
                        }
                        if any {
                            if (g.blocks.len() + 1) * std::mem::size_of::<Block>() > MAX_TABLE {
                                return None;
                            }
                            g.blocks.push(blk);
                        }
                    }
                }
                g.ranges.push((first as u32, g.blocks.len() as u32));
            }
        }
    }
    let mut live = vec![false; nch * V];
    for (k, &(b0, b1)) in g.ranges.iter().enumerate() {
        let ch = k % nch;
        for blk in &g.blocks[b0 as usize..b1 as usize] {
            for q in 0..V {
                live[ch * V + q] |= blk.valid[q] != 0;
            }
        }
    }
    g.live = (0..nch * V)
        .filter(|&slot| live[slot])
        .map(|slot| (slot as u32, g.perm[slot]))
        .collect();
    g.runs = (0..rank)
        .filter(|&a| a != h && a != w)
        .try_fold(1usize, |n, a| n.checked_mul(d.dims[a]))?;
    Some(g)
}

/// The blocks `blocks` of one chunk, in order: per element,
/// `a += ((x[off] * wo) * wh) * ww` where valid (`MO` outer weights, 0 or 1; nearest:
/// `a += x[off]`). The chunk's sums stay in registers across the steps.
#[inline(always)]
unsafe fn chunk_body<const NEAREST: bool, const MO: usize>(
    src: *const f32,
    blocks: &[Block],
    wo: f32,
    acc: &mut [f32; V],
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let mut a = *acc;
        for b in blocks {
            for (q, a) in a.iter_mut().enumerate() {
                let mut v = src.offset(b.off[q] as isize).read_unaligned();
                if !NEAREST {
                    if MO == 1 {
                        v *= wo;
                    }
                    v *= b.wh[q];
                    v *= b.ww[q];
                }
                if b.valid[q] != 0 {
                    *a += v;
                }
            }
        }
        *acc = a;
    }
}

/// [`chunk_body`] with AVX2 gathers (also on AVX-512 machines, where 16-lane gathers are
/// not faster); the same operations in the same order, so the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn chunk_avx2<const NEAREST: bool, const MO: usize>(
    src: *const f32,
    blocks: &[Block],
    wo: f32,
    acc: &mut [f32; V],
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        use std::arch::x86_64::*;
        let wov = _mm256_set1_ps(wo);
        let mut a = _mm256_loadu_ps(acc.as_ptr());
        for b in blocks {
            let i = _mm256_load_si256(b.off.as_ptr() as *const __m256i);
            let mut v = _mm256_i32gather_ps::<4>(src, i);
            if !NEAREST {
                if MO == 1 {
                    v = _mm256_mul_ps(v, wov);
                }
                v = _mm256_mul_ps(v, _mm256_load_ps(b.wh.as_ptr()));
                v = _mm256_mul_ps(v, _mm256_load_ps(b.ww.as_ptr()));
            }
            let m = _mm256_load_ps(b.valid.as_ptr() as *const f32);
            a = _mm256_blendv_ps(a, _mm256_add_ps(a, v), m);
        }
        _mm256_storeu_ps(acc.as_mut_ptr(), a);
    }
}

/// Runs combination `c` of `g` over one plane.
unsafe fn combo(
    g: &PlaneGeom,
    c: usize,
    src: *const f32,
    nearest: bool,
    mo: usize,
    wo: f32,
    acc: &mut [[f32; V]],
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        #[inline(always)]
        unsafe fn all<const N: bool, const MO: usize>(
            g: &PlaneGeom,
            c: usize,
            src: *const f32,
            wo: f32,
            acc: &mut [[f32; V]],
            avx2: bool,
        ) {
            // SAFETY: the caller's contract (the plan checked the buffers): every address formed
            // here lies in the buffers the problem's layouts describe, this call's dst elements
            // are written by it alone, and vector code runs only on an ISA the CPU has.
            unsafe {
                let ranges = &g.ranges[c * g.nch..(c + 1) * g.nch];
                for (a, &(b0, b1)) in acc.iter_mut().zip(ranges) {
                    let blocks = &g.blocks[b0 as usize..b1 as usize];
                    if blocks.is_empty() {
                        continue;
                    }
                    #[cfg(target_arch = "x86_64")]
                    if avx2 {
                        chunk_avx2::<N, MO>(src, blocks, wo, a);
                        continue;
                    }
                    let _ = avx2;
                    chunk_body::<N, MO>(src, blocks, wo, a);
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn avx2<const N: bool, const MO: usize>(
            g: &PlaneGeom,
            c: usize,
            src: *const f32,
            wo: f32,
            acc: &mut [[f32; V]],
        ) {
            // SAFETY: the caller's contract (the plan checked the buffers): every address formed
            // here lies in the buffers the problem's layouts describe, this call's dst elements
            // are written by it alone, and vector code runs only on an ISA the CPU has.
            unsafe { all::<N, MO>(g, c, src, wo, acc, true) }
        }
        #[cfg(target_arch = "x86_64")]
        if simd::isa() != simd::Isa::Base {
            return match (nearest, mo) {
                (true, _) => avx2::<true, 0>(g, c, src, wo, acc),
                (false, 0) => avx2::<false, 0>(g, c, src, wo, acc),
                _ => avx2::<false, 1>(g, c, src, wo, acc),
            };
        }
        match (nearest, mo) {
            (true, _) => all::<true, 0>(g, c, src, wo, acc, false),
            (false, 0) => all::<false, 0>(g, c, src, wo, acc, false),
            _ => all::<false, 1>(g, c, src, wo, acc, false),
        }
    }
}

/// Runs `start..end` of the plane walk.
///
/// # Safety
/// Buffers must cover the layouts; run ranges of concurrent calls must be disjoint.
pub(crate) unsafe fn run(
    p: &Problem,
    t: &Tables,
    g: &PlaneGeom,
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
        let nearest = p.alg == Algorithm::Nearest;
        let outer = &g.outer;
        let mo = if nearest { 0 } else { outer.len() };
        debug_assert!(mo <= 1);
        let mut acc = vec![[0f32; V]; g.nch];
        let mut out = AlignedBuf::<f32>::zeroed(g.np);
        let mut runs = Runs::new(p, t, &[(g.h, 1, 0, 0), (g.w, 1, 0, 0)], start);
        // A non-f32 diff_dst plane is converted to f32 once per plane offset (per run in
        // 2-D; 3-D reads several planes), so the steps gather f32 as for f32 input (nchw
        // bf16 8x48 7x4 <- 14x11 linear: per-row streaming took 0.62 ms, PyTorch 0.24).
        let direct = s.dtype == DataType::F32;
        let mut conv = AlignedBuf::<f32>::zeroed(if direct { 0 } else { g.span });
        let mut converted = usize::MAX;
        for _ in start..end {
            let idx = runs.pos;
            let (doff, sbase) = (runs.doff, runs.sbase);
            runs.advance();
            acc.fill([0.0; V]);
            let no = outer.len();
            let mut gi = [0usize; MAX_RANK];
            let mut any = false;
            let mut ls = super::bwd_stream::NO_LISTS;
            loop {
                if super::bwd_stream::lists(t, outer, &idx[..rank], &gi[..no], &mut ls) {
                    any = true;
                    for c in 0..g.ncombo {
                        let mut pos = [0usize; MAX_RANK];
                        loop {
                            let mut off = sbase;
                            let mut wo = 1f32;
                            for a in 0..no {
                                off += ls[a].0[pos[a]] as usize * s.strides[outer[a]];
                                if a == 0 {
                                    wo = ls[a].1[pos[a]];
                                }
                            }
                            let src = if direct {
                                (b.src as *const f32).add(off)
                            } else {
                                if converted != off {
                                    simd::load_contiguous(s.dtype, b.src, off, &mut conv);
                                    converted = off;
                                }
                                conv.as_ptr()
                            };
                            combo(g, c, src, nearest, mo, wo, &mut acc);
                            if !odometer(&mut pos[..no], |a| ls[a].0.len()) {
                                break;
                            }
                        }
                    }
                }
                if !odometer(&mut gi[..no], |a| t.bwd[outer[a]].as_ref().unwrap().groups) {
                    break;
                }
            }
            // The plane is `np` contiguous diff_src elements; 0.0 is all-zero bytes in
            // every type, so planes and elements without a term are zero-filled.
            let dp = b.dst.add(doff * d.dtype.size());
            if !any {
                std::ptr::write_bytes(dp, 0, g.np * d.dtype.size());
                continue;
            }
            // f32 sums go straight into diff_src, others through `out` and a conversion.
            let f32_dst = d.dtype == DataType::F32;
            let o = if f32_dst {
                dp as *mut f32
            } else {
                out.as_mut_ptr()
            };
            if g.live.len() < g.np {
                std::ptr::write_bytes(o, 0, g.np);
            }
            let flat = acc.as_flattened();
            for &(slot, e) in &g.live {
                *o.add(e as usize) = *flat.get_unchecked(slot as usize);
            }
            if !f32_dst {
                simd::store_contiguous(d.dtype, p.numerics, &out, dp);
            }
        }
    }
}
