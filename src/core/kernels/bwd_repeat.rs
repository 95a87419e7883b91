//! Backward linear rows whose lists repeat (2x upsampling along the row), on AVX-512 (and
//! the 2x stretch on AVX2: [`Pairs`]).
//!
//! Inside such a row, element `i + 1` lists the columns of element `i` moved `s` further, with
//! the same weights (2x: `s = 2`). So every block of [`super::bwd_perm`]'s shape (16 elements,
//! a 32-column window per group or slot) has the same permute slots, its windows `s` columns
//! further per element: the slots are built once per plan and held in registers over the
//! whole row, and the blocks run four at a time, each its own chain of additions, so the
//! chains overlap (the general walk reloads its tables per group and runs a block alone where
//! the clamped edges change the slot counts: about 45 ns a block, nchw 56x56 <- 112x112). The
//! blocks tile the stretch, the last one overlapping the one before (it writes the same
//! values again). The one or two elements outside it (the clamped edges) are summed in the
//! row's first step, lane by lane beside the blocks, more of them on their own afterwards.
//! Per element the operations and their order are the general walk's, the reference's: group
//! combinations, `w`'s group, the other axes' positions, the list slot; `acc = acc + ((dd *
//! w_a0) * w_a1) * w_w` from 0.
//!
//! Measured and dropped (AVX-512, 1 thread, in-process A/B, same bits): each position's row
//! scaled and split into its even and odd columns in scratch first, so that a slot is one
//! plain load, a multiply and an add (fewer operations, yet slower with the edges as vectors,
//! the split pipelined a row ahead or not: f32 nchw 56x56 <- 112x112 1.13-1.45x the time,
//! 32x32 <- 64x64 1.42-1.81x); the edges as two vectors of permuted window columns instead of
//! the lane-by-lane chains (f32 and bf16 56x56 <- 112x112 1.24x, 256x256 <- 512x512 1.05x);
//! the row's two end blocks (0.. and n_in - 16..) with slots of their own, the edges' longer
//! lists in extra masked slots, the stretch's blocks between them (f32 1x4 and 8x64 56x56 <-
//! 112x112 1.12x and 1.17x, 1x8 256x256 <- 512x512 1.15x, bf16 8x64 1.04x). For scale: the
//! lane-by-lane edges left out altogether (wrong sums) saved 14-22%, plain adds instead of
//! the masked ones (every lane adds in this stretch) 1-3%.

use super::bwd_stream::Segs;
#[cfg(target_arch = "x86_64")]
use super::bwd_stream::Term;

/// Lanes of a block.
const B: usize = 16;

/// One list slot of the block at the stretch's first element `u0`: the window's first column,
/// the window index and weight per lane, the lanes that add.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(crate) struct RSlot {
    pub w: [f32; B],
    pub idx: [u8; B],
    pub ws: usize,
    pub mask: u16,
}

/// The repeating stretch `u0..u1` of a row (its lists move `s` columns per element) and the
/// slots of its blocks: `n` per group of `w` (two groups), a group's sharing one window when
/// `shared`.
#[derive(Clone, Debug)]
pub(crate) struct Repeat {
    pub u0: usize,
    pub u1: usize,
    pub s: usize,
    pub n: usize,
    pub shared: [bool; 2],
    /// `slots[g * n + j]`.
    pub slots: Vec<RSlot>,
    /// First elements of the blocks that tile the stretch (the last overlapping the one
    /// before); every window of each lies in the row.
    pub starts: Vec<usize>,
    /// The elements outside the stretch, summed one by one.
    pub edges: Vec<u32>,
    /// Up to two edge elements summed inside the row's first step instead (their chains of
    /// additions then overlap the blocks'): per element and group, its list.
    pub fused: Option<[[EdgeList; 2]; 2]>,
}

/// One element's list in one group: `len` columns from `start` with weights `w`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct EdgeList {
    pub start: usize,
    pub len: usize,
    pub w: [f32; 4],
}

