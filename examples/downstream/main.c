/* A downstream program: shrinks a 4x4 image to 2x2 with antialiasing through the native API.
 * Built in CI against an installed prefix, once with find_package(resample) and once with
 * pkg-config. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <resample.h>

int main(void) {
  float src[16], dst[4];
  for (int i = 0; i < 16; i++) src[i] = (float)i;

  resample_problem_t p;
  memset(&p, 0, sizeof p);
  p.rank = 2;
  p.algorithm = RESAMPLE_ANTIALIAS;
  p.src_type = p.dst_type = RESAMPLE_F32;
  p.src_dims[0] = p.src_dims[1] = 4;
  p.dst_dims[0] = p.dst_dims[1] = 2;
  p.axes[0].rule = p.axes[1].rule = RESAMPLE_RULE_ONNX_HALF_PIXEL;

  resample_plan_t *plan;
  if (resample_plan_create(&plan, &p) != RESAMPLE_SUCCESS ||
      resample_execute(plan, src, sizeof src, dst, sizeof dst) != RESAMPLE_SUCCESS) {
    fprintf(stderr, "resample: %s\n", resample_last_error());
    return 1;
  }
  resample_plan_destroy(plan);
  /* The tent over a linear ramp keeps it linear and symmetric about the centre. */
  if (fabsf(dst[0] + dst[3] - 15.0f) > 1e-4f || fabsf(dst[1] + dst[2] - 15.0f) > 1e-4f) {
    fprintf(stderr, "unexpected result %g %g %g %g\n", dst[0], dst[1], dst[2], dst[3]);
    return 1;
  }
  printf("libresample %s: %g %g / %g %g\n", resample_version_string(), dst[0], dst[1], dst[2],
         dst[3]);
  return 0;
}
