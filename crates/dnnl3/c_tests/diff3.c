/*
 * diff3.c — differential driver for the oneDNN 3.x resampling C API.
 *
 * Written against the REAL oneDNN 3.2 headers only. crates/dnnl3/tests/dnnl3_diff.rs builds
 * it once and runs it against the real libdnnl.so.3 and against this project's (by
 * LD_LIBRARY_PATH); the two dumps are compared (statuses, queried layouts exactly; values
 * bit-exactly for forward nearest, within benchdnn-style tolerances otherwise).
 *
 * Usage: diff3 SEED COUNT [FIRST]   (problems FIRST..COUNT-1)
 *
 * Every problem has its own PRNG (seeded by SEED and its index), so a library result never
 * shifts the problems that follow. Dump lines:
 *   P <i> <description>      T <alg> <dir> <dt_in> <dt_out> <eltwise 0/1> <sum 0/1>
 *   K <name> <status>        M <name> <layout>        I <text> (never compared)
 *   V <dt> <n> <values...>   output in logical order (floats: f32 bits in hex)
 *   X                        end of problem
 * When the library refuses a bf16/f16 problem with unimplemented (no ISA support), the
 * driver prints "I emulated", then runs the problem with f32 tensors on the rounded inputs
 * and prints that output rounded to the low-precision type: the comparator takes it as the
 * expectation.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"

/* ---------------------------------------------------------------- PRNG (splitmix64) */
static uint64_t rs;
static uint64_t rnd(void) {
    uint64_t z = (rs += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static int ri(int lo, int hi) { return lo + (int)(rnd() % (uint64_t)(hi - lo + 1)); }
static float rf(float lo, float hi) {
    return lo + (hi - lo) * (float)((rnd() >> 40) * (1.0 / 16777216.0));
}

/* ---------------------------------------------------------------- data types */
static const dnnl_data_type_t DTS[] = {dnnl_f32, dnnl_bf16, dnnl_f16, dnnl_s32, dnnl_s8, dnnl_u8};
static const char *dt_name(dnnl_data_type_t dt) {
    switch (dt) {
    case dnnl_f32: return "f32";
    case dnnl_bf16: return "bf16";
    case dnnl_f16: return "f16";
    case dnnl_s32: return "s32";
    case dnnl_s8: return "s8";
    case dnnl_u8: return "u8";
    default: return "?";
    }
}
static size_t dt_size(dnnl_data_type_t dt) { return dnnl_data_type_size(dt); }
static int low_precision(dnnl_data_type_t dt) { return dt == dnnl_bf16 || dt == dnnl_f16; }

static float bits2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f2bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint16_t f2bf16(float f) {
    uint32_t u = f2bits(f);
    if ((u & 0x7fffffff) > 0x7f800000) return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}
static float bf162f(uint16_t h) { return bits2f((uint32_t)h << 16); }
static uint16_t f2f16(float f) {
    _Float16 h = (_Float16)f;
    uint16_t u; memcpy(&u, &h, 2); return u;
}
static float f162f(uint16_t u) { _Float16 h; memcpy(&h, &u, 2); return (float)h; }

static float load(const void *p, dnnl_data_type_t dt, size_t i) {
    switch (dt) {
    case dnnl_f32: return ((const float *)p)[i];
    case dnnl_bf16: return bf162f(((const uint16_t *)p)[i]);
    case dnnl_f16: return f162f(((const uint16_t *)p)[i]);
    case dnnl_s32: return (float)((const int32_t *)p)[i];
    case dnnl_s8: return (float)((const int8_t *)p)[i];
    case dnnl_u8: return (float)((const uint8_t *)p)[i];
    default: return 0;
    }
}
/* Stores an exactly representable value (the generator only produces those). */
static void store(void *p, dnnl_data_type_t dt, size_t i, float v) {
    switch (dt) {
    case dnnl_f32: ((float *)p)[i] = v; break;
    case dnnl_bf16: ((uint16_t *)p)[i] = f2bf16(v); break;
    case dnnl_f16: ((uint16_t *)p)[i] = f2f16(v); break;
    case dnnl_s32: ((int32_t *)p)[i] = (int32_t)v; break;
    case dnnl_s8: ((int8_t *)p)[i] = (int8_t)v; break;
    case dnnl_u8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    default: break;
    }
}
/* A random value of `dt`, rounded to it. */
static float random_value(dnnl_data_type_t dt) {
    switch (dt) {
    case dnnl_s32: return (float)ri(-1000, 1000);
    case dnnl_s8: return (float)ri(-128, 127);
    case dnnl_u8: return (float)ri(0, 255);
    case dnnl_bf16: return bf162f(f2bf16(rf(-4, 4)));
    case dnnl_f16: return f162f(f2f16(rf(-4, 4)));
    default: return rf(-4, 4);
    }
}

/* ---------------------------------------------------------------- layouts */
enum { L_PLAIN, L_NXC, L_8C, L_16C, L_STRIDED, L_ANY, L_COUNT };
static const char *L_NAMES[] = {"plain", "nxc", "8c", "16c", "strided", "any"};
static dnnl_format_tag_t tag_of(int layout, int nd) {
    switch (layout) {
    case L_PLAIN: return nd == 3 ? dnnl_ncw : nd == 4 ? dnnl_nchw : dnnl_ncdhw;
    case L_NXC: return nd == 3 ? dnnl_nwc : nd == 4 ? dnnl_nhwc : dnnl_ndhwc;
    case L_8C: return nd == 3 ? dnnl_nCw8c : nd == 4 ? dnnl_nChw8c : dnnl_nCdhw8c;
    case L_16C: return nd == 3 ? dnnl_nCw16c : nd == 4 ? dnnl_nChw16c : dnnl_nCdhw16c;
    default: return dnnl_format_tag_any;
    }
}

/* Creates an md; strided layouts get a random dim order with padded strides. */
static dnnl_status_t make_md(dnnl_memory_desc_t *md, int nd, const dnnl_dims_t dims,
        dnnl_data_type_t dt, int layout) {
    if (layout != L_STRIDED) return dnnl_memory_desc_create_with_tag(md, nd, dims, dt, tag_of(layout, nd));
    int perm[5] = {0, 1, 2, 3, 4};
    for (int i = nd - 1; i > 0; i--) { int j = ri(0, i), t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
    dnnl_dims_t strides;
    dnnl_dim_t s = 1;
    for (int k = nd - 1; k >= 0; k--) {
        int d = perm[k];
        strides[d] = s;
        s *= dims[d] + ri(0, 2);
    }
    return dnnl_memory_desc_create_with_strides(md, nd, dims, dt, strides);
}

/* Physical element offset of logical index `idx` (blocked layouts, inner blocks too). */
static dnnl_dim_t offset_of(const_dnnl_memory_desc_t md, const dnnl_dim_t *idx) {
    int nd = 0, nblks = 0;
    const dnnl_dims_t *strides, *blks, *bidx, *poff;
    dnnl_dim_t off0 = 0;
    dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd);
    dnnl_memory_desc_query(md, dnnl_query_strides, &strides);
    dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &nblks);
    dnnl_memory_desc_query(md, dnnl_query_inner_blks, &blks);
    dnnl_memory_desc_query(md, dnnl_query_inner_idxs, &bidx);
    dnnl_memory_desc_query(md, dnnl_query_padded_offsets, &poff);
    dnnl_memory_desc_query(md, dnnl_query_submemory_offset_s64, &off0);
    dnnl_dim_t pos[12], phys = off0, bs = 1;
    for (int d = 0; d < nd; d++) pos[d] = idx[d] + (*poff)[d];
    for (int b = nblks - 1; b >= 0; b--) {
        int d = (int)(*bidx)[b];
        phys += (pos[d] % (*blks)[b]) * bs;
        pos[d] /= (*blks)[b];
        bs *= (*blks)[b];
    }
    for (int d = 0; d < nd; d++) phys += pos[d] * (*strides)[d];
    return phys;
}

/* True when `md` is dense row-major (abc...). */
static int dense_plain(const_dnnl_memory_desc_t md) {
    int nd = 0, nblks = 0;
    const dnnl_dims_t *dims, *strides;
    dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd);
    if (dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &nblks) != dnnl_success || nblks)
        return 0;
    dnnl_memory_desc_query(md, dnnl_query_dims, &dims);
    dnnl_memory_desc_query(md, dnnl_query_strides, &strides);
    dnnl_dim_t s = 1;
    for (int d = nd - 1; d >= 0; d--) {
        if ((*dims)[d] != 1 && (*strides)[d] != s) return 0;
        s *= (*dims)[d];
    }
    return 1;
}

