/* Differential smoke: built against the REAL /usr/include/oneapi/dnnl/dnnl.h, linked with
 * -ldnnl or -lresample; prints md layouts for every tag and resampling outputs. */
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define CK(x) do { dnnl_status_t s_ = (x); if (s_ != dnnl_success) { printf("ERR %d at %s\n", s_, #x); return s_; } } while (0)

static dnnl_engine_t eng; static dnnl_stream_t st;

static void dump_md(const char *what, const dnnl_memory_desc_t *m) {
  printf("%s nd=%d dt=%d fk=%d off0=%lld size=%zu dims", what, m->ndims, m->data_type, m->format_kind, (long long)m->offset0, dnnl_memory_desc_get_size(m));
  for (int i = 0; i < m->ndims; i++) printf(" %lld", (long long)m->dims[i]);
  printf(" pad"); for (int i = 0; i < m->ndims; i++) printf(" %lld", (long long)m->padded_dims[i]);
  printf(" str"); for (int i = 0; i < m->ndims; i++) printf(" %lld", (long long)m->format_desc.blocking.strides[i]);
  printf(" blk %d:", m->format_desc.blocking.inner_nblks);
  for (int i = 0; i < m->format_desc.blocking.inner_nblks; i++) printf(" %lld@%lld", (long long)m->format_desc.blocking.inner_blks[i], (long long)m->format_desc.blocking.inner_idxs[i]);
  printf("\n");
}

static uint32_t rng = 12345;
static uint32_t nxt(void) { rng = rng * 1103515245u + 12345u; return rng >> 8; }

static void fill(void *p, size_t bytes, dnnl_data_type_t dt) {
  size_t es = dnnl_data_type_size(dt), n = bytes / es;
  for (size_t i = 0; i < n; i++) {
    float v = (float)((int)(nxt() % 2001) - 1000) / 37.f;
    switch (dt) {
      case dnnl_f32: ((float*)p)[i] = v; break;
      case dnnl_bf16: { uint32_t b; memcpy(&b, &v, 4); ((uint16_t*)p)[i] = b >> 16; } break;
      case dnnl_s32: ((int32_t*)p)[i] = (int32_t)(v * 1000); break;
      case dnnl_s8: ((int8_t*)p)[i] = (int8_t)(nxt() % 256); break;
      case dnnl_u8: ((uint8_t*)p)[i] = (uint8_t)(nxt() % 256); break;
      default: ((uint8_t*)p)[i * es] = 0; break;
    }
  }
}

static double getv(const void *p, size_t i, dnnl_data_type_t dt) {
  switch (dt) {
    case dnnl_f32: return ((const float*)p)[i];
    case dnnl_bf16: { uint32_t b = (uint32_t)((const uint16_t*)p)[i] << 16; float f; memcpy(&f, &b, 4); return f; }
    case dnnl_s32: return ((const int32_t*)p)[i];
    case dnnl_s8: return ((const int8_t*)p)[i];
    case dnnl_u8: return ((const uint8_t*)p)[i];
    default: return 0;
  }
}

/* one case: nd dims, src dims, dst dims, tag, dts, alg, dir; dst given with same tag or any */
static int run_case(int nd, const dnnl_dim_t *sd, const dnnl_dim_t *dd, dnnl_format_tag_t stag, dnnl_format_tag_t dtag,
                    dnnl_data_type_t sdt, dnnl_data_type_t ddt, dnnl_alg_kind_t alg, int bwd, const float *factors) {
  dnnl_memory_desc_t smd, dmd; dnnl_resampling_desc_t rd; dnnl_primitive_desc_t pd, fpd = NULL; dnnl_primitive_t pr;
  /* Each case's input depends on its index only: a case one library refuses (bf16 without
     AVX-512 in libdnnl) must not shift the inputs of the cases after it. */
  static uint32_t ncase = 0;
  rng = 12345u + 2654435761u * ++ncase;
  printf("CASE nd=%d alg=%s bwd=%d sdt=%d ddt=%d stag=%d dtag=%d dims", nd, alg == dnnl_resampling_linear ? "linear" : "nearest", bwd, sdt, ddt, stag, dtag);
  for (int i = 0; i < nd; i++) printf(" %lld>%lld", (long long)sd[i], (long long)dd[i]);
  printf("\n");
  if (!bwd) {
    CK(dnnl_memory_desc_init_by_tag(&smd, nd, sd, sdt, stag));
    CK(dnnl_memory_desc_init_by_tag(&dmd, nd, dd, ddt, dtag));
    CK(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, alg, factors, &smd, factors ? NULL : &dmd));
    printf("factors %a %a %a\n", rd.factors[0], rd.factors[1], rd.factors[2]);
    dnnl_status_t s = dnnl_primitive_desc_create(&pd, &rd, NULL, eng, NULL);
    if (s) { printf("pd status %d\n", s); return 0; }
  } else {
    /* sd = diff_src (fwd input) dims, dd = diff_dst dims; fwd hint with dst any */
    dnnl_memory_desc_t fs, fd; dnnl_resampling_desc_t frd;
    CK(dnnl_memory_desc_init_by_tag(&fs, nd, sd, ddt, stag));
    CK(dnnl_memory_desc_init_by_tag(&fd, nd, dd, sdt, dnnl_format_tag_any));
    CK(dnnl_resampling_forward_desc_init(&frd, dnnl_forward_training, alg, NULL, &fs, &fd));
    CK(dnnl_primitive_desc_create(&fpd, &frd, NULL, eng, NULL));
    CK(dnnl_memory_desc_init_by_tag(&smd, nd, sd, ddt, dtag));          /* diff_src */
    CK(dnnl_memory_desc_init_by_tag(&dmd, nd, dd, sdt, dnnl_format_tag_any)); /* diff_dst any -> hint */
    CK(dnnl_resampling_backward_desc_init(&rd, alg, NULL, &smd, &dmd));
    dnnl_status_t s = dnnl_primitive_desc_create(&pd, &rd, NULL, eng, fpd);
    if (s) { printf("pd status %d\n", s); return 0; }
  }
  const dnnl_memory_desc_t *in_md = dnnl_primitive_desc_query_md(pd, bwd ? dnnl_query_diff_dst_md : dnnl_query_src_md, 0);
  const dnnl_memory_desc_t *out_md = dnnl_primitive_desc_query_md(pd, bwd ? dnnl_query_diff_src_md : dnnl_query_dst_md, 0);
  dump_md("in", in_md); dump_md("out", out_md);
  printf("nin %d nout %d\n", dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0), dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_outputs_s32, 0));
  CK(dnnl_primitive_create(&pr, pd));
  dnnl_memory_t im, om;
  CK(dnnl_memory_create(&im, in_md, eng, DNNL_MEMORY_ALLOCATE));
  CK(dnnl_memory_create(&om, out_md, eng, DNNL_MEMORY_ALLOCATE));
  void *ip, *op; CK(dnnl_memory_get_data_handle(im, &ip)); CK(dnnl_memory_get_data_handle(om, &op));
  size_t isz = dnnl_memory_desc_get_size(in_md), osz = dnnl_memory_desc_get_size(out_md);
  fill(ip, isz, in_md->data_type);
  memset(op, 0, osz);
  dnnl_exec_arg_t args[2] = {{bwd ? DNNL_ARG_DIFF_DST : DNNL_ARG_SRC, im}, {bwd ? DNNL_ARG_DIFF_SRC : DNNL_ARG_DST, om}};
  CK(dnnl_primitive_execute(pr, st, 2, args));
  CK(dnnl_stream_wait(st));
  /* print logical elements in logical order (n-major), reading via strides/blocks */
  const dnnl_memory_desc_t *m = out_md; const dnnl_blocking_desc_t *b = &m->format_desc.blocking;
  dnnl_dim_t idx[5] = {0}; size_t total = 1; for (int i = 0; i < nd; i++) total *= (size_t)m->dims[i];
  printf("VALUES %s %d %zu\n", alg == dnnl_resampling_linear ? "linear" : "nearest", out_md->data_type, total);
  for (size_t e = 0; e < total; e++) {
    size_t r = e; for (int i = nd - 1; i >= 0; i--) { idx[i] = r % m->dims[i]; r /= m->dims[i]; }
    dnnl_dim_t off = m->offset0; dnnl_dim_t blk[5] = {1,1,1,1,1};
    for (int k = 0; k < b->inner_nblks; k++) blk[b->inner_idxs[k]] *= b->inner_blks[k];
    for (int i = 0; i < nd; i++) off += (idx[i] / blk[i]) * b->strides[i];
    dnnl_dim_t in_off = 0, mult = 1;
    for (int k = b->inner_nblks - 1; k >= 0; k--) { int d = (int)b->inner_idxs[k]; in_off += (idx[d] % b->inner_blks[k]) * mult; mult *= b->inner_blks[k]; }
    printf("%a\n", getv(op, (size_t)(off + in_off), out_md->data_type));
  }
  dnnl_memory_destroy(im); dnnl_memory_destroy(om); dnnl_primitive_destroy(pr); dnnl_primitive_desc_destroy(pd);
  if (fpd) dnnl_primitive_desc_destroy(fpd);
  return 0;
}

