/* Post-op differential check: compiled against the REAL oneDNN 2.6.3 headers, linked once
 * with -ldnnl and once with -lresample. `postops dump FILE` (libdnnl) writes every result;
 * `postops compare FILE` (libresample) recomputes and compares with benchdnn's rules
 * (docs/spec/onednn.md 12.4): exact unless linear (7 f32 ulps) or an eltwise post-op is in
 * the chain (relative or absolute 2e-5: libdnnl's jit eltwise kernels use polynomial
 * approximations); integer dst may differ by one at x.5 ties. Covers every forward eltwise
 * algorithm, every binary operator with scalar / per-channel (nhwc) and full (nchw) src1,
 * and sum with f32, bf16, s8 and u8 dst. Not compared: full src1 in nhwc (libdnnl 2.6.3's
 * simple:any reads it at the wrong offsets) and scalar src1 with comparison ops in nchw
 * (libdnnl 2.6.3's jit fails to execute them). */
#include <oneapi/dnnl/dnnl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dnnl_engine_t eng;
static dnnl_stream_t st;
static FILE *io;
static int comparing, n_cases, bad_cases, skipped;
static double worst_elt;

static float rnd_f(unsigned *s, float lo, float hi) {
    *s = *s * 1103515245u + 12345u;
    return lo + (hi - lo) * (float)((*s >> 8) & 0xffff) / 65535.f;
}
static size_t dsz(dnnl_data_type_t dt) { return dt == dnnl_f32 ? 4 : dt == dnnl_bf16 ? 2 : 1; }
static float get(const void *b, size_t i, dnnl_data_type_t dt) {
    switch (dt) {
    case dnnl_f32: return ((const float *)b)[i];
    case dnnl_bf16: { unsigned u = (unsigned)((const unsigned short *)b)[i] << 16; float f; memcpy(&f, &u, 4); return f; }
    case dnnl_s8: return ((const signed char *)b)[i];
    default: return ((const unsigned char *)b)[i];
    }
}
static void put(void *b, size_t i, dnnl_data_type_t dt, float v) {
    switch (dt) {
    case dnnl_f32: ((float *)b)[i] = v; break;
    case dnnl_bf16: { unsigned u; memcpy(&u, &v, 4); ((unsigned short *)b)[i] = (unsigned short)(u >> 16); } break;
    case dnnl_s8: ((signed char *)b)[i] = (signed char)v; break;
    default: ((unsigned char *)b)[i] = (unsigned char)v; break;
    }
}

