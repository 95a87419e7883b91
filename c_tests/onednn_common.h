/* Shared helpers for the oneDNN-face C tests: checks, a small RNG, element load/store with
 * oneDNN 2.6 conversion rules, and an independent plain-C model of the resampling formulas
 * of docs/spec/onednn.md (sections 2 and 3), written from the spec, not from the library. */
#ifndef ONEDNN_COMMON_H
#define ONEDNN_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

static int passed, failed;
#define CHECK(c)                                                               \
    do {                                                                       \
        if (c)                                                                 \
            passed++;                                                          \
        else {                                                                 \
            failed++;                                                          \
            if (failed < 40) printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); \
        }                                                                      \
    } while (0)
#define CHECK_ST(x, want) CHECK((x) == (want))
#define FINISH()                                           \
    do {                                                   \
        printf("%d passed, %d failed\n", passed, failed);  \
        return failed != 0;                                \
    } while (0)

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}
static int rnd_range(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }

/* ---- elements ---- */
static size_t dt_size(dnnl_data_type_t dt) {
    switch (dt) {
    case dnnl_f32: case dnnl_s32: return 4;
    case dnnl_bf16: case dnnl_f16: return 2;
    default: return 1;
    }
}
static float bf16_to_f(uint16_t b) { uint32_t u = (uint32_t)b << 16; float f; memcpy(&f, &u, 4); return f; }
static uint16_t f_to_bf16(float f) {
    uint32_t u; memcpy(&u, &f, 4);
    if ((u & 0x7F800000u) == 0) return (uint16_t)((u >> 16) & 0x8000u); /* flush subnormals */
    uint32_t lsb = (u >> 16) & 1u;
    return (uint16_t)((u + 0x7FFFu + lsb) >> 16);
}
static float load_el(const void *base, int64_t off, dnnl_data_type_t dt) {
    const char *p = (const char *)base + off * (int64_t)dt_size(dt);
    switch (dt) {
    case dnnl_f32: { float v; memcpy(&v, p, 4); return v; }
    case dnnl_s32: { int32_t v; memcpy(&v, p, 4); return (float)v; }
    case dnnl_bf16: { uint16_t v; memcpy(&v, p, 2); return bf16_to_f(v); }
    case dnnl_s8: return (float)*(const int8_t *)p;
    case dnnl_u8: return (float)*(const uint8_t *)p;
    default: return NAN;
    }
}
static float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }
/* oneDNN saturate_and_round then store; returns the stored value as float */
static float round_to_dt(float v, dnnl_data_type_t dt) {
    switch (dt) {
    case dnnl_f32: return v;
    case dnnl_bf16: return bf16_to_f(f_to_bf16(v));
    case dnnl_s32: return (float)(int32_t)nearbyintf(clampf(v, -2147483648.f, 2147483520.f));
    case dnnl_s8: return (float)(int8_t)nearbyintf(clampf(v, -128.f, 127.f));
    case dnnl_u8: return (float)(uint8_t)nearbyintf(clampf(v, 0.f, 255.f));
    default: return NAN;
    }
}
static void store_el(void *base, int64_t off, dnnl_data_type_t dt, float v) {
    char *p = (char *)base + off * (int64_t)dt_size(dt);
    float r = round_to_dt(v, dt);
    switch (dt) {
    case dnnl_f32: memcpy(p, &r, 4); break;
    case dnnl_s32: { int32_t i = (int32_t)r; memcpy(p, &i, 4); } break;
    case dnnl_bf16: { uint16_t b = f_to_bf16(v); memcpy(p, &b, 2); } break;
    case dnnl_s8: *(int8_t *)p = (int8_t)r; break;
    case dnnl_u8: *(uint8_t *)p = (uint8_t)r; break;
    default: break;
    }
}

