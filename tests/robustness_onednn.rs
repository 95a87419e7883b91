#![allow(non_upper_case_globals)]
//! Robustness of the oneDNN face against hostile C input: every entry point a resampling
//! program uses is called with memory descriptors full of extreme or random bytes,
//! op descriptors a C caller fills by hand, garbage enums, NaN/inf factors, wrong execution
//! arguments and destroyed or foreign handles. Every call must return one of oneDNN's
//! status codes (`runtime_error`, which a caught panic becomes, counts as a failure),
//! never crash, hang or allocate absurd memory; successful executions must stay inside
//! their buffers (canaries). See `robustness_common` for the guard and reproduction.

mod robustness_common;

use std::ffi::{c_int, c_void};
use std::ptr::{null, null_mut};

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
use robustness_common::*;

const OK_STATUSES: [dnnl_status_t; 4] = [
    dnnl_success,
    dnnl_out_of_memory,
    dnnl_invalid_arguments,
    dnnl_unimplemented,
];
const TAG_LAST: c_int = 514;
const ALLOCATE: *mut c_void = usize::MAX as *mut c_void;

fn zero_md() -> dnnl_memory_desc_t {
    // SAFETY: the descriptor is plain old data; all-zero is the "zero md".
    unsafe { std::mem::zeroed() }
}

fn zero_rd() -> dnnl_resampling_desc_t {
    // SAFETY: plain old data.
    unsafe { std::mem::zeroed() }
}

fn blk(md: &mut dnnl_memory_desc_t) -> &mut dnnl_blocking_desc_t {
    // SAFETY: every bit pattern is a valid blocking desc (integers only).
    unsafe { &mut md.format_desc.blocking }
}

fn blk_ref(md: &dnnl_memory_desc_t) -> &dnnl_blocking_desc_t {
    // SAFETY: as above.
    unsafe { &md.format_desc.blocking }
}

fn dt_size(dt: dnnl_data_type_t) -> Option<u64> {
    match dt {
        dnnl_f32 | dnnl_s32 => Some(4),
        dnnl_f16 | dnnl_bf16 => Some(2),
        dnnl_s8 | dnnl_u8 => Some(1),
        _ => None,
    }
}

/// Independent bound of the bytes a blocked descriptor addresses (offset0 included):
/// `None` when it is not a well-formed, non-negative blocked layout.
fn span_of(md: &dnnl_memory_desc_t) -> Option<u128> {
    if !(1..=12).contains(&md.ndims) || md.format_kind != dnnl_blocked {
        return None;
    }
    let nd = md.ndims as usize;
    let es = dt_size(md.data_type)? as i128;
    if md.offset0 < 0 {
        return None;
    }
    let b = blk_ref(md);
    if !(0..=12).contains(&b.inner_nblks) {
        return None;
    }
    let nb = b.inner_nblks as usize;
    let mut blocks = [1i128; 12];
    let mut inner_last = 0i128;
    let mut inner_stride = 1i128;
    for k in (0..nb).rev() {
        let (sz, d) = (b.inner_blks[k] as i128, b.inner_idxs[k]);
        if sz <= 0 || !(0..nd as i64).contains(&d) {
            return None;
        }
        blocks[d as usize] = blocks[d as usize].checked_mul(sz)?;
        inner_last += (sz - 1).checked_mul(inner_stride)?;
        inner_stride = inner_stride.checked_mul(sz)?;
    }
    if md.padded_dims[..nd].contains(&0) {
        return Some(0);
    }
    let mut last = md.offset0 as i128 + inner_last;
    for ((&p, &s), &blk) in md.padded_dims[..nd]
        .iter()
        .zip(&b.strides[..nd])
        .zip(&blocks)
    {
        let (p, s) = (p as i128, s as i128);
        if p < 0 || s < 0 || p % blk != 0 {
            return None;
        }
        last = last.checked_add((p / blk - 1).checked_mul(s)?)?;
    }
    u128::try_from((last + 1).checked_mul(es)?).ok()
}

struct Ctx {
    engine: dnnl_engine_t,
    stream: dnnl_stream_t,
}

