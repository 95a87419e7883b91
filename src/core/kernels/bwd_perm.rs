//! Backward rows by permuted windows (AVX-512 and AVX2, f32 or bf16 diff_dst).
//!
//! The row walk of [`super::bwd_stream`] sums each group's `w` lists into a diff_src row in
//! passes over the row: one pass per group, other-axis position and list slot, each reading
//! and writing the whole accumulator row, with scalar or gathered columns where the lists
//! are not a fixed stride (non-integer ratios). Here the row is cut into blocks of 16
//! diff_src elements instead, and a block's sum stays in one register over all its terms:
//! the columns a block reads from one diff_dst row (for one group) lie within 32 columns
//! (ratios up to about 2 either way), loaded as two vectors and permuted into place per
//! list slot; slots past an element's list are masked off, so each lane performs exactly
//! the reference's sequence `acc = acc + ((dd * w_a0) * w_a1) * w_w` (nearest: `acc + dd`),
//! in its order: group combinations (`w`'s group fastest), then the other axes' positions,
//! then the `w` list. AVX2 runs blocks of 8 over windows of 16 columns (two permutes and a
//! blend per slot).

#[cfg(target_arch = "x86_64")]
use super::super::dtype::bf16_to_f32;
use super::super::dtype::DataType;
use super::super::simd::Isa;
use super::bwd_stream::Segs;
#[cfg(target_arch = "x86_64")]
use super::bwd_stream::Term;

/// Lanes per block (at most; table rows are this wide).
const B: usize = 16;
/// Most list slots per block and group (longer lists mean a wider ratio than the window).
const MAX_SLOTS: usize = 8;

/// One block of one group: its slots `e0..e1`; `shared` when all of them read one window
/// (the first slot's), else each its own.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Block {
    pub e0: u32,
    pub e1: u32,
    pub shared: bool,
}

/// One list slot of a block: the window's first column, the lanes of its two vectors that
/// lie inside the diff_dst row, the window index and weight per lane, and the lanes that
/// add (those whose list is longer than the slot).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(crate) struct Slot {
    pub w: [f32; B],
    /// Bytes: the loads, not the arithmetic, bound this kernel.
    pub idx: [u8; B],
    pub ws: u32,
    pub lo: u16,
    pub hi: u16,
    /// Quad windows: the lanes of vectors 2 and 3 inside the row, and the lanes whose
    /// index reaches past vector 1 (taken from the second permute).
    pub q2: u16,
    pub q3: u16,
    pub up: u16,
    pub mask: u16,
    /// The whole window lies in the row (plain loads).
    pub full: bool,
}

/// The permute tables of one group of `w`.
#[derive(Clone, Debug)]
pub(crate) struct Group {
    pub blocks: Vec<Block>,
    pub slots: Vec<Slot>,
}

#[derive(Clone, Debug)]
pub(crate) struct Perm {
    pub groups: Vec<Group>,
    pub nblk: usize,
    /// Blocks where some slot's columns span more than a window (ratios beyond about 2 at
    /// clamped edges): summed lane by lane from the lists instead.
    pub wide: Vec<bool>,
    /// Elements per block: 16 (AVX-512) or 8 (AVX2), halved where that many elements'
    /// columns outgrow the window (ratios from about 2 to 4; the upper lanes then stay idle).
    pub lanes: usize,
    /// AVX-512 f32 blocks of 16 over 64-column windows (four vectors, two permutes and a
    /// blend a slot): ratios from about 2 to 4, every lane busy.
    pub quad: bool,
    /// The ISA the blocks are shaped for (the plan's).
    pub isa: Isa,
    /// Per block where the walk starts a step: how many blocks (1..=4) it runs together
    /// (equal slot counts, shared windows: their chains of additions overlap); 1 for wide
    /// blocks.
    pub step: Vec<u8>,
    /// The stretch whose lists repeat (two groups: linear rows; see [`super::bwd_repeat`]).
    pub repeat: Option<super::bwd_repeat::Repeat>,
    /// AVX2: the 2x stretch as even and odd columns (see [`super::bwd_repeat::Pairs`]).
    pub pairs: Option<super::bwd_repeat::Pairs>,
    /// diff_src elements per row.
    pub n_in: usize,
    /// Rows go [`rows`] at a time (set by the walk: [`Perm::fits_rows`] and a row table).
    pub together: bool,
}

