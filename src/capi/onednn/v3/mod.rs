//! The oneDNN 3.2 C API of `libdnnl.so.3` (crates/dnnl3 compiles this crate with
//! `cfg(resample_dnnl3)`). A thin translation over the 2.6 face: 3.x memory descriptor
//! handles are the 2.6 structs (see [`md`]), resampling pds are created from an internal
//! 2.6 op descriptor, and renumbered values (format tags, primitive kinds, eltwise
//! algorithms, queries, execution arguments) are translated at the entry points that see
//! them. Where 3.x kept a 2.6 name with another signature or numbering, the 2.6 function is
//! exported under this cfg as `resample_onednn26_<name>` instead
//! (`cfg_attr(resample_dnnl3, export_name = ...)` beside its `#[no_mangle]`, which keeps
//! it in resample.h) and the 3.x one here takes the name; everything else (engines,
//! streams, memory objects, attributes, reorder, binary/prelu post-ops) is the 2.6 code
//! unchanged. This module is `cbindgen:ignore`d: its symbols exist in libdnnl.so.3 only.
//!
//! - [`numbers`]: 3.2 enum values and their translation;
//! - [`md`]: memory descriptor handles, `dnnl_memory_desc_query`, the `_v2` memory calls;
//! - [`resampling`]: pd creation, `next_impl`, queries, execution;
//! - [`attr`]: sum / eltwise / depthwise post-ops, scale and zero-point masks;
//! - [`misc`]: version and the `dnnl_debug.h` strings.

pub mod attr;
pub mod md;
pub mod misc;
pub mod numbers;
pub mod resampling;
