//! The DirectML face: the resample operator descriptors of `DirectML.h` (FL 6.4) —
//! `DML_OPERATOR_RESAMPLE`, `RESAMPLE1`, `RESAMPLE2`, `RESAMPLE3`, `RESAMPLE_GRAD`,
//! `RESAMPLE_GRAD1` — executed on host buffers through a small C API
//! (`DMLCreateOperator`, `DMLExecuteOperator`, `DMLReleaseOperator`,
//! `DMLCalcBufferTensorSize`).
//!
//! - [`types`]: the C structs, enum typedefs/constants and HRESULT codes;
//! - [`operator_types`]: every `DML_OPERATOR_TYPE` value;
//! - [`tensor`]: buffer tensor descriptions and `DMLCalcBufferTensorSize`;
//! - [`descriptor`]: the six operator descriptions, normalised and validated;
//! - [`operator`]: translation to a core `Problem` and the exported functions;
//! - [`refusal`]: HRESULT plus message of a refused call, verbose reporting.

pub(crate) mod descriptor;
pub mod operator;
pub mod operator_types;
pub(crate) mod refusal;
pub(crate) mod tensor;
pub mod types;

pub use operator::*;
pub use operator_types::*;
pub use types::*;
