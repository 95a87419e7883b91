//! Post-op chains (`dnnl_post_ops_t`): creation, the `append_*` / `get_params_*` calls with
//! oneDNN 2.6.3's argument checks, and the translation of a chain into core [`PostOp`]s for
//! a resampling destination (sum data type, binary src1 broadcast and `format_tag_any`).
//!
//! Entries the resampling primitive cannot run (depthwise convolution, PReLU) are stored and
//! reported like oneDNN does, and refused with `dnnl_unimplemented` at pd creation.

use std::ffi::c_int;

use crate::core::{BinaryOp, EltwiseAlg, PostOp};

use super::md::init_by_blocking_desc;
use super::registry::{self, Kind};
use super::translate::{layout_of, Refusal};
use super::types::*;
use super::{refuse, verbose_refuse};

/// One post-op of a chain.
#[derive(Clone)]
pub(crate) enum Entry {
    Sum {
        scale: f32,
        zero_point: i32,
        dt: dnnl_data_type_t,
    },
    Eltwise {
        scale: f32,
        alg: dnnl_alg_kind_t,
        alpha: f32,
        beta: f32,
    },
    /// The md is boxed so the pointer `get_params_binary` hands out stays put.
    Binary {
        alg: dnnl_alg_kind_t,
        src1: Box<dnnl_memory_desc_t>,
    },
    Dw {
        wei_dt: dnnl_data_type_t,
        bias_dt: dnnl_data_type_t,
        dst_dt: dnnl_data_type_t,
        kernel: dnnl_dim_t,
        stride: dnnl_dim_t,
        padding: dnnl_dim_t,
        mask: c_int,
        scales: Box<[f32]>,
    },
    Prelu {
        mask: c_int,
    },
}

impl Entry {
    pub(crate) fn kind(&self) -> dnnl_primitive_kind_t {
        match self {
            Entry::Sum { .. } => dnnl_sum,
            Entry::Eltwise { .. } => dnnl_eltwise,
            Entry::Binary { .. } => dnnl_binary,
            Entry::Dw { .. } => dnnl_convolution,
            Entry::Prelu { .. } => dnnl_prelu,
        }
    }
}

/// A post-op chain.
#[derive(Clone, Default)]
pub struct dnnl_post_ops {
    pub(crate) entries: Vec<Entry>,
}
pub type dnnl_post_ops_t = *mut dnnl_post_ops;
pub type const_dnnl_post_ops_t = *const dnnl_post_ops;

/// A post-op chain owned by an attribute set: registered as a read-only handle (what
/// `dnnl_primitive_attr_get_post_ops` returns), deep-copied with its attribute set.
#[derive(Debug)]
pub(crate) struct OwnedPostOps(*mut dnnl_post_ops);

// SAFETY: the pointer is owned exclusively by this object; the chain is only mutated
// through `&mut self`.
unsafe impl Send for OwnedPostOps {}
// SAFETY: as for `Sync` above.
unsafe impl Sync for OwnedPostOps {}

impl OwnedPostOps {
    pub(crate) fn new(po: dnnl_post_ops) -> Self {
        OwnedPostOps(registry::register(po, Kind::AttrPostOps))
    }
    pub(crate) fn handle(&self) -> *const dnnl_post_ops {
        self.0
    }
    pub(crate) fn get(&self) -> &dnnl_post_ops {
        // SAFETY: registered by `new`, freed only by `drop`.
        unsafe { &*self.0 }
    }
    pub(crate) fn set(&mut self, po: dnnl_post_ops) {
        // SAFETY: as `get`; `&mut self` makes this the only access.
        unsafe { *self.0 = po }
    }
}

impl Default for OwnedPostOps {
    fn default() -> Self {
        Self::new(dnnl_post_ops::default())
    }
}

impl Clone for OwnedPostOps {
    fn clone(&self) -> Self {
        Self::new(self.get().clone())
    }
}

impl Drop for OwnedPostOps {
    fn drop(&mut self) {
        // SAFETY: registered by `new`, owned by this object only.
        unsafe { drop(registry::unregister(self.0, Kind::AttrPostOps)) };
    }
}