impl Perm {
    /// Whether rows should go several at a time ([`rows`]) rather than one by one ([`row`]):
    /// short AVX-512 rows of whole blocks over f32 diff_dst. A row of one or two blocks has few
    /// chains of additions to overlap, and the repeating walk sums its clamped edges lane by
    /// lane, as long as its blocks take. 1 thread, Sapphire Rapids (a noisy VM: medians of
    /// 9 alternating rounds, two runs), nchw linear, one by one -> together, ms: 8x256 32x32
    /// <- 64x64 12.7 -> 11.3 and 10.8 -> 9.3, 1x16 same 0.086 -> 0.073; no gain at 16x16
    /// <- 32x32 or on AVX2; slower for bf16 (the edge windows' copies: 18.2 -> 23.7), a part
    /// block (8x256 20x20 <- 40x40: 5.8 -> 7.8) and four blocks (8x64 56x56 <- 112x112: 6.3
    /// -> 7.0).
    pub(crate) fn fits_rows(&self, src: DataType) -> bool {
        self.isa == Isa::Avx512
            && src == DataType::F32
            && self.nblk <= 2
            && self.n_in.is_multiple_of(self.lanes)
    }
}

/// The tables for `segs` (diff_src rows of `n_in`, diff_dst rows of `n_out`) for `isa`:
/// AVX-512 blocks of 16 elements over 32-column windows, else (with `quad`) over 64
/// columns, else blocks of 8 over 32; AVX2 blocks of 8, else 4, over 16 columns; `None`
/// for other ISAs or when more than a quarter of the blocks are wide.
pub(crate) fn plan(isa: Isa, segs: &[Segs], n_in: usize, n_out: usize, quad: bool) -> Option<Perm> {
    match isa {
        Isa::Avx512 => blocks_of(isa, B, 2 * B, false, segs, n_in, n_out)
            .or_else(|| {
                quad.then(|| blocks_of(isa, B, 4 * B, true, segs, n_in, n_out))
                    .flatten()
            })
            .or_else(|| blocks_of(isa, B / 2, 2 * B, false, segs, n_in, n_out)),
        Isa::Avx2 => blocks_of(isa, B / 2, B, false, segs, n_in, n_out)
            .or_else(|| blocks_of(isa, B / 4, B, false, segs, n_in, n_out)),
        _ => None,
    }
}

