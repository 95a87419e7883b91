//! The W lerp of a blended row with in-register permutes instead of gathers.
//!
//! `out[j] = row[i0[j]] * w0[j] + row[i1[j]] * w1[j]` (the reference's outermost level).
//! For `L` consecutive outputs (one vector) the taps usually fall in a window of at most `2L`
//! row elements (upsampling, or downsampling up to about 2x), so two vector loads and a
//! permute per tap replace an `L`-element gather, which costs about one load per element.
//! The tables hold per block the window start and the byte indices into the window; the
//! arithmetic is the gather kernel's (separate `*` and `+`, no FMA), so the bits are equal.
//!
//! On Zen 4 the AVX-512 blocks are bound by their loads (u32 indices instead of bytes made
//! the u8 HD image 1.2x slower), so two of them go where the tables allow: a window that
//! fits one vector is loaded once, and a weight that is `1 - the other` in every element
//! (the usual linear rules) is computed, not loaded (the same bits).

use super::WTable;
use crate::core::simd::{self, isa, Isa};

/// Permute tables of a [`WTable`] for vectors of `lanes` f32.
#[derive(Clone, Debug)]
pub(crate) struct PermTable {
    /// Vector width (f32 lanes); only the x86-64 permute kernels read it.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub lanes: usize,
    /// Outputs per block: `lanes`, fewer when downsampling widens the windows (AVX-512: 9
    /// to 15, else half; the upper lanes then compute nothing that is stored).
    pub step: usize,
    /// Per full block: the row element where its window starts.
    pub base: Vec<u32>,
    /// Per output element: `i0 - base` and `i1 - base` of its block (`< 2 * lanes`).
    pub p0: Vec<u8>,
    pub p1: Vec<u8>,
    /// The elements after the full blocks, for the gather kernel.
    pub tail: WTable,
    /// Every full block's window fits one vector (`p0`, `p1` < `lanes`).
    pub narrow: bool,
    /// AVX2 blocks whose taps each fit one vector though together they do not: per full
    /// block the window of the `i1` taps (`p1` then counts from it, `p0` from `base`), so
    /// each tap is one load and one permute, no blend (see [`PermTable::split`]). Empty
    /// otherwise.
    pub base1: Vec<u32>,
    /// Which weight of the full blocks is `1 - the other`, bit for bit.
    pub derived: Derived,
    /// Full blocks whose tables repeat (full-width x86 blocks; see [`Cycle`]).
    pub cycle: Option<Cycle>,
    /// AVX2: every full block is 2x upsampling pairs once the row is padded (see
    /// [`RowPairs`]).
    pub row_pairs: Option<RowPairs>,
}

/// AVX2 2x upsampling over a whole row's full blocks, edges included: output `2q` reads
/// columns `e + q`, `e + q + 1` and output `2q + 1` columns `o + q`, `o + q + 1`, each
/// clamped to `0..=last`, with one weight pair for the evens and one for the odds. A row
/// padded with its edge columns (one before column 0, `back` after `last`) turns the
/// clamped taps into plain shifted loads, so the row runs as [`Cycle::pairs`] blocks from
/// end to end. The cycle leaves the edge blocks out, and a 64-wide row (8 blocks) kept too
/// few to hold: those went through the permute blocks. Zen 1, 1 thread, nchw f32 linear:
/// 8x256 32->64 8.4 -> 5.5 ms, 8x64 56->112 4.9 -> 3.5 (bf16 32->64 11.4 -> 9.8).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RowPairs {
    pub e: isize,
    pub o: isize,
    /// `w0`, `w1` of the evens, then of the odds.
    pub w: [f32; 4],
    pub last: usize,
    pub back: usize,
}

/// Full blocks `k0..k1` whose indices and weights repeat every `period` blocks bit for bit,
/// each period's windows `shift` columns further (integer ratios: 2x upsampling of a C=3
/// row repeats every 3 blocks). The kernel then holds a period's indices and weights in
/// registers instead of loading and widening them per block: those loads and the byte
/// widening (a port-5 uop each, beside the two permutes) were half of a block's cost; the
/// u8 HWC HD 2x image 6.5 -> 4.8 ms with one period held, f32 nchw 8x64 56->112 2.1 -> 1.8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cycle {
    pub k0: usize,
    pub k1: usize,
    pub period: usize,
    pub shift: usize,
    /// AVX2 2x upsampling: a block of period 1 moving 4 columns whose even outputs read
    /// columns `e + k`, `e + k + 1` and odd ones `o + k`, `o + k + 1` of its window (output
    /// `2k` or `2k + 1`), with one weight pair for the evens and one for the odds: `(e, o)`.
    /// Then two blocks are the evens and the odds of 8 consecutive columns, lerped from
    /// shifted loads and interleaved, no permutes (those were a quarter of an in-cache
    /// nchw f32 2x row's time on Zen 1).
    pub pairs: Option<(u8, u8)>,
}

/// Longest period the kernel holds (four vectors a block: two index, two weight).
const MAX_PERIOD: usize = 4;

/// Fewest repeating blocks of a call that the kernel holds the tables for, by vector width
/// (short nchw rows, 112 outputs a row, are 14 AVX2 blocks).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const fn min_held(lanes: usize) -> usize {
    match lanes {
        8 => 8,
        _ => 16,
    }
}

/// A weight the kernel computes as `1.0 - the other` instead of loading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Derived {
    None,
    W0,
    W1,
}

