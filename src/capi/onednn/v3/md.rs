//! 3.x memory descriptors: `dnnl_memory_desc_t` is an opaque handle. Here a handle is a
//! heap 2.6 `dnnl_memory_desc_t` (registered, so destroy refuses foreign pointers), and the
//! descriptors memories and pds hand out are the 2.6 structs they hold. A 3.x
//! `const_dnnl_memory_desc_t` is therefore exactly the `const dnnl_memory_desc_t *` every
//! 2.6 entry point reads: `dnnl_memory_create`, `_get_memory_desc`, `_desc_equal`,
//! `_desc_get_size`, reorder and `post_ops_append_binary` serve both ABIs unchanged. The
//! creators below fill a 2.6 struct with the 2.6 code and box it; tags arrive in 3.2
//! numbering and are laid out from their canonical names.

use std::ffi::{c_char, c_int, c_void, CStr};

use super::super::format_tags::dnnl_format_tag_any;
use super::super::format_tags_v3::{CANONICAL_NAMES_V3, FORMAT_TAG_LAST_V3};
use super::super::md::{self as md26, md_by_layout, parse_tag_name, sanity_check};
use super::super::memory::{self as mem26, const_dnnl_memory_t, dnnl_memory_t};
use super::super::registry::{self, Kind};
use super::super::types::*;
use super::super::{refuse, reshape, verbose_refuse};
use super::numbers::*;

pub type dnnl_memory_desc_handle = *mut dnnl_memory_desc_t;
pub type const_dnnl_memory_desc_handle = *const dnnl_memory_desc_t;

/// Boxes and registers a filled descriptor; writes the handle to `out`.
unsafe fn hand_out(out: *mut dnnl_memory_desc_handle, md: dnnl_memory_desc_t) -> dnnl_status_t {
    // SAFETY: the caller's contract (see the doc comment): pointers are NULL or valid as
    // the calling entry point's C API documents; handles are resolved through the registry.
    unsafe {
        out.write(registry::register(md, Kind::MemoryDesc));
        dnnl_success
    }
}

/// Runs a 2.6 initializer into a fresh struct and hands the result out as a handle.
unsafe fn create_with(
    out: *mut dnnl_memory_desc_handle,
    what: &str,
    init: impl FnOnce(*mut dnnl_memory_desc_t) -> dnnl_status_t,
) -> dnnl_status_t {
    // SAFETY: the caller's contract (see the doc comment): pointers are NULL or valid as
    // the calling entry point's C API documents; handles are resolved through the registry.
    unsafe {
        if out.is_null() {
            return verbose_refuse(
                dnnl_invalid_arguments,
                format_args!("{what}: memory_desc is NULL"),
            );
        }
        let mut md = dnnl_memory_desc_t::zero();
        match init(&mut md) {
            dnnl_success => hand_out(out, md),
            s => s,
        }
    }
}

/// Destroys a descriptor created by this API (NULL is accepted).
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_desc_destroy(
    memory_desc: dnnl_memory_desc_handle,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if memory_desc.is_null() {
                return dnnl_success;
            }
            match registry::unregister(memory_desc, Kind::MemoryDesc) {
                Some(_) => dnnl_success,
                None => refuse(
                    dnnl_invalid_arguments,
                    "memory_desc_destroy: not a descriptor created by memory_desc_create_* / clone",
                ),
            }
        })
    }
}

/// A new handle holding a copy of `existing_memory_desc`.
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_desc_clone(
    memory_desc: *mut dnnl_memory_desc_handle,
    existing_memory_desc: const_dnnl_memory_desc_handle,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if existing_memory_desc.is_null() {
                return refuse(dnnl_invalid_arguments, "memory_desc_clone: NULL descriptor");
            }
            create_with(memory_desc, "memory_desc_clone", |md| {
                md.write(*existing_memory_desc);
                dnnl_success
            })
        })
    }
}

