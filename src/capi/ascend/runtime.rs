//! The acl runtime subset the official examples use. "Device" memory is host memory, work
//! is synchronous, and devices/streams/contexts are bookkeeping. Allocations and streams
//! are registered, so freeing an unknown or already freed pointer is an error code instead
//! of heap corruption.

#![allow(non_snake_case)]

use super::types::*;
use std::collections::HashMap;
use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Alignment of `aclrtMalloc` memory (CANN guarantees 32 bytes; 64 suits SIMD too).
const ALIGN: usize = 64;

/// Live allocations: address → allocation size in bytes.
static ALLOCS: Mutex<Option<HashMap<usize, usize>>> = Mutex::new(None);
/// Live streams and contexts (handles are small boxes).
static HANDLES: Mutex<Option<HashMap<usize, Box<u64>>>> = Mutex::new(None);
static INIT_COUNT: AtomicUsize = AtomicUsize::new(0);
/// The current device, -1 before `aclrtSetDevice`.
static DEVICE: AtomicI32 = AtomicI32::new(-1);

fn with_allocs<R>(f: impl FnOnce(&mut HashMap<usize, usize>) -> R) -> R {
    let mut g = ALLOCS.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(HashMap::new))
}

fn with_handles<R>(f: impl FnOnce(&mut HashMap<usize, Box<u64>>) -> R) -> R {
    let mut g = HANDLES.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(HashMap::new))
}

fn alloc_layout(size: usize) -> Option<std::alloc::Layout> {
    // CANN pads to a multiple of 32 bytes plus 32.
    let padded = size.checked_add(31)? / 32 * 32;
    std::alloc::Layout::from_size_align(padded.checked_add(32)?, ALIGN).ok()
}

unsafe fn host_alloc(ptr: *mut *mut c_void, size: usize) -> aclError {
    // SAFETY: pointer arguments are NULL or valid as the `aclrt*` API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        null_check!(ACL_ERROR_INVALID_PARAM, ptr);
        if size == 0 {
            return ACL_ERROR_INVALID_PARAM;
        }
        let Some(layout) = alloc_layout(size) else {
            return ACL_ERROR_BAD_ALLOC;
        };
        let p = std::alloc::alloc(layout);
        if p.is_null() {
            return ACL_ERROR_BAD_ALLOC;
        }
        with_allocs(|m| m.insert(p as usize, size));
        *ptr = p as *mut c_void;
        ACL_SUCCESS
    }
}

unsafe fn host_free(p: *mut c_void) -> aclError {
    // SAFETY: pointer arguments are NULL or valid as the `aclrt*` API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        null_check!(ACL_ERROR_INVALID_PARAM, p);
        match with_allocs(|m| m.remove(&(p as usize))) {
            Some(size) => {
                std::alloc::dealloc(
                    p as *mut u8,
                    alloc_layout(size).expect("layout was valid at allocation"),
                );
                ACL_SUCCESS
            }
            None => ACL_ERROR_INVALID_PARAM,
        }
    }
}

/// Initialises acl (bookkeeping only). `configPath` may be NULL.
#[no_mangle]
pub unsafe extern "C" fn aclInit(configPath: *const c_char) -> aclError {
    acl_guard!({
        let _ = configPath;
        INIT_COUNT.fetch_add(1, Ordering::Relaxed);
        ACL_SUCCESS
    })
}

#[no_mangle]
pub extern "C" fn aclFinalize() -> aclError {
    acl_guard!({
        INIT_COUNT.store(0, Ordering::Relaxed);
        ACL_SUCCESS
    })
}

/// Selects a device: any id >= 0 is accepted (they all are the CPU).
#[no_mangle]
pub extern "C" fn aclrtSetDevice(deviceId: i32) -> aclError {
    acl_guard!({
        if deviceId < 0 {
            return ACL_ERROR_RT_INVALID_DEVICEID;
        }
        DEVICE.store(deviceId, Ordering::Relaxed);
        ACL_SUCCESS
    })
}