/// The longest stretch `u0..u1` of two groups of `w` lists around the row's middle whose
/// lists move `s` columns an element with the same weights; `None` below `lanes` elements.
fn stretch(segs: &[Segs], n_in: usize, lanes: usize) -> Option<(usize, usize, usize)> {
    if segs.len() != 2 || n_in < lanes + 2 {
        return None;
    }
    let mid = n_in / 2;
    let g = segs.iter().find(|g| g.len[mid] > 0 && g.len[mid + 1] > 0)?;
    let s = (g.start[mid + 1] as usize).checked_sub(g.start[mid] as usize)?;
    if s == 0 || !step_of(segs, mid, s) {
        return None;
    }
    let (mut u0, mut u1) = (mid, mid + 2);
    while u0 > 0 && step_of(segs, u0 - 1, s) {
        u0 -= 1;
    }
    while u1 < n_in && step_of(segs, u1 - 1, s) {
        u1 += 1;
    }
    (u1 - u0 >= lanes).then_some((u0, u1, s))
}

/// The elements of a row of `n_in` outside the stretch `u0..u1` of blocks of `lanes`;
/// `None` when they are too many for the stretch to pay. An edge costs ~11 ns lane by lane,
/// an element of the general walk ~1.7 ns, of a repeating block ~1: a stretch cut short by
/// weights that drift (oneDNN's f32 coordinates of rows past ~8K elements) leaves the row
/// to the general walk (1 thread, Granite Rapids, ms: nchw f32 1x1 70x9000 <- 140x18000
/// 6.9 -> 1.07, 1x16 40000 <- 80000 3.10 -> 0.50; AVX2 pairs 6.2 -> 1.46, 2.87 -> 0.46).
fn edges(u0: usize, u1: usize, n_in: usize, lanes: usize) -> Option<Vec<u32>> {
    let n = u0 + (n_in - u1);
    if n > 2 * lanes && n * 16 > u1 - u0 {
        return None;
    }
    Some((0..u0).chain(u1..n_in).map(|i| i as u32).collect())
}

/// The lists of the row's first and last edge elements in both groups, when there are one or
/// two edge elements (summed beside the first step).
fn fused_edges(segs: &[Segs], edges: &[u32]) -> Option<[[EdgeList; 2]; 2]> {
    if !(1..=2).contains(&edges.len()) {
        return None;
    }
    let list = |e: usize, g: &Segs| {
        let n = g.len[e] as usize;
        let mut l = EdgeList {
            start: g.start[e] as usize,
            len: n,
            w: [0.0; 4],
        };
        let wo = g.wofs[e] as usize;
        l.w.get_mut(..n)?.copy_from_slice(&g.wt[wo..wo + n]);
        Some(l)
    };
    let (a, b) = (edges[0] as usize, *edges.last()? as usize);
    let pair = |e: usize| Some([list(e, &segs[0])?, list(e, &segs[1])?]);
    pair(a).zip(pair(b)).map(|(x, y)| [x, y])
}

/// Whether element `i + 1` lists element `i`'s columns moved `s`, with its weights.
fn step_of(segs: &[Segs], i: usize, s: usize) -> bool {
    segs.iter().all(|g| {
        let (a, b) = (i, i + 1);
        let n = g.len[a] as usize;
        n == g.len[b] as usize
            && (n == 0
                || (g.start[a] as usize + s == g.start[b] as usize
                    && (0..n).all(|j| {
                        let (x, y) = (g.wofs[a] as usize + j, g.wofs[b] as usize + j);
                        g.wt[x].to_bits() == g.wt[y].to_bits()
                    })))
    })
}

