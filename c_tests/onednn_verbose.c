/* Verbose mode (docs/spec/onednn.md section 7.4, formats checked against libdnnl 2.6.3):
 * ONEDNN_VERBOSE / DNNL_VERBOSE in the environment (child processes), dnnl_set_verbose
 * levels 0/1/2, the exec and create line fields (memory descriptors, attributes, algorithm,
 * problem, time), and the line a refused creation prints. Verbose lines go to stdout (as
 * in oneDNN), refusals to stderr; both are captured in a file. Apart from the
 * implementation name, the expected lines are libdnnl 2.6.3's output for the same calls. */
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "onednn_common.h"
#include <oneapi/dnnl/dnnl_debug.h>

static char errpath[64];

static int saved_out = -1, saved_err = -1;
static void capture(void) {
    fflush(stdout);
    fflush(stderr);
    int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) exit(2);
    saved_out = dup(1);
    saved_err = dup(2);
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
}
static char *captured(void) {
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    FILE *f = fopen(errpath, "r");
    static char buf[1 << 16];
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (f) fclose(f);
    return buf;
}

/* creates, executes and destroys one primitive; returns the pd status */
static dnnl_status_t run(dnnl_engine_t eng, dnnl_stream_t st, dnnl_prop_kind_t prop, dnnl_alg_kind_t alg, int nd,
        const dnnl_dim_t *sd, const dnnl_dim_t *dd, dnnl_data_type_t sdt, dnnl_data_type_t ddt, dnnl_format_tag_t stag,
        dnnl_format_tag_t dtag, const_dnnl_primitive_attr_t attr, const dnnl_memory_desc_t *bin, int bin_pos) {
    dnnl_memory_desc_t s, d;
    dnnl_memory_desc_init_by_tag(&s, nd, sd, sdt, stag);
    dnnl_memory_desc_init_by_tag(&d, nd, dd, ddt, dtag);
    dnnl_resampling_desc_t rd;
    int bwd = prop == dnnl_backward_data;
    if (bwd) dnnl_resampling_backward_desc_init(&rd, alg, NULL, &s, &d);
    else dnnl_resampling_forward_desc_init(&rd, prop, alg, NULL, &s, &d);
    dnnl_primitive_desc_t pd;
    dnnl_status_t r = dnnl_primitive_desc_create(&pd, &rd, attr, eng, NULL);
    if (r) return r;
    dnnl_primitive_t p;
    dnnl_primitive_create(&p, pd);
    dnnl_memory_t ms, md, mb = NULL;
    dnnl_memory_create(&ms, dnnl_primitive_desc_query_md(pd, bwd ? dnnl_query_diff_dst_md : dnnl_query_src_md, 0), eng, DNNL_MEMORY_ALLOCATE);
    dnnl_memory_create(&md, dnnl_primitive_desc_query_md(pd, bwd ? dnnl_query_diff_src_md : dnnl_query_dst_md, 0), eng, DNNL_MEMORY_ALLOCATE);
    dnnl_exec_arg_t args[3] = {{bwd ? DNNL_ARG_DIFF_DST : DNNL_ARG_SRC, ms}, {bwd ? DNNL_ARG_DIFF_SRC : DNNL_ARG_DST, md}};
    int na = 2;
    if (bin) {
        int arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(bin_pos) | DNNL_ARG_SRC_1;
        dnnl_memory_create(&mb, dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg), eng, DNNL_MEMORY_ALLOCATE);
        args[na++] = (dnnl_exec_arg_t){arg, mb};
    }
    CHECK_ST(dnnl_primitive_execute(p, st, na, args), dnnl_success);
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(md);
    dnnl_memory_destroy(mb);
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
    return dnnl_success;
}

/* the line of `buf` starting with `prefix` up to its last comma (the time dropped);
 * checks the time field is a number */
static const char *line_without_time(const char *buf, const char *prefix, int nth) {
    static char out[4096];
    const char *p = buf;
    for (;;) {
        p = strstr(p, prefix);
        if (!p) return "";
        if ((p == buf || p[-1] == '\n') && nth-- == 0) break;
        p++;
    }
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n >= sizeof out) n = sizeof out - 1;
    memcpy(out, p, n);
    out[n] = 0;
    char *c = strrchr(out, ',');
    if (c) {
        char *end;
        double ms = strtod(c + 1, &end);
        CHECK(end != c + 1 && *end == 0 && ms >= 0);
        *c = 0;
    }
    return out;
}

