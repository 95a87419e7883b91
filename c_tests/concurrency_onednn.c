// link: -lpthread -lm
/* Concurrency of the oneDNN face: one forward and one backward primitive, each executed from
 * 8 threads at once (own stream, own src/dst buffers) for thousands of iterations; every
 * result must be bit-identical to the single-threaded one. Meanwhile every worker creates and
 * destroys pds and primitives of other shapes, and one more thread keeps changing
 * resample_set_num_threads (1..4, default) while the others execute.
 * RESAMPLE_CONCURRENCY_ITERS overrides the iteration count (CI's qemu run uses fewer). */
#include <math.h>
#include <pthread.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resample.h"

#define NTHR 8
static int iters = 1500;

static int passed, failed;
#define CHECK(c) \
    do { \
        if (c) \
            __atomic_add_fetch(&passed, 1, __ATOMIC_RELAXED); \
        else { \
            __atomic_add_fetch(&failed, 1, __ATOMIC_RELAXED); \
            printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); \
        } \
    } while (0)

static dnnl_engine_t eng;
static dnnl_primitive_t fwd, bwd;
static dnnl_memory_desc_t small_md, big_md; /* 2x8x37x41 and 2x8x53x29, nchw */
static size_t small_n, big_n;
static volatile int done;

/* per thread: forward src (small) -> dst (big); backward diff_dst (big) -> diff_src (small) */
typedef struct {
    int id;
    float *fsrc, *fdst, *fexp;
    float *bdd, *bds, *bexp;
    int mismatches, exec_errors, create_errors;
} job_t;

static dnnl_status_t run(dnnl_stream_t st, dnnl_primitive_t p, int a_in, float *in, int a_out,
        float *out, const dnnl_memory_desc_t *in_md, const dnnl_memory_desc_t *out_md) {
    dnnl_memory_t mi = NULL, mo = NULL;
    dnnl_status_t s = dnnl_memory_create(&mi, in_md, eng, in);
    if (s == dnnl_success) s = dnnl_memory_create(&mo, out_md, eng, out);
    if (s == dnnl_success) {
        dnnl_exec_arg_t args[2] = {{a_in, mi}, {a_out, mo}};
        s = dnnl_primitive_execute(p, st, 2, args);
        if (s == dnnl_success) s = dnnl_stream_wait(st);
    }
    if (mi) dnnl_memory_destroy(mi);
    if (mo) dnnl_memory_destroy(mo);
    return s;
}

/* a pd + primitive of another shape, created and destroyed (concurrent create/destroy) */
static int create_destroy(int k) {
    dnnl_dims_t a = {1, 3, 5 + k % 7, 9}, b = {1, 3, 11, 4 + k % 5};
    dnnl_memory_desc_t ma, mb;
    dnnl_resampling_desc_t rd;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t p = NULL;
    int ok = dnnl_memory_desc_init_by_tag(&ma, 4, a, dnnl_f32, dnnl_nhwc) == dnnl_success
            && dnnl_memory_desc_init_by_tag(&mb, 4, b, dnnl_bf16, dnnl_nhwc) == dnnl_success
            && dnnl_resampling_forward_desc_init(&rd, dnnl_forward_inference,
                       k % 2 ? dnnl_resampling_linear : dnnl_resampling_nearest, NULL, &ma, &mb)
                    == dnnl_success
            && dnnl_primitive_desc_create(&pd, &rd, NULL, eng, NULL) == dnnl_success
            && dnnl_primitive_create(&p, pd) == dnnl_success;
    if (p && dnnl_primitive_destroy(p) != dnnl_success) ok = 0;
    if (pd && dnnl_primitive_desc_destroy(pd) != dnnl_success) ok = 0;
    return ok;
}

static void *worker(void *arg) {
    job_t *j = (job_t *)arg;
    dnnl_stream_t st;
    if (dnnl_stream_create(&st, eng, dnnl_stream_default_flags) != dnnl_success) {
        j->exec_errors++;
        return NULL;
    }
    for (int it = 0; it < iters; it++) {
        memset(j->fdst, 0xff, big_n * sizeof(float));
        if (run(st, fwd, DNNL_ARG_SRC, j->fsrc, DNNL_ARG_DST, j->fdst, &small_md, &big_md)
                != dnnl_success)
            j->exec_errors++;
        else if (memcmp(j->fdst, j->fexp, big_n * sizeof(float)) != 0)
            j->mismatches++;
        if (it % 4 == 0) {
            memset(j->bds, 0xff, small_n * sizeof(float));
            if (run(st, bwd, DNNL_ARG_DIFF_DST, j->bdd, DNNL_ARG_DIFF_SRC, j->bds, &big_md,
                        &small_md)
                    != dnnl_success)
                j->exec_errors++;
            else if (memcmp(j->bds, j->bexp, small_n * sizeof(float)) != 0)
                j->mismatches++;
        }
        if (it % 50 == j->id && !create_destroy(it + j->id)) j->create_errors++;
    }
    dnnl_stream_destroy(st);
    return NULL;
}

