//! The 3.x entry points on inputs a C caller can build by mistake: NULL pointers, handles
//! that are not (or no longer) live, out-of-range enum values, bad indices. Each must
//! return an error status (or NULL / 0) instead of crashing. Runs without the real oneDNN.

use std::ffi::{c_int, c_void};
use std::ptr::{null, null_mut};

use dnnl3::capi::onednn::attr::dnnl_primitive_attr_create;
use dnnl3::capi::onednn::engine::{dnnl_engine_create, dnnl_engine_t};
use dnnl3::capi::onednn::postops::dnnl_post_ops_create;
use dnnl3::capi::onednn::types::*;
use dnnl3::capi::onednn::v3::attr::*;
use dnnl3::capi::onednn::v3::md::*;
use dnnl3::capi::onednn::v3::misc::*;
use dnnl3::capi::onednn::v3::resampling::*;

const NCHW: dnnl_format_tag_t = 5; // dnnl_abcd in 3.2
const NHWC: dnnl_format_tag_t = 22; // dnnl_acdb in 3.2
const NCHW16C: dnnl_format_tag_t = 78; // dnnl_aBcd16b in 3.2

fn engine() -> dnnl_engine_t {
    let mut e = null_mut();
    assert_eq!(
        unsafe { dnnl_engine_create(&mut e, dnnl_cpu, 0) },
        dnnl_success
    );
    e
}

fn md(dims: &[i64], dt: dnnl_data_type_t, tag: dnnl_format_tag_t) -> dnnl_memory_desc_handle {
    let mut m = null_mut();
    let s = unsafe {
        dnnl_memory_desc_create_with_tag(&mut m, dims.len() as c_int, dims.as_ptr(), dt, tag)
    };
    assert_eq!(s, dnnl_success);
    m
}