/* one case: src f32 2x16x5x7 (nhwc or nchw) -> dst 2x16x9x4 of ddt, chain given */
static void run_case(const char *name, int linear, dnnl_format_tag_t tag, dnnl_data_type_t ddt, dnnl_post_ops_t po,
        int has_elt, int bin_pos, int bcast, unsigned seed) {
    dnnl_dims_t sd = {2, 16, 5, 7}, dd = {2, 16, 9, 4};
    dnnl_memory_desc_t s, d, b;
    dnnl_memory_desc_init_by_tag(&s, 4, sd, dnnl_f32, tag);
    dnnl_memory_desc_init_by_tag(&d, 4, dd, ddt, tag);
    if (bin_pos >= 0) {
        dnnl_dims_t bd = {bcast == 2 ? 2 : 1, bcast >= 1 ? 16 : 1, bcast == 2 ? 9 : 1, bcast == 2 ? 4 : 1};
        dnnl_memory_desc_init_by_tag(&b, 4, bd, dnnl_f32, tag);
    }
    dnnl_primitive_attr_t a;
    dnnl_primitive_attr_create(&a);
    dnnl_primitive_attr_set_post_ops(a, po);
    dnnl_resampling_desc_t rd;
    dnnl_resampling_forward_desc_init(&rd, dnnl_forward_inference, linear ? dnnl_resampling_linear : dnnl_resampling_nearest, NULL, &s, &d);
    dnnl_primitive_desc_t pd;
    /* Each dumped case starts with a byte saying whether libdnnl ran it: on CPUs without
       AVX-512 it refuses bf16 destinations, which are then left out (not counted). */
    int real_ran = comparing ? fgetc(io) : 1;
    if (comparing && real_ran == 0) {
        dnnl_primitive_attr_destroy(a);
        if (ddt == dnnl_bf16) { printf("%s: refused by libdnnl on this CPU, left out\n", name); skipped++; return; }
        printf("%s: refused by libdnnl\n", name);
        bad_cases++;
        return;
    }
    if (dnnl_primitive_desc_create(&pd, &rd, a, eng, NULL) != dnnl_success) {
        dnnl_primitive_attr_destroy(a);
        if (!comparing) fputc(0, io);
        if (!comparing && ddt == dnnl_bf16) { printf("%s: pd refused (bf16 on this CPU), left out\n", name); return; }
        printf("%s: pd refused\n", name);
        bad_cases++;
        return;
    }
    if (!comparing) fputc(1, io);
    dnnl_primitive_t p;
    dnnl_primitive_create(&p, pd);
    size_t ns = 2 * 16 * 5 * 7, ndst = 2 * 16 * 9 * 4, nb = bin_pos < 0 ? 0 : bcast == 2 ? ndst : bcast == 1 ? 16 : 1;
    float *src = malloc(ns * 4), *bin = malloc((nb + 1) * 4);
    void *dst = malloc(ndst * 4);
    for (size_t i = 0; i < ns; i++) src[i] = rnd_f(&seed, -3.f, 3.f);
    for (size_t i = 0; i < nb; i++) bin[i] = rnd_f(&seed, -2.f, 2.f);
    for (size_t i = 0; i < ndst; i++) put(dst, i, ddt, ddt == dnnl_u8 ? (float)(i % 200) : ddt == dnnl_s8 ? (float)(i % 200) - 100.f : rnd_f(&seed, -1.f, 1.f));
    dnnl_memory_t ms, md, mb = NULL;
    dnnl_memory_create(&ms, &s, eng, src);
    dnnl_memory_create(&md, &d, eng, dst);
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, md}};
    int na = 2;
    if (bin_pos >= 0) {
        dnnl_memory_create(&mb, &b, eng, bin);
        args[na++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_MULTIPLE_POST_OP(bin_pos) | DNNL_ARG_SRC_1, mb};
    }
    if (dnnl_primitive_execute(p, st, na, args) != dnnl_success) { printf("%s: execute failed\n", name); bad_cases++; }
    n_cases++;
    if (!comparing) {
        fwrite(dst, dsz(ddt), ndst, io);
    } else {
        void *ref = malloc(ndst * 4);
        if (fread(ref, dsz(ddt), ndst, io) != ndst) { printf("short reference file\n"); exit(2); }
        int bad = 0;
        double worst = 0;
        for (size_t i = 0; i < ndst; i++) {
            float e = get(ref, i, ddt), g = get(dst, i, ddt);
            if (e == g || (isnan(e) && isnan(g))) continue;
            double diff = fabs((double)e - g), rel = fabs(e) > 1e-5 ? diff / fabs(e) : diff;
            int ok;
            /* (linear: libdnnl's jit differs from ref by 1-2 ulp; the sum then cancels) */
            if (ddt == dnnl_f32) ok = rel <= (linear ? 7 * 1.1920929e-7 : 0) || (linear && diff <= 4e-6) || (has_elt && (diff <= 2e-5 || rel <= 2e-5));
            else if (ddt == dnnl_bf16) ok = rel <= 7.8125e-3 * (linear || has_elt ? 2 : 1);
            else ok = diff <= 1;
            if (has_elt && ddt == dnnl_f32 && rel > worst) worst = rel;
            if (!ok) { if (bad < 2) printf("  %s[%zu]: libdnnl %.9g libresample %.9g\n", name, i, e, g); bad++; }
        }
        if (worst > worst_elt) worst_elt = worst;
        if (worst > 2e-5) printf("  %s: worst relative difference %.3g (within 2e-5 absolute)\n", name, worst);
        if (bad) { printf("%s: %d of %zu differ\n", name, bad, ndst); bad_cases++; }
        free(ref);
    }
    dnnl_memory_destroy(ms); dnnl_memory_destroy(md); dnnl_memory_destroy(mb);
    dnnl_primitive_destroy(p); dnnl_primitive_desc_destroy(pd); dnnl_primitive_attr_destroy(a);
    free(src); free(bin); free(dst);
}

