// link: -lm
/* oneDNN face: dnnl_reorder_primitive_desc_create / dnnl_primitive_execute with
 * DNNL_ARG_FROM / DNNL_ARG_TO, against an independent C model written from the libdnnl
 * 2.6.3 observations recorded in src/capi/onednn/reorder.rs:
 *  - same-type copies are bit copies (s32 exact, f32/bf16 signalling NaNs kept), except f16;
 *  - pairs with an f16 side compute 1*x+0 in f32 (-0 -> +0, NaN quieted);
 *  - integers: NaN -> 127 (s8) / 0 (u8) / 2147483520 (s32), else clamp then round half even;
 *  - bf16: round to nearest even, subnormals flushed, NaN quieted (|= 0x40);
 *  - padding of a blocked dst is zero, gaps of a strided dst are untouched.
 * Covers every data-type pair on every layout family (plain, channels-last, permuted,
 * blocked 4/8/16/32 on one or two dims, strided with gaps, offset0, 1D..7D), round trips
 * through nChw16c, error statuses, queries and execute argument rules. */
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

static uint64_t rs = 0x0123456789ABCDEFull;
static uint32_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (uint32_t)(rs >> 11); }

static dnnl_engine_t eng;
static dnnl_stream_t st;

static const dnnl_data_type_t DTS[6] = {dnnl_f32, dnnl_bf16, dnnl_f16, dnnl_s32, dnnl_s8, dnnl_u8};
static size_t dsz(dnnl_data_type_t d) { return d == dnnl_f32 || d == dnnl_s32 ? 4 : d == dnnl_s8 || d == dnnl_u8 ? 1 : 2; }

/* ---- model: conversions ---- */
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float half_to_f(uint16_t h) {
    uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1F, m = h & 0x3FF;
    if (e == 0x1F) return u2f(s | 0x7F800000u | (m << 13) | (m ? 0x400000u : 0));
    if (e == 0) return (s ? -1.f : 1.f) * (float)m * 0x1p-24f;
    return u2f(s | ((e + 112) << 23) | (m << 13));
}
static uint16_t f_to_half(float f) { /* IEEE round to nearest even */
    uint32_t u = f2u(f), s = (u >> 16) & 0x8000;
    float a = fabsf(f);
    if (isnan(f)) return (uint16_t)(s | 0x7E00 | ((u & 0x7FFFFF) >> 13));
    if (a >= 65520.f) return (uint16_t)(s | 0x7C00);
    if (a < 0x1p-14f) { /* subnormal: multiple of 2^-24 */
        float q = nearbyintf(a * 0x1p24f);
        return (uint16_t)(s | (uint16_t)q);
    }
    int ex;
    float fr = frexpf(a, &ex);            /* a = fr * 2^ex, fr in [0.5, 1) */
    float mant = nearbyintf(fr * 2048.f); /* 11 significant bits */
    if (mant == 2048.f) { mant = 1024.f; ex++; }
    int e = ex - 1 + 15;
    if (e >= 31) return (uint16_t)(s | 0x7C00);
    return (uint16_t)(s | (uint32_t)e << 10 | ((uint32_t)mant - 1024));
}
static uint16_t f_to_bf16(float f) {
    uint32_t u = f2u(f);
    if (isnan(f)) return (uint16_t)((u >> 16) | 0x40);
    if ((u & 0x7F800000u) == 0) return (uint16_t)((u >> 16) & 0x8000);
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
static float load_as_f(const unsigned char *p, dnnl_data_type_t dt) {
    switch (dt) {
    case dnnl_f32: { float v; memcpy(&v, p, 4); return v; }
    case dnnl_bf16: { uint16_t v; memcpy(&v, p, 2); return u2f((uint32_t)v << 16); }
    case dnnl_f16: { uint16_t v; memcpy(&v, p, 2); return half_to_f(v); }
    case dnnl_s32: { int32_t v; memcpy(&v, p, 4); return (float)v; }
    case dnnl_s8: return (float)*(const int8_t *)p;
    default: return (float)*p;
    }
}
static float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }
/* expected dst bytes of one element */
static void convert(const unsigned char *sp, dnnl_data_type_t sdt, unsigned char *dp, dnnl_data_type_t ddt) {
    if (sdt == ddt && sdt != dnnl_f16) { memcpy(dp, sp, dsz(sdt)); return; }
    float v = load_as_f(sp, sdt);
    if (sdt == dnnl_f16 || ddt == dnnl_f16) { volatile float one = 1.f, zero = 0.f; v = v * one + zero; }
    switch (ddt) {
    case dnnl_f32: memcpy(dp, &v, 4); break;
    case dnnl_bf16: { uint16_t b = f_to_bf16(v); memcpy(dp, &b, 2); } break;
    case dnnl_f16: { uint16_t h = f_to_half(v); memcpy(dp, &h, 2); } break;
    case dnnl_s32: { int32_t i = isnan(v) ? 2147483520 : (int32_t)nearbyintf(clampf(v, -2147483648.f, 2147483520.f)); memcpy(dp, &i, 4); } break;
    case dnnl_s8: { int8_t i = isnan(v) ? 127 : (int8_t)nearbyintf(clampf(v, -128.f, 127.f)); memcpy(dp, &i, 1); } break;
    default: { uint8_t i = isnan(v) ? 0 : (uint8_t)nearbyintf(clampf(v, 0.f, 255.f)); memcpy(dp, &i, 1); } break;
    }
}

