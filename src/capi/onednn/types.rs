//! oneDNN 2.6.3 C types: integer typedefs for its enums, the enum values, the `DNNL_ARG_*`
//! numbers and the `#[repr(C)]` structs whose layout callers allocate (memory desc,
//! resampling desc, exec arg, version), with compile-time size and offset checks.

use std::ffi::{c_char, c_int, c_uint};
use std::mem::{offset_of, size_of};

/// Status returned by every `dnnl_*` call (`dnnl_status_t`).
pub type dnnl_status_t = c_int;
pub const dnnl_success: dnnl_status_t = 0;
pub const dnnl_out_of_memory: dnnl_status_t = 1;
pub const dnnl_invalid_arguments: dnnl_status_t = 2;
pub const dnnl_unimplemented: dnnl_status_t = 3;
pub const dnnl_iterator_ends: dnnl_status_t = 4;
pub const dnnl_runtime_error: dnnl_status_t = 5;
pub const dnnl_not_required: dnnl_status_t = 6;

/// Element type (`dnnl_data_type_t`).
pub type dnnl_data_type_t = c_int;
pub const dnnl_data_type_undef: dnnl_data_type_t = 0;
pub const dnnl_f16: dnnl_data_type_t = 1;
pub const dnnl_bf16: dnnl_data_type_t = 2;
pub const dnnl_f32: dnnl_data_type_t = 3;
pub const dnnl_s32: dnnl_data_type_t = 4;
pub const dnnl_s8: dnnl_data_type_t = 5;
pub const dnnl_u8: dnnl_data_type_t = 6;

/// Memory format kind (`dnnl_format_kind_t`).
pub type dnnl_format_kind_t = c_int;
pub const dnnl_format_kind_undef: dnnl_format_kind_t = 0;
pub const dnnl_format_kind_any: dnnl_format_kind_t = 1;
pub const dnnl_blocked: dnnl_format_kind_t = 2;
pub const dnnl_format_kind_wino: dnnl_format_kind_t = 3;
pub const dnnl_format_kind_rnn_packed: dnnl_format_kind_t = 4;

/// Memory format tag (`dnnl_format_tag_t`); the values are in `format_tags`.
pub type dnnl_format_tag_t = c_int;

/// Propagation kind (`dnnl_prop_kind_t`).
pub type dnnl_prop_kind_t = c_int;
pub const dnnl_prop_kind_undef: dnnl_prop_kind_t = 0;
pub const dnnl_forward_training: dnnl_prop_kind_t = 64;
pub const dnnl_forward_inference: dnnl_prop_kind_t = 96;
pub const dnnl_forward_scoring: dnnl_prop_kind_t = 96;
pub const dnnl_forward: dnnl_prop_kind_t = 64;
pub const dnnl_backward: dnnl_prop_kind_t = 128;
pub const dnnl_backward_data: dnnl_prop_kind_t = 160;
pub const dnnl_backward_weights: dnnl_prop_kind_t = 192;
pub const dnnl_backward_bias: dnnl_prop_kind_t = 193;

/// Primitive kind (`dnnl_primitive_kind_t`), the first field of every op desc.
pub type dnnl_primitive_kind_t = c_int;
pub const dnnl_undefined_primitive: dnnl_primitive_kind_t = 0;
pub const dnnl_reorder: dnnl_primitive_kind_t = 1;
pub const dnnl_shuffle: dnnl_primitive_kind_t = 2;
pub const dnnl_concat: dnnl_primitive_kind_t = 3;
pub const dnnl_sum: dnnl_primitive_kind_t = 4;
pub const dnnl_convolution: dnnl_primitive_kind_t = 5;
pub const dnnl_deconvolution: dnnl_primitive_kind_t = 6;
pub const dnnl_eltwise: dnnl_primitive_kind_t = 7;
pub const dnnl_softmax: dnnl_primitive_kind_t = 8;
pub const dnnl_pooling: dnnl_primitive_kind_t = 9;
pub const dnnl_lrn: dnnl_primitive_kind_t = 10;
pub const dnnl_batch_normalization: dnnl_primitive_kind_t = 11;
pub const dnnl_layer_normalization: dnnl_primitive_kind_t = 12;
pub const dnnl_inner_product: dnnl_primitive_kind_t = 13;
pub const dnnl_rnn: dnnl_primitive_kind_t = 14;
pub const dnnl_gemm: dnnl_primitive_kind_t = 15;
pub const dnnl_binary: dnnl_primitive_kind_t = 16;
pub const dnnl_logsoftmax: dnnl_primitive_kind_t = 17;
pub const dnnl_matmul: dnnl_primitive_kind_t = 18;
pub const dnnl_resampling: dnnl_primitive_kind_t = 19;
pub const dnnl_pooling_v2: dnnl_primitive_kind_t = 20;
pub const dnnl_reduction: dnnl_primitive_kind_t = 21;
pub const dnnl_prelu: dnnl_primitive_kind_t = 22;
pub const dnnl_softmax_v2: dnnl_primitive_kind_t = 23;
pub const dnnl_primitive_kind_max: dnnl_primitive_kind_t = 0x7fff;

