/* DirectML face: the documented and worked examples of docs/spec/directml.md, every
 * operator type, both modes, both rounding directions, antialias on/off, 1-4 dimensions
 * (resampling along N and C too), strided / broadcast / padded tensors, FLOAT16, INT8,
 * UINT8, binding offsets and in-place execution. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "DirectML.h"

static int passed, failed;
#define CHECK(c) do { if (c) passed++; else { failed++; printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); } } while (0)

/* A buffer tensor description that owns its arrays. Never copied after init. */
typedef struct {
    UINT sizes[4], strides[4];
    DML_BUFFER_TENSOR_DESC b;
    DML_TENSOR_DESC t;
} Tens;

static void tens(Tens *T, DML_TENSOR_DATA_TYPE dt, UINT n, const UINT *sizes, const UINT *strides) {
    memset(T, 0, sizeof *T);
    memcpy(T->sizes, sizes, n * sizeof(UINT));
    if (strides) memcpy(T->strides, strides, n * sizeof(UINT));
    T->b.DataType = dt;
    T->b.Flags = DML_TENSOR_FLAG_NONE;
    T->b.DimensionCount = n;
    T->b.Sizes = T->sizes;
    T->b.Strides = strides ? T->strides : NULL;
    T->b.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(dt, n, T->sizes, strides ? T->strides : NULL);
    T->b.GuaranteedBaseOffsetAlignment = 0;
    T->t.Type = DML_TENSOR_TYPE_BUFFER;
    T->t.Desc = &T->b;
}

/* Creates the operator, runs it once, releases it. */
static HRESULT run(DML_OPERATOR_TYPE type, const void *desc, void *in, UINT64 in_size, void *out, UINT64 out_size) {
    DML_OPERATOR_DESC od = {type, desc};
    DMLOperator *op = NULL;
    HRESULT hr = DMLCreateOperator(&od, &op);
    if (FAILED(hr)) return hr;
    DML_BUFFER_BINDING bi = {in, 0, in_size}, bo = {out, 0, out_size};
    hr = DMLExecuteOperator(op, 1, &bi, 1, &bo);
    DMLReleaseOperator(op);
    return hr;
}

static int close_f(const float *a, const float *b, int n, float tol) {
    for (int i = 0; i < n; i++)
        if (!(fabsf(a[i] - b[i]) <= tol)) {
            printf("  [%d] got %.7g want %.7g\n", i, a[i], b[i]);
            return 0;
        }
    return 1;
}

/* RESAMPLE2 / RESAMPLE3 / GRAD1 helpers with shared parameters. */
static HRESULT resample2(DML_OPERATOR_TYPE type, DML_INTERPOLATION_MODE mode, DML_AXIS_DIRECTION dir, BOOL aa,
                         Tens *I, Tens *O, UINT n, const float *s, const float *io, const float *oo,
                         void *in, void *out) {
    if (type == DML_OPERATOR_RESAMPLE3) {
        DML_RESAMPLE3_OPERATOR_DESC d = {&I->t, &O->t, mode, dir, n, s, io, oo, aa};
        return run(type, &d, in, I->b.TotalTensorSizeInBytes, out, O->b.TotalTensorSizeInBytes);
    }
    if (type == DML_OPERATOR_RESAMPLE_GRAD1) {
        DML_RESAMPLE_GRAD1_OPERATOR_DESC d = {&I->t, &O->t, mode, dir, n, s, io, oo};
        return run(type, &d, in, I->b.TotalTensorSizeInBytes, out, O->b.TotalTensorSizeInBytes);
    }
    DML_RESAMPLE2_OPERATOR_DESC d = {&I->t, &O->t, mode, dir, n, s, io, oo};
    return run(DML_OPERATOR_RESAMPLE2, &d, in, I->b.TotalTensorSizeInBytes, out, O->b.TotalTensorSizeInBytes);
}

static HRESULT resample1(DML_OPERATOR_TYPE type, DML_INTERPOLATION_MODE mode, Tens *I, Tens *O, UINT n,
                         const float *s, const float *io, const float *oo, void *in, void *out) {
    if (type == DML_OPERATOR_RESAMPLE_GRAD) {
        DML_RESAMPLE_GRAD_OPERATOR_DESC d = {&I->t, &O->t, mode, n, s, io, oo};
        return run(type, &d, in, I->b.TotalTensorSizeInBytes, out, O->b.TotalTensorSizeInBytes);
    }
    DML_RESAMPLE1_OPERATOR_DESC d = {&I->t, &O->t, mode, n, s, io, oo};
    return run(DML_OPERATOR_RESAMPLE1, &d, in, I->b.TotalTensorSizeInBytes, out, O->b.TotalTensorSizeInBytes);
}

