/* Robustness of the DirectML face under valgrind: seeded random resample operators
 * (well-formed, then with extreme sizes, strides, totals, alignment, flags, types, scales
 * and offsets), created and executed on buffers malloc'd at exactly
 * TotalTensorSizeInBytes, plus bindings that must be refused. */
#include "DirectML.h"
#include "robust_common.h"

#define OKHR(h) ((h) == S_OK || (h) == E_INVALIDARG || (h) == E_OUTOFMEMORY || (h) == E_POINTER || (h) == E_NOTIMPL)

typedef struct {
    UINT sizes[20], strides[20];
    DML_BUFFER_TENSOR_DESC b;
    DML_TENSOR_DESC t;
} Tensor;

static void tensor(Tensor *t, const UINT *sizes, UINT n, DML_TENSOR_DATA_TYPE dt) {
    memset(t, 0, sizeof *t);
    memcpy(t->sizes, sizes, n * sizeof(UINT));
    t->b.DataType = dt;
    t->b.DimensionCount = n;
    t->b.Sizes = t->sizes;
    if (rchance(0.4)) {
        UINT s = 1;
        for (int d = (int)n - 1; d >= 0; d--) { t->strides[d] = s; s *= sizes[d] * (UINT)rrange(1, 2); }
        t->b.Strides = t->strides;
    }
    t->b.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(dt, n, t->sizes, t->b.Strides) + 4 * (UINT64)rrange(0, 2);
    t->t.Type = DML_TENSOR_TYPE_BUFFER;
    t->t.Desc = &t->b;
}

static void mutate(Tensor *t) {
    int i = (int)(rnext() % 4);
    switch (rnext() % 8) {
    case 0: t->b.DimensionCount = (UINT)rrange(0, 20); break;
    case 1: t->sizes[i] = ru32x(); break;
    case 2: t->strides[i] = ru32x(); t->b.Strides = t->strides; break;
    case 3: t->b.TotalTensorSizeInBytes = rchance(0.5) ? 0 : (UINT64)rnext(); break;
    case 4: t->b.GuaranteedBaseOffsetAlignment = ru32x(); break;
    case 5: t->b.Flags = ru32x(); break;
    case 6: t->b.DataType = (DML_TENSOR_DATA_TYPE)rrange(-1, 15); break;
    default: t->b.TotalTensorSizeInBytes -= t->b.TotalTensorSizeInBytes >= 4 ? 4 : 0; break;
    }
}