impl PermTable {
    /// The permute tables for this CPU's vectors, if every full block's window fits.
    pub(crate) fn new(t: &WTable) -> Option<PermTable> {
        let lanes = match isa() {
            Isa::Avx512 => 16,
            Isa::Avx2 => 8,
            Isa::Base => return None,
            Isa::Neon => 4,
        };
        if !cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
            return None;
        }
        // AVX-512 blocks take the longest step from 16 down to 9 outputs whose windows fit:
        // a 2-4x downsampling of multi-element pixels fell to blocks of 8 (nhwc C=4
        // 963->457: 16 outputs span 38 columns, 15 fit). 1 thread, Xeon AVX-512, ms: nhwc
        // f32 1x4 378x963->755x457 0.95 -> 0.82, 1x3 1080x1920->540x700 1.41 -> 1.32, u8
        // 1000x1000->333x333 0.240 -> 0.220; nchw f32 1x3 same 1.26 -> 1.19.
        let steps = match lanes {
            16 => 9..=16,
            _ => lanes..=lanes,
        };
        steps
            .rev()
            .find_map(|step| Self::with_step(t, lanes, step))
            .or_else(|| Self::with_step(t, lanes, lanes / 2))
    }

    fn with_step(t: &WTable, lanes: usize, step: usize) -> Option<PermTable> {
        let n = t.i0.len();
        let blocks = n / step;
        let mut pt = PermTable {
            lanes,
            step,
            base: Vec::with_capacity(blocks),
            p0: Vec::with_capacity(blocks * step),
            p1: Vec::with_capacity(blocks * step),
            tail: WTable {
                i0: t.i0[blocks * step..].to_vec(),
                i1: t.i1[blocks * step..].to_vec(),
                w0: t.w0[blocks * step..].to_vec(),
                w1: t.w1[blocks * step..].to_vec(),
            },
            narrow: true,
            base1: Vec::new(),
            derived: Derived::None,
            cycle: None,
            row_pairs: None,
        };
        for k in 0..blocks {
            let r = k * step..(k + 1) * step;
            let lo = t.i0[r.clone()].iter().chain(&t.i1[r.clone()]).min()?;
            let hi = t.i0[r.clone()].iter().chain(&t.i1[r.clone()]).max()?;
            if (hi - lo) as usize >= 2 * lanes {
                return None;
            }
            pt.narrow &= ((hi - lo) as usize) < lanes;
            pt.base.push(*lo);
            pt.p0
                .extend(t.i0[r.clone()].iter().map(|&i| (i - lo) as u8));
            pt.p1.extend(t.i1[r].iter().map(|&i| (i - lo) as u8));
        }
        // A block of fewer than 16 outputs loads 16 indices (the next block's, unused).
        if lanes == 16 && step != 16 && step != 8 {
            pt.p0.resize(pt.p0.len() + 16, 0);
            pt.p1.resize(pt.p1.len() + 16, 0);
        }
        if lanes == 8 && step == 8 && !pt.narrow {
            pt.split(t);
        }
        let (w0, w1) = (&t.w0[..blocks * step], &t.w1[..blocks * step]);
        let comp = |a: &[f32], b: &[f32]| {
            a.iter()
                .zip(b)
                .all(|(a, b)| a.to_bits() == (1.0 - b).to_bits())
        };
        pt.derived = if comp(w0, w1) {
            Derived::W0
        } else if comp(w1, w0) {
            Derived::W1
        } else {
            Derived::None
        };
        if cfg!(target_arch = "x86_64") && step == lanes {
            pt.cycle = pt.find_cycle(t);
            pt.row_pairs = pt.find_row_pairs(t);
        }
        Some(pt)
    }

    /// The longest run of full blocks around the row's middle that repeats with the
    /// shortest period up to [`MAX_PERIOD`]; `None` below four periods.
    fn find_cycle(&self, t: &WTable) -> Option<Cycle> {
        let (nb, s) = (self.base.len(), self.step);
        let r = |k: usize| k * s..(k + 1) * s;
        let bits = |v: &[f32], a: usize, b: usize| {
            v[r(a)]
                .iter()
                .zip(&v[r(b)])
                .all(|(x, y)| x.to_bits() == y.to_bits())
        };
        let same = |a: usize, b: usize| {
            self.p0[r(a)] == self.p0[r(b)]
                && self.p1[r(a)] == self.p1[r(b)]
                && bits(&t.w0, a, b)
                && bits(&t.w1, a, b)
        };
        let m = nb / 2;
        (1..=MAX_PERIOD).find_map(|period| {
            let shift = (*self.base.get(m + period)?).checked_sub(self.base[m])? as usize;
            // Block k + period is block k moved `shift` columns (both windows when split).
            let moved = |k: usize| {
                self.base[k] as usize + shift == self.base[k + period] as usize
                    && self
                        .base1
                        .get(k)
                        .is_none_or(|&b| b as usize + shift == self.base1[k + period] as usize)
                    && same(k, k + period)
            };
            if !moved(m) {
                return None;
            }
            let (mut a, mut e) = (m, m + 1);
            while a > 0 && moved(a - 1) {
                a -= 1;
            }
            while e + period < nb && moved(e) {
                e += 1;
            }
            let k1 = e + period;
            (k1 - a >= 4 * period).then(|| Cycle {
                k0: a,
                k1,
                period,
                shift,
                pairs: self.pairs(t, a, period, shift),
            })
        })
    }
}

impl PermTable {
    /// [`Cycle::pairs`] of a cycle from block `k0`, if it has that shape.
    fn pairs(&self, t: &WTable, k0: usize, period: usize, shift: usize) -> Option<(u8, u8)> {
        // (Split windows count `i1` from elsewhere; the odd last block goes to `avx2`
        // unsplit.)
        if (self.lanes, self.step, period, shift) != (8, 8, 1, 4) || !self.base1.is_empty() {
            return None;
        }
        let j = k0 * 8;
        let b = self.base[k0];
        let rel = |v: &[u32], r: usize| v[j + r].checked_sub(b);
        let (e, o) = (rel(&t.i0, 0)?, rel(&t.i0, 1)?);
        let same = |v: &[f32], r: usize| v[j + r].to_bits() == v[j + r % 2].to_bits();
        let fits = (0..8).all(|r| {
            let first = if r % 2 == 0 { e } else { o } + (r / 2) as u32;
            rel(&t.i0, r) == Some(first)
                && rel(&t.i1, r) == Some(first + 1)
                && same(&t.w0, r)
                && same(&t.w1, r)
        });
        (fits && e <= 8 && o <= 8).then_some((e as u8, o as u8))
    }

    /// [`RowPairs`] covering every full block, if the table has that shape (AVX2 blocks,
    /// at least two).
    fn find_row_pairs(&self, t: &WTable) -> Option<RowPairs> {
        if (self.lanes, self.step) != (8, 8) || self.base.len() < 2 {
            return None;
        }
        let n = self.base.len() * 8;
        let last = *t.i0.iter().chain(&t.i1).max()? as isize;
        // The pattern from a middle pair, then checked at every pair.
        let m = n / 4;
        let (e, o) = (
            t.i0[2 * m] as isize - m as isize,
            t.i0[2 * m + 1] as isize - m as isize,
        );
        let w = [t.w0[2 * m], t.w1[2 * m], t.w0[2 * m + 1], t.w1[2 * m + 1]];
        if e.min(o) < -1 {
            return None;
        }
        let at = |c: isize| c.clamp(0, last) as u32;
        let bits = |a: f32, b: f32| a.to_bits() == b.to_bits();
        // Output `j` is the pattern's lerp of columns `c`, `c + 1` (`k` its first weight):
        // the same taps and weights, or, where both taps clamp to one column, the same two
        // weights either way round (`x * a + x * b` is `x * b + x * a`, bit for bit: the
        // oneDNN rule's first output truncates -0.25 to column 0 and swaps the weights).
        let same = |j: usize, c: isize, k: usize| {
            let (a, b, w0, w1) = (at(c), at(c + 1), t.w0[j], t.w1[j]);
            (t.i0[j], t.i1[j]) == (a, b)
                && (bits(w0, w[k]) && bits(w1, w[k + 1])
                    || a == b && bits(w0, w[k + 1]) && bits(w1, w[k]))
        };
        let fits = (0..n / 2)
            .all(|q| same(2 * q, e + q as isize, 0) && same(2 * q + 1, o + q as isize, 2));
        // The last pair's columns past `last`.
        let back = (e.max(o) + (n / 2) as isize - last).max(0) as usize;
        (fits && back <= ROW_PAIRS_BACK).then_some(RowPairs {
            e,
            o,
            w,
            last: last as usize,
            back,
        })
    }

    /// Splits the windows of 8-output blocks whose `i0` taps and `i1` taps each span fewer
    /// than 8 columns (the common case for channels-last images upsampled: 8 outputs of a
    /// C=3 row read 9-10 columns, each tap 6 of them). AVX2 then picks each tap with one
    /// `vpermps` instead of two and a blend (u8 HWC HD 2x linear, `RESAMPLE_ISA=avx2` on
    /// the Intel Xeon: the W lerp was 57% of 18.6 ms).
    fn split(&mut self, t: &WTable) {
        let blocks = self.base.len();
        let span = |v: &[u32]| (*v.iter().min().unwrap(), *v.iter().max().unwrap());
        // Every block's (i0 window, i1 window) first: a block that does not fit leaves the
        // tables as they are.
        let mut bases = Vec::with_capacity(blocks);
        for k in 0..blocks {
            let r = k * 8..(k + 1) * 8;
            let ((lo0, hi0), (lo1, hi1)) = (span(&t.i0[r.clone()]), span(&t.i1[r]));
            if hi0 - lo0 >= 8 || hi1 - lo1 >= 8 {
                return;
            }
            bases.push((lo0, lo1));
        }
        for (k, &(lo0, lo1)) in bases.iter().enumerate() {
            self.base[k] = lo0;
            for j in k * 8..(k + 1) * 8 {
                self.p0[j] = (t.i0[j] - lo0) as u8;
                self.p1[j] = (t.i1[j] - lo1) as u8;
            }
        }
        self.base1 = bases.into_iter().map(|b| b.1).collect();
    }
}

/// Row elements the permute kernel may read past the last tap (the second window load).
pub(crate) const SLACK: usize = 32;

/// Most columns past the last that [`RowPairs`] pads (inside [`SLACK`]).
const ROW_PAIRS_BACK: usize = 8;

