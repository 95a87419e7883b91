//! Backward over tiny resampled extents, vectorised across an identity axis.
//!
//! With a few diff_src elements per image (the resampled axes' extent) and many images
//! (channels, batch), per-image kernels spend their time on setup: a 1x1x1 <- 2x2x2 plane
//! was 64 ns of walking for eight additions. Every image repeats the same sums, so here a
//! chunk of `V` consecutive values of an identity axis (the lanes; channels) runs them at
//! once. Per diff_src element of the tiny plane the table lists its terms in the
//! reference's order (group combinations, then their output positions, last axis fastest),
//! and each lane computes `acc = 0; acc = acc + ((dd * w_a0) * w_a1) * w_a2` (nearest:
//! `acc = acc + dd`) — the reference's operations on each lane. diff_dst lanes are loaded
//! as a vector when they are contiguous (nhwc, nChw16c; f32 or bf16), gathered when
//! strided (nchw; f32).

use super::super::dtype::{bf16_to_f32, store_f32, DataType};
use super::super::reference::{odometer, Bufs, Tables};
use super::super::simd;
use super::super::{Algorithm, Direction, Problem, MAX_RANK};
use super::Runs;

/// Largest image (diff_src or diff_dst elements over the resampled axes), and larger 3-D
/// ones transposed, and the term table. The table is re-read for every chunk of lanes (16
/// bytes a term against 64 of data, sequentially). Every image's table fits (a diff_dst
/// element makes at most 8 terms: 3-D linear), up to 16 MB: the plane walk's gathers ran
/// 3-D linear images 4-8x slower (nchw f32, 1 thread, Zen 4: 2x16 20^3 <- 40^3 10.9 ms there,
/// 2.5 transposed; 1x16 30^3 <- 45^3 12.0 there, PyTorch 8.7).
const MAX_IMAGE: usize = 1 << 16;
const MAX_IMAGE_3D: usize = 1 << 17;
const MAX_TERMS: usize = MAX_IMAGE_3D * 8;
/// Strided lanes gather each value and store each lane alone: beyond this image the
/// per-image kernels' contiguous rows win (nchw f32 2x32 32x32 <- 16x16 nearest: 201 us
/// here, 90 bwd_planes; 12x12 <- 24x24: 49 here, 68 bwd_stream).
const MAX_IMAGE_STRIDED: usize = 256;
/// An unblocked lane axis of several chunks reads every diff_dst image once per chunk (a
/// chunk's lanes are part of each pixel): beyond tiny images only when an image stays in
/// the L2 cache between chunks (nhwc f32 8x64 56x56 <- 112x112 linear, 3.2 MB images: 9.1
/// ms here, 2.0 bwd_stream; 2x128 16x16 <- 32x32 linear, 0.5 MB: 66 us, 60 there; 2x32
/// 32x32 <- 64x64 nearest, 0.5 MB: 20 us, 35 there — at the edge, left out).
const MAX_REREAD: usize = 256 << 10;
/// Elements per run: images split so that both threads have work when there are few
/// chunks of lanes (one nChw16c image of 16 channels is one chunk).
const GROUP: usize = 256;
/// Smallest limit on a transposed chunk of [`TV`] lanes (bytes; see [`max_transposed`]).
const MAX_TRANSPOSED: usize = 400 << 10;

/// Largest chunk of [`TV`] lanes transposed: [`MAX_TRANSPOSED`] or 7/8 of a core's L2
/// cache where that is more; 3-D images whatever their size ([`MAX_IMAGE_3D`] bounds it: 4
/// MiB).
/// The plane walk's gathers are slowest on 3-D images (nchw f32 2x32, 1 thread, ms,
/// transposed / plane walk: AVX-512 Xeon with 2 MiB L2, 8 lanes, linear 16^3 <- 32^3 5.8 /
/// 14.1, 10x12x14 <- 30x20x40 4.1 / 9.9, nearest 12^3 <- 30^3 1.0 / 1.3; Zen 4 with 1 MiB,
/// 16 lanes: 16^3 <- 32^3 1.7 / 11.3, 14^3 <- 28^3 1.4 / 11.4, 24^3 <- 32^3 2.0 / 16.7).
/// 2-D images stream by rows as fast once the chunk outgrows L2 (Zen 4, 16 lanes, nchw f32
/// 4x64 90x90 <- 170x170 linear, 0.9 MB at 8 lanes: 5.9 / 5.8, 2x32 150x150 <- 250x250: 4.2
/// / 4.1), and faster below (4x64 100x100 <- 150x150, 0.7 MB: 4.7-4.9 / 5.7-6.0; 4x32
/// 120x120 <- 160x160 3.6-3.7 / 4.8-5.0).
fn max_transposed(resampled: usize) -> usize {
    match resampled {
        3 => usize::MAX,
        _ => MAX_TRANSPOSED.max(super::super::cache::l2_per_core() / 8 * 7),
    }
}
/// Lanes of a transposed chunk: one AVX2 vector, or [`TV_WIDE`] where the lane axis has
/// whole chunks of them.
const TV: usize = 8;
/// Wide transposed chunks: each term's table entry (offset and weights: three or four
/// loads) serves twice the lanes. The walk is bound by those loads, not by the additions'
/// latency (two elements' chains interleaved gained nothing). 1 thread, Zen 4, nchw f32
/// linear, 8 / 16 lanes: 1x16 75x75 <- 112x112 110 / 86 us, 4x32 40x40 <- 100x100 0.79 /
/// 0.56 ms, 2x16 8^3 <- 16^3 124 / 79 us, 8x64 40x40 <- 60x60 1.38 / 1.06 ms (`RESAMPLE_ISA=
/// avx2`: 0.72-0.77x the time); 4x64 100x100 <- 150x150 0.85-0.9x with its 16 lanes (1.4
/// MB) beyond L2. 32 lanes were no faster (0.92-1.12x the time of 16).
const TV_WIDE: usize = 16;
/// Lane axes shorter than this leave most lanes idle; the per-image kernels run instead.
const MIN_LANES: usize = 8;
/// Most lanes per chunk.
const MAX_V: usize = 64;