int main(int argc, char **argv) {
    if (argc != 3) { printf("usage: postops dump|compare FILE\n"); return 2; }
    comparing = !strcmp(argv[1], "compare");
    io = fopen(argv[2], comparing ? "rb" : "wb");
    if (!io) return 2;
    dnnl_engine_create(&eng, dnnl_cpu, 0);
    dnnl_stream_create(&st, eng, dnnl_stream_default_flags);
    struct { int alg; float a, b; } elt[] = {
        {dnnl_eltwise_relu, 0.f, 0}, {dnnl_eltwise_relu, 0.2f, 0}, {dnnl_eltwise_tanh, 0, 0}, {dnnl_eltwise_elu, 1.5f, 0},
        {dnnl_eltwise_square, 0, 0}, {dnnl_eltwise_abs, 0, 0}, {dnnl_eltwise_sqrt, 0, 0}, {dnnl_eltwise_linear, 2.f, -1.f},
        {dnnl_eltwise_bounded_relu, 1.5f, 0}, {dnnl_eltwise_soft_relu, 0, 0}, {dnnl_eltwise_logistic, 0, 0},
        {dnnl_eltwise_exp, 0, 0}, {dnnl_eltwise_gelu_tanh, 0, 0}, {dnnl_eltwise_swish, 1.5f, 0}, {dnnl_eltwise_log, 0, 0},
        {dnnl_eltwise_clip, -1.f, 1.5f}, {dnnl_eltwise_clip_v2, -1.f, 1.5f}, {dnnl_eltwise_pow, 1.5f, 2.f},
        {dnnl_eltwise_pow, 2.f, 0.5f}, {dnnl_eltwise_gelu_erf, 0, 0}, {dnnl_eltwise_round, 0, 0},
        {dnnl_eltwise_logsigmoid, 0, 0}, {dnnl_eltwise_mish, 0, 0}, {dnnl_eltwise_hardswish, 0, 0},
        {dnnl_eltwise_relu_use_dst_for_bwd, 0.5f, 0}, {dnnl_eltwise_tanh_use_dst_for_bwd, 0, 0},
        {dnnl_eltwise_elu_use_dst_for_bwd, 1.f, 0}, {dnnl_eltwise_sqrt_use_dst_for_bwd, 0, 0},
        {dnnl_eltwise_logistic_use_dst_for_bwd, 0, 0}, {dnnl_eltwise_exp_use_dst_for_bwd, 0, 0},
        {dnnl_eltwise_clip_v2_use_dst_for_bwd, -0.5f, 0.5f}};
    unsigned seed = 1;
    char name[96];
    for (size_t k = 0; k < sizeof elt / sizeof *elt; k++)
        for (int lin = 0; lin < 2; lin++) {
            /* nearest passes exact inputs: a check of the formula alone */
            if (lin && elt[k].alg != dnnl_eltwise_relu && elt[k].alg != dnnl_eltwise_gelu_erf) continue;
            dnnl_post_ops_t po;
            dnnl_post_ops_create(&po);
            dnnl_post_ops_append_eltwise(po, k % 3 ? 1.f : 1.25f, elt[k].alg, elt[k].a, elt[k].b);
            snprintf(name, sizeof name, "eltwise %#x %s", elt[k].alg, lin ? "linear" : "nearest");
            run_case(name, lin, k % 2 ? dnnl_nhwc : dnnl_nchw, dnnl_f32, po, 1, -1, 0, seed++);
            dnnl_post_ops_destroy(po);
        }
    for (int alg = dnnl_binary_add; alg <= dnnl_binary_ne; alg++)
        for (int bc = 0; bc < 3; bc++) {
            dnnl_post_ops_t po;
            dnnl_post_ops_create(&po);
            dnnl_post_ops_append_sum(po, 0.5f);
            dnnl_memory_desc_t b;
            dnnl_dims_t bd = {bc == 2 ? 2 : 1, bc >= 1 ? 16 : 1, bc == 2 ? 9 : 1, bc == 2 ? 4 : 1};
            dnnl_memory_desc_init_by_tag(&b, 4, bd, dnnl_f32, bc == 2 ? dnnl_nchw : dnnl_nhwc);
            dnnl_post_ops_append_binary(po, alg, &b);
            snprintf(name, sizeof name, "sum+binary %#x bcast %d", alg, bc);
            run_case(name, alg & 1, bc == 2 ? dnnl_nchw : dnnl_nhwc, dnnl_f32, po, 0, 1, bc, seed++);
            dnnl_post_ops_destroy(po);
        }
    dnnl_data_type_t dts[4] = {dnnl_f32, dnnl_bf16, dnnl_s8, dnnl_u8};
    for (int k = 0; k < 4; k++)
        for (int lin = 0; lin < 2; lin++) {
            dnnl_post_ops_t po;
            dnnl_post_ops_create(&po);
            dnnl_post_ops_append_sum(po, k == 0 ? 1.f : 0.75f);
            dnnl_post_ops_append_eltwise(po, 1.f, dnnl_eltwise_linear, 3.f, 0.5f);
            snprintf(name, sizeof name, "sum+linear dst dt %d %s", dts[k], lin ? "linear" : "nearest");
            run_case(name, lin, dnnl_nchw, dts[k], po, 1, -1, 0, seed++);
            dnnl_post_ops_destroy(po);
        }
    fclose(io);
    if (comparing) printf("postops: %d cases, %d differ, %d left out (worst eltwise relative difference %.3g)\n", n_cases, bad_cases, skipped, worst_elt);
    return bad_cases != 0;
}
