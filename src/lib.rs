//! libresample: tensor resampling behind three C faces (oneDNN, DirectML, Ascend aclnn)
//! over one safe core.
//!
//! - [`core`]: problems, tap tables, kernels, threads — safe Rust, no C types.
//! - [`capi`]: the `extern "C"` faces; each only checks, translates and maps errors.

#![allow(clippy::missing_safety_doc)]

pub mod capi;
pub mod core;
