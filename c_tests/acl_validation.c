/* Validation of the Ascend face: every documented check with its status code and order
 * (docs/spec/ascend.md §6), the mimic guards (§6.15), the executor rules (§6.14), the meta
 * API and the runtime shims. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_upsample_nearest_1d.h"
#include "aclnnop/aclnn_upsample_nearest_1d_v2.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "aclnnop/aclnn_upsample_nearest_2d_v2.h"
#include "aclnnop/aclnn_upsample_nearest_3d.h"
#include "aclnnop/aclnn_upsample_nearest_exact1d.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d.h"
#include "aclnnop/aclnn_upsample_nearest_1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_2d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_3d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact1d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_exact3d_backward.h"

static int passed, failed;
#define EXPECT(got, want) do { long g_ = (long)(got), w_ = (long)(want); \
    if (g_ == w_) passed++; else { failed++; printf("FAIL %s:%d %s = %ld, want %ld\n", __FILE__, __LINE__, #got, g_, w_); } } while (0)
#define CHECK(c) EXPECT(!!(c), 1)

enum { OK = ACLNN_SUCCESS, NUL = ACLNN_ERR_PARAM_NULLPTR, INV = ACLNN_ERR_PARAM_INVALID };

/* Up to 64 live tensors per test, freed by reset(). */
static aclTensor *tens[64];
static void *mems[64];
static int ntens;

static aclTensor *T(aclDataType dt, aclFormat fmt, int n, const int64_t *dims) {
    int64_t count = 1;
    for (int i = 0; i < n; i++) count *= dims[i] > 0 ? dims[i] : 0;
    void *mem = NULL;
    aclrtMalloc(&mem, (size_t)(count > 0 ? count : 1) * 8, ACL_MEM_MALLOC_HUGE_FIRST);
    aclTensor *t = aclCreateTensor(dims, (uint64_t)n, dt, NULL, 0, fmt, dims, (uint64_t)n, mem);
    tens[ntens] = t;
    mems[ntens++] = mem;
    return t;
}
#define D(...) (sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), ((int64_t[]){__VA_ARGS__})
#define A(...) aclCreateIntArray(((int64_t[]){__VA_ARGS__}), sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t))

static aclIntArray *arrs[64];
static int narrs;
static aclIntArray *keep(aclIntArray *a) { return arrs[narrs++] = a; }
#define AR(...) keep(A(__VA_ARGS__))

static void reset(void) {
    for (int i = 0; i < ntens; i++) { aclDestroyTensor(tens[i]); aclrtFree(mems[i]); }
    for (int i = 0; i < narrs; i++) aclDestroyIntArray(arrs[i]);
    ntens = narrs = 0;
}

static uint64_t ws;
static aclOpExecutor *ex;
/* Every successful phase 1 is followed by its run, which must succeed too. */
#define RUN_OK(st, run) do { aclnnStatus s_ = (st); EXPECT(s_, OK); if (s_ == OK) { EXPECT(ws, 0); EXPECT(run(NULL, 0, ex, NULL), OK); } } while (0)

static void test_3d(void) {
    aclTensor *s = T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(2, 2, 3, 4, 5));
    aclTensor *o = T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(2, 2, 6, 8, 10));
    aclIntArray *os = AR(6, 8, 10);
    RUN_OK(aclnnUpsampleNearest3dGetWorkspaceSize(s, os, 0, 0, 0, o, &ws, &ex), aclnnUpsampleNearest3d);
    /* COMM_INPUT first: even before a NULL self */
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(NULL, os, 0, 0, 0, o, NULL, &ex), NUL);
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(s, os, 0, 0, 0, o, &ws, NULL), NUL);
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(NULL, os, 0, 0, 0, o, &ws, &ex), NUL);
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(s, os, 0, 0, 0, NULL, &ws, &ex), NUL);
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(s, NULL, 0, 0, 0, o, &ws, &ex), NUL);
    /* NULL before dtype */
    aclTensor *si = T(ACL_INT32, ACL_FORMAT_NCDHW, D(2, 2, 3, 4, 5));
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(si, NULL, 0, 0, 0, o, &ws, &ex), NUL);
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(si, os, 0, 0, 0, o, &ws, &ex), INV);
    aclTensor *su8 = T(ACL_UINT8, ACL_FORMAT_NCDHW, D(2, 2, 3, 4, 5));
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(su8, os, 0, 0, 0, o, &ws, &ex), INV);
    aclTensor *o16 = T(ACL_FLOAT16, ACL_FORMAT_NCDHW, D(2, 2, 6, 8, 10));
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(s, os, 0, 0, 0, o16, &ws, &ex), INV);
    /* double is allowed */
    aclTensor *sd = T(ACL_DOUBLE, ACL_FORMAT_NCDHW, D(2, 2, 3, 4, 5)), *od = T(ACL_DOUBLE, ACL_FORMAT_NCDHW, D(2, 2, 6, 8, 10));
    RUN_OK(aclnnUpsampleNearest3dGetWorkspaceSize(sd, os, 0, 0, 0, od, &ws, &ex), aclnnUpsampleNearest3d);
    /* N == 0 succeeds */
    aclTensor *s0 = T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(0, 2, 3, 4, 5)), *o0 = T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(0, 2, 6, 8, 10));
    RUN_OK(aclnnUpsampleNearest3dGetWorkspaceSize(s0, os, 0, 0, 0, o0, &ws, &ex), aclnnUpsampleNearest3d);
    /* C == 0, D == 0 */
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(2, 0, 3, 4, 5)), os, 0, 0, 0,
                                                  T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(2, 0, 6, 8, 10)), &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(2, 2, 0, 4, 5)), os, 0, 0, 0, o, &ws, &ex), INV);
    /* rank 3 (an unguarded read in the original) and rank 6 */
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_NCL, D(2, 2, 3)), os, 0, 0, 0, o, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_ND, D(2, 2, 3, 4, 5, 1)), os, 0, 0, 0, o, &ws, &ex), INV);
    /* outputSize: 4 elements, an element 0, too short (unguarded read) */
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(s, AR(6, 8, 10, 1), 0, 0, 0, o, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(s, AR(6, 0, 10), 0, 0, 0, o, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(s, AR(6), 0, 0, 0, o, &ws, &ex), INV);
    /* wrong out shape */
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(s, os, 0, 0, 0, T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(2, 2, 6, 8, 11)), &ws, &ex), INV);
    /* NDHWC: out is [N, oD, oH, oW, C] */
    aclTensor *sl = T(ACL_FLOAT, ACL_FORMAT_NDHWC, D(2, 2, 3, 4, 5));
    RUN_OK(aclnnUpsampleNearest3dGetWorkspaceSize(sl, os, 0, 0, 0, T(ACL_FLOAT, ACL_FORMAT_NDHWC, D(2, 6, 8, 10, 5)), &ws, &ex),
           aclnnUpsampleNearest3d);
    EXPECT(aclnnUpsampleNearest3dGetWorkspaceSize(sl, os, 0, 0, 0, T(ACL_FLOAT, ACL_FORMAT_NDHWC, D(2, 5, 6, 8, 10)), &ws, &ex), INV);
    /* scales are not checked against outputSize (3d) */
    RUN_OK(aclnnUpsampleNearest3dGetWorkspaceSize(s, os, 7.0, 0.1, 3.0, o, &ws, &ex), aclnnUpsampleNearest3d);
    reset();
}

