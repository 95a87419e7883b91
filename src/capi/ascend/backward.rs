//! Backward operators: `aclnnUpsampleNearest{1d,2d,3d}Backward` and
//! `aclnnUpsampleNearestExact{1d,2d,3d}Backward`. Each gradOut element goes to the input
//! cell the forward index function picks (PyTorch CPU); the core computes that as a gather
//! with one f32 accumulator per gradInput element (f64 for double), rounded once.
//! Checks follow docs/spec/ascend.md §6.8–§6.13 in order.

#![allow(non_snake_case)]

use super::checks::*;
use super::executor::{aclOpExecutor, deliver, prepare, run, Job, Op};
use super::meta::{aclIntArray, aclTensor};
use super::types::*;
use crate::core::Direction;
use std::ffi::c_void;

const INT32_MAX: i64 = i32::MAX as i64;

fn positive(v: i64, what: &str) -> Res<()> {
    ensure(v > 0, || format!("{what} must be > 0, is {v}"))
}

/// Physical view shape of logical `[n, c, spatial…]` under a channels-last format.
fn physical(n: i64, c: i64, sp: &[i64], cl: bool) -> Vec<i64> {
    let mut v = vec![n];
    if cl {
        v.extend(sp);
        v.push(c);
    } else {
        v.push(c);
        v.extend(sp);
    }
    v
}

/// Per-dim ratio: the scale when > 0, else in/out.
fn per_dim_ratio(scale: f64, input: i64, output: i64) -> f32 {
    if scale > 0.0 {
        scale_ratio(scale)
    } else {
        size_ratio(input, output)
    }
}

// ------------------------------------------------------------------------------------------
// 3d and Exact3d backward (§6.8, §6.9)

#[allow(clippy::too_many_arguments)]
unsafe fn backward3d(
    exact: bool,
    grad_out: *const aclTensor,
    output_size: *const aclIntArray,
    input_size: *const aclIntArray,
    scales: [f64; 3],
    grad_input: *mut aclTensor,
    ws: *mut u64,
    exec: *mut *mut aclOpExecutor,
) -> Res<Option<Job>> {
    // SAFETY: pointer arguments are NULL or valid as the aclnn API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        comm_input(ws, exec)?;
        let g = tensor(grad_out, "gradOut")?;
        let os = int_array(output_size, "outputSize")?;
        let is = int_array(input_size, "inputSize")?;
        let gi = tensor(grad_input, "gradInput")?;
        let list: &[aclDataType] = if exact {
            &[F32, F16, BF16]
        } else {
            &[F32, F16, F64, BF16]
        };
        dtypes(g, list, gi, ("gradOut", "gradInput"))?;
        g.need_rank(5, "gradOut")?;
        os.need_len(3, "outputSize")?;
        is.need_len(5, "inputSize")?;
        let (n, c) = (is.at(0, "inputSize")?, is.at(1, "inputSize")?);
        let input: Vec<i64> = is.values[2..5].to_vec();
        let output: Vec<i64> = os.values[..3].to_vec();
        for &v in &input {
            positive(v, "inputSize spatial element")?;
        }
        for &v in &output {
            positive(v, "outputSize element")?;
        }
        let (g_cl, gi_cl) = (g.format == ACL_FORMAT_NDHWC, gi.format == ACL_FORMAT_NDHWC);
        let eg = physical(n, c, &output, g_cl);
        ensure(g.view == eg, || {
            format!("gradOut shape {:?} differs from {eg:?}", g.view)
        })?;
        let egi = physical(n, c, &input, gi_cl);
        ensure(gi.view == egi, || {
            format!("gradInput shape {:?} differs from {egi:?}", gi.view)
        })?;
        if exact {
            for k in 0..3 {
                let real = if scales[k] > 0.0 {
                    scales[k]
                } else {
                    output[k] as f64 / input[k] as f64
                };
                ensure(real <= 50.0, || {
                    format!("scale {real} of spatial dim {k} exceeds 50")
                })?;
            }
            ensure(g.view.iter().all(|&d| d <= INT32_MAX), || {
                "a gradOut dim exceeds INT32_MAX".into()
            })?;
        } else {
            ensure(
                [n, c]
                    .iter()
                    .chain(&input)
                    .chain(&output)
                    .all(|&d| d <= INT32_MAX),
                || "a size exceeds INT32_MAX".into(),
            )?;
        }
        if g.is_empty() {
            return Ok(None);
        }
        let ratios = ratios_3d(&scales, &input, &output);
        let op = Op {
            direction: Direction::Backward,
            exact,
            src: g,
            src_cl: g_cl,
            dst: gi,
            dst_cl: gi_cl,
            n,
            c,
            input,
            output,
            ratios,
        };
        prepare(op).map(Some)
    }
}

