// link: -lm
/*
 * onednn_diff.c — differential driver for the oneDNN 2.6 resampling C API.
 *
 * Written against the REAL oneDNN 2.6 C header (`oneapi/dnnl/dnnl.h`) only. The same source
 * is compiled twice by tests/onednn_diff.rs: once against libdnnl.so.2 and once against
 * libresample.so (with -I <repo>/include). Both binaries are run with the same arguments and
 * their dumps are compared (statuses and dims exactly, values per the benchdnn rules).
 *
 * Usage: onednn_diff SEED COUNT [flags...]
 *   --ext         switch on everything of issue #3: --blocked --mixed --postops --f16
 *                 --strided --xtag
 *   --blocked     nCx8c / nCx16c layouts (aBc8b, aBcd16b, ...)
 *   --mixed       src/dst data type mixes of {f32, bf16, s32, s8, u8}
 *   --f16         f16 problems (2.6.3 CPU: unimplemented)
 *   --postops     forward post-op chains (sum, eltwise, binary); attrs on backward
 *   --strided     arbitrary (padded, permuted) strides via init_by_strides
 *   --xtag        dst layout differs from src layout
 *   --no-edge     no deliberately invalid / edge problems (on by default, ~8%)
 *   --impl=ref    pick the "ref:any" implementation through the pd iterator (real oneDNN
 *                 only; used to measure how far jit and ref legitimately differ)
 *   --only=N      run problem N only (same problem as in a full run)
 *   --inputs      also print the input values ("I input|src1|dst_before ..." lines)
 *   -o FILE       write the dump to FILE instead of stdout
 *
 * Compile with -DONEDNN_DIFF_ISSUE3 to include the post-op / output-scale code (the API of
 * issue #3); without it --postops is refused, and the attribute edge cases use the
 * scratchpad mode instead (dnnl_primitive_attr_set_scratchpad_mode).
 *
 * The problem sequence depends only on SEED, the problem index and the flags: every problem
 * has its own PRNG, so a library result can never shift the problems that follow.
 *
 * Dump format (text, one item per line; the comparator in tests/onednn_diff.rs parses it):
 *   P <index> <human readable description>
 *   T <alg> <dir> <dt_in> <dt_out> <eltwise> <terms> <sum>
 *                                              test meta: dt_in = fwd src / bwd diff_src,
 *                                              dt_out = fwd dst / bwd diff_dst, terms = the
 *                                              most values one bwd output element sums
 *   K <name> <integer>                         status of an API call (or an integer query)
 *   M <name> <md description>                  memory desc queried from the pd
 *   Q <name> <tokens>                          other query results (op desc fields)
 *   I <name> <text>                            information only, never compared
 *   V <dt> <count>                             followed by <count> values in logical order
 *                                              (floats as f32 bit patterns in hex, integers
 *                                              in decimal), then a line "E"
 *   A <dt> <count>                             linear or bwd, no post-ops: output for input
 *                                              |x| (same primitive), i.e. sum(w_i*|x_i|),
 *                                              the scale of the rounding error; same format
 *   F <dt> <count>                             integer results: the same problem with an f32
 *                                              result tensor (value before the conversion)
 *   G <dt> <count>                             the A block of the F run
 *   B <dt> <count>                             output of a defective libdnnl implementation
 *                                              (after "I defect NAME"; evidence only)
 *   I f16_emulated / I emu <line>              libdnnl refused an f16 problem; the lines of
 *                                              its f32 emulation (see run_problem)
 *   X                                          end of problem
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneapi/dnnl/dnnl.h"

/* ------------------------------------------------------------------------------------------ */
/* PRNG (splitmix64)                                                                          */

typedef struct {
    uint64_t s;
} rng_t;