static const float HI[4] = {0.5f, 0.5f, 0.5f, 0.5f}, HO[4] = {-0.5f, -0.5f, -0.5f, -0.5f};
static const float Z4[4] = {0, 0, 0, 0};

/* The GRAD docs' example: forward NN, width x1.5 and height x0.5. */
static void grad_doc_example(void) {
    Tens I, O;
    const UINT in_sz[4] = {1, 1, 2, 2}, out_sz[4] = {1, 1, 1, 3};
    const float s[4] = {1, 1, 0.5f, 1.5f};
    float x[4] = {1, 2, 3, 4}, y[3] = {0};
    tens(&I, DML_TENSOR_DATA_TYPE_FLOAT32, 4, in_sz, NULL);
    tens(&O, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sz, NULL);
    /* RESAMPLE2, DECREASING, offsets 0.5 / -0.5: [[1,2],[3,4]] -> [1,1,2]. */
    CHECK(resample2(DML_OPERATOR_RESAMPLE2, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, DML_AXIS_DIRECTION_DECREASING, 0,
                    &I, &O, 4, s, HI, HO, x, y) == S_OK);
    const float y_want[3] = {1, 1, 2};
    CHECK(close_f(y, y_want, 3, 0));
    /* RESAMPLE3 without antialias is RESAMPLE2. */
    memset(y, 0, sizeof y);
    CHECK(resample2(DML_OPERATOR_RESAMPLE3, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, DML_AXIS_DIRECTION_DECREASING, 1,
                    &I, &O, 4, s, HI, HO, x, y) == S_OK);
    CHECK(close_f(y, y_want, 3, 0));
    /* GRAD1 with the same parameters: [4,5,6] -> [[9,6],[0,0]]. */
    Tens G, D;
    tens(&G, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sz, NULL);
    tens(&D, DML_TENSOR_DATA_TYPE_FLOAT32, 4, in_sz, NULL);
    float g[3] = {4, 5, 6}, dx[4] = {-1, -1, -1, -1};
    CHECK(resample2(DML_OPERATOR_RESAMPLE_GRAD1, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR,
                    DML_AXIS_DIRECTION_DECREASING, 0, &G, &D, 4, s, HI, HO, g, dx) == S_OK);
    const float dx_want[4] = {9, 6, 0, 0};
    CHECK(close_f(dx, dx_want, 4, 0));
    /* RESAMPLE1 (round half up) gives [3,4,4]; its GRAD gives [[0,0],[4,11]]. */
    CHECK(resample1(DML_OPERATOR_RESAMPLE1, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, &I, &O, 4, s, HI, HO, x, y) == S_OK);
    const float y1_want[3] = {3, 4, 4};
    CHECK(close_f(y, y1_want, 3, 0));
    CHECK(resample1(DML_OPERATOR_RESAMPLE_GRAD, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, &G, &D, 4, s, HI, HO, g, dx) == S_OK);
    const float dx1_want[4] = {0, 0, 4, 11};
    CHECK(close_f(dx, dx1_want, 4, 0));
    /* DML_RESAMPLE (implicit 0.5 / -0.5 offsets) equals RESAMPLE1 with them. */
    DML_RESAMPLE_OPERATOR_DESC r0 = {&I.t, &O.t, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, 4, s};
    memset(y, 0, sizeof y);
    CHECK(run(DML_OPERATOR_RESAMPLE, &r0, x, sizeof x, y, sizeof y) == S_OK);
    CHECK(close_f(y, y1_want, 3, 0));
}

