//! Backward nearest where every diff_src element sums at most one term (forward
//! downsampling, or any ratio that reads no input twice), along a unit-stride resampled last
//! axis: a diff_src row is zero, or one diff_dst row spread out, `0 + dd` where an output
//! read the element and `0` elsewhere (the reference's one term added to zero: -0 becomes
//! +0). Each row is written once, front to back, streamed when the output streams; the
//! scatter zeroed each plane, added into it and copied it out (nchw f32 8x64 112x112 <-
//! 56x56: 61% of its time in the scalar adds).
//!
//! Along the row the sources of a vector of diff_src columns are consecutive diff_dst
//! columns (the forward mapping is monotone and, reading no input twice, one to one), so a
//! vector is one window of diff_dst permuted, the columns no output reads masked to zero.

use super::super::aligned::AlignedBuf;
use super::super::dtype::DataType;
use super::super::reference::{Bufs, Tables};
use super::super::simd::{self, Isa};
use super::super::{Algorithm, Direction, Problem};
use super::Runs;

/// A column no output reads.
const NONE: u32 = u32::MAX;

/// Shortest diff_src row taken: shorter rows cost more per row than the scatter's batches
/// of small planes (1 thread, Zen 4, nchw f32 8x64, us, scatter / here: 2x 24x24 52 / 82,
/// 32x32 91 / 106; 48x48 254 / 183, 96x96 <- 64x64 1946 / 868).
const MIN_ROW: usize = 48;

/// One vector of diff_src columns: its diff_dst window and, per lane, the window position
/// it takes (lanes of `mask` only; the rest are zero).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(crate) struct Block {
    idx: [u32; 16],
    start: u32,
    /// Window lanes inside the diff_dst row.
    wlen: u32,
    mask: u16,
}

#[derive(Clone, Debug)]
pub(crate) struct ExpandGeom {
    /// Per axis before the last: the diff_dst index each diff_src index takes its row from
    /// (`NONE`: a zero row), for the resampled ones.
    rows_of: Vec<Option<Vec<u32>>>,
    /// Per diff_src column of the row: its diff_dst column or `NONE`.
    cols: Vec<u32>,
    /// The row in vectors of `lanes` columns (16 AVX-512, 8 AVX2; none elsewhere).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    blocks: Vec<Block>,
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    lanes: usize,
    /// diff_dst row length.
    w_in: usize,
    pub runs: usize,
}

impl ExpandGeom {
    pub fn run_cost(&self) -> usize {
        self.cols.len()
    }
}

/// For each index of `axis` in diff_src, the diff_dst index it takes (or `NONE`), when no
/// index takes more than one.
fn sources(t: &Tables, axis: usize, n: usize) -> Option<Vec<u32>> {
    let b = t.bwd[axis].as_ref()?;
    if b.groups != 1 {
        return None;
    }
    (0..n)
        .map(|i| match b.group(i, 0).0 {
            [] => Some(NONE),
            &[o] => Some(o),
            _ => None,
        })
        .collect()
}

/// The geometry, or `None` when `p` is not a nearest backward whose diff_src elements each
/// read at most one diff_dst element, with a resampled unit-stride last axis in both.
pub(crate) fn plan(p: &Problem, t: &Tables) -> Option<ExpandGeom> {
    let (s, d) = (&p.src, &p.dst);
    let rank = d.rank();
    let w = rank.checked_sub(1)?;
    if p.direction != Direction::Backward
        || p.alg != Algorithm::Nearest
        || !p.post_ops.is_empty()
        || s.dtype == DataType::F64
        || d.dtype == DataType::F64
        || s.is_blocked()
        || d.is_blocked()
        || t.bwd[w].is_none()
        || s.strides[w] != 1
        || d.strides[w] != 1
        || d.dims[w] < MIN_ROW
        // Same extents with no input read twice is the identity: `bwd_stream`'s flat walk
        // takes it in one pass.
        || s.dims == d.dims
    {
        return None;
    }
    let cols = sources(t, w, d.dims[w])?;
    let mut rows_of = Vec::with_capacity(w);
    for a in 0..w {
        rows_of.push(match t.bwd[a] {
            Some(_) => Some(sources(t, a, d.dims[a])?),
            None => None,
        });
    }
    let lanes = match simd::isa() {
        Isa::Avx512 => 16,
        Isa::Avx2 => 8,
        Isa::Base | Isa::Neon => 0,
    };
    let w_in = s.dims[w];
    let mut blocks = Vec::new();
    if lanes > 0 {
        for chunk in cols.chunks(lanes) {
            let mut srcs = chunk.iter().filter(|&&o| o != NONE);
            let start = srcs.clone().min().copied().unwrap_or(0);
            // Consecutive columns in one window (a mapping that is not monotone would
            // spread them further: not taken).
            if srcs.any(|&o| o - start >= lanes as u32) {
                return None;
            }
            let mut b = Block {
                idx: [0; 16],
                start,
                wlen: (w_in as u32 - start).min(lanes as u32),
                mask: 0,
            };
            for (l, &o) in chunk.iter().enumerate() {
                if o != NONE {
                    b.idx[l] = o - start;
                    b.mask |= 1 << l;
                }
            }
            blocks.push(b);
        }
    }
    let runs = d.dims[..w]
        .iter()
        .try_fold(1usize, |n, &k| n.checked_mul(k))?;
    Some(ExpandGeom {
        rows_of,
        cols,
        blocks,
        lanes,
        w_in,
        runs,
    })
}

