/* DirectML face: the validation list of docs/spec/directml.md §8 at DMLCreateOperator,
 * and the binding checks of DMLExecuteOperator (refused calls write nothing). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "DirectML.h"

static int passed, failed;
#define CHECK(c) do { if (c) passed++; else { failed++; printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); } } while (0)

static const DML_OPERATOR_TYPE TYPES[6] = {DML_OPERATOR_RESAMPLE, DML_OPERATOR_RESAMPLE1, DML_OPERATOR_RESAMPLE2,
                                           DML_OPERATOR_RESAMPLE3, DML_OPERATOR_RESAMPLE_GRAD,
                                           DML_OPERATOR_RESAMPLE_GRAD1};

/* A complete, valid problem of one operator type; tests mutate one field at a time. */
typedef struct {
    DML_OPERATOR_TYPE type;
    UINT in_sizes[5], out_sizes[5], in_strides[5], out_strides[5];
    DML_BUFFER_TENSOR_DESC ib, ob;
    DML_TENSOR_DESC it, ot;
    FLOAT scales[5], io[5], oo[5];
    UINT count;
    DML_INTERPOLATION_MODE mode;
    DML_AXIS_DIRECTION dir;
    union {
        DML_RESAMPLE_OPERATOR_DESC r0;
        DML_RESAMPLE1_OPERATOR_DESC r1;
        DML_RESAMPLE2_OPERATOR_DESC r2;
        DML_RESAMPLE3_OPERATOR_DESC r3;
        DML_RESAMPLE_GRAD_OPERATOR_DESC g0;
        DML_RESAMPLE_GRAD1_OPERATOR_DESC g1;
    } u;
    DML_OPERATOR_DESC od;
} Case;

/* 4-D 1x2x3x4 -> 1x2x6x2 (GRAD ops: gradient of that forward op). */
static void base(Case *c, DML_OPERATOR_TYPE type) {
    memset(c, 0, sizeof *c);
    c->type = type;
    const UINT fin[4] = {1, 2, 3, 4}, fout[4] = {1, 2, 6, 2};
    int grad = type == DML_OPERATOR_RESAMPLE_GRAD || type == DML_OPERATOR_RESAMPLE_GRAD1;
    memcpy(c->in_sizes, grad ? fout : fin, sizeof fin);
    memcpy(c->out_sizes, grad ? fin : fout, sizeof fin);
    const FLOAT s[4] = {1, 1, 2, 0.5f};
    for (int i = 0; i < 4; i++) {
        c->scales[i] = s[i];
        c->io[i] = 0.5f;
        c->oo[i] = -0.5f;
    }
    c->count = 4;
    c->mode = DML_INTERPOLATION_MODE_LINEAR;
    c->dir = DML_AXIS_DIRECTION_DECREASING;
    DML_BUFFER_TENSOR_DESC *b[2] = {&c->ib, &c->ob};
    UINT *sz[2] = {c->in_sizes, c->out_sizes};
    for (int k = 0; k < 2; k++) {
        b[k]->DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
        b[k]->DimensionCount = 4;
        b[k]->Sizes = sz[k];
        b[k]->TotalTensorSizeInBytes = DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, sz[k], NULL);
    }
    c->it.Type = c->ot.Type = DML_TENSOR_TYPE_BUFFER;
    c->it.Desc = &c->ib;
    c->ot.Desc = &c->ob;
}

/* Fills the operator descriptor from the case's fields (call after mutating them). */
static const DML_OPERATOR_DESC *desc(Case *c) {
    switch (c->type) {
    case DML_OPERATOR_RESAMPLE:
        c->u.r0 = (DML_RESAMPLE_OPERATOR_DESC){&c->it, &c->ot, c->mode, c->count, c->scales};
        break;
    case DML_OPERATOR_RESAMPLE1:
        c->u.r1 = (DML_RESAMPLE1_OPERATOR_DESC){&c->it, &c->ot, c->mode, c->count, c->scales, c->io, c->oo};
        break;
    case DML_OPERATOR_RESAMPLE2:
        c->u.r2 = (DML_RESAMPLE2_OPERATOR_DESC){&c->it, &c->ot, c->mode, c->dir, c->count, c->scales, c->io, c->oo};
        break;
    case DML_OPERATOR_RESAMPLE3:
        c->u.r3 = (DML_RESAMPLE3_OPERATOR_DESC){&c->it, &c->ot, c->mode, c->dir, c->count, c->scales, c->io, c->oo, 1};
        break;
    case DML_OPERATOR_RESAMPLE_GRAD:
        c->u.g0 = (DML_RESAMPLE_GRAD_OPERATOR_DESC){&c->it, &c->ot, c->mode, c->count, c->scales, c->io, c->oo};
        break;
    default:
        c->u.g1 = (DML_RESAMPLE_GRAD1_OPERATOR_DESC){&c->it, &c->ot, c->mode, c->dir, c->count, c->scales, c->io, c->oo};
    }
    c->od.Type = c->type;
    c->od.Desc = &c->u;
    return &c->od;
}

