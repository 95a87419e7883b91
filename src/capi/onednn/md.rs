//! Memory descriptors: `dnnl_memory_desc_init_by_tag` (tags parsed generically from their
//! canonical names), `_init_by_strides`, `_init_submemory`, `_permute_axes`, `_equal`,
//! `_get_size` and `dnnl_data_type_size`, with oneDNN 2.6.3's padding and stride rules.

use std::ffi::c_int;

use super::format_tags::{CANONICAL_NAMES, FORMAT_TAG_LAST};
use super::types::*;
use super::{refuse, verbose_refuse};

/// Blocking structure of a format tag, parsed from its canonical name (e.g. `aBcd16b`):
/// outer letters give the order of the dims (outermost first), each trailing
/// `<N><letter>` is an inner block (outermost first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TagLayout {
    pub ndims: usize,
    pub perm: Vec<usize>,
    pub inner: Vec<(i64, usize)>,
}

/// Parses a canonical tag name (`abcd`, `acdb`, `aBcd16b`, `ABcd8b16a2b`, …).
pub(crate) fn parse_tag_name(name: &str) -> Option<TagLayout> {
    let bytes = name.as_bytes();
    let outer_len = bytes.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    if outer_len == 0 || outer_len > DNNL_MAX_NDIMS as usize {
        return None;
    }
    let mut perm = Vec::with_capacity(outer_len);
    for &b in &bytes[..outer_len] {
        let d = (b.to_ascii_lowercase() - b'a') as usize;
        if d >= outer_len || perm.contains(&d) {
            return None;
        }
        perm.push(d);
    }
    let mut inner = Vec::new();
    let mut rest = &bytes[outer_len..];
    while !rest.is_empty() {
        let nd = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if nd == 0 || nd >= rest.len() {
            return None;
        }
        let blk: i64 = std::str::from_utf8(&rest[..nd]).ok()?.parse().ok()?;
        let letter = rest[nd];
        if !letter.is_ascii_lowercase() || blk <= 0 {
            return None;
        }
        let d = (letter - b'a') as usize;
        if d >= outer_len {
            return None;
        }
        inner.push((blk, d));
        rest = &rest[nd + 1..];
    }
    if inner.len() > DNNL_MAX_NDIMS as usize {
        return None;
    }
    Some(TagLayout {
        ndims: outer_len,
        perm,
        inner,
    })
}

/// The blocking of tag value `tag` (`None` for undef, any and unknown values).
pub(crate) fn tag_layout(tag: dnnl_format_tag_t) -> Option<TagLayout> {
    if !(2..FORMAT_TAG_LAST).contains(&tag) {
        return None;
    }
    parse_tag_name(CANONICAL_NAMES[tag as usize])
}

fn dt_valid(dt: dnnl_data_type_t) -> bool {
    (dnnl_f16..=dnnl_u8).contains(&dt)
}

/// `memory_desc_sanity_check(ndims, dims, data_type, format_kind)` of oneDNN 2.6.
pub(crate) unsafe fn sanity_check(
    ndims: c_int,
    dims: *const dnnl_dim_t,
    dt: dnnl_data_type_t,
    any: bool,
) -> bool {
    // SAFETY: pointer arguments are valid as oneDNN's C API documents (the C caller's contract,
    // passed on by the exported function); handles are resolved through the registry.
    unsafe {
        if ndims == 0 {
            return true;
        }
        if dims.is_null() || !(0..=DNNL_MAX_NDIMS).contains(&ndims) || !dt_valid(dt) {
            return false;
        }
        let dims = std::slice::from_raw_parts(dims, ndims as usize);
        let mut runtime = false;
        for &d in dims {
            if d == RUNTIME_DIM_VAL {
                runtime = true;
            } else if d < 0 {
                return false;
            }
        }
        !(runtime && any)
    }
}