static void print_layout(const char *name, const_dnnl_memory_desc_t md) {
    int nd = 0, nblks = 0, dt = 0, fk = 0;
    const dnnl_dims_t *dims, *strides, *blks, *bidx, *pdims;
    dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd);
    dnnl_memory_desc_query(md, dnnl_query_data_type, &dt);
    dnnl_memory_desc_query(md, dnnl_query_format_kind, &fk);
    dnnl_memory_desc_query(md, dnnl_query_dims, &dims);
    dnnl_memory_desc_query(md, dnnl_query_padded_dims, &pdims);
    printf("M %s nd=%d dt=%d fk=%d dims=", name, nd, dt, fk);
    for (int d = 0; d < nd; d++) printf("%lld,", (long long)(*dims)[d]);
    printf(" pdims=");
    for (int d = 0; d < nd; d++) printf("%lld,", (long long)(*pdims)[d]);
    if (fk == dnnl_blocked) {
        dnnl_memory_desc_query(md, dnnl_query_strides, &strides);
        dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &nblks);
        dnnl_memory_desc_query(md, dnnl_query_inner_blks, &blks);
        dnnl_memory_desc_query(md, dnnl_query_inner_idxs, &bidx);
        printf(" strides=");
        for (int d = 0; d < nd; d++) printf("%lld,", (long long)(*strides)[d]);
        printf(" blocks=");
        for (int b = 0; b < nblks; b++) printf("%lld:%lld,", (long long)(*blks)[b], (long long)(*bidx)[b]);
    }
    printf(" size=%zu\n", dnnl_memory_desc_get_size(md));
}

