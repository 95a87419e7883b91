/* Post-ops and attributes of the oneDNN face (docs/spec/onednn.md sections 4.1, 6, 7.2):
 * random chains of sum / eltwise (every forward algorithm) / binary (every operator, scalar,
 * per-channel, per-spatial and full src1 in several data types and layouts, format any)
 * over plain, nhwc and blocked layouts and every dst data type, compared against an
 * independent C model (the resampling model of onednn_common.h followed by the post-op
 * formulas of section 6.1, written here from the spec); plus the attribute and post-op
 * API rules and every refusal. */
#include "onednn_common.h"

static dnnl_engine_t eng;
static dnnl_stream_t strm;

/* ---- model of the eltwise formulas (section 6.1) ---- */
static float soft_relu_m(float s) { return s < 88.72283172607421875f ? log1pf(expf(s)) : s; }
static float logistic_m(float s) { return -s < 88.72283172607421875f ? 1.f / (1.f + expf(-s)) : 0.f; }
static float bounded_relu_m(float s, float a) { s = s > 0 ? s : 0; return s > a ? a : s; }
static float eltwise_m(int alg, float s, float a, float b) {
    switch (alg) {
    case dnnl_eltwise_relu: case dnnl_eltwise_relu_use_dst_for_bwd: return s > 0 ? s : s * a;
    case dnnl_eltwise_tanh: case dnnl_eltwise_tanh_use_dst_for_bwd: return tanhf(s);
    case dnnl_eltwise_elu: case dnnl_eltwise_elu_use_dst_for_bwd: return s > 0 ? s : a * expm1f(s);
    case dnnl_eltwise_square: return s * s;
    case dnnl_eltwise_abs: return s > 0 ? s : -s;
    case dnnl_eltwise_sqrt: case dnnl_eltwise_sqrt_use_dst_for_bwd: return sqrtf(s);
    case dnnl_eltwise_linear: return a * s + b;
    case dnnl_eltwise_bounded_relu: return bounded_relu_m(s, a);
    case dnnl_eltwise_soft_relu: return soft_relu_m(s);
    case dnnl_eltwise_logistic: case dnnl_eltwise_logistic_use_dst_for_bwd: return logistic_m(s);
    case dnnl_eltwise_exp: case dnnl_eltwise_exp_use_dst_for_bwd: return expf(s);
    case dnnl_eltwise_gelu_tanh: {
        float v = tanhf(0.79788458347320556640625f * s * (1 + 0.044715f * s * s));
        return (float)(0.5 * s * (1. + v));
    }
    case dnnl_eltwise_swish: return s * logistic_m(a * s);
    case dnnl_eltwise_log: return logf(s);
    case dnnl_eltwise_clip: s = s > a ? s : a; return s > b ? b : s;
    case dnnl_eltwise_clip_v2: case dnnl_eltwise_clip_v2_use_dst_for_bwd: s = s > a ? s : a; return s < b ? s : b;
    case dnnl_eltwise_pow: return a * powf(s, b);
    case dnnl_eltwise_gelu_erf: return 0.5f * s * (1.f + erff(s * 0.707106769084930419921875f));
    case dnnl_eltwise_round: return nearbyintf(s);
    case dnnl_eltwise_logsigmoid: return -soft_relu_m(-s);
    case dnnl_eltwise_mish: return s * tanhf(soft_relu_m(s));
    case dnnl_eltwise_hardswish: return (s / 6.f) * bounded_relu_m(s + 3.f, 6.f);
    }
    return NAN;
}
static float binary_m(int alg, float x, float y) {
    switch (alg) {
    case dnnl_binary_add: return x + y;
    case dnnl_binary_mul: return x * y;
    case dnnl_binary_max: return x > y ? x : y;
    case dnnl_binary_min: return x < y ? x : y;
    case dnnl_binary_div: return x / y;
    case dnnl_binary_sub: return x - y;
    case dnnl_binary_ge: return x >= y;
    case dnnl_binary_gt: return x > y;
    case dnnl_binary_le: return x <= y;
    case dnnl_binary_lt: return x < y;
    case dnnl_binary_eq: return x == y;
    case dnnl_binary_ne: return x != y;
    }
    return NAN;
}

static const int ELT[] = {dnnl_eltwise_relu, dnnl_eltwise_tanh, dnnl_eltwise_elu, dnnl_eltwise_square,
    dnnl_eltwise_abs, dnnl_eltwise_sqrt, dnnl_eltwise_linear, dnnl_eltwise_bounded_relu,
    dnnl_eltwise_soft_relu, dnnl_eltwise_logistic, dnnl_eltwise_exp, dnnl_eltwise_gelu_tanh,
    dnnl_eltwise_swish, dnnl_eltwise_log, dnnl_eltwise_clip, dnnl_eltwise_clip_v2, dnnl_eltwise_pow,
    dnnl_eltwise_gelu_erf, dnnl_eltwise_round, dnnl_eltwise_logsigmoid, dnnl_eltwise_mish,
    dnnl_eltwise_hardswish, dnnl_eltwise_relu_use_dst_for_bwd, dnnl_eltwise_tanh_use_dst_for_bwd,
    dnnl_eltwise_elu_use_dst_for_bwd, dnnl_eltwise_sqrt_use_dst_for_bwd,
    dnnl_eltwise_logistic_use_dst_for_bwd, dnnl_eltwise_exp_use_dst_for_bwd,
    dnnl_eltwise_clip_v2_use_dst_for_bwd};
