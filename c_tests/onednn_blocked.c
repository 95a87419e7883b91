// link: -lm
/* oneDNN face, blocked channel layouts aBc/aBcd/aBcde with blocks 4, 8, 16, 32 (nCw8c,
 * nChw16c, ...), checked against formulas and the plain-C model of onednn_common.h:
 *  - dnnl_memory_desc_init_by_tag: padded C = round up to the block, strides from the
 *    padded sizes, dnnl_memory_desc_get_size = N * Cp * spatial * element size;
 *  - pds for C = 1, 3, 8, 16, 17, 32, 33 in 3D/4D/5D, forward and backward, nearest and
 *    linear, dst / diff_src given, format_tag_any (resolves to the src tag), plain, and
 *    forward pds created from factors only (dst dims = floor(src * factor));
 *  - outputs: logical values as the model, every padding lane zero although the input's
 *    padding holds garbage and the output starts as garbage. */
#include "onednn_common.h"

static dnnl_engine_t eng;
static dnnl_stream_t strm;

typedef struct { int nd, blk; dnnl_format_tag_t tag; } btag_t;
static const btag_t BT[] = {
    {3, 4, dnnl_aBc4b}, {3, 8, dnnl_aBc8b}, {3, 16, dnnl_aBc16b}, {3, 32, dnnl_aBc32b},
    {4, 4, dnnl_aBcd4b}, {4, 8, dnnl_aBcd8b}, {4, 16, dnnl_aBcd16b}, {4, 32, dnnl_aBcd32b},
    {5, 4, dnnl_aBcde4b}, {5, 8, dnnl_aBcde8b}, {5, 16, dnnl_aBcde16b}, {5, 32, dnnl_aBcde32b},
};
static const dnnl_format_tag_t PLAIN[6] = {0, 0, 0, dnnl_ncw, dnnl_nchw, dnnl_ncdhw};

/* the md of a blocked tag, checked against the formulas */
static void check_md(const dnnl_memory_desc_t *md, const btag_t *t, dnnl_data_type_t dt) {
    int nd = t->nd;
    int64_t cp = (md->dims[1] + t->blk - 1) / t->blk * t->blk, sp = 1;
    for (int d = 2; d < nd; d++) sp *= md->dims[d];
    CHECK(md->format_kind == dnnl_blocked && md->ndims == nd);
    CHECK(md->padded_dims[0] == md->dims[0] && md->padded_dims[1] == cp);
    const dnnl_blocking_desc_t *b = &md->format_desc.blocking;
    CHECK(b->inner_nblks == 1 && b->inner_blks[0] == t->blk && b->inner_idxs[0] == 1);
    int64_t s = t->blk;
    for (int d = nd - 1; d >= 2; d--) { CHECK(b->strides[d] == s); s *= md->dims[d]; }
    CHECK(b->strides[1] == s);
    CHECK(b->strides[0] == s * (cp / t->blk));
    CHECK(dnnl_memory_desc_get_size(md) == (size_t)(md->dims[0] * cp * sp) * dt_size(dt));
}

/* fills a whole buffer with garbage, then the logical elements with model values */
static void fill_garbage(const dnnl_memory_desc_t *md, void *buf) {
    size_t n = dnnl_memory_desc_get_size(md);
    for (size_t i = 0; i < n; i++) ((unsigned char *)buf)[i] = (unsigned char)(rnd() | 1);
    fill_md(md, buf);
}

/* all padding lanes of a blocked output are zero */
static int padding_zero(const dnnl_memory_desc_t *md, const void *buf) {
    int nd = md->ndims, ok = 1;
    int64_t idx[5] = {0};
    size_t es = dt_size(md->data_type);
    int64_t total = 1;
    for (int d = 0; d < nd; d++) total *= md->padded_dims[d];
    for (int64_t e = 0; e < total; e++) {
        int64_t r = e;
        for (int d = nd - 1; d >= 0; d--) { idx[d] = r % md->padded_dims[d]; r /= md->padded_dims[d]; }
        if (idx[1] < md->dims[1]) continue;
        const unsigned char *p = (const unsigned char *)buf + md_off(md, idx) * (int64_t)es;
        for (size_t k = 0; k < es; k++) ok &= p[k] == 0;
    }
    return ok;
}