pub(crate) fn md_sanity_check(md: &dnnl_memory_desc_t) -> bool {
    // SAFETY: `md.dims` is a 12-element array, `ndims` is bounded by the check.
    (0..=DNNL_MAX_NDIMS).contains(&md.ndims)
        && unsafe { sanity_check(md.ndims, md.dims.as_ptr(), md.data_type, false) }
}

fn rnd_up(v: i64, b: i64) -> i64 {
    if v == RUNTIME_DIM_VAL {
        return v;
    }
    if b <= 1 {
        return v;
    }
    (v / b + (v % b != 0) as i64).saturating_mul(b)
}

/// oneDNN's `fill_blocked`: padded dims, inner blocks and strides for a permutation.
fn fill_blocked(md: &mut dnnl_memory_desc_t, perm: &[usize], inner: &[(i64, usize)]) {
    let nd = md.ndims as usize;
    md.offset0 = 0;
    let mut blocks = [1i64; 12];
    let mut block_size = 1i64;
    {
        let blk = md.blocking_mut();
        blk.inner_nblks = inner.len() as c_int;
        for (i, &(b, d)) in inner.iter().enumerate() {
            blk.inner_blks[i] = b;
            blk.inner_idxs[i] = d as i64;
            blocks[d] = blocks[d].saturating_mul(b);
            block_size = block_size.saturating_mul(b);
        }
    }
    for d in 0..nd {
        md.padded_offsets[d] = 0;
        md.padded_dims[d] = rnd_up(md.dims[d], blocks[d]);
    }
    let mut stride = block_size;
    for &d in perm.iter().rev() {
        md.blocking_mut().strides[d] = stride;
        let pdim = md.padded_dims[d];
        if stride == RUNTIME_DIM_VAL || pdim == RUNTIME_DIM_VAL {
            stride = RUNTIME_DIM_VAL;
        } else if pdim != 0 {
            stride = stride.saturating_mul(pdim / blocks[d]);
        }
    }
}

/// Per-dimension product of the inner blocks.
pub(crate) fn compute_blocks(md: &dnnl_memory_desc_t) -> [i64; 12] {
    let mut blocks = [1i64; 12];
    let blk = md.blocking();
    let n = blk.inner_nblks.clamp(0, 12) as usize;
    for i in 0..n {
        let d = blk.inner_idxs[i];
        if (0..md.ndims as i64).contains(&d) {
            blocks[d as usize] = blocks[d as usize].saturating_mul(blk.inner_blks[i]);
        }
    }
    blocks
}

/// True when a dim or (for blocked) a stride is `DNNL_RUNTIME_DIM_VAL`.
pub(crate) fn has_runtime_dims_or_strides(md: &dnnl_memory_desc_t) -> bool {
    let nd = md.ndims.clamp(0, 12) as usize;
    md.dims[..nd].contains(&RUNTIME_DIM_VAL)
        || (md.format_kind == dnnl_blocked
            && md.blocking().strides[..nd].contains(&RUNTIME_DIM_VAL))
}