fn blocks_of(
    isa: Isa,
    lanes_per: usize,
    win: usize,
    quad: bool,
    segs: &[Segs],
    n_in: usize,
    n_out: usize,
) -> Option<Perm> {
    // Columns per window vector.
    let vw = if quad { win / 4 } else { win / 2 };
    let nblk = n_in.div_ceil(lanes_per);
    let mut groups = Vec::with_capacity(segs.len());
    let mut wide = vec![false; nblk];
    for s in segs {
        let mut g = Group {
            blocks: Vec::with_capacity(nblk),
            slots: Vec::new(),
        };
        for blk in 0..nblk {
            let lanes = blk * lanes_per..(blk * lanes_per + lanes_per).min(n_in);
            let slots = lanes.clone().map(|i| s.len[i] as usize).max().unwrap_or(0);
            let e0 = g.slots.len();
            let live = |j: usize| lanes.clone().filter(move |&i| (s.len[i] as usize) > j);
            // The window of slot `j` (or of all slots at once): first and last column read.
            let span = |js: std::ops::Range<usize>| {
                let cols = || {
                    js.clone()
                        .flat_map(|j| live(j).map(move |i| s.start[i] as usize + j))
                };
                (cols().min().unwrap_or(0), cols().max().unwrap_or(0))
            };
            let whole = span(0..slots);
            let shared = whole.1 < whole.0 + win;
            for j in 0..slots {
                let (ws, we) = if shared { whole } else { span(j..j + 1) };
                if we >= ws + win || slots > MAX_SLOTS {
                    wide[blk] = true;
                    break;
                }
                // Window lanes inside the row (the loads are masked to them).
                let inside = |v: usize| {
                    let n = n_out.saturating_sub(ws + v * vw).min(vw);
                    ((1u32 << n) - 1) as u16
                };
                let mut sl = Slot {
                    w: [0.0; B],
                    idx: [0; B],
                    ws: u32::try_from(ws).ok()?,
                    lo: inside(0),
                    hi: inside(1),
                    q2: if quad { inside(2) } else { 0 },
                    q3: if quad { inside(3) } else { 0 },
                    up: 0,
                    full: n_out >= ws + win,
                    mask: 0,
                };
                for i in live(j) {
                    let l = i - blk * lanes_per;
                    let ix = s.start[i] as usize + j - ws;
                    sl.idx[l] = ix as u8;
                    sl.w[l] = s.wt[s.wofs[i] as usize + j];
                    sl.mask |= 1 << l;
                    if ix >= 2 * vw {
                        sl.up |= 1 << l;
                    }
                }
                g.slots.push(sl);
            }
            if wide[blk] {
                g.slots.truncate(e0);
            }
            g.blocks.push(Block {
                e0: e0 as u32,
                e1: g.slots.len() as u32,
                shared,
            });
        }
        groups.push(g);
    }
    if wide.iter().filter(|&&w| w).count() * 4 > nblk {
        return None;
    }
    let same = |a: usize, b: usize| {
        !wide[a]
            && !wide[b]
            && groups.iter().all(|g: &Group| {
                let (x, y) = (g.blocks[a], g.blocks[b]);
                x.shared && y.shared && x.e1 - x.e0 == y.e1 - y.e0
            })
    };
    let mut step = vec![1u8; nblk];
    let mut blk = 0;
    while blk < nblk {
        let k = (1..4)
            .take_while(|&k| blk + k < nblk && same(blk, blk + k))
            .count()
            + 1;
        step[blk] = k as u8;
        blk += k;
    }
    // AVX2 permutes lost to the fixed-stride loops at these ratios (1 thread, 1x8 256x256 <-
    // 512x512: 1.6 ms there, 3.7 repeating); its 2x stretch takes even and odd columns.
    let repeat = (isa == Isa::Avx512 && lanes_per == B)
        .then(|| super::bwd_repeat::Repeat::find(segs, n_in, n_out))
        .flatten();
    let pairs = (isa == Isa::Avx2 && lanes_per == B / 2)
        .then(|| super::bwd_repeat::Pairs::find(segs, n_in, n_out))
        .flatten();
    Some(Perm {
        groups,
        nblk,
        wide,
        lanes: lanes_per,
        quad,
        isa,
        step,
        repeat,
        pairs,
        n_in,
        together: false,
    })
}

/// One diff_src row: `combos` are ranges of `pos` (the positions of one combination of
/// the other axes' groups, in order), `M` other-axis weights, `LIN` the `w` weights.
/// Writes the sums of the blocks `blocks` (all: `0..perm.nblk`) to `out`.
///
/// # Safety
/// The CPU has `perm.isa` (the tables' ISA); every position's row holds the
/// columns the tables name (and `n_out` at most from `off`); `out` holds `n_in` values.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn row<const M: usize, const LIN: bool, const BF: bool>(
    src: *const u8,
    perm: &Perm,
    segs: &[Segs],
    combos: &[(u32, u32)],
    pos: &[Term],
    out: *mut f32,
    n_in: usize,
    blocks: std::ops::Range<usize>,
) {
    // One function per ISA, so that its block kernels inline into the walk.
    #[target_feature(enable = "avx512f")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn avx512<const M: usize, const LIN: bool, const BF: bool>(
        src: *const u8,
        perm: &Perm,
        segs: &[Segs],
        combos: &[(u32, u32)],
        pos: &[Term],
        out: *mut f32,
        n_in: usize,
        blocks: std::ops::Range<usize>,
    ) {
        // SAFETY: the caller's.
        unsafe { row_body::<M, LIN, BF, true>(src, perm, segs, combos, pos, out, n_in, blocks) }
    }
    #[target_feature(enable = "avx2")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn avx2<const M: usize, const LIN: bool, const BF: bool>(
        src: *const u8,
        perm: &Perm,
        segs: &[Segs],
        combos: &[(u32, u32)],
        pos: &[Term],
        out: *mut f32,
        n_in: usize,
        blocks: std::ops::Range<usize>,
    ) {
        // SAFETY: the caller's.
        unsafe { row_body::<M, LIN, BF, false>(src, perm, segs, combos, pos, out, n_in, blocks) }
    }
    // SAFETY: the caller's; each variant runs on the ISA the tables were planned for.
    unsafe {
        if perm.isa == Isa::Avx512 {
            avx512::<M, LIN, BF>(src, perm, segs, combos, pos, out, n_in, blocks)
        } else {
            avx2::<M, LIN, BF>(src, perm, segs, combos, pos, out, n_in, blocks)
        }
    }
}

