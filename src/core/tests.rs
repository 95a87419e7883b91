//! Randomised cross-checks: every kernel choice must reproduce the scalar reference bit for
//! bit (same float operation order), over random shapes, rules, layouts, types and post-ops.

use super::*;

/// How many random cases a test written for `n` runs: all of them, or the percentage that
/// `RESAMPLE_TEST_CASES` asks for (CI's aarch64 run under qemu-user, where a case costs
/// ~15x: 25) — the first cases of the same seeded sequence, so a failure reproduces.
pub(crate) fn n_cases(n: usize) -> usize {
    (n * cases_percent()).div_ceil(100)
}

/// True when `RESAMPLE_TEST_CASES` cut the cases: coverage checks ("kernel X ran in more
/// than k of n cases") only hold over the full sequences and are skipped.
pub(crate) fn reduced_run() -> bool {
    cases_percent() < 100
}

fn cases_percent() -> usize {
    static PERCENT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *PERCENT.get_or_init(|| {
        std::env::var("RESAMPLE_TEST_CASES")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .filter(|p| (1..=100).contains(p))
            .unwrap_or(100)
    })
}

/// Small deterministic generator (xorshift64*), so failures reproduce from the seed.
pub(crate) struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    pub fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

fn random_layout(
    rng: &mut Rng,
    dt: DataType,
    dims: &[usize],
    block_axis: Option<usize>,
    block: usize,
) -> Layout {
    let rank = dims.len();
    let mut order: Vec<usize> = (0..rank).collect();
    match rng.below(3) {
        0 => {}
        1 if rank >= 3 => {
            // Channels-last: axis 1 innermost.
            order.remove(1);
            order.push(1);
        }
        _ => {
            for i in (1..rank).rev() {
                order.swap(i, rng.below(i + 1));
            }
        }
    }
    let mut l = Layout::dense_permuted(dt, dims, &order);
    if let Some(c) = block_axis {
        // Blocked on axis c: lanes innermost, block index where c was.
        let padded = dims[c].div_ceil(block) * block;
        let mut s = block;
        let mut strides = vec![0; rank];
        for &d in order.iter().rev() {
            strides[d] = s;
            s *= if d == c { padded / block } else { dims[d] };
        }
        l.strides = strides;
        l.padded[c] = padded;
        l.blocks[c] = block;
        l.inner_strides[c] = 1;
    } else if rng.below(4) == 0 {
        // Gaps between elements and a base offset.
        for s in &mut l.strides {
            *s *= 2;
        }
        l.offset = rng.below(7);
    }
    l
}

/// A forward problem with oneDNN's half-pixel rule on every spatial axis (N and C
/// identity), no post-ops, oneDNN numerics.
fn onednn_forward(alg: Algorithm, src: &Layout, dst: &Layout) -> Problem {
    let mut axes = vec![AxisRule::Identity; 2];
    axes.resize(src.rank(), AxisRule::OnednnHalfPixel);
    Problem {
        alg,
        direction: Direction::Forward,
        axes,
        src: src.clone(),
        dst: dst.clone(),
        post_ops: vec![],
        numerics: Numerics::Onednn,
    }
}

fn fill(rng: &mut Rng, l: &Layout) -> Vec<u8> {
    let n = l.span_bytes().unwrap();
    let mut b = vec![0u8; n];
    let sz = l.dtype.size();
    for i in 0..n / sz {
        let v = match l.dtype {
            DataType::S8 | DataType::U8 | DataType::S32 => rng.f32(-20.0, 300.0),
            _ => rng.f32(-10.0, 10.0),
        };
        // SAFETY: element `i < n / sz` of the `n`-byte buffer has room for one `sz`-byte value.
        unsafe { dtype::store_f32(b.as_mut_ptr().add(i * sz), l.dtype, v, Numerics::Ieee) };
    }
    b
}

/// Fails with the case, kernel, ISA and first differing byte when `fast` is not `slow`.
fn assert_same_bytes(fast: &[u8], slow: &[u8], case: usize, plan: &Plan, isa: super::simd::Isa) {
    if fast != slow {
        let i = fast
            .iter()
            .zip(slow)
            .position(|(a, b)| a != b)
            .unwrap_or(fast.len());
        panic!(
            "case {case} ({}, {isa:?}): first differing byte {i}\n{:?}",
            plan.kernel_name(),
            plan.problem()
        );
    }
}

fn random_problem(rng: &mut Rng) -> (Problem, Vec<Vec<u8>>) {
    let rank = rng.range(1, 5);
    let alg = rng.pick(&[Algorithm::Nearest, Algorithm::Linear]);
    let direction = rng.pick(&[Direction::Forward, Direction::Backward]);
    let flavour = rng.below(5);
    let mut axes = Vec::new();
    let (mut fin, mut fout) = (Vec::new(), Vec::new());
    for d in 0..rank {
        let i = rng.range(1, 12);
        let resample = rank == 1 || rng.below(3) != 0;
        if !resample || (flavour == 0 && d < 2 && rank >= 3) {
            axes.push(AxisRule::Identity);
            fin.push(i);
            fout.push(i);
            continue;
        }
        let o = rng.range(1, 12);
        axes.push(match flavour {
            // The oneDNN flavour mixes the 2.x and 1.2 (libdnnl.so.1) rules.
            0 if rng.below(3) == 0 => AxisRule::Dnnl12,
            0 => AxisRule::OnednnHalfPixel,
            1 => AxisRule::Affine {
                scale: o as f32 / i as f32 * rng.f32(0.7, 1.3),
                input_offset: rng.pick(&[0.5, 0.0, 0.25]),
                output_offset: rng.pick(&[-0.5, 0.0]),
                rounding: rng.pick(&[
                    NearestRounding::HalfUp,
                    NearestRounding::Floor,
                    NearestRounding::Ceil,
                ]),
                antialias: rng.below(2) == 0,
            },
            2 => AxisRule::Floor {
                ratio: i as f32 / o as f32,
                exact: rng.below(2) == 0,
            },
            3 => AxisRule::Onnx {
                coord: rng.pick(&[
                    OnnxCoord::HalfPixel,
                    OnnxCoord::PytorchHalfPixel,
                    OnnxCoord::AlignCorners,
                    OnnxCoord::Asymmetric,
                    OnnxCoord::HalfPixelSymmetric,
                ]),
                nearest: rng.pick(&[
                    OnnxNearest::RoundPreferFloor,
                    OnnxNearest::RoundPreferCeil,
                    OnnxNearest::Floor,
                    OnnxNearest::Ceil,
                ]),
                scale: o as f64 / i as f64 * rng.f32(0.7, 1.3) as f64,
                antialias: rng.below(2) == 0,
            },
            _ => {
                let align_corners = rng.below(2) == 0;
                AxisRule::TorchLinear {
                    scale: axis::torch_linear_scale(i, o, align_corners, None),
                    align_corners,
                }
            }
        });
        fin.push(i);
        fout.push(o);
    }
    let numerics = if flavour == 0 {
        Numerics::Onednn
    } else {
        Numerics::Ieee
    };
    let dts = [
        DataType::F32,
        DataType::Bf16,
        DataType::F16,
        DataType::S8,
        DataType::U8,
        DataType::S32,
    ];
    let sdt = rng.pick(&dts);
    let ddt = if rng.below(2) == 0 {
        sdt
    } else {
        rng.pick(&dts)
    };
    let (sdims, ddims) = match direction {
        Direction::Forward => (fin.clone(), fout.clone()),
        Direction::Backward => (fout.clone(), fin.clone()),
    };
    // Block an identity axis now and then (same blocking in src and dst).
    let ident: Vec<usize> = (0..rank)
        .filter(|&d| axes[d] == AxisRule::Identity)
        .collect();
    let (block_axis, block) = if !ident.is_empty() && rng.below(3) == 0 {
        (Some(rng.pick(&ident)), rng.pick(&[4, 8, 16]))
    } else {
        (None, 1)
    };
    let src = random_layout(rng, sdt, &sdims, block_axis, block);
    let dst = random_layout(rng, ddt, &ddims, block_axis, block);
    let mut post_ops = Vec::new();
    let mut bins = Vec::new();
    if direction == Direction::Forward && rng.below(3) == 0 {
        post_ops.push(PostOp::Sum {
            scale: 0.5,
            zero_point: 0,
        });
        post_ops.push(PostOp::Eltwise {
            alg: EltwiseAlg::Relu,
            alpha: 0.1,
            beta: 0.0,
            scale: 1.0,
        });
        let bdims: Vec<usize> = ddims
            .iter()
            .map(|&n| if rng.below(2) == 0 { 1 } else { n })
            .collect();
        let l = Layout::dense(DataType::F32, &bdims);
        bins.push(fill(rng, &l));
        post_ops.push(PostOp::Binary {
            op: BinaryOp::Mul,
            src1: l,
        });
    }
    (
        Problem {
            alg,
            direction,
            axes,
            src,
            dst,
            post_ops,
            numerics,
        },
        bins,
    )
}

/// Every kernel on every ISA this CPU has (one process; `Plan::with_isa`), bit for bit
/// against the scalar reference.
#[test]
fn kernels_match_reference_bitwise() {
    let mut rng = Rng::new(20261121);
    let mut kinds = std::collections::HashMap::new();
    let isas = crate::core::simd::available_isas();
    for case in 0..n_cases(3000) {
        let (p, bins) = random_problem(&mut rng);
        let src = fill(&mut rng, &p.src);
        let init = fill(&mut rng, &p.dst);
        let bins: Vec<&[u8]> = bins.iter().map(|b| b.as_slice()).collect();
        let mut slow = init.clone();
        for &isa in &isas {
            let plan = match Plan::with_isa(p.clone(), isa) {
                Ok(plan) => plan,
                Err(e) => panic!("case {case}: plan refused: {e}\n{p:?}"),
            };
            if isa == isas[0] {
                plan.execute_reference(&src, &mut slow, &bins).unwrap();
            }
            if Some(&isa) == isas.last() {
                *kinds.entry(plan.kernel_name()).or_insert(0) += 1;
            }
            let mut fast = init.clone();
            plan.execute(&src, &mut fast, &bins).unwrap();
            assert_same_bytes(&fast, &slow, case, &plan, isa);
        }
    }
    for k in [
        "lanes",
        "lanes_rows",
        "rows",
        "bwd_stream",
        "bwd_stream_lanes",
        "generic",
    ] {
        assert!(
            reduced_run() || kinds.get(k).copied().unwrap_or(0) > 50,
            "kernel {k} barely exercised: {kinds:?}"
        );
    }
}

#[test]
fn padding_lanes_are_zeroed() {
    // nChw8c-like: C = 3 padded to 8; garbage in dst padding must become zero.
    let dims = [1, 3, 2, 2];
    let mut l = Layout::dense(DataType::F32, &dims);
    l.padded[1] = 8;
    l.blocks[1] = 8;
    l.inner_strides[1] = 1;
    l.strides = vec![8 * 4, 8 * 4, 8 * 2, 8];
    let mut dl = l.clone();
    dl.dims = vec![1, 3, 4, 4];
    dl.padded = vec![1, 8, 4, 4];
    dl.strides = vec![8 * 16, 8 * 16, 8 * 4, 8];
    let p = onednn_forward(Algorithm::Linear, &l, &dl);
    let plan = Plan::new(p).unwrap();
    assert_eq!(plan.kernel_name(), "lanes_rows");
    let src = vec![0x11u8; l.span_bytes().unwrap()];
    let mut dst = vec![0xFFu8; dl.span_bytes().unwrap()];
    plan.execute(&src, &mut dst, &[]).unwrap();
    let f: Vec<f32> = dst
        .chunks(4)
        .map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    for px in 0..16 {
        assert!(
            f[px * 8 + 3..px * 8 + 8].iter().all(|&v| v == 0.0),
            "pixel {px}: {:?}",
            &f[px * 8..px * 8 + 8]
        );
        assert!(f[px * 8..px * 8 + 3]
            .iter()
            .all(|&v| v == f32::from_ne_bytes([0x11; 4])));
    }
}

#[test]
#[allow(clippy::excessive_precision)] // values as printed by libdnnl with %.9g
fn onednn_linear_numeric_examples() {
    // docs/spec/onednn.md §2.3, src = [0, 1, …], 1D linear; 9-digit values printed by
    // libdnnl 2.6.3 itself (the doc rounds them to 7 digits).
    let run = |i: usize, o: usize| -> Vec<f32> {
        let p = Problem {
            alg: Algorithm::Linear,
            direction: Direction::Forward,
            axes: vec![AxisRule::OnednnHalfPixel],
            src: Layout::dense(DataType::F32, &[i]),
            dst: Layout::dense(DataType::F32, &[o]),
            post_ops: vec![],
            numerics: Numerics::Onednn,
        };
        let src: Vec<u8> = (0..i).flat_map(|v| (v as f32).to_ne_bytes()).collect();
        let mut dst = vec![0u8; o * 4];
        Plan::new(p).unwrap().execute(&src, &mut dst, &[]).unwrap();
        dst.chunks(4)
            .map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
            .collect()
    };
    assert_eq!(run(3, 5), [0.0, 0.399_999_976, 1.0, 1.599_999_9, 2.0]);
    assert_eq!(run(4, 6), [0.0, 0.5, 1.166_666_63, 1.833_333_25, 2.5, 3.0]);
    assert_eq!(run(5, 3), [0.333_333_313, 2.0, 3.666_666_51]);
    assert_eq!(run(3, 2), [0.25, 1.75]);
    assert_eq!(run(4, 1), [1.5]);
}

#[test]
fn onednn_backward_examples() {
    // docs/spec/onednn.md §3, 1D (verified against libdnnl 2.6.3).
    let run = |alg: Algorithm, i: usize, o: usize, dd: &[f32]| -> Vec<f32> {
        let p = Problem {
            alg,
            direction: Direction::Backward,
            axes: vec![AxisRule::OnednnHalfPixel],
            src: Layout::dense(DataType::F32, &[o]),
            dst: Layout::dense(DataType::F32, &[i]),
            post_ops: vec![],
            numerics: Numerics::Onednn,
        };
        let src: Vec<u8> = dd.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let mut dst = vec![0u8; i * 4];
        Plan::new(p).unwrap().execute(&src, &mut dst, &[]).unwrap();
        dst.chunks(4)
            .map(|c| f32::from_ne_bytes(c.try_into().unwrap()))
            .collect()
    };
    assert_eq!(
        run(Algorithm::Nearest, 3, 5, &[1.0, 2.0, 3.0, 4.0, 5.0]),
        [3.0, 3.0, 9.0]
    );
    assert_eq!(
        run(Algorithm::Nearest, 5, 3, &[1.0, 2.0, 3.0]),
        [1.0, 0.0, 2.0, 0.0, 3.0]
    );
    assert_eq!(
        run(Algorithm::Linear, 3, 5, &[1.0, 2.0, 3.0, 4.0, 5.0]),
        [2.2, 5.400_000_6, 7.399_999_6]
    );
    assert_eq!(
        run(Algorithm::Linear, 4, 6, &[1.0; 6]),
        [1.5, 1.500_000_1, 1.499_999_9, 1.5]
    );
    assert_eq!(
        run(Algorithm::Linear, 5, 3, &[1.0, 2.0, 3.0]),
        [0.666_666_7, 0.333_333_3, 2.0, 1.000_000_5, 1.999_999_5]
    );
}