#define N_ELT ((int)(sizeof ELT / sizeof *ELT))
static const int BIN[] = {dnnl_binary_add, dnnl_binary_mul, dnnl_binary_max, dnnl_binary_min,
    dnnl_binary_div, dnnl_binary_sub, dnnl_binary_ge, dnnl_binary_gt, dnnl_binary_le,
    dnnl_binary_lt, dnnl_binary_eq, dnnl_binary_ne};
#define N_BIN ((int)(sizeof BIN / sizeof *BIN))
static int elt_seen[0x200], bin_seen[16], bcast_seen[5];

typedef struct { int kind, alg; float scale, alpha, beta; int zp, sum_dt; dnnl_memory_desc_t md; void *buf; } op_t;

static dnnl_format_tag_t tag_for(int nd, int kind) {
    static const dnnl_format_tag_t t[3][4] = {
        {dnnl_ncw, dnnl_nwc, dnnl_nCw8c, dnnl_nCw16c},
        {dnnl_nchw, dnnl_nhwc, dnnl_nChw8c, dnnl_nChw16c},
        {dnnl_ncdhw, dnnl_ndhwc, dnnl_nCdhw8c, dnnl_nCdhw16c}};
    return t[nd - 3][kind];
}
static const dnnl_data_type_t DTS[] = {dnnl_f32, dnnl_bf16, dnnl_s8, dnnl_u8, dnnl_s32};
static int is_int(dnnl_data_type_t dt) { return dt == dnnl_s8 || dt == dnnl_u8 || dt == dnnl_s32; }