static void test_exact3d(void) {
    aclTensor *s = T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(1, 2, 3, 4, 5));
    aclTensor *o = T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(1, 2, 6, 8, 10));
    aclIntArray *os = AR(6, 8, 10);
    RUN_OK(aclnnUpsampleNearestExact3dGetWorkspaceSize(s, os, 2.0, 2.0, 2.0, o, &ws, &ex), aclnnUpsampleNearestExact3d);
    /* all scales given and inconsistent with outputSize */
    EXPECT(aclnnUpsampleNearestExact3dGetWorkspaceSize(s, os, 2.0, 2.5, 2.0, o, &ws, &ex), INV);
    /* not all given: not checked */
    RUN_OK(aclnnUpsampleNearestExact3dGetWorkspaceSize(s, os, 0, 2.5, 2.0, o, &ws, &ex), aclnnUpsampleNearestExact3d);
    /* double is not allowed for exact */
    EXPECT(aclnnUpsampleNearestExact3dGetWorkspaceSize(T(ACL_DOUBLE, ACL_FORMAT_NCDHW, D(1, 2, 3, 4, 5)), os, 0, 0, 0,
                                                       T(ACL_DOUBLE, ACL_FORMAT_NCDHW, D(1, 2, 6, 8, 10)), &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearestExact3dGetWorkspaceSize(s, os, 0, 0, 0, o, NULL, &ex), NUL);
    EXPECT(aclnnUpsampleNearestExact3dGetWorkspaceSize(s, os, 0, 0, 0, T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(1, 2, 6, 8)), &ws, &ex), INV);
    reset();
}