/// A stretch of a long row: blocks `k0..k1` of a [`PermTable`] (and its tail when `tail`
/// is set, rebased) read the blended row's columns `lo..lo + len` only. Tiles keep the
/// blended window and the outputs in L1/L2 when a row is longer than a cache (1-D rows:
/// nwc bf16 1x4 400000->900000 went through 6 MB and 14 MB row buffers).
#[derive(Clone, Debug)]
pub(crate) struct Tile {
    pub k0: usize,
    pub k1: usize,
    pub lo: usize,
    pub len: usize,
    pub tail: Option<WTable>,
}

impl PermTable {
    /// The columns full block `k` reads: from its first window's start to past its last
    /// vector (two vectors from `base`, or one from each of `base` and `base1`).
    fn window(&self, k: usize) -> (usize, usize) {
        let (b, l) = (self.base[k] as usize, self.lanes);
        match self.base1.get(k) {
            Some(&b1) => (b.min(b1 as usize), (b + 2 * l).max(b1 as usize + l)),
            None => (b, b + 2 * l),
        }
    }

    /// For a row of `n` readable columns: the leading full blocks whose windows lie inside
    /// it (they can read the row where it is, with no [`SLACK`] after it), and the first
    /// column the other blocks and the tail read (`n` when there are none).
    pub(crate) fn inside(&self, n: usize) -> (usize, usize) {
        let blocks = self.base.len();
        let ks = (0..blocks).take_while(|&k| self.window(k).1 <= n).count();
        let rest = (ks..blocks).map(|k| self.window(k).0);
        let tail = self
            .tail
            .i0
            .iter()
            .chain(&self.tail.i1)
            .map(|&c| c as usize);
        (ks, rest.chain(tail).min().map_or(n, |c| c.min(n)))
    }

    /// Tiles of about `per` outputs (whole blocks; the last one takes the tail).
    pub(crate) fn tiles(&self, per: usize) -> Vec<Tile> {
        let blocks = self.base.len();
        let kper = (per / self.step).max(1);
        let mut tiles = Vec::new();
        let mut k0 = 0;
        loop {
            let k1 = blocks.min(k0 + kper);
            let last = k1 == blocks;
            let (mut lo, mut hi) = (usize::MAX, 0);
            for (a, z) in (k0..k1).map(|k| self.window(k)) {
                (lo, hi) = (lo.min(a), hi.max(z));
            }
            if last {
                for &i in self.tail.i0.iter().chain(&self.tail.i1) {
                    (lo, hi) = (lo.min(i as usize), hi.max(i as usize + 1));
                }
            }
            if lo == usize::MAX {
                break;
            }
            let rebase = |v: &[u32]| v.iter().map(|&i| i - lo as u32).collect();
            tiles.push(Tile {
                k0,
                k1,
                lo,
                len: hi - lo,
                tail: last.then(|| WTable {
                    i0: rebase(&self.tail.i0),
                    i1: rebase(&self.tail.i1),
                    w0: self.tail.w0.clone(),
                    w1: self.tail.w1.clone(),
                }),
            });
            if last {
                break;
            }
            k0 = k1;
        }
        tiles
    }
}

/// Tile `tl` of the W lerp: `win` holds the blended columns `tl.lo..tl.lo + tl.len` (those
/// past the row's last column may hold anything: no output selects them), `out` the
/// tile's outputs.
pub(crate) unsafe fn lerp_tile(win: &[f32], t: &WTable, p: &PermTable, tl: &Tile, out: &mut [f32]) {
    // SAFETY: the tile's windows lie in `win` (`len` covers every block's two vectors and
    // the tail's columns, from `lo`); `out` holds the tile's outputs; the kernels run
    // under the ISA the table was built for.
    unsafe {
        debug_assert!(win.len() >= tl.len);
        let n = (tl.k1 - tl.k0) * p.step + tl.tail.as_ref().map_or(0, |t| t.i0.len());
        assert!(out.len() >= n);
        let (k0, k1, lo) = (tl.k0, tl.k1, tl.lo);
        blocks_then_tail(
            win.as_ptr(),
            t,
            p,
            k0,
            k1,
            lo,
            tl.tail.as_ref(),
            out.as_mut_ptr(),
            false,
        );
    }
}

/// The W lerp of `row` into `out` through `p` (built for `t`); `row` must hold
/// [`SLACK`] readable elements after the last column `t` names.
pub(crate) unsafe fn lerp(row: *const f32, t: &WTable, p: &PermTable, out: &mut [f32]) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        // Built only where the full blocks and the tail cover the row exactly.
        assert!(out.len() >= p.base.len() * p.step + p.tail.i0.len());
        let full = p.base.len();
        blocks_then_tail(
            row,
            t,
            p,
            0,
            full,
            0,
            Some(&p.tail),
            out.as_mut_ptr(),
            false,
        );
    }
}

/// [`lerp_tile`] / [`lerp`] (`k0 = 0`, `bias = 0`, `p.tail`) with the full blocks' outputs
/// streamed straight to `dst` (a row of f32 past the cache), the tail with plain stores;
/// `false` (nothing written) unless `dst` is 64-byte aligned and the blocks are whole
/// vectors. Saves the pass through a row buffer that `simd::stream_copy` would make.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn lerp_stream(
    win: *const f32,
    t: &WTable,
    p: &PermTable,
    k0: usize,
    k1: usize,
    bias: usize,
    tail: Option<&WTable>,
    dst: *mut f32,
) -> bool {
    if p.lanes != p.step || !(dst as usize).is_multiple_of(64) || !cfg!(target_arch = "x86_64") {
        return false;
    }
    // SAFETY: the caller's contract as for `lerp_tile` / `lerp`, `dst` holding the `(k1 -
    // k0) * step` outputs and the tail's; aligned whole vectors checked above.
    unsafe { blocks_then_tail(win, t, p, k0, k1, bias, tail, dst, true) };
    true
}

/// Blocks `k0..k1` into `out`, then `tail` (columns of the same window) after them: the
/// body of [`lerp`], [`lerp_tile`] and [`lerp_stream`].
#[allow(clippy::too_many_arguments)]
unsafe fn blocks_then_tail(
    win: *const f32,
    t: &WTable,
    p: &PermTable,
    k0: usize,
    k1: usize,
    bias: usize,
    tail: Option<&WTable>,
    out: *mut f32,
    nt: bool,
) {
    // SAFETY: the callers' contract: `win` holds every column the blocks and the tail read,
    // `out` the blocks' and the tail's outputs (checked by the safe-slice callers).
    unsafe {
        blocks(win, t, p, out, k0, k1, bias, nt);
        if let Some(tail) = tail {
            let n = (k1 - k0) * p.step;
            let m = tail.i0.len();
            simd::gather2(win, tail, std::slice::from_raw_parts_mut(out.add(n), m));
        }
    }
}