/* one random problem with a random chain; returns mismatches */
static int one_case(int iter) {
    int nd = rnd_range(3, 5), linear = rnd() & 1;
    dnnl_dims_t sd, dd;
    sd[0] = dd[0] = rnd_range(1, 2);
    sd[1] = dd[1] = rnd_range(1, 19);
    for (int d = 2; d < nd; d++) { sd[d] = rnd_range(1, nd == 5 ? 4 : 7); dd[d] = rnd_range(1, nd == 5 ? 5 : 9); }
    dnnl_data_type_t sdt = DTS[rnd() % 5], ddt = DTS[rnd() % 5];
    int skind = rnd() % 4, dkind = rnd() % 5; /* dkind 4: format any */
    dnnl_memory_desc_t smd, dmd;
    dnnl_memory_desc_init_by_tag(&smd, nd, sd, sdt, tag_for(nd, skind));
    dnnl_memory_desc_init_by_tag(&dmd, nd, dd, ddt, dkind == 4 ? dnnl_format_tag_any : tag_for(nd, dkind));

    op_t ops[5];
    int nops = rnd_range(1, 5);
    dnnl_post_ops_t po;
    CHECK_ST(dnnl_post_ops_create(&po), dnnl_success);
    for (int k = 0; k < nops; k++) {
        op_t *o = &ops[k];
        memset(o, 0, sizeof *o);
        int r = rnd() % 3;
        o->kind = r;
        o->scale = 1.f;
        if (r == 0) { /* sum */
            o->scale = (float)rnd_range(-8, 8) / 4.f;
            o->sum_dt = (rnd() & 1) ? dnnl_data_type_undef : ddt;
            o->zp = is_int(ddt) && (rnd() & 1) ? rnd_range(-3, 3) : 0;
            if (o->zp || (rnd() & 1))
                CHECK_ST(dnnl_post_ops_append_sum_v3(po, o->scale, o->zp, o->sum_dt), dnnl_success);
            else if (o->sum_dt != dnnl_data_type_undef)
                CHECK_ST(dnnl_post_ops_append_sum_v2(po, o->scale, o->sum_dt), dnnl_success);
            else
                CHECK_ST(dnnl_post_ops_append_sum(po, o->scale), dnnl_success);
        } else if (r == 1) { /* eltwise */
            int alg;
            do {
                alg = ELT[(iter + k + rnd()) % N_ELT];
            } while (is_int(ddt) && (alg == dnnl_eltwise_log || alg == dnnl_eltwise_sqrt || alg == dnnl_eltwise_pow
                             || alg == dnnl_eltwise_sqrt_use_dst_for_bwd));
            o->alg = alg;
            o->alpha = (float)rnd_range(0, 12) / 4.f;
            o->beta = o->alpha + (float)rnd_range(0, 12) / 4.f;
            if (alg == dnnl_eltwise_pow) o->beta = (float)rnd_range(-2, 3);
            if (alg == dnnl_eltwise_linear) o->beta = (float)rnd_range(-4, 4) / 2.f;
            o->scale = (rnd() & 1) ? 1.f : (float)rnd_range(1, 8) / 4.f;
            CHECK_ST(dnnl_post_ops_append_eltwise(po, o->scale, alg, o->alpha, o->beta), dnnl_success);
            elt_seen[alg & 0x1ff] = 1;
        } else { /* binary */
            int alg;
            do {
                alg = BIN[rnd() % N_BIN];
            } while (is_int(ddt) && alg == dnnl_binary_div);
            o->alg = alg;
            bin_seen[alg - dnnl_binary_add] = 1;
            int b = rnd() % 5; /* 0 scalar, 1 per channel, 2 per last dim, 3 full, 4 per mb+spatial */
            bcast_seen[b] = 1;
            dnnl_dims_t bd;
            for (int d = 0; d < nd; d++) {
                switch (b) {
                case 0: bd[d] = 1; break;
                case 1: bd[d] = d == 1 ? dd[1] : 1; break;
                case 2: bd[d] = d == nd - 1 ? dd[d] : 1; break;
                case 3: bd[d] = dd[d]; break;
                default: bd[d] = d == 1 ? 1 : dd[d]; break;
                }
            }
            dnnl_data_type_t bdt = DTS[rnd() % 5];
            int bk = rnd() % 5;
            dnnl_format_tag_t bt = bk == 4 ? dnnl_format_tag_any : tag_for(nd, bk);
            CHECK_ST(dnnl_memory_desc_init_by_tag(&o->md, nd, bd, bdt, bt), dnnl_success);
            CHECK_ST(dnnl_post_ops_append_binary(po, alg, &o->md), dnnl_success);
        }
    }
    dnnl_primitive_attr_t attr;
    CHECK_ST(dnnl_primitive_attr_create(&attr), dnnl_success);
    CHECK_ST(dnnl_primitive_attr_set_post_ops(attr, po), dnnl_success);
    CHECK_ST(dnnl_post_ops_destroy(po), dnnl_success); /* the attr holds a copy */

    dnnl_resampling_desc_t rd;
    CHECK_ST(dnnl_resampling_forward_desc_init(&rd, (rnd() & 1) ? dnnl_forward_training : dnnl_forward_inference,
                     linear ? dnnl_resampling_linear : dnnl_resampling_nearest, NULL, &smd, &dmd), dnnl_success);
    dnnl_primitive_desc_t pd;
    dnnl_status_t st = dnnl_primitive_desc_create(&pd, &rd, attr, eng, NULL);
    CHECK_ST(st, dnnl_success);
    dnnl_primitive_attr_destroy(attr);
    if (st != dnnl_success) return 1;
    int nbin = 0;
    for (int k = 0; k < nops; k++) nbin += ops[k].kind == 2;
    CHECK(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) == 1 + nbin);
    const dnnl_memory_desc_t *rdmd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);

    dnnl_exec_arg_t args[8];
    int na = 0;
    void *sbuf = calloc(1, dnnl_memory_desc_get_size(&smd) + 1), *dbuf = calloc(1, dnnl_memory_desc_get_size(rdmd) + 1);
    fill_md(&smd, sbuf);
    fill_md(rdmd, dbuf); /* old dst values for sum */
    void *old = malloc(dnnl_memory_desc_get_size(rdmd) + 1);
    memcpy(old, dbuf, dnnl_memory_desc_get_size(rdmd));
    dnnl_memory_t sm, dm, bm[5];
    dnnl_memory_create(&sm, &smd, eng, sbuf);
    dnnl_memory_create(&dm, rdmd, eng, dbuf);
    args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SRC, sm};
    args[na++] = (dnnl_exec_arg_t){DNNL_ARG_DST, dm};
    int nb = 0;
    for (int k = 0; k < nops; k++) {
        if (ops[k].kind != 2) continue;
        int arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(k) | DNNL_ARG_SRC_1;
        const dnnl_memory_desc_t *bmd = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
        CHECK(bmd && bmd->ndims == nd && bmd->format_kind == dnnl_blocked);
        if (!bmd || bmd->format_kind != dnnl_blocked) return 1;
        ops[k].md = *bmd; /* format any resolved */
        ops[k].buf = calloc(1, dnnl_memory_desc_get_size(bmd) + 1);
        fill_md(bmd, ops[k].buf);
        dnnl_memory_create(&bm[nb], bmd, eng, ops[k].buf);
        args[na++] = (dnnl_exec_arg_t){arg, bm[nb++]};
    }
    dnnl_primitive_t prim;
    CHECK_ST(dnnl_primitive_create(&prim, pd), dnnl_success);
    if (nb > 0) /* every binary input is required */
        CHECK_ST(dnnl_primitive_execute(prim, strm, na - 1, args), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_execute(prim, strm, na, args), dnnl_success);

    /* model */
    float *exp = model_forward(linear, &smd, sbuf, rdmd);
    int64_t n = 1, idx[5], bidx[5];
    for (int d = 0; d < nd; d++) n *= dd[d];
    int bad = 0, has_elt = 0;
    for (int k = 0; k < nops; k++) has_elt |= ops[k].kind == 1;
    for (int64_t e = 0; e < n; e++) {
        int64_t r = e;
        for (int d = nd - 1; d >= 0; d--) { idx[d] = r % dd[d]; r /= dd[d]; }
        float res = exp[e];
        for (int k = 0; k < nops; k++) {
            op_t *o = &ops[k];
            if (o->kind == 0) res += o->scale * (load_el(old, md_off(rdmd, idx), ddt) - (float)o->zp);
            else if (o->kind == 1) res = o->scale * eltwise_m(o->alg, res, o->alpha, o->beta);
            else {
                for (int d = 0; d < nd; d++) bidx[d] = o->md.dims[d] == 1 ? 0 : idx[d];
                res = binary_m(o->alg, res, load_el(o->buf, md_off(&o->md, bidx), o->md.data_type));
            }
        }
        float want = round_to_dt(res, ddt);
        float got = load_el(dbuf, md_off(rdmd, idx), ddt);
        if (got == want || (isnan(got) && isnan(want)) || (isinf(got) && got == want)) continue;
        float diff = fabsf(got - want), ok;
        if (ddt == dnnl_f32) ok = diff <= (linear || has_elt ? 4e-6f : 0.f) * fmaxf(1.f, fabsf(want));
        else if (ddt == dnnl_bf16) ok = diff <= fabsf(want) / 128.f + 1e-6f;
        else ok = (linear || has_elt) && diff <= 1.f && fabsf(fabsf(res - floorf(res)) - 0.5f) < 1e-3f;
        if (!ok) {
            if (bad < 3)
                printf("  case %d (%dD %s sdt %d ddt %d, %d ops) at %lld: got %.9g want %.9g\n", iter, nd,
                        linear ? "linear" : "nearest", sdt, ddt, nops, (long long)e, got, want);
            bad++;
        }
    }
    CHECK(bad == 0);
    free(exp);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(sm);
    dnnl_memory_destroy(dm);
    for (int k = 0; k < nb; k++) dnnl_memory_destroy(bm[k]);
    for (int k = 0; k < nops; k++) free(ops[k].buf);
    free(sbuf); free(dbuf); free(old);
    return bad;
}