/// oneDNN's blocked `memory_desc_init_by_blocking_desc`: dims of `md` with the order and
/// inner blocks of `blk` (used to resolve `format_tag_any` from another tensor).
pub(crate) fn init_by_blocking_desc(md: &mut dnnl_memory_desc_t, blk: &dnnl_blocking_desc_t) {
    let nd = md.ndims.clamp(0, 12) as usize;
    let mut blocks = [1i64; 12];
    let mut block_size = 1i64;
    let nblks = blk.inner_nblks.clamp(0, 12) as usize;
    for i in 0..nblks {
        let d = blk.inner_idxs[i];
        if (0..nd as i64).contains(&d) {
            blocks[d as usize] = blocks[d as usize].saturating_mul(blk.inner_blks[i]);
        }
        block_size = block_size.saturating_mul(blk.inner_blks[i]);
    }
    for d in 0..nd {
        md.padded_dims[d] = rnd_up(md.dims[d], blocks[d].max(1));
        md.padded_offsets[d] = 0;
    }
    md.offset0 = 0;
    md.format_kind = dnnl_blocked;
    *md.blocking_mut() = *blk;
    let mut strides = blk.strides;
    let mut ou_blocks = [0i64; 12];
    let mut perm = [0usize; 12];
    for d in 0..nd {
        perm[d] = d;
        ou_blocks[d] = md.padded_dims[d] / blocks[d].max(1);
    }
    // oneDNN's simultaneous_sort: bubble sort by descending stride, ties by descending
    // outer size of the described tensor.
    if nd > 0 {
        for i in 0..nd - 1 {
            let mut swapped = false;
            for j in 0..nd - i - 1 {
                let mut res = strides[j + 1].cmp(&strides[j]);
                if res == std::cmp::Ordering::Equal {
                    res = ou_blocks[j + 1].cmp(&ou_blocks[j]);
                }
                if res == std::cmp::Ordering::Greater {
                    strides.swap(j, j + 1);
                    ou_blocks.swap(j, j + 1);
                    perm.swap(j, j + 1);
                    swapped = true;
                }
            }
            if !swapped {
                break;
            }
        }
    }
    // Unlike init_by_tag, 2.6 multiplies by zero-sized dims too (libdnnl 2.6.3: a 0x1x40
    // dst resolved from a plain src gets strides 40,0,1); 3.x keeps the stride across a
    // zero dim, as init_by_tag does (libdnnl 3.2: 2x4x0 from a strided src: 4,1,4).
    let mut stride = block_size;
    for k in (0..nd).rev() {
        let d = perm[k];
        md.blocking_mut().strides[d] = stride;
        if !(cfg!(resample_dnnl3) && md.padded_dims[d] == 0) {
            stride = stride.saturating_mul(md.padded_dims[d] / blocks[d].max(1));
        }
    }
    md.extra = dnnl_memory_desc_t::zero().extra;
}

/// Resolves a `format_tag_any` descriptor `md` from the layout of `like`, as oneDNN 2.6.3's
/// resampling does: when `like` matches one of the tags its optimized implementations know
/// (nCx16c, nCx8c, nxc, ncx; strides compared exactly, also on size-1 dims), `md` gets that
/// tag; otherwise it takes `like`'s blocking (`memory_desc_init_by_blocking_desc`). Verified
/// against libdnnl 2.6.3 with size-1 dims, where the two rules differ: forward dst tries the
/// tags first (`try_tags`), backward diff_src always takes the blocking.
pub(crate) fn resolve_any_like(
    md: &mut dnnl_memory_desc_t,
    like: &dnnl_memory_desc_t,
    try_tags: bool,
) {
    use super::format_tags::*;
    let nd = like.ndims.clamp(0, 12) as usize;
    // The tag rule is that of oneDNN's jit implementation. libdnnl 2.6.3 sends a zero-sized
    // batch to `ref:any` (blocking rule) but keeps the jit for zero-sized spatial dims.
    let zero_batch = nd > 0 && (like.dims[0] == 0 || md.dims[0] == 0);
    // oneDNN 3.x's jit takes an f16 src only in a plain layout (`IMPLICATION(f16,
    // is_plain)`; 2.6 has no f16 resampling): a blocked one goes to `simple:any` /
    // `ref:any`, which take the blocking (libdnnl.so.3 3.2 on an avx512_core_fp16 CPU).
    let f16_blocked = like.data_type == dnnl_f16 && like.blocking().inner_nblks > 0;
    let tags: &[dnnl_format_tag_t] = match like.ndims {
        _ if !try_tags || zero_batch || f16_blocked => &[],
        3 => &[dnnl_nCw16c, dnnl_nCw8c, dnnl_nwc, dnnl_ncw],
        4 => &[dnnl_nChw16c, dnnl_nChw8c, dnnl_nhwc, dnnl_nchw],
        5 => &[dnnl_nCdhw16c, dnnl_nCdhw8c, dnnl_ndhwc, dnnl_ncdhw],
        _ => &[],
    };
    for &tag in tags {
        let Ok(t) = md_by_tag(nd, &like.dims[..nd], like.data_type, tag) else {
            continue;
        };
        if matches_strictly(&t, like) {
            if let Ok(r) = md_by_tag(nd, &md.dims[..nd], md.data_type, tag) {
                *md = r;
                return;
            }
        }
    }
    init_by_blocking_desc(md, like.blocking());
}

