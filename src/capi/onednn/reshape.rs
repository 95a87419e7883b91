//! `dnnl_memory_desc_reshape` with oneDNN 2.6.3's rules: the dims are matched from the
//! innermost outward in groups — a size-1 input dim without padding is dropped, a size-1
//! output dim is inserted (its stride taken from its right neighbour), equal dims keep their
//! layout (blocked ones too), and a group of several dims of equal volume is re-split only
//! when the input group is dense, sequential and its outermost dim is not blocked.

use std::ffi::c_int;

use super::md::{compute_blocks, has_runtime_dims_or_strides, md_sanity_check, sanity_check};
use super::types::*;
use super::{refuse, verbose_refuse};

/// What one step of the matching does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Remove1,
    Add1,
    KeepDim,
    RearrangeDims,
    Fail,
}

/// The reshaped descriptor, or `None` when oneDNN refuses (invalid_arguments).
pub(crate) fn reshape(
    inp: &dnnl_memory_desc_t,
    ndims: usize,
    dims: &[dnnl_dim_t],
) -> Option<dnnl_memory_desc_t> {
    let mut md = *inp;
    md.ndims = ndims as c_int;
    md.dims[..ndims].copy_from_slice(dims);
    let i_ndims = inp.ndims as usize;
    let (i_dims, i_pdims) = (&inp.dims, &inp.padded_dims);
    let o_dims = md.dims;
    let i_bd = *inp.blocking();
    let blocks = compute_blocks(inp);

    // Groups [begin, end) of input and output dims ending at the given positions.
    let find_groups = |ib: &mut usize, ie: usize, ob: &mut usize, oe: usize| -> Action {
        if ie > 0 && i_dims[ie - 1] == 1 {
            *ib = ie - 1;
            if i_pdims[ie - 1] == 1 {
                *ob = oe;
                return Action::Remove1;
            } else if oe > 0 && o_dims[oe - 1] == 1 {
                *ob = oe - 1;
                return Action::KeepDim;
            }
            return Action::Fail;
        }
        if oe > 0 && o_dims[oe - 1] == 1 {
            *ib = ie;
            *ob = oe - 1;
            return Action::Add1;
        }
        if ie == 0 || oe == 0 {
            return Action::Fail;
        }
        *ib = ie - 1;
        *ob = oe - 1;
        let mut iv = i_dims[*ib];
        let mut ov = o_dims[*ob];
        while iv != ov {
            if iv < ov {
                if *ib == 0 {
                    return Action::Fail;
                }
                *ib -= 1;
                iv = iv.wrapping_mul(i_dims[*ib]);
                if iv == 0 {
                    return Action::Fail;
                }
            } else {
                if *ob == 0 {
                    return Action::Fail;
                }
                *ob -= 1;
                ov = ov.wrapping_mul(o_dims[*ob]);
                if ov == 0 {
                    return Action::Fail;
                }
            }
        }
        if *ib + 1 == ie && *ob + 1 == oe {
            Action::KeepDim
        } else {
            Action::RearrangeDims
        }
    };

    let nblks = i_bd.inner_nblks.clamp(0, 12) as usize;
    let (mut ie, mut oe) = (i_ndims, ndims);
    let (mut ib, mut ob) = (i_ndims, ndims);
    while ie != 0 || oe != 0 {
        match find_groups(&mut ib, ie, &mut ob, oe) {
            Action::Remove1 => {}
            Action::Add1 => {
                let stride = if ib == i_ndims {
                    i_bd.inner_blks[..nblks]
                        .iter()
                        .fold(1i64, |a, &b| a.wrapping_mul(b))
                } else {
                    // libdnnl 2.6.3 uses the unpadded size here (checked against it).
                    i_bd.strides[ib].wrapping_mul(i_dims[ib]) / blocks[ib].max(1)
                };
                md.padded_dims[ob] = 1;
                md.padded_offsets[ob] = 0;
                md.blocking_mut().strides[ob] = stride;
            }
            Action::KeepDim => {
                md.padded_dims[ob] = inp.padded_dims[ib];
                md.padded_offsets[ob] = inp.padded_offsets[ib];
                md.blocking_mut().strides[ob] = i_bd.strides[ib];
                for k in 0..nblks {
                    if i_bd.inner_idxs[k] == ib as i64 {
                        md.blocking_mut().inner_idxs[k] = ob as i64;
                    }
                }
            }
            Action::RearrangeDims => {
                for d in (ib + 1..ie).rev() {
                    if i_dims[d].wrapping_mul(i_bd.strides[d]) != i_bd.strides[d - 1] {
                        return None;
                    }
                }
                if i_bd.inner_idxs[..nblks].contains(&(ib as i64)) {
                    return None;
                }
                if inp.padded_dims[ib] != i_dims[ib] {
                    return None;
                }
                let mut stride = i_bd.strides[ie - 1];
                for d in (ob..oe).rev() {
                    md.padded_dims[d] = o_dims[d];
                    md.padded_offsets[d] = 0;
                    md.blocking_mut().strides[d] = stride;
                    stride = stride.wrapping_mul(md.padded_dims[d]);
                }
            }
            Action::Fail => return None,
        }
        ie = ib;
        oe = ob;
    }
    Some(md)
}

