//! The C faces. Every exported function runs under a guard (`ffi_guard!` or its face's status
//! guard, see [`guard`]), so no panic crosses `extern "C"`: a panic becomes the face's
//! runtime-error value.

#[macro_use]
pub mod guard;

pub mod ascend;
pub mod directml;
mod exec;
pub mod library;
pub mod native;
pub mod onednn;
