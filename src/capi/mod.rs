//! The C faces. Every exported function runs under a guard (`ffi_guard!` or its face's status
//! guard, see [`guard`]), so no panic crosses `extern "C"`: a panic becomes the face's
//! runtime-error value.

// Every unsafe block states why it is sound (issue 9).
#![warn(clippy::undocumented_unsafe_blocks)]

#[macro_use]
pub mod guard;

pub mod ascend;
pub mod directml;
mod exec;
pub mod library;
pub mod native;
pub mod onednn;