impl Ctx {
    fn new() -> Ctx {
        let mut engine = null_mut();
        let mut stream = null_mut();
        unsafe {
            assert_eq!(dnnl_engine_create(&mut engine, dnnl_cpu, 0), dnnl_success);
            assert_eq!(dnnl_stream_create(&mut stream, engine, 1), dnnl_success);
        }
        Ctx { engine, stream }
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        unsafe {
            dnnl_stream_destroy(self.stream);
            dnnl_engine_destroy(self.engine);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Generators

/// A well-formed descriptor of small dims (possibly zero), made by the library.
fn valid_md(rng: &mut Rng, ndims: c_int) -> dnnl_memory_desc_t {
    let mut dims = [0i64; 12];
    for d in dims.iter_mut().take(ndims as usize) {
        *d = if rng.chance(0.05) { 0 } else { rng.range(1, 9) };
    }
    valid_md_dims(rng, ndims, &dims)
}

fn valid_md_dims(rng: &mut Rng, ndims: c_int, dims: &[i64; 12]) -> dnnl_memory_desc_t {
    let dt = rng.pick(&[
        dnnl_f32, dnnl_f32, dnnl_bf16, dnnl_f16, dnnl_s8, dnnl_u8, dnnl_s32,
    ]);
    let mut md = zero_md();
    let common: &[c_int] = match ndims {
        3 => &[dnnl_ncw, dnnl_nwc, dnnl_nCw16c, dnnl_nCw8c, dnnl_aBc4b],
        4 => &[
            dnnl_nchw,
            dnnl_nhwc,
            dnnl_nChw16c,
            dnnl_nChw8c,
            dnnl_aBcd4b,
            dnnl_cdba,
        ],
        5 => &[
            dnnl_ncdhw,
            dnnl_ndhwc,
            dnnl_nCdhw16c,
            dnnl_nCdhw8c,
            dnnl_aBcde4b,
        ],
        _ => &[],
    };
    let way = rng.below(10);
    if !common.is_empty() && way < 6 {
        let tag = rng.pick(common);
        if unsafe { dnnl_memory_desc_init_by_tag(&mut md, ndims, dims.as_ptr(), dt, tag) }
            == dnnl_success
        {
            return md;
        }
    }
    for _ in 0..(if way < 8 { 20 } else { 0 }) {
        let tag = rng.range(2, TAG_LAST as i64 - 1) as c_int;
        if unsafe { dnnl_memory_desc_init_by_tag(&mut md, ndims, dims.as_ptr(), dt, tag) }
            == dnnl_success
        {
            return md;
        }
    }
    // A dense layout with the axes in a random order.
    let nd = ndims as usize;
    let mut order: Vec<usize> = (0..nd).collect();
    for i in (1..nd).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut strides = [0i64; 12];
    let mut s = 1i64;
    for &d in order.iter().rev() {
        strides[d] = s;
        s = s.wrapping_mul(dims[d].max(1)).wrapping_mul(rng.range(1, 2));
    }
    let st = unsafe {
        dnnl_memory_desc_init_by_strides(&mut md, ndims, dims.as_ptr(), dt, strides.as_ptr())
    };
    if st != dnnl_success {
        // Callers pass garbage dims on purpose at times: keep a descriptor anyway.
        md.ndims = ndims;
        md.dims = *dims;
    }
    md
}

/// Changes one to three fields of `md` to extreme values (or randomises all of it).
fn mutate(rng: &mut Rng, md: &mut dnnl_memory_desc_t) {
    for _ in 0..rng.range(1, 3) {
        let i = rng.below(12) as usize;
        match rng.below(15) {
            0 => md.ndims = rng.pick(&[-1, 0, 1, 2, 5, 6, 12, 13, 100, c_int::MIN, c_int::MAX]),
            1 | 2 => md.dims[i] = rng.i64_extreme(),
            3 => md.padded_dims[i] = rng.i64_extreme(),
            4 => md.padded_offsets[i] = rng.i64_extreme(),
            5 => md.offset0 = rng.i64_extreme(),
            6 => md.format_kind = rng.pick(&[-1, 0, 1, 2, 3, 4, 5, 0x7fff, c_int::MIN]),
            7 => md.data_type = rng.pick(&[-1, 0, 1, 2, 3, 4, 5, 6, 7, 100, c_int::MAX]),
            8 | 9 => blk(md).strides[i] = rng.i64_extreme(),
            10 => blk(md).inner_nblks = rng.pick(&[-1, 0, 1, 2, 3, 12, 13, 1000, c_int::MIN]),
            11 => blk(md).inner_blks[i] = rng.i64_extreme(),
            12 => blk(md).inner_idxs[i] = rng.i64_extreme(),
            13 => md.extra.flags = rng.next() & rng.pick(&[0xf, 0x1, u64::MAX]),
            _ => {
                // SAFETY: plain old data; any bytes are a (garbage) descriptor.
                let bytes = unsafe {
                    std::slice::from_raw_parts_mut(
                        md as *mut _ as *mut u8,
                        std::mem::size_of::<dnnl_memory_desc_t>(),
                    )
                };
                rng.bytes(bytes);
                md.ndims = rng.range(-2, 14) as c_int;
            }
        }
    }
}

/// A descriptor: well-formed, mutated, or random bytes.
fn any_md(rng: &mut Rng) -> dnnl_memory_desc_t {
    let nd = rng.range(1, 6) as c_int;
    let mut md = valid_md(rng, nd);
    if rng.chance(0.7) {
        mutate(rng, &mut md);
    }
    md
}

// ---------------------------------------------------------------------------------------
// Memory-descriptor functions

fn check_md_functions(rng: &mut Rng, fails: &mut Failures, label: &str, ctx: &Ctx) {
    let md = any_md(rng);
    let other = if rng.chance(0.5) { md } else { any_md(rng) };
    unsafe {
        // get_size / equal never fail; they must only return.
        let size = dnnl_memory_desc_get_size(&md);
        let _ = dnnl_memory_desc_equal(&md, &other);
        let _ = dnnl_memory_desc_equal(&md, null());
        let _ = dnnl_data_type_size(md.data_type);

        // permute_axes with a random (often invalid) permutation.
        let mut perm = [0 as c_int; 12];
        for (k, p) in perm.iter_mut().enumerate() {
            *p = if rng.chance(0.8) {
                k as c_int
            } else {
                rng.range(-3, 14) as c_int
            };
        }
        let nd = md.ndims.clamp(0, 12) as usize;
        if nd > 1 && rng.chance(0.5) {
            perm.swap(0, nd - 1);
        }
        let mut out = zero_md();
        let st = dnnl_memory_desc_permute_axes(&mut out, &md, perm.as_ptr());
        fails.check(OK_STATUSES.contains(&st), || {
            format!("{label}: permute_axes -> {st}")
        });
        let st = dnnl_memory_desc_permute_axes(null_mut(), &md, perm.as_ptr());
        fails.check(st == dnnl_invalid_arguments, || {
            format!("{label}: permute_axes(NULL out) -> {st}")
        });

        // init_submemory with random extents and offsets.
        let mut dims = md.dims;
        let mut offs = [0i64; 12];
        for d in 0..12 {
            if rng.chance(0.4) {
                dims[d] = rng.i64_extreme();
            }
            if rng.chance(0.4) {
                offs[d] = rng.i64_extreme();
            }
        }
        let st = dnnl_memory_desc_init_submemory(&mut out, &md, dims.as_ptr(), offs.as_ptr());
        fails.check(OK_STATUSES.contains(&st), || {
            format!("{label}: init_submemory -> {st}")
        });
        if st == dnnl_success {
            let _ = dnnl_memory_desc_get_size(&out);
        }

        // init_by_tag / init_by_strides with extreme arguments.
        let ndims = rng.pick(&[-1, 0, 1, 3, 4, 5, 6, 12, 13, c_int::MAX, c_int::MIN]);
        let mut raw_dims = [0i64; 12];
        for d in raw_dims.iter_mut() {
            *d = if rng.chance(0.5) {
                rng.range(0, 9)
            } else {
                rng.i64_extreme()
            };
        }
        let dt = rng.pick(&[-1, 0, 1, 3, 6, 7, 99]);
        let tag = if rng.chance(0.8) {
            rng.range(-2, TAG_LAST as i64 + 2) as c_int
        } else {
            rng.next() as c_int
        };
        let dims_ptr = if rng.chance(0.05) {
            null()
        } else {
            raw_dims.as_ptr()
        };
        let st = dnnl_memory_desc_init_by_tag(&mut out, ndims, dims_ptr, dt, tag);
        fails.check(OK_STATUSES.contains(&st), || {
            format!("{label}: init_by_tag(ndims {ndims}, dt {dt}, tag {tag}) -> {st}")
        });
        if st == dnnl_success {
            let _ = dnnl_memory_desc_get_size(&out);
        }
        let mut strides = [0i64; 12];
        for s in strides.iter_mut() {
            *s = rng.i64_extreme();
        }
        let sp = if rng.chance(0.3) {
            null()
        } else {
            strides.as_ptr()
        };
        let st = dnnl_memory_desc_init_by_strides(&mut out, ndims, dims_ptr, dt, sp);
        fails.check(OK_STATUSES.contains(&st), || {
            format!("{label}: init_by_strides(ndims {ndims}) -> {st}")
        });

        // memory_create: no handle, a library allocation (when the size is harmless or
        // hopeless), or a user buffer of the size the descriptor says.
        let span = span_of(&md);
        let lib_bytes = (size as u128).max(span.unwrap_or(0));
        let handle_kind = rng.below(3);
        let mut user = None;
        let handle = match handle_kind {
            0 => null_mut(),
            1 if lib_bytes <= 64 << 20 || lib_bytes >= 1 << 40 => ALLOCATE,
            _ => match span {
                Some(s) if s <= EXEC_LIMIT as u128 && size as u128 <= EXEC_LIMIT as u128 => {
                    let mut b = GuardedBuf::new((s as usize).max(size), 0xa5);
                    let p = b.ptr() as *mut c_void;
                    user = Some(b);
                    p
                }
                _ => null_mut(),
            },
        };
        let mut mem = null_mut();
        let st = dnnl_memory_create(&mut mem, &md, ctx.engine, handle);
        fails.check(OK_STATUSES.contains(&st), || {
            format!("{label}: memory_create(size {size}, span {span:?}) -> {st}")
        });
        if st == dnnl_success {
            fails.reach(if handle == ALLOCATE {
                "memory allocated"
            } else {
                "memory created"
            });
        }
        if handle == ALLOCATE && lib_bytes >= 1 << 40 {
            fails.check(st != dnnl_success || size == 0, || {
                format!("{label}: memory_create allocated {lib_bytes} bytes")
            });
        }
        if st == dnnl_success {
            let mut h = null_mut();
            let st2 = dnnl_memory_get_data_handle(mem, &mut h);
            fails.check(st2 == dnnl_success, || {
                format!("{label}: get_data_handle -> {st2}")
            });
            if handle == ALLOCATE && !h.is_null() {
                if std::env::var("ROBUST_DEBUG").is_ok() {
                    eprintln!("size {size} span {span:?} lib_bytes {lib_bytes} md ndims {} dims {:?} pdims {:?} strides {:?} nblks {} blks {:?} idxs {:?} off0 {} fk {} dt {}", md.ndims, md.dims, md.padded_dims, blk_ref(&md).strides, blk_ref(&md).inner_nblks, blk_ref(&md).inner_blks, blk_ref(&md).inner_idxs, md.offset0, md.format_kind, md.data_type);
                }
                // The allocation must hold what get_size promises.
                std::ptr::write_bytes(h as *mut u8, 0x5a, size.min(64 << 20));
            }
            let mut pmd = null();
            let st2 = dnnl_memory_get_memory_desc(mem, &mut pmd);
            fails.check(st2 == dnnl_success && !pmd.is_null(), || {
                format!("{label}: get_memory_desc -> {st2}")
            });
            let st2 = dnnl_memory_set_data_handle(mem, null_mut());
            fails.check(st2 == dnnl_success, || {
                format!("{label}: set_data_handle(NULL) -> {st2}")
            });
            let st2 = dnnl_memory_destroy(mem);
            fails.check(st2 == dnnl_success, || {
                format!("{label}: memory_destroy -> {st2}")
            });
            let st2 = dnnl_memory_destroy(mem);
            fails.check(st2 == dnnl_invalid_arguments, || {
                format!("{label}: second memory_destroy -> {st2}")
            });
        }
        if let Some(b) = user {
            fails.check(b.intact(), || {
                format!("{label}: memory_create wrote outside")
            });
        }
    }
}

#[test]
fn md_functions_survive_garbage() {
    install_guard();
    let seed = seed();
    let ctx = Ctx::new();
    let mut fails = Failures::default();
    for i in cases(20000) {
        run_case(&mut fails, "onednn_md", seed, i, |rng, f, label| {
            check_md_functions(rng, f, label, &ctx)
        });
    }
    fails.finish("onednn_md", seed);
}

// ---------------------------------------------------------------------------------------
// Op descs, pds, queries, primitives and execution

/// Forward-input and forward-output descriptors that mostly agree in N and C.
fn tensor_pair(rng: &mut Rng) -> (dnnl_memory_desc_t, dnnl_memory_desc_t) {
    let nd = rng.range(3, 5) as c_int;
    let mut a = [0i64; 12];
    let mut b = [0i64; 12];
    for d in 0..nd as usize {
        a[d] = if rng.chance(0.03) { 0 } else { rng.range(1, 7) };
        b[d] = if d < 2 { a[d] } else { rng.range(1, 9) };
    }
    let fin = valid_md_dims(rng, nd, &a);
    let mut fout = valid_md_dims(rng, nd, &b);
    if rng.chance(0.3) {
        fout.data_type = fin.data_type;
    }
    (fin, fout)
}

fn any_desc(rng: &mut Rng) -> (dnnl_resampling_desc_t, &'static str) {
    let (mut fin, mut fout) = tensor_pair(rng);
    let forward = rng.chance(0.65);
    let alg = if rng.chance(0.9) {
        rng.pick(&[dnnl_resampling_nearest, dnnl_resampling_linear])
    } else {
        rng.pick(&[
            0,
            -1,
            dnnl_eltwise_relu,
            dnnl_resampling_linear + 1,
            c_int::MAX,
        ])
    };
    if rng.chance(0.5) {
        let first = rng.chance(0.5);
        mutate(rng, if first { &mut fin } else { &mut fout });
    }
    let mut factors = [0f32; 12];
    for f in factors.iter_mut() {
        *f = if rng.chance(0.6) {
            rng.pick(&[0.5, 1.0, 1.5, 2.0, 3.0, 0.25])
        } else {
            rng.f32_extreme()
        };
    }
    if rng.chance(0.3) {
        fout.format_kind = dnnl_format_kind_any;
    }
    if rng.chance(0.2) {
        // A C caller fills the op desc by hand, bypassing desc_init's checks.
        let mut rd = zero_rd();
        rd.primitive_kind = if rng.chance(0.9) {
            dnnl_resampling
        } else {
            rng.pick(&[0, 1, 5, 18, 24, 0x7fff, -1])
        };
        rd.prop_kind = rng.pick(&[
            dnnl_forward_training,
            dnnl_forward_inference,
            dnnl_backward_data,
            dnnl_backward,
            0,
            -1,
        ]);
        rd.alg_kind = alg;
        rd.src_desc = fin;
        rd.dst_desc = fout;
        rd.diff_src_desc = fin;
        rd.diff_dst_desc = fout;
        for f in rd.factors.iter_mut() {
            *f = rng.f32_extreme();
        }
        return (rd, "hand-filled");
    }
    let mut rd = zero_rd();
    let use_factors = rng.chance(0.3);
    let fp = if use_factors || rng.chance(0.1) {
        factors.as_ptr()
    } else {
        null()
    };
    let dp: *const dnnl_memory_desc_t = if use_factors { null() } else { &fout };
    let st = unsafe {
        if forward {
            let prop = if rng.chance(0.95) {
                rng.pick(&[dnnl_forward_training, dnnl_forward_inference])
            } else {
                rng.pick(&[0, dnnl_backward_data, -1])
            };
            dnnl_resampling_forward_desc_init(&mut rd, prop, alg, fp, &fin, dp)
        } else {
            dnnl_resampling_backward_desc_init(&mut rd, alg, fp, &fin, dp)
        }
    };
    if !OK_STATUSES.contains(&st) {
        rd.primitive_kind = -12345; // marks a failed init for the caller
        rd.prop_kind = st;
        return (rd, "desc_init failed");
    }
    if st != dnnl_success {
        rd.primitive_kind = -1;
    }
    (rd, if forward { "forward" } else { "backward" })
}

/// A random attribute set (post-ops with garbage enums and values) or NULL.
unsafe fn any_attr(rng: &mut Rng, dst_like: &dnnl_memory_desc_t) -> dnnl_primitive_attr_t {
    if rng.chance(0.5) {
        return null_mut();
    }
    let mut attr = null_mut();
    assert_eq!(dnnl_primitive_attr_create(&mut attr), dnnl_success);
    let mut po = null_mut();
    assert_eq!(dnnl_post_ops_create(&mut po), dnnl_success);
    for _ in 0..rng.range(0, 4) {
        let _ = match rng.below(6) {
            0 => dnnl_post_ops_append_sum(po, rng.f32_extreme()),
            1 => dnnl_post_ops_append_sum_v2(po, rng.f32_extreme(), rng.range(-1, 8) as c_int),
            2 | 3 => dnnl_post_ops_append_eltwise(
                po,
                rng.f32_extreme(),
                if rng.chance(0.7) {
                    rng.pick(&[
                        dnnl_eltwise_relu,
                        dnnl_eltwise_linear,
                        dnnl_eltwise_clip,
                        dnnl_eltwise_pow,
                        dnnl_eltwise_log,
                        dnnl_eltwise_round,
                    ])
                } else {
                    rng.next() as c_int
                },
                rng.f32_extreme(),
                rng.f32_extreme(),
            ),
            4 => {
                let mut md = *dst_like;
                if rng.chance(0.5) {
                    let nd = md.ndims.clamp(0, 12) as usize;
                    for d in 0..nd {
                        if rng.chance(0.5) {
                            md.dims[d] = 1;
                        }
                    }
                    let dims = md.dims;
                    md = valid_md_dims(rng, md.ndims.clamp(1, 12), &dims);
                }
                if rng.chance(0.3) {
                    mutate(rng, &mut md);
                }
                let alg = if rng.chance(0.8) {
                    rng.range(dnnl_binary_add as i64, dnnl_binary_ne as i64) as c_int
                } else {
                    rng.next() as c_int
                };
                dnnl_post_ops_append_binary(po, alg, &md)
            }
            _ => dnnl_post_ops_append_prelu(po, rng.range(-2, 16) as c_int),
        };
    }
    let st = dnnl_primitive_attr_set_post_ops(attr, po);
    assert!(OK_STATUSES.contains(&st), "set_post_ops -> {st}");
    dnnl_post_ops_destroy(po);
    if rng.chance(0.1) {
        let sc = [rng.f32_extreme(); 4];
        let _ = dnnl_primitive_attr_set_output_scales(attr, rng.range(-1, 4), 0, sc.as_ptr());
    }
    if rng.chance(0.1) {
        let _ = dnnl_primitive_attr_set_scratchpad_mode(attr, rng.range(-1, 3) as c_int);
    }
    attr
}

fn arg_of_binary(k: c_int) -> c_int {
    (DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE * (k + 1)) | DNNL_ARG_SRC_1
}

unsafe fn check_pd(rng: &mut Rng, fails: &mut Failures, label: &str, ctx: &Ctx) {
    let (rd, how) = any_desc(rng);
    if rd.primitive_kind == -12345 {
        fails.check(false, || format!("{label}: desc_init -> {}", rd.prop_kind));
        return;
    }
    if rd.primitive_kind == -1 {
        fails.reach("desc_init refused");
        return; // desc_init refused it: fine
    }
    let forward = rd.prop_kind != dnnl_backward_data;
    let attr = any_attr(
        rng,
        if forward {
            &rd.dst_desc
        } else {
            &rd.diff_src_desc
        },
    );
    let mut pd = null_mut();
    let st = dnnl_primitive_desc_create(
        &mut pd,
        &rd as *const _ as *const c_void,
        attr,
        ctx.engine,
        null(),
    );
    fails.check(OK_STATUSES.contains(&st), || {
        format!("{label}: primitive_desc_create ({how}) -> {st}")
    });
    // The iterator takes the same path.
    let mut it = null_mut();
    let st_it = dnnl_primitive_desc_iterator_create(
        &mut it,
        &rd as *const _ as *const c_void,
        attr,
        ctx.engine,
        null(),
    );
    fails.check(st_it == st, || {
        format!("{label}: iterator_create -> {st_it}, pd create -> {st}")
    });
    if st_it == dnnl_success {
        let p = dnnl_primitive_desc_iterator_fetch(it);
        fails.check(!p.is_null(), || format!("{label}: iterator_fetch -> NULL"));
        dnnl_primitive_desc_destroy(p);
        let _ = dnnl_primitive_desc_iterator_next(it);
        let p = dnnl_primitive_desc_iterator_fetch(it);
        fails.check(p.is_null(), || format!("{label}: fetch past the end"));
        fails.check(
            dnnl_primitive_desc_iterator_destroy(it) == dnnl_success,
            || format!("{label}: iterator_destroy"),
        );
    }
    if !attr.is_null() {
        dnnl_primitive_attr_destroy(attr);
    }
    if st != dnnl_success {
        fails.reach(match st {
            dnnl_invalid_arguments => "pd invalid",
            dnnl_unimplemented => "pd unimplemented",
            _ => "pd other refusal",
        });
        return;
    }
    fails.reach("pd created");
    check_queries(rng, fails, label, pd);
    let mut clone = null_mut();
    fails.check(
        dnnl_primitive_desc_clone(&mut clone, pd) == dnnl_success,
        || format!("{label}: clone"),
    );
    let mut prim = null_mut();
    let st = dnnl_primitive_create(&mut prim, clone);
    fails.check(st == dnnl_success, || {
        format!("{label}: primitive_create -> {st}")
    });
    dnnl_primitive_desc_destroy(clone);
    dnnl_primitive_desc_destroy(pd);
    if st != dnnl_success {
        return;
    }
    let mut ppd = null();
    fails.check(
        dnnl_primitive_get_primitive_desc(prim, &mut ppd) == dnnl_success,
        || format!("{label}: get_primitive_desc"),
    );
    check_execute(rng, fails, label, ctx, prim, ppd, forward);
    fails.check(dnnl_primitive_destroy(prim) == dnnl_success, || {
        format!("{label}: primitive_destroy")
    });
    // Destroyed handles are refused, not used.
    let st = dnnl_primitive_destroy(prim);
    fails.check(st == dnnl_invalid_arguments, || {
        format!("{label}: double primitive_destroy -> {st}")
    });
    let mut out = [0u64; 4];
    let st = dnnl_primitive_desc_query(ppd, dnnl_query_engine, 0, out.as_mut_ptr().cast());
    fails.check(st == dnnl_invalid_arguments, || {
        format!("{label}: query on the destroyed primitive's pd -> {st}")
    });
}

unsafe fn check_queries(
    rng: &mut Rng,
    fails: &mut Failures,
    label: &str,
    pd: dnnl_primitive_desc_t,
) {
    let mut whats: Vec<c_int> = (0..=300).collect();
    whats.extend([-1, c_int::MIN, c_int::MAX, 0x7fff, 0x8000, 1024]);
    for what in whats {
        let index = if rng.chance(0.7) {
            0
        } else {
            rng.pick(&[1, -1, 2, 12, c_int::MAX, c_int::MIN])
        };
        let mut out = [0u64; 8];
        let st = dnnl_primitive_desc_query(pd, what, index, out.as_mut_ptr().cast());
        fails.check(OK_STATUSES.contains(&st), || {
            format!("{label}: query({what}, {index}) -> {st}")
        });
        let st = dnnl_primitive_desc_query(pd, what, index, null_mut());
        fails.check(st != dnnl_success && OK_STATUSES.contains(&st), || {
            format!("{label}: query({what}, {index}, NULL) -> {st}")
        });
        let md = dnnl_primitive_desc_query_md(pd, what, index);
        if !md.is_null() {
            // Must be a readable descriptor.
            let _ = dnnl_memory_desc_get_size(md);
        }
        let _ = dnnl_primitive_desc_query_s32(pd, what, index);
    }
    let mut a = null();
    fails.check(
        dnnl_primitive_desc_get_attr(pd, &mut a) == dnnl_success,
        || format!("{label}: get_attr"),
    );
    let mut po = null();
    fails.check(
        dnnl_primitive_attr_get_post_ops(a, &mut po) == dnnl_success,
        || format!("{label}: get_post_ops of the pd attr"),
    );
    let n = dnnl_post_ops_len(po);
    for k in -1..=n {
        let _ = dnnl_post_ops_get_kind(po, k);
        let mut alg = 0;
        let mut md = null();
        let st = dnnl_post_ops_get_params_binary(po, k, &mut alg, &mut md);
        fails.check(OK_STATUSES.contains(&st), || {
            format!("{label}: get_params_binary({k}) -> {st}")
        });
        let (mut s, mut al, mut be) = (0f32, 0f32, 0f32);
        let st = dnnl_post_ops_get_params_eltwise(po, k, &mut s, &mut alg, &mut al, &mut be);
        fails.check(OK_STATUSES.contains(&st), || {
            format!("{label}: get_params_eltwise({k}) -> {st}")
        });
    }
    // The pd's own attr and chain are read-only for the caller.
    let st = dnnl_post_ops_append_sum(po as dnnl_post_ops_t, 1.0);
    fails.check(st == dnnl_invalid_arguments, || {
        format!("{label}: append to a pd-owned chain -> {st}")
    });
    let st = dnnl_primitive_attr_destroy(a as dnnl_primitive_attr_t);
    fails.check(st == dnnl_invalid_arguments, || {
        format!("{label}: destroy of a pd-owned attr -> {st}")
    });
}

struct Tensor {
    buf: GuardedBuf,
    mem: dnnl_memory_t,
}

unsafe fn tensor_for(ctx: &Ctx, md: *const dnnl_memory_desc_t, rng: &mut Rng) -> Option<Tensor> {
    if md.is_null() {
        return None;
    }
    let span = span_of(&*md).filter(|&s| s <= EXEC_LIMIT as u128)?;
    let size = dnnl_memory_desc_get_size(md);
    if size > EXEC_LIMIT {
        return None;
    }
    let mut buf = GuardedBuf::new((span as usize).max(size), 0xc3);
    buf.fill_random(rng);
    let mut mem = null_mut();
    if dnnl_memory_create(&mut mem, md, ctx.engine, buf.ptr().cast()) != dnnl_success {
        return None;
    }
    Some(Tensor { buf, mem })
}

unsafe fn check_execute(
    rng: &mut Rng,
    fails: &mut Failures,
    label: &str,
    ctx: &Ctx,
    prim: dnnl_primitive_t,
    pd: const_dnnl_primitive_desc_t,
    forward: bool,
) {
    let (in_arg, out_arg) = if forward {
        (DNNL_ARG_SRC, DNNL_ARG_DST)
    } else {
        (DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC)
    };
    let (in_q, out_q) = if forward {
        (dnnl_query_src_md, dnnl_query_dst_md)
    } else {
        (dnnl_query_diff_dst_md, dnnl_query_diff_src_md)
    };
    let nbin = dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) - 1;
    let Some(input) = tensor_for(ctx, dnnl_primitive_desc_query_md(pd, in_q, 0), rng) else {
        return;
    };
    let Some(mut output) = tensor_for(ctx, dnnl_primitive_desc_query_md(pd, out_q, 0), rng) else {
        dnnl_memory_destroy(input.mem);
        return;
    };
    let mut bins = Vec::new();
    for k in 0..nbin.max(0) {
        let md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg_of_binary(k));
        match tensor_for(ctx, md, rng) {
            Some(t) => bins.push(t),
            None => break,
        }
    }
    let mut args = vec![
        dnnl_exec_arg_t {
            arg: in_arg,
            memory: input.mem,
        },
        dnnl_exec_arg_t {
            arg: out_arg,
            memory: output.mem,
        },
    ];
    for (k, b) in bins.iter().enumerate() {
        args.push(dnnl_exec_arg_t {
            arg: arg_of_binary(k as c_int),
            memory: b.mem,
        });
    }
    let complete = bins.len() as c_int == nbin.max(0);
    let before = output.buf.data().to_vec();

    // Wrong arguments first: each must be refused without touching dst.
    let mut foreign = [0u8; 512];
    let foreign_mem = foreign.as_mut_ptr() as dnnl_memory_t;
    let wrong: Vec<(String, Vec<dnnl_exec_arg_t>, c_int, dnnl_stream_t)> = vec![
        ("no args".into(), vec![], 0, ctx.stream),
        ("negative nargs".into(), args.clone(), -1, ctx.stream),
        ("no output".into(), args[..1].to_vec(), 1, ctx.stream),
        (
            "NULL stream".into(),
            args.clone(),
            args.len() as c_int,
            null_mut(),
        ),
        (
            "foreign stream".into(),
            args.clone(),
            args.len() as c_int,
            foreign.as_mut_ptr() as dnnl_stream_t,
        ),
        (
            "duplicate input".into(),
            {
                let mut a = args.clone();
                a.push(args[0]);
                a
            },
            args.len() as c_int + 1,
            ctx.stream,
        ),
        (
            "foreign memory".into(),
            {
                let mut a = args.clone();
                a[1].memory = foreign_mem;
                a
            },
            args.len() as c_int,
            ctx.stream,
        ),
        (
            "input as output".into(),
            {
                let mut a = args.clone();
                a[1].arg = in_arg;
                a
            },
            args.len() as c_int,
            ctx.stream,
        ),
    ];
    for (what, a, n, stream) in wrong {
        let p = if a.is_empty() && n != 0 {
            null()
        } else {
            a.as_ptr()
        };
        let st = dnnl_primitive_execute(prim, stream, n, p);
        fails.check(st == dnnl_invalid_arguments, || {
            format!("{label}: execute with {what} -> {st}")
        });
    }
    let st = dnnl_primitive_execute(prim, ctx.stream, 3, null());
    fails.check(st == dnnl_invalid_arguments, || {
        format!("{label}: execute(args NULL, nargs 3) -> {st}")
    });
    let st = dnnl_primitive_execute(
        foreign.as_ptr() as const_dnnl_primitive_t,
        ctx.stream,
        args.len() as c_int,
        args.as_ptr(),
    );
    fails.check(st == dnnl_invalid_arguments, || {
        format!("{label}: execute of a foreign primitive -> {st}")
    });
    fails.check(output.buf.data() == &before[..], || {
        format!("{label}: a refused execute wrote dst")
    });

    // A dst memory smaller than the primitive's dst must be refused, not overrun.
    let mut tiny_md = zero_md();
    let one = [1i64; 12];
    let out_md = &*dnnl_primitive_desc_query_md(pd, out_q, 0);
    if dnnl_memory_desc_init_by_tag(
        &mut tiny_md,
        out_md.ndims,
        one.as_ptr(),
        dnnl_u8,
        match out_md.ndims {
            3 => dnnl_abc,
            4 => dnnl_abcd,
            _ => dnnl_abcde,
        },
    ) == dnnl_success
        && dnnl_memory_desc_get_size(out_md) > 1
        // With an empty input (forward) nothing is read or written: success is fine.
        && (!forward || dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(pd, in_q, 0)) > 0)
    {
        let mut tiny = GuardedBuf::new(1, 0x77);
        let mut tmem = null_mut();
        if dnnl_memory_create(&mut tmem, &tiny_md, ctx.engine, tiny.ptr().cast()) == dnnl_success {
            let mut a = args.clone();
            a[1].memory = tmem;
            let st = dnnl_primitive_execute(prim, ctx.stream, a.len() as c_int, a.as_ptr());
            fails.check(st != dnnl_success && OK_STATUSES.contains(&st), || {
                format!(
                    "{label}: execute with a 1-byte dst -> {st} (dst dims {:?}, dt {}, size {})",
                    &out_md.dims[..out_md.ndims.clamp(0, 12) as usize],
                    out_md.data_type,
                    dnnl_memory_desc_get_size(out_md)
                )
            });
            fails.check(tiny.intact(), || format!("{label}: 1-byte dst overrun"));
            dnnl_memory_destroy(tmem);
        }
    }