/* element offset of a logical index in a blocked md (independent of the library) */
static int64_t md_off(const dnnl_memory_desc_t *md, const int64_t *idx) {
    const dnnl_blocking_desc_t *b = &md->format_desc.blocking;
    int64_t blk[DNNL_MAX_NDIMS];
    for (int d = 0; d < md->ndims; d++) blk[d] = 1;
    for (int k = 0; k < b->inner_nblks; k++) blk[b->inner_idxs[k]] *= b->inner_blks[k];
    int64_t off = md->offset0;
    for (int d = 0; d < md->ndims; d++) off += idx[d] / blk[d] * b->strides[d];
    int64_t mult = 1, rem[DNNL_MAX_NDIMS];
    for (int d = 0; d < md->ndims; d++) rem[d] = idx[d] % blk[d];
    for (int k = b->inner_nblks - 1; k >= 0; k--) {
        int d = (int)b->inner_idxs[k];
        off += (rem[d] % b->inner_blks[k]) * mult;
        rem[d] /= b->inner_blks[k];
        mult *= b->inner_blks[k];
    }
    return off;
}

/* fills every logical element with a random value representable in dt */
static void fill_md(const dnnl_memory_desc_t *md, void *buf) {
    int64_t n = 1, idx[5];
    for (int d = 0; d < md->ndims; d++) n *= md->dims[d];
    for (int64_t e = 0; e < n; e++) {
        int64_t r = e;
        for (int d = md->ndims - 1; d >= 0; d--) { idx[d] = r % md->dims[d]; r /= md->dims[d]; }
        float v;
        switch (md->data_type) {
        case dnnl_s8: v = (float)rnd_range(-128, 127); break;
        case dnnl_u8: v = (float)rnd_range(0, 255); break;
        case dnnl_s32: v = (float)rnd_range(-100000, 100000); break;
        default: v = (float)rnd_range(-4000, 4000) / 256.f; break;
        }
        store_el(buf, md_off(md, idx), md->data_type, v);
    }
}

/* ---- the model (docs/spec/onednn.md §2, §3) ---- */
static float linear_map(int64_t y, int64_t y_max, int64_t x_max) {
    return ((float)y + 0.5f) * (float)x_max / (float)y_max - 0.5f;
}
static int64_t nearest_idx(int64_t y, int64_t y_max, int64_t x_max) {
    int64_t i = (int64_t)roundf(linear_map(y, y_max, x_max));
    return i < 0 ? 0 : i > x_max - 1 ? x_max - 1 : i;
}
static int64_t ceil_idx(float x) {
    if (x < 0) return 0;
    return (int64_t)x == x ? (int64_t)x : (int64_t)x + 1;
}
typedef struct { int64_t idx[2]; float wei[2]; } lin_t;
static lin_t linear_coeffs(int64_t y, int64_t O, int64_t I) {
    lin_t c;
    float s = linear_map(y, O, I);
    c.idx[0] = (int64_t)s > 0 ? (int64_t)s : 0;
    int64_t ci = ceil_idx(s);
    c.idx[1] = ci < I - 1 ? ci : I - 1;
    c.wei[1] = fabsf(s - (float)c.idx[0]);
    c.wei[0] = 1.f - c.wei[1];
    return c;
}
static float lerp(float c0, float c1, float w) { return c0 * w + c1 * (1.f - w); }

/* spatial sizes as 3D (D,H,W), 1 for missing dims */
static void sp3(const dnnl_memory_desc_t *md, int64_t *s) {
    int nd = md->ndims;
    s[0] = nd >= 5 ? md->dims[nd - 3] : 1;
    s[1] = nd >= 4 ? md->dims[nd - 2] : 1;
    s[2] = md->dims[nd - 1];
}
static void full_idx(int nd, int64_t n, int64_t c, const int64_t *dhw, int64_t *idx) {
    idx[0] = n; idx[1] = c;
    if (nd == 5) { idx[2] = dhw[0]; idx[3] = dhw[1]; idx[4] = dhw[2]; }
    else if (nd == 4) { idx[2] = dhw[1]; idx[3] = dhw[2]; }
    else idx[2] = dhw[2];
}