/// `R` diff_src rows at once, block by block: chain `r` is row `r` (`pos[r]` from `src[r]`
/// into `out[r]`), all with the same `combos`. One block's slot tables serve all rows and
/// their chains of additions overlap, where a row alone has few blocks to overlap and sums
/// its clamped edges lane by lane ([`super::bwd_repeat`]). AVX-512 tables only (see
/// [`Perm::fits_rows`]).
///
/// # Safety
/// As [`row`], for every row; `perm.isa` is AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn rows<const M: usize, const LIN: bool, const BF: bool, const R: usize>(
    src: [*const u8; R],
    perm: &Perm,
    segs: &[Segs],
    combos: &[(u32, u32)],
    pos: [&[Term]; R],
    out: [*mut f32; R],
    n_in: usize,
) {
    debug_assert_eq!(perm.isa, Isa::Avx512);
    // SAFETY: the caller's.
    unsafe {
        for blk in 0..perm.nblk {
            if perm.wide[blk] {
                let l = perm.lanes;
                for r in 0..R {
                    let lanes = blk * l..(blk * l + l).min(n_in);
                    wide_block::<M, LIN, BF>(src[r], segs, combos, pos[r], out[r], lanes);
                }
                continue;
            }
            let c = Chains::<R> {
                src,
                pos,
                out,
                blk: [blk; R],
            };
            if perm.quad {
                blocks_avx512::<M, LIN, BF, R, true, true>(perm, &c, combos, n_in);
            } else {
                blocks_avx512::<M, LIN, BF, R, true, false>(perm, &c, combos, n_in);
            }
        }
    }
}

/// [`row`]'s walk over blocks; `W`: the AVX-512 block kernel, else the AVX2 one.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn row_body<const M: usize, const LIN: bool, const BF: bool, const W: bool>(
    src: *const u8,
    perm: &Perm,
    segs: &[Segs],
    combos: &[(u32, u32)],
    pos: &[Term],
    out: *mut f32,
    n_in: usize,
    blocks: std::ops::Range<usize>,
) {
    // SAFETY: the caller's.
    unsafe {
        let all = blocks.start == 0 && blocks.end == perm.nblk;
        if let Some(r) = perm.repeat.as_ref().filter(|_| LIN && W && all) {
            super::bwd_repeat::row::<M, BF>(src, r, segs, combos, pos, out);
            return;
        }
        if let Some(r) = perm.pairs.as_ref().filter(|_| LIN && !W && all) {
            super::bwd_repeat::pairs_row::<M, BF>(src, r, segs, combos, pos, out);
            return;
        }
        // (Repeating rows walk whole rows; the chunked walk does not take them.)
        debug_assert!(all || (perm.repeat.is_none() && perm.pairs.is_none()));
        let mut blk = blocks.start;
        while blk < blocks.end {
            if perm.wide[blk] {
                let l = perm.lanes;
                wide_block::<M, LIN, BF>(
                    src,
                    segs,
                    combos,
                    pos,
                    out,
                    blk * l..(blk * l + l).min(n_in),
                );
                blk += 1;
                continue;
            }
            let k = (perm.step[blk] as usize).min(blocks.end - blk);
            macro_rules! by_isa {
                ($k:literal) => {
                    if W {
                        let c = Chains::<$k> {
                            src: [src; $k],
                            pos: [pos; $k],
                            out: [out; $k],
                            blk: std::array::from_fn(|k| blk + k),
                        };
                        if perm.quad {
                            blocks_avx512::<M, LIN, BF, $k, false, true>(perm, &c, combos, n_in)
                        } else {
                            blocks_avx512::<M, LIN, BF, $k, false, false>(perm, &c, combos, n_in)
                        }
                    } else {
                        blocks_avx2::<M, LIN, BF, $k>(src, perm, blk, combos, pos, out, n_in)
                    }
                };
            }
            match k {
                4 => by_isa!(4),
                3 => by_isa!(3),
                2 => by_isa!(2),
                _ => by_isa!(1),
            }
            blk += k;
        }
    }
}

