//! Channels-last images (nhwc, nwc, ndhwc with few channels) on the `rows` kernel.
//!
//! With C = 3 the `lanes` kernels vectorise over 3 lanes only. Here a row of W pixels is
//! one run of `W * C` contiguous elements: the reference's order (first resampled axis
//! innermost, W outermost) is exactly "blend the other axes' src rows over the whole flat
//! row, then lerp along W", and the W lerp reads element `i*C + c` for output element
//! `ow*C + c` — a per-element tap table expanded once at plan time. nchw rows are the C = 1
//! case of the same kernel.

use std::collections::HashMap;

use super::super::dtype::{store_f32, DataType};
use super::super::reference::{post_ops, Bufs, Tables};
use super::super::simd;
use super::super::taps::FwdTaps;
use super::super::{Algorithm, Direction, Problem};
use super::{fwd_row_geom, RowGeom, MAX_ROW};

/// Largest channel count served by the flat-row kernel; wider pixels vectorise well enough
/// over the channels (`lanes`). Measured crossover: see `choose` notes in the README.
pub(crate) const MAX_LANES: usize = 8;

/// The flat-row geometry of a forward channels-last problem, if it is one: a contiguous
/// identity axis `c` (2 <= C <= [`MAX_LANES`]) packed inside the last resampled axis `w`
/// (stride C in src and dst), nothing blocked.
pub(crate) fn image_rows(p: &Problem, t: &Tables, small: bool) -> Option<RowGeom> {
    if p.direction != Direction::Forward {
        return None;
    }
    let (s, d) = (&p.src, &p.dst);
    let rank = s.rank();
    if (0..rank).any(|a| s.blocks[a] > 1 || d.blocks[a] > 1) {
        return None;
    }
    let w = *t.resampled.last()?;
    let c = pixel_axis(p, t, w, MAX_LANES)?;
    let nc = d.dims[c];
    // Linear pixels that fill an AVX2 vector (f32/s32 with C = 8) lerp as fast in the lanes
    // kernel, which reads each corner once (f32 C = 8, 2x down: 0.85x vs 0.65x of oneDNN).
    // So do bf16 pixels of 8 (one 256-bit vector of f32): the flat row's per-element
    // weights cost more than the lanes kernel's per-pixel ones (nhwc bf16 C=8 linear, ms,
    // flat -> lanes: 1x8 540x960->1080x1920 6.87 -> 4.89, 1080x1920->540x960 3.89 -> 2.71,
    // 213906->427813 3.0 -> 0.94; oneDNN 7.46, 2.58, 0.82); f32 C=4 stays (540x960 ->
    // 1080x1920 3.2 flat, 4.6 lanes).
    if p.alg == Algorithm::Linear
        && (nc * s.dtype.size() >= 32 || (s.dtype == DataType::Bf16 && nc == 8))
    {
        return None;
    }
    let fits = |n: usize| n.checked_mul(nc).is_some_and(|e| e <= MAX_ROW);
    if !fits(s.dims[w]) || !fits(d.dims[w]) {
        return None;
    }
    Some(fwd_row_geom(p, t, w, Some((c, nc)), small))
}

/// The identity axis `c` of 2..=`max_c` elements packed contiguously inside each element of
/// row axis `w` (stride C along `w` in src and dst), the pixels of a flat channels-last row.
pub(crate) fn pixel_axis(p: &Problem, t: &Tables, w: usize, max_c: usize) -> Option<usize> {
    let (s, d) = (&p.src, &p.dst);
    (0..s.rank()).find(|&a| {
        t.fwd[a].is_none()
            && s.strides[a] == 1
            && d.strides[a] == 1
            && (2..=max_c).contains(&d.dims[a])
            && s.strides[w] == d.dims[a]
            && d.strides[w] == d.dims[a]
    })
}