/// Equal blocking, strides (every dim), padding and offset: `like` is exactly the tag's layout.
pub(crate) fn matches_strictly(t: &dnnl_memory_desc_t, like: &dnnl_memory_desc_t) -> bool {
    let n = like.ndims as usize;
    let (a, b) = (t.blocking(), like.blocking());
    let k = a.inner_nblks.clamp(0, 12) as usize;
    like.format_kind == dnnl_blocked
        && like.offset0 == 0
        && t.padded_dims[..n] == like.padded_dims[..n]
        && like.padded_offsets[..n].iter().all(|&o| o == 0)
        && a.inner_nblks == b.inner_nblks
        && a.inner_blks[..k] == b.inner_blks[..k]
        && a.inner_idxs[..k] == b.inner_idxs[..k]
        && a.strides[..n] == b.strides[..n]
}

/// True when libdnnl 2.6.3 runs a backward problem on its AVX-512 jit kernel: diff_src and
/// diff_dst of any of f32, bf16, s32, s8, u8 (mixed types too), no zero-sized dim, and both
/// in the same one of the tags nCx8c, nCx16c, nxc
/// (`jit_avx512_common_resampling_bwd_t::pd_t::init`).
pub(crate) fn onednn_jit_backward(
    diff_src: &dnnl_memory_desc_t,
    diff_dst: &dnnl_memory_desc_t,
) -> bool {
    use super::format_tags::*;
    let nd = diff_src.ndims.clamp(0, 12) as usize;
    let tags: &[dnnl_format_tag_t] = match nd {
        3 => &[dnnl_nCw8c, dnnl_nCw16c, dnnl_nwc],
        4 => &[dnnl_nChw8c, dnnl_nChw16c, dnnl_nhwc],
        5 => &[dnnl_nCdhw8c, dnnl_nCdhw16c, dnnl_ndhwc],
        _ => return false,
    };
    // any pair of the CPU data types (f16 has no CPU support in 2.6.3), mixed ones too
    let supported = |dt: dnnl_data_type_t| {
        dt == dnnl_f32 || dt == dnnl_bf16 || dt == dnnl_s32 || dt == dnnl_s8 || dt == dnnl_u8
    };
    if !supported(diff_src.data_type)
        || !supported(diff_dst.data_type)
        || diff_src.dims[..nd].contains(&0)
        || diff_dst.dims[..nd].contains(&0)
    {
        return false;
    }
    let matches = |md: &dnnl_memory_desc_t, tag| {
        md_by_tag(nd, &md.dims[..nd], md.data_type, tag).is_ok_and(|t| matches_strictly(&t, md))
    };
    tags.iter()
        .any(|&tag| matches(diff_src, tag) && matches(diff_dst, tag))
}

/// Builds a memory descriptor from a format tag (safe core of `init_by_tag`).
pub(crate) fn md_by_tag(
    ndims: usize,
    dims: &[i64],
    dt: dnnl_data_type_t,
    tag: dnnl_format_tag_t,
) -> Result<dnnl_memory_desc_t, dnnl_status_t> {
    let mut md = dnnl_memory_desc_t::zero();
    md.ndims = ndims as c_int;
    md.dims[..ndims].copy_from_slice(&dims[..ndims]);
    md.padded_dims[..ndims].copy_from_slice(&dims[..ndims]);
    md.data_type = dt;
    if tag == super::format_tags::dnnl_format_tag_any {
        md.format_kind = dnnl_format_kind_any;
        return Ok(md);
    }
    let Some(t) = tag_layout(tag) else {
        return Err(verbose_refuse(
            dnnl_invalid_arguments,
            format_args!("unknown format tag {tag}"),
        ));
    };
    md_by_layout(md, &t, CANONICAL_NAMES[tag as usize])
}