static uint64_t rnd(rng_t *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int64_t rint_range(rng_t *r, int64_t lo, int64_t hi) {
    return lo + (int64_t)(rnd(r) % (uint64_t)(hi - lo + 1));
}
static double runif(rng_t *r) { return (double)(rnd(r) >> 11) * (1.0 / 9007199254740992.0); }
static int chance(rng_t *r, int percent) { return (int)(rnd(r) % 100) < percent; }

/* ------------------------------------------------------------------------------------------ */
/* Flags and problem description                                                              */

enum {
    F_EDGE = 1 << 0,
    F_BLOCKED = 1 << 1,
    F_MIXED = 1 << 2,
    F_POSTOPS = 1 << 3,
    F_F16 = 1 << 4,
    F_STRIDED = 1 << 5,
    F_XTAG = 1 << 6,
    F_IMPL_REF = 1 << 7,
    F_INPUTS = 1 << 8, /* print the input values as "I" lines (reproducing a mismatch) */
};

/* layout kinds */
enum { L_PLAIN, L_CLAST, L_B8, L_B16, L_STRIDED, L_ANY, L_NULL };
static const char *layout_name[] = {"plain", "clast", "b8", "b16", "strided", "any", "null"};

/* deliberately invalid or unusual problems (status-code comparison) */
enum {
    E_NONE,
    E_BAD_ALG,
    E_NDIMS6,
    E_NDIMS_MISMATCH,
    E_C_MISMATCH,
    E_MB_MISMATCH,
    E_SRC_ANY_FWD,
    E_NO_DST_NO_FACTORS,
    E_FWD_PROP_BWD,
    E_FWD_PROP_UNDEF,
    E_ZERO_MB,
    E_ZERO_SPATIAL,
    E_RUNTIME_DIM,
    E_BWD_NO_HINT,
    E_OUTPUT_SCALES,
    E_BWD_ATTR,
    E_EXEC_MISSING_DST,
    E_EXEC_DUP_ARG,
    E_EXEC_EXTRA_ARG,
    E_EXEC_NULL_MEM,
    E_EXEC_WRONG_DIR_ARG,
    E_COUNT
};
static const char *edge_name[] = {"none", "bad_alg", "ndims6", "ndims_mismatch", "c_mismatch",
        "mb_mismatch", "src_any_fwd", "no_dst_no_factors", "fwd_prop_bwd", "fwd_prop_undef",
        "zero_mb", "zero_spatial", "runtime_dim", "bwd_no_hint",
#ifdef ONEDNN_DIFF_ISSUE3
        "output_scales", "bwd_attr_sum",
#else
        "fwd_attr_scratchpad_user", "bwd_attr_scratchpad_user",
#endif
        "exec_missing_dst", "exec_dup_arg", "exec_extra_arg", "exec_null_mem",
        "exec_wrong_dir_arg"};

#define MAX_PO 4
typedef struct {
    int kind; /* 0 sum, 1 eltwise, 2 binary */
    float scale, alpha, beta;
    dnnl_alg_kind_t alg;
    int bcast; /* binary: 0 scalar, 1 per_oc, 2 full tensor */
    dnnl_data_type_t dt;
    int sum_v2; /* sum: appended with dnnl_post_ops_append_sum_v2(scale, dst data type) */
} postop_t;

typedef struct {
    int index;
    int bwd;
    dnnl_prop_kind_t prop; /* forward prop kind (for bwd: the hint's) */
    dnnl_alg_kind_t alg;
    int ndims;
    dnnl_dim_t mb, ic, in_sp[3], out_sp[3];
    dnnl_data_type_t dt_in, dt_out; /* fwd: src, dst; bwd: diff_src, diff_dst */
    int lay_in, lay_out;            /* layout kind of the in / out tensors (L_*) */
    int use_factors;
    float factors[3];
    int perm_in, perm_out;          /* strided: 0 = channels-first order, 1 = channels-last */
    dnnl_dim_t pad_in[5], pad_out[5]; /* strided: extra elements per dim */
    int hint_dst_any;               /* bwd: the forward hint's dst is format any */
    int dd_any;                     /* bwd: diff_dst given as format any (from the hint) */
    int alloc_lib;                  /* dst memory: 0 user pointer, 1 DNNL_MEMORY_ALLOCATE */
    int n_po;
    postop_t po[MAX_PO];
    int edge;
} prob_t;

static const char *dt_name(dnnl_data_type_t dt) {
    switch (dt) {
        case dnnl_f32: return "f32";
        case dnnl_bf16: return "bf16";
        case dnnl_f16: return "f16";
        case dnnl_s32: return "s32";
        case dnnl_s8: return "s8";
        case dnnl_u8: return "u8";
        default: return "undef";
    }
}

static dnnl_format_tag_t tag_for(int lay, int ndims) {
    static const dnnl_format_tag_t plain[3] = {dnnl_abc, dnnl_abcd, dnnl_abcde};
    static const dnnl_format_tag_t clast[3] = {dnnl_acb, dnnl_acdb, dnnl_acdeb};
    static const dnnl_format_tag_t b8[3] = {dnnl_aBc8b, dnnl_aBcd8b, dnnl_aBcde8b};
    static const dnnl_format_tag_t b16[3] = {dnnl_aBc16b, dnnl_aBcd16b, dnnl_aBcde16b};
    int k = ndims - 3;
    if (k < 0 || k > 2) return dnnl_format_tag_undef;
    switch (lay) {
        case L_PLAIN: return plain[k];
        case L_CLAST: return clast[k];
        case L_B8: return b8[k];
        case L_B16: return b16[k];
        case L_ANY: return dnnl_format_tag_any;
        default: return dnnl_format_tag_undef;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Problem generation                                                                         */

static dnnl_data_type_t pick_dt(rng_t *r, unsigned flags) {
    if (flags & F_MIXED) {
        static const dnnl_data_type_t all[5] = {dnnl_f32, dnnl_bf16, dnnl_s32, dnnl_s8, dnnl_u8};
        return all[rint_range(r, 0, 4)];
    }
    return chance(r, 70) ? dnnl_f32 : dnnl_bf16;
}

static int pick_layout(rng_t *r, unsigned flags) {
    int opts[5], n = 0;
    opts[n++] = L_PLAIN;
    opts[n++] = L_CLAST;
    if (flags & F_BLOCKED) {
        opts[n++] = L_B8;
        opts[n++] = L_B16;
    }
    if (flags & F_STRIDED) opts[n++] = L_STRIDED;
    return opts[rint_range(r, 0, n - 1)];
}

static dnnl_dim_t pick_size(rng_t *r, dnnl_dim_t max) {
    /* small sizes are over-represented: they exercise borders the most */
    if (chance(r, 15)) return rint_range(r, 1, 3);
    return rint_range(r, 1, max);
}

/* every eltwise algorithm of 2.6.3 (forward formulas: docs/spec/onednn.md §6.1) */
static const dnnl_alg_kind_t all_eltwise[] = {dnnl_eltwise_relu, dnnl_eltwise_tanh,
        dnnl_eltwise_elu, dnnl_eltwise_square, dnnl_eltwise_abs, dnnl_eltwise_sqrt,
        dnnl_eltwise_linear, dnnl_eltwise_bounded_relu, dnnl_eltwise_soft_relu,
        dnnl_eltwise_logistic, dnnl_eltwise_exp, dnnl_eltwise_gelu_tanh, dnnl_eltwise_swish,
        dnnl_eltwise_log, dnnl_eltwise_clip, dnnl_eltwise_clip_v2, dnnl_eltwise_pow,
        dnnl_eltwise_gelu_erf, dnnl_eltwise_round, dnnl_eltwise_logsigmoid, dnnl_eltwise_mish,
        dnnl_eltwise_hardswish, dnnl_eltwise_relu_use_dst_for_bwd,
        dnnl_eltwise_tanh_use_dst_for_bwd, dnnl_eltwise_elu_use_dst_for_bwd,
        dnnl_eltwise_sqrt_use_dst_for_bwd, dnnl_eltwise_logistic_use_dst_for_bwd,
        dnnl_eltwise_exp_use_dst_for_bwd, dnnl_eltwise_clip_v2_use_dst_for_bwd};
#define N_ELTWISE ((int)(sizeof(all_eltwise) / sizeof(all_eltwise[0])))
/* every binary operator */
static const dnnl_alg_kind_t all_binary[] = {dnnl_binary_add, dnnl_binary_mul, dnnl_binary_max,
        dnnl_binary_min, dnnl_binary_div, dnnl_binary_sub, dnnl_binary_ge, dnnl_binary_gt,
        dnnl_binary_le, dnnl_binary_lt, dnnl_binary_eq, dnnl_binary_ne};
#define N_BINARY ((int)(sizeof(all_binary) / sizeof(all_binary[0])))

/* `full`: every post-op kind, eltwise algorithm, binary operator, src1 data type and
 * broadcast (--ext); otherwise the small issue-#3 subset of the first version */
static void gen_postops(rng_t *r, prob_t *p, int full) {
    p->n_po = (int)rint_range(r, 1, full ? MAX_PO : 3);
    for (int i = 0; i < p->n_po; i++) {
        postop_t *po = &p->po[i];
        memset(po, 0, sizeof(*po));
        int k = (int)rint_range(r, 0, 2);
        po->kind = k;
        if (k == 0) {
            static const float sc[5] = {1.f, 0.5f, -2.f, 0.25f, 1.5f};
            po->scale = sc[rint_range(r, 0, full ? 4 : 3)];
            po->sum_v2 = full && chance(r, 25); /* append_sum_v2 with the dst data type */
        } else if (k == 1) {
            static const dnnl_alg_kind_t ea[6] = {dnnl_eltwise_relu, dnnl_eltwise_linear,
                    dnnl_eltwise_clip, dnnl_eltwise_abs, dnnl_eltwise_square,
                    dnnl_eltwise_bounded_relu};
            po->alg = full ? all_eltwise[rint_range(r, 0, N_ELTWISE - 1)] : ea[rint_range(r, 0, 5)];
            static const float esc[5] = {1.f, 1.f, 0.5f, 2.f, -1.5f};
            po->scale = full ? esc[rint_range(r, 0, 4)] : 1.f;
            po->alpha = (float)rint_range(r, -4, 4) * 0.5f;
            po->beta = (float)rint_range(r, -4, 8) * 0.5f;
            if (po->alg == dnnl_eltwise_pow) {
                static const float pb[6] = {0.5f, 2.f, 3.f, -1.f, 1.5f, 0.f};
                po->beta = pb[rint_range(r, 0, 5)];
            }
            if ((po->alg == dnnl_eltwise_clip || po->alg == dnnl_eltwise_clip_v2
                        || po->alg == dnnl_eltwise_clip_v2_use_dst_for_bwd)
                    && po->beta < po->alpha) {
                float t = po->alpha;
                po->alpha = po->beta;
                po->beta = t;
            }
            if (po->alg == dnnl_eltwise_bounded_relu && po->alpha < 0) po->alpha = -po->alpha;
            /* the use_dst_for_bwd variants require alpha >= 0 (relu, elu) and clip_v2's
             * alpha <= beta; keep them valid so that both libraries accept them */
            if ((po->alg == dnnl_eltwise_relu_use_dst_for_bwd
                        || po->alg == dnnl_eltwise_elu_use_dst_for_bwd)
                    && po->alpha < 0)
                po->alpha = -po->alpha;
        } else {
            static const dnnl_alg_kind_t ba[4]
                    = {dnnl_binary_add, dnnl_binary_mul, dnnl_binary_max, dnnl_binary_min};
            static const dnnl_data_type_t bdt[5]
                    = {dnnl_f32, dnnl_bf16, dnnl_s8, dnnl_u8, dnnl_s32};
            po->alg = full ? all_binary[rint_range(r, 0, N_BINARY - 1)] : ba[rint_range(r, 0, 3)];
            po->bcast = (int)rint_range(r, 0, 2);
            if (full)
                po->dt = chance(r, 50) ? dnnl_f32 : bdt[rint_range(r, 1, 4)];
            else
                po->dt = chance(r, 75) ? dnnl_f32 : dnnl_s8;
        }
    }
}

static void gen_problem(prob_t *p, uint64_t seed, int index, unsigned flags) {
    rng_t r = {seed * 0x100000001B3ull + (uint64_t)index * 0x9E3779B97F4A7C15ull + 12345};
    memset(p, 0, sizeof(*p));
    p->index = index;
    p->bwd = chance(&r, 35);
    /* with post-ops, the first problems sweep every eltwise algorithm and binary operator
     * (forward, as the first entry of a random chain), so that every run covers them */
    int sweep = (flags & F_POSTOPS) && index < N_ELTWISE + N_BINARY ? index + 1 : 0;
    if (sweep) p->bwd = 0;
    /* with mixed types, the next 54 problems sweep the 25 src x dst pairs and two f16 ones,
     * forward and backward */
    int dbase = (flags & F_POSTOPS) ? N_ELTWISE + N_BINARY : 0;
    int dsweep = (flags & F_MIXED) && index >= dbase && index < dbase + 54 ? index - dbase + 1 : 0;
    if (dsweep) p->bwd = dsweep > 27;
    p->prop = chance(&r, 50) ? dnnl_forward_training : dnnl_forward_inference;
    p->alg = chance(&r, 50) ? dnnl_resampling_nearest : dnnl_resampling_linear;
    p->ndims = (int)rint_range(&r, 3, 5);
    p->mb = rint_range(&r, 1, 3);
    p->ic = rint_range(&r, 1, 20);
    int nsp = p->ndims - 2;
    dnnl_dim_t maxsz = p->ndims == 5 ? 16 : 64;
    p->use_factors = chance(&r, 15) && !dsweep;
    for (int i = 0; i < nsp; i++) {
        p->in_sp[i] = pick_size(&r, maxsz);
        if (p->use_factors) {
            static const float fl[8] = {0.5f, 0.33f, 1.5f, 2.f, 0.75f, 2.5f, 1.25f, 3.f};
            p->factors[i] = chance(&r, 50) ? fl[rint_range(&r, 0, 7)]
                                           : (float)(0.25 + 2.75 * runif(&r));
            /* the same float product oneDNN 2.6 computes, truncated toward zero */
            p->out_sp[i] = (dnnl_dim_t)((float)p->in_sp[i] * p->factors[i]);
            if (p->out_sp[i] < 1) {
                /* keep it non-empty: push the factor up so that the product is >= 1 */
                p->factors[i] = 1.5f / (float)p->in_sp[i];
                p->out_sp[i] = (dnnl_dim_t)((float)p->in_sp[i] * p->factors[i]);
            }
        } else {
            int mode = (int)rint_range(&r, 0, 9);
            if (mode == 0)
                p->out_sp[i] = p->in_sp[i] * 2 > maxsz ? p->in_sp[i] : p->in_sp[i] * 2;
            else if (mode == 1)
                p->out_sp[i] = p->in_sp[i] / 2 > 0 ? p->in_sp[i] / 2 : 1;
            else if (mode == 2)
                p->out_sp[i] = p->in_sp[i];
            else
                p->out_sp[i] = pick_size(&r, maxsz);
        }
    }
    /* keep every tensor below ~20k elements (runtime and dump size) */
    for (;;) {
        dnnl_dim_t pin = 1, pout = 1;
        for (int i = 0; i < nsp; i++) {
            pin *= p->in_sp[i];
            pout *= p->out_sp[i];
        }
        dnnl_dim_t big = pin > pout ? pin : pout;
        if (p->mb * p->ic * big <= 20000) break;
        if (p->ic > 1)
            p->ic = (p->ic + 1) / 2;
        else if (p->mb > 1)
            p->mb--;
        else {
            /* shrink the largest spatial extent of the larger side */
            int bi = 0;
            dnnl_dim_t bv = 0;
            for (int i = 0; i < nsp; i++) {
                dnnl_dim_t v = p->in_sp[i] > p->out_sp[i] ? p->in_sp[i] : p->out_sp[i];
                if (v > bv) {
                    bv = v;
                    bi = i;
                }
            }
            p->in_sp[bi] = (p->in_sp[bi] + 1) / 2;
            if (p->use_factors)
                p->out_sp[bi] = (dnnl_dim_t)((float)p->in_sp[bi] * p->factors[bi]);
            else
                p->out_sp[bi] = (p->out_sp[bi] + 1) / 2;
            if (p->out_sp[bi] < 1) p->out_sp[bi] = 1, p->use_factors = 0;
        }
    }

    /* data types */
    if ((flags & F_F16) && chance(&r, 8)) {
        /* f16 on both sides, or paired with another type (libresample computes f16; 2.6.3
         * refuses it on CPU, the expectation is then libdnnl's f32 result, see run_problem) */
        int side = (int)rint_range(&r, 0, 2);
        p->dt_in = side == 2 ? pick_dt(&r, flags) : dnnl_f16;
        p->dt_out = side == 1 ? pick_dt(&r, flags) : dnnl_f16;
    } else if (flags & F_MIXED) {
        p->dt_in = pick_dt(&r, flags);
        p->dt_out = chance(&r, 40) ? p->dt_in : pick_dt(&r, flags);
    } else {
        p->dt_in = p->dt_out = pick_dt(&r, flags);
    }

    if (dsweep) {
        static const dnnl_data_type_t all[5] = {dnnl_f32, dnnl_bf16, dnnl_s32, dnnl_s8, dnnl_u8};
        int j = (dsweep - 1) % 27;
        if (j < 25) {
            p->dt_in = all[j % 5];
            p->dt_out = all[j / 5];
        } else if (flags & F_F16) {
            p->dt_in = dnnl_f16;
            p->dt_out = j == 25 ? dnnl_f16 : all[index % 5];
        }
    }

    /* layouts: the "in" tensor is given; the "out" one is the same, any, or (xtag) other */
    p->lay_in = pick_layout(&r, flags);
    p->perm_in = chance(&r, 50);
    p->perm_out = (flags & F_XTAG) && chance(&r, 30) ? !p->perm_in : p->perm_in;
    for (int i = 0; i < 5; i++) {
        p->pad_in[i] = chance(&r, 30) ? rint_range(&r, 1, 3) : 0;
        p->pad_out[i] = chance(&r, 30) ? rint_range(&r, 1, 3) : 0;
    }
    if (p->use_factors)
        p->lay_out = L_NULL;
    else if (chance(&r, 40))
        p->lay_out = L_ANY;
    else if ((flags & F_XTAG) && chance(&r, 30))
        p->lay_out = pick_layout(&r, flags);
    else
        p->lay_out = p->lay_in;
    if (p->bwd) {
        /* backward: the computed tensor (diff_src) may be any; diff_dst is given, or any
         * (taken from the forward hint), or NULL (factors) */
        if (p->lay_out == L_ANY && chance(&r, 50)) {
            p->lay_out = p->lay_in;
            p->lay_in = L_ANY; /* diff_src any, diff_dst given */
            p->perm_out = p->perm_in;
        }
    }
    /* a dst (diff_dst) made from factors takes the data type of src (diff_src) */
    if (p->lay_out == L_NULL) p->dt_out = p->dt_in;
    p->alloc_lib = chance(&r, 40);
    p->hint_dst_any = p->bwd && chance(&r, 50);
    p->dd_any = p->bwd && chance(&r, 15);

    /* post-ops: forward on every layout family (where libdnnl picks ref:any, its sum defect
     * is worked around in run_problem); on backward they must be refused (unimplemented) */
    if ((flags & F_POSTOPS) && !p->bwd && (chance(&r, 50) || sweep)) gen_postops(&r, p, 1);
    if (sweep) {
        postop_t *po = &p->po[0];
        int k = sweep - 1;
        if (k < N_ELTWISE) {
            if (po->kind != 1) { /* take alpha / beta / scale from a fresh eltwise entry */
                po->kind = 1;
                po->scale = 1.f;
                po->alpha = (float)rint_range(&r, 0, 4) * 0.5f;
                po->beta = (float)rint_range(&r, 1, 8) * 0.5f;
            }
            po->alg = all_eltwise[k];
            if (po->alpha > po->beta) {
                float t = po->alpha;
                po->alpha = po->beta;
                po->beta = t;
            }
            if (po->alpha < 0) po->alpha = -po->alpha;
            if (po->alg == dnnl_eltwise_pow) po->beta = 2.f;
        } else {
            if (po->kind != 2) {
                po->kind = 2;
                po->bcast = (int)rint_range(&r, 0, 2);
                po->dt = dnnl_f32;
            }
            po->alg = all_binary[k - N_ELTWISE];
        }
    }
    if ((flags & F_POSTOPS) && p->bwd && chance(&r, 5) && !dsweep) gen_postops(&r, p, 1); /* unimpl */

    if ((flags & F_EDGE) && chance(&r, 8) && !sweep && !dsweep) {
        p->edge = (int)rint_range(&r, 1, E_COUNT - 1);
        p->n_po = 0;
        if (p->edge == E_BWD_NO_HINT || p->edge == E_BWD_ATTR) p->bwd = 1;
        if (p->edge == E_FWD_PROP_BWD || p->edge == E_FWD_PROP_UNDEF
                || p->edge == E_SRC_ANY_FWD || p->edge == E_OUTPUT_SCALES)
            p->bwd = 0;
        if (p->edge == E_NO_DST_NO_FACTORS) {
            p->use_factors = 0;
            p->lay_out = L_NULL;
            if (p->bwd && p->lay_in == L_ANY) p->lay_in = L_PLAIN;
        }
        if (p->edge == E_SRC_ANY_FWD) p->lay_in = L_ANY;
        if (p->edge == E_ZERO_MB) p->mb = 0;
        if (p->edge == E_RUNTIME_DIM) {
            p->use_factors = 0;
            if (p->lay_out == L_NULL || p->lay_out == L_STRIDED || p->lay_out == L_ANY)
                p->lay_out = L_PLAIN;
            if (p->lay_in == L_ANY) p->lay_in = L_PLAIN;
        }
        if (p->edge == E_ZERO_SPATIAL) {
            p->use_factors = 0;
            if (p->lay_out == L_NULL) p->lay_out = L_ANY;
            p->out_sp[rint_range(&r, 0, nsp - 1)] = 0;
        }
        if (p->edge == E_BWD_NO_HINT && p->lay_out == L_NULL) p->lay_out = p->lay_in == L_ANY ? L_PLAIN : p->lay_in;
        if (p->edge == E_BWD_NO_HINT && p->lay_out == L_ANY) p->lay_out = p->lay_in == L_ANY ? L_PLAIN : p->lay_in;
        if (p->edge == E_BWD_NO_HINT && p->lay_in == L_ANY) p->lay_in = L_ANY;
        /* f16 is not part of the edge cases (2.6.3 refuses it before any of them) */
        if (p->dt_in == dnnl_f16) p->dt_in = dnnl_f32;
        if (p->dt_out == dnnl_f16) p->dt_out = dnnl_f32;
#ifdef ONEDNN_DIFF_ISSUE3
        if (p->edge == E_BWD_ATTR) {
            /* a sum post-op on backward */
            p->n_po = 1;
            memset(&p->po[0], 0, sizeof(p->po[0]));
            p->po[0].kind = 0;
            p->po[0].scale = 1.f;
        }
#endif
    }
}

static void describe(FILE *o, const prob_t *p) {
    static const char *spn[3][3] = {{"w", "", ""}, {"h", "w", ""}, {"d", "h", "w"}};
    int nsp = p->ndims - 2;
    fprintf(o, "P %d %s %s %s %s>%s in=%s%s out=%s%s mb%ldic%ld", p->index,
            p->bwd ? "backward_data" : "forward",
            p->prop == dnnl_forward_training ? "training" : "inference",
            p->alg == dnnl_resampling_nearest ? "nearest" : "linear", dt_name(p->dt_in),
            dt_name(p->dt_out), layout_name[p->lay_in],
            p->lay_in == L_STRIDED ? (p->perm_in ? "(cl)" : "(cf)") : "", layout_name[p->lay_out],
            p->lay_out == L_STRIDED ? (p->perm_out ? "(cl)" : "(cf)") : "", (long)p->mb,
            (long)p->ic);
    for (int i = 0; i < nsp; i++)
        fprintf(o, "_i%s%ldo%s%ld", spn[nsp - 1][i], (long)p->in_sp[i], spn[nsp - 1][i],
                (long)p->out_sp[i]);
    if (p->use_factors) {
        fprintf(o, " factors=");
        for (int i = 0; i < nsp; i++) fprintf(o, "%s%.9g", i ? "," : "", p->factors[i]);
    }
    if (p->alloc_lib) fprintf(o, " dst_alloc=lib");
    if (p->hint_dst_any) fprintf(o, " hint_dst=any");
    if (p->dd_any && p->lay_out != L_NULL) fprintf(o, " diff_dst=any");
    for (int i = 0; i < p->n_po; i++) {
        const postop_t *po = &p->po[i];
        fprintf(o, "%s", i ? "+" : " post_ops=");
        if (po->kind == 0)
            fprintf(o, "sum%s:%g", po->sum_v2 ? "_v2" : "", po->scale);
        else if (po->kind == 1)
            fprintf(o, "eltwise_%#x:%g:%g:%g", (unsigned)po->alg, po->alpha, po->beta,
                    po->scale);
        else
            fprintf(o, "binary_%#x:%s:%s", (unsigned)po->alg, dt_name(po->dt),
                    po->bcast == 0 ? "scalar" : po->bcast == 1 ? "per_oc" : "full");
    }
    if (p->edge) fprintf(o, " edge=%s", edge_name[p->edge]);
    fprintf(o, "\n");
    int elt = 0;
    for (int i = 0; i < p->n_po; i++)
        if (p->po[i].kind == 1) elt = 1;
    /* backward: the most diff_dst terms one diff_src element can sum (per axis ceil(O/I)+1
     * outputs map to one input; linear counts both taps) */
    long terms = 1;
    if (p->bwd)
        for (int i = 0; i < nsp; i++) {
            long in = p->in_sp[i] > 0 ? (long)p->in_sp[i] : 1, out = (long)p->out_sp[i];
            long k = (out + in - 1) / in + 1;
            terms *= p->alg == dnnl_resampling_linear ? 2 * k : k;
        }
    int sum = 0;
    for (int i = 0; i < p->n_po; i++)
        if (p->po[i].kind == 0) sum = 1;
    fprintf(o, "T %s %s %s %s %d %ld %d\n", p->alg == dnnl_resampling_nearest ? "nearest" : "linear",
            p->bwd ? "bwd" : "fwd", dt_name(p->dt_in), dt_name(p->dt_out), elt, terms, sum);
}

/* ------------------------------------------------------------------------------------------ */
/* Memory descriptors, element access                                                         */

static void full_dims(const prob_t *p, int which_out, dnnl_dims_t d) {
    memset(d, 0, sizeof(dnnl_dims_t));
    d[0] = p->mb;
    d[1] = p->ic;
    for (int i = 0; i < p->ndims - 2; i++) d[2 + i] = which_out ? p->out_sp[i] : p->in_sp[i];
}

/* init an md of layout kind `lay`; returns the status of the init call */
static dnnl_status_t init_md(dnnl_memory_desc_t *md, const prob_t *p, int which_out, int lay,
        dnnl_data_type_t dt, int ndims_override) {
    dnnl_dims_t d;
    full_dims(p, which_out, d);
    int nd = ndims_override ? ndims_override : p->ndims;
    if (nd == 6) {
        d[5] = 2;
        return dnnl_memory_desc_init_by_tag(md, 6, d, dt, dnnl_abcdef);
    }
    if (lay == L_STRIDED) {
        const dnnl_dim_t *pad = which_out ? p->pad_out : p->pad_in;
        int cl = which_out ? p->perm_out : p->perm_in;
        int order[5], n = 0;
        /* innermost last */
        order[n++] = 0;
        if (cl) {
            for (int i = 2; i < nd; i++) order[n++] = i;
            order[n++] = 1;
        } else {
            for (int i = 1; i < nd; i++) order[n++] = i;
        }
        dnnl_dims_t s;
        dnnl_dim_t st = 1;
        for (int k = nd - 1; k >= 0; k--) {
            int dim = order[k];
            s[dim] = st;
            st *= d[dim] + pad[dim];
        }
        return dnnl_memory_desc_init_by_strides(md, nd, d, dt, s);
    }
    return dnnl_memory_desc_init_by_tag(md, nd, d, dt, tag_for(lay, nd));
}

/* physical element offset of logical index `pos` (oneDNN blocked rules) */
static dnnl_dim_t md_off(const dnnl_memory_desc_t *md, const dnnl_dim_t *pos_in) {
    const dnnl_blocking_desc_t *b = &md->format_desc.blocking;
    dnnl_dim_t pos[DNNL_MAX_NDIMS];
    for (int d = 0; d < md->ndims; d++) pos[d] = pos_in[d] + md->padded_offsets[d];
    dnnl_dim_t phys = md->offset0, blk_stride = 1;
    for (int k = b->inner_nblks - 1; k >= 0; k--) {
        int d = (int)b->inner_idxs[k];
        phys += (pos[d] % b->inner_blks[k]) * blk_stride;
        pos[d] /= b->inner_blks[k];
        blk_stride *= b->inner_blks[k];
    }
    for (int d = 0; d < md->ndims; d++) phys += pos[d] * b->strides[d];
    return phys;
}

static dnnl_dim_t md_nelems(const dnnl_memory_desc_t *md) {
    if (md->ndims == 0) return 0;
    dnnl_dim_t n = 1;
    for (int d = 0; d < md->ndims; d++) n *= md->dims[d];
    return n;
}

static void unravel(const dnnl_memory_desc_t *md, dnnl_dim_t i, dnnl_dim_t *pos) {
    for (int d = md->ndims - 1; d >= 0; d--) {
        pos[d] = md->dims[d] ? i % md->dims[d] : 0;
        i = md->dims[d] ? i / md->dims[d] : 0;
    }
}

static uint32_t f2u(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float u2f(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint16_t f32_to_bf16(float f) {
    uint32_t u = f2u(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}
static float bf16_to_f32(uint16_t h) { return u2f((uint32_t)h << 16); }
static uint16_t f32_to_f16(float f) { /* RNE, enough for the small values used here */
    uint32_t u = f2u(f), sign = (u >> 16) & 0x8000u;
    int e = (int)((u >> 23) & 0xff) - 127 + 15;
    uint32_t m = u & 0x7fffffu;
    if (((u >> 23) & 0xff) == 0xff) return (uint16_t)(sign | 0x7c00u | (m ? 0x200u : 0));
    if (e >= 31) return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        if (e < -10) return (uint16_t)sign;
        m |= 0x800000u;
        int sh = 14 - e;
        uint32_t hm = m >> sh, rem = m & ((1u << sh) - 1), half = 1u << (sh - 1);
        if (rem > half || (rem == half && (hm & 1))) hm++;
        return (uint16_t)(sign | hm);
    }
    uint32_t hm = m >> 13, rem = m & 0x1fffu;
    uint32_t h = sign | ((uint32_t)e << 10) | hm;
    if (rem > 0x1000u || (rem == 0x1000u && (hm & 1))) h++;
    return (uint16_t)h;
}
static float f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu;
    if (e == 0) {
        float v = (float)m * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    if (e == 31) return u2f(sign | 0x7f800000u | (m << 13));
    return u2f(sign | ((e - 15 + 127) << 23) | (m << 13));
}

static void store(void *base, dnnl_dim_t off, dnnl_data_type_t dt, double v) {
    char *p = (char *)base;
    switch (dt) {
        case dnnl_f32: ((float *)p)[off] = (float)v; break;
        case dnnl_bf16: ((uint16_t *)p)[off] = f32_to_bf16((float)v); break;
        case dnnl_f16: ((uint16_t *)p)[off] = f32_to_f16((float)v); break;
        case dnnl_s32: ((int32_t *)p)[off] = (int32_t)v; break;
        case dnnl_s8: ((int8_t *)p)[off] = (int8_t)v; break;
        case dnnl_u8: ((uint8_t *)p)[off] = (uint8_t)v; break;
        default: break;
    }
}

static double load(const void *base, dnnl_dim_t off, dnnl_data_type_t dt) {
    const char *p = (const char *)base;
    switch (dt) {
        case dnnl_f32: return ((const float *)p)[off];
        case dnnl_bf16: return bf16_to_f32(((const uint16_t *)p)[off]);
        case dnnl_f16: return f16_to_f32(((const uint16_t *)p)[off]);
        case dnnl_s32: return ((const int32_t *)p)[off];
        case dnnl_s8: return ((const int8_t *)p)[off];
        case dnnl_u8: return ((const uint8_t *)p)[off];
        default: return 0;
    }
}

/* replace every logical element by its magnitude (s8: |-128| saturates to 127) */
static void make_abs(void *base, const dnnl_memory_desc_t *md) {
    dnnl_dim_t n = md_nelems(md), pos[DNNL_MAX_NDIMS];
    for (dnnl_dim_t i = 0; i < n; i++) {
        unravel(md, i, pos);
        dnnl_dim_t off = md_off(md, pos);
        double v = fabs(load(base, off, md->data_type));
        if (md->data_type == dnnl_s8 && v > 127) v = 127;
        if (md->data_type == dnnl_s32 && v > 2147483647.0) v = 2147483647.0;
        store(base, off, md->data_type, v);
    }
}

static void print_elem(FILE *o, const void *base, dnnl_dim_t off, dnnl_data_type_t dt) {
    const char *p = (const char *)base;
    switch (dt) {
        case dnnl_f32: fprintf(o, "%08x", f2u(((const float *)p)[off])); break;
        case dnnl_bf16: fprintf(o, "%08x", f2u(bf16_to_f32(((const uint16_t *)p)[off]))); break;
        case dnnl_f16: fprintf(o, "%08x", f2u(f16_to_f32(((const uint16_t *)p)[off]))); break;
        case dnnl_s32: fprintf(o, "%d", ((const int32_t *)p)[off]); break;
        case dnnl_s8: fprintf(o, "%d", (int)((const int8_t *)p)[off]); break;
        case dnnl_u8: fprintf(o, "%d", (int)((const uint8_t *)p)[off]); break;
        default: fprintf(o, "?"); break;
    }
}

/* a random value representable in dt */
static double rand_val(rng_t *r, dnnl_data_type_t dt) {
    switch (dt) {
        case dnnl_s32:
            return chance(r, 80) ? (double)rint_range(r, -1000, 1000)
                                 : (double)rint_range(r, -100000000, 100000000);
        case dnnl_s8: return (double)rint_range(r, -128, 127);
        case dnnl_u8: return (double)rint_range(r, 0, 255);
        default:
            /* signed, mostly uniform in [-10, 10], some exact small integers and halves */
            if (chance(r, 20)) return (double)rint_range(r, -8, 8);
            if (chance(r, 5)) return (double)rint_range(r, -16, 16) * 0.5;
            return -10.0 + 20.0 * runif(r);
    }
}

/* how the computed-from tensor is filled: random, or (for the spec examples) 0,1,2,...,
 * 1,2,3,... or all ones */
enum { FILL_RANDOM, FILL_IOTA0, FILL_IOTA1, FILL_ONES };

/* a value of data type `val_dt` as the tensor of type `dt` holds it: f16 values kept in an
 * f32 tensor (the f16 emulation) are rounded to f16 first */
static double as_val(double v, dnnl_data_type_t val_dt, dnnl_data_type_t dt) {
    if (val_dt == dnnl_f16 && dt != dnnl_f16) return f16_to_f32(f32_to_f16((float)v));
    return v;
}

/* fill the logical elements of a tensor; padding stays zero (buffer zeroed by the caller).
 * Values follow the distribution of `val_dt` (the problem's data type; the md may hold
 * another one in the f16 emulation / f32-output runs). */
static void fill(rng_t *r, void *base, const dnnl_memory_desc_t *md, int mode,
        dnnl_data_type_t val_dt) {
    dnnl_dim_t n = md_nelems(md), pos[DNNL_MAX_NDIMS];
    for (dnnl_dim_t i = 0; i < n; i++) {
        unravel(md, i, pos);
        double v = mode == FILL_IOTA0 ? (double)i
                : mode == FILL_IOTA1  ? (double)(i + 1)
                : mode == FILL_ONES   ? 1.0
                                      : rand_val(r, val_dt);
        store(base, md_off(md, pos), md->data_type, as_val(v, val_dt, md->data_type));
    }
}

/* `as_f16`: the md holds f32 values of an emulated f16 tensor: print them rounded to f16
 * (the store libdnnl would have done), as data type f16 */
static void dump_values(FILE *o, char tag, const void *base, const dnnl_memory_desc_t *md,
        int as_f16) {
    dnnl_dim_t n = md_nelems(md), pos[DNNL_MAX_NDIMS];
    as_f16 = as_f16 && md->data_type == dnnl_f32;
    fprintf(o, "%c %s %ld\n", tag, as_f16 ? "f16" : dt_name(md->data_type), (long)n);
    for (dnnl_dim_t i = 0; i < n; i++) {
        unravel(md, i, pos);
        if (as_f16)
            fprintf(o, "%08x",
                    f2u(f16_to_f32(f32_to_f16(((const float *)base)[md_off(md, pos)]))));
        else
            print_elem(o, base, md_off(md, pos), md->data_type);
        fputc((i % 16 == 15 || i == n - 1) ? '\n' : ' ', o);
    }
    fprintf(o, "E\n");
}

static void dump_md(FILE *o, const char *pfx, const char *name, const dnnl_memory_desc_t *md) {
    if (!md) {
        fprintf(o, "%sM %s null\n", pfx, name);
        return;
    }
    fprintf(o, "%sM %s nd=%d dims=", pfx, name, md->ndims);
    for (int d = 0; d < md->ndims; d++) fprintf(o, "%s%ld", d ? "," : "", (long)md->dims[d]);
    fprintf(o, " dt=%s fk=%d", dt_name(md->data_type), (int)md->format_kind);
    if (md->format_kind == dnnl_blocked) {
        const dnnl_blocking_desc_t *b = &md->format_desc.blocking;
        fprintf(o, " pdims=");
        for (int d = 0; d < md->ndims; d++)
            fprintf(o, "%s%ld", d ? "," : "", (long)md->padded_dims[d]);
        fprintf(o, " strides=");
        for (int d = 0; d < md->ndims; d++)
            fprintf(o, "%s%ld", d ? "," : "", (long)b->strides[d]);
        fprintf(o, " blks=");
        for (int k = 0; k < b->inner_nblks; k++)
            fprintf(o, "%s%ld:%ld", k ? "," : "", (long)b->inner_idxs[k], (long)b->inner_blks[k]);
        fprintf(o, " off0=%ld", (long)md->offset0);
    }
    fprintf(o, " size=%zu\n", dnnl_memory_desc_get_size(md));
}

/* ------------------------------------------------------------------------------------------ */
/* Running one problem                                                                        */

typedef struct {
    FILE *o; /* K / M / Q / I lines (a null sink in the quiet re-runs) */
    dnnl_engine_t eng;
    dnnl_stream_t st;
    unsigned flags;
    FILE *vo;        /* value blocks */
    FILE *null;      /* /dev/null */
    const char *pfx; /* prefix of K / M / Q / I lines: "" or "I emu " (f16 emulation) */
    int no_ref;      /* ignore --impl=ref (the ref:any sum workaround runs) */
} ctx_t;

#define K(name, expr) \
    ({ \
        dnnl_status_t s_ = (expr); \
        fprintf(c->o, "%sK %s %d\n", c->pfx, (name), (int)s_); \
        s_; \
    })

/* pd creation: default (dnnl_primitive_desc_create) or, with --impl=ref, the ref:any entry of
 * the iterator. The status printed is that of the creating call either way. */
static dnnl_status_t make_pd(ctx_t *c, dnnl_primitive_desc_t *pd, const void *op,
        const_dnnl_primitive_attr_t attr, const_dnnl_primitive_desc_t hint) {
    *pd = NULL;
    if (!(c->flags & F_IMPL_REF) || c->no_ref)
        return dnnl_primitive_desc_create(pd, op, attr, c->eng, hint);
    dnnl_primitive_desc_iterator_t it = NULL;
    dnnl_status_t s = dnnl_primitive_desc_iterator_create(&it, op, attr, c->eng, hint);
    if (s != dnnl_success) return s;
    dnnl_primitive_desc_t first = NULL, ref = NULL;
    do {
        dnnl_primitive_desc_t cand = dnnl_primitive_desc_iterator_fetch(it);
        if (!cand) break;
        const char *name = NULL;
        dnnl_primitive_desc_query(cand, dnnl_query_impl_info_str, 0, &name);
        if (!first)
            first = cand;
        else if (!ref && name && strncmp(name, "ref", 3) == 0)
            ref = cand;
        else
            dnnl_primitive_desc_destroy(cand);
        if (first == cand && name && strncmp(name, "ref", 3) == 0) break;
    } while (dnnl_primitive_desc_iterator_next(it) == dnnl_success);
    dnnl_primitive_desc_iterator_destroy(it);
    if (ref) {
        dnnl_primitive_desc_destroy(first);
        *pd = ref;
    } else {
        *pd = first;
    }
    return *pd ? dnnl_success : dnnl_runtime_error;
}

static dnnl_status_t make_attr(ctx_t *c, const prob_t *p, dnnl_data_type_t dst_dt,
        dnnl_primitive_attr_t *attr, dnnl_memory_desc_t *bin_md) {
    *attr = NULL;
#ifndef ONEDNN_DIFF_ISSUE3
    (void)dst_dt;
    (void)bin_md;
    if (p->edge == E_OUTPUT_SCALES || p->edge == E_BWD_ATTR) {
        /* a non-default attribute without the issue #3 API: user scratchpad mode */
        K("attr_create", dnnl_primitive_attr_create(attr));
        return K("attr_scratchpad_user",
                dnnl_primitive_attr_set_scratchpad_mode(*attr, dnnl_scratchpad_mode_user));
    }
    return dnnl_success;
#else
    if (p->edge == E_OUTPUT_SCALES) {
        K("attr_create", dnnl_primitive_attr_create(attr));
        float sc = 2.f;
        return K("attr_output_scales", dnnl_primitive_attr_set_output_scales(*attr, 1, 0, &sc));
    }
    if (!p->n_po) return dnnl_success;
    dnnl_post_ops_t po = NULL;
    K("post_ops_create", dnnl_post_ops_create(&po));
    for (int i = 0; i < p->n_po; i++) {
        const postop_t *q = &p->po[i];
        if (q->kind == 0 && q->sum_v2) {
            K("append_sum_v2", dnnl_post_ops_append_sum_v2(po, q->scale, dst_dt));
        } else if (q->kind == 0) {
            K("append_sum", dnnl_post_ops_append_sum(po, q->scale));
        } else if (q->kind == 1) {
            K("append_eltwise",
                    dnnl_post_ops_append_eltwise(po, q->scale, q->alg, q->alpha, q->beta));
        } else {
            dnnl_dims_t d;
            memset(d, 0, sizeof(d));
            for (int k = 0; k < p->ndims; k++) d[k] = 1;
            if (q->bcast == 1) d[1] = p->ic;
            if (q->bcast == 2) full_dims(p, 1, d);
            K("bin_md_init",
                    dnnl_memory_desc_init_by_tag(&bin_md[i], p->ndims, d, q->dt,
                            tag_for(L_PLAIN, p->ndims)));
            K("append_binary", dnnl_post_ops_append_binary(po, q->alg, &bin_md[i]));
        }
    }
    K("post_ops_len", (dnnl_status_t)dnnl_post_ops_len(po));
    K("attr_create", dnnl_primitive_attr_create(attr));
    dnnl_status_t s = K("attr_set_post_ops", dnnl_primitive_attr_set_post_ops(*attr, po));
    K("post_ops_destroy", dnnl_post_ops_destroy(po));
    return s;
#endif
}

static void dump_pd(ctx_t *c, dnnl_primitive_desc_t pd, int bwd, int ndims) {
    if (bwd) {
        dump_md(c->o, c->pfx, "diff_src_md", dnnl_primitive_desc_query_md(pd, dnnl_query_diff_src_md, 0));
        dump_md(c->o, c->pfx, "diff_dst_md", dnnl_primitive_desc_query_md(pd, dnnl_query_diff_dst_md, 0));
    } else {
        dump_md(c->o, c->pfx, "src_md", dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0));
        dump_md(c->o, c->pfx, "dst_md", dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0));
    }
    fprintf(c->o, "%sK n_inputs %d\n", c->pfx, dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0));
    fprintf(c->o, "%sK n_outputs %d\n", c->pfx, dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_outputs_s32, 0));
    dnnl_prop_kind_t prop = dnnl_prop_kind_undef;
    K("query_prop_kind", dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &prop));
    fprintf(c->o, "%sK prop_kind %d\n", c->pfx, (int)prop);
    dnnl_primitive_kind_t pk = dnnl_undefined_primitive;
    K("query_prim_kind", dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, &pk));
    fprintf(c->o, "%sK prim_kind %d\n", c->pfx, (int)pk);
    const dnnl_resampling_desc_t *rd = NULL;
    if (K("query_resampling_d", dnnl_primitive_desc_query(pd, dnnl_query_resampling_d, 0, &rd))
                    == dnnl_success
            && rd) {
        fprintf(c->o, "%sQ rd kind=%d prop=%d alg=%#x factors=", c->pfx,
                (int)rd->primitive_kind, (int)rd->prop_kind, (unsigned)rd->alg_kind);
        for (int i = 0; i < ndims - 2; i++) fprintf(c->o, "%s%08x", i ? "," : "", f2u(rd->factors[i]));
        fprintf(c->o, "\n");
    }
    const char *impl = NULL;
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    fprintf(c->o, "%sI impl %s\n", c->pfx, impl ? impl : "(null)");
}

