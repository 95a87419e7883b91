/* Differential check of dnnl_reorder_primitive_desc_create + execute: built against the
 * REAL /usr/include/oneapi/dnnl/dnnl.h and linked with -ldnnl or -lresample (run.sh).
 * For many layouts (plain, channels-last, permuted, single-level blocks 4/8/16/32 on one or
 * two dims, strided with gaps, sub-memories with offset0) and all 36 data-type pairs it prints
 * one line per case: the creation status and a hash of the whole dst buffer (dst prefilled
 * with 0x5a, so padding zeroing and untouched gaps are part of the hash), then a few raw
 * values. Values are chosen where libdnnl 2.6.3's implementations agree with each other
 * (see reorder.rs): NaN only between floating types, no |x| >= 2^31 or inf into s32, no
 * NaN/inf/huge bf16 into s8/u8. compare_reorder.py accepts libdnnl "status 3" where this
 * library converts (superset) and nothing else. */
#include <oneapi/dnnl/dnnl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dnnl_engine_t eng;
static dnnl_stream_t st;
static uint64_t rs = 0x243F6A8885A308D3ull;
static uint32_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (uint32_t)(rs >> 11); }

static const dnnl_data_type_t DTS[6] = {dnnl_f32, dnnl_bf16, dnnl_f16, dnnl_s32, dnnl_s8, dnnl_u8};
static const char *dtn(dnnl_data_type_t d) {
    switch (d) { case dnnl_f32: return "f32"; case dnnl_bf16: return "bf16"; case dnnl_f16: return "f16";
    case dnnl_s32: return "s32"; case dnnl_s8: return "s8"; case dnnl_u8: return "u8"; default: return "?"; }
}
static int is_float(dnnl_data_type_t d) { return d == dnnl_f32 || d == dnnl_bf16 || d == dnnl_f16; }

static int64_t md_off(const dnnl_memory_desc_t *md, const int64_t *idx) {
    const dnnl_blocking_desc_t *b = &md->format_desc.blocking;
    int64_t blk[DNNL_MAX_NDIMS], rem[DNNL_MAX_NDIMS], off = md->offset0, mult = 1;
    for (int d = 0; d < md->ndims; d++) blk[d] = 1;
    for (int k = 0; k < b->inner_nblks; k++) blk[b->inner_idxs[k]] *= b->inner_blks[k];
    for (int d = 0; d < md->ndims; d++) { off += idx[d] / blk[d] * b->strides[d]; rem[d] = idx[d] % blk[d]; }
    for (int k = b->inner_nblks - 1; k >= 0; k--) {
        int d = (int)b->inner_idxs[k];
        off += (rem[d] % b->inner_blks[k]) * mult;
        rem[d] /= b->inner_blks[k];
        mult *= b->inner_blks[k];
    }
    return off;
}

