//! Hot inner loops, monomorphised per source type and instantiated per ISA.
//!
//! Each loop body is written once as an `#[inline(always)]` generic function over a source
//! loader ([`Src`]) and a const tap-axis count; thin `#[target_feature]` wrappers let LLVM
//! vectorise the same body for AVX2 and AVX-512, chosen once at run time. The bodies use
//! plain `*` and `+` (Rust never contracts them into FMA), so every ISA produces the same
//! bits as the scalar reference. The hottest loops also have explicit intrinsics: AVX2 /
//! AVX-512 on x86-64, NEON on aarch64 (baseline there, [`Isa::Neon`]); they too multiply
//! and add separately (`vmulq_f32` + `vaddq_f32`, never `vfmaq_f32`).
//!
//! Safety: every `unsafe fn` here trusts its caller for the pointers it names (readable or
//! writable elements, any alignment) and runs target-feature code only under an ISA that
//! [`isa`] reports, which never exceeds what the CPU has; each body is one unsafe block
//! whose SAFETY line says which.

use super::dtype::{bf16_to_f32, DataType, Numerics};
use super::RawCopy;

pub(crate) mod vectors;
use std::sync::OnceLock;

/// A kernel instruction set. `Base` is the portable code (the generic bodies, which LLVM
/// vectorises for the target's baseline); the others add explicit intrinsics. x86-64 has
/// `Avx2` and `Avx512` (detected at run time), aarch64 has `Neon` (baseline there, so always
/// present). Every variant exists on every target so matches compile unchanged; an ISA of
/// the other architecture is never reported, and [`with_isa`] maps it to the detected one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[allow(dead_code)] // each target uses its own variants
pub(crate) enum Isa {
    Base,
    Neon,
    Avx2,
    Avx512,
}

/// The widest vector ISA of this CPU (detected once), capped by `RESAMPLE_ISA=base|avx2`
/// (`base` only on aarch64).
pub(crate) fn detected_isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| {
        let cap = std::env::var("RESAMPLE_ISA").unwrap_or_default();
        if cap == "base" {
            return Isa::Base;
        }
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("avx512f") && cap != "avx2" {
                return Isa::Avx512;
            }
            if is_x86_feature_detected!("avx2") {
                return Isa::Avx2;
            }
        }
        #[cfg(target_arch = "aarch64")]
        return Isa::Neon;
        #[allow(unreachable_code)]
        Isa::Base
    })
}

/// The ISAs of this architecture, narrowest first.
const ARCH_ISAS: &[Isa] = if cfg!(target_arch = "x86_64") {
    &[Isa::Base, Isa::Avx2, Isa::Avx512]
} else if cfg!(target_arch = "aarch64") {
    &[Isa::Base, Isa::Neon]
} else {
    &[Isa::Base]
};

/// Every ISA this CPU runs, narrowest first (tests check each in one process).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn available_isas() -> Vec<Isa> {
    ARCH_ISAS
        .iter()
        .copied()
        .filter(|&i| i <= detected_isa())
        .collect()
}

thread_local! {
    /// The ISA of the plan this thread is building or executing (see [`with_isa`]).
    static CURRENT: std::cell::Cell<Option<Isa>> = const { std::cell::Cell::new(None) };
}

/// The ISA kernels dispatch on: the current plan's, else the detected one.
#[inline]
pub(crate) fn isa() -> Isa {
    CURRENT.with(|c| c.get()).unwrap_or_else(detected_isa)
}

/// Runs `f` with kernels on this thread dispatched for `isa` (never above what the CPU
/// has: that would execute instructions it lacks; an ISA of another architecture means
/// the detected one).
#[inline]
pub(crate) fn with_isa<R>(isa: Isa, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Isa>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
        }
    }
    let isa = if ARCH_ISAS.contains(&isa) {
        isa.min(detected_isa())
    } else {
        detected_isa()
    };
    let _restore = Restore(CURRENT.with(|c| c.replace(Some(isa))));
    f()
}

/// The ISA as the verbose output reports it.
pub(crate) fn isa_name() -> &'static str {
    match isa() {
        Isa::Base => "Base",
        Isa::Neon => "Neon",
        Isa::Avx2 => "Avx2",
        Isa::Avx512 => "Avx512",
    }
}

/// F16C (f32 <-> f16 conversion instructions), detected once.
fn f16c() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static F16C: OnceLock<bool> = OnceLock::new();
        return *F16C.get_or_init(|| is_x86_feature_detected!("f16c"));
    }
    #[allow(unreachable_code)]
    false
}

/// AVX-512BW (16-bit element vectors), detected once.
pub(crate) fn avx512bw() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static BW: OnceLock<bool> = OnceLock::new();
        return *BW.get_or_init(|| is_x86_feature_detected!("avx512bw"));
    }
    #[allow(unreachable_code)]
    false
}

/// AVX-512 BF16 (`vcvtne2ps2bf16`) with the AVX-512BW/VL forms its users need, detected once.
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx512bf16() -> bool {
    static BF16: OnceLock<bool> = OnceLock::new();
    *BF16.get_or_init(|| {
        is_x86_feature_detected!("avx512bf16")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vl")
    })
}

/// Loads element `i` of a contiguous run as f32.
pub(crate) trait Src {
    unsafe fn get(p: *const u8, i: usize) -> f32;
}

pub(crate) struct F32s;
pub(crate) struct Bf16s;
pub(crate) struct F16s;
pub(crate) struct S32s;
pub(crate) struct S8s;
pub(crate) struct U8s;

impl Src for F32s {
    #[inline(always)]
    unsafe fn get(p: *const u8, i: usize) -> f32 {
        // SAFETY: `p` + `i` is a readable f32 of the caller's buffer (the `Src` contract);
        // `read_unaligned` needs no alignment.
        unsafe { (p as *const f32).add(i).read_unaligned() }
    }
}
impl Src for Bf16s {
    #[inline(always)]
    unsafe fn get(p: *const u8, i: usize) -> f32 {
        // SAFETY: `p` + `i` is a readable bf16 of the caller's buffer (the `Src` contract);
        // `read_unaligned` needs no alignment.
        unsafe { bf16_to_f32((p as *const u16).add(i).read_unaligned()) }
    }
}
impl Src for F16s {
    #[inline(always)]
    unsafe fn get(p: *const u8, i: usize) -> f32 {
        // SAFETY: `p` + `i` is a readable f16 of the caller's buffer (the `Src` contract);
        // `read_unaligned` needs no alignment.
        unsafe { half::f16::from_bits((p as *const u16).add(i).read_unaligned()).to_f32() }
    }
}
impl Src for S32s {
    #[inline(always)]
    unsafe fn get(p: *const u8, i: usize) -> f32 {
        // SAFETY: `p` + `i` is a readable s32 of the caller's buffer (the `Src` contract);
        // `read_unaligned` needs no alignment.
        unsafe { (p as *const i32).add(i).read_unaligned() as f32 }
    }
}
impl Src for S8s {
    #[inline(always)]
    unsafe fn get(p: *const u8, i: usize) -> f32 {
        // SAFETY: `p` + `i` is a readable s8 of the caller's buffer (the `Src` contract); bytes
        // need no alignment.
        unsafe { *(p as *const i8).add(i) as f32 }
    }
}
impl Src for U8s {
    #[inline(always)]
    unsafe fn get(p: *const u8, i: usize) -> f32 {
        // SAFETY: `p` + `i` is a readable u8 of the caller's buffer (the `Src` contract); bytes
        // need no alignment.
        unsafe { *p.add(i) as f32 }
    }
}

/// Calls `$f::<S, ...>(args)` with the loader type of data type `$dt`.
macro_rules! with_src {
    ($dt:expr, $f:ident $(::<$($g:tt),*>)?, ($($arg:expr),*)) => {
        match $dt {
            DataType::F32 => $f::<F32s $($(, $g)*)?>($($arg),*),
            DataType::Bf16 => $f::<Bf16s $($(, $g)*)?>($($arg),*),
            DataType::F16 => $f::<F16s $($(, $g)*)?>($($arg),*),
            DataType::S32 => $f::<S32s $($(, $g)*)?>($($arg),*),
            DataType::S8 => $f::<S8s $($(, $g)*)?>($($arg),*),
            DataType::U8 => $f::<U8s $($(, $g)*)?>($($arg),*),
            DataType::F64 => unreachable!("f64 never reaches the f32 kernels"),
        }
    };
}

/// Instantiates `$body::<S, M>` for the base ISA, AVX2 and AVX-512 and dispatches on
/// [`isa`] and the runtime tap-axis count `m` (0..=3). The x86 target features apply on
/// x86_64 only (`cfg_attr`): elsewhere the wrappers are plain copies that [`isa`] never
/// selects, so every dispatch compiles unchanged for aarch64. New wrappers follow suit.
macro_rules! multiversion {
    ($name:ident, $body:ident, ($($arg:ident: $ty:ty),*)) => {
        pub(crate) unsafe fn $name(dt: DataType, m: usize, $($arg: $ty),*) {
            #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2"))]
            unsafe fn avx2<S: Src, const M: usize>($($arg: $ty),*) {
                // SAFETY: `pick` calls this only when AVX2 was detected; the pointer contract
                // is the dispatcher's, passed on unchanged.
                unsafe { $body::<S, M>($($arg),*) }
            }
            #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx512f"))]
            unsafe fn avx512<S: Src, const M: usize>($($arg: $ty),*) {
                // SAFETY: `pick` calls this only when AVX-512F was detected; the pointer
                // contract is the dispatcher's, passed on unchanged.
                unsafe { $body::<S, M>($($arg),*) }
            }
            unsafe fn baseline<S: Src, const M: usize>($($arg: $ty),*) {
                // SAFETY: no target feature beyond the baseline; the pointer contract is the
                // dispatcher's, passed on unchanged.
                unsafe { $body::<S, M>($($arg),*) }
            }
            unsafe fn pick<S: Src>(m: usize, $($arg: $ty),*) {
                // SAFETY: `isa()` never exceeds the detected ISA, so each variant runs on a CPU
                // that has its features; the pointers are the dispatcher's, unchanged.
                unsafe {
                    match (isa(), m) {
                        (Isa::Avx512, 0) => avx512::<S, 0>($($arg),*),
                        (Isa::Avx512, 1) => avx512::<S, 1>($($arg),*),
                        (Isa::Avx512, 2) => avx512::<S, 2>($($arg),*),
                        (Isa::Avx512, _) => avx512::<S, 3>($($arg),*),
                        (Isa::Avx2, 0) => avx2::<S, 0>($($arg),*),
                        (Isa::Avx2, 1) => avx2::<S, 1>($($arg),*),
                        (Isa::Avx2, 2) => avx2::<S, 2>($($arg),*),
                        (Isa::Avx2, _) => avx2::<S, 3>($($arg),*),
                        (Isa::Base | Isa::Neon, 0) => baseline::<S, 0>($($arg),*),
                        (Isa::Base | Isa::Neon, 1) => baseline::<S, 1>($($arg),*),
                        (Isa::Base | Isa::Neon, 2) => baseline::<S, 2>($($arg),*),
                        (Isa::Base | Isa::Neon, _) => baseline::<S, 3>($($arg),*),
                    }
                }
            }
            debug_assert!(m <= 3);
            // SAFETY: the caller's pointer contract (see `$body`) is passed on unchanged.
            unsafe { with_src!(dt, pick, (m, $($arg),*)) }
        }
    };
}

/// Forward lerp chain over `out.len()` contiguous lanes: corners `offs[i + 2j + 4k]` (element
/// offsets of lane 0), weights `w[axis][tap]`, first axis innermost — the reference order
/// `lin(lin(lin(c000, c100, wd), lin(c010, c110, wd), wh), …, ww)`.
#[inline(always)]
unsafe fn lerp_body<S: Src, const M: usize>(
    src: *const u8,
    offs: &[usize; 8],
    w: &[[f32; 2]; 3],
    out: &mut [f32],
) {
    // SAFETY: the caller guarantees `src` holds elements `offs[k] + l` for every corner `k < 2^M`
    // and `l < out.len()` (tap tables are bounded by the source layout).
    unsafe {
        match M {
            0 => {
                let o0 = offs[0];
                for (l, v) in out.iter_mut().enumerate() {
                    *v = S::get(src, o0 + l);
                }
            }
            1 => {
                let (o0, o1) = (offs[0], offs[1]);
                let [a0, a1] = w[0];
                for (l, v) in out.iter_mut().enumerate() {
                    *v = S::get(src, o0 + l) * a0 + S::get(src, o1 + l) * a1;
                }
            }
            2 => {
                let [a0, a1] = w[0];
                let [b0, b1] = w[1];
                for (l, v) in out.iter_mut().enumerate() {
                    let h0 = S::get(src, offs[0] + l) * a0 + S::get(src, offs[1] + l) * a1;
                    let h1 = S::get(src, offs[2] + l) * a0 + S::get(src, offs[3] + l) * a1;
                    *v = h0 * b0 + h1 * b1;
                }
            }
            _ => {
                let [a0, a1] = w[0];
                let [b0, b1] = w[1];
                let [c0, c1] = w[2];
                for (l, v) in out.iter_mut().enumerate() {
                    let d00 = S::get(src, offs[0] + l) * a0 + S::get(src, offs[1] + l) * a1;
                    let d10 = S::get(src, offs[2] + l) * a0 + S::get(src, offs[3] + l) * a1;
                    let d01 = S::get(src, offs[4] + l) * a0 + S::get(src, offs[5] + l) * a1;
                    let d11 = S::get(src, offs[6] + l) * a0 + S::get(src, offs[7] + l) * a1;
                    let h0 = d00 * b0 + d10 * b1;
                    let h1 = d01 * b0 + d11 * b1;
                    *v = h0 * c0 + h1 * c1;
                }
            }
        }
    }
}

multiversion!(lerp, lerp_body, (src: *const u8, offs: &[usize; 8], w: &[[f32; 2]; 3], out: &mut [f32]));

/// Corner offsets of one pixel: the row's `base` corners plus the pixel's tap offset(s); with
/// `px2` the pixel axis is the outermost of the `M` axes and its weights go to slot `M-1`.
#[inline(always)]
fn pixel_corners<const M: usize>(
    base: &[usize; 8],
    (o0, o1, w0, w1): (usize, usize, f32, f32),
    px2: bool,
    ww: &mut [[f32; 2]; 3],
) -> [usize; 8] {
    let k = if px2 {
        1usize << M.saturating_sub(1)
    } else {
        1usize << M
    };
    let mut offs = [0usize; 8];
    for j in 0..k {
        offs[j] = base[j] + o0;
    }
    if px2 {
        for j in 0..k {
            offs[k + j] = base[j] + o1;
        }
        ww[M.saturating_sub(1)] = [w0, w1];
    }
    offs
}

/// Walks a row of pixels: `f(corners, weights, lanes)` for each pixel of `px` in turn, its
/// corners from [`pixel_corners`] and its `lanes` the pixel's share of `out` — the one pixel
/// loop of every ISA's row kernel.
#[inline(always)]
fn each_pixel<const M: usize>(
    base: &[usize; 8],
    w: &[[f32; 2]; 3],
    px: &[(usize, usize, f32, f32)],
    px2: bool,
    out: &mut [f32],
    mut f: impl FnMut(&[usize; 8], &[[f32; 2]; 3], &mut [f32]),
) {
    let lanes = out.len() / px.len().max(1);
    let mut ww = *w;
    for (&tap, o) in px.iter().zip(out.chunks_exact_mut(lanes.max(1))) {
        let offs = pixel_corners::<M>(base, tap, px2, &mut ww);
        f(&offs, &ww, o);
    }
}

/// A row of pixels for the `lanes` kernel: pixel `p` reads the corners `base[k] + px[p].0`
/// and, with `px2` (two taps along the pixel axis, the outermost reduction), also
/// `base[k] + px[p].1` weighted `(px[p].2, px[p].3)`. `out` holds the pixels' lanes in turn.
#[inline(always)]
pub(crate) unsafe fn lanes_row_body<S: Src, const M: usize>(
    src: *const u8,
    base: &[usize; 8],
    w: &[[f32; 2]; 3],
    px: &[(usize, usize, f32, f32)],
    px2: bool,
    out: &mut [f32],
) {
    // SAFETY: the caller guarantees every corner `base[k] + px[p].0` (and `.1` with `px2`) plus
    // `lanes` elements lies in `src`: `lerp_body`'s contract per pixel.
    each_pixel::<M>(base, w, px, px2, out, |offs, ww, o| unsafe {
        lerp_body::<S, M>(src, offs, ww, o)
    })
}

/// Calls `$f::<$g.., M, PX2, NT>(args)` for the runtime tap-axis count `m` (0..=3), `px2`
/// and `nt` (a pixel axis with two taps is one of the `m` levels, so `m == 0` has none).
macro_rules! by_shape {
    // Without streaming (the NT = false arms only).
    (@plain $f:ident::<$($g:ty),*>, $m:expr, $px2:expr, ($($a:expr),*)) => {
        match ($m, $px2) {
            (0, _) => $f::<$($g,)* 0, false, false>($($a),*),
            (1, false) => $f::<$($g,)* 1, false, false>($($a),*),
            (1, true) => $f::<$($g,)* 1, true, false>($($a),*),
            (2, false) => $f::<$($g,)* 2, false, false>($($a),*),
            (2, true) => $f::<$($g,)* 2, true, false>($($a),*),
            (_, false) => $f::<$($g,)* 3, false, false>($($a),*),
            (_, true) => $f::<$($g,)* 3, true, false>($($a),*),
        }
    };
    ($f:ident::<$($g:ty),*>, $m:expr, $px2:expr, $nt:expr, ($($a:expr),*)) => {
        match ($m, $px2, $nt) {
            (0, _, false) => $f::<$($g,)* 0, false, false>($($a),*),
            (0, _, true) => $f::<$($g,)* 0, false, true>($($a),*),
            (1, false, false) => $f::<$($g,)* 1, false, false>($($a),*),
            (1, false, true) => $f::<$($g,)* 1, false, true>($($a),*),
            (1, true, false) => $f::<$($g,)* 1, true, false>($($a),*),
            (1, true, true) => $f::<$($g,)* 1, true, true>($($a),*),
            (2, false, false) => $f::<$($g,)* 2, false, false>($($a),*),
            (2, false, true) => $f::<$($g,)* 2, false, true>($($a),*),
            (2, true, false) => $f::<$($g,)* 2, true, false>($($a),*),
            (2, true, true) => $f::<$($g,)* 2, true, true>($($a),*),
            (_, false, false) => $f::<$($g,)* 3, false, false>($($a),*),
            (_, false, true) => $f::<$($g,)* 3, false, true>($($a),*),
            (_, true, false) => $f::<$($g,)* 3, true, false>($($a),*),
            (_, true, true) => $f::<$($g,)* 3, true, true>($($a),*),
        }
    };
}

