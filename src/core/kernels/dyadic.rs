//! Linear u8 / s8 rows whose weights are all dyadic (`k / 2^n`): the half-pixel weights of
//! 2x and 4x upsampling (quarters, eighths), of 2x downsampling (halves), and the like.
//!
//! With such weights every product and partial sum of the reference's f32 reduction is a
//! multiple of `2^-(kh + kw)` below 2^8, so it is exact in f32 whatever the order, and the
//! stored value is `round_half_even(S / 2^(kh + kw))` of the integer
//! `S = sum bh * (sum aw * src)` with `aw = w_W * 2^kw`, `bh = w_H * 2^kh`. That sum runs
//! in 16-bit lanes: the W pass once per src row (`pshufb` the two taps of each output side
//! by side, `pmaddubsw` with their integer weights), kept for the dst rows that read the
//! row again; the H pass per dst row (`pmullw`, `paddw`), rounded by shifts and packed to
//! bytes; on AVX-512BW 32 lanes at a time (0.80-0.91x the kernel's time with 16, nhwc u8
//! C=3 1080x1920->2160x3840 and nchw 8x64 56->112, 1 thread), and with VBMI the W pass
//! permutes 64-byte windows ([`WideW`]: 0.82-0.85x, nhwc u8 C=3 and C=4; 128-byte windows
//! for C=3 2x down, 0.59-0.73x). The f32 path converted, lerped and rounded every element
//! of both passes (nhwc u8 C=3 1080x1920->2160x3840 was compute-bound at 4 ms on AVX-512,
//! 23 ms on Zen 1 AVX2).
//!
//! s8 goes through the same code as `s + 128` (xor 0x80 on load and store): the weights of
//! each axis sum to exactly `2^k`, so the bias moves the sum by exactly `128 * 2^(kh + kw)`.

use super::super::dtype::DataType;
use super::super::reference::{Bufs, Tables};
use super::super::taps::FwdTaps;
use super::super::{simd, Algorithm, Direction, Problem};
use super::images;
use super::nt_batch::NtBatch;
use super::rows::STREAM_ROW;
use crate::core::aligned::AlignedBuf;

/// Outputs of one W block: two 8-output halves, each from its own 16-byte source window.
const BLOCK: usize = 16;
/// Largest weight exponents: `pmaddubsw` weights up to 2^6 keep `255 * 2^kw` in an i16,
/// and `255 * 2^(kh + kw)` plus the rounding bias fits a u16 up to a total of 8.
const MAX_KW: u32 = 6;
const MAX_K: u32 = 8;
/// Shortest dst row (elements) worth the row tables; shorter rows stay with the f32 kernels.
const MIN_ROW: usize = 32;
/// Bytes ahead of an AVX-512 W block's window that it prefetches: the W pass reads a src
/// row once, often straight from memory, and the hardware prefetcher alone left its loads
/// waiting (u8 HWC 1080x1920x3 -> 2160x3840, 1 thread, Zen 4: 2.55-2.92 -> 2.32-2.42 ms;
/// 512 bytes ahead gained less, 2048 no more; 2x downsampling and 720p C=4 unchanged). The
/// AVX2 W pass gained nothing from it (same host, `RESAMPLE_ISA=avx2`).
#[cfg(target_arch = "x86_64")]
const W_AHEAD: usize = 1024;

