//! Backward kernels against the scalar reference, bit for bit, on every ISA this CPU has,
//! on the shape classes the backward fast paths take: ncdhw / nchw with short rows (the
//! plane walk), channels-last, bf16, size-1 axes, identity axes, non-integer ratios,
//! downsampling, edge lists longer than the interior's; plus determinism at 1, 2 and 3
//! threads.

use super::tests::{n_cases, reduced_run, Rng};
use super::*;

fn fill(rng: &mut Rng, l: &Layout, specials: bool) -> Vec<u8> {
    let n = l.span_bytes().unwrap();
    let sz = l.dtype.size();
    let mut b = vec![0u8; n];
    for i in 0..n / sz {
        let v = match l.dtype {
            DataType::S8 | DataType::U8 | DataType::S32 => rng.f32(-20.0, 300.0),
            _ => rng.f32(-10.0, 10.0),
        };
        // SAFETY: element `i` lies within `b` (n bytes, `sz` per element).
        unsafe { dtype::store_f32(b.as_mut_ptr().add(i * sz), l.dtype, v, Numerics::Ieee) };
    }
    if specials && matches!(l.dtype, DataType::F32 | DataType::Bf16) && n > 0 {
        for _ in 0..rng.range(1, 12) {
            let v = rng.pick(&[
                -0.0f32,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::from_bits(0xFFC0_0000),
                1e-40,
            ]);
            let i = rng.below(n / sz);
            // SAFETY: element `i` lies within `b`.
            unsafe { dtype::store_f32(b.as_mut_ptr().add(i * sz), l.dtype, v, Numerics::Ieee) };
        }
    }
    b
}

/// Byte offset of the first element where `a` and `b` differ, bit for bit except that any
/// two NaNs are equal: which NaN an addition of two NaNs returns, and the sign of a NaN
/// made by `inf * 0`, depend on the CPU (x86's default NaN is negative, Arm's positive)
/// and on the operand order LLVM picks for a commutative add; Rust does not define them.
fn first_difference(a: &[u8], b: &[u8], dt: DataType) -> Option<usize> {
    let sz = dt.size();
    let float = matches!(
        dt,
        DataType::F32 | DataType::Bf16 | DataType::F16 | DataType::F64
    );
    (0..a.len() / sz).map(|e| e * sz).find(|&o| {
        let (x, y) = (&a[o..o + sz], &b[o..o + sz]);
        // SAFETY: both slices hold one element of `dt` at offset `o`.
        x != y
            && !(float
                && unsafe {
                    dtype::load_f64(x.as_ptr(), dt).is_nan()
                        && dtype::load_f64(y.as_ptr(), dt).is_nan()
                })
    })
}

/// The axis rule of `flavour` (0..5: oneDNN, oneDNN's JIT backward, affine with or without
/// antialias, PyTorch linear (`corners`: sometimes align_corners), floor) for `i -> o`.
fn random_rule(rng: &mut Rng, flavour: usize, i: usize, o: usize, corners: bool) -> AxisRule {
    match flavour {
        0 => AxisRule::OnednnHalfPixel,
        1 => AxisRule::OnednnHalfPixelJitBwd,
        2 => AxisRule::Affine {
            scale: o as f32 / i as f32 * rng.pick(&[1.0, 0.93, 1.17]),
            input_offset: rng.pick(&[0.5, 0.0]),
            output_offset: rng.pick(&[-0.5, 0.0]),
            rounding: NearestRounding::HalfUp,
            antialias: rng.below(3) == 0,
        },
        3 => AxisRule::TorchLinear {
            scale: axis::torch_linear_scale(i, o, rng.below(2) == 0, None),
            align_corners: corners && rng.below(3) == 0,
        },
        _ => AxisRule::Floor {
            ratio: i as f32 / o as f32,
            exact: rng.below(2) == 0,
        },
    }
}