/// Creates a blocked descriptor from strides (NULL strides: dense row-major).
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_desc_create_with_strides(
    memory_desc: *mut dnnl_memory_desc_handle,
    ndims: c_int,
    dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    strides: *const dnnl_dim_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            create_with(memory_desc, "memory_desc_create_with_strides", |md| {
                md26::dnnl_memory_desc_init_by_strides(md, ndims, dims, data_type, strides)
            })
        })
    }
}

/// Creates a descriptor from a 3.2 format tag (any tag 3.2 defines, blocked ones too).
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_desc_create_with_tag(
    memory_desc: *mut dnnl_memory_desc_handle,
    ndims: c_int,
    dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    tag: dnnl_format_tag_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            create_with(memory_desc, "memory_desc_create_with_tag", |md| {
                // undef, any and ndims 0 have the same values and meaning as in 2.6.
                if ndims == 0 || tag == 0 || tag == dnnl_format_tag_any {
                    return md26::dnnl_memory_desc_init_by_tag(md, ndims, dims, data_type, tag);
                }
                let name = match usize::try_from(tag) {
                    Ok(t) if tag < FORMAT_TAG_LAST_V3 => CANONICAL_NAMES_V3[t],
                    _ => {
                        return verbose_refuse(
                            dnnl_invalid_arguments,
                            format_args!("memory_desc_create_with_tag: unknown format tag {tag}"),
                        )
                    }
                };
                by_name(md, ndims, dims, data_type, name)
            })
        })
    }
}

/// Lays out `md` by a canonical tag name (`acdb`, `aBcd16b`, …).
unsafe fn by_name(
    md: *mut dnnl_memory_desc_t,
    ndims: c_int,
    dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    name: &str,
) -> dnnl_status_t {
    // SAFETY: the caller's contract (see the doc comment): pointers are NULL or valid as
    // the calling entry point's C API documents; handles are resolved through the registry.
    unsafe {
        if !sanity_check(ndims, dims, data_type, false) {
            return refuse(
                dnnl_invalid_arguments,
                "memory_desc_create_with_tag: bad ndims, dims or data type",
            );
        }
        let Some(layout) = parse_tag_name(name) else {
            return verbose_refuse(
                dnnl_invalid_arguments,
                format_args!("memory_desc_create_with_tag: bad tag {name:?}"),
            );
        };
        let nd = ndims as usize;
        let mut m = dnnl_memory_desc_t::zero();
        m.ndims = ndims;
        m.dims[..nd].copy_from_slice(std::slice::from_raw_parts(dims, nd));
        m.padded_dims = m.dims;
        m.data_type = data_type;
        match md_by_layout(m, &layout, name) {
            Ok(m) => {
                md.write(m);
                dnnl_success
            }
            Err(s) => s,
        }
    }
}

/// Creates a descriptor from a tag spelled out (`"acdb"`, `"aBcd16b"`); exported by
/// libdnnl.so.3 though no public header declares it.
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_desc_create_with_string_tag(
    memory_desc: *mut dnnl_memory_desc_handle,
    ndims: c_int,
    dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    tag: *const c_char,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if tag.is_null() {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_desc_create_with_string_tag: NULL tag",
                );
            }
            let Ok(name) = CStr::from_ptr(tag).to_str() else {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_desc_create_with_string_tag: tag is not UTF-8",
                );
            };
            create_with(memory_desc, "memory_desc_create_with_string_tag", |md| {
                by_name(md, ndims, dims, data_type, name)
            })
        })
    }
}

/// Sparse (CSR) descriptors are not supported.
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_desc_create_with_csr_encoding(
    _memory_desc: *mut dnnl_memory_desc_handle,
    _ndims: c_int,
    _dims: *const dnnl_dim_t,
    _data_type: dnnl_data_type_t,
    _nnz: dnnl_dim_t,
    _indices_dt: dnnl_data_type_t,
    _pointers_dt: dnnl_data_type_t,
) -> dnnl_status_t {
    onednn_guard!({
        refuse(
            dnnl_unimplemented,
            "memory_desc_create_with_csr_encoding: sparse memory is not supported",
        )
    })
}

