//! 3.x post-op and attribute calls whose signatures or numbering differ from 2.6: sum
//! (scale, zero point, data type in one call), eltwise without a scale and with 3.2
//! algorithm numbers, depthwise without scales, `get_kind` in 3.2 primitive kinds, and
//! the mask-only scales / zero points (values arrive at execution). Each translates and
//! stores through the 2.6 code, so the chain and its checks are the 2.6 ones.

use std::ffi::c_int;

use super::super::attr::{attr_mut, dnnl_primitive_attr_t, Quant, RUNTIME_F32_BITS};
use super::super::postops::{self as po26, const_dnnl_post_ops_t, dnnl_post_ops_t};
use super::super::types::*;
use super::super::{refuse, verbose_refuse};
use super::numbers::*;

/// Appends `dst = scale * (dst_old - zero_point) + dst` (`data_type` undef: dst's).
#[no_mangle]
pub unsafe extern "C" fn dnnl_post_ops_append_sum(
    post_ops: dnnl_post_ops_t,
    scale: f32,
    zero_point: i32,
    data_type: dnnl_data_type_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({ po26::dnnl_post_ops_append_sum_v3(post_ops, scale, zero_point, data_type) })
    }
}

/// Parameters of a sum post-op.
#[no_mangle]
pub unsafe extern "C" fn dnnl_post_ops_get_params_sum(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    scale: *mut f32,
    zero_point: *mut i32,
    data_type: *mut dnnl_data_type_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            po26::dnnl_post_ops_get_params_sum_v3(post_ops, index, scale, zero_point, data_type)
        })
    }
}

/// Appends `dst = f(dst, alpha, beta)` for a 3.2 eltwise algorithm.
#[no_mangle]
pub unsafe extern "C" fn dnnl_post_ops_append_eltwise(
    post_ops: dnnl_post_ops_t,
    alg_kind: dnnl_alg_kind_t,
    alpha: f32,
    beta: f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let Some(alg) = eltwise_in(alg_kind) else {
                return verbose_refuse(
                    dnnl_invalid_arguments,
                    format_args!(
                        "post_ops_append_eltwise: {alg_kind} is not a 3.2 eltwise algorithm"
                    ),
                );
            };
            po26::dnnl_post_ops_append_eltwise(post_ops, 1.0, alg, alpha, beta)
        })
    }
}

/// Parameters of an eltwise post-op (algorithm in 3.2 numbering).
#[no_mangle]
pub unsafe extern "C" fn dnnl_post_ops_get_params_eltwise(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    alg_kind: *mut dnnl_alg_kind_t,
    alpha: *mut f32,
    beta: *mut f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if alg_kind.is_null() {
                return refuse(
                    dnnl_invalid_arguments,
                    "post_ops_get_params_eltwise: NULL result",
                );
            }
            let (mut scale, mut alg) = (0.0f32, 0);
            let s = po26::dnnl_post_ops_get_params_eltwise(
                post_ops, index, &mut scale, &mut alg, alpha, beta,
            );
            if s == dnnl_success {
                alg_kind.write(eltwise_out(alg));
            }
            s
        })
    }
}

/// Kind of post-op `index` (3.2 primitive kinds: sum 4, eltwise 7, binary 13, …).
#[no_mangle]
pub unsafe extern "C" fn dnnl_post_ops_get_kind(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
) -> dnnl_primitive_kind_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        ffi_guard!(sentinel = kind::UNDEF, {
            kind_out(po26::dnnl_post_ops_get_kind(post_ops, index))
        })
    }
}

/// Appends a depthwise convolution post-op (3.x: no scales; resampling refuses it).
#[no_mangle]
pub unsafe extern "C" fn dnnl_post_ops_append_dw(
    post_ops: dnnl_post_ops_t,
    weights_data_type: dnnl_data_type_t,
    bias_data_type: dnnl_data_type_t,
    dst_data_type: dnnl_data_type_t,
    kernel_size: dnnl_dim_t,
    stride_size: dnnl_dim_t,
    padding_l_size: dnnl_dim_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let one = 1.0f32;
            po26::dnnl_post_ops_append_dw(
                post_ops,
                weights_data_type,
                bias_data_type,
                dst_data_type,
                kernel_size,
                stride_size,
                padding_l_size,
                1,
                0,
                &one,
            )
        })
    }
}

