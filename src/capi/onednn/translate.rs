//! Translation of resolved oneDNN memory descriptors and a resampling desc into a core
//! [`Problem`]; nothing here computes coordinates.

use crate::core::{Algorithm, AxisRule, DataType, Direction, Layout, Numerics, Problem};

use super::types::*;

/// Why a descriptor cannot be translated: `dnnl_invalid_arguments` or `dnnl_unimplemented`,
/// with a message for the verbose line.
pub(crate) type Refusal = (dnnl_status_t, String);

fn unimpl(msg: impl Into<String>) -> Refusal {
    (dnnl_unimplemented, msg.into())
}

pub(crate) fn data_type(dt: dnnl_data_type_t) -> Option<DataType> {
    Some(match dt {
        dnnl_f32 => DataType::F32,
        dnnl_f16 => DataType::F16,
        dnnl_bf16 => DataType::Bf16,
        dnnl_s32 => DataType::S32,
        dnnl_s8 => DataType::S8,
        dnnl_u8 => DataType::U8,
        _ => return None,
    })
}

/// The core layout of a blocked descriptor with at most one inner block per dimension.
pub(crate) fn layout_of(md: &dnnl_memory_desc_t, what: &str) -> Result<Layout, Refusal> {
    if md.format_kind != dnnl_blocked {
        return Err(unimpl(format!(
            "{what}: format kind {} is not blocked",
            md.format_kind
        )));
    }
    let Some(dtype) = data_type(md.data_type) else {
        return Err(unimpl(format!(
            "{what}: data type {} is not supported",
            md.data_type
        )));
    };
    if md.extra.flags != 0 {
        return Err(unimpl(format!("{what}: extra flags are not supported")));
    }
    if !(1..=5).contains(&md.ndims) {
        return Err(unimpl(format!("{what}: {} dims", md.ndims)));
    }
    let nd = md.ndims as usize;
    let blk = md.blocking();
    if !(0..=nd as i32).contains(&blk.inner_nblks) {
        return Err(unimpl(format!("{what}: {} inner blocks", blk.inner_nblks)));
    }
    let nblks = blk.inner_nblks as usize;
    let mut blocks = vec![1usize; nd];
    let mut inner_strides = vec![0usize; nd];
    let mut inner_stride = 1usize;
    for k in (0..nblks).rev() {
        let (b, d) = (blk.inner_blks[k], blk.inner_idxs[k]);
        if !(0..nd as i64).contains(&d) || b <= 0 {
            return Err((
                dnnl_invalid_arguments,
                format!("{what}: bad inner block {b} on dim {d}"),
            ));
        }
        let d = d as usize;
        if blocks[d] != 1 {
            return Err(unimpl(format!("{what}: dim {d} is blocked twice")));
        }
        blocks[d] = b as usize;
        inner_strides[d] = inner_stride;
        inner_stride = inner_stride.checked_mul(b as usize).ok_or_else(|| {
            (
                dnnl_invalid_arguments,
                format!("{what}: inner blocks overflow"),
            )
        })?;
    }
    let mut dims = vec![0usize; nd];
    let mut padded = vec![0usize; nd];
    let mut strides = vec![0usize; nd];
    for d in 0..nd {
        let (n, p, s) = (md.dims[d], md.padded_dims[d], blk.strides[d]);
        if n < 0 || p < n || s < 0 || md.padded_offsets[d] != 0 {
            return Err(unimpl(format!(
                "{what}: dim {d}: size {n}, padded {p}, stride {s} not supported"
            )));
        }
        dims[d] = n as usize;
        padded[d] = p as usize;
        strides[d] = s as usize;
    }
    if md.offset0 < 0 {
        return Err(unimpl(format!("{what}: negative offset0")));
    }
    let l = Layout {
        dtype,
        dims,
        padded,
        strides,
        blocks,
        inner_strides,
        offset: md.offset0 as usize,
    };
    l.validate().map_err(|e| unimpl(format!("{what}: {e}")))?;
    // A caller allocates `dnnl_memory_desc_get_size` bytes. Self-overlapping strides (all
    // zero, or [1, 1] over 4x4) make that smaller than the bytes the tensor addresses, and
    // reading them would run past the caller's buffer. (A submemory, offset0 != 0, lives in
    // its parent's buffer: get_size is 0 by definition there.)
    let span = l.span_bytes().unwrap_or(usize::MAX);
    let size = super::md::md_size(md);
    if md.offset0 == 0 && !l.is_empty() && size < span {
        return Err(unimpl(format!(
            "{what}: its strides address {span} bytes, but dnnl_memory_desc_get_size reports {size}"
        )));
    }
    Ok(l)
}

/// Builds the core problem. `input`/`output` are the tensors read and written (forward:
/// src/dst; backward: diff_dst/diff_src).
/// `jit_backward`: libdnnl would run this backward problem on its jit kernel, whose nearest
/// ranges differ from `ref`'s at ties ([`AxisRule::OnednnHalfPixelJitBwd`]).
pub(crate) fn problem(
    alg: dnnl_alg_kind_t,
    forward: bool,
    jit_backward: bool,
    input: &Layout,
    output: &Layout,
) -> Problem {
    let rank = input.rank();
    let mut axes = vec![AxisRule::Identity; rank];
    let rule = if !forward && jit_backward {
        AxisRule::OnednnHalfPixelJitBwd
    } else {
        AxisRule::OnednnHalfPixel
    };
    for a in axes.iter_mut().skip(2) {
        *a = rule;
    }
    Problem {
        alg: if alg == dnnl_resampling_nearest {
            Algorithm::Nearest
        } else {
            Algorithm::Linear
        },
        direction: if forward {
            Direction::Forward
        } else {
            Direction::Backward
        },
        axes,
        src: input.clone(),
        dst: output.clone(),
        post_ops: Vec::new(),
        numerics: Numerics::Onednn,
    }
}
