//! Hot inner loops, monomorphised per source type and instantiated per ISA.
//!
//! Each loop body is written once as an `#[inline(always)]` generic function over a source
//! loader ([`Src`]) and a const tap-axis count; thin `#[target_feature]` wrappers let LLVM
//! vectorise the same body for AVX2 and AVX-512, chosen once at run time. The bodies use
//! plain `*` and `+` (Rust never contracts them into FMA), so every ISA produces the same
//! bits as the scalar reference.

use super::dtype::{bf16_to_f32, f32_to_bf16, DataType, Numerics};
use std::sync::OnceLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    Base,
    Avx2,
    Avx512,
}

/// The widest vector ISA of this CPU (detected once).
pub(crate) fn isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if std::env::var_os("RESAMPLE_ISA").is_some_and(|v| v == "base") {
                return Isa::Base;
            }
            if is_x86_feature_detected!("avx512f") {
                return Isa::Avx512;
            }
            if is_x86_feature_detected!("avx2") {
                return Isa::Avx2;
            }
        }
        Isa::Base
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
        (p as *const f32).add(i).read_unaligned()
    }
}
impl Src for Bf16s {
    #[inline(always)]
    unsafe fn get(p: *const u8, i: usize) -> f32 {
        bf16_to_f32((p as *const u16).add(i).read_unaligned())
    }
}
impl Src for F16s {
    #[inline(always)]
    unsafe fn get(p: *const u8, i: usize) -> f32 {
        half::f16::from_bits((p as *const u16).add(i).read_unaligned()).to_f32()
    }
}
impl Src for S32s {
    #[inline(always)]
    unsafe fn get(p: *const u8, i: usize) -> f32 {
        (p as *const i32).add(i).read_unaligned() as f32
    }
}
impl Src for S8s {
    #[inline(always)]
    unsafe fn get(p: *const u8, i: usize) -> f32 {
        *(p as *const i8).add(i) as f32
    }
}
impl Src for U8s {
    #[inline(always)]
    unsafe fn get(p: *const u8, i: usize) -> f32 {
        *p.add(i) as f32
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
/// [`isa`] and the runtime tap-axis count `m` (0..=3).
macro_rules! multiversion {
    ($name:ident, $body:ident, ($($arg:ident: $ty:ty),*)) => {
        pub(crate) unsafe fn $name(dt: DataType, m: usize, $($arg: $ty),*) {
            #[target_feature(enable = "avx2")]
            unsafe fn avx2<S: Src, const M: usize>($($arg: $ty),*) {
                $body::<S, M>($($arg),*)
            }
            #[target_feature(enable = "avx512f")]
            unsafe fn avx512<S: Src, const M: usize>($($arg: $ty),*) {
                $body::<S, M>($($arg),*)
            }
            unsafe fn base<S: Src, const M: usize>($($arg: $ty),*) {
                $body::<S, M>($($arg),*)
            }
            unsafe fn pick<S: Src>(m: usize, $($arg: $ty),*) {
                match (isa(), m) {
                    (Isa::Avx512, 0) => avx512::<S, 0>($($arg),*),
                    (Isa::Avx512, 1) => avx512::<S, 1>($($arg),*),
                    (Isa::Avx512, 2) => avx512::<S, 2>($($arg),*),
                    (Isa::Avx512, _) => avx512::<S, 3>($($arg),*),
                    (Isa::Avx2, 0) => avx2::<S, 0>($($arg),*),
                    (Isa::Avx2, 1) => avx2::<S, 1>($($arg),*),
                    (Isa::Avx2, 2) => avx2::<S, 2>($($arg),*),
                    (Isa::Avx2, _) => avx2::<S, 3>($($arg),*),
                    (Isa::Base, 0) => base::<S, 0>($($arg),*),
                    (Isa::Base, 1) => base::<S, 1>($($arg),*),
                    (Isa::Base, 2) => base::<S, 2>($($arg),*),
                    (Isa::Base, _) => base::<S, 3>($($arg),*),
                }
            }
            debug_assert!(m <= 3);
            with_src!(dt, pick, (m, $($arg),*))
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

multiversion!(lerp, lerp_body, (src: *const u8, offs: &[usize; 8], w: &[[f32; 2]; 3], out: &mut [f32]));

/// Backward accumulation over contiguous lanes: `acc[l] += ((x[l] * w0) * w1) * w2` with
/// `M` weights (0 = nearest: plain sum).
#[inline(always)]
unsafe fn accumulate_body<S: Src, const M: usize>(
    src: *const u8,
    off: usize,
    w: &[f32; 3],
    acc: &mut [f32],
) {
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

multiversion!(accumulate, accumulate_body, (src: *const u8, off: usize, w: &[f32; 3], acc: &mut [f32]));

/// Loads `out.len()` contiguous elements starting at element offset `off`.
pub(crate) unsafe fn load_contiguous(dt: DataType, src: *const u8, off: usize, out: &mut [f32]) {
    let offs = [off, 0, 0, 0, 0, 0, 0, 0];
    lerp(dt, 0, src, &offs, &[[0.0; 2]; 3], out)
}

/// Stores contiguous f32 values converted to `dt` (no post-ops).
pub(crate) unsafe fn store_contiguous(
    dt: DataType,
    numerics: Numerics,
    vals: &[f32],
    dst: *mut u8,
) {
    match dt {
        DataType::F32 => {
            std::ptr::copy_nonoverlapping(vals.as_ptr() as *const u8, dst, vals.len() * 4)
        }
        DataType::Bf16 => {
            let q = dst as *mut u16;
            for (l, &v) in vals.iter().enumerate() {
                q.add(l).write_unaligned(f32_to_bf16(v, numerics));
            }
        }
        other => {
            let sz = other.size();
            for (l, &v) in vals.iter().enumerate() {
                super::dtype::store_f32(dst.add(l * sz), other, v, numerics);
            }
        }
    }
}
