/* Blocked layouts, differential (run.sh): built against the REAL oneDNN 2.6.3 header, linked
 * with -ldnnl or -lresample. For aBx4b/8b/16b/32b src tags (3D/4D/5D), channel counts that
 * are not multiples of the block (C = 1, 3, 17, 33 and exact multiples), forward and
 * backward, nearest and linear, and pds created from dims, from factors only (dst NULL)
 * and with dst / diff_src = format_tag_any, it prints the resolved mds (with
 * dnnl_memory_desc_get_size) and every element of the padded output buffer, padding lanes
 * included. Inputs are zero in their padding (the oneDNN contract) and outputs start at
 * zero, so libdnnl's jit (which computes padded lanes from the padded input lanes) and its
 * ref:any (which leaves them) both show zeros there. Output format as smoke.c, compared by
 * compare_tolerant.py. */
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

/* element offset of an index in a blocked md (one inner block per dim here) */
static dnnl_dim_t off_of(const dnnl_memory_desc_t *m, const dnnl_dim_t *idx) {
  const dnnl_blocking_desc_t *b = &m->format_desc.blocking;
  dnnl_dim_t off = m->offset0, blk[5] = {1, 1, 1, 1, 1}, mult = 1;
  for (int k = 0; k < b->inner_nblks; k++) blk[b->inner_idxs[k]] *= b->inner_blks[k];
  for (int i = 0; i < m->ndims; i++) off += (idx[i] / blk[i]) * b->strides[i];
  for (int k = b->inner_nblks - 1; k >= 0; k--) { int d = (int)b->inner_idxs[k]; off += (idx[d] % b->inner_blks[k]) * mult; mult *= b->inner_blks[k]; }
  return off;
}

/* fwd: sd = src dims, dd = dst dims (NULL dst with factors when `factors`); dtag may be any.
 * bwd: sd = diff_src dims (tag dtag, may be any), dd = diff_dst dims (tag stag) */
static int run_case(int nd, const dnnl_dim_t *sd, const dnnl_dim_t *dd, dnnl_format_tag_t stag, dnnl_format_tag_t dtag,
                    dnnl_data_type_t sdt, dnnl_data_type_t ddt, dnnl_alg_kind_t alg, int bwd, const float *factors) {
  dnnl_memory_desc_t smd, dmd; dnnl_resampling_desc_t rd; dnnl_primitive_desc_t pd, fpd = NULL; dnnl_primitive_t pr;
  /* Each case's input depends on its index only (see smoke.c). */
  static uint32_t ncase = 0;
  rng = 12345u + 2654435761u * ++ncase;
  printf("CASE nd=%d alg=%s bwd=%d sdt=%d ddt=%d stag=%d dtag=%d factors=%d dims", nd, alg == dnnl_resampling_linear ? "linear" : "nearest", bwd, sdt, ddt, stag, dtag, factors != NULL);
  for (int i = 0; i < nd; i++) printf(" %lld>%lld", (long long)sd[i], (long long)dd[i]);
  printf("\n");
  if (!bwd) {
    CK(dnnl_memory_desc_init_by_tag(&smd, nd, sd, sdt, stag));
    CK(dnnl_memory_desc_init_by_tag(&dmd, nd, dd, ddt, dtag));
    CK(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, alg, factors, &smd, factors ? NULL : &dmd));
    dnnl_status_t s = dnnl_primitive_desc_create(&pd, &rd, NULL, eng, NULL);
    if (s) { printf("pd status %d\n", s); return 0; }
  } else {
    dnnl_memory_desc_t fs, fd; dnnl_resampling_desc_t frd;
    CK(dnnl_memory_desc_init_by_tag(&fs, nd, sd, ddt, stag));
    CK(dnnl_memory_desc_init_by_tag(&fd, nd, dd, sdt, dnnl_format_tag_any));
    CK(dnnl_resampling_forward_desc_init(&frd, dnnl_forward_training, alg, NULL, &fs, &fd));
    CK(dnnl_primitive_desc_create(&fpd, &frd, NULL, eng, NULL));
    CK(dnnl_memory_desc_init_by_tag(&smd, nd, sd, ddt, dtag));  /* diff_src (maybe any) */
    CK(dnnl_memory_desc_init_by_tag(&dmd, nd, dd, sdt, stag));  /* diff_dst */
    CK(dnnl_resampling_backward_desc_init(&rd, alg, NULL, &smd, &dmd));
    dnnl_status_t s = dnnl_primitive_desc_create(&pd, &rd, NULL, eng, fpd);
    if (s) { printf("pd status %d\n", s); dnnl_primitive_desc_destroy(fpd); return 0; }
  }
  const dnnl_memory_desc_t *in_md = dnnl_primitive_desc_query_md(pd, bwd ? dnnl_query_diff_dst_md : dnnl_query_src_md, 0);
  const dnnl_memory_desc_t *out_md = dnnl_primitive_desc_query_md(pd, bwd ? dnnl_query_diff_src_md : dnnl_query_dst_md, 0);
  dump_md("in", in_md); dump_md("out", out_md);
  CK(dnnl_primitive_create(&pr, pd));
  dnnl_memory_t im, om;
  CK(dnnl_memory_create(&im, in_md, eng, DNNL_MEMORY_ALLOCATE));
  CK(dnnl_memory_create(&om, out_md, eng, DNNL_MEMORY_ALLOCATE));
  void *ip, *op; CK(dnnl_memory_get_data_handle(im, &ip)); CK(dnnl_memory_get_data_handle(om, &op));
  size_t isz = dnnl_memory_desc_get_size(in_md), osz = dnnl_memory_desc_get_size(out_md);
  /* random logical elements, zero padding */
  size_t es = dnnl_data_type_size(in_md->data_type);
  unsigned char *tmp = malloc(isz + 1);
  fill(tmp, isz, in_md->data_type);
  memset(ip, 0, isz);
  dnnl_dim_t idx[5] = {0}; size_t n = 1;
  for (int i = 0; i < nd; i++) n *= (size_t)in_md->dims[i];
  for (size_t e = 0; e < n; e++) {
    size_t r = e; for (int i = nd - 1; i >= 0; i--) { idx[i] = r % in_md->dims[i]; r /= in_md->dims[i]; }
    dnnl_dim_t o = off_of(in_md, idx);
    memcpy((char *)ip + o * es, tmp + o * es, es);
  }
  free(tmp);
  memset(op, 0, osz);
  dnnl_exec_arg_t args[2] = {{bwd ? DNNL_ARG_DIFF_DST : DNNL_ARG_SRC, im}, {bwd ? DNNL_ARG_DIFF_SRC : DNNL_ARG_DST, om}};
  CK(dnnl_primitive_execute(pr, st, 2, args));
  CK(dnnl_stream_wait(st));
  /* every padded element, in padded logical order */
  const dnnl_memory_desc_t *m = out_md;
  size_t total = 1; for (int i = 0; i < nd; i++) total *= (size_t)m->padded_dims[i];
  printf("VALUES %s %d %zu\n", alg == dnnl_resampling_linear ? "linear" : "nearest", out_md->data_type, total);
  for (size_t e = 0; e < total; e++) {
    size_t r = e; for (int i = nd - 1; i >= 0; i--) { idx[i] = r % m->padded_dims[i]; r /= m->padded_dims[i]; }
    printf("%a\n", getv(op, (size_t)off_of(m, idx), out_md->data_type));
  }
  dnnl_memory_destroy(im); dnnl_memory_destroy(om); dnnl_primitive_destroy(pr); dnnl_primitive_desc_destroy(pd);
  if (fpd) dnnl_primitive_desc_destroy(fpd);
  return 0;
}

