//! Robustness of the Ascend face against hostile C input: `aclCreateTensor` with negative
//! or huge dims, strides and offsets, storage dims that disagree with the view, NULL data
//! and garbage formats and dtypes; every `…GetWorkspaceSize` with NULL arguments, arrays of
//! the wrong length, negative or huge output sizes and NaN/inf/negative scales; run calls
//! with NULL, consumed and repeatable executors; `aclrtMalloc` of absurd sizes and
//! `aclrtMemcpy`/`aclrtMemset` bounds. Every call must return a status
//! (`ACLNN_ERR_RUNTIME_ERROR`/`ACL_ERROR_INTERNAL_ERROR`, which a caught panic becomes,
//! count as failures) and successful runs must stay inside their buffers.
//! See `robustness_common` for the guard and reproduction.

mod robustness_common;

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use resample::capi::ascend::backward::*;
use resample::capi::ascend::executor::*;
use resample::capi::ascend::forward::*;
use resample::capi::ascend::meta::*;
use resample::capi::ascend::runtime::*;
use resample::capi::ascend::*;
use robustness_common::*;

const OK_ACLNN: [aclnnStatus; 4] = [
    ACLNN_SUCCESS,
    ACLNN_ERR_PARAM_NULLPTR,
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_INNER_CREATE_EXECUTOR,
];

fn elem_size(dt: aclDataType) -> u128 {
    match dt {
        ACL_FLOAT | ACL_INT32 | ACL_UINT32 => 4,
        ACL_FLOAT16 | ACL_BF16 | ACL_INT16 | ACL_UINT16 => 2,
        ACL_INT8 | ACL_UINT8 | ACL_BOOL => 1,
        _ => 16, // unknown: assume the widest
    }
}

/// A tensor handle plus the buffer its data pointer points into (if any).
struct T {
    h: *mut aclTensor,
    buf: Option<GuardedBuf>,
}

impl Drop for T {
    fn drop(&mut self) {
        unsafe { aclDestroyTensor(self.h) };
    }
}

/// Creates a tensor of `view` dims (physical order): mostly contiguous and well-formed,
/// otherwise with hostile strides, offset, storage, format or data.
fn make_tensor(
    rng: &mut Rng,
    view: &[i64],
    dt: aclDataType,
    format: aclFormat,
    hostile: bool,
) -> T {
    let r = view.len();
    let mut dims = view.to_vec();
    let mut strides = vec![0i64; r];
    let mut acc = 1i64;
    for d in (0..r).rev() {
        strides[d] = acc;
        acc = acc.saturating_mul(dims[d].max(1));
    }
    let mut offset = 0i64;
    let mut use_strides = rng.chance(0.5);
    let mut dt = dt;
    let mut format = format;
    if hostile {
        for _ in 0..rng.range(1, 3) {
            strides.resize(dims.len(), 1);
            let r = dims.len();
            let i = rng.below(r.max(1) as u64) as usize;
            match rng.below(7) {
                0 if r > 0 => dims[i] = rng.i64_extreme(),
                1 if r > 0 => {
                    use_strides = true;
                    strides[i] = rng.i64_extreme();
                }
                2 => offset = rng.i64_extreme(),
                3 => dt = rng.range(-2, 45) as i32,
                4 => format = rng.range(-2, 60) as i32,
                5 => dims.truncate(rng.below(r as u64 + 1) as usize),
                _ => dims.push(rng.range(1, 3)),
            }
        }
        strides.resize(dims.len(), 1);
    }
    // Storage: elements up to the last one the (non-negative) view reaches, as torch_npu
    // passes it; sometimes too small or absurd.
    let es = elem_size(dt);
    let mut last: Option<u128> = Some(offset.max(0) as u128);
    for (&n, &s) in dims.iter().zip(&strides) {
        if n <= 0 {
            continue;
        }
        last = last.and_then(|l| l.checked_add((n as u128 - 1) * s.max(0) as u128));
    }
    let mut storage_elems: i64 = last.map_or(i64::MAX, |l| (l + 1).min(i64::MAX as u128) as i64);
    if hostile && rng.chance(0.3) {
        storage_elems = rng.pick(&[
            0,
            1,
            storage_elems / 2,
            storage_elems.saturating_sub(1),
            -1,
            i64::MAX,
        ]);
    }
    let storage = [storage_elems];
    let storage_bytes = (storage_elems.max(0) as u128) * es;
    let mut buf = if storage_bytes <= EXEC_LIMIT as u128 && !(hostile && rng.chance(0.05)) {
        let mut b = GuardedBuf::new(storage_bytes as usize, 0x69);
        b.fill_random(rng);
        Some(b)
    } else {
        None
    };
    let data = buf.as_mut().map_or(null_mut(), |b| b.ptr() as *mut c_void);
    let h = unsafe {
        aclCreateTensor(
            if dims.is_empty() && rng.chance(0.5) {
                null()
            } else {
                dims.as_ptr()
            },
            dims.len() as u64,
            dt,
            if use_strides {
                strides.as_ptr()
            } else {
                null()
            },
            offset,
            format,
            storage.as_ptr(),
            1,
            data,
        )
    };
    T { h, buf }
}