    if complete {
        let st = dnnl_primitive_execute(prim, ctx.stream, args.len() as c_int, args.as_ptr());
        fails.check(st == dnnl_success, || format!("{label}: execute -> {st}"));
        fails.reach("executed");
        // In place (src = dst memory) must also be safe when the layouts agree.
        if rng.chance(0.2) {
            let mut a = args.clone();
            a[0].memory = output.mem;
            let st = dnnl_primitive_execute(prim, ctx.stream, a.len() as c_int, a.as_ptr());
            fails.check(OK_STATUSES.contains(&st), || {
                format!("{label}: execute in place -> {st}")
            });
        }
    } else {
        let st = dnnl_primitive_execute(prim, ctx.stream, args.len() as c_int, args.as_ptr());
        fails.check(st == dnnl_invalid_arguments, || {
            format!("{label}: execute missing binary inputs -> {st}")
        });
    }
    fails.check(input.buf.intact() && output.buf.intact(), || {
        format!("{label}: execute wrote outside its buffers")
    });
    let _ = output.buf.ptr();
    for b in &bins {
        fails.check(b.buf.intact(), || format!("{label}: binary buffer overrun"));
        dnnl_memory_destroy(b.mem);
    }
    dnnl_memory_destroy(input.mem);
    dnnl_memory_destroy(output.mem);
}