static void impl_name(const_dnnl_primitive_desc_t pd, char *buf /* [128] */) {
    const char *name = NULL;
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name);
    snprintf(buf, 128, "%s", name ? name : "(null)");
}

/* The first implementation of the pd iterator, other than `bad`, whose primitive can be
 * created (the prim_create_fails workaround). */
static dnnl_status_t alt_pd(ctx_t *c, const void *op, const_dnnl_primitive_attr_t attr,
        const_dnnl_primitive_desc_t hint, const char *bad, dnnl_primitive_desc_t *pd,
        dnnl_primitive_t *prim) {
    dnnl_primitive_desc_iterator_t it = NULL;
    *pd = NULL;
    *prim = NULL;
    dnnl_status_t s = dnnl_primitive_desc_iterator_create(&it, op, attr, c->eng, hint);
    if (s != dnnl_success) return s;
    s = dnnl_runtime_error;
    do {
        dnnl_primitive_desc_t cand = dnnl_primitive_desc_iterator_fetch(it);
        if (!cand) break;
        char name[128];
        impl_name(cand, name);
        if (strcmp(name, bad) != 0 && dnnl_primitive_create(prim, cand) == dnnl_success) {
            *pd = cand;
            s = dnnl_success;
            break;
        }
        dnnl_primitive_desc_destroy(cand);
    } while (dnnl_primitive_desc_iterator_next(it) == dnnl_success);
    dnnl_primitive_desc_iterator_destroy(it);
    return s;
}