/* bytes up to the last padded element (offset0 included) */
static size_t span(const dnnl_memory_desc_t *md) {
    int64_t idx[DNNL_MAX_NDIMS];
    for (int d = 0; d < md->ndims; d++) idx[d] = md->padded_dims[d] - 1;
    size_t a = (size_t)(md_off(md, idx) + 1) * dnnl_data_type_size(md->data_type);
    size_t b = dnnl_memory_desc_get_size(md);
    return a > b ? a : b;
}

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* a source value (as raw bits in *out) for element e, valid for the (sdt, ddt) pair */
static void gen(dnnl_data_type_t sdt, dnnl_data_type_t ddt, void *out) {
    uint32_t r = rnd();
    float f;
    int special = (r % 8) == 0;
    if (!special) {
        int k = (int)(rnd() % 4);
        if (k == 0) f = (float)((int)(rnd() % 2001) - 1000) / 4.f;          /* ties .5, .25 */
        else if (k == 1) f = (float)((int)(rnd() % 601) - 300) + 0.5f;
        else if (k == 2) f = u2f((rnd() & 0x807FFFFFu) | ((100u + rnd() % 60u) << 23)); /* 2^-27..2^32 */
        else f = (float)((int)(rnd() % 256) - 128);
    } else {
        static const uint32_t fl[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0x7FA12345u, 0x7F800000u, 0xFF800000u,
                                      0x80000000u, 0x00000001u, 0x80000001u, 0x007FFFFFu, 0x7F7FFFFFu, 0x477FF000u,
                                      0x477FEFFFu, 0x33000000u, 0x33000001u, 0x3F808000u, 0x3F818000u, 0x4EFFFFFFu,
                                      0x4F000000u, 0xCF000000u, 0x4B800001u};
        static const uint32_t in[] = {0x80000000u, 0x00000001u, 0x80000001u, 0x3F808000u, 0x3F818000u, 0x42FF0000u,
                                      0x43000000u, 0xC3008000u, 0xC3010000u, 0x437F8000u, 0x4EFFFFFFu, 0xCF000000u, 0x4B800001u};
        static const uint32_t i8[] = {0x7F800000u, 0xFF800000u, 0x4F32D05Eu, 0xCF32D05Eu};
        if (is_float(ddt)) f = u2f(fl[rnd() % (sizeof fl / 4)]);
        else if (ddt != dnnl_s32 && sdt == dnnl_f32 && rnd() % 2) f = u2f(i8[rnd() % 4]);
        else f = u2f(in[rnd() % (sizeof in / 4)]);
    }
    switch (sdt) {
    case dnnl_f32: memcpy(out, &f, 4); break;
    case dnnl_bf16: { uint16_t b = (uint16_t)(f2u(f) >> 16); if (!is_float(ddt) && (b & 0x7F80) >= 0x4F00) b = 0x4300; memcpy(out, &b, 2); } break;
    case dnnl_f16: { uint16_t h = (uint16_t)(rnd() & 0xFFFF); if (!special) h = (uint16_t)(0x3000 + rnd() % 0x2C00) | (uint16_t)(rnd() & 0x8000); memcpy(out, &h, 2); } break;
    case dnnl_s32: {
        static const int32_t sp[] = {INT32_MIN, INT32_MAX, 16777217, -16777217, 123456789, 200, -5, 255, 256, -129, 128};
        int32_t v = special ? sp[rnd() % 11] : (int32_t)(rnd() % 1001) - 500;
        memcpy(out, &v, 4); } break;
    case dnnl_s8: case dnnl_u8: { uint8_t v = (uint8_t)rnd(); memcpy(out, &v, 1); } break;
    default: break;
    }
}

static uint64_t fnv(const unsigned char *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ull; }
    return h;
}

static int ncases;

/* reorders src -> dst (both fully described, same dims); prints one line */
static void run(const char *name, const dnnl_memory_desc_t *smd, const dnnl_memory_desc_t *dmd) {
    dnnl_data_type_t sdt = smd->data_type, ddt = dmd->data_type;
    printf("%d %s %s->%s dims", ncases++, name, dtn(sdt), dtn(ddt));
    for (int i = 0; i < smd->ndims; i++) printf(" %lld", (long long)smd->dims[i]);
    size_t ses = dnnl_data_type_size(sdt);
    size_t sbytes = span(smd) + 64, dbytes = span(dmd) + 64;
    unsigned char *sb = calloc(1, sbytes), *db = malloc(dbytes);
    memset(db, 0x5a, dbytes);
    int64_t n = 1, idx[DNNL_MAX_NDIMS];
    for (int d = 0; d < smd->ndims; d++) n *= smd->dims[d];
    for (int64_t e = 0; e < n; e++) {
        int64_t r = e;
        for (int d = smd->ndims - 1; d >= 0; d--) { idx[d] = r % smd->dims[d]; r /= smd->dims[d]; }
        gen(sdt, ddt, sb + md_off(smd, idx) * (int64_t)ses);
    }
    /* data first: the random stream must not depend on the library's answer */
    dnnl_primitive_desc_t pd;
    dnnl_status_t s = dnnl_reorder_primitive_desc_create(&pd, smd, eng, dmd, eng, NULL);
    if (s != dnnl_success) {
        printf(" : status %d\n", s);
        free(sb);
        free(db);
        return;
    }
    dnnl_memory_t ms, mdm;
    dnnl_memory_create(&ms, smd, eng, sb);
    dnnl_memory_create(&mdm, dmd, eng, db);
    dnnl_primitive_t p;
    dnnl_primitive_create(&p, pd);
    dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, ms}, {DNNL_ARG_TO, mdm}};
    s = dnnl_primitive_execute(p, st, 2, a);
    dnnl_stream_wait(st);
    printf(" : exec %d hash %016llx first", s, (unsigned long long)fnv(db, dbytes));
    for (int i = 0; i < 4 && i < n; i++) {
        int64_t r = i;
        for (int d = smd->ndims - 1; d >= 0; d--) { idx[d] = r % smd->dims[d]; r /= smd->dims[d]; }
        const unsigned char *q = db + md_off(dmd, idx) * (int64_t)dnnl_data_type_size(ddt);
        printf(" ");
        for (size_t b = dnnl_data_type_size(ddt); b-- > 0;) printf("%02x", q[b]);
    }
    printf("\n");
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(mdm);
    free(sb);
    free(db);
}