/* docs/spec/directml.md §5.6: downsampling 4 -> 2 by 0.5, and linear 3 -> 5. */
static void downsample_examples(void) {
    Tens I, O;
    const UINT n4 = 4, n2 = 2;
    float x[4] = {10, 11, 12, 13}, y[2];
    const float s = 0.5f;
    tens(&I, DML_TENSOR_DATA_TYPE_FLOAT32, 1, &n4, NULL);
    tens(&O, DML_TENSOR_DATA_TYPE_FLOAT32, 1, &n2, NULL);
    DML_RESAMPLE_OPERATOR_DESC r0 = {&I.t, &O.t, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, 1, &s};
    CHECK(run(DML_OPERATOR_RESAMPLE, &r0, x, sizeof x, y, sizeof y) == S_OK);
    CHECK(y[0] == 11 && y[1] == 13);
    CHECK(resample1(DML_OPERATOR_RESAMPLE1, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, &I, &O, 1, &s, HI, HO, x, y) == S_OK);
    CHECK(y[0] == 11 && y[1] == 13);
    CHECK(resample2(DML_OPERATOR_RESAMPLE2, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, DML_AXIS_DIRECTION_INCREASING, 0,
                    &I, &O, 1, &s, HI, HO, x, y) == S_OK);
    CHECK(y[0] == 11 && y[1] == 13);
    CHECK(resample2(DML_OPERATOR_RESAMPLE2, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, DML_AXIS_DIRECTION_DECREASING, 0,
                    &I, &O, 1, &s, HI, HO, x, y) == S_OK);
    CHECK(y[0] == 10 && y[1] == 12);
    CHECK(resample2(DML_OPERATOR_RESAMPLE3, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, DML_AXIS_DIRECTION_DECREASING, 0,
                    &I, &O, 1, &s, HI, HO, x, y) == S_OK);
    CHECK(y[0] == 10 && y[1] == 12);
    for (int m = 0; m < 2; m++) {
        DML_OPERATOR_TYPE t = m ? DML_OPERATOR_RESAMPLE3 : DML_OPERATOR_RESAMPLE2;
        CHECK(resample2(t, DML_INTERPOLATION_MODE_LINEAR, DML_AXIS_DIRECTION_INCREASING, 0, &I, &O, 1, &s, HI, HO, x, y) == S_OK);
        CHECK(y[0] == 10.5f && y[1] == 12.5f);
    }
    r0.InterpolationMode = DML_INTERPOLATION_MODE_LINEAR;
    CHECK(run(DML_OPERATOR_RESAMPLE, &r0, x, sizeof x, y, sizeof y) == S_OK);
    CHECK(y[0] == 10.5f && y[1] == 12.5f);

    /* LINEAR 3 -> 5, scale 5/3: [0, 0.4, 1, 1.6, 2]. */
    const UINT n3 = 3, n5 = 5;
    const float s53 = 5.0f / 3.0f;
    float x3[3] = {0, 1, 2}, y5[5];
    tens(&I, DML_TENSOR_DATA_TYPE_FLOAT32, 1, &n3, NULL);
    tens(&O, DML_TENSOR_DATA_TYPE_FLOAT32, 1, &n5, NULL);
    CHECK(resample1(DML_OPERATOR_RESAMPLE1, DML_INTERPOLATION_MODE_LINEAR, &I, &O, 1, &s53, HI, HO, x3, y5) == S_OK);
    const float y5_want[5] = {0, 0.4f, 1, 1.6f, 2};
    CHECK(close_f(y5, y5_want, 5, 1e-6f));
    /* Scales need not be out/in: scale 1 on 3 -> 5 replicates the edge. Offsets 0 / 0. */
    const float one = 1;
    CHECK(resample1(DML_OPERATOR_RESAMPLE1, DML_INTERPOLATION_MODE_LINEAR, &I, &O, 1, &one, Z4, Z4, x3, y5) == S_OK);
    const float y5_edge[5] = {0, 1, 2, 2, 2};
    CHECK(close_f(y5, y5_edge, 5, 0));
    /* Large offsets shift the content: c = o - 2.  */
    const float io2 = 2;
    CHECK(resample1(DML_OPERATOR_RESAMPLE1, DML_INTERPOLATION_MODE_LINEAR, &I, &O, 1, &one, &io2, Z4, x3, y5) == S_OK);
    const float y5_shift[5] = {0, 0, 0, 1, 2};
    CHECK(close_f(y5, y5_shift, 5, 0));
}

