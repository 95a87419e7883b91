//! libresample: tensor resampling behind three C faces (oneDNN, DirectML, Ascend aclnn)
//! over one safe core.
//!
//! - [`core`]: problems, tap tables, kernels, threads — safe Rust, no C types.
//! - [`capi`]: the `extern "C"` faces; each only checks, translates and maps errors.

#![deny(unsafe_op_in_unsafe_fn)]
#![allow(clippy::missing_safety_doc)]
// Kernels index several parallel arrays by axis; iterator chains would obscure them.
#![allow(clippy::needless_range_loop)]
#![allow(clippy::too_many_arguments)]
// libdnnl.so.3 (crates/dnnl3) renames the 2.6 exports that 3.x redefines with
// `cfg_attr(resample_dnnl3, export_name = "resample_onednn26_...")` next to their
// `#[no_mangle]` (which cbindgen reads for resample.h); rustc flags the pair as unused.
#![cfg_attr(resample_dnnl3, allow(unused_attributes))]

pub mod capi;
pub mod core;
