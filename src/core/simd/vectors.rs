//! The lanes kernel's pixel rows with explicit vectors, written once for every ISA.
//!
//! [`FVec`] is an ISA's f32 vector (AVX-512, AVX2, NEON) and [`Widen`] loads one vector of
//! a source type as f32, exactly (f32 as is, bf16 by a shift, u8/s8 by integer widening).
//! [`pixel_row`] walks a row of output pixels with the row's weights broadcast once and each
//! pixel's corners formed from its own tap, then runs the reference's lerp chain over whole
//! vectors of lanes, with separate multiplies and adds (never FMA), so the bits are the
//! reference's. Lanes short of a whole vector go through [`Widen::tail`] (a masked vector
//! where the ISA has one for the type, else the scalar body).

use super::{lerp_body, Src};

/// An f32 vector of one ISA. Implementations are `#[inline(always)]` wrappers of intrinsics,
/// called only from functions compiled with the ISA's target features.
pub(crate) trait FVec: Copy {
    const LANES: usize;
    unsafe fn splat(x: f32) -> Self;
    unsafe fn mul(self, o: Self) -> Self;
    unsafe fn add(self, o: Self) -> Self;
    /// Stores all lanes at `p` (any alignment).
    unsafe fn store(self, p: *mut f32);
    /// Stores all lanes at `p` non-temporally where `p` is aligned to the vector and the ISA
    /// streams; else as [`FVec::store`].
    unsafe fn stream(self, p: *mut f32);
}

/// Loads `V::LANES` consecutive elements of one source type as f32.
pub(crate) trait Widen<V: FVec>: Src + Sized {
    /// Elements `i..i + LANES` of `p`.
    unsafe fn load(p: *const u8, i: usize) -> V;

    /// The lerp chain over `n < LANES` lanes from corner offsets `offs` into `out`.
    #[inline(always)]
    unsafe fn tail<const M: usize>(
        p: *const u8,
        offs: &[usize; 8],
        w: &[[f32; 2]; 3],
        out: *mut f32,
        n: usize,
    ) {
        // SAFETY: the caller's contract: lanes `< n` of every corner and of `out` are valid.
        unsafe { lerp_body::<Self, M>(p, offs, w, std::slice::from_raw_parts_mut(out, n)) }
    }
}

/// `x * p + y * q`, the reference's linear step.
#[inline(always)]
unsafe fn lin<V: FVec>(x: V, y: V, p: V, q: V) -> V {
    // SAFETY: plain vector arithmetic under the caller's target features.
    unsafe { x.mul(p).add(y.mul(q)) }
}

/// Element offset of corner `k` of a pixel whose taps along the last axis are at `o0`
/// and `o1` from the corners' `base`: with `PX2` the first half of the `2^M` corners read
/// the pixel's first tap and the rest its second; otherwise every corner reads `o0`.
#[inline(always)]
fn corner<const M: usize, const PX2: bool>(
    base: &[usize; 8],
    o0: usize,
    o1: usize,
    k: usize,
) -> usize {
    let half = if PX2 {
        1usize << M.saturating_sub(1)
    } else {
        1 << M
    };
    if PX2 && k >= half {
        base[k - half] + o1
    } else {
        base[k] + o0
    }
}

/// The reference's chain over the `2^M` corners (first axis innermost).
#[inline(always)]
unsafe fn chain<V: FVec, const M: usize>(ld: impl Fn(usize) -> V, w: &[(V, V); 3]) -> V {
    // SAFETY: plain vector arithmetic; `ld` is the caller's in-bounds loader.
    unsafe {
        let [(a0, a1), (b0, b1), (c0, c1)] = *w;
        match M {
            0 => ld(0),
            1 => lin(ld(0), ld(1), a0, a1),
            2 => lin(lin(ld(0), ld(1), a0, a1), lin(ld(2), ld(3), a0, a1), b0, b1),
            _ => {
                let h0 = lin(lin(ld(0), ld(1), a0, a1), lin(ld(2), ld(3), a0, a1), b0, b1);
                let h1 = lin(lin(ld(4), ld(5), a0, a1), lin(ld(6), ld(7), a0, a1), b0, b1);
                lin(h0, h1, c0, c1)
            }
        }
    }
}

/// [`pixel_row`]'s pixels of `VPP` whole vectors each, back to back in `out`, in groups
/// whose vectors fill whole [`Sink::put4`]s (4 pixels for odd `VPP`, else 2; at most 12
/// vectors); returns the pixels written (whole groups).
#[inline(always)]
unsafe fn pixel_quads<
    V: FVec,
    L: Widen<V>,
    S: Sink<V>,
    const M: usize,
    const PX2: bool,
    const NT: bool,
    const VPP: usize,
>(
    src: *const u8,
    base: &[usize; 8],
    ws: &[(V, V); 3],
    px: &[(usize, usize, f32, f32)],
    out: *mut u8,
    sink: S,
) -> usize {
    // SAFETY: `pixel_row`'s contract: each pixel's corners plus `VPP * LANES` lie in `src`,
    // its `VPP * LANES` lanes at `out` (pixels back to back) are writable.
    unsafe {
        let g = if VPP.is_multiple_of(2) { 2 } else { 4 };
        let mut r = [V::splat(0.0); 12];
        let mut q0 = 0;
        while q0 + g <= px.len() {
            for j in 0..g {
                let (o0, o1, w0, w1) = px[q0 + j];
                let mut ws = *ws;
                if PX2 {
                    ws[M - 1] = (V::splat(w0), V::splat(w1));
                }
                for (i, x) in r[j * VPP..(j + 1) * VPP].iter_mut().enumerate() {
                    let l = i * V::LANES;
                    *x =
                        chain::<V, M>(|k| L::load(src, corner::<M, PX2>(base, o0, o1, k) + l), &ws);
                }
            }
            for k in 0..g * VPP / 4 {
                let l = (q0 * VPP + 4 * k) * V::LANES;
                sink.put4::<NT>([r[4 * k], r[4 * k + 1], r[4 * k + 2], r[4 * k + 3]], out, l);
            }
            q0 += g;
        }
        q0
    }
}

/// Where [`pixel_row`] puts a pixel's results: f32 as they are ([`F32Out`]) or narrowed to
/// the dst type in registers (the x86 `Int8Out` sinks), so there is no f32 pass between.
pub(crate) trait Sink<V: FVec>: Copy {
    /// Stores `r` as lanes `l..l + V::LANES` of the pixel at `o` (streamed with `NT` where
    /// the sink can).
    unsafe fn put<const NT: bool>(self, r: V, o: *mut u8, l: usize);

    /// Whether [`Sink::put4`] narrows four vectors for less than four [`Sink::put`]s.
    const QUAD: bool = false;

    /// Bytes a lane takes in `out`.
    const LANE_BYTES: usize;

    /// Stores `r` as lanes `l..l + 4 * V::LANES` of the pixel at `o`, `r[0]` first.
    #[inline(always)]
    unsafe fn put4<const NT: bool>(self, r: [V; 4], o: *mut u8, l: usize) {
        // SAFETY: the caller's four vectors' worth of lanes at `l`.
        unsafe {
            for (j, v) in r.into_iter().enumerate() {
                self.put::<NT>(v, o, l + j * V::LANES);
            }
        }
    }

