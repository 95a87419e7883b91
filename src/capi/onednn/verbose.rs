//! oneDNN 2.6 verbose mode: with `ONEDNN_VERBOSE` / `DNNL_VERBOSE` (read once) or
//! `dnnl_set_verbose(level)`, level 1 prints one `onednn_verbose,exec,...` line per
//! execution and level 2 also a `create` line per primitive creation, in oneDNN 2.6.3's
//! format (memory descriptors, attributes, algorithm, problem, milliseconds) on stdout, like
//! oneDNN; the first line is preceded by the `info` header. Refused calls print one
//! `libresample,onednn,...` line to stderr saying why (see `super::verbose_refuse`).
//! libdnnl.so.3 (`V3`) prints oneDNN 3.2's variant: md strings with the user-`any` flag
//! and a strides field, `attr-fpmath:<mode>`, 3.2 algorithm names, version 3.2.0.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::OnceLock;

use super::attr::dnnl_primitive_attr;
use super::md::compute_blocks;
use super::postops::Entry;
use super::types::*;

/// True in libdnnl.so.3.
const V3: bool = cfg!(resample_dnnl3);

/// Level set by `dnnl_set_verbose` (-1: not set, the environment decides).
static LEVEL: AtomicI32 = AtomicI32::new(-1);

fn env_level() -> i32 {
    static ENV: OnceLock<i32> = OnceLock::new();
    *ENV.get_or_init(|| {
        // DNNL 1.x read DNNL_VERBOSE (and MKLDNN_VERBOSE); 2.x added ONEDNN_VERBOSE.
        let keys: &[&str] = if super::dnnl1::ACTIVE {
            &["DNNL_VERBOSE", "MKLDNN_VERBOSE"]
        } else {
            &["ONEDNN_VERBOSE", "DNNL_VERBOSE"]
        };
        keys.iter()
            .find_map(|k| std::env::var(k).ok())
            .map_or(0, |v| v.trim().parse::<i32>().unwrap_or(0))
    })
}

/// The current verbose level (0: off, 1: exec lines, 2: also create lines).
pub(crate) fn level() -> i32 {
    match LEVEL.load(Ordering::Relaxed) {
        l if l >= 0 => l,
        _ => env_level(),
    }
}

pub(crate) fn set_level(l: i32) {
    LEVEL.store(l, Ordering::Relaxed);
}

/// Prints one verbose line to stdout (as oneDNN does), preceded (once per process) by the
/// `info` header.
fn emit(line: &str) {
    static HEADER: AtomicBool = AtomicBool::new(false);
    let mut out = String::new();
    if !HEADER.swap(true, Ordering::Relaxed) {
        let p = super::dnnl1::verbose_prefix();
        let product = if super::dnnl1::ACTIVE {
            "DNNL v1.2.0"
        } else if V3 {
            "oneDNN v3.2.0"
        } else {
            "oneDNN v2.6.3"
        };
        let _ = writeln!(
            out,
            "{p},info,{product} (libresample {})",
            env!("CARGO_PKG_VERSION")
        );
        let _ = writeln!(
            out,
            "{p},info,cpu,runtime:libresample,nthr:{}",
            crate::core::threads::max_threads()
        );
        let _ = writeln!(out, "{p},info,cpu,isa:{}", crate::core::simd::isa_name());
        let _ = writeln!(out, "{p},info,gpu,runtime:none");
        if !super::dnnl1::ACTIVE {
            out.push_str("onednn_verbose,info,prim_template:operation,engine,primitive,implementation,prop_kind,memory_descriptors,attributes,auxiliary,problem_desc,exec_time
");
        }
    }
    out.push_str(line);
    out.push('\n');
    // oneDNN prints its verbose lines to stdout.
    use std::io::Write as _;
    let mut e = std::io::stdout().lock();
    let _ = e.write_all(out.as_bytes());
    let _ = e.flush();
}

/// `onednn_verbose,create:cache_miss,<info>,<ms>` (level 2).
pub(crate) fn create_line(info: &str, ms: f64) {
    if level() >= 2 {
        emit(&format!(
            "{},{},{info},{}",
            super::dnnl1::verbose_prefix(),
            // DNNL 1.2 had no primitive cache.
            if super::dnnl1::ACTIVE {
                "create"
            } else {
                "create:cache_miss"
            },
            fmt_g(ms)
        ));
    }
}

/// `onednn_verbose,exec,<info>,<ms>` (level 1).
pub(crate) fn exec_line(info: &str, ms: f64) {
    emit(&format!(
        "{},exec,{info},{}",
        super::dnnl1::verbose_prefix(),
        fmt_g(ms)
    ));
}

/// C's `printf("%g", v)`.
pub(crate) fn fmt_g(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Exponent after rounding to 6 significant digits.
    let sci = format!("{v:.5e}");
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let x: i32 = exp.parse().unwrap_or(0);
    let strip = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if (-4..6).contains(&x) {
        strip(&format!("{v:.*}", (5 - x) as usize))
    } else {
        let sign = if x < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip(mant), x.abs())
    }
}