#[derive(Clone, Copy, Debug)]
enum Api {
    N1d,
    N1dV2,
    N2d,
    N2dV2,
    N3d,
    E1d,
    E2d,
    E3d,
    N1dB,
    N2dB,
    N3dB,
    E1dB,
    E2dB,
    E3dB,
}

const APIS: [Api; 14] = [
    Api::N1d,
    Api::N1dV2,
    Api::N2d,
    Api::N2dV2,
    Api::N3d,
    Api::E1d,
    Api::E2d,
    Api::E3d,
    Api::N1dB,
    Api::N2dB,
    Api::N3dB,
    Api::E1dB,
    Api::E2dB,
    Api::E3dB,
];

impl Api {
    fn spatial(self) -> usize {
        match self {
            Api::N1d | Api::N1dV2 | Api::E1d | Api::N1dB | Api::E1dB => 1,
            Api::N2d | Api::N2dV2 | Api::E2d | Api::N2dB | Api::E2dB => 2,
            _ => 3,
        }
    }
    fn backward(self) -> bool {
        matches!(
            self,
            Api::N1dB | Api::N2dB | Api::N3dB | Api::E1dB | Api::E2dB | Api::E3dB
        )
    }

    #[allow(clippy::too_many_arguments)] // the aclnn signatures
    unsafe fn phase1(
        self,
        src: *const aclTensor,
        out_size: *const aclIntArray,
        in_size: *const aclIntArray,
        s: [f64; 3],
        dst: *mut aclTensor,
        ws: *mut u64,
        ex: *mut *mut aclOpExecutor,
    ) -> aclnnStatus {
        match self {
            Api::N1d => aclnnUpsampleNearest1dGetWorkspaceSize(src, out_size, dst, ws, ex),
            Api::N1dV2 => {
                aclnnUpsampleNearest1dV2GetWorkspaceSize(src, out_size, s[0] as f32, dst, ws, ex)
            }
            Api::N2d => aclnnUpsampleNearest2dGetWorkspaceSize(src, out_size, dst, ws, ex),
            Api::N2dV2 => aclnnUpsampleNearest2dV2GetWorkspaceSize(
                src,
                out_size,
                s[0] as f32,
                s[1] as f32,
                dst,
                ws,
                ex,
            ),
            Api::N3d => {
                aclnnUpsampleNearest3dGetWorkspaceSize(src, out_size, s[0], s[1], s[2], dst, ws, ex)
            }
            Api::E1d => {
                aclnnUpsampleNearestExact1dGetWorkspaceSize(src, out_size, s[0], dst, ws, ex)
            }
            Api::E2d => {
                aclnnUpsampleNearestExact2dGetWorkspaceSize(src, out_size, s[0], s[1], dst, ws, ex)
            }
            Api::E3d => aclnnUpsampleNearestExact3dGetWorkspaceSize(
                src, out_size, s[0], s[1], s[2], dst, ws, ex,
            ),
            Api::N1dB => aclnnUpsampleNearest1dBackwardGetWorkspaceSize(
                src, out_size, in_size, s[0], dst, ws, ex,
            ),
            Api::N2dB => aclnnUpsampleNearest2dBackwardGetWorkspaceSize(
                src, out_size, in_size, s[0], s[1], dst, ws, ex,
            ),
            Api::N3dB => aclnnUpsampleNearest3dBackwardGetWorkspaceSize(
                src, out_size, in_size, s[0], s[1], s[2], dst, ws, ex,
            ),
            Api::E1dB => aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(
                src, out_size, in_size, s[0], dst, ws, ex,
            ),
            Api::E2dB => aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(
                src, out_size, in_size, s[0], s[1], dst, ws, ex,
            ),
            Api::E3dB => aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
                src, out_size, in_size, s[0], s[1], s[2], dst, ws, ex,
            ),
        }
    }

    unsafe fn phase2(self, ws: *mut c_void, n: u64, ex: *mut aclOpExecutor) -> aclnnStatus {
        let st = null_mut();
        match self {
            Api::N1d => aclnnUpsampleNearest1d(ws, n, ex, st),
            Api::N1dV2 => aclnnUpsampleNearest1dV2(ws, n, ex, st),
            Api::N2d => aclnnUpsampleNearest2d(ws, n, ex, st),
            Api::N2dV2 => aclnnUpsampleNearest2dV2(ws, n, ex, st),
            Api::N3d => aclnnUpsampleNearest3d(ws, n, ex, st),
            Api::E1d => aclnnUpsampleNearestExact1d(ws, n, ex, st),
            Api::E2d => aclnnUpsampleNearestExact2d(ws, n, ex, st),
            Api::E3d => aclnnUpsampleNearestExact3d(ws, n, ex, st),
            Api::N1dB => aclnnUpsampleNearest1dBackward(ws, n, ex, st),
            Api::N2dB => aclnnUpsampleNearest2dBackward(ws, n, ex, st),
            Api::N3dB => aclnnUpsampleNearest3dBackward(ws, n, ex, st),
            Api::E1dB => aclnnUpsampleNearestExact1dBackward(ws, n, ex, st),
            Api::E2dB => aclnnUpsampleNearestExact2dBackward(ws, n, ex, st),
            Api::E3dB => aclnnUpsampleNearestExact3dBackward(ws, n, ex, st),
        }
    }
}

