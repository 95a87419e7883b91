/*
 * bench_onednn.c — oneDNN 2.6.3 vs libresample, side by side in ONE process.
 *
 * Both libraries export the same dnnl_* C API. They are dlopen()ed with RTLD_NOW|RTLD_LOCAL
 * and every entry point is resolved from each handle separately into a function table, so
 * the same problem runs through both, with the same data, in the same run.
 *
 * Usage: bench_onednn [--ours PATH] [--dnnl PATH] [--min-time SEC] [--reps N] [FILTER...]
 *   --ours PATH   libresample.so (default: env RESAMPLE_LIB, else ./libresample.so)
 *   --dnnl PATH   oneDNN library (default: env DNNL_LIB, else libdnnl.so.2)
 *   --min-time S  measure each (problem, library) for at least S seconds (default 0.5)
 *   --reps N      at least N timed executions per library (default 5)
 *   FILTER        run only problems whose name contains one of the filters
 * Threads: both libraries honour OMP_NUM_THREADS (oneDNN 2.6.3 from Debian is built with
 * OpenMP; libresample's pool reads it too).
 *
 * Output: one row per problem with the median execution time of each library, the ratio
 * oneDNN/libresample (> 1: libresample is faster), the largest difference between the two
 * outputs (relative to max |dst|, a sanity check that both computed the same thing) and the
 * impl_info_str each library reports.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "oneapi/dnnl/dnnl.h"

/* ------------------------------------------------------------------------------------------ */
/* Function table, one per library                                                           */

#define API(X) \
    X(dnnl_engine_create) \
    X(dnnl_engine_destroy) \
    X(dnnl_stream_create) \
    X(dnnl_stream_wait) \
    X(dnnl_stream_destroy) \
    X(dnnl_memory_desc_init_by_tag) \
    X(dnnl_memory_desc_get_size) \
    X(dnnl_memory_create) \
    X(dnnl_memory_get_data_handle) \
    X(dnnl_memory_destroy) \
    X(dnnl_resampling_forward_desc_init) \
    X(dnnl_resampling_backward_desc_init) \
    X(dnnl_primitive_desc_create) \
    X(dnnl_primitive_desc_query) \
    X(dnnl_primitive_desc_query_md) \
    X(dnnl_primitive_desc_destroy) \
    X(dnnl_primitive_create) \
    X(dnnl_primitive_execute) \
    X(dnnl_primitive_destroy)

typedef struct {
    const char *name;
    void *handle;
#define FIELD(f) __typeof__(&f) f;
    API(FIELD)
#undef FIELD
} lib_t;

static int load_lib(lib_t *L, const char *name, const char *path) {
    memset(L, 0, sizeof(*L));
    L->name = name;
    L->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!L->handle) {
        fprintf(stderr, "dlopen(%s) failed: %s\n", path, dlerror());
        return 0;
    }