/// The first `n` (< 32) bf16 at `r`, zeros after them, without reading past them: whole
/// pairs as masked 32-bit lanes, an odd last one inserted by itself. Copying them out
/// through the stack instead (a `memcpy` call, then a load the copy's narrower stores could
/// not forward) made the bf16 windows of short rows 3-4x slower than f32 (rows of 31
/// columns: every window is partial).
///
/// # Safety
/// `n` bf16 readable at `r`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn bf16_prefix_avx512(r: *const u16, n: usize) -> std::arch::x86_64::__m512i {
    use std::arch::x86_64::*;
    debug_assert!(n < 2 * B);
    // SAFETY: the caller's: the masked lanes and the last element lie in the `n`.
    unsafe {
        let pairs = _mm512_maskz_loadu_epi32(((1u32 << (n / 2)) - 1) as u16, r as *const _);
        if n % 2 == 1 {
            let last = r.add(n - 1).read_unaligned() as i32;
            _mm512_mask_set1_epi32(pairs, (1u32 << (n / 2)) as u16, last)
        } else {
            pairs
        }
    }
}

/// [`bf16_prefix_avx512`] for AVX2: the first `n` (< 16) bf16 at `r`, zeros after them.
///
/// # Safety
/// `n` bf16 readable at `r`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn bf16_prefix_avx2(r: *const u16, n: usize) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    debug_assert!(n < B);
    // SAFETY: the caller's: the masked lanes and the last element lie in the `n`.
    unsafe {
        let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let half = _mm256_set1_epi32((n / 2) as i32);
        let pairs = _mm256_maskload_epi32(r as *const i32, _mm256_cmpgt_epi32(half, lane));
        if n % 2 == 1 {
            let last = _mm256_set1_epi32(r.add(n - 1).read_unaligned() as i32);
            _mm256_or_si256(
                pairs,
                _mm256_and_si256(last, _mm256_cmpeq_epi32(half, lane)),
            )
        } else {
            pairs
        }
    }
}

/// `K` chains of additions run together (their latencies overlap): chain `k` sums block
/// `blk[k]` of the row whose positions are `pos[k]` (offsets from `src[k]`) into `out[k]`.
/// All chains' rows have the same combos and their blocks the same slot counts and sharing:
/// one row's blocks (see [`Perm::step`]) or one block of several rows ([`rows`]).
#[cfg(target_arch = "x86_64")]
pub(crate) struct Chains<'a, const K: usize> {
    pub src: [*const u8; K],
    pub pos: [&'a [Term]; K],
    pub out: [*mut f32; K],
    pub blk: [usize; K],
}

/// The chains' blocks, their sums into their rows; `ONE`: all chains are one block (its
/// slot tables are read once for all); `Q`: quad windows, a slot's values
/// permuted from vectors 0-1 and 2-3 and blended on [`Slot::up`].
///
/// # Safety
/// As [`row`], for every chain's row.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn blocks_avx512<
    const M: usize,
    const LIN: bool,
    const BF: bool,
    const K: usize,
    const ONE: bool,
    const Q: bool,
