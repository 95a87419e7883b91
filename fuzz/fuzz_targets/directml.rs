//! DirectML face: operator descriptors (every resample type, 1..=5 dims, sizes, strides,
//! data types, scales, offsets, flags) and bindings on exactly-sized buffers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use resample::capi::directml::*;
use std::ffi::c_void;
use std::ptr::null;

#[path = "bytes.rs"]
mod bytes;
use bytes::Bytes;

struct Tensor {
    sizes: Vec<u32>,
    strides: Option<Vec<u32>>,
    desc: DML_BUFFER_TENSOR_DESC,
}

fn tensor(b: &mut Bytes, rank: u32, dtype: DML_TENSOR_DATA_TYPE) -> Box<Tensor> {
    let sizes: Vec<u32> = (0..rank).map(|_| b.size(9)).collect();
    let strides = (b.u8() % 3 == 0).then(|| (0..rank).map(|_| b.size(40)).collect::<Vec<u32>>());
    let mut t = Box::new(Tensor {
        sizes,
        strides,
        desc: DML_BUFFER_TENSOR_DESC {
            DataType: dtype,
            Flags: b.pick(&[DML_TENSOR_FLAG_NONE, DML_TENSOR_FLAG_NONE, 1, 7]),
            DimensionCount: rank,
            Sizes: null(),
            Strides: null(),
            TotalTensorSizeInBytes: 0,
            GuaranteedBaseOffsetAlignment: b.pick(&[0, 0, 16, 3, 64]),
        },
    });
    t.desc.Sizes = t.sizes.as_ptr();
    t.desc.Strides = t.strides.as_ref().map_or(null(), |s| s.as_ptr());
    // SAFETY: sizes/strides hold `rank` values.
    let need = unsafe { DMLCalcBufferTensorSize(dtype, rank, t.desc.Sizes, t.desc.Strides) };
    t.desc.TotalTensorSizeInBytes = match b.u8() % 8 {
        0 => need / 2,
        1 => need + 16,
        _ => need,
    };
    t
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let rank = b.pick(&[4, 4, 3, 2, 1, 0, 5]);
    let dt = |b: &mut Bytes| {
        b.pick(&[
            DML_TENSOR_DATA_TYPE_FLOAT32,
            DML_TENSOR_DATA_TYPE_FLOAT16,
            DML_TENSOR_DATA_TYPE_UINT8,
            DML_TENSOR_DATA_TYPE_INT8,
            3,
        ])
    };
    let d0 = dt(&mut b);
    let d1 = if b.u8() % 8 == 0 { dt(&mut b) } else { d0 };
    let input = tensor(&mut b, rank, d0);
    let out_rank = if b.u8() % 16 == 0 { rank + 1 } else { rank };
    let output = tensor(&mut b, out_rank, d1);
    let it = DML_TENSOR_DESC { Type: DML_TENSOR_TYPE_BUFFER, Desc: &input.desc as *const _ as *const c_void };
    let ot = DML_TENSOR_DESC { Type: DML_TENSOR_TYPE_BUFFER, Desc: &output.desc as *const _ as *const c_void };
    let n = rank.max(1) as usize;
    let scales: Vec<f32> = (0..n).map(|_| b.f32()).collect();
    let ioff: Vec<f32> = (0..n).map(|_| b.f32()).collect();
    let ooff: Vec<f32> = (0..n).map(|_| b.f32()).collect();
    let mode = b.pick(&[DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, DML_INTERPOLATION_MODE_LINEAR, 2]);
    let dir = b.pick(&[DML_AXIS_DIRECTION_INCREASING, DML_AXIS_DIRECTION_DECREASING, 5]);
    let count = if b.u8() % 16 == 0 { b.size(6) } else { rank };
    let r3 = DML_RESAMPLE3_OPERATOR_DESC {
        InputTensor: &it,
        OutputTensor: &ot,
        InterpolationMode: mode,
        RoundingDirection: dir,
        DimensionCount: count,
        Scales: scales.as_ptr(),
        InputPixelOffsets: ioff.as_ptr(),
        OutputPixelOffsets: ooff.as_ptr(),
        Antialiased: b.pick(&[0, 1, 2]),
    };
    let r2 = DML_RESAMPLE2_OPERATOR_DESC {
        InputTensor: &it,
        OutputTensor: &ot,
        InterpolationMode: mode,
        RoundingDirection: dir,
        DimensionCount: count,
        Scales: scales.as_ptr(),
        InputPixelOffsets: ioff.as_ptr(),
        OutputPixelOffsets: ooff.as_ptr(),
    };
    let r1 = DML_RESAMPLE1_OPERATOR_DESC {
        InputTensor: &it,
        OutputTensor: &ot,
        InterpolationMode: mode,
        DimensionCount: count,
        Scales: scales.as_ptr(),
        InputPixelOffsets: ioff.as_ptr(),
        OutputPixelOffsets: ooff.as_ptr(),
    };
    let r0 = DML_RESAMPLE_OPERATOR_DESC {
        InputTensor: &it,
        OutputTensor: &ot,
        InterpolationMode: mode,
        ScaleCount: count,
        Scales: scales.as_ptr(),
    };
    let g0 = DML_RESAMPLE_GRAD_OPERATOR_DESC {
        InputGradientTensor: &it,
        OutputGradientTensor: &ot,
        InterpolationMode: mode,
        DimensionCount: count,
        Scales: scales.as_ptr(),
        InputPixelOffsets: ioff.as_ptr(),
        OutputPixelOffsets: ooff.as_ptr(),
    };
    let g1 = DML_RESAMPLE_GRAD1_OPERATOR_DESC {
        InputGradientTensor: &it,
        OutputGradientTensor: &ot,
        InterpolationMode: mode,
        RoundingDirection: dir,
        DimensionCount: count,
        Scales: scales.as_ptr(),
        InputPixelOffsets: ioff.as_ptr(),
        OutputPixelOffsets: ooff.as_ptr(),
    };
    let (ty, desc): (DML_OPERATOR_TYPE, *const c_void) = match b.u8() % 6 {
        0 => (DML_OPERATOR_RESAMPLE, &r0 as *const _ as _),
        1 => (DML_OPERATOR_RESAMPLE1, &r1 as *const _ as _),
        2 => (DML_OPERATOR_RESAMPLE2, &r2 as *const _ as _),
        3 => (DML_OPERATOR_RESAMPLE3, &r3 as *const _ as _),
        4 => (DML_OPERATOR_RESAMPLE_GRAD, &g0 as *const _ as _),
        _ => (DML_OPERATOR_RESAMPLE_GRAD1, &g1 as *const _ as _),
    };
    let op_desc = DML_OPERATOR_DESC { Type: ty, Desc: desc };
    let mut op = std::ptr::null_mut();
    // SAFETY: every pointer in the descriptors is live for the call.
    if unsafe { DMLCreateOperator(&op_desc, &mut op) } != S_OK {
        assert!(op.is_null(), "a refused DMLCreateOperator must leave *op NULL");
        return;
    }
    // Buffers of exactly the declared sizes (plus a binding offset), so any read or
    // write outside them is caught by the sanitizer.
    let off = b.pick(&[0u64, 0, 16, 8]);
    let (ni, no) = (input.desc.TotalTensorSizeInBytes, output.desc.TotalTensorSizeInBytes);
    if ni.max(no) > 64 << 20 {
        // SAFETY: op came from DMLCreateOperator.
        unsafe { DMLReleaseOperator(op) };
        return;
    }
    let mut src = vec![0u8; (input.desc.TotalTensorSizeInBytes + off) as usize];
    let mut dst = vec![0u8; (output.desc.TotalTensorSizeInBytes + off) as usize];
    b.fill(&mut src);
    let bi = DML_BUFFER_BINDING { Buffer: src.as_mut_ptr() as *mut c_void, Offset: off, SizeInBytes: src.len() as u64 };
    let bo = DML_BUFFER_BINDING { Buffer: dst.as_mut_ptr() as *mut c_void, Offset: off, SizeInBytes: dst.len() as u64 };
    // SAFETY: the bindings describe live buffers; op came from DMLCreateOperator.
    unsafe {
        DMLExecuteOperator(op, 1, &bi, 1, &bo);
        DMLReleaseOperator(op);
    }
});
