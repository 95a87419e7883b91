//! Forward operators: `aclnnUpsampleNearest{1d,1dV2,2d,2dV2,3d}` and
//! `aclnnUpsampleNearestExact{1d,2d,3d}`. Each `…GetWorkspaceSize` runs the original's
//! checks in the original's order (docs/spec/ascend.md §6), picks the per-axis ratio by the
//! API's scale rule (§4.1), and prepares one core plan; the run call executes it.

#![allow(non_snake_case)]

use super::checks::*;
use super::executor::{aclOpExecutor, deliver, prepare, run, Job, Op};
use super::meta::{aclIntArray, aclTensor};
use super::types::*;
use crate::core::Direction;
use std::ffi::c_void;

const INT32_MAX: i64 = i32::MAX as i64;

/// Dtypes the AICore kernels take; the V2 APIs use their scales only for these.
const AICORE: [aclDataType; 3] = [F32, F16, BF16];

/// Positive, or 161002.
fn positive(v: i64, what: &str) -> Res<()> {
    ensure(v > 0, || format!("{what} must be > 0, is {v}"))
}

fn nonzero(v: i64, what: &str) -> Res<()> {
    ensure(v != 0, || format!("{what} must not be 0"))
}

/// `CheckNCDimValid(a, b)`: `a`'s format is NCHW or NHWC; N and C agree (C at dim 3 for NHWC).
fn nc_dims_valid(a: &aclTensor, b: &aclTensor, names: (&str, &str)) -> Res<()> {
    ensure(
        a.format == ACL_FORMAT_NCHW || a.format == ACL_FORMAT_NHWC,
        || format!("{} format {} must be NCHW or NHWC", names.0, a.format),
    )?;
    let ci = if a.format == ACL_FORMAT_NHWC { 3 } else { 1 };
    let (an, bn) = (a.dim(0, names.0)?, b.dim(0, names.1)?);
    let (ac, bc) = (a.dim(ci, names.0)?, b.dim(ci, names.1)?);
    ensure(an == bn && ac == bc, || {
        format!(
            "N/C of {} ({an}, {ac}) and {} ({bn}, {bc}) differ",
            names.0, names.1
        )
    })
}

// ------------------------------------------------------------------------------------------
// 3d and Exact3d (§6.1, §6.2)

unsafe fn nearest3d(
    exact: bool,
    self_: *const aclTensor,
    output_size: *const aclIntArray,
    scales: [f64; 3],
    out: *mut aclTensor,
    ws: *mut u64,
    exec: *mut *mut aclOpExecutor,
) -> Res<Option<Job>> {
    // SAFETY: pointer arguments are NULL or valid as the aclnn API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        comm_input(ws, exec)?;
        let s = tensor(self_, "self")?;
        let o = tensor(out, "out")?;
        let os = int_array(output_size, "outputSize")?;
        let list: &[aclDataType] = if exact {
            &AICORE
        } else {
            &[F32, F16, F64, BF16]
        };
        dtypes(s, list, o, ("self", "out"))?;
        let cl = s.format == ACL_FORMAT_NDHWC;
        let (ci, sp) = if cl { (4, [1, 2, 3]) } else { (1, [2, 3, 4]) };
        let c = s.dim(ci, "self")?;
        let mut input = [0i64; 3];
        let mut output = [0i64; 3];
        for k in 0..3 {
            input[k] = s.dim(sp[k], "self")?;
            output[k] = os.at(k, "outputSize")?;
        }
        for k in 0..3 {
            positive(input[k], "self spatial size")?;
        }
        for k in 0..3 {
            positive(output[k], "outputSize element")?;
        }
        positive(c, "self C")?;
        let all_scales = scales.iter().all(|&x| x > 0.0);
        if exact && all_scales {
            for k in 0..3 {
                let (i, sc, got) = (input[k] as f64, scales[k], output[k]);
                let dst = (i * sc) as i64;
                let max = (i * (sc + 1e-5)) as i64;
                let min = (i * (sc - 1e-5)) as i64;
                ensure(got == dst || (min <= got && got <= max), || {
                    format!("outputSize[{k}] = {got} does not match input {i} times scale {sc}")
                })?;
            }
        }
        s.need_rank(5, "self")?;
        if !exact {
            o.need_rank(5, "out")?;
        }
        os.need_len(3, "outputSize")?;
        let n = s.dim(0, "self")?;
        let expect: Vec<i64> = if cl {
            vec![n, output[0], output[1], output[2], c]
        } else {
            vec![n, c, output[0], output[1], output[2]]
        };
        ensure(o.view == expect, || {
            format!("out shape {:?} differs from {expect:?}", o.view)
        })?;
        if s.is_empty() {
            return Ok(None);
        }
        let ratios = ratios_3d(&scales, &input, &output);
        let op = Op {
            direction: Direction::Forward,
            exact,
            src: s,
            src_cl: cl,
            dst: o,
            dst_cl: cl,
            n,
            c,
            input: input.to_vec(),
            output: output.to_vec(),
            ratios,
        };
        prepare(op).map(Some)
    }
}