/* buffer for a memory: user pointer (zeroed) or library allocated (zeroed through the handle) */
static dnnl_status_t make_mem(ctx_t *c, const char *name, dnnl_memory_t *m,
        const dnnl_memory_desc_t *md, int lib_alloc, void **user) {
    size_t sz = dnnl_memory_desc_get_size(md);
    *user = NULL;
    *m = NULL;
    if (!lib_alloc) {
        *user = calloc(1, sz + 64);
        if (!*user) return dnnl_out_of_memory;
    }
    dnnl_status_t s = K(name, dnnl_memory_create(m, md, c->eng, lib_alloc ? DNNL_MEMORY_ALLOCATE : *user));
    if (s == dnnl_success && lib_alloc) {
        void *h = NULL;
        dnnl_memory_get_data_handle(*m, &h);
        if (h && sz) memset(h, 0, sz);
    }
    return s;
}

static void *mem_ptr(dnnl_memory_t m) {
    void *h = NULL;
    if (m) dnnl_memory_get_data_handle(m, &h);
    return h;
}

/* --inputs: a tensor's values in logical order on one "I" line */
static void info_values(ctx_t *c, const char *what, const void *base, const dnnl_memory_desc_t *md) {
    dnnl_dim_t n = md_nelems(md), pos[DNNL_MAX_NDIMS];
    fprintf(c->o, "%sI %s %s", c->pfx, what, dt_name(md->data_type));
    for (dnnl_dim_t i = 0; i < n; i++) {
        unravel(md, i, pos);
        fprintf(c->o, " %.9g", load(base, md_off(md, pos), md->data_type));
    }
    fprintf(c->o, "\n");
}

