//! The C types of the DirectML face: Windows scalar typedefs, HRESULT codes, the enums
//! (as integer typedefs plus constants, never Rust enums) and the descriptor structs,
//! bit-identical to the FL 6.4 `DirectML.h` on LP64 (checked below at compile time).

#![allow(non_camel_case_types, non_snake_case)]

use std::ffi::c_void;
use std::mem::{align_of, offset_of, size_of};

/// Windows `UINT`.
pub type UINT = u32;
/// Windows `UINT64`.
pub type UINT64 = u64;
/// Windows `FLOAT`.
pub type FLOAT = f32;
/// Windows `BOOL` (`int`; any nonzero value is TRUE).
pub type BOOL = i32;
/// Windows `HRESULT` (32-bit; negative values are failures).
pub type HRESULT = i32;

/// Success.
pub const S_OK: HRESULT = 0;
/// One or more arguments are invalid (0x80070057).
pub const E_INVALIDARG: HRESULT = 0x8007_0057_u32 as HRESULT;
/// Memory could not be obtained (0x8007000E).
pub const E_OUTOFMEMORY: HRESULT = 0x8007_000E_u32 as HRESULT;
/// A required pointer is NULL (0x80004003).
pub const E_POINTER: HRESULT = 0x8000_4003_u32 as HRESULT;
/// The request is well-formed but not implemented here (0x80004001).
pub const E_NOTIMPL: HRESULT = 0x8000_4001_u32 as HRESULT;
/// Unspecified failure (0x80004005).
pub const E_FAIL: HRESULT = 0x8000_4005_u32 as HRESULT;

const _: () = assert!(E_INVALIDARG as u32 == 0x8007_0057);
const _: () = assert!(E_OUTOFMEMORY as u32 == 0x8007_000E);
const _: () = assert!(E_POINTER as u32 == 0x8000_4003);
const _: () = assert!(E_NOTIMPL as u32 == 0x8000_4001);
const _: () = assert!(E_FAIL as u32 == 0x8000_4005);

/// Maximum tensor dimension count before FL 3.0.
pub const DML_TENSOR_DIMENSION_COUNT_MAX: UINT = 5;
/// Maximum tensor dimension count from FL 3.0.
pub const DML_TENSOR_DIMENSION_COUNT_MAX1: UINT = 8;
/// Buffer tensors are at least this aligned (bytes); binding offsets are multiples of it.
pub const DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT: UINT = 16;
/// Alignment of temporary buffers (not used on the host; kept for source compatibility).
pub const DML_TEMPORARY_BUFFER_ALIGNMENT: UINT = 256;
/// Alignment of persistent buffers (not used on the host; kept for source compatibility).
pub const DML_PERSISTENT_BUFFER_ALIGNMENT: UINT = 256;

/// Element type of a tensor.
pub type DML_TENSOR_DATA_TYPE = i32;
pub const DML_TENSOR_DATA_TYPE_UNKNOWN: DML_TENSOR_DATA_TYPE = 0;
pub const DML_TENSOR_DATA_TYPE_FLOAT32: DML_TENSOR_DATA_TYPE = 1;
pub const DML_TENSOR_DATA_TYPE_FLOAT16: DML_TENSOR_DATA_TYPE = 2;
pub const DML_TENSOR_DATA_TYPE_UINT32: DML_TENSOR_DATA_TYPE = 3;
pub const DML_TENSOR_DATA_TYPE_UINT16: DML_TENSOR_DATA_TYPE = 4;
pub const DML_TENSOR_DATA_TYPE_UINT8: DML_TENSOR_DATA_TYPE = 5;
pub const DML_TENSOR_DATA_TYPE_INT32: DML_TENSOR_DATA_TYPE = 6;
pub const DML_TENSOR_DATA_TYPE_INT16: DML_TENSOR_DATA_TYPE = 7;
pub const DML_TENSOR_DATA_TYPE_INT8: DML_TENSOR_DATA_TYPE = 8;
pub const DML_TENSOR_DATA_TYPE_FLOAT64: DML_TENSOR_DATA_TYPE = 9;
pub const DML_TENSOR_DATA_TYPE_UINT64: DML_TENSOR_DATA_TYPE = 10;
pub const DML_TENSOR_DATA_TYPE_INT64: DML_TENSOR_DATA_TYPE = 11;
pub const DML_TENSOR_DATA_TYPE_UINT4: DML_TENSOR_DATA_TYPE = 12;
pub const DML_TENSOR_DATA_TYPE_INT4: DML_TENSOR_DATA_TYPE = 13;