/// Parameters of a depthwise post-op.
#[no_mangle]
pub unsafe extern "C" fn dnnl_post_ops_get_params_dw(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    weights_data_type: *mut dnnl_data_type_t,
    bias_data_type: *mut dnnl_data_type_t,
    dst_data_type: *mut dnnl_data_type_t,
    kernel_size: *mut dnnl_dim_t,
    stride_size: *mut dnnl_dim_t,
    padding_l_size: *mut dnnl_dim_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (mut count, mut mask, mut scales) = (0, 0, std::ptr::null());
            po26::dnnl_post_ops_get_params_dw(
                post_ops,
                index,
                weights_data_type,
                bias_data_type,
                dst_data_type,
                kernel_size,
                stride_size,
                padding_l_size,
                &mut count,
                &mut mask,
                &mut scales,
            )
        })
    }
}

/// Arguments 3.2 accepts scales for (`arg_scales_t::check_arg`): sources, weights, dst,
/// the multiple sources and the depthwise post-op's.
fn scales_arg_ok(arg: c_int) -> bool {
    matches!(
        arg,
        DNNL_ARG_SRC_0..=DNNL_ARG_SRC_3 | DNNL_ARG_DST | DNNL_ARG_WEIGHTS_0
    ) || (DNNL_ARG_MULTIPLE_SRC..DNNL_ARG_MULTIPLE_DST).contains(&arg)
        || [DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST]
            .iter()
            .any(|&a| arg == ARG_ATTR_POST_OP_DW | a)
}

/// Declares scales for `arg` (one value, or per `mask` slice, passed at execution as
/// `DNNL_ARG_ATTR_SCALES | arg`). Stored; a resampling pd then answers unimplemented.
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_attr_set_scales_mask(
    attr: dnnl_primitive_attr_t,
    arg: c_int,
    mask: c_int,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let Some(a) = attr_mut(attr) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_set_scales_mask: bad attr",
                );
            };
            if mask < 0 || !scales_arg_ok(arg) {
                return verbose_refuse(
                    dnnl_invalid_arguments,
                    format_args!(
                        "primitive_attr_set_scales_mask: bad mask {mask} or argument {arg}"
                    ),
                );
            }
            let q = Quant {
                count: 1,
                mask,
                values: vec![f32::from_bits(RUNTIME_F32_BITS)],
            };
            a.scales.retain(|(k, _)| *k != arg);
            a.scales.push((arg, q));
            dnnl_success
        })
    }
}

/// Declares zero points for `arg` (src, weights or dst; values passed at execution).
/// Stored; a resampling pd then answers unimplemented.
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_attr_set_zero_points_mask(
    attr: dnnl_primitive_attr_t,
    arg: c_int,
    mask: c_int,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let Some(a) = attr_mut(attr) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_set_zero_points_mask: bad attr",
                );
            };
            if mask < 0 || ![DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST].contains(&arg) {
                return verbose_refuse(
                    dnnl_invalid_arguments,
                    format_args!(
                        "primitive_attr_set_zero_points_mask: bad mask {mask} or argument {arg}"
                    ),
                );
            }
            let q = Quant {
                count: 1,
                mask,
                values: vec![i32::MIN],
            };
            a.zero_points.retain(|(k, _)| *k != arg);
            a.zero_points.push((arg, q));
            dnnl_success
        })
    }
}

/// A new caller-owned copy of a post-op chain (3.x; 2.6 had no clone).
#[no_mangle]
pub unsafe extern "C" fn dnnl_post_ops_clone(
    post_ops: *mut dnnl_post_ops_t,
    existing_post_ops: const_dnnl_post_ops_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (Some(p), false) = (po26::post_ops_ref(existing_post_ops), post_ops.is_null())
            else {
                return refuse(
                    dnnl_invalid_arguments,
                    "post_ops_clone: bad chain or NULL result",
                );
            };
            post_ops.write(po26::register_chain(p.clone()));
            dnnl_success
        })
    }
}
