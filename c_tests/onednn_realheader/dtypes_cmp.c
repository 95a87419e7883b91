/* Differential check of the resampling primitive's data-type handling (docs/spec/onednn.md
 * section 4.2), built against the REAL oneDNN 2.6.3 header and linked with -ldnnl or
 * -lresample (run.sh). For every src x dst pair of {f32, bf16, s32, s8, u8} (f16 separately:
 * libdnnl 2.6.3 refuses it on CPU), nearest and linear, forward and backward, it prints
 * every output element in hex. Inputs mix ordinary values with edge values (ties, bf16
 * subnormals and overflow, NaN, +-inf, 3e9, s32 beyond 2^24). Layout pairs: src and dst
 * tags differ (libdnnl runs ref:any, which this library reproduces bit for bit) and, for
 * nearest, equal tags (libdnnl's jit/simple kernels).
 * A line starting with "nanint" holds NaN -> integer results, which differ between libdnnl's
 * own implementations (ref: 0 for s8/u8, INT_MIN for s32; jit: 127 / 2147483520); the
 * compare script reports those separately. NaN outputs compare equal whatever their payload.
 * Linear problems get finite inputs (see run()). */
#include <oneapi/dnnl/dnnl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dnnl_engine_t eng;
static dnnl_stream_t st;
static uint64_t rs = 0xD1B54A32D192ED03ull;
static uint32_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (uint32_t)(rs >> 11); }
static const char *dtn(dnnl_data_type_t d) {
    switch (d) { case dnnl_f32: return "f32"; case dnnl_bf16: return "bf16"; case dnnl_f16: return "f16";
    case dnnl_s32: return "s32"; case dnnl_s8: return "s8"; case dnnl_u8: return "u8"; default: return "?"; }
}
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static void put(void *buf, size_t i, dnnl_data_type_t dt, int with_nan, int finite) {
    static const uint32_t sp[] = {0x3F000000u, 0x3FC00000u, 0x40200000u, 0xBFC00000u, 0xC0900000u, 0x427F0000u,
                                  0x433F4000u, 0xC3963333u, 0x4F32D05Eu, 0xCF32D05Eu, 0x7F7FFFFFu, 0xFF7FFFFFu,
                                  0x00000001u, 0x80000001u, 0x00800000u, 0x7F800000u, 0xFF800000u, 0x4B800001u,
                                  0x3F808000u, 0x3F818000u, 0x80000000u, 0x4EFFFFFFu};
    float f;
    uint32_t r = rnd();
    if (with_nan && !finite && r % 11 == 0) f = u2f(r % 2 ? 0x7FC00000u : 0xFF812345u);
    else if (r % 3 == 0) f = u2f(sp[rnd() % 22]);
    else f = (float)((int)(rnd() % 2001) - 1000) / 8.f;
    if (finite && !isfinite(f)) f = -17.25f;
    switch (dt) {
    case dnnl_f32: ((float *)buf)[i] = f; break;
    case dnnl_bf16: ((uint16_t *)buf)[i] = (uint16_t)(f2u(f) >> 16); break;
    case dnnl_f16: ((uint16_t *)buf)[i] = (uint16_t)(r % 5 == 0 && !finite ? rnd() : 0x3000 + rnd() % 0x2800); break;
    case dnnl_s32: {
        static const int32_t is[] = {16777217, -16777217, 2147483647, INT32_MIN, 123456789, 200, -5, 255, 256};
        ((int32_t *)buf)[i] = r % 3 == 0 ? is[rnd() % 9] : (int32_t)(rnd() % 2001) - 1000;
    } break;
    case dnnl_s8: ((int8_t *)buf)[i] = (int8_t)rnd(); break;
    default: ((uint8_t *)buf)[i] = (uint8_t)rnd(); break;
    }
}

static void print_buf(const void *buf, size_t n, dnnl_data_type_t dt) {
    for (size_t i = 0; i < n; i++) {
        switch (dt) {
        case dnnl_f32: case dnnl_s32: printf(" %08x", ((const uint32_t *)buf)[i]); break;
        case dnnl_bf16: case dnnl_f16: printf(" %04x", ((const uint16_t *)buf)[i]); break;
        default: printf(" %02x", ((const uint8_t *)buf)[i]); break;
        }
    }
}