static HRESULT create(Case *c) {
    DMLOperator *op = (DMLOperator *)(void *)&op; /* garbage: must be reset to NULL on failure */
    HRESULT hr = DMLCreateOperator(desc(c), &op);
    if (hr == S_OK) {
        if (!op) return E_FAIL;
        DMLReleaseOperator(op);
    } else if (op != NULL) {
        printf("  *op not NULL after failure\n");
        return E_FAIL;
    }
    return hr;
}

static int has_dir(DML_OPERATOR_TYPE t) {
    return t == DML_OPERATOR_RESAMPLE2 || t == DML_OPERATOR_RESAMPLE3 || t == DML_OPERATOR_RESAMPLE_GRAD1;
}
static int is_grad(DML_OPERATOR_TYPE t) { return t == DML_OPERATOR_RESAMPLE_GRAD || t == DML_OPERATOR_RESAMPLE_GRAD1; }

#define EXPECT(t, mutation, want)                                                                         \
    do {                                                                                                  \
        Case c_;                                                                                          \
        base(&c_, t);                                                                                     \
        Case *c = &c_;                                                                                    \
        mutation;                                                                                         \
        HRESULT got_ = create(c);                                                                         \
        if (got_ == (want)) passed++;                                                                     \
        else {                                                                                            \
            failed++;                                                                                     \
            printf("FAIL line %d type %d: %s -> %#x, want %#x\n", __LINE__, t, #mutation, (unsigned)got_, \
                   (unsigned)(want));                                                                     \
        }                                                                                                 \
    } while (0)

