//! The DNNL 1.2/1.3 ABI of `libdnnl.so.1` (crates/dnnl1 compiles this crate with
//! `cfg(resample_dnnl1)`). Function signatures and struct layouts equal 2.6's; what differs
//! is translated here at the entry points that see it:
//! - format tags (renumbered): [`tag_in`] maps a caller's 1.x value to the 2.6 value of
//!   the same name (`dnnl_memory_desc_init_by_tag`, `dnnl_fmt_tag2str`); the memory
//!   descriptors themselves carry no tag, so queries and verbose lines need no change;
//! - stream flags: [`stream_flags_in`];
//! - version, verbose prefix: `dnnl_version` reports 1.2.0, verbose lines `dnnl_verbose`;
//! - index math: [`rule`] picks `AxisRule::Dnnl12` unless
//!   `RESAMPLE_DNNL1_RULES=v2` asks for the 2.x rules.
//!
//! In `libresample.so` ([`ACTIVE`] false) every function here is the identity.

use std::ffi::c_uint;
use std::sync::OnceLock;

use crate::core::AxisRule;

use super::format_tags_v1::{FORMAT_TAG_LAST_V1, V1_TO_V2};
use super::types::dnnl_format_tag_t;

/// True in libdnnl.so.1.
pub(crate) const ACTIVE: bool = cfg!(resample_dnnl1);

/// The 2.6 value of a 1.2/1.3 tag value; values outside 1.x's range become -1, which
/// every 2.6 entry point refuses (or names "unknown fmt_tag").
pub(crate) fn v1_tag_to_v2(tag: dnnl_format_tag_t) -> dnnl_format_tag_t {
    usize::try_from(tag)
        .ok()
        .and_then(|t| V1_TO_V2.get(t).copied())
        .unwrap_or(-1)
}

/// A caller's tag as the 2.6 code reads it.
pub(crate) fn tag_in(tag: dnnl_format_tag_t) -> dnnl_format_tag_t {
    if ACTIVE {
        v1_tag_to_v2(tag)
    } else {
        tag
    }
}

/// `dnnl_format_tag_last` of the served ABI when `ACTIVE`.
pub(crate) fn is_v1_tag_last(tag: dnnl_format_tag_t) -> bool {
    ACTIVE && tag == FORMAT_TAG_LAST_V1
}

/// 1.x stream flags (default_order 1, in_order 2, out_of_order 4) as 2.6 flags (in_order 1,
/// out_of_order 2; default 1; 0 is taken as the default); `None` for unknown bits. The CPU
/// engine executes synchronously, so every accepted flag runs in order.
pub(crate) fn v1_stream_flags_to_v2(flags: c_uint) -> Option<c_uint> {
    const DEFAULT_ORDER: c_uint = 1;
    const IN_ORDER: c_uint = 2;
    const OUT_OF_ORDER: c_uint = 4;
    if flags & !(DEFAULT_ORDER | IN_ORDER | OUT_OF_ORDER) != 0 {
        return None;
    }
    if flags == 0 {
        return Some(1);
    }
    let mut v2 = 0;
    if flags & (DEFAULT_ORDER | IN_ORDER) != 0 {
        v2 |= 1;
    }
    if flags & OUT_OF_ORDER != 0 {
        v2 |= 2;
    }
    Some(v2)
}

/// Stream flags as the 2.6 code stores them (`None`: refuse).
pub(crate) fn stream_flags_in(flags: c_uint) -> Option<c_uint> {
    if ACTIVE {
        v1_stream_flags_to_v2(flags)
    } else {
        Some(flags)
    }
}

/// The environment variable selecting libdnnl.so.1's index math: `v2` (or `2`) for the
/// corrected 2.x rules; unset, empty or `v1.2` for DNNL 1.2's (the default). Read once.
pub const RULES_ENV: &str = "RESAMPLE_DNNL1_RULES";

/// Parses [`RULES_ENV`]: true for the 1.2 rules.
pub(crate) fn parse_rules(v: Option<&str>) -> bool {
    !matches!(v.map(str::trim), Some("v2" | "2" | "v2.x" | "2.x"))
}

/// libdnnl.so.1's axis rule: DNNL 1.2's index math, or with the switch the 2.x reference
/// (`ref:any`) formulas for every layout (1.2 had no jit backward, so the 2.6 jit
/// backward's tie rule is not imitated); `None` in libresample.so.
pub(crate) fn rule() -> Option<AxisRule> {
    static RULES: OnceLock<bool> = OnceLock::new();
    if !ACTIVE {
        return None;
    }
    let legacy = *RULES.get_or_init(|| parse_rules(std::env::var(RULES_ENV).ok().as_deref()));
    Some(if legacy {
        AxisRule::Dnnl12
    } else {
        AxisRule::OnednnHalfPixel
    })
}

/// The verbose line prefix of the served ABI.
pub(crate) fn verbose_prefix() -> &'static str {
    if ACTIVE {
        "dnnl_verbose"
    } else {
        "onednn_verbose"
    }
}

#[cfg(test)]
mod tests {
    use super::super::format_tags::*;
    use super::*;

    #[test]
    fn tags_translate_by_name() {
        assert_eq!(v1_tag_to_v2(0), dnnl_format_tag_undef);
        assert_eq!(v1_tag_to_v2(1), dnnl_format_tag_any);
        assert_eq!(v1_tag_to_v2(5), dnnl_abcd);
        assert_eq!(v1_tag_to_v2(12), dnnl_nhwc);
        assert_eq!(v1_tag_to_v2(17), dnnl_bca);
        assert_eq!(v1_tag_to_v2(45), dnnl_nChw16c);
        assert_eq!(v1_tag_to_v2(153), dnnl_aCBdef16b16c);
        assert_eq!(v1_tag_to_v2(154), -1);
        assert_eq!(v1_tag_to_v2(-3), -1);
    }

    #[test]
    fn stream_flags() {
        assert_eq!(v1_stream_flags_to_v2(1), Some(1));
        assert_eq!(v1_stream_flags_to_v2(2), Some(1));
        assert_eq!(v1_stream_flags_to_v2(4), Some(2));
        assert_eq!(v1_stream_flags_to_v2(0), Some(1));
        assert_eq!(v1_stream_flags_to_v2(8), None);
    }

    #[test]
    fn rules_switch() {
        assert!(parse_rules(None));
        assert!(parse_rules(Some("")));
        assert!(parse_rules(Some("v1.2")));
        assert!(!parse_rules(Some("v2")));
        assert!(!parse_rules(Some(" 2 ")));
    }

    #[test]
    fn inactive_in_libresample() {
        if !ACTIVE {
            assert_eq!(tag_in(17), 17);
            assert_eq!(stream_flags_in(77), Some(77));
            assert!(rule().is_none());
        }
    }
}