/// The W table over the flat row: output element `o*nc + c` has the taps `i*nc + c` of
/// output pixel `o`, with the same weights in the same order.
pub(crate) fn expand(f: &FwdTaps, nc: usize) -> FwdTaps {
    let nc32 = nc as u32;
    FwdTaps::from_fn(f.outputs() * nc, |j, v| {
        let (ii, ww) = f.taps(j / nc);
        let c = (j % nc) as u32;
        v.extend(ii.iter().zip(ww).map(|(&i, &w)| (i * nc32 + c, w)));
    })
}

/// A raw nearest row of pixels wider than one element as bytes permuted from windows of
/// the source row: per block of the output row (64 bytes from a 128-byte window with
/// AVX-512 VBMI, 16 from 16 with SSSE3, 32 from 32 by 4-byte words with AVX2:
/// [`simd::permute_blocks`]), where its source
/// window starts and each output byte's index into it. The per-pixel copies it replaces
/// cost a few cycles per pixel (nhwc f32 C=3 1080x1920->2160x3840 took 15 ms where the
/// memory needs 6; u8 with `RESAMPLE_ISA=avx2` 7.9 ms where it needs 1.5).
#[derive(Clone, Debug)]
pub(crate) struct BytePerm {
    pub base: Vec<simd::PermBlock>,
    /// `block` indices per distinct block pattern, each block's from its `block_start` (a
    /// last byte block's past the row's end are 0; a last word block ends the row). Blocks
    /// share their pattern: a row's table is then a few patterns and 8 bytes a block, where
    /// it was as large as the row and, not reused on a long 1-D row, read from memory beside
    /// it (nwc f32 C=4 1x4 33736->67473 nearest: 66 us, oneDNN 59).
    pub idx: Vec<u8>,
    pub block: usize,
    /// Source window bytes a block reads: the ISA's, or for word permutes 32, else 64
    /// (two vectors, 2x downsampling).
    pub window: usize,
    pub out_bytes: usize,
    pub src_bytes: usize,
}

impl BytePerm {
    /// The tables for pixels of `px` bytes, output pixel `o` being source pixel
    /// `pix[o]` of `n_in`, when the CPU has byte permutes and every block's source bytes
    /// fit their window.
    pub(crate) fn new(pix: &[u32], px: usize, n_in: usize) -> Option<BytePerm> {
        let (block, window) = simd::permute_blocks(px)?;
        let wide = simd::word_permutes(block).then(|| 2 * window);
        Self::with_window(pix, px, n_in, block, window)
            .or_else(|| Self::with_window(pix, px, n_in, block, wide?))
    }

    /// [`BytePerm::new`] for `block`-byte blocks reading `window`-byte windows.
    fn with_window(
        pix: &[u32],
        px: usize,
        n_in: usize,
        block: usize,
        window: usize,
    ) -> Option<BytePerm> {
        // Pixels of two blocks or more copy as they are (nhwc f32 C=8 nearest, 16-byte
        // SSSE3 blocks, Zen 1, 1 thread: 8x8 50x50 -> 91x91 0.258 ms permuted, 0.088
        // copied, oneDNN 0.13-0.14; 1x8 1080x1920 -> 1500x2500 15.9, 10.4, 10.2-10.5).
        if px >= 2 * block {
            return None;
        }
        let out_bytes = pix.len().checked_mul(px)?;
        let src_bytes = n_in.checked_mul(px)?;
        if src_bytes >= u32::MAX as usize {
            return None;
        }
        let at = |o: usize| pix[o / px] as usize * px + o % px;
        let blocks = out_bytes.div_ceil(block);
        let mut t = BytePerm {
            base: Vec::with_capacity(blocks),
            idx: Vec::new(),
            block,
            window,
            out_bytes,
            src_bytes,
        };
        let mut patterns: HashMap<Vec<u8>, u32> = HashMap::new();
        let mut pattern = vec![0u8; block];
        for j in 0..blocks {
            let start = t.block_start(j);
            let r = start..(start + block).min(out_bytes);
            // A window reaching past the row's end moves back to end with it (it still holds
            // the block: `hi < src_bytes`), so that only rows shorter than a window need
            // masked or partial loads (masked loads are slow on Zen 1).
            let lo = r.clone().map(at).min()?;
            let hi = r.clone().map(at).max()?;
            if hi - lo >= window {
                return None;
            }
            let lo = lo.min(src_bytes.saturating_sub(window));
            pattern.fill(0);
            for o in r {
                pattern[o - start] = (at(o) - lo) as u8;
            }
            let pat = match patterns.get(&pattern) {
                Some(&pat) => pat,
                None => {
                    let pat = u32::try_from(t.idx.len()).ok()?;
                    t.idx.extend_from_slice(&pattern);
                    patterns.insert(pattern.clone(), pat);
                    pat
                }
            };
            t.base.push(simd::PermBlock {
                src: lo as u32,
                pat,
            });
        }
        Some(t)
    }

