/* Resampling results of libdnnl.so.1 against an independent scalar model of the DNNL 1.2
 * index formulas (reference/onednn.md §2.4, §2.2 lerp order, §3 backward gather), or of
 * the 2.x formulas when RESAMPLE_DNNL1_RULES=v2 (the runner runs this program both ways).
 * Forward and backward, nearest and linear, 1D-3D, plain / nspc / 8c / 16c tags of the
 * 1.3 header, random sizes plus known tie cases; f32 results must be equal (the model
 * evaluates in the original's operation order). */
#include <math.h>

#include "common.h"

static int V2;

static long ceil_idx(float x) {
    if (x < 0) return 0;
    return (float)(long)x == x ? (long)x : (long)x + 1;
}
static float factor(long I, long O) { return (float)((double)O / (double)I); }

/* Forward: output y -> input coordinate (linear). */
static float src_coord(long y, long I, long O) {
    if (V2) return ((float)y + 0.5f) * (float)I / (float)O - 0.5f;
    volatile float p = ((float)y + 0.5f) * (1.f / factor(I, O));
    return p - 0.5f;
}
/* Backward linear ranges: input x -> output coordinate. */
static float dst_coord(long x, long I, long O) {
    if (V2) return ((float)x + 0.5f) * (float)O / (float)I - 0.5f;
    volatile float p = ((float)x + 0.5f) * factor(I, O);
    return p - 0.5f;
}
static long clampl(long v, long lo, long hi) { return v < lo ? lo : v > hi ? hi : v; }
static long nearest(long y, long I, long O) {
    long n = V2 ? (long)roundf(src_coord(y, I, O))
                : (long)(((float)y + 0.5f) * (1.f / factor(I, O)));
    return clampl(n, 0, I - 1);
}
typedef struct { long i[2]; float w0; } lin_t;
static lin_t linear(long y, long I, long O) {
    float s = src_coord(y, I, O);
    lin_t t;
    t.i[0] = clampl(s < 0 ? 0 : (long)s, 0, I - 1);
    t.i[1] = clampl(ceil_idx(s) < I - 1 ? ceil_idx(s) : I - 1, 0, I - 1);
    float w1 = fabsf(s - (float)(s < 0 ? 0 : (long)s));
    t.w0 = 1.f - w1;
    return t;
}
static float lin_w(int k, long o, long I, long O) {
    float s = src_coord(o, I, O);
    float w = fabsf(s - (float)(long)s);
    return k == 0 ? 1.f - w : w;
}
/* Backward range [*b, *e) of outputs reading input x as tap k (nearest: k = 0 only). */
static void bwd_range(int alg_linear, int k, long x, long I, long O, long *b, long *e) {
    if (!alg_linear) {
        float f = factor(I, O);
        long s = V2 ? ceil_idx((float)x * O / I - 0.5f) : ceil_idx((float)x * f - 0.5f);
        long t = V2 ? ceil_idx(((float)x + 1.f) * O / I - 0.5f)
                    : ceil_idx(((float)x + 1.f) * f - 0.5f);
        *b = clampl(s, 0, O);
        *e = clampl(t, 0, O);
        return;
    }
    if (k == 0) {
        *b = x == 0 ? 0 : ceil_idx(dst_coord(x, I, O));
        long e0 = ceil_idx(dst_coord(x + 1, I, O));
        *e = e0 < O ? e0 : O;
    } else {
        float s = dst_coord(x - 1, I, O);
        *b = s < 0 ? 0 : (long)s + 1;
        if (x == I - 1)
            *e = O;
        else {
            float s2 = dst_coord(x, I, O);
            long e1 = s2 < 0 ? 0 : (long)s2 + 1;
            *e = e1 < O ? e1 : O;
        }
    }
    *b = clampl(*b, 0, O);
    *e = clampl(*e, *b, O);
}