/// A sub-block of a parent descriptor.
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_desc_create_submemory(
    memory_desc: *mut dnnl_memory_desc_handle,
    parent_memory_desc: const_dnnl_memory_desc_handle,
    dims: *const dnnl_dim_t,
    offsets: *const dnnl_dim_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            create_with(memory_desc, "memory_desc_create_submemory", |md| {
                md26::dnnl_memory_desc_init_submemory(md, parent_memory_desc, dims, offsets)
            })
        })
    }
}

/// A new descriptor with the same data viewed through other dims (2.6 rules).
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_desc_reshape(
    out_memory_desc: *mut dnnl_memory_desc_handle,
    in_memory_desc: const_dnnl_memory_desc_handle,
    ndims: c_int,
    dims: *const dnnl_dim_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            create_with(out_memory_desc, "memory_desc_reshape", |md| {
                reshape::dnnl_memory_desc_reshape(md, in_memory_desc, ndims, dims)
            })
        })
    }
}

/// A new descriptor with permuted logical axes.
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_desc_permute_axes(
    out_memory_desc: *mut dnnl_memory_desc_handle,
    in_memory_desc: const_dnnl_memory_desc_handle,
    permutation: *const c_int,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            create_with(out_memory_desc, "memory_desc_permute_axes", |md| {
                md26::dnnl_memory_desc_permute_axes(md, in_memory_desc, permutation)
            })
        })
    }
}

/// Queries a descriptor; `result` points to storage of the query's type (`int` for the
/// `_s32` ones, `dnnl_dim_t` for `_s64`, a `const dnnl_dims_t *` for the arrays, which
/// point into the descriptor).
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_desc_query(
    memory_desc: const_dnnl_memory_desc_handle,
    what: dnnl_query_t,
    result: *mut c_void,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe { onednn_guard!({ query(memory_desc, what, result) }) }
}

unsafe fn query(
    memory_desc: const_dnnl_memory_desc_handle,
    what: dnnl_query_t,
    result: *mut c_void,
) -> dnnl_status_t {
    // SAFETY: the caller's contract (see the doc comment): pointers are NULL or valid as
    // the calling entry point's C API documents; handles are resolved through the registry.
    unsafe {
        if memory_desc.is_null() || result.is_null() {
            return refuse(
                dnnl_invalid_arguments,
                "memory_desc_query: NULL descriptor or result",
            );
        }
        let md = &*memory_desc;
        let blocked = md.format_kind == dnnl_blocked;
        let dims = |a: &dnnl_dims_t| (result as *mut *const dnnl_dims_t).write(a);
        match what {
            Q_NDIMS_S32 => (result as *mut c_int).write(md.ndims),
            Q_DIMS => dims(&md.dims),
            Q_DATA_TYPE => (result as *mut dnnl_data_type_t).write(md.data_type),
            Q_SUBMEMORY_OFFSET_S64 => (result as *mut dnnl_dim_t).write(md.offset0),
            Q_PADDED_DIMS => dims(&md.padded_dims),
            Q_PADDED_OFFSETS => dims(&md.padded_offsets),
            Q_FORMAT_KIND => {
                let k = match md.format_kind {
                    k @ (dnnl_format_kind_undef | dnnl_format_kind_any | dnnl_blocked) => k,
                    _ => V3_FORMAT_KIND_OPAQUE,
                };
                (result as *mut dnnl_format_kind_t).write(k)
            }
            Q_STRIDES | Q_INNER_NBLKS_S32 | Q_INNER_BLKS | Q_INNER_IDXS if !blocked => {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_desc_query: blocking queries need a blocked descriptor",
                )
            }
            Q_STRIDES => dims(&md.blocking().strides),
            Q_INNER_NBLKS_S32 => (result as *mut c_int).write(md.blocking().inner_nblks),
            Q_INNER_BLKS => dims(&md.blocking().inner_blks),
            Q_INNER_IDXS => dims(&md.blocking().inner_idxs),
            Q_NUM_HANDLES_S32 => (result as *mut c_int).write(1),
            _ => {
                return verbose_refuse(
                    dnnl_unimplemented,
                    format_args!("memory_desc_query: query {what} is not supported"),
                )
            }
        }
        dnnl_success
    }
}