/// Lays out `md` (dims and data type set, format kind not yet) by a parsed tag `name`.
pub(crate) fn md_by_layout(
    mut md: dnnl_memory_desc_t,
    t: &TagLayout,
    name: &str,
) -> Result<dnnl_memory_desc_t, dnnl_status_t> {
    let ndims = md.ndims as usize;
    if t.ndims != ndims {
        return Err(verbose_refuse(
            dnnl_invalid_arguments,
            format_args!(
                "format tag {name} has {} dims, the descriptor {ndims}",
                t.ndims
            ),
        ));
    }
    md.format_kind = dnnl_blocked;
    fill_blocked(&mut md, &t.perm, &t.inner);
    Ok(md)
}

/// Initializes a memory descriptor from dimensions, a data type and a format tag.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_memory_desc_init_by_tag"
)]
pub unsafe extern "C" fn dnnl_memory_desc_init_by_tag(
    memory_desc: *mut dnnl_memory_desc_t,
    ndims: c_int,
    dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    tag: dnnl_format_tag_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if memory_desc.is_null() {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_desc_init_by_tag: memory_desc is NULL",
                );
            }
            let tag = super::dnnl1::tag_in(tag);
            if ndims == 0 || tag == super::format_tags::dnnl_format_tag_undef {
                memory_desc.write(dnnl_memory_desc_t::zero());
                return dnnl_success;
            }
            let any = tag == super::format_tags::dnnl_format_tag_any;
            if !sanity_check(ndims, dims, data_type, any) {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_desc_init_by_tag: bad ndims, dims or data type",
                );
            }
            let dims = std::slice::from_raw_parts(dims, ndims as usize);
            match md_by_tag(ndims as usize, dims, data_type, tag) {
                Ok(md) => {
                    memory_desc.write(md);
                    dnnl_success
                }
                Err(s) => s,
            }
        })
    }
}

/// Initializes a plain memory descriptor from strides (NULL strides = dense row-major).
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_memory_desc_init_by_strides"
)]
pub unsafe extern "C" fn dnnl_memory_desc_init_by_strides(
    memory_desc: *mut dnnl_memory_desc_t,
    ndims: c_int,
    dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    strides: *const dnnl_dim_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if memory_desc.is_null() {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_desc_init_by_strides: memory_desc is NULL",
                );
            }
            if ndims == 0 {
                memory_desc.write(dnnl_memory_desc_t::zero());
                return dnnl_success;
            }
            if !sanity_check(ndims, dims, data_type, false) {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_desc_init_by_strides: bad ndims, dims or data type",
                );
            }
            let nd = ndims as usize;
            let mut md = dnnl_memory_desc_t::zero();
            md.ndims = ndims;
            md.dims[..nd].copy_from_slice(std::slice::from_raw_parts(dims, nd));
            md.padded_dims[..nd].copy_from_slice(&md.dims[..nd]);
            md.data_type = data_type;
            md.format_kind = dnnl_blocked;
            if strides.is_null() {
                let s = &mut md.format_desc.blocking.strides;
                s[nd - 1] = 1;
                let mut runtime = false;
                for d in (0..nd - 1).rev() {
                    if md.padded_dims[d] == RUNTIME_DIM_VAL {
                        runtime = true;
                    }
                    s[d] = if runtime {
                        RUNTIME_DIM_VAL
                    } else {
                        s[d + 1].wrapping_mul(md.padded_dims[d + 1])
                    };
                }
            } else {
                md.format_desc.blocking.strides[..nd]
                    .copy_from_slice(std::slice::from_raw_parts(strides, nd));
            }
            memory_desc.write(md);
            dnnl_success
        })
    }
}