/* Logical index (n, c, spatial...) -> element offset in a blocked md (one block per dim). */
static long offset(const dnnl_memory_desc_t *md, const long *idx) {
    const dnnl_blocking_desc_t *b = &md->format_desc.blocking;
    long blk[DNNL_MAX_NDIMS], off = md->offset0, in = 0;
    for (int d = 0; d < md->ndims; ++d) blk[d] = 1;
    for (int k = 0; k < b->inner_nblks; ++k) blk[b->inner_idxs[k]] *= b->inner_blks[k];
    for (int d = 0; d < md->ndims; ++d) off += (idx[d] / blk[d]) * b->strides[d];
    for (int k = 0; k < b->inner_nblks; ++k)
        in = in * b->inner_blks[k] + idx[b->inner_idxs[k]] % b->inner_blks[k];
    return off + in;
}

static unsigned rng_state = 12345;
static unsigned rnd(void) {
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

static long cases = 0, v12_vs_v2_differ = 0;

/* One problem: spatial sizes I[], O[] (ns of them), tag, alg, direction. */
static void run(dnnl_engine_t eng, dnnl_stream_t strm, int ns, const long *I, const long *O,
        dnnl_format_tag_t tag, int alg_linear, int backward) {
    const int nd = ns + 2;
    const long N = 2, C = (rnd() % 2) ? 3 : 19;
    dnnl_dims_t sd = {N, C}, dd = {N, C};
    long sp_in = 1, sp_out = 1;
    for (int i = 0; i < ns; ++i) {
        sd[2 + i] = I[i];
        dd[2 + i] = O[i];
        sp_in *= I[i];
        sp_out *= O[i];
    }
    dnnl_memory_desc_t smd, dmd;
    OK(dnnl_memory_desc_init_by_tag(&smd, nd, sd, dnnl_f32, tag));
    OK(dnnl_memory_desc_init_by_tag(&dmd, nd, dd, dnnl_f32, tag));
    dnnl_alg_kind_t alg = alg_linear ? dnnl_resampling_linear : dnnl_resampling_nearest;
    dnnl_resampling_desc_t fd, bd;
    OK(dnnl_resampling_forward_desc_init(&fd, dnnl_forward_training, alg, NULL, &smd, &dmd));
    dnnl_primitive_desc_t fpd = NULL, pd = NULL;
    OK(dnnl_primitive_desc_create(&fpd, &fd, NULL, eng, NULL));
    if (backward) {
        OK(dnnl_resampling_backward_desc_init(&bd, alg, NULL, &smd, &dmd));
        OK(dnnl_primitive_desc_create(&pd, &bd, NULL, eng, fpd));
    } else {
        pd = fpd;
    }
    if (!pd) return;
    /* Input tensor: src (forward) or diff_dst (backward); output the other. */
    const dnnl_memory_desc_t *imd = backward ? &dmd : &smd, *omd = backward ? &smd : &dmd;
    const long in_sp = backward ? sp_out : sp_in, out_sp = backward ? sp_in : sp_out;
    const long *in_dims = backward ? O : I, *out_dims = backward ? I : O;
    size_t isz = dnnl_memory_desc_get_size(imd), osz = dnnl_memory_desc_get_size(omd);
    float *ibuf = calloc(isz, 1), *obuf = calloc(osz, 1);
    float *logical_in = malloc(sizeof(float) * N * C * in_sp);
    for (long e = 0; e < N * C * in_sp; ++e)
        logical_in[e] = (float)((int)(rnd() % 2001) - 1000) / 97.f;
    long idx[5];
    /* Scatter logical (n, c, spatial row-major) into the tag's layout. */
    for (long e = 0; e < N * C * in_sp; ++e) {
        long r = e;
        for (int i = ns - 1; i >= 0; --i) {
            idx[2 + i] = r % in_dims[i];
            r /= in_dims[i];
        }
        idx[1] = r % C;
        idx[0] = r / C;
        ibuf[offset(imd, idx)] = logical_in[e];
    }
    dnnl_memory_t im, om;
    OK(dnnl_memory_create(&im, imd, eng, ibuf));
    OK(dnnl_memory_create(&om, omd, eng, obuf));
    dnnl_exec_arg_t args[2] = {{backward ? DNNL_ARG_DIFF_DST : DNNL_ARG_SRC, im},
            {backward ? DNNL_ARG_DIFF_SRC : DNNL_ARG_DST, om}};
    dnnl_primitive_t p = NULL;
    OK(dnnl_primitive_create(&p, pd));
    OK(dnnl_primitive_execute(p, strm, 2, args));
    OK(dnnl_stream_wait(strm));

    long bad = 0;
    for (long e = 0; e < N * C * out_sp; ++e) {
        long r = e, pos[3] = {0, 0, 0};
        for (int i = ns - 1; i >= 0; --i) {
            pos[i] = r % out_dims[i];
            r /= out_dims[i];
        }
        long c = r % C, n = r / C;
        const float *plane = logical_in + (n * C + c) * in_sp;
        float want;
        /* Input element at spatial position q[] of the input tensor. */
#define AT(q) plane[ns == 1 ? (q)[0] : ns == 2 ? (q)[0] * in_dims[1] + (q)[1] \
                   : ((q)[0] * in_dims[1] + (q)[1]) * in_dims[2] + (q)[2]]
        if (!backward && !alg_linear) {
            long q[3];
            for (int i = 0; i < ns; ++i) q[i] = nearest(pos[i], I[i], O[i]);
            want = AT(q);
        } else if (!backward) {
            lin_t t[3];
            for (int i = 0; i < ns; ++i) t[i] = linear(pos[i], I[i], O[i]);
            /* §2.2: interpolate along the first spatial axis first, the last one last. */
            float v[2][2][2];
            for (int a = 0; a < 2; ++a)
                for (int b = 0; b < 2; ++b)
                    for (int k = 0; k < 2; ++k) {
                        long q[3] = {t[0].i[a], ns > 1 ? t[1].i[b] : 0, ns > 2 ? t[2].i[k] : 0};
                        v[a][b][k] = AT(q);
                    }
            if (ns == 1)
                want = v[0][0][0] * t[0].w0 + v[1][0][0] * (1 - t[0].w0);
            else if (ns == 2) {
                float c0 = v[0][0][0] * t[0].w0 + v[1][0][0] * (1 - t[0].w0);
                float c1 = v[0][1][0] * t[0].w0 + v[1][1][0] * (1 - t[0].w0);
                want = c0 * t[1].w0 + c1 * (1 - t[1].w0);
            } else {
                float l[2][2];
                for (int b = 0; b < 2; ++b)
                    for (int k = 0; k < 2; ++k)
                        l[b][k] = v[0][b][k] * t[0].w0 + v[1][b][k] * (1 - t[0].w0);
                float c0 = l[0][0] * t[1].w0 + l[1][0] * (1 - t[1].w0);
                float c1 = l[0][1] * t[1].w0 + l[1][1] * (1 - t[1].w0);
                want = c0 * t[2].w0 + c1 * (1 - t[2].w0);
            }
        } else {
            /* Gather: groups (first axis outermost), then outputs in those ranges. */
            int G = alg_linear ? 2 : 1;
            float acc = 0.f;
            for (int g0 = 0; g0 < G; ++g0)
                for (int g1 = 0; g1 < (ns > 1 ? G : 1); ++g1)
                    for (int g2 = 0; g2 < (ns > 2 ? G : 1); ++g2) {
                        int g[3] = {g0, g1, g2};
                        long b[3] = {0, 0, 0}, en[3] = {1, 1, 1};
                        for (int i = 0; i < ns; ++i)
                            bwd_range(alg_linear, g[i], pos[i], I[i], O[i], &b[i], &en[i]);
                        for (long o0 = b[0]; o0 < en[0]; ++o0)
                            for (long o1 = b[1]; o1 < en[1]; ++o1)
                                for (long o2 = b[2]; o2 < en[2]; ++o2) {
                                    long q[3] = {o0, o1, o2};
                                    float t = AT(q);
                                    if (alg_linear)
                                        for (int i = 0; i < ns; ++i)
                                            t = t * lin_w(g[i], q[i], I[i], O[i]);
                                    acc += t;
                                }
                    }
            want = acc;
        }
#undef AT
        long oidx[5] = {n, c, pos[0], pos[1], pos[2]};
        float got = obuf[offset(omd, oidx)];
        if (!(got == want)) {
            if (bad < 3)
                printf("mismatch %s %s nd=%d tag=%d I=%ld,%ld,%ld O=%ld,%ld,%ld at %ld: got %.9g "
                       "want %.9g\n",
                        backward ? "bwd" : "fwd", alg_linear ? "linear" : "nearest", nd,
                        (int)tag, I[0], ns > 1 ? I[1] : 0, ns > 2 ? I[2] : 0, O[0],
                        ns > 1 ? O[1] : 0, ns > 2 ? O[2] : 0, e, got, want);
            bad++;
        }
    }
    CHECK(bad == 0);
    cases++;
    dnnl_primitive_destroy(p);
    dnnl_memory_destroy(im);
    dnnl_memory_destroy(om);
    if (pd != fpd) dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_desc_destroy(fpd);
    free(ibuf);
    free(obuf);
    free(logical_in);
}

