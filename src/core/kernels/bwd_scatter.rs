//! Backward of forward downsampling over small planes, by scattering diff_dst.
//!
//! When diff_src is larger than diff_dst, most of its elements sum one term or none, and a
//! per-element gather (the plane walk, `bwd_tiny`) spends its time on elements and steps
//! that add nothing. Here a plane is zeroed and each diff_dst element, in output order, is
//! added into the diff_src elements that read it: `acc[e] += ((dd * w_a0) * w_a1) * w_a2`.
//!
//! The reference sums an element's terms by group combination (each axis' tap position),
//! then by output position; the scatter by output position, then tap. The two orders agree
//! for every element when each input is always the same tap (forward ratios of 2 and more,
//! nearest), or its taps come from one output (a zero-weight second tap on the same input):
//! then the operations and their order are the reference's, so the bits are too. Where
//! they do not (ratios below 2: an input is the second tap of one output and the first of
//! the next), the scatter runs group-major instead, a pass over diff_dst per group
//! combination adding only that combination's taps, which is the reference's order. The
//! plan replays both orders for every element of a plane and takes the problem only if
//! they are the same.

use super::super::aligned::AlignedBuf;
use super::super::dtype::DataType;
use super::super::reference::{odometer, Bufs, Tables};
use super::super::simd;
use super::super::{Algorithm, Direction, Problem, MAX_RANK};
use super::Runs;

/// Largest plane (diff_src elements): the accumulator stays in the L2 cache.
const MAX_PLANE: usize = 1 << 16;
/// Planes taken whatever their terms (with rows up to [`MAX_ROW`]): the accumulator stays
/// in the L1 cache.
const SMALL_PLANE: usize = 4096;
/// Largest term table (20 bytes a term): it is re-read for every plane.
const MAX_TERMS: usize = 1 << 16;
/// Longest diff_src row of a plane whatever its terms; longer rows only with few terms.
const MAX_ROW: usize = 64;

/// Most lanes of a channels-last plane: from 8 lanes on, `bwd_tiny` and the laned row walk
/// vectorise over them.
const MAX_LANES: usize = 7;

#[derive(Clone, Debug)]
pub(crate) struct ScatterGeom {
    /// diff_src elements of a plane (the resampled axes, the last `m`, times the lanes).
    np: usize,
    /// Elements per pixel: 1, or the lanes of an identity axis innermost in both
    /// tensors (channels-last), summed side by side.
    lanes: usize,
    /// That axis.
    lane: Option<usize>,
    /// Per term, in output order: diff_dst offset from the plane's base, diff_src element
    /// of the plane, and its weights (axis order; `m` used, 0 for nearest). Offsets are
    /// below `span` and elements below `np` (the kernel indexes unchecked).
    terms: Vec<(u32, u32)>,
    w: Vec<[f32; 3]>,
    m: usize,
    /// diff_dst elements a plane spans from its base (converted to f32 when not f32).
    span: usize,
    pub runs: usize,
}

impl ScatterGeom {
    /// Terms of one run (for the thread grain).
    pub fn run_cost(&self) -> usize {
        (self.terms.len() + self.np).max(1)
    }
}

