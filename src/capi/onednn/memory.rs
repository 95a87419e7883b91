//! Memory objects: a descriptor, an engine and a data handle (the user's pointer, or a
//! 64-byte aligned buffer the library allocates for `DNNL_MEMORY_ALLOCATE`).

use std::alloc::{alloc_zeroed, dealloc, Layout as AllocLayout};
use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Mutex;

use super::engine::{dnnl_engine_t, dnnl_stream_t, engine_ref, stream_ref};
use super::md::{compute_blocks, dt_size, has_runtime_dims_or_strides, md_size};
use super::refuse;
use super::registry::{self, Kind};
use super::types::*;

/// `DNNL_MEMORY_ALLOCATE`: ask the library to allocate the buffer.
pub(crate) const MEMORY_ALLOCATE: *mut c_void = usize::MAX as *mut c_void;

const ALIGN: usize = 64;

/// A buffer the library owns.
struct Owned {
    ptr: *mut u8,
    layout: AllocLayout,
}

impl Drop for Owned {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout by `Owned::new`.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

impl Owned {
    fn new(bytes: usize) -> Option<Owned> {
        if !crate::core::faults::may_allocate(bytes) {
            return None;
        }
        let layout = AllocLayout::from_size_align(bytes.max(1), ALIGN).ok()?;
        // SAFETY: non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        (!ptr.is_null()).then_some(Owned { ptr, layout })
    }
}

/// A memory object.
pub struct dnnl_memory {
    pub(crate) md: dnnl_memory_desc_t,
    pub(crate) engine: dnnl_engine_t,
    handle: AtomicPtr<c_void>,
    /// `md_span_bytes(&md)` (0 when it has none), computed once: the descriptor never
    /// changes, and every execute asks.
    span: usize,
    /// Library-allocated buffers, freed on destroy.
    owned: Mutex<Vec<Owned>>,
}
pub type dnnl_memory_t = *mut dnnl_memory;
pub type const_dnnl_memory_t = *const dnnl_memory;

// SAFETY: the raw pointers are plain addresses; the object is only read through shared
// references (the handle is atomic, owned buffers sit behind a mutex).
unsafe impl Send for dnnl_memory {}
// SAFETY: as for `Sync` above.
unsafe impl Sync for dnnl_memory {}

impl dnnl_memory {
    pub(crate) fn handle(&self) -> *mut c_void {
        self.handle.load(Ordering::Acquire)
    }

    /// Bytes the buffer is known to hold: what the descriptor addresses.
    pub(crate) fn len(&self) -> usize {
        self.span
    }

    fn set_handle(&self, h: *mut c_void) -> dnnl_status_t {
        if h == MEMORY_ALLOCATE {
            let Some(bytes) = alloc_bytes(&self.md) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory: the descriptor addresses no valid byte range to allocate",
                );
            };
            let Some(buf) = Owned::new(bytes) else {
                return refuse(dnnl_out_of_memory, "memory: allocation failed");
            };
            self.handle.store(buf.ptr as *mut c_void, Ordering::Release);
            self.owned
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(buf);
        } else {
            self.handle.store(h, Ordering::Release);
        }
        dnnl_success
    }
}

/// Bytes from the buffer start to one past the last (padded) element a blocked descriptor
/// addresses, offset0 included. `None` for non-blocked, runtime, negative or overflowing
/// descriptors, and beyond `isize::MAX` (slices over the buffer could not exist).
pub(crate) fn md_span_bytes(md: &dnnl_memory_desc_t) -> Option<usize> {
    if md.ndims == 0 {
        return Some(0);
    }
    if !(1..=12).contains(&md.ndims)
        || md.format_kind != dnnl_blocked
        || has_runtime_dims_or_strides(md)
    {
        return None;
    }
    let nd = md.ndims as usize;
    if md.padded_dims[..nd].contains(&0) {
        return Some(0);
    }
    let es = dt_size(md.data_type);
    if es == usize::MAX || md.offset0 < 0 {
        return None;
    }
    let blocks = compute_blocks(md);
    let blk = md.blocking();
    let mut last = md.offset0 as u64;
    let mut block_size = 1u64;
    for i in 0..blk.inner_nblks.clamp(0, 12) as usize {
        if blk.inner_blks[i] <= 0 {
            return None;
        }
        block_size = block_size.checked_mul(blk.inner_blks[i] as u64)?;
    }
    for d in 0..nd {
        let (p, b, s) = (md.padded_dims[d], blocks[d], blk.strides[d]);
        if p < 0 || b <= 0 || s < 0 || p % b != 0 {
            return None;
        }
        last = last.checked_add(((p / b - 1) as u64).checked_mul(s as u64)?)?;
    }
    last = last.checked_add(block_size - 1)?;
    usize::try_from(last.checked_add(1)?.checked_mul(es as u64)?)
        .ok()
        .filter(|&b| b <= isize::MAX as usize)
}

/// Bytes `DNNL_MEMORY_ALLOCATE` allocates: what the descriptor addresses, or `get_size` when
/// larger. `None` for a descriptor whose byte range cannot be computed (negative or
/// overflowing sizes, strides or offset; `md_size` of such a descriptor is a wrapped,
/// meaningless number).
fn alloc_bytes(md: &dnnl_memory_desc_t) -> Option<usize> {
    let span = md_span_bytes(md)?;
    let size = md_size(md);
    let size = if size == RUNTIME_SIZE_VAL { 0 } else { size };
    Some(size.max(span))
}