static void test_1d(void) {
    aclTensor *s = T(ACL_FLOAT, ACL_FORMAT_NCL, D(1, 3, 3)), *o = T(ACL_FLOAT, ACL_FORMAT_NCL, D(1, 3, 6));
    aclIntArray *os = AR(6);
    RUN_OK(aclnnUpsampleNearest1dV2GetWorkspaceSize(s, os, 0, o, &ws, &ex), aclnnUpsampleNearest1dV2);
    RUN_OK(aclnnUpsampleNearest1dGetWorkspaceSize(s, os, o, &ws, &ex), aclnnUpsampleNearest1d);
    /* no COMM_INPUT: a NULL executor is found after the other checks */
    EXPECT(aclnnUpsampleNearest1dV2GetWorkspaceSize(s, os, 0, o, &ws, NULL), NUL);
    EXPECT(aclnnUpsampleNearest1dV2GetWorkspaceSize(T(ACL_INT8, ACL_FORMAT_NCL, D(1, 3, 3)), os, 0, o, &ws, NULL), INV);
    EXPECT(aclnnUpsampleNearest1dGetWorkspaceSize(s, os, o, NULL, &ex), NUL);
    EXPECT(aclnnUpsampleNearest1dV2GetWorkspaceSize(NULL, os, 0, o, &ws, &ex), NUL);
    EXPECT(aclnnUpsampleNearest1dV2GetWorkspaceSize(s, NULL, 0, o, &ws, &ex), NUL);
    EXPECT(aclnnUpsampleNearest1dV2GetWorkspaceSize(s, os, 0, NULL, &ws, &ex), NUL);
    /* uint8 and double are allowed */
    RUN_OK(aclnnUpsampleNearest1dV2GetWorkspaceSize(T(ACL_UINT8, ACL_FORMAT_NCL, D(1, 3, 3)), os, 2.0f,
                                                    T(ACL_UINT8, ACL_FORMAT_NCL, D(1, 3, 6)), &ws, &ex), aclnnUpsampleNearest1dV2);
    RUN_OK(aclnnUpsampleNearest1dGetWorkspaceSize(T(ACL_DOUBLE, ACL_FORMAT_NCL, D(1, 3, 3)), os,
                                                  T(ACL_DOUBLE, ACL_FORMAT_NCL, D(1, 3, 6)), &ws, &ex), aclnnUpsampleNearest1d);
    EXPECT(aclnnUpsampleNearest1dV2GetWorkspaceSize(s, os, 0, T(ACL_FLOAT16, ACL_FORMAT_NCL, D(1, 3, 6)), &ws, &ex), INV);
    /* CheckShape order: outputSize empty, rank, C/L, out L, outputSize[0] */
    EXPECT(aclnnUpsampleNearest1dV2GetWorkspaceSize(s, AR(0), 0, o, &ws, &ex), INV);
    aclIntArray *empty = aclCreateIntArray(NULL, 0);
    CHECK(empty != NULL);
    keep(empty);
    EXPECT(aclnnUpsampleNearest1dV2GetWorkspaceSize(s, empty, 0, o, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest1dV2GetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_NCL, D(1, 3, 3, 1)), os, 0, o, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest1dV2GetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_NCL, D(1, 0, 3)), os, 0, o, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest1dV2GetWorkspaceSize(s, os, 0, T(ACL_FLOAT, ACL_FORMAT_NCL, D(1, 3, 7)), &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest1dV2GetWorkspaceSize(s, os, 0, T(ACL_FLOAT, ACL_FORMAT_NCL, D(1, 3)), &ws, &ex), INV);
    /* 1d has no out-L check in the original; the mimic refuses the mismatch (§6.15 choice) */
    EXPECT(aclnnUpsampleNearest1dGetWorkspaceSize(s, os, T(ACL_FLOAT, ACL_FORMAT_NCL, D(1, 3, 7)), &ws, &ex), INV);
    /* formats: NCL for both */
    EXPECT(aclnnUpsampleNearest1dV2GetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_ND, D(1, 3, 3)), os, 0,
                                                    T(ACL_FLOAT, ACL_FORMAT_ND, D(1, 3, 6)), &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest1dGetWorkspaceSize(s, os, T(ACL_FLOAT, ACL_FORMAT_ND, D(1, 3, 6)), &ws, &ex), INV);
    /* N == 0 */
    RUN_OK(aclnnUpsampleNearest1dV2GetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_NCL, D(0, 3, 3)), os, 0,
                                                    T(ACL_FLOAT, ACL_FORMAT_NCL, D(0, 3, 6)), &ws, &ex), aclnnUpsampleNearest1dV2);
    reset();
}

static void test_2d(void) {
    aclTensor *s = T(ACL_FLOAT, ACL_FORMAT_NCHW, D(1, 2, 4, 2)), *o = T(ACL_FLOAT, ACL_FORMAT_NCHW, D(1, 2, 8, 4));
    aclIntArray *os = AR(8, 4);
    RUN_OK(aclnnUpsampleNearest2dV2GetWorkspaceSize(s, os, 0, 0, o, &ws, &ex), aclnnUpsampleNearest2dV2);
    RUN_OK(aclnnUpsampleNearest2dGetWorkspaceSize(s, os, o, &ws, &ex), aclnnUpsampleNearest2d);
    /* 2dV2: outputSize is not NULL-checked up front; an empty self succeeds before it is read */
    EXPECT(aclnnUpsampleNearest2dV2GetWorkspaceSize(s, NULL, 0, 0, o, &ws, &ex), NUL);
    aclTensor *se = T(ACL_INT32, ACL_FORMAT_NCHW, D(0, 2, 4, 2));
    RUN_OK(aclnnUpsampleNearest2dV2GetWorkspaceSize(se, NULL, 0, 0, o, &ws, &ex), aclnnUpsampleNearest2dV2);
    RUN_OK(aclnnUpsampleNearest2dV2GetWorkspaceSize(s, NULL, 0, 0, T(ACL_FLOAT, ACL_FORMAT_NCHW, D(1, 2, 0, 4)), &ws, &ex),
           aclnnUpsampleNearest2dV2);
    EXPECT(aclnnUpsampleNearest2dV2GetWorkspaceSize(se, NULL, 0, 0, o, &ws, NULL), NUL);
    /* 2d checks NULLs, then dtype, and has no early empty return */
    EXPECT(aclnnUpsampleNearest2dGetWorkspaceSize(s, NULL, o, &ws, &ex), NUL);
    EXPECT(aclnnUpsampleNearest2dGetWorkspaceSize(se, os, o, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest2dV2GetWorkspaceSize(T(ACL_BOOL, ACL_FORMAT_NCHW, D(1, 2, 4, 2)), os, 0, 0, o, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest2dV2GetWorkspaceSize(s, AR(8, 4, 1), 0, 0, o, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest2dV2GetWorkspaceSize(s, AR(8, 0), 0, 0, o, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest2dV2GetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_NCL, D(1, 2, 4)), os, 0, 0, o, &ws, &ex), INV);
    /* format: self must be NCHW/NHWC */
    EXPECT(aclnnUpsampleNearest2dV2GetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_ND, D(1, 2, 4, 2)), os, 0, 0, o, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest2dGetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_ND, D(1, 2, 4, 2)), os,
                                                  T(ACL_FLOAT, ACL_FORMAT_ND, D(1, 2, 8, 4)), &ws, &ex), INV);
    /* 2d: self and out formats must be equal */
    EXPECT(aclnnUpsampleNearest2dGetWorkspaceSize(s, os, T(ACL_FLOAT, ACL_FORMAT_ND, D(1, 2, 8, 4)), &ws, &ex), INV);
    /* N/C mismatch, out H/W mismatch */
    EXPECT(aclnnUpsampleNearest2dV2GetWorkspaceSize(s, os, 0, 0, T(ACL_FLOAT, ACL_FORMAT_NCHW, D(1, 3, 8, 4)), &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest2dV2GetWorkspaceSize(s, os, 0, 0, T(ACL_FLOAT, ACL_FORMAT_NCHW, D(1, 2, 8, 5)), &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest2dGetWorkspaceSize(s, os, T(ACL_FLOAT, ACL_FORMAT_NCHW, D(2, 2, 8, 4)), &ws, &ex), INV);
    /* NHWC */
    aclTensor *sl = T(ACL_FLOAT16, ACL_FORMAT_NHWC, D(1, 4, 2, 5)), *ol = T(ACL_FLOAT16, ACL_FORMAT_NHWC, D(1, 8, 4, 5));
    RUN_OK(aclnnUpsampleNearest2dV2GetWorkspaceSize(sl, os, 2.0f, 2.0f, ol, &ws, &ex), aclnnUpsampleNearest2dV2);
    RUN_OK(aclnnUpsampleNearest2dGetWorkspaceSize(sl, os, ol, &ws, &ex), aclnnUpsampleNearest2d);
    EXPECT(aclnnUpsampleNearest2dGetWorkspaceSize(sl, os, T(ACL_FLOAT16, ACL_FORMAT_NHWC, D(1, 5, 8, 4)), &ws, &ex), INV);
    /* 2d: N == 0 succeeds after the checks */
    RUN_OK(aclnnUpsampleNearest2dGetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_NCHW, D(0, 2, 4, 2)), os,
                                                  T(ACL_FLOAT, ACL_FORMAT_NCHW, D(0, 2, 8, 4)), &ws, &ex), aclnnUpsampleNearest2d);
    EXPECT(aclnnUpsampleNearest2dGetWorkspaceSize(s, os, o, &ws, NULL), NUL);
    reset();
}

