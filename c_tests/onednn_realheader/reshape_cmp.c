/* Differential check of dnnl_memory_desc_reshape (and the reshaped md's size and equality),
 * built against the REAL oneDNN 2.6.3 header and linked with -ldnnl or -lresample (run.sh):
 * for plain, permuted, blocked and strided descriptors and many target shapes (splits,
 * merges, inserted and removed 1s, blocked dims moved) it prints the status and the whole
 * resulting md. Outputs must be identical. */
#include <oneapi/dnnl/dnnl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint64_t rs = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (uint32_t)(rs >> 11); }

static void dump(const dnnl_memory_desc_t *m) {
    printf(" nd=%d dt=%d fk=%d off0=%lld size=%zu dims", m->ndims, m->data_type, m->format_kind,
           (long long)m->offset0, dnnl_memory_desc_get_size(m));
    for (int i = 0; i < m->ndims; i++) printf(" %lld", (long long)m->dims[i]);
    printf(" pad");
    for (int i = 0; i < m->ndims; i++) printf(" %lld", (long long)m->padded_dims[i]);
    printf(" poff");
    for (int i = 0; i < m->ndims; i++) printf(" %lld", (long long)m->padded_offsets[i]);
    if (m->format_kind == dnnl_blocked) {
        printf(" str");
        for (int i = 0; i < m->ndims; i++) printf(" %lld", (long long)m->format_desc.blocking.strides[i]);
        printf(" blk %d:", m->format_desc.blocking.inner_nblks);
        for (int i = 0; i < m->format_desc.blocking.inner_nblks; i++)
            printf(" %lld@%lld", (long long)m->format_desc.blocking.inner_blks[i],
                   (long long)m->format_desc.blocking.inner_idxs[i]);
    }
}

static int ncase;
static void try_reshape(const char *what, const dnnl_memory_desc_t *in, int nd, const dnnl_dim_t *dims) {
    dnnl_memory_desc_t out;
    memset(&out, 0, sizeof out);
    printf("%d %s ->", ncase++, what);
    for (int i = 0; i < nd; i++) printf(" %lld", (long long)dims[i]);
    dnnl_status_t s = dnnl_memory_desc_reshape(&out, in, nd, dims);
    printf(" : %d", s);
    if (s == dnnl_success) {
        dump(&out);
        printf(" eq_in %d", dnnl_memory_desc_equal(&out, in));
    }
    printf("\n");
}

/* random factorisations of the dims of `in` into a new shape */
static void shapes_for(const char *what, const dnnl_memory_desc_t *in) {
    int nd = in->ndims;
    dnnl_dims_t d;
    /* identity, plus a 1 at each position, minus each 1 */
    try_reshape(what, in, nd, in->dims);
    for (int p = 0; p <= nd && nd < DNNL_MAX_NDIMS; p++) {
        int k = 0;
        for (int i = 0; i < nd; i++) {
            if (i == p) d[k++] = 1;
            d[k++] = in->dims[i];
        }
        if (p == nd) d[k++] = 1;
        try_reshape(what, in, k, d);
    }
    for (int p = 0; p < nd; p++) {
        if (in->dims[p] != 1) continue;
        int k = 0;
        for (int i = 0; i < nd; i++)
            if (i != p) d[k++] = in->dims[i];
        try_reshape(what, in, k, d);
    }
    /* merge neighbours, split a dim into factors */
    for (int p = 0; p + 1 < nd; p++) {
        int k = 0;
        for (int i = 0; i < nd; i++) {
            if (i == p) { d[k++] = in->dims[i] * in->dims[i + 1]; i++; }
            else d[k++] = in->dims[i];
        }
        try_reshape(what, in, k, d);
    }
    for (int p = 0; p < nd; p++) {
        for (dnnl_dim_t f = 2; f < in->dims[p]; f++) {
            if (in->dims[p] % f) continue;
            int k = 0;
            for (int i = 0; i < nd; i++) {
                if (i == p) { d[k++] = f; d[k++] = in->dims[i] / f; }
                else d[k++] = in->dims[i];
            }
            if (k <= DNNL_MAX_NDIMS) try_reshape(what, in, k, d);
            break;
        }
    }
    /* a few random shapes of the same volume */
    dnnl_dim_t vol = 1;
    for (int i = 0; i < nd; i++) vol *= in->dims[i];
    for (int t = 0; t < 4; t++) {
        dnnl_dim_t v = vol;
        int k = 0;
        while (v > 1 && k < 5) {
            dnnl_dim_t f = 1;
            for (dnnl_dim_t c = 2; c <= v; c++)
                if (v % c == 0 && rnd() % 3 == 0) { f = c; break; }
            if (f == 1) f = v;
            d[k++] = f;
            v /= f;
            if (rnd() % 4 == 0 && k < 5) d[k++] = 1;
        }
        if (k == 0) d[k++] = 1;
        try_reshape(what, in, k, d);
    }
    /* errors: volume mismatch, bad ndims */
    d[0] = vol + 1;
    try_reshape(what, in, 1, d);
    d[0] = -1;
    try_reshape(what, in, 1, d);
    try_reshape(what, in, 0, d);
    try_reshape(what, in, 13, in->dims);
}