/// Defines `$name`, [`vectors::pixel_row`] over the vector type `$v` compiled with the
/// given attributes (the ISA's target feature), present only where `$arch` holds.
macro_rules! pixel_row_for {
    ($name:ident, $arch:meta, [$($attr:meta),*], $v:ty) => {
        #[cfg($arch)]
        $(#[$attr])*
        #[allow(clippy::too_many_arguments)]
        unsafe fn $name<
            L: vectors::Widen<$v>,
            S: vectors::Sink<$v>,
            const M: usize,
            const PX2: bool,
            const NT: bool,
        >(
            src: *const u8,
            base: &[usize; 8],
            w: &[[f32; 2]; 3],
            px: &[(usize, usize, f32, f32)],
            lanes: usize,
            out: *mut u8,
            ostride: usize,
            sink: S,
        ) {
            // SAFETY: `lanes_row` calls this only under an ISA the CPU has (NEON is baseline
            // on aarch64); its pointer contract is passed on.
            unsafe {
                vectors::pixel_row::<$v, L, S, M, PX2, NT>(src, base, w, px, lanes, out, ostride, sink)
            }
        }
    };
}

pixel_row_for!(
    pixel_row_avx512,
    target_arch = "x86_64",
    [target_feature(enable = "avx512f")],
    std::arch::x86_64::__m512
);
pixel_row_for!(
    pixel_row_avx512bw,
    target_arch = "x86_64",
    [target_feature(enable = "avx512f,avx512bw")],
    std::arch::x86_64::__m512
);
pixel_row_for!(
    pixel_row_avx512bf16,
    target_arch = "x86_64",
    [target_feature(
        enable = "avx512f,avx512bw,avx512vl,avx512bf16"
    )],
    std::arch::x86_64::__m512
);
pixel_row_for!(
    pixel_row_avx512bf16_256,
    target_arch = "x86_64",
    [target_feature(
        enable = "avx512f,avx512bw,avx512vl,avx512bf16"
    )],
    std::arch::x86_64::__m256
);
pixel_row_for!(
    pixel_row_avx2,
    target_arch = "x86_64",
    [target_feature(enable = "avx2")],
    std::arch::x86_64::__m256
);
pixel_row_for!(
    pixel_row_neon,
    target_arch = "aarch64",
    [],
    std::arch::aarch64::float32x4_t
);

/// Row of pixels for the `lanes` kernel (see [`lanes_row_body`]); `nt` streams the f32 stores
/// where the ISA can (call [`store_fence`] before handing the results over).
///
/// Whole vectors of lanes go through the explicit-vector [`vectors::pixel_row`] of the ISA
/// (f32, bf16, s8 and u8 sources on x86, f32 on NEON; AVX-512 f32 also masks a pixel
/// shorter than a vector); the rest through the auto-vectorised generic body. The
/// generic body paid a loop setup per pixel: nCx16c f32 8x16 8x25->16x12 linear 10.2 µs,
/// 6.3 µs for oneDNN.
pub(crate) unsafe fn lanes_row(
    dt: DataType,
    m: usize,
    src: *const u8,
    base: &[usize; 8],
    w: &[[f32; 2]; 3],
    px: &[(usize, usize, f32, f32)],
    px2: bool,
    out: &mut [f32],
    nt: bool,
) {
    let lanes = out.len() / px.len().max(1);
    let (o, ostride) = (out.as_mut_ptr() as *mut u8, 4 * lanes);
    // SAFETY: the AVX-512 (AVX2) variants run only when `isa()` (never above the detected
    // ISA) is AVX-512 (AVX2), the NEON one on aarch64 only; `out` holds `px.len() * lanes`
    // f32 and the caller's source contract is passed on.
    unsafe {
        // `$f::<$l>` over this row's shape.
        #[allow(unused_macros)] // each target uses its own arms
        macro_rules! row {
            ($f:ident, $l:ty, $nt:expr) => {
                by_shape!(
                    $f::<$l, vectors::F32Out>,
                    m,
                    px2,
                    $nt,
                    (src, base, w, px, lanes, o, ostride, vectors::F32Out)
                )
            };
        }
        #[cfg(target_arch = "aarch64")]
        if dt == DataType::F32 && isa() == Isa::Neon && lanes >= 4 {
            return row!(pixel_row_neon, F32s, false);
        }
        #[cfg(target_arch = "x86_64")]
        match (isa(), dt) {
            (Isa::Avx512, DataType::F32) => return row!(pixel_row_avx512, F32s, nt),
            (Isa::Avx512, DataType::Bf16) if lanes >= 16 => {
                return row!(pixel_row_avx512, Bf16s, nt)
            }
            (Isa::Avx512, DataType::U8) if lanes >= 16 => return row!(pixel_row_avx512, U8s, nt),
            (Isa::Avx512, DataType::S8) if lanes >= 16 => return row!(pixel_row_avx512, S8s, nt),
            (Isa::Avx2, DataType::F32) if lanes >= 8 => return row!(pixel_row_avx2, F32s, nt),
            (Isa::Avx2, DataType::Bf16) if lanes >= 8 => return row!(pixel_row_avx2, Bf16s, nt),
            (Isa::Avx2, DataType::U8) if lanes >= 8 => return row!(pixel_row_avx2, U8s, nt),
            (Isa::Avx2, DataType::S8) if lanes >= 8 => return row!(pixel_row_avx2, S8s, nt),
            _ => {}
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = nt; // only x86 streams
        lanes_row_generic(dt, m, src, base, w, px, px2, out)
    }
}

/// [`lanes_row`] straight into an s8/u8 or bf16 `dst` (dtype `ddt`), pixel `q`'s lanes at
/// `out + q * ostride` bytes, narrowed in registers (s8/u8 by [`super::dtype::IntStore`]'s
/// rules where the ISA has the explicit-vector row for the source type, AVX-512 and AVX2;
/// bf16 with oneDNN numerics by AVX512-BF16); `false` when it is not (the caller goes
/// through f32). nCx16c u8 1x16 227x317->76x106 linear spent a
/// quarter of its time converting the f32 rows in a second pass.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn lanes_row_narrow(
    dt: DataType,
    m: usize,
    src: *const u8,
    base: &[usize; 8],
    w: &[[f32; 2]; 3],
    px: &[(usize, usize, f32, f32)],
    px2: bool,
    lanes: usize,
    out: *mut u8,
    ostride: usize,
    ddt: DataType,
    numerics: Numerics,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: as `lanes_row`; each pixel's `lanes` bytes at `out + q * ostride` are the
    // caller's.
    unsafe {
        macro_rules! row {
            ($f:ident, $l:ty, $sink:expr) => {{
                let sink = $sink;
                by_shape!(@plain $f::<$l, _>, m, px2, (src, base, w, px, lanes, out, ostride, sink));
                true
            }};
        }
        // The whole-vector rows per ISA and source type (`$s`: the sink).
        macro_rules! rows {
            (@512 $s:expr, $s512:ident, $s256:ident) => {
                match (isa(), dt) {
                    // Pixels of 8 to 15 lanes in 8-lane vectors: 16-lane ones would put
                    // every lane through the sink's tail (nhwc bf16 2x13 30x30->20x20
                    // linear 8.7 -> 4.3 us, oneDNN 3.2).
                    (Isa::Avx512, DataType::F32) if (8..16).contains(&lanes) => row!($s256, F32s, $s),
                    (Isa::Avx512, DataType::Bf16) if (8..16).contains(&lanes) => row!($s256, Bf16s, $s),
                    (Isa::Avx512, DataType::U8) if (8..16).contains(&lanes) => row!($s256, U8s, $s),
                    (Isa::Avx512, DataType::S8) if (8..16).contains(&lanes) => row!($s256, S8s, $s),
                    (Isa::Avx512, DataType::F32) => row!($s512, F32s, $s),
                    (Isa::Avx512, DataType::Bf16) if lanes >= 16 => row!($s512, Bf16s, $s),
                    (Isa::Avx512, DataType::U8) if lanes >= 16 => row!($s512, U8s, $s),
                    (Isa::Avx512, DataType::S8) if lanes >= 16 => row!($s512, S8s, $s),
                    _ => false,
                }
            };
            ($s:expr, $s512:ident) => {
                match (isa(), dt) {
                    (Isa::Avx512, _) => rows!(@512 $s, $s512, pixel_row_avx2),
                    (Isa::Avx2, DataType::F32) if lanes >= 8 => row!(pixel_row_avx2, F32s, $s),
                    (Isa::Avx2, DataType::Bf16) if lanes >= 8 => row!(pixel_row_avx2, Bf16s, $s),
                    (Isa::Avx2, DataType::U8) if lanes >= 8 => row!(pixel_row_avx2, U8s, $s),
                    (Isa::Avx2, DataType::S8) if lanes >= 8 => row!(pixel_row_avx2, S8s, $s),
                    _ => false,
                }
            };
        }
        use vectors::x86::{Bf16NeOut, Int8Out};
        match ddt {
            // bf16 narrows in registers only in one instruction: the integer rounding's
            // constants and steps inside the row cost more than the f32 pass (nhwc bf16 1x128
            // 10x14->19x5 linear: AVX-512 4.0 us, AVX2 5.5, against 3.0 and 4.6 through f32).
            DataType::Bf16
                if numerics != Numerics::Ieee && isa() == Isa::Avx512 && avx512bf16() =>
            {
                if dt == DataType::Bf16 && lanes > 8 {
                    use vectors::x86::{bf16_pairs_row as row, Pairs256, Pairs512};
                    macro_rules! pairs {
                        ($f:ident $(, $p:ty)?) => {
                            match (m, px2) {
                                (0, _) => $f::<$($p,)? 0, false>,
                                (1, false) => $f::<$($p,)? 1, false>,
                                (1, true) => $f::<$($p,)? 1, true>,
                                (2, false) => $f::<$($p,)? 2, false>,
                                (2, true) => $f::<$($p,)? 2, true>,
                                (_, false) => $f::<$($p,)? 3, false>,
                                (_, true) => $f::<$($p,)? 3, true>,
                            }
                        };
                    }
                    if lanes < 16 {
                        use vectors::x86::bf16_masked_row as one;
                        pairs!(one)(src, base, w, px, lanes, out, ostride);
                        return true;
                    }
                    if lanes == 16 && px.len() >= 2 {
                        use vectors::x86::bf16_pixel_pairs_row as two;
                        pairs!(two)(src, base, w, px, out, ostride);
                        return true;
                    }
                    let f = if lanes >= 32 {
                        pairs!(row, Pairs512)
                    } else {
                        pairs!(row, Pairs256)
                    };
                    f(src, base, w, px, lanes, out, ostride);
                    return true;
                }
                rows!(@512 Bf16NeOut, pixel_row_avx512bf16, pixel_row_avx512bf16_256)
            }
            DataType::U8 | DataType::S8 => {
                let Some(q) = super::dtype::IntStore::new(ddt, numerics) else {
                    return false;
                };
                // Lerps of s8/u8 sources are bounded (see `int8_avx512`).
                if matches!(dt, DataType::U8 | DataType::S8) {
                    if isa() == Isa::Avx2 && lanes >= 16 {
                        use vectors::x86::int8_row_avx2 as row;
                        let f = match (dt, m, px2) {
                            (DataType::U8, 0, _) => row::<U8s, 0, false>,
                            (DataType::U8, 1, false) => row::<U8s, 1, false>,
                            (DataType::U8, 1, true) => row::<U8s, 1, true>,
                            (DataType::U8, 2, false) => row::<U8s, 2, false>,
                            (DataType::U8, 2, true) => row::<U8s, 2, true>,
                            (DataType::U8, _, false) => row::<U8s, 3, false>,
                            (DataType::U8, _, true) => row::<U8s, 3, true>,
                            (_, 0, _) => row::<S8s, 0, false>,
                            (_, 1, false) => row::<S8s, 1, false>,
                            (_, 1, true) => row::<S8s, 1, true>,
                            (_, 2, false) => row::<S8s, 2, false>,
                            (_, 2, true) => row::<S8s, 2, true>,
                            (_, _, false) => row::<S8s, 3, false>,
                            (_, _, true) => row::<S8s, 3, true>,
                        };
                        f(src, base, w, px, lanes, out, ostride, q);
                        return true;
                    }
                    if isa() == Isa::Avx512 && (9..16).contains(&lanes) {
                        use vectors::x86::int8_masked_row as row;
                        let f = match (dt, m, px2) {
                            (DataType::U8, 0, _) => row::<true, 0, false>,
                            (DataType::U8, 1, false) => row::<true, 1, false>,
                            (DataType::U8, 1, true) => row::<true, 1, true>,
                            (DataType::U8, 2, false) => row::<true, 2, false>,
                            (DataType::U8, 2, true) => row::<true, 2, true>,
                            (DataType::U8, _, false) => row::<true, 3, false>,
                            (DataType::U8, _, true) => row::<true, 3, true>,
                            (_, 0, _) => row::<false, 0, false>,
                            (_, 1, false) => row::<false, 1, false>,
                            (_, 1, true) => row::<false, 1, true>,
                            (_, 2, false) => row::<false, 2, false>,
                            (_, 2, true) => row::<false, 2, true>,
                            (_, _, false) => row::<false, 3, false>,
                            (_, _, true) => row::<false, 3, true>,
                        };
                        f(src, base, w, px, lanes, out, ostride, q);
                        return true;
                    }
                    if avx512bw() {
                        rows!(Int8Out::<true, true>(q), pixel_row_avx512bw)
                    } else {
                        rows!(Int8Out::<true>(q), pixel_row_avx512)
                    }
                } else if avx512bw() {
                    rows!(Int8Out::<false, true>(q), pixel_row_avx512bw)
                } else {
                    rows!(Int8Out::<false>(q), pixel_row_avx512)
                }
            }
            _ => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // Only x86 narrows in registers here.
        let _ = (
            dt, m, src, base, w, px, px2, lanes, out, ostride, ddt, numerics,
        );
        false
    }
}

multiversion!(
    lanes_row_generic,
    lanes_row_body,
    (src: *const u8, base: &[usize; 8], w: &[[f32; 2]; 3], px: &[(usize, usize, f32, f32)], px2: bool, out: &mut [f32])
);

/// Pixel level of a flat row (`kernels::lanes`): pixel `q` with taps `(i0, i1, w0, w1)`
/// (f32 offsets into `row`) gets `row[i0 + l] * w0 + row[i1 + l] * w1` (with `two`; else
/// `row[i0 + l]`) for its `n` lanes at `out + q * ostride` — the reference's outermost level.
#[inline(always)]
unsafe fn wrow_body<const TWO: bool>(
    row: *const f32,
    taps: &[(usize, usize, f32, f32)],
    n: usize,
    out: *mut f32,
    ostride: usize,
) {
    // SAFETY: the caller guarantees `row + i0 + l`, `row + i1 + l` and `out + q * ostride + l` are
    // valid for `l < n` and every tap `q`.
    unsafe {
        for (q, &(i0, i1, w0, w1)) in taps.iter().enumerate() {
            let o = out.add(q * ostride);
            let (a, b) = (row.add(i0), row.add(i1));
            for l in 0..n {
                let v = if TWO {
                    *a.add(l) * w0 + *b.add(l) * w1
                } else {
                    *a.add(l)
                };
                *o.add(l) = v;
            }
        }
    }
}

/// Lanes `l..l + 16` of the flat row's pixel level under mask `m` (masked-off lanes are
/// neither read nor computed into the result): `a[l] * v0 + b[l] * v1` with `TWO`, else
/// `a[l]` — the one step of every AVX-512 `wrow` variant.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn wrow_step16<const TWO: bool>(
    a: *const f32,
    b: *const f32,
    (v0, v1): (std::arch::x86_64::__m512, std::arch::x86_64::__m512),
    m: std::arch::x86_64::__mmask16,
    l: usize,
) -> std::arch::x86_64::__m512 {
    // SAFETY: the callers enable AVX-512F and own lanes `l..l + 16` of `a` and `b` where `m`
    // is set.
    unsafe {
        use std::arch::x86_64::*;
        let x = _mm512_maskz_loadu_ps(m, a.add(l));
        if TWO {
            let y = _mm512_maskz_loadu_ps(m, b.add(l));
            _mm512_add_ps(_mm512_mul_ps(x, v0), _mm512_mul_ps(y, v1))
        } else {
            x
        }
    }
}

/// [`wrow_body`] with 16-lane AVX-512 steps and a masked tail (separate mul and add: the
/// reference's bits).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn wrow_avx512<const TWO: bool>(
    row: *const f32,
    taps: &[(usize, usize, f32, f32)],
    n: usize,
    out: *mut f32,
    ostride: usize,
    nt: bool,
) {
    // SAFETY: AVX-512F was detected by `wrow`; full 16-lane steps end at or before `n` and the tail
    // is masked to lanes `< n`, so every access is one the caller guarantees.
    unsafe {
        use std::arch::x86_64::*;
        let full = n / 16;
        let tail: __mmask16 = ((1u32 << (n % 16)) - 1) as u16;
        for (q, &(i0, i1, w0, w1)) in taps.iter().enumerate() {
            let o = out.add(q * ostride);
            let (a, b) = (row.add(i0), row.add(i1));
            let (v0, v1) = (_mm512_set1_ps(w0), _mm512_set1_ps(w1));
            let stream = nt && (o as usize).is_multiple_of(64);
            for k in 0..full {
                let r = wrow_step16::<TWO>(a, b, (v0, v1), 0xFFFF, 16 * k);
                if stream {
                    _mm512_stream_ps(o.add(16 * k), r);
                } else {
                    _mm512_storeu_ps(o.add(16 * k), r);
                }
            }
            if tail != 0 {
                let l = 16 * full;
                // Masked-off lanes are neither read nor written.
                let r = wrow_step16::<TWO>(a, b, (v0, v1), tail, l);
                _mm512_mask_storeu_ps(o.add(l), tail, r);
            }
        }
    }
}

/// [`wrow_avx512`] into s8/u8: each 16-lane result is narrowed in registers by
/// [`super::dtype::IntStore`]'s rules (NaN to `q.nan`, clamp, round half to even, the low
/// byte of the exact integer), so there is no f32 pass between (nhwc u8 C=96 738->2213
/// linear 148 us through an f32 buffer, oneDNN 101). Pixels of 17 lanes or more end with
/// an overlapping step; shorter ones store their bytes under a mask with AVX-512BW (`BW`),
/// else through the stack (a memcpy call a pixel: nhwc u8 2x17 90x90->40x180 0.105 ms,
/// 0.068 overlapped; 2x9 same 0.073, oneDNN 0.067).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn wrow_int8_512_body<const TWO: bool, const BOUNDED: bool, const BW: bool>(
    row: *const f32,
    taps: &[(usize, usize, f32, f32)],
    n: usize,
    out: *mut u8,
    ostride: usize,
    q: super::dtype::IntStore,
) {
    // SAFETY: AVX-512F (and with `BW` AVX-512BW) is the caller's target feature; full
    // 16-lane steps end at or before `n` (the overlapping last one too), and a pixel of
    // fewer lanes is masked to lanes `< n` (masked-off lanes are neither read nor written).
    unsafe {
        use std::arch::x86_64::*;
        let int8 = |r: __m512| vectors::x86::int8_avx512::<BOUNDED>(r, q);
        let full = n / 16;
        let tail: __mmask16 = ((1u32 << (n % 16)) - 1) as u16;
        for (p, &(i0, i1, w0, w1)) in taps.iter().enumerate() {
            let o = out.add(p * ostride);
            let (a, b) = (row.add(i0), row.add(i1));
            let (v0, v1) = (_mm512_set1_ps(w0), _mm512_set1_ps(w1));
            let lerp = |m: __mmask16, l: usize| wrow_step16::<TWO>(a, b, (v0, v1), m, l);
            for k in 0..full {
                _mm_storeu_si128(o.add(16 * k) as *mut __m128i, int8(lerp(0xFFFF, 16 * k)));
            }
            if tail != 0 && full > 0 {
                let l = n - 16;
                _mm_storeu_si128(o.add(l) as *mut __m128i, int8(lerp(0xFFFF, l)));
            } else if tail != 0 && BW {
                let v = _mm512_castsi128_si512(int8(lerp(tail, 0)));
                _mm512_mask_storeu_epi8(o as *mut i8, u64::from(tail), v);
            } else if tail != 0 {
                let mut t = [0u8; 16];
                _mm_storeu_si128(t.as_mut_ptr() as *mut __m128i, int8(lerp(tail, 0)));
                std::ptr::copy_nonoverlapping(t.as_ptr(), o, n);
            }
        }
    }
}

/// The two instantiations of [`wrow_int8_512_body`]: plain AVX-512F, and with the masked
/// byte stores of AVX-512BW.
macro_rules! wrow_int8_512 {
    ($name:ident, $features:literal, $bw:literal) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        unsafe fn $name<const TWO: bool, const BOUNDED: bool>(
            row: *const f32,
            taps: &[(usize, usize, f32, f32)],
            n: usize,
            out: *mut u8,
            ostride: usize,
            q: super::dtype::IntStore,
        ) {
            // SAFETY: `wrow_narrow` detected the features; the pointer contract is passed on.
            unsafe { wrow_int8_512_body::<TWO, BOUNDED, $bw>(row, taps, n, out, ostride, q) }
        }
    };
}
wrow_int8_512!(wrow_int8_avx512, "avx512f", false);
wrow_int8_512!(wrow_int8_avx512bw, "avx512f,avx512bw", true);

/// [`wrow_avx2`] into s8/u8, narrowed in registers as [`wrow_int8_avx512`]: 16 lanes a
/// step through [`vectors::x86::int8x16_avx2`], pixels of 8 to 15 lanes in 8-lane steps;
/// a last step overlaps the one before (the same bytes again). `n >= 8`. (nCx16c u8 1x96
/// 20374->60105 linear: 3.5 ms through an f32 buffer, oneDNN 3.2.)
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn wrow_int8_avx2<const TWO: bool, const BOUNDED: bool>(
    row: *const f32,
    taps: &[(usize, usize, f32, f32)],
    n: usize,
    out: *mut u8,
    ostride: usize,
    q: super::dtype::IntStore,
) {
    // SAFETY: AVX2 was detected by `wrow_narrow`; every step reads and writes lanes
    // `l..l + 8 <= n` (or `l..l + 16 <= n`) of the caller's pixels.
    unsafe {
        use std::arch::x86_64::*;
        use vectors::x86::{int8_avx2, int8x16_avx2};
        debug_assert!(n >= 8);
        let step = if n >= 16 { 16 } else { 8 };
        for (p, &(i0, i1, w0, w1)) in taps.iter().enumerate() {
            let o = out.add(p * ostride);
            let (a, b) = (row.add(i0), row.add(i1));
            let (v0, v1) = (_mm256_set1_ps(w0), _mm256_set1_ps(w1));
            let lerp = |l: usize| {
                let x = _mm256_loadu_ps(a.add(l));
                if TWO {
                    let y = _mm256_loadu_ps(b.add(l));
                    _mm256_add_ps(_mm256_mul_ps(x, v0), _mm256_mul_ps(y, v1))
                } else {
                    x
                }
            };
            let mut next = 0;
            while next < n {
                let l = next.min(n - step);
                next += step;
                if step == 16 {
                    let r = int8x16_avx2::<BOUNDED>(lerp(l), lerp(l + 8), q);
                    _mm_storeu_si128(o.add(l) as *mut __m128i, r);
                } else {
                    _mm_storel_epi64(o.add(l) as *mut __m128i, int8_avx2::<BOUNDED>(lerp(l), q));
                }
            }
        }
    }
}

/// [`wrow_step16`] over a bf16 row: each value widened exactly (the f32 a conversion pass
/// would have stored).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn wrow_step16_bf16<const TWO: bool>(
    a: *const u16,
    b: *const u16,
    (v0, v1): (std::arch::x86_64::__m512, std::arch::x86_64::__m512),
    m: std::arch::x86_64::__mmask16,
    l: usize,
) -> std::arch::x86_64::__m512 {
    // SAFETY: the callers enable AVX-512F/BW/VL and own lanes `l..l + 16` of `a` and `b`
    // where `m` is set.
    unsafe {
        use std::arch::x86_64::*;
        let h = _mm256_maskz_loadu_epi16(m, a.add(l) as *const i16);
        let x = _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(h)));
        if TWO {
            let h = _mm256_maskz_loadu_epi16(m, b.add(l) as *const i16);
            let y = _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(h)));
            _mm512_add_ps(_mm512_mul_ps(x, v0), _mm512_mul_ps(y, v1))
        } else {
            x
        }
    }
}

/// [`wrow_avx512`] into bf16 with oneDNN's rounding in one instruction (`vcvtneps2bf16`,
/// exactly [`bf16_bits`] with oneDNN numerics, as [`store_bf16_avx512bf16`]); with `BF`, the
/// row is bf16 (`row` points at u16 values), widened as it is read.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
unsafe fn wrow_bf16_avx512<const TWO: bool, const BF: bool>(
    row: *const f32,
    taps: &[(usize, usize, f32, f32)],
    n: usize,
    out: *mut u8,
    ostride: usize,
    nt: bool,
) {
    // SAFETY: AVX-512F/BW/VL/BF16 were detected by `wrow_narrow`; full 16-lane steps end at or
    // before `n` and the tail is masked to lanes `< n` (masked-off lanes are neither read nor
    // written).
    unsafe {
        use std::arch::x86_64::*;
        let full = n / 16;
        let tail: __mmask16 = ((1u32 << (n % 16)) - 1) as u16;
        for (p, &(i0, i1, w0, w1)) in taps.iter().enumerate() {
            let o = out.add(p * ostride) as *mut u16;
            // (Only the row's own type is read: the other pair is never dereferenced.)
            let (a, b) = (row.wrapping_add(i0), row.wrapping_add(i1));
            let (h0, h1) = (
                (row as *const u16).wrapping_add(i0),
                (row as *const u16).wrapping_add(i1),
            );
            let (v0, v1) = (_mm512_set1_ps(w0), _mm512_set1_ps(w1));
            let bf16 = |m: __mmask16, l: usize| {
                let r = match BF {
                    true => wrow_step16_bf16::<TWO>(h0, h1, (v0, v1), m, l),
                    false => wrow_step16::<TWO>(a, b, (v0, v1), m, l),
                };
                std::mem::transmute::<__m256bh, __m256i>(_mm512_cvtneps_pbh(r))
            };
            let stream = nt && (o as usize).is_multiple_of(32);
            for k in 0..full {
                let (d, v) = (o.add(16 * k) as *mut __m256i, bf16(0xFFFF, 16 * k));
                if stream {
                    _mm256_stream_si256(d, v);
                } else {
                    _mm256_storeu_si256(d, v);
                }
            }
            if tail != 0 {
                let l = 16 * full;
                _mm256_mask_storeu_epi16(o.add(l) as *mut i16, tail, bf16(tail, l));
            }
        }
    }
}

