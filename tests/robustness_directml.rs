//! Robustness of the DirectML face against hostile C input: operator descriptions with
//! random types, tensor descriptions with 0..20 dimensions, zero/huge/overflowing sizes and
//! strides, inconsistent TotalTensorSizeInBytes, garbage alignment, flags and data types,
//! NaN/inf/denormal/huge scales and offsets; executions with bindings that are NULL, too
//! small, misaligned or overflowing; `DMLCalcBufferTensorSize` at the extremes (checked
//! against an independent 128-bit computation). Every call must return an HRESULT
//! (`E_FAIL`, which a caught panic becomes, counts as a failure) and successful executions
//! must stay inside their buffers. See `robustness_common` for the guard and reproduction.

mod robustness_common;

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use resample::capi::directml::*;
use robustness_common::*;

const OK_HR: [HRESULT; 5] = [S_OK, E_INVALIDARG, E_OUTOFMEMORY, E_POINTER, E_NOTIMPL];
const MAX_DIMS: usize = 20;

/// Bits of an element; `None` for unknown types.
fn bits(dt: i32) -> Option<u128> {
    Some(match dt {
        1 | 3 | 6 => 32,
        2 | 4 | 7 => 16,
        5 | 8 => 8,
        9..=11 => 64,
        12 | 13 => 4,
        _ => return None,
    })
}

/// Independent `DMLCalcBufferTensorSize` (0 for invalid arguments or a size above 2^64).
fn calc_model(dt: i32, sizes: &[u32], strides: Option<&[u32]>) -> u64 {
    let Some(b) = bits(dt) else { return 0 };
    if sizes.is_empty() || sizes.len() > 8 || sizes.contains(&0) {
        return 0;
    }
    let elems: Option<u128> = match strides {
        None => sizes
            .iter()
            .try_fold(1u128, |a, &s| a.checked_mul(s as u128)),
        Some(st) => sizes.iter().zip(st).try_fold(1u128, |a, (&s, &t)| {
            a.checked_add((s as u128 - 1) * t as u128)
        }),
    };
    // The size in bits must fit in 64 bits (DirectMLX computes it in a UINT64; the library
    // answers 0 where that would wrap, i.e. for tensors of 2^61 bytes and more).
    let Some(elems) = elems.filter(|&e| e.checked_mul(b).is_some_and(|x| x <= u64::MAX as u128))
    else {
        return 0;
    };
    let bytes = (elems * b).div_ceil(8).div_ceil(4) * 4;
    u64::try_from(bytes).unwrap_or(0)
}

/// A tensor description in owned storage (the pointers stay valid while it lives).
struct TensorDesc {
    sizes: [u32; MAX_DIMS],
    strides: [u32; MAX_DIMS],
    buffer: DML_BUFFER_TENSOR_DESC,
    desc: DML_TENSOR_DESC,
}

impl TensorDesc {
    fn new() -> Box<TensorDesc> {
        Box::new(TensorDesc {
            sizes: [0; MAX_DIMS],
            strides: [0; MAX_DIMS],
            buffer: DML_BUFFER_TENSOR_DESC {
                DataType: DML_TENSOR_DATA_TYPE_FLOAT32,
                Flags: 0,
                DimensionCount: 0,
                Sizes: null(),
                Strides: null(),
                TotalTensorSizeInBytes: 0,
                GuaranteedBaseOffsetAlignment: 0,
            },
            desc: DML_TENSOR_DESC {
                Type: DML_TENSOR_TYPE_BUFFER,
                Desc: null(),
            },
        })
    }

    /// Points the internal pointers at the internal arrays.
    fn link(&mut self, strided: bool) {
        self.buffer.Sizes = self.sizes.as_ptr();
        self.buffer.Strides = if strided {
            self.strides.as_ptr()
        } else {
            null()
        };
        self.desc.Desc = &self.buffer as *const _ as *const c_void;
    }

    fn dims(&self) -> usize {
        (self.buffer.DimensionCount as usize).min(MAX_DIMS)
    }

    fn strides(&self) -> Option<&[u32]> {
        (!self.buffer.Strides.is_null()).then(|| &self.strides[..self.dims()])
    }
}