/// Algorithm kind (`dnnl_alg_kind_t`).
pub type dnnl_alg_kind_t = c_int;
pub const dnnl_alg_kind_undef: dnnl_alg_kind_t = 0;
pub const dnnl_eltwise_relu: dnnl_alg_kind_t = 0x1f;
pub const dnnl_eltwise_tanh: dnnl_alg_kind_t = 0x2f;
pub const dnnl_eltwise_elu: dnnl_alg_kind_t = 0x3f;
pub const dnnl_eltwise_square: dnnl_alg_kind_t = 0x4f;
pub const dnnl_eltwise_abs: dnnl_alg_kind_t = 0x5f;
pub const dnnl_eltwise_sqrt: dnnl_alg_kind_t = 0x6f;
pub const dnnl_eltwise_linear: dnnl_alg_kind_t = 0x7f;
pub const dnnl_eltwise_bounded_relu: dnnl_alg_kind_t = 0x8f;
pub const dnnl_eltwise_soft_relu: dnnl_alg_kind_t = 0x9f;
pub const dnnl_eltwise_logistic: dnnl_alg_kind_t = 0xaf;
pub const dnnl_eltwise_exp: dnnl_alg_kind_t = 0xbf;
pub const dnnl_eltwise_gelu_tanh: dnnl_alg_kind_t = 0xcf;
pub const dnnl_eltwise_gelu: dnnl_alg_kind_t = 0xcf;
pub const dnnl_eltwise_swish: dnnl_alg_kind_t = 0xdf;
pub const dnnl_eltwise_log: dnnl_alg_kind_t = 0xef;
pub const dnnl_eltwise_clip: dnnl_alg_kind_t = 0xff;
pub const dnnl_eltwise_clip_v2: dnnl_alg_kind_t = 0x10;
pub const dnnl_eltwise_pow: dnnl_alg_kind_t = 0x20;
pub const dnnl_eltwise_gelu_erf: dnnl_alg_kind_t = 0x30;
pub const dnnl_eltwise_round: dnnl_alg_kind_t = 0x40;
pub const dnnl_eltwise_logsigmoid: dnnl_alg_kind_t = 0x50;
pub const dnnl_eltwise_mish: dnnl_alg_kind_t = 0x60;
pub const dnnl_eltwise_hardswish: dnnl_alg_kind_t = 0x70;
pub const dnnl_eltwise_relu_use_dst_for_bwd: dnnl_alg_kind_t = 0x100;
pub const dnnl_eltwise_tanh_use_dst_for_bwd: dnnl_alg_kind_t = 0x101;
pub const dnnl_eltwise_elu_use_dst_for_bwd: dnnl_alg_kind_t = 0x102;
pub const dnnl_eltwise_sqrt_use_dst_for_bwd: dnnl_alg_kind_t = 0x103;
pub const dnnl_eltwise_logistic_use_dst_for_bwd: dnnl_alg_kind_t = 0x104;
pub const dnnl_eltwise_exp_use_dst_for_bwd: dnnl_alg_kind_t = 0x105;
pub const dnnl_eltwise_clip_v2_use_dst_for_bwd: dnnl_alg_kind_t = 0x106;
pub const dnnl_binary_add: dnnl_alg_kind_t = 0x1fff0;
pub const dnnl_binary_mul: dnnl_alg_kind_t = 0x1fff1;
pub const dnnl_binary_max: dnnl_alg_kind_t = 0x1fff2;
pub const dnnl_binary_min: dnnl_alg_kind_t = 0x1fff3;
pub const dnnl_binary_div: dnnl_alg_kind_t = 0x1fff4;
pub const dnnl_binary_sub: dnnl_alg_kind_t = 0x1fff5;
pub const dnnl_binary_ge: dnnl_alg_kind_t = 0x1fff6;
pub const dnnl_binary_gt: dnnl_alg_kind_t = 0x1fff7;
pub const dnnl_binary_le: dnnl_alg_kind_t = 0x1fff8;
pub const dnnl_binary_lt: dnnl_alg_kind_t = 0x1fff9;
pub const dnnl_binary_eq: dnnl_alg_kind_t = 0x1fffa;
pub const dnnl_binary_ne: dnnl_alg_kind_t = 0x1fffb;
pub const dnnl_resampling_nearest: dnnl_alg_kind_t = 0x2fff0;
pub const dnnl_resampling_linear: dnnl_alg_kind_t = 0x2fff1;

