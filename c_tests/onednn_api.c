// link: -lm
/* oneDNN face: engine, stream, memory descriptor, memory, desc init, primitive desc,
 * query and execute API behaviour, including every invalid_arguments rule and bad
 * handles (docs/spec/onednn.md §1, §7, §8, §10). */
#include "onednn_common.h"

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static void engines_streams(void) {
    dnnl_engine_t e = NULL;
    dnnl_engine_kind_t k = 0;
    CHECK(dnnl_engine_get_count(dnnl_cpu) == 1);
    CHECK(dnnl_engine_get_count(dnnl_gpu) == 0 && dnnl_engine_get_count(dnnl_any_engine) == 0);
    CHECK_ST(dnnl_engine_create(&e, dnnl_gpu, 0), dnnl_invalid_arguments);
    CHECK_ST(dnnl_engine_create(&e, dnnl_any_engine, 0), dnnl_invalid_arguments);
    CHECK_ST(dnnl_engine_create(&e, dnnl_cpu, 1), dnnl_invalid_arguments);
    CHECK_ST(dnnl_engine_create(NULL, dnnl_cpu, 0), dnnl_invalid_arguments);
    CHECK_ST(dnnl_engine_create(&e, dnnl_cpu, 0), dnnl_success);
    CHECK_ST(dnnl_engine_get_kind(e, &k), dnnl_success);
    CHECK(k == dnnl_cpu);
    CHECK_ST(dnnl_engine_get_kind(e, NULL), dnnl_invalid_arguments);
    int junk[64] = {0};
    CHECK_ST(dnnl_engine_get_kind((dnnl_engine_t)junk, &k), dnnl_invalid_arguments);
    dnnl_stream_t s;
    for (unsigned f = 0; f < 3; f++) {
        CHECK_ST(dnnl_stream_create(&s, e, f), dnnl_success);
        dnnl_engine_t se = NULL;
        CHECK_ST(dnnl_stream_get_engine(s, &se), dnnl_success);
        CHECK(se == e);
        CHECK_ST(dnnl_stream_wait(s), dnnl_success);
        CHECK_ST(dnnl_stream_destroy(s), dnnl_success);
    }
    CHECK_ST(dnnl_stream_create(&s, NULL, 1), dnnl_invalid_arguments);
    CHECK_ST(dnnl_stream_create(NULL, e, 1), dnnl_invalid_arguments);
    CHECK_ST(dnnl_stream_wait(NULL), dnnl_invalid_arguments);
    CHECK_ST(dnnl_stream_wait((dnnl_stream_t)e), dnnl_invalid_arguments); /* wrong handle kind */
    CHECK_ST(dnnl_stream_destroy(NULL), dnnl_success);
    CHECK_ST(dnnl_engine_destroy(e), dnnl_success);
    CHECK_ST(dnnl_engine_destroy(e), dnnl_invalid_arguments); /* already destroyed */
    CHECK_ST(dnnl_engine_destroy(NULL), dnnl_success);
    const dnnl_version_t *v = dnnl_version();
    CHECK(v && v->major == 2 && v->minor == 6 && v->patch == 3 && v->hash != NULL);
    CHECK_ST(dnnl_set_verbose(0), dnnl_success);
    CHECK_ST(dnnl_set_verbose(3), dnnl_invalid_arguments);
    CHECK_ST(dnnl_set_verbose(-1), dnnl_invalid_arguments);
}