/// Kind of tensor description behind `DML_TENSOR_DESC::Desc`.
pub type DML_TENSOR_TYPE = i32;
pub const DML_TENSOR_TYPE_INVALID: DML_TENSOR_TYPE = 0;
pub const DML_TENSOR_TYPE_BUFFER: DML_TENSOR_TYPE = 1;

/// Tensor option bits.
pub type DML_TENSOR_FLAGS = u32;
pub const DML_TENSOR_FLAG_NONE: DML_TENSOR_FLAGS = 0x0;
/// Input only: DirectML binds the tensor at initialization. On the host it is bound at
/// execution like any other input.
pub const DML_TENSOR_FLAG_OWNED_BY_DML: DML_TENSOR_FLAGS = 0x1;

/// Operator kind (full list in `operator_types`).
pub type DML_OPERATOR_TYPE = i32;

/// Interpolation used by the resample operators.
pub type DML_INTERPOLATION_MODE = i32;
pub const DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR: DML_INTERPOLATION_MODE = 0;
pub const DML_INTERPOLATION_MODE_LINEAR: DML_INTERPOLATION_MODE = 1;

/// Rounding direction of nearest-neighbour coordinates (RESAMPLE2/3, GRAD1).
pub type DML_AXIS_DIRECTION = i32;
/// Round fractional coordinates up (`ceil`).
pub const DML_AXIS_DIRECTION_INCREASING: DML_AXIS_DIRECTION = 0;
/// Round fractional coordinates down (`floor`).
pub const DML_AXIS_DIRECTION_DECREASING: DML_AXIS_DIRECTION = 1;

/// DirectML feature levels (this library implements 6.4).
pub type DML_FEATURE_LEVEL = i32;
pub const DML_FEATURE_LEVEL_1_0: DML_FEATURE_LEVEL = 0x1000;
pub const DML_FEATURE_LEVEL_2_0: DML_FEATURE_LEVEL = 0x2000;
pub const DML_FEATURE_LEVEL_2_1: DML_FEATURE_LEVEL = 0x2100;
pub const DML_FEATURE_LEVEL_3_0: DML_FEATURE_LEVEL = 0x3000;
pub const DML_FEATURE_LEVEL_3_1: DML_FEATURE_LEVEL = 0x3100;
pub const DML_FEATURE_LEVEL_4_0: DML_FEATURE_LEVEL = 0x4000;
pub const DML_FEATURE_LEVEL_4_1: DML_FEATURE_LEVEL = 0x4100;
pub const DML_FEATURE_LEVEL_5_0: DML_FEATURE_LEVEL = 0x5000;
pub const DML_FEATURE_LEVEL_5_1: DML_FEATURE_LEVEL = 0x5100;
pub const DML_FEATURE_LEVEL_5_2: DML_FEATURE_LEVEL = 0x5200;
pub const DML_FEATURE_LEVEL_6_0: DML_FEATURE_LEVEL = 0x6000;
pub const DML_FEATURE_LEVEL_6_1: DML_FEATURE_LEVEL = 0x6100;
pub const DML_FEATURE_LEVEL_6_2: DML_FEATURE_LEVEL = 0x6200;
pub const DML_FEATURE_LEVEL_6_3: DML_FEATURE_LEVEL = 0x6300;
pub const DML_FEATURE_LEVEL_6_4: DML_FEATURE_LEVEL = 0x6400;

/// A tensor stored in a buffer (here: host memory).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_BUFFER_TENSOR_DESC {
    pub DataType: DML_TENSOR_DATA_TYPE,
    pub Flags: DML_TENSOR_FLAGS,
    pub DimensionCount: UINT,
    /// `DimensionCount` sizes, outermost first.
    pub Sizes: *const UINT,
    /// `DimensionCount` element strides, or NULL for packed.
    pub Strides: *const UINT,
    pub TotalTensorSizeInBytes: UINT64,
    /// 0, or a power of two >= the element size that binding offsets are multiples of.
    pub GuaranteedBaseOffsetAlignment: UINT,
}

/// A tensor description: `Type` says what `Desc` points to.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_TENSOR_DESC {
    pub Type: DML_TENSOR_TYPE,
    pub Desc: *const c_void,
}

/// An operator description: `Type` says which `DML_*_OPERATOR_DESC` `Desc` points to.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_OPERATOR_DESC {
    pub Type: DML_OPERATOR_TYPE,
    pub Desc: *const c_void,
}