#[test]
fn memory_descriptors_refuse_bad_input() {
    unsafe {
        let dims = [2i64, 3, 4, 5];
        let mut m = null_mut();
        assert_eq!(
            dnnl_memory_desc_create_with_tag(null_mut(), 4, dims.as_ptr(), dnnl_f32, NCHW),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_desc_create_with_tag(&mut m, 4, null(), dnnl_f32, NCHW),
            dnnl_invalid_arguments
        );
        for tag in [-1, 762, 763, i32::MAX, i32::MIN] {
            assert_eq!(
                dnnl_memory_desc_create_with_tag(&mut m, 4, dims.as_ptr(), dnnl_f32, tag),
                dnnl_invalid_arguments,
                "tag {tag}"
            );
        }
        for (nd, dt) in [(13, dnnl_f32), (-1, dnnl_f32), (4, 7), (4, 8), (4, -3)] {
            assert_eq!(
                dnnl_memory_desc_create_with_tag(&mut m, nd, dims.as_ptr(), dt, NCHW),
                dnnl_invalid_arguments,
                "ndims {nd} dt {dt}"
            );
        }
        assert_eq!(
            dnnl_memory_desc_create_with_strides(&mut m, 4, dims.as_ptr(), dnnl_f32, null()),
            dnnl_success
        );
        let live = m;
        // queries
        let mut out: c_int = 0;
        assert_eq!(
            dnnl_memory_desc_query(null(), 256, (&mut out as *mut c_int).cast()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_desc_query(live, 256, null_mut()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_desc_query(live, 9999, (&mut out as *mut c_int).cast()),
            dnnl_unimplemented
        );
        assert_eq!(
            dnnl_memory_desc_query_v2(live, 256, 1, (&mut out as *mut c_int).cast()),
            dnnl_invalid_arguments
        );
        assert_eq!(dnnl_memory_desc_get_size_v2(live, 3), 0);
        // derived descriptors: NULL inputs
        assert_eq!(
            dnnl_memory_desc_clone(&mut m, null()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_desc_clone(null_mut(), live),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_desc_create_submemory(&mut m, live, null(), null()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_desc_reshape(&mut m, null(), 2, dims.as_ptr()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_desc_permute_axes(&mut m, live, null()),
            dnnl_invalid_arguments
        );
        let bad_perm = [0, 0, 1, 2];
        assert_eq!(
            dnnl_memory_desc_permute_axes(&mut m, live, bad_perm.as_ptr()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_memory_desc_create_with_string_tag(&mut m, 4, dims.as_ptr(), dnnl_f32, null()),
            dnnl_invalid_arguments
        );
        let name = c"aBcd9z";
        assert_eq!(
            dnnl_memory_desc_create_with_string_tag(
                &mut m,
                4,
                dims.as_ptr(),
                dnnl_f32,
                name.as_ptr()
            ),
            dnnl_invalid_arguments
        );
        // destroy: NULL is fine, a foreign or already destroyed pointer is refused
        assert_eq!(dnnl_memory_desc_destroy(null_mut()), dnnl_success);
        // SAFETY: plain old data.
        let mut on_stack: dnnl_memory_desc_t = std::mem::zeroed();
        assert_eq!(
            dnnl_memory_desc_destroy(&mut on_stack),
            dnnl_invalid_arguments
        );
        assert_eq!(dnnl_memory_desc_destroy(live), dnnl_success);
        assert_eq!(dnnl_memory_desc_destroy(live), dnnl_invalid_arguments);
        assert_eq!(dnnl_data_type_size(7), 8);
        assert_eq!(dnnl_data_type_size(99), usize::MAX);
    }
}

#[test]
fn primitive_descriptors_refuse_bad_input() {
    unsafe {
        let e = engine();
        let src = md(&[1, 16, 4, 4], dnnl_f32, NCHW16C);
        let dst = md(&[1, 16, 8, 8], dnnl_f32, NHWC);
        let mut pd = null_mut();
        let create = |pd: *mut _, e, prop, alg, s, d| {
            dnnl_resampling_forward_primitive_desc_create(pd, e, prop, alg, null(), s, d, null())
        };
        let (fwd, lin) = (dnnl_forward_training, dnnl_resampling_linear);
        assert_eq!(
            create(null_mut(), e, fwd, lin, src, dst),
            dnnl_invalid_arguments
        );
        assert_eq!(
            create(&mut pd, null_mut(), fwd, lin, src, dst),
            dnnl_invalid_arguments
        );
        assert_eq!(
            create(&mut pd, e, 12345, lin, src, dst),
            dnnl_invalid_arguments
        );
        assert_eq!(
            create(&mut pd, e, fwd, 32, src, dst),
            dnnl_invalid_arguments
        );
        assert_eq!(
            create(&mut pd, e, fwd, lin, null(), dst),
            dnnl_invalid_arguments
        );
        assert_eq!(
            create(&mut pd, e, fwd, lin, src, null()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_resampling_backward_primitive_desc_create(
                &mut pd,
                e,
                lin,
                null(),
                src,
                dst,
                0x1234 as *const _,
                null()
            ),
            dnnl_success,
            "a bad hint is ignored when nothing needs it"
        );
        dnnl3::capi::onednn::pd::dnnl_primitive_desc_destroy(pd);
        assert_eq!(create(&mut pd, e, fwd, lin, src, dst), dnnl_success);
        // queries
        let mut v: c_int = 0;
        let vp = (&mut v as *mut c_int).cast::<c_void>();
        assert_eq!(
            dnnl_primitive_desc_query(null(), 20, 0, vp),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_desc_query(pd, 20, 0, null_mut()),
            dnnl_invalid_arguments
        );
        for q in [14, 32, 64, 81, 256, 9999, -1] {
            assert_eq!(
                dnnl_primitive_desc_query(pd, q, 0, vp),
                dnnl_unimplemented,
                "q {q}"
            );
        }
        assert!(dnnl_primitive_desc_query_md(pd, 20, 0).is_null());
        assert!(dnnl_primitive_desc_query_md(null(), 129, 0).is_null());
        assert!(!dnnl_primitive_desc_query_md(pd, 255, i32::MAX).is_null());
        assert_eq!(dnnl_primitive_desc_query_s32(null(), 3, 0), 0);
        assert_eq!(
            dnnl_primitive_desc_next_impl(null_mut()),
            dnnl_invalid_arguments
        );
        assert_eq!(dnnl_primitive_desc_next_impl(pd), 4);
        // execution: bad argument arrays
        let mut prim = null_mut();
        assert_eq!(
            dnnl3::capi::onednn::primitive::dnnl_primitive_create(&mut prim, pd),
            dnnl_success
        );
        let mut s = null_mut();
        dnnl3::capi::onednn::engine::dnnl_stream_create(&mut s, e, 1);
        assert_eq!(
            dnnl_primitive_execute(prim, s, 2, null()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_execute(prim, s, -1, null()),
            dnnl_invalid_arguments
        );
        let junk = [dnnl_exec_arg_t {
            arg: i32::MAX,
            memory: null_mut(),
        }];
        assert_eq!(
            dnnl_primitive_execute(prim, s, 1, junk.as_ptr()),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_execute(null(), s, 0, null()),
            dnnl_invalid_arguments
        );
        dnnl3::capi::onednn::primitive::dnnl_primitive_destroy(prim);
        dnnl3::capi::onednn::engine::dnnl_stream_destroy(s);
        dnnl3::capi::onednn::pd::dnnl_primitive_desc_destroy(pd);
        dnnl_memory_desc_destroy(src);
        dnnl_memory_desc_destroy(dst);
    }
}

#[test]
fn post_ops_and_attributes_refuse_bad_input() {
    unsafe {
        let mut po = null_mut();
        assert_eq!(dnnl_post_ops_create(&mut po), dnnl_success);
        assert_eq!(
            dnnl_post_ops_append_sum(null_mut(), 1.0, 0, 0),
            dnnl_invalid_arguments
        );
        for alg in [0, 31, 53, 0x8f, 0x1fff0, -0x1039] {
            assert_eq!(
                dnnl_post_ops_append_eltwise(po, alg, 0.0, 0.0),
                dnnl_invalid_arguments,
                "alg {alg}"
            );
        }
        assert_eq!(dnnl_post_ops_append_eltwise(po, 39, 1.0, 0.0), dnnl_success);
        let (mut a, mut x, mut y) = (0, 0.0f32, 0.0f32);
        assert_eq!(
            dnnl_post_ops_get_params_eltwise(po, 0, &mut a, &mut x, &mut y),
            dnnl_success
        );
        assert_eq!(a, 39);
        assert_eq!(
            dnnl_post_ops_get_params_eltwise(po, 0, null_mut(), &mut x, &mut y),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_post_ops_get_params_eltwise(po, 5, &mut a, &mut x, &mut y),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_post_ops_get_params_sum(po, 0, &mut x, null_mut(), null_mut()),
            dnnl_invalid_arguments
        );
        assert_eq!(dnnl_post_ops_get_kind(po, 0), 7);
        assert_eq!(dnnl_post_ops_get_kind(po, -1), 0);
        assert_eq!(dnnl_post_ops_get_kind(null(), 0), 0);
        let mut c = null_mut();
        assert_eq!(dnnl_post_ops_clone(&mut c, null()), dnnl_invalid_arguments);
        assert_eq!(dnnl_post_ops_clone(null_mut(), po), dnnl_invalid_arguments);
        assert_eq!(dnnl_post_ops_clone(&mut c, po), dnnl_success);
        assert_eq!(dnnl3::capi::onednn::postops::dnnl_post_ops_len(c), 1);
        dnnl3::capi::onednn::postops::dnnl_post_ops_destroy(c);
        dnnl3::capi::onednn::postops::dnnl_post_ops_destroy(po);
        // a destroyed chain is not usable any more
        assert_eq!(
            dnnl_post_ops_append_sum(po, 1.0, 0, 0),
            dnnl_invalid_arguments
        );
        let mut attr = null_mut();
        assert_eq!(dnnl_primitive_attr_create(&mut attr), dnnl_success);
        assert_eq!(
            dnnl_primitive_attr_set_scales_mask(null_mut(), DNNL_ARG_SRC, 0),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, -1),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_attr_set_scales_mask(attr, 999, 0),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_SRC_1, 0),
            dnnl_invalid_arguments
        );
        assert_eq!(
            dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 2),
            dnnl_success
        );
        dnnl3::capi::onednn::attr::dnnl_primitive_attr_destroy(attr);
        // strings never return NULL
        for v in [-5, 0, 4, 11, 1000, i32::MIN] {
            assert!(!dnnl_status2str(v).is_null());
            assert!(!dnnl_dt2str(v).is_null());
            assert!(!dnnl_prim_kind2str(v).is_null());
            assert!(!dnnl_alg_kind2str(v).is_null());
            assert!(!dnnl_fmt_tag2str(v).is_null());
            assert!(!dnnl_cpu_isa2str(v).is_null());
            assert!(!dnnl_fpmath_mode2str(v).is_null());
        }
        assert_eq!((*dnnl_version()).major, 3);
    }
}
