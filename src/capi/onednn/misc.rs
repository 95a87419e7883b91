//! Library-level calls: `dnnl_version`, `dnnl_set_verbose`, and the `dnnl_debug.h`
//! value-to-string helpers that oneDNN's examples use in their error messages.

use std::ffi::{c_char, c_int, CStr};
use std::sync::atomic::{AtomicI32, Ordering};

use super::format_tags::{CANONICAL_NAMES, FORMAT_TAG_LAST};
use super::refuse;
use super::types::*;

/// Verbose level set by `dnnl_set_verbose` (-1: not set, use the environment).
pub(crate) static VERBOSE_LEVEL: AtomicI32 = AtomicI32::new(-1);

struct Version(dnnl_version_t);
// SAFETY: points to a static string; never mutated.
unsafe impl Sync for Version {}

static VERSION: Version = Version(dnnl_version_t {
    major: 2,
    minor: 6,
    patch: 3,
    hash: c"libresample".as_ptr(),
    cpu_runtime: DNNL_RUNTIME_OMP,
    gpu_runtime: DNNL_RUNTIME_NONE,
});

/// The oneDNN version this library implements (2.6.3; hash "libresample").
#[no_mangle]
pub unsafe extern "C" fn dnnl_version() -> *const dnnl_version_t {
    &VERSION.0
}

/// Sets the verbose level (0, 1 or 2). At level >= 1 refused calls print one line to stderr.
#[no_mangle]
pub unsafe extern "C" fn dnnl_set_verbose(level: c_int) -> dnnl_status_t {
    ffi_guard!(dnnl_runtime_error, {
        if !(0..=2).contains(&level) {
            return refuse(dnnl_invalid_arguments, "set_verbose: level must be 0, 1 or 2");
        }
        VERBOSE_LEVEL.store(level, Ordering::Relaxed);
        dnnl_success
    })
}

fn name_of(v: c_int, table: &[(c_int, &'static CStr)]) -> *const c_char {
    table.iter().find(|(k, _)| *k == v).map_or(c"unknown".as_ptr(), |(_, n)| n.as_ptr())
}

/// Name of a status value.
#[no_mangle]
pub unsafe extern "C" fn dnnl_status2str(v: dnnl_status_t) -> *const c_char {
    name_of(
        v,
        &[
            (dnnl_success, c"success"),
            (dnnl_out_of_memory, c"out_of_memory"),
            (dnnl_invalid_arguments, c"invalid_arguments"),
            (dnnl_unimplemented, c"unimplemented"),
            (dnnl_iterator_ends, c"iterator_ends"),
            (dnnl_runtime_error, c"runtime_error"),
            (dnnl_not_required, c"not_required"),
        ],
    )
}

/// Name of a data type.
#[no_mangle]
pub unsafe extern "C" fn dnnl_dt2str(v: dnnl_data_type_t) -> *const c_char {
    name_of(
        v,
        &[
            (dnnl_data_type_undef, c"undef"),
            (dnnl_f16, c"f16"),
            (dnnl_bf16, c"bf16"),
            (dnnl_f32, c"f32"),
            (dnnl_s32, c"s32"),
            (dnnl_s8, c"s8"),
            (dnnl_u8, c"u8"),
        ],
    )
}

/// Name of a format kind.
#[no_mangle]
pub unsafe extern "C" fn dnnl_fmt_kind2str(v: dnnl_format_kind_t) -> *const c_char {
    name_of(
        v,
        &[
            (dnnl_format_kind_undef, c"undef"),
            (dnnl_format_kind_any, c"any"),
            (dnnl_blocked, c"blocked"),
            (dnnl_format_kind_wino, c"wino"),
            (dnnl_format_kind_rnn_packed, c"rnn_packed"),
        ],
    )
}

/// Name of a propagation kind.
#[no_mangle]
pub unsafe extern "C" fn dnnl_prop_kind2str(v: dnnl_prop_kind_t) -> *const c_char {
    name_of(
        v,
        &[
            (dnnl_prop_kind_undef, c"undef"),
            (dnnl_forward_training, c"forward_training"),
            (dnnl_forward_inference, c"forward_inference"),
            (dnnl_backward, c"backward"),
            (dnnl_backward_data, c"backward_data"),
            (dnnl_backward_weights, c"backward_weights"),
            (dnnl_backward_bias, c"backward_bias"),
        ],
    )
}

/// Name of a primitive kind.
#[no_mangle]
pub unsafe extern "C" fn dnnl_prim_kind2str(v: dnnl_primitive_kind_t) -> *const c_char {
    name_of(
        v,
        &[
            (dnnl_undefined_primitive, c"undef"),
            (dnnl_reorder, c"reorder"),
            (dnnl_shuffle, c"shuffle"),
            (dnnl_concat, c"concat"),
            (dnnl_sum, c"sum"),
            (dnnl_convolution, c"convolution"),
            (dnnl_deconvolution, c"deconvolution"),
            (dnnl_eltwise, c"eltwise"),
            (dnnl_softmax, c"softmax"),
            (dnnl_pooling, c"pooling"),
            (dnnl_lrn, c"lrn"),
            (dnnl_batch_normalization, c"batch_normalization"),
            (dnnl_layer_normalization, c"layer_normalization"),
            (dnnl_inner_product, c"inner_product"),
            (dnnl_rnn, c"rnn"),
            (dnnl_gemm, c"gemm"),
            (dnnl_binary, c"binary"),
            (dnnl_logsoftmax, c"logsoftmax"),
            (dnnl_matmul, c"matmul"),
            (dnnl_resampling, c"resampling"),
            (dnnl_pooling_v2, c"pooling_v2"),
            (dnnl_reduction, c"reduction"),
            (dnnl_prelu, c"prelu"),
            (dnnl_softmax_v2, c"softmax_v2"),
        ],
    )
}

/// Name of an algorithm kind (resampling ones; others are "unknown").
#[no_mangle]
pub unsafe extern "C" fn dnnl_alg_kind2str(v: dnnl_alg_kind_t) -> *const c_char {
    name_of(
        v,
        &[
            (dnnl_alg_kind_undef, c"undef"),
            (dnnl_resampling_nearest, c"resampling_nearest"),
            (dnnl_resampling_linear, c"resampling_linear"),
        ],
    )
}

/// Name of an engine kind.
#[no_mangle]
pub unsafe extern "C" fn dnnl_engine_kind2str(v: dnnl_engine_kind_t) -> *const c_char {
    name_of(
        v,
        &[
            (dnnl_any_engine, c"any"),
            (dnnl_cpu, c"cpu"),
            (dnnl_gpu, c"gpu"),
        ],
    )
}

/// Name of a format tag (its canonical letter form, e.g. "aBcd16b" for nChw16c).
#[no_mangle]
pub unsafe extern "C" fn dnnl_fmt_tag2str(v: dnnl_format_tag_t) -> *const c_char {
    static NAMES: std::sync::OnceLock<Vec<std::ffi::CString>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        (0..FORMAT_TAG_LAST as usize)
            .map(|i| {
                let n = match i {
                    0 => "undef",
                    1 => "any",
                    _ => CANONICAL_NAMES[i],
                };
                std::ffi::CString::new(n).unwrap_or_default()
            })
            .collect()
    });
    match usize::try_from(v) {
        Ok(i) if i < names.len() => names[i].as_ptr(),
        Ok(i) if i == FORMAT_TAG_LAST as usize => c"last".as_ptr(),
        _ => c"unknown".as_ptr(),
    }
}