/* one problem: 1 x C x spatial; tags per side; prints the output buffer */
static void run(int bwd, dnnl_alg_kind_t alg, int nd, const dnnl_dim_t *in_dims, const dnnl_dim_t *out_dims,
                dnnl_data_type_t sdt, dnnl_format_tag_t stag, dnnl_data_type_t ddt, dnnl_format_tag_t dtag, int with_nan) {
    /* forward: src = in (stag), dst = out (dtag). backward: diff_dst = out (stag), diff_src = in (dtag) */
    dnnl_memory_desc_t a, b;
    dnnl_dims_t id, od;
    memcpy(id, in_dims, sizeof(dnnl_dim_t) * nd);
    memcpy(od, out_dims, sizeof(dnnl_dim_t) * nd);
    const int is_int = ddt == dnnl_s32 || ddt == dnnl_s8 || ddt == dnnl_u8;
    printf("%s%s %s %s[%d]->%s[%d] dims", with_nan && is_int ? "nanint " : "", bwd ? "bwd" : "fwd",
           alg == dnnl_resampling_nearest ? "nearest" : "linear", dtn(sdt), stag, dtn(ddt), dtag);
    for (int i = 0; i < nd; i++) printf(" %lld>%lld", (long long)id[i], (long long)od[i]);
    dnnl_resampling_desc_t rd;
    dnnl_primitive_desc_t pd, hint = NULL;
    dnnl_status_t s;
    if (!bwd) {
        dnnl_memory_desc_init_by_tag(&a, nd, id, sdt, stag);
        dnnl_memory_desc_init_by_tag(&b, nd, od, ddt, dtag);
        dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, alg, NULL, &a, &b);
    } else {
        dnnl_memory_desc_t fs, fd;
        dnnl_memory_desc_init_by_tag(&fs, nd, id, ddt, dtag);
        dnnl_memory_desc_init_by_tag(&fd, nd, od, sdt, stag);
        dnnl_resampling_desc_t frd;
        dnnl_resampling_forward_desc_init(&frd, dnnl_forward_training, alg, NULL, &fs, &fd);
        dnnl_primitive_desc_create(&hint, &frd, NULL, eng, NULL);
        dnnl_memory_desc_init_by_tag(&a, nd, od, sdt, stag); /* diff_dst */
        dnnl_memory_desc_init_by_tag(&b, nd, id, ddt, dtag); /* diff_src */
        dnnl_resampling_backward_desc_init(&rd, alg, NULL, &b, &a);
    }
    size_t na = dnnl_memory_desc_get_size(&a), nb = dnnl_memory_desc_get_size(&b);
    size_t ea = dnnl_data_type_size(sdt), eb = dnnl_data_type_size(ddt);
    void *A = calloc(1, na), *B = malloc(nb);
    /* linear: finite inputs only. libdnnl's ref:any lerps the missing D (and H) axes as
     * c*1 + c*0, which turns an inf into NaN, while its jit kernels (and this library)
     * keep inf; NaN payloads meeting in a sum are unspecified in both. */
    int finite = alg == dnnl_resampling_linear;
    for (size_t i = 0; i < na / ea; i++) put(A, i, sdt, with_nan, finite);
    if (stag == dnnl_nChw16c) /* inputs are zero-padded (the oneDNN contract) */
        for (size_t i = 0; i < na / ea; i++)
            if ((int64_t)(i % 16) >= a.dims[1]) memset((char *)A + i * ea, 0, ea);
    memset(B, 0x5a, nb);
    s = dnnl_primitive_desc_create(&pd, &rd, NULL, eng, hint);
    if (hint) dnnl_primitive_desc_destroy(hint);
    if (s != dnnl_success) { printf(" : status %d\n", s); free(A); free(B); return; }
    dnnl_primitive_t p;
    dnnl_primitive_create(&p, pd);
    dnnl_memory_t ma, mb;
    dnnl_memory_create(&ma, &a, eng, A);
    dnnl_memory_create(&mb, &b, eng, B);
    dnnl_exec_arg_t args[2] = {{bwd ? DNNL_ARG_DIFF_DST : DNNL_ARG_SRC, ma}, {bwd ? DNNL_ARG_DIFF_SRC : DNNL_ARG_DST, mb}};
    s = dnnl_primitive_execute(p, st, 2, args);
    dnnl_stream_wait(st);
    printf(" : exec %d:", s);
    print_buf(B, nb / eb, ddt);
    printf("\n");
    dnnl_memory_destroy(ma);
    dnnl_memory_destroy(mb);
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
    free(A);
    free(B);
}

int main(void) {
    dnnl_engine_create(&eng, dnnl_cpu, 0);
    dnnl_stream_create(&st, eng, dnnl_stream_default_flags);
    const dnnl_data_type_t dts[5] = {dnnl_f32, dnnl_bf16, dnnl_s32, dnnl_s8, dnnl_u8};
    /* (in, out) spatial sizes; C = 3 */
    const dnnl_dim_t sz[][2] = {{7, 7}, {4, 7}, {7, 3}, {2, 5}};
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++)
            for (int k = 0; k < 4; k++)
                for (int bwd = 0; bwd < 2; bwd++)
                    for (int alg = 0; alg < 2; alg++)
                        for (int nan = 0; nan < 2; nan++) {
                            dnnl_alg_kind_t ak = alg ? dnnl_resampling_linear : dnnl_resampling_nearest;
                            dnnl_dim_t in3[3] = {1, 3, sz[k][0]}, out3[3] = {1, 3, sz[k][1]};
                            /* different tags: ref:any on libdnnl */
                            run(bwd, ak, 3, in3, out3, dts[a], dnnl_ncw, dts[b], dnnl_nwc, nan);
                            dnnl_dim_t in4[4] = {1, 3, 2, sz[k][0]}, out4[4] = {1, 3, 3, sz[k][1]};
                            run(bwd, ak, 4, in4, out4, dts[a], dnnl_nhwc, dts[b], dnnl_nchw, nan);
                            if (alg == 0 && !bwd) {
                                /* equal tags: jit / simple kernels (exact for nearest forward) */
                                run(bwd, ak, 3, in3, out3, dts[a], dnnl_ncw, dts[b], dnnl_ncw, nan);
                                run(bwd, ak, 4, in4, out4, dts[a], dnnl_nChw16c, dts[b], dnnl_nChw16c, nan);
                            }
                        }
    /* f16: libdnnl 2.6.3 refuses it on CPU (status 3); this library computes it */
    for (int a = 0; a < 5; a++) {
        dnnl_dim_t in3[3] = {1, 3, 4}, out3[3] = {1, 3, 7};
        run(0, dnnl_resampling_nearest, 3, in3, out3, dnnl_f16, dnnl_ncw, dts[a], dnnl_nwc, 0);
        run(0, dnnl_resampling_nearest, 3, in3, out3, dts[a], dnnl_ncw, dnnl_f16, dnnl_nwc, 0);
    }
    return 0;
}