>(
    perm: &Perm,
    c: &Chains<'_, K>,
    combos: &[(u32, u32)],
    n_in: usize,
) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's: loads are masked to the row, stores to `n_in` values.
    unsafe {
        let mut acc = [_mm512_setzero_ps(); K];
        for &(p0, p1) in combos {
            let (p0, p1) = (p0 as usize, p1 as usize);
            for g in &perm.groups {
                let b = g.blocks[c.blk[0]];
                let n = (b.e1 - b.e0) as usize;
                if n == 0 {
                    continue;
                }
                let e0: [usize; K] = std::array::from_fn(|k| g.blocks[c.blk[k]].e0 as usize);
                // Masked loads: lanes past the row are not read (bf16: copied out).
                let window = |src: *const u8, row: usize, sl: &Slot| {
                    let at = row + sl.ws as usize;
                    if BF {
                        // 32 columns (64 with `Q`) in halves of 32, each loaded whole, as a
                        // prefix or not at all. (`q2`, `q3` are empty without `Q`.)
                        let r = (src as *const u16).wrapping_add(at);
                        let n = match sl.full {
                            true => 2 * B * (1 + Q as usize),
                            false => {
                                (sl.lo.count_ones()
                                    + sl.hi.count_ones()
                                    + sl.q2.count_ones()
                                    + sl.q3.count_ones()) as usize
                            }
                        };
                        let half = |r: *const u16, n: usize| match n {
                            0 => _mm512_setzero_si512(),
                            n if n >= 2 * B => _mm512_loadu_si512(r as *const _),
                            n => bf16_prefix_avx512(r, n),
                        };
                        let f32s = |h: __m256i| {
                            _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(h)))
                        };
                        let v0 = half(r, n);
                        let (lo, hi) = (
                            f32s(_mm512_castsi512_si256(v0)),
                            f32s(_mm512_extracti64x4_epi64::<1>(v0)),
                        );
                        if Q {
                            let v1 = half(r.wrapping_add(2 * B), n.saturating_sub(2 * B));
                            [
                                lo,
                                hi,
                                f32s(_mm512_castsi512_si256(v1)),
                                f32s(_mm512_extracti64x4_epi64::<1>(v1)),
                            ]
                        } else {
                            [lo, hi, _mm512_setzero_ps(), _mm512_setzero_ps()]
                        }
                    } else {
                        let r = (src as *const f32).wrapping_add(at);
                        let z = _mm512_setzero_ps();
                        match (sl.full, Q) {
                            (true, false) => [_mm512_loadu_ps(r), _mm512_loadu_ps(r.add(B)), z, z],
                            (true, true) => [
                                _mm512_loadu_ps(r),
                                _mm512_loadu_ps(r.add(B)),
                                _mm512_loadu_ps(r.add(2 * B)),
                                _mm512_loadu_ps(r.add(3 * B)),
                            ],
                            (false, _) => [
                                _mm512_maskz_loadu_ps(sl.lo, r),
                                _mm512_maskz_loadu_ps(sl.hi, r.wrapping_add(B)),
                                if Q {
                                    _mm512_maskz_loadu_ps(sl.q2, r.wrapping_add(2 * B))
                                } else {
                                    z
                                },
                                if Q {
                                    _mm512_maskz_loadu_ps(sl.q3, r.wrapping_add(3 * B))
                                } else {
                                    z
                                },
                            ],
                        }
                    }
                };
                let shared = b.shared;
                // Fixed slot counts unroll (the loop branches cost as much as the work).
                let ix_of = |sl: &Slot| {
                    _mm512_cvtepu8_epi32(_mm_loadu_si128(sl.idx.as_ptr() as *const __m128i))
                };
                macro_rules! body {
                    ($n:expr) => {
                        for q in p0..p1 {
                            let p: [&Term; K] = std::array::from_fn(|k| c.pos[k].get_unchecked(q));
                            let mut win: [[__m512; 4]; K] = std::array::from_fn(|k| {
                                if shared {
                                    window(c.src[k], p[k].off, g.slots.get_unchecked(e0[k]))
                                } else {
                                    [_mm512_setzero_ps(); 4]
                                }
                            });
                            for j in 0..$n {
                                // `ONE`: the block's slot, read once for all chains
                                // (otherwise unused, and compiled away).
                                let one = g.slots.get_unchecked(e0[0] + j);
                                let (ix1, w1) = (ix_of(one), _mm512_load_ps(one.w.as_ptr()));
                                for k in 0..K {
                                    let sl = if ONE {
                                        one
                                    } else {
                                        g.slots.get_unchecked(e0[k] + j)
                                    };
                                    if !shared {
                                        win[k] = window(c.src[k], p[k].off, sl);
                                    }
                                    let ix = if ONE { ix1 } else { ix_of(sl) };
                                    let wk = &win[k];
                                    let mut x = _mm512_permutex2var_ps(wk[0], ix, wk[1]);
                                    if Q {
                                        // `vpermt2ps` reads the index's low 5 bits.
                                        let up = if ONE { one.up } else { sl.up };
                                        x = _mm512_mask_blend_ps(
                                            up,
                                            x,
                                            _mm512_permutex2var_ps(wk[2], ix, wk[3]),
                                        );
                                    }
                                    for &wa in &p[k].w[..M] {
                                        x = _mm512_mul_ps(x, _mm512_set1_ps(wa));
                                    }
                                    if LIN {
                                        let w = if ONE {
                                            w1
                                        } else {
                                            _mm512_load_ps(sl.w.as_ptr())
                                        };
                                        x = _mm512_mul_ps(x, w);
                                    }
                                    acc[k] = _mm512_mask_add_ps(acc[k], sl.mask, acc[k], x);
                                }
                            }
                        }
                    };
                }
                match n {
                    1 => body!(1),
                    2 => body!(2),
                    3 => body!(3),
                    _ => body!(n),
                }
            }
        }
        for (k, a) in acc.iter().enumerate() {
            let o = c.blk[k] * perm.lanes;
            let n = (n_in - o).min(perm.lanes);
            if n == B {
                _mm512_storeu_ps(c.out[k].add(o), *a);
            } else {
                _mm512_mask_storeu_ps(c.out[k].add(o), ((1u32 << n) - 1) as u16, *a);
            }
        }
    }
}