/// Phase 1 of nearest 3-D upsampling (NCDHW, NDHWC or ND; f32, f16, bf16, double). The
/// scales are used only when all three are > 0.
#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearest3dGetWorkspaceSize(
    self_: *const aclTensor,
    outputSize: *const aclIntArray,
    scalesD: f64,
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
            let r = nearest3d(
                false,
                self_,
                outputSize,
                [scalesD, scalesH, scalesW],
                out,
                workspaceSize,
                executor,
            );
            deliver(
                "aclnnUpsampleNearest3dGetWorkspaceSize",
                r,
                workspaceSize,
                executor,
            )
        })
    }
}

/// Phase 2 of nearest 3-D upsampling: runs and frees the executor (the stream is ignored).
#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearest3d(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        let _ = stream;
        aclnn_guard!({ run("aclnnUpsampleNearest3d", workspace, workspaceSize, executor) })
    }
}

/// Phase 1 of nearest-exact 3-D upsampling (f32, f16, bf16). The scales are used only when
/// all three are > 0, and must then agree with outputSize.
#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearestExact3dGetWorkspaceSize(
    self_: *const aclTensor,
    outputSize: *const aclIntArray,
    scalesD: f64,
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
            let r = nearest3d(
                true,
                self_,
                outputSize,
                [scalesD, scalesH, scalesW],
                out,
                workspaceSize,
                executor,
            );
            deliver(
                "aclnnUpsampleNearestExact3dGetWorkspaceSize",
                r,
                workspaceSize,
                executor,
            )
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearestExact3d(
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
                "aclnnUpsampleNearestExact3d",
                workspace,
                workspaceSize,
                executor,
            )
        })
    }
}

// ------------------------------------------------------------------------------------------
// 1d and 1dV2 (§6.3, §6.5)

/// `scale`: `Some` for 1dV2 (its float scaleL), `None` for 1d.
unsafe fn nearest1d(
    self_: *const aclTensor,
    output_size: *const aclIntArray,
    scale: Option<f32>,
    out: *mut aclTensor,
) -> Res<Option<Job>> {
    // SAFETY: pointer arguments are NULL or valid as the aclnn API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        let s = tensor(self_, "self")?;
        let os = int_array(output_size, "outputSize")?;
        let o = tensor(out, "out")?;
        dtypes(s, &[F16, F32, F64, U8, BF16], o, ("self", "out"))?;
        ensure(os.len() > 0, || "outputSize is empty".into())?;
        s.need_rank(3, "self")?;
        nonzero(s.dim(1, "self")?, "self C")?;
        nonzero(s.dim(2, "self")?, "self L")?;
        let ol = os.at(0, "outputSize")?;
        if scale.is_some() {
            let got = o.dim(2, "out")?;
            ensure(ol == got, || {
                format!("outputSize[0] = {ol} differs from out L = {got}")
            })?;
        }
        nonzero(ol, "outputSize[0]")?;
        ensure(s.format == o.format, || {
            format!(
                "self format {} differs from out format {}",
                s.format, o.format
            )
        })?;
        ensure(s.format == ACL_FORMAT_NCL, || {
            format!("format {} must be NCL", s.format)
        })?;
        if s.is_empty() || o.is_empty() {
            return Ok(None);
        }
        let (n, c, il) = (s.dim(0, "self")?, s.dim(1, "self")?, s.dim(2, "self")?);
        let ratio = match scale {
            Some(sc) if sc > 0.0 && AICORE.contains(&s.dtype) => scale_ratio(sc as f64),
            _ => size_ratio(il, ol),
        };
        let op = Op {
            direction: Direction::Forward,
            exact: false,
            src: s,
            src_cl: false,
            dst: o,
            dst_cl: false,
            n,
            c,
            input: vec![il],
            output: vec![ol],
            ratios: vec![ratio],
        };
        prepare(op).map(Some)
    }
}