impl Repeat {
    /// The longest stretch of two groups of linear `w` lists around the row's middle that
    /// repeats, for blocks of 16 elements over 32-column windows; `None` when it is shorter
    /// than a block, its lists are longer than 2 or outgrow the windows.
    pub(crate) fn find(segs: &[Segs], n_in: usize, n_out: usize) -> Option<Self> {
        let (lanes, win) = (B, 2 * B);
        let (u0, u1, s) = stretch(segs, n_in, lanes)?;
        let lens = |g: &Segs| g.len[u0..u0 + lanes].iter().copied().max().unwrap_or(0) as usize;
        let n = segs.iter().map(lens).max()?;
        if !(1..=2).contains(&n) {
            return None;
        }
        let mut slots = Vec::with_capacity(2 * n);
        let mut shared = [false; 2];
        for (gi, g) in segs.iter().enumerate() {
            let col = |l: usize, j: usize| {
                let i = u0 + l;
                (j < g.len[i] as usize).then(|| g.start[i] as usize + j)
            };
            let span = |js: std::ops::Range<usize>| {
                let cols = || (0..lanes).flat_map(|l| js.clone().filter_map(move |j| col(l, j)));
                Some((cols().min()?, cols().max()?))
            };
            let whole = span(0..n)?;
            shared[gi] = whole.1 < whole.0 + win;
            for j in 0..n {
                // A slot no lane reaches (the other group's lists are longer) adds nothing.
                let (ws, we) = if shared[gi] {
                    whole
                } else {
                    span(j..j + 1).unwrap_or((whole.0, whole.0))
                };
                if we >= ws + win {
                    return None;
                }
                let mut sl = RSlot {
                    w: [0.0; B],
                    idx: [0; B],
                    ws,
                    mask: 0,
                };
                for l in 0..lanes {
                    if let Some(c) = col(l, j) {
                        sl.idx[l] = (c - ws) as u8;
                        sl.w[l] = g.wt[g.wofs[u0 + l] as usize + j];
                        sl.mask |= 1 << l;
                    }
                }
                slots.push(sl);
            }
        }
        let mut r = Repeat {
            u0,
            u1,
            s,
            n,
            shared,
            slots,
            starts: Vec::new(),
            edges: Vec::new(),
            fused: None,
        };
        // The stretch is cut short until its last block's windows lie in the row.
        let reach = r.slots.iter().map(|sl| sl.ws + win).max()?;
        while r.u1 >= u0 + lanes && reach + r.shift(r.u1 - lanes) > n_out {
            r.u1 -= 1;
        }
        if r.u1 < u0 + lanes {
            return None;
        }
        r.starts = (u0..=r.u1 - lanes).step_by(lanes).collect();
        if r.starts.last() != Some(&(r.u1 - lanes)) {
            r.starts.push(r.u1 - lanes);
        }
        r.edges = edges(u0, r.u1, n_in, lanes)?;
        r.fused = fused_edges(segs, &r.edges);
        Some(r)
    }

    /// Column shift of the block starting at element `i0` from the block at `u0`.
    fn shift(&self, i0: usize) -> usize {
        (i0 - self.u0) * self.s
    }
}

/// One row: the stretch's blocks in steps, then the edges not summed beside them (lane by
/// lane, as the general walk's wide blocks).
///
/// # Safety
/// As [`super::bwd_perm::row`], on AVX-512F; `segs` are the lists `r` was found in.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn row<const M: usize, const BF: bool>(
    src: *const u8,
    r: &Repeat,
    segs: &[Segs],
    combos: &[(u32, u32)],
    pos: &[Term],
    out: *mut f32,
) {
    // SAFETY: the caller's.
    unsafe {
        if r.n == 1 {
            steps::<M, BF, 1>(src, r, combos, pos, out);
        } else {
            steps::<M, BF, 2>(src, r, combos, pos, out);
        }
        if r.fused.is_some() {
            return;
        }
        for &e in &r.edges {
            let e = e as usize;
            super::bwd_perm::wide_block::<M, true, BF>(src, segs, combos, pos, out, e..e + 1);
        }
    }
}

/// The terms of group `g` at one position for the fused edge elements, into `x`.
///
/// # Safety
/// The lists' columns lie in the position's row.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn fused_terms<const M: usize, const BF: bool>(
    src: *const u8,
    f: &[[EdgeList; 2]; 2],
    g: usize,
    p: &Term,
    x: &mut [f32; 2],
) {
    for (e, acc) in x.iter_mut().enumerate() {
        let l = &f[e][g];
        for j in 0..l.len {
            let k = p.off + l.start + j;
            // SAFETY: the caller's.
            let mut v = unsafe {
                if BF {
                    super::super::dtype::bf16_to_f32(*(src as *const u16).add(k))
                } else {
                    *(src as *const f32).add(k)
                }
            };
            for &w in &p.w[..M] {
                v *= w;
            }
            *acc += v * l.w[j];
        }
    }
}