/* ---- model: layouts ---- */
static int64_t md_off(const dnnl_memory_desc_t *md, const int64_t *idx) {
    const dnnl_blocking_desc_t *b = &md->format_desc.blocking;
    int64_t blk[DNNL_MAX_NDIMS], rem[DNNL_MAX_NDIMS], off = md->offset0, mult = 1;
    for (int d = 0; d < md->ndims; d++) blk[d] = 1;
    for (int k = 0; k < b->inner_nblks; k++) blk[b->inner_idxs[k]] *= b->inner_blks[k];
    for (int d = 0; d < md->ndims; d++) { off += idx[d] / blk[d] * b->strides[d]; rem[d] = idx[d] % blk[d]; }
    for (int k = b->inner_nblks - 1; k >= 0; k--) {
        int d = (int)b->inner_idxs[k];
        off += (rem[d] % b->inner_blks[k]) * mult;
        rem[d] /= b->inner_blks[k];
        mult *= b->inner_blks[k];
    }
    return off;
}
static size_t span(const dnnl_memory_desc_t *md) {
    int64_t idx[DNNL_MAX_NDIMS];
    for (int d = 0; d < md->ndims; d++) idx[d] = md->padded_dims[d] > 0 ? md->padded_dims[d] - 1 : 0;
    return (size_t)(md_off(md, idx) + 1) * dsz(md->data_type);
}
static int next_idx(int nd, const dnnl_dim_t *lim, int64_t *idx) {
    for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < lim[d]) return 1;
        idx[d] = 0;
    }
    return 0;
}

/* a random source value for element e */
static void gen(dnnl_data_type_t dt, unsigned char *p) {
    static const uint32_t fsp[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0x7FA12345u, 0x7F800000u, 0xFF800000u,
                                   0x80000000u, 0x00000001u, 0x80000001u, 0x007FFFFFu, 0x7F7FFFFFu, 0x477FF000u,
                                   0x477FEFFFu, 0x33000000u, 0x33000001u, 0x3F808000u, 0x3F818000u, 0x4EFFFFFFu,
                                   0x4F000000u, 0xCF000000u, 0x4B800001u, 0x3F000000u, 0x3FC00000u, 0xBFC00000u,
                                   0x40900000u, 0xC0900000u, 0x437F8000u, 0x42FF0000u, 0x4F32D05Eu, 0xCF32D05Eu};
    uint32_t r = rnd();
    switch (dt) {
    case dnnl_f32: case dnnl_bf16: {
        float f = (r % 4 == 0) ? u2f(fsp[rnd() % 30]) : (float)((int)(rnd() % 4001) - 2000) / 8.f;
        if (dt == dnnl_f32) memcpy(p, &f, 4);
        else { uint16_t b = (uint16_t)(f2u(f) >> 16); memcpy(p, &b, 2); }
    } break;
    case dnnl_f16: { uint16_t h = (r % 4 == 0) ? (uint16_t)rnd() : (uint16_t)(0x3000 + rnd() % 0x2800) | (uint16_t)(rnd() & 0x8000); memcpy(p, &h, 2); } break;
    case dnnl_s32: {
        static const int32_t sp[] = {INT32_MIN, INT32_MAX, 16777217, -16777217, 123456789, 200, -5, 255, 256, -129, 128};
        int32_t v = (r % 4 == 0) ? sp[rnd() % 11] : (int32_t)(rnd() % 1001) - 500;
        memcpy(p, &v, 4);
    } break;
    default: *p = (unsigned char)rnd(); break;
    }
}

static dnnl_status_t make_pd(dnnl_primitive_desc_t *pd, const dnnl_memory_desc_t *s, const dnnl_memory_desc_t *d) {
    return dnnl_reorder_primitive_desc_create(pd, s, eng, d, eng, NULL);
}
static dnnl_status_t exec2(dnnl_primitive_t p, dnnl_memory_t a, dnnl_memory_t b) {
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, a}, {DNNL_ARG_TO, b}};
    dnnl_status_t s = dnnl_primitive_execute(p, st, 2, args);
    dnnl_stream_wait(st);
    return s;
}
/* reorders sbuf (smd) into dbuf (dmd) */
static dnnl_status_t reorder(const dnnl_memory_desc_t *smd, void *sbuf, const dnnl_memory_desc_t *dmd, void *dbuf) {
    dnnl_primitive_desc_t pd;
    dnnl_status_t s = make_pd(&pd, smd, dmd);
    if (s != dnnl_success) return s;
    dnnl_primitive_t p;
    dnnl_primitive_create(&p, pd);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_t ms, md;
    dnnl_memory_create(&ms, smd, eng, sbuf);
    dnnl_memory_create(&md, dmd, eng, dbuf);
    s = exec2(p, ms, md);
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(md);
    dnnl_primitive_destroy(p);
    return s;
}

