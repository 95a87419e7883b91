/* The official CANN example flows (ops-cv image/.../examples/test_aclnn_*.cpp), in C, with
 * the expected vectors of docs/spec/ascend.md §8:
 * aclInit -> aclrtSetDevice -> aclrtCreateStream -> aclrtMalloc -> aclrtMemcpy ->
 * aclCreateTensor -> GetWorkspaceSize -> run -> aclrtSynchronizeStream -> copy back ->
 * destroy -> aclrtFree -> aclrtDestroyStream -> aclrtResetDevice -> aclFinalize. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "acl/acl.h"
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
#define CHECK(c) do { if (c) passed++; else { failed++; printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); } } while (0)
#define CHECK_RET(c, ...) do { if (!(c)) { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); return -1; } passed++; } while (0)

static aclrtStream stream;

static int Init(void) {
    CHECK_RET(aclInit(NULL) == ACL_SUCCESS, "aclInit");
    CHECK_RET(aclrtSetDevice(0) == ACL_SUCCESS, "aclrtSetDevice");
    CHECK_RET(aclrtCreateStream(&stream) == ACL_SUCCESS, "aclrtCreateStream");
    return 0;
}

static int Finish(void) {
    CHECK_RET(aclrtDestroyStream(stream) == ACL_SUCCESS, "aclrtDestroyStream");
    CHECK_RET(aclrtResetDevice(0) == ACL_SUCCESS, "aclrtResetDevice");
    CHECK_RET(aclFinalize() == ACL_SUCCESS, "aclFinalize");
    return 0;
}

static int64_t ShapeSize(const int64_t *shape, int n) {
    int64_t s = 1;
    for (int i = 0; i < n; i++) s *= shape[i];
    return s;
}

/* The examples' CreateAclTensor: device copy of host data, contiguous strides. */
static int CreateAclTensor(const void *host, size_t esz, const int64_t *shape, int n, void **dev,
                           aclDataType dt, aclFormat fmt, aclTensor **tensor) {
    size_t bytes = (size_t)ShapeSize(shape, n) * esz;
    CHECK_RET(aclrtMalloc(dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "aclrtMalloc");
    CHECK_RET(aclrtMemcpy(*dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS, "aclrtMemcpy");
    int64_t strides[8];
    strides[n - 1] = 1;
    for (int i = n - 2; i >= 0; i--) strides[i] = shape[i + 1] * strides[i + 1];
    *tensor = aclCreateTensor(shape, (uint64_t)n, dt, strides, 0, fmt, shape, (uint64_t)n, *dev);
    CHECK_RET(*tensor != NULL, "aclCreateTensor");
    return 0;
}

typedef aclnnStatus (*RunFn)(void *, uint64_t, aclOpExecutor *, aclrtStream);

/* Phase 2 as the examples do it, then synchronise and copy the result back. */
static int RunAndFetch(uint64_t ws, aclOpExecutor *ex, RunFn run, void *outDev, void *host, size_t bytes) {
    void *wsAddr = NULL;
    if (ws > 0) CHECK_RET(aclrtMalloc(&wsAddr, ws, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "ws malloc");
    CHECK_RET(run(wsAddr, ws, ex, stream) == ACLNN_SUCCESS, "run");
    CHECK_RET(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "aclrtSynchronizeStream");
    CHECK_RET(aclrtMemcpy(host, bytes, outDev, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS, "copy back");
    if (wsAddr) aclrtFree(wsAddr);
    return 0;
}

static int eqf(const float *a, const float *b, int n) {
    for (int i = 0; i < n; i++)
        if (a[i] != b[i]) {
            printf("  [%d] got %g want %g\n", i, a[i], b[i]);
            return 0;
        }
    return 1;
}

/* ---- forward 3d / exact3d: self {2,2,2,2,3} = 1..48, outputSize {1,1,1}, scales 0 */
static int Example3d(int exact) {
    int64_t selfShape[] = {2, 2, 2, 2, 3}, outShape[] = {2, 2, 1, 1, 1}, osz[] = {1, 1, 1};
    float selfHost[48], outHost[4] = {0};
    for (int i = 0; i < 48; i++) selfHost[i] = (float)(i + 1);
    void *selfDev, *outDev;
    aclTensor *self, *out;
    if (CreateAclTensor(selfHost, 4, selfShape, 5, &selfDev, ACL_FLOAT, ACL_FORMAT_NCDHW, &self)) return -1;
    if (CreateAclTensor(outHost, 4, outShape, 5, &outDev, ACL_FLOAT, ACL_FORMAT_NCDHW, &out)) return -1;
    aclIntArray *outputSize = aclCreateIntArray(osz, 3);
    CHECK_RET(outputSize != NULL, "aclCreateIntArray");
    uint64_t ws = 1;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = exact ? aclnnUpsampleNearestExact3dGetWorkspaceSize(self, outputSize, 0, 0, 0, out, &ws, &ex)
                           : aclnnUpsampleNearest3dGetWorkspaceSize(self, outputSize, 0, 0, 0, out, &ws, &ex);
    CHECK_RET(st == ACLNN_SUCCESS, "GetWorkspaceSize: %d", st);
    CHECK(ws == 0);
    if (RunAndFetch(ws, ex, exact ? aclnnUpsampleNearestExact3d : aclnnUpsampleNearest3d, outDev, outHost, sizeof outHost)) return -1;
    static const float want[] = {1, 13, 25, 37}, wantExact[] = {11, 23, 35, 47};
    CHECK(eqf(outHost, exact ? wantExact : want, 4));
    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyIntArray(outputSize);
    aclrtFree(selfDev);
    aclrtFree(outDev);
    return 0;
}

/* ---- generic 1-D/2-D forward helper (f32, contiguous) */
typedef enum { N1D, N1DV2, N2D, N2DV2, E1D, E2D } Fwd;

static int Forward(Fwd api, const int64_t *selfShape, int rank, aclFormat fmt, const float *in, const int64_t *osz,
                   double s0, double s1, float *outHost) {
    int64_t outShape[4];
    memcpy(outShape, selfShape, sizeof(int64_t) * (size_t)rank);
    for (int i = 0; i < rank - 2; i++) outShape[2 + i] = osz[i];
    void *selfDev, *outDev;
    aclTensor *self, *out;
    if (CreateAclTensor(in, 4, selfShape, rank, &selfDev, ACL_FLOAT, fmt, &self)) return -1;
    size_t outBytes = (size_t)ShapeSize(outShape, rank) * 4;
    memset(outHost, 0, outBytes);
    if (CreateAclTensor(outHost, 4, outShape, rank, &outDev, ACL_FLOAT, fmt, &out)) return -1;
    aclIntArray *outputSize = aclCreateIntArray(osz, (uint64_t)(rank - 2));
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = -1;
    RunFn run = NULL;
    switch (api) {
    case N1D: st = aclnnUpsampleNearest1dGetWorkspaceSize(self, outputSize, out, &ws, &ex); run = aclnnUpsampleNearest1d; break;
    case N1DV2: st = aclnnUpsampleNearest1dV2GetWorkspaceSize(self, outputSize, (float)s0, out, &ws, &ex); run = aclnnUpsampleNearest1dV2; break;
    case N2D: st = aclnnUpsampleNearest2dGetWorkspaceSize(self, outputSize, out, &ws, &ex); run = aclnnUpsampleNearest2d; break;
    case N2DV2: st = aclnnUpsampleNearest2dV2GetWorkspaceSize(self, outputSize, (float)s0, (float)s1, out, &ws, &ex); run = aclnnUpsampleNearest2dV2; break;
    case E1D: st = aclnnUpsampleNearestExact1dGetWorkspaceSize(self, outputSize, s0, out, &ws, &ex); run = aclnnUpsampleNearestExact1d; break;
    case E2D: st = aclnnUpsampleNearestExact2dGetWorkspaceSize(self, outputSize, s0, s1, out, &ws, &ex); run = aclnnUpsampleNearestExact2d; break;
    }
    CHECK_RET(st == ACLNN_SUCCESS, "GetWorkspaceSize api %d: %d (%s)", (int)api, st, aclGetRecentErrMsg());
    if (RunAndFetch(ws, ex, run, outDev, outHost, outBytes)) return -1;
    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyIntArray(outputSize);
    aclrtFree(selfDev);
    aclrtFree(outDev);
    return 0;
}

static void Iota(float *v, int n, float start) {
    for (int i = 0; i < n; i++) v[i] = start + (float)i;
}

static int Examples1d2d(void) {
    float in[64], out[1200];
    /* Nearest1dV2 example: self {1,3,3} = 0..8, outputSize {6}, scaleL 0 */
    {
        int64_t shape[] = {1, 3, 3}, osz[] = {6};
        Iota(in, 9, 0);
        if (Forward(N1DV2, shape, 3, ACL_FORMAT_NCL, in, osz, 0, 0, out)) return -1;
        static const float want[] = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8};
        CHECK(eqf(out, want, 18));
    }
    /* Nearest2dV2 example: self {1,1,4,2} = 0..7, outputSize {8,4}, scales 0: 2x2 replication */
    {
        int64_t shape[] = {1, 1, 4, 2}, osz[] = {8, 4};
        Iota(in, 8, 0);
        if (Forward(N2DV2, shape, 4, ACL_FORMAT_NCHW, in, osz, 0, 0, out)) return -1;
        float want[32];
        for (int h = 0; h < 8; h++)
            for (int w = 0; w < 4; w++) want[h * 4 + w] = in[(h / 2) * 2 + w / 2];
        CHECK(eqf(out, want, 32));
        /* Nearest2d (no scales) gives the same */
        if (Forward(N2D, shape, 4, ACL_FORMAT_NCHW, in, osz, 0, 0, out)) return -1;
        CHECK(eqf(out, want, 32));
    }
    /* Nearest, in 5 -> out 3: src [0, 1, 3]; Exact: [0, 2, 4] */
    {
        int64_t shape[] = {1, 1, 5}, osz[] = {3};
        Iota(in, 5, 10);
        if (Forward(N1D, shape, 3, ACL_FORMAT_NCL, in, osz, 0, 0, out)) return -1;
        static const float want[] = {10, 11, 13}, wantE[] = {10, 12, 14};
        CHECK(eqf(out, want, 3));
        if (Forward(E1D, shape, 3, ACL_FORMAT_NCL, in, osz, 0, 0, out)) return -1;
        CHECK(eqf(out, wantE, 3));
    }
    /* Nearest1dV2, in 4 -> out 6, scaleL 1.5: src [0, 0, 1, 2, 2, 3] */
    {
        int64_t shape[] = {1, 1, 4}, osz[] = {6};
        Iota(in, 4, 0);
        if (Forward(N1DV2, shape, 3, ACL_FORMAT_NCL, in, osz, 1.5, 0, out)) return -1;
        static const float want[] = {0, 0, 1, 2, 2, 3};
        CHECK(eqf(out, want, 6));
    }
    /* Nearest2dV2, W 4 -> 8, scalesH 1.0, scalesW 3.0, outH + outW <= 128: r_W forced to 0.5 */
    {
        int64_t shape[] = {1, 1, 1, 4}, osz[] = {1, 8};
        Iota(in, 4, 0);
        if (Forward(N2DV2, shape, 4, ACL_FORMAT_NCHW, in, osz, 1.0, 3.0, out)) return -1;
        static const float want[] = {0, 0, 1, 1, 2, 2, 3, 3};
        CHECK(eqf(out, want, 8));
        /* ... but with outH + outW > 128 the user scale counts: r = (float)(1/3.0) */
        int64_t osz2[] = {130, 8};
        if (Forward(N2DV2, shape, 4, ACL_FORMAT_NCHW, in, osz2, 130.0, 3.0, out)) return -1;
        static const float want2[] = {0, 0, 0, 1, 1, 1, 2, 2};
        CHECK(eqf(out, want2, 8));
        CHECK(eqf(out + 129 * 8, want2, 8));
    }
    /* Exact2d example shape: self {1,1,2,2}, outputSize {4,4}: exact of 2->4 is [0,0,1,1] */
    {
        int64_t shape[] = {1, 1, 2, 2}, osz[] = {4, 4};
        Iota(in, 4, 1);
        if (Forward(E2D, shape, 4, ACL_FORMAT_NCHW, in, osz, 0, 0, out)) return -1;
        static const float want[] = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};
        CHECK(eqf(out, want, 16));
        /* Exact, 3 -> 5 on W: src [0, 0, 1, 2, 2] */
        int64_t shape3[] = {1, 1, 1, 3}, osz3[] = {1, 5};
        Iota(in, 3, 0);
        if (Forward(E2D, shape3, 4, ACL_FORMAT_NCHW, in, osz3, 0, 0, out)) return -1;
        static const float want3[] = {0, 0, 1, 2, 2};
        CHECK(eqf(out, want3, 5));
    }
    return 0;
}

/* The uint8 exact1d example: values are copied bit-exactly. */
static int ExampleExact1dUint8(void) {
    int64_t selfShape[] = {1, 2, 3}, outShape[] = {1, 2, 5}, osz[] = {5};
    uint8_t selfHost[] = {0, 128, 255, 7, 8, 9}, outHost[10] = {0};
    void *selfDev, *outDev;
    aclTensor *self, *out;
    if (CreateAclTensor(selfHost, 1, selfShape, 3, &selfDev, ACL_UINT8, ACL_FORMAT_NCL, &self)) return -1;
    if (CreateAclTensor(outHost, 1, outShape, 3, &outDev, ACL_UINT8, ACL_FORMAT_NCL, &out)) return -1;
    aclIntArray *outputSize = aclCreateIntArray(osz, 1);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    CHECK_RET(aclnnUpsampleNearestExact1dGetWorkspaceSize(self, outputSize, 0, out, &ws, &ex) == ACLNN_SUCCESS, "ws");
    if (RunAndFetch(ws, ex, aclnnUpsampleNearestExact1d, outDev, outHost, sizeof outHost)) return -1;
    static const uint8_t want[] = {0, 0, 128, 255, 255, 7, 7, 8, 9, 9};
    CHECK(memcmp(outHost, want, 10) == 0);
    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyIntArray(outputSize);
    aclrtFree(selfDev);
    aclrtFree(outDev);
    return 0;
}

/* ---- backward */
typedef enum { B1D, B2D, B3D, BE1D, BE2D, BE3D } Bwd;

static int Backward(Bwd api, const int64_t *gradShape, int rank, aclFormat fmt, const float *grad, const int64_t *osz,
                    const int64_t *isz, const double *scales, float *outHost) {
    void *gDev, *giDev;
    aclTensor *g, *gi;
    if (CreateAclTensor(grad, 4, gradShape, rank, &gDev, ACL_FLOAT, fmt, &g)) return -1;
    size_t outBytes = (size_t)ShapeSize(isz, rank) * 4;
    memset(outHost, 0x7f, outBytes); /* must all be overwritten */
    if (CreateAclTensor(outHost, 4, isz, rank, &giDev, ACL_FLOAT, fmt, &gi)) return -1;
    aclIntArray *outputSize = aclCreateIntArray(osz, (uint64_t)(rank - 2));
    aclIntArray *inputSize = aclCreateIntArray(isz, (uint64_t)rank);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = -1;
    RunFn run = NULL;
    switch (api) {
    case B1D: st = aclnnUpsampleNearest1dBackwardGetWorkspaceSize(g, outputSize, inputSize, scales[0], gi, &ws, &ex); run = aclnnUpsampleNearest1dBackward; break;
    case B2D: st = aclnnUpsampleNearest2dBackwardGetWorkspaceSize(g, outputSize, inputSize, scales[0], scales[1], gi, &ws, &ex); run = aclnnUpsampleNearest2dBackward; break;
    case B3D: st = aclnnUpsampleNearest3dBackwardGetWorkspaceSize(g, outputSize, inputSize, scales[0], scales[1], scales[2], gi, &ws, &ex); run = aclnnUpsampleNearest3dBackward; break;
    case BE1D: st = aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(g, outputSize, inputSize, scales[0], gi, &ws, &ex); run = aclnnUpsampleNearestExact1dBackward; break;
    case BE2D: st = aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(g, outputSize, inputSize, scales[0], scales[1], gi, &ws, &ex); run = aclnnUpsampleNearestExact2dBackward; break;
    case BE3D: st = aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(g, outputSize, inputSize, scales[0], scales[1], scales[2], gi, &ws, &ex); run = aclnnUpsampleNearestExact3dBackward; break;
    }
    CHECK_RET(st == ACLNN_SUCCESS, "GetWorkspaceSize bwd %d: %d (%s)", (int)api, st, aclGetRecentErrMsg());
    if (RunAndFetch(ws, ex, run, giDev, outHost, outBytes)) return -1;
    aclDestroyTensor(g);
    aclDestroyTensor(gi);
    aclDestroyIntArray(outputSize);
    aclDestroyIntArray(inputSize);
    aclrtFree(gDev);
    aclrtFree(giDev);
    return 0;
}

static int ExamplesBackward(void) {
    static const double zero[3] = {0, 0, 0};
    float grad[200], out[64];
    /* Nearest3dBackward example: gradOut {2,2,2,2,2} = 1..32, outputSize {2,2,2}, inputSize {2,2,1,1,1} */
    {
        int64_t gs[] = {2, 2, 2, 2, 2}, osz[] = {2, 2, 2}, isz[] = {2, 2, 1, 1, 1};
        Iota(grad, 32, 1);
        if (Backward(B3D, gs, 5, ACL_FORMAT_NCDHW, grad, osz, isz, zero, out)) return -1;
        static const float want[] = {36, 100, 164, 228};
        CHECK(eqf(out, want, 4));
        if (Backward(BE3D, gs, 5, ACL_FORMAT_NCDHW, grad, osz, isz, zero, out)) return -1;
        CHECK(eqf(out, want, 4));
    }
    /* 1-D, in 3, out 5, gradOut [1..5]: nearest [3, 7, 5], exact [3, 3, 9] */
    {
        int64_t gs[] = {1, 1, 5}, osz[] = {5}, isz[] = {1, 1, 3};
        Iota(grad, 5, 1);
        if (Backward(B1D, gs, 3, ACL_FORMAT_NCL, grad, osz, isz, zero, out)) return -1;
        static const float want[] = {3, 7, 5}, wantE[] = {3, 3, 9};
        CHECK(eqf(out, want, 3));
        if (Backward(BE1D, gs, 3, ACL_FORMAT_NCL, grad, osz, isz, zero, out)) return -1;
        CHECK(eqf(out, wantE, 3));
    }
    /* Nearest backward, in 2, out 82, all ones: PyTorch CPU [42, 40] (not Ascend's [41, 41]) */
    {
        int64_t gs[] = {1, 1, 82}, osz[] = {82}, isz[] = {1, 1, 2};
        for (int i = 0; i < 82; i++) grad[i] = 1;
        if (Backward(B1D, gs, 3, ACL_FORMAT_NCL, grad, osz, isz, zero, out)) return -1;
        static const float want[] = {42, 40};
        CHECK(eqf(out, want, 2));
    }
    /* 2d backward: gradOut {1,1,4,4} = 1..16 from input {1,1,2,2}: each input sums a 2x2 block */
    {
        int64_t gs[] = {1, 1, 4, 4}, osz[] = {4, 4}, isz[] = {1, 1, 2, 2};
        Iota(grad, 16, 1);
        static const float want[] = {1 + 2 + 5 + 6, 3 + 4 + 7 + 8, 9 + 10 + 13 + 14, 11 + 12 + 15 + 16};
        if (Backward(B2D, gs, 4, ACL_FORMAT_NCHW, grad, osz, isz, zero, out)) return -1;
        CHECK(eqf(out, want, 4));
        if (Backward(BE2D, gs, 4, ACL_FORMAT_NCHW, grad, osz, isz, zero, out)) return -1;
        CHECK(eqf(out, want, 4));
    }
    return 0;
}

int main(void) {
    if (Init() == 0) {
        Example3d(0);
        Example3d(1);
        Examples1d2d();
        ExampleExact1dUint8();
        ExamplesBackward();
        Finish();
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
