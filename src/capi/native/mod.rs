//! The native C API (`resample_*`): a small, stable surface over the core for programs that
//! do not mimic another library. Describe a problem in a [`resample_problem_t`], create a
//! plan once with [`resample_plan_create`], execute it any number of times, from any thread,
//! with [`resample_execute`]. Every coordinate rule of the core is reachable here: oneDNN
//! half-pixel, the ONNX Resize modes, PyTorch nearest / nearest-exact / linear, DirectML
//! scale + offsets. See docs/native.md.
//!
//! Inputs arrive as plain integers (never as Rust enums, which a hostile value could make
//! undefined); every call returns a status and, on failure, leaves a message for
//! [`resample_last_error`].

#![allow(non_camel_case_types)]

use std::cell::RefCell;
use std::ffi::{c_char, c_void, CString};

use crate::core::axis::{torch_linear_scale, torch_nearest_ratio};
use crate::core::{
    Algorithm, AxisRule, CoreError, DataType, Direction, Layout, NearestRounding, Numerics,
    OnnxCoord, OnnxNearest, Plan, Problem, MAX_RANK,
};

/// Status of a native API call.
pub type resample_status_t = i32;
/// The call succeeded.
pub const RESAMPLE_SUCCESS: resample_status_t = 0;
/// An argument is NULL, out of range or inconsistent.
pub const RESAMPLE_INVALID_ARGUMENT: resample_status_t = 1;
/// A well-formed request this library does not implement (e.g. tf_crop_and_resize).
pub const RESAMPLE_UNSUPPORTED: resample_status_t = 2;
/// Memory for tables or copies could not be obtained.
pub const RESAMPLE_OUT_OF_MEMORY: resample_status_t = 3;
/// An internal error (a bug): the call was abandoned safely.
pub const RESAMPLE_RUNTIME_ERROR: resample_status_t = 4;

/// Element types (`resample_problem_t::src_type`, `dst_type`).
pub const RESAMPLE_F32: i32 = 1;
pub const RESAMPLE_F16: i32 = 2;
pub const RESAMPLE_BF16: i32 = 3;
pub const RESAMPLE_S32: i32 = 4;
pub const RESAMPLE_S8: i32 = 5;
pub const RESAMPLE_U8: i32 = 6;
/// Nearest without type conversion only.
pub const RESAMPLE_F64: i32 = 7;

/// Algorithms (`resample_problem_t::algorithm`).
pub const RESAMPLE_NEAREST: i32 = 0;
pub const RESAMPLE_LINEAR: i32 = 1;
/// Linear with a normalised tent filter when shrinking (ONNX and DirectML rules).
pub const RESAMPLE_ANTIALIAS: i32 = 2;

/// Directions (`resample_problem_t::direction`).
pub const RESAMPLE_FORWARD: i32 = 0;
/// src is diff_dst (output sizes), dst is diff_src (input sizes); dst is overwritten.
pub const RESAMPLE_BACKWARD: i32 = 1;

/// Axis rules (`resample_axis_t::rule`).
/// The axis is not resampled (src and dst sizes must be equal).
pub const RESAMPLE_RULE_IDENTITY: i32 = 0;
/// oneDNN: `(o + 0.5) * I / O - 0.5` in f32, nearest `roundf`, oneDNN backward ranges.
pub const RESAMPLE_RULE_ONEDNN: i32 = 1;
/// ONNX Resize `coordinate_transformation_mode` = half_pixel.
pub const RESAMPLE_RULE_ONNX_HALF_PIXEL: i32 = 2;
/// ONNX pytorch_half_pixel.
pub const RESAMPLE_RULE_ONNX_PYTORCH_HALF_PIXEL: i32 = 3;
/// ONNX align_corners.
pub const RESAMPLE_RULE_ONNX_ALIGN_CORNERS: i32 = 4;
/// ONNX asymmetric.
pub const RESAMPLE_RULE_ONNX_ASYMMETRIC: i32 = 5;
/// ONNX half_pixel_symmetric.
pub const RESAMPLE_RULE_ONNX_HALF_PIXEL_SYMMETRIC: i32 = 6;
/// ONNX tf_crop_and_resize: refused with RESAMPLE_UNSUPPORTED (needs roi and extrapolation).
pub const RESAMPLE_RULE_ONNX_TF_CROP_AND_RESIZE: i32 = 7;
/// PyTorch `mode="nearest"`: `min(floor(o * r), I - 1)`.
pub const RESAMPLE_RULE_TORCH_NEAREST: i32 = 8;
/// PyTorch `mode="nearest-exact"`: `min(floor((o + 0.5) * r), I - 1)`.
pub const RESAMPLE_RULE_TORCH_NEAREST_EXACT: i32 = 9;
/// PyTorch linear / bilinear / trilinear, align_corners=False.
pub const RESAMPLE_RULE_TORCH_LINEAR: i32 = 10;
/// PyTorch linear / bilinear / trilinear, align_corners=True.
pub const RESAMPLE_RULE_TORCH_LINEAR_ALIGN_CORNERS: i32 = 11;
/// DirectML: `c = (o - output_offset) / scale - input_offset`.
pub const RESAMPLE_RULE_DIRECTML: i32 = 12;