/* pd creation status for an attr on a small problem */
static dnnl_status_t pd_status(dnnl_prop_kind_t prop, dnnl_data_type_t ddt, const_dnnl_primitive_attr_t attr) {
    dnnl_dims_t sd = {2, 3, 4, 5}, dd = {2, 3, 6, 7};
    dnnl_memory_desc_t s, d;
    dnnl_memory_desc_init_by_tag(&s, 4, sd, dnnl_f32, dnnl_nhwc);
    dnnl_memory_desc_init_by_tag(&d, 4, dd, ddt, dnnl_nhwc);
    dnnl_resampling_desc_t rd;
    if (prop == dnnl_backward_data) dnnl_resampling_backward_desc_init(&rd, dnnl_resampling_linear, NULL, &s, &d);
    else dnnl_resampling_forward_desc_init(&rd, prop, dnnl_resampling_linear, NULL, &s, &d);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_primitive_desc_create(&pd, &rd, attr, eng, NULL);
    dnnl_primitive_desc_destroy(pd);
    return st;
}

static dnnl_primitive_attr_t attr_with(dnnl_post_ops_t po) {
    dnnl_primitive_attr_t a;
    dnnl_primitive_attr_create(&a);
    if (po) { dnnl_primitive_attr_set_post_ops(a, po); dnnl_post_ops_destroy(po); }
    return a;
}
static dnnl_post_ops_t new_po(void) { dnnl_post_ops_t p; dnnl_post_ops_create(&p); return p; }