/// Blocks `k0..k1` of `p` on this CPU's vectors into `out` (from block `k0`'s first
/// output); `row` holds the blended row from column `bias`. Permute tables are built on
/// x86-64 and aarch64 only (elsewhere there are no blocks: the tail is the whole row).
#[allow(unused_variables)]
#[inline(always)]
pub(super) unsafe fn blocks(
    row: *const f32,
    t: &WTable,
    p: &PermTable,
    out: *mut f32,
    k0: usize,
    k1: usize,
    bias: usize,
    nt: bool,
) {
    // SAFETY: the caller's contract: every block's window lies in `row`, `out` holds the
    // blocks' outputs, and `p` was built for this CPU's vectors; with `nt`, `out` is 64-byte
    // aligned and the blocks are whole vectors.
    unsafe {
        #[cfg(target_arch = "x86_64")]
        {
            // The kernel variant `$k::<$c.., D>` for the table's derived weight.
            macro_rules! by_derived {
                ($k:ident, $($c:tt),*) => {
                    match p.derived {
                        Derived::W0 => $k::<$($c,)* 1>(row, t, p, out, k0, k1, bias, nt),
                        Derived::W1 => $k::<$($c,)* 2>(row, t, p, out, k0, k1, bias, nt),
                        Derived::None => $k::<$($c,)* 0>(row, t, p, out, k0, k1, bias, nt),
                    }
                };
            }
            // The tables of a long stretch held in registers (see [`Cycle`]).
            let min = min_held(p.lanes);
            let held = p.cycle.is_some_and(|c| k1.min(c.k1) >= k0.max(c.k0) + min);
            match (p.lanes, p.step, p.narrow, !p.base1.is_empty()) {
                (16, 16, true, _) if held => by_derived!(avx512_held, true),
                (16, 16, false, _) if held => by_derived!(avx512_held, false),
                (16, 16, true, _) => by_derived!(avx512, 16, true),
                (16, 16, false, _) => by_derived!(avx512, 16, false),
                (16, 8, _, _) => by_derived!(avx512, 8, false),
                (16, _, true, _) => by_derived!(avx512, 0, true),
                (16, _, false, _) => by_derived!(avx512, 0, false),
                (_, 8, true, _) if held => by_derived!(avx2_held, true, false),
                (_, 8, false, true) if held => by_derived!(avx2_held, false, true),
                (_, 8, false, false) if held => by_derived!(avx2_held, false, false),
                (_, 8, true, _) => by_derived!(avx2, true, false),
                (_, 8, false, true) => by_derived!(avx2, false, true),
                (_, 8, false, false) => by_derived!(avx2, false, false),
                _ => avx2_half(row, t, p, out, k0, k1, bias),
            }
        }
        #[cfg(target_arch = "aarch64")]
        match p.step {
            4 => neon::<4>(row, t, p, out, k0, k1, bias),
            _ => neon::<2>(row, t, p, out, k0, k1, bias),
        }
    }
}

/// [`avx512`] (full blocks) where a long stretch of `k0..k1` lies in `p`'s cycle: that
/// stretch by [`avx512_cycle`], the blocks before and after it as usual.
// Out of line: only long stretches come here, and the callers' short-row loops stay small
// (with the three calls inline, the nchw f32 8x64 56->112 rows lost 13%).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn avx512_held<const NARROW: bool, const D: u8>(
    row: *const f32,
    t: &WTable,
    p: &PermTable,
    out: *mut f32,
    k0: usize,
    k1: usize,
    bias: usize,
    nt: bool,
) {
    // SAFETY: the caller's contract as for `avx512`; `ca..cb` lies in the cycle.
    unsafe {
        let c = p.cycle.as_ref().unwrap();
        let (ca, cb) = (k0.max(c.k0), k1.min(c.k1));
        avx512::<16, NARROW, D>(row, t, p, out, k0, ca, bias, nt);
        let o = out.add((ca - k0) * 16);
        match c.period {
            1 => avx512_cycle::<NARROW, D, 1>(row, t, p, c, o, ca, cb, bias, nt),
            2 => avx512_cycle::<NARROW, D, 2>(row, t, p, c, o, ca, cb, bias, nt),
            3 => avx512_cycle::<NARROW, D, 3>(row, t, p, c, o, ca, cb, bias, nt),
            _ => avx512_cycle::<NARROW, D, 4>(row, t, p, c, o, ca, cb, bias, nt),
        }
        avx512::<16, NARROW, D>(row, t, p, out.add((cb - k0) * 16), cb, k1, bias, nt);
    }
}

/// [`avx512`]'s blocks `ka..kb` of `p`'s cycle `c` (`P` its period), into `out` from block
/// `ka`'s first output: the same windows, permutes and arithmetic, with the period's indices
/// and weights in registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
#[allow(clippy::too_many_arguments)]
unsafe fn avx512_cycle<const NARROW: bool, const D: u8, const P: usize>(
    row: *const f32,
    t: &WTable,
    p: &PermTable,
    c: &Cycle,
    out: *mut f32,
    ka: usize,
    kb: usize,
    bias: usize,
    nt: bool,
) {
    // SAFETY: the caller's contract as for `avx512`: blocks `ka..kb` lie in the cycle, so
    // block `ka + n`'s tables are those of block `c.k0 + (ph + n) % P` and its window
    // starts `base[ka]` plus `offs[n % P]` plus `n / P` shifts, every one in `row`.
    unsafe {
        use std::arch::x86_64::*;
        let one = _mm512_set1_ps(1.0);
        let ph = (ka - c.k0) % P;
        let blk = |i: usize| c.k0 + (ph + i) % P;
        let offs: [isize; P] = std::array::from_fn(|i| {
            (p.base[blk(i)] as usize + (ph + i) / P * c.shift) as isize - p.base[blk(0)] as isize
        });
        let ix = |v: &[u8], i: usize| {
            _mm512_cvtepu8_epi32(_mm_loadu_si128(
                v.as_ptr().add(blk(i) * 16) as *const __m128i
            ))
        };
        let q0: [__m512i; P] = std::array::from_fn(|i| ix(&p.p0, i));
        let q1: [__m512i; P] = std::array::from_fn(|i| ix(&p.p1, i));
        let wv = |v: &[f32], i: usize| _mm512_loadu_ps(v.as_ptr().add(blk(i) * 16));
        let w: [(__m512, __m512); P] = std::array::from_fn(|i| match D {
            1 => (_mm512_sub_ps(one, wv(&t.w1, i)), wv(&t.w1, i)),
            2 => (wv(&t.w0, i), _mm512_sub_ps(one, wv(&t.w0, i))),
            _ => (wv(&t.w0, i), wv(&t.w1, i)),
        });
        let block = |win: *const f32, i: usize, o: *mut f32| {
            let (v0, v1) = taps_avx512::<NARROW>(win, q0[i], q1[i]);
            let r = _mm512_add_ps(_mm512_mul_ps(v0, w[i].0), _mm512_mul_ps(v1, w[i].1));
            if nt {
                _mm512_stream_ps(o, r);
            } else {
                _mm512_storeu_ps(o, r);
            }
        };
        let win = row.add(p.base[ka] as usize - bias);
        walk_cycle::<P>(win, out, kb - ka, c.shift, 16, |w, i, o| {
            block(w.offset(offs[i]), i, o)
        });
    }
}

/// `n` blocks of `step` outputs of a cycle of period `P`, from the window at `win` and the
/// output at `out`: `block(w, i, o)` for the `i`-th block of each period, whose window
/// lies `shift` columns further every period.
///
/// # Safety
/// `block`'s contract for each of its calls.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn walk_cycle<const P: usize>(
    mut win: *const f32,
    mut out: *mut f32,
    n: usize,
    shift: usize,
    step: usize,
    block: impl Fn(*const f32, usize, *mut f32),
) {
    // SAFETY: the caller's.
    unsafe {
        for _ in 0..n / P {
            for i in 0..P {
                block(win, i, out.add(i * step));
            }
            win = win.add(shift);
            out = out.add(P * step);
        }
        for i in 0..n % P {
            block(win, i, out.add(i * step));
        }
    }
}

/// A block's two tap vectors from its window at `win` by the index vectors `q0`, `q1`: with
/// `NARROW` one 16-element vector and two `vpermps`, else 32 elements and two `vpermt2ps`.
///
/// # Safety
/// AVX-512F is enabled in the caller (inlined there); the window lies in readable memory.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn taps_avx512<const NARROW: bool>(
    win: *const f32,
    q0: std::arch::x86_64::__m512i,
    q1: std::arch::x86_64::__m512i,
) -> (std::arch::x86_64::__m512, std::arch::x86_64::__m512) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's.
    unsafe {
        if NARROW {
            let a = _mm512_loadu_ps(win);
            (_mm512_permutexvar_ps(q0, a), _mm512_permutexvar_ps(q1, a))
        } else {
            let (a, b) = (_mm512_loadu_ps(win), _mm512_loadu_ps(win.add(16)));
            (
                _mm512_permutex2var_ps(a, q0, b),
                _mm512_permutex2var_ps(a, q1, b),
            )
        }
    }
}

