//! The aclnn meta API (opbase `acl_meta.h`): tensors, scalars, arrays and lists as opaque,
//! Box-allocated handles. Creation copies every host array it is given; `aclDestroy*`
//! accept NULL.

#![allow(non_snake_case)]

use super::types::*;
use std::ffi::c_void;

/// A tensor description: view dims, element strides, element offset, dtype, format,
/// storage dims and the storage base address. Nothing is validated at creation (as in
/// CANN); the operators check what they use.
pub struct aclTensor {
    pub(crate) view: Vec<i64>,
    pub(crate) strides: Vec<i64>,
    pub(crate) offset: i64,
    pub(crate) dtype: aclDataType,
    pub(crate) format: aclFormat,
    pub(crate) storage: Vec<i64>,
    pub(crate) data: *mut c_void,
}

/// A host array of int64 values (copied at creation).
pub struct aclIntArray {
    pub(crate) values: Vec<i64>,
}

/// A host array of float values (copied at creation).
pub struct aclFloatArray {
    pub(crate) values: Vec<f32>,
}

/// A host array of bool values (copied at creation).
pub struct aclBoolArray {
    pub(crate) values: Vec<bool>,
}

/// A scalar of some dtype (its bytes copied at creation).
#[allow(dead_code)] // held for API completeness; no operator here takes scalars
pub struct aclScalar {
    pub(crate) dtype: aclDataType,
    pub(crate) bytes: Vec<u8>,
}

/// A list of tensors; it owns them (destroying the list destroys the tensors).
pub struct aclTensorList {
    pub(crate) tensors: Vec<*mut aclTensor>,
}

/// A list of scalars; it owns them.
pub struct aclScalarList {
    pub(crate) scalars: Vec<*mut aclScalar>,
}

/// Copies `n` values from a C array; `None` when `p` is NULL with `n > 0` or the size is
/// absurd (the allocation could not be made).
pub(crate) unsafe fn copy_array<T: Copy>(p: *const T, n: u64) -> Option<Vec<T>> {
    // SAFETY: pointer arguments are NULL or valid as the aclnn API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        if n == 0 {
            return Some(Vec::new());
        }
        if p.is_null() {
            return None;
        }
        let n = usize::try_from(n).ok()?;
        n.checked_mul(std::mem::size_of::<T>())
            .filter(|&b| b <= isize::MAX as usize)?;
        let mut v = Vec::new();
        v.try_reserve_exact(n).ok()?;
        v.extend_from_slice(std::slice::from_raw_parts(p, n));
        Some(v)
    }
}

/// Contiguous row-major element strides of `dims`.
pub(crate) fn contiguous_strides(dims: &[i64]) -> Vec<i64> {
    let mut s = vec![0i64; dims.len()];
    let mut acc = 1i64;
    for d in (0..dims.len()).rev() {
        s[d] = acc;
        acc = acc.saturating_mul(dims[d].max(1));
    }
    s
}

unsafe fn make_tensor(
    view_dims: *const i64,
    view_num: u64,
    data_type: aclDataType,
    stride: *const i64,
    offset: i64,
    format: aclFormat,
    storage_dims: *const i64,
    storage_num: u64,
    data: *mut c_void,
) -> Option<aclTensor> {
    // SAFETY: pointer arguments are NULL or valid as the aclnn API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        let view = copy_array(view_dims, view_num)?;
        let strides = if stride.is_null() {
            contiguous_strides(&view)
        } else {
            copy_array(stride, view_num)?
        };
        let storage = copy_array(storage_dims, storage_num)?;
        Some(aclTensor {
            view,
            strides,
            offset,
            dtype: data_type,
            format,
            storage,
            data,
        })
    }
}

