//! Tiny nearest planes (channels-first): every output of a plane, over all the resampled
//! axes together, is one source element at an offset tabulated at plan time, and planes
//! are walked one after another. The `rows` kernel pays a run's setup per output row (or
//! per plane of H rows), which dominates when the resampled extents are a few elements: an
//! ncdhw plane of 1x1 outputs per (n, c, d) was 17 ns an output (nchw f32 2x256
//! 1x2x2->2x1x1). Raw copies only: the bits moved as they are, or with the bf16 fixup.

use super::Runs;
use crate::core::reference::{Bufs, Tables};
use crate::core::{simd, Direction, Problem, RawCopy, MAX_RANK};

/// Most outputs per plane, and longest output row (elements; bytes for 1-byte types):
/// past them the rows kernel's vectorised row copies win over a per-element table (1
/// thread AVX-512, rows -> gather, us: nchw f32 2x64 8x16x16->16x32x32 295 -> 270, 2x32
/// 8x16x64->16x32x128 453 -> 674; u8 2x64 8x16x16->16x32x32 558 -> 652).
const MAX_PLANE: usize = 1 << 14;
const MAX_ROW: usize = 64;
const MAX_ROW_BYTES: usize = 16;

/// Most outputs per batch of planes (one table walk).
const BATCH: usize = 4096;

#[derive(Clone, Debug)]
pub(crate) struct GatherGeom {
    /// First axis of the plane (the outermost resampled one); the plane is every axis from
    /// it to the last, dense in dst.
    first: usize,
    /// Outputs per plane.
    out_n: usize,
    /// `(axis, planes)`: consecutive planes along `axis` (the innermost outside the plane,
    /// back to back in dst) gathered at once, up to `planes`; `(first, 1)` when none are.
    batch: (usize, usize),
    /// Per output of a batch of planes, in dst order: its source element's offset from the
    /// first plane's source base.
    offs: Vec<u32>,
    /// Planes (the product of the dims outside the plane).
    pub runs: usize,
    raw: RawCopy,
}

impl GatherGeom {
    pub fn outputs(&self) -> usize {
        self.out_n
    }
}

/// The gather geometry when `p` is a forward raw nearest copy resampling an axis outside
/// the last two (2-D planes and rows are the `rows` kernel's plane gathers), over a small
/// plane dense in dst with short rows.
pub(crate) fn plan(p: &Problem, t: &Tables) -> Option<GatherGeom> {
    let (s, d) = (&p.src, &p.dst);
    let raw = p.raw_nearest()?;
    let rank = d.rank();
    if p.direction != Direction::Forward
        || s.is_blocked()
        || d.is_blocked()
        || s.dtype.size() != d.dtype.size()
    {
        return None;
    }
    let first = *t.resampled.first()?;
    let n: usize = d.dims[first..].iter().product();
    let row = d.dims[rank - 1];
    let long = row > MAX_ROW || (d.dtype.size() == 1 && row > MAX_ROW_BYTES);
    // (A resampled axis outside the last two needs rank 3 at least.)
    if first + 2 >= rank || n == 0 || n > MAX_PLANE || long {
        return None;
    }
    // dst dense over the plane (row-major), so a plane's outputs are back to back.
    let mut stride = 1;
    for a in (first..rank).rev() {
        if d.dims[a] > 1 && d.strides[a] != stride {
            return None;
        }
        stride *= d.dims[a];
    }
    // Source offsets per output, row-major over the plane's axes.
    let mut offs = vec![0usize; 1];
    for a in first..rank {
        let src_of = |o: usize| match &t.fwd[a] {
            Some(f) => f.taps(o).0.first().map(|&i| i as usize),
            None => Some(o),
        };
        let col: Vec<usize> = (0..d.dims[a])
            .map(|o| src_of(o)?.checked_mul(s.strides[a]))
            .collect::<Option<_>>()?;
        offs = offs
            .iter()
            .flat_map(|&b| col.iter().map(move |&c| b.checked_add(c)))
            .collect::<Option<_>>()?;
    }
    // Planes along the innermost outer axis follow each other in dst: batched.
    let batch = (0..first)
        .rev()
        .find(|&a| d.dims[a] > 1)
        .filter(|&a| d.strides[a] == n)
        .map_or((first, 1), |a| (a, d.dims[a].min(BATCH / n).max(1)));
    let offs = (0..batch.1)
        .flat_map(|j| {
            let base = j.checked_mul(s.strides[batch.0]);
            offs.iter().map(move |&o| base?.checked_add(o))
        })
        .map(|o| u32::try_from(o?).ok())
        .collect::<Option<Vec<_>>>()?;
    Some(GatherGeom {
        first,
        out_n: n,
        batch,
        offs,
        runs: d.dims[..first].iter().product(),
        raw,
    })
}

/// Planes `start..end`, a batch at a time.
///
/// # Safety
/// Buffers cover the layouts; concurrent calls take disjoint plane ranges.
pub(crate) unsafe fn run(
    p: &Problem,
    t: &Tables,
    g: &GatherGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    let rank = p.dst.rank();
    let sz = p.dst.dtype.size();
    // The plane's axes are walked inside a run (no allocation: calls are microseconds).
    let mut inside = [(0, 1, 0, 0); MAX_RANK];
    for (k, a) in (g.first..rank).enumerate() {
        inside[k].0 = a;
    }
    let mut runs = Runs::new(p, t, &inside[..rank - g.first], start);
    let (a, k) = g.batch;
    let mut r = start;
    while r < end {
        let planes = match k {
            1 => 1,
            _ => k.min(p.dst.dims[a] - runs.pos[a]).min(end - r),
        };
        let n = planes * g.out_n;
        // SAFETY: the caller's contract (the plan checked the buffers): a batch's source
        // elements lie at its first plane's base plus the table's offsets, its outputs back
        // to back from its dst offset, written by this call alone.
        unsafe {
            let dp = b.dst.add(runs.doff * sz);
            simd::gather_raw(sz, b.src.add(runs.sbase * sz), dp, &g.offs[..n]);
            if g.raw == RawCopy::Bf16Onednn {
                simd::bf16_fix(dp, n);
            }
        }
        runs.advance_by(planes);
        r += planes;
    }
}