/// [`row`]'s blocks, four at a time (two for a last step of one or two; a short step repeats
/// its last block); the fused edges beside the first step.
///
/// # Safety
/// As [`row`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn steps<const M: usize, const BF: bool, const N: usize>(
    src: *const u8,
    r: &Repeat,
    combos: &[(u32, u32)],
    pos: &[Term],
    out: *mut f32,
) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's: every window of every block lies in each position's row.
    unsafe {
        let sl = |g: usize, j: usize| &r.slots[g * N + j];
        let ix: [[__m512i; N]; 2] = std::array::from_fn(|g| {
            std::array::from_fn(|j| {
                _mm512_cvtepu8_epi32(_mm_loadu_si128(sl(g, j).idx.as_ptr() as *const __m128i))
            })
        });
        let wv: [[__m512; N]; 2] =
            std::array::from_fn(|g| std::array::from_fn(|j| _mm512_load_ps(sl(g, j).w.as_ptr())));
        let mk: [[u16; N]; 2] = std::array::from_fn(|g| std::array::from_fn(|j| sl(g, j).mask));
        let ws: [[usize; N]; 2] = std::array::from_fn(|g| std::array::from_fn(|j| sl(g, j).ws));
        let load = |at: usize| {
            if BF {
                let v = _mm512_loadu_si512((src as *const u16).add(at) as *const _);
                let f32s = |h: __m256i| {
                    _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(h)))
                };
                (
                    f32s(_mm512_castsi512_si256(v)),
                    f32s(_mm512_extracti64x4_epi64::<1>(v)),
                )
            } else {
                let p = (src as *const f32).add(at);
                (_mm512_loadu_ps(p), _mm512_loadu_ps(p.add(B)))
            }
        };
        macro_rules! step {
            ($k:literal, $blocks:expr, $fuse:expr) => {{
                let b: &[usize] = $blocks;
                let fuse: Option<&[[EdgeList; 2]; 2]> = $fuse;
                let mut xe = [0f32; 2];
                let i0: [usize; $k] = std::array::from_fn(|k| b[k.min(b.len() - 1)]);
                let shift: [usize; $k] = std::array::from_fn(|k| r.shift(i0[k]));
                let mut acc = [_mm512_setzero_ps(); $k];
                for &(p0, p1) in combos {
                    for g in 0..2 {
                        for p in &pos[p0 as usize..p1 as usize] {
                            let wa: [__m512; M] = std::array::from_fn(|a| _mm512_set1_ps(p.w[a]));
                            let mut win = [(_mm512_setzero_ps(), _mm512_setzero_ps()); $k];
                            for j in 0..N {
                                for k in 0..$k {
                                    if j == 0 || !r.shared[g] {
                                        win[k] = load(p.off + ws[g][j] + shift[k]);
                                    }
                                    let mut x =
                                        _mm512_permutex2var_ps(win[k].0, ix[g][j], win[k].1);
                                    for w in wa {
                                        x = _mm512_mul_ps(x, w);
                                    }
                                    x = _mm512_mul_ps(x, wv[g][j]);
                                    acc[k] = _mm512_mask_add_ps(acc[k], mk[g][j], acc[k], x);
                                }
                            }
                            if let Some(f) = fuse {
                                fused_terms::<M, BF>(src, f, g, p, &mut xe);
                            }
                        }
                    }
                }
                for k in 0..$k {
                    _mm512_storeu_ps(out.add(i0[k]), acc[k]);
                }
                if fuse.is_some() {
                    *out.add(r.edges[0] as usize) = xe[0];
                    *out.add(r.edges[r.edges.len() - 1] as usize) = xe[1];
                }
            }};
        }
        for (c, b) in r.starts.chunks(4).enumerate() {
            match (b.len() > 2, c == 0 && r.fused.is_some()) {
                (true, true) => step!(4, b, r.fused.as_ref()),
                (true, false) => step!(4, b, None),
                (false, true) => step!(2, b, r.fused.as_ref()),
                (false, false) => step!(2, b, None),
            }
        }
    }
}

