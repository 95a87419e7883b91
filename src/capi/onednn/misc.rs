//! Library-level calls: `dnnl_version`, `dnnl_set_verbose`, and the `dnnl_debug.h`
//! value-to-string helpers that oneDNN's examples use in their error messages.

use std::ffi::{c_char, c_int, c_uint, CStr};
use std::sync::atomic::{AtomicI32, Ordering};

use super::format_tags::{CANONICAL_NAMES, FORMAT_TAG_LAST};
use super::refuse;
use super::types::*;

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

/// libdnnl.so.1's version: DNNL 1.2.0 (the seeds' version; 1.3's numbering is the same).
static VERSION_V1: Version = Version(dnnl_version_t {
    major: 1,
    minor: 2,
    patch: 0,
    hash: c"libresample".as_ptr(),
    cpu_runtime: DNNL_RUNTIME_OMP,
    gpu_runtime: DNNL_RUNTIME_NONE,
});

/// The oneDNN version this library implements (2.6.3, or 1.2.0 in libdnnl.so.1; hash
/// "libresample").
#[no_mangle]
#[cfg_attr(resample_dnnl3, export_name = "resample_onednn26_dnnl_version")]
pub unsafe extern "C" fn dnnl_version() -> *const dnnl_version_t {
    if super::dnnl1::ACTIVE {
        &VERSION_V1.0
    } else {
        &VERSION.0
    }
}

/// Sets the verbose level: 0 off, 1 one `onednn_verbose,exec,...` line per execution,
/// 2 also `create` lines (overrides `ONEDNN_VERBOSE` / `DNNL_VERBOSE`). At level >= 1
/// refused calls also print why.
#[no_mangle]
pub unsafe extern "C" fn dnnl_set_verbose(level: c_int) -> dnnl_status_t {
    onednn_guard!({
        if !(0..=2).contains(&level) {
            return refuse(
                dnnl_invalid_arguments,
                "set_verbose: level must be 0, 1 or 2",
            );
        }
        super::verbose::set_level(level);
        dnnl_success
    })
}

/// Primitive cache capacity recorded by `dnnl_set_primitive_cache_capacity` (libresample
/// keeps no cache: a pd builds its plan when created; the value is only reported back).
static CACHE_CAPACITY: AtomicI32 = AtomicI32::new(-1);

fn cache_capacity() -> c_int {
    match CACHE_CAPACITY.load(Ordering::Relaxed) {
        c if c >= 0 => c,
        _ => std::env::var("ONEDNN_PRIMITIVE_CACHE_CAPACITY")
            .or_else(|_| std::env::var("DNNL_PRIMITIVE_CACHE_CAPACITY"))
            .ok()
            .and_then(|v| v.trim().parse::<c_int>().ok())
            .filter(|&c| c >= 0)
            .unwrap_or(1024),
    }
}

/// Sets the primitive cache capacity (recorded and reported; see above).
#[no_mangle]
pub unsafe extern "C" fn dnnl_set_primitive_cache_capacity(capacity: c_int) -> dnnl_status_t {
    onednn_guard!({
        if capacity < 0 {
            return refuse(
                dnnl_invalid_arguments,
                "set_primitive_cache_capacity: capacity must be >= 0",
            );
        }
        CACHE_CAPACITY.store(capacity, Ordering::Relaxed);
        dnnl_success
    })
}

/// The primitive cache capacity (default 1024 or `ONEDNN_PRIMITIVE_CACHE_CAPACITY`).
#[no_mangle]
pub unsafe extern "C" fn dnnl_get_primitive_cache_capacity(capacity: *mut c_int) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if capacity.is_null() {
                return refuse(
                    dnnl_invalid_arguments,
                    "get_primitive_cache_capacity: capacity is NULL",
                );
            }
            capacity.write(cache_capacity());
            dnnl_success
        })
    }
}

