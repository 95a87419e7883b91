/*
 * verbose3.c — primitives whose ONEDNN_VERBOSE=1 lines crates/dnnl3/tests/dnnl3_c.rs
 * compares between the real libdnnl.so.3 and this project's (implementation name and time
 * masked): memory descriptor strings (plain, strided, user `any`, padded blocked), the
 * attribute string (scratchpad, fpmath, every post-op kind), forward and backward.
 */
#include <stdio.h>
#include <oneapi/dnnl/dnnl.h>
static dnnl_engine_t e; static dnnl_stream_t s;
static void go(dnnl_memory_desc_t src, dnnl_memory_desc_t dst, dnnl_primitive_attr_t a, int fwd, int alg) {
  dnnl_primitive_desc_t pd; int st = fwd ? dnnl_resampling_forward_primitive_desc_create(&pd,e,dnnl_forward_training,alg,NULL,src,dst,a)
    : dnnl_resampling_backward_primitive_desc_create(&pd,e,alg,NULL,src,dst,NULL,a);
  if (st) { printf("pd %d\n", st); return; }
  dnnl_primitive_t p; dnnl_primitive_create(&p,pd);
  const_dnnl_memory_desc_t im = dnnl_primitive_desc_query_md(pd, fwd?dnnl_query_src_md:dnnl_query_diff_dst_md,0);
  const_dnnl_memory_desc_t om = dnnl_primitive_desc_query_md(pd, fwd?dnnl_query_dst_md:dnnl_query_diff_src_md,0);
  dnnl_memory_t mi, mo; dnnl_memory_create(&mi,im,e,DNNL_MEMORY_ALLOCATE); dnnl_memory_create(&mo,om,e,DNNL_MEMORY_ALLOCATE);
  dnnl_memory_t mb = NULL; const_dnnl_memory_desc_t bmd = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_ATTR_MULTIPLE_POST_OP(4)|DNNL_ARG_SRC_1);
  int nd = 0; if (bmd) dnnl_memory_desc_query(bmd, dnnl_query_ndims_s32, &nd);
  if (nd) dnnl_memory_create(&mb, bmd, e, DNNL_MEMORY_ALLOCATE);
  dnnl_exec_arg_t args[3]={{fwd?DNNL_ARG_SRC:DNNL_ARG_DIFF_DST,mi},{fwd?DNNL_ARG_DST:DNNL_ARG_DIFF_SRC,mo},{DNNL_ARG_ATTR_MULTIPLE_POST_OP(4)|DNNL_ARG_SRC_1,mb}};
  printf("exec %d\n", dnnl_primitive_execute(p,s,nd?3:2,args)); dnnl_stream_wait(s);
  dnnl_primitive_destroy(p); dnnl_primitive_desc_destroy(pd); dnnl_memory_destroy(mi); dnnl_memory_destroy(mo);
}
int main(){
  setvbuf(stdout, NULL, _IONBF, 0); /* the library may write its lines to fd 1 directly */
  dnnl_engine_create(&e,dnnl_cpu,0); dnnl_stream_create(&s,e,dnnl_stream_default_flags);
  dnnl_dims_t d={2,3,4,5}, o={2,3,6,7}, st={100,1,20,3};
  dnnl_memory_desc_t a,b,c,any,blk;
  dnnl_memory_desc_create_with_tag(&a,4,d,dnnl_f32,dnnl_nchw);
  dnnl_memory_desc_create_with_tag(&b,4,o,dnnl_f32,dnnl_nhwc);
  dnnl_memory_desc_create_with_strides(&c,4,d,dnnl_f32,st);
  /* u8, not bf16: the real library refuses bf16 on CPUs without AVX-512 (its line would
     then be `pd 3` on such a machine and a verbose line here). */
  dnnl_memory_desc_create_with_tag(&any,4,o,dnnl_u8,dnnl_format_tag_any);
  dnnl_memory_desc_create_with_tag(&blk,4,o,dnnl_s8,dnnl_nChw16c);
  dnnl_primitive_attr_t at; dnnl_primitive_attr_create(&at);
  go(a,b,at,1,dnnl_resampling_linear);
  go(c,any,at,1,dnnl_resampling_nearest);
  go(a,blk,at,1,dnnl_resampling_nearest);
  dnnl_post_ops_t po; dnnl_post_ops_create(&po);
  dnnl_post_ops_append_sum(po, 0.5f, 0, dnnl_data_type_undef);
  dnnl_post_ops_append_sum(po, 1.f, 2, dnnl_f32);
  dnnl_post_ops_append_eltwise(po, dnnl_eltwise_hardswish, 0.25f, 0.5f);
  dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f);
  dnnl_dims_t bd={1,3,1,1}; dnnl_memory_desc_t bm; dnnl_memory_desc_create_with_tag(&bm,4,bd,dnnl_f32,dnnl_nchw);
  dnnl_post_ops_append_binary(po, dnnl_binary_mul, bm);
  dnnl_primitive_attr_set_post_ops(at, po);
  dnnl_primitive_attr_set_scratchpad_mode(at, dnnl_scratchpad_mode_user);
  dnnl_primitive_attr_set_fpmath_mode(at, dnnl_fpmath_mode_bf16);
  go(a,b,at,1,dnnl_resampling_linear);
  dnnl_primitive_attr_t at2; dnnl_primitive_attr_create(&at2);
  go(b,a,at2,0,dnnl_resampling_linear);
  return 0;
}
