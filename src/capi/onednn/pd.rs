//! Primitive descriptors for resampling: creation (resolving `format_tag_any`, building
//! the core plan once, post-ops included), queries, clone and the implementation iterator.
//! Attributes live in `attr`, post-op chains in `postops`.

use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::Arc;

use crate::core::{CoreError, Plan};

use super::attr::{attr_ref, const_dnnl_primitive_attr_t, dnnl_primitive_attr};
use super::engine::{dnnl_engine_t, engine_ref};
use super::md::resolve_any_like;
use super::postops::{translate as translate_post_ops, Translated};
use super::registry::{self, Kind};
use super::translate::{layout_of, problem};
use super::types::*;
use super::verbose;
use super::{refuse, verbose_refuse};

/// What a primitive descriptor holds; shared by clones and primitives.
pub(crate) struct PdData {
    pub engine: dnnl_engine_t,
    /// The op desc as given (dst may still be format any).
    pub rd: dnnl_resampling_desc_t,
    pub forward: bool,
    /// Resolved tensor read (src / diff_dst) and written (dst / diff_src).
    pub input_md: dnnl_memory_desc_t,
    pub output_md: dnnl_memory_desc_t,
    /// `None` when a tensor has no elements: execution then does nothing.
    pub plan: Option<Plan>,
    pub impl_name: CString,
    pub attr: dnnl_primitive_attr,
    /// Binary post-ops: chain position and src1 md (format any resolved against dst).
    pub binaries: Vec<(usize, dnnl_memory_desc_t)>,
    /// The fixed part of the verbose lines (see `verbose::pd_info`).
    pub verbose_info: String,
    /// Time spent creating the pd (tables and plan), reported by the verbose create line.
    pub create_ms: f64,
    /// Set for reorder pds (whose input is FROM = SRC and output TO = DST).
    pub reorder: Option<Box<super::reorder::ReorderInfo>>,
}

// SAFETY: `engine` is an opaque address only compared and handed back to C.
unsafe impl Send for PdData {}
// SAFETY: as for `Sync` above.
unsafe impl Sync for PdData {}

impl PdData {
    pub(crate) fn input_arg(&self) -> c_int {
        if self.forward {
            DNNL_ARG_SRC
        } else {
            DNNL_ARG_DIFF_DST
        }
    }
    pub(crate) fn output_arg(&self) -> c_int {
        if self.forward {
            DNNL_ARG_DST
        } else {
            DNNL_ARG_DIFF_SRC
        }
    }

    fn md_for(&self, what: dnnl_query_t, index: c_int) -> &dnnl_memory_desc_t {
        static ZERO: std::sync::OnceLock<ZeroMd> = std::sync::OnceLock::new();
        let zero = &ZERO.get_or_init(|| ZeroMd(dnnl_memory_desc_t::zero())).0;
        if index != 0 {
            return zero;
        }
        match (what, self.forward) {
            (dnnl_query_src_md, true) | (dnnl_query_diff_dst_md, false) => &self.input_md,
            (dnnl_query_dst_md, true) | (dnnl_query_diff_src_md, false) => &self.output_md,
            _ => zero,
        }
    }

    /// The binary post-op whose src1 is execution argument `arg`
    /// (`DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1`), as an index into `binaries`.
    pub(crate) fn binary_of_arg(&self, arg: c_int) -> Option<usize> {
        if arg < DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE
            || arg % DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE != DNNL_ARG_SRC_1
        {
            return None;
        }
        let pos = (arg / DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE - 1) as usize;
        self.binaries.iter().position(|(p, _)| *p == pos)
    }

    fn arg_md(&self, arg: c_int) -> &dnnl_memory_desc_t {
        if let Some(k) = self.binary_of_arg(arg) {
            return &self.binaries[k].1;
        }
        let what = match arg {
            DNNL_ARG_SRC => dnnl_query_src_md,
            DNNL_ARG_DST => dnnl_query_dst_md,
            DNNL_ARG_DIFF_SRC => dnnl_query_diff_src_md,
            DNNL_ARG_DIFF_DST => dnnl_query_diff_dst_md,
            _ => dnnl_query_undef,
        };
        self.md_for(what, 0)
    }
}

struct ZeroMd(dnnl_memory_desc_t);
// SAFETY: plain old data, never mutated.
unsafe impl Sync for ZeroMd {}
// SAFETY: as for `Send` above.
unsafe impl Send for ZeroMd {}

