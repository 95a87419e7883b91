//! Backward nearest over integer upsampling: every diff_src element sums a box.
//!
//! When each resampled axis upsamples by an integer factor `r` and its lists are the boxes
//! `r*i .. r*i + r` (what the nearest rules give at integer ratios; checked on the tables,
//! not assumed), diff_src element `i` sums the diff_dst box at `r*i`. The reference adds the
//! box in output order (other axes' positions first axis outermost, the `r_w` columns
//! innermost), `acc = acc + dd` from 0. A run is one diff_src row: the box rows are fixed
//! offsets from the row's diff_dst base, and a vector of elements reads `r_w` vectors of
//! each box row, deinterleaved for `r_w = 2`, with the sum in a register. The row walk of
//! [`super::bwd_stream`] instead makes a pass over an accumulator row per box row, and
//! its per-row setup dominated short rows (nchw f32 8x256 32x32 <- 64x64: 44 ns a row).

use super::super::dtype::DataType;
use super::super::reference::{Bufs, Tables};
use super::super::simd::{self, Isa};
use super::super::{Algorithm, Direction, Problem};
use super::Runs;

/// Most box rows (positions of the other resampled axes) a plan accepts.
const MAX_ROWS: usize = 64;

#[derive(Clone, Debug)]
pub(crate) struct BoxGeom {
    pub w: usize,
    /// `(axis, r * diff_dst stride)` of the other resampled axes: a row's base moves by
    /// that per step of its diff_src index.
    pub steps: Vec<(usize, usize)>,
    /// The box rows' offsets from a row's base, in the reference's order.
    pub rows: Vec<usize>,
    /// Columns per element (`r` of `w`): 1 or 2.
    pub rw: usize,
    pub runs: usize,
    /// The ISA the plan was made for (the walk's vector width).
    pub isa: Isa,
}

impl BoxGeom {
    /// diff_dst elements one run reads (for the thread grain).
    pub fn run_cost(&self, n_in: usize) -> usize {
        (n_in * self.rw * self.rows.len()).max(1)
    }
}

/// `Some(r)` when every diff_src index `i < n_in` of `tab` lists exactly the outputs
/// `r*i .. r*i + r` and those cover `n_out`.
fn box_ratio(tab: &super::super::taps::BwdTaps, n_in: usize, n_out: usize) -> Option<usize> {
    let r = n_out / n_in.max(1);
    if r == 0 || r * n_in != n_out || tab.groups != 1 || tab.inputs() != n_in {
        return None;
    }
    (0..n_in)
        .all(|i| {
            let o = tab.group(i, 0).0;
            o.len() == r && o.iter().enumerate().all(|(j, &x)| x as usize == r * i + j)
        })
        .then_some(r)
}

/// The box geometry, or `None` when the problem is not nearest integer upsampling along a
/// unit-stride last axis with a vector walk on this ISA.
pub(crate) fn plan(p: &Problem, t: &Tables) -> Option<BoxGeom> {
    let (s, d) = (&p.src, &p.dst);
    let rank = d.rank();
    if p.direction != Direction::Backward
        || p.alg != Algorithm::Nearest
        || !p.post_ops.is_empty()
        || rank == 0
        || !matches!(s.dtype, DataType::F32 | DataType::Bf16)
        || d.dtype == DataType::F64
        || (0..rank).any(|a| s.blocks[a] > 1 || d.blocks[a] > 1)
        || d.dims.contains(&0)
    {
        return None;
    }
    let w = rank - 1;
    if t.bwd[w].is_none() || s.strides[w] != 1 || d.strides[w] != 1 {
        return None;
    }
    let isa = simd::isa();
    let (mut rw, mut steps, mut rows) = (0, Vec::new(), vec![0usize]);
    for &a in &t.resampled {
        let r = box_ratio(t.bwd[a].as_ref()?, d.dims[a], s.dims[a])?;
        if a == w {
            rw = r;
            continue;
        }
        steps.push((a, r.checked_mul(s.strides[a])?));
        if rows.len() * r > MAX_ROWS {
            return None;
        }
        // First axis outermost: each earlier row is followed by its `r` positions here.
        rows = rows
            .iter()
            .flat_map(|&b| (0..r).map(move |k| b + k * s.strides[a]))
            .collect();
    }
    let vector = match isa {
        Isa::Avx512 | Isa::Avx2 => true,
        Isa::Neon => s.dtype == DataType::F32,
        Isa::Base => false,
    };
    // Every axis 1:1 is the flat walk's (one pass over the whole tensor). bf16 rows
    // shorter than a vector are all tail, copied out per box row: the plane walk converts
    // whole planes instead (nchw 2x4 40x10 <- 80x20: 9.5 us there, 17 here).
    let lanes = if isa == Isa::Avx512 { 16 } else { 8 };
    if !vector
        || !(1..=2).contains(&rw)
        || (rw == 1 && rows.len() == 1)
        || (s.dtype == DataType::Bf16 && d.dims[w] < lanes)
    {
        return None;
    }
    Some(BoxGeom {
        w,
        steps,
        rows,
        rw,
        runs: d.dims[..w].iter().product(),
        isa,
    })
}

