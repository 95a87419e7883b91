//! Reading the six resample operator descriptors into one normalised [`OpSpec`], with
//! every descriptor-level rule of docs/spec/directml.md §7–§8.

use super::operator_types::*;
use super::refusal::Refusal;
use super::tensor::{read_tensor, type_name, Tensor};
use super::types::*;
use crate::core::{Algorithm, NearestRounding};

/// Which resample operator a descriptor describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Resample,
    Resample1,
    Resample2,
    Resample3,
    Grad,
    Grad1,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Resample => "DML_OPERATOR_RESAMPLE",
            Kind::Resample1 => "DML_OPERATOR_RESAMPLE1",
            Kind::Resample2 => "DML_OPERATOR_RESAMPLE2",
            Kind::Resample3 => "DML_OPERATOR_RESAMPLE3",
            Kind::Grad => "DML_OPERATOR_RESAMPLE_GRAD",
            Kind::Grad1 => "DML_OPERATOR_RESAMPLE_GRAD1",
        }
    }

    pub fn is_grad(self) -> bool {
        matches!(self, Kind::Grad | Kind::Grad1)
    }

    /// Data types the operator accepts (§7; RESAMPLE1 as RESAMPLE per §11).
    fn allows(self, dt: DML_TENSOR_DATA_TYPE) -> bool {
        match self {
            Kind::Grad | Kind::Grad1 => matches!(
                dt,
                DML_TENSOR_DATA_TYPE_FLOAT32 | DML_TENSOR_DATA_TYPE_FLOAT16
            ),
            _ => matches!(
                dt,
                DML_TENSOR_DATA_TYPE_FLOAT32
                    | DML_TENSOR_DATA_TYPE_FLOAT16
                    | DML_TENSOR_DATA_TYPE_INT8
                    | DML_TENSOR_DATA_TYPE_UINT8
            ),
        }
    }
}

/// A resample operator in normalised form. `input`/`output` are the tensors read and
/// written (for the GRAD ops: InputGradientTensor / OutputGradientTensor).
#[derive(Clone, Debug)]
pub(crate) struct OpSpec {
    pub kind: Kind,
    pub alg: Algorithm,
    pub rounding: NearestRounding,
    pub antialias: bool,
    pub scales: Vec<f32>,
    pub input_offsets: Vec<f32>,
    pub output_offsets: Vec<f32>,
    pub input: Tensor,
    pub output: Tensor,
}

/// The fields every resample descriptor shares, before validation.
struct Raw {
    input: *const DML_TENSOR_DESC,
    output: *const DML_TENSOR_DESC,
    mode: DML_INTERPOLATION_MODE,
    direction: Option<DML_AXIS_DIRECTION>,
    count: UINT,
    scales: *const FLOAT,
    /// NULL for DML_RESAMPLE, which has no offset arrays.
    input_offsets: *const FLOAT,
    output_offsets: *const FLOAT,
    antialiased: BOOL,
}

/// Reads `n` floats (the caller checked the pointer).
unsafe fn floats(p: *const FLOAT, n: usize) -> Vec<f32> {
    // SAFETY: descriptor and binding pointers are NULL or point to memory laid out as DirectML.h
    // documents (the C caller's contract, passed on).
    unsafe { (0..n).map(|i| p.add(i).read_unaligned()).collect() }
}

