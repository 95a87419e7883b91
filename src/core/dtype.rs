//! Element types and the one place where values are converted to and from f32.
//!
//! Every kernel loads elements as f32, computes in f32 and stores through [`store_f32`], so
//! rounding and saturation rules live here only. The faces differ in a few of those rules;
//! [`Numerics`] names the flavour a problem follows.

/// Element type of a tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataType {
    F32,
    F16,
    Bf16,
    S32,
    S8,
    U8,
    /// Only copied (nearest) or accumulated in f64 (nearest backward); never interpolated.
    F64,
}

impl DataType {
    /// Size of one element in bytes.
    pub const fn size(self) -> usize {
        match self {
            DataType::F64 => 8,
            DataType::F32 | DataType::S32 => 4,
            DataType::F16 | DataType::Bf16 => 2,
            DataType::S8 | DataType::U8 => 1,
        }
    }

    pub const fn is_integer(self) -> bool {
        matches!(self, DataType::S32 | DataType::S8 | DataType::U8)
    }
}

/// Rounding and saturation flavour of a face.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Numerics {
    /// oneDNN 2.x `saturate_and_round` and `bfloat16_t`: integers clamp to
    /// `[lowest, max]` (s32 max is 2147483520.f) then round half to even (NaN gives 0 for
    /// s8/u8 and INT_MIN for s32, as `ref:any` does); bf16 rounds to
    /// nearest even, flushes subnormals to signed zero and quiets NaN with `|= 0x40`. Every
    /// value passes through f32, even for nearest with equal types (s32 loses bits above 2^24).
    Onednn,
    /// oneDNN 2.6 reorder: conversions as [`Numerics::Onednn`], but a same-type copy moves
    /// the raw bits (s32 keeps all 32 bits, bf16 and f32 keep signalling NaNs), except f16,
    /// which oneDNN's reorder converts through f32; and NaN stored to an integer becomes
    /// what oneDNN's `jit:uni` reorder gives: 127 (s8), 0 (u8), 2147483520 (s32).
    OnednnReorder,
    /// IEEE / PyTorch / DirectML: round half to even then saturate; bf16 RNE keeping
    /// subnormals, NaN becomes the canonical quiet NaN. Nearest with equal types copies bits.
    Ieee,
}

impl Numerics {
    /// True when a same-type nearest copy may move raw bytes instead of converting.
    pub fn raw_copy_allowed(self, src: DataType, dst: DataType) -> bool {
        if src != dst {
            return false;
        }
        match self {
            Numerics::Ieee => true,
            // oneDNN converts s32 through f32 and quiets bf16 signalling NaNs.
            Numerics::Onednn => matches!(src, DataType::F32 | DataType::S8 | DataType::U8),
            Numerics::OnednnReorder => src != DataType::F16,
        }
    }
}

/// Converts a bf16 bit pattern to f32 (exact).
#[inline(always)]
pub fn bf16_to_f32(bits: u16) -> f32 {
    f32::from_bits((bits as u32) << 16)
}

/// f32 to bf16 with round-to-nearest-even, per the face's rules.
#[inline(always)]
pub fn f32_to_bf16(v: f32, numerics: Numerics) -> u16 {
    let bits = v.to_bits();
    if v.is_nan() {
        return match numerics {
            Numerics::Onednn | Numerics::OnednnReorder => ((bits >> 16) | 0x40) as u16,
            Numerics::Ieee => 0x7FC0 | ((bits >> 16) as u16 & 0x8000),
        };
    }
    if numerics != Numerics::Ieee && (bits & 0x7F80_0000) == 0 {
        // oneDNN flushes f32 subnormals to a signed zero.
        return ((bits >> 16) & 0x8000) as u16;
    }
    let lsb = (bits >> 16) & 1;
    (bits.wrapping_add(0x7FFF + lsb) >> 16) as u16
}

/// The largest f32 below 2^31: oneDNN's upper saturation bound for s32.
const S32_MAX_F: f32 = 2147483520.0;
const S32_MIN_F: f32 = -2147483648.0;

/// How one face stores f32 into an integer type: clamp to `[lo, hi]`, round half to even,
/// and what a NaN becomes. The single source of these rules for scalar and vector stores.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IntStore {
    pub lo: f32,
    pub hi: f32,
    pub nan: f32,
}

