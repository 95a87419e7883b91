//! The Ascend face: CANN's aclnn upsample-nearest operators (`aclnnUpsampleNearest*`,
//! forward, exact and backward), the aclnn meta API (`aclCreateTensor`, …) and the acl
//! runtime subset the official examples call (`aclInit`, `aclrtMalloc`, …), running on the
//! CPU with CANN's float32 index math (docs/spec/ascend.md; §4.4: where it matches PyTorch CPU).
//!
//! - [`types`]: enum values and status codes (integers, never Rust enums).
//! - [`meta`]: tensors, arrays, scalars and lists (opaque handles).
//! - [`runtime`]: devices, streams, host "device" memory, copies.
//! - [`checks`]: guarded reads, dtype lists, the failure type, verbose reports.
//! - [`executor`]: translation into one core plan; the shared run phase.
//! - [`forward`], [`backward`]: the operators, each with the original's checks in order.

#![allow(non_camel_case_types)]

pub mod checks;
pub mod executor;
pub mod meta;
pub mod types;

pub mod backward;
pub mod forward;
pub mod runtime;

pub use executor::aclOpExecutor;
pub use meta::{
    aclBoolArray, aclFloatArray, aclIntArray, aclScalar, aclScalarList, aclTensor, aclTensorList,
};
pub use types::*;