/* kind: 0 = output with the same tag, 1 = format any, 2 = plain output, 3 = factors only */
static int run(const btag_t *t, int64_t C, int bwd, int linear, int kind, dnnl_data_type_t sdt, dnnl_data_type_t ddt) {
    int nd = t->nd;
    dnnl_dims_t in = {2, C, 5, 3, 4}, out = {2, C, 3, 7, 2};
    if (nd == 3) { in[2] = 6; out[2] = 9; }
    if (nd == 4) { in[2] = 3; in[3] = 5; out[2] = 5; out[3] = 2; }
    float factors[3] = {1.5f, 0.5f, 2.f};
    if (kind == 3) /* dst dims from factors (truncated product) */
        for (int d = 2; d < nd; d++) out[d] = (dnnl_dim_t)((float)in[d] * factors[d - 2]);
    dnnl_format_tag_t otag = kind == 0 ? t->tag : kind == 2 ? PLAIN[nd] : dnnl_format_tag_any;
    dnnl_alg_kind_t alg = linear ? dnnl_resampling_linear : dnnl_resampling_nearest;
    dnnl_memory_desc_t fin, fout; /* forward input / output descs */
    dnnl_resampling_desc_t rd;
    dnnl_primitive_desc_t pd, hint = NULL;
    dnnl_status_t s;
    if (!bwd) {
        CHECK_ST(dnnl_memory_desc_init_by_tag(&fin, nd, in, sdt, t->tag), dnnl_success);
        check_md(&fin, t, sdt);
        CHECK_ST(dnnl_memory_desc_init_by_tag(&fout, nd, out, ddt, otag), dnnl_success);
        CHECK_ST(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, alg, kind == 3 ? factors : NULL, &fin,
                                                   kind == 3 ? NULL : &fout), dnnl_success);
        s = dnnl_primitive_desc_create(&pd, &rd, NULL, eng, NULL);
    } else {
        /* fin = diff_src (maybe any), fout = diff_dst (blocked) */
        dnnl_memory_desc_t hs, hd;
        dnnl_resampling_desc_t hrd;
        dnnl_memory_desc_init_by_tag(&hs, nd, in, ddt, t->tag);
        dnnl_memory_desc_init_by_tag(&hd, nd, out, sdt, dnnl_format_tag_any);
        dnnl_resampling_forward_desc_init(&hrd, dnnl_forward_training, alg, NULL, &hs, &hd);
        CHECK_ST(dnnl_primitive_desc_create(&hint, &hrd, NULL, eng, NULL), dnnl_success);
        CHECK_ST(dnnl_memory_desc_init_by_tag(&fin, nd, in, ddt, otag), dnnl_success);
        CHECK_ST(dnnl_memory_desc_init_by_tag(&fout, nd, out, sdt, t->tag), dnnl_success);
        check_md(&fout, t, sdt);
        CHECK_ST(dnnl_resampling_backward_desc_init(&rd, alg, NULL, &fin, &fout), dnnl_success);
        s = dnnl_primitive_desc_create(&pd, &rd, NULL, eng, hint);
        dnnl_primitive_desc_destroy(hint);
    }
    CHECK_ST(s, dnnl_success);
    if (s != dnnl_success) return 1;
    const dnnl_memory_desc_t *imd = dnnl_primitive_desc_query_md(pd, bwd ? dnnl_query_diff_dst_md : dnnl_query_src_md, 0);
    const dnnl_memory_desc_t *omd = dnnl_primitive_desc_query_md(pd, bwd ? dnnl_query_diff_src_md : dnnl_query_dst_md, 0);
    /* the written tensor: as given, or any / factors resolved to the blocked tag */
    if (kind == 2) CHECK(omd->format_desc.blocking.inner_nblks == 0);
    else {
        dnnl_memory_desc_t want;
        dnnl_memory_desc_init_by_tag(&want, nd, bwd ? in : out, ddt, t->tag);
        if (kind == 3) want.data_type = sdt;
        CHECK(dnnl_memory_desc_equal(omd, &want));
        if (kind != 2) check_md(omd, t, omd->data_type);
    }
    dnnl_primitive_t prim;
    CHECK_ST(dnnl_primitive_create(&prim, pd), dnnl_success);
    size_t ni = dnnl_memory_desc_get_size(imd), no = dnnl_memory_desc_get_size(omd);
    void *ib = malloc(ni + 1), *ob = malloc(no + 1);
    fill_garbage(imd, ib);
    memset(ob, 0xA5, no);
    dnnl_memory_t mi, mo;
    dnnl_memory_create(&mi, imd, eng, ib);
    dnnl_memory_create(&mo, omd, eng, ob);
    dnnl_exec_arg_t args[2] = {{bwd ? DNNL_ARG_DIFF_DST : DNNL_ARG_SRC, mi}, {bwd ? DNNL_ARG_DIFF_SRC : DNNL_ARG_DST, mo}};
    CHECK_ST(dnnl_primitive_execute(prim, strm, 2, args), dnnl_success);
    float *exp = bwd ? model_backward(linear, omd, imd, ib) : model_forward(linear, imd, ib, omd);
    int bad = compare_out(linear, omd, ob, exp, NULL);
    CHECK(bad == 0);
    if (omd->padded_dims[1] > omd->dims[1]) CHECK(padding_zero(omd, ob));
    if (bad) printf("  case nd=%d blk=%d C=%lld bwd=%d linear=%d kind=%d sdt=%d ddt=%d\n", nd, t->blk, (long long)C, bwd, linear, kind, sdt, ddt);
    free(exp);
    dnnl_memory_destroy(mi);
    dnnl_memory_destroy(mo);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    free(ib);
    free(ob);
    return bad;
}