/// Whether [`wrow_bf16_from_bf16`] runs here (AVX-512 with AVX512-BF16).
pub(crate) fn wrow_bf16_from_bf16_runs() -> bool {
    #[cfg(target_arch = "x86_64")]
    return isa() == Isa::Avx512 && avx512bf16();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// [`wrow_narrow`] from a bf16 row (read in place, each value widened exactly as a
/// conversion pass would) into a bf16 `dst` under oneDNN numerics: one pass over the
/// source instead of a conversion into an f32 row and a second pass (nhwc bf16 1x16
/// 205014->423178 linear: the conversion was 36% of the time, stalled on memory). Only
/// where [`wrow_bf16_from_bf16_runs`].
pub(crate) unsafe fn wrow_bf16_from_bf16(
    row: *const u16,
    taps: &[(usize, usize, f32, f32)],
    two: bool,
    n: usize,
    out: *mut u8,
    ostride: usize,
    nt: bool,
) {
    debug_assert!(wrow_bf16_from_bf16_runs());
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller checked `wrow_bf16_from_bf16_runs` (AVX-512F/BW/VL/BF16); its
    // pointer contract (each tap's `n` values in the row, each pixel's in `out`) passes on.
    unsafe {
        let row = row as *const f32;
        match two {
            true => wrow_bf16_avx512::<true, true>(row, taps, n, out, ostride, nt),
            false => wrow_bf16_avx512::<false, true>(row, taps, n, out, ostride, nt),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (row, taps, two, n, out, ostride, nt);
}

/// [`wrow`] straight into an s8/u8 or (oneDNN numerics) bf16 `dst`, pixel `q` at `out + q *
/// ostride` bytes, where the ISA narrows in registers (AVX-512; bf16 with AVX512-BF16;
/// s8/u8 on AVX2 for pixels of 8 lanes or more);
/// `false` when it does not (the caller goes through f32).
/// `bounded`: the row holds lerps of an s8/u8 source (see `vectors::x86::int8_avx512`).
/// `nt`: bf16 pixels stream their 32-byte aligned steps (16-byte s8/u8 steps streamed were
/// slower than through scratch and never stream here); call [`store_fence`] after.
pub(crate) unsafe fn wrow_narrow(
    row: *const f32,
    taps: &[(usize, usize, f32, f32)],
    two: bool,
    n: usize,
    out: *mut u8,
    ostride: usize,
    dt: DataType,
    numerics: Numerics,
    bounded: bool,
    nt: bool,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the AVX-512 variants run only when `isa()` (never above the detected ISA) is
    // AVX-512 (the bf16 one when AVX512-BF16/BW/VL were detected, the masked int8 one when
    // AVX-512BW was); the caller's pointer contract is passed on.
    unsafe {
        if isa() == Isa::Avx2 && n >= 8 {
            let Some(q) = super::dtype::IntStore::new(dt, numerics) else {
                return false;
            };
            match (dt, two, bounded) {
                (DataType::U8 | DataType::S8, true, true) => {
                    wrow_int8_avx2::<true, true>(row, taps, n, out, ostride, q)
                }
                (DataType::U8 | DataType::S8, true, false) => {
                    wrow_int8_avx2::<true, false>(row, taps, n, out, ostride, q)
                }
                (DataType::U8 | DataType::S8, false, true) => {
                    wrow_int8_avx2::<false, true>(row, taps, n, out, ostride, q)
                }
                (DataType::U8 | DataType::S8, false, false) => {
                    wrow_int8_avx2::<false, false>(row, taps, n, out, ostride, q)
                }
                _ => return false,
            }
            return true;
        }
        if isa() != Isa::Avx512 {
            return false;
        }
        if dt == DataType::Bf16 && numerics != Numerics::Ieee && avx512bf16() {
            if two {
                wrow_bf16_avx512::<true, false>(row, taps, n, out, ostride, nt);
            } else {
                wrow_bf16_avx512::<false, false>(row, taps, n, out, ostride, nt);
            }
            return true;
        }
        if let (DataType::U8 | DataType::S8, Some(q)) =
            (dt, super::dtype::IntStore::new(dt, numerics))
        {
            let a = (row, taps, n, out, ostride, q);
            match (two, bounded, n < 16 && avx512bw()) {
                (true, true, false) => wrow_int8_avx512::<true, true>(a.0, a.1, a.2, a.3, a.4, a.5),
                (true, false, false) => {
                    wrow_int8_avx512::<true, false>(a.0, a.1, a.2, a.3, a.4, a.5)
                }
                (false, true, false) => {
                    wrow_int8_avx512::<false, true>(a.0, a.1, a.2, a.3, a.4, a.5)
                }
                (false, false, false) => {
                    wrow_int8_avx512::<false, false>(a.0, a.1, a.2, a.3, a.4, a.5)
                }
                (true, true, true) => {
                    wrow_int8_avx512bw::<true, true>(a.0, a.1, a.2, a.3, a.4, a.5)
                }
                (true, false, true) => {
                    wrow_int8_avx512bw::<true, false>(a.0, a.1, a.2, a.3, a.4, a.5)
                }
                (false, true, true) => {
                    wrow_int8_avx512bw::<false, true>(a.0, a.1, a.2, a.3, a.4, a.5)
                }
                (false, false, true) => {
                    wrow_int8_avx512bw::<false, false>(a.0, a.1, a.2, a.3, a.4, a.5)
                }
            }
            return true;
        }
        false
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // Only x86 narrows in registers here.
        let _ = (row, taps, two, n, out, ostride, dt, numerics, bounded, nt);
        false
    }
}

/// [`wrow_body`] with 8-lane AVX2 steps; the tail is a last overlapping full step (it
/// rewrites lanes with the same bits) or, below 8 lanes, masked loads and stores.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn wrow_avx2<const TWO: bool>(
    row: *const f32,
    taps: &[(usize, usize, f32, f32)],
    n: usize,
    out: *mut f32,
    ostride: usize,
    nt: bool,
) {
    // SAFETY: AVX2 was detected by `wrow`; full steps end at or before `n`, the overlapping last
    // step starts at `n - 8 >= 0`, below 8 lanes only masked lanes `< n` are touched, and the mask
    // read `lanes[8 - min(n, 8)..][..8]` stays in its 16 entries.
    unsafe {
        use std::arch::x86_64::*;
        let lanes: [i32; 16] = [-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0];
        let mask = _mm256_loadu_si256(lanes.as_ptr().add(8 - n.min(8)) as *const __m256i);
        let full = n / 8;
        let last = n.saturating_sub(8);
        for (q, &(i0, i1, w0, w1)) in taps.iter().enumerate() {
            let o = out.add(q * ostride);
            let (a, b) = (row.add(i0), row.add(i1));
            let (v0, v1) = (_mm256_set1_ps(w0), _mm256_set1_ps(w1));
            let stream = nt && (o as usize).is_multiple_of(32);
            macro_rules! step {
                ($l:expr, $nt:expr) => {{
                    let x = _mm256_loadu_ps(a.add($l));
                    let r = if TWO {
                        let y = _mm256_loadu_ps(b.add($l));
                        _mm256_add_ps(_mm256_mul_ps(x, v0), _mm256_mul_ps(y, v1))
                    } else {
                        x
                    };
                    if $nt {
                        _mm256_stream_ps(o.add($l), r);
                    } else {
                        _mm256_storeu_ps(o.add($l), r);
                    }
                }};
            }
            if n >= 8 {
                for k in 0..full {
                    step!(8 * k, stream);
                }
                if !n.is_multiple_of(8) {
                    step!(last, false);
                }
            } else {
                let x = _mm256_maskload_ps(a, mask);
                let r = if TWO {
                    let y = _mm256_maskload_ps(b, mask);
                    _mm256_add_ps(_mm256_mul_ps(x, v0), _mm256_mul_ps(y, v1))
                } else {
                    x
                };
                _mm256_maskstore_ps(o, mask, r);
            }
        }
    }
}

/// [`wrow_body`] with 4-lane NEON steps (`vmulq` + `vaddq`, no fused multiply-add: the
/// reference's bits); the tail is a last overlapping step, below 4 lanes scalar code.
#[cfg(target_arch = "aarch64")]
unsafe fn wrow_neon<const TWO: bool>(
    row: *const f32,
    taps: &[(usize, usize, f32, f32)],
    n: usize,
    out: *mut f32,
    ostride: usize,
) {
    use std::arch::aarch64::*;
    if n < 4 {
        // SAFETY: `wrow_body` has this function's contract.
        return unsafe { wrow_body::<TWO>(row, taps, n, out, ostride) };
    }
    // SAFETY: NEON is baseline on aarch64; steps cover lanes `l .. l + 4` with `l + 4 <= n`
    // (the last one starts at `n - 4 >= 0`) of `row + i0`, `row + i1` and the pixel's output,
    // which the caller guarantees valid; `out` does not overlap `row`, so rewriting lanes in
    // the overlapping step stores the same bits.
    unsafe {
        for (q, &(i0, i1, w0, w1)) in taps.iter().enumerate() {
            let o = out.add(q * ostride);
            let (a, b) = (row.add(i0), row.add(i1));
            let (v0, v1) = (vdupq_n_f32(w0), vdupq_n_f32(w1));
            let step = |l: usize| {
                let x = vld1q_f32(a.add(l));
                let r = if TWO {
                    let y = vld1q_f32(b.add(l));
                    vaddq_f32(vmulq_f32(x, v0), vmulq_f32(y, v1))
                } else {
                    x
                };
                vst1q_f32(o.add(l), r);
            };
            for k in 0..n / 4 {
                step(4 * k);
            }
            if !n.is_multiple_of(4) {
                step(n - 4);
            }
        }
    }
}

/// Pixel level of a flat row (see [`wrow_body`]); `out` must not overlap `row`. With `nt`,
/// vector-aligned pixels are written with non-temporal stores (call [`store_fence`] before
/// the results are handed to another thread).
pub(crate) unsafe fn wrow(
    row: *const f32,
    taps: &[(usize, usize, f32, f32)],
    two: bool,
    n: usize,
    out: *mut f32,
    ostride: usize,
    nt: bool,
) {
    // SAFETY: the vector variants run only under an ISA `isa()` reports (never above the detected
    // one); the caller's pointer contract is passed on unchanged.
    unsafe {
        #[cfg(target_arch = "x86_64")]
        match (isa(), two) {
            (Isa::Avx512, true) => return wrow_avx512::<true>(row, taps, n, out, ostride, nt),
            (Isa::Avx512, false) => return wrow_avx512::<false>(row, taps, n, out, ostride, nt),
            (Isa::Avx2, true) => return wrow_avx2::<true>(row, taps, n, out, ostride, nt),
            (Isa::Avx2, false) => return wrow_avx2::<false>(row, taps, n, out, ostride, nt),
            _ => {}
        }
        #[cfg(target_arch = "aarch64")]
        if isa() == Isa::Neon {
            return if two {
                wrow_neon::<true>(row, taps, n, out, ostride)
            } else {
                wrow_neon::<false>(row, taps, n, out, ostride)
            };
        }
        let _ = nt;
        if two {
            wrow_body::<true>(row, taps, n, out, ostride)
        } else {
            wrow_body::<false>(row, taps, n, out, ostride)
        }
    }
}

/// Copies `bytes` bytes per pixel: pixel `q` from `src + offs[q] as usize * ssz` to
/// `dst + q * dstride` (raw nearest along the lanes), then zeroes `pad` bytes after it. With
/// `nt`, aligned pixels go out with non-temporal stores (see [`wrow`]).
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn copy_pixels(
    src: *const u8,
    offs: &[u32],
    ssz: usize,
    bytes: usize,
    dst: *mut u8,
    dstride: usize,
    pad: usize,
    nt: bool,
    raw: RawCopy,
) {
    // SAFETY: the caller guarantees `src + offs[q] as usize * ssz .. + bytes` readable and `dst + q *
    // dstride .. + bytes + pad` writable and disjoint from it; the AVX2 variant runs only when
    // detected, the NEON one on aarch64 only.
    unsafe {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn avx2<const FIX: bool, const PF: bool, const N: usize>(
            src: *const u8,
            offs: &[u32],
            ssz: usize,
            bytes: usize,
            dst: *mut u8,
            dstride: usize,
            nt: bool,
        ) {
            // SAFETY: AVX2 was detected by the caller; 32-byte steps end at or before `bytes` and
            // the overlapping last one starts at `bytes - 32 >= 0`, all within each pixel's
            // `bytes`.
            unsafe {
                use std::arch::x86_64::*;
                // 32-byte steps; the tail is one last overlapping step (same bytes again, and
                // the bf16 fixup gives the same bits again).
                // `N`: the whole steps as a constant (0: from the size): unrolled,
                // without the loop's control (most of an in-cache pixel's time). 1 thread,
                // AVX-512 machine, nhwc f32 nearest: C=20 2x20 30x30->45x45 17.9 -> 10.8 us
                // (oneDNN 14.7), C=24 8x24 28x50x10->14x25x30 0.67 -> 0.60 ms (0.63); C=17
                // 2x17 208x83->258x166 0.45 -> 0.47 (0.36-0.39, behind either way); with
                // RESAMPLE_ISA=avx2, C=12 2x12 30x30->45x45 7.3 -> 5.6 us.
                let full = if N > 0 { N } else { bytes / 32 };
                let last = bytes - 32;
                let at = (full, last, bytes, nt);
                for (q, t) in offs.iter().enumerate() {
                    let (s, d) = (src.add(*t as usize * ssz), dst.add(q * dstride));
                    if PF {
                        prefetch_pixel(src, offs, q + 4, ssz, bytes);
                    }
                    if !FIX {
                        avx2_pixel::<false, false>(s, d, at);
                        continue;
                    }
                    // The fixup changes only subnormals (|bits| 1..0x7F) and NaNs (above
                    // 0x7F80): copy as is, and only a pixel holding one again with it (the
                    // fixup was most of an in-cache bf16 pixel's time: nhwc 8x1280 8->16 at
                    // 2 threads on Zen 1, 0.19 ms where PyTorch copies in 0.11).
                    let (lo, hi) = avx2_pixel::<false, true>(s, d, at);
                    let sub = _mm256_cmpeq_epi16(_mm256_min_epu16(lo, _mm256_set1_epi16(0x7E)), lo);
                    let nan = _mm256_cmpgt_epi16(hi, _mm256_set1_epi16(0x7F80));
                    if _mm256_movemask_epi8(_mm256_or_si256(sub, nan)) != 0 {
                        if nt {
                            _mm_sfence();
                        }
                        avx2_pixel::<true, false>(s, d, at);
                    }
                }
            }
        }
        let fix = raw == RawCopy::Bf16Onednn;
        // Pixels past 64 bytes that are not whole 64-byte steps take AVX2's 32-byte ones:
        // 64-byte stores at a pixel's 4-byte alignment nearly all split lines, which Zen 4
        // pays dearly (nhwc f32 C=17 2x17 208x83->258x166 nearest 0.246 -> 0.188 ms, C=24
        // 0.207 -> 0.170; oneDNN 0.172, 0.153).
        #[cfg(target_arch = "x86_64")]
        let split = bytes > 64 && !bytes.is_multiple_of(64);
        let _ = nt; // only x86 streams
        let copied = 'copy: {
            #[cfg(target_arch = "x86_64")]
            // Pixels of 16..32 bytes take the unmasked overlapping 16-byte steps below: a
            // masked store per pixel is slow on Zen 4 (nCx16c u8 2x32 10730->21461 nearest
            // 162 us masked, oneDNN 132).
            // Pixels of 33..64 bytes, two overlapping 32-byte steps either way, take the
            // AVX2 loop's unrolled ones below: 1 thread, nhwc f32 C=12 2x12 30x30->45x45
            // nearest 8.0 us here, 5.5-6.6 there (oneDNN 7.1).
            // Pixels under 16 bytes without the fixup take two overlapping moves
            // ([`small_pixels`]) for the same reason (nhwc u8 4x12 21x33->15x99 nearest 17
            // us masked, oneDNN 14).
            if nt && packs_pixels(bytes, dstride) {
                if fix {
                    avx512_packed::<true>(src, offs, ssz, bytes, dst);
                } else {
                    avx512_packed::<false>(src, offs, ssz, bytes, dst);
                }
                break 'copy true;
            }
            #[cfg(target_arch = "x86_64")]
            if isa() == Isa::Avx512
                && avx512bw()
                && (bytes >= 16 || fix)
                && !(16..32).contains(&bytes)
                && !(33..64).contains(&bytes)
                && !split
            {
                avx512_pixels(src, offs, ssz, bytes, dst, dstride, nt, fix, 0);
                break 'copy true;
            }
            #[cfg(target_arch = "x86_64")]
            if isa() != Isa::Base && bytes >= 32 {
                // The common sizes, the fixup and the prefetch as constants (as
                // `avx512_pixels`).
                macro_rules! by_size {
                    ($fix:literal, $pf:literal) => {
                        match bytes {
                            32..=63 => avx2::<$fix, $pf, 1>,
                            64..=95 => avx2::<$fix, $pf, 2>,
                            96..=127 => avx2::<$fix, $pf, 3>,
                            _ => avx2::<$fix, $pf, 0>,
                        }
                    };
                }
                let f = match (fix, skips_pixels(offs, ssz, bytes)) {
                    (false, false) => by_size!(false, false),
                    (true, false) => by_size!(true, false),
                    (false, true) => by_size!(false, true),
                    (true, true) => by_size!(true, true),
                };
                f(src, offs, ssz, bytes, dst, dstride, nt);
                break 'copy true;
            }
            #[cfg(target_arch = "aarch64")]
            if isa() == Isa::Neon && bytes >= 16 && !fix {
                copy_pixels_neon(src, offs, ssz, bytes, dst, dstride);
                break 'copy true;
            }
            #[cfg(target_arch = "x86_64")]
            if bytes >= 16 {
                sse2_pixels(src, offs, ssz, bytes, dst, dstride, fix);
                break 'copy true;
            }
            if (1..16).contains(&bytes) && !fix {
                small_pixels(src, offs, ssz, bytes, dst, dstride);
                break 'copy true;
            }
            false
        };
        for (q, t) in offs.iter().enumerate() {
            let d = dst.add(q * dstride);
            if !copied && fix {
                copy_bf16_body(
                    src.add(*t as usize * ssz) as *const u16,
                    d as *mut u16,
                    bytes / 2,
                );
            } else if !copied {
                std::ptr::copy_nonoverlapping(src.add(*t as usize * ssz), d, bytes);
            }
            if pad > 0 {
                std::ptr::write_bytes(d.add(bytes), 0, pad);
            }
        }
    }
}

/// [`copy_pixels`] into two rows at once, the second `twin` bytes after the first (rows
/// that read the same source row: upsampling along the axis outside the pixels): each
/// pixel is loaded once and stored to both, while it is at hand, where AVX-512 copies whole
/// 64-byte steps of it; elsewhere one row after the other. Plain stores, Zen 4, in-process
/// A/B, nearest nhwc 56x56->112x112, row after row -> together: f32 2x64 119 -> 96 us at 1
/// thread (oneDNN 3.2 107), 64 -> 55 at 2 (59); 8x64 465 -> 356 at 2 (371); u8 2x64 33.0 ->
/// 28.6 at 1; ndhwc f32 8x512 8x3x4->15x9x11 349 -> 300 at 2 (296). Streamed stores gain
/// nothing (they are the limit there); 2560-byte pixels (8x1280 8x8->16x16) neither.
///
/// # Safety
/// As [`copy_pixels`] for both rows; `twin > 0`, the rows disjoint.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn copy_pixels_twice(
    src: *const u8,
    offs: &[u32],
    ssz: usize,
    bytes: usize,
    dst: *mut u8,
    dstride: usize,
    twin: usize,
    nt: bool,
    raw: RawCopy,
) {
    // SAFETY: the caller's, for each row.
    unsafe {
        #[cfg(target_arch = "x86_64")]
        if isa() == Isa::Avx512
            && avx512bw()
            && bytes.is_multiple_of(64)
            && (!nt
                || ((dst as usize).is_multiple_of(64)
                    && dstride.is_multiple_of(64)
                    && twin.is_multiple_of(64)))
        {
            let fix = raw == RawCopy::Bf16Onednn;
            avx512_pixels(src, offs, ssz, bytes, dst, dstride, nt, fix, twin);
            return;
        }
        for d in [dst, dst.add(twin)] {
            copy_pixels(src, offs, ssz, bytes, d, dstride, 0, nt, raw);
        }
    }
}

/// Whether [`copy_pixels`] streams pixels of `bytes`, `dstride` apart, as whole aligned
/// lines ([`avx512_packed`]): back-to-back pixels past 64 bytes that are not whole 32-byte
/// steps, with AVX-512 byte permutes. Whole 32-byte steps stream as they are, which kept
/// the lead (nhwc f32 C=24 8x24 28x50x10->14x25x30 nearest: 0.45 ms, 0.55 as lines), and
/// written plain the pixels' vector steps keep it while the output stays cached (1 thread,
/// Sapphire Rapids, nearest, steps -> lines, ms: nhwc f32 C=24 4x24 50x50->100x100 0.174 ->
/// 0.216, C=20 2x20 30x30->45x45 0.0088 -> 0.0112).
pub(crate) fn packs_pixels(bytes: usize, dstride: usize) -> bool {
    cfg!(target_arch = "x86_64")
        && byte_permutes()
        && dstride == bytes
        && bytes > 64
        && !bytes.is_multiple_of(32)
}

/// Back-to-back raw pixels (`bytes` each, past 64) streamed as the aligned 64-byte lines of
/// their row, one store each: a line inside one pixel is one load, a line across two is
/// the first one's last 64 bytes and the second one's first 64 joined by one byte permute.
/// The row's partial first and last lines are gathered by masked loads and stored masked
/// (plain). Pixel by pixel in vector steps, most stores split lines and cannot stream (1
/// thread, Sapphire Rapids, nearest, ms, steps -> lines: nhwc f32 C=17 2x17
/// 98x154->197x307 0.55 -> 0.42, 4x17 300x300->600x600 12.1 -> 5.9, 1x17 1000x300->500x600
/// 2.67 -> 1.25; bf16 C=36 1x36 256x256->512x512 1.07 -> 0.93; oneDNN 0.46, 12.8, 1.43,
/// 1.13).
///
/// # Safety
/// As [`copy_pixels`], with `dstride == bytes > 64`; AVX-512F/BW/VBMI present.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn avx512_packed<const FIX: bool>(
    src: *const u8,
    offs: &[u32],
    ssz: usize,
    bytes: usize,
    dst: *mut u8,
) {
    use std::arch::x86_64::*;
    debug_assert!(bytes > 64);
    let pixel = |q: usize| src.wrapping_add(offs[q] as usize * ssz);
    let total = offs.len() * bytes;
    let fix = |v: __m512i| {
        if FIX {
            // SAFETY: register operations (AVX-512F/BW enabled here); pixels hold whole bf16.
            unsafe { bf16_fix_avx512(v) }
        } else {
            v
        }
    };
    // Bytes `o..o + n` (`n <= 64`, inside one line) from pixel `q`'s byte `a` on, as the
    // lanes of their line, stored masked; returns the pixel and byte after them.
    let partial = |o: usize, n: usize, (mut q, mut a): (usize, usize)| {
        let head = (dst as usize).wrapping_add(o) % 64;
        let lanes = |from: usize, k: usize| (u64::MAX >> (64 - k)) << from;
        let mut v = _mm512_setzero_si512();
        let mut filled = 0;
        while filled < n {
            let take = (bytes - a).min(n - filled);
            // Byte `a` of pixel `q` lands on lane `head + filled`.
            let at = pixel(q).wrapping_add(a).wrapping_sub(head + filled);
            // SAFETY: the lanes read are bytes `a..a + take` of pixel `q` (readable: the
            // caller's); masked-off lanes do not fault.
            v = unsafe { _mm512_mask_loadu_epi8(v, lanes(head + filled, take), at as *const i8) };
            filled += take;
            a += take;
            if a == bytes {
                (q, a) = (q + 1, 0);
            }
        }
        let line = dst.wrapping_add(o).wrapping_sub(head);
        // SAFETY: the store touches bytes `o..o + n` of the row only (writable: the caller's).
        unsafe { _mm512_mask_storeu_epi8(line as *mut i8, lanes(head, n), fix(v)) };
        (q, a)
    };
    let first = (64 - (dst as usize) % 64) % 64;
    let mut o = first.min(total);
    let (mut q, mut a) = if o > 0 { partial(0, o, (0, 0)) } else { (0, 0) };
    let iota = _mm512_set_epi8(
        63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41,
        40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18,
        17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
    );
    while o + 64 <= total {
        // SAFETY: every load lies inside one pixel (`bytes > 64`): bytes `a..a + 64` of
        // pixel `q`, or its last 64 and the first 64 of pixel `q + 1` (which the line
        // reaches, so it exists); the store is the aligned line at `o` of the row.
        unsafe {
            let v = if a + 64 <= bytes {
                let v = _mm512_loadu_si512(pixel(q).add(a) as *const _);
                a += 64;
                v
            } else {
                // Lane `i` takes byte `64 - k + i` of the pair: the first's last `k` bytes,
                // then the second's first ones.
                let k = bytes - a;
                let tail = _mm512_loadu_si512(pixel(q).add(bytes - 64) as *const _);
                let next = _mm512_loadu_si512(pixel(q + 1) as *const _);
                let idx = _mm512_add_epi8(iota, _mm512_set1_epi8((64 - k) as i8));
                (q, a) = (q + 1, 64 - k);
                _mm512_permutex2var_epi8(tail, idx, next)
            };
            if a == bytes {
                (q, a) = (q + 1, 0);
            }
            _mm512_stream_si512(dst.add(o) as *mut _, fix(v));
        }
        o += 64;
    }
    if o < total {
        partial(o, total - o, (q, a));
    }
}

/// Whether raw pixels skip more than one source pixel in three (downsampling by more than
/// 1.5): their copies then ask for the pixel four ahead, as the hardware prefetcher lost
/// the gapped stream (nwc f32 C=96 77012->38506: 1.14 -> 0.80 ms on AVX-512, 1.12 -> 0.69
/// on AVX2; oneDNN 1.01). Below, it lost (AVX2 nhwc f32 2x64 387x388->275x276: 2.73 ->
/// 3.01), and where pixels repeat it only costs (nhwc C=16..24 upsampling: 15% slower), as
/// any test inside those loops does.
#[cfg(target_arch = "x86_64")]
fn skips_pixels(offs: &[u32], ssz: usize, bytes: usize) -> bool {
    match (offs.first(), offs.last()) {
        (Some(a), Some(b)) => {
            2 * (*b as usize).saturating_sub(*a as usize) * ssz > 3 * offs.len() * bytes
        }
        _ => false,
    }
}

/// Asks for the `bytes` from `src` (every line they touch) ahead of their use, into L1, or
/// into L2 only with `L2` (data coming from memory, where requests into L1 can hold up the
/// loads they run ahead of: see `bwd_twice`'s `Ahead`); nothing off x86-64.
#[inline]
pub(crate) fn prefetch_span<const L2: bool>(src: *const u8, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0, _MM_HINT_T1};
        let end = src.wrapping_add(bytes);
        let mut a = src.wrapping_sub(src as usize % 64);
        while a < end {
            // SAFETY: a prefetch never faults and reads nothing into the program.
            unsafe {
                match L2 {
                    true => _mm_prefetch::<_MM_HINT_T1>(a as *const i8),
                    false => _mm_prefetch::<_MM_HINT_T0>(a as *const i8),
                }
            };
            a = a.wrapping_add(64);
        }
    }
    let _ = (src, bytes);
}

/// [`prefetch_span`] with the hint chosen at run time: into L2 only (`l2`) or into L1 too.
#[inline(always)]
pub(crate) fn prefetch_span_in(l2: bool, src: *const u8, bytes: usize) {
    match l2 {
        true => prefetch_span::<true>(src, bytes),
        false => prefetch_span::<false>(src, bytes),
    }
}

/// Asks for the first and last line of raw pixel `q` (if any) ahead of its copy.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn prefetch_pixel(src: *const u8, offs: &[u32], q: usize, ssz: usize, bytes: usize) {
    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
    if let Some(ahead) = offs.get(q) {
        let a = src.wrapping_add(*ahead as usize * ssz);
        // SAFETY: a prefetch never faults and reads nothing into the program.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(a as *const i8);
            _mm_prefetch::<_MM_HINT_T0>(a.wrapping_add(bytes - 1) as *const i8);
        }
    }
}

/// [`copy_pixels`] on AVX-512BW: 64-byte steps, a 32-byte step, one masked step for the
/// rest, so a pixel of any size is whole-vector loads and stores (C=12 f32: a 32-byte and a
/// masked 16-byte step where AVX2 took two overlapping ones); `nt` streams the 64-byte aligned full steps, `fix`
/// applies the bf16 fixup in registers (32 lanes a step: nwc bf16 C=256 2x9146->3567 in
/// 256-bit steps 0.196 ms, now 0.118, oneDNN 0.140).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
#[allow(clippy::too_many_arguments)]
unsafe fn avx512_pixels(
    src: *const u8,
    offs: &[u32],
    ssz: usize,
    bytes: usize,
    dst: *mut u8,
    dstride: usize,
    nt: bool,
    fix: bool,
    twin: usize,
) {
    // SAFETY: the caller's contract, passed on; AVX-512F/BW enabled here.
    unsafe {
        // The common pixel sizes with the size and the fixup known: a pixel is then one
        // load, (fixup,) one store, with no per-pixel tests (nwc bf16 C=16 2x5224->1741:
        // 6.5 us with them, oneDNN 5.0); the whole 64-byte steps of C = 32, 64 and 128 f32
        // unrolled, without the step loop's control (1 thread, Zen 4, nhwc f32 nearest
        // 1x32 56x56->112x112 33.4 -> 27.9 us, 1x64 63.9 -> 60.0; oneDNN 26.8, 53.7).
        let a = (src, offs, ssz, bytes, dst, dstride, nt, twin);
        match (fix, bytes, skips_pixels(offs, ssz, bytes)) {
            (false, 32, false) => avx512_pixels_by::<false, 32, false>(a),
            (true, 32, false) => avx512_pixels_by::<true, 32, false>(a),
            (false, 64, false) => avx512_pixels_by::<false, 64, false>(a),
            (true, 64, false) => avx512_pixels_by::<true, 64, false>(a),
            (false, 128, false) => avx512_pixels_by::<false, 128, false>(a),
            (true, 128, false) => avx512_pixels_by::<true, 128, false>(a),
            (false, 256, false) => avx512_pixels_by::<false, 256, false>(a),
            (true, 256, false) => avx512_pixels_by::<true, 256, false>(a),
            (false, 512, false) => avx512_pixels_by::<false, 512, false>(a),
            (false, _, false) => avx512_pixels_by::<false, 0, false>(a),
            (true, _, false) => avx512_pixels_by::<true, 0, false>(a),
            (false, 32, true) => avx512_pixels_by::<false, 32, true>(a),
            (true, 32, true) => avx512_pixels_by::<true, 32, true>(a),
            (false, 64, true) => avx512_pixels_by::<false, 64, true>(a),
            (true, 64, true) => avx512_pixels_by::<true, 64, true>(a),
            (false, _, true) => avx512_pixels_by::<false, 0, true>(a),
            (true, _, true) => avx512_pixels_by::<true, 0, true>(a),
        }
    }
}

