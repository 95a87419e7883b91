//! 3.x primitive descriptors and execution: resampling pds are created directly (3.x has
//! no op descriptors; the 2.6 descriptor is filled internally and handed to the same pd
//! code), one implementation per problem (`next_impl` ends at once), queries and execution
//! arguments translated from 3.2 numbering.

use std::ffi::{c_int, c_void};

use super::super::attr::const_dnnl_primitive_attr_t;
use super::super::desc;
use super::super::engine::{dnnl_engine_t, dnnl_stream_t};
use super::super::pd::{
    self as pd26, const_dnnl_primitive_desc_t, create_pd_data, dnnl_primitive_desc_t,
    new_pd_handle, pd_ref,
};
use super::super::primitive::{self as prim26, const_dnnl_primitive_t};
use super::super::types::*;
use super::super::{refuse, verbose_refuse};
use super::md::const_dnnl_memory_desc_handle;
use super::numbers::*;

/// 3.2 `dnnl_last_impl_reached` (2.6's `dnnl_iterator_ends`, same value).
const LAST_IMPL_REACHED: dnnl_status_t = dnnl_iterator_ends;

/// Fills a 2.6 resampling descriptor with `init` and creates the pd from it.
unsafe fn create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    attr: const_dnnl_primitive_attr_t,
    hint: const_dnnl_primitive_desc_t,
    init: impl FnOnce(*mut dnnl_resampling_desc_t) -> dnnl_status_t,
) -> dnnl_status_t {
    // SAFETY: the caller's contract (see the doc comment): pointers are NULL or valid as
    // the calling entry point's C API documents; handles are resolved through the registry.
    unsafe {
        if primitive_desc.is_null() {
            return refuse(
                dnnl_invalid_arguments,
                "resampling_primitive_desc_create: primitive_desc is NULL",
            );
        }
        let mut rd = dnnl_resampling_desc_t::zero();
        let s = init(&mut rd);
        if s != dnnl_success {
            return s;
        }
        let rd_ptr: *const dnnl_resampling_desc_t = &rd;
        match create_pd_data(rd_ptr.cast(), attr, engine, hint) {
            Ok(d) => {
                primitive_desc.write(new_pd_handle(std::sync::Arc::new(d)));
                dnnl_success
            }
            Err(s) => s,
        }
    }
}

/// Creates a forward resampling pd (`dst_desc` may be NULL when `factors` is given).
#[no_mangle]
pub unsafe extern "C" fn dnnl_resampling_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    alg_kind: dnnl_alg_kind_t,
    factors: *const f32,
    src_desc: const_dnnl_memory_desc_handle,
    dst_desc: const_dnnl_memory_desc_handle,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if prop_kind != dnnl_forward_training && prop_kind != dnnl_forward_inference {
                return refuse(
                    dnnl_invalid_arguments,
                    "resampling_forward_primitive_desc_create: prop kind must be forward_training/inference",
                );
            }
            create(primitive_desc, engine, attr, std::ptr::null(), |rd| {
                desc::dnnl_resampling_forward_desc_init(
                    rd, prop_kind, alg_kind, factors, src_desc, dst_desc,
                )
            })
        })
    }
}

/// Creates a backward-data resampling pd (`hint_fwd_pd` resolves a `format_tag_any`).
#[no_mangle]
pub unsafe extern "C" fn dnnl_resampling_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    alg_kind: dnnl_alg_kind_t,
    factors: *const f32,
    diff_src_desc: const_dnnl_memory_desc_handle,
    diff_dst_desc: const_dnnl_memory_desc_handle,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            create(primitive_desc, engine, attr, hint_fwd_pd, |rd| {
                desc::dnnl_resampling_backward_desc_init(
                    rd,
                    alg_kind,
                    factors,
                    diff_src_desc,
                    diff_dst_desc,
                )
            })
        })
    }
}

/// Moves to the next implementation: this library has one per problem, so the pd stays
/// and the answer is `dnnl_last_impl_reached`.
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_desc_next_impl(
    primitive_desc: dnnl_primitive_desc_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if pd_ref(primitive_desc).is_none() {
                return refuse(dnnl_invalid_arguments, "primitive_desc_next_impl: bad pd");
            }
            LAST_IMPL_REACHED
        })
    }
}

