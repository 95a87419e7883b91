//! Reorder primitives (`dnnl_reorder_primitive_desc_create`): copy a tensor between any two
//! supported layouts and data types. A reorder is a core problem whose axes are all
//! identity (nearest, forward); the core's kernels convert, and write zeros into the padding
//! of a blocked dst.
//!
//! Conversions follow libdnnl 2.6.3's CPU reorders (checked against the real library):
//! - same-type copies are exact bit copies (s32 keeps all 32 bits, f32/bf16 keep signalling
//!   NaNs), except f16, which oneDNN converts through f32;
//! - other pairs load to f32 and store like `saturate_and_round`: integers clamp, then round
//!   half to even; bf16 rounds to nearest even, flushes subnormals, quiets NaN;
//! - every pair with an f16 side goes through oneDNN's `simple:any` reorder, which computes
//!   `1 * src + 0` in f32: -0 becomes +0 and NaNs are quieted. The face adds that as an
//!   eltwise linear post-op.
//!
//! NaN and out-of-range values converted to integers differ between libdnnl's own reorder
//! implementations (e.g. f32 NaN -> s32 is INT_MIN in `jit:uni` to a dense dst and
//! 2147483520 to a strided one); this face always clamps (NaN -> 0).
//! libdnnl 2.6.3 refuses 14 of the 36 type pairs (s32 -> bf16/f16, s8/u8 -> f16,
//! bf16 -> f16/s32, f16 -> bf16/s32/s8/u8); this face converts them through f32.
//! Attributes other than the defaults (output scales, zero points, post-ops) are refused
//! with `dnnl_unimplemented`.

use std::ffi::{c_int, c_void, CString};
use std::sync::Arc;

use crate::core::{
    Algorithm, AxisRule, CoreError, DataType, Direction, EltwiseAlg, Numerics, Plan, PostOp,
    Problem,
};

use super::attr::{const_dnnl_primitive_attr_t, dnnl_primitive_attr};
use super::engine::{dnnl_engine_t, engine_ref};
use super::md::{compute_blocks, has_runtime_dims_or_strides};
use super::pd::{dnnl_primitive_desc_t, new_pd_handle, PdData};
use super::registry::{self, Kind};
use super::translate::layout_of;
use super::types::*;
use super::{refuse, verbose_refuse};

/// oneDNN 2.6's internal `reorder_desc_t` (what `dnnl_query_op_d` returns for a reorder).
#[repr(C)]
#[derive(Debug)]
pub struct ReorderDesc {
    pub primitive_kind: dnnl_primitive_kind_t,
    pub src_md: *const dnnl_memory_desc_t,
    pub dst_md: *const dnnl_memory_desc_t,
    pub src_engine_kind: dnnl_engine_kind_t,
    pub dst_engine_kind: dnnl_engine_kind_t,
    pub is_cross_engine: bool,
}

/// What a reorder pd holds beyond the common pd data.
pub(crate) struct ReorderInfo {
    pub src_engine: dnnl_engine_t,
    pub dst_engine: dnnl_engine_t,
    /// The descriptors `desc` points to (boxed: their addresses never change).
    _src_md: Box<dnnl_memory_desc_t>,
    _dst_md: Box<dnnl_memory_desc_t>,
    desc: ReorderDesc,
}

// SAFETY: the engines are opaque addresses only compared and handed back to C; `desc`
// points into the boxes this value owns, which are never mutated.
unsafe impl Send for ReorderInfo {}
// SAFETY: as for `Sync` above.
unsafe impl Sync for ReorderInfo {}

/// Answers the queries that differ for a reorder pd; `None` lets the common code answer.
pub(crate) unsafe fn query(
    r: &ReorderInfo,
    what: dnnl_query_t,
    result: *mut c_void,
) -> Option<dnnl_status_t> {
    // SAFETY: pointer arguments are valid as oneDNN's C API documents (the C caller's contract,
    // passed on by the exported function); handles are resolved through the registry.
    unsafe {
        match what {
            dnnl_query_primitive_kind => (result as *mut dnnl_primitive_kind_t).write(dnnl_reorder),
            dnnl_query_reorder_src_engine => (result as *mut dnnl_engine_t).write(r.src_engine),
            dnnl_query_reorder_dst_engine => (result as *mut dnnl_engine_t).write(r.dst_engine),
            dnnl_query_op_d => (result as *mut *const ReorderDesc).write(&r.desc),
            dnnl_query_prop_kind | dnnl_query_resampling_d => {
                return Some(verbose_refuse(
                    dnnl_unimplemented,
                    format_args!("primitive_desc_query: query {what} does not apply to a reorder"),
                ))
            }
            _ => return None,
        }
        Some(dnnl_success)
    }
}