/// AVX2 blocks of 8 elements for a 2x stretch (`s = 2`, lists of one or two columns): slot
/// `j` of group `g` reads columns `ws[g] + 2 (i - u0) + j` for element `i`, so a block's slots
/// are the even and the odd columns of one 16-column window: two loads and two in-lane
/// shuffles per group and position, no permutes (two `vpermps` and a blend a slot lost to
/// the fixed-stride loops on AVX2). The shuffles leave the lanes in the order 0 1 4 5 2 3 6 7,
/// which one permute of the sums puts right. Every element of the stretch has the same
/// weights, so they are scalars. Per element the operations and their order are
/// [`Repeat`]'s. Zen 1, 1 thread, nchw linear, ms (fixed-stride loops -> here): f32 8x64
/// 56x56 <- 112x112 19.3 -> 8.7, 8x256 32x32 <- 64x64 39.8 -> 13.1, 1x8 256x256 <- 512x512
/// 3.3 -> 2.7; bf16 8x64 56x56 <- 112x112 24.0 -> 13.6.
#[derive(Clone, Debug)]
pub(crate) struct Pairs {
    pub u0: usize,
    pub u1: usize,
    /// Per group: the window's first column at `u0`, the weight of each slot, which slots add.
    pub ws: [usize; 2],
    pub w: [[f32; 2]; 2],
    pub live: [[bool; 2]; 2],
    /// First elements of the blocks that tile the stretch (the last overlapping the one
    /// before); every window of each lies in the row.
    pub starts: Vec<usize>,
    /// The elements outside the stretch, and up to two of them summed beside the first step.
    pub edges: Vec<u32>,
    pub fused: Option<[[EdgeList; 2]; 2]>,
}

/// Elements of an AVX2 block.
const B2: usize = 8;

impl Pairs {
    /// The 2x stretch of two groups of linear `w` lists for AVX2 blocks of 8 (windows of 16
    /// columns inside the row), if it holds a block.
    pub(crate) fn find(segs: &[Segs], n_in: usize, n_out: usize) -> Option<Self> {
        let (u0, u1, s) = stretch(segs, n_in, B2)?;
        if s != 2 {
            return None;
        }
        let mut pr = Pairs {
            u0,
            u1,
            ws: [0; 2],
            w: [[0.0; 2]; 2],
            live: [[false; 2]; 2],
            starts: Vec::new(),
            edges: Vec::new(),
            fused: None,
        };
        for (k, g) in segs.iter().enumerate() {
            let len = g.len[u0] as usize;
            if len > 2 {
                return None;
            }
            pr.ws[k] = g.start[u0] as usize;
            for j in 0..len {
                pr.w[k][j] = g.wt[g.wofs[u0] as usize + j];
                pr.live[k][j] = true;
            }
        }
        if !pr.live.iter().any(|g| g[0]) {
            return None;
        }
        // The stretch is cut short until its last block's windows lie in the row.
        let reach = (0..2)
            .filter(|&k| pr.live[k][0])
            .map(|k| pr.ws[k] + 2 * B2)
            .max()?;
        while pr.u1 >= u0 + B2 && reach + 2 * (pr.u1 - B2 - u0) > n_out {
            pr.u1 -= 1;
        }
        if pr.u1 < u0 + B2 {
            return None;
        }
        pr.starts = (u0..=pr.u1 - B2).step_by(B2).collect();
        if pr.starts.last() != Some(&(pr.u1 - B2)) {
            pr.starts.push(pr.u1 - B2);
        }
        pr.edges = edges(u0, pr.u1, n_in, B2)?;
        pr.fused = fused_edges(segs, &pr.edges);
        Some(pr)
    }
}

/// One row by [`Pairs`] on AVX2: the stretch's blocks in steps, then the edges not summed
/// beside them.
///
/// # Safety
/// As [`super::bwd_perm::row`], on AVX2; `segs` are the lists `r` was found in.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) unsafe fn pairs_row<const M: usize, const BF: bool>(
    src: *const u8,
    r: &Pairs,
    segs: &[Segs],
    combos: &[(u32, u32)],
    pos: &[Term],
    out: *mut f32,
) {
    // SAFETY: the caller's.
    unsafe {
        if r.live == [[true; 2]; 2] {
            pair_steps::<M, BF, true>(src, r, combos, pos, out);
        } else {
            pair_steps::<M, BF, false>(src, r, combos, pos, out);
        }
        if r.fused.is_some() {
            return;
        }
        for &e in &r.edges {
            let e = e as usize;
            super::bwd_perm::wide_block::<M, true, BF>(src, segs, combos, pos, out, e..e + 1);
        }
    }
}

