//! Panic boundary and allocation failure, through every face (needs the test-only cargo
//! feature `fault-injection`: `cargo test --features fault-injection --test fault_injection`).
//!
//! An internal panic injected into plan creation or execution must come out of each face as
//! its runtime-error code, with the process alive and the next call working; allocations
//! over a cap (tap tables, private input copies, library-allocated memory) must come out as
//! the face's out-of-memory code, never an abort.

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use resample::capi::ascend::forward::*;
use resample::capi::ascend::meta::*;
use resample::capi::ascend::types::*;
use resample::capi::directml::*;
use resample::capi::onednn::desc::*;
use resample::capi::onednn::engine::*;
use resample::capi::onednn::format_tags::*;
use resample::capi::onednn::md::*;
use resample::capi::onednn::memory::*;
use resample::capi::onednn::pd::*;
use resample::capi::onednn::primitive::*;
use resample::capi::onednn::types::*;
use resample::core::faults;

/// The faces' calls under one fault: `None` = no fault.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Fault {
    None,
    PanicCreate,
    PanicExecute,
    Oom,
}

fn arm(f: Fault, create: bool) {
    match f {
        Fault::PanicCreate if create => faults::panic_next(),
        Fault::PanicExecute if !create => faults::panic_next(),
        Fault::Oom => faults::cap_allocations(16),
        _ => {}
    }
}

fn disarm() {
    faults::cap_allocations(usize::MAX);
}