static void create_checks(void) {
    for (int k = 0; k < 6; k++) {
        DML_OPERATOR_TYPE t = TYPES[k];
        EXPECT(t, (void)c, S_OK);
        EXPECT(t, c->mode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, S_OK);
        /* 1. NULL pointers. */
        EXPECT(t, (void)desc(c); c->od.Desc = NULL; { DMLOperator *op; CHECK(DMLCreateOperator(&c->od, &op) == E_INVALIDARG && op == NULL); }, S_OK);
        EXPECT(t, c->it.Type = DML_TENSOR_TYPE_BUFFER; { DMLOperator *op; CHECK(DMLCreateOperator(NULL, &op) == E_INVALIDARG); }, S_OK);
        EXPECT(t, { CHECK(DMLCreateOperator(desc(c), NULL) == E_POINTER); }, S_OK);
        EXPECT(t, c->ib.Sizes = NULL, E_INVALIDARG);
        EXPECT(t, c->ob.Sizes = NULL, E_INVALIDARG);
        /* 2. Tensor type and description. */
        EXPECT(t, c->it.Type = DML_TENSOR_TYPE_INVALID, E_INVALIDARG);
        EXPECT(t, c->ot.Type = 2, E_INVALIDARG);
        EXPECT(t, c->it.Desc = NULL, E_INVALIDARG);
        EXPECT(t, c->ot.Desc = NULL, E_INVALIDARG);
        /* 5. Enum values. */
        EXPECT(t, c->mode = 2, E_INVALIDARG);
        EXPECT(t, c->mode = -1, E_INVALIDARG);
        EXPECT(t, c->dir = 2, has_dir(t) ? E_INVALIDARG : S_OK);
        EXPECT(t, c->dir = -1, has_dir(t) ? E_INVALIDARG : S_OK);
        EXPECT(t, c->dir = DML_AXIS_DIRECTION_INCREASING, S_OK);
        /* 6. Dimension counts. */
        EXPECT(t, c->count = 3, E_INVALIDARG);
        EXPECT(t, c->count = 0, E_INVALIDARG);
        EXPECT(t, c->ib.DimensionCount = 3, E_INVALIDARG);
        EXPECT(t, c->ob.DimensionCount = 3, E_INVALIDARG);
        EXPECT(t, c->ib.DimensionCount = 0, E_INVALIDARG);
        EXPECT(t, c->ib.DimensionCount = 5; c->ob.DimensionCount = 5; c->count = 5; c->in_sizes[4] = 1;
               c->out_sizes[4] = 1; c->scales[4] = 1; c->ib.TotalTensorSizeInBytes *= 1, E_INVALIDARG);
        /* 3-D: fine except for RESAMPLE_GRAD (4-D only). */
        EXPECT(t, c->ib.DimensionCount = 3; c->ob.DimensionCount = 3; c->count = 3; c->ib.Sizes = c->in_sizes + 1;
               c->ob.Sizes = c->out_sizes + 1; c->scales[0] = c->scales[1]; c->scales[1] = c->scales[2];
               c->scales[2] = c->scales[3], t == DML_OPERATOR_RESAMPLE_GRAD ? E_INVALIDARG : S_OK);
        /* 7. Data types. */
        EXPECT(t, c->ob.DataType = DML_TENSOR_DATA_TYPE_FLOAT16, E_INVALIDARG);
        EXPECT(t, c->ib.DataType = c->ob.DataType = DML_TENSOR_DATA_TYPE_FLOAT16, S_OK);
        EXPECT(t, c->ib.DataType = c->ob.DataType = DML_TENSOR_DATA_TYPE_INT8, is_grad(t) ? E_INVALIDARG : S_OK);
        EXPECT(t, c->ib.DataType = c->ob.DataType = DML_TENSOR_DATA_TYPE_UINT8, is_grad(t) ? E_INVALIDARG : S_OK);
        EXPECT(t, c->ib.DataType = c->ob.DataType = DML_TENSOR_DATA_TYPE_UINT32, E_INVALIDARG);
        EXPECT(t, c->ib.DataType = c->ob.DataType = DML_TENSOR_DATA_TYPE_INT32, E_INVALIDARG);
        EXPECT(t, c->ib.DataType = c->ob.DataType = DML_TENSOR_DATA_TYPE_FLOAT64, E_INVALIDARG);
        EXPECT(t, c->ib.DataType = c->ob.DataType = DML_TENSOR_DATA_TYPE_UNKNOWN, E_INVALIDARG);
        EXPECT(t, c->ib.DataType = c->ob.DataType = 14, E_INVALIDARG);
        EXPECT(t, c->ib.DataType = c->ob.DataType = -1, E_INVALIDARG);
        /* 8. Sizes. */
        EXPECT(t, c->in_sizes[1] = 0, E_INVALIDARG);
        EXPECT(t, c->out_sizes[3] = 0, E_INVALIDARG);
        EXPECT(t, c->in_sizes[0] = 65536; c->in_sizes[1] = 65536; c->out_sizes[0] = 65536; c->out_sizes[1] = 65536;
               c->ib.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(1, 4, c->in_sizes, NULL);
               c->ob.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(1, 4, c->out_sizes, NULL), E_INVALIDARG);
        /* 9. TotalTensorSizeInBytes. */
        EXPECT(t, c->ib.TotalTensorSizeInBytes -= 1, E_INVALIDARG);
        EXPECT(t, c->ob.TotalTensorSizeInBytes -= 4, E_INVALIDARG);
        EXPECT(t, c->ob.TotalTensorSizeInBytes += 100, S_OK);
        EXPECT(t, c->ib.TotalTensorSizeInBytes = 0, E_INVALIDARG);
        /* Strides larger than the size covers. */
        EXPECT(t, c->in_strides[0] = 1000; c->in_strides[1] = 100; c->in_strides[2] = 10; c->in_strides[3] = 1;
               c->ib.Strides = c->in_strides, E_INVALIDARG);
        EXPECT(t, c->in_strides[0] = 1000; c->in_strides[1] = 100; c->in_strides[2] = 10; c->in_strides[3] = 1;
               c->ib.Strides = c->in_strides;
               c->ib.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(1, 4, c->in_sizes, c->in_strides), S_OK);
        /* 10. Alignment. */
        EXPECT(t, c->ib.GuaranteedBaseOffsetAlignment = 3, E_INVALIDARG);
        EXPECT(t, c->ob.GuaranteedBaseOffsetAlignment = 2, E_INVALIDARG); /* below sizeof(float) */
        EXPECT(t, c->ob.GuaranteedBaseOffsetAlignment = 48, E_INVALIDARG);
        EXPECT(t, c->ib.GuaranteedBaseOffsetAlignment = 4; c->ob.GuaranteedBaseOffsetAlignment = 256, S_OK);
        EXPECT(t, c->ib.DataType = c->ob.DataType = DML_TENSOR_DATA_TYPE_FLOAT16;
               c->ib.GuaranteedBaseOffsetAlignment = 2, S_OK);
        /* 11. Scales (offsets are free but must be finite). */
        EXPECT(t, c->scales[2] = 0, E_INVALIDARG);
        EXPECT(t, c->scales[2] = -0.0f, E_INVALIDARG);
        EXPECT(t, c->scales[3] = -2, E_INVALIDARG);
        EXPECT(t, c->scales[0] = NAN, E_INVALIDARG);
        EXPECT(t, c->scales[1] = INFINITY, E_INVALIDARG);
        EXPECT(t, c->scales[2] = FLT_MAX, S_OK);
        EXPECT(t, c->scales[3] = 1e-30f, S_OK);
        EXPECT(t, c->io[1] = -1.2f; c->oo[2] = 1000.0f, S_OK);
        if (t != DML_OPERATOR_RESAMPLE) {
            EXPECT(t, c->io[1] = NAN, E_INVALIDARG);
            EXPECT(t, c->oo[3] = -INFINITY, E_INVALIDARG);
        }
        /* 12. Flags. */
        EXPECT(t, c->ob.Flags = DML_TENSOR_FLAG_OWNED_BY_DML, E_INVALIDARG);
        EXPECT(t, c->ib.Flags = DML_TENSOR_FLAG_OWNED_BY_DML, S_OK);
        EXPECT(t, c->ib.Flags = 2, E_INVALIDARG);
        /* Outputs whose elements overlap. */
        EXPECT(t, c->out_strides[0] = 0; c->out_strides[1] = 0; c->out_strides[2] = 0; c->out_strides[3] = 1;
               c->ob.Strides = c->out_strides, E_INVALIDARG);
        /* Broadcast inputs are fine. */
        EXPECT(t, c->in_strides[3] = 1; c->ib.Strides = c->in_strides;
               c->ib.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(1, 4, c->in_sizes, c->in_strides), S_OK);
    }
    /* Arrays NULL, per variant. */
    EXPECT(DML_OPERATOR_RESAMPLE, (void)desc(c); c->u.r0.Scales = NULL; { DMLOperator *op; CHECK(DMLCreateOperator(&c->od, &op) == E_INVALIDARG); }, S_OK);
    EXPECT(DML_OPERATOR_RESAMPLE, (void)desc(c); c->u.r0.InputTensor = NULL; { DMLOperator *op; CHECK(DMLCreateOperator(&c->od, &op) == E_INVALIDARG); }, S_OK);
    EXPECT(DML_OPERATOR_RESAMPLE1, (void)desc(c); c->u.r1.InputPixelOffsets = NULL; { DMLOperator *op; CHECK(DMLCreateOperator(&c->od, &op) == E_INVALIDARG); }, S_OK);
    EXPECT(DML_OPERATOR_RESAMPLE2, (void)desc(c); c->u.r2.OutputPixelOffsets = NULL; { DMLOperator *op; CHECK(DMLCreateOperator(&c->od, &op) == E_INVALIDARG); }, S_OK);
    EXPECT(DML_OPERATOR_RESAMPLE3, (void)desc(c); c->u.r3.Scales = NULL; { DMLOperator *op; CHECK(DMLCreateOperator(&c->od, &op) == E_INVALIDARG); }, S_OK);
    EXPECT(DML_OPERATOR_RESAMPLE3, (void)desc(c); c->u.r3.OutputTensor = NULL; { DMLOperator *op; CHECK(DMLCreateOperator(&c->od, &op) == E_INVALIDARG); }, S_OK);
    EXPECT(DML_OPERATOR_RESAMPLE_GRAD, (void)desc(c); c->u.g0.InputGradientTensor = NULL; { DMLOperator *op; CHECK(DMLCreateOperator(&c->od, &op) == E_INVALIDARG); }, S_OK);
    EXPECT(DML_OPERATOR_RESAMPLE_GRAD1, (void)desc(c); c->u.g1.OutputGradientTensor = NULL; { DMLOperator *op; CHECK(DMLCreateOperator(&c->od, &op) == E_INVALIDARG); }, S_OK);
    EXPECT(DML_OPERATOR_RESAMPLE_GRAD1, (void)desc(c); c->u.g1.InputPixelOffsets = NULL; { DMLOperator *op; CHECK(DMLCreateOperator(&c->od, &op) == E_INVALIDARG); }, S_OK);
    /* 4. Operator types: unknown -> E_INVALIDARG, other DirectML operators -> E_NOTIMPL. */
    const int unknown[5] = {DML_OPERATOR_INVALID, -1, 178, 1000, 0x7fffffff};
    for (int i = 0; i < 5; i++) EXPECT(DML_OPERATOR_RESAMPLE2, c->type = unknown[i], E_INVALIDARG);
    EXPECT(DML_OPERATOR_RESAMPLE2, c->type = DML_OPERATOR_UPSAMPLE_2D, E_NOTIMPL);
    EXPECT(DML_OPERATOR_RESAMPLE2, c->type = DML_OPERATOR_ELEMENT_WISE_ADD, E_NOTIMPL);
    EXPECT(DML_OPERATOR_RESAMPLE2, c->type = DML_OPERATOR_UNFOLD, E_NOTIMPL);
    /* Tables beyond 2^28 entries are refused with E_OUTOFMEMORY (nothing is allocated). */
    EXPECT(DML_OPERATOR_RESAMPLE2, c->ib.DimensionCount = c->ob.DimensionCount = c->count = 1;
           c->in_sizes[0] = 2; c->out_sizes[0] = 300000000; c->scales[0] = 1.5e8f;
           c->ib.TotalTensorSizeInBytes = 8; c->ob.TotalTensorSizeInBytes = 1200000000ull, E_OUTOFMEMORY);
    /* GRAD1 and RESAMPLE take 1-D. */
    EXPECT(DML_OPERATOR_RESAMPLE_GRAD1, c->ib.DimensionCount = c->ob.DimensionCount = c->count = 1;
           c->ib.Sizes = c->in_sizes + 3; c->ob.Sizes = c->out_sizes + 3; c->scales[0] = c->scales[3], S_OK);
    EXPECT(DML_OPERATOR_RESAMPLE, c->ib.DimensionCount = c->ob.DimensionCount = c->count = 1;
           c->ib.Sizes = c->in_sizes + 3; c->ob.Sizes = c->out_sizes + 3; c->scales[0] = c->scales[3], S_OK);
    /* The descriptor may be freed right after creation: the operator keeps its own copy. */
    {
        Case *c = (Case *)calloc(1, sizeof(Case));
        base(c, DML_OPERATOR_RESAMPLE2);
        c->mode = DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR;
        DMLOperator *op = NULL;
        CHECK(DMLCreateOperator(desc(c), &op) == S_OK);
        memset(c, 0xAB, sizeof *c);
        free(c);
        float x[24], y[24];
        for (int i = 0; i < 24; i++) x[i] = (float)i;
        DML_BUFFER_BINDING bi = {x, 0, sizeof x}, bo = {y, 0, sizeof y};
        CHECK(DMLExecuteOperator(op, 1, &bi, 1, &bo) == S_OK);
        /* H: 3 -> 6 (x2), DECREASING: c = (o+0.5)/2-0.5 -> floor 0,0,0,1,1,2 (clamped -1 -> 0);
         * W: 4 -> 2 (x0.5): c = 2o+0.5 -> 0, 2. */
        const int hm[6] = {0, 0, 0, 1, 1, 2}, wm[2] = {0, 2};
        int ok = 1;
        for (int ch = 0; ch < 2; ch++)
            for (int h = 0; h < 6; h++)
                for (int w = 0; w < 2; w++) ok &= y[ch * 12 + h * 2 + w] == x[ch * 12 + hm[h] * 4 + wm[w]];
        CHECK(ok);
        DMLReleaseOperator(op);
    }
}