/// Nearest rounding (`resample_axis_t::nearest_mode`).
/// The rule's own default: ONNX round_prefer_floor, DirectML `floor(c + 0.5)`.
pub const RESAMPLE_NEAREST_DEFAULT: i32 = 0;
pub const RESAMPLE_NEAREST_ROUND_PREFER_FLOOR: i32 = 1;
pub const RESAMPLE_NEAREST_ROUND_PREFER_CEIL: i32 = 2;
pub const RESAMPLE_NEAREST_FLOOR: i32 = 3;
pub const RESAMPLE_NEAREST_CEIL: i32 = 4;

/// Highest rank of a native problem.
pub const RESAMPLE_MAX_RANK: i32 = 5;

/// How one axis maps output indices to input coordinates.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct resample_axis_t {
    /// A `RESAMPLE_RULE_*` value.
    pub rule: i32,
    /// A `RESAMPLE_NEAREST_*` value (ONNX and DirectML rules, nearest algorithm).
    pub nearest_mode: i32,
    /// Output per input. ONNX: the `scales` value (0: sizes decide, `O / I`); PyTorch: the
    /// `scale_factor` (0: sizes decide); DirectML: the scale (0: `O / I`); else ignored.
    pub scale: f64,
    /// DirectML InputPixelOffset (0.5 for half-pixel centres); else ignored.
    pub input_offset: f64,
    /// DirectML OutputPixelOffset (-0.5 for half-pixel centres); else ignored.
    pub output_offset: f64,
}

/// One resampling problem. Zero-initialise it, then fill in what you need.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct resample_problem_t {
    /// 1..=5.
    pub rank: i32,
    /// `RESAMPLE_NEAREST`, `RESAMPLE_LINEAR` or `RESAMPLE_ANTIALIAS`.
    pub algorithm: i32,
    /// `RESAMPLE_FORWARD` or `RESAMPLE_BACKWARD`.
    pub direction: i32,
    /// Element type of src (`RESAMPLE_F32`, ...).
    pub src_type: i32,
    /// Element type of dst.
    pub dst_type: i32,
    /// Sizes of src (forward: input; backward: diff_dst, i.e. forward-output sizes).
    pub src_dims: [i64; 5],
    /// Strides of src in elements; all zero means dense row-major. Must be >= 0.
    pub src_strides: [i64; 5],
    /// Sizes of dst (forward: output; backward: diff_src, i.e. forward-input sizes).
    pub dst_dims: [i64; 5],
    /// Strides of dst in elements; all zero means dense row-major. No two dst elements may
    /// share an address.
    pub dst_strides: [i64; 5],
    /// One rule per axis (the first `rank` are read).
    pub axes: [resample_axis_t; 5],
}

/// A created plan: immutable, executable from several threads at once.
pub struct resample_plan_t {
    plan: Plan,
    src_bytes: usize,
    dst_bytes: usize,
}

/// A refused call: status and message.
struct Refusal(resample_status_t, String);

impl From<CoreError> for Refusal {
    fn from(e: CoreError) -> Self {
        let code = match e {
            CoreError::Invalid(_) => RESAMPLE_INVALID_ARGUMENT,
            CoreError::Unsupported(_) => RESAMPLE_UNSUPPORTED,
            CoreError::OutOfMemory => RESAMPLE_OUT_OF_MEMORY,
        };
        Refusal(code, e.to_string())
    }
}

fn invalid(msg: impl Into<String>) -> Refusal {
    Refusal(RESAMPLE_INVALID_ARGUMENT, msg.into())
}

