//! `DML_BUFFER_TENSOR_DESC`: reading one from C memory into an owned [`Tensor`] (every
//! rule of docs/spec/directml.md §4 and §8 that concerns a single tensor), and
//! `DMLCalcBufferTensorSize` (§3).

use super::refusal::Refusal;
use super::types::*;
use crate::core::{DataType, Layout};

/// Resample tensors have 1..=4 dimensions (docs/spec/directml.md §7).
pub(crate) const MAX_DIMS: usize = 4;

/// Element size in bits of a DirectML data type; `None` for unknown values.
pub(crate) fn element_bits(dt: DML_TENSOR_DATA_TYPE) -> Option<u64> {
    Some(match dt {
        DML_TENSOR_DATA_TYPE_FLOAT32 | DML_TENSOR_DATA_TYPE_UINT32 | DML_TENSOR_DATA_TYPE_INT32 => {
            32
        }
        DML_TENSOR_DATA_TYPE_FLOAT16 | DML_TENSOR_DATA_TYPE_UINT16 | DML_TENSOR_DATA_TYPE_INT16 => {
            16
        }
        DML_TENSOR_DATA_TYPE_UINT8 | DML_TENSOR_DATA_TYPE_INT8 => 8,
        DML_TENSOR_DATA_TYPE_UINT4 | DML_TENSOR_DATA_TYPE_INT4 => 4,
        DML_TENSOR_DATA_TYPE_FLOAT64 | DML_TENSOR_DATA_TYPE_UINT64 | DML_TENSOR_DATA_TYPE_INT64 => {
            64
        }
        _ => return None,
    })
}

/// The core element type of a DirectML type the resample operators can carry.
pub(crate) fn core_type(dt: DML_TENSOR_DATA_TYPE) -> Option<DataType> {
    Some(match dt {
        DML_TENSOR_DATA_TYPE_FLOAT32 => DataType::F32,
        DML_TENSOR_DATA_TYPE_FLOAT16 => DataType::F16,
        DML_TENSOR_DATA_TYPE_INT8 => DataType::S8,
        DML_TENSOR_DATA_TYPE_UINT8 => DataType::U8,
        _ => return None,
    })
}

/// Name of a data type value for messages.
pub(crate) fn type_name(dt: DML_TENSOR_DATA_TYPE) -> String {
    const NAMES: [&str; 14] = [
        "UNKNOWN", "FLOAT32", "FLOAT16", "UINT32", "UINT16", "UINT8", "INT32", "INT16", "INT8",
        "FLOAT64", "UINT64", "INT64", "UINT4", "INT4",
    ];
    usize::try_from(dt)
        .ok()
        .and_then(|i| NAMES.get(i))
        .map_or_else(|| format!("unknown data type {dt}"), |n| n.to_string())
}

/// `DMLCalcBufferTensorSize` in safe Rust; `None` when the arguments are invalid or the
/// size does not fit in 64 bits.
///
/// The index of the last element is computed in 64 bits (DirectMLX accumulates it in a
/// 32-bit UINT, which wraps for huge strided tensors; a wrapped size would understate the
/// memory the tensor addresses).
pub(crate) fn calc_buffer_tensor_size(
    dt: DML_TENSOR_DATA_TYPE,
    sizes: &[u32],
    strides: Option<&[u32]>,
) -> Option<u64> {
    let bits = element_bits(dt)?;
    if sizes.is_empty()
        || sizes.len() > DML_TENSOR_DIMENSION_COUNT_MAX1 as usize
        || sizes.contains(&0)
    {
        return None;
    }
    let elements = match strides {
        None => sizes
            .iter()
            .try_fold(1u64, |acc, &s| acc.checked_mul(s as u64))?,
        Some(st) => {
            let last = sizes.iter().zip(st).try_fold(0u64, |acc, (&s, &st)| {
                acc.checked_add((s as u64 - 1).checked_mul(st as u64)?)
            })?;
            last.checked_add(1)?
        }
    };
    let bytes = elements.checked_mul(bits)?.checked_add(7)? / 8;
    Some(bytes.checked_add(3)? & !3)
}

/// One tensor of an operator, copied out of the caller's descriptor.
#[derive(Clone, Debug)]
pub(crate) struct Tensor {
    pub data_type: DML_TENSOR_DATA_TYPE,
    pub sizes: Vec<usize>,
    /// `TotalTensorSizeInBytes`: bindings must hold at least this much.
    pub total_bytes: u64,
    /// Binding offsets must be multiples of this: max(16, GuaranteedBaseOffsetAlignment).
    pub offset_alignment: u64,
    pub layout: Layout,
    /// Bytes the elements span from the tensor's start (<= `total_bytes`).
    pub span: usize,
}

impl Tensor {
    pub fn rank(&self) -> usize {
        self.sizes.len()
    }
}