static void api_rules(void) {
    dnnl_post_ops_t po = new_po();
    CHECK(dnnl_post_ops_len(po) == 0);
    CHECK(dnnl_post_ops_len(NULL) == 0);
    CHECK(dnnl_post_ops_get_kind(po, 0) == dnnl_undefined_primitive);
    CHECK_ST(dnnl_post_ops_append_sum(po, 0.5f), dnnl_success);
    CHECK_ST(dnnl_post_ops_append_sum_v3(po, 2.f, 3, dnnl_u8), dnnl_success);
    CHECK_ST(dnnl_post_ops_append_eltwise(po, 1.5f, dnnl_eltwise_clip, -1.f, 2.f), dnnl_success);
    /* eltwise parameter checks of oneDNN 2.6 (is_eltwise_ok) */
    CHECK_ST(dnnl_post_ops_append_eltwise(po, 1.f, 12345, 0, 0), dnnl_invalid_arguments);
    CHECK_ST(dnnl_post_ops_append_eltwise(po, 1.f, dnnl_binary_add, 0, 0), dnnl_invalid_arguments);
    CHECK_ST(dnnl_post_ops_append_eltwise(po, 1.f, dnnl_eltwise_bounded_relu, -1.f, 0), dnnl_invalid_arguments);
    CHECK_ST(dnnl_post_ops_append_eltwise(po, 1.f, dnnl_eltwise_clip, 2.f, 1.f), dnnl_invalid_arguments);
    CHECK_ST(dnnl_post_ops_append_eltwise(po, 1.f, dnnl_eltwise_relu_use_dst_for_bwd, -1.f, 0), dnnl_invalid_arguments);
    dnnl_memory_desc_t bmd;
    dnnl_dims_t bd = {1, 3, 1, 1};
    dnnl_memory_desc_init_by_tag(&bmd, 4, bd, dnnl_f32, dnnl_nchw);
    CHECK_ST(dnnl_post_ops_append_binary(po, dnnl_binary_ge, &bmd), dnnl_success);
    CHECK_ST(dnnl_post_ops_append_binary(po, dnnl_binary_add, NULL), dnnl_invalid_arguments);
    CHECK_ST(dnnl_post_ops_append_binary(po, dnnl_eltwise_relu, &bmd), dnnl_invalid_arguments);
    CHECK_ST(dnnl_post_ops_append_binary(po, 0x1fffc, &bmd), dnnl_invalid_arguments);
    CHECK(dnnl_post_ops_len(po) == 4);
    CHECK(dnnl_post_ops_get_kind(po, 0) == dnnl_sum && dnnl_post_ops_get_kind(po, 2) == dnnl_eltwise);
    CHECK(dnnl_post_ops_get_kind(po, 3) == dnnl_binary && dnnl_post_ops_get_kind(po, 4) == dnnl_undefined_primitive);
    float sc = 0, al = 0, be = 0;
    int32_t zp = 0;
    dnnl_data_type_t dt = 0;
    dnnl_alg_kind_t alg = 0;
    const dnnl_memory_desc_t *m1 = NULL;
    CHECK_ST(dnnl_post_ops_get_params_sum(po, 0, &sc), dnnl_success);
    CHECK(sc == 0.5f);
    CHECK_ST(dnnl_post_ops_get_params_sum_v3(po, 1, &sc, &zp, &dt), dnnl_success);
    CHECK(sc == 2.f && zp == 3 && dt == dnnl_u8);
    CHECK_ST(dnnl_post_ops_get_params_sum_v2(po, 1, &sc, &dt), dnnl_success);
    CHECK_ST(dnnl_post_ops_get_params_sum(po, 2, &sc), dnnl_invalid_arguments);
    CHECK_ST(dnnl_post_ops_get_params_sum(po, 9, &sc), dnnl_invalid_arguments);
    CHECK_ST(dnnl_post_ops_get_params_eltwise(po, 2, &sc, &alg, &al, &be), dnnl_success);
    CHECK(sc == 1.5f && alg == dnnl_eltwise_clip && al == -1.f && be == 2.f);
    CHECK_ST(dnnl_post_ops_get_params_eltwise(po, 0, &sc, &alg, &al, &be), dnnl_invalid_arguments);
    CHECK_ST(dnnl_post_ops_get_params_binary(po, 3, &alg, &m1), dnnl_success);
    CHECK(alg == dnnl_binary_ge && m1 && dnnl_memory_desc_equal(m1, &bmd));

    /* attr: set copies, get returns the attr's own read-only chain, clone is deep */
    dnnl_primitive_attr_t a, c;
    CHECK_ST(dnnl_primitive_attr_create(&a), dnnl_success);
    const_dnnl_post_ops_t got = NULL;
    CHECK_ST(dnnl_primitive_attr_get_post_ops(a, &got), dnnl_success);
    CHECK(got && dnnl_post_ops_len(got) == 0);
    CHECK_ST(dnnl_primitive_attr_set_post_ops(a, po), dnnl_success);
    CHECK_ST(dnnl_primitive_attr_set_post_ops(a, NULL), dnnl_invalid_arguments);
    CHECK_ST(dnnl_post_ops_destroy(po), dnnl_success);
    CHECK_ST(dnnl_primitive_attr_get_post_ops(a, &got), dnnl_success);
    CHECK(got != (const_dnnl_post_ops_t)po && dnnl_post_ops_len(got) == 4);
    CHECK_ST(dnnl_post_ops_append_sum((dnnl_post_ops_t)got, 1.f), dnnl_invalid_arguments); /* read-only */
    CHECK_ST(dnnl_post_ops_destroy((dnnl_post_ops_t)got), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_attr_clone(&c, a), dnnl_success);
    CHECK_ST(dnnl_primitive_attr_destroy(a), dnnl_success);
    CHECK_ST(dnnl_primitive_attr_get_post_ops(c, &got), dnnl_success);
    CHECK(dnnl_post_ops_len(got) == 4);
    CHECK_ST(dnnl_post_ops_get_params_binary(got, 3, &alg, &m1), dnnl_success);
    CHECK(alg == dnnl_binary_ge && m1->dims[1] == 3);
    CHECK_ST(dnnl_primitive_attr_clone(&a, NULL), dnnl_invalid_arguments);
    dnnl_primitive_attr_destroy(c);

    /* scales, zero points, fpmath, scratchpad: stored; defaults as libdnnl 2.6.3 */
    CHECK_ST(dnnl_primitive_attr_create(&a), dnnl_success);
    dnnl_dim_t cnt = -1;
    int mask = -1;
    const float *scales = NULL;
    const int32_t *zps = NULL;
    CHECK_ST(dnnl_primitive_attr_get_output_scales(a, &cnt, &mask, &scales), dnnl_success);
    CHECK(cnt == 1 && mask == 0 && scales && scales[0] == 1.f);
    float two[2] = {2.f, 3.f};
    CHECK_ST(dnnl_primitive_attr_set_output_scales(a, 0, 0, two), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_attr_set_output_scales(a, 1, -1, two), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_attr_set_output_scales(a, 1, 0, NULL), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_attr_set_output_scales(a, 2, 2, two), dnnl_success);
    CHECK_ST(dnnl_primitive_attr_get_output_scales(a, &cnt, &mask, &scales), dnnl_success);
    CHECK(cnt == 2 && mask == 2 && scales[0] == 2.f && scales[1] == 3.f);
    CHECK_ST(dnnl_primitive_attr_get_scales(a, DNNL_ARG_SRC_1, &cnt, &mask, &scales), dnnl_success);
    CHECK(cnt == 1 && scales[0] == 1.f);
    CHECK_ST(dnnl_primitive_attr_get_scales(a, DNNL_ARG_DST, &cnt, &mask, &scales), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_attr_set_scales(a, DNNL_ARG_DST, 1, 0, two), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_attr_get_zero_points(a, DNNL_ARG_DST, &cnt, &mask, &zps), dnnl_success);
    CHECK(cnt == 1 && zps && zps[0] == 0);
    int32_t z = 5;
    CHECK_ST(dnnl_primitive_attr_set_zero_points(a, DNNL_ARG_DIFF_SRC, 1, 0, &z), dnnl_unimplemented);
    CHECK_ST(dnnl_primitive_attr_set_zero_points(a, DNNL_ARG_DST, 1, 0, &z), dnnl_success);
    CHECK_ST(dnnl_primitive_attr_get_zero_points(a, DNNL_ARG_DST, &cnt, &mask, &zps), dnnl_success);
    CHECK(zps[0] == 5);
    CHECK_ST(dnnl_primitive_attr_set_fpmath_mode(a, 4), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_attr_set_scratchpad_mode(a, 2), dnnl_invalid_arguments);
    dnnl_primitive_attr_destroy(a);

    /* what a resampling pd accepts (libdnnl 2.6.3 behaviour) */
    CHECK_ST(pd_status(dnnl_forward_training, dnnl_f32, NULL), dnnl_success);
    CHECK_ST(dnnl_primitive_attr_create(&a), dnnl_success);
    float one = 1.f;
    CHECK_ST(dnnl_primitive_attr_set_output_scales(a, 1, 0, &one), dnnl_success); /* default value */
    z = 0;
    CHECK_ST(dnnl_primitive_attr_set_zero_points(a, DNNL_ARG_DST, 1, 0, &z), dnnl_success);
    CHECK_ST(dnnl_primitive_attr_set_fpmath_mode(a, dnnl_fpmath_mode_bf16), dnnl_success);
    CHECK_ST(dnnl_primitive_attr_set_scratchpad_mode(a, dnnl_scratchpad_mode_user), dnnl_success);
    CHECK_ST(pd_status(dnnl_forward_training, dnnl_f32, a), dnnl_success);
    CHECK_ST(pd_status(dnnl_backward_data, dnnl_f32, a), dnnl_success);
    CHECK_ST(dnnl_primitive_attr_set_output_scales(a, 1, 0, two), dnnl_success);
    CHECK_ST(pd_status(dnnl_forward_training, dnnl_f32, a), dnnl_unimplemented);
    dnnl_primitive_attr_destroy(a);
    dnnl_primitive_attr_create(&a);
    z = 1;
    dnnl_primitive_attr_set_zero_points(a, DNNL_ARG_SRC, 1, 0, &z);
    CHECK_ST(pd_status(dnnl_forward_inference, dnnl_f32, a), dnnl_unimplemented);
    dnnl_primitive_attr_destroy(a);
    dnnl_primitive_attr_create(&a);
    dnnl_primitive_attr_set_scales(a, DNNL_ARG_SRC, 1, 0, two);
    CHECK_ST(pd_status(dnnl_forward_inference, dnnl_f32, a), dnnl_unimplemented);
    dnnl_primitive_attr_destroy(a);
    dnnl_primitive_attr_create(&a);
    dnnl_primitive_attr_set_rnn_data_qparams(a, 2.f, 1.f);
    CHECK_ST(pd_status(dnnl_forward_inference, dnnl_f32, a), dnnl_unimplemented);
    dnnl_primitive_attr_destroy(a);

    po = new_po();
    dnnl_post_ops_append_sum(po, 1.f);
    a = attr_with(po);
    CHECK_ST(pd_status(dnnl_forward_inference, dnnl_f32, a), dnnl_success);
    CHECK_ST(pd_status(dnnl_backward_data, dnnl_f32, a), dnnl_unimplemented); /* any post-op on backward */
    dnnl_primitive_attr_destroy(a);
    a = attr_with(new_po()); /* an empty chain is the default */
    CHECK_ST(pd_status(dnnl_backward_data, dnnl_f32, a), dnnl_success);
    dnnl_primitive_attr_destroy(a);
    po = new_po();
    dnnl_post_ops_append_sum_v2(po, 1.f, dnnl_s8);
    a = attr_with(po);
    CHECK_ST(pd_status(dnnl_forward_inference, dnnl_f32, a), dnnl_unimplemented); /* sum dt != dst dt */
    CHECK_ST(pd_status(dnnl_forward_inference, dnnl_s8, a), dnnl_success);
    CHECK_ST(pd_status(dnnl_forward_inference, dnnl_u8, a), dnnl_unimplemented);
    dnnl_primitive_attr_destroy(a);
    po = new_po();
    dnnl_post_ops_append_prelu(po, 0);
    a = attr_with(po);
    CHECK_ST(pd_status(dnnl_forward_inference, dnnl_f32, a), dnnl_unimplemented);
    dnnl_primitive_attr_destroy(a);
    po = new_po();
    CHECK_ST(dnnl_post_ops_append_dw_k3s1p1(po, dnnl_f32, dnnl_f32, dnnl_f32, 0, 0, NULL), dnnl_success);
    a = attr_with(po);
    CHECK_ST(pd_status(dnnl_forward_inference, dnnl_f32, a), dnnl_unimplemented);
    dnnl_primitive_attr_destroy(a);
    /* binary src1 that does not broadcast to dst (libdnnl 2.6.3 accepts these and then
     * reads out of bounds; libresample refuses them) */
    dnnl_dims_t bad_dims[3] = {{1, 2, 1, 1}, {2, 3, 6, 8}, {1, 3, 1, 0}};
    int bad_nd[3] = {4, 4, 3};
    for (int k = 0; k < 3; k++) {
        po = new_po();
        dnnl_memory_desc_init_by_tag(&bmd, bad_nd[k], bad_dims[k], dnnl_f32, bad_nd[k] == 4 ? dnnl_nchw : dnnl_abc);
        dnnl_post_ops_append_binary(po, dnnl_binary_add, &bmd);
        a = attr_with(po);
        CHECK_ST(pd_status(dnnl_forward_inference, dnnl_f32, a), dnnl_unimplemented);
        dnnl_primitive_attr_destroy(a);
    }
    po = new_po();
    memset(&bmd, 0, sizeof bmd);
    dnnl_post_ops_append_binary(po, dnnl_binary_add, &bmd); /* zero md */
    a = attr_with(po);
    CHECK_ST(pd_status(dnnl_forward_inference, dnnl_f32, a), dnnl_unimplemented);
    dnnl_primitive_attr_destroy(a);
}

