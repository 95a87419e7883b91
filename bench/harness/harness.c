/* harness.c — the ctypes entry points of libharness.so: open a library through one of the
 * backends, set a problem up on caller-owned buffers, time blocks of executions, and measure
 * memcpy bandwidth for the roofline. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

static __thread char err_buf[512];

void h_seterr(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_buf, sizeof(err_buf), fmt, ap);
    va_end(ap);
}

const char *h_error(void) { return err_buf; }

/* the oneDNN backends are linked only when their headers were found at build time */
extern const backend_t dnnl2_backend __attribute__((weak));
extern const backend_t dnnl3_backend __attribute__((weak));

static const backend_t *backend_of(int api) {
    switch (api) {
    case 2: return &dnnl2_backend;
    case 3: return &dnnl3_backend;
    case 10: return &dml_backend;
    case 11: return &acl_backend;
    default: return NULL;
    }
}

typedef struct {
    const backend_t *b;
    void *lib;
} hlib_t;

typedef struct {
    const backend_t *b;
    void *inst;
    char impl[128];
} hinst_t;

/* api: 2 oneDNN 2.x C API, 3 oneDNN 3.x C API, 10 DirectML face, 11 Ascend aclnn face */
void *h_open(int api, const char *path) {
    const backend_t *b = backend_of(api);
    if (!b) {
        h_seterr("api %d not built into the harness (headers missing at build time)", api);
        return NULL;
    }
    void *lib = b->open(path);
    if (!lib) return NULL;
    hlib_t *L = calloc(1, sizeof(*L));
    if (!L) return NULL;
    L->b = b;
    L->lib = lib;
    return L;
}

void *h_setup(void *lib, const hprob_t *p, void *src, size_t src_bytes, void *dst,
        size_t dst_bytes) {
    hlib_t *L = lib;
    hinst_t *I = calloc(1, sizeof(*I));
    if (!I) return NULL;
    I->b = L->b;
    err_buf[0] = 0;
    I->inst = L->b->setup(L->lib, p, src, src_bytes, dst, dst_bytes, I->impl, sizeof(I->impl));
    if (!I->inst) {
        free(I);
        return NULL;
    }
    return I;
}

const char *h_impl(void *inst) { return ((hinst_t *)inst)->impl; }

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* seconds for `iters` executions (-1 on failure) */
double h_run(void *inst, int iters) {
    hinst_t *I = inst;
    double t0 = now();
    for (int i = 0; i < iters; i++)
        if (I->b->run(I->inst)) return -1;
    return now() - t0;
}

/* `iters` executions, each timed: out[i] = seconds of execution i; 0 on success */
int h_run_samples(void *inst, int iters, double *out) {
    hinst_t *I = inst;
    for (int i = 0; i < iters; i++) {
        double t0 = now();
        if (I->b->run(I->inst)) return -1;
        out[i] = now() - t0;
    }
    return 0;
}

void h_free(void *inst) {
    hinst_t *I = inst;
    if (!I) return;
    I->b->destroy(I->inst);
    free(I);
}

/* ---- memcpy bandwidth: `threads` threads each copy their slice of a `bytes` buffer ---- */
typedef struct {
    char *dst;
    const char *src;
    size_t n;
    pthread_barrier_t *bar;
    int reps;
} cp_t;

static void *cp_main(void *arg) {
    cp_t *c = arg;
    for (int r = 0; r < c->reps; r++) {
        pthread_barrier_wait(c->bar);
        memcpy(c->dst, c->src, c->n);
        pthread_barrier_wait(c->bar);
    }
    return NULL;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median read+write bandwidth in bytes/s of `reps` copies of a `bytes` buffer (take it
 * larger than the last-level cache), split over `threads` threads. */
double h_memcpy_bw(size_t bytes, int threads, int reps) {
    if (threads < 1) threads = 1;
    if (threads > 256) threads = 256;
    if (reps < 1) reps = 1;
    if (reps > 64) reps = 64;
    char *src = malloc(bytes), *dst = malloc(bytes);
    if (!src || !dst) {
        free(src);
        free(dst);
        return -1;
    }
    memset(src, 1, bytes);
    memset(dst, 2, bytes);
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, (unsigned)threads);
    cp_t c[256];
    pthread_t th[256];
    size_t slice = (bytes / (size_t)threads) & ~(size_t)63;
    for (int t = 0; t < threads; t++) {
        c[t].src = src + (size_t)t * slice;
        c[t].dst = dst + (size_t)t * slice;
        c[t].n = t == threads - 1 ? bytes - (size_t)t * slice : slice;
        c[t].bar = &bar;
        c[t].reps = reps + 1;
    }
    for (int t = 1; t < threads; t++) pthread_create(&th[t], NULL, cp_main, &c[t]);
    double times[65];
    for (int r = 0; r < reps + 1; r++) {
        pthread_barrier_wait(&bar);
        double t0 = now();
        memcpy(c[0].dst, c[0].src, c[0].n);
        pthread_barrier_wait(&bar);
        times[r] = now() - t0;
    }
    for (int t = 1; t < threads; t++) pthread_join(th[t], NULL);
    pthread_barrier_destroy(&bar);
    free(src);
    free(dst);
    /* the first copy (page faults already done by memset, but cold TLB) is dropped */
    qsort(times + 1, (size_t)reps, sizeof(double), cmp_d);
    double med = times[1 + reps / 2];
    return med > 0 ? 2.0 * (double)bytes / med : -1;
}