/// A chain the caller may read: one it created or one an attribute set owns.
pub(crate) unsafe fn post_ops_ref<'a>(p: *const dnnl_post_ops) -> Option<&'a dnnl_post_ops> {
    // SAFETY: `registry::get` dereferences only pointers it finds live.
    unsafe { registry::get(p, Kind::PostOps).or_else(|| registry::get(p, Kind::AttrPostOps)) }
}

/// Registers `po` as a chain the caller owns (destroyed with `dnnl_post_ops_destroy`).
pub(crate) fn register_chain(po: dnnl_post_ops) -> dnnl_post_ops_t {
    registry::register(po, Kind::PostOps)
}

/// A chain the caller created (appendable).
unsafe fn post_ops_mut<'a>(p: *mut dnnl_post_ops) -> Option<&'a mut dnnl_post_ops> {
    // SAFETY: the handle is live (checked in the registry) and owned by the C caller, whom the API
    // makes its only user.
    unsafe {
        registry::get(p, Kind::PostOps)?;
        // SAFETY: live handle the caller owns; the C API makes it the only user.
        Some(&mut *p)
    }
}

/// True in libdnnl.so.3, whose entries may hold the `ALG_V3_*` values.
const V3: bool = cfg!(resample_dnnl3);

/// Where an eltwise entry of libdnnl.so.3 stores an algorithm whose 3.x definition has no
/// 2.6 counterpart (soft_relu gained alpha, hardswish alpha and beta; hardsigmoid is new).
/// The values are private (outside every oneDNN range); the v3 face translates them back.
pub(crate) const ALG_V3_SOFT_RELU: dnnl_alg_kind_t = -0x1039;
pub(crate) const ALG_V3_HARDSIGMOID: dnnl_alg_kind_t = -0x1040;
pub(crate) const ALG_V3_HARDSWISH: dnnl_alg_kind_t = -0x1052;

/// The eltwise algorithm of a value, with oneDNN 2.6's `is_eltwise_ok` parameter checks
/// (`_use_dst_for_bwd` variants compute the same forward function).
pub(crate) fn eltwise_alg(alg: dnnl_alg_kind_t, alpha: f32, beta: f32) -> Option<EltwiseAlg> {
    use EltwiseAlg as E;
    let (e, ok) = match alg {
        dnnl_eltwise_relu => (E::Relu, true),
        dnnl_eltwise_tanh => (E::Tanh, true),
        dnnl_eltwise_elu => (E::Elu, true),
        dnnl_eltwise_square => (E::Square, true),
        dnnl_eltwise_abs => (E::Abs, true),
        dnnl_eltwise_sqrt => (E::Sqrt, true),
        dnnl_eltwise_linear => (E::Linear, true),
        dnnl_eltwise_bounded_relu => (E::BoundedRelu, alpha >= 0.0),
        dnnl_eltwise_soft_relu => (E::SoftRelu, true),
        dnnl_eltwise_logistic => (E::Logistic, true),
        dnnl_eltwise_exp => (E::Exp, true),
        dnnl_eltwise_gelu_tanh => (E::GeluTanh, true),
        dnnl_eltwise_swish => (E::Swish, true),
        dnnl_eltwise_log => (E::Log, true),
        dnnl_eltwise_clip => (E::Clip, beta >= alpha),
        dnnl_eltwise_clip_v2 => (E::ClipV2, beta >= alpha),
        dnnl_eltwise_pow => (E::Pow, true),
        dnnl_eltwise_gelu_erf => (E::GeluErf, true),
        dnnl_eltwise_round => (E::Round, true),
        dnnl_eltwise_logsigmoid => (E::Logsigmoid, true),
        dnnl_eltwise_mish => (E::Mish, true),
        dnnl_eltwise_hardswish => (E::Hardswish, true),
        ALG_V3_SOFT_RELU if V3 => (E::SoftReluAlpha, true),
        ALG_V3_HARDSIGMOID if V3 => (E::Hardsigmoid, true),
        ALG_V3_HARDSWISH if V3 => (E::HardswishAlphaBeta, true),
        dnnl_eltwise_relu_use_dst_for_bwd => (E::Relu, alpha >= 0.0),
        dnnl_eltwise_tanh_use_dst_for_bwd => (E::Tanh, true),
        dnnl_eltwise_elu_use_dst_for_bwd => (E::Elu, alpha >= 0.0),
        dnnl_eltwise_sqrt_use_dst_for_bwd => (E::Sqrt, true),
        dnnl_eltwise_logistic_use_dst_for_bwd => (E::Logistic, true),
        dnnl_eltwise_exp_use_dst_for_bwd => (E::Exp, true),
        dnnl_eltwise_clip_v2_use_dst_for_bwd => (E::ClipV2, beta >= alpha),
        _ => return None,
    };
    ok.then_some(e)
}