static void test_exact12d(void) {
    aclTensor *s = T(ACL_FLOAT, ACL_FORMAT_NCL, D(1, 2, 3)), *o = T(ACL_FLOAT, ACL_FORMAT_NCL, D(1, 2, 5));
    aclIntArray *os = AR(5);
    RUN_OK(aclnnUpsampleNearestExact1dGetWorkspaceSize(s, os, 0, o, &ws, &ex), aclnnUpsampleNearestExact1d);
    EXPECT(aclnnUpsampleNearestExact1dGetWorkspaceSize(s, os, 0, o, NULL, &ex), NUL);
    EXPECT(aclnnUpsampleNearestExact1dGetWorkspaceSize(s, NULL, 0, o, &ws, &ex), NUL);
    EXPECT(aclnnUpsampleNearestExact1dGetWorkspaceSize(T(ACL_DOUBLE, ACL_FORMAT_NCL, D(1, 2, 3)), os, 0,
                                                       T(ACL_DOUBLE, ACL_FORMAT_NCL, D(1, 2, 5)), &ws, &ex), INV);
    /* N must be > 0 here (CheckInputElement) */
    EXPECT(aclnnUpsampleNearestExact1dGetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_NCL, D(0, 2, 3)), os, 0,
                                                       T(ACL_FLOAT, ACL_FORMAT_NCL, D(0, 2, 5)), &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearestExact1dGetWorkspaceSize(s, AR(5, 1), 0, o, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearestExact1dGetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_NCL, D(1, 2)), os, 0, o, &ws, &ex), INV);
    /* no format check; the out shape is guarded by the mimic */
    RUN_OK(aclnnUpsampleNearestExact1dGetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_ND, D(1, 2, 3)), os, 0, o, &ws, &ex),
           aclnnUpsampleNearestExact1d);
    EXPECT(aclnnUpsampleNearestExact1dGetWorkspaceSize(s, os, 0, T(ACL_FLOAT, ACL_FORMAT_NCL, D(1, 2, 6)), &ws, &ex), INV);

    aclTensor *s2 = T(ACL_FLOAT, ACL_FORMAT_NCHW, D(1, 2, 3, 3)), *o2 = T(ACL_FLOAT, ACL_FORMAT_NCHW, D(1, 2, 5, 4));
    aclIntArray *os2 = AR(5, 4);
    RUN_OK(aclnnUpsampleNearestExact2dGetWorkspaceSize(s2, os2, 0, 0, o2, &ws, &ex), aclnnUpsampleNearestExact2d);
    /* early empty success, before dtype */
    RUN_OK(aclnnUpsampleNearestExact2dGetWorkspaceSize(T(ACL_INT64, ACL_FORMAT_NCHW, D(0, 2, 3, 3)), os2, 0, 0, o2, &ws, &ex),
           aclnnUpsampleNearestExact2d);
    EXPECT(aclnnUpsampleNearestExact2dGetWorkspaceSize(T(ACL_INT64, ACL_FORMAT_NCHW, D(1, 2, 3, 3)), os2, 0, 0, o2, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearestExact2dGetWorkspaceSize(s2, AR(5), 0, 0, o2, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearestExact2dGetWorkspaceSize(s2, os2, 0, 0, T(ACL_FLOAT, ACL_FORMAT_NCHW, D(1, 3, 5, 4)), &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearestExact2dGetWorkspaceSize(s2, os2, 0, 0, T(ACL_FLOAT, ACL_FORMAT_ND, D(1, 2, 5, 4)), &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearestExact2dGetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_NCL, D(1, 2, 3, 3)), os2, 0, 0,
                                                       T(ACL_FLOAT, ACL_FORMAT_NCL, D(1, 2, 5, 4)), &ws, &ex), INV);
    RUN_OK(aclnnUpsampleNearestExact2dGetWorkspaceSize(T(ACL_UINT8, ACL_FORMAT_ND, D(1, 2, 3, 3)), os2, 0, 0,
                                                       T(ACL_UINT8, ACL_FORMAT_ND, D(1, 2, 5, 4)), &ws, &ex), aclnnUpsampleNearestExact2d);
    /* no out H/W check in the original: the mimic refuses the mismatch */
    EXPECT(aclnnUpsampleNearestExact2dGetWorkspaceSize(s2, os2, 0, 0, T(ACL_FLOAT, ACL_FORMAT_NCHW, D(1, 2, 5, 5)), &ws, &ex), INV);
    reset();
}

static void test_backward3d(void) {
    aclTensor *g = T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(2, 2, 2, 2, 2)), *gi = T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(2, 2, 1, 1, 1));
    aclIntArray *os = AR(2, 2, 2), *is = AR(2, 2, 1, 1, 1);
    RUN_OK(aclnnUpsampleNearest3dBackwardGetWorkspaceSize(g, os, is, 0, 0, 0, gi, &ws, &ex), aclnnUpsampleNearest3dBackward);
    RUN_OK(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(g, os, is, 0, 0, 0, gi, &ws, &ex), aclnnUpsampleNearestExact3dBackward);
    EXPECT(aclnnUpsampleNearest3dBackwardGetWorkspaceSize(NULL, os, is, 0, 0, 0, gi, NULL, &ex), NUL);
    EXPECT(aclnnUpsampleNearest3dBackwardGetWorkspaceSize(g, os, NULL, 0, 0, 0, gi, &ws, &ex), NUL);
    EXPECT(aclnnUpsampleNearest3dBackwardGetWorkspaceSize(g, NULL, is, 0, 0, 0, gi, &ws, &ex), NUL);
    EXPECT(aclnnUpsampleNearest3dBackwardGetWorkspaceSize(g, os, is, 0, 0, 0, NULL, &ws, &ex), NUL);
    EXPECT(aclnnUpsampleNearest3dBackwardGetWorkspaceSize(T(ACL_UINT8, ACL_FORMAT_NCDHW, D(2, 2, 2, 2, 2)), os, is, 0, 0, 0, gi, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest3dBackwardGetWorkspaceSize(g, os, is, 0, 0, 0, T(ACL_FLOAT16, ACL_FORMAT_NCDHW, D(2, 2, 1, 1, 1)), &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest3dBackwardGetWorkspaceSize(g, os, AR(2, 2, 1, 1), 0, 0, 0, gi, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest3dBackwardGetWorkspaceSize(g, AR(2, 2), is, 0, 0, 0, gi, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest3dBackwardGetWorkspaceSize(g, os, AR(2, 2, 0, 1, 1), 0, 0, 0, gi, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest3dBackwardGetWorkspaceSize(g, AR(2, 2, 3), is, 0, 0, 0, gi, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest3dBackwardGetWorkspaceSize(g, os, is, 0, 0, 0, T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(2, 2, 1, 1, 2)), &ws, &ex), INV);
    /* double: allowed for nearest, not for exact */
    aclTensor *gd = T(ACL_DOUBLE, ACL_FORMAT_NCDHW, D(2, 2, 2, 2, 2)), *gid = T(ACL_DOUBLE, ACL_FORMAT_NCDHW, D(2, 2, 1, 1, 1));
    RUN_OK(aclnnUpsampleNearest3dBackwardGetWorkspaceSize(gd, os, is, 0, 0, 0, gid, &ws, &ex), aclnnUpsampleNearest3dBackward);
    EXPECT(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(gd, os, is, 0, 0, 0, gid, &ws, &ex), INV);
    /* NDHWC per tensor; inputSize stays N, C, D, H, W */
    RUN_OK(aclnnUpsampleNearest3dBackwardGetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_NDHWC, D(2, 2, 2, 2, 3)), os, AR(2, 3, 1, 1, 1), 0, 0, 0,
                                                          T(ACL_FLOAT, ACL_FORMAT_NDHWC, D(2, 1, 1, 1, 3)), &ws, &ex),
           aclnnUpsampleNearest3dBackward);
    /* exact: a real scale above 50 */
    EXPECT(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(1, 1, 51, 1, 1)), AR(51, 1, 1), AR(1, 1, 1, 1, 1),
                                                               0, 0, 0, T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(1, 1, 1, 1, 1)), &ws, &ex), INV);
    RUN_OK(aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(1, 1, 50, 1, 1)), AR(50, 1, 1), AR(1, 1, 1, 1, 1),
                                                               0, 0, 0, T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(1, 1, 1, 1, 1)), &ws, &ex),
           aclnnUpsampleNearestExact3dBackward);
    /* empty gradOut */
    RUN_OK(aclnnUpsampleNearest3dBackwardGetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(0, 2, 2, 2, 2)), os, AR(0, 2, 1, 1, 1), 0, 0, 0,
                                                          T(ACL_FLOAT, ACL_FORMAT_NCDHW, D(0, 2, 1, 1, 1)), &ws, &ex),
           aclnnUpsampleNearest3dBackward);
    reset();
}

