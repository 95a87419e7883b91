/* The example of docs/ascend.md (keep the two in sync): nearest 2-D upsampling of a 1x1x2x2
 * float tensor to 4x4 with the aclnn two-phase API. */
#include <stdio.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"

int main(void) {
    aclrtStream stream;
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtCreateStream(&stream);

    int64_t inShape[] = {1, 1, 2, 2}, outShape[] = {1, 1, 4, 4}, size[] = {4, 4};
    float in[4] = {1, 2, 3, 4}, out[16];
    void *inDev, *outDev;
    aclrtMalloc(&inDev, sizeof in, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&outDev, sizeof out, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(inDev, sizeof in, in, sizeof in, ACL_MEMCPY_HOST_TO_DEVICE);

    /* NULL strides = contiguous; offset 0; storage dims = view dims */
    aclTensor *self = aclCreateTensor(inShape, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCHW, inShape, 4, inDev);
    aclTensor *dst = aclCreateTensor(outShape, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCHW, outShape, 4, outDev);
    aclIntArray *outputSize = aclCreateIntArray(size, 2);

    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = NULL;
    aclnnStatus st = aclnnUpsampleNearest2dGetWorkspaceSize(self, outputSize, dst, &workspaceSize, &executor);
    if (st != ACLNN_SUCCESS) {
        printf("GetWorkspaceSize failed: %d (%s)\n", st, aclGetRecentErrMsg());
        return 1;
    }
    /* workspaceSize is always 0 here; the run call consumes the executor */
    st = aclnnUpsampleNearest2d(NULL, workspaceSize, executor, stream);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(out, sizeof out, outDev, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST);

    int ok = st == ACLNN_SUCCESS;
    for (int h = 0; h < 4; h++) {
        for (int w = 0; w < 4; w++) {
            printf("%g ", out[h * 4 + w]);
            ok &= out[h * 4 + w] == in[(h / 2) * 2 + w / 2];
        }
        printf("\n");
    }
    aclDestroyTensor(self);
    aclDestroyTensor(dst);
    aclDestroyIntArray(outputSize);
    aclrtFree(inDev);
    aclrtFree(outDev);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    printf("%d passed, %d failed\n", ok, !ok);
    return !ok;
}
