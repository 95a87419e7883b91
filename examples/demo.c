/*
 * libresample demo: the oneDNN resampling example problem (3x3x227x227 -> 3x3x350x350,
 * linear, forward_training, nchw f32) through the oneDNN C API, as a legacy program
 * would run it. Prints a few outputs, a checksum and the execution time.
 *
 * Usage: demo [iterations]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "oneapi/dnnl/dnnl.h"

#define CHECK(call)                                                              \
    do {                                                                         \
        dnnl_status_t s_ = (call);                                               \
        if (s_ != dnnl_success) {                                                \
            fprintf(stderr, "%s failed with status %d\n", #call, (int)s_);      \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    int iters = argc > 1 ? atoi(argv[1]) : 20;
    if (iters < 1) iters = 1;
    const dnnl_dim_t N = 3, C = 3, IH = 227, IW = 227, OH = 350, OW = 350;

    dnnl_engine_t engine;
    dnnl_stream_t stream;
    CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    dnnl_dims_t src_dims = {N, C, IH, IW}, dst_dims = {N, C, OH, OW};
    dnnl_memory_desc_t src_md, dst_md;
    CHECK(dnnl_memory_desc_init_by_tag(&src_md, 4, src_dims, dnnl_f32, dnnl_nchw));
    CHECK(dnnl_memory_desc_init_by_tag(&dst_md, 4, dst_dims, dnnl_f32, dnnl_nchw));

    dnnl_resampling_desc_t rd;
    CHECK(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_training, dnnl_resampling_linear, NULL,
                                            &src_md, &dst_md));
    dnnl_primitive_desc_t pd;
    CHECK(dnnl_primitive_desc_create(&pd, &rd, NULL, engine, NULL));
    const char *impl = NULL;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    dnnl_primitive_t prim;
    CHECK(dnnl_primitive_create(&prim, pd));

    dnnl_memory_t src_m, dst_m;
    CHECK(dnnl_memory_create(&src_m, &src_md, engine, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_create(&dst_m, &dst_md, engine, DNNL_MEMORY_ALLOCATE));
    float *src, *dst;
    CHECK(dnnl_memory_get_data_handle(src_m, (void **)&src));
    CHECK(dnnl_memory_get_data_handle(dst_m, (void **)&dst));
    for (dnnl_dim_t i = 0; i < N * C * IH * IW; i++) src[i] = cosf((float)i / 10.f);

    dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, src_m}, {DNNL_ARG_DST, dst_m}};
    CHECK(dnnl_primitive_execute(prim, stream, 2, args)); /* warm-up */
    CHECK(dnnl_stream_wait(stream));
    double t0 = now_ms();
    for (int it = 0; it < iters; it++) CHECK(dnnl_primitive_execute(prim, stream, 2, args));
    CHECK(dnnl_stream_wait(stream));
    double ms = (now_ms() - t0) / iters;

    double sum = 0;
    for (dnnl_dim_t i = 0; i < N * C * OH * OW; i++) sum += dst[i];
    printf("resampling linear forward_training nchw f32: %dx%dx%dx%d -> %dx%dx%dx%d (impl %s)\n", (int)N,
           (int)C, (int)IH, (int)IW, (int)N, (int)C, (int)OH, (int)OW, impl);
    printf("dst[0..5] = %.7f %.7f %.7f %.7f %.7f\n", dst[0], dst[1], dst[2], dst[3], dst[4]);
    printf("checksum = %.6f\n", sum);
    printf("time = %.3f ms per execution (%d iterations)\n", ms, iters);

    CHECK(dnnl_primitive_destroy(prim));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_memory_destroy(src_m));
    CHECK(dnnl_memory_destroy(dst_m));
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    return 0;
}
