/* Robustness of the Ascend face under valgrind: seeded random upsample calls of every
 * aclnn API (well-formed, then with extreme dims, strides, offsets, storage, formats,
 * dtypes, output sizes and scales), with tensor storage malloc'd at exactly the bytes the
 * storage dims claim; executors run, reused after consumption, made repeatable. */
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
#include "robust_common.h"

#define OKST(s) ((s) == 0 || (s) == ACLNN_ERR_PARAM_NULLPTR || (s) == ACLNN_ERR_PARAM_INVALID || (s) == ACLNN_ERR_INNER_CREATE_EXECUTOR)

static size_t esize(aclDataType dt) {
    switch (dt) {
    case ACL_FLOAT: return 4;
    case ACL_FLOAT16: case ACL_BF16: return 2;
    case ACL_DOUBLE: return 8;
    case ACL_UINT8: return 1;
    default: return 16;
    }
}

typedef struct { aclTensor *t; void *data; } T;

static T make(const int64_t *view, int r, aclDataType dt, aclFormat fmt, int hostile) {
    int64_t dims[8], strides[8], acc = 1, offset = 0;
    memcpy(dims, view, r * sizeof(int64_t));
    for (int d = r - 1; d >= 0; d--) { strides[d] = acc; acc *= dims[d]; }
    int use_strides = rchance(0.5);
    if (hostile) {
        int i = (int)(rnext() % r);
        switch (rnext() % 6) {
        case 0: dims[i] = ri64x(); break;
        case 1: strides[i] = ri64x(); use_strides = 1; break;
        case 2: offset = ri64x(); break;
        case 3: dt = (aclDataType)rrange(-1, 40); break;
        case 4: fmt = (aclFormat)rrange(-1, 60); break;
        default: r = (int)rrange(0, r); break;
        }
    }
    /* Storage: up to the last element the view reaches (when that is small). */
    int64_t storage = 1;
    int ok = offset >= 0;
    unsigned __int128 last = offset > 0 ? (unsigned __int128)offset : 0;
    for (int d = 0; d < r; d++) {
        if (dims[d] <= 0) continue;
        if (strides[d] < 0) ok = 0;
        else last += (unsigned __int128)(dims[d] - 1) * (unsigned __int128)strides[d];
    }
    if (ok && last < (1u << 18)) storage = (int64_t)last + 1;
    if (hostile && rchance(0.2)) storage = rchance(0.5) ? storage - 1 : ri64x();
    size_t bytes = storage > 0 && storage < (1 << 18) ? (size_t)storage * esize(dt) : 0;
    void *data = bytes ? malloc(bytes) : NULL;
    if (data) rfill(data, bytes);
    T t = {aclCreateTensor(dims, (uint64_t)r, dt, use_strides ? strides : NULL, offset, fmt, &storage, 1, data), data};
    return t;
}

static void drop(T t) { aclDestroyTensor(t.t); free(t.data); }

