//! Library-level calls: `dnnl_version`, `dnnl_set_verbose`, and the `dnnl_debug.h`
//! value-to-string helpers that oneDNN's examples use in their error messages.

use std::ffi::{c_char, c_int};
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

macro_rules! to_str {
    ($(#[$m:meta])* $name:ident, $t:ty, { $($v:expr => $s:expr),* $(,)? }) => {
        $(#[$m])*
        #[no_mangle]
        pub unsafe extern "C" fn $name(v: $t) -> *const c_char {
            match v {
                $(x if x == $v => concat!($s, "\0").as_ptr() as *const c_char,)*
                _ => c"unknown".as_ptr(),
            }
        }
    };
}

to_str!(
    /// Name of a status value.
    dnnl_status2str, dnnl_status_t, {
    dnnl_success => "success", dnnl_out_of_memory => "out_of_memory",
    dnnl_invalid_arguments => "invalid_arguments", dnnl_unimplemented => "unimplemented",
    dnnl_iterator_ends => "iterator_ends", dnnl_runtime_error => "runtime_error",
    dnnl_not_required => "not_required",
});
to_str!(
    /// Name of a data type.
    dnnl_dt2str, dnnl_data_type_t, {
    dnnl_data_type_undef => "undef", dnnl_f16 => "f16", dnnl_bf16 => "bf16", dnnl_f32 => "f32",
    dnnl_s32 => "s32", dnnl_s8 => "s8", dnnl_u8 => "u8",
});
to_str!(
    /// Name of a format kind.
    dnnl_fmt_kind2str, dnnl_format_kind_t, {
    dnnl_format_kind_undef => "undef", dnnl_format_kind_any => "any", dnnl_blocked => "blocked",
    dnnl_format_kind_wino => "wino", dnnl_format_kind_rnn_packed => "rnn_packed",
});
to_str!(
    /// Name of a propagation kind.
    dnnl_prop_kind2str, dnnl_prop_kind_t, {
    dnnl_prop_kind_undef => "undef", dnnl_forward_training => "forward_training",
    dnnl_forward_inference => "forward_inference", dnnl_backward => "backward",
    dnnl_backward_data => "backward_data", dnnl_backward_weights => "backward_weights",
    dnnl_backward_bias => "backward_bias",
});
to_str!(
    /// Name of a primitive kind.
    dnnl_prim_kind2str, dnnl_primitive_kind_t, {
    dnnl_undefined_primitive => "undef", dnnl_reorder => "reorder", dnnl_shuffle => "shuffle",
    dnnl_concat => "concat", dnnl_sum => "sum", dnnl_convolution => "convolution",
    dnnl_deconvolution => "deconvolution", dnnl_eltwise => "eltwise", dnnl_softmax => "softmax",
    dnnl_pooling => "pooling", dnnl_lrn => "lrn", dnnl_batch_normalization => "batch_normalization",
    dnnl_layer_normalization => "layer_normalization", dnnl_inner_product => "inner_product",
    dnnl_rnn => "rnn", dnnl_gemm => "gemm", dnnl_binary => "binary", dnnl_logsoftmax => "logsoftmax",
    dnnl_matmul => "matmul", dnnl_resampling => "resampling", dnnl_pooling_v2 => "pooling_v2",
    dnnl_reduction => "reduction", dnnl_prelu => "prelu", dnnl_softmax_v2 => "softmax_v2",
});
to_str!(
    /// Name of an algorithm kind (resampling ones; others are "unknown").
    dnnl_alg_kind2str, dnnl_alg_kind_t, {
    dnnl_alg_kind_undef => "undef", dnnl_resampling_nearest => "resampling_nearest",
    dnnl_resampling_linear => "resampling_linear",
});
to_str!(
    /// Name of an engine kind.
    dnnl_engine_kind2str, dnnl_engine_kind_t, {
    dnnl_any_engine => "any", dnnl_cpu => "cpu", dnnl_gpu => "gpu",
});

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
