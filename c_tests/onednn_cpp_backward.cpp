// cflags: -I/usr/include -std=c++11
/* Backward resampling through the REAL oneDNN 2.6 C++ header (/usr/include) linked with
 * -lresample: the forward pd is the hint, diff_src is format any, and both algorithms over
 * nchw / nhwc / nChw8c / ncdhw are checked against the scatter model of benchdnn
 * (docs/spec/onednn.md section 12.3): nearest exact, linear within 7 f32 ulps of the tap
 * magnitude. Any attribute on backward is unimplemented. */
#include <oneapi/dnnl/dnnl.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

using namespace dnnl;

static int passed = 0, failed = 0;
#define CHECK(c)                                                                 \
    do {                                                                         \
        if (c)                                                                   \
            passed++;                                                            \
        else {                                                                   \
            failed++;                                                            \
            if (failed < 30) std::printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); \
        }                                                                        \
    } while (0)

static float linear_map(long y, long ymax, long xmax) {
    return ((float)y + 0.5f) * (float)xmax / (float)ymax - 0.5f;
}
struct Taps { long i[2]; float w[2]; };
static Taps taps(bool nearest, long o, long O, long I) {
    Taps t;
    float s = linear_map(o, O, I);
    if (nearest) {
        long k = std::lround(s);
        if (k > I - 1) k = I - 1;
        t.i[0] = t.i[1] = k; t.w[0] = 1.f; t.w[1] = 0.f;
        return t;
    }
    long lo = (long)s; if (lo < 0) lo = 0;
    long hi = s < 0 ? 0 : ((float)(long)s == s ? (long)s : (long)s + 1);
    if (hi > I - 1) hi = I - 1;
    float w1 = std::fabs(s - (float)lo);
    t.i[0] = lo; t.i[1] = hi; t.w[0] = 1.f - w1; t.w[1] = w1;
    return t;
}

/* Logical index -> element offset of a blocked md (outer strides + one inner block). */
static long offset_of(const memory::desc &md, const long *idx) {
    const dnnl_memory_desc_t &d = md.data;
    const dnnl_blocking_desc_t &b = d.format_desc.blocking;
    long off = d.offset0, inner = 1;
    long blk[DNNL_MAX_NDIMS], istr[DNNL_MAX_NDIMS];
    for (int k = 0; k < d.ndims; ++k) { blk[k] = 1; istr[k] = 0; }
    for (int k = b.inner_nblks - 1; k >= 0; --k) {
        blk[b.inner_idxs[k]] = b.inner_blks[k];
        istr[b.inner_idxs[k]] = inner;
        inner *= b.inner_blks[k];
    }
    for (int k = 0; k < d.ndims; ++k)
        off += (idx[k] / blk[k]) * b.strides[k] + (idx[k] % blk[k]) * istr[k];
    return off;
}