#[derive(Clone, Debug)]
pub(crate) struct TinyGeom {
    /// The lane axis (identity) and its length.
    pub c: usize,
    pub len: usize,
    /// Lanes per chunk: 64 or 32 for contiguous lanes that many divide, else 16 (8 on axes
    /// shorter than 16), or the block (8 or 16) of a blocked lane axis.
    pub v: usize,
    pub nchunk: usize,
    /// Element strides between chunks and between lanes, diff_dst (`src`) and diff_src.
    pub chunk_src: usize,
    pub chunk_dst: usize,
    pub lane_src: usize,
    pub lane_dst: usize,
    /// Per diff_src element of the plane: its offset and its terms `t0..t1`.
    pub elems: Vec<(usize, u32, u32)>,
    /// Per term: diff_dst offset within the plane and its weights (`m` used).
    pub toff: Vec<u32>,
    pub tw: Vec<[f32; 3]>,
    /// Weights per term: the resampled axes (linear), 0 (nearest).
    pub m: usize,
    /// bf16 diff_dst with strided lanes (there are no 16-bit gathers): each chunk's
    /// diff_dst span is converted to f32 first and gathered from there.
    pub convert: bool,
    /// Strided lanes of larger images: each chunk's images are transposed into a buffer of
    /// `span` pixels of `v` contiguous f32 lanes (see [`transpose`]), which the contiguous
    /// kernels read; `lane_src` is then 1 and the term offsets count pixels of `v`. Holds the
    /// lanes' diff_dst stride.
    pub transpose: Option<usize>,
    /// diff_dst elements past a chunk's base that lane 0 reads (the largest term offset
    /// plus one): a converted chunk of `n` lanes spans `(n - 1) * lane_src + span`.
    pub span: usize,
    /// Groups of at most [`GROUP`] elements per image: runs are (group, chunk, other axes).
    pub groups: usize,
    pub runs: usize,
    /// Pixels to ask for ahead of their use, when diff_dst comes from memory.
    pub ahead: Option<Ahead>,
}

/// Per element, in the walk's order, the diff_dst pixels (term offsets) its terms read
/// first: each element asks for those of the element [`AHEAD`] further on. The hardware
/// prefetcher does not keep up with the several diff_dst rows the walk reads at once (four
/// with 2-D linear 2x, each crossing a page every few elements): nhwc f32 8x64 56x56 <-
/// 112x112 linear took 313 us an image from memory and 117 from the L3 cache (Zen 4, 1
/// thread). Built where each pixel is read twice or more on average: nearest 2x reads each
/// once, in order, and the hardware keeps up (asking made 8x64 5-19% slower).
#[derive(Clone, Debug)]
pub(crate) struct Ahead {
    /// `first[starts[e]..starts[e + 1]]` are element `e`'s.
    pub starts: Vec<u32>,
    pub first: Vec<u32>,
}

/// Elements between an element and the one whose first pixels it asks for. 1 thread, Zen 4,
/// nhwc f32 8x64 56x56 <- 112x112 linear, ms without / with: 2 elements 2.56 / 1.94, 3-6
/// 1.85-2.43 / 1.26-1.62 (0.63-0.70 the time), 8 0.76, 16 0.87.
const AHEAD: usize = 6;

impl TinyGeom {
    /// Terms of one run (for the thread grain).
    pub fn run_cost(&self) -> usize {
        (self.toff.len() / self.groups * self.v).max(1)
    }
}