/// A well-formed tensor of `sizes` (packed or with random padded strides), or one with
/// hostile fields.
fn tensor(rng: &mut Rng, sizes: &[u32], dt: i32) -> Box<TensorDesc> {
    let mut t = TensorDesc::new();
    let n = sizes.len();
    t.buffer.DataType = dt;
    t.buffer.DimensionCount = n as u32;
    t.sizes[..n].copy_from_slice(sizes);
    let strided = rng.chance(0.4);
    if strided {
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut s = 1u32;
        for &d in order.iter().rev() {
            t.strides[d] = s;
            s = s
                .saturating_mul(sizes[d])
                .saturating_mul(rng.range(1, 2) as u32);
        }
        if rng.chance(0.1) {
            t.strides[rng.below(n as u64) as usize] = 0; // broadcast (invalid for outputs)
        }
    }
    t.link(strided);
    t.buffer.TotalTensorSizeInBytes = calc_model(dt, sizes, t.strides());
    if rng.chance(0.3) {
        t.buffer.TotalTensorSizeInBytes += rng.range(0, 64) as u64 * 4;
    }
    if rng.chance(0.3) {
        t.buffer.GuaranteedBaseOffsetAlignment = rng.pick(&[0, 4, 8, 16, 32, 256]);
    }
    t
}

/// Changes one to three fields of `t` to extreme values.
fn mutate(rng: &mut Rng, t: &mut TensorDesc) {
    for _ in 0..rng.range(1, 3) {
        let i = rng.below(MAX_DIMS as u64) as usize;
        match rng.below(12) {
            0 => t.buffer.DimensionCount = rng.range(0, MAX_DIMS as i64) as u32,
            1 | 2 => t.sizes[i.min(t.dims().max(1) - 1)] = rng.u32_extreme(),
            3 | 4 => {
                t.link(true);
                t.strides[i.min(t.dims().max(1) - 1)] = rng.u32_extreme();
            }
            5 => {
                t.buffer.TotalTensorSizeInBytes = match rng.below(4) {
                    0 => 0,
                    1 => u64::MAX,
                    2 => t.buffer.TotalTensorSizeInBytes.saturating_sub(4),
                    _ => rng.next(),
                }
            }
            6 => t.buffer.GuaranteedBaseOffsetAlignment = rng.u32_extreme(),
            7 => t.buffer.Flags = rng.pick(&[1, 2, 3, 0x8000_0000, u32::MAX]),
            8 => t.buffer.DataType = rng.range(-2, 16) as i32,
            9 => t.desc.Type = rng.pick(&[0, 2, -1, i32::MAX]),
            10 => {
                if rng.chance(0.5) {
                    t.desc.Desc = null();
                } else {
                    t.buffer.Sizes = null();
                }
            }
            _ => t.link(false),
        }
    }
}

/// Storage for any operator description (the largest is 64 bytes).
#[repr(C, align(8))]
struct OpStorage([u8; 128]);

struct Op {
    _input: Box<TensorDesc>,
    _output: Box<TensorDesc>,
    _floats: Box<[[f32; MAX_DIMS]; 3]>,
    _storage: Box<OpStorage>,
    desc: DML_OPERATOR_DESC,
    /// Input and output TotalTensorSizeInBytes and alignment, when well-formed.
    input_total: u64,
    output_total: u64,
}

fn float_array(rng: &mut Rng, hostile: bool, base: &[f32]) -> [f32; MAX_DIMS] {
    let mut a = [1.0f32; MAX_DIMS];
    for (i, x) in a.iter_mut().enumerate() {
        *x = if hostile && rng.chance(0.3) {
            rng.f32_extreme()
        } else {
            base.get(i).copied().unwrap_or(1.0)
        };
    }
    a
}