/// True when `a` holds nothing but default values (scratchpad and fpmath modes do not
/// change a reorder's result). Written against `Debug` so that attribute fields added later
/// (scales, zero points, post-ops) count as non-default until reorders support them.
#[allow(clippy::needless_update)] // on purpose: fields added later take their defaults
fn attr_is_default(a: &dnnl_primitive_attr) -> bool {
    // The scratchpad and fpmath modes change nothing here; every other attribute does.
    a.check_resampling(true).is_ok() && a.post_ops().entries.is_empty()
}

/// One dimension of a blocked descriptor, as the simplifier sees it.
fn plain_dim(md: &dnnl_memory_desc_t, blocks: &[i64; 12], d: usize) -> bool {
    blocks[d] == 1 && md.padded_dims[d] == md.dims[d] && md.padded_offsets[d] == 0
}

/// Removes size-1 dimensions and merges neighbours that are dense in both descriptors
/// (`stride[d] == stride[d+1] * dims[d+1]`, unblocked), so that up to 12-D reorders fit the
/// core's 5 axes and contiguous runs get longer. Both results describe the same elements.
fn simplify(
    src: &dnnl_memory_desc_t,
    dst: &dnnl_memory_desc_t,
) -> (dnnl_memory_desc_t, dnnl_memory_desc_t) {
    let nd = src.ndims as usize;
    let (bs, bd) = (compute_blocks(src), compute_blocks(dst));
    let plain = |d: usize| plain_dim(src, &bs, d) && plain_dim(dst, &bd, d);
    // Groups of original dims, outermost first; each group becomes one dim.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for d in 0..nd {
        if src.dims[d] == 1 && plain(d) {
            continue;
        }
        if let Some(g) = groups.last_mut() {
            let last = *g.last().unwrap_or(&d);
            let mergeable = |md: &dnnl_memory_desc_t| {
                let s = md.blocking().strides;
                s[d].checked_mul(md.dims[d]) == Some(s[last])
            };
            let vol: Option<i64> = g
                .iter()
                .try_fold(src.dims[d], |a, &k| a.checked_mul(src.dims[k]));
            if plain(last)
                && plain(d)
                && mergeable(src)
                && mergeable(dst)
                && vol.is_some_and(|v| v <= u32::MAX as i64)
            {
                g.push(d);
                continue;
            }
        }
        groups.push(vec![d]);
    }
    if groups.is_empty() {
        // Every dim is 1: keep the innermost one.
        groups.push(vec![nd - 1]);
    }
    let rebuild = |md: &dnnl_memory_desc_t| {
        let mut out = *md;
        out.ndims = groups.len() as c_int;
        let mut new_of = [usize::MAX; 12];
        for (k, g) in groups.iter().enumerate() {
            let inner = *g.last().unwrap_or(&0);
            let vol: i64 = g.iter().map(|&d| md.dims[d]).product();
            out.dims[k] = vol;
            out.padded_dims[k] = if g.len() == 1 {
                md.padded_dims[inner]
            } else {
                vol
            };
            out.padded_offsets[k] = md.padded_offsets[inner];
            out.blocking_mut().strides[k] = md.blocking().strides[inner];
            for &d in g {
                new_of[d] = k;
            }
        }
        for k in groups.len()..12 {
            out.dims[k] = 0;
            out.padded_dims[k] = 0;
            out.padded_offsets[k] = 0;
            out.blocking_mut().strides[k] = 0;
        }
        let blk = out.blocking_mut();
        for i in 0..blk.inner_nblks.clamp(0, 12) as usize {
            // Blocked dims are never merged or dropped, so each has a group of its own.
            blk.inner_idxs[i] = new_of[blk.inner_idxs[i] as usize] as i64;
        }
        out
    };
    (rebuild(src), rebuild(dst))
}

/// Checks one side of a reorder: a blocked, initialized, non-runtime descriptor.
fn check_md(md: &dnnl_memory_desc_t, what: &str) -> Result<(), dnnl_status_t> {
    if md.ndims == 0 || md.data_type == dnnl_data_type_undef {
        return Err(verbose_refuse(
            dnnl_unimplemented,
            format_args!("reorder: {what} is a zero descriptor or has no data type"),
        ));
    }
    if !(1..=DNNL_MAX_NDIMS).contains(&md.ndims)
        || !(dnnl_f16..=dnnl_u8).contains(&md.data_type)
        || md.dims[..md.ndims as usize]
            .iter()
            .any(|&d| d < 0 && d != RUNTIME_DIM_VAL)
    {
        return Err(verbose_refuse(
            dnnl_invalid_arguments,
            format_args!("reorder: {what} has bad ndims, dims or data type"),
        ));
    }
    if md.format_kind == dnnl_format_kind_any {
        return Err(verbose_refuse(
            dnnl_invalid_arguments,
            format_args!("reorder: {what} format is any"),
        ));
    }
    if has_runtime_dims_or_strides(md) {
        return Err(verbose_refuse(
            dnnl_invalid_arguments,
            format_args!("reorder: {what} has runtime dims or strides"),
        ));
    }
    if md.format_kind != dnnl_blocked {
        return Err(verbose_refuse(
            dnnl_unimplemented,
            format_args!(
                "reorder: {what} format kind {} is not blocked",
                md.format_kind
            ),
        ));
    }
    Ok(())
}