/// DML_OPERATOR_RESAMPLE (FL 2.0): half-pixel offsets (0.5 / -0.5), nearest rounds half up.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_RESAMPLE_OPERATOR_DESC {
    pub InputTensor: *const DML_TENSOR_DESC,
    pub OutputTensor: *const DML_TENSOR_DESC,
    pub InterpolationMode: DML_INTERPOLATION_MODE,
    pub ScaleCount: UINT,
    pub Scales: *const FLOAT,
}

/// DML_OPERATOR_RESAMPLE1 (FL 2.1): explicit pixel offsets, nearest rounds half up.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_RESAMPLE1_OPERATOR_DESC {
    pub InputTensor: *const DML_TENSOR_DESC,
    pub OutputTensor: *const DML_TENSOR_DESC,
    pub InterpolationMode: DML_INTERPOLATION_MODE,
    pub DimensionCount: UINT,
    pub Scales: *const FLOAT,
    pub InputPixelOffsets: *const FLOAT,
    pub OutputPixelOffsets: *const FLOAT,
}

/// DML_OPERATOR_RESAMPLE2 (FL 5.1): nearest rounds by `RoundingDirection`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_RESAMPLE2_OPERATOR_DESC {
    pub InputTensor: *const DML_TENSOR_DESC,
    pub OutputTensor: *const DML_TENSOR_DESC,
    pub InterpolationMode: DML_INTERPOLATION_MODE,
    pub RoundingDirection: DML_AXIS_DIRECTION,
    pub DimensionCount: UINT,
    pub Scales: *const FLOAT,
    pub InputPixelOffsets: *const FLOAT,
    pub OutputPixelOffsets: *const FLOAT,
}

/// DML_OPERATOR_RESAMPLE3 (FL 6.4): RESAMPLE2 plus an antialiasing (tent) filter for
/// LINEAR on axes with `1/Scale > 2`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_RESAMPLE3_OPERATOR_DESC {
    pub InputTensor: *const DML_TENSOR_DESC,
    pub OutputTensor: *const DML_TENSOR_DESC,
    pub InterpolationMode: DML_INTERPOLATION_MODE,
    pub RoundingDirection: DML_AXIS_DIRECTION,
    pub DimensionCount: UINT,
    pub Scales: *const FLOAT,
    pub InputPixelOffsets: *const FLOAT,
    pub OutputPixelOffsets: *const FLOAT,
    pub Antialiased: BOOL,
}

/// DML_OPERATOR_RESAMPLE_GRAD (FL 3.0): adjoint of RESAMPLE1 with the same parameters.
/// `InputGradientTensor` has the forward output's sizes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_RESAMPLE_GRAD_OPERATOR_DESC {
    pub InputGradientTensor: *const DML_TENSOR_DESC,
    pub OutputGradientTensor: *const DML_TENSOR_DESC,
    pub InterpolationMode: DML_INTERPOLATION_MODE,
    pub DimensionCount: UINT,
    pub Scales: *const FLOAT,
    pub InputPixelOffsets: *const FLOAT,
    pub OutputPixelOffsets: *const FLOAT,
}

/// DML_OPERATOR_RESAMPLE_GRAD1 (FL 5.1): adjoint of RESAMPLE2 with the same parameters.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_RESAMPLE_GRAD1_OPERATOR_DESC {
    pub InputGradientTensor: *const DML_TENSOR_DESC,
    pub OutputGradientTensor: *const DML_TENSOR_DESC,
    pub InterpolationMode: DML_INTERPOLATION_MODE,
    pub RoundingDirection: DML_AXIS_DIRECTION,
    pub DimensionCount: UINT,
    pub Scales: *const FLOAT,
    pub InputPixelOffsets: *const FLOAT,
    pub OutputPixelOffsets: *const FLOAT,
}

/// A bound buffer range. `Buffer` is a host pointer here (an `ID3D12Resource*` in
/// DirectML); the tensor data starts at `Buffer + Offset` and the range holds
/// `SizeInBytes` bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DML_BUFFER_BINDING {
    pub Buffer: *mut c_void,
    pub Offset: UINT64,
    pub SizeInBytes: UINT64,
}