/// The geometry, or `None` when the problem is not a tiny-plane backward one.
pub(crate) fn plan(p: &Problem, t: &Tables) -> Option<TinyGeom> {
    let (s, d) = (&p.src, &p.dst);
    let rank = d.rank();
    let ra = &t.resampled;
    let nearest = p.alg == Algorithm::Nearest;
    if p.direction != Direction::Backward
        || !matches!(s.dtype, DataType::F32 | DataType::Bf16)
        || d.dtype == DataType::F64
        || !p.post_ops.is_empty()
        || ra.is_empty()
        || (!nearest && ra.len() > 3)
        || ra.iter().any(|&a| s.blocks[a] > 1 || d.blocks[a] > 1)
    {
        return None;
    }
    let extent = |l: &super::super::layout::Layout| {
        ra.iter()
            .try_fold(1usize, |n, &a| n.checked_mul(l.dims[a]))
            .filter(|&n| n <= MAX_IMAGE_3D)
    };
    let (n_src, n_dd) = (extent(d)?, extent(s)?);
    let large = n_src.max(n_dd) > MAX_IMAGE;
    if large && (ra.len() != 3 || nearest) {
        return None;
    }
    // diff_dst elements one image spans (its first to its last, inclusive).
    let dd_span = ra
        .iter()
        .map(|&a| s.dims[a].saturating_sub(1).saturating_mul(s.strides[a]))
        .fold(1usize, usize::saturating_add);
    let vector_isa = matches!(simd::isa(), simd::Isa::Avx512 | simd::Isa::Avx2);
    // The lane axis: an identity axis, the others unblocked; contiguous lanes first, then
    // the longest.
    let mut best: Option<(bool, usize, TinyGeom)> = None;
    for c in 0..rank {
        if t.fwd[c].is_some() || t.bwd[c].is_some() || d.dims[c] < MIN_LANES {
            continue;
        }
        if (0..rank).any(|a| a != c && (s.blocks[a] > 1 || d.blocks[a] > 1)) {
            continue;
        }
        let len = d.dims[c];
        // `unmasked`: the chunk width without masked chunks. Whether images re-read per
        // chunk are taken counts chunks at the masked width for 1-D images, and 2-D ones on
        // AVX-512: one masked chunk reads each image once and beats the laned row walk (1
        // thread, Zen 4, nhwc f32, us, bwd_stream_lanes / here: 1x40 3001 <- 2000 linear 32-53
        // / 15-20, AVX2 48 / 37; 2x24 5000 <- 3000 131-157 / 51-68; 1x40 200x200 <- 100x100
        // 707 / 252, nearest 254 / 177; 2x24 150x120 <- 180x160 1472 / 499; 1x48 50x50 <-
        // 100x100 234 / 121). Elsewhere at the unmasked width, as before masked chunks: 3-D
        // images lose in one masked chunk (4x48 9x10x7 <- 18x19x20 linear 0.65 / 0.83 ms;
        // AVX2 1.08 / 2.20), and 2-D ones on AVX2 (1x33 80x80 <- 160x160 415 / 655; 1x40
        // 200x200 <- 100x100 nearest 272 / 419).
        let (v, unmasked, chunk_src, chunk_dst, lane_src, lane_dst) =
            if s.blocks[c] > 1 || d.blocks[c] > 1 {
                let b = s.blocks[c];
                if b != d.blocks[c]
                    || !(b == 8 || b == 16)
                    || s.inner_strides[c] != 1
                    || d.inner_strides[c] != 1
                    || len % b != 0
                    || s.padded[c] != len
                    || d.padded[c] != len
                {
                    continue;
                }
                (b, b, s.strides[c], d.strides[c], 1, 1)
            } else {
                // Contiguous lanes take up to 64 per chunk (fewer runs: each costs its setup
                // again; nhwc bf16 4x512 1x3 <- 2x1 nearest 3.4 -> 1.1 us, oneDNN 1.3).
                let wide = s.strides[c] == 1 && d.strides[c] == 1;
                // Other f32 lanes: chunks of 16, 32 or 64 (the fewest that hold them), the last
                // one's vectors past the lanes masked, rather than more, narrower chunks: every
                // chunk walks the whole term table (1 thread, Zen 4, nhwc f32, us, before ->
                // after: 8x17 63x60 <- 21x20 nearest in 16 + 1 lanes 223 -> 79, 8x16 56;
                // PyTorch 55; 8x12 20x20 <- 10x10 8 + 4 lanes 24.6 -> 6.3; 2x100 12x12 <- 6x6
                // linear 7.5 -> 3.3; AVX2 8x17 228 -> 164, 8x12 24.6 -> 14.0).
                let masked = wide && s.dtype == DataType::F32 && vector_isa && len > 8;
                let unmasked = match len {
                    _ if wide && len % 64 == 0 => 64,
                    _ if wide && len % 32 == 0 => 32,
                    _ if len >= 16 => 16,
                    _ => 8,
                };
                let v = if unmasked >= 32 || !masked {
                    unmasked
                } else if len <= 16 {
                    16
                } else if len <= 32 {
                    32
                } else {
                    64
                };
                (
                    v,
                    unmasked,
                    v * s.strides[c],
                    v * d.strides[c],
                    s.strides[c],
                    d.strides[c],
                )
            };
        let contiguous = lane_src == 1;
        let reread_width = match ra.len() {
            1 => v,
            2 if simd::isa() == simd::Isa::Avx512 => v,
            _ => unmasked,
        };
        let tiny = n_src <= 64 && n_dd <= 64;
        // Forward downsampling: most diff_src pixels sum a term or none, where the laned
        // row walk's per-pixel setup dominates (nhwc bf16 4x16 163x121 <- 82x40 linear: 0.71
        // ms there, 0.35 here, PyTorch 0.38; 4x64: 1.33, 1.01, 1.41). Linear with whole
        // chunks only: nearest 8x64 112x112 <- 56x56 1.02 there, 1.76 here; 2x17 64x64 <-
        // 20x30 linear 0.064 there, 0.123 here; and at most 7 diff_src pixels per diff_dst
        // one (sparser rows are mostly zero-filled there: 2x32 100x100 <- 30x40 0.13 there,
        // 0.16 here).
        let sparse = n_src > 2 * n_dd && n_src <= 7 * n_dd;
        // bf16 with contiguous lanes: beyond tiny images only blocked ones gain (nhwc bf16
        // 2x32 32x32 <- 64x64 linear: 85 us here, 71 bwd_stream; nChw16c: 84 here, 114
        // there). bf16 with strided lanes is converted chunk by chunk (see `convert`) and then
        // takes the f32 rules below (those of diff_src more than twice diff_dst too). nchw
        // bf16, 1 thread, us (here, before): 1x512 1x1x2 <- 2x2x1 nearest 3.0, 33 (PyTorch
        // 22); 4x16 12x10 <- 4x21 13.5, 28 (14); 4x32 4^3 <- 8^3 linear 216, 481; 4x64 6x6
        // <- 12x12 linear 70, 107; 6x6 <- 12x12 nearest 29, 35; but 8x8 <- 4x4 nearest 25,
        // 14; 16x16 <- 8x8 linear 62, 43; nearest with larger diff_dst images: 8x8 <- 16x16
        // 52, 44 (the plane walk sums them cheaply).
        if s.dtype == DataType::Bf16
            && if contiguous {
                !(tiny || s.blocks[c] > 1 || (sparse && !nearest && len % v == 0))
            } else {
                nearest && n_dd > 160
            }
        {
            continue;
        }
        // Strided lanes only where their images are about dense together. A converted
        // chunk spans its lanes' diff_dst images and everything between them: lanes far
        // apart (the batch axis of nhwc bf16) would convert whole tensors per chunk (nhwc
        // bf16 8x128 9x27 <- 26x9 linear, lanes over the batch: 2.9 ms, 30x PyTorch); f32
        // gathers over them touch a line per lane and value, thrashing the cache (nhwc f32
        // 8x256 6x6x6 <- 11x12x2 linear over the batch: 11.2 ms, PyTorch 1.0).
        if !contiguous && (v - 1).saturating_mul(lane_src).saturating_add(dd_span) > 2 * v * n_dd {
            continue;
        }
        // Strided lanes store diff_src lane by lane: where diff_src is more than twice
        // diff_dst (forward downsampling) and not tiny, the plane walk's contiguous rows
        // win (nchw f32 4x64 8x8 <- 4x4 nearest: 21.6 us here, 10.9 there, PyTorch 13.7;
        // 6x6 <- 3x3: 12.3, 9.9; but 4x3 <- 2x1: 31.5 here, 62 there). 2-D linear planes
        // of up to 64 elements still win here (4x64 7x7 <- 4x2: 15.2 us here, 24.7 there,
        // PyTorch 14.1; 8x7 <- 5x2 17.7, 24.4; but 12x10 <- 4x7 39.9, 35.0).
        let small = if !nearest && ra.len() == 2 { 64 } else { 32 };
        if !contiguous && n_src > 2 * n_dd && n_src > small && (nearest || ra.len() < 3) {
            continue;
        }
        let image_bytes = n_dd.saturating_mul(len).saturating_mul(s.dtype.size());
        // Strided lanes: transposed chunk by chunk where diff_dst is the larger (many terms
        // an element; every lane's terms then read contiguous pixels, no gathers) or linear
        // (1 thread, Zen 4, nchw, us, plane walk / transposed: f32 1x64 6x11x9 <- 12x12x4
        // 273 / 29, PyTorch 348; 2x32 20x20 <- 15x18 51 / 11; 4x16 10^3 <- 8^3 225 / 30;
        // bf16 2x64 50x50 <- 40x40 700 / 183; f32 8x64 112x112 <- 80x100 from memory 7.0 /
        // 5.7 ms), forward downsampling too: the plane walk took 3-D images 4-10x longer
        // (ms: 8x96 6x17x21 <- 13x8x7 5.0 / 0.68, PyTorch 4.8; 4x96 15x25x39 <- 7x20x33 15.4
        // / 3.9; 4x32 8x20x20 <- 16x10x10 1.47 / 0.19; the row walk: 4x16 14x31x60 <-
        // 7x14x100 1.72 / 0.82, 2-D 4x32 30x90 <- 45x30 0.55 / 0.12; AVX2 alike); most 2-D
        // downsampling is `bwd_stream_perm`'s before it gets here. The images fit the buffer
        // and x86 has the kernels. Tiny images too (nchw f32 8x64 linear, 1 thread, gathered
        // / transposed, us: 4x4 <- 8x8 160 / 48, 2x2x2 <- 4x4x4 38 / 11); not nearest
        // downsampling nor the identity's flat walk (56x56 <- 56x56 nearest 1.0 / 1.6).
        // Not where the row walks have fixed-shape kernels: nearest integer ratios
        // (`bwd_box`) and linear 2x rows too long for the plane walk (`bwd_repeat`), which
        // won (1 thread, Zen 1, nchw f32 8x64, ms, there / transposed: nearest 56x56 <-
        // 112x112 3.7 / 6.4, linear 8.1 / 9.9; 8x256 32x32 <- 64x64 4.1 / 9.1, 12.8 / 14.3).
        let w = ra[ra.len() - 1];
        let fixed = || {
            if nearest {
                super::bwd_box::plan(p, t).is_some()
            } else {
                s.dims[w] == 2 * d.dims[w]
                    && d.dims[w] >= 16
                    && super::bwd_planes::plan(p, t).is_none()
            }
        };
        let transpose = !contiguous
            && (n_dd > n_src || !nearest)
            && dd_span.saturating_mul(TV * 4) <= max_transposed(ra.len())
            && cfg!(target_arch = "x86_64")
            && simd::isa() != simd::Isa::Base
            && !fixed();
        if large && !transpose {
            continue;
        }
        if !tiny
            && !transpose
            && (if contiguous {
                s.blocks[c] == 1 && len > reread_width && image_bytes > MAX_REREAD
            } else {
                n_src > MAX_IMAGE_STRIDED || n_dd > 4 * MAX_IMAGE_STRIDED
            })
        {
            continue;
        }
        let tv = match len % TV_WIDE == 0 {
            true => TV_WIDE,
            false => TV,
        };
        let (v, chunk_src, chunk_dst) = match transpose {
            true => (tv, tv * s.strides[c], tv * d.strides[c]),
            false => (v, chunk_src, chunk_dst),
        };
        if best
            .as_ref()
            .is_some_and(|b| (b.0, b.1) >= (contiguous, len))
        {
            continue;
        }
        let runs = (0..rank)
            .filter(|&a| a != c && !ra.contains(&a))
            .try_fold(len.div_ceil(v), |n, a| n.checked_mul(d.dims[a]))?;
        let g = TinyGeom {
            c,
            len,
            v,
            nchunk: len.div_ceil(v),
            chunk_src,
            chunk_dst,
            lane_src,
            lane_dst,
            elems: Vec::new(),
            toff: Vec::new(),
            tw: Vec::new(),
            m: if nearest { 0 } else { ra.len() },
            convert: s.dtype == DataType::Bf16 && !contiguous && !transpose,
            transpose: transpose.then_some(lane_src),
            span: 0,
            groups: 1,
            runs,
            ahead: None,
        };
        best = Some((contiguous, len, g));
    }
    let mut g = best?.2;
    // The term table, element by element in row-major order over the resampled axes.
    let m = ra.len();
    let groups = |a: usize| t.bwd[ra[a]].as_ref().map_or(1, |x| x.groups);
    // `pos` walks the image's elements over the resampled axes; `idx` is the same index
    // over all axes, as the list lookup takes it.
    let (mut pos, mut idx) = ([0usize; MAX_RANK], [0usize; MAX_RANK]);
    // Each diff_dst element makes one term (nearest) or one a tap combination (linear).
    let terms = n_dd.saturating_mul(if nearest { 1 } else { 1 << m });
    g.toff.reserve(terms.min(MAX_TERMS));
    g.tw.reserve(terms.min(MAX_TERMS));
    let (last, ws) = (m - 1, s.strides[ra[m - 1]]);
    for _ in 0..n_src {
        for a in 0..m {
            idx[ra[a]] = pos[a];
        }
        let eoff: usize = (0..m).map(|a| pos[a] * d.strides[ra[a]]).sum();
        let t0 = g.toff.len();
        let mut gi = [0usize; MAX_RANK];
        let mut lists = super::bwd_stream::NO_LISTS;
        loop {
            if super::bwd_stream::lists(t, ra, &idx[..rank], &gi[..m], &mut lists) {
                // The outer axes' positions, then the last axis' list in one go.
                let mut pos = [0usize; MAX_RANK];
                loop {
                    let base: usize = (0..last)
                        .map(|a| lists[a].0[pos[a]] as usize * s.strides[ra[a]])
                        .sum();
                    let mut w = [1f32; 3];
                    for a in 0..g.m.min(last) {
                        w[a] = lists[a].1[pos[a]];
                    }
                    let (lo, lw) = lists[last];
                    if g.toff.len() + lo.len() > MAX_TERMS {
                        return None;
                    }
                    for (k, &o) in lo.iter().enumerate() {
                        g.toff.push(u32::try_from(base + o as usize * ws).ok()?);
                        if g.m > last {
                            w[last] = lw[k];
                        }
                        g.tw.push(w);
                    }
                    if !odometer(&mut pos[..last], |a| lists[a].0.len()) {
                        break;
                    }
                }
            }
            if !odometer(&mut gi[..m], groups) {
                break;
            }
        }
        g.elems.push((
            eoff,
            u32::try_from(t0).ok()?,
            u32::try_from(g.toff.len()).ok()?,
        ));
        odometer(&mut pos[..m], |a| d.dims[ra[a]]);
    }
    g.groups = g.elems.len().div_ceil(GROUP).max(1);
    g.runs = g.runs.checked_mul(g.groups)?;
    g.span = g.toff.iter().copied().max().unwrap_or(0) as usize + 1;
    // Asked for ahead where diff_dst is read in place and outgrows a core's L2 cache.
    let dd_bytes = s.span_bytes().unwrap_or(usize::MAX);
    if g.lane_src == 1
        && !g.convert
        && g.transpose.is_none()
        && dd_bytes > super::super::cache::l2_per_core()
    {
        g.ahead = Some(Ahead::new(&g)).filter(|a| 2 * a.first.len() <= g.toff.len());
    }
    if g.transpose.is_some() {
        // Term offsets count pixels of `v` lanes in the transposed chunk.
        g.lane_src = 1;
        for o in &mut g.toff {
            *o = o.checked_mul(g.v as u32)?;
        }
    }
    // Gathers index lanes with 32-bit offsets.
    let reach = (g.v - 1).checked_mul(g.lane_src)?.checked_add(g.span - 1)?;
    if reach > i32::MAX as usize {
        return None;
    }
    Some(g)
}