pub(crate) fn binary_op(alg: dnnl_alg_kind_t) -> Option<BinaryOp> {
    use BinaryOp as B;
    Some(match alg {
        dnnl_binary_add => B::Add,
        dnnl_binary_mul => B::Mul,
        dnnl_binary_max => B::Max,
        dnnl_binary_min => B::Min,
        dnnl_binary_div => B::Div,
        dnnl_binary_sub => B::Sub,
        dnnl_binary_ge => B::Ge,
        dnnl_binary_gt => B::Gt,
        dnnl_binary_le => B::Le,
        dnnl_binary_lt => B::Lt,
        dnnl_binary_eq => B::Eq,
        dnnl_binary_ne => B::Ne,
        _ => return None,
    })
}

/// A chain translated for one resampling destination.
pub(crate) struct Translated {
    pub ops: Vec<PostOp>,
    /// Per binary post-op: its chain position and resolved src1 md (format any replaced).
    pub binaries: Vec<(usize, dnnl_memory_desc_t)>,
}

/// Checks a chain against the (resolved) dst md and translates it (oneDNN 2.6.3 rules:
/// sum data type undef or equal to dst's; binary src1 ndims equal to dst's with every dim 1
/// or equal; src1 `format_tag_any` becomes plain when it has one non-unit dim and takes
/// dst's blocking otherwise). Depthwise and PReLU entries are unimplemented.
pub(crate) fn translate(
    po: &dnnl_post_ops,
    dst: &dnnl_memory_desc_t,
) -> Result<Translated, Refusal> {
    let unimpl = |m: String| (dnnl_unimplemented, m);
    let mut ops = Vec::with_capacity(po.entries.len());
    let mut binaries = Vec::new();
    for (i, e) in po.entries.iter().enumerate() {
        match e {
            Entry::Sum {
                scale,
                zero_point,
                dt,
            } => {
                if *dt != dnnl_data_type_undef && *dt != dst.data_type {
                    return Err(unimpl(format!(
                        "post-op {i}: sum data type {dt} differs from dst data type {}",
                        dst.data_type
                    )));
                }
                ops.push(PostOp::Sum {
                    scale: *scale,
                    zero_point: *zero_point,
                });
            }
            Entry::Eltwise {
                scale,
                alg,
                alpha,
                beta,
            } => {
                let Some(a) = eltwise_alg(*alg, *alpha, *beta) else {
                    return Err(unimpl(format!("post-op {i}: eltwise algorithm {alg:#x}")));
                };
                ops.push(PostOp::Eltwise {
                    alg: a,
                    alpha: *alpha,
                    beta: *beta,
                    scale: *scale,
                });
            }
            Entry::Binary { alg, src1 } => {
                let Some(op) = binary_op(*alg) else {
                    return Err(unimpl(format!("post-op {i}: binary algorithm {alg:#x}")));
                };
                let md = resolve_src1(src1, dst)
                    .map_err(|m| unimpl(format!("post-op {i}: binary src1 {m}")))?;
                let l = layout_of(&md, &format!("post-op {i} binary src1"))?;
                ops.push(PostOp::Binary { op, src1: l });
                binaries.push((i, md));
            }
            Entry::Dw { .. } => {
                return Err(unimpl(format!(
                    "post-op {i}: depthwise convolution post-ops are not supported by resampling"
                )))
            }
            Entry::Prelu { .. } => {
                return Err(unimpl(format!(
                    "post-op {i}: prelu post-ops are not supported by resampling"
                )))
            }
        }
    }
    Ok(Translated { ops, binaries })
}