/// AVX-512 blocks of `STEP` outputs (16, 8, or 0: the table's step): a 32-element window,
/// two `vpermt2ps`; with `NARROW` a 16-element window, two `vpermps`. `D`: 1 computes `w0 =
/// 1 - w1`, 2 `w1 = 1 - w0` (see [`Derived`]), 0 loads both.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn avx512<const STEP: usize, const NARROW: bool, const D: u8>(
    row: *const f32,
    t: &WTable,
    p: &PermTable,
    out: *mut f32,
    k0: usize,
    k1: usize,
    bias: usize,
    nt: bool,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        use std::arch::x86_64::*;
        // `STEP == 0`: the table's own step (9 to 15; its index lists are padded).
        let step = if STEP == 0 { p.step } else { STEP };
        let mask: __mmask16 = ((1u32 << step) - 1) as u16;
        let one = _mm512_set1_ps(1.0);
        let idx = |v: *const u8| {
            if STEP == 8 {
                _mm_loadl_epi64(v as *const __m128i)
            } else {
                _mm_loadu_si128(v as *const __m128i)
            }
        };
        for k in k0..k1 {
            let j = k * step;
            let w = row.add(p.base[k] as usize - bias);
            let q0 = _mm512_cvtepu8_epi32(idx(p.p0.as_ptr().add(j)));
            let q1 = _mm512_cvtepu8_epi32(idx(p.p1.as_ptr().add(j)));
            let (v0, v1) = taps_avx512::<NARROW>(w, q0, q1);
            let load = |v: &[f32]| _mm512_maskz_loadu_ps(mask, v.as_ptr().add(j));
            let (w0, w1) = match D {
                1 => {
                    let w1 = load(&t.w1);
                    (_mm512_sub_ps(one, w1), w1)
                }
                2 => {
                    let w0 = load(&t.w0);
                    (w0, _mm512_sub_ps(one, w0))
                }
                _ => (load(&t.w0), load(&t.w1)),
            };
            let r = _mm512_add_ps(_mm512_mul_ps(v0, w0), _mm512_mul_ps(v1, w1));
            if STEP == 16 && nt {
                _mm512_stream_ps(out.add(j - k0 * step), r);
            } else {
                _mm512_mask_storeu_ps(out.add(j - k0 * step), mask, r);
            }
        }
    }
}

/// AVX2 blocks of 8 outputs: a 16-element window in two registers (two permutes and a
/// blend per tap), with `NARROW` an 8-element one (one permute), with `SPLIT` an 8-element
/// window per tap (one permute each, see [`PermTable::base1`]); `D` as for [`avx512`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn avx2<const NARROW: bool, const SPLIT: bool, const D: u8>(
    row: *const f32,
    t: &WTable,
    p: &PermTable,
    out: *mut f32,
    k0: usize,
    k1: usize,
    bias: usize,
    nt: bool,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        use std::arch::x86_64::*;
        let one = _mm256_set1_ps(1.0);
        for k in k0..k1 {
            let j = k * 8;
            let w = row.add(p.base[k] as usize - bias);
            let w1 = match SPLIT {
                true => row.add(p.base1[k] as usize - bias),
                false => w,
            };
            let q0 = _mm256_cvtepu8_epi32(_mm_loadl_epi64(p.p0.as_ptr().add(j) as *const __m128i));
            let q1 = _mm256_cvtepu8_epi32(_mm_loadl_epi64(p.p1.as_ptr().add(j) as *const __m128i));
            let (v0, v1) = taps_avx2::<NARROW, SPLIT>(w, w1, q0, q1);
            let load = |v: &[f32]| _mm256_loadu_ps(v.as_ptr().add(j));
            let (w0, w1) = match D {
                1 => {
                    let w1 = load(&t.w1);
                    (_mm256_sub_ps(one, w1), w1)
                }
                2 => {
                    let w0 = load(&t.w0);
                    (w0, _mm256_sub_ps(one, w0))
                }
                _ => (load(&t.w0), load(&t.w1)),
            };
            let r = _mm256_add_ps(_mm256_mul_ps(v0, w0), _mm256_mul_ps(v1, w1));
            if nt {
                _mm256_stream_ps(out.add(j - k0 * 8), r);
            } else {
                _mm256_storeu_ps(out.add(j - k0 * 8), r);
            }
        }
    }
}

/// A block's two tap vectors by the index vectors `q0`, `q1` from its window at `win` (with
/// `SPLIT`, the `i1` taps' window at `win1`): 16 elements in two registers, two `vpermps`
/// and a blend a tap; with `NARROW` 8 elements, one `vpermps` a tap; with `SPLIT` 8
/// elements a tap.
///
/// # Safety
/// AVX2 is enabled in the caller (inlined there); the windows lie in readable memory.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn taps_avx2<const NARROW: bool, const SPLIT: bool>(
    win: *const f32,
    win1: *const f32,
    q0: std::arch::x86_64::__m256i,
    q1: std::arch::x86_64::__m256i,
) -> (std::arch::x86_64::__m256, std::arch::x86_64::__m256) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's.
    unsafe {
        let a = _mm256_loadu_ps(win);
        if NARROW {
            return (
                _mm256_permutevar8x32_ps(a, q0),
                _mm256_permutevar8x32_ps(a, q1),
            );
        }
        if SPLIT {
            let b = _mm256_loadu_ps(win1);
            return (
                _mm256_permutevar8x32_ps(a, q0),
                _mm256_permutevar8x32_ps(b, q1),
            );
        }
        let b = _mm256_loadu_ps(win.add(8));
        // Indices 0..16 over two registers: permute both, pick by bit 3.
        let seven = _mm256_set1_epi32(7);
        let pick = |q: __m256i| {
            let lo = _mm256_permutevar8x32_ps(a, q);
            let hi = _mm256_permutevar8x32_ps(b, q);
            _mm256_blendv_ps(lo, hi, _mm256_castsi256_ps(_mm256_cmpgt_epi32(q, seven)))
        };
        (pick(q0), pick(q1))
    }
}

/// [`avx2`] where a stretch of `k0..k1` lies in `p`'s cycle, as [`avx512_held`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn avx2_held<const NARROW: bool, const SPLIT: bool, const D: u8>(
    row: *const f32,
    t: &WTable,
    p: &PermTable,
    out: *mut f32,
    k0: usize,
    k1: usize,
    bias: usize,
    nt: bool,
) {
    // SAFETY: the caller's contract as for `avx2`; `ca..cb` lies in the cycle.
    unsafe {
        let c = p.cycle.as_ref().unwrap();
        let (ca, cb) = (k0.max(c.k0), k1.min(c.k1));
        avx2::<NARROW, SPLIT, D>(row, t, p, out, k0, ca, bias, nt);
        let o = out.add((ca - k0) * 8);
        match c.period {
            1 if c.pairs.is_some() => avx2_pairs(row, t, p, c, o, ca, cb, bias, nt),
            1 => avx2_cycle::<NARROW, SPLIT, D, 1>(row, t, p, c, o, ca, cb, bias, nt),
            2 => avx2_cycle::<NARROW, SPLIT, D, 2>(row, t, p, c, o, ca, cb, bias, nt),
            3 => avx2_cycle::<NARROW, SPLIT, D, 3>(row, t, p, c, o, ca, cb, bias, nt),
            _ => avx2_cycle::<NARROW, SPLIT, D, 4>(row, t, p, c, o, ca, cb, bias, nt),
        }
        avx2::<NARROW, SPLIT, D>(row, t, p, out.add((cb - k0) * 8), cb, k1, bias, nt);
    }
}