/* one full check: random src (padding of src filled with garbage), dst prefilled 0x5a */
static int one_case(const dnnl_memory_desc_t *smd, const dnnl_memory_desc_t *dmd) {
    size_t sb = span(smd) + 16, db = span(dmd) + 16;
    unsigned char *sbuf = malloc(sb), *dbuf = malloc(db), *ebuf = malloc(db);
    for (size_t i = 0; i < sb; i++) sbuf[i] = (unsigned char)rnd(); /* garbage everywhere, incl. padding */
    memset(dbuf, 0x5a, db);
    memset(ebuf, 0x5a, db);
    int nd = smd->ndims;
    int64_t idx[DNNL_MAX_NDIMS] = {0};
    int any = 1;
    for (int d = 0; d < nd; d++) any &= smd->dims[d] > 0;
    if (any) do gen(smd->data_type, sbuf + md_off(smd, idx) * dsz(smd->data_type)); while (next_idx(nd, smd->dims, idx));
    /* expected: padded index space of dst, zero outside dims */
    int pany = 1;
    for (int d = 0; d < nd; d++) pany &= dmd->padded_dims[d] > 0 && any;
    memset(idx, 0, sizeof idx);
    if (pany) do {
        int in = 1;
        for (int d = 0; d < nd; d++) in &= idx[d] < dmd->dims[d];
        unsigned char *dp = ebuf + md_off(dmd, idx) * dsz(dmd->data_type);
        if (in) convert(sbuf + md_off(smd, idx) * dsz(smd->data_type), smd->data_type, dp, dmd->data_type);
        else memset(dp, 0, dsz(dmd->data_type));
    } while (next_idx(nd, dmd->padded_dims, idx));
    dnnl_status_t s = reorder(smd, sbuf, dmd, dbuf);
    int ok = s == dnnl_success && memcmp(dbuf, ebuf, db) == 0;
    if (!ok && failed < 10) {
        printf("  case dt %d->%d nd %d dims", smd->data_type, dmd->data_type, nd);
        for (int d = 0; d < nd; d++) printf(" %lld", (long long)smd->dims[d]);
        printf(" status %d\n", s);
        for (size_t i = 0; i < db; i++)
            if (dbuf[i] != ebuf[i]) { printf("  first diff at byte %zu: got %02x want %02x\n", i, dbuf[i], ebuf[i]); break; }
    }
    free(sbuf);
    free(dbuf);
    free(ebuf);
    return ok;
}

typedef struct { int nd; dnnl_format_tag_t tag; } tag_t;
static const tag_t TAGS[] = {
    {1, dnnl_a}, {2, dnnl_ab}, {2, dnnl_ba}, {2, dnnl_AB16b16a}, {2, dnnl_BA16a16b},
    {3, dnnl_abc}, {3, dnnl_acb}, {3, dnnl_bac}, {3, dnnl_cba}, {3, dnnl_aBc4b}, {3, dnnl_aBc8b}, {3, dnnl_aBc16b},
    {3, dnnl_aBc32b}, {3, dnnl_Abc16a}, {3, dnnl_ABc16a16b},
    {4, dnnl_abcd}, {4, dnnl_acdb}, {4, dnnl_bacd}, {4, dnnl_dcab}, {4, dnnl_cdba}, {4, dnnl_aBcd4b}, {4, dnnl_aBcd8b},
    {4, dnnl_aBcd16b}, {4, dnnl_aBcd32b}, {4, dnnl_Abcd16a}, {4, dnnl_Abcd8a}, {4, dnnl_ABcd16a16b}, {4, dnnl_ABcd8a8b},
    {4, dnnl_aBCd16b16c},
    {5, dnnl_abcde}, {5, dnnl_acdeb}, {5, dnnl_aBcde4b}, {5, dnnl_aBcde8b}, {5, dnnl_aBcde16b}, {5, dnnl_aBcde32b},
    {6, dnnl_abcdef}, {6, dnnl_aBcdef16b},
};
#define NTAGS (int)(sizeof TAGS / sizeof TAGS[0])

static void rand_dims(int nd, dnnl_dim_t *dims) {
    static const int cs[] = {1, 3, 8, 16, 17, 19, 32, 33};
    for (int d = 0; d < nd; d++) dims[d] = 1 + rnd() % 4;
    if (nd >= 2) dims[1] = cs[rnd() % 8];
    if (rnd() % 3 == 0) dims[0] = cs[rnd() % 8];
}