impl Ahead {
    fn new(g: &TinyGeom) -> Self {
        // Sorted by (offset, term), each offset's first entry is its first reader.
        let mut order: Vec<(u32, u32)> = (0..).zip(&g.toff).map(|(t, &o)| (o, t)).collect();
        order.sort_unstable();
        let mut firsts = vec![false; g.toff.len()];
        for (i, &(o, t)) in order.iter().enumerate() {
            if i == 0 || order[i - 1].0 != o {
                firsts[t as usize] = true;
            }
        }
        let mut starts = Vec::with_capacity(g.elems.len() + 1);
        let mut first = Vec::new();
        starts.push(0);
        for &(_, t0, t1) in &g.elems {
            first.extend(
                (t0..t1)
                    .filter(|&t| firsts[t as usize])
                    .map(|t| g.toff[t as usize]),
            );
            starts.push(first.len() as u32);
        }
        Ahead { starts, first }
    }

    /// The run's view: element `e` of the run starting at element `e0` asks for the pixels
    /// of element `e0 + e + AHEAD` (each `bytes` from its offset times `size`).
    fn from(&self, e0: usize, bytes: usize, size: usize) -> AheadRun<'_> {
        AheadRun {
            starts: self.starts.get(e0 + AHEAD..).unwrap_or(&[]),
            first: &self.first,
            bytes,
            size,
        }
    }
}