/// [`avx2`]'s blocks `ka..kb` of `p`'s cycle `c` with the period's indices and weights in
/// registers, as [`avx512_cycle`] (with `SPLIT` the `i1` windows move alike).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
#[allow(clippy::too_many_arguments)]
unsafe fn avx2_cycle<const NARROW: bool, const SPLIT: bool, const D: u8, const P: usize>(
    row: *const f32,
    t: &WTable,
    p: &PermTable,
    c: &Cycle,
    out: *mut f32,
    ka: usize,
    kb: usize,
    bias: usize,
    nt: bool,
) {
    // SAFETY: the caller's contract as for `avx2`: blocks `ka..kb` lie in the cycle, so
    // block `ka + n`'s tables are those of block `c.k0 + (ph + n) % P` and its windows
    // start where block `ka + n % P`'s do plus `n / P` shifts, every one in `row`.
    unsafe {
        use std::arch::x86_64::*;
        let one = _mm256_set1_ps(1.0);
        let ph = (ka - c.k0) % P;
        let blk = |i: usize| c.k0 + (ph + i) % P;
        let base = p.base[ka] as isize;
        let offs: [isize; P] = std::array::from_fn(|i| p.base[ka + i] as isize - base);
        let offs1: [isize; P] = std::array::from_fn(|i| match SPLIT {
            true => p.base1[ka + i] as isize - base,
            false => offs[i],
        });
        let ix = |v: &[u8], i: usize| {
            _mm256_cvtepu8_epi32(_mm_loadl_epi64(v.as_ptr().add(blk(i) * 8) as *const __m128i))
        };
        let q0: [__m256i; P] = std::array::from_fn(|i| ix(&p.p0, i));
        let q1: [__m256i; P] = std::array::from_fn(|i| ix(&p.p1, i));
        let wv = |v: &[f32], i: usize| _mm256_loadu_ps(v.as_ptr().add(blk(i) * 8));
        let w: [(__m256, __m256); P] = std::array::from_fn(|i| match D {
            1 => (_mm256_sub_ps(one, wv(&t.w1, i)), wv(&t.w1, i)),
            2 => (wv(&t.w0, i), _mm256_sub_ps(one, wv(&t.w0, i))),
            _ => (wv(&t.w0, i), wv(&t.w1, i)),
        });
        let block = |win: *const f32, i: usize, o: *mut f32| {
            let (v0, v1) =
                taps_avx2::<NARROW, SPLIT>(win.offset(offs[i]), win.offset(offs1[i]), q0[i], q1[i]);
            let r = _mm256_add_ps(_mm256_mul_ps(v0, w[i].0), _mm256_mul_ps(v1, w[i].1));
            if nt {
                _mm256_stream_ps(o, r);
            } else {
                _mm256_storeu_ps(o, r);
            }
        };
        let win = row.add(p.base[ka] as usize - bias);
        walk_cycle::<P>(win, out, kb - ka, c.shift, 8, block);
    }
}

/// Blocks `ka..kb` of a cycle with [`Cycle::pairs`], two at a time (an odd last one as
/// [`avx2`] does it): the same products and sums as the permute kernel, so the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
#[allow(clippy::too_many_arguments)]
unsafe fn avx2_pairs(
    row: *const f32,
    t: &WTable,
    p: &PermTable,
    c: &Cycle,
    out: *mut f32,
    ka: usize,
    kb: usize,
    bias: usize,
    nt: bool,
) {
    // SAFETY: the caller's contract as for `avx2_cycle`: two blocks from `ka + 2m` read
    // columns `e..e + 9` and `o..o + 9` of block `ka + 2m`'s window (its 8 outputs' taps
    // and the next block's), inside the row and its slack; 16-byte stores at `out`'s
    // alignment (64 bytes when `nt`).
    unsafe {
        use std::arch::x86_64::*;
        let (e, o) = c.pairs.unwrap();
        let (e, o) = (e as usize, o as usize);
        let j = c.k0 * 8;
        let w = [t.w0[j], t.w1[j], t.w0[j + 1], t.w1[j + 1]].map(|v| _mm256_set1_ps(v));
        let mut win = row.add(p.base[ka] as usize - bias);
        let mut q = out;
        for _ in 0..(kb - ka) / 2 {
            pairs16(win.add(e), win.add(o), &w, q, nt);
            win = win.add(8);
            q = q.add(16);
        }
        if (kb - ka) % 2 == 1 {
            avx2::<false, false, 0>(row, t, p, q, kb - 1, kb, bias, nt);
        }
    }
}

/// Sixteen outputs of 2x pairs: the evens lerped from `xe[0..9]`, the odds from `xo[0..9]`
/// (weights `w`: `w0`, `w1` of the evens, then of the odds), interleaved into `out`
/// (16-byte aligned when `nt`).
///
/// # Safety
/// AVX2 is enabled in the caller (inlined there); the columns are readable, `out` writable.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn pairs16(
    xe: *const f32,
    xo: *const f32,
    w: &[std::arch::x86_64::__m256; 4],
    out: *mut f32,
    nt: bool,
) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's.
    unsafe {
        let x = |p: *const f32| _mm256_loadu_ps(p);
        let ev = _mm256_add_ps(
            _mm256_mul_ps(x(xe), w[0]),
            _mm256_mul_ps(x(xe.add(1)), w[1]),
        );
        let od = _mm256_add_ps(
            _mm256_mul_ps(x(xo), w[2]),
            _mm256_mul_ps(x(xo.add(1)), w[3]),
        );
        // Outputs 0..4 and 8..12, 4..8 and 12..16.
        let (lo, hi) = (_mm256_unpacklo_ps(ev, od), _mm256_unpackhi_ps(ev, od));
        store4(out, _mm256_castps256_ps128(lo), nt);
        store4(out.add(4), _mm256_castps256_ps128(hi), nt);
        store4(out.add(8), _mm256_extractf128_ps::<1>(lo), nt);
        store4(out.add(12), _mm256_extractf128_ps::<1>(hi), nt);
    }
}

/// Four f32 to `at`, streamed (16-byte aligned) where `nt`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn store4(at: *mut f32, v: std::arch::x86_64::__m128, nt: bool) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's: `at` holds four f32, aligned when `nt`.
    unsafe {
        if nt {
            _mm_stream_ps(at, v)
        } else {
            _mm_storeu_ps(at, v)
        }
    }
}

impl RowPairs {
    /// Pads the blended row at `row` (its column 0): column -1 and `back` columns past
    /// `last` repeat the edges.
    ///
    /// # Safety
    /// `row` holds columns `-1..=last + back`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) unsafe fn pad(&self, row: *mut f32) {
        // SAFETY: the caller's.
        unsafe {
            *row.sub(1) = *row;
            for c in 1..=self.back {
                *row.add(self.last + c) = *row.add(self.last);
            }
        }
    }
}

/// The `n` outputs of a row's full blocks by its [`RowPairs`] `rp` into `out`: `row` is
/// the blended row's column 0, padded ([`RowPairs::pad`]). The permute kernel's products
/// and sums, so its bits.
///
/// # Safety
/// AVX2 is available; `row` holds columns `-1..=rp.last + rp.back`, padded; `out` `n`
/// outputs (a multiple of 8 that `rp` was found for, 16-byte aligned when `nt`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn pairs_row(row: *const f32, rp: &RowPairs, out: *mut f32, n: usize, nt: bool) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's contract: output `2q` (`2q + 1`) reads padded columns `e + q`,
    // `e + q + 1` (`o + ...`), from -1 to `last + back` for `q < n / 2`.
    unsafe {
        let w: [__m256; 4] = std::array::from_fn(|i| _mm256_set1_ps(rp.w[i]));
        let (mut xe, mut xo) = (row.offset(rp.e), row.offset(rp.o));
        let mut q = out;
        for _ in 0..n / 16 {
            pairs16(xe, xo, &w, q, nt);
            (xe, xo, q) = (xe.add(8), xo.add(8), q.add(16));
        }
        if !n.is_multiple_of(16) {
            let w: [__m128; 4] = std::array::from_fn(|i| _mm256_castps256_ps128(w[i]));
            let x = |p: *const f32| _mm_loadu_ps(p);
            let ev = _mm_add_ps(_mm_mul_ps(x(xe), w[0]), _mm_mul_ps(x(xe.add(1)), w[1]));
            let od = _mm_add_ps(_mm_mul_ps(x(xo), w[2]), _mm_mul_ps(x(xo.add(1)), w[3]));
            store4(q, _mm_unpacklo_ps(ev, od), nt);
            store4(q.add(4), _mm_unpackhi_ps(ev, od), nt);
        }
    }
}