/// The src1 md with `format_tag_any` resolved against dst; refuses shapes that do not
/// broadcast to dst.
fn resolve_src1(
    src1: &dnnl_memory_desc_t,
    dst: &dnnl_memory_desc_t,
) -> Result<dnnl_memory_desc_t, String> {
    if src1.ndims != dst.ndims {
        return Err(format!("has {} dims, dst has {}", src1.ndims, dst.ndims));
    }
    let nd = dst.ndims as usize;
    for d in 0..nd {
        if src1.dims[d] != 1 && src1.dims[d] != dst.dims[d] {
            return Err(format!(
                "dim {d} is {}, must be 1 or {}",
                src1.dims[d], dst.dims[d]
            ));
        }
    }
    let mut md = *src1;
    match md.format_kind {
        dnnl_blocked => {}
        dnnl_format_kind_any => {
            let non_unit = md.dims[..nd].iter().filter(|&&x| x != 1).count();
            if non_unit == 1 {
                // Plain row-major ("1D tensors should be plain abx").
                let mut stride = 1i64;
                for d in (0..nd).rev() {
                    md.blocking_mut().strides[d] = stride;
                    stride = stride.saturating_mul(md.dims[d].max(1));
                }
                md.format_kind = dnnl_blocked;
            } else {
                init_by_blocking_desc(&mut md, dst.blocking());
            }
        }
        k => return Err(format!("has format kind {k}")),
    }
    Ok(md)
}

/// Creates an empty post-op chain.
#[no_mangle]
pub unsafe extern "C" fn dnnl_post_ops_create(post_ops: *mut dnnl_post_ops_t) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if post_ops.is_null() {
                return refuse(dnnl_invalid_arguments, "post_ops_create: post_ops is NULL");
            }
            post_ops.write(register_chain(dnnl_post_ops::default()));
            dnnl_success
        })
    }
}

/// Destroys a post-op chain (NULL is accepted; chains owned by attributes are refused).
#[no_mangle]
pub unsafe extern "C" fn dnnl_post_ops_destroy(post_ops: dnnl_post_ops_t) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if post_ops.is_null() {
                return dnnl_success;
            }
            match registry::unregister(post_ops, Kind::PostOps) {
                Some(_) => dnnl_success,
                None => refuse(
                    dnnl_invalid_arguments,
                    "post_ops_destroy: not a live post-op chain the caller owns",
                ),
            }
        })
    }
}

/// Number of post-ops in a chain (0 for NULL or a bad handle, as libdnnl 2.6.3 for NULL).
#[no_mangle]
pub unsafe extern "C" fn dnnl_post_ops_len(post_ops: const_dnnl_post_ops_t) -> c_int {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        ffi_guard!(sentinel = 0, {
            match post_ops_ref(post_ops) {
                Some(p) => p.entries.len().min(c_int::MAX as usize) as c_int,
                None => 0,
            }
        })
    }
}

/// Kind of the post-op at `index` (`dnnl_undefined_primitive` when out of range).
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_post_ops_get_kind"
)]
pub unsafe extern "C" fn dnnl_post_ops_get_kind(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
) -> dnnl_primitive_kind_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        ffi_guard!(sentinel = dnnl_undefined_primitive, {
            match entry(post_ops, index) {
                Some(e) => e.kind(),
                None => dnnl_undefined_primitive,
            }
        })
    }
}

unsafe fn entry<'a>(post_ops: const_dnnl_post_ops_t, index: c_int) -> Option<&'a Entry> {
    // SAFETY: `post_ops_ref` dereferences only live handles; the index is bounds-checked by `get`.
    unsafe {
        let p = post_ops_ref(post_ops)?;
        usize::try_from(index).ok().and_then(|i| p.entries.get(i))
    }
}

unsafe fn append(post_ops: dnnl_post_ops_t, e: Entry, what: &str) -> dnnl_status_t {
    // SAFETY: pointer arguments are valid as oneDNN's C API documents (the C caller's contract,
    // passed on by the exported function); handles are resolved through the registry.
    unsafe {
        match post_ops_mut(post_ops) {
            Some(p) => {
                if p.entries.len() >= 32 {
                    // oneDNN's post_ops_t::post_ops_limit.
                    return verbose_refuse(
                        dnnl_out_of_memory,
                        format_args!("{what}: a chain holds at most 32 post-ops"),
                    );
                }
                p.entries.push(e);
                dnnl_success
            }
            None => verbose_refuse(
                dnnl_invalid_arguments,
                format_args!("{what}: not a live post-op chain the caller owns"),
            ),
        }
    }
}