/// Default floating-point math mode of new attribute sets.
static DEFAULT_FPMATH: AtomicI32 = AtomicI32::new(-1);

pub(crate) fn default_fpmath_mode() -> dnnl_fpmath_mode_t {
    match DEFAULT_FPMATH.load(Ordering::Relaxed) {
        m if m >= 0 => m,
        _ => match std::env::var("ONEDNN_DEFAULT_FPMATH_MODE")
            .or_else(|_| std::env::var("DNNL_DEFAULT_FPMATH_MODE"))
            .unwrap_or_default()
            .to_ascii_uppercase()
            .as_str()
        {
            "BF16" => dnnl_fpmath_mode_bf16,
            "F16" => dnnl_fpmath_mode_f16,
            "ANY" => dnnl_fpmath_mode_any,
            _ => dnnl_fpmath_mode_strict,
        },
    }
}

/// Sets the default floating-point math mode (resampling computes in f32 in every mode).
#[no_mangle]
pub unsafe extern "C" fn dnnl_set_default_fpmath_mode(mode: dnnl_fpmath_mode_t) -> dnnl_status_t {
    onednn_guard!({
        if !(dnnl_fpmath_mode_strict..=dnnl_fpmath_mode_any).contains(&mode) {
            return refuse(dnnl_invalid_arguments, "set_default_fpmath_mode: bad mode");
        }
        DEFAULT_FPMATH.store(mode, Ordering::Relaxed);
        dnnl_success
    })
}

/// The default floating-point math mode.
#[no_mangle]
pub unsafe extern "C" fn dnnl_get_default_fpmath_mode(
    mode: *mut dnnl_fpmath_mode_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if mode.is_null() {
                return refuse(
                    dnnl_invalid_arguments,
                    "get_default_fpmath_mode: mode is NULL",
                );
            }
            mode.write(default_fpmath_mode());
            dnnl_success
        })
    }
}

/// The widest instruction set the kernels use on this CPU, as a `dnnl_cpu_isa_t`
/// (AVX-512 kernels: `avx512_core`; AVX2: `avx2`; otherwise `sse41`).
#[no_mangle]
pub unsafe extern "C" fn dnnl_get_effective_cpu_isa() -> dnnl_cpu_isa_t {
    ffi_guard!(sentinel = dnnl_cpu_isa_all, {
        match crate::core::simd::isa() {
            crate::core::simd::Isa::Avx512 => dnnl_cpu_isa_avx512_core,
            crate::core::simd::Isa::Avx2 => dnnl_cpu_isa_avx2,
            // the dnnl_cpu_isa_t values name x86 ISAs only: other CPUs report "all"
            crate::core::simd::Isa::Neon => dnnl_cpu_isa_all,
            crate::core::simd::Isa::Base if !cfg!(target_arch = "x86_64") => dnnl_cpu_isa_all,
            crate::core::simd::Isa::Base => dnnl_cpu_isa_sse41,
        }
    })
}

