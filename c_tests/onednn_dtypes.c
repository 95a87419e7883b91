// link: -lm
/* oneDNN face, resampling data types (docs/spec/onednn.md section 4.2), exact values:
 *  1. constants from the spec (all verified against libdnnl 2.6.3, see
 *     c_tests/onednn_realheader/dtypes_cmp.c): round half to even, saturation (s32 max
 *     2147483520, -3e9 -> INT_MIN), bf16 subnormal flush / overflow to inf / NaN quieting,
 *     u8 200 -> s8 127, s32 16777217 -> 16777216, bf16 backward rounded once;
 *  2. every src x dst pair of {f32, bf16, s32, s8, u8}, nearest and linear, forward and
 *     backward, on edge inputs, against a bit-level C model of load -> f32 -> store, through
 *     each kernel family (equal plain tags, different tags, blocked nCw16c);
 *  3. f16 (libdnnl 2.6.3 refuses it on CPU; this library converts with IEEE rules).
 * Each case runs 1 x C x W problems whose results are exact in f32 (no tolerance). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

static int passed, failed;
#define CHECK(c)                                                                \
    do {                                                                        \
        if (c) passed++;                                                        \
        else {                                                                  \
            failed++;                                                           \
            if (failed < 40) printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); \
        }                                                                       \
    } while (0)

static dnnl_engine_t eng;
static dnnl_stream_t st;

static size_t dsz(dnnl_data_type_t d) { return d == dnnl_f32 || d == dnnl_s32 ? 4 : d == dnnl_s8 || d == dnnl_u8 ? 1 : 2; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* ---- bit-level model of section 4.2 ---- */
static uint32_t load_bits(const void *p, dnnl_data_type_t dt) { /* f32 bits of the loaded value */
    switch (dt) {
    case dnnl_f32: { uint32_t u; memcpy(&u, p, 4); return u; }
    case dnnl_bf16: { uint16_t b; memcpy(&b, p, 2); return (uint32_t)b << 16; }
    case dnnl_f16: {
        uint16_t h; memcpy(&h, p, 2);
        uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1F, m = h & 0x3FF;
        if (e == 0x1F) return s | 0x7F800000u | (m << 13) | (m ? 0x400000u : 0);
        if (e == 0) return f2u((s ? -1.f : 1.f) * (float)m * 0x1p-24f);
        return s | ((e + 112) << 23) | (m << 13);
    }
    case dnnl_s32: { int32_t v; memcpy(&v, p, 4); return f2u((float)v); }
    case dnnl_s8: return f2u((float)*(const int8_t *)p);
    default: return f2u((float)*(const uint8_t *)p);
    }
}
static float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }
static void store_bits(uint32_t u, void *p, dnnl_data_type_t dt) {
    float v = u2f(u);
    switch (dt) {
    case dnnl_f32: memcpy(p, &u, 4); break;
    case dnnl_bf16: {
        uint16_t b;
        if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x7FFFFFu)) b = (uint16_t)((u >> 16) | 0x40);
        else if ((u & 0x7F800000u) == 0) b = (uint16_t)((u >> 16) & 0x8000);
        else b = (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
        memcpy(p, &b, 2);
    } break;
    case dnnl_f16: {
        uint16_t s = (uint16_t)((u >> 16) & 0x8000), h;
        float a = fabsf(v);
        if (isnan(v)) h = (uint16_t)(s | 0x7E00 | ((u & 0x7FFFFF) >> 13));
        else if (a >= 65520.f) h = s | 0x7C00;
        else if (a < 0x1p-14f) h = (uint16_t)(s | (uint16_t)nearbyintf(a * 0x1p24f));
        else {
            int ex;
            float m = nearbyintf(frexpf(a, &ex) * 2048.f);
            if (m == 2048.f) { m = 1024.f; ex++; }
            h = (uint16_t)(s | (uint32_t)(ex + 14) << 10 | ((uint32_t)m - 1024));
        }
        memcpy(p, &h, 2);
    } break;
    case dnnl_s32: { int32_t i = isnan(v) ? INT32_MIN : (int32_t)nearbyintf(clampf(v, -2147483648.f, 2147483520.f)); memcpy(p, &i, 4); } break;
    case dnnl_s8: { int8_t i = isnan(v) ? 0 : (int8_t)nearbyintf(clampf(v, -128.f, 127.f)); memcpy(p, &i, 1); } break;
    default: { uint8_t i = isnan(v) ? 0 : (uint8_t)nearbyintf(clampf(v, 0.f, 255.f)); memcpy(p, &i, 1); } break;
    }
}