#[no_mangle]
pub extern "C" fn aclrtResetDevice(deviceId: i32) -> aclError {
    acl_guard!({
        if deviceId < 0 {
            return ACL_ERROR_RT_INVALID_DEVICEID;
        }
        let _ = DEVICE.compare_exchange(deviceId, -1, Ordering::Relaxed, Ordering::Relaxed);
        ACL_SUCCESS
    })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtGetDevice(deviceId: *mut i32) -> aclError {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the `aclrt*` API
    // documents for this function.
    unsafe {
        acl_guard!({
            null_check!(ACL_ERROR_INVALID_PARAM, deviceId);
            let d = DEVICE.load(Ordering::Relaxed);
            if d < 0 {
                return ACL_ERROR_RT_CONTEXT_NULL;
            }
            *deviceId = d;
            ACL_SUCCESS
        })
    }
}

unsafe fn new_handle(out: *mut *mut c_void) -> aclError {
    // SAFETY: pointer arguments are NULL or valid as the `aclrt*` API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        null_check!(ACL_ERROR_INVALID_PARAM, out);
        let b = Box::new(0u64);
        let p = &*b as *const u64 as *mut c_void;
        with_handles(|m| m.insert(p as usize, b));
        *out = p;
        ACL_SUCCESS
    }
}

fn drop_handle(h: *mut c_void) -> aclError {
    if h.is_null() {
        return ACL_ERROR_INVALID_PARAM;
    }
    match with_handles(|m| m.remove(&(h as usize))) {
        Some(_) => ACL_SUCCESS,
        None => ACL_ERROR_RT_PARAM_INVALID,
    }
}

fn known_handle(h: *mut c_void) -> bool {
    h.is_null() || with_handles(|m| m.contains_key(&(h as usize)))
}

/// Creates a stream handle (work is synchronous; the stream only exists for bookkeeping).
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateStream(stream: *mut aclrtStream) -> aclError {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the `aclrt*` API
    // documents for this function.
    unsafe { acl_guard!({ new_handle(stream) }) }
}

#[no_mangle]
pub unsafe extern "C" fn aclrtDestroyStream(stream: aclrtStream) -> aclError {
    acl_guard!({ drop_handle(stream) })
}

/// Waits for the stream: every call already finished, so this only checks the handle
/// (NULL is the default stream).
#[no_mangle]
pub unsafe extern "C" fn aclrtSynchronizeStream(stream: aclrtStream) -> aclError {
    acl_guard!({
        if known_handle(stream) {
            ACL_SUCCESS
        } else {
            ACL_ERROR_RT_PARAM_INVALID
        }
    })
}

