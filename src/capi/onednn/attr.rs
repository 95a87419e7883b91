//! Primitive attributes (`dnnl_primitive_attr_t`): scratchpad and fpmath modes, the post-op
//! chain, output scales, per-argument scales and zero points, and the RNN quantization
//! parameters. Every setter stores its value with oneDNN 2.6.3's argument checks; the
//! resampling pd then accepts the scratchpad and fpmath modes and a forward post-op chain,
//! and refuses any other non-default value with `dnnl_unimplemented`, as libdnnl does.

use std::ffi::c_int;

use super::postops::{const_dnnl_post_ops_t, dnnl_post_ops, post_ops_ref, OwnedPostOps};
use super::registry::{self, Kind};
use super::translate::Refusal;
use super::types::*;
use super::{refuse, verbose_refuse};

/// Bit pattern of `DNNL_RUNTIME_F32_VAL` (a quiet NaN).
pub(crate) const RUNTIME_F32_BITS: u32 = 0x7fc0_00d0;

/// A scaling-factor (or zero-point) array: `count` values, `mask` over the dims.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Quant<T> {
    pub count: dnnl_dim_t,
    pub mask: c_int,
    pub values: Vec<T>,
}

impl<T: Copy + PartialEq> Quant<T> {
    fn new(v: T) -> Self {
        Quant {
            count: 1,
            mask: 0,
            values: vec![v],
        }
    }
    fn is(&self, v: T) -> bool {
        self.count == 1 && self.mask == 0 && self.values.len() == 1 && self.values[0] == v
    }
}

/// Reads `count` values (one when the first is a runtime placeholder).
unsafe fn read_quant<T: Copy>(
    count: dnnl_dim_t,
    mask: c_int,
    values: *const T,
    runtime: impl Fn(&T) -> bool,
) -> Result<Quant<T>, dnnl_status_t> {
    // SAFETY: pointer arguments are valid as oneDNN's C API documents (the C caller's contract,
    // passed on by the exported function); handles are resolved through the registry.
    unsafe {
        if count <= 0 || mask < 0 || values.is_null() {
            return Err(dnnl_invalid_arguments);
        }
        let n = if runtime(&*values) { 1 } else { count as usize };
        let mut v: Vec<T> = Vec::new();
        v.try_reserve_exact(n).map_err(|_| dnnl_out_of_memory)?;
        v.extend_from_slice(std::slice::from_raw_parts(values, n));
        Ok(Quant {
            count,
            mask,
            values: v,
        })
    }
}

/// Primitive attributes.
#[derive(Clone)]
pub struct dnnl_primitive_attr {
    pub(crate) scratchpad_mode: dnnl_scratchpad_mode_t,
    pub(crate) fpmath_mode: dnnl_fpmath_mode_t,
    pub(crate) post_ops: OwnedPostOps,
    pub(crate) output_scales: Quant<f32>,
    /// Per-argument scales (`DNNL_ARG_SRC_0` / `_1`), in setting order.
    pub(crate) scales: Vec<(c_int, Quant<f32>)>,
    /// Per-argument zero points (`DNNL_ARG_SRC` / `_WEIGHTS` / `_DST`).
    pub(crate) zero_points: Vec<(c_int, Quant<i32>)>,
    pub(crate) rnn_data_qparams: (f32, f32),
    pub(crate) rnn_weights_qparams: Quant<f32>,
    pub(crate) rnn_weights_projection_qparams: Quant<f32>,
}
pub type dnnl_primitive_attr_t = *mut dnnl_primitive_attr;
pub type const_dnnl_primitive_attr_t = *const dnnl_primitive_attr;

impl Default for dnnl_primitive_attr {
    fn default() -> Self {
        dnnl_primitive_attr {
            scratchpad_mode: dnnl_scratchpad_mode_library,
            fpmath_mode: dnnl_fpmath_mode_strict,
            post_ops: OwnedPostOps::default(),
            output_scales: Quant::new(1.0),
            scales: Vec::new(),
            zero_points: Vec::new(),
            rnn_data_qparams: (1.0, 0.0),
            rnn_weights_qparams: Quant::new(1.0),
            rnn_weights_projection_qparams: Quant::new(1.0),
        }
    }
}