    /// First output byte of block `j`: `j` blocks in, except that the last word block of a
    /// row of one block or more ends the row (overlapping the one before), so that every
    /// word block is a whole store (AVX2 masked stores are slow on AMD).
    pub(crate) fn block_start(&self, j: usize) -> usize {
        simd::permute_block_start(self.block, self.out_bytes, j)
    }

    /// Whether pixels of `px` bytes get AVX2 word permutes here (see
    /// [`simd::permute_blocks`]).
    pub(crate) fn words(px: usize) -> bool {
        simd::permute_blocks(px).is_some_and(|(b, _)| simd::word_permutes(b))
    }

    /// Whether these are word-permute tables.
    pub(crate) fn by_words(&self) -> bool {
        simd::word_permutes(self.block)
    }

    /// Writes the row's `out_bytes` at `dst` from the source row at `src`.
    ///
    /// # Safety
    /// `src` holds the `src_bytes` of the row these tables were built for, `dst` has room
    /// for `out_bytes`, and the ISA is the one they were built under.
    /// With `bf16_fix`, the bytes are bf16 values fixed up as [`simd::bf16_fix`] does, in
    /// registers (a pass of its own over a long row read it back from L2).
    pub(crate) unsafe fn permute(&self, src: *const u8, dst: *mut u8, bf16_fix: bool) {
        // SAFETY: the caller's contract; `new` made every `base + idx` of a stored byte
        // fall within `src_bytes` and within its block's window.
        unsafe {
            simd::permute_bytes(
                &self.base,
                &self.idx,
                (self.block, self.window),
                src,
                self.src_bytes,
                dst,
                self.out_bytes,
                bf16_fix,
            )
        }
    }

    /// [`BytePerm::permute`] of several rows (source, destination) by word tables in one
    /// loop; `false` (nothing written) where these are not word tables.
    ///
    /// # Safety
    /// As [`BytePerm::permute`], for each row.
    pub(crate) unsafe fn permute_rows(
        &self,
        rows: &[(*const u8, *mut u8)],
        bf16_fix: bool,
    ) -> bool {
        // SAFETY: as in `permute`.
        unsafe {
            simd::permute_word_rows(
                &self.base,
                &self.idx,
                (self.block, self.window),
                self.src_bytes,
                self.out_bytes,
                rows,
                bf16_fix,
            )
        }
    }

    /// [`BytePerm::permute`] to every row of `dsts` with streamed stores; `false` (nothing
    /// written) where [`simd::permute_bytes_stream`] does not apply.
    ///
    /// # Safety
    /// As [`BytePerm::permute`], for each of `dsts`.
    pub(crate) unsafe fn permute_stream(
        &self,
        src: *const u8,
        dsts: &[*mut u8],
        bf16_fix: bool,
    ) -> bool {
        // SAFETY: as in `permute`.
        unsafe {
            simd::permute_bytes_stream(
                &self.base,
                &self.idx,
                (self.block, self.window),
                src,
                self.src_bytes,
                dsts,
                self.out_bytes,
                bf16_fix,
            )
        }
    }
}

