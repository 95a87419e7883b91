// cflags: -I/usr/include -std=c++11
/* The flow of oneDNN's own examples/primitives/resampling.cpp (written anew for this
 * test), compiled against the REAL oneDNN 2.6 C++ header <oneapi/dnnl/dnnl.hpp> from
 * /usr/include and linked with -lresample: 3x3x227x227 -> 350x350 linear, forward
 * training, library-allocated memories filled through the data handle. The result is
 * checked against a plain model of docs/spec/onednn.md section 2.2 (benchdnn tolerance),
 * and the C++ wrappers' queries (descs, impl info, attr, iterator) are exercised. */
#include <oneapi/dnnl/dnnl.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
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

static void write_to_dnnl_memory(const void *handle, memory &mem) {
    const size_t size = mem.get_desc().get_size();
    std::memcpy(mem.get_data_handle(), handle, size);
}
static void read_from_dnnl_memory(void *handle, const memory &mem) {
    const size_t size = mem.get_desc().get_size();
    std::memcpy(handle, mem.get_data_handle(), size);
}

static float linear_map(long y, long ymax, long xmax) {
    return ((float)y + 0.5f) * (float)xmax / (float)ymax - 0.5f;
}
struct Taps { long i0, i1; float w0; };
static Taps taps(long o, long O, long I) {
    float s = linear_map(o, O, I);
    long lo = (long)s; if (lo < 0) lo = 0;
    long hi = s < 0 ? 0 : ((float)(long)s == s ? (long)s : (long)s + 1);
    if (hi > I - 1) hi = I - 1;
    float w1 = std::fabs(s - (float)lo);
    return Taps{lo, hi, 1.f - w1};
}

