// link: -lm -lpthread
/* The native resample_* API: ONNX, PyTorch, DirectML and oneDNN rules, backward,
 * strided views, in-place execution, refusals with messages, concurrent execution. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "resample.h"

static int failures = 0, checks = 0;
#define CHECK(c)                                                              \
  do {                                                                        \
    checks++;                                                                 \
    if (!(c)) {                                                               \
      fprintf(stderr, "%s:%d: CHECK(%s) failed: %s\n", __FILE__, __LINE__, #c, \
              resample_last_error());                                         \
      failures++;                                                             \
    }                                                                         \
  } while (0)

static resample_problem_t problem_2d(int alg, int rule, int64_t ih, int64_t iw, int64_t oh,
                                     int64_t ow) {
  resample_problem_t p;
  memset(&p, 0, sizeof p);
  p.rank = 2;
  p.algorithm = alg;
  p.direction = RESAMPLE_FORWARD;
  p.src_type = p.dst_type = RESAMPLE_F32;
  p.src_dims[0] = ih; p.src_dims[1] = iw;
  p.dst_dims[0] = oh; p.dst_dims[1] = ow;
  p.axes[0].rule = p.axes[1].rule = rule;
  return p;
}

static int run(const resample_problem_t *p, const void *src, size_t sn, void *dst, size_t dn) {
  resample_plan_t *plan = NULL;
  int s = resample_plan_create(&plan, p);
  if (s != RESAMPLE_SUCCESS) return s;
  s = resample_execute(plan, src, sn, dst, dn);
  resample_plan_destroy(plan);
  return s;
}

static void onnx_linear_upsample(void) {
  /* onnx test_resize_upsample_scales_linear (half_pixel). */
  const float x[4] = {1, 2, 3, 4};
  const float want[16] = {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f,
                          2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4};
  float y[16];
  resample_problem_t p = problem_2d(RESAMPLE_LINEAR, RESAMPLE_RULE_ONNX_HALF_PIXEL, 2, 2, 4, 4);
  CHECK(run(&p, x, sizeof x, y, sizeof y) == RESAMPLE_SUCCESS);
  for (int i = 0; i < 16; i++) CHECK(fabsf(y[i] - want[i]) < 1e-6f);
}

static void onnx_nearest_modes(void) {
  /* 1-D, 4 -> 3 asymmetric: x = o * 4/3 = 0, 1.33, 2.67. */
  const float x[4] = {10, 11, 12, 13};
  float y[3];
  resample_problem_t p;
  memset(&p, 0, sizeof p);
  p.rank = 1;
  p.src_type = p.dst_type = RESAMPLE_F32;
  p.src_dims[0] = 4;
  p.dst_dims[0] = 3;
  p.axes[0].rule = RESAMPLE_RULE_ONNX_ASYMMETRIC;
  const int modes[4] = {RESAMPLE_NEAREST_ROUND_PREFER_FLOOR, RESAMPLE_NEAREST_ROUND_PREFER_CEIL,
                        RESAMPLE_NEAREST_FLOOR, RESAMPLE_NEAREST_CEIL};
  const float want[4][3] = {{10, 11, 13}, {10, 11, 13}, {10, 11, 12}, {10, 12, 13}};
  for (int m = 0; m < 4; m++) {
    p.axes[0].nearest_mode = modes[m];
    CHECK(run(&p, x, sizeof x, y, sizeof y) == RESAMPLE_SUCCESS);
    for (int i = 0; i < 3; i++) CHECK(y[i] == want[m][i]);
  }
}

static void torch_rules(void) {
  /* F.interpolate(arange(4), size=8, mode="linear", align_corners=True) = o * 3/7. */
  const float x[4] = {0, 1, 2, 3};
  float y[8];
  resample_problem_t p;
  memset(&p, 0, sizeof p);
  p.rank = 1;
  p.algorithm = RESAMPLE_LINEAR;
  p.src_type = p.dst_type = RESAMPLE_F32;
  p.src_dims[0] = 4;
  p.dst_dims[0] = 8;
  p.axes[0].rule = RESAMPLE_RULE_TORCH_LINEAR_ALIGN_CORNERS;
  CHECK(run(&p, x, sizeof x, y, sizeof y) == RESAMPLE_SUCCESS);
  for (int i = 0; i < 8; i++) CHECK(fabsf(y[i] - i * 3.0f / 7.0f) < 1e-6f);
  /* nearest with scale_factor 2: floor(o * 0.5). */
  p.algorithm = RESAMPLE_NEAREST;
  p.axes[0].rule = RESAMPLE_RULE_TORCH_NEAREST;
  p.axes[0].scale = 2.0;
  CHECK(run(&p, x, sizeof x, y, sizeof y) == RESAMPLE_SUCCESS);
  for (int i = 0; i < 8; i++) CHECK(y[i] == (float)(i / 2));
  /* linear rules refuse nearest. */
  p.axes[0].rule = RESAMPLE_RULE_TORCH_LINEAR;
  CHECK(run(&p, x, sizeof x, y, sizeof y) == RESAMPLE_INVALID_ARGUMENT);
}