/* How one execution of a problem deviates from the problem as generated (run_problem). */
typedef struct {
    int plain;   /* given tensors in plain (abx) layouts: the ref:any sum workaround */
    int emu_f16; /* f16 tensors as f32 tensors holding f16 values, output rounded to f16 */
    int f32_out; /* the result tensor in f32: its value before the final conversion */
    int mag;     /* only the magnitude run: |src|, |old dst|, the sums with |scale|, no other
                    post-op; printed as the vtag block */
    char vtag;   /* value block tag: 'V' (output), 'F' (f32 output), 'A' / 'G' (mag runs) */
} variant_t;

/* exec_problem results */
enum { R_OK, R_FAIL, R_DEFECT, R_F16_UNIMPL, R_NO_ALT, R_SKIP };

static int has_f16(const prob_t *p) { return p->dt_in == dnnl_f16 || p->dt_out == dnnl_f16; }
static int has_sum(const prob_t *p) {
    for (int i = 0; i < p->n_po; i++)
        if (p->po[i].kind == 0) return 1;
    return 0;
}
/* two eltwise post-ops of one algorithm with different parameters */
static int eltwise_same_alg(const prob_t *p) {
    for (int i = 0; i < p->n_po; i++)
        for (int j = i + 1; j < p->n_po; j++) {
            const postop_t *a = &p->po[i], *b = &p->po[j];
            if (a->kind == 1 && b->kind == 1 && a->alg == b->alg
                    && (a->scale != b->scale || a->alpha != b->alpha || a->beta != b->beta))
                return 1;
        }
    return 0;
}
static int has_bin_nonscalar(const prob_t *p) {
    for (int i = 0; i < p->n_po; i++)
        if (p->po[i].kind == 2 && p->po[i].bcast != 0) return 1;
    return 0;
}
/* a dense row-major (abx) md */
static int md_is_plain(const dnnl_memory_desc_t *md) {
    if (!md || md->format_kind != dnnl_blocked || md->format_desc.blocking.inner_nblks) return 0;
    dnnl_dim_t st = 1;
    for (int d = md->ndims - 1; d >= 0; d--) {
        if (md->dims[d] != 1 && md->format_desc.blocking.strides[d] != st) return 0;
        st *= md->dims[d];
    }
    return md->offset0 == 0;
}
static int is_int_dt(dnnl_data_type_t dt) {
    return dt == dnnl_s8 || dt == dnnl_u8 || dt == dnnl_s32;
}