#define RESOLVE(f) \
    L->f = (__typeof__(&f))dlsym(L->handle, #f); \
    if (!L->f) { \
        fprintf(stderr, "%s: symbol %s missing\n", path, #f); \
        return 0; \
    }
    API(RESOLVE)
#undef RESOLVE
    return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* Problems                                                                                   */

typedef struct {
    const char *name;
    int bwd;
    dnnl_alg_kind_t alg;
    dnnl_data_type_t dt;
    int clast; /* 0: nc(d)(h)w, 1: n(d)(h)wc, 8 / 16: nC(d)(h)w8c / nC(d)(h)w16c */
    int ndims;
    dnnl_dim_t mb, ic, in[3], out[3]; /* spatial, d h w order, ndims-2 used */
} prob_t;

#define NEAREST dnnl_resampling_nearest
#define LINEAR dnnl_resampling_linear
/* benchdnn-style shapes (docs/spec/onednn.md §13): shapes_2d/ci, maskrcnn, option_set_fwks_key_gpu */
static const prob_t problems[] = {
        /* tiny: per-call overhead */
        {"fwd_linear_nchw_f32_mb1ic16_ih4oh8_iw4ow8_tiny", 0, LINEAR, dnnl_f32, 0, 4, 1, 16, {4, 4}, {8, 8}},
        {"fwd_nearest_nhwc_f32_mb1ic16_ih4oh8_iw4ow8_tiny", 0, NEAREST, dnnl_f32, 1, 4, 1, 16, {4, 4}, {8, 8}},
        /* the oneDNN example (examples/primitives/resampling.cpp), mb1 */
        {"fwd_linear_nchw_f32_mb1ic3_ih227oh350_iw227ow350", 0, LINEAR, dnnl_f32, 0, 4, 1, 3,
                {227, 227}, {350, 350}},
        {"fwd_linear_nchw_f32_mb1ic3_ih427oh800_iw640ow800", 0, LINEAR, dnnl_f32, 0, 4, 1, 3,
                {427, 640}, {800, 800}},
        {"fwd_nearest_nhwc_f32_mb2ic1280_ih12oh24_iw12ow24", 0, NEAREST, dnnl_f32, 1, 4, 2, 1280,
                {12, 12}, {24, 24}},
        {"fwd_nearest_nchw_f32_mb8ic256_ih32oh64_iw32ow64", 0, NEAREST, dnnl_f32, 0, 4, 8, 256,
                {32, 32}, {64, 64}},
        {"fwd_nearest_nhwc_f32_mb8ic256_ih32oh64_iw32ow64", 0, NEAREST, dnnl_f32, 1, 4, 8, 256,
                {32, 32}, {64, 64}},
        {"fwd_linear_nchw_f32_mb8ic256_ih32oh64_iw32ow64", 0, LINEAR, dnnl_f32, 0, 4, 8, 256,
                {32, 32}, {64, 64}},
        {"fwd_linear_nhwc_f32_mb8ic256_ih32oh64_iw32ow64", 0, LINEAR, dnnl_f32, 1, 4, 8, 256,
                {32, 32}, {64, 64}},
        {"fwd_nearest_nchw_f32_mb1ic256_ih34oh68_iw25ow50", 0, NEAREST, dnnl_f32, 0, 4, 1, 256,
                {34, 25}, {68, 50}},
        {"fwd_linear_nhwc_f32_mb4ic40_ih40oh80_iw64ow128", 0, LINEAR, dnnl_f32, 1, 4, 4, 40,
                {40, 64}, {80, 128}},
        /* channels-last and blocked, mb8ic64 56->112 (issue 8) */
        {"fwd_nearest_nhwc_f32_mb8ic64_ih56oh112_iw56ow112", 0, NEAREST, dnnl_f32, 1, 4, 8, 64,
                {56, 56}, {112, 112}},
        {"fwd_linear_nhwc_f32_mb8ic64_ih56oh112_iw56ow112", 0, LINEAR, dnnl_f32, 1, 4, 8, 64,
                {56, 56}, {112, 112}},
        {"fwd_nearest_nChw16c_f32_mb8ic64_ih56oh112_iw56ow112", 0, NEAREST, dnnl_f32, 16, 4, 8,
                64, {56, 56}, {112, 112}},
        {"fwd_linear_nChw16c_f32_mb8ic64_ih56oh112_iw56ow112", 0, LINEAR, dnnl_f32, 16, 4, 8, 64,
                {56, 56}, {112, 112}},
        {"fwd_linear_nChw8c_f32_mb8ic64_ih56oh112_iw56ow112", 0, LINEAR, dnnl_f32, 8, 4, 8, 64,
                {56, 56}, {112, 112}},
        {"fwd_linear_nChw16c_bf16_mb4ic48_ih20oh40_iw32ow64", 0, LINEAR, dnnl_bf16, 16, 4, 4, 48,
                {20, 32}, {40, 64}},
        {"fwd_nearest_nhwc_f32_mb4ic24_ih56oh112_iw56ow112", 0, NEAREST, dnnl_f32, 1, 4, 4, 24,
                {56, 56}, {112, 112}},
        {"fwd_linear_nhwc_f32_mb4ic12_ih56oh112_iw56ow112", 0, LINEAR, dnnl_f32, 1, 4, 4, 12,
                {56, 56}, {112, 112}},
        /* 1D */
        {"fwd_linear_ncw_f32_mb16ic64_iw32ow64", 0, LINEAR, dnnl_f32, 0, 3, 16, 64, {32}, {64}},
        {"fwd_nearest_nwc_f32_mb16ic64_iw32ow64", 0, NEAREST, dnnl_f32, 1, 3, 16, 64, {32}, {64}},
        {"fwd_linear_ncw_f32_mb1ic32_iw151ow300", 0, LINEAR, dnnl_f32, 0, 3, 1, 32, {151}, {300}},
        /* 3D */
        {"fwd_linear_ncdhw_f32_mb2ic32_id16od32_ih16oh32_iw16ow32", 0, LINEAR, dnnl_f32, 0, 5, 2,
                32, {16, 16, 16}, {32, 32, 32}},
        {"fwd_linear_ndhwc_f32_mb2ic32_id16od32_ih16oh32_iw16ow32", 0, LINEAR, dnnl_f32, 1, 5, 2,
                32, {16, 16, 16}, {32, 32, 32}},
        {"fwd_nearest_ndhwc_f32_mb4ic16_id6od12_ih6oh6_iw6ow3", 0, NEAREST, dnnl_f32, 1, 5, 4, 16,
                {6, 6, 6}, {12, 6, 3}},
        /* downsampling */
        /* images: channels-last, 3 channels (issue 8) */
        {"img_linear_nhwc_f32_mb1ic3_ih1080oh2160_iw1920ow3840", 0, LINEAR, dnnl_f32, 1, 4, 1, 3,
                {1080, 1920}, {2160, 3840}},
        {"img_linear_nhwc_u8_mb1ic3_ih1080oh2160_iw1920ow3840", 0, LINEAR, dnnl_u8, 1, 4, 1, 3,
                {1080, 1920}, {2160, 3840}},
        {"img_linear_nhwc_f32_mb1ic3_ih2160oh1080_iw3840ow1920", 0, LINEAR, dnnl_f32, 1, 4, 1, 3,
                {2160, 3840}, {1080, 1920}},
        {"img_linear_nhwc_u8_mb1ic3_ih2160oh1080_iw3840ow1920", 0, LINEAR, dnnl_u8, 1, 4, 1, 3,
                {2160, 3840}, {1080, 1920}},
        {"img_linear_nhwc_f32_mb1ic3_ih720oh1080_iw1280ow1920", 0, LINEAR, dnnl_f32, 1, 4, 1, 3,
                {720, 1280}, {1080, 1920}},
        {"img_linear_nhwc_u8_mb1ic4_ih720oh1080_iw1280ow1920", 0, LINEAR, dnnl_u8, 1, 4, 1, 4,
                {720, 1280}, {1080, 1920}},
        {"img_nearest_nhwc_u8_mb1ic3_ih1080oh2160_iw1920ow3840", 0, NEAREST, dnnl_u8, 1, 4, 1, 3,
                {1080, 1920}, {2160, 3840}},
        {"img_nearest_nhwc_f32_mb1ic3_ih720oh1080_iw1280ow1920", 0, NEAREST, dnnl_f32, 1, 4, 1, 3,
                {720, 1280}, {1080, 1920}},
        {"img_linear_nhwc_f32_mb1ic4_ih540oh1080_iw960ow1920", 0, LINEAR, dnnl_f32, 1, 4, 1, 4,
                {540, 960}, {1080, 1920}},
        {"img_linear_nhwc_f32_mb1ic8_ih540oh1080_iw960ow1920", 0, LINEAR, dnnl_f32, 1, 4, 1, 8,
                {540, 960}, {1080, 1920}},
        {"img_linear_nhwc_u8_mb1ic8_ih540oh1080_iw960ow1920", 0, LINEAR, dnnl_u8, 1, 4, 1, 8,
                {540, 960}, {1080, 1920}},
        {"img_linear_nhwc_f32_mb1ic8_ih1080oh540_iw1920ow960", 0, LINEAR, dnnl_f32, 1, 4, 1, 8,
                {1080, 1920}, {540, 960}},
        {"img_nearest_nhwc_f32_mb1ic8_ih540oh1080_iw960ow1920", 0, NEAREST, dnnl_f32, 1, 4, 1, 8,
                {540, 960}, {1080, 1920}},
        {"img_linear_ndhwc_f32_mb1ic3_id16od32_ih128oh256_iw128ow256", 0, LINEAR, dnnl_f32, 1, 5,
                1, 3, {16, 128, 128}, {32, 256, 256}},
        {"img_linear_nwc_f32_mb64ic3_iw4096ow6000", 0, LINEAR, dnnl_f32, 1, 3, 64, 3, {4096},
                {6000}},
        {"img_linear_nchw_f32_mb1ic3_ih1080oh2160_iw1920ow3840", 0, LINEAR, dnnl_f32, 0, 4, 1, 3,
                {1080, 1920}, {2160, 3840}},
        {"fwd_linear_nchw_f32_mb1ic256_ih136oh68_iw100ow50", 0, LINEAR, dnnl_f32, 0, 4, 1, 256,
                {136, 100}, {68, 50}},
        {"fwd_linear_nhwc_f32_mb8ic64_ih112oh75_iw112ow75", 0, LINEAR, dnnl_f32, 1, 4, 8, 64,
                {112, 112}, {75, 75}},
        {"fwd_nearest_nchw_f32_mb8ic64_ih112oh56_iw112ow56", 0, NEAREST, dnnl_f32, 0, 4, 8, 64,
                {112, 112}, {56, 56}},
        /* bf16 */
        {"fwd_nearest_nhwc_bf16_mb8ic1280_ih8oh16_iw8ow16", 0, NEAREST, dnnl_bf16, 1, 4, 8, 1280,
                {8, 8}, {16, 16}},
        {"fwd_linear_nhwc_bf16_mb4ic48_ih20oh40_iw32ow64", 0, LINEAR, dnnl_bf16, 1, 4, 4, 48,
                {20, 32}, {40, 64}},
        {"fwd_linear_nchw_bf16_mb8ic256_ih32oh64_iw32ow64", 0, LINEAR, dnnl_bf16, 0, 4, 8, 256,
                {32, 32}, {64, 64}},
        /* backward */
        {"bwd_linear_nchw_f32_mb8ic256_ih32oh64_iw32ow64", 1, LINEAR, dnnl_f32, 0, 4, 8, 256,
                {32, 32}, {64, 64}},
        {"bwd_linear_nhwc_f32_mb4ic40_ih40oh80_iw64ow128", 1, LINEAR, dnnl_f32, 1, 4, 4, 40,
                {40, 64}, {80, 128}},
        {"bwd_nearest_nchw_f32_mb8ic256_ih32oh64_iw32ow64", 1, NEAREST, dnnl_f32, 0, 4, 8, 256,
                {32, 32}, {64, 64}},
        {"bwd_nearest_nhwc_f32_mb2ic256_ih50oh100_iw50ow100", 1, NEAREST, dnnl_f32, 1, 4, 2, 256,
                {50, 50}, {100, 100}},
        {"bwd_linear_nhwc_bf16_mb4ic48_ih20oh40_iw32ow64", 1, LINEAR, dnnl_bf16, 1, 4, 4, 48,
                {20, 32}, {40, 64}},
        {"bwd_linear_ncdhw_f32_mb2ic16_id8od16_ih8oh16_iw8ow16", 1, LINEAR, dnnl_f32, 0, 5, 2, 16,
                {8, 8, 8}, {16, 16, 16}},
};

static dnnl_format_tag_t tag_of(const prob_t *p) {
    static const dnnl_format_tag_t cf[3] = {dnnl_abc, dnnl_abcd, dnnl_abcde};
    static const dnnl_format_tag_t cl[3] = {dnnl_acb, dnnl_acdb, dnnl_acdeb};
    static const dnnl_format_tag_t b8[3] = {dnnl_aBc8b, dnnl_aBcd8b, dnnl_aBcde8b};
    static const dnnl_format_tag_t b16[3] = {dnnl_aBc16b, dnnl_aBcd16b, dnnl_aBcde16b};
    if (p->clast == 8) return b8[p->ndims - 3];
    if (p->clast == 16) return b16[p->ndims - 3];
    return p->clast ? cl[p->ndims - 3] : cf[p->ndims - 3];
}

/* ------------------------------------------------------------------------------------------ */
/* One library instance of one problem                                                        */

typedef struct {
    lib_t *L;
    dnnl_engine_t eng;
    dnnl_stream_t st;
    dnnl_primitive_desc_t fpd, pd;
    dnnl_primitive_t prim;
    dnnl_memory_t m_in, m_out;
    void *in, *out;
    size_t in_size, out_size;
    dnnl_exec_arg_t args[2];
    char impl[64];
} inst_t;

static float bf16_to_f32(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint16_t f32_to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

#define CHECK(call) \
    do { \
        dnnl_status_t s_ = (call); \
        if (s_ != dnnl_success) { \
            fprintf(stderr, "%s: %s failed: status %d\n", I->L->name, #call, (int)s_); \
            return 0; \
        } \
    } while (0)

static int setup(inst_t *I, lib_t *L, const prob_t *p) {
    memset(I, 0, sizeof(*I));
    I->L = L;
    CHECK(L->dnnl_engine_create(&I->eng, dnnl_cpu, 0));
    CHECK(L->dnnl_stream_create(&I->st, I->eng, dnnl_stream_default_flags));
    dnnl_dims_t din, dout;
    memset(din, 0, sizeof(din));
    memset(dout, 0, sizeof(dout));
    din[0] = dout[0] = p->mb;
    din[1] = dout[1] = p->ic;
    for (int i = 0; i < p->ndims - 2; i++) {
        din[2 + i] = p->in[i];
        dout[2 + i] = p->out[i];
    }
    dnnl_memory_desc_t md_in, md_out;
    CHECK(L->dnnl_memory_desc_init_by_tag(&md_in, p->ndims, din, p->dt, tag_of(p)));
    CHECK(L->dnnl_memory_desc_init_by_tag(&md_out, p->ndims, dout, p->dt, tag_of(p)));
    dnnl_resampling_desc_t fd;
    CHECK(L->dnnl_resampling_forward_desc_init(
            &fd, dnnl_forward_training, p->alg, NULL, &md_in, &md_out));
    if (!p->bwd) {
        CHECK(L->dnnl_primitive_desc_create(&I->pd, &fd, NULL, I->eng, NULL));
    } else {
        dnnl_resampling_desc_t bd;
        CHECK(L->dnnl_primitive_desc_create(&I->fpd, &fd, NULL, I->eng, NULL));
        CHECK(L->dnnl_resampling_backward_desc_init(&bd, p->alg, NULL, &md_in, &md_out));
        CHECK(L->dnnl_primitive_desc_create(&I->pd, &bd, NULL, I->eng, I->fpd));
    }
    const char *impl = NULL;
    L->dnnl_primitive_desc_query(I->pd, dnnl_query_impl_info_str, 0, &impl);
    snprintf(I->impl, sizeof(I->impl), "%s", impl ? impl : "?");
    CHECK(L->dnnl_primitive_create(&I->prim, I->pd));
    /* forward: src -> dst; backward: diff_dst (out-sized) -> diff_src (in-sized) */
    const dnnl_memory_desc_t *a = p->bwd ? &md_out : &md_in;
    const dnnl_memory_desc_t *b = p->bwd ? &md_in : &md_out;
    I->in_size = L->dnnl_memory_desc_get_size(a);
    I->out_size = L->dnnl_memory_desc_get_size(b);
    I->in = aligned_alloc(64, (I->in_size + 63) / 64 * 64);
    I->out = aligned_alloc(64, (I->out_size + 63) / 64 * 64);
    if (!I->in || !I->out) return 0;
    memset(I->out, 0, I->out_size);
    CHECK(L->dnnl_memory_create(&I->m_in, a, I->eng, I->in));
    CHECK(L->dnnl_memory_create(&I->m_out, b, I->eng, I->out));
    I->args[0].arg = p->bwd ? DNNL_ARG_DIFF_DST : DNNL_ARG_SRC;
    I->args[0].memory = I->m_in;
    I->args[1].arg = p->bwd ? DNNL_ARG_DIFF_SRC : DNNL_ARG_DST;
    I->args[1].memory = I->m_out;
    return 1;
}

static void teardown(inst_t *I) {
    lib_t *L = I->L;
    if (!L) return;
    if (I->m_in) L->dnnl_memory_destroy(I->m_in);
    if (I->m_out) L->dnnl_memory_destroy(I->m_out);
    if (I->prim) L->dnnl_primitive_destroy(I->prim);
    if (I->pd) L->dnnl_primitive_desc_destroy(I->pd);
    if (I->fpd) L->dnnl_primitive_desc_destroy(I->fpd);
    if (I->st) L->dnnl_stream_destroy(I->st);
    if (I->eng) L->dnnl_engine_destroy(I->eng);
    free(I->in);
    free(I->out);
    memset(I, 0, sizeof(*I));
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Timing. The machine may be shared and both libraries keep worker threads, so the two are
 * measured in alternating rounds (oneDNN block, pause, libresample block, pause, ...): both
 * see the same background load, and the pause lets the other library's workers (OpenMP
 * spin-wait, rayon) fall asleep. Result: the median over all timed executions, in ms. */
enum { MAX_SAMPLES = 4096 };
typedef struct {
    double t[MAX_SAMPLES];
    int n;
} samples_t;

static int run_block(inst_t *I, samples_t *S, int k) {
    lib_t *L = I->L;
    /* one untimed execution first: the caches and this library's threads warm up again */
    if (L->dnnl_primitive_execute(I->prim, I->st, 2, I->args) != dnnl_success) return 0;
    L->dnnl_stream_wait(I->st);
    for (int i = 0; i < k && S->n < MAX_SAMPLES; i++) {
        double t0 = now();
        L->dnnl_primitive_execute(I->prim, I->st, 2, I->args);
        L->dnnl_stream_wait(I->st);
        S->t[S->n++] = (now() - t0) * 1e3;
    }
    return 1;
}

static double median(samples_t *S) {
    if (!S->n) return -1;
    qsort(S->t, (size_t)S->n, sizeof(double), cmp_double);
    /* BENCH_STAT=min: the fastest run, steadier than the median on a loaded machine */
    const char *stat = getenv("BENCH_STAT");
    if (stat && !strcmp(stat, "min")) return S->t[0];
    return S->n % 2 ? S->t[S->n / 2] : 0.5 * (S->t[S->n / 2 - 1] + S->t[S->n / 2]);
}

/* measures A and B in alternating rounds; *ta / *tb = median ms (-1 on failure) */
static void measure_pair(inst_t *A, inst_t *B, double min_time, int min_reps, double *ta,
        double *tb) {
    static samples_t SA, SB;
    SA.n = SB.n = 0;
    *ta = *tb = -1;
    /* calibrate: how many executions make a ~20 ms block */
    double t0 = now();
    if (!run_block(A, &SA, 1) || !run_block(B, &SB, 1)) return;
    double one = (now() - t0) / 4;
    int k = one > 0 ? (int)(0.02 / one) : 1;
    if (k < 1) k = 1;
    if (k > 200) k = 200;
    SA.n = SB.n = 0;
    double spent = 0;
    int rounds = 0;
    while ((rounds < 3 || spent < 2 * min_time || SA.n < min_reps || SB.n < min_reps)
            && SA.n < MAX_SAMPLES && SB.n < MAX_SAMPLES) {
        double r0 = now();
        if (!run_block(A, &SA, k)) return;
        usleep(20000);
        if (!run_block(B, &SB, k)) return;
        usleep(20000);
        spent += now() - r0 - 0.04;
        rounds++;
    }
    *ta = median(&SA);
    *tb = median(&SB);
}

static size_t dt_size(dnnl_data_type_t dt) {
    return dt == dnnl_bf16 ? 2 : dt == dnnl_u8 ? 1 : 4;
}

static double elem(const void *buf, dnnl_data_type_t dt, size_t i) {
    if (dt == dnnl_u8) return ((const uint8_t *)buf)[i];
    return dt == dnnl_bf16 ? bf16_to_f32(((const uint16_t *)buf)[i]) : ((const float *)buf)[i];
}

int main(int argc, char **argv) {
    const char *ours_path = getenv("RESAMPLE_LIB") ? getenv("RESAMPLE_LIB") : "./libresample.so";
    const char *dnnl_path = getenv("DNNL_LIB") ? getenv("DNNL_LIB") : "libdnnl.so.2";
    double min_time = 0.5;
    int min_reps = 5;
    const char *filters[64];
    int nf = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ours") && i + 1 < argc)
            ours_path = argv[++i];
        else if (!strcmp(argv[i], "--dnnl") && i + 1 < argc)
            dnnl_path = argv[++i];
        else if (!strcmp(argv[i], "--min-time") && i + 1 < argc)
            min_time = atof(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            min_reps = atoi(argv[++i]);
        else if (nf < 64)
            filters[nf++] = argv[i];
    }
    static lib_t dnnl, ours;
    if (!load_lib(&dnnl, "oneDNN", dnnl_path) || !load_lib(&ours, "libresample", ours_path))
        return 1;
    const char *omp = getenv("OMP_NUM_THREADS");
    printf("oneDNN: %s\nlibresample: %s\nOMP_NUM_THREADS=%s, %ld online CPUs, median of >= %d "
           "runs / >= %.2f s per cell\n\n",
            dnnl_path, ours_path, omp ? omp : "(unset)", sysconf(_SC_NPROCESSORS_ONLN), min_reps,
            min_time);
    printf("%-56s %11s %11s %7s %9s  %-22s %s\n", "problem", "oneDNN ms", "ours ms", "ratio",
            "maxdiff", "oneDNN impl", "libresample impl");
    int failures = 0;
    double log_sum = 0;
    int n_ratio = 0;
    for (size_t k = 0; k < sizeof(problems) / sizeof(problems[0]); k++) {
        const prob_t *p = &problems[k];
        if (nf) {
            int hit = 0;
            for (int f = 0; f < nf; f++)
                if (strstr(p->name, filters[f])) hit = 1;
            if (!hit) continue;
        }
        inst_t A, B;
        int ok = setup(&A, &dnnl, p) && setup(&B, &ours, p);
        if (!ok) {
            printf("%-56s  setup failed\n", p->name);
            failures++;
            teardown(&A);
            teardown(&B);
            continue;
        }
        /* the same input for both: random in [-1, 1) */
        uint64_t x = 0x9E3779B97F4A7C15ull ^ k;
        size_t n_in = A.in_size / dt_size(p->dt);
        for (size_t i = 0; i < n_in; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            float v = (float)((double)(x >> 40) / (double)(1ull << 24)) * 2.f - 1.f;
            if (p->dt == dnnl_u8)
                ((uint8_t *)A.in)[i] = (uint8_t)(x >> 56);
            else if (p->dt == dnnl_bf16)
                ((uint16_t *)A.in)[i] = f32_to_bf16(v);
            else
                ((float *)A.in)[i] = v;
        }
        memcpy(B.in, A.in, A.in_size);
        double ta, tb;
        measure_pair(&A, &B, min_time, min_reps, &ta, &tb);
        double maxd = 0, maxv = 0;
        size_t n_out = A.out_size / dt_size(p->dt);
        for (size_t i = 0; i < n_out; i++) {
            double a = elem(A.out, p->dt, i), b = elem(B.out, p->dt, i);
            double d = fabs(a - b);
            if (!(d <= maxd)) maxd = d; /* NaN propagates */
            if (fabs(a) > maxv) maxv = fabs(a);
        }
        double rel = maxv > 0 ? maxd / maxv : maxd;
        if (ta < 0 || tb < 0) {
            printf("%-56s  execute failed\n", p->name);
            failures++;
        } else {
            printf("%-56s %11.4f %11.4f %7.2f %9.1e  %-22s %s\n", p->name, ta, tb, ta / tb, rel,
                    A.impl, B.impl);
            log_sum += log(ta / tb);
            n_ratio++;
        }
        fflush(stdout);
        teardown(&A);
        teardown(&B);
    }
    if (n_ratio)
        printf("\ngeometric mean ratio oneDNN/libresample over %d problems: %.2f\n", n_ratio,
                exp(log_sum / n_ratio));
    return failures ? 1 : 0;
}