/// Engine kind (`dnnl_engine_kind_t`).
pub type dnnl_engine_kind_t = c_int;
pub const dnnl_any_engine: dnnl_engine_kind_t = 0;
pub const dnnl_cpu: dnnl_engine_kind_t = 1;
pub const dnnl_gpu: dnnl_engine_kind_t = 2;

/// Stream flags (`dnnl_stream_flags_t`, 2.x numbering).
pub type dnnl_stream_flags_t = c_int;
pub const dnnl_stream_in_order: dnnl_stream_flags_t = 1;
pub const dnnl_stream_out_of_order: dnnl_stream_flags_t = 2;
pub const dnnl_stream_default_flags: dnnl_stream_flags_t = 1;

/// Scratchpad mode (`dnnl_scratchpad_mode_t`).
pub type dnnl_scratchpad_mode_t = c_int;
pub const dnnl_scratchpad_mode_library: dnnl_scratchpad_mode_t = 0;
pub const dnnl_scratchpad_mode_user: dnnl_scratchpad_mode_t = 1;

/// Floating-point math mode (`dnnl_fpmath_mode_t`).
pub type dnnl_fpmath_mode_t = c_int;
pub const dnnl_fpmath_mode_strict: dnnl_fpmath_mode_t = 0;
pub const dnnl_fpmath_mode_bf16: dnnl_fpmath_mode_t = 1;
pub const dnnl_fpmath_mode_f16: dnnl_fpmath_mode_t = 2;
pub const dnnl_fpmath_mode_any: dnnl_fpmath_mode_t = 3;

/// CPU instruction set (`dnnl_cpu_isa_t`).
pub type dnnl_cpu_isa_t = c_int;
pub const dnnl_cpu_isa_all: dnnl_cpu_isa_t = 0x0;
pub const dnnl_cpu_isa_sse41: dnnl_cpu_isa_t = 0x1;
pub const dnnl_cpu_isa_avx: dnnl_cpu_isa_t = 0x3;
pub const dnnl_cpu_isa_avx2: dnnl_cpu_isa_t = 0x7;
pub const dnnl_cpu_isa_avx512_mic: dnnl_cpu_isa_t = 0xf;
pub const dnnl_cpu_isa_avx512_mic_4ops: dnnl_cpu_isa_t = 0x1f;
pub const dnnl_cpu_isa_avx512_core: dnnl_cpu_isa_t = 0x27;
pub const dnnl_cpu_isa_avx512_core_vnni: dnnl_cpu_isa_t = 0x67;
pub const dnnl_cpu_isa_avx512_core_bf16: dnnl_cpu_isa_t = 0xe7;
pub const dnnl_cpu_isa_avx512_core_amx: dnnl_cpu_isa_t = 0x3e7;
pub const dnnl_cpu_isa_avx2_vnni: dnnl_cpu_isa_t = 0x407;