/// Creates a tensor. `stride` (NULL = contiguous) has `viewDimsNum` entries in elements;
/// `offset` is the view offset in elements from `tensorData` (the storage base). Returns
/// NULL when `viewDims` or `storageDims` is NULL with a non-zero count.
#[no_mangle]
pub unsafe extern "C" fn aclCreateTensor(
    viewDims: *const i64,
    viewDimsNum: u64,
    dataType: aclDataType,
    stride: *const i64,
    offset: i64,
    format: aclFormat,
    storageDims: *const i64,
    storageDimsNum: u64,
    tensorData: *mut c_void,
) -> *mut aclTensor {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        ffi_guard!({
            match make_tensor(
                viewDims,
                viewDimsNum,
                dataType,
                stride,
                offset,
                format,
                storageDims,
                storageDimsNum,
                tensorData,
            ) {
                Some(t) => Box::into_raw(Box::new(t)),
                None => std::ptr::null_mut(),
            }
        })
    }
}

/// Re-initialises an existing tensor with new arguments (as `aclCreateTensor`).
#[no_mangle]
pub unsafe extern "C" fn aclInitTensor(
    tensor: *mut aclTensor,
    viewDims: *const i64,
    viewDimsNum: u64,
    dataType: aclDataType,
    stride: *const i64,
    offset: i64,
    format: aclFormat,
    storageDims: *const i64,
    storageDimsNum: u64,
    tensorDataAddr: *mut c_void,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            null_check!(ACLNN_ERR_PARAM_NULLPTR, tensor);
            match make_tensor(
                viewDims,
                viewDimsNum,
                dataType,
                stride,
                offset,
                format,
                storageDims,
                storageDimsNum,
                tensorDataAddr,
            ) {
                Some(t) => {
                    *tensor = t;
                    ACLNN_SUCCESS
                }
                None => ACLNN_ERR_PARAM_NULLPTR,
            }
        })
    }
}

/// Frees a tensor (not its data). NULL is accepted.
#[no_mangle]
pub unsafe extern "C" fn aclDestroyTensor(tensor: *const aclTensor) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            if !tensor.is_null() {
                drop(Box::from_raw(tensor as *mut aclTensor));
            }
            ACLNN_SUCCESS
        })
    }
}

/// Creates an int64 array by copying `size` values; NULL if `value` is NULL with `size > 0`.
#[no_mangle]
pub unsafe extern "C" fn aclCreateIntArray(value: *const i64, size: u64) -> *mut aclIntArray {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        ffi_guard!({
            match copy_array(value, size) {
                Some(values) => Box::into_raw(Box::new(aclIntArray { values })),
                None => std::ptr::null_mut(),
            }
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclDestroyIntArray(array: *const aclIntArray) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            if !array.is_null() {
                drop(Box::from_raw(array as *mut aclIntArray));
            }
            ACLNN_SUCCESS
        })
    }
}

/// Creates a float array by copying `size` values; NULL if `value` is NULL with `size > 0`.
#[no_mangle]
pub unsafe extern "C" fn aclCreateFloatArray(value: *const f32, size: u64) -> *mut aclFloatArray {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        ffi_guard!({
            match copy_array(value, size) {
                Some(values) => Box::into_raw(Box::new(aclFloatArray { values })),
                None => std::ptr::null_mut(),
            }
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclDestroyFloatArray(array: *const aclFloatArray) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            if !array.is_null() {
                drop(Box::from_raw(array as *mut aclFloatArray));
            }
            ACLNN_SUCCESS
        })
    }
}

/// Creates a bool array by copying `size` values (each byte read as 0 = false).
#[no_mangle]
pub unsafe extern "C" fn aclCreateBoolArray(value: *const bool, size: u64) -> *mut aclBoolArray {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        ffi_guard!({
            // Read bytes, not `bool`s: a C byte other than 0/1 must not be an invalid Rust bool.
            match copy_array(value as *const u8, size) {
                Some(bytes) => Box::into_raw(Box::new(aclBoolArray {
                    values: bytes.iter().map(|&b| b != 0).collect(),
                })),
                None => std::ptr::null_mut(),
            }
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclDestroyBoolArray(array: *const aclBoolArray) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            if !array.is_null() {
                drop(Box::from_raw(array as *mut aclBoolArray));
            }
            ACLNN_SUCCESS
        })
    }
}