/// A run's view of [`Ahead`] (empty where nothing is asked for).
#[derive(Clone, Copy)]
struct AheadRun<'a> {
    starts: &'a [u32],
    first: &'a [u32],
    bytes: usize,
    size: usize,
}

impl AheadRun<'_> {
    const NONE: AheadRun<'static> = AheadRun {
        starts: &[],
        first: &[],
        bytes: 0,
        size: 0,
    };

    /// Asks for what element `e` of the run asks for, from diff_dst at `sp`.
    #[inline(always)]
    fn ask(self, e: usize, sp: *const u8) {
        if let (Some(&a), Some(&b)) = (self.starts.get(e), self.starts.get(e + 1)) {
            for &o in &self.first[a as usize..b as usize] {
                simd::prefetch_span::<true>(sp.wrapping_add(o as usize * self.size), self.bytes);
            }
        }
    }
}

/// Runs `start..end`.
///
/// # Safety
/// Buffers must cover the layouts; run ranges of concurrent calls must be disjoint.
pub(crate) unsafe fn run(
    p: &Problem,
    t: &Tables,
    g: &TinyGeom,
    b: Bufs<'_>,
    start: usize,
    end: usize,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        let mut ov: Vec<(usize, usize, usize, usize)> =
            t.resampled.iter().map(|&a| (a, 1, 0, 0)).collect();
        ov.push((g.c, g.nchunk, g.chunk_dst, g.chunk_src));
        let mut runs = Runs::new(p, t, &ov, start / g.groups);
        let ssz = p.src.dtype.size();
        let mut conv = super::super::aligned::AlignedBuf::<f32>::zeroed(if g.convert {
            (g.v - 1) * g.lane_src + g.span
        } else if g.transpose.is_some() {
            g.span * g.v
        } else {
            0
        });
        // The diff_dst base of the chunk in `conv` (a chunk's groups are consecutive runs).
        let mut transposed = usize::MAX;
        // f32 sums with contiguous lanes go straight into diff_src; the rest through scratch.
        let direct = p.dst.dtype == DataType::F32 && g.lane_dst == 1;
        // Only from memory: in the L3 cache the hardware keeps up, and the extra
        // instructions cost (nhwc f32 1x64 56x56 <- 112x112 linear, 1 thread: 4% on
        // AVX-512, 13% on AVX2). Into L2 only (1 thread, Zen 4, side by side, nhwc f32 8x64
        // 56x56 <- 112x112 linear: 0.82-0.94x the time of asking into L1).
        let ahead = g
            .ahead
            .as_ref()
            .filter(|_| super::super::streaming::beyond());
        let mut scratch = if direct {
            Vec::new()
        } else {
            vec![0f32; GROUP.min(g.elems.len()) * g.v]
        };
        for r in start..end {
            let k = r % g.groups;
            let elems = &g.elems[k * GROUP..((k + 1) * GROUP).min(g.elems.len())];
            let n = g.v.min(g.len - runs.pos[g.c] * g.v);
            let (sp, bf16) = if let Some(lane) = g.transpose {
                if transposed != runs.sbase {
                    let (dt, sb) = (p.src.dtype, runs.sbase);
                    transpose(dt, b.src, sb, lane, n, g.v, g.span, &mut conv);
                    transposed = runs.sbase;
                }
                (conv.as_ptr() as *const u8, false)
            } else if g.convert {
                let m = (n - 1) * g.lane_src + g.span;
                simd::load_contiguous(DataType::Bf16, b.src, runs.sbase, &mut conv[..m]);
                (conv.as_ptr() as *const u8, false)
            } else {
                (b.src.add(runs.sbase * ssz), p.src.dtype == DataType::Bf16)
            };
            chunk(
                p,
                g,
                elems,
                sp,
                bf16,
                b.dst,
                runs.doff,
                n,
                match ahead {
                    Some(a) => a.from(k * GROUP, n * ssz, ssz),
                    None => AheadRun::NONE,
                },
                (!direct).then_some(&mut scratch[..]),
            );
            if k + 1 == g.groups {
                runs.advance();
            }
        }
    }
}

/// Columns of the lanes converted and transposed at a time.
const TILE: usize = 256;

/// Lanes `0..n` of a chunk (diff_dst images of `dt` from element `base`, `lane` apart), pixels
/// `0..span` of each, into `out` as `span` pixels of `tv` ([`TV`] or [`TV_WIDE`]) f32 lanes
/// (lanes past `n` left as they are).
///
/// # Safety
/// Every lane's `span` elements lie in `src`; `out` holds `span * tv` values.
#[allow(clippy::too_many_arguments)]
unsafe fn transpose(
    dt: DataType,
    src: *const u8,
    base: usize,
    lane: usize,
    n: usize,
    tv: usize,
    span: usize,
    out: &mut [f32],
) {
    // SAFETY: the caller's.
    unsafe {
        debug_assert!(n <= tv && tv <= TV_WIDE && out.len() >= span * tv);
        let mut tmp = [0f32; TV_WIDE * TILE];
        for k0 in (0..span).step_by(TILE) {
            let m = TILE.min(span - k0);
            // Each lane's columns `k0..k0 + m` as f32 (bf16 converted into `tmp`).
            let rows: [*const f32; TV_WIDE] = std::array::from_fn(|l| {
                let at = base + l.min(n - 1) * lane + k0;
                if dt == DataType::F32 {
                    (src as *const f32).add(at)
                } else {
                    tmp.as_ptr().add(l * TILE)
                }
            });
            if dt != DataType::F32 {
                for l in 0..n {
                    let row = &mut tmp[l * TILE..l * TILE + m];
                    simd::load_contiguous(dt, src, base + l * lane + k0, row);
                }
            }
            let o = out.as_mut_ptr().add(k0 * tv);
            #[cfg(target_arch = "x86_64")]
            let k = match n == tv && simd::isa() != simd::Isa::Base {
                true => {
                    let mut k = 0;
                    for h in (0..tv).step_by(8) {
                        let r: [*const f32; 8] = std::array::from_fn(|l| rows[h + l]);
                        k = x86::transpose8(&r, m, o.add(h), tv);
                    }
                    k
                }
                false => 0,
            };
            #[cfg(not(target_arch = "x86_64"))]
            let k = 0;
            for k in k..m {
                for (l, r) in rows.iter().enumerate().take(n) {
                    *o.add(k * tv + l) = *r.add(k);
                }
            }
        }
    }
}

/// Where a chunk's sums go: straight into an f32 diff_src with contiguous lanes, else
/// into scratch (`v` values per element) for the per-lane stores.
#[derive(Clone, Copy)]
struct Out {
    base: *mut f32,
    direct: bool,
}