/// [`blocks_avx512`] for AVX2: blocks of 8 over 16-column windows; a slot's values are the
/// two halves permuted and blended on the index's bit 3, its lanes added by a blend.
///
/// # Safety
/// As [`row`], on AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn blocks_avx2<const M: usize, const LIN: bool, const BF: bool, const K: usize>(
    src: *const u8,
    perm: &Perm,
    blk: usize,
    combos: &[(u32, u32)],
    pos: &[Term],
    out: *mut f32,
    n_in: usize,
) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's: loads are masked to the row, stores to `n_in` values.
    unsafe {
        let iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        // Lanes `l` with bit `l` of `m` set, as a vector mask.
        let lanes = |m: u16| {
            let v = _mm256_and_si256(_mm256_set1_epi32(m as i32), bits);
            _mm256_castsi256_ps(_mm256_cmpeq_epi32(v, bits))
        };
        let mut acc = [_mm256_setzero_ps(); K];
        for &(p0, p1) in combos {
            let (p0, p1) = (p0 as usize, p1 as usize);
            for g in &perm.groups {
                let b = g.blocks[blk];
                let n = (b.e1 - b.e0) as usize;
                if n == 0 {
                    continue;
                }
                let e0: [usize; K] = std::array::from_fn(|k| g.blocks[blk + k].e0 as usize);
                // Masked loads: lanes past the row are not read (the halves' valid lanes
                // are leading ones).
                let window = |row: usize, sl: &Slot| {
                    let at = row + sl.ws as usize;
                    if BF {
                        let r = (src as *const u16).wrapping_add(at);
                        let v = if sl.full {
                            _mm256_loadu_si256(r as *const __m256i)
                        } else {
                            let n = sl.lo.count_ones() + sl.hi.count_ones();
                            bf16_prefix_avx2(r, n as usize)
                        };
                        let f32s = |h: __m128i| {
                            _mm256_castsi256_ps(_mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(h)))
                        };
                        (
                            f32s(_mm256_castsi256_si128(v)),
                            f32s(_mm256_extracti128_si256::<1>(v)),
                        )
                    } else {
                        let r = (src as *const f32).wrapping_add(at);
                        if sl.full {
                            (_mm256_loadu_ps(r), _mm256_loadu_ps(r.add(8)))
                        } else {
                            let valid = |m: u16| {
                                _mm256_cmpgt_epi32(_mm256_set1_epi32(m.count_ones() as i32), iota)
                            };
                            (
                                _mm256_maskload_ps(r, valid(sl.lo)),
                                _mm256_maskload_ps(r.wrapping_add(8), valid(sl.hi)),
                            )
                        }
                    }
                };
                let shared = b.shared;
                macro_rules! body {
                    ($n:expr) => {
                        for p in &pos[p0..p1] {
                            let row = p.off;
                            let mut win: [(__m256, __m256); K] = std::array::from_fn(|k| {
                                if shared {
                                    window(row, g.slots.get_unchecked(e0[k]))
                                } else {
                                    (_mm256_setzero_ps(), _mm256_setzero_ps())
                                }
                            });
                            for j in 0..$n {
                                for k in 0..K {
                                    let sl = g.slots.get_unchecked(e0[k] + j);
                                    if !shared {
                                        win[k] = window(row, sl);
                                    }
                                    let ix = _mm256_cvtepu8_epi32(_mm_loadl_epi64(
                                        sl.idx.as_ptr() as *const __m128i
                                    ));
                                    let upper = _mm256_castsi256_ps(_mm256_slli_epi32::<28>(ix));
                                    let mut x = _mm256_blendv_ps(
                                        _mm256_permutevar8x32_ps(win[k].0, ix),
                                        _mm256_permutevar8x32_ps(win[k].1, ix),
                                        upper,
                                    );
                                    for &wa in &p.w[..M] {
                                        x = _mm256_mul_ps(x, _mm256_set1_ps(wa));
                                    }
                                    if LIN {
                                        x = _mm256_mul_ps(x, _mm256_load_ps(sl.w.as_ptr()));
                                    }
                                    let add = _mm256_add_ps(acc[k], x);
                                    acc[k] = _mm256_blendv_ps(acc[k], add, lanes(sl.mask));
                                }
                            }
                        }
                    };
                }
                match n {
                    1 => body!(1),
                    2 => body!(2),
                    3 => body!(3),
                    _ => body!(n),
                }
            }
        }
        for (k, a) in acc.iter().enumerate() {
            let o = (blk + k) * perm.lanes;
            let n = (n_in - o).min(perm.lanes);
            if n == 8 {
                _mm256_storeu_ps(out.add(o), *a);
            } else {
                let keep = _mm256_cmpgt_epi32(_mm256_set1_epi32(n as i32), iota);
                _mm256_maskstore_ps(out.add(o), keep, *a);
            }
        }
    }
}