/// A random backward problem of the shape classes above; `tiny`: a few elements per image
/// and many channels (the `bwd_tiny` class), in any layout including blocked ones.
fn random_bwd(rng: &mut Rng, tiny: bool) -> Problem {
    let spatial = rng.range(1, 3);
    let rank = 2 + spatial;
    let alg = rng.pick(&[Algorithm::Nearest, Algorithm::Linear]);
    let flavour = rng.below(5);
    let c = if tiny {
        rng.pick(&[8, 12, 16, 17, 24, 32, 48, 64, 96, 100, 128])
    } else {
        rng.pick(&[1, 2, 3, 16, 19])
    };
    let (mut fin, mut fout) = (vec![rng.range(1, if tiny { 3 } else { 2 }), c], vec![]);
    fout.extend_from_slice(&fin);
    let mut axes = vec![AxisRule::Identity; 2];
    // Tiny images, sometimes larger ones (element groups, the non-tiny limits).
    let tiny_cap = if tiny && spatial <= 2 && rng.below(3) == 0 {
        40
    } else {
        4
    };
    for k in 0..spatial {
        // The last axes short (plane walk), earlier ones anything up to 20.
        let cap = match (tiny, k + 2 >= spatial) {
            (true, _) => tiny_cap,
            (false, true) => 24,
            (false, false) => 12,
        };
        let i = rng.range(1, cap);
        let o = match rng.below(6) {
            0 => i,
            1 => i * rng.range(2, 3),
            2 => (i / rng.range(2, 3)).max(1),
            3 => 1,
            _ => rng.range(1, 2 * cap),
        };
        let rule = if i == o && rng.below(2) == 0 {
            AxisRule::Identity
        } else {
            random_rule(rng, flavour, i, o, false)
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
    let sdt = rng.pick(&[DataType::F32, DataType::F32, DataType::F32, DataType::Bf16]);
    let ddt = rng.pick(&[DataType::F32, DataType::F32, DataType::Bf16, DataType::F16]);
    let last = rng.below(3) == 0;
    let block = if tiny { rng.pick(&[1, 1, 8, 16]) } else { 1 };
    let shuffled = tiny && rng.below(4) == 0;
    let make = |dt: DataType, dims: &[usize]| {
        if block > 1 {
            super::tests::lanes_layout(dt, dims, block)
        } else if shuffled {
            // N outermost, the rest in a fixed odd order (channels in the middle).
            let order: Vec<usize> = std::iter::once(0)
                .chain((2..rank).rev())
                .chain([1])
                .rev()
                .collect();
            Layout::dense_permuted(dt, dims, &order)
        } else if last {
            let order: Vec<usize> = std::iter::once(0).chain(2..rank).chain([1]).collect();
            Layout::dense_permuted(dt, dims, &order)
        } else {
            Layout::dense(dt, dims)
        }
    };
    let mut src = make(sdt, &fout);
    if rng.below(5) == 0 {
        src.offset = rng.below(4);
    }
    Problem {
        alg,
        direction: Direction::Backward,
        axes,
        src,
        dst: make(ddt, &fin),
        post_ops: vec![],
        numerics,
    }
}

/// Runs `p` on random diff_dst (special values half the time) into a random diff_src on
/// every ISA of `isas`, panicking at the first element that differs from the reference;
/// returns the kernel the plan chose.
fn matches_reference_on(
    rng: &mut Rng,
    case: usize,
    p: &Problem,
    isas: &[simd::Isa],
) -> &'static str {
    let specials = rng.below(2) == 0;
    let s = fill(rng, &p.src, specials);
    let init = fill(rng, &p.dst, false);
    let mut slow = init.clone();
    let mut kernel = "";
    for &isa in isas {
        let plan = Plan::with_isa(p.clone(), isa).unwrap();
        if isa == isas[0] {
            plan.execute_reference(&s, &mut slow, &[]).unwrap();
            kernel = plan.kernel_name();
        }
        let mut fast = init.clone();
        plan.execute(&s, &mut fast, &[]).unwrap();
        if let Some(e) = first_difference(&fast, &slow, p.dst.dtype) {
            let sz = p.dst.dtype.size();
            panic!(
                "case {case} ({}, {isa:?}): byte {e}: {:02x?} against {:02x?}\n{p:?}",
                plan.kernel_name(),
                &fast[e..e + sz],
                &slow[e..e + sz]
            );
        }
    }
    kernel
}

/// `plan` (of `p`) reading a diff_dst and writing a diff_src one byte off their alignment
/// (f32 sums then go through a row buffer): the reference's bits.
fn matches_reference_misaligned(
    rng: &mut Rng,
    case: usize,
    p: &Problem,
    plan: &Plan,
    isa: simd::Isa,
) {
    let s = fill(rng, &p.src, false);
    let mut slow = fill(rng, &p.dst, false);
    let (mut s1, mut f1) = (vec![0u8; s.len() + 1], vec![0u8; slow.len() + 1]);
    s1[1..].copy_from_slice(&s);
    plan.execute(&s1[1..], &mut f1[1..], &[]).unwrap();
    plan.execute_reference(&s, &mut slow, &[]).unwrap();
    assert!(
        f1[1..] == slow[..],
        "case {case} misaligned ({isa:?})\n{p:?}"
    );
}

#[test]
fn backward_kernels_match_reference_bitwise_on_every_isa() {
    let mut rng = Rng::new(0xB0D);
    let isas = simd::available_isas();
    let mut kinds = std::collections::HashMap::new();
    for case in 0..n_cases(1500) {
        let p = random_bwd(&mut rng, false);
        let specials = rng.below(2) == 0;
        let s = fill(&mut rng, &p.src, specials);
        let init = fill(&mut rng, &p.dst, false);
        let mut slow = init.clone();
        let misaligned = rng.below(4) == 0;
        for &isa in &isas {
            let plan = Plan::with_isa(p.clone(), isa)
                .unwrap_or_else(|e| panic!("case {case}: {e}\n{p:?}"));
            if isa == isas[0] {
                plan.execute_reference(&s, &mut slow, &[]).unwrap();
            }
            if Some(&isa) == isas.last() {
                *kinds.entry(plan.kernel_name()).or_insert(0) += 1;
            }
            if isa == isas[0] && same_without_row_table(&mut rng, &p, isa) {
                *kinds.entry("row table").or_insert(0) += 1;
            }
            let mut fast = init.clone();
            if misaligned {
                let (mut s1, mut f1) = (vec![0u8; s.len() + 1], vec![0u8; fast.len() + 1]);
                s1[1..].copy_from_slice(&s);
                f1[1..].copy_from_slice(&fast);
                plan.execute(&s1[1..], &mut f1[1..], &[]).unwrap();
                fast.copy_from_slice(&f1[1..]);
            } else {
                plan.execute(&s, &mut fast, &[]).unwrap();
            }
            if let Some(e) = first_difference(&fast, &slow, p.dst.dtype) {
                let (i, sz) = (e, p.dst.dtype.size());
                panic!(
                    "case {case} ({}, {isa:?}, misaligned {misaligned}): first differing element at byte {i}: \
                     {:02x?} against the reference's {:02x?}\n{p:?}",
                    plan.kernel_name(),
                    &fast[e..e + sz],
                    &slow[e..e + sz]
                );
            }
        }
    }
    for (k, n) in [
        ("bwd_planes", 150),
        ("bwd_stream_lanes", 100),
        ("row table", 100),
    ] {
        assert!(
            reduced_run() || kinds.get(k).copied().unwrap_or(0) > n,
            "kernel {k} barely exercised: {kinds:?}"
        );
    }
}

/// Tiny planes with many channels (`bwd_tiny`: lanes across channels, gathered or transposed
/// when strided) in plain, channels-last, blocked and shuffled layouts, every axis rule, f32 /
/// bf16 / f16 diff_src, lane tails: the reference's bits on every ISA.
#[test]
fn tiny_planes_match_reference_on_every_isa() {
    let mut rng = Rng::new(0x71);
    let isas = simd::available_isas();
    let mut kinds = std::collections::HashMap::new();
    let mut wide = 0;
    for case in 0..n_cases(800) {
        let p = random_bwd(&mut rng, true);
        let kernel = matches_reference_on(&mut rng, case, &p, &isas);
        *kinds.entry(kernel).or_insert(0) += 1;
        // Chunks of 32 or 64 contiguous lanes.
        if let plan::Strategy::BwdTiny(g) = &Plan::new(p.clone()).unwrap().strategy {
            wide += usize::from(g.v >= 32);
        }
    }
    let tiny = ["bwd_tiny", "bwd_tiny_transposed"].map(|k| kinds.get(k).copied().unwrap_or(0));
    assert!(
        reduced_run() || tiny[0] + tiny[1] > 400 && tiny[0] > 100,
        "bwd_tiny barely exercised: {kinds:?}"
    );
    assert!(
        reduced_run() || wide > 20,
        "wide bwd_tiny chunks in {wide} of 800"
    );
}

/// Channels-first images past the gathers' size, upsampled (diff_dst the larger) at ratios
/// without a fixed-shape walk (`bwd_tiny_transposed`: chunks of 8 channels transposed, or of
/// 16 where the channels make whole ones; f32 and bf16 diff_dst, channel tails, 2-D and
/// 3-D, up- and downsampling, every rule, diff_dst offsets), beside the other walks: the
/// reference's bits on every ISA.
#[test]
fn transposed_chunks_match_reference_on_every_isa() {
    let mut rng = Rng::new(0x7A25);
    let isas = simd::available_isas();
    let mut kinds = std::collections::BTreeMap::new();
    for case in 0..n_cases(160) {
        let spatial = rng.range(2, 3);
        let c = rng.pick(&[8, 9, 16, 20, 24, 32]);
        let mut fin = vec![rng.range(1, 2), c];
        let mut fout = fin.clone();
        let mut axes = vec![AxisRule::Identity; 2];
        let flavour = rng.below(5);
        for _ in 0..spatial {
            let i = if spatial == 2 {
                rng.range(6, 40)
            } else {
                rng.range(3, 9)
            };
            let o = match rng.below(6) {
                0 => i + rng.range(1, i),
                1 => i * 5 / 2,
                2 => i * rng.range(2, 3),
                // Downsampling, mild and to a third: linear goes transposed whatever the ratio.
                3 => rng.range(i * 3 / 4, i).max(1),
                4 => rng.range(i / 3, i).max(1),
                _ => rng.range(i, 3 * i),
            };
            fin.push(i);
            fout.push(o);
            axes.push(random_rule(&mut rng, flavour, i, o, true));
        }
        let alg = rng.pick(&[Algorithm::Nearest, Algorithm::Linear, Algorithm::Linear]);
        let p = dense_bwd(&mut rng, alg, axes, &fin, &fout, flavour);
        matches_reference_on(&mut rng, case, &p, &isas);
        for &isa in &isas {
            let name = Plan::with_isa(p.clone(), isa).unwrap().kernel_name();
            *kinds.entry((isa, name)).or_insert(0) += 1;
        }
    }
    for isa in isas {
        if matches!(isa, simd::Isa::Avx2 | simd::Isa::Avx512) {
            let n = kinds
                .get(&(isa, "bwd_tiny_transposed"))
                .copied()
                .unwrap_or(0);
            assert!(
                reduced_run() || n > 50,
                "bwd_tiny_transposed took {n} of 160: {kinds:?}"
            );
        }
    }
}

/// 3-D channels-first images whose transposed chunk outgrows 400 KiB (`bwd_tiny::
/// max_transposed`: 3-D images go transposed up to `bwd_tiny::MAX_IMAGE`, linear ones up to
/// `MAX_IMAGE_3D`; the first case is one of those): the reference's bits on every ISA, and
/// the transposed walk taken for most of those that fit on x86 vector ISAs.
#[test]
fn large_3d_images_go_transposed() {
    let mut rng = Rng::new(0x3D7A);
    let isas = simd::available_isas();
    // diff_dst elements a chunk of 8 f32 lanes may span at 400 KiB; images up to 2^16.
    let old = (400 << 10) / 32;
    let cap = 1 << 16;
    let (mut fits, mut hits) = (0, std::collections::BTreeMap::new());
    for case in 0..n_cases(12) {
        let c = rng.pick(&[8, 9, 16, 32]);
        let mut fin = vec![1, c];
        let mut fout = fin.clone();
        let mut axes = vec![AxisRule::Identity; 2];
        let flavour = rng.below(5);
        for a in 0..3 {
            let i = rng.range(8, 14);
            let o = match rng.below(3) {
                _ if case == 0 => [45, 50, 41][a],
                0 => 2 * i,
                1 => i * 5 / 2,
                _ => rng.range(i + 1, 3 * i),
            };
            fin.push(i);
            fout.push(o);
            axes.push(random_rule(&mut rng, flavour, i, o, true));
        }
        let dd: usize = fout[2..].iter().product();
        let alg = match case {
            0 => Algorithm::Linear,
            _ => rng.pick(&[Algorithm::Nearest, Algorithm::Linear, Algorithm::Linear]),
        };
        if dd > old && (dd <= cap || (alg == Algorithm::Linear && dd <= 2 * cap)) {
            fits += 1;
        }
        let p = dense_bwd(&mut rng, alg, axes, &fin, &fout, flavour);
        matches_reference_on(&mut rng, case, &p, &isas);
        for &isa in &isas {
            let name = Plan::with_isa(p.clone(), isa).unwrap().kernel_name();
            if name == "bwd_tiny_transposed" && dd > old {
                *hits.entry(isa).or_insert(0) += 1;
            }
        }
    }
    for isa in isas {
        if matches!(isa, simd::Isa::Avx2 | simd::Isa::Avx512) {
            let n = hits.get(&isa).copied().unwrap_or(0);
            assert!(
                reduced_run() || 2 * n >= fits,
                "{isa:?}: transposed {n} of {fits} large 3-D images that fit"
            );
        }
    }
}

/// The benchmark's backward shapes (scaled down) at 1, 2 and 3 threads: same bytes.
#[test]
fn backward_kernels_are_deterministic_across_threads() {
    let mut rng = Rng::new(7);
    let shapes: [(&[usize], &[usize], bool); 5] = [
        (&[2, 16, 8, 8, 8], &[2, 16, 16, 16, 16], false),
        (&[2, 5, 7, 9, 6], &[2, 5, 13, 4, 17], false),
        (&[2, 24, 20, 25], &[2, 24, 40, 50], true),
        (&[3, 8, 12, 12], &[3, 8, 24, 24], false),
        (&[1, 48, 20, 32], &[1, 48, 40, 64], true),
    ];
    for (fin, fout, last) in shapes {
        for alg in [Algorithm::Nearest, Algorithm::Linear] {
            for dt in [DataType::F32, DataType::Bf16] {
                let rank = fin.len();
                let make = |dims: &[usize]| {
                    if last {
                        let order: Vec<usize> =
                            std::iter::once(0).chain(2..rank).chain([1]).collect();
                        Layout::dense_permuted(dt, dims, &order)
                    } else {
                        Layout::dense(dt, dims)
                    }
                };
                let mut axes = vec![AxisRule::Identity; 2];
                axes.extend((2..rank).map(|_| AxisRule::OnednnHalfPixel));
                let p = Problem {
                    alg,
                    direction: Direction::Backward,
                    axes,
                    src: make(fout),
                    dst: make(fin),
                    post_ops: vec![],
                    numerics: Numerics::Onednn,
                };
                let plan = Plan::new(p.clone()).unwrap();
                let s = fill(&mut rng, &p.src, false);
                let mut want = vec![0u8; p.dst.span_bytes().unwrap()];
                plan.execute_reference(&s, &mut want, &[]).unwrap();
                for threads in [1, 2, 3] {
                    threads::set_max_threads(threads);
                    let mut got = vec![0u8; want.len()];
                    plan.execute(&s, &mut got, &[]).unwrap();
                    assert!(
                        got == want,
                        "{threads} threads ({}) {p:?}",
                        plan.kernel_name()
                    );
                }
                threads::set_max_threads(0);
            }
        }
    }
}

/// A backward problem on one image of `c` channels-last channels (nwc / nhwc / ndhwc),
/// forward spatial `fin -> fout` with oneDNN's half-pixel rule; diff_dst of type `sdt`,
/// diff_src of type `ddt`.
fn channels_last_bwd(
    alg: Algorithm,
    c: usize,
    fin: &[usize],
    fout: &[usize],
    sdt: DataType,
    ddt: DataType,
) -> Problem {
    let rank = 2 + fin.len();
    let dims = |sp: &[usize]| [&[1, c][..], sp].concat();
    let order: Vec<usize> = std::iter::once(0).chain(2..rank).chain([1]).collect();
    let mut axes = vec![AxisRule::Identity; 2];
    axes.extend(fin.iter().map(|_| AxisRule::OnednnHalfPixel));
    Problem {
        alg,
        direction: Direction::Backward,
        axes,
        src: Layout::dense_permuted(sdt, &dims(fout), &order),
        dst: Layout::dense_permuted(ddt, &dims(fin), &order),
        post_ops: vec![],
        numerics: Numerics::Onednn,
    }
}

/// Channels-last rows longer than one laned run (the walk splits them into chunks of
/// pixels; images past `bwd_tiny`'s): nwc / nhwc, narrow and wide pixels, f32 and bf16 diff_src, up and down ratios,
/// at 1 and 2 threads: the reference's bits on every ISA.
#[test]
fn long_laned_rows_split_into_chunks_match_reference() {
    let mut rng = Rng::new(0x10C);
    let isas = simd::available_isas();
    let mut streamed = 0;
    let cases: [(usize, &[usize], &[usize]); 6] = [
        (3, &[20011], &[60033]),
        (5, &[30000], &[9999]),
        (8, &[40000], &[70001]),
        (80, &[3001], &[2000]),
        (3, &[2, 9000], &[3, 18000]),
        (16, &[3, 23000], &[5, 14003]),
    ];
    for (case, (c, fin, fout)) in cases.iter().enumerate() {
        for alg in [Algorithm::Nearest, Algorithm::Linear] {
            let ddt = if case % 2 == 0 {
                DataType::Bf16
            } else {
                DataType::F32
            };
            let p = channels_last_bwd(alg, *c, fin, fout, DataType::F32, ddt);
            let s = fill(&mut rng, &p.src, case % 3 == 0);
            let mut want = vec![0u8; p.dst.span_bytes().unwrap()];
            Plan::new(p.clone())
                .unwrap()
                .execute_reference(&s, &mut want, &[])
                .unwrap();
            for &isa in &isas {
                let plan = Plan::with_isa(p.clone(), isa).unwrap();
                streamed += (plan.kernel_name() == "bwd_stream_lanes") as usize;
                for threads in [1, 2] {
                    threads::set_max_threads(threads);
                    let mut got = vec![0u8; want.len()];
                    plan.execute(&s, &mut got, &[]).unwrap();
                    threads::set_max_threads(0);
                    if let Some(e) = first_difference(&got, &want, ddt) {
                        panic!("case {case} {alg:?} {isa:?} {threads} threads: byte {e}\n{p:?}");
                    }
                }
            }
        }
    }
    assert_eq!(
        streamed,
        12 * isas.len(),
        "every case takes the chunked walk"
    );
}

/// Channels-last f32 images past the re-read limit in one masked chunk of `bwd_tiny` (17..64
/// lanes; 1-D, and 2-D where AVX-512 takes them), nearest and linear, up and down ratios,
/// f32 / bf16 diff_src: the reference's bits on every ISA.
#[test]
fn large_images_in_one_masked_chunk_match_reference_on_every_isa() {
    let mut rng = Rng::new(0x3A5C);
    let isas = simd::available_isas();
    let mut tiny = std::collections::BTreeMap::new();
    for case in 0..n_cases(24) {
        let c = rng.range(17, 64);
        // diff_dst images past 256 KiB (the re-read limit), within the term table.
        let n_dd = rng.range(65536 / c + 64, 16000);
        let (fin, fout) = if case % 2 == 0 {
            let n_src = rng.range(n_dd / 2, n_dd * 2);
            (vec![n_src], vec![n_dd])
        } else {
            let h = rng.range(40, 100);
            let w = n_dd / h;
            (
                vec![rng.range(h / 2, h * 2), rng.range(w / 2, w * 2)],
                vec![h, w],
            )
        };
        let alg = rng.pick(&[Algorithm::Nearest, Algorithm::Linear]);
        let ddt = rng.pick(&[DataType::F32, DataType::Bf16]);
        let p = channels_last_bwd(alg, c, &fin, &fout, DataType::F32, ddt);
        for &isa in &isas {
            let name = Plan::with_isa(p.clone(), isa).unwrap().kernel_name();
            *tiny.entry((fin.len(), isa)).or_insert(0) += usize::from(name == "bwd_tiny");
        }
        matches_reference_on(&mut rng, case, &p, &isas);
    }
    for (&(rank, isa), &n) in &tiny {
        let taken = isa == simd::Isa::Avx512 || (rank == 1 && isa == simd::Isa::Avx2);
        assert!(
            reduced_run() || !taken || n >= 8,
            "{rank}-D images on {isa:?}: bwd_tiny in {n} of 12"
        );
    }
}

/// The plane walk on wide diff_src planes (rows of 33..64 elements, up to its table size;
/// diff_dst rows up to 64):
/// nchw / ncdhw, nearest and linear, forward down- and upsampling, f32 and bf16, the
/// reference's bits on every ISA.
#[test]
fn wide_planes_match_reference_on_every_isa() {
    let mut rng = Rng::new(0x51DE);
    let isas = simd::available_isas();
    let (mut planes, mut wide_dd) = (0, 0);
    for case in 0..n_cases(150) {
        let alg = rng.pick(&[Algorithm::Nearest, Algorithm::Linear]);
        let depth = rng.below(4) == 0;
        let iw = rng.range(33, 64);
        // diff_dst rows up to 64 (nearest: beyond 20 only without a fixed-shape stretch).
        let ow = rng.range(1, 64);
        let ih = rng.range(1, 64);
        let oh = rng.range(1, 2 * ih);
        let mut fin = vec![rng.range(1, 2), rng.range(1, 5)];
        let mut fout = fin.clone();
        if depth {
            let i = rng.range(1, 4);
            fin.push(i);
            fout.push(rng.range(1, 6));
        }
        fin.extend([ih, iw]);
        fout.extend([oh, ow]);
        let mut axes = vec![AxisRule::Identity; 2];
        axes.extend((2..fin.len()).map(|_| AxisRule::OnednnHalfPixel));
        let sdt = rng.pick(&[DataType::F32, DataType::F32, DataType::Bf16]);
        let ddt = rng.pick(&[DataType::F32, DataType::F32, DataType::Bf16]);
        let p = Problem {
            alg,
            direction: Direction::Backward,
            axes,
            src: Layout::dense(sdt, &fout),
            dst: Layout::dense(ddt, &fin),
            post_ops: vec![],
            numerics: Numerics::Onednn,
        };
        let kernel = matches_reference_on(&mut rng, case, &p, &isas);
        // (Forward downsampling with each input one tap: the scatter.)
        planes += usize::from(kernel == "bwd_planes" || kernel == "bwd_scatter");
        wide_dd += usize::from(kernel == "bwd_planes" && ow > 40);
    }
    assert!(
        reduced_run() || planes > 75,
        "bwd_planes took {planes} of 150"
    );
    assert!(
        reduced_run() || wide_dd > 20,
        "bwd_planes took {wide_dd} with diff_dst rows over 40"
    );
}

/// bf16 channels-last with lanes too wide for a contiguous `bwd_tiny` chunk: the batch axis
/// is an identity axis too, but its lanes lie a whole image of channels apart, so a
/// converted chunk would span the tensor (it did: 30x slower than PyTorch). The rows walk
/// it instead, with the reference's bits.
#[test]
fn far_apart_bf16_lanes_are_not_converted_per_chunk() {
    let mut rng = Rng::new(0xBF);
    let isas = simd::available_isas();
    let order = [0, 2, 3, 1];
    let p = Problem {
        alg: Algorithm::Linear,
        direction: Direction::Backward,
        axes: vec![
            AxisRule::Identity,
            AxisRule::Identity,
            AxisRule::OnednnHalfPixel,
            AxisRule::OnednnHalfPixel,
        ],
        src: Layout::dense_permuted(DataType::Bf16, &[8, 128, 26, 9], &order),
        dst: Layout::dense_permuted(DataType::Bf16, &[8, 128, 9, 27], &order),
        post_ops: vec![],
        numerics: Numerics::Onednn,
    };
    let kernel = matches_reference_on(&mut rng, 0, &p, &isas);
    assert_ne!(kernel, "bwd_tiny", "{p:?}");
}

/// The same for f32: lanes over the batch of an nhwc tensor whose channels are too many
/// for `bwd_tiny` would gather a cache line per lane and value (11 ms, 11x PyTorch).
#[test]
fn far_apart_f32_lanes_are_not_gathered() {
    let mut rng = Rng::new(0xF3);
    let isas = simd::available_isas();
    let p = Problem {
        alg: Algorithm::Linear,
        direction: Direction::Backward,
        axes: vec![
            AxisRule::Identity,
            AxisRule::Identity,
            AxisRule::OnednnHalfPixel,
            AxisRule::OnednnHalfPixel,
            AxisRule::OnednnHalfPixel,
        ],
        src: Layout::dense_permuted(DataType::F32, &[8, 256, 11, 12, 2], &[0, 2, 3, 4, 1]),
        dst: Layout::dense_permuted(DataType::F32, &[8, 256, 6, 6, 6], &[0, 2, 3, 4, 1]),
        post_ops: vec![],
        numerics: Numerics::Onednn,
    };
    let kernel = matches_reference_on(&mut rng, 0, &p, &isas);
    assert_ne!(kernel, "bwd_tiny", "{p:?}");
}

/// A forward `i -> o` rule of the scatter tests: oneDNN's, PyTorch's or an affine one.
fn scatter_rule(rng: &mut Rng, i: usize, o: usize) -> AxisRule {
    match rng.below(3) {
        0 => AxisRule::OnednnHalfPixel,
        1 => AxisRule::TorchLinear {
            scale: i as f32 / o as f32,
            align_corners: rng.below(2) == 0,
        },
        _ => AxisRule::Affine {
            scale: i as f32 / o as f32,
            input_offset: rng.f32(-0.5, 0.5),
            output_offset: rng.f32(-0.5, 0.5),
            rounding: crate::core::NearestRounding::HalfUp,
            antialias: false,
        },
    }
}

/// Backward of forward downsampling over small planes (`bwd_scatter`): nchw / ncdhw /
/// ncw, nearest and linear, oneDNN, PyTorch and affine rules (the plan takes only problems
/// whose elements see their terms in the reference's order), ratios around 1 to 4, diff_dst
/// rows with gaps, f32 / bf16 / f16 either side: the reference's bits on every ISA.
#[test]
fn scattered_planes_match_reference_on_every_isa() {
    let mut rng = Rng::new(0x5CA7);
    let isas = simd::available_isas();
    let mut hits = 0;
    for case in 0..n_cases(400) {
        let alg = rng.pick(&[Algorithm::Nearest, Algorithm::Linear]);
        let m = rng.range(1, 3);
        let lead = vec![rng.range(1, 3), rng.range(1, 20)];
        let (mut fin, mut fout) = (lead.clone(), lead.clone());
        let mut axes = vec![AxisRule::Identity; 2];
        for _ in 0..m {
            let i = rng.range(2, if m == 1 { 64 } else { 16 });
            let o = (i as f32 / rng.f32(1.0, 4.0)).round().max(1.0) as usize;
            fin.push(i);
            fout.push(o);
            axes.push(scatter_rule(&mut rng, i, o));
        }
        let types = [DataType::F32, DataType::F32, DataType::Bf16, DataType::F16];
        let mut src = Layout::dense(rng.pick(&types), &fout);
        if rng.below(4) == 0 {
            // Gaps after diff_dst rows and planes.
            let r = fout.len();
            for a in (0..r - 1).rev() {
                src.strides[a] = src.strides[a + 1] * fout[a + 1] + rng.range(1, 3);
            }
        }
        let mut dst = Layout::dense(rng.pick(&types), &fin);
        if rng.below(4) == 0 {
            // Gaps between diff_src planes (the batches need them back to back).
            dst.strides[1] = dst.strides[2] * fin[2] + rng.range(1, 3);
            dst.strides[0] = dst.strides[1] * fin[1];
        }
        let p = Problem {
            alg,
            direction: Direction::Backward,
            axes,
            src,
            dst,
            post_ops: vec![],
            numerics: Numerics::Onednn,
        };
        hits += usize::from(matches_reference_on(&mut rng, case, &p, &isas) == "bwd_scatter");
    }
    assert!(
        reduced_run() || hits > 150,
        "bwd_scatter took {hits} of 400"
    );
}

/// `bwd_scatter` over channels-last planes of 2 to 7 lanes (nwc / nhwc / ndhwc: each term
/// adds a pixel's lanes side by side), nearest and linear, the three rule families, ratios
/// around 1 to 4, planes up to 3 times the planar limit, diff_dst rows with gaps, f32 /
/// bf16 / f16 either side: the reference's bits on every ISA, at 1 and 2 threads.
#[test]
fn channels_last_scattered_planes_match_reference_on_every_isa() {
    let mut rng = Rng::new(0x5CA8);
    let isas = simd::available_isas();
    let mut hits = 0;
    for case in 0..n_cases(300) {
        let alg = rng.pick(&[Algorithm::Nearest, Algorithm::Linear]);
        let m = rng.range(1, 3);
        let c = rng.range(2, 7);
        let (mut fin, mut fout) = (vec![rng.range(1, 3), c], vec![0, c]);
        fout[0] = fin[0];
        let mut axes = vec![AxisRule::Identity; 2];
        let big = rng.below(8) == 0;
        for _ in 0..m {
            let hi = match (m, big) {
                (1, _) => 300,
                (2, true) => 250,
                (2, false) => 40,
                _ => 24,
            };
            let i = rng.range(2, hi);
            let o = (i as f32 / rng.f32(1.0, 4.0)).round().max(1.0) as usize;
            fin.push(i);
            fout.push(o);
            axes.push(scatter_rule(&mut rng, i, o));
        }
        let rank = fin.len();
        let order: Vec<usize> = std::iter::once(0).chain(2..rank).chain([1]).collect();
        let types = [DataType::F32, DataType::F32, DataType::Bf16, DataType::F16];
        let mut src = Layout::dense_permuted(rng.pick(&types), &fout, &order);
        if m > 1 && rng.below(4) == 0 {
            // Gaps after diff_dst rows.
            let a = rank - 2;
            src.strides[a] = src.strides[a + 1] * fout[a + 1] + rng.range(1, 3);
            for b in (2..a).rev() {
                src.strides[b] = src.strides[b + 1] * fout[b + 1];
            }
            src.strides[0] = src.strides[2] * fout[2];
        }
        let dst = Layout::dense_permuted(rng.pick(&types), &fin, &order);
        let p = Problem {
            alg,
            direction: Direction::Backward,
            axes,
            src,
            dst,
            post_ops: vec![],
            numerics: Numerics::Onednn,
        };
        let kernel = matches_reference_on(&mut rng, case, &p, &isas);
        hits += usize::from(kernel == "bwd_scatter");
        if kernel == "bwd_scatter" && case % 4 == 0 {
            // Two threads: the planes split between them.
            let s = fill(&mut rng, &p.src, false);
            let plan = Plan::new(p.clone()).unwrap();
            let mut want = vec![0u8; p.dst.span_bytes().unwrap()];
            plan.execute_reference(&s, &mut want, &[]).unwrap();
            threads::set_max_threads(2);
            let mut got = vec![0u8; want.len()];
            plan.execute(&s, &mut got, &[]).unwrap();
            threads::set_max_threads(0);
            assert!(got == want, "case {case}, 2 threads: {p:?}");
        }
    }
    assert!(
        reduced_run() || hits > 120,
        "bwd_scatter took {hits} of 300"
    );
}

/// Laned backward rows whose pixels end in a partial vector (lanes not a multiple of 8):
/// the last 1..7 lanes are summed in the same walk as the block before them (8, 16, 32 or
/// 64 lanes), nhwc and ndhwc, nearest and linear, up and down, f32 and bf16: the
/// reference's bits on every ISA.
#[test]
fn fused_lane_tails_match_reference_on_every_isa() {
    let mut rng = Rng::new(0x7A11);
    let isas = simd::available_isas();
    let mut streamed = 0;
    let shapes: [(&[usize], &[usize]); 3] = [
        (&[45, 50], &[90, 100]),
        (&[60, 41], &[25, 17]),
        (&[10, 12, 9], &[20, 7, 18]),
    ];
    for (case, c) in [9, 13, 17, 23, 25, 39, 47, 49, 71, 97, 130]
        .into_iter()
        .enumerate()
    {
        let (fin, fout) = shapes[case % 3];
        for alg in [Algorithm::Nearest, Algorithm::Linear] {
            let sdt = rng.pick(&[DataType::F32, DataType::Bf16]);
            let ddt = rng.pick(&[DataType::F32, DataType::Bf16]);
            let p = channels_last_bwd(alg, c, fin, fout, sdt, ddt);
            let kernel = matches_reference_on(&mut rng, case, &p, &isas);
            streamed += usize::from(kernel == "bwd_stream_lanes");
        }
    }
    assert!(streamed >= 18, "laned rows took {streamed} of 22");
}

/// A dense backward problem over `axes` (diff_dst `fout`, diff_src `fin`): diff_src f32,
/// bf16 or f16, diff_dst f32 or bf16 with an offset one time in four, oneDNN numerics for
/// the oneDNN rule flavours of [`random_rule`].
fn dense_bwd(
    rng: &mut Rng,
    alg: Algorithm,
    axes: Vec<AxisRule>,
    fin: &[usize],
    fout: &[usize],
    flavour: usize,
) -> Problem {
    let ddt = rng.pick(&[DataType::F32, DataType::F32, DataType::Bf16, DataType::F16]);
    let sdt = rng.pick(&[DataType::F32, DataType::F32, DataType::Bf16]);
    let mut src = Layout::dense(sdt, fout);
    if rng.below(4) == 0 {
        src.offset = rng.below(40);
    }
    Problem {
        alg,
        direction: Direction::Backward,
        axes,
        src,
        dst: Layout::dense(ddt, fin),
        post_ops: vec![],
        numerics: if flavour < 2 {
            Numerics::Onednn
        } else {
            Numerics::Ieee
        },
    }
}

/// Rows beyond the plane walk (nchw-like, diff_dst f32 or bf16): the permuted-window walk on AVX-512
/// and AVX2 (`bwd_stream_perm`: blocks of 16 or 8 elements, shared or per-slot windows, wide
/// blocks at clamped edges, masked loads at the row's end) and the row walk elsewhere, at every
/// ratio class (integer, non-integer, downsampling, antialiased), 1..3 resampled axes:
/// the reference's bits on every ISA.
#[test]
fn permuted_rows_match_reference_on_every_isa() {
    let mut rng = Rng::new(0x9E12);
    let isas = simd::available_isas();
    let mut kinds = std::collections::BTreeMap::new();
    let mut tables = 0;
    for case in 0..n_cases(200) {
        let alg = rng.pick(&[Algorithm::Nearest, Algorithm::Linear, Algorithm::Linear]);
        let spatial = rng.range(1, 3);
        let mut fin = vec![rng.range(1, 2), rng.range(1, 3)];
        let mut fout = fin.clone();
        let mut axes = vec![AxisRule::Identity; 2];
        let flavour = rng.below(5);
        for k in 0..spatial {
            let last = k + 1 == spatial;
            let i = if last {
                rng.range(65, 200)
            } else {
                rng.range(1, 6)
            };
            let o = match rng.below(6) {
                0 => i * 2,
                1 => i * rng.range(3, 4),
                2 => (i / 2).max(1),
                3 => i * 3 / 2,
                _ => rng.range((i / 3).max(1), 3 * i),
            };
            fin.push(i);
            fout.push(o);
            axes.push(random_rule(&mut rng, flavour, i, o, true));
        }
        let p = dense_bwd(&mut rng, alg, axes, &fin, &fout, flavour);
        matches_reference_on(&mut rng, case, &p, &isas);
        for &isa in &isas {
            let name = Plan::with_isa(p.clone(), isa).unwrap().kernel_name();
            *kinds.entry((isa, name)).or_insert(0) += 1;
            tables += usize::from(same_without_row_table(&mut rng, &p, isa));
        }
    }
    // Permuted walks (and so their tables) exist on AVX2 and AVX-512 only.
    if isas.contains(&simd::Isa::Avx2) || isas.contains(&simd::Isa::Avx512) {
        assert!(
            reduced_run() || tables > 20,
            "row tables in {tables} of 200 cases"
        );
    }
    for (isa, least) in [(simd::Isa::Avx512, 80), (simd::Isa::Avx2, 20)] {
        if isas.contains(&isa) {
            let n = kinds.get(&(isa, "bwd_stream_perm")).copied().unwrap_or(0);
            assert!(
                reduced_run() || n > least,
                "bwd_stream_perm took {n} of 200 on {isa:?}: {kinds:?}"
            );
        }
    }
}

/// Ratios from about 2 to 4 along the row over f32 diff_dst (`bwd_perm_quad` on AVX-512:
/// 64-column windows, two permutes and a blend a slot, the windows' last vectors masked at the
/// row's end; short rows several at a time), nearest and linear, 1..3 resampled axes, short
/// and long rows: the reference's bits on every ISA.
#[test]
fn quad_windows_match_reference_on_every_isa() {
    let mut rng = Rng::new(0x71AD);
    let isas = simd::available_isas();
    let mut quad = 0;
    for case in 0..n_cases(120) {
        let alg = rng.pick(&[Algorithm::Nearest, Algorithm::Linear, Algorithm::Linear]);
        let spatial = rng.range(1, 3);
        let mut fin = vec![rng.range(1, 2), rng.range(1, 3)];
        let mut fout = fin.clone();
        let mut axes = vec![AxisRule::Identity; 2];
        let flavour = rng.below(5);
        for k in 0..spatial {
            let last = k + 1 == spatial;
            let i = match (last, rng.below(4)) {
                (false, _) => rng.range(1, 6),
                (true, 0) => rng.range(8, 40),
                (true, 1) => rng.range(300, 900),
                _ => rng.range(40, 120),
            };
            // Ratios 2..4 (integer ones too), the odd one beside them.
            let o = match rng.below(8) {
                0 => i * 3,
                1 => i * 4,
                2 => i * 2 + 1,
                _ => rng.range(2 * i + 1, 4 * i - 1),
            };
            fin.push(i);
            fout.push(if last { o } else { rng.range(1, 8) });
            axes.push(random_rule(
                &mut rng,
                flavour,
                i,
                *fout.last().unwrap(),
                true,
            ));
        }
        let mut p = dense_bwd(&mut rng, alg, axes, &fin, &fout, flavour);
        // Quad windows read f32 or bf16 diff_dst (bf16: the halves' partial prefixes).
        let offset = p.src.offset;
        let dt = [DataType::F32, DataType::Bf16][case % 2];
        p.src = Layout::dense(dt, &fout);
        p.src.offset = offset;
        matches_reference_on(&mut rng, case, &p, &isas);
        if isas.contains(&simd::Isa::Avx512) {
            let name = Plan::with_isa(p.clone(), simd::Isa::Avx512)
                .unwrap()
                .kernel_name();
            quad += usize::from(name == "bwd_perm_quad");
        }
    }
    if isas.contains(&simd::Isa::Avx512) {
        assert!(
            reduced_run() || quad > 40,
            "bwd_perm_quad took {quad} of 120"
        );
    }
}

/// Rows whose permute tables outgrow the cache (over 1 MiB: some 20K elements at ratios 2
/// to 4) walk ranges of blocks over batches of runs: the reference's bits on every ISA, f32
/// and bf16 diff_dst, nearest and linear.
#[test]
fn long_permuted_rows_walk_block_ranges() {
    let mut rng = Rng::new(0x10C6);
    let isas = simd::available_isas();
    let mut quad = 0;
    for (case, (alg, c, i, o, ddt)) in [
        (Algorithm::Linear, 3, 24000, 60000, DataType::F32),
        (Algorithm::Nearest, 2, 30000, 70001, DataType::F32),
        (Algorithm::Linear, 2, 26000, 70000, DataType::Bf16),
    ]
    .into_iter()
    .enumerate()
    {
        let flavour = rng.below(5);
        let mut axes = vec![AxisRule::Identity; 2];
        axes.push(random_rule(&mut rng, flavour, i, o, false));
        let mut p = dense_bwd(&mut rng, alg, axes, &[1, c, i], &[1, c, o], flavour);
        p.src = Layout::dense(ddt, &[1, c, o]);
        p.dst = Layout::dense(DataType::F32, &[1, c, i]);
        let kernel = matches_reference_on(&mut rng, case, &p, &isas);
        quad += usize::from(kernel == "bwd_perm_quad");
    }
    if isas[0] == simd::Isa::Avx512 {
        assert!(quad >= 1, "no long row took quad windows");
    }
}

/// Backward of forward downsampling over larger planes (`bwd_scatter` up to 64K elements:
/// sparse 2-D linear, 3-D linear, nearest, and group-major passes where taps overlap at
/// ratios below 2), f32 / bf16, through plain and streamed stores: the reference's bits on
/// every ISA.
#[test]
fn large_scattered_planes_match_reference_on_every_isa() {
    let mut rng = Rng::new(0x1A5C);
    let isas = simd::available_isas();
    let mut hits = 0;
    for case in 0..n_cases(80) {
        let kind = rng.below(4);
        let alg = [
            Algorithm::Linear,
            Algorithm::Linear,
            Algorithm::Nearest,
            Algorithm::Linear,
        ][kind];
        let lead = vec![rng.range(1, 2), rng.range(1, 4)];
        let (mut fin, mut fout) = (lead.clone(), lead.clone());
        let mut axes = vec![AxisRule::Identity; 2];
        let m = if kind == 1 { 3 } else { 2 };
        for k in 0..m {
            let (i, r) = match kind {
                0 => (rng.range(60, 200), rng.f32(2.5, 4.0)),
                1 => (rng.range(12, 40), rng.f32(1.6, 2.2)),
                2 => (rng.range(40, 120), rng.f32(1.5, 4.0)),
                _ => (rng.range(20, 64), rng.f32(1.3, 1.9)),
            };
            let i = if k + 1 == m { i } else { i.min(100) };
            let o = (i as f32 / r).round().max(1.0) as usize;
            fin.push(i);
            fout.push(o);
            axes.push(if rng.below(2) == 0 {
                AxisRule::OnednnHalfPixel
            } else {
                AxisRule::TorchLinear {
                    scale: i as f32 / o as f32,
                    align_corners: false,
                }
            });
        }
        let types = [DataType::F32, DataType::F32, DataType::Bf16];
        let p = Problem {
            alg,
            direction: Direction::Backward,
            axes,
            src: Layout::dense(rng.pick(&types), &fout),
            dst: Layout::dense(rng.pick(&types), &fin),
            post_ops: vec![],
            numerics: Numerics::Onednn,
        };
        let force = rng.below(2) == 0;
        streaming::FORCE_STREAM.store(force, std::sync::atomic::Ordering::Relaxed);
        let kernel = matches_reference_on(&mut rng, case, &p, &isas);
        streaming::FORCE_STREAM.store(false, std::sync::atomic::Ordering::Relaxed);
        hits += usize::from(kernel == "bwd_scatter");
    }
    assert!(reduced_run() || hits > 35, "bwd_scatter took {hits} of 80");
}

/// Whether `p`'s permuted walk on `isa` has a row table; if so, checks that runs building
/// their own terms (the walk beyond the table's size limit) give the same bytes.
fn same_without_row_table(rng: &mut Rng, p: &Problem, isa: simd::Isa) -> bool {
    let with = Plan::with_isa(p.clone(), isa).unwrap();
    let mut without = Plan::with_isa(p.clone(), isa).unwrap();
    let taken = match &mut without.strategy {
        plan::Strategy::BwdStream(g) => g.rows.take().is_some(),
        _ => false,
    };
    if !taken {
        return false;
    }
    let s = fill(rng, &p.src, true);
    let init = fill(rng, &p.dst, false);
    let (mut a, mut b) = (init.clone(), init);
    with.execute(&s, &mut a, &[]).unwrap();
    without.execute(&s, &mut b, &[]).unwrap();
    assert!(a == b, "{isa:?}: the row table changed the result\n{p:?}");
    true
}

/// bf16 channels-last backward of forward downsampling (2..7 diff_src pixels per diff_dst
/// one, linear, whole chunks of channels): `bwd_tiny`'s contiguous bf16 lanes, the
/// reference's bits on every ISA.
#[test]
fn sparse_bf16_channels_last_match_reference_on_every_isa() {
    let mut rng = Rng::new(0x5BF);
    let isas = simd::available_isas();
    let mut tiny = 0;
    for case in 0..n_cases(60) {
        let c = rng.pick(&[16, 32, 48, 64, 128]);
        let (ih, iw) = (rng.range(8, 40), rng.range(8, 40));
        let (oh, ow) = ((ih / rng.range(1, 3)).max(1), (iw / rng.range(2, 3)).max(1));
        let ddt = rng.pick(&[DataType::F32, DataType::Bf16]);
        let p = channels_last_bwd(
            Algorithm::Linear,
            c,
            &[ih, iw],
            &[oh, ow],
            DataType::Bf16,
            ddt,
        );
        tiny += usize::from(matches_reference_on(&mut rng, case, &p, &isas) == "bwd_tiny");
    }
    assert!(reduced_run() || tiny > 30, "bwd_tiny took {tiny} of 60");
}

/// Laned rows walked by passes (8..24 lanes, few `w` terms a pixel: forward downsampling,
/// mild upsampling) and pixel by pixel (many terms), nwc / nhwc / ndhwc past `bwd_tiny`'s
/// image, nearest and linear, f32 and bf16: the reference's bits on every ISA.
#[test]
fn laned_passes_match_reference_on_every_isa() {
    let mut rng = Rng::new(0x9A55);
    let isas = simd::available_isas();
    let (mut passes, mut pixels) = (0, 0);
    for case in 0..n_cases(24) {
        let c = rng.range(8, 24);
        // Forward downsampling or mild upsampling along w (passes), else 2-3x upsampling.
        let out = |rng: &mut Rng, i: usize| match case % 4 {
            3 => rng.range(i * 2, i * 3),
            _ => rng.range(i / 3, i * 3 / 2),
        };
        let (fin, fout): (Vec<usize>, Vec<usize>) = match case % 3 {
            0 => {
                let i = rng.range(66000, 90000);
                (vec![i], vec![out(&mut rng, i)])
            }
            1 => {
                let i = rng.range(33000, 45000);
                (vec![2, i], vec![rng.range(1, 4), out(&mut rng, i)])
            }
            _ => {
                let i = rng.range(11000, 15000);
                (vec![2, 3, i], vec![3, 2, out(&mut rng, i)])
            }
        };
        let alg = match case % 4 {
            3 => Algorithm::Linear,
            _ => rng.pick(&[Algorithm::Nearest, Algorithm::Linear]),
        };
        let sdt = rng.pick(&[DataType::F32, DataType::Bf16]);
        let ddt = rng.pick(&[DataType::F32, DataType::Bf16]);
        let p = channels_last_bwd(alg, c, &fin, &fout, sdt, ddt);
        match &Plan::new(p.clone()).unwrap().strategy {
            plan::Strategy::BwdStream(g) if g.passes => passes += 1,
            plan::Strategy::BwdStream(g) if g.lane.is_some() => pixels += 1,
            _ => {}
        }
        matches_reference_on(&mut rng, case, &p, &isas);
    }
    assert!(
        reduced_run() || passes >= 8 && pixels >= 4,
        "passes {passes}, pixel by pixel {pixels} of 24"
    );
}

/// The pixel walk's lane blocks (see `bwd_stream::pixel_full`): 8..136 lanes, a last block
/// of 8 fused with the one before (24, 40, 72, 136 lanes), overlapping tails (17, 57), nwc
/// rows of forward upsampling past `bwd_tiny`'s image: the reference's bits on every ISA.
#[test]
fn laned_pixel_blocks_match_reference_on_every_isa() {
    let mut rng = Rng::new(0xB10C);
    let isas = simd::available_isas();
    for (case, &c) in [8, 17, 24, 40, 57, 72, 136].iter().enumerate() {
        let i = rng.range(30000, 33000);
        // At least 3 `w` entries a pixel (fewer go by passes).
        let alg = rng.pick(&[Algorithm::Nearest, Algorithm::Linear]);
        let o = match alg {
            Algorithm::Nearest => rng.range(i * 3 + 3, i * 4),
            _ => rng.range(i * 9 / 4, i * 3),
        };
        let sdt = rng.pick(&[DataType::F32, DataType::Bf16]);
        let p = channels_last_bwd(alg, c, &[i], &[o], sdt, DataType::F32);
        match &Plan::new(p.clone()).unwrap().strategy {
            plan::Strategy::BwdStream(g) if g.lane.is_some() && !g.passes => {}
            _ => panic!("{c} lanes: not the pixel walk"),
        }
        matches_reference_on(&mut rng, case, &p, &isas);
    }
}

/// Wide pixels of forward upsampling (`bwd_stream::px_wide` when the execution streams, the
/// pixel walk otherwise): 64..300 lanes (tails past a multiple of 8 too), nwc / nhwc /
/// ndhwc, nearest and linear, f32 and bf16 on both sides: the reference's bits on every ISA,
/// streamed and not.
#[test]
fn wide_pixels_match_reference_on_every_isa() {
    let mut rng = Rng::new(0x1DE);
    let isas = simd::available_isas();
    for case in 0..n_cases(24) {
        // (64 lanes: one `bwd_tiny` chunk, which takes images this size.)
        let c = match case % 4 {
            0 => 72,
            1 => rng.range(65, 140),
            2 => 256,
            _ => rng.range(129, 300),
        };
        let alg = rng.pick(&[Algorithm::Nearest, Algorithm::Linear]);
        // 2..3x along w: two or more entries a pixel. Over 1024 diff_dst pixels: an image
        // past `bwd_tiny`'s.
        let up = |rng: &mut Rng, i: usize| rng.range(i * 2, i * 3);
        let (fin, fout): (Vec<usize>, Vec<usize>) = match case % 3 {
            0 => {
                let i = rng.range(600, 1200);
                (vec![i], vec![up(&mut rng, i)])
            }
            1 => {
                let (h, i) = (rng.range(12, 20), rng.range(50, 90));
                (vec![h, i], vec![rng.range(h, 2 * h), up(&mut rng, i)])
            }
            _ => {
                let i = rng.range(30, 50);
                (vec![3, 4, i], vec![4, 6, up(&mut rng, i)])
            }
        };
        let sdt = rng.pick(&[DataType::F32, DataType::Bf16]);
        let ddt = rng.pick(&[DataType::F32, DataType::Bf16]);
        let c = if sdt == DataType::Bf16 { c.max(128) } else { c };
        let p = channels_last_bwd(alg, c, &fin, &fout, sdt, ddt);
        match &Plan::new(p.clone()).unwrap().strategy {
            plan::Strategy::BwdStream(g) if g.wide => {}
            k => panic!("case {case}: not a wide laned walk ({k:?})\n{p:?}"),
        }
        for force in [true, false] {
            streaming::FORCE_STREAM.store(force, std::sync::atomic::Ordering::Relaxed);
            matches_reference_on(&mut rng, case, &p, &isas);
            streaming::FORCE_STREAM.store(false, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// Nearest integer upsampling (`bwd_box`): ncw / nchw / ncdhw, `w` by 1 or 2 and the other
/// axes by 1..4 under the rules that give boxes there (oneDNN, floor) and one that does not
/// (an off-ratio affine scale, which must be refused), rows of 1..70 (vector tails),
/// f32 / bf16 diff_dst, any diff_src type, offset and misaligned buffers, special values:
/// the reference's bits on every ISA, and the box walk taken on every vector ISA.
#[test]
fn box_rows_match_reference_on_every_isa() {
    let mut rng = Rng::new(0xB0C5);
    let isas = simd::available_isas();
    let mut kinds = std::collections::BTreeMap::new();
    for case in 0..n_cases(300) {
        let spatial = rng.range(1, 3);
        let mut fin = vec![rng.range(1, 2), rng.range(1, 5)];
        let mut fout = fin.clone();
        let mut axes = vec![AxisRule::Identity; 2];
        let flavour = rng.below(7);
        for k in 0..spatial {
            let last = k + 1 == spatial;
            let i = if last {
                rng.range(1, 70)
            } else {
                rng.range(1, 9)
            };
            let o = i * if last {
                rng.range(1, 2)
            } else {
                rng.range(1, 4)
            };
            fin.push(i);
            fout.push(o);
            axes.push(match flavour {
                0 | 1 => AxisRule::OnednnHalfPixel,
                2 => AxisRule::OnednnHalfPixelJitBwd,
                3 | 4 => AxisRule::Floor {
                    ratio: i as f32 / o as f32,
                    exact: rng.below(2) == 0,
                },
                _ => random_rule(&mut rng, 2, i, o, false),
            });
        }
        let sdt = rng.pick(&[DataType::F32, DataType::F32, DataType::Bf16]);
        let ddt = rng.pick(&[DataType::F32, DataType::F32, DataType::Bf16, DataType::F16]);
        let mut src = Layout::dense(sdt, &fout);
        if rng.below(4) == 0 {
            src.offset = rng.below(40);
        }
        let p = Problem {
            alg: Algorithm::Nearest,
            direction: Direction::Backward,
            axes,
            src,
            dst: Layout::dense(ddt, &fin),
            post_ops: vec![],
            numerics: if flavour < 3 {
                Numerics::Onednn
            } else {
                Numerics::Ieee
            },
        };
        matches_reference_on(&mut rng, case, &p, &isas);
        for &isa in &isas {
            let plan = Plan::with_isa(p.clone(), isa).unwrap();
            *kinds.entry((isa, plan.kernel_name())).or_insert(0) += 1;
            matches_reference_misaligned(&mut rng, case, &p, &plan, isa);
        }
    }
    for isa in isas {
        let n = kinds.get(&(isa, "bwd_box")).copied().unwrap_or(0);
        match isa {
            simd::Isa::Base => assert_eq!(n, 0, "{kinds:?}"),
            // Refused: off-ratio affine rules, every axis 1:1 (the flat walk), and on NEON
            // bf16 diff_dst.
            simd::Isa::Neon => assert!(
                reduced_run() || n > 80,
                "bwd_box took {n} of 300: {kinds:?}"
            ),
            _ => assert!(
                reduced_run() || n > 100,
                "bwd_box took {n} of 300 on {isa:?}: {kinds:?}"
            ),
        }
    }
}

/// Linear rows whose lists repeat (`bwd_repeat` on AVX-512, `bwd_pairs` on AVX2: 2x
/// upsampling along the row under every rule, any other axes; rows of one short step to many
/// whole ones, stretches cut short where a window would leave the row, edges fused into the
/// first step or summed on their own), f32 or bf16 diff_dst, and the other walks at the other
/// ratios and ISAs: the reference's bits.
#[test]
fn repeating_rows_match_reference_on_every_isa() {
    let mut rng = Rng::new(0x2E9E);
    let isas = simd::available_isas();
    let mut kinds = std::collections::BTreeMap::new();
    for case in 0..n_cases(300) {
        let spatial = rng.range(1, 3);
        let mut fin = vec![rng.range(1, 2), rng.range(1, 3)];
        let mut fout = fin.clone();
        let mut axes = vec![AxisRule::Identity; 2];
        let flavour = rng.below(5);
        for k in 0..spatial {
            let last = k + 1 == spatial;
            let i = if last {
                rng.range(1, 150)
            } else {
                rng.range(1, 6)
            };
            let o = match (last, rng.below(5)) {
                (true, 0..=2) => 2 * i,
                (true, 3) => (i / 2).max(1),
                (true, _) => i * rng.range(1, 3),
                (false, _) => rng.range(1, 12),
            };
            fin.push(i);
            fout.push(o);
            axes.push(random_rule(&mut rng, flavour, i, o, true));
        }
        let p = dense_bwd(&mut rng, Algorithm::Linear, axes, &fin, &fout, flavour);
        matches_reference_on(&mut rng, case, &p, &isas);
        for &isa in &isas {
            let name = Plan::with_isa(p.clone(), isa).unwrap().kernel_name();
            *kinds.entry((isa, name)).or_insert(0) += 1;
        }
    }
    if isas.contains(&simd::Isa::Avx512) {
        let n = kinds
            .get(&(simd::Isa::Avx512, "bwd_repeat"))
            .copied()
            .unwrap_or(0);
        assert!(
            reduced_run() || n > 70,
            "bwd_repeat took {n} of 300: {kinds:?}"
        );
    }
    if isas.contains(&simd::Isa::Avx2) {
        let n = kinds
            .get(&(simd::Isa::Avx2, "bwd_pairs"))
            .copied()
            .unwrap_or(0);
        assert!(
            reduced_run() || n > 70,
            "bwd_pairs took {n} of 300: {kinds:?}"
        );
    }
}

/// Short rows of whole AVX-512 blocks (16 or 32 diff_src elements, nchw-like, f32 diff_dst)
/// summed four rows at a time (`bwd_perm_rows`): 2x and other ratios along the row, 1..2
/// other resampled axes (so rows whose combos differ, at the clamped edges, break a batch),
/// any diff_src type, several channels (batches cross planes) and thread splits: the
/// reference's bits on every ISA, and the batched walk was taken.
#[test]
fn short_rows_go_four_at_a_time() {
    let mut rng = Rng::new(0x4205);
    let isas = simd::available_isas();
    let mut kinds = std::collections::BTreeMap::new();
    let cases = n_cases(120);
    for case in 0..cases {
        let spatial = rng.range(2, 3);
        let mut fin = vec![rng.range(1, 2), rng.range(1, 5)];
        let mut fout = fin.clone();
        let mut axes = vec![AxisRule::Identity; 2];
        let flavour = rng.below(5);
        for k in 0..spatial {
            let (i, o) = if k + 1 == spatial {
                let i = rng.pick(&[16, 32]);
                let o = match rng.below(4) {
                    0 | 1 => 2 * i,
                    2 => i + rng.range(1, i),
                    _ => rng.range(i / 2, 2 * i),
                };
                (i, o)
            } else if k + 2 == spatial {
                // Planes too large for the plane walk's step tables.
                let i = rng.range(48, 96);
                let o = match rng.below(3) {
                    0 => 2 * i,
                    1 => i + rng.range(1, i),
                    _ => rng.range(i / 2, 2 * i),
                };
                (i, o)
            } else {
                (rng.range(1, 4), rng.range(1, 8))
            };
            fin.push(i);
            fout.push(o);
            axes.push(random_rule(&mut rng, flavour, i, o, true));
        }
        let mut p = dense_bwd(&mut rng, Algorithm::Linear, axes, &fin, &fout, flavour);
        p.src = Layout {
            offset: p.src.offset,
            ..Layout::dense(DataType::F32, &fout)
        };
        matches_reference_on(&mut rng, case, &p, &isas);
        if isas.contains(&simd::Isa::Avx512) {
            let plan = Plan::with_isa(p.clone(), simd::Isa::Avx512).unwrap();
            *kinds.entry(plan.kernel_name()).or_insert(0) += 1;
        }
    }
    if isas.contains(&simd::Isa::Avx512) {
        let hits = kinds.get("bwd_perm_rows").copied().unwrap_or(0);
        assert!(
            reduced_run() || hits * 4 > cases,
            "bwd_perm_rows took {hits} of {cases}: {kinds:?}"
        );
    }
}

/// Channels-last linear backward whose diff_dst outgrows a core's L2 cache: `bwd_tiny` asks
/// for each diff_dst pixel once, at the element that reads it first (the ask list's
/// invariant), and sums the reference's bits with the asks running (as from memory) on
/// every ISA; nearest 2x, each pixel read once, asks for nothing.
#[test]
fn pixels_asked_ahead_are_each_pixel_once_at_its_first_reader() {
    let mut rng = Rng::new(0xA4EAD);
    let isas = simd::available_isas();
    // diff_dst images of at least 1.5 L2 caches.
    let pixels = crate::core::cache::l2_per_core() * 3 / 2 / (64 * 4);
    let side = (pixels as f64).sqrt().ceil() as usize / 2 * 2;
    let mut asked = 0;
    for (case, (alg, c, fin, fout)) in [
        (
            Algorithm::Linear,
            64,
            vec![side / 2, side / 2],
            vec![side, side],
        ),
        (
            Algorithm::Linear,
            64,
            vec![side / 2 + 3, side / 3],
            vec![side, side + 5],
        ),
        (
            Algorithm::Linear,
            32,
            vec![side / 2, side],
            vec![side, side * 2],
        ),
        (Algorithm::Linear, 64, vec![side / 8; 3], vec![side / 4; 3]),
        (
            Algorithm::Nearest,
            64,
            vec![side / 2, side / 2],
            vec![side, side],
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let p = channels_last_bwd(alg, c, &fin, &fout, DataType::F32, DataType::F32);
        let plan = Plan::new(p.clone()).unwrap();
        let plan::Strategy::BwdTiny(g) = &plan.strategy else {
            panic!("case {case}: {}\n{p:?}", plan.kernel_name());
        };
        match (&g.ahead, alg) {
            (Some(a), Algorithm::Linear) => {
                asked += 1;
                let mut first_reader = std::collections::HashMap::new();
                for (e, &(_, t0, t1)) in g.elems.iter().enumerate() {
                    for &o in &g.toff[t0 as usize..t1 as usize] {
                        first_reader.entry(o).or_insert(e);
                    }
                }
                assert_eq!(a.starts.len(), g.elems.len() + 1, "case {case}");
                assert_eq!(a.first.len(), first_reader.len(), "case {case}");
                for e in 0..g.elems.len() {
                    for o in &a.first[a.starts[e] as usize..a.starts[e + 1] as usize] {
                        assert_eq!(first_reader.get(o), Some(&e), "case {case}: pixel {o}");
                    }
                }
            }
            (None, Algorithm::Nearest) => {}
            (a, _) => panic!("case {case}: asks {:?}\n{p:?}", a.is_some()),
        }
        streaming::FORCE_STREAM.store(true, std::sync::atomic::Ordering::Relaxed);
        matches_reference_on(&mut rng, case, &p, &isas);
        streaming::FORCE_STREAM.store(false, std::sync::atomic::Ordering::Relaxed);
    }
    assert_eq!(asked, 4);
}

/// Nearest backward of forward downsampling (and of ratios reading no input twice) along a
/// long unit-stride last axis, channels-first, 1-3 spatial axes, every axis rule, f32 /
/// bf16 diff_dst into f32 / bf16 / f16 diff_src, special values (-0 becomes +0), offsets
/// and misaligned buffers, streamed or not: `bwd_expand`'s rows carry the reference's bits
/// on every ISA.
#[test]
fn spread_rows_match_reference_on_every_isa() {
    let mut rng = Rng::new(0xE4FA);
    let isas = simd::available_isas();
    let mut taken = 0;
    let cases = n_cases(120);
    for case in 0..cases {
        let spatial = rng.range(1, 3);
        let flavour = rng.below(5);
        let (mut fin, mut fout) = (vec![rng.range(1, 2), rng.range(1, 5)], vec![]);
        fout.extend_from_slice(&fin);
        let mut axes = vec![AxisRule::Identity; 2];
        for k in 0..spatial {
            let last = k + 1 == spatial;
            let i = if last {
                rng.range(48, 300)
            } else {
                rng.range(1, 12)
            };
            let o = match rng.below(4) {
                0 if !last => i,
                1 => (i as f32 / rng.pick(&[1.0, 1.3, 1.5, 2.0, 3.0, 4.5])) as usize,
                _ => i / rng.range(2, 4),
            }
            .max(1);
            fin.push(i);
            fout.push(o);
            axes.push(if i == o && rng.below(2) == 0 {
                AxisRule::Identity
            } else {
                random_rule(&mut rng, flavour, i, o, false)
            });
        }
        let sdt = rng.pick(&[DataType::F32, DataType::F32, DataType::Bf16]);
        let ddt = rng.pick(&[DataType::F32, DataType::F32, DataType::Bf16, DataType::F16]);
        let mut src = Layout::dense(sdt, &fout);
        src.offset = rng.below(3);
        let p = Problem {
            alg: Algorithm::Nearest,
            direction: Direction::Backward,
            axes,
            src,
            dst: Layout::dense(ddt, &fin),
            post_ops: vec![],
            numerics: rng.pick(&[Numerics::Onednn, Numerics::Ieee]),
        };
        let force = rng.below(2) == 0;
        streaming::FORCE_STREAM.store(force, std::sync::atomic::Ordering::Relaxed);
        let kernel = matches_reference_on(&mut rng, case, &p, &isas);
        // Buffers one byte off their alignment (the rows go through scratch).
        let s = fill(&mut rng, &p.src, true);
        let mut slow = fill(&mut rng, &p.dst, false);
        let plan = Plan::new(p.clone()).unwrap();
        plan.execute_reference(&s, &mut slow, &[]).unwrap();
        let (mut s1, mut f1) = (vec![0u8; s.len() + 1], vec![0u8; slow.len() + 1]);
        s1[1..].copy_from_slice(&s);
        plan.execute(&s1[1..], &mut f1[1..], &[]).unwrap();
        streaming::FORCE_STREAM.store(false, std::sync::atomic::Ordering::Relaxed);
        let e = first_difference(&f1[1..], &slow, p.dst.dtype);
        assert!(e.is_none(), "case {case} misaligned: byte {e:?}\n{p:?}");
        taken += usize::from(kernel == "bwd_expand");
    }
    assert!(
        reduced_run() || taken > cases / 2,
        "bwd_expand took {taken} of {cases}"
    );
}

/// Planes upsampled 2x along both `h` and `w` (`bwd_twice` on AVX-512 and AVX2: row pairs walked up
/// the plane, edge columns down it in blocks of rows, edge rows on their own; planes split
/// into row chunks, fewer rows a chunk for rows of 16K+) under every rule flavour, 0..3 identity axes before them, padded rows in
/// either tensor, diff_dst f32 or bf16 with an offset, diff_src f32 / bf16 / f16, and the
/// other walks where a shape or ratio falls outside it: the reference's bits on every ISA,
/// streamed (through scratch) or not.
#[test]
fn twice_planes_match_reference_on_every_isa() {
    let mut rng = Rng::new(0x2C2C);
    let isas = simd::available_isas();
    let mut kinds = std::collections::BTreeMap::new();
    for case in 0..n_cases(200) {
        let lead = rng.range(0, 3);
        let mut fin: Vec<usize> = (0..lead).map(|_| rng.range(1, 3)).collect();
        let mut fout = fin.clone();
        let mut axes = vec![AxisRule::Identity; lead];
        let flavour = rng.below(5);
        let hs = [1, 2, 3, rng.range(4, 40), rng.range(60, 140)];
        let ih = rng.pick(&hs);
        let ws = [rng.range(2, 17), 18, rng.range(19, 48), rng.range(49, 130)];
        // Now and then rows so wide that a run takes fewer than 64 of them.
        let (ih, iw) = if case % 25 == 7 {
            (rng.range(60, 130), rng.range(16_400, 20_000))
        } else {
            (ih, rng.pick(&ws))
        };
        for (i, twice) in [(ih, rng.below(8) != 0), (iw, rng.below(8) != 0)] {
            let o = if twice { 2 * i } else { rng.range(1, 3 * i) };
            fin.push(i);
            fout.push(o);
            // Wide rows: a rule whose weights stay exact that far (f32 coordinates of the
            // other rules drift, and the walk then rightly declines).
            axes.push(if iw > 16_000 && twice {
                AxisRule::Affine {
                    scale: 2.0,
                    input_offset: 0.5,
                    output_offset: -0.5,
                    rounding: NearestRounding::HalfUp,
                    antialias: false,
                }
            } else {
                random_rule(&mut rng, flavour, i, o, true)
            });
        }
        let mut p = dense_bwd(&mut rng, Algorithm::Linear, axes, &fin, &fout, flavour);
        // Rows padded in either tensor (the walks take row pitches, not widths).
        for l in [&mut p.src, &mut p.dst] {
            if rng.below(3) == 0 {
                let r = l.rank();
                let mut strides = vec![1usize; r];
                strides[r - 2] = l.dims[r - 1] + rng.range(1, 9);
                for a in (0..r - 2).rev() {
                    strides[a] = strides[a + 1] * l.dims[a + 1];
                }
                *l = Layout::strided(l.dtype, &l.dims, &strides, l.offset);
            }
        }
        matches_reference_on(&mut rng, case, &p, &isas);
        for &isa in &isas {
            let plan = Plan::with_isa(p.clone(), isa).unwrap();
            // Streamed output (finished chunks through scratch), dst on and off a line.
            if case % 4 == 0 && plan.kernel_name() == "bwd_twice" {
                let what = format!("case {case} {isa:?}");
                super::tests::check_streamed(&plan, &mut rng, &p.src, &p.dst, &what);
            }
            *kinds.entry((isa, plan.kernel_name())).or_insert(0) += 1;
        }
    }
    for isa in [simd::Isa::Avx512, simd::Isa::Avx2] {
        if isas.contains(&isa) {
            let n = kinds.get(&(isa, "bwd_twice")).copied().unwrap_or(0);
            assert!(
                reduced_run() || n > 40,
                "bwd_twice took {n} of 200 on {isa:?}: {kinds:?}"
            );
        }
    }
}

/// Rows upsampled 2x so long that oneDNN's f32 coordinates drift (8K-20K elements): the
/// repeating stretch around the middle is then cut short, and its walks (`bwd_repeat` on
/// AVX-512, `bwd_pairs` on AVX2) leave the row to the general one instead of summing most
/// of it lane by lane (ten times slower). Still the reference's bits on every ISA.
#[test]
fn drifting_long_rows_take_the_general_walk() {
    let mut rng = Rng::new(0x5EED_D81F);
    let isas = simd::available_isas();
    for case in 0..n_cases(8) {
        let flavour = case % 2;
        let (ih, iw) = (rng.range(1, 4), rng.range(8_200, 20_000));
        let axes = vec![
            AxisRule::Identity,
            random_rule(&mut rng, flavour, ih, 2 * ih, true),
            random_rule(&mut rng, flavour, iw, 2 * iw, true),
        ];
        let p = dense_bwd(
            &mut rng,
            Algorithm::Linear,
            axes,
            &[2, ih, iw],
            &[2, 2 * ih, 2 * iw],
            flavour,
        );
        matches_reference_on(&mut rng, case, &p, &isas);
        for &isa in &isas {
            let name = Plan::with_isa(p.clone(), isa).unwrap().kernel_name();
            assert!(
                !matches!(name, "bwd_repeat" | "bwd_pairs"),
                "case {case} {isa:?}: {ih}x{iw} took {name}"
            );
        }
    }
}

/// Long linear rows under oneDNN's rules (`bwd_long`, taken at any length here): 1-D rows
/// and rows under identity axes, every ratio class (downsampling, 1:1, non-integer, up to
/// 60x: chunks of 1024 elements down to 16), several chunks a row, f32 or bf16 diff_dst,
/// f32 / bf16 / f16 diff_src, offsets, misaligned buffers: the reference's bits on AVX-512
/// and AVX2 (permuted windows and gathered blocks, vector and scalar tails).
#[test]
fn long_rows_match_reference_on_every_isa() {
    let mut rng = Rng::new(0x10_96_80);
    let isas = simd::available_isas();
    let mut taken = 0;
    kernels::bwd_long::ANY_ROW.with(|c| c.set(true));
    for case in 0..n_cases(120) {
        let i = match rng.below(4) {
            0 => rng.range(1, 40),
            1 => rng.range(40, 700),
            _ => rng.range(700, 5000),
        };
        let o = match rng.below(6) {
            0 => i,
            1 => (i / rng.range(2, 5)).max(1),
            2 => i * rng.range(2, 5),
            3 => rng.range(1, 8 * i + 2),
            4 => i * rng.range(5, 60),
            _ => (i as f64 * (1.0 + rng.below(1000) as f64 / 400.0)) as usize + 1,
        };
        let flavour = rng.below(3);
        let rule = match flavour {
            0 => AxisRule::OnednnHalfPixel,
            1 => AxisRule::OnednnHalfPixelJitBwd,
            _ => AxisRule::Dnnl12,
        };
        let (mut fin, mut fout, mut axes) = (vec![], vec![], vec![]);
        for _ in 0..rng.below(3) {
            let k = rng.range(1, 3);
            fin.push(k);
            fout.push(k);
            axes.push(AxisRule::Identity);
        }
        fin.push(i);
        fout.push(o);
        axes.push(rule);
        let p = dense_bwd(&mut rng, Algorithm::Linear, axes, &fin, &fout, 0);
        matches_reference_on(&mut rng, case, &p, &isas);
        for &isa in &isas {
            let plan = Plan::with_isa(p.clone(), isa).unwrap();
            if plan.kernel_name() != "bwd_long" {
                continue;
            }
            taken += 1;
            matches_reference_misaligned(&mut rng, case, &p, &plan, isa);
        }
    }
    kernels::bwd_long::ANY_ROW.with(|c| c.set(false));
    let vector = isas
        .iter()
        .filter(|&&i| matches!(i, simd::Isa::Avx512 | simd::Isa::Avx2))
        .count();
    assert!(
        reduced_run() || taken >= 80 * vector,
        "bwd_long took {taken} of 120 per vector ISA"
    );
}