fn dt_str(dt: dnnl_data_type_t) -> &'static str {
    match dt {
        dnnl_data_type_undef => "undef",
        dnnl_f16 => "f16",
        dnnl_bf16 => "bf16",
        dnnl_f32 => "f32",
        dnnl_s32 => "s32",
        dnnl_s8 => "s8",
        dnnl_u8 => "u8",
        _ => "unknown dt",
    }
}

/// The dims-order part of oneDNN's md string ("acdb", "aBcd16b"): dims sorted by
/// descending stride (ties: larger outer size first), blocked dims in upper case, then the
/// inner blocks.
pub(crate) fn md_tag_str(md: &dnnl_memory_desc_t) -> String {
    if md.format_kind != dnnl_blocked {
        return String::new();
    }
    let nd = md.ndims.clamp(0, 12) as usize;
    let blocks = compute_blocks(md);
    let blk = md.blocking();
    let mut chars: Vec<u8> = Vec::with_capacity(nd);
    let mut strides = [0i64; 12];
    let mut ou = [0i64; 12];
    let mut plain = true;
    for d in 0..nd {
        let b = blocks[d].max(1);
        chars.push(if b == 1 { b'a' } else { b'A' } + d as u8);
        plain &= b == 1;
        ou[d] = md.padded_dims[d] / b;
        strides[d] = blk.strides[d];
    }
    if nd > 0 {
        for i in 0..nd - 1 {
            let mut swapped = false;
            for j in 0..nd - i - 1 {
                let mut res = strides[j + 1].cmp(&strides[j]);
                if res == std::cmp::Ordering::Equal {
                    res = ou[j + 1].cmp(&ou[j]);
                }
                if res == std::cmp::Ordering::Greater {
                    strides.swap(j, j + 1);
                    ou.swap(j, j + 1);
                    chars.swap(j, j + 1);
                    swapped = true;
                }
            }
            if !swapped {
                break;
            }
        }
    }
    let mut s = String::from_utf8(chars).unwrap_or_default();
    if !plain {
        for i in 0..blk.inner_nblks.clamp(0, 12) as usize {
            let _ = write!(
                s,
                "{}{}",
                blk.inner_blks[i],
                (b'a' + blk.inner_idxs[i].clamp(0, 25) as u8) as char
            );
        }
    }
    s
}

/// 3.x's strides field: empty when the strides are those the md's own tag implies,
/// otherwise every stride, `x`-separated (`100x1x20x3`).
fn strides_str(md: &dnnl_memory_desc_t) -> String {
    let nd = md.ndims.clamp(0, 12) as usize;
    let tag = md_tag_str(md);
    let dense = super::md::parse_tag_name(&tag)
        .and_then(|t| super::md::md_by_layout(*md, &t, &tag).ok())
        .is_some_and(|d| d.blocking().strides[..nd] == md.blocking().strides[..nd]);
    if dense {
        return String::new();
    }
    let s: Vec<String> = md.blocking().strides[..nd]
        .iter()
        .map(|v| v.to_string())
        .collect();
    s.join("x")
}

/// oneDNN's md string. 2.6: `<dt>:<p|o|0 flags>:<format kind>:<tag>:f<extra flags>`;
/// 3.x: `<dt>:<a|p|o|0 flags>:<format kind>:<tag>:<strides>:f<extra flags>`, where `a`
/// marks a tensor the user gave as `format_tag_any`.
pub(crate) fn md_str_user(md: &dnnl_memory_desc_t, user_any: bool) -> String {
    if !V3 {
        return md_str(md);
    }
    let nd = md.ndims.clamp(0, 12) as usize;
    let padded = (0..nd).any(|d| md.dims[d] != md.padded_dims[d]);
    let offs = (0..nd).any(|d| md.padded_offsets[d] != 0);
    let (kind, fmt) = match md.format_kind {
        dnnl_blocked => ("blocked", format!("{}:{}", md_tag_str(md), strides_str(md))),
        dnnl_format_kind_any => ("any", "any:".to_string()),
        _ => ("undef", ":".to_string()),
    };
    format!(
        "{}:{}{}{}{}:{kind}:{fmt}:f{:x}",
        dt_str(md.data_type),
        if user_any { "a" } else { "" },
        if padded { "p" } else { "" },
        if offs { "o" } else { "" },
        if md.offset0 != 0 { "0" } else { "" },
        md.extra.flags
    )
}

