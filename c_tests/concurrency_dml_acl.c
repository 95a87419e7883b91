// link: -lpthread -lm
/* Concurrency of the DirectML and Ascend faces. DirectML: one RESAMPLE2 (linear) and one
 * RESAMPLE_GRAD1 operator, each executed from 8 threads at once on the threads' own buffers.
 * Ascend: every thread creates its own executors (aclnnUpsampleNearest2d and its backward,
 * GetWorkspaceSize + run each iteration). Every result must be bit-identical to the
 * single-threaded one. RESAMPLE_CONCURRENCY_ITERS overrides the iteration count. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "DirectML.h"
#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "aclnnop/aclnn_upsample_nearest_2d_backward.h"

#define NTHR 8
static int iters = 1000;
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

/* Shapes: small 2x3x17x23 <-> big 2x3x31x40 (non-integer ratios). */
static UINT small_sz[4] = {2, 3, 17, 23}, big_sz[4] = {2, 3, 31, 40};
static int64_t small_i[4] = {2, 3, 17, 23}, big_i[4] = {2, 3, 31, 40};
#define NSMALL (2 * 3 * 17 * 23)
#define NBIG (2 * 3 * 31 * 40)
static DMLOperator *fwd_op, *grad_op;

static DMLOperator *make_op(DML_OPERATOR_TYPE type) {
    static DML_BUFFER_TENSOR_DESC bs, bb;
    static DML_TENSOR_DESC ts, tb;
    bs = (DML_BUFFER_TENSOR_DESC){DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, small_sz, NULL,
                                  DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, small_sz, NULL), 0};
    bb = (DML_BUFFER_TENSOR_DESC){DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, big_sz, NULL,
                                  DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, big_sz, NULL), 0};
    ts = (DML_TENSOR_DESC){DML_TENSOR_TYPE_BUFFER, &bs};
    tb = (DML_TENSOR_DESC){DML_TENSOR_TYPE_BUFFER, &bb};
    static FLOAT scales[4], ioff[4] = {.5f, .5f, .5f, .5f}, ooff[4] = {-.5f, -.5f, -.5f, -.5f};
    for (int i = 0; i < 4; i++) scales[i] = (FLOAT)big_sz[i] / (FLOAT)small_sz[i];
    DMLOperator *op = NULL;
    if (type == DML_OPERATOR_RESAMPLE2) {
        DML_RESAMPLE2_OPERATOR_DESC d = {&ts, &tb, DML_INTERPOLATION_MODE_LINEAR,
                                         DML_AXIS_DIRECTION_DECREASING, 4, scales, ioff, ooff};
        DML_OPERATOR_DESC od = {type, &d};
        CHECK(DMLCreateOperator(&od, &op) == S_OK);
    } else {
        /* GRAD1: InputGradientTensor is the forward output (big), output the forward input. */
        DML_RESAMPLE_GRAD1_OPERATOR_DESC d = {&tb, &ts, DML_INTERPOLATION_MODE_LINEAR,
                                              DML_AXIS_DIRECTION_DECREASING, 4, scales, ioff, ooff};
        DML_OPERATOR_DESC od = {type, &d};
        CHECK(DMLCreateOperator(&od, &op) == S_OK);
    }
    return op;
}

static int dml_run(DMLOperator *op, float *in, size_t nin, float *out, size_t nout) {
    DML_BUFFER_BINDING bi = {in, 0, nin * sizeof(float)}, bo = {out, 0, nout * sizeof(float)};
    return DMLExecuteOperator(op, 1, &bi, 1, &bo) == S_OK;
}