/// Runs `start..end` (diff_src rows).
///
/// # Safety
/// Buffers must cover the layouts; run ranges of concurrent calls must be disjoint.
pub(crate) unsafe fn run(
    p: &Problem,
    t: &Tables,
    g: &BoxGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    let bf = p.src.dtype == DataType::Bf16;
    // SAFETY: the caller's contract; each walk runs on the ISA the plan was made for (no
    // wider than the CPU's).
    unsafe {
        match (g.isa, bf, g.rw) {
            #[cfg(target_arch = "x86_64")]
            (Isa::Avx512, false, 1) => avx512::<false, 1>(p, t, g, b, start, end),
            #[cfg(target_arch = "x86_64")]
            (Isa::Avx512, false, _) => avx512::<false, 2>(p, t, g, b, start, end),
            #[cfg(target_arch = "x86_64")]
            (Isa::Avx512, true, 1) => avx512::<true, 1>(p, t, g, b, start, end),
            #[cfg(target_arch = "x86_64")]
            (Isa::Avx512, true, _) => avx512::<true, 2>(p, t, g, b, start, end),
            #[cfg(target_arch = "x86_64")]
            (_, false, 1) => avx2::<false, 1>(p, t, g, b, start, end),
            #[cfg(target_arch = "x86_64")]
            (_, false, _) => avx2::<false, 2>(p, t, g, b, start, end),
            #[cfg(target_arch = "x86_64")]
            (_, true, 1) => avx2::<true, 1>(p, t, g, b, start, end),
            #[cfg(target_arch = "x86_64")]
            (_, true, _) => avx2::<true, 2>(p, t, g, b, start, end),
            #[cfg(target_arch = "aarch64")]
            (_, _, 1) => walk::<false, 1, { NEON }>(p, t, g, b, start, end),
            #[cfg(target_arch = "aarch64")]
            (_, _, _) => walk::<false, 2, { NEON }>(p, t, g, b, start, end),
            #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
            _ => unreachable!("no box walk planned without vectors"),
        }
    }
}