#[test]
fn huge_tables_fail_cleanly() {
    // 4e9 outputs: the tables alone would need hundreds of GB — refused, not aborted.
    let o = 4_000_000_000usize;
    let p = Problem {
        alg: Algorithm::Linear,
        direction: Direction::Forward,
        axes: vec![AxisRule::OnednnHalfPixel],
        src: Layout::dense(DataType::F32, &[3]),
        dst: Layout::dense(DataType::F32, &[o]),
        post_ops: vec![],
        numerics: Numerics::Onednn,
    };
    assert_eq!(Plan::new(p).err(), Some(CoreError::OutOfMemory));
}

#[test]
fn large_problems_match_reference() {
    // Multi-megabyte tensors: many chunks per thread, nchw (rows) and nhwc (lanes).
    let mut rng = Rng::new(7);
    for order in [&[0usize, 1, 2, 3][..], &[0, 2, 3, 1][..]] {
        let src = Layout::dense_permuted(DataType::F32, &[1, 8, 257, 255], order);
        let dst = Layout::dense_permuted(DataType::F32, &[1, 8, 513, 511], order);
        let p = onednn_forward(Algorithm::Linear, &src, &dst);
        let plan = Plan::new(p).unwrap();
        let s = fill(&mut rng, &src);
        let (mut fast, mut slow) = (
            vec![0u8; dst.span_bytes().unwrap()],
            vec![1u8; dst.span_bytes().unwrap()],
        );
        plan.execute(&s, &mut fast, &[]).unwrap();
        plan.execute_reference(&s, &mut slow, &[]).unwrap();
        assert!(fast == slow, "{order:?} ({})", plan.kernel_name());
    }
}

/// A channels-last or blocked (8/16 lanes, C padded) layout of `dims` (axis 1 = C).
pub(super) fn lanes_layout(dt: DataType, dims: &[usize], block: usize) -> Layout {
    let rank = dims.len();
    let mut order: Vec<usize> = (0..rank).filter(|&a| a != 1).collect();
    order.push(1);
    let mut l = Layout::dense_permuted(dt, dims, &order);
    if block > 1 {
        // nC(d)(h)wXc: blocks of C outermost after N, lanes innermost.
        let padded = dims[1].div_ceil(block) * block;
        let mut strides = vec![0; rank];
        let mut s = block;
        for a in (2..rank).rev() {
            strides[a] = s;
            s *= dims[a];
        }
        strides[1] = s;
        strides[0] = s * (padded / block);
        l.strides = strides;
        l.padded[1] = padded;
        l.blocks[1] = block;
        l.inner_strides[1] = 1;
    }
    l
}

#[test]
fn lanes_kernels_match_reference_bitwise() {
    // Forward lanes walks (flat rows, per pixel, raw copies): C = 1..70 (now and then up to
    // 140: pixels of 4-8 vectors), nhwc-like and blocked 8/16 with C not a multiple of the
    // block, 1D-3D, up/downsampling, every type pair now and then, post-ops.
    let mut rng = Rng::new(88);
    let dts = [
        DataType::F32,
        DataType::Bf16,
        DataType::F16,
        DataType::S8,
        DataType::U8,
        DataType::S32,
    ];
    let mut kinds = std::collections::HashMap::new();
    for case in 0..n_cases(1500) {
        let rank = rng.range(3, 5);
        let c = match rng.below(8) {
            0 => rng.range(70, 140),
            _ => rng.range(1, 70),
        };
        let block = rng.pick(&[1, 1, 8, 16]);
        let alg = rng.pick(&[Algorithm::Nearest, Algorithm::Linear]);
        let onednn = rng.below(3) != 0;
        let (mut sd, mut dd, mut axes) = (vec![rng.range(1, 2), c], vec![0, c], vec![]);
        dd[0] = sd[0];
        axes.push(AxisRule::Identity);
        axes.push(AxisRule::Identity);
        for _ in 2..rank {
            let i = rng.range(1, 9);
            let o = match rng.below(4) {
                0 => i,
                1 => 2 * i,
                2 => rng.range(1, 16),
                _ => (i / 2).max(1),
            };
            sd.push(i);
            dd.push(o);
            axes.push(if onednn {
                AxisRule::OnednnHalfPixel
            } else if rng.below(4) == 0 {
                AxisRule::Identity
            } else {
                AxisRule::Floor {
                    ratio: i as f32 / o as f32,
                    exact: rng.below(2) == 0,
                }
            });
            if axes.last() == Some(&AxisRule::Identity) {
                *dd.last_mut().unwrap() = i;
            }
        }
        let sdt = if rng.below(2) == 0 {
            DataType::F32
        } else {
            rng.pick(&dts)
        };
        let ddt = if rng.below(2) == 0 {
            sdt
        } else {
            rng.pick(&dts)
        };
        let src = lanes_layout(sdt, &sd, block);
        let dst = lanes_layout(ddt, &dd, block);
        let mut post_ops = Vec::new();
        let mut bins = Vec::new();
        if rng.below(5) == 0 {
            post_ops.push(PostOp::Sum {
                scale: 0.5,
                zero_point: 0,
            });
            let bdims: Vec<usize> = dd
                .iter()
                .map(|&n| if rng.below(2) == 0 { 1 } else { n })
                .collect();
            let l = Layout::dense(DataType::F32, &bdims);
            bins.push(fill(&mut rng, &l));
            post_ops.push(PostOp::Binary {
                op: BinaryOp::Add,
                src1: l,
            });
        }
        let p = Problem {
            alg,
            direction: Direction::Forward,
            axes,
            src,
            dst,
            post_ops,
            numerics: if onednn {
                Numerics::Onednn
            } else {
                Numerics::Ieee
            },
        };
        let mut src = fill(&mut rng, &p.src);
        if sdt == DataType::F32 && rng.below(3) == 0 {
            // Values every integer store treats specially: NaN, infinities, out of range.
            let specials = [
                f32::NAN,
                f32::INFINITY,
                f32::NEG_INFINITY,
                1e30,
                -1e30,
                255.5,
            ];
            for (k, v) in specials.iter().cycle().take(12).enumerate() {
                let at = (k * 4 + rng.below(src.len() / 4) * 4) % src.len().max(4);
                src[at..at + 4].copy_from_slice(&v.to_ne_bytes());
            }
        }
        let init = fill(&mut rng, &p.dst);
        let bins: Vec<&[u8]> = bins.iter().map(|b| b.as_slice()).collect();
        let mut slow = init.clone();
        Plan::new(p.clone())
            .unwrap()
            .execute_reference(&src, &mut slow, &bins)
            .unwrap();
        for isa in crate::core::simd::available_isas() {
            let plan = Plan::with_isa(p.clone(), isa).unwrap();
            *kinds.entry(plan.kernel_name()).or_insert(0) += 1;
            let mut fast = init.clone();
            plan.execute(&src, &mut fast, &bins).unwrap();
            assert_same_bytes(&fast, &slow, case, &plan, isa);
        }
    }
    assert!(
        reduced_run() || kinds.get("lanes_rows").copied().unwrap_or(0) > 500,
        "{kinds:?}"
    );
}

#[test]
fn int8_pixel_quads_match_reference() {
    // s8/u8 pixels of 1-7 whole vectors narrowed four vectors a store (AVX-512BW): back to
    // back in groups of pixels (C = 16, 32, 48, 96, blocked 16) or within a pixel (64+),
    // 1-D to 3-D downsampling (pixels read directly, the last axis' taps per pixel), from
    // s8, u8 and f32 (clamped: specials included).
    let mut rng = Rng::new(41);
    let mut case = 0;
    for &c in &[16, 32, 48, 64, 80, 96, 112] {
        for &block in &[1, 16] {
            for &(sdt, ddt) in &[
                (DataType::U8, DataType::U8),
                (DataType::S8, DataType::S8),
                (DataType::F32, DataType::U8),
                (DataType::F32, DataType::S8),
            ] {
                let rank = 3 + case % 3;
                case += 1;
                let mut sd = vec![2, c];
                let mut dd = vec![2, c];
                for _ in 2..rank {
                    let i = rng.range(6, 13);
                    sd.push(i);
                    dd.push(rng.range(2, i - 1));
                }
                let p = onednn_forward(
                    Algorithm::Linear,
                    &lanes_layout(sdt, &sd, block),
                    &lanes_layout(ddt, &dd, block),
                );
                let mut src = fill(&mut rng, &p.src);
                if sdt == DataType::F32 {
                    for (k, v) in [f32::NAN, f32::INFINITY, -1e30, 255.5].iter().enumerate() {
                        let at = (k * 4 + rng.below(src.len() / 4) * 4) % src.len();
                        src[at..at + 4].copy_from_slice(&v.to_ne_bytes());
                    }
                }
                let init = fill(&mut rng, &p.dst);
                let mut slow = init.clone();
                Plan::new(p.clone())
                    .unwrap()
                    .execute_reference(&src, &mut slow, &[])
                    .unwrap();
                for isa in crate::core::simd::available_isas() {
                    let plan = Plan::with_isa(p.clone(), isa).unwrap();
                    assert_eq!(plan.kernel_name(), "lanes_rows", "{:?}", plan.problem());
                    let mut fast = init.clone();
                    plan.execute(&src, &mut fast, &[]).unwrap();
                    assert_same_bytes(&fast, &slow, case, &plan, isa);
                }
            }
        }
    }
}

#[test]
fn lanes_groups_and_streamed_outputs_match_reference() {
    // Flat rows split into pixel groups (wide C), and outputs beyond the streaming threshold
    // (non-temporal stores): nhwc and blocked with padding, linear and nearest, type pairs.
    let mut rng = Rng::new(99);
    type Case = (usize, [usize; 4], [usize; 4], Algorithm, DataType, DataType);
    let cases: &[Case] = &[
        (
            1,
            [1, 300, 9, 31],
            [1, 300, 17, 61],
            Algorithm::Linear,
            DataType::F32,
            DataType::F32,
        ),
        (
            1,
            [1, 300, 9, 31],
            [1, 300, 5, 20],
            Algorithm::Linear,
            DataType::Bf16,
            DataType::F32,
        ),
        // Downsampling reads pixels directly (no flat row): streamed f32 lanes, with a
        // channel tail and with whole vectors.
        (
            1,
            [1, 300, 9, 31],
            [1, 300, 5, 20],
            Algorithm::Linear,
            DataType::F32,
            DataType::F32,
        ),
        (
            1,
            [2, 64, 30, 30],
            [2, 64, 20, 21],
            Algorithm::Linear,
            DataType::F32,
            DataType::F32,
        ),
        (
            1,
            [1, 257, 7, 13],
            [1, 257, 14, 26],
            Algorithm::Linear,
            DataType::F32,
            DataType::Bf16,
        ),
        (
            1,
            [1, 300, 9, 31],
            [1, 300, 17, 61],
            Algorithm::Nearest,
            DataType::F32,
            DataType::S8,
        ),
        (
            1,
            [1, 64, 130, 130],
            [1, 64, 260, 260],
            Algorithm::Linear,
            DataType::F32,
            DataType::F32,
        ),
        (
            1,
            [1, 72, 100, 100],
            [1, 72, 250, 250],
            Algorithm::Nearest,
            DataType::F32,
            DataType::F32,
        ),
        (
            16,
            [1, 40, 150, 150],
            [1, 40, 300, 300],
            Algorithm::Linear,
            DataType::F32,
            DataType::F32,
        ),
        (
            8,
            [1, 20, 150, 150],
            [1, 20, 300, 300],
            Algorithm::Nearest,
            DataType::F32,
            DataType::F32,
        ),
        // bf16 and u8 narrowed in registers and streamed: flat rows straight from the
        // registers (whole aligned 16-lane bf16 steps) or through scratch (C=24, u8, dst
        // off a 32-byte boundary), and the row-wise walk's downsampling through scratch.
        (
            1,
            [1, 32, 20, 37],
            [1, 32, 41, 75],
            Algorithm::Linear,
            DataType::Bf16,
            DataType::Bf16,
        ),
        (
            16,
            [1, 32, 9, 40],
            [1, 32, 9, 81],
            Algorithm::Linear,
            DataType::Bf16,
            DataType::Bf16,
        ),
        (
            1,
            [1, 24, 30, 30],
            [1, 24, 61, 61],
            Algorithm::Linear,
            DataType::Bf16,
            DataType::Bf16,
        ),
        (
            1,
            [1, 32, 20, 37],
            [1, 32, 41, 75],
            Algorithm::Linear,
            DataType::U8,
            DataType::U8,
        ),
        (
            1,
            [1, 48, 40, 40],
            [1, 48, 29, 27],
            Algorithm::Linear,
            DataType::Bf16,
            DataType::Bf16,
        ),
        (
            1,
            [1, 48, 40, 40],
            [1, 48, 29, 27],
            Algorithm::Linear,
            DataType::U8,
            DataType::U8,
        ),
        // Raw nearest pixels of whole 32-byte steps, contiguous: streamed when aligned.
        (
            16,
            [1, 32, 9, 40],
            [1, 32, 19, 81],
            Algorithm::Nearest,
            DataType::Bf16,
            DataType::Bf16,
        ),
        (
            1,
            [1, 24, 9, 40],
            [1, 24, 19, 81],
            Algorithm::Nearest,
            DataType::F32,
            DataType::F32,
        ),
    ];
    for &(block, sd, dd, alg, sdt, ddt) in cases {
        let src = lanes_layout(sdt, &sd, block);
        let dst = lanes_layout(ddt, &dd, block);
        let p = onednn_forward(alg, &src, &dst);
        let plan = Plan::new(p).unwrap();
        assert_eq!(plan.kernel_name(), "lanes_rows");
        let s = fill(&mut rng, &src);
        let init = fill(&mut rng, &dst);
        let mut slow = init.clone();
        plan.execute_reference(&s, &mut slow, &[]).unwrap();
        // dst at every 16-byte offset within a cache line: aligned pixels stream directly,
        // others through scratch (simd::stream_copy).
        let n = init.len();
        let mut raw = vec![0u8; n + 128];
        // Streamed (as at one thread) and through the cache (as at two, within the LLC).
        for (force, off) in [
            (true, 0),
            (true, 16),
            (true, 32),
            (true, 48),
            (true, 4),
            (false, 0),
            (false, 4),
        ] {
            streaming::FORCE_STREAM.store(force, std::sync::atomic::Ordering::Relaxed);
            let at = (64 - raw.as_ptr() as usize % 64) % 64 + off;
            let fast = &mut raw[at..at + n];
            fast.copy_from_slice(&init);
            plan.execute(&s, fast, &[]).unwrap();
            streaming::FORCE_STREAM.store(false, std::sync::atomic::Ordering::Relaxed);
            assert!(
                *fast == slow[..],
                "offset {off}, streamed {force}: {block} {sd:?} -> {dd:?} {alg:?} {sdt:?} {ddt:?}"
            );
        }
    }
}