static void memory_descs(void) {
    dnnl_memory_desc_t md, md2;
    dnnl_dims_t dims = {2, 19, 5, 7};
    CHECK(sizeof(dnnl_memory_desc_t) == 696 && sizeof(dnnl_resampling_desc_t) == 2848);
    CHECK(offsetof(dnnl_memory_desc_t, format_desc) == 320 && offsetof(dnnl_resampling_desc_t, factors) == 2800);
    CHECK_ST(dnnl_memory_desc_init_by_tag(&md, 4, dims, dnnl_f32, dnnl_nChw16c), dnnl_success);
    CHECK(md.padded_dims[1] == 32 && md.format_desc.blocking.strides[0] == 1120 && md.format_desc.blocking.strides[1] == 560 &&
          md.format_desc.blocking.strides[2] == 112 && md.format_desc.blocking.strides[3] == 16);
    CHECK(md.format_desc.blocking.inner_nblks == 1 && md.format_desc.blocking.inner_blks[0] == 16 && md.format_desc.blocking.inner_idxs[0] == 1);
    CHECK(dnnl_memory_desc_get_size(&md) == 8960);
    CHECK_ST(dnnl_memory_desc_init_by_tag(&md2, 4, dims, dnnl_f32, dnnl_aBcd16b), dnnl_success);
    CHECK(dnnl_memory_desc_equal(&md, &md2));
    CHECK_ST(dnnl_memory_desc_init_by_tag(&md2, 4, dims, dnnl_f32, dnnl_nhwc), dnnl_success);
    CHECK(!dnnl_memory_desc_equal(&md, &md2));
    CHECK(md2.format_desc.blocking.strides[0] == 665 && md2.format_desc.blocking.strides[1] == 1 &&
          md2.format_desc.blocking.strides[2] == 133 && md2.format_desc.blocking.strides[3] == 19);
    CHECK_ST(dnnl_memory_desc_init_by_tag(&md2, 4, dims, dnnl_f32, dnnl_aBcd4b), dnnl_success);
    CHECK(md2.padded_dims[1] == 20 && md2.format_desc.blocking.strides[0] == 700);
    /* strides NULL = dense row-major, equal to nchw */
    CHECK_ST(dnnl_memory_desc_init_by_strides(&md, 4, dims, dnnl_f32, NULL), dnnl_success);
    CHECK_ST(dnnl_memory_desc_init_by_tag(&md2, 4, dims, dnnl_f32, dnnl_nchw), dnnl_success);
    CHECK(dnnl_memory_desc_equal(&md, &md2) && dnnl_memory_desc_get_size(&md) == 2 * 19 * 5 * 7 * 4);
    /* errors */
    CHECK_ST(dnnl_memory_desc_init_by_tag(NULL, 4, dims, dnnl_f32, dnnl_nchw), dnnl_invalid_arguments);
    CHECK_ST(dnnl_memory_desc_init_by_tag(&md, 4, NULL, dnnl_f32, dnnl_nchw), dnnl_invalid_arguments);
    CHECK_ST(dnnl_memory_desc_init_by_tag(&md, 3, dims, dnnl_f32, dnnl_nchw), dnnl_invalid_arguments);
    CHECK_ST(dnnl_memory_desc_init_by_tag(&md, 13, dims, dnnl_f32, dnnl_nchw), dnnl_invalid_arguments);
    CHECK_ST(dnnl_memory_desc_init_by_tag(&md, -1, dims, dnnl_f32, dnnl_nchw), dnnl_invalid_arguments);
    CHECK_ST(dnnl_memory_desc_init_by_tag(&md, 4, dims, dnnl_data_type_undef, dnnl_nchw), dnnl_invalid_arguments);
    CHECK_ST(dnnl_memory_desc_init_by_tag(&md, 4, dims, 99, dnnl_nchw), dnnl_invalid_arguments);
    CHECK_ST(dnnl_memory_desc_init_by_tag(&md, 4, dims, dnnl_f32, dnnl_format_tag_last), dnnl_invalid_arguments);
    CHECK_ST(dnnl_memory_desc_init_by_tag(&md, 4, dims, dnnl_f32, -3), dnnl_invalid_arguments);
    dnnl_dims_t neg = {2, -1, 5, 7};
    CHECK_ST(dnnl_memory_desc_init_by_tag(&md, 4, neg, dnnl_f32, dnnl_nchw), dnnl_invalid_arguments);
    CHECK_ST(dnnl_memory_desc_init_by_tag(&md, 4, dims, dnnl_f32, dnnl_format_tag_undef), dnnl_success);
    CHECK(md.ndims == 0 && dnnl_memory_desc_get_size(&md) == 0);
    CHECK_ST(dnnl_memory_desc_init_by_tag(&md, 4, dims, dnnl_f32, dnnl_format_tag_any), dnnl_success);
    CHECK(md.format_kind == dnnl_format_kind_any && dnnl_memory_desc_get_size(&md) == 0);
    dnnl_dims_t z = {0, 19, 5, 7};
    CHECK_ST(dnnl_memory_desc_init_by_tag(&md, 4, z, dnnl_f32, dnnl_nChw16c), dnnl_success);
    CHECK(dnnl_memory_desc_get_size(&md) == 0 && md.format_desc.blocking.strides[1] == 560);
    CHECK(dnnl_data_type_size(dnnl_f32) == 4 && dnnl_data_type_size(dnnl_bf16) == 2 && dnnl_data_type_size(dnnl_u8) == 1 &&
          dnnl_data_type_size(dnnl_f16) == 2 && dnnl_data_type_size(dnnl_s32) == 4 && dnnl_data_type_size(dnnl_s8) == 1);
    CHECK(dnnl_data_type_size(dnnl_data_type_undef) == (size_t)-1);
    CHECK(dnnl_memory_desc_get_size(NULL) == 0);
    /* submemory and permute_axes */
    dnnl_dims_t pd = {2, 3, 8, 10}, sd = {1, 3, 2, 4}, off = {1, 0, 2, 3};
    dnnl_memory_desc_init_by_tag(&md, 4, pd, dnnl_f32, dnnl_nchw);
    CHECK_ST(dnnl_memory_desc_init_submemory(&md2, &md, sd, off), dnnl_success);
    CHECK(md2.offset0 == 240 + 20 + 3 && md2.dims[3] == 4 && md2.format_desc.blocking.strides[2] == 10);
    dnnl_dims_t bad_off = {1, 0, 7, 3};
    CHECK_ST(dnnl_memory_desc_init_submemory(&md2, &md, sd, bad_off), dnnl_invalid_arguments);
    int perm[4] = {0, 2, 3, 1};
    CHECK_ST(dnnl_memory_desc_permute_axes(&md2, &md, perm), dnnl_success);
    CHECK(md2.dims[2] == 3 && md2.dims[3] == 8 && md2.dims[1] == 10 && md2.format_desc.blocking.strides[2] == 80);
    int bad_perm[4] = {0, 0, 1, 2};
    CHECK_ST(dnnl_memory_desc_permute_axes(&md2, &md, bad_perm), dnnl_invalid_arguments);
}

