//! The row-wise forward walk of the `lanes` kernel (see [`PixelRows`]): a run is a row of
//! output pixels (or a batch of short rows, or a row in every lane block), its corners
//! looked up per row and its pixels' taps tabulated with the plan.

use super::*;

/// Row-wise forward walk of the `lanes` kernel: runs cover every axis but the lane axis and
/// the pixel axis `px` (the last other axis); one call handles all pixels of a row, so the
/// per-pixel cost is a table lookup instead of a run setup.
#[derive(Clone, Debug)]
pub(crate) struct PixelRows {
    pub px: usize,
    /// Raw nearest copies of short rows: the axis outside `px` whose rows are walked inside
    /// one run too (dst rows back to back), `taps` then covering its pixels row by row.
    pub px2: Option<usize>,
    /// Rows of `px2` per run (a run takes its share of `taps`).
    pub px2_rows: usize,
    /// Short rows of a blocked layout: a run takes the row of every lane block at once
    /// (see [`lanes_rows`]).
    pub blocks_inside: bool,
    /// With `blocks_inside`, the row's taps for every block, pixel-major (each pixel's
    /// blocks `blk_src` apart); empty otherwise.
    pub block_taps: PixelTaps,
    pub runs: usize,
    /// Pixels (of one lane block) a run writes: what the threads' grain counts.
    pub run_pixels: usize,
    /// Per output pixel: src element offsets of its two taps along `px` and their weights;
    /// with one tap (nearest, identity) the offsets are equal and `two_taps` is false.
    pub taps: Vec<(usize, usize, f32, f32)>,
    /// Raw nearest copies: each pixel's src offset alone (`taps`' first), a sixth of the
    /// table's bytes: a long row's table is read from memory with the pixels (nCx16c u8
    /// 1x16 100000->33333 nearest: 82 us with the 24-byte taps, oneDNN 54).
    pub offs: Vec<u32>,
    pub two_taps: bool,
    /// The flat-row walk's tables (see [`lanes`]), when it applies.
    pub flat: Option<lanes::FlatRow>,
    /// The corners of every row, when there are few enough rows (see [`RowCorners`]).
    pub rows: Option<RowCorners>,
}

/// Rows shorter than this (pixels) are batched by the row-wise `lanes` walk where they
/// follow each other in dst, up to [`BATCH_PIXELS`] pixels a batch.
const BATCH_ROW: usize = 16;
const BATCH_PIXELS: usize = 256;
/// Most values a row the flat walk takes may have to be batched (see [`lanes_rows`]).
const BATCH_VALUES: usize = 256;
/// Rows of at most this many pixels in at least [`BLOCKS_MIN`] lane blocks run every block
/// at once (see [`PixelRows::blocks_inside`]): per-row runs cost more than the row there
/// (nCx16c bf16 1x256 1x1->2x2 linear 1.4 -> 0.7 us, f32 8x256 2x7->5x2 16.2 -> 6.9, 8x128
/// 2x2x4->4x5x2 39.6 -> 20.7; oneDNN 0.8, 13.7, 33.0), but longer rows and fewer blocks
/// lose the flat walk (f32 8x256 7x7->14x14 96 -> 127 us, 8x64 same unchanged at 8 pixels
/// and four blocks: 23 -> 32 us).
const BLOCKS_ROW: usize = 4;
const BLOCKS_MIN: usize = 8;

/// Most output pixels per row the row-wise lanes walk tabulates (32 MiB of table).
const MAX_PIXELS: usize = 1 << 20;

