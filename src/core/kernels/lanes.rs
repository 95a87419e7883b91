//! Flat-row walk of the forward `lanes` kernel (channels-last and blocked layouts).
//!
//! When the pixel axis' src stride equals the lanes per run (nhwc: C; nChw16c: 16), the
//! input columns a row of output pixels reads form one contiguous stretch of src. The levels
//! of the reduction below the pixel axis (D, H) are then blended over that whole stretch in
//! one long vector loop, each input column once, and the pixel axis (the outermost level)
//! is a lerp of two blended columns per output pixel with the per-pixel offsets and weights
//! precomputed at plan time. The values are the reference's: every blended column is the
//! same `acc = v0*w0; acc = acc + v1*w1` chain, computed once instead of once per tap.

use super::super::aligned::AlignedBuf;
use super::super::dtype::DataType;
use super::super::reference::Bufs;
use super::super::simd;
use super::super::Problem;
use super::{finish, LaneGeom, PixelRows, SmallCorners, ROW_BUF};

/// Largest single column (f32 values) of the flat walk.
const FLAT_MAX: usize = 1 << 15;

/// Blended stretch per group of pixels (f32 values): 8 KiB, so that the stretch, the src
/// rows it comes from and the group's output share L1, and the blending of one group
/// overlaps the (streamed) stores of the previous one. Measured on nhwc f32 8x256
/// 32->64: 16 KiB 2.0-2.7 ms, 8 KiB 1.4-1.6 ms; 8x64 56->112: 1.1-1.4 vs 0.98 ms.
const FLAT_GROUP: usize = 1 << 11;

/// Values per row (pixels times lanes) up to which f32 rows are not blended (see
/// [`flat_row`]).
const FLAT_MIN: usize = 256;

/// Plan-time tables of the flat-row walk.
#[derive(Clone, Debug)]
pub(crate) struct FlatRow {
    /// Pixel groups in order: pixels `p0..p1` read the stretch of `len` src elements at
    /// offset `lo` from the row's base corner.
    pub groups: Vec<FlatGroup>,
    /// Per output pixel: element offsets of its two taps from its group's `lo`, weights.
    pub taps: Vec<(usize, usize, f32, f32)>,
    /// Longest stretch.
    pub max_len: usize,
    /// Most pixels in a group.
    pub max_pixels: usize,
}

#[derive(Clone, Debug)]
pub(crate) struct FlatGroup {
    pub p0: usize,
    pub p1: usize,
    pub lo: usize,
    pub len: usize,
}