fn any_op(rng: &mut Rng) -> Op {
    let kinds = [
        DML_OPERATOR_RESAMPLE,
        DML_OPERATOR_RESAMPLE1,
        DML_OPERATOR_RESAMPLE2,
        DML_OPERATOR_RESAMPLE3,
        DML_OPERATOR_RESAMPLE_GRAD,
        DML_OPERATOR_RESAMPLE_GRAD1,
    ];
    let ty = if rng.chance(0.9) {
        rng.pick(&kinds)
    } else {
        rng.pick(&[0, -1, 1, 50, 200, 1000, i32::MAX, i32::MIN])
    };
    let grad = ty == DML_OPERATOR_RESAMPLE_GRAD || ty == DML_OPERATOR_RESAMPLE_GRAD1;
    let rank = if ty == DML_OPERATOR_RESAMPLE_GRAD {
        4
    } else {
        rng.range(1, 4) as usize
    };
    let dt = if rng.chance(0.9) {
        rng.pick(&[
            DML_TENSOR_DATA_TYPE_FLOAT32,
            DML_TENSOR_DATA_TYPE_FLOAT16,
            DML_TENSOR_DATA_TYPE_UINT8,
            DML_TENSOR_DATA_TYPE_INT8,
        ])
    } else {
        rng.range(0, 14) as i32
    };
    let mut fin = vec![0u32; rank];
    let mut fout = vec![0u32; rank];
    let mut scales = vec![1.0f32; rank];
    for d in 0..rank {
        fin[d] = rng.range(1, 7) as u32;
        if d + 2 >= rank || rng.chance(0.3) {
            fout[d] = rng.range(1, 9) as u32;
            scales[d] = fout[d] as f32 / fin[d] as f32;
            if rng.chance(0.3) {
                scales[d] = rng.pick(&[0.1, 0.3, 0.5, 2.0, 3.5]);
            }
        } else {
            fout[d] = fin[d];
        }
    }
    let (a, b) = if grad { (&fout, &fin) } else { (&fin, &fout) };
    let hostile = rng.chance(0.6);
    let mut input = tensor(rng, a, dt);
    let mut output = tensor(rng, b, dt);
    if hostile {
        match rng.below(3) {
            0 => mutate(rng, &mut input),
            1 => mutate(rng, &mut output),
            _ => {
                mutate(rng, &mut input);
                mutate(rng, &mut output);
            }
        }
    }
    let offs_in: Vec<f32> = (0..rank).map(|_| rng.pick(&[0.5, 0.0, 0.25])).collect();
    let offs_out: Vec<f32> = (0..rank).map(|_| rng.pick(&[-0.5, 0.0, 0.25])).collect();
    let fhostile = hostile && rng.chance(0.5);
    let floats = Box::new([
        float_array(rng, fhostile, &scales),
        float_array(rng, fhostile, &offs_in),
        float_array(rng, fhostile, &offs_out),
    ]);
    let count = if hostile && rng.chance(0.2) {
        rng.range(0, MAX_DIMS as i64) as u32
    } else {
        rank as u32
    };
    let null_arrays = hostile && rng.chance(0.1);
    let sp = if null_arrays && rng.chance(0.5) {
        null()
    } else {
        floats[0].as_ptr()
    };
    let ip = if null_arrays && rng.chance(0.5) {
        null()
    } else {
        floats[1].as_ptr()
    };
    let op_ = if null_arrays && rng.chance(0.5) {
        null()
    } else {
        floats[2].as_ptr()
    };
    let it: *const DML_TENSOR_DESC = if hostile && rng.chance(0.05) {
        null()
    } else {
        &input.desc
    };
    let ot: *const DML_TENSOR_DESC = if hostile && rng.chance(0.05) {
        null()
    } else {
        &output.desc
    };
    let mode = if hostile && rng.chance(0.2) {
        rng.pick(&[-1, 2, 7, i32::MAX])
    } else {
        rng.range(0, 1) as i32
    };
    let dir = if hostile && rng.chance(0.2) {
        rng.pick(&[-1, 2, i32::MIN])
    } else {
        rng.range(0, 1) as i32
    };
    let mut storage = Box::new(OpStorage([0; 128]));
    rng.bytes(&mut storage.0);
    let p = storage.0.as_mut_ptr();
    // SAFETY: the storage is 128 bytes, 8-aligned; every description fits.
    unsafe {
        match ty {
            DML_OPERATOR_RESAMPLE => {
                (p as *mut DML_RESAMPLE_OPERATOR_DESC).write(DML_RESAMPLE_OPERATOR_DESC {
                    InputTensor: it,
                    OutputTensor: ot,
                    InterpolationMode: mode,
                    ScaleCount: count,
                    Scales: sp,
                })
            }
            DML_OPERATOR_RESAMPLE1 => {
                (p as *mut DML_RESAMPLE1_OPERATOR_DESC).write(DML_RESAMPLE1_OPERATOR_DESC {
                    InputTensor: it,
                    OutputTensor: ot,
                    InterpolationMode: mode,
                    DimensionCount: count,
                    Scales: sp,
                    InputPixelOffsets: ip,
                    OutputPixelOffsets: op_,
                })
            }
            DML_OPERATOR_RESAMPLE_GRAD => {
                (p as *mut DML_RESAMPLE_GRAD_OPERATOR_DESC).write(DML_RESAMPLE_GRAD_OPERATOR_DESC {
                    InputGradientTensor: it,
                    OutputGradientTensor: ot,
                    InterpolationMode: mode,
                    DimensionCount: count,
                    Scales: sp,
                    InputPixelOffsets: ip,
                    OutputPixelOffsets: op_,
                })
            }
            DML_OPERATOR_RESAMPLE2 => {
                (p as *mut DML_RESAMPLE2_OPERATOR_DESC).write(DML_RESAMPLE2_OPERATOR_DESC {
                    InputTensor: it,
                    OutputTensor: ot,
                    InterpolationMode: mode,
                    RoundingDirection: dir,
                    DimensionCount: count,
                    Scales: sp,
                    InputPixelOffsets: ip,
                    OutputPixelOffsets: op_,
                })
            }
            DML_OPERATOR_RESAMPLE_GRAD1 => (p as *mut DML_RESAMPLE_GRAD1_OPERATOR_DESC).write(
                DML_RESAMPLE_GRAD1_OPERATOR_DESC {
                    InputGradientTensor: it,
                    OutputGradientTensor: ot,
                    InterpolationMode: mode,
                    RoundingDirection: dir,
                    DimensionCount: count,
                    Scales: sp,
                    InputPixelOffsets: ip,
                    OutputPixelOffsets: op_,
                },
            ),
            DML_OPERATOR_RESAMPLE3 => {
                (p as *mut DML_RESAMPLE3_OPERATOR_DESC).write(DML_RESAMPLE3_OPERATOR_DESC {
                    InputTensor: it,
                    OutputTensor: ot,
                    InterpolationMode: mode,
                    RoundingDirection: dir,
                    DimensionCount: count,
                    Scales: sp,
                    InputPixelOffsets: ip,
                    OutputPixelOffsets: op_,
                    Antialiased: rng.pick(&[0, 1, -1, 2]),
                })
            }
            _ => {} // random bytes: the type says it is something else
        }
    }
    let desc = DML_OPERATOR_DESC {
        Type: ty,
        Desc: if hostile && rng.chance(0.03) {
            null()
        } else {
            p as *const c_void
        },
    };
    let (input_total, output_total) = (
        input.buffer.TotalTensorSizeInBytes,
        output.buffer.TotalTensorSizeInBytes,
    );
    Op {
        _input: input,
        _output: output,
        _floats: floats,
        _storage: storage,
        desc,
        input_total,
        output_total,
    }
}

