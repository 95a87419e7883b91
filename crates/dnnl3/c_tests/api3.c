/*
 * api3.c — the oneDNN 3.2 C API surface a resampling / reorder program touches, printed
 * line by line. Built against the REAL 3.2 headers; crates/dnnl3/tests/dnnl3_c.rs runs it
 * against the real libdnnl.so.3 and against this project's and compares the outputs
 * exactly, except lines starting with "~" (implementation names, which differ by design).
 *
 * Usage: api3 [TAGS_FILE]   (TAGS_FILE: "value name" lines, every 3.2 format tag)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_debug.h"

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static void print_md(const char *name, const_dnnl_memory_desc_t md) {
    if (!md) { printf("%s NULL\n", name); return; }
    int nd = -1, dt = -1, fk = -1, nblks = 0;
    const dnnl_dims_t *dims = NULL, *pd = NULL, *po = NULL, *st = NULL, *bl = NULL, *bi = NULL;
    dnnl_dim_t off = -1;
    dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd);
    dnnl_memory_desc_query(md, dnnl_query_data_type, &dt);
    dnnl_memory_desc_query(md, dnnl_query_format_kind, &fk);
    dnnl_memory_desc_query(md, dnnl_query_dims, &dims);
    dnnl_memory_desc_query(md, dnnl_query_padded_dims, &pd);
    dnnl_memory_desc_query(md, dnnl_query_padded_offsets, &po);
    dnnl_memory_desc_query(md, dnnl_query_submemory_offset_s64, &off);
    printf("%s nd=%d dt=%d fk=%d off=%lld", name, nd, dt, fk, (long long)off);
    printf(" dims=");
    for (int d = 0; d < nd; d++) printf("%lld,", (long long)(*dims)[d]);
    printf(" pdims=");
    for (int d = 0; d < nd; d++) printf("%lld,", (long long)(*pd)[d]);
    printf(" poffs=");
    for (int d = 0; d < nd; d++) printf("%lld,", (long long)(*po)[d]);
    int s1 = dnnl_memory_desc_query(md, dnnl_query_strides, &st);
    int s2 = dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &nblks);
    dnnl_memory_desc_query(md, dnnl_query_inner_blks, &bl);
    dnnl_memory_desc_query(md, dnnl_query_inner_idxs, &bi);
    printf(" q=%d,%d", s1, s2);
    if (s1 == dnnl_success) {
        printf(" strides=");
        for (int d = 0; d < nd; d++) printf("%lld,", (long long)(*st)[d]);
        printf(" blocks=");
        for (int b = 0; b < nblks; b++) printf("%lld:%lld,", (long long)(*bl)[b], (long long)(*bi)[b]);
    }
    printf(" size=%zu\n", dnnl_memory_desc_get_size(md));
}

static void strings(void) {
    for (int i = -1; i < 12; i++) printf("status %d %s\n", i, dnnl_status2str(i));
    for (int i = -1; i < 10; i++) printf("dt %d %s\n", i, dnnl_dt2str(i));
    for (int i = -1; i < 6; i++) printf("fmt_kind %d %s\n", i, dnnl_fmt_kind2str(i));
    for (int i = -1; i < 22; i++) printf("prim_kind %d %s\n", i, dnnl_prim_kind2str(i));
    int props[] = {0, 64, 96, 128, 160, 192, 193, 7};
    for (int i = 0; i < 8; i++) printf("prop %d %s\n", props[i], dnnl_prop_kind2str(props[i]));
    for (int i = -1; i < 4; i++) printf("engine %d %s\n", i, dnnl_engine_kind2str(i));
    for (int i = -1; i < 3; i++) printf("scratchpad %d %s\n", i, dnnl_scratchpad_mode2str(i));
    for (int i = -1; i < 6; i++) printf("fpmath %d %s\n", i, dnnl_fpmath_mode2str(i));
    int isas[] = {0, 1, 3, 7, 15, 31, 39, 103, 231, 495, 4079, 8175, 0x407, 5};
    for (int i = 0; i < 14; i++) printf("isa %d %s\n", isas[i], dnnl_cpu_isa2str(isas[i]));
    for (int a = 0; a < 300; a++) {
        const char *s = dnnl_alg_kind2str(a);
        if (strcmp(s, "unknown alg_kind")) printf("alg %d %s\n", a, s);
    }
    int algs[] = {511, 767, 1023, 2815, 3071, 8191, 0x1fff0, 0x1fffb, 0x1fffc, 0x2fff0, 0x2fff1,
        0x2fff2, 196602, 196608, 196609, 196610};
    for (int i = 0; i < 16; i++) printf("alg %d %s\n", algs[i], dnnl_alg_kind2str(algs[i]));
    for (int t = -1; t < 764; t += (t < 30 || t > 755) ? 1 : 37) printf("tag %d %s\n", t, dnnl_fmt_tag2str(t));
    for (int i = -1; i < 11; i++) printf("dtsize %d %lld\n", i, (long long)dnnl_data_type_size(i));
}

/* Every tag of the header (from TAGS_FILE): created with dims of its rank, queried. */
static void tags(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) { printf("no tags file\n"); return; }
    int v;
    char name[128];
    while (fscanf(f, "%d %127s", &v, name) == 2) {
        if (v < 2 || v >= dnnl_format_tag_last) continue;
        const char *canon = dnnl_fmt_tag2str(v);
        int nd = 0;
        while (canon[nd] && ((canon[nd] >= 'a' && canon[nd] <= 'l') || (canon[nd] >= 'A' && canon[nd] <= 'L'))) nd++;
        dnnl_dims_t dims;
        for (int d = 0; d < nd; d++) dims[d] = 3 + 2 * d;
        dnnl_memory_desc_t md = NULL;
        int s = dnnl_memory_desc_create_with_tag(&md, nd, dims, dnnl_f32, v);
        char label[160];
        snprintf(label, sizeof label, "tag %s %d %s st=%d", name, v, canon, s);
        if (s == dnnl_success) print_md(label, md);
        else printf("%s\n", label);
        dnnl_memory_desc_destroy(md);
    }
    fclose(f);
}