/// Phase 1 of the nearest 3-D backward (f32, f16, bf16, double). `inputSize` is the full
/// forward-input shape [N, C, D, H, W]; scales are used only when all three are > 0.
#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearest3dBackwardGetWorkspaceSize(
    gradOut: *const aclTensor,
    outputSize: *const aclIntArray,
    inputSize: *const aclIntArray,
    scalesD: f64,
    scalesH: f64,
    scalesW: f64,
    gradInput: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            let r = backward3d(
                false,
                gradOut,
                outputSize,
                inputSize,
                [scalesD, scalesH, scalesW],
                gradInput,
                workspaceSize,
                executor,
            );
            deliver(
                "aclnnUpsampleNearest3dBackwardGetWorkspaceSize",
                r,
                workspaceSize,
                executor,
            )
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearest3dBackward(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        let _ = stream;
        aclnn_guard!({
            run(
                "aclnnUpsampleNearest3dBackward",
                workspace,
                workspaceSize,
                executor,
            )
        })
    }
}

/// Phase 1 of the nearest-exact 3-D backward (f32, f16, bf16; every real scale <= 50).
#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(
    gradOut: *const aclTensor,
    outputSize: *const aclIntArray,
    inputSize: *const aclIntArray,
    scalesD: f64,
    scalesH: f64,
    scalesW: f64,
    gradInput: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            let r = backward3d(
                true,
                gradOut,
                outputSize,
                inputSize,
                [scalesD, scalesH, scalesW],
                gradInput,
                workspaceSize,
                executor,
            );
            deliver(
                "aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize",
                r,
                workspaceSize,
                executor,
            )
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearestExact3dBackward(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        let _ = stream;
        aclnn_guard!({
            run(
                "aclnnUpsampleNearestExact3dBackward",
                workspace,
                workspaceSize,
                executor,
            )
        })
    }
}

// ------------------------------------------------------------------------------------------
// 2d backward (§6.10)

unsafe fn backward2d(
    grad_out: *const aclTensor,
    output_size: *const aclIntArray,
    input_size: *const aclIntArray,
    scales: [f64; 2],
    grad_input: *mut aclTensor,
) -> Res<Option<Job>> {
    // SAFETY: pointer arguments are NULL or valid as the aclnn API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        let g = tensor(grad_out, "gradOut")?;
        let os = int_array(output_size, "outputSize")?;
        let is = int_array(input_size, "inputSize")?;
        let gi = tensor(grad_input, "gradInput")?;
        dtypes(g, &[F32, F16, BF16], gi, ("gradOut", "gradInput"))?;
        g.need_rank(4, "gradOut")?;
        os.need_len(2, "outputSize")?;
        is.need_len(4, "inputSize")?;
        // CheckNCDimValid(gradInput, gradOut).
        ensure(
            gi.format == ACL_FORMAT_NCHW || gi.format == ACL_FORMAT_NHWC,
            || format!("gradInput format {} must be NCHW or NHWC", gi.format),
        )?;
        let ci = if gi.format == ACL_FORMAT_NHWC { 3 } else { 1 };
        let (a, b) = (
            (gi.dim(0, "gradInput")?, gi.dim(ci, "gradInput")?),
            (g.dim(0, "gradOut")?, g.dim(ci, "gradOut")?),
        );
        ensure(a == b, || {
            format!("N/C of gradInput {a:?} and gradOut {b:?} differ")
        })?;
        let cl = g.format == ACL_FORMAT_NHWC;
        let v = &is.values;
        let (n, c, input) = if cl {
            (v[0], v[3], vec![v[1], v[2]])
        } else {
            (v[0], v[1], vec![v[2], v[3]])
        };
        let output = os.values[..2].to_vec();
        for &x in input.iter().chain(&output) {
            positive(x, "spatial size")?;
        }
        let eg = physical(n, c, &output, cl);
        ensure(g.view == eg, || {
            format!("gradOut shape {:?} differs from {eg:?}", g.view)
        })?;
        if g.is_empty() || gi.is_empty() {
            return Ok(None);
        }
        let egi = physical(n, c, &input, cl);
        ensure(gi.view == egi, || {
            format!("gradInput shape {:?} differs from {egi:?}", gi.view)
        })?;
        let ratios = (0..2)
            .map(|k| per_dim_ratio(scales[k], input[k], output[k]))
            .collect();
        let op = Op {
            direction: Direction::Backward,
            exact: false,
            src: g,
            src_cl: cl,
            dst: gi,
            dst_cl: cl,
            n,
            c,
            input,
            output,
            ratios,
        };
        prepare(op).map(Some)
    }
}