/// As `dnnl_memory_desc_query` for buffer `index` (dense descriptors have one: 0).
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_desc_query_v2(
    memory_desc: const_dnnl_memory_desc_handle,
    what: dnnl_query_t,
    index: c_int,
    result: *mut c_void,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if index != 0 {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_desc_query_v2: index must be 0 (no sparse descriptors)",
                );
            }
            query(memory_desc, what, result)
        })
    }
}

/// Size in bytes of buffer `index` (0: the whole tensor; other indices: 0).
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_desc_get_size_v2(
    memory_desc: const_dnnl_memory_desc_handle,
    index: c_int,
) -> usize {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        ffi_guard!(sentinel = 0, {
            if index != 0 {
                return 0;
            }
            md26::dnnl_memory_desc_get_size(memory_desc)
        })
    }
}

/// Bytes per element; 3.2's f64 and boolean too (descriptors of them cannot be created
/// here: the core computes in f32; libdnnl 3.2's ref:any resamples f64).
#[no_mangle]
pub unsafe extern "C" fn dnnl_data_type_size(data_type: dnnl_data_type_t) -> usize {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        match data_type {
            V3_F64 => 8,
            V3_BOOLEAN => 1,
            dt => md26::dnnl_data_type_size(dt),
        }
    }
}

/// Creates a memory object with `nhandles` buffers (dense descriptors take exactly one).
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_create_v2(
    memory: *mut dnnl_memory_t,
    memory_desc: const_dnnl_memory_desc_handle,
    engine: super::super::engine::dnnl_engine_t,
    nhandles: c_int,
    handles: *mut *mut c_void,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if nhandles != 1 || handles.is_null() {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_create_v2: dense memory takes exactly one handle",
                );
            }
            mem26::dnnl_memory_create(memory, memory_desc, engine, *handles)
        })
    }
}

fn index_ok(index: c_int, what: &str) -> Result<(), dnnl_status_t> {
    if index == 0 {
        Ok(())
    } else {
        Err(verbose_refuse(
            dnnl_invalid_arguments,
            format_args!("{what}: index must be 0 (dense memory has one buffer)"),
        ))
    }
}

/// The data handle of buffer `index`.
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_get_data_handle_v2(
    memory: const_dnnl_memory_t,
    handle: *mut *mut c_void,
    index: c_int,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            match index_ok(index, "memory_get_data_handle_v2") {
                Ok(()) => mem26::dnnl_memory_get_data_handle(memory, handle),
                Err(s) => s,
            }
        })
    }
}

/// Sets the data handle of buffer `index` (3.x: an index where 2.6 took a stream).
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_set_data_handle_v2(
    memory: dnnl_memory_t,
    handle: *mut c_void,
    index: c_int,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            match index_ok(index, "memory_set_data_handle_v2") {
                Ok(()) => mem26::dnnl_memory_set_data_handle(memory, handle),
                Err(s) => s,
            }
        })
    }
}

/// Maps buffer `index` (CPU memory: its data handle).
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_map_data_v2(
    memory: const_dnnl_memory_t,
    mapped_ptr: *mut *mut c_void,
    index: c_int,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            match index_ok(index, "memory_map_data_v2") {
                Ok(()) => mem26::dnnl_memory_map_data(memory, mapped_ptr),
                Err(s) => s,
            }
        })
    }
}

/// Unmaps buffer `index`.
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_unmap_data_v2(
    memory: const_dnnl_memory_t,
    mapped_ptr: *mut c_void,
    index: c_int,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            match index_ok(index, "memory_unmap_data_v2") {
                Ok(()) => mem26::dnnl_memory_unmap_data(memory, mapped_ptr),
                Err(s) => s,
            }
        })
    }
}