typedef struct { int nd; dnnl_format_tag_t tag; const char *name; } tag_t;
static const tag_t TAGS[] = {
    {1, dnnl_a, "a"},
    {2, dnnl_ab, "ab"}, {2, dnnl_ba, "ba"}, {2, dnnl_AB16b16a, "AB16b16a"}, {2, dnnl_BA16a16b, "BA16a16b"},
    {3, dnnl_abc, "abc"}, {3, dnnl_acb, "acb"}, {3, dnnl_bac, "bac"}, {3, dnnl_cba, "cba"},
    {3, dnnl_aBc4b, "aBc4b"}, {3, dnnl_aBc8b, "aBc8b"}, {3, dnnl_aBc16b, "aBc16b"}, {3, dnnl_aBc32b, "aBc32b"},
    {3, dnnl_Abc16a, "Abc16a"}, {3, dnnl_ABc16a16b, "ABc16a16b"},
    {4, dnnl_abcd, "abcd"}, {4, dnnl_acdb, "acdb"}, {4, dnnl_bacd, "bacd"}, {4, dnnl_dcab, "dcab"}, {4, dnnl_cdba, "cdba"},
    {4, dnnl_aBcd4b, "aBcd4b"}, {4, dnnl_aBcd8b, "aBcd8b"}, {4, dnnl_aBcd16b, "aBcd16b"}, {4, dnnl_aBcd32b, "aBcd32b"},
    {4, dnnl_Abcd16a, "Abcd16a"}, {4, dnnl_Abcd8a, "Abcd8a"}, {4, dnnl_ABcd16a16b, "ABcd16a16b"},
    {4, dnnl_ABcd8a8b, "ABcd8a8b"}, {4, dnnl_aBCd16b16c, "aBCd16b16c"},
    {5, dnnl_abcde, "abcde"}, {5, dnnl_acdeb, "acdeb"}, {5, dnnl_aBcde4b, "aBcde4b"}, {5, dnnl_aBcde8b, "aBcde8b"},
    {5, dnnl_aBcde16b, "aBcde16b"}, {5, dnnl_aBcde32b, "aBcde32b"},
    {6, dnnl_abcdef, "abcdef"}, {6, dnnl_aBcdef16b, "aBcdef16b"},
};
#define NTAGS (int)(sizeof TAGS / sizeof TAGS[0])

static void rand_dims(int nd, dnnl_dim_t *dims) {
    static const int cs[] = {1, 3, 8, 16, 17, 19, 32, 33};
    for (int d = 0; d < nd; d++) dims[d] = 1 + rnd() % 4;
    if (nd >= 2) dims[1] = cs[rnd() % 8];
    if (nd >= 1 && rnd() % 3 == 0) dims[0] = cs[rnd() % 8];
}