/// Backward problems of the streaming kernel's shapes: ncw/nchw/ncdhw, channels-last and
/// 8/16-blocked, every rule family, 1:1, integer up/down and odd ratios, sizes up to 300,
/// every dtype pair, and -0.0 / infinities / NaN in the data.
#[test]
fn bwd_stream_matches_reference_bitwise() {
    let mut rng = Rng::new(88);
    let dts = [
        DataType::F32,
        DataType::Bf16,
        DataType::F16,
        DataType::S8,
        DataType::U8,
        DataType::S32,
    ];
    let mut kinds = std::collections::HashMap::new();
    for case in 0..n_cases(1000) {
        let spatial = rng.range(1, 3);
        let channels = rng.below(8) != 0;
        let lead = if channels { 2 } else { 0 };
        let rank = lead + spatial;
        // Keep the reference's work bounded: long axes only in small problems.
        let cap = match spatial {
            1 => 300,
            2 => 70,
            _ => 14,
        };
        let alg = rng.pick(&[Algorithm::Nearest, Algorithm::Linear]);
        let flavour = rng.below(4);
        let (mut fin, mut fout, mut axes) = (Vec::new(), Vec::new(), Vec::new());
        if channels {
            let (n, c) = (rng.range(1, 2), rng.pick(&[1, 3, 8, 16, 20, 64]));
            fin.extend([n, c]);
            fout.extend([n, c]);
            axes.extend([AxisRule::Identity, AxisRule::Identity]);
        }
        for _ in 0..spatial {
            let i = rng.range(1, cap);
            let o = match rng.below(5) {
                0 => i,
                1 => i * rng.range(2, 4),
                2 => (i / rng.range(2, 4)).max(1),
                _ => rng.range(1, cap),
            }
            .min(4 * cap);
            let rule = match flavour {
                0 => AxisRule::OnednnHalfPixel,
                1 => AxisRule::OnednnHalfPixelJitBwd,
                2 => AxisRule::Affine {
                    // Off-ratio scales give irregular weights (and weight products).
                    scale: o as f32 / i as f32 * rng.pick(&[1.0, 1.0, 0.93, 1.17]),
                    input_offset: rng.pick(&[0.5, 0.0]),
                    output_offset: rng.pick(&[-0.5, 0.0]),
                    rounding: rng.pick(&[
                        NearestRounding::HalfUp,
                        NearestRounding::Floor,
                        NearestRounding::Ceil,
                    ]),
                    antialias: rng.below(4) == 0,
                },
                _ => AxisRule::Floor {
                    ratio: i as f32 / o as f32,
                    exact: rng.below(2) == 0,
                },
            };
            fin.push(i);
            fout.push(o);
            axes.push(rule);
        }
        let numerics = if flavour < 2 {
            Numerics::Onednn
        } else {
            Numerics::Ieee
        };
        // f32 sources half the time: the fused f32 paths need them.
        let sdt = if rng.below(2) == 0 {
            DataType::F32
        } else {
            rng.pick(&dts)
        };
        let ddt = rng.pick(&dts);
        let style = if channels { rng.below(4) } else { 0 };
        let make = |dt: DataType, dims: &[usize], rng: &mut Rng| -> Layout {
            match style {
                1 => {
                    let mut order: Vec<usize> = (0..rank).filter(|&a| a != 1).collect();
                    order.push(1);
                    Layout::dense_permuted(dt, dims, &order)
                }
                2 => {
                    let block = rng.pick(&[8, 16]);
                    let padded = dims[1].div_ceil(block) * block;
                    let mut l = Layout::dense(dt, dims);
                    let mut st = block;
                    let mut strides = vec![0; rank];
                    for d in (0..rank).rev() {
                        strides[d] = st;
                        st *= if d == 1 { padded / block } else { dims[d] };
                    }
                    l.strides = strides;
                    l.padded[1] = padded;
                    l.blocks[1] = block;
                    l.inner_strides[1] = 1;
                    l
                }
                _ => Layout::dense(dt, dims),
            }
        };
        // Blocked src and dst share the block size (else no streaming kernel applies).
        let mut src = make(sdt, &fout, &mut rng);
        let dst = if style == 2 {
            let mut l = src.clone();
            l.dtype = ddt;
            l.dims = fin.clone();
            let pc = l.padded[1];
            l.padded = fin.clone();
            l.padded[1] = pc;
            let b = l.blocks[1];
            let mut st = b;
            for d in (0..rank).rev() {
                l.strides[d] = st;
                st *= if d == 1 { l.padded[1] / b } else { fin[d] };
            }
            l
        } else {
            make(ddt, &fin, &mut rng)
        };
        if style == 3 {
            src.offset = rng.below(5);
        }
        let p = Problem {
            alg,
            direction: Direction::Backward,
            axes,
            src,
            dst,
            post_ops: vec![],
            numerics,
        };
        let plan = Plan::new(p.clone()).unwrap_or_else(|e| panic!("case {case}: {e}\n{p:?}"));
        *kinds.entry(plan.kernel_name()).or_insert(0) += 1;
        let mut s = fill(&mut rng, &p.src);
        if matches!(sdt, DataType::F32 | DataType::Bf16 | DataType::F16) && rng.below(2) == 0 {
            let sz = sdt.size();
            for _ in 0..rng.range(1, 20) {
                let v = rng.pick(&[
                    -0.0f32,
                    f32::INFINITY,
                    f32::NEG_INFINITY,
                    f32::from_bits(0xFFC0_0000),
                    1e-40,
                ]);
                let i = rng.below(s.len() / sz);
                // SAFETY: `i < s.len() / sz`, so the `sz`-byte element is inside `s`.
                unsafe { dtype::store_f32(s.as_mut_ptr().add(i * sz), sdt, v, Numerics::Ieee) };
            }
        }
        let init = fill(&mut rng, &p.dst);
        let (mut fast, mut slow) = (init.clone(), init.clone());
        if rng.below(4) == 0 {
            // Misaligned buffers: the in-place f32 paths must step aside.
            let (mut s1, mut f1) = (vec![0u8; s.len() + 1], vec![0u8; fast.len() + 1]);
            s1[1..].copy_from_slice(&s);
            f1[1..].copy_from_slice(&fast);
            plan.execute(&s1[1..], &mut f1[1..], &[]).unwrap();
            fast.copy_from_slice(&f1[1..]);
        } else {
            plan.execute(&s, &mut fast, &[]).unwrap();
        }
        plan.execute_reference(&s, &mut slow, &[]).unwrap();
        if fast != slow {
            let i = fast.iter().zip(&slow).position(|(a, b)| a != b).unwrap();
            panic!(
                "case {case} ({}): first differing byte {i}\n{p:?}",
                plan.kernel_name()
            );
        }
    }
    // (Integer-ratio nearest rows now mostly go to `bwd_box`: about 20 of these; on AVX-512
    // ratios from 2 to 4 to `bwd_perm_quad`: about 15.)
    for (k, n) in [
        ("bwd_stream", 60),
        ("bwd_stream_lanes", 100),
        ("bwd_stream_flat", 5),
    ] {
        assert!(
            reduced_run() || kinds.get(k).copied().unwrap_or(0) > n,
            "kernel {k} barely exercised: {kinds:?}"
        );
    }
}

/// A channels-last layout (`N, C, spatial…` logical order, C innermost), sometimes with
/// gaps between rows/planes or a base offset, now and then with a pixel gap (which no longer
/// packs C inside W: other kernels then run, and must match too).
fn image_layout(rng: &mut Rng, dt: DataType, dims: &[usize]) -> Layout {
    let rank = dims.len();
    let mut l = lanes_layout(dt, dims, 1);
    match rng.below(6) {
        0 => {
            // Gaps after each row: every axis outside W gets a larger stride.
            let pad = rng.range(1, 5);
            for a in 0..rank - 1 {
                if a != 1 {
                    l.strides[a] += pad * l.strides[a] / l.strides[rank - 1].max(1);
                }
            }
            l.offset = rng.below(5);
        }
        1 => {
            for s in &mut l.strides {
                *s *= 2;
            }
        }
        2 => l.offset = rng.below(9),
        _ => {}
    }
    l
}

#[test]
fn image_rows_match_reference_bitwise() {
    let mut rng = Rng::new(20261124);
    let dts = [
        DataType::F32,
        DataType::Bf16,
        DataType::F16,
        DataType::S8,
        DataType::U8,
        DataType::S32,
    ];
    let mut kinds = std::collections::HashMap::new();
    for case in 0..n_cases(2500) {
        let spatial = rng.range(1, 3);
        let nc = rng.range(1, 8);
        let alg = rng.pick(&[Algorithm::Nearest, Algorithm::Linear]);
        let flavour = rng.below(3);
        let (mut fin, mut fout) = (vec![rng.range(1, 2), nc], vec![0, nc]);
        fout[0] = fin[0];
        let mut axes = vec![AxisRule::Identity, AxisRule::Identity];
        for _ in 0..spatial {
            let i = rng.range(1, 40);
            // Integer up/down ratios, non-integer ratios, identity sizes.
            let o = match rng.below(4) {
                0 => i * rng.range(1, 4),
                1 => (i / rng.range(1, 3)).max(1),
                _ => rng.range(1, 40),
            };
            if rng.below(5) == 0 && spatial > 1 {
                axes.push(AxisRule::Identity);
                fin.push(i);
                fout.push(i);
                continue;
            }
            axes.push(match flavour {
                0 => AxisRule::OnednnHalfPixel,
                1 => AxisRule::Affine {
                    scale: if rng.below(2) == 0 {
                        o as f32 / i as f32
                    } else {
                        o as f32 / i as f32 * rng.f32(0.7, 1.3)
                    },
                    input_offset: rng.pick(&[0.5, 0.0, 0.25]),
                    output_offset: rng.pick(&[-0.5, 0.0]),
                    rounding: rng.pick(&[
                        NearestRounding::HalfUp,
                        NearestRounding::Floor,
                        NearestRounding::Ceil,
                    ]),
                    antialias: rng.below(4) == 0,
                },
                _ => AxisRule::Floor {
                    ratio: i as f32 / o as f32,
                    exact: rng.below(2) == 0,
                },
            });
            fin.push(i);
            fout.push(o);
        }
        let numerics = if flavour == 0 {
            Numerics::Onednn
        } else {
            Numerics::Ieee
        };
        let sdt = rng.pick(&dts);
        let ddt = if rng.below(2) == 0 {
            sdt
        } else {
            rng.pick(&dts)
        };
        let src = image_layout(&mut rng, sdt, &fin);
        let dst = image_layout(&mut rng, ddt, &fout);
        let mut post_ops = Vec::new();
        let mut bins = Vec::new();
        if rng.below(4) == 0 {
            post_ops.push(PostOp::Sum {
                scale: 0.5,
                zero_point: 0,
            });
            let bdims: Vec<usize> = fout
                .iter()
                .map(|&n| if rng.below(2) == 0 { 1 } else { n })
                .collect();
            let l = Layout::dense(DataType::F32, &bdims);
            bins.push(fill(&mut rng, &l));
            post_ops.push(PostOp::Binary {
                op: BinaryOp::Add,
                src1: l,
            });
        }
        let p = Problem {
            alg,
            direction: Direction::Forward,
            axes,
            src,
            dst,
            post_ops,
            numerics,
        };
        let plan = match Plan::new(p.clone()) {
            Ok(plan) => plan,
            Err(e) => panic!("case {case}: plan refused: {e}\n{p:?}"),
        };
        *kinds.entry(plan.kernel_name()).or_insert(0) += 1;
        let s = fill(&mut rng, &p.src);
        let init = fill(&mut rng, &p.dst);
        let bins: Vec<&[u8]> = bins.iter().map(|b| b.as_slice()).collect();
        let (mut fast, mut slow) = (init.clone(), init);
        plan.execute(&s, &mut fast, &bins).unwrap();
        plan.execute_reference(&s, &mut slow, &bins).unwrap();
        if fast != slow {
            let i = fast.iter().zip(&slow).position(|(a, b)| a != b).unwrap();
            panic!(
                "case {case} ({}): first differing byte {i}\n{p:?}",
                plan.kernel_name()
            );
        }
    }
    assert!(
        reduced_run() || kinds.get("image_rows").copied().unwrap_or(0) > 1000,
        "image_rows barely exercised: {kinds:?}"
    );
}

#[test]
fn large_images_match_reference() {
    // Rows long enough for many vector steps and two threads, 2-D and 3-D, up and down.
    let mut rng = Rng::new(8);
    let cases: [(&[usize], &[usize], DataType, DataType); 6] = [
        // Rows of 4 KiB and more: streamed when the output leaves the cache.
        (
            &[1, 3, 7, 700],
            &[1, 3, 13, 1501],
            DataType::F32,
            DataType::F32,
        ),
        (
            &[1, 4, 5, 600],
            &[1, 4, 9, 1100],
            DataType::U8,
            DataType::U8,
        ),
        // (Not 2x along W: u8 2x rows have their own kernel, `dyadic_rows`.)
        (
            &[1, 3, 61, 257],
            &[1, 3, 122, 515],
            DataType::U8,
            DataType::U8,
        ),
        (
            &[1, 4, 200, 301],
            &[1, 4, 67, 150],
            DataType::F32,
            DataType::Bf16,
        ),
        (
            &[1, 3, 5, 31, 77],
            &[1, 3, 9, 62, 150],
            DataType::F16,
            DataType::F32,
        ),
        (
            &[2, 2, 40, 1001],
            &[2, 2, 41, 1333],
            DataType::S8,
            DataType::U8,
        ),
    ];
    for (fin, fout, sdt, ddt) in cases {
        for alg in [Algorithm::Linear, Algorithm::Nearest] {
            let rank = fin.len();
            let mut order: Vec<usize> = (0..rank).collect();
            order.remove(1);
            order.push(1);
            let src = Layout::dense_permuted(sdt, fin, &order);
            let dst = Layout::dense_permuted(ddt, fout, &order);
            let p = onednn_forward(alg, &src, &dst);
            let plan = Plan::new(p).unwrap();
            assert_eq!(plan.kernel_name(), "image_rows");
            check_streamed(
                &plan,
                &mut rng,
                &src,
                &dst,
                &format!("{fin:?} -> {fout:?} {alg:?}"),
            );
        }
    }
    // Long channels-first rows (the `rows` kernel) too.
    for dt in [DataType::F32, DataType::S8] {
        let (src, dst) = (
            Layout::dense(dt, &[2, 2, 9, 1100]),
            Layout::dense(dt, &[2, 2, 17, 4400]),
        );
        let p = onednn_forward(Algorithm::Linear, &src, &dst);
        let plan = Plan::new(p).unwrap();
        assert_eq!(plan.kernel_name(), "rows");
        check_streamed(&plan, &mut rng, &src, &dst, &format!("nchw {dt:?}"));
    }
}