static int acl_run(int backward, float *in, float *out) {
    int64_t st_small[4] = {3 * 17 * 23, 17 * 23, 23, 1}, st_big[4] = {3 * 31 * 40, 31 * 40, 40, 1};
    aclTensor *x = backward ? aclCreateTensor(big_i, 4, ACL_FLOAT, st_big, 0, ACL_FORMAT_NCHW, big_i, 4, in)
                            : aclCreateTensor(small_i, 4, ACL_FLOAT, st_small, 0, ACL_FORMAT_NCHW, small_i, 4, in);
    aclTensor *y = backward ? aclCreateTensor(small_i, 4, ACL_FLOAT, st_small, 0, ACL_FORMAT_NCHW, small_i, 4, out)
                            : aclCreateTensor(big_i, 4, ACL_FLOAT, st_big, 0, ACL_FORMAT_NCHW, big_i, 4, out);
    int64_t osz[2] = {31, 40};
    aclIntArray *os = aclCreateIntArray(osz, 2), *is = aclCreateIntArray(small_i, 4);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    int ok;
    if (backward)
        ok = aclnnUpsampleNearest2dBackwardGetWorkspaceSize(x, os, is, 0.0, 0.0, y, &ws, &ex) == 0
             && aclnnUpsampleNearest2dBackward(NULL, ws, ex, NULL) == 0;
    else
        ok = aclnnUpsampleNearest2dGetWorkspaceSize(x, os, y, &ws, &ex) == 0
             && aclnnUpsampleNearest2d(NULL, ws, ex, NULL) == 0;
    aclDestroyTensor(x), aclDestroyTensor(y), aclDestroyIntArray(os), aclDestroyIntArray(is);
    return ok;
}

typedef struct {
    float small[NSMALL], big[NBIG];
    float exp_fwd[NBIG], exp_grad[NSMALL], exp_afwd[NBIG], exp_abwd[NSMALL];
    float out_big[NBIG], out_small[NSMALL];
    int mismatches, errors;
} job_t;

static void *worker(void *arg) {
    job_t *j = arg;
    for (int it = 0; it < iters; it++) {
        int k = it % 4;
        int ok;
        if (k == 0) {
            ok = dml_run(fwd_op, j->small, NSMALL, j->out_big, NBIG);
            j->mismatches += memcmp(j->out_big, j->exp_fwd, sizeof j->exp_fwd) != 0;
        } else if (k == 1) {
            ok = dml_run(grad_op, j->big, NBIG, j->out_small, NSMALL);
            j->mismatches += memcmp(j->out_small, j->exp_grad, sizeof j->exp_grad) != 0;
        } else if (k == 2) {
            ok = acl_run(0, j->small, j->out_big);
            j->mismatches += memcmp(j->out_big, j->exp_afwd, sizeof j->exp_afwd) != 0;
        } else {
            ok = acl_run(1, j->big, j->out_small);
            j->mismatches += memcmp(j->out_small, j->exp_abwd, sizeof j->exp_abwd) != 0;
        }
        j->errors += !ok;
    }
    return NULL;
}

int main(void) {
    const char *env = getenv("RESAMPLE_CONCURRENCY_ITERS");
    if (env && atoi(env) > 0) iters = atoi(env);
    CHECK(aclInit(NULL) == 0);
    fwd_op = make_op(DML_OPERATOR_RESAMPLE2);
    grad_op = make_op(DML_OPERATOR_RESAMPLE_GRAD1);
    static job_t jobs[NTHR];
    /* Expected results, single-threaded, per thread's own data. */
    resample_set_num_threads(1);
    for (int t = 0; t < NTHR; t++) {
        job_t *j = &jobs[t];
        srand(1234 + t);
        for (int i = 0; i < NSMALL; i++) j->small[i] = (float)rand() / RAND_MAX - 0.5f;
        for (int i = 0; i < NBIG; i++) j->big[i] = (float)rand() / RAND_MAX - 0.5f;
        CHECK(dml_run(fwd_op, j->small, NSMALL, j->exp_fwd, NBIG));
        CHECK(dml_run(grad_op, j->big, NBIG, j->exp_grad, NSMALL));
        CHECK(acl_run(0, j->small, j->exp_afwd));
        CHECK(acl_run(1, j->big, j->exp_abwd));
    }
    resample_set_num_threads(0);
    pthread_t th[NTHR];
    for (int t = 0; t < NTHR; t++) CHECK(pthread_create(&th[t], NULL, worker, &jobs[t]) == 0);
    for (int t = 0; t < NTHR; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < NTHR; t++) {
        CHECK(jobs[t].mismatches == 0);
        CHECK(jobs[t].errors == 0);
        if (jobs[t].mismatches || jobs[t].errors)
            printf("thread %d: %d results differ, %d calls failed\n", t, jobs[t].mismatches, jobs[t].errors);
    }
    DMLReleaseOperator(fwd_op);
    DMLReleaseOperator(grad_op);
    aclFinalize();
    printf("%d passed, %d failed (%d threads x %d executions)\n", passed, failed, NTHR, iters);
    return failed != 0;
}