static void memories(void) {
    dnnl_memory_desc_t md, any;
    dnnl_dims_t dims = {1, 3, 4, 5};
    dnnl_memory_desc_init_by_tag(&md, 4, dims, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_init_by_tag(&any, 4, dims, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_t m;
    void *h = (void *)1;
    CHECK_ST(dnnl_memory_create(&m, &any, eng, DNNL_MEMORY_ALLOCATE), dnnl_invalid_arguments);
    CHECK_ST(dnnl_memory_create(NULL, &md, eng, DNNL_MEMORY_ALLOCATE), dnnl_invalid_arguments);
    CHECK_ST(dnnl_memory_create(&m, NULL, eng, DNNL_MEMORY_ALLOCATE), dnnl_invalid_arguments);
    CHECK_ST(dnnl_memory_create(&m, &md, NULL, DNNL_MEMORY_ALLOCATE), dnnl_invalid_arguments);
    CHECK_ST(dnnl_memory_create(&m, &md, eng, DNNL_MEMORY_NONE), dnnl_success);
    CHECK_ST(dnnl_memory_get_data_handle(m, &h), dnnl_success);
    CHECK(h == NULL);
    float buf[60];
    CHECK_ST(dnnl_memory_set_data_handle(m, buf), dnnl_success);
    CHECK_ST(dnnl_memory_get_data_handle(m, &h), dnnl_success);
    CHECK(h == buf);
    CHECK_ST(dnnl_memory_set_data_handle_v2(m, DNNL_MEMORY_ALLOCATE, strm), dnnl_success);
    CHECK_ST(dnnl_memory_map_data(m, &h), dnnl_success);
    CHECK(h != NULL && h != buf && (uintptr_t)h % 64 == 0);
    memset(h, 0, 240);
    CHECK_ST(dnnl_memory_unmap_data(m, h), dnnl_success);
    const dnnl_memory_desc_t *q = NULL;
    CHECK_ST(dnnl_memory_get_memory_desc(m, &q), dnnl_success);
    CHECK(q && dnnl_memory_desc_equal(q, &md));
    dnnl_engine_t qe = NULL;
    CHECK_ST(dnnl_memory_get_engine(m, &qe), dnnl_success);
    CHECK(qe == eng);
    CHECK_ST(dnnl_memory_get_data_handle(NULL, &h), dnnl_invalid_arguments);
    CHECK_ST(dnnl_memory_get_data_handle(m, NULL), dnnl_invalid_arguments);
    CHECK_ST(dnnl_memory_destroy(m), dnnl_success);
    CHECK_ST(dnnl_memory_destroy(m), dnnl_invalid_arguments);
    CHECK_ST(dnnl_memory_destroy(NULL), dnnl_success);
    dnnl_memory_desc_t zero;
    memset(&zero, 0, sizeof zero);
    CHECK_ST(dnnl_memory_create(&m, &zero, eng, DNNL_MEMORY_ALLOCATE), dnnl_success);
    CHECK_ST(dnnl_memory_destroy(m), dnnl_success);
}

static void desc_rules(void) {
    dnnl_memory_desc_t s, d, any, s2, bad_n, bad_c, d5, rt;
    dnnl_dims_t sd = {2, 3, 4, 5}, dd = {2, 3, 8, 10}, n3 = {3, 3, 8, 10}, c4 = {2, 4, 8, 10}, s5 = {2, 3, 8, 10, 3};
    dnnl_memory_desc_init_by_tag(&s, 4, sd, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_init_by_tag(&d, 4, dd, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_init_by_tag(&any, 4, sd, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&bad_n, 4, n3, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_init_by_tag(&bad_c, 4, c4, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_init_by_tag(&d5, 5, s5, dnnl_f32, dnnl_ncdhw);
    dnnl_dims_t s2d = {2, 3};
    dnnl_memory_desc_init_by_tag(&s2, 2, s2d, dnnl_f32, dnnl_nc);
    dnnl_dims_t rtd = {2, 3, DNNL_RUNTIME_DIM_VAL, 5};
    CHECK_ST(dnnl_memory_desc_init_by_tag(&rt, 4, rtd, dnnl_f32, dnnl_nchw), dnnl_success);
    dnnl_resampling_desc_t rd;
    float f[3] = {2.f, 2.f, 2.f};
    const int NR = dnnl_resampling_nearest;
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, NR, NULL, &s, &d), dnnl_success);
    CHECK(rd.factors[0] == 2.f && rd.factors[1] == 2.f && rd.src_desc.ndims == 4 && rd.alg_kind == NR);
    CHECK_ST(dnnl_resampling_forward_desc_init(NULL, dnnl_forward_training, NR, NULL, &s, &d), dnnl_invalid_arguments);
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, dnnl_eltwise_relu, NULL, &s, &d), dnnl_invalid_arguments);
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, NR, NULL, NULL, &d), dnnl_invalid_arguments);
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, NR, NULL, &s, NULL), dnnl_invalid_arguments);
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_backward_data, NR, NULL, &s, &d), dnnl_invalid_arguments);
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_backward, NR, NULL, &s, &d), dnnl_invalid_arguments);
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, NR, NULL, &any, &d), dnnl_invalid_arguments);
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, NR, f, &s2, NULL), dnnl_invalid_arguments);
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, NR, NULL, &s, &bad_n), dnnl_invalid_arguments);
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, NR, NULL, &s, &bad_c), dnnl_invalid_arguments);
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, NR, NULL, &s, &d5), dnnl_invalid_arguments);
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, NR, NULL, &rt, &d), dnnl_unimplemented);
    /* backward: src/diff_src any is allowed, same rules otherwise */
    CHECK_ST(dnnl_resampling_backward_desc_init(&rd, NR, NULL, &any, &d), dnnl_success);
    CHECK(rd.prop_kind == dnnl_backward_data && rd.diff_src_desc.format_kind == dnnl_format_kind_any);
    CHECK_ST(dnnl_resampling_backward_desc_init(&rd, 0, NULL, &s, &d), dnnl_invalid_arguments);
    CHECK_ST(dnnl_resampling_backward_desc_init(&rd, NR, NULL, &s, &bad_c), dnnl_invalid_arguments);
    CHECK_ST(dnnl_resampling_backward_desc_init(&rd, NR, NULL, NULL, &d), dnnl_invalid_arguments);
    CHECK_ST(dnnl_resampling_backward_desc_init(&rd, NR, NULL, &s, NULL), dnnl_invalid_arguments);
    float neg[2] = {-1.f, 2.f};
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, NR, neg, &s, NULL), dnnl_invalid_arguments);
}