fn unsupported(msg: impl Into<String>) -> Refusal {
    Refusal(RESAMPLE_UNSUPPORTED, msg.into())
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

use crate::capi::guard::verbose;

/// Records the outcome of a call on this thread and returns its status.
fn finish(call: &str, r: Result<(), Refusal>) -> resample_status_t {
    match r {
        Ok(()) => RESAMPLE_SUCCESS,
        Err(Refusal(code, msg)) => {
            if verbose() {
                eprintln!("resample,native,{call},refused,{},{msg}", status_name(code));
            }
            let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
            LAST_ERROR.with(|e| *e.borrow_mut() = c);
            code
        }
    }
}

fn status_name(s: resample_status_t) -> &'static str {
    match s {
        RESAMPLE_SUCCESS => "success",
        RESAMPLE_INVALID_ARGUMENT => "invalid_argument",
        RESAMPLE_UNSUPPORTED => "unsupported",
        RESAMPLE_OUT_OF_MEMORY => "out_of_memory",
        RESAMPLE_RUNTIME_ERROR => "runtime_error",
        _ => "unknown",
    }
}

fn dtype(v: i32, role: &str) -> Result<DataType, Refusal> {
    Ok(match v {
        RESAMPLE_F32 => DataType::F32,
        RESAMPLE_F16 => DataType::F16,
        RESAMPLE_BF16 => DataType::Bf16,
        RESAMPLE_S32 => DataType::S32,
        RESAMPLE_S8 => DataType::S8,
        RESAMPLE_U8 => DataType::U8,
        RESAMPLE_F64 => DataType::F64,
        _ => return Err(invalid(format!("{role}_type {v} is not a RESAMPLE_* type"))),
    })
}

fn layout(dt: DataType, dims: &[i64], strides: &[i64], role: &str) -> Result<Layout, Refusal> {
    let mut d = Vec::with_capacity(dims.len());
    for (k, &v) in dims.iter().enumerate() {
        let v = usize::try_from(v)
            .map_err(|_| invalid(format!("{role}_dims[{k}] = {v} is negative")))?;
        d.push(v);
    }
    let l = if strides.iter().all(|&s| s == 0) {
        Layout::dense(dt, &d)
    } else {
        let mut s = Vec::with_capacity(strides.len());
        for (k, &v) in strides.iter().enumerate() {
            let v = usize::try_from(v).map_err(|_| {
                invalid(format!(
                    "{role}_strides[{k}] = {v} is negative (pass the lowest address and flip)"
                ))
            })?;
            s.push(v);
        }
        Layout::strided(dt, &d, &s, 0)
    };
    if l.span_bytes().is_none() {
        return Err(invalid(format!("{role} spans more than isize::MAX bytes")));
    }
    Ok(l)
}

fn nearest_onnx(mode: i32, d: usize) -> Result<OnnxNearest, Refusal> {
    Ok(match mode {
        RESAMPLE_NEAREST_DEFAULT | RESAMPLE_NEAREST_ROUND_PREFER_FLOOR => {
            OnnxNearest::RoundPreferFloor
        }
        RESAMPLE_NEAREST_ROUND_PREFER_CEIL => OnnxNearest::RoundPreferCeil,
        RESAMPLE_NEAREST_FLOOR => OnnxNearest::Floor,
        RESAMPLE_NEAREST_CEIL => OnnxNearest::Ceil,
        _ => return Err(invalid(format!("axes[{d}].nearest_mode {mode} is unknown"))),
    })
}

/// Optional user scale: 0 means "from the sizes"; otherwise finite and > 0.
fn user_scale(s: f64, d: usize) -> Result<Option<f64>, Refusal> {
    if s == 0.0 {
        Ok(None)
    } else if s.is_finite() && s > 0.0 {
        Ok(Some(s))
    } else {
        Err(invalid(format!(
            "axes[{d}].scale = {s}: must be 0 (from sizes) or finite and > 0"
        )))
    }
}

