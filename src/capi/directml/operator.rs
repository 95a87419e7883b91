//! The exported functions: `DMLCreateOperator` (descriptor → core `Plan`),
//! `DMLExecuteOperator` (bindings → byte slices → `Plan::execute`), `DMLReleaseOperator`
//! and `DMLCalcBufferTensorSize`.

// Parameter names are DirectML's, so the generated header reads like the original.
#![allow(non_snake_case)]

use super::descriptor::{read_operator, OpSpec};
use super::refusal::{finish, Refusal};
use super::tensor::{calc_buffer_tensor_size, Tensor};
use super::types::*;
use crate::capi::exec::Raw;
use crate::core::axis::forward_taps;
use crate::core::plan::MAX_TABLE_ENTRIES;
use crate::core::{Algorithm, AxisRule, Direction, Numerics, Plan, Problem};

/// A created resample operator: the validated plan plus what execution checks bindings
/// against. Opaque to C; immutable after creation, so executions may run concurrently.
pub struct DMLOperator {
    plan: Plan,
    input: BindingRule,
    output: BindingRule,
}

// Executions share the operator across threads.
const _: () = {
    const fn shareable<T: Send + Sync>() {}
    shareable::<DMLOperator>();
};

/// What a binding of one tensor must satisfy.
#[derive(Clone, Copy, Debug)]
struct BindingRule {
    total_bytes: u64,
    offset_alignment: u64,
    /// Bytes the elements span from the tensor start.
    span: usize,
}

impl From<&Tensor> for BindingRule {
    fn from(t: &Tensor) -> Self {
        BindingRule {
            total_bytes: t.total_bytes,
            offset_alignment: t.offset_alignment,
            span: t.span,
        }
    }
}

/// Builds the core problem of a validated operator (docs/spec/directml.md §5–§6).
fn problem(spec: &OpSpec) -> Result<Problem, Refusal> {
    let rank = spec.input.rank();
    let direction = if spec.kind.is_grad() {
        Direction::Backward
    } else {
        Direction::Forward
    };
    let mut axes = Vec::with_capacity(rank);
    for d in 0..rank {
        // Rules map forward-output indices to forward-input taps; for the GRAD ops the
        // forward output is the InputGradientTensor.
        let (fwd_in, fwd_out) = match direction {
            Direction::Forward => (spec.input.sizes[d], spec.output.sizes[d]),
            Direction::Backward => (spec.output.sizes[d], spec.input.sizes[d]),
        };
        let scale = spec.scales[d];
        let rule = AxisRule::Affine {
            scale,
            input_offset: spec.input_offsets[d],
            output_offset: spec.output_offsets[d],
            rounding: spec.rounding,
            antialias: spec.antialias,
        };
        axes.push(
            if fwd_in == fwd_out && samples_identity(&rule, spec.alg, fwd_in) {
                AxisRule::Identity
            } else {
                rule
            },
        );
    }
    Ok(Problem {
        alg: spec.alg,
        direction,
        axes,
        src: spec.input.layout.clone(),
        dst: spec.output.layout.clone(),
        post_ops: Vec::new(),
        numerics: Numerics::Ieee,
    })
}

/// True when `rule` on an axis of `n -> n` reads input `o` with weight 1 for every output
/// `o` (other taps weigh 0, wherever they point — a size-1 axis clamps both linear taps to
/// input 0), so the axis can be left unresampled — the kernels then stream along it.
/// Exact for finite data.
fn samples_identity(rule: &AxisRule, alg: Algorithm, n: usize) -> bool {
    // Beyond the tables any plan may hold (Plan::new refuses those), don't build one here.
    if 2.0 * n as f64 > MAX_TABLE_ENTRIES {
        return false;
    }
    // Cheap pre-check on the two ends before building a table.
    let t = forward_taps(rule, alg, n, n.min(2));
    let ok = |t: &crate::core::taps::FwdTaps, o: usize| {
        let (idx, wt) = t.taps(o);
        let ones = wt.iter().filter(|&&w| w == 1.0).count();
        let zeros = wt.iter().filter(|&&w| w == 0.0).count();
        ones == 1
            && zeros == wt.len() - 1
            && idx
                .iter()
                .zip(wt)
                .any(|(&i, &w)| i as usize == o && w == 1.0)
    };
    if !(0..n.min(2)).all(|o| ok(&t, o)) {
        return false;
    }
    let t = forward_taps(rule, alg, n, n);
    (0..n).all(|o| ok(&t, o))
}