/// oneDNN's md string: `<dt>:<p|o|0 flags>:<format kind>:<tag>:f<extra flags>`.
pub(crate) fn md_str(md: &dnnl_memory_desc_t) -> String {
    if V3 {
        return md_str_user(md, false);
    }
    let nd = md.ndims.clamp(0, 12) as usize;
    let padded = (0..nd).any(|d| md.dims[d] != md.padded_dims[d]);
    let offs = (0..nd).any(|d| md.padded_offsets[d] != 0);
    let kind = match md.format_kind {
        dnnl_format_kind_undef => "undef",
        dnnl_format_kind_any => "any",
        dnnl_blocked => "blocked",
        dnnl_format_kind_wino => "wino",
        dnnl_format_kind_rnn_packed => "rnn_packed",
        _ => "unknown fmt_kind",
    };
    format!(
        "{}:{}{}{}:{}:{}:f{:x}",
        dt_str(md.data_type),
        if padded { "p" } else { "" },
        if offs { "o" } else { "" },
        if md.offset0 != 0 { "0" } else { "" },
        kind,
        md_tag_str(md),
        md.extra.flags
    )
}

#[cfg(not(resample_dnnl3))]
fn alg_str(alg: dnnl_alg_kind_t) -> String {
    // SAFETY: returns a pointer to a static NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(super::misc::dnnl_alg_kind2str(alg)) }
        .to_string_lossy()
        .into_owned()
}

/// The 3.2 name of a stored algorithm (eltwise entries hold 2.6 or private values).
#[cfg(resample_dnnl3)]
fn alg_str(alg: dnnl_alg_kind_t) -> String {
    let v3 = match super::v3::numbers::eltwise_out(alg) {
        dnnl_alg_kind_undef => alg,
        v => v,
    };
    // SAFETY: returns a pointer to a static NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(super::v3::misc::dnnl_alg_kind2str(v3)) }
        .to_string_lossy()
        .into_owned()
}

/// oneDNN's attribute string (scratchpad, fpmath, post-ops; each item followed by a space).
/// `src1` holds the resolved md of each binary post-op, by chain position.
pub(crate) fn attr_str(a: &dnnl_primitive_attr, src1: &[(usize, dnnl_memory_desc_t)]) -> String {
    let mut s = String::new();
    if a.scratchpad_mode == dnnl_scratchpad_mode_user {
        s.push_str("attr-scratchpad:user ");
    }
    if a.fpmath_mode != dnnl_fpmath_mode_strict {
        // SAFETY: static string.
        let m =
            unsafe { std::ffi::CStr::from_ptr(super::misc::dnnl_fpmath_mode2str(a.fpmath_mode)) };
        if V3 {
            let m = m.to_string_lossy();
            let _ = write!(s, "attr-fpmath:{} ", m.trim_start_matches("fpmath_mode_"));
        } else {
            let _ = write!(s, "attr-fpmath_mode:{} ", m.to_string_lossy());
        }
    }
    let po = &a.post_ops().entries;
    if po.is_empty() {
        return s;
    }
    s.push_str("attr-post-ops:");
    for (i, e) in po.iter().enumerate() {
        if i > 0 {
            s.push('+');
        }
        match e {
            Entry::Sum {
                scale,
                zero_point,
                dt,
            } => {
                s.push_str("sum");
                let has_dt = *dt != dnnl_data_type_undef;
                if *scale != 1.0 || *zero_point != 0 || has_dt {
                    let _ = write!(s, ":{}", fmt_g(*scale as f64));
                }
                if *zero_point != 0 || has_dt {
                    let _ = write!(s, ":{zero_point}");
                }
                if has_dt {
                    let _ = write!(s, ":{}", dt_str(*dt));
                }
            }
            Entry::Eltwise {
                scale,
                alg,
                alpha,
                beta,
            } => {
                s.push_str(&alg_str(*alg));
                if *alpha != 0.0 || *beta != 0.0 || *scale != 1.0 {
                    let _ = write!(s, ":{}", fmt_g(*alpha as f64));
                }
                if *beta != 0.0 || *scale != 1.0 {
                    let _ = write!(s, ":{}", fmt_g(*beta as f64));
                }
                if *scale != 1.0 {
                    let _ = write!(s, ":{}", fmt_g(*scale as f64));
                }
            }
            Entry::Binary { alg, src1: md0 } => {
                let md = src1
                    .iter()
                    .find(|(k, _)| *k == i)
                    .map_or(&**md0, |(_, m)| m);
                let nd = md.ndims.clamp(0, 12) as usize;
                let mask: i32 = (0..nd).filter(|&d| md.dims[d] != 1).map(|d| 1 << d).sum();
                let _ = write!(s, "{}:{}:{mask}", alg_str(*alg), dt_str(md.data_type));
                if (0..nd).filter(|&d| md.dims[d] != 1).count() > 1 {
                    let _ = write!(s, ":{}", md_tag_str(md));
                }
            }
            Entry::Dw { .. } => s.push_str("dw"),
            Entry::Prelu { mask } => {
                let _ = write!(s, "prelu:{mask}");
            }
        }
    }
    s.push(' ');
    s
}

