//! `dnnl_resampling_forward_desc_init` / `dnnl_resampling_backward_desc_init`, with the
//! argument rules, dst-from-factors sizes and recomputed factors of oneDNN 2.6.3.

use super::format_tags::dnnl_format_tag_any;
use super::md::{has_runtime_dims_or_strides, md_by_tag};
use super::refuse;
use super::types::*;

/// oneDNN 2.6.3 `resampling_desc_init`.
unsafe fn desc_init(
    rd_out: *mut dnnl_resampling_desc_t,
    prop_kind: dnnl_prop_kind_t,
    alg_kind: dnnl_alg_kind_t,
    factors: *const f32,
    src_desc: *const dnnl_memory_desc_t,
    dst_desc: *const dnnl_memory_desc_t,
) -> dnnl_status_t {
    // SAFETY: pointer arguments are valid as oneDNN's C API documents (the C caller's contract,
    // passed on by the exported function); handles are resolved through the registry.
    unsafe {
        if rd_out.is_null() {
            return refuse(
                dnnl_invalid_arguments,
                "resampling desc init: resampling_desc is NULL",
            );
        }
        if alg_kind != dnnl_resampling_nearest && alg_kind != dnnl_resampling_linear {
            return refuse(
                dnnl_invalid_arguments,
                "resampling desc init: algorithm is not resampling_nearest/linear",
            );
        }
        if src_desc.is_null() || (dst_desc.is_null() && factors.is_null()) {
            return refuse(
                dnnl_invalid_arguments,
                "resampling desc init: src is NULL, or both dst and factors are",
            );
        }
        let src_md = *src_desc;
        if !(3..=5).contains(&src_md.ndims) {
            return refuse(
                dnnl_invalid_arguments,
                "resampling desc init: src must have 3, 4 or 5 dims",
            );
        }
        let forward = prop_kind == dnnl_forward_training || prop_kind == dnnl_forward_inference;
        if !forward && prop_kind != dnnl_backward_data {
            return refuse(
                dnnl_invalid_arguments,
                "resampling desc init: prop kind must be forward_training/inference",
            );
        }
        if forward && src_md.format_kind == dnnl_format_kind_any {
            return refuse(
                dnnl_invalid_arguments,
                "resampling forward desc init: src format is any",
            );
        }
        let dst_given = if dst_desc.is_null() {
            None
        } else {
            Some(*dst_desc)
        };
        if has_runtime_dims_or_strides(&src_md)
            || dst_given.as_ref().is_some_and(has_runtime_dims_or_strides)
        {
            return refuse(
                dnnl_unimplemented,
                "resampling desc init: runtime dims or strides",
            );
        }
        let nd = src_md.ndims as usize;
        let dst_md = match dst_given {
            Some(d) => d,
            None => {
                let mut dims = src_md.dims;
                let factors = std::slice::from_raw_parts(factors, nd - 2);
                for i in 2..nd {
                    // oneDNN 2.x: int64 * float is a float multiply, truncated toward zero.
                    dims[i] = (src_md.dims[i] as f32 * factors[i - 2]) as i64;
                }
                if dims[..nd].iter().any(|&d| d < 0) {
                    return refuse(
                        dnnl_invalid_arguments,
                        "resampling desc init: factors give a negative dst size",
                    );
                }
                match md_by_tag(nd, &dims, src_md.data_type, dnnl_format_tag_any) {
                    Ok(md) => md,
                    Err(s) => return s,
                }
            }
        };
        if dst_md.ndims != src_md.ndims
            || dst_md.dims[0] != src_md.dims[0]
            || dst_md.dims[1] != src_md.dims[1]
        {
            return refuse(
                dnnl_invalid_arguments,
                "resampling desc init: src and dst disagree in ndims, N or C",
            );
        }
        let mut rd = dnnl_resampling_desc_t::zero();
        rd.primitive_kind = dnnl_resampling;
        rd.prop_kind = prop_kind;
        rd.alg_kind = alg_kind;
        for i in 2..nd {
            rd.factors[i - 2] = (dst_md.dims[i] as f64 / src_md.dims[i] as f64) as f32;
        }
        if forward {
            rd.src_desc = src_md;
            rd.dst_desc = dst_md;
        } else {
            rd.diff_src_desc = src_md;
            rd.diff_dst_desc = dst_md;
        }
        rd_out.write(rd);
        dnnl_success
    }
}

/// Initializes a forward resampling descriptor. Either `dst_desc` or `factors` (one per
/// spatial dim) must be given; with only factors, dst dims are `(dim_t)(src * factor)` and
/// its format is any.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_resampling_forward_desc_init"
)]
pub unsafe extern "C" fn dnnl_resampling_forward_desc_init(
    resampling_desc: *mut dnnl_resampling_desc_t,
    prop_kind: dnnl_prop_kind_t,
    alg_kind: dnnl_alg_kind_t,
    factors: *const f32,
    src_desc: *const dnnl_memory_desc_t,
    dst_desc: *const dnnl_memory_desc_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if prop_kind != dnnl_forward_training && prop_kind != dnnl_forward_inference {
                return refuse(
                    dnnl_invalid_arguments,
                    "resampling_forward_desc_init: prop kind is not forward",
                );
            }
            desc_init(
                resampling_desc,
                prop_kind,
                alg_kind,
                factors,
                src_desc,
                dst_desc,
            )
        })
    }
}

/// Initializes a backward-data resampling descriptor (`diff_src` has the forward input
/// sizes, `diff_dst` the forward output sizes).
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_resampling_backward_desc_init"
)]
pub unsafe extern "C" fn dnnl_resampling_backward_desc_init(
    resampling_desc: *mut dnnl_resampling_desc_t,
    alg_kind: dnnl_alg_kind_t,
    factors: *const f32,
    diff_src_desc: *const dnnl_memory_desc_t,
    diff_dst_desc: *const dnnl_memory_desc_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            desc_init(
                resampling_desc,
                dnnl_backward_data,
                alg_kind,
                factors,
                diff_src_desc,
                diff_dst_desc,
            )
        })
    }
}