/// Phase 1 of the nearest 2-D backward (NCHW/NHWC; f32, f16, bf16). `inputSize` is the
/// forward-input shape ([N, H, W, C] when gradOut is NHWC); scales are used per dim when > 0.
#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearest2dBackwardGetWorkspaceSize(
    gradOut: *const aclTensor,
    outputSize: *const aclIntArray,
    inputSize: *const aclIntArray,
    scalesH: f64,
    scalesW: f64,
    gradInput: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            let r = backward2d(
                gradOut,
                outputSize,
                inputSize,
                [scalesH, scalesW],
                gradInput,
            );
            deliver(
                "aclnnUpsampleNearest2dBackwardGetWorkspaceSize",
                r,
                workspaceSize,
                executor,
            )
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearest2dBackward(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        let _ = stream;
        aclnn_guard!({
            run(
                "aclnnUpsampleNearest2dBackward",
                workspace,
                workspaceSize,
                executor,
            )
        })
    }
}

// ------------------------------------------------------------------------------------------
// 1d backward (§6.11)

unsafe fn backward1d(
    grad_out: *const aclTensor,
    output_size: *const aclIntArray,
    input_size: *const aclIntArray,
    scale: f64,
    out: *mut aclTensor,
) -> Res<Option<Job>> {
    // SAFETY: pointer arguments are NULL or valid as the aclnn API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        let g = tensor(grad_out, "gradOut")?;
        let os = int_array(output_size, "outputSize")?;
        let is = int_array(input_size, "inputSize")?;
        let o = tensor(out, "out")?;
        g.need_rank(3, "gradOut")?;
        os.need_len(1, "outputSize")?;
        is.need_len(3, "inputSize")?;
        dtypes(g, &[F16, F32, F64, BF16], o, ("gradOut", "out"))?;
        let (n, c, il, ol) = (is.values[0], is.values[1], is.values[2], os.values[0]);
        positive(il, "inputSize[2]")?;
        positive(ol, "outputSize[0]")?;
        ensure(g.view == [n, c, ol], || {
            format!("gradOut shape {:?} differs from [{n}, {c}, {ol}]", g.view)
        })?;
        let (on, oc) = (o.dim(0, "out")?, o.dim(1, "out")?);
        ensure(g.view[0] == on && g.view[1] == oc, || {
            format!("N/C of gradOut and out ({on}, {oc}) differ")
        })?;
        if g.is_empty() || o.is_empty() {
            return Ok(None);
        }
        ensure(o.view == [n, c, il], || {
            format!("out shape {:?} differs from [{n}, {c}, {il}]", o.view)
        })?;
        let op = Op {
            direction: Direction::Backward,
            exact: false,
            src: g,
            src_cl: false,
            dst: o,
            dst_cl: false,
            n,
            c,
            input: vec![il],
            output: vec![ol],
            ratios: vec![per_dim_ratio(scale, il, ol)],
        };
        prepare(op).map(Some)
    }
}

/// Phase 1 of the nearest 1-D backward (f32, f16, bf16, double). `inputSize` = [N, C, L].
#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearest1dBackwardGetWorkspaceSize(
    gradOut: *const aclTensor,
    outputSize: *const aclIntArray,
    inputSize: *const aclIntArray,
    scales: f64,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            let r = backward1d(gradOut, outputSize, inputSize, scales, out);
            deliver(
                "aclnnUpsampleNearest1dBackwardGetWorkspaceSize",
                r,
                workspaceSize,
                executor,
            )
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearest1dBackward(
    workspace: *mut c_void,
    workspace_size: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        let _ = stream;
        aclnn_guard!({
            run(
                "aclnnUpsampleNearest1dBackward",
                workspace,
                workspace_size,
                executor,
            )
        })
    }
}

// ------------------------------------------------------------------------------------------
// Exact1d and Exact2d backward (§6.12, §6.13)