static void mds(void) {
    dnnl_dims_t d = {2, 19, 5, 7}, sub = {1, 8, 3, 4}, offs = {1, 3, 1, 2}, st = {2000, 1, 200, 25};
    dnnl_memory_desc_t a = NULL, b = NULL, c = NULL, s = NULL, r = NULL, p = NULL, any = NULL, e = NULL;
    printf("create_tag %d\n", dnnl_memory_desc_create_with_tag(&a, 4, d, dnnl_bf16, dnnl_nChw16c));
    print_md("nChw16c", a);
    printf("create_strides %d\n", dnnl_memory_desc_create_with_strides(&b, 4, d, dnnl_s8, st));
    print_md("strided", b);
    printf("create_plain %d\n", dnnl_memory_desc_create_with_strides(&e, 4, d, dnnl_u8, NULL));
    print_md("plain", e);
    printf("create_any %d\n", dnnl_memory_desc_create_with_tag(&any, 4, d, dnnl_f32, dnnl_format_tag_any));
    print_md("any", any);
    printf("clone %d\n", dnnl_memory_desc_clone(&c, a));
    printf("equal %d %d\n", dnnl_memory_desc_equal(a, c), dnnl_memory_desc_equal(a, b));
    printf("submemory %d\n", dnnl_memory_desc_create_submemory(&s, e, sub, offs));
    print_md("sub", s);
    dnnl_dims_t rd = {2, 19, 35};
    printf("reshape %d\n", dnnl_memory_desc_reshape(&r, e, 3, rd));
    print_md("reshaped", r);
    int perm[] = {0, 1, 3, 2};
    printf("permute %d\n", dnnl_memory_desc_permute_axes(&p, e, perm));
    print_md("permuted", p);
    /* refusals */
    dnnl_memory_desc_t x = NULL;
    dnnl_dims_t neg = {2, -1, 3, 3};
    printf("neg_dims %d\n", dnnl_memory_desc_create_with_tag(&x, 4, neg, dnnl_f32, dnnl_nchw));
    printf("bad_tag %d\n", dnnl_memory_desc_create_with_tag(&x, 4, d, dnnl_f32, (dnnl_format_tag_t)100000));
    printf("rank_mismatch %d\n", dnnl_memory_desc_create_with_tag(&x, 3, d, dnnl_f32, dnnl_nchw));
    printf("null_out %d\n", dnnl_memory_desc_create_with_tag(NULL, 4, d, dnnl_f32, dnnl_nchw));
    printf("destroy_null %d\n", dnnl_memory_desc_destroy(NULL));
    printf("query_null %d\n", dnnl_memory_desc_query(a, dnnl_query_ndims_s32, NULL));
    int q = 0;
    printf("query_strides_any %d\n", dnnl_memory_desc_query(any, dnnl_query_strides, &q));
    printf("bad_reshape %d\n", dnnl_memory_desc_reshape(&x, e, 2, rd));
    dnnl_memory_desc_t mds[] = {a, b, c, s, r, p, any, e};
    for (int i = 0; i < 8; i++) dnnl_memory_desc_destroy(mds[i]);
}