/// [`avx512_pixels`] with the fixup fixed, unless `B == 0` `B` bytes per pixel, and with
/// `PF` a prefetch of the pixel four ahead.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(clippy::type_complexity)]
unsafe fn avx512_pixels_by<const FIX: bool, const B: usize, const PF: bool>(
    (src, offs, ssz, bytes, dst, dstride, nt, twin): (
        *const u8,
        &[u32],
        usize,
        usize,
        *mut u8,
        usize,
        bool,
        usize,
    ),
) {
    // SAFETY: AVX-512F/BW are enabled by the only caller, `avx512_pixels`; full steps end at
    // or before `bytes`, the overlapping last ones start at `bytes - 64 >= 0` (`full > 0`)
    // or `bytes - 32 >= 0` (`half`), the masked step touches only bytes below `bytes` (masked-off bytes
    // are neither read nor written), inside each pixel the caller guarantees readable at
    // `src + offs[q] as usize * ssz` and writable (disjoint) at `dst + q * dstride`.
    unsafe {
        use std::arch::x86_64::*;
        let bytes = if B == 0 { bytes } else { B };
        let full = bytes / 64;
        // Masked stores are slow on Zen 4: from 32 bytes on, a pixel's tail is instead its
        // last whole 64- or 32-byte vector again, overlapping the previous one (the same
        // bytes again; the fixup gives the same bits again). nwc f32 C=17 8x12573->6286
        // nearest: 166 us with a masked 4-byte tail per pixel, oneDNN 129.
        let last64 = full > 0 && !bytes.is_multiple_of(64);
        let half = full == 0 && bytes >= 32;
        let rem = if bytes >= 32 { 0 } else { bytes };
        let mask: __mmask64 = if rem == 0 { 0 } else { (1u64 << rem) - 1 };
        let ld = |v: __m512i| if FIX { bf16_fix_avx512(v) } else { v };
        let mut first = 0;
        if FIX && B == 32 && !nt && twin == 0 {
            // Two 32-byte pixels fixed up in one vector (the fixup was most of a pixel's
            // work), stored as two halves or, back to back, as one. 1 thread, Xeon, us:
            // nCx16c bf16 1x16 37x149->98x74 13.0 -> 9.0 (oneDNN 10.8), 4x16 81x49->106x98
            // 49 -> 39, 1x16 222x461->443x230 239 -> 223; nwc 2x16 5224->1741 5.3 -> 3.9.
            let mut q = 0;
            while q + 2 <= offs.len() {
                if PF {
                    prefetch_pixel(src, offs, q + 4, ssz, bytes);
                    prefetch_pixel(src, offs, q + 5, ssz, bytes);
                }
                let s0 = src.add(offs[q] as usize * ssz) as *const __m256i;
                let s1 = src.add(offs[q + 1] as usize * ssz) as *const __m256i;
                let v = _mm512_inserti64x4::<1>(
                    _mm512_castsi256_si512(_mm256_loadu_si256(s0)),
                    _mm256_loadu_si256(s1),
                );
                let v = bf16_fix_avx512(v);
                let d = dst.add(q * dstride);
                if dstride == 32 {
                    _mm512_storeu_si512(d as *mut _, v);
                } else {
                    _mm256_storeu_si256(d as *mut __m256i, _mm512_castsi512_si256(v));
                    let d1 = d.add(dstride) as *mut __m256i;
                    _mm256_storeu_si256(d1, _mm512_extracti64x4_epi64::<1>(v));
                }
                q += 2;
            }
            first = q;
        }
        for (q, t) in offs.iter().enumerate().skip(first) {
            let (s, d) = (src.add(*t as usize * ssz), dst.add(q * dstride));
            if PF {
                prefetch_pixel(src, offs, q + 4, ssz, bytes);
            }
            if twin > 0 {
                // Both rows from one load (whole 64-byte steps only: see `copy_pixels_twice`).
                let d2 = d.add(twin);
                for k in 0..full {
                    let v = ld(_mm512_loadu_si512(s.add(64 * k) as *const _));
                    if nt {
                        _mm512_stream_si512(d.add(64 * k) as *mut _, v);
                        _mm512_stream_si512(d2.add(64 * k) as *mut _, v);
                    } else {
                        _mm512_storeu_si512(d.add(64 * k) as *mut _, v);
                        _mm512_storeu_si512(d2.add(64 * k) as *mut _, v);
                    }
                }
                continue;
            }
            if nt && (d as usize).is_multiple_of(64) {
                for k in 0..full {
                    let v = ld(_mm512_loadu_si512(s.add(64 * k) as *const _));
                    _mm512_stream_si512(d.add(64 * k) as *mut _, v);
                }
            } else {
                for k in 0..full {
                    let v = ld(_mm512_loadu_si512(s.add(64 * k) as *const _));
                    _mm512_storeu_si512(d.add(64 * k) as *mut _, v);
                }
            }
            if last64 {
                let v = ld(_mm512_loadu_si512(s.add(bytes - 64) as *const _));
                _mm512_storeu_si512(d.add(bytes - 64) as *mut _, v);
            }
            if half {
                let ld32 = |at: usize| {
                    let v = _mm256_loadu_si256(s.add(at) as *const __m256i);
                    if FIX {
                        bf16_fix_avx2(v)
                    } else {
                        v
                    }
                };
                let (a, b) = (ld32(0), ld32(bytes - 32));
                if nt && bytes == 32 && (d as usize).is_multiple_of(32) {
                    _mm256_stream_si256(d as *mut __m256i, a);
                } else {
                    _mm256_storeu_si256(d as *mut __m256i, a);
                }
                if bytes > 32 {
                    _mm256_storeu_si256(d.add(bytes - 32) as *mut __m256i, b);
                }
            }
            if rem != 0 {
                // Masked-off lanes load as zero, which the fixup leaves zero.
                let v = ld(_mm512_maskz_loadu_epi8(mask, s as *const i8));
                _mm512_mask_storeu_epi8(d as *mut i8, mask, v);
            }
        }
    }
}

/// [`copy_pixels`] for pixels of 16..32 bytes (and on the base ISA): 16-byte SSE2 steps,
/// the tail one last overlapping step, with the bf16 fixup when `FIX` — one loop over all
/// pixels instead of a copy call per pixel (nwc bf16 C=8: 0.96 ms per-pixel, oneDNN 0.35).
/// `FIX` and one whole step (`ONE`, 16..31 bytes) as constants: a test per load and the
/// step loop's control were most of a small pixel's time (nhwc bf16 4x12 21x33->15x99
/// nearest 19 us, oneDNN 13).
#[cfg(target_arch = "x86_64")]
unsafe fn sse2_pixels(
    src: *const u8,
    offs: &[u32],
    ssz: usize,
    bytes: usize,
    dst: *mut u8,
    dstride: usize,
    fix: bool,
) {
    #[inline(always)]
    unsafe fn run<const FIX: bool, const ONE: bool>(
        src: *const u8,
        offs: &[u32],
        ssz: usize,
        bytes: usize,
        dst: *mut u8,
        dstride: usize,
    ) {
        // SAFETY: SSE2 is part of x86_64; steps end at or before `bytes` and the last
        // starts at `bytes - 16 >= 0`, inside each pixel's `bytes`, which the caller
        // guarantees readable at `src + offs[q] as usize * ssz` and writable (disjoint) at `dst + q
        // * dstride`.
        unsafe {
            use std::arch::x86_64::*;
            macro_rules! ld {
                ($p:expr) => {{
                    let v = _mm_loadu_si128($p as *const __m128i);
                    if FIX {
                        bf16_fix_sse2(v)
                    } else {
                        v
                    }
                }};
            }
            let full = if ONE { 1 } else { bytes / 16 };
            for (q, t) in offs.iter().enumerate() {
                let (s, d) = (src.add(*t as usize * ssz), dst.add(q * dstride));
                for k in 0..full {
                    _mm_storeu_si128(d.add(16 * k) as *mut __m128i, ld!(s.add(16 * k)));
                }
                if !bytes.is_multiple_of(16) {
                    _mm_storeu_si128(d.add(bytes - 16) as *mut __m128i, ld!(s.add(bytes - 16)));
                }
            }
        }
    }
    // The fixup's pixels under AVX2 too: the same SSE steps VEX-encoded, three operands
    // instead of a register copy before each destructive one (nhwc bf16 4x12 21x33->15x99
    // nearest 18.8 -> 14.6 us, oneDNN 14.2; 2x15 100x100->150x150 143 -> 106, 102).
    #[target_feature(enable = "avx2")]
    unsafe fn fix_vex(
        src: *const u8,
        offs: &[u32],
        ssz: usize,
        bytes: usize,
        dst: *mut u8,
        dstride: usize,
    ) {
        // SAFETY: AVX2 was detected by the caller; the contract is passed on.
        unsafe {
            match bytes < 32 {
                true => run::<true, true>(src, offs, ssz, bytes, dst, dstride),
                false => run::<true, false>(src, offs, ssz, bytes, dst, dstride),
            }
        }
    }
    // SAFETY: the caller's contract, passed on (`bytes >= 16`); the AVX2 variant runs only
    // where `isa()` (never above the detected ISA) has AVX2.
    unsafe {
        let a = (src, offs, ssz, bytes, dst, dstride);
        if fix && isa() >= Isa::Avx2 {
            return fix_vex(a.0, a.1, a.2, a.3, a.4, a.5);
        }
        match (fix, bytes < 32) {
            (false, false) => run::<false, false>(a.0, a.1, a.2, a.3, a.4, a.5),
            (false, true) => run::<false, true>(a.0, a.1, a.2, a.3, a.4, a.5),
            (true, false) => run::<true, false>(a.0, a.1, a.2, a.3, a.4, a.5),
            (true, true) => run::<true, true>(a.0, a.1, a.2, a.3, a.4, a.5),
        }
    }
}

/// [`copy_pixels`] for pixels of 1..16 bytes without a fixup: two overlapping moves of the
/// widest power of two that fits, instead of a `memcpy` call per pixel (nhwc u8 4x12
/// 21x33->15x99 nearest 16.4 us, oneDNN 14.9).
unsafe fn small_pixels(
    src: *const u8,
    offs: &[u32],
    ssz: usize,
    bytes: usize,
    dst: *mut u8,
    dstride: usize,
) {
    #[inline(always)]
    unsafe fn run<T: Copy>(
        src: *const u8,
        offs: &[u32],
        ssz: usize,
        bytes: usize,
        dst: *mut u8,
        dstride: usize,
    ) {
        let w = std::mem::size_of::<T>();
        // SAFETY: `w <= bytes < 2w`: both moves lie in each pixel's `bytes`, which the caller
        // guarantees readable at `src + offs[q] as usize * ssz` and writable (disjoint) at `dst + q
        // * dstride`; unaligned reads and writes of plain integers.
        unsafe {
            for (q, t) in offs.iter().enumerate() {
                let (s, d) = (src.add(*t as usize * ssz), dst.add(q * dstride));
                let (a, b) = (
                    (s as *const T).read_unaligned(),
                    (s.add(bytes - w) as *const T).read_unaligned(),
                );
                (d as *mut T).write_unaligned(a);
                (d.add(bytes - w) as *mut T).write_unaligned(b);
            }
        }
    }
    // SAFETY: the caller's contract, passed on (`1 <= bytes < 16`).
    unsafe {
        let a = (src, offs, ssz, bytes, dst, dstride);
        match bytes {
            8.. => run::<u64>(a.0, a.1, a.2, a.3, a.4, a.5),
            4.. => run::<u32>(a.0, a.1, a.2, a.3, a.4, a.5),
            2.. => run::<u16>(a.0, a.1, a.2, a.3, a.4, a.5),
            _ => run::<u8>(a.0, a.1, a.2, a.3, a.4, a.5),
        }
    }
}

/// One pixel of [`copy_pixels`]' AVX2 loop (`(whole 32-byte steps, last step's offset,
/// bytes, stream)`): its lanes fixed up (`F`) or copied as they are; with `C` the copied
/// lanes' (min of |bits| - 1, max of |bits|) as u16.
///
/// # Safety
/// AVX2 is enabled in the caller (inlined there); as for `copy_pixels`, `bytes >= 32`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn avx2_pixel<const F: bool, const C: bool>(
    s: *const u8,
    d: *mut u8,
    (full, last, bytes, nt): (usize, usize, usize, bool),
) -> (std::arch::x86_64::__m256i, std::arch::x86_64::__m256i) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's.
    unsafe {
        let (mut lo, mut hi) = (_mm256_set1_epi16(-1), _mm256_setzero_si256());
        // A macro, not a closure: the closure was outlined without AVX2, its intrinsics
        // then calls.
        macro_rules! ld {
            ($p:expr) => {{
                let v = _mm256_loadu_si256($p as *const __m256i);
                if C {
                    let mag = _mm256_and_si256(v, _mm256_set1_epi16(0x7FFF));
                    lo = _mm256_min_epu16(lo, _mm256_sub_epi16(mag, _mm256_set1_epi16(1)));
                    hi = _mm256_max_epu16(hi, mag);
                }
                if F {
                    bf16_fix_avx2(v)
                } else {
                    v
                }
            }};
        }
        if nt && (d as usize).is_multiple_of(32) {
            for k in 0..full {
                _mm256_stream_si256(d.add(32 * k) as *mut __m256i, ld!(s.add(32 * k)));
            }
        } else {
            for k in 0..full {
                _mm256_storeu_si256(d.add(32 * k) as *mut __m256i, ld!(s.add(32 * k)));
            }
        }
        if !bytes.is_multiple_of(32) {
            _mm256_storeu_si256(d.add(last) as *mut __m256i, ld!(s.add(last)));
        }
        (lo, hi)
    }
}

/// [`copy_pixels`]' NEON path (`bytes >= 16`): 16-byte steps, the tail one last overlapping
/// step (the same bytes again).
#[cfg(target_arch = "aarch64")]
unsafe fn copy_pixels_neon(
    src: *const u8,
    offs: &[u32],
    ssz: usize,
    bytes: usize,
    dst: *mut u8,
    dstride: usize,
) {
    use std::arch::aarch64::*;
    // SAFETY: NEON is baseline on aarch64; steps end at or before `bytes` and the last one
    // starts at `bytes - 16 >= 0`, inside each pixel's `bytes` that the caller guarantees
    // readable at `src + offs[q] as usize * ssz` and writable (disjoint) at `dst + q * dstride`.
    unsafe {
        for (q, t) in offs.iter().enumerate() {
            let (s, d) = (src.add(*t as usize * ssz), dst.add(q * dstride));
            for k in 0..bytes / 16 {
                vst1q_u8(d.add(16 * k), vld1q_u8(s.add(16 * k)));
            }
            if !bytes.is_multiple_of(16) {
                vst1q_u8(d.add(bytes - 16), vld1q_u8(s.add(bytes - 16)));
            }
        }
    }
}

/// Copies `n` bytes from `src` to `dst`, which sit at the same address modulo 64: plain
/// copies up to the first cache-line boundary and after the last, non-temporal stores for
/// the whole lines between (call [`store_fence`] before handing the results over). Lets a
/// row computed into a matching scratch buffer stream to a destination at any address:
/// streaming pixel by pixel leaves partial lines whose plain stores cost as much as not
/// streaming at all (nhwc 8x64 linear 56->112 at a 16-byte offset: 3.9 ms either way,
/// 1.6-1.8 ms through scratch, 1.1 ms aligned). Raw nearest copies gain nothing from it
/// (1.5-1.6 ms at a 16-byte offset, 1.0 ms aligned, with or without).
pub(crate) unsafe fn stream_copy(src: *const u8, dst: *mut u8, n: usize) {
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn avx2(src: *const u8, dst: *mut u8, n: usize) {
        // SAFETY: AVX2 was detected by the caller; every access is within the `n` bytes at
        // `src` / `dst` (head, whole lines, tail).
        unsafe {
            use std::arch::x86_64::*;
            let h = ((64 - dst as usize % 64) % 64).min(n);
            // (No empty heads or tails: a zero-length libc call may still touch `dst`, and
            // a line with streamed stores pending then waits for them.)
            if h > 0 {
                std::ptr::copy_nonoverlapping(src, dst, h);
            }
            let lines = (n - h) / 64;
            for k in 0..lines {
                let (s, d) = (src.add(h + 64 * k), dst.add(h + 64 * k));
                let (x, y) = (
                    _mm256_loadu_si256(s as *const __m256i),
                    _mm256_loadu_si256(s.add(32) as *const __m256i),
                );
                _mm256_stream_si256(d as *mut __m256i, x);
                _mm256_stream_si256(d.add(32) as *mut __m256i, y);
            }
            let done = h + 64 * lines;
            if done < n {
                std::ptr::copy_nonoverlapping(src.add(done), dst.add(done), n - done);
            }
        }
    }
    // SAFETY: the AVX2 variant runs only when `isa()` says the CPU has it; the caller
    // guarantees `n` readable bytes at `src`, `n` writable ones at `dst`, not overlapping.
    unsafe {
        #[cfg(target_arch = "x86_64")]
        if matches!(isa(), Isa::Avx2 | Isa::Avx512) {
            return avx2(src, dst, n);
        }
        std::ptr::copy_nonoverlapping(src, dst, n)
    }
}

/// Zeroes `n` bytes at `dst` as [`stream_copy`] writes them: plain stores to the first line
/// boundary and after the last, non-temporal ones between (call [`store_fence`] after).
/// Rows that no output reads in a streamed backward went through the cache with a read
/// for ownership each (nhwc f32 1x3 1080x1920 <- 540x960 nearest: half its rows).
pub(crate) unsafe fn stream_zero(dst: *mut u8, n: usize) {
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn avx2(dst: *mut u8, n: usize) {
        // SAFETY: AVX2 was detected by the caller; every store is within the `n` bytes at
        // `dst` (head, whole lines, tail).
        unsafe {
            use std::arch::x86_64::*;
            let h = ((64 - dst as usize % 64) % 64).min(n);
            if h > 0 {
                std::ptr::write_bytes(dst, 0, h);
            }
            let lines = (n - h) / 64;
            let z = _mm256_setzero_si256();
            for k in 0..lines {
                let d = dst.add(h + 64 * k);
                _mm256_stream_si256(d as *mut __m256i, z);
                _mm256_stream_si256(d.add(32) as *mut __m256i, z);
            }
            let done = h + 64 * lines;
            if done < n {
                std::ptr::write_bytes(dst.add(done), 0, n - done);
            }
        }
    }
    // SAFETY: the AVX2 variant runs only when `isa()` says the CPU has it; the caller
    // guarantees `n` writable bytes at `dst`.
    unsafe {
        #[cfg(target_arch = "x86_64")]
        if matches!(isa(), Isa::Avx2 | Isa::Avx512) {
            return avx2(dst, n);
        }
        std::ptr::write_bytes(dst, 0, n)
    }
}

/// A pointer into `buf` (grown to hold `n` elements past it) at the same address as `dst`
/// modulo 64 (rounded down to a `T`), for [`stream_copy`].
pub(crate) fn scratch_like<T: super::aligned::Elem>(
    buf: &mut super::aligned::AlignedBuf<T>,
    dst: *const u8,
    n: usize,
) -> *mut T {
    let sz = std::mem::size_of::<T>();
    scratch_bytes_like(buf, dst.wrapping_sub(dst as usize % sz), n * sz) as *mut T
}

/// A byte pointer into `buf` (grown to hold `bytes` past it) at the same address as `dst`
/// modulo 64, for [`stream_copy`] of values of any type.
pub(crate) fn scratch_bytes_like<T: super::aligned::Elem>(
    buf: &mut super::aligned::AlignedBuf<T>,
    dst: *const u8,
    bytes: usize,
) -> *mut u8 {
    let sz = std::mem::size_of::<T>();
    let n = bytes.div_ceil(sz) + 64 / sz;
    if buf.len() < n {
        buf.resize(n);
    }
    // The buffer starts on a line, so dst's offset within its line is the shift.
    // SAFETY: the shift is below 64 bytes and the buffer holds `bytes` + 64 bytes.
    unsafe { (buf.as_mut_ptr() as *mut u8).add(dst as usize % 64) }
}

/// Orders earlier non-temporal stores before later stores (a no-op without them).
pub(crate) fn store_fence() {
    #[cfg(target_arch = "x86_64")]
    if isa() != Isa::Base {
        // SAFETY: SSE is part of x86_64.
        unsafe { std::arch::x86_64::_mm_sfence() };
    }
}

/// Backward accumulation over contiguous lanes: `acc[l] += ((x[l] * w0) * w1) * w2` with
/// `M` weights (0 = nearest: plain sum).
#[inline(always)]
unsafe fn accumulate_body<S: Src, const M: usize>(
    src: *const u8,
    off: usize,
    w: &[f32; 3],
    acc: &mut [f32],
) {
    // SAFETY: the caller guarantees `src + off + l` is a readable element for `l < acc.len()`.
    unsafe {
        let [w0, w1, w2] = *w;
        for (l, a) in acc.iter_mut().enumerate() {
            let x = S::get(src, off + l);
            *a += match M {
                0 => x,
                1 => x * w0,
                2 => (x * w0) * w1,
                _ => ((x * w0) * w1) * w2,
            };
        }
    }
}

multiversion!(accumulate, accumulate_body, (src: *const u8, off: usize, w: &[f32; 3], acc: &mut [f32]));

/// The lanes of a [`wsum`]: `out.len()` contiguous elements, or these columns.
#[derive(Clone, Copy)]
pub(crate) enum Lanes<'a> {
    From(usize),
    Cols(&'a [u32]),
}

/// Weighted sum of rows in tap order: `out[l] = Σ_t x_t[l] * w[t]` with `x_t[l]` the element
/// at `offs[t] + at(l)` (the first product starts the sum, no `0 +`). Taps go four to a pass
/// over `out`, each lane's additions in the same order.
#[inline(always)]
unsafe fn wsum_body<S: Src>(
    src: *const u8,
    offs: &[usize],
    w: &[f32],
    lanes: Lanes,
    out: &mut [f32],
) {
    match lanes {
        // SAFETY: the caller's contract, for these lanes.
        Lanes::From(l0) => unsafe { wsum_at::<S>(src, offs, w, |l| l0 + l, out) },
        Lanes::Cols(c) => {
            let c = &c[..out.len()];
            // SAFETY: as above; `l < out.len() == c.len()`.
            unsafe { wsum_at::<S>(src, offs, w, |l| *c.get_unchecked(l) as usize, out) }
        }
    }
}

#[inline(always)]
unsafe fn wsum_at<S: Src>(
    src: *const u8,
    offs: &[usize],
    w: &[f32],
    at: impl Fn(usize) -> usize + Copy,
    out: &mut [f32],
) {
    // SAFETY: the caller guarantees `src + offs[t] + at(l)` is a readable element for every
    // tap `t` and `l < out.len()`.
    unsafe {
        let k = offs.len().min(w.len());
        // Tap `t` of lane `l`, its row offset and weight read once per pass.
        let tap = |t: usize| {
            let (o, wt) = (offs[t], w[t]);
            move |l: usize| S::get(src, o + at(l)) * wt
        };
        let mut t = 1;
        match k {
            0 => return out.fill(0.0),
            1 => {
                let a = tap(0);
                out.iter_mut().enumerate().for_each(|(l, v)| *v = a(l));
            }
            _ => {
                let (a, b) = (tap(0), tap(1));
                out.iter_mut()
                    .enumerate()
                    .for_each(|(l, v)| *v = a(l) + b(l));
                t = 2;
            }
        }
        while t + 4 <= k {
            let (a, b, c, d) = (tap(t), tap(t + 1), tap(t + 2), tap(t + 3));
            for (l, v) in out.iter_mut().enumerate() {
                *v = (((*v + a(l)) + b(l)) + c(l)) + d(l);
            }
            t += 4;
        }
        while t < k {
            let a = tap(t);
            out.iter_mut().enumerate().for_each(|(l, v)| *v += a(l));
            t += 1;
        }
    }
}

/// [`wsum_body`] for this CPU's vectors and element type `dt`: `out[l]` sums the taps of
/// lane `l` of `lanes`.
///
/// # Safety
/// As `wsum_body`.
pub(crate) unsafe fn wsum(
    dt: DataType,
    src: *const u8,
    offs: &[usize],
    w: &[f32],
    lanes: Lanes,
    out: &mut [f32],
) {
    #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx512f"))]
    unsafe fn avx512<S: Src>(
        src: *const u8,
        offs: &[usize],
        w: &[f32],
        lanes: Lanes,
        out: &mut [f32],
    ) {
        // SAFETY: AVX-512F was detected (`isa()`); the pointer contract is the caller's.
        unsafe { wsum_body::<S>(src, offs, w, lanes, out) }
    }
    #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2"))]
    unsafe fn avx2<S: Src>(
        src: *const u8,
        offs: &[usize],
        w: &[f32],
        lanes: Lanes,
        out: &mut [f32],
    ) {
        // SAFETY: AVX2 was detected (`isa()`); the pointer contract is the caller's.
        unsafe { wsum_body::<S>(src, offs, w, lanes, out) }
    }
    unsafe fn pick<S: Src>(
        src: *const u8,
        offs: &[usize],
        w: &[f32],
        lanes: Lanes,
        out: &mut [f32],
    ) {
        // SAFETY: each variant runs only under an ISA `isa()` reports; the pointer contract
        // is the caller's.
        unsafe {
            match isa() {
                Isa::Avx512 => avx512::<S>(src, offs, w, lanes, out),
                Isa::Avx2 => avx2::<S>(src, offs, w, lanes, out),
                Isa::Base | Isa::Neon => wsum_body::<S>(src, offs, w, lanes, out),
            }
        }
    }
    // SAFETY: the caller's contract, passed on.
    unsafe { with_src!(dt, pick, (src, offs, w, lanes, out)) }
}

/// Loads `out.len()` contiguous elements starting at element offset `off`.
pub(crate) unsafe fn load_contiguous(dt: DataType, src: *const u8, off: usize, out: &mut [f32]) {
    // SAFETY: the caller guarantees `src + off .. + out.len()` elements are readable: `lerp`'s
    // contract with no tap axes.
    unsafe {
        let offs = [off, 0, 0, 0, 0, 0, 0, 0];
        lerp(dt, 0, src, &offs, &[[0.0; 2]; 3], out)
    }
}