unsafe fn create(desc: *const DML_OPERATOR_DESC, op: *mut *mut DMLOperator) -> Result<(), Refusal> {
    // SAFETY: descriptor and binding pointers are NULL or point to memory laid out as DirectML.h
    // documents (the C caller's contract, passed on).
    unsafe {
        if op.is_null() {
            return Err(Refusal::pointer("op (the DMLOperator** result) is NULL"));
        }
        op.write_unaligned(std::ptr::null_mut());
        let spec = read_operator(desc)?;
        let problem = problem(&spec)?;
        let plan = Plan::new(problem).map_err(|e| {
            let mut r = Refusal::from(e);
            r.msg = format!("{}: {}", spec.kind.name(), r.msg);
            r
        })?;
        let boxed = Box::new(DMLOperator {
            plan,
            input: (&spec.input).into(),
            output: (&spec.output).into(),
        });
        op.write_unaligned(Box::into_raw(boxed));
        Ok(())
    }
}

/// Creates a resample operator from a DirectML operator description.
///
/// Accepts `DML_OPERATOR_RESAMPLE`, `RESAMPLE1`, `RESAMPLE2`, `RESAMPLE3`, `RESAMPLE_GRAD`
/// and `RESAMPLE_GRAD1`. Everything is validated here: an invalid description returns
/// `E_INVALIDARG`, another DirectML operator type `E_NOTIMPL`, a NULL `op` `E_POINTER`.
/// On failure `*op` is set to NULL. The description and everything it points to may be
/// freed as soon as this returns.
#[no_mangle]
pub unsafe extern "C" fn DMLCreateOperator(
    desc: *const DML_OPERATOR_DESC,
    op: *mut *mut DMLOperator,
) -> HRESULT {
    // SAFETY: the C caller's contract: descriptor and binding pointers are NULL or point to memory
    // laid out as DirectML.h documents.
    unsafe { dml_guard!({ finish("DMLCreateOperator", create(desc, op)) }) }
}

/// Reads binding `b` of `rule`, returning the tensor's byte range start.
unsafe fn binding(
    b: *const DML_BUFFER_BINDING,
    rule: &BindingRule,
    role: &str,
) -> Result<*mut u8, Refusal> {
    // SAFETY: descriptor and binding pointers are NULL or point to memory laid out as DirectML.h
    // documents (the C caller's contract, passed on).
    unsafe {
        let b = b.read_unaligned();
        if b.Buffer.is_null() {
            return Err(Refusal::invalid(format!("{role} binding: Buffer is NULL")));
        }
        if b.SizeInBytes < rule.total_bytes {
            return Err(Refusal::invalid(format!(
                "{role} binding: SizeInBytes {} is below the tensor's TotalTensorSizeInBytes {}",
                b.SizeInBytes, rule.total_bytes
            )));
        }
        if !b.Offset.is_multiple_of(rule.offset_alignment) {
            return Err(Refusal::invalid(format!(
                "{role} binding: Offset {} is not a multiple of the tensor's alignment {}",
                b.Offset, rule.offset_alignment
            )));
        }
        let offset = usize::try_from(b.Offset)
            .ok()
            .filter(|&o| {
                (b.Buffer as usize)
                    .checked_add(o)
                    .and_then(|s| s.checked_add(rule.total_bytes as usize))
                    .is_some()
            })
            .ok_or_else(|| {
                Refusal::invalid(format!(
                    "{role} binding: Buffer + Offset + size overflows the address space"
                ))
            })?;
        Ok((b.Buffer as *mut u8).wrapping_add(offset))
    }
}

unsafe fn execute(
    op: *mut DMLOperator,
    input_count: UINT,
    inputs: *const DML_BUFFER_BINDING,
    output_count: UINT,
    outputs: *const DML_BUFFER_BINDING,
) -> Result<(), Refusal> {
    // SAFETY: descriptor and binding pointers are NULL or point to memory laid out as DirectML.h
    // documents (the C caller's contract, passed on).
    unsafe {
        if op.is_null() {
            return Err(Refusal::pointer("op is NULL"));
        }
        let op = &*op;
        if input_count != 1 || output_count != 1 {
            return Err(Refusal::invalid(format!(
            "resample operators take 1 input and 1 output binding (got {input_count} and {output_count})"
        )));
        }
        if inputs.is_null() || outputs.is_null() {
            return Err(Refusal::invalid("inputs or outputs is NULL"));
        }
        let src = binding(inputs, &op.input, "input")?;
        let dst = binding(outputs, &op.output, "output")?;
        let src = Raw {
            ptr: src,
            len: op.input.span,
        };
        crate::capi::exec::execute(&op.plan, src, dst, op.output.span, &[]).map_err(Refusal::from)
    }
}