static void postops(void) {
    dnnl_post_ops_t po = NULL, po2 = NULL;
    printf("po_create %d\n", dnnl_post_ops_create(&po));
    printf("sum %d\n", dnnl_post_ops_append_sum(po, 0.5f, 3, dnnl_s8));
    const int elts[] = {dnnl_eltwise_relu, dnnl_eltwise_soft_relu, dnnl_eltwise_hardsigmoid,
        dnnl_eltwise_hardswish, dnnl_eltwise_clip_v2_use_dst_for_bwd, dnnl_eltwise_gelu_erf};
    for (int i = 0; i < 6; i++)
        printf("eltwise %d %d\n", elts[i], dnnl_post_ops_append_eltwise(po, elts[i], 0.25f * i, 1.5f));
    printf("eltwise_bad_alg %d\n", dnnl_post_ops_append_eltwise(po, 31, 0, 0));
    printf("eltwise_clip_bad %d\n", dnnl_post_ops_append_eltwise(po, dnnl_eltwise_clip, 2, 1));
    dnnl_dims_t bd = {1, 4, 1, 1};
    dnnl_memory_desc_t bmd = NULL;
    dnnl_memory_desc_create_with_tag(&bmd, 4, bd, dnnl_bf16, dnnl_nchw);
    printf("binary %d\n", dnnl_post_ops_append_binary(po, dnnl_binary_div, bmd));
    printf("prelu %d\n", dnnl_post_ops_append_prelu(po, 2));
    printf("len %d\n", dnnl_post_ops_len(po));
    printf("clone %d\n", dnnl_post_ops_clone(&po2, po));
    printf("len2 %d\n", dnnl_post_ops_len(po2));
    for (int i = 0; i < dnnl_post_ops_len(po2) + 1; i++) {
        int kind = dnnl_post_ops_get_kind(po2, i);
        printf("kind %d %d %s\n", i, kind, dnnl_prim_kind2str(kind));
        float sc = 0, al = 0, be = 0;
        int32_t zp = 0;
        dnnl_data_type_t dt = 0;
        dnnl_alg_kind_t alg = 0;
        int mask = 0;
        const_dnnl_memory_desc_t m = NULL;
        if (kind == dnnl_sum) {
            printf("  sum %d %g %d %d\n", dnnl_post_ops_get_params_sum(po2, i, &sc, &zp, &dt), sc, zp, dt);
        } else if (kind == dnnl_eltwise) {
            printf("  elt %d %d %g %g\n", dnnl_post_ops_get_params_eltwise(po2, i, &alg, &al, &be), alg, al, be);
        } else if (kind == dnnl_binary) {
            int st = dnnl_post_ops_get_params_binary(po2, i, &alg, &m);
            printf("  bin %d %d eq=%d\n", st, alg, m ? dnnl_memory_desc_equal(m, bmd) : -1);
        } else if (kind == dnnl_prelu) {
            printf("  prelu %d %d\n", dnnl_post_ops_get_params_prelu(po2, i, &mask), mask);
        }
    }
    printf("wrong_kind %d\n", dnnl_post_ops_get_params_sum(po2, 1, NULL, NULL, NULL));
    dnnl_post_ops_destroy(po);
    dnnl_post_ops_destroy(po2);
    dnnl_memory_desc_destroy(bmd);
}

