//! The C faces. Every exported function is wrapped by [`ffi_guard!`], so no panic crosses
//! `extern "C"`: a panic becomes the face's runtime-error value.

#[macro_use]
pub mod guard;

pub mod ascend;
pub mod directml;
mod exec;
pub mod library;
pub mod native;
pub mod onednn;