/// A primitive descriptor handle; owns the attribute object `get_attr` hands out.
pub struct dnnl_primitive_desc {
    pub(crate) data: Arc<PdData>,
    attr_handle: *mut dnnl_primitive_attr,
}
pub type dnnl_primitive_desc_t = *mut dnnl_primitive_desc;
pub type const_dnnl_primitive_desc_t = *const dnnl_primitive_desc;

impl Drop for dnnl_primitive_desc {
    fn drop(&mut self) {
        // SAFETY: registered by `new_pd_handle`, owned by this pd only.
        unsafe { drop(registry::unregister(self.attr_handle, Kind::PdAttr)) };
    }
}

pub(crate) fn new_pd_handle(data: Arc<PdData>) -> *mut dnnl_primitive_desc {
    let attr_handle = registry::register(data.attr.clone(), Kind::PdAttr);
    registry::register(
        dnnl_primitive_desc { data, attr_handle },
        Kind::PrimitiveDesc,
    )
}

pub(crate) unsafe fn pd_ref<'a>(p: *const dnnl_primitive_desc) -> Option<&'a dnnl_primitive_desc> {
    // SAFETY: `registry::get` dereferences only pointers it finds live.
    unsafe { registry::get(p, Kind::PrimitiveDesc) }
}

fn status_of(e: CoreError) -> dnnl_status_t {
    match e {
        CoreError::Invalid(m) => verbose_refuse(dnnl_invalid_arguments, format_args!("{m}")),
        CoreError::Unsupported(m) => verbose_refuse(dnnl_unimplemented, format_args!("{m}")),
        CoreError::OutOfMemory => refuse(dnnl_out_of_memory, "out of memory"),
    }
}

