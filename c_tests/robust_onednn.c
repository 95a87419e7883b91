// link: -lm
/* Robustness of the oneDNN face under valgrind: seeded random descriptors (well-formed,
 * then with extreme fields), desc init, pd create, queries, memory creation and execution
 * on buffers malloc'd at exactly dnnl_memory_desc_get_size bytes. Every call must return a
 * status in {success, out_of_memory, invalid_arguments, unimplemented}; valgrind
 * (--error-exitcode=1) reports any access outside the buffers. */
#include <oneapi/dnnl/dnnl.h>
#include "robust_common.h"

#define OKST(s) ((s) == dnnl_success || (s) == dnnl_out_of_memory || (s) == dnnl_invalid_arguments || (s) == dnnl_unimplemented)

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static void valid_md(dnnl_memory_desc_t *md, int nd, const dnnl_dims_t dims) {
    static const dnnl_format_tag_t t3[] = {dnnl_ncw, dnnl_nwc, dnnl_nCw16c, dnnl_nCw8c};
    static const dnnl_format_tag_t t4[] = {dnnl_nchw, dnnl_nhwc, dnnl_nChw16c, dnnl_nChw8c, dnnl_aBcd4b};
    static const dnnl_format_tag_t t5[] = {dnnl_ncdhw, dnnl_ndhwc, dnnl_nCdhw16c, dnnl_nCdhw8c};
    static const dnnl_data_type_t dts[] = {dnnl_f32, dnnl_f32, dnnl_bf16, dnnl_f16, dnnl_s8, dnnl_u8, dnnl_s32};
    dnnl_data_type_t dt = dts[rnext() % 7];
    dnnl_format_tag_t tag = nd == 3 ? t3[rnext() % 4] : nd == 4 ? t4[rnext() % 5] : t5[rnext() % 4];
    if (rchance(0.2)) tag = (dnnl_format_tag_t)rrange(2, 513);
    if (dnnl_memory_desc_init_by_tag(md, nd, dims, dt, tag) != dnnl_success)
        dnnl_memory_desc_init_by_strides(md, nd, dims, dt, NULL);
}

static void mutate(dnnl_memory_desc_t *md) {
    int i = (int)(rnext() % 12);
    switch (rnext() % 12) {
    case 0: md->ndims = (int)rrange(-1, 13); break;
    case 1: case 2: md->dims[i] = ri64x(); break;
    case 3: md->padded_dims[i] = ri64x(); break;
    case 4: md->padded_offsets[i] = ri64x(); break;
    case 5: md->offset0 = ri64x(); break;
    case 6: md->format_kind = (dnnl_format_kind_t)rrange(-1, 5); break;
    case 7: md->data_type = (dnnl_data_type_t)rrange(-1, 8); break;
    case 8: case 9: md->format_desc.blocking.strides[i] = ri64x(); break;
    case 10: md->format_desc.blocking.inner_nblks = (int)rrange(-1, 13); break;
    default: md->format_desc.blocking.inner_blks[i] = ri64x(); md->format_desc.blocking.inner_idxs[i] = ri64x(); break;
    }
}