    /// Stores lanes `l..l + n` (`n < V::LANES`) of the pixel at `o`: [`Widen::tail`] of
    /// `L` over corners `t.offs` with weights `t.w`. (The inputs, not a closure: a closure
    /// computing them was outlined without the target features, its intrinsics then calls,
    /// under rustc 1.95: nhwc f32 2x9 20x30->30x40 linear 0.18 ms, oneDNN 0.013.)
    unsafe fn tail<L: Widen<V>, const M: usize>(self, t: &TailIn, n: usize, o: *mut u8, l: usize);
}

/// What a pixel's last `n < LANES` lanes are computed from (see [`Sink::tail`]).
pub(crate) struct TailIn {
    pub src: *const u8,
    pub offs: [usize; 8],
    pub w: [[f32; 2]; 3],
}

/// f32 results stored as they are.
#[derive(Clone, Copy)]
pub(crate) struct F32Out;

impl<V: FVec> Sink<V> for F32Out {
    const LANE_BYTES: usize = 4;

    #[inline(always)]
    unsafe fn put<const NT: bool>(self, r: V, o: *mut u8, l: usize) {
        // SAFETY: the caller's `V::LANES` writable f32 at lane `l` of the pixel at `o`.
        unsafe {
            let p = (o as *mut f32).add(l);
            if NT {
                r.stream(p)
            } else {
                r.store(p)
            }
        }
    }

    #[inline(always)]
    unsafe fn tail<L: Widen<V>, const M: usize>(self, t: &TailIn, n: usize, o: *mut u8, l: usize) {
        // SAFETY: the caller's `n` writable f32 at lane `l`, which `L::tail` writes only.
        unsafe { L::tail::<M>(t.src, &t.offs, &t.w, (o as *mut f32).add(l), n) }
    }
}