#[test]
fn descs_pds_queries_and_execution_survive_garbage() {
    install_guard();
    let seed = seed();
    let ctx = Ctx::new();
    let mut fails = Failures::default();
    for i in cases(5000) {
        run_case(&mut fails, "onednn_pd", seed, i, |rng, f, label| unsafe {
            check_pd(rng, f, label, &ctx)
        });
    }
    fails.finish("onednn_pd", seed);
}

// ---------------------------------------------------------------------------------------
// Deterministic hostile cases

#[test]
fn huge_allocations_are_out_of_memory() {
    install_guard();
    let ctx = Ctx::new();
    let mut fails = Failures::default();
    begin_case("onednn huge allocations");
    for dims in [
        [1i64 << 20, 1 << 20, 1 << 10, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        [1 << 40, 1 << 10, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        [i64::MAX / 4, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        [1 << 31, 1 << 31, 1 << 31, 1 << 31, 0, 0, 0, 0, 0, 0, 0, 0],
    ] {
        for tag in [dnnl_abcd, dnnl_acdb, dnnl_aBcd16b] {
            let mut md = zero_md();
            let st =
                unsafe { dnnl_memory_desc_init_by_tag(&mut md, 4, dims.as_ptr(), dnnl_f32, tag) };
            if st != dnnl_success {
                continue;
            }
            let mut mem = null_mut();
            let st = unsafe { dnnl_memory_create(&mut mem, &md, ctx.engine, ALLOCATE) };
            fails.check(
                st == dnnl_out_of_memory || st == dnnl_invalid_arguments,
                || {
                    format!(
                        "memory_create(ALLOCATE, dims {:?}, tag {tag}) -> {st}",
                        &dims[..4]
                    )
                },
            );
            if st == dnnl_success {
                unsafe { dnnl_memory_destroy(mem) };
            }
        }
    }
    // A pd whose tap tables cannot exist: refused, not aborted.
    let src_dims = [1i64, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0];
    for w in [1i64 << 33, 1 << 40, i64::MAX] {
        let dst_dims = [1i64, 1, 1, w, 0, 0, 0, 0, 0, 0, 0, 0];
        let (mut s, mut d) = (zero_md(), zero_md());
        unsafe {
            assert_eq!(
                dnnl_memory_desc_init_by_tag(&mut s, 4, src_dims.as_ptr(), dnnl_f32, dnnl_abcd),
                0
            );
            assert_eq!(
                dnnl_memory_desc_init_by_tag(&mut d, 4, dst_dims.as_ptr(), dnnl_f32, dnnl_abcd),
                0
            );
            let mut rd = zero_rd();
            let st = dnnl_resampling_forward_desc_init(
                &mut rd,
                dnnl_forward_inference,
                dnnl_resampling_linear,
                null(),
                &s,
                &d,
            );
            fails.check(OK_STATUSES.contains(&st), || {
                format!("desc_init(W={w}) -> {st}")
            });
            if st == dnnl_success {
                let mut pd = null_mut();
                let st = dnnl_primitive_desc_create(
                    &mut pd,
                    &rd as *const _ as *const c_void,
                    null(),
                    ctx.engine,
                    null(),
                );
                fails.check(st != dnnl_success && OK_STATUSES.contains(&st), || {
                    format!("pd_create(W={w}) -> {st}")
                });
            }
        }
    }
    // Factors that overflow dst sizes.
    let dims = [2i64, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0, 0];
    let mut s = zero_md();
    unsafe {
        assert_eq!(
            dnnl_memory_desc_init_by_tag(&mut s, 4, dims.as_ptr(), dnnl_f32, dnnl_abcd),
            0
        )
    };
    for f in [
        f32::NAN,
        f32::INFINITY,
        -1.0,
        0.0,
        1e30,
        f32::MAX,
        f32::from_bits(1),
    ] {
        let factors = [f, 2.0, f];
        let mut rd = zero_rd();
        let st = unsafe {
            dnnl_resampling_forward_desc_init(
                &mut rd,
                dnnl_forward_training,
                dnnl_resampling_nearest,
                factors.as_ptr(),
                &s,
                null(),
            )
        };
        fails.check(OK_STATUSES.contains(&st), || {
            format!("desc_init(factor {f}) -> {st}")
        });
        if st == dnnl_success {
            let mut pd = null_mut();
            let st = unsafe {
                dnnl_primitive_desc_create(
                    &mut pd,
                    &rd as *const _ as *const c_void,
                    null(),
                    ctx.engine,
                    null(),
                )
            };
            fails.check(OK_STATUSES.contains(&st), || {
                format!("pd_create(factor {f}) -> {st}")
            });
            if st == dnnl_success {
                unsafe { dnnl_primitive_desc_destroy(pd) };
            }
        }
    }
    end_case();
    fails.finish("onednn_huge", 0);
}

#[test]
fn bad_handles_are_refused() {
    install_guard();
    let ctx = Ctx::new();
    let mut fails = Failures::default();
    begin_case("onednn bad handles");
    let mut foreign = [0u64; 512];
    let fp = foreign.as_mut_ptr() as *mut c_void;
    unsafe {
        // A destroyed engine, memory, attr, post-ops, pd.
        let mut e = null_mut();
        assert_eq!(dnnl_engine_create(&mut e, dnnl_cpu, 0), 0);
        assert_eq!(dnnl_engine_destroy(e), 0);
        let mut s = null_mut();
        let st = dnnl_stream_create(&mut s, e, 1);
        fails.check(st == dnnl_invalid_arguments, || {
            format!("stream on destroyed engine -> {st}")
        });
        let st = dnnl_engine_create(&mut e, dnnl_cpu, 1);
        fails.check(st == dnnl_invalid_arguments, || {
            format!("engine index 1 -> {st}")
        });
        let st = dnnl_engine_create(&mut e, 77, 0);
        fails.check(st != dnnl_success, || format!("engine kind 77 -> {st}"));

        let dims = [1i64, 2, 3, 4];
        let mut md = zero_md();
        assert_eq!(
            dnnl_memory_desc_init_by_tag(&mut md, 4, dims.as_ptr(), dnnl_f32, dnnl_abcd),
            0
        );
        let mut m = null_mut();
        let st = dnnl_memory_create(&mut m, &md, fp as dnnl_engine_t, null_mut());
        fails.check(st == dnnl_invalid_arguments, || {
            format!("memory on foreign engine -> {st}")
        });
        let st = dnnl_memory_create(&mut m, &md, ctx.stream as dnnl_engine_t, null_mut());
        fails.check(st == dnnl_invalid_arguments, || {
            format!("memory on a stream as engine -> {st}")
        });
        let st = dnnl_memory_create(null_mut(), &md, ctx.engine, null_mut());
        fails.check(st == dnnl_invalid_arguments, || {
            format!("memory_create(NULL) -> {st}")
        });
        let st = dnnl_memory_create(&mut m, null(), ctx.engine, null_mut());
        fails.check(st == dnnl_invalid_arguments, || {
            format!("memory_create(md NULL) -> {st}")
        });

        let mut h = null_mut();
        for (what, p) in [
            ("foreign", fp as dnnl_memory_t),
            ("engine", ctx.engine as dnnl_memory_t),
            ("misaligned", (fp as *mut u8).add(1) as dnnl_memory_t),
        ] {
            let st = dnnl_memory_get_data_handle(p, &mut h);
            fails.check(st == dnnl_invalid_arguments, || {
                format!("get_data_handle({what}) -> {st}")
            });
            let st = dnnl_memory_set_data_handle(p, null_mut());
            fails.check(st == dnnl_invalid_arguments, || {
                format!("set_data_handle({what}) -> {st}")
            });
            let st = dnnl_memory_destroy(p);
            fails.check(st == dnnl_invalid_arguments, || {
                format!("memory_destroy({what}) -> {st}")
            });
        }
        let mut a = null_mut();
        assert_eq!(dnnl_primitive_attr_create(&mut a), 0);
        assert_eq!(dnnl_primitive_attr_destroy(a), 0);
        let st = dnnl_primitive_attr_destroy(a);
        fails.check(st == dnnl_invalid_arguments, || {
            format!("attr double destroy -> {st}")
        });
        let st = dnnl_primitive_attr_set_scratchpad_mode(a, 0);
        fails.check(st == dnnl_invalid_arguments, || {
            format!("set on destroyed attr -> {st}")
        });
        let mut po = null_mut();
        assert_eq!(dnnl_post_ops_create(&mut po), 0);
        assert_eq!(dnnl_post_ops_destroy(po), 0);
        let st = dnnl_post_ops_append_sum(po, 1.0);
        fails.check(st == dnnl_invalid_arguments, || {
            format!("append to destroyed chain -> {st}")
        });
        let st = dnnl_post_ops_append_sum(fp as dnnl_post_ops_t, 1.0);
        fails.check(st == dnnl_invalid_arguments, || {
            format!("append to foreign chain -> {st}")
        });
        fails.check(dnnl_post_ops_len(fp as _) == 0, || {
            "post_ops_len(foreign)".into()
        });

        // pd functions with foreign and wrong-kind handles.
        let mut pd = null_mut();
        let mut rd = zero_rd();
        rd.primitive_kind = dnnl_resampling;
        for (what, op) in [
            ("NULL op desc", null()),
            ("zero op desc", &rd as *const _ as *const c_void),
        ] {
            let st = dnnl_primitive_desc_create(&mut pd, op, null(), ctx.engine, null());
            fails.check(st == dnnl_invalid_arguments, || {
                format!("pd_create({what}) -> {st}")
            });
        }
        let mut out = [0u64; 4];
        for (what, p) in [
            ("foreign", fp as const_dnnl_primitive_desc_t),
            ("engine", ctx.engine as const_dnnl_primitive_desc_t),
        ] {
            let st = dnnl_primitive_desc_query(p, dnnl_query_engine, 0, out.as_mut_ptr().cast());
            fails.check(st == dnnl_invalid_arguments, || {
                format!("query({what}) -> {st}")
            });
            fails.check(
                dnnl_primitive_desc_query_md(p, dnnl_query_src_md, 0).is_null(),
                || format!("query_md({what})"),
            );
            let st = dnnl_primitive_desc_destroy(p as dnnl_primitive_desc_t);
            fails.check(st == dnnl_invalid_arguments, || {
                format!("pd_destroy({what}) -> {st}")
            });
            let mut prim = null_mut();
            let st = dnnl_primitive_create(&mut prim, p);
            fails.check(st == dnnl_invalid_arguments, || {
                format!("primitive_create({what}) -> {st}")
            });
        }
        let st = dnnl_primitive_destroy(fp as dnnl_primitive_t);
        fails.check(st == dnnl_invalid_arguments, || {
            format!("primitive_destroy(foreign) -> {st}")
        });
        let st = dnnl_stream_destroy(fp as dnnl_stream_t);
        fails.check(st == dnnl_invalid_arguments, || {
            format!("stream_destroy(foreign) -> {st}")
        });
        let st = dnnl_engine_destroy(fp as dnnl_engine_t);
        fails.check(st == dnnl_invalid_arguments, || {
            format!("engine_destroy(foreign) -> {st}")
        });
        // NULL is accepted by every destroy.
        for st in [
            dnnl_memory_destroy(null_mut()),
            dnnl_primitive_desc_destroy(null_mut()),
            dnnl_primitive_destroy(null_mut()),
            dnnl_primitive_attr_destroy(null_mut()),
            dnnl_post_ops_destroy(null_mut()),
            dnnl_primitive_desc_iterator_destroy(null_mut()),
        ] {
            fails.check(st == dnnl_success, || format!("destroy(NULL) -> {st}"));
        }
    }
    end_case();
    fails.finish("onednn_handles", 0);
}

/// Regression: `dnnl_memory_create` accepted descriptors with runtime dims or strides and,
/// for `DNNL_MEMORY_ALLOCATE`, handed out a 1-byte buffer while `get_size` reported
/// `DNNL_RUNTIME_SIZE_VAL`. libdnnl 2.6.3 answers invalid_arguments (checked against it).
#[test]
fn memory_create_refuses_runtime_dims_and_strides() {
    install_guard();
    let ctx = Ctx::new();
    let dims = [2i64, 3, 4, 5];
    let rt_dims = [2i64, i64::MIN, 4, 5];
    let rt_strides = [60i64, 20, i64::MIN, 1];
    unsafe {
        let mut a = zero_md();
        assert_eq!(
            dnnl_memory_desc_init_by_strides(
                &mut a,
                4,
                dims.as_ptr(),
                dnnl_f32,
                rt_strides.as_ptr()
            ),
            dnnl_success
        );
        let mut b = zero_md();
        assert_eq!(
            dnnl_memory_desc_init_by_strides(&mut b, 4, rt_dims.as_ptr(), dnnl_f32, null()),
            dnnl_success
        );
        for md in [a, b] {
            for handle in [null_mut(), ALLOCATE] {
                let mut m = null_mut();
                let st = dnnl_memory_create(&mut m, &md, ctx.engine, handle);
                assert_eq!(st, dnnl_invalid_arguments);
            }
        }
    }
}

/// Regression: `DNNL_MEMORY_ALLOCATE` on a descriptor with a negative padded dim and a huge
/// stride allocated 1 byte (its wrapped `get_size` equals `DNNL_RUNTIME_SIZE_VAL`, which
/// was read as "no size"); a descriptor without a computable byte range is now refused.
#[test]
fn memory_allocate_refuses_malformed_descriptors() {
    install_guard();
    let ctx = Ctx::new();
    let dims = [4i64, 7, 7, 2, 6];
    unsafe {
        let mut md = zero_md();
        assert_eq!(
            dnnl_memory_desc_init_by_tag(&mut md, 5, dims.as_ptr(), dnnl_u8, dnnl_abcde),
            dnnl_success
        );
        md.padded_dims[1] = -2;
        blk(&mut md).strides[1] = 1 << 62;
        let mut m = null_mut();
        let st = dnnl_memory_create(&mut m, &md, ctx.engine, ALLOCATE);
        assert_eq!(st, dnnl_invalid_arguments);
        // Without a library allocation the object may exist; it just has nothing to offer.
        let st = dnnl_memory_create(&mut m, &md, ctx.engine, null_mut());
        assert!(OK_STATUSES.contains(&st));
        if st == dnnl_success {
            assert_eq!(
                dnnl_memory_set_data_handle(m, ALLOCATE),
                dnnl_invalid_arguments
            );
            dnnl_memory_destroy(m);
        }
    }
}

/// Regression: a memory whose descriptor addresses more than `isize::MAX` bytes (u8, dims
/// 1x4x2x4, last stride 2^62: `get_size` wraps to 32) made `dnnl_primitive_execute` build a
/// slice longer than `isize::MAX` over the caller's 32-byte buffer (undefined behaviour;
/// debug builds abort on the precondition check). Such descriptors are now refused by pd
/// creation and give memories of no usable size, so execute answers an error.
#[test]
fn spans_beyond_isize_max_are_refused() {
    install_guard();
    let ctx = Ctx::new();
    let dims = [1i64, 4, 2, 4];
    unsafe {
        let mut hostile = zero_md();
        let strides = [32i64, 8, 4, 1 << 62];
        assert_eq!(
            dnnl_memory_desc_init_by_strides(
                &mut hostile,
                4,
                dims.as_ptr(),
                dnnl_u8,
                strides.as_ptr()
            ),
            dnnl_success
        );
        let mut plain = zero_md();
        assert_eq!(
            dnnl_memory_desc_init_by_tag(&mut plain, 4, dims.as_ptr(), dnnl_u8, dnnl_abcd),
            dnnl_success
        );
        // A pd over the hostile layout is refused.
        let mut rd = zero_rd();
        assert_eq!(
            dnnl_resampling_forward_desc_init(
                &mut rd,
                dnnl_forward_inference,
                dnnl_resampling_nearest,
                null(),
                &hostile,
                &plain
            ),
            dnnl_success
        );
        let mut pd = null_mut();
        let st = dnnl_primitive_desc_create(
            &mut pd,
            &rd as *const _ as *const c_void,
            null(),
            ctx.engine,
            null(),
        );
        assert!(
            st != dnnl_success && OK_STATUSES.contains(&st),
            "pd create -> {st}"
        );
        // A valid primitive given a memory with the hostile layout refuses to execute.
        assert_eq!(
            dnnl_resampling_forward_desc_init(
                &mut rd,
                dnnl_forward_inference,
                dnnl_resampling_nearest,
                null(),
                &plain,
                &plain
            ),
            dnnl_success
        );
        assert_eq!(
            dnnl_primitive_desc_create(
                &mut pd,
                &rd as *const _ as *const c_void,
                null(),
                ctx.engine,
                null()
            ),
            dnnl_success
        );
        let mut prim = null_mut();
        assert_eq!(dnnl_primitive_create(&mut prim, pd), dnnl_success);
        let mut src = GuardedBuf::new(dnnl_memory_desc_get_size(&hostile), 0x11);
        let mut dst = GuardedBuf::new(32, 0x22);
        let (mut ms, mut md) = (null_mut(), null_mut());
        assert_eq!(
            dnnl_memory_create(&mut ms, &hostile, ctx.engine, src.ptr().cast()),
            dnnl_success
        );
        assert_eq!(
            dnnl_memory_create(&mut md, &plain, ctx.engine, dst.ptr().cast()),
            dnnl_success
        );
        let args = [
            dnnl_exec_arg_t {
                arg: DNNL_ARG_SRC,
                memory: ms,
            },
            dnnl_exec_arg_t {
                arg: DNNL_ARG_DST,
                memory: md,
            },
        ];
        let st = dnnl_primitive_execute(prim, ctx.stream, 2, args.as_ptr());
        assert!(
            st != dnnl_success && OK_STATUSES.contains(&st),
            "execute -> {st}"
        );
        assert!(src.intact() && dst.intact());
        dnnl_memory_destroy(ms);
        dnnl_memory_destroy(md);
        dnnl_primitive_destroy(prim);
        dnnl_primitive_desc_destroy(pd);
    }
}

/// Fuzzer finding (fuzz/ onednn target): an input whose strides overlap (all zero, or
/// [1, 1] over 4x4) has a `dnnl_memory_desc_get_size` smaller than the bytes it addresses;
/// a caller allocating get_size bytes would have been read past. Such inputs are refused.
#[test]
fn inputs_addressing_more_than_get_size_are_refused() {
    install_guard();
    let ctx = Ctx::new();
    for (dims, strides) in [
        ([2i64, 2, 10, 0], [0i64, 0, 0, 0]),
        ([1, 1, 4, 4], [16, 16, 1, 1]),
    ] {
        unsafe {
            let nd = if dims[3] == 0 { 3 } else { 4 };
            let mut src = zero_md();
            assert_eq!(
                dnnl_memory_desc_init_by_strides(
                    &mut src,
                    nd,
                    dims.as_ptr(),
                    dnnl_f32,
                    strides.as_ptr()
                ),
                dnnl_success
            );
            let size = dnnl_memory_desc_get_size(&src);
            let mut out_dims = dims;
            out_dims[nd as usize - 1] *= 2;
            let tag = if nd == 3 { dnnl_abc } else { dnnl_abcd };
            let mut dst = zero_md();
            assert_eq!(
                dnnl_memory_desc_init_by_tag(&mut dst, nd, out_dims.as_ptr(), dnnl_f32, tag),
                dnnl_success
            );
            for forward in [true, false] {
                let mut rd = zero_rd();
                let st = if forward {
                    dnnl_resampling_forward_desc_init(
                        &mut rd,
                        dnnl_forward_inference,
                        dnnl_resampling_nearest,
                        null(),
                        &src,
                        &dst,
                    )
                } else {
                    // diff_dst is the overlapping input here.
                    let mut small = dst;
                    small.dims[nd as usize - 1] /= 4;
                    small.padded_dims[nd as usize - 1] /= 4;
                    dnnl_resampling_backward_desc_init(
                        &mut rd,
                        dnnl_resampling_nearest,
                        null(),
                        &small,
                        &src,
                    )
                };
                assert_eq!(st, dnnl_success);
                let mut pd = null_mut();
                let st = dnnl_primitive_desc_create(
                    &mut pd,
                    &rd as *const _ as *const c_void,
                    null(),
                    ctx.engine,
                    null(),
                );
                assert_eq!(
                    st, dnnl_unimplemented,
                    "forward={forward} dims {dims:?} strides {strides:?} (get_size {size})"
                );
            }
        }
    }
}