fn int_array(rng: &mut Rng, values: &[i64], hostile: bool) -> *mut aclIntArray {
    let mut v = values.to_vec();
    if hostile {
        match rng.below(5) {
            0 => v.truncate(rng.below(v.len() as u64 + 1) as usize),
            1 => v.push(rng.i64_extreme()),
            2 if !v.is_empty() => {
                let i = rng.below(v.len() as u64) as usize;
                v[i] = rng.i64_extreme();
            }
            3 => return null_mut(),
            _ => {}
        }
    }
    unsafe {
        aclCreateIntArray(
            if v.is_empty() { null() } else { v.as_ptr() },
            v.len() as u64,
        )
    }
}

unsafe fn check_api(rng: &mut Rng, fails: &mut Failures, label: &str) {
    let api = rng.pick(&APIS);
    let sp = api.spatial();
    let hostile = rng.chance(0.6);
    let n = rng.range(1, 3);
    let c = rng.range(1, 4);
    let input: Vec<i64> = (0..sp).map(|_| rng.range(1, 6)).collect();
    let output: Vec<i64> = (0..sp).map(|_| rng.range(1, 9)).collect();
    let cl = rng.chance(0.3);
    let format = match (sp, cl) {
        (1, _) => rng.pick(&[ACL_FORMAT_NCL, ACL_FORMAT_ND]),
        (2, false) => rng.pick(&[ACL_FORMAT_NCHW, ACL_FORMAT_ND]),
        (2, true) => ACL_FORMAT_NHWC,
        (_, false) => rng.pick(&[ACL_FORMAT_NCDHW, ACL_FORMAT_ND]),
        (_, true) => ACL_FORMAT_NDHWC,
    };
    let shape = |sz: &[i64]| -> Vec<i64> {
        if cl {
            let mut v = vec![n];
            v.extend(sz);
            v.push(c);
            v
        } else {
            let mut v = vec![n, c];
            v.extend(sz);
            v
        }
    };
    let dt = if rng.chance(0.9) {
        rng.pick(&[ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_UINT8, ACL_DOUBLE])
    } else {
        rng.range(-1, 40) as i32
    };
    let (src_shape, dst_shape) = if api.backward() {
        (shape(&output), shape(&input))
    } else {
        (shape(&input), shape(&output))
    };
    let which = rng.below(2);
    let src = make_tensor(rng, &src_shape, dt, format, hostile && which == 0);
    let dst = make_tensor(rng, &dst_shape, dt, format, hostile && which == 1);
    let h = hostile && rng.chance(0.4);
    let out_size = int_array(rng, &output, h);
    let in_full = {
        let mut v = vec![n, c];
        v.extend(&input);
        v
    };
    let h = hostile && rng.chance(0.4);
    let in_size = int_array(rng, &in_full, h);
    let mut scales = [0f64; 3];
    for k in 0..3 {
        scales[k] = if hostile && rng.chance(0.4) {
            rng.f64_extreme()
        } else if rng.chance(0.5) {
            0.0
        } else {
            output[k.min(sp - 1)] as f64 / input[k.min(sp - 1)] as f64
        };
    }
    let mut ws = 77u64;
    let mut ex: *mut aclOpExecutor = null_mut();
    let wsp: *mut u64 = if hostile && rng.chance(0.05) {
        null_mut()
    } else {
        &mut ws
    };
    let exp: *mut *mut aclOpExecutor = if hostile && rng.chance(0.05) {
        null_mut()
    } else {
        &mut ex
    };
    let st = api.phase1(src.h, out_size, in_size, scales, dst.h, wsp, exp);
    fails.check(OK_ACLNN.contains(&st), || {
        format!("{label}: {api:?} phase 1 -> {st}")
    });
    aclDestroyIntArray(out_size);
    aclDestroyIntArray(in_size);
    if st != ACLNN_SUCCESS {
        fails.reach(match st {
            ACLNN_ERR_PARAM_NULLPTR => "phase1 NULLPTR",
            ACLNN_ERR_PARAM_INVALID => "phase1 INVALID",
            _ => "phase1 other",
        });
        return;
    }
    fails.reach("phase1 ok");
    fails.check(!ex.is_null() && ws == 0, || {
        format!("{label}: success without an executor")
    });
    let before = dst.buf.as_ref().map(|b| b.data().to_vec());
    match rng.below(4) {
        0 => {
            // A NULL workspace with a non-zero size is refused (and consumes the executor).
            let st = api.phase2(null_mut(), 64, ex);
            fails.check(st == ACLNN_ERR_PARAM_NULLPTR, || {
                format!("{label}: NULL workspace -> {st}")
            });
            fails.check(
                dst.buf.as_ref().map(|b| b.data().to_vec()) == before,
                || format!("{label}: refused run wrote"),
            );
        }
        1 => {
            let st = aclSetAclOpExecutorRepeatable(ex);
            fails.check(st == ACLNN_SUCCESS, || {
                format!("{label}: repeatable -> {st}")
            });
            for _ in 0..2 {
                let st = api.phase2(null_mut(), 0, ex);
                fails.check(st == ACLNN_SUCCESS, || {
                    format!("{label}: repeat run -> {st}")
                });
            }
            let st = aclSetInputTensorAddr(ex, 1, null_mut(), null_mut());
            fails.check(st == ACLNN_ERR_PARAM_INVALID, || {
                format!("{label}: set input 1 -> {st}")
            });
            let st = aclDestroyAclOpExecutor(ex);
            fails.check(st == ACLNN_SUCCESS, || format!("{label}: destroy -> {st}"));
        }
        2 => {
            let st = aclDestroyAclOpExecutor(ex);
            fails.check(st == ACLNN_SUCCESS, || format!("{label}: destroy -> {st}"));
        }
        _ => {
            let st = api.phase2(null_mut(), 0, ex);
            fails.check(st == ACLNN_SUCCESS, || format!("{label}: run -> {st}"));
            fails.reach("run");
        }
    }
    // The executor is gone now: every further use is refused, not a use after free.
    let st = api.phase2(null_mut(), 0, ex);
    fails.check(st == ACLNN_ERR_PARAM_INVALID, || {
        format!("{label}: run of a consumed executor -> {st}")
    });
    let st = aclSetAclOpExecutorRepeatable(ex);
    fails.check(st != ACLNN_SUCCESS, || {
        format!("{label}: repeatable on a consumed executor -> {st}")
    });
    let st = aclDestroyAclOpExecutor(ex);
    fails.check(st == ACLNN_SUCCESS, || {
        format!("{label}: destroy of a consumed executor -> {st}")
    });
    for t in [&src, &dst] {
        if let Some(b) = &t.buf {
            fails.check(b.intact(), || {
                format!("{label}: run wrote outside a tensor's storage")
            });
        }
    }
}