/* docs/spec/directml.md §5.5: antialiased 8 -> 2 at scale 0.25. */
static void antialias_example(void) {
    Tens I, O;
    const UINT n8 = 8, n2 = 2;
    float x[8] = {0, 1, 2, 3, 4, 5, 6, 7}, y[2];
    const float s = 0.25f;
    tens(&I, DML_TENSOR_DATA_TYPE_FLOAT32, 1, &n8, NULL);
    tens(&O, DML_TENSOR_DATA_TYPE_FLOAT32, 1, &n2, NULL);
    CHECK(resample2(DML_OPERATOR_RESAMPLE3, DML_INTERPOLATION_MODE_LINEAR, DML_AXIS_DIRECTION_DECREASING, TRUE,
                    &I, &O, 1, &s, HI, HO, x, y) == S_OK);
    const float aa[2] = {1.65625f, 5.34375f}, plain[2] = {1.5f, 5.5f};
    CHECK(close_f(y, aa, 2, 1e-6f));
    /* Any nonzero BOOL is TRUE. */
    CHECK(resample2(DML_OPERATOR_RESAMPLE3, DML_INTERPOLATION_MODE_LINEAR, DML_AXIS_DIRECTION_DECREASING, -7,
                    &I, &O, 1, &s, HI, HO, x, y) == S_OK);
    CHECK(close_f(y, aa, 2, 1e-6f));
    CHECK(resample2(DML_OPERATOR_RESAMPLE3, DML_INTERPOLATION_MODE_LINEAR, DML_AXIS_DIRECTION_DECREASING, FALSE,
                    &I, &O, 1, &s, HI, HO, x, y) == S_OK);
    CHECK(close_f(y, plain, 2, 1e-6f));
    /* NEAREST ignores the flag: c = 1.5, 5.5 -> floor 1, 5. */
    CHECK(resample2(DML_OPERATOR_RESAMPLE3, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, DML_AXIS_DIRECTION_DECREASING,
                    TRUE, &I, &O, 1, &s, HI, HO, x, y) == S_OK);
    CHECK(y[0] == 1 && y[1] == 5);
    /* Scale exactly 0.5 (1/scale == 2) is not antialiased. */
    const UINT n4 = 4;
    const float half = 0.5f;
    tens(&I, DML_TENSOR_DATA_TYPE_FLOAT32, 1, &n4, NULL);
    CHECK(resample2(DML_OPERATOR_RESAMPLE3, DML_INTERPOLATION_MODE_LINEAR, DML_AXIS_DIRECTION_DECREASING, TRUE,
                    &I, &O, 1, &half, HI, HO, x, y) == S_OK);
    CHECK(y[0] == 0.5f && y[1] == 2.5f);
}

/* Resampling along N and C of a 4-D tensor: x[n][c] = 10n + c is affine, so the result is
 * 10 * lerpN + lerpC with the per-axis half-pixel tables. */
static void batch_and_channel(void) {
    Tens I, O;
    const UINT in_sz[4] = {2, 3, 1, 1}, out_sz[4] = {4, 5, 1, 1};
    const float s[4] = {2.0f, 5.0f / 3.0f, 1, 1};
    float x[6], y[20];
    for (int n = 0; n < 2; n++)
        for (int c = 0; c < 3; c++) x[n * 3 + c] = (float)(10 * n + c);
    tens(&I, DML_TENSOR_DATA_TYPE_FLOAT32, 4, in_sz, NULL);
    tens(&O, DML_TENSOR_DATA_TYPE_FLOAT32, 4, out_sz, NULL);
    const float ln[4] = {0, 0.25f, 0.75f, 1}, lc[5] = {0, 0.4f, 1, 1.6f, 2};
    float want[20];
    for (int n = 0; n < 4; n++)
        for (int c = 0; c < 5; c++) want[n * 5 + c] = 10 * ln[n] + lc[c];
    CHECK(resample2(DML_OPERATOR_RESAMPLE2, DML_INTERPOLATION_MODE_LINEAR, DML_AXIS_DIRECTION_INCREASING, 0,
                    &I, &O, 4, s, HI, HO, x, y) == S_OK);
    CHECK(close_f(y, want, 20, 2e-6f));
    CHECK(resample1(DML_OPERATOR_RESAMPLE1, DML_INTERPOLATION_MODE_LINEAR, &I, &O, 4, s, HI, HO, x, y) == S_OK);
    CHECK(close_f(y, want, 20, 2e-6f));
    /* Nearest along N and C, INCREASING (ceil): N c = -0.25, 0.25, 0.75, 1.25 -> 0,1,1,1. */
    const int nn[4] = {0, 1, 1, 1};
    /* C: c = (o+0.5)*0.6-0.5 = -0.2, 0.4, 1.0, 1.6, 2.2 -> ceil 0,1,1,2,2. */
    const int nc[5] = {0, 1, 1, 2, 2};
    CHECK(resample2(DML_OPERATOR_RESAMPLE2, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, DML_AXIS_DIRECTION_INCREASING, 0,
                    &I, &O, 4, s, HI, HO, x, y) == S_OK);
    int ok = 1;
    for (int n = 0; n < 4; n++)
        for (int c = 0; c < 5; c++) ok &= y[n * 5 + c] == (float)(10 * nn[n] + nc[c]);
    CHECK(ok);
}