fn status_of(e: CoreError) -> dnnl_status_t {
    match e {
        CoreError::Invalid(m) => {
            verbose_refuse(dnnl_invalid_arguments, format_args!("reorder: {m}"))
        }
        CoreError::Unsupported(m) => {
            verbose_refuse(dnnl_unimplemented, format_args!("reorder: {m}"))
        }
        CoreError::OutOfMemory => refuse(dnnl_out_of_memory, "reorder: out of memory"),
    }
}

/// The core problem of a reorder between two checked descriptors of equal dims.
pub(crate) fn reorder_problem(
    src: &dnnl_memory_desc_t,
    dst: &dnnl_memory_desc_t,
) -> Result<Option<Problem>, dnnl_status_t> {
    let nd = src.ndims as usize;
    if src.dims[..nd].contains(&0) {
        return Ok(None);
    }
    let (s, d) = simplify(src, dst);
    if s.ndims > 5 {
        return Err(verbose_refuse(
            dnnl_unimplemented,
            format_args!(
                "reorder: {} dims do not reduce to at most 5 (they reduce to {})",
                nd, s.ndims
            ),
        ));
    }
    let ls =
        layout_of(&s, "reorder src").map_err(|(st, m)| verbose_refuse(st, format_args!("{m}")))?;
    let ld =
        layout_of(&d, "reorder dst").map_err(|(st, m)| verbose_refuse(st, format_args!("{m}")))?;
    if ld.elements_may_overlap() {
        return Err(refuse(
            dnnl_unimplemented,
            "reorder: dst strides make elements overlap",
        ));
    }
    let f16 = ls.dtype == DataType::F16 || ld.dtype == DataType::F16;
    let post_ops = if f16 {
        // oneDNN's simple:any reorder computes `1 * src + 0` in f32.
        vec![PostOp::Eltwise {
            alg: EltwiseAlg::Linear,
            alpha: 1.0,
            beta: 0.0,
            scale: 1.0,
        }]
    } else {
        Vec::new()
    };
    Ok(Some(Problem {
        alg: Algorithm::Nearest,
        direction: Direction::Forward,
        axes: vec![AxisRule::Identity; ls.rank()],
        src: ls,
        dst: ld,
        post_ops,
        numerics: Numerics::OnednnReorder,
    }))
}

unsafe fn create(
    src_desc: *const dnnl_memory_desc_t,
    src_engine: dnnl_engine_t,
    dst_desc: *const dnnl_memory_desc_t,
    dst_engine: dnnl_engine_t,
    attr: const_dnnl_primitive_attr_t,
) -> Result<PdData, dnnl_status_t> {
    // SAFETY: pointer arguments are valid as oneDNN's C API documents (the C caller's contract,
    // passed on by the exported function); handles are resolved through the registry.
    unsafe {
        if src_desc.is_null() || dst_desc.is_null() {
            return Err(refuse(
                dnnl_invalid_arguments,
                "reorder: NULL memory descriptor",
            ));
        }
        let (Some(se), Some(de)) = (engine_ref(src_engine), engine_ref(dst_engine)) else {
            return Err(refuse(
                dnnl_invalid_arguments,
                "reorder: bad src or dst engine",
            ));
        };
        let attr_v = if attr.is_null() {
            dnnl_primitive_attr::default()
        } else {
            match registry::get(attr, Kind::Attr).or_else(|| registry::get(attr, Kind::PdAttr)) {
                Some(a) => a.clone(),
                None => return Err(refuse(dnnl_invalid_arguments, "reorder: bad attr")),
            }
        };
        let (src, dst) = (*src_desc, *dst_desc);
        check_md(&src, "src")?;
        check_md(&dst, "dst")?;
        let nd = src.ndims as usize;
        if src.ndims != dst.ndims || src.dims[..nd] != dst.dims[..nd] {
            return Err(refuse(
                dnnl_invalid_arguments,
                "reorder: src and dst dims differ",
            ));
        }
        if se.kind != dnnl_cpu || de.kind != dnnl_cpu {
            return Err(refuse(
                dnnl_unimplemented,
                "reorder: only CPU engines exist",
            ));
        }
        if !attr_is_default(&attr_v) {
            return Err(refuse(
                dnnl_unimplemented,
                "reorder: attributes (output scales, zero points, post-ops) are not supported",
            ));
        }
        let plan = match reorder_problem(&src, &dst)? {
            Some(p) => Some(Plan::new(p).map_err(status_of)?),
            None => None,
        };
        let kernel = plan.as_ref().map_or("empty", |p| p.kernel_name());
        let impl_name = CString::new(format!("libresample:reorder:{kernel}")).unwrap_or_default();
        let src_md = Box::new(src);
        let dst_md = Box::new(dst);
        let desc = ReorderDesc {
            primitive_kind: dnnl_reorder,
            src_md: &*src_md,
            dst_md: &*dst_md,
            src_engine_kind: se.kind,
            dst_engine_kind: de.kind,
            is_cross_engine: false,
        };
        let verbose_info =
            super::verbose::reorder_info(impl_name.to_str().unwrap_or(""), &src, &dst);
        Ok(PdData {
            binaries: Vec::new(),
            verbose_info,
            create_ms: 0.0,
            // oneDNN runs a CPU-to-CPU reorder on the src engine.
            engine: src_engine,
            rd: dnnl_resampling_desc_t::zero(),
            forward: true,
            input_md: src,
            output_md: dst,
            plan,
            impl_name,
            attr: attr_v,
            reorder: Some(Box::new(ReorderInfo {
                src_engine,
                dst_engine,
                _src_md: src_md,
                _dst_md: dst_md,
                desc,
            })),
        })
    }
}