/// A wide block's lanes `lanes`, one at a time, from the lists (the same operations).
///
/// # Safety
/// As [`row`].
#[cfg(target_arch = "x86_64")]
#[inline(never)]
pub(super) unsafe fn wide_block<const M: usize, const LIN: bool, const BF: bool>(
    src: *const u8,
    segs: &[Segs],
    combos: &[(u32, u32)],
    pos: &[Term],
    out: *mut f32,
    lanes: std::ops::Range<usize>,
) {
    // SAFETY: the caller's: every list column lies in each position's row.
    unsafe {
        for i in lanes {
            let mut acc = 0f32;
            for &(p0, p1) in combos {
                let (p0, p1) = (p0 as usize, p1 as usize);
                for s in segs {
                    let (st, wo) = (s.start[i] as usize, s.wofs[i] as usize);
                    for p in &pos[p0..p1] {
                        for j in 0..s.len[i] as usize {
                            let k = p.off + st + j;
                            let mut x = if BF {
                                bf16_to_f32(*(src as *const u16).add(k))
                            } else {
                                *(src as *const f32).add(k)
                            };
                            for &wa in &p.w[..M] {
                                x *= wa;
                            }
                            if LIN {
                                x *= s.wt[wo + j];
                            }
                            acc += x;
                        }
                    }
                }
            }
            *out.add(i) = acc;
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// The partial bf16 windows: the first `n` values, zeros after them, every `n` and
    /// start parity, on each ISA the CPU has.
    #[test]
    fn bf16_prefixes_hold_the_first_n_then_zeros() {
        let buf: Vec<u16> = (0..80u16).map(|i| 0x3F80 + 7 * i + 1).collect();
        let isas = crate::core::simd::available_isas();
        for start in 0..3 {
            for n in 0..2 * B {
                let want: Vec<u16> = (0..2 * B)
                    .map(|i| if i < n { buf[start + i] } else { 0 })
                    .collect();
                let r = buf[start..].as_ptr();
                if isas.contains(&Isa::Avx512) {
                    let mut got = [0u16; 2 * B];
                    // SAFETY: AVX-512F present; `n` values readable at `r`.
                    unsafe {
                        let v = bf16_prefix_avx512(r, n);
                        std::arch::x86_64::_mm512_storeu_si512(got.as_mut_ptr() as *mut _, v);
                    }
                    assert_eq!(got[..], want[..], "AVX-512 n {n} start {start}");
                }
                if isas.contains(&Isa::Avx2) && n < B {
                    let mut got = [0u16; B];
                    // SAFETY: AVX2 present; `n` values readable at `r`.
                    unsafe {
                        let v = bf16_prefix_avx2(r, n);
                        std::arch::x86_64::_mm256_storeu_si256(got.as_mut_ptr() as *mut _, v);
                    }
                    assert_eq!(got[..], want[..B], "AVX2 n {n} start {start}");
                }
            }
        }
    }
}