/// CPU instruction-set hints (`dnnl_cpu_isa_hints_t`).
pub type dnnl_cpu_isa_hints_t = c_int;
pub const dnnl_cpu_isa_no_hints: dnnl_cpu_isa_hints_t = 0x0;
pub const dnnl_cpu_isa_prefer_ymm: dnnl_cpu_isa_hints_t = 0x1;

/// RNN cell flags (`dnnl_rnn_flags_t`).
pub type dnnl_rnn_flags_t = c_int;
pub const dnnl_rnn_flags_undef: dnnl_rnn_flags_t = 0x0;

/// RNN direction (`dnnl_rnn_direction_t`).
pub type dnnl_rnn_direction_t = c_int;
pub const dnnl_unidirectional_left2right: dnnl_rnn_direction_t = 0;
pub const dnnl_unidirectional_right2left: dnnl_rnn_direction_t = 1;
pub const dnnl_bidirectional_concat: dnnl_rnn_direction_t = 2;
pub const dnnl_bidirectional_sum: dnnl_rnn_direction_t = 3;
pub const dnnl_unidirectional: dnnl_rnn_direction_t = 0;

/// Memory extra flags (`dnnl_memory_extra_flags_t`).
pub const dnnl_memory_extra_flag_none: u64 = 0;
pub const dnnl_memory_extra_flag_compensation_conv_s8s8: u64 = 0x1;
pub const dnnl_memory_extra_flag_scale_adjust: u64 = 0x2;
pub const dnnl_memory_extra_flag_rnn_u8s8_compensation: u64 = 0x4;
pub const dnnl_memory_extra_flag_gpu_rnn_u8s8_compensation: u64 = 0x4;
pub const dnnl_memory_extra_flag_compensation_conv_asymmetric_src: u64 = 0x8;
pub const dnnl_memory_extra_flag_rnn_s8s8_compensation: u64 = 0x16;

/// Query kind (`dnnl_query_t`).
pub type dnnl_query_t = c_int;
pub const dnnl_query_undef: dnnl_query_t = 0;
pub const dnnl_query_engine: dnnl_query_t = 1;
pub const dnnl_query_primitive_kind: dnnl_query_t = 2;
pub const dnnl_query_num_of_inputs_s32: dnnl_query_t = 3;
pub const dnnl_query_num_of_outputs_s32: dnnl_query_t = 4;
pub const dnnl_query_time_estimate_f64: dnnl_query_t = 5;
pub const dnnl_query_memory_consumption_s64: dnnl_query_t = 6;
pub const dnnl_query_scratchpad_engine: dnnl_query_t = 7;
pub const dnnl_query_impl_info_str: dnnl_query_t = 8;
pub const dnnl_query_reorder_src_engine: dnnl_query_t = 9;
pub const dnnl_query_reorder_dst_engine: dnnl_query_t = 10;
pub const dnnl_query_prop_kind: dnnl_query_t = 11;
pub const dnnl_query_cache_blob_id_size_s64: dnnl_query_t = 12;
pub const dnnl_query_cache_blob_id: dnnl_query_t = 13;
pub const dnnl_query_some_d: dnnl_query_t = 64;
pub const dnnl_query_op_d: dnnl_query_t = 65;
pub const dnnl_query_convolution_d: dnnl_query_t = 66;
pub const dnnl_query_deconvolution_d: dnnl_query_t = 67;
pub const dnnl_query_shuffle_d: dnnl_query_t = 68;
pub const dnnl_query_eltwise_d: dnnl_query_t = 69;
pub const dnnl_query_softmax_d: dnnl_query_t = 70;
pub const dnnl_query_pooling_d: dnnl_query_t = 71;
pub const dnnl_query_lrn_d: dnnl_query_t = 72;
pub const dnnl_query_batch_normalization_d: dnnl_query_t = 73;
pub const dnnl_query_layer_normalization_d: dnnl_query_t = 74;
pub const dnnl_query_inner_product_d: dnnl_query_t = 75;
pub const dnnl_query_rnn_d: dnnl_query_t = 76;
pub const dnnl_query_gemm_d: dnnl_query_t = 77;
pub const dnnl_query_binary_d: dnnl_query_t = 78;
pub const dnnl_query_logsoftmax_d: dnnl_query_t = 79;
pub const dnnl_query_matmul_d: dnnl_query_t = 80;
pub const dnnl_query_resampling_d: dnnl_query_t = 81;
pub const dnnl_query_pooling_v2_d: dnnl_query_t = 82;
pub const dnnl_query_reduction_d: dnnl_query_t = 83;
pub const dnnl_query_prelu_d: dnnl_query_t = 84;
pub const dnnl_query_softmax_v2_d: dnnl_query_t = 85;
pub const dnnl_query_some_md: dnnl_query_t = 128;
pub const dnnl_query_src_md: dnnl_query_t = 129;
pub const dnnl_query_diff_src_md: dnnl_query_t = 130;
pub const dnnl_query_weights_md: dnnl_query_t = 131;
pub const dnnl_query_diff_weights_md: dnnl_query_t = 132;
pub const dnnl_query_dst_md: dnnl_query_t = 133;
pub const dnnl_query_diff_dst_md: dnnl_query_t = 134;
pub const dnnl_query_workspace_md: dnnl_query_t = 135;
pub const dnnl_query_scratchpad_md: dnnl_query_t = 136;
pub const dnnl_query_exec_arg_md: dnnl_query_t = 255;
pub const dnnl_query_max: dnnl_query_t = 0x7fff;