/// The flat-row tables of a row-wise lanes walk, when the columns are contiguous in src and
/// dense enough (at most about two per output pixel) that blending all of them saves work.
pub(crate) fn flat_row(p: &Problem, l: &LaneGeom, pr: &PixelRows) -> Option<FlatRow> {
    let stride = p.src.strides[pr.px];
    if stride != l.block || stride == 0 || stride > FLAT_MAX || pr.taps.is_empty() {
        return None;
    }
    let lo = pr.taps.iter().map(|t| t.0.min(t.1)).min()?;
    let hi = pr.taps.iter().map(|t| t.0.max(t.1)).max()?;
    let columns = (hi - lo) / stride + 1;
    if columns > 2 * pr.taps.len() + 2 {
        return None;
    }
    // With one level to blend, each column costs two loads and a store and each pixel two
    // more loads, against four loads per pixel read directly: blending pays below about 2/3
    // of a column per pixel (upsampling), not when downsampling (nhwc 8x64 112->75: 2.9 ms
    // blended, 2.4 ms direct). With two (3-D), a pixel read directly takes eight corners
    // and seven lerps, a column four and three: blending pays up to a column a pixel (nhwc
    // u8 2x9 10x20x30->20x30x40 linear: 0.72 ms direct, oneDNN 0.43).
    let levels = (0..p.src.rank())
        .filter(|&d| d != pr.px && p.axes[d] != super::super::AxisRule::Identity)
        .count();
    let blends = levels > 0;
    let (per_column, per_pixel) = if levels >= 2 { (1, 1) } else { (3, 2) };
    if blends && per_column * columns > per_pixel * pr.taps.len() {
        return None;
    }
    if !blends && p.src.dtype != DataType::F32 && columns > pr.taps.len() {
        return None;
    }
    // With AVX-512, f32 pixels of 32 lanes or more and one level read their four corners
    // directly: the direct pixel kernel keeps up with the blend's extra pass there (1
    // thread, Granite Rapids, in-process A/B, direct / blended, ms: nhwc f32 8x64
    // 56x56->112x112 1.24 / 1.41, 4x40 40x64->80x128 0.30 / 0.34, 1x512 26x37->77x112
    // 0.73 / 0.80, 1x128 49x95->176x342 1.30 / 1.51; 2 threads 0.61 / 0.75, 0.18 / 0.20,
    // 0.39 / 0.46). Not with 16 lanes (nhwc 2x16 22x51->88x204 0.080 / 0.073, nCx16c 8x32
    // 11x11->22x22 24 / 22 us), other types (the blend converts each column once), 3-D (two
    // levels), nor AVX2 (mixed: 4x40 0.33 / 0.37, 8x256 32x32->64x64 1.91 / 1.76).
    if levels == 1
        && p.src.dtype == DataType::F32
        && p.dst.dtype == DataType::F32
        && l.block >= 32
        && simd::isa() == simd::Isa::Avx512
    {
        return None;
    }
    // Short f32 rows of whole 16-lane vectors read their corners directly: below about 256
    // values a row the blend's own pass and call cost more than it saves (1 thread, Zen 4,
    // AVX-512, us, direct / blended: nhwc f32 4x16 2x1->4x2 0.50 / 0.61, 4x16 5x5->10x10
    // 1.73 / 1.85, 4x64 2x2->4x4 0.84 / 1.04, nCx16c 4x64 4x4->8x8 4.88 / 5.79, ndhwc 2x16
    // 2^3->4^3 1.27 / 1.39; even at 384 values, nhwc 4x32 6x6->12x12 3.13 / 3.15; blended
    // ahead from 512, 4x64 8x8->16x16 8.40 / 7.03). Partial vectors keep it: the blend runs
    // over the stretch in whole vectors, the direct corners each with a masked tail (4x17
    // 3x5->6x10 1.70 / 1.87 blended, 4x24 1.42 / 1.51, 4x8 5x5->10x10 1.67 / 1.77); so do
    // other types: it converts each column once (nhwc bf16 4x48 3x3->6x6 1.74 / 1.41).
    if blends
        && p.src.dtype == DataType::F32
        && l.block.is_multiple_of(16)
        && pr.taps.len() * l.block <= FLAT_MIN
    {
        return None;
    }
    // Greedy groups of consecutive pixels whose columns span at most FLAT_GROUP values (at
    // least one pixel each); taps only move forward along a row, so groups overlap by at
    // most a column or two.
    let mut groups = Vec::new();
    let mut taps = Vec::with_capacity(pr.taps.len());
    let mut p0 = 0;
    while p0 < pr.taps.len() {
        let (mut glo, mut ghi) = (usize::MAX, 0);
        let mut p1 = p0;
        while p1 < pr.taps.len() {
            let t = pr.taps[p1];
            let (nlo, nhi) = (glo.min(t.0.min(t.1)), ghi.max(t.0.max(t.1)));
            if p1 > p0 && nhi - nlo + stride > FLAT_GROUP {
                break;
            }
            (glo, ghi) = (nlo, nhi);
            p1 += 1;
        }
        for &(a, b, w0, w1) in &pr.taps[p0..p1] {
            taps.push((a - glo, b - glo, w0, w1));
        }
        groups.push(FlatGroup {
            p0,
            p1,
            lo: glo,
            len: ghi - glo + stride,
        });
        p0 = p1;
    }
    let max_len = groups.iter().map(|g| g.len).max()?;
    let max_pixels = groups.iter().map(|g| g.p1 - g.p0).max()?;
    Some(FlatRow {
        groups,
        taps,
        max_len,
        max_pixels,
    })
}

/// Per-run state of one row: the lane block, its valid lanes, and where it goes.
pub(crate) struct FlatRun<'a> {
    pub sc: &'a SmallCorners,
    pub doff: usize,
    pub valid: usize,
    pub pad: usize,
    /// Logical index of the run's first output (lane axis at the block's first lane).
    pub idx: &'a [usize],
    pub c: usize,
    /// Non-temporal stores (see [`super::StreamRule`]).
    pub stream: bool,
}