impl dnnl_primitive_attr {
    pub(crate) fn post_ops(&self) -> &dnnl_post_ops {
        self.post_ops.get()
    }

    /// What a resampling pd cannot honour (oneDNN 2.6.3: only post-ops, forward only; the
    /// scratchpad and fpmath modes are accepted either way).
    pub(crate) fn check_resampling(&self, forward: bool) -> Result<(), Refusal> {
        let unimpl = |m: &str| Err((dnnl_unimplemented, m.to_string()));
        if !self.output_scales.is(1.0) {
            return unimpl("attr: output scales are not supported by resampling");
        }
        if self.scales.iter().any(|(_, q)| !q.is(1.0)) {
            return unimpl("attr: argument scales are not supported by resampling");
        }
        if self.zero_points.iter().any(|(_, q)| !q.is(0)) {
            return unimpl("attr: zero points are not supported by resampling");
        }
        if self.rnn_data_qparams != (1.0, 0.0)
            || !self.rnn_weights_qparams.is(1.0)
            || !self.rnn_weights_projection_qparams.is(1.0)
        {
            return unimpl("attr: RNN quantization parameters are not supported by resampling");
        }
        if !forward && !self.post_ops().entries.is_empty() {
            return unimpl("attr: post-ops are supported on forward resampling only");
        }
        Ok(())
    }
}

/// An attribute set the user owns (mutable) or one a pd owns (read-only).
pub(crate) unsafe fn attr_ref<'a>(
    a: *const dnnl_primitive_attr,
) -> Option<&'a dnnl_primitive_attr> {
    // SAFETY: `registry::get` dereferences only pointers it finds live.
    unsafe { registry::get(a, Kind::Attr).or_else(|| registry::get(a, Kind::PdAttr)) }
}

/// An attribute set the user owns.
pub(crate) unsafe fn attr_mut<'a>(
    a: *mut dnnl_primitive_attr,
) -> Option<&'a mut dnnl_primitive_attr> {
    // SAFETY: the handle is live (checked in the registry) and owned by the C caller, whom the API
    // makes its only user.
    unsafe {
        registry::get(a, Kind::Attr)?;
        Some(&mut *a)
    }
}

/// Creates a default attribute set.
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_attr_create(
    attr: *mut dnnl_primitive_attr_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if attr.is_null() {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_create: attr is NULL",
                );
            }
            attr.write(registry::register(
                dnnl_primitive_attr::default(),
                Kind::Attr,
            ));
            dnnl_success
        })
    }
}

/// Clones an attribute set (a deep copy, post-ops included).
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_attr_clone(
    attr: *mut dnnl_primitive_attr_t,
    existing_attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (Some(a), false) = (attr_ref(existing_attr), attr.is_null()) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_clone: bad attr or NULL result",
                );
            };
            attr.write(registry::register(a.clone(), Kind::Attr));
            dnnl_success
        })
    }
}

/// Destroys an attribute set (NULL is accepted). Attributes owned by a primitive
/// descriptor are refused.
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_attr_destroy(attr: dnnl_primitive_attr_t) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if attr.is_null() {
                return dnnl_success;
            }
            match registry::unregister(attr, Kind::Attr) {
                Some(_) => dnnl_success,
                None => refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_destroy: not a live attr",
                ),
            }
        })
    }
}

/// Returns the scratchpad mode of an attribute set.
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_attr_get_scratchpad_mode(
    attr: const_dnnl_primitive_attr_t,
    mode: *mut dnnl_scratchpad_mode_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (Some(a), false) = (attr_ref(attr), mode.is_null()) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_get_scratchpad_mode: bad attr or NULL result",
                );
            };
            mode.write(a.scratchpad_mode);
            dnnl_success
        })
    }
}