pub(crate) unsafe fn memory_ref<'a>(m: *const dnnl_memory) -> Option<&'a dnnl_memory> {
    // SAFETY: `registry::get` dereferences only pointers it finds live.
    unsafe { registry::get(m, Kind::Memory) }
}

/// Creates a memory object. `handle` is a user pointer, `DNNL_MEMORY_ALLOCATE` (the
/// library allocates a 64-byte aligned buffer) or `DNNL_MEMORY_NONE` (NULL).
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_create(
    memory: *mut dnnl_memory_t,
    memory_desc: *const dnnl_memory_desc_t,
    engine: dnnl_engine_t,
    handle: *mut c_void,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if memory.is_null() || memory_desc.is_null() || engine_ref(engine).is_none() {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_create: NULL memory or descriptor, or bad engine",
                );
            }
            let md = *memory_desc;
            if md.ndims != 0
                && (md.format_kind == dnnl_format_kind_any
                    || !(1..=12).contains(&md.ndims)
                    || has_runtime_dims_or_strides(&md))
            {
                // As libdnnl 2.6.3: runtime dims or strides have no size to allocate or check.
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_create: descriptor has format any, bad ndims or runtime dims/strides",
                );
            }
            let m = dnnl_memory {
                md,
                engine,
                span: md_span_bytes(&md).unwrap_or(0),
                handle: AtomicPtr::new(std::ptr::null_mut()),
                owned: Mutex::new(Vec::new()),
            };
            let st = m.set_handle(handle);
            if st != dnnl_success {
                return st;
            }
            memory.write(registry::register(m, Kind::Memory));
            dnnl_success
        })
    }
}

/// Returns a pointer to the memory object's descriptor (valid until destroy).
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_get_memory_desc(
    memory: const_dnnl_memory_t,
    memory_desc: *mut *const dnnl_memory_desc_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (Some(m), false) = (memory_ref(memory), memory_desc.is_null()) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_get_memory_desc: bad memory or NULL result",
                );
            };
            memory_desc.write(&m.md);
            dnnl_success
        })
    }
}

/// Returns the engine of a memory object.
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_get_engine(
    memory: const_dnnl_memory_t,
    engine: *mut dnnl_engine_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (Some(m), false) = (memory_ref(memory), engine.is_null()) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_get_engine: bad memory or NULL result",
                );
            };
            engine.write(m.engine);
            dnnl_success
        })
    }
}

/// Maps the data for host access: on the CPU this is the data handle.
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_map_data(
    memory: const_dnnl_memory_t,
    mapped_ptr: *mut *mut c_void,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (Some(m), false) = (memory_ref(memory), mapped_ptr.is_null()) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_map_data: bad memory or NULL result",
                );
            };
            mapped_ptr.write(m.handle());
            dnnl_success
        })
    }
}

/// Unmaps data mapped by `dnnl_memory_map_data` (nothing to do on the CPU).
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_unmap_data(
    memory: const_dnnl_memory_t,
    mapped_ptr: *mut c_void,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let _ = mapped_ptr;
            match memory_ref(memory) {
                Some(_) => dnnl_success,
                None => refuse(dnnl_invalid_arguments, "memory_unmap_data: bad memory"),
            }
        })
    }
}

/// Returns the data handle of a memory object.
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_get_data_handle(
    memory: const_dnnl_memory_t,
    handle: *mut *mut c_void,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (Some(m), false) = (memory_ref(memory), handle.is_null()) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_get_data_handle: bad memory or NULL result",
                );
            };
            handle.write(m.handle());
            dnnl_success
        })
    }
}

/// Sets the data handle of a memory object (`DNNL_MEMORY_ALLOCATE` allocates a new buffer).
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_set_data_handle(
    memory: dnnl_memory_t,
    handle: *mut c_void,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            match memory_ref(memory) {
                Some(m) => m.set_handle(handle),
                None => refuse(dnnl_invalid_arguments, "memory_set_data_handle: bad memory"),
            }
        })
    }
}

/// As `dnnl_memory_set_data_handle`; the stream (may be NULL) needs no synchronisation.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_memory_set_data_handle_v2"
)]
pub unsafe extern "C" fn dnnl_memory_set_data_handle_v2(
    memory: dnnl_memory_t,
    handle: *mut c_void,
    stream: dnnl_stream_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if !stream.is_null() && stream_ref(stream).is_none() {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_set_data_handle_v2: bad stream",
                );
            }
            match memory_ref(memory) {
                Some(m) => m.set_handle(handle),
                None => refuse(
                    dnnl_invalid_arguments,
                    "memory_set_data_handle_v2: bad memory",
                ),
            }
        })
    }
}

/// Destroys a memory object and any buffer the library allocated for it (NULL is accepted).
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_destroy(memory: dnnl_memory_t) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if memory.is_null() {
                return dnnl_success;
            }
            match registry::unregister(memory, Kind::Memory) {
                Some(_) => dnnl_success,
                None => refuse(dnnl_invalid_arguments, "memory_destroy: not a live memory"),
            }
        })
    }
}