/// One row of output pixels through the flat walk; `row` and `out` are scratch.
///
/// # Safety
/// `b` must cover every element the problem's layouts address; this run's dst pixels must be
/// written by this call only.
pub(crate) unsafe fn flat_run(
    p: &Problem,
    pr: &PixelRows,
    fr: &FlatRow,
    b: Bufs<'_>,
    r: FlatRun<'_>,
    row: &mut AlignedBuf<f32>,
    out: &mut AlignedBuf<f32>,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let d = &p.dst;
        let dstep = d.strides[pr.px];
        let direct = p.post_ops.is_empty() && d.dtype == DataType::F32;
        if row.len() < fr.max_len {
            row.resize(fr.max_len);
        }
        // Scratch for as many pixels as a group has (zeroing a full ROW_BUF cost a tiny
        // call a third of its time).
        let group = (ROW_BUF / r.valid.max(1)).clamp(1, fr.max_pixels);
        if !direct && out.len() < group * r.valid {
            out.resize(group * r.valid);
        }
        // A bf16 row from memory with nothing to blend into bf16 pixels is read in place,
        // widened as it is lerped (see `simd::wrow_bf16_from_bf16`), where every group surely
        // narrows. From cache the conversion pass wins: it widens each value once, the lerp
        // once per tap (nhwc bf16 8x64 1000->1500: 1.17x the time read in place).
        let bf_row = (crate::core::streaming::beyond()
            && p.src.dtype == DataType::Bf16
            && d.dtype == DataType::Bf16
            && p.numerics != crate::core::dtype::Numerics::Ieee
            && r.sc.m == 0
            && p.post_ops.is_empty()
            && r.pad == 0
            && (!r.stream || dstep == r.valid)
            && simd::wrow_bf16_from_bf16_runs())
        .then_some(b.src as *const u16);
        for g in &fr.groups {
            let bsrc = bf_row.map(|s| s.add(r.sc.offs[0] + g.lo));
            let rowp = match bsrc {
                Some(_) => std::ptr::null(),
                None => blend(p, b, r.sc, g, row),
            };
            let taps = &fr.taps[g.p0..g.p1];
            if direct {
                // SAFETY: the run's pixels (valid lanes each, dstep apart) are its own.
                let o = (b.dst as *mut f32).add(r.doff + g.p0 * dstep);
                // Pixels stream in place only as whole cache lines; otherwise a pixel's
                // streamed steps sit next to a neighbour's plain stores in one line, which
                // then goes to memory partially (nhwc f32 C=12 4x12 354x319->708x638 on
                // AVX2: 115 ms, 7.7 ms through scratch).
                let whole = (r.valid * 4).is_multiple_of(64) && (dstep * 4).is_multiple_of(64);
                if r.stream && dstep == r.valid && (!whole || !(o as usize).is_multiple_of(64)) {
                    // Contiguous pixels: compute into scratch at dst's offset within a cache
                    // line, then stream the whole stretch.
                    let n = taps.len() * r.valid;
                    let s = simd::scratch_like(out, o as *const u8, n);
                    simd::wrow(rowp, taps, pr.two_taps, r.valid, s, r.valid, false);
                    simd::stream_copy(s as *const u8, o as *mut u8, 4 * n);
                    continue;
                }
                simd::wrow(
                    rowp,
                    taps,
                    pr.two_taps,
                    r.valid,
                    o,
                    dstep,
                    r.stream && whole,
                );
                if r.pad > 0 {
                    for q in 0..taps.len() {
                        std::ptr::write_bytes(o.add(q * dstep + r.valid), 0, r.pad);
                    }
                }
                continue;
            }
            let mut q0 = 0;
            while q0 < taps.len() {
                let n = group.min(taps.len() - q0);
                let rows = (rowp, bsrc);
                finish_pixels(p, pr, b, &r, rows, &taps[q0..q0 + n], g.p0 + q0, out);
                q0 += n;
            }
        }
    }
}