fn volume(d: &[dnnl_dim_t]) -> dnnl_dim_t {
    d.iter().fold(1i64, |a, &b| a.wrapping_mul(b))
}

/// Reshapes a memory descriptor to `ndims` dims `dims` of the same volume, keeping its
/// memory layout (oneDNN 2.6 rules; refused with `dnnl_invalid_arguments` when the layout
/// cannot be expressed with the new dims).
#[no_mangle]
#[cfg_attr(
    resample_dnnl3,
    export_name = "resample_onednn26_dnnl_memory_desc_reshape"
)]
pub unsafe extern "C" fn dnnl_memory_desc_reshape(
    out_memory_desc: *mut dnnl_memory_desc_t,
    in_memory_desc: *const dnnl_memory_desc_t,
    ndims: c_int,
    dims: *const dnnl_dim_t,
) -> dnnl_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as oneDNN's C API
    // documents for this function; handles are resolved through the registry.
    unsafe {
        onednn_guard!({
            if out_memory_desc.is_null() || in_memory_desc.is_null() {
                return refuse(dnnl_invalid_arguments, "memory_desc_reshape: NULL argument");
            }
            let inp = *in_memory_desc;
            let any = inp.format_kind == dnnl_format_kind_any;
            if !md_sanity_check(&inp)
                || inp.ndims == 0
                || !(any || inp.format_kind == dnnl_blocked)
                || !sanity_check(ndims, dims, inp.data_type, any)
                || inp.extra.flags != 0
                || has_runtime_dims_or_strides(&inp)
            {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_desc_reshape: bad descriptor, ndims or dims",
                );
            }
            let nd = ndims as usize;
            let new_dims: &[dnnl_dim_t] = if nd == 0 {
                &[]
            } else {
                std::slice::from_raw_parts(dims, nd)
            };
            if volume(&inp.dims[..inp.ndims as usize]) != volume(new_dims) {
                return refuse(
                    dnnl_invalid_arguments,
                    "memory_desc_reshape: the number of elements changes",
                );
            }
            if any {
                return super::md::dnnl_memory_desc_init_by_tag(
                    out_memory_desc,
                    ndims,
                    dims,
                    inp.data_type,
                    super::format_tags::dnnl_format_tag_any,
                );
            }
            match reshape(&inp, nd, new_dims) {
                Some(md) => {
                    out_memory_desc.write(md);
                    dnnl_success
                }
                None => verbose_refuse(
                    dnnl_invalid_arguments,
                    format_args!("memory_desc_reshape: the layout cannot take dims {new_dims:?}"),
                ),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::format_tags::*;
    use super::super::md::{md_by_tag, md_equal};
    use super::*;

    fn md(dims: &[i64], tag: dnnl_format_tag_t) -> dnnl_memory_desc_t {
        md_by_tag(dims.len(), dims, dnnl_f32, tag).unwrap()
    }

    #[test]
    fn plain_and_unit_dims() {
        let a = md(&[2, 3, 4, 5], dnnl_nchw);
        assert!(md_equal(
            &reshape(&a, 2, &[6, 20]).unwrap(),
            &md(&[6, 20], dnnl_ab)
        ));
        let r = reshape(&a, 5, &[2, 3, 1, 4, 5]).unwrap();
        assert!(md_equal(&r, &md(&[2, 3, 1, 4, 5], dnnl_abcde)));
        // nhwc cannot merge c with h
        let b = md(&[2, 3, 4, 5], dnnl_nhwc);
        assert!(reshape(&b, 3, &[2, 12, 5]).is_none());
        let r = reshape(&b, 3, &[2, 3, 20]).unwrap();
        assert_eq!(r.blocking().strides[..3], [60, 1, 3]);
    }

    #[test]
    fn blocked() {
        let a = md(&[2, 19, 4, 5], dnnl_nChw16c);
        let r = reshape(&a, 3, &[2, 19, 20]).unwrap();
        assert!(md_equal(&r, &md(&[2, 19, 20], dnnl_nCw16c)));
        assert!(reshape(&a, 3, &[38, 4, 5]).is_none());
        let r = reshape(&a, 5, &[1, 2, 19, 4, 5]).unwrap();
        assert_eq!(r.blocking().inner_idxs[0], 2);
    }
}