/// Creates a scalar by copying one element of `dataType` from `value`; NULL for a NULL
/// `value` or a dtype without a byte size.
#[no_mangle]
pub unsafe extern "C" fn aclCreateScalar(
    value: *mut c_void,
    dataType: aclDataType,
) -> *mut aclScalar {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        ffi_guard!({
            let n = dtype_size(dataType);
            if value.is_null() || n == 0 {
                return std::ptr::null_mut();
            }
            let bytes = std::slice::from_raw_parts(value as *const u8, n).to_vec();
            Box::into_raw(Box::new(aclScalar {
                dtype: dataType,
                bytes,
            }))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclDestroyScalar(scalar: *const aclScalar) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            if !scalar.is_null() {
                drop(Box::from_raw(scalar as *mut aclScalar));
            }
            ACLNN_SUCCESS
        })
    }
}

/// Creates a tensor list holding the given tensors (which it then owns).
#[no_mangle]
pub unsafe extern "C" fn aclCreateTensorList(
    value: *const *const aclTensor,
    size: u64,
) -> *mut aclTensorList {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        ffi_guard!({
            match copy_array(value, size) {
                Some(v) => Box::into_raw(Box::new(aclTensorList {
                    tensors: v.into_iter().map(|p| p as *mut aclTensor).collect(),
                })),
                None => std::ptr::null_mut(),
            }
        })
    }
}

/// Frees a tensor list and the tensors in it. NULL is accepted.
#[no_mangle]
pub unsafe extern "C" fn aclDestroyTensorList(array: *const aclTensorList) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            if !array.is_null() {
                let l = Box::from_raw(array as *mut aclTensorList);
                for t in l.tensors {
                    if !t.is_null() {
                        drop(Box::from_raw(t));
                    }
                }
            }
            ACLNN_SUCCESS
        })
    }
}

/// Creates a scalar list holding the given scalars (which it then owns).
#[no_mangle]
pub unsafe extern "C" fn aclCreateScalarList(
    value: *const *const aclScalar,
    size: u64,
) -> *mut aclScalarList {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        ffi_guard!({
            match copy_array(value, size) {
                Some(v) => Box::into_raw(Box::new(aclScalarList {
                    scalars: v.into_iter().map(|p| p as *mut aclScalar).collect(),
                })),
                None => std::ptr::null_mut(),
            }
        })
    }
}

/// Frees a scalar list and the scalars in it. NULL is accepted.
#[no_mangle]
pub unsafe extern "C" fn aclDestroyScalarList(array: *const aclScalarList) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            if !array.is_null() {
                let l = Box::from_raw(array as *mut aclScalarList);
                for s in l.scalars {
                    if !s.is_null() {
                        drop(Box::from_raw(s));
                    }
                }
            }
            ACLNN_SUCCESS
        })
    }
}

/// Returns a `malloc`ed copy of `v` through `out` (NULL when empty); false if out of memory.
unsafe fn export_i64s(v: &[i64], out: *mut *mut i64, num: *mut u64) -> bool {
    // SAFETY: pointer arguments are NULL or valid as the aclnn API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        *num = v.len() as u64;
        if v.is_empty() {
            *out = std::ptr::null_mut();
            return true;
        }
        let p = libc::malloc(std::mem::size_of_val(v)) as *mut i64;
        if p.is_null() {
            return false;
        }
        std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len());
        *out = p;
        true
    }
}

/// Writes a newly allocated copy of the view dims (free it with `free`/`delete[]`).
#[no_mangle]
pub unsafe extern "C" fn aclGetViewShape(
    tensor: *const aclTensor,
    viewDims: *mut *mut i64,
    viewDimsNum: *mut u64,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            null_check!(ACLNN_ERR_PARAM_NULLPTR, tensor, viewDims, viewDimsNum);
            if export_i64s(&(*tensor).view, viewDims, viewDimsNum) {
                ACLNN_SUCCESS
            } else {
                ACLNN_ERR_INNER_NULLPTR
            }
        })
    }
}