/// `rank` 3 (Exact1d) or 4 (Exact2d); `scales` has `rank - 2` entries.
#[allow(clippy::too_many_arguments)]
unsafe fn exact_backward(
    rank: usize,
    grad_output: *const aclTensor,
    output_size: *const aclIntArray,
    input_size: *const aclIntArray,
    scales: &[f64],
    out: *mut aclTensor,
    ws: *mut u64,
    exec: *mut *mut aclOpExecutor,
) -> Res<Option<Job>> {
    // SAFETY: pointer arguments are NULL or valid as the aclnn API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        comm_input(ws, exec)?;
        let g = tensor(grad_output, "gradOutput")?;
        let is = int_array(input_size, "inputSize")?;
        let o = tensor(out, "out")?;
        let two = rank == 4;
        if two && (g.is_empty() || o.is_empty()) {
            return Ok(None);
        }
        dtypes(g, &[F32, F16, BF16], o, ("gradOutput", "out"))?;
        ensure(g.format == o.format, || {
            format!(
                "gradOutput format {} differs from out format {}",
                g.format, o.format
            )
        })?;
        g.need_rank(rank, "gradOutput")?;
        o.need_rank(rank, "out")?;
        is.need_len(rank, "inputSize")?;
        let os = int_array(output_size, "outputSize")?;
        os.need_len(rank - 2, "outputSize")?;
        if two {
            ensure(g.format != ACL_FORMAT_NHWC, || {
                "gradOutput format NHWC is not supported (only NCHW, ND)".into()
            })?;
        }
        ensure(g.view[0] == o.view[0] && g.view[1] == o.view[1], || {
            format!("N/C of gradOutput {:?} and out {:?} differ", g.view, o.view)
        })?;
        ensure(scales.iter().all(|&s| s >= 0.0), || {
            format!("scales {scales:?} must not be negative")
        })?;
        let (n, c) = (is.values[0], is.values[1]);
        let input = is.values[2..].to_vec();
        let output = os.values.clone();
        for k in 0..rank - 2 {
            let inv = if scales[k] > 0.0 {
                1.0 / scales[k]
            } else {
                input[k] as f64 / g.view[2 + k] as f64
            };
            ensure(inv >= 0.02, || {
                format!("inverse scale {inv} of spatial dim {k} is below 0.02")
            })?;
        }
        positive(n, "N")?;
        positive(c, "C")?;
        for k in 0..rank - 2 {
            positive(input[k], "inputSize spatial element")?;
            positive(g.view[2 + k], "gradOutput spatial size")?;
        }
        if !two && (g.is_empty() || o.is_empty()) {
            return Ok(None);
        }
        // Guards: outputSize must describe gradOutput (the original never compares them).
        for k in 0..rank - 2 {
            positive(output[k], "outputSize element")?;
        }
        let ratios = (0..rank - 2)
            .map(|k| per_dim_ratio(scales[k], input[k], output[k]))
            .collect();
        let op = Op {
            direction: Direction::Backward,
            exact: true,
            src: g,
            src_cl: false,
            dst: o,
            dst_cl: false,
            n,
            c,
            input,
            output,
            ratios,
        };
        prepare(op).map(Some)
    }
}

/// Phase 1 of the nearest-exact 2-D backward (NCHW/ND; f32, f16, bf16). `inputSize` =
/// [N, C, H, W]; scales are used per dim when > 0.
#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(
    gradOutput: *const aclTensor,
    outputSize: *const aclIntArray,
    inputSize: *const aclIntArray,
    scalesH: f64,
    scalesW: f64,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            let r = exact_backward(
                4,
                gradOutput,
                outputSize,
                inputSize,
                &[scalesH, scalesW],
                out,
                workspaceSize,
                executor,
            );
            deliver(
                "aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize",
                r,
                workspaceSize,
                executor,
            )
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearestExact2dBackward(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        let _ = stream;
        aclnn_guard!({
            run(
                "aclnnUpsampleNearestExact2dBackward",
                workspace,
                workspaceSize,
                executor,
            )
        })
    }
}

/// Phase 1 of the nearest-exact 1-D backward (f32, f16, bf16). `inputSize` = [N, C, L].
#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(
    gradOutput: *const aclTensor,
    outputSize: *const aclIntArray,
    inputSize: *const aclIntArray,
    scales: f64,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            let r = exact_backward(
                3,
                gradOutput,
                outputSize,
                inputSize,
                &[scales],
                out,
                workspaceSize,
                executor,
            );
            deliver(
                "aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize",
                r,
                workspaceSize,
                executor,
            )
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearestExact1dBackward(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        let _ = stream;
        aclnn_guard!({
            run(
                "aclnnUpsampleNearestExact1dBackward",
                workspace,
                workspaceSize,
                executor,
            )
        })
    }
}