// Layouts of the FL 6.4 header on LP64 (docs/spec/directml.md §2.3).
const _: () = {
    assert!(size_of::<DML_BUFFER_TENSOR_DESC>() == 48 && align_of::<DML_BUFFER_TENSOR_DESC>() == 8);
    assert!(offset_of!(DML_BUFFER_TENSOR_DESC, DataType) == 0);
    assert!(offset_of!(DML_BUFFER_TENSOR_DESC, Flags) == 4);
    assert!(offset_of!(DML_BUFFER_TENSOR_DESC, DimensionCount) == 8);
    assert!(offset_of!(DML_BUFFER_TENSOR_DESC, Sizes) == 16);
    assert!(offset_of!(DML_BUFFER_TENSOR_DESC, Strides) == 24);
    assert!(offset_of!(DML_BUFFER_TENSOR_DESC, TotalTensorSizeInBytes) == 32);
    assert!(offset_of!(DML_BUFFER_TENSOR_DESC, GuaranteedBaseOffsetAlignment) == 40);
    assert!(size_of::<DML_TENSOR_DESC>() == 16 && offset_of!(DML_TENSOR_DESC, Desc) == 8);
    assert!(size_of::<DML_OPERATOR_DESC>() == 16 && offset_of!(DML_OPERATOR_DESC, Desc) == 8);

    assert!(size_of::<DML_RESAMPLE_OPERATOR_DESC>() == 32);
    assert!(offset_of!(DML_RESAMPLE_OPERATOR_DESC, OutputTensor) == 8);
    assert!(offset_of!(DML_RESAMPLE_OPERATOR_DESC, InterpolationMode) == 16);
    assert!(offset_of!(DML_RESAMPLE_OPERATOR_DESC, ScaleCount) == 20);
    assert!(offset_of!(DML_RESAMPLE_OPERATOR_DESC, Scales) == 24);

    assert!(size_of::<DML_RESAMPLE1_OPERATOR_DESC>() == 48);
    assert!(offset_of!(DML_RESAMPLE1_OPERATOR_DESC, InterpolationMode) == 16);
    assert!(offset_of!(DML_RESAMPLE1_OPERATOR_DESC, DimensionCount) == 20);
    assert!(offset_of!(DML_RESAMPLE1_OPERATOR_DESC, Scales) == 24);
    assert!(offset_of!(DML_RESAMPLE1_OPERATOR_DESC, InputPixelOffsets) == 32);
    assert!(offset_of!(DML_RESAMPLE1_OPERATOR_DESC, OutputPixelOffsets) == 40);

    assert!(size_of::<DML_RESAMPLE_GRAD_OPERATOR_DESC>() == 48);
    assert!(offset_of!(DML_RESAMPLE_GRAD_OPERATOR_DESC, OutputGradientTensor) == 8);
    assert!(offset_of!(DML_RESAMPLE_GRAD_OPERATOR_DESC, DimensionCount) == 20);
    assert!(offset_of!(DML_RESAMPLE_GRAD_OPERATOR_DESC, OutputPixelOffsets) == 40);

    assert!(size_of::<DML_RESAMPLE2_OPERATOR_DESC>() == 56);
    assert!(offset_of!(DML_RESAMPLE2_OPERATOR_DESC, RoundingDirection) == 20);
    assert!(offset_of!(DML_RESAMPLE2_OPERATOR_DESC, DimensionCount) == 24);
    assert!(offset_of!(DML_RESAMPLE2_OPERATOR_DESC, Scales) == 32);
    assert!(offset_of!(DML_RESAMPLE2_OPERATOR_DESC, InputPixelOffsets) == 40);
    assert!(offset_of!(DML_RESAMPLE2_OPERATOR_DESC, OutputPixelOffsets) == 48);

    assert!(size_of::<DML_RESAMPLE_GRAD1_OPERATOR_DESC>() == 56);
    assert!(offset_of!(DML_RESAMPLE_GRAD1_OPERATOR_DESC, RoundingDirection) == 20);
    assert!(offset_of!(DML_RESAMPLE_GRAD1_OPERATOR_DESC, DimensionCount) == 24);
    assert!(offset_of!(DML_RESAMPLE_GRAD1_OPERATOR_DESC, OutputPixelOffsets) == 48);

    assert!(size_of::<DML_RESAMPLE3_OPERATOR_DESC>() == 64);
    assert!(offset_of!(DML_RESAMPLE3_OPERATOR_DESC, Scales) == 32);
    assert!(offset_of!(DML_RESAMPLE3_OPERATOR_DESC, OutputPixelOffsets) == 48);
    assert!(offset_of!(DML_RESAMPLE3_OPERATOR_DESC, Antialiased) == 56);

    assert!(size_of::<DML_BUFFER_BINDING>() == 24);
    assert!(offset_of!(DML_BUFFER_BINDING, Offset) == 8);
    assert!(offset_of!(DML_BUFFER_BINDING, SizeInBytes) == 16);
};