/// Maximum number of dimensions of a memory descriptor.
pub const DNNL_MAX_NDIMS: c_int = 12;
/// Maximum number of parts of an RNN packed weights layout.
pub const DNNL_RNN_MAX_N_PARTS: c_int = 4;

/// Execution argument indices (`DNNL_ARG_*`).
pub const DNNL_ARG_SRC_0: c_int = 1;
pub const DNNL_ARG_SRC: c_int = 1;
pub const DNNL_ARG_SRC_LAYER: c_int = 1;
pub const DNNL_ARG_FROM: c_int = 1;
pub const DNNL_ARG_SRC_1: c_int = 2;
pub const DNNL_ARG_SRC_ITER: c_int = 2;
pub const DNNL_ARG_SRC_2: c_int = 3;
pub const DNNL_ARG_SRC_ITER_C: c_int = 3;
pub const DNNL_ARG_SRC_3: c_int = 4;
pub const DNNL_ARG_AUGRU_ATTENTION: c_int = 4;
pub const DNNL_ARG_DST_0: c_int = 17;
pub const DNNL_ARG_DST: c_int = 17;
pub const DNNL_ARG_TO: c_int = 17;
pub const DNNL_ARG_DST_LAYER: c_int = 17;
pub const DNNL_ARG_DST_1: c_int = 18;
pub const DNNL_ARG_DST_ITER: c_int = 18;
pub const DNNL_ARG_DST_2: c_int = 19;
pub const DNNL_ARG_DST_ITER_C: c_int = 19;
pub const DNNL_ARG_WEIGHTS_0: c_int = 33;
pub const DNNL_ARG_WEIGHTS: c_int = 33;
pub const DNNL_ARG_SCALE_SHIFT: c_int = 33;
pub const DNNL_ARG_WEIGHTS_LAYER: c_int = 33;
pub const DNNL_ARG_WEIGHTS_1: c_int = 34;
pub const DNNL_ARG_WEIGHTS_ITER: c_int = 34;
pub const DNNL_ARG_WEIGHTS_2: c_int = 35;
pub const DNNL_ARG_WEIGHTS_PEEPHOLE: c_int = 35;
pub const DNNL_ARG_WEIGHTS_3: c_int = 36;
pub const DNNL_ARG_WEIGHTS_PROJECTION: c_int = 36;
pub const DNNL_ARG_BIAS: c_int = 41;
pub const DNNL_ARG_MEAN: c_int = 49;
pub const DNNL_ARG_VARIANCE: c_int = 50;
pub const DNNL_ARG_SCALE: c_int = 51;
pub const DNNL_ARG_SHIFT: c_int = 52;
pub const DNNL_ARG_WORKSPACE: c_int = 64;
pub const DNNL_ARG_SCRATCHPAD: c_int = 80;
pub const DNNL_ARG_DIFF_SRC_0: c_int = 129;
pub const DNNL_ARG_DIFF_SRC: c_int = 129;
pub const DNNL_ARG_DIFF_SRC_LAYER: c_int = 129;
pub const DNNL_ARG_DIFF_SRC_1: c_int = 130;
pub const DNNL_ARG_DIFF_SRC_ITER: c_int = 130;
pub const DNNL_ARG_DIFF_SRC_2: c_int = 131;
pub const DNNL_ARG_DIFF_SRC_ITER_C: c_int = 131;
pub const DNNL_ARG_DIFF_SRC_3: c_int = 132;
pub const DNNL_ARG_DIFF_AUGRU_ATTENTION: c_int = 132;
pub const DNNL_ARG_DIFF_DST_0: c_int = 145;
pub const DNNL_ARG_DIFF_DST: c_int = 145;
pub const DNNL_ARG_DIFF_DST_LAYER: c_int = 145;
pub const DNNL_ARG_DIFF_DST_1: c_int = 146;
pub const DNNL_ARG_DIFF_DST_ITER: c_int = 146;
pub const DNNL_ARG_DIFF_DST_2: c_int = 147;
pub const DNNL_ARG_DIFF_DST_ITER_C: c_int = 147;
pub const DNNL_ARG_DIFF_WEIGHTS_0: c_int = 161;
pub const DNNL_ARG_DIFF_WEIGHTS: c_int = 161;
pub const DNNL_ARG_DIFF_SCALE_SHIFT: c_int = 161;
pub const DNNL_ARG_DIFF_WEIGHTS_LAYER: c_int = 161;
pub const DNNL_ARG_DIFF_WEIGHTS_1: c_int = 162;
pub const DNNL_ARG_DIFF_WEIGHTS_ITER: c_int = 162;
pub const DNNL_ARG_DIFF_WEIGHTS_2: c_int = 163;
pub const DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE: c_int = 163;
pub const DNNL_ARG_DIFF_WEIGHTS_3: c_int = 164;
pub const DNNL_ARG_DIFF_WEIGHTS_PROJECTION: c_int = 164;
pub const DNNL_ARG_DIFF_BIAS: c_int = 169;
pub const DNNL_ARG_DIFF_SCALE: c_int = 255;
pub const DNNL_ARG_DIFF_SHIFT: c_int = 256;
pub const DNNL_ARG_ATTR_OUTPUT_SCALES: c_int = 513;
pub const DNNL_ARG_MULTIPLE_SRC: c_int = 1024;
pub const DNNL_ARG_MULTIPLE_DST: c_int = 2048;
pub const DNNL_ARG_ATTR_ZERO_POINTS: c_int = 4096;
pub const DNNL_ARG_ATTR_POST_OP_DW: c_int = 8192;
pub const DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE: c_int = 16384;
pub const DNNL_ARG_ATTR_INPUT_SCALES: c_int = 1048576;