/// A row of `lanes`-lane pixels: pixel `q` reads corners `base[k] + px[q].0` and, with `PX2`
/// (two taps along the pixel axis, the outermost of the `M` levels), `base[k] + px[q].1`
/// weighted `(px[q].2, px[q].3)`; its lanes go through `sink` to `out + q * ostride` bytes.
/// With `NT`, whole vectors at vector-aligned addresses are streamed (where the sink can).
///
/// # Safety
/// Every corner plus `lanes` elements lies in `src`; each pixel's `lanes` elements of the
/// sink's type at `out + q * ostride` are writable; the caller runs under target features
/// that cover `V`, `L` and `S`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn pixel_row<
    V: FVec,
    L: Widen<V>,
    S: Sink<V>,
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
    // SAFETY: the function's contract; every load is of a corner's lanes `l..l + LANES <=
    // lanes` (or the tail's `< lanes`), every store of this pixel's lanes at `out`.
    unsafe {
        let mut ws = [(V::splat(1.0), V::splat(0.0)); 3];
        for (a, x) in ws.iter_mut().enumerate().take(M) {
            *x = (V::splat(w[a][0]), V::splat(w[a][1]));
        }
        let full = lanes - lanes % V::LANES;
        // Pixels of 1, 2, 3 or 6 whole vectors back to back in `out` (nCx16c; nhwc with C
        // = 16, 32, 48 or 96) go in groups of whole quads, four vectors a store.
        let q0 = match lanes / V::LANES {
            _ if !S::QUAD || full != lanes || ostride != lanes * S::LANE_BYTES => 0,
            1 => pixel_quads::<V, L, S, M, PX2, NT, 1>(src, base, &ws, px, out, sink),
            2 => pixel_quads::<V, L, S, M, PX2, NT, 2>(src, base, &ws, px, out, sink),
            3 => pixel_quads::<V, L, S, M, PX2, NT, 3>(src, base, &ws, px, out, sink),
            6 => pixel_quads::<V, L, S, M, PX2, NT, 6>(src, base, &ws, px, out, sink),
            _ => 0,
        };
        for (q, &(o0, o1, w0, w1)) in px.iter().enumerate().skip(q0) {
            if PX2 {
                ws[M - 1] = (V::splat(w0), V::splat(w1));
            }
            let corner = |k: usize| corner::<M, PX2>(base, o0, o1, k);
            let o = out.add(q * ostride);
            let mut l = 0;
            while S::QUAD && l + 4 * V::LANES <= full {
                // (Called in place: `array::map`'s closures may be outlined without the
                // target features, their intrinsics then calls.)
                let v =
                    |j: usize| chain::<V, M>(|k| L::load(src, corner(k) + l + j * V::LANES), &ws);
                let r = [v(0), v(1), v(2), v(3)];
                sink.put4::<NT>(r, o, l);
                l += 4 * V::LANES;
            }
            while l < full {
                let r = chain::<V, M>(|k| L::load(src, corner(k) + l), &ws);
                sink.put::<NT>(r, o, l);
                l += V::LANES;
            }
            if full < lanes && lanes >= V::LANES {
                // The last whole vector of the pixel again, overlapping the one before: the
                // same values land on the same lanes, and no tail goes through memory (the
                // sinks' tails read back a stack array written lane by lane, a failed store
                // forward: nhwc bf16 2x17 8x14->17x8 linear 5.0 us, oneDNN 3.0).
                let l = lanes - V::LANES;
                let r = chain::<V, M>(|k| L::load(src, corner(k) + l), &ws);
                sink.put::<false>(r, o, l);
            } else if full < lanes {
                let mut offs = [0usize; 8];
                let mut ww = *w;
                for (k, x) in offs.iter_mut().enumerate().take(1 << M) {
                    *x = corner(k) + full;
                }
                if PX2 {
                    ww[M - 1] = [w0, w1];
                }
                let n = lanes - full;
                let t = TailIn { src, offs, w: ww };
                sink.tail::<L, M>(&t, n, o, full);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86 {
    //! AVX-512 (`__m512`) and AVX2 (`__m256`) vectors and loaders.
    use super::super::super::dtype::IntStore;
    use super::super::{Bf16s, F32s, S8s, U8s};
    use super::{FVec, Sink, TailIn, Widen};
    use std::arch::x86_64::*;

    impl FVec for __m512 {
        const LANES: usize = 16;
        #[inline(always)]
        unsafe fn splat(x: f32) -> Self {
            // SAFETY: AVX-512F, the caller's target feature (trait contract).
            unsafe { _mm512_set1_ps(x) }
        }
        #[inline(always)]
        unsafe fn mul(self, o: Self) -> Self {
            // SAFETY: as `splat`.
            unsafe { _mm512_mul_ps(self, o) }
        }
        #[inline(always)]
        unsafe fn add(self, o: Self) -> Self {
            // SAFETY: as `splat`.
            unsafe { _mm512_add_ps(self, o) }
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut f32) {
            // SAFETY: the caller's 16 writable f32 at `p`.
            unsafe { _mm512_storeu_ps(p, self) }
        }
        #[inline(always)]
        unsafe fn stream(self, p: *mut f32) {
            // SAFETY: as `store`; the streamed store only at a 64-byte aligned `p`.
            unsafe {
                if (p as usize).is_multiple_of(64) {
                    _mm512_stream_ps(p, self)
                } else {
                    _mm512_storeu_ps(p, self)
                }
            }
        }
    }

    impl FVec for __m256 {
        const LANES: usize = 8;
        #[inline(always)]
        unsafe fn splat(x: f32) -> Self {
            // SAFETY: AVX, the caller's target feature (trait contract).
            unsafe { _mm256_set1_ps(x) }
        }
        #[inline(always)]
        unsafe fn mul(self, o: Self) -> Self {
            // SAFETY: as `splat`.
            unsafe { _mm256_mul_ps(self, o) }
        }
        #[inline(always)]
        unsafe fn add(self, o: Self) -> Self {
            // SAFETY: as `splat`.
            unsafe { _mm256_add_ps(self, o) }
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut f32) {
            // SAFETY: the caller's 8 writable f32 at `p`.
            unsafe { _mm256_storeu_ps(p, self) }
        }
        #[inline(always)]
        unsafe fn stream(self, p: *mut f32) {
            // SAFETY: as `store`; the streamed store only at a 32-byte aligned `p`.
            unsafe {
                if (p as usize).is_multiple_of(32) {
                    _mm256_stream_ps(p, self)
                } else {
                    _mm256_storeu_ps(p, self)
                }
            }
        }
    }

    /// `IntStore::apply` on 16 lanes, narrowed to bytes (the low byte of each exact
    /// integer): NaN to `q.nan`, clamp, round half to even. `BOUNDED` results (lerps of
    /// s8/u8 sources: finite, within a rounding of the type's range) skip the NaN and
    /// clamp steps and saturate while narrowing instead — three vector operations where
    /// the general rule takes six (Zen 4 runs 512-bit operations at half rate, and nCx16c
    /// u8 linear was bound by them). Callers run under AVX-512F.
    #[inline(always)]
    pub(crate) unsafe fn int8_avx512<const BOUNDED: bool>(r: __m512, q: IntStore) -> __m128i {
        // SAFETY: AVX-512F, the caller's target feature.
        unsafe {
            let i = int_avx512::<BOUNDED>(r, q);
            match (BOUNDED, q.lo < 0.0) {
                (true, true) => _mm512_cvtsepi32_epi8(i),
                (true, false) => {
                    _mm512_cvtusepi32_epi8(_mm512_max_epi32(i, _mm512_setzero_si512()))
                }
                (false, _) => _mm512_cvtepi32_epi8(i),
            }
        }
    }

    /// The integers [`int8_avx512`] narrows: `BOUNDED` ones rounded alone, others with the
    /// NaN and clamp steps first.
    #[inline(always)]
    unsafe fn int_avx512<const BOUNDED: bool>(r: __m512, q: IntStore) -> __m512i {
        // SAFETY: AVX-512F, the caller's target feature.
        unsafe {
            const RNE: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
            if BOUNDED {
                return _mm512_cvt_roundps_epi32::<RNE>(r);
            }
            let v = _mm512_mask_blend_ps(
                _mm512_cmp_ps_mask::<_CMP_ORD_Q>(r, r),
                _mm512_set1_ps(q.nan),
                r,
            );
            let v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(q.lo)), _mm512_set1_ps(q.hi));
            _mm512_cvt_roundps_epi32::<RNE>(v)
        }
    }

    /// [`int8_avx512`] on four vectors, `r[0]`'s bytes first: two 32-to-16 and one 16-to-8
    /// saturating packs and a dword permute for all four, where each vector alone narrows
    /// by a two-uop `vpmov*db` (nhwc u8 1x96 72x310->215x155 linear was bound by them).
    /// The packs saturate exactly as the one-vector narrowing: `BOUNDED` integers as its
    /// saturating `vpmov*db`, clamped ones lose nothing. Callers run under AVX-512BW.
    #[inline(always)]
    pub(crate) unsafe fn int8x64_avx512<const BOUNDED: bool>(
        r: [__m512; 4],
        q: IntStore,
    ) -> __m512i {
        // SAFETY: AVX-512F/BW, the caller's target features.
        unsafe {
            // (No `array::map`: its closure was outlined without the target features.)
            let i = [
                int_avx512::<BOUNDED>(r[0], q),
                int_avx512::<BOUNDED>(r[1], q),
                int_avx512::<BOUNDED>(r[2], q),
                int_avx512::<BOUNDED>(r[3], q),
            ];
            // Per 128-bit lane k: words r0[4k..4k+4] r1[..] | r2 r3, then bytes r0 r1 r2 r3.
            let (a, b) = (
                _mm512_packs_epi32(i[0], i[1]),
                _mm512_packs_epi32(i[2], i[3]),
            );
            let y = if q.lo < 0.0 {
                _mm512_packs_epi16(a, b)
            } else {
                _mm512_packus_epi16(a, b)
            };
            // Dword 4k + j holds r_j's lanes 4k..4k+4: gather each vector's four in order.
            let idx = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
            _mm512_permutexvar_epi32(idx, y)
        }
    }

    /// `IntStore::apply` on 8 lanes (NaN to `q.nan`, clamp, round half to even). Callers run under AVX2.
    #[inline(always)]
    pub(crate) unsafe fn int_avx2(r: __m256, q: IntStore) -> __m256i {
        // SAFETY: AVX2, the caller's target feature.
        unsafe {
            let v = _mm256_blendv_ps(_mm256_set1_ps(q.nan), r, _mm256_cmp_ps::<_CMP_ORD_Q>(r, r));
            let v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(q.lo)), _mm256_set1_ps(q.hi));
            _mm256_cvttps_epi32(_mm256_round_ps::<
                { _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC },
            >(v))
        }
    }

    /// [`int8_avx512`] on 8 lanes, the bytes in the low half.
    #[inline(always)]
    pub(crate) unsafe fn int8_avx2<const BOUNDED: bool>(r: __m256, q: IntStore) -> __m128i {
        // SAFETY: AVX2, the caller's target feature.
        unsafe {
            let b = if BOUNDED {
                // Rounded as in `int8x16_avx2`; saturating packs narrow the bounded
                // integers as the clamp would.
                let i = _mm256_cvtps_epi32(r);
                let h = _mm256_packs_epi32(i, i);
                if q.lo < 0.0 {
                    _mm256_packs_epi16(h, h)
                } else {
                    _mm256_packus_epi16(h, h)
                }
            } else {
                // The low byte of each 32-bit lane, per 128-bit half.
                let pick = _mm256_setr_epi8(
                    0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, //
                    0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                );
                _mm256_shuffle_epi8(int_avx2(r, q), pick)
            };
            // Each half holds its four bytes in its low 32 bits: join them.
            _mm_unpacklo_epi32(_mm256_castsi256_si128(b), _mm256_extracti128_si256::<1>(b))
        }
    }

    /// [`int8_avx2`] on two vectors at once, `a`'s 8 bytes then `b`'s: one 32-to-16 and one
    /// 16-to-8 saturating pack for both. `BOUNDED` rounds by `vcvtps2dq` (MXCSR's mode,
    /// round to nearest even as every float step of the lerps runs); the packs saturate as
    /// the clamp would. Callers run under AVX2.
    #[inline(always)]
    pub(crate) unsafe fn int8x16_avx2<const BOUNDED: bool>(
        a: __m256,
        b: __m256,
        q: IntStore,
    ) -> __m128i {
        // SAFETY: AVX2, the caller's target feature.
        unsafe {
            let (i, j) = if BOUNDED {
                (_mm256_cvtps_epi32(a), _mm256_cvtps_epi32(b))
            } else {
                (int_avx2(a, q), int_avx2(b, q))
            };
            // Words i0-3 j0-3 | i4-7 j4-7, then bytes likewise in each half's low 8.
            let h = _mm256_packs_epi32(i, j);
            let y = if q.lo < 0.0 {
                _mm256_packs_epi16(h, h)
            } else {
                _mm256_packus_epi16(h, h)
            };
            // i0-3 i4-7 j0-3 j4-7: in order.
            _mm_unpacklo_epi32(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y))
        }
    }

    /// s8/u8 results narrowed in registers by [`IntStore`]'s rules: each lane's byte is the
    /// low byte of its exact integer (`BOUNDED`: see [`int8_avx512`]). Stores are plain
    /// (callers do not stream s8/u8 rows).
    /// With `BW` (code compiled for AVX-512BW), four vectors narrow at once
    /// ([`int8x64_avx512`]).
    #[derive(Clone, Copy)]
    pub(crate) struct Int8Out<const BOUNDED: bool, const BW: bool = false>(pub IntStore);

    impl<const B: bool, const BW: bool> Sink<__m512> for Int8Out<B, BW> {
        #[inline(always)]
        unsafe fn put<const NT: bool>(self, r: __m512, o: *mut u8, l: usize) {
            // SAFETY: the caller's 16 writable bytes at `o + l`, under AVX-512F.
            unsafe { _mm_storeu_si128(o.add(l) as *mut __m128i, int8_avx512::<B>(r, self.0)) }
        }

        const QUAD: bool = BW;
        const LANE_BYTES: usize = 1;

        #[inline(always)]
        unsafe fn put4<const NT: bool>(self, r: [__m512; 4], o: *mut u8, l: usize) {
            // SAFETY: the caller's 64 writable bytes at `o + l`; called (`QUAD`) only with
            // `BW`, under AVX-512BW.
            unsafe { _mm512_storeu_si512(o.add(l) as *mut _, int8x64_avx512::<B>(r, self.0)) }
        }

        #[inline(always)]
        unsafe fn tail<L: Widen<__m512>, const M: usize>(
            self,
            ti: &TailIn,
            n: usize,
            o: *mut u8,
            l: usize,
        ) {
            // SAFETY: the caller's `n < 16` writable bytes at `o + l`; `L::tail` fills the `n`
            // lanes that are then read.
            unsafe {
                let mut t = [0f32; 16];
                L::tail::<M>(ti.src, &ti.offs, &ti.w, t.as_mut_ptr(), n);
                let mut b = [0u8; 16];
                let v = int8_avx512::<B>(_mm512_loadu_ps(t.as_ptr()), self.0);
                _mm_storeu_si128(b.as_mut_ptr() as *mut __m128i, v);
                std::ptr::copy_nonoverlapping(b.as_ptr(), o.add(l), n);
            }
        }
    }

    impl<const B: bool, const BW: bool> Sink<__m256> for Int8Out<B, BW> {
        const LANE_BYTES: usize = 1;

        #[inline(always)]
        unsafe fn put<const NT: bool>(self, r: __m256, o: *mut u8, l: usize) {
            // SAFETY: the caller's 8 writable bytes at `o + l`, under AVX2.
            unsafe { _mm_storel_epi64(o.add(l) as *mut __m128i, int8_avx2::<B>(r, self.0)) }
        }

        #[inline(always)]
        unsafe fn tail<L: Widen<__m256>, const M: usize>(
            self,
            ti: &TailIn,
            n: usize,
            o: *mut u8,
            l: usize,
        ) {
            // SAFETY: the caller's `n < 8` writable bytes at `o + l`.
            unsafe {
                let mut t = [0f32; 8];
                L::tail::<M>(ti.src, &ti.offs, &ti.w, t.as_mut_ptr(), n);
                for (k, &v) in t[..n].iter().enumerate() {
                    *o.add(l + k) = self.0.apply(v) as u8;
                }
            }
        }
    }

    /// bf16 results with oneDNN's rounding in one instruction (`vcvtneps2bf16`, exactly
    /// `bf16_bits` with oneDNN numerics). Callers run under AVX-512F/BW/VL/BF16.
    #[derive(Clone, Copy)]
    pub(crate) struct Bf16NeOut;

    impl Sink<__m512> for Bf16NeOut {
        const LANE_BYTES: usize = 2;

        #[inline(always)]
        unsafe fn put<const NT: bool>(self, r: __m512, o: *mut u8, l: usize) {
            // SAFETY: the caller's 16 writable u16 at lane `l` of the pixel at `o`.
            unsafe {
                let b = std::mem::transmute::<__m256bh, __m256i>(_mm512_cvtneps_pbh(r));
                _mm256_storeu_si256((o as *mut u16).add(l) as *mut __m256i, b)
            }
        }

        #[inline(always)]
        unsafe fn tail<L: Widen<__m512>, const M: usize>(
            self,
            ti: &TailIn,
            n: usize,
            o: *mut u8,
            l: usize,
        ) {
            // SAFETY: the caller's `n < 16` writable u16 at lane `l`; masked-off lanes are
            // not written.
            unsafe {
                let mut t = [0f32; 16];
                L::tail::<M>(ti.src, &ti.offs, &ti.w, t.as_mut_ptr(), n);
                let b = std::mem::transmute::<__m256bh, __m256i>(_mm512_cvtneps_pbh(
                    _mm512_loadu_ps(t.as_ptr()),
                ));
                let m: __mmask16 = ((1u32 << n) - 1) as u16;
                _mm256_mask_storeu_epi16((o as *mut u16).add(l) as *mut i16, m, b)
            }
        }
    }

    impl Sink<__m256> for Bf16NeOut {
        const LANE_BYTES: usize = 2;

        #[inline(always)]
        unsafe fn put<const NT: bool>(self, r: __m256, o: *mut u8, l: usize) {
            // SAFETY: the caller's 8 writable u16 at lane `l` of the pixel at `o`.
            unsafe {
                let b = std::mem::transmute::<__m128bh, __m128i>(_mm256_cvtneps_pbh(r));
                _mm_storeu_si128((o as *mut u16).add(l) as *mut __m128i, b)
            }
        }

        #[inline(always)]
        unsafe fn tail<L: Widen<__m256>, const M: usize>(
            self,
            ti: &TailIn,
            n: usize,
            o: *mut u8,
            l: usize,
        ) {
            // SAFETY: the caller's `n < 8` writable u16 at lane `l`; masked-off lanes are
            // not written.
            unsafe {
                let mut t = [0f32; 8];
                L::tail::<M>(ti.src, &ti.offs, &ti.w, t.as_mut_ptr(), n);
                let b = std::mem::transmute::<__m128bh, __m128i>(_mm256_cvtneps_pbh(
                    _mm256_loadu_ps(t.as_ptr()),
                ));
                let m: __mmask8 = ((1u32 << n) - 1) as u8;
                _mm_mask_storeu_epi16((o as *mut u16).add(l) as *mut i16, m, b)
            }
        }
    }

    /// One step width of [`bf16_pairs_row`]: `LANES` bf16 lanes loaded at once and split
    /// into f32 vectors of the even and the odd lanes, put back in order as they are stored.
    pub(crate) trait Bf16Pairs {
        type F: FVec;
        type I: Copy;
        const LANES: usize;
        unsafe fn zero() -> Self::I;
        /// `LANES` bf16 from `p`.
        unsafe fn load(p: *const u16) -> Self::I;
        /// The even lanes as f32 (a shift).
        unsafe fn even(v: Self::I) -> Self::F;
        /// The odd lanes as f32 (a mask).
        unsafe fn odd(v: Self::I) -> Self::F;
        /// Rounds both (`vcvtne2ps2bf16`) and stores the lanes in order at `p` (one word
        /// permutation).
        unsafe fn store(even: Self::F, odd: Self::F, p: *mut u16);
    }

    /// 32 lanes a step (`__m512` halves).
    pub(crate) struct Pairs512;
    /// 16 lanes a step (`__m256` halves).
    pub(crate) struct Pairs256;

    impl Bf16Pairs for Pairs512 {
        type F = __m512;
        type I = __m512i;
        const LANES: usize = 32;
        #[inline(always)]
        unsafe fn zero() -> __m512i {
            // SAFETY: AVX-512F, the caller's target feature (trait contract).
            unsafe { _mm512_setzero_si512() }
        }
        #[inline(always)]
        unsafe fn load(p: *const u16) -> __m512i {
            // SAFETY: the caller's 32 readable bf16 at `p`.
            unsafe { _mm512_loadu_si512(p as *const _) }
        }
        #[inline(always)]
        unsafe fn even(v: __m512i) -> __m512 {
            // SAFETY: as `zero`.
            unsafe { _mm512_castsi512_ps(_mm512_slli_epi32::<16>(v)) }
        }
        #[inline(always)]
        unsafe fn odd(v: __m512i) -> __m512 {
            // SAFETY: as `zero`.
            unsafe { _mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32(-65536))) }
        }
        #[inline(always)]
        unsafe fn store(even: __m512, odd: __m512, p: *mut u16) {
            // SAFETY: the caller's 32 writable bf16 at `p`, under AVX-512BW/BF16.
            unsafe { _mm512_storeu_si512(p as *mut _, Self::ordered(even, odd)) }
        }
    }

    impl Pairs512 {
        /// The 32 lanes rounded to bf16, in order: word 2i of the result is even lane i
        /// (word i of the pair), word 2i + 1 odd lane i (word 16 + i).
        ///
        /// # Safety
        /// The CPU has AVX-512BW/BF16.
        #[inline(always)]
        unsafe fn ordered(even: __m512, odd: __m512) -> __m512i {
            // SAFETY: the caller's features.
            unsafe {
                let order: [i16; 32] = std::array::from_fn(|k| ((k & 1) * 16 + k / 2) as i16);
                let order = _mm512_loadu_si512(order.as_ptr() as *const _);
                let pair = std::mem::transmute::<__m512bh, __m512i>(_mm512_cvtne2ps_pbh(odd, even));
                _mm512_permutexvar_epi16(order, pair)
            }
        }
    }

    /// One element type of [`masked_row`]: a pixel's `k`-masked lanes loaded as f32
    /// exactly, and results narrowed and stored to them.
    trait MaskedPx: Copy {
        /// Bytes an element.
        const SIZE: usize;
        unsafe fn load(self, p: *const u8, k: __mmask16) -> __m512;
        unsafe fn store(self, r: __m512, o: *mut u8, k: __mmask16);
    }

    /// bf16 rounded by `vcvtneps2bf16` (oneDNN numerics). Used under AVX-512F/BW/VL/BF16.
    #[derive(Clone, Copy)]
    struct Bf16Px;

    impl MaskedPx for Bf16Px {
        const SIZE: usize = 2;
        #[inline(always)]
        unsafe fn load(self, p: *const u8, k: __mmask16) -> __m512 {
            // SAFETY: the caller's `k` lanes readable at `p`, under AVX-512BW.
            unsafe {
                let h = _mm256_maskz_loadu_epi16(k, p as *const _);
                _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(h)))
            }
        }
        #[inline(always)]
        unsafe fn store(self, r: __m512, o: *mut u8, k: __mmask16) {
            // SAFETY: the caller's `k` lanes writable at `o`, under AVX-512BW/BF16.
            unsafe {
                let r = std::mem::transmute::<__m256bh, __m256i>(_mm512_cvtneps_pbh(r));
                _mm256_mask_storeu_epi16(o as *mut _, k, r);
            }
        }
    }

    /// s8/u8 (`U8`) sources into s8/u8 by `IntStore`'s rules (bounded results, see
    /// [`int8_avx512`]). Used under AVX-512F/BW/VL.
    #[derive(Clone, Copy)]
    struct Int8Px<const U8: bool>(IntStore);

    impl<const U8: bool> MaskedPx for Int8Px<U8> {
        const SIZE: usize = 1;
        #[inline(always)]
        unsafe fn load(self, p: *const u8, k: __mmask16) -> __m512 {
            // SAFETY: the caller's `k` lanes readable at `p`, under AVX-512BW.
            unsafe {
                let b = _mm_maskz_loadu_epi8(k, p as *const _);
                _mm512_cvtepi32_ps(if U8 {
                    _mm512_cvtepu8_epi32(b)
                } else {
                    _mm512_cvtepi8_epi32(b)
                })
            }
        }
        #[inline(always)]
        unsafe fn store(self, r: __m512, o: *mut u8, k: __mmask16) {
            // SAFETY: the caller's `k` lanes writable at `o`, under AVX-512BW.
            unsafe { _mm_mask_storeu_epi8(o as *mut _, k, int8_avx512::<true>(r, self.0)) }
        }
    }

    /// [`super::pixel_row`] over pixels of at most 16 lanes of `P`'s type: each pixel one
    /// masked 16-lane f32 chain (the 8-lane rows ran two chains a pixel, the second
    /// overlapping the first). The same lerp chain and rounding on every lane as the
    /// whole-vector rows, so the same bits.
    ///
    /// # Safety
    /// As [`super::pixel_row`]; the CPU has what `P` uses; `lanes <= 16`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn masked_row<P: MaskedPx, const M: usize, const PX2: bool>(
        src: *const u8,
        base: &[usize; 8],
        w: &[[f32; 2]; 3],
        px: &[(usize, usize, f32, f32)],
        lanes: usize,
        out: *mut u8,
        ostride: usize,
        ty: P,
    ) {
        // SAFETY: the function's contract: every load and store is masked to the pixel's
        // `lanes` lanes of a corner or of its output.
        unsafe {
            debug_assert!(lanes <= 16);
            let k16 = ((1u32 << lanes) - 1) as u16;
            let mut ws = [(_mm512_set1_ps(1.0), _mm512_setzero_ps()); 3];
            for (a, x) in ws.iter_mut().enumerate().take(M) {
                *x = (_mm512_set1_ps(w[a][0]), _mm512_set1_ps(w[a][1]));
            }
            for (q, &(o0, o1, w0, w1)) in px.iter().enumerate() {
                if PX2 {
                    ws[M - 1] = (_mm512_set1_ps(w0), _mm512_set1_ps(w1));
                }
                let corner = |k: usize| super::corner::<M, PX2>(base, o0, o1, k);
                let mut v = [_mm512_setzero_ps(); 8];
                for (k, x) in v.iter_mut().enumerate().take(1 << M) {
                    *x = ty.load(src.add(corner(k) * P::SIZE), k16);
                }
                let r = super::chain::<__m512, M>(|k| v[k], &ws);
                ty.store(r, out.add(q * ostride), k16);
            }
        }
    }

    /// [`masked_row`] for bf16 to bf16 (oneDNN numerics) on AVX-512 BF16, pixels of 9 to 15
    /// lanes.
    ///
    /// # Safety
    /// As [`super::pixel_row`]; the CPU has AVX-512F/BW/VL/BF16; `lanes <= 16`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
    pub(crate) unsafe fn bf16_masked_row<const M: usize, const PX2: bool>(
        src: *const u8,
        base: &[usize; 8],
        w: &[[f32; 2]; 3],
        px: &[(usize, usize, f32, f32)],
        lanes: usize,
        out: *mut u8,
        ostride: usize,
    ) {
        // SAFETY: the caller's contract; the features `Bf16Px` uses are enabled.
        unsafe { masked_row::<Bf16Px, M, PX2>(src, base, w, px, lanes, out, ostride, Bf16Px) }
    }

    /// [`masked_row`] for s8/u8 sources into s8/u8 (`q`'s type) on AVX-512, pixels of 9 to
    /// 15 lanes.
    ///
    /// # Safety
    /// As [`super::pixel_row`]; the CPU has AVX-512F/BW/VL; `lanes <= 16`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn int8_masked_row<const U8: bool, const M: usize, const PX2: bool>(
        src: *const u8,
        base: &[usize; 8],
        w: &[[f32; 2]; 3],
        px: &[(usize, usize, f32, f32)],
        lanes: usize,
        out: *mut u8,
        ostride: usize,
        q: IntStore,
    ) {
        // SAFETY: the caller's contract; the features `Int8Px` uses are enabled.
        unsafe {
            masked_row::<Int8Px<U8>, M, PX2>(src, base, w, px, lanes, out, ostride, Int8Px(q))
        }
    }

    /// [`bf16_pairs_row`] for pixels of exactly 16 lanes (nCx16c bf16): two pixels a step
    /// in one 512-bit vector, the second pixel's corners in its upper half and each half
    /// with its own pixel's weights, so the split, the lerps, the rounding and the word
    /// order run once for both; an odd last pixel goes alone. Per lane the same chain, so
    /// the same bits. (Half-width steps of one pixel each were bound by the work per step:
    /// nCx16c bf16 1x256 5x23->12x9 linear 11.5 us, oneDNN 10.5.)
    ///
    /// # Safety
    /// As [`bf16_pairs_row`] with `lanes == 16`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
    pub(crate) unsafe fn bf16_pixel_pairs_row<const M: usize, const PX2: bool>(
        src: *const u8,
        base: &[usize; 8],
        w: &[[f32; 2]; 3],
        px: &[(usize, usize, f32, f32)],
        out: *mut u8,
        ostride: usize,
    ) {
        // SAFETY: the function's contract: every load is the 16 lanes of a pixel's corner,
        // every store the 16 lanes of its output pixel.
        unsafe {
            let mut ws = [(_mm512_set1_ps(1.0), _mm512_set1_ps(0.0)); 3];
            for (a, x) in ws.iter_mut().enumerate().take(M) {
                *x = (_mm512_set1_ps(w[a][0]), _mm512_set1_ps(w[a][1]));
            }
            let s16 = src as *const u16;
            let corner = |q: usize, k: usize| super::corner::<M, PX2>(base, px[q].0, px[q].1, k);
            // One f32 weight per half.
            let halves = |a: f32, b: f32| {
                let lo = _mm512_castps_pd(_mm512_set1_ps(a));
                _mm512_castpd_ps(_mm512_insertf64x4::<1>(
                    lo,
                    _mm256_castps_pd(_mm256_set1_ps(b)),
                ))
            };
            for h in 0..px.len() / 2 {
                let (q0, q1) = (2 * h, 2 * h + 1);
                if PX2 {
                    ws[M - 1] = (halves(px[q0].2, px[q1].2), halves(px[q0].3, px[q1].3));
                }
                let mut v = [_mm512_setzero_si512(); 8];
                for (k, x) in v.iter_mut().enumerate().take(1 << M) {
                    let lo = _mm256_loadu_si256(s16.add(corner(q0, k)) as *const __m256i);
                    let hi = _mm256_loadu_si256(s16.add(corner(q1, k)) as *const __m256i);
                    *x = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi);
                }
                let even = super::chain::<__m512, M>(|k| Pairs512::even(v[k]), &ws);
                let odd = super::chain::<__m512, M>(|k| Pairs512::odd(v[k]), &ws);
                let r = Pairs512::ordered(even, odd);
                let (o0, o1) = (out.add(q0 * ostride), out.add(q1 * ostride));
                if ostride == 32 {
                    _mm512_storeu_si512(o0 as *mut _, r);
                } else {
                    _mm256_storeu_si256(o0 as *mut __m256i, _mm512_castsi512_si256(r));
                    _mm256_storeu_si256(o1 as *mut __m256i, _mm512_extracti64x4_epi64::<1>(r));
                }
            }
            if px.len() % 2 == 1 {
                let q = px.len() - 1;
                let o = out.add(q * ostride);
                bf16_pairs_row::<Pairs256, M, PX2>(src, base, w, &px[q..], 16, o, ostride);
            }
        }
    }

    impl Bf16Pairs for Pairs256 {
        type F = __m256;
        type I = __m256i;
        const LANES: usize = 16;
        #[inline(always)]
        unsafe fn zero() -> __m256i {
            // SAFETY: AVX, the caller's target feature (trait contract).
            unsafe { _mm256_setzero_si256() }
        }
        #[inline(always)]
        unsafe fn load(p: *const u16) -> __m256i {
            // SAFETY: the caller's 16 readable bf16 at `p`.
            unsafe { _mm256_loadu_si256(p as *const _) }
        }
        #[inline(always)]
        unsafe fn even(v: __m256i) -> __m256 {
            // SAFETY: AVX2, as `zero`.
            unsafe { _mm256_castsi256_ps(_mm256_slli_epi32::<16>(v)) }
        }
        #[inline(always)]
        unsafe fn odd(v: __m256i) -> __m256 {
            // SAFETY: AVX2, as `zero`.
            unsafe { _mm256_castsi256_ps(_mm256_and_si256(v, _mm256_set1_epi32(-65536))) }
        }
        #[inline(always)]
        unsafe fn store(even: __m256, odd: __m256, p: *mut u16) {
            // SAFETY: the caller's 16 writable bf16 at `p`, under AVX-512BW/VL/BF16 (words
            // as in `Pairs512`, halves of 8).
            unsafe {
                let order: [i16; 16] = std::array::from_fn(|k| ((k & 1) * 8 + k / 2) as i16);
                let order = _mm256_loadu_si256(order.as_ptr() as *const _);
                let pair = std::mem::transmute::<__m256bh, __m256i>(_mm256_cvtne2ps_pbh(odd, even));
                _mm256_storeu_si256(p as *mut _, _mm256_permutexvar_epi16(order, pair));
            }
        }
    }

    /// [`super::pixel_row`] for bf16 to bf16 (oneDNN numerics) on AVX-512 BF16, `P::LANES`
    /// (32 or 16) lanes a step as two f32 vectors of the even and the odd lanes: one load
    /// of each corner gives both by a shift and a mask (no widening shuffles), and one
    /// `vcvtne2ps2bf16` plus one word permutation put the results back in order. The same
    /// lerp chain on every lane, so the same bits; Zen 4 runs the widening shuffles and
    /// shifts on the pipes the multiplies use, and bf16 linear rows were bound by them
    /// (nCx16c bf16 1x16 55x243->164x81: 51.6 us widened, 43.0 in pairs; oneDNN 44.7).
    /// `lanes >= P::LANES`: the last step overlaps the one before when `lanes` is not a
    /// multiple of the step (the same values land on the same lanes).
    ///
    /// # Safety
    /// As [`super::pixel_row`]; the CPU has AVX-512F/BW/VL/BF16.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
    pub(crate) unsafe fn bf16_pairs_row<P: Bf16Pairs, const M: usize, const PX2: bool>(
        src: *const u8,
        base: &[usize; 8],
        w: &[[f32; 2]; 3],
        px: &[(usize, usize, f32, f32)],
        lanes: usize,
        out: *mut u8,
        ostride: usize,
    ) {
        // SAFETY: the function's contract: every load is `P::LANES` lanes `l..l + P::LANES
        // <= lanes` of a corner, every store as many lanes of this pixel at `out`.
        unsafe {
            let step = P::LANES;
            debug_assert!(lanes >= step);
            let mut ws = [(P::F::splat(1.0), P::F::splat(0.0)); 3];
            for (a, x) in ws.iter_mut().enumerate().take(M) {
                *x = (P::F::splat(w[a][0]), P::F::splat(w[a][1]));
            }
            // Lanes past whole steps, up to half a step, go as one masked f32 chain of 16
            // lanes (32-lane steps) or 8 (16-lane steps: a 512-bit chain in this 256-bit
            // code cost more than the overlap it saves) instead of an overlapping step.
            // 1 thread, ms, nhwc bf16 2xC 135x111->68x140 linear: C=17 0.127 -> 0.108
            // (oneDNN 0.110), 20 0.130 -> 0.112, 33 0.199 -> 0.178 (0.165), 40 0.202 ->
            // 0.179 (0.172), 48 0.196 -> 0.175 (0.173).
            let rem = lanes % step;
            let narrow = step == 16;
            let (whole, tail) = if rem != 0 && rem <= step / 2 {
                (lanes - rem, ((1u32 << rem) - 1) as u16)
            } else {
                (lanes, 0)
            };
            let mut wz = [(_mm512_set1_ps(1.0), _mm512_setzero_ps()); 3];
            let mut wy = [(_mm256_set1_ps(1.0), _mm256_setzero_ps()); 3];
            for a in 0..M {
                wz[a] = (_mm512_set1_ps(w[a][0]), _mm512_set1_ps(w[a][1]));
                wy[a] = (_mm256_set1_ps(w[a][0]), _mm256_set1_ps(w[a][1]));
            }
            let src = src as *const u16;
            for (q, &(o0, o1, w0, w1)) in px.iter().enumerate() {
                if PX2 {
                    ws[M - 1] = (P::F::splat(w0), P::F::splat(w1));
                }
                let corner = |k: usize| super::corner::<M, PX2>(base, o0, o1, k);
                let o = out.add(q * ostride) as *mut u16;
                let mut next = 0;
                while next < whole {
                    // The last step overlaps the one before when more than 16 lanes are
                    // left past whole steps.
                    let l = next.min(lanes - step);
                    next += step;
                    // (A plain loop: written with `array::from_fn`, whose closure is
                    // compiled apart, every intrinsic here became a call, 30x slower.)
                    let mut v = [P::zero(); 8];
                    for (k, x) in v.iter_mut().enumerate().take(1 << M) {
                        *x = P::load(src.add(corner(k) + l));
                    }
                    let even = super::chain::<P::F, M>(|k| P::even(v[k]), &ws);
                    let odd = super::chain::<P::F, M>(|k| P::odd(v[k]), &ws);
                    P::store(even, odd, o.add(l));
                }
                if tail != 0 && narrow {
                    if PX2 {
                        wy[M - 1] = (_mm256_set1_ps(w0), _mm256_set1_ps(w1));
                    }
                    let at = lanes - rem;
                    let mut v = [_mm256_setzero_ps(); 8];
                    for (k, x) in v.iter_mut().enumerate().take(1 << M) {
                        let h =
                            _mm_maskz_loadu_epi16(tail as u8, src.add(corner(k) + at) as *const _);
                        *x = _mm256_castsi256_ps(_mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(h)));
                    }
                    let r = super::chain::<__m256, M>(|k| v[k], &wy);
                    let r = std::mem::transmute::<__m128bh, __m128i>(_mm256_cvtneps_pbh(r));
                    _mm_mask_storeu_epi16(o.add(at) as *mut _, tail as u8, r);
                } else if tail != 0 {
                    if PX2 {
                        wz[M - 1] = (_mm512_set1_ps(w0), _mm512_set1_ps(w1));
                    }
                    let at = lanes - rem;
                    let mut v = [_mm512_setzero_ps(); 8];
                    for (k, x) in v.iter_mut().enumerate().take(1 << M) {
                        let h = _mm256_maskz_loadu_epi16(tail, src.add(corner(k) + at) as *const _);
                        *x = _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(h)));
                    }
                    let r = super::chain::<__m512, M>(|k| v[k], &wz);
                    let r = std::mem::transmute::<__m256bh, __m256i>(_mm512_cvtneps_pbh(r));
                    _mm256_mask_storeu_epi16(o.add(at) as *mut _, tail, r);
                }
            }
        }
    }

    /// [`super::pixel_row`] for s8/u8 sources into s8/u8 (`q`'s type; bounded results, see
    /// [`int8_avx512`]) on AVX2, 16 lanes a step as two 8-lane chains narrowed together:
    /// [`int8x16_avx2`], one 16-byte store. One chain a step paid the whole narrowing per 8 bytes and rounded in two
    /// instructions; Zen 1 runs conversions on one pipe and was bound by them (nhwc u8 8x48
    /// 82x127->165x50 linear: 3.9 ms, oneDNN 2.8). `lanes >= 16`: the last step overlaps
    /// the one before when `lanes` is not a multiple of 16 (the same values land on the
    /// same lanes).
    ///
    /// # Safety
    /// As [`super::pixel_row`]; the CPU has AVX2.
    #[target_feature(enable = "avx2")]
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn int8_row_avx2<L: Widen<__m256>, const M: usize, const PX2: bool>(
        src: *const u8,
        base: &[usize; 8],
        w: &[[f32; 2]; 3],
        px: &[(usize, usize, f32, f32)],
        lanes: usize,
        out: *mut u8,
        ostride: usize,
        q: IntStore,
    ) {
        // SAFETY: the function's contract: every load is 8 lanes `l..l + 16 <= lanes` of a
        // corner, every store 16 lanes of this pixel at `out`.
        unsafe {
            debug_assert!(lanes >= 16);
            let mut ws = [(_mm256_set1_ps(1.0), _mm256_set1_ps(0.0)); 3];
            for (a, x) in ws.iter_mut().enumerate().take(M) {
                *x = (_mm256_set1_ps(w[a][0]), _mm256_set1_ps(w[a][1]));
            }
            for (p, &(o0, o1, w0, w1)) in px.iter().enumerate() {
                if PX2 {
                    ws[M - 1] = (_mm256_set1_ps(w0), _mm256_set1_ps(w1));
                }
                let corner = |k: usize| super::corner::<M, PX2>(base, o0, o1, k);
                let o = out.add(p * ostride);
                let mut next = 0;
                while next < lanes {
                    let l = next.min(lanes - 16);
                    next += 16;
                    let a = super::chain::<__m256, M>(|k| L::load(src, corner(k) + l), &ws);
                    let b = super::chain::<__m256, M>(|k| L::load(src, corner(k) + l + 8), &ws);
                    let r = int8x16_avx2::<true>(a, b, q);
                    _mm_storeu_si128(o.add(l) as *mut __m128i, r);
                }
            }
        }
    }

    impl Widen<__m512> for F32s {
        #[inline(always)]
        unsafe fn load(p: *const u8, i: usize) -> __m512 {
            // SAFETY: the caller's 16 readable f32 from element `i`.
            unsafe { _mm512_loadu_ps((p as *const f32).add(i)) }
        }

        /// One masked vector: masked-off lanes are neither read nor written.
        #[inline(always)]
        unsafe fn tail<const M: usize>(
            p: *const u8,
            offs: &[usize; 8],
            w: &[[f32; 2]; 3],
            out: *mut f32,
            n: usize,
        ) {
            // SAFETY: lanes `< n < 16` of every corner and of `out` are the caller's; AVX-512
            // suppresses faults of masked-off lanes.
            unsafe {
                let mask: __mmask16 = (1u16 << n) - 1;
                // Written out: an array `map` here is an outlined call without the target
                // feature (nhwc f32 C=8 15x9->8x4: 1.8 us, oneDNN 0.4).
                let ws = [
                    (_mm512_set1_ps(w[0][0]), _mm512_set1_ps(w[0][1])),
                    (_mm512_set1_ps(w[1][0]), _mm512_set1_ps(w[1][1])),
                    (_mm512_set1_ps(w[2][0]), _mm512_set1_ps(w[2][1])),
                ];
                let r = super::chain::<__m512, M>(
                    |k| _mm512_maskz_loadu_ps(mask, (p as *const f32).add(offs[k])),
                    &ws,
                );
                _mm512_mask_storeu_ps(out, mask, r);
            }
        }
    }

    impl Widen<__m512> for Bf16s {
        #[inline(always)]
        unsafe fn load(p: *const u8, i: usize) -> __m512 {
            // SAFETY: the caller's 16 readable bf16 from element `i`; bf16 bits shifted into
            // the high half are the f32 value exactly.
            unsafe {
                let h = _mm256_loadu_si256((p as *const u16).add(i) as *const __m256i);
                _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16))
            }
        }
    }

    impl Widen<__m512> for U8s {
        #[inline(always)]
        unsafe fn load(p: *const u8, i: usize) -> __m512 {
            // SAFETY: the caller's 16 readable bytes from element `i`; integers below 2^24
            // convert exactly.
            unsafe {
                let b = _mm_loadu_si128(p.add(i) as *const __m128i);
                _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(b))
            }
        }
    }

    impl Widen<__m512> for S8s {
        #[inline(always)]
        unsafe fn load(p: *const u8, i: usize) -> __m512 {
            // SAFETY: as for u8.
            unsafe {
                let b = _mm_loadu_si128(p.add(i) as *const __m128i);
                _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(b))
            }
        }
    }

    impl Widen<__m256> for F32s {
        #[inline(always)]
        unsafe fn load(p: *const u8, i: usize) -> __m256 {
            // SAFETY: the caller's 8 readable f32 from element `i`.
            unsafe { _mm256_loadu_ps((p as *const f32).add(i)) }
        }
    }

    impl Widen<__m256> for Bf16s {
        #[inline(always)]
        unsafe fn load(p: *const u8, i: usize) -> __m256 {
            // SAFETY: the caller's 8 readable bf16 from element `i`; exact as for AVX-512.
            unsafe {
                let h = _mm_loadu_si128((p as *const u16).add(i) as *const __m128i);
                _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16))
            }
        }
    }

    impl Widen<__m256> for U8s {
        #[inline(always)]
        unsafe fn load(p: *const u8, i: usize) -> __m256 {
            // SAFETY: the caller's 8 readable bytes from element `i`; exact as for AVX-512.
            unsafe {
                let b = _mm_loadl_epi64(p.add(i) as *const __m128i);
                _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(b))
            }
        }
    }

    impl Widen<__m256> for S8s {
        #[inline(always)]
        unsafe fn load(p: *const u8, i: usize) -> __m256 {
            // SAFETY: as for u8.
            unsafe {
                let b = _mm_loadl_epi64(p.add(i) as *const __m128i);
                _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b))
            }
        }
    }
}

