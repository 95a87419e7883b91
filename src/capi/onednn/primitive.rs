//! Primitives: creation from a pd (the plan was built with the pd) and execution with
//! oneDNN 2.6.3's argument rules.

use crate::capi::exec::Raw;
use std::ffi::c_int;
use std::sync::Arc;

use crate::core::CoreError;

use super::engine::{dnnl_stream_t, stream_ref};
use super::memory::{dnnl_memory, memory_ref};
use super::pd::{const_dnnl_primitive_desc_t, dnnl_primitive_desc, new_pd_handle, pd_ref, PdData};
use super::registry::{self, Kind};
use super::types::*;
use super::{refuse, verbose, verbose_refuse};

/// A primitive: its own copy of the pd (returned by `dnnl_primitive_get_primitive_desc`).
pub struct dnnl_primitive {
    data: Arc<PdData>,
    pd_handle: *mut dnnl_primitive_desc,
}
pub type dnnl_primitive_t = *mut dnnl_primitive;
pub type const_dnnl_primitive_t = *const dnnl_primitive;

impl Drop for dnnl_primitive {
    fn drop(&mut self) {
        // SAFETY: registered by `dnnl_primitive_create`, owned by this primitive.
        unsafe { drop(registry::unregister(self.pd_handle, Kind::PrimitiveDesc)) };
    }
}

/// Creates a primitive from a primitive descriptor (which may be destroyed afterwards).
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_create(
    primitive: *mut dnnl_primitive_t,
    primitive_desc: const_dnnl_primitive_desc_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (Some(pd), false) = (pd_ref(primitive_desc), primitive.is_null()) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_create: bad pd or NULL result",
                );
            };
            let data = pd.data.clone();
            verbose::create_line(&data.verbose_info, data.create_ms);
            let pd_handle = new_pd_handle(data.clone());
            primitive.write(registry::register(
                dnnl_primitive { data, pd_handle },
                Kind::Primitive,
            ));
            dnnl_success
        })
    }
}

/// Returns the primitive's own primitive descriptor (valid until the primitive is destroyed).
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_get_primitive_desc(
    primitive: const_dnnl_primitive_t,
    primitive_desc: *mut const_dnnl_primitive_desc_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (Some(p), false) = (
                registry::get(primitive, Kind::Primitive),
                primitive_desc.is_null(),
            ) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_get_primitive_desc: bad primitive or NULL result",
                );
            };
            primitive_desc.write(p.pd_handle);
            dnnl_success
        })
    }
}

/// Destroys a primitive (NULL is accepted).
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_destroy(primitive: dnnl_primitive_t) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if primitive.is_null() {
                return dnnl_success;
            }
            match registry::unregister(primitive, Kind::Primitive) {
                Some(_) => dnnl_success,
                None => refuse(
                    dnnl_invalid_arguments,
                    "primitive_destroy: not a live primitive",
                ),
            }
        })
    }
}

fn core_status(e: CoreError) -> dnnl_status_t {
    match e {
        CoreError::Invalid(m) => {
            verbose_refuse(dnnl_invalid_arguments, format_args!("execute: {m}"))
        }
        CoreError::Unsupported(m) => {
            verbose_refuse(dnnl_unimplemented, format_args!("execute: {m}"))
        }
        CoreError::OutOfMemory => refuse(dnnl_out_of_memory, "execute: out of memory"),
    }
}

/// Executes a primitive: `args` must hold the input (SRC / DIFF_DST), the output
/// (DST / DIFF_SRC) and the src1 of every binary post-op
/// (`DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1`); NULL entries are skipped, other
/// indices ignored, duplicates refused. Execution is synchronous.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_primitive_execute"
)]
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
            let Some(p) = registry::get(primitive, Kind::Primitive) else {
                return refuse(dnnl_invalid_arguments, "execute: bad primitive");
            };
            let Some(s) = stream_ref(stream) else {
                return refuse(dnnl_invalid_arguments, "execute: bad stream");
            };
            let d = &*p.data;
            if s.engine != d.engine {
                return refuse(
                    dnnl_invalid_arguments,
                    "execute: stream and primitive engines differ",
                );
            }
            if nargs < 0 || (nargs > 0 && args.is_null()) {
                return refuse(dnnl_invalid_arguments, "execute: bad nargs or NULL args");
            }
            let args = if nargs == 0 {
                &[][..]
            } else {
                std::slice::from_raw_parts(args, nargs as usize)
            };
            let (in_arg, out_arg) = (d.input_arg(), d.output_arg());
            let mut input: Option<&dnnl_memory> = None;
            let mut output: Option<&dnnl_memory> = None;
            let mut bins: Vec<Option<&dnnl_memory>> = vec![None; d.binaries.len()];
            for a in args {
                if a.memory.is_null() {
                    continue;
                }
                let slot = if a.arg == in_arg {
                    &mut input
                } else if a.arg == out_arg {
                    &mut output
                } else if let Some(k) = d.binary_of_arg(a.arg) {
                    &mut bins[k]
                } else {
                    continue;
                };
                if slot.is_some() {
                    return verbose_refuse(
                        dnnl_invalid_arguments,
                        format_args!("execute: argument {} given twice", a.arg),
                    );
                }
                let Some(m) = memory_ref(a.memory) else {
                    return verbose_refuse(
                        dnnl_invalid_arguments,
                        format_args!("execute: argument {} is not a live memory", a.arg),
                    );
                };
                *slot = Some(m);
            }
            let (Some(inp), Some(out)) = (input, output) else {
                return verbose_refuse(
                dnnl_invalid_arguments,
                format_args!("execute: needs exactly one input (arg {in_arg}) and one output (arg {out_arg})"),
            );
            };
            if let Some(k) = bins.iter().position(|b| b.is_none()) {
                return verbose_refuse(
                    dnnl_invalid_arguments,
                    format_args!(
                        "execute: {} inputs expected; missing the src1 of post-op {} (arg {})",
                        1 + bins.len(),
                        d.binaries[k].0,
                        (DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE * (d.binaries[k].0 as c_int + 1))
                            | DNNL_ARG_SRC_1
                    ),
                );
            }
            // The clock is read only for the verbose line (a tiny call's time otherwise).
            let started = (verbose::level() >= 1).then(std::time::Instant::now);
            let ms =
                |t: Option<std::time::Instant>| t.map_or(0.0, |t| t.elapsed().as_secs_f64() * 1e3);
            let Some(plan) = &d.plan else {
                if verbose::level() >= 1 {
                    verbose::exec_line(&d.verbose_info, ms(started));
                }
                return dnnl_success;
            };
            let (ip, op) = (inp.handle() as *const u8, out.handle() as *mut u8);
            let (il, ol) = (inp.len(), out.len());
            if (ip.is_null() && il > 0) || (op.is_null() && ol > 0) {
                return refuse(
                    dnnl_invalid_arguments,
                    "execute: a memory has no data handle",
                );
            }
            let mut raws = Vec::with_capacity(bins.len());
            for m in bins.iter().flatten() {
                let (p, l) = (m.handle() as *const u8, m.len());
                if p.is_null() && l > 0 {
                    return refuse(
                        dnnl_invalid_arguments,
                        "execute: a post-op input has no data handle",
                    );
                }
                raws.push(Raw { ptr: p, len: l });
            }
            let src = Raw { ptr: ip, len: il };
            match crate::capi::exec::execute(plan, src, op, ol, &raws) {
                Ok(()) => {
                    if verbose::level() >= 1 {
                        verbose::exec_line(&d.verbose_info, ms(started));
                    }
                    dnnl_success
                }
                Err(e) => core_status(e),
            }
        })
    }
}