/// Plan of the integer rows kernel.
// (Planned on x86 only; other targets compile it unused.)
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[derive(Clone, Debug)]
pub(crate) struct DyadicGeom {
    /// Dst rows per run (the H axis' size, 1 without one).
    pub out_h: usize,
    /// Runs: every index of the axes other than W, C and H.
    pub runs: usize,
    /// `(size, src stride, dst stride)` of those axes, outermost first.
    run_axes: Vec<(usize, usize, usize)>,
    /// Element strides of a row along H (0 without an H axis).
    s_row: usize,
    d_row: usize,
    /// Elements of a dst row (W, or W * C for channels-last images).
    pub out_n: usize,
    /// Per dst row: its two src rows and their integer weights (summing to `2^kh`).
    vert: Vec<IntTaps>,
    /// Per block of [`BLOCK`] outputs (the last one ending the row, overlapping the one
    /// before where the row is not a whole number of blocks): where it writes, where the
    /// 16-byte source windows of its quarters (4 outputs) start, the `pshufb` controls
    /// placing each output's two taps side by side (one a block; with `quarters`, one per
    /// window pair, zeroing the other quarters' bytes), and the taps' weights.
    at: Vec<u32>,
    win: Vec<[u32; 4]>,
    ctl: Vec<[u8; 32]>,
    wts: Vec<[u8; 32]>,
    /// Each 8-output half reads two windows (strong W downsampling of wide pixels: nhwc
    /// C = 3 2x down spans 18 bytes an 8 outputs), instead of one.
    quarters: bool,
    /// The W pass' tables for 64- or 128-byte windows, when every 32 outputs read one and
    /// the plan's ISA permutes bytes across them (AVX-512 VBMI).
    wide: Option<WideW>,
    /// `kh + kw`: the sum's scale.
    shift: u32,
    /// s8 (biased to u8 on load, back on store).
    signed: bool,
}

/// An output's two taps and their integer weights.
type IntTaps = (u32, u32, u16, u16);

/// Outputs of one W block of [`WideW`].
const WIDE: usize = 32;

/// 64 bytes on a cache line of their own.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Bytes64([u8; 64]);

/// The W pass with byte permutes across a 64-byte window: per block of [`WIDE`] outputs
/// (the last ending the row), the window's first element, the `vpermb` indices placing each
/// output's two taps side by side, and their weights. Four loads a 32 outputs instead of
/// fourteen in two 16-output blocks, one permute instead of two inserts and two shuffles.
/// Where 32 outputs span more than 64 bytes (2x downsampling of pixels of 3), the window is
/// 128 bytes, two loads and a two-source permute (`vpermt2b`).
// (Read by the x86 kernel only.)
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[derive(Clone, Debug)]
struct WideW {
    /// 128-byte windows.
    two: bool,
    win: Vec<u32>,
    ctl: Vec<Bytes64>,
    wts: Vec<Bytes64>,
}

/// [`WideW`] tables of a row of `in_n` elements with `out_n >= WIDE` outputs `taps`, if
/// this plan's ISA has the permutes and every block's taps lie in 64 bytes (or all in 128).
fn wide_w(taps: &[IntTaps], in_n: usize, out_n: usize) -> Option<WideW> {
    if !simd::byte_permutes() || out_n < WIDE {
        return None;
    }
    let blocks =
        || (0..out_n.div_ceil(WIDE)).map(|b| &taps[(b * WIDE).min(out_n - WIDE)..][..WIDE]);
    let fits = |bytes: usize| blocks().all(|outs| window(outs, in_n, bytes).is_some());
    let bytes = [64, 128].into_iter().find(|&b| fits(b))?;
    let mut g = WideW {
        two: bytes == 128,
        win: vec![],
        ctl: vec![],
        wts: vec![],
    };
    for outs in blocks() {
        let start = window(outs, in_n, bytes)?;
        let (mut c, mut w) = ([0u8; 64], [0u8; 64]);
        for (j, &(i0, i1, a0, a1)) in outs.iter().enumerate() {
            c[2 * j] = (i0 as usize - start) as u8;
            c[2 * j + 1] = (i1 as usize - start) as u8;
            (w[2 * j], w[2 * j + 1]) = (a0 as u8, a1 as u8);
        }
        g.win.push(start as u32);
        g.ctl.push(Bytes64(c));
        g.wts.push(Bytes64(w));
    }
    Some(g)
}