/// Stores contiguous f32 values converted to `dt` (no post-ops).
pub(crate) unsafe fn store_contiguous(
    dt: DataType,
    numerics: Numerics,
    vals: &[f32],
    dst: *mut u8,
) {
    // SAFETY: the caller guarantees `dst` has room for `vals.len()` elements of `dt` and does not
    // overlap `vals`.
    unsafe {
        match dt {
            DataType::F32 => {
                std::ptr::copy_nonoverlapping(vals.as_ptr() as *const u8, dst, vals.len() * 4)
            }
            DataType::Bf16 => store_bf16(vals, dst as *mut u16, numerics != Numerics::Ieee),
            other => store_converted(other, numerics, vals, dst, false),
        }
    }
}

/// [`store_contiguous_nt`] when `stream`, else [`store_contiguous`].
///
/// # Safety
/// As those.
pub(crate) unsafe fn store_contiguous_as(
    stream: bool,
    dt: DataType,
    numerics: Numerics,
    vals: &[f32],
    dst: *mut u8,
) {
    // SAFETY: the caller's.
    unsafe {
        if stream {
            store_contiguous_nt(dt, numerics, vals, dst)
        } else {
            store_contiguous(dt, numerics, vals, dst)
        }
    }
}

/// [`store_contiguous`] with streamed (non-temporal) stores where the type's vector store
/// has them (f32, and s8/u8 on x86); call [`store_fence`] before handing the results over.
pub(crate) unsafe fn store_contiguous_nt(
    dt: DataType,
    numerics: Numerics,
    vals: &[f32],
    dst: *mut u8,
) {
    // SAFETY: as `store_contiguous`: room for `vals.len()` elements of `dt` at `dst`, not
    // overlapping `vals`.
    unsafe {
        match dt {
            DataType::F32 => stream_copy(vals.as_ptr() as *const u8, dst, vals.len() * 4),
            DataType::U8 | DataType::S8 => store_converted(dt, numerics, vals, dst, true),
            DataType::Bf16 | DataType::F16 => {
                // Converted in stretches into a stack buffer at dst's offset within a line,
                // each streamed out; stretches after the first start on a dst line.
                const N: usize = 2048;
                let mut tmp = [0u16; N + 64];
                let a0 = (64 - tmp.as_ptr() as usize % 64) % 64 / 2;
                let mut i = 0;
                while i < vals.len() {
                    let d = dst.add(2 * i);
                    let off = d as usize % 64 / 2;
                    let n = (vals.len() - i).min(N - off);
                    let t = tmp.as_mut_ptr().add(a0 + off);
                    store_contiguous(dt, numerics, &vals[i..i + n], t as *mut u8);
                    stream_copy(t as *const u8, d, 2 * n);
                    i += n;
                }
            }
            _ => store_contiguous(dt, numerics, vals, dst),
        }
    }
}

/// The remaining types through the one conversion routine ([`super::dtype::store_f32`]),
/// instantiated per type so the type match leaves the loop, and under AVX2 so
/// `round_ties_even` is an instruction rather than a libm call.
#[inline(always)]
unsafe fn store_converted_body(dt: DataType, numerics: Numerics, vals: &[f32], dst: *mut u8) {
    // SAFETY: the caller guarantees `dst` has room for `vals.len()` elements of `dt`; element `l`
    // is written at `l * size`.
    unsafe {
        use super::dtype::store_f32;
        macro_rules! each {
            ($t:expr, $sz:expr) => {
                for (l, &v) in vals.iter().enumerate() {
                    store_f32(dst.add(l * $sz), $t, v, numerics);
                }
            };
        }
        let q = super::dtype::IntStore::new(dt, numerics);
        match (dt, q) {
            (DataType::S8, Some(q)) => {
                for (l, &v) in vals.iter().enumerate() {
                    *(dst as *mut i8).add(l) = q.apply(v) as i8;
                }
            }
            (DataType::U8, Some(q)) => {
                for (l, &v) in vals.iter().enumerate() {
                    *dst.add(l) = q.apply(v) as u8;
                }
            }
            (DataType::S32, Some(q)) => {
                for (l, &v) in vals.iter().enumerate() {
                    (dst as *mut i32).add(l).write_unaligned(q.apply(v));
                }
            }
            (DataType::F16, _) => each!(DataType::F16, 2),
            (other, _) => each!(other, other.size()),
        }
    }
}

unsafe fn store_converted(dt: DataType, numerics: Numerics, vals: &[f32], dst: *mut u8, nt: bool) {
    // SAFETY: the AVX2 variants run only when `isa()` (never above the detected ISA) has AVX2 and
    // F16C was detected, NEON on aarch64 only; `dst + n` has room for the remaining
    // `vals.len() - n` elements.
    unsafe {
        #[cfg(not(target_arch = "x86_64"))]
        let _ = nt; // only x86 streams
        #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2,f16c"))]
        unsafe fn avx2(dt: DataType, numerics: Numerics, vals: &[f32], dst: *mut u8) {
            // SAFETY: the caller detected AVX2 and F16C; `store_converted_body`'s contract is
            // passed on unchanged.
            unsafe { store_converted_body(dt, numerics, vals, dst) }
        }
        #[cfg(target_arch = "x86_64")]
        if isa() != Isa::Base {
            if let (DataType::U8 | DataType::S8, Some(q)) =
                (dt, super::dtype::IntStore::new(dt, numerics))
            {
                let signed = dt == DataType::S8;
                // AVX-512 (BW for the 512-bit packs) takes every value, its tail masked.
                if isa() == Isa::Avx512 && avx512bw() {
                    return match (nt, q.nan == q.lo) {
                        (true, true) => store_int8_avx512::<true, true>(vals, dst, q, signed),
                        (true, false) => store_int8_avx512::<true, false>(vals, dst, q, signed),
                        (false, true) => store_int8_avx512::<false, true>(vals, dst, q, signed),
                        (false, false) => store_int8_avx512::<false, false>(vals, dst, q, signed),
                    };
                }
                let n = vals.len() / 32 * 32;
                match (nt, q.nan == q.lo) {
                    (true, true) => store_int8_avx2::<true, true>(&vals[..n], dst, q, signed),
                    (true, false) => store_int8_avx2::<true, false>(&vals[..n], dst, q, signed),
                    (false, true) => store_int8_avx2::<false, true>(&vals[..n], dst, q, signed),
                    (false, false) => store_int8_avx2::<false, false>(&vals[..n], dst, q, signed),
                }
                // The tail through one padded vector: the scalar rule costs a branchy
                // conversion per value, which was most of a tiny plane's time (nchw u8
                // 8x256 3x3->5x5, 25 values per plane).
                let rest = &vals[n..];
                if !rest.is_empty() {
                    let (mut v, mut b) = ([0f32; 32], [0u8; 32]);
                    v[..rest.len()].copy_from_slice(rest);
                    store_int8_avx2::<false, false>(&v, b.as_mut_ptr(), q, signed);
                    std::ptr::copy_nonoverlapping(b.as_ptr(), dst.add(n), rest.len());
                }
                return;
            }
        }
        #[cfg(target_arch = "aarch64")]
        if isa() == Isa::Neon {
            if let (DataType::U8 | DataType::S8, Some(q)) =
                (dt, super::dtype::IntStore::new(dt, numerics))
            {
                let n = vals.len() / 16 * 16;
                let signed = dt == DataType::S8;
                store_int8_neon(&vals[..n], dst, q, signed);
                // The tail through one padded vector (as on x86).
                let rest = &vals[n..];
                if !rest.is_empty() {
                    let (mut v, mut b) = ([0f32; 16], [0u8; 16]);
                    v[..rest.len()].copy_from_slice(rest);
                    store_int8_neon(&v, b.as_mut_ptr(), q, signed);
                    std::ptr::copy_nonoverlapping(b.as_ptr(), dst.add(n), rest.len());
                }
                return;
            }
        }
        match isa() {
            Isa::Avx512 | Isa::Avx2 if f16c() => avx2(dt, numerics, vals, dst),
            _ => store_converted_body(dt, numerics, vals, dst),
        }
    }
}

/// `IntStore::apply` to s8/u8 for 32 values at a time (`vals.len()` a multiple of 32): NaN
/// to `q.nan`, clamp to `[q.lo, q.hi]`, round half to even, narrow with packs (exact, the
/// values are in range by then) — the auto-vectorised loop narrowed byte by byte. `NANLO`:
/// NaN stores as `q.lo`, see [`store_int8_avx512`]. `NT`
/// streams the 32-byte aligned stores.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn store_int8_avx2<const NT: bool, const NANLO: bool>(
    vals: &[f32],
    dst: *mut u8,
    q: super::dtype::IntStore,
    signed: bool,
) {
    // SAFETY: AVX2 was detected by the caller; reads `vals[k..k + 32]` with `k + 32 <= vals.len()`
    // (a multiple of 32) and writes 32 bytes at `dst + k`, inside the caller's `vals.len()` bytes.
    unsafe {
        use std::arch::x86_64::*;
        let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        let (lo, hi) = (_mm256_set1_ps(q.lo), _mm256_set1_ps(q.hi));
        macro_rules! conv {
            ($p:expr) => {
                if NANLO {
                    // NaN to `q.lo` by `vmaxps` itself (see `store_int8_avx512`).
                    let v = _mm256_min_ps(_mm256_max_ps(_mm256_loadu_ps($p), lo), hi);
                    _mm256_cvttps_epi32(_mm256_round_ps::<
                        { _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC },
                    >(v))
                } else {
                    vectors::x86::int_avx2(_mm256_loadu_ps($p), q)
                }
            };
        }
        for k in (0..vals.len()).step_by(32) {
            let p = vals.as_ptr().add(k);
            let ab = _mm256_packs_epi32(conv!(p), conv!(p.add(8)));
            let cd = _mm256_packs_epi32(conv!(p.add(16)), conv!(p.add(24)));
            let b = if signed {
                _mm256_packs_epi16(ab, cd)
            } else {
                _mm256_packus_epi16(ab, cd)
            };
            let b = _mm256_permutevar8x32_epi32(b, order);
            if NT && (dst.add(k) as usize).is_multiple_of(32) {
                _mm256_stream_si256(dst.add(k) as *mut __m256i, b);
            } else {
                _mm256_storeu_si256(dst.add(k) as *mut __m256i, b);
            }
        }
    }
}

/// [`store_int8_avx2`] 64 values at a time with 512-bit vectors, the last 1..63 through
/// masked loads and a masked store (a padded stack copy stalled on store forwarding),
/// rounding in the conversion itself (embedded round-to-nearest-even). `NANLO`:
/// NaN stores as `q.lo` (u8: 0), which `max(v, lo)` already gives — `vmaxps` returns its
/// second operand when either is NaN — so the NaN select is left out. `NT` streams the
/// 64-byte aligned stores.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn store_int8_avx512<const NT: bool, const NANLO: bool>(
    vals: &[f32],
    dst: *mut u8,
    q: super::dtype::IntStore,
    signed: bool,
) {
    // SAFETY: AVX-512F/BW were detected by the caller; reads `vals[k..k + 64]` with
    // `k + 64 <= vals.len()` and writes 64 bytes at `dst + k`; the tail's loads and store
    // are masked to the `vals.len() - k` elements left (masked-off lanes do not fault).
    unsafe {
        use std::arch::x86_64::*;
        const RNE: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
        let (lo, hi, nan) = (
            _mm512_set1_ps(q.lo),
            _mm512_set1_ps(q.hi),
            _mm512_set1_ps(q.nan),
        );
        // The packs work within 128-bit lanes: dword j of the result holds bytes 4j..4j+3
        // of lane j % 4 of inputs a, b, c, d in turn; this puts them back in order.
        let order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
        let conv = |v: __m512| {
            let v = if NANLO {
                _mm512_max_ps(v, lo)
            } else {
                let v = _mm512_mask_blend_ps(_mm512_cmp_ps_mask::<_CMP_ORD_Q>(v, v), nan, v);
                _mm512_max_ps(v, lo)
            };
            _mm512_cvt_roundps_epi32::<RNE>(_mm512_min_ps(v, hi))
        };
        let bytes = |a, b, c, d| {
            let (ab, cd) = (_mm512_packs_epi32(a, b), _mm512_packs_epi32(c, d));
            let b = if signed {
                _mm512_packs_epi16(ab, cd)
            } else {
                _mm512_packus_epi16(ab, cd)
            };
            _mm512_permutexvar_epi32(order, b)
        };
        let n = vals.len() / 64 * 64;
        for k in (0..n).step_by(64) {
            let p = vals.as_ptr().add(k);
            let ld = |i: usize| conv(_mm512_loadu_ps(p.add(16 * i)));
            let b = bytes(ld(0), ld(1), ld(2), ld(3));
            if NT && (dst.add(k) as usize).is_multiple_of(64) {
                _mm512_stream_si512(dst.add(k) as *mut __m512i, b);
            } else {
                _mm512_storeu_si512(dst.add(k) as *mut __m512i, b);
            }
        }
        let rest = vals.len() - n;
        if rest > 0 {
            let p = vals.as_ptr().add(n);
            let ld = |i: usize| {
                let m = ((1u32 << rest.saturating_sub(16 * i).min(16)) - 1) as __mmask16;
                conv(_mm512_maskz_loadu_ps(m, p.add(16 * i)))
            };
            let b = bytes(ld(0), ld(1), ld(2), ld(3));
            _mm512_mask_storeu_epi8(dst.add(n) as *mut i8, (1u64 << rest) - 1, b);
        }
    }
}

/// `IntStore::apply` to s8/u8 for 16 values at a time (`vals.len()` a multiple of 16) on
/// NEON: NaN to `q.nan`, clamp to `[q.lo, q.hi]`, convert rounding half to even (`fcvtns`),
/// narrow with saturation (exact, the values are in range by then).
#[cfg(target_arch = "aarch64")]
unsafe fn store_int8_neon(vals: &[f32], dst: *mut u8, q: super::dtype::IntStore, signed: bool) {
    use std::arch::aarch64::*;
    // SAFETY: NEON is baseline on aarch64; reads `vals[k..k + 16]` with `k + 16 <= vals.len()`
    // and writes 16 bytes at `dst + k`, inside the caller's `vals.len()` bytes.
    unsafe {
        let (lo, hi, nan) = (vdupq_n_f32(q.lo), vdupq_n_f32(q.hi), vdupq_n_f32(q.nan));
        let conv = |p: *const f32| {
            let v = vld1q_f32(p);
            let v = vbslq_f32(vceqq_f32(v, v), v, nan);
            let v = vminq_f32(vmaxq_f32(v, lo), hi);
            vqmovn_s32(vcvtnq_s32_f32(v))
        };
        for k in (0..vals.len()).step_by(16) {
            let p = vals.as_ptr().add(k);
            let ab = vcombine_s16(conv(p), conv(p.add(4)));
            let cd = vcombine_s16(conv(p.add(8)), conv(p.add(12)));
            if signed {
                let b = vcombine_s8(vqmovn_s16(ab), vqmovn_s16(cd));
                vst1q_s8(dst.add(k) as *mut i8, b);
            } else {
                vst1q_u8(dst.add(k), vcombine_u8(vqmovun_s16(ab), vqmovun_s16(cd)));
            }
        }
    }
}

#[inline(always)]
unsafe fn gather_body<T: Copy>(src: *const u8, dst: *mut u8, idx: &[u32]) {
    // SAFETY: the caller guarantees `src` holds elements `idx[o]` of `T` and `dst` has room for
    // `idx.len()` of them.
    unsafe {
        let (s, d) = (src as *const T, dst as *mut T);
        for (o, &i) in idx.iter().enumerate() {
            d.add(o).write_unaligned(s.add(i as usize).read_unaligned());
        }
    }
}

/// Outputs ahead of the current block whose source lines [`gather_blocks`] prefetches: a
/// plane-wide gather downsampling by 2 reads every other row, which the hardware does not
/// prefetch in time (nchw f32 8x64 112x112->56x56 nearest, 1 thread: 1.42 -> 1.16 ms,
/// oneDNN 1.09-1.41 in the same runs).
#[cfg(target_arch = "x86_64")]
const GATHER_AHEAD: usize = 128;

/// [`gather_body`] in blocks of `k` outputs: `block(o)` writes outputs from `o` with vectors
/// and says how many (0: none, and those `k` go element by element); the last outputs short
/// of a block go element by element too.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn gather_blocks<T: Copy>(
    src: *const T,
    dst: *mut T,
    idx: &[u32],
    k: usize,
    mut block: impl FnMut(usize) -> usize,
) {
    // SAFETY: `gather_body`'s contract is the caller's; `block` writes only the outputs it
    // reports, and every element-wise range lies inside `idx`.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let mut o = 0;
        while o + k <= idx.len() {
            if let Some(&i) = idx.get(o + GATHER_AHEAD) {
                // The two lines a block of 16 four-byte outputs at a ratio of 2 reads.
                let line = src.wrapping_add(i as usize) as *const i8;
                _mm_prefetch::<_MM_HINT_T0>(line);
                _mm_prefetch::<_MM_HINT_T0>(line.wrapping_add(64));
            }
            match block(o) {
                0 => {
                    gather_body::<T>(src as *const u8, dst.add(o) as *mut u8, &idx[o..o + k]);
                    o += k;
                }
                done => o += done,
            }
        }
        gather_body::<T>(src as *const u8, dst.add(o) as *mut u8, &idx[o..]);
    }
}

/// [`gather_body`] for 4-byte elements on AVX-512: a block of 16 (else 8) outputs whose
/// indices lie within 16 elements of its first (upsampling) is one masked load and one
/// permutation (nchw f32 1x96 80x63->27x124 nearest: 0.90x the time of two loads), within
/// 32 (downsampling by up to about 2) two masked loads and one two-source permutation;
/// wider blocks of 16 are a hardware gather; the last outputs short of 16 go by 8 (within
/// 64: four loads, two permutations and a blend) or element by element. The element-wise loop ran at about an element a cycle (nchw f32
/// 1x3 221x191->224x64 nearest 19.6 us, oneDNN 17.1).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn gather32_avx512(src: *const u32, dst: *mut u32, idx: &[u32]) {
    // SAFETY: AVX-512F was detected by the caller; loads of `src` are masked to lanes at or
    // below the block's last index (verified above every local index), which the caller
    // guarantees readable, as are `src[idx[o]]` (the hardware gather reads exactly those,
    // its indices checked below 2^31 so that they stay unsigned); stores cover outputs `o..o + 16` (`o + 8`)
    // with `o + 16 <= n` (`o + 8 <= n`), which `dst` has room for.
    unsafe {
        use std::arch::x86_64::*;
        let n = idx.len();
        let ip = idx.as_ptr() as *const i32;
        // One block of `k` outputs; `false` when its indices do not fit a 64-element window.
        let block = |o: usize, k: usize| {
            let lo = idx[o];
            let span = idx[o + k - 1].wrapping_sub(lo);
            // (Blocks of 16 past 32 elements take the hardware gather below.)
            if span >= 64 || (k == 16 && span >= 32) {
                return false;
            }
            let lanes: __mmask16 = if k == 16 { 0xFFFF } else { 0xFF };
            let local = _mm512_sub_epi32(
                _mm512_maskz_loadu_epi32(lanes, ip.add(o)),
                _mm512_set1_epi32(lo as i32),
            );
            // Unsigned: an index below `lo` wraps and fails too.
            let inside = _mm512_cmple_epu32_mask(local, _mm512_set1_epi32(span as i32));
            if inside & lanes != lanes {
                return false;
            }
            let m = u64::MAX >> (63 - span);
            let s = src.add(lo as usize) as *const i32;
            let a = _mm512_maskz_loadu_epi32(m as u16, s);
            let mut v = if span < 16 {
                _mm512_permutexvar_epi32(local, a)
            } else {
                let b = _mm512_maskz_loadu_epi32((m >> 16) as u16, s.add(16));
                _mm512_permutex2var_epi32(a, local, b)
            };
            if span >= 32 {
                // Downsampling by up to about 4: lanes from the window's second half are
                // permuted out of its last two vectors (nchw f32 1x96 70x141->140x47:
                // element by element, 0.31 ms; oneDNN 0.27).
                let c = _mm512_maskz_loadu_epi32((m >> 32) as u16, s.add(32));
                let d = _mm512_maskz_loadu_epi32((m >> 48) as u16, s.add(48));
                let high = _mm512_cmpge_epu32_mask(local, _mm512_set1_epi32(32));
                v = _mm512_mask_blend_epi32(high, v, _mm512_permutex2var_epi32(c, local, d));
            }
            if k == 16 {
                _mm512_storeu_si512(dst.add(o) as *mut _, v);
            } else {
                _mm256_storeu_si256(dst.add(o) as *mut __m256i, _mm512_castsi512_si256(v));
            }
            true
        };
        // A block of 16 over more than 32 elements (downsampling by more than about 2) is
        // one hardware gather: the 8-output windows past 64 took 1.75 cycles an output (nchw
        // f32 1x16 100x200->100x40 nearest 37 -> 18.5 us, oneDNN 20; 8x16 300x300->300x60
        // 3.39 -> 2.81 ms, 2.18), the four-load windows up to 64 ~0.8 (1x4 91x185->182x62
        // 11.8 -> 10.5 us, 9.6; 1x16 100x200->100x80 37 -> 31, 32); from ~8x, one line an
        // output, either is memory-bound. Indices are signed there: a block reaching 2^31
        // elements goes on as before.
        let gather16 = |o: usize| {
            let i = _mm512_loadu_si512(ip.add(o) as *const _);
            if _mm512_cmplt_epi32_mask(i, _mm512_setzero_si512()) != 0 {
                return false;
            }
            let v = _mm512_i32gather_epi32::<4>(i, src as *const i32);
            _mm512_storeu_si512(dst.add(o) as *mut _, v);
            true
        };
        gather_blocks(src, dst, idx, 8, |o| {
            if o + 16 <= n && (block(o, 16) || gather16(o)) {
                16
            } else if block(o, 8) {
                8
            } else {
                0
            }
        });
    }
}

/// Bytes ahead of a block of [`even_blocks_avx2`] that it prefetches.
#[cfg(target_arch = "x86_64")]
const EVEN_AHEAD: usize = 2048;

/// The 2x nearest downsampling rows of [`gather32_avx2`]: when every block of 8 outputs reads
/// every other element from its first, all blocks but the last are two loads and an
/// even-lane shuffle (no window checks: nchw f32 1x16 112x112 -> 112x56 took 27 cycles a
/// block through them; oneDNN 1.2x faster). Returns the outputs written, blocks from the
/// first until one whose 16-element window passes the largest index (0 when the table is
/// not of that shape; the first block decides whether it is scanned at all).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn even_blocks_avx2(src: *const u32, dst: *mut u32, idx: &[u32]) -> usize {
    // SAFETY: AVX2 was detected by the caller, who guarantees every element from the
    // smallest index to the largest readable; a block's loads cover `idx[8b]..idx[8b] + 16`,
    // within that (checked); the stores cover outputs `8b..8b + 8 <= idx.len()`.
    unsafe {
        use std::arch::x86_64::*;
        let nb = idx.len() / 8;
        let even = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
        let off = |b: usize| {
            let v = _mm256_loadu_si256(idx.as_ptr().add(8 * b) as *const __m256i);
            _mm256_xor_si256(
                _mm256_sub_epi32(v, _mm256_set1_epi32(idx[8 * b] as i32)),
                even,
            )
        };
        if nb < 2 || _mm256_testz_si256(off(0), off(0)) == 0 {
            return 0;
        }
        let (mut any, mut top) = (_mm256_setzero_si256(), _mm256_setzero_si256());
        for b in 0..nb {
            any = _mm256_or_si256(any, off(b));
            top = _mm256_max_epu32(
                top,
                _mm256_loadu_si256(idx.as_ptr().add(8 * b) as *const __m256i),
            );
        }
        if _mm256_testz_si256(any, any) == 0 {
            return 0;
        }
        // Elements up to the largest index are readable (one tensor's span).
        let mut t = [0u32; 8];
        _mm256_storeu_si256(t.as_mut_ptr() as *mut __m256i, top);
        let top = t.iter().copied().max().unwrap_or(0) as usize;
        let mut b = 0;
        while b < nb && idx[8 * b] as usize + 15 <= top {
            let s = src.add(idx[8 * b] as usize) as *const f32;
            // A block reads a line: the one EVEN_AHEAD on, so that more than the hardware
            // prefetchers' lines are in flight (nchw f32 8x256 64x64->64x32 2.2 -> 1.9 ms,
            // 8x16 300x300->300x150 3.1-3.3 -> 2.85; oneDNN's AVX2 code 1.8, 2.5).
            _mm_prefetch::<_MM_HINT_T0>((s as *const i8).wrapping_add(EVEN_AHEAD));
            let (a, c) = (_mm256_loadu_ps(s), _mm256_loadu_ps(s.add(8)));
            // a0 a2 c0 c2 | a4 a6 c4 c6, then the 64-bit pairs in order.
            let v = _mm256_castps_pd(_mm256_shuffle_ps::<0b10_00_10_00>(a, c));
            let v = _mm256_permute4x64_pd::<0b11_01_10_00>(v);
            _mm256_storeu_pd(dst.add(8 * b) as *mut f64, v);
            b += 1;
        }
        8 * b
    }
}