int main(void) {
    CHECK_ST(dnnl_engine_create(&eng, dnnl_cpu, 0), dnnl_success);
    CHECK_ST(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags), dnnl_success);
    static const dnnl_data_type_t dts[5] = {dnnl_f32, dnnl_bf16, dnnl_s32, dnnl_s8, dnnl_u8};
    static const int64_t cs[7] = {1, 3, 8, 16, 17, 32, 33};
    int k = 0, bad = 0;
    for (size_t ti = 0; ti < sizeof BT / sizeof BT[0]; ti++)
        for (int ci = 0; ci < 7; ci++)
            for (int bwd = 0; bwd < 2; bwd++)
                for (int linear = 0; linear < 2; linear++)
                    for (int kind = 0; kind < 4; kind++) {
                        if (kind == 3 && bwd) continue;
                        dnnl_data_type_t sdt = dts[k % 5], ddt = dts[(k / 5) % 5];
                        if (bwd && (sdt == dnnl_s32 || ddt == dnnl_s32)) sdt = ddt = dnnl_f32; /* sums stay exact */
                        k++;
                        bad += run(&BT[ti], cs[ci], bwd, linear, kind, sdt, kind == 3 ? sdt : ddt);
                    }
    CHECK(bad == 0);
    /* sizes of a few named layouts (docs/spec/onednn.md section 10) */
    dnnl_dims_t d = {2, 19, 5, 7};
    dnnl_memory_desc_t m;
    dnnl_memory_desc_init_by_tag(&m, 4, d, dnnl_f32, dnnl_nChw16c);
    CHECK(dnnl_memory_desc_get_size(&m) == 8960 && m.padded_dims[1] == 32);
    dnnl_memory_desc_init_by_tag(&m, 4, d, dnnl_f32, dnnl_nChw8c);
    CHECK(dnnl_memory_desc_get_size(&m) == 2 * 24 * 35 * 4 && m.format_desc.blocking.strides[0] == 840);
    dnnl_memory_desc_init_by_tag(&m, 4, d, dnnl_f32, dnnl_aBcd4b);
    CHECK(m.format_desc.blocking.strides[0] == 700 && m.format_desc.blocking.strides[1] == 140);
    d[0] = 0;
    dnnl_memory_desc_init_by_tag(&m, 4, d, dnnl_f32, dnnl_nChw16c);
    CHECK(dnnl_memory_desc_get_size(&m) == 0);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    FINISH();
}