static void test_all_pairs(void) {
    dnnl_dims_t dims = {2, 19, 3, 5};
    dnnl_format_tag_t lp[][2] = {{dnnl_nchw, dnnl_nchw}, {dnnl_nchw, dnnl_nChw16c}, {dnnl_nChw16c, dnnl_nhwc},
                                 {dnnl_nhwc, dnnl_nChw8c}, {dnnl_nChw8c, dnnl_nChw16c}, {dnnl_nhwc, dnnl_aBcd4b},
                                 {dnnl_aBcd32b, dnnl_nchw}};
    int bad = 0;
    for (int l = 0; l < 7; l++)
        for (int a = 0; a < 6; a++)
            for (int b = 0; b < 6; b++) {
                dnnl_memory_desc_t s, d;
                dnnl_memory_desc_init_by_tag(&s, 4, dims, DTS[a], lp[l][0]);
                dnnl_memory_desc_init_by_tag(&d, 4, dims, DTS[b], lp[l][1]);
                bad += !one_case(&s, &d);
            }
    CHECK(bad == 0);
}

static void test_random_layouts(void) {
    int bad = 0, n = 0;
    for (int it = 0; it < 400; it++) {
        const tag_t *ts = &TAGS[rnd() % NTAGS], *td;
        do td = &TAGS[rnd() % NTAGS]; while (td->nd != ts->nd);
        dnnl_dims_t dims;
        rand_dims(ts->nd, dims);
        dnnl_memory_desc_t s, d;
        dnnl_memory_desc_init_by_tag(&s, ts->nd, dims, DTS[rnd() % 6], ts->tag);
        dnnl_memory_desc_init_by_tag(&d, td->nd, dims, DTS[rnd() % 6], td->tag);
        bad += !one_case(&s, &d);
        n++;
    }
    CHECK(bad == 0);
    /* strided with gaps, random axis orders, 1D..7D */
    bad = 0;
    for (int it = 0; it < 200; it++) {
        int nd = 1 + rnd() % 7;
        dnnl_dims_t dims, ss, ds;
        for (int d = 0; d < nd; d++) dims[d] = 1 + rnd() % (nd > 5 ? 2 : 4);
        for (int side = 0; side < 2; side++) {
            int perm[7];
            for (int i = 0; i < nd; i++) perm[i] = i;
            /* 6D/7D: keep most axes in order so that dims merge to at most 5 */
            int shuffles = nd > 5 ? 1 : nd;
            for (int i = nd - 1; i > 0 && shuffles-- > 0; i--) { int j = (int)(rnd() % (unsigned)(i + 1)), t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
            dnnl_dim_t stride = 1 + rnd() % 2, *sv = side ? ds : ss;
            for (int k = nd - 1; k >= 0; k--) { sv[perm[k]] = stride; stride *= dims[perm[k]] + (nd > 5 ? 0 : rnd() % 2); }
        }
        dnnl_memory_desc_t s, d;
        dnnl_memory_desc_init_by_strides(&s, nd, dims, DTS[rnd() % 6], ss);
        dnnl_memory_desc_init_by_strides(&d, nd, dims, DTS[rnd() % 6], ds);
        dnnl_primitive_desc_t pd = NULL;
        dnnl_status_t st_ = make_pd(&pd, &s, &d);
        if (st_ == dnnl_unimplemented && nd > 5) continue; /* does not reduce to 5 axes */
        dnnl_primitive_desc_destroy(pd);
        bad += !one_case(&s, &d);
    }
    CHECK(bad == 0);
    /* sub-memories (offset0) on both sides */
    bad = 0;
    for (int it = 0; it < 60; it++) {
        dnnl_dims_t pdims = {2, 32, 5, 6}, sdims, offs;
        dnnl_format_tag_t ptag = (it % 3 == 0) ? dnnl_nchw : (it % 3 == 1) ? dnnl_nhwc : dnnl_nChw16c;
        for (int d = 0; d < 4; d++) { offs[d] = rnd() % pdims[d]; sdims[d] = 1 + rnd() % (pdims[d] - offs[d]); }
        if (ptag == dnnl_nChw16c) { offs[1] = 16 * (rnd() % 2); sdims[1] = 16; }
        dnnl_memory_desc_t parent, sub, other;
        dnnl_memory_desc_init_by_tag(&parent, 4, pdims, DTS[rnd() % 6], ptag);
        CHECK(dnnl_memory_desc_init_submemory(&sub, &parent, sdims, offs) == dnnl_success);
        dnnl_memory_desc_init_by_tag(&other, 4, sdims, DTS[rnd() % 6], (it % 2) ? dnnl_nChw8c : dnnl_nchw);
        bad += !one_case(&sub, &other);
        bad += !one_case(&other, &sub);
    }
    CHECK(bad == 0);
}

/* nchw -> nChw16c -> nhwc equals nchw -> nhwc, and the blocked copy has zero padding */
static void test_round_trip(void) {
    for (int t = 0; t < 6; t++) {
        dnnl_data_type_t dt = DTS[t];
        dnnl_dims_t dims = {2, 19, 4, 3};
        dnnl_memory_desc_t a, b, c;
        dnnl_memory_desc_init_by_tag(&a, 4, dims, dt, dnnl_nchw);
        dnnl_memory_desc_init_by_tag(&b, 4, dims, dt, dnnl_nChw16c);
        dnnl_memory_desc_init_by_tag(&c, 4, dims, dt, dnnl_nhwc);
        size_t na = dnnl_memory_desc_get_size(&a), nb = dnnl_memory_desc_get_size(&b), nc = dnnl_memory_desc_get_size(&c);
        CHECK(nb == (size_t)(2 * 32 * 4 * 3) * dsz(dt));
        unsigned char *A = malloc(na), *B = malloc(nb), *C = malloc(nc), *D = malloc(nc);
        for (size_t i = 0; i < na; i++) A[i] = (unsigned char)rnd();
        if (dt == dnnl_f16) /* f16 copies go through f32: keep to finite, nonzero values */
            for (size_t i = 0; i < na / 2; i++) { uint16_t h = (uint16_t)(0x3C00 + rnd() % 0x1000); memcpy(A + 2 * i, &h, 2); }
        memset(B, 0x77, nb);
        CHECK(reorder(&a, A, &b, B) == dnnl_success);
        CHECK(reorder(&b, B, &c, C) == dnnl_success);
        CHECK(reorder(&a, A, &c, D) == dnnl_success);
        CHECK(memcmp(C, D, nc) == 0);
        /* back to nchw: identical bytes */
        unsigned char *E = malloc(na);
        CHECK(reorder(&c, C, &a, E) == dnnl_success);
        CHECK(memcmp(A, E, na) == 0);
        int pad_ok = 1;
        for (int64_t n = 0; n < 2; n++)
            for (int64_t cc = 19; cc < 32; cc++)
                for (int64_t h = 0; h < 4; h++)
                    for (int64_t w = 0; w < 3; w++) {
                        int64_t idx[4] = {n, cc, h, w};
                        const unsigned char *p = B + md_off(&b, idx) * dsz(dt);
                        for (size_t k = 0; k < dsz(dt); k++) pad_ok &= p[k] == 0;
                    }
        CHECK(pad_ok);
        free(A); free(B); free(C); free(D); free(E);
    }
}

/* exact values of the conversion rules (a table independent of the model above) */
static void test_values(void) {
    dnnl_dims_t d = {8};
    dnnl_memory_desc_t f32, s8, u8, s32, bf16, f16, s32b;
    dnnl_memory_desc_init_by_tag(&f32, 1, d, dnnl_f32, dnnl_a);
    dnnl_memory_desc_init_by_tag(&s8, 1, d, dnnl_s8, dnnl_a);
    dnnl_memory_desc_init_by_tag(&u8, 1, d, dnnl_u8, dnnl_a);
    dnnl_memory_desc_init_by_tag(&s32, 1, d, dnnl_s32, dnnl_a);
    dnnl_memory_desc_init_by_tag(&bf16, 1, d, dnnl_bf16, dnnl_a);
    dnnl_memory_desc_init_by_tag(&f16, 1, d, dnnl_f16, dnnl_a);
    s32b = s32;
    float fv[8] = {0.5f, 1.5f, 2.5f, -1.5f, 127.5f, -129.f, 300.f, NAN};
    int8_t s8v[8]; uint8_t u8v[8]; int32_t s32v[8];
    CHECK(reorder(&f32, fv, &s8, s8v) == dnnl_success);
    CHECK(reorder(&f32, fv, &u8, u8v) == dnnl_success);
    CHECK(reorder(&f32, fv, &s32, s32v) == dnnl_success);
    int8_t s8w[8] = {0, 2, 2, -2, 127, -128, 127, 127};
    uint8_t u8w[8] = {0, 2, 2, 0, 128, 0, 255, 0};
    int32_t s32w[8] = {0, 2, 2, -2, 128, -129, 300, 2147483520};
    CHECK(memcmp(s8v, s8w, 8) == 0);
    CHECK(memcmp(u8v, u8w, 8) == 0);
    CHECK(memcmp(s32v, s32w, 32) == 0);
    /* s32 same-type copy is exact; s32 -> f32 rounds */
    int32_t iv[8] = {16777217, 2147483647, INT32_MIN, 123456789, -5, 0, 1, -16777217}, iw[8];
    float ff[8];
    CHECK(reorder(&s32, iv, &s32b, iw) == dnnl_success);
    CHECK(memcmp(iv, iw, 32) == 0);
    CHECK(reorder(&s32, iv, &f32, ff) == dnnl_success);
    CHECK(ff[0] == 16777216.f && ff[1] == 2147483648.f && ff[3] == 123456792.f && ff[7] == -16777216.f);
    /* u8 200 -> s8 127, s8 -5 -> u8 0, s32 -> s8 saturates */
    uint8_t uv[8] = {200, 0, 1, 127, 128, 255, 3, 4};
    int8_t sv[8];
    CHECK(reorder(&u8, uv, &s8, sv) == dnnl_success);
    CHECK(sv[0] == 127 && sv[4] == 127 && sv[3] == 127 && sv[6] == 3);
    int8_t sx[8] = {-5, -128, 127, 0, 1, -1, 2, 3};
    uint8_t ux[8];
    CHECK(reorder(&s8, sx, &u8, ux) == dnnl_success);
    CHECK(ux[0] == 0 && ux[1] == 0 && ux[2] == 127 && ux[5] == 0);
    CHECK(reorder(&s32, iv, &s8, sv) == dnnl_success);
    CHECK(sv[0] == 127 && sv[1] == 127 && sv[2] == -128 && sv[4] == -5);
    /* bf16: same-type keeps a signalling NaN; f32 -> bf16 rounds, flushes, quiets */
    uint16_t bv[8] = {0x7F81, 0xFF81, 0x0001, 0x8001, 0x3F80, 0x7F80, 0x8000, 0x4F00}, bw[8];
    dnnl_memory_desc_t bf16b = bf16;
    CHECK(reorder(&bf16, bv, &bf16b, bw) == dnnl_success);
    CHECK(memcmp(bv, bw, 16) == 0);
    uint32_t fb[8] = {0x7F800001u, 0x00000001u, 0x80000001u, 0x3F808000u, 0x3F818000u, 0x7F7FFFFFu, 0x80000000u, 0x7FA12345u};
    CHECK(reorder(&f32, fb, &bf16, bw) == dnnl_success);
    uint16_t bwant[8] = {0x7FC0, 0x0000, 0x8000, 0x3F80, 0x3F82, 0x7F80, 0x8000, 0x7FE1};
    CHECK(memcmp(bw, bwant, 16) == 0);
    CHECK(reorder(&bf16, bv, &f32, ff) == dnnl_success);
    CHECK(f2u(ff[0]) == 0x7F810000u && f2u(ff[2]) == 0x00010000u && f2u(ff[6]) == 0x80000000u);
    /* f16: through 1*x+0 in f32: -0 -> +0, sNaN quieted, overflow -> inf */
    uint16_t hv[8] = {0x8000, 0x7C01, 0x0001, 0x8001, 0x3C00, 0xFBFF, 0x7E00, 0x5BF8}, hw[8];
    dnnl_memory_desc_t f16b = f16;
    CHECK(reorder(&f16, hv, &f16b, hw) == dnnl_success);
    uint16_t hwant[8] = {0x0000, 0x7E01, 0x0001, 0x8001, 0x3C00, 0xFBFF, 0x7E00, 0x5BF8};
    CHECK(memcmp(hw, hwant, 16) == 0);
    CHECK(reorder(&f16, hv, &f32, ff) == dnnl_success);
    CHECK(f2u(ff[0]) == 0 && f2u(ff[1]) == 0x7FC02000u && f2u(ff[2]) == 0x33800000u && ff[7] == 255.f);
    float fh[8] = {-0.f, 65519.f, 65520.f, 3e-8f, 2.98e-8f, -1e-5f, 1.00048828125f, 1.00146484375f};
    CHECK(reorder(&f32, fh, &f16, hw) == dnnl_success);
    uint16_t fhw[8] = {0x0000, 0x7BFF, 0x7C00, 0x0001, 0x0000, 0x80A8, 0x3C00, 0x3C02};
    CHECK(memcmp(hw, fhw, 16) == 0);
}

static void test_errors_and_queries(void) {
    dnnl_dims_t dims = {2, 19, 5, 7}, dims2 = {2, 19, 5, 8}, d5 = {2, 19, 5, 7, 1};
    dnnl_memory_desc_t s, d, any, bad, m5, z, undef, rt;
    dnnl_memory_desc_init_by_tag(&s, 4, dims, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_init_by_tag(&d, 4, dims, dnnl_bf16, dnnl_nChw16c);
    dnnl_memory_desc_init_by_tag(&any, 4, dims, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&bad, 4, dims2, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_init_by_tag(&m5, 5, d5, dnnl_f32, dnnl_ncdhw);
    memset(&z, 0, sizeof z);
    undef = s;
    undef.data_type = dnnl_data_type_undef;
    rt = s;
    rt.dims[0] = DNNL_RUNTIME_DIM_VAL;
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_reorder_primitive_desc_create(NULL, &s, eng, &d, eng, NULL) == dnnl_invalid_arguments);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, NULL, eng, &d, eng, NULL) == dnnl_invalid_arguments);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &s, eng, NULL, eng, NULL) == dnnl_invalid_arguments);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &s, NULL, &d, eng, NULL) == dnnl_invalid_arguments);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &s, eng, &d, NULL, NULL) == dnnl_invalid_arguments);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &s, (dnnl_engine_t)&s, &d, eng, NULL) == dnnl_invalid_arguments);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &any, eng, &d, eng, NULL) == dnnl_invalid_arguments);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &s, eng, &any, eng, NULL) == dnnl_invalid_arguments);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &s, eng, &bad, eng, NULL) == dnnl_invalid_arguments);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &s, eng, &m5, eng, NULL) == dnnl_invalid_arguments);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &z, eng, &z, eng, NULL) == dnnl_unimplemented);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &undef, eng, &d, eng, NULL) == dnnl_unimplemented);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &rt, eng, &d, eng, NULL) == dnnl_invalid_arguments);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &s, eng, &d, eng, (const_dnnl_primitive_attr_t)&s) == dnnl_invalid_arguments);
    /* double blocking on one dim: not supported by this library */
    dnnl_memory_desc_t dbl;
    dnnl_memory_desc_init_by_tag(&dbl, 4, dims, dnnl_f32, dnnl_ABcd8b16a2b);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &s, eng, &dbl, eng, NULL) == dnnl_unimplemented);
    /* overlapping dst strides */
    dnnl_memory_desc_t ov;
    dnnl_dims_t ovs = {1, 1, 1, 1};
    dnnl_memory_desc_init_by_strides(&ov, 4, dims, dnnl_f32, ovs);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &s, eng, &ov, eng, NULL) == dnnl_unimplemented);
    /* an overlapping src addresses more bytes than dnnl_memory_desc_get_size reports, so a
     * buffer of that size would be read past: refused (libdnnl accepts it) */
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &ov, eng, &s, eng, NULL) == dnnl_unimplemented);
    /* default attrs (scratchpad mode user) are accepted */
    dnnl_primitive_attr_t attr;
    dnnl_primitive_attr_create(&attr);
    dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &s, eng, &d, eng, attr) == dnnl_success);
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);

    /* queries; a second CPU engine as dst engine */
    dnnl_engine_t eng2;
    dnnl_engine_create(&eng2, dnnl_cpu, 0);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &s, eng, &d, eng2, NULL) == dnnl_success);
    dnnl_primitive_kind_t k = dnnl_undefined_primitive;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, &k) == dnnl_success && k == dnnl_reorder);
    CHECK(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) == 1);
    CHECK(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_outputs_s32, 0) == 1);
    dnnl_engine_t e = NULL;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_engine, 0, &e) == dnnl_success && e == eng);
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_reorder_src_engine, 0, &e) == dnnl_success && e == eng);
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_reorder_dst_engine, 0, &e) == dnnl_success && e == eng2);
    const char *impl = NULL;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl && strlen(impl) > 0);
    const int *opd = NULL;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_op_d, 0, &opd) == dnnl_success && opd && *opd == dnnl_reorder);
    dnnl_prop_kind_t pk;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &pk) == dnnl_unimplemented);
    const dnnl_memory_desc_t *q = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    CHECK(q && dnnl_memory_desc_equal(q, &s));
    q = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    CHECK(q && dnnl_memory_desc_equal(q, &d));
    q = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_FROM);
    CHECK(q && dnnl_memory_desc_equal(q, &s));
    q = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_TO);
    CHECK(q && dnnl_memory_desc_equal(q, &d));
    q = dnnl_primitive_desc_query_md(pd, dnnl_query_diff_src_md, 0);
    CHECK(q && q->ndims == 0);
    q = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 1);
    CHECK(q && q->ndims == 0);
    q = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    CHECK(q && q->ndims == 0);
    dnnl_primitive_desc_t cl;
    CHECK(dnnl_primitive_desc_clone(&cl, pd) == dnnl_success);
    k = dnnl_undefined_primitive;
    CHECK(dnnl_primitive_desc_query(cl, dnnl_query_primitive_kind, 0, &k) == dnnl_success && k == dnnl_reorder);
    dnnl_primitive_desc_destroy(cl);

    /* execute rules */
    dnnl_primitive_t p;
    CHECK(dnnl_primitive_create(&p, pd) == dnnl_success);
    dnnl_primitive_desc_destroy(pd);
    const_dnnl_primitive_desc_t ppd;
    CHECK(dnnl_primitive_get_primitive_desc(p, &ppd) == dnnl_success);
    k = dnnl_undefined_primitive;
    CHECK(dnnl_primitive_desc_query(ppd, dnnl_query_primitive_kind, 0, &k) == dnnl_success && k == dnnl_reorder);
    dnnl_memory_t ms, md, md2;
    dnnl_memory_create(&ms, &s, eng, DNNL_MEMORY_ALLOCATE);
    dnnl_memory_create(&md, &d, eng2, DNNL_MEMORY_ALLOCATE);
    dnnl_memory_create(&md2, &d, eng, DNNL_MEMORY_ALLOCATE);
    float *sp;
    dnnl_memory_get_data_handle(ms, (void **)&sp);
    for (int i = 0; i < 2 * 19 * 35; i++) sp[i] = (float)i;
    CHECK(exec2(p, ms, md) == dnnl_success);
    {
        dnnl_exec_arg_t a[] = {{DNNL_ARG_FROM, ms}};
        CHECK(dnnl_primitive_execute(p, st, 1, a) == dnnl_invalid_arguments);
    }
    {
        dnnl_exec_arg_t a[] = {{DNNL_ARG_TO, md}};
        CHECK(dnnl_primitive_execute(p, st, 1, a) == dnnl_invalid_arguments);
    }
    {
        dnnl_exec_arg_t a[] = {{DNNL_ARG_FROM, ms}, {DNNL_ARG_TO, md}, {DNNL_ARG_TO, md2}};
        CHECK(dnnl_primitive_execute(p, st, 3, a) == dnnl_invalid_arguments);
    }
    {
        dnnl_exec_arg_t a[] = {{DNNL_ARG_FROM, ms}, {DNNL_ARG_TO, md}, {DNNL_ARG_WEIGHTS, md2}, {DNNL_ARG_DIFF_DST, md2}};
        CHECK(dnnl_primitive_execute(p, st, 4, a) == dnnl_success);
    }
    {
        dnnl_exec_arg_t a[] = {{DNNL_ARG_FROM, ms}, {DNNL_ARG_TO, NULL}};
        CHECK(dnnl_primitive_execute(p, st, 2, a) == dnnl_invalid_arguments);
    }
    dnnl_stream_t st2;
    dnnl_stream_create(&st2, eng2, dnnl_stream_default_flags);
    {
        dnnl_exec_arg_t a[] = {{DNNL_ARG_FROM, ms}, {DNNL_ARG_TO, md}};
        CHECK(dnnl_primitive_execute(p, st2, 2, a) == dnnl_invalid_arguments); /* runs on the src engine */
        CHECK(dnnl_primitive_execute(p, NULL, 2, a) == dnnl_invalid_arguments);
        CHECK(dnnl_primitive_execute(NULL, st, 2, a) == dnnl_invalid_arguments);
    }
    /* values landed: bf16 of small integers is exact */
    uint16_t *dp;
    dnnl_memory_get_data_handle(md, (void **)&dp);
    int64_t idx[4] = {1, 18, 4, 6};
    CHECK(dp[md_off(&d, idx)] == f_to_bf16((float)(1 * 665 + 18 * 35 + 4 * 7 + 6)));
    dnnl_stream_destroy(st2);
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(md);
    dnnl_memory_destroy(md2);
    dnnl_primitive_destroy(p);
    dnnl_engine_destroy(eng2);

    /* zero-sized tensors: success, nothing written */
    dnnl_dims_t zd = {0, 19, 5, 7};
    dnnl_memory_desc_t za, zb;
    dnnl_memory_desc_init_by_tag(&za, 4, zd, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_init_by_tag(&zb, 4, zd, dnnl_s8, dnnl_nChw16c);
    CHECK(reorder(&za, NULL, &zb, NULL) == dnnl_success);
    /* 7-D dims that merge down to 5 axes, and ones that do not */
    dnnl_dims_t d7 = {2, 3, 2, 2, 3, 2, 2};
    dnnl_memory_desc_t a7, b7;
    dnnl_memory_desc_init_by_tag(&a7, 7, d7, dnnl_f32, dnnl_abcdefg);
    dnnl_memory_desc_init_by_tag(&b7, 7, d7, dnnl_s32, dnnl_abcdefg);
    CHECK(one_case(&a7, &b7));
    dnnl_dims_t rs7;
    dnnl_dim_t acc = 1;
    for (int i = 0; i < 7; i++) { rs7[i] = acc; acc *= d7[i]; } /* fully reversed axis order */
    dnnl_memory_desc_init_by_strides(&b7, 7, d7, dnnl_f32, rs7);
    CHECK(dnnl_reorder_primitive_desc_create(&pd, &a7, eng, &b7, eng, NULL) == dnnl_unimplemented);
}

int main(void) {
    dnnl_engine_create(&eng, dnnl_cpu, 0);
    dnnl_stream_create(&st, eng, dnnl_stream_default_flags);
    test_values();
    test_all_pairs();
    test_random_layouts();
    test_round_trip();
    test_errors_and_queries();
    dnnl_stream_destroy(st);
    dnnl_engine_destroy(eng);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