/* ---- running problems ---- */
typedef struct { int bwd, linear, nd; dnnl_dim_t c, in_w, out_w; dnnl_format_tag_t in_tag, out_tag; } prob_t;

/* runs `p` with input (src / diff_dst) values in logical order and returns the output
 * (dst / diff_src) in logical order; status of create or execute on failure */
static dnnl_status_t run(const prob_t *p, dnnl_data_type_t idt, const void *in, dnnl_data_type_t odt, void *out) {
    dnnl_dims_t fin = {1, p->c, 1}, fout = {1, p->c, 1};
    fin[p->nd - 1] = p->in_w;   /* forward-input sizes */
    fout[p->nd - 1] = p->out_w; /* forward-output sizes */
    if (p->nd == 4) { fin[2] = 1; fout[2] = 1; }
    dnnl_memory_desc_t imd, omd; /* tensor read / written */
    dnnl_resampling_desc_t rd;
    dnnl_primitive_desc_t pd, hint = NULL;
    dnnl_alg_kind_t alg = p->linear ? dnnl_resampling_linear : dnnl_resampling_nearest;
    if (!p->bwd) {
        dnnl_memory_desc_init_by_tag(&imd, p->nd, fin, idt, p->in_tag);
        dnnl_memory_desc_init_by_tag(&omd, p->nd, fout, odt, p->out_tag);
        dnnl_resampling_forward_desc_init(&rd, dnnl_forward_inference, alg, NULL, &imd, &omd);
    } else {
        dnnl_memory_desc_init_by_tag(&imd, p->nd, fout, idt, p->in_tag); /* diff_dst */
        dnnl_memory_desc_init_by_tag(&omd, p->nd, fin, odt, p->out_tag); /* diff_src */
        dnnl_memory_desc_t hs, hd;
        dnnl_memory_desc_init_by_tag(&hs, p->nd, fin, dnnl_f32, p->out_tag);
        dnnl_memory_desc_init_by_tag(&hd, p->nd, fout, dnnl_f32, p->in_tag);
        dnnl_resampling_desc_t frd;
        dnnl_resampling_forward_desc_init(&frd, dnnl_forward_training, alg, NULL, &hs, &hd);
        dnnl_primitive_desc_create(&hint, &frd, NULL, eng, NULL);
        dnnl_resampling_backward_desc_init(&rd, alg, NULL, &omd, &imd);
    }
    dnnl_status_t s = dnnl_primitive_desc_create(&pd, &rd, NULL, eng, hint);
    dnnl_primitive_desc_destroy(hint);
    if (s != dnnl_success) return s;
    size_t ni = dnnl_memory_desc_get_size(&imd), no = dnnl_memory_desc_get_size(&omd);
    unsigned char *ib = calloc(1, ni), *ob = malloc(no);
    memset(ob, 0x5a, no);
    const dnnl_dim_t iw = p->bwd ? p->out_w : p->in_w, ow = p->bwd ? p->in_w : p->out_w;
    /* logical (c, w) -> element offset for the three tag families used here */
    for (dnnl_dim_t c = 0; c < p->c; c++)
        for (dnnl_dim_t w = 0; w < iw; w++) {
            const dnnl_dims_t *str = &imd.format_desc.blocking.strides;
            int64_t blk = imd.format_desc.blocking.inner_nblks ? imd.format_desc.blocking.inner_blks[0] : 1;
            int64_t off = (c / blk) * (*str)[1] + (c % blk) + w * (*str)[p->nd - 1];
            memcpy(ib + off * dsz(idt), (const unsigned char *)in + (c * iw + w) * dsz(idt), dsz(idt));
        }
    dnnl_primitive_t prim;
    dnnl_primitive_create(&prim, pd);
    dnnl_memory_t mi, mo;
    dnnl_memory_create(&mi, &imd, eng, ib);
    dnnl_memory_create(&mo, &omd, eng, ob);
    dnnl_exec_arg_t args[2] = {{p->bwd ? DNNL_ARG_DIFF_DST : DNNL_ARG_SRC, mi}, {p->bwd ? DNNL_ARG_DIFF_SRC : DNNL_ARG_DST, mo}};
    s = dnnl_primitive_execute(prim, st, 2, args);
    dnnl_stream_wait(st);
    for (dnnl_dim_t c = 0; c < p->c; c++)
        for (dnnl_dim_t w = 0; w < ow; w++) {
            const dnnl_dims_t *str = &omd.format_desc.blocking.strides;
            int64_t blk = omd.format_desc.blocking.inner_nblks ? omd.format_desc.blocking.inner_blks[0] : 1;
            int64_t off = (c / blk) * (*str)[1] + (c % blk) + w * (*str)[p->nd - 1];
            memcpy((unsigned char *)out + (c * ow + w) * dsz(odt), ob + off * dsz(odt), dsz(odt));
        }
    /* channel padding of a blocked output is zero */
    if (omd.format_desc.blocking.inner_nblks) {
        int64_t blk = omd.format_desc.blocking.inner_blks[0];
        for (dnnl_dim_t c = p->c; c < omd.padded_dims[1]; c++)
            for (dnnl_dim_t w = 0; w < ow; w++) {
                int64_t off = (c / blk) * omd.format_desc.blocking.strides[1] + (c % blk) + w * omd.format_desc.blocking.strides[p->nd - 1];
                for (size_t k = 0; k < dsz(odt); k++)
                    if (ob[off * dsz(odt) + k] != 0) s = dnnl_runtime_error;
            }
    }
    dnnl_memory_destroy(mi);
    dnnl_memory_destroy(mo);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    free(ib);
    free(ob);
    return s;
}