/// [`gather32_avx512`] on AVX2: a block of 8 outputs whose indices lie within 16 elements of
/// its first is two loads (masked near the largest index), two permutations and a blend.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn gather32_avx2(src: *const u32, dst: *mut u32, idx: &[u32]) {
    // SAFETY: AVX2 was detected by the caller; loads are plain below the largest index and
    // else masked to lanes at or below the block's last index (verified above every local
    // index), which the caller guarantees readable, as are `src[idx[o]]` and everything
    // between them; the store covers outputs `o..o + 8` with `o + 8 <= n`.
    unsafe {
        use std::arch::x86_64::*;
        let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let done = even_blocks_avx2(src, dst, idx);
        let (dst, idx) = (dst.add(done), &idx[done..]);
        // Elements up to the largest index are readable (one tensor's span): windows below
        // it load plainly (Zen 1's masked loads were two thirds of nchw f32 nearest 32x46
        // -> 63x91).
        let top_idx = idx.iter().copied().max().unwrap_or(0);
        gather_blocks(src, dst, idx, 8, |o| {
            let lo = idx[o];
            let span = idx[o + 7].wrapping_sub(lo);
            let local = _mm256_sub_epi32(
                _mm256_loadu_si256(idx.as_ptr().add(o) as *const __m256i),
                _mm256_set1_epi32(lo as i32),
            );
            let top = _mm256_set1_epi32(span as i32);
            // Unsigned `local <= span`: an index below `lo` wraps and fails too.
            let inside = _mm256_cmpeq_epi32(_mm256_max_epu32(local, top), top);
            if span < 16 && _mm256_movemask_ps(_mm256_castsi256_ps(inside)) == 0xFF {
                let s = src.add(lo as usize) as *const i32;
                if span < 8 && lo.checked_add(7).is_some_and(|e| e <= top_idx) {
                    // Upsampling: one window of 8, one permutation (nchw f32 1x96 80x63 ->
                    // 27x124 nearest: 0.78-0.93x the time of two and a blend).
                    let a = _mm256_loadu_si256(s as *const __m256i);
                    let v = _mm256_permutevar8x32_epi32(a, local);
                    _mm256_storeu_si256(dst.add(o) as *mut __m256i, v);
                    return 8;
                }
                let (a, b) = if lo.checked_add(15).is_some_and(|e| e <= top_idx) {
                    let a = _mm256_loadu_si256(s as *const __m256i);
                    (a, _mm256_loadu_si256(s.add(8) as *const __m256i))
                } else {
                    let end = _mm256_set1_epi32(span as i32 + 1);
                    let a = _mm256_maskload_epi32(s, _mm256_cmpgt_epi32(end, lane));
                    let hi = _mm256_sub_epi32(end, _mm256_set1_epi32(8));
                    (
                        a,
                        _mm256_maskload_epi32(s.add(8), _mm256_cmpgt_epi32(hi, lane)),
                    )
                };
                let v = _mm256_blendv_epi8(
                    _mm256_permutevar8x32_epi32(a, local),
                    _mm256_permutevar8x32_epi32(b, local),
                    _mm256_cmpgt_epi32(local, _mm256_set1_epi32(7)),
                );
                _mm256_storeu_si256(dst.add(o) as *mut __m256i, v);
                8
            } else {
                0
            }
        });
    }
}

/// The 16 indices from `o` as offsets from the first (`lo`), with their span, if they all
/// lie in `lo..=lo + span` and `span < 32` (one window of the 2- and 1-byte gathers).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn window16(idx: &[u32], o: usize) -> Option<(u32, u32, std::arch::x86_64::__m512i)> {
    // SAFETY: AVX-512F was detected by the caller; `o + 16 <= idx.len()` (`gather_blocks`).
    unsafe {
        use std::arch::x86_64::*;
        let lo = idx[o];
        let span = idx[o + 15].wrapping_sub(lo);
        let local = _mm512_sub_epi32(
            _mm512_loadu_si512(idx.as_ptr().add(o) as *const _),
            _mm512_set1_epi32(lo as i32),
        );
        // Unsigned: an index below `lo` wraps and fails too.
        let inside = _mm512_cmple_epu32_mask(local, _mm512_set1_epi32(span as i32));
        (span < 32 && inside == 0xFFFF).then_some((lo, span, local))
    }
}

/// [`gather_body`] for 2-byte elements on AVX-512BW: a block of 16 outputs whose indices
/// lie within 32 elements of its first is one masked load and one permutation (as
/// [`gather32_avx512`]); other blocks element by element.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn gather16_avx512(src: *const u16, dst: *mut u16, idx: &[u32]) {
    // SAFETY: AVX-512F/BW were detected by the caller; the load is masked to lanes at or below
    // the block's last index (verified above every local index), which the caller guarantees
    // readable, as are `src[idx[o]]`; the store covers outputs `o..o + 16` with `o + 16 <= n`.
    unsafe {
        use std::arch::x86_64::*;
        gather_blocks(src, dst, idx, 16, |o| {
            if let Some((lo, span, local)) = window16(idx, o) {
                let m: __mmask32 = ((1u64 << (span + 1)) - 1) as u32;
                let a = _mm512_maskz_loadu_epi16(m, src.add(lo as usize) as *const i16);
                let v = _mm512_permutexvar_epi16(
                    _mm512_castsi256_si512(_mm512_cvtepi32_epi16(local)),
                    a,
                );
                _mm256_storeu_si256(dst.add(o) as *mut __m256i, _mm512_castsi512_si256(v));
                16
            } else {
                0
            }
        });
    }
}

/// [`gather_body`] for 1-byte elements on AVX-512BW: a block of 16 outputs whose indices
/// lie within 32 bytes of its first is one masked load widened to words, one word
/// permutation and one narrowing (as [`gather16_avx512`]); other blocks byte by byte, which
/// ran at about a byte a cycle (nchw u8 8x64 224->112 nearest 4.4 ms, oneDNN 3.2 4.8).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn gather8_avx512(src: *const u8, dst: *mut u8, idx: &[u32]) {
    // SAFETY: AVX-512F/BW were detected by the caller; the load is masked to bytes at or
    // below the block's last index (verified above every local index), which the caller
    // guarantees readable, as are `src[idx[o]]`; the store covers outputs `o..o + 16` with
    // `o + 16 <= n`.
    unsafe {
        use std::arch::x86_64::*;
        gather_blocks(src, dst, idx, 16, |o| {
            if let Some((lo, span, local)) = window16(idx, o) {
                let m: __mmask32 = ((1u64 << (span + 1)) - 1) as u32;
                // (The 512-bit load: the 256-bit one needs AVX-512VL too, and without it was
                // an outlined call.)
                let a = _mm512_castsi512_si256(_mm512_maskz_loadu_epi8(
                    u64::from(m),
                    src.add(lo as usize) as *const i8,
                ));
                let v = _mm512_permutexvar_epi16(
                    _mm512_castsi256_si512(_mm512_cvtepi32_epi16(local)),
                    _mm512_cvtepu8_epi16(a),
                );
                let b = _mm512_cvtepi16_epi8(v);
                _mm_storeu_si128(dst.add(o) as *mut __m128i, _mm256_castsi256_si128(b));
                16
            } else {
                0
            }
        });
    }
}

/// [`gather8_avx512`] on AVX2: a block of 16 outputs whose indices lie within 16 bytes of
/// its first is one 16-byte load and one `pshufb`. AVX2 has no byte-masked load, so a block
/// loads only where its 16 bytes end at or before the list's last index: they then lie
/// between two bytes the caller guarantees readable, in the one buffer both index.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn gather8_avx2(src: *const u8, dst: *mut u8, idx: &[u32]) {
    // SAFETY: AVX2 was detected by the caller; a load covers `src[lo..lo + 16]` with `lo +
    // 15 <= idx[n - 1]` (see above); every local index is checked to lie in `0..16`; the store
    // covers outputs `o..o + 16` with `o + 16 <= n`.
    unsafe {
        use std::arch::x86_64::*;
        // The last index is readable: it bounds the loads (no scan of the list, which cost
        // as much as the copies). Lists running over more source bytes than outputs
        // (downsampling) have blocks wider than 16 bytes: element by element at once.
        let (first, top) = (
            idx.first().copied().unwrap_or(0),
            idx.last().copied().unwrap_or(0),
        );
        if (top.saturating_sub(first) as usize) >= idx.len() {
            return gather_body::<u8>(src, dst, idx);
        }
        let span_max = _mm256_set1_epi32(15);
        gather_blocks(src, dst, idx, 16, |o| {
            let lo = idx[o];
            if lo.checked_add(15).is_none_or(|e| e > top) {
                return 0;
            }
            let base = _mm256_set1_epi32(lo as i32);
            let ip = idx.as_ptr().add(o) as *const __m256i;
            let l0 = _mm256_sub_epi32(_mm256_loadu_si256(ip), base);
            let l1 = _mm256_sub_epi32(_mm256_loadu_si256(ip.add(1)), base);
            // Unsigned `local <= 15`: an index below `lo` wraps and fails too.
            let ok0 = _mm256_cmpeq_epi32(_mm256_max_epu32(l0, span_max), span_max);
            let ok1 = _mm256_cmpeq_epi32(_mm256_max_epu32(l1, span_max), span_max);
            if _mm256_movemask_epi8(_mm256_and_si256(ok0, ok1)) != -1 {
                return 0;
            }
            // 16 dwords (< 16) to 16 bytes in order: the packs work within 128-bit lanes.
            let w = _mm256_permute4x64_epi64::<0xD8>(_mm256_packus_epi32(l0, l1));
            let b = _mm256_permute4x64_epi64::<0x08>(_mm256_packus_epi16(w, w));
            let a = _mm_loadu_si128(src.add(lo as usize) as *const __m128i);
            let v = _mm_shuffle_epi8(a, _mm256_castsi256_si128(b));
            _mm_storeu_si128(dst.add(o) as *mut __m128i, v);
            16
        });
    }
}

/// `dst[o] = src[idx[o]]` for elements of `size` bytes (a raw nearest row).
pub(crate) unsafe fn gather_raw(size: usize, src: *const u8, dst: *mut u8, idx: &[u32]) {
    // SAFETY: elements have `size` bytes as the caller states; `pick` passes the caller's contract
    // on unchanged.
    unsafe {
        #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx512f"))]
        unsafe fn avx512<T: Copy>(src: *const u8, dst: *mut u8, idx: &[u32]) {
            // SAFETY: AVX-512F was detected (`pick` follows `isa()`); `gather_body`'s contract is
            // the caller's.
            unsafe { gather_body::<T>(src, dst, idx) }
        }
        #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2"))]
        unsafe fn avx2<T: Copy>(src: *const u8, dst: *mut u8, idx: &[u32]) {
            // SAFETY: AVX2 was detected (`pick` follows `isa()`); `gather_body`'s contract is the
            // caller's.
            unsafe { gather_body::<T>(src, dst, idx) }
        }
        unsafe fn pick<T: Copy>(src: *const u8, dst: *mut u8, idx: &[u32]) {
            // SAFETY: each variant runs only under an ISA `isa()` reports; `gather_body`'s contract
            // is the caller's.
            unsafe {
                match isa() {
                    Isa::Avx512 => avx512::<T>(src, dst, idx),
                    Isa::Avx2 => avx2::<T>(src, dst, idx),
                    Isa::Base | Isa::Neon => gather_body::<T>(src, dst, idx),
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        if size == 4 && isa() == Isa::Avx512 {
            return gather32_avx512(src as *const u32, dst as *mut u32, idx);
        }
        #[cfg(target_arch = "x86_64")]
        if size == 4 && isa() == Isa::Avx2 {
            return gather32_avx2(src as *const u32, dst as *mut u32, idx);
        }
        #[cfg(target_arch = "x86_64")]
        if size == 2 && isa() == Isa::Avx512 && avx512bw() {
            return gather16_avx512(src as *const u16, dst as *mut u16, idx);
        }
        #[cfg(target_arch = "x86_64")]
        if size == 1 && isa() == Isa::Avx512 && avx512bw() {
            return gather8_avx512(src, dst, idx);
        }
        #[cfg(target_arch = "x86_64")]
        if size == 1 && isa() == Isa::Avx2 {
            return gather8_avx2(src, dst, idx);
        }
        match size {
            4 => pick::<u32>(src, dst, idx),
            2 => pick::<u16>(src, dst, idx),
            1 => pick::<u8>(src, dst, idx),
            _ => pick::<u64>(src, dst, idx),
        }
    }
}

/// Copies a row of `n` 4-byte pixels that [`gather_raw`] has just written, piece by piece as
/// [`gather32_avx512`] / [`gather32_avx2`] stored them (vectors of 16 on AVX-512, of 8 on
/// AVX2, then the last few; keep the three in step): each vector load then meets one store
/// still in the store buffer. A copy whose loads spanned
/// two of those stores waited for them to reach the cache (nchw f32 1x48 94x54->187x163
/// nearest, 1 thread, plain stores: the copies of repeated rows were a third of the time).
/// Storing each gathered vector to every dst row of its src row instead lost where rows are
/// long (2x16 300x200 -> 640x410: 5.8 -> 7.5 ms, two or three write streams at once).
///
/// # Safety
/// `n` elements readable at `src`, writable at `dst`, apart.
pub(crate) unsafe fn copy_gathered32(src: *const u8, dst: *mut u8, n: usize) {
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn avx512(src: *const u8, dst: *mut u8, n: usize) -> usize {
        use std::arch::x86_64::*;
        let mut o = 0;
        // SAFETY: the caller's; every piece lies in the row.
        unsafe {
            while o + 8 <= n {
                let (s, d) = (src.add(4 * o), dst.add(4 * o));
                if o + 16 <= n {
                    _mm512_storeu_si512(d as *mut _, _mm512_loadu_si512(s as *const _));
                    o += 16;
                } else {
                    _mm256_storeu_si256(d as *mut _, _mm256_loadu_si256(s as *const _));
                    o += 8;
                }
            }
        }
        o
    }
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn avx2(src: *const u8, dst: *mut u8, n: usize) -> usize {
        use std::arch::x86_64::*;
        let mut o = 0;
        // SAFETY: the caller's; every piece lies in the row.
        unsafe {
            while o + 8 <= n {
                let (s, d) = (src.add(4 * o), dst.add(4 * o));
                _mm256_storeu_si256(d as *mut _, _mm256_loadu_si256(s as *const _));
                o += 8;
            }
        }
        o
    }
    // SAFETY: the caller's; each variant runs on an ISA the CPU has.
    unsafe {
        let o = match isa() {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => avx512(src, dst, n),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => avx2(src, dst, n),
            _ => 0,
        };
        std::ptr::copy_nonoverlapping(src.add(4 * o), dst.add(4 * o), 4 * (n - o));
    }
}

/// [`super::dtype::f32_to_bf16`] written with selects instead of branches, so the store loop
/// vectorises; `onednn` selects oneDNN's subnormal flush and NaN quieting.
#[inline(always)]
fn bf16_bits(v: f32, onednn: bool) -> u16 {
    let b = v.to_bits();
    let rounded = (b.wrapping_add(0x7FFF + ((b >> 16) & 1)) >> 16) as u16;
    let nan = (b & 0x7FFF_FFFF) > 0x7F80_0000;
    let sign = ((b >> 16) & 0x8000) as u16;
    let nan_bits = if onednn {
        ((b >> 16) | 0x40) as u16
    } else {
        0x7FC0 | sign
    };
    let r = if nan { nan_bits } else { rounded };
    if onednn && (b & 0x7F80_0000) == 0 {
        sign
    } else {
        r
    }
}

#[inline(always)]
unsafe fn store_bf16_body(vals: &[f32], dst: *mut u16, onednn: bool) {
    // SAFETY: the caller guarantees `dst` has room for `vals.len()` u16 values (any alignment).
    unsafe {
        for (l, &v) in vals.iter().enumerate() {
            dst.add(l).write_unaligned(bf16_bits(v, onednn));
        }
    }
}

unsafe fn store_bf16(vals: &[f32], dst: *mut u16, onednn: bool) {
    // SAFETY: each variant runs only when `isa()` (and the AVX-512BW check) say the CPU has
    // it; the caller's contract (room for `vals.len()` values at `dst`) is passed on.
    unsafe {
        match isa() {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 if onednn && avx512bf16() => store_bf16_avx512bf16(vals, dst),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 if avx512bw() => store_bf16_avx512(vals, dst, onednn),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 | Isa::Avx2 => store_bf16_avx2(vals, dst, onednn),
            _ => store_bf16_body(vals, dst, onednn),
        }
    }
}

/// [`bf16_bits`] of 16 lanes with integer ops and masks, each in the low 16 bits of its
/// 32-bit lane. Callers run under AVX-512F.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn bf16_round_avx512(
    v: std::arch::x86_64::__m512,
    onednn: bool,
) -> std::arch::x86_64::__m512i {
    // SAFETY: AVX-512F, the caller's target feature.
    unsafe {
        use std::arch::x86_64::*;
        let b = _mm512_castps_si512(v);
        let hi = _mm512_srli_epi32::<16>(b);
        let inc = _mm512_add_epi32(
            _mm512_set1_epi32(0x7FFF),
            _mm512_and_si512(hi, _mm512_set1_epi32(1)),
        );
        let rounded = _mm512_srli_epi32::<16>(_mm512_add_epi32(b, inc));
        let exp = _mm512_set1_epi32(0x7F80_0000);
        let nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(b, _mm512_set1_epi32(0x7FFF_FFFF)), exp);
        let sign = _mm512_and_si512(hi, _mm512_set1_epi32(0x8000));
        let quiet = _mm512_set1_epi32(if onednn { 0x40 } else { 0x7FC0 });
        let nan_bits = _mm512_or_si512(if onednn { hi } else { sign }, quiet);
        let r = _mm512_mask_mov_epi32(rounded, nan, nan_bits);
        if onednn {
            let sub = _mm512_cmpeq_epi32_mask(_mm512_and_si512(b, exp), _mm512_setzero_si512());
            _mm512_mask_mov_epi32(r, sub, sign)
        } else {
            r
        }
    }
}

/// [`bf16_bits`] of 8 lanes with integer ops and blends, narrowed to 8 u16 (an unsigned
/// pack: every lane is below 2^16). Callers run under AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn bf16_round_avx2(
    v: std::arch::x86_64::__m256,
    onednn: bool,
) -> std::arch::x86_64::__m128i {
    // SAFETY: AVX2, the caller's target feature.
    unsafe {
        use std::arch::x86_64::*;
        let b = _mm256_castps_si256(v);
        let hi = _mm256_srli_epi32::<16>(b);
        let inc = _mm256_add_epi32(
            _mm256_set1_epi32(0x7FFF),
            _mm256_and_si256(hi, _mm256_set1_epi32(1)),
        );
        let rounded = _mm256_srli_epi32::<16>(_mm256_add_epi32(b, inc));
        let exp = _mm256_set1_epi32(0x7F80_0000);
        let nan = _mm256_cmpgt_epi32(_mm256_and_si256(b, _mm256_set1_epi32(0x7FFF_FFFF)), exp);
        let sign = _mm256_and_si256(hi, _mm256_set1_epi32(0x8000));
        let quiet = _mm256_set1_epi32(if onednn { 0x40 } else { 0x7FC0 });
        let nan_bits = _mm256_or_si256(if onednn { hi } else { sign }, quiet);
        let mut r = _mm256_blendv_epi8(rounded, nan_bits, nan);
        if onednn {
            let sub = _mm256_cmpeq_epi32(_mm256_and_si256(b, exp), _mm256_setzero_si256());
            r = _mm256_blendv_epi8(r, sign, sub);
        }
        // packus works per 128-bit half: lanes 0-3 land in qword 0, lanes 4-7 in qword 2.
        let packed = _mm256_permute4x64_epi64::<0b00_00_10_00>(_mm256_packus_epi32(r, r));
        _mm256_castsi256_si128(packed)
    }
}

/// [`bf16_bits`] 32 lanes at a time with integer ops and masks (LLVM does not vectorise
/// the select chain with the narrowing store well: half the time of a bf16 resampling).
/// The narrowing is an unsigned pack (every lane is below 2^16) and a qword permute, not
/// `vpmovdw` to memory, which is slow on AMD Zen 4.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn store_bf16_avx512(vals: &[f32], dst: *mut u16, onednn: bool) {
    // SAFETY: AVX-512F/BW were detected by the caller; loads stay within `vals`, stores within the
    // caller-guaranteed room for `vals.len()` values at `dst`.
    unsafe {
        use std::arch::x86_64::*;
        let bits = |p: *const f32| bf16_round_avx512(_mm512_loadu_ps(p), onednn);
        // packus interleaves per 128-bit lane: qword 2k holds lanes 4k..4k+3 of the first
        // vector, qword 2k+1 those of the second.
        let order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
        let full = vals.len() / 32;
        for k in 0..full {
            let p = vals.as_ptr().add(32 * k);
            let packed = _mm512_packus_epi32(bits(p), bits(p.add(16)));
            let r = _mm512_permutexvar_epi64(order, packed);
            _mm512_storeu_si512(dst.add(32 * k) as *mut _, r);
        }
        store_bf16_avx2(&vals[32 * full..], dst.add(32 * full), onednn)
    }
}

/// oneDNN's f32 -> bf16 rounding in one instruction: `vcvtne2ps2bf16` rounds to nearest
/// even, treats subnormal inputs as signed zeros and quiets NaNs keeping their upper bits —
/// exactly [`bf16_bits`] with oneDNN numerics (the instruction oneDNN itself uses).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
unsafe fn store_bf16_avx512bf16(vals: &[f32], dst: *mut u16) {
    // SAFETY: AVX-512F/BW/VL/BF16 were detected by the caller; loads stay within `vals`
    // (masked beyond it), stores within the caller-guaranteed room for `vals.len()` values
    // at `dst`.
    unsafe {
        use std::arch::x86_64::*;
        let full = vals.len() / 32;
        for k in 0..full {
            let p = vals.as_ptr().add(32 * k);
            // The second operand fills the low half.
            let r = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(p.add(16)), _mm512_loadu_ps(p));
            _mm512_storeu_si512(
                dst.add(32 * k) as *mut _,
                std::mem::transmute::<__m512bh, __m512i>(r),
            );
        }
        // The tail in masked 16-lane steps: tiny planes (12 values) spent as long in the
        // 8-lane and scalar tail as in computing them.
        let mut k = 32 * full;
        while k < vals.len() {
            let n = (vals.len() - k).min(16);
            let m = ((1u32 << n) - 1) as u16;
            let r = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(m, vals.as_ptr().add(k)));
            _mm256_mask_storeu_epi16(
                dst.add(k) as *mut i16,
                m,
                std::mem::transmute::<__m256bh, __m256i>(r),
            );
            k += n;
        }
    }
}

/// [`store_bf16_avx512`] on AVX2: 8 lanes, blends for the masks, an unsigned pack (every
/// lane is below 2^16) for the narrowing.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn store_bf16_avx2(vals: &[f32], dst: *mut u16, onednn: bool) {
    // SAFETY: AVX2 was detected by the caller; loads stay within `vals`, stores within the
    // caller-guaranteed room for `vals.len()` values at `dst`.
    unsafe {
        use std::arch::x86_64::*;
        let full = vals.len() / 8;
        for k in 0..full {
            let r = bf16_round_avx2(_mm256_loadu_ps(vals.as_ptr().add(8 * k)), onednn);
            _mm_storeu_si128(dst.add(8 * k) as *mut __m128i, r);
        }
        store_bf16_body(&vals[8 * full..], dst.add(8 * full), onednn)
    }
}

#[inline(always)]
unsafe fn gather2_body(row: *const f32, t: &super::kernels::WTable, out: &mut [f32]) {
    // SAFETY: the caller guarantees `row` covers every column the table names (`i0`, `i1`); `n` is
    // at most both lengths.
    unsafe {
        let n = out.len().min(t.i0.len());
        let (i0, i1, w0, w1) = (&t.i0[..n], &t.i1[..n], &t.w0[..n], &t.w1[..n]);
        for o in 0..n {
            out[o] = row.add(i0[o] as usize).read_unaligned() * w0[o]
                + row.add(i1[o] as usize).read_unaligned() * w1[o];
        }
    }
}

/// `out[o] = row[i0[o]] * w0[o] + row[i1[o]] * w1[o]`: the W lerp of a row (the reference's
/// outermost reduction); `row` must cover every column the table names.
pub(crate) unsafe fn gather2(row: *const f32, t: &super::kernels::WTable, out: &mut [f32]) {
    // SAFETY: the variants run only under an ISA `isa()` reports; the caller's contract is passed
    // on.
    unsafe {
        #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx512f"))]
        unsafe fn avx512(row: *const f32, t: &super::kernels::WTable, out: &mut [f32]) {
            // SAFETY: AVX-512F was detected by the caller; `gather2_body`'s contract is the
            // caller's.
            unsafe { gather2_body(row, t, out) }
        }
        #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2"))]
        unsafe fn avx2(row: *const f32, t: &super::kernels::WTable, out: &mut [f32]) {
            // SAFETY: AVX2 was detected by the caller; `gather2_body`'s contract is the caller's.
            unsafe { gather2_body(row, t, out) }
        }
        match isa() {
            Isa::Avx512 => avx512(row, t, out),
            Isa::Avx2 => avx2(row, t, out),
            Isa::Base | Isa::Neon => gather2_body(row, t, out),
        }
    }
}

#[inline(always)]
unsafe fn repeat_body<T: Copy, const K: usize>(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: the caller guarantees `n` readable elements at `src` and `n * K` writable ones at
    // `dst` (any alignment).
    unsafe {
        let (s, d) = (src as *const T, dst as *mut T);
        for i in 0..n {
            let v = s.add(i).read_unaligned();
            for j in 0..K {
                d.add(i * K + j).write_unaligned(v);
            }
        }
    }
}

/// AVX-512 VBMI (byte permutes), detected once.
pub(crate) fn byte_permutes() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static VBMI: OnceLock<bool> = OnceLock::new();
        return isa() == Isa::Avx512
            && *VBMI.get_or_init(|| {
                is_x86_feature_detected!("avx512vbmi") && is_x86_feature_detected!("avx512bw")
            });
    }
    #[allow(unreachable_code)]
    false
}