#[cfg(target_arch = "aarch64")]
pub(crate) mod neon {
    //! NEON (`float32x4_t`) vectors and the f32 loader.
    use super::super::F32s;
    use super::{FVec, Widen};
    use std::arch::aarch64::*;

    impl FVec for float32x4_t {
        const LANES: usize = 4;
        #[inline(always)]
        unsafe fn splat(x: f32) -> Self {
            // SAFETY: NEON is baseline on aarch64.
            unsafe { vdupq_n_f32(x) }
        }
        #[inline(always)]
        unsafe fn mul(self, o: Self) -> Self {
            // SAFETY: as `splat` (`vmulq`, never fused with the add).
            unsafe { vmulq_f32(self, o) }
        }
        #[inline(always)]
        unsafe fn add(self, o: Self) -> Self {
            // SAFETY: as `splat`.
            unsafe { vaddq_f32(self, o) }
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut f32) {
            // SAFETY: the caller's 4 writable f32 at `p`.
            unsafe { vst1q_f32(p, self) }
        }
        #[inline(always)]
        unsafe fn stream(self, p: *mut f32) {
            // SAFETY: as `store` (no streamed stores here).
            unsafe { vst1q_f32(p, self) }
        }
    }

    impl Widen<float32x4_t> for F32s {
        #[inline(always)]
        unsafe fn load(p: *const u8, i: usize) -> float32x4_t {
            // SAFETY: the caller's 4 readable f32 from element `i`.
            unsafe { vld1q_f32((p as *const f32).add(i)) }
        }
    }
}