/// The first element of a `bytes`-element window of a row of `in_n` that holds every tap of
/// `outs` (starting at the first tap, or ending the row), if there is one.
fn window(outs: &[IntTaps], in_n: usize, bytes: usize) -> Option<usize> {
    let lo = outs.iter().map(|t| t.0.min(t.1)).min()? as usize;
    let hi = outs.iter().map(|t| t.0.max(t.1)).max()? as usize;
    let start = lo.min(in_n.checked_sub(bytes)?);
    (hi - start < bytes).then_some(start)
}

/// `(k, integer weights)` of two-tap rows: the least `k <= max` making every weight times
/// `2^k` an integer, each output's weights summing to exactly `2^k`.
fn integer_taps(f: &FwdTaps, max: u32) -> Option<(u32, Vec<IntTaps>)> {
    if f.max_taps() > 2 {
        return None;
    }
    let k = (0..=max).find(|&k| {
        let s = (1u32 << k) as f32;
        f.wt.iter().all(|&w| (w * s).fract() == 0.0)
    })?;
    let s = (1u32 << k) as f32;
    (0..f.outputs())
        .map(|o| {
            let (ii, ww) = f.taps(o);
            let int = |w: f32| (0.0..=1.0).contains(&w).then_some((w * s) as u16);
            let t = match (ii, ww) {
                (&[i], &[w]) => (i, i, int(w)?, 0),
                (&[i0, i1], &[w0, w1]) => (i0, i1, int(w0)?, int(w1)?),
                _ => return None,
            };
            (u32::from(t.2) + u32::from(t.3) == 1 << k).then_some(t)
        })
        .collect::<Option<Vec<_>>>()
        .map(|v| (k, v))
}