/// Reads the `DML_TENSOR_DESC` at `desc` (named `role` in messages).
///
/// Type-specific rules (which data types an operator accepts) are the caller's; this checks
/// that the data type is known, then everything about the tensor itself.
///
/// # Safety
/// `desc`, when not NULL, must point to a readable `DML_TENSOR_DESC` whose pointers, when
/// not NULL, point to readable memory of the sizes the header documents.
pub(crate) unsafe fn read_tensor(
    desc: *const DML_TENSOR_DESC,
    role: &str,
    is_output: bool,
) -> Result<Tensor, Refusal> {
    // SAFETY: descriptor and binding pointers are NULL or point to memory laid out as DirectML.h
    // documents (the C caller's contract, passed on).
    unsafe {
        if desc.is_null() {
            return Err(Refusal::invalid(format!("{role} is NULL")));
        }
        let td = desc.read_unaligned();
        if td.Type != DML_TENSOR_TYPE_BUFFER {
            return Err(Refusal::invalid(format!(
                "{role}: Type is {}, not DML_TENSOR_TYPE_BUFFER",
                td.Type
            )));
        }
        if td.Desc.is_null() {
            return Err(Refusal::invalid(format!("{role}: Desc is NULL")));
        }
        let b = (td.Desc as *const DML_BUFFER_TENSOR_DESC).read_unaligned();
        let rank = b.DimensionCount as usize;
        if !(1..=MAX_DIMS).contains(&rank) {
            return Err(Refusal::invalid(format!(
                "{role}: DimensionCount {rank} is outside 1..={MAX_DIMS}"
            )));
        }
        if b.Sizes.is_null() {
            return Err(Refusal::invalid(format!("{role}: Sizes is NULL")));
        }
        let sizes: Vec<u32> = (0..rank).map(|i| b.Sizes.add(i).read_unaligned()).collect();
        let strides: Option<Vec<u32>> = (!b.Strides.is_null()).then(|| {
            (0..rank)
                .map(|i| b.Strides.add(i).read_unaligned())
                .collect()
        });
        let bits = element_bits(b.DataType).ok_or_else(|| {
            Refusal::invalid(format!(
                "{role}: DataType {} is not a DML_TENSOR_DATA_TYPE",
                b.DataType
            ))
        })?;
        if b.Flags & !DML_TENSOR_FLAG_OWNED_BY_DML != 0 {
            return Err(Refusal::invalid(format!(
                "{role}: unknown Flags bits {:#x}",
                b.Flags
            )));
        }
        if is_output && b.Flags & DML_TENSOR_FLAG_OWNED_BY_DML != 0 {
            return Err(Refusal::invalid(format!(
                "{role}: DML_TENSOR_FLAG_OWNED_BY_DML is set on an output"
            )));
        }
        if let Some(d) = sizes.iter().position(|&s| s == 0) {
            return Err(Refusal::invalid(format!("{role}: Sizes[{d}] is 0")));
        }
        let elements_ok = sizes
            .iter()
            .try_fold(1u64, |a, &s| a.checked_mul(s as u64))
            .is_some_and(|n| n <= u32::MAX as u64);
        if !elements_ok {
            return Err(Refusal::invalid(format!(
                "{role}: more than 2^32-1 elements"
            )));
        }
        let needed =
            calc_buffer_tensor_size(b.DataType, &sizes, strides.as_deref()).ok_or_else(|| {
                Refusal::invalid(format!("{role}: the strides address more than 2^64 bytes"))
            })?;
        if b.TotalTensorSizeInBytes < needed {
            return Err(Refusal::invalid(format!(
                "{role}: TotalTensorSizeInBytes {} is below DMLCalcBufferTensorSize {needed}",
                b.TotalTensorSizeInBytes
            )));
        }
        if b.TotalTensorSizeInBytes > isize::MAX as u64 {
            return Err(Refusal::invalid(format!(
                "{role}: TotalTensorSizeInBytes exceeds the address space"
            )));
        }
        let align = b.GuaranteedBaseOffsetAlignment as u64;
        if align != 0 && (!align.is_power_of_two() || align * 8 < bits) {
            return Err(Refusal::invalid(format!(
            "{role}: GuaranteedBaseOffsetAlignment {align} is neither 0 nor a power of two >= the element size"
        )));
        }
        let dtype = core_type(b.DataType).ok_or_else(|| {
            Refusal::invalid(format!(
                "{role}: {} is not supported by the resample operators",
                type_name(b.DataType)
            ))
        })?;
        let sizes: Vec<usize> = sizes.iter().map(|&s| s as usize).collect();
        let strides: Vec<usize> = match strides {
            Some(st) => st.iter().map(|&s| s as usize).collect(),
            None => {
                let mut st = vec![0usize; rank];
                let mut acc = 1usize;
                for d in (0..rank).rev() {
                    st[d] = acc;
                    acc *= sizes[d]; // <= 2^32-1 elements: no overflow
                }
                st
            }
        };
        let layout = Layout::strided(dtype, &sizes, &strides, 0);
        if is_output && layout.elements_may_overlap() {
            return Err(Refusal::invalid(format!(
            "{role}: the strides {strides:?} make output elements overlap (or overlap cannot be ruled out)"
        )));
        }
        let span = layout
            .span_bytes()
            .filter(|&s| s as u64 <= b.TotalTensorSizeInBytes)
            .ok_or_else(|| {
                Refusal::invalid(format!(
                    "{role}: elements lie beyond TotalTensorSizeInBytes"
                ))
            })?;
        Ok(Tensor {
            data_type: b.DataType,
            sizes,
            total_bytes: b.TotalTensorSizeInBytes,
            offset_alignment: align.max(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT as u64),
            layout,
            span,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calc_size_examples() {
        let f = DML_TENSOR_DATA_TYPE_FLOAT32;
        assert_eq!(calc_buffer_tensor_size(f, &[1, 2, 3, 4], None), Some(96));
        assert_eq!(
            calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UINT8, &[3], None),
            Some(4)
        );
        assert_eq!(
            calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UINT4, &[3], None),
            Some(4)
        );
        assert_eq!(
            calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT16, &[2, 3], Some(&[8, 1])),
            Some(24)
        );
        assert_eq!(calc_buffer_tensor_size(f, &[2, 3], Some(&[0, 0])), Some(4));
        assert_eq!(calc_buffer_tensor_size(f, &[2, 0], None), None);
        assert_eq!(calc_buffer_tensor_size(99, &[2], None), None);
        assert_eq!(calc_buffer_tensor_size(f, &[], None), None);
        let big = [u32::MAX; 4];
        assert_eq!(calc_buffer_tensor_size(f, &big, Some(&big)), None);
    }
}