static void md_case(void) {
    dnnl_dims_t dims = {0};
    int nd = (int)rrange(3, 5);
    for (int d = 0; d < nd; d++) dims[d] = rrange(1, 9);
    dnnl_memory_desc_t md, out;
    valid_md(&md, nd, dims);
    int hostile = rchance(0.7);
    if (hostile) for (int k = (int)rrange(1, 3); k > 0; k--) mutate(&md);
    size_t size = dnnl_memory_desc_get_size(&md);
    (void)dnnl_memory_desc_equal(&md, &md);
    int perm[12];
    for (int k = 0; k < 12; k++) perm[k] = rchance(0.8) ? k : (int)rrange(-2, 13);
    dnnl_status_t st = dnnl_memory_desc_permute_axes(&out, &md, perm);
    CHECK(OKST(st));
    dnnl_dims_t sd, so;
    for (int k = 0; k < 12; k++) { sd[k] = rchance(0.5) ? md.dims[k] : ri64x(); so[k] = rchance(0.5) ? 0 : ri64x(); }
    st = dnnl_memory_desc_init_submemory(&out, &md, sd, so);
    CHECK(OKST(st));
    dnnl_memory_t m;
    st = dnnl_memory_create(&m, &md, eng, DNNL_MEMORY_NONE);
    CHECK(OKST(st));
    if (st == dnnl_success) dnnl_memory_destroy(m);
    if (size <= (1u << 20) || size >= (1ULL << 40)) {
        st = dnnl_memory_create(&m, &md, eng, DNNL_MEMORY_ALLOCATE);
        CHECK(OKST(st));
        if (st == dnnl_success) {
            void *h = NULL;
            CHECK(dnnl_memory_get_data_handle(m, &h) == dnnl_success);
            /* The library's allocation must hold get_size bytes (valgrind checks). */
            if (h && size <= (1u << 20)) memset(h, 0x5a, size);
            dnnl_memory_destroy(m);
        }
    }
}

static void *exact(size_t n) {
    void *p = malloc(n ? n : 1);
    rfill(p, n);
    return p;
}