pub(crate) fn name_or(
    v: c_int,
    table: &[(c_int, &'static CStr)],
    unknown: &'static CStr,
) -> *const c_char {
    table
        .iter()
        .find(|(k, _)| *k == v)
        .map_or(unknown.as_ptr(), |(_, n)| n.as_ptr())
}

/// Name of a status value.
#[no_mangle]
#[cfg_attr(resample_dnnl3, export_name = "resample_onednn26_dnnl_status2str")]
pub unsafe extern "C" fn dnnl_status2str(v: dnnl_status_t) -> *const c_char {
    name_or(
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
        c"unknown status",
    )
}

/// Name of a data type.
#[no_mangle]
#[cfg_attr(resample_dnnl3, export_name = "resample_onednn26_dnnl_dt2str")]
pub unsafe extern "C" fn dnnl_dt2str(v: dnnl_data_type_t) -> *const c_char {
    name_or(
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
        c"unknown dt",
    )
}

/// Name of a format kind.
#[no_mangle]
#[cfg_attr(resample_dnnl3, export_name = "resample_onednn26_dnnl_fmt_kind2str")]
pub unsafe extern "C" fn dnnl_fmt_kind2str(v: dnnl_format_kind_t) -> *const c_char {
    name_or(
        v,
        &[
            (dnnl_format_kind_undef, c"undef"),
            (dnnl_format_kind_any, c"any"),
            (dnnl_blocked, c"blocked"),
            (dnnl_format_kind_wino, c"wino"),
            (dnnl_format_kind_rnn_packed, c"rnn_packed"),
        ],
        c"unknown fmt_kind",
    )
}

/// Name of a propagation kind.
#[no_mangle]
pub unsafe extern "C" fn dnnl_prop_kind2str(v: dnnl_prop_kind_t) -> *const c_char {
    name_or(
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
        c"unknown prop_kind",
    )
}

/// Name of a primitive kind.
#[no_mangle]
#[cfg_attr(resample_dnnl3, export_name = "resample_onednn26_dnnl_prim_kind2str")]
pub unsafe extern "C" fn dnnl_prim_kind2str(v: dnnl_primitive_kind_t) -> *const c_char {
    name_or(
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
            (dnnl_primitive_kind_max, c"primitive_kind_max"),
        ],
        c"unknown prim_kind",
    )
}

/// Name of an engine kind.
#[no_mangle]
pub unsafe extern "C" fn dnnl_engine_kind2str(v: dnnl_engine_kind_t) -> *const c_char {
    name_or(
        v,
        &[
            (dnnl_any_engine, c"any"),
            (dnnl_cpu, c"cpu"),
            (dnnl_gpu, c"gpu"),
        ],
        c"unknown engine_kind",
    )
}

/// Name of a floating-point math mode.
#[no_mangle]
#[cfg_attr(resample_dnnl3, export_name = "resample_onednn26_dnnl_fpmath_mode2str")]
pub unsafe extern "C" fn dnnl_fpmath_mode2str(v: dnnl_fpmath_mode_t) -> *const c_char {
    name_or(
        v,
        &[
            (dnnl_fpmath_mode_strict, c"fpmath_mode_strict"),
            (dnnl_fpmath_mode_bf16, c"fpmath_mode_bf16"),
            (dnnl_fpmath_mode_f16, c"fpmath_mode_f16"),
            (dnnl_fpmath_mode_any, c"any"),
        ],
        c"unknown fpmath_mode",
    )
}

/// Name of a scratchpad mode.
#[no_mangle]
pub unsafe extern "C" fn dnnl_scratchpad_mode2str(v: dnnl_scratchpad_mode_t) -> *const c_char {
    name_or(
        v,
        &[
            (dnnl_scratchpad_mode_library, c"library"),
            (dnnl_scratchpad_mode_user, c"user"),
        ],
        c"unknown scratchpad_mode",
    )
}

/// Name of a CPU instruction set.
#[no_mangle]
#[cfg_attr(resample_dnnl3, export_name = "resample_onednn26_dnnl_cpu_isa2str")]
pub unsafe extern "C" fn dnnl_cpu_isa2str(v: dnnl_cpu_isa_t) -> *const c_char {
    name_or(
        v,
        &[
            (dnnl_cpu_isa_all, c"cpu_isa_all"),
            (dnnl_cpu_isa_sse41, c"cpu_isa_sse41"),
            (dnnl_cpu_isa_avx, c"cpu_isa_avx"),
            (dnnl_cpu_isa_avx2, c"cpu_isa_avx2"),
            (dnnl_cpu_isa_avx512_mic, c"cpu_isa_avx512_mic"),
            (dnnl_cpu_isa_avx512_mic_4ops, c"cpu_isa_avx512_mic_4ops"),
            (dnnl_cpu_isa_avx512_core, c"cpu_isa_avx512_core"),
            (dnnl_cpu_isa_avx512_core_vnni, c"cpu_isa_avx512_core_vnni"),
            (dnnl_cpu_isa_avx512_core_bf16, c"cpu_isa_avx512_core_bf16"),
            (dnnl_cpu_isa_avx512_core_amx, c"cpu_isa_avx512_core_amx"),
            (dnnl_cpu_isa_avx2_vnni, c"cpu_isa_avx2_vnni"),
        ],
        c"unknown cpu_isa",
    )
}

/// Name of a CPU instruction-set hint.
#[no_mangle]
pub unsafe extern "C" fn dnnl_cpu_isa_hints2str(v: dnnl_cpu_isa_hints_t) -> *const c_char {
    name_or(
        v,
        &[
            (dnnl_cpu_isa_no_hints, c"cpu_isa_no_hints"),
            (dnnl_cpu_isa_prefer_ymm, c"cpu_isa_prefer_ymm"),
        ],
        c"unknown cpu_isa_hints",
    )
}

/// Name of RNN flags.
#[no_mangle]
pub unsafe extern "C" fn dnnl_rnn_flags2str(v: dnnl_rnn_flags_t) -> *const c_char {
    name_or(v, &[(dnnl_rnn_flags_undef, c"undef")], c"unknown rnn_flags")
}

/// Name of an RNN direction.
#[no_mangle]
pub unsafe extern "C" fn dnnl_rnn_direction2str(v: dnnl_rnn_direction_t) -> *const c_char {
    name_or(
        v,
        &[
            (dnnl_unidirectional_left2right, c"unidirectional_left2right"),
            (dnnl_unidirectional_right2left, c"unidirectional_right2left"),
            (dnnl_bidirectional_concat, c"bidirectional_concat"),
            (dnnl_bidirectional_sum, c"bidirectional_sum"),
        ],
        c"unknown rnn_direction",
    )
}

/// Name of a CPU threading runtime (`DNNL_RUNTIME_*`).
#[no_mangle]
pub unsafe extern "C" fn dnnl_runtime2str(v: c_uint) -> *const c_char {
    let t: &[(c_int, &CStr)] = &[
        (DNNL_RUNTIME_NONE as c_int, c"none"),
        (DNNL_RUNTIME_SEQ as c_int, c"sequential"),
        (DNNL_RUNTIME_OMP as c_int, c"OpenMP"),
        (DNNL_RUNTIME_TBB as c_int, c"TBB"),
        (DNNL_RUNTIME_THREADPOOL as c_int, c"threadpool"),
        (DNNL_RUNTIME_OCL as c_int, c"OpenCL"),
    ];
    match c_int::try_from(v) {
        Ok(v) => name_or(v, t, c"unknown"),
        Err(_) => c"unknown".as_ptr(),
    }
}

/// Name of a format tag (its canonical letter form, e.g. "aBcd16b" for nChw16c).
#[no_mangle]
#[cfg_attr(resample_dnnl3, export_name = "resample_onednn26_dnnl_fmt_tag2str")]
pub unsafe extern "C" fn dnnl_fmt_tag2str(v: dnnl_format_tag_t) -> *const c_char {
    if super::dnnl1::is_v1_tag_last(v) {
        return c"format_tag_last".as_ptr();
    }
    let v = super::dnnl1::tag_in(v);
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
        Ok(i) if i == FORMAT_TAG_LAST as usize => c"format_tag_last".as_ptr(),
        _ => c"unknown fmt_tag".as_ptr(),
    }
}