int main(void) {
    static const struct { int nd; dnnl_format_tag_t tag; const char *name; } tags[] = {
        {2, dnnl_ab, "ab"}, {2, dnnl_ba, "ba"}, {3, dnnl_abc, "abc"}, {3, dnnl_acb, "acb"}, {3, dnnl_aBc8b, "aBc8b"},
        {3, dnnl_aBc16b, "aBc16b"}, {4, dnnl_abcd, "abcd"}, {4, dnnl_acdb, "acdb"}, {4, dnnl_aBcd4b, "aBcd4b"},
        {4, dnnl_aBcd8b, "aBcd8b"}, {4, dnnl_aBcd16b, "aBcd16b"}, {4, dnnl_ABcd16a16b, "ABcd16a16b"},
        {4, dnnl_Abcd16a, "Abcd16a"}, {4, dnnl_aBCd16b16c, "aBCd16b16c"}, {4, dnnl_ABcd8b16a2b, "ABcd8b16a2b"},
        {5, dnnl_abcde, "abcde"}, {5, dnnl_acdeb, "acdeb"}, {5, dnnl_aBcde16b, "aBcde16b"}, {1, dnnl_a, "a"},
    };
    static const dnnl_dim_t shapes[][5] = {
        {2, 16, 3, 4, 2}, {1, 32, 1, 6, 1}, {2, 19, 2, 2, 3}, {1, 1, 1, 1, 1}, {4, 8, 1, 3, 2}, {3, 1, 4, 1, 2}, {6, 48, 2, 1, 1}};
    char what[64];
    for (size_t t = 0; t < sizeof tags / sizeof tags[0]; t++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            dnnl_memory_desc_t md;
            dnnl_dims_t dims;
            memcpy(dims, shapes[s], sizeof shapes[s]);
            if (dnnl_memory_desc_init_by_tag(&md, tags[t].nd, dims, dnnl_f32, tags[t].tag) != dnnl_success) continue;
            snprintf(what, sizeof what, "%s/%zu", tags[t].name, s);
            shapes_for(what, &md);
        }
    /* strided with gaps, and a sub-memory */
    for (int it = 0; it < 40; it++) {
        dnnl_dims_t dims = {1 + rnd() % 3, 1 + rnd() % 4, 1 + rnd() % 3, 2 + rnd() % 3}, str;
        dnnl_dim_t s = 1;
        for (int k = 3; k >= 0; k--) { str[k] = s; s *= dims[k] + (rnd() % 3 == 0); }
        dnnl_memory_desc_t md;
        dnnl_memory_desc_init_by_strides(&md, 4, dims, dnnl_s8, str);
        snprintf(what, sizeof what, "strided%d", it);
        shapes_for(what, &md);
    }
    {
        dnnl_dims_t pd = {2, 32, 4, 4}, sd = {2, 16, 4, 4}, off = {0, 16, 0, 0};
        dnnl_memory_desc_t parent, sub, any;
        dnnl_memory_desc_init_by_tag(&parent, 4, pd, dnnl_f32, dnnl_nChw16c);
        dnnl_memory_desc_init_submemory(&sub, &parent, sd, off);
        shapes_for("sub", &sub);
        dnnl_memory_desc_init_by_tag(&any, 4, pd, dnnl_bf16, dnnl_format_tag_any);
        shapes_for("any", &any);
        dnnl_memory_desc_t z;
        memset(&z, 0, sizeof z);
        try_reshape("zero", &z, 1, pd);
        printf("null %d %d\n", dnnl_memory_desc_reshape(NULL, &parent, 4, pd), dnnl_memory_desc_reshape(&any, NULL, 4, pd));
    }
    printf("cases %d\n", ncase);
    return 0;
}
