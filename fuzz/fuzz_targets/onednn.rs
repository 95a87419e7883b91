//! oneDNN face: memory descriptors (tags, dims, data types, strides), resampling descs
//! (forward/backward, factors), attributes with post-op chains, primitive creation and
//! execution on buffers of exactly the queried sizes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use resample::capi::onednn::attr::*;
use resample::capi::onednn::desc::*;
use resample::capi::onednn::engine::*;
use resample::capi::onednn::format_tags::*;
use resample::capi::onednn::md::*;
use resample::capi::onednn::memory::*;
use resample::capi::onednn::pd::*;
use resample::capi::onednn::postops::*;
use resample::capi::onednn::primitive::*;
use resample::capi::onednn::types::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

#[path = "bytes.rs"]
mod bytes;
use bytes::Bytes;

const DTYPES: [dnnl_data_type_t; 7] = [dnnl_f32, dnnl_f32, dnnl_bf16, dnnl_f16, dnnl_s32, dnnl_s8, dnnl_u8];

fn tags(ndims: i32) -> &'static [dnnl_format_tag_t] {
    match ndims {
        3 => &[dnnl_abc, dnnl_acb, dnnl_aBc8b, dnnl_aBc16b, dnnl_format_tag_any],
        4 => &[dnnl_abcd, dnnl_acdb, dnnl_aBcd8b, dnnl_aBcd16b, dnnl_format_tag_any, dnnl_bacd],
        _ => &[dnnl_abcde, dnnl_acdeb, dnnl_aBcde8b, dnnl_aBcde16b, dnnl_format_tag_any],
    }
}

unsafe fn md(b: &mut Bytes, ndims: i32, dims: &[i64; 12]) -> dnnl_memory_desc_t {
    let mut m: dnnl_memory_desc_t = std::mem::zeroed();
    let dt = b.pick(&DTYPES);
    if b.u8() % 5 == 0 {
        let strides: Vec<i64> = (0..ndims).map(|_| b.size(60) as i64).collect();
        dnnl_memory_desc_init_by_strides(&mut m, ndims, dims.as_ptr(), dt, strides.as_ptr());
    } else {
        let tag = b.pick(tags(ndims));
        dnnl_memory_desc_init_by_tag(&mut m, ndims, dims.as_ptr(), dt, tag);
    }
    m
}

unsafe fn attr(b: &mut Bytes, dst: &dnnl_memory_desc_t, ndims: i32, dims: &[i64; 12]) -> dnnl_primitive_attr_t {
    let mut a = null_mut();
    dnnl_primitive_attr_create(&mut a);
    let mut po = null_mut();
    dnnl_post_ops_create(&mut po);
    for _ in 0..b.u8() % 4 {
        match b.u8() % 3 {
            0 => {
                dnnl_post_ops_append_sum(po, b.f32());
            }
            1 => {
                let alg = b.pick(&[dnnl_eltwise_relu, dnnl_eltwise_logistic, 0x2f, 0x3f, 7]);
                dnnl_post_ops_append_eltwise(po, b.f32(), alg, b.f32(), b.f32());
            }
            _ => {
                // src1: full, per-channel or scalar broadcast.
                let mut d1 = *dims;
                match b.u8() % 3 {
                    0 => {}
                    1 => (0..ndims as usize).filter(|&i| i != 1).for_each(|i| d1[i] = 1),
                    _ => (0..ndims as usize).for_each(|i| d1[i] = 1),
                }
                let m1 = md(b, ndims, &d1);
                let alg = b.pick(&[dnnl_binary_add, dnnl_binary_max, 0x1fff5]);
                dnnl_post_ops_append_binary(po, alg, &m1);
            }
        }
    }
    let _ = dst;
    dnnl_primitive_attr_set_post_ops(a, po);
    dnnl_post_ops_destroy(po);
    a
}

/// A buffer of exactly the memory's size, data from the fuzzer.
unsafe fn buffer(b: &Bytes, m: *const dnnl_memory_desc_t) -> Option<Vec<u8>> {
    if m.is_null() {
        return None;
    }
    let n = dnnl_memory_desc_get_size(m);
    if n > 32 << 20 {
        return None;
    }
    let mut v = vec![0u8; n];
    b.fill(&mut v);
    Some(v)
}