static void run(engine &eng, stream &strm, algorithm alg, const memory::dims &src_dims,
        const memory::dims &dst_dims, memory::format_tag tag) {
    const bool nearest = alg == algorithm::resampling_nearest;
    const int nd = (int)src_dims.size();
    auto src_md = memory::desc(src_dims, memory::data_type::f32, tag);
    auto dst_any = memory::desc(dst_dims, memory::data_type::f32, memory::format_tag::any);
    auto fwd_d = resampling_forward::desc(prop_kind::forward_training, alg, src_md, dst_any);
    auto fwd_pd = resampling_forward::primitive_desc(fwd_d, eng);

    auto diff_dst_md = fwd_pd.dst_desc();
    auto diff_src_any = memory::desc(src_dims, memory::data_type::f32, memory::format_tag::any);
    auto bwd_d = resampling_backward::desc(alg, diff_src_any, diff_dst_md);
    auto bwd_pd = resampling_backward::primitive_desc(bwd_d, eng, fwd_pd);
    CHECK(bwd_pd.diff_dst_desc() == diff_dst_md);
    CHECK(bwd_pd.diff_src_desc().dims() == src_dims);
    CHECK(bwd_pd.src_desc().get_size() == 0); /* zero md: no src in backward */

    memory dd_mem(bwd_pd.diff_dst_desc(), eng), ds_mem(bwd_pd.diff_src_desc(), eng);
    const long N = src_dims[0], C = src_dims[1];
    long I[3] = {1, 1, 1}, O[3] = {1, 1, 1};
    for (int k = 2; k < nd; ++k) { I[k - 2 + (5 - nd)] = src_dims[k]; O[k - 2 + (5 - nd)] = dst_dims[k]; }
    float *dd = static_cast<float *>(dd_mem.get_data_handle());
    std::vector<float> dd_plain(N * C * O[0] * O[1] * O[2]);
    unsigned seed = 7;
    for (size_t i = 0; i < dd_plain.size(); ++i) {
        seed = seed * 1103515245u + 12345u;
        dd_plain[i] = (float)((seed >> 9) % 2001) / 1000.f - 1.f;
    }
    std::vector<float> want(N * C * I[0] * I[1] * I[2], 0.f), mag(want.size(), 0.f);
    long idx[5];
    for (long n = 0; n < N; ++n) for (long c = 0; c < C; ++c)
    for (long od = 0; od < O[0]; ++od) for (long oh = 0; oh < O[1]; ++oh) for (long ow = 0; ow < O[2]; ++ow) {
        float v = dd_plain[(((n * C + c) * O[0] + od) * O[1] + oh) * O[2] + ow];
        long sp[3] = {od, oh, ow};
        idx[0] = n; idx[1] = c;
        for (int k = 2; k < nd; ++k) idx[k] = sp[k - 2 + (5 - nd)];
        dd[offset_of(bwd_pd.diff_dst_desc(), idx)] = v;
        Taps td = taps(nearest, od, O[0], I[0]), th = taps(nearest, oh, O[1], I[1]), tw = taps(nearest, ow, O[2], I[2]);
        for (int a = 0; a < 2; ++a) for (int b = 0; b < 2; ++b) for (int e = 0; e < 2; ++e) {
            float w = td.w[a] * th.w[b] * tw.w[e];
            if (w == 0.f) continue;
            long o = (((n * C + c) * I[0] + td.i[a]) * I[1] + th.i[b]) * I[2] + tw.i[e];
            want[o] += w * v;
            mag[o] += std::fabs(w * v);
        }
    }
    resampling_backward(bwd_pd).execute(strm, {{DNNL_ARG_DIFF_DST, dd_mem}, {DNNL_ARG_DIFF_SRC, ds_mem}});
    strm.wait();
    const float *ds = static_cast<const float *>(ds_mem.get_data_handle());
    long bad = 0;
    for (long n = 0; n < N; ++n) for (long c = 0; c < C; ++c)
    for (long id = 0; id < I[0]; ++id) for (long ih = 0; ih < I[1]; ++ih) for (long iw = 0; iw < I[2]; ++iw) {
        long sp[3] = {id, ih, iw};
        idx[0] = n; idx[1] = c;
        for (int k = 2; k < nd; ++k) idx[k] = sp[k - 2 + (5 - nd)];
        long o = (((n * C + c) * I[0] + id) * I[1] + ih) * I[2] + iw;
        float got = ds[offset_of(bwd_pd.diff_src_desc(), idx)];
        /* nearest sums the same values in another order: a few ulps of the magnitude. */
        if (std::fabs(got - want[o]) > 8 * 1.1920929e-7f * (mag[o] + 1e-30f) + (mag[o] == 0 ? 0 : 1e-12f)) bad++;
    }
    CHECK(bad == 0);
    if (bad) std::printf("  alg %s tag %d: %ld bad\n", nearest ? "nearest" : "linear", (int)tag, bad);
}

int main() {
    try {
        engine eng(engine::kind::cpu, 0);
        stream strm(eng);
        const algorithm algs[2] = {algorithm::resampling_nearest, algorithm::resampling_linear};
        for (int a = 0; a < 2; ++a) {
            run(eng, strm, algs[a], {2, 5, 7, 9}, {2, 5, 12, 4}, memory::format_tag::nchw);
            run(eng, strm, algs[a], {2, 5, 7, 9}, {2, 5, 3, 20}, memory::format_tag::nhwc);
            run(eng, strm, algs[a], {1, 19, 6, 5}, {1, 19, 9, 11}, memory::format_tag::nChw8c);
            run(eng, strm, algs[a], {2, 3, 4, 5, 6}, {2, 3, 7, 3, 8}, memory::format_tag::ncdhw);
            run(eng, strm, algs[a], {3, 4, 17}, {3, 4, 5}, memory::format_tag::nwc);
        }
        /* Post-ops on backward are unimplemented. */
        auto s = memory::desc({1, 2, 4, 4}, memory::data_type::f32, memory::format_tag::nchw);
        auto d = memory::desc({1, 2, 8, 8}, memory::data_type::f32, memory::format_tag::nchw);
        auto fwd_pd = resampling_forward::primitive_desc(
                resampling_forward::desc(prop_kind::forward_training, algorithm::resampling_linear, s, d), eng);
        post_ops po;
        po.append_sum(1.f);
        primitive_attr attr;
        attr.set_post_ops(po);
        bool threw = false;
        try {
            resampling_backward::primitive_desc bpd(
                    resampling_backward::desc(algorithm::resampling_linear, s, d), attr, eng, fwd_pd);
        } catch (error &e) {
            threw = e.status == dnnl_unimplemented;
        }
        CHECK(threw);
    } catch (error &e) {
        std::printf("oneDNN error: status %d, %s\n", (int)e.status, e.what());
        failed++;
    }
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