int main() {
    try {
        engine eng(engine::kind::cpu, 0);
        stream strm(eng);
        CHECK(engine::get_count(engine::kind::cpu) == 1);
        CHECK(eng.get_kind() == engine::kind::cpu);

        const memory::dim N = 3, IC = 3, IH = 227, IW = 227, OH = 350, OW = 350;
        memory::dims src_dims = {N, IC, IH, IW};
        memory::dims dst_dims = {N, IC, OH, OW};
        std::vector<float> src_data(N * IC * IH * IW), dst_data(N * IC * OH * OW);
        for (size_t i = 0; i < src_data.size(); ++i) src_data[i] = std::cos(i / 10.f);

        auto src_md = memory::desc(src_dims, memory::data_type::f32, memory::format_tag::nchw);
        auto dst_md = memory::desc(dst_dims, memory::data_type::f32, memory::format_tag::nchw);
        auto src_mem = memory(src_md, eng);
        auto dst_mem = memory(dst_md, eng);
        write_to_dnnl_memory(src_data.data(), src_mem);

        auto resampling_d = resampling_forward::desc(prop_kind::forward_training,
                algorithm::resampling_linear, src_md, dst_md);
        auto resampling_pd = resampling_forward::primitive_desc(resampling_d, eng);
        auto resampling_prim = resampling_forward(resampling_pd);

        std::unordered_map<int, memory> resampling_args;
        resampling_args.insert({DNNL_ARG_SRC, src_mem});
        resampling_args.insert({DNNL_ARG_DST, dst_mem});
        resampling_prim.execute(strm, resampling_args);
        strm.wait();
        read_from_dnnl_memory(dst_data.data(), dst_mem);

        /* Model check: every output point. */
        long bad = 0;
        for (long n = 0; n < N * IC; ++n)
            for (long oh = 0; oh < OH; ++oh) {
                Taps th = taps(oh, OH, IH);
                for (long ow = 0; ow < OW; ++ow) {
                    Taps tw = taps(ow, OW, IW);
                    const float *s = &src_data[n * IH * IW];
                    float c0 = s[th.i0 * IW + tw.i0] * th.w0 + s[th.i1 * IW + tw.i0] * (1 - th.w0);
                    float c1 = s[th.i0 * IW + tw.i1] * th.w0 + s[th.i1 * IW + tw.i1] * (1 - th.w0);
                    float want = c0 * tw.w0 + c1 * (1 - tw.w0);
                    float got = dst_data[(n * OH + oh) * OW + ow];
                    float diff = std::fabs(want - got);
                    float rel = std::fabs(want) > 1e-5f ? diff / std::fabs(want) : diff;
                    (void)rel; /* cos data cancels: bound relative to the tap magnitude */
                    if (diff > 7 * 1.1920929e-7f * (1.f + std::fabs(want))) bad++;
                }
            }
        CHECK(bad == 0);

        /* What the C++ wrappers query. */
        CHECK(resampling_pd.src_desc() == src_md);
        CHECK(resampling_pd.dst_desc() == dst_md);
        CHECK(resampling_pd.get_kind() == primitive::kind::resampling);
        dnnl_prop_kind_t pk = dnnl_prop_kind_undef;
        CHECK(dnnl_primitive_desc_query(resampling_pd.get(), dnnl_query_prop_kind, 0, &pk) == dnnl_success);
        CHECK(pk == dnnl_forward_training);
        CHECK(std::string(resampling_pd.impl_info_str()).size() > 0);
        CHECK(dnnl_primitive_desc_query_s32(resampling_pd.get(), dnnl_query_num_of_inputs_s32, 0) == 1);
        CHECK(resampling_pd.get_engine() == eng);
        CHECK(resampling_prim.get_primitive_desc() != nullptr);
        CHECK(resampling_pd.scratchpad_desc().get_size() == 0);
        {   /* The implementation iterator the C++ API walks (one implementation here). */
            auto it_pd = resampling_forward::primitive_desc(resampling_d, eng);
            int n_impl = 1;
            while (it_pd.next_impl()) n_impl++;
            CHECK(n_impl >= 1);
        }
        primitive_attr pattr = resampling_pd.get_primitive_attr();
        CHECK(pattr.get_post_ops().len() == 0);
        CHECK(pattr.get_scratchpad_mode() == scratchpad_mode::library);
        CHECK(dst_mem.get_desc().get_size() == (size_t)(N * IC * OH * OW * 4));
        CHECK(dst_mem.get_engine() == eng);

        /* Factors constructor (dst from factors), dst format any. */
        auto d2 = resampling_forward::desc(prop_kind::forward_inference,
                algorithm::resampling_nearest, {1.5f, 2.f}, src_md);
        auto pd2 = resampling_forward::primitive_desc(d2, eng);
        CHECK(pd2.dst_desc().dims() == (memory::dims{N, IC, 340, 454}));
        CHECK(pd2.dst_desc().data_type() == memory::data_type::f32);

        /* Post-ops through the C++ attr classes: relu(sum(x) * per-channel). */
        post_ops po;
        po.append_sum(0.5f);
        po.append_binary(algorithm::binary_mul,
                memory::desc({1, IC, 1, 1}, memory::data_type::f32, memory::format_tag::any));
        po.append_eltwise(1.f, algorithm::eltwise_relu, 0.f, 0.f);
        CHECK(po.len() == 3);
        CHECK(po.kind(1) == primitive::kind::binary);
        primitive_attr attr;
        attr.set_post_ops(po);
        auto pd3 = resampling_forward::primitive_desc(resampling_d, attr, eng);
        CHECK(dnnl_primitive_desc_query_s32(pd3.get(), dnnl_query_num_of_inputs_s32, 0) == 2);
        auto bin_md = pd3.query_md(query::exec_arg_md, DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1);
        CHECK(bin_md.dims() == (memory::dims{1, IC, 1, 1}));
        memory bin_mem(bin_md, eng);
        float *bp = static_cast<float *>(bin_mem.get_data_handle());
        for (int c = 0; c < IC; ++c) bp[c] = c - 1.f; /* -1, 0, 1 */
        std::vector<float> before(dst_data);
        resampling_forward(pd3).execute(strm,
                {{DNNL_ARG_SRC, src_mem}, {DNNL_ARG_DST, dst_mem},
                        {DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, bin_mem}});
        strm.wait();
        std::vector<float> after(dst_data.size());
        read_from_dnnl_memory(after.data(), dst_mem);
        long bad3 = 0;
        for (size_t i = 0; i < after.size(); ++i) {
            long c = (long)(i / (OH * OW)) % IC;
            float v = (before[i] + 0.5f * before[i]) * (c - 1.f);
            float want = v > 0 ? v : 0.f;
            if (std::fabs(want - after[i]) > 1e-6f * (1 + std::fabs(want))) bad3++;
        }
        CHECK(bad3 == 0);

        /* Output scales are unimplemented, as in oneDNN 2.6 (C++ throws dnnl::error). */
        primitive_attr sattr;
        sattr.set_output_scales(0, {2.f});
        bool threw = false;
        try {
            resampling_forward::primitive_desc bad_pd(resampling_d, sattr, eng);
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