pub(super) fn pixel_rows(p: &Problem, t: &Tables, l: &LaneGeom) -> Option<PixelRows> {
    let rank = p.dst.rank();
    if p.direction != Direction::Forward || !l.small || l.block > ROW_BUF {
        return None;
    }
    let px = (0..rank).rev().find(|&a| a != l.c)?;
    // The per-pixel table is built at plan time; an identity pixel axis is not bounded by
    // the tap-table limit, so a huge one would allocate gigabytes (a fuzzer finding).
    if p.dst.dims[px] > MAX_PIXELS {
        return None;
    }
    let stride = p.src.strides[px];
    let (taps, two_taps) = match &t.fwd[px] {
        None => (
            (0..p.dst.dims[px])
                .map(|o| (o * stride, o * stride, 1.0, 0.0))
                .collect(),
            false,
        ),
        Some(f) => {
            let two = f.max_taps() == 2;
            let taps = (0..f.outputs())
                .map(|o| {
                    let (ii, ww) = f.taps(o);
                    let (i0, i1) = (ii[0] as usize * stride, ii[ii.len() - 1] as usize * stride);
                    if two {
                        (i0, i1, ww[0], ww[1])
                    } else {
                        (i0, i0, 1.0, 0.0)
                    }
                })
                .collect();
            (taps, two)
        }
    };
    let (taps, merged) = merge_rows(p, t, l, px, taps);
    let px2 = merged.map(|m| m.0);
    let offs = match p.raw_nearest() {
        // (Offsets past 32 bits, a row of 4G elements: the general walk.)
        Some(_) => taps
            .iter()
            .map(|t| u32::try_from(t.0).ok())
            .collect::<Option<_>>()?,
        None => Vec::new(),
    };
    let blocks_inside = l.nblk >= BLOCKS_MIN
        && p.dst.dims[l.c].is_multiple_of(l.block)
        && p.raw_nearest().is_none()
        && p.post_ops.is_empty()
        && taps.len() <= BLOCKS_ROW;
    let block_taps = match blocks_inside {
        true => taps
            .iter()
            .flat_map(|&(a0, a1, u, v)| {
                (0..l.nblk).map(move |j| {
                    let sh = j * l.blk_src;
                    (a0 + sh, a1 + sh, u, v)
                })
            })
            .collect(),
        false => Vec::new(),
    };
    let runs = if blocks_inside { 1 } else { l.nblk }
        * (0..rank)
            .filter(|&a| a != l.c && a != px && Some(a) != px2)
            .map(|a| p.dst.dims[a])
            .product::<usize>()
        * merged.map_or(1, |(a, k)| p.dst.dims[a].div_ceil(k));
    // (A merged table holds every row of `px2`; a run takes `px2_rows` of them.)
    let run_pixels = match merged {
        Some((a, k)) => taps.len() / p.dst.dims[a].max(1) * k,
        None if blocks_inside => taps.len() * l.nblk,
        None => taps.len(),
    };
    let mut pr = PixelRows {
        px,
        px2,
        run_pixels,
        px2_rows: merged.map_or(1, |m| m.1),
        blocks_inside,
        block_taps,
        runs,
        taps,
        offs,
        two_taps,
        flat: None,
        rows: None,
    };
    pr.flat = lanes::flat_row(p, l, &pr);
    let others = pixel_others(t, &pr);
    pr.rows = RowCorners::new(t, &p.src.strides, &others, &p.dst.dims);
    Some(pr)
}

/// A thread's table of shifted batch taps (see [`lanes_rows`]), lent to one call at a
/// time and given back, emptied, when the call ends.
struct BatchedTaps(PixelTaps);

thread_local! {
    static BATCHED: std::cell::Cell<PixelTaps> = const { std::cell::Cell::new(Vec::new()) };
}

impl BatchedTaps {
    fn take() -> Self {
        // (During thread exit the table may be gone: a call then builds its own.)
        BatchedTaps(BATCHED.try_with(std::cell::Cell::take).unwrap_or_default())
    }
}

impl Drop for BatchedTaps {
    fn drop(&mut self) {
        let mut v = std::mem::take(&mut self.0);
        v.clear();
        let _ = BATCHED.try_with(|c| c.set(v));
    }
}

/// The resampled axes a row-wise lanes run blends outside its pixel axes, in order.
fn pixel_others(t: &Tables, pr: &PixelRows) -> AxisList {
    AxisList::of(
        t.resampled
            .iter()
            .copied()
            .filter(|&a| a != pr.px && Some(a) != pr.px2),
    )
}

/// Pixels per run below which raw nearest copies take the next outer axis into the run
/// (below [`LONG_ROW`] where that axis' rows are not copied in pairs; see [`merge_rows`]).
const SHORT_ROW: usize = 64;
const LONG_ROW: usize = 1024;

