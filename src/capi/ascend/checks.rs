//! Validation helpers shared by the operators: the failure type, guarded reads of view dims
//! and array elements (a read the original performs unguarded becomes 161002 instead of an
//! out-of-bounds read), dtype lists, and the verbose report of refused calls.

use super::meta::{aclIntArray, aclTensor};
use super::types::*;
use crate::core::DataType;
use std::cell::RefCell;
use std::ffi::{c_char, CString};

/// A refused call: the status to return and what was wrong.
#[derive(Debug)]
pub(crate) struct Fail {
    pub code: aclnnStatus,
    pub msg: String,
}

pub(crate) type Res<T> = Result<T, Fail>;

pub(crate) fn invalid(msg: impl Into<String>) -> Fail {
    Fail {
        code: ACLNN_ERR_PARAM_INVALID,
        msg: msg.into(),
    }
}

pub(crate) fn nullptr(msg: impl Into<String>) -> Fail {
    Fail {
        code: ACLNN_ERR_PARAM_NULLPTR,
        msg: msg.into(),
    }
}

thread_local! {
    static RECENT: RefCell<CString> = RefCell::new(CString::default());
}

use crate::capi::guard::verbose;

/// Records a refused call (for `aclGetRecentErrMsg`) and, with `RESAMPLE_VERBOSE=1`, prints
/// one line to stderr.
pub(crate) fn report(api: &str, f: &Fail) {
    let line = format!("{api}: status {}: {}", f.code, f.msg);
    if verbose() {
        eprintln!("libresample: ascend: {line}");
    }
    let c = CString::new(line.replace('\0', " ")).unwrap_or_default();
    RECENT.with(|r| *r.borrow_mut() = c);
}

/// The last recorded message of this thread; valid until the thread's next refused call.
pub(crate) fn recent_error() -> *const c_char {
    RECENT.with(|r| r.borrow().as_ptr())
}

/// Returns NULLPTR when any of the named pointers is NULL.
pub(crate) fn need<T>(p: *const T, what: &str) -> Res<()> {
    if p.is_null() {
        Err(nullptr(format!("{what} is NULL")))
    } else {
        Ok(())
    }
}

/// `OP_CHECK_COMM_INPUT`: the two output pointers of phase 1.
pub(crate) fn comm_input(ws: *mut u64, exec: *mut *mut super::executor::aclOpExecutor) -> Res<()> {
    need(ws, "workspaceSize")?;
    need(exec, "executor")
}

/// Dereferences a tensor the caller checked for NULL.
///
/// # Safety
/// `p` must be NULL or a live tensor from `aclCreateTensor`.
pub(crate) unsafe fn tensor<'a>(p: *const aclTensor, what: &str) -> Res<&'a aclTensor> {
    // SAFETY: `p` is NULL (refused) or a live tensor from `aclCreateTensor` (this function's
    // contract).
    unsafe { p.as_ref().ok_or_else(|| nullptr(format!("{what} is NULL"))) }
}

/// # Safety
/// `p` must be NULL or a live array from `aclCreateIntArray`.
pub(crate) unsafe fn int_array<'a>(p: *const aclIntArray, what: &str) -> Res<&'a aclIntArray> {
    // SAFETY: `p` is NULL (refused) or a live array from `aclCreateIntArray` (this function's
    // contract).
    unsafe { p.as_ref().ok_or_else(|| nullptr(format!("{what} is NULL"))) }
}

impl aclTensor {
    pub(crate) fn rank(&self) -> usize {
        self.view.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.view.contains(&0)
    }

    /// View dim `i`; 161002 where the original would read past the rank.
    pub(crate) fn dim(&self, i: usize, what: &str) -> Res<i64> {
        self.view
            .get(i)
            .copied()
            .ok_or_else(|| invalid(format!("{what} has rank {}, dim {i} is read", self.rank())))
    }

    pub(crate) fn need_rank(&self, n: usize, what: &str) -> Res<()> {
        if self.rank() == n {
            Ok(())
        } else {
            Err(invalid(format!(
                "{what} must have rank {n}, has {}",
                self.rank()
            )))
        }
    }
}

impl aclIntArray {
    pub(crate) fn len(&self) -> usize {
        self.values.len()
    }

    /// Element `i`; 161002 where the original would read past the end.
    pub(crate) fn at(&self, i: usize, what: &str) -> Res<i64> {
        self.values.get(i).copied().ok_or_else(|| {
            invalid(format!(
                "{what} has {} elements, element {i} is read",
                self.len()
            ))
        })
    }

    pub(crate) fn need_len(&self, n: usize, what: &str) -> Res<()> {
        if self.len() == n {
            Ok(())
        } else {
            Err(invalid(format!(
                "{what} must have {n} elements, has {}",
                self.len()
            )))
        }
    }
}

pub(crate) const F32: aclDataType = ACL_FLOAT;
pub(crate) const F16: aclDataType = ACL_FLOAT16;
pub(crate) const BF16: aclDataType = ACL_BF16;
pub(crate) const F64: aclDataType = ACL_DOUBLE;
pub(crate) const U8: aclDataType = ACL_UINT8;

/// `OP_CHECK_DTYPE_NOT_SUPPORT` then `OP_CHECK_DTYPE_NOT_MATCH`.
pub(crate) fn dtypes(
    t: &aclTensor,
    list: &[aclDataType],
    other: &aclTensor,
    what: (&str, &str),
) -> Res<()> {
    if !list.contains(&t.dtype) {
        return Err(invalid(format!(
            "{} dtype {} is not supported (supported: {list:?})",
            what.0, t.dtype
        )));
    }
    if other.dtype != t.dtype {
        return Err(invalid(format!(
            "{} dtype {} differs from {} dtype {}",
            what.1, other.dtype, what.0, t.dtype
        )));
    }
    Ok(())
}

/// The core type of a supported aclDataType.
pub(crate) fn core_dtype(dt: aclDataType) -> Res<DataType> {
    Ok(match dt {
        ACL_FLOAT => DataType::F32,
        ACL_FLOAT16 => DataType::F16,
        ACL_BF16 => DataType::Bf16,
        ACL_DOUBLE => DataType::F64,
        ACL_UINT8 => DataType::U8,
        other => return Err(invalid(format!("dtype {other} is not supported"))),
    })
}

/// Fails with 161002 and `msg` unless `ok`.
pub(crate) fn ensure(ok: bool, msg: impl FnOnce() -> String) -> Res<()> {
    if ok {
        Ok(())
    } else {
        Err(invalid(msg()))
    }
}

/// `(float)in / (float)out`: the ratio when no scale is used.
pub(crate) fn size_ratio(input: i64, output: i64) -> f32 {
    input as f32 / output as f32
}

/// `(float)(1.0 / (double)scale)`: the ratio from a forward scale.
pub(crate) fn scale_ratio(scale: f64) -> f32 {
    (1.0 / scale) as f32
}

/// The 3-D operators' rule (forward and backward): the scales count only when all three are
/// > 0; otherwise every axis uses `in / out`.
pub(crate) fn ratios_3d(scales: &[f64; 3], input: &[i64], output: &[i64]) -> Vec<f32> {
    let all = scales.iter().all(|&s| s > 0.0);
    (0..3)
        .map(|k| {
            if all {
                scale_ratio(scales[k])
            } else {
                size_ratio(input[k], output[k])
            }
        })
        .collect()
}