unsafe fn check_op(rng: &mut Rng, fails: &mut Failures, label: &str) {
    let op = any_op(rng);
    // A non-NULL sentinel: a refused create must reset it to NULL.
    let mut h: *mut DMLOperator = std::ptr::NonNull::dangling().as_ptr();
    let hr = DMLCreateOperator(&op.desc, &mut h);
    fails.check(OK_HR.contains(&hr), || {
        format!("{label}: DMLCreateOperator -> {hr:#x}")
    });
    if hr != S_OK {
        fails.check(h.is_null(), || {
            format!("{label}: refused create left *op set")
        });
        fails.reach(match hr {
            E_INVALIDARG => "create E_INVALIDARG",
            E_NOTIMPL => "create E_NOTIMPL",
            E_OUTOFMEMORY => "create E_OUTOFMEMORY",
            _ => "create other",
        });
        return;
    }
    fails.reach("created");
    fails.check(!h.is_null(), || {
        format!("{label}: S_OK with a NULL operator")
    });
    let (it, ot) = (op.input_total, op.output_total);
    if it <= EXEC_LIMIT as u64 && ot <= EXEC_LIMIT as u64 {
        let mut src = GuardedBuf::new(it as usize, 0x3c);
        src.fill_random(rng);
        let mut dst = GuardedBuf::new(ot as usize, 0x3c);
        let bind = |b: &mut GuardedBuf, off: u64, size: u64| DML_BUFFER_BINDING {
            Buffer: b.ptr().cast(),
            Offset: off,
            SizeInBytes: size,
        };
        let good_in = bind(&mut src, 0, it);
        let good_out = bind(&mut dst, 0, ot);
        let before = dst.data().to_vec();
        let mut bad: Vec<(
            &str,
            u32,
            *const DML_BUFFER_BINDING,
            u32,
            *const DML_BUFFER_BINDING,
        )> = Vec::new();
        let small_in = DML_BUFFER_BINDING {
            SizeInBytes: it.saturating_sub(1),
            ..good_in
        };
        let small_out = DML_BUFFER_BINDING {
            SizeInBytes: ot.saturating_sub(1),
            ..good_out
        };
        let null_buf = DML_BUFFER_BINDING {
            Buffer: null_mut(),
            ..good_out
        };
        let misaligned = DML_BUFFER_BINDING {
            Offset: rng.pick(&[1, 2, 4, 8]),
            ..good_out
        };
        let huge_off = DML_BUFFER_BINDING {
            // Offsets that wrap the address space. (A merely large offset, say 2^63, is a
            // wild pointer the caller vouches for: no host API can tell.)
            Offset: rng.pick(&[u64::MAX - 15, (usize::MAX - 15) as u64, u64::MAX - 31]),
            ..good_out
        };
        bad.push(("NULL inputs", 1, null(), 1, &good_out));
        bad.push(("NULL outputs", 1, &good_in, 1, null()));
        bad.push(("0 inputs", 0, &good_in, 1, &good_out));
        bad.push(("2 outputs", 1, &good_in, 2, &good_out));
        bad.push(("huge counts", u32::MAX, &good_in, u32::MAX, &good_out));
        if it > 0 {
            bad.push(("small input", 1, &small_in, 1, &good_out));
        }
        if ot > 0 {
            bad.push(("small output", 1, &good_in, 1, &small_out));
        }
        bad.push(("NULL Buffer", 1, &good_in, 1, &null_buf));
        bad.push(("misaligned offset", 1, &good_in, 1, &misaligned));
        bad.push(("huge offset", 1, &good_in, 1, &huge_off));
        for (what, ni, i, no, o) in bad {
            let hr = DMLExecuteOperator(h, ni, i, no, o);
            fails.check(hr != S_OK && OK_HR.contains(&hr), || {
                format!("{label}: execute with {what} -> {hr:#x}")
            });
        }
        fails.check(dst.data() == &before[..], || {
            format!("{label}: refused execute wrote")
        });
        let hr = DMLExecuteOperator(h, 1, &good_in, 1, &good_out);
        fails.check(hr == S_OK, || format!("{label}: execute -> {hr:#x}"));
        fails.reach("executed");
        // In place: the output range doubles as the input when the sizes allow.
        if it <= ot && rng.chance(0.3) {
            let inplace = bind(&mut dst, 0, ot);
            let hr = DMLExecuteOperator(h, 1, &inplace, 1, &inplace);
            fails.check(OK_HR.contains(&hr), || {
                format!("{label}: in-place -> {hr:#x}")
            });
        }
        fails.check(src.intact() && dst.intact(), || {
            format!("{label}: execute wrote outside its buffers")
        });
    }
    let hr = DMLExecuteOperator(null_mut(), 0, null(), 0, null());
    fails.check(hr != S_OK && OK_HR.contains(&hr), || {
        format!("{label}: execute(NULL op) -> {hr:#x}")
    });
    DMLReleaseOperator(h);
}

