/* dnnl3.c — the oneDNN 3.x C API backend (libdnnl.so.3 of the onednn-cpu-gomp wheel): opaque
 * memory descriptors and the one-call primitive-descriptor constructors of v3. Compiled
 * against the v3 headers (onednn-devel-cpu-gomp), so it is a translation unit of its own. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl_version.h"

#if DNNL_VERSION_MAJOR < 3
#error "dnnl3.c must be compiled against the oneDNN 3.x headers"
#endif

#define API(X) \
    X(dnnl_engine_create) \
    X(dnnl_engine_destroy) \
    X(dnnl_stream_create) \
    X(dnnl_stream_wait) \
    X(dnnl_stream_destroy) \
    X(dnnl_memory_desc_create_with_tag) \
    X(dnnl_memory_desc_destroy) \
    X(dnnl_memory_desc_get_size) \
    X(dnnl_memory_create) \
    X(dnnl_memory_destroy) \
    X(dnnl_resampling_forward_primitive_desc_create) \
    X(dnnl_resampling_backward_primitive_desc_create) \
    X(dnnl_primitive_desc_query) \
    X(dnnl_primitive_desc_destroy) \
    X(dnnl_primitive_create) \
    X(dnnl_primitive_execute) \
    X(dnnl_primitive_destroy)

typedef struct {
    void *handle;
    dnnl_engine_t eng;
    dnnl_stream_t st;
#define FIELD(f) __typeof__(&f) f;
    API(FIELD)
#undef FIELD
} lib_t;

static void *open_lib(const char *path) {
    lib_t *L = calloc(1, sizeof(*L));
    if (!L) return NULL;
    L->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!L->handle) {
        h_seterr("dlopen(%s): %s", path, dlerror());
        free(L);
        return NULL;
    }
#define RESOLVE(f) \
    L->f = (__typeof__(&f))dlsym(L->handle, #f); \
    if (!L->f) { \
        h_seterr("%s: symbol %s missing", path, #f); \
        free(L); \
        return NULL; \
    }
    API(RESOLVE)
#undef RESOLVE
    if (L->dnnl_engine_create(&L->eng, dnnl_cpu, 0) != dnnl_success
            || L->dnnl_stream_create(&L->st, L->eng, dnnl_stream_default_flags) != dnnl_success) {
        h_seterr("%s: engine/stream creation failed", path);
        free(L);
        return NULL;
    }
    return L;
}

typedef struct {
    lib_t *L;
    dnnl_memory_desc_t md_in, md_out;
    dnnl_primitive_desc_t fpd, pd;
    dnnl_primitive_t prim;
    dnnl_memory_t m_src, m_dst;
    dnnl_exec_arg_t args[2];
} inst_t;

static void destroy(void *inst) {
    inst_t *I = inst;
    if (!I) return;
    lib_t *L = I->L;
    if (I->m_src) L->dnnl_memory_destroy(I->m_src);
    if (I->m_dst) L->dnnl_memory_destroy(I->m_dst);
    if (I->prim) L->dnnl_primitive_destroy(I->prim);
    if (I->pd) L->dnnl_primitive_desc_destroy(I->pd);
    if (I->fpd) L->dnnl_primitive_desc_destroy(I->fpd);
    if (I->md_in) L->dnnl_memory_desc_destroy(I->md_in);
    if (I->md_out) L->dnnl_memory_desc_destroy(I->md_out);
    free(I);
}

#define CHECK(call) \
    do { \
        dnnl_status_t s_ = (call); \
        if (s_ != dnnl_success) { \
            h_seterr("%s%s: status %d", s_ == dnnl_unimplemented ? "refused: " : "", #call, \
                    (int)s_); \
            destroy(I); \
            return NULL; \
        } \
    } while (0)

static dnnl_format_tag_t tag_of(const hprob_t *p) {
    static const dnnl_format_tag_t t[3][3] = {
            {dnnl_abc, dnnl_abcd, dnnl_abcde},
            {dnnl_acb, dnnl_acdb, dnnl_acdeb},
            {dnnl_aBc16b, dnnl_aBcd16b, dnnl_aBcde16b},
    };
    return t[p->layout][p->ndims - 3];
}

static void *setup(void *lib, const hprob_t *p, void *src, size_t src_bytes, void *dst,
        size_t dst_bytes, char *impl, size_t impl_len) {
    lib_t *L = lib;
    if (p->alg == ALG_LINEAR_AA) {
        h_seterr("refused: oneDNN has no antialiased resampling");
        return NULL;
    }
    if (p->ndims < 3 || p->ndims > 5 || p->layout < 0 || p->layout > 2) {
        h_seterr("refused: unsupported rank/layout");
        return NULL;
    }
    inst_t *I = calloc(1, sizeof(*I));
    if (!I) return NULL;
    I->L = L;
    dnnl_dims_t din, dout;
    memset(din, 0, sizeof(din));
    memset(dout, 0, sizeof(dout));
    for (int i = 0; i < p->ndims; i++) {
        din[i] = p->in[i];
        dout[i] = p->out[i];
    }
    dnnl_data_type_t dt = p->dt == DT_BF16 ? dnnl_bf16 : p->dt == DT_U8 ? dnnl_u8 : dnnl_f32;
    dnnl_alg_kind_t alg = p->alg == ALG_NEAREST ? dnnl_resampling_nearest
                                                : dnnl_resampling_linear;
    CHECK(L->dnnl_memory_desc_create_with_tag(&I->md_in, p->ndims, din, dt, tag_of(p)));
    CHECK(L->dnnl_memory_desc_create_with_tag(&I->md_out, p->ndims, dout, dt, tag_of(p)));
    if (!p->bwd) {
        CHECK(L->dnnl_resampling_forward_primitive_desc_create(&I->pd, L->eng,
                dnnl_forward_training, alg, NULL, I->md_in, I->md_out, NULL));
    } else {
        CHECK(L->dnnl_resampling_forward_primitive_desc_create(&I->fpd, L->eng,
                dnnl_forward_training, alg, NULL, I->md_in, I->md_out, NULL));
        CHECK(L->dnnl_resampling_backward_primitive_desc_create(
                &I->pd, L->eng, alg, NULL, I->md_in, I->md_out, I->fpd, NULL));
    }
    const char *s = NULL;
    L->dnnl_primitive_desc_query(I->pd, dnnl_query_impl_info_str, 0, &s);
    if (impl_len) snprintf(impl, impl_len, "%s", s ? s : "?");
    CHECK(L->dnnl_primitive_create(&I->prim, I->pd));
    const_dnnl_memory_desc_t a = p->bwd ? I->md_out : I->md_in;
    const_dnnl_memory_desc_t b = p->bwd ? I->md_in : I->md_out;
    if (L->dnnl_memory_desc_get_size(a) > src_bytes || L->dnnl_memory_desc_get_size(b) > dst_bytes) {
        h_seterr("buffers smaller than the memory descriptors");
        destroy(I);
        return NULL;
    }
    CHECK(L->dnnl_memory_create(&I->m_src, a, L->eng, src));
    CHECK(L->dnnl_memory_create(&I->m_dst, b, L->eng, dst));
    I->args[0].arg = p->bwd ? DNNL_ARG_DIFF_DST : DNNL_ARG_SRC;
    I->args[0].memory = I->m_src;
    I->args[1].arg = p->bwd ? DNNL_ARG_DIFF_SRC : DNNL_ARG_DST;
    I->args[1].memory = I->m_dst;
    return I;
}

static int run(void *inst) {
    inst_t *I = inst;
    if (I->L->dnnl_primitive_execute(I->prim, I->L->st, 2, I->args) != dnnl_success) return 1;
    return I->L->dnnl_stream_wait(I->L->st) != dnnl_success;
}

const backend_t dnnl3_backend = {open_lib, setup, run, destroy};