/// [`pairs_row`]'s blocks, four at a time (two for a last step of one or two; a short step
/// repeats its last block); the fused edges beside the first step.
///
/// # Safety
/// As [`pairs_row`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn pair_steps<const M: usize, const BF: bool, const ALL: bool>(
    src: *const u8,
    r: &Pairs,
    combos: &[(u32, u32)],
    pos: &[Term],
    out: *mut f32,
) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's: every window of every block lies in each position's row.
    unsafe {
        let wv: [[__m256; 2]; 2] =
            std::array::from_fn(|g| std::array::from_fn(|j| _mm256_set1_ps(r.w[g][j])));
        // The window's 16 columns from `at`, as f32.
        let load = |at: usize| {
            if BF {
                let v = _mm256_loadu_si256((src as *const u16).add(at) as *const __m256i);
                let f32s = |h: __m128i| {
                    _mm256_castsi256_ps(_mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(h)))
                };
                (
                    f32s(_mm256_castsi256_si128(v)),
                    f32s(_mm256_extracti128_si256::<1>(v)),
                )
            } else {
                let p = (src as *const f32).add(at);
                (_mm256_loadu_ps(p), _mm256_loadu_ps(p.add(B2)))
            }
        };
        macro_rules! step {
            ($k:literal, $blocks:expr, $fuse:expr) => {{
                let b: &[usize] = $blocks;
                let fuse: Option<&[[EdgeList; 2]; 2]> = $fuse;
                let mut xe = [0f32; 2];
                let i0: [usize; $k] = std::array::from_fn(|k| b[k.min(b.len() - 1)]);
                let shift: [usize; $k] = std::array::from_fn(|k| 2 * (i0[k] - r.u0));
                let mut acc = [_mm256_setzero_ps(); $k];
                for &(p0, p1) in combos {
                    for g in 0..2 {
                        for p in &pos[p0 as usize..p1 as usize] {
                            // (A group without lists in the stretch still feeds the edges.)
                            if ALL || r.live[g][0] {
                                let wa: [__m256; M] =
                                    std::array::from_fn(|a| _mm256_set1_ps(p.w[a]));
                                for k in 0..$k {
                                    let (lo, hi) = load(p.off + r.ws[g] + shift[k]);
                                    // Even columns (slot 0), odd ones (slot 1).
                                    let x = [
                                        _mm256_shuffle_ps::<0x88>(lo, hi),
                                        _mm256_shuffle_ps::<0xDD>(lo, hi),
                                    ];
                                    for j in 0..2 {
                                        if !ALL && !r.live[g][j] {
                                            continue;
                                        }
                                        let mut v = x[j];
                                        for w in wa {
                                            v = _mm256_mul_ps(v, w);
                                        }
                                        v = _mm256_mul_ps(v, wv[g][j]);
                                        acc[k] = _mm256_add_ps(acc[k], v);
                                    }
                                }
                            }
                            if let Some(f) = fuse {
                                fused_terms::<M, BF>(src, f, g, p, &mut xe);
                            }
                        }
                    }
                }
                for k in 0..$k {
                    // Lanes 0 1 4 5 2 3 6 7 back in order.
                    let a =
                        _mm256_castpd_ps(_mm256_permute4x64_pd::<0xD8>(_mm256_castps_pd(acc[k])));
                    _mm256_storeu_ps(out.add(i0[k]), a);
                }
                if fuse.is_some() {
                    *out.add(r.edges[0] as usize) = xe[0];
                    *out.add(r.edges[r.edges.len() - 1] as usize) = xe[1];
                }
            }};
        }
        for (c, b) in r.starts.chunks(4).enumerate() {
            match (b.len() > 2, c == 0 && r.fused.is_some()) {
                (true, true) => step!(4, b, r.fused.as_ref()),
                (true, false) => step!(4, b, None),
                (false, true) => step!(2, b, r.fused.as_ref()),
                (false, false) => step!(2, b, None),
            }
        }
    }
}