/// Appends `dst = dst_f32 + scale * dst_old` (accumulation).
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_post_ops_append_sum"
)]
pub unsafe extern "C" fn dnnl_post_ops_append_sum(
    post_ops: dnnl_post_ops_t,
    scale: f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            append(
                post_ops,
                Entry::Sum {
                    scale,
                    zero_point: 0,
                    dt: dnnl_data_type_undef,
                },
                "post_ops_append_sum",
            )
        })
    }
}

/// Appends a sum whose old dst values are read as `data_type` (undef: dst's type).
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_post_ops_append_sum_v2"
)]
pub unsafe extern "C" fn dnnl_post_ops_append_sum_v2(
    post_ops: dnnl_post_ops_t,
    scale: f32,
    data_type: dnnl_data_type_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            append(
                post_ops,
                Entry::Sum {
                    scale,
                    zero_point: 0,
                    dt: data_type,
                },
                "post_ops_append_sum_v2",
            )
        })
    }
}

/// Appends `dst = dst_f32 + scale * (dst_old - zero_point)`.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_post_ops_append_sum_v3"
)]
pub unsafe extern "C" fn dnnl_post_ops_append_sum_v3(
    post_ops: dnnl_post_ops_t,
    scale: f32,
    zero_point: i32,
    data_type: dnnl_data_type_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            append(
                post_ops,
                Entry::Sum {
                    scale,
                    zero_point,
                    dt: data_type,
                },
                "post_ops_append_sum_v3",
            )
        })
    }
}

unsafe fn sum_params(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    scale: *mut f32,
    zero_point: *mut i32,
    data_type: *mut dnnl_data_type_t,
) -> dnnl_status_t {
    // SAFETY: pointer arguments are valid as oneDNN's C API documents (the C caller's contract,
    // passed on by the exported function); handles are resolved through the registry.
    unsafe {
        let Some(Entry::Sum {
            scale: s,
            zero_point: z,
            dt,
        }) = entry(post_ops, index)
        else {
            return refuse(
                dnnl_invalid_arguments,
                "post_ops_get_params_sum: bad chain or the entry is not a sum",
            );
        };
        if scale.is_null() {
            return refuse(
                dnnl_invalid_arguments,
                "post_ops_get_params_sum: scale is NULL",
            );
        }
        scale.write(*s);
        if !zero_point.is_null() {
            zero_point.write(*z);
        }
        if !data_type.is_null() {
            data_type.write(*dt);
        }
        dnnl_success
    }
}

/// Parameters of a sum post-op.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_post_ops_get_params_sum"
)]
pub unsafe extern "C" fn dnnl_post_ops_get_params_sum(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    scale: *mut f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            sum_params(
                post_ops,
                index,
                scale,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        })
    }
}

/// Parameters of a sum post-op, with its data type.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_post_ops_get_params_sum_v2"
)]
pub unsafe extern "C" fn dnnl_post_ops_get_params_sum_v2(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    scale: *mut f32,
    data_type: *mut dnnl_data_type_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({ sum_params(post_ops, index, scale, std::ptr::null_mut(), data_type) })
    }
}

/// Parameters of a sum post-op, with its zero point and data type.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_post_ops_get_params_sum_v3"
)]
pub unsafe extern "C" fn dnnl_post_ops_get_params_sum_v3(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    scale: *mut f32,
    zero_point: *mut i32,
    data_type: *mut dnnl_data_type_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe { onednn_guard!({ sum_params(post_ops, index, scale, zero_point, data_type) }) }
}

/// Appends `dst = scale * eltwise(dst, alpha, beta)`.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_post_ops_append_eltwise"
)]
pub unsafe extern "C" fn dnnl_post_ops_append_eltwise(
    post_ops: dnnl_post_ops_t,
    scale: f32,
    alg_kind: dnnl_alg_kind_t,
    alpha: f32,
    beta: f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if eltwise_alg(alg_kind, alpha, beta).is_none() {
                return verbose_refuse(
                dnnl_invalid_arguments,
                format_args!(
                    "post_ops_append_eltwise: algorithm {alg_kind:#x} with alpha {alpha}, beta {beta} is not a valid eltwise"
                ),
            );
            }
            append(
                post_ops,
                Entry::Eltwise {
                    scale,
                    alg: alg_kind,
                    alpha,
                    beta,
                },
                "post_ops_append_eltwise",
            )
        })
    }
}

