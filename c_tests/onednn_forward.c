// link: -lm
/* oneDNN face, forward resampling: random 1D/2D/3D problems over plain, channels-last,
 * blocked and strided layouts and mixed data types, checked against the plain-C model of
 * docs/spec/onednn.md §2; plus the numeric examples of §2.1 and §2.3 and factors-only
 * descriptor creation (§1). */
#include "onednn_common.h"

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static const dnnl_format_tag_t TAGS[3][4] = {
    {dnnl_ncw, dnnl_nwc, dnnl_nCw8c, dnnl_nCw16c},
    {dnnl_nchw, dnnl_nhwc, dnnl_nChw8c, dnnl_nChw16c},
    {dnnl_ncdhw, dnnl_ndhwc, dnnl_nCdhw8c, dnnl_nCdhw16c},
};
static const dnnl_data_type_t DTS[5] = {dnnl_f32, dnnl_bf16, dnnl_s32, dnnl_s8, dnnl_u8};

/* a plain md with random gaps between dims (strides in a random order) */
static void strided_md(dnnl_memory_desc_t *md, int nd, const dnnl_dim_t *dims, dnnl_data_type_t dt) {
    dnnl_dims_t strides;
    int order[5] = {0, 1, 2, 3, 4};
    for (int i = nd - 1; i > 0; i--) { int j = rnd_range(0, i); int t = order[i]; order[i] = order[j]; order[j] = t; }
    dnnl_dim_t s = rnd_range(1, 2);
    for (int k = nd - 1; k >= 0; k--) { strides[order[k]] = s; s = s * dims[order[k]] + rnd_range(0, 3); }
    CHECK_ST(dnnl_memory_desc_init_by_strides(md, nd, dims, dt, strides), dnnl_success);
}

static int run(int nd, const dnnl_dim_t *sd, const dnnl_dim_t *dd, int stag_i, int dtag_i, dnnl_data_type_t sdt,
               dnnl_data_type_t ddt, int linear, int prop_inference, int *exact) {
    dnnl_memory_desc_t smd, dmd;
    if (stag_i == 4) strided_md(&smd, nd, sd, sdt);
    else CHECK_ST(dnnl_memory_desc_init_by_tag(&smd, nd, sd, sdt, TAGS[nd - 3][stag_i]), dnnl_success);
    if (dtag_i == 4) strided_md(&dmd, nd, dd, ddt);
    else CHECK_ST(dnnl_memory_desc_init_by_tag(&dmd, nd, dd, ddt, dtag_i < 0 ? dnnl_format_tag_any : TAGS[nd - 3][dtag_i]), dnnl_success);
    dnnl_resampling_desc_t rd;
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, prop_inference ? dnnl_forward_inference : dnnl_forward_training,
                 linear ? dnnl_resampling_linear : dnnl_resampling_nearest, NULL, &smd, &dmd), dnnl_success);
    dnnl_primitive_desc_t pd;
    dnnl_status_t st = dnnl_primitive_desc_create(&pd, &rd, NULL, eng, NULL);
    CHECK_ST(st, dnnl_success);
    if (st != dnnl_success) return 1;
    const dnnl_memory_desc_t *qs = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    const dnnl_memory_desc_t *qd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    CHECK(dnnl_memory_desc_equal(qs, &smd));
    if (dtag_i >= 0) CHECK(dnnl_memory_desc_equal(qd, &dmd));
    else {
        /* any takes the src blocking: same as the src tag for tag-made src */
        dnnl_memory_desc_t want;
        int ones = 0;
        for (int i = 0; i < nd; i++) ones |= sd[i] == 1 || dd[i] == 1;
        if (stag_i < 4 && !ones) { /* size-1 dims can make several tags match the src */
            dnnl_memory_desc_init_by_tag(&want, nd, dd, ddt, TAGS[nd - 3][stag_i]);
            CHECK(dnnl_memory_desc_equal(qd, &want));
        }
        CHECK(qd->format_kind == dnnl_blocked && qd->data_type == ddt);
    }
    dnnl_primitive_t prim;
    CHECK_ST(dnnl_primitive_create(&prim, pd), dnnl_success);
    dnnl_primitive_desc_destroy(pd); /* the primitive keeps its own copy */
    const_dnnl_primitive_desc_t ppd;
    CHECK_ST(dnnl_primitive_get_primitive_desc(prim, &ppd), dnnl_success);
    qd = dnnl_primitive_desc_query_md(ppd, dnnl_query_dst_md, 0);
    dnnl_memory_t sm, dm;
    size_t ssz = dnnl_memory_desc_get_size(&smd);
    void *sbuf = calloc(1, ssz + 64); /* user buffer */
    fill_md(&smd, sbuf);
    CHECK_ST(dnnl_memory_create(&sm, &smd, eng, sbuf), dnnl_success);
    CHECK_ST(dnnl_memory_create(&dm, qd, eng, DNNL_MEMORY_ALLOCATE), dnnl_success);
    void *dbuf = NULL;
    CHECK_ST(dnnl_memory_get_data_handle(dm, &dbuf), dnnl_success);
    CHECK(dbuf != NULL && ((uintptr_t)dbuf % 64) == 0);
    memset(dbuf, 0x5A, dnnl_memory_desc_get_size(qd)); /* garbage, including any padding */
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}, {DNNL_ARG_WEIGHTS, NULL}};
    CHECK_ST(dnnl_primitive_execute(prim, strm, 3, args), dnnl_success);
    CHECK_ST(dnnl_stream_wait(strm), dnnl_success);
    float *exp = model_forward(linear, &smd, sbuf, qd);
    int bad = compare_out(linear, qd, dbuf, exp, exact);
    CHECK(bad == 0);
    /* padding of blocked channels is written as zeros */
    if (qd->padded_dims[1] > qd->dims[1]) {
        int64_t idx[5] = {0, qd->dims[1], 0, 0, 0};
        const char *p = (const char *)dbuf + md_off(qd, idx) * (int64_t)dt_size(ddt);
        int zero = 1;
        for (size_t b = 0; b < dt_size(ddt); b++) zero &= p[b] == 0;
        CHECK(zero);
    }
    if (bad) {
        printf("  case nd=%d stag=%d dtag=%d sdt=%d ddt=%d %s dims", nd, stag_i, dtag_i, sdt, ddt, linear ? "linear" : "nearest");
        for (int i = 0; i < nd; i++) printf(" %lld>%lld", (long long)sd[i], (long long)dd[i]);
        printf("\n");
    }
    free(exp);
    dnnl_memory_destroy(sm);
    dnnl_memory_destroy(dm);
    dnnl_primitive_destroy(prim);
    free(sbuf);
    return bad;
}