static const prob_t ID3 = {0, 0, 3, 1, 8, 8, dnnl_ncw, dnnl_ncw};

/* ---- 1. spec constants ---- */
static void fwd_id(dnnl_data_type_t sdt, const void *in, int n, dnnl_data_type_t ddt, void *out) {
    prob_t p = ID3;
    p.in_w = p.out_w = n;
    CHECK(run(&p, sdt, in, ddt, out) == dnnl_success);
}
static void test_spec_constants(void) {
    float f[8] = {0.5f, 1.5f, 4.5f, -1.5f, -4.5f, 63.75f, -300.4f, NAN};
    int8_t s8[8];
    fwd_id(dnnl_f32, f, 8, dnnl_s8, s8);
    CHECK(s8[0] == 0 && s8[1] == 2 && s8[2] == 4 && s8[3] == -2 && s8[4] == -4 && s8[5] == 64 && s8[6] == -128 && s8[7] == 0);
    float g[5] = {191.25f, -300.4f, 255.5f, 0.5f, NAN};
    uint8_t u8[5];
    fwd_id(dnnl_f32, g, 5, dnnl_u8, u8);
    CHECK(u8[0] == 191 && u8[1] == 0 && u8[2] == 255 && u8[3] == 0 && u8[4] == 0);
    float h[8] = {3e9f, -3e9f, 2.5f, -2.5f, 2147483520.f, NAN, 1e10f, -0.5f};
    int32_t s32[8];
    fwd_id(dnnl_f32, h, 8, dnnl_s32, s32);
    CHECK(s32[0] == 2147483520 && s32[1] == INT32_MIN && s32[2] == 2 && s32[3] == -2);
    CHECK(s32[4] == 2147483520 && s32[5] == INT32_MIN && s32[6] == 2147483520 && s32[7] == 0);
    uint32_t fb[8] = {f2u(1e-40f), f2u(-1e-40f), f2u(3.4e38f), f2u(-3.4e38f), 0x7F800001u, f2u(1.f + 1.f / 256), f2u(1.f + 3.f / 256), 0x7FA12345u};
    uint16_t bf[8];
    fwd_id(dnnl_f32, fb, 8, dnnl_bf16, bf);
    uint16_t bfw[8] = {0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x3F80, 0x3F82, 0x7FE1};
    CHECK(memcmp(bf, bfw, 16) == 0);
    /* bf16 -> bf16 passes through f32: subnormals flushed, signalling NaNs quieted */
    uint16_t bi[8] = {0x0001, 0x8001, 0x7F81, 0xFF81, 0x007F, 0x8000, 0x3F80, 0x7F80}, bo[8];
    fwd_id(dnnl_bf16, bi, 8, dnnl_bf16, bo);
    uint16_t bow[8] = {0x0000, 0x8000, 0x7FC1, 0xFFC1, 0x0000, 0x8000, 0x3F80, 0x7F80};
    CHECK(memcmp(bo, bow, 16) == 0);
    uint32_t bfo[8];
    fwd_id(dnnl_bf16, bi, 8, dnnl_f32, bfo);
    CHECK(bfo[0] == 0x00010000u && bfo[2] == 0x7F810000u && bfo[4] == 0x007F0000u && bfo[5] == 0x80000000u);
    uint8_t ui[4] = {200, 128, 127, 0};
    int8_t so[4];
    fwd_id(dnnl_u8, ui, 4, dnnl_s8, so);
    CHECK(so[0] == 127 && so[1] == 127 && so[2] == 127 && so[3] == 0);
    int8_t si[3] = {-5, -128, 5};
    uint8_t uo[3];
    fwd_id(dnnl_s8, si, 3, dnnl_u8, uo);
    CHECK(uo[0] == 0 && uo[1] == 0 && uo[2] == 5);
    /* s32 -> s32 passes through f32 */
    int32_t ii[6] = {16777217, 123456789, 2147483647, -2147483647, INT32_MIN, 16777219}, io[6];
    fwd_id(dnnl_s32, ii, 6, dnnl_s32, io);
    CHECK(io[0] == 16777216 && io[1] == 123456792 && io[2] == 2147483520 && io[3] == INT32_MIN && io[4] == INT32_MIN && io[5] == 16777220);
    float fo[6];
    fwd_id(dnnl_s32, ii, 6, dnnl_f32, fo);
    CHECK(fo[0] == 16777216.f && fo[2] == 2147483648.f);
    int32_t ij[2] = {300, -300};
    fwd_id(dnnl_s32, ij, 2, dnnl_s8, so);
    CHECK(so[0] == 127 && so[1] == -128);

    /* linear 2 -> 4 on [0, x]: weights 1/4, 3/4 give exact ties */
    prob_t lin = {0, 1, 3, 1, 2, 4, dnnl_ncw, dnnl_ncw};
    float l6[2] = {0, 6}, l2[2] = {0, 2}, l10[2] = {0, 10}, lf[4];
    CHECK(run(&lin, dnnl_f32, l6, dnnl_f32, lf) == dnnl_success);
    CHECK(lf[0] == 0 && lf[1] == 1.5f && lf[2] == 4.5f && lf[3] == 6);
    int8_t ls[4];
    CHECK(run(&lin, dnnl_f32, l6, dnnl_s8, ls) == dnnl_success);
    CHECK(ls[0] == 0 && ls[1] == 2 && ls[2] == 4 && ls[3] == 6);
    CHECK(run(&lin, dnnl_f32, l2, dnnl_s8, ls) == dnnl_success);
    CHECK(ls[0] == 0 && ls[1] == 0 && ls[2] == 2 && ls[3] == 2);
    int32_t li[4];
    CHECK(run(&lin, dnnl_f32, l10, dnnl_s32, li) == dnnl_success);
    CHECK(li[0] == 0 && li[1] == 2 && li[2] == 8 && li[3] == 10);

    /* backward: nearest 3 <- 5, dd = 1..5 gives [3, 3, 9]; linear [2.2, 5.4000006, 7.3999996] */
    prob_t bn = {1, 0, 3, 1, 3, 5, dnnl_ncw, dnnl_ncw}, bl = bn;
    bl.linear = 1;
    float dd[5] = {1, 2, 3, 4, 5}, ds[3];
    CHECK(run(&bn, dnnl_f32, dd, dnnl_f32, ds) == dnnl_success);
    CHECK(ds[0] == 3 && ds[1] == 3 && ds[2] == 9);
    CHECK(run(&bl, dnnl_f32, dd, dnnl_f32, ds) == dnnl_success);
    CHECK(ds[0] == 2.2f && ds[1] == 5.4000006f && ds[2] == 7.3999996f);
    int8_t d100[5] = {100, 100, 100, 100, 100}, dso[3];
    CHECK(run(&bn, dnnl_s8, d100, dnnl_s8, dso) == dnnl_success);
    CHECK(dso[0] == 127 && dso[1] == 100 && dso[2] == 127);
    uint8_t duo[3];
    CHECK(run(&bn, dnnl_s8, d100, dnnl_u8, duo) == dnnl_success);
    CHECK(duo[0] == 200 && duo[1] == 100 && duo[2] == 200);
    /* bf16 backward rounds once: 1 <- 4 sums 1 + 3 * 2^-9 = 1.005859375 -> 0x3F81 (per-step
     * rounding would give 0x3F80) */
    prob_t b14 = {1, 0, 3, 1, 1, 4, dnnl_ncw, dnnl_ncw};
    uint16_t bd[4] = {0x3F80, 0x3B00, 0x3B00, 0x3B00}, bs[1];
    CHECK(run(&b14, dnnl_bf16, bd, dnnl_bf16, bs) == dnnl_success);
    CHECK(bs[0] == 0x3F81);
}