/// Parameters of an eltwise post-op.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_post_ops_get_params_eltwise"
)]
pub unsafe extern "C" fn dnnl_post_ops_get_params_eltwise(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    scale: *mut f32,
    alg_kind: *mut dnnl_alg_kind_t,
    alpha: *mut f32,
    beta: *mut f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let Some(Entry::Eltwise {
                scale: s,
                alg,
                alpha: a,
                beta: b,
            }) = entry(post_ops, index)
            else {
                return refuse(
                    dnnl_invalid_arguments,
                    "post_ops_get_params_eltwise: bad chain or the entry is not an eltwise",
                );
            };
            if scale.is_null() || alg_kind.is_null() || alpha.is_null() || beta.is_null() {
                return refuse(
                    dnnl_invalid_arguments,
                    "post_ops_get_params_eltwise: NULL result",
                );
            }
            scale.write(*s);
            alg_kind.write(*alg);
            alpha.write(*a);
            beta.write(*b);
            dnnl_success
        })
    }
}

/// Appends `dst = op(dst, src1)`; src1 is passed at execution as
/// `DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1`.
#[no_mangle]
pub unsafe extern "C" fn dnnl_post_ops_append_binary(
    post_ops: dnnl_post_ops_t,
    alg_kind: dnnl_alg_kind_t,
    src1_desc: *const dnnl_memory_desc_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if binary_op(alg_kind).is_none() || src1_desc.is_null() {
                return verbose_refuse(
                dnnl_invalid_arguments,
                format_args!(
                    "post_ops_append_binary: algorithm {alg_kind:#x} is not a binary one or src1_desc is NULL"
                ),
            );
            }
            append(
                post_ops,
                Entry::Binary {
                    alg: alg_kind,
                    src1: Box::new(*src1_desc),
                },
                "post_ops_append_binary",
            )
        })
    }
}

/// Parameters of a binary post-op; the md pointer stays valid while the chain lives.
#[no_mangle]
pub unsafe extern "C" fn dnnl_post_ops_get_params_binary(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    alg_kind: *mut dnnl_alg_kind_t,
    src1_desc: *mut *const dnnl_memory_desc_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let Some(Entry::Binary { alg, src1 }) = entry(post_ops, index) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "post_ops_get_params_binary: bad chain or the entry is not a binary",
                );
            };
            if !alg_kind.is_null() {
                alg_kind.write(*alg);
            }
            if !src1_desc.is_null() {
                src1_desc.write(&**src1);
            }
            dnnl_success
        })
    }
}

/// Appends a PReLU post-op (stored; resampling refuses it).
#[no_mangle]
pub unsafe extern "C" fn dnnl_post_ops_append_prelu(
    post_ops: dnnl_post_ops_t,
    mask: c_int,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe { onednn_guard!({ append(post_ops, Entry::Prelu { mask }, "post_ops_append_prelu") }) }
}

/// Parameters of a PReLU post-op.
#[no_mangle]
pub unsafe extern "C" fn dnnl_post_ops_get_params_prelu(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    mask: *mut c_int,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            match (entry(post_ops, index), mask.is_null()) {
                (Some(Entry::Prelu { mask: m }), false) => {
                    mask.write(*m);
                    dnnl_success
                }
                _ => refuse(
                    dnnl_invalid_arguments,
                    "post_ops_get_params_prelu: bad chain, entry or NULL result",
                ),
            }
        })
    }
}