/* ---------------------------------------------------------------- problems */
#define MAX_PO 3
static const int ELT_ALGS[] = {dnnl_eltwise_relu, dnnl_eltwise_tanh, dnnl_eltwise_elu,
    dnnl_eltwise_square, dnnl_eltwise_abs, dnnl_eltwise_linear, dnnl_eltwise_soft_relu,
    dnnl_eltwise_hardsigmoid, dnnl_eltwise_logistic, dnnl_eltwise_exp, dnnl_eltwise_gelu_tanh,
    dnnl_eltwise_swish, dnnl_eltwise_clip, dnnl_eltwise_clip_v2, dnnl_eltwise_gelu_erf,
    dnnl_eltwise_round, dnnl_eltwise_mish, dnnl_eltwise_hardswish, dnnl_eltwise_relu_use_dst_for_bwd,
    dnnl_eltwise_logistic_use_dst_for_bwd};
static const int BIN_ALGS[] = {dnnl_binary_add, dnnl_binary_mul, dnnl_binary_max, dnnl_binary_min,
    dnnl_binary_sub, dnnl_binary_ge, dnnl_binary_lt, dnnl_binary_eq};

typedef struct {
    int nd, fwd, linear, layout_in, layout_out, use_factors;
    dnnl_dims_t in_dims, out_dims; /* in = src / diff_src, out = dst / diff_dst */
    dnnl_data_type_t dt_in, dt_out;
    float factors[3];
    int npo, po_kind[MAX_PO], po_alg[MAX_PO];
    float po_a[MAX_PO], po_b[MAX_PO];
    int po_mask[MAX_PO]; /* binary: broadcast mask over dims */
} problem_t;