/// The integer rows plan of `p`, if it is one: forward linear u8 -> u8 or s8 -> s8 without
/// post-ops, unblocked, W (with C packed inside for channels-last images) contiguous, at
/// most one other resampled axis (H, the one before W), dyadic weights, rows of at least
/// [`MIN_ROW`] outputs whose every 8 (or 4) outputs read a 16-element window; x86 with AVX2.
pub(crate) fn plan(p: &Problem, t: &Tables) -> Option<DyadicGeom> {
    if !cfg!(target_arch = "x86_64") || simd::isa() < simd::Isa::Avx2 {
        return None;
    }
    let (s, d) = (&p.src, &p.dst);
    let dt = s.dtype;
    if p.direction != Direction::Forward
        || p.alg != Algorithm::Linear
        || !p.post_ops.is_empty()
        || d.dtype != dt
        || !matches!(dt, DataType::U8 | DataType::S8)
    {
        return None;
    }
    let rank = s.rank();
    if (0..rank).any(|a| s.blocks[a] > 1 || d.blocks[a] > 1 || d.padded[a] != d.dims[a]) {
        return None;
    }
    let w = *t.resampled.last()?;
    let lane = images::pixel_axis(p, t, w, usize::MAX);
    let nc = lane.map_or(1, |c| d.dims[c]);
    if lane.is_none() && (s.strides[w] != 1 || d.strides[w] != 1) {
        return None;
    }
    let h = (0..w).rev().find(|&a| Some(a) != lane);
    if t.resampled.iter().any(|&a| a != w && Some(a) != h) {
        return None;
    }
    let fw = t.fwd[w].as_ref()?;
    let wx;
    let taps_w = match lane {
        Some(_) => {
            wx = images::expand(fw, nc);
            &wx
        }
        None => fw,
    };
    let (in_n, out_n) = (s.dims[w].checked_mul(nc)?, d.dims[w] * nc);
    if out_n < MIN_ROW || in_n < 16 || in_n > u32::MAX as usize {
        return None;
    }
    let (kw, taps) = integer_taps(taps_w, MAX_KW)?;
    let (kh, vert) = match h.and_then(|h| t.fwd[h].as_ref()) {
        Some(fh) => integer_taps(fh, MAX_K - kw)?,
        None => (
            0,
            (0..h.map_or(1, |h| d.dims[h]) as u32)
                .map(|i| (i, i, 1, 0))
                .collect(),
        ),
    };
    // Every 8 outputs read one 16-byte window of the row, or else every 4.
    let span = |outs: &[IntTaps]| window(outs, in_n, 16);
    let fits = |q: usize| taps.chunks(q).all(|c| span(c).is_some());
    let quarters = match (fits(8), fits(4)) {
        (true, _) => false,
        (false, true) => true,
        _ => return None,
    };
    let q = if quarters { 4 } else { 8 };
    let mut at: Vec<u32> = (0..out_n / BLOCK).map(|b| (b * BLOCK) as u32).collect();
    if out_n % BLOCK != 0 {
        at.push((out_n - BLOCK) as u32);
    }
    let (mut win, mut ctl, mut wts) = (vec![], vec![], vec![]);
    for &o in &at {
        let outs = &taps[o as usize..][..BLOCK];
        let (mut wb, mut tb) = ([0u32; 4], [0u8; 32]);
        let mut cb = [[0x80u8; 32]; 2];
        for (part, chunk) in outs.chunks(q).enumerate() {
            let start = span(chunk)?;
            let (lane, sub) = if quarters {
                (part / 2, part % 2)
            } else {
                (part, 0)
            };
            wb[lane * 2 + sub] = start as u32;
            if !quarters {
                wb[lane * 2 + 1] = start as u32;
            }
            for (j, &(i0, i1, a0, a1)) in chunk.iter().enumerate() {
                let byte = part * q * 2 + 2 * j;
                cb[sub][byte] = (i0 as usize - start) as u8;
                cb[sub][byte + 1] = (i1 as usize - start) as u8;
                // (At most 2^MAX_KW: a `pmaddubsw` weight.)
                tb[byte] = a0 as u8;
                tb[byte + 1] = a1 as u8;
            }
        }
        win.push(wb);
        ctl.push(cb[0]);
        if quarters {
            ctl.push(cb[1]);
        }
        wts.push(tb);
    }
    let run_axes: Vec<(usize, usize, usize)> = (0..rank)
        .filter(|&a| a != w && Some(a) != lane && Some(a) != h)
        .map(|a| (d.dims[a], s.strides[a], d.strides[a]))
        .collect();
    Some(DyadicGeom {
        out_h: h.map_or(1, |h| d.dims[h]),
        runs: run_axes.iter().map(|r| r.0).product(),
        run_axes,
        s_row: h.map_or(0, |h| s.strides[h]),
        d_row: h.map_or(0, |h| d.strides[h]),
        out_n,
        vert,
        at,
        win,
        ctl,
        wts,
        quarters,
        wide: wide_w(&taps, in_n, out_n),
        shift: kh + kw,
        signed: dt == DataType::S8,
    })
}

impl DyadicGeom {
    /// Src and dst element offsets of run `r`'s first row.
    fn run_base(&self, mut r: usize) -> (usize, usize) {
        let (mut so, mut dof) = (0, 0);
        for &(n, ss, ds) in self.run_axes.iter().rev() {
            so += r % n * ss;
            dof += r % n * ds;
            r /= n;
        }
        (so, dof)
    }