impl IntStore {
    /// NaN: 0 for s8/u8 (except oneDNN's reorder: s8 127); for s32 oneDNN's resampling
    /// stores `(int)nearbyintf(NaN)`, the x86 "integer indefinite" INT_MIN, its reorder
    /// (`jit:uni`) 2147483520, IEEE faces 0.
    pub(crate) fn new(dt: DataType, numerics: Numerics) -> Option<Self> {
        let reorder = numerics == Numerics::OnednnReorder;
        match dt {
            DataType::S8 => Some(IntStore {
                lo: -128.0,
                hi: 127.0,
                nan: if reorder { 127.0 } else { 0.0 },
            }),
            DataType::U8 => Some(IntStore {
                lo: 0.0,
                hi: 255.0,
                nan: 0.0,
            }),
            DataType::S32 => Some(IntStore {
                lo: S32_MIN_F,
                hi: S32_MAX_F,
                nan: match numerics {
                    Numerics::Onednn => S32_MIN_F,
                    Numerics::OnednnReorder => S32_MAX_F,
                    Numerics::Ieee => 0.0,
                },
            }),
            _ => None,
        }
    }

    /// The stored integer value (as i32), written with selects so loops vectorise.
    #[inline(always)]
    pub(crate) fn apply(self, v: f32) -> i32 {
        let v = if v.is_nan() { self.nan } else { v };
        let c = if v < self.lo {
            self.lo
        } else if v > self.hi {
            self.hi
        } else {
            v
        };
        // SAFETY: `c` is not NaN and lies in [lo, hi] ⊆ [-2^31, 2147483520], so it converts
        // exactly; the unchecked form lets the loop vectorise (no saturation fix-up).
        unsafe { c.round_ties_even().to_int_unchecked::<i32>() }
    }
}

/// Loads one element at `p` as f32.
///
/// # Safety
/// `p` must point to a readable element of type `dt` (any alignment).
#[inline(always)]
pub unsafe fn load_f32(p: *const u8, dt: DataType) -> f32 {
    // SAFETY: `p` points to a readable element of type `dt` (the caller's contract); reads are
    // unaligned or of bytes.
    unsafe {
        match dt {
            DataType::F32 => (p as *const f32).read_unaligned(),
            DataType::F16 => half::f16::from_bits((p as *const u16).read_unaligned()).to_f32(),
            DataType::Bf16 => bf16_to_f32((p as *const u16).read_unaligned()),
            DataType::S32 => (p as *const i32).read_unaligned() as f32,
            DataType::S8 => *(p as *const i8) as f32,
            DataType::U8 => *p as f32,
            DataType::F64 => (p as *const f64).read_unaligned() as f32,
        }
    }
}

/// Stores `v` at `p` converted to `dt` with the face's rounding and saturation.
///
/// # Safety
/// `p` must point to a writable element of type `dt` (any alignment).
#[inline(always)]
pub unsafe fn store_f32(p: *mut u8, dt: DataType, v: f32, numerics: Numerics) {
    // SAFETY: `p` points to a writable element of type `dt` (the caller's contract); writes are
    // unaligned or of bytes.
    unsafe {
        match dt {
            DataType::F32 => (p as *mut f32).write_unaligned(v),
            DataType::F16 => (p as *mut u16).write_unaligned(half::f16::from_f32(v).to_bits()),
            DataType::Bf16 => (p as *mut u16).write_unaligned(f32_to_bf16(v, numerics)),
            DataType::S32 => {
                let r = IntStore::new(dt, numerics).map_or(0, |q| q.apply(v));
                (p as *mut i32).write_unaligned(r)
            }
            DataType::S8 => {
                *(p as *mut i8) = IntStore::new(dt, numerics).map_or(0, |q| q.apply(v)) as i8
            }
            DataType::U8 => *p = IntStore::new(dt, numerics).map_or(0, |q| q.apply(v)) as u8,
            DataType::F64 => (p as *mut f64).write_unaligned(v as f64),
        }
    }
}

