//! oneDNN 3.2's renumbered enum values (read from its `dnnl_types.h` /
//! `dnnl_common_types.h`) and their translation to and from the 2.6 values the shared
//! code works in. Values 3.2 shares with 2.6 (status, data types f16..u8, prop kinds,
//! engine kinds, stream flags, resampling and binary algorithms, queries 1-13 and
//! 128-136/255, `DNNL_ARG_*` below 1024) need no entry here.

use std::ffi::c_int;

// Paths from the crate root: the test build of libresample compiles this file as another module.
use crate::capi::onednn::postops::{ALG_V3_HARDSIGMOID, ALG_V3_HARDSWISH, ALG_V3_SOFT_RELU};
use crate::capi::onednn::types::*;

/// 3.2 data types 2.6 lacks; creatable descriptors, refused by every primitive.
pub(crate) const V3_F64: dnnl_data_type_t = 7;
pub(crate) const V3_BOOLEAN: dnnl_data_type_t = 8;

/// 3.2 `dnnl_format_kind_opaque` (2.6's wino slot; never produced here).
pub(crate) const V3_FORMAT_KIND_OPAQUE: dnnl_format_kind_t = 3;

/// 3.2 queries with no 2.6 equivalent (op-desc queries 64-85 are gone).
pub(crate) const Q_STRIDES: dnnl_query_t = 14;
pub(crate) const Q_ALG_KIND: dnnl_query_t = 20;
pub(crate) const Q_FACTORS: dnnl_query_t = 27;
pub(crate) const Q_NDIMS_S32: dnnl_query_t = 256;
pub(crate) const Q_DIMS: dnnl_query_t = 257;
pub(crate) const Q_DATA_TYPE: dnnl_query_t = 258;
pub(crate) const Q_SUBMEMORY_OFFSET_S64: dnnl_query_t = 259;
pub(crate) const Q_PADDED_DIMS: dnnl_query_t = 260;
pub(crate) const Q_PADDED_OFFSETS: dnnl_query_t = 261;
pub(crate) const Q_FORMAT_KIND: dnnl_query_t = 262;
pub(crate) const Q_INNER_NBLKS_S32: dnnl_query_t = 263;
pub(crate) const Q_INNER_BLKS: dnnl_query_t = 264;
pub(crate) const Q_INNER_IDXS: dnnl_query_t = 265;
pub(crate) const Q_NUM_HANDLES_S32: dnnl_query_t = 268;

/// 3.2 `DNNL_ARG_*` above 1024.
pub(crate) const ARG_ATTR_SCALES: c_int = 4096;
pub(crate) const ARG_ATTR_POST_OP_DW: c_int = 16384;
pub(crate) const ARG_ATTR_MULTIPLE_POST_OP_BASE: c_int = 32768;

/// 3.2 primitive kinds.
pub(crate) mod kind {
    use super::dnnl_primitive_kind_t as K;
    pub(crate) const UNDEF: K = 0;
    pub(crate) const REORDER: K = 1;
    pub(crate) const SUM: K = 4;
    pub(crate) const CONVOLUTION: K = 5;
    pub(crate) const ELTWISE: K = 7;
    pub(crate) const BINARY: K = 13;
    pub(crate) const RESAMPLING: K = 15;
    pub(crate) const PRELU: K = 18;
}

/// (3.2 value, 2.6 value or a private `ALG_V3_*`) of every forward eltwise algorithm of
/// 3.2 (bounded_relu and logsigmoid are gone; soft_relu and hardswish took parameters).
const ELTWISE: [(dnnl_alg_kind_t, dnnl_alg_kind_t); 28] = [
    (32, dnnl_eltwise_relu),
    (33, dnnl_eltwise_tanh),
    (34, dnnl_eltwise_elu),
    (35, dnnl_eltwise_square),
    (36, dnnl_eltwise_abs),
    (37, dnnl_eltwise_sqrt),
    (38, dnnl_eltwise_linear),
    (39, ALG_V3_SOFT_RELU),
    (40, ALG_V3_HARDSIGMOID),
    (41, dnnl_eltwise_logistic),
    (42, dnnl_eltwise_exp),
    (43, dnnl_eltwise_gelu_tanh),
    (44, dnnl_eltwise_swish),
    (45, dnnl_eltwise_log),
    (46, dnnl_eltwise_clip),
    (47, dnnl_eltwise_clip_v2),
    (48, dnnl_eltwise_pow),
    (49, dnnl_eltwise_gelu_erf),
    (50, dnnl_eltwise_round),
    (51, dnnl_eltwise_mish),
    (52, ALG_V3_HARDSWISH),
    (256, dnnl_eltwise_relu_use_dst_for_bwd),
    (257, dnnl_eltwise_tanh_use_dst_for_bwd),
    (258, dnnl_eltwise_elu_use_dst_for_bwd),
    (259, dnnl_eltwise_sqrt_use_dst_for_bwd),
    (260, dnnl_eltwise_logistic_use_dst_for_bwd),
    (261, dnnl_eltwise_exp_use_dst_for_bwd),
    (262, dnnl_eltwise_clip_v2_use_dst_for_bwd),
];

/// The stored value of a 3.2 eltwise algorithm (`None`: not an eltwise algorithm of 3.2).
pub(crate) fn eltwise_in(v3: dnnl_alg_kind_t) -> Option<dnnl_alg_kind_t> {
    ELTWISE.iter().find(|e| e.0 == v3).map(|e| e.1)
}