/* ---- 2. every pair, edge inputs, bit-level model ---- */
static void edge_input(dnnl_data_type_t dt, int k, void *p) {
    static const uint32_t f[] = {0x3F000000u, 0x3FC00000u, 0x40200000u, 0xBF000000u, 0xBFC00000u, 0xC0200000u,
                                 0x40900000u, 0xC0900000u, 0x427F0000u, 0x433F4000u, 0xC3963333u, 0x42FF0000u,
                                 0x437F8000u, 0x4F32D05Eu, 0xCF32D05Eu, 0x4EFFFFFFu, 0x4B800001u, 0x0001D4C0u,
                                 0x8001D4C0u, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x3F808000u, 0x3F818000u, 0x7FC00000u,
                                 0x7F800001u, 0x7F800000u, 0xFF800000u, 0x80000000u, 0x00000000u, 0x3F800000u,
                                 0x4F000000u, 0xCF000000u};
    static const uint16_t b[] = {0x3F00, 0x3FC0, 0x4020, 0xBFC0, 0x4090, 0x437F, 0x4348, 0x7F81, 0xFFC0, 0x0001,
                                 0x8001, 0x7F80, 0xFF80, 0x4F00, 0xCF00, 0x8000, 0x42FF, 0x4300, 0xC301, 0x3F80,
                                 0x4B80, 0x0000, 0x7F7F, 0x3B00, 0x43FF, 0xC3FF, 0x3E80, 0x40B0, 0x4110, 0x4128,
                                 0xC0B0, 0x4E80};
    static const int32_t s[] = {16777217, 123456789, 2147483647, -2147483647, INT32_MIN, 200, -5, 300, -300, 0,
                                1, 127, 128, 255, 256, -129, -128, 16777219, -16777217, 33554435, 1000000, 7,
                                -7, 2, 3, 64, 65, -1, 100000, 254, 126, 129};
    switch (dt) {
    case dnnl_f32: memcpy(p, &f[k % 32], 4); break;
    case dnnl_bf16: memcpy(p, &b[k % 32], 2); break;
    case dnnl_s32: memcpy(p, &s[k % 32], 4); break;
    case dnnl_s8: *(int8_t *)p = (int8_t)(k * 37 - 128); break;
    default: *(uint8_t *)p = (uint8_t)(k * 41 + 7); break;
    }
}
static int is_nan_bits(const unsigned char *p, dnnl_data_type_t dt) {
    if (dt == dnnl_f32) { uint32_t u; memcpy(&u, p, 4); return (u & 0x7F800000u) == 0x7F800000u && (u & 0x7FFFFFu); }
    if (dt == dnnl_bf16 || dt == dnnl_f16) {
        uint16_t h; memcpy(&h, p, 2);
        return dt == dnnl_bf16 ? (h & 0x7F80) == 0x7F80 && (h & 0x7F) : (h & 0x7C00) == 0x7C00 && (h & 0x3FF);
    }
    return 0;
}