#[no_mangle]
pub extern "C" fn aclrtSynchronizeDevice() -> aclError {
    acl_guard!({ ACL_SUCCESS })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtCreateContext(context: *mut aclrtContext, deviceId: i32) -> aclError {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the `aclrt*` API
    // documents for this function.
    unsafe {
        acl_guard!({
            if deviceId < 0 {
                return ACL_ERROR_RT_INVALID_DEVICEID;
            }
            new_handle(context)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclrtDestroyContext(context: aclrtContext) -> aclError {
    acl_guard!({ drop_handle(context) })
}

#[no_mangle]
pub unsafe extern "C" fn aclrtSetCurrentContext(context: aclrtContext) -> aclError {
    acl_guard!({
        if !context.is_null() && known_handle(context) {
            ACL_SUCCESS
        } else {
            ACL_ERROR_RT_PARAM_INVALID
        }
    })
}

/// This library runs on the host; memory copies are plain copies either way.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetRunMode(runMode: *mut aclrtRunMode) -> aclError {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the `aclrt*` API
    // documents for this function.
    unsafe {
        acl_guard!({
            null_check!(ACL_ERROR_INVALID_PARAM, runMode);
            *runMode = ACL_HOST;
            ACL_SUCCESS
        })
    }
}

/// Allocates `size` bytes of host memory, aligned to 64 bytes (size 0 is invalid).
#[no_mangle]
pub unsafe extern "C" fn aclrtMalloc(
    devPtr: *mut *mut c_void,
    size: usize,
    policy: aclrtMemMallocPolicy,
) -> aclError {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the `aclrt*` API
    // documents for this function.
    unsafe {
        let _ = policy;
        acl_guard!({ host_alloc(devPtr, size) })
    }
}

/// Frees memory from `aclrtMalloc`; an unknown pointer is `ACL_ERROR_INVALID_PARAM`.
#[no_mangle]
pub unsafe extern "C" fn aclrtFree(devPtr: *mut c_void) -> aclError {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the `aclrt*` API
    // documents for this function.
    unsafe { acl_guard!({ host_free(devPtr) }) }
}

#[no_mangle]
pub unsafe extern "C" fn aclrtMallocHost(hostPtr: *mut *mut c_void, size: usize) -> aclError {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the `aclrt*` API
    // documents for this function.
    unsafe { acl_guard!({ host_alloc(hostPtr, size) }) }
}

#[no_mangle]
pub unsafe extern "C" fn aclrtFreeHost(hostPtr: *mut c_void) -> aclError {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the `aclrt*` API
    // documents for this function.
    unsafe { acl_guard!({ host_free(hostPtr) }) }
}

unsafe fn copy(
    dst: *mut c_void,
    dest_max: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKind,
) -> aclError {
    // SAFETY: pointer arguments are NULL or valid as the `aclrt*` API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        if !(ACL_MEMCPY_HOST_TO_HOST..=ACL_MEMCPY_INTER_DEVICE_TO_DEVICE).contains(&kind) {
            return ACL_ERROR_INVALID_PARAM;
        }
        if count > dest_max {
            return ACL_ERROR_INVALID_PARAM;
        }
        if count == 0 {
            return ACL_SUCCESS;
        }
        null_check!(ACL_ERROR_INVALID_PARAM, dst, src);
        std::ptr::copy(src as *const u8, dst as *mut u8, count);
        ACL_SUCCESS
    }
}

/// Copies `count` bytes (`count <= destMax`, else `ACL_ERROR_INVALID_PARAM`). `kind` is
/// advisory: all memory is host memory.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpy(
    dst: *mut c_void,
    destMax: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKind,
) -> aclError {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the `aclrt*` API
    // documents for this function.
    unsafe { acl_guard!({ copy(dst, destMax, src, count, kind) }) }
}

/// As `aclrtMemcpy` (the copy is done before returning).
#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpyAsync(
    dst: *mut c_void,
    destMax: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKind,
    stream: aclrtStream,
) -> aclError {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the `aclrt*` API
    // documents for this function.
    unsafe {
        acl_guard!({
            if !known_handle(stream) {
                return ACL_ERROR_RT_PARAM_INVALID;
            }
            copy(dst, destMax, src, count, kind)
        })
    }
}

/// Sets `count` bytes to `value` (`count <= maxCount`).
#[no_mangle]
pub unsafe extern "C" fn aclrtMemset(
    devPtr: *mut c_void,
    maxCount: usize,
    value: i32,
    count: usize,
) -> aclError {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the `aclrt*` API
    // documents for this function.
    unsafe {
        acl_guard!({
            if count > maxCount {
                return ACL_ERROR_INVALID_PARAM;
            }
            if count == 0 {
                return ACL_SUCCESS;
            }
            null_check!(ACL_ERROR_INVALID_PARAM, devPtr);
            std::ptr::write_bytes(devPtr as *mut u8, value as u8, count);
            ACL_SUCCESS
        })
    }
}

/// The message of the most recent refused aclnn call on this thread ("" if none).
#[no_mangle]
pub extern "C" fn aclGetRecentErrMsg() -> *const c_char {
    super::checks::recent_error()
}

#[no_mangle]
pub extern "C" fn aclFloat16ToFloat(value: aclFloat16) -> f32 {
    half::f16::from_bits(value).to_f32()
}

/// float to half, round to nearest even.
#[no_mangle]
pub extern "C" fn aclFloatToFloat16(value: f32) -> aclFloat16 {
    half::f16::from_f32(value).to_bits()
}

/// Bytes per element of `dataType` (0 for sub-byte, string and unknown types).
#[no_mangle]
pub extern "C" fn aclDataTypeSize(dataType: aclDataType) -> usize {
    dtype_size(dataType)
}