#[test]
fn operators_survive_garbage() {
    install_guard();
    let seed = seed();
    let mut fails = Failures::default();
    for i in cases(8000) {
        run_case(&mut fails, "acl_op", seed, i, |rng, f, label| unsafe {
            check_api(rng, f, label)
        });
    }
    fails.finish("acl_op", seed);
}

#[test]
fn meta_api_survives_garbage() {
    install_guard();
    let seed = seed();
    let mut fails = Failures::default();
    for i in cases(5000) {
        run_case(&mut fails, "acl_meta", seed, i, |rng, f, label| unsafe {
            let r = rng.range(0, 9) as usize;
            let dims: Vec<i64> = (0..r).map(|_| rng.i64_extreme()).collect();
            let strides: Vec<i64> = (0..r).map(|_| rng.i64_extreme()).collect();
            let storage: Vec<i64> = (0..rng.range(0, 4)).map(|_| rng.i64_extreme()).collect();
            let dp = if rng.chance(0.1) {
                null()
            } else {
                dims.as_ptr()
            };
            let sp = if rng.chance(0.3) {
                null()
            } else {
                strides.as_ptr()
            };
            let stp = if rng.chance(0.1) {
                null()
            } else {
                storage.as_ptr()
            };
            let t = aclCreateTensor(
                dp,
                r as u64,
                rng.range(-3, 50) as i32,
                sp,
                rng.i64_extreme(),
                rng.range(-3, 60) as i32,
                stp,
                storage.len() as u64,
                null_mut(),
            );
            let null_expected = (dp.is_null() && r > 0) || (stp.is_null() && !storage.is_empty());
            f.check(t.is_null() == null_expected, || {
                format!("{label}: aclCreateTensor returned {t:?}, NULL expected: {null_expected}")
            });
            if !t.is_null() {
                let (mut p, mut num) = (null_mut(), 0u64);
                f.check(
                    aclGetViewShape(t, &mut p, &mut num) == 0 && num == r as u64,
                    || format!("{label}: aclGetViewShape"),
                );
                if !p.is_null() {
                    f.check(std::slice::from_raw_parts(p, r) == &dims[..], || {
                        format!("{label}: view shape copy differs")
                    });
                    libc::free(p.cast());
                }
                let st = aclGetViewStrides(t, null_mut(), &mut num);
                f.check(st == ACLNN_ERR_PARAM_NULLPTR, || {
                    format!("{label}: strides(NULL) -> {st}")
                });
                let mut o = 0i64;
                f.check(aclGetViewOffset(t, &mut o) == 0, || {
                    format!("{label}: offset")
                });
                f.check(aclDestroyTensor(t) == 0, || format!("{label}: destroy"));
            }
            let n = rng.pick(&[0u64, 1, 3, 8]);
            let vals = [rng.i64_extreme(); 8];
            let a = aclCreateIntArray(
                if rng.chance(0.2) {
                    null()
                } else {
                    vals.as_ptr()
                },
                n,
            );
            let mut sz = 0u64;
            if !a.is_null() {
                f.check(aclGetIntArraySize(a, &mut sz) == 0 && sz == n, || {
                    format!("{label}: int array size")
                });
            }
            aclDestroyIntArray(a);
            let fl = [rng.f32_extreme(); 8];
            let fa = aclCreateFloatArray(fl.as_ptr(), n);
            aclDestroyFloatArray(fa);
            let bools = [rng.next() as u8; 8];
            let ba = aclCreateBoolArray(bools.as_ptr().cast(), n);
            aclDestroyBoolArray(ba);
        });
    }
    fails.finish("acl_meta", seed);
}

