/* A legacy oneDNN program that includes the pre-2.x header paths <dnnl.h> and
 * <dnnl_debug.h> (compiled with -I include): it must build unchanged and run. */
#include <dnnl.h>
#include <dnnl_debug.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;
#define CHECK(c) do { if (c) passed++; else { failed++; printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); } } while (0)

int main(void) {
    dnnl_engine_t eng;
    dnnl_stream_t st;
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0) == dnnl_success);
    CHECK(dnnl_stream_create(&st, eng, dnnl_stream_default_flags) == dnnl_success);
    dnnl_dims_t sd = {1, 1, 3}, dd = {1, 1, 5};
    dnnl_memory_desc_t smd, dmd;
    CHECK(dnnl_memory_desc_init_by_tag(&smd, 3, sd, dnnl_f32, dnnl_ncw) == dnnl_success);
    CHECK(dnnl_memory_desc_init_by_tag(&dmd, 3, dd, dnnl_f32, dnnl_ncw) == dnnl_success);
    dnnl_resampling_desc_t rd;
    CHECK(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_inference, dnnl_resampling_nearest, NULL, &smd,
                                            &dmd) == dnnl_success);
    dnnl_primitive_desc_t pd;
    CHECK(dnnl_primitive_desc_create(&pd, &rd, NULL, eng, NULL) == dnnl_success);
    dnnl_primitive_t prim;
    CHECK(dnnl_primitive_create(&prim, pd) == dnnl_success);
    float src[3] = {10, 20, 30}, dst[5] = {0};
    dnnl_memory_t sm, dm;
    CHECK(dnnl_memory_create(&sm, &smd, eng, src) == dnnl_success);
    CHECK(dnnl_memory_create(&dm, &dmd, eng, dst) == dnnl_success);
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}};
    CHECK(dnnl_primitive_execute(prim, st, 2, args) == dnnl_success);
    CHECK(dnnl_stream_wait(st) == dnnl_success);
    /* 3 -> 5 nearest picks 0 0 1 2 2 (docs/spec/onednn.md §2.1) */
    CHECK(dst[0] == 10 && dst[1] == 10 && dst[2] == 20 && dst[3] == 30 && dst[4] == 30);
    CHECK(strcmp(dnnl_status2str(dnnl_invalid_arguments), "invalid_arguments") == 0);
    CHECK(strcmp(dnnl_fmt_tag2str(dnnl_nchw), "abcd") == 0);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(sm);
    dnnl_memory_destroy(dm);
    dnnl_stream_destroy(st);
    dnnl_engine_destroy(eng);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