/// (output bytes per block, source window bytes) of this CPU's byte permutes: 64 from 128
/// with AVX-512 VBMI (`vpermt2b`), 16 from 16 with SSSE3 `pshufb` on the other x86 vector
/// ISAs; none elsewhere.
pub(crate) fn byte_permute_blocks() -> Option<(usize, usize)> {
    if byte_permutes() {
        return Some((64, 128));
    }
    match isa() {
        Isa::Avx2 | Isa::Avx512 if cfg!(target_arch = "x86_64") => Some((16, 16)),
        _ => None,
    }
}

/// (output bytes per block, source window bytes) of the permutes for pixels of `px` bytes:
/// [`byte_permute_blocks`], except that without VBMI, pixels of whole 4-byte words take
/// AVX2 word permutes (`vpermd`), 32 bytes from 32: twice a `pshufb`'s bytes an
/// instruction, across the lanes (see `words` in `kernels::rows::fwd_row_geom`). Rows
/// whose blocks outgrow that window take twice it (`BytePerm::new`: two permutes and a
/// blend, 2x nearest downsampling: nchw f32 8x64 112x112->56x56 1.27 -> 1.03 ms, oneDNN 2.6
/// at AVX2 1.09; 8x64 8623->4312 1.07 -> 0.98, 0.95; `RESAMPLE_ISA=avx2`, 1 thread).
pub(crate) fn permute_blocks(px: usize) -> Option<(usize, usize)> {
    match byte_permute_blocks()? {
        // (Pixels of 32 bytes or more copy as they are: `BytePerm::new`.)
        (16, _) if px.is_multiple_of(4) && px < WORD_BLOCK => Some((WORD_BLOCK, WORD_BLOCK)),
        b => Some(b),
    }
}

/// Bytes of an AVX2 word-permute block (and of its source window).
const WORD_BLOCK: usize = 32;

/// One block of a byte-permuted row: where its source window starts (a byte of the source
/// row) and where its indices start in the tables' index bytes (blocks with the same
/// indices share them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PermBlock {
    pub src: u32,
    pub pat: u32,
}

/// First output byte of permute block `j` of a row of `out_bytes` (see
/// `BytePerm::block_start`): word blocks end at the row's end at the latest, once it holds
/// one.
pub(crate) fn permute_block_start(block: usize, out_bytes: usize, j: usize) -> usize {
    if word_permutes(block) {
        word_block_start(out_bytes, j)
    } else {
        block * j
    }
}

/// [`permute_block_start`] of word blocks.
#[inline]
fn word_block_start(out_bytes: usize, j: usize) -> usize {
    match out_bytes.checked_sub(WORD_BLOCK) {
        Some(last) => (WORD_BLOCK * j).min(last),
        None => WORD_BLOCK * j,
    }
}

/// Whether permute blocks of `block` bytes are AVX2 word permutes.
pub(crate) fn word_permutes(block: usize) -> bool {
    block == WORD_BLOCK && !byte_permutes()
}

/// Block `j` of a word-permuted row (32 bytes, AVX2): its window of the `src_bytes` at `src`
/// (32 bytes, `WIDE` 64; masked near their end: masked-off words are not read) permuted by
/// word, bf16 values fixed up with `FIX`. Output word `k` is window word `idx[32 j + 4 k] /
/// 4` (the tables' byte indices of whole words: `vpermd` reads bits 0-2 of each word shifted
/// right by 2, the blend bit 3).
///
/// # Safety
/// AVX2; the tables as [`permute_bytes`] requires them, built for whole-word pixels, with
/// block `j` among them; `src_bytes` a multiple of 4.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn permuted_words<const FIX: bool, const WIDE: bool>(
    base: &[PermBlock],
    idx: &[u8],
    j: usize,
    src: *const u8,
    src_bytes: usize,
) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    // SAFETY: the caller's contract: `base[j]` lies within the `src_bytes` (both multiples
    // of 4), read only within them, and `idx` holds 32 bytes per block.
    unsafe {
        let b = base[j].src as usize;
        let s = src.add(b);
        let avail = src_bytes - b;
        let load = |at: usize| {
            let n = avail.saturating_sub(at);
            if n >= WORD_BLOCK {
                _mm256_loadu_si256(s.add(at) as *const __m256i)
            } else {
                _mm256_maskload_epi32(s.add(at.min(avail)) as *const i32, word_mask(n / 4))
            }
        };
        let p = word_indices(idx, base[j].pat as usize);
        window_words::<FIX, WIDE>(load(0), || load(WORD_BLOCK), p, word_high(p))
    }
}

/// A block's word indices (the tables' byte indices from `at` on, shifted right by 2).
///
/// # Safety
/// AVX2; `idx` holds 32 bytes from `at`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn word_indices(idx: &[u8], at: usize) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    // SAFETY: the caller's contract.
    unsafe {
        let i = _mm256_loadu_si256(idx.as_ptr().add(at) as *const __m256i);
        _mm256_srli_epi32::<2>(i)
    }
}

/// The lanes of word indices `p` that read a 64-byte window's second vector (bit 3), as a
/// blend selector.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn word_high(p: std::arch::x86_64::__m256i) -> std::arch::x86_64::__m256 {
    use std::arch::x86_64::*;
    _mm256_castsi256_ps(_mm256_slli_epi32::<28>(p))
}

/// A word block out of its window: `lo` permuted by `p`, with `WIDE` the lanes `sel` names
/// from the window's second vector `hi()`, bf16 values fixed up with `FIX`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn window_words<const FIX: bool, const WIDE: bool>(
    lo: std::arch::x86_64::__m256i,
    hi: impl FnOnce() -> std::arch::x86_64::__m256i,
    p: std::arch::x86_64::__m256i,
    sel: std::arch::x86_64::__m256,
) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    let v = _mm256_permutevar8x32_epi32(lo, p);
    let v = match WIDE {
        true => {
            let hi = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(hi(), p));
            _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(v), hi, sel))
        }
        false => v,
    };
    if FIX {
        // SAFETY: AVX2 is enabled here (`bf16_fix_avx2`'s requirement, inlined).
        unsafe { bf16_fix_avx2(v) }
    } else {
        v
    }
}

/// Streams `lines` whole 64-byte lines to every row of `dsts` in turn, line `l` being the two
/// 32-byte halves `line(l)`, built once for all the rows.
///
/// # Safety
/// AVX2; every row of `dsts` starts a line and has room for the `lines`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn stream_lines(
    lines: usize,
    dsts: &[*mut u8],
    mut line: impl FnMut(usize) -> (std::arch::x86_64::__m256i, std::arch::x86_64::__m256i),
) {
    use std::arch::x86_64::*;
    for l in 0..lines {
        let (v0, v1) = line(l);
        for &d in dsts {
            // SAFETY: the caller's contract.
            unsafe {
                _mm256_stream_si256(d.add(64 * l) as *mut __m256i, v0);
                _mm256_stream_si256(d.add(64 * l + 32) as *mut __m256i, v1);
            }
        }
    }
}

/// Word block `j` of a row of `out_bytes` (a multiple of 4) at `dst`: whole at its
/// [`permute_block_start`], or masked in a row shorter than a block.
///
/// # Safety
/// AVX2; `out_bytes` writable at `dst`, `j` one of the row's blocks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn word_store(dst: *mut u8, out_bytes: usize, j: usize, v: std::arch::x86_64::__m256i) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's contract: the block lies in the row.
    unsafe {
        if out_bytes >= WORD_BLOCK {
            let at = word_block_start(out_bytes, j);
            _mm256_storeu_si256(dst.add(at) as *mut __m256i, v);
        } else {
            _mm256_maskstore_epi32(dst as *mut i32, word_mask(out_bytes / 4), v);
        }
    }
}

/// Word-permuted rows (see [`permute_bytes`]) from the same tables: row `r` from
/// `rows[r].0` (its `src_bytes`) into `rows[r].1` (its `out_bytes`), in one loop, where
/// a call per row cost short rows more than their permutes.
///
/// # Safety
/// AVX2; the tables built for whole-word pixels by [`permute_blocks`]; each row's buffers
/// as [`permute_bytes`] requires them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn word_rows<const FIX: bool, const WIDE: bool>(
    base: &[PermBlock],
    idx: &[u8],
    src_bytes: usize,
    out_bytes: usize,
    rows: &[(*const u8, *mut u8)],
) {
    // SAFETY: the tables' blocks are read as `permuted_words` requires; stores as
    // `word_store` makes them, within each row.
    unsafe {
        let window = if WIDE { 2 * WORD_BLOCK } else { WORD_BLOCK };
        if out_bytes >= WORD_BLOCK && base.iter().all(|b| src_bytes - b.src as usize >= window) {
            match base.len() {
                1 => return word_rows_held::<FIX, WIDE, 1>(base, idx, out_bytes, rows),
                2 => return word_rows_held::<FIX, WIDE, 2>(base, idx, out_bytes, rows),
                3 => return word_rows_held::<FIX, WIDE, 3>(base, idx, out_bytes, rows),
                4 => return word_rows_held::<FIX, WIDE, 4>(base, idx, out_bytes, rows),
                5 => return word_rows_held::<FIX, WIDE, 5>(base, idx, out_bytes, rows),
                6 => return word_rows_held::<FIX, WIDE, 6>(base, idx, out_bytes, rows),
                7 => return word_rows_held::<FIX, WIDE, 7>(base, idx, out_bytes, rows),
                8 => return word_rows_held::<FIX, WIDE, 8>(base, idx, out_bytes, rows),
                _ => {}
            }
        }
        for &(src, dst) in rows {
            for j in 0..base.len() {
                let v = permuted_words::<FIX, WIDE>(base, idx, j, src, src_bytes);
                word_store(dst, out_bytes, j, v);
            }
        }
    }
}

/// [`word_rows`] of `NB` blocks a row whose windows lie whole within the row: each block's
/// word indices and offsets held across the rows (rebuilt per block from the tables, with
/// the row's end checked, they were most of a row of 31 outputs: nchw f32 1x16 22x62->
/// 60x31 nearest at AVX2 7.7 -> 4.6 us, oneDNN 6.2; 8x32 10x18->17x39 27.5 -> 20.5, 34.9).
///
/// # Safety
/// As [`word_rows`], with `src_bytes - base[j]` at least a window for every block and
/// `out_bytes` at least a block.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn word_rows_held<const FIX: bool, const WIDE: bool, const NB: usize>(
    base: &[PermBlock],
    idx: &[u8],
    out_bytes: usize,
    rows: &[(*const u8, *mut u8)],
) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's contract: whole windows within each row's source, blocks within
    // its output; `idx` holds 32 bytes per block.
    unsafe {
        let p: [__m256i; NB] = std::array::from_fn(|j| word_indices(idx, base[j].pat as usize));
        let sel: [__m256; NB] = std::array::from_fn(|j| word_high(p[j]));
        let b: [usize; NB] = std::array::from_fn(|j| base[j].src as usize);
        let at: [usize; NB] = std::array::from_fn(|j| word_block_start(out_bytes, j));
        for &(src, dst) in rows {
            for j in 0..NB {
                let s = src.add(b[j]);
                let load = |at: usize| _mm256_loadu_si256(s.add(at) as *const __m256i);
                let v = window_words::<FIX, WIDE>(load(0), || load(WORD_BLOCK), p[j], sel[j]);
                _mm256_storeu_si256(dst.add(at[j]) as *mut __m256i, v);
            }
        }
    }
}

/// `$f::<FIX, WIDE>($args)` for runtime `fix` and `wide`: the word kernels' four variants.
#[cfg(target_arch = "x86_64")]
macro_rules! by_fix_wide {
    ($f:ident, $fix:expr, $wide:expr, ($($a:expr),*)) => {
        match ($fix, $wide) {
            (false, false) => $f::<false, false>($($a),*),
            (true, false) => $f::<true, false>($($a),*),
            (false, true) => $f::<false, true>($($a),*),
            (true, true) => $f::<true, true>($($a),*),
        }
    };
}

/// [`permute_bytes`] of several rows by word tables (`block` from [`permute_blocks`] for
/// whole-word pixels, without VBMI): `false` (nothing written) elsewhere.
///
/// # Safety
/// As [`permute_bytes`], for each row of `rows` (source, destination).
pub(crate) unsafe fn permute_word_rows(
    base: &[PermBlock],
    idx: &[u8],
    (block, window): (usize, usize),
    src_bytes: usize,
    out_bytes: usize,
    rows: &[(*const u8, *mut u8)],
    bf16_fix: bool,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if word_permutes(block) && byte_permute_blocks() == Some((16, 16)) {
        // SAFETY: the caller's contract; AVX2 is there (16-byte blocks only on the AVX2 and
        // AVX-512 ISAs).
        unsafe {
            let a = (base, idx, src_bytes, out_bytes, rows);
            by_fix_wide!(
                word_rows,
                bf16_fix,
                window > WORD_BLOCK,
                (a.0, a.1, a.2, a.3, a.4)
            )
        }
        return true;
    }
    let _ = (
        base, idx, block, window, src_bytes, out_bytes, rows, bf16_fix,
    );
    false
}

/// Words (f32 lanes) `0..n` of a 32-byte vector, all eight from `n = 8` up, as an AVX2 mask.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn word_mask(n: usize) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    _mm256_cmpgt_epi32(
        _mm256_set1_epi32(n.min(8) as i32),
        _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
    )
}

/// Block `j` of a byte-permuted row (16 bytes, SSSE3): its window of the `src_bytes` at
/// `src` (copied to the stack near the row's end, so loads stay within them) permuted by
/// its 16 indices, bf16 values fixed up with `FIX`.
///
/// # Safety
/// SSSE3; the tables as [`permute_bytes`] requires them, with block `j` among them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
#[inline]
unsafe fn permuted_16<const FIX: bool>(
    base: &[PermBlock],
    idx: &[u8],
    j: usize,
    src: *const u8,
    src_bytes: usize,
) -> std::arch::x86_64::__m128i {
    use std::arch::x86_64::*;
    // SAFETY: the caller's contract: `base[j]` lies within the `src_bytes`, whose last 16
    // at most are read (the rest from the stack), and `idx` holds 16 bytes per block.
    unsafe {
        let b = base[j].src as usize;
        let avail = src_bytes - b;
        let w = if avail >= 16 {
            _mm_loadu_si128(src.add(b) as *const __m128i)
        } else {
            let mut t = [0u8; 16];
            std::ptr::copy_nonoverlapping(src.add(b), t.as_mut_ptr(), avail);
            _mm_loadu_si128(t.as_ptr() as *const __m128i)
        };
        let p = _mm_loadu_si128(idx.as_ptr().add(base[j].pat as usize) as *const __m128i);
        let v = _mm_shuffle_epi8(w, p);
        if FIX {
            bf16_fix_sse2(v)
        } else {
            v
        }
    }
}

/// Bytes `0..n` of a 64-byte vector, as a mask.
#[cfg(target_arch = "x86_64")]
fn mask64(n: usize) -> u64 {
    if n >= 64 {
        !0
    } else {
        (1u64 << n) - 1
    }
}

/// Block `j` of a byte-permuted row (64 bytes, AVX-512 VBMI): its 128-byte window of the
/// `src_bytes` at `src` (masked near their end: masked-off bytes are not read) permuted by
/// its 64 indices, bf16 values fixed up with `FIX`.
///
/// # Safety
/// AVX-512 F/BW/VBMI; the tables as [`permute_bytes`] requires them, with block `j` among
/// them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
unsafe fn permuted_64<const FIX: bool>(
    base: &[PermBlock],
    idx: &[u8],
    j: usize,
    src: *const u8,
    src_bytes: usize,
) -> std::arch::x86_64::__m512i {
    use std::arch::x86_64::*;
    // SAFETY: the caller's contract: `base[j]` lies within the `src_bytes`, read only
    // within them, and `idx` holds 64 bytes per block.
    unsafe {
        let b = base[j].src as usize;
        let s = src.add(b);
        let avail = src_bytes - b;
        let (lo, hi) = if avail >= 128 {
            (
                _mm512_loadu_si512(s as *const _),
                _mm512_loadu_si512(s.add(64) as *const _),
            )
        } else {
            (
                _mm512_maskz_loadu_epi8(mask64(avail), s as *const i8),
                _mm512_maskz_loadu_epi8(
                    mask64(avail.saturating_sub(64)),
                    s.add(64.min(avail)) as *const i8,
                ),
            )
        };
        let p = _mm512_loadu_si512(idx.as_ptr().add(base[j].pat as usize) as *const _);
        let v = _mm512_permutex2var_epi8(lo, p, hi);
        if FIX {
            bf16_fix_avx512(v)
        } else {
            v
        }
    }
}