static void gen(problem_t *p) {
    memset(p, 0, sizeof(*p));
    p->nd = ri(3, 5);
    p->fwd = ri(0, 2) != 0;
    p->linear = ri(0, 1);
    p->in_dims[0] = ri(1, 2);
    p->in_dims[1] = ri(1, 3) == 1 ? ri(1, 40) : ri(1, 8);
    p->out_dims[0] = p->in_dims[0];
    p->out_dims[1] = p->in_dims[1];
    int smax = p->nd == 5 ? 5 : p->nd == 4 ? 9 : 16;
    for (int d = 2; d < p->nd; d++) {
        p->in_dims[d] = ri(1, smax);
        p->out_dims[d] = ri(1, smax + 3);
    }
    p->dt_in = DTS[ri(0, 5)];
    p->dt_out = ri(0, 1) ? p->dt_in : DTS[ri(0, 5)];
    p->layout_in = ri(0, L_STRIDED);
    int r = ri(0, 9);
    p->layout_out = r < 4 ? p->layout_in : r < 6 ? L_ANY : ri(0, L_STRIDED);
    if (!p->fwd) {
        /* diff_dst must be concrete (libdnnl 3.2 leaves `any` unresolved without a forward
         * hint, a pd no memory can be created for); diff_src may be `any` */
        if (p->layout_out == L_ANY) p->layout_out = p->layout_in;
        if (ri(0, 7) == 0) p->layout_in = L_ANY;
    }
    if (p->fwd && ri(0, 7) == 0) {
        /* dst from factors (dst md NULL) */
        p->use_factors = 1;
        for (int d = 2; d < p->nd; d++) {
            p->factors[d - 2] = (float)ri(1, 12) / (float)ri(1, 6);
            p->out_dims[d] = (dnnl_dim_t)((double)p->in_dims[d] * p->factors[d - 2]);
        }
        p->layout_out = L_ANY;
        p->dt_out = p->dt_in; /* a dst made from factors takes src's data type */
    }
    if (p->fwd && ri(0, 9) < 4) {
        p->npo = ri(1, MAX_PO);
        for (int k = 0; k < p->npo; k++) {
            p->po_kind[k] = ri(0, 2);
            if (p->po_kind[k] == 0) {
                p->po_a[k] = ri(0, 1) ? 1.f : (float)ri(-8, 8) / 4.f;
            } else if (p->po_kind[k] == 1) {
                p->po_alg[k] = ELT_ALGS[ri(0, (int)(sizeof(ELT_ALGS) / sizeof(int)) - 1)];
                p->po_a[k] = (float)ri(-4, 8) / 4.f;
                p->po_b[k] = (float)ri(-4, 8) / 4.f;
                if (p->po_alg[k] == dnnl_eltwise_soft_relu && p->po_a[k] == 0) p->po_a[k] = 1;
                if ((p->po_alg[k] == dnnl_eltwise_clip || p->po_alg[k] == dnnl_eltwise_clip_v2)
                        && p->po_b[k] < p->po_a[k]) {
                    float t = p->po_a[k]; p->po_a[k] = p->po_b[k]; p->po_b[k] = t;
                }
                if (p->po_alg[k] == dnnl_eltwise_relu_use_dst_for_bwd && p->po_a[k] < 0) p->po_a[k] = 0;
            } else {
                p->po_alg[k] = BIN_ALGS[ri(0, (int)(sizeof(BIN_ALGS) / sizeof(int)) - 1)];
                int m = ri(0, 3);
                p->po_mask[k] = m == 0 ? 0 : m == 1 ? 2 : m == 2 ? (1 << p->nd) - 1 - 1 - 2 : (1 << p->nd) - 1;
            }
        }
    }
}

static void describe(int i, const problem_t *p) {
    printf("P %d %s %s nd=%d in=", i, p->linear ? "linear" : "nearest", p->fwd ? "fwd" : "bwd", p->nd);
    for (int d = 0; d < p->nd; d++) printf("%lld,", (long long)p->in_dims[d]);
    printf(" out=");
    for (int d = 0; d < p->nd; d++) printf("%lld,", (long long)p->out_dims[d]);
    printf(" %s:%s -> %s:%s%s po=", dt_name(p->dt_in), L_NAMES[p->layout_in], dt_name(p->dt_out),
            L_NAMES[p->layout_out], p->use_factors ? " (factors)" : "");
    for (int k = 0; k < p->npo; k++)
        printf("%s%d:%g:%g:%d,", p->po_kind[k] == 0 ? "sum" : p->po_kind[k] == 1 ? "elt" : "bin",
                p->po_alg[k], p->po_a[k], p->po_b[k], p->po_mask[k]);
    printf("\n");
    int elt = 0, sum = 0;
    for (int k = 0; k < p->npo; k++) { elt |= p->po_kind[k] == 1; sum |= p->po_kind[k] == 0; }
    printf("T %s %s %s %s %d %d\n", p->linear ? "linear" : "nearest", p->fwd ? "fwd" : "bwd",
            dt_name(p->dt_in), dt_name(p->dt_out), elt, sum);
}