/// Most elements a run of merged rows copies: a plane large enough to be split among
/// threads is split into runs of this size (nCx16c bf16 1x16 77x160->154x53 nearest was
/// one run, 10.6 us at two threads; oneDNN 7.2).
const MERGED_RUN: usize = 1 << 14;

/// For a raw nearest copy with short rows, the pixel table of whole planes: the axis `px2`
/// outside `px` (not the lane axis) joins the run when dst holds its rows back to back, so a
/// run copies up to `dims[px2] * dims[px]` pixels instead of one short row (small 3-D
/// problems spent most of their time in per-run setup). Returns the table (every row of
/// `px2` in turn, offsets from the plane's base) and `(px2, rows a run takes)`.
fn merge_rows(
    p: &Problem,
    t: &Tables,
    l: &LaneGeom,
    px: usize,
    taps: PixelTaps,
) -> (PixelTaps, Option<(usize, usize)>) {
    let d = &p.dst;
    // (Axes of one output between them add nothing to the walk: the next one out joins.)
    let Some(px2) = (0..px).rev().find(|&a| a != l.c && d.dims[a] > 1) else {
        return (taps, None);
    };
    let n2 = d.dims[px2];
    // Rows of up to LONG_ROW pixels join too where two fit a run, unless they are repeated
    // rows of whole 64-byte pixels (AVX-512 copies those to both rows at once, see
    // `simd::copy_pixels_twice`; AVX2 too lost merging them). 1 thread, Granite Rapids, us:
    // nwc f32 16x64 32->64 6.2 -> 5.8 (oneDNN 6.0), nhwc u8 8x16 40x40->80x80 24.4 -> 19.7,
    // ndhwc f32 8x24 28x50x10->14x25x30 483 -> 455 (498); merged where they are repeated:
    // nhwc f32 1x32 56x56->112x112 37 -> 44, AVX2 8x64 1.21 -> 1.32 ms.
    let twins = (l.block * d.dtype.size()).is_multiple_of(64) && p.src.dims[px2] < n2;
    let short = match twins {
        false if 2 * taps.len() * l.block <= MERGED_RUN => LONG_ROW,
        _ => SHORT_ROW,
    };
    if p.raw_nearest().is_none()
        || taps.len() >= short
        || n2 < 2
        || d.strides[px2] != taps.len() * d.strides[px]
        || n2.saturating_mul(taps.len()) > MAX_PIXELS
    {
        return (taps, None);
    }
    let stride2 = p.src.strides[px2];
    let row_off = |o: usize| match &t.fwd[px2] {
        None => o * stride2,
        Some(f) => f.taps(o).0[0] as usize * stride2,
    };
    let merged = (0..n2)
        .flat_map(|o2| {
            let base = row_off(o2);
            taps.iter()
                .map(move |&(a, b, w0, w1)| (base + a, base + b, w0, w1))
        })
        .collect();
    let rows = (MERGED_RUN / (taps.len() * l.block).max(1)).clamp(1, n2);
    (merged, Some((px2, rows)))
}