#[test]
fn runtime_survives_garbage() {
    install_guard();
    let mut fails = Failures::default();
    begin_case("acl runtime");
    unsafe {
        for size in [
            0usize,
            usize::MAX,
            usize::MAX - 31,
            isize::MAX as usize,
            1 << 40,
            1 << 48,
        ] {
            let mut p = null_mut();
            let st = aclrtMalloc(&mut p, size, ACL_MEM_MALLOC_HUGE_FIRST);
            fails.check(
                st == ACL_ERROR_INVALID_PARAM || st == ACL_ERROR_BAD_ALLOC,
                || format!("aclrtMalloc({size}) -> {st}"),
            );
            if st == ACL_SUCCESS {
                aclrtFree(p);
            }
        }
        let st = aclrtMalloc(null_mut(), 16, 0);
        fails.check(st == ACL_ERROR_INVALID_PARAM, || {
            format!("aclrtMalloc(NULL) -> {st}")
        });
        let mut p = null_mut();
        fails.check(aclrtMalloc(&mut p, 100, 99) == ACL_SUCCESS, || {
            "aclrtMalloc(100)".into()
        });
        let mut host = GuardedBuf::new(100, 0x11);
        let hp = host.ptr() as *mut c_void;
        for (what, st) in [
            (
                "count > destMax",
                aclrtMemcpy(p, 50, hp, 100, ACL_MEMCPY_HOST_TO_DEVICE),
            ),
            ("NULL dst", aclrtMemcpy(null_mut(), 100, hp, 100, 1)),
            ("NULL src", aclrtMemcpy(p, 100, null(), 100, 1)),
            ("kind -1", aclrtMemcpy(p, 100, hp, 100, -1)),
            ("kind 99", aclrtMemcpy(p, 100, hp, 100, 99)),
            ("huge count", aclrtMemcpy(p, 100, hp, usize::MAX, 1)),
            ("memset count > max", aclrtMemset(p, 10, 0, 11)),
            ("memset NULL", aclrtMemset(null_mut(), 10, 0, 10)),
            (
                "async foreign stream",
                aclrtMemcpyAsync(p, 100, hp, 100, 1, hp),
            ),
        ] {
            fails.check(st != ACL_SUCCESS && st != ACL_ERROR_INTERNAL_ERROR, || {
                format!("{what} -> {st}")
            });
        }
        let st = aclrtMemcpy(hp, 100, p, 100, ACL_MEMCPY_DEVICE_TO_HOST);
        fails.check(st == ACL_SUCCESS && host.intact(), || {
            format!("valid memcpy -> {st}")
        });
        let st = aclrtMemset(hp, 100, 0x1ff, 100);
        fails.check(st == ACL_SUCCESS && host.intact(), || {
            format!("valid memset -> {st}")
        });
        fails.check(aclrtFree(p) == ACL_SUCCESS, || "aclrtFree".into());
        for (what, q) in [("double", p), ("foreign", hp), ("NULL", null_mut())] {
            let st = aclrtFree(q);
            fails.check(st == ACL_ERROR_INVALID_PARAM, || {
                format!("aclrtFree({what}) -> {st}")
            });
        }
        let st = aclrtDestroyStream(hp);
        fails.check(st != ACL_SUCCESS, || {
            format!("destroy foreign stream -> {st}")
        });
        let st = aclrtSetDevice(-1);
        fails.check(st != ACL_SUCCESS, || format!("aclrtSetDevice(-1) -> {st}"));
        // Run calls with NULL and foreign executors.
        let st = aclnnUpsampleNearest2d(null_mut(), 0, null_mut(), null_mut());
        fails.check(st == ACLNN_ERR_PARAM_NULLPTR, || {
            format!("run(NULL) -> {st}")
        });
        let st = aclnnUpsampleNearest2d(null_mut(), 0, hp.cast(), null_mut());
        fails.check(st == ACLNN_ERR_PARAM_INVALID, || {
            format!("run(foreign) -> {st}")
        });
        let st = aclDestroyAclOpExecutor(hp.cast());
        fails.check(st == ACLNN_SUCCESS, || format!("destroy(foreign) -> {st}"));
    }
    end_case();
    fails.finish("acl_runtime", 0);
}