/// Threading / GPU runtime identifiers (`DNNL_RUNTIME_*`).
pub const DNNL_RUNTIME_NONE: c_uint = 0;
pub const DNNL_RUNTIME_SEQ: c_uint = 1;
pub const DNNL_RUNTIME_OMP: c_uint = 2;
pub const DNNL_RUNTIME_TBB: c_uint = 4;
pub const DNNL_RUNTIME_THREADPOOL: c_uint = 8;
pub const DNNL_RUNTIME_OCL: c_uint = 256;
pub const DNNL_RUNTIME_SYCL: c_uint = 512;

/// oneDNN's runtime-dimension placeholder (`DNNL_RUNTIME_DIM_VAL`, INT64_MIN); declared
/// for C in the compatibility header.
pub(crate) const RUNTIME_DIM_VAL: dnnl_dim_t = i64::MIN;
/// `DNNL_RUNTIME_SIZE_VAL`: `(size_t)DNNL_RUNTIME_DIM_VAL`.
pub(crate) const RUNTIME_SIZE_VAL: usize = i64::MIN as u64 as usize;

/// A dimension size or stride (`int64_t`).
pub type dnnl_dim_t = i64;
/// Dimensions of a memory descriptor (`int64_t[DNNL_MAX_NDIMS]`).
pub type dnnl_dims_t = [dnnl_dim_t; 12];

