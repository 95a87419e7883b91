//! C types, enum values and status codes of the Ascend face (CANN `acl_base_rt.h`,
//! `acl_rt.h`, `rt_error_codes.h`, opbase `acl_meta.h`, `op_errno.h`).
//!
//! C enums cross the boundary as plain integers (`int`-sized): a value outside the lists
//! below is just an unknown number, never undefined behaviour.

#![allow(non_camel_case_types)]

use std::ffi::c_void;

/// Status of every aclnn call (`int32_t`).
pub type aclnnStatus = i32;

pub const ACLNN_SUCCESS: aclnnStatus = 0;
/// A required pointer argument is NULL.
pub const ACLNN_ERR_PARAM_NULLPTR: aclnnStatus = 161001;
/// An argument is invalid (dtype, rank, shape, size, format).
pub const ACLNN_ERR_PARAM_INVALID: aclnnStatus = 161002;
pub const ACLNN_ERR_RUNTIME_ERROR: aclnnStatus = 361001;
pub const ACLNN_ERR_INNER: aclnnStatus = 561000;
pub const ACLNN_ERR_INNER_INFERSHAPE_ERROR: aclnnStatus = 561001;
pub const ACLNN_ERR_INNER_TILING_ERROR: aclnnStatus = 561002;
pub const ACLNN_ERR_INNER_FIND_KERNEL_ERROR: aclnnStatus = 561003;
pub const ACLNN_ERR_INNER_CREATE_EXECUTOR: aclnnStatus = 561101;
pub const ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR: aclnnStatus = 561102;
pub const ACLNN_ERR_INNER_NULLPTR: aclnnStatus = 561103;
pub const ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE: aclnnStatus = 561104;
pub const ACLNN_ERR_INNER_KEY_CONFLICT: aclnnStatus = 561105;
pub const ACLNN_ERR_INNER_KEY_CONFILICT: aclnnStatus = 561105;
pub const ACLNN_ERR_INNER_INVALID_IMPL_MODE: aclnnStatus = 561106;
pub const ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID: aclnnStatus = 561119;

/// Element type of a tensor (C enum `aclDataType`).
pub type aclDataType = i32;

pub const ACL_DT_UNDEFINED: aclDataType = -1;
pub const ACL_FLOAT: aclDataType = 0;
pub const ACL_FLOAT16: aclDataType = 1;
pub const ACL_INT8: aclDataType = 2;
pub const ACL_INT32: aclDataType = 3;
pub const ACL_UINT8: aclDataType = 4;
pub const ACL_INT16: aclDataType = 6;
pub const ACL_UINT16: aclDataType = 7;
pub const ACL_UINT32: aclDataType = 8;
pub const ACL_INT64: aclDataType = 9;
pub const ACL_UINT64: aclDataType = 10;
pub const ACL_DOUBLE: aclDataType = 11;
pub const ACL_BOOL: aclDataType = 12;
pub const ACL_STRING: aclDataType = 13;
pub const ACL_COMPLEX64: aclDataType = 16;
pub const ACL_COMPLEX128: aclDataType = 17;
pub const ACL_BF16: aclDataType = 27;
pub const ACL_INT4: aclDataType = 29;
pub const ACL_UINT1: aclDataType = 30;
pub const ACL_COMPLEX32: aclDataType = 33;
pub const ACL_HIFLOAT8: aclDataType = 34;
pub const ACL_FLOAT8_E5M2: aclDataType = 35;
pub const ACL_FLOAT8_E4M3FN: aclDataType = 36;
pub const ACL_FLOAT8_E8M0: aclDataType = 37;
pub const ACL_FLOAT6_E3M2: aclDataType = 38;
pub const ACL_FLOAT6_E2M3: aclDataType = 39;
pub const ACL_FLOAT4_E2M1: aclDataType = 40;
pub const ACL_FLOAT4_E1M2: aclDataType = 41;
pub const ACL_HIFLOAT4: aclDataType = 42;

/// Storage format of a tensor (C enum `aclFormat`).
pub type aclFormat = i32;

pub const ACL_FORMAT_UNDEFINED: aclFormat = -1;
pub const ACL_FORMAT_NCHW: aclFormat = 0;
pub const ACL_FORMAT_NHWC: aclFormat = 1;
pub const ACL_FORMAT_ND: aclFormat = 2;
pub const ACL_FORMAT_NC1HWC0: aclFormat = 3;
pub const ACL_FORMAT_FRACTAL_Z: aclFormat = 4;
pub const ACL_FORMAT_NC1HWC0_C04: aclFormat = 12;
pub const ACL_FORMAT_HWCN: aclFormat = 16;
pub const ACL_FORMAT_NDHWC: aclFormat = 27;
pub const ACL_FORMAT_FRACTAL_NZ: aclFormat = 29;
pub const ACL_FORMAT_NCDHW: aclFormat = 30;
pub const ACL_FORMAT_NDC1HWC0: aclFormat = 32;
pub const ACL_FRACTAL_Z_3D: aclFormat = 33;
pub const ACL_FORMAT_NC: aclFormat = 35;
pub const ACL_FORMAT_NCL: aclFormat = 47;
pub const ACL_FORMAT_FRACTAL_NZ_C0_16: aclFormat = 50;
pub const ACL_FORMAT_FRACTAL_NZ_C0_32: aclFormat = 51;
pub const ACL_FORMAT_FRACTAL_NZ_C0_2: aclFormat = 52;
pub const ACL_FORMAT_FRACTAL_NZ_C0_4: aclFormat = 53;
pub const ACL_FORMAT_FRACTAL_NZ_C0_8: aclFormat = 54;