/// Sets the scratchpad mode (library or user; resampling needs no scratchpad either way).
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_attr_set_scratchpad_mode(
    attr: dnnl_primitive_attr_t,
    mode: dnnl_scratchpad_mode_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            match attr_mut(attr) {
                Some(a)
                    if (dnnl_scratchpad_mode_library..=dnnl_scratchpad_mode_user)
                        .contains(&mode) =>
                {
                    a.scratchpad_mode = mode;
                    dnnl_success
                }
                _ => refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_set_scratchpad_mode: bad attr or mode",
                ),
            }
        })
    }
}

/// Returns the floating-point math mode of an attribute set.
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_attr_get_fpmath_mode(
    attr: const_dnnl_primitive_attr_t,
    mode: *mut dnnl_fpmath_mode_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (Some(a), false) = (attr_ref(attr), mode.is_null()) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_get_fpmath_mode: bad attr or NULL result",
                );
            };
            mode.write(a.fpmath_mode);
            dnnl_success
        })
    }
}

/// Sets the floating-point math mode (resampling computes in f32 whatever the mode).
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_attr_set_fpmath_mode(
    attr: dnnl_primitive_attr_t,
    mode: dnnl_fpmath_mode_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            match attr_mut(attr) {
                Some(a) if (dnnl_fpmath_mode_strict..=dnnl_fpmath_mode_any).contains(&mode) => {
                    a.fpmath_mode = mode;
                    dnnl_success
                }
                _ => refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_set_fpmath_mode: bad attr or mode",
                ),
            }
        })
    }
}

/// The post-op chain of an attribute set (owned by it; valid while it lives).
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_attr_get_post_ops(
    attr: const_dnnl_primitive_attr_t,
    post_ops: *mut const_dnnl_post_ops_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (Some(a), false) = (attr_ref(attr), post_ops.is_null()) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_get_post_ops: bad attr or NULL result",
                );
            };
            post_ops.write(a.post_ops.handle());
            dnnl_success
        })
    }
}

/// Sets the post-op chain (copied: the caller's chain may be destroyed afterwards).
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_attr_set_post_ops(
    attr: dnnl_primitive_attr_t,
    post_ops: const_dnnl_post_ops_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let Some(po) = post_ops_ref(post_ops).cloned() else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_set_post_ops: bad post-op chain",
                );
            };
            match attr_mut(attr) {
                Some(a) => {
                    a.post_ops.set(po);
                    dnnl_success
                }
                None => refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_set_post_ops: bad attr",
                ),
            }
        })
    }
}

unsafe fn write_quant<T>(
    q: &Quant<T>,
    count: *mut dnnl_dim_t,
    mask: *mut c_int,
    values: *mut *const T,
) {
    // SAFETY: pointer arguments are valid as oneDNN's C API documents (the C caller's contract,
    // passed on by the exported function); handles are resolved through the registry.
    unsafe {
        if !count.is_null() {
            count.write(q.count);
        }
        if !mask.is_null() {
            mask.write(q.mask);
        }
        if !values.is_null() {
            values.write(q.values.as_ptr());
        }
    }
}

/// Output scales of an attribute set (pointer valid while it lives and is not changed).
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_primitive_attr_get_output_scales"
)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_output_scales(
    attr: const_dnnl_primitive_attr_t,
    count: *mut dnnl_dim_t,
    mask: *mut c_int,
    scales: *mut *const f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let Some(a) = attr_ref(attr) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_get_output_scales: bad attr",
                );
            };
            write_quant(&a.output_scales, count, mask, scales);
            dnnl_success
        })
    }
}

fn is_runtime_f32(v: &f32) -> bool {
    v.to_bits() == RUNTIME_F32_BITS
}

/// Sets output scales (stored; a resampling pd with non-default scales is unimplemented).
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_primitive_attr_set_output_scales"
)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_output_scales(
    attr: dnnl_primitive_attr_t,
    count: dnnl_dim_t,
    mask: c_int,
    scales: *const f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let Some(a) = attr_mut(attr) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_set_output_scales: bad attr",
                );
            };
            match read_quant(count, mask, scales, is_runtime_f32) {
            Ok(q) => {
                a.output_scales = q;
                dnnl_success
            }
            Err(s) => refuse(
                s,
                "primitive_attr_set_output_scales: count must be > 0, mask >= 0, scales non-NULL",
            ),
        }
        })
    }
}