impl Out {
    /// Lane 0 of element `e` (at diff_src offset `eoff` from the chunk's).
    #[inline(always)]
    unsafe fn at(self, e: usize, eoff: usize, v: usize) -> *mut f32 {
        // SAFETY: the caller's: the chunk's lanes at `eoff`, or scratch for every element.
        unsafe { self.base.add(if self.direct { eoff } else { e * v }) }
    }
}

/// A chunk of `n <= v` lanes in fixed-size arrays (what LLVM vectorises on baseline x86
/// and NEON); the reference's operations per lane.
#[inline(always)]
unsafe fn chunk_scalar<const M: usize, const BF16: bool>(
    g: &TinyGeom,
    elems: &[(usize, u32, u32)],
    sp: *const u8,
    out: Out,
    ahead: AheadRun<'_>,
    n: usize,
) {
    // SAFETY: lanes `< n` of every term lie in diff_dst, `out` has `n` lanes per element
    // (the caller's).
    unsafe {
        for (e, &(eoff, t0, t1)) in elems.iter().enumerate() {
            ahead.ask(e, sp);
            let mut acc = [0f32; MAX_V];
            for t in t0 as usize..t1 as usize {
                let i = g.toff[t] as usize;
                let w = g.tw[t];
                for (l, a) in acc.iter_mut().enumerate().take(n) {
                    let k = i + l * g.lane_src;
                    let mut x = if BF16 {
                        bf16_to_f32(*(sp as *const u16).add(k))
                    } else {
                        *(sp as *const f32).add(k)
                    };
                    for &wa in &w[..M] {
                        x *= wa;
                    }
                    *a += x;
                }
            }
            // Direct output has contiguous lanes, as scratch has.
            let o = out.at(e, eoff, g.v);
            for (l, &a) in acc.iter().enumerate().take(n) {
                *o.add(l) = a;
            }
        }
    }
}

/// [`chunk_scalar`] over a full chunk with explicit vectors: AVX-512 for 16 lanes, AVX2 for
/// 8 (twice for 16 on AVX2); strided lanes are gathered with 32-bit offsets.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{AheadRun, Out, TinyGeom};
    use std::arch::x86_64::*;

    /// Columns `0..m` of 8 rows into `out` as pixels of 8 lanes `ps` apart, 8 columns at a
    /// time (two 4x4 in-lane transposes over rows `r`, `r + 4` in the halves: no
    /// lane-crossing shuffles, which Zen 1 runs slowly); the columns done (a multiple of 8).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn transpose8(
        rows: &[*const f32; 8],
        m: usize,
        out: *mut f32,
        ps: usize,
    ) -> usize {
        // SAFETY: the caller's: each row holds `m` values, `out` `ps m`.
        unsafe {
            let ld = |a: usize, k: usize| {
                _mm256_insertf128_ps::<1>(
                    _mm256_castps128_ps256(_mm_loadu_ps(rows[a].add(k))),
                    _mm_loadu_ps(rows[a + 4].add(k)),
                )
            };
            let mut k = 0;
            while k + 8 <= m {
                for h in [0, 4] {
                    let (r0, r1, r2, r3) = (ld(0, k + h), ld(1, k + h), ld(2, k + h), ld(3, k + h));
                    let (t0, t1) = (_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1));
                    let (t2, t3) = (_mm256_unpacklo_ps(r2, r3), _mm256_unpackhi_ps(r2, r3));
                    let o = out.add((k + h) * ps);
                    _mm256_storeu_ps(o, _mm256_shuffle_ps::<0x44>(t0, t2));
                    _mm256_storeu_ps(o.add(ps), _mm256_shuffle_ps::<0xEE>(t0, t2));
                    _mm256_storeu_ps(o.add(2 * ps), _mm256_shuffle_ps::<0x44>(t1, t3));
                    _mm256_storeu_ps(o.add(3 * ps), _mm256_shuffle_ps::<0xEE>(t1, t3));
                }
                k += 8;
            }
            k
        }
    }

    /// 8 pixels of 8 lanes at `src`, `ps` apart, into 8 lanes' rows of 8 at `dst`, `lane`
    /// apart.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn untranspose8(src: *const f32, ps: usize, dst: *mut f32, lane: usize) {
        // SAFETY: the caller's: `src` holds 8 pixels, each lane's row 8 at `dst`.
        unsafe {
            let rows: [*const f32; 8] = std::array::from_fn(|l| src.add(ps * l));
            let mut t = [0f32; 64];
            transpose8(&rows, 8, t.as_mut_ptr(), 8);
            for l in 0..8 {
                _mm256_storeu_ps(dst.add(l * lane), _mm256_loadu_ps(t.as_ptr().add(8 * l)));
            }
        }
    }

    /// `P`: only the first `n` lanes (contiguous f32), masked.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn chunk16_avx512<
        const M: usize,
        const GATHER: bool,
        const BF16: bool,
        const K: usize,
        const P: bool,
    >(
        g: &TinyGeom,
        elems: &[(usize, u32, u32)],
        sp: *const u8,
        out: Out,
        ahead: AheadRun<'_>,
        n: usize,
    ) {
        // SAFETY: AVX-512F (the caller checked); all `16 * K` lanes of every term lie in
        // diff_dst and `out` has them per element (the caller's; with `P` the first `n`, the
        // others masked off); gathers only with K = 1.
        unsafe {
            let masks: [u16; K] = std::array::from_fn(|k| match P {
                true => ((1u32 << n.saturating_sub(16 * k).min(16)) - 1) as u16,
                false => !0,
            });
            let idx = _mm512_mullo_epi32(
                _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                _mm512_set1_epi32(g.lane_src as i32),
            );
            for (e, &(eoff, t0, t1)) in elems.iter().enumerate() {
                ahead.ask(e, sp);
                let mut acc = [_mm512_setzero_ps(); K];
                let (t0, t1) = (t0 as usize, t1 as usize);
                for (&i, tw) in g.toff[t0..t1].iter().zip(&g.tw[t0..t1]) {
                    let i = i as usize;
                    for (k, a) in acc.iter_mut().enumerate() {
                        let j = i + 16 * k;
                        let mut x = if BF16 {
                            let h = _mm256_loadu_si256((sp as *const u16).add(j) as *const __m256i);
                            _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(h)))
                        } else if GATHER {
                            _mm512_i32gather_ps::<4>(idx, (sp as *const f32).add(i))
                        } else if P {
                            _mm512_maskz_loadu_ps(masks[k], (sp as *const f32).add(j))
                        } else {
                            _mm512_loadu_ps((sp as *const f32).add(j))
                        };
                        for &wa in &tw[..M] {
                            x = _mm512_mul_ps(x, _mm512_set1_ps(wa));
                        }
                        *a = _mm512_add_ps(*a, x);
                    }
                }
                let o = out.at(e, eoff, 16 * K);
                for (k, a) in acc.iter().enumerate() {
                    if P {
                        _mm512_mask_storeu_ps(o.add(16 * k), masks[k], *a);
                    } else {
                        _mm512_storeu_ps(o.add(16 * k), *a);
                    }
                }
            }
        }
    }

    /// `P`: only the first `n` lanes (contiguous f32), masked.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn chunk8_avx2<
        const M: usize,
        const GATHER: bool,
        const BF16: bool,
        const K: usize,
        const P: bool,
    >(
        g: &TinyGeom,
        elems: &[(usize, u32, u32)],
        sp: *const u8,
        out: Out,
        ahead: AheadRun<'_>,
        n: usize,
    ) {
        // SAFETY: AVX2 (the caller checked); all `8 * K` lanes of every term lie in diff_dst
        // and `out` has them per element (the caller's; with `P` the first `n`, the others
        // masked off).
        unsafe {
            let masks: [__m256i; K] = std::array::from_fn(|k| {
                let first = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
                let room = if P { n.saturating_sub(8 * k).min(8) } else { 8 };
                _mm256_cmpgt_epi32(_mm256_set1_epi32(room as i32), first)
            });
            let ls = g.lane_src;
            let idx = _mm256_mullo_epi32(
                _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                _mm256_set1_epi32(ls as i32),
            );
            for (e, &(eoff, t0, t1)) in elems.iter().enumerate() {
                ahead.ask(e, sp);
                let mut acc = [_mm256_setzero_ps(); K];
                let (t0, t1) = (t0 as usize, t1 as usize);
                for (&i, tw) in g.toff[t0..t1].iter().zip(&g.tw[t0..t1]) {
                    let i = i as usize;
                    for (k, a) in acc.iter_mut().enumerate() {
                        let mut x = if BF16 {
                            let h = _mm_loadu_si128(
                                (sp as *const u16).add(i + 8 * k) as *const __m128i
                            );
                            _mm256_castsi256_ps(_mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(h)))
                        } else if GATHER {
                            _mm256_i32gather_ps::<4>((sp as *const f32).add(i + 8 * k * ls), idx)
                        } else if P {
                            _mm256_maskload_ps((sp as *const f32).add(i + 8 * k), masks[k])
                        } else {
                            _mm256_loadu_ps((sp as *const f32).add(i + 8 * k))
                        };
                        for &wa in &tw[..M] {
                            x = _mm256_mul_ps(x, _mm256_set1_ps(wa));
                        }
                        *a = _mm256_add_ps(*a, x);
                    }
                }
                let o = out.at(e, eoff, 8 * K);
                for (k, a) in acc.iter().enumerate() {
                    let room = if P { n.saturating_sub(8 * k).min(8) } else { 8 };
                    if room == 8 {
                        _mm256_storeu_ps(o.add(8 * k), *a);
                    } else if room > 0 {
                        // (AMD's masked stores are microcoded: lane by lane instead.)
                        let mut t = [0f32; 8];
                        _mm256_storeu_ps(t.as_mut_ptr(), *a);
                        for (l, &x) in t.iter().enumerate().take(room) {
                            *o.add(8 * k + l) = x;
                        }
                    }
                }
            }
        }
    }
}