/// The core rule of axis `d` with forward sizes `i -> o`.
fn rule(a: &resample_axis_t, alg: i32, d: usize, i: usize, o: usize) -> Result<AxisRule, Refusal> {
    let antialias = alg == RESAMPLE_ANTIALIAS;
    let no_antialias = |name: &str| {
        if antialias {
            Err(unsupported(format!(
                "axes[{d}]: RESAMPLE_ANTIALIAS is offered with the ONNX and DirectML rules, not {name}"
            )))
        } else {
            Ok(())
        }
    };
    let onnx = |coord: OnnxCoord| -> Result<AxisRule, Refusal> {
        let scale = match user_scale(a.scale, d)? {
            Some(s) => s,
            None if i == 0 => 1.0,
            None => o as f64 / i as f64,
        };
        Ok(AxisRule::Onnx {
            coord,
            nearest: nearest_onnx(a.nearest_mode, d)?,
            scale,
            antialias,
        })
    };
    match a.rule {
        RESAMPLE_RULE_IDENTITY => {
            if i != o {
                return Err(invalid(format!(
                    "axes[{d}] is RESAMPLE_RULE_IDENTITY but sizes differ ({i} vs {o})"
                )));
            }
            Ok(AxisRule::Identity)
        }
        RESAMPLE_RULE_ONEDNN => {
            no_antialias("RESAMPLE_RULE_ONEDNN")?;
            Ok(AxisRule::OnednnHalfPixel)
        }
        RESAMPLE_RULE_ONNX_HALF_PIXEL => onnx(OnnxCoord::HalfPixel),
        RESAMPLE_RULE_ONNX_PYTORCH_HALF_PIXEL => onnx(OnnxCoord::PytorchHalfPixel),
        RESAMPLE_RULE_ONNX_ALIGN_CORNERS => onnx(OnnxCoord::AlignCorners),
        RESAMPLE_RULE_ONNX_ASYMMETRIC => onnx(OnnxCoord::Asymmetric),
        RESAMPLE_RULE_ONNX_HALF_PIXEL_SYMMETRIC => onnx(OnnxCoord::HalfPixelSymmetric),
        RESAMPLE_RULE_ONNX_TF_CROP_AND_RESIZE => Err(unsupported(format!(
            "axes[{d}]: ONNX tf_crop_and_resize (roi + extrapolation) is not supported"
        ))),
        RESAMPLE_RULE_TORCH_NEAREST | RESAMPLE_RULE_TORCH_NEAREST_EXACT => {
            no_antialias("the PyTorch nearest rules")?;
            if alg != RESAMPLE_NEAREST {
                return Err(invalid(format!(
                    "axes[{d}]: the PyTorch nearest rules need RESAMPLE_NEAREST"
                )));
            }
            // PyTorch's scale_factor is output per input; its ratio is the inverse.
            let ratio = torch_nearest_ratio(i, o, user_scale(a.scale, d)?);
            Ok(AxisRule::Floor {
                ratio,
                exact: a.rule == RESAMPLE_RULE_TORCH_NEAREST_EXACT,
            })
        }
        RESAMPLE_RULE_TORCH_LINEAR | RESAMPLE_RULE_TORCH_LINEAR_ALIGN_CORNERS => {
            no_antialias("the PyTorch linear rules")?;
            if alg != RESAMPLE_LINEAR {
                return Err(invalid(format!(
                    "axes[{d}]: the PyTorch linear rules need RESAMPLE_LINEAR"
                )));
            }
            let align_corners = a.rule == RESAMPLE_RULE_TORCH_LINEAR_ALIGN_CORNERS;
            let s = user_scale(a.scale, d)?;
            Ok(AxisRule::TorchLinear {
                scale: torch_linear_scale(i, o, align_corners, s),
                align_corners,
            })
        }
        RESAMPLE_RULE_DIRECTML => {
            let scale = match user_scale(a.scale, d)? {
                Some(s) => s as f32,
                None if i == 0 => 1.0,
                None => o as f32 / i as f32,
            };
            let (io, oo) = (a.input_offset as f32, a.output_offset as f32);
            if !(scale.is_finite() && scale > 0.0 && io.is_finite() && oo.is_finite()) {
                return Err(invalid(format!(
                    "axes[{d}]: DirectML scale and offsets must be finite in f32, scale > 0"
                )));
            }
            let rounding = match a.nearest_mode {
                RESAMPLE_NEAREST_DEFAULT | RESAMPLE_NEAREST_ROUND_PREFER_CEIL => {
                    NearestRounding::HalfUp
                }
                RESAMPLE_NEAREST_FLOOR => NearestRounding::Floor,
                RESAMPLE_NEAREST_CEIL => NearestRounding::Ceil,
                RESAMPLE_NEAREST_ROUND_PREFER_FLOOR => {
                    return Err(unsupported(format!(
                        "axes[{d}]: DirectML rounds halves up (RESAMPLE_NEAREST_ROUND_PREFER_CEIL)"
                    )))
                }
                m => return Err(invalid(format!("axes[{d}].nearest_mode {m} is unknown"))),
            };
            Ok(AxisRule::Affine {
                scale,
                input_offset: io,
                output_offset: oo,
                rounding,
                antialias,
            })
        }
        r => Err(invalid(format!(
            "axes[{d}].rule {r} is not a RESAMPLE_RULE_*"
        ))),
    }
}