/// The geometry, or `None` when `p` is not a backward problem over small dense planes
/// whose diff_src exceeds diff_dst and whose elements see their terms in the same order.
pub(crate) fn plan(p: &Problem, t: &Tables) -> Option<ScatterGeom> {
    let (s, d) = (&p.src, &p.dst);
    let rank = d.rank();
    let ra = &t.resampled;
    let m = ra.len();
    if p.direction != Direction::Backward
        || !p.post_ops.is_empty()
        || s.dtype == DataType::F64
        || d.dtype == DataType::F64
        || !(1..=3).contains(&m)
        || (0..rank).any(|a| s.blocks[a] > 1 || d.blocks[a] > 1)
    {
        return None;
    }
    // The resampled axes last (planar), or a short identity axis innermost in both
    // tensors (channels-last: its lanes summed side by side).
    let lane = (0..rank)
        .find(|&a| !ra.contains(&a) && d.dims[a] > 1 && d.strides[a] == 1 && s.strides[a] == 1);
    let lanes = lane.map_or(1, |a| d.dims[a]);
    let w = ra[m - 1];
    if lanes > MAX_LANES
        || (lane.is_none() && ra.iter().enumerate().any(|(k, &a)| a != rank - m + k))
        || s.strides[w] != lanes
    {
        return None;
    }
    // diff_src planes are dense: element `e` of a plane is `e` elements from its base.
    let mut step = lanes;
    for &a in ra.iter().rev() {
        if d.dims[a] > 1 && d.strides[a] != step {
            return None;
        }
        step = step.checked_mul(d.dims[a])?;
    }
    let np = step;
    let ndd = ra
        .iter()
        .try_fold(lanes, |n, &a| n.checked_mul(s.dims[a]))?;
    // Laned planes may outgrow the L2 cache: zeroing and the adds in output order walk
    // them about in order. The row walk is slower up to here (see `take`; nhwc f32 2x3
    // 224x224 <- 112x112 nearest, 150K elements: 0.31 there, 0.125 here, PyTorch 0.22),
    // not beyond (2x4 1000x60 <- 500x30 linear, 240K: 0.84 there, 0.96 here).
    let max = if lanes > 1 { 3 * MAX_PLANE } else { MAX_PLANE };
    if np > max || np <= ndd || ndd == 0 {
        return None;
    }
    // Per axis, the inputs each output reads, in tap order: `inv[k][o]`.
    let mut inv: Vec<Inverse> = Vec::with_capacity(m);
    for &a in ra {
        let tab = t.bwd[a].as_ref()?;
        let mut per = vec![Vec::new(); s.dims[a]];
        for i in 0..d.dims[a] {
            for g in 0..tab.groups {
                let (outs, ws) = tab.group(i, g);
                for (&o, &w) in outs.iter().zip(ws) {
                    let list: &mut Vec<(u32, u32, f32)> = per.get_mut(o as usize)?;
                    list.push((g as u32, i as u32, w));
                }
            }
        }
        for list in &mut per {
            list.sort_by_key(|x| x.0);
        }
        inv.push(per);
    }
    let nearest = p.alg == Algorithm::Nearest;
    let mut g = ScatterGeom {
        np,
        lanes,
        terms: Vec::new(),
        w: Vec::new(),
        m: if nearest { 0 } else { m },
        span: 0,
        lane,
        runs: (0..rank)
            .filter(|&a| !ra.contains(&a) && Some(a) != lane)
            .try_fold(1usize, |n, a| n.checked_mul(d.dims[a]))?,
    };
    // Beyond the small planes, measured against the row and plane walks (nchw f32 8x16,
    // ms there / here): linear 2-D wins where most elements get no term (184x82 <- 61x27
    // 1.22 / 0.79, 200x200 <- 50x50 1.90 / 1.58) and loses where each gets one (112x112 <-
    // 56x56 0.87 / 1.43, 1000x60 <- 500x30 5.95 / 7.79) or rows are long (150x150 <- 50x50
    // 1.34 / 1.40); linear 3-D (rows up to 64) wins unless fewer than a third of the
    // elements get a term (16x40x40 <- 8x20x20 5.28 / 3.26, 20^3 <- 10^3 1.32 / 0.93; but
    // 30^3 <- 10^3 1.94 / 2.09, 24^3 <- 8^3 0.86 / 0.98); nearest wins up to planes of
    // about 16K elements (184x82 <- 61x27 0.82 / 0.24, 112x112 <- 56x56 0.60 / 0.35;
    // 224x224 <- 112x112 1.47 / 1.98).
    // (Decided before the terms are built: every order has the same terms.)
    let terms = inv.iter().try_fold(1usize, |n, per| {
        n.checked_mul(per.iter().map(Vec::len).sum())
    })?;
    // (Pixels: the lanes of one sum side by side.)
    let (np, row) = (np / lanes, d.dims[w]);
    let dense = 2 * terms >= np;
    let take = if terms > MAX_TERMS {
        false
    } else if lanes > 1 {
        // Channels-last planes of a few lanes: the laned row walk pays its setup per pixel
        // and pass (nhwc f32, 1 thread, ms there / here, PyTorch): 2x3 30^3 <- 10^3 linear
        // 0.32 / 0.085 (0.13), 8x3 112x112 <- 56x56 linear 0.70 / 0.49 (0.78), nearest
        // 0.35 / 0.11 (0.22), 4x3 150x150 <- 50x50 linear 0.75 / 0.18 (0.33), 8x3
        // 12x15x13 <- 4x5x26 nearest 0.10 / 0.019 (0.054). Planes beyond the planar limit
        // only two or more at a time: a plane is one run, and the row walk splits long rows
        // between the threads.
        np * lanes <= MAX_PLANE || g.runs >= 2
    } else if np <= SMALL_PLANE && row <= MAX_ROW {
        true
    } else if nearest {
        row <= MAX_ROW || np <= 1 << 14
    } else if row <= MAX_ROW {
        if m == 3 {
            3 * terms >= np
        } else {
            !dense
        }
    } else {
        !dense && (row <= 2 * MAX_ROW || 3 * terms < np)
    };
    if !take {
        return None;
    }
    // Group-major passes (forward ratios below 2, taps overlapping) against the plane walk
    // and bwd_tiny (nchw f32, ms there / here): 3-D 2x32 27x31x27 <- 14x10x9 1.10 / 0.67,
    // 8x16 16x40x40 <- 10x25x25 7.88 / 6.28, 8x64 60x60 <- 45x45 5.37 / 4.12, 40x40 <-
    // 25x25 1.28 / 1.14; but at more than 2.25 terms an element 30x30 <- 25x25 0.97 / 1.09,
    // 3-D 4x30x30 <- 3x25x25 6.63 / 7.35, and on tiny planes 8x64 12x12 <- 9x9 0.130 /
    // 0.145.
    let group_ok = 4 * terms <= 9 * np && (m == 1 || np > 256);
    // Output-major (each diff_dst element once, all its terms) where that is the
    // reference's order for every element, else group-major (the reference's order by
    // construction: a pass over diff_dst per group combination).
    for group_major in [false, true] {
        if group_major && !group_ok {
            return None;
        }
        g.terms.clear();
        g.w.clear();
        g.span = 0;
        terms_in_order(t, s, d, ra, &inv, group_major, &mut g)?;
        if same_order(t, ra, d, s, &g) {
            return Some(g);
        }
    }
    None
}