/* 2-D and 3-D shapes, strided (padded) input, broadcast input (stride 0), padded output. */
static void strides_and_broadcast(void) {
    /* Input 2x3 stored with row pitch 5 (padding holds garbage). */
    Tens I, O;
    const UINT in_sz[2] = {2, 3}, in_st[2] = {5, 1}, out_sz[2] = {4, 3};
    float x[10] = {1, 2, 3, 99, 99, 4, 5, 6, 99, 99}, y[12];
    const float s[2] = {2, 1};
    tens(&I, DML_TENSOR_DATA_TYPE_FLOAT32, 2, in_sz, in_st);
    tens(&O, DML_TENSOR_DATA_TYPE_FLOAT32, 2, out_sz, NULL);
    CHECK(I.b.TotalTensorSizeInBytes == 32);
    CHECK(resample2(DML_OPERATOR_RESAMPLE2, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, DML_AXIS_DIRECTION_DECREASING, 0,
                    &I, &O, 2, s, HI, HO, x, y) == S_OK);
    /* rows: c = (o+0.5)/2-0.5 = -0.25, 0.25, 0.75, 1.25 -> floor 0,0,0,1 */
    const float want[12] = {1, 2, 3, 1, 2, 3, 1, 2, 3, 4, 5, 6};
    CHECK(close_f(y, want, 12, 0));
    /* Broadcast: a single row repeated over 3 rows (stride 0), upsampled 3 -> 6 along W. */
    const UINT b_sz[2] = {3, 3}, b_st[2] = {0, 1}, bo_sz[2] = {3, 6};
    float row[3] = {0, 3, 6}, yb[18];
    const float sb[2] = {1, 2};
    tens(&I, DML_TENSOR_DATA_TYPE_FLOAT32, 2, b_sz, b_st);
    tens(&O, DML_TENSOR_DATA_TYPE_FLOAT32, 2, bo_sz, NULL);
    CHECK(I.b.TotalTensorSizeInBytes == 12);
    CHECK(resample1(DML_OPERATOR_RESAMPLE1, DML_INTERPOLATION_MODE_LINEAR, &I, &O, 2, sb, HI, HO, row, yb) == S_OK);
    const float wrow[6] = {0, 0.75f, 2.25f, 3.75f, 5.25f, 6};
    int ok = 1;
    for (int r = 0; r < 3; r++) ok &= close_f(yb + 6 * r, wrow, 6, 1e-6f);
    CHECK(ok);
    /* 3-D, padded output (pitch 4, the gaps must stay untouched), all-zero input strides. */
    const UINT z_sz[3] = {2, 2, 2}, z_st[3] = {0, 0, 0}, zo_sz[3] = {2, 2, 3}, zo_st[3] = {8, 4, 1};
    float seven = 7, yz[16];
    for (int i = 0; i < 16; i++) yz[i] = -1;
    const float sz3[3] = {1, 1, 1.5f};
    tens(&I, DML_TENSOR_DATA_TYPE_FLOAT32, 3, z_sz, z_st);
    tens(&O, DML_TENSOR_DATA_TYPE_FLOAT32, 3, zo_sz, zo_st);
    CHECK(O.b.TotalTensorSizeInBytes == 60);
    CHECK(resample2(DML_OPERATOR_RESAMPLE2, DML_INTERPOLATION_MODE_LINEAR, DML_AXIS_DIRECTION_DECREASING, 0,
                    &I, &O, 3, sz3, HI, HO, &seven, yz) == S_OK);
    ok = 1;
    for (int i = 0; i < 15; i++) ok &= (i % 4 == 3) ? yz[i] == -1 : fabsf(yz[i] - 7) < 1e-5f;
    CHECK(ok && yz[15] == -1);
}