/* A forward pd with post-ops: queries; then attribute refusals. */
static void pds(void) {
    dnnl_dims_t sd = {2, 4, 5, 6}, dd = {2, 4, 9, 4};
    dnnl_memory_desc_t src = NULL, dst = NULL, b1 = NULL, dany = NULL;
    dnnl_memory_desc_create_with_tag(&src, 4, sd, dnnl_f32, dnnl_nhwc);
    dnnl_memory_desc_create_with_tag(&dst, 4, dd, dnnl_f32, dnnl_nChw8c);
    dnnl_memory_desc_create_with_tag(&dany, 4, dd, dnnl_u8, dnnl_format_tag_any);
    dnnl_dims_t bd = {1, 4, 9, 4};
    dnnl_memory_desc_create_with_tag(&b1, 4, bd, dnnl_f32, dnnl_format_tag_any);
    dnnl_post_ops_t po = NULL;
    dnnl_post_ops_create(&po);
    dnnl_post_ops_append_eltwise(po, dnnl_eltwise_linear, 2, 1);
    dnnl_post_ops_append_binary(po, dnnl_binary_add, b1);
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_attr_create(&attr);
    dnnl_primitive_attr_set_post_ops(attr, po);
    dnnl_primitive_desc_t pd = NULL;
    int st = dnnl_resampling_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
            dnnl_resampling_linear, NULL, src, dst, attr);
    printf("pd %d\n", st);
    if (st == dnnl_success) {
        const char *impl = NULL;
        dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
        printf("~impl %s\n", impl);
        int v = 0;
        printf("q_kind %d", dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, &v));
        printf(" %d\n", v);
        printf("q_prop %d", dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &v));
        printf(" %d\n", v);
        printf("q_alg %d", dnnl_primitive_desc_query(pd, dnnl_query_alg_kind, 0, &v));
        printf(" %d\n", v);
        const float *f = NULL;
        printf("q_factors %d", dnnl_primitive_desc_query(pd, dnnl_query_factors, 0, &f));
        if (f) printf(" %a %a", f[0], f[1]);
        printf("\n");
        dnnl_engine_t qe = NULL;
        printf("q_engine %d %d\n", dnnl_primitive_desc_query(pd, dnnl_query_engine, 0, &qe), qe == eng);
        const dnnl_dims_t *strides = NULL;
        printf("q_strides %d\n", dnnl_primitive_desc_query(pd, dnnl_query_strides, 0, &strides));
        printf("q_epsilon %d\n", dnnl_primitive_desc_query(pd, dnnl_query_epsilon_f32, 0, &v));
        printf("q_inputs %d outputs %d\n", dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0),
                dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_outputs_s32, 0));
        print_md("q_src", dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0));
        print_md("q_dst", dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0));
        print_md("q_diff_src", dnnl_primitive_desc_query_md(pd, dnnl_query_diff_src_md, 0));
        print_md("q_exec_src1", dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md,
                DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1));
        print_md("q_exec_dst", dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_DST));
        printf("q_md_nonmd %p\n", (void *)dnnl_primitive_desc_query_md(pd, dnnl_query_alg_kind, 0));
        const_dnnl_primitive_attr_t pa = NULL;
        const_dnnl_post_ops_t ppo = NULL;
        printf("get_attr %d", dnnl_primitive_desc_get_attr(pd, &pa));
        printf(" %d", dnnl_primitive_attr_get_post_ops(pa, &ppo));
        printf(" len=%d\n", dnnl_post_ops_len(ppo));
        dnnl_primitive_desc_t c = NULL;
        printf("clone %d\n", dnnl_primitive_desc_clone(&c, pd));
        dnnl_primitive_desc_destroy(c);
        /* execute with the 3.x post-op argument number */
        dnnl_primitive_t prim = NULL;
        printf("prim %d\n", dnnl_primitive_create(&prim, pd));
        /* src1 was given as `any`: its layout (and size) is the pd's */
        size_t bbytes = dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(pd,
                dnnl_query_exec_arg_md, DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1));
        printf("src1_size %zu\n", bbytes);
        float *sb = calloc(2 * 4 * 5 * 6, 4), *db = calloc(2 * 8 * 9 * 4, 4), *bb = calloc(bbytes / 4 + 1, 4);
        for (int i = 0; i < 2 * 4 * 5 * 6; i++) sb[i] = (float)(i % 13) - 6;
        for (size_t i = 0; i < bbytes / 4; i++) bb[i] = (float)(i % 7) * 0.5f;
        dnnl_memory_t ms, md, mb;
        dnnl_memory_create(&ms, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), eng, sb);
        dnnl_memory_create(&md, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), eng, db);
        dnnl_memory_create(&mb, dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md,
                DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1), eng, bb);
        dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, md},
                {DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, mb}};
        printf("exec_missing_src1 %d\n", dnnl_primitive_execute(prim, strm, 2, args));
        printf("exec %d\n", dnnl_primitive_execute(prim, strm, 3, args));
        dnnl_stream_wait(strm);
        double sum = 0;
        for (int i = 0; i < 2 * 8 * 9 * 4; i++) sum += db[i] * (1 + i % 5);
        printf("checksum %.3f\n", sum);
        const_dnnl_memory_desc_t mmd = NULL;
        printf("mem_md %d", dnnl_memory_get_memory_desc(md, &mmd));
        printf(" eq=%d\n", dnnl_memory_desc_equal(mmd, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0)));
        void *h = NULL;
        printf("get_handle %d %d\n", dnnl_memory_get_data_handle(md, &h), h == db);
        printf("set_handle %d\n", dnnl_memory_set_data_handle(md, sb));
        dnnl_primitive_t p2 = NULL;
        const_dnnl_primitive_desc_t ppd = NULL;
        printf("prim_pd %d\n", dnnl_primitive_get_primitive_desc(prim, &ppd));
        (void)p2;
        dnnl_memory_destroy(ms);
        dnnl_memory_destroy(md);
        dnnl_memory_destroy(mb);
        dnnl_primitive_destroy(prim);
        free(sb);
        free(db);
        free(bb);
    }
    dnnl_primitive_desc_destroy(pd);
    /* dst any resolved from nhwc, integer dst */
    pd = NULL;
    printf("pd_any %d\n", dnnl_resampling_forward_primitive_desc_create(&pd, eng, dnnl_forward_training,
            dnnl_resampling_nearest, NULL, src, dany, NULL));
    print_md("any_dst", dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0));
    dnnl_primitive_desc_t bwd = NULL;
    printf("pd_bwd_hint %d\n", dnnl_resampling_backward_primitive_desc_create(&bwd, eng,
            dnnl_resampling_nearest, NULL, src, dany, pd, NULL));
    print_md("bwd_diff_dst", dnnl_primitive_desc_query_md(bwd, dnnl_query_diff_dst_md, 0));
    /* libdnnl has several implementations per problem, this library one */
    printf("~next_impl_bwd %d\n", dnnl_primitive_desc_next_impl(bwd));
    dnnl_primitive_desc_destroy(bwd);
    dnnl_primitive_desc_destroy(pd);
    /* factors */
    float factors[] = {1.5f, 0.5f};
    pd = NULL;
    printf("pd_factors %d\n", dnnl_resampling_forward_primitive_desc_create(&pd, eng, dnnl_forward_training,
            dnnl_resampling_linear, factors, src, NULL, NULL));
    print_md("factors_dst", dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0));
    dnnl_primitive_desc_destroy(pd);
    /* refusals */
    dnnl_primitive_attr_t a2 = NULL;
    dnnl_primitive_attr_create(&a2);
    printf("scales_mask %d\n", dnnl_primitive_attr_set_scales_mask(a2, DNNL_ARG_SRC, 0));
    printf("pd_scales %d\n", dnnl_resampling_forward_primitive_desc_create(&pd, eng, dnnl_forward_training,
            dnnl_resampling_linear, NULL, src, dst, a2));
    dnnl_primitive_attr_destroy(a2);
    dnnl_primitive_attr_create(&a2);
    printf("zp_mask %d\n", dnnl_primitive_attr_set_zero_points_mask(a2, DNNL_ARG_DST, 0));
    printf("zp_mask_bad %d\n", dnnl_primitive_attr_set_zero_points_mask(a2, DNNL_ARG_DST, -1));
    printf("pd_zp %d\n", dnnl_resampling_forward_primitive_desc_create(&pd, eng, dnnl_forward_training,
            dnnl_resampling_linear, NULL, src, dst, a2));
    dnnl_primitive_attr_destroy(a2);
    dnnl_primitive_attr_create(&a2);
    printf("scratchpad %d fpmath %d\n", dnnl_primitive_attr_set_scratchpad_mode(a2, dnnl_scratchpad_mode_user),
            dnnl_primitive_attr_set_fpmath_mode(a2, dnnl_fpmath_mode_bf16));
    pd = NULL;
    printf("pd_modes %d\n", dnnl_resampling_forward_primitive_desc_create(&pd, eng, dnnl_forward_training,
            dnnl_resampling_linear, NULL, src, dst, a2));
    dnnl_primitive_desc_destroy(pd);
    printf("pd_bwd_postops %d\n", dnnl_resampling_backward_primitive_desc_create(&pd, eng,
            dnnl_resampling_linear, NULL, src, dst, NULL, attr));
    printf("pd_bad_prop %d\n", dnnl_resampling_forward_primitive_desc_create(&pd, eng, dnnl_backward_data,
            dnnl_resampling_linear, NULL, src, dst, NULL));
    printf("pd_bad_alg %d\n", dnnl_resampling_forward_primitive_desc_create(&pd, eng, dnnl_forward_training,
            dnnl_eltwise_relu, NULL, src, dst, NULL));
    printf("pd_null_src %d\n", dnnl_resampling_forward_primitive_desc_create(&pd, eng, dnnl_forward_training,
            dnnl_resampling_linear, NULL, NULL, dst, NULL));
    dnnl_dims_t d5 = {2, 5, 5, 6};
    dnnl_memory_desc_t bad = NULL;
    dnnl_memory_desc_create_with_tag(&bad, 4, d5, dnnl_f32, dnnl_nchw);
    printf("pd_c_mismatch %d\n", dnnl_resampling_forward_primitive_desc_create(&pd, eng, dnnl_forward_training,
            dnnl_resampling_linear, NULL, src, bad, NULL));
    dnnl_memory_desc_destroy(bad);
    dnnl_primitive_attr_destroy(a2);
    dnnl_primitive_attr_destroy(attr);
    dnnl_post_ops_destroy(po);
    dnnl_memory_desc_destroy(src);
    dnnl_memory_desc_destroy(dst);
    dnnl_memory_desc_destroy(b1);
    dnnl_memory_desc_destroy(dany);
}