/// Per output of one axis, the inputs it reads: (group, input, weight), by group.
type Inverse = Vec<Vec<(u32, u32, f32)>>;

/// Fills `g`'s terms (and its diff_dst span): outputs in row-major order, each output's
/// inputs as a product of the axes' lists (`inv[k][o]`, sorted by group); with
/// `group_major`, one such pass per group combination (axis order, last fastest) taking
/// only that combination's entries. `None` where an offset outgrows `u32`.
fn terms_in_order(
    t: &Tables,
    s: &super::super::Layout,
    d: &super::super::Layout,
    ra: &[usize],
    inv: &[Inverse],
    group_major: bool,
    g: &mut ScatterGeom,
) -> Option<()> {
    let m = ra.len();
    let mut gi = [0usize; MAX_RANK];
    loop {
        let mut o = [0usize; MAX_RANK];
        loop {
            let doff: usize = (0..m).map(|k| o[k] * s.strides[ra[k]]).sum();
            let mut lists: [&[(u32, u32, f32)]; MAX_RANK] = [&[]; MAX_RANK];
            for k in 0..m {
                let l = &inv[k][o[k]][..];
                lists[k] = if group_major {
                    let a = l.partition_point(|x| (x.0 as usize) < gi[k]);
                    let b = l.partition_point(|x| (x.0 as usize) <= gi[k]);
                    &l[a..b]
                } else {
                    l
                };
            }
            if lists[..m].iter().all(|l| !l.is_empty()) {
                let mut q = [0usize; MAX_RANK];
                loop {
                    let mut e = 0;
                    let mut w = [1f32; 3];
                    for k in 0..m {
                        let (_, i, wk) = lists[k][q[k]];
                        e += i as usize * d.strides[ra[k]];
                        w[k] = wk;
                    }
                    g.terms.push((u32::try_from(doff).ok()?, e as u32));
                    g.w.push(w);
                    if !odometer(&mut q[..m], |k| lists[k].len()) {
                        break;
                    }
                }
            }
            g.span = g.span.max(doff + g.lanes);
            if !odometer(&mut o[..m], |k| s.dims[ra[k]]) {
                break;
            }
        }
        if !group_major || !odometer(&mut gi[..m], |k| t.bwd[ra[k]].as_ref().unwrap().groups) {
            return Some(());
        }
    }
}