/// Generic blocked layout: outer strides plus the list of innermost blocks.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct dnnl_blocking_desc_t {
    /// Strides between the outermost blocks, per logical dimension (elements).
    pub strides: dnnl_dims_t,
    /// Number of innermost blocks (e.g. 1 for nChw16c).
    pub inner_nblks: c_int,
    /// Sizes of the innermost blocks, outermost first.
    pub inner_blks: dnnl_dims_t,
    /// Logical dimension of each innermost block.
    pub inner_idxs: dnnl_dims_t,
}

/// Winograd weights layout (present for layout compatibility only).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct dnnl_wino_desc_t {
    pub wino_format: c_int,
    pub r: c_int,
    pub alpha: c_int,
    pub ic: c_int,
    pub oc: c_int,
    pub ic_block: c_int,
    pub oc_block: c_int,
    pub ic2_block: c_int,
    pub oc2_block: c_int,
    pub adj_scale: f32,
    pub size: usize,
}

/// RNN packed weights layout (present for layout compatibility only).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct dnnl_rnn_packed_desc_t {
    pub format: c_int,
    pub n_parts: c_int,
    pub n: c_int,
    pub ldb: c_int,
    pub parts: [c_int; 4],
    pub part_pack_size: [usize; 4],
    pub pack_part: [c_uint; 4],
    pub offset_compensation: usize,
    pub size: usize,
    pub reserved: [c_char; 200],
}

/// The format-specific part of a memory descriptor.
#[repr(C)]
#[derive(Clone, Copy)]
pub union dnnl_memory_desc_format_desc_t {
    pub blocking: dnnl_blocking_desc_t,
    pub wino_desc: dnnl_wino_desc_t,
    pub rnn_packed_desc: dnnl_rnn_packed_desc_t,
}

/// Extra information (compensation, scale adjustment) of a memory descriptor.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct dnnl_memory_extra_desc_t {
    pub flags: u64,
    pub compensation_mask: c_int,
    pub scale_adjust: f32,
    pub asymm_compensation_mask: c_int,
    pub reserved: [c_char; 60],
}

/// Memory descriptor (696 bytes), filled by `dnnl_memory_desc_init_*`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct dnnl_memory_desc_t {
    /// Number of dimensions (0 for the zero descriptor).
    pub ndims: c_int,
    /// Logical dimensions, outermost first (N, C, [[D,] H,] W for data tensors).
    pub dims: dnnl_dims_t,
    pub data_type: dnnl_data_type_t,
    /// Dimensions rounded up to the block sizes.
    pub padded_dims: dnnl_dims_t,
    pub padded_offsets: dnnl_dims_t,
    /// Offset of the first element, in elements.
    pub offset0: dnnl_dim_t,
    pub format_kind: dnnl_format_kind_t,
    pub format_desc: dnnl_memory_desc_format_desc_t,
    pub extra: dnnl_memory_extra_desc_t,
}

/// Resampling operation descriptor (2848 bytes), filled by
/// `dnnl_resampling_forward_desc_init` / `dnnl_resampling_backward_desc_init`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct dnnl_resampling_desc_t {
    /// Always `dnnl_resampling`.
    pub primitive_kind: dnnl_primitive_kind_t,
    pub prop_kind: dnnl_prop_kind_t,
    pub alg_kind: dnnl_alg_kind_t,
    pub src_desc: dnnl_memory_desc_t,
    pub diff_src_desc: dnnl_memory_desc_t,
    pub dst_desc: dnnl_memory_desc_t,
    pub diff_dst_desc: dnnl_memory_desc_t,
    /// Output/input size ratio per spatial dimension (D, H, W order).
    pub factors: [f32; 12],
}

/// One execution argument: an index (`DNNL_ARG_*`) and a memory object.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dnnl_exec_arg_t {
    pub arg: c_int,
    pub memory: super::memory::dnnl_memory_t,
}

/// Library version (`dnnl_version()`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dnnl_version_t {
    pub major: c_int,
    pub minor: c_int,
    pub patch: c_int,
    pub hash: *const c_char,
    pub cpu_runtime: c_uint,
    pub gpu_runtime: c_uint,
}