/* execute argument rules with binary post-ops: the src1 index is the chain position */
static void exec_rules(void) {
    dnnl_dims_t sd = {1, 2, 3}, dd = {1, 2, 5}, bd = {1, 2, 1};
    dnnl_memory_desc_t s, d, b;
    dnnl_memory_desc_init_by_tag(&s, 3, sd, dnnl_f32, dnnl_ncw);
    dnnl_memory_desc_init_by_tag(&d, 3, dd, dnnl_f32, dnnl_ncw);
    dnnl_memory_desc_init_by_tag(&b, 3, bd, dnnl_f32, dnnl_ncw);
    dnnl_post_ops_t po = new_po();
    dnnl_post_ops_append_sum(po, 1.f);
    dnnl_post_ops_append_binary(po, dnnl_binary_add, &b); /* position 1 */
    dnnl_primitive_attr_t a = attr_with(po);
    dnnl_resampling_desc_t rd;
    dnnl_resampling_forward_desc_init(&rd, dnnl_forward_inference, dnnl_resampling_nearest, NULL, &s, &d);
    dnnl_primitive_desc_t pd;
    CHECK_ST(dnnl_primitive_desc_create(&pd, &rd, a, eng, NULL), dnnl_success);
    dnnl_primitive_attr_destroy(a);
    const_dnnl_primitive_attr_t pa = NULL;
    const_dnnl_post_ops_t ppo = NULL;
    CHECK_ST(dnnl_primitive_desc_get_attr(pd, &pa), dnnl_success);
    CHECK_ST(dnnl_primitive_attr_get_post_ops(pa, &ppo), dnnl_success);
    CHECK(dnnl_post_ops_len(ppo) == 2);
    const dnnl_memory_desc_t *m = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1);
    CHECK(m && dnnl_memory_desc_equal(m, &b));
    m = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1);
    CHECK(m && m->ndims == 0);
    dnnl_primitive_t p;
    dnnl_primitive_create(&p, pd);
    float src[6] = {1, 2, 3, 4, 5, 6}, dst[10], bin[2] = {100, 200};
    for (int i = 0; i < 10; i++) dst[i] = 0.5f;
    dnnl_memory_t sm, dm, bm;
    dnnl_memory_create(&sm, &s, eng, src);
    dnnl_memory_create(&dm, &d, eng, dst);
    dnnl_memory_create(&bm, &b, eng, bin);
    dnnl_exec_arg_t wrong[3] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}, {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, bm}};
    CHECK_ST(dnnl_primitive_execute(p, strm, 3, wrong), dnnl_invalid_arguments); /* position 0 is the sum */
    dnnl_exec_arg_t dup[4] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}, {DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, bm},
        {DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, bm}};
    CHECK_ST(dnnl_primitive_execute(p, strm, 4, dup), dnnl_invalid_arguments);
    CHECK_ST(dnnl_primitive_execute(p, strm, 3, dup), dnnl_success);
    /* nearest 3->5: 0 0 1 2 2; + old 0.5 + bin[c] */
    const float want[10] = {101.5f, 101.5f, 102.5f, 103.5f, 103.5f, 204.5f, 204.5f, 205.5f, 206.5f, 206.5f};
    int ok = 1;
    for (int i = 0; i < 10; i++) ok &= dst[i] == want[i];
    CHECK(ok);
    /* in place: src1 aliasing dst is read as it was before the call */
    dnnl_memory_t alias;
    dnnl_memory_create(&alias, &b, eng, dst); /* src1 = dst[0..2] */
    dnnl_exec_arg_t al[3] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}, {DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, alias}};
    float b0 = dst[0], b1 = dst[1];
    CHECK_ST(dnnl_primitive_execute(p, strm, 3, al), dnnl_success);
    CHECK(dst[0] == 1.f + want[0] + b0 && dst[9] == 6.f + want[9] + b1);
    dnnl_memory_destroy(alias);
    dnnl_memory_destroy(sm);
    dnnl_memory_destroy(dm);
    dnnl_memory_destroy(bm);
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
}