static void antialias_and_backward(void) {
  /* Antialiased 8 -> 2 (ONNX half_pixel): tent of half-width 4, mean-preserving. */
  float x[8], y[2], g[8];
  for (int i = 0; i < 8; i++) x[i] = (float)i;
  resample_problem_t p;
  memset(&p, 0, sizeof p);
  p.rank = 1;
  p.algorithm = RESAMPLE_ANTIALIAS;
  p.src_type = p.dst_type = RESAMPLE_F32;
  p.src_dims[0] = 8;
  p.dst_dims[0] = 2;
  p.axes[0].rule = RESAMPLE_RULE_ONNX_HALF_PIXEL;
  CHECK(run(&p, x, sizeof x, y, sizeof y) == RESAMPLE_SUCCESS);
  CHECK(fabsf(y[0] - 1.65625f) < 1e-5f && fabsf(y[1] - 5.34375f) < 1e-5f);
  /* Backward of the same: the adjoint. Sum of gradients equals sum of weights * dy. */
  p.direction = RESAMPLE_BACKWARD;
  p.src_dims[0] = 2;
  p.dst_dims[0] = 8;
  float dy[2] = {1, 1};
  CHECK(run(&p, dy, sizeof dy, g, sizeof g) == RESAMPLE_SUCCESS);
  float sum = 0;
  for (int i = 0; i < 8; i++) sum += g[i];
  CHECK(fabsf(sum - 2.0f) < 1e-5f);
  /* oneDNN and PyTorch rules have no antialias. */
  p.direction = RESAMPLE_FORWARD;
  p.src_dims[0] = 8;
  p.dst_dims[0] = 2;
  p.axes[0].rule = RESAMPLE_RULE_ONEDNN;
  CHECK(run(&p, x, sizeof x, y, sizeof y) == RESAMPLE_UNSUPPORTED);
  CHECK(strlen(resample_last_error()) > 0);
}

static void strided_u8_and_inplace(void) {
  /* Resample axis 1 of a 2x4 u8 view whose rows are 6 apart, into an f32 column-major dst. */
  const uint8_t x[12] = {0, 10, 20, 30, 99, 99, 40, 50, 60, 70, 99, 99};
  float y[4];
  resample_problem_t p;
  memset(&p, 0, sizeof p);
  p.rank = 2;
  p.algorithm = RESAMPLE_NEAREST;
  p.src_type = RESAMPLE_U8;
  p.dst_type = RESAMPLE_F32;
  p.src_dims[0] = 2; p.src_dims[1] = 4;
  p.src_strides[0] = 6; p.src_strides[1] = 1;
  p.dst_dims[0] = 2; p.dst_dims[1] = 2;
  p.dst_strides[0] = 1; p.dst_strides[1] = 2;
  p.axes[1].rule = RESAMPLE_RULE_ONNX_ASYMMETRIC; /* x = 2 * o */
  CHECK(run(&p, x, sizeof x, y, sizeof y) == RESAMPLE_SUCCESS);
  CHECK(y[0] == 0 && y[1] == 40 && y[2] == 20 && y[3] == 60);
  /* In place: src and dst share a buffer. */
  float buf[4] = {1, 2, 3, 4};
  resample_problem_t q;
  memset(&q, 0, sizeof q);
  q.rank = 1;
  q.src_type = q.dst_type = RESAMPLE_F32;
  q.src_dims[0] = 4;
  q.dst_dims[0] = 4;
  q.axes[0].rule = RESAMPLE_RULE_ONNX_HALF_PIXEL;
  q.axes[0].scale = 1.0;
  CHECK(run(&q, buf, sizeof buf, buf, sizeof buf) == RESAMPLE_SUCCESS);
  CHECK(buf[0] == 1 && buf[3] == 4);
  /* Overlapping dst strides are refused. */
  p.dst_strides[0] = 1; p.dst_strides[1] = 1;
  CHECK(run(&p, x, sizeof x, y, sizeof y) == RESAMPLE_INVALID_ARGUMENT);
}