/// Stores a flat row of f32 results at dst element `off` with post-ops, the logical index
/// of element `j` being `(w, c) = (j / nc, j % nc)`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn finish_pixels(
    p: &Problem,
    b: Bufs<'_>,
    vals: &[f32],
    off: usize,
    idx: &mut [usize],
    w: usize,
    c: usize,
    nc: usize,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let dt = p.dst.dtype;
        let sz = dt.size();
        let base = b.dst.add(off * sz);
        for (j, &v) in vals.iter().enumerate() {
            idx[w] = j / nc;
            idx[c] = j % nc;
            let dp = base.add(j * sz);
            store_f32(dp, dt, post_ops(p, v, dp, idx, b.bins), p.numerics);
        }
        idx[w] = 0;
        idx[c] = 0;
    }
}

/// Calls `$f::<[u8; N]>(args)` for pixel sizes the compiler can copy in a few moves (the
/// flat-row kernel's pixels: up to 8 channels of u8, bf16 or f32), or `$other` for the
/// rest (a `memmove` call per pixel: two thirds of nhwc f32 C=8 1031x541->344x1082
/// nearest).
macro_rules! by_pixel_size {
    ($size:expr, $f:ident, ($($arg:expr),*), $other:expr) => {
        match $size {
            3 => $f::<[u8; 3]>($($arg),*),
            5 => $f::<[u8; 5]>($($arg),*),
            6 => $f::<[u8; 6]>($($arg),*),
            7 => $f::<[u8; 7]>($($arg),*),
            10 => $f::<[u8; 10]>($($arg),*),
            12 => $f::<[u8; 12]>($($arg),*),
            14 => $f::<[u8; 14]>($($arg),*),
            16 => $f::<[u8; 16]>($($arg),*),
            20 => $f::<[u8; 20]>($($arg),*),
            24 => $f::<[u8; 24]>($($arg),*),
            28 => $f::<[u8; 28]>($($arg),*),
            32 => $f::<[u8; 32]>($($arg),*),
            _ => $other,
        }
    };
}

#[inline(always)]
unsafe fn gather_body<T: Copy>(src: *const u8, dst: *mut u8, idx: &[u32]) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let (s, d) = (src as *const T, dst as *mut T);
        for (o, &i) in idx.iter().enumerate() {
            d.add(o).write_unaligned(s.add(i as usize).read_unaligned());
        }
    }
}

/// `dst pixel o = src pixel idx[o]`, pixels of `size` bytes (a raw nearest row).
pub(crate) unsafe fn gather_px(size: usize, src: *const u8, dst: *mut u8, idx: &[u32]) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        match size {
            1 | 2 | 4 | 8 => simd::gather_raw(size, src, dst, idx),
            _ => by_pixel_size!(size, gather_body, (src, dst, idx), {
                for (o, &i) in idx.iter().enumerate() {
                    std::ptr::copy_nonoverlapping(
                        src.add(i as usize * size),
                        dst.add(o * size),
                        size,
                    );
                }
            }),
        }
    }
}

/// Copies `n` bytes from `src` to `dst` (not overlapping) in the direction where no load
/// waits on a recent store to the same offset within a 4 KiB page: copying a row to the
/// next one, `dst` a little over a multiple of 4 KiB past `src`, a forward copy's every
/// load was taken for one reading the store just before it (nhwc bf16 C=4 2x300x178 ->
/// 601x513 nearest, 4104-byte rows: `memmove` was three quarters of the time, 0.86 ms;
/// oneDNN 0.70).
pub(crate) unsafe fn copy_row(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: the caller's `n` readable bytes at `src`, `n` writable at `dst`, apart.
    unsafe {
        const CH: usize = 64;
        let ahead = dst.wrapping_sub(src as usize) as usize % 4096;
        if n < 8 * CH || ahead >= 1024 {
            return std::ptr::copy_nonoverlapping(src, dst, n);
        }
        // Backward: the stores just before a load are at higher offsets.
        let mut i = n;
        while i >= CH {
            i -= CH;
            let v = (src.add(i) as *const [u8; CH]).read_unaligned();
            (dst.add(i) as *mut [u8; CH]).write_unaligned(v);
        }
        std::ptr::copy_nonoverlapping(src, dst, i);
    }
}