/// Raw nearest rows streamed (built once per source row, then copied past the cache; short
/// rows through a batch, tiny planes through the plane gather) and not, at aligned and
/// unaligned dst: integer and odd ratios along W, H up (repeated rows) and down, short,
/// 64-byte and long rows (long ones starting lines: byte permutes streamed from registers),
/// the bits of every width and bf16's oneDNN fixup, on every ISA.
#[test]
fn raw_nearest_rows_streamed_match_reference() {
    let mut rng = Rng::new(0x5eed_0a11);
    let cases: &[(&[usize], &[usize])] = &[
        (&[2, 3, 32, 32], &[2, 3, 64, 64]),
        (&[1, 2, 9, 56], &[1, 2, 19, 112]),
        (&[1, 2, 30, 40], &[1, 2, 13, 97]),
        (&[2, 2, 5, 7], &[2, 2, 11, 15]),
        (&[1, 2, 3, 1100], &[1, 2, 7, 3300]),
        (&[1, 1, 4, 5000], &[1, 1, 3, 1777]),
        (&[3, 5, 2, 16], &[3, 5, 2, 32]),
        (&[1, 2, 4, 6, 40], &[1, 2, 8, 12, 80]),
        (&[1, 2, 3, 1536], &[1, 2, 6, 4608]),
        (&[1, 1, 4, 2048], &[1, 1, 6, 3072]),
        (&[2, 1, 2, 1111], &[2, 1, 4, 2222]),
    ];
    for (sd, dd) in cases {
        for dt in [DataType::F32, DataType::U8, DataType::Bf16] {
            let (src, dst) = (Layout::dense(dt, sd), Layout::dense(dt, dd));
            let p = onednn_forward(Algorithm::Nearest, &src, &dst);
            assert!(p.raw_nearest().is_some(), "{sd:?} {dt:?}");
            // Every ISA: streamed rows of single elements are byte permutes on x86.
            for isa in simd::available_isas() {
                let plan = Plan::with_isa(p.clone(), isa).unwrap();
                assert_eq!(plan.kernel_name(), "rows", "{sd:?} -> {dd:?} {dt:?}");
                check_streamed(
                    &plan,
                    &mut rng,
                    &src,
                    &dst,
                    &format!("{sd:?} -> {dd:?} {dt:?} {isa:?}"),
                );
            }
        }
    }
}

/// Raw nearest channels-last image rows (the byte permutes) streamed and not, on every ISA:
/// long rows whose dst rows start lines (each block stored to every row of its src row:
/// H up by 2, 3 and 11, past the rows one pass writes) or do not, H down, odd W ratios,
/// pixels of 2..8 elements of every width, bf16's oneDNN fixup; pixels of 17 and 100
/// elements (streamed as whole lines); rows past half a core's L2 (streamed piece by piece
/// through a batch where no byte permute builds them).
#[test]
fn raw_image_rows_streamed_match_reference() {
    use crate::core::plan::Strategy;
    let mut rng = Rng::new(0x1a6e_5eed);
    // (n, c, ih, iw, oh, ow)
    let long = crate::core::cache::l2_per_core() / 32 + 77;
    let cases: &[[usize; 6]] = &[
        [1, 8, 2, long * 2 / 3, 3, long],
        [1, 3, 1, long * 2, 2, long * 6 + 1],
        [1, 3, 4, 700, 8, 1408],
        [1, 4, 3, 600, 9, 1200],
        [1, 2, 2, 1024, 22, 2048],
        [2, 3, 5, 900, 3, 1999],
        [1, 8, 3, 256, 7, 777],
        [1, 6, 2, 500, 5, 1000],
        // Pixels past 64 bytes, not whole 32-byte steps: streamed as aligned lines.
        [1, 17, 3, 40, 7, 81],
        [2, 100, 2, 30, 5, 61],
    ];
    let mut permuted = 0;
    for &[n, c, ih, iw, oh, ow] in cases {
        for dt in [DataType::F32, DataType::U8, DataType::Bf16] {
            let nhwc = [0, 2, 3, 1];
            let src = Layout::dense_permuted(dt, &[n, c, ih, iw], &nhwc);
            let dst = Layout::dense_permuted(dt, &[n, c, oh, ow], &nhwc);
            let p = onednn_forward(Algorithm::Nearest, &src, &dst);
            for isa in simd::available_isas() {
                let plan = Plan::with_isa(p.clone(), isa).unwrap();
                if let Strategy::Rows(g) = &plan.strategy {
                    permuted += g.bperm.is_some() as usize;
                }
                let what = format!("{c}x{ih}x{iw} -> {oh}x{ow} {dt:?} {isa:?}");
                check_streamed(&plan, &mut rng, &src, &dst, &what);
            }
        }
    }
    // Byte permutes exist on every x86 vector ISA.
    let x86_vector = simd::available_isas()
        .iter()
        .filter(|&&i| cfg!(target_arch = "x86_64") && i != simd::Isa::Base)
        .count();
    assert_eq!(permuted > 0, x86_vector > 0, "{permuted} permuted plans");
}

/// The plan's output through the cache and streamed (the streaming rule forced), dst
/// aligned and not, against the reference.
pub(super) fn check_streamed(plan: &Plan, rng: &mut Rng, src: &Layout, dst: &Layout, what: &str) {
    let s = fill(rng, src);
    let n = dst.span_bytes().unwrap();
    let mut slow = vec![1u8; n];
    plan.execute_reference(&s, &mut slow, &[]).unwrap();
    let mut raw = vec![0u8; n + 64];
    // Gaps in dst (strided layouts) keep what was there: the same bytes on both sides.
    let dense = n == dst.dims.iter().product::<usize>() * dst.dtype.size();
    // Offsets stay element-aligned: the kernels form typed slices from dst.
    for (force, off) in [(false, 0), (true, 0), (true, 4)] {
        streaming::FORCE_STREAM.store(force, std::sync::atomic::Ordering::Relaxed);
        let at = (64 - raw.as_ptr() as usize % 64) % 64 + off;
        let fast = &mut raw[at..at + n];
        fast.fill(u8::from(!dense));
        plan.execute(&s, fast, &[]).unwrap();
        streaming::FORCE_STREAM.store(false, std::sync::atomic::Ordering::Relaxed);
        assert!(*fast == slow[..], "{what}, streamed {force}, offset {off}");
    }
}

/// A plan's ISA is a value: kernels dispatch on it on every thread that runs a chunk, and
/// the thread's own setting comes back afterwards.
#[test]
fn plan_isa_is_a_value() {
    use crate::core::simd::{available_isas, detected_isa, isa, with_isa};
    for i in available_isas() {
        with_isa(i, || assert_eq!(isa(), i));
        assert_eq!(isa(), detected_isa());
    }
    assert_eq!(*available_isas().last().unwrap(), detected_isa());
}

/// A linear rule for an axis `i -> o`: oneDNN's half-pixel, an affine one (DirectML) or
/// PyTorch's.
fn linear_rule(rng: &mut Rng, i: usize, o: usize) -> AxisRule {
    match rng.below(3) {
        0 => AxisRule::OnednnHalfPixel,
        1 => AxisRule::Affine {
            scale: rng.f32(0.3, 3.0),
            input_offset: rng.f32(-1.0, 1.0),
            output_offset: rng.f32(-1.0, 1.0),
            rounding: crate::core::NearestRounding::HalfUp,
            antialias: false,
        },
        _ => AxisRule::TorchLinear {
            scale: i as f32 / o as f32,
            align_corners: rng.below(2) == 0,
        },
    }
}

/// Ten f32 special values (signed zero, infinities, NaN, a subnormal) at random places of
/// an f32 buffer.
fn sprinkle_specials(rng: &mut Rng, buf: &mut [u8]) {
    let specials = [-0.0f32, f32::INFINITY, f32::NAN, 1e-40, f32::NEG_INFINITY];
    for (k, v) in specials.iter().cycle().take(10).enumerate() {
        let at = (k * 4 + rng.below(buf.len() / 4) * 4) % buf.len().max(4);
        buf[at..at + 4].copy_from_slice(&v.to_ne_bytes());
    }
}

/// The first differing byte of two outputs, bit for bit except which NaN comes out when
/// two different NaNs meet in one f32 sum (x86 returns the first operand's, and LLVM may
/// commute a vector add): NaNs of f32 outputs are made one first.
fn nan_blind_difference(fast: &mut [u8], slow: &mut [u8], dt: DataType) -> Option<usize> {
    if dt == DataType::F32 {
        for b in [&mut *fast, &mut *slow] {
            for c in b.chunks_exact_mut(4) {
                if f32::from_ne_bytes(c.try_into().unwrap()).is_nan() {
                    c.copy_from_slice(&f32::NAN.to_ne_bytes());
                }
            }
        }
    }
    fast.iter().zip(slow.iter()).position(|(a, b)| a != b)
}

/// Makes every NaN of a bf16 buffer one: as [`nan_blind_difference`] for f32, where bf16
/// specials meet in a sum (the planes suite's bf16 sources).
fn bf16_nans_as_one(buf: &mut [u8]) {
    for c in buf.chunks_exact_mut(2) {
        if u16::from_ne_bytes([c[0], c[1]]) & 0x7FFF > 0x7F80 {
            c.copy_from_slice(&0x7FC0u16.to_ne_bytes());
        }
    }
}

/// Small f32 linear planes (kernels/planes.rs) on every ISA: sizes 1..40, up and down,
/// oneDNN, DirectML and PyTorch rules, N/C axes or none, src rows with gaps, special values.
#[test]
fn planes_match_reference_bitwise() {
    let mut rng = Rng::new(4242);
    let isas = crate::core::simd::available_isas();
    let (mut hits, mut wide_hits, mut bf16_hits) = (0, 0, 0);
    let mut windowed = std::collections::BTreeMap::new();
    for case in 0..n_cases(600) {
        let lead: Vec<usize> = (0..rng.below(3)).map(|_| rng.range(1, 4)).collect();
        // Sometimes tall planes (up to the path's 16K outputs).
        let tall = rng.below(5) == 0;
        let hmax = if tall { 300 } else { 40 };
        // Source rows past 32 columns sometimes (AVX-512 permutes over four vectors), past
        // 64 now and then (AVX-512 windows), of whole AVX2 vectors now and then.
        let iw = match rng.below(8) {
            0 => rng.range(65, 300),
            1 | 2 => rng.range(33, 70),
            3 if rng.below(2) == 0 => rng.pick(&[8, 16, 32]),
            _ => rng.range(1, 40),
        };
        let ih = rng.range(1, hmax);
        // Rows up to 16 outputs on every ISA, 17..32 on AVX2, 17..64 on AVX-512 (up to four
        // output vectors), up to 128 by windows.
        let wide = rng.below(3) == 0;
        let ow = match (wide, rng.below(3)) {
            // (Long source rows to at least a third as many outputs: windows of 32 columns
            // at most.)
            _ if iw > 64 && rng.below(2) == 0 => rng.range(iw / 3, 129),
            (true, 0) => rng.range(65, 129),
            (true, _) => rng.range(17, 65),
            (false, _) => rng.range(1, 17),
        };
        let mut oh = rng.range(1, hmax);
        // Sometimes only W resampled (identity rows, no H level).
        let only_w = rng.below(4) == 0;
        if only_w {
            oh = ih;
        }
        // Now and then long rows downsampled 2.2-4x in 16 planes (AVX2 windows of four
        // vectors: rows past 128 outputs, planes past 16K source elements).
        let long = rng.below(12) == 0;
        let (lead, iw, ih, ow, oh) = match long {
            true => {
                let (iw, ih) = (rng.range(300, 3000), rng.range(1, 60));
                let oh = if only_w { ih } else { rng.range(1, 20) };
                let ow = iw * 10 / rng.range(22, 40);
                (vec![2, 8], iw, ih, ow, oh)
            }
            false => (lead, iw, ih, ow, oh),
        };
        let rule = match long {
            true => AxisRule::OnednnHalfPixel,
            false => linear_rule(&mut rng, ih, oh),
        };
        let mut sdims = lead.clone();
        sdims.extend([ih, iw]);
        let mut ddims = lead.clone();
        ddims.extend([oh, ow]);
        // Sometimes a resampled D axis too (ncdhw), blended per plane.
        let depth = !lead.is_empty() && rng.below(3) == 0;
        if depth {
            ddims[lead.len() - 1] = rng.range(1, 9);
        }
        // Mostly f32; any other pair goes through converted planes.
        let types = [
            DataType::F32,
            DataType::F32,
            DataType::Bf16,
            DataType::U8,
            DataType::S8,
            DataType::S32,
            DataType::F16,
        ];
        let (sdt, ddt) = if only_w && rng.below(2) == 0 {
            (DataType::F32, DataType::F32)
        } else if rng.below(5) == 0 {
            // bf16 to bf16 (converted in the AVX-512 kernel's registers where it can).
            (DataType::Bf16, DataType::Bf16)
        } else {
            (rng.pick(&types), rng.pick(&types))
        };
        let mut src = Layout::dense(sdt, &sdims);
        if rng.below(3) == 0 {
            // Gaps after each src row and plane.
            let r = sdims.len();
            src.strides[r - 2] = iw + rng.range(1, 5);
            for a in (0..r - 2).rev() {
                src.strides[a] = src.strides[a + 1] * sdims[a + 1] + rng.below(7);
            }
        }
        let mut axes = vec![AxisRule::Identity; lead.len()];
        axes.extend([if only_w { AxisRule::Identity } else { rule }, rule]);
        if depth {
            axes[lead.len() - 1] = match rule {
                AxisRule::TorchLinear { align_corners, .. } => AxisRule::TorchLinear {
                    scale: sdims[lead.len() - 1] as f32 / ddims[lead.len() - 1] as f32,
                    align_corners,
                },
                r => r,
            };
        }
        let p = Problem {
            alg: Algorithm::Linear,
            direction: Direction::Forward,
            axes,
            src: src.clone(),
            dst: Layout::dense(ddt, &ddims),
            post_ops: vec![],
            numerics: Numerics::Onednn,
        };
        let mut sbuf = fill(&mut rng, &src);
        if sdt == DataType::F32 && ddt == DataType::F32 && rng.below(2) == 0 {
            sprinkle_specials(&mut rng, &mut sbuf);
        }
        let bf16_specials = sdt == DataType::Bf16 && ddt == DataType::Bf16 && rng.below(2) == 0;
        if bf16_specials {
            // bf16 specials: infinities, quiet and signalling NaNs, subnormals, zeros.
            let sp = [
                0x7F80u16, 0xFF80, 0x7FC1, 0x7F81, 0xFFA5, 0x0001, 0x807F, 0x8000, 0,
            ];
            for e in sbuf.chunks_exact_mut(2) {
                if rng.below(8) == 0 {
                    e.copy_from_slice(&rng.pick(&sp).to_le_bytes());
                }
            }
        }
        let n = p.dst.span_bytes().unwrap();
        let mut slow = vec![0u8; n];
        for &isa in &isas {
            let plan = Plan::with_isa(p.clone(), isa).unwrap();
            if isa == isas[0] {
                plan.execute_reference(&sbuf, &mut slow, &[]).unwrap();
            }
            let fused = sdt == DataType::Bf16
                && ddt == DataType::Bf16
                && iw <= 32
                && isa == crate::core::simd::Isa::Avx512;
            if plan.kernel_name() == "planes" && fused {
                bf16_hits += 1;
            }
            if let crate::core::plan::Strategy::Planes(g) = &plan.strategy {
                if long && g.windowed().is_some() {
                    let big = g.outputs() > 16384 || ih.min(2 * oh) * iw > 16384;
                    let key = if ow > 128 { "long rows" } else { "long" };
                    *windowed.entry(format!("{isa:?} {key}")).or_insert(0) += 1;
                    if big {
                        *windowed.entry(format!("{isa:?} large")).or_insert(0) += 1;
                    }
                }
                if let Some((nw, masked, shared)) = g.windowed() {
                    let key = format!(
                        "{isa:?} {nw} {}{}",
                        if masked { "masked" } else { "" },
                        if shared { "shared" } else { "" }
                    );
                    *windowed.entry(key).or_insert(0) += 1;
                }
            }
            if plan.kernel_name() == "planes" {
                match (wide, isa) {
                    (false, _) if isa == isas[0] => hits += 1,
                    (true, crate::core::simd::Isa::Avx512 | crate::core::simd::Isa::Avx2) => {
                        wide_hits += 1
                    }
                    _ => {}
                }
            }
            // Through the cache, then (every other case) streamed with dst aligned to a
            // line and 4 bytes past one.
            let streamed: &[_] = match plan.kernel_name() == "planes" && case % 2 == 0 {
                true => &[(false, 0), (true, 0), (true, 4)],
                false => &[(false, 0)],
            };
            for &(force, off) in streamed {
                let mut raw = vec![0xA5u8; n + 68];
                let at = (64 - raw.as_ptr() as usize % 64) % 64 + off;
                let fast = &mut raw[at..at + n];
                streaming::FORCE_STREAM.store(force, std::sync::atomic::Ordering::Relaxed);
                plan.execute(&sbuf, fast, &[]).unwrap();
                streaming::FORCE_STREAM.store(false, std::sync::atomic::Ordering::Relaxed);
                if bf16_specials {
                    bf16_nans_as_one(fast);
                    bf16_nans_as_one(&mut slow);
                }
                if let Some(i) = nan_blind_difference(fast, &mut slow, ddt) {
                    panic!(
                        "case {case} {isa:?} {} streamed {force} at {off}: {sdt:?}->{ddt:?} {sdims:?} -> {ddims:?} {rule:?}: at byte {i}",
                        plan.kernel_name(),
                    );
                }
            }
        }
    }
    assert!(
        reduced_run() || hits > 250,
        "planes kernel ran in only {hits} of 600 cases"
    );
    // bf16 planes of rows up to 32 on AVX-512 (about 70 draws).
    if isas.contains(&crate::core::simd::Isa::Avx512) {
        assert!(
            reduced_run() || bf16_hits > 30,
            "bf16 AVX-512 planes ran in only {bf16_hits} cases"
        );
    }
    // Wide rows (draws of 17..64 outputs) on AVX2 (48 here) and AVX-512 (162 more).
    let need = if isas.contains(&crate::core::simd::Isa::Avx512) {
        150
    } else if isas.contains(&crate::core::simd::Isa::Avx2) {
        35
    } else {
        0
    };
    assert!(
        reduced_run() || wide_hits >= need,
        "wide planes ran in only {wide_hits} cases"
    );
    // The window kernel with windows of each width, per vector and shared by a row (rows
    // narrower than a window too), on AVX2, and long rows and planes; AVX-512 takes it past
    // 64 columns.
    let seen = |k: &str| windowed.get(k).copied().unwrap_or(0);
    if isas.contains(&crate::core::simd::Isa::Avx2) && !reduced_run() {
        for k in [
            "Avx2 1 ",
            "Avx2 2 ",
            "Avx2 3 ",
            "Avx2 4 ",
            "Avx2 1 maskedshared",
            "Avx2 2 maskedshared",
            "Avx2 4 maskedshared",
            "Avx2 2 shared",
            "Avx2 4 shared",
            "Avx2 long rows",
            "Avx2 large",
        ] {
            assert!(seen(k) > 2, "AVX2 windows {k:?}: {windowed:?}");
        }
    }
    if isas.contains(&crate::core::simd::Isa::Avx512) && !reduced_run() {
        let n: usize = windowed
            .iter()
            .filter(|(k, _)| k.starts_with("Avx512"))
            .map(|e| e.1)
            .sum();
        assert!(n > 10, "AVX-512 windows: {windowed:?}");
    }
}