/* expected outputs of the small problems of test_pairs, f32 bits before the store */
static void model(const prob_t *p, dnnl_data_type_t idt, const unsigned char *in, uint32_t *res) {
    dnnl_dim_t iw = p->bwd ? p->out_w : p->in_w, ow = p->bwd ? p->in_w : p->out_w;
    for (dnnl_dim_t c = 0; c < p->c; c++)
        for (dnnl_dim_t o = 0; o < ow; o++) {
            const unsigned char *row = in + c * iw * dsz(idt);
            uint32_t r;
            if (!p->bwd && !p->linear) { /* forward nearest: identity sizes or 3 -> 5 */
                float s = ((float)o + 0.5f) * (float)iw / (float)ow - 0.5f;
                r = load_bits(row + (int64_t)roundf(s) * dsz(idt), idt);
            } else if (!p->bwd) { /* forward linear, one axis */
                float s = ((float)o + 0.5f) * (float)iw / (float)ow - 0.5f;
                int64_t i0 = (int64_t)s > 0 ? (int64_t)s : 0, i1 = (int64_t)ceilf(s);
                if (s < 0) i1 = 0;
                if (i1 > iw - 1) i1 = iw - 1;
                float w1 = fabsf(s - (float)i0), w0 = 1.f - w1;
                float a = u2f(load_bits(row + i0 * dsz(idt), idt)), b = u2f(load_bits(row + i1 * dsz(idt), idt));
                r = f2u(a * w0 + b * (1.f - w0));
            } else { /* backward nearest, 5 -> 3 (diff_dst 5, diff_src 3): sums [0,2), [2,3), [3,5) */
                static const int lo[3] = {0, 2, 3}, hi[3] = {2, 3, 5};
                float acc = 0.f;
                for (int k = lo[o]; k < hi[o]; k++) acc += u2f(load_bits(row + k * dsz(idt), idt));
                r = f2u(acc);
            }
            res[c * ow + o] = r;
        }
}