/// Whether every diff_src element receives its terms in the reference's order: group
/// combinations (axis order), then output positions (axis order). Replays both orders of
/// every element (terms as (diff_dst offset, weights)) and compares them.
fn same_order(
    t: &Tables,
    ra: &[usize],
    d: &super::super::Layout,
    s: &super::super::Layout,
    g: &ScatterGeom,
) -> bool {
    let m = ra.len();
    let mut got: Vec<Vec<(u32, [u32; 3])>> = vec![Vec::new(); g.np];
    for (&(so, e), w) in g.terms.iter().zip(&g.w) {
        got[e as usize].push((so, w.map(f32::to_bits)));
    }
    let tabs: Vec<_> = ra.iter().map(|&a| t.bwd[a].as_ref().unwrap()).collect();
    let mut i = [0usize; MAX_RANK];
    let mut want = Vec::new();
    loop {
        let e: usize = (0..m).map(|k| i[k] * d.strides[ra[k]]).sum();
        want.clear();
        let mut gi = [0usize; MAX_RANK];
        loop {
            let lists: Vec<_> = (0..m).map(|k| tabs[k].group(i[k], gi[k])).collect();
            if lists.iter().all(|l| !l.0.is_empty()) {
                let mut q = [0usize; MAX_RANK];
                loop {
                    let mut so = 0;
                    let mut w = [1f32.to_bits(); 3];
                    for k in 0..m {
                        so += lists[k].0[q[k]] as usize * s.strides[ra[k]];
                        w[k] = lists[k].1[q[k]].to_bits();
                    }
                    want.push((so as u32, w));
                    if !odometer(&mut q[..m], |k| lists[k].0.len()) {
                        break;
                    }
                }
            }
            if !odometer(&mut gi[..m], |k| tabs[k].groups) {
                break;
            }
        }
        if got[e] != want {
            return false;
        }
        if !odometer(&mut i[..m], |k| d.dims[ra[k]]) {
            break;
        }
    }
    true
}

/// `acc[e] += ((x[so] * w0) * w1) * w2` over the terms, with `M` weights.
///
/// # Safety
/// Every term's `so` is below `x.len()` and `e` below `acc.len()` (the plan's: offsets
/// within the span, elements within the plane).
#[inline(always)]
unsafe fn scatter<const M: usize>(
    x: &[f32],
    terms: &[(u32, u32)],
    w: &[[f32; 3]],
    acc: &mut [f32],
) {
    for (&(so, e), w) in terms.iter().zip(w) {
        debug_assert!((so as usize) < x.len() && (e as usize) < acc.len());
        // SAFETY: the caller's (checked indexing here cost a sixth of the loop).
        unsafe {
            let mut v = *x.get_unchecked(so as usize);
            for &wk in &w[..M] {
                v *= wk;
            }
            *acc.get_unchecked_mut(e as usize) += v;
        }
    }
}

/// [`scatter`] over pixels of `lanes` elements: each term adds its diff_dst pixel's lanes
/// into its diff_src pixel's, lane by lane the same operations.
///
/// # Safety
/// Every term's `so + lanes` is at most `x.len()` and `e + lanes` at most `acc.len()`.
#[inline(always)]
unsafe fn scatter_lanes<const M: usize>(
    x: &[f32],
    terms: &[(u32, u32)],
    w: &[[f32; 3]],
    acc: &mut [f32],
    lanes: usize,
) {
    for (&(so, e), w) in terms.iter().zip(w) {
        let (so, e) = (so as usize, e as usize);
        debug_assert!(so + lanes <= x.len() && e + lanes <= acc.len());
        for l in 0..lanes {
            // SAFETY: the caller's.
            unsafe {
                let mut v = *x.get_unchecked(so + l);
                for &wk in &w[..M] {
                    v *= wk;
                }
                *acc.get_unchecked_mut(e + l) += v;
            }
        }
    }
}

/// Most diff_src elements (and converted diff_dst elements) per batch of planes: batches
/// stay in L1.
const BATCH: usize = 4096;