static dnnl_engine_t eng;
static dnnl_stream_t strm;

#define CHECK(name, call) do { dnnl_status_t s_ = (call); printf("K %s %d\n", name, (int)s_); \
    if (s_ != dnnl_success) { status = s_; goto done; } } while (0)

/* Fills every element of a buffer of `md` with random values of `dt` (rounded to `as`,
 * a lower precision, when the problem is an emulation). */
static void *fill(const_dnnl_memory_desc_t md, dnnl_data_type_t dt, uint64_t seed) {
    size_t bytes = dnnl_memory_desc_get_size(md), n = bytes / dt_size(dt);
    void *buf = calloc(1, bytes + 64);
    uint64_t save = rs;
    rs = seed;
    for (size_t i = 0; i < n; i++) store(buf, dt, i, random_value(dt));
    rs = save;
    return buf;
}

/* Runs problem `p`; tensors of data type `real_in`/`real_out` hold values of the problem's
 * own types (`p->dt_in`, `p->dt_out`; they differ for the f32 emulation). Returns the
 * creation status. */
static dnnl_status_t run(const problem_t *p, uint64_t seed, dnnl_data_type_t real_in,
        dnnl_data_type_t real_out, int print_mds) {
    dnnl_status_t status = dnnl_success;
    dnnl_memory_desc_t in_md = NULL, out_md = NULL, bin_md[MAX_PO] = {NULL};
    dnnl_primitive_attr_t attr = NULL;
    dnnl_post_ops_t po = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t prim = NULL;
    dnnl_memory_t in_m = NULL, out_m = NULL, bin_m[MAX_PO] = {NULL};
    void *in_buf = NULL, *out_buf = NULL, *bin_buf[MAX_PO] = {NULL};
    int nd = p->nd;
    uint64_t save = rs;
    rs = seed; /* the strided layouts draw from the problem's data stream */
    CHECK("md_in", make_md(&in_md, nd, p->in_dims, real_in, p->layout_in));
    if (!p->use_factors)
        CHECK("md_out", make_md(&out_md, nd, p->out_dims, real_out, p->layout_out));
    rs = save;
    CHECK("attr_create", dnnl_primitive_attr_create(&attr));
    if (p->npo) {
        CHECK("po_create", dnnl_post_ops_create(&po));
        for (int k = 0; k < p->npo; k++) {
            if (p->po_kind[k] == 0) {
                CHECK("po_sum", dnnl_post_ops_append_sum(po, p->po_a[k], 0, dnnl_data_type_undef));
            } else if (p->po_kind[k] == 1) {
                CHECK("po_eltwise", dnnl_post_ops_append_eltwise(po, p->po_alg[k], p->po_a[k], p->po_b[k]));
            } else {
                dnnl_dims_t bd;
                for (int d = 0; d < nd; d++) bd[d] = (p->po_mask[k] >> d) & 1 ? p->out_dims[d] : 1;
                CHECK("po_md", dnnl_memory_desc_create_with_tag(&bin_md[k], nd, bd, dnnl_f32, tag_of(L_PLAIN, nd)));
                CHECK("po_binary", dnnl_post_ops_append_binary(po, p->po_alg[k], bin_md[k]));
            }
        }
        CHECK("attr_po", dnnl_primitive_attr_set_post_ops(attr, po));
    }
    if (p->fwd) {
        status = dnnl_resampling_forward_primitive_desc_create(&pd, eng, dnnl_forward_training,
                p->linear ? dnnl_resampling_linear : dnnl_resampling_nearest,
                p->use_factors ? p->factors : NULL, in_md, out_md, attr);
    } else {
        status = dnnl_resampling_backward_primitive_desc_create(&pd, eng,
                p->linear ? dnnl_resampling_linear : dnnl_resampling_nearest, NULL, in_md,
                out_md, NULL, attr);
    }
    printf("K pd %d\n", (int)status);
    if (status != dnnl_success) goto done;
    const_dnnl_memory_desc_t pin = dnnl_primitive_desc_query_md(pd, p->fwd ? dnnl_query_src_md : dnnl_query_diff_src_md, 0);
    const_dnnl_memory_desc_t pout = dnnl_primitive_desc_query_md(pd, p->fwd ? dnnl_query_dst_md : dnnl_query_diff_dst_md, 0);
    {
        const char *impl = NULL;
        dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
        printf("I impl %s\n", impl ? impl : "?");
    }
    if (print_mds) {
        print_layout("in", pin);
        print_layout("out", pout);
        int alg = 0, pk = 0;
        printf("K q_alg %d\n", (int)dnnl_primitive_desc_query(pd, dnnl_query_alg_kind, 0, &alg));
        printf("Q alg %d\n", alg);
        dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, &pk);
        printf("Q kind %d\n", pk);
        const float *f = NULL;
        if (dnnl_primitive_desc_query(pd, dnnl_query_factors, 0, &f) == dnnl_success && f)
            for (int d = 0; d < nd - 2; d++) printf("Q factor%d %08x\n", d, f2bits(f[d]));
        printf("Q inputs %d\n", dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0));
        /* on a clone: moving the pd itself would change the implementation that runs
         * (libdnnl has several per problem, this library one) */
        dnnl_primitive_desc_t c = NULL;
        if (dnnl_primitive_desc_clone(&c, pd) == dnnl_success) {
            printf("I next_impl %d\n", (int)dnnl_primitive_desc_next_impl(c));
            dnnl_primitive_desc_destroy(c);
        }
    }
    {
        /* libdnnl 3.2's avx512 jit kernels sometimes fail to generate on some virtual CPUs
         * (runtime_error at primitive creation); an application then takes the next
         * implementation, and so does this driver ("I fallback" says which ran). */
        dnnl_status_t s = dnnl_primitive_create(&prim, pd);
        while (s == dnnl_runtime_error && dnnl_primitive_desc_next_impl(pd) == dnnl_success) {
            const char *impl = NULL;
            dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
            printf("I fallback %s\n", impl ? impl : "?");
            pin = dnnl_primitive_desc_query_md(pd, p->fwd ? dnnl_query_src_md : dnnl_query_diff_src_md, 0);
            pout = dnnl_primitive_desc_query_md(pd, p->fwd ? dnnl_query_dst_md : dnnl_query_diff_dst_md, 0);
            s = dnnl_primitive_create(&prim, pd);
        }
        CHECK("prim", s);
    }
    {
        /* libdnnl 3.2's simple:any reads a binary src1 that varies along spatial dims at
         * plain offsets whatever dst's layout (checked by hand: nwc dst, src1 1x1xW);
         * the comparator does not compare those results */
        const char *impl = NULL;
        dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
        int spatial_bin = 0;
        for (int k = 0; k < p->npo; k++) spatial_bin |= p->po_kind[k] == 2 && (p->po_mask[k] & ~3);
        if (impl && !strcmp(impl, "simple:any") && spatial_bin && !dense_plain(pout))
            printf("I defect simple_binary\n");
    }
    /* the input holds values of the problem's type (stored as real_in) */
    {
        size_t bytes = dnnl_memory_desc_get_size(pin), n = bytes / dt_size(real_in);
        in_buf = calloc(1, bytes + 64);
        save = rs;
        rs = seed ^ 0x1234;
        for (size_t i = 0; i < n; i++) store(in_buf, real_in, i, random_value(p->dt_in));
        size_t obytes = dnnl_memory_desc_get_size(pout), on = obytes / dt_size(real_out);
        out_buf = calloc(1, obytes + 64);
        rs = seed ^ 0x5678;
        for (size_t i = 0; i < on; i++) store(out_buf, real_out, i, random_value(p->dt_out));
        rs = save;
    }
    CHECK("mem_in", dnnl_memory_create(&in_m, pin, eng, in_buf));
    CHECK("mem_out", dnnl_memory_create(&out_m, pout, eng, out_buf));
    dnnl_exec_arg_t args[2 + MAX_PO];
    int nargs = 0;
    args[nargs].arg = p->fwd ? DNNL_ARG_SRC : DNNL_ARG_DIFF_DST;
    args[nargs++].memory = p->fwd ? in_m : out_m;
    args[nargs].arg = p->fwd ? DNNL_ARG_DST : DNNL_ARG_DIFF_SRC;
    args[nargs++].memory = p->fwd ? out_m : in_m;
    for (int k = 0; k < p->npo; k++) {
        if (p->po_kind[k] != 2) continue;
        bin_buf[k] = fill(bin_md[k], dnnl_f32, seed ^ (0x9abc + k));
        CHECK("mem_bin", dnnl_memory_create(&bin_m[k], bin_md[k], eng, bin_buf[k]));
        args[nargs].arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(k) | DNNL_ARG_SRC_1;
        args[nargs++].memory = bin_m[k];
    }
    CHECK("exec", dnnl_primitive_execute(prim, strm, nargs, args));
    CHECK("wait", dnnl_stream_wait(strm));
    {
        const_dnnl_memory_desc_t res_md = p->fwd ? pout : pin;
        const void *res = p->fwd ? out_buf : in_buf;
        dnnl_data_type_t res_dt = p->fwd ? p->dt_out : p->dt_in;
        dnnl_data_type_t res_real = p->fwd ? real_out : real_in;
        const dnnl_dims_t *dims;
        dnnl_memory_desc_query(res_md, dnnl_query_dims, &dims);
        dnnl_dim_t n = 1, idx[12] = {0};
        for (int d = 0; d < nd; d++) n *= (*dims)[d];
        printf("V %s %lld", dt_name(res_dt), (long long)n);
        for (dnnl_dim_t e = 0; e < n; e++) {
            dnnl_dim_t r = e;
            for (int d = nd - 1; d >= 0; d--) { idx[d] = r % (*dims)[d]; r /= (*dims)[d]; }
            float v = load(res, res_real, (size_t)offset_of(res_md, idx));
            if (res_dt != res_real) /* emulation: round to the problem's type */
                v = res_dt == dnnl_bf16 ? bf162f(f2bf16(v)) : f162f(f2f16(v));
            if (res_dt == dnnl_f32 || low_precision(res_dt)) printf(" %08x", f2bits(v));
            else printf(" %lld", (long long)v);
        }
        printf("\n");
    }