/// Reads and validates the operator descriptor at `desc`.
///
/// # Safety
/// `desc` and the pointers it holds, when not NULL, must point to readable memory laid
/// out as `DirectML.h` documents for the operator type.
pub(crate) unsafe fn read_operator(desc: *const DML_OPERATOR_DESC) -> Result<OpSpec, Refusal> {
    // SAFETY: descriptor and binding pointers are NULL or point to memory laid out as DirectML.h
    // documents (the C caller's contract, passed on).
    unsafe {
        if desc.is_null() {
            return Err(Refusal::invalid("desc is NULL"));
        }
        let od = desc.read_unaligned();
        let kind = match od.Type {
        DML_OPERATOR_RESAMPLE => Kind::Resample,
        DML_OPERATOR_RESAMPLE1 => Kind::Resample1,
        DML_OPERATOR_RESAMPLE2 => Kind::Resample2,
        DML_OPERATOR_RESAMPLE3 => Kind::Resample3,
        DML_OPERATOR_RESAMPLE_GRAD => Kind::Grad,
        DML_OPERATOR_RESAMPLE_GRAD1 => Kind::Grad1,
        t if (1..=DML_OPERATOR_TYPE_MAX_KNOWN).contains(&t) => {
            return Err(Refusal::not_implemented(format!(
                "operator type {t} is a DirectML operator but not a resample one; only resample operators are implemented"
            )))
        }
        t => return Err(Refusal::invalid(format!("operator type {t} is not a DML_OPERATOR_TYPE"))),
    };
        if od.Desc.is_null() {
            return Err(Refusal::invalid(format!("{}: Desc is NULL", kind.name())));
        }
        let raw = match kind {
            Kind::Resample => {
                let d = (od.Desc as *const DML_RESAMPLE_OPERATOR_DESC).read_unaligned();
                Raw {
                    input: d.InputTensor,
                    output: d.OutputTensor,
                    mode: d.InterpolationMode,
                    direction: None,
                    count: d.ScaleCount,
                    scales: d.Scales,
                    input_offsets: std::ptr::null(),
                    output_offsets: std::ptr::null(),
                    antialiased: 0,
                }
            }
            Kind::Resample1 => {
                let d = (od.Desc as *const DML_RESAMPLE1_OPERATOR_DESC).read_unaligned();
                Raw {
                    input: d.InputTensor,
                    output: d.OutputTensor,
                    mode: d.InterpolationMode,
                    direction: None,
                    count: d.DimensionCount,
                    scales: d.Scales,
                    input_offsets: d.InputPixelOffsets,
                    output_offsets: d.OutputPixelOffsets,
                    antialiased: 0,
                }
            }
            Kind::Grad => {
                let d = (od.Desc as *const DML_RESAMPLE_GRAD_OPERATOR_DESC).read_unaligned();
                Raw {
                    input: d.InputGradientTensor,
                    output: d.OutputGradientTensor,
                    mode: d.InterpolationMode,
                    direction: None,
                    count: d.DimensionCount,
                    scales: d.Scales,
                    input_offsets: d.InputPixelOffsets,
                    output_offsets: d.OutputPixelOffsets,
                    antialiased: 0,
                }
            }
            Kind::Resample2 => {
                let d = (od.Desc as *const DML_RESAMPLE2_OPERATOR_DESC).read_unaligned();
                Raw {
                    input: d.InputTensor,
                    output: d.OutputTensor,
                    mode: d.InterpolationMode,
                    direction: Some(d.RoundingDirection),
                    count: d.DimensionCount,
                    scales: d.Scales,
                    input_offsets: d.InputPixelOffsets,
                    output_offsets: d.OutputPixelOffsets,
                    antialiased: 0,
                }
            }
            Kind::Grad1 => {
                let d = (od.Desc as *const DML_RESAMPLE_GRAD1_OPERATOR_DESC).read_unaligned();
                Raw {
                    input: d.InputGradientTensor,
                    output: d.OutputGradientTensor,
                    mode: d.InterpolationMode,
                    direction: Some(d.RoundingDirection),
                    count: d.DimensionCount,
                    scales: d.Scales,
                    input_offsets: d.InputPixelOffsets,
                    output_offsets: d.OutputPixelOffsets,
                    antialiased: 0,
                }
            }
            Kind::Resample3 => {
                let d = (od.Desc as *const DML_RESAMPLE3_OPERATOR_DESC).read_unaligned();
                Raw {
                    input: d.InputTensor,
                    output: d.OutputTensor,
                    mode: d.InterpolationMode,
                    direction: Some(d.RoundingDirection),
                    count: d.DimensionCount,
                    scales: d.Scales,
                    input_offsets: d.InputPixelOffsets,
                    output_offsets: d.OutputPixelOffsets,
                    antialiased: d.Antialiased,
                }
            }
        };
        validate(kind, raw).map_err(|mut r| {
            r.msg = format!("{}: {}", kind.name(), r.msg);
            r
        })
    }
}