/// Name of an algorithm kind (every 2.6.3 algorithm; "unknown alg_kind" otherwise).
#[no_mangle]
#[cfg_attr(resample_dnnl3, export_name = "resample_onednn26_dnnl_alg_kind2str")]
pub unsafe extern "C" fn dnnl_alg_kind2str(v: dnnl_alg_kind_t) -> *const c_char {
    name_or(v, ALG_NAMES, c"unknown alg_kind")
}

/// Every algorithm name of libdnnl 2.6.3's `dnnl_alg_kind2str`.
const ALG_NAMES: &[(c_int, &CStr)] = &[
    (0x0, c"undef"),
    (0x1, c"convolution_direct"),
    (0x2, c"convolution_winograd"),
    (0x3, c"convolution_auto"),
    (0xa, c"deconvolution_direct"),
    (0xb, c"deconvolution_winograd"),
    (0x10, c"eltwise_clip_v2"),
    (0x1f, c"eltwise_relu"),
    (0x20, c"eltwise_pow"),
    (0x2f, c"eltwise_tanh"),
    (0x30, c"eltwise_gelu_erf"),
    (0x3f, c"eltwise_elu"),
    (0x40, c"eltwise_round"),
    (0x4f, c"eltwise_square"),
    (0x50, c"eltwise_logsigmoid"),
    (0x5f, c"eltwise_abs"),
    (0x60, c"eltwise_mish"),
    (0x6f, c"eltwise_sqrt"),
    (0x70, c"eltwise_hardswish"),
    (0x7f, c"eltwise_linear"),
    (0x8f, c"eltwise_bounded_relu"),
    (0x9f, c"eltwise_soft_relu"),
    (0xaf, c"eltwise_logistic"),
    (0xbf, c"eltwise_exp"),
    (0xcf, c"eltwise_gelu_tanh"),
    (0xdf, c"eltwise_swish"),
    (0xef, c"eltwise_log"),
    (0xff, c"eltwise_clip"),
    (0x100, c"eltwise_relu_use_dst_for_bwd"),
    (0x101, c"eltwise_tanh_use_dst_for_bwd"),
    (0x102, c"eltwise_elu_use_dst_for_bwd"),
    (0x103, c"eltwise_sqrt_use_dst_for_bwd"),
    (0x104, c"eltwise_logistic_use_dst_for_bwd"),
    (0x105, c"eltwise_exp_use_dst_for_bwd"),
    (0x106, c"eltwise_clip_v2_use_dst_for_bwd"),
    (0x1ff, c"pooling_max"),
    (0x2ff, c"pooling_avg_include_padding"),
    (0x3ff, c"pooling_avg_exclude_padding"),
    (0xaff, c"lrn_across_channels"),
    (0xbff, c"lrn_within_channel"),
    (0x1fff, c"vanilla_rnn"),
    (0x2fff, c"vanilla_lstm"),
    (0x3fff, c"vanilla_gru"),
    (0x4fff, c"lbr_gru"),
    (0x5fff, c"vanilla_augru"),
    (0x6fff, c"lbr_augru"),
    (0x1fff0, c"binary_add"),
    (0x1fff1, c"binary_mul"),
    (0x1fff2, c"binary_max"),
    (0x1fff3, c"binary_min"),
    (0x1fff4, c"binary_div"),
    (0x1fff5, c"binary_sub"),
    (0x1fff6, c"binary_ge"),
    (0x1fff7, c"binary_gt"),
    (0x1fff8, c"binary_le"),
    (0x1fff9, c"binary_lt"),
    (0x1fffa, c"binary_eq"),
    (0x1fffb, c"binary_ne"),
    (0x2fff0, c"resampling_nearest"),
    (0x2fff1, c"resampling_linear"),
    (0x2fff2, c"reduction_max"),
    (0x2fff3, c"reduction_min"),
    (0x2fff4, c"reduction_sum"),
    (0x2fff5, c"reduction_mul"),
    (0x2fff6, c"reduction_mean"),
    (0x2fff7, c"reduction_norm_lp_max"),
    (0x2fff8, c"reduction_norm_lp_sum"),
    (0x2fff9, c"reduction_norm_lp_power_p_max"),
    (0x2fffa, c"reduction_norm_lp_power_p_sum"),
    (0x30000, c"softmax_accurate"),
    (0x30001, c"softmax_log"),
];