fn scales_arg_ok(arg: c_int) -> bool {
    arg == DNNL_ARG_SRC_0 || arg == DNNL_ARG_SRC_1
}

/// Scales of one argument (`DNNL_ARG_SRC_0` or `DNNL_ARG_SRC_1`).
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_primitive_attr_get_scales"
)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_scales(
    attr: dnnl_primitive_attr_t,
    arg: c_int,
    count: *mut dnnl_dim_t,
    mask: *mut c_int,
    scales: *mut *const f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let Some(a) = attr_ref(attr) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_get_scales: bad attr",
                );
            };
            if !scales_arg_ok(arg) {
                return verbose_refuse(
                    dnnl_invalid_arguments,
                    format_args!("primitive_attr_get_scales: argument {arg} takes no scales"),
                );
            }
            static DEFAULT: std::sync::OnceLock<DefaultScales> = std::sync::OnceLock::new();
            let def = &DEFAULT
                .get_or_init(|| DefaultScales(Quant::new(1.0), Quant::new(0)))
                .0;
            let q = a
                .scales
                .iter()
                .find(|(k, _)| *k == arg)
                .map_or(def, |(_, q)| q);
            write_quant(q, count, mask, scales);
            dnnl_success
        })
    }
}

struct DefaultScales(Quant<f32>, Quant<i32>);

/// Sets the scales of one argument (stored; a resampling pd with them is unimplemented).
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_primitive_attr_set_scales"
)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_scales(
    attr: dnnl_primitive_attr_t,
    arg: c_int,
    count: dnnl_dim_t,
    mask: c_int,
    scales: *const f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let Some(a) = attr_mut(attr) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_set_scales: bad attr",
                );
            };
            if !scales_arg_ok(arg) {
                return verbose_refuse(
                    dnnl_invalid_arguments,
                    format_args!("primitive_attr_set_scales: argument {arg} takes no scales"),
                );
            }
            match read_quant(count, mask, scales, is_runtime_f32) {
                Ok(q) => {
                    a.scales.retain(|(k, _)| *k != arg);
                    a.scales.push((arg, q));
                    dnnl_success
                }
                Err(s) => refuse(s, "primitive_attr_set_scales: bad count, mask or scales"),
            }
        })
    }
}

/// Zero points of one argument (the default single 0 when none were set).
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_primitive_attr_get_zero_points"
)]
pub unsafe extern "C" fn dnnl_primitive_attr_get_zero_points(
    attr: const_dnnl_primitive_attr_t,
    arg: c_int,
    count: *mut dnnl_dim_t,
    mask: *mut c_int,
    zero_points: *mut *const i32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let Some(a) = attr_ref(attr) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_get_zero_points: bad attr",
                );
            };
            static DEFAULT: std::sync::OnceLock<DefaultScales> = std::sync::OnceLock::new();
            let def = &DEFAULT
                .get_or_init(|| DefaultScales(Quant::new(1.0), Quant::new(0)))
                .1;
            let q = a
                .zero_points
                .iter()
                .find(|(k, _)| *k == arg)
                .map_or(def, |(_, q)| q);
            write_quant(q, count, mask, zero_points);
            dnnl_success
        })
    }
}

/// Sets the zero points of `DNNL_ARG_SRC`, `_WEIGHTS` or `_DST` (stored; a resampling pd
/// with non-zero values is unimplemented).
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_primitive_attr_set_zero_points"
)]
pub unsafe extern "C" fn dnnl_primitive_attr_set_zero_points(
    attr: dnnl_primitive_attr_t,
    arg: c_int,
    count: dnnl_dim_t,
    mask: c_int,
    zero_points: *const i32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let Some(a) = attr_mut(attr) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_set_zero_points: bad attr",
                );
            };
            if ![DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST].contains(&arg) {
                // libdnnl 2.6.3 answers unimplemented for the other arguments.
                return verbose_refuse(
                    dnnl_unimplemented,
                    format_args!(
                        "primitive_attr_set_zero_points: argument {arg} takes no zero points"
                    ),
                );
            }
            match read_quant(count, mask, zero_points, |v| *v == i32::MIN) {
                Ok(q) => {
                    a.zero_points.retain(|(k, _)| *k != arg);
                    a.zero_points.push((arg, q));
                    dnnl_success
                }
                Err(s) => refuse(
                    s,
                    "primitive_attr_set_zero_points: bad count, mask or zero points",
                ),
            }
        })
    }
}