#[inline(always)]
unsafe fn repeat_body<T: Copy>(src: *const u8, dst: *mut u8, n: usize, k: usize) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let (s, d) = (src as *const T, dst as *mut T);
        for i in 0..n {
            let v = s.add(i).read_unaligned();
            for j in 0..k {
                d.add(i * k + j).write_unaligned(v);
            }
        }
    }
}

/// `dst pixel i*k + j = src pixel i` for `i < n`, `j < k`, pixels of `size` bytes: nearest
/// upsampling by an integer factor.
pub(crate) unsafe fn repeat_px(size: usize, src: *const u8, dst: *mut u8, n: usize, k: usize) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        match size {
            1 | 2 | 4 | 8 => simd::repeat_raw(size, src, dst, n, k),
            _ => by_pixel_size!(size, repeat_body, (src, dst, n, k), {
                for i in 0..n * k {
                    std::ptr::copy_nonoverlapping(src.add(i / k * size), dst.add(i * size), size);
                }
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    /// `copy_row` copies every byte whatever the direction it picks: rows short and long,
    /// whole chunks or not, the destination just past a multiple of 4 KiB (backward) or
    /// elsewhere (forward).
    #[test]
    fn copy_row_copies_every_byte_either_way() {
        let buf: Vec<u8> = (0..40000u32).map(|i| (i * 7 + i / 251) as u8).collect();
        for n in [0, 1, 63, 64, 511, 512, 513, 1539, 4096, 4104, 8000] {
            for gap in [0, 8, 100, 1000, 1100, 2000, 3000, 4000] {
                let ahead = 4096 * 2 + gap;
                let mut out = buf.clone();
                let (src, dst) = (3usize, 3 + ahead.max(n));
                // SAFETY: both ranges lie in `out` and do not overlap.
                unsafe {
                    let p = out.as_mut_ptr();
                    super::copy_row(p.add(src), p.add(dst), n);
                }
                assert_eq!(out[dst..dst + n], buf[src..src + n], "n {n} gap {gap}");
                assert_eq!(out[..dst], buf[..dst]);
                assert_eq!(out[dst + n..], buf[dst + n..]);
            }
        }
    }

    /// The byte permute tables and kernel move every byte where the pixel mapping says, at
    /// every pixel size, for nearest tables up, down and odd (the source row allocated to
    /// its exact size, so the window loads near its end are the masked ones); tables that
    /// do not fit are refused. Every ISA of this CPU builds its own block size; where there
    /// are no byte permutes there are no tables.
    #[test]
    fn byte_permutes_follow_the_pixel_map() {
        use super::super::super::simd;
        for isa in simd::available_isas() {
            simd::with_isa(isa, byte_permutes_on_this_isa);
        }
    }

    fn byte_permutes_on_this_isa() {
        use super::super::super::simd;
        use super::BytePerm;
        let mut rng = crate::core::tests::Rng::new(0xb17e_5eed);
        let mut built = 0;
        for case in 0..400 {
            let px = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32][case % 10];
            // Short rows in a third of the cases (word rows' tables held in registers).
            let n_in = 1 + rng.below(300);
            let n_out = 1 + rng.below(if case % 3 == 0 { 70 } else { 700 });
            // Nearest-like: non-decreasing, spread over the source.
            let pix: Vec<u32> = (0..n_out)
                .map(|o| ((o * n_in) / n_out).min(n_in - 1) as u32)
                .collect();
            let Some(bp) = BytePerm::new(&pix, px, n_in) else {
                continue;
            };
            built += 1;
            let src: Vec<u8> = (0..n_in * px).map(|_| rng.next() as u8).collect();
            let mut out = vec![0u8; n_out * px];
            // SAFETY: the tables were built for this row; the buffers have their sizes.
            unsafe { bp.permute(src.as_ptr(), out.as_mut_ptr(), false) };
            for (o, &v) in out.iter().enumerate() {
                let want = src[pix[o / px] as usize * px + o % px];
                assert_eq!(v, want, "case {case} px {px} {n_in}->{n_out} byte {o}");
            }
            // Word tables permute several rows in one call: three sources (the row shifted
            // by a word each), three rows of output.
            if simd::word_permutes(bp.block) {
                let srcs: Vec<u8> = (0..n_in * px + 8).map(|_| rng.next() as u8).collect();
                let mut outs = vec![0u8; 3 * n_out * px];
                let rows: Vec<(*const u8, *mut u8)> = (0..3)
                    // SAFETY: each source row's `n_in * px` bytes and output row lie in
                    // their buffers.
                    .map(|r| unsafe {
                        (
                            srcs.as_ptr().add(4 * r),
                            outs.as_mut_ptr().add(r * n_out * px),
                        )
                    })
                    .collect();
                // SAFETY: as above; the tables were built for these rows.
                assert!(unsafe { bp.permute_rows(&rows, false) });
                for (o, &v) in outs.iter().enumerate() {
                    let (r, o) = (o / (n_out * px), o % (n_out * px));
                    let want = srcs[4 * r + pix[o / px] as usize * px + o % px];
                    assert_eq!(
                        v, want,
                        "case {case} px {px} {n_in}->{n_out} row {r} byte {o}"
                    );
                }
            }
            // Streamed to 1-3 rows that start lines: each the same bytes; refused (nothing
            // written) where a row does not start one.
            let row = (n_out * px).next_multiple_of(64);
            let mut lines = crate::core::aligned::AlignedBuf::<u8>::zeroed(3 * row + 64);
            let at = lines.as_mut_ptr();
            for k in 1..=3 {
                // SAFETY: `k` rows of `row >= n_out * px` bytes lie in the buffer.
                let rows: Vec<*mut u8> = (0..k).map(|r| unsafe { at.add(r * row) }).collect();
                // SAFETY: as above; the tables were built for this row.
                let done = unsafe { bp.permute_stream(src.as_ptr(), &rows, false) };
                assert!(done, "case {case}: streamed permutes refused");
            }
            for r in 0..3 {
                let got = &lines[r * row..r * row + n_out * px];
                assert_eq!(got, &out[..], "case {case} px {px} streamed row {r}");
            }
            // SAFETY: as above, one byte into the buffer.
            let shifted = unsafe { [at.add(1)] };
            // SAFETY: as above.
            assert!(!unsafe { bp.permute_stream(src.as_ptr(), &shifted, false) });
            // bf16 pixels fixed up in registers: each value as bf16_fix leaves it.
            if px % 2 == 0 {
                let mut fixed = vec![0u8; n_out * px];
                // SAFETY: as above.
                unsafe { bp.permute(src.as_ptr(), fixed.as_mut_ptr(), true) };
                let want: Vec<u8> = out
                    .chunks_exact(2)
                    .flat_map(|b| {
                        let v = u16::from_le_bytes([b[0], b[1]]);
                        simd::bf16_roundtrip_bits(v).to_le_bytes()
                    })
                    .collect();
                assert_eq!(fixed, want, "case {case} px {px} {n_in}->{n_out} fixed");
            }
        }
        let isa = simd::isa();
        let want = simd::byte_permute_blocks().is_some();
        assert_eq!(built > 100, want, "{isa:?}: {built} tables");
        // Blocks with the same indices share them: a 2x row of 4-byte pixels holds a few
        // patterns (the windows near the row's end move back), whatever its length.
        if want {
            let pix: Vec<u32> = (0..4000).map(|o| o / 2).collect();
            let bp = BytePerm::new(&pix, 4, 2000).expect("2x tables");
            assert!(
                bp.idx.len() <= 8 * bp.block,
                "{isa:?}: {} bytes",
                bp.idx.len()
            );
        }
    }
}