/* One execution of problem `p0` (as modified by `v`): prints statuses / mds / queries to
 * c->o and the value blocks to c->vo. Returns R_DEFECT when libdnnl picked an implementation
 * with a known defect for the problem (its values are then printed as a 'B' block after an
 * "I defect NAME" line, information only):
 *   ref_any_sum           ref:any with a sum post-op (docs/spec/onednn.md §6: it reads one byte of the
 *                         old dst);
 *   simple_binary_offset  simple:any with a per-channel / full binary post-op and a dst that
 *                         is not plain abx (it reads src1 at the dst's physical offset);
 * R_F16_UNIMPL when a pd of an f16 problem was refused as unimplemented (2.6.3 has no f16 on
 * CPU). A primitive that libdnnl cannot create (runtime_error; "I defect prim_create_fails")
 * is replaced by the next implementation of the pd iterator. */
static int exec_problem(ctx_t *c, const prob_t *p0, uint64_t seed, int fill_mode,
        const variant_t *v) {
    prob_t P = *p0;
    prob_t *p = &P;
    if (v->plain) {
        if (p->lay_in != L_ANY && p->lay_in != L_NULL) p->lay_in = L_PLAIN;
        if (p->lay_out != L_ANY && p->lay_out != L_NULL) p->lay_out = L_PLAIN;
    }
    if (v->emu_f16) {
        if (p->dt_in == dnnl_f16) p->dt_in = dnnl_f32;
        if (p->dt_out == dnnl_f16) p->dt_out = dnnl_f32;
    }
    if (v->f32_out) {
        if (p->bwd)
            p->dt_in = dnnl_f32;
        else
            p->dt_out = dnnl_f32;
        /* a tensor made from factors would take the other one's data type: give the dims
         * (edge cases acting on the dst md had no effect there) */
        if (p->lay_out == L_NULL) {
            p->lay_out = L_ANY;
            p->use_factors = 0;
            if (p->edge == E_C_MISMATCH || p->edge == E_MB_MISMATCH
                    || p->edge == E_NDIMS_MISMATCH || p->edge == E_RUNTIME_DIM)
                p->edge = E_NONE;
        }
    }
    if (v->mag) {
        int n = 0;
        for (int i = 0; i < p->n_po; i++)
            if (p->po[i].kind == 0) {
                p->po[n] = p->po[i];
                p->po[n++].scale = fabsf(p->po[i].scale);
            }
        p->n_po = n;
    }
    /* the value distributions (and f16 rounding) of the generated problem */
    dnnl_data_type_t val_src = p0->bwd ? p0->dt_out : p0->dt_in; /* computed-from tensor */
    dnnl_data_type_t val_dst = p0->bwd ? p0->dt_in : p0->dt_out; /* result tensor */
    int print_f16 = v->emu_f16 && !v->f32_out && val_dst == dnnl_f16;
    int ret = R_FAIL, same_alg = 0;
    const char *defect = NULL;

    rng_t dr = {seed ^ ((uint64_t)p->index * 0xD1B54A32D192ED03ull) ^ 0xabcdefull};

    dnnl_memory_desc_t in_md, out_md, bwd_in_md, bwd_out_md, bin_md[MAX_PO];
    dnnl_memory_desc_t *out_ptr = &out_md;
    memset(bin_md, 0, sizeof(bin_md));
    dnnl_alg_kind_t alg = p->edge == E_BAD_ALG ? (dnnl_alg_kind_t)0x2fff2 : p->alg;
    int nd_in = p->edge == E_NDIMS6 ? 6 : 0;
    int nd_out = p->edge == E_NDIMS_MISMATCH ? (p->ndims == 5 ? 4 : p->ndims + 1) : 0;
    prob_t Q = *p; /* the "out" side may carry mismatched N/C for the edge cases */
    if (p->edge == E_C_MISMATCH) Q.ic = p->ic + 1;
    if (p->edge == E_MB_MISMATCH) Q.mb = p->mb + 1;
    if (nd_out) {
        Q.ndims = nd_out;
        for (int i = 0; i < 3; i++)
            if (!Q.out_sp[i]) Q.out_sp[i] = 2;
    }
    const float *factors = p->use_factors ? p->factors : NULL;
    if (p->edge == E_RUNTIME_DIM) { /* a runtime dim in an otherwise valid problem */
        Q.out_sp[0] = DNNL_RUNTIME_DIM_VAL;
    }

    dnnl_primitive_desc_t fpd = NULL, pd = NULL;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_t prim = NULL;
    dnnl_memory_t m_in = NULL, m_out = NULL, m_bin[MAX_PO] = {0};
    void *u_in = NULL, *u_out = NULL, *u_bin[MAX_PO] = {0};
    dnnl_status_t s;

    /* forward descriptors: src = in tensor, dst = out tensor (for bwd this is the hint) */
    int lay_fwd_in = p->lay_in == L_ANY && p->bwd ? p->lay_out : p->lay_in;
    if (p->edge == E_SRC_ANY_FWD) lay_fwd_in = L_ANY;
    if (lay_fwd_in == L_ANY && !p->bwd && p->edge != E_SRC_ANY_FWD) lay_fwd_in = L_PLAIN;
    s = K("src_md_init", init_md(&in_md, p, 0, lay_fwd_in, p->dt_in, nd_in));
    if (p->lay_out == L_NULL) {
        out_ptr = NULL;
    } else {
        int lay_fwd_out = p->lay_out;
        if (p->hint_dst_any) lay_fwd_out = L_ANY;
        s = K("dst_md_init", init_md(&out_md, &Q, 1, lay_fwd_out, p->dt_out, nd_out));
    }
    if (p->edge == E_NO_DST_NO_FACTORS) factors = NULL;

    dnnl_resampling_desc_t fd, bd;
    memset(&fd, 0, sizeof(fd));
    memset(&bd, 0, sizeof(bd));
    dnnl_prop_kind_t prop = p->prop;
    if (p->edge == E_FWD_PROP_BWD) prop = dnnl_backward_data;
    if (p->edge == E_FWD_PROP_UNDEF) prop = dnnl_prop_kind_undef;
    s = K("fwd_desc_init",
            dnnl_resampling_forward_desc_init(&fd, prop, alg, factors, &in_md, out_ptr));
    if (s == dnnl_success) {
        fprintf(c->o, "%sQ fwd_desc kind=%d prop=%d alg=%#x src_fk=%d dst_fk=%d dst_dims=",
                c->pfx, (int)fd.primitive_kind, (int)fd.prop_kind, (unsigned)fd.alg_kind,
                (int)fd.src_desc.format_kind, (int)fd.dst_desc.format_kind);
        for (int d = 0; d < fd.dst_desc.ndims; d++)
            fprintf(c->o, "%s%ld", d ? "," : "", (long)fd.dst_desc.dims[d]);
        fprintf(c->o, " factors=");
        for (int i = 0; i < p->ndims - 2; i++)
            fprintf(c->o, "%s%08x", i ? "," : "", f2u(fd.factors[i]));
        fprintf(c->o, "\n");
    }
    if (s != dnnl_success) goto done;

    if (!p->bwd) {
        s = make_attr(c, p, p->dt_out, &attr, bin_md);
        s = K("fwd_pd_create", make_pd(c, &pd, &fd, attr, NULL));
        if (s != dnnl_success) goto unimpl;
        dump_pd(c, pd, 0, p->ndims);
    } else {
        if (p->edge != E_BWD_NO_HINT) {
            s = K("hint_pd_create", make_pd(c, &fpd, &fd, NULL, NULL));
            if (s != dnnl_success) goto unimpl;
        }
        /* backward: diff_src = in tensor (tag or any), diff_dst = out tensor (tag, any, NULL) */
        s = K("diff_src_md_init", init_md(&bwd_in_md, p, 0, p->lay_in, p->dt_in, 0));
        const dnnl_memory_desc_t *dd = NULL;
        if (p->lay_out != L_NULL) {
            int lo = p->lay_out;
            if (p->edge != E_BWD_NO_HINT && p->dd_any) lo = L_ANY;
            s = K("diff_dst_md_init", init_md(&bwd_out_md, &Q, 1, lo, p->dt_out, 0));
            dd = &bwd_out_md;
        }
        s = K("bwd_desc_init",
                dnnl_resampling_backward_desc_init(&bd, alg, factors, &bwd_in_md, dd));
        if (s != dnnl_success) goto done;
        fprintf(c->o, "%sQ bwd_desc kind=%d prop=%d alg=%#x factors=", c->pfx,
                (int)bd.primitive_kind, (int)bd.prop_kind, (unsigned)bd.alg_kind);
        for (int i = 0; i < p->ndims - 2; i++)
            fprintf(c->o, "%s%08x", i ? "," : "", f2u(bd.factors[i]));
        fprintf(c->o, "\n");
        if (p->edge == E_BWD_ATTR || p->n_po) make_attr(c, p, p->dt_in, &attr, bin_md);
        s = K("bwd_pd_create", make_pd(c, &pd, &bd, attr, fpd));
        if (s != dnnl_success) goto unimpl;
        dump_pd(c, pd, 1, p->ndims);
    }

    {
        char impl[128];
        impl_name(pd, impl);
        s = dnnl_primitive_create(&prim, pd);
        if (s == dnnl_runtime_error && strncmp(impl, "libresample", 11) != 0) {
            /* libdnnl 2.6.3 defect: a pd whose primitive cannot be created (its jit kernel
             * rejects some post-ops, see README). The expectation then comes from the next
             * implementation of the pd iterator that does create. */
            fprintf(c->o, "%sI defect prim_create_fails %s\n", c->pfx, impl);
            dnnl_primitive_desc_t alt = NULL;
            if (alt_pd(c, p->bwd ? (const void *)&bd : (const void *)&fd, attr, fpd, impl, &alt,
                        &prim)
                    == dnnl_success) {
                dnnl_primitive_desc_destroy(pd);
                pd = alt;
                impl_name(pd, impl);
                fprintf(c->o, "%sI impl_alt %s\n", c->pfx, impl);
                s = dnnl_success;
            }
        }
        /* libdnnl defects worked around by running the problem again with plain layouts
         * (only the real libdnnl names its implementations "ref:any" / "simple:any") */
        same_alg = strncmp(impl, "libresample", 11) != 0 && eltwise_same_alg(p);
        dnnl_data_type_t rdt = p->bwd ? p->dt_in : p->dt_out;
        if (!strncmp(impl, "ref:any", 7) && has_sum(p) && rdt != dnnl_u8) {
            /* (it reads the byte at the element offset: right for u8 only) */
            if (v->plain) {
                ret = R_NO_ALT; /* ref:any is libdnnl's only implementation of the problem */
                goto done;
            }
            defect = "ref_any_sum";
        }
        if (!v->plain && !strncmp(impl, "simple:any", 10) && has_bin_nonscalar(p)
                && !md_is_plain(dnnl_primitive_desc_query_md(
                        pd, p->bwd ? dnnl_query_diff_src_md : dnnl_query_dst_md, 0)))
            defect = "simple_binary_offset";
    }
    s = K("prim_create", s);
    if (s != dnnl_success) goto done;
    if (same_alg) {
        /* libdnnl 2.6.3 defect (README): the second eltwise of an algorithm runs with the
         * first one's parameters; no libdnnl expectation */
        fprintf(c->o, "%sI skip eltwise_same_alg\n", c->pfx);
        ret = R_SKIP;
        goto done;
    }
    {
        const dnnl_memory_desc_t *md_in = dnnl_primitive_desc_query_md(
                pd, p->bwd ? dnnl_query_diff_dst_md : dnnl_query_src_md, 0);
        const dnnl_memory_desc_t *md_out = dnnl_primitive_desc_query_md(
                pd, p->bwd ? dnnl_query_diff_src_md : dnnl_query_dst_md, 0);
        if (!md_in || !md_out) {
            fprintf(c->o, "%sK md_query_null 1\n", c->pfx);
            goto done;
        }
        /* the computed-from tensor (src / diff_dst) */
        s = make_mem(c, "in_mem_create", &m_in, md_in, 0, &u_in);
        if (s != dnnl_success) goto done;
        fill(&dr, mem_ptr(m_in), md_in, fill_mode, val_src);
        if (v->mag) make_abs(mem_ptr(m_in), md_in);
        if (c->flags & F_INPUTS) info_values(c, "input", mem_ptr(m_in), md_in);
        s = make_mem(c, "out_mem_create", &m_out, md_out, p->alloc_lib, &u_out);
        if (s != dnnl_success) goto done;
        {
            /* pre-fill dst: defined values for sum; otherwise a sentinel (NaN / -1) */
            void *h = mem_ptr(m_out);
            dnnl_dim_t n = md_nelems(md_out), pos[DNNL_MAX_NDIMS];
            for (dnnl_dim_t i = 0; i < n; i++) {
                unravel(md_out, i, pos);
                double x = has_sum(p) ? as_val(rand_val(&dr, val_dst), val_dst, md_out->data_type)
                                      : (val_dst == dnnl_u8 ? 77.0 : -77.0);
                store(h, md_off(md_out, pos), md_out->data_type, x);
            }
            if ((c->flags & F_INPUTS) && has_sum(p)) info_values(c, "dst_before", h, md_out);
            if (v->mag) make_abs(h, md_out);
        }
        dnnl_exec_arg_t args[4 + MAX_PO];
        int na = 0;
        int a_in = p->bwd ? DNNL_ARG_DIFF_DST : DNNL_ARG_SRC;
        int a_out = p->bwd ? DNNL_ARG_DIFF_SRC : DNNL_ARG_DST;
        args[na].arg = a_in;
        args[na++].memory = m_in;
        args[na].arg = a_out;
        args[na++].memory = m_out;
        for (int i = 0; i < p->n_po; i++) {
            if (p->po[i].kind != 2) continue;
            s = make_mem(c, "bin_mem_create", &m_bin[i], &bin_md[i], 0, &u_bin[i]);
            if (s != dnnl_success) goto done;
            fill(&dr, mem_ptr(m_bin[i]), &bin_md[i], FILL_RANDOM, bin_md[i].data_type);
            if (c->flags & F_INPUTS) info_values(c, "src1", mem_ptr(m_bin[i]), &bin_md[i]);
            args[na].arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1;
            args[na++].memory = m_bin[i];
        }

        /* execute-rule probes (run before the real execution, which overwrites dst) */
        if (p->edge == E_EXEC_MISSING_DST) {
            K("exec_missing_dst", dnnl_primitive_execute(prim, c->st, 1, args));
        } else if (p->edge == E_EXEC_DUP_ARG) {
            dnnl_exec_arg_t a2[3] = {args[0], args[1], args[0]};
            K("exec_dup_arg", dnnl_primitive_execute(prim, c->st, 3, a2));
        } else if (p->edge == E_EXEC_EXTRA_ARG) {
            dnnl_exec_arg_t a2[3] = {args[0], args[1], {DNNL_ARG_WEIGHTS, m_in}};
            K("exec_extra_arg", dnnl_primitive_execute(prim, c->st, 3, a2));
        } else if (p->edge == E_EXEC_NULL_MEM) {
            dnnl_exec_arg_t a2[3] = {args[0], args[1], {DNNL_ARG_BIAS, NULL}};
            K("exec_null_mem", dnnl_primitive_execute(prim, c->st, 3, a2));
        } else if (p->edge == E_EXEC_WRONG_DIR_ARG) {
            dnnl_exec_arg_t a2[2] = {args[0], {p->bwd ? DNNL_ARG_DST : DNNL_ARG_DIFF_SRC, m_out}};
            K("exec_wrong_dir_arg", dnnl_primitive_execute(prim, c->st, 2, a2));
        }

        s = K("execute", dnnl_primitive_execute(prim, c->st, na, args));
        K("stream_wait", dnnl_stream_wait(c->st));
        if (s != dnnl_success) goto done;
        if (defect) {
            /* the defective implementation's values: evidence only (the comparator counts
             * how many differ from the workaround's); not in the quiet re-runs */
            if (c->o != c->null) {
                fprintf(c->o, "%sI defect %s\n", c->pfx, defect);
                dump_values(c->vo, 'B', mem_ptr(m_out), md_out, print_f16);
            }
            ret = R_DEFECT;
            goto done;
        }
        dump_values(c->vo, v->vtag, mem_ptr(m_out), md_out, print_f16);
        ret = R_OK;
        if (v->mag) goto done;
        /* linear or backward, without post-ops: run again on |input|. By linearity
         * (weights >= 0) that output is sum(w_i * |x_i|), the magnitude the rounding error of
         * each output scales with; the comparator uses it as the denominator of the relative
         * error (signed data cancel, so |expected| alone can be ~0 while the terms are ~10).
         * Forward nearest is a copy and needs none. */
        if ((p->alg == dnnl_resampling_linear || p->bwd) && p->n_po == 0) {
            make_abs(mem_ptr(m_in), md_in);
            s = K("execute_abs", dnnl_primitive_execute(prim, c->st, na, args));
            K("stream_wait", dnnl_stream_wait(c->st));
            if (s == dnnl_success)
                dump_values(c->vo, v->vtag == 'V' ? 'A' : 'G', mem_ptr(m_out), md_out, print_f16);
        }
    }
    goto done;

unimpl:
    if (s == dnnl_unimplemented && has_f16(p0) && !v->emu_f16) ret = R_F16_UNIMPL;

done:
    if (prim) K("prim_destroy", dnnl_primitive_destroy(prim));
    if (pd) K("pd_destroy", dnnl_primitive_desc_destroy(pd));
    if (fpd) K("hint_pd_destroy", dnnl_primitive_desc_destroy(fpd));
    if (attr) K("attr_destroy", dnnl_primitive_attr_destroy(attr));
    if (m_in) K("in_mem_destroy", dnnl_memory_destroy(m_in));
    if (m_out) K("out_mem_destroy", dnnl_memory_destroy(m_out));
    for (int i = 0; i < MAX_PO; i++)
        if (m_bin[i]) dnnl_memory_destroy(m_bin[i]);
    free(u_in);
    free(u_out);
    for (int i = 0; i < MAX_PO; i++) free(u_bin[i]);
    return ret;
}