/// The fixed part of a resampling primitive's verbose line:
/// `cpu,resampling,<impl>,<prop>,src_<md> dst_<md>,<attr>,alg:<alg>,<problem>`; `src` and
/// `dst` are the forward-input and forward-output tensors (for backward: diff_src and
/// diff_dst, printed as `src_` and `dst_` as oneDNN does).
pub(crate) fn pd_info(
    impl_name: &str,
    rd: &dnnl_resampling_desc_t,
    src: &dnnl_memory_desc_t,
    dst: &dnnl_memory_desc_t,
    attr: &str,
) -> String {
    let prop = match rd.prop_kind {
        dnnl_forward_training => "forward_training",
        dnnl_forward_inference => "forward_inference",
        dnnl_backward_data => "backward_data",
        _ => "undef",
    };
    let nd = src.ndims.clamp(0, 12) as usize;
    let mut prb = format!("mb{}ic{}_", src.dims[0], src.dims[1]);
    let sp = |k: usize| (src.dims[k], dst.dims[k]);
    if nd >= 5 {
        let (i, o) = sp(nd - 3);
        let _ = write!(prb, "id{i}od{o}_");
    }
    if nd >= 4 {
        let (i, o) = sp(nd - 2);
        let _ = write!(prb, "ih{i}oh{o}_");
    }
    let (i, o) = sp(nd - 1);
    let _ = write!(prb, "iw{i}ow{o}");
    // The user's own descriptors (3.x flags a format `any` one).
    let forward = rd.prop_kind != dnnl_backward_data;
    let (user_src, user_dst) = if forward {
        (&rd.src_desc, &rd.dst_desc)
    } else {
        (&rd.diff_src_desc, &rd.diff_dst_desc)
    };
    format!(
        "cpu,resampling,{impl_name},{prop},src_{} dst_{},{attr},alg:{},{prb}",
        md_str_user(src, user_src.format_kind == dnnl_format_kind_any),
        md_str_user(dst, user_dst.format_kind == dnnl_format_kind_any),
        alg_str(rd.alg_kind)
    )
}

/// The fixed part of a reorder primitive's verbose line:
/// `cpu,reorder,<impl>,undef,src_<md> dst_<md>,,,<dims>`.
pub(crate) fn reorder_info(
    impl_name: &str,
    src: &dnnl_memory_desc_t,
    dst: &dnnl_memory_desc_t,
) -> String {
    let nd = src.ndims.clamp(0, 12) as usize;
    let dims: Vec<String> = src.dims[..nd].iter().map(|d| d.to_string()).collect();
    format!(
        "cpu,reorder,{impl_name},undef,src_{} dst_{},,,{}",
        md_str(src),
        md_str(dst),
        dims.join("x")
    )
}

#[cfg(test)]
mod tests {
    use super::fmt_g;

    #[test]
    fn g_format_matches_c() {
        let cases: &[(f64, &str)] = &[
            (0.5, "0.5"),
            (2.0, "2"),
            (0.1, "0.1"),
            (-1.0, "-1"),
            (2.5, "2.5"),
            (0.00219727, "0.00219727"),
            (0.002197265625, "0.00219727"),
            (1.02417, "1.02417"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (0.0000123, "1.23e-05"),
            (0.0001, "0.0001"),
            (999999.5, "1e+06"),
            (0.1f32 as f64, "0.1"),
            (0.0, "0"),
        ];
        for (v, want) in cases {
            assert_eq!(fmt_g(*v), *want, "{v}");
        }
    }
}