int main(void) {
    ROBUST_BEGIN(3000);
    static const DML_OPERATOR_TYPE types[6] = {DML_OPERATOR_RESAMPLE, DML_OPERATOR_RESAMPLE1, DML_OPERATOR_RESAMPLE2,
                                               DML_OPERATOR_RESAMPLE3, DML_OPERATOR_RESAMPLE_GRAD, DML_OPERATOR_RESAMPLE_GRAD1};
    for (unsigned long long i = 0; i < ncases; i++) {
        CASE_SEED(i);
        DML_OPERATOR_TYPE type = types[rnext() % 6];
        int grad = type == DML_OPERATOR_RESAMPLE_GRAD || type == DML_OPERATOR_RESAMPLE_GRAD1;
        UINT n = type == DML_OPERATOR_RESAMPLE_GRAD ? 4 : (UINT)rrange(1, 4);
        UINT fin[4], fout[4];
        float scales[20], io[20], oo[20];
        for (UINT d = 0; d < 20; d++) { scales[d] = 1; io[d] = 0.5f; oo[d] = -0.5f; }
        for (UINT d = 0; d < n; d++) {
            fin[d] = (UINT)rrange(1, 6);
            fout[d] = d + 2 >= n ? (UINT)rrange(1, 8) : fin[d];
            scales[d] = (float)fout[d] / (float)fin[d];
        }
        static const DML_TENSOR_DATA_TYPE dts[4] = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
                                                    DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_INT8};
        DML_TENSOR_DATA_TYPE dt = dts[rnext() % 4];
        Tensor it, ot;
        tensor(&it, grad ? fout : fin, n, dt);
        tensor(&ot, grad ? fin : fout, n, dt);
        int hostile = rchance(0.6);
        if (hostile) {
            if (rchance(0.6)) mutate(&it);
            if (rchance(0.6)) mutate(&ot);
            for (int k = 0; k < 3; k++) if (rchance(0.2)) scales[rnext() % n] = rf32x();
            if (rchance(0.2)) io[rnext() % n] = rf32x();
            if (rchance(0.2)) oo[rnext() % n] = rf32x();
        }
        UINT count = hostile && rchance(0.1) ? (UINT)rrange(0, 20) : n;
        DML_INTERPOLATION_MODE mode = (DML_INTERPOLATION_MODE)(hostile && rchance(0.1) ? rrange(-1, 3) : rrange(0, 1));
        DML_AXIS_DIRECTION dir = (DML_AXIS_DIRECTION)(hostile && rchance(0.1) ? rrange(-1, 3) : rrange(0, 1));
        union {
            DML_RESAMPLE_OPERATOR_DESC r0;
            DML_RESAMPLE1_OPERATOR_DESC r1;
            DML_RESAMPLE2_OPERATOR_DESC r2;
            DML_RESAMPLE3_OPERATOR_DESC r3;
            DML_RESAMPLE_GRAD_OPERATOR_DESC g0;
            DML_RESAMPLE_GRAD1_OPERATOR_DESC g1;
        } u;
        memset(&u, 0, sizeof u);
        switch (type) {
        case DML_OPERATOR_RESAMPLE: u.r0 = (DML_RESAMPLE_OPERATOR_DESC){&it.t, &ot.t, mode, count, scales}; break;
        case DML_OPERATOR_RESAMPLE1: u.r1 = (DML_RESAMPLE1_OPERATOR_DESC){&it.t, &ot.t, mode, count, scales, io, oo}; break;
        case DML_OPERATOR_RESAMPLE2: u.r2 = (DML_RESAMPLE2_OPERATOR_DESC){&it.t, &ot.t, mode, dir, count, scales, io, oo}; break;
        case DML_OPERATOR_RESAMPLE3: u.r3 = (DML_RESAMPLE3_OPERATOR_DESC){&it.t, &ot.t, mode, dir, count, scales, io, oo, (BOOL)rrange(0, 1)}; break;
        case DML_OPERATOR_RESAMPLE_GRAD: u.g0 = (DML_RESAMPLE_GRAD_OPERATOR_DESC){&it.t, &ot.t, mode, count, scales, io, oo}; break;
        default: u.g1 = (DML_RESAMPLE_GRAD1_OPERATOR_DESC){&it.t, &ot.t, mode, dir, count, scales, io, oo}; break;
        }
        DML_OPERATOR_DESC od = {type, &u};
        DMLOperator *op = NULL;
        HRESULT hr = DMLCreateOperator(&od, &op);
        CHECK(OKHR(hr));
        if (hr != S_OK) { CHECK(op == NULL); continue; }
        UINT64 isz = it.b.TotalTensorSizeInBytes, osz = ot.b.TotalTensorSizeInBytes;
        if (isz > (1u << 20) || osz > (1u << 20)) { DMLReleaseOperator(op); continue; }
        void *src = malloc(isz ? isz : 1), *dst = malloc(osz ? osz : 1);
        rfill(src, isz);
        rfill(dst, osz); /* in-place runs read it */
        DML_BUFFER_BINDING ib = {src, 0, isz}, ob = {dst, 0, osz};
        DML_BUFFER_BINDING small = {dst, 0, osz - 1}, mis = {dst, 4, osz}, nul = {NULL, 0, osz};
        CHECK(DMLExecuteOperator(op, 1, &ib, 1, &small) != S_OK);
        CHECK(DMLExecuteOperator(op, 1, &ib, 1, &mis) != S_OK);
        CHECK(DMLExecuteOperator(op, 1, &ib, 1, &nul) != S_OK);
        CHECK(DMLExecuteOperator(op, 1, NULL, 1, &ob) != S_OK);
        CHECK(DMLExecuteOperator(op, 2, &ib, 1, &ob) != S_OK);
        CHECK(DMLExecuteOperator(op, 1, &ib, 1, &ob) == S_OK);
        if (isz <= osz) {
            DML_BUFFER_BINDING inplace = {dst, 0, osz};
            CHECK(OKHR(DMLExecuteOperator(op, 1, &inplace, 1, &inplace)));
        }
        free(src);
        free(dst);
        DMLReleaseOperator(op);
    }
    ROBUST_END();
}