/* FLOAT16 via bit patterns; INT8 / UINT8 round half to even. */
static void small_types(void) {
    Tens I, O;
    const UINT n2 = 2, n4 = 4;
    const float s2 = 2, one = 1, mhalf = -0.5f;
    /* f16 [1, 2] -> 4 linear: [1, 1.25, 1.75, 2]. */
    unsigned short hx[2] = {0x3C00, 0x4000}, hy[4];
    tens(&I, DML_TENSOR_DATA_TYPE_FLOAT16, 1, &n2, NULL);
    tens(&O, DML_TENSOR_DATA_TYPE_FLOAT16, 1, &n4, NULL);
    CHECK(O.b.TotalTensorSizeInBytes == 8);
    CHECK(resample2(DML_OPERATOR_RESAMPLE2, DML_INTERPOLATION_MODE_LINEAR, DML_AXIS_DIRECTION_DECREASING, 0,
                    &I, &O, 1, &s2, HI, HO, hx, hy) == S_OK);
    CHECK(hy[0] == 0x3C00 && hy[1] == 0x3D00 && hy[2] == 0x3F00 && hy[3] == 0x4000);
    /* f16 gradient: GRAD1 linear of the same op, dy = 1 everywhere -> dx = [2, 2]. */
    unsigned short hg[4] = {0x3C00, 0x3C00, 0x3C00, 0x3C00}, hd[2];
    tens(&I, DML_TENSOR_DATA_TYPE_FLOAT16, 1, &n4, NULL);
    tens(&O, DML_TENSOR_DATA_TYPE_FLOAT16, 1, &n2, NULL);
    CHECK(resample2(DML_OPERATOR_RESAMPLE_GRAD1, DML_INTERPOLATION_MODE_LINEAR, DML_AXIS_DIRECTION_DECREASING, 0,
                    &I, &O, 1, &s2, HI, HO, hg, hd) == S_OK);
    CHECK(hd[0] == 0x4000 && hd[1] == 0x4000);
    /* NEAREST copies f16 bits unchanged, NaN payload included. */
    unsigned short hn[2] = {0x7E01, 0xFC00}, hny[4];
    tens(&I, DML_TENSOR_DATA_TYPE_FLOAT16, 1, &n2, NULL);
    tens(&O, DML_TENSOR_DATA_TYPE_FLOAT16, 1, &n4, NULL);
    CHECK(resample2(DML_OPERATOR_RESAMPLE2, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, DML_AXIS_DIRECTION_DECREASING, 0,
                    &I, &O, 1, &s2, HI, HO, hn, hny) == S_OK);
    /* floor(-0.25, 0.25, 0.75, 1.25) = 0, 0, 0, 1 */
    CHECK(hny[0] == 0x7E01 && hny[1] == 0x7E01 && hny[2] == 0x7E01 && hny[3] == 0xFC00);

    /* c = o + 0.5 (scale 1, InputPixelOffset -0.5, OutputPixelOffset 0): halfway values. */
    const UINT n5 = 5;
    unsigned char u[8] = {2, 3, 4, 5, 255}, uy[8];
    tens(&I, DML_TENSOR_DATA_TYPE_UINT8, 1, &n5, NULL);
    tens(&O, DML_TENSOR_DATA_TYPE_UINT8, 1, &n5, NULL);
    CHECK(resample1(DML_OPERATOR_RESAMPLE1, DML_INTERPOLATION_MODE_LINEAR, &I, &O, 1, &one, &mhalf, Z4, u, uy) == S_OK);
    /* 2.5 -> 2, 3.5 -> 4, 4.5 -> 4, 130 -> 130, 255 */
    CHECK(uy[0] == 2 && uy[1] == 4 && uy[2] == 4 && uy[3] == 130 && uy[4] == 255);
    signed char i8[8] = {-3, -2, -1, 126, 127}, i8y[8];
    tens(&I, DML_TENSOR_DATA_TYPE_INT8, 1, &n5, NULL);
    tens(&O, DML_TENSOR_DATA_TYPE_INT8, 1, &n5, NULL);
    CHECK(resample2(DML_OPERATOR_RESAMPLE3, DML_INTERPOLATION_MODE_LINEAR, DML_AXIS_DIRECTION_INCREASING, 1,
                    &I, &O, 1, &one, &mhalf, Z4, i8, i8y) == S_OK);
    /* -2.5 -> -2, -1.5 -> -2, 62.5 -> 62, 126.5 -> 126, 127 */
    CHECK(i8y[0] == -2 && i8y[1] == -2 && i8y[2] == 62 && i8y[3] == 126 && i8y[4] == 127);
    /* Antialiased uint8 8 -> 2: (1.65625, 5.34375) * 10 = 16.5625 -> 17, 53.4375 -> 53. */
    const UINT n8 = 8, n2b = 2;
    unsigned char u8[8] = {0, 10, 20, 30, 40, 50, 60, 70}, u8y[4];
    const float q = 0.25f;
    tens(&I, DML_TENSOR_DATA_TYPE_UINT8, 1, &n8, NULL);
    tens(&O, DML_TENSOR_DATA_TYPE_UINT8, 1, &n2b, NULL);
    CHECK(resample2(DML_OPERATOR_RESAMPLE3, DML_INTERPOLATION_MODE_LINEAR, DML_AXIS_DIRECTION_INCREASING, 1,
                    &I, &O, 1, &q, HI, HO, u8, u8y) == S_OK);
    CHECK(u8y[0] == 17 && u8y[1] == 53);
    /* DML_RESAMPLE takes INT8 too. */
    DML_RESAMPLE_OPERATOR_DESC r0 = {&I.t, &O.t, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR, 1, &q};
    CHECK(run(DML_OPERATOR_RESAMPLE, &r0, u8, 8, u8y, 4) == S_OK);
    /* c = 4o + 1.5 -> floor(c + 0.5) = 2, 6 */
    CHECK(u8y[0] == 20 && u8y[1] == 60);
}