/// Creates the resampling pd data for an op desc (the checks of oneDNN's pd init).
pub(crate) unsafe fn create_pd_data(
    op_desc: const_dnnl_op_desc_t,
    attr: const_dnnl_primitive_attr_t,
    engine: dnnl_engine_t,
    hint: const_dnnl_primitive_desc_t,
) -> Result<PdData, dnnl_status_t> {
    // SAFETY: pointer arguments are valid as oneDNN's C API documents (the C caller's contract,
    // passed on by the exported function); handles are resolved through the registry.
    unsafe {
        let started = std::time::Instant::now();
        if op_desc.is_null() || engine_ref(engine).is_none() {
            return Err(refuse(
                dnnl_invalid_arguments,
                "primitive_desc_create: NULL op desc or bad engine",
            ));
        }
        let kind = *(op_desc as *const c_int);
        if kind != dnnl_resampling {
            if (dnnl_reorder..=dnnl_softmax_v2).contains(&kind) {
                return Err(verbose_refuse(
                    dnnl_unimplemented,
                    format_args!("primitive kind {kind} is not implemented"),
                ));
            }
            return Err(verbose_refuse(
                dnnl_invalid_arguments,
                format_args!("unknown primitive kind {kind}"),
            ));
        }
        let rd = *(op_desc as *const dnnl_resampling_desc_t);
        let attr_v = if attr.is_null() {
            dnnl_primitive_attr::default()
        } else {
            match attr_ref(attr) {
                Some(a) => a.clone(),
                None => {
                    return Err(refuse(
                        dnnl_invalid_arguments,
                        "primitive_desc_create: bad attr",
                    ))
                }
            }
        };
        let forward = match rd.prop_kind {
            dnnl_forward_training | dnnl_forward_inference => true,
            dnnl_backward_data => false,
            p => {
                return Err(verbose_refuse(
                    dnnl_invalid_arguments,
                    format_args!("prop kind {p} is not a resampling one"),
                ))
            }
        };
        attr_v
            .check_resampling(forward)
            .map_err(|(st, m)| verbose_refuse(st, format_args!("{m}")))?;

        if rd.alg_kind != dnnl_resampling_nearest && rd.alg_kind != dnnl_resampling_linear {
            return Err(verbose_refuse(
                dnnl_invalid_arguments,
                format_args!("algorithm {:#x} is not a resampling one", rd.alg_kind),
            ));
        }
        let (mut inp, mut out) = if forward {
            (rd.src_desc, rd.dst_desc)
        } else {
            (rd.diff_dst_desc, rd.diff_src_desc)
        };
        // Sizes: forward-input (src / diff_src) and forward-output (dst / diff_dst).
        let (fin, fout) = if forward { (&inp, &out) } else { (&out, &inp) };
        if !(3..=5).contains(&fin.ndims)
            || fin.ndims != fout.ndims
            || fin.dims[0] != fout.dims[0]
            || fin.dims[1] != fout.dims[1]
        {
            return Err(refuse(
                dnnl_invalid_arguments,
                "resampling desc: src and dst disagree in ndims, N or C",
            ));
        }
        if forward && inp.format_kind == dnnl_format_kind_any {
            return Err(refuse(
                dnnl_invalid_arguments,
                "resampling forward: src format is any",
            ));
        }
        if !forward && inp.format_kind == dnnl_format_kind_any {
            let h = if hint.is_null() { None } else { pd_ref(hint) };
            match h {
                Some(h) if h.data.forward => {
                    let hd = &h.data.output_md;
                    let n = inp.ndims as usize;
                    if hd.ndims != inp.ndims || hd.dims[..n] != inp.dims[..n] {
                        return Err(refuse(
                            dnnl_unimplemented,
                            "resampling backward: hint dst dims differ from diff_dst",
                        ));
                    }
                    let dt = inp.data_type;
                    inp = *hd;
                    inp.data_type = dt;
                }
                Some(_) => {
                    return Err(refuse(
                        dnnl_invalid_arguments,
                        "resampling backward: hint is not a forward resampling pd",
                    ))
                }
                None => {
                    return Err(refuse(
                        dnnl_unimplemented,
                        "resampling backward: diff_dst format any needs a forward hint",
                    ))
                }
            }
        }
        if out.format_kind == dnnl_format_kind_any {
            resolve_any_like(&mut out, &inp, forward);
        }
        let (in_name, out_name) = if forward {
            ("src", "dst")
        } else {
            ("diff_dst", "diff_src")
        };
        let lin =
            layout_of(&inp, in_name).map_err(|(s, m)| verbose_refuse(s, format_args!("{m}")))?;
        let lout =
            layout_of(&out, out_name).map_err(|(s, m)| verbose_refuse(s, format_args!("{m}")))?;
        if !lout.is_empty() && lout.elements_may_overlap() {
            return Err(verbose_refuse(
                dnnl_unimplemented,
                format_args!("{out_name}: strides make elements overlap"),
            ));
        }
        // Nothing to write, or (forward) nothing to read: execute does nothing. A backward
        // problem with an empty diff_dst still runs: its diff_src is all zeros, as in oneDNN.
        let empty = lout.padded.contains(&0) || lout.is_empty() || (forward && lin.is_empty());
        let post = if forward {
            translate_post_ops(attr_v.post_ops(), &out)
                .map_err(|(st, m)| verbose_refuse(st, format_args!("{m}")))?
        } else {
            Translated {
                ops: Vec::new(),
                binaries: Vec::new(),
            }
        };
        let plan = if empty {
            None
        } else {
            let jit_bwd = !forward && super::md::onednn_jit_backward(&out, &inp);
            let mut p = problem(rd.alg_kind, forward, jit_bwd, &lin, &lout);
            p.post_ops = post.ops;
            Some(Plan::new(p).map_err(status_of)?)
        };
        let kernel = plan.as_ref().map_or("empty", |p| p.kernel_name());
        let impl_str = format!("libresample:{kernel}");
        let (fin, fout) = if forward { (&inp, &out) } else { (&out, &inp) };
        let verbose_info = verbose::pd_info(
            &impl_str,
            &rd,
            fin,
            fout,
            &verbose::attr_str(&attr_v, &post.binaries),
        );
        let impl_name = CString::new(impl_str).unwrap_or_default();
        Ok(PdData {
            engine,
            rd,
            forward,
            input_md: inp,
            output_md: out,
            plan,
            impl_name,
            attr: attr_v,
            binaries: post.binaries,
            verbose_info,
            create_ms: started.elapsed().as_secs_f64() * 1e3,
            reorder: None,
        })
    }
}

/// Creates a primitive descriptor for an op desc (only resampling descs are implemented).
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_primitive_desc_create"
)]
pub unsafe extern "C" fn dnnl_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    op_desc: const_dnnl_op_desc_t,
    attr: const_dnnl_primitive_attr_t,
    engine: dnnl_engine_t,
    hint_forward_primitive_desc: const_dnnl_primitive_desc_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if primitive_desc.is_null() {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_desc_create: primitive_desc is NULL",
                );
            }
            match create_pd_data(op_desc, attr, engine, hint_forward_primitive_desc) {
                Ok(d) => {
                    primitive_desc.write(new_pd_handle(Arc::new(d)));
                    dnnl_success
                }
                Err(s) => s,
            }
        })
    }
}

