//! The plain scalar path: one output element at a time, straight from the tap tables.
//!
//! It is the oracle every optimised kernel is tested against, and the fallback for layouts
//! the fast kernels do not cover (mixed src/dst orders, blocked-to-plain, …). Its operation
//! order is the mimicked implementations' order:
//! - forward: nested reduction, first resampled axis innermost (oneDNN `ref`'s D, H, W lerps);
//! - backward: for each combination of tap groups (first axis outermost), for each output in
//!   those ranges (first axis outermost), `acc += ((dd * w0) * w1) * w2`.

use super::dtype::{load_f32, load_f64, store_f32, DataType};
use super::postops::{binary, eltwise, PostOp};
use super::taps::{BwdTaps, FwdTaps};
use super::{Algorithm, Direction, Problem};

/// Tap tables of every axis (`None` for identity axes).
#[derive(Clone, Debug, Default)]
pub struct Tables {
    pub fwd: Vec<Option<FwdTaps>>,
    pub bwd: Vec<Option<BwdTaps>>,
    /// Axes with a table, in axis order.
    pub resampled: Vec<usize>,
}

/// Raw views of the buffers of one execution; the plan checked their sizes.
#[derive(Clone, Copy)]
pub(crate) struct Bufs<'a> {
    pub src: *const u8,
    pub dst: *mut u8,
    pub bins: &'a [*const u8],
}

// SAFETY: kernels only write disjoint dst elements from different threads, and read src and
// binary inputs, which the caller keeps alive and unaliased for the duration of execute.
unsafe impl Send for Bufs<'_> {}
// SAFETY: as for `Send`: shared use only reads src/bins and writes disjoint dst elements.
unsafe impl Sync for Bufs<'_> {}

/// Runs the whole problem serially with the scalar path.
///
/// # Safety
/// Buffers must be at least the layouts' `span_bytes`; `bins` holds one src1 buffer per
/// binary post-op.
pub(crate) unsafe fn run(p: &Problem, t: &Tables, src: &[u8], dst: &mut [u8], bins: &[&[u8]]) {
    let bin_ptrs: Vec<*const u8> = bins.iter().map(|b| b.as_ptr()).collect();
    let b = Bufs {
        src: src.as_ptr(),
        dst: dst.as_mut_ptr(),
        bins: &bin_ptrs,
    };
    let total: usize = p.dst.padded.iter().product();
    // SAFETY: the caller guarantees the buffer sizes.
    unsafe { run_range(p, t, b, 0, total) };
}