/// oneDNN: 1x1x2x2 -> 4x4 linear; returns (pd create status, execute status).
unsafe fn onednn(f: Fault, in_place: bool) -> (dnnl_status_t, dnnl_status_t) {
    let mut eng = null_mut();
    assert_eq!(dnnl_engine_create(&mut eng, dnnl_cpu, 0), dnnl_success);
    let mut strm = null_mut();
    assert_eq!(
        dnnl_stream_create(&mut strm, eng, dnnl_stream_default_flags as u32),
        dnnl_success
    );
    let (sd, dd) = ([1i64, 1, 2, 2], [1i64, 1, 4, 4]);
    let (mut smd, mut dmd) = (std::mem::zeroed(), std::mem::zeroed());
    dnnl_memory_desc_init_by_tag(&mut smd, 4, sd.as_ptr(), dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_init_by_tag(&mut dmd, 4, dd.as_ptr(), dnnl_f32, dnnl_nchw);
    let mut rd: dnnl_resampling_desc_t = std::mem::zeroed();
    let st = dnnl_resampling_forward_desc_init(
        &mut rd,
        dnnl_forward_inference,
        dnnl_resampling_linear,
        null(),
        &smd,
        &dmd,
    );
    assert_eq!(st, dnnl_success);
    let mut pd = null_mut();
    arm(f, true);
    let created = dnnl_primitive_desc_create(
        &mut pd,
        &rd as *const _ as *const c_void,
        null(),
        eng,
        null(),
    );
    disarm();
    let mut executed = dnnl_success;
    if created == dnnl_success {
        let mut prim = null_mut();
        assert_eq!(dnnl_primitive_create(&mut prim, pd), dnnl_success);
        // In place: src is the first 16 bytes of dst's buffer, so execution copies it.
        let mut buf = vec![1.0f32; 16];
        let mut x = [1.0f32, 2.0, 3.0, 4.0];
        let sp = if in_place {
            buf.as_mut_ptr()
        } else {
            x.as_mut_ptr()
        };
        let (mut sm, mut dm) = (null_mut(), null_mut());
        assert_eq!(
            dnnl_memory_create(&mut sm, &smd, eng, sp as *mut c_void),
            dnnl_success
        );
        assert_eq!(
            dnnl_memory_create(&mut dm, &dmd, eng, buf.as_mut_ptr() as *mut c_void),
            dnnl_success
        );
        let args = [
            dnnl_exec_arg_t {
                arg: DNNL_ARG_SRC,
                memory: sm,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_DST,
                memory: dm,
            },
        ];
        arm(f, false);
        executed = dnnl_primitive_execute(prim, strm, 2, args.as_ptr());
        disarm();
        dnnl_memory_destroy(sm);
        dnnl_memory_destroy(dm);
        dnnl_primitive_destroy(prim);
        dnnl_primitive_desc_destroy(pd);
    }
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    (created, executed)
}

/// DirectML: RESAMPLE 1x1x2x2 -> 4x4 linear; returns (create, execute) HRESULTs.
unsafe fn directml(f: Fault, in_place: bool) -> (HRESULT, HRESULT) {
    let (is, os) = ([1u32, 1, 2, 2], [1u32, 1, 4, 4]);
    let f32t = DML_TENSOR_DATA_TYPE_FLOAT32;
    let ib = DML_BUFFER_TENSOR_DESC {
        DataType: f32t,
        Flags: DML_TENSOR_FLAG_NONE,
        DimensionCount: 4,
        Sizes: is.as_ptr(),
        Strides: null(),
        TotalTensorSizeInBytes: DMLCalcBufferTensorSize(f32t, 4, is.as_ptr(), null()),
        GuaranteedBaseOffsetAlignment: 0,
    };
    let ob = DML_BUFFER_TENSOR_DESC {
        Sizes: os.as_ptr(),
        TotalTensorSizeInBytes: DMLCalcBufferTensorSize(f32t, 4, os.as_ptr(), null()),
        ..ib
    };
    let it = DML_TENSOR_DESC {
        Type: DML_TENSOR_TYPE_BUFFER,
        Desc: &ib as *const _ as *const c_void,
    };
    let ot = DML_TENSOR_DESC {
        Type: DML_TENSOR_TYPE_BUFFER,
        Desc: &ob as *const _ as *const c_void,
    };
    let scales = [1.0f32, 1.0, 2.0, 2.0];
    let rs = DML_RESAMPLE_OPERATOR_DESC {
        InputTensor: &it,
        OutputTensor: &ot,
        InterpolationMode: DML_INTERPOLATION_MODE_LINEAR,
        ScaleCount: 4,
        Scales: scales.as_ptr(),
    };
    let desc = DML_OPERATOR_DESC {
        Type: DML_OPERATOR_RESAMPLE,
        Desc: &rs as *const _ as *const c_void,
    };
    let mut op = null_mut();
    arm(f, true);
    let created = DMLCreateOperator(&desc, &mut op);
    disarm();
    let mut executed = S_OK;
    if created == S_OK {
        let mut buf = vec![1.0f32; 16];
        let mut x = [1.0f32, 2.0, 3.0, 4.0];
        let sp = if in_place {
            buf.as_mut_ptr()
        } else {
            x.as_mut_ptr()
        };
        let bi = DML_BUFFER_BINDING {
            Buffer: sp as *mut c_void,
            Offset: 0,
            SizeInBytes: 16,
        };
        let bo = DML_BUFFER_BINDING {
            Buffer: buf.as_mut_ptr() as *mut c_void,
            Offset: 0,
            SizeInBytes: 64,
        };
        arm(f, false);
        executed = DMLExecuteOperator(op, 1, &bi, 1, &bo);
        disarm();
        DMLReleaseOperator(op);
    }
    (created, executed)
}

/// Ascend: aclnnUpsampleNearest2d 1x1x2x2 -> 4x4; returns (GetWorkspaceSize, run).
unsafe fn ascend(f: Fault, in_place: bool) -> (aclnnStatus, aclnnStatus) {
    let (is, os, size) = ([1i64, 1, 2, 2], [1i64, 1, 4, 4], [4i64, 4]);
    let (ist, ost) = ([4i64, 4, 2, 1], [16i64, 16, 4, 1]);
    let mut buf = vec![1.0f32; 16];
    let mut x = [1.0f32, 2.0, 3.0, 4.0];
    let sp = if in_place {
        buf.as_mut_ptr()
    } else {
        x.as_mut_ptr()
    };
    let t = |dims: &[i64; 4], st: &[i64; 4], p: *mut f32| {
        aclCreateTensor(
            dims.as_ptr(),
            4,
            ACL_FLOAT,
            st.as_ptr(),
            0,
            ACL_FORMAT_NCHW,
            dims.as_ptr(),
            4,
            p as *mut c_void,
        )
    };
    let (src, dst) = (t(&is, &ist, sp), t(&os, &ost, buf.as_mut_ptr()));
    let sz = aclCreateIntArray(size.as_ptr(), 2);
    let (mut ws, mut ex) = (0u64, null_mut());
    arm(f, true);
    let created = aclnnUpsampleNearest2dGetWorkspaceSize(src, sz, dst, &mut ws, &mut ex);
    disarm();
    let mut executed = ACLNN_SUCCESS;
    if created == ACLNN_SUCCESS {
        arm(f, false);
        executed = aclnnUpsampleNearest2d(null_mut(), ws, ex, null_mut());
        disarm();
    }
    aclDestroyTensor(src);
    aclDestroyTensor(dst);
    aclDestroyIntArray(sz);
    (created, executed)
}

#[test]
fn faces_contain_panics_and_allocation_failures() {
    unsafe {
        // Sanity: without a fault every face succeeds (also in place).
        for in_place in [false, true] {
            assert_eq!(onednn(Fault::None, in_place), (dnnl_success, dnnl_success));
            assert_eq!(directml(Fault::None, in_place), (S_OK, S_OK));
            assert_eq!(
                ascend(Fault::None, in_place),
                (ACLNN_SUCCESS, ACLNN_SUCCESS)
            );
        }
        // Panics: the face's runtime-error value, and the next call works again.
        assert_eq!(onednn(Fault::PanicCreate, false).0, dnnl_runtime_error);
        assert_eq!(
            onednn(Fault::PanicExecute, false),
            (dnnl_success, dnnl_runtime_error)
        );
        assert_eq!(directml(Fault::PanicCreate, false).0, E_FAIL);
        assert_eq!(directml(Fault::PanicExecute, false), (S_OK, E_FAIL));
        assert_eq!(ascend(Fault::PanicCreate, false).0, ACLNN_ERR_RUNTIME_ERROR);
        assert_eq!(
            ascend(Fault::PanicExecute, false),
            (ACLNN_SUCCESS, ACLNN_ERR_RUNTIME_ERROR)
        );
        assert_eq!(onednn(Fault::None, false), (dnnl_success, dnnl_success));
        // Allocation failure at creation (tap tables): out-of-memory codes.
        assert_eq!(onednn(Fault::Oom, false).0, dnnl_out_of_memory);
        assert_eq!(directml(Fault::Oom, false).0, E_OUTOFMEMORY);
        assert_eq!(ascend(Fault::Oom, false).0, ACLNN_ERR_INNER_CREATE_EXECUTOR);
        assert_eq!(ascend(Fault::None, false), (ACLNN_SUCCESS, ACLNN_SUCCESS));
    }
    // In the same test: the fault state is global, so these never run concurrently.
    input_copies_that_cannot_be_allocated_are_out_of_memory();
}

/// Allocation failure at execution: the private copy of an input that overlaps the output.
fn input_copies_that_cannot_be_allocated_are_out_of_memory() {
    // The cap is set after creation, so only execution-time allocations see it.
    unsafe {
        let mut eng = null_mut();
        dnnl_engine_create(&mut eng, dnnl_cpu, 0);
        let mut strm = null_mut();
        dnnl_stream_create(&mut strm, eng, dnnl_stream_default_flags as u32);
        let (sd, dd) = ([1i64, 1, 2, 2], [1i64, 1, 4, 4]);
        let (mut smd, mut dmd) = (std::mem::zeroed(), std::mem::zeroed());
        dnnl_memory_desc_init_by_tag(&mut smd, 4, sd.as_ptr(), dnnl_f32, dnnl_nchw);
        dnnl_memory_desc_init_by_tag(&mut dmd, 4, dd.as_ptr(), dnnl_f32, dnnl_nchw);
        let mut rd: dnnl_resampling_desc_t = std::mem::zeroed();
        dnnl_resampling_forward_desc_init(
            &mut rd,
            dnnl_forward_inference,
            dnnl_resampling_nearest,
            null(),
            &smd,
            &dmd,
        );
        let mut pd = null_mut();
        assert_eq!(
            dnnl_primitive_desc_create(
                &mut pd,
                &rd as *const _ as *const c_void,
                null(),
                eng,
                null()
            ),
            dnnl_success
        );
        let mut prim = null_mut();
        assert_eq!(dnnl_primitive_create(&mut prim, pd), dnnl_success);
        let mut buf = vec![1.0f32; 16];
        let (mut sm, mut dm) = (null_mut(), null_mut());
        dnnl_memory_create(&mut sm, &smd, eng, buf.as_mut_ptr() as *mut c_void);
        dnnl_memory_create(&mut dm, &dmd, eng, buf.as_mut_ptr() as *mut c_void);
        let args = [
            dnnl_exec_arg_t {
                arg: DNNL_ARG_SRC,
                memory: sm,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_DST,
                memory: dm,
            },
        ];
        faults::cap_allocations(8);
        let st = dnnl_primitive_execute(prim, strm, 2, args.as_ptr());
        // Library-allocated memory over the cap: out of memory too.
        let mut big = null_mut();
        let st_alloc = dnnl_memory_create(&mut big, &dmd, eng, usize::MAX as *mut c_void);
        disarm();
        assert_eq!(st, dnnl_out_of_memory);
        assert_eq!(st_alloc, dnnl_out_of_memory);
        assert_eq!(
            dnnl_primitive_execute(prim, strm, 2, args.as_ptr()),
            dnnl_success
        );
        dnnl_memory_destroy(sm);
        dnnl_memory_destroy(dm);
        dnnl_primitive_destroy(prim);
        dnnl_primitive_desc_destroy(pd);
        dnnl_stream_destroy(strm);
        dnnl_engine_destroy(eng);
    }
}