static int count(const char *buf, const char *needle) {
    int n = 0;
    for (const char *p = buf; (p = strstr(p, needle)); p++) n++;
    return n;
}

static const dnnl_dim_t s1[] = {1, 1, 3}, d1[] = {1, 1, 5};
static const dnnl_dim_t s2[] = {2, 19, 4, 5}, d2[] = {2, 19, 6, 7};
static const dnnl_dim_t s3[] = {2, 3, 2, 4, 5}, d3[] = {2, 3, 3, 6, 7};

/* in a child: verbose from the environment only */
static int env_child(const char *var, const char *val, int want_exec, int want_create) {
    pid_t pid = fork();
    if (pid == 0) {
        setenv(var, val, 1);
        capture();
        dnnl_engine_t eng;
        dnnl_stream_t st;
        dnnl_engine_create(&eng, dnnl_cpu, 0);
        dnnl_stream_create(&st, eng, dnnl_stream_default_flags);
        run(eng, st, dnnl_forward_inference, dnnl_resampling_nearest, 3, s1, d1, dnnl_f32, dnnl_f32, dnnl_ncw, dnnl_ncw, NULL, NULL, 0);
        char *b = captured();
        int ok = count(b, "onednn_verbose,exec,cpu,resampling,") == want_exec
                && count(b, "onednn_verbose,create:cache_miss,cpu,resampling,") == want_create
                && count(b, "onednn_verbose,info,") == (want_exec ? 5 : 0);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void) {
    snprintf(errpath, sizeof errpath, "/tmp/onednn_verbose_%d.txt", (int)getpid());
    CHECK(env_child("ONEDNN_VERBOSE", "1", 1, 0));
    CHECK(env_child("DNNL_VERBOSE", "2", 1, 1));
    CHECK(env_child("ONEDNN_VERBOSE", "0", 0, 0));

    dnnl_engine_t eng;
    dnnl_stream_t st;
    dnnl_engine_create(&eng, dnnl_cpu, 0);
    dnnl_stream_create(&st, eng, dnnl_stream_default_flags);
    CHECK_ST(dnnl_set_verbose(3), dnnl_invalid_arguments);
    CHECK_ST(dnnl_set_verbose(-1), dnnl_invalid_arguments);

    /* level 0: silent */
    capture();
    CHECK_ST(dnnl_set_verbose(0), dnnl_success);
    run(eng, st, dnnl_forward_inference, dnnl_resampling_nearest, 3, s1, d1, dnnl_f32, dnnl_f32, dnnl_ncw, dnnl_ncw, NULL, NULL, 0);
    CHECK(strlen(captured()) == 0);

    /* level 1: header once, then one exec line per execution */
    capture();
    CHECK_ST(dnnl_set_verbose(1), dnnl_success);
    run(eng, st, dnnl_forward_inference, dnnl_resampling_nearest, 3, s1, d1, dnnl_f32, dnnl_f32, dnnl_ncw, dnnl_ncw, NULL, NULL, 0);
    char *b = captured();
    CHECK(strncmp(b, "onednn_verbose,info,oneDNN v2.6.3", 33) == 0);
    CHECK(strstr(b, "onednn_verbose,info,prim_template:operation,engine,primitive,implementation,prop_kind,"
                    "memory_descriptors,attributes,auxiliary,problem_desc,exec_time\n") != NULL);
    CHECK(count(b, "onednn_verbose,create") == 0);
    CHECK(count(b, "onednn_verbose,exec,") == 1);
    const char *l = line_without_time(b, "onednn_verbose,exec,", 0);
    /* the implementation name differs from libdnnl's; everything else is the same */
    char impl[64] = "";
    sscanf(l, "onednn_verbose,exec,cpu,resampling,%63[^,]", impl);
    CHECK(strncmp(impl, "libresample:", 12) == 0);
    char want[2048];
    snprintf(want, sizeof want, "onednn_verbose,exec,cpu,resampling,%s,forward_inference,"
             "src_f32::blocked:abc:f0 dst_f32::blocked:abc:f0,,alg:resampling_nearest,mb1ic1_iw3ow5", impl);
    CHECK(strcmp(l, want) == 0);
    if (strcmp(l, want)) printf("  got  %s\n  want %s\n", l, want);

    /* level 2: create lines; padded blocked, any resolution, 5D, backward, strided */
    capture();
    CHECK_ST(dnnl_set_verbose(2), dnnl_success);
    run(eng, st, dnnl_forward_training, dnnl_resampling_linear, 4, s2, d2, dnnl_bf16, dnnl_s8, dnnl_nChw16c, dnnl_format_tag_any, NULL, NULL, 0);
    run(eng, st, dnnl_backward_data, dnnl_resampling_linear, 4, s2, d2, dnnl_f32, dnnl_f32, dnnl_nhwc, dnnl_nhwc, NULL, NULL, 0);
    run(eng, st, dnnl_forward_training, dnnl_resampling_linear, 5, s3, d3, dnnl_u8, dnnl_f32, dnnl_ncdhw, dnnl_ndhwc, NULL, NULL, 0);
    b = captured();
    CHECK(count(b, "onednn_verbose,info,") == 0); /* header printed once per process */
    CHECK(count(b, "onednn_verbose,create:cache_miss,cpu,resampling,") == 3);
    CHECK(count(b, "onednn_verbose,exec,cpu,resampling,") == 3);
    const char *tails[3] = {
        ",forward_training,src_bf16:p:blocked:aBcd16b:f0 dst_s8:p:blocked:aBcd16b:f0,,alg:resampling_linear,mb2ic19_ih4oh6_iw5ow7",
        ",backward_data,src_f32::blocked:acdb:f0 dst_f32::blocked:acdb:f0,,alg:resampling_linear,mb2ic19_ih4oh6_iw5ow7",
        ",forward_training,src_u8::blocked:abcde:f0 dst_f32::blocked:acdeb:f0,,alg:resampling_linear,mb2ic3_id2od3_ih4oh6_iw5ow7"};
    for (int k = 0; k < 3; k++) {
        char e[4096];
        snprintf(e, sizeof e, "%s", line_without_time(b, "onednn_verbose,exec,", k));
        const char *c = line_without_time(b, "onednn_verbose,create:cache_miss,", k);
        size_t n = strlen(e), t = strlen(tails[k]);
        CHECK(n > t && strcmp(e + n - t, tails[k]) == 0);
        if (!(n > t && strcmp(e + n - t, tails[k]) == 0)) printf("  got  %s\n  want ...%s\n", e, tails[k]);
        CHECK(strcmp(c + strlen("onednn_verbose,create:cache_miss,"), e + strlen("onednn_verbose,exec,")) == 0);
    }

    /* attributes: scratchpad, fpmath and the post-op chain, as libdnnl 2.6.3 prints them */
    capture();
    dnnl_primitive_attr_t a;
    dnnl_primitive_attr_create(&a);
    dnnl_primitive_attr_set_scratchpad_mode(a, dnnl_scratchpad_mode_user);
    dnnl_primitive_attr_set_fpmath_mode(a, dnnl_fpmath_mode_bf16);
    dnnl_post_ops_t po;
    dnnl_post_ops_create(&po);
    dnnl_post_ops_append_sum(po, 0.5f);
    dnnl_post_ops_append_eltwise(po, 1.f, dnnl_eltwise_linear, 2.f, 1.f);
    dnnl_post_ops_append_eltwise(po, 1.f, dnnl_eltwise_relu, 0.f, 0.f);
    dnnl_post_ops_append_eltwise(po, 2.5f, dnnl_eltwise_clip, -1.f, 3.f);
    dnnl_post_ops_append_sum_v3(po, 2.f, 3, dnnl_data_type_undef);
    dnnl_post_ops_append_sum_v2(po, 1.f, dnnl_f32);
    dnnl_memory_desc_t bmd;
    dnnl_dims_t bd = {2, 19, 6, 7};
    dnnl_memory_desc_init_by_tag(&bmd, 4, bd, dnnl_s8, dnnl_format_tag_any);
    dnnl_post_ops_append_binary(po, dnnl_binary_max, &bmd);
    dnnl_primitive_attr_set_post_ops(a, po);
    dnnl_post_ops_destroy(po);
    CHECK_ST(run(eng, st, dnnl_forward_training, dnnl_resampling_nearest, 4, s2, d2, dnnl_f32, dnnl_f32, dnnl_nhwc, dnnl_nhwc, a, &bmd, 6), dnnl_success);
    dnnl_primitive_attr_destroy(a);
    b = captured();
    l = line_without_time(b, "onednn_verbose,exec,", 0);
    const char *attr_tail = ",forward_training,src_f32::blocked:acdb:f0 dst_f32::blocked:acdb:f0,attr-scratchpad:user "
                            "attr-fpmath_mode:fpmath_mode_bf16 attr-post-ops:sum:0.5+eltwise_linear:2:1+eltwise_relu+"
                            "eltwise_clip:-1:3:2.5+sum:2:3+sum:1:0:f32+binary_max:s8:15:acdb ,alg:resampling_nearest,"
                            "mb2ic19_ih4oh6_iw5ow7";
    size_t n = strlen(l), t = strlen(attr_tail);
    CHECK(n > t && strcmp(l + n - t, attr_tail) == 0);
    if (!(n > t && strcmp(l + n - t, attr_tail) == 0)) printf("  got  %s\n  want ...%s\n", l, attr_tail);

    /* a refused creation says why */
    capture();
    dnnl_primitive_attr_create(&a);
    float two = 2.f;
    dnnl_primitive_attr_set_output_scales(a, 1, 0, &two);
    CHECK_ST(run(eng, st, dnnl_forward_training, dnnl_resampling_linear, 4, s2, d2, dnnl_f32, dnnl_f32, dnnl_nhwc, dnnl_nhwc, a, NULL, 0), dnnl_unimplemented);
    dnnl_primitive_attr_destroy(a);
    b = captured();
    CHECK(strstr(b, "unimplemented") && strstr(b, "output scales"));
    CHECK(count(b, "onednn_verbose,exec") == 0);

    /* dnnl_debug.h strings, as libdnnl 2.6.3 returns them */
    CHECK(!strcmp(dnnl_status2str(99), "unknown status"));
    CHECK(!strcmp(dnnl_alg_kind2str(dnnl_eltwise_hardswish), "eltwise_hardswish"));
    CHECK(!strcmp(dnnl_alg_kind2str(0x1ff), "pooling_max"));
    CHECK(!strcmp(dnnl_alg_kind2str(5), "unknown alg_kind"));
    CHECK(!strcmp(dnnl_alg_kind2str(dnnl_binary_ne), "binary_ne"));
    CHECK(!strcmp(dnnl_dt2str(9), "unknown dt"));
    CHECK(!strcmp(dnnl_fmt_tag2str(dnnl_format_tag_last), "format_tag_last"));
    CHECK(!strcmp(dnnl_fmt_tag2str(dnnl_format_tag_last + 1), "unknown fmt_tag"));
    CHECK(!strcmp(dnnl_prim_kind2str(dnnl_primitive_kind_max), "primitive_kind_max"));
    CHECK(!strcmp(dnnl_fpmath_mode2str(dnnl_fpmath_mode_bf16), "fpmath_mode_bf16"));
    CHECK(!strcmp(dnnl_fpmath_mode2str(dnnl_fpmath_mode_any), "any"));
    CHECK(!strcmp(dnnl_scratchpad_mode2str(dnnl_scratchpad_mode_user), "user"));
    CHECK(!strcmp(dnnl_runtime2str(DNNL_RUNTIME_OMP), "OpenMP"));
    CHECK(!strcmp(dnnl_runtime2str(3), "unknown"));
    CHECK(!strcmp(dnnl_cpu_isa2str(dnnl_cpu_isa_avx512_core_amx), "cpu_isa_avx512_core_amx"));
    CHECK(!strcmp(dnnl_cpu_isa_hints2str(dnnl_cpu_isa_prefer_ymm), "cpu_isa_prefer_ymm"));
    CHECK(!strcmp(dnnl_rnn_flags2str(0), "undef"));
    CHECK(!strcmp(dnnl_rnn_direction2str(dnnl_bidirectional_sum), "bidirectional_sum"));
    CHECK(!strcmp(dnnl_engine_kind2str(7), "unknown engine_kind"));
    CHECK(!strcmp(dnnl_fmt_kind2str(dnnl_blocked), "blocked"));
    CHECK(!strcmp(dnnl_prop_kind2str(dnnl_forward_inference), "forward_inference"));

    dnnl_set_verbose(0);
    remove(errpath);
    dnnl_stream_destroy(st);
    dnnl_engine_destroy(eng);
    FINISH();
}