/// AVX2 blocks of 4 outputs (windows up to 16 elements for strong downsampling).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn avx2_half(
    row: *const f32,
    t: &WTable,
    p: &PermTable,
    out: *mut f32,
    k0: usize,
    k1: usize,
    bias: usize,
) {
    // SAFETY: the caller's contract (the plan checked the buffers): every address formed
    // here lies in the buffers the problem's layouts describe, this call's dst elements
    // are written by it alone, and vector code runs only on an ISA the CPU has.
    unsafe {
        use std::arch::x86_64::*;
        let seven = _mm256_set1_epi32(7);
        for k in k0..k1 {
            let j = k * 4;
            let w = row.add(p.base[k] as usize - bias);
            let (a, b) = (_mm256_loadu_ps(w), _mm256_loadu_ps(w.add(8)));
            macro_rules! pick {
                ($v:expr) => {{
                    let q = _mm256_cvtepu8_epi32(_mm_cvtsi32_si128(
                        ($v as *const i32).read_unaligned(),
                    ));
                    let lo = _mm256_permutevar8x32_ps(a, q);
                    let hi = _mm256_permutevar8x32_ps(b, q);
                    let v =
                        _mm256_blendv_ps(lo, hi, _mm256_castsi256_ps(_mm256_cmpgt_epi32(q, seven)));
                    _mm256_castps256_ps128(v)
                }};
            }
            let (v0, v1) = (pick!(p.p0.as_ptr().add(j)), pick!(p.p1.as_ptr().add(j)));
            let w0 = _mm_loadu_ps(t.w0.as_ptr().add(j));
            let w1 = _mm_loadu_ps(t.w1.as_ptr().add(j));
            _mm_storeu_ps(
                out.add(j - k0 * 4),
                _mm_add_ps(_mm_mul_ps(v0, w0), _mm_mul_ps(v1, w1)),
            );
        }
    }
}

