//! The oneDNN 2.6.3 C API face (resampling subset): exact function signatures, enum
//! values and struct layouts, so C programs built against oneDNN's own `dnnl.h` link
//! against this library unchanged.
//!
//! - [`types`]: enum values, `DNNL_ARG_*`, `#[repr(C)]` structs with layout asserts;
//! - [`format_tags`]: all format-tag names and values (generated);
//! - `dnnl1`, `format_tags_v1`: the DNNL 1.2/1.3 ABI of libdnnl.so.1 (tag and stream-flag
//!   translation, version, index-math switch; identity in libresample.so);
//! - `v3`, `format_tags_v3`: the oneDNN 3.2 ABI of libdnnl.so.3 (compiled only there);
//! - [`md`]: memory descriptors (tags parsed generically from their names);
//! - [`engine`], [`memory`]: engines, streams, memory objects;
//! - [`desc`]: resampling op descriptors;
//! - [`pd`]: primitive descriptors, queries, iterator;
//! - [`attr`], [`postops`]: primitive attributes and post-op chains;
//! - `verbose`: oneDNN's verbose lines (`ONEDNN_VERBOSE`, `dnnl_set_verbose`);
//! - [`primitive`]: primitives and execution;
//! - [`reshape`]: memory descriptor reshaping (`dnnl_memory_desc_reshape`);
//! - [`reorder`]: reorder primitive descriptors (layout and data-type conversion);
//! - [`misc`]: version, verbose, `dnnl_debug.h` strings.
//!
//! Handles are registered in [`registry`], so a bad pointer is refused rather than used.

#![allow(non_camel_case_types, non_upper_case_globals)]

pub mod attr;
pub mod desc;
mod dnnl1;
pub mod engine;
pub mod format_tags;
mod format_tags_v1;
/// cbindgen:ignore
#[cfg(any(resample_dnnl3, test))]
#[cfg_attr(not(resample_dnnl3), allow(dead_code))]
mod format_tags_v3;
pub mod md;
pub mod memory;
pub mod misc;
pub mod pd;
pub mod postops;
pub mod primitive;
mod registry;
pub mod reorder;
pub mod reshape;
mod translate;
pub mod types;
/// The 3.x face: libdnnl.so.3 only, so not part of resample.h.
/// cbindgen:ignore
#[cfg(resample_dnnl3)]
pub mod v3;
/// The 3.x tables' unit tests (pure data) also run in this crate's test build: a test build
/// of libdnnl.so.3's lib target just for them costs CI minutes.
/// cbindgen:ignore
#[cfg(all(test, not(resample_dnnl3)))]
#[allow(dead_code)]
#[path = "v3/numbers.rs"]
mod v3_numbers;
mod verbose;

use std::fmt;

use types::dnnl_status_t;

fn verbose() -> bool {
    crate::capi::guard::verbose() || verbose::level() >= 1
}

/// Returns `status`, printing why to stderr when verbose is on.
pub(crate) fn verbose_refuse(status: dnnl_status_t, why: fmt::Arguments) -> dnnl_status_t {
    if verbose() {
        let name = match status {
            types::dnnl_invalid_arguments => "invalid_arguments",
            types::dnnl_unimplemented => "unimplemented",
            types::dnnl_out_of_memory => "out_of_memory",
            _ => "error",
        };
        eprintln!("libresample,onednn,{name},{why}");
    }
    status
}

/// As [`verbose_refuse`] with a plain message.
pub(crate) fn refuse(status: dnnl_status_t, why: &str) -> dnnl_status_t {
    verbose_refuse(status, format_args!("{why}"))
}
