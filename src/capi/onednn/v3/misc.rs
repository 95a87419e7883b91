//! 3.2's `dnnl_version` and the `dnnl_debug.h` strings whose values 3.x renumbered or
//! renamed (strings as libdnnl.so.3 2023.2.0 prints them); the rest are 2.6's functions.

use std::ffi::{c_char, CString};
use std::sync::OnceLock;

use super::super::format_tags_v3::{CANONICAL_NAMES_V3, FORMAT_TAG_LAST_V3};
use super::super::misc::{self as misc26, name_or};
use super::super::types::*;
use super::numbers::*;

struct Version(dnnl_version_t);
// SAFETY: points to a static string; never mutated.
unsafe impl Sync for Version {}

static VERSION: Version = Version(dnnl_version_t {
    major: 3,
    minor: 2,
    patch: 0,
    hash: c"libresample".as_ptr(),
    cpu_runtime: DNNL_RUNTIME_OMP,
    gpu_runtime: DNNL_RUNTIME_NONE,
});

/// The oneDNN version this library implements: 3.2.0, hash "libresample".
#[no_mangle]
pub unsafe extern "C" fn dnnl_version() -> *const dnnl_version_t {
    &VERSION.0
}

/// Name of a status (3.x: `last_impl_reached`, the graph API's statuses).
#[no_mangle]
pub unsafe extern "C" fn dnnl_status2str(v: dnnl_status_t) -> *const c_char {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        match v {
            4 => c"last_impl_reached".as_ptr(),
            7 => c"invalid_graph".as_ptr(),
            8 => c"invalid_graph_op".as_ptr(),
            9 => c"invalid_shape".as_ptr(),
            10 => c"invalid_data_type".as_ptr(),
            _ => misc26::dnnl_status2str(v),
        }
    }
}

/// Name of a data type (3.2 adds f64 and boolean).
#[no_mangle]
pub unsafe extern "C" fn dnnl_dt2str(v: dnnl_data_type_t) -> *const c_char {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        match v {
            V3_F64 => c"f64".as_ptr(),
            V3_BOOLEAN => c"boolean".as_ptr(),
            _ => misc26::dnnl_dt2str(v),
        }
    }
}

/// Name of a format kind (3.2: undef, any, blocked, sparse 4).
#[no_mangle]
pub unsafe extern "C" fn dnnl_fmt_kind2str(v: dnnl_format_kind_t) -> *const c_char {
    name_or(
        v,
        &[
            (dnnl_format_kind_undef, c"undef"),
            (dnnl_format_kind_any, c"any"),
            (dnnl_blocked, c"blocked"),
            (4, c"sparse"),
        ],
        c"unknown fmt_kind",
    )
}

/// Name of a 3.2 primitive kind.
#[no_mangle]
pub unsafe extern "C" fn dnnl_prim_kind2str(v: dnnl_primitive_kind_t) -> *const c_char {
    const NAMES: [&std::ffi::CStr; 21] = [
        c"undef",
        c"reorder",
        c"shuffle",
        c"concat",
        c"sum",
        c"convolution",
        c"deconvolution",
        c"eltwise",
        c"lrn",
        c"batch_normalization",
        c"inner_product",
        c"rnn",
        c"gemm",
        c"binary",
        c"matmul",
        c"resampling",
        c"pooling",
        c"reduction",
        c"prelu",
        c"softmax",
        c"layer_normalization",
    ];
    usize::try_from(v)
        .ok()
        .and_then(|i| NAMES.get(i))
        .map_or(c"unknown prim_kind".as_ptr(), |n| n.as_ptr())
}

/// Name of a 3.2 algorithm kind (eltwise renumbered; other families kept 2.6's values).
#[no_mangle]
pub unsafe extern "C" fn dnnl_alg_kind2str(v: dnnl_alg_kind_t) -> *const c_char {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        static NAMES: OnceLock<Vec<(dnnl_alg_kind_t, CString)>> = OnceLock::new();
        let names = NAMES.get_or_init(|| {
            (0..=262)
                .filter_map(|v| Some((v, CString::new(eltwise_name(v)?).ok()?)))
                .collect()
        });
        if let Some((_, n)) = names.iter().find(|(k, _)| *k == v) {
            return n.as_ptr();
        }
        // Below pooling_max (0x1ff) 2.6's eltwise values no longer exist; convolution and
        // deconvolution (1-11) and everything from pooling up are numbered as in 2.6.
        if (0..=11).contains(&v) || v >= 0x1ff {
            misc26::dnnl_alg_kind2str(v)
        } else {
            c"unknown alg_kind".as_ptr()
        }
    }
}

/// Name of a CPU ISA value (3.2 numbering and names).
#[no_mangle]
pub unsafe extern "C" fn dnnl_cpu_isa2str(v: dnnl_cpu_isa_t) -> *const c_char {
    name_or(
        v,
        &[
            (0, c"cpu_isa_default"),
            (1, c"cpu_isa_sse41"),
            (3, c"cpu_isa_avx"),
            (7, c"cpu_isa_avx2"),
            (15, c"cpu_isa_avx2_vnni"),
            (31, c"cpu_isa_avx2_vnni_2"),
            (39, c"cpu_isa_avx512_core"),
            (103, c"cpu_isa_avx512_core_vnni"),
            (231, c"cpu_isa_avx512_core_bf16"),
            (495, c"cpu_isa_avx512_core_fp16"),
            (4079, c"cpu_isa_avx512_core_amx"),
            (8175, c"cpu_isa_avx512_core_amx_fp16"),
        ],
        c"unknown cpu_isa",
    )
}

/// Canonical name of a 3.2 format tag (`acdb` for nhwc).
#[no_mangle]
pub unsafe extern "C" fn dnnl_fmt_tag2str(v: dnnl_format_tag_t) -> *const c_char {
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        CANONICAL_NAMES_V3
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let n = match i {
                    0 => "undef",
                    1 => "any",
                    _ => n,
                };
                CString::new(n).unwrap_or_default()
            })
            .collect()
    });
    match usize::try_from(v) {
        Ok(i) if i < names.len() => names[i].as_ptr(),
        _ if v == FORMAT_TAG_LAST_V3 => c"format_tag_last".as_ptr(),
        _ => c"unknown fmt_tag".as_ptr(),
    }
}

/// Name of a floating-point math mode (3.2: short names, tf32 added).
#[no_mangle]
pub unsafe extern "C" fn dnnl_fpmath_mode2str(v: dnnl_fpmath_mode_t) -> *const c_char {
    name_or(
        v,
        &[
            (dnnl_fpmath_mode_strict, c"strict"),
            (dnnl_fpmath_mode_bf16, c"bf16"),
            (dnnl_fpmath_mode_f16, c"f16"),
            (dnnl_fpmath_mode_any, c"any"),
            (4, c"tf32"),
        ],
        c"unknown fpmath_mode",
    )
}
