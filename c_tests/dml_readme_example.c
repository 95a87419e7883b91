/* The example of docs/directml.md: bilinear 2x upsampling of a 1x1x2x2 image with
 * DML_OPERATOR_RESAMPLE2 (half-pixel offsets), then its gradient with RESAMPLE_GRAD1. */
#include <stdio.h>
#include "DirectML.h"

int main(void) {
    UINT in_sizes[4] = {1, 1, 2, 2}, out_sizes[4] = {1, 1, 4, 4};
    DML_BUFFER_TENSOR_DESC in_buf = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, in_sizes, NULL,
                                     DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, in_sizes, NULL), 0};
    DML_BUFFER_TENSOR_DESC out_buf = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, out_sizes, NULL,
                                      DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sizes, NULL), 0};
    DML_TENSOR_DESC in_desc = {DML_TENSOR_TYPE_BUFFER, &in_buf}, out_desc = {DML_TENSOR_TYPE_BUFFER, &out_buf};
    FLOAT scales[4] = {1, 1, 2, 2};
    FLOAT in_offsets[4] = {0.5f, 0.5f, 0.5f, 0.5f}, out_offsets[4] = {-0.5f, -0.5f, -0.5f, -0.5f};

    DML_RESAMPLE2_OPERATOR_DESC resample = {&in_desc, &out_desc, DML_INTERPOLATION_MODE_LINEAR,
                                            DML_AXIS_DIRECTION_DECREASING, 4, scales, in_offsets, out_offsets};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_RESAMPLE2, &resample};
    DMLOperator *op = NULL;
    HRESULT hr = DMLCreateOperator(&desc, &op);
    if (FAILED(hr)) { printf("create failed: %#x\n", (unsigned)hr); return 1; }

    float x[4] = {0, 4, 8, 12}, y[16];
    DML_BUFFER_BINDING in = {x, 0, sizeof x}, out = {y, 0, sizeof y};
    hr = DMLExecuteOperator(op, 1, &in, 1, &out);
    DMLReleaseOperator(op);
    if (FAILED(hr)) { printf("execute failed: %#x\n", (unsigned)hr); return 1; }
    for (int r = 0; r < 4; r++) printf("%5.1f %5.1f %5.1f %5.1f\n", y[4 * r], y[4 * r + 1], y[4 * r + 2], y[4 * r + 3]);

    /* The gradient: same scales and offsets; InputGradientTensor has the forward output's
     * sizes, OutputGradientTensor the forward input's. */
    DML_RESAMPLE_GRAD1_OPERATOR_DESC grad = {&out_desc, &in_desc, DML_INTERPOLATION_MODE_LINEAR,
                                             DML_AXIS_DIRECTION_DECREASING, 4, scales, in_offsets, out_offsets};
    DML_OPERATOR_DESC gdesc = {DML_OPERATOR_RESAMPLE_GRAD1, &grad};
    float dy[16], dx[4];
    for (int i = 0; i < 16; i++) dy[i] = 1;
    DML_BUFFER_BINDING gin = {dy, 0, sizeof dy}, gout = {dx, 0, sizeof dx};
    if (FAILED(DMLCreateOperator(&gdesc, &op)) || FAILED(DMLExecuteOperator(op, 1, &gin, 1, &gout))) return 1;
    DMLReleaseOperator(op);
    printf("gradient: %g %g %g %g\n", dx[0], dx[1], dx[2], dx[3]);

    /* Row 1 is 0 1 3 4 (x 0.25 / 0.75 blends), each input pixel receives weight 4 in total. */
    int ok = y[0] == 0 && y[1] == 1 && y[2] == 3 && y[3] == 4 && y[15] == 12 && y[5] == 3 &&
             dx[0] == 4 && dx[1] == 4 && dx[2] == 4 && dx[3] == 4;
    printf("%d passed, %d failed\n", ok, !ok);
    return !ok;
}
