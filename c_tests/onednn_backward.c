// link: -lm
/* oneDNN face, backward-data resampling: random 1D/2D/3D problems (plain, channels-last,
 * blocked; mixed data types; with and without the forward hint) against the plain-C model
 * of docs/spec/onednn.md §3, plus the §3 numeric examples. */
#include "onednn_common.h"

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static const dnnl_format_tag_t TAGS[3][4] = {
    {dnnl_ncw, dnnl_nwc, dnnl_nCw8c, dnnl_nCw16c},
    {dnnl_nchw, dnnl_nhwc, dnnl_nChw8c, dnnl_nChw16c},
    {dnnl_ncdhw, dnnl_ndhwc, dnnl_nCdhw8c, dnnl_nCdhw16c},
};
static const dnnl_data_type_t DTS[5] = {dnnl_f32, dnnl_bf16, dnnl_s32, dnnl_s8, dnnl_u8};

/* fsd = forward input (diff_src) dims, fdd = forward output (diff_dst) dims */
static int run(int nd, const dnnl_dim_t *fsd, const dnnl_dim_t *fdd, int ddst_tag, int dsrc_tag, dnnl_data_type_t ddt_dd,
               dnnl_data_type_t ddt_ds, int linear, int use_hint) {
    dnnl_alg_kind_t alg = linear ? dnnl_resampling_linear : dnnl_resampling_nearest;
    dnnl_primitive_desc_t hint = NULL;
    dnnl_memory_desc_t ds_md, dd_md;
    if (use_hint) {
        dnnl_memory_desc_t s, d;
        dnnl_resampling_desc_t frd;
        dnnl_memory_desc_init_by_tag(&s, nd, fsd, dnnl_f32, TAGS[nd - 3][ddst_tag]);
        dnnl_memory_desc_init_by_tag(&d, nd, fdd, dnnl_f32, dnnl_format_tag_any);
        CHECK_ST(dnnl_resampling_forward_desc_init(&frd, dnnl_forward_training, alg, NULL, &s, &d), dnnl_success);
        CHECK_ST(dnnl_primitive_desc_create(&hint, &frd, NULL, eng, NULL), dnnl_success);
        dnnl_memory_desc_init_by_tag(&dd_md, nd, fdd, ddt_dd, dnnl_format_tag_any);
    } else {
        dnnl_memory_desc_init_by_tag(&dd_md, nd, fdd, ddt_dd, TAGS[nd - 3][ddst_tag]);
    }
    dnnl_memory_desc_init_by_tag(&ds_md, nd, fsd, ddt_ds, dsrc_tag < 0 ? dnnl_format_tag_any : TAGS[nd - 3][dsrc_tag]);
    dnnl_resampling_desc_t rd;
    CHECK_ST(dnnl_resampling_backward_desc_init(&rd, alg, NULL, &ds_md, &dd_md), dnnl_success);
    CHECK(rd.prop_kind == dnnl_backward_data && rd.src_desc.ndims == 0 && rd.dst_desc.ndims == 0);
    dnnl_primitive_desc_t pd;
    dnnl_status_t st = dnnl_primitive_desc_create(&pd, &rd, NULL, eng, hint);
    CHECK_ST(st, dnnl_success);
    if (st != dnnl_success) return 1;
    CHECK(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) == 1);
    dnnl_prop_kind_t pk = 0;
    CHECK_ST(dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &pk), dnnl_success);
    CHECK(pk == dnnl_backward_data);
    CHECK(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0)->ndims == 0);
    CHECK(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0)->ndims == 0);
    const dnnl_memory_desc_t *qdd = dnnl_primitive_desc_query_md(pd, dnnl_query_diff_dst_md, 0);
    const dnnl_memory_desc_t *qds = dnnl_primitive_desc_query_md(pd, dnnl_query_diff_src_md, 0);
    CHECK(qdd->format_kind == dnnl_blocked && qds->format_kind == dnnl_blocked);
    CHECK(qdd->data_type == ddt_dd && qds->data_type == ddt_ds);
    if (use_hint) {
        /* diff_dst any takes the hint's dst md (with its own data type) */
        dnnl_memory_desc_t h = *dnnl_primitive_desc_query_md(hint, dnnl_query_dst_md, 0);
        h.data_type = ddt_dd;
        CHECK(dnnl_memory_desc_equal(&h, qdd));
    }
    CHECK(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_DIFF_SRC), qds));
    dnnl_primitive_t prim;
    CHECK_ST(dnnl_primitive_create(&prim, pd), dnnl_success);
    dnnl_memory_t ddm, dsm;
    CHECK_ST(dnnl_memory_create(&ddm, qdd, eng, DNNL_MEMORY_ALLOCATE), dnnl_success);
    CHECK_ST(dnnl_memory_create(&dsm, qds, eng, DNNL_MEMORY_ALLOCATE), dnnl_success);
    void *ddb, *dsb;
    dnnl_memory_map_data(ddm, &ddb);
    dnnl_memory_get_data_handle(dsm, &dsb);
    fill_md(qdd, ddb);
    dnnl_memory_unmap_data(ddm, ddb);
    memset(dsb, 0x77, dnnl_memory_desc_get_size(qds));
    /* unused and NULL arguments are ignored */
    dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, NULL}, {DNNL_ARG_DIFF_SRC, dsm}, {DNNL_ARG_DST, ddm}, {DNNL_ARG_DIFF_DST, ddm}};
    CHECK_ST(dnnl_primitive_execute(prim, strm, 4, args), dnnl_success);
    CHECK_ST(dnnl_stream_wait(strm), dnnl_success);
    float *exp = model_backward(linear, qds, qdd, ddb);
    int bad = compare_out(linear, qds, dsb, exp, NULL);
    CHECK(bad == 0);
    if (bad) {
        printf("  case nd=%d dd_tag=%d ds_tag=%d dt %d>%d %s hint=%d dims", nd, ddst_tag, dsrc_tag, ddt_dd, ddt_ds, linear ? "linear" : "nearest", use_hint);
        for (int i = 0; i < nd; i++) printf(" %lld<%lld", (long long)fsd[i], (long long)fdd[i]);
        printf("\n");
    }
    free(exp);
    dnnl_memory_destroy(ddm); dnnl_memory_destroy(dsm);
    dnnl_primitive_destroy(prim); dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_desc_destroy(hint);
    return bad;
}