static void execute_checks(void) {
    Case c;
    base(&c, DML_OPERATOR_RESAMPLE3);
    c.ob.GuaranteedBaseOffsetAlignment = 32;
    DMLOperator *op = NULL;
    CHECK(DMLCreateOperator(desc(&c), &op) == S_OK);
    static float in[64], out[64];
    for (int i = 0; i < 64; i++) in[i] = (float)i;
    const UINT64 isz = c.ib.TotalTensorSizeInBytes, osz = c.ob.TotalTensorSizeInBytes;
    CHECK(isz == 96 && osz == 96);
    DML_BUFFER_BINDING bi = {in, 0, isz}, bo = {out, 0, osz};
#define REFUSED(call, want)                                                        \
    do {                                                                           \
        for (int i = 0; i < 64; i++) out[i] = -7;                                  \
        HRESULT h_ = (call);                                                       \
        int untouched_ = 1;                                                        \
        for (int i = 0; i < 64; i++) untouched_ &= out[i] == -7;                   \
        if (h_ == (want) && untouched_) passed++;                                  \
        else {                                                                     \
            failed++;                                                              \
            printf("FAIL line %d: %s -> %#x (untouched %d)\n", __LINE__, #call,   \
                   (unsigned)h_, untouched_);                                      \
        }                                                                          \
    } while (0)
    REFUSED(DMLExecuteOperator(NULL, 1, &bi, 1, &bo), E_POINTER);
    REFUSED(DMLExecuteOperator(op, 0, &bi, 1, &bo), E_INVALIDARG);
    REFUSED(DMLExecuteOperator(op, 2, &bi, 1, &bo), E_INVALIDARG);
    REFUSED(DMLExecuteOperator(op, 1, &bi, 0, &bo), E_INVALIDARG);
    REFUSED(DMLExecuteOperator(op, 1, &bi, 2, &bo), E_INVALIDARG);
    REFUSED(DMLExecuteOperator(op, 1, NULL, 1, &bo), E_INVALIDARG);
    REFUSED(DMLExecuteOperator(op, 1, &bi, 1, NULL), E_INVALIDARG);
    DML_BUFFER_BINDING nb = {NULL, 0, isz};
    REFUSED(DMLExecuteOperator(op, 1, &nb, 1, &bo), E_INVALIDARG);
    REFUSED(DMLExecuteOperator(op, 1, &bi, 1, &nb), E_INVALIDARG);
    DML_BUFFER_BINDING small_in = {in, 0, isz - 1}, small_out = {out, 0, osz - 4};
    REFUSED(DMLExecuteOperator(op, 1, &small_in, 1, &bo), E_INVALIDARG);
    REFUSED(DMLExecuteOperator(op, 1, &bi, 1, &small_out), E_INVALIDARG);
    /* Offsets: input alignment 16 (the minimum), output 32 (its GuaranteedBaseOffsetAlignment). */
    DML_BUFFER_BINDING off8 = {in, 8, isz}, off16 = {in, 16, isz}, oo16 = {out, 16, osz}, oo32 = {out, 32, osz};
    REFUSED(DMLExecuteOperator(op, 1, &off8, 1, &bo), E_INVALIDARG);
    REFUSED(DMLExecuteOperator(op, 1, &bi, 1, &oo16), E_INVALIDARG);
    DML_BUFFER_BINDING wrap = {in, ~0ull - 15, isz};
    REFUSED(DMLExecuteOperator(op, 1, &wrap, 1, &bo), E_INVALIDARG);
    /* The accepted versions of the same bindings. */
    for (int i = 0; i < 64; i++) out[i] = -7;
    CHECK(DMLExecuteOperator(op, 1, &off16, 1, &oo32) == S_OK);
    CHECK(out[7] == -7 && out[8] != -7 && out[8 + 24] == -7);
    DMLReleaseOperator(op);
}

int main(void) {
    create_checks();
    execute_checks();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