/// Phase 1 of nearest 1-D upsampling (NCL; f32, f16, bf16, double, uint8), r = in/out.
#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearest1dGetWorkspaceSize(
    self_: *const aclTensor,
    outputSize: *const aclIntArray,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            let r = nearest1d(self_, outputSize, None, out);
            deliver(
                "aclnnUpsampleNearest1dGetWorkspaceSize",
                r,
                workspaceSize,
                executor,
            )
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearest1d(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        let _ = stream;
        aclnn_guard!({ run("aclnnUpsampleNearest1d", workspace, workspaceSize, executor) })
    }
}

/// Phase 1 of nearest 1-D upsampling with a float scale (used when > 0, for f32/f16/bf16).
#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearest1dV2GetWorkspaceSize(
    self_: *const aclTensor,
    outputSize: *const aclIntArray,
    scaleL: f32,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            let r = nearest1d(self_, outputSize, Some(scaleL), out);
            deliver(
                "aclnnUpsampleNearest1dV2GetWorkspaceSize",
                r,
                workspaceSize,
                executor,
            )
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearest1dV2(
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
                "aclnnUpsampleNearest1dV2",
                workspace,
                workspaceSize,
                executor,
            )
        })
    }
}

// ------------------------------------------------------------------------------------------
// 2d and 2dV2 (§6.4, §6.5)

/// The shared CheckShape of 2d/2dV2: outputSize has 2 elements, self rank 4, H, W and the
/// output sizes non-zero, then C non-zero.
fn shape_2d(s: &aclTensor, os: &aclIntArray) -> Res<()> {
    os.need_len(2, "outputSize")?;
    s.need_rank(4, "self")?;
    nonzero(s.dim(2, "self")?, "self dim 2")?;
    nonzero(s.dim(3, "self")?, "self dim 3")?;
    nonzero(os.at(0, "outputSize")?, "outputSize[0]")?;
    nonzero(os.at(1, "outputSize")?, "outputSize[1]")?;
    nonzero(s.dim(1, "self")?, "self dim 1")
}

/// out H/W == outputSize, read by out's format.
fn out_hw_2d(o: &aclTensor, os: &aclIntArray) -> Res<()> {
    let (h, w) = match o.format {
        ACL_FORMAT_NCHW => (2, 3),
        ACL_FORMAT_NHWC => (1, 2),
        f => return Err(invalid(format!("out format {f} must be NCHW or NHWC"))),
    };
    let (oh, ow) = (o.dim(h, "out")?, o.dim(w, "out")?);
    let (eh, ew) = (os.at(0, "outputSize")?, os.at(1, "outputSize")?);
    ensure(oh == eh && ow == ew, || {
        format!("out H/W ({oh}, {ow}) differ from outputSize ({eh}, {ew})")
    })
}

/// Logical N, C, [H, W] of a 4-D tensor in `cl` (NHWC) or channels-first order.
fn nchw(t: &aclTensor, cl: bool, what: &str) -> Res<(i64, i64, [i64; 2])> {
    if cl {
        Ok((
            t.dim(0, what)?,
            t.dim(3, what)?,
            [t.dim(1, what)?, t.dim(2, what)?],
        ))
    } else {
        Ok((
            t.dim(0, what)?,
            t.dim(1, what)?,
            [t.dim(2, what)?, t.dim(3, what)?],
        ))
    }
}

