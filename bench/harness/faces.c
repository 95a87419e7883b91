/* faces.c — libresample through its other C faces: DirectML (DMLCreateOperator /
 * DMLExecuteOperator, RESAMPLE2 and RESAMPLE3 with half-pixel offsets, as ONNX Runtime's
 * DirectML provider builds Resize) and Ascend aclnn (the two-phase GetWorkspaceSize + run
 * flow, with a repeatable executor so that one setup serves every timed execution). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "DirectML.h"
#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "aclnnop/aclnn_upsample_nearest_2d_backward.h"
#include "harness.h"

#define RESOLVE_ALL(API) \
    L->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL); \
    if (!L->handle) { \
        h_seterr("dlopen(%s): %s", path, dlerror()); \
        free(L); \
        return NULL; \
    } \
    API(RESOLVE)

#define FIELD(f) __typeof__(&f) f;
#define RESOLVE(f) \
    L->f = (__typeof__(&f))dlsym(L->handle, #f); \
    if (!L->f) { \
        h_seterr("%s: symbol %s missing", path, #f); \
        free(L); \
        return NULL; \
    }

/* ----------------------------------- DirectML ------------------------------------------- */

#define DML_API(X) X(DMLCreateOperator) X(DMLExecuteOperator) X(DMLReleaseOperator)

typedef struct {
    void *handle;
    DML_API(FIELD)
} dml_lib_t;

static void *dml_open(const char *path) {
    dml_lib_t *L = calloc(1, sizeof(*L));
    if (!L) return NULL;
    RESOLVE_ALL(DML_API)
    return L;
}

typedef struct {
    dml_lib_t *L;
    DMLOperator *op;
    DML_BUFFER_BINDING in, out;
} dml_inst_t;

static void dml_destroy(void *inst) {
    dml_inst_t *I = inst;
    if (!I) return;
    if (I->op) I->L->DMLReleaseOperator(I->op);
    free(I);
}

/* packed sizes/strides of one tensor in the problem's layout (channels-last via strides) */
static int dml_tensor(const hprob_t *p, const int64_t *dims, UINT *sizes, UINT *strides,
        UINT *n) {
    int first = p->face == FACE_DML_3D ? 1 : 0;
    if (first && dims[0] != 1) return 0;
    *n = (UINT)(p->ndims - first);
    for (int i = first; i < p->ndims; i++) {
        if (dims[i] < 1 || dims[i] > 0x7fffffff) return 0;
        sizes[i - first] = (UINT)dims[i];
    }
    /* strides of the logical dims (N, C, spatial...) */
    uint64_t st[5], s = 1;
    if (p->layout == LAYOUT_CLAST) {
        st[1] = s;
        s *= (uint64_t)dims[1];
        for (int i = p->ndims - 1; i >= 2; i--) {
            st[i] = s;
            s *= (uint64_t)dims[i];
        }
        st[0] = s;
    } else {
        for (int i = p->ndims - 1; i >= 0; i--) {
            st[i] = s;
            s *= (uint64_t)dims[i];
        }
    }
    for (int i = first; i < p->ndims; i++) strides[i - first] = (UINT)st[i];
    return 1;
}

static void *dml_setup(void *lib, const hprob_t *p, void *src, size_t src_bytes, void *dst,
        size_t dst_bytes, char *impl, size_t impl_len) {
    dml_lib_t *L = lib;
    if (p->bwd || p->dt != DT_F32 || p->layout == LAYOUT_BLOCK16) {
        h_seterr("refused: the benchmark drives DirectML forward f32 plain/strided only");
        return NULL;
    }
    UINT si[5], so[5], sti[5], sto[5], n = 0;
    if (!dml_tensor(p, p->in, si, sti, &n) || !dml_tensor(p, p->out, so, sto, &n)) {
        h_seterr("refused: shape not expressible");
        return NULL;
    }
    dml_inst_t *I = calloc(1, sizeof(*I));
    if (!I) return NULL;
    I->L = L;
    int packed = p->layout == LAYOUT_PLAIN;
    DML_BUFFER_TENSOR_DESC bi = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, n, si,
            packed ? NULL : sti, src_bytes, 0};
    DML_BUFFER_TENSOR_DESC bo = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, n, so,
            packed ? NULL : sto, dst_bytes, 0};
    DML_TENSOR_DESC ti = {DML_TENSOR_TYPE_BUFFER, &bi}, to = {DML_TENSOR_TYPE_BUFFER, &bo};
    FLOAT scales[5], in_off[5], out_off[5];
    for (UINT i = 0; i < n; i++) {
        scales[i] = (FLOAT)so[i] / (FLOAT)si[i];
        in_off[i] = 0.5f;
        out_off[i] = -0.5f;
    }
    DML_INTERPOLATION_MODE mode = p->alg == ALG_NEAREST ? DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR
                                                        : DML_INTERPOLATION_MODE_LINEAR;
    HRESULT hr;
    if (p->alg == ALG_LINEAR_AA) {
        DML_RESAMPLE3_OPERATOR_DESC d = {&ti, &to, mode, DML_AXIS_DIRECTION_DECREASING, n,
                scales, in_off, out_off, TRUE};
        DML_OPERATOR_DESC od = {DML_OPERATOR_RESAMPLE3, &d};
        hr = L->DMLCreateOperator(&od, &I->op);
        if (impl_len) snprintf(impl, impl_len, "DML RESAMPLE3 antialiased %uD", n);
    } else {
        DML_RESAMPLE2_OPERATOR_DESC d = {&ti, &to, mode, DML_AXIS_DIRECTION_DECREASING, n,
                scales, in_off, out_off};
        DML_OPERATOR_DESC od = {DML_OPERATOR_RESAMPLE2, &d};
        hr = L->DMLCreateOperator(&od, &I->op);
        if (impl_len) snprintf(impl, impl_len, "DML RESAMPLE2 %uD", n);
    }
    if (FAILED(hr)) {
        h_seterr("DMLCreateOperator: %#x", (unsigned)hr);
        dml_destroy(I);
        return NULL;
    }
    I->in = (DML_BUFFER_BINDING){src, 0, src_bytes};
    I->out = (DML_BUFFER_BINDING){dst, 0, dst_bytes};
    return I;
}