/// Initializes a descriptor for a sub-tensor (`dims` at `offsets`) of a parent descriptor.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_memory_desc_init_submemory"
)]
pub unsafe extern "C" fn dnnl_memory_desc_init_submemory(
    memory_desc: *mut dnnl_memory_desc_t,
    parent_memory_desc: *const dnnl_memory_desc_t,
    dims: *const dnnl_dim_t,
    offsets: *const dnnl_dim_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if memory_desc.is_null()
                || parent_memory_desc.is_null()
                || dims.is_null()
                || offsets.is_null()
            {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_desc_init_submemory: NULL argument",
                );
            }
            let parent = *parent_memory_desc;
            if !md_sanity_check(&parent) {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_desc_init_submemory: bad parent descriptor",
                );
            }
            if has_runtime_dims_or_strides(&parent) {
                return refuse(
                    dnnl_unimplemented,
                    "memory_desc_init_submemory: runtime dims",
                );
            }
            let nd = parent.ndims as usize;
            let dims = std::slice::from_raw_parts(dims, nd);
            let offsets = std::slice::from_raw_parts(offsets, nd);
            for d in 0..nd {
                if dims[d] == RUNTIME_DIM_VAL || offsets[d] == RUNTIME_DIM_VAL {
                    return refuse(
                        dnnl_unimplemented,
                        "memory_desc_init_submemory: runtime dims",
                    );
                }
                if dims[d] < 0
                    || offsets[d] < 0
                    || offsets[d]
                        .checked_add(dims[d])
                        .is_none_or(|e| e > parent.dims[d])
                {
                    return refuse(
                        dnnl_invalid_arguments,
                        "memory_desc_init_submemory: sub-tensor outside the parent",
                    );
                }
            }
            if parent.format_kind != dnnl_blocked {
                return refuse(
                    dnnl_unimplemented,
                    "memory_desc_init_submemory: parent is not blocked",
                );
            }
            let blocks = compute_blocks(&parent);
            let mut md = parent;
            for d in 0..nd {
                let b = blocks[d].max(1);
                let right = offsets[d] + dims[d] == parent.dims[d];
                let ok = offsets[d] % b == 0
                    && parent.padded_offsets[d] == 0
                    && (right || dims[d] % b == 0 || dims[d] < b);
                if !ok {
                    return refuse(
                        dnnl_unimplemented,
                        "memory_desc_init_submemory: sub-tensor splits a block",
                    );
                }
                md.dims[d] = dims[d];
                md.padded_dims[d] = if right {
                    parent.padded_dims[d] - offsets[d]
                } else {
                    rnd_up(dims[d], b)
                };
                md.padded_offsets[d] = parent.padded_offsets[d];
                md.offset0 = md
                    .offset0
                    .wrapping_add((offsets[d] / b).wrapping_mul(parent.blocking().strides[d]));
            }
            memory_desc.write(md);
            dnnl_success
        })
    }
}

/// Permutes the axes of a blocked descriptor: input axis `d` becomes output axis
/// `permutation[d]`.
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_memory_desc_permute_axes"
)]
pub unsafe extern "C" fn dnnl_memory_desc_permute_axes(
    out_memory_desc: *mut dnnl_memory_desc_t,
    in_memory_desc: *const dnnl_memory_desc_t,
    permutation: *const c_int,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if out_memory_desc.is_null() || in_memory_desc.is_null() || permutation.is_null() {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_desc_permute_axes: NULL argument",
                );
            }
            let inp = *in_memory_desc;
            if !md_sanity_check(&inp)
                || inp.format_kind != dnnl_blocked
                || has_runtime_dims_or_strides(&inp)
            {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_desc_permute_axes: descriptor is not a plain blocked one",
                );
            }
            let nd = inp.ndims as usize;
            let perm = std::slice::from_raw_parts(permutation, nd);
            let mut seen = [false; 12];
            for &p in perm {
                if p < 0 || p as usize >= nd || seen[p as usize] {
                    return refuse(
                        dnnl_invalid_arguments,
                        "memory_desc_permute_axes: not a permutation",
                    );
                }
                seen[p as usize] = true;
            }
            let mut md = inp;
            for d in 0..nd {
                let p = perm[d] as usize;
                md.dims[p] = inp.dims[d];
                md.padded_dims[p] = inp.padded_dims[d];
                md.padded_offsets[p] = inp.padded_offsets[d];
                md.blocking_mut().strides[p] = inp.blocking().strides[d];
            }
            let n = inp.blocking().inner_nblks.clamp(0, 12) as usize;
            for i in 0..n {
                let d = inp.blocking().inner_idxs[i];
                if !(0..nd as i64).contains(&d) {
                    return refuse(
                        dnnl_invalid_arguments,
                        "memory_desc_permute_axes: bad inner block index",
                    );
                }
                md.blocking_mut().inner_idxs[i] = perm[d as usize] as i64;
            }
            out_memory_desc.write(md);
            dnnl_success
        })
    }
}