/* exec_problem without any K / M / Q / I output (values only) */
static int exec_quiet(ctx_t *c, const prob_t *p, uint64_t seed, int fill_mode,
        const variant_t *v) {
    FILE *o = c->o;
    int no_ref = c->no_ref;
    c->o = c->null;
    if (v->plain) c->no_ref = 1;
    int r = exec_problem(c, p, seed, fill_mode, v);
    c->o = o;
    c->no_ref = no_ref;
    return r;
}

/* One problem: the P / T lines, its execution, and where the library itself cannot give the
 * expectation, a substitute (libresample never triggers these: it has no "ref:any" or
 * "simple:any" and implements f16):
 *  - a defective implementation (exec_problem): "I defect NAME", its values as a 'B' block,
 *    then the 'V' block of the same problem with both given tensors in plain layouts (so that
 *    libdnnl runs jit/simple on abx, where neither defect applies; values are dumped in
 *    logical order, so the layouts do not matter);
 *  - an f16 problem refused as unimplemented: "I f16_emulated", then the problem again with
 *    every f16 tensor as an f32 tensor holding f16 values; its statuses / mds are printed as
 *    "I emu ..." lines, its output rounded to f16 as the 'V' block.
 * Then, for integer results of linear / backward / post-op problems, an 'F' block: the same
 * problem with an f32 result tensor, i.e. the value before the final rounding (benchdnn's x.5
 * check needs it), and for linear / backward without post-ops its |input| run as 'G'. */