fn problem(p: &resample_problem_t) -> Result<Problem, Refusal> {
    let rank = usize::try_from(p.rank)
        .ok()
        .filter(|r| (1..=MAX_RANK).contains(r))
        .ok_or_else(|| invalid(format!("rank {} is outside 1..=5", p.rank)))?;
    let alg = match p.algorithm {
        RESAMPLE_NEAREST => Algorithm::Nearest,
        RESAMPLE_LINEAR | RESAMPLE_ANTIALIAS => Algorithm::Linear,
        a => return Err(invalid(format!("algorithm {a} is unknown"))),
    };
    let direction = match p.direction {
        RESAMPLE_FORWARD => Direction::Forward,
        RESAMPLE_BACKWARD => Direction::Backward,
        v => return Err(invalid(format!("direction {v} is unknown"))),
    };
    let src = layout(
        dtype(p.src_type, "src")?,
        &p.src_dims[..rank],
        &p.src_strides[..rank],
        "src",
    )?;
    let dst = layout(
        dtype(p.dst_type, "dst")?,
        &p.dst_dims[..rank],
        &p.dst_strides[..rank],
        "dst",
    )?;
    if dst.elements_may_overlap() {
        return Err(invalid("dst strides make elements overlap"));
    }
    let mut axes = Vec::with_capacity(rank);
    for d in 0..rank {
        let (i, o) = match direction {
            Direction::Forward => (src.dims[d], dst.dims[d]),
            Direction::Backward => (dst.dims[d], src.dims[d]),
        };
        let r = rule(&p.axes[d], p.algorithm, d, i, o)?;
        if r != AxisRule::Identity && i == 0 && o > 0 {
            return Err(invalid(format!(
                "axis {d}: the input has no elements but the output has {o}"
            )));
        }
        axes.push(r);
    }
    Ok(Problem {
        alg,
        direction,
        axes,
        src,
        dst,
        post_ops: Vec::new(),
        numerics: Numerics::Ieee,
    })
}

unsafe fn plan_create(
    out: *mut *mut resample_plan_t,
    desc: *const resample_problem_t,
) -> Result<(), Refusal> {
    // SAFETY: pointer arguments are NULL or valid as resample.h documents (the C caller's contract,
    // passed on by the exported function).
    unsafe {
        if out.is_null() {
            return Err(invalid("plan (the output pointer) is NULL"));
        }
        *out = std::ptr::null_mut();
        if desc.is_null() {
            return Err(invalid("problem is NULL"));
        }
        let p = problem(&std::ptr::read_unaligned(desc))?;
        let (src_bytes, dst_bytes) = (p.src.span_bytes(), p.dst.span_bytes());
        let plan = Plan::new(p)?;
        if verbose() {
            eprintln!(
                "resample,native,create,{:?},{:?},{:?}->{:?},kernel={}",
                plan.problem().alg,
                plan.problem().direction,
                plan.problem().src.dims,
                plan.problem().dst.dims,
                plan.kernel_name()
            );
        }
        *out = Box::into_raw(Box::new(resample_plan_t {
            plan,
            // Layout::validate (in Plan::new) checked both spans.
            src_bytes: src_bytes.unwrap_or(0),
            dst_bytes: dst_bytes.unwrap_or(0),
        }));
        Ok(())
    }
}

/// Creates a plan for `problem` into `*plan` (NULL on failure). The plan holds the tap
/// tables and the kernel choice; create it once, execute it many times.
#[no_mangle]
pub unsafe extern "C" fn resample_plan_create(
    plan: *mut *mut resample_plan_t,
    problem: *const resample_problem_t,
) -> resample_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as resample.h documents
    // for this function.
    unsafe { native_guard!({ finish("create", plan_create(plan, problem)) }) }
}

/// Destroys a plan (NULL is ignored). No execution of it may be running.
#[no_mangle]
pub unsafe extern "C" fn resample_plan_destroy(plan: *mut resample_plan_t) {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as resample.h documents
    // for this function.
    unsafe {
        ffi_guard!({
            if !plan.is_null() {
                drop(Box::from_raw(plan));
            }
        })
    }
}