/// Executes a created operator on host buffers: `inputs[0]` binds the input
/// (`InputGradientTensor` for the GRAD ops), `outputs[0]` the output. Each tensor's data
/// starts at `Buffer + Offset`; `SizeInBytes` must be at least the tensor's
/// `TotalTensorSizeInBytes`, and `Offset` a multiple of max(16,
/// `GuaranteedBaseOffsetAlignment`). A refused call writes nothing. An operator may be
/// executed from several threads at once.
#[no_mangle]
pub unsafe extern "C" fn DMLExecuteOperator(
    op: *mut DMLOperator,
    inputCount: UINT,
    inputs: *const DML_BUFFER_BINDING,
    outputCount: UINT,
    outputs: *const DML_BUFFER_BINDING,
) -> HRESULT {
    // SAFETY: the C caller's contract: descriptor and binding pointers are NULL or point to memory
    // laid out as DirectML.h documents.
    unsafe {
        dml_guard!({
            finish(
                "DMLExecuteOperator",
                execute(op, inputCount, inputs, outputCount, outputs),
            )
        })
    }
}

/// Destroys an operator. NULL is accepted and ignored.
#[no_mangle]
pub unsafe extern "C" fn DMLReleaseOperator(op: *mut DMLOperator) {
    // SAFETY: the C caller's contract: descriptor and binding pointers are NULL or point to memory
    // laid out as DirectML.h documents.
    unsafe {
        ffi_guard!({
            if !op.is_null() {
                drop(Box::from_raw(op));
            }
        })
    }
}

/// The minimum `TotalTensorSizeInBytes` of a buffer tensor (DirectML's helper): the bytes
/// up to and including the last element, rounded up to a multiple of 4. `strides` may be
/// NULL (packed). Returns 0 for invalid arguments: unknown data type, `dimensionCount` not in
/// 1..=8, NULL `sizes`, a zero size, or a size above 2^64.
#[no_mangle]
pub unsafe extern "C" fn DMLCalcBufferTensorSize(
    dataType: DML_TENSOR_DATA_TYPE,
    dimensionCount: UINT,
    sizes: *const UINT,
    strides: *const UINT,
) -> UINT64 {
    // SAFETY: the C caller's contract: descriptor and binding pointers are NULL or point to memory
    // laid out as DirectML.h documents.
    unsafe {
        ffi_guard!(sentinel = 0, {
            let n = dimensionCount as usize;
            if sizes.is_null() || n == 0 || n > DML_TENSOR_DIMENSION_COUNT_MAX1 as usize {
                return 0;
            }
            let read = |p: *const UINT| -> Vec<u32> {
                (0..n).map(|i| p.add(i).read_unaligned()).collect()
            };
            let sz = read(sizes);
            let st = (!strides.is_null()).then(|| read(strides));
            calc_buffer_tensor_size(dataType, &sz, st.as_deref()).unwrap_or(0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::NearestRounding;

    fn half_pixel(scale: f32) -> AxisRule {
        AxisRule::Affine {
            scale,
            input_offset: 0.5,
            output_offset: -0.5,
            rounding: NearestRounding::HalfUp,
            antialias: false,
        }
    }

    /// ONNX Runtime's DirectML provider pads Resize to 4-D with unit scales on N and C:
    /// those axes (size 1 included, whose linear taps both clamp to input 0) must stream as
    /// identity axes, or the 4-D operator runs a slower kernel than the same 3-D one.
    #[test]
    fn unit_scale_axes_are_identity() {
        for n in [1, 2, 3, 17] {
            for alg in [Algorithm::Linear, Algorithm::Nearest] {
                assert!(samples_identity(&half_pixel(1.0), alg, n), "{alg:?} n={n}");
            }
        }
        assert!(!samples_identity(&half_pixel(1.5), Algorithm::Linear, 4));
        let shifted = AxisRule::Affine {
            scale: 1.0,
            input_offset: 0.25,
            output_offset: 0.0,
            rounding: NearestRounding::HalfUp,
            antialias: false,
        };
        assert!(!samples_identity(&shifted, Algorithm::Linear, 4));
    }
}