/// `dst[o] = src[base[o / block] + idx[o]]` for the `out_bytes` bytes of a row, from a
/// source row of `src_bytes` (read only within it): one byte permute per `block` bytes
/// (see [`permute_blocks`]).
///
/// # Safety
/// `src` holds `src_bytes`, `dst` has room for `out_bytes`; the tables are consistent
/// (every `base + idx` of a stored byte below `src_bytes`, `idx` below the window) and were
/// built for this CPU's `block` by [`permute_blocks`].
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn permute_bytes(
    base: &[PermBlock],
    idx: &[u8],
    (block, window): (usize, usize),
    src: *const u8,
    src_bytes: usize,
    dst: *mut u8,
    out_bytes: usize,
    bf16_fix: bool,
) {
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "ssse3")]
    unsafe fn ssse3<const FIX: bool>(
        base: &[PermBlock],
        idx: &[u8],
        src: *const u8,
        src_bytes: usize,
        dst: *mut u8,
        out_bytes: usize,
    ) {
        use std::arch::x86_64::*;
        // SAFETY: the tables' blocks are read as `permuted_16` requires; stores stay within
        // the `out_bytes` at `dst` (the last block's through the stack).
        unsafe {
            for j in 0..base.len() {
                let v = permuted_16::<FIX>(base, idx, j, src, src_bytes);
                let n = out_bytes - 16 * j;
                if n >= 16 {
                    _mm_storeu_si128(dst.add(16 * j) as *mut __m128i, v);
                } else {
                    let mut t = [0u8; 16];
                    _mm_storeu_si128(t.as_mut_ptr() as *mut __m128i, v);
                    std::ptr::copy_nonoverlapping(t.as_ptr(), dst.add(16 * j), n);
                }
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    unsafe fn vbmi<const FIX: bool>(
        base: &[PermBlock],
        idx: &[u8],
        src: *const u8,
        src_bytes: usize,
        dst: *mut u8,
        out_bytes: usize,
    ) {
        use std::arch::x86_64::*;
        // SAFETY: the tables' blocks are read as `permuted_64` requires; stores stay within
        // the `out_bytes` at `dst` (the last block's masked).
        unsafe {
            for j in 0..base.len() {
                let v = permuted_64::<FIX>(base, idx, j, src, src_bytes);
                let n = out_bytes - 64 * j;
                if n >= 64 {
                    _mm512_storeu_si512(dst.add(64 * j) as *mut _, v);
                } else {
                    _mm512_mask_storeu_epi8(dst.add(64 * j) as *mut i8, mask64(n), v);
                }
            }
        }
    }
    // SAFETY: the caller's contract, as `permute_word_rows` requires it (a row of its own).
    if unsafe {
        permute_word_rows(
            base,
            idx,
            (block, window),
            src_bytes,
            out_bytes,
            &[(src, dst)],
            bf16_fix,
        )
    } {
        return;
    }
    // SAFETY: the caller's contract; each variant runs only on the block size
    // `byte_permute_blocks` gives this CPU (VBMI where `byte_permutes` said so, SSSE3 on the
    // x86 vector ISAs, which imply it).
    unsafe {
        #[cfg(target_arch = "x86_64")]
        match (byte_permute_blocks(), bf16_fix) {
            (Some((64, _)), false) if block == 64 => {
                return vbmi::<false>(base, idx, src, src_bytes, dst, out_bytes)
            }
            (Some((64, _)), true) if block == 64 => {
                return vbmi::<true>(base, idx, src, src_bytes, dst, out_bytes)
            }
            (Some((16, _)), false) if block == 16 => {
                return ssse3::<false>(base, idx, src, src_bytes, dst, out_bytes)
            }
            (Some((16, _)), true) if block == 16 => {
                return ssse3::<true>(base, idx, src, src_bytes, dst, out_bytes)
            }
            _ => {}
        }
        for (j, b) in base.iter().enumerate() {
            let start = permute_block_start(block, out_bytes, j);
            for o in start..(start + block).min(out_bytes) {
                let at = b.src as usize + idx[b.pat as usize + o - start] as usize;
                debug_assert!(at < src_bytes);
                *dst.add(o) = *src.add(at);
            }
        }
        if bf16_fix {
            self::bf16_fix(dst, out_bytes / 2);
        }
    }
}

/// [`permute_bytes`] streamed to several rows at once: the same `out_bytes` to each of
/// `dsts`, every block built once in registers and stored past the cache to each row. A
/// long row built in scratch and then stream-copied read it back from L2 per row, apart
/// from the source reads: HWC f32 C=3 1080x1920->2160x3840 nearest took twice the time of
/// the same bytes as nchw. Side by side, 1 thread, ms: that image f32 9.5 -> 5.6, u8 1.5 ->
/// 1.2, bf16 3.8 -> 2.8 (AVX-512 VBMI; 2 threads f32 3.9 -> 2.8); with `RESAMPLE_ISA=avx2`
/// f32 12.9 -> 9.1, u8 1.9 -> 1.6 (whole lines per row in turn: 32-byte pairs alternating
/// between the rows measured no better than the scratch row).
/// `false` (nothing written) unless this ISA has byte permutes and every row starts a
/// 64-byte line (its whole lines then take streamed stores alone; a partial last line a
/// plain masked one).
///
/// # Safety
/// As [`permute_bytes`], for each of `dsts`; the rows do not overlap `src` or each other.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn permute_bytes_stream(
    base: &[PermBlock],
    idx: &[u8],
    (block, window): (usize, usize),
    src: *const u8,
    src_bytes: usize,
    dsts: &[*mut u8],
    out_bytes: usize,
    bf16_fix: bool,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn avx2<const FIX: bool>(
        base: &[PermBlock],
        idx: &[u8],
        src: *const u8,
        src_bytes: usize,
        dsts: &[*mut u8],
        out_bytes: usize,
    ) {
        use std::arch::x86_64::*;
        // SAFETY: the tables' blocks are read as `permuted_16` requires; stores stay within
        // the `out_bytes` at each row: a line's four blocks as two 32-byte streamed stores
        // to one row after the other (aligned: the rows start lines; each row's line
        // completed before the next row's begins), the rest through the stack.
        unsafe {
            let one = |j: usize| permuted_16::<FIX>(base, idx, j, src, src_bytes);
            let lines = out_bytes / 64;
            stream_lines(lines, dsts, |l| {
                let j = 4 * l;
                (
                    _mm256_set_m128i(one(j + 1), one(j)),
                    _mm256_set_m128i(one(j + 3), one(j + 2)),
                )
            });
            for j in 4 * lines..base.len() {
                let v = one(j);
                let n = (out_bytes - 16 * j).min(16);
                let mut t = [0u8; 16];
                _mm_storeu_si128(t.as_mut_ptr() as *mut __m128i, v);
                for &d in dsts {
                    std::ptr::copy_nonoverlapping(t.as_ptr(), d.add(16 * j), n);
                }
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn words<const FIX: bool, const WIDE: bool>(
        base: &[PermBlock],
        idx: &[u8],
        src: *const u8,
        src_bytes: usize,
        dsts: &[*mut u8],
        out_bytes: usize,
    ) {
        // SAFETY: the tables' blocks are read as `permuted_words` requires; stores stay
        // within the `out_bytes` at each row: a line's two blocks streamed to one row after
        // the other (the rows start lines; whole lines hold no row-ending block), the rest
        // plain (`word_store`).
        unsafe {
            let one = |j: usize| permuted_words::<FIX, WIDE>(base, idx, j, src, src_bytes);
            let lines = out_bytes / 64;
            stream_lines(lines, dsts, |l| (one(2 * l), one(2 * l + 1)));
            for j in 2 * lines..base.len() {
                let v = one(j);
                for &d in dsts {
                    word_store(d, out_bytes, j, v);
                }
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    unsafe fn vbmi<const FIX: bool>(
        base: &[PermBlock],
        idx: &[u8],
        src: *const u8,
        src_bytes: usize,
        dsts: &[*mut u8],
        out_bytes: usize,
    ) {
        use std::arch::x86_64::*;
        // SAFETY: the tables' blocks are read as `permuted_64` requires; stores stay within
        // the `out_bytes` at each row, whole blocks at 64-byte aligned addresses (the rows
        // start lines), the last one masked.
        unsafe {
            for j in 0..base.len() {
                let v = permuted_64::<FIX>(base, idx, j, src, src_bytes);
                let n = out_bytes - 64 * j;
                for &d in dsts {
                    if n >= 64 {
                        _mm512_stream_si512(d.add(64 * j) as *mut _, v);
                    } else {
                        _mm512_mask_storeu_epi8(d.add(64 * j) as *mut i8, mask64(n), v);
                    }
                }
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    if dsts.iter().all(|&d| (d as usize).is_multiple_of(64)) {
        // SAFETY: the caller's contract; each variant runs only on the block size
        // `byte_permute_blocks` gives this CPU, as in `permute_bytes` (16-byte blocks only on
        // the AVX2 and AVX-512 ISAs, which the `avx2` variant needs).
        unsafe {
            match (byte_permute_blocks(), bf16_fix) {
                (Some((64, _)), false) if block == 64 => {
                    vbmi::<false>(base, idx, src, src_bytes, dsts, out_bytes)
                }
                (Some((64, _)), true) if block == 64 => {
                    vbmi::<true>(base, idx, src, src_bytes, dsts, out_bytes)
                }
                (Some((16, _)), fix) if block == WORD_BLOCK => {
                    let a = (base, idx, src, src_bytes, dsts, out_bytes);
                    by_fix_wide!(
                        words,
                        fix,
                        window > WORD_BLOCK,
                        (a.0, a.1, a.2, a.3, a.4, a.5)
                    )
                }
                (Some((16, _)), false) if block == 16 => {
                    avx2::<false>(base, idx, src, src_bytes, dsts, out_bytes)
                }
                (Some((16, _)), true) if block == 16 => {
                    avx2::<true>(base, idx, src, src_bytes, dsts, out_bytes)
                }
                _ => return false,
            }
        }
        return true;
    }
    let _ = (
        base, idx, block, window, src, src_bytes, dsts, out_bytes, bf16_fix,
    );
    false
}

/// [`repeat_raw`] of 4-byte elements by 2, streamed: `dst[2i] = dst[2i + 1] = src[i]` for
/// `i < n`, each output vector duplicated in registers and stored past the cache. `false`
/// (nothing written) unless this ISA has the vectors, `n` is a multiple of 8 and `dst`
/// starts a line (every 64-byte line is then written by streamed stores alone).
///
/// # Safety
/// `n` readable elements at `src`, `2n` writable ones at `dst`, not overlapping.
pub(crate) unsafe fn repeat2_stream32(src: *const u32, dst: *mut u32, n: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        unsafe fn avx512(src: *const u32, dst: *mut u32, n: usize) {
            // SAFETY: AVX-512F detected by the caller; reads `src[..n]`, writes `dst[..2n]`,
            // whole 64-byte lines from an aligned `dst` (`n % 8 == 0`).
            unsafe {
                use std::arch::x86_64::*;
                let lo = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
                let hi = _mm512_add_epi32(lo, _mm512_set1_epi32(8));
                let mut i = 0;
                while i + 16 <= n {
                    let a = _mm512_loadu_si512(src.add(i) as *const _);
                    _mm512_stream_si512(dst.add(2 * i) as *mut _, _mm512_permutexvar_epi32(lo, a));
                    _mm512_stream_si512(
                        dst.add(2 * i + 16) as *mut _,
                        _mm512_permutexvar_epi32(hi, a),
                    );
                    i += 16;
                }
                if i < n {
                    let a = _mm512_castsi256_si512(_mm256_loadu_si256(src.add(i) as *const _));
                    _mm512_stream_si512(dst.add(2 * i) as *mut _, _mm512_permutexvar_epi32(lo, a));
                }
            }
        }
        #[target_feature(enable = "avx2")]
        unsafe fn avx2(src: *const u32, dst: *mut u32, n: usize) {
            // SAFETY: AVX2 detected by the caller; reads `src[..n]`, writes `dst[..2n]` in
            // 32-byte stores at 32-byte aligned addresses (`dst` aligned, `n % 8 == 0`).
            unsafe {
                use std::arch::x86_64::*;
                let lo = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
                let hi = _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7);
                for i in (0..n).step_by(8) {
                    let a = _mm256_loadu_si256(src.add(i) as *const __m256i);
                    let d = dst.add(2 * i) as *mut __m256i;
                    _mm256_stream_si256(d, _mm256_permutevar8x32_epi32(a, lo));
                    _mm256_stream_si256(d.add(1), _mm256_permutevar8x32_epi32(a, hi));
                }
            }
        }
        if n.is_multiple_of(8) && (dst as usize).is_multiple_of(64) {
            // SAFETY: the caller's contract; each variant runs on an ISA the CPU has.
            unsafe {
                match isa() {
                    Isa::Avx512 => avx512(src, dst, n),
                    Isa::Avx2 => avx2(src, dst, n),
                    _ => return false,
                }
            }
            return true;
        }
    }
    let _ = (src, dst, n);
    false
}

/// `dst[i*k + j] = src[i]` for `i < n`, `j < k`: nearest upsampling by an integer factor.
pub(crate) unsafe fn repeat_raw(size: usize, src: *const u8, dst: *mut u8, n: usize, k: usize) {
    // SAFETY: `by_k` gets the caller's contract (`n` elements of `size` bytes in, `n * k` out)
    // unchanged.
    unsafe {
        #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2"))]
        unsafe fn avx2<T: Copy, const K: usize>(src: *const u8, dst: *mut u8, n: usize) {
            // SAFETY: AVX2 was detected by the caller; `repeat_body`'s contract is the caller's.
            unsafe { repeat_body::<T, K>(src, dst, n) }
        }
        unsafe fn by_k<T: Copy>(src: *const u8, dst: *mut u8, n: usize, k: usize) {
            // SAFETY: the caller guarantees `n` elements at `src` and `n * k` at `dst`, disjoint;
            // the AVX2 variant runs only when `isa()` has it.
            unsafe {
                let vec = isa() != Isa::Base;
                match (k, vec) {
                    (1, _) => std::ptr::copy_nonoverlapping(src, dst, n * std::mem::size_of::<T>()),
                    (2, true) => avx2::<T, 2>(src, dst, n),
                    (2, false) => repeat_body::<T, 2>(src, dst, n),
                    (3, true) => avx2::<T, 3>(src, dst, n),
                    (4, true) => avx2::<T, 4>(src, dst, n),
                    _ => {
                        let (s, d) = (src as *const T, dst as *mut T);
                        for i in 0..n * k {
                            d.add(i).write_unaligned(s.add(i / k).read_unaligned());
                        }
                    }
                }
            }
        }
        match size {
            4 => by_k::<u32>(src, dst, n, k),
            2 => by_k::<u16>(src, dst, n, k),
            1 => by_k::<u8>(src, dst, n, k),
            _ => by_k::<u64>(src, dst, n, k),
        }
    }
}

/// oneDNN's bf16 -> f32 -> bf16 round trip on the bits: subnormals flush to a signed zero,
/// NaNs are quieted (`| 0x40`), everything else is unchanged.
#[inline(always)]
pub(crate) fn bf16_roundtrip_bits(b: u16) -> u16 {
    let sub = b & 0x7F80 == 0;
    let nan = b & 0x7FFF > 0x7F80;
    if sub {
        b & 0x8000
    } else if nan {
        b | 0x40
    } else {
        b
    }
}

/// [`bf16_roundtrip_bits`] on the 16 bf16 lanes of `v`: subnormals (zero exponent) keep
/// only their sign, NaNs get the quiet bit.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn bf16_fix_avx2(v: std::arch::x86_64::__m256i) -> std::arch::x86_64::__m256i {
    // SAFETY: the callers enable AVX2; register operations only.
    unsafe {
        use std::arch::x86_64::*;
        let exp = _mm256_and_si256(v, _mm256_set1_epi16(0x7F80));
        let sub = _mm256_cmpeq_epi16(exp, _mm256_setzero_si256());
        // Non-negative as i16, so the signed compare orders magnitudes.
        let mag = _mm256_and_si256(v, _mm256_set1_epi16(0x7FFF));
        let nan = _mm256_cmpgt_epi16(mag, _mm256_set1_epi16(0x7F80));
        let kept = _mm256_andnot_si256(_mm256_and_si256(sub, _mm256_set1_epi16(0x7FFF)), v);
        _mm256_or_si256(kept, _mm256_and_si256(nan, _mm256_set1_epi16(0x40)))
    }
}

/// [`bf16_fix_avx2`] on the 8 bf16 lanes of `v`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn bf16_fix_sse2(v: std::arch::x86_64::__m128i) -> std::arch::x86_64::__m128i {
    // SAFETY: SSE2 is x86_64's baseline; register operations only.
    unsafe {
        use std::arch::x86_64::*;
        let exp = _mm_and_si128(v, _mm_set1_epi16(0x7F80));
        let sub = _mm_cmpeq_epi16(exp, _mm_setzero_si128());
        // Non-negative as i16, so the signed compare orders magnitudes.
        let mag = _mm_and_si128(v, _mm_set1_epi16(0x7FFF));
        let nan = _mm_cmpgt_epi16(mag, _mm_set1_epi16(0x7F80));
        let kept = _mm_andnot_si128(_mm_and_si128(sub, _mm_set1_epi16(0x7FFF)), v);
        _mm_or_si128(kept, _mm_and_si128(nan, _mm_set1_epi16(0x40)))
    }
}

/// [`bf16_fix_avx2`] on the 32 bf16 lanes of `v`, with mask registers.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn bf16_fix_avx512(v: std::arch::x86_64::__m512i) -> std::arch::x86_64::__m512i {
    // SAFETY: the callers enable AVX-512F/BW; register operations only.
    unsafe {
        use std::arch::x86_64::*;
        let exp = _mm512_and_si512(v, _mm512_set1_epi16(0x7F80));
        let sub = _mm512_cmpeq_epi16_mask(exp, _mm512_setzero_si512());
        // Non-negative as i16, so the signed compare orders magnitudes.
        let mag = _mm512_and_si512(v, _mm512_set1_epi16(0x7FFF));
        let nan = _mm512_cmpgt_epi16_mask(mag, _mm512_set1_epi16(0x7F80));
        let signed = _mm512_and_si512(v, _mm512_set1_epi16(-0x8000));
        let kept = _mm512_mask_mov_epi16(v, sub, signed);
        _mm512_mask_mov_epi16(kept, nan, _mm512_or_si512(v, _mm512_set1_epi16(0x40)))
    }
}

/// Applies [`bf16_roundtrip_bits`] to the `n` bf16 values at `p` in place (a raw nearest
/// copy's fixup under oneDNN numerics).
pub(crate) unsafe fn bf16_fix(p: *mut u8, n: usize) {
    #[inline(always)]
    fn body(v: &mut [u16]) {
        for x in v {
            *x = bf16_roundtrip_bits(*x);
        }
    }
    #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2"))]
    unsafe fn avx2(v: &mut [u16]) {
        body(v)
    }
    // SAFETY: the caller guarantees `n` writable, element-aligned u16 at `p` (the plan runs
    // misaligned buffers through aligned copies); AVX2 code runs only when detected.
    unsafe {
        let v = std::slice::from_raw_parts_mut(p as *mut u16, n);
        match isa() {
            Isa::Avx512 | Isa::Avx2 => avx2(v),
            Isa::Base | Isa::Neon => body(v),
        }
    }
}

#[inline(always)]
unsafe fn copy_bf16_body(src: *const u16, dst: *mut u16, n: usize) {
    // SAFETY: the caller guarantees `n` readable u16 at `src` and `n` writable at `dst` (any
    // alignment).
    unsafe {
        for i in 0..n {
            dst.add(i)
                .write_unaligned(bf16_roundtrip_bits(src.add(i).read_unaligned()));
        }
    }
}

/// Copies `n` bf16 values as oneDNN's nearest resampling does (through f32): equal to
/// loading, converting and storing each value, without the conversions.
pub(crate) unsafe fn copy_bf16_onednn(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: the variants run only when `isa()` and the AVX-512BW check say the CPU has them; the
    // caller's contract is passed on.
    unsafe {
        #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx512f,avx512bw"))]
        unsafe fn avx512(src: *const u16, dst: *mut u16, n: usize) {
            // SAFETY: AVX-512F/BW were detected by the caller; `copy_bf16_body`'s contract is the
            // caller's.
            unsafe { copy_bf16_body(src, dst, n) }
        }
        #[cfg_attr(target_arch = "x86_64", target_feature(enable = "avx2"))]
        unsafe fn avx2(src: *const u16, dst: *mut u16, n: usize) {
            // SAFETY: AVX2 was detected by the caller; `copy_bf16_body`'s contract is the caller's.
            unsafe { copy_bf16_body(src, dst, n) }
        }
        let (s, d) = (src as *const u16, dst as *mut u16);
        match isa() {
            Isa::Avx512 if avx512bw() => avx512(s, d, n),
            Isa::Avx512 | Isa::Avx2 => avx2(s, d, n),
            Isa::Base | Isa::Neon => copy_bf16_body(s, d, n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gathered_rows_copy_every_element_on_every_isa() {
        let src: Vec<u32> = (0..200u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
        for isa in available_isas() {
            for n in [0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 31, 163, 200] {
                let mut dst = vec![7u32; n + 3];
                // SAFETY: `n` elements at both, apart.
                with_isa(isa, || unsafe {
                    copy_gathered32(src.as_ptr() as *const u8, dst.as_mut_ptr() as *mut u8, n)
                });
                assert_eq!(dst[..n], src[..n], "{isa:?} n {n}");
                assert_eq!(dst[n..], [7, 7, 7], "{isa:?} n {n}: past the row");
            }
        }
    }

    #[test]
    fn bf16_bit_copy_equals_the_f32_round_trip() {
        for b in 0..=u16::MAX {
            let via_f32 = super::super::dtype::f32_to_bf16(
                super::super::dtype::bf16_to_f32(b),
                Numerics::Onednn,
            );
            assert_eq!(bf16_roundtrip_bits(b), via_f32, "{b:#06x}");
        }
    }

    /// Raw pixels past 64 bytes, not whole 32-byte steps (the aligned lines of
    /// [`avx512_packed`] where the ISA has them), of 1-, 2- and 4-byte elements: every
    /// ISA's copy, plain and streamed, into rows starting at every offset of a line, with
    /// the source's first pixel right after an inaccessible page and its last right before
    /// one (a read outside the pixels faults); the bytes around the row stay as they were.
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    #[test]
    fn packed_pixel_rows_read_and_write_only_their_pixels() {
        let page = 4096;
        // SAFETY: a private anonymous mapping of three pages, the outer two made
        // inaccessible; unmapped at the end.
        let base = unsafe {
            let m = libc::mmap(
                std::ptr::null_mut(),
                3 * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(m, libc::MAP_FAILED);
            let m = m as *mut u8;
            assert_eq!(libc::mprotect(m as *mut _, page, libc::PROT_NONE), 0);
            assert_eq!(
                libc::mprotect(m.add(2 * page) as *mut _, page, libc::PROT_NONE),
                0
            );
            m
        };
        let mut x = 0x9E37_79B9u32;
        let mut next = |m: usize| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as usize % m
        };
        let mut packed = 0;
        for case in 0..300 {
            let ssz = [1, 2, 4][next(3)];
            let bytes = loop {
                let b = ssz * (64 / ssz + 1 + next(200 / ssz));
                if !b.is_multiple_of(32) {
                    break b;
                }
            };
            let n_src = (page / bytes).max(1);
            let src_len = n_src * bytes;
            // The pixels at the page's start or end.
            let src = if case % 2 == 0 {
                base.wrapping_add(page)
            } else {
                base.wrapping_add(2 * page - src_len)
            };
            let pixels = 1 + next(40);
            let taps: Vec<u32> = (0..pixels)
                .map(|q| {
                    let i = match q {
                        0 => 0,
                        1 => n_src - 1,
                        _ => next(n_src),
                    } * bytes
                        / ssz;
                    i as u32
                })
                .collect();
            // SAFETY: the middle page is readable and writable.
            let sb = unsafe { std::slice::from_raw_parts_mut(src, src_len) };
            for b in sb.iter_mut() {
                *b = next(256) as u8;
            }
            let want: Vec<u8> = taps
                .iter()
                .flat_map(|t| sb[*t as usize * ssz..*t as usize * ssz + bytes].to_vec())
                .collect();
            let lead = next(64);
            for isa in available_isas() {
                for nt in [false, true] {
                    packed += with_isa(isa, || packs_pixels(bytes, bytes) && nt) as usize;
                    let what = format!("case {case} {isa:?} nt {nt} bytes {bytes} lead {lead}");
                    // SAFETY: every tap's pixel lies in `src`.
                    unsafe { copies_exactly(isa, nt, src, &taps, ssz, bytes, lead, &want, &what) };
                }
            }
        }
        // SAFETY: the mapping made above.
        unsafe { libc::munmap(base as *mut _, 3 * page) };
        let lines = available_isas().contains(&Isa::Avx512) && byte_permutes();
        assert_eq!(packed > 0, lines, "{packed} packed copies");
    }

    /// Copies `taps`' pixels (`bytes` each, back to back) on `isa` into a row `lead` bytes
    /// into a buffer of 0xA5, plain or streamed; asserts the row is `want` and nothing
    /// around it changed.
    ///
    /// # Safety
    /// Every tap's pixel lies in `src`.
    #[allow(clippy::too_many_arguments)]
    unsafe fn copies_exactly(
        isa: Isa,
        nt: bool,
        src: *const u8,
        taps: &[u32],
        ssz: usize,
        bytes: usize,
        lead: usize,
        want: &[u8],
        what: &str,
    ) {
        let mut out = super::super::aligned::AlignedBuf::<u8>::zeroed(want.len() + lead + 64);
        out.fill(0xA5);
        // SAFETY: the caller's pixels; `out` holds the row at `lead`.
        with_isa(isa, || unsafe {
            let row = out.as_mut_ptr().add(lead);
            copy_pixels(src, taps, ssz, bytes, row, bytes, 0, nt, RawCopy::Bits);
            store_fence();
        });
        assert_eq!(&out[lead..lead + want.len()], want, "{what}");
        assert!(out[..lead].iter().all(|&b| b == 0xA5), "{what}: before");
        assert!(
            out[lead + want.len()..].iter().all(|&b| b == 0xA5),
            "{what}: after"
        );
    }

    #[test]
    fn whole_step_pixels_copy_every_byte() {
        // Pixels of whole 32- and 64-byte steps (the sizes with unrolled copies among them),
        // plain and streamed, on every ISA: each pixel's bytes at its place, none around.
        let mut rng = super::super::tests::Rng::new(0x2545_F491);
        for bytes in [32, 64, 96, 128, 192, 256, 320, 512, 576] {
            let n_src = 9;
            let src: Vec<u8> = (0..n_src * bytes).map(|_| rng.below(256) as u8).collect();
            let taps: Vec<u32> = (0..7)
                .map(|_| {
                    let i = rng.below(n_src) * bytes / 4;
                    i as u32
                })
                .collect();
            let want: Vec<u8> = taps
                .iter()
                .flat_map(|t| src[*t as usize * 4..*t as usize * 4 + bytes].to_vec())
                .collect();
            for isa in available_isas() {
                for nt in [false, true] {
                    let what = format!("{isa:?} nt {nt} bytes {bytes}");
                    let sp = src.as_ptr();
                    // SAFETY: every tap's pixel lies in `src`.
                    unsafe { copies_exactly(isa, nt, sp, &taps, 4, bytes, 64, &want, &what) };
                }
            }
        }
    }

    #[test]
    fn bf16_pixel_copies_fix_only_what_the_round_trip_changes() {
        // Pixels of 16..200 bf16 lanes, most plain values, some holding one subnormal, NaN,
        // infinity or zero (only the first two change): every ISA's copy, plain and
        // streamed, against the round trip element by element.
        let mut x = 0x1234_5679u32;
        let mut next = |m: u32| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x % m
        };
        let specials = [0x0001u16, 0x807F, 0x7F81, 0xFFC0, 0x7F80, 0xFF80, 0x8000, 0];
        for case in 0..400 {
            // A quarter of 32-byte pixels (fixed up two at a time on AVX-512), back to back
            // or with a gap after each.
            let lanes = if next(4) == 0 {
                16
            } else {
                16 + next(185) as usize
            };
            let gap = if next(2) == 0 {
                0
            } else {
                1 + next(40) as usize
            };
            let stride = lanes + gap;
            let pixels = 1 + next(9) as usize;
            let n_src = pixels + next(4) as usize;
            let mut src: Vec<u16> = (0..n_src * lanes)
                .map(|_| (0x0080 + next(0x7F00) as u16) | ((next(2) as u16) << 15))
                .collect();
            for _ in 0..next(3) {
                let at = next(src.len() as u32) as usize;
                src[at] = specials[next(specials.len() as u32) as usize];
            }
            let taps: Vec<u32> = (0..pixels)
                .map(|_| {
                    let i = next(n_src as u32) as usize * lanes;
                    i as u32
                })
                .collect();
            let want: Vec<u16> = taps
                .iter()
                .flat_map(|t| {
                    let px = src[*t as usize..*t as usize + lanes].iter();
                    px.map(|&b| bf16_roundtrip_bits(b))
                        .chain([0; 64].into_iter().take(gap))
                })
                .collect();
            for isa in available_isas() {
                for nt in [false, true] {
                    let mut got = super::super::aligned::AlignedBuf::<u16>::zeroed(pixels * stride);
                    // SAFETY: every tap's pixel lies in `src`, `got` holds `pixels` of them.
                    with_isa(isa, || unsafe {
                        copy_pixels(
                            src.as_ptr() as *const u8,
                            &taps,
                            2,
                            2 * lanes,
                            got.as_mut_ptr() as *mut u8,
                            2 * stride,
                            0,
                            nt,
                            RawCopy::Bf16Onednn,
                        );
                        store_fence();
                    });
                    assert_eq!(&got[..], &want[..], "case {case} {isa:?} nt {nt}");
                }
            }
        }
    }

    #[test]
    fn windowed_gathers_match_element_copies() {
        // Index lists as nearest rows and plane tables make them: steady steps (repeats,
        // up to 5 apart) around the 16- and 8-output windows' limits, row wraps back, long
        // jumps; lengths with every tail; 1-, 2-, 4- and 8-byte elements on every ISA.
        let mut x = 0x2545_F491u32;
        let mut next = |m: u32| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x % m
        };
        for case in 0..3000 {
            let len = next(90) as usize + 1;
            let mut idx = Vec::with_capacity(len);
            let mut i = next(40);
            let step = [0, 1, 2, 3, 4, 5, 31, 33][next(8) as usize];
            for _ in 0..len {
                idx.push(i);
                i = match next(40) {
                    0 => i.saturating_sub(next(64)),
                    1 => i + next(200),
                    _ => i + next(step + 1).max(step / 2),
                };
            }
            let n_src = *idx.iter().max().unwrap() as usize + 1;
            for size in [1usize, 2, 4, 8] {
                let src: Vec<u8> = (0..n_src * size).map(|_| next(256) as u8).collect();
                let mut want = vec![0u8; len * size];
                for (o, &i) in idx.iter().enumerate() {
                    let i = i as usize * size;
                    want[o * size..(o + 1) * size].copy_from_slice(&src[i..i + size]);
                }
                for isa in available_isas() {
                    let mut got = vec![0u8; len * size];
                    // SAFETY: `src` holds every indexed element, `got` one per index.
                    with_isa(isa, || unsafe {
                        gather_raw(size, src.as_ptr(), got.as_mut_ptr(), &idx)
                    });
                    assert_eq!(got, want, "case {case} {isa:?} size {size} {idx:?}");
                }
            }
        }
    }

    #[test]
    fn vector_int8_stores_match_scalar_rules() {
        let mut x = 0x9E37_79B9u32;
        let mut vals = vec![
            0.0f32,
            -0.0,
            0.5,
            1.5,
            2.5,
            -0.5,
            -1.5,
            127.5,
            128.5,
            254.5,
            255.5,
            -128.5,
            -129.0,
            f32::INFINITY,
            -f32::INFINITY,
            f32::NAN,
            -f32::NAN,
            1e30,
            -1e30,
        ];
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            vals.push(if x & 1 == 0 {
                f32::from_bits(x)
            } else {
                (x >> 8) as f32 / 65536.0 * 400.0 - 150.0
            });
        }
        for n in [Numerics::Onednn, Numerics::OnednnReorder, Numerics::Ieee] {
            for dt in [DataType::S8, DataType::U8] {
                // Odd lengths and offsets: the 32-wide body and the scalar tail.
                // Plain and streamed stores, dst aligned and not.
                for (len, nt, off) in [
                    (vals.len(), false, 0),
                    (31, false, 0),
                    (33, false, 0),
                    (65, false, 0),
                    (vals.len(), true, 0),
                    (vals.len(), true, 5),
                    (65, true, 0),
                ] {
                    let v = &vals[7..7 + len.min(vals.len() - 7)];
                    let mut raw = vec![0u8; v.len() + 64];
                    let at = (32 - raw.as_ptr() as usize % 32) % 32 + off;
                    let got = &mut raw[at..at + v.len()];
                    // SAFETY: `got` has one byte per value of `v`.
                    unsafe { store_converted(dt, n, v, got.as_mut_ptr(), nt) };
                    store_fence();
                    for (k, (a, g)) in v.iter().zip(got.iter()).enumerate() {
                        let mut want = 0u8;
                        // SAFETY: `want` is one s8/u8 element.
                        unsafe { super::super::dtype::store_f32(&mut want, dt, *a, n) };
                        assert_eq!(*g, want, "{n:?} {dt:?} {k} {:#x}", a.to_bits());
                    }
                }
            }
        }
    }

    #[test]
    fn branch_free_bf16_matches_scalar_rules() {
        let mut x = 0x1234_5678u32;
        let specials = [
            0.0f32,
            -0.0,
            f32::INFINITY,
            -f32::INFINITY,
            f32::NAN,
            3.4e38,
            -3.4e38,
            1.0e-40,
            -1.0e-40,
        ];
        let mut vals: Vec<f32> = specials.to_vec();
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            vals.push(f32::from_bits(x));
        }
        for (isa, n) in available_isas().into_iter().flat_map(|i| {
            [Numerics::Onednn, Numerics::OnednnReorder, Numerics::Ieee].map(|n| (i, n))
        }) {
            let mut got = vec![0u16; vals.len()];
            // An odd length: vector steps and the scalar tail.
            let m = vals.len() - 5;
            // SAFETY: `got` has one u16 per value.
            with_isa(isa, || unsafe {
                store_bf16(&vals[..m], got.as_mut_ptr(), n != Numerics::Ieee)
            });
            // SAFETY: as above, for the last five values.
            unsafe { store_bf16(&vals[m..], got.as_mut_ptr().add(m), n != Numerics::Ieee) };
            for (v, g) in vals.iter().zip(&got) {
                assert_eq!(
                    *g,
                    super::super::dtype::f32_to_bf16(*v, n),
                    "{isa:?} {n:?} {:#x}",
                    v.to_bits()
                );
            }
        }
    }
}