/// The levels below the pixel axis blended over one group's stretch (an f32 row with none
/// to blend is read in place).
#[inline]
unsafe fn blend(
    p: &Problem,
    b: Bufs<'_>,
    sc: &SmallCorners,
    g: &FlatGroup,
    row: &mut [f32],
) -> *const f32 {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        if p.src.dtype == DataType::F32 && sc.m == 0 {
            return (b.src as *const f32).add(sc.offs[0] + g.lo);
        }
        let offs = sc.offs.map(|o| o + g.lo);
        simd::lerp(p.src.dtype, sc.m, b.src, &offs, &sc.w, &mut row[..g.len]);
        row.as_ptr()
    }
}

/// Pixels `first..first + taps.len()` through an f32 buffer, then converted and post-op'ed
/// into dst; or, from a bf16 row read in place (`rows.1`, then the f32 row is unused),
/// narrowed in registers.
#[allow(clippy::too_many_arguments)]
unsafe fn finish_pixels(
    p: &Problem,
    pr: &PixelRows,
    b: Bufs<'_>,
    r: &FlatRun<'_>,
    (rowp, bsrc): (*const f32, Option<*const u16>),
    taps: &[(usize, usize, f32, f32)],
    first: usize,
    out: &mut AlignedBuf<f32>,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let d = &p.dst;
        let dsz = d.dtype.size();
        let dstep = d.strides[pr.px];
        let (valid, pad) = (r.valid, r.pad);
        let n = taps.len();
        // The pixels narrowed to dst's type in registers, to `o` (`ostride` bytes apart);
        // false where the ISA does not.
        let narrow = |o: *mut u8, ostride: usize, nt: bool| {
            if let Some(s) = bsrc {
                simd::wrow_bf16_from_bf16(s, taps, pr.two_taps, valid, o, ostride, nt);
                return true;
            }
            simd::wrow_narrow(
                rowp,
                taps,
                pr.two_taps,
                valid,
                o,
                ostride,
                d.dtype,
                p.numerics,
                matches!(p.src.dtype, DataType::U8 | DataType::S8),
                nt,
            )
        };
        let o = b.dst.add((r.doff + first * dstep) * dsz);
        if p.post_ops.is_empty() && pad == 0 && !r.stream && narrow(o, dstep * dsz, false) {
            return;
        }
        if p.post_ops.is_empty() && pad == 0 && r.stream && dstep == valid {
            // Narrowed in registers, never through f32: bf16 pixels of whole aligned 16-lane
            // steps stream straight from the registers (every line of the stretch is then
            // written by streamed stores alone); others go to scratch at dst's offset within
            // a line and stream out as one stretch (nCx16c bf16 2x16 150211->300422 linear:
            // 2.1 ms through f32, 1.5-2.0 through scratch, 1.4-1.7 direct).
            let direct = dsz == 2 && valid % 16 == 0 && (o as usize).is_multiple_of(32);
            let s = match direct {
                true => o,
                false => simd::scratch_bytes_like(out, o, n * valid * dsz),
            };
            if narrow(s, valid * dsz, direct) {
                if !direct {
                    simd::stream_copy(s, o, n * valid * dsz);
                }
                return;
            }
        }
        let vals = &mut out[..n * valid];
        simd::wrow(
            rowp,
            taps,
            pr.two_taps,
            valid,
            vals.as_mut_ptr(),
            valid,
            false,
        );
        if p.post_ops.is_empty() && dstep == valid && pad == 0 {
            simd::store_contiguous_as(r.stream, d.dtype, p.numerics, vals, o);
            return;
        }
        let mut idx = [0usize; super::super::MAX_RANK];
        idx[..r.idx.len()].copy_from_slice(r.idx);
        let rank = r.idx.len();
        for q in 0..n {
            let off = r.doff + (first + q) * dstep;
            idx[pr.px] = first + q;
            idx[r.c] = r.idx[r.c];
            finish(
                p,
                b,
                &vals[q * valid..(q + 1) * valid],
                off,
                &mut idx[..rank],
                r.c,
            );
            if pad > 0 {
                std::ptr::write_bytes(b.dst.add((off + valid) * dsz), 0, pad * dsz);
            }
        }
    }
}