/// Writes a newly allocated copy of the storage dims.
#[no_mangle]
pub unsafe extern "C" fn aclGetStorageShape(
    tensor: *const aclTensor,
    storageDims: *mut *mut i64,
    storageDimsNum: *mut u64,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            null_check!(ACLNN_ERR_PARAM_NULLPTR, tensor, storageDims, storageDimsNum);
            if export_i64s(&(*tensor).storage, storageDims, storageDimsNum) {
                ACLNN_SUCCESS
            } else {
                ACLNN_ERR_INNER_NULLPTR
            }
        })
    }
}

/// Writes a newly allocated copy of the view strides (elements).
#[no_mangle]
pub unsafe extern "C" fn aclGetViewStrides(
    tensor: *const aclTensor,
    stridesValue: *mut *mut i64,
    stridesNum: *mut u64,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            null_check!(ACLNN_ERR_PARAM_NULLPTR, tensor, stridesValue, stridesNum);
            if export_i64s(&(*tensor).strides, stridesValue, stridesNum) {
                ACLNN_SUCCESS
            } else {
                ACLNN_ERR_INNER_NULLPTR
            }
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclGetViewOffset(
    tensor: *const aclTensor,
    offset: *mut i64,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            null_check!(ACLNN_ERR_PARAM_NULLPTR, tensor, offset);
            *offset = (*tensor).offset;
            ACLNN_SUCCESS
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclGetFormat(
    tensor: *const aclTensor,
    format: *mut aclFormat,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            null_check!(ACLNN_ERR_PARAM_NULLPTR, tensor, format);
            *format = (*tensor).format;
            ACLNN_SUCCESS
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclGetDataType(
    tensor: *const aclTensor,
    dataType: *mut aclDataType,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            null_check!(ACLNN_ERR_PARAM_NULLPTR, tensor, dataType);
            *dataType = (*tensor).dtype;
            ACLNN_SUCCESS
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclGetIntArraySize(
    array: *const aclIntArray,
    size: *mut u64,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            null_check!(ACLNN_ERR_PARAM_NULLPTR, array, size);
            *size = (*array).values.len() as u64;
            ACLNN_SUCCESS
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclGetFloatArraySize(
    array: *const aclFloatArray,
    size: *mut u64,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            null_check!(ACLNN_ERR_PARAM_NULLPTR, array, size);
            *size = (*array).values.len() as u64;
            ACLNN_SUCCESS
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclGetBoolArraySize(
    array: *const aclBoolArray,
    size: *mut u64,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            null_check!(ACLNN_ERR_PARAM_NULLPTR, array, size);
            *size = (*array).values.len() as u64;
            ACLNN_SUCCESS
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclGetTensorListSize(
    tensorList: *const aclTensorList,
    size: *mut u64,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            null_check!(ACLNN_ERR_PARAM_NULLPTR, tensorList, size);
            *size = (*tensorList).tensors.len() as u64;
            ACLNN_SUCCESS
        })
    }
}

/// Replaces a tensor's storage base address.
#[no_mangle]
pub unsafe extern "C" fn aclSetRawTensorAddr(
    tensor: *mut aclTensor,
    addr: *mut c_void,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            null_check!(ACLNN_ERR_PARAM_NULLPTR, tensor);
            (*tensor).data = addr;
            ACLNN_SUCCESS
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclGetRawTensorAddr(
    tensor: *const aclTensor,
    addr: *mut *mut c_void,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            null_check!(ACLNN_ERR_PARAM_NULLPTR, tensor, addr);
            *addr = (*tensor).data;
            ACLNN_SUCCESS
        })
    }
}

/// Initialises the aclnn library (nothing to do on the CPU).
#[no_mangle]
pub unsafe extern "C" fn aclnnInit(configPath: *const std::ffi::c_char) -> aclnnStatus {
    aclnn_guard!({
        let _ = configPath;
        ACLNN_SUCCESS
    })
}

#[no_mangle]
pub extern "C" fn aclnnFinalize() -> aclnnStatus {
    aclnn_guard!({ ACLNN_SUCCESS })
}