/// Largest group (bytes of diff_src) converted at once through a stack buffer.
const NARROW_BYTES: usize = 8192;

/// One chunk of `n` lanes at diff_dst `sp` (bf16 or f32), its sums into diff_src at
/// element `doff`: directly (f32, contiguous lanes) or, with `scratch`, through it.
///
/// # Safety
/// Every lane of every term and element lies in the buffers; `scratch` holds `v` values
/// per element.
unsafe fn chunk(
    p: &Problem,
    g: &TinyGeom,
    elems: &[(usize, u32, u32)],
    sp: *const u8,
    bf16: bool,
    dst: *mut u8,
    doff: usize,
    n: usize,
    ahead: AheadRun<'_>,
    mut scratch: Option<&mut [f32]>,
) {
    // SAFETY: the caller's; the x86 variants run only under an ISA the CPU has.
    unsafe {
        let d = &p.dst;
        let out = Out {
            base: match scratch.as_deref_mut() {
                Some(sc) => sc.as_mut_ptr(),
                None => (dst as *mut f32).add(doff),
            },
            direct: scratch.is_none(),
        };
        if !vectors(g, elems, sp, bf16, out, ahead, n) {
            macro_rules! by_m {
                ($b:literal) => {
                    match g.m {
                        0 => chunk_scalar::<0, $b>(g, elems, sp, out, ahead, n),
                        1 => chunk_scalar::<1, $b>(g, elems, sp, out, ahead, n),
                        2 => chunk_scalar::<2, $b>(g, elems, sp, out, ahead, n),
                        _ => chunk_scalar::<3, $b>(g, elems, sp, out, ahead, n),
                    }
                };
            }
            if bf16 {
                by_m!(true)
            } else {
                by_m!(false)
            }
        }
        if let Some(scratch) = scratch {
            let dsz = d.dtype.size();
            if g.lane_dst == 1 && n == g.v && elems.len() * n * dsz <= NARROW_BYTES {
                // Full chunks of contiguous lanes: the whole group converted in one call,
                // then each element's lanes copied out (a conversion call per element was
                // most of nhwc bf16 8x256 2x3 <- 5x1 nearest: 6.0 us, oneDNN 2.6).
                let mut bytes = std::mem::MaybeUninit::<[u8; NARROW_BYTES]>::uninit();
                let bp = bytes.as_mut_ptr() as *mut u8;
                let m = elems.len() * n;
                super::super::simd::store_contiguous(d.dtype, p.numerics, &scratch[..m], bp);
                for (e, &(eoff, _, _)) in elems.iter().enumerate() {
                    let o = dst.add((doff + eoff) * dsz);
                    std::ptr::copy_nonoverlapping(bp.add(e * n * dsz), o, n * dsz);
                }
                return;
            }
            // Other types from transposed chunks: the group transposed back into the lanes'
            // rows, then each lane's runs of consecutive elements converted and stored in
            // one call each (a converting store per lane and element was 53% of nchw bf16
            // 8x64 75x75 <- 112x112 linear).
            #[cfg(target_arch = "x86_64")]
            if g.transpose.is_some()
                && n == g.v
                && d.dtype != DataType::F32
                && elems.len() <= GROUP
                && simd::isa() != simd::Isa::Base
            {
                let ne = elems.len();
                let mut rows = [0f32; TV_WIDE * GROUP];
                let mut e0 = 0;
                while e0 + 8 <= ne {
                    for h in (0..n).step_by(8) {
                        let from = scratch.as_ptr().add(e0 * n + h);
                        x86::untranspose8(from, n, rows.as_mut_ptr().add(h * GROUP + e0), GROUP);
                    }
                    e0 += 8;
                }
                for e in e0..ne {
                    for l in 0..n {
                        rows[l * GROUP + e] = scratch[e * n + l];
                    }
                }
                let mut r0 = 0;
                while r0 < ne {
                    let mut r1 = r0 + 1;
                    while r1 < ne && elems[r1].0 == elems[r0].0 + (r1 - r0) {
                        r1 += 1;
                    }
                    for l in 0..n {
                        let o = dst.add((doff + elems[r0].0 + l * g.lane_dst) * dsz);
                        let vals = &rows[l * GROUP + r0..l * GROUP + r1];
                        super::super::simd::store_contiguous(d.dtype, p.numerics, vals, o);
                    }
                    r0 = r1;
                }
                return;
            }
            // Runs of 8 consecutive elements transposed back into the lanes' rows (a store
            // per lane and element was a fifth of nchw f32 40x40 <- 100x100); the elements
            // done.
            #[cfg(target_arch = "x86_64")]
            let e0 = {
                let mut e0 = 0;
                if g.transpose.is_some() && n == g.v && d.dtype == DataType::F32 {
                    let o = dst as *mut f32;
                    while e0 + 8 <= elems.len() {
                        let at = elems[e0].0;
                        if (1..8).any(|k| elems[e0 + k].0 != at + k) {
                            break;
                        }
                        for h in (0..n).step_by(8) {
                            let from = scratch.as_ptr().add(e0 * n + h);
                            let to = o.add(doff + at + h * g.lane_dst);
                            x86::untranspose8(from, n, to, g.lane_dst);
                        }
                        e0 += 8;
                    }
                }
                e0
            };
            #[cfg(not(target_arch = "x86_64"))]
            let e0 = 0;
            for (e, &(eoff, _, _)) in elems.iter().enumerate().skip(e0) {
                let vals = &scratch[e * g.v..e * g.v + n];
                if g.lane_dst == 1 {
                    let o = dst.add((doff + eoff) * dsz);
                    super::super::simd::store_contiguous(d.dtype, p.numerics, vals, o);
                    continue;
                }
                for (l, &x) in vals.iter().enumerate() {
                    let o = dst.add((doff + eoff + l * g.lane_dst) * dsz);
                    store_f32(o, d.dtype, x, p.numerics);
                }
            }
        }
    }
}