/// Clones a primitive descriptor.
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_desc_clone(
    primitive_desc: *mut dnnl_primitive_desc_t,
    existing_primitive_desc: const_dnnl_primitive_desc_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (Some(pd), false) = (pd_ref(existing_primitive_desc), primitive_desc.is_null())
            else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_desc_clone: bad pd or NULL result",
                );
            };
            primitive_desc.write(new_pd_handle(pd.data.clone()));
            dnnl_success
        })
    }
}

/// Returns the attributes of a primitive descriptor (owned by the pd).
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_desc_get_attr(
    primitive_desc: const_dnnl_primitive_desc_t,
    attr: *mut const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (Some(pd), false) = (pd_ref(primitive_desc), attr.is_null()) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_desc_get_attr: bad pd or NULL result",
                );
            };
            attr.write(pd.attr_handle);
            dnnl_success
        })
    }
}

/// Destroys a primitive descriptor (NULL is accepted).
#[no_mangle]
pub unsafe extern "C" fn dnnl_primitive_desc_destroy(
    primitive_desc: dnnl_primitive_desc_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if primitive_desc.is_null() {
                return dnnl_success;
            }
            match registry::unregister(primitive_desc, Kind::PrimitiveDesc) {
                Some(_) => dnnl_success,
                None => refuse(
                    dnnl_invalid_arguments,
                    "primitive_desc_destroy: not a live pd",
                ),
            }
        })
    }
}

/// Queries a primitive descriptor; `result` points to storage of the query's type.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_primitive_desc_query"
)]
pub unsafe extern "C" fn dnnl_primitive_desc_query(
    primitive_desc: const_dnnl_primitive_desc_t,
    what: dnnl_query_t,
    index: c_int,
    result: *mut c_void,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            let (Some(pd), false) = (pd_ref(primitive_desc), result.is_null()) else {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_desc_query: bad pd or NULL result",
                );
            };
            let d = &*pd.data;
            if let Some(r) = &d.reorder {
                if let Some(status) = super::reorder::query(r, what, result) {
                    return status;
                }
            }
            match what {
                dnnl_query_engine => (result as *mut dnnl_engine_t).write(d.engine),
                dnnl_query_primitive_kind => {
                    (result as *mut dnnl_primitive_kind_t).write(dnnl_resampling)
                }
                dnnl_query_num_of_inputs_s32 => {
                    (result as *mut c_int).write(1 + d.binaries.len() as c_int)
                }
                dnnl_query_num_of_outputs_s32 => (result as *mut c_int).write(1),
                dnnl_query_memory_consumption_s64 | dnnl_query_cache_blob_id_size_s64 => {
                    (result as *mut dnnl_dim_t).write(0)
                }
                dnnl_query_impl_info_str => {
                    (result as *mut *const c_char).write(d.impl_name.as_ptr())
                }
                dnnl_query_prop_kind => (result as *mut dnnl_prop_kind_t).write(d.rd.prop_kind),
                dnnl_query_op_d => {
                    if index != 0 {
                        return refuse(
                            dnnl_invalid_arguments,
                            "primitive_desc_query: op_d index must be 0",
                        );
                    }
                    (result as *mut *const dnnl_resampling_desc_t).write(&d.rd)
                }
                dnnl_query_resampling_d => {
                    (result as *mut *const dnnl_resampling_desc_t).write(&d.rd)
                }
                dnnl_query_src_md..=dnnl_query_scratchpad_md => {
                    (result as *mut *const dnnl_memory_desc_t).write(d.md_for(what, index))
                }
                dnnl_query_exec_arg_md => {
                    (result as *mut *const dnnl_memory_desc_t).write(d.arg_md(index))
                }
                _ => {
                    return verbose_refuse(
                        dnnl_unimplemented,
                        format_args!("primitive_desc_query: query {what} is not supported"),
                    )
                }
            }
            dnnl_success
        })
    }
}