#[test]
fn operators_survive_garbage() {
    install_guard();
    let seed = seed();
    let mut fails = Failures::default();
    for i in cases(6000) {
        run_case(&mut fails, "dml_op", seed, i, |rng, f, label| unsafe {
            check_op(rng, f, label)
        });
    }
    fails.finish("dml_op", seed);
}

#[test]
fn calc_buffer_tensor_size_extremes() {
    install_guard();
    let seed = seed();
    let mut fails = Failures::default();
    for i in cases(20000) {
        run_case(&mut fails, "dml_calc", seed, i, |rng, f, label| unsafe {
            let n = rng.range(0, MAX_DIMS as i64) as usize;
            let mut sizes = [0u32; MAX_DIMS];
            let mut strides = [0u32; MAX_DIMS];
            for d in 0..MAX_DIMS {
                sizes[d] = rng.u32_extreme();
                strides[d] = rng.u32_extreme();
            }
            let dt = rng.range(-1, 15) as i32;
            let strided = rng.chance(0.5);
            let got = DMLCalcBufferTensorSize(
                dt,
                n as u32,
                sizes.as_ptr(),
                if strided { strides.as_ptr() } else { null() },
            );
            let want = calc_model(dt, &sizes[..n], strided.then_some(&strides[..n]));
            f.check(got == want, || {
                format!(
                    "{label}: calc(dt {dt}, {:?}, {:?}) = {got}, model {want}",
                    &sizes[..n],
                    strided.then_some(&strides[..n])
                )
            });
        });
    }
    begin_case("dml_calc NULL sizes");
    let z = unsafe { DMLCalcBufferTensorSize(1, 4, null(), null()) };
    fails.check(z == 0, || format!("calc(NULL sizes) = {z}"));
    end_case();
    fails.finish("dml_calc", seed);
}