/// A full chunk with explicit vectors where the ISA has them; `false` when it has not.
///
/// # Safety
/// As [`chunk`] with vectors, for all `v` lanes or (contiguous f32 lanes) the first `n`,
/// masked: a scalar pass over the image for the last lanes took 3x the vectors' time (nhwc
/// f32 8x17 63x60 <- 21x20 nearest: 223 us, 56 at 8x16; PyTorch 55). False where there
/// is no vector kernel for the chunk.
unsafe fn vectors(
    g: &TinyGeom,
    elems: &[(usize, u32, u32)],
    sp: *const u8,
    bf16: bool,
    out: Out,
    ahead: AheadRun<'_>,
    n: usize,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller's; each variant runs only under an ISA the CPU has.
    unsafe {
        use super::super::simd::{isa, Isa};
        use x86::*;
        macro_rules! by_m {
            ($f:ident::<$($c:tt),*>) => {{
                match g.m {
                    0 => $f::<0, $($c),*>(g, elems, sp, out, ahead, n),
                    1 => $f::<1, $($c),*>(g, elems, sp, out, ahead, n),
                    2 => $f::<2, $($c),*>(g, elems, sp, out, ahead, n),
                    _ => $f::<3, $($c),*>(g, elems, sp, out, ahead, n),
                }
                true
            }};
        }
        if n < g.v {
            // Part chunks: contiguous f32 lanes, masked (`P`).
            return match (isa(), g.v, g.lane_src != 1 || g.lane_dst != 1, bf16) {
                (Isa::Avx512, 16, false, false) => by_m!(chunk16_avx512::<false, false, 1, true>),
                (Isa::Avx512 | Isa::Avx2, 8, false, false) => {
                    by_m!(chunk8_avx2::<false, false, 1, true>)
                }
                (Isa::Avx2, 16, false, false) => by_m!(chunk8_avx2::<false, false, 2, true>),
                (Isa::Avx512, 32, false, false) => by_m!(chunk16_avx512::<false, false, 2, true>),
                (Isa::Avx512, 64, false, false) => by_m!(chunk16_avx512::<false, false, 4, true>),
                (Isa::Avx2, 32, false, false) => by_m!(chunk8_avx2::<false, false, 4, true>),
                (Isa::Avx2, 64, false, false) => by_m!(chunk8_avx2::<false, false, 8, true>),
                _ => false,
            };
        }
        // bf16 lanes are contiguous (the plan's rule).
        match (isa(), g.v, g.lane_src != 1, bf16) {
            (Isa::Avx512, 16, false, false) => by_m!(chunk16_avx512::<false, false, 1, false>),
            (Isa::Avx512, 16, true, false) => by_m!(chunk16_avx512::<true, false, 1, false>),
            (Isa::Avx512, 16, false, true) => by_m!(chunk16_avx512::<false, true, 1, false>),
            (Isa::Avx512, 32, false, false) => by_m!(chunk16_avx512::<false, false, 2, false>),
            (Isa::Avx512, 32, false, true) => by_m!(chunk16_avx512::<false, true, 2, false>),
            (Isa::Avx512, 64, false, false) => by_m!(chunk16_avx512::<false, false, 4, false>),
            (Isa::Avx512, 64, false, true) => by_m!(chunk16_avx512::<false, true, 4, false>),
            (Isa::Avx2, 32, false, false) => by_m!(chunk8_avx2::<false, false, 4, false>),
            (Isa::Avx2, 32, false, true) => by_m!(chunk8_avx2::<false, true, 4, false>),
            (Isa::Avx2, 64, false, false) => by_m!(chunk8_avx2::<false, false, 8, false>),
            (Isa::Avx2, 64, false, true) => by_m!(chunk8_avx2::<false, true, 8, false>),
            (Isa::Avx512 | Isa::Avx2, 8, false, false) => {
                by_m!(chunk8_avx2::<false, false, 1, false>)
            }
            (Isa::Avx512 | Isa::Avx2, 8, true, false) => {
                by_m!(chunk8_avx2::<true, false, 1, false>)
            }
            (Isa::Avx512 | Isa::Avx2, 8, false, true) => {
                by_m!(chunk8_avx2::<false, true, 1, false>)
            }
            (Isa::Avx2, 16, false, false) => by_m!(chunk8_avx2::<false, false, 2, false>),
            (Isa::Avx2, 16, true, false) => by_m!(chunk8_avx2::<true, false, 2, false>),
            (Isa::Avx2, 16, false, true) => by_m!(chunk8_avx2::<false, true, 2, false>),
            _ => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // Baseline and NEON: the fixed-size arrays of `chunk_scalar`.
        let _ = (g, elems, sp, bf16, out, ahead, n);
        false
    }
}