static void refusals(void) {
  resample_plan_t *plan = (resample_plan_t *)1;
  CHECK(resample_plan_create(&plan, NULL) == RESAMPLE_INVALID_ARGUMENT && plan == NULL);
  CHECK(resample_plan_create(NULL, NULL) == RESAMPLE_INVALID_ARGUMENT);
  resample_problem_t p = problem_2d(RESAMPLE_LINEAR, RESAMPLE_RULE_ONNX_TF_CROP_AND_RESIZE, 2, 2,
                                    4, 4);
  CHECK(resample_plan_create(&plan, &p) == RESAMPLE_UNSUPPORTED);
  CHECK(strstr(resample_last_error(), "tf_crop_and_resize") != NULL);
  p = problem_2d(RESAMPLE_LINEAR, RESAMPLE_RULE_IDENTITY, 2, 2, 4, 4);
  CHECK(resample_plan_create(&plan, &p) == RESAMPLE_INVALID_ARGUMENT);
  p = problem_2d(7, RESAMPLE_RULE_ONEDNN, 2, 2, 4, 4);
  CHECK(resample_plan_create(&plan, &p) == RESAMPLE_INVALID_ARGUMENT);
  p = problem_2d(RESAMPLE_LINEAR, RESAMPLE_RULE_ONEDNN, 2, 2, 4, 4);
  p.rank = 6;
  CHECK(resample_plan_create(&plan, &p) == RESAMPLE_INVALID_ARGUMENT);
  p.rank = 2;
  p.src_strides[0] = -2; p.src_strides[1] = 1;
  CHECK(resample_plan_create(&plan, &p) == RESAMPLE_INVALID_ARGUMENT);
  p.src_strides[0] = 0; p.src_strides[1] = 0;
  CHECK(resample_plan_create(&plan, &p) == RESAMPLE_SUCCESS);
  CHECK(resample_plan_src_bytes(plan) == 16 && resample_plan_dst_bytes(plan) == 64);
  float x[4] = {0}, y[16];
  CHECK(resample_execute(plan, x, 15, y, sizeof y) == RESAMPLE_INVALID_ARGUMENT);
  CHECK(resample_execute(plan, NULL, 16, y, sizeof y) == RESAMPLE_INVALID_ARGUMENT);
  CHECK(resample_execute(NULL, x, 16, y, sizeof y) == RESAMPLE_INVALID_ARGUMENT);
  CHECK(strcmp(resample_status_string(RESAMPLE_UNSUPPORTED), "unsupported") == 0);
  resample_plan_destroy(plan);
  resample_plan_destroy(NULL);
}

/* One plan, several threads at once. */
static resample_plan_t *shared;
static float big_src[64 * 64];
static void *worker(void *arg) {
  float *dst = (float *)arg;
  for (int k = 0; k < 20; k++)
    if (resample_execute(shared, big_src, sizeof big_src, dst, 37 * 53 * sizeof(float)) != 0)
      return (void *)1;
  return NULL;
}

static void threads(void) {
  for (int i = 0; i < 64 * 64; i++) big_src[i] = (float)(i % 97);
  resample_problem_t p = problem_2d(RESAMPLE_LINEAR, RESAMPLE_RULE_ONNX_HALF_PIXEL, 64, 64, 37, 53);
  CHECK(resample_plan_create(&shared, &p) == RESAMPLE_SUCCESS);
  static float out[4][37 * 53];
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, worker, out[i]);
  for (int i = 0; i < 4; i++) {
    void *r;
    pthread_join(t[i], &r);
    CHECK(r == NULL);
  }
  for (int i = 1; i < 4; i++) CHECK(memcmp(out[0], out[i], sizeof out[0]) == 0);
  resample_plan_destroy(shared);
}

int main(void) {
  onnx_linear_upsample();
  onnx_nearest_modes();
  torch_rules();
  antialias_and_backward();
  strided_u8_and_inplace();
  refusals();
  threads();
  if (failures) {
    fprintf(stderr, "%d passed, %d failed\n", checks - failures, failures);
    return 1;
  }
  printf("%d passed, 0 failed\n", checks);
  return 0;
}