/// Sets the RNN data quantization parameters (stored; resampling refuses non-defaults).
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_attr_set_rnn_data_qparams(
    attr: dnnl_primitive_attr_t,
    scale: f32,
    shift: f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            match attr_mut(attr) {
                Some(a) => {
                    a.rnn_data_qparams = (scale, shift);
                    dnnl_success
                }
                None => refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_set_rnn_data_qparams: bad attr",
                ),
            }
        })
    }
}

/// RNN data quantization parameters.
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_attr_get_rnn_data_qparams(
    attr: const_dnnl_primitive_attr_t,
    scale: *mut f32,
    shift: *mut f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let Some(a) = attr_ref(attr) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_get_rnn_data_qparams: bad attr",
                );
            };
            if !scale.is_null() {
                scale.write(a.rnn_data_qparams.0);
            }
            if !shift.is_null() {
                shift.write(a.rnn_data_qparams.1);
            }
            dnnl_success
        })
    }
}

unsafe fn set_rnn_quant(
    attr: dnnl_primitive_attr_t,
    count: dnnl_dim_t,
    mask: c_int,
    scales: *const f32,
    projection: bool,
) -> dnnl_status_t {
    // SAFETY: pointer arguments are valid as oneDNN's C API documents (the C caller's contract,
    // passed on by the exported function); handles are resolved through the registry.
    unsafe {
        let Some(a) = attr_mut(attr) else {
            return refuse(
                dnnl_invalid_arguments,
                "primitive_attr_set_rnn_weights_qparams: bad attr",
            );
        };
        match read_quant(count, mask, scales, is_runtime_f32) {
            Ok(q) => {
                if projection {
                    a.rnn_weights_projection_qparams = q;
                } else {
                    a.rnn_weights_qparams = q;
                }
                dnnl_success
            }
            Err(s) => refuse(
                s,
                "primitive_attr_set_rnn_weights_qparams: bad count, mask or scales",
            ),
        }
    }
}

/// Sets the RNN weights quantization scales (stored; resampling refuses non-defaults).
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_attr_set_rnn_weights_qparams(
    attr: dnnl_primitive_attr_t,
    count: dnnl_dim_t,
    mask: c_int,
    scales: *const f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe { onednn_guard!({ set_rnn_quant(attr, count, mask, scales, false) }) }
}

/// RNN weights quantization scales.
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_attr_get_rnn_weights_qparams(
    attr: const_dnnl_primitive_attr_t,
    count: *mut dnnl_dim_t,
    mask: *mut c_int,
    scales: *mut *const f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let Some(a) = attr_ref(attr) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_get_rnn_weights_qparams: bad attr",
                );
            };
            write_quant(&a.rnn_weights_qparams, count, mask, scales);
            dnnl_success
        })
    }
}

/// Sets the RNN weights-projection quantization scales (stored; resampling refuses
/// non-defaults).
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_attr_set_rnn_weights_projection_qparams(
    attr: dnnl_primitive_attr_t,
    count: dnnl_dim_t,
    mask: c_int,
    scales: *const f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe { onednn_guard!({ set_rnn_quant(attr, count, mask, scales, true) }) }
}

/// RNN weights-projection quantization scales.
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_attr_get_rnn_weights_projection_qparams(
    attr: const_dnnl_primitive_attr_t,
    count: *mut dnnl_dim_t,
    mask: *mut c_int,
    scales: *mut *const f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let Some(a) = attr_ref(attr) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_attr_get_rnn_weights_projection_qparams: bad attr",
                );
            };
            write_quant(&a.rnn_weights_projection_qparams, count, mask, scales);
            dnnl_success
        })
    }
}