/* 1D f32 src = [0, 1, ...] resampled I -> O; returns the output in out */
static void run_1d(int linear, int I, int O, float *out) {
    dnnl_dim_t sd[3] = {1, 1, I}, dd[3] = {1, 1, O};
    dnnl_memory_desc_t smd, dmd;
    dnnl_memory_desc_init_by_tag(&smd, 3, sd, dnnl_f32, dnnl_ncw);
    dnnl_memory_desc_init_by_tag(&dmd, 3, dd, dnnl_f32, dnnl_ncw);
    dnnl_resampling_desc_t rd;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t prim;
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, linear ? dnnl_resampling_linear : dnnl_resampling_nearest, NULL, &smd, &dmd), dnnl_success);
    CHECK_ST(dnnl_primitive_desc_create(&pd, &rd, NULL, eng, NULL), dnnl_success);
    CHECK_ST(dnnl_primitive_create(&prim, pd), dnnl_success);
    float src[64];
    for (int i = 0; i < I; i++) src[i] = (float)i;
    dnnl_memory_t sm, dm;
    dnnl_memory_create(&sm, &smd, eng, src);
    dnnl_memory_create(&dm, &dmd, eng, out);
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_DST, dm}, {DNNL_ARG_SRC, sm}};
    CHECK_ST(dnnl_primitive_execute(prim, strm, 2, args), dnnl_success);
    dnnl_memory_destroy(sm); dnnl_memory_destroy(dm); dnnl_primitive_destroy(prim); dnnl_primitive_desc_destroy(pd);
}

static void spec_examples(void) {
    float out[64];
    /* §2.1 nearest (src = index, so the output is the picked index) */
    struct { int I, O; int want[13]; } ne[] = {
        {4, 1, {2}}, {3, 5, {0, 0, 1, 2, 2}}, {5, 3, {0, 2, 4}}, {2, 6, {0, 0, 0, 1, 1, 1}},
        {14, 7, {1, 3, 5, 7, 9, 11, 13}}, {21, 13, {0, 2, 4, 5, 7, 8, 10, 12, 13, 15, 16, 18, 20}},
    };
    for (size_t k = 0; k < sizeof ne / sizeof ne[0]; k++) {
        run_1d(0, ne[k].I, ne[k].O, out);
        for (int o = 0; o < ne[k].O; o++) CHECK(out[o] == (float)ne[k].want[o]);
    }
    /* §2.3 linear */
    struct { int I, O; float want[8]; } le[] = {
        {3, 5, {0, 0.4f, 1, 1.6f, 2}}, {4, 6, {0, 0.5f, 1.1666666f, 1.8333333f, 2.5f, 3}},
        {5, 3, {0.3333333f, 2, 3.6666665f}}, {2, 6, {0, 0, 0.3333333f, 0.6666666f, 1, 1}},
        {3, 2, {0.25f, 1.75f}}, {14, 7, {0.5f, 2.5f, 4.5f, 6.5f, 8.5f, 10.5f, 12.5f}}, {4, 1, {1.5f}},
    };
    for (size_t k = 0; k < sizeof le / sizeof le[0]; k++) {
        run_1d(1, le[k].I, le[k].O, out);
        for (int o = 0; o < le[k].O; o++) CHECK(fabsf(out[o] - le[k].want[o]) <= 1e-6f);
    }
}