int main(void) {
    V2 = v2_rules();
    /* The two models really differ (onednn.md §2.4: I=2, O=41, o=20). */
    {
        int keep = V2;
        V2 = 0;
        long a = nearest(20, 2, 41);
        V2 = 1;
        long b = nearest(20, 2, 41);
        V2 = keep;
        CHECK(a == 0 && b == 1);
        for (long I = 1; I <= 64; ++I)
            for (long O = 1; O <= 64; ++O)
                for (long y = 0; y < O; ++y) {
                    V2 = 0;
                    long n12 = nearest(y, I, O);
                    float s12 = src_coord(y, I, O);
                    V2 = 1;
                    long n2 = nearest(y, I, O);
                    float s2 = src_coord(y, I, O);
                    V2 = keep;
                    v12_vs_v2_differ += (n12 != n2) || (s12 != s2);
                }
        CHECK(v12_vs_v2_differ > 0);
    }
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    const dnnl_format_tag_t tags[3][4] = {
            {dnnl_ncw, dnnl_nwc, dnnl_nCw8c, dnnl_nCw16c},
            {dnnl_nchw, dnnl_nhwc, dnnl_nChw8c, dnnl_nChw16c},
            {dnnl_ncdhw, dnnl_ndhwc, dnnl_nCdhw8c, dnnl_nCdhw16c},
    };
    /* Known ties and documented examples first, then random sizes. */
    const long fixed[][2] = {{2, 41}, {3, 13}, {5, 3}, {21, 13}, {3, 5}, {60, 2}, {7, 7}, {1, 9}};
    for (unsigned k = 0; k < sizeof fixed / sizeof fixed[0]; ++k)
        for (int alg = 0; alg < 2; ++alg)
            for (int bwd = 0; bwd < 2; ++bwd)
                run(eng, strm, 1, &fixed[k][0], &fixed[k][1], tags[0][k % 4], alg, bwd);
    for (int trial = 0; trial < 240; ++trial) {
        int ns = 1 + trial % 3;
        long I[3], O[3];
        for (int i = 0; i < ns; ++i) {
            long lim = ns == 3 ? 9 : ns == 2 ? 17 : 45;
            I[i] = 1 + rnd() % lim;
            O[i] = 1 + rnd() % lim;
        }
        run(eng, strm, ns, I, O, tags[ns - 1][(trial / 3) % 4], (trial / 12) % 2,
                (trial / 24) % 2);
    }
    printf("rules %s: %ld problems; the 1.2 and 2.x models differ at %ld of the (I, O <= 64) "
           "forward coordinates\n",
            V2 ? "2.x" : "1.2", cases, v12_vs_v2_differ);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return finish();
}