/// Queries a memory descriptor of a primitive descriptor; a zero md for tensors the
/// primitive does not have; NULL for non-md queries and bad handles.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_primitive_desc_query_md"
)]
pub unsafe extern "C" fn dnnl_primitive_desc_query_md(
    primitive_desc: const_dnnl_primitive_desc_t,
    what: dnnl_query_t,
    index: c_int,
) -> *const dnnl_memory_desc_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        ffi_guard!({
            let md_query = (dnnl_query_src_md..=dnnl_query_scratchpad_md).contains(&what)
                || what == dnnl_query_exec_arg_md;
            if !md_query {
                return std::ptr::null();
            }
            let mut res: *const dnnl_memory_desc_t = std::ptr::null();
            if dnnl_primitive_desc_query(
                primitive_desc,
                what,
                index,
                &mut res as *mut _ as *mut c_void,
            ) != dnnl_success
            {
                return std::ptr::null();
            }
            res
        })
    }
}

/// Queries an `int` value (numbers of inputs and outputs); 0 for anything else.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_primitive_desc_query_s32"
)]
pub unsafe extern "C" fn dnnl_primitive_desc_query_s32(
    primitive_desc: const_dnnl_primitive_desc_t,
    what: dnnl_query_t,
    index: c_int,
) -> c_int {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        ffi_guard!(sentinel = 0, {
            if what != dnnl_query_num_of_inputs_s32 && what != dnnl_query_num_of_outputs_s32 {
                return 0;
            }
            let mut res: c_int = 0;
            if dnnl_primitive_desc_query(
                primitive_desc,
                what,
                index,
                &mut res as *mut c_int as *mut c_void,
            ) != dnnl_success
            {
                return 0;
            }
            res
        })
    }
}

/// Iterator over the implementations of an op desc (this library has one per problem).
pub struct dnnl_primitive_desc_iterator {
    data: Arc<PdData>,
    pos: usize,
}
pub type dnnl_primitive_desc_iterator_t = *mut dnnl_primitive_desc_iterator;
pub type const_dnnl_primitive_desc_iterator_t = *const dnnl_primitive_desc_iterator;

/// Creates an implementation iterator positioned on the first implementation.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_primitive_desc_iterator_create"
)]
pub unsafe extern "C" fn dnnl_primitive_desc_iterator_create(
    iterator: *mut dnnl_primitive_desc_iterator_t,
    op_desc: const_dnnl_op_desc_t,
    attr: const_dnnl_primitive_attr_t,
    engine: dnnl_engine_t,
    hint_forward_primitive_desc: const_dnnl_primitive_desc_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if iterator.is_null() {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_desc_iterator_create: iterator is NULL",
                );
            }
            match create_pd_data(op_desc, attr, engine, hint_forward_primitive_desc) {
                Ok(d) => {
                    let it = dnnl_primitive_desc_iterator {
                        data: Arc::new(d),
                        pos: 0,
                    };
                    iterator.write(registry::register(it, Kind::PdIterator));
                    dnnl_success
                }
                Err(s) => s,
            }
        })
    }
}

/// Advances the iterator; `dnnl_iterator_ends` when no implementation is left.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_primitive_desc_iterator_next"
)]
pub unsafe extern "C" fn dnnl_primitive_desc_iterator_next(
    iterator: dnnl_primitive_desc_iterator_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if registry::get(iterator, Kind::PdIterator).is_none() {
                return refuse(
                    dnnl_invalid_arguments,
                    "primitive_desc_iterator_next: bad iterator",
                );
            }
            // SAFETY: live handle; the C API makes the caller the only user of an iterator.
            let pos = &mut (*iterator).pos;
            *pos = pos.saturating_add(1);
            dnnl_iterator_ends
        })
    }
}

/// A new primitive descriptor for the current implementation (NULL past the end).
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_primitive_desc_iterator_fetch"
)]
pub unsafe extern "C" fn dnnl_primitive_desc_iterator_fetch(
    iterator: const_dnnl_primitive_desc_iterator_t,
) -> dnnl_primitive_desc_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        ffi_guard!({
            match registry::get(iterator, Kind::PdIterator) {
                Some(it) if it.pos == 0 => new_pd_handle(it.data.clone()),
                _ => std::ptr::null_mut(),
            }
        })
    }
}

/// Destroys an iterator (NULL is accepted).
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_primitive_desc_iterator_destroy"
)]
pub unsafe extern "C" fn dnnl_primitive_desc_iterator_destroy(
    iterator: dnnl_primitive_desc_iterator_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if iterator.is_null() {
                return dnnl_success;
            }
            match registry::unregister(iterator, Kind::PdIterator) {
                Some(_) => dnnl_success,
                None => refuse(
                    dnnl_invalid_arguments,
                    "primitive_desc_iterator_destroy: not a live iterator",
                ),
            }
        })
    }
}