int main(void) {
    ROBUST_BEGIN(4000);
    for (unsigned long long i = 0; i < ncases; i++) {
        CASE_SEED(i);
        int api = (int)(rnext() % 14), bwd = api >= 8;
        int sp = (api == 0 || api == 1 || api == 5 || api == 8 || api == 11) ? 1
               : (api == 2 || api == 3 || api == 6 || api == 9 || api == 12) ? 2 : 3;
        int hostile = rchance(0.6);
        int64_t n = rrange(1, 2), c = rrange(1, 3), in[3], out[3];
        for (int k = 0; k < sp; k++) { in[k] = rrange(1, 5); out[k] = rrange(1, 8); }
        int cl = sp > 1 && rchance(0.3);
        aclFormat fmt = sp == 1 ? ACL_FORMAT_NCL : sp == 2 ? (cl ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW) : (cl ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW);
        int64_t a[5], b[5];
        const int64_t *fa = bwd ? out : in, *fb = bwd ? in : out;
        a[0] = b[0] = n;
        for (int k = 0; k < sp; k++) { a[(cl ? 1 : 2) + k] = fa[k]; b[(cl ? 1 : 2) + k] = fb[k]; }
        a[cl ? sp + 1 : 1] = b[cl ? sp + 1 : 1] = c;
        static const aclDataType dts[4] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_UINT8};
        aclDataType dt = dts[rnext() % 4];
        int which = (int)(rnext() % 2);
        T src = make(a, sp + 2, dt, fmt, hostile && which == 0);
        T dst = make(b, sp + 2, dt, fmt, hostile && which == 1);
        int64_t osz[4] = {out[0], out[1 % sp], out[2 % sp], 0}, isz[5] = {n, c, in[0], in[1 % sp], in[2 % sp]};
        uint64_t olen = (uint64_t)sp, ilen = (uint64_t)sp + 2;
        if (hostile && rchance(0.3)) { osz[rnext() % 3] = ri64x(); }
        if (hostile && rchance(0.2)) olen = (uint64_t)rrange(0, 4);
        if (hostile && rchance(0.2)) ilen = (uint64_t)rrange(0, 5);
        aclIntArray *os = aclCreateIntArray(osz, olen), *is = aclCreateIntArray(isz, ilen);
        double s[3];
        for (int k = 0; k < 3; k++) s[k] = hostile && rchance(0.3) ? (double)rf32x() : rchance(0.5) ? 0.0 : (double)out[k % sp] / (double)in[k % sp];
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        aclnnStatus st = 0;
        switch (api) {
        case 0: st = aclnnUpsampleNearest1dGetWorkspaceSize(src.t, os, dst.t, &ws, &ex); break;
        case 1: st = aclnnUpsampleNearest1dV2GetWorkspaceSize(src.t, os, (float)s[0], dst.t, &ws, &ex); break;
        case 2: st = aclnnUpsampleNearest2dGetWorkspaceSize(src.t, os, dst.t, &ws, &ex); break;
        case 3: st = aclnnUpsampleNearest2dV2GetWorkspaceSize(src.t, os, (float)s[0], (float)s[1], dst.t, &ws, &ex); break;
        case 4: st = aclnnUpsampleNearest3dGetWorkspaceSize(src.t, os, s[0], s[1], s[2], dst.t, &ws, &ex); break;
        case 5: st = aclnnUpsampleNearestExact1dGetWorkspaceSize(src.t, os, s[0], dst.t, &ws, &ex); break;
        case 6: st = aclnnUpsampleNearestExact2dGetWorkspaceSize(src.t, os, s[0], s[1], dst.t, &ws, &ex); break;
        case 7: st = aclnnUpsampleNearestExact3dGetWorkspaceSize(src.t, os, s[0], s[1], s[2], dst.t, &ws, &ex); break;
        case 8: st = aclnnUpsampleNearest1dBackwardGetWorkspaceSize(src.t, os, is, s[0], dst.t, &ws, &ex); break;
        case 9: st = aclnnUpsampleNearest2dBackwardGetWorkspaceSize(src.t, os, is, s[0], s[1], dst.t, &ws, &ex); break;
        case 10: st = aclnnUpsampleNearest3dBackwardGetWorkspaceSize(src.t, os, is, s[0], s[1], s[2], dst.t, &ws, &ex); break;
        case 11: st = aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(src.t, os, is, s[0], dst.t, &ws, &ex); break;
        case 12: st = aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(src.t, os, is, s[0], s[1], dst.t, &ws, &ex); break;
        default: st = aclnnUpsampleNearestExact3dBackwardGetWorkspaceSize(src.t, os, is, s[0], s[1], s[2], dst.t, &ws, &ex); break;
        }
        CHECK(OKST(st));
        if (st == 0) {
            if (rchance(0.3)) {
                CHECK(aclSetAclOpExecutorRepeatable(ex) == 0);
                CHECK(aclnnUpsampleNearest2d(NULL, 0, ex, NULL) == 0);
                CHECK(aclnnUpsampleNearest2d(NULL, 0, ex, NULL) == 0);
                CHECK(aclDestroyAclOpExecutor(ex) == 0);
            } else {
                CHECK(aclnnUpsampleNearest2d(NULL, 0, ex, NULL) == 0);
            }
            CHECK(aclnnUpsampleNearest2d(NULL, 0, ex, NULL) == ACLNN_ERR_PARAM_INVALID);
        }
        aclDestroyIntArray(os);
        aclDestroyIntArray(is);
        drop(src);
        drop(dst);
    }
    void *p = NULL;
    CHECK(aclrtMalloc(&p, (size_t)-1, ACL_MEM_MALLOC_HUGE_FIRST) != 0);
    CHECK(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
    char host[100] = {0};
    CHECK(aclrtMemcpy(p, 50, host, 100, ACL_MEMCPY_HOST_TO_DEVICE) != 0);
    CHECK(aclrtMemcpy(p, 100, host, 100, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
    CHECK(aclrtFree(p) == 0);
    CHECK(aclrtFree(p) != 0);
    ROBUST_END();
}