/* forward model: expected f32 results (before the dst conversion), logical order N,C,OD,OH,OW */
static float *model_forward(int linear, const dnnl_memory_desc_t *smd, const void *src, const dnnl_memory_desc_t *dmd) {
    int nd = smd->ndims;
    int64_t I[3], O[3], N = smd->dims[0], C = smd->dims[1];
    sp3(smd, I); sp3(dmd, O);
    float *out = malloc(sizeof(float) * (size_t)(N * C * O[0] * O[1] * O[2]) + 1);
    size_t k = 0;
    for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++)
    for (int64_t od = 0; od < O[0]; od++)
    for (int64_t oh = 0; oh < O[1]; oh++)
    for (int64_t ow = 0; ow < O[2]; ow++) {
        int64_t idx[5], p[3];
        if (!linear) {
            p[0] = nearest_idx(od, O[0], I[0]); p[1] = nearest_idx(oh, O[1], I[1]); p[2] = nearest_idx(ow, O[2], I[2]);
            full_idx(nd, n, c, p, idx);
            out[k++] = load_el(src, md_off(smd, idx), smd->data_type);
        } else {
            lin_t cd = linear_coeffs(od, O[0], I[0]), ch = linear_coeffs(oh, O[1], I[1]), cw = linear_coeffs(ow, O[2], I[2]);
            float cv[2][2][2];
            for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++) for (int l = 0; l < 2; l++) {
                p[0] = cd.idx[i]; p[1] = ch.idx[j]; p[2] = cw.idx[l];
                full_idx(nd, n, c, p, idx);
                cv[i][j][l] = load_el(src, md_off(smd, idx), smd->data_type);
            }
            out[k++] = lerp(lerp(lerp(cv[0][0][0], cv[1][0][0], cd.wei[0]), lerp(cv[0][1][0], cv[1][1][0], cd.wei[0]), ch.wei[0]),
                            lerp(lerp(cv[0][0][1], cv[1][0][1], cd.wei[0]), lerp(cv[0][1][1], cv[1][1][1], cd.wei[0]), ch.wei[0]),
                            cw.wei[0]);
        }
    }
    return out;
}

/* backward ranges (§3): per input x, [start,end) of outputs for tap t */
typedef struct { int64_t start[2], end[2]; } bwd_t;
static bwd_t bwd_nearest(int64_t x, int64_t O, int64_t I) {
    bwd_t r;
    r.start[0] = ceil_idx(((float)x * O / I) - 0.5f);
    r.end[0] = ceil_idx(((x + 1.f) * O / I) - 0.5f);
    if (r.end[0] > O) r.end[0] = O;
    r.start[1] = r.end[1] = 0;
    return r;
}
static bwd_t bwd_linear(int64_t x, int64_t O, int64_t I) {
    bwd_t r;
    r.start[0] = x == 0 ? 0 : ceil_idx(linear_map(x, I, O));
    r.end[0] = ceil_idx(linear_map(x + 1, I, O));
    if (r.end[0] > O) r.end[0] = O;
    float s = linear_map(x - 1, I, O);
    r.start[1] = s < 0 ? 0 : (int64_t)s + 1;
    if (x == I - 1) r.end[1] = O;
    else {
        float s2 = linear_map(x, I, O);
        r.end[1] = s2 < 0 ? 0 : (int64_t)s2 + 1;
        if (r.end[1] > O) r.end[1] = O;
    }
    return r;
}
static float linear_weight(int t, int64_t o, int64_t O, int64_t I) {
    float s = linear_map(o, O, I);
    float w = fabsf(s - (float)(int64_t)s);
    return t == 0 ? 1.f - w : w;
}

