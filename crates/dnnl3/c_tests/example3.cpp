// example3.cpp — a oneDNN 3.x C++ program through the real `dnnl.hpp`: the flow of the
// v3 resampling example (engine, stream, memory descriptors by tag, a resampling forward
// primitive descriptor created directly, memories, execute, wait), then what a v3 program
// also does: post-ops through the C++ classes, pd queries (algorithm, factors, mds),
// format_tag::any, backward with a forward hint, next_impl, and a refusal surfacing as
// dnnl::error. crates/dnnl3/tests/dnnl3_c.rs runs it against the real libdnnl.so.3 and
// against this project's and compares the outputs (lines starting with "~" excepted).
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

#include "oneapi/dnnl/dnnl.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

static void fill(memory &m) {
    auto *p = static_cast<float *>(m.get_data_handle());
    size_t n = m.get_desc().get_size() / sizeof(float);
    for (size_t i = 0; i < n; i++)
        p[i] = std::sin((float)i * 0.37f) * 3.f;
}

static double checksum(const memory &m) {
    auto *p = static_cast<const float *>(m.get_data_handle());
    size_t n = m.get_desc().get_size() / sizeof(float);
    double s = 0;
    for (size_t i = 0; i < n; i++) s += p[i] * (double)(1 + i % 7);
    return s;
}

static void print_dims(const char *name, const memory::dims &d) {
    std::printf("%s", name);
    for (auto v : d) std::printf(" %lld", (long long)v);
    std::printf("\n");
}

int main() {
    engine eng(engine::kind::cpu, 0);
    stream strm(eng);

    // 1. The example flow: N=3, C=3, 15x15 -> 30x30, nchw, linear.
    const memory::dim N = 3, IC = 3, IH = 15, IW = 15, OH = 30, OW = 30;
    memory::desc src_md({N, IC, IH, IW}, dt::f32, tag::nchw);
    memory::desc dst_md({N, IC, OH, OW}, dt::f32, tag::nchw);
    memory src_mem(src_md, eng), dst_mem(dst_md, eng);
    fill(src_mem);
    auto pd = resampling_forward::primitive_desc(eng, prop_kind::forward_training,
            algorithm::resampling_linear, src_md, dst_md);
    resampling_forward prim(pd);
    prim.execute(strm, {{DNNL_ARG_SRC, src_mem}, {DNNL_ARG_DST, dst_mem}});
    strm.wait();
    std::printf("linear checksum %.4g\n", checksum(dst_mem));
    std::printf("~impl %s\n", pd.impl_info_str());
    std::printf("alg %d prop %d kind %d\n", (int)pd.get_algorithm(), (int)pd.get_prop_kind(),
            (int)pd.get_kind());
    auto f = pd.get_factors();
    std::printf("factors %zu %a %a\n", f.size(), f.size() > 0 ? f[0] : 0.f, f.size() > 1 ? f[1] : 0.f);
    print_dims("dst dims", pd.dst_desc().get_dims());

    // 2. Nearest, nhwc -> format any, post-ops (sum, eltwise, per-channel binary).
    memory::desc s2({2, 16, 5, 7}, dt::f32, tag::nhwc);
    memory::desc d2({2, 16, 9, 14}, dt::f32, tag::any);
    memory::desc b2({1, 16, 1, 1}, dt::f32, tag::nchw);
    post_ops po;
    po.append_sum(0.5f);
    po.append_eltwise(algorithm::eltwise_clip, -1.f, 2.f);
    po.append_binary(algorithm::binary_mul, b2);
    primitive_attr attr;
    attr.set_post_ops(po);
    auto pd2 = resampling_forward::primitive_desc(eng, prop_kind::forward_inference,
            algorithm::resampling_nearest, s2, d2, attr);
    auto d2r = pd2.dst_desc();
    std::printf("any -> strides");
    for (auto v : d2r.get_strides()) std::printf(" %lld", (long long)v);
    std::printf(" inner_nblks %d\n", d2r.get_inner_nblks());
    memory m_s2(s2, eng), m_d2(d2r, eng), m_b2(b2, eng);
    fill(m_s2);
    fill(m_d2);
    fill(m_b2);
    resampling_forward(pd2).execute(strm, {{DNNL_ARG_SRC, m_s2}, {DNNL_ARG_DST, m_d2},
            {DNNL_ARG_ATTR_MULTIPLE_POST_OP(2) | DNNL_ARG_SRC_1, m_b2}});
    strm.wait();
    std::printf("nearest+postops checksum %.6f\n", checksum(m_d2));
    auto qpo = pd2.get_primitive_attr().get_post_ops();
    std::printf("post-ops len %d kinds %d %d %d\n", qpo.len(), (int)qpo.kind(0), (int)qpo.kind(1),
            (int)qpo.kind(2));
    float scale = 0;
    int32_t zp = 0;
    memory::data_type sdt;
    qpo.get_params_sum(0, scale, zp, sdt);
    algorithm ealg;
    float alpha = 0, beta = 0;
    qpo.get_params_eltwise(1, ealg, alpha, beta);
    std::printf("sum %g %d %d eltwise %d %g %g\n", scale, zp, (int)sdt, (int)ealg, alpha, beta);

    // 3. Backward with the forward pd as hint (dst from factors on the forward side).
    memory::desc s3({1, 8, 6, 6}, dt::f32, tag::nChw8c);
    auto pd3f = resampling_forward::primitive_desc(eng, prop_kind::forward_training,
            algorithm::resampling_nearest, {2.f, 0.5f}, s3);
    print_dims("fwd from factors", pd3f.dst_desc().get_dims());
    auto pd3 = resampling_backward::primitive_desc(eng, algorithm::resampling_nearest,
            {2.f, 0.5f}, s3, pd3f.dst_desc(), pd3f);
    memory m_dd(pd3.diff_dst_desc(), eng), m_ds(pd3.diff_src_desc(), eng);
    fill(m_dd);
    resampling_backward(pd3).execute(strm, {{DNNL_ARG_DIFF_DST, m_dd}, {DNNL_ARG_DIFF_SRC, m_ds}});
    strm.wait();
    std::printf("backward checksum %.6f\n", checksum(m_ds));
    std::printf("~next_impl %d\n", (int)pd3.next_impl());

    // 4. A refusal is a dnnl::error with the C status.
    try {
        memory::desc bad({1, 8, 6}, dt::f32, tag::ncw);
        auto pdx = resampling_forward::primitive_desc(eng, prop_kind::forward_training,
                algorithm::resampling_linear, s3, bad);
        std::printf("no error\n");
    } catch (const dnnl::error &e) {
        std::printf("error status %d\n", (int)e.status);
    }
    // allow_empty: an empty pd instead of an exception.
    primitive_attr sc;
    sc.set_scales_mask(DNNL_ARG_SRC, 0);
    auto empty = resampling_forward::primitive_desc(eng, prop_kind::forward_training,
            algorithm::resampling_linear, src_md, dst_md, sc, true);
    std::printf("scales pd empty %d\n", empty ? 0 : 1);
    std::printf("version %d.%d\n", version()->major, version()->minor);
    std::printf("done\n");
    return 0;
}