/// oneDNN's `operator==` on memory descriptors.
pub(crate) fn md_equal(l: &dnnl_memory_desc_t, r: &dnnl_memory_desc_t) -> bool {
    if l.ndims == 0 && r.ndims == 0 {
        return true;
    }
    if l.ndims != r.ndims || !(0..=12).contains(&l.ndims) {
        return false;
    }
    let n = l.ndims as usize;
    let base = l.dims[..n] == r.dims[..n]
        && l.data_type == r.data_type
        && l.padded_dims[..n] == r.padded_dims[..n]
        && l.padded_offsets[..n] == r.padded_offsets[..n]
        && l.offset0 == r.offset0
        && l.format_kind == r.format_kind;
    if !base {
        return false;
    }
    let (le, re) = (&l.extra, &r.extra);
    let extra = le.flags == re.flags
        && (le.flags & 0x1 == 0 || le.compensation_mask == re.compensation_mask)
        && (le.flags & 0x2 == 0 || le.scale_adjust == re.scale_adjust)
        && (le.flags & 0x8 == 0 || le.asymm_compensation_mask == re.asymm_compensation_mask);
    if !extra {
        return false;
    }
    if l.format_kind == dnnl_blocked {
        let (lb, rb) = (l.blocking(), r.blocking());
        let k = lb.inner_nblks.clamp(0, 12) as usize;
        if lb.inner_nblks != rb.inner_nblks
            || lb.inner_blks[..k] != rb.inner_blks[..k]
            || lb.inner_idxs[..k] != rb.inner_idxs[..k]
        {
            return false;
        }
        for d in 0..n {
            if l.dims[d] == 1 && l.padded_dims[d] == 1 {
                continue;
            }
            if lb.strides[d] != rb.strides[d] {
                return false;
            }
        }
    }
    true
}

/// Compares two memory descriptors; 1 when equal, 0 otherwise.
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_desc_equal(
    lhs: *const dnnl_memory_desc_t,
    rhs: *const dnnl_memory_desc_t,
) -> c_int {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        ffi_guard!(sentinel = 0, {
            if lhs == rhs {
                return 1;
            }
            if lhs.is_null() || rhs.is_null() {
                return 0;
            }
            md_equal(&*lhs, &*rhs) as c_int
        })
    }
}

/// Bytes of one element of `dt`; `(size_t)-1` for undef and unknown types.
pub(crate) fn dt_size(dt: dnnl_data_type_t) -> usize {
    match dt {
        dnnl_f32 | dnnl_s32 => 4,
        dnnl_f16 | dnnl_bf16 => 2,
        dnnl_s8 | dnnl_u8 => 1,
        _ => usize::MAX,
    }
}