/// Tiny linear planes computed several at a time (kernels/planes.rs `Group`): planes of
/// 1..32 source and up to 64 output elements, one to three lead axes (partial groups at
/// the ends of runs and thread chunks), gaps between source planes (no group step: plane
/// by plane), H resampled or not, f32 / bf16 / u8, special values: the reference's bits on
/// every ISA.
#[test]
fn grouped_tiny_planes_match_reference_bitwise() {
    let mut rng = Rng::new(0x6409);
    let isas = crate::core::simd::available_isas();
    let mut grouped = std::collections::HashMap::new();
    for case in 0..n_cases(500) {
        let (ih, iw) = (rng.range(1, 6), rng.range(1, 7));
        // A depth level (ncdhw) in a third of the cases: planes blended over it first.
        let depth = rng.below(3) == 0;
        let only_w = !depth && rng.below(4) == 0;
        let oh = if only_w { ih } else { rng.range(1, 8) };
        let ow = rng.range(1, 9);
        let n_lead = rng.range(1, if depth { 2 } else { 3 });
        let mut lead: Vec<usize> = (0..n_lead).map(|_| rng.range(1, 40)).collect();
        let mut slead = lead.clone();
        if depth {
            lead.push(rng.range(1, 4));
            slead.push(rng.range(1, 4));
        }
        let rule = linear_rule(&mut rng, ih, oh);
        let sdims: Vec<usize> = slead.iter().copied().chain([ih, iw]).collect();
        let ddims: Vec<usize> = lead.iter().copied().chain([oh, ow]).collect();
        let dt = rng.pick(&[DataType::F32, DataType::F32, DataType::Bf16, DataType::U8]);
        let mut src = Layout::dense(dt, &sdims);
        if rng.below(4) == 0 {
            let r = sdims.len();
            for a in (0..r - 2).rev() {
                src.strides[a] = src.strides[a + 1] * sdims[a + 1] + rng.range(1, 4);
            }
        }
        let mut axes = vec![AxisRule::Identity; lead.len()];
        if depth {
            let r = lead.len() - 1;
            axes[r] = linear_rule(&mut rng, slead[r], lead[r]);
        }
        axes.extend([if only_w { AxisRule::Identity } else { rule }, rule]);
        let p = Problem {
            alg: Algorithm::Linear,
            direction: Direction::Forward,
            axes,
            src: src.clone(),
            dst: Layout::dense(dt, &ddims),
            post_ops: vec![],
            numerics: Numerics::Onednn,
        };
        let mut sbuf = fill(&mut rng, &src);
        if dt == DataType::F32 && rng.below(2) == 0 {
            sprinkle_specials(&mut rng, &mut sbuf);
        }
        let n = p.dst.span_bytes().unwrap();
        let mut slow = vec![0u8; n];
        for &isa in &isas {
            let plan = Plan::with_isa(p.clone(), isa).unwrap();
            if isa == isas[0] {
                plan.execute_reference(&sbuf, &mut slow, &[]).unwrap();
            }
            if let crate::core::plan::Strategy::Planes(g) = &plan.strategy {
                if g.grouped() {
                    *grouped.entry(format!("{isa:?}")).or_insert(0) += 1;
                    if depth {
                        *grouped.entry(format!("{isa:?} depth")).or_insert(0) += 1;
                    }
                }
            }
            // Whole, and in chunks of a few planes on 3 threads (chunks cut batches and
            // the depth axis anywhere).
            for chunked in [false, true] {
                let mut fast = vec![0xA5u8; n];
                let mut run = || plan.execute(&sbuf, &mut fast, &[]).unwrap();
                match chunked {
                    false => run(),
                    true => crate::core::threads::tests::with_small_chunks(3, 1 + case % 5, run),
                }
                if let Some(i) = nan_blind_difference(&mut fast, &mut slow, dt) {
                    panic!(
                        "case {case} {isa:?} {} chunked {chunked}: {dt:?} {sdims:?} -> \
                         {ddims:?} {rule:?}: at byte {i}",
                        plan.kernel_name(),
                    );
                }
            }
        }
    }
    for isa in &isas {
        let hits = grouped.get(&format!("{isa:?}")).copied().unwrap_or(0);
        assert!(
            reduced_run() || hits > 100,
            "grouped planes on {isa:?} in {hits} of 500: {grouped:?}"
        );
        let deep = grouped.get(&format!("{isa:?} depth")).copied().unwrap_or(0);
        assert!(
            reduced_run() || deep > 20,
            "grouped depth planes on {isa:?}: {grouped:?}"
        );
    }
}

/// Runs `probe`'s problem on every ISA at 1 and 3 threads and asserts each result is the
/// reference's, bit for bit.
fn same_bits_on_every_isa(probe: &Plan, sbuf: &[u8], case: usize) {
    let p = probe.problem();
    let n = p.dst.span_bytes().unwrap();
    let mut slow = vec![0u8; n];
    probe.execute_reference(sbuf, &mut slow, &[]).unwrap();
    for isa in crate::core::simd::available_isas() {
        let plan = Plan::with_isa(p.clone(), isa).unwrap();
        for threads in [1, 3] {
            crate::core::threads::set_max_threads(threads);
            let mut fast = vec![0xA5u8; n];
            plan.execute(sbuf, &mut fast, &[]).unwrap();
            assert!(
                fast == slow,
                "case {case} {isa:?} {} at {threads} threads: {p:?}",
                plan.kernel_name()
            );
        }
    }
}

/// Nearest over tiny 3-D (and 2-D-within-3-D) planes, the `gather` kernel's shapes: any
/// rule, element size and bf16 special, strided lead axes and an offset, at 1 and 3
/// threads (chunks that start and end inside a batch of planes), bit for bit against the
/// reference on every ISA.
#[test]
fn gathered_tiny_planes_match_reference_bitwise() {
    let mut rng = Rng::new(0x6a7e);
    let before = crate::core::threads::max_threads();
    let mut hits = 0;
    for case in 0..n_cases(400) {
        let lead: Vec<usize> = (0..rng.range(1, 3)).map(|_| rng.range(1, 70)).collect();
        let sp: Vec<(usize, usize)> = (0..3).map(|_| (rng.range(1, 6), rng.range(1, 7))).collect();
        let rule = |rng: &mut Rng, i: usize, o: usize| match rng.below(5) {
            0 => AxisRule::OnednnHalfPixel,
            1 => AxisRule::Dnnl12,
            2 => AxisRule::Floor {
                ratio: i as f32 / o as f32,
                exact: true,
            },
            3 if i == o => AxisRule::Identity,
            _ => AxisRule::Affine {
                scale: rng.f32(0.3, 3.0),
                input_offset: rng.f32(-1.0, 1.0),
                output_offset: rng.f32(-1.0, 1.0),
                rounding: rng.pick(&[
                    crate::core::NearestRounding::HalfUp,
                    crate::core::NearestRounding::Floor,
                    crate::core::NearestRounding::Ceil,
                ]),
                antialias: false,
            },
        };
        let mut axes = vec![AxisRule::Identity; lead.len()];
        for &(i, o) in &sp {
            let i = if rng.below(5) == 0 { o } else { i };
            let r = rule(&mut rng, i, o);
            axes.push(r);
        }
        let sdims: Vec<usize> = lead
            .iter()
            .copied()
            .chain(sp.iter().zip(&axes[lead.len()..]).map(|(&(i, o), r)| {
                if *r == AxisRule::Identity {
                    o
                } else {
                    i
                }
            }))
            .collect();
        let ddims: Vec<usize> = lead.iter().copied().chain(sp.iter().map(|s| s.1)).collect();
        let dt = rng.pick(&[DataType::F32, DataType::Bf16, DataType::U8, DataType::F16]);
        let mut src = Layout::dense(dt, &sdims);
        if rng.below(3) == 0 {
            let r = sdims.len();
            for a in (0..r - 3).rev() {
                src.strides[a] = src.strides[a + 1] * sdims[a + 1] + rng.range(1, 4);
            }
            src.offset = rng.range(0, 5);
        }
        let p = Problem {
            alg: Algorithm::Nearest,
            direction: Direction::Forward,
            axes,
            src: src.clone(),
            dst: Layout::dense(dt, &ddims),
            post_ops: vec![],
            numerics: rng.pick(&[Numerics::Onednn, Numerics::Ieee]),
        };
        let Ok(probe) = Plan::new(p.clone()) else {
            continue;
        };
        hits += (probe.kernel_name() == "gather") as usize;
        let mut sbuf = fill(&mut rng, &src);
        if dt == DataType::Bf16 {
            // Subnormals and signalling NaNs: oneDNN's round trip flushes and quiets them.
            for k in 0..sbuf.len() / 2 {
                if rng.below(4) == 0 {
                    let v = rng.pick(&[0x0001u16, 0x8040, 0x7F81, 0xFF90]);
                    sbuf[2 * k..2 * k + 2].copy_from_slice(&v.to_ne_bytes());
                }
            }
        }
        same_bits_on_every_isa(&probe, &sbuf, case);
    }
    crate::core::threads::set_max_threads(before);
    assert!(reduced_run() || hits > 100, "gather took {hits} of 400");
}

/// Raw nearest rows resampled along W only, more rows than one plane table holds: the
/// table covers whole rows of the identity row axis and repeats with the src moved on (the
/// rows kernel's `plane_period`), across thread splits that start inside a period.
#[test]
fn identity_rows_gather_by_table_periods() {
    let mut rng = Rng::new(0x9e71);
    let before = crate::core::threads::max_threads();
    for case in 0..n_cases(60) {
        let o_n = rng.range(2, 256);
        let i_n = rng.range(1, 300);
        // Rows past one table (16384 entries), up to three and a part.
        let rows = (1 << 14) / o_n + rng.range(1, 3 * (1 << 14) / o_n + 40);
        let lead = rng.range(1, 4);
        let h = rows.div_ceil(lead);
        let dt = rng.pick(&[DataType::F32, DataType::Bf16, DataType::U8, DataType::F16]);
        let sdims = [lead, h, i_n];
        let mut src = Layout::dense(dt, &sdims);
        if rng.below(3) == 0 {
            // Padded src rows: the identity axes do not merge.
            src.strides[1] = i_n + rng.range(1, 4);
            src.strides[0] = src.strides[1] * h + rng.range(0, 3);
            src.offset = rng.range(0, 5);
        }
        let axes = vec![
            AxisRule::Identity,
            AxisRule::Identity,
            rng.pick(&[AxisRule::OnednnHalfPixel, AxisRule::Dnnl12]),
        ];
        let p = Problem {
            alg: Algorithm::Nearest,
            direction: Direction::Forward,
            axes,
            src: src.clone(),
            dst: Layout::dense(dt, &[lead, h, o_n]),
            post_ops: vec![],
            numerics: Numerics::Onednn,
        };
        let probe = Plan::new(p.clone()).unwrap();
        let sbuf = fill(&mut rng, &src);
        same_bits_on_every_isa(&probe, &sbuf, case);
    }
    crate::core::threads::set_max_threads(before);
}