static dnnl_primitive_desc_t make_fwd(dnnl_format_tag_t stag, dnnl_format_tag_t dtag, dnnl_data_type_t dt, dnnl_primitive_attr_t attr, dnnl_status_t *st) {
    dnnl_memory_desc_t s, d;
    dnnl_dims_t sd = {2, 5, 3, 4}, dd = {2, 5, 6, 7};
    dnnl_memory_desc_init_by_tag(&s, 4, sd, dt, stag);
    dnnl_memory_desc_init_by_tag(&d, 4, dd, dt, dtag);
    dnnl_resampling_desc_t rd;
    dnnl_resampling_forward_desc_init(&rd, dnnl_forward_inference, dnnl_resampling_linear, NULL, &s, &d);
    dnnl_primitive_desc_t pd = NULL;
    *st = dnnl_primitive_desc_create(&pd, &rd, attr, eng, NULL);
    return pd;
}

static void pds_and_queries(void) {
    dnnl_status_t st;
    dnnl_primitive_desc_t pd = make_fwd(dnnl_nchw, dnnl_format_tag_any, dnnl_f32, NULL, &st);
    CHECK_ST(st, dnnl_success);
    dnnl_engine_t qe = NULL;
    CHECK_ST(dnnl_primitive_desc_query(pd, dnnl_query_engine, 0, &qe), dnnl_success);
    CHECK(qe == eng);
    dnnl_primitive_kind_t pk = 0;
    CHECK_ST(dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, &pk), dnnl_success);
    CHECK(pk == dnnl_resampling);
    int n = 0;
    CHECK_ST(dnnl_primitive_desc_query(pd, dnnl_query_num_of_inputs_s32, 0, &n), dnnl_success);
    CHECK(n == 1);
    CHECK(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_outputs_s32, 0) == 1);
    CHECK(dnnl_primitive_desc_query_s32(pd, dnnl_query_prop_kind, 0) == 0);
    dnnl_prop_kind_t prop = 0;
    CHECK_ST(dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &prop), dnnl_success);
    CHECK(prop == dnnl_forward_inference);
    const char *impl = NULL;
    CHECK_ST(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl), dnnl_success);
    CHECK(impl && strlen(impl) > 0);
    dnnl_dim_t mem = -1;
    CHECK_ST(dnnl_primitive_desc_query(pd, dnnl_query_memory_consumption_s64, 0, &mem), dnnl_success);
    CHECK(mem == 0);
    double t;
    CHECK_ST(dnnl_primitive_desc_query(pd, dnnl_query_time_estimate_f64, 0, &t), dnnl_unimplemented);
    CHECK_ST(dnnl_primitive_desc_query(pd, dnnl_query_some_md, 0, &impl), dnnl_unimplemented);
    CHECK_ST(dnnl_primitive_desc_query(pd, dnnl_query_convolution_d, 0, &impl), dnnl_unimplemented);
    CHECK_ST(dnnl_primitive_desc_query(pd, 9999, 0, &impl), dnnl_unimplemented);
    CHECK_ST(dnnl_primitive_desc_query(pd, dnnl_query_src_md, 0, NULL), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_desc_query(NULL, dnnl_query_src_md, 0, &impl), dnnl_invalid_arguments);
    const dnnl_resampling_desc_t *rdp = NULL;
    CHECK_ST(dnnl_primitive_desc_query(pd, dnnl_query_op_d, 0, &rdp), dnnl_success);
    CHECK(rdp && rdp->primitive_kind == dnnl_resampling && rdp->dst_desc.format_kind == dnnl_format_kind_any);
    CHECK_ST(dnnl_primitive_desc_query(pd, dnnl_query_op_d, 1, &rdp), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_desc_query(pd, dnnl_query_resampling_d, 0, &rdp), dnnl_success);
    CHECK(rdp->factors[0] == 2.f && rdp->factors[1] == 1.75f);
    const dnnl_memory_desc_t *src = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    const dnnl_memory_desc_t *dst = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    CHECK(src && src->ndims == 4 && dst && dst->format_kind == dnnl_blocked && dst->dims[3] == 7);
    CHECK(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 1)->ndims == 0);
    CHECK(dnnl_primitive_desc_query_md(pd, dnnl_query_diff_src_md, 0)->ndims == 0);
    CHECK(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0)->ndims == 0);
    CHECK(dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0)->ndims == 0);
    CHECK(dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0)->ndims == 0);
    CHECK(dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_SRC) == src);
    CHECK(dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_DST) == dst);
    CHECK(dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_DIFF_SRC)->ndims == 0);
    CHECK(dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, 12345)->ndims == 0);
    CHECK(dnnl_primitive_desc_query_md(pd, dnnl_query_engine, 0) == NULL);
    CHECK(dnnl_primitive_desc_query_md(pd, dnnl_query_some_md, 0) == NULL);
    CHECK(dnnl_primitive_desc_query_md(NULL, dnnl_query_src_md, 0) == NULL);
    /* clone, attr */
    dnnl_primitive_desc_t c = NULL;
    CHECK_ST(dnnl_primitive_desc_clone(&c, pd), dnnl_success);
    CHECK(c != pd && dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(c, dnnl_query_dst_md, 0), dst));
    const_dnnl_primitive_attr_t pa = NULL;
    CHECK_ST(dnnl_primitive_desc_get_attr(c, &pa), dnnl_success);
    CHECK(pa != NULL);
    dnnl_scratchpad_mode_t sm = -1;
    CHECK_ST(dnnl_primitive_attr_get_scratchpad_mode(pa, &sm), dnnl_success);
    CHECK(sm == dnnl_scratchpad_mode_library);
    CHECK_ST(dnnl_primitive_attr_destroy((dnnl_primitive_attr_t)pa), dnnl_invalid_arguments); /* owned by the pd */
    CHECK_ST(dnnl_primitive_desc_destroy(c), dnnl_success);
    CHECK_ST(dnnl_primitive_desc_destroy(c), dnnl_invalid_arguments);
    /* default attr accepted */
    dnnl_primitive_attr_t attr, attr2;
    CHECK_ST(dnnl_primitive_attr_create(&attr), dnnl_success);
    CHECK_ST(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user), dnnl_success);
    CHECK_ST(dnnl_primitive_attr_clone(&attr2, attr), dnnl_success);
    CHECK_ST(dnnl_primitive_attr_get_scratchpad_mode(attr2, &sm), dnnl_success);
    CHECK(sm == dnnl_scratchpad_mode_user);
    dnnl_primitive_desc_t pd2 = make_fwd(dnnl_nhwc, dnnl_nhwc, dnnl_f32, attr2, &st);
    CHECK_ST(st, dnnl_success);
    dnnl_primitive_desc_destroy(pd2);
    dnnl_primitive_attr_destroy(attr);
    dnnl_primitive_attr_destroy(attr2);
    /* iterator (as used by the C++ API) */
    dnnl_memory_desc_t s, d;
    dnnl_dims_t sd = {1, 2, 3}, dd = {1, 2, 5};
    dnnl_memory_desc_init_by_tag(&s, 3, sd, dnnl_f32, dnnl_ncw);
    dnnl_memory_desc_init_by_tag(&d, 3, dd, dnnl_f32, dnnl_ncw);
    dnnl_resampling_desc_t rd;
    dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, dnnl_resampling_nearest, NULL, &s, &d);
    dnnl_primitive_desc_iterator_t it;
    CHECK_ST(dnnl_primitive_desc_iterator_create(&it, &rd, NULL, eng, NULL), dnnl_success);
    dnnl_primitive_desc_t f = dnnl_primitive_desc_iterator_fetch(it);
    CHECK(f != NULL);
    CHECK_ST(dnnl_primitive_desc_iterator_next(it), dnnl_iterator_ends);
    CHECK(dnnl_primitive_desc_iterator_fetch(it) == NULL);
    CHECK_ST(dnnl_primitive_desc_iterator_destroy(it), dnnl_success);
    CHECK_ST(dnnl_primitive_desc_destroy(f), dnnl_success);
    /* create errors */
    dnnl_primitive_desc_t x;
    CHECK_ST(dnnl_primitive_desc_create(&x, NULL, NULL, eng, NULL), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_desc_create(NULL, &rd, NULL, eng, NULL), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_desc_create(&x, &rd, NULL, NULL, NULL), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_desc_create(&x, &rd, NULL, (dnnl_engine_t)strm, NULL), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_desc_create(&x, &rd, (const_dnnl_primitive_attr_t)eng, eng, NULL), dnnl_invalid_arguments);
    int kind = dnnl_convolution;
    CHECK_ST(dnnl_primitive_desc_create(&x, &kind, NULL, eng, NULL), dnnl_unimplemented);
    kind = 0;
    CHECK_ST(dnnl_primitive_desc_create(&x, &kind, NULL, eng, NULL), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_desc_iterator_create(&it, &kind, NULL, eng, NULL), dnnl_invalid_arguments);
    dnnl_resampling_desc_t bad = rd;
    bad.prop_kind = dnnl_backward_weights;
    CHECK_ST(dnnl_primitive_desc_create(&x, &bad, NULL, eng, NULL), dnnl_invalid_arguments);
    bad = rd;
    bad.dst_desc.dims[1] = 3;
    CHECK_ST(dnnl_primitive_desc_create(&x, &bad, NULL, eng, NULL), dnnl_invalid_arguments);
    /* backward: diff_dst any needs a forward hint */
    dnnl_memory_desc_t da;
    dnnl_memory_desc_init_by_tag(&da, 3, dd, dnnl_f32, dnnl_format_tag_any);
    dnnl_resampling_backward_desc_init(&rd, dnnl_resampling_linear, NULL, &s, &da);
    CHECK_ST(dnnl_primitive_desc_create(&x, &rd, NULL, eng, NULL), dnnl_unimplemented);
    CHECK_ST(dnnl_primitive_desc_create(&x, &rd, NULL, eng, pd), dnnl_unimplemented); /* hint dst dims differ */
    dnnl_resampling_backward_desc_init(&rd, dnnl_resampling_linear, NULL, &s, &d);
    CHECK_ST(dnnl_primitive_desc_create(&x, &rd, NULL, eng, NULL), dnnl_success); /* concrete mds: no hint needed */
    dnnl_primitive_desc_destroy(x);
    /* f16 is computed too (libdnnl 2.6.3 CPU would say unimplemented) */
    dnnl_primitive_desc_t h = make_fwd(dnnl_nchw, dnnl_nchw, dnnl_f16, NULL, &st);
    CHECK_ST(st, dnnl_success);
    dnnl_primitive_desc_destroy(h);
    dnnl_primitive_desc_destroy(pd);
}