/* The sum post-op reads the whole old dst element (oneDNN 2.3-3.2's ref:any read one byte). */
static void sum_reads_whole_element(void) {
    dnnl_dims_t sd = {1, 1, 2}, dd = {1, 1, 2};
    dnnl_data_type_t dts[3] = {dnnl_f32, dnnl_s32, dnnl_bf16};
    for (int k = 0; k < 3; k++) {
        dnnl_memory_desc_t s, d;
        dnnl_memory_desc_init_by_tag(&s, 3, sd, dnnl_f32, dnnl_ncw);
        dnnl_memory_desc_init_by_strides(&d, 3, dd, dts[k], (dnnl_dim_t[]){2, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        dnnl_post_ops_t po = new_po();
        dnnl_post_ops_append_sum(po, 1.f);
        dnnl_primitive_attr_t a = attr_with(po);
        dnnl_resampling_desc_t rd;
        dnnl_resampling_forward_desc_init(&rd, dnnl_forward_inference, dnnl_resampling_nearest, NULL, &s, &d);
        dnnl_primitive_desc_t pd;
        CHECK_ST(dnnl_primitive_desc_create(&pd, &rd, a, eng, NULL), dnnl_success);
        dnnl_primitive_attr_destroy(a);
        dnnl_primitive_t p;
        dnnl_primitive_create(&p, pd);
        float src[2] = {1.f, 2.f};
        char dst[8] = {0};
        store_el(dst, 0, dts[k], 1000.f);
        store_el(dst, 1, dts[k], 3000.f);
        dnnl_memory_t sm, dm;
        dnnl_memory_create(&sm, &s, eng, src);
        dnnl_memory_create(&dm, &d, eng, dst);
        dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}};
        CHECK_ST(dnnl_primitive_execute(p, strm, 2, args), dnnl_success);
        float o0 = round_to_dt(1000.f, dts[k]), o1 = round_to_dt(3000.f, dts[k]);
        CHECK(load_el(dst, 0, dts[k]) == round_to_dt(o0 + 1.f, dts[k]) && load_el(dst, 1, dts[k]) == round_to_dt(o1 + 2.f, dts[k]));
        dnnl_memory_destroy(sm);
        dnnl_memory_destroy(dm);
        dnnl_primitive_destroy(p);
        dnnl_primitive_desc_destroy(pd);
    }
}

int main(void) {
    CHECK_ST(dnnl_engine_create(&eng, dnnl_cpu, 0), dnnl_success);
    CHECK_ST(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags), dnnl_success);
    api_rules();
    exec_rules();
    sum_reads_whole_element();
    int bad_cases = 0;
    for (int it = 0; it < 400; it++) bad_cases += one_case(it) != 0;
    printf("random chains: %d bad cases of 400\n", bad_cases);
    for (int k = 0; k < N_ELT; k++) CHECK(elt_seen[ELT[k] & 0x1ff]);
    for (int k = 0; k < N_BIN; k++) CHECK(bin_seen[k]);
    for (int k = 0; k < 5; k++) CHECK(bcast_seen[k]);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    FINISH();
}
