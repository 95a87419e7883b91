//! Ascend face: tensors (shapes, strides, offsets, storage, formats, data types), int
//! arrays, scales and the two-phase calls of several APIs, on storage of exactly the
//! declared size.
#![no_main]

use libfuzzer_sys::fuzz_target;
use resample::capi::ascend::backward::*;
use resample::capi::ascend::executor::aclOpExecutor;
use resample::capi::ascend::forward::*;
use resample::capi::ascend::meta::*;
use resample::capi::ascend::types::*;
use std::ffi::c_void;
use std::ptr::null_mut;

#[path = "bytes.rs"]
mod bytes;
use bytes::Bytes;

const DTYPES: [aclDataType; 8] = [ACL_FLOAT, ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_UINT8, ACL_INT8, ACL_INT32];
const FORMATS: [aclFormat; 7] = [ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_NCL, 99];

/// A tensor over storage it owns (exactly `storage` elements of its type).
struct T {
    t: *mut aclTensor,
    _data: Vec<u8>,
}

fn elem_size(dt: aclDataType) -> usize {
    match dt {
        ACL_DOUBLE => 8,
        ACL_FLOAT | ACL_INT32 => 4,
        ACL_FLOAT16 | ACL_BF16 => 2,
        _ => 1,
    }
}

unsafe fn tensor(b: &mut Bytes, rank: usize, dt: aclDataType, fmt: aclFormat) -> Option<T> {
    let dims: Vec<i64> = (0..rank).map(|_| b.size(7) as i64).collect();
    // Packed strides usually; sometimes permuted, padded or garbage.
    let mut strides = vec![0i64; rank];
    let mut s = 1i64;
    for d in (0..rank).rev() {
        strides[d] = s;
        s = s.saturating_mul(dims[d].max(1));
    }
    if b.u8() % 6 == 0 {
        strides.iter_mut().for_each(|x| *x = b.size(50) as i64 - 2);
    }
    let offset = if b.u8() % 8 == 0 { b.size(5) as i64 } else { 0 };
    let span = dims
        .iter()
        .zip(&strides)
        .try_fold(offset + 1, |acc, (&n, &st)| if n == 0 { Some(0) } else { acc.checked_add((n - 1).checked_mul(st.max(0))?) })?
        .max(0);
    let storage = if b.u8() % 10 == 0 { span / 2 } else { span };
    if storage as u64 > (8 << 20) {
        return None;
    }
    let mut data = vec![0u8; storage as usize * elem_size(dt)];
    b.fill(&mut data);
    let sd = [storage];
    let t = aclCreateTensor(
        dims.as_ptr(),
        rank as u64,
        dt,
        strides.as_ptr(),
        offset,
        fmt,
        sd.as_ptr(),
        1,
        if data.is_empty() { null_mut() } else { data.as_mut_ptr() as *mut c_void },
    );
    (!t.is_null()).then_some(T { t, _data: data })
}

type Run = unsafe extern "C" fn(*mut c_void, u64, *mut aclOpExecutor, *mut c_void) -> aclnnStatus;

fuzz_target!(|data: &[u8]| unsafe {
    let mut b = Bytes(data);
    let api = b.u8() % 6;
    let rank = match api {
        0 | 3 => b.pick(&[3, 3, 4]),
        5 => b.pick(&[5, 5, 4]),
        _ => b.pick(&[4, 4, 3, 5]),
    };
    let d0 = b.pick(&DTYPES);
    let d1 = if b.u8() % 8 == 0 { b.pick(&DTYPES) } else { d0 };
    let fmt = b.pick(&FORMATS);
    let Some(x) = tensor(&mut b, rank, d0, fmt) else { return };
    let Some(y) = tensor(&mut b, rank, d1, fmt) else {
        aclDestroyTensor(x.t);
        return;
    };
    let n_sizes = b.pick(&[1u64, 2, 3, 0, 4]);
    let sizes: Vec<i64> = (0..n_sizes).map(|_| b.size(9) as i64 - 1).collect();
    let out_size = aclCreateIntArray(sizes.as_ptr(), n_sizes);
    let in_sizes: Vec<i64> = (0..rank).map(|_| b.size(7) as i64).collect();
    let in_size = aclCreateIntArray(in_sizes.as_ptr(), rank as u64);
    let (s0, s1, s2) = (b.f32(), b.f32(), b.f32());
    let (mut ws, mut ex) = (0u64, null_mut());
    let (st, run): (aclnnStatus, Run) = match api {
        0 => (aclnnUpsampleNearest1dV2GetWorkspaceSize(x.t, out_size, s0, y.t, &mut ws, &mut ex), aclnnUpsampleNearest1dV2),
        1 => (aclnnUpsampleNearest2dGetWorkspaceSize(x.t, out_size, y.t, &mut ws, &mut ex), aclnnUpsampleNearest2d),
        2 => (aclnnUpsampleNearest2dV2GetWorkspaceSize(x.t, out_size, s0, s1, y.t, &mut ws, &mut ex), aclnnUpsampleNearest2dV2),
        3 => (aclnnUpsampleNearestExact1dGetWorkspaceSize(x.t, out_size, s0 as f64, y.t, &mut ws, &mut ex), aclnnUpsampleNearestExact1d),
        4 => (
            aclnnUpsampleNearest2dBackwardGetWorkspaceSize(x.t, out_size, in_size, s0 as f64, s1 as f64, y.t, &mut ws, &mut ex),
            aclnnUpsampleNearest2dBackward,
        ),
        _ => (
            aclnnUpsampleNearest3dGetWorkspaceSize(x.t, out_size, s0 as f64, s1 as f64, s2 as f64, y.t, &mut ws, &mut ex),
            aclnnUpsampleNearest3d,
        ),
    };
    if st == ACLNN_SUCCESS {
        let mut workspace = vec![0u8; ws.min(1 << 20) as usize];
        let wp = if workspace.is_empty() { null_mut() } else { workspace.as_mut_ptr() as *mut c_void };
        run(wp, ws, ex, null_mut());
        // A consumed executor must be refused, not reused.
        assert_ne!(run(wp, ws, ex, null_mut()), ACLNN_SUCCESS);
    }
    aclDestroyIntArray(out_size);
    aclDestroyIntArray(in_size);
    aclDestroyTensor(x.t);
    aclDestroyTensor(y.t);
});