static int dml_run(void *inst) {
    dml_inst_t *I = inst;
    return FAILED(I->L->DMLExecuteOperator(I->op, 1, &I->in, 1, &I->out));
}

const backend_t dml_backend = {dml_open, dml_setup, dml_run, dml_destroy};

/* ------------------------------------ Ascend -------------------------------------------- */

#define ACL_API(X) \
    X(aclInit) \
    X(aclrtSetDevice) \
    X(aclrtCreateStream) \
    X(aclrtSynchronizeStream) \
    X(aclCreateTensor) \
    X(aclDestroyTensor) \
    X(aclCreateIntArray) \
    X(aclDestroyIntArray) \
    X(aclSetAclOpExecutorRepeatable) \
    X(aclDestroyAclOpExecutor) \
    X(aclGetRecentErrMsg) \
    X(aclnnUpsampleNearest2dGetWorkspaceSize) \
    X(aclnnUpsampleNearest2d) \
    X(aclnnUpsampleNearest2dBackwardGetWorkspaceSize) \
    X(aclnnUpsampleNearest2dBackward)

typedef struct {
    void *handle;
    aclrtStream stream;
    ACL_API(FIELD)
} acl_lib_t;

static void *acl_open(const char *path) {
    acl_lib_t *L = calloc(1, sizeof(*L));
    if (!L) return NULL;
    RESOLVE_ALL(ACL_API)
    L->aclInit(NULL);
    if (L->aclrtSetDevice(0) != 0 || L->aclrtCreateStream(&L->stream) != 0) {
        h_seterr("%s: aclrtSetDevice/aclrtCreateStream failed", path);
        free(L);
        return NULL;
    }
    return L;
}

typedef struct {
    acl_lib_t *L;
    int bwd;
    aclTensor *a, *b;
    aclIntArray *osize, *isize;
    aclOpExecutor *exec;
} acl_inst_t;

static void acl_destroy(void *inst) {
    acl_inst_t *I = inst;
    if (!I) return;
    acl_lib_t *L = I->L;
    if (I->exec) L->aclDestroyAclOpExecutor(I->exec);
    if (I->a) L->aclDestroyTensor(I->a);
    if (I->b) L->aclDestroyTensor(I->b);
    if (I->osize) L->aclDestroyIntArray(I->osize);
    if (I->isize) L->aclDestroyIntArray(I->isize);
    free(I);
}

static void *acl_setup(void *lib, const hprob_t *p, void *src, size_t src_bytes, void *dst,
        size_t dst_bytes, char *impl, size_t impl_len) {
    acl_lib_t *L = lib;
    (void)src_bytes;
    (void)dst_bytes;
    if (p->alg != ALG_NEAREST || p->ndims != 4 || p->layout != LAYOUT_PLAIN || p->dt != DT_F32) {
        h_seterr("refused: the benchmark drives aclnn nearest 2-D NCHW f32 only");
        return NULL;
    }
    acl_inst_t *I = calloc(1, sizeof(*I));
    if (!I) return NULL;
    I->L = L;
    I->bwd = p->bwd;
    int64_t osz[2] = {p->out[2], p->out[3]};
    /* forward: self (in-sized) -> out; backward: gradOut (out-sized) -> gradInput */
    const int64_t *da = p->bwd ? p->out : p->in, *db = p->bwd ? p->in : p->out;
    I->a = L->aclCreateTensor(da, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCHW, da, 4, src);
    I->b = L->aclCreateTensor(db, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCHW, db, 4, dst);
    I->osize = L->aclCreateIntArray(osz, 2);
    I->isize = L->aclCreateIntArray(p->in, 4);
    uint64_t ws = 0;
    aclnnStatus st;
    if (!p->bwd)
        st = L->aclnnUpsampleNearest2dGetWorkspaceSize(I->a, I->osize, I->b, &ws, &I->exec);
    else /* scales 0: the ratios come from the sizes */
        st = L->aclnnUpsampleNearest2dBackwardGetWorkspaceSize(
                I->a, I->osize, I->isize, 0.0, 0.0, I->b, &ws, &I->exec);
    if (st == ACLNN_SUCCESS && ws != 0) {
        h_seterr("workspace of %llu bytes not supported", (unsigned long long)ws);
        acl_destroy(I);
        return NULL;
    }
    if (st != ACLNN_SUCCESS || L->aclSetAclOpExecutorRepeatable(I->exec) != ACLNN_SUCCESS) {
        h_seterr("aclnn GetWorkspaceSize: %d (%s)", (int)st, L->aclGetRecentErrMsg());
        acl_destroy(I);
        return NULL;
    }
    if (impl_len)
        snprintf(impl, impl_len, "aclnnUpsampleNearest2d%s", p->bwd ? "Backward" : "");
    return I;
}

static int acl_run(void *inst) {
    acl_inst_t *I = inst;
    acl_lib_t *L = I->L;
    aclnnStatus st = I->bwd ? L->aclnnUpsampleNearest2dBackward(NULL, 0, I->exec, L->stream)
                            : L->aclnnUpsampleNearest2d(NULL, 0, I->exec, L->stream);
    return st != ACLNN_SUCCESS || L->aclrtSynchronizeStream(L->stream) != 0;
}

const backend_t acl_backend = {acl_open, acl_setup, acl_run, acl_destroy};