/// Raw nearest channels-last rows that repeat their source row (upsampling along the axis
/// outside the pixels) are copied two at a time: whole 64-byte pixels and others, every
/// type's size, blocked lanes, plain and streamed, at 1 and 3 threads (a pair split between
/// chunks), bit for bit against the reference on every ISA.
#[test]
fn repeated_source_rows_match_reference_bitwise() {
    let mut rng = Rng::new(0x2c0f);
    let before = crate::core::threads::max_threads();
    for case in 0..n_cases(80) {
        let dt = rng.pick(&[DataType::F32, DataType::Bf16, DataType::U8]);
        let c = rng.pick(&[16, 32, 48, 64, 128, 17, 40]) * 4 / dt.size();
        let block = rng.pick(&[1, 1, 1, 16]);
        let (ih, iw) = (rng.range(1, 9), rng.range(16, 60));
        let oh = ih * rng.range(1, 4) + rng.range(0, 3);
        let ow = rng.range(16, 90);
        let sd = [rng.range(1, 3), c, ih, iw];
        let dd = [sd[0], c, oh, ow];
        let rule = |rng: &mut Rng, i: usize, o: usize| match rng.below(3) {
            0 => AxisRule::OnednnHalfPixel,
            1 => AxisRule::Dnnl12,
            _ => AxisRule::Floor {
                ratio: i as f32 / o as f32,
                exact: true,
            },
        };
        let axes = vec![
            AxisRule::Identity,
            AxisRule::Identity,
            rule(&mut rng, ih, oh),
            rule(&mut rng, iw, ow),
        ];
        let src = lanes_layout(dt, &sd, block);
        let p = Problem {
            alg: Algorithm::Nearest,
            direction: Direction::Forward,
            axes,
            src: src.clone(),
            dst: lanes_layout(dt, &dd, block),
            post_ops: vec![],
            numerics: Numerics::Onednn,
        };
        let probe = Plan::new(p.clone()).unwrap();
        let sbuf = fill(&mut rng, &src);
        for force in [false, true] {
            streaming::FORCE_STREAM.store(force, std::sync::atomic::Ordering::Relaxed);
            same_bits_on_every_isa(&probe, &sbuf, case);
        }
        streaming::FORCE_STREAM.store(false, std::sync::atomic::Ordering::Relaxed);
    }
    crate::core::threads::set_max_threads(before);
}

/// Fuzzer finding: a channels-last problem whose identity pixel axis is huge built a
/// per-pixel table of gigabytes at plan time. Plans now stay small (the walk falls back to
/// per-run lanes) — and still compute the right values on a strided view of one element.
#[test]
fn huge_identity_pixel_axis_builds_no_huge_table() {
    let f = DataType::F32;
    // N, C = 16 (contiguous), W identity of 2^31 pixels with stride 0 (one pixel, broadcast).
    let dims = [1usize, 16, 1 << 31];
    let src = Layout::strided(f, &dims, &[16, 1, 0], 0);
    let mut dst = Layout::strided(f, &dims, &[16, 1, 0], 0);
    dst.dims = vec![1, 16, 1 << 31];
    let p = Problem {
        alg: Algorithm::Nearest,
        direction: Direction::Forward,
        axes: vec![AxisRule::Identity; 3],
        src,
        dst,
        post_ops: vec![],
        numerics: Numerics::Onednn,
    };
    // Must return promptly without allocating a 2^31-entry table (an overlapping dst is
    // the caller's problem to refuse; the core only has to stay bounded here).
    let plan = Plan::new(p).unwrap();
    assert_ne!(plan.kernel_name(), "lanes_rows");
}

/// Fuzzer finding: a layout conversion over a huge axis built per-index offset tables of
/// gigabytes at plan time. Beyond the copy kernel's table limit the scalar path runs.
#[test]
fn huge_copy_builds_no_huge_table() {
    let f = DataType::F32;
    let n = 1usize << 31;
    let p = Problem {
        alg: Algorithm::Nearest,
        direction: Direction::Forward,
        axes: vec![AxisRule::Identity],
        src: Layout::strided(f, &[n], &[1], 0),
        dst: Layout::strided(DataType::Bf16, &[n], &[2], 0),
        post_ops: vec![],
        numerics: Numerics::Onednn,
    };
    let plan = Plan::new(p).unwrap();
    assert_eq!(plan.kernel_name(), "generic");
}

/// Fuzzer finding (CI fuzz smoke): a backward problem over a 2^27-element input axis
/// built its tables through one small vector per input — gigabytes for 2^28 entries.
/// Backward tables are now built in place, and such a plan is refused before building.
#[test]
fn huge_backward_tables_fail_cleanly() {
    let i = 1usize << 27;
    let p = Problem {
        alg: Algorithm::Linear,
        direction: Direction::Backward,
        axes: vec![AxisRule::OnednnHalfPixel],
        src: Layout::dense(DataType::F32, &[i]),
        dst: Layout::dense(DataType::F32, &[3]),
        post_ops: vec![],
        numerics: Numerics::Onednn,
    };
    assert_eq!(Plan::new(p).err(), Some(CoreError::OutOfMemory));
}

/// Transposed tables (counting sort) equal the per-input lists built the obvious way.
#[test]
fn transpose_matches_per_input_lists() {
    use crate::core::axis::forward_taps;
    for (i, o) in [(1, 1), (3, 7), (7, 3), (16, 5), (5, 16), (40, 13)] {
        let onnx = |antialias| AxisRule::Onnx {
            coord: crate::core::axis::OnnxCoord::HalfPixel,
            nearest: crate::core::axis::OnnxNearest::RoundPreferFloor,
            scale: o as f64 / i as f64,
            antialias,
        };
        for rule in [
            onnx(false),
            onnx(true),
            AxisRule::Floor {
                ratio: i as f32 / o as f32,
                exact: false,
            },
        ] {
            let f = forward_taps(&rule, Algorithm::Linear, i, o);
            let b = f.transpose(i);
            for x in 0..i {
                for g in 0..b.groups {
                    let want: Vec<(u32, f32)> = (0..o)
                        .filter_map(|oo| {
                            let (idx, wt) = f.taps(oo);
                            (idx.get(g) == Some(&(x as u32))).then(|| (oo as u32, wt[g]))
                        })
                        .collect();
                    let (out, wt) = b.group(x, g);
                    let got: Vec<(u32, f32)> =
                        out.iter().copied().zip(wt.iter().copied()).collect();
                    assert_eq!(got, want, "{rule:?} {i}->{o} input {x} group {g}");
                }
            }
        }
    }
}

/// Short rows of blocked layouts with many lane blocks run every block at once
/// (`PixelRows::blocks_inside`): 8-24 blocks of 8 or 16 lanes, rows of 1-4 pixels, 1-3
/// resampled axes, linear and nearest (raw copies do not take it), type pairs mixed; the
/// reference's bytes on every ISA.
#[test]
fn many_block_short_rows_match_reference() {
    use crate::core::plan::Strategy;
    use crate::core::simd::available_isas;
    let mut rng = Rng::new(808);
    let dts = [DataType::F32, DataType::Bf16, DataType::U8, DataType::F16];
    let mut inside = 0;
    for case in 0..n_cases(300) {
        let block = rng.pick(&[8, 16]);
        let c = block * rng.range(8, 24);
        let rank = rng.range(3, 5);
        let (mut sd, mut dd) = (vec![rng.range(1, 3), c], vec![0, c]);
        dd[0] = sd[0];
        let mut axes = vec![AxisRule::Identity; 2];
        for a in 2..rank {
            let i = rng.range(1, 8);
            let o = if a == rank - 1 {
                rng.range(1, 4)
            } else {
                rng.range(1, 8)
            };
            sd.push(i);
            dd.push(o);
            axes.push(AxisRule::OnednnHalfPixel);
        }
        let sdt = rng.pick(&dts);
        let ddt = if rng.below(2) == 0 {
            sdt
        } else {
            rng.pick(&dts)
        };
        let p = Problem {
            alg: rng.pick(&[Algorithm::Linear, Algorithm::Linear, Algorithm::Nearest]),
            direction: Direction::Forward,
            axes,
            src: lanes_layout(sdt, &sd, block),
            dst: lanes_layout(ddt, &dd, block),
            post_ops: vec![],
            numerics: if rng.below(2) == 0 {
                Numerics::Onednn
            } else {
                Numerics::Ieee
            },
        };
        let src = fill(&mut rng, &p.src);
        let init = fill(&mut rng, &p.dst);
        let mut slow = init.clone();
        Plan::new(p.clone())
            .unwrap()
            .execute_reference(&src, &mut slow, &[])
            .unwrap();
        for (k, isa) in available_isas().into_iter().enumerate() {
            let plan = Plan::with_isa(p.clone(), isa).unwrap();
            if let (0, Strategy::Lanes(g)) = (k, &plan.strategy) {
                inside += g.pixels.as_ref().is_some_and(|pr| pr.blocks_inside) as usize;
            }
            let mut fast = init.clone();
            plan.execute(&src, &mut fast, &[]).unwrap();
            assert_same_bytes(&fast, &slow, case, &plan, isa);
        }
    }
    assert!(
        reduced_run() || inside > 100,
        "blocks inside a run in {inside} of 300 problems"
    );
}

/// Raw nearest copies with short rows walk whole planes per run (the H rows joined to the
/// W pixel table), large planes in runs of a group of rows each (split among threads);
/// same bytes as the reference on every ISA, blocked and padded too.
#[test]
fn merged_short_rows_match_reference() {
    use crate::core::plan::Strategy;
    use crate::core::simd::available_isas;
    let mut rng = Rng::new(5);
    let (mut merged, mut split) = (0, 0);
    for case in 0..n_cases(300) {
        let block = rng.pick(&[1, 1, 8, 16]);
        let c = rng.range(1, 40);
        let dt = rng.pick(&[DataType::F32, DataType::Bf16, DataType::U8, DataType::S32]);
        let rank = rng.range(3, 5);
        let (mut sd, mut dd) = (vec![rng.range(1, 3), c], vec![0, c]);
        dd[0] = sd[0];
        let mut axes = vec![AxisRule::Identity; 2];
        for _ in 2..rank {
            let i = rng.range(1, 12);
            let top = if rng.below(4) == 0 { 90 } else { 24 };
            let o = rng.range(1, top);
            sd.push(i);
            dd.push(o);
            axes.push(AxisRule::OnednnHalfPixel);
        }
        let p = Problem {
            alg: Algorithm::Nearest,
            direction: Direction::Forward,
            axes,
            src: lanes_layout(dt, &sd, block),
            dst: lanes_layout(dt, &dd, block),
            post_ops: vec![],
            numerics: Numerics::Ieee,
        };
        let src = fill(&mut rng, &p.src);
        let init = fill(&mut rng, &p.dst);
        for (k, isa) in available_isas().into_iter().enumerate() {
            let plan = Plan::with_isa(p.clone(), isa).unwrap();
            if let (0, Strategy::Lanes(g)) = (k, &plan.strategy) {
                if let Some(pr) = g.pixels.as_ref().filter(|pr| pr.px2.is_some()) {
                    merged += 1;
                    split += (pr.px2_rows < p.dst.dims[pr.px2.unwrap()]) as usize;
                }
            }
            let (mut fast, mut slow) = (init.clone(), init.clone());
            plan.execute(&src, &mut fast, &[]).unwrap();
            plan.execute_reference(&src, &mut slow, &[]).unwrap();
            assert!(fast == slow, "case {case} {isa:?}: {p:?}");
        }
    }
    // About a third of the cases have rows short enough and dst rows back to back.
    assert!(
        reduced_run() || merged > 60,
        "merged rows in {merged} of 300 problems"
    );
    assert!(
        reduced_run() || split > 10,
        "merged rows split in {split} of 300 problems"
    );
}

/// Buffers at any byte address (a C caller's pointers can be anything) give the aligned
/// results: kernels see aligned copies (debug builds check every typed slice they form).
#[test]
fn misaligned_buffers_match_aligned() {
    let mut rng = Rng::new(31);
    let f = DataType::F32;
    let nhwc = |dt, d: &[usize]| Layout::dense_permuted(dt, d, &[0, 2, 3, 1]);
    type Case = (Algorithm, Direction, Layout, Layout, bool);
    let cases: Vec<Case> = vec![
        (
            Algorithm::Linear,
            Direction::Forward,
            nhwc(f, &[2, 20, 6, 7]),
            nhwc(f, &[2, 20, 11, 5]),
            false,
        ),
        (
            Algorithm::Linear,
            Direction::Forward,
            Layout::dense(f, &[2, 3, 6, 40]),
            Layout::dense(f, &[2, 3, 9, 70]),
            true,
        ),
        (
            Algorithm::Linear,
            Direction::Forward,
            nhwc(DataType::U8, &[1, 3, 9, 50]),
            nhwc(DataType::Bf16, &[1, 3, 17, 99]),
            false,
        ),
        (
            Algorithm::Nearest,
            Direction::Forward,
            nhwc(DataType::Bf16, &[2, 16, 5, 5]),
            nhwc(DataType::Bf16, &[2, 16, 10, 10]),
            false,
        ),
        (
            Algorithm::Linear,
            Direction::Backward,
            Layout::dense(f, &[2, 3, 12, 14]),
            Layout::dense(f, &[2, 3, 6, 7]),
            false,
        ),
        (
            Algorithm::Nearest,
            Direction::Backward,
            nhwc(f, &[2, 24, 12, 14]),
            nhwc(f, &[2, 24, 6, 7]),
            false,
        ),
    ];
    for (case, (alg, direction, src, dst, binary)) in cases.into_iter().enumerate() {
        let rank = src.rank();
        let mut axes = vec![AxisRule::Identity; 2];
        axes.resize(rank, AxisRule::OnednnHalfPixel);
        let mut post_ops = vec![];
        let mut bins = vec![];
        if binary {
            let l = Layout::dense(f, &dst.dims);
            bins.push(fill(&mut rng, &l));
            post_ops.push(PostOp::Binary {
                op: BinaryOp::Add,
                src1: l,
            });
        }
        let p = Problem {
            alg,
            direction,
            axes,
            src: src.clone(),
            dst: dst.clone(),
            post_ops,
            numerics: Numerics::Onednn,
        };
        let plan = Plan::new(p).unwrap();
        let s = fill(&mut rng, &src);
        let init = fill(&mut rng, &dst);
        let bin_refs: Vec<&[u8]> = bins.iter().map(|b| b.as_slice()).collect();
        let mut want = init.clone();
        plan.execute(&s, &mut want, &bin_refs).unwrap();
        for off in [1usize, 2, 3] {
            let shifted = |b: &[u8]| {
                let mut v = vec![0u8; b.len() + 8];
                let at = (8 - v.as_ptr() as usize % 8) % 8 + off;
                v[at..at + b.len()].copy_from_slice(b);
                (v, at)
            };
            let (sv, sa) = shifted(&s);
            let (mut dv, da) = shifted(&init);
            let bv: Vec<(Vec<u8>, usize)> = bins.iter().map(|b| shifted(b)).collect();
            let bref: Vec<&[u8]> = bv
                .iter()
                .zip(&bins)
                .map(|((v, a), b)| &v[*a..*a + b.len()])
                .collect();
            let n = init.len();
            plan.execute(&sv[sa..sa + s.len()], &mut dv[da..da + n], &bref)
                .unwrap();
            assert!(
                dv[da..da + n] == want[..],
                "case {case} ({}), offset {off}",
                plan.kernel_name()
            );
        }
    }
}

