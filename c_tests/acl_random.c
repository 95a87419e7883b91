// link: -lm
/* Randomised C comparison of the Ascend operators against a plain C model of PyTorch's CPU
 * formulas (UpSample.h: compute_scales_value, nearest_neighbor[_exact]_compute_source_index;
 * UpSampleMoreKernel.cpp: cpu_upsample_nearest_backward) with the per-API scale rules of
 * docs/spec/ascend.md §4.1 / §5.1. Sizes 1..300, with and without scales, f32/f16/bf16,
 * channels-first and channels-last. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_nearest_1d_v2.h"
#include "aclnnop/aclnn_upsample_nearest_2d_v2.h"
#include "aclnnop/aclnn_upsample_nearest_3d.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"
#include "aclnnop/aclnn_upsample_nearest_2d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_3d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact1d_backward.h"

static int passed, failed;
static uint64_t rs = 0x1234567887654321ull;
static uint64_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
static int64_t rr(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }
static double unit(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

/* ---- PyTorch formulas */
static float compute_scales_value(double scale, int64_t in, int64_t out) {
    return scale > 0. ? (float)(1.0 / scale) : (float)in / (float)out;
}
static int64_t nearest_src(float scale, int64_t dst, int64_t in) {
    int64_t s = (int64_t)floorf((float)dst * scale);
    return s < in - 1 ? s : in - 1;
}
static int64_t exact_src(float scale, int64_t dst, int64_t in) {
    int64_t s = (int64_t)floorf((dst + 0.5) * scale);
    return s < in - 1 ? s : in - 1;
}

/* ---- value helpers (f32, f16, bf16 as raw bits; the model accumulates in float) */
static size_t esz(aclDataType dt) { return dt == ACL_FLOAT ? 4 : 2; }
static float h2f(uint16_t h) { return aclFloat16ToFloat(h); }
static float bf2f(uint16_t b) { uint32_t u = (uint32_t)b << 16; float f; memcpy(&f, &u, 4); return f; }
static uint16_t f2bf(float f) { uint32_t u; memcpy(&u, &f, 4); return (uint16_t)((u + 0x7FFF + ((u >> 16) & 1)) >> 16); }
static float load(const void *p, size_t i, aclDataType dt) {
    if (dt == ACL_FLOAT) return ((const float *)p)[i];
    uint16_t b = ((const uint16_t *)p)[i];
    return dt == ACL_FLOAT16 ? h2f(b) : bf2f(b);
}
static uint32_t bits(const void *p, size_t i, aclDataType dt) {
    return dt == ACL_FLOAT ? ((const uint32_t *)p)[i] : ((const uint16_t *)p)[i];
}
static uint32_t round_to(float v, aclDataType dt) {
    uint32_t u;
    if (dt == ACL_FLOAT) { memcpy(&u, &v, 4); return u; }
    return dt == ACL_FLOAT16 ? aclFloatToFloat16(v) : f2bf(v);
}

/* Physical offset of a logical (n, c, s0, s1, s2) in a contiguous tensor, channels-last or not. */
static size_t poff(const int64_t *l, int k, int cl, const int64_t *i) {
    /* logical dims l = [N, C, S...]; physical order N, (C), S..., (C) */
    int64_t order[5];
    int r = k + 2, p = 0;
    order[p++] = 0;
    if (!cl) order[p++] = 1;
    for (int d = 0; d < k; d++) order[p++] = 2 + d;
    if (cl) order[p++] = 1;
    size_t off = 0;
    for (int q = 0; q < r; q++) off = off * (size_t)l[order[q]] + (size_t)i[order[q]];
    return off;
}

static aclTensor *mk(void *mem, const int64_t *l, int k, int cl, aclDataType dt, aclFormat fmt) {
    int64_t phys[5];
    int p = 0;
    phys[p++] = l[0];
    if (!cl) phys[p++] = l[1];
    for (int d = 0; d < k; d++) phys[p++] = l[2 + d];
    if (cl) phys[p++] = l[1];
    return aclCreateTensor(phys, (uint64_t)(k + 2), dt, NULL, 0, fmt, phys, (uint64_t)(k + 2), mem);
}

static int64_t prod(const int64_t *v, int n) { int64_t p = 1; for (int i = 0; i < n; i++) p *= v[i]; return p; }

typedef enum { F3D, FE3D, F1DV2, F2DV2, FE2D, B2D, B3D, BE1D } Api;
static const char *names[] = {"3d", "exact3d", "1dV2", "2dV2", "exact2d", "2dBackward", "3dBackward", "exact1dBackward"};