static void factors_only(void) {
    /* §1: dst dims (dim_t)(src * factor) as a float multiply; factors recomputed from sizes */
    dnnl_dim_t sd[4] = {2, 3, 3, 10};
    dnnl_memory_desc_t smd;
    dnnl_memory_desc_init_by_tag(&smd, 4, sd, dnnl_f32, dnnl_nhwc);
    float f[2] = {1.5f, 0.33f};
    dnnl_resampling_desc_t rd;
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, dnnl_resampling_nearest, f, &smd, NULL), dnnl_success);
    CHECK(rd.dst_desc.dims[2] == 4 && rd.dst_desc.dims[3] == 3);
    CHECK(rd.dst_desc.format_kind == dnnl_format_kind_any && rd.dst_desc.data_type == dnnl_f32);
    CHECK(rd.factors[0] == (float)(4.0 / 3.0) && rd.factors[1] == (float)(3.0 / 10.0));
    CHECK(rd.primitive_kind == dnnl_resampling && rd.prop_kind == dnnl_forward_training);
    CHECK(rd.diff_src_desc.ndims == 0 && rd.diff_dst_desc.ndims == 0);
    dnnl_primitive_desc_t pd;
    CHECK_ST(dnnl_primitive_desc_create(&pd, &rd, NULL, eng, NULL), dnnl_success);
    const dnnl_memory_desc_t *qd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    /* nhwc 1x2x3x10 -> dst 1x2x4x3 strides [24,1,6,2] style: here 2x3x4x3 */
    CHECK(qd->format_desc.blocking.strides[1] == 1 && qd->format_desc.blocking.strides[3] == 3 &&
          qd->format_desc.blocking.strides[2] == 9 && qd->format_desc.blocking.strides[0] == 36);
    const dnnl_resampling_desc_t *qrd = NULL;
    CHECK_ST(dnnl_primitive_desc_query(pd, dnnl_query_resampling_d, 0, &qrd), dnnl_success);
    CHECK(qrd != NULL && qrd->dst_desc.format_kind == dnnl_format_kind_any && qrd->factors[0] == rd.factors[0]);
    dnnl_primitive_desc_destroy(pd);
    /* given dst: user factors ignored, recomputed (4 -> 6 gives 1.5) */
    dnnl_dim_t s3[3] = {1, 1, 4}, d3[3] = {1, 1, 6};
    dnnl_memory_desc_t a, b;
    dnnl_memory_desc_init_by_tag(&a, 3, s3, dnnl_f32, dnnl_ncw);
    dnnl_memory_desc_init_by_tag(&b, 3, d3, dnnl_f32, dnnl_ncw);
    float ten = 10.f;
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_inference, dnnl_resampling_linear, &ten, &a, &b), dnnl_success);
    CHECK(rd.factors[0] == 1.5f && rd.dst_desc.dims[2] == 6);
    /* 10 x 0.33 -> 3 and 3 x 1.5 -> 4, in 3D too; then run it */
    dnnl_dim_t s5[5] = {1, 2, 10, 3, 5};
    dnnl_memory_desc_init_by_tag(&a, 5, s5, dnnl_f32, dnnl_nCdhw8c);
    float f3[3] = {0.33f, 1.5f, 2.f};
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, dnnl_resampling_linear, f3, &a, NULL), dnnl_success);
    CHECK(rd.dst_desc.dims[2] == 3 && rd.dst_desc.dims[3] == 4 && rd.dst_desc.dims[4] == 10);
    int exact = 1;
    CHECK(run(5, s5, rd.dst_desc.dims, 2, -1, dnnl_f32, dnnl_f32, 1, 0, &exact) == 0);
}

int main(void) {
    CHECK_ST(dnnl_engine_create(&eng, dnnl_cpu, 0), dnnl_success);
    CHECK_ST(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags), dnnl_success);
    spec_examples();
    factors_only();
    int cases = 0, exact_cases = 0;
    for (int it = 0; it < 400; it++) {
        int nd = rnd_range(3, 5);
        dnnl_dim_t sd[5], dd[5];
        sd[0] = dd[0] = rnd_range(1, 2);
        sd[1] = dd[1] = rnd_range(1, 20);
        for (int d = 2; d < nd; d++) {
            int big = nd == 3 ? 40 : nd == 4 ? 12 : 6;
            sd[d] = rnd_range(1, big);
            dd[d] = rnd_range(1, big + 3);
        }
        int stag = rnd_range(0, 4), dtag = rnd_range(-1, 4);
        if (stag == 4 && dtag == -1) dtag = 0;
        dnnl_data_type_t sdt = DTS[rnd_range(0, 4)], ddt = it % 3 ? sdt : DTS[rnd_range(0, 4)];
        int linear = it & 1, exact = 1;
        run(nd, sd, dd, stag, dtag, sdt, ddt, linear, it % 5 == 0, &exact);
        cases++;
        exact_cases += exact;
    }
    printf("%d random cases, %d bit-exact with the model\n", cases, exact_cases);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    FINISH();
}