#[allow(clippy::too_many_arguments)]
unsafe fn append_dw(
    post_ops: dnnl_post_ops_t,
    wei_dt: dnnl_data_type_t,
    bias_dt: dnnl_data_type_t,
    dst_dt: dnnl_data_type_t,
    kernel: dnnl_dim_t,
    stride: dnnl_dim_t,
    padding: dnnl_dim_t,
    count: dnnl_dim_t,
    mask: c_int,
    scales: *const f32,
    what: &str,
) -> dnnl_status_t {
    // SAFETY: pointer arguments are valid as oneDNN's C API documents (the C caller's contract,
    // passed on by the exported function); handles are resolved through the registry.
    unsafe {
        let bad_dt = |dt| super::translate::data_type(dt).is_none();
        if bad_dt(wei_dt)
            || bad_dt(dst_dt)
            || (bias_dt != dnnl_data_type_undef && bad_dt(bias_dt))
            || kernel <= 0
            || stride <= 0
            || padding < 0
            || !(0..=(1 << 24)).contains(&count)
            || mask < 0
            || (count > 0 && scales.is_null())
        {
            return verbose_refuse(
                dnnl_invalid_arguments,
                format_args!("{what}: bad data types, sizes or scales"),
            );
        }
        let scales: Box<[f32]> = if count == 0 {
            Box::new([])
        } else {
            std::slice::from_raw_parts(scales, count as usize).into()
        };
        append(
            post_ops,
            Entry::Dw {
                wei_dt,
                bias_dt,
                dst_dt,
                kernel,
                stride,
                padding,
                mask,
                scales,
            },
            what,
        )
    }
}

/// Appends a depthwise convolution post-op (stored; resampling refuses it).
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_post_ops_append_dw"
)]
pub unsafe extern "C" fn dnnl_post_ops_append_dw(
    post_ops: dnnl_post_ops_t,
    weights_data_type: dnnl_data_type_t,
    bias_data_type: dnnl_data_type_t,
    dst_data_type: dnnl_data_type_t,
    kernel_size: dnnl_dim_t,
    stride_size: dnnl_dim_t,
    padding_l_size: dnnl_dim_t,
    count: dnnl_dim_t,
    mask: c_int,
    scales: *const f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            append_dw(
                post_ops,
                weights_data_type,
                bias_data_type,
                dst_data_type,
                kernel_size,
                stride_size,
                padding_l_size,
                count,
                mask,
                scales,
                "post_ops_append_dw",
            )
        })
    }
}

/// Appends a 3x3 stride-1 pad-1 depthwise convolution post-op.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_post_ops_append_dw_k3s1p1"
)]
pub unsafe extern "C" fn dnnl_post_ops_append_dw_k3s1p1(
    post_ops: dnnl_post_ops_t,
    weights_data_type: dnnl_data_type_t,
    bias_data_type: dnnl_data_type_t,
    dst_data_type: dnnl_data_type_t,
    count: dnnl_dim_t,
    mask: c_int,
    scales: *const f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            append_dw(
                post_ops,
                weights_data_type,
                bias_data_type,
                dst_data_type,
                3,
                1,
                1,
                count,
                mask,
                scales,
                "post_ops_append_dw_k3s1p1",
            )
        })
    }
}

/// Appends a 3x3 stride-2 pad-1 depthwise convolution post-op.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_post_ops_append_dw_k3s2p1"
)]
pub unsafe extern "C" fn dnnl_post_ops_append_dw_k3s2p1(
    post_ops: dnnl_post_ops_t,
    weights_data_type: dnnl_data_type_t,
    bias_data_type: dnnl_data_type_t,
    dst_data_type: dnnl_data_type_t,
    count: dnnl_dim_t,
    mask: c_int,
    scales: *const f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            append_dw(
                post_ops,
                weights_data_type,
                bias_data_type,
                dst_data_type,
                3,
                2,
                1,
                count,
                mask,
                scales,
                "post_ops_append_dw_k3s2p1",
            )
        })
    }
}