static void one(Api api) {
    int k = api == F3D || api == FE3D || api == B3D ? 3 : (api == F1DV2 || api == BE1D ? 1 : 2);
    int bwd = api >= B2D, exact = api == FE3D || api == FE2D || api == BE1D;
    int64_t in[3], out[3];
    double sc[3];
    int64_t budget = k == 1 ? 300 : (k == 2 ? 20000 : 30000);
    for (int d = 0; d < k; d++) {
        in[d] = rr(1, 300);
        out[d] = rr(0, 3) == 0 ? 2 * in[d] : rr(1, 300);
    }
    while (prod(in, k) > budget || prod(out, k) > budget)
        for (int d = 0; d < k; d++) { in[d] = in[d] / 2 + 1; out[d] = out[d] / 2 + 1; }
    int mode = (int)rr(0, 2);
    for (int d = 0; d < k; d++) sc[d] = mode == 0 ? 0.0 : mode == 1 ? (double)out[d] / (double)in[d] : 0.25 + unit() * 4;
    if (api == FE3D && mode == 2)
        for (int d = 0; d < k; d++) { out[d] = (int64_t)(in[d] * sc[d]); if (out[d] < 1) { out[d] = in[d]; sc[d] = 1.0; } }
    if (api == BE1D) for (int d = 0; d < k; d++) if (1.0 / sc[d] < 0.02 || (sc[d] <= 0 && (double)in[d] / out[d] < 0.02)) { sc[d] = 0; out[d] = in[d]; }
    if (api == F1DV2 || api == F2DV2) for (int d = 0; d < k; d++) sc[d] = (float)sc[d];
    aclDataType dts[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    aclDataType dt = dts[rr(0, 2)];
    int cl = (k >= 2 && api != BE1D && rr(0, 1)) ? 1 : 0;
    aclFormat fmt = k == 1 ? ACL_FORMAT_NCL : k == 2 ? (cl ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW) : (cl ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW);
    int64_t N = rr(1, 2), C = rr(1, 5);
    int64_t li[5] = {N, C}, lo[5] = {N, C};
    for (int d = 0; d < k; d++) { li[2 + d] = in[d]; lo[2 + d] = out[d]; }
    /* index tables by the API's rule */
    int64_t *tab[3];
    int all = 1;
    for (int d = 0; d < k; d++) all &= sc[d] > 0;
    for (int d = 0; d < k; d++) {
        tab[d] = malloc(sizeof(int64_t) * (size_t)out[d]);
        for (int64_t o = 0; o < out[d]; o++) {
            double s = sc[d];
            if (api == F3D || api == FE3D || api == B3D) s = all ? sc[d] : 0;
            float r = compute_scales_value(s, in[d], out[d]);
            int64_t v;
            if (api == F2DV2 && all) {
                int vec = (cl && C > 3) || out[0] + out[1] <= 128;
                v = in[d] == out[d] ? o : (out[d] == 2 * in[d] && vec) ? (o >> 1) : nearest_src(r, o, in[d]);
            } else if (api == F2DV2) {
                v = nearest_src(compute_scales_value(0, in[d], out[d]), o, in[d]);
            } else if (api == FE2D && in[d] == out[d]) {
                v = o;
            } else {
                v = exact ? exact_src(r, o, in[d]) : nearest_src(r, o, in[d]);
            }
            tab[d][o] = v;
        }
    }
    size_t nin = (size_t)prod(li, k + 2), nout = (size_t)prod(lo, k + 2);
    size_t nsrc = bwd ? nout : nin, ndst = bwd ? nin : nout;
    void *src, *dst;
    aclrtMalloc(&src, nsrc * esz(dt), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&dst, ndst * esz(dt), ACL_MEM_MALLOC_HUGE_FIRST);
    for (size_t i = 0; i < nsrc; i++) {
        float v = (float)(unit() * 8 - 4);
        uint32_t b = bwd ? round_to(v, dt) : (uint32_t)rnd();
        if (dt == ACL_FLOAT) ((uint32_t *)src)[i] = b; else ((uint16_t *)src)[i] = (uint16_t)b;
    }
    memset(dst, 0xEE, ndst * esz(dt));
    aclTensor *ts = mk(src, bwd ? lo : li, k, cl, dt, fmt), *td = mk(dst, bwd ? li : lo, k, cl, dt, fmt);
    aclIntArray *os = aclCreateIntArray(out, (uint64_t)k);
    int64_t isz[5];
    memcpy(isz, li, sizeof isz);
    if (api == B2D && cl) { isz[1] = li[2]; isz[2] = li[3]; isz[3] = li[1]; }
    aclIntArray *is = aclCreateIntArray(isz, (uint64_t)(k + 2));
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = -1, rst = -1;
    switch (api) {
    case F3D: st = aclnnUpsampleNearest3dGetWorkspaceSize(ts, os, sc[0], sc[1], sc[2], td, &ws, &ex); if (!st) rst = aclnnUpsampleNearest3d(NULL, ws, ex, NULL); break;
    case FE3D: st = aclnnUpsampleNearestExact3dGetWorkspaceSize(ts, os, sc[0], sc[1], sc[2], td, &ws, &ex); if (!st) rst = aclnnUpsampleNearestExact3d(NULL, ws, ex, NULL); break;
    case F1DV2: st = aclnnUpsampleNearest1dV2GetWorkspaceSize(ts, os, (float)sc[0], td, &ws, &ex); if (!st) rst = aclnnUpsampleNearest1dV2(NULL, ws, ex, NULL); break;
    case F2DV2: st = aclnnUpsampleNearest2dV2GetWorkspaceSize(ts, os, (float)sc[0], (float)sc[1], td, &ws, &ex); if (!st) rst = aclnnUpsampleNearest2dV2(NULL, ws, ex, NULL); break;
    case FE2D: st = aclnnUpsampleNearestExact2dGetWorkspaceSize(ts, os, sc[0], sc[1], td, &ws, &ex); if (!st) rst = aclnnUpsampleNearestExact2d(NULL, ws, ex, NULL); break;
    case B2D: st = aclnnUpsampleNearest2dBackwardGetWorkspaceSize(ts, os, is, sc[0], sc[1], td, &ws, &ex); if (!st) rst = aclnnUpsampleNearest2dBackward(NULL, ws, ex, NULL); break;
    case B3D: st = aclnnUpsampleNearest3dBackwardGetWorkspaceSize(ts, os, is, sc[0], sc[1], sc[2], td, &ws, &ex); if (!st) rst = aclnnUpsampleNearest3dBackward(NULL, ws, ex, NULL); break;
    case BE1D: st = aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(ts, os, is, sc[0], td, &ws, &ex); if (!st) rst = aclnnUpsampleNearestExact1dBackward(NULL, ws, ex, NULL); break;
    }
    int bad = 0;
    if (st != ACLNN_SUCCESS || rst != ACLNN_SUCCESS) {
        bad = 1;
        printf("FAIL %s: status %d/%d (%s)\n", names[api], st, rst, aclGetRecentErrMsg());
    } else if (!bwd) {
        int64_t i[5] = {0};
        for (size_t e = 0; e < nout && bad < 3; e++) {
            size_t rem = e; /* logical row-major index */
            for (int d = k + 1; d >= 0; d--) { i[d] = (int64_t)(rem % (size_t)lo[d]); rem /= (size_t)lo[d]; }
            int64_t s[5];
            memcpy(s, i, sizeof s);
            for (int d = 0; d < k; d++) s[2 + d] = tab[d][i[2 + d]];
            if (bits(src, poff(li, k, cl, s), dt) != bits(dst, poff(lo, k, cl, i), dt)) {
                bad++;
                printf("FAIL %s elem %zu dt %d cl %d\n", names[api], e, (int)dt, cl);
            }
        }
    } else {
        float *acc = calloc(nin, sizeof(float));
        int64_t i[5] = {0};
        for (size_t e = 0; e < nout; e++) { /* PyTorch order: outputs in increasing order, acc[src] += g */
            size_t rem = e;
            for (int d = k + 1; d >= 0; d--) { i[d] = (int64_t)(rem % (size_t)lo[d]); rem /= (size_t)lo[d]; }
            int64_t s[5];
            memcpy(s, i, sizeof s);
            for (int d = 0; d < k; d++) s[2 + d] = tab[d][i[2 + d]];
            acc[poff(li, k, cl, s)] += load(src, poff(lo, k, cl, i), dt);
        }
        for (size_t e = 0; e < nin && bad < 3; e++)
            if (round_to(acc[e], dt) != bits(dst, e, dt)) {
                bad++;
                printf("FAIL %s grad elem %zu dt %d cl %d: want %g got %g\n", names[api], e, (int)dt, cl, acc[e], load(dst, e, dt));
            }
        free(acc);
    }
    if (bad) failed++; else passed++;
    aclDestroyTensor(ts);
    aclDestroyTensor(td);
    aclDestroyIntArray(os);
    aclDestroyIntArray(is);
    aclrtFree(src);
    aclrtFree(dst);
    for (int d = 0; d < k; d++) free(tab[d]);
}

int main(void) {
    aclInit(NULL);
    aclrtSetDevice(0);
    for (int api = F3D; api <= BE1D; api++)
        for (int n = 0; n < 60; n++) one((Api)api);
    aclrtResetDevice(0);
    aclFinalize();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
