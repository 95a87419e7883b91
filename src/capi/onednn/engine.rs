//! Engines (one CPU engine kind, index 0) and streams (synchronous: `wait` has nothing to do).

use std::ffi::c_uint;

use super::refuse;
use super::registry::{self, Kind};
use super::types::*;

/// An execution engine (always the CPU).
pub struct dnnl_engine {
    pub(crate) kind: dnnl_engine_kind_t,
}
pub type dnnl_engine_t = *mut dnnl_engine;
pub type const_dnnl_engine_t = *const dnnl_engine;

/// An execution stream; execution is synchronous, so it only remembers its engine.
pub struct dnnl_stream {
    pub(crate) engine: dnnl_engine_t,
    pub(crate) flags: c_uint,
}
pub type dnnl_stream_t = *mut dnnl_stream;
pub type const_dnnl_stream_t = *const dnnl_stream;

pub(crate) unsafe fn engine_ref<'a>(e: *const dnnl_engine) -> Option<&'a dnnl_engine> {
    // SAFETY: `registry::get` dereferences only pointers it finds live.
    unsafe { registry::get(e, Kind::Engine) }
}

pub(crate) unsafe fn stream_ref<'a>(s: *const dnnl_stream) -> Option<&'a dnnl_stream> {
    // SAFETY: `registry::get` dereferences only pointers it finds live.
    unsafe { registry::get(s, Kind::Stream) }
}

/// Number of engines of `kind`: 1 for the CPU, 0 otherwise.
#[no_mangle]
pub unsafe extern "C" fn dnnl_engine_get_count(kind: dnnl_engine_kind_t) -> usize {
    ffi_guard!(sentinel = 0, { (kind == dnnl_cpu) as usize })
}

/// Creates an engine; only `dnnl_cpu` with index 0 exists.
#[no_mangle]
pub unsafe extern "C" fn dnnl_engine_create(
    engine: *mut dnnl_engine_t,
    kind: dnnl_engine_kind_t,
    index: usize,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if engine.is_null() {
                return refuse(dnnl_invalid_arguments, "engine_create: engine is NULL");
            }
            if kind != dnnl_cpu || index != 0 {
                return refuse(
                    dnnl_invalid_arguments,
                    "engine_create: only the CPU engine with index 0 exists",
                );
            }
            engine.write(registry::register(dnnl_engine { kind }, Kind::Engine));
            dnnl_success
        })
    }
}

/// Returns the kind of an engine.
#[no_mangle]
pub unsafe extern "C" fn dnnl_engine_get_kind(
    engine: dnnl_engine_t,
    kind: *mut dnnl_engine_kind_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (Some(e), false) = (engine_ref(engine), kind.is_null()) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "engine_get_kind: bad engine or NULL kind",
                );
            };
            kind.write(e.kind);
            dnnl_success
        })
    }
}

/// Destroys an engine (NULL is accepted).
#[no_mangle]
pub unsafe extern "C" fn dnnl_engine_destroy(engine: dnnl_engine_t) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if engine.is_null() {
                return dnnl_success;
            }
            match registry::unregister(engine, Kind::Engine) {
                Some(_) => dnnl_success,
                None => refuse(dnnl_invalid_arguments, "engine_destroy: not a live engine"),
            }
        })
    }
}

/// Creates a stream on an engine (all flag values are accepted, as on oneDNN's CPU; in
/// libdnnl.so.1, the 1.x flags, translated).
#[no_mangle]
pub unsafe extern "C" fn dnnl_stream_create(
    stream: *mut dnnl_stream_t,
    engine: dnnl_engine_t,
    flags: c_uint,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if stream.is_null() || engine_ref(engine).is_none() {
                return refuse(
                    dnnl_invalid_arguments,
                    "stream_create: NULL stream or bad engine",
                );
            }
            let Some(flags) = super::dnnl1::stream_flags_in(flags) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "stream_create: unknown DNNL 1.x stream flags",
                );
            };
            stream.write(registry::register(
                dnnl_stream { engine, flags },
                Kind::Stream,
            ));
            dnnl_success
        })
    }
}

/// Returns the engine of a stream.
#[no_mangle]
pub unsafe extern "C" fn dnnl_stream_get_engine(
    stream: const_dnnl_stream_t,
    engine: *mut dnnl_engine_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (Some(s), false) = (stream_ref(stream), engine.is_null()) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "stream_get_engine: bad stream or NULL engine",
                );
            };
            engine.write(s.engine);
            dnnl_success
        })
    }
}

/// Waits for a stream: execution is synchronous, so this only checks the handle.
#[no_mangle]
pub unsafe extern "C" fn dnnl_stream_wait(stream: dnnl_stream_t) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            match stream_ref(stream) {
                Some(s) => {
                    let _ = s.flags;
                    dnnl_success
                }
                None => refuse(dnnl_invalid_arguments, "stream_wait: bad stream"),
            }
        })
    }
}

/// Destroys a stream (NULL is accepted).
#[no_mangle]
pub unsafe extern "C" fn dnnl_stream_destroy(stream: dnnl_stream_t) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if stream.is_null() {
                return dnnl_success;
            }
            match registry::unregister(stream, Kind::Stream) {
                Some(_) => dnnl_success,
                None => refuse(dnnl_invalid_arguments, "stream_destroy: not a live stream"),
            }
        })
    }
}