/// Loads one element as f64 (exact for every type).
///
/// # Safety
/// As [`load_f32`].
#[inline(always)]
pub unsafe fn load_f64(p: *const u8, dt: DataType) -> f64 {
    // SAFETY: `p` points to a readable element of type `dt` (the caller's contract); reads are
    // unaligned.
    unsafe {
        match dt {
            DataType::F64 => (p as *const f64).read_unaligned(),
            DataType::S32 => (p as *const i32).read_unaligned() as f64,
            _ => load_f32(p, dt) as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(dt: DataType, v: f32, n: Numerics) -> Vec<u8> {
        let mut b = vec![0u8; dt.size()];
        // SAFETY: `b` holds exactly one element of `dt`.
        unsafe { store_f32(b.as_mut_ptr(), dt, v, n) };
        b
    }

    #[test]
    fn integer_stores_round_half_even_and_saturate() {
        let n = Numerics::Onednn;
        let s8 = |v| st(DataType::S8, v, n)[0] as i8;
        assert_eq!(
            [
                s8(0.5),
                s8(1.5),
                s8(4.5),
                s8(-1.5),
                s8(-4.5),
                s8(63.75),
                s8(-300.4)
            ],
            [0, 2, 4, -2, -4, 64, -128]
        );
        assert_eq!(st(DataType::U8, 191.25, n)[0], 191);
        assert_eq!(st(DataType::U8, -300.4, n)[0], 0);
        let s32 = |v| i32::from_ne_bytes(st(DataType::S32, v, n).try_into().unwrap());
        assert_eq!(s32(3e9), 2147483520);
        assert_eq!(s32(-3e9), i32::MIN);
    }

    #[test]
    fn bf16_rules_per_face() {
        let tiny = f32::from_bits(0x0000_1234);
        assert_eq!(f32_to_bf16(tiny, Numerics::Onednn), 0);
        assert_eq!(f32_to_bf16(-tiny, Numerics::Onednn), 0x8000);
        assert_eq!(f32_to_bf16(tiny, Numerics::Ieee), 0);
        let sub = f32::from_bits(0x0001_8000);
        assert_eq!(f32_to_bf16(sub, Numerics::Ieee), 0x0002);
        assert_eq!(f32_to_bf16(3.4e38, Numerics::Onednn), 0x7F80);
        assert_eq!(f32_to_bf16(1.0 + 1.0 / 256.0, Numerics::Onednn), 0x3F80); // tie to even
        assert_eq!(f32_to_bf16(1.0 + 3.0 / 256.0, Numerics::Onednn), 0x3F82);
        let snan = f32::from_bits(0x7F80_0001 | 0x0001_0000);
        assert_eq!(f32_to_bf16(snan, Numerics::Onednn), 0x7FC1);
        for v in [tiny, -tiny, sub, 3.4e38, 1.0 + 3.0 / 256.0, snan, -snan] {
            assert_eq!(
                f32_to_bf16(v, Numerics::OnednnReorder),
                f32_to_bf16(v, Numerics::Onednn)
            );
        }
    }

    #[test]
    fn nan_to_integers() {
        let s32 = |n| i32::from_ne_bytes(st(DataType::S32, f32::NAN, n).try_into().unwrap());
        assert_eq!(s32(Numerics::Onednn), i32::MIN);
        assert_eq!(s32(Numerics::Ieee), 0);
        assert_eq!(s32(Numerics::OnednnReorder), 2147483520);
        assert_eq!(st(DataType::S8, f32::NAN, Numerics::Onednn)[0], 0);
        assert_eq!(
            st(DataType::S8, f32::NAN, Numerics::OnednnReorder)[0] as i8,
            127
        );
        assert_eq!(st(DataType::U8, f32::NAN, Numerics::OnednnReorder)[0], 0);
        assert_eq!(st(DataType::S8, 2.5, Numerics::OnednnReorder)[0], 2);
    }

    #[test]
    fn raw_copies_per_face() {
        use DataType::*;
        let all = [F32, F16, Bf16, S32, S8, U8, F64];
        for a in all {
            for b in all {
                let r = Numerics::OnednnReorder.raw_copy_allowed(a, b);
                assert_eq!(r, a == b && a != F16, "{a:?} {b:?}");
                assert_eq!(Numerics::Ieee.raw_copy_allowed(a, b), a == b);
            }
        }
        assert!(!Numerics::Onednn.raw_copy_allowed(S32, S32));
        assert!(!Numerics::Onednn.raw_copy_allowed(Bf16, Bf16));
    }
}