/// Row kernels of the walk.
#[allow(dead_code)]
const AVX512: u8 = 0;
#[allow(dead_code)]
const AVX2: u8 = 1;
#[allow(dead_code)]
const NEON: u8 = 2;

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn avx512<const BF: bool, const RW: usize>(
    p: &Problem,
    t: &Tables,
    g: &BoxGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    // SAFETY: the caller's.
    unsafe { walk::<BF, RW, AVX512>(p, t, g, b, start, end) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn avx2<const BF: bool, const RW: usize>(
    p: &Problem,
    t: &Tables,
    g: &BoxGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    // SAFETY: the caller's.
    unsafe { walk::<BF, RW, AVX2>(p, t, g, b, start, end) }
}

/// The row walk; `K` picks the row kernel (inlined into the caller's ISA).
#[inline(always)]
unsafe fn walk<const BF: bool, const RW: usize, const K: u8>(
    p: &Problem,
    t: &Tables,
    g: &BoxGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every box row of a
    // diff_src row lies in diff_dst, and this call's diff_src rows are written by it alone.
    unsafe {
        let d = &p.dst;
        let n = d.dims[g.w];
        // f32 sums go straight into an aligned diff_src; others through `buf`.
        let direct = d.dtype == DataType::F32 && (b.dst as usize).is_multiple_of(4);
        let mut buf = vec![0f32; if direct { 0 } else { n }];
        let mut runs = Runs::new(p, t, &[(g.w, 1, 0, 0)], start);
        for _ in start..end {
            let mut base = runs.sbase;
            for &(a, st) in &g.steps {
                base += runs.pos[a] * st;
            }
            let doff = runs.doff;
            runs.advance();
            let out = if direct {
                (b.dst as *mut f32).add(doff)
            } else {
                buf.as_mut_ptr()
            };
            match K {
                #[cfg(target_arch = "x86_64")]
                AVX512 => row_avx512::<BF, RW>(b.src, base, &g.rows, out, n),
                #[cfg(target_arch = "x86_64")]
                AVX2 => row_avx2::<BF, RW>(b.src, base, &g.rows, out, n),
                #[cfg(target_arch = "aarch64")]
                NEON => row_neon::<RW>(b.src as *const f32, base, &g.rows, out, n),
                _ => unreachable!("row kernel {K} not built for this target"),
            }
            if !direct {
                simd::store_contiguous(d.dtype, p.numerics, &buf, b.dst.add(doff * d.dtype.size()));
            }
        }
    }
}

/// One diff_src row of `n` on AVX-512: 16 elements a vector (f32 tails masked).
///
/// # Safety
/// AVX-512F; the box of every element lies in diff_dst; `out` holds `n` values.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn row_avx512<const BF: bool, const RW: usize>(
    src: *const u8,
    base: usize,
    rows: &[usize],
    out: *mut f32,
    n: usize,
) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's: full vectors read inside each box row, f32 tails masked to it.
    unsafe {
        let ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        let od = _mm512_add_epi32(ev, _mm512_set1_epi32(1));
        // 16 values from element `at`, the lanes of `m` (all of them for bf16).
        let ld = |at: usize, m: u16| {
            if BF {
                ld_bf16_512((src as *const u16).add(at))
            } else {
                _mm512_maskz_loadu_ps(m, (src as *const f32).wrapping_add(at))
            }
        };
        // The sum of the box rows' vectors `$v(at, half)` (16 values each, `RW` per element).
        macro_rules! sum {
            ($i:expr, $v:expr) => {{
                let mut acc = _mm512_setzero_ps();
                for &r in rows {
                    let at = base + r + RW * $i;
                    if RW == 1 {
                        acc = _mm512_add_ps(acc, $v(at, 0));
                    } else {
                        let (a, b) = ($v(at, 0), $v(at, 1));
                        acc = _mm512_add_ps(acc, _mm512_permutex2var_ps(a, ev, b));
                        acc = _mm512_add_ps(acc, _mm512_permutex2var_ps(a, od, b));
                    }
                }
                acc
            }};
        }
        let mut i = 0;
        while i + 16 <= n {
            _mm512_storeu_ps(
                out.add(i),
                sum!(i, |at: usize, h: usize| ld(at + 16 * h, !0)),
            );
            i += 16;
        }
        if i == n {
            return;
        }
        let k = n - i;
        let bits = |c: usize| ((1u32 << c.min(16)) - 1) as u16;
        let acc = if BF {
            // bf16 tails (no 16-bit masked loads in AVX-512F) through a zeroed copy.
            sum!(i, |at: usize, h: usize| {
                let mut tmp = [0u16; 16];
                let c = (RW * k).saturating_sub(16 * h).min(16);
                let from = (src as *const u16).add(at + 16 * h);
                std::ptr::copy_nonoverlapping(from, tmp.as_mut_ptr(), c);
                ld_bf16_512(tmp.as_ptr())
            })
        } else {
            let m = [bits(RW * k), bits((RW * k).saturating_sub(16))];
            sum!(i, |at: usize, h: usize| ld(at + 16 * h, m[h]))
        };
        _mm512_mask_storeu_ps(out.add(i), bits(k), acc);
    }
}

/// 16 bf16 at `p` as f32.
///
/// # Safety
/// AVX-512F; 16 values at `p`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn ld_bf16_512(p: *const u16) -> std::arch::x86_64::__m512 {
    use std::arch::x86_64::*;
    // SAFETY: the caller's.
    unsafe {
        let h = _mm256_loadu_si256(p as *const __m256i);
        _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(h)))
    }
}