static void test_pairs(void) {
    static const dnnl_data_type_t dts[5] = {dnnl_f32, dnnl_bf16, dnnl_s32, dnnl_s8, dnnl_u8};
    /* kernels: equal plain tags, different tags, blocked */
    static const dnnl_format_tag_t tp[3][2] = {{dnnl_ncw, dnnl_ncw}, {dnnl_ncw, dnnl_nwc}, {dnnl_nCw16c, dnnl_nCw16c}};
    int bad = 0, cases = 0;
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++)
            for (int t = 0; t < 3; t++)
                for (int kind = 0; kind < 4; kind++) {
                    prob_t p = {0, 0, 3, 3, 8, 8, tp[t][0], tp[t][1]};
                    if (kind == 1) { p.in_w = 3; p.out_w = 5; }               /* nearest up */
                    if (kind == 2) { p.linear = 1; p.in_w = 2; p.out_w = 4; } /* linear ties */
                    if (kind == 3) { p.bwd = 1; p.in_w = 3; p.out_w = 5; }    /* backward nearest */
                    dnnl_dim_t iw = p.bwd ? p.out_w : p.in_w, ow = p.bwd ? p.in_w : p.out_w;
                    unsigned char in[3 * 8 * 4], out[3 * 8 * 4], want[3 * 8 * 4];
                    uint32_t res[3 * 8];
                    for (int i = 0; i < p.c * iw; i++) {
                        int k = i + 8 * kind;
                        if (kind >= 2 && !(dts[a] == dnnl_s8 || dts[a] == dnnl_u8)) {
                            /* sums and lerps: finite values, integers in bf16/s32 range */
                            float v = (float)((i * 7) % 23) - 11.f + (float)(i % 3) * 0.5f;
                            if (dts[a] == dnnl_s32) v = floorf(v) * 1000003.f;
                            if (dts[a] == dnnl_f32) memcpy(in + i * 4, &v, 4);
                            else if (dts[a] == dnnl_bf16) { uint16_t h = (uint16_t)(f2u(v) >> 16); memcpy(in + i * 2, &h, 2); }
                            else { int32_t x = (int32_t)v; memcpy(in + i * 4, &x, 4); }
                        } else edge_input(dts[a], k, in + i * dsz(dts[a]));
                    }
                    dnnl_status_t s = run(&p, dts[a], in, dts[b], out);
                    model(&p, dts[a], in, res);
                    int same_copy = !p.bwd && !p.linear && dts[a] == dts[b] && (dts[a] == dnnl_f32 || dts[a] == dnnl_s8 || dts[a] == dnnl_u8);
                    for (int i = 0; i < p.c * ow; i++) store_bits(res[i], want + i * dsz(dts[b]), dts[b]);
                    int ok = s == dnnl_success;
                    for (int i = 0; ok && i < p.c * ow; i++) {
                        const unsigned char *g = out + i * dsz(dts[b]), *w = want + i * dsz(dts[b]);
                        /* NaN payloads: exact for copies, else any NaN */
                        if (memcmp(g, w, dsz(dts[b])) != 0 && !(!same_copy && is_nan_bits(g, dts[b]) && is_nan_bits(w, dts[b]))) {
                            ok = 0;
                            if (bad < 6) printf("  pair %d->%d tags %d kind %d elem %d differs\n", dts[a], dts[b], t, kind, i);
                        }
                    }
                    bad += !ok;
                    cases++;
                }
    CHECK(cases == 300);
    CHECK(bad == 0);
}

