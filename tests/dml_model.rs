//! DirectML face against an independent plain scalar model written from the formulas of
//! docs/spec/directml.md §5–§6 (not from the core), on random problems: every operator
//! type, both modes, both rounding directions, antialias, 1–4 dimensions with any axis
//! resampled, packed / padded / permuted / broadcast layouts, binding offsets, FLOAT32,
//! FLOAT16, INT8, UINT8. Plus the adjoint property of the GRAD ops and concurrent execution.

#![allow(clippy::too_many_arguments)]

use resample::capi::directml::*;
use std::ffi::c_void;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit() as f32
    }
    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    R0,
    R1,
    R2,
    R3,
    G0,
    G1,
}

impl Op {
    const ALL: [Op; 6] = [Op::R0, Op::R1, Op::R2, Op::R3, Op::G0, Op::G1];
    fn grad(self) -> bool {
        matches!(self, Op::G0 | Op::G1)
    }
    fn half_up(self) -> bool {
        matches!(self, Op::R0 | Op::R1 | Op::G0)
    }
}

/// One random problem, in forward terms (`fwd_in` / `fwd_out` sizes per axis).
#[derive(Clone, Debug)]
struct Case {
    op: Op,
    linear: bool,
    decreasing: bool,
    aa: bool,
    dt: DML_TENSOR_DATA_TYPE,
    fwd_in: Vec<u32>,
    fwd_out: Vec<u32>,
    scales: Vec<f32>,
    io: Vec<f32>,
    oo: Vec<f32>,
    /// Strides of the tensor read / written (None = packed).
    src_strides: Option<Vec<u32>>,
    dst_strides: Option<Vec<u32>>,
    src_extra: u64,
    dst_extra: u64,
    src_align: u32,
    dst_align: u32,
}

impl Case {
    fn src_sizes(&self) -> &[u32] {
        if self.op.grad() {
            &self.fwd_out
        } else {
            &self.fwd_in
        }
    }
    fn dst_sizes(&self) -> &[u32] {
        if self.op.grad() {
            &self.fwd_in
        } else {
            &self.fwd_out
        }
    }
}

fn esize(dt: DML_TENSOR_DATA_TYPE) -> usize {
    match dt {
        DML_TENSOR_DATA_TYPE_FLOAT32 => 4,
        DML_TENSOR_DATA_TYPE_FLOAT16 => 2,
        _ => 1,
    }
}

fn packed(sizes: &[u32]) -> Vec<u32> {
    let mut st = vec![0; sizes.len()];
    let mut acc = 1;
    for d in (0..sizes.len()).rev() {
        st[d] = acc;
        acc *= sizes[d];
    }
    st
}

fn random_strides(rng: &mut Rng, sizes: &[u32], allow_broadcast: bool) -> Option<Vec<u32>> {
    let n = sizes.len();
    match rng.below(if allow_broadcast { 5 } else { 4 }) {
        0 | 1 => None,
        2 => {
            // Padded: every stride grows by a random pitch.
            let mut st = vec![0; n];
            let mut acc = 1;
            for d in (0..n).rev() {
                st[d] = acc;
                acc = acc * sizes[d] + rng.below(3) as u32;
            }
            Some(st)
        }
        3 => {
            // Permuted storage order.
            let mut order: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let mut st = vec![0; n];
            let mut acc = 1;
            for &d in order.iter().rev() {
                st[d] = acc;
                acc *= sizes[d];
            }
            Some(st)
        }
        _ => {
            let mut st = packed(sizes);
            for s in st.iter_mut() {
                if rng.chance(0.5) {
                    *s = 0;
                }
            }
            Some(st)
        }
    }
}