/// oneDNN's `memory_desc_wrapper::size()`: bytes of the (padded) tensor.
pub(crate) fn md_size(md: &dnnl_memory_desc_t) -> usize {
    if !(1..=12).contains(&md.ndims) || md.format_kind != dnnl_blocked {
        return 0;
    }
    let nd = md.ndims as usize;
    if md.dims[..nd].contains(&0) {
        return 0;
    }
    if has_runtime_dims_or_strides(md) {
        return RUNTIME_SIZE_VAL;
    }
    if md.offset0 != 0 {
        return 0;
    }
    let blocks = compute_blocks(md);
    let bd = md.blocking();
    let mut max_size: u64 = 0;
    for d in 0..nd {
        let b = blocks[d].max(1);
        let strided_pdim = md.padded_dims[d] / b;
        let eff = if strided_pdim == 1 { 1 } else { bd.strides[d] };
        max_size = max_size.max((strided_pdim as u64).wrapping_mul(eff as u64));
    }
    let nblks = bd.inner_nblks.clamp(0, 12) as usize;
    if max_size == 1 && nblks != 0 {
        max_size = bd.inner_blks[..nblks]
            .iter()
            .fold(1u64, |a, &b| a.wrapping_mul(b as u64));
    }
    let es = dt_size(md.data_type);
    if es == usize::MAX {
        return 0;
    }
    max_size.wrapping_mul(es as u64) as usize
}

/// Size in bytes of the memory a descriptor describes (padding included); 0 for format
/// any and for tensors with a zero dimension.
#[no_mangle]
pub unsafe extern "C" fn dnnl_memory_desc_get_size(
    memory_desc: *const dnnl_memory_desc_t,
) -> usize {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        ffi_guard!(sentinel = 0, {
            if memory_desc.is_null() {
                return 0;
            }
            md_size(&*memory_desc)
        })
    }
}

/// Size in bytes of one element of `data_type`.
#[no_mangle]
#[cfg_attr(resample_dnnl3, export_name = "resample_onednn26_dnnl_data_type_size")]
pub unsafe extern "C" fn dnnl_data_type_size(data_type: dnnl_data_type_t) -> usize {
    ffi_guard!(sentinel = usize::MAX, { dt_size(data_type) })
}

#[cfg(test)]
mod tests {
    use super::super::format_tags::*;
    use super::*;

    fn md(dims: &[i64], tag: dnnl_format_tag_t) -> dnnl_memory_desc_t {
        md_by_tag(dims.len(), dims, dnnl_f32, tag).unwrap()
    }

    #[test]
    fn parses_tags() {
        let t = tag_layout(dnnl_nChw16c).unwrap();
        assert_eq!(
            (t.ndims, t.perm.clone(), t.inner.clone()),
            (4, vec![0, 1, 2, 3], vec![(16, 1)])
        );
        let t = tag_layout(dnnl_nhwc).unwrap();
        assert_eq!(t.perm, vec![0, 2, 3, 1]);
        assert!(tag_layout(dnnl_format_tag_any).is_none());
        assert!(tag_layout(FORMAT_TAG_LAST).is_none());
        for v in 2..FORMAT_TAG_LAST {
            assert!(tag_layout(v).is_some(), "{}", CANONICAL_NAMES[v as usize]);
        }
    }

    #[test]
    fn strides_match_onednn_examples() {
        let dims = [2, 19, 5, 7];
        let s = |tag| md(&dims, tag).blocking().strides[..4].to_vec();
        assert_eq!(s(dnnl_nchw), [665, 35, 7, 1]);
        assert_eq!(s(dnnl_nhwc), [665, 1, 133, 19]);
        assert_eq!(s(dnnl_nChw16c), [1120, 560, 112, 16]);
        assert_eq!(s(dnnl_nChw8c), [840, 280, 56, 8]);
        assert_eq!(s(dnnl_aBcd4b), [700, 140, 28, 4]);
        let m = md(&dims, dnnl_nChw16c);
        assert_eq!(m.padded_dims[1], 32);
        assert_eq!(md_size(&m), 8960);
        assert_eq!(md_size(&md(&[0, 19, 5, 7], dnnl_nchw)), 0);
    }

    #[test]
    fn any_resolves_from_src_blocking() {
        let src = md(&[1, 2, 3, 10], dnnl_nhwc);
        let mut dst = md(&[1, 2, 4, 3], dnnl_format_tag_any);
        init_by_blocking_desc(&mut dst, src.blocking());
        assert_eq!(dst.blocking().strides[..4], [24, 1, 6, 2]);
        assert!(md_equal(&dst, &md(&[1, 2, 4, 3], dnnl_nhwc)));
    }
}