/// An operation descriptor (`const_dnnl_op_desc_t`): any `dnnl_*_desc_t`, whose first field
/// is its primitive kind.
pub type const_dnnl_op_desc_t = *const std::ffi::c_void;

const _: () = {
    assert!(size_of::<dnnl_blocking_desc_t>() == 296);
    assert!(offset_of!(dnnl_blocking_desc_t, inner_nblks) == 96);
    assert!(offset_of!(dnnl_blocking_desc_t, inner_blks) == 104);
    assert!(offset_of!(dnnl_blocking_desc_t, inner_idxs) == 200);
    assert!(size_of::<dnnl_wino_desc_t>() == 48);
    assert!(size_of::<dnnl_rnn_packed_desc_t>() == 296);
    assert!(size_of::<dnnl_memory_desc_format_desc_t>() == 296);
    assert!(size_of::<dnnl_memory_extra_desc_t>() == 80);
    assert!(offset_of!(dnnl_memory_extra_desc_t, asymm_compensation_mask) == 16);
    assert!(offset_of!(dnnl_memory_extra_desc_t, reserved) == 20);
    assert!(size_of::<dnnl_memory_desc_t>() == 696);
    assert!(std::mem::align_of::<dnnl_memory_desc_t>() == 8);
    assert!(offset_of!(dnnl_memory_desc_t, dims) == 8);
    assert!(offset_of!(dnnl_memory_desc_t, data_type) == 104);
    assert!(offset_of!(dnnl_memory_desc_t, padded_dims) == 112);
    assert!(offset_of!(dnnl_memory_desc_t, padded_offsets) == 208);
    assert!(offset_of!(dnnl_memory_desc_t, offset0) == 304);
    assert!(offset_of!(dnnl_memory_desc_t, format_kind) == 312);
    assert!(offset_of!(dnnl_memory_desc_t, format_desc) == 320);
    assert!(offset_of!(dnnl_memory_desc_t, extra) == 616);
    assert!(size_of::<dnnl_resampling_desc_t>() == 2848);
    assert!(offset_of!(dnnl_resampling_desc_t, prop_kind) == 4);
    assert!(offset_of!(dnnl_resampling_desc_t, alg_kind) == 8);
    assert!(offset_of!(dnnl_resampling_desc_t, src_desc) == 16);
    assert!(offset_of!(dnnl_resampling_desc_t, diff_src_desc) == 712);
    assert!(offset_of!(dnnl_resampling_desc_t, dst_desc) == 1408);
    assert!(offset_of!(dnnl_resampling_desc_t, diff_dst_desc) == 2104);
    assert!(offset_of!(dnnl_resampling_desc_t, factors) == 2800);
    assert!(size_of::<dnnl_exec_arg_t>() == 16);
    assert!(offset_of!(dnnl_exec_arg_t, memory) == 8);
    assert!(size_of::<dnnl_version_t>() == 32);
    assert!(offset_of!(dnnl_version_t, hash) == 16);
    assert!(offset_of!(dnnl_version_t, cpu_runtime) == 24);
    assert!(offset_of!(dnnl_version_t, gpu_runtime) == 28);
};

impl dnnl_memory_desc_t {
    /// The zero descriptor (`ndims == 0`): "no memory".
    pub(crate) fn zero() -> Self {
        // SAFETY: every field is an integer, float or array/union of them; all-zero is valid.
        unsafe { std::mem::zeroed() }
    }

    /// The blocking part (meaningful when `format_kind == dnnl_blocked`).
    pub(crate) fn blocking(&self) -> &dnnl_blocking_desc_t {
        // SAFETY: every union member is plain old data, so any bit pattern is a valid
        // blocking desc.
        unsafe { &self.format_desc.blocking }
    }

    pub(crate) fn blocking_mut(&mut self) -> &mut dnnl_blocking_desc_t {
        // SAFETY: as `blocking`.
        unsafe { &mut self.format_desc.blocking }
    }
}

impl dnnl_resampling_desc_t {
    pub(crate) fn zero() -> Self {
        // SAFETY: plain old data; all-zero is valid.
        unsafe { std::mem::zeroed() }
    }
}