int main(void) {
  setvbuf(stdout, NULL, _IOFBF, 1 << 20);
  CK(dnnl_engine_create(&eng, dnnl_cpu, 0)); CK(dnnl_stream_create(&st, eng, dnnl_stream_default_flags));
  const dnnl_format_tag_t t3[] = {dnnl_aBc4b, dnnl_aBc8b, dnnl_aBc16b, dnnl_aBc32b};
  const dnnl_format_tag_t t4[] = {dnnl_aBcd4b, dnnl_aBcd8b, dnnl_aBcd16b, dnnl_aBcd32b};
  const dnnl_format_tag_t t5[] = {dnnl_aBcde4b, dnnl_aBcde8b, dnnl_aBcde16b, dnnl_aBcde32b};
  const dnnl_format_tag_t plain[] = {0, 0, 0, dnnl_ncw, dnnl_nchw, dnnl_ncdhw};
  const dnnl_data_type_t dts[] = {dnnl_f32, dnnl_bf16, dnnl_s8, dnnl_u8, dnnl_s32};
  const dnnl_dim_t cs[] = {1, 3, 16, 17, 33};
  int k = 0;
  for (int nd = 3; nd <= 5; nd++)
    for (int ti = 0; ti < 4; ti++)
      for (int ci = 0; ci < 5; ci++)
        for (int bwd = 0; bwd < 2; bwd++)
          for (int alg = 0; alg < 2; alg++) {
            dnnl_format_tag_t tag = nd == 3 ? t3[ti] : nd == 4 ? t4[ti] : t5[ti];
            dnnl_dim_t sd[5] = {2, cs[ci], 3, 4, 5}, dd[5] = {2, cs[ci], 5, 3, 4};
            if (nd == 3) { sd[2] = 5; dd[2] = 7; }
            if (nd == 4) { sd[2] = 3; sd[3] = 4; dd[2] = 4; dd[3] = 7; }
            if (nd == 5) { sd[2] = 2; sd[3] = 3; sd[4] = 2; dd[2] = 3; dd[3] = 2; dd[4] = 3; }
            dnnl_alg_kind_t a = alg ? dnnl_resampling_linear : dnnl_resampling_nearest;
            dnnl_data_type_t sdt = dts[k % 5], ddt = dts[(k / 5 + k) % 5];
            k++;
            /* dst / diff_src: same tag, any, plain */
            run_case(nd, sd, dd, tag, tag, sdt, ddt, a, bwd, NULL);
            run_case(nd, sd, dd, tag, dnnl_format_tag_any, dnnl_f32, dnnl_f32, a, bwd, NULL);
            run_case(nd, sd, dd, tag, plain[nd], dnnl_f32, dnnl_f32, a, bwd, NULL);
            if (!bwd) {
              /* factors only: dst dims from src * factor, dst format any */
              float f[3] = {1.5f, 0.5f, 2.f};
              run_case(nd, sd, dd, tag, dnnl_format_tag_any, sdt, sdt, a, 0, f);
            }
          }
  return 0;
}