/// A stream handle. Work on this CPU implementation is synchronous; streams are bookkeeping.
pub type aclrtStream = *mut c_void;
pub type aclrtContext = *mut c_void;
pub type aclrtEvent = *mut c_void;
/// Status of the acl runtime calls (`int`).
pub type aclError = i32;
/// IEEE half-precision bits.
pub type aclFloat16 = u16;

pub const ACL_SUCCESS: aclError = 0;
pub const ACL_ERROR_NONE: aclError = 0;
pub const ACL_ERROR_INVALID_PARAM: aclError = 100000;
pub const ACL_ERROR_UNINITIALIZE: aclError = 100001;
pub const ACL_ERROR_REPEAT_INITIALIZE: aclError = 100002;
pub const ACL_ERROR_BAD_ALLOC: aclError = 200000;
pub const ACL_ERROR_INVALID_DEVICE: aclError = 200002;
pub const ACL_ERROR_INTERNAL_ERROR: aclError = 500000;
pub const ACL_ERROR_FAILURE: aclError = 500001;
pub const ACL_ERROR_RT_FAILURE: aclError = 500003;
pub const ACL_ERROR_RT_PARAM_INVALID: aclError = 107000;
pub const ACL_ERROR_RT_INVALID_DEVICEID: aclError = 107001;
pub const ACL_ERROR_RT_CONTEXT_NULL: aclError = 107002;
pub const ACL_ERROR_RT_MEMORY_ALLOCATION: aclError = 207001;

/// Direction of `aclrtMemcpy` (C enum; advisory here: all memory is host memory).
pub type aclrtMemcpyKind = i32;

pub const ACL_MEMCPY_HOST_TO_HOST: aclrtMemcpyKind = 0;
pub const ACL_MEMCPY_HOST_TO_DEVICE: aclrtMemcpyKind = 1;
pub const ACL_MEMCPY_DEVICE_TO_HOST: aclrtMemcpyKind = 2;
pub const ACL_MEMCPY_DEVICE_TO_DEVICE: aclrtMemcpyKind = 3;
pub const ACL_MEMCPY_DEFAULT: aclrtMemcpyKind = 4;
pub const ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: aclrtMemcpyKind = 5;
pub const ACL_MEMCPY_INNER_DEVICE_TO_DEVICE: aclrtMemcpyKind = 6;
pub const ACL_MEMCPY_INTER_DEVICE_TO_DEVICE: aclrtMemcpyKind = 7;

/// Allocation policy of `aclrtMalloc` (C enum; ignored here).
pub type aclrtMemMallocPolicy = i32;

pub const ACL_MEM_MALLOC_HUGE_FIRST: aclrtMemMallocPolicy = 0;
pub const ACL_MEM_MALLOC_HUGE_ONLY: aclrtMemMallocPolicy = 1;
pub const ACL_MEM_MALLOC_NORMAL_ONLY: aclrtMemMallocPolicy = 2;
pub const ACL_MEM_MALLOC_HUGE_FIRST_P2P: aclrtMemMallocPolicy = 3;
pub const ACL_MEM_MALLOC_HUGE_ONLY_P2P: aclrtMemMallocPolicy = 4;
pub const ACL_MEM_MALLOC_NORMAL_ONLY_P2P: aclrtMemMallocPolicy = 5;
pub const ACL_MEM_MALLOC_HUGE1G_ONLY: aclrtMemMallocPolicy = 6;
pub const ACL_MEM_MALLOC_HUGE1G_ONLY_P2P: aclrtMemMallocPolicy = 7;
pub const ACL_MEM_TYPE_LOW_BAND_WIDTH: aclrtMemMallocPolicy = 0x0100;
pub const ACL_MEM_TYPE_HIGH_BAND_WIDTH: aclrtMemMallocPolicy = 0x1000;
pub const ACL_MEM_ACCESS_USER_SPACE_READONLY: aclrtMemMallocPolicy = 0x100000;

/// Where the application runs (C enum `aclrtRunMode`).
pub type aclrtRunMode = i32;

pub const ACL_DEVICE: aclrtRunMode = 0;
pub const ACL_HOST: aclrtRunMode = 1;

/// Size in bytes of one element of `dt` for the types this library can hold; 0 otherwise
/// (and for sub-byte types).
pub(crate) fn dtype_size(dt: aclDataType) -> usize {
    match dt {
        ACL_FLOAT | ACL_INT32 | ACL_UINT32 => 4,
        ACL_FLOAT16 | ACL_BF16 | ACL_INT16 | ACL_UINT16 => 2,
        ACL_INT8 | ACL_UINT8 | ACL_BOOL | ACL_HIFLOAT8 | ACL_FLOAT8_E5M2 | ACL_FLOAT8_E4M3FN
        | ACL_FLOAT8_E8M0 => 1,
        ACL_INT64 | ACL_UINT64 | ACL_DOUBLE | ACL_COMPLEX64 => 8,
        ACL_COMPLEX128 => 16,
        ACL_COMPLEX32 => 4,
        _ => 0,
    }
}