fn random_case(rng: &mut Rng, op: Op) -> Case {
    let rank = if op == Op::G0 {
        4
    } else {
        rng.range(1, 4) as usize
    };
    let dt = if op.grad() {
        [DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16][rng.below(2) as usize]
    } else {
        [
            DML_TENSOR_DATA_TYPE_FLOAT32,
            DML_TENSOR_DATA_TYPE_FLOAT32,
            DML_TENSOR_DATA_TYPE_FLOAT16,
            DML_TENSOR_DATA_TYPE_INT8,
            DML_TENSOR_DATA_TYPE_UINT8,
        ][rng.below(5) as usize]
    };
    let aa = op == Op::R3 && rng.chance(0.6);
    let (mut fwd_in, mut fwd_out, mut scales, mut io, mut oo) =
        (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..rank {
        let kind = rng.below(10);
        let (i, o, s) = if kind == 0 {
            let n = rng.range(1, 5) as u32;
            (n, n, 1.0f32) // likely an identity axis
        } else if aa && kind < 5 {
            // Strong downsampling for the tent filter.
            let i = rng.range(4, 14) as u32;
            let s = rng.f32_in(0.1, 0.49);
            (i, ((i as f32 * s).ceil() as u32).max(1), s)
        } else {
            let i = rng.range(1, 5) as u32;
            let o = rng.range(1, 6) as u32;
            let s = match rng.below(4) {
                0 | 1 => o as f32 / i as f32,
                2 => rng.f32_in(0.2, 3.0),
                // (The model enumerates every tent tap: no tiny scale with antialias.)
                _ => [1.0, 2.0, 0.5, 1.5, f32::MAX, if aa { 0.3 } else { 1e-30 }]
                    [rng.below(6) as usize],
            };
            (i, o, s)
        };
        let (a, b) = match rng.below(5) {
            0..=2 => (0.5, -0.5),
            3 => (0.0, 0.0),
            _ => (rng.f32_in(-1.5, 1.5), rng.f32_in(-1.5, 1.5)),
        };
        fwd_in.push(i);
        fwd_out.push(o);
        scales.push(s);
        io.push(a);
        oo.push(b);
    }
    let mut c = Case {
        op,
        linear: rng.chance(0.6) || aa,
        decreasing: rng.chance(0.5),
        aa,
        dt,
        fwd_in,
        fwd_out,
        scales,
        io,
        oo,
        src_strides: None,
        dst_strides: None,
        src_extra: [0, 0, 4, 12][rng.below(4) as usize],
        dst_extra: [0, 0, 4, 12][rng.below(4) as usize],
        src_align: [0, 0, 16, 64][rng.below(4) as usize],
        dst_align: [0, 0, 32, 16][rng.below(4) as usize],
    };
    if op == Op::R0 {
        c.io = vec![0.5; rank];
        c.oo = vec![-0.5; rank];
    }
    c.src_strides = random_strides(rng, c.src_sizes(), true);
    c.dst_strides = random_strides(rng, c.dst_sizes(), false);
    c
}

/// Per-axis forward taps from the spec formulas: for each forward output, (input, weight).
fn model_axis(c: &Case, d: usize) -> Vec<Vec<(usize, f64)>> {
    let (n_in, n_out) = (c.fwd_in[d] as i64, c.fwd_out[d] as usize);
    let (s, io, oo) = (c.scales[d], c.io[d], c.oo[d]);
    let clamp = |i: i64| i.clamp(0, n_in - 1) as usize;
    (0..n_out)
        .map(|o| {
            // §11: f32, literally ((float)o - OutputPixelOffset) / Scale - InputPixelOffset.
            let mut cf: f32 = (o as f32 - oo) / s - io;
            if !cf.is_finite() {
                // Beyond every input: the edge (§5.2).
                cf = if cf > 0.0 { n_in as f32 } else { -1.0 };
            }
            if !c.linear {
                let r = if c.op.half_up() {
                    (cf + 0.5).floor()
                } else if c.decreasing {
                    cf.floor()
                } else {
                    cf.ceil()
                };
                return vec![(clamp(r as i64), 1.0)];
            }
            if c.aa && 1.0 / s > 2.0 {
                // §5.5, ONNX Resize-18 enumeration.
                let (cc, sd) = (cf as f64, s as f64);
                let start = (-1.0 / sd).floor() as i64 + 1;
                let footprint = 2 - 2 * start;
                let base = cc.floor();
                let ratio = cc - base;
                let mut taps = vec![];
                for k in start..start + footprint {
                    let w = (1.0 - (k as f64 - ratio).abs() * sd).clamp(0.0, 1.0);
                    taps.push((clamp(base as i64 + k), w));
                }
                let sum: f64 = taps.iter().map(|t| t.1).sum();
                return taps.into_iter().map(|(i, w)| (i, w / sum)).collect();
            }
            let f = cf.floor();
            let t = (cf - f) as f64;
            let i0 = f as i64;
            vec![(clamp(i0), 1.0 - t), (clamp(i0.saturating_add(1)), t)]
        })
        .collect()
}

fn offset_of(idx: &[usize], strides: &[u32]) -> usize {
    idx.iter().zip(strides).map(|(&i, &s)| i * s as usize).sum()
}

fn load(buf: &[u8], off: usize, dt: DML_TENSOR_DATA_TYPE) -> f64 {
    match dt {
        DML_TENSOR_DATA_TYPE_FLOAT32 => {
            f32::from_le_bytes(buf[off * 4..off * 4 + 4].try_into().unwrap()) as f64
        }
        DML_TENSOR_DATA_TYPE_FLOAT16 => half::f16::from_bits(u16::from_le_bytes(
            buf[off * 2..off * 2 + 2].try_into().unwrap(),
        ))
        .to_f64(),
        DML_TENSOR_DATA_TYPE_INT8 => buf[off] as i8 as f64,
        _ => buf[off] as f64,
    }
}

fn for_each_index(sizes: &[u32], mut f: impl FnMut(&[usize])) {
    let n = sizes.len();
    let mut idx = vec![0usize; n];
    loop {
        f(&idx);
        let mut d = n;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < sizes[d] as usize {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// The model's f64 result for every dst element (row-major over dst sizes), plus the
/// sum of |terms| per element (for tolerances).
fn model(c: &Case, src: &[u8], src_strides: &[u32]) -> (Vec<f64>, Vec<f64>) {
    let rank = c.fwd_in.len();
    let tabs: Vec<_> = (0..rank).map(|d| model_axis(c, d)).collect();
    let dst_sizes = c.dst_sizes().to_vec();
    let dst_pk = packed(&dst_sizes);
    let total: usize = dst_sizes.iter().map(|&s| s as usize).product();
    let (mut val, mut mag) = (vec![0.0; total], vec![0.0; total]);
    // Walk every forward output and every tap combination: y[o] += w * x[i] (forward)
    // or dx[i] += w * g[o] (GRAD, the transpose).
    for_each_index(&c.fwd_out.clone(), |o| {
        let lists: Vec<&Vec<(usize, f64)>> = (0..rank).map(|d| &tabs[d][o[d]]).collect();
        let lens: Vec<u32> = lists.iter().map(|l| l.len() as u32).collect();
        for_each_index(&lens, |k| {
            let mut w = 1.0;
            let mut i = vec![0usize; rank];
            for d in 0..rank {
                let (ii, ww) = lists[d][k[d]];
                i[d] = ii;
                w *= ww;
            }
            let (read, write) = if c.op.grad() {
                (o, &i[..])
            } else {
                (&i[..], o)
            };
            let v = load(src, offset_of(read, src_strides), c.dt) * w;
            let at = offset_of(write, &dst_pk);
            val[at] += v;
            mag[at] += v.abs();
        });
    });
    (val, mag)
}

/// A DML_TENSOR_DESC with its owned arrays (boxed so pointers stay valid).
struct TensorDesc {
    _sizes: Vec<u32>,
    _strides: Option<Vec<u32>>,
    _buffer: Box<DML_BUFFER_TENSOR_DESC>,
    desc: Box<DML_TENSOR_DESC>,
}

fn tensor_desc(
    dt: DML_TENSOR_DATA_TYPE,
    sizes: &[u32],
    strides: &Option<Vec<u32>>,
    extra: u64,
    align: u32,
) -> TensorDesc {
    let sizes = sizes.to_vec();
    let strides = strides.clone();
    let sp = strides.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
    let total = unsafe { DMLCalcBufferTensorSize(dt, sizes.len() as u32, sizes.as_ptr(), sp) };
    assert!(total > 0);
    let buffer = Box::new(DML_BUFFER_TENSOR_DESC {
        DataType: dt,
        Flags: DML_TENSOR_FLAG_NONE,
        DimensionCount: sizes.len() as u32,
        Sizes: sizes.as_ptr(),
        Strides: sp,
        TotalTensorSizeInBytes: total + extra,
        GuaranteedBaseOffsetAlignment: align.max(if align > 0 { esize(dt) as u32 } else { 0 }),
    });
    let desc = Box::new(DML_TENSOR_DESC {
        Type: DML_TENSOR_TYPE_BUFFER,
        Desc: &*buffer as *const _ as *const c_void,
    });
    TensorDesc {
        _sizes: sizes,
        _strides: strides,
        _buffer: buffer,
        desc,
    }
}

/// Creates the operator of `c`.
fn create(c: &Case) -> Result<*mut DMLOperator, HRESULT> {
    let src = tensor_desc(
        c.dt,
        c.src_sizes(),
        &c.src_strides,
        c.src_extra,
        c.src_align,
    );
    let dst = tensor_desc(
        c.dt,
        c.dst_sizes(),
        &c.dst_strides,
        c.dst_extra,
        c.dst_align,
    );
    let (i, o) = (&*src.desc as *const _, &*dst.desc as *const _);
    let n = c.fwd_in.len() as u32;
    let mode = if c.linear {
        DML_INTERPOLATION_MODE_LINEAR
    } else {
        DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR
    };
    let dir = if c.decreasing {
        DML_AXIS_DIRECTION_DECREASING
    } else {
        DML_AXIS_DIRECTION_INCREASING
    };
    let (s, io, oo) = (c.scales.as_ptr(), c.io.as_ptr(), c.oo.as_ptr());
    let d0 = DML_RESAMPLE_OPERATOR_DESC {
        InputTensor: i,
        OutputTensor: o,
        InterpolationMode: mode,
        ScaleCount: n,
        Scales: s,
    };
    let d1 = DML_RESAMPLE1_OPERATOR_DESC {
        InputTensor: i,
        OutputTensor: o,
        InterpolationMode: mode,
        DimensionCount: n,
        Scales: s,
        InputPixelOffsets: io,
        OutputPixelOffsets: oo,
    };
    let d2 = DML_RESAMPLE2_OPERATOR_DESC {
        InputTensor: i,
        OutputTensor: o,
        InterpolationMode: mode,
        RoundingDirection: dir,
        DimensionCount: n,
        Scales: s,
        InputPixelOffsets: io,
        OutputPixelOffsets: oo,
    };
    let d3 = DML_RESAMPLE3_OPERATOR_DESC {
        InputTensor: i,
        OutputTensor: o,
        InterpolationMode: mode,
        RoundingDirection: dir,
        DimensionCount: n,
        Scales: s,
        InputPixelOffsets: io,
        OutputPixelOffsets: oo,
        Antialiased: c.aa as BOOL,
    };
    let g0 = DML_RESAMPLE_GRAD_OPERATOR_DESC {
        InputGradientTensor: i,
        OutputGradientTensor: o,
        InterpolationMode: mode,
        DimensionCount: n,
        Scales: s,
        InputPixelOffsets: io,
        OutputPixelOffsets: oo,
    };
    let g1 = DML_RESAMPLE_GRAD1_OPERATOR_DESC {
        InputGradientTensor: i,
        OutputGradientTensor: o,
        InterpolationMode: mode,
        RoundingDirection: dir,
        DimensionCount: n,
        Scales: s,
        InputPixelOffsets: io,
        OutputPixelOffsets: oo,
    };
    let (ty, p): (DML_OPERATOR_TYPE, *const c_void) = match c.op {
        Op::R0 => (DML_OPERATOR_RESAMPLE, &d0 as *const _ as _),
        Op::R1 => (DML_OPERATOR_RESAMPLE1, &d1 as *const _ as _),
        Op::R2 => (DML_OPERATOR_RESAMPLE2, &d2 as *const _ as _),
        Op::R3 => (DML_OPERATOR_RESAMPLE3, &d3 as *const _ as _),
        Op::G0 => (DML_OPERATOR_RESAMPLE_GRAD, &g0 as *const _ as _),
        Op::G1 => (DML_OPERATOR_RESAMPLE_GRAD1, &g1 as *const _ as _),
    };
    let od = DML_OPERATOR_DESC { Type: ty, Desc: p };
    let mut op = std::ptr::null_mut();
    let hr = unsafe { DMLCreateOperator(&od, &mut op) };
    // Everything the descriptor pointed to is dropped here, before execution.
    drop((src, dst));
    if hr == S_OK {
        Ok(op)
    } else {
        Err(hr)
    }
}

fn total_bytes(c: &Case, src: bool) -> u64 {
    let (sizes, strides, extra) = if src {
        (c.src_sizes(), &c.src_strides, c.src_extra)
    } else {
        (c.dst_sizes(), &c.dst_strides, c.dst_extra)
    };
    let sp = strides.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
    unsafe { DMLCalcBufferTensorSize(c.dt, sizes.len() as u32, sizes.as_ptr(), sp) + extra }
}

fn random_data(rng: &mut Rng, dt: DML_TENSOR_DATA_TYPE, bytes: usize) -> Vec<u8> {
    let mut v = vec![0u8; bytes];
    match dt {
        DML_TENSOR_DATA_TYPE_FLOAT32 => {
            for ch in v.chunks_exact_mut(4) {
                ch.copy_from_slice(&rng.f32_in(-8.0, 8.0).to_le_bytes());
            }
        }
        DML_TENSOR_DATA_TYPE_FLOAT16 => {
            for ch in v.chunks_exact_mut(2) {
                ch.copy_from_slice(
                    &half::f16::from_f32(rng.f32_in(-8.0, 8.0))
                        .to_bits()
                        .to_le_bytes(),
                );
            }
        }
        _ => v.iter_mut().for_each(|b| *b = rng.next() as u8),
    }
    v
}

/// Executes `op` with the src data at a 16-aligned offset inside a larger buffer and a
/// dst buffer filled with 0xCD; returns the dst tensor bytes (from its start).
fn execute(op: *mut DMLOperator, c: &Case, rng: &mut Rng, src: &[u8]) -> Vec<u8> {
    let align = |a: u32| (a.max(16)) as usize;
    let s_off = align(c.src_align) * rng.below(3) as usize;
    let d_off = align(c.dst_align) * rng.below(3) as usize;
    let mut sbuf = vec![0u8; s_off + src.len()];
    sbuf[s_off..].copy_from_slice(src);
    let dlen = total_bytes(c, false) as usize;
    let mut dbuf = vec![0xCDu8; d_off + dlen + 16];
    let bi = DML_BUFFER_BINDING {
        Buffer: sbuf.as_mut_ptr() as *mut c_void,
        Offset: s_off as u64,
        SizeInBytes: src.len() as u64,
    };
    let bo = DML_BUFFER_BINDING {
        Buffer: dbuf.as_mut_ptr() as *mut c_void,
        Offset: d_off as u64,
        SizeInBytes: dlen as u64,
    };
    let hr = unsafe { DMLExecuteOperator(op, 1, &bi, 1, &bo) };
    assert_eq!(hr, S_OK, "{c:?}");
    assert!(
        dbuf[..d_off].iter().all(|&b| b == 0xCD),
        "wrote before the output: {c:?}"
    );
    assert!(
        dbuf[d_off + dlen..].iter().all(|&b| b == 0xCD),
        "wrote past the output: {c:?}"
    );
    assert_eq!(&sbuf[s_off..], src, "input modified");
    dbuf[d_off..d_off + dlen].to_vec()
}

fn round_sat(v: f64, dt: DML_TENSOR_DATA_TYPE) -> f64 {
    let (lo, hi) = if dt == DML_TENSOR_DATA_TYPE_INT8 {
        (-128.0, 127.0)
    } else {
        (0.0, 255.0)
    };
    v.round_ties_even().clamp(lo, hi)
}

/// Runs one case against the model; panics with the case on mismatch.
fn check_case(c: &Case, rng: &mut Rng) {
    let op = create(c).unwrap_or_else(|hr| panic!("create failed {:#x}: {c:?}", hr as u32));
    let src = random_data(rng, c.dt, total_bytes(c, true) as usize);
    let dst = execute(op, c, rng, &src);
    unsafe { DMLReleaseOperator(op) };
    let src_st = c
        .src_strides
        .clone()
        .unwrap_or_else(|| packed(c.src_sizes()));
    let dst_st = c
        .dst_strides
        .clone()
        .unwrap_or_else(|| packed(c.dst_sizes()));
    let (want, mag) = model(c, &src, &src_st);
    let dst_pk = packed(c.dst_sizes());
    let es = esize(c.dt);
    let mut written = vec![false; dst.len()];
    for_each_index(c.dst_sizes(), |idx| {
        let off = offset_of(idx, &dst_st);
        written[off * es..off * es + es]
            .iter_mut()
            .for_each(|w| *w = true);
        let got = load(&dst, off, c.dt);
        let k = offset_of(idx, &dst_pk);
        let (w, m) = (want[k], mag[k]);
        let exact_copy = !c.linear && !c.op.grad();
        let ok = match c.dt {
            _ if exact_copy => {
                // Nearest copies bits: compare the raw element.
                let taps: Vec<usize> = (0..idx.len())
                    .map(|d| model_axis(c, d)[idx[d]][0].0)
                    .collect();
                let so = offset_of(&taps, &src_st);
                src[so * es..so * es + es] == dst[off * es..off * es + es]
            }
            DML_TENSOR_DATA_TYPE_FLOAT32 => (got - w).abs() <= 1e-5 * m.max(1.0),
            DML_TENSOR_DATA_TYPE_FLOAT16 => (got - w).abs() <= 1e-3 * w.abs() + 1e-5 * m.max(1.0),
            _ => {
                let r = round_sat(w, c.dt);
                let near_tie = ((w - w.floor()) - 0.5).abs() < 1e-4 * m.max(1.0);
                got == r || (near_tie && (got - r).abs() <= 1.0)
            }
        };
        assert!(ok, "element {idx:?}: got {got}, model {w} (mag {m})\n{c:?}");
    });
    // Bytes outside the elements (gaps, padding) are untouched.
    for (b, (&v, &w)) in dst.iter().zip(&written).enumerate() {
        assert!(
            w || v == 0xCD,
            "byte {b} outside the elements was written\n{c:?}"
        );
    }
}

#[test]
fn random_problems_match_the_model() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut counts = [0usize; 6];
    for round in 0..900 {
        let op = Op::ALL[round % 6];
        let c = random_case(&mut rng, op);
        check_case(&c, &mut rng);
        counts[round % 6] += 1;
    }
    assert!(counts.iter().all(|&n| n == 150));
}

/// Σ a·b over two equally shaped f32 tensors.
fn dot(a: &[f32], b: &[f32]) -> (f64, f64) {
    a.iter().zip(b).fold((0.0, 0.0), |(s, m), (&x, &y)| {
        (s + x as f64 * y as f64, m + (x as f64 * y as f64).abs())
    })
}

fn as_f32(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// <g, F x> == <B g, x>: the GRAD ops are the transpose of the forward sampling matrix.
#[test]
fn grad_is_the_adjoint_of_forward() {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for round in 0..300 {
        let (fwd_op, grad_op) = if round % 2 == 0 {
            (Op::R1, Op::G0)
        } else {
            (Op::R2, Op::G1)
        };
        let mut f = random_case(&mut rng, grad_op);
        f.dt = DML_TENSOR_DATA_TYPE_FLOAT32;
        f.src_strides = None;
        f.dst_strides = None;
        (f.src_extra, f.dst_extra) = (0, 0);
        let b = f.clone();
        f.op = fwd_op;
        let x = random_data(&mut rng, f.dt, total_bytes(&f, true) as usize);
        let g = random_data(&mut rng, f.dt, total_bytes(&b, true) as usize);
        let fop = create(&f).expect("forward");
        let y = execute(fop, &f, &mut rng, &x);
        let bop = create(&b).expect("grad");
        let z = execute(bop, &b, &mut rng, &g);
        unsafe {
            DMLReleaseOperator(fop);
            DMLReleaseOperator(bop);
        }
        let (lhs, m1) = dot(&as_f32(&g), &as_f32(&y));
        let (rhs, m2) = dot(&as_f32(&z), &as_f32(&x));
        assert!(
            (lhs - rhs).abs() <= 1e-5 * (m1 + m2).max(1.0),
            "<g,Fx> = {lhs}, <Bg,x> = {rhs}\n{f:?}"
        );
    }
}

/// One operator executed from several threads at once gives the single-thread result.
#[test]
fn concurrent_execution() {
    let mut rng = Rng(77);
    let mut c = random_case(&mut rng, Op::R3);
    c.fwd_in = vec![3, 40, 33];
    c.fwd_out = vec![2, 70, 9];
    c.scales = vec![0.7, 70.0 / 40.0, 0.27];
    c.io = vec![0.5; 3];
    c.oo = vec![-0.5; 3];
    c.src_strides = None;
    c.dst_strides = None;
    c.dt = DML_TENSOR_DATA_TYPE_FLOAT32;
    c.linear = true;
    c.aa = true;
    let op = create(&c).unwrap() as usize;
    let x = random_data(&mut rng, c.dt, total_bytes(&c, true) as usize);
    let want = execute(op as *mut _, &c, &mut rng, &x);
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let (c, x, want) = (&c, &x, &want);
            s.spawn(move || {
                let mut rng = Rng(1000 + t);
                for _ in 0..20 {
                    assert_eq!(&execute(op as *mut _, c, &mut rng, x), want);
                }
            });
        }
    });
    check_case(&c, &mut rng);
    unsafe { DMLReleaseOperator(op as *mut _) };
}