/// Runs `start..end` (one plane each).
///
/// Planes that follow each other along the innermost other axis (diff_src planes back to
/// back, diff_dst ones at a fixed step) go as one batch: one zeroing, one conversion and
/// one store for all of them instead of a run each (nchw f32 8x256 2x2 <- 1x1 nearest:
/// 10 ns a plane was all per-run overhead; PyTorch 5.8).
///
/// # Safety
/// Buffers must cover the layouts; run ranges of concurrent calls must be disjoint.
pub(crate) unsafe fn run(
    p: &Problem,
    t: &Tables,
    g: &ScatterGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let (s, d) = (&p.src, &p.dst);
        // The plane's axes (the lanes' too) are inside a run.
        let mut ov = [(0, 1, 0, 0); MAX_RANK];
        let m = t.resampled.len();
        for (o, &a) in ov.iter_mut().zip(&t.resampled) {
            o.0 = a;
        }
        let n_ov = match g.lane {
            Some(a) => {
                ov[m].0 = a;
                m + 1
            }
            None => m,
        };
        let mut runs = Runs::new(p, t, &ov[..n_ov], start);
        let direct_src = s.dtype == DataType::F32 && (b.src as usize).is_multiple_of(4);
        // Streamed planes go out through scratch (accumulated in place, each plane's lines
        // would be read from memory first).
        let stream = crate::core::streaming::now();
        let direct_dst = d.dtype == DataType::F32 && (b.dst as usize).is_multiple_of(4) && !stream;
        let mut conv = AlignedBuf::<f32>::zeroed(if direct_src { 0 } else { g.span });
        let mut out = AlignedBuf::<f32>::zeroed(if direct_dst { 0 } else { g.np });
        let inner = (0..d.rank())
            .rev()
            .find(|&a| runs.ext[a] > 1 && runs.dstr[a] == g.np);
        let mut r = start;
        while r < end {
            let (doff, sbase) = (runs.doff, runs.sbase);
            let (mut n, mut sstep) = (1, 0);
            if let Some(a) = inner {
                sstep = runs.sstr[a];
                n = (runs.ext[a] - runs.pos[a])
                    .min(end - r)
                    .min((BATCH / g.np).max(1));
                if !direct_src && sstep > 0 {
                    n = n.min((BATCH.saturating_sub(g.span) / sstep + 1).max(1));
                }
            }
            runs.advance_by(n);
            r += n;
            let len = (n - 1) * sstep + g.span;
            let x: &[f32] = if direct_src {
                std::slice::from_raw_parts((b.src as *const f32).add(sbase), len)
            } else {
                if conv.len() < len {
                    conv.resize(len);
                }
                simd::load_contiguous(s.dtype, b.src, sbase, &mut conv[..len]);
                &conv[..len]
            };
            let acc: &mut [f32] = if direct_dst {
                std::slice::from_raw_parts_mut((b.dst as *mut f32).add(doff), n * g.np)
            } else {
                if out.len() < n * g.np {
                    out.resize(n * g.np);
                }
                &mut out[..n * g.np]
            };
            acc.fill(0.0);
            for (j, acc) in acc.chunks_exact_mut(g.np).enumerate() {
                let x = &x[j * sstep..];
                match (g.m, g.lanes) {
                    (0, 1) => scatter::<0>(x, &g.terms, &g.w, acc),
                    (1, 1) => scatter::<1>(x, &g.terms, &g.w, acc),
                    (2, 1) => scatter::<2>(x, &g.terms, &g.w, acc),
                    (_, 1) => scatter::<3>(x, &g.terms, &g.w, acc),
                    (0, l) => scatter_lanes::<0>(x, &g.terms, &g.w, acc, l),
                    (1, l) => scatter_lanes::<1>(x, &g.terms, &g.w, acc, l),
                    (2, l) => scatter_lanes::<2>(x, &g.terms, &g.w, acc, l),
                    (_, l) => scatter_lanes::<3>(x, &g.terms, &g.w, acc, l),
                }
            }
            if !direct_dst {
                let at = b.dst.add(doff * d.dtype.size());
                simd::store_contiguous_as(stream, d.dtype, p.numerics, &out[..n * g.np], at);
            }
        }
        if stream {
            // The streamed stores must be visible before this chunk is reported done.
            simd::store_fence();
        }
    }
}