static void pd_case(void) {
    int nd = (int)rrange(3, 5);
    dnnl_dims_t a = {0}, b = {0};
    for (int d = 0; d < nd; d++) {
        a[d] = rchance(0.03) ? 0 : rrange(1, 6);
        b[d] = d < 2 ? a[d] : rrange(1, 9);
    }
    dnnl_memory_desc_t fin, fout;
    valid_md(&fin, nd, a);
    valid_md(&fout, nd, b);
    if (rchance(0.4)) mutate(rchance(0.5) ? &fin : &fout);
    if (rchance(0.3)) fout.format_kind = dnnl_format_kind_any;
    int forward = rchance(0.65);
    dnnl_alg_kind_t alg = rchance(0.5) ? dnnl_resampling_nearest : dnnl_resampling_linear;
    float factors[3] = {rf32x(), rf32x(), rf32x()};
    dnnl_resampling_desc_t rd;
    int use_f = rchance(0.2);
    dnnl_status_t st = forward
        ? dnnl_resampling_forward_desc_init(&rd, dnnl_forward_inference, alg, use_f ? factors : NULL, &fin, use_f ? NULL : &fout)
        : dnnl_resampling_backward_desc_init(&rd, alg, use_f ? factors : NULL, &fin, use_f ? NULL : &fout);
    CHECK(OKST(st));
    if (st != dnnl_success) return;
    dnnl_primitive_attr_t attr = NULL;
    int bin_pos = 0;
    if (forward && rchance(0.3)) {
        dnnl_post_ops_t po;
        dnnl_post_ops_create(&po);
        dnnl_post_ops_append_sum(po, rf32x());
        dnnl_post_ops_append_eltwise(po, 1.0f, rchance(0.8) ? dnnl_eltwise_relu : (dnnl_alg_kind_t)rnext(), rf32x(), rf32x());
        if (rchance(0.5)) {
            dnnl_memory_desc_t bmd = rd.dst_desc;
            if (bmd.format_kind == dnnl_format_kind_any || rchance(0.5)) {
                dnnl_dims_t bd;
                memcpy(bd, bmd.dims, sizeof bd);
                for (int d = 0; d < nd; d++) if (rchance(0.5)) bd[d] = 1;
                dnnl_memory_desc_init_by_tag(&bmd, nd, bd, dnnl_f32, nd == 3 ? dnnl_abc : nd == 4 ? dnnl_abcd : dnnl_abcde);
            }
            bin_pos = dnnl_post_ops_len(po);
            dnnl_post_ops_append_binary(po, dnnl_binary_add + (dnnl_alg_kind_t)rrange(0, 11), &bmd);
        }
        dnnl_primitive_attr_create(&attr);
        dnnl_primitive_attr_set_post_ops(attr, po);
        dnnl_post_ops_destroy(po);
    }
    dnnl_primitive_desc_t pd;
    st = dnnl_primitive_desc_create(&pd, &rd, attr, eng, NULL);
    CHECK(OKST(st));
    dnnl_primitive_attr_destroy(attr);
    if (st != dnnl_success) return;
    for (int q = 0; q < 300; q++) {
        uint64_t res[8];
        int idx = (int)rrange(-1, 1);
        dnnl_status_t qs = dnnl_primitive_desc_query(pd, (dnnl_query_t)q, idx, res);
        if (!OKST(qs)) printf("query %d index %d -> %d\n", q, idx, (int)qs);
        CHECK(OKST(qs));
        const dnnl_memory_desc_t *m = dnnl_primitive_desc_query_md(pd, (dnnl_query_t)q, 0);
        if (m) (void)dnnl_memory_desc_get_size(m);
    }
    dnnl_primitive_t prim;
    CHECK(dnnl_primitive_create(&prim, pd) == dnnl_success);
    int nin = dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0);
    const dnnl_memory_desc_t *imd = dnnl_primitive_desc_query_md(pd, forward ? dnnl_query_src_md : dnnl_query_diff_dst_md, 0);
    const dnnl_memory_desc_t *omd = dnnl_primitive_desc_query_md(pd, forward ? dnnl_query_dst_md : dnnl_query_diff_src_md, 0);
    size_t isz = dnnl_memory_desc_get_size(imd), osz = dnnl_memory_desc_get_size(omd);
    if (isz <= (1u << 20) && osz <= (1u << 20) && imd->offset0 == 0 && omd->offset0 == 0) {
        dnnl_exec_arg_t args[8];
        void *bufs[8];
        int n = 0, ok = 1;
        dnnl_memory_t mems[8];
        const dnnl_memory_desc_t *mds[8] = {imd, omd};
        int argv[8] = {forward ? DNNL_ARG_SRC : DNNL_ARG_DIFF_DST, forward ? DNNL_ARG_DST : DNNL_ARG_DIFF_SRC};
        for (int k = 0; k + 1 < nin && k < 6; k++) {
            argv[2 + k] = DNNL_ARG_ATTR_MULTIPLE_POST_OP(bin_pos) | DNNL_ARG_SRC_1;
            mds[2 + k] = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, argv[2 + k]);
        }
        for (int k = 0; k < nin + 1 && k < 8; k++) {
            size_t sz = dnnl_memory_desc_get_size(mds[k]);
            bufs[k] = exact(sz);
            if (dnnl_memory_create(&mems[k], mds[k], eng, bufs[k]) != dnnl_success) { ok = 0; free(bufs[k]); break; }
            args[k].arg = argv[k];
            args[k].memory = mems[k];
            n++;
        }
        if (ok) {
            st = dnnl_primitive_execute(prim, strm, n, args);
            if (st != dnnl_success) printf("execute -> %d (nin %d, n %d)\n", (int)st, nin, n);
            CHECK(st == dnnl_success);
            /* Wrong arguments: refused. */
            CHECK(dnnl_primitive_execute(prim, strm, 1, args) == dnnl_invalid_arguments);
            CHECK(dnnl_primitive_execute(prim, strm, -1, args) == dnnl_invalid_arguments);
            CHECK(dnnl_primitive_execute(prim, NULL, n, args) == dnnl_invalid_arguments);
        }
        for (int k = 0; k < n; k++) { dnnl_memory_destroy(mems[k]); free(bufs[k]); }
    }
    dnnl_primitive_destroy(prim);
    CHECK(dnnl_primitive_destroy(prim) == dnnl_invalid_arguments);
    dnnl_primitive_desc_destroy(pd);
}

int main(void) {
    ROBUST_BEGIN(600);
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0) == dnnl_success);
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags) == dnnl_success);
    for (unsigned long long i = 0; i < ncases; i++) {
        CASE_SEED(i);
        md_case();
        pd_case();
    }
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    ROBUST_END();
}