/// `v2`: `Some((scalesH, scalesW))` for 2dV2, `None` for 2d.
unsafe fn nearest2d(
    self_: *const aclTensor,
    output_size: *const aclIntArray,
    v2: Option<(f32, f32)>,
    out: *mut aclTensor,
) -> Res<Option<Job>> {
    // SAFETY: pointer arguments are NULL or valid as the aclnn API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        let s = tensor(self_, "self")?;
        let (o, os) = if v2.is_some() {
            let o = tensor(out, "out")?;
            if s.is_empty() || o.is_empty() {
                return Ok(None);
            }
            dtypes(s, &[F16, F32, F64, U8, BF16], o, ("self", "out"))?;
            let os = int_array(output_size, "outputSize")?;
            shape_2d(s, os)?;
            nc_dims_valid(s, o, ("self", "out"))?;
            out_hw_2d(o, os)?;
            (o, os)
        } else {
            let os = int_array(output_size, "outputSize")?;
            let o = tensor(out, "out")?;
            dtypes(s, &[F16, F32, F64, U8, BF16], o, ("self", "out"))?;
            shape_2d(s, os)?;
            ensure(
                s.format == ACL_FORMAT_NCHW || s.format == ACL_FORMAT_NHWC,
                || format!("self format {} must be NCHW or NHWC", s.format),
            )?;
            ensure(s.format == o.format, || {
                format!(
                    "self format {} differs from out format {}",
                    s.format, o.format
                )
            })?;
            nc_dims_valid(s, o, ("self", "out"))?;
            out_hw_2d(o, os)?;
            ensure(
                s.view.iter().chain(&o.view).all(|&d| d <= INT32_MAX),
                || "a dim exceeds INT32_MAX".into(),
            )?;
            if s.is_empty() {
                return Ok(None);
            }
            (o, os)
        };
        let cl = s.format == ACL_FORMAT_NHWC;
        let (n, c, input) = nchw(s, cl, "self")?;
        let output = [os.at(0, "outputSize")?, os.at(1, "outputSize")?];
        let ratios = match v2 {
            Some((sh, sw)) if sh > 0.0 && sw > 0.0 && AICORE.contains(&s.dtype) => {
                let vectorized = (cl && c > 3) || output[0].saturating_add(output[1]) <= 128;
                [sh, sw]
                    .iter()
                    .enumerate()
                    .map(|(k, &sc)| {
                        if input[k] == output[k] {
                            1.0
                        } else if Some(output[k]) == input[k].checked_mul(2) && vectorized {
                            0.5
                        } else {
                            scale_ratio(sc as f64)
                        }
                    })
                    .collect()
            }
            _ => (0..2).map(|k| size_ratio(input[k], output[k])).collect(),
        };
        let op = Op {
            direction: Direction::Forward,
            exact: false,
            src: s,
            src_cl: cl,
            dst: o,
            dst_cl: cl,
            n,
            c,
            input: input.to_vec(),
            output: output.to_vec(),
            ratios,
        };
        prepare(op).map(Some)
    }
}

/// Phase 1 of nearest 2-D upsampling (NCHW/NHWC; f32, f16, bf16, double, uint8), r = in/out.
#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearest2dGetWorkspaceSize(
    self_: *const aclTensor,
    outputSize: *const aclIntArray,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            let r = nearest2d(self_, outputSize, None, out);
            deliver(
                "aclnnUpsampleNearest2dGetWorkspaceSize",
                r,
                workspaceSize,
                executor,
            )
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearest2d(
    workspace: *mut c_void,
    workspaceSize: u64,
    executor: *mut aclOpExecutor,
    stream: aclrtStream,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        let _ = stream;
        aclnn_guard!({ run("aclnnUpsampleNearest2d", workspace, workspaceSize, executor) })
    }
}

/// Phase 1 of nearest 2-D upsampling with float scales: used only when both are > 0 (for
/// f32/f16/bf16), with PyTorch's shortcuts: in == out gives r = 1, out == 2·in gives
/// r = 0.5 when (NHWC and C > 3) or outH + outW <= 128.
#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearest2dV2GetWorkspaceSize(
    self_: *const aclTensor,
    outputSize: *const aclIntArray,
    scalesH: f32,
    scalesW: f32,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            let r = nearest2d(self_, outputSize, Some((scalesH, scalesW)), out);
            deliver(
                "aclnnUpsampleNearest2dV2GetWorkspaceSize",
                r,
                workspaceSize,
                executor,
            )
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearest2dV2(
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
                "aclnnUpsampleNearest2dV2",
                workspace,
                workspaceSize,
                executor,
            )
        })
    }
}

// ------------------------------------------------------------------------------------------
// Exact1d and Exact2d (§6.6, §6.7)

/// The Exact1d/2d ratio: `r = s > 0 ? (float)(1/s) : 0`; then 1.0 when `in == out` (2-D
/// only), `r` when > 0, else in/out.
fn exact_ratio(scale: f64, input: i64, output: i64, same_size_shortcut: bool) -> f32 {
    let r = if scale > 0.0 { scale_ratio(scale) } else { 0.0 };
    if same_size_shortcut && input == output {
        1.0
    } else if r > 0.0 {
        r
    } else {
        size_ratio(input, output)
    }
}

unsafe fn exact1d(
    self_: *const aclTensor,
    output_size: *const aclIntArray,
    scale: f64,
    out: *mut aclTensor,
    ws: *mut u64,
    exec: *mut *mut aclOpExecutor,
) -> Res<Option<Job>> {
    // SAFETY: pointer arguments are NULL or valid as the aclnn API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        comm_input(ws, exec)?;
        let s = tensor(self_, "self")?;
        let o = tensor(out, "out")?;
        let os = int_array(output_size, "outputSize")?;
        dtypes(s, &[F32, F16, BF16, U8], o, ("self", "out"))?;
        let (n, c, il) = (s.dim(0, "self")?, s.dim(1, "self")?, s.dim(2, "self")?);
        let ol = os.at(0, "outputSize")?;
        positive(n, "self N")?;
        positive(c, "self C")?;
        positive(il, "self L")?;
        positive(ol, "outputSize[0]")?;
        s.need_rank(3, "self")?;
        os.need_len(1, "outputSize")?;
        if s.is_empty() {
            return Ok(None);
        }
        let op = Op {
            direction: Direction::Forward,
            exact: true,
            src: s,
            src_cl: false,
            dst: o,
            dst_cl: false,
            n,
            c,
            input: vec![il],
            output: vec![ol],
            ratios: vec![exact_ratio(scale, il, ol, false)],
        };
        prepare(op).map(Some)
    }
}