/* backward model: diff_src (f32, logical order) from diff_dst */
static float *model_backward(int linear, const dnnl_memory_desc_t *dsrc_md, const dnnl_memory_desc_t *ddst_md, const void *ddst) {
    int nd = dsrc_md->ndims;
    int64_t I[3], O[3], N = dsrc_md->dims[0], C = dsrc_md->dims[1];
    sp3(dsrc_md, I); sp3(ddst_md, O);
    float *out = malloc(sizeof(float) * (size_t)(N * C * I[0] * I[1] * I[2]) + 1);
    size_t k = 0;
    for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++)
    for (int64_t id = 0; id < I[0]; id++)
    for (int64_t ih = 0; ih < I[1]; ih++)
    for (int64_t iw = 0; iw < I[2]; iw++) {
        float acc = 0.f;
        int64_t idx[5], p[3];
        if (!linear) {
            bwd_t d = bwd_nearest(id, O[0], I[0]), h = bwd_nearest(ih, O[1], I[1]), w = bwd_nearest(iw, O[2], I[2]);
            for (p[0] = d.start[0]; p[0] < d.end[0]; p[0]++)
            for (p[1] = h.start[0]; p[1] < h.end[0]; p[1]++)
            for (p[2] = w.start[0]; p[2] < w.end[0]; p[2]++) {
                full_idx(nd, n, c, p, idx);
                acc += load_el(ddst, md_off(ddst_md, idx), ddst_md->data_type);
            }
        } else {
            bwd_t d = bwd_linear(id, O[0], I[0]), h = bwd_linear(ih, O[1], I[1]), w = bwd_linear(iw, O[2], I[2]);
            for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++) for (int l = 0; l < 2; l++)
            for (p[0] = d.start[i]; p[0] < d.end[i]; p[0]++)
            for (p[1] = h.start[j]; p[1] < h.end[j]; p[1]++)
            for (p[2] = w.start[l]; p[2] < w.end[l]; p[2]++) {
                full_idx(nd, n, c, p, idx);
                float dd = load_el(ddst, md_off(ddst_md, idx), ddst_md->data_type);
                acc += dd * linear_weight(i, p[0], O[0], I[0]) * linear_weight(j, p[1], O[1], I[1]) * linear_weight(l, p[2], O[2], I[2]);
            }
        }
        out[k++] = acc;
    }
    return out;
}

/* compares the library output (md/buf) with the model (f32, logical order).
 * nearest: exact after the dst conversion; linear: 7*2^-23 relative (absolute below 1e-5)
 * for f32, one dst ulp for bf16, and the x.5 tie allowance for integers. Returns mismatches. */
static int compare_out(int linear, const dnnl_memory_desc_t *md, const void *buf, const float *exp, int *exact) {
    int64_t n = 1, idx[5];
    int bad = 0;
    for (int d = 0; d < md->ndims; d++) n *= md->dims[d];
    for (int64_t e = 0; e < n; e++) {
        int64_t r = e;
        for (int d = md->ndims - 1; d >= 0; d--) { idx[d] = r % md->dims[d]; r /= md->dims[d]; }
        float got = load_el(buf, md_off(md, idx), md->data_type);
        float want = round_to_dt(exp[e], md->data_type);
        if (got == want || (isnan(got) && isnan(want))) continue;
        if (exact) *exact = 0;
        int ok = 0;
        if (linear) {
            float diff = fabsf(got - want);
            switch (md->data_type) {
            case dnnl_f32: ok = (fabsf(want) > 1e-5f ? diff / fabsf(want) : diff) <= 7.f / 8388608.f; break;
            case dnnl_bf16: ok = diff <= fabsf(want) / 128.f; break;
            default: ok = fabsf(fabsf(exp[e] - floorf(exp[e])) - 0.5f) < 9e-6f && diff <= 1.f; break;
            }
        }
        if (!ok) {
            if (bad < 3) printf("  mismatch at %lld: got %.9g want %.9g (model %.9g)\n", (long long)e, got, want, exp[e]);
            bad++;
        }
    }
    return bad;
}

#endif