/// Computes dst elements `start..end` of the padded index space (row-major logical order).
///
/// # Safety
/// Buffers must cover the layouts; ranges of concurrent calls must be disjoint.
pub(crate) unsafe fn run_range(p: &Problem, t: &Tables, b: Bufs<'_>, start: usize, end: usize) {
    // SAFETY: the caller guarantees buffers covering the layouts and disjoint ranges across
    // threads; every `idx` visited lies in dst's padded index space.
    unsafe {
        let rank = p.dst.rank();
        let mut idx = [0usize; super::MAX_RANK];
        let mut rem = start;
        for d in (0..rank).rev() {
            idx[d] = rem % p.dst.padded[d];
            rem /= p.dst.padded[d];
        }
        for _ in start..end {
            element(p, t, b, &idx[..rank]);
            for d in (0..rank).rev() {
                idx[d] += 1;
                if idx[d] < p.dst.padded[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
    }
}

/// Computes and stores one dst element.
unsafe fn element(p: &Problem, t: &Tables, b: Bufs<'_>, idx: &[usize]) {
    // SAFETY: `idx` lies in dst's padded index space and the buffers cover both layouts
    // (`run_range`'s contract); src indices come from tap tables bounded by the src dims.
    unsafe {
        let dsz = p.dst.dtype.size();
        let dptr = b.dst.add(p.dst.elem_offset(idx) * dsz);
        if idx.iter().zip(&p.dst.dims).any(|(&i, &n)| i >= n) {
            std::ptr::write_bytes(dptr, 0, dsz);
            return;
        }
        match p.direction {
            Direction::Forward => {
                let mut src_idx = [0usize; super::MAX_RANK];
                src_idx[..idx.len()].copy_from_slice(idx);
                if p.alg == Algorithm::Nearest {
                    for &d in &t.resampled {
                        src_idx[d] = t.fwd[d].as_ref().unwrap().taps(idx[d]).0[0] as usize;
                    }
                    let sptr = b
                        .src
                        .add(p.src.elem_offset(&src_idx[..idx.len()]) * p.src.dtype.size());
                    if p.raw_nearest() == Some(super::RawCopy::Bits) {
                        std::ptr::copy_nonoverlapping(sptr, dptr, dsz);
                    } else {
                        let v = load_f32(sptr, p.src.dtype);
                        store_f32(
                            dptr,
                            p.dst.dtype,
                            post_ops(p, v, dptr, idx, b.bins),
                            p.numerics,
                        );
                    }
                } else {
                    let v = fwd_reduce(p, t, b.src, idx, &mut src_idx, t.resampled.len());
                    store_f32(
                        dptr,
                        p.dst.dtype,
                        post_ops(p, v, dptr, idx, b.bins),
                        p.numerics,
                    );
                }
            }
            Direction::Backward => {
                if p.dst.dtype == DataType::F64 {
                    let v = bwd_gather::<f64>(p, t, b.src, idx);
                    (dptr as *mut f64).write_unaligned(v);
                } else {
                    let v = bwd_gather::<f32>(p, t, b.src, idx);
                    store_f32(dptr, p.dst.dtype, v, p.numerics);
                }
            }
        }
    }
}

/// Nested weighted reduction over resampled axes `t.resampled[..level]`, outermost last.
unsafe fn fwd_reduce(
    p: &Problem,
    t: &Tables,
    src: *const u8,
    out_idx: &[usize],
    src_idx: &mut [usize; super::MAX_RANK],
    level: usize,
) -> f32 {
    // SAFETY: `src` covers the src layout (the caller's contract) and every index comes from
    // forward tap tables bounded by the src dims.
    unsafe {
        if level == 0 {
            let off = p.src.elem_offset(&src_idx[..out_idx.len()]);
            return load_f32(src.add(off * p.src.dtype.size()), p.src.dtype);
        }
        let d = t.resampled[level - 1];
        let (ii, ww) = t.fwd[d].as_ref().unwrap().taps(out_idx[d]);
        let mut acc = 0.0f32;
        for (k, (&i, &w)) in ii.iter().zip(ww).enumerate() {
            src_idx[d] = i as usize;
            let v = fwd_reduce(p, t, src, out_idx, src_idx, level - 1) * w;
            acc = if k == 0 { v } else { acc + v };
        }
        acc
    }
}

/// Accumulator type of a backward gather (f32, or f64 for f64 tensors).
pub(crate) trait Acc:
    Copy + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self>
{
    const ZERO: Self;
    unsafe fn load(p: *const u8, dt: DataType) -> Self;
    fn weight(w: f32) -> Self;
}

impl Acc for f32 {
    const ZERO: Self = 0.0;
    unsafe fn load(p: *const u8, dt: DataType) -> Self {
        // SAFETY: `p` points to a readable element of type `dt` (the caller's contract).
        unsafe { load_f32(p, dt) }
    }
    fn weight(w: f32) -> Self {
        w
    }
}

impl Acc for f64 {
    const ZERO: Self = 0.0;
    unsafe fn load(p: *const u8, dt: DataType) -> Self {
        // SAFETY: `p` points to a readable element of type `dt` (the caller's contract).
        unsafe { load_f64(p, dt) }
    }
    fn weight(w: f32) -> Self {
        w as f64
    }
}

/// Gathers one diff_src element from diff_dst.
unsafe fn bwd_gather<A: Acc>(p: &Problem, t: &Tables, src: *const u8, idx: &[usize]) -> A {
    // SAFETY: `src` covers the diff_dst layout (the caller's contract) and every index comes from
    // backward tap lists bounded by its dims.
    unsafe {
        let ra = &t.resampled;
        let m = ra.len();
        let rank = idx.len();
        let ssz = p.src.dtype.size();
        if m == 0 {
            // No resampled axis: backward is a conversion.
            return A::load(src.add(p.src.elem_offset(idx) * ssz), p.src.dtype);
        }
        let tab = |a: usize| t.bwd[ra[a]].as_ref().unwrap();
        let nearest = p.alg == Algorithm::Nearest;
        let mut acc = A::ZERO;
        let mut g = [0usize; super::MAX_RANK];
        loop {
            // One combination of groups: walk the product of their output lists.
            let mut lists: [(&[u32], &[f32]); super::MAX_RANK] = [(&[], &[]); super::MAX_RANK];
            for a in 0..m {
                lists[a] = tab(a).group(idx[ra[a]], g[a]);
            }
            if lists[..m].iter().all(|l| !l.0.is_empty()) {
                let mut pos = [0usize; super::MAX_RANK];
                let mut sidx = [0usize; super::MAX_RANK];
                sidx[..rank].copy_from_slice(idx);
                loop {
                    for a in 0..m {
                        sidx[ra[a]] = lists[a].0[pos[a]] as usize;
                    }
                    let mut v =
                        A::load(src.add(p.src.elem_offset(&sidx[..rank]) * ssz), p.src.dtype);
                    if !nearest {
                        for a in 0..m {
                            v = v * A::weight(lists[a].1[pos[a]]);
                        }
                    }
                    acc = acc + v;
                    if !odometer(&mut pos[..m], |a| lists[a].0.len()) {
                        break;
                    }
                }
            }
            if !odometer(&mut g[..m], |a| tab(a).groups) {
                return acc;
            }
        }
    }
}

/// Odometer step, last position fastest; false when it wraps around.
#[inline]
pub(crate) fn odometer(pos: &mut [usize], len: impl Fn(usize) -> usize) -> bool {
    for a in (0..pos.len()).rev() {
        pos[a] += 1;
        if pos[a] < len(a) {
            return true;
        }
        pos[a] = 0;
    }
    false
}

/// Applies the post-op chain to `res` for the dst element at logical `idx`.
///
/// # Safety
/// `dptr` must be the element's dst address; binary buffers must cover their layouts.
#[inline]
pub(crate) unsafe fn post_ops(
    p: &Problem,
    mut res: f32,
    dptr: *const u8,
    idx: &[usize],
    bins: &[*const u8],
) -> f32 {
    // SAFETY: `dptr` is the element's dst address and each binary buffer covers its layout (the
    // caller's contract); broadcast indices `i1` stay within src1's dims.
    unsafe {
        let mut bin = 0;
        for op in &p.post_ops {
            match op {
                PostOp::Sum { scale, zero_point } => {
                    res += scale * (load_f32(dptr, p.dst.dtype) - *zero_point as f32);
                }
                PostOp::Eltwise {
                    alg,
                    alpha,
                    beta,
                    scale,
                } => {
                    res = scale * eltwise(*alg, res, *alpha, *beta);
                }
                PostOp::Binary { op, src1 } => {
                    let mut i1 = [0usize; super::MAX_RANK];
                    for d in 0..idx.len() {
                        i1[d] = if src1.dims[d] == 1 { 0 } else { idx[d] };
                    }
                    let off = src1.elem_offset(&i1[..idx.len()]) * src1.dtype.size();
                    res = binary(*op, res, load_f32(bins[bin].add(off), src1.dtype));
                    bin += 1;
                }
            }
        }
        res
    }
}