/// bf16 nearest under oneDNN numerics moves raw bits and then fixes subnormals (to signed
/// zero) and NaNs (quieted): every kernel's copy — rows, images, pixel runs narrow and wide,
/// streamed or not, small lanes — matches the reference's load / convert / store on sources
/// full of subnormals, signalling and quiet NaNs and infinities. Linear rounds its f32
/// results into bf16 (in registers or through f32) under either numerics: the same bits on
/// subnormals, infinities and the NaNs they make (lerps of NaN inputs are left out: which
/// operand's payload an add keeps is not promised).
#[test]
fn bf16_specials_match_reference() {
    use crate::core::simd::available_isas;
    let mut rng = Rng::new(77);
    let mut kinds = std::collections::HashMap::new();
    for case in 0..n_cases(800) {
        let rank = rng.range(3, 5);
        let c = rng.pick(&[1, 3, 4, 8, 16, 17, 20, 24, 32, 40, 48, 64]);
        let (mut sd, mut dd) = (vec![rng.range(1, 3), c], vec![0, c]);
        dd[0] = sd[0];
        let side = [0, 0, 0, 40, 24, 10][rank];
        for _ in 2..rank {
            sd.push(rng.range(1, side));
            dd.push(rng.range(1, 2 * side));
        }
        let block = rng.pick(&[1, 1, 8, 16]);
        let (src, dst) = if block > 1 || rng.below(2) == 0 {
            (
                lanes_layout(DataType::Bf16, &sd, block),
                lanes_layout(DataType::Bf16, &dd, block),
            )
        } else {
            let l = random_layout(&mut rng, DataType::Bf16, &sd, None, 1);
            (l, random_layout(&mut rng, DataType::Bf16, &dd, None, 1))
        };
        let linear = case % 2 == 1;
        let alg = [Algorithm::Nearest, Algorithm::Linear][linear as usize];
        let mut p = onednn_forward(alg, &src, &dst);
        if rng.below(2) == 0 {
            p.numerics = Numerics::Ieee;
        }
        let n = p.src.span_bytes().unwrap() / 2;
        // Some sources are mostly subnormal, so that whole lerps stay subnormal.
        let sub = rng.pick(&[1, 1, 3]);
        let bits: Vec<u8> = (0..n)
            .flat_map(|_| {
                let r = rng.next() as u16;
                let b = match rng.below(sub + 3) {
                    k if k < sub => r & 0x807F, // zero exponent: subnormal or zero
                    k if k == sub && linear => (r & 0x8000) | 0x7F80, // infinity
                    k if k == sub => (r & 0x807F) | 0x7F80, // all-ones exponent: NaN or infinity
                    _ if linear && r & 0x7F80 == 0x7F80 => r & 0xBFFF,
                    _ => r,
                };
                b.to_ne_bytes()
            })
            .collect();
        let init = fill(&mut rng, &p.dst);
        let force = rng.below(3) == 0;
        for isa in available_isas() {
            let plan = Plan::with_isa(p.clone(), isa).unwrap();
            *kinds.entry(plan.kernel_name()).or_insert(0) += 1;
            let (mut fast, mut slow) = (init.clone(), init.clone());
            streaming::FORCE_STREAM.store(force, std::sync::atomic::Ordering::Relaxed);
            plan.execute(&bits, &mut fast, &[]).unwrap();
            streaming::FORCE_STREAM.store(false, std::sync::atomic::Ordering::Relaxed);
            plan.execute_reference(&bits, &mut slow, &[]).unwrap();
            let first =
                (0..fast.len() / 2).find(|&i| fast[2 * i..2 * i + 2] != slow[2 * i..2 * i + 2]);
            assert!(
                fast == slow,
                "case {case} {isa:?} ({}): element {first:?}: {:?} vs {:?}; {p:?}",
                plan.kernel_name(),
                first.map(|i| u16::from_ne_bytes([fast[2 * i], fast[2 * i + 1]])),
                first.map(|i| u16::from_ne_bytes([slow[2 * i], slow[2 * i + 1]])),
            );
        }
    }
    let count = |k: &str| kinds.get(k).copied().unwrap_or(0);
    for k in ["lanes_rows", "image_rows"] {
        assert!(reduced_run() || count(k) > 20, "{k}: {kinds:?}");
    }
    // Tiny channels-first nearest planes with a depth axis go to `gather` since 5e32108.
    assert!(
        reduced_run() || count("rows") + count("gather") > 20,
        "rows: {kinds:?}"
    );
}

/// Raw nearest planes gathered several at a time (`RowGeom::plane_batch`): many tiny planes,
/// source planes spaced with gaps, rows of the batch axis padded in dst (a batch must not run
/// past its row), work split over threads mid-batch.
#[test]
fn plane_batches_match_reference() {
    use crate::core::plan::Strategy;
    use crate::core::simd::available_isas;
    use crate::core::threads;
    let mut rng = Rng::new(41);
    let mut batched = 0;
    let before = threads::max_threads();
    for case in 0..n_cases(200) {
        let dt = rng.pick(&[DataType::F32, DataType::Bf16, DataType::U8]);
        let (n, c) = (rng.range(1, 4), rng.range(2, 700));
        let (ih, iw, oh, ow) = (
            rng.range(1, 6),
            rng.range(1, 9),
            rng.range(1, 6),
            rng.range(1, 12),
        );
        let splane = ih * iw + rng.pick(&[0, 0, 3]);
        let sn = c * splane + rng.pick(&[0, 5]);
        let src = Layout::strided(dt, &[n, c, ih, iw], &[sn, splane, iw, 1], 0);
        let dplane = oh * ow;
        let dn = c * dplane + rng.pick(&[0, 0, 7]);
        let dst = Layout::strided(dt, &[n, c, oh, ow], &[dn, dplane, ow, 1], 0);
        let p = Problem {
            alg: Algorithm::Nearest,
            direction: Direction::Forward,
            axes: vec![
                AxisRule::Identity,
                AxisRule::Identity,
                AxisRule::OnednnHalfPixel,
                AxisRule::OnednnHalfPixel,
            ],
            src,
            dst,
            post_ops: vec![],
            numerics: Numerics::Ieee,
        };
        let s = fill(&mut rng, &p.src);
        let init = fill(&mut rng, &p.dst);
        for (k, isa) in available_isas().into_iter().enumerate() {
            let plan = Plan::with_isa(p.clone(), isa).unwrap();
            if let (0, Strategy::Rows(g)) = (k, &plan.strategy) {
                batched += g.plane_batch.is_some() as usize;
            }
            let mut slow = init.clone();
            plan.execute_reference(&s, &mut slow, &[]).unwrap();
            for t in [1, 3] {
                threads::set_max_threads(t);
                let mut fast = init.clone();
                plan.execute(&s, &mut fast, &[]).unwrap();
                assert!(fast == slow, "case {case} {isa:?} {t} threads: {p:?}");
            }
        }
    }
    threads::set_max_threads(before);
    assert!(
        reduced_run() || batched > 100,
        "batched planes in {batched} of 200 problems"
    );
}

/// Rows longer than a tile (1-D channels-last signals, long nchw rows, 2-D images with wide
/// rows), up and down, every source/destination type pairing the tiles convert, on every
/// ISA, through the cache and streamed: the reference's bits, and the tiles were taken.
#[test]
fn long_rows_go_tile_by_tile() {
    use crate::core::plan::Strategy;
    let mut rng = Rng::new(0x711E);
    // (src dims, dst dims, src type, dst type, channels last)
    type Case = (&'static [usize], &'static [usize], DataType, DataType, bool);
    let cases: [Case; 7] = [
        (
            &[1, 3, 9000],
            &[1, 3, 20011],
            DataType::F32,
            DataType::F32,
            true,
        ),
        (
            &[2, 4, 30001],
            &[2, 4, 13000],
            DataType::Bf16,
            DataType::Bf16,
            true,
        ),
        (
            &[1, 2, 7000],
            &[1, 2, 9999],
            DataType::U8,
            DataType::U8,
            true,
        ),
        (
            &[1, 5, 3, 2000],
            &[1, 5, 2, 4001],
            DataType::F32,
            DataType::Bf16,
            true,
        ),
        (
            &[1, 8, 1500],
            &[1, 8, 1111],
            DataType::S8,
            DataType::F32,
            true,
        ),
        (
            &[2, 1, 9001],
            &[2, 1, 17000],
            DataType::F32,
            DataType::F32,
            false,
        ),
        (
            &[1, 2, 3, 5000],
            &[1, 2, 4, 9000],
            DataType::F16,
            DataType::U8,
            false,
        ),
    ];
    let isas = simd::available_isas();
    let (mut tiled, mut permuted) = (0, 0);
    for (fin, fout, sdt, ddt, last) in cases {
        let rank = fin.len();
        let mut order: Vec<usize> = (0..rank).collect();
        if last {
            order.remove(1);
            order.push(1);
        }
        let src = Layout::dense_permuted(sdt, fin, &order);
        let dst = Layout::dense_permuted(ddt, fout, &order);
        let p = onednn_forward(Algorithm::Linear, &src, &dst);
        for &isa in &isas {
            let plan = Plan::with_isa(p.clone(), isa).unwrap();
            if let Strategy::Rows(g) = &plan.strategy {
                permuted += g.w2.as_ref().is_some_and(|w| w.perm.is_some()) as usize;
                tiled += g.w2.as_ref().is_some_and(|w| w.tiles.is_some()) as usize;
            }
            // One thread, and tiles of one row split over three.
            for threads in [1, 3] {
                threads::set_max_threads(threads);
                let what = format!("{fin:?} -> {fout:?} {isa:?} {threads} threads");
                check_streamed(&plan, &mut rng, &src, &dst, &what);
                threads::set_max_threads(0);
            }
        }
    }
    // Every row with a permute table is tiled. The tables exist on AVX2 and AVX-512 for
    // every case, on NEON (4 lanes: narrower windows) for all but the strongest
    // downsampling ones, never on the base ISA.
    let vector_isas = isas.iter().filter(|&&i| i != simd::Isa::Base).count();
    assert_eq!(tiled, permuted);
    assert!(permuted >= 5 * vector_isas, "{permuted}");
}

/// Forward linear rows whose W pass is the vector gather (`kernels/wide_taps.rs`): strong
/// downsampling (the blended columns sparse) and antialiased downsampling (many taps, the
/// counts varying) over 1-3 resampled axes, nchw rows and channels-last images (C 1..4),
/// every type, special values: the reference's bits on every ISA.
/// A forward linear problem without post-ops (either numerics) and a source for it, an
/// f32 one sprinkled with special values half the time.
fn linear_case(
    rng: &mut Rng,
    axes: Vec<AxisRule>,
    src: &Layout,
    dst: &Layout,
) -> (Problem, Vec<u8>) {
    let p = Problem {
        alg: Algorithm::Linear,
        direction: Direction::Forward,
        axes,
        src: src.clone(),
        dst: dst.clone(),
        post_ops: vec![],
        numerics: rng.pick(&[Numerics::Onednn, Numerics::Ieee]),
    };
    let mut sbuf = fill(rng, src);
    if src.dtype == DataType::F32 && rng.below(2) == 0 {
        sprinkle_specials(rng, &mut sbuf);
    }
    (p, sbuf)
}

#[test]
fn sparse_and_wide_rows_match_reference_bitwise() {
    use crate::core::plan::Strategy;
    let mut rng = Rng::new(20261129);
    let isas = crate::core::simd::available_isas();
    let types = [
        DataType::F32,
        DataType::F32,
        DataType::Bf16,
        DataType::F16,
        DataType::U8,
        DataType::S8,
    ];
    let (mut sparse, mut wide) = (0, 0);
    let mut kinds = std::collections::HashMap::new();
    for case in 0..n_cases(400) {
        let aa = rng.below(2) == 0;
        let spatial = rng.range(1, 3);
        let image = rng.below(4) == 0;
        let nc = rng.range(1, 4);
        let (mut fin, mut fout) = (vec![rng.range(1, 2), nc], vec![0, nc]);
        fout[0] = fin[0];
        let mut axes = vec![AxisRule::Identity, AxisRule::Identity];
        for a in 0..spatial {
            let last = a + 1 == spatial;
            // W (and now and then another axis) strongly downsampled; the others anyhow.
            // Plain linear rows blend all their columns up to about 16x down, and rows of
            // up to 64 outputs go to the planes kernel.
            let (i, o) = if last && !aa {
                let i = rng.range(1105, 2500);
                (i, rng.range(65, i / 17))
            } else if last {
                let (i, k) = (rng.range(20, 400), rng.range(3, 20));
                (i, rng.range(1, (i / k).max(1)))
            } else if rng.below(3) == 0 {
                let i = rng.range(1, 30);
                (i, rng.range(1, (i / 3).max(1)))
            } else {
                (rng.range(1, 12), rng.range(1, 12))
            };
            fin.push(i);
            fout.push(o);
            axes.push(if aa {
                AxisRule::Affine {
                    scale: o as f32 / i as f32 * rng.pick(&[1.0, 1.0, 0.9, 1.2]),
                    input_offset: rng.pick(&[0.5, 0.0]),
                    output_offset: rng.pick(&[-0.5, 0.0]),
                    rounding: NearestRounding::HalfUp,
                    antialias: true,
                }
            } else {
                linear_rule(&mut rng, i, o)
            });
        }
        let (sdt, ddt) = (rng.pick(&types), rng.pick(&types));
        let (src, dst) = if image {
            (
                image_layout(&mut rng, sdt, &fin),
                image_layout(&mut rng, ddt, &fout),
            )
        } else {
            (Layout::dense(sdt, &fin), Layout::dense(ddt, &fout))
        };
        let (p, sbuf) = linear_case(&mut rng, axes, &src, &dst);
        let n = dst.span_bytes().unwrap();
        // Gaps in dst stay as they were: both start alike.
        let mut slow = vec![0xA5u8; n];
        for &isa in &isas {
            let plan = Plan::with_isa(p.clone(), isa).unwrap();
            if isa == isas[0] {
                plan.execute_reference(&sbuf, &mut slow, &[]).unwrap();
                if !aa {
                    *kinds.entry(plan.kernel_name()).or_insert(0) += 1;
                }
                if let Strategy::Rows(g) = &plan.strategy {
                    sparse += g.sparse.is_some() as usize;
                    wide += (g.sparse.is_none() && g.wide.is_some()) as usize;
                }
            }
            let mut fast = vec![0xA5u8; n];
            plan.execute(&sbuf, &mut fast, &[]).unwrap();
            let mut want = slow.clone();
            if let Some(i) = nan_blind_difference(&mut fast, &mut want, ddt) {
                panic!(
                    "case {case} {isa:?} {}: at byte {i}\n{:?}",
                    plan.kernel_name(),
                    plan.problem()
                );
            }
        }
    }
    assert!(
        reduced_run() || sparse > 60 && wide > 60,
        "sparse rows {sparse}, wide rows {wide}; plain linear: {kinds:?}"
    );
}