fuzz_target!(|data: &[u8]| unsafe {
    let mut b = Bytes(data);
    let ndims = b.pick(&[4, 4, 3, 5, 2, 6]);
    let mut sd = [0i64; 12];
    let mut dd = [0i64; 12];
    for i in 0..(ndims.clamp(0, 12) as usize) {
        sd[i] = b.size(9) as i64;
        dd[i] = if i < 2 { sd[i] } else { b.size(12) as i64 };
    }
    if b.u8() % 16 == 0 {
        dd[1] += 1;
    }
    let forward = b.u8() % 3 != 0;
    let alg = b.pick(&[dnnl_resampling_nearest, dnnl_resampling_linear, 0x2fff0]);
    let (smd, dmd) = (md(&mut b, ndims, &sd), md(&mut b, ndims, &dd));
    let factors: Vec<f32> = (0..3).map(|_| b.f32()).collect();
    let fp = if b.u8() % 6 == 0 { factors.as_ptr() } else { null() };
    let dst_arg = if b.u8() % 6 == 0 { null() } else { &dmd as *const _ };
    let mut rd: dnnl_resampling_desc_t = std::mem::zeroed();
    let st = if forward {
        let prop = b.pick(&[dnnl_forward_training, dnnl_forward_inference, dnnl_backward]);
        dnnl_resampling_forward_desc_init(&mut rd, prop, alg, fp, &smd, dst_arg)
    } else {
        dnnl_resampling_backward_desc_init(&mut rd, alg, fp, &smd, &dmd)
    };
    if st != dnnl_success {
        return;
    }
    // Factors can scale a huge dim down into the legitimate range (2^24..2^28 elements per
    // axis) whose real gigabyte tables would only exhaust the fuzzer's memory limit; the
    // refusal of larger ones is covered by the robustness tests.
    let legit_huge = |m: &dnnl_memory_desc_t| {
        (&m.dims)[..m.ndims.clamp(0, 12) as usize]
            .iter()
            .any(|&n| n > 1 << 22 && n < 1 << 28)
    };
    if [&rd.src_desc, &rd.dst_desc, &rd.diff_src_desc, &rd.diff_dst_desc]
        .into_iter()
        .any(legit_huge)
    {
        return;
    }
    let mut eng = null_mut();
    dnnl_engine_create(&mut eng, dnnl_cpu, 0);
    let at = if forward && b.u8() % 2 == 0 { attr(&mut b, &dmd, ndims, &dd) } else { null_mut() };
    let mut pd = null_mut();
    let created = dnnl_primitive_desc_create(&mut pd, &rd as *const _ as *const c_void, at, eng, null());
    if !at.is_null() {
        dnnl_primitive_attr_destroy(at);
    }
    if created == dnnl_success {
        let (qi, qo, ai, ao) = if forward {
            (dnnl_query_src_md, dnnl_query_dst_md, DNNL_ARG_SRC, DNNL_ARG_DST)
        } else {
            (dnnl_query_diff_dst_md, dnnl_query_diff_src_md, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC)
        };
        let (mi, mo) = (dnnl_primitive_desc_query_md(pd, qi, 0), dnnl_primitive_desc_query_md(pd, qo, 0));
        if std::env::var_os("FUZZ_DEBUG").is_some() {
            eprintln!(
                "forward={forward} alg={alg:#x} sd={:?} dd={:?} sizes in={} out={} in dims={:?} strides={:?} out dims={:?}",
                &sd[..ndims as usize], &dd[..ndims as usize],
                dnnl_memory_desc_get_size(mi), dnnl_memory_desc_get_size(mo),
                &(&(*mi).dims)[..ndims as usize], &(&(*mi).format_desc.blocking.strides)[..ndims as usize],
                &(&(*mo).dims)[..ndims as usize],
            );
        }
        let mut prim = null_mut();
        if let (Some(mut bi), Some(mut bo), true) =
            (buffer(&b, mi), buffer(&b, mo), dnnl_primitive_create(&mut prim, pd) == dnnl_success)
        {
            let mut strm = null_mut();
            dnnl_stream_create(&mut strm, eng, dnnl_stream_default_flags as u32);
            let (mut m_in, mut m_out) = (null_mut(), null_mut());
            dnnl_memory_create(&mut m_in, mi, eng, bi.as_mut_ptr() as *mut c_void);
            dnnl_memory_create(&mut m_out, mo, eng, bo.as_mut_ptr() as *mut c_void);
            let mut args = vec![
                dnnl_exec_arg_t { arg: ai, memory: m_in },
                dnnl_exec_arg_t { arg: ao, memory: m_out },
            ];
            // Binary post-op inputs, each exactly its queried size.
            let mut extra = Vec::new();
            for k in 0..4 {
                let arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE * (k + 1) | DNNL_ARG_SRC_1;
                let m1 = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
                if m1.is_null() || dnnl_memory_desc_get_size(m1) == 0 {
                    continue;
                }
                if let Some(mut v) = buffer(&b, m1) {
                    let mut m = null_mut();
                    dnnl_memory_create(&mut m, m1, eng, v.as_mut_ptr() as *mut c_void);
                    args.push(dnnl_exec_arg_t { arg, memory: m });
                    extra.push((m, v));
                }
            }
            dnnl_primitive_execute(prim, strm, args.len() as i32, args.as_ptr());
            for (m, _) in extra {
                dnnl_memory_destroy(m);
            }
            dnnl_memory_destroy(m_in);
            dnnl_memory_destroy(m_out);
            dnnl_stream_destroy(strm);
        }
        if !prim.is_null() {
            dnnl_primitive_destroy(prim);
        }
        dnnl_primitive_desc_destroy(pd);
    }
    dnnl_engine_destroy(eng);
});
