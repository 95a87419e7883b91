/* Streams with each DNNL 1.x flag (default_order 1, in_order 2, out_of_order 4,
 * default_flags), a resampling executed on each, the 1.2 version, and refusal of unknown
 * flag bits. */
#include "common.h"

static void run_on(dnnl_engine_t eng, unsigned flags) {
    dnnl_stream_t s = NULL;
    OK(dnnl_stream_create(&s, eng, flags));
    dnnl_dims_t sd = {1, 2, 3}, dd = {1, 2, 6};
    dnnl_memory_desc_t smd, dmd;
    OK(dnnl_memory_desc_init_by_tag(&smd, 3, sd, dnnl_f32, dnnl_nwc));
    OK(dnnl_memory_desc_init_by_tag(&dmd, 3, dd, dnnl_f32, dnnl_nwc));
    dnnl_resampling_desc_t rd;
    OK(dnnl_resampling_forward_desc_init(&rd, dnnl_forward_inference,
            dnnl_resampling_nearest, NULL, &smd, &dmd));
    dnnl_primitive_desc_t pd = NULL;
    OK(dnnl_primitive_desc_create(&pd, &rd, NULL, eng, NULL));
    dnnl_primitive_t p = NULL;
    OK(dnnl_primitive_create(&p, pd));
    float src[6] = {1, 10, 2, 20, 3, 30}, dst[12];
    dnnl_memory_t sm, dm;
    OK(dnnl_memory_create(&sm, &smd, eng, src));
    OK(dnnl_memory_create(&dm, &dmd, eng, dst));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}};
    OK(dnnl_primitive_execute(p, s, 2, args));
    OK(dnnl_stream_wait(s));
    /* nwc: channel innermost; w doubled. */
    const float want[12] = {1, 10, 1, 10, 2, 20, 2, 20, 3, 30, 3, 30};
    CHECK(memcmp(dst, want, sizeof want) == 0);
    dnnl_memory_destroy(sm);
    dnnl_memory_destroy(dm);
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
    OK(dnnl_stream_destroy(s));
}

int main(void) {
    const dnnl_version_t *v = dnnl_version();
    CHECK(v && v->major == 1 && v->minor == 2);
    /* The headers' own numbering (1.2/1.3). */
    CHECK(dnnl_stream_default_order == 1 && dnnl_stream_in_order == 2
            && dnnl_stream_out_of_order == 4 && dnnl_stream_default_flags == 1);
    dnnl_engine_t eng = NULL;
    OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    run_on(eng, dnnl_stream_default_flags);
    run_on(eng, dnnl_stream_default_order);
    run_on(eng, dnnl_stream_in_order);
    run_on(eng, dnnl_stream_out_of_order);
    dnnl_stream_t s = NULL;
    CHECK(dnnl_stream_create(&s, eng, 8) == dnnl_invalid_arguments);
    CHECK(dnnl_stream_create(&s, eng, 0x11) == dnnl_invalid_arguments);
    OK(dnnl_engine_destroy(eng));
    printf("version %d.%d.%d\n", v->major, v->minor, v->patch);
    return finish();
}