/// The 3.2 value of a stored eltwise algorithm.
pub(crate) fn eltwise_out(stored: dnnl_alg_kind_t) -> dnnl_alg_kind_t {
    ELTWISE
        .iter()
        .find(|e| e.1 == stored)
        .map_or(dnnl_alg_kind_undef, |e| e.0)
}

/// The 3.2 name of a 3.2 algorithm value that 2.6 numbers differently (eltwise); `None`
/// for values whose 2.6 name is the same (binary, resampling, …) or unknown.
pub(crate) fn eltwise_name(v3: dnnl_alg_kind_t) -> Option<&'static str> {
    Some(match v3 {
        32 => "eltwise_relu",
        33 => "eltwise_tanh",
        34 => "eltwise_elu",
        35 => "eltwise_square",
        36 => "eltwise_abs",
        37 => "eltwise_sqrt",
        38 => "eltwise_linear",
        39 => "eltwise_soft_relu",
        40 => "eltwise_hardsigmoid",
        41 => "eltwise_logistic",
        42 => "eltwise_exp",
        43 => "eltwise_gelu_tanh",
        44 => "eltwise_swish",
        45 => "eltwise_log",
        46 => "eltwise_clip",
        47 => "eltwise_clip_v2",
        48 => "eltwise_pow",
        49 => "eltwise_gelu_erf",
        50 => "eltwise_round",
        51 => "eltwise_mish",
        52 => "eltwise_hardswish",
        256 => "eltwise_relu_use_dst_for_bwd",
        257 => "eltwise_tanh_use_dst_for_bwd",
        258 => "eltwise_elu_use_dst_for_bwd",
        259 => "eltwise_sqrt_use_dst_for_bwd",
        260 => "eltwise_logistic_use_dst_for_bwd",
        261 => "eltwise_exp_use_dst_for_bwd",
        262 => "eltwise_clip_v2_use_dst_for_bwd",
        _ => return None,
    })
}

/// The 3.2 value of a 2.6 primitive kind (those this library reports).
pub(crate) fn kind_out(k: dnnl_primitive_kind_t) -> dnnl_primitive_kind_t {
    match k {
        dnnl_reorder => kind::REORDER,
        dnnl_sum => kind::SUM,
        dnnl_convolution => kind::CONVOLUTION,
        dnnl_eltwise => kind::ELTWISE,
        dnnl_binary => kind::BINARY,
        dnnl_resampling => kind::RESAMPLING,
        dnnl_prelu => kind::PRELU,
        _ => kind::UNDEF,
    }
}

/// A 3.2 execution argument as the 2.6 code reads it: post-op arguments move from base
/// 32768 to 16384; `None` for the attribute arguments (scales, zero points, depthwise),
/// which 2.6 numbers differently and no resampling primitive takes (pd creation refuses
/// non-default scales and zero points).
pub(crate) fn arg_in(arg: c_int) -> Option<c_int> {
    if arg >= ARG_ATTR_MULTIPLE_POST_OP_BASE {
        let (idx, rest) = (
            arg / ARG_ATTR_MULTIPLE_POST_OP_BASE - 1,
            arg % ARG_ATTR_MULTIPLE_POST_OP_BASE,
        );
        // Only post-op inputs below the attribute range exist (src1 of a binary).
        if rest >= DNNL_ARG_MULTIPLE_SRC {
            return None;
        }
        return DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE
            .checked_mul(idx.checked_add(1)?)
            .map(|b| b | rest);
    }
    if arg >= ARG_ATTR_SCALES {
        return None;
    }
    Some(arg)
}

/// The 2.6 execution argument of a 3.2 one, for `exec_arg_md` queries (unknown arguments
/// map to 0, which has no md).
pub(crate) fn arg_in_or_none(arg: c_int) -> c_int {
    arg_in(arg).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args() {
        assert_eq!(arg_in(DNNL_ARG_SRC), Some(DNNL_ARG_SRC));
        assert_eq!(arg_in(DNNL_ARG_DIFF_DST), Some(DNNL_ARG_DIFF_DST));
        // DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, (2) | SRC_1
        assert_eq!(arg_in(32768 | 2), Some(16384 | 2));
        assert_eq!(arg_in((3 * 32768) | 2), Some((3 * 16384) | 2));
        assert_eq!(arg_in(ARG_ATTR_SCALES | DNNL_ARG_SRC), None);
        assert_eq!(arg_in(8192 | DNNL_ARG_DST), None); // DNNL_ARG_ATTR_ZERO_POINTS
        assert_eq!(arg_in(ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS), None);
        assert_eq!(arg_in(c_int::MAX), None);
    }

    #[test]
    fn eltwise_round_trip() {
        for &(v3, stored) in ELTWISE.iter() {
            assert_eq!(eltwise_in(v3), Some(stored));
            assert_eq!(eltwise_out(stored), v3);
            assert!(eltwise_name(v3).is_some());
        }
        // 2.6's bounded_relu (0x8f) and logsigmoid (0x50) are not 3.2 algorithms.
        assert_eq!(eltwise_in(0x8f), None);
        assert_eq!(eltwise_in(31), None);
        assert_eq!(eltwise_out(dnnl_eltwise_bounded_relu), dnnl_alg_kind_undef);
    }

    #[test]
    fn kinds() {
        assert_eq!(kind_out(dnnl_resampling), 15);
        assert_eq!(kind_out(dnnl_binary), 13);
        assert_eq!(kind_out(dnnl_sum), 4);
    }
}