/// NEON blocks of `STEP` (4 or 2) outputs: an 8-element window in two registers, one
/// `tbl` (`vqtbl2q_u8`) per tap, then `vmulq` + `vaddq` (no fused multiply-add), as the
/// gather kernel computes.
#[cfg(target_arch = "aarch64")]
unsafe fn neon<const STEP: usize>(
    row: *const f32,
    t: &WTable,
    p: &PermTable,
    out: *mut f32,
    k0: usize,
    k1: usize,
    bias: usize,
) {
    use std::arch::aarch64::*;
    // Byte `b` of lane `l` comes from byte `4 * idx[l] + b` of the window.
    const SPREAD: [u8; 16] = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3];
    const BYTE: [u8; 16] = [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3];
    // SAFETY: NEON is baseline on aarch64. Block `k` reads the window `row + base[k] - bias
    // .. + 8` (inside the row or its `SLACK`: `base[k]` is a column `t` names, `row` starts
    // at column `bias`), `STEP` index bytes and weights at `j = k * STEP < k1 * STEP` (their
    // lengths), and writes `STEP` outputs at `out + j - k0 * STEP`, inside the caller's
    // `(k1 - k0) * STEP`; `tbl` indices are `< 32` (window offsets `< 8`, checked when the
    // table was built).
    unsafe {
        let (spread, byte) = (vld1q_u8(SPREAD.as_ptr()), vld1q_u8(BYTE.as_ptr()));
        let index = |v: *const u8| {
            let q = if STEP == 4 {
                vreinterpretq_u8_u32(vdupq_n_u32((v as *const u32).read_unaligned()))
            } else {
                vreinterpretq_u8_u16(vdupq_n_u16((v as *const u16).read_unaligned()))
            };
            vaddq_u8(vshlq_n_u8::<2>(vqtbl1q_u8(q, spread)), byte)
        };
        let weights = |w: *const f32| {
            if STEP == 4 {
                vld1q_f32(w)
            } else {
                let h = vld1_f32(w);
                vcombine_f32(h, h)
            }
        };
        for k in k0..k1 {
            let j = k * STEP;
            let w = row.add(p.base[k] as usize - bias) as *const u8;
            let win = uint8x16x2_t(vld1q_u8(w), vld1q_u8(w.add(16)));
            let v0 = vreinterpretq_f32_u8(vqtbl2q_u8(win, index(p.p0.as_ptr().add(j))));
            let v1 = vreinterpretq_f32_u8(vqtbl2q_u8(win, index(p.p1.as_ptr().add(j))));
            let w0 = weights(t.w0.as_ptr().add(j));
            let w1 = weights(t.w1.as_ptr().add(j));
            let r = vaddq_f32(vmulq_f32(v0, w0), vmulq_f32(v1, w1));
            let o = out.add(j - k0 * STEP);
            if STEP == 4 {
                vst1q_f32(o, r);
            } else {
                vst1_f32(o, vget_low_f32(r));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::axis::{forward_taps, AxisRule};
    use crate::core::kernels::images::expand;
    use crate::core::Algorithm;

    /// Every block width this CPU runs equals the gather kernel bit for bit, over ratios
    /// from strong downsampling to upsampling and pixel sizes 1..8.
    #[test]
    fn permutes_equal_gathers() {
        #[cfg(target_arch = "x86_64")]
        let widths: Vec<(usize, usize)> = [
            (16, 16),
            (16, 15),
            (16, 12),
            (16, 9),
            (16, 8),
            (8, 8),
            (8, 4),
        ]
        .into_iter()
        .filter(|&(l, _)| match l {
            16 => is_x86_feature_detected!("avx512f"),
            _ => is_x86_feature_detected!("avx2"),
        })
        .collect();
        #[cfg(target_arch = "aarch64")]
        let widths: Vec<(usize, usize)> = vec![(4, 4), (4, 2)];
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        let widths: Vec<(usize, usize)> = Vec::new();
        let mut x = 0x2545_F491u32;
        let mut tested = 0;
        let mut seen = std::collections::HashSet::new();
        // Held cycles seen: (lanes, period, mode, derived), mode as for `seen`.
        let mut cycles = std::collections::HashSet::new();
        // A cycle of 2x upsampling pairs (AVX2) seen.
        let mut pairs = false;
        for i in [1usize, 2, 5, 17, 64, 333] {
            // Integer ratios and a ratio whose weights repeat every 32 outputs (5 -> 32)
            // give repeating blocks.
            let ratios = [
                1usize,
                3,
                16,
                32,
                40,
                100,
                129,
                700,
                2 * i,
                4 * i,
                i.div_ceil(2),
            ];
            for o in ratios {
                for nc in 1..=8 {
                    let f = forward_taps(&AxisRule::OnednnHalfPixel, Algorithm::Linear, i, o);
                    let f = expand(&f, nc);
                    let built = WTable {
                        i0: f.idx.iter().step_by(2).copied().collect(),
                        i1: f.idx.iter().skip(1).step_by(2).copied().collect(),
                        w0: f.wt.iter().step_by(2).copied().collect(),
                        w1: f.wt.iter().skip(1).step_by(2).copied().collect(),
                    };
                    let mut rnd = || {
                        x ^= x << 13;
                        x ^= x >> 17;
                        x ^= x << 5;
                        x
                    };
                    // The rule's weights (w0 = 1 - w1), the other way round, and weights
                    // with no relation: each kernel variant of `Derived`.
                    // (Small w0 with full mantissas: 1 - (1 - w0) != w0, so only W1 holds.)
                    let mut flipped = built.clone();
                    flipped.w0 = built
                        .w0
                        .iter()
                        .map(|_| (rnd() % 9999) as f32 / 3e5)
                        .collect();
                    flipped.w1 = flipped.w0.iter().map(|&w| 1.0 - w).collect();
                    let mut free = built.clone();
                    free.w0 = free
                        .w0
                        .iter()
                        .map(|_| (rnd() % 1000) as f32 / 999.0)
                        .collect();
                    free.w1 = free
                        .w1
                        .iter()
                        .map(|_| (rnd() % 1000) as f32 / 7.0)
                        .collect();
                    // The last two's weights repeating every block.
                    let periodic = |t: &WTable| {
                        let mut t = t.clone();
                        for j in 16..t.w0.len() {
                            (t.w0[j], t.w1[j]) = (t.w0[j % 16], t.w1[j % 16]);
                        }
                        t
                    };
                    let (flipped_p, free_p) = (periodic(&flipped), periodic(&free));
                    let row: Vec<f32> = (0..i * nc + SLACK)
                        .map(|_| f32::from_bits(rnd() % 0x7F00_0000) - 1.0)
                        .collect();
                    for t in [&built, &flipped, &free, &flipped_p, &free_p] {
                        let mut want = vec![0f32; o * nc];
                        // SAFETY: `row` covers every column the table names (plus slack).
                        unsafe { simd::gather2(row.as_ptr(), t, &mut want) };
                        for &(lanes, step) in &widths {
                            if let Some(p) = PermTable::with_step(t, lanes, step) {
                                let mut got = vec![0f32; o * nc];
                                // SAFETY: as for the gather; the permute table was built for `t`.
                                unsafe { lerp(row.as_ptr(), t, &p, &mut got) };
                                let same = got
                                    .iter()
                                    .zip(&want)
                                    .all(|(a, b)| a.to_bits() == b.to_bits());
                                assert!(same, "{i}->{o} C={nc} lanes {lanes} step {step} {p:?}");
                                let mode = p.narrow as u8 + 2 * !p.base1.is_empty() as u8;
                                if let Some(c) = p.cycle {
                                    cycles.insert((lanes, c.period, mode, p.derived as u8));
                                    pairs |= c.pairs.is_some();
                                    // Calls that start and end inside, before and after the
                                    // cycle, at every phase.
                                    let nb = p.base.len();
                                    let min = min_held(lanes);
                                    let mut ranges = vec![(0, nb), (c.k0 + 1, c.k1 - 1)];
                                    for ph in 0..c.period {
                                        ranges.push((c.k0 + ph, (c.k0 + ph + min + 2).min(nb)));
                                        ranges.push((ph, c.k1.saturating_sub(ph).max(ph)));
                                    }
                                    for (ka, kb) in ranges {
                                        let mut part = vec![0f32; (kb - ka) * step];
                                        // SAFETY: blocks `ka..kb` of the table built for
                                        // `t`, their windows in `row`.
                                        unsafe {
                                            blocks(
                                                row.as_ptr(),
                                                t,
                                                &p,
                                                part.as_mut_ptr(),
                                                ka,
                                                kb,
                                                0,
                                                false,
                                            )
                                        };
                                        let w = &want[ka * step..kb * step];
                                        let same = part
                                            .iter()
                                            .zip(w)
                                            .all(|(a, b)| a.to_bits() == b.to_bits());
                                        assert!(same, "{i}->{o} C={nc} blocks {ka}..{kb} {c:?}");
                                    }
                                }
                                if !p.base.is_empty() {
                                    seen.insert((lanes, step, mode, p.derived as u8));
                                }
                                tested += 1;
                            }
                        }
                    }
                }
            }
        }
        // Every kernel variant ran: wide, narrow (full-size steps only) and split (AVX2
        // full-size steps only) windows, and each weight.
        for &(lanes, step) in &widths {
            for d in [Derived::None, Derived::W0, Derived::W1] {
                for mode in [0u8, 1, 2] {
                    let runs = match mode {
                        0 => true,
                        1 => lanes == step,
                        _ => lanes == 8 && step == 8,
                    };
                    if runs {
                        let v = (lanes, step, mode, d as u8);
                        assert!(seen.contains(&v), "{v:?} untested");
                    }
                }
            }
        }
        assert!(widths.is_empty() || tested > 200, "{tested}");
        // Held cycles of every period, each window mode, each weight variant.
        let want16 = (1..=MAX_PERIOD).map(|k| (16, k, 1, 1)).chain([
            (16, 1, 0, 1),
            (16, 3, 0, 1),
            (16, 1, 1, 0),
            (16, 1, 1, 2),
        ]);
        let want8 = (1..=MAX_PERIOD).map(|k| (8, k, 2, 1)).chain([
            (8, 1, 1, 1),
            (8, 1, 0, 1),
            (8, 2, 0, 0),
            (8, 2, 1, 0),
            (8, 2, 1, 2),
        ]);
        assert!(!widths.contains(&(8, 8)) || pairs, "2x pairs untested");
        for want in want16.chain(want8) {
            if widths.contains(&(want.0, want.0)) {
                assert!(
                    cycles.contains(&want),
                    "cycle {want:?} untested: {cycles:?}"
                );
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn row_pairs_equal_gathers() {
        use crate::core::axis::NearestRounding;
        if !is_x86_feature_detected!("avx2") {
            return;
        }
        let affine = |scale: f32, input_offset: f32, output_offset: f32| AxisRule::Affine {
            scale,
            input_offset,
            output_offset,
            rounding: NearestRounding::HalfUp,
            antialias: false,
        };
        let rules = [
            AxisRule::OnednnHalfPixel,
            AxisRule::Dnnl12,
            affine(2.0, 0.0, 0.0),
            affine(2.0, 0.25, 0.5),
            affine(2.0, -0.75, 0.0),
            affine(2.0, 1.5, 0.0),
            affine(3.0, 0.0, 0.0),
        ];
        let mut x = 0x9E37_79B9u32;
        let (mut found, mut halves) = (0, 0);
        for rule in &rules {
            for i in 1..=70usize {
                for o in [2 * i, 2 * i + 1, 3 * i, i + 5] {
                    let f = forward_taps(rule, Algorithm::Linear, i, o);
                    let t = WTable {
                        i0: f.idx.iter().step_by(2).copied().collect(),
                        i1: f.idx.iter().skip(1).step_by(2).copied().collect(),
                        w0: f.wt.iter().step_by(2).copied().collect(),
                        w1: f.wt.iter().skip(1).step_by(2).copied().collect(),
                    };
                    let Some(p) = PermTable::with_step(&t, 8, 8) else {
                        continue;
                    };
                    let Some(rp) = p.row_pairs else {
                        // The 2x half-pixel rows of whole pairs must have them.
                        let half = matches!(rule, AxisRule::OnednnHalfPixel);
                        assert!(!(half && o == 2 * i && o >= 16), "{i}->{o}: no pairs");
                        continue;
                    };
                    // Column -1 at index 1; the row and its slack filled with values that
                    // differ from the edges'.
                    let mut buf: Vec<f32> = (0..1 + i + SLACK)
                        .map(|_| {
                            x ^= x << 13;
                            x ^= x >> 17;
                            x ^= x << 5;
                            f32::from_bits(x % 0x7F00_0000) - 1.0
                        })
                        .collect();
                    let n = p.base.len() * 8;
                    let mut want = vec![0f32; o];
                    // SAFETY: the row covers every column the table names, plus slack.
                    unsafe { simd::gather2(buf.as_ptr().add(1), &t, &mut want) };
                    let mut got = vec![0f32; n];
                    // SAFETY: AVX2 checked; columns -1..=last + back lie in `buf`.
                    unsafe {
                        rp.pad(buf.as_mut_ptr().add(1));
                        pairs_row(buf.as_ptr().add(1), &rp, got.as_mut_ptr(), n, false)
                    };
                    let same = got
                        .iter()
                        .zip(&want)
                        .all(|(a, b)| a.to_bits() == b.to_bits());
                    assert!(same, "{rule:?} {i}->{o} {rp:?}");
                    found += 1;
                    halves += usize::from(!n.is_multiple_of(16));
                }
            }
        }
        assert!(found > 100 && halves > 20, "{found} {halves}");
    }
}