int main(void) {
  setvbuf(stdout, NULL, _IOFBF, 1 << 20);
  CK(dnnl_engine_create(&eng, dnnl_cpu, 0)); CK(dnnl_stream_create(&st, eng, dnnl_stream_default_flags));
  const dnnl_version_t *v = dnnl_version(); printf("version %d.%d.%d\n", v->major, v->minor, v->patch);
  /* every tag: md layout */
  for (int tag = 2; tag < 514; tag++) {
    for (int nd = 1; nd <= 6; nd++) {
      dnnl_dims_t dims = {2, 19, 5, 7, 3, 6}; dnnl_memory_desc_t md;
      dnnl_status_t s = dnnl_memory_desc_init_by_tag(&md, nd, dims, dnnl_f32, tag);
      if (s == dnnl_success) { printf("tag %d ", tag); dump_md("md", &md); }
      dims[0] = 0;
      s = dnnl_memory_desc_init_by_tag(&md, nd, dims, dnnl_bf16, tag);
      if (s == dnnl_success) { printf("tag0 %d ", tag); dump_md("md", &md); }
    }
  }
  /* resampling cases */
  const dnnl_data_type_t dts[] = {dnnl_f32, dnnl_bf16, dnnl_s32, dnnl_s8, dnnl_u8};
  struct { int nd; dnnl_dim_t s[5], d[5]; } shapes[] = {
    {3, {2, 3, 3}, {2, 3, 5}}, {3, {2, 3, 21}, {2, 3, 13}}, {3, {1, 17, 4}, {1, 17, 6}},
    {4, {2, 5, 4, 7}, {2, 5, 9, 3}}, {4, {1, 19, 5, 5}, {1, 19, 10, 11}}, {4, {2, 16, 6, 4}, {2, 16, 3, 8}},
    {5, {1, 3, 2, 3, 4}, {1, 3, 4, 5, 3}}, {4, {1, 1, 3, 1}, {1, 1, 5, 4}}, {4, {2, 1, 1, 3}, {2, 1, 4, 1}}, {3, {1, 1, 1}, {1, 1, 3}}, {5, {1, 2, 1, 3, 1}, {1, 2, 3, 1, 2}}, {5, {2, 20, 3, 4, 2}, {2, 20, 2, 6, 5}},
  };
  const dnnl_format_tag_t tags3[] = {dnnl_ncw, dnnl_nwc, dnnl_nCw8c, dnnl_nCw16c};
  const dnnl_format_tag_t tags4[] = {dnnl_nchw, dnnl_nhwc, dnnl_nChw8c, dnnl_nChw16c};
  const dnnl_format_tag_t tags5[] = {dnnl_ncdhw, dnnl_ndhwc, dnnl_nCdhw8c, dnnl_nCdhw16c};
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
    int nd = shapes[si].nd;
    const dnnl_format_tag_t *tags = nd == 3 ? tags3 : nd == 4 ? tags4 : tags5;
    for (int ti = 0; ti < 4; ti++)
      for (int alg = 0; alg < 2; alg++)
        for (int bwd = 0; bwd < 2; bwd++) {
          dnnl_alg_kind_t a = alg ? dnnl_resampling_linear : dnnl_resampling_nearest;
          run_case(nd, shapes[si].s, shapes[si].d, tags[ti], dnnl_format_tag_any, dnnl_f32, dnnl_f32, a, bwd, NULL);
          run_case(nd, shapes[si].s, shapes[si].d, tags[ti], tags[(ti + 1) % 4], dnnl_f32, dnnl_f32, a, bwd, NULL);
          for (int i = 0; i < 5; i++) run_case(nd, shapes[si].s, shapes[si].d, tags[ti], tags[ti], dts[(si + ti + i) % 5], dts[(si + i * 2 + alg) % 5], a, bwd, NULL);
        }
  }
  float f1[] = {1.5f}, f2[] = {0.33f, 2.5f}, f3[] = {2.f, 0.5f, 1.75f};
  dnnl_dim_t s3[] = {2, 3, 10}, s4[] = {1, 2, 10, 3}, s5[] = {1, 2, 4, 6, 4};
  run_case(3, s3, s3, dnnl_ncw, dnnl_format_tag_any, dnnl_f32, dnnl_f32, dnnl_resampling_linear, 0, f1);
  run_case(4, s4, s4, dnnl_nhwc, dnnl_format_tag_any, dnnl_f32, dnnl_f32, dnnl_resampling_nearest, 0, f2);
  run_case(5, s5, s5, dnnl_nCdhw8c, dnnl_format_tag_any, dnnl_f32, dnnl_f32, dnnl_resampling_linear, 0, f3);
  return 0;
}