/* 1D f32 backward: diff_src (I) from diff_dst (O) */
static void run_1d(int linear, int I, int O, const float *dd, float *ds) {
    dnnl_dim_t s[3] = {1, 1, I}, d[3] = {1, 1, O};
    dnnl_memory_desc_t smd, dmd;
    dnnl_memory_desc_init_by_tag(&smd, 3, s, dnnl_f32, dnnl_ncw);
    dnnl_memory_desc_init_by_tag(&dmd, 3, d, dnnl_f32, dnnl_ncw);
    dnnl_resampling_desc_t rd;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t p;
    CHECK_ST(dnnl_resampling_backward_desc_init(&rd, linear ? dnnl_resampling_linear : dnnl_resampling_nearest, NULL, &smd, &dmd), dnnl_success);
    CHECK_ST(dnnl_primitive_desc_create(&pd, &rd, NULL, eng, NULL), dnnl_success);
    CHECK_ST(dnnl_primitive_create(&p, pd), dnnl_success);
    dnnl_memory_t a, b;
    dnnl_memory_create(&a, &dmd, eng, (void *)dd);
    dnnl_memory_create(&b, &smd, eng, ds);
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_DIFF_DST, a}, {DNNL_ARG_DIFF_SRC, b}};
    CHECK_ST(dnnl_primitive_execute(p, strm, 2, args), dnnl_success);
    dnnl_memory_destroy(a); dnnl_memory_destroy(b); dnnl_primitive_destroy(p); dnnl_primitive_desc_destroy(pd);
}

static int near(const float *got, const float *want, int n) {
    int ok = 1;
    for (int i = 0; i < n; i++) ok &= fabsf(got[i] - want[i]) <= 1e-6f * (1.f + fabsf(want[i]));
    return ok;
}

static void spec_examples(void) {
    float ds[8];
    const float d5[5] = {1, 2, 3, 4, 5}, d3[3] = {1, 2, 3}, ones[6] = {1, 1, 1, 1, 1, 1};
    /* §3.1 nearest */
    run_1d(0, 3, 5, d5, ds); { const float w[3] = {3, 3, 9}; CHECK(near(ds, w, 3)); }
    run_1d(0, 5, 3, d3, ds); { const float w[5] = {1, 0, 2, 0, 3}; CHECK(near(ds, w, 5)); }
    run_1d(0, 4, 6, ones, ds); { const float w[4] = {1, 2, 1, 2}; CHECK(near(ds, w, 4)); }
    /* §3.2 linear */
    run_1d(1, 3, 5, d5, ds); { const float w[3] = {2.2f, 5.4000006f, 7.3999996f}; CHECK(near(ds, w, 3)); }
    run_1d(1, 5, 3, d3, ds); { const float w[5] = {0.6666667f, 0.3333333f, 2, 1.0000005f, 1.9999995f}; CHECK(near(ds, w, 5)); }
    run_1d(1, 4, 6, ones, ds); { const float w[4] = {1.5f, 1.5000001f, 1.4999999f, 1.5f}; CHECK(near(ds, w, 4)); }
}

int main(void) {
    CHECK_ST(dnnl_engine_create(&eng, dnnl_cpu, 0), dnnl_success);
    CHECK_ST(dnnl_stream_create(&strm, eng, dnnl_stream_in_order), dnnl_success);
    spec_examples();
    for (int it = 0; it < 300; it++) {
        int nd = rnd_range(3, 5);
        dnnl_dim_t s[5], d[5];
        s[0] = d[0] = rnd_range(1, 2);
        s[1] = d[1] = rnd_range(1, 20);
        for (int k = 2; k < nd; k++) {
            int big = nd == 3 ? 40 : nd == 4 ? 12 : 6;
            s[k] = rnd_range(1, big);
            d[k] = rnd_range(1, big + 3);
        }
        dnnl_data_type_t a = DTS[rnd_range(0, 4)], b = it % 3 ? a : DTS[rnd_range(0, 4)];
        if (a == dnnl_s32 || b == dnnl_s32) a = b = dnnl_f32; /* keep integer sums away from 2^24 */
        run(nd, s, d, rnd_range(0, 3), rnd_range(-1, 3), a, b, it & 1, (it >> 1) & 1);
    }
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    FINISH();
}