/// Bytes src must hold (from its base pointer to one past its last element).
#[no_mangle]
pub unsafe extern "C" fn resample_plan_src_bytes(plan: *const resample_plan_t) -> usize {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as resample.h documents
    // for this function.
    unsafe {
        ffi_guard!(sentinel = 0, {
            null_check!(0, plan);
            (*plan).src_bytes
        })
    }
}

/// Bytes dst must hold.
#[no_mangle]
pub unsafe extern "C" fn resample_plan_dst_bytes(plan: *const resample_plan_t) -> usize {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as resample.h documents
    // for this function.
    unsafe {
        ffi_guard!(sentinel = 0, {
            null_check!(0, plan);
            (*plan).dst_bytes
        })
    }
}

/// Name of the kernel the plan runs (static string; "" for NULL).
#[no_mangle]
pub unsafe extern "C" fn resample_plan_kernel(plan: *const resample_plan_t) -> *const c_char {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as resample.h documents
    // for this function.
    unsafe {
        ffi_guard!(sentinel = c"".as_ptr(), {
            null_check!(c"".as_ptr(), plan);
            match (*plan).plan.kernel_name() {
                "lanes_rows" => c"lanes_rows".as_ptr(),
                "lanes" => c"lanes".as_ptr(),
                "rows" => c"rows".as_ptr(),
                "bwd_rows" => c"bwd_rows".as_ptr(),
                "copy" => c"copy".as_ptr(),
                _ => c"generic".as_ptr(),
            }
        })
    }
}

unsafe fn execute(
    plan: *const resample_plan_t,
    src: *const c_void,
    src_size: usize,
    dst: *mut c_void,
    dst_size: usize,
) -> Result<(), Refusal> {
    // SAFETY: pointer arguments are NULL or valid as resample.h documents (the C caller's contract,
    // passed on by the exported function).
    unsafe {
        if plan.is_null() {
            return Err(invalid("plan is NULL"));
        }
        let p = &*plan;
        let (sn, dn) = (p.src_bytes, p.dst_bytes);
        if src_size < sn || dst_size < dn {
            return Err(invalid(format!(
                "buffers hold {src_size} (src) and {dst_size} (dst) bytes; {sn} and {dn} needed"
            )));
        }
        if dn == 0 {
            return Ok(());
        }
        if dst.is_null() || (sn > 0 && src.is_null()) {
            return Err(invalid("src or dst is NULL"));
        }
        let (s0, d0) = (src as usize, dst as usize);
        if s0.checked_add(sn).is_none() || d0.checked_add(dn).is_none() {
            return Err(invalid("a buffer wraps around the address space"));
        }
        let src = crate::capi::exec::Raw {
            ptr: src.cast::<u8>(),
            len: sn,
        };
        crate::capi::exec::execute(&p.plan, src, dst.cast::<u8>(), dn, &[])?;
        Ok(())
    }
}

/// Executes `plan`: reads src (`src_size` bytes available), writes dst (`dst_size` bytes
/// available; at least `resample_plan_*_bytes`). Buffers need no particular alignment and
/// may overlap (src is then copied first). Safe to call from several threads at once.
#[no_mangle]
pub unsafe extern "C" fn resample_execute(
    plan: *const resample_plan_t,
    src: *const c_void,
    src_size: usize,
    dst: *mut c_void,
    dst_size: usize,
) -> resample_status_t {
    // SAFETY: the C caller's contract: pointer arguments are NULL or valid as resample.h documents
    // for this function.
    unsafe { native_guard!({ finish("execute", execute(plan, src, src_size, dst, dst_size)) }) }
}

/// Message of the last failed native call on this thread ("" if none); valid until the
/// thread's next failing call.
#[no_mangle]
pub extern "C" fn resample_last_error() -> *const c_char {
    ffi_guard!(sentinel = c"".as_ptr(), {
        LAST_ERROR.with(|e| e.borrow().as_ptr())
    })
}

/// Name of a status code ("success", "invalid_argument", ...).
#[no_mangle]
pub extern "C" fn resample_status_string(status: resample_status_t) -> *const c_char {
    match status {
        RESAMPLE_SUCCESS => c"success".as_ptr(),
        RESAMPLE_INVALID_ARGUMENT => c"invalid_argument".as_ptr(),
        RESAMPLE_UNSUPPORTED => c"unsupported".as_ptr(),
        RESAMPLE_OUT_OF_MEMORY => c"out_of_memory".as_ptr(),
        RESAMPLE_RUNTIME_ERROR => c"runtime_error".as_ptr(),
        _ => c"unknown".as_ptr(),
    }
}