static void reorder(void) {
    dnnl_dims_t d = {1, 3, 2, 5};
    dnnl_memory_desc_t a = NULL, b = NULL;
    dnnl_memory_desc_create_with_tag(&a, 4, d, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_create_with_tag(&b, 4, d, dnnl_s8, dnnl_nhwc);
    dnnl_primitive_desc_t pd = NULL;
    printf("reorder_pd %d\n", dnnl_reorder_primitive_desc_create(&pd, a, eng, b, eng, NULL));
    int kind = 0;
    dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, &kind);
    printf("reorder_kind %d\n", kind);
    dnnl_primitive_t p = NULL;
    printf("reorder_prim %d\n", dnnl_primitive_create(&p, pd));
    float x[30];
    int8_t y[30];
    for (int i = 0; i < 30; i++) x[i] = (float)i * 9.5f - 130.f;
    dnnl_memory_t ma, mb;
    dnnl_memory_create(&ma, a, eng, x);
    dnnl_memory_create(&mb, b, eng, y);
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, ma}, {DNNL_ARG_TO, mb}};
    printf("reorder_exec %d\n", dnnl_primitive_execute(p, strm, 2, args));
    dnnl_stream_wait(strm);
    printf("reorder_out");
    for (int i = 0; i < 30; i++) printf(" %d", y[i]);
    printf("\n");
    dnnl_memory_destroy(ma);
    dnnl_memory_destroy(mb);
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(a);
    dnnl_memory_desc_destroy(b);
}

int main(int argc, char **argv) {
    const dnnl_version_t *v = dnnl_version();
    printf("version %d.%d.%d cpu_runtime %u gpu_runtime %u\n", v->major, v->minor, v->patch,
            v->cpu_runtime, v->gpu_runtime);
    printf("engines %zu\n", dnnl_engine_get_count(dnnl_cpu));
    printf("engine %d\n", dnnl_engine_create(&eng, dnnl_cpu, 0));
    printf("engine_bad %d\n", dnnl_engine_create(&(dnnl_engine_t){0}, dnnl_cpu, 5));
    printf("stream %d\n", dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    dnnl_engine_kind_t k;
    printf("engine_kind %d", dnnl_engine_get_kind(eng, &k));
    printf(" %d\n", k);
    strings();
    mds();
    postops();
    pds();
    reorder();
    if (argc > 1) tags(argv[1]);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    printf("done\n");
    return 0;
}