static void run_problem(ctx_t *c, const prob_t *p, uint64_t seed, int fill_mode) {
    describe(c->o, p);
    variant_t v = {.vtag = 'V'};
    int r = exec_problem(c, p, seed, fill_mode, &v);
    if (r == R_F16_UNIMPL) {
        fprintf(c->o, "I f16_emulated\n");
        v.emu_f16 = 1;
        c->pfx = "I emu ";
        r = exec_problem(c, p, seed, fill_mode, &v);
        c->pfx = "";
    }
    if (r == R_DEFECT) {
        v.plain = 1;
        r = exec_quiet(c, p, seed, fill_mode, &v);
        if (r == R_NO_ALT) fprintf(c->o, "I skip ref_any_sum_only_impl\n");
    }
    /* the magnitude of a linear / backward / sum problem with post-ops (without them,
     * exec_problem prints it): its interpolation on |input| plus the |sum| terms */
    int need_mag = p->alg == dnnl_resampling_linear || p->bwd || has_sum(p);
    if (r == R_OK && need_mag && p->n_po) {
        variant_t m = v;
        m.mag = 1;
        m.vtag = 'A';
        if (exec_quiet(c, p, seed, fill_mode, &m) == R_DEFECT) {
            m.plain = 1;
            exec_quiet(c, p, seed, fill_mode, &m);
        }
    }
    dnnl_data_type_t res_dt = p->bwd ? p->dt_in : p->dt_out;
    if (r == R_OK && is_int_dt(res_dt)
            && (p->alg == dnnl_resampling_linear || p->bwd || p->n_po)) {
        variant_t f = v;
        f.f32_out = 1;
        f.vtag = 'F';
        if (exec_quiet(c, p, seed, fill_mode, &f) == R_DEFECT) {
            f.plain = 1;
            exec_quiet(c, p, seed, fill_mode, &f);
        }
        if (need_mag && p->n_po) {
            f.mag = 1;
            f.vtag = 'G';
            if (exec_quiet(c, p, seed, fill_mode, &f) == R_DEFECT) {
                f.plain = 1;
                exec_quiet(c, p, seed, fill_mode, &f);
            }
        }
    }
    fprintf(c->o, "X\n");
}

/* The numeric examples of docs/spec/onednn.md §1, §2.1, §2.3 and §3 (1D, mb1 ic1, f32, ncw). The
 * expected values live in tests/onednn_diff.rs. */
static void run_examples(ctx_t *c) {
    static const struct {
        int bwd, linear, in, out, fill;
        float factor; /* != 0: created from factors, dst NULL */
    } ex[] = {
            /* §2.1 nearest forward, src = 0,1,2,... */
            {0, 0, 4, 1, FILL_IOTA0, 0}, {0, 0, 14, 7, FILL_IOTA0, 0},
            {0, 0, 3, 5, FILL_IOTA0, 0}, {0, 0, 5, 3, FILL_IOTA0, 0},
            {0, 0, 2, 6, FILL_IOTA0, 0}, {0, 0, 21, 13, FILL_IOTA0, 0},
            /* §2.3 linear forward */
            {0, 1, 3, 5, FILL_IOTA0, 0}, {0, 1, 4, 6, FILL_IOTA0, 0},
            {0, 1, 5, 3, FILL_IOTA0, 0}, {0, 1, 2, 6, FILL_IOTA0, 0},
            {0, 1, 3, 2, FILL_IOTA0, 0}, {0, 1, 14, 7, FILL_IOTA0, 0},
            {0, 1, 4, 1, FILL_IOTA0, 0},
            /* §3.1 nearest backward */
            {1, 0, 3, 5, FILL_IOTA1, 0}, {1, 0, 5, 3, FILL_IOTA1, 0},
            {1, 0, 4, 6, FILL_ONES, 0},
            /* §3.2 linear backward */
            {1, 1, 3, 5, FILL_IOTA1, 0}, {1, 1, 5, 3, FILL_IOTA1, 0},
            {1, 1, 4, 6, FILL_ONES, 0},
            /* §1 dst from factors: 3 x 1.5 -> 4, 10 x 0.33 -> 3 */
            {0, 0, 3, 4, FILL_IOTA0, 1.5f}, {0, 0, 10, 3, FILL_IOTA0, 0.33f},
    };
    for (int i = 0; i < (int)(sizeof(ex) / sizeof(ex[0])); i++) {
        prob_t p;
        memset(&p, 0, sizeof(p));
        p.index = i;
        p.bwd = ex[i].bwd;
        p.prop = dnnl_forward_training;
        p.alg = ex[i].linear ? dnnl_resampling_linear : dnnl_resampling_nearest;
        p.ndims = 3;
        p.mb = 1;
        p.ic = 1;
        p.in_sp[0] = ex[i].in;
        p.out_sp[0] = ex[i].out;
        p.dt_in = p.dt_out = dnnl_f32;
        p.lay_in = L_PLAIN;
        p.lay_out = ex[i].factor != 0.f ? L_NULL : L_PLAIN;
        p.use_factors = ex[i].factor != 0.f;
        p.factors[0] = ex[i].factor;
        run_problem(c, &p, 0, ex[i].fill);
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s SEED COUNT [--ext|--blocked|--mixed|--f16|--postops|"
                        "--strided|--xtag|--no-edge|--impl=ref] [-o FILE]\n",
                argv[0]);
        return 2;
    }
    uint64_t seed = strtoull(argv[1], NULL, 0);
    int count = atoi(argv[2]);
    unsigned flags = F_EDGE;
    const char *out_path = NULL;
    int examples = 0, only = -1;
    for (int i = 3; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--ext"))
            flags |= F_BLOCKED | F_MIXED | F_POSTOPS | F_F16 | F_STRIDED | F_XTAG;
        else if (!strcmp(a, "--blocked")) flags |= F_BLOCKED;
        else if (!strcmp(a, "--mixed")) flags |= F_MIXED;
        else if (!strcmp(a, "--postops")) flags |= F_POSTOPS;
        else if (!strcmp(a, "--f16")) flags |= F_F16;
        else if (!strcmp(a, "--strided")) flags |= F_STRIDED;
        else if (!strcmp(a, "--xtag")) flags |= F_XTAG;
        else if (!strcmp(a, "--no-edge")) flags &= ~(unsigned)F_EDGE;
        else if (!strcmp(a, "--impl=ref")) flags |= F_IMPL_REF;
        else if (!strcmp(a, "--examples")) examples = 1;
        else if (!strcmp(a, "--inputs")) flags |= F_INPUTS;
        else if (!strncmp(a, "--only=", 7)) only = atoi(a + 7);
        else if (!strcmp(a, "-o") && i + 1 < argc) out_path = argv[++i];
        else {
            fprintf(stderr, "unknown argument %s\n", a);
            return 2;
        }
    }
#ifndef ONEDNN_DIFF_ISSUE3
    if (flags & F_POSTOPS) {
        fprintf(stderr, "--postops/--ext need a build with -DONEDNN_DIFF_ISSUE3\n");
        return 2;
    }
#endif
    FILE *o = out_path ? fopen(out_path, "w") : stdout;
    if (!o) {
        perror(out_path);
        return 2;
    }
    static char buf[1 << 20];
    setvbuf(o, buf, _IOFBF, sizeof(buf));

    FILE *null = fopen("/dev/null", "w");
    if (!null) {
        perror("/dev/null");
        return 2;
    }
    ctx_t ctx = {o, NULL, NULL, flags, o, null, "", 0};
    ctx_t *c = &ctx;
    fprintf(o, "H onednn_diff seed=%llu count=%d flags=%#x\n", (unsigned long long)seed, count,
            flags);
    fprintf(o, "K engine_count %d\n", (int)dnnl_engine_get_count(dnnl_cpu));
    if (K("engine_create", dnnl_engine_create(&ctx.eng, dnnl_cpu, 0)) != dnnl_success) return 1;
    if (K("stream_create", dnnl_stream_create(&ctx.st, ctx.eng, dnnl_stream_default_flags))
            != dnnl_success)
        return 1;
    fprintf(o, "X\n");
    if (examples) {
        run_examples(c);
    } else {
        for (int i = 0; i < count; i++) {
            if (only >= 0 && i != only) continue;
            prob_t p;
            gen_problem(&p, seed, i, flags);
            run_problem(c, &p, seed, FILL_RANDOM);
        }
    }
    K("stream_destroy", dnnl_stream_destroy(ctx.st));
    K("engine_destroy", dnnl_engine_destroy(ctx.eng));
    fprintf(o, "Z end\n");
    fflush(o);
    if (out_path) fclose(o);
    return 0;
}