done:
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(in_m);
    dnnl_memory_destroy(out_m);
    for (int k = 0; k < MAX_PO; k++) {
        dnnl_memory_destroy(bin_m[k]);
        dnnl_memory_desc_destroy(bin_md[k]);
        free(bin_buf[k]);
    }
    dnnl_post_ops_destroy(po);
    dnnl_primitive_attr_destroy(attr);
    dnnl_memory_desc_destroy(in_md);
    dnnl_memory_desc_destroy(out_md);
    free(in_buf);
    free(out_buf);
    return status;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: diff3 SEED COUNT [FIRST]\n"); return 2; }
    setvbuf(stdout, NULL, _IOFBF, 1 << 20);
    uint64_t seed = strtoull(argv[1], NULL, 10);
    int count = atoi(argv[2]), first = argc > 3 ? atoi(argv[3]) : 0;
    const dnnl_version_t *v = dnnl_version();
    printf("I version %d.%d.%d\n", v->major, v->minor, v->patch);
    if (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success) return 1;
    if (dnnl_stream_create(&strm, eng, dnnl_stream_default_flags) != dnnl_success) return 1;
    for (int i = first; i < count; i++) {
        problem_t p;
        rs = seed * 1000003ull + (uint64_t)i;
        gen(&p);
        uint64_t dseed = rnd();
        describe(i, &p);
        dnnl_status_t s = run(&p, dseed, p.dt_in, p.dt_out, 1);
        if (s == dnnl_unimplemented && (low_precision(p.dt_in) || low_precision(p.dt_out))) {
            printf("I emulated\n");
            run(&p, dseed, low_precision(p.dt_in) ? dnnl_f32 : p.dt_in,
                    low_precision(p.dt_out) ? dnnl_f32 : p.dt_out, 0);
        }
        printf("X\n");
        fflush(stdout); /* a crash of the library loses no finished problem */
    }
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return 0;
}