    /// The W pass of src row `src` into `out` (`out_n` sums of `aw * src`).
    ///
    /// # Safety
    /// `src` is a readable row of `in_n` bytes; AVX2 is available.
    unsafe fn w_pass(&self, src: *const u8, out: &mut [u16]) {
        debug_assert!(out.len() >= self.out_n);
        // SAFETY: the caller's contract; windows lie in the row and blocks in `out_n`
        // (checked by `plan`).
        #[cfg(target_arch = "x86_64")]
        unsafe {
            let out = out.as_mut_ptr();
            if let Some(wd) = self.wide.as_ref().filter(|_| simd::byte_permutes()) {
                match (self.signed, wd.two) {
                    (false, false) => avx512::w_pass::<false, false>(wd, self.out_n, src, out),
                    (false, true) => avx512::w_pass::<false, true>(wd, self.out_n, src, out),
                    (true, false) => avx512::w_pass::<true, false>(wd, self.out_n, src, out),
                    (true, true) => avx512::w_pass::<true, true>(wd, self.out_n, src, out),
                }
                return;
            }
            match (self.quarters, self.signed) {
                (false, false) => avx2::w_pass::<false, false>(self, src, out),
                (false, true) => avx2::w_pass::<false, true>(self, src, out),
                (true, false) => avx2::w_pass::<true, false>(self, src, out),
                (true, true) => avx2::w_pass::<true, true>(self, src, out),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (src, out);
    }

    /// The H pass: dst row `dst` from the W sums of its two src rows, rounded.
    ///
    /// # Safety
    /// `dst` is a writable row of `out_n` bytes; AVX2 is available.
    unsafe fn h_pass(&self, r0: &[u16], r1: &[u16], b0: u16, b1: u16, dst: *mut u8, nt: bool) {
        debug_assert!(r0.len() >= self.out_n && r1.len() >= self.out_n);
        // SAFETY: the caller's contract: `dst..dst + out_n` is writable, `out_n >= 32`.
        #[cfg(target_arch = "x86_64")]
        unsafe {
            let (r0, r1, n) = (r0.as_ptr(), r1.as_ptr(), self.out_n);
            // Twice the outputs an instruction: the H pass, 57% of nhwc u8 C=3 1080x1920 ->
            // 2160x3840 on AVX2 vectors, is compute-bound.
            if n >= 64 && simd::isa() == simd::Isa::Avx512 && simd::avx512bw() {
                let h = avx512::HPass::new(b0, b1, self.shift);
                match self.signed {
                    false => h.row::<false>(r0, r1, dst, n, nt),
                    true => h.row::<true>(r0, r1, dst, n, nt),
                }
                return;
            }
            let h = avx2::HPass::new(b0, b1, self.shift);
            match self.signed {
                false => h.row::<false>(r0, r1, dst, n, nt),
                true => h.row::<true>(r0, r1, dst, n, nt),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (r0, r1, b0, b1, dst, nt);
    }
}

/// The kernel over dst rows `start..end` (row `i` is row `i % out_h` of run `i / out_h`).
///
/// # Safety
/// Buffers cover the layouts the plan was made for; concurrent calls take disjoint rows.
pub(crate) unsafe fn run(p: &Problem, g: &DyadicGeom, b: Bufs<'_>, start: usize, end: usize) {
    let n = g.out_n.next_multiple_of(BLOCK);
    let mut bufs = [AlignedBuf::<u16>::zeroed(n), AlignedBuf::<u16>::zeroed(n)];
    // The (run, src row) whose W sums each buffer holds.
    let mut held = [None::<(usize, u32)>; 2];
    let nt = crate::core::streaming::now();
    // Short rows stream through a batch (a row's own streamed stores would share its end
    // lines with plain ones: nchw u8 8x64 56->112 6.7 -> 17.9 ms, 1 thread, Zen 1).
    let mut batch = (nt && g.out_n < STREAM_ROW).then(NtBatch::new);
    let mut base = None;
    // SAFETY: the caller's contract: every src row and dst row formed here lies in the
    // buffers (run bases and row strides come from the layouts; rows hold `in_n` and
    // `out_n` elements); this call's dst rows are written by it alone.
    unsafe {
        for item in start..end {
            let (run, oh) = (item / g.out_h, item % g.out_h);
            let (sb, db) = match base {
                Some((r, sb, db)) if r == run => (sb, db),
                _ => {
                    let (sb, db) = g.run_base(run);
                    let (sb, db) = (sb + p.src.offset, db + p.dst.offset);
                    base = Some((run, sb, db));
                    (sb, db)
                }
            };
            let (ih0, ih1, b0, b1) = g.vert[oh];
            let mut slot = |ih: u32, keep: u32| -> usize {
                let key = Some((run, ih));
                if let Some(i) = held.iter().position(|&h| h == key) {
                    return i;
                }
                let i = usize::from(held[0] == Some((run, keep)));
                g.w_pass(b.src.add(sb + ih as usize * g.s_row), &mut bufs[i]);
                held[i] = key;
                i
            };
            let i0 = slot(ih0, ih1);
            let i1 = slot(ih1, ih0);
            let dst = b.dst.add(db + oh * g.d_row);
            match &mut batch {
                Some(nb) => {
                    let at = nb.slot(dst, g.out_n);
                    g.h_pass(&bufs[i0], &bufs[i1], b0, b1, at, false);
                }
                None => g.h_pass(&bufs[i0], &bufs[i1], b0, b1, dst, nt),
            }
        }
        if let Some(nb) = &mut batch {
            nb.flush();
        }
        if nt {
            simd::store_fence();
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{DyadicGeom, BLOCK};
    use std::arch::x86_64::*;

    /// The W pass: every block, its two lanes from their windows.
    /// (`SIGNED`: s8, biased on load; a separate variant, the bias is 2 of Zen 1's 10 uops
    /// a block.)
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn w_pass<const QUARTERS: bool, const SIGNED: bool>(
        g: &DyadicGeom,
        src: *const u8,
        out: *mut u16,
    ) {
        // SAFETY: the caller's contract: windows lie in the `in_n`-byte row, blocks in the
        // `out_n` sums at `out`.
        unsafe {
            let flip = _mm256_set1_epi8(0x80u8 as i8);
            let load = |w0: u32, w1: u32| {
                let lo = _mm_loadu_si128(src.add(w0 as usize) as *const __m128i);
                let hi = _mm_loadu_si128(src.add(w1 as usize) as *const __m128i);
                let x = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi);
                if SIGNED {
                    _mm256_xor_si256(x, flip)
                } else {
                    x
                }
            };
            let per = if QUARTERS { 2 } else { 1 };
            let ctls = g.ctl.chunks_exact(per);
            for (((&o, w), t), c) in g.at.iter().zip(&g.win).zip(&g.wts).zip(ctls) {
                let ctl = |i: usize| _mm256_loadu_si256(c[i].as_ptr() as *const __m256i);
                let x = if QUARTERS {
                    let a = _mm256_shuffle_epi8(load(w[0], w[2]), ctl(0));
                    let b = _mm256_shuffle_epi8(load(w[1], w[3]), ctl(1));
                    _mm256_or_si256(a, b)
                } else {
                    _mm256_shuffle_epi8(load(w[0], w[2]), ctl(0))
                };
                let v = _mm256_maddubs_epi16(x, _mm256_loadu_si256(t.as_ptr() as *const __m256i));
                _mm256_storeu_si256(out.add(o as usize) as *mut __m256i, v);
            }
            debug_assert!(g.at.last().is_some_and(|&o| o as usize + BLOCK == g.out_n));
        }
    }

    /// The H pass' constants for one dst row.
    pub(super) struct HPass {
        w0: __m256i,
        w1: __m256i,
        /// `2^(k-1) - 1`, and 1 where a tie rounds up on odd quotients (0 when k = 0).
        round: __m256i,
        odd: __m256i,
        sh: __m128i,
    }

    impl HPass {
        #[target_feature(enable = "avx2")]
        pub(super) fn new(b0: u16, b1: u16, k: u32) -> Self {
            HPass {
                w0: _mm256_set1_epi16(b0 as i16),
                w1: _mm256_set1_epi16(b1 as i16),
                round: _mm256_set1_epi16((((1u32 << k) >> 1).saturating_sub(1)) as i16),
                odd: _mm256_set1_epi16(i16::from(k > 0)),
                sh: _mm_cvtsi32_si128(k as i32),
            }
        }

        /// 32 outputs from sums `j..j + 32`: `round_half_even(v / 2^k)` of
        /// `v = r0 * b0 + r1 * b1`, as `(v + 2^(k-1) - 1 + ((v >> k) & 1)) >> k`.
        #[target_feature(enable = "avx2")]
        unsafe fn bytes<const SIGNED: bool>(
            &self,
            r0: *const u16,
            r1: *const u16,
            j: usize,
        ) -> __m256i {
            let one = |j: usize| {
                // SAFETY: the caller's contract: 32 sums readable at `j` in each row.
                let (x0, x1) = unsafe {
                    (
                        _mm256_loadu_si256(r0.add(j) as *const __m256i),
                        _mm256_loadu_si256(r1.add(j) as *const __m256i),
                    )
                };
                let v = _mm256_add_epi16(
                    _mm256_mullo_epi16(x0, self.w0),
                    _mm256_mullo_epi16(x1, self.w1),
                );
                let q = _mm256_and_si256(_mm256_srl_epi16(v, self.sh), self.odd);
                _mm256_srl_epi16(
                    _mm256_add_epi16(_mm256_add_epi16(v, self.round), q),
                    self.sh,
                )
            };
            let b = _mm256_permute4x64_epi64::<0xd8>(_mm256_packus_epi16(one(j), one(j + 16)));
            if SIGNED {
                _mm256_xor_si256(b, _mm256_set1_epi8(0x80u8 as i8))
            } else {
                b
            }
        }

        /// A whole row of `n >= 32` outputs: vectors of 32, the last one ending the row
        /// (overlapping the one before); streamed, the aligned ones between a first and a
        /// last plain store.
        #[target_feature(enable = "avx2")]
        pub(super) unsafe fn row<const SIGNED: bool>(
            &self,
            r0: *const u16,
            r1: *const u16,
            dst: *mut u8,
            n: usize,
            nt: bool,
        ) {
            // SAFETY: the caller's contract: `n >= 32` sums in each row, `n` writable bytes.
            unsafe {
                let put = |j: usize| {
                    _mm256_storeu_si256(dst.add(j) as *mut __m256i, self.bytes::<SIGNED>(r0, r1, j))
                };
                let mut j = 0;
                if nt {
                    put(0);
                    j = (32 - dst as usize % 32) % 32;
                    while j + 32 <= n {
                        let at = dst.add(j) as *mut __m256i;
                        _mm256_stream_si256(at, self.bytes::<SIGNED>(r0, r1, j));
                        j += 32;
                    }
                } else {
                    while j + 32 <= n {
                        put(j);
                        j += 32;
                    }
                }
                if j < n {
                    put(n - 32);
                }
            }
        }
    }
}

/// The W pass with byte permutes ([`WideW`]); the H pass on AVX-512BW vectors:
/// [`avx2::HPass`]'s operations on 32 lanes.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{WideW, WIDE, W_AHEAD};
    use std::arch::x86_64::*;

    /// The W pass of a row of `n` outputs.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) unsafe fn w_pass<const SIGNED: bool, const TWO: bool>(
        g: &WideW,
        n: usize,
        src: *const u8,
        out: *mut u16,
    ) {
        // SAFETY: the caller's contract: windows (64 or 128 bytes) lie in the row
        // (`wide_w`), blocks in the `n` sums at `out`; the tables are 64-byte aligned.
        unsafe {
            let flip = _mm512_set1_epi8(0x80u8 as i8);
            let load = |at: usize| {
                let x = _mm512_loadu_si512(src.add(at) as *const _);
                match SIGNED {
                    true => _mm512_xor_si512(x, flip),
                    false => x,
                }
            };
            for (b, ((&w, c), t)) in g.win.iter().zip(&g.ctl).zip(&g.wts).enumerate() {
                let (w, ctl) = (w as usize, _mm512_load_si512(c.0.as_ptr() as *const _));
                _mm_prefetch::<_MM_HINT_T0>(src.wrapping_add(w + W_AHEAD) as *const i8);
                let x = match TWO {
                    true => _mm512_permutex2var_epi8(load(w), ctl, load(w + 64)),
                    false => _mm512_permutexvar_epi8(ctl, load(w)),
                };
                let v = _mm512_maddubs_epi16(x, _mm512_load_si512(t.0.as_ptr() as *const _));
                _mm512_storeu_si512(out.add((b * WIDE).min(n - WIDE)) as *mut _, v);
            }
        }
    }

    pub(super) struct HPass {
        w0: __m512i,
        w1: __m512i,
        round: __m512i,
        odd: __m512i,
        sh: __m128i,
    }

    impl HPass {
        #[target_feature(enable = "avx512f,avx512bw")]
        pub(super) fn new(b0: u16, b1: u16, k: u32) -> Self {
            HPass {
                w0: _mm512_set1_epi16(b0 as i16),
                w1: _mm512_set1_epi16(b1 as i16),
                round: _mm512_set1_epi16((((1u32 << k) >> 1).saturating_sub(1)) as i16),
                odd: _mm512_set1_epi16(i16::from(k > 0)),
                sh: _mm_cvtsi32_si128(k as i32),
            }
        }

        /// 64 outputs from sums `j..j + 64` (see [`super::avx2::HPass`]).
        #[target_feature(enable = "avx512f,avx512bw")]
        unsafe fn bytes<const SIGNED: bool>(
            &self,
            r0: *const u16,
            r1: *const u16,
            j: usize,
        ) -> __m512i {
            let one = |j: usize| {
                // SAFETY: the caller's contract: 64 sums readable at `j` in each row.
                let (x0, x1) = unsafe {
                    (
                        _mm512_loadu_si512(r0.add(j) as *const _),
                        _mm512_loadu_si512(r1.add(j) as *const _),
                    )
                };
                let v = _mm512_add_epi16(
                    _mm512_mullo_epi16(x0, self.w0),
                    _mm512_mullo_epi16(x1, self.w1),
                );
                let q = _mm512_and_si512(_mm512_srl_epi16(v, self.sh), self.odd);
                _mm512_srl_epi16(
                    _mm512_add_epi16(_mm512_add_epi16(v, self.round), q),
                    self.sh,
                )
            };
            // (`packus` interleaves its operands by 128-bit lane: qwords back in order.)
            let order = _mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0);
            let b = _mm512_permutexvar_epi64(order, _mm512_packus_epi16(one(j), one(j + 32)));
            if SIGNED {
                _mm512_xor_si512(b, _mm512_set1_epi8(0x80u8 as i8))
            } else {
                b
            }
        }

        /// A whole row of `n >= 64` outputs, as [`super::avx2::HPass::row`] does with 32.
        #[target_feature(enable = "avx512f,avx512bw")]
        pub(super) unsafe fn row<const SIGNED: bool>(
            &self,
            r0: *const u16,
            r1: *const u16,
            dst: *mut u8,
            n: usize,
            nt: bool,
        ) {
            // SAFETY: the caller's contract: `n >= 64` sums in each row, `n` writable bytes.
            unsafe {
                let put = |j: usize| {
                    _mm512_storeu_si512(dst.add(j) as *mut _, self.bytes::<SIGNED>(r0, r1, j))
                };
                let mut j = 0;
                if nt {
                    put(0);
                    j = (64 - dst as usize % 64) % 64;
                    while j + 64 <= n {
                        let at = dst.add(j) as *mut __m512i;
                        _mm512_stream_si512(at as *mut _, self.bytes::<SIGNED>(r0, r1, j));
                        j += 64;
                    }
                } else {
                    while j + 64 <= n {
                        put(j);
                        j += 64;
                    }
                }
                if j < n {
                    put(n - 64);
                }
            }
        }
    }
}