/// The row-wise forward `lanes` walk over runs `start..end` (see [`PixelRows`]).
pub(crate) unsafe fn lanes_rows(
    p: &Problem,
    t: &Tables,
    g: &LaneGeom,
    pr: &PixelRows,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let rank = p.dst.rank();
        let (s, d) = (&p.src, &p.dst);
        let (ssz, dsz) = (s.dtype.size(), d.dtype.size());
        let px = pr.px;
        let others = pixel_others(t, pr);
        let npx = pr.taps.len();
        let dstep = d.strides[px];
        let cdim = d.dims[g.c];
        let raw = p.raw_nearest();
        let stream = crate::core::streaming::now();
        // Allocated on first use: raw copies and f32 rows written in place never need it,
        // and zeroing it cost small problems a tenth of their time.
        let mut buf = AlignedBuf::<f32>::new();
        let mut row = AlignedBuf::new();
        // Merged rows: runs walk groups of `px2_rows` rows (`taps` holds their offsets from
        // the plane's base, so no src stride).
        let inside = pr.px2.map_or((px, 1, 0, 0), |a| {
            let k = pr.px2_rows;
            (a, d.dims[a].div_ceil(k), k * d.strides[a], 0)
        });
        let row_px = pr.px2.map_or(npx, |_| d.dims[px]);
        let blocks = match pr.blocks_inside {
            true => (g.c, 1, 0, 0),
            false => (g.c, g.nblk, g.blk_dst, g.blk_src),
        };
        let mut runs = Runs::new(p, t, &[blocks, (px, 1, 0, 0), inside], start);
        // Short rows that follow each other along the innermost other axis (an identity
        // axis or the lane blocks), back to back in dst, go as one row of all their pixels:
        // the same corners shifted by that axis' src stride, one call for the batch instead
        // of a run setup and a dispatch per row (nCx16c bf16 8x512 2->1 linear: 22 ns a
        // row of one pixel). Rows the flat walk takes batch only while short in values
        // too: it converts each column once (nhwc bf16 256x64 8->15: 27 us by flat rows,
        // 30 batched).
        let short = npx < BATCH_ROW && (pr.flat.is_none() || npx * g.block <= BATCH_VALUES);
        let batch = if raw.is_none() && p.post_ops.is_empty() && short && !pr.blocks_inside {
            (0..rank)
                .rev()
                .find(|&a| runs.ext[a] > 1)
                .filter(|&a| (a == g.c || t.fwd[a].is_none()) && runs.dstr[a] == npx * dstep)
        } else {
            None
        };
        let most = if batch.is_some() { BATCH_PIXELS } else { npx };
        let group = (ROW_BUF / g.block.max(1)).clamp(1, most.max(1));
        // A batch's shifted taps are the same for every run: built once per call, as many
        // rows' worth as the call has (a tiny call paid 0.3 us for the full table); a batch
        // of `rows` runs reads the first `rows` rows' worth.
        // (In the thread's own table: an allocation a call was a fifth of a tiny call,
        // nCx16c bf16 1x32 28->9 linear.)
        let mut batched = BatchedTaps::take();
        if let Some(a) = batch {
            for j in 0..(BATCH_PIXELS / npx.max(1)).min(end - start) {
                let sh = j * runs.sstr[a];
                let shifted = pr.taps.iter().map(|&(a, b, u, v)| (a + sh, b + sh, u, v));
                batched.0.extend(shifted);
            }
        }
        let mut narrowed: Vec<u8> = Vec::new();
        let mut r = start;
        while r < end {
            let blk = runs.pos[g.c];
            let mut idx = runs.pos;
            idx[g.c] = blk * g.block;
            let valid = g.block.min(cdim - (blk * g.block).min(cdim));
            let (doff, sbase) = (runs.doff, runs.sbase);
            let group2 = pr.px2.map_or(0, |a| runs.pos[a]);
            let mut rows = 1;
            if let Some(a) = batch {
                rows = (runs.ext[a] - runs.pos[a])
                    .min(end - r)
                    .min(BATCH_PIXELS / npx.max(1))
                    .max(1);
                if a == g.c && !cdim.is_multiple_of(g.block) {
                    // The partial last block (other valid lanes, padding) goes alone.
                    rows = rows.min(g.nblk - 1 - runs.pos[a]).max(1);
                }
            }
            if rows == 1 {
                runs.advance();
            } else {
                runs.advance_by(rows);
            }
            r += rows;
            // The run's share of a merged table (else all of it).
            let span = match pr.px2 {
                Some(a) => {
                    let k = pr.px2_rows * row_px;
                    group2 * k..((group2 + 1) * k).min(d.dims[a] * row_px)
                }
                None => 0..pr.taps.len(),
            };
            let taps: &[(usize, usize, f32, f32)] = if pr.px2.is_some() {
                &pr.taps[span.clone()]
            } else if rows == 1 {
                &pr.taps
            } else {
                &batched.0[..rows * pr.taps.len()]
            };
            let npx = taps.len();
            let sc = match &pr.rows {
                Some(rc) => rc.get(&idx, sbase),
                None => SmallCorners::fill(t, &others, &s.strides, &idx[..rank], sbase),
            };
            let pad = g.block - valid;
            if pr.blocks_inside {
                // Every block's pixels in one call (`block_taps`), into scratch; converted at
                // once, then each block's lanes to its place: a run per block and row was 44
                // ns for two pixels (nCx16c bf16 1x256 1x1->2x2 linear).
                let n = pr.block_taps.len() * g.block;
                if buf.len() < n {
                    buf.resize(n);
                }
                let m = sc.m + pr.two_taps as usize;
                let vals = &mut buf[..n];
                simd::lanes_row(
                    s.dtype,
                    m,
                    b.src,
                    &sc.offs,
                    &sc.w,
                    &pr.block_taps,
                    pr.two_taps,
                    vals,
                    false,
                );
                let bytes = if d.dtype == DataType::F32 {
                    vals.as_ptr() as *const u8
                } else {
                    if narrowed.len() < n * dsz {
                        narrowed.resize(n * dsz, 0);
                    }
                    simd::store_contiguous(d.dtype, p.numerics, vals, narrowed.as_mut_ptr());
                    narrowed.as_ptr()
                };
                let bsz = g.block * dsz;
                for q in 0..pr.taps.len() {
                    for j in 0..g.nblk {
                        let to = b.dst.add((doff + q * dstep + j * g.blk_dst) * dsz);
                        std::ptr::copy_nonoverlapping(bytes.add((q * g.nblk + j) * bsz), to, bsz);
                    }
                }
                continue;
            }
            if let (Some(raw), 0) = (raw, sc.m) {
                // Pixels stream only as whole cache lines: a pixel ending mid-line would
                // mix streamed and plain stores in one line, and each such line is written
                // to memory partially (nhwc f32 C=17 4x17 354x319->177x160: 6.5 ms
                // streamed, 0.9 ms not).
                // Contiguous pixels of whole 32-byte steps stream too: every line of the
                // run is then written by aligned streamed stores alone (nearest, nCx16c
                // bf16 1x16 400000->800000: 1.68 -> 1.30 ms, nhwc f32 2x24 1000x300 ->
                // 2000x600: 14.3 -> 9.0; oneDNN 1.15, 12.3). Other back-to-back pixels past
                // 64 bytes stream as whole lines ([`simd::packs_pixels`]).
                let lines = ((valid * dsz).is_multiple_of(64) && (dstep * dsz).is_multiple_of(64))
                    || (dstep == valid && (valid * dsz).is_multiple_of(32))
                    || simd::packs_pixels(valid * dsz, dstep * dsz);
                let sp = b.src.add(sc.offs[0] * ssz);
                let offs = &pr.offs[span];
                // The next run copying the same source row (upsampling along the axis
                // outside the pixels) is written in the same pass.
                // (Merged rows' runs share their base: never.)
                let next = r < end && pad == 0 && pr.px2.is_none();
                if let Some(rc) = pr.rows.as_ref().filter(|_| next) {
                    let mut nidx = runs.pos;
                    nidx[g.c] = runs.pos[g.c] * g.block;
                    let same = runs.pos[g.c] == blk
                        && runs.doff > doff
                        && rc.row(&nidx).offs[0] + runs.sbase == sc.offs[0];
                    if same {
                        let twin = (runs.doff - doff) * dsz;
                        runs.advance();
                        r += 1;
                        simd::copy_pixels_twice(
                            sp,
                            offs,
                            ssz,
                            valid * dsz,
                            b.dst.add(doff * dsz),
                            dstep * dsz,
                            twin,
                            stream && lines,
                            raw,
                        );
                        continue;
                    }
                }
                simd::copy_pixels(
                    sp,
                    offs,
                    ssz,
                    valid * dsz,
                    b.dst.add(doff * dsz),
                    dstep * dsz,
                    pad * dsz,
                    stream && lines && pad == 0,
                    raw,
                );
                continue;
            }
            // A batch goes pixel by pixel: the flat walk blends one row's stretch.
            if let Some(fr) = pr.flat.as_ref().filter(|_| rows == 1) {
                let r = lanes::FlatRun {
                    sc: &sc,
                    doff,
                    valid,
                    pad,
                    idx: &idx[..rank],
                    c: g.c,
                    stream,
                };
                lanes::flat_run(p, pr, fr, b, r, &mut row, &mut buf);
                continue;
            }
            let m = sc.m + pr.two_taps as usize;
            let mut p0 = 0;
            while p0 < npx {
                let n = group.min(npx - p0);
                let contiguous = p.post_ops.is_empty() && (dstep == valid || n == 1) && pad == 0;
                let taps = &taps[p0..p0 + n];
                let pixels = |vals: &mut [f32], nt: bool| {
                    simd::lanes_row(
                        s.dtype,
                        m,
                        b.src,
                        &sc.offs,
                        &sc.w,
                        taps,
                        pr.two_taps,
                        vals,
                        nt,
                    )
                };
                if contiguous && d.dtype == DataType::F32 {
                    // SAFETY: these pixels' lanes are contiguous in dst and written by this run only.
                    let out = (b.dst as *mut f32).add(doff + p0 * dstep);
                    let m = n * valid;
                    if stream && !(valid * 4).is_multiple_of(64) {
                        // Pixels that are not whole lines stream as one stretch through
                        // scratch: streamed stores of a pixel's aligned steps next to plain
                        // stores of its neighbours' would write lines partially.
                        let sp = simd::scratch_like(&mut buf, out as *const u8, m);
                        pixels(std::slice::from_raw_parts_mut(sp, m), false);
                        simd::stream_copy(sp as *const u8, out as *mut u8, 4 * m);
                    } else {
                        pixels(std::slice::from_raw_parts_mut(out, m), stream);
                    }
                    p0 += n;
                    continue;
                }
                // The pixels narrowed to dst's type in registers, to `out` (`ostride` bytes
                // apart); false where the ISA does not.
                let narrow = |out: *mut u8, ostride: usize| {
                    simd::lanes_row_narrow(
                        s.dtype,
                        m,
                        b.src,
                        &sc.offs,
                        &sc.w,
                        taps,
                        pr.two_taps,
                        valid,
                        out,
                        ostride,
                        d.dtype,
                        p.numerics,
                    )
                };
                if stream && contiguous && d.dtype != DataType::F32 {
                    // Narrowed in registers into scratch at dst's offset within a line, then
                    // streamed as one stretch, no f32 pass between (nhwc bf16 1x64
                    // 2000^2->1500^2 linear: 59.9 -> 54.8 ms).
                    let o = b.dst.add((doff + p0 * dstep) * dsz);
                    let sp = simd::scratch_bytes_like(&mut buf, o, n * valid * dsz);
                    if narrow(sp, valid * dsz) {
                        simd::stream_copy(sp, o, n * valid * dsz);
                        p0 += n;
                        continue;
                    }
                }
                if p.post_ops.is_empty()
                    && !stream
                    && narrow(b.dst.add((doff + p0 * dstep) * dsz), dstep * dsz)
                {
                    if pad > 0 {
                        for q in 0..n {
                            let off = doff + (p0 + q) * dstep + valid;
                            std::ptr::write_bytes(b.dst.add(off * dsz), 0, pad * dsz);
                        }
                    }
                    p0 += n;
                    continue;
                }
                if buf.len() < group * g.block {
                    buf.resize(group * g.block);
                }
                let vals = &mut buf[..n * valid];
                pixels(vals, false);
                if contiguous {
                    simd::store_contiguous_as(
                        stream,
                        d.dtype,
                        p.numerics,
                        vals,
                        b.dst.add((doff + p0 * dstep) * dsz),
                    );
                } else {
                    for q in 0..n {
                        let off = doff + (p0 + q) * dstep;
                        idx[px] = p0 + q;
                        idx[g.c] = blk * g.block;
                        finish(
                            p,
                            b,
                            &vals[q * valid..(q + 1) * valid],
                            off,
                            &mut idx[..rank],
                            g.c,
                        );
                        if pad > 0 {
                            std::ptr::write_bytes(b.dst.add((off + valid) * dsz), 0, pad * dsz);
                        }
                    }
                }
                p0 += n;
            }
        }
        if stream {
            // The non-temporal stores must be visible before this chunk is reported done.
            simd::store_fence();
        }
    }
}