/// Runs `p` on every ISA of `isas`, streamed or not and at a dst offset as `runs` say, and
/// checks each output against the reference's; returns on how many ISAs the plan ran its
/// rows through `lerp_rows`.
fn lerp_rows_match(
    case: usize,
    p: &Problem,
    sbuf: &[u8],
    isas: &[crate::core::simd::Isa],
    runs: &[(bool, usize)],
) -> usize {
    use crate::core::plan::Strategy;
    let (n, ddt) = (p.dst.span_bytes().unwrap(), p.dst.dtype);
    let mut slow = vec![0xA5u8; n];
    let mut raw = vec![0u8; n + 64];
    let mut fused = 0;
    for &isa in isas {
        let plan = Plan::with_isa(p.clone(), isa).unwrap();
        if isa == isas[0] {
            plan.execute_reference(sbuf, &mut slow, &[]).unwrap();
        }
        if let Strategy::Rows(g) = &plan.strategy {
            fused += g.lerp_rows(p).is_some() as usize;
        }
        for &(force, off) in runs {
            streaming::FORCE_STREAM.store(force, std::sync::atomic::Ordering::Relaxed);
            let at = (64 - raw.as_ptr() as usize % 64) % 64 + off;
            let fast = &mut raw[at..at + n];
            fast.fill(0xA5);
            plan.execute(sbuf, fast, &[]).unwrap();
            streaming::FORCE_STREAM.store(false, std::sync::atomic::Ordering::Relaxed);
            let mut want = slow.clone();
            if let Some(i) = nan_blind_difference(fast, &mut want, ddt) {
                panic!(
                    "case {case} {isa:?} {} streamed {force} offset {off}: at byte {i}\n{:?}",
                    plan.kernel_name(),
                    plan.problem()
                );
            }
        }
    }
    fused
}

/// Runs of short linear rows in one call (`lerp_rows`): 1-3 resampled axes (the row axis
/// with one or two taps a row, or identity), W upsampled or downsampled up to 2x, nchw
/// with gaps and offsets or channels-last images, six types, special values, every ISA,
/// streamed (through the batch buffer, or from registers where rows start a line) and
/// through the cache, dst aligned and not.
#[test]
fn lerp_rows_match_reference_bitwise() {
    use crate::core::simd::Isa;
    let mut rng = Rng::new(20261130);
    let isas = crate::core::simd::available_isas();
    let types = [
        DataType::F32,
        DataType::F32,
        DataType::F32,
        DataType::Bf16,
        DataType::F16,
        DataType::U8,
        DataType::S8,
        DataType::S32,
    ];
    let mut fused = 0;
    for case in 0..n_cases(400) {
        let spatial = rng.range(1, 3);
        let image = rng.below(4) == 0;
        let nc = rng.range(1, 4);
        let (mut fin, mut fout) = (vec![rng.range(1, 2), nc], vec![0, nc]);
        fout[0] = fin[0];
        let mut axes = vec![AxisRule::Identity, AxisRule::Identity];
        for a in 0..spatial {
            let (i, o) = if a + 1 == spatial {
                // Rows of 65..1023 outputs (shorter ones go to the planes kernel).
                let o = rng.range(65, if image { 300 } else { 1023 });
                (o, rng.range(o / 2 + 1, o * 2))
            } else {
                (rng.range(1, 14), rng.range(1, 14))
            };
            let (i, o) = if a + 1 == spatial { (o, i) } else { (i, o) };
            fin.push(i);
            fout.push(o);
            axes.push(match rng.below(5) {
                0 if a + 1 < spatial => {
                    *fout.last_mut().unwrap() = i;
                    AxisRule::Identity
                }
                _ => linear_rule(&mut rng, i, o),
            });
        }
        let (sdt, ddt) = (rng.pick(&types), rng.pick(&types));
        let (src, dst) = if image {
            (
                image_layout(&mut rng, sdt, &fin),
                image_layout(&mut rng, ddt, &fout),
            )
        } else {
            let gaps = |rng: &mut Rng, dt: DataType, dims: &[usize]| {
                let mut l = Layout::dense(dt, dims);
                if rng.below(2) == 0 {
                    // Rows apart by more than their length; planes too.
                    let r = dims.len();
                    let pad = rng.pick(&[1, 3, 16]);
                    for a in 0..r - 1 {
                        l.strides[a] = l.strides[a] / dims[r - 1].max(1) * (dims[r - 1] + pad);
                    }
                    l.offset = rng.below(20);
                }
                l
            };
            (gaps(&mut rng, sdt, &fin), gaps(&mut rng, ddt, &fout))
        };
        let (p, sbuf) = linear_case(&mut rng, axes, &src, &dst);
        let sz = ddt.size();
        let runs = [(false, 0), (true, 0), (true, sz), (false, 2 * sz)];
        fused += lerp_rows_match(case, &p, &sbuf, &isas, &runs);
    }
    // The base ISA has no permute tables, so no runs.
    let vector = isas.iter().filter(|&&i| i != Isa::Base).count();
    assert!(
        reduced_run() || vector == 0 || fused > 200 * vector,
        "runs of rows in one call: {fused} plans"
    );
}

/// f32 linear rows with nothing to blend (1-D, or H an identity axis) read in place
/// (`lerp_rows`, rows of 256 columns and more): blocks inside the src row, the rest and the
/// tail from the buffer, on every ISA, up and down, gaps between rows, any dst type,
/// streamed and not: the reference's bits.
#[test]
fn in_place_lerp_rows_match_reference_bitwise() {
    let mut rng = Rng::new(20261203);
    let isas = crate::core::simd::available_isas();
    let mut fused = 0;
    for case in 0..n_cases(150) {
        let (n, c) = (rng.range(1, 2), rng.range(1, 3));
        let h = if rng.below(3) == 0 {
            rng.range(1, 5)
        } else {
            0
        };
        let iw = rng.range(256, 3000);
        let ow = rng.range((iw / 3).max(65), 2 * iw);
        let (mut fin, mut fout) = (vec![n, c], vec![n, c]);
        let mut axes = vec![AxisRule::Identity, AxisRule::Identity];
        if h > 0 {
            fin.push(h);
            fout.push(h);
            axes.push(AxisRule::Identity);
        }
        fin.push(iw);
        fout.push(ow);
        axes.push(linear_rule(&mut rng, iw, ow));
        let ddt = rng.pick(&[DataType::F32, DataType::F32, DataType::Bf16, DataType::U8]);
        let gaps = |rng: &mut Rng, dt: DataType, dims: &[usize]| {
            let mut l = Layout::dense(dt, dims);
            if rng.below(2) == 0 {
                let (r, pad) = (dims.len(), rng.pick(&[1, 3, 16]));
                for a in 0..r - 1 {
                    l.strides[a] = l.strides[a] / dims[r - 1] * (dims[r - 1] + pad);
                }
                l.offset = rng.below(20);
            }
            l
        };
        let (src, dst) = (
            gaps(&mut rng, DataType::F32, &fin),
            gaps(&mut rng, ddt, &fout),
        );
        let (p, sbuf) = linear_case(&mut rng, axes, &src, &dst);
        fused += lerp_rows_match(case, &p, &sbuf, &isas, &[(false, 0), (true, 0), (false, 4)]);
    }
    let vector = isas
        .iter()
        .filter(|&&i| i != crate::core::simd::Isa::Base)
        .count();
    assert!(
        reduced_run() || vector == 0 || fused > 100 * vector,
        "runs of rows in one call: {fused} plans"
    );
}

/// u8 / s8 linear rows with dyadic weights (kernels/dyadic.rs) against the reference on
/// every ISA, streamed and not: nchw and channels-last rows of 1..8 elements a pixel, W and
/// H up by 2, 4 and 8, down by 2, unchanged, 1-D and 3-D problems, odd row lengths (the
/// partial blocks), other linear rules (some dyadic, most not), strided layouts.
#[test]
fn dyadic_rows_match_reference() {
    let mut rng = Rng::new(0xd1ad_1c00);
    let ratios: &[(usize, usize)] = &[(1, 2), (1, 4), (2, 1), (1, 1), (1, 8)];
    let mut dyadic = 0;
    // Long rows (streamed by themselves, not through a batch), channels-last and not.
    for (sd, dd, order) in [
        ([1, 3, 20, 1500], [1, 3, 40, 3000], [0, 2, 3, 1]),
        ([1, 2, 6, 2500], [1, 2, 12, 5000], [0, 1, 2, 3]),
        ([1, 4, 10, 1200], [1, 4, 5, 600], [0, 2, 3, 1]),
    ] {
        for dt in [DataType::U8, DataType::S8] {
            let src = Layout::dense_permuted(dt, &sd, &order);
            let dst = Layout::dense_permuted(dt, &dd, &order);
            let p = onednn_forward(Algorithm::Linear, &src, &dst);
            for isa in simd::available_isas() {
                let plan = Plan::with_isa(p.clone(), isa).unwrap();
                dyadic += (plan.kernel_name() == "dyadic_rows") as usize;
                let what = format!("{sd:?} -> {dd:?} {dt:?} {isa:?}");
                check_streamed(&plan, &mut rng, &src, &dst, &what);
            }
        }
    }
    for case in 0..n_cases(160) {
        let dt = rng.pick(&[DataType::U8, DataType::S8]);
        let spatial = rng.pick(&[1, 2, 2, 2, 3]);
        let (n, c) = (rng.range(1, 2), rng.range(1, 8));
        let (mut sd, mut dd) = (vec![n, c], vec![n, c]);
        for a in 0..spatial {
            let (ri, ro) = rng.pick(ratios);
            let x = if a + 1 == spatial {
                rng.range(4, 150)
            } else {
                rng.range(1, 9)
            };
            sd.push(x * ri);
            dd.push(x * ro);
        }
        if case % 7 == 6 {
            // The last axis odd-sized: no whole ratio.
            dd[spatial + 1] = sd[spatial + 1] * 2 + 1;
        }
        let (src, dst) = if case % 5 == 4 {
            (
                random_layout(&mut rng, dt, &sd, None, 1),
                random_layout(&mut rng, dt, &dd, None, 1),
            )
        } else {
            let mut order: Vec<usize> = (0..sd.len()).collect();
            if rng.below(2) == 0 {
                order.remove(1);
                order.push(1);
            }
            (
                Layout::dense_permuted(dt, &sd, &order),
                Layout::dense_permuted(dt, &dd, &order),
            )
        };
        let mut p = onednn_forward(Algorithm::Linear, &src, &dst);
        if case % 4 == 3 {
            for a in 2..sd.len() {
                p.axes[a] = linear_rule(&mut rng, sd[a], dd[a]);
            }
        }
        if rng.below(3) == 0 {
            p.numerics = Numerics::Ieee;
        }
        for isa in simd::available_isas() {
            let plan = Plan::with_isa(p.clone(), isa).unwrap();
            dyadic += (plan.kernel_name() == "dyadic_rows") as usize;
            let what = format!("case {case}: {sd:?} -> {dd:?} {dt:?} {isa:?}");
            check_streamed(&plan, &mut rng, &src, &dst, &what);
        }
    }
    let x86_vector = simd::available_isas()
        .iter()
        .filter(|&&i| cfg!(target_arch = "x86_64") && i != simd::Isa::Base)
        .count();
    assert!(
        reduced_run() || (dyadic > 40) == (x86_vector > 0),
        "{dyadic} dyadic plans"
    );
}

/// Raw nearest rows of 4-byte elements that read every other element (2x downsampling
/// along W: the AVX2 gather's shuffle path), whole tensors and with a stride-2 table
/// stopping short of the largest index, nchw f32 / s32, oneDNN's and floor rules, rows of
/// 8 to 120 outputs, with H resampled or not: the reference's bits on every ISA.
#[test]
fn stride_two_nearest_rows_match_reference() {
    use crate::core::simd::available_isas;
    let mut rng = Rng::new(0x5712);
    for case in 0..n_cases(120) {
        let wo = rng.range(8, 120);
        let wi = 2 * wo + rng.below(2);
        let (hi, ho) = match rng.below(3) {
            0 => (rng.range(1, 9), 0),
            1 => (2 * rng.range(1, 9), 1),
            _ => (rng.range(1, 9), 2),
        };
        let ho = match ho {
            0 => hi,
            1 => hi / 2,
            _ => 2 * hi,
        };
        let dt = rng.pick(&[DataType::F32, DataType::F32, DataType::S32]);
        let onednn = rng.below(2) == 0;
        let rule = |i: usize, o: usize| {
            if onednn {
                AxisRule::OnednnHalfPixel
            } else {
                AxisRule::Floor {
                    ratio: i as f32 / o as f32,
                    exact: true,
                }
            }
        };
        let c = rng.range(1, 6);
        let p = Problem {
            alg: Algorithm::Nearest,
            direction: Direction::Forward,
            axes: vec![
                AxisRule::Identity,
                AxisRule::Identity,
                if hi == ho {
                    AxisRule::Identity
                } else {
                    rule(hi, ho)
                },
                rule(wi, wo),
            ],
            src: Layout::dense(dt, &[1, c, hi, wi]),
            dst: Layout::dense(dt, &[1, c, ho, wo]),
            post_ops: vec![],
            numerics: if onednn {
                Numerics::Onednn
            } else {
                Numerics::Ieee
            },
        };
        let src = fill(&mut rng, &p.src);
        let mut slow = vec![0u8; p.dst.span_bytes().unwrap()];
        Plan::new(p.clone())
            .unwrap()
            .execute_reference(&src, &mut slow, &[])
            .unwrap();
        for isa in available_isas() {
            let plan = Plan::with_isa(p.clone(), isa).unwrap();
            let mut fast = vec![0u8; slow.len()];
            plan.execute(&src, &mut fast, &[]).unwrap();
            assert_same_bytes(&fast, &slow, case, &plan, isa);
        }
    }
}