/// Rows `start..end` of diff_src.
///
/// # Safety
/// Buffers must cover the layouts; row ranges of concurrent calls must be disjoint.
pub(crate) unsafe fn run(
    p: &Problem,
    t: &Tables,
    g: &ExpandGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let (s, d) = (&p.src, &p.dst);
        let w = d.rank() - 1;
        let n = g.cols.len();
        let dsz = d.dtype.size();
        let mut runs = Runs::new(p, t, &[(w, 1, 0, 0)], start);
        let stream = crate::core::streaming::now();
        let direct_src = s.dtype == DataType::F32 && (b.src as usize).is_multiple_of(4);
        let direct_dst = d.dtype == DataType::F32 && (b.dst as usize).is_multiple_of(4);
        let mut conv = AlignedBuf::<f32>::zeroed(if direct_src { 0 } else { g.w_in });
        let mut out = AlignedBuf::<f32>::zeroed(0);
        // Zero rows back to back in dst are zeroed together: (first byte, bytes).
        let mut zeros: (*mut u8, usize) = (b.dst, 0);
        let flush = |(at, bytes): (*mut u8, usize)| match stream {
            _ if bytes == 0 => {}
            true => simd::stream_zero(at, bytes),
            false => std::ptr::write_bytes(at, 0, bytes),
        };
        for _ in start..end {
            let at = b.dst.add(runs.doff * dsz);
            let mut soff = Some(runs.sbase);
            for (a, rows) in g.rows_of.iter().enumerate() {
                if let (Some(rows), Some(o)) = (rows, soff) {
                    let j = rows[runs.pos[a]];
                    soff = (j != NONE).then(|| o + j as usize * s.strides[a]);
                }
            }
            match soff {
                None if zeros.1 > 0 && zeros.0.wrapping_add(zeros.1) == at => zeros.1 += n * dsz,
                None => {
                    flush(zeros);
                    zeros = (at, n * dsz);
                }
                Some(so) => {
                    flush(zeros);
                    zeros.1 = 0;
                    let row = if direct_src {
                        (b.src as *const f32).add(so)
                    } else {
                        simd::load_contiguous(s.dtype, b.src, so, &mut conv[..g.w_in]);
                        conv.as_ptr()
                    };
                    if direct_dst && !stream {
                        spread(g, row, at as *mut f32);
                    } else {
                        // Through scratch at dst's offset within a line (streamed f32 rows
                        // then copy line for line), converted or streamed as the store says.
                        let o = simd::scratch_like(&mut out, at, n);
                        spread(g, row, o);
                        let vals = std::slice::from_raw_parts(o, n);
                        simd::store_contiguous_as(stream, d.dtype, p.numerics, vals, at);
                    }
                }
            }
            runs.advance();
        }
        flush(zeros);
        if stream {
            // The streamed stores must be visible before this chunk is reported done.
            simd::store_fence();
        }
    }
}

/// The diff_src row from diff_dst row `row` into `out`.
///
/// # Safety
/// `row` holds the diff_dst row, `out` room for the diff_src one.
unsafe fn spread(g: &ExpandGeom, row: *const f32, out: *mut f32) {
    // SAFETY: the caller's; the vector variants run only under the ISA the plan chose its
    // block width for (`isa()` is the plan's).
    unsafe {
        #[cfg(target_arch = "x86_64")]
        match g.lanes {
            16 => return x86::spread16(g, row, out),
            8 => return x86::spread8(g, row, out),
            _ => {}
        }
        for (x, &o) in g.cols.iter().enumerate() {
            *out.add(x) = if o == NONE {
                0.0
            } else {
                0.0 + *row.add(o as usize)
            };
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::ExpandGeom;
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn spread16(g: &ExpandGeom, row: *const f32, out: *mut f32) {
        // SAFETY: AVX-512F (the plan's ISA); each window is masked to the row, each store
        // to the row's columns.
        unsafe {
            let zero = _mm512_setzero_ps();
            let n = g.cols.len();
            for (k, b) in g.blocks.iter().enumerate() {
                let win =
                    _mm512_maskz_loadu_ps(((1u32 << b.wlen) - 1) as u16, row.add(b.start as usize));
                let idx = _mm512_load_si512(b.idx.as_ptr() as *const _);
                let v = _mm512_add_ps(zero, _mm512_maskz_permutexvar_ps(b.mask, idx, win));
                let x = 16 * k;
                if x + 16 <= n {
                    _mm512_storeu_ps(out.add(x), v);
                } else {
                    _mm512_mask_storeu_ps(out.add(x), ((1u32 << (n - x)) - 1) as u16, v);
                }
            }
        }
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn spread8(g: &ExpandGeom, row: *const f32, out: *mut f32) {
        // SAFETY: AVX2 (the plan's ISA); each window is masked to the row, each store to
        // the row's columns.
        unsafe {
            let zero = _mm256_setzero_ps();
            let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            let n = g.cols.len();
            for (k, b) in g.blocks.iter().enumerate() {
                let below = |m: u32| _mm256_cmpgt_epi32(_mm256_set1_epi32(m as i32), lane);
                let win = _mm256_maskload_ps(row.add(b.start as usize), below(b.wlen));
                let idx = _mm256_loadu_si256(b.idx.as_ptr() as *const __m256i);
                let bits = _mm256_set1_epi32(b.mask as i32);
                let pick = _mm256_and_si256(bits, _mm256_sllv_epi32(_mm256_set1_epi32(1), lane));
                let keep = _mm256_castsi256_ps(_mm256_cmpeq_epi32(pick, _mm256_setzero_si256()));
                let v = _mm256_andnot_ps(keep, _mm256_permutevar8x32_ps(win, idx));
                let v = _mm256_add_ps(zero, v);
                let x = 8 * k;
                if x + 8 <= n {
                    _mm256_storeu_ps(out.add(x), v);
                } else {
                    _mm256_maskstore_ps(out.add(x), below((n - x) as u32), v);
                }
            }
        }
    }
}