#[test]
fn create_refuses_null_result_and_huge_tables() {
    install_guard();
    let mut fails = Failures::default();
    begin_case("dml deterministic");
    unsafe {
        let hr = DMLCreateOperator(null(), null_mut());
        fails.check(hr == E_POINTER, || format!("create(NULL, NULL) -> {hr:#x}"));
        let mut h = null_mut();
        let hr = DMLCreateOperator(null(), &mut h);
        fails.check(hr == E_INVALIDARG, || {
            format!("create(NULL desc) -> {hr:#x}")
        });
        DMLReleaseOperator(null_mut());
        // 1 -> 2^31 outputs along one axis: tables that cannot exist are refused.
        let mut rng = Rng::new(1);
        for (i, o, scale) in [
            (1u32, 1u32 << 31, 2147483648.0f32),
            (1 << 31, 1, 1.0 / 2147483648.0),
            (65536, 65536, f32::from_bits(1)),
        ] {
            let input = tensor(&mut rng, &[1, 1, 1, i], DML_TENSOR_DATA_TYPE_UINT8);
            let output = tensor(&mut rng, &[1, 1, 1, o], DML_TENSOR_DATA_TYPE_UINT8);
            let scales = [1.0, 1.0, 1.0, scale];
            let offs = [0.0f32; 4];
            let d = DML_RESAMPLE3_OPERATOR_DESC {
                InputTensor: &input.desc,
                OutputTensor: &output.desc,
                InterpolationMode: DML_INTERPOLATION_MODE_LINEAR,
                RoundingDirection: 0,
                DimensionCount: 4,
                Scales: scales.as_ptr(),
                InputPixelOffsets: offs.as_ptr(),
                OutputPixelOffsets: offs.as_ptr(),
                Antialiased: 1,
            };
            let od = DML_OPERATOR_DESC {
                Type: DML_OPERATOR_RESAMPLE3,
                Desc: &d as *const _ as *const c_void,
            };
            let hr = DMLCreateOperator(&od, &mut h);
            fails.check(OK_HR.contains(&hr), || {
                format!("create({i} -> {o}, scale {scale}) -> {hr:#x}")
            });
            DMLReleaseOperator(h);
        }
    }
    end_case();
    fails.finish("dml_deterministic", 0);
}