/// One diff_src row of `n` on AVX2: 8 elements a vector.
///
/// # Safety
/// AVX2; the box of every element lies in diff_dst; `out` holds `n` values.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn row_avx2<const BF: bool, const RW: usize>(
    src: *const u8,
    base: usize,
    rows: &[usize],
    out: *mut f32,
    n: usize,
) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's: full vectors read inside each box row, tails copied out of it.
    unsafe {
        // 8 values from `p` (elements of diff_dst, or of a tail's copy).
        let ld = |p: *const u8| {
            if BF {
                let h = _mm_loadu_si128(p as *const __m128i);
                _mm256_castsi256_ps(_mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(h)))
            } else {
                _mm256_loadu_ps(p as *const f32)
            }
        };
        // Even and odd columns of 16: within each half, then the halves' 64-bit pairs in
        // order.
        let fix = |v: __m256| {
            _mm256_castpd_ps(_mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_castps_pd(v)))
        };
        let sz = if BF { 2 } else { 4 };
        // The sum of the box rows' vectors `$v(element, half)`.
        macro_rules! sum {
            ($i:expr, $v:expr) => {{
                let mut acc = _mm256_setzero_ps();
                for &r in rows {
                    let at = base + r + RW * $i;
                    if RW == 1 {
                        acc = _mm256_add_ps(acc, $v(at, 0));
                    } else {
                        let (a, b) = ($v(at, 0), $v(at, 1));
                        let e = _mm256_shuffle_ps::<0b10_00_10_00>(a, b);
                        let o = _mm256_shuffle_ps::<0b11_01_11_01>(a, b);
                        acc = _mm256_add_ps(acc, fix(e));
                        acc = _mm256_add_ps(acc, fix(o));
                    }
                }
                acc
            }};
        }
        let mut i = 0;
        while i + 8 <= n {
            let acc = sum!(i, |at: usize, h: usize| ld(src.add((at + 8 * h) * sz)));
            _mm256_storeu_ps(out.add(i), acc);
            i += 8;
        }
        if i == n {
            return;
        }
        // A tail: f32 by masked loads and stores, bf16 through zeroed copies.
        let k = n - i;
        let iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let first = |c: usize| _mm256_cmpgt_epi32(_mm256_set1_epi32(c.min(8) as i32), iota);
        let acc = if BF {
            sum!(i, |at: usize, h: usize| {
                let mut tmp = [0u16; 8];
                let c = (RW * k).saturating_sub(8 * h).min(8);
                let from = (src as *const u16).add(at + 8 * h);
                std::ptr::copy_nonoverlapping(from, tmp.as_mut_ptr(), c);
                ld(tmp.as_ptr() as *const u8)
            })
        } else {
            let m = [first(RW * k), first((RW * k).saturating_sub(8))];
            sum!(i, |at: usize, h: usize| {
                _mm256_maskload_ps((src as *const f32).wrapping_add(at + 8 * h), m[h])
            })
        };
        _mm256_maskstore_ps(out.add(i), first(k), acc);
    }
}

/// One diff_src row of `n` on NEON (f32): 4 elements a vector, `vld2q` deinterleaving.
///
/// # Safety
/// The box of every element lies in diff_dst; `out` holds `n` values.
#[cfg(target_arch = "aarch64")]
#[inline(always)]
unsafe fn row_neon<const RW: usize>(
    src: *const f32,
    base: usize,
    rows: &[usize],
    out: *mut f32,
    n: usize,
) {
    use std::arch::aarch64::*;
    // SAFETY: the caller's: full vectors read inside each box row.
    unsafe {
        let mut i = 0;
        while i + 4 <= n {
            let mut acc = vdupq_n_f32(0.0);
            for &r in rows {
                let at = src.add(base + r + RW * i);
                if RW == 1 {
                    acc = vaddq_f32(acc, vld1q_f32(at));
                } else {
                    let v = vld2q_f32(at);
                    acc = vaddq_f32(acc, v.0);
                    acc = vaddq_f32(acc, v.1);
                }
            }
            vst1q_f32(out.add(i), acc);
            i += 4;
        }
        // The tail one by one: `0.0 + x`, then each further box value, in order.
        for i in i..n {
            let mut acc = 0f32;
            for &r in rows {
                for j in 0..RW {
                    acc += *src.add(base + r + RW * i + j);
                }
            }
            *out.add(i) = acc;
        }
    }
}