static void executes(void) {
    dnnl_status_t st;
    dnnl_primitive_desc_t pd = make_fwd(dnnl_nchw, dnnl_nchw, dnnl_f32, NULL, &st);
    dnnl_primitive_t p;
    CHECK_ST(dnnl_primitive_create(&p, pd), dnnl_success);
    CHECK_ST(dnnl_primitive_create(NULL, pd), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_create(&p, NULL), dnnl_invalid_arguments);
    const dnnl_memory_desc_t *smd = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    const dnnl_memory_desc_t *dmd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    dnnl_memory_t sm, dm, dm2, none;
    dnnl_memory_create(&sm, smd, eng, DNNL_MEMORY_ALLOCATE);
    dnnl_memory_create(&dm, dmd, eng, DNNL_MEMORY_ALLOCATE);
    dnnl_memory_create(&dm2, dmd, eng, DNNL_MEMORY_ALLOCATE);
    dnnl_memory_create(&none, dmd, eng, DNNL_MEMORY_NONE);
    dnnl_primitive_desc_destroy(pd); /* the primitive owns its own pd */
    const_dnnl_primitive_desc_t own = NULL;
    CHECK_ST(dnnl_primitive_get_primitive_desc(p, &own), dnnl_success);
    CHECK(own != NULL && dnnl_primitive_desc_query_s32(own, dnnl_query_num_of_inputs_s32, 0) == 1);
    int junk[32] = {0};
    dnnl_exec_arg_t ok[2] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}};
    dnnl_exec_arg_t dup[3] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}, {DNNL_ARG_DST, dm2}};
    dnnl_exec_arg_t dup_src[3] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}};
    dnnl_exec_arg_t nodst[1] = {{DNNL_ARG_SRC, sm}};
    dnnl_exec_arg_t diffsrc[2] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DIFF_SRC, dm}};
    dnnl_exec_arg_t nullh[2] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, none}};
    dnnl_exec_arg_t garbage[2] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, (dnnl_memory_t)junk}};
    dnnl_exec_arg_t extra[4] = {{DNNL_ARG_SCRATCHPAD, dm2}, {DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, (dnnl_memory_t)junk}, {DNNL_ARG_DST, dm}};
    CHECK_ST(dnnl_primitive_execute(p, strm, 2, ok), dnnl_success);
    CHECK_ST(dnnl_primitive_execute(p, strm, 4, extra), dnnl_success);
    CHECK_ST(dnnl_primitive_execute(p, strm, 3, dup), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_execute(p, strm, 3, dup_src), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_execute(p, strm, 1, nodst), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_execute(p, strm, 2, diffsrc), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_execute(p, strm, 2, nullh), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_execute(p, strm, 2, garbage), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_execute(p, strm, -1, ok), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_execute(p, strm, 2, NULL), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_execute(p, strm, 0, NULL), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_execute(NULL, strm, 2, ok), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_execute(p, NULL, 2, ok), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_execute((dnnl_primitive_t)junk, strm, 2, ok), dnnl_invalid_arguments);
    dnnl_engine_t e2;
    dnnl_stream_t s2;
    dnnl_engine_create(&e2, dnnl_cpu, 0);
    dnnl_stream_create(&s2, e2, dnnl_stream_default_flags);
    CHECK_ST(dnnl_primitive_execute(p, s2, 2, ok), dnnl_invalid_arguments); /* other engine */
    dnnl_stream_destroy(s2);
    dnnl_engine_destroy(e2);
    /* a memory smaller than the primitive's dst is refused, not overrun */
    dnnl_memory_t small;
    dnnl_memory_create(&small, smd, eng, DNNL_MEMORY_ALLOCATE);
    dnnl_exec_arg_t tiny[2] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, small}};
    CHECK_ST(dnnl_primitive_execute(p, strm, 2, tiny), dnnl_invalid_arguments);
    dnnl_memory_destroy(small);
    CHECK_ST(dnnl_primitive_destroy(p), dnnl_success);
    CHECK_ST(dnnl_primitive_destroy(p), dnnl_invalid_arguments);
    dnnl_memory_destroy(sm); dnnl_memory_destroy(dm); dnnl_memory_destroy(dm2); dnnl_memory_destroy(none);

    /* zero-sized tensors: pd and execute succeed, nothing is written */
    dnnl_dims_t zs = {0, 3, 4}, zd = {0, 3, 8};
    dnnl_memory_desc_t a, b;
    dnnl_memory_desc_init_by_tag(&a, 3, zs, dnnl_f32, dnnl_ncw);
    dnnl_memory_desc_init_by_tag(&b, 3, zd, dnnl_f32, dnnl_ncw);
    dnnl_resampling_desc_t rd;
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, dnnl_resampling_linear, NULL, &a, &b), dnnl_success);
    CHECK_ST(dnnl_primitive_desc_create(&pd, &rd, NULL, eng, NULL), dnnl_success);
    CHECK_ST(dnnl_primitive_create(&p, pd), dnnl_success);
    dnnl_memory_create(&sm, &a, eng, DNNL_MEMORY_NONE);
    dnnl_memory_create(&dm, &b, eng, DNNL_MEMORY_NONE);
    dnnl_exec_arg_t zargs[2] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}};
    CHECK_ST(dnnl_primitive_execute(p, strm, 2, zargs), dnnl_success);
    dnnl_memory_destroy(sm); dnnl_memory_destroy(dm); dnnl_primitive_destroy(p); dnnl_primitive_desc_destroy(pd);

    /* in place: identity-size nearest with src and dst on the same buffer */
    dnnl_dims_t is = {1, 2, 6};
    dnnl_memory_desc_init_by_tag(&a, 3, is, dnnl_f32, dnnl_ncw);
    dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, dnnl_resampling_nearest, NULL, &a, &a);
    dnnl_primitive_desc_create(&pd, &rd, NULL, eng, NULL);
    dnnl_primitive_create(&p, pd);
    float buf[12];
    for (int i = 0; i < 12; i++) buf[i] = (float)i * 1.5f;
    dnnl_memory_create(&sm, &a, eng, buf);
    dnnl_exec_arg_t ip[2] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, sm}};
    CHECK_ST(dnnl_primitive_execute(p, strm, 2, ip), dnnl_success);
    int same = 1;
    for (int i = 0; i < 12; i++) same &= buf[i] == (float)i * 1.5f;
    CHECK(same);
    dnnl_memory_destroy(sm); dnnl_primitive_destroy(p); dnnl_primitive_desc_destroy(pd);

    /* f16 nearest copy keeps the bits */
    dnnl_memory_desc_init_by_tag(&a, 3, is, dnnl_f16, dnnl_ncw);
    dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, dnnl_resampling_nearest, NULL, &a, &a);
    CHECK_ST(dnnl_primitive_desc_create(&pd, &rd, NULL, eng, NULL), dnnl_success);
    dnnl_primitive_create(&p, pd);
    uint16_t hs[12], hd[12];
    for (int i = 0; i < 12; i++) { hs[i] = (uint16_t)(0x3C00 + 7 * i); hd[i] = 0; }
    dnnl_memory_create(&sm, &a, eng, hs);
    dnnl_memory_create(&dm, &a, eng, hd);
    dnnl_exec_arg_t fa[2] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}};
    CHECK_ST(dnnl_primitive_execute(p, strm, 2, fa), dnnl_success);
    CHECK(memcmp(hs, hd, sizeof hs) == 0);
    dnnl_memory_destroy(sm); dnnl_memory_destroy(dm); dnnl_primitive_destroy(p); dnnl_primitive_desc_destroy(pd);
}

int main(void) {
    engines_streams();
    CHECK_ST(dnnl_engine_create(&eng, dnnl_cpu, 0), dnnl_success);
    CHECK_ST(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags), dnnl_success);
    memory_descs();
    memories();
    desc_rules();
    pds_and_queries();
    executes();
    CHECK(strcmp(dnnl_status2str(dnnl_invalid_arguments), "invalid_arguments") == 0);
    CHECK(strcmp(dnnl_fmt_tag2str(dnnl_nChw16c), "aBcd16b") == 0);
    CHECK(strcmp(dnnl_dt2str(dnnl_bf16), "bf16") == 0);
    CHECK_ST(dnnl_stream_destroy(strm), dnnl_success);
    CHECK_ST(dnnl_engine_destroy(eng), dnnl_success);
    FINISH();
}