int main(void) {
    dnnl_engine_create(&eng, dnnl_cpu, 0);
    dnnl_stream_create(&st, eng, dnnl_stream_default_flags);
    char name[128];
    /* 1. every data-type pair on a few fixed layout pairs */
    {
        dnnl_dims_t dims = {2, 19, 3, 5};
        dnnl_format_tag_t lp[][2] = {{dnnl_nchw, dnnl_nchw}, {dnnl_nchw, dnnl_nChw16c}, {dnnl_nChw16c, dnnl_nhwc},
                                     {dnnl_nhwc, dnnl_nChw8c}, {dnnl_nChw8c, dnnl_nChw16c}, {dnnl_nchw, dnnl_aBcd4b}};
        for (int l = 0; l < 6; l++)
            for (int a = 0; a < 6; a++)
                for (int b = 0; b < 6; b++) {
                    dnnl_memory_desc_t s, d;
                    dnnl_memory_desc_init_by_tag(&s, 4, dims, DTS[a], lp[l][0]);
                    dnnl_memory_desc_init_by_tag(&d, 4, dims, DTS[b], lp[l][1]);
                    snprintf(name, sizeof name, "pairs%d", l);
                    run(name, &s, &d);
                }
    }
    /* 2. random tag pairs of equal ndims, random data types */
    for (int it = 0; it < 500; it++) {
        const tag_t *ts = &TAGS[rnd() % NTAGS], *td;
        do td = &TAGS[rnd() % NTAGS]; while (td->nd != ts->nd);
        dnnl_dims_t dims;
        rand_dims(ts->nd, dims);
        dnnl_memory_desc_t s, d;
        dnnl_memory_desc_init_by_tag(&s, ts->nd, dims, DTS[rnd() % 6], ts->tag);
        dnnl_memory_desc_init_by_tag(&d, td->nd, dims, DTS[rnd() % 6], td->tag);
        snprintf(name, sizeof name, "%s->%s", ts->name, td->name);
        run(name, &s, &d);
    }
    /* 3. strided with gaps (both sides), random permutations */
    for (int it = 0; it < 150; it++) {
        int nd = 1 + rnd() % 5;
        dnnl_dims_t dims, ss, ds;
        rand_dims(nd, dims);
        for (int side = 0; side < 2; side++) {
            int perm[5];
            for (int i = 0; i < nd; i++) perm[i] = i;
            for (int i = nd - 1; i > 0; i--) { int j = (int)(rnd() % (unsigned)(i + 1)), t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
            dnnl_dim_t stride = 1 + rnd() % 2, *sv = side ? ds : ss;
            for (int k = nd - 1; k >= 0; k--) { sv[perm[k]] = stride; stride *= dims[perm[k]] + rnd() % 2; }
        }
        dnnl_memory_desc_t s, d;
        dnnl_memory_desc_init_by_strides(&s, nd, dims, DTS[rnd() % 6], ss);
        dnnl_memory_desc_init_by_strides(&d, nd, dims, DTS[rnd() % 6], ds);
        run("strided", &s, &d);
        if (nd == 4 && rnd() % 2) {
            dnnl_memory_desc_t b;
            dnnl_memory_desc_init_by_tag(&b, 4, dims, d.data_type, dnnl_nChw16c);
            run("strided->nChw16c", &s, &b);
            run("nChw16c->strided", &b, &s);
        }
    }
    /* 4. sub-memories (offset0) as src and as dst */
    for (int it = 0; it < 60; it++) {
        dnnl_dims_t pdims = {2, 32, 5, 6}, sdims, offs;
        dnnl_format_tag_t ptag = (it % 3 == 0) ? dnnl_nchw : (it % 3 == 1) ? dnnl_nhwc : dnnl_nChw16c;
        for (int d = 0; d < 4; d++) { offs[d] = rnd() % pdims[d]; sdims[d] = 1 + rnd() % (pdims[d] - offs[d]); }
        if (ptag == dnnl_nChw16c) { offs[1] = 16 * (rnd() % 2); sdims[1] = 16; }
        dnnl_memory_desc_t parent, sub, other;
        dnnl_data_type_t dt = DTS[rnd() % 6], dt2 = DTS[rnd() % 6];
        dnnl_memory_desc_init_by_tag(&parent, 4, pdims, dt, ptag);
        dnnl_status_t ss = dnnl_memory_desc_init_submemory(&sub, &parent, sdims, offs);
        printf("submemory %d\n", ss);
        if (ss != dnnl_success) continue;
        /* the sub-memory md describes elements of the parent buffer: give it the parent size */
        dnnl_memory_desc_init_by_tag(&other, 4, sdims, dt2, (it % 2) ? dnnl_nChw8c : dnnl_nchw);
        run("sub->x", &sub, &other);
        run("x->sub", &other, &sub);
    }
    printf("cases %d\n", ncases);
    return 0;
}