static void *thread_setter(void *arg) {
    (void)arg;
    for (int k = 0; !__atomic_load_n(&done, __ATOMIC_ACQUIRE); k++) {
        resample_set_num_threads(k % 5); /* 0 = the default */
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    return NULL;
}

int main(void) {
    const char *env_iters = getenv("RESAMPLE_CONCURRENCY_ITERS");
    if (env_iters && atoi(env_iters) > 0) iters = atoi(env_iters);
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0) == dnnl_success);
    dnnl_dims_t sd = {2, 8, 37, 41}, bd = {2, 8, 53, 29};
    CHECK(dnnl_memory_desc_init_by_tag(&small_md, 4, sd, dnnl_f32, dnnl_nchw) == dnnl_success);
    CHECK(dnnl_memory_desc_init_by_tag(&big_md, 4, bd, dnnl_f32, dnnl_nchw) == dnnl_success);
    small_n = 2 * 8 * 37 * 41;
    big_n = 2 * 8 * 53 * 29;
    dnnl_resampling_desc_t fd, bdd;
    dnnl_primitive_desc_t fpd, bpd;
    CHECK(dnnl_resampling_forward_desc_init(&fd, dnnl_forward_training, dnnl_resampling_linear,
                  NULL, &small_md, &big_md)
            == dnnl_success);
    CHECK(dnnl_primitive_desc_create(&fpd, &fd, NULL, eng, NULL) == dnnl_success);
    CHECK(dnnl_resampling_backward_desc_init(&bdd, dnnl_resampling_linear, NULL, &small_md, &big_md)
            == dnnl_success);
    CHECK(dnnl_primitive_desc_create(&bpd, &bdd, NULL, eng, fpd) == dnnl_success);
    CHECK(dnnl_primitive_create(&fwd, fpd) == dnnl_success);
    CHECK(dnnl_primitive_create(&bwd, bpd) == dnnl_success);
    if (failed) return 1;

    /* expectations: each thread's data, executed once on one thread */
    job_t jobs[NTHR];
    dnnl_stream_t st;
    CHECK(dnnl_stream_create(&st, eng, dnnl_stream_default_flags) == dnnl_success);
    resample_set_num_threads(1);
    for (int t = 0; t < NTHR; t++) {
        job_t *j = &jobs[t];
        memset(j, 0, sizeof(*j));
        j->id = t;
        j->fsrc = malloc(small_n * sizeof(float));
        j->fdst = malloc(big_n * sizeof(float));
        j->fexp = malloc(big_n * sizeof(float));
        j->bdd = malloc(big_n * sizeof(float));
        j->bds = malloc(small_n * sizeof(float));
        j->bexp = malloc(small_n * sizeof(float));
        if (!j->fsrc || !j->fdst || !j->fexp || !j->bdd || !j->bds || !j->bexp) return 2;
        for (size_t i = 0; i < small_n; i++) j->fsrc[i] = sinf((float)i * 0.37f + (float)t);
        for (size_t i = 0; i < big_n; i++) j->bdd[i] = cosf((float)i * 0.11f - (float)t);
        CHECK(run(st, fwd, DNNL_ARG_SRC, j->fsrc, DNNL_ARG_DST, j->fexp, &small_md, &big_md)
                == dnnl_success);
        CHECK(run(st, bwd, DNNL_ARG_DIFF_DST, j->bdd, DNNL_ARG_DIFF_SRC, j->bexp, &big_md,
                      &small_md)
                == dnnl_success);
    }
    resample_set_num_threads(0);

    pthread_t th[NTHR], setter;
    for (int t = 0; t < NTHR; t++) CHECK(pthread_create(&th[t], NULL, worker, &jobs[t]) == 0);
    CHECK(pthread_create(&setter, NULL, thread_setter, NULL) == 0);
    for (int t = 0; t < NTHR; t++) pthread_join(th[t], NULL);
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    pthread_join(setter, NULL);
    resample_set_num_threads(0);

    for (int t = 0; t < NTHR; t++) {
        job_t *j = &jobs[t];
        CHECK(j->mismatches == 0);
        CHECK(j->exec_errors == 0);
        CHECK(j->create_errors == 0);
        if (j->mismatches || j->exec_errors || j->create_errors)
            printf("thread %d: %d results differ from the single-threaded ones, %d execute "
                   "errors, %d create/destroy errors\n",
                    t, j->mismatches, j->exec_errors, j->create_errors);
        free(j->fsrc), free(j->fdst), free(j->fexp), free(j->bdd), free(j->bds), free(j->bexp);
    }
    CHECK(dnnl_primitive_destroy(fwd) == dnnl_success);
    CHECK(dnnl_primitive_destroy(bwd) == dnnl_success);
    CHECK(dnnl_primitive_desc_destroy(fpd) == dnnl_success);
    CHECK(dnnl_primitive_desc_destroy(bpd) == dnnl_success);
    CHECK(dnnl_stream_destroy(st) == dnnl_success);
    CHECK(dnnl_engine_destroy(eng) == dnnl_success);
    printf("%d passed, %d failed (%d threads x %d executions)\n", passed, failed, NTHR, iters);
    return failed != 0;
}
