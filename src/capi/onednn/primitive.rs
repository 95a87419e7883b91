//! Primitives: creation from a pd (the plan was built with the pd) and execution with
//! oneDNN 2.6.3's argument rules.

use std::ffi::c_int;
use std::sync::Arc;

use crate::core::CoreError;

use super::engine::{dnnl_stream_t, stream_ref};
use super::memory::{memory_ref, dnnl_memory};
use super::pd::{const_dnnl_primitive_desc_t, dnnl_primitive_desc, new_pd_handle, pd_ref, PdData};
use super::registry::{self, Kind};
use super::types::*;
use super::{refuse, verbose_refuse};

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
pub unsafe extern "C" fn dnnl_primitive_create(primitive: *mut dnnl_primitive_t, primitive_desc: const_dnnl_primitive_desc_t) -> dnnl_status_t {
    ffi_guard!(dnnl_runtime_error, {
        let (Some(pd), false) = (pd_ref(primitive_desc), primitive.is_null()) else {
            return refuse(dnnl_invalid_arguments, "primitive_create: bad pd or NULL result");
        };
        let data = pd.data.clone();
        let pd_handle = new_pd_handle(data.clone());
        primitive.write(registry::register(dnnl_primitive { data, pd_handle }, Kind::Primitive));
        dnnl_success
    })
}

/// Returns the primitive's own primitive descriptor (valid until the primitive is destroyed).
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_get_primitive_desc(
    primitive: const_dnnl_primitive_t,
    primitive_desc: *mut const_dnnl_primitive_desc_t,
) -> dnnl_status_t {
    ffi_guard!(dnnl_runtime_error, {
        let (Some(p), false) = (registry::get(primitive, Kind::Primitive), primitive_desc.is_null()) else {
            return refuse(dnnl_invalid_arguments, "primitive_get_primitive_desc: bad primitive or NULL result");
        };
        primitive_desc.write(p.pd_handle);
        dnnl_success
    })
}

/// Destroys a primitive (NULL is accepted).
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_destroy(primitive: dnnl_primitive_t) -> dnnl_status_t {
    ffi_guard!(dnnl_runtime_error, {
        if primitive.is_null() {
            return dnnl_success;
        }
        match registry::unregister(primitive, Kind::Primitive) {
            Some(_) => dnnl_success,
            None => refuse(dnnl_invalid_arguments, "primitive_destroy: not a live primitive"),
        }
    })
}

fn core_status(e: CoreError) -> dnnl_status_t {
    match e {
        CoreError::Invalid(m) => verbose_refuse(dnnl_invalid_arguments, format_args!("execute: {m}")),
        CoreError::Unsupported(m) => verbose_refuse(dnnl_unimplemented, format_args!("execute: {m}")),
        CoreError::OutOfMemory => refuse(dnnl_out_of_memory, "execute: out of memory"),
    }
}

/// Executes a primitive: `args` must hold exactly the input (SRC / DIFF_DST) and output
/// (DST / DIFF_SRC) memories; NULL entries are skipped, other indices ignored, duplicates
/// refused. Execution is synchronous.
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_execute(
    primitive: const_dnnl_primitive_t,
    stream: dnnl_stream_t,
    nargs: c_int,
    args: *const dnnl_exec_arg_t,
) -> dnnl_status_t {
    ffi_guard!(dnnl_runtime_error, {
        let Some(p) = registry::get(primitive, Kind::Primitive) else {
            return refuse(dnnl_invalid_arguments, "execute: bad primitive");
        };
        let Some(s) = stream_ref(stream) else {
            return refuse(dnnl_invalid_arguments, "execute: bad stream");
        };
        let d = &*p.data;
        if s.engine != d.engine {
            return refuse(dnnl_invalid_arguments, "execute: stream and primitive engines differ");
        }
        if nargs < 0 || (nargs > 0 && args.is_null()) {
            return refuse(dnnl_invalid_arguments, "execute: bad nargs or NULL args");
        }
        let args = if nargs == 0 { &[][..] } else { std::slice::from_raw_parts(args, nargs as usize) };
        let (in_arg, out_arg) = (d.input_arg(), d.output_arg());
        let mut input: Option<&dnnl_memory> = None;
        let mut output: Option<&dnnl_memory> = None;
        for a in args {
            if a.memory.is_null() || (a.arg != in_arg && a.arg != out_arg) {
                continue;
            }
            let slot = if a.arg == in_arg { &mut input } else { &mut output };
            if slot.is_some() {
                return verbose_refuse(dnnl_invalid_arguments, format_args!("execute: argument {} given twice", a.arg));
            }
            let Some(m) = memory_ref(a.memory) else {
                return verbose_refuse(dnnl_invalid_arguments, format_args!("execute: argument {} is not a live memory", a.arg));
            };
            *slot = Some(m);
        }
        let (Some(inp), Some(out)) = (input, output) else {
            return verbose_refuse(
                dnnl_invalid_arguments,
                format_args!("execute: needs exactly one input (arg {in_arg}) and one output (arg {out_arg})"),
            );
        };
        let Some(plan) = &d.plan else {
            return dnnl_success;
        };
        let (ip, op) = (inp.handle() as *const u8, out.handle() as *mut u8);
        let (il, ol) = (inp.len(), out.len());
        if (ip.is_null() && il > 0) || (op.is_null() && ol > 0) {
            return refuse(dnnl_invalid_arguments, "execute: a memory has no data handle");
        }
        let src: &[u8] = if il == 0 { &[] } else { std::slice::from_raw_parts(ip, il) };
        let overlap = il > 0 && ol > 0 && (ip as usize) < (op as usize).saturating_add(ol) && (op as usize) < (ip as usize).saturating_add(il);
        let copy;
        let src = if overlap {
            copy = src.to_vec();
            &copy[..]
        } else {
            src
        };
        let dst: &mut [u8] = if ol == 0 { &mut [] } else { std::slice::from_raw_parts_mut(op, ol) };
        match plan.execute(src, dst, &[]) {
            Ok(()) => dnnl_success,
            Err(e) => core_status(e),
        }
    })
}