unsafe fn validate(kind: Kind, raw: Raw) -> Result<OpSpec, Refusal> {
    // SAFETY: descriptor and binding pointers are NULL or point to memory laid out as DirectML.h
    // documents (the C caller's contract, passed on).
    unsafe {
        let (in_role, out_role) = if kind.is_grad() {
            ("InputGradientTensor", "OutputGradientTensor")
        } else {
            ("InputTensor", "OutputTensor")
        };
        let input = read_tensor(raw.input, in_role, false)?;
        let output = read_tensor(raw.output, out_role, true)?;
        let alg = match raw.mode {
            DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR => Algorithm::Nearest,
            DML_INTERPOLATION_MODE_LINEAR => Algorithm::Linear,
            m => {
                return Err(Refusal::invalid(format!(
                    "InterpolationMode {m} is not a DML_INTERPOLATION_MODE"
                )))
            }
        };
        let rounding = match raw.direction {
            None => NearestRounding::HalfUp,
            Some(DML_AXIS_DIRECTION_INCREASING) => NearestRounding::Ceil,
            Some(DML_AXIS_DIRECTION_DECREASING) => NearestRounding::Floor,
            Some(d) => {
                return Err(Refusal::invalid(format!(
                    "RoundingDirection {d} is not a DML_AXIS_DIRECTION"
                )))
            }
        };
        let count_name = if kind == Kind::Resample {
            "ScaleCount"
        } else {
            "DimensionCount"
        };
        let n = raw.count as usize;
        if n != input.rank() || n != output.rank() {
            return Err(Refusal::invalid(format!(
            "{count_name} {n} must equal the {in_role} and {out_role} DimensionCount ({} and {})",
            input.rank(),
            output.rank()
        )));
        }
        if kind == Kind::Grad && n != 4 {
            return Err(Refusal::invalid(format!(
                "{count_name} must be 4 (got {n})"
            )));
        }
        if input.data_type != output.data_type {
            return Err(Refusal::invalid(format!(
                "{in_role} is {} but {out_role} is {}",
                type_name(input.data_type),
                type_name(output.data_type)
            )));
        }
        if !kind.allows(input.data_type) {
            return Err(Refusal::invalid(format!(
                "data type {} is not supported by this operator",
                type_name(input.data_type)
            )));
        }
        if raw.scales.is_null() {
            return Err(Refusal::invalid("Scales is NULL"));
        }
        let scales = floats(raw.scales, n);
        if let Some((d, s)) = scales
            .iter()
            .enumerate()
            .find(|(_, s)| !(s.is_finite() && **s > 0.0))
        {
            return Err(Refusal::invalid(format!(
                "Scales[{d}] = {s} is not a positive finite number"
            )));
        }
        let (input_offsets, output_offsets) = if kind == Kind::Resample {
            (vec![0.5; n], vec![-0.5; n])
        } else {
            if raw.input_offsets.is_null() {
                return Err(Refusal::invalid("InputPixelOffsets is NULL"));
            }
            if raw.output_offsets.is_null() {
                return Err(Refusal::invalid("OutputPixelOffsets is NULL"));
            }
            (floats(raw.input_offsets, n), floats(raw.output_offsets, n))
        };
        for (name, v) in [
            ("InputPixelOffsets", &input_offsets),
            ("OutputPixelOffsets", &output_offsets),
        ] {
            if let Some((d, x)) = v.iter().enumerate().find(|(_, x)| !x.is_finite()) {
                return Err(Refusal::invalid(format!("{name}[{d}] = {x} is not finite")));
            }
        }
        Ok(OpSpec {
            kind,
            alg,
            rounding,
            antialias: kind == Kind::Resample3 && raw.antialiased != 0,
            scales,
            input_offsets,
            output_offsets,
            input,
            output,
        })
    }
}