#[allow(clippy::too_many_arguments)]
unsafe fn dw_params(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    weights_data_type: *mut dnnl_data_type_t,
    bias_data_type: *mut dnnl_data_type_t,
    dst_data_type: *mut dnnl_data_type_t,
    kernel_size: *mut dnnl_dim_t,
    stride_size: *mut dnnl_dim_t,
    padding_l_size: *mut dnnl_dim_t,
    count: *mut dnnl_dim_t,
    mask: *mut c_int,
    scales: *mut *const f32,
    want: Option<(dnnl_dim_t, dnnl_dim_t)>,
) -> dnnl_status_t {
    // SAFETY: pointer arguments are valid as oneDNN's C API documents (the C caller's contract,
    // passed on by the exported function); handles are resolved through the registry.
    unsafe {
        let Some(Entry::Dw {
            wei_dt,
            bias_dt,
            dst_dt,
            kernel,
            stride,
            padding,
            mask: m,
            scales: s,
        }) = entry(post_ops, index)
        else {
            return refuse(
                dnnl_invalid_arguments,
                "post_ops_get_params_dw: bad chain or the entry is not a depthwise convolution",
            );
        };
        if let Some((k, st)) = want {
            if *kernel != k || *stride != st || *padding != 1 {
                return refuse(
                    dnnl_invalid_arguments,
                    "post_ops_get_params_dw: the entry has another kernel, stride or padding",
                );
            }
        }
        if [weights_data_type, bias_data_type, dst_data_type]
            .iter()
            .any(|p| p.is_null())
            || count.is_null()
            || mask.is_null()
            || scales.is_null()
        {
            return refuse(
                dnnl_invalid_arguments,
                "post_ops_get_params_dw: NULL result",
            );
        }
        weights_data_type.write(*wei_dt);
        bias_data_type.write(*bias_dt);
        dst_data_type.write(*dst_dt);
        if !kernel_size.is_null() {
            kernel_size.write(*kernel);
        }
        if !stride_size.is_null() {
            stride_size.write(*stride);
        }
        if !padding_l_size.is_null() {
            padding_l_size.write(*padding);
        }
        count.write(s.len() as dnnl_dim_t);
        mask.write(*m);
        scales.write(if s.is_empty() {
            std::ptr::null()
        } else {
            s.as_ptr()
        });
        dnnl_success
    }
}

/// Parameters of a depthwise convolution post-op.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_post_ops_get_params_dw"
)]
pub unsafe extern "C" fn dnnl_post_ops_get_params_dw(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    weights_data_type: *mut dnnl_data_type_t,
    bias_data_type: *mut dnnl_data_type_t,
    dst_data_type: *mut dnnl_data_type_t,
    kernel_size: *mut dnnl_dim_t,
    stride_size: *mut dnnl_dim_t,
    padding_l_size: *mut dnnl_dim_t,
    count: *mut dnnl_dim_t,
    mask: *mut c_int,
    scales: *mut *const f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            dw_params(
                post_ops,
                index,
                weights_data_type,
                bias_data_type,
                dst_data_type,
                kernel_size,
                stride_size,
                padding_l_size,
                count,
                mask,
                scales,
                None,
            )
        })
    }
}

/// Parameters of a 3x3 stride-1 depthwise convolution post-op.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_post_ops_get_params_dw_k3s1p1"
)]
pub unsafe extern "C" fn dnnl_post_ops_get_params_dw_k3s1p1(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    weights_data_type: *mut dnnl_data_type_t,
    bias_data_type: *mut dnnl_data_type_t,
    dst_data_type: *mut dnnl_data_type_t,
    count: *mut dnnl_dim_t,
    mask: *mut c_int,
    scales: *mut *const f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let n = std::ptr::null_mut();
            dw_params(
                post_ops,
                index,
                weights_data_type,
                bias_data_type,
                dst_data_type,
                n,
                n,
                n,
                count,
                mask,
                scales,
                Some((3, 1)),
            )
        })
    }
}

/// Parameters of a 3x3 stride-2 depthwise convolution post-op.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_post_ops_get_params_dw_k3s2p1"
)]
pub unsafe extern "C" fn dnnl_post_ops_get_params_dw_k3s2p1(
    post_ops: const_dnnl_post_ops_t,
    index: c_int,
    weights_data_type: *mut dnnl_data_type_t,
    bias_data_type: *mut dnnl_data_type_t,
    dst_data_type: *mut dnnl_data_type_t,
    count: *mut dnnl_dim_t,
    mask: *mut c_int,
    scales: *mut *const f32,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let n = std::ptr::null_mut();
            dw_params(
                post_ops,
                index,
                weights_data_type,
                bias_data_type,
                dst_data_type,
                n,
                n,
                n,
                count,
                mask,
                scales,
                Some((3, 2)),
            )
        })
    }
}