/// Queries a pd (3.2 query numbering; `alg_kind` and `factors` replace the op-desc
/// queries, which 3.x removed).
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_desc_query(
    primitive_desc: const_dnnl_primitive_desc_t,
    what: dnnl_query_t,
    index: c_int,
    result: *mut c_void,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (Some(pd), false) = (pd_ref(primitive_desc), result.is_null()) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_desc_query: bad pd or NULL result",
                );
            };
            let d = &*pd.data;
            match what {
                Q_ALG_KIND | Q_FACTORS if d.reorder.is_some() => verbose_refuse(
                    dnnl_unimplemented,
                    format_args!("primitive_desc_query: a reorder has no query {what}"),
                ),
                Q_ALG_KIND => {
                    (result as *mut dnnl_alg_kind_t).write(d.rd.alg_kind);
                    dnnl_success
                }
                Q_FACTORS => {
                    (result as *mut *const f32).write(d.rd.factors.as_ptr());
                    dnnl_success
                }
                dnnl_query_primitive_kind => {
                    let mut k: dnnl_primitive_kind_t = 0;
                    let s = pd26::dnnl_primitive_desc_query(
                        primitive_desc,
                        what,
                        index,
                        (&mut k as *mut dnnl_primitive_kind_t).cast(),
                    );
                    if s == dnnl_success {
                        (result as *mut dnnl_primitive_kind_t).write(kind_out(k));
                    }
                    s
                }
                // Same numbers and meaning in 2.6 and 3.2.
                dnnl_query_engine..=dnnl_query_cache_blob_id
                | dnnl_query_src_md..=dnnl_query_scratchpad_md => {
                    pd26::dnnl_primitive_desc_query(primitive_desc, what, index, result)
                }
                dnnl_query_exec_arg_md => pd26::dnnl_primitive_desc_query(
                    primitive_desc,
                    what,
                    arg_in_or_none(index),
                    result,
                ),
                _ => verbose_refuse(
                    dnnl_unimplemented,
                    format_args!("primitive_desc_query: query {what} is not supported"),
                ),
            }
        })
    }
}

/// A memory descriptor of a pd (zero md for tensors it lacks); NULL for other queries.
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_desc_query_md(
    primitive_desc: const_dnnl_primitive_desc_t,
    what: dnnl_query_t,
    index: c_int,
) -> const_dnnl_memory_desc_handle {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        ffi_guard!({
            let index = if what == dnnl_query_exec_arg_md {
                arg_in_or_none(index)
            } else {
                index
            };
            pd26::dnnl_primitive_desc_query_md(primitive_desc, what, index)
        })
    }
}

/// An `int` query (numbers of inputs and outputs); 0 for anything else.
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_desc_query_s32(
    primitive_desc: const_dnnl_primitive_desc_t,
    what: dnnl_query_t,
    index: c_int,
) -> c_int {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        ffi_guard!(sentinel = 0, {
            pd26::dnnl_primitive_desc_query_s32(primitive_desc, what, index)
        })
    }
}

/// Executes a primitive; arguments in 3.2 numbering (post-op inputs at
/// `DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) = 32768 * (i + 1)`).
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_execute(
    primitive: const_dnnl_primitive_t,
    stream: dnnl_stream_t,
    nargs: c_int,
    args: *const dnnl_exec_arg_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if nargs < 0 || (nargs > 0 && args.is_null()) {
                return refuse(dnnl_invalid_arguments, "execute: bad nargs or NULL args");
            }
            let given = if nargs == 0 {
                &[][..]
            } else {
                std::slice::from_raw_parts(args, nargs as usize)
            };
            let mut translated = Vec::new();
            if translated.try_reserve_exact(given.len()).is_err() {
                return refuse(dnnl_out_of_memory, "execute: out of memory");
            }
            translated.extend(given.iter().filter_map(|a| {
                arg_in(a.arg).map(|arg| dnnl_exec_arg_t {
                    arg,
                    memory: a.memory,
                })
            }));
            prim26::dnnl_primitive_execute(
                primitive,
                stream,
                translated.len() as c_int,
                translated.as_ptr(),
            )
        })
    }
}