static void test_backward12d(void) {
    /* 2d backward */
    aclTensor *g = T(ACL_FLOAT, ACL_FORMAT_NCHW, D(1, 2, 4, 4)), *gi = T(ACL_FLOAT, ACL_FORMAT_NCHW, D(1, 2, 2, 2));
    aclIntArray *os = AR(4, 4), *is = AR(1, 2, 2, 2);
    RUN_OK(aclnnUpsampleNearest2dBackwardGetWorkspaceSize(g, os, is, 0, 0, gi, &ws, &ex), aclnnUpsampleNearest2dBackward);
    EXPECT(aclnnUpsampleNearest2dBackwardGetWorkspaceSize(g, os, is, 0, 0, gi, NULL, &ex), NUL); /* after the other checks */
    EXPECT(aclnnUpsampleNearest2dBackwardGetWorkspaceSize(T(ACL_DOUBLE, ACL_FORMAT_NCHW, D(1, 2, 4, 4)), os, is, 0, 0, gi, NULL, &ex), INV);
    EXPECT(aclnnUpsampleNearest2dBackwardGetWorkspaceSize(g, os, NULL, 0, 0, gi, &ws, &ex), NUL);
    EXPECT(aclnnUpsampleNearest2dBackwardGetWorkspaceSize(g, os, is, 0, 0, T(ACL_FLOAT, ACL_FORMAT_ND, D(1, 2, 2, 2)), &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest2dBackwardGetWorkspaceSize(g, os, is, 0, 0, T(ACL_FLOAT, ACL_FORMAT_NCHW, D(1, 3, 2, 2)), &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest2dBackwardGetWorkspaceSize(g, AR(4, 5), is, 0, 0, gi, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest2dBackwardGetWorkspaceSize(g, os, is, 0, 0, T(ACL_FLOAT, ACL_FORMAT_NCHW, D(1, 2, 2, 3)), &ws, &ex), INV);
    /* NHWC gradOut: inputSize is [N, H, W, C] */
    RUN_OK(aclnnUpsampleNearest2dBackwardGetWorkspaceSize(T(ACL_BF16, ACL_FORMAT_NHWC, D(1, 4, 4, 3)), os, AR(1, 2, 2, 3), 0, 0,
                                                          T(ACL_BF16, ACL_FORMAT_NHWC, D(1, 2, 2, 3)), &ws, &ex),
           aclnnUpsampleNearest2dBackward);
    /* 1d backward */
    aclTensor *g1 = T(ACL_FLOAT, ACL_FORMAT_NCL, D(1, 2, 5)), *o1 = T(ACL_FLOAT, ACL_FORMAT_NCL, D(1, 2, 3));
    aclIntArray *os1 = AR(5), *is1 = AR(1, 2, 3);
    RUN_OK(aclnnUpsampleNearest1dBackwardGetWorkspaceSize(g1, os1, is1, 0, o1, &ws, &ex), aclnnUpsampleNearest1dBackward);
    EXPECT(aclnnUpsampleNearest1dBackwardGetWorkspaceSize(g1, os1, is1, 0, o1, &ws, NULL), NUL);
    /* rank before dtype */
    EXPECT(aclnnUpsampleNearest1dBackwardGetWorkspaceSize(g1, os1, AR(1, 2), 0, o1, &ws, NULL), INV);
    EXPECT(aclnnUpsampleNearest1dBackwardGetWorkspaceSize(g1, os1, is1, 0, T(ACL_FLOAT16, ACL_FORMAT_NCL, D(1, 2, 3)), &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest1dBackwardGetWorkspaceSize(g1, AR(6), is1, 0, o1, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest1dBackwardGetWorkspaceSize(g1, os1, is1, 0, T(ACL_FLOAT, ACL_FORMAT_NCL, D(1, 2, 4)), &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearest1dBackwardGetWorkspaceSize(g1, os1, is1, 0, T(ACL_FLOAT, ACL_FORMAT_NCL, D(2, 2, 3)), &ws, &ex), INV);
    /* exact 2d backward */
    RUN_OK(aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(g, os, is, 0, 0, gi, &ws, &ex), aclnnUpsampleNearestExact2dBackward);
    EXPECT(aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(g, NULL, is, 0, 0, gi, &ws, &ex), NUL);
    RUN_OK(aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_NCHW, D(0, 2, 4, 4)), NULL, is, 0, 0, gi, &ws, &ex),
           aclnnUpsampleNearestExact2dBackward);
    EXPECT(aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(g, os, NULL, 0, 0, gi, &ws, &ex), NUL);
    EXPECT(aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(g, os, is, 0, 0, gi, NULL, &ex), NUL);
    EXPECT(aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(g, os, is, 0, 0, T(ACL_FLOAT, ACL_FORMAT_ND, D(1, 2, 2, 2)), &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(T(ACL_FLOAT, ACL_FORMAT_NHWC, D(1, 4, 4, 2)), os, AR(1, 2, 2, 2), 0, 0,
                                                               T(ACL_FLOAT, ACL_FORMAT_NHWC, D(1, 2, 2, 2)), &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(g, os, is, -1.0, 0, gi, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(g, os, is, 100.0, 0, gi, &ws, &ex), INV);
    /* outputSize is never compared with gradOut in the original: the mimic refuses a mismatch */
    EXPECT(aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(g, AR(4, 3), is, 0, 0, gi, &ws, &ex), INV);
    /* exact 1d backward */
    RUN_OK(aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(g1, os1, is1, 0, o1, &ws, &ex), aclnnUpsampleNearestExact1dBackward);
    EXPECT(aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(g1, NULL, is1, 0, o1, &ws, &ex), NUL);
    EXPECT(aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(g1, os1, is1, 0, T(ACL_FLOAT, ACL_FORMAT_ND, D(1, 2, 3)), &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(g1, os1, is1, -0.5, o1, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(g1, os1, is1, 60.0, o1, &ws, &ex), INV);
    EXPECT(aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(g1, os1, AR(0, 2, 3), 0, T(ACL_FLOAT, ACL_FORMAT_NCL, D(0, 2, 3)), &ws, &ex), INV);
    reset();
}

static void test_executor_and_views(void) {
    float src[6] = {1, 2, 3, 4, 5, 6};
    float dstbuf[20];
    int64_t sd[] = {1, 1, 6}, dd[] = {1, 1, 3};
    aclIntArray *os = AR(3);
    aclTensor *s = aclCreateTensor(sd, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCL, sd, 3, src);
    aclTensor *o = aclCreateTensor(dd, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCL, dd, 3, dstbuf);
    /* phase 2 rules */
    EXPECT(aclnnUpsampleNearest1d(NULL, 0, NULL, NULL), NUL);
    EXPECT(aclnnUpsampleNearest1dGetWorkspaceSize(s, os, o, &ws, &ex), OK);
    aclOpExecutor *e1 = ex;
    EXPECT(aclnnUpsampleNearest1d(NULL, 16, e1, NULL), NUL); /* frees the executor */
    EXPECT(aclnnUpsampleNearest1d(NULL, 0, e1, NULL), INV);  /* consumed */
    EXPECT(aclnnUpsampleNearest1dGetWorkspaceSize(s, os, o, &ws, &ex), OK);
    e1 = ex;
    EXPECT(aclnnUpsampleNearest1d(NULL, 0, e1, NULL), OK);
    EXPECT(aclnnUpsampleNearest1d(NULL, 0, e1, NULL), INV);
    /* repeatable executors survive runs and can be rebound */
    EXPECT(aclnnUpsampleNearest1dGetWorkspaceSize(s, os, o, &ws, &ex), OK);
    EXPECT(aclSetAclOpExecutorRepeatable(ex), OK);
    EXPECT(aclnnUpsampleNearest1d(NULL, 0, ex, NULL), OK);
    CHECK(dstbuf[0] == 1 && dstbuf[1] == 3 && dstbuf[2] == 5);
    float src2[6] = {10, 20, 30, 40, 50, 60};
    EXPECT(aclSetInputTensorAddr(ex, 0, s, src2), OK);
    EXPECT(aclnnUpsampleNearest1d(NULL, 0, ex, NULL), OK);
    CHECK(dstbuf[0] == 10 && dstbuf[1] == 30 && dstbuf[2] == 50);
    EXPECT(aclDestroyAclOpExecutor(ex), OK);
    EXPECT(aclnnUpsampleNearest1d(NULL, 0, ex, NULL), INV);
    aclDestroyTensor(s);
    aclDestroyTensor(o);

    /* views: strides and offset in elements, storage bounds */
    float stor[16];
    for (int i = 0; i < 16; i++) stor[i] = (float)i;
    int64_t st2[] = {6, 6, 2}, one[] = {16}, small[] = {12};
    aclTensor *v = aclCreateTensor(sd, 3, ACL_FLOAT, st2, 3, ACL_FORMAT_NCL, one, 1, stor); /* stor[3 + 2k] */
    memset(dstbuf, 0, sizeof dstbuf);
    o = aclCreateTensor(dd, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCL, dd, 3, dstbuf);
    EXPECT(aclnnUpsampleNearest1dGetWorkspaceSize(v, os, o, &ws, &ex), OK);
    EXPECT(aclnnUpsampleNearest1d(NULL, 0, ex, NULL), OK);
    CHECK(dstbuf[0] == 3 && dstbuf[1] == 7 && dstbuf[2] == 11);
    aclDestroyTensor(v);
    v = aclCreateTensor(sd, 3, ACL_FLOAT, st2, 3, ACL_FORMAT_NCL, small, 1, stor); /* last element 13 > 11 */
    EXPECT(aclnnUpsampleNearest1dGetWorkspaceSize(v, os, o, &ws, &ex), INV);
    aclDestroyTensor(v);
    int64_t neg[] = {6, 6, -1};
    v = aclCreateTensor(sd, 3, ACL_FLOAT, neg, 8, ACL_FORMAT_NCL, one, 1, stor);
    EXPECT(aclnnUpsampleNearest1dGetWorkspaceSize(v, os, o, &ws, &ex), INV);
    aclDestroyTensor(v);
    v = aclCreateTensor(sd, 3, ACL_FLOAT, NULL, -1, ACL_FORMAT_NCL, one, 1, stor);
    EXPECT(aclnnUpsampleNearest1dGetWorkspaceSize(v, os, o, &ws, &ex), INV);
    aclDestroyTensor(v);
    v = aclCreateTensor(sd, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCL, sd, 3, NULL);
    EXPECT(aclnnUpsampleNearest1dGetWorkspaceSize(v, os, o, &ws, &ex), NUL);
    aclDestroyTensor(v);
    /* an out whose elements overlap */
    int64_t zero[] = {3, 3, 0};
    aclTensor *ov = aclCreateTensor(dd, 3, ACL_FLOAT, zero, 0, ACL_FORMAT_NCL, dd, 3, dstbuf);
    s = aclCreateTensor(sd, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCL, sd, 3, stor);
    EXPECT(aclnnUpsampleNearest1dGetWorkspaceSize(s, os, ov, &ws, &ex), INV);
    aclDestroyTensor(ov);
    /* in place over shared storage: out = first 3 elements of self's storage */
    float shared[6] = {1, 2, 3, 4, 5, 6};
    aclTensor *ss = aclCreateTensor(sd, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCL, sd, 3, shared);
    aclTensor *so = aclCreateTensor(dd, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCL, sd, 3, shared);
    EXPECT(aclnnUpsampleNearest1dGetWorkspaceSize(ss, os, so, &ws, &ex), OK);
    EXPECT(aclnnUpsampleNearest1d(NULL, 0, ex, NULL), OK);
    CHECK(shared[0] == 1 && shared[1] == 3 && shared[2] == 5 && shared[3] == 4);
    aclDestroyTensor(ss);
    aclDestroyTensor(so);
    aclDestroyTensor(s);
    aclDestroyTensor(o);
    reset();
}

static void test_meta_and_runtime(void) {
    int64_t d[] = {2, 3};
    CHECK(aclCreateTensor(NULL, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, d, 2, NULL) == NULL);
    CHECK(aclCreateTensor(d, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 2, NULL) == NULL);
    CHECK(aclCreateIntArray(NULL, 2) == NULL);
    CHECK(aclCreateFloatArray(NULL, 1) == NULL);
    EXPECT(aclDestroyTensor(NULL), OK);
    EXPECT(aclDestroyIntArray(NULL), OK);
    EXPECT(aclDestroyFloatArray(NULL), OK);
    float fv[] = {1.5f, 2.5f};
    aclFloatArray *fa = aclCreateFloatArray(fv, 2);
    uint64_t n = 0;
    EXPECT(aclGetFloatArraySize(fa, &n), OK);
    EXPECT(n, 2);
    EXPECT(aclGetFloatArraySize(fa, NULL), NUL);
    aclDestroyFloatArray(fa);
    aclTensor *t = aclCreateTensor(d, 2, ACL_FLOAT16, NULL, 5, ACL_FORMAT_ND, d, 2, NULL);
    int64_t *strides = NULL, off = 0;
    EXPECT(aclGetViewStrides(t, &strides, &n), OK);
    CHECK(n == 2 && strides[0] == 3 && strides[1] == 1);
    free(strides);
    EXPECT(aclGetViewOffset(t, &off), OK);
    EXPECT(off, 5);
    aclDataType dt;
    EXPECT(aclGetDataType(t, &dt), OK);
    EXPECT(dt, ACL_FLOAT16);
    EXPECT(aclGetDataType(NULL, &dt), NUL);
    aclDestroyTensor(t);

    EXPECT(aclInit(NULL), ACL_SUCCESS);
    EXPECT(aclrtSetDevice(0), ACL_SUCCESS);
    int32_t dev = -1;
    EXPECT(aclrtGetDevice(&dev), ACL_SUCCESS);
    EXPECT(dev, 0);
    void *p = NULL, *q = NULL;
    EXPECT(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    CHECK(((uintptr_t)p % 32) == 0);
    EXPECT(aclrtMalloc(&q, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMalloc(NULL, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    char host[200];
    memset(host, 7, sizeof host);
    EXPECT(aclrtMemcpy(p, 100, host, 101, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemcpy(p, 100, host, 100, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    EXPECT(aclrtMemcpy(p, 100, host, 10, 99), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtMemset(p, 100, 3, 50), ACL_SUCCESS);
    EXPECT(aclrtMemcpy(host, sizeof host, p, 100, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    CHECK(host[0] == 3 && host[49] == 3 && host[50] == 7);
    EXPECT(aclrtFree(p), ACL_SUCCESS);
    EXPECT(aclrtFree(p), ACL_ERROR_INVALID_PARAM); /* double free is refused */
    EXPECT(aclrtFree(NULL), ACL_ERROR_INVALID_PARAM);
    aclrtStream s = NULL;
    EXPECT(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT(aclrtDestroyStream(s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtCreateStream(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclDataTypeSize(ACL_BF16), 2);
    EXPECT(aclDataTypeSize(ACL_DOUBLE), 8);
    CHECK(aclFloat16ToFloat(aclFloatToFloat16(1.5f)) == 1.5f);
    EXPECT(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT(aclFinalize(), ACL_SUCCESS);
    /* the last refused aclnn call is described */
    aclnnUpsampleNearest3dGetWorkspaceSize(NULL, NULL, 0, 0, 0, NULL, NULL, NULL);
    CHECK(strstr(aclGetRecentErrMsg(), "161001") != NULL);
}

int main(void) {
    test_3d();
    test_exact3d();
    test_1d();
    test_2d();
    test_exact12d();
    test_backward3d();
    test_backward12d();
    test_executor_and_views();
    test_meta_and_runtime();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