/* ---- 3. f16 (an extension over libdnnl 2.6.3, which refuses f16 on CPU) ---- */
static void test_f16(void) {
    float f[8] = {1.f, 65519.f, 65520.f, -0.f, 1e-8f, 3e-8f, NAN, -1e-5f};
    uint16_t h[8];
    fwd_id(dnnl_f32, f, 8, dnnl_f16, h);
    uint16_t hw[8] = {0x3C00, 0x7BFF, 0x7C00, 0x8000, 0x0000, 0x0001, 0x7E00, 0x80A8};
    CHECK(memcmp(h, hw, 16) == 0);
    uint16_t hi[6] = {0x0001, 0x7C01, 0x8000, 0xFBFF, 0x3555, 0x7C00};
    uint32_t fo[6];
    fwd_id(dnnl_f16, hi, 6, dnnl_f32, fo);
    CHECK(fo[0] == 0x33800000u && fo[1] == 0x7FC02000u && fo[2] == 0x80000000u && u2f(fo[3]) == -65504.f && fo[5] == 0x7F800000u);
    uint16_t ho[6];
    fwd_id(dnnl_f16, hi, 6, dnnl_f16, ho);
    CHECK(ho[0] == 0x0001 && ho[1] == 0x7E01 && ho[2] == 0x8000 && ho[3] == 0xFBFF && ho[4] == 0x3555);
    int8_t so[6];
    fwd_id(dnnl_f16, hi, 6, dnnl_s8, so);
    CHECK(so[0] == 0 && so[1] == 0 && so[3] == -128 && so[5] == 127);
    /* linear through f16 on exact ties */
    prob_t lin = {0, 1, 3, 1, 2, 4, dnnl_ncw, dnnl_nwc};
    uint16_t l[2] = {0x0000, 0x4600}, lo[4]; /* 0, 6 */
    CHECK(run(&lin, dnnl_f16, l, dnnl_f16, lo) == dnnl_success);
    CHECK(lo[0] == 0 && lo[1] == 0x3E00 && lo[2] == 0x4480 && lo[3] == 0x4600);
    prob_t bn = {1, 0, 3, 1, 3, 5, dnnl_ncw, dnnl_ncw};
    uint16_t dd[5] = {0x3C00, 0x4000, 0x4200, 0x4400, 0x4500}, ds[3]; /* 1..5 */
    CHECK(run(&bn, dnnl_f16, dd, dnnl_f16, ds) == dnnl_success);
    CHECK(ds[0] == 0x4200 && ds[1] == 0x4200 && ds[2] == 0x4880); /* 3, 3, 9 */
}

int main(void) {
    dnnl_engine_create(&eng, dnnl_cpu, 0);
    dnnl_stream_create(&st, eng, dnnl_stream_default_flags);
    test_spec_constants();
    test_pairs();
    test_f16();
    dnnl_stream_destroy(st);
    dnnl_engine_destroy(eng);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
