/* DirectML face: struct sizes and field offsets (FL 6.4 DirectML.h on LP64), enum and
 * HRESULT values, and DMLCalcBufferTensorSize. */
#include <float.h>
#include <stddef.h>
#include <stdio.h>
#include "DirectML.h"

static int passed, failed;
#define CHECK(c) do { if (c) passed++; else { failed++; printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); } } while (0)

int main(void) {
    /* Scalar types. */
    CHECK(sizeof(UINT) == 4 && sizeof(UINT64) == 8 && sizeof(FLOAT) == 4 && sizeof(BOOL) == 4);
    CHECK(sizeof(HRESULT) == 4 && sizeof(DML_TENSOR_DATA_TYPE) == 4 && sizeof(DML_OPERATOR_TYPE) == 4);
    CHECK(sizeof(DML_TENSOR_FLAGS) == 4 && sizeof(DML_INTERPOLATION_MODE) == 4 && sizeof(DML_AXIS_DIRECTION) == 4);

    /* DML_BUFFER_TENSOR_DESC: 48 bytes. */
    CHECK(sizeof(DML_BUFFER_TENSOR_DESC) == 48);
    CHECK(offsetof(DML_BUFFER_TENSOR_DESC, DataType) == 0);
    CHECK(offsetof(DML_BUFFER_TENSOR_DESC, Flags) == 4);
    CHECK(offsetof(DML_BUFFER_TENSOR_DESC, DimensionCount) == 8);
    CHECK(offsetof(DML_BUFFER_TENSOR_DESC, Sizes) == 16);
    CHECK(offsetof(DML_BUFFER_TENSOR_DESC, Strides) == 24);
    CHECK(offsetof(DML_BUFFER_TENSOR_DESC, TotalTensorSizeInBytes) == 32);
    CHECK(offsetof(DML_BUFFER_TENSOR_DESC, GuaranteedBaseOffsetAlignment) == 40);
    CHECK(sizeof(DML_TENSOR_DESC) == 16 && offsetof(DML_TENSOR_DESC, Desc) == 8);
    CHECK(sizeof(DML_OPERATOR_DESC) == 16 && offsetof(DML_OPERATOR_DESC, Desc) == 8);

    /* Operator descriptors: 32 / 48 / 56 / 64 / 48 / 56. */
    CHECK(sizeof(DML_RESAMPLE_OPERATOR_DESC) == 32);
    CHECK(offsetof(DML_RESAMPLE_OPERATOR_DESC, OutputTensor) == 8);
    CHECK(offsetof(DML_RESAMPLE_OPERATOR_DESC, InterpolationMode) == 16);
    CHECK(offsetof(DML_RESAMPLE_OPERATOR_DESC, ScaleCount) == 20);
    CHECK(offsetof(DML_RESAMPLE_OPERATOR_DESC, Scales) == 24);
    CHECK(sizeof(DML_RESAMPLE1_OPERATOR_DESC) == 48);
    CHECK(offsetof(DML_RESAMPLE1_OPERATOR_DESC, DimensionCount) == 20);
    CHECK(offsetof(DML_RESAMPLE1_OPERATOR_DESC, Scales) == 24);
    CHECK(offsetof(DML_RESAMPLE1_OPERATOR_DESC, InputPixelOffsets) == 32);
    CHECK(offsetof(DML_RESAMPLE1_OPERATOR_DESC, OutputPixelOffsets) == 40);
    CHECK(sizeof(DML_RESAMPLE2_OPERATOR_DESC) == 56);
    CHECK(offsetof(DML_RESAMPLE2_OPERATOR_DESC, RoundingDirection) == 20);
    CHECK(offsetof(DML_RESAMPLE2_OPERATOR_DESC, DimensionCount) == 24);
    CHECK(offsetof(DML_RESAMPLE2_OPERATOR_DESC, Scales) == 32);
    CHECK(offsetof(DML_RESAMPLE2_OPERATOR_DESC, InputPixelOffsets) == 40);
    CHECK(offsetof(DML_RESAMPLE2_OPERATOR_DESC, OutputPixelOffsets) == 48);
    CHECK(sizeof(DML_RESAMPLE3_OPERATOR_DESC) == 64);
    CHECK(offsetof(DML_RESAMPLE3_OPERATOR_DESC, RoundingDirection) == 20);
    CHECK(offsetof(DML_RESAMPLE3_OPERATOR_DESC, Scales) == 32);
    CHECK(offsetof(DML_RESAMPLE3_OPERATOR_DESC, Antialiased) == 56);
    CHECK(sizeof(DML_RESAMPLE_GRAD_OPERATOR_DESC) == 48);
    CHECK(offsetof(DML_RESAMPLE_GRAD_OPERATOR_DESC, InputGradientTensor) == 0);
    CHECK(offsetof(DML_RESAMPLE_GRAD_OPERATOR_DESC, OutputGradientTensor) == 8);
    CHECK(offsetof(DML_RESAMPLE_GRAD_OPERATOR_DESC, DimensionCount) == 20);
    CHECK(offsetof(DML_RESAMPLE_GRAD_OPERATOR_DESC, OutputPixelOffsets) == 40);
    CHECK(sizeof(DML_RESAMPLE_GRAD1_OPERATOR_DESC) == 56);
    CHECK(offsetof(DML_RESAMPLE_GRAD1_OPERATOR_DESC, RoundingDirection) == 20);
    CHECK(offsetof(DML_RESAMPLE_GRAD1_OPERATOR_DESC, DimensionCount) == 24);
    CHECK(offsetof(DML_RESAMPLE_GRAD1_OPERATOR_DESC, OutputPixelOffsets) == 48);

    /* DML_BUFFER_BINDING { void* Buffer; UINT64 Offset; UINT64 SizeInBytes; } */
    CHECK(sizeof(DML_BUFFER_BINDING) == 24);
    CHECK(offsetof(DML_BUFFER_BINDING, Offset) == 8 && offsetof(DML_BUFFER_BINDING, SizeInBytes) == 16);

    /* Enum values. */
    CHECK(DML_OPERATOR_RESAMPLE == 96 && DML_OPERATOR_RESAMPLE1 == 116 && DML_OPERATOR_RESAMPLE_GRAD == 134);
    CHECK(DML_OPERATOR_RESAMPLE2 == 161 && DML_OPERATOR_RESAMPLE_GRAD1 == 162 && DML_OPERATOR_RESAMPLE3 == 175);
    CHECK(DML_OPERATOR_INVALID == 0 && DML_OPERATOR_UPSAMPLE_2D == 66 && DML_OPERATOR_UNFOLD == 177);
    CHECK(DML_OPERATOR_SCATTER == DML_OPERATOR_SCATTER_ELEMENTS && DML_OPERATOR_SCATTER == 94);
    CHECK(DML_TENSOR_DATA_TYPE_UNKNOWN == 0 && DML_TENSOR_DATA_TYPE_FLOAT32 == 1 && DML_TENSOR_DATA_TYPE_FLOAT16 == 2);
    CHECK(DML_TENSOR_DATA_TYPE_UINT8 == 5 && DML_TENSOR_DATA_TYPE_INT8 == 8 && DML_TENSOR_DATA_TYPE_INT4 == 13);
    CHECK(DML_TENSOR_TYPE_INVALID == 0 && DML_TENSOR_TYPE_BUFFER == 1);
    CHECK(DML_TENSOR_FLAG_NONE == 0 && DML_TENSOR_FLAG_OWNED_BY_DML == 1);
    CHECK(DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR == 0 && DML_INTERPOLATION_MODE_LINEAR == 1);
    CHECK(DML_AXIS_DIRECTION_INCREASING == 0 && DML_AXIS_DIRECTION_DECREASING == 1);
    CHECK(DML_FEATURE_LEVEL_2_0 == 0x2000 && DML_FEATURE_LEVEL_5_1 == 0x5100 && DML_FEATURE_LEVEL_6_4 == 0x6400);
    CHECK(DML_TARGET_VERSION == 0x6400 && DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT == 16);
    CHECK(DML_TENSOR_DIMENSION_COUNT_MAX == 5 && DML_TENSOR_DIMENSION_COUNT_MAX1 == 8);

    /* HRESULTs as on Windows. */
    CHECK(S_OK == 0);
    CHECK((unsigned)E_INVALIDARG == 0x80070057u && (unsigned)E_OUTOFMEMORY == 0x8007000Eu);
    CHECK((unsigned)E_POINTER == 0x80004003u && (unsigned)E_NOTIMPL == 0x80004001u && (unsigned)E_FAIL == 0x80004005u);
    CHECK(FAILED(E_INVALIDARG) && SUCCEEDED(S_OK) && !FAILED(S_OK));
    HRESULT hr = E_INVALIDARG;
    switch (hr) {
    case E_INVALIDARG: passed++; break;
    default: failed++; printf("FAIL switch on E_INVALIDARG\n");
    }

    /* DMLCalcBufferTensorSize. */
    const UINT s4[4] = {1, 2, 3, 4}, s1[1] = {3}, s2[2] = {2, 3}, st2[2] = {8, 1}, z2[2] = {0, 0};
    CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, s4, NULL) == 96);
    CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT16, 4, s4, NULL) == 48);
    CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 1, s1, NULL) == 4);   /* 3 -> DWORD */
    CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_INT4, 1, s1, NULL) == 4);    /* 12 bits */
    CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT64, 1, s1, NULL) == 24);
    CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT16, 2, s2, st2) == 24); /* (8+2+1)*2 = 22 -> 24 */
    CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, s2, z2) == 4);   /* broadcast */
    const UINT st_perm[2] = {1, 2};                                                 /* column-major */
    CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, s2, st_perm) == 24);
    /* Invalid -> 0. */
    const UINT zero[2] = {2, 0};
    CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, zero, NULL) == 0);
    CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UNKNOWN, 2, s2, NULL) == 0);
    CHECK(DMLCalcBufferTensorSize(14, 2, s2, NULL) == 0);
    CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 0, s2, NULL) == 0);
    CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 9, s2, NULL) == 0);
    CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, NULL, NULL) == 0);
    const UINT big[8] = {4294967295u, 4294967295u, 4294967295u, 4294967295u, 4294967295u, 4294967295u,
                         4294967295u, 4294967295u};
    CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 8, big, NULL) == 0); /* > 2^64 */
    const UINT big2[2] = {65536, 65536};
    CHECK(DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, big2, NULL) == 17179869184ull);

    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