/// Creates a reorder primitive descriptor (execute with `DNNL_ARG_FROM` and `DNNL_ARG_TO`).
#[no_mangle]
pub unsafe extern "C" fn dnnl_reorder_primitive_desc_create(
    reorder_primitive_desc: *mut dnnl_primitive_desc_t,
    src_desc: *const dnnl_memory_desc_t,
    src_engine: dnnl_engine_t,
    dst_desc: *const dnnl_memory_desc_t,
    dst_engine: dnnl_engine_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if reorder_primitive_desc.is_null() {
                return refuse(
                    dnnl_invalid_arguments,
                    "reorder_primitive_desc_create: result is NULL",
                );
            }
            match create(src_desc, src_engine, dst_desc, dst_engine, attr) {
                Ok(d) => {
                    reorder_primitive_desc.write(new_pd_handle(Arc::new(d)));
                    dnnl_success
                }
                Err(s) => s,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::format_tags::*;
    use super::super::md::md_by_tag;
    use super::*;

    fn md(dims: &[i64], dt: dnnl_data_type_t, tag: dnnl_format_tag_t) -> dnnl_memory_desc_t {
        md_by_tag(dims.len(), dims, dt, tag).unwrap()
    }

    #[test]
    fn simplify_merges_dense_runs_and_drops_ones() {
        let s = md(&[2, 3, 4, 5], dnnl_f32, dnnl_nchw);
        let (a, b) = simplify(&s, &s);
        assert_eq!((a.ndims, a.dims[0]), (1, 120));
        assert_eq!(b.blocking().strides[0], 1);
        let d = md(&[2, 3, 4, 5], dnnl_f32, dnnl_nhwc);
        let (a, b) = simplify(&s, &d);
        // n | c | hw
        assert_eq!(a.ndims, 3);
        assert_eq!(a.dims[..3], [2, 3, 20]);
        assert_eq!(b.blocking().strides[..3], [60, 1, 3]);
        let d = md(&[1, 19, 1, 7], dnnl_f32, dnnl_nChw16c);
        let s = md(&[1, 19, 1, 7], dnnl_f32, dnnl_nchw);
        let (a, b) = simplify(&s, &d);
        assert_eq!(a.ndims, 2);
        assert_eq!(b.padded_dims[..2], [32, 7]);
        assert_eq!(b.blocking().inner_idxs[0], 0);
        let s = md(&[1, 1, 1], dnnl_f32, dnnl_abc);
        let (a, _) = simplify(&s, &s);
        assert_eq!((a.ndims, a.dims[0]), (1, 1));
        let s = md(&[2, 1, 3, 1, 2, 2, 3], dnnl_s8, dnnl_abcdefg);
        // dst stored with the axis order reversed: nothing merges, the ones go.
        let mut d = s;
        let mut st = 1;
        for k in 0..7 {
            d.blocking_mut().strides[k] = st;
            st *= d.dims[k];
        }
        let (a, b) = simplify(&s, &d);
        assert_eq!(a.ndims, 5);
        assert_eq!(a.dims[..5], [2, 3, 2, 2, 3]);
        assert_eq!(b.blocking().strides[..5], [1, 2, 6, 12, 24]);
    }

    #[test]
    fn attr_default_check() {
        let mut a = dnnl_primitive_attr::default();
        assert!(attr_is_default(&a));
        a.scratchpad_mode = dnnl_scratchpad_mode_user;
        assert!(attr_is_default(&a));
    }
}