/// Phase 1 of nearest-exact 1-D upsampling (N, C, L; f32, f16, bf16, uint8).
#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearestExact1dGetWorkspaceSize(
    self_: *const aclTensor,
    outputSize: *const aclIntArray,
    scales: f64,
    out: *mut aclTensor,
    workspaceSize: *mut u64,
    executor: *mut *mut aclOpExecutor,
) -> aclnnStatus {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as the aclnn API
    // documents for this function.
    unsafe {
        aclnn_guard!({
            let r = exact1d(self_, outputSize, scales, out, workspaceSize, executor);
            deliver(
                "aclnnUpsampleNearestExact1dGetWorkspaceSize",
                r,
                workspaceSize,
                executor,
            )
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearestExact1d(
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
                "aclnnUpsampleNearestExact1d",
                workspace,
                workspaceSize,
                executor,
            )
        })
    }
}

unsafe fn exact2d(
    self_: *const aclTensor,
    output_size: *const aclIntArray,
    scales: [f64; 2],
    out: *mut aclTensor,
    ws: *mut u64,
    exec: *mut *mut aclOpExecutor,
) -> Res<Option<Job>> {
    // SAFETY: pointer arguments are NULL or valid as the aclnn API documents (the C caller's
    // contract, passed on by the exported function).
    unsafe {
        comm_input(ws, exec)?;
        let s = tensor(self_, "self")?;
        let os = int_array(output_size, "outputSize")?;
        let o = tensor(out, "out")?;
        if s.is_empty() || o.is_empty() {
            return Ok(None);
        }
        dtypes(s, &[F32, F16, BF16, U8], o, ("self", "out"))?;
        s.need_rank(4, "self")?;
        os.need_len(2, "outputSize")?;
        let cl = s.format == ACL_FORMAT_NHWC;
        let (n, c, input) = nchw(s, cl, "self")?;
        let output = [os.at(0, "outputSize")?, os.at(1, "outputSize")?];
        for (v, what) in [
            (input[0], "self H"),
            (input[1], "self W"),
            (output[0], "outputSize[0]"),
            (output[1], "outputSize[1]"),
        ] {
            positive(v, what)?;
        }
        let (on, oc, _) = nchw(o, cl, "out")?;
        ensure(n == on && c == oc, || {
            format!("N/C of self ({n}, {c}) and out ({on}, {oc}) differ")
        })?;
        ensure(
            [ACL_FORMAT_NCHW, ACL_FORMAT_NHWC, ACL_FORMAT_ND].contains(&s.format),
            || format!("self format {} must be NCHW, NHWC or ND", s.format),
        )?;
        ensure(s.format == o.format, || {
            format!(
                "self format {} differs from out format {}",
                s.format, o.format
            )
        })?;
        let ratios = (0..2)
            .map(|k| exact_ratio(scales[k], input[k], output[k], true))
            .collect();
        let op = Op {
            direction: Direction::Forward,
            exact: true,
            src: s,
            src_cl: cl,
            dst: o,
            dst_cl: cl,
            n,
            c,
            input: input.to_vec(),
            output: output.to_vec(),
            ratios,
        };
        prepare(op).map(Some)
    }
}

/// Phase 1 of nearest-exact 2-D upsampling (NCHW, NHWC, ND; f32, f16, bf16, uint8).
#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearestExact2dGetWorkspaceSize(
    self_: *const aclTensor,
    outputSize: *const aclIntArray,
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
            let r = exact2d(
                self_,
                outputSize,
                [scalesH, scalesW],
                out,
                workspaceSize,
                executor,
            );
            deliver(
                "aclnnUpsampleNearestExact2dGetWorkspaceSize",
                r,
                workspaceSize,
                executor,
            )
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn aclnnUpsampleNearestExact2d(
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
                "aclnnUpsampleNearestExact2d",
                workspace,
                workspaceSize,
                executor,
            )
        })
    }
}