/* Binding offsets and in-place execution. */
static void bindings(void) {
    Tens I, O;
    const UINT n4 = 4, n2 = 2;
    const float s = 0.5f;
    tens(&I, DML_TENSOR_DATA_TYPE_FLOAT32, 1, &n4, NULL);
    tens(&O, DML_TENSOR_DATA_TYPE_FLOAT32, 1, &n2, NULL);
    DML_RESAMPLE2_OPERATOR_DESC d = {&I.t, &O.t, DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR,
                                     DML_AXIS_DIRECTION_INCREASING, 1, &s, HI, HO};
    DML_OPERATOR_DESC od = {DML_OPERATOR_RESAMPLE2, &d};
    DMLOperator *op = NULL;
    CHECK(DMLCreateOperator(&od, &op) == S_OK && op != NULL);
    /* One buffer: input at byte 32, output at byte 64. */
    float buf[24];
    for (int i = 0; i < 24; i++) buf[i] = (float)i;
    DML_BUFFER_BINDING bi = {buf, 32, 16}, bo = {buf, 64, 8};
    CHECK(DMLExecuteOperator(op, 1, &bi, 1, &bo) == S_OK);
    CHECK(buf[16] == 9 && buf[17] == 11 && buf[18] == 18);
    /* In place: output over the input's first bytes. */
    float ip[4] = {1, 2, 3, 4};
    DML_BUFFER_BINDING ii = {ip, 0, 16}, io = {ip, 0, 16};
    CHECK(DMLExecuteOperator(op, 1, &ii, 1, &io) == S_OK);
    CHECK(ip[0] == 2 && ip[1] == 4 && ip[2] == 3 && ip[3] == 4);
    /* Both ranges inside a larger buffer at the same offset: the input is read first. */
    float ov[8] = {0, 0, 0, 0, 5, 6, 7, 8};
    DML_BUFFER_BINDING oi = {ov, 16, 16}, oo = {ov, 16, 8};
    CHECK(DMLExecuteOperator(op, 1, &oi, 1, &oo) == S_OK);
    CHECK(ov[4] == 6 && ov[5] == 8 && ov[6] == 7);
    DMLReleaseOperator(op);
    DMLReleaseOperator(NULL);
}

int main(void) {
    grad_doc_example();
    downsample_examples();
    antialias_example();
    batch_and_channel();
    strides_and_broadcast();
    small_types();
    bindings();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
